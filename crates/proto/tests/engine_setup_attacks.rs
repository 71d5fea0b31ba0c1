//! Set-up chunks from an attacker, round three (issue 31): an INIT that
//! lists thousands of addresses, addresses a remote peer can never have,
//! bursts of heartbeats towards unproven addresses, and addresses named
//! in advance to claim a future client's association.
//!
//! Setup: B listens on port 6000 at `cn`, driven packet by packet
//! (`Scripted`); X (192.0.2.66) is an attacker that can send anything
//! from any address but sees only what B sends to its own address.

mod common;

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use common::ip;
use common::script::{Scripted, init, init_ack_cookie};
use msctp_proto::wire::{Chunk, ErrorCause};
use msctp_proto::{AssociationConfig, EndpointConfig};

const B_PORT: u16 = 6000;

fn cn() -> IpAddr {
    ip("10.9.0.1")
}
fn x() -> IpAddr {
    ip("192.0.2.66")
}

/// `n` distinct addresses of 10.0.0.0/8.
fn many(n: u32) -> Vec<IpAddr> {
    (0..n)
        .map(|i| IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + i)))
        .collect()
}

fn is_abort_out_of_resource(out: &[common::script::Out], tag: u32) -> bool {
    out.len() == 1
        && out[0].vtag() == tag
        && matches!(out[0].first(), Some(Chunk::Abort { causes, .. })
            if causes[..] == [ErrorCause::OutOfResource])
}

#[test]
fn flood_an_init_listing_8185_addresses_is_refused_before_any_work() {
    //   X --INIT, 8 185 IPv4 addresses (64 KiB)--> B
    //   X <--ABORT (Out of Resource)-------------- B
    // The list is counted, and refused, before B routes the INIT,
    // deduplicates its addresses or signs a cookie for it.
    let mut b = Scripted::listener(EndpointConfig::new(B_PORT), cn(), 1);
    let out = b.inject(x(), 5000, 0, vec![init(0x1111, &many(8185))]);
    assert!(is_abort_out_of_resource(&out, 0x1111), "{out:?}");
    let st = b.ep.stats();
    assert_eq!(st.init_address_limit_refusals, 1);
    assert_eq!(st.inits_answered, 0);
    // Up to the bound an INIT is answered, and the association keeps its
    // first `max_peer_addresses`.
    let (id, _, _) = b.handshake(x(), 5001, 0x2222, &many(128));
    let kept = b.ep.association(id).unwrap().paths().len();
    assert_eq!(kept, AssociationConfig::default().limits.max_peer_addresses);
    // The bound is the configuration's.
    let mut cfg = EndpointConfig::new(B_PORT);
    cfg.association.limits.max_init_addresses = 4;
    let mut b = Scripted::listener(cfg, cn(), 2);
    let out = b.inject(x(), 5000, 0, vec![init(0x3333, &many(5))]);
    assert!(is_abort_out_of_resource(&out, 0x3333), "{out:?}");
    let out = b.inject(x(), 5000, 0, vec![init(0x3334, &many(4))]);
    assert!(init_ack_cookie(&out).is_some(), "{out:?}");
}

#[test]
fn hijack_an_init_cannot_list_addresses_no_remote_peer_has() {
    // X lists, beside one real address of its own, addresses that would
    // point B at itself, at its own link, or at everyone:
    //   X --INIT [127.0.0.1, ::1, 169.254.1.1, fe80::1, 255.255.255.255,
    //             0.0.0.0, ::ffff:224.0.0.1, ::ffff:127.0.0.1, cn,
    //             198.51.100.9]--> B
    // The association holds X and 198.51.100.9 only.
    let mut b = Scripted::listener(EndpointConfig::new(B_PORT), cn(), 3);
    let listed: Vec<IpAddr> = [
        "127.0.0.1",
        "::1",
        "169.254.1.1",
        "fe80::1",
        "255.255.255.255",
        "0.0.0.0",
        "::ffff:224.0.0.1",
        "::ffff:127.0.0.1",
        "10.9.0.1",
        "198.51.100.9",
    ]
    .iter()
    .map(|s| ip(s))
    .collect();
    let (id, _, _) = b.handshake(x(), 5000, 0x4444, &listed);
    let peers: Vec<IpAddr> =
        b.ep.association(id)
            .unwrap()
            .paths()
            .iter()
            .map(|p| p.remote)
            .collect();
    assert_eq!(peers, [x(), ip("198.51.100.9")]);
    // Loopback is fine between two loopback endpoints.
    let mut l = Scripted::listener(EndpointConfig::new(B_PORT), ip("127.0.0.1"), 4);
    let (id, _, _) = l.handshake(ip("127.0.0.2"), 5000, 0x5555, &[ip("127.0.0.3")]);
    assert_eq!(l.ep.association(id).unwrap().paths().len(), 2);
}

