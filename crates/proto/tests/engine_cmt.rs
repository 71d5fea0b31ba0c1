//! Concurrent multipath transfer (CMT, docs/MODELS.md section 3) between two
//! engines: aggregation over two paths, fastest path first against
//! round-robin, no spurious fast retransmission from reordering across
//! paths, and a soft handover of a dual-homed receiver.
//!
//! Run with `--nocapture` for the figures each test measures.

mod common;

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use common::*;
use msctp_proto::wire::chunk::chunk_type;
use msctp_proto::{
    AssocId, AssociationConfig, CmtConfig, CmtScheduler, EndpointConfig, Event, FpfInput, Time,
};

const MSG: usize = 16 * 1024;

fn config(port: u16, receive_window: u32) -> EndpointConfig {
    let mut c = EndpointConfig::new(port);
    c.association = AssociationConfig {
        rto_min: Duration::from_millis(200),
        rto_initial: Duration::from_millis(500),
        receive_window,
        send_buffer: 1 << 20,
        ..Default::default()
    };
    c
}

/// One direction of a path: one-way delay, rate and a drop-tail queue.
#[derive(Clone, Copy)]
struct PathSpec {
    delay_ms: u64,
    rate_bps: u64,
    queue: usize,
}

impl PathSpec {
    fn link(self) -> Link {
        Link::new(Duration::from_millis(self.delay_ms)).rate(self.rate_bps, self.queue)
    }
}

const A1: &str = "10.1.0.1";
const A2: &str = "10.2.0.1";
const B1: &str = "10.1.0.2";
const B2: &str = "10.2.0.2";

/// Two dual-homed hosts joined by two disjoint paths, A1-B1 and A2-B2
/// (case D of docs/MODELS.md section 4); a packet across (A1 to B2) is lost. Each
/// path's sources are fixed so that its packets take it.
fn two_paths(
    p1: PathSpec,
    p2: PathSpec,
    receive_window: u32,
    seed: u64,
) -> (Net, AssocId, AssocId) {
    two_paths_with(p1, p2, receive_window, seed, false)
}

/// [`two_paths`], with the path estimators (packet-pair capacities, the
/// input of fastest path first) on or off.
fn two_paths_with(
    p1: PathSpec,
    p2: PathSpec,
    receive_window: u32,
    seed: u64,
    estimators: bool,
) -> (Net, AssocId, AssocId) {
    let (a1, a2, b1, b2) = (ip(A1), ip(A2), ip(B1), ip(B2));
    let mut down = Link::new(Duration::from_millis(1));
    down.up = false;
    let cfg = |port| {
        let mut c = config(port, receive_window);
        c.association.estimators.enabled = estimators;
        c
    };
    let mut n = Net::new(cfg(5000), &[a1, a2], cfg(6000), &[b1, b2], down, seed);
    n.record = false;
    n.set_path(a1, b1, p1.link());
    n.set_path(a2, b2, p2.link());
    let (a, b) = n.connect(Duration::from_secs(5));
    let x = n.a.association_mut(a).unwrap();
    x.set_path_source(b1, Some(a1)).unwrap();
    x.set_path_source(b2, Some(a2)).unwrap();
    let y = n.b.association_mut(b).unwrap();
    y.set_path_source(a1, Some(b1)).unwrap();
    y.set_path_source(a2, Some(b2)).unwrap();
    // Both peer addresses confirmed (heartbeats over the right paths; the
    // first went across and was lost).
    n.run_for(Duration::from_secs(4));
    for addr in [b1, b2] {
        let p = n.a.association(a).unwrap().path_stats(addr).unwrap();
        assert!(p.confirmed, "path to {addr} not confirmed");
    }
    (n, a, b)
}

/// What a bulk transfer showed.
#[derive(Debug)]
struct Run {
    bytes: usize,
    /// Seconds from the first message handed over to the last delivered.
    seconds: f64,
    /// Application goodput, bit/s.
    goodput: f64,
    /// Longest wait between two deliveries at the receiver.
    longest_gap: Duration,
    sender: msctp_proto::association::AssociationStats,
    receiver: msctp_proto::association::AssociationStats,
    /// Payload bytes acknowledged per peer address of the sender.
    per_path: Vec<(IpAddr, u64)>,
    /// Time the receive window kept the sender waiting.
    rwnd_blocked: Duration,
    /// When the receiver got data (each step that delivered some), and
    /// how many bytes it had then.
    deliveries: Vec<(Time, usize)>,
}

