//! The attack suite (RFC 5062, RFC 9260 sections 5.2 and 11, RFC 4895):
//! every test name contains `hijack`. A mobile (A, 10.1.0.2, later also
//! 10.2.0.2) talks to a correspondent (B, 10.9.0.1); an attacker at
//! 192.0.2.66 knows the verification tags (it saw one packet) but not the
//! AUTH key. None of the attacks moves, kills or redirects the
//! association; each is counted in the statistics; after each, data
//! still flows both ways and nothing was ever sent to the attacker.

mod common;

use std::cell::RefCell;
use std::net::IpAddr;
use std::rc::Rc;
use std::time::Duration;

use bytes::Bytes;
use common::*;
use msctp_proto::wire::chunk::{auth_hmac_range, chunk_type};
use msctp_proto::wire::{
    AsconfChunk, AuthChunk, Chunk, CommonHeader, GapBlock, Packet, PacketRepr, Param, SackChunk,
    crc,
};
use msctp_proto::{AssocId, AssociationConfig, EndpointConfig, Event, State};

const M1: &str = "10.1.0.2";
const M2: &str = "10.2.0.2";
const CN: &str = "10.9.0.1";
const ATTACKER: &str = "192.0.2.66";

struct Scene {
    n: Net,
    a: AssocId,
    b: AssocId,
    /// The handshake as it was on the wire.
    init: Vec<u8>,
    cookie_echo: Vec<u8>,
}

fn has_chunk(data: &[u8], ty: u8) -> bool {
    Packet::new_checked(data)
        .map(|p| {
            p.chunks()
                .filter_map(|c| c.ok())
                .any(|(_, v)| v.chunk_type() == ty)
        })
        .unwrap_or(false)
}

fn scene_with(cfg_a: AssociationConfig, cfg_b: AssociationConfig) -> Scene {
    let mut ea = EndpointConfig::new(5000);
    ea.association = cfg_a;
    let mut eb = EndpointConfig::new(6000);
    eb.association = cfg_b;
    let mut n = Net::new(
        ea,
        &[ip(M1), ip(M2)],
        eb,
        &[ip(CN)],
        Link::new(Duration::from_millis(10)),
        77,
    );
    n.a.set_local_addresses(&[ip(M1)]);
    let (a, b) = n.connect(Duration::from_secs(2));
    let find = |ty: u8| {
        n.seen
            .iter()
            .find(|s| has_chunk(&s.bytes, ty))
            .map(|s| s.bytes.to_vec())
            .expect("handshake packet recorded")
    };
    let init = find(chunk_type::INIT);
    let cookie_echo = find(chunk_type::COOKIE_ECHO);
    Scene {
        n,
        a,
        b,
        init,
        cookie_echo,
    }
}

fn scene() -> Scene {
    scene_with(AssociationConfig::default(), AssociationConfig::default())
}

/// What a hijack would change at B.
#[derive(Debug, PartialEq)]
struct View {
    state: State,
    peers: Vec<IpAddr>,
    primary: Option<IpAddr>,
    tags: (u32, u32),
}

impl Scene {
    fn view(&self) -> View {
        let x = self
            .n
            .b
            .association(self.b)
            .expect("B's association exists");
        View {
            state: x.state(),
            peers: x.paths().iter().map(|p| p.remote).collect(),
            primary: x.primary(),
            tags: (x.local_tag(), x.peer_tag()),
        }
    }

    fn stats_b(&self) -> msctp_proto::association::AssociationStats {
        self.n.b.association(self.b).unwrap().stats()
    }

    /// B's tag (what packets to B carry) and A's.
    fn tags(&self) -> (u32, u32) {
        let x = self.n.b.association(self.b).unwrap();
        (x.local_tag(), x.peer_tag())
    }

    /// Hands `pkt` to B as if it came from `src`, then lets the network
    /// run a little.
    fn send_b(&mut self, src: &str, pkt: Vec<u8>) {
        let now = self.n.now;
        self.n
            .b
            .handle_datagram(now, ip(src), ip(CN), Bytes::from(pkt));
        self.n.run_for(Duration::from_millis(100));
    }