#[test]
fn flood_unconfirmed_addresses_are_probed_one_per_rto_not_in_a_burst() {
    // X lists 15 addresses it does not have. B verifies each with a
    // HEARTBEAT (RFC 9260 section 5.4), HB.Max.Burst (1) of them per RTO,
    // not 15 at once towards addresses nobody has proven.
    let mut b = Scripted::listener(EndpointConfig::new(B_PORT), cn(), 5);
    let listed: Vec<IpAddr> = (1..=15u8)
        .map(|i| IpAddr::V4(Ipv4Addr::new(198, 51, 100, i)))
        .collect();
    let (_id, _, _) = b.handshake(x(), 5000, 0x6666, &listed);
    let is_heartbeat = |o: &common::script::Out| matches!(o.first(), Some(Chunk::Heartbeat { .. }));
    let first: Vec<IpAddr> = b
        .advance(Duration::from_millis(1))
        .iter()
        .filter(|o| is_heartbeat(o))
        .map(|o| o.dst)
        .collect();
    assert_eq!(first.len(), 1, "one heartbeat at once: {first:?}");
    // RTO.Initial is 1 s: within 3 s, at most one more per second.
    let more = b
        .advance(Duration::from_secs(3))
        .iter()
        .filter(|o| is_heartbeat(o) && o.dst != x())
        .count();
    assert!((2..=4).contains(&more), "{more} heartbeats in 3 s");
}

#[test]
fn hijack_an_address_listed_in_advance_cannot_claim_a_future_clients_association() {
    // X lists V, the address of a client that has not come yet:
    //   X --INIT [V]--> B, X --COOKIE ECHO--> B     association 1: X, V?
    // V then connects from the same SCTP port:
    //   V --INIT--> B   goes to no one's association (V is unconfirmed
    //                   in 1): a stateless INIT ACK, a new association
    //   V --COOKIE ECHO--> B                        association 2: V
    // and V's packets reach association 2, while 1 neither restarted
    // nor took V's traffic.
    let v = ip("198.51.100.20");
    let mut b = Scripted::listener(EndpointConfig::new(B_PORT), cn(), 6);
    let (one, _, _) = b.handshake(x(), 5000, 0x7777, &[v]);
    let (two, tag_two, _) = b.handshake(v, 5000, 0x8888, &[]);
    assert_ne!(one, two, "V got an association of its own");
    assert!(
        !b.events
            .iter()
            .any(|(_, e)| *e == msctp_proto::Event::Restarted),
        "nothing restarted: {:?}",
        b.events
    );
    let info = bytes::Bytes::from_static(b"are you there");
    let out = b.inject(v, 5000, tag_two, vec![Chunk::Heartbeat { info }]);
    assert!(
        out.iter().any(|o| o.dst == v
            && o.vtag() == 0x8888
            && matches!(o.first(), Some(Chunk::HeartbeatAck { .. }))),
        "V's packets reach its own association: {out:?}"
    );
    let x_peers: Vec<IpAddr> =
        b.ep.association(one)
            .unwrap()
            .paths()
            .iter()
            .map(|p| p.remote)
            .collect();
    assert_eq!(x_peers[0], x(), "X keeps its own address");
}
