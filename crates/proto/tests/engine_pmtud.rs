//! Packetization Layer Path MTU Discovery (RFC 8899, section 6.2 for
//! SCTP): probes are HEARTBEATs padded to the probed size (RFC 4820 PAD),
//! the search runs from BASE_PLPMTU (1200) up to `path_mtu`, a black hole
//! (full-size packets lost, no ICMP) falls back to the base and searches
//! again, and a Packet Too Big is a hint a probe validates (section 4.6).
//!
//! The links here drop every packet longer than their MTU and send no
//! ICMP ([`Link::mtu`]).

mod common;

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use common::*;
use msctp_proto::pmtu::{BASE_PLPMTU, PmtuState, SEARCH_STEP};
use msctp_proto::wire::chunk::chunk_type;
use msctp_proto::{AssocId, AssociationConfig, EndpointConfig, PmtudConfig, Time};

const MAX: usize = 1452;
const MSG: usize = 3000;

fn config(port: u16) -> EndpointConfig {
    let mut c = EndpointConfig::new(port);
    c.association = AssociationConfig {
        rto_min: Duration::from_millis(200),
        rto_initial: Duration::from_millis(500),
        path_mtu: MAX,
        pmtud: PmtudConfig {
            // The RFC's smallest PROBE_TIMER (section 5.1.1), to keep the
            // runs short.
            probe_timer: Duration::from_secs(1),
            ..PmtudConfig::on()
        },
        ..Default::default()
    };
    c
}

/// A sends `MSG`-byte messages of the pattern every 20 ms until `stop`;
/// `at` runs actions at given times. Returns the bytes B received, in
/// order.
fn transfer(
    n: &mut Net,
    (a, b): (AssocId, AssocId),
    stop: Time,
    until: Time,
    at: &mut dyn FnMut(&mut Net),
) -> (usize, Vec<u8>) {
    let mut next = n.now;
    let mut sent = 0usize;
    let mut got = Vec::new();
    n.run_with(until, &mut |n| {
        at(n);
        if n.now >= next && n.now < stop {
            next = n.now + Duration::from_millis(20);
            let m = Bytes::from(pattern(sent, MSG));
            if n.a.association_mut(a).unwrap().send(0, 0, m, false).is_ok() {
                sent += MSG;
            }
        }
        while let Some(m) = n.b.association_mut(b).unwrap().recv() {
            got.extend_from_slice(&m.data);
        }
    });
    (sent, got)
}

/// B received exactly the `sent` bytes of the pattern, in order.
fn assert_intact(got: &[u8], sent: usize) {
    assert!(
        got == &pattern(0, sent)[..],
        "{} of {} bytes, not intact",
        got.len(),
        sent
    );
}

/// A's packets with DATA: (time, destination, length, dropped).
fn data_packets(n: &Net) -> Vec<(Time, IpAddr, usize, bool)> {
    n.seen
        .iter()
        .filter(|s| s.from == Side::A && s.chunks.contains(&chunk_type::DATA))
        .map(|s| (s.time, s.dst, s.bytes.len(), s.dropped))
        .collect()
}

/// A's probes: packets with PAD and HEARTBEAT.
fn probes(n: &Net) -> Vec<(Time, usize, bool)> {
    n.seen
        .iter()
        .filter(|s| {
            s.from == Side::A
                && s.chunks.first() == Some(&chunk_type::PAD)
                && s.chunks.contains(&chunk_type::HEARTBEAT)
        })
        .map(|s| (s.time, s.bytes.len(), s.dropped))
        .collect()
}

fn single_path(link_mtu: usize, seed: u64) -> Net {
    let mut n = Net::new(
        config(5000),
        &[ip("10.0.0.1")],
        config(6000),
        &[ip("10.1.0.1")],
        Link::new(Duration::from_millis(10)).mtu(link_mtu),
        seed,
    );
    n.tick = Some(Duration::from_millis(5));
    n
}

