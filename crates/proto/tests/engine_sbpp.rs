//! Sender-based packet pair (SBPP; Budzisz et al., AISLE), the default
//! capacity estimator, end to end over in-memory links of known rate. A
//! runs the estimators; B is a plain RFC 9260 peer (estimators off: it
//! neither announces nor knows msctp's PROBE chunks) that only answers
//! HEARTBEATs (RFC 9260 section 8.3), as usrsctp or Linux would:
//!
//! ```text
//!   A (estimators on)                            B (plain peer)
//!   A1 10.1.0.2 ------- R1, 10 ms ------->  B1 10.1.0.1
//!   A2 10.2.0.2 ------- R2, 30 ms ------->  B2 10.2.0.1
//!   (return directions: same delay, no rate limit)
//!
//!   HB(n,0) HB(n,1) [PAD|HB(n,2)] [PAD|HB(n,3)] HB(n,4) HB(n,5)   back to back
//!        --------------------------------------------------------->
//!        <--- HB-ACK(n,0) HB-ACK(n,1) ... HB-ACK(n,5), each small
//!   capacity = 1452 x 8 / (arrival of HB-ACK(n,3) - arrival of HB-ACK(n,2))
//! ```
//!
//! (n: the train's nonce in the Heartbeat Information, followed by the
//! packet's sequence in the train.)

mod common;

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use common::*;
use msctp_proto::estimate::Discard;
use msctp_proto::wire::chunk::chunk_type;
use msctp_proto::wire::{Chunk, Packet};
use msctp_proto::{AssocId, EndpointConfig, EstimatorConfig, Time};

use common::two_paths::{self, A1, A2, B1, B2};

fn cfg(port: u16, estimators: bool) -> EndpointConfig {
    let mut c = EndpointConfig::new(port);
    let a = &mut c.association;
    a.rto_min = Duration::from_millis(50);
    a.rto_initial = Duration::from_millis(500);
    a.heartbeat_interval = Some(Duration::from_secs(1));
    a.sack_delay = Some(Duration::from_millis(20));
    if estimators {
        // SBPP is the default method.
        a.estimators = EstimatorConfig::on();
    }
    c
}

/// The two-path network (`common::two_paths`); only A runs the estimators.
fn net(r1: u64, r2: u64, seed: u64) -> Net {
    two_paths::net(cfg(5000, true), cfg(6000, false), r1, r2, seed)
}

fn connect(n: &mut Net) -> AssocId {
    two_paths::connect(n).0
}

fn within(x: u64, want: u64, frac: f64) -> bool {
    (x as f64 - want as f64).abs() <= frac * want as f64
}

/// A HEARTBEAT or HEARTBEAT ACK of a train on the wire.
#[derive(Debug)]
struct TrainPacket {
    time: Time,
    dst: IpAddr,
    len: usize,
    nonce: u64,
    seq: u8,
    chunks: Vec<u8>,
}

/// Where our Heartbeat Information (IPv4: family, address, nonce, seq)
/// lies in a HEARTBEAT or HEARTBEAT ACK chunk: after the chunk header and
/// the parameter header.
const INFO: usize = 8;

/// The train packets (HEARTBEATs with a sequence, or their ACKs) in a
/// packet: (offset of the chunk, nonce, seq).
fn train_chunks(data: &Bytes, ty: u8) -> Vec<(usize, u64, u8)> {
    let Ok(p) = Packet::new_checked(&data[..]) else {
        return Vec::new();
    };
    let mut v = Vec::new();
    for (r, _) in p.chunks().flatten() {
        let info = match Chunk::parse(&data.slice(r.clone())) {
            Ok(Chunk::Heartbeat { info }) if ty == chunk_type::HEARTBEAT => info,
            Ok(Chunk::HeartbeatAck { info }) if ty == chunk_type::HEARTBEAT_ACK => info,
            _ => continue,
        };
        if info.len() == 14 {
            let nonce = u64::from_be_bytes(info[5..13].try_into().unwrap());
            v.push((r.start, nonce, info[13]));
        }
    }
    v
}

