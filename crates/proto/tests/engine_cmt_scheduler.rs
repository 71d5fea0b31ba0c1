//! Fastest path first against round-robin (Budzisz et al., section
//! 4.3.2.2; docs/MODELS.md section 3) between two engines over two
//! disjoint paths: the receiver's reordering over equal paths, the
//! preference for the fast path over unequal ones, and what the paper's
//! reception time R_i = (O_i + P) / C_i does with a small receive window.
//!
//! Topology (case D of docs/MODELS.md section 4): A sends, B receives.
//!
//! ```text
//!   A1 10.1.0.1 ---- path 1 (a WLAN: 11 Mbit/s, 15 ms, 50 packets) ---- B1 10.1.0.2
//!   A2 10.2.0.1 ---- path 2 (the same, or UMTS: 384 kbit/s, 80 ms) ---- B2 10.2.0.2
//! ```
//!
//! Run with `--nocapture` for the figures each test measures.

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::*;
use msctp_proto::{
    AssocId, AssociationConfig, CmtConfig, CmtScheduler, EndpointConfig, EstimatorConfig, FpfInput,
};

/// E5's and E9's message: 1424 bytes in a 1452-byte packet.
const MSG: usize = 1424;

#[derive(Clone, Copy)]
struct PathSpec {
    delay_ms: u64,
    rate_bps: u64,
    queue: usize,
}

const WLAN: PathSpec = PathSpec {
    delay_ms: 15,
    rate_bps: 11_000_000,
    queue: 50,
};
const UMTS: PathSpec = PathSpec {
    delay_ms: 80,
    rate_bps: 384_000,
    queue: 50,
};
const GERAN: PathSpec = PathSpec {
    delay_ms: 80,
    rate_bps: 80_000,
    queue: 50,
};

/// E5's SCTP setup (RTO.Min 20 ms, no SACK delay), the given receive
/// window, the path estimators (packet-pair capacity from HEARTBEAT
/// trains) on or off.
fn config(port: u16, receive_window: u32, estimators: bool) -> EndpointConfig {
    let mut c = EndpointConfig::new(port);
    c.association = AssociationConfig {
        rto_min: Duration::from_millis(20),
        rto_initial: Duration::from_millis(1000),
        sack_delay: None,
        receive_window,
        send_buffer: 1 << 20,
        path_mtu: 1452,
        ..Default::default()
    };
    if estimators {
        c.association.estimators = EstimatorConfig::on();
    }
    c
}

/// The two paths, connected, both confirmed; each path's packets keep
/// to it in both directions.
fn two_paths(
    p1: PathSpec,
    p2: PathSpec,
    receive_window: u32,
    estimators: bool,
) -> (Net, AssocId, AssocId) {
    let (mut n, a, b) = connected(p1, p2, receive_window, estimators);
    n.run_for(Duration::from_secs(4));
    for addr in [ip("10.1.0.2"), ip("10.2.0.2")] {
        let p = n.a.association(a).unwrap().path_stats(addr).unwrap();
        assert!(p.confirmed, "path to {addr} not confirmed");
        assert_eq!(p.capacity_bps.is_some(), estimators, "{addr}: {p:?}");
    }
    (n, a, b)
}

/// The two paths, just connected: path 2 not confirmed yet, no capacity
/// measured.
fn connected(
    p1: PathSpec,
    p2: PathSpec,
    receive_window: u32,
    estimators: bool,
) -> (Net, AssocId, AssocId) {
    let (a1, a2, b1, b2) = (
        ip("10.1.0.1"),
        ip("10.2.0.1"),
        ip("10.1.0.2"),
        ip("10.2.0.2"),
    );
    let mut across = Link::new(Duration::from_millis(1));
    across.up = false;
    let mut n = Net::new(
        config(5000, receive_window, estimators),
        &[a1, a2],
        config(6000, receive_window, estimators),
        &[b1, b2],
        across,
        1,
    );
    n.record = false;
    let link = |p: PathSpec| Link::new(Duration::from_millis(p.delay_ms)).rate(p.rate_bps, p.queue);
    n.set_path(a1, b1, link(p1));
    n.set_path(a2, b2, link(p2));
    let (a, b) = n.connect(Duration::from_secs(5));
    let x = n.a.association_mut(a).unwrap();
    x.set_path_source(b1, Some(a1)).unwrap();
    x.set_path_source(b2, Some(a2)).unwrap();
    let y = n.b.association_mut(b).unwrap();
    y.set_path_source(a1, Some(b1)).unwrap();
    y.set_path_source(a2, Some(b2)).unwrap();
    (n, a, b)
}

