//! What the command's tests share.
// Each test file compiles this module on its own and uses part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Output};

/// A finished command's stdout then stderr, for assertions and their
/// messages.
pub fn output_text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The UDP port a serving `msctp` (listen, recv, perf server) announces
/// in its first line on stderr ("listening on SCTP port P over UDP port U
/// at [...]"); the rest of stderr is left unread.
pub fn announced_udp_port(child: &mut Child) -> u16 {
    let mut line = String::new();
    BufReader::new(child.stderr.take().expect("stderr piped"))
        .read_line(&mut line)
        .unwrap();
    line.split("UDP port ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
}

/// A child process killed (and reaped) when dropped, also on a failed
/// assertion.
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The URL of the live page that `msctp perf --view` announces on stderr
/// ("live view: URL"), the lines before it skipped. The rest of stderr is
/// read on a thread of its own until the child ends: the pipe stays open
/// (a closed one would fail the child's next report) and never fills.
pub fn live_view_url(child: &mut Child) -> String {
    let mut err = BufReader::new(child.stderr.take().expect("stderr piped"));
    let mut line = String::new();
    while !line.starts_with("live view: ") {
        line.clear();
        assert!(err.read_line(&mut line).unwrap() > 0, "no live view line");
    }
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    line["live view: ".len()..].trim().to_string()
}

/// Runs `cmd` (an `msctp ... --json` command) to its end, failing the test
/// with its output if it fails, and returns its JSON lines.
pub fn json_lines(cmd: &mut std::process::Command, what: &str) -> Vec<serde_json::Value> {
    let o = cmd.output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{what} failed: {out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect()
}
