//! Set-up chunks for an association that exists, RFC 9260 section 5.2:
//! INIT in COOKIE-WAIT and COOKIE-ECHOED (5.2.1), an unexpected INIT
//! (5.2.2), and each action of the COOKIE ECHO table of section 5.2.4
//! (A restart, B collision, C late cookie, D duplicate), plus the stale
//! cookie rule of its step 3. B is the endpoint under test at `cn`, port
//! 6000; the peer P at `m1`, port 5000, is scripted packet by packet.

mod common;

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use common::ip;
use common::script::*;
use msctp_proto::wire::{Chunk, ErrorCause, InitChunk, Param};
use msctp_proto::{EndpointConfig, Event, State};

const P_PORT: u16 = 5000;

fn m1() -> IpAddr {
    ip("10.1.0.2")
}
fn m2() -> IpAddr {
    ip("10.2.0.2")
}
fn cn() -> IpAddr {
    ip("10.9.0.1")
}

fn b(seed: u8) -> Scripted {
    Scripted::listener(EndpointConfig::new(6000), cn(), seed)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// B's INIT (B connects to P at m1): its tag.
fn b_connects(s: &mut Scripted) -> (msctp_proto::AssocId, u32) {
    let now = s.now;
    let id = s.ep.connect(now, &[m1()], P_PORT).unwrap();
    let out = s.poll();
    match out.first().and_then(|o| o.first()) {
        Some(Chunk::Init(i)) => (id, i.initiate_tag),
        other => panic!("expected B's INIT, got {other:?}"),
    }
}

/// P's INIT ACK to B's INIT (tag `p_tag`, an opaque cookie).
fn p_init_ack(p_tag: u32) -> Chunk {
    Chunk::InitAck(InitChunk {
        initiate_tag: p_tag,
        a_rwnd: 65_535,
        outbound_streams: 1,
        inbound_streams: 1,
        initial_tsn: 5000,
        params: vec![Param::StateCookie(Bytes::from_static(b"P's cookie"))],
    })
}

/// Action A: P restarts (new tag, same address). B answers the INIT with
/// a new tag and tie-tags that are not the association's verification
/// tags, and the cookie restarts the association in place.
#[test]
fn restart_is_action_a_and_tie_tags_reveal_no_tag() {
    let mut s = b(1);
    let (id, b_tag, _) = s.handshake(m1(), P_PORT, 0x1111_0001, &[]);
    let out = s.inject(m1(), P_PORT, 0, vec![init(0x2222_0002, &[])]);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].dst, m1());
    assert_eq!(out[0].vtag(), 0x2222_0002);
    let (new_tag, cookie) = init_ack_cookie(&out).unwrap();
    assert_ne!(new_tag, b_tag);
    // Tie-tags are random nonces (RFC 9260 section 2): neither of the
    // association's tags appears in the cookie.
    assert!(!contains(&cookie, &b_tag.to_be_bytes()));
    assert!(!contains(&cookie, &0x1111_0001u32.to_be_bytes()));
    let out = s.inject(m1(), P_PORT, new_tag, vec![Chunk::CookieEcho { cookie }]);
    assert!(matches!(out[0].first(), Some(Chunk::CookieAck)));
    assert_eq!(out[0].vtag(), 0x2222_0002);
    assert!(s.events.contains(&(id, Event::Restarted)));
    let a = s.ep.association(id).unwrap();
    assert_eq!((a.local_tag(), a.peer_tag()), (new_tag, 0x2222_0002));
    assert_eq!(a.state(), State::Established);
    assert_eq!(s.ep.associations(), vec![id]);
    assert_eq!(s.ep.association_for_peer(m1(), P_PORT), Some(id));
}