/// What B saw once CMT was on.
#[derive(Debug)]
struct Seen2 {
    goodput_mbps: f64,
    /// New DATA chunks B received below its highest TSN.
    reordered: u64,
    /// Payload bytes acknowledged per path (1, 2).
    per_path: [u64; 2],
}

/// A greedy transfer from A to B: `single_s` seconds on path 1 alone (its
/// window grows), then `cmt` for `cmt_s` seconds (path 2 joins with its
/// initial window; `None`: path 1 alone throughout); measured over the
/// `cmt_s` seconds.
fn transfer(
    p2: PathSpec,
    receive_window: u32,
    estimators: bool,
    cmt: Option<CmtConfig>,
    single_s: u64,
    cmt_s: u64,
) -> Seen2 {
    transfer_over(WLAN, p2, receive_window, estimators, cmt, single_s, cmt_s)
}

/// One step of a greedy application on both ends: A writes MSG-byte
/// messages while the send buffer takes them, B reads everything
/// delivered; returns the bytes B read.
fn greedy_step(n: &mut Net, a: AssocId, b: AssocId, payload: &Bytes) -> usize {
    let x = n.a.association_mut(a).unwrap();
    while x.send_capacity() >= MSG {
        x.send(0, 0, payload.clone(), false).unwrap();
    }
    let y = n.b.association_mut(b).unwrap();
    let mut got = 0;
    while let Some(m) = y.recv() {
        got += m.data.len();
    }
    got
}

/// [`transfer`] with path 1 given too.
fn transfer_over(
    p1: PathSpec,
    p2: PathSpec,
    receive_window: u32,
    estimators: bool,
    cmt: Option<CmtConfig>,
    single_s: u64,
    cmt_s: u64,
) -> Seen2 {
    let (mut n, a, b) = two_paths(p1, p2, receive_window, estimators);
    let payload = Bytes::from(vec![0x5a; MSG]);
    let on = n.now + Duration::from_secs(single_s);
    let end = on + Duration::from_secs(cmt_s);
    let (mut got, mut at_on) = (0usize, None);
    let mut before = (0u64, [0u64; 2]);
    let acked = |n: &Net| {
        let p = n.a.association(a).unwrap().paths();
        [p[0].counters.bytes_acked, p[1].counters.bytes_acked]
    };
    n.run_with(end, &mut |n| {
        if at_on.is_none() && n.now >= on {
            if let Some(c) = cmt {
                n.a.association_mut(a).unwrap().set_cmt(c);
                n.b.association_mut(b).unwrap().set_cmt(c);
            }
            at_on = Some(got);
            let r =
                n.b.association(b)
                    .unwrap()
                    .stats()
                    .out_of_order_tsns_received;
            before = (r, acked(n));
        }
        got += greedy_step(n, a, b, &payload);
    });
    n.a.association(a)
        .unwrap()
        .check_accounting()
        .expect("the sender's bookkeeping holds");
    let now = acked(&n);
    Seen2 {
        goodput_mbps: (got - at_on.unwrap()) as f64 * 8.0 / cmt_s as f64 / 1e6,
        reordered: n
            .b
            .association(b)
            .unwrap()
            .stats()
            .out_of_order_tsns_received
            - before.0,
        per_path: [now[0] - before.1[0], now[1] - before.1[1]],
    }
}

fn fpf(input: FpfInput) -> Option<CmtConfig> {
    Some(CmtConfig {
        fpf_input: input,
        ..CmtConfig::on(CmtScheduler::FastestPathFirst)
    })
}

fn rr() -> Option<CmtConfig> {
    Some(CmtConfig::on(CmtScheduler::RoundRobin))
}

