//! Taking over an association with set-up chunks (issue 19): an INIT or
//! COOKIE ECHO that names addresses of an existing association belongs
//! to that association (RFC 9260 section 5.1.2 rule D) and is handled as
//! section 5.2 says for it, never as a new association that takes its
//! addresses.
//!
//! Setup of every test: B listens on port 6000 at `cn`; A, at `m1` port
//! 5000, has an association with it. The attacker X (192.0.2.66) sees no
//! traffic and knows no key: it can only send packets and read what B
//! sends back to its own address.

mod common;

use std::cell::RefCell;
use std::net::IpAddr;
use std::rc::Rc;
use std::time::Duration;

use bytes::Bytes;
use common::script::{Scripted, addr_tlv, init, init_ack_cookie};
use common::*;
use msctp_proto::wire::chunk::chunk_type;
use msctp_proto::wire::{Chunk, CommonHeader, ErrorCause, PacketRepr};
use msctp_proto::{AssocId, EndpointConfig, Event, State};

const A_PORT: u16 = 5000;
const B_PORT: u16 = 6000;

fn m1() -> IpAddr {
    ip("10.1.0.2")
}
fn cn() -> IpAddr {
    ip("10.9.0.1")
}
fn attacker() -> IpAddr {
    ip("192.0.2.66")
}

struct Lab {
    n: Net,
    a: AssocId,
    b: AssocId,
    /// Packets A sent during the handshake (the attacker of H2 replays
    /// one; it does not read them otherwise).
    captured: Rc<RefCell<Vec<Vec<u8>>>>,
}

/// A at m1 and B at cn, 10 ms apart.
fn net(seed: u64) -> Net {
    Net::new(
        EndpointConfig::new(A_PORT),
        &[m1()],
        EndpointConfig::new(B_PORT),
        &[cn()],
        Link::new(Duration::from_millis(10)),
        seed,
    )
}

/// A and B with an established association; A's packets are recorded.
fn established(seed: u64) -> Lab {
    let mut n = net(seed);
    let captured = Rc::new(RefCell::new(Vec::new()));
    let c = captured.clone();
    n.filter = Some(Box::new(move |from, _, _, data: &mut Vec<u8>| {
        if from == Side::A {
            c.borrow_mut().push(data.clone());
        }
        Verdict::Pass
    }));
    let (a, b) = n.connect(Duration::from_secs(2));
    n.filter = None;
    Lab { n, a, b, captured }
}

fn packet(src_port: u16, vtag: u32, chunks: Vec<Chunk>) -> Vec<u8> {
    PacketRepr {
        header: CommonHeader {
            src_port,
            dst_port: B_PORT,
            verification_tag: vtag,
        },
        chunks,
    }
    .emit()
}

/// Hands `pkt` from `src` to B, lets the network run, and returns what B
/// sent back to `src`.
fn inject(n: &mut Net, src: IpAddr, pkt: Vec<u8>) -> Vec<PacketRepr> {
    let before = n.stray.len();
    let now = n.now;
    n.b.handle_datagram(now, src, cn(), Bytes::from(pkt));
    n.run_for(Duration::from_millis(50));
    n.stray[before..]
        .iter()
        .filter(|s| s.dst == src)
        .map(|s| PacketRepr::parse(&s.bytes).expect("B sends well-formed packets"))
        .collect()
}

/// The Initiate Tag and cookie of an INIT ACK.
fn cookie_of(r: &PacketRepr) -> Option<(u32, Bytes)> {
    match r.chunks.first() {
        Some(Chunk::InitAck(ack)) => ack.state_cookie().map(|c| (ack.initiate_tag, c.clone())),
        _ => None,
    }
}

/// The attacker goes on with whatever B answered: a cookie it received
/// is echoed from its own address.
fn echo_any_cookie(n: &mut Net, src: IpAddr, replies: &[PacketRepr]) -> Vec<PacketRepr> {
    let mut out = Vec::new();
    for (tag, cookie) in replies.iter().filter_map(cookie_of) {
        let echo = packet(A_PORT, tag, vec![Chunk::CookieEcho { cookie }]);
        out.extend(inject(n, src, echo));
    }
    out
}

