//! The scenarios of `bench/ns3/README.md` on the crate's test harness, and
//! the ns-3 3.37 results recorded for them: shared by the test
//! `ns3_reference` and the example `ns3_sack`.

#![allow(dead_code)]

use std::time::Duration;

use crate::harness::{Harness, LinkConfig};
use msctp_tcp::{TcpConfig, Time};

#[derive(Debug)]
pub struct Outcome {
    pub goodput: f64,
    pub rtos: u64,
    pub fast_retransmits: u64,
    pub retransmitted: u64,
}

/// One bulk transfer over a chain of (rate bit/s, one-way delay ms, queue
/// packets) hops, random loss on the last hop's data direction.
pub fn run(hops: &[(u64, u64, usize)], loss: f64, secs: u64, sack: bool, seed: u64) -> Outcome {
    let links: Vec<LinkConfig> = hops
        .iter()
        .enumerate()
        .map(|(i, &(rate, delay_ms, queue))| {
            let mut l = LinkConfig::new(rate, Duration::from_millis(delay_ms), queue);
            if i + 1 == hops.len() {
                l.loss = loss;
            }
            l
        })
        .collect();
    let cfg = TcpConfig {
        sack,
        ..TcpConfig::ns3_compatible()
    };
    let mut h = Harness::chain(cfg, links, seed);
    h.keep_trace = false;
    // A greedy source: more than the path can carry in the run.
    let rate = hops.iter().map(|h| h.0).min().unwrap_or(1);
    h.to_send = vec![0x5a; (rate / 8 * secs) as usize + 1_000_000];
    h.run_until(Time::from_secs(secs));
    let s = h.client.stats();
    Outcome {
        goodput: h.received.len() as f64 * 8.0 / secs as f64,
        rtos: s.timeouts,
        fast_retransmits: s.fast_retransmits,
        retransmitted: s.segments_retransmitted,
    }
}

/// Mean ns-3 goodput of scenario `name` (SACK on or off) over its runs.
pub fn ns3_mean(name: &str, sack: bool) -> f64 {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../bench/ns3/results-3.37.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("bench/ns3/results-3.37.jsonl");
    let v: Vec<f64> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|j| j["name"] == name && j["sack"] == sack)
        .filter_map(|j| j["throughput_bps"].as_f64())
        .collect();
    assert!(!v.is_empty(), "no ns-3 result for {name}");
    v.iter().sum::<f64>() / v.len() as f64
}

pub fn scenario(name: &str) -> (Vec<(u64, u64, usize)>, f64, u64) {
    match name {
        "a" => (vec![(2_000_000, 25, 20)], 0.0, 60),
        "b" => (vec![(2_000_000, 100, 20)], 0.0, 60),
        "c" => (vec![(2_000_000, 25, 20)], 0.01, 60),
        "d" => (vec![(2_000_000, 100, 20)], 0.01, 60),
        _ => (vec![(10_000_000, 15, 100), (2_000_000, 1, 100)], 0.0, 600),
    }
}

pub fn ours_mean(name: &str, sack: bool, seeds: u64) -> f64 {
    let (hops, loss, secs) = scenario(name);
    let runs = if loss > 0.0 { seeds } else { 1 };
    (1..=runs)
        .map(|seed| run(&hops, loss, secs, sack, seed).goodput)
        .sum::<f64>()
        / runs as f64
}