/// Train packets of chunk type `ty` sent by `side`, in the order sent.
fn train_packets(n: &Net, side: Side, ty: u8) -> Vec<TrainPacket> {
    let mut v = Vec::new();
    for s in n.seen.iter().filter(|s| s.from == side) {
        for (_, nonce, seq) in train_chunks(&s.bytes, ty) {
            v.push(TrainPacket {
                time: s.time,
                dst: s.dst,
                len: s.bytes.len(),
                nonce,
                seq,
                chunks: s.chunks.clone(),
            });
        }
    }
    v
}

fn path(n: &Net, a: AssocId, peer: &str) -> msctp_proto::path::PathStats {
    n.a.association(a).unwrap().path_stats(ip(peer)).unwrap()
}

/// A's train to B1: six HEARTBEATs back to back, 2 small, 2 of the path
/// MTU (a PAD chunk in front), 2 small; B, which knows nothing of
/// estimators, answers each with a small HEARTBEAT ACK; A times them and
/// learns each path's rate.
#[test]
fn sbpp_six_heartbeats_answered_by_a_plain_peer_give_each_path_rate() {
    let (r1, r2) = (2_000_000, 5_000_000);
    let mut n = net(r1, r2, 1);
    let a = connect(&mut n);
    n.run_for(Duration::from_secs(10));
    assert!(!n.a.association(a).unwrap().peer_supports_probes());
    assert!(
        n.seen
            .iter()
            .all(|s| !s.chunks.contains(&chunk_type::PROBE)),
        "no PROBE chunk on the wire"
    );

    let sent = train_packets(&n, Side::A, chunk_type::HEARTBEAT);
    let first = sent.iter().find(|p| p.dst == ip(B1)).unwrap().nonce;
    let train: Vec<&TrainPacket> = sent.iter().filter(|p| p.nonce == first).collect();
    let seqs: Vec<u8> = train.iter().map(|p| p.seq).collect();
    assert_eq!(seqs, [0, 1, 2, 3, 4, 5]);
    assert!(
        train.iter().all(|p| p.time == train[0].time),
        "back to back"
    );
    let sizes: Vec<usize> = train.iter().map(|p| p.len).collect();
    assert_eq!(sizes, [36, 36, 1452, 1452, 36, 36], "small, large, small");
    assert_eq!(train[2].chunks, [chunk_type::PAD, chunk_type::HEARTBEAT]);
    assert_eq!(train[0].chunks, [chunk_type::HEARTBEAT]);

    let acks = train_packets(&n, Side::B, chunk_type::HEARTBEAT_ACK);
    let answered: Vec<&TrainPacket> = acks.iter().filter(|p| p.nonce == first).collect();
    assert_eq!(answered.len(), 6, "one HEARTBEAT ACK per packet");
    assert!(
        answered.iter().all(|p| p.len == 36),
        "the PAD is not echoed: {:?}",
        answered.iter().map(|p| p.len).collect::<Vec<_>>()
    );
    // B left the ACKs of the large pair spaced by R1.
    let gap = answered[3].time.saturating_since(answered[2].time);
    let want = Duration::from_nanos(1452 * 8 * 1_000_000_000 / r1);
    assert!(gap.abs_diff(want) < Duration::from_micros(10), "{gap:?}");

    let (p1, p2) = (path(&n, a, B1), path(&n, a, B2));
    eprintln!("path 1 {:?} {:?} (link {r1})", p1.probes, p1.capacity_bps);
    eprintln!("path 2 {:?} {:?} (link {r2})", p2.probes, p2.capacity_bps);
    for (p, r) in [(&p1, r1), (&p2, r2)] {
        let c = p.capacity_bps.expect("a capacity from a plain peer");
        assert!(within(c, r, 0.05), "{c} for {r}");
        assert!(p.probes.trains_sent >= 5, "{:?}", p.probes);
        assert_eq!(p.probes.samples, p.probes.trains_sent, "{:?}", p.probes);
        assert!(p.srtt.is_some(), "the ACKs feed the RTT");
    }
}