    fn send_a(&mut self, src: &str, pkt: Vec<u8>) {
        let now = self.n.now;
        self.n
            .a
            .handle_datagram(now, ip(src), ip(M1), Bytes::from(pkt));
        self.n.run_for(Duration::from_millis(100));
    }

    fn sent_to_attacker(&self) -> bool {
        self.n.seen.iter().any(|s| s.dst == ip(ATTACKER))
    }

    fn b_events(&self) -> Vec<Event> {
        self.n
            .events(Side::B)
            .iter()
            .filter(|(_, id, _)| *id == self.b)
            .map(|(_, _, e)| e.clone())
            .collect()
    }

    /// Data still flows both ways, to the addresses it went to before.
    fn assert_intact(&mut self, before: &View) {
        assert_eq!(&self.view(), before, "the association changed");
        let (a, b) = (self.a, self.b);
        self.n
            .a
            .association_mut(a)
            .unwrap()
            .send(0, 0, Bytes::from_static(b"ping"), false)
            .unwrap();
        self.n
            .b
            .association_mut(b)
            .unwrap()
            .send(0, 0, Bytes::from_static(b"pong"), false)
            .unwrap();
        self.n.run_for(Duration::from_millis(500));
        // Earlier data may be queued in front of the probes.
        let last = |x: &mut msctp_proto::Association| std::iter::from_fn(|| x.recv()).last();
        let got_b = last(self.n.b.association_mut(b).unwrap()).expect("A->B");
        let got_a = last(self.n.a.association_mut(a).unwrap()).expect("B->A");
        assert_eq!(&got_b.data[..], b"ping");
        assert_eq!(&got_a.data[..], b"pong");
        assert!(!self.sent_to_attacker(), "a packet went to the attacker");
        assert!(
            !self
                .b_events()
                .iter()
                .any(|e| matches!(e, Event::Restarted | Event::Closed { .. })),
            "B restarted or closed: {:?}",
            self.b_events()
        );
    }

    /// The mobile adds M2 (and asks for it as primary); the ASCONF is
    /// captured and withheld from B. Returns the captured packet.
    fn capture_asconf(&mut self, set_primary: bool) -> Vec<u8> {
        let held = Rc::new(RefCell::new(Vec::new()));
        let h = held.clone();
        self.n.filter = Some(Box::new(move |from, _, _, data: &mut Vec<u8>| {
            if from == Side::A && has_chunk(data, chunk_type::ASCONF) {
                h.borrow_mut().push(data.clone());
                Verdict::Drop
            } else {
                Verdict::Pass
            }
        }));
        let a = self.n.a.association_mut(self.a).unwrap();
        a.add_local_address(ip(M2)).unwrap();
        if set_primary {
            a.request_peer_primary(ip(M2)).unwrap();
        }
        self.n.run_for(Duration::from_millis(50));
        self.n.filter = None;
        let captured = held.borrow().first().cloned();
        captured.expect("an ASCONF was sent")
    }
}

fn header(tag: u32) -> CommonHeader {
    CommonHeader {
        src_port: 5000,
        dst_port: 6000,
        verification_tag: tag,
    }
}

/// A packet to B (ports 5000 -> 6000) with verification tag `tag`.
fn to_b_packet(tag: u32, chunks: Vec<Chunk>) -> Vec<u8> {
    PacketRepr {
        header: header(tag),
        chunks,
    }
    .emit()
}

/// The ASCONF chunk of a captured packet.
fn asconf_of(pkt: &[u8]) -> AsconfChunk {
    let r = PacketRepr::parse(&Bytes::copy_from_slice(pkt)).unwrap();
    r.chunks
        .into_iter()
        .find_map(|c| match c {
            Chunk::Asconf(a) => Some(a),
            _ => None,
        })
        .unwrap()
}

/// The attacker's ASCONF: add its own address and make it the primary,
/// with the serial number the correspondent expects next.
fn evil_asconf(genuine: &[u8]) -> AsconfChunk {
    let g = asconf_of(genuine);
    AsconfChunk {
        serial: g.serial,
        address: g.address,
        params: vec![
            Param::AddIpAddress {
                correlation_id: 1,
                address: ip(ATTACKER),
            },
            Param::SetPrimaryAddress {
                correlation_id: 2,
                address: ip(ATTACKER),
            },
        ],
    }
}