impl Run {
    /// The longest wait between deliveries that ended within [from, to].
    fn longest_gap_within(&self, from: Time, to: Time) -> Duration {
        self.deliveries
            .windows(2)
            .filter(|w| w[1].0 >= from && w[1].0 <= to)
            .map(|w| w[1].0.saturating_since(w[0].0))
            .max()
            .unwrap_or(Duration::ZERO)
    }

    /// Goodput (bit/s) between two instants.
    fn goodput_within(&self, from: Time, to: Time) -> f64 {
        let at = |t: Time| {
            self.deliveries
                .iter()
                .take_while(|d| d.0 <= t)
                .last()
                .map_or(0, |d| d.1)
        };
        (at(to) - at(from)) as f64 * 8.0 / to.saturating_since(from).as_secs_f64()
    }
}

/// Sends `total` bytes of the test pattern from A to B; B reads at once.
/// `during` is called after every step (handover scripts).
fn transfer(
    n: &mut Net,
    a: AssocId,
    b: AssocId,
    total: usize,
    limit: Duration,
    during: &mut dyn FnMut(&mut Net),
) -> Run {
    let mut sent = 0usize;
    let mut got: Vec<u8> = Vec::with_capacity(total);
    let start = n.now;
    let mut last_delivery: Option<Time> = None;
    let mut deliveries = Vec::new();
    let mut longest_gap = Duration::ZERO;
    let mut done: Option<(Time, Run)> = None;
    let end = n.now + limit;
    n.run_with(end, &mut |n| {
        if done.is_some() {
            return;
        }
        if let Some(x) = n.a.association_mut(a) {
            while sent < total && x.send_capacity() >= MSG {
                let len = MSG.min(total - sent);
                x.send(0, 0, Bytes::from(pattern(sent, len)), false)
                    .unwrap();
                sent += len;
            }
        }
        if let Some(y) = n.b.association_mut(b) {
            let before = got.len();
            while let Some(m) = y.recv() {
                got.extend_from_slice(&m.data);
            }
            if got.len() > before {
                if let Some(t) = last_delivery {
                    longest_gap = longest_gap.max(n.now.saturating_since(t));
                }
                last_delivery = Some(n.now);
                deliveries.push((n.now, got.len()));
            }
        }
        during(n);
        if got.len() == total {
            let now = n.now;
            let x = n.a.association(a).unwrap();
            let seconds = now.saturating_since(start).as_secs_f64();
            let run = Run {
                bytes: total,
                seconds,
                goodput: total as f64 * 8.0 / seconds,
                longest_gap,
                sender: x.stats(),
                receiver: n.b.association(b).unwrap().stats(),
                per_path: x
                    .paths()
                    .iter()
                    .map(|p| (p.remote, p.counters.bytes_acked))
                    .collect(),
                rwnd_blocked: x.rwnd_blocked(now).0,
                deliveries: std::mem::take(&mut deliveries),
            };
            done = Some((now, run));
            // Nothing left to do: stop the clock.
            n.a.association_mut(a).unwrap().abort(None);
        }
    });
    let (_, run) = done.expect("the transfer did not finish in time");
    assert!(got == pattern(0, total), "data corrupted");
    run
}

fn show(name: &str, r: &Run) {
    println!(
        "{name}: {:.2} MB in {:.2} s, {:.2} Mbit/s, longest gap {:.1} ms, \
         fast rtx {} (spurious {}), rtx {} (spurious {}), T3 {}, \
         rwnd blocked {:.2} s, per path {:?}",
        r.bytes as f64 / 1e6,
        r.seconds,
        r.goodput / 1e6,
        r.longest_gap.as_secs_f64() * 1e3,
        r.sender.fast_retransmissions,
        r.sender.spurious_fast_retransmissions,
        r.sender.retransmitted_chunks,
        r.sender.spurious_retransmissions,
        r.sender.t3_expirations,
        r.rwnd_blocked.as_secs_f64(),
        r.per_path,
    );
}

fn cmt_on(n: &mut Net, a: AssocId, b: AssocId, cmt: CmtConfig) {
    n.a.association_mut(a).unwrap().set_cmt(cmt);
    n.b.association_mut(b).unwrap().set_cmt(cmt);
}

const EQUAL: PathSpec = PathSpec {
    delay_ms: 20,
    rate_bps: 10_000_000,
    queue: 50,
};

