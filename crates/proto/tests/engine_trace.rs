//! The event-driven path trace (`Association::take_path_trace`): every
//! value the congestion window took, in the engine's order, with the
//! RFC 9260 section 7.2 rule that set it, and nothing changed by turning
//! it on.
//!
//! A sends 2 MB to B over a lossy 4 Mbit/s link with a short queue: slow
//! start, fast retransmits, timeouts. After every step of the network the
//! test reads each path's state from the engine (`path_stats`) and drains
//! the trace; the values read must appear in the trace in the same order,
//! each as the last record of its step, and the trace's causes must count
//! the engine's own fast retransmissions and timeouts.

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::*;
use msctp_proto::association::trace::{PathCause, PathRecord};
use msctp_proto::congestion::WindowCause;
use msctp_proto::{AssocId, AssociationConfig, EndpointConfig, Time};

const TOTAL: usize = 2_000_400; // 1667 messages
const MSG: usize = 1200;

fn config(port: u16) -> EndpointConfig {
    let mut c = EndpointConfig::new(port);
    c.association = AssociationConfig {
        rto_min: Duration::from_millis(100),
        rto_initial: Duration::from_millis(500),
        ..Default::default()
    };
    c
}

/// Connected over a clean link, then the lossy one for the transfer.
fn net() -> (Net, AssocId, AssocId) {
    let (a1, b1, b2) = (ip("10.0.0.1"), ip("10.0.1.1"), ip("10.0.2.1"));
    let mut n = Net::new(
        config(5000),
        &[a1],
        config(5001),
        &[b1, b2],
        Link::new(Duration::from_millis(20)),
        7,
    );
    let (a, b) = n.connect(Duration::from_secs(5));
    let link = Link::new(Duration::from_millis(20))
        .rate(4_000_000, 20)
        .loss(0.01);
    n.set_path(a1, b1, link.clone());
    n.set_path(a1, b2, link);
    (n, a, b)
}

/// (cwnd, ssthresh) of the sender's paths as read after each step, and the
/// trace drained at each step (when `trace`); the packets seen on the wire.
struct Run {
    steps: Vec<Vec<(std::net::IpAddr, u32, u32)>>,
    trace: Vec<Vec<PathRecord>>,
    wire: Vec<Bytes>,
    counters: (u64, u64),
}

fn run(trace: bool) -> Run {
    let (mut n, a, b) = net();
    if trace {
        n.a.association_mut(a).unwrap().set_path_trace(true);
    }
    let payload = Bytes::from(vec![0x5au8; MSG]);
    let (mut sent, mut got) = (0usize, 0usize);
    let mut steps = Vec::new();
    let mut traced = Vec::new();
    let end = n.now + Duration::from_secs(120);
    let mut counters = (0, 0);
    // Both paths are cut for 1.5 s in the middle: retransmission timeouts.
    let mut cut: Option<Time> = None;
    n.tick = Some(Duration::from_millis(50));
    n.run_with(end, &mut |n| {
        let now = n.now;
        let (a1, b1, b2) = (ip("10.0.0.1"), ip("10.0.1.1"), ip("10.0.2.1"));
        if cut.is_none() && sent >= TOTAL / 2 {
            cut = Some(now);
            n.set_up(a1, b1, false);
            n.set_up(a1, b2, false);
        } else if cut.is_some_and(|t| now >= t + Duration::from_millis(1500)) {
            n.set_up(a1, b1, true);
            n.set_up(a1, b2, true);
        }
        let Some(x) = n.a.association_mut(a) else {
            return;
        };
        let mut out = Vec::new();
        x.take_path_trace(now, &mut out);
        traced.push(out);
        steps.push(
            x.paths()
                .iter()
                .map(|p| (p.remote, p.cwnd, p.ssthresh))
                .collect(),
        );
        if got >= TOTAL {
            return;
        }
        while sent < TOTAL && x.send_capacity() >= MSG {
            x.send(0, 0, payload.clone(), false).unwrap();
            sent += MSG;
        }
        let y = n.b.association_mut(b).unwrap();
        while let Some(m) = y.recv() {
            got += m.data.len();
        }
        if got >= TOTAL {
            let x = n.a.association_mut(a).unwrap();
            counters = x.paths().iter().fold((0, 0), |(f, t), p| {
                (
                    f + p.counters.fast_retransmissions,
                    t + p.counters.t3_expirations,
                )
            });
            x.abort(None);
        }
    });
    assert!(got >= TOTAL, "the transfer completes");
    Run {
        steps,
        trace: traced,
        wire: n.seen.iter().map(|s| s.bytes.clone()).collect(),
        counters,
    }
}

