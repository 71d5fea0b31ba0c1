//! Property tests of the wire codec: for arbitrary valid chunks,
//! parameters, error causes and packets, `parse(emit(x)) == x` and
//! `emit(parse(b)) == b`; arbitrary or damaged bytes never make a view, an
//! iterator or a parser panic; and tshark decodes packets we emit without
//! complaint (skipped, with a note, when tshark is not installed).

use bytes::Bytes;
use msctp_proto::wire::chunk::{auth_hmac_range, chunk_type};
use msctp_proto::wire::{
    AsconfAckChunk, AsconfChunk, AuthChunk, Chunk, ChunkView, CommonHeader, DataChunk, ErrorCause,
    GapBlock, InitChunk, Packet, PacketRepr, Param, ParamIter, ParamView, ProbeArrival, ProbeChunk,
    ProbeEchoChunk, SackChunk, crc,
};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::net::IpAddr;
use std::process::Command;

// ---------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------

fn arb_bytes(max: usize) -> impl Strategy<Value = Bytes> {
    vec(any::<u8>(), 0..=max).prop_map(Bytes::from)
}

fn arb_ip() -> impl Strategy<Value = IpAddr> {
    prop_oneof![
        any::<[u8; 4]>().prop_map(IpAddr::from),
        any::<[u8; 16]>().prop_map(IpAddr::from)
    ]
}

const KNOWN_CAUSES: &[u16] = &[
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0x105,
];
const KNOWN_PARAMS: &[u16] = &[
    1, 5, 6, 7, 8, 9, 11, 12, 0x8000, 0x8002, 0x8003, 0x8004, 0x8008, 0xc000, 0xc001, 0xc002,
    0xc003, 0xc004, 0xc005, 0xc006,
];
const KNOWN_CHUNKS: &[u8] = &[
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 14, 15, 0x80, 0xb0, 0xb1, 0xc0, 0xc1, 0x40, 0xc2, 0x82,
];

/// Any valid error cause.
pub fn arb_cause() -> impl Strategy<Value = ErrorCause> {
    use ErrorCause as E;
    prop_oneof![
        any::<u16>().prop_map(|stream_id| E::InvalidStreamIdentifier { stream_id }),
        vec(any::<u16>(), 0..5)
            .prop_map(|param_types| E::MissingMandatoryParameter { param_types }),
        any::<u32>().prop_map(|staleness_us| E::StaleCookie { staleness_us }),
        Just(E::OutOfResource),
        arb_bytes(24).prop_map(|address| E::UnresolvableAddress { address }),
        arb_bytes(24).prop_map(|chunk| E::UnrecognizedChunkType { chunk }),
        Just(E::InvalidMandatoryParameter),
        arb_bytes(24).prop_map(|params| E::UnrecognizedParameters { params }),
        any::<u32>().prop_map(|tsn| E::NoUserData { tsn }),
        Just(E::CookieReceivedWhileShuttingDown),
        arb_bytes(24).prop_map(|addresses| E::RestartWithNewAddresses { addresses }),
        arb_bytes(24).prop_map(|reason| E::UserInitiatedAbort { reason }),
        arb_bytes(24).prop_map(|info| E::ProtocolViolation { info }),
        arb_bytes(24).prop_map(|request| E::DeleteLastRemainingAddress { request }),
        arb_bytes(24).prop_map(|request| E::ResourceShortage { request }),
        arb_bytes(24).prop_map(|request| E::DeleteSourceAddress { request }),
        Just(E::IllegalAsconfAck),
        arb_bytes(24).prop_map(|request| E::NoAuthorization { request }),
        any::<u16>().prop_map(|hmac_id| E::UnsupportedHmacIdentifier { hmac_id }),
        (
            any::<u16>().prop_filter("unknown code", |c| !KNOWN_CAUSES.contains(c)),
            arb_bytes(24)
        )
            .prop_map(|(code, info)| E::Unknown { code, info }),
    ]
}

