//! The HTML page: uPlot, the page's script and style, and the data as
//! JSON, inlined into one file.

use crate::data::ViewData;

const UPLOT_JS: &str = include_str!("../assets/uPlot.iife.min.js");
const UPLOT_CSS: &str = include_str!("../assets/uPlot.min.css");
const VIEW_JS: &str = include_str!("../assets/view.js");
const VIEW_CSS: &str = include_str!("../assets/view.css");

/// The path of the server-sent event stream a live page subscribes to.
pub const LIVE_PATH: &str = "/events";

/// JSON made safe inside a `<script>` element: no `</` (which would end
/// it) and no U+2028/2029 (line ends in older JavaScript parsers).
fn script_safe_json(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v)
        .unwrap_or_else(|_| "null".into())
        .replace("</", "<\\/")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page for `data`; with `live`, the page also subscribes to the
/// server-sent events at [`LIVE_PATH`] of the server that served it and
/// appends what arrives.
pub fn render(data: &ViewData, live: bool) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title} — msctp view</title>\
         <style>{UPLOT_CSS}</style><style>{VIEW_CSS}</style></head>\
         <body><div id=\"app\"></div>\
         <script>{UPLOT_JS}</script>\
         <script>window.MSCTP_DATA = {data_json}; window.MSCTP_LIVE = {live_json};</script>\
         <script>{VIEW_JS}</script></body></html>\n",
        title = html_escape(&data.title),
        data_json = script_safe_json(data),
        live_json = if live {
            script_safe_json(&LIVE_PATH)
        } else {
            "null".into()
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_cannot_end_the_script_element() {
        let d = ViewData {
            title: "<b>x</b>".into(),
            marks: vec![crate::Mark {
                t: 1.0,
                cat: "other",
                source: "s".into(),
                kind: "k".into(),
                detail: "</script><script>alert(1)</script>\u{2028}".into(),
            }],
            ..Default::default()
        };
        let p = render(&d, false);
        assert_eq!(p.matches("</script>").count(), 3, "only the page's own");
        assert!(p.contains("<title>&lt;b&gt;x&lt;/b&gt; — msctp view</title>"));
        assert!(!p.contains('\u{2028}'));
    }
}