/// Two equal paths (two WLANs), a 64 KiB receive window. A sends over
/// path 1 alone for 2 s, so path 1's window has grown (to the receive
/// window) when CMT starts and path 2 joins with its initial window (as
/// when a mobile enters a second network's cell):
///
/// ```text
///   A                                              B (64 KiB)
///   |--- DATA, path 1 only: cwnd 1 grows --------->|
///   |   CMT on: cwnd 2 = initial window            |
///   |--- DATA, path 1 and path 2 (10 s) ---------->|  B counts TSNs that
///   |<-- SACK ------------------------------------|  arrive below its highest
/// ```
///
/// Fastest path first on the packet-pair capacities (the paper's input)
/// sees two equal paths and keeps their outstanding data equal: it
/// reorders no more than round-robin. Without capacities it is
/// round-robin. Dividing by cwnd / SRTT instead (the rule before issue
/// 33) takes path 2's small window for a slow path, keeps it small by
/// not filling it, and path 1's queue makes path 2's packets overtake.
#[test]
fn over_equal_paths_fastest_path_first_reorders_no_more_than_round_robin() {
    const WINDOW: u32 = 64 * 1024;
    let run = |estimators, cmt| transfer(WLAN, WINDOW, estimators, cmt, 2, 10);
    let rr_est = run(true, rr());
    let fpf_est = run(true, fpf(FpfInput::Capacity));
    println!("round-robin, estimators on: {rr_est:?}");
    println!("fastest path first on the capacities: {fpf_est:?}");
    assert!(
        fpf_est.reordered <= rr_est.reordered,
        "fastest path first reordered {} TSNs, round-robin {}",
        fpf_est.reordered,
        rr_est.reordered
    );
    assert!(fpf_est.goodput_mbps >= 0.98 * rr_est.goodput_mbps);
    // Both paths carry data: at least a third each.
    for bytes in fpf_est.per_path {
        assert!(
            3 * bytes > fpf_est.per_path.iter().sum::<u64>() / 2,
            "{fpf_est:?}"
        );
    }

    // Estimators off: no capacity, so round-robin, packet for packet.
    let rr_off = run(false, rr());
    let fpf_off = run(false, fpf(FpfInput::Capacity));
    println!("round-robin, estimators off: {rr_off:?}");
    println!("fastest path first without capacities: {fpf_off:?}");
    assert_eq!(fpf_off.reordered, rr_off.reordered);
    assert_eq!(fpf_off.per_path, rr_off.per_path);

    // The cwnd / SRTT rule: path 2 starved and overtaking.
    let cwnd = run(false, fpf(FpfInput::CwndSrtt));
    println!("fastest path first on cwnd / SRTT: {cwnd:?}");
    assert!(cwnd.reordered > 10 * rr_off.reordered.max(1), "{cwnd:?}");
    assert!(2 * cwnd.per_path[1] < cwnd.per_path[0], "{cwnd:?}");
}

/// A WLAN and a UMTS path, a 1 MiB receive window, the capacities
/// measured: fastest path first gives UMTS only what arrives no later
/// than on the WLAN (R_UMTS below R_WLAN), so the WLAN carries almost
/// everything and the goodput is at least the WLAN's alone; round-robin
/// fills UMTS's window and the receiver waits for it.
#[test]
fn over_unequal_paths_fastest_path_first_prefers_the_fast_one() {
    const WINDOW: u32 = 1 << 20;
    let single = transfer(UMTS, WINDOW, true, None, 0, 10);
    let rr = transfer(UMTS, WINDOW, true, rr(), 0, 10);
    let fpf = transfer(UMTS, WINDOW, true, fpf(FpfInput::Capacity), 0, 10);
    println!("single path: {single:?}");
    println!("round-robin: {rr:?}");
    println!("fastest path first: {fpf:?}");
    let total = fpf.per_path[0] + fpf.per_path[1];
    assert!(
        fpf.per_path[0] as f64 > 0.95 * total as f64,
        "the WLAN carried {} of {total} bytes",
        fpf.per_path[0]
    );
    assert!(fpf.per_path[1] > 0, "UMTS unused: {fpf:?}");
    assert!(fpf.goodput_mbps >= 0.99 * single.goodput_mbps);
    assert!(fpf.goodput_mbps > rr.goodput_mbps);
}