/// What the issue asks after every attack: the original association
/// carries data both ways, and every one of its peer addresses is indexed
/// to it (to no other association).
fn assert_intact(l: &mut Lab, label: &str) {
    let (a, b) = (l.a, l.b);
    l.n.a
        .association_mut(a)
        .unwrap()
        .send(0, 1, Bytes::from_static(b"A to B after the attack"), false)
        .unwrap();
    l.n.b
        .association_mut(b)
        .unwrap()
        .send(0, 1, Bytes::from_static(b"B to A after the attack"), false)
        .unwrap();
    l.n.run_for(Duration::from_secs(3));
    let at_b = l.n.b.association_mut(b).and_then(|x| x.recv());
    let at_a = l.n.a.association_mut(a).and_then(|x| x.recv());
    assert_eq!(
        at_b.map(|m| m.data),
        Some(Bytes::from_static(b"A to B after the attack")),
        "{label}: A to B delivery; B's events: {:?}",
        l.n.events_b
    );
    assert_eq!(
        at_a.map(|m| m.data),
        Some(Bytes::from_static(b"B to A after the attack")),
        "{label}: B to A delivery; A's events: {:?}",
        l.n.events_a
    );
    let bb = l.n.b.association(b).unwrap();
    assert_eq!(bb.state(), State::Established, "{label}");
    assert_eq!(l.n.a.association(a).unwrap().state(), State::Established);
    for p in bb.paths() {
        assert_eq!(
            l.n.b.association_for_peer(p.remote, A_PORT),
            Some(b),
            "{label}: {} is indexed to another association",
            p.remote
        );
    }
    assert!(
        !l.n.events_b
            .iter()
            .any(|(_, id, e)| *id == b && matches!(e, Event::Closed { .. } | Event::Restarted)),
        "{label}: {:?}",
        l.n.events_b
    );
}

/// H1: X sends from its own address an INIT that lists m1, and echoes
/// whatever cookie it gets from X.
#[test]
fn hijack_cookie_from_attacker_address() {
    let mut l = established(191);
    let x = attacker();
    let tag = 0x7a66_0001;
    let replies = inject(&mut l.n, x, packet(A_PORT, 0, vec![init(tag, &[m1()])]));
    let after_echo = echo_any_cookie(&mut l.n, x, &replies);
    assert_intact(&mut l, "H1");
    assert_eq!(l.n.b.associations(), vec![l.b], "no second association");
    // RFC 9260 section 5.2.2: the INIT adds X to the association of m1,
    // so it is refused with an ABORT carrying X's Initiate Tag and the
    // "Restart of an Association with New Addresses" cause listing X.
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert_eq!(replies[0].header.verification_tag, tag);
    match replies[0].chunks.first() {
        Some(Chunk::Abort { causes, .. }) => assert_eq!(
            causes[..],
            [ErrorCause::RestartWithNewAddresses {
                addresses: Bytes::from(addr_tlv(x))
            }]
        ),
        other => panic!("expected an ABORT, got {other:?}"),
    }
    assert!(after_echo.is_empty());
}

/// H2: the handshake's own COOKIE ECHO, replayed from another address
/// within the cookie's lifetime.
#[test]
fn hijack_cookie_replay() {
    let mut l = established(192);
    let echo = l
        .captured
        .borrow()
        .iter()
        .find(|p| chunk_types(p).first() == Some(&chunk_type::COOKIE_ECHO))
        .cloned()
        .expect("A sent a COOKIE ECHO");
    l.n.run_for(Duration::from_secs(5));
    let replies = inject(&mut l.n, attacker(), echo.clone());
    assert_intact(&mut l, "H2");
    assert_eq!(l.n.b.associations(), vec![l.b], "no second association");
    assert!(replies.is_empty(), "nothing goes to the replaying address");
    // Control: the same replay from m1 is a duplicate COOKIE ECHO of the
    // association (section 5.2.4 action D): a COOKIE ACK, nothing else.
    let before = l.n.seen.len();
    let now = l.n.now;
    l.n.b.handle_datagram(now, m1(), cn(), Bytes::from(echo));
    l.n.run_for(Duration::from_millis(50));
    assert!(
        l.n.seen[before..]
            .iter()
            .any(|s| s.from == Side::B && s.chunks == vec![chunk_type::COOKIE_ACK])
    );
    assert_intact(&mut l, "H2 control");
}