/// Section 5.2.2: a restart that adds an address is refused with an
/// ABORT naming it, tagged with the INIT's tag; nothing changes.
#[test]
fn restart_with_a_new_address_is_refused() {
    let mut s = b(2);
    let (id, b_tag, _) = s.handshake(m1(), P_PORT, 0x1111_0001, &[]);
    let out = s.inject(m1(), P_PORT, 0, vec![init(0x3333_0003, &[m1(), m2()])]);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!((out[0].dst, out[0].vtag()), (m1(), 0x3333_0003));
    assert_eq!(restart_cause(&out[0]), Some(addr_tlv(m2())));
    let a = s.ep.association(id).unwrap();
    assert_eq!((a.local_tag(), a.peer_tag()), (b_tag, 0x1111_0001));
    assert_eq!(a.stats().restarts_refused, 1);
    assert_eq!(s.ep.association_for_peer(m2(), P_PORT), None);
}

/// Action B: both sides connect at once. B, in COOKIE-WAIT, answers P's
/// INIT with its own tag (5.2.1); P's COOKIE ECHO of that cookie carries
/// B's tag and a peer tag B did not know: B adopts it and is established.
#[test]
fn init_collision_is_action_b() {
    let mut s = b(3);
    let (id, b_tag) = b_connects(&mut s);
    let out = s.inject(m1(), P_PORT, 0, vec![init(0x4444_0004, &[])]);
    let (tag, cookie) = init_ack_cookie(&out).expect("an INIT ACK");
    assert_eq!(tag, b_tag, "same Initiate Tag as B's INIT");
    assert_eq!((out[0].dst, out[0].vtag()), (m1(), 0x4444_0004));
    assert_eq!(s.ep.association(id).unwrap().state(), State::CookieWait);
    let out = s.inject(m1(), P_PORT, b_tag, vec![Chunk::CookieEcho { cookie }]);
    assert!(
        out.iter()
            .any(|o| matches!(o.first(), Some(Chunk::CookieAck)) && o.vtag() == 0x4444_0004),
        "{out:?}"
    );
    let a = s.ep.association(id).unwrap();
    assert_eq!(a.state(), State::Established);
    assert_eq!(a.peer_tag(), 0x4444_0004);
    assert_eq!(s.ep.associations(), vec![id]);
}

/// Section 5.2.1 rules 1 to 3: in COOKIE-WAIT, an INIT from an address
/// the application did not give, listing the one it gave, is answered
/// only at the given address, never at the INIT's source.
#[test]
fn cookie_wait_answers_only_at_the_address_the_application_gave() {
    let mut s = b(4);
    let (_, b_tag) = b_connects(&mut s);
    let x = ip("192.0.2.66");
    let out = s.inject(x, P_PORT, 0, vec![init(0x5555_0005, &[m1()])]);
    assert!(out.iter().all(|o| o.dst != x), "{out:?}");
    let (tag, _) = init_ack_cookie(&out).expect("an INIT ACK to m1");
    assert_eq!(tag, b_tag);
    assert!(out.iter().all(|o| o.dst == m1()));
}

/// Section 5.2.1: in COOKIE-ECHOED, an INIT that adds an address to the
/// forming association is refused with an ABORT naming it; one that
/// does not is answered with B's own tag.
#[test]
fn cookie_echoed_refuses_an_init_with_a_new_address() {
    let mut s = b(5);
    let (id, b_tag) = b_connects(&mut s);
    let out = s.inject(m1(), P_PORT, b_tag, vec![p_init_ack(0x6666_0006)]);
    assert!(matches!(out[0].first(), Some(Chunk::CookieEcho { .. })));
    assert_eq!(s.ep.association(id).unwrap().state(), State::CookieEchoed);
    let out = s.inject(m1(), P_PORT, 0, vec![init(0x6666_0007, &[m2()])]);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!((out[0].dst, out[0].vtag()), (m1(), 0x6666_0007));
    assert_eq!(restart_cause(&out[0]), Some(addr_tlv(m2())));
    assert_eq!(s.ep.association(id).unwrap().state(), State::CookieEchoed);
    let out = s.inject(m1(), P_PORT, 0, vec![init(0x6666_0006, &[])]);
    let (tag, _) = init_ack_cookie(&out).expect("an INIT ACK");
    assert_eq!(tag, b_tag);
}

