//! RFC 2960 path handling (`confirm_listed_addresses`): the addresses a
//! peer lists in its INIT count as confirmed and may carry DATA at once,
//! as before RFC 4960 added path verification (ns-2's SCTP module, the
//! tool of the studies reproduced with "ns-2 set-primary"). By default
//! (RFC 9260 section 5.4) such an address gets no DATA until a HEARTBEAT
//! to it is answered.
//!
//! Mobile A lists M1 and M2 in its INIT; M2 is out of reach while the
//! association starts. Correspondent B sends; at 3 s M2 comes in reach
//! and B's application makes it the primary.

mod common;

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use common::*;
use msctp_proto::wire::chunk::chunk_type;
use msctp_proto::{AssocId, AssociationConfig, EndpointConfig, Time};

const M1: &str = "10.1.0.2";
const M2: &str = "10.2.0.2";
const CN: &str = "10.9.0.1";
const MSG: usize = 1000;

fn config(port: u16, rfc2960: bool) -> EndpointConfig {
    let mut c = EndpointConfig::new(port);
    c.association = AssociationConfig {
        rto_initial: Duration::from_millis(500),
        rto_min: Duration::from_millis(200),
        confirm_listed_addresses: rfc2960,
        ..Default::default()
    };
    c
}

/// Connects with M2 down, then runs B's bulk send to 3 s.
fn net(rfc2960: bool) -> (Net, AssocId, AssocId) {
    let mut n = Net::new(
        config(5000, rfc2960),
        &[ip(M1), ip(M2)],
        config(6000, rfc2960),
        &[ip(CN)],
        Link::new(Duration::from_millis(10)),
        34,
    );
    n.set_up(ip(M2), ip(CN), false);
    n.tick = Some(Duration::from_millis(1));
    let (a, b) = n.connect(Duration::from_secs(2));
    downlink(&mut n, a, b, Time::from_secs(3));
    (n, a, b)
}

fn downlink(n: &mut Net, a: AssocId, b: AssocId, until: Time) {
    n.run_with(until, &mut |n| {
        if let Some(x) = n.b.association_mut(b) {
            while x.send_capacity() >= MSG {
                x.send(0, 0, Bytes::from(vec![7u8; MSG]), false).unwrap();
            }
        }
        if let Some(x) = n.a.association_mut(a) {
            while x.recv().is_some() {}
        }
    });
}

fn m2_confirmed(n: &Net, b: AssocId) -> bool {
    let m2: IpAddr = ip(M2);
    let p = n.b.association(b).unwrap().paths();
    p.iter()
        .find(|p| p.remote == m2)
        .expect("M2 listed")
        .confirmed
}

/// M2 comes in reach and becomes B's primary at 3 s; returns the chunk
/// types of B's packets to M2 over the next second, in order.
fn switch_to_m2(n: &mut Net, a: AssocId, b: AssocId) -> Vec<Vec<u8>> {
    n.set_up(ip(M2), ip(CN), true);
    n.b.association_mut(b).unwrap().set_primary(ip(M2)).unwrap();
    n.record = true;
    downlink(n, a, b, Time::from_secs(4));
    n.take_seen()
        .into_iter()
        .filter(|s| s.from == Side::B && s.dst == ip(M2))
        .map(|s| s.chunks)
        .collect()
}

/// ```text
///  A (M1, M2)                                 B
///   |-- INIT [M1, M2] (from M1) ------------->|  M2 confirmed at once
///   |<=========== DATA on M1 ================|
///   (3 s) M2 in reach; B: set-primary M2
///   |<=========== DATA on M2 ================|  first packet, no HEARTBEAT
/// ```
#[test]
fn rfc2960_listed_address_carries_data_at_once() {
    let (mut n, a, b) = net(true);
    assert!(m2_confirmed(&n, b), "M2 unconfirmed with RFC 2960 paths");
    let to_m2 = switch_to_m2(&mut n, a, b);
    eprintln!(
        "RFC 2960: B's packets to M2: {:?}",
        &to_m2[..to_m2.len().min(3)]
    );
    let first = to_m2.first().expect("B sent to M2");
    assert!(first.contains(&chunk_type::DATA), "{to_m2:?}");
    assert!(
        to_m2.iter().all(|c| !c.contains(&chunk_type::HEARTBEAT)),
        "no probe needed: {to_m2:?}"
    );
}

/// ```text
///  A (M1, M2)                                 B
///   |-- INIT [M1, M2] (from M1) ------------->|  M2 UNCONFIRMED
///   (3 s) M2 in reach; B: set-primary M2
///   |<-- HEARTBEAT (nonce) ------------------|  no DATA to M2 before
///   |-- HEARTBEAT ACK ----------------------->|  the answer
/// ```
#[test]
fn rfc9260_listed_address_gets_no_data_before_a_heartbeat_answer() {
    let (mut n, a, b) = net(false);
    assert!(!m2_confirmed(&n, b), "M2 confirmed without an answer");
    let to_m2 = switch_to_m2(&mut n, a, b);
    eprintln!(
        "RFC 9260: B's packets to M2: {:?}",
        &to_m2[..to_m2.len().min(3)]
    );
    if let Some(first_data) = to_m2.iter().position(|c| c.contains(&chunk_type::DATA)) {
        let probe = to_m2
            .iter()
            .position(|c| c.contains(&chunk_type::HEARTBEAT));
        assert!(probe.is_some_and(|p| p < first_data), "{to_m2:?}");
        assert!(m2_confirmed(&n, b));
    }
}