/// The INIT variant: X spoofs m1 as the source and lists its own
/// address. The INIT belongs to A's association and would add X: refused
/// with an ABORT (to m1, with X's Initiate Tag, which A drops).
#[test]
fn init_from_the_peer_address_adding_the_attacker_is_refused() {
    let mut l = established(193);
    let x = attacker();
    let before = l.n.seen.len();
    let now = l.n.now;
    let pkt = packet(A_PORT, 0, vec![init(0x7a66_0003, &[x])]);
    l.n.b.handle_datagram(now, m1(), cn(), Bytes::from(pkt));
    l.n.run_for(Duration::from_millis(50));
    let abort = l.n.seen[before..]
        .iter()
        .find(|s| s.from == Side::B && s.chunks == vec![chunk_type::ABORT])
        .map(|s| PacketRepr::parse(&s.bytes).unwrap())
        .expect("an ABORT");
    assert_eq!(abort.header.verification_tag, 0x7a66_0003);
    assert!(
        !l.n.seen[before..]
            .iter()
            .any(|s| s.chunks == vec![chunk_type::INIT_ACK])
    );
    assert_intact(&mut l, "INIT from m1 listing X");
    assert_eq!(l.n.b.association_for_peer(x, A_PORT), None);
}

/// H1 with a cookie obtained before A associated (the cookie lives 60
/// s): X's INIT listing m1 was answered statelessly then; echoed after A
/// associated, the cookie names m1, so it belongs to A's association,
/// whose tags it does not carry (section 5.2.4: no action, discarded).
#[test]
fn cookie_obtained_before_the_association_cannot_take_its_address() {
    let mut n = net(194);
    let x = attacker();
    let replies = inject(
        &mut n,
        x,
        packet(A_PORT, 0, vec![init(0x7a66_0004, &[m1()])]),
    );
    assert!(matches!(replies[0].chunks[0], Chunk::InitAck(_)));
    let (a, b) = n.connect(Duration::from_secs(2));
    let mut l = Lab {
        n,
        a,
        b,
        captured: Rc::default(),
    };
    l.n.run_for(Duration::from_secs(5));
    let after = echo_any_cookie(&mut l.n, x, &replies);
    assert!(after.is_empty(), "{after:?}");
    assert_eq!(l.n.b.associations(), vec![l.b]);
    assert_eq!(l.n.b.association(l.b).unwrap().stats().cookies_discarded, 1);
    assert_intact(&mut l, "early cookie");
}

/// A cookie whose INIT named addresses of two associations belongs to
/// neither: dropped.
#[test]
fn cookie_naming_two_associations_is_dropped() {
    let (m2, x) = (ip("10.2.0.2"), attacker());
    let mut s = Scripted::listener(EndpointConfig::new(B_PORT), cn(), 9);
    let out = s.inject(x, A_PORT, 0, vec![init(0x7a66_0005, &[m1(), m2])]);
    let (tag, cookie) = init_ack_cookie(&out).unwrap();
    let (p1, ..) = s.handshake(m1(), A_PORT, 0x1000_0001, &[]);
    let (p2, ..) = s.handshake(m2, A_PORT, 0x2000_0002, &[]);
    let out = s.inject(x, A_PORT, tag, vec![Chunk::CookieEcho { cookie }]);
    assert!(out.is_empty(), "{out:?}");
    assert_eq!(s.ep.associations(), vec![p1, p2]);
    assert_eq!(s.ep.association_for_peer(m1(), A_PORT), Some(p1));
    assert_eq!(s.ep.association_for_peer(m2, A_PORT), Some(p2));
    assert_eq!(s.ep.stats().foreign_cookies, 1);
}

/// The ASCONF variant (RFC 5062 section 4): A, a genuine peer, asks to
/// add an address that is another association's peer address. Refused
/// (No Authorization); the other association keeps it.
#[test]
fn asconf_cannot_add_an_address_of_another_association() {
    let mut l = established(195);
    let m3 = ip("10.3.0.3");
    // Another peer, at m3 port 5000, associates with B.
    let out = inject(
        &mut l.n,
        m3,
        packet(A_PORT, 0, vec![init(0x3000_0003, &[])]),
    );
    let (tag, cookie) = cookie_of(&out[0]).expect("an INIT ACK");
    let out = inject(
        &mut l.n,
        m3,
        packet(A_PORT, tag, vec![Chunk::CookieEcho { cookie }]),
    );
    assert!(matches!(out[0].chunks[0], Chunk::CookieAck));
    let other = l.n.b.association_for_peer(m3, A_PORT).unwrap();
    assert_ne!(other, l.b);
    // A adds m3.
    l.n.a
        .association_mut(l.a)
        .unwrap()
        .add_local_address(m3)
        .unwrap();
    l.n.run_for(Duration::from_secs(1));
    assert!(
        l.n.events_a.iter().any(|(_, id, e)| *id == l.a
            && matches!(e, Event::LocalAddressAddFailed { addr, causes }
                if *addr == m3 && matches!(causes[..], [ErrorCause::NoAuthorization { .. }]))),
        "{:?}",
        l.n.events_a
    );
    let bb = l.n.b.association(l.b).unwrap();
    assert!(bb.peer_addresses().all(|a| a != m3));
    assert_eq!(bb.stats().addresses_refused_in_use, 1);
    assert_eq!(l.n.b.association_for_peer(m3, A_PORT), Some(other));
    assert_intact(&mut l, "ASCONF");
}

