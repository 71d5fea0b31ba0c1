//! The path estimators end to end, over in-memory links of known rate:
//! packet-pair capacity by receiver-timed PROBE trains (in place of
//! heartbeats, echoed by the peer; `capacity_method = "probe_echo"`), Westwood+ available bandwidth, and the policies they feed
//! (AISLE, the bandwidth-aware start from the estimate).
//!
//! Topology: A (sender) and B, both dual-homed; only matching pairs are
//! links:
//!
//! ```text
//!   A1 10.1.0.2 ---- R1, 10 ms ---> B1 10.1.0.1
//!   A2 10.2.0.2 ---- R2, 30 ms ---> B2 10.2.0.1
//! ```
//!
//! (the return directions have the same delay and no rate limit).

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::*;
use msctp_proto::estimate::CapacityMethod;
use msctp_proto::policy::{self, Aisle, AisleParams, AisleRule, Decision, HandoverPolicy};
use msctp_proto::wire::chunk::chunk_type;
use msctp_proto::wire::{Chunk, Packet};
use msctp_proto::{AssocId, EndpointConfig, EstimatorConfig, Time};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

use common::two_paths::{self, A1, A2, B1, B2, connect};

fn cfg(port: u16, estimators: bool) -> EndpointConfig {
    let mut c = EndpointConfig::new(port);
    let a = &mut c.association;
    a.rto_min = Duration::from_millis(50);
    a.rto_initial = Duration::from_millis(500);
    a.heartbeat_interval = Some(Duration::from_secs(1));
    a.sack_delay = Some(Duration::from_millis(20));
    if estimators {
        // The receiver-timed PROBE trains (SBPP, the default, is in
        // engine_sbpp.rs).
        a.estimators = EstimatorConfig {
            capacity_method: CapacityMethod::ProbeEcho,
            ..EstimatorConfig::on()
        };
    }
    c
}

/// The two-path network (`common::two_paths`), both ends with or without
/// the estimators.
fn net(r1: u64, r2: u64, seed: u64, estimators: bool) -> Net {
    let (a, b) = (cfg(5000, estimators), cfg(6000, estimators));
    two_paths::net(a, b, r1, r2, seed)
}

fn capacity(n: &Net, a: AssocId, peer: &str) -> Option<u64> {
    n.a.association(a)?.path_stats(ip(peer))?.capacity_bps
}

fn within(x: u64, want: u64, frac: f64) -> bool {
    (x as f64 - want as f64).abs() <= frac * want as f64
}

/// The probes A sent: (time, train, seq, packet length, destination).
fn probes_sent(n: &Net) -> Vec<(Time, u32, u8, usize, std::net::IpAddr)> {
    let mut v = Vec::new();
    for s in n.seen.iter().filter(|s| s.from == Side::A) {
        let Ok(p) = Packet::new_checked(&s.bytes[..]) else {
            continue;
        };
        for (r, _) in p.chunks().flatten() {
            if let Ok(Chunk::Probe(c)) = Chunk::parse(&s.bytes.slice(r)) {
                v.push((s.time, c.train, c.seq, s.bytes.len(), s.dst));
            }
        }
    }
    v
}

