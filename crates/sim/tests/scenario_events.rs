//! Scenario features used by the failover study (E5): a silent radio break
//! of a cell, a random start drawn from the run seed, and the failover
//! measures that follow a break.

mod common;

use msctp_sim::scenario::{self, run_scenario};

/// A stationary dual-homed mobile on two cells; the correspondent sends
/// CBR downlink; `net1` breaks silently at 10 s.
const HEAD: &str = r#"
name = "break test"
duration_s = 20.0
[output]
sample_ms = 5.0
"#;

/// The mobile and the flow.
const MOBILE: &str = r#"[[mobiles]]
name = "mn"
ifaces = [{ name = "if1", cells = ["net1"] }, { name = "if2", cells = ["net2"] }]
[mobiles.mobility]
kind = "stationary"
x_m = 0.0
y_m = 0.0
[[flows]]
name = "data"
mobile = "mn"
fixed = "cn"
start_s = 0.1
START_JITTER
traffic = { kind = "cbr", message_bytes = 152, rate_bps = 34200 }
policy = { kind = "none" }
[flows.sctp]
rto_min_ms = 20.0
path_max_retrans = 2
assoc_max_retrans = 100
sack_delay_ms = 0.0
[[events]]
at_s = 10.0
action = "break_cell"
cell = "net1"
"#;

fn base() -> String {
    format!("{HEAD}{}{}{MOBILE}", common::WIRED, common::WLAN_UMTS_CELLS)
}

fn run(jitter: &str, seed: u64) -> msctp_sim::measure::RunResult {
    let text = base().replace("START_JITTER", jitter);
    let s = scenario::parse(&text).expect("valid scenario");
    run_scenario(&s, seed).expect("run")
}

#[test]
fn a_silent_cell_break_moves_data_after_pmr_plus_one_timeouts() {
    let r = run("", 1);
    let f = &r.summary.flows[0];
    assert_eq!(f.failovers.len(), 1);
    let fo = &f.failovers[0];
    assert_eq!(
        fo.alternate_path,
        Some(1),
        "data moved to the second cell's path"
    );
    let rto = fo.rto_at_break_s.expect("RTO sampled before the break");
    let sender = fo.sender_failover_s.expect("the sender failed over");
    // PMR = 2: three timeouts, RTO (1 + 2 + 4); the first may come up to
    // one RTO early (the timer was running at the break).
    assert!(
        sender <= 7.0 * rto + 0.05 && sender >= 6.0 * rto - 0.01,
        "failover {sender} for RTO {rto}"
    );
    let new_data = fo
        .new_data_failover_s
        .expect("new data reached the alternate path");
    let first = fo
        .failover_time_s
        .expect("retransmissions reached the alternate path");
    assert!(
        first < new_data,
        "retransmissions go to the alternate path after the first timeout, before new data"
    );
    assert!(
        new_data >= sender,
        "new data arrives after the sender's failover"
    );
    // Nothing of net1 got through after the break: its link layer stayed
    // silent (no policy decision, no handover event before the failover).
    assert!(r.events.iter().any(|e| e.kind == "break-cell"));
    assert_eq!(f.policy_decisions, 0);
    // A radio break is a medium loss (the cell's error model loses
    // everything), not a mobility loss.
    assert!(
        f.lost_data_by_reason
            .get("LinkError")
            .is_some_and(|&n| n > 0)
    );
    assert_eq!(f.lost_data_mobility, 0, "{:?}", f.lost_data_by_reason);
}