/// `max_associations_per_source`: one source (here 3 associations at
/// most) is refused further associations with an Out of Resource ABORT,
/// at the INIT and at a cookie it obtained earlier; another source is
/// not; a slot freed is usable again.
#[test]
fn associations_per_source_are_capped() {
    let cfg = EndpointConfig {
        max_associations_per_source: 3,
        ..EndpointConfig::new(B_PORT)
    };
    let mut s = Scripted::listener(cfg, cn(), 10);
    let (x, y) = (attacker(), ip("198.51.100.7"));
    // A cookie obtained while there was room.
    let out = s.inject(x, 7100, 0, vec![init(0x7100, &[])]);
    let (early_tag, early_cookie) = init_ack_cookie(&out).unwrap();
    let ids: Vec<AssocId> = (0..3)
        .map(|k| s.handshake(x, 7000 + k, 0x7000 + u32::from(k), &[]).0)
        .collect();
    let refused = |out: &[common::script::Out], tag: u32| {
        out.len() == 1
            && out[0].vtag() == tag
            && matches!(out[0].first(), Some(Chunk::Abort { causes, .. })
                if causes[..] == [ErrorCause::OutOfResource])
    };
    let out = s.inject(x, 7003, 0, vec![init(0x7003, &[])]);
    assert!(refused(&out, 0x7003), "{out:?}");
    let out = s.inject(
        x,
        7100,
        early_tag,
        vec![Chunk::CookieEcho {
            cookie: early_cookie,
        }],
    );
    assert!(refused(&out, 0x7100), "{out:?}");
    assert_eq!(s.ep.associations(), ids);
    assert_eq!(s.ep.stats().source_limit_refusals, 2);
    // Another source is unaffected.
    s.handshake(y, 7000, 0x9000, &[]);
    // One of X's associations ends: once the endpoint forgot it (its
    // events read), X may open another.
    s.ep.association_mut(ids[0]).unwrap().abort(None);
    s.poll();
    s.poll();
    assert_eq!(s.ep.associations().len(), 3);
    s.handshake(x, 7004, 0x7004, &[]);
}

/// The flood of issue 19: one source completing handshake after
/// handshake takes `max_associations_per_source` (default 64) slots, not
/// all 1024; IPv6 sources count per /64 by default.
#[test]
fn one_source_cannot_fill_the_endpoint() {
    let mut s = Scripted::listener(EndpointConfig::new(B_PORT), cn(), 11);
    let x = attacker();
    let mut created = 0;
    for k in 0..1000u16 {
        let out = s.inject(x, 10_000 + k, 0, vec![init(0x1_0000 + u32::from(k), &[])]);
        if let Some((tag, cookie)) = init_ack_cookie(&out) {
            let out = s.inject(x, 10_000 + k, tag, vec![Chunk::CookieEcho { cookie }]);
            created += usize::from(matches!(out[0].first(), Some(Chunk::CookieAck)));
        }
    }
    assert_eq!(created, 64);
    assert_eq!(s.ep.associations().len(), 64);
    assert_eq!(s.ep.stats().source_limit_refusals, 1000 - 64);
    // Two addresses of one IPv6 /64 share a budget; another /64 does not.
    let cfg = EndpointConfig {
        max_associations_per_source: 1,
        ..EndpointConfig::new(B_PORT)
    };
    let mut s = Scripted::listener(cfg, ip("2001:db8:9::1"), 12);
    s.handshake(ip("2001:db8:1::1"), 7000, 1, &[]);
    let out = s.inject(ip("2001:db8:1::2"), 7000, 0, vec![init(2, &[])]);
    assert!(init_ack_cookie(&out).is_none(), "{out:?}");
    s.handshake(ip("2001:db8:2::1"), 7000, 3, &[]);
}