/// An AUTH chunk whose HMAC is not made with the association key.
fn forged_auth(mac: u8) -> Chunk {
    Chunk::Auth(AuthChunk {
        shared_key_id: 0,
        hmac_id: 3,
        hmac: Bytes::from(vec![mac; 32]),
    })
}

#[test]
fn hijack_unauthenticated_asconf_adding_an_attacker_address_and_set_primary() {
    let mut s = scene();
    let genuine = s.capture_asconf(true);
    let before = s.view();
    let fails = s.stats_b().auth_failures;
    let (tag_b, _) = s.tags();
    // From the mobile's own address (spoofed) and from the attacker's.
    for src in [M1, ATTACKER] {
        let pkt = to_b_packet(tag_b, vec![Chunk::Asconf(evil_asconf(&genuine))]);
        s.send_b(src, pkt);
    }
    assert!(s.stats_b().auth_failures >= fails + 2, "not counted");
    s.assert_intact(&before);
    // Control: the genuine, authenticated ASCONF is accepted.
    s.send_b(M1, genuine);
    assert!(s.view().peers.contains(&ip(M2)));
}

#[test]
fn hijack_asconf_with_a_forged_hmac() {
    let mut s = scene();
    let genuine = s.capture_asconf(true);
    let before = s.view();
    let fails = s.stats_b().auth_failures;
    let (tag_b, _) = s.tags();
    for mac in [0u8, 0x5a, 0xff] {
        let pkt = to_b_packet(
            tag_b,
            vec![forged_auth(mac), Chunk::Asconf(evil_asconf(&genuine))],
        );
        s.send_b(M1, pkt);
    }
    // The genuine packet with its MAC reused over altered content.
    let mut altered = genuine.clone();
    let last = altered.len() - 1;
    altered[last] ^= 0x01;
    crc::fill(&mut altered);
    s.send_b(M1, altered);
    assert!(s.stats_b().auth_failures >= fails + 4, "not counted");
    s.assert_intact(&before);
}

#[test]
fn hijack_replayed_asconf_with_an_old_serial_number() {
    let mut s = scene();
    let add = s.capture_asconf(false);
    s.send_b(M1, add.clone());
    assert!(s.view().peers.contains(&ip(M2)), "the genuine Add IP works");
    // The mobile leaves M2 again (a second, newer ASCONF).
    s.n.a
        .association_mut(s.a)
        .unwrap()
        .remove_local_address(ip(M2))
        .unwrap();
    s.n.run_for(Duration::from_millis(500));
    assert!(!s.view().peers.contains(&ip(M2)), "the Delete IP works");
    let before = s.view();
    let stale = s.stats_b().stale_asconfs;
    // An attacker replays the first ASCONF, from either address.
    s.send_b(M1, add.clone());
    s.send_b(ATTACKER, add);
    assert!(s.stats_b().stale_asconfs > stale, "replay not counted");
    s.assert_intact(&before);
}

#[test]
fn hijack_asconf_from_a_spoofed_source_with_a_stolen_tag() {
    // The attacker's own packet, from its own address, found through the
    // Address Parameter (RFC 5061 section 5.2) and the stolen tag.
    let mut s = scene();
    let genuine = s.capture_asconf(true);
    let before = s.view();
    let fails = s.stats_b().auth_failures;
    let (tag_b, _) = s.tags();
    // The genuine packet with its MAC zeroed, and the attacker's own.
    let mut zeroed = genuine.clone();
    let p = Packet::new_checked(&zeroed[..]).unwrap();
    let (r, _) = p
        .chunks()
        .filter_map(|c| c.ok())
        .find(|(_, v)| v.chunk_type() == chunk_type::AUTH)
        .unwrap();
    zeroed[auth_hmac_range(r)].fill(0);
    crc::fill(&mut zeroed);
    s.send_b(ATTACKER, zeroed);
    let own = to_b_packet(
        tag_b,
        vec![forged_auth(1), Chunk::Asconf(evil_asconf(&genuine))],
    );
    s.send_b(ATTACKER, own);
    assert!(s.stats_b().auth_failures >= fails + 2, "not counted");
    s.assert_intact(&before);
}

