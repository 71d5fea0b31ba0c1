//! Bad input gets the RFC's answer and never a panic: truncated packets,
//! bad lengths and checksums, unknown chunks and parameters of every
//! high-bit class, zero-length parameters, invalid streams, empty DATA,
//! and random mutations of real packets.

mod common;

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use common::*;
use msctp_proto::auth::{AuthParams, HmacAlgorithm, association_key};
use msctp_proto::wire::chunk::{auth_hmac_range, chunk_type};
use msctp_proto::wire::{Chunk, ErrorCause, InitChunk, Packet, PacketRepr, Param, crc};
use msctp_proto::{AssocId, CloseReason, EndpointConfig, Event, State};
use proptest::prelude::*;

struct Est {
    n: Net,
    a: AssocId,
    b: AssocId,
    /// A real DATA packet from A to B, withheld (B has not seen it).
    data_pkt: Vec<u8>,
    src: IpAddr,
    dst: IpAddr,
}

fn established(seed: u64) -> Est {
    let (a1, b1) = (ip("10.0.0.1"), ip("10.0.1.1"));
    let mut n = Net::new(
        EndpointConfig::new(5000),
        &[a1],
        EndpointConfig::new(6000),
        &[b1],
        Link::new(Duration::from_millis(5)),
        seed,
    );
    let (a, b) = n.connect(Duration::from_secs(1));
    let held = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let h = held.clone();
    n.filter = Some(Box::new(move |from, _, _, data: &mut Vec<u8>| {
        let has_data = Packet::new_checked(&data[..])
            .map(|p| {
                p.chunks()
                    .filter_map(|c| c.ok())
                    .any(|(_, v)| v.chunk_type() == 0)
            })
            .unwrap_or(false);
        if from == Side::A && has_data && h.borrow().is_empty() {
            h.borrow_mut().push(data.clone());
            Verdict::Drop
        } else {
            Verdict::Pass
        }
    }));
    n.a.association_mut(a)
        .unwrap()
        .send(3, 9, Bytes::from_static(b"payload!"), false)
        .unwrap();
    n.run_for(Duration::from_millis(1));
    n.filter = None;
    let data_pkt = held.borrow()[0].clone();
    Est {
        n,
        a,
        b,
        data_pkt,
        src: a1,
        dst: b1,
    }
}

impl Est {
    fn inject(&mut self, pkt: Vec<u8>) {
        let now = self.n.now;
        self.n
            .b
            .handle_datagram(now, self.src, self.dst, Bytes::from(pkt));
    }

    /// Chunks B sent since `from` (index into `seen`).
    fn b_sent(&self, from: usize) -> Vec<Chunk> {
        self.n.seen[from..]
            .iter()
            .filter(|s| s.from == Side::B)
            .flat_map(|s| PacketRepr::parse(&s.bytes).unwrap().chunks)
            .collect()
    }

    fn b_recv(&mut self) -> Option<Bytes> {
        self.n
            .b
            .association_mut(self.b)
            .unwrap()
            .recv()
            .map(|m| m.data)
    }

    /// The DATA chunk of the withheld packet (header to end).
    fn data_chunk(&self) -> Vec<u8> {
        self.data_pkt[12..].to_vec()
    }

    fn with_chunks(&self, chunks: &[&[u8]]) -> Vec<u8> {
        let mut p = self.data_pkt[..12].to_vec();
        for c in chunks {
            p.extend_from_slice(c);
            while !p.len().is_multiple_of(4) {
                p.push(0);
            }
        }
        crc::fill(&mut p);
        p
    }
}

fn unknown_chunk(ty: u8) -> Vec<u8> {
    vec![ty, 0, 0, 8, 1, 2, 3, 4]
}