/// The same paths with a 64 KiB receive window. R_i has no propagation
/// delay (the paper leaves it out: "path propagation delays are not taken
/// into account in this version"), so once 28 packets are outstanding on
/// the WLAN, an idle UMTS path looks faster: a packet sent there arrives
/// some 110 ms later, and behind it the WLAN's packets fill the 64 KiB
/// window at the receiver (the WLAN delivers 64 KiB in under 50 ms). The
/// goodput falls below half of the WLAN's alone. E9 reports it (its
/// `fpf-wu` at 64 KiB).
#[test]
fn with_a_64_kib_window_the_reception_time_without_delay_blocks_the_wlan() {
    const WINDOW: u32 = 64 * 1024;
    let single = transfer(UMTS, WINDOW, true, None, 0, 10);
    let fpf = transfer(UMTS, WINDOW, true, fpf(FpfInput::Capacity), 0, 10);
    println!("single path: {single:?}");
    println!("fastest path first: {fpf:?}");
    assert!(fpf.per_path[1] > 0, "UMTS unused: {fpf:?}");
    assert!(fpf.goodput_mbps < 0.5 * single.goodput_mbps, "{fpf:?}");
}

/// Out-of-order SACKs (Budzisz et al., section 4.3.2.1: "out-of-order
/// SACKs are not trusted as in the original SCTP and are discarded,
/// because CMT may easily lead to SACK reordering"). B answers each
/// packet over the path it came on (RFC 9260 section 6.4), so a SACK for
/// an earlier UMTS packet, 80 ms on the way back, arrives after the
/// WLAN's SACKs for later data have moved the cumulative ack point:
///
/// ```text
///   A                                      B
///   |--- DATA 1, path 2 (UMTS) ----------->|
///   |--- DATA 2..n, path 1 (WLAN) -------->|
///   |<-- SACK cum n, path 1 ---------------|  cum ack point n
///   |<-- SACK cum k < n, path 2 -----------|  behind it: discarded
/// ```
///
/// (RFC 9260 section 6.2.1 D i). None of them moves a window or counts
/// a missing report: no retransmission at all.
#[test]
fn under_cmt_sacks_behind_the_cumulative_ack_point_are_discarded() {
    // Queues of 1000 packets: nothing is lost.
    let long = |p: PathSpec| PathSpec { queue: 1000, ..p };
    let (mut n, a, b) = two_paths(long(WLAN), long(UMTS), 1 << 20, true);
    let cmt = CmtConfig::on(CmtScheduler::FastestPathFirst);
    n.a.association_mut(a).unwrap().set_cmt(cmt);
    n.b.association_mut(b).unwrap().set_cmt(cmt);
    let payload = Bytes::from(vec![0x5a; MSG]);
    let mut sent = 0;
    let end = n.now + Duration::from_secs(3);
    n.run_with(end, &mut |n| {
        let x = n.a.association_mut(a).unwrap();
        while sent < 1400 && x.send_capacity() >= MSG {
            x.send(0, 0, payload.clone(), false).unwrap();
            sent += 1;
        }
        let y = n.b.association_mut(b).unwrap();
        while y.recv().is_some() {}
    });
    let x = n.a.association(a).unwrap();
    let s = x.stats();
    let umts = x.paths()[1].counters.bytes_acked;
    println!(
        "SACKs {} ({} stale), UMTS carried {umts} bytes, retransmitted {}",
        s.sacks_received, s.stale_sacks, s.retransmitted_chunks
    );
    assert!(umts > 0, "UMTS unused");
    assert!(s.stale_sacks > 0, "no SACK came out of order");
    assert_eq!(s.retransmitted_chunks, 0);
    assert_eq!(x.stats().spurious_fast_retransmissions, 0);
}