#[test]
fn packet_pair_measures_each_path_rate_within_5_percent() {
    let (r1, r2) = (2_000_000, 5_000_000);
    let mut n = net(r1, r2, 1, true);
    let (a, _) = connect(&mut n);
    n.run_for(Duration::from_secs(10));
    let c1 = capacity(&n, a, B1).expect("a capacity for path 1");
    let c2 = capacity(&n, a, B2).expect("a capacity for path 2");
    eprintln!("capacity: path 1 {c1} bit/s (link {r1}), path 2 {c2} bit/s (link {r2})");
    assert!(within(c1, r1, 0.05), "path 1: {c1} for {r1}");
    assert!(within(c2, r2, 0.05), "path 2: {c2} for {r2}");
    // Trains went in place of heartbeats, each a 6-packet train of two
    // small, two full-MTU, two small packets sent back to back.
    let x = n.a.association(a).unwrap();
    let s1 = x.path_stats(ip(B1)).unwrap();
    assert!(s1.probes.trains_sent >= 5, "{:?}", s1.probes);
    assert_eq!(s1.probes.samples, s1.probes.trains_sent, "{:?}", s1.probes);
    // Five first trains, then one per heartbeat, which rides in the
    // first probe packet and is still answered.
    assert!(s1.counters.heartbeat_acks_received + 5 >= s1.probes.trains_sent);
    let sent = probes_sent(&n);
    let first = sent[0].1;
    let train: Vec<_> = sent.iter().filter(|p| p.1 == first).collect();
    assert_eq!(train.len(), 6);
    assert!(train.iter().all(|p| p.0 == train[0].0), "back to back");
    let sizes: Vec<usize> = train.iter().map(|p| p.3).collect();
    assert!(sizes[2] == 1452 && sizes[3] == 1452, "{sizes:?}");
    assert!(sizes[0] < 100 && sizes[1] < 100 && sizes[4] < 100 && sizes[5] < 100);
    // The echo came back authenticated (AUTH is on by default).
    let echoes: Vec<&Seen> = n
        .seen
        .iter()
        .filter(|s| s.from == Side::B && s.chunks.contains(&chunk_type::PROBE_ECHO))
        .collect();
    assert!(!echoes.is_empty());
    assert!(
        echoes
            .iter()
            .all(|s| s.chunks.first() == Some(&chunk_type::AUTH))
    );
}

/// A: polls that find nothing to send do not move the first trains.
/// Two runs of one seed, the second polling both endpoints every
/// millisecond besides (each poll fruitless unless something is due):
/// the trains leave at the same instants in both, so a driver's results
/// do not depend on how often it polls (`Endpoint::idle_poll_is_pure`).
#[test]
fn packet_pair_first_trains_do_not_depend_on_how_often_a_driver_polls() {
    let trains = |extra_polls: bool| {
        let mut n = net(2_000_000, 5_000_000, 7, true);
        if extra_polls {
            n.tick = Some(Duration::from_millis(1));
        }
        connect(&mut n);
        n.run_for(Duration::from_secs(6));
        let mut starts: Vec<(Time, u32)> = probes_sent(&n)
            .into_iter()
            .filter(|p| p.2 == 0)
            .map(|p| (p.0, p.1))
            .collect();
        starts.dedup();
        starts
    };
    let quiet = trains(false);
    let busy = trains(true);
    // Five first trains on each of the two paths.
    assert!(quiet.len() >= 10, "{quiet:?}");
    assert_eq!(quiet, busy);
}

/// A path the peer adds (ADD-IP) after every path has had its first
/// trains gets five of its own, one RTO apart, not only the one a
/// heartbeat brings each interval, and its capacity is learnt.
#[test]
fn packet_pair_a_path_added_after_the_first_trains_gets_its_own() {
    const B3: &str = "10.3.0.1";
    let mut n = net(2_000_000, 5_000_000, 3, true);
    let (a, b) = connect(&mut n);
    n.run_for(Duration::from_secs(6));
    let x = n.a.association(a).unwrap();
    assert!(x.path_stats(ip(B1)).unwrap().probes.trains_sent >= 5);
    assert!(x.path_stats(ip(B2)).unwrap().probes.trains_sent >= 5);

    // B gains a third address, reached from A1 over a 3 Mbit/s link.
    n.b_addrs.push(ip(B3));
    let addrs = n.b_addrs.clone();
    n.b.set_local_addresses(&addrs);
    n.set_link(
        ip(A1),
        ip(B3),
        Link::new(Duration::from_millis(10)).rate(3_000_000, 100),
    );
    n.b.association_mut(b)
        .unwrap()
        .add_local_address(ip(B3))
        .unwrap();
    let added_at = n.now;
    n.run_for(Duration::from_secs(4));

    let starts: Vec<Time> = probes_sent(&n)
        .into_iter()
        .filter(|p| p.0 >= added_at && p.2 == 0 && p.4 == ip(B3))
        .map(|p| p.0)
        .collect();
    // Heartbeats (every 1 s, +-50 %) would bring at most two trains in
    // a second; the first trains are 50 to 150 ms apart.
    let first = *starts.first().expect("no train to the added path");
    let within_a_second = starts
        .iter()
        .filter(|t| **t <= first + Duration::from_secs(1))
        .count();
    assert!(within_a_second >= 5, "train starts to B3: {starts:?}");
    let c3 = capacity(&n, a, B3).expect("a capacity for the added path");
    assert!(within(c3, 3_000_000, 0.05), "added path: {c3}");
}