/// Any valid parameter.
pub fn arb_param() -> impl Strategy<Value = Param> {
    prop_oneof![
        arb_bytes(40).prop_map(Param::HeartbeatInfo),
        any::<[u8; 4]>().prop_map(|a| Param::Ipv4Address(a.into())),
        any::<[u8; 16]>().prop_map(|a| Param::Ipv6Address(a.into())),
        arb_bytes(64).prop_map(Param::StateCookie),
        arb_bytes(16).prop_map(Param::UnrecognizedParameter),
        any::<u32>().prop_map(Param::CookiePreservative),
        arb_bytes(16).prop_map(Param::HostNameAddress),
        vec(any::<u16>(), 0..4).prop_map(Param::SupportedAddressTypes),
        Just(Param::EcnCapable),
        Just(Param::ForwardTsnSupported),
        (any::<u32>(), arb_ip()).prop_map(|(correlation_id, address)| Param::AddIpAddress {
            correlation_id,
            address
        }),
        (any::<u32>(), arb_ip()).prop_map(|(correlation_id, address)| Param::DeleteIpAddress {
            correlation_id,
            address
        }),
        (any::<u32>(), arb_ip()).prop_map(|(correlation_id, address)| Param::SetPrimaryAddress {
            correlation_id,
            address
        }),
        (any::<u32>(), vec(arb_cause(), 0..3)).prop_map(|(correlation_id, causes)| {
            Param::ErrorCauseIndication {
                correlation_id,
                causes,
            }
        }),
        any::<u32>().prop_map(|correlation_id| Param::SuccessIndication { correlation_id }),
        any::<u32>().prop_map(Param::AdaptationLayerIndication),
        vec(any::<u8>(), 0..6).prop_map(Param::SupportedExtensions),
        arb_bytes(36).prop_map(Param::Random),
        vec(any::<u8>(), 0..6).prop_map(Param::Chunks),
        vec(any::<u16>(), 0..4).prop_map(Param::HmacAlgo),
        (
            any::<u16>().prop_filter("unknown type", |t| !KNOWN_PARAMS.contains(t)),
            arb_bytes(16)
        )
            .prop_map(|(param_type, value)| Param::Unknown { param_type, value }),
    ]
}

fn arb_init() -> impl Strategy<Value = InitChunk> {
    (
        any::<u32>(),
        any::<u32>(),
        any::<u16>(),
        any::<u16>(),
        any::<u32>(),
        vec(arb_param(), 0..6),
    )
        .prop_map(
            |(initiate_tag, a_rwnd, outbound_streams, inbound_streams, initial_tsn, params)| {
                InitChunk {
                    initiate_tag,
                    a_rwnd,
                    outbound_streams,
                    inbound_streams,
                    initial_tsn,
                    params,
                }
            },
        )
}

