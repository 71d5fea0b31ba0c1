//! `msctp soak`'s options (and `--impair` of the network commands): bad ones are refused at once with a message
//! naming them (exit code 2), before any namespace is made. The soak
//! itself runs in `crates/net/tests/netns_soak.rs` (root).

use std::process::{Command, Output};

fn msctp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_msctp"))
        .arg("soak")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn bad_soak_options_are_refused_with_their_name() {
    for (args, want) in [
        (
            &["--min-interval", "3", "--max-interval", "1"][..],
            "--min-interval",
        ),
        (&["--min-interval", "0.01"][..], "--min-interval"),
        (&["--cuts", "0"][..], "--cuts"),
        (&["--impair", "loss=2"][..], "--impair"),
        (&["--impair", "jitter=0.1"][..], "jitter"),
        (&["--file-kib", "0"][..], "--file-kib"),
    ] {
        let o = msctp(args);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains(want), "{args:?}: {want:?} missing from {e}");
        assert!(o.stdout.is_empty(), "{args:?}: nothing ran");
    }
}

/// The network commands take the same impairment option.
#[test]
fn a_bad_impairment_of_a_network_command_is_refused() {
    let o = Command::new(env!("CARGO_BIN_EXE_msctp"))
        .args(["perf", "--to", "127.0.0.1", "--impair", "dup=1.5"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("--impair") && e.contains("dup=1.5"), "{e}");
}