#[test]
fn packet_pair_discards_lossy_and_reordered_trains() {
    let (r1, r2) = (3_000_000, 1_000_000);
    let mut n = net(r1, r2, 2, true);
    // Path 1 loses the second large probe of every other train; path 2
    // reorders a third of its packets by 5 ms (several probe spacings).
    let mut count = 0u32;
    n.filter = Some(Box::new(move |from, _src, dst, data| {
        if from != Side::A || dst != ip(B1) {
            return Verdict::Pass;
        }
        let b = Bytes::copy_from_slice(data);
        let Ok(p) = Packet::new_checked(&b[..]) else {
            return Verdict::Pass;
        };
        for (r, _) in p.chunks().flatten() {
            if let Ok(Chunk::Probe(c)) = Chunk::parse(&b.slice(r))
                && c.seq == 3
            {
                count += 1;
                if count.is_multiple_of(2) {
                    return Verdict::Drop;
                }
            }
        }
        Verdict::Pass
    }));
    {
        let l = n.link_mut(ip(A2), ip(B2));
        l.reorder = 0.33;
        l.reorder_delay = Duration::from_millis(5);
    }
    let (a, _) = connect(&mut n);
    n.run_for(Duration::from_secs(20));
    let x = n.a.association(a).unwrap();
    let p1 = x.path_stats(ip(B1)).unwrap();
    let p2 = x.path_stats(ip(B2)).unwrap();
    eprintln!("path 1 {:?} -> {:?}", p1.probes, p1.capacity_bps);
    eprintln!("path 2 {:?} -> {:?}", p2.probes, p2.capacity_bps);
    assert!(p1.probes.discarded >= p1.probes.trains_sent / 2 - 1);
    assert!(
        p2.probes.discarded >= 3,
        "reordered trains: {:?}",
        p2.probes
    );
    // What was kept is still right.
    assert!(within(p1.capacity_bps.unwrap(), r1, 0.05), "{p1:?}");
    assert!(within(p2.capacity_bps.unwrap(), r2, 0.05), "{p2:?}");
}

#[test]
fn packet_pair_echo_without_auth_is_discarded() {
    // An echo stripped of its AUTH chunk (as a forger without the key
    // would send it) must not steer the estimate.
    let mut n = net(2_000_000, 1_000_000, 12, true);
    n.filter = Some(Box::new(|from, _s, _d, data| {
        if from != Side::B || data.len() < 16 || data[12] != chunk_type::AUTH {
            return Verdict::Pass;
        }
        let auth_len = usize::from(u16::from_be_bytes([data[14], data[15]])).div_ceil(4) * 4;
        if data.get(12 + auth_len) == Some(&chunk_type::PROBE_ECHO) {
            data.drain(12..12 + auth_len);
            msctp_proto::wire::crc::fill(data);
        }
        Verdict::Pass
    }));
    let (a, _) = connect(&mut n);
    n.run_for(Duration::from_secs(5));
    let x = n.a.association(a).unwrap();
    assert_eq!(capacity(&n, a, B1), None);
    assert!(x.stats().auth_failures >= 3, "{:?}", x.stats());
}

