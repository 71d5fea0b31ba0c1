//! Unit tests of chunk decoding and encoding (`chunk.rs`).

use super::*;
use crate::wire::cause::cause_code;
use crate::wire::param::param_type;
use std::net::{Ipv4Addr, Ipv6Addr};

use crate::wire::tlv::testing::bytes;

/// Parses one chunk given with its padding, checks `emit` gives the same
/// bytes back and the lengths agree.
fn roundtrip(hex_str: &str) -> Chunk {
    let (chunk, kind) = crate::wire::tlv::testing::roundtrip::<Chunk>(hex_str);
    assert_eq!(u16::from(chunk.chunk_type()), kind >> 8);
    chunk
}

fn parse_err(hex_str: &str) -> WireError {
    crate::wire::tlv::testing::parse_err::<Chunk>(hex_str)
}

#[test]
fn data_with_all_flags_and_odd_payload() {
    let c = roundtrip(
        "00 0f 00 15 | 00 00 00 01 | 00 02 00 03 | 00 00 00 33 | 68 65 6c 6c 6f 00 00 00",
    );
    let Chunk::Data(d) = c else {
        panic!("not DATA: {c:?}")
    };
    assert_eq!((d.tsn, d.stream_id, d.ssn, d.ppid), (1, 2, 3, 51));
    assert!(d.unordered && d.begin && d.end && d.immediate);
    assert_eq!(&d.payload[..], b"hello");
}

#[test]
fn data_flag_bits_one_by_one() {
    for (flag, u, b, e, i) in [
        (0x01u8, false, false, true, false),
        (0x02, false, true, false, false),
        (0x04, true, false, false, false),
        (0x08, false, false, false, true),
        (0x03, false, true, true, false),
    ] {
        let hex_str = format!("00 {flag:02x} 00 14 ffffffff 0000 ffff 00000000 01020304");
        let Chunk::Data(d) = roundtrip(&hex_str) else {
            panic!()
        };
        assert_eq!(
            (d.unordered, d.begin, d.end, d.immediate),
            (u, b, e, i),
            "flags {flag:#x}"
        );
        assert_eq!(d.tsn, u32::MAX);
        assert_eq!(d.ssn, u16::MAX);
    }
    // Reserved bits are ignored on receipt and sent as zero.
    let Chunk::Data(d) = Chunk::parse(&bytes("00 f3 00 10 00000001 0000 0000 00000000")).unwrap()
    else {
        panic!()
    };
    assert!(d.begin && d.end && !d.unordered && !d.immediate);
    assert_eq!(Chunk::Data(d).flags(), 0x03);
}

#[test]
fn data_without_user_data_parses() {
    let Chunk::Data(d) = roundtrip("00 03 00 10 00000007 0001 0002 00000000") else {
        panic!()
    };
    assert!(d.payload.is_empty());
    assert_eq!(d.tsn, 7);
    assert_eq!(
        parse_err("00 03 00 0f 00000007 0001 0002 000000"),
        WireError::BadLength {
            what: "DATA chunk",
            length: 15
        }
    );
}

#[test]
fn data_payload_is_a_slice_of_the_input() {
    let b = bytes("00 03 00 14 00000001 0000 0000 00000000 deadbeef");
    let Chunk::Data(d) = Chunk::parse(&b).unwrap() else {
        panic!()
    };
    assert_eq!(d.payload.as_ptr(), b[16..].as_ptr());
}

const INIT_PARAMS: &str = "
    0005 0008 c0000201
    0006 0014 20010db8 00000000 00000000 00000001
    0009 0008 000003e8
    000c 0008 0005 0006
    8000 0004
    c000 0004
    8008 0007 c1800f 00
    8002 0008 01020304
    8003 0006 c180 0000
    8004 0006 0001 0000
    ff77 0005 42 000000";

