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