#[test]
fn malformed_packets_are_dropped_and_counted() {
    let mut e = established(1);
    let good = e.data_pkt.clone();
    e.inject(good[..7].to_vec());
    let mut bad_crc = good.clone();
    bad_crc[8] ^= 1;
    e.inject(bad_crc);
    let mut bad_len = good.clone();
    bad_len[14] = 0xff; // chunk length beyond the packet
    bad_len[15] = 0xff;
    crc::fill(&mut bad_len);
    e.inject(bad_len);
    let mut short_len = good.clone();
    short_len[14] = 0;
    short_len[15] = 2; // chunk length below its header
    crc::fill(&mut short_len);
    e.inject(short_len);
    let st = e.n.b.stats();
    assert_eq!(st.truncated, 1);
    assert_eq!(st.bad_checksum, 1);
    assert_eq!(st.malformed, 2);
    assert!(e.b_recv().is_none());
    // The association is untouched: the genuine packet is delivered.
    e.inject(good);
    assert_eq!(e.b_recv().as_deref(), Some(&b"payload!"[..]));
    assert_eq!(e.n.b.association(e.b).unwrap().state(), State::Established);
}

/// Checksum offload (`EndpointConfig::checksum_offload`, RFC 9260
/// section 6.8 left to the layer below): A's packets leave with a zero
/// checksum field (here the "network card" fills it on the way to B, which
/// verifies), and A processes B's packets although their checksum is
/// wrong, where an endpoint without offload drops and counts them
/// (`malformed_packets_are_dropped_and_counted`).
#[test]
fn checksum_offload_neither_fills_nor_verifies_the_crc() {
    let (a1, b1) = (ip("10.0.0.1"), ip("10.0.1.1"));
    let offload = EndpointConfig {
        checksum_offload: true,
        ..EndpointConfig::new(5000)
    };
    let mut n = Net::new(
        offload,
        &[a1],
        EndpointConfig::new(6000),
        &[b1],
        Link::new(Duration::from_millis(5)),
        7,
    );
    let unfilled = std::rc::Rc::new(std::cell::Cell::new((0usize, 0usize)));
    let u = unfilled.clone();
    n.filter = Some(Box::new(move |from, _, _, data: &mut Vec<u8>| {
        if from == Side::A {
            let (zero, all) = u.get();
            u.set((zero + usize::from(crc::stored(data) == 0), all + 1));
            crc::fill(data);
        } else {
            data[8] ^= 0xff;
        }
        Verdict::Pass
    }));
    let (a, b) = n.connect(Duration::from_secs(1));
    n.a.association_mut(a)
        .unwrap()
        .send(0, 0, Bytes::from_static(b"offloaded"), false)
        .unwrap();
    n.run_for(Duration::from_secs(1));
    let m = n.b.association_mut(b).unwrap().recv().map(|m| m.data);
    assert_eq!(m.as_deref(), Some(&b"offloaded"[..]));
    let (zero, all) = unfilled.get();
    assert!(all >= 3 && zero == all, "{zero} of {all} with a zero field");
    assert_eq!(n.a.stats().bad_checksum, 0);
    assert_eq!(n.b.stats().bad_checksum, 0);
    // A took B's SACK despite its damaged checksum.
    let st = n.a.association(a).unwrap().stats();
    assert!(st.sacks_received >= 1, "{st:?}");
}

/// `EndpointConfig::transmit_headroom`: every packet leaves with that many
/// free bytes in front of it, and the packets after the headroom are
/// those an endpoint without headroom sends (same seeds, same exchange:
/// handshake, a message, its SACK).
#[test]
fn transmit_headroom_leaves_room_in_front_of_the_same_packets() {
    let run = |headroom: usize| {
        let addrs = [ip("10.0.0.1"), ip("10.0.1.1")];
        let cfg = |port, listen| EndpointConfig {
            transmit_headroom: headroom,
            listen,
            ..EndpointConfig::new(port)
        };
        let mut ends = [
            msctp_proto::Endpoint::new(cfg(5000, false), [3; 32]).unwrap(),
            msctp_proto::Endpoint::new(cfg(6000, true), [4; 32]).unwrap(),
        ];
        ends[0].set_local_addresses(&addrs[..1]);
        ends[1].set_local_addresses(&addrs[1..]);
        let now = msctp_proto::Time::ZERO;
        let id = ends[0].connect(now, &addrs[1..], 6000).unwrap();
        let mut sent = Vec::new();
        for round in 0..6 {
            if round == 3 {
                let a = ends[0].association_mut(id).unwrap();
                a.send(0, 0, Bytes::from_static(b"in front"), false)
                    .unwrap();
            }
            for from in [0, 1] {
                while let Some(t) = ends[from].poll_transmit(now) {
                    assert_eq!(t.headroom, headroom);
                    assert!(t.payload[..headroom].iter().all(|&x| x == 0));
                    assert!(crc::verify(t.packet()));
                    let p = Bytes::copy_from_slice(t.packet());
                    ends[1 - from].handle_datagram(now, addrs[from], addrs[1 - from], p.clone());
                    sent.push(p);
                }
            }
        }
        sent
    };
    let plain = run(0);
    assert!(plain.len() >= 5, "{} packets", plain.len());
    assert_eq!(run(40), plain);
}

