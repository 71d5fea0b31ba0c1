//! The number and text formats of a run's CSV files: times as seconds
//! with nine decimals (exact nanoseconds), so that the same scenario and
//! seed give byte-identical files.

use msctp_proto::Time;

/// A time as seconds with nine decimals (exact).
pub fn fmt_time(t: Time) -> String {
    let ns = t.as_nanos();
    format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000)
}

/// A CSV field, quoted when it holds a comma, a quote or a newline
/// (RFC 4180 section 2).
pub(crate) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// An optional number with six decimals; empty when absent.
pub(crate) fn opt_f(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.6}")).unwrap_or_default()
}
