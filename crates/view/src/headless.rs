//! Headless Chromium for the viewer's tests (feature `test-support`):
//! finding Debian's `chromium` (installed by scripts/install-deps.sh),
//! running it on a page, and reading what the page wrote. The page's own
//! tests (`crates/view/tests/headless.rs`) and the live ones of `msctp
//! perf --view` (`crates/cli/tests/view_live*.rs`) share it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The `chromium` (or `chromium-browser`) on `PATH`, if any.
pub fn chromium() -> Option<PathBuf> {
    let names = ["chromium", "chromium-browser"];
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|d| names.iter().map(move |n| d.join(n)))
        .find(|p| p.is_file())
}

/// What one headless run gave.
#[derive(Debug)]
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    /// Wall time from start to exit.
    pub secs: f64,
}

impl Run {
    /// The page's console messages (Chromium logs them to stderr with
    /// `--enable-logging=stderr --log-level=0`).
    pub fn console(&self) -> Vec<&str> {
        self.stderr
            .lines()
            .filter(|l| l.contains(":CONSOLE"))
            .collect()
    }
}

/// Runs `browser` headless on `url` with `args` (e.g. `--dump-dom`,
/// `--screenshot=FILE`), optionally prefixed by `wrap` (e.g. `ip netns
/// exec NS`); panics if it fails.
pub fn run(browser: &Path, wrap: &[&str], args: &[&str], url: &str) -> Run {
    let t = Instant::now();
    let mut cmd = match wrap.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(browser);
            c
        }
        None => Command::new(browser),
    };
    let out = cmd
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--log-level=0",
        ])
        .args(args)
        .arg(url)
        .output()
        .expect("chromium runs");
    let secs = t.elapsed().as_secs_f64();
    assert!(out.status.success(), "chromium failed: {out:?}");
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        secs,
    }
}

/// The JSON the page's self-test wrote into `<pre id="status">`.
pub fn status(dom: &str) -> serde_json::Value {
    let start = dom.find("<pre id=\"status\"").expect("status element");
    let body = &dom[start..];
    let body = &body[body.find('>').expect("tag ends") + 1..];
    let body = &body[..body.find("</pre>").expect("element ends")];
    let text = body
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("status {text}: {e}"))
}

/// The value of the attribute `name` the live page sets on its root
/// (`data-live-points`, `data-errors`, ...), if present.
pub fn attribute<'a>(dom: &'a str, name: &str) -> Option<&'a str> {
    dom.split(&format!("{name}=\""))
        .nth(1)
        .and_then(|r| r.split('"').next())
}

/// Takes a screenshot of `url` (window `w`x`h`) into `shot`, with
/// `budget_ms` of virtual time to draw; checks there is no console message
/// and a PNG was written.
pub fn screenshot(
    browser: &Path,
    wrap: &[&str],
    url: &str,
    shot: &Path,
    size: (u32, u32),
    budget_ms: u32,
) -> Run {
    let r = run(
        browser,
        wrap,
        &[
            &format!("--virtual-time-budget={budget_ms}"),
            "--hide-scrollbars",
            &format!("--window-size={},{}", size.0, size.1),
            &format!("--screenshot={}", shot.display()),
        ],
        url,
    );
    assert!(
        r.console().is_empty(),
        "console messages: {:#?}",
        r.console()
    );
    let png = std::fs::read(shot).unwrap_or_else(|e| panic!("{e}: {}", r.stderr));
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_and_attributes_are_read_from_the_dom() {
        let dom = "<div id=\"app\" data-live-points=\"42\" data-errors=\"0\">\
                   <pre id=\"status\" hidden>{&quot;a&quot;:&quot;&lt;b&gt;&amp;&quot;}</pre></div>";
        assert_eq!(status(dom)["a"], "<b>&");
        assert_eq!(attribute(dom, "data-live-points"), Some("42"));
        assert_eq!(attribute(dom, "data-errors"), Some("0"));
        assert_eq!(attribute(dom, "data-nothing"), None);
    }
}