/// SACKs over the link of the last packet received (Budzisz et al.,
/// section 4.3.2.1), with a single-homed sender (case C of
/// docs/MODELS.md section 4): B's route to A1 leaves from B1, so without
/// the option every SACK crosses network 1; with it, a SACK for a packet
/// that came over network 2 leaves from B2.
///
/// ```text
///   A1 ---- DATA over network 1 ----> B1
///   A1 ---- DATA over network 2 ----> B2
///   A1 <--- SACK, from B1 (route) or B2 (last DATA came to B2) ---
/// ```
#[test]
fn sacks_go_back_over_the_link_of_the_last_packet_received_when_asked() {
    let sack_sources = |on: bool| {
        let (a1, b1, b2) = (ip("10.9.0.1"), ip("10.1.0.2"), ip("10.2.0.2"));
        let mut across = Link::new(Duration::from_millis(1));
        across.up = false;
        let mut n = Net::new(
            config(5000, 1 << 20, false),
            &[a1],
            config(6000, 1 << 20, false),
            &[b1, b2],
            across,
            1,
        );
        let link =
            |p: PathSpec| Link::new(Duration::from_millis(p.delay_ms)).rate(p.rate_bps, 1000);
        n.set_path(a1, b1, link(WLAN));
        n.set_path(a1, b2, link(WLAN));
        let (a, b) = n.connect(Duration::from_secs(5));
        n.b.association_mut(b)
            .unwrap()
            .set_path_source(a1, Some(b1))
            .unwrap();
        n.run_for(Duration::from_secs(4));
        // A SACK for every packet (no DAC): the packets alternate
        // between the networks, so do the SACKs.
        let cmt = CmtConfig {
            sack_on_arrival_link: on,
            delayed_ack: false,
            ..CmtConfig::on(CmtScheduler::RoundRobin)
        };
        n.a.association_mut(a).unwrap().set_cmt(cmt);
        n.b.association_mut(b).unwrap().set_cmt(cmt);
        n.record = true;
        let payload = Bytes::from(vec![0x5a; MSG]);
        let mut sent = 0;
        let end = n.now + Duration::from_secs(2);
        n.run_with(end, &mut |n| {
            let x = n.a.association_mut(a).unwrap();
            while sent < 1000 && x.send_capacity() >= MSG {
                x.send(0, 0, payload.clone(), false).unwrap();
                sent += 1;
            }
            let y = n.b.association_mut(b).unwrap();
            while y.recv().is_some() {}
        });
        let data_to = |addr| {
            n.seen
                .iter()
                .filter(|s| s.from == Side::A && s.dst == addr && s.chunks.contains(&0))
                .count()
        };
        assert!(data_to(b1) > 100 && data_to(b2) > 100, "CMT used both");
        let sacks_from = |addr| {
            n.seen
                .iter()
                .filter(|s| s.from == Side::B && s.src == addr && s.chunks.contains(&3))
                .count()
        };
        (sacks_from(b1), sacks_from(b2))
    };
    let off = sack_sources(false);
    let on = sack_sources(true);
    println!("SACKs from (B1, B2): route {off:?}, link of arrival {on:?}");
    assert_eq!(off.1, 0, "{off:?}");
    // B acknowledges every second packet (RFC 9260 section 6.2), which
    // round-robin sends over network 2 here: every SACK leaves from B2.
    assert!(on.1 > 100, "{on:?}");
    assert_eq!(on.0 + on.1, off.0 + off.1);
}

/// A send buffer per path (Budzisz et al., section 4.3.2.1: "giving to
/// each interface its own send buffer"), fastest path first on the
/// capacities, two equal WLANs, a 1 MiB receive window. A sends over
/// path 1 alone for 2 s (its window has grown), then path 2 joins with
/// its initial window; measured over the next second:
///
/// ```text
///   A (one queue)                                   B
///   |--- DATA, path 1 (window large) ---------------->|
///   |    next chunk: R_2 < R_1 (little outstanding on path 2), but
///   |    path 2's window is full: it waits, and path 1 waits with it
///
///   A (a buffer per path, 8 chunks each)            B
///   |--- DATA, path 1 ------------------------------->|
///   |    next chunks into path 2's buffer while R_2, counting what
///   |    waits there, is the least; then into path 1's, which sends
/// ```
///
/// Measured: path 1 carries 40 chunks more (1 332 864 against 1 275 904
/// bytes), 20.2 against 19.8 Mbit/s; the price is more reordering at B
/// (851 against 621 TSNs): path 1's chunks leave while older ones wait
/// in path 2's buffer.
#[test]
fn with_a_send_buffer_per_path_a_full_window_does_not_hold_back_the_other_path() {
    const WINDOW: u32 = 1 << 20;
    let lanes = Some(CmtConfig {
        path_send_buffer: 8 * MSG as u32,
        ..fpf(FpfInput::Capacity).unwrap()
    });
    let shared = transfer(WLAN, WINDOW, true, fpf(FpfInput::Capacity), 2, 1);
    let buffered = transfer(WLAN, WINDOW, true, lanes, 2, 1);
    println!("one queue: {shared:?}");
    println!("a buffer per path: {buffered:?}");
    assert!(buffered.per_path[1] > 0, "path 2 unused: {buffered:?}");
    assert!(
        buffered.per_path[0] > shared.per_path[0],
        "path 1 carried {} bytes with the buffers, {} without",
        buffered.per_path[0],
        shared.per_path[0]
    );
    assert!(buffered.goodput_mbps > shared.goodput_mbps);
}

