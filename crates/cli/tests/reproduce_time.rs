//! `scripts/reproduce-time.py`: the whole reproduction's time goal (issues
//! 33, 34 and 37: the README's main job in under 5 minutes). A short real
//! reproduction (one quick study) on this test build checks that the
//! script runs the command, reads its summary and judges the wall time
//! against the limit (met, missed, and the command failing). No timing of
//! this machine is asserted: the limits are far on either side.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::output_text as text;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/reproduce-time.py")
}

fn time_of(args: &[&str], reproduce_args: &[&str]) -> Output {
    Command::new("python3")
        .arg(script())
        .args(["--msctp", env!("CARGO_BIN_EXE_msctp")])
        .args(args)
        .arg("--")
        .args(reproduce_args)
        .output()
        .unwrap()
}

#[test]
fn a_quick_study_is_timed_and_judged_against_the_limit() {
    let quick = ["E4-pingpong", "--quick"];
    let o = time_of(&["--limit", "3600"], &quick);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("E4-pingpong: 52 runs"), "{t}");
    assert!(t.contains("52 runs, pool"), "{t}");
    assert!(t.contains("goal under 3600 s: met"), "{t}");

    // Far below any real run's time: missed, exit 1.
    let o = time_of(&["--limit", "0.001", "--invocations", "2"], &quick);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("over 2 invocation(s)"), "{t}");
    assert!(t.contains("MISSED"), "{t}");
}

#[test]
fn a_failing_command_or_bad_arguments_exit_2() {
    let o = time_of(&[], &["no-such-study"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("the command failed"), "{}", text(&o));

    let o = time_of(&["--invocations", "0"], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));

    let o = Command::new("python3")
        .arg(script())
        .args(["--msctp", "/nonexistent/msctp"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("is not an executable"), "{}", text(&o));
}