/// Any valid chunk.
pub fn arb_chunk() -> impl Strategy<Value = Chunk> {
    prop_oneof![
        (
            any::<(u32, u16, u16, u32)>(),
            any::<[bool; 4]>(),
            arb_bytes(300)
        )
            .prop_map(
                |((tsn, stream_id, ssn, ppid), [unordered, begin, end, immediate], payload)| {
                    Chunk::Data(DataChunk {
                        tsn,
                        stream_id,
                        ssn,
                        ppid,
                        unordered,
                        begin,
                        end,
                        immediate,
                        payload,
                    })
                }
            ),
        arb_init().prop_map(Chunk::Init),
        arb_init().prop_map(Chunk::InitAck),
        (
            any::<u32>(),
            any::<u32>(),
            vec(any::<(u16, u16)>(), 0..6),
            vec(any::<u32>(), 0..4)
        )
            .prop_map(
                |(cum_tsn_ack, a_rwnd, gaps, dup_tsns)| Chunk::Sack(SackChunk {
                    flags: 0,
                    cum_tsn_ack,
                    a_rwnd,
                    gap_blocks: gaps
                        .into_iter()
                        .map(|(start, end)| GapBlock { start, end })
                        .collect(),
                    dup_tsns,
                })
            ),
        arb_bytes(40).prop_map(|info| Chunk::Heartbeat { info }),
        arb_bytes(40).prop_map(|info| Chunk::HeartbeatAck { info }),
        (any::<bool>(), vec(arb_cause(), 0..3))
            .prop_map(|(t_bit, causes)| Chunk::Abort { t_bit, causes }),
        any::<u32>().prop_map(|cum_tsn_ack| Chunk::Shutdown { cum_tsn_ack }),
        Just(Chunk::ShutdownAck),
        vec(arb_cause(), 0..3).prop_map(|causes| Chunk::Error { causes }),
        arb_bytes(64).prop_map(|cookie| Chunk::CookieEcho { cookie }),
        Just(Chunk::CookieAck),
        any::<bool>().prop_map(|t_bit| Chunk::ShutdownComplete { t_bit }),
        (any::<u16>(), any::<u16>(), arb_bytes(32)).prop_map(|(shared_key_id, hmac_id, hmac)| {
            Chunk::Auth(AuthChunk {
                shared_key_id,
                hmac_id,
                hmac,
            })
        }),
        (any::<u32>(), arb_ip(), vec(arb_param(), 0..4)).prop_map(|(serial, address, params)| {
            Chunk::Asconf(AsconfChunk {
                serial,
                address,
                params,
            })
        }),
        (any::<u32>(), vec(arb_param(), 0..4))
            .prop_map(|(serial, params)| Chunk::AsconfAck(AsconfAckChunk { serial, params })),
        (any::<u32>(), any::<u8>(), any::<u8>(), arb_bytes(64)).prop_map(
            |(train, seq, count, filler)| Chunk::Probe(ProbeChunk {
                train,
                seq,
                count,
                filler
            })
        ),
        (any::<u32>(), vec(any::<(u8, u16, u32)>(), 0..8)).prop_map(|(train, a)| {
            Chunk::ProbeEcho(ProbeEchoChunk {
                train,
                arrivals: a
                    .into_iter()
                    .map(|(seq, packet_len, offset_ns)| ProbeArrival {
                        seq,
                        packet_len,
                        offset_ns,
                    })
                    .collect(),
            })
        }),
        (any::<u32>(), vec(any::<(u16, u16)>(), 0..4)).prop_map(|(new_cum_tsn, streams)| {
            Chunk::ForwardTsn {
                new_cum_tsn,
                streams,
            }
        }),
        (
            any::<u8>().prop_filter("unknown type", |t| !KNOWN_CHUNKS.contains(t)),
            any::<u8>(),
            arb_bytes(40)
        )
            .prop_map(|(chunk_type, flags, value)| Chunk::Unknown {
                chunk_type,
                flags,
                value
            }),
    ]
}

/// Any valid packet.
pub fn arb_packet() -> impl Strategy<Value = PacketRepr> {
    (any::<(u16, u16, u32)>(), vec(arb_chunk(), 0..5)).prop_map(
        |((src_port, dst_port, verification_tag), chunks)| PacketRepr {
            header: CommonHeader {
                src_port,
                dst_port,
                verification_tag,
            },
            chunks,
        },
    )
}

// ---------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------

fn length_field(b: &[u8]) -> usize {
    usize::from(u16::from_be_bytes([b[2], b[3]]))
}