#[test]
fn init_with_every_kind_of_parameter() {
    // Length 20 + 84 + 5: the last parameter's padding is chunk padding.
    let c = roundtrip(&format!(
        "01 00 00 6d aabbccdd 00010000 000a 0005 00000001 {INIT_PARAMS}"
    ));
    let Chunk::Init(init) = c else { panic!() };
    assert_eq!(init.initiate_tag, 0xaabb_ccdd);
    assert_eq!(init.a_rwnd, 65536);
    assert_eq!((init.outbound_streams, init.inbound_streams), (10, 5));
    assert_eq!(init.initial_tsn, 1);
    assert_eq!(
        init.params,
        vec![
            Param::Ipv4Address(Ipv4Addr::new(192, 0, 2, 1)),
            Param::Ipv6Address("2001:db8::1".parse::<Ipv6Addr>().unwrap()),
            Param::CookiePreservative(1000),
            Param::SupportedAddressTypes(vec![5, 6]),
            Param::EcnCapable,
            Param::ForwardTsnSupported,
            Param::SupportedExtensions(vec![0xc1, 0x80, 0x0f]),
            Param::Random(Bytes::from_static(&[1, 2, 3, 4])),
            Param::Chunks(vec![0xc1, 0x80]),
            Param::HmacAlgo(vec![1]),
            Param::Unknown {
                param_type: 0xff77,
                value: Bytes::from_static(&[0x42])
            },
        ]
    );
}

#[test]
fn init_ack_with_state_cookie_and_unrecognized_parameter() {
    let c = roundtrip(
        "02 00 00 27 01020304 0000ffff 0001 0001 80000000
         0007 000c 6b6b6b6b 6b6b6b6b
         0008 0007 ff7700 00",
    );
    let Chunk::InitAck(ack) = c else { panic!() };
    assert_eq!(
        ack.params,
        vec![
            Param::StateCookie(Bytes::from_static(b"kkkkkkkk")),
            Param::UnrecognizedParameter(Bytes::from_static(&[0xff, 0x77, 0x00])),
        ]
    );
}

#[test]
fn init_that_includes_the_last_padding_in_its_length_is_accepted() {
    // Some stacks count the last parameter's padding; the parameters are
    // the same, only the re-emitted length differs (by the padding).
    let b = bytes("01 00 00 1c 00000001 00001000 0001 0001 00000001 000c 0006 0005 0000");
    let Chunk::Init(init) = Chunk::parse(&b).unwrap() else {
        panic!()
    };
    assert_eq!(init.params, vec![Param::SupportedAddressTypes(vec![5])]);
    assert_eq!(Chunk::Init(init).length(), 0x1a);
}

#[test]
fn init_errors() {
    assert_eq!(
        parse_err("01 00 00 10 00000001 00001000 0001 0001"),
        WireError::BadLength {
            what: "INIT chunk",
            length: 16
        }
    );
    // A parameter with length 0 is recognisable (RFC 9260 section 3.2.1).
    assert_eq!(
        parse_err("01 00 00 18 00000001 00001000 0001 0001 00000001 0005 0000"),
        WireError::BadParamLength {
            offset: 20,
            length: 0
        }
    );
    // A parameter running past the chunk.
    assert_eq!(
        parse_err("01 00 00 18 00000001 00001000 0001 0001 00000001 0005 0008"),
        WireError::BadParamLength {
            offset: 20,
            length: 8
        }
    );
    // An IPv4 Address parameter of the wrong size.
    assert_eq!(
        parse_err("01 00 00 1b 00000001 00001000 0001 0001 00000001 0005 0007 c00002 00"),
        WireError::BadLength {
            what: "IPv4 Address parameter",
            length: 7
        }
    );
}