#[test]
fn unknown_chunks_follow_their_high_bits() {
    // (type, processes the DATA behind it, reports it)
    for (ty, goes_on, reports) in [
        (0x3f, false, false),
        (0x7f, false, true),
        (0xbf, true, false),
        (0xff, true, true),
    ] {
        let mut e = established(2);
        let before = e.n.seen.len();
        let pkt = e.with_chunks(&[&unknown_chunk(ty), &e.data_chunk()]);
        e.inject(pkt);
        e.n.run_for(Duration::from_millis(50));
        assert_eq!(e.b_recv().is_some(), goes_on, "type {ty:#x}: DATA after it");
        let reported = e.b_sent(before).iter().any(|c| {
            matches!(c, Chunk::Error { causes } if causes.iter().any(|x| matches!(x, ErrorCause::UnrecognizedChunkType { chunk } if chunk[0] == ty)))
        });
        assert_eq!(reported, reports, "type {ty:#x}: ERROR report");
        assert_eq!(e.n.b.association(e.b).unwrap().state(), State::Established);
    }
}

#[test]
fn data_on_a_stream_that_does_not_exist_is_acknowledged_and_reported() {
    let mut e = established(3);
    let before = e.n.seen.len();
    let mut c = e.data_chunk();
    c[8] = 0xff; // stream identifier 0xffff
    c[9] = 0xff;
    let pkt = e.with_chunks(&[&c]);
    e.inject(pkt);
    e.n.run_for(Duration::from_millis(300));
    assert!(e.b_recv().is_none());
    let sent = e.b_sent(before);
    assert!(sent.iter().any(|c| matches!(c, Chunk::Error { causes } if causes.contains(&ErrorCause::InvalidStreamIdentifier { stream_id: 0xffff }))));
    let tsn = u32::from_be_bytes([
        e.data_pkt[16],
        e.data_pkt[17],
        e.data_pkt[18],
        e.data_pkt[19],
    ]);
    assert!(
        sent.iter()
            .any(|c| matches!(c, Chunk::Sack(s) if s.cum_tsn_ack == tsn)),
        "the TSN is acknowledged"
    );
}

#[test]
fn data_without_user_data_aborts_with_no_user_data() {
    let mut e = established(4);
    let before = e.n.seen.len();
    let mut c = e.data_chunk()[..16].to_vec();
    c[3] = 16;
    let pkt = e.with_chunks(&[&c]);
    e.inject(pkt);
    e.n.run_for(Duration::from_millis(50));
    let tsn = u32::from_be_bytes([c[4], c[5], c[6], c[7]]);
    assert!(e.b_sent(before).iter().any(|c| matches!(c, Chunk::Abort { causes, .. } if causes.contains(&ErrorCause::NoUserData { tsn }))));
    assert!(e.n.events_b.iter().any(|x| matches!(
        &x.2,
        Event::Closed {
            reason: CloseReason::ProtocolViolation(_)
        }
    )));
    assert!(e.n.events_a.iter().any(|x| matches!(
        &x.2,
        Event::Closed {
            reason: CloseReason::PeerAbort { .. }
        }
    )));
}

/// Builds a raw INIT with extra parameter TLVs appended.
fn raw_init(extra: &[Vec<u8>]) -> Vec<u8> {
    let init = Chunk::Init(InitChunk {
        initiate_tag: 0x1234_5678,
        a_rwnd: 65535,
        outbound_streams: 2,
        inbound_streams: 2,
        initial_tsn: 7,
        params: vec![],
    });
    let mut c = Vec::new();
    init.emit(&mut c);
    for p in extra {
        c.extend_from_slice(p);
        while c.len() % 4 != 0 {
            c.push(0);
        }
    }
    let len = (c.len() as u16).to_be_bytes();
    c[2] = len[0];
    c[3] = len[1];
    let mut pkt = vec![0x13, 0x88, 0x17, 0x70, 0, 0, 0, 0, 0, 0, 0, 0];
    pkt.extend_from_slice(&c);
    crc::fill(&mut pkt);
    pkt
}