#[test]
fn hijack_init_replay_does_not_restart_the_association() {
    // RFC 9260 section 5.2.2: an INIT for an existing association is
    // answered with an INIT ACK (to its source) and changes nothing.
    let mut s = scene();
    let before = s.view();
    let n0 = s.stats_b().unexpected_inits;
    let init = s.init.clone();
    s.send_b(M1, init.clone());
    s.send_b(ATTACKER, init);
    assert!(s.stats_b().unexpected_inits > n0, "not counted");
    s.assert_intact(&before);
}

#[test]
fn hijack_cookie_echo_replay_does_not_restart_the_association() {
    // The handshake's own COOKIE ECHO replayed (RFC 9260 section 5.2.4
    // case D, and a stale cookie later): answered at most with a COOKIE
    // ACK, never a restart.
    let mut s = scene();
    let before = s.view();
    let echo = s.cookie_echo.clone();
    s.send_b(M1, echo.clone());
    s.n.run_for(Duration::from_secs(90));
    s.send_b(M1, echo.clone());
    s.assert_intact(&before);
}

#[test]
fn hijack_restart_from_an_attacker_address() {
    // The attacker sends an INIT from its own address listing the mobile's
    // address, answers the INIT ACK it receives, and so holds a valid
    // cookie naming M1: the new association must not steal M1 from the
    // existing one.
    let mut s = scene();
    let before = s.view();
    let mut init = PacketRepr::parse(&Bytes::from(s.init.clone())).unwrap();
    if let Some(Chunk::Init(i)) = init.chunks.first_mut() {
        i.initiate_tag = 0x0bad_cafe;
        i.params.retain(|p| !matches!(p, Param::Ipv4Address(_)));
        i.params.push(Param::Ipv4Address(M1.parse().unwrap()));
    }
    let now = s.n.now;
    s.n.b
        .handle_datagram(now, ip(ATTACKER), ip(CN), Bytes::from(init.emit()));
    let reply = std::iter::from_fn(|| s.n.b.poll_transmit(now))
        .find(|t| t.destination == ip(ATTACKER))
        .expect("the attacker is answered");
    let reply = PacketRepr::parse(&Bytes::from(reply.payload)).unwrap();
    match &reply.chunks[0] {
        // Refused at once (RFC 9260 5.2.2: the INIT names an address of
        // an existing association, which answers it), counted.
        Chunk::Abort { causes, .. } => {
            assert!(!causes.is_empty(), "the ABORT says why");
            let counted = s.n.b.stats().inits_refused + s.stats_b().unexpected_inits;
            assert!(counted > 0, "the refusal is counted");
        }
        // Or answered: then the cookie must not take M1 over.
        Chunk::InitAck(i) => {
            let cookie = i.state_cookie().cloned().unwrap();
            let echo = to_b_packet(i.initiate_tag, vec![Chunk::CookieEcho { cookie }]);
            s.send_b(ATTACKER, echo);
        }
        other => panic!("unexpected answer {other:?}"),
    }
    assert_eq!(s.view(), before);
    // Packets from M1 still reach the original association.
    s.n.seen.retain(|x| x.dst != ip(ATTACKER));
    s.assert_intact(&before);
}