#[test]
fn sack_with_gaps_and_duplicates() {
    let c = roundtrip(
        "03 00 00 1c 00000010 00001000 0002 0001
         0002 0003 0005 0005
         0000000e",
    );
    assert_eq!(
        c,
        Chunk::Sack(SackChunk {
            flags: 0,
            cum_tsn_ack: 0x10,
            a_rwnd: 0x1000,
            gap_blocks: vec![GapBlock { start: 2, end: 3 }, GapBlock { start: 5, end: 5 }],
            dup_tsns: vec![0x0e],
        })
    );
    roundtrip("03 00 00 10 ffffffff 00000000 0000 0000");
}

#[test]
fn sack_counts_must_agree_with_length() {
    // Says 3 gap blocks and a duplicate, holds 3 blocks.
    let e = parse_err("03 00 00 1c 00000010 00001000 0003 0001 00020003 00050005 0000000e");
    assert_eq!(
        e,
        WireError::BadLength {
            what: "SACK chunk",
            length: 28
        }
    );
    // Says 1 duplicate, holds none.
    let e = parse_err("03 00 00 10 00000010 00001000 0000 0001");
    assert_eq!(
        e,
        WireError::BadLength {
            what: "SACK chunk",
            length: 16
        }
    );
    assert_eq!(
        parse_err("03 00 00 0c 00000010 00001000"),
        WireError::BadLength {
            what: "SACK chunk",
            length: 12
        }
    );
}

#[test]
fn heartbeat_and_ack() {
    let c = roundtrip("04 00 00 0c 0001 0008 deadbeef");
    assert_eq!(
        c,
        Chunk::Heartbeat {
            info: Bytes::from_static(&[0xde, 0xad, 0xbe, 0xef])
        }
    );
    let c = roundtrip("05 00 00 0d 0001 0009 0102030405 000000");
    assert_eq!(
        c,
        Chunk::HeartbeatAck {
            info: Bytes::from_static(&[1, 2, 3, 4, 5])
        }
    );
    // Padding counted in the chunk length: accepted.
    let c = Chunk::parse(&bytes("05 00 00 10 0001 0009 0102030405 000000")).unwrap();
    assert_eq!(
        c,
        Chunk::HeartbeatAck {
            info: Bytes::from_static(&[1, 2, 3, 4, 5])
        }
    );
}

#[test]
fn heartbeat_errors() {
    assert_eq!(
        parse_err("04 00 00 04"),
        WireError::BadLength {
            what: "HEARTBEAT chunk",
            length: 4
        }
    );
    assert_eq!(
        parse_err("04 00 00 08 0001 0000"),
        WireError::BadParamLength {
            offset: 4,
            length: 0
        }
    );
    assert_eq!(
        parse_err("04 00 00 10 0001 0008 deadbeef 0001 0004"),
        WireError::BadLength {
            what: "HEARTBEAT chunk",
            length: 16
        }
    );
    assert_eq!(
        parse_err("05 00 00 06 0001"),
        WireError::Truncated {
            offset: 4,
            needed: 4,
            available: 2
        }
    );
}

#[test]
fn abort_with_t_bit_and_cause() {
    // User-Initiated Abort, reason "bye": cause length 7, chunk 11.
    let c = roundtrip("06 01 00 0b 000c 0007 627965 00");
    assert_eq!(
        c,
        Chunk::Abort {
            t_bit: true,
            causes: vec![ErrorCause::UserInitiatedAbort {
                reason: Bytes::from_static(b"bye")
            }]
        }
    );
    assert_eq!(c.flags(), T_BIT);
    let c = roundtrip("06 00 00 04");
    assert_eq!(
        c,
        Chunk::Abort {
            t_bit: false,
            causes: vec![]
        }
    );
}