#[test]
fn packet_pair_large_probe_filler_rides_in_a_pad_chunk_outside_the_hmac() {
    // With AUTH on, a large probe is [PAD][AUTH][PROBE]: the PAD chunk
    // (RFC 4820) makes the packet a full MTU and sits before the AUTH
    // chunk, so the HMAC (RFC 4895 6.2) covers only the 12-byte PROBE.
    // B rewrites nothing; the network flips a byte inside every PAD (still
    // accepted: it is filler) and, in every fourth large probe, a byte of
    // the PROBE after the AUTH chunk (rejected: authenticated).
    let mut n = net(2_000_000, 1_000_000, 5, true);
    let mut large = 0u32;
    n.filter = Some(Box::new(move |from, _s, _d, data| {
        if from != Side::A || data.len() < 1000 || data[12] != chunk_type::PAD {
            return Verdict::Pass;
        }
        let pad_len = usize::from(u16::from_be_bytes([data[14], data[15]]));
        data[16 + pad_len / 2] ^= 0xff;
        large += 1;
        if large.is_multiple_of(4) {
            let auth_len = usize::from(u16::from_be_bytes([
                data[12 + pad_len + 2],
                data[12 + pad_len + 3],
            ]))
            .div_ceil(4)
                * 4;
            // The PROBE's train id.
            data[12 + pad_len + auth_len + 4] ^= 0x01;
        }
        msctp_proto::wire::crc::fill(data);
        Verdict::Pass
    }));
    let (a, b) = connect(&mut n);
    n.run_for(Duration::from_secs(10));
    let large_probes: Vec<&Seen> = n
        .seen
        .iter()
        .filter(|s| {
            s.from == Side::A && s.chunks.contains(&chunk_type::PROBE) && s.bytes.len() > 1000
        })
        .collect();
    assert!(large_probes.len() >= 10, "{}", large_probes.len());
    for s in &large_probes {
        assert_eq!(
            s.chunks,
            [chunk_type::PAD, chunk_type::AUTH, chunk_type::PROBE]
        );
        assert_eq!(s.bytes.len(), 1452, "still a full MTU");
    }
    let x = n.a.association(a).unwrap();
    let p1 = x.path_stats(ip(B1)).unwrap();
    assert!(within(p1.capacity_bps.unwrap(), 2_000_000, 0.05), "{p1:?}");
    let y = n.b.association(b).unwrap().stats();
    // The PAD is not an unknown chunk, and only the tampered PROBEs failed.
    assert_eq!(y.unknown_chunks, 0, "{y:?}");
    let tampered = large_probes.len() as u64 / 4;
    assert!(y.auth_failures >= tampered, "{y:?}");
    assert!(p1.probes.discarded >= 1, "{:?}", p1.probes);
}

#[test]
fn packet_pair_stays_off_without_the_switch_or_the_peers_support() {
    // Off on both sides: no probe on the wire, nothing estimated.
    let mut n = net(2_000_000, 1_000_000, 3, false);
    let (a, _) = connect(&mut n);
    n.run_for(Duration::from_secs(5));
    assert!(probes_sent(&n).is_empty());
    assert_eq!(capacity(&n, a, B1), None);
    // On at A only: B does not announce support, A sends no train.
    let mut n = Net::new(
        cfg(5000, true),
        &[ip(A1)],
        cfg(6000, false),
        &[ip(B1)],
        Link::new(Duration::from_millis(10)).rate(2_000_000, 100),
        3,
    );
    let (a, _) = n.connect(Duration::from_secs(2));
    n.run_for(Duration::from_secs(5));
    let x = n.a.association_mut(a).unwrap();
    assert!(!x.peer_supports_probes());
    assert!(x.probe_capacity(n.now, ip(B1)).is_err());
    assert!(probes_sent(&n).is_empty());
}

