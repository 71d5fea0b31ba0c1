//! Issue 31 finding 3: a peer address added by ASCONF is verified by a
//! HEARTBEAT with a nonce (RFC 9260 section 5.4) before DATA goes there,
//! even when the authenticated ASCONF came from that very address. A
//! malicious peer holds the AUTH key, so AUTH proves nothing about the
//! packet's IP source; only an answer to a nonce sent to the address does.
//!
//! Mobile / attacker A (10.1.0.2), correspondent B (10.9.0.1), victim V
//! (198.51.100.7: no SCTP endpoint, whatever reaches it is recorded in
//! `Net::stray`).

mod common;

use std::cell::RefCell;
use std::net::IpAddr;
use std::rc::Rc;
use std::time::Duration;

use bytes::Bytes;
use common::*;
use msctp_proto::policy::{self, HandoverPolicy, LinkEvent, NewestAddress};
use msctp_proto::wire::chunk::chunk_type;
use msctp_proto::{AssocId, AssociationConfig, EndpointConfig, Time};

const M1: &str = "10.1.0.2";
const M2: &str = "10.2.0.2";
const CN: &str = "10.9.0.1";
const VICTIM: &str = "198.51.100.7";
const MSG: usize = 1000;

fn config(port: u16) -> EndpointConfig {
    let mut c = EndpointConfig::new(port);
    c.association = AssociationConfig {
        rto_initial: Duration::from_millis(500),
        rto_min: Duration::from_millis(200),
        ..Default::default()
    };
    c
}

fn net(a_addrs: &[IpAddr]) -> (Net, AssocId, AssocId) {
    let mut n = Net::new(
        config(5000),
        a_addrs,
        config(6000),
        &[ip(CN)],
        Link::new(Duration::from_millis(10)),
        31,
    );
    n.a.set_local_addresses(&[ip(M1)]);
    n.tick = Some(Duration::from_millis(1));
    let (a, b) = n.connect(Duration::from_secs(2));
    (n, a, b)
}

/// B keeps its send buffer full; A reads everything. Returns the bytes A
/// got.
fn downlink(n: &mut Net, a: AssocId, b: AssocId, until: Time, got: &mut usize) {
    n.run_with(until, &mut |n| {
        if let Some(x) = n.b.association_mut(b) {
            while x.send_capacity() >= MSG {
                x.send(0, 0, Bytes::from(vec![7u8; MSG]), false).unwrap();
            }
        }
        if let Some(x) = n.a.association_mut(a) {
            while let Some(m) = x.recv() {
                *got += m.data.len();
            }
        }
    });
}

fn has(s: &Seen, t: u8) -> bool {
    s.chunks.contains(&t)
}

/// ```text
///  A (attacker, key holder)            B                         V (victim)
///   |-- ASCONF[Add V, SetPrimary V] --->|   IP source spoofed: V
///   |   (genuine AUTH)                  |--- ASCONF-ACK + HEARTBEAT -->|
///   |                                   |    (nonce; V never answers)   |
///   |<========== DATA (on M1) =========|                               |
///   |                                   |--- HEARTBEAT (one per RTO) ->|
/// ```
/// Before the fix B took V as confirmed at once and sent its data there.
#[test]
fn hijack_spoofed_asconf_source_does_not_confirm_the_victim_address() {
    let (m1, cn, v) = (ip(M1), ip(CN), ip(VICTIM));
    let (mut n, a, b) = net(&[m1]);
    let mut got = 0;
    downlink(&mut n, a, b, Time::from_secs(1), &mut got);
    // A asks for V and V as primary; its ASCONF is held back and
    // delivered to B with V as the IP source.
    let held = Rc::new(RefCell::new(Vec::new()));
    let h = held.clone();
    n.filter = Some(Box::new(move |from, _, _, data: &mut Vec<u8>| {
        if from == Side::A
            && chunk_types(data).contains(&chunk_type::ASCONF)
            && h.borrow().is_empty()
        {
            h.borrow_mut().push(data.clone());
            Verdict::Drop
        } else {
            Verdict::Pass
        }
    }));
    let x = n.a.association_mut(a).unwrap();
    x.add_local_address(v).unwrap();
    x.request_peer_primary(v).unwrap();
    downlink(&mut n, a, b, Time::from_millis(1100), &mut got);
    let asconf = held.borrow().first().cloned().expect("A sent its ASCONF");
    let now = n.now;
    n.b.handle_datagram(now, v, cn, Bytes::from(asconf));
    let spoofed_at = n.now;
    let got_before = got;
    downlink(&mut n, a, b, Time::from_secs(11), &mut got);

    let to_v: Vec<&Seen> = n.stray.iter().filter(|s| s.dst == v).collect();
    let data_to_v = to_v.iter().filter(|s| has(s, chunk_type::DATA)).count();
    let secs = (n.now - spoofed_at).as_secs_f64();
    eprintln!(
        "spoofed ASCONF source: {} packets to the victim in {secs:.0} s, {data_to_v} with DATA; \
         downlink kept {} bytes",
        to_v.len(),
        got - got_before
    );
    let xb = n.b.association(b).unwrap();
    let pv = xb
        .paths()
        .into_iter()
        .find(|p| p.remote == v)
        .expect("B added V (the request was authenticated)");
    assert!(!pv.confirmed, "V confirmed without answering a nonce");
    assert_eq!(data_to_v, 0, "B sent DATA to the victim: {to_v:?}");
    // What V gets: the ASCONF-ACK and path-verification probes, one per
    // RTO (backed off), nothing else.
    for s in &to_v {
        assert!(
            s.chunks.iter().all(|&t| matches!(
                t,
                chunk_type::ASCONF_ACK
                    | chunk_type::HEARTBEAT
                    | chunk_type::AUTH
                    | chunk_type::SACK
            )),
            "unexpected chunks to V: {:?}",
            s.chunks
        );
    }
    assert!(
        (to_v.len() as f64) <= 2.0 + secs / 0.5,
        "{} packets to V in {secs} s",
        to_v.len()
    );
    // The association still carries the downlink, on M1.
    assert!(
        got > got_before + 100_000,
        "downlink stalled: {got_before} -> {got}"
    );
}