#[test]
fn shutdown_family() {
    assert_eq!(
        roundtrip("07 00 00 08 0000002a"),
        Chunk::Shutdown { cum_tsn_ack: 42 }
    );
    assert_eq!(roundtrip("08 00 00 04"), Chunk::ShutdownAck);
    assert_eq!(
        roundtrip("0e 00 00 04"),
        Chunk::ShutdownComplete { t_bit: false }
    );
    assert_eq!(
        roundtrip("0e 01 00 04"),
        Chunk::ShutdownComplete { t_bit: true }
    );
    assert_eq!(
        parse_err("07 00 00 0c 0000002a 00000000"),
        WireError::BadLength {
            what: "SHUTDOWN chunk",
            length: 12
        }
    );
    assert_eq!(
        parse_err("08 00 00 08 00000000"),
        WireError::BadLength {
            what: "SHUTDOWN ACK chunk",
            length: 8
        }
    );
    assert_eq!(
        parse_err("0e 00 00 05 00"),
        WireError::BadLength {
            what: "SHUTDOWN COMPLETE chunk",
            length: 5
        }
    );
}

#[test]
fn error_chunk_with_two_causes() {
    let c = roundtrip("09 00 00 18 0001 0008 0007 0000 | 0006 0008 4f000004 | 0004 0004");
    assert_eq!(
        c,
        Chunk::Error {
            causes: vec![
                ErrorCause::InvalidStreamIdentifier { stream_id: 7 },
                ErrorCause::UnrecognizedChunkType {
                    chunk: Bytes::from_static(&[0x4f, 0, 0, 4])
                },
                ErrorCause::OutOfResource,
            ]
        }
    );
    assert_eq!(
        parse_err("09 00 00 0b 0001 0008 0007 00"),
        WireError::BadParamLength {
            offset: 4,
            length: 8
        }
    );
}

#[test]
fn cookie_echo_and_ack() {
    let c = roundtrip("0a 00 00 09 6b6b6b6b6b 000000");
    assert_eq!(
        c,
        Chunk::CookieEcho {
            cookie: Bytes::from_static(b"kkkkk")
        }
    );
    assert_eq!(
        roundtrip("0a 00 00 04"),
        Chunk::CookieEcho {
            cookie: Bytes::new()
        }
    );
    assert_eq!(roundtrip("0b 00 00 04"), Chunk::CookieAck);
    assert_eq!(
        parse_err("0b 00 00 08 00000000"),
        WireError::BadLength {
            what: "COOKIE ACK chunk",
            length: 8
        }
    );
}

#[test]
fn auth_and_hmac_range() {
    let hmac = "00112233445566778899aabbccddeeff00112233";
    let c = roundtrip(&format!("0f 00 00 1c 0000 0001 {hmac}"));
    let Chunk::Auth(a) = c else { panic!() };
    assert_eq!((a.shared_key_id, a.hmac_id), (0, 1));
    assert_eq!(hex::encode(&a.hmac), hmac);
    assert_eq!(auth_hmac_range(12..40), 20..40);
    assert_eq!(auth_hmac_range(12..15), 15..15);
    assert_eq!(
        auth_hmac_range(usize::MAX - 2..usize::MAX),
        usize::MAX..usize::MAX
    );
    assert_eq!(
        auth_hmac_range(Range {
            start: usize::MAX,
            end: 0
        }),
        usize::MAX..usize::MAX
    );
    assert_eq!(
        parse_err("0f 00 00 07 0000 01 00"),
        WireError::BadLength {
            what: "AUTH chunk",
            length: 7
        }
    );
}

