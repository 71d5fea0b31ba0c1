//! mSCTP scenarios end to end: the reference scenario (a soft handover
//! between two cells at 10 m/s) and the same path break with failover only.

use msctp_sim::scenario::{self, REFERENCE};

#[test]
fn reference_scenario_runs() {
    let s = scenario::parse(REFERENCE).unwrap();
    let r = scenario::run_scenario(&s, 1).unwrap();
    println!("{}", r.summary_json());
    println!("{}", r.events_csv());
}

#[test]
#[ignore]
fn dump_reference_outputs() {
    let s = scenario::parse(REFERENCE).unwrap();
    let r = scenario::run_scenario(&s, 1).unwrap();
    r.write_to_dir(std::path::Path::new("/tmp/simint_ref"))
        .unwrap();
}