/// ```text
///  A                                   B      link: 1300 bytes
///  |-- PAD+HEARTBEAT (1200) ---------->|      BASE
///  |<--------------- HEARTBEAT ACK ----|      -> SEARCHING
///  |-- PAD+HEARTBEAT (1452) --X        |      x3, lost
///  |-- PAD+HEARTBEAT (1324) --X        |      x3, lost
///  |-- PAD+HEARTBEAT (1260) ---------->|      ... and so on to
///  |<--------------- HEARTBEAT ACK ----|      SEARCH_COMPLETE near 1300
///  |-- DATA <= PLPMTU ---------------->|      none lost to the MTU
/// ```
#[test]
fn search_converges_below_the_link_mtu_and_no_data_is_lost() {
    let mut n = single_path(1300, 1);
    let ids = n.connect(Duration::from_secs(2));
    let start = n.now;
    let (sent, got) = transfer(
        &mut n,
        ids,
        start + Duration::from_secs(20),
        start + Duration::from_secs(30),
        &mut |_| {},
    );
    let x = n.a.association(ids.0).unwrap();
    let pm = x.path_mtu(ip("10.1.0.1")).unwrap();
    eprintln!("{pm:?}");
    assert_eq!(pm.state, PmtuState::SearchComplete);
    assert!(pm.mtu <= 1300 && pm.mtu + SEARCH_STEP >= 1300, "{}", pm.mtu);
    let probes = probes(&n);
    let converged = probes.iter().rev().find(|p| !p.2).unwrap().0;
    eprintln!(
        "{} probes, converged {:?} after the association was up",
        probes.len(),
        converged.saturating_since(start)
    );
    // The first probe is the base; every probe is a multiple of 4.
    assert_eq!(probes[0].1, BASE_PLPMTU);
    assert!(probes.iter().all(|p| p.1 % 4 == 0));
    // Data before the first larger probe came back never exceeds the
    // base; no DATA packet was lost to the MTU.
    let data = data_packets(&n);
    let first_large_ack = probes.iter().find(|p| p.1 > BASE_PLPMTU && !p.2).unwrap().0;
    assert!(
        data.iter()
            .filter(|d| d.0 <= first_large_ack)
            .all(|d| d.2 <= BASE_PLPMTU)
    );
    assert!(data.iter().all(|d| !d.3), "a DATA packet was dropped");
    assert!(data.iter().any(|d| d.2 > BASE_PLPMTU));
    assert_eq!(got.len(), sent);
    assert_intact(&got, sent);
}

/// ```text
///  A                                   B
///  |== DATA 1452 =====================>|      search complete at 1452
///  |           link MTU becomes 1280   |
///  |-- DATA 1452 --X                   |      T3-rtx: black hole?
///  |-- PAD+HEARTBEAT (1452) --X        |      x3: black hole
///  |-- PAD+HEARTBEAT (1200) ---------->|      BASE
///  |<--------------- HEARTBEAT ACK ----|      ... search to ~1280
///  |== DATA <= 1280 ==================>|      every message arrives
/// ```
#[test]
fn black_hole_is_found_and_recovered() {
    let mut n = Net::new(
        config(5000),
        &[ip("10.0.0.1")],
        config(6000),
        &[ip("10.1.0.1"), ip("10.2.0.1")],
        Link::new(Duration::from_millis(10)),
        2,
    );
    n.tick = Some(Duration::from_millis(5));
    let ids = n.connect(Duration::from_secs(2));
    let start = n.now;
    let hole = start + Duration::from_secs(8);
    let mut done = false;
    let (sent, got) = transfer(
        &mut n,
        ids,
        start + Duration::from_secs(40),
        start + Duration::from_secs(70),
        &mut |n| {
            if !done && n.now >= hole {
                done = true;
                let (x, y) = (ip("10.0.0.1"), ip("10.1.0.1"));
                n.link_mut(x, y).mtu = Some(1280);
            }
        },
    );
    let x = n.a.association(ids.0).unwrap();
    let pm = x.path_mtu(ip("10.1.0.1")).unwrap();
    eprintln!("{pm:?}");
    assert!(pm.stats.black_holes >= 1);
    assert_eq!(pm.state, PmtuState::SearchComplete);
    assert!(pm.mtu <= 1280 && pm.mtu + SEARCH_STEP >= 1280, "{}", pm.mtu);
    // Before the hole DATA used the full size.
    let data = data_packets(&n);
    assert!(data.iter().any(|d| d.0 < hole && d.2 == MAX));
    // Everything arrived, in order.
    assert_eq!(got.len(), sent);
    assert_intact(&got, sent);
    // At the end, DATA to the primary fits its new MTU.
    let late = start + Duration::from_secs(35);
    assert!(
        data.iter()
            .filter(|d| d.0 > late && d.1 == ip("10.1.0.1"))
            .all(|d| d.2 <= 1280 && !d.3)
    );
}