proptest! {
    #![proptest_config(Config { cases: 2000, ..Config::default() })]

    #[test]
    fn cause_roundtrip(c in arb_cause()) {
        let mut out = Vec::new();
        c.emit(&mut out);
        prop_assert_eq!(out.len(), c.padded_len());
        prop_assert_eq!(length_field(&out), c.length());
        prop_assert_eq!(out.len() % 4, 0);
        let b = Bytes::from(out);
        let back = ErrorCause::parse(&b).unwrap();
        prop_assert_eq!(&back, &c);
        let mut again = Vec::new();
        back.emit(&mut again);
        prop_assert_eq!(&again[..], &b[..]);
    }

    #[test]
    fn param_roundtrip(p in arb_param()) {
        let mut out = Vec::new();
        p.emit(&mut out);
        prop_assert_eq!(out.len(), p.padded_len());
        prop_assert_eq!(length_field(&out), p.length());
        prop_assert_eq!(p.param_type(), u16::from_be_bytes([out[0], out[1]]));
        let b = Bytes::from(out);
        let back = Param::parse(&b).unwrap();
        prop_assert_eq!(&back, &p);
        let mut again = Vec::new();
        back.emit(&mut again);
        prop_assert_eq!(&again[..], &b[..]);
    }

    #[test]
    fn param_list_roundtrip(ps in vec(arb_param(), 0..6)) {
        let mut out = Vec::new();
        for p in &ps {
            p.emit(&mut out);
        }
        prop_assert_eq!(Param::parse_list(&Bytes::from(out)).unwrap(), ps);
    }

    #[test]
    fn chunk_roundtrip(c in arb_chunk()) {
        let mut out = Vec::new();
        c.emit(&mut out);
        prop_assert_eq!(out.len(), c.padded_len());
        prop_assert_eq!(length_field(&out), c.length());
        prop_assert_eq!((out[0], out[1]), (c.chunk_type(), c.flags()));
        let b = Bytes::from(out);
        // Parse both with and without the chunk's trailing padding.
        prop_assert_eq!(&Chunk::parse(&b).unwrap(), &c);
        prop_assert_eq!(&Chunk::parse(&b.slice(..c.length())).unwrap(), &c);
        let mut again = Vec::new();
        Chunk::parse(&b).unwrap().emit(&mut again);
        prop_assert_eq!(&again[..], &b[..]);
    }

    #[test]
    fn packet_roundtrip(p in arb_packet()) {
        let out = p.emit();
        prop_assert_eq!(out.len(), p.buffer_len());
        prop_assert!(crc::verify(&out));
        let view = Packet::new_checked(&out[..]).unwrap();
        prop_assert!(view.verify_checksum());
        prop_assert_eq!(view.header(), p.header);
        let ranges: Vec<_> = view.chunks().map(|c| c.unwrap().0).collect();
        prop_assert_eq!(ranges.len(), p.chunks.len());
        for (r, c) in ranges.iter().zip(&p.chunks) {
            prop_assert_eq!(r.len(), c.length());
            if let Chunk::Auth(a) = c {
                prop_assert_eq!(&out[auth_hmac_range(r.clone())], &a.hmac[..]);
            }
        }
        let b = Bytes::from(out);
        let back = PacketRepr::parse(&b).unwrap();
        prop_assert_eq!(&back, &p);
        prop_assert_eq!(&back.emit()[..], &b[..]);
    }
}

// ---------------------------------------------------------------------
// Arbitrary and damaged input never panics
// ---------------------------------------------------------------------

/// Runs every view, iterator and parser over `b`; when a whole packet
/// parses, its re-encoding must parse to the same value.
fn exercise(b: &[u8]) {
    let bytes = Bytes::copy_from_slice(b);
    let p = Packet::new_unchecked(b);
    let _ = (
        p.src_port(),
        p.dst_port(),
        p.verification_tag(),
        p.checksum(),
        p.header(),
        p.verify_checksum(),
    );
    let _ = p.payload();
    for item in p.chunks() {
        let Ok((range, view)) = item else { break };
        let _ = (
            view.chunk_type(),
            view.flags(),
            view.length(),
            view.value(),
            view.padded_len(),
        );
        let _ = Chunk::parse(&bytes.slice(range.clone()));
        let _ = auth_hmac_range(range.clone());
        for item in ParamIter::new_in(b, range.start.saturating_add(4)..range.end) {
            let Ok((r, v)) = item else { break };
            let _ = (
                v.param_type(),
                v.length(),
                v.value(),
                v.padded_len(),
                v.unknown_action(),
            );
            let _ = Param::parse(&bytes.slice(r.clone()));
            let _ = ErrorCause::parse(&bytes.slice(r));
        }
    }
    let cv = ChunkView::new_unchecked(b);
    let _ = (
        cv.chunk_type(),
        cv.flags(),
        cv.length(),
        cv.value(),
        cv.padded_len(),
        cv.unknown_action(),
    );
    let _ = ChunkView::new_checked(b);
    let pv = ParamView::new_unchecked(b);
    let _ = (pv.param_type(), pv.length(), pv.value(), pv.padded_len());
    let _ = ParamView::new_checked(b);
    let _ = Chunk::parse(&bytes);
    let _ = Param::parse(&bytes);
    let _ = Param::parse_list(&bytes);
    let _ = ErrorCause::parse(&bytes);
    let _ = ErrorCause::parse_list(&bytes);
    let _ = ParamIter::new(b).count();
    let _ = crc::checksum(b);
    let mut m = b.to_vec();
    crc::fill(&mut m);
    if let Ok(repr) = PacketRepr::parse(&bytes) {
        let re = repr.emit();
        assert_eq!(
            PacketRepr::parse(&Bytes::from(re)).expect("re-encoding parses"),
            repr
        );
    }
}