#[test]
fn sctp_pf_moves_data_after_the_first_timeout_in_the_simulator() {
    // The same break with quick failover (RFC 7829, PFMR 0): the sender
    // moves new data at the first timeout, not after PMR + 1, the primary
    // is probed (heartbeats) and declared down only after PMR + 1 errors.
    let text = base().replace("START_JITTER", "").replace(
        "path_max_retrans = 2",
        "path_max_retrans = 2\npf_max_retrans = 0",
    );
    let s = scenario::parse(&text).expect("valid scenario");
    let r = run_scenario(&s, 1).expect("run");
    let fo = &r.summary.flows[0].failovers[0];
    let rto = fo.rto_at_break_s.expect("RTO sampled before the break");
    let sender = fo.sender_failover_s.expect("the sender failed over");
    assert!(
        sender <= rto + 0.05,
        "SCTP-PF: failover {sender} after one RTO {rto} (plain: 7 RTO)"
    );
    let new_data = fo.new_data_failover_s.expect("new data moved");
    assert!(new_data >= sender && new_data <= sender + 0.5);
    let kinds: Vec<&str> = r.events.iter().map(|e| e.kind.as_str()).collect();
    let pf = kinds
        .iter()
        .position(|k| *k == "path-potentially-failed")
        .expect("the primary became potentially failed");
    let down = kinds
        .iter()
        .position(|k| *k == "path-down")
        .expect("and later down");
    assert!(pf < down, "{kinds:?}");
    // Plain failover on the same run seed, for contrast.
    let plain = run("", 1);
    let p = plain.summary.flows[0].failovers[0]
        .sender_failover_s
        .unwrap();
    eprintln!("sender failover: SCTP-PF {sender:.3} s (RTO {rto:.3} s), plain {p:.3} s");
    assert!(sender * 3.0 < p, "SCTP-PF {sender} s against plain {p} s");
}

#[test]
fn losses_other_than_congestion_and_medium_count_as_mobility_losses() {
    // The access router's uplink is cut instead of the radio: the packets
    // sent towards it are lost to a link that is down.
    let text = base().replace("START_JITTER", "").replace(
        "action = \"break_cell\"\ncell = \"net1\"",
        "action = \"cut_link\"\nlink = \"core-ar1\"",
    );
    let s = scenario::parse(&text).expect("valid scenario");
    let r = run_scenario(&s, 1).expect("run");
    let f = &r.summary.flows[0];
    let down = f.lost_data_by_reason.get("LinkDown").copied().unwrap_or(0);
    assert!(down > 0, "{:?}", f.lost_data_by_reason);
    let congestion_or_medium: u64 = ["QueueOverflow", "LinkError"]
        .iter()
        .filter_map(|k| f.lost_data_by_reason.get(*k))
        .sum();
    assert_eq!(
        f.lost_data_mobility,
        f.lost_data_packets - congestion_or_medium
    );
    assert!(f.lost_data_mobility >= down);
}

#[test]
fn a_random_start_differs_between_seeds_and_repeats_for_one_seed() {
    let starts = |seed| {
        let r = run("start_jitter_s = 4.9", seed);
        r.summary.flows[0].failovers[0].rto_at_break_s.unwrap()
            + r.summary.flows[0].bytes_delivered as f64
    };
    assert_eq!(starts(3), starts(3), "same seed, same run");
    let distinct: std::collections::BTreeSet<u64> = (1..6).map(|s| starts(s).to_bits()).collect();
    assert!(
        distinct.len() > 1,
        "different seeds start at different times"
    );
}

#[test]
fn bad_event_references_name_the_key() {
    let text = base()
        .replace("START_JITTER", "")
        .replace("cell = \"net1\"", "cell = \"nowhere\"");
    let e = scenario::parse(&text)
        .and_then(|s| s.validate().map(|_| s))
        .unwrap_err();
    assert!(e.to_string().contains("events[0].cell"), "{e}");
    let text = base().replace("START_JITTER", "start_jitter_s = -1.0");
    let e = scenario::parse(&text)
        .and_then(|s| s.validate().map(|_| s))
        .unwrap_err();
    assert!(e.to_string().contains("start_jitter_s"), "{e}");
}

#[test]
fn an_unknown_capture_interface_lists_the_node_interfaces() {
    let text = base()
        .replace("START_JITTER", "")
        .replace("sample_ms = 5.0", "sample_ms = 5.0\npcap = [\"cn:eth0\"]");
    let s = scenario::parse(&text).expect("valid scenario");
    let e = run_scenario(&s, 1).unwrap_err().to_string();
    assert!(e.contains("output.pcap[0]"), "{e}");
    assert!(e.contains("\"cn-core\""), "{e}");
}