fn answer_to_init(pkt: Vec<u8>) -> Vec<Chunk> {
    let (a1, b1) = (ip("10.0.0.1"), ip("10.0.1.1"));
    let mut n = Net::new(
        EndpointConfig::new(5000),
        &[a1],
        EndpointConfig::new(6000),
        &[b1],
        Link::new(Duration::from_millis(5)),
        5,
    );
    n.b.handle_datagram(n.now, a1, b1, Bytes::from(pkt));
    let mut out = Vec::new();
    while let Some(t) = n.b.poll_transmit(n.now) {
        let p = PacketRepr::parse(&Bytes::from(t.payload)).unwrap();
        assert_eq!(
            p.header.verification_tag, 0x1234_5678,
            "replies carry the INIT's tag"
        );
        out.extend(p.chunks);
    }
    out
}

#[test]
fn unknown_init_parameters_follow_their_high_bits() {
    let unk = |t: u16| {
        let mut v = t.to_be_bytes().to_vec();
        v.extend_from_slice(&[0, 8, 9, 9, 9, 9]);
        v
    };
    for (ty, reported) in [
        (0x0123u16, false),
        (0x4123, true),
        (0x8123, false),
        (0xC123, true),
    ] {
        let answer = answer_to_init(raw_init(&[unk(ty)]));
        let Some(Chunk::InitAck(ack)) = answer.first() else {
            panic!("no INIT ACK for {ty:#x}: {answer:?}")
        };
        let got = ack.params.iter().any(
            |p| matches!(p, Param::UnrecognizedParameter(tlv) if tlv[..2] == ty.to_be_bytes()),
        );
        assert_eq!(got, reported, "parameter {ty:#x}");
    }
}

#[test]
fn zero_length_or_truncated_init_parameter_is_a_protocol_violation() {
    let answer = answer_to_init(raw_init(&[vec![0x80, 0x00, 0x00, 0x00]]));
    assert!(
        matches!(answer.first(), Some(Chunk::Abort { causes, .. }) if matches!(causes[0], ErrorCause::ProtocolViolation { .. })),
        "{answer:?}"
    );
}

#[test]
fn init_with_zero_streams_is_refused() {
    let mut pkt = raw_init(&[]);
    pkt[12 + 12] = 0; // OS = 0
    pkt[12 + 13] = 0;
    crc::fill(&mut pkt);
    let answer = answer_to_init(pkt);
    assert!(
        matches!(answer.first(), Some(Chunk::Abort { causes, .. }) if causes[0] == ErrorCause::InvalidMandatoryParameter),
        "{answer:?}"
    );
}

/// The association key, derived like the engine does, from the INIT and
/// INIT ACK seen on the wire.
fn key_from_handshake(n: &Net) -> Vec<u8> {
    let params = |c: &Chunk| {
        let (Chunk::Init(i) | Chunk::InitAck(i)) = c else {
            return None;
        };
        let mut a = AuthParams {
            random: vec![],
            chunks: None,
            hmac_ids: vec![],
        };
        for p in &i.params {
            match p {
                Param::Random(r) => a.random = r.to_vec(),
                Param::Chunks(c) => a.chunks = Some(c.clone()),
                Param::HmacAlgo(h) => a.hmac_ids = h.clone(),
                _ => {}
            }
        }
        Some(a)
    };
    let found: Vec<AuthParams> = n
        .seen
        .iter()
        .flat_map(|s| PacketRepr::parse(&s.bytes).unwrap().chunks)
        .filter_map(|c| params(&c))
        .collect();
    association_key(b"", &found[0], &found[1])
}