/// The send buffers with a 64 KiB receive window over a WLAN and UMTS
/// (E9's `fpf-wu` at 64 KiB). The buffers hold chunk slots, and a chunk
/// takes its stream sequence number and TSN when it leaves: were the
/// sequence number given when the chunk entered a buffer, a chunk
/// waiting in UMTS's buffer would hold back delivery of all the WLAN's
/// later ones, which fill the receiver's window, and the receiver would
/// drop that chunk when it came (a deadlock, seen in E9's first run with
/// the buffers: no goodput at 16 and 64 KiB).
///
/// ```text
///   A                                              B (64 KiB)
///   |--- slot on UMTS: SSN k, TSN t ---- 110 ms --->|  k delivered late,
///   |--- WLAN: SSN k+1.., TSN t+1.. --------------->|  never dropped
/// ```
#[test]
fn with_send_buffers_per_path_a_small_receive_window_still_delivers() {
    const WINDOW: u32 = 64 * 1024;
    let shared = transfer(UMTS, WINDOW, true, fpf(FpfInput::Capacity), 0, 10);
    let buffered = transfer(
        UMTS,
        WINDOW,
        true,
        Some(CmtConfig {
            path_send_buffer: 8 * MSG as u32,
            ..fpf(FpfInput::Capacity).unwrap()
        }),
        0,
        10,
    );
    println!("one queue: {shared:?}");
    println!("a buffer per path: {buffered:?}");
    assert!(buffered.per_path[1] > 0, "UMTS unused: {buffered:?}");
    assert!(
        buffered.goodput_mbps > 0.5 * shared.goodput_mbps,
        "{buffered:?} against {shared:?}"
    );
}

/// A greedy transfer with CMT on from the association's start, as in E9
/// (the application writes as soon as it is connected, before path 2 is
/// confirmed or any capacity measured); goodput measured from `from_s`
/// to `to_s` seconds after the start, bytes acknowledged per path over
/// the whole run.
fn transfer_from_start(
    p2: PathSpec,
    receive_window: u32,
    cmt: CmtConfig,
    from_s: u64,
    to_s: u64,
) -> Seen2 {
    let (mut n, a, b) = connected(WLAN, p2, receive_window, true);
    n.a.association_mut(a).unwrap().set_cmt(cmt);
    n.b.association_mut(b).unwrap().set_cmt(cmt);
    let payload = Bytes::from(vec![0x5a; MSG]);
    let from = n.now + Duration::from_secs(from_s);
    let end = n.now + Duration::from_secs(to_s);
    let (mut got, mut at_from) = (0usize, None);
    let mut reordered_before = 0;
    n.run_with(end, &mut |n| {
        if at_from.is_none() && n.now >= from {
            at_from = Some(got);
            reordered_before =
                n.b.association(b)
                    .unwrap()
                    .stats()
                    .out_of_order_tsns_received;
        }
        got += greedy_step(n, a, b, &payload);
    });
    let x = n.a.association(a).unwrap();
    x.check_accounting()
        .expect("the sender's bookkeeping holds");
    let p = x.paths();
    Seen2 {
        goodput_mbps: (got - at_from.unwrap()) as f64 * 8.0 / (to_s - from_s) as f64 / 1e6,
        reordered: n
            .b
            .association(b)
            .unwrap()
            .stats()
            .out_of_order_tsns_received
            - reordered_before,
        per_path: [p[0].counters.bytes_acked, p[1].counters.bytes_acked],
    }
}

