//! The TCP agent on simulator links against ns-3 3.37 on the single-path
//! scenarios of `bench/ns3/README.md` (ns-3 numbers recorded in
//! `bench/ns3/results-3.37.jsonl`): goodput within 10%, timeouts and fast
//! retransmits of the same order of magnitude.
//!
//! The table of `bench/ns3/COMPARISON.md` and the speed comparison are
//! written by the example `ns3_compare` (run by `bench/ns3/compare.sh`).

use std::path::PathBuf;
use std::time::Duration;

use msctp_sim::models::tcp::reference::{
    Means, Ns3Record, ns3_means, ns3_scenario, read_ns3_results, run_bulk, sim_means,
};

fn recorded() -> Vec<Ns3Record> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/ns3/results-3.37.jsonl");
    read_ns3_results(&p).expect("recorded ns-3 results")
}

/// Same order of magnitude: within a factor of 3, or both small.
fn same_order(a: f64, b: f64) -> bool {
    (a <= 3.0 && b <= 3.0) || (a <= 3.0 * b && b <= 3.0 * a)
}

fn check(name: &str, runs: u64) -> (Means, Means) {
    let ns3 = recorded();
    let n = ns3_means(&ns3, name, false);
    assert!(n.runs > 0, "no ns-3 record for {name}");
    let m = sim_means(name, false, runs).unwrap();
    let ratio = m.goodput_bps / n.goodput_bps;
    println!(
        "{name}: sim {:.4} Mbit/s ({} runs), ns-3 {:.4} ({} runs), ratio {ratio:.3}; RTOs {:.2}/{:.2}, fast retransmits {:.1}/{:.1}",
        m.goodput_bps / 1e6,
        m.runs,
        n.goodput_bps / 1e6,
        n.runs,
        m.rtos,
        n.rtos,
        m.fast_retransmits,
        n.fast_retransmits
    );
    assert!(
        (0.9..=1.1).contains(&ratio),
        "{name}: goodput ratio {ratio:.3} outside 10%"
    );
    assert!(
        same_order(m.rtos, n.rtos),
        "{name}: RTOs {} vs {}",
        m.rtos,
        n.rtos
    );
    assert!(
        same_order(m.fast_retransmits, n.fast_retransmits),
        "{name}: fast retransmits {} vs {}",
        m.fast_retransmits,
        n.fast_retransmits
    );
    (m, n)
}

#[test]
fn a_two_megabit_50ms_rtt_queue_20() {
    let (m, n) = check("a", 1);
    // Same losses in the same drop-tail queue.
    assert!(same_order(m.queue_drops, n.queue_drops));
}

#[test]
fn b_two_megabit_200ms_rtt_queue_20() {
    check("b", 1);
}

#[test]
fn c_one_percent_loss_50ms() {
    let (m, _) = check("c", 20);
    assert!(m.error_drops > 0.0);
}

#[test]
fn d_one_percent_loss_200ms() {
    check("d", 20);
}

#[test]
fn framing_bytes_count_in_serialisation() {
    // One data segment of 1448 bytes at 2 Mbit/s: 1488 IP bytes + 2 PPP
    // bytes = 5.96 ms on the wire; the first data segments of scenario (a)
    // cannot go faster than that.
    let mut s = ns3_scenario("a", false, 1).unwrap();
    s.duration = Duration::from_secs(2);
    let o = run_bulk(&s).unwrap();
    let per_packet: f64 = 1490.0 * 8.0 / 2e6;
    let max_segments = (2.0 / per_packet).floor();
    assert!(
        (o.rx_bytes as f64 / 1448.0) <= max_segments,
        "{} bytes in 2 s",
        o.rx_bytes
    );
}
