//! AISLE in the simulator (Budzisz et al. section 4.2.2; docs/MODELS.md
//! 3): the data sender's policy, fed by the engine's packet-pair capacity
//! and Westwood+ estimates over simulated cells of known capacity.

mod common;

use msctp_sim::scenario::{self, run_scenario};

/// A stationary dual-homed mobile on two dedicated cells of C1 and C2
/// bit/s (15 ms each); the correspondent sends it a bulk transfer with
/// AISLE; the primary (cell 1) congests under the transfer itself.
const BASE: &str = r#"
name = "aisle test"
duration_s = DURATION
[output]
sample_ms = 0.0
WIRED
[[cells]]
name = "net1"
router = "ar1"
ap_addr = "10.1.0.254/24"
radius_m = 1000.0
rate_bps = C1
delay_ms = 15.0
queue_packets = 20
sharing = "dedicated"
[[cells]]
name = "net2"
router = "ar2"
ap_addr = "10.2.0.254/24"
radius_m = 1000.0
rate_bps = C2
delay_ms = 15.0
queue_packets = 20
sharing = "dedicated"
[[mobiles]]
name = "mn"
ifaces = [{ name = "if1", cells = ["net1"] }, { name = "if2", cells = ["net2"] }]
[mobiles.mobility]
kind = "stationary"
[[flows]]
name = "data"
mobile = "mn"
fixed = "cn"
start_s = 0.5
traffic = { kind = "bulk", message_bytes = 1424 }
policy = { kind = "aisle" PARAMS }
[flows.sctp]
rto_min_ms = 200.0
sack_delay_ms = 0.0
"#;

/// [`BASE`] with the wired part filled in.
fn base() -> String {
    BASE.replace("WIRED", common::WIRED)
}

fn run(c1: u64, c2: u64, duration: f64, params: &str, seed: u64) -> msctp_sim::measure::RunResult {
    let text = base()
        .replace("DURATION", &duration.to_string())
        .replace("C1", &c1.to_string())
        .replace("C2", &c2.to_string())
        .replace("PARAMS", params);
    let s = scenario::parse(&text).expect("valid scenario");
    run_scenario(&s, seed).expect("run")
}

fn counter(r: &msctp_sim::measure::RunResult, name: &str) -> u64 {
    r.summary.flows[0]
        .policy_counters
        .get(name)
        .copied()
        .unwrap_or(0)
}

/// Times (s) of the sender's swaps (its `UsePath` decisions carried out).
fn swap_times(r: &msctp_sim::measure::RunResult) -> Vec<f64> {
    r.events
        .iter()
        .filter(|e| {
            e.kind == "decision" && e.detail.starts_with("UsePath") && e.detail.ends_with("Ok(())")
        })
        .map(|e| e.time.as_secs_f64())
        .collect()
}

/// Over many seeds, each congestion event of the primary outside the
/// hold-down and with both capacities estimated is one trial of the swap
/// rule; with the alternate's available bandwidth unknown (it never
/// carried data) the paper's Steps 1 and 2 each draw against
/// p_s = C2 / (C1 + C2), so each trial swaps with p_s². The likelihood of
/// the trials is binomial whatever the stopping rule (a run stops
/// drawing at its first swap), so swaps / trials estimates p_s² with
/// standard deviation sqrt(p (1 - p) / trials): the test allows 3. The
/// runs also report the congestion events per station per second.
#[test]
fn aisle_swaps_off_a_congested_primary_with_probability_p_s_squared() {
    for (c1, c2) in [(2_000_000u64, 1_000_000u64), (1_000_000, 3_000_000)] {
        let p_s = c2 as f64 / (c1 + c2) as f64;
        let p = p_s * p_s;
        let (mut trials, mut swaps, mut refused) = (0u64, 0u64, 0u64);
        for seed in 1..=120 {
            let r = run(c1, c2, 20.0, "", seed);
            assert_eq!(r.summary.flows[0].policy, "aisle");
            let rate = r.summary.congestion_events_per_station_s.unwrap();
            let events = counter(&r, "congestion_events") as f64;
            assert!(
                rate > 0.0 && (rate * 19.5 - events).abs() < 0.1 * events,
                "seed {seed}: {rate} events/s, {events} events in about 19.5 s"
            );
            let s = counter(&r, "swaps");
            let t = counter(&r, "congestion_events")
                - counter(&r, "held_down")
                - counter(&r, "no_estimate");
            // Th = 60 s: at most one swap in a 20 s run, and none drawn
            // after it.
            assert!(s <= 1, "seed {seed}: {s} swaps");
            assert_eq!(swap_times(&r).len() as u64, s);
            trials += t;
            swaps += s;
            refused += counter(&r, "refused_fresh");
        }
        let measured = swaps as f64 / trials as f64;
        let sd = (p * (1.0 - p) / trials as f64).sqrt();
        println!(
            "C1 {c1} C2 {c2}: {swaps} swaps in {trials} trials: {measured:.3} (p = {p:.3}, sd {sd:.3}); refused {refused}"
        );
        assert!(
            (measured - p).abs() <= 3.0 * sd,
            "C1 {c1} C2 {c2}: {swaps} swaps in {trials} trials = {measured:.3}, p = {p:.3} (sd {sd:.3})"
        );
    }
}

/// With a short hold-down (Th = 3 s, and Td = 1 s so that the other
/// path's last bandwidth sample is soon stale) the policy swaps again and
/// again under a congesting bulk transfer, never twice within Th, and the
/// congestion events inside Th are counted as held down.
#[test]
fn aisle_respects_the_hold_down_between_swaps() {
    let mut several = 0;
    for seed in 1..=10 {
        let r = run(
            2_000_000,
            2_000_000,
            40.0,
            ", params = { hold_down_s = 3.0, freshness_s = 1.0 }",
            seed,
        );
        let t = swap_times(&r);
        assert_eq!(t.len() as u64, counter(&r, "swaps"));
        for w in t.windows(2) {
            assert!(w[1] - w[0] >= 3.0, "seed {seed}: swaps at {t:?}");
        }
        if t.len() >= 3 {
            several += 1;
            assert!(counter(&r, "held_down") > 0);
        }
    }
    assert!(several >= 5, "the hold-down was tested on repeated swaps");
}

#[test]
fn aisle_parameters_are_checked() {
    let text = base()
        .replace("DURATION", "1.0")
        .replace("C1", "1000000")
        .replace("C2", "1000000")
        .replace("PARAMS", ", params = { theta = -1.0 }");
    let e = scenario::parse(&text).unwrap_err().to_string();
    assert!(e.contains("flows[data].policy.params"), "{e}");
}