#[test]
fn packet_pair_on_request_and_to_a_peer_that_skips_probes() {
    // A sends trains to a peer that did not announce them (the usrsctp
    // case): B's engine, estimators off, skips the chunks silently and
    // answers the heartbeat carried in the first probe packet.
    let mut ca = cfg(5000, true);
    ca.association.estimators.probe_unannounced = true;
    let mut n = Net::new(
        ca,
        &[ip(A1)],
        cfg(6000, false),
        &[ip(B1)],
        Link::new(Duration::from_millis(10)).rate(2_000_000, 100),
        4,
    );
    let (a, b) = n.connect(Duration::from_secs(2));
    n.run_for(Duration::from_secs(3));
    let now = n.now;
    n.a.association_mut(a)
        .unwrap()
        .probe_capacity(now, ip(B1))
        .unwrap();
    n.run_for(Duration::from_secs(3));
    let sent = probes_sent(&n);
    assert!(sent.len() >= 12, "{} probes", sent.len());
    let x = n.a.association(a).unwrap();
    let s = x.path_stats(ip(B1)).unwrap();
    assert_eq!(s.capacity_bps, None, "no echo, no estimate");
    assert!(s.counters.heartbeat_acks_received >= 2, "{s:?}");
    let y = n.b.association(b).unwrap();
    assert!(y.stats().unknown_chunks >= sent.len() as u64);
    assert!(
        !n.seen
            .iter()
            .any(|p| p.from == Side::B && p.chunks.contains(&chunk_type::ERROR)),
        "skipped without an ERROR report"
    );
}

/// Reads whatever B has received.
fn drain(n: &mut Net) {
    for id in n.b.associations() {
        if let Some(y) = n.b.association_mut(id) {
            while y.recv().is_some() {}
        }
    }
}

/// A bulk transfer of `bytes` from A over path 1, B reading; true when
/// everything was acknowledged within `limit`.
fn bulk(n: &mut Net, a: AssocId, bytes: usize, limit: Duration) -> bool {
    let mut sent = 0usize;
    let end = n.now + limit;
    let mut done = false;
    n.run_with(end, &mut |n| {
        drain(n);
        let x = n.a.association_mut(a).unwrap();
        while sent < bytes {
            let k = 1400.min(bytes - sent);
            match x.send(0, 0, Bytes::from(pattern(sent, k)), false) {
                Ok(()) => sent += k,
                Err(_) => break,
            }
        }
        done |= sent == bytes && x.send_buffered() == 0;
    });
    done
}

#[test]
fn westwood_estimates_the_bottleneck_of_a_bulk_transfer() {
    let r1 = 4_000_000;
    let mut n = net(r1, 1_000_000, 5, true);
    let (a, _) = connect(&mut n);
    assert!(bulk(&mut n, a, 3_000_000, Duration::from_secs(20)));
    let s = n.a.association(a).unwrap().path_stats(ip(B1)).unwrap();
    let b = s.available_bps.unwrap();
    // DATA payload: 1424 of the 1452 bytes of a full packet.
    let want = r1 * 1424 / 1452;
    eprintln!(
        "Westwood+: {b} bit/s of payload over a {r1} bit/s link ({want} payload), {} samples",
        s.available_samples
    );
    assert!(within(b, want, 0.10), "{b} for {want}");
    assert!(s.available_samples > 20, "one sample per RTT (above 50 ms)");
    // The idle alternate has none.
    let s2 = n.a.association(a).unwrap().path_stats(ip(B2)).unwrap();
    assert_eq!(s2.available_bps, None);
}

