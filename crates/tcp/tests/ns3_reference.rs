//! The scenarios of `bench/ns3/README.md` run through this crate's TCP
//! (the `ns3_compatible` preset) on the test harness's link model, and
//! compared with the ns-3 3.37 results recorded in
//! `bench/ns3/results-3.37.jsonl`: goodput within 10%.
//!
//! The example `ns3_sack` prints both variants, SACK included (not part of
//! the preset, no assertion).

mod harness;
mod ns3;

use ns3::{ns3_mean, ours_mean, run, scenario};

#[test]
fn ns3_compatible_preset_goodput_within_ten_percent_of_ns3() {
    for name in ["a", "b", "c", "d", "e"] {
        let ours = ours_mean(name, false, 10);
        let theirs = ns3_mean(name, false);
        let ratio = ours / theirs;
        assert!(
            (0.9..=1.1).contains(&ratio),
            "scenario {name}: ours {ours:.0} bit/s, ns-3 {theirs:.0} bit/s"
        );
    }
}

#[test]
fn clean_bottleneck_scenario_repairs_the_same_losses_as_ns3() {
    // Scenario (a) is deterministic on both sides: slow start overshoots the
    // 20-packet queue, then each congestion epoch loses two segments.
    // ns-3 3.37 reports 14 fast retransmits, 28 retransmitted segments and
    // no timeout (bench/ns3/README.md).
    let (hops, loss, secs) = scenario("a");
    let o = run(&hops, loss, secs, false, 1);
    assert_eq!(o.rtos, 0, "{o:?}");
    assert!((12..=16).contains(&o.fast_retransmits), "{o:?}");
    assert!((24..=32).contains(&o.retransmitted), "{o:?}");
}