#[test]
fn asconf_with_add_delete_set_primary() {
    let c = roundtrip(
        "c1 00 00 5c 00000001
         0005 0008 c0000201
         c001 0010 00000001 0005 0008 c6336401
         c002 0010 00000002 0005 0008 c0000201
         c004 0010 00000003 0005 0008 c6336401
         c001 001c 00000004 0006 0014 20010db8000000000000000000000002",
    );
    let Chunk::Asconf(a) = c else { panic!() };
    assert_eq!(a.serial, 1);
    assert_eq!(a.address, IpAddr::from([192, 0, 2, 1]));
    let new = IpAddr::from([198, 51, 100, 1]);
    assert_eq!(
        a.params,
        vec![
            Param::AddIpAddress {
                correlation_id: 1,
                address: new
            },
            Param::DeleteIpAddress {
                correlation_id: 2,
                address: IpAddr::from([192, 0, 2, 1])
            },
            Param::SetPrimaryAddress {
                correlation_id: 3,
                address: new
            },
            Param::AddIpAddress {
                correlation_id: 4,
                address: "2001:db8::2".parse().unwrap()
            },
        ]
    );
    // An IPv6 address parameter, adaptation layer indication.
    let c = roundtrip(
        "c1 00 00 24 ffffffff 0006 0014 20010db8000000000000000000000001 c006 0008 00000007",
    );
    let Chunk::Asconf(a) = c else { panic!() };
    assert_eq!(a.address, "2001:db8::1".parse::<IpAddr>().unwrap());
    assert_eq!(a.params, vec![Param::AdaptationLayerIndication(7)]);
}

#[test]
fn asconf_errors() {
    // Host Name Address as the address parameter.
    assert_eq!(
        parse_err("c1 00 00 10 00000001 000b 0008 61626364"),
        WireError::BadAddressType(0x000b)
    );
    // No address parameter at all.
    assert_eq!(
        parse_err("c1 00 00 08 00000001"),
        WireError::BadLength {
            what: "ASCONF chunk",
            length: 8
        }
    );
    // Add IP Address whose address parameter is not an address.
    assert_eq!(
        parse_err("c1 00 00 20 00000001 0005 0008 c0000201 c001 0010 00000001 8000 0008 c6336401"),
        WireError::BadAddressType(0x8000)
    );
    // Add IP Address with an IPv6 parameter too short for an address.
    assert_eq!(
        parse_err("c1 00 00 20 00000001 0005 0008 c0000201 c001 0010 00000001 0006 0008 c6336401"),
        WireError::BadLength {
            what: "IPv6 Address parameter",
            length: 8
        }
    );
}

#[test]
fn asconf_ack_with_success_and_error_indications() {
    // Success for correlation 1; for correlation 2, Delete Source
    // Address carrying the refused Delete IP Address request.
    let c = roundtrip(
        "80 00 00 2c 00000001
         c005 0008 00000001
         c003 001c 00000002
            00a2 0014 c002 0010 00000002 0005 0008 c0000201",
    );
    let Chunk::AsconfAck(a) = c else { panic!() };
    assert_eq!(a.serial, 1);
    assert_eq!(
        a.params,
        vec![
            Param::SuccessIndication { correlation_id: 1 },
            Param::ErrorCauseIndication {
                correlation_id: 2,
                causes: vec![ErrorCause::DeleteSourceAddress {
                    request: bytes("c002 0010 00000002 0005 0008 c0000201")
                }],
            },
        ]
    );
    assert_eq!(
        roundtrip("80 00 00 08 00000009"),
        Chunk::AsconfAck(AsconfAckChunk {
            serial: 9,
            params: vec![]
        })
    );
    assert_eq!(
        parse_err("80 00 00 04"),
        WireError::BadLength {
            what: "ASCONF-ACK chunk",
            length: 4
        }
    );
}

#[test]
fn forward_tsn() {
    let c = roundtrip("c0 00 00 10 00000064 0001 0002 0003 0004");
    assert_eq!(
        c,
        Chunk::ForwardTsn {
            new_cum_tsn: 100,
            streams: vec![(1, 2), (3, 4)]
        }
    );
    assert_eq!(
        parse_err("c0 00 00 0a 00000064 0001 0000"),
        WireError::BadLength {
            what: "FORWARD TSN chunk",
            length: 10
        }
    );
}

#[test]
fn unknown_chunks_are_kept_whole() {
    let c = roundtrip("4f 12 00 07 616263 00");
    assert_eq!(
        c,
        Chunk::Unknown {
            chunk_type: 0x4f,
            flags: 0x12,
            value: Bytes::from_static(b"abc")
        }
    );
    assert_eq!(c.flags(), 0x12);
    // ECNE is not negotiated by this stack: it stays Unknown.
    assert!(matches!(
        roundtrip("0c 00 00 08 00000001"),
        Chunk::Unknown { chunk_type: 12, .. }
    ));
}

