//! The scenarios of `bench/ns3/README.md` run through this crate's TCP on
//! the test harness's link model, compared with the ns-3 3.37 results
//! recorded in `bench/ns3/results-3.37.jsonl`.

mod harness;

use std::time::Duration;

use harness::{Harness, LinkConfig};
use msctp_tcp::{TcpConfig, Time};

struct Outcome {
    goodput: f64,
    rtos: u64,
    fast_retransmits: u64,
    retransmitted: u64,
}

fn run(hops: &[(u64, u64, usize)], loss: f64, secs: u64, sack: bool, seed: u64) -> Outcome {
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
    let cfg = TcpConfig { sack, ..TcpConfig::ns3_compatible() };
    let mut h = Harness::chain(cfg, links, seed);
    h.keep_trace = false;
    // A bulk source: more than the link can carry in the run.
    h.to_send = vec![0x5a; (secs * 2_000_000 / 8 * 2) as usize + (secs as usize) * 10_000_000 / 8];
    h.run_until(Time::from_secs(secs));
    let s = h.client.stats();
    Outcome {
        goodput: h.received.len() as f64 * 8.0 / secs as f64,
        rtos: s.timeouts,
        fast_retransmits: s.fast_retransmits,
        retransmitted: s.segments_retransmitted,
    }
}

#[test]
fn print_scenarios() {
    for sack in [false, true] {
        let a = run(&[(2_000_000, 25, 20)], 0.0, 60, sack, 1);
        let b = run(&[(2_000_000, 100, 20)], 0.0, 60, sack, 1);
        println!("sack={sack} a: {:.0} rto {} fr {} rtx {}", a.goodput, a.rtos, a.fast_retransmits, a.retransmitted);
        println!("sack={sack} b: {:.0} rto {} fr {} rtx {}", b.goodput, b.rtos, b.fast_retransmits, b.retransmitted);
        for (name, d) in [("c", 25), ("d", 100)] {
            let mut sum = 0.0;
            for seed in 1..=20 {
                let o = run(&[(2_000_000, d, 20)], 0.01, 60, sack, seed);
                sum += o.goodput;
            }
            println!("sack={sack} {name} mean {:.0}", sum / 20.0);
        }
        let e = run(&[(10_000_000, 15, 100), (2_000_000, 1, 100)], 0.0, 600, sack, 1);
        println!("sack={sack} e: {:.0} rto {} fr {} rtx {}", e.goodput, e.rtos, e.fast_retransmits, e.retransmitted);
    }
}