/// The send buffers when CMT runs from the association's start (E9's
/// `fpf-wg` at 64 KiB): a WLAN and a GERAN path (80 kbit/s, 80 ms), a
/// 64 KiB receive window, 64 KiB per buffer. Until both paths have a
/// capacity estimate fastest path first is round-robin, and a greedy
/// application fills both buffers at once: 45 chunk slots in GERAN's,
/// six seconds of its link. Were those slots kept once the estimates
/// came, GERAN would send them one by one for the rest of the transfer,
/// its queue growing, and the WLAN's data would fill B's window behind
/// each of them:
///
/// ```text
///   A                                                   B (64 KiB)
///   |  path 2 confirmed, no capacity: round-robin fill  |
///   |  buffers: WLAN 45 slots, GERAN 45 slots           |
///   |--- HEARTBEAT trains, both paths ----------------->|
///   |<-- HEARTBEAT ACKs: C_1 = 11 Mbit/s, C_2 = 80 kbit/s|
///   |  the slots not sent yet are placed again by R_i:  |
///   |  R_GERAN (145 ms a packet) above R_WLAN: WLAN     |
///   |--- DATA, WLAN (GERAN's few in flight arrive) ---->|
/// ```
///
/// Measured from 5 to 15 s (E9's window starts at 5 s): with the slots
/// kept, 0.25 Mbit/s against 7.69 with one shared queue, GERAN carrying
/// 76 chunks (one queue: 30, the round-robin start) and its queue
/// growing all the run; placed again, 7.69 Mbit/s and 30 chunks, the
/// same run as with one queue.
#[test]
fn slots_placed_before_the_capacities_are_known_are_placed_again_by_them() {
    const WINDOW: u32 = 64 * 1024;
    let shared = fpf(FpfInput::Capacity).unwrap();
    let lanes = CmtConfig {
        path_send_buffer: 64 * 1024,
        ..shared
    };
    let one_queue = transfer_from_start(GERAN, WINDOW, shared, 5, 15);
    let buffered = transfer_from_start(GERAN, WINDOW, lanes, 5, 15);
    println!("one queue: {one_queue:?}");
    println!("a buffer per path: {buffered:?}");
    // GERAN carried what one queue gave it (its round-robin start), not
    // the 45 slots of its buffer on top.
    buffers_do_as_one_queue(
        (one_queue.goodput_mbps, one_queue.per_path),
        (buffered.goodput_mbps, buffered.per_path),
    );
}

/// A buffer per path delivers as one shared queue does (one queue above
/// 5 Mbit/s, the buffers at least 0.9 of it) and gives GERAN (path 2)
/// at most ten messages more: (goodput in Mbit/s, bytes per path) of each.
fn buffers_do_as_one_queue(one_queue: (f64, [u64; 2]), buffered: (f64, [u64; 2])) {
    assert!(one_queue.0 > 5.0, "one queue: {one_queue:?}");
    assert!(
        buffered.0 > 0.9 * one_queue.0,
        "a buffer per path {buffered:?} against one queue {one_queue:?}"
    );
    assert!(
        buffered.1[1] <= one_queue.1[1] + 10 * MSG as u64,
        "GERAN carried {} bytes, {} with one queue",
        buffered.1[1],
        one_queue.1[1]
    );
}

/// What B received after a WLAN outage, and what each path carried then.
#[derive(Debug)]
struct AfterOutage {
    /// Goodput over the `after_s` seconds from the WLAN's return.
    goodput_mbps: f64,
    /// Payload bytes acknowledged per path (1, 2) over those seconds.
    per_path: [u64; 2],
    /// T3-rtx expirations of the WLAN path during the outage.
    wlan_timeouts: u64,
}