/// ```text
///  A                      B1 (1452)           B2 (1280)
///  |== DATA =============>|                   |   both paths probed:
///  |-- probes -------------------------------->|   DATA cut to <= 1280
///  |   set_primary(B2): handover               |
///  |== DATA <= 1280 ==========================>|   none dropped
/// ```
#[test]
fn after_a_handover_to_a_smaller_mtu_data_is_smaller_and_nothing_is_lost() {
    let (a1, b1, b2) = (ip("10.0.0.1"), ip("10.1.0.1"), ip("10.2.0.1"));
    let mut n = Net::new(
        config(5000),
        &[a1],
        config(6000),
        &[b1, b2],
        Link::new(Duration::from_millis(10)),
        3,
    );
    n.set_path(a1, b2, Link::new(Duration::from_millis(30)).mtu(1280));
    n.tick = Some(Duration::from_millis(5));
    let ids = n.connect(Duration::from_secs(2));
    let start = n.now;
    let handover = start + Duration::from_secs(15);
    let mut done = false;
    let (sent, got) = transfer(
        &mut n,
        ids,
        start + Duration::from_secs(30),
        start + Duration::from_secs(40),
        &mut |n| {
            if !done && n.now >= handover {
                done = true;
                n.a.association_mut(ids.0).unwrap().set_primary(b2).unwrap();
            }
        },
    );
    let x = n.a.association(ids.0).unwrap();
    let (m1, m2) = (x.path_mtu(b1).unwrap(), x.path_mtu(b2).unwrap());
    eprintln!("{m1:?}\n{m2:?}");
    assert_eq!(m1.mtu, MAX);
    assert!(m2.mtu <= 1280 && m2.mtu + SEARCH_STEP >= 1280, "{}", m2.mtu);
    let data = data_packets(&n);
    let to_b2: Vec<_> = data.iter().filter(|d| d.1 == b2).collect();
    assert!(!to_b2.is_empty());
    assert!(
        to_b2.iter().all(|d| d.2 <= 1280 && !d.3),
        "DATA lost to B2's MTU"
    );
    // Once both paths were probed, DATA to B1 too was cut for B2.
    let probed = start + Duration::from_secs(10);
    assert!(data.iter().filter(|d| d.0 > probed).all(|d| d.2 <= m2.mtu));
    assert_eq!(got.len(), sent);
    assert_intact(&got, sent);
}

/// ```text
///  A                                   B
///  |   search complete at 1452         |
///  |   "PTB 1280" (forged, no probe)   |      not believed:
///  |-- PAD+HEARTBEAT (1452) ---------->|      the PLPMTU is confirmed
///  |<--------------- HEARTBEAT ACK ----|
///  |== DATA 1452 ======================>|
///  |   "PTB 600"                       |      below the base: ignored
/// ```
#[test]
fn a_forged_or_too_small_ptb_is_not_believed_without_a_probe() {
    let mut n = single_path(MAX, 4);
    let ids = n.connect(Duration::from_secs(2));
    let start = n.now;
    let b1 = ip("10.1.0.1");
    let hint = start + Duration::from_secs(5);
    let mut done = false;
    let mut taken = (false, true);
    let (sent, got) = transfer(
        &mut n,
        ids,
        start + Duration::from_secs(10),
        start + Duration::from_secs(15),
        &mut |n| {
            if !done && n.now >= hint {
                done = true;
                let x = n.a.association_mut(ids.0).unwrap();
                assert_eq!(x.path_mtu(b1).unwrap().mtu, MAX);
                taken = (x.on_packet_too_big(b1, 1280), x.on_packet_too_big(b1, 600));
                // Nothing changes before a probe.
                assert_eq!(x.path_mtu(b1).unwrap().mtu, MAX);
            }
        },
    );
    // The 1280 hint was taken (a probe of 1452 confirms), 600 ignored.
    assert_eq!(taken, (true, false));
    let pm = n.a.association(ids.0).unwrap().path_mtu(b1).unwrap();
    assert_eq!((pm.state, pm.mtu), (PmtuState::SearchComplete, MAX));
    assert_eq!((pm.stats.ptb_received, pm.stats.ptb_ignored), (2, 1));
    let confirm = probes(&n).into_iter().find(|p| p.0 >= hint).unwrap();
    assert_eq!((confirm.1, confirm.2), (MAX, false));
    assert!(data_packets(&n).iter().any(|d| d.0 > hint && d.2 == MAX));
    assert_intact(&got, sent);
}