fn aggregate(scheduler: CmtScheduler) -> Run {
    let fpf = scheduler == CmtScheduler::FastestPathFirst;
    let (mut n, a, b) = two_paths_with(EQUAL, EQUAL, 1 << 20, 1, fpf);
    cmt_on(&mut n, a, b, CmtConfig::on(scheduler));
    transfer(&mut n, a, b, 10 << 20, Duration::from_secs(60), &mut |_| {})
}

#[test]
fn cmt_round_robin_aggregates_two_equal_paths() {
    let r = aggregate(CmtScheduler::RoundRobin);
    show("CMT round-robin, 2 x 10 Mbit/s", &r);
    assert!(
        r.goodput >= 0.9 * 20e6,
        "{:.2} Mbit/s is below 90% of 20",
        r.goodput / 1e6
    );
    for (addr, bytes) in &r.per_path {
        assert!(*bytes > 4 << 20, "path {addr} carried only {bytes} bytes");
    }
}

#[test]
fn cmt_fastest_path_first_aggregates_two_equal_paths() {
    let r = aggregate(CmtScheduler::FastestPathFirst);
    show("CMT fastest path first, 2 x 10 Mbit/s", &r);
    assert!(
        r.goodput >= 0.9 * 20e6,
        "{:.2} Mbit/s is below 90% of 20",
        r.goodput / 1e6
    );
}

#[test]
fn cmt_single_path_reference() {
    let (mut n, a, b) = two_paths(EQUAL, EQUAL, 1 << 20, 1);
    let r = transfer(&mut n, a, b, 10 << 20, Duration::from_secs(60), &mut |_| {});
    show("single path, 10 Mbit/s", &r);
    assert!(r.goodput < 10e6);
}

/// A fast path (10 Mbit/s, 10 ms) and a slow one (2 Mbit/s, `slow_delay`
/// ms); 4 MB with the given receive window, round-robin against fastest
/// path first.
fn unequal(slow_delay_ms: u64, receive_window: u32) -> (Run, Run) {
    let fast = PathSpec {
        delay_ms: 10,
        rate_bps: 10_000_000,
        queue: 50,
    };
    let slow = PathSpec {
        delay_ms: slow_delay_ms,
        rate_bps: 2_000_000,
        queue: 50,
    };
    // Fastest path first reads the paths' packet-pair capacities.
    let run = |scheduler| {
        let (mut n, a, b) = two_paths_with(fast, slow, receive_window, 3, true);
        cmt_on(&mut n, a, b, CmtConfig::on(scheduler));
        transfer(&mut n, a, b, 4 << 20, Duration::from_secs(120), &mut |_| {})
    };
    (
        run(CmtScheduler::RoundRobin),
        run(CmtScheduler::FastestPathFirst),
    )
}

/// Paths of different rate: round-robin gives the slow path as many
/// packets as its window takes, and the receiver holds the fast path's
/// data behind them until the 64 kB window is full (receive-buffer
/// blocking); fastest path first gives the slow path only what arrives
/// no later than on the fast one.
#[test]
fn fastest_path_first_beats_round_robin_on_paths_of_different_rate() {
    let (rr, fpf) = unequal(10, 64 * 1024);
    show("round-robin, 10 + 2 Mbit/s, 64 kB window", &rr);
    show("fastest path first, 10 + 2 Mbit/s, 64 kB window", &fpf);
    assert!(
        fpf.goodput > 1.5 * rr.goodput,
        "fastest path first {:.2} Mbit/s, round-robin {:.2}",
        fpf.goodput / 1e6,
        rr.goodput / 1e6
    );
    assert!(
        rr.rwnd_blocked > 2 * fpf.rwnd_blocked,
        "round-robin blocked {:?}, fastest path first {:?}",
        rr.rwnd_blocked,
        fpf.rwnd_blocked
    );
    // Aggregation: more than the fast path alone could carry.
    assert!(fpf.goodput > 10e6, "{:.2} Mbit/s", fpf.goodput / 1e6);
}

/// Paths of different rate and delay (2 Mbit/s with 100 ms against
/// 10 Mbit/s with 10 ms), a 256 kB window.
#[test]
fn fastest_path_first_beats_round_robin_on_paths_of_different_rate_and_delay() {
    let (rr, fpf) = unequal(100, 256 * 1024);
    show(
        "round-robin, 10 + 2 Mbit/s, 10 and 100 ms, 256 kB window",
        &rr,
    );
    show("fastest path first, same", &fpf);
    assert!(
        fpf.goodput > 1.2 * rr.goodput,
        "fastest path first {:.2} Mbit/s, round-robin {:.2}",
        fpf.goodput / 1e6,
        rr.goodput / 1e6
    );
    assert!(rr.rwnd_blocked > fpf.rwnd_blocked);
}