/// A greedy transfer over a WLAN and a GERAN path with CMT from the
/// start; at `cut_s` the WLAN drops every packet for `cut_ms`, then
/// works again; measured over the `after_s` seconds from its return.
fn transfer_with_outage(cmt: CmtConfig, cut_s: u64, cut_ms: u64, after_s: u64) -> AfterOutage {
    let (mut n, a, b) = connected(WLAN, GERAN, 64 * 1024, true);
    n.a.association_mut(a).unwrap().set_cmt(cmt);
    n.b.association_mut(b).unwrap().set_cmt(cmt);
    let payload = Bytes::from(vec![0x5a; MSG]);
    let cut = n.now + Duration::from_secs(cut_s);
    let back = cut + Duration::from_millis(cut_ms);
    let end = back + Duration::from_secs(after_s);
    let (wlan_a, wlan_b) = (ip("10.1.0.1"), ip("10.1.0.2"));
    let (mut got, mut at_back) = (0usize, None);
    let (mut down, mut timeouts_at_cut) = (false, 0);
    let mut acked_at_back = [0u64; 2];
    n.run_with(end, &mut |n| {
        if !down && at_back.is_none() && n.now >= cut {
            down = true;
            n.set_up(wlan_a, wlan_b, false);
            timeouts_at_cut = n.a.association(a).unwrap().paths()[0]
                .counters
                .t3_expirations;
        }
        if down && n.now >= back {
            down = false;
            n.set_up(wlan_a, wlan_b, true);
            at_back = Some(got);
            let p = n.a.association(a).unwrap().paths();
            acked_at_back = [p[0].counters.bytes_acked, p[1].counters.bytes_acked];
        }
        got += greedy_step(n, a, b, &payload);
    });
    let x = n.a.association(a).unwrap();
    x.check_accounting()
        .expect("the sender's bookkeeping holds");
    let p = x.paths();
    let from = at_back.expect("the WLAN came back");
    AfterOutage {
        goodput_mbps: (got - from) as f64 * 8.0 / after_s as f64 / 1e6,
        per_path: [
            p[0].counters.bytes_acked - acked_at_back[0],
            p[1].counters.bytes_acked - acked_at_back[1],
        ],
        wlan_timeouts: p[0].counters.t3_expirations - timeouts_at_cut,
    }
}

/// A WLAN whose T3-rtx timer expires once is no CMT candidate until an
/// acknowledgement clears its error count (CMT-PF), and the slots in its
/// send buffer cannot wait there. Had they gone to the only path left,
/// GERAN, as they were, GERAN would send them one by one long after the
/// WLAN was back (45 slots of 64 KiB, six seconds of its link, more than
/// its own buffer holds), each holding B's window (E9's `fpf-wg` at
/// 64 KiB, its five slow runs: a spurious WLAN timeout put the WLAN's
/// slots on GERAN, again and again):
///
/// ```text
///   A                                                   B (64 KiB)
///   |  C_1 = 11 Mbit/s, C_2 = 80 kbit/s: WLAN's buffer  |
///   |--- DATA, WLAN ---------------X (200 ms outage)    |
///   |  T3-rtx (WLAN) expires: WLAN no candidate;        |
///   |  its slots taken back, placed by R_i among the    |
///   |  paths left (GERAN, its buffer's 64 KiB at most)  |
///   |--- DATA, GERAN (its window) --------------------->|
///   |<-- SACK (WLAN back): error count cleared ---------|
///   |  every path a candidate again: slots not sent are |
///   |  placed again by R_i: WLAN                        |
///   |--- DATA, WLAN ----------------------------------->|
/// ```
///
/// Measured over the 8 s after the WLAN's return, against one shared
/// queue under the same outage.
#[test]
fn slots_of_a_path_that_stops_taking_data_are_placed_again_when_it_returns() {
    let shared = fpf(FpfInput::Capacity).unwrap();
    let lanes = CmtConfig {
        path_send_buffer: 64 * 1024,
        ..shared
    };
    let one_queue = transfer_with_outage(shared, 8, 200, 8);
    let buffered = transfer_with_outage(lanes, 8, 200, 8);
    println!("one queue: {one_queue:?}");
    println!("a buffer per path: {buffered:?}");
    assert!(buffered.wlan_timeouts >= 1, "{buffered:?}");
    // GERAN carried after the outage what one queue gave it, not the
    // WLAN's slots on top.
    buffers_do_as_one_queue(
        (one_queue.goodput_mbps, one_queue.per_path),
        (buffered.goodput_mbps, buffered.per_path),
    );
}