/// A true PTB: the link's MTU drops to 1280 while the path is idle and
/// its router reports every larger packet (a Packet Too Big for each
/// dropped one, as a host's IP_RECVERR error queue gives them): the
/// PLPMTU is confirmed lost in round trips and the hint is probed, then
/// used.
///
/// ```text
///  A                                   B
///  |   search complete at 1452, idle   |
///  |-- PAD+HEARTBEAT (1452) --X  PTB 1280 (x3: black hole)
///  |-- PAD+HEARTBEAT (1200) ---------->|      BASE
///  |-- PAD+HEARTBEAT (1280) ---------->|      the hint, acknowledged
///  |== DATA <= 1280 ==================>|
/// ```
#[test]
fn a_true_ptb_is_validated_by_a_probe_and_used() {
    let mut n = single_path(MAX, 5);
    let ids = n.connect(Duration::from_secs(2));
    let start = n.now;
    let b1 = ip("10.1.0.1");
    let (sent, got) = transfer(
        &mut n,
        ids,
        start + Duration::from_secs(4),
        start + Duration::from_secs(5),
        &mut |_| {},
    );
    assert!(got == pattern(0, sent));
    assert_eq!(
        n.a.association(ids.0).unwrap().path_mtu(b1).unwrap().mtu,
        MAX
    );
    let change = n.now;
    n.link_mut(ip("10.0.0.1"), b1).mtu = Some(1280);
    assert!(
        n.a.association_mut(ids.0)
            .unwrap()
            .on_packet_too_big(b1, 1280)
    );
    let mut reported = n.seen.len();
    let (sent, got) = transfer(
        &mut n,
        ids,
        change + Duration::from_secs(10),
        change + Duration::from_secs(12),
        &mut |n| {
            // The router: a PTB for each packet dropped for its size.
            let drops: Vec<_> = n.seen[reported..]
                .iter()
                .filter(|s| s.from == Side::A && s.dropped && s.bytes.len() > 1280)
                .map(|s| s.dst)
                .collect();
            reported = n.seen.len();
            for d in drops {
                n.a.association_mut(ids.0)
                    .unwrap()
                    .on_packet_too_big(d, 1280);
            }
        },
    );
    let pm = n.a.association(ids.0).unwrap().path_mtu(b1).unwrap();
    eprintln!("{pm:?}");
    assert_eq!((pm.state, pm.mtu), (PmtuState::SearchComplete, 1280));
    let acked = probes(&n)
        .into_iter()
        .filter(|p| p.0 >= change && !p.2 && p.1 == 1280)
        .map(|p| p.0)
        .next()
        .expect("the hint was probed");
    eprintln!(
        "hint validated {:?} after the change",
        acked.saturating_since(change)
    );
    assert!(acked.saturating_since(change) < Duration::from_millis(500));
    assert!(got == pattern(0, sent), "{} of {} bytes", got.len(), sent);
    assert!(
        data_packets(&n)
            .iter()
            .filter(|d| d.0 > change)
            .all(|d| d.2 <= 1280 && !d.3)
    );
}