/// One AISLE run: estimates first, then a transfer on path 1 that loses
/// one DATA packet (a fast retransmit: congestion on the primary). Returns
/// the decision AISLE took on that first congestion event, and the
/// association's data destination afterwards.
fn aisle_run(seed: u64, rule: AisleRule) -> (Vec<Decision>, Option<std::net::IpAddr>) {
    let mut n = net(2_000_000, 1_000_000, seed, true);
    n.record = false;
    let (a, _) = connect(&mut n);
    n.run_for(Duration::from_secs(3));
    let mut data_packets = 0u32;
    n.filter = Some(Box::new(move |from, _s, dst, data| {
        if from == Side::A && dst == ip(B1) && data.get(12) == Some(&chunk_type::DATA) {
            data_packets += 1;
            if data_packets == 30 {
                return Verdict::Drop;
            }
        }
        Verdict::Pass
    }));
    let params = AisleParams {
        rule,
        ..AisleParams::default()
    };
    let mut p = Aisle::new(params, ChaCha8Rng::seed_from_u64(seed));
    let mut first: Option<Vec<Decision>> = None;
    let mut sent = 0usize;
    let end = n.now + Duration::from_secs(5);
    n.run_with(end, &mut |n| {
        drain(n);
        let now = n.now;
        let x = n.a.association_mut(a).unwrap();
        while sent < 300_000 && x.send(0, 0, Bytes::from(vec![7u8; 1400]), false).is_ok() {
            sent += 1400;
        }
        if first.is_none() {
            let d = p.poll(now, x);
            if p.stats.congestion_events > 0 {
                policy::apply(x, &d);
                first = Some(d);
            }
        }
    });
    let dest = n.a.association(a).unwrap().data_destination();
    (first.expect("a congestion event"), dest)
}

/// The first congestion event of each run, path 2 never having carried
/// data (B2 unknown): the paper's Steps 1-2 swap with p_s² (two draws),
/// the single-draw variant with p_s; p_s = C2 / (C1 + C2) = 1/3 from the
/// engine's own capacity estimates.
#[test]
fn aisle_swap_probability_matches_capacity_share() {
    let runs = 300u64;
    let p = 1.0 / 3.0;
    for (rule, expect) in [(AisleRule::Paper, p * p), (AisleRule::SingleDraw, p)] {
        let mut swaps = 0u64;
        for seed in 0..runs {
            let (d, dest) = aisle_run(seed, rule);
            match d.as_slice() {
                [] => assert_eq!(dest, Some(ip(B1))),
                [Decision::UsePath(x)] => {
                    assert_eq!(*x, ip(B2));
                    assert_eq!(dest, Some(ip(B2)), "the data moved");
                    swaps += 1;
                }
                other => panic!("{other:?}"),
            }
        }
        let sd = (runs as f64 * expect * (1.0 - expect)).sqrt();
        let dev = (swaps as f64 - runs as f64 * expect).abs() / sd;
        eprintln!(
            "AISLE {rule:?}: {swaps} swaps in {runs} congestion events, expected {:.0} ({dev:.2} sd off)",
            runs as f64 * expect
        );
        // Three standard deviations; p_s against p_s² is 7 apart here.
        assert!(dev <= 3.0, "{rule:?}: {dev:.2} sd");
    }
}

#[test]
fn aisle_hold_down_keeps_the_data_after_a_swap() {
    let mut n = net(2_000_000, 1_000_000, 11, true);
    n.record = false;
    let (a, _) = connect(&mut n);
    n.run_for(Duration::from_secs(3));
    // Every 40th DATA packet is lost, on either path.
    let mut k = 0u32;
    n.filter = Some(Box::new(move |from, _s, _d, data| {
        if from == Side::A && data.get(12) == Some(&chunk_type::DATA) {
            k += 1;
            if k.is_multiple_of(40) {
                return Verdict::Drop;
            }
        }
        Verdict::Pass
    }));
    let mut p = Aisle::new(
        AisleParams {
            hold_down: Duration::from_secs(30),
            ..Default::default()
        },
        ChaCha8Rng::seed_from_u64(7),
    );
    let mut swaps: Vec<Time> = Vec::new();
    let end = n.now + Duration::from_secs(25);
    n.run_with(end, &mut |n| {
        drain(n);
        let now = n.now;
        let x = n.a.association_mut(a).unwrap();
        while x.send(0, 0, Bytes::from(vec![7u8; 1400]), false).is_ok() {}
        let d = p.poll(now, x);
        if !d.is_empty() {
            swaps.push(now);
            policy::apply(x, &d);
        }
    });
    eprintln!(
        "hold-down: {:?} over {} congestion events ({} held down)",
        swaps, p.stats.congestion_events, p.stats.held_down
    );
    assert!(p.stats.congestion_events >= 10, "{:?}", p.stats);
    assert_eq!(swaps.len(), 1, "one swap in 25 s with Th = 30 s");
    assert!(p.stats.held_down >= 5, "{:?}", p.stats);
}

