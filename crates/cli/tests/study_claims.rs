//! Every reproduced study, run in quick mode through the simulator: each
//! qualitative claim of its experiment file must get the verdict the file
//! expects (agree, or a documented disagreement). A regression in a model
//! fails here.

use std::path::{Path, PathBuf};

use msctp_lab::pipeline::testing::assert_claims;
use msctp_lab::runner::simulator::SimRunner;

fn experiments() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments")
}

fn check(file: &str) {
    let dir = tempfile::tempdir().expect("temporary directory");
    assert_claims(&experiments().join(file), &SimRunner::default(), dir.path());
}

#[test]
fn e3_crossover_claims() {
    check("e3-crossover.toml");
}

#[test]
fn e3_random_claims() {
    check("e3-random.toml");
}

#[test]
fn e5_claims() {
    check("e5.toml");
}

#[test]
fn e1_claims() {
    check("e1.toml");
}

#[test]
fn e2_up_claims() {
    check("e2-up.toml");
}

#[test]
fn e2_down_claims() {
    check("e2-down.toml");
}

#[test]
fn e4_linkup_claims() {
    check("e4-linkup.toml");
}

#[test]
fn e4_linkdown_claims() {
    check("e4-linkdown.toml");
}

#[test]
fn e4_pingpong_claims() {
    check("e4-pingpong.toml");
}

#[test]
fn e9_claims() {
    check("e9.toml");
}

#[test]
fn e9_handover_claims() {
    check("e9-handover.toml");
}

#[test]
fn e6_claims() {
    check("e6.toml");
}

#[test]
fn e7a_claims() {
    check("e7a.toml");
}

#[test]
fn e7b_claims() {
    check("e7b.toml");
}

#[test]
fn e8_claims() {
    check("e8.toml");
}
