//! The claim-test pattern on the real simulator: a small study run in
//! quick mode, its claims checked on our own results.

use std::path::Path;

use msctp_lab::pipeline::testing;
use msctp_lab::runner::simulator::SimRunner;

#[test]
fn reference_handover_claims_hold() {
    let dir = tempfile::tempdir().unwrap();
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sim_demo.toml");
    let outcomes = testing::quick_claims(&spec, &SimRunner::default(), dir.path()).unwrap();
    assert_eq!(outcomes.len(), 3);
    let bad = testing::unexpected_report(&outcomes);
    assert!(bad.is_empty(), "{bad}");
    // The same through the panicking helper (everything is stored now).
    testing::assert_claims(&spec, &SimRunner::default(), dir.path());
}