#[test]
fn bandwidth_aware_start_uses_the_packet_pair_estimate() {
    let r2 = 1_000_000;
    let mut n = net(8_000_000, r2, 9, true);
    let (a, _) = connect(&mut n);
    n.run_for(Duration::from_secs(4));
    let x = n.a.association_mut(a).unwrap();
    let s2 = x.path_stats(ip(B2)).unwrap();
    let (c2, srtt) = (s2.capacity_bps.unwrap(), s2.srtt.unwrap());
    let cwnd = x.start_from_capacity_estimate(ip(B2)).unwrap().unwrap();
    let bdp = c2 as f64 / 8.0 * srtt.as_secs_f64();
    eprintln!("path 2: C {c2} bit/s x SRTT {srtt:?} = {bdp:.0} bytes -> cwnd {cwnd}");
    assert!((cwnd as f64 - bdp.max(4380.0)).abs() < 2.0);
    let s2 = x.path_stats(ip(B2)).unwrap();
    assert_eq!(s2.ssthresh, s2.cwnd, "continues in congestion avoidance");
    assert!(x.start_from_capacity_estimate(ip("10.9.9.9")).is_err());
}

#[test]
fn bandwidth_aware_start_on_a_primary_change_when_configured() {
    let mut n = net(8_000_000, 1_000_000, 10, true);
    let (a, _) = connect(&mut n);
    n.run_for(Duration::from_secs(4));
    let x = n.a.association_mut(a).unwrap();
    let before = x.path_stats(ip(B2)).unwrap().cwnd;
    // Off: a primary change leaves the window alone.
    x.set_primary(ip(B2)).unwrap();
    assert_eq!(x.path_stats(ip(B2)).unwrap().cwnd, before);
    x.set_primary(ip(B1)).unwrap();
    let mut n = net(8_000_000, 1_000_000, 10, true);
    let mut c = cfg(5000, true);
    c.association.estimators.bandwidth_aware_start = true;
    n.a = msctp_proto::Endpoint::new(c, [3; 32]).unwrap();
    n.a.set_local_addresses(&[ip(A1), ip(A2)]);
    let (a, _) = connect(&mut n);
    n.run_for(Duration::from_secs(4));
    let x = n.a.association_mut(a).unwrap();
    let s2 = x.path_stats(ip(B2)).unwrap();
    let bdp = s2.capacity_bps.unwrap() as f64 / 8.0 * s2.srtt.unwrap().as_secs_f64();
    x.set_primary(ip(B2)).unwrap();
    let after = x.path_stats(ip(B2)).unwrap().cwnd;
    assert!((after as f64 - bdp).abs() < 2.0, "{after} for {bdp:.0}");
}