/// ```text
///  mobile A                                      correspondent B
///  (loses M1, obtains M2)
///   |-- ASCONF[Add M2, Del M1, SetPrimary M2] ------>|  M2 unconfirmed
///   |<------------ ASCONF-ACK + HEARTBEAT(nonce) ----|  one packet
///   |-- HEARTBEAT-ACK ------------------------------>|  M2 confirmed
///   |<============ DATA (and the rehomed retransmissions)
/// ```
/// The single-homed move keeps working; data moves after the probe's
/// answer, one round trip after the ASCONF-ACK.
#[test]
fn single_homed_move_moves_data_when_the_new_address_answers_its_probe() {
    let (m1, m2, cn) = (ip(M1), ip(M2), ip(CN));
    let (mut n, a, b) = net(&[m1, m2]);
    let mut got = 0;
    downlink(&mut n, a, b, Time::from_secs(1), &mut got);
    n.set_up(m1, cn, false);
    let mut policy = NewestAddress::default();
    for ev in [
        LinkEvent::AddressLost { iface: 1, addr: m1 },
        LinkEvent::AddressObtained { iface: 2, addr: m2 },
    ] {
        let x = n.a.association_mut(a).unwrap();
        let d = policy.on_link_event(n.now, &ev, x);
        for r in policy::apply(x, &d) {
            r.unwrap();
        }
    }
    let got_before = got;
    downlink(&mut n, a, b, Time::from_secs(3), &mut got);
    assert!(got > got_before + 50_000, "downlink did not resume");

    let first = |pred: &dyn Fn(&Seen) -> bool| n.seen.iter().find(|s| pred(s)).map(|s| s.time);
    let asconf = first(&|s| s.from == Side::A && s.src == m2 && has(s, chunk_type::ASCONF))
        .expect("ASCONF from M2");
    let hb_ack = first(&|s| s.from == Side::A && s.src == m2 && has(s, chunk_type::HEARTBEAT_ACK));
    let data = first(&|s| s.from == Side::B && s.dst == m2 && has(s, chunk_type::DATA))
        .expect("DATA to M2");
    let one_way = Duration::from_millis(10);
    eprintln!(
        "single-homed move: ASCONF sent at {asconf:?}; first DATA to the new address {:?} later \
         (one-way delay {one_way:?})",
        data - asconf
    );
    let ack = n
        .seen
        .iter()
        .find(|s| s.from == Side::B && s.dst == m2 && has(s, chunk_type::ASCONF_ACK))
        .expect("ASCONF-ACK to M2");
    assert!(
        has(ack, chunk_type::HEARTBEAT),
        "the probe rides with the ASCONF-ACK: {:?}",
        ack.chunks
    );
    let hb_ack = hb_ack.expect("the mobile answered the probe");
    assert!(
        data >= hb_ack + one_way,
        "DATA to M2 at {data:?} before B had the HEARTBEAT-ACK (sent {hb_ack:?})"
    );
    assert!(n.b.association(b).unwrap().paths()[0].confirmed);
}

/// The peer's other addresses, learned from its INIT ACK, are verified
/// only once the association is established: a HEARTBEAT sent while
/// COOKIE ECHOED (RFC 9260 section 5.4 verifies the addresses of an
/// association; heartbeats belong to section 8.3's established paths)
/// can overtake the COOKIE ECHO, reach the peer before the association
/// exists there and draw an ABORT with the T bit, which kills the
/// association being set up (`msctp soak` saw connects refused this way
/// when the impaired link reordered the two).
///
/// ```text
///   A (M1)                                  B (CN, CN2)
///   INIT ---------------------------------->
///        <------------------- INIT ACK [CN2]
///   COOKIE ECHO --------------------------->
///   (no HEARTBEAT to CN2 here)
///        <------------------- COOKIE ACK
///   HEARTBEAT -> CN2 ---------------------->
/// ```
#[test]
fn no_heartbeat_leaves_before_the_association_is_established() {
    let cn2 = ip("10.9.0.2");
    let mut n = Net::new(
        config(5000),
        &[ip(M1)],
        config(6000),
        &[ip(CN), cn2],
        Link::new(Duration::from_millis(10)),
        31,
    );
    n.tick = Some(Duration::from_millis(1));
    n.connect(Duration::from_secs(2));
    n.run_for(Duration::from_secs(1));
    let cookie_ack = n
        .seen
        .iter()
        .find(|s| s.from == Side::B && s.chunks.contains(&chunk_type::COOKIE_ACK))
        .expect("COOKIE ACK")
        .time;
    let heartbeats: Vec<(Time, IpAddr)> = n
        .seen
        .iter()
        .filter(|s| s.from == Side::A && s.chunks.contains(&chunk_type::HEARTBEAT))
        .map(|s| (s.time, s.dst))
        .collect();
    assert!(
        heartbeats.iter().any(|&(_, d)| d == cn2),
        "CN2 is verified: {heartbeats:?}"
    );
    assert!(
        heartbeats
            .iter()
            .all(|&(t, _)| t >= cookie_ack + Duration::from_millis(10)),
        "a HEARTBEAT left before the COOKIE ACK arrived ({cookie_ack:?}): {heartbeats:?}"
    );
}