/// Two paths of equal rate and different delay (10 and 60 ms), queues
/// longer than the 256 kB receive window: nothing is lost, so every fast
/// retransmission would be spurious; the data of the short path overtakes
/// the long path's all the time. Returns the run and the DATA packets the
/// network dropped.
fn reordering(cmt: CmtConfig) -> (Run, usize) {
    let p = |delay_ms| PathSpec {
        delay_ms,
        rate_bps: 10_000_000,
        queue: 1000,
    };
    let fpf = cmt.scheduler == CmtScheduler::FastestPathFirst;
    let (mut n, a, b) = two_paths_with(p(10), p(60), 256 * 1024, 5, fpf);
    n.record = true;
    cmt_on(&mut n, a, b, cmt);
    let r = transfer(&mut n, a, b, 5 << 20, Duration::from_secs(120), &mut |_| {});
    let dropped = n
        .seen
        .iter()
        .filter(|s| s.dropped && s.chunks.contains(&chunk_type::DATA))
        .count();
    (r, dropped)
}

#[test]
fn cmt_reordering_across_paths_causes_no_spurious_fast_retransmission() {
    for scheduler in [CmtScheduler::RoundRobin, CmtScheduler::FastestPathFirst] {
        let (r, dropped) = reordering(CmtConfig::on(scheduler));
        show(&format!("{scheduler:?}, 10 and 60 ms"), &r);
        assert_eq!(dropped, 0, "the network lost nothing");
        assert_eq!(r.sender.spurious_fast_retransmissions, 0);
        assert_eq!(r.sender.fast_retransmissions, 0);
        assert_eq!(r.sender.retransmitted_chunks, 0);
        assert_eq!(r.receiver.duplicate_tsns_received, 0);
        for (addr, bytes) in &r.per_path {
            assert!(*bytes > 1 << 20, "path {addr} carried only {bytes} bytes");
        }
    }
    // The same reordering without split fast retransmit: every such
    // retransmission is counted, as the receiver's duplicates confirm.
    let no_sfr = CmtConfig {
        split_fast_retransmit: false,
        ..CmtConfig::on(CmtScheduler::RoundRobin)
    };
    let (r, dropped) = reordering(no_sfr);
    show("round-robin without SFR", &r);
    assert_eq!(dropped, 0);
    assert!(r.sender.spurious_fast_retransmissions > 10);
    assert!(r.receiver.duplicate_tsns_received >= r.sender.spurious_retransmissions);
}

/// Soft handover with CMT (case C of docs/MODELS.md section 4: a dual-homed mobile
/// receiving from a single-homed correspondent). The mobile (B) starts on
/// network 1 (B1), enters network 2 3 s into the transfer and adds B2
/// (ADD-IP); in the overlap the correspondent sends over both; at 6 s the
/// mobile leaves network 1: it deletes B1 and, once the peer acknowledged,
/// the link fades half a second later.
#[test]
fn cmt_soft_handover_uses_both_networks_and_leaving_one_loses_nothing() {
    // Fastest path first on cwnd / SRTT, the rule this test was written
    // for.
    cmt_soft_handover(CmtConfig {
        fpf_input: FpfInput::CwndSrtt,
        ..CmtConfig::on(CmtScheduler::FastestPathFirst)
    });
}

/// The same under round-robin, which keeps sending over network 1 up to
/// the deletion: the mobile's SACKs sent from B1 just before the
/// correspondent processed the deletion arrive after it. They belong to
/// the association still (`PeerIndex::departed`); looked up by address
/// alone they were out of the blue, the correspondent answered with an
/// ABORT, and the mobile, which still had B1, accepted it: the association
/// ended some 25 ms after the deletion.
#[test]
fn cmt_soft_handover_under_round_robin_survives_sacks_from_the_deleted_address() {
    cmt_soft_handover(CmtConfig::on(CmtScheduler::RoundRobin));
}