/// A valid packet with a few bytes overwritten, cut short or extended.
fn damaged_packet() -> impl Strategy<Value = Vec<u8>> {
    (
        arb_packet(),
        vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        any::<prop::sample::Index>(),
        0u8..4,
    )
        .prop_map(|(p, edits, cut, mode)| {
            let mut b = p.emit();
            for (i, v) in edits {
                let at = i.index(b.len());
                b[at] = v;
            }
            match mode {
                0 => b.truncate(cut.index(b.len() + 1)),
                1 => b.extend_from_slice(&[0, 1, 2][..cut.index(4)]),
                _ => {}
            }
            b
        })
}

/// A chunk's bytes with its length field (or an inner one) rewritten.
fn damaged_chunk() -> impl Strategy<Value = Vec<u8>> {
    (arb_chunk(), any::<prop::sample::Index>(), any::<u16>()).prop_map(|(c, at, len)| {
        let mut b = Vec::new();
        c.emit(&mut b);
        // Length fields sit at offset 2 of 4-aligned TLV headers.
        let slots = b.len() / 4;
        let slot = at.index(slots.max(1));
        if let Some(f) = b.get_mut(slot * 4 + 2..slot * 4 + 4) {
            f.copy_from_slice(&len.to_be_bytes());
        }
        b
    })
}

proptest! {
    #![proptest_config(Config { cases: 3000, ..Config::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(b in vec(any::<u8>(), 0..200)) {
        exercise(&b);
    }

    #[test]
    fn damaged_packets_never_panic(b in damaged_packet()) {
        exercise(&b);
    }

    #[test]
    fn damaged_chunks_never_panic(b in damaged_chunk()) {
        exercise(&b);
        let mut packet = vec![0u8; 12];
        packet.extend_from_slice(&b);
        exercise(&packet);
    }
}

// ---------------------------------------------------------------------
// tshark decodes what we emit
// ---------------------------------------------------------------------

/// A pcap (Ethernet, IPv4, UDP 9900 -> 9899) holding `packets`.
fn pcap(packets: &[Vec<u8>]) -> Vec<u8> {
    let mut f = Vec::new();
    for v in [
        0xa1b2_c3d4u32.to_le_bytes(),
        [2, 0, 4, 0],
        [0; 4],
        [0; 4],
        65535u32.to_le_bytes(),
        1u32.to_le_bytes(),
    ] {
        f.extend_from_slice(&v);
    }
    for (i, sctp) in packets.iter().enumerate() {
        let udp_len = 8 + sctp.len();
        let ip_len = 20 + udp_len;
        let mut ip = vec![
            0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1,
        ];
        ip[2..4].copy_from_slice(&u16::try_from(ip_len).expect("small packet").to_be_bytes());
        let sum = ip
            .chunks(2)
            .map(|w| u32::from(u16::from_be_bytes([w[0], w[1]])))
            .sum::<u32>();
        let sum = (sum & 0xffff) + (sum >> 16);
        ip[10..12].copy_from_slice(&(!((sum & 0xffff) + (sum >> 16)) as u16).to_be_bytes());
        let frame_len = 14 + ip_len;
        let rec = [
            (i as u32).to_le_bytes(),
            0u32.to_le_bytes(),
            (frame_len as u32).to_le_bytes(),
            (frame_len as u32).to_le_bytes(),
        ];
        for v in rec {
            f.extend_from_slice(&v);
        }
        f.extend_from_slice(&[0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x08, 0x00]);
        f.extend_from_slice(&ip);
        f.extend_from_slice(&9900u16.to_be_bytes());
        f.extend_from_slice(&9899u16.to_be_bytes());
        f.extend_from_slice(&(udp_len as u16).to_be_bytes());
        f.extend_from_slice(&[0, 0]);
        f.extend_from_slice(sctp);
    }
    f
}

