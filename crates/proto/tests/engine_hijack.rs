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
use common::*;
use msctp_proto::wire::chunk::chunk_type;
use msctp_proto::wire::{Chunk, CommonHeader, ErrorCause, InitChunk, PacketRepr, Param};
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

/// A and B with an established association; A's packets are recorded.
fn established(seed: u64) -> Lab {
    let mut n = Net::new(
        EndpointConfig::new(A_PORT),
        &[m1()],
        EndpointConfig::new(B_PORT),
        &[cn()],
        Link::new(Duration::from_millis(10)),
        seed,
    );
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

fn addr_param(a: IpAddr) -> Param {
    match a {
        IpAddr::V4(v4) => Param::Ipv4Address(v4),
        IpAddr::V6(v6) => Param::Ipv6Address(v6),
    }
}

/// An INIT with Initiate Tag `tag` listing `listed`.
fn init(tag: u32, listed: &[IpAddr]) -> Chunk {
    Chunk::Init(InitChunk {
        initiate_tag: tag,
        a_rwnd: 65_535,
        outbound_streams: 1,
        inbound_streams: 1,
        initial_tsn: 1000,
        params: listed.iter().map(|a| addr_param(*a)).collect(),
    })
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

/// The attacker goes on with whatever B answered: a cookie it received
/// is echoed from its own address.
fn echo_any_cookie(n: &mut Net, src: IpAddr, replies: &[PacketRepr]) -> Vec<PacketRepr> {
    let mut out = Vec::new();
    for r in replies {
        if let Some(Chunk::InitAck(ack)) = r.chunks.first() {
            let cookie = ack
                .params
                .iter()
                .find_map(|p| match p {
                    Param::StateCookie(c) => Some(c.clone()),
                    _ => None,
                })
                .expect("an INIT ACK carries a cookie");
            let echo = packet(A_PORT, ack.initiate_tag, vec![Chunk::CookieEcho { cookie }]);
            out.extend(inject(n, src, echo));
        }
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

/// The Restart with New Addresses cause's addresses (TLVs).
fn restart_cause_addresses(r: &PacketRepr) -> Option<Vec<u8>> {
    match r.chunks.first() {
        Some(Chunk::Abort { causes, .. }) => causes.iter().find_map(|c| match c {
            ErrorCause::RestartWithNewAddresses { addresses } => Some(addresses.to_vec()),
            _ => None,
        }),
        _ => None,
    }
}

fn addr_tlv(a: IpAddr) -> Vec<u8> {
    let mut v = Vec::new();
    addr_param(a).emit(&mut v);
    v
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
    assert_eq!(
        restart_cause_addresses(&replies[0]),
        Some(addr_tlv(x)),
        "{replies:?}"
    );
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