#[test]
fn hijack_abort_and_shutdown_with_guessed_tags() {
    let mut s = scene();
    let before = s.view();
    let bad = s.stats_b().bad_vtag;
    let (tag_b, tag_a) = s.tags();
    let mut sent = 0;
    for guess in [
        0u32,
        1,
        tag_b ^ 1,
        tag_a,
        tag_b.wrapping_add(1),
        0xffff_ffff,
    ] {
        for t_bit in [false, true] {
            if t_bit && guess == tag_a {
                continue; // the T bit reflects A's tag: that one is right
            }
            if !t_bit && guess == tag_b {
                continue;
            }
            for c in [
                Chunk::Abort {
                    t_bit,
                    causes: vec![],
                },
                Chunk::ShutdownComplete { t_bit },
            ] {
                let pkt = to_b_packet(guess, vec![c]);
                s.send_b(M1, pkt);
                sent += 1;
            }
            if !t_bit {
                for c in [Chunk::Shutdown { cum_tsn_ack: 0 }, Chunk::ShutdownAck] {
                    let pkt = to_b_packet(guess, vec![c]);
                    s.send_b(M1, pkt);
                    sent += 1;
                }
            }
        }
    }
    assert!(
        s.stats_b().bad_vtag >= bad + sent - 2,
        "guessed tags not counted ({} of {sent})",
        s.stats_b().bad_vtag - bad
    );
    s.assert_intact(&before);
}

#[test]
fn hijack_peer_that_never_acknowledges() {
    // B's SACKs never reach A (B answers heartbeats): A's memory stays
    // within its send buffer, the retransmission timer backs off, and the
    // association is not torn down while the peer is demonstrably alive.
    let cfg = AssociationConfig {
        send_buffer: 64 * 1024,
        ..AssociationConfig::default()
    };
    let mut s = scene_with(cfg, AssociationConfig::default());
    s.n.filter = Some(Box::new(|from, _, _, data: &mut Vec<u8>| {
        if from == Side::B && has_chunk(data, chunk_type::SACK) {
            Verdict::Drop
        } else {
            Verdict::Pass
        }
    }));
    let a = s.a;
    let mut refused = 0;
    for _ in 0..200 {
        match s
            .n
            .a
            .association_mut(a)
            .unwrap()
            .send(0, 0, Bytes::from(vec![7; 1000]), false)
        {
            Ok(()) => {}
            Err(msctp_proto::SendError::BufferFull) => refused += 1,
            Err(e) => panic!("{e}"),
        }
    }
    s.n.run_for(Duration::from_secs(120));
    let x = s.n.a.association(a).unwrap();
    assert!(refused > 0, "the send buffer bounds what A holds");
    assert!(x.send_buffered() <= 64 * 1024);
    assert!(x.stats().t3_expirations > 0, "timeouts counted");
    x.check_accounting().unwrap();
    // Heartbeats are answered, so the error counter is reset each time
    // (RFC 9260 section 8.1): the association stays, holding its data.
    assert!(x.state().is_established());
    assert!(x.send_buffered() > 0, "nothing was reported delivered");
}

#[test]
fn hijack_zero_window_peer() {
    // B's application never reads: its window closes and stays at zero.
    // A probes (counted) without overrunning B, both stay within their
    // buffers, and when B reads at last everything arrives, once.
    let cfg_b = AssociationConfig {
        receive_window: 8 * 1024,
        ..AssociationConfig::default()
    };
    let cfg_a = AssociationConfig {
        send_buffer: 64 * 1024,
        ..AssociationConfig::default()
    };
    let mut s = scene_with(cfg_a, cfg_b);
    let (a, b) = (s.a, s.b);
    let mut queued = 0usize;
    for k in 0..60u8 {
        if s.n
            .a
            .association_mut(a)
            .unwrap()
            .send(0, 0, Bytes::from(vec![k; 1000]), false)
            .is_ok()
        {
            queued += 1;
        }
    }
    s.n.run_for(Duration::from_secs(300));
    let xa = s.n.a.association(a).unwrap();
    assert!(xa.stats().zero_window_probes > 0, "probes counted");
    assert!(xa.send_buffered() <= 64 * 1024);
    assert!(xa.state().is_established(), "a zero window is no failure");
    let xb = s.n.b.association(b).unwrap();
    assert!(xb.stats().data_chunks_received > 0);
    let mut got = 0;
    let t_end = s.n.now + Duration::from_secs(120);
    while s.n.now < t_end && got < queued {
        while let Some(m) = s.n.b.association_mut(b).unwrap().recv() {
            assert_eq!(m.data[0] as usize, got, "in order, once");
            got += 1;
        }
        s.n.run_for(Duration::from_millis(200));
    }
    assert_eq!(got, queued, "everything arrives once B reads");
}