/// The estimate of one path, after 10 s, within 10 % of its link's rate,
/// from a UMTS bearer to 802.11a.
#[test]
fn sbpp_estimate_is_within_10_percent_of_the_link_rate() {
    for (seed, rate) in [384_000u64, 2_000_000, 11_000_000, 54_000_000]
        .into_iter()
        .enumerate()
    {
        let mut n = net(rate, 1_000_000, seed as u64 + 10);
        let a = connect(&mut n);
        n.run_for(Duration::from_secs(10));
        let c = path(&n, a, B1).capacity_bps.expect("an estimate");
        eprintln!("link {rate} bit/s: estimate {c} bit/s");
        assert!(within(c, rate, 0.10), "{c} for {rate}");
    }
}

/// The HEARTBEAT ACKs of A's first train on path 1 lose the one of packet
/// 3; those of the second arrive with 2 and 3 swapped. Neither train gives
/// a sample (lost, reordered); the others do, and the estimate is right.
#[test]
fn sbpp_a_lost_or_reordered_ack_discards_the_sample() {
    let r1 = 3_000_000;
    let mut n = net(r1, 1_000_000, 2);
    let mut trains: Vec<u64> = Vec::new();
    n.filter = Some(Box::new(move |from, _src, dst, data| {
        if from != Side::B || dst != ip(A1) {
            return Verdict::Pass;
        }
        let b = Bytes::copy_from_slice(data);
        for (at, nonce, seq) in train_chunks(&b, chunk_type::HEARTBEAT_ACK) {
            if !trains.contains(&nonce) {
                trains.push(nonce);
            }
            let k = trains.iter().position(|t| *t == nonce).unwrap();
            match (k, seq) {
                (0, 3) => return Verdict::Drop,
                (1, 2 | 3) => {
                    // Packet 2's ACK now says 3 and 3's says 2: to A, the
                    // two arrive in the other order.
                    data[at + INFO + 13] = 5 - seq;
                    msctp_proto::wire::crc::fill(data);
                }
                _ => {}
            }
        }
        Verdict::Pass
    }));
    // Every step watched from the start: the first trains leave while
    // the association is young.
    let (port, addrs) = (n.b.port(), n.b_addrs.clone());
    let a = n.a.connect(n.now, &addrs, port).unwrap();
    let mut discards = Vec::new();
    let mut seen = 0;
    let end = n.now + Duration::from_secs(10);
    n.run_with(end, &mut |n| {
        if let Some(p) = n.a.association(a).and_then(|x| x.path_stats(ip(B1)))
            && p.probes.discarded > seen
        {
            seen = p.probes.discarded;
            discards.push(p.probes.last_discard.unwrap());
        }
    });
    let p = path(&n, a, B1);
    eprintln!("{:?} -> {:?}", p.probes, p.capacity_bps);
    assert_eq!(discards, [Discard::Lost, Discard::Reordered]);
    assert_eq!(p.probes.samples + 2, p.probes.trains_sent, "{:?}", p.probes);
    assert!(within(p.capacity_bps.unwrap(), r1, 0.05), "{p:?}");
}