/// Action C: B answered an INIT of P statelessly, then set up the
/// association through its own INIT; the old cookie, arriving late,
/// carries another tag of B's and P's current tag: discarded.
#[test]
fn late_cookie_is_action_c() {
    let mut s = b(6);
    let p_tag = 0x7777_0007;
    let out = s.inject(m1(), P_PORT, 0, vec![init(p_tag, &[])]);
    let (old_tag, old_cookie) = init_ack_cookie(&out).unwrap();
    let (id, b_tag) = b_connects(&mut s);
    s.inject(m1(), P_PORT, b_tag, vec![p_init_ack(p_tag)]);
    s.inject(m1(), P_PORT, b_tag, vec![Chunk::CookieAck]);
    assert_eq!(s.ep.association(id).unwrap().state(), State::Established);
    let out = s.inject(
        m1(),
        P_PORT,
        old_tag,
        vec![Chunk::CookieEcho { cookie: old_cookie }],
    );
    assert!(out.is_empty(), "{out:?}");
    let a = s.ep.association(id).unwrap();
    assert_eq!((a.local_tag(), a.peer_tag()), (b_tag, p_tag));
    assert_eq!(a.stats().cookies_discarded, 1);
    assert_eq!(s.ep.associations(), vec![id]);
}

/// Action D: the same cookie again (the COOKIE ACK was lost): a COOKIE
/// ACK and nothing else; still valid after its lifetime since both tags
/// match (section 5.2.4 step 3). A stale cookie of no association gets a
/// Stale Cookie ERROR.
#[test]
fn duplicate_cookie_is_action_d_even_when_stale() {
    let mut s = b(7);
    let (id, b_tag, echo) = s.handshake(m1(), P_PORT, 0x8888_0008, &[]);
    let connected = s.events.len();
    let out = s.inject(m1(), P_PORT, b_tag, echo.clone());
    assert_eq!(out.len(), 1);
    assert!(matches!(out[0].first(), Some(Chunk::CookieAck)));
    // Past the 60 s lifetime.
    s.advance(Duration::from_secs(61));
    let out = s.inject(m1(), P_PORT, b_tag, echo);
    assert!(
        out.iter()
            .any(|o| matches!(o.first(), Some(Chunk::CookieAck))),
        "{out:?}"
    );
    assert!(
        !s.events[connected..]
            .iter()
            .any(|(_, e)| *e == Event::Connected)
    );
    assert_eq!(s.ep.associations(), vec![id]);
    // A stale cookie that matches no association.
    let out = s.inject(m2(), P_PORT, 0, vec![init(0x8888_0009, &[])]);
    let (tag, cookie) = init_ack_cookie(&out).unwrap();
    s.advance(Duration::from_secs(61));
    let out = s.inject(m2(), P_PORT, tag, vec![Chunk::CookieEcho { cookie }]);
    assert!(
        matches!(out[0].first(), Some(Chunk::Error { causes })
            if matches!(causes[..], [ErrorCause::StaleCookie { .. }])),
        "{out:?}"
    );
    assert_eq!(s.ep.associations(), vec![id]);
}

/// An association that is closed but not yet forgotten (its messages
/// unread) does not hold its peer's address against a new one: P's new
/// INIT is answered and the new association takes the address; the old
/// one keeps its messages.
#[test]
fn a_closed_association_gives_its_address_to_the_next() {
    let mut s = b(8);
    let (old, b_tag, _) = s.handshake(m1(), P_PORT, 0x9999_0001, &[]);
    let data = msctp_proto::wire::DataChunk {
        tsn: 1000,
        stream_id: 0,
        ssn: 0,
        ppid: 0,
        unordered: false,
        begin: true,
        end: true,
        immediate: false,
        payload: Bytes::from_static(b"before the abort"),
    };
    s.inject(m1(), P_PORT, b_tag, vec![Chunk::Data(data)]);
    s.inject(
        m1(),
        P_PORT,
        b_tag,
        vec![Chunk::Abort {
            t_bit: false,
            causes: vec![],
        }],
    );
    s.poll();
    assert_eq!(s.ep.association(old).unwrap().state(), State::Closed);
    let (new, ..) = s.handshake(m1(), P_PORT, 0x9999_0002, &[]);
    assert_ne!(new, old);
    assert_eq!(s.ep.association_for_peer(m1(), P_PORT), Some(new));
    let msg = s.ep.association_mut(old).unwrap().recv().unwrap();
    assert_eq!(&msg.data[..], b"before the abort");
}