#[test]
fn unknown_chunk_action_from_high_bits() {
    assert_eq!(
        UnknownChunkAction::from_type(0x3f),
        UnknownChunkAction::Stop
    );
    assert_eq!(
        UnknownChunkAction::from_type(0x40),
        UnknownChunkAction::StopAndReport
    );
    assert_eq!(
        UnknownChunkAction::from_type(0x80),
        UnknownChunkAction::Skip
    );
    assert_eq!(
        UnknownChunkAction::from_type(chunk_type::ASCONF),
        UnknownChunkAction::SkipAndReport
    );
    assert!(
        UnknownChunkAction::SkipAndReport.reports() && !UnknownChunkAction::SkipAndReport.stops()
    );
    assert!(UnknownChunkAction::Stop.stops() && !UnknownChunkAction::Stop.reports());
}

#[test]
fn chunk_view_checks() {
    let b = bytes("4f 12 00 07 616263 00 ff");
    let v = ChunkView::new_checked(&b[..]).unwrap();
    assert_eq!(
        (v.chunk_type(), v.flags(), v.length(), v.padded_len()),
        (0x4f, 0x12, 7, 8)
    );
    assert_eq!(v.value(), b"abc");
    assert_eq!(v.unknown_action(), UnknownChunkAction::StopAndReport);
    assert_eq!(
        ChunkView::new_checked(&b[..3]).unwrap_err(),
        WireError::Truncated {
            offset: 0,
            needed: 4,
            available: 3
        }
    );
    assert_eq!(
        ChunkView::new_checked(&b[..6]).unwrap_err(),
        WireError::BadChunkLength {
            offset: 0,
            length: 7
        }
    );
    assert_eq!(
        ChunkView::new_checked(&[0u8, 0, 0, 3][..]).unwrap_err(),
        WireError::BadChunkLength {
            offset: 0,
            length: 3
        }
    );
    // Unchecked views over short buffers read zeros and never panic.
    let v = ChunkView::new_unchecked(&b[..2]);
    assert_eq!(
        (v.chunk_type(), v.flags(), v.length(), v.value()),
        (0x4f, 0x12, 0, &[][..])
    );
    let v = ChunkView::new_unchecked(&b[..5]);
    assert_eq!(v.value(), b"a");
}

#[test]
fn chunk_parse_ignores_bytes_after_the_length() {
    let c = Chunk::parse(&bytes("0b 00 00 04 ffffffff")).unwrap();
    assert_eq!(c, Chunk::CookieAck);
}

#[test]
fn try_emit_refuses_oversized_chunks() {
    let big = Chunk::CookieEcho {
        cookie: Bytes::from(vec![0u8; MAX_CHUNK_LEN - 3]),
    };
    let mut out = vec![1u8];
    assert_eq!(
        big.try_emit(&mut out),
        Err(WireError::TooLong {
            what: "chunk",
            length: MAX_CHUNK_LEN + 1
        })
    );
    assert_eq!(out, [1]);
    let fits = Chunk::CookieEcho {
        cookie: Bytes::from(vec![0u8; MAX_CHUNK_LEN - 4]),
    };
    fits.try_emit(&mut out).unwrap();
    assert_eq!(out.len(), 1 + crate::wire::field::padded(MAX_CHUNK_LEN));
    assert_eq!(&out[1..5], &[10, 0, 0xff, 0xff]);
}

#[test]
fn type_codes_match_the_rfcs() {
    assert_eq!(param_type::ADD_IP_ADDRESS, 0xc001);
    assert_eq!(cause_code::UNSUPPORTED_HMAC_IDENTIFIER, 261);
    assert_eq!(chunk_type::ASCONF_ACK, 0x80);
}