fn tshark(args: &[&str]) -> Option<String> {
    let out = Command::new("tshark").args(args).output().ok()?;
    assert!(
        out.status.success(),
        "tshark {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Packets as a sender would build them: every chunk type, with realistic
/// contents (tshark's expert system flags semantic oddities such as empty
/// DATA chunks, which are valid to decode but not to send).
fn realistic_packets() -> Vec<PacketRepr> {
    let ip4 = |d: u8| IpAddr::from([192, 0, 2, d]);
    let hdr = |verification_tag| CommonHeader {
        src_port: 5001,
        dst_port: 5002,
        verification_tag,
    };
    let init = InitChunk {
        initiate_tag: 0x1234_5678,
        a_rwnd: 131_072,
        outbound_streams: 10,
        inbound_streams: 10,
        initial_tsn: 1000,
        params: vec![
            Param::Ipv4Address([192, 0, 2, 1].into()),
            Param::Ipv6Address("2001:db8::1".parse().unwrap()),
            Param::CookiePreservative(5000),
            Param::SupportedAddressTypes(vec![5, 6]),
            Param::EcnCapable,
            Param::ForwardTsnSupported,
            Param::SupportedExtensions(vec![
                chunk_type::AUTH,
                chunk_type::ASCONF,
                chunk_type::ASCONF_ACK,
            ]),
            Param::Random(Bytes::from(vec![0x5a; 32])),
            Param::HmacAlgo(vec![1, 3]),
            Param::Chunks(vec![chunk_type::ASCONF, chunk_type::ASCONF_ACK]),
            Param::AdaptationLayerIndication(7),
        ],
    };
    let mut init_ack = init.clone();
    init_ack
        .params
        .push(Param::StateCookie(Bytes::from(vec![0x6b; 37])));
    // The unrecognised TLV is copied with its padding.
    init_ack
        .params
        .push(Param::UnrecognizedParameter(Bytes::from_static(&[
            0xff, 0x77, 0, 5, 1, 0, 0, 0,
        ])));
    let data = |tsn, len: usize| {
        Chunk::Data(DataChunk {
            tsn,
            stream_id: 1,
            ssn: 2,
            ppid: 51,
            unordered: tsn % 2 == 0,
            begin: true,
            end: tsn % 3 != 0,
            immediate: tsn % 5 == 0,
            payload: Bytes::from(vec![b'x'; len]),
        })
    };
    let auth = Chunk::Auth(AuthChunk {
        shared_key_id: 0,
        hmac_id: 1,
        hmac: Bytes::from(vec![0xaa; 20]),
    });
    let delete = Param::DeleteIpAddress {
        correlation_id: 2,
        address: ip4(1),
    };
    let mut request = Vec::new();
    delete.emit(&mut request);
    vec![
        PacketRepr {
            header: hdr(0),
            chunks: vec![Chunk::Init(init)],
        },
        PacketRepr {
            header: hdr(1),
            chunks: vec![Chunk::InitAck(init_ack)],
        },
        PacketRepr {
            header: hdr(2),
            chunks: vec![
                Chunk::CookieEcho {
                    cookie: Bytes::from(vec![0x6b; 37]),
                },
                data(1000, 5),
            ],
        },
        PacketRepr {
            header: hdr(3),
            chunks: vec![Chunk::CookieAck],
        },
        PacketRepr {
            header: hdr(4),
            chunks: vec![
                data(1001, 1),
                data(1002, 2),
                data(1003, 1200),
                data(1005, 3),
            ],
        },
        PacketRepr {
            header: hdr(5),
            chunks: vec![Chunk::Sack(SackChunk {
                flags: 0,
                cum_tsn_ack: 1001,
                a_rwnd: 100_000,
                gap_blocks: vec![GapBlock { start: 2, end: 3 }, GapBlock { start: 5, end: 7 }],
                dup_tsns: vec![1000, 999],
            })],
        },
        PacketRepr {
            header: hdr(6),
            chunks: vec![Chunk::Heartbeat {
                info: Bytes::from(vec![1; 13]),
            }],
        },
        PacketRepr {
            header: hdr(7),
            chunks: vec![Chunk::HeartbeatAck {
                info: Bytes::from(vec![1; 13]),
            }],
        },
        PacketRepr {
            header: hdr(8),
            chunks: vec![
                auth.clone(),
                Chunk::Asconf(AsconfChunk {
                    serial: 7,
                    address: ip4(1),
                    params: vec![
                        Param::AddIpAddress {
                            correlation_id: 1,
                            address: ip4(9),
                        },
                        delete.clone(),
                        Param::SetPrimaryAddress {
                            correlation_id: 3,
                            address: ip4(9),
                        },
                    ],
                }),
                data(1006, 100),
            ],
        },
        PacketRepr {
            header: hdr(9),
            chunks: vec![
                auth,
                Chunk::AsconfAck(AsconfAckChunk {
                    serial: 7,
                    params: vec![
                        Param::SuccessIndication { correlation_id: 1 },
                        Param::ErrorCauseIndication {
                            correlation_id: 2,
                            causes: vec![ErrorCause::DeleteSourceAddress {
                                request: Bytes::from(request),
                            }],
                        },
                    ],
                }),
            ],
        },
        PacketRepr {
            header: hdr(10),
            chunks: vec![Chunk::Error {
                causes: vec![
                    ErrorCause::InvalidStreamIdentifier { stream_id: 9 },
                    ErrorCause::MissingMandatoryParameter {
                        param_types: vec![7],
                    },
                    ErrorCause::StaleCookie {
                        staleness_us: 1_000,
                    },
                    ErrorCause::OutOfResource,
                    ErrorCause::UnrecognizedChunkType {
                        chunk: Bytes::from_static(&[0x4f, 0, 0, 5, 1]),
                    },
                    ErrorCause::UnrecognizedParameters {
                        params: Bytes::from_static(&[0xff, 0x77, 0, 4]),
                    },
                    ErrorCause::NoUserData { tsn: 4 },
                    ErrorCause::CookieReceivedWhileShuttingDown,
                    ErrorCause::UnsupportedHmacIdentifier { hmac_id: 2 },
                ],
            }],
        },
        PacketRepr {
            header: hdr(11),
            chunks: vec![Chunk::Shutdown { cum_tsn_ack: 1006 }],
        },
        PacketRepr {
            header: hdr(12),
            chunks: vec![Chunk::ShutdownAck],
        },
        PacketRepr {
            header: hdr(13),
            chunks: vec![Chunk::ShutdownComplete { t_bit: true }],
        },
        PacketRepr {
            header: hdr(14),
            chunks: vec![Chunk::Abort {
                t_bit: false,
                causes: vec![
                    ErrorCause::UserInitiatedAbort {
                        reason: Bytes::from_static(b"bye"),
                    },
                    ErrorCause::ProtocolViolation {
                        info: Bytes::from_static(b"oops!"),
                    },
                ],
            }],
        },
        PacketRepr {
            header: hdr(15),
            chunks: vec![Chunk::ForwardTsn {
                new_cum_tsn: 1010,
                streams: vec![(1, 2)],
            }],
        },
    ]
}

/// True for causes that carry no embedded TLV: tshark decodes the copies
/// that the others carry, and random bytes there are malformed to it.
fn flat_cause(c: &ErrorCause) -> bool {
    !matches!(
        c,
        ErrorCause::UnresolvableAddress { .. }
            | ErrorCause::UnrecognizedChunkType { .. }
            | ErrorCause::UnrecognizedParameters { .. }
            | ErrorCause::RestartWithNewAddresses { .. }
            | ErrorCause::DeleteLastRemainingAddress { .. }
            | ErrorCause::ResourceShortage { .. }
            | ErrorCause::DeleteSourceAddress { .. }
            | ErrorCause::NoAuthorization { .. }
            | ErrorCause::Unknown { .. }
    )
}

fn flat_params(params: &mut Vec<Param>) {
    params.retain(|p| !matches!(p, Param::UnrecognizedParameter(_)));
    for p in params {
        if let Param::ErrorCauseIndication { causes, .. } = p {
            causes.retain(flat_cause);
        }
    }
}

/// An arbitrary valid packet with what tshark's expert system objects to
/// on semantic grounds (not encoding) taken out: unknown chunks, empty
/// DATA, unordered gap blocks or more than 100 TSNs in them, TLV copies
/// made of random bytes.
fn tshark_friendly(mut p: PacketRepr) -> PacketRepr {
    p.chunks.retain(|c| !matches!(c, Chunk::Unknown { .. }));
    for c in &mut p.chunks {
        match c {
            Chunk::Data(d) if d.payload.is_empty() => d.payload = Bytes::from_static(b"x"),
            Chunk::Sack(s) => {
                // Short, ascending, separated blocks.
                let mut next = 2;
                for g in &mut s.gap_blocks {
                    g.start = next + g.start % 5;
                    g.end = g.start + g.end % 5;
                    next = g.end + 2;
                }
            }
            Chunk::Abort { causes, .. } | Chunk::Error { causes } => causes.retain(flat_cause),
            Chunk::Init(i) | Chunk::InitAck(i) => flat_params(&mut i.params),
            Chunk::Asconf(a) => flat_params(&mut a.params),
            Chunk::AsconfAck(a) => flat_params(&mut a.params),
            _ => {}
        }
    }
    p
}

#[test]
fn tshark_decodes_emitted_packets() {
    if Command::new("tshark").arg("-v").output().is_err() {
        // `.ci/run` installs it (scripts/install-deps.sh): there, its
        // absence is a failure, not a silent pass.
        msctp_testkit::skip(&msctp_testkit::require("tshark is not installed".into()));
        return;
    }
    let mut reprs = realistic_packets();
    for r in &reprs {
        assert_eq!(&PacketRepr::parse(&Bytes::from(r.emit())).unwrap(), r);
    }
    // Plus arbitrary packets, made acceptable to tshark's expert checks.
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    for _ in 0..200 {
        let p = arb_packet()
            .new_tree(&mut runner)
            .expect("strategy")
            .current();
        reprs.push(tshark_friendly(p));
    }
    let packets: Vec<Vec<u8>> = reprs.iter().map(PacketRepr::emit).collect();
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("wire_emitted_{}.pcap", std::process::id()));
    std::fs::write(&path, pcap(&packets)).expect("write pcap");
    let file = path.to_str().expect("utf-8 path");

    let flagged = tshark(&[
        "-r",
        file,
        "-o",
        "sctp.checksum:CRC-32C",
        "-Y",
        "sctp.checksum.status==0 || _ws.malformed || _ws.expert.severity>=\"warning\"",
    ])
    .expect("tshark");

    // tshark's chunk boundaries must be ours.
    let fields = tshark(&[
        "-r",
        file,
        "-T",
        "fields",
        "-E",
        "aggregator=,",
        "-e",
        "sctp.chunk_type",
        "-e",
        "sctp.chunk_length",
    ])
    .expect("tshark");
    // WIRE_KEEP_PCAP=1 keeps the file (its path is printed) for a look.
    if std::env::var_os("WIRE_KEEP_PCAP").is_some() {
        println!("emitted packets kept in {file}");
    } else {
        let _ = std::fs::remove_file(&path);
    }
    assert!(
        flagged.trim().is_empty(),
        "tshark flags emitted packets:\n{flagged}"
    );
    let lines: Vec<&str> = fields.lines().collect();
    assert_eq!(lines.len(), reprs.len());
    for (line, repr) in lines.iter().zip(&reprs) {
        // tshark also lists the chunk copied into an Unrecognized Chunk
        // Type cause, right after the chunk that carries it.
        let mut types = Vec::new();
        let mut lengths = Vec::new();
        for c in &repr.chunks {
            types.push(c.chunk_type().to_string());
            lengths.push(c.length().to_string());
            if let Chunk::Error { causes } | Chunk::Abort { causes, .. } = c {
                for cause in causes {
                    if let ErrorCause::UnrecognizedChunkType { chunk } = cause {
                        types.push(chunk[0].to_string());
                        lengths.push(u16::from_be_bytes([chunk[2], chunk[3]]).to_string());
                    }
                }
            }
        }
        assert_eq!(
            *line,
            format!("{}\t{}", types.join(","), lengths.join(",")),
            "{repr:?}"
        );
    }
}
