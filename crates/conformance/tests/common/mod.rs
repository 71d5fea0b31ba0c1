//! What the interpreter's own tests share: running a script text with
//! the default configuration, and finding where it failed.

#![allow(dead_code)]

use msctp_conformance::{Failure, Outcome, RunConfig, run_script};

/// Runs a script text with the default configuration.
pub fn run(text: &str) -> Outcome {
    run_script(text, &RunConfig::default())
}

/// The failure of a script that must fail.
pub fn failure(text: &str) -> Failure {
    match run(text) {
        Outcome::Fail(f) => f,
        other => panic!("expected a failure, got {other:?}"),
    }
}

/// Line of `needle` in `text` (1-based).
pub fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .map(|i| i + 1)
        .expect("needle in script")
}