fn cmt_soft_handover(cmt: CmtConfig) {
    let (a1, b1, b2) = (ip("10.9.0.1"), ip(B1), ip(B2));
    let mut n = Net::new(
        config(5000, 128 * 1024),
        &[a1],
        config(6000, 128 * 1024),
        &[b1, b2],
        Link::new(Duration::from_millis(10)),
        7,
    );
    n.b.set_local_addresses(&[b1]);
    n.record = true;
    let net1 = PathSpec {
        delay_ms: 20,
        rate_bps: 5_000_000,
        queue: 1000,
    };
    let net2 = PathSpec {
        delay_ms: 10,
        rate_bps: 5_000_000,
        queue: 1000,
    };
    n.set_path(a1, b1, net1.link());
    n.set_path(a1, b2, net2.link());
    n.tick = Some(Duration::from_millis(1));
    let (a, b) = n.connect(Duration::from_secs(2));
    cmt_on(&mut n, a, b, cmt);
    let t0 = n.now;
    let at = |s: u64| t0 + Duration::from_secs(s);
    let mut stage = 0;
    let mut marks: Vec<(&str, Time)> = Vec::new();
    let mut acked_at_delete = Vec::new();
    let mut cut_at = None;
    let r = transfer(&mut n, a, b, 8 << 20, Duration::from_secs(60), &mut |n| {
        let now = n.now;
        match stage {
            0 if now >= at(3) => {
                n.b.association_mut(b)
                    .unwrap()
                    .add_local_address(b2)
                    .unwrap();
                marks.push(("add B2", now));
                stage = 1;
            }
            1 if n
                .a
                .association(a)
                .is_some_and(|x| x.path_stats(b2).is_some_and(|p| p.confirmed)) =>
            {
                marks.push(("B2 usable at the correspondent", now));
                stage = 2;
            }
            2 if now >= at(6) => {
                let x = n.a.association(a).unwrap();
                acked_at_delete = x
                    .paths()
                    .iter()
                    .map(|p| (p.remote, p.counters.bytes_acked))
                    .collect();
                n.b.association_mut(b)
                    .unwrap()
                    .remove_local_address(b1)
                    .unwrap();
                marks.push(("delete B1", now));
                stage = 3;
            }
            3 if n
                .events(Side::B)
                .iter()
                .any(|e| e.2 == Event::LocalAddressRemoved { addr: b1 }) =>
            {
                marks.push(("deletion acknowledged", now));
                cut_at = Some(now + Duration::from_millis(500));
                stage = 4;
            }
            4 if cut_at.is_some_and(|t| now >= t) => {
                n.set_up(a1, b1, false);
                marks.push(("network 1 gone", now));
                stage = 5;
            }
            _ => {}
        }
    });
    show("CMT soft handover", &r);
    for (what, t) in &marks {
        println!("  {what} at {:.3} s", t.as_secs_f64());
    }
    assert_eq!(stage, 5, "the handover script ran to its end: {marks:?}");
    let t = |what: &str| marks.iter().find(|m| m.0 == what).unwrap().1;
    // In the overlap both networks carried data: each path had more than
    // a megabyte acknowledged by the time B1 was deleted.
    println!("  acknowledged per path at the deletion: {acked_at_delete:?}");
    for addr in [b1, b2] {
        let bytes = acked_at_delete
            .iter()
            .find(|p| p.0 == addr)
            .map_or(0, |p| p.1);
        assert!(bytes > 1 << 20, "{addr}: {bytes} bytes");
    }
    // In the overlap the goodput is that of both networks together, not
    // of one (5 Mbit/s each).
    let overlap = r.goodput_within(
        t("B2 usable at the correspondent") + Duration::from_secs(1),
        t("delete B1"),
    );
    let alone = r.goodput_within(at(1), t("add B2"));
    println!(
        "  goodput on network 1 alone {:.2} Mbit/s, in the overlap {:.2} Mbit/s",
        alone / 1e6,
        overlap / 1e6
    );
    assert!(overlap > 1.6 * alone, "the overlap did not aggregate");
    // Nothing was lost: no DATA dropped anywhere (the data in flight to
    // B1 when it was deleted went again over B2: duplicates, no gap).
    let dropped = n
        .seen
        .iter()
        .filter(|s| s.dropped && s.chunks.contains(&chunk_type::DATA))
        .count();
    assert_eq!(dropped, 0, "DATA lost");
    // No delivery gap: across the whole handover (from entering network 2
    // to the end) the receiver never waited longer than it did on network
    // 1 alone before, plus one packet time.
    let before = r.longest_gap_within(at(1), t("add B2"));
    let during = r.longest_gap_within(t("add B2"), Time::from_secs(3600));
    println!(
        "  longest delivery gap: before {:.1} ms, during and after {:.1} ms",
        before.as_secs_f64() * 1e3,
        during.as_secs_f64() * 1e3
    );
    assert!(
        during <= before + Duration::from_millis(5),
        "the handover made the receiver wait {during:?} (before: {before:?})"
    );
}