#[test]
fn path_trace_has_every_window_value_in_the_engines_order() {
    let on = run(true);
    let off = run(false);
    // Tracing changes nothing the engine does.
    assert_eq!(on.wire, off.wire, "same packets with the trace on and off");
    assert_eq!(on.steps, off.steps, "same states after every step");

    let mut records = 0;
    let mut causes = std::collections::BTreeMap::<&str, usize>::new();
    // Per path: the window values of the trace, and of the steps.
    let mut traced: Vec<(std::net::IpAddr, Vec<(u32, u32)>)> = Vec::new();
    let mut read: Vec<(std::net::IpAddr, Vec<(u32, u32)>)> = Vec::new();
    let push = |v: &mut Vec<(std::net::IpAddr, Vec<(u32, u32)>)>, a, w| {
        let i = match v.iter().position(|(x, _)| *x == a) {
            Some(i) => i,
            None => {
                v.push((a, Vec::new()));
                v.len() - 1
            }
        };
        let seq = &mut v[i].1;
        if seq.last() != Some(&w) {
            seq.push(w);
        }
    };
    for (step, (recs, state)) in on.trace.iter().zip(&on.steps).enumerate() {
        for r in recs {
            records += 1;
            *causes.entry(r.cause.label()).or_default() += 1;
            push(&mut traced, r.remote, (r.cwnd, r.ssthresh));
        }
        for &(remote, cwnd, ssthresh) in state {
            // The last record of the path up to this step is what the
            // engine holds now.
            let last = traced.iter().find(|(a, _)| *a == remote);
            assert_eq!(
                last.and_then(|(_, s)| s.last()),
                Some(&(cwnd, ssthresh)),
                "step {step}: the trace's last value of {remote} is the engine's"
            );
            push(&mut read, remote, (cwnd, ssthresh));
        }
    }
    // Every value read between steps is in the trace, in the same order;
    // the trace has more (changes within one step).
    let mut extra = 0;
    for (remote, seen) in &read {
        let t = &traced.iter().find(|(a, _)| a == remote).unwrap().1;
        let mut it = t.iter();
        for v in seen {
            assert!(
                it.any(|x| x == v),
                "{remote}: value {v:?} read from the engine is missing from the trace"
            );
        }
        extra += t.len() - seen.len();
    }
    let count = |c: WindowCause| causes.get(PathCause::Window(c).label()).copied();
    let (fast, timeouts) = on.counters;
    println!(
        "{records} records, causes {causes:?}; {extra} window values only the trace saw; \
         engine: {fast} fast retransmissions, {timeouts} T3 expirations"
    );
    assert!(fast > 0 && timeouts > 0, "the link provokes both");
    // Each fast retransmit enters fast recovery and halves the window
    // (section 7.2.4): one record each.
    assert_eq!(count(WindowCause::FastRetransmit), Some(fast as usize));
    // A timeout sets cwnd to 1 MTU (section 7.2.3); back-to-back timeouts
    // of a window already at 1 MTU and ssthresh at 4 MTU change nothing.
    assert!(count(WindowCause::Timeout).is_some_and(|t| t as u64 <= timeouts && t > 0));
    assert!(count(WindowCause::Ack).is_some_and(|a| a > 100));
    // Records are stamped with the time of the step that drained them.
    let times: Vec<Time> = on.trace.iter().flatten().map(|r| r.time).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
}