/// Off (the default): no probe, DATA at `path_mtu` from the start.
#[test]
fn off_by_default_no_probes() {
    assert!(!AssociationConfig::default().pmtud.enabled);
    let mut cfg = config(5000);
    cfg.association.pmtud = PmtudConfig::default();
    let mut cfg_b = config(6000);
    cfg_b.association.pmtud = PmtudConfig::default();
    let mut n = Net::new(
        cfg,
        &[ip("10.0.0.1")],
        cfg_b,
        &[ip("10.1.0.1")],
        Link::new(Duration::from_millis(10)),
        6,
    );
    n.tick = Some(Duration::from_millis(5));
    let ids = n.connect(Duration::from_secs(2));
    let start = n.now;
    let (sent, got) = transfer(
        &mut n,
        ids,
        start + Duration::from_secs(2),
        start + Duration::from_secs(4),
        &mut |_| {},
    );
    assert!(probes(&n).is_empty());
    assert_eq!(data_packets(&n).iter().map(|d| d.2).max(), Some(MAX));
    assert_intact(&got, sent);
}

/// The single-homed move (MN1 -> MN2) in the middle of the search: the
/// next probe's only source is MN2, which B does not know until the
/// ASCONF has added it (RFC 5061 section 5.3, rule F1), so it waits for
/// the ASCONF-ACK.
///
/// ```text
///  A (MN1 -> MN2, searching)                    B
///  add MN2, delete MN1
///  (no probe: its only source is MN2, not yet added)
///  MN2  ASCONF [Add MN2, Delete MN1] ----------->
///       <------------------------------ ASCONF-ACK
///  MN2  PAD+HEARTBEAT ------------------------->   the search goes on
/// ```
///
/// A probe from MN2 before the ASCONF reached B as out of the blue and
/// drew an ABORT with the T bit: with PLPMTUD on, netns_single_radio and
/// `msctp soak` lost single-radio associations.
#[test]
fn no_probe_leaves_a_new_address_before_its_asconf_is_acknowledged() {
    let (m1, m2, cn) = (ip("10.1.0.2"), ip("10.2.0.2"), ip("10.9.0.1"));
    let mut n = Net::new(
        config(5000),
        &[m1, m2],
        config(6000),
        &[cn],
        Link::new(Duration::from_millis(10)).mtu(1400),
        41,
    );
    n.a.set_local_addresses(&[m1]);
    n.tick = Some(Duration::from_millis(1));
    let (a, b) = n.connect(Duration::from_secs(2));
    // Into the search: a probe is answered and the next leaves at once.
    let searching = |n: &Net| {
        n.a.association(a)
            .and_then(|x| x.path_mtu(cn))
            .is_some_and(|p| p.state == PmtuState::Searching)
    };
    let end = n.now + Duration::from_secs(2);
    while !searching(&n) && n.now < end {
        n.run_for(Duration::from_millis(1));
    }
    assert!(searching(&n), "the search started");
    n.record = true;
    n.seen.clear();
    let x = n.a.association_mut(a).unwrap();
    x.add_local_address(m2).unwrap();
    x.remove_local_address(m1).unwrap();
    n.run_for(Duration::from_secs(5));

    let from_a: Vec<&Seen> = n.seen.iter().filter(|s| s.from == Side::A).collect();
    let first = from_a.first().expect("A sent nothing after the move");
    assert!(
        first.chunks.contains(&chunk_type::ASCONF),
        "first packet: {first:?}"
    );
    let ack_at = n
        .seen
        .iter()
        .find(|s| s.from == Side::B && s.chunks.contains(&chunk_type::ASCONF_ACK))
        .expect("an ASCONF-ACK")
        .time;
    let early: Vec<_> = probes(&n)
        .into_iter()
        .filter(|(t, _, _)| *t <= ack_at)
        .collect();
    assert!(early.is_empty(), "probes before the ASCONF-ACK: {early:?}");
    assert!(!probes(&n).is_empty(), "the search went on after the move");
    assert!(
        !n.seen
            .iter()
            .any(|s| s.from == Side::B && s.chunks.contains(&chunk_type::ABORT)),
        "B aborted"
    );
    assert!(n.b.association(b).unwrap().state().is_established());
}