/// A multi-homed peer restarts listing the addresses it had: no new
/// address, so a restart (INIT ACK), not an ABORT; listing fewer is fine
/// too, and the association then holds only those.
#[test]
fn multihomed_restart_with_the_same_addresses_is_accepted() {
    let mut s = b(9);
    let (id, ..) = s.handshake(m1(), P_PORT, 0xaaaa_0001, &[m1(), m2()]);
    assert_eq!(s.ep.association_for_peer(m2(), P_PORT), Some(id));
    let out = s.inject(m2(), P_PORT, 0, vec![init(0xaaaa_0002, &[m2(), m1()])]);
    assert!(init_ack_cookie(&out).is_some(), "{out:?}");
    let out = s.inject(m1(), P_PORT, 0, vec![init(0xaaaa_0003, &[])]);
    let (tag, cookie) = init_ack_cookie(&out).expect("an INIT ACK");
    s.inject(m1(), P_PORT, tag, vec![Chunk::CookieEcho { cookie }]);
    assert!(s.events.contains(&(id, Event::Restarted)));
    assert_eq!(s.ep.association(id).unwrap().peer_tag(), 0xaaaa_0003);
    assert_eq!(s.ep.association_for_peer(m1(), P_PORT), Some(id));
    assert_eq!(s.ep.association_for_peer(m2(), P_PORT), None);
}

/// Messages B delivered to its queue before P restarted, and that B's
/// application has not read yet, are still read after the restart, first
/// (they were acknowledged: P's old incarnation will never send them
/// again). They used to vanish with the old incarnation's receiver.
///
/// ```text
///   P (m1)                                   B (cn)
///   DATA "one", "two" --------------------->  (delivered, unread)
///                       <------------------  SACK
///   (P restarts) INIT, COOKIE ECHO -------->  Restarted
///   DATA "three" -------------------------->
///   B's application reads: one, two, three
/// ```
#[test]
fn a_restart_keeps_the_messages_not_read_yet() {
    let mut s = b(7);
    let (id, b_tag, _) = s.handshake(m1(), P_PORT, 0x1111_0001, &[]);
    let data = |tsn: u32, ssn: u16, text: &'static str| {
        Chunk::Data(msctp_proto::wire::DataChunk {
            tsn,
            stream_id: 0,
            ssn,
            ppid: 0,
            unordered: false,
            begin: true,
            end: true,
            immediate: true,
            payload: Bytes::from_static(text.as_bytes()),
        })
    };
    s.inject(
        m1(),
        P_PORT,
        b_tag,
        vec![data(1000, 0, "one"), data(1001, 1, "two")],
    );
    // P restarts: a new tag, the same address and port.
    let out = s.inject(m1(), P_PORT, 0, vec![init(0x2222_0002, &[])]);
    let (new_tag, cookie) = init_ack_cookie(&out).unwrap();
    let out = s.inject(m1(), P_PORT, new_tag, vec![Chunk::CookieEcho { cookie }]);
    assert!(matches!(out[0].first(), Some(Chunk::CookieAck)));
    assert!(s.events.contains(&(id, Event::Restarted)));
    s.inject(m1(), P_PORT, new_tag, vec![data(1000, 0, "three")]);
    let a = s.ep.association_mut(id).unwrap();
    let mut read = Vec::new();
    while let Some(m) = a.recv() {
        read.push(m.data);
    }
    assert_eq!(
        read,
        ["one", "two", "three"].map(|t| Bytes::from_static(t.as_bytes()))
    );
}