/// Path 2 dies (both directions) once its first trains are done: each
/// train sent in place of a heartbeat and never answered counts one error
/// on the path (RFC 9260 section 8.3), not one per HEARTBEAT, until
/// Path.Max.Retrans errors make it inactive.
#[test]
fn sbpp_an_unanswered_train_counts_one_heartbeat_error() {
    let mut n = net(2_000_000, 1_000_000, 3);
    let a = connect(&mut n);
    n.run_for(Duration::from_secs(4));
    let before = path(&n, a, B2);
    assert_eq!(before.error_count, 0);
    assert!(before.probes.trains_sent >= 5, "{:?}", before.probes);
    n.set_up(ip(A2), ip(B2), false);
    let pmr = n.a.association(a).unwrap().config().path_max_retrans;
    let mut last = (before.probes.trains_sent, 0);
    let mut steps = Vec::new();
    for _ in 0..6000 {
        n.run_for(Duration::from_millis(10));
        let p = path(&n, a, B2);
        if p.state != msctp_proto::path::PathState::Active {
            break;
        }
        let now = (p.probes.trains_sent, p.error_count);
        if now != last {
            steps.push((now.0 - before.probes.trains_sent, now.1));
            last = now;
        }
    }
    eprintln!("(trains sent on the dead path, errors): {steps:?}");
    // Train k goes out, and one RTO later its heartbeat counts error k.
    let trains = steps.iter().map(|s| s.0).max().unwrap();
    assert!(trains >= 2 && u64::from(pmr) >= trains - 1, "{steps:?}");
    for (t, e) in &steps {
        assert!(u64::from(*e) == *t || u64::from(*e) + 1 == *t, "{steps:?}");
    }
    assert_eq!(path(&n, a, B2).error_count, pmr + 1);
}

/// Path 2 dies between its confirmation and its first train (E8's dead
/// primary, whose first trains were still due when it failed): the
/// deadline of a train a path cannot take is no timer, else the timer
/// fires at once, finds the path unready, and fires again at the same
/// instant for ever. When the path answers again, its train goes out.
///
/// ```text
///   A                                        B
///   HB (verification) -- A2 -> B2 -------->     path 2 confirmed, train due in ~RTO
///   <------------------------------- HB-ACK
///   ---- link A2 <-> B2 cut (PMR 0: one error makes path 2 inactive)
///   HB -----------------x                       inactive; its train deadline passes
///   ... 3 s: time keeps moving (no timer at a past instant) ...
///   ---- link restored
///   HB -------------------------------------->  path 2 active again
///   <------------------------------- HB-ACK
///   HB(n,0..5) ------------------------------>  the train that was due
/// ```
#[test]
fn sbpp_a_path_that_fails_before_its_first_train_does_not_stall_the_clock() {
    for seed in 1..=5 {
        let mut a_cfg = cfg(5000, true);
        a_cfg.association.path_max_retrans = 0;
        let mut n = two_paths::net(a_cfg, cfg(6000, false), 2_000_000, 1_000_000, seed);
        let a = connect(&mut n);
        // Until path 2 is confirmed, before any train on it.
        let mut guard = 0;
        while !path(&n, a, B2).confirmed {
            assert!(n.step(n.now + Duration::from_secs(3)), "seed {seed}");
            guard += 1;
            assert!(guard < 10_000, "seed {seed}: path 2 never confirmed");
        }
        assert_eq!(path(&n, a, B2).probes.trains_sent, 0, "seed {seed}");
        n.set_up(ip(A2), ip(B2), false);
        n.set_up(ip(B2), ip(A2), false);
        // 3 s of an idle association take a few hundred events, not the
        // budget: a timer at a past instant would spend it at one instant.
        let end = n.now + Duration::from_secs(3);
        assert!(
            n.steps_until(end, 20_000),
            "seed {seed}: the clock stalled at {:?} (path 2 {:?})",
            n.now,
            path(&n, a, B2).state
        );
        assert_ne!(path(&n, a, B2).state, msctp_proto::path::PathState::Active);
        n.set_up(ip(A2), ip(B2), true);
        n.set_up(ip(B2), ip(A2), true);
        assert!(n.steps_for(Duration::from_secs(5), 20_000), "seed {seed}");
        let p = path(&n, a, B2);
        assert_eq!(p.state, msctp_proto::path::PathState::Active, "seed {seed}");
        assert!(p.probes.trains_sent >= 1, "seed {seed}: {:?}", p.probes);
    }
}