#[test]
fn hijack_huge_gap_report_list() {
    // A SACK with the valid tag and 16 000 Gap Ack Blocks (overlapping,
    // malformed and in range): processed at a bounded cost, counted, the
    // accounting intact, the association alive.
    let mut s = scene();
    let (a, b) = (s.a, s.b);
    s.n.filter = Some(Box::new(|from, _, _, data: &mut Vec<u8>| {
        if from == Side::A && has_chunk(data, chunk_type::DATA) {
            Verdict::Drop
        } else {
            Verdict::Pass
        }
    }));
    for _ in 0..8 {
        s.n.a
            .association_mut(a)
            .unwrap()
            .send(0, 0, Bytes::from(vec![1; 1000]), false)
            .unwrap();
    }
    s.n.run_for(Duration::from_millis(20));
    s.n.filter = None;
    let xa = s.n.a.association(a).unwrap();
    let cum = s.n.b.association(b).unwrap().cumulative_tsn_received();
    let sacks = xa.stats().oversized_sacks;
    let tag_a = xa.local_tag();
    let gap_blocks = (0..16_000u32)
        .map(|i| GapBlock {
            start: (i % 3) as u16,
            end: 2 + (i % 5) as u16,
        })
        .filter(|g| g.start <= g.end)
        .collect();
    let pkt = PacketRepr {
        header: CommonHeader {
            src_port: 6000,
            dst_port: 5000,
            verification_tag: tag_a,
        },
        chunks: vec![Chunk::Sack(SackChunk {
            flags: 0,
            cum_tsn_ack: cum,
            a_rwnd: 1 << 20,
            gap_blocks,
            dup_tsns: vec![],
        })],
    }
    .emit();
    s.send_a(CN, pkt);
    let xa = s.n.a.association(a).unwrap();
    assert_eq!(xa.stats().oversized_sacks, sacks + 1, "counted");
    xa.check_accounting().unwrap();
    assert!(xa.state().is_established());
    let before = s.view();
    s.n.run_for(Duration::from_secs(5));
    while s.n.b.association_mut(b).unwrap().recv().is_some() {}
    s.assert_intact(&before);
}

#[test]
fn hijack_init_from_the_peers_address_proves_nothing() {
    // Off path, the attacker sends an INIT (tag 0) from A's address M1,
    // as over UDP from another port (issue 31, finding 1):
    //
    //   attacker(M1)  --INIT, tag 0-->  B      B answers it, but the
    //   attacker(M1) <--INIT ACK-----   B      packet proves nothing:
    //
    // B's answer is a reply to that datagram (read with `poll_reply`,
    // sent to the datagram's own UDP port) and `handle_datagram` does not
    // name the association, so a UDP driver learns no port from it.
    let mut s = scene();
    let before = s.view();
    let now = s.n.now;
    let proven =
        s.n.b
            .handle_datagram(now, ip(M1), ip(CN), Bytes::from(s.init.clone()));
    assert_eq!(proven, None, "an INIT is not proof of its source");
    let reply = s.n.b.poll_reply().expect("the INIT is answered at once");
    assert_eq!(reply.destination, ip(M1));
    assert_eq!(
        reply.assoc, None,
        "a reply to the datagram, not association traffic"
    );
    assert!(has_chunk(reply.packet(), chunk_type::INIT_ACK));
    assert!(s.n.b.poll_reply().is_none(), "one reply");
    s.n.run_for(Duration::from_millis(100));
    s.assert_intact(&before);

    // The same association's own traffic is still proof of its source.
    let tag_b = s.tags().0;
    let hb = PacketRepr {
        header: CommonHeader {
            src_port: 5000,
            dst_port: 6000,
            verification_tag: tag_b,
        },
        chunks: vec![Chunk::Heartbeat {
            info: Bytes::from_static(b"hello"),
        }],
    };
    let now = s.n.now;
    let proven =
        s.n.b
            .handle_datagram(now, ip(M1), ip(CN), Bytes::from(hb.emit()));
    assert_eq!(proven, Some(s.b), "a packet with B's own tag names it");
}
