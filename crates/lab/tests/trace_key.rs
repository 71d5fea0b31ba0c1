//! A scenario that follows a mobility trace file (`mobility = { kind =
//! "trace", trace = FILE }`) is keyed on the file's contents too:
//!
//! ```text
//!   user                      msctp sweep (SimRunner)         store
//!   walk.tcl: 10 m/s    ->    run (key K1)               ->   K1 stored
//!   same file           ->    key K1: stored, no run
//!   walk.tcl: 2 m/s     ->    run (key K2 != K1)         ->   K2 stored
//! ```
//!
//! The scenario text names the same file each time; only the file changed.

use std::path::Path;

use msctp_lab::LabOptions;
use msctp_lab::adhoc::{parse_param, sweep, sweep_experiment};
use msctp_lab::execute::ExecOptions;
use msctp_lab::sim_runner::SimRunner;
use msctp_sim::scenario::{self, MobilitySpec, REFERENCE, TraceFormatSpec};

fn walk(speed: f64) -> String {
    format!(
        "$node_(0) set X_ 50.0\n$node_(0) set Y_ 0.0\n\
         $ns_ at 2.0 \"$node_(0) setdest 250.0 0.0 {speed}\"\n"
    )
}

#[test]
fn a_changed_trace_file_is_run_again_not_taken_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("walk.tcl");
    std::fs::write(&trace, walk(10.0)).unwrap();
    let mut s = scenario::parse(REFERENCE).unwrap();
    s.mobiles[0].mobility = MobilitySpec::Trace {
        trace: trace.display().to_string(),
        format: TraceFormatSpec::Ns2,
        node: 0,
        dimensions: 2,
        max_bytes: 1 << 20,
        max_waypoints: 1000,
    };
    let sc = dir.path().join("walk.toml");
    std::fs::write(&sc, toml::to_string(&s).unwrap()).unwrap();
    let mut opts = LabOptions::new(dir.path().join("out"));
    opts.exec = ExecOptions {
        jobs: 1,
        progress: false,
        ..ExecOptions::default()
    };
    let params = vec![parse_param("duration_s=12").unwrap()];
    let run = |opts: &LabOptions| {
        let exp = sweep_experiment(&sc, &params, 1, "sim").unwrap();
        sweep(exp, &SimRunner::default(), opts).unwrap()
    };
    let keys = |p: &Path| std::fs::read_to_string(p.join("out/sweep-walk/runs.csv")).unwrap();

    let first = run(&opts);
    assert_eq!(first.exec.executed, 1);
    let k1 = keys(dir.path());
    let again = run(&opts);
    assert_eq!(again.exec.executed, 0, "same file: the stored run");

    std::fs::write(&trace, walk(2.0)).unwrap();
    let moved = run(&opts);
    assert_eq!(moved.exec.executed, 1, "the file changed: run again");
    assert_ne!(keys(dir.path()), k1);
}