/// A capacity given by the application (an oracle standing in for the
/// packet-pair estimate, to isolate the estimator's part in AISLE's
/// decisions) is what the path statistics report until it is taken
/// back; then the estimate shows again.
#[test]
fn a_given_capacity_replaces_the_packet_pair_estimate_until_withdrawn() {
    let (r1, r2) = (2_000_000, 5_000_000);
    let mut n = net(r1, r2, 1, true);
    let (a, _) = connect(&mut n);
    n.run_for(Duration::from_secs(10));
    let measured = capacity(&n, a, B1).expect("a packet-pair estimate");
    let x = n.a.association_mut(a).unwrap();
    x.set_path_capacity(ip(B1), Some(54_000_000)).unwrap();
    assert_eq!(capacity(&n, a, B1), Some(54_000_000));
    assert!(
        within(capacity(&n, a, B2).unwrap(), r2, 0.05),
        "path 2 keeps its estimate"
    );
    let x = n.a.association_mut(a).unwrap();
    assert!(
        x.set_path_capacity(ip("10.9.9.9"), Some(1)).is_err(),
        "unknown path"
    );
    x.set_path_capacity(ip(B1), None).unwrap();
    assert_eq!(capacity(&n, a, B1), Some(measured));
}

/// The window limit from the estimate (`estimators.window_limit`): a
/// bulk transfer over a 4 Mbit/s link whose queue holds 200 packets
/// (580 ms) keeps about the allowance queued instead of filling the
/// queue (its smoothed RTT stays near the base RTT of 20 ms, where
/// RFC 9260's window fills the queue); the path data then moves to
/// starts at its own limit, C2 x (base RTT + allowance).
#[test]
fn window_limit_keeps_the_queue_near_the_allowance_and_starts_the_new_path_there() {
    let run = |limit: Option<Duration>| {
        let mut n = net(4_000_000, 1_000_000, 11, true);
        let mut c = cfg(5000, true);
        c.association.estimators.window_limit = limit;
        c.association.estimators.bandwidth_aware_start = true;
        n.a = msctp_proto::Endpoint::new(c, [3; 32]).unwrap();
        n.a.set_local_addresses(&[ip(A1), ip(A2)]);
        let (a, _) = connect(&mut n);
        n.run_for(Duration::from_secs(4));
        // Six seconds of a transfer that cannot finish in them.
        assert!(!bulk(&mut n, a, 100_000_000, Duration::from_secs(6)));
        let x = n.a.association_mut(a).unwrap();
        let s1 = x.path_stats(ip(B1)).unwrap();
        x.set_primary(ip(B2)).unwrap();
        let s2 = x.path_stats(ip(B2)).unwrap();
        (s1, s2)
    };
    let (free, _) = run(None);
    let q = Duration::from_millis(5);
    let (held, s2) = run(Some(q));
    eprintln!(
        "path 1 SRTT {:?} (cwnd {}, {} bytes acked) without the limit, {:?} (cwnd {}, {} bytes acked) with it; path 2 starts at {} (C2 {:?}, SRTT {:?})",
        free.srtt,
        free.cwnd,
        free.counters.bytes_acked,
        held.srtt,
        held.cwnd,
        held.counters.bytes_acked,
        s2.cwnd,
        s2.capacity_bps,
        s2.srtt
    );
    let c1 = held.capacity_bps.unwrap() as f64 / 8.0;
    assert!(free.srtt.unwrap() > Duration::from_millis(100));
    assert!(held.srtt.unwrap() < Duration::from_millis(35));
    assert!(f64::from(held.cwnd) <= c1 * (held.srtt.unwrap() + q).as_secs_f64() + 1.0);
    // The link stays busy: as much arrives with the limit.
    assert!(held.counters.bytes_acked as f64 >= free.counters.bytes_acked as f64 * 0.97);
    // Path 2 (base RTT 60 ms) starts at its limit, in congestion avoidance.
    let c2 = s2.capacity_bps.unwrap() as f64 / 8.0;
    let (lo, hi) = (
        c2 * (Duration::from_millis(60) + q).as_secs_f64(),
        c2 * (s2.srtt.unwrap() + q).as_secs_f64(),
    );
    assert!(
        f64::from(s2.cwnd) >= lo * 0.95 && f64::from(s2.cwnd) <= hi + 1.0,
        "{} not in [{lo:.0}, {hi:.0}]",
        s2.cwnd
    );
    assert_eq!(s2.ssthresh, s2.cwnd);
}