#[test]
fn authenticated_asconf_with_a_zero_length_parameter_aborts() {
    let (m1, m2, cn) = (ip("10.1.0.2"), ip("10.2.0.2"), ip("10.9.0.1"));
    let mut n = Net::new(
        EndpointConfig::new(5000),
        &[m1, m2],
        EndpointConfig::new(6000),
        &[cn],
        Link::new(Duration::from_millis(5)),
        6,
    );
    n.a.set_local_addresses(&[m1]);
    let (a, b) = n.connect(Duration::from_secs(1));
    let key = key_from_handshake(&n);
    let held = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let h = held.clone();
    n.filter = Some(Box::new(move |from, _, _, data: &mut Vec<u8>| {
        let p = Packet::new_checked(&data[..]).unwrap();
        if from == Side::A
            && p.chunks()
                .filter_map(|c| c.ok())
                .any(|(_, v)| v.chunk_type() == chunk_type::ASCONF)
        {
            h.borrow_mut().push(data.clone());
            return Verdict::Drop;
        }
        Verdict::Pass
    }));
    n.a.association_mut(a)
        .unwrap()
        .add_local_address(m2)
        .unwrap();
    n.run_for(Duration::from_millis(20));
    n.filter = None;
    let mut pkt = held.borrow()[0].clone();
    // The Add IP parameter follows the ASCONF header (8) and its address
    // parameter (8): set its length field to zero, then re-authenticate.
    let view = Packet::new_checked(&pkt[..]).unwrap();
    let chunks: Vec<(std::ops::Range<usize>, u8)> = view
        .chunks()
        .filter_map(|c| c.ok())
        .map(|(r, v)| (r, v.chunk_type()))
        .collect();
    let auth = chunks
        .iter()
        .find(|c| c.1 == chunk_type::AUTH)
        .unwrap()
        .0
        .clone();
    let asconf = chunks
        .iter()
        .find(|c| c.1 == chunk_type::ASCONF)
        .unwrap()
        .0
        .clone();
    let param = asconf.start + 8 + 8;
    assert_eq!(&pkt[param..param + 2], &[0xc0, 0x01], "Add IP Address");
    pkt[param + 2] = 0;
    pkt[param + 3] = 0;
    let mac_range = auth_hmac_range(auth.clone());
    pkt[mac_range.clone()].fill(0);
    let mac = HmacAlgorithm::Sha256.mac(&key, &[&pkt[auth.start..]]);
    pkt[mac_range].copy_from_slice(&mac);
    crc::fill(&mut pkt);
    let before = n.seen.len();
    let now = n.now;
    n.b.handle_datagram(now, m1, cn, Bytes::from(pkt));
    n.run_for(Duration::from_millis(20));
    let aborted = n.seen[before..].iter().filter(|s| s.from == Side::B).flat_map(|s| PacketRepr::parse(&s.bytes).unwrap().chunks).any(|c| {
        matches!(c, Chunk::Abort { causes, .. } if matches!(causes.first(), Some(ErrorCause::ProtocolViolation { .. })))
    });
    assert!(
        aborted,
        "a zero-length parameter in an authenticated ASCONF aborts"
    );
    assert!(n.events_b.iter().any(|e| e.1 == b
        && matches!(
            &e.2,
            Event::Closed {
                reason: CloseReason::ProtocolViolation(_)
            }
        )));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Random damage to real packets (and random bytes) never panics an
    /// established association or a listening endpoint.
    #[test]
    fn random_damage_never_panics(flips in proptest::collection::vec((0usize..2000, any::<u8>()), 1..8), cut in 0usize..2000, junk in proptest::collection::vec(any::<u8>(), 0..200), fix_crc in any::<bool>()) {
        let mut e = established(7);
        let mut pkt = e.data_pkt.clone();
        // Also damage a handshake packet and a SACK from the capture.
        let others: Vec<Vec<u8>> = e.n.seen.iter().take(6).map(|s| s.bytes.to_vec()).collect();
        for base in std::iter::once(pkt.clone()).chain(others) {
            pkt = base;
            for &(pos, val) in &flips {
                let i = pos % pkt.len();
                pkt[i] ^= val;
            }
            if cut < pkt.len() && cut > 0 {
                pkt.truncate(cut.max(12));
            }
            if fix_crc && pkt.len() >= 12 {
                crc::fill(&mut pkt);
            }
            e.inject(pkt.clone());
            let now = e.n.now;
            e.n.a.handle_datagram(now, e.dst, e.src, Bytes::from(pkt.clone()));
        }
        let mut j = junk.clone();
        if fix_crc && j.len() >= 12 {
            crc::fill(&mut j);
        }
        e.inject(j);
        e.n.run_for(Duration::from_millis(100));
        let _ = e.a;
    }
}
