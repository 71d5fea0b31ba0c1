//! Real packets from usrsctp 0.9.5 over UDP encapsulation, captured on a
//! loopback by `scripts/capture-usrsctp.sh` (see
//! `testdata/usrsctp/README.md`). Every packet must decode, verify its
//! CRC32c, re-encode byte for byte, and show the field values that
//! tshark 4.0 printed for it; those values are copied into this file (the
//! summary table from `tshark -T fields`, the rest from `tshark -O sctp`,
//! kept in `testdata/usrsctp/capture.tshark.txt`).

use bytes::Bytes;
use msctp_proto::wire::chunk::auth_hmac_range;
use msctp_proto::wire::{Chunk, ErrorCause, Packet, PacketRepr, Param};
use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr};

const PACKETS_HEX: &str = include_str!("../testdata/usrsctp/packets.hex");

/// Frame number to SCTP packet (the UDP payload).
fn packets() -> BTreeMap<u32, Bytes> {
    let mut map = BTreeMap::new();
    for line in PACKETS_HEX
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (frame, hex_str) = line.split_once('\t').expect("frame<TAB>hex");
        let frame: u32 = frame.parse().expect("frame number");
        map.insert(
            frame,
            Bytes::from(hex::decode(hex_str.trim()).expect("hex")),
        );
    }
    map
}

fn packet(frame: u32) -> PacketRepr {
    PacketRepr::parse(&packets()[&frame]).expect("parse")
}

/// One line of `tshark -T fields -e frame.number -e sctp.srcport
/// -e sctp.dstport -e sctp.verification_tag -e sctp.checksum
/// -e sctp.chunk_type -e sctp.chunk_length`.
struct Row {
    frame: u32,
    src: u16,
    dst: u16,
    vtag: u32,
    /// As tshark prints it: the field read as a big-endian number.
    checksum: u32,
    types: &'static [u8],
    lengths: &'static [u16],
}

const fn row(
    frame: u32,
    src: u16,
    dst: u16,
    vtag: u32,
    checksum: u32,
    types: &'static [u8],
    lengths: &'static [u16],
) -> Row {
    Row {
        frame,
        src,
        dst,
        vtag,
        checksum,
        types,
        lengths,
    }
}

#[rustfmt::skip]
const SUMMARY: [Row; 53] = [
    row(1, 5002, 5001, 0x00000000, 0xabf83d09, &[1], &[98]),
    row(2, 5001, 5002, 0x2dbf1ab3, 0x9563a7c3, &[2], &[452]),
    row(3, 5002, 5001, 0xc698755e, 0x687fd95c, &[10], &[344]),
    row(4, 5001, 5002, 0x2dbf1ab3, 0x6fb81c48, &[11], &[4]),
    row(5, 5002, 5001, 0xc698755e, 0xdcb1e8a1, &[4], &[44]),
    row(6, 5001, 5002, 0x2dbf1ab3, 0xea935dc7, &[5], &[44]),
    row(7, 5002, 5001, 0xc698755e, 0xae037e60, &[0], &[21]),
    row(8, 5001, 5002, 0x2dbf1ab3, 0x2cfb5508, &[3], &[16]),
    row(9, 5001, 5002, 0x2dbf1ab3, 0x912acf7c, &[0], &[21]),
    row(10, 5002, 5001, 0xc698755e, 0xb5f8220b, &[3], &[16]),
    row(11, 5002, 5001, 0xc698755e, 0x6c4d5b1c, &[0], &[116]),
    row(12, 5001, 5002, 0x2dbf1ab3, 0x3075a5a4, &[3, 0], &[16, 116]),
    row(13, 5002, 5001, 0xc698755e, 0xacff9b6d, &[3, 0], &[16, 47]),
    row(14, 5001, 5002, 0x2dbf1ab3, 0x7ee30b3b, &[3], &[16]),
    row(15, 5001, 5002, 0x2dbf1ab3, 0x8612bfce, &[0], &[47]),
    row(16, 5002, 5001, 0xc698755e, 0x4493bd17, &[3, 0, 0], &[16, 616, 616]),
    row(17, 5002, 5001, 0xc698755e, 0x8763eb9f, &[0], &[316]),
    row(18, 5001, 5002, 0x2dbf1ab3, 0xcba7f1b0, &[3], &[16]),
    row(19, 5001, 5002, 0x2dbf1ab3, 0x93ae715e, &[0], &[1460]),
    row(20, 5002, 5001, 0xc698755e, 0x7e66b849, &[3], &[16]),
    row(21, 5001, 5002, 0x2dbf1ab3, 0x477e2277, &[0], &[72]),
    row(22, 5002, 5001, 0xc698755e, 0x293dc3da, &[15, 193, 3], &[28, 32, 16]),
    row(23, 5001, 5002, 0x2dbf1ab3, 0xda2df091, &[15, 128], &[28, 8]),
    row(24, 5002, 5001, 0xc698755e, 0x1e7da628, &[15, 193], &[28, 32]),
    row(25, 5001, 5002, 0x2dbf1ab3, 0xdbb44ef1, &[15, 128], &[28, 8]),
    row(26, 5002, 5001, 0xc698755e, 0x463688b1, &[0], &[23]),
    row(27, 5001, 5002, 0x2dbf1ab3, 0x31cc7c37, &[3, 0], &[16, 23]),
    row(28, 5002, 5001, 0xc698755e, 0xd92b2b94, &[15, 193, 3], &[28, 32, 16]),
    row(29, 5001, 5002, 0x2dbf1ab3, 0xab1b8629, &[15, 128], &[28, 8]),
    row(30, 5002, 5001, 0xc698755e, 0x3cbdec88, &[4], &[44]),
    row(31, 5001, 5002, 0x2dbf1ab3, 0x0a9f59ee, &[5], &[44]),
    row(32, 5001, 5002, 0x2dbf1ab3, 0x17211cfe, &[4], &[44]),
    row(33, 5002, 5001, 0xc698755e, 0x2103a998, &[5], &[44]),
    row(34, 5001, 5002, 0x2dbf1ab3, 0x48144a7c, &[4], &[44]),
    row(35, 5002, 5001, 0xc698755e, 0x7e36ff1a, &[5], &[44]),
    row(36, 5002, 5001, 0xc698755e, 0xb3de4b64, &[4], &[44]),
    row(37, 5001, 5002, 0x2dbf1ab3, 0x85fcfe02, &[5], &[44]),
    row(38, 5002, 5001, 0xc698755e, 0x5840cc1c, &[4], &[44]),
    row(39, 5001, 5002, 0x2dbf1ab3, 0x6e62797a, &[5], &[44]),
    row(40, 5002, 5001, 0xc698755e, 0x55b6e22d, &[7], &[8]),
    row(41, 5001, 5002, 0x2dbf1ab3, 0x56313e2a, &[8], &[4]),
    row(42, 5002, 5001, 0xc698755e, 0x25078215, &[14], &[4]),
    row(43, 5003, 5001, 0x00000000, 0x451513d9, &[1], &[98]),
    row(44, 5001, 5003, 0x791926b5, 0xbd62df2b, &[2], &[452]),
    row(45, 5003, 5001, 0x9c4012b5, 0xd4491444, &[10], &[344]),
    row(46, 5001, 5003, 0x791926b5, 0x76353024, &[11], &[4]),
    row(47, 5003, 5001, 0x9c4012b5, 0x0df340d3, &[4], &[44]),
    row(48, 5001, 5003, 0x791926b5, 0xdf12df12, &[5], &[44]),
    row(49, 5003, 5001, 0x9c4012b5, 0x0254ffb7, &[0], &[28]),
    row(50, 5001, 5003, 0x791926b5, 0x15ad6a13, &[3], &[16]),
    row(51, 5001, 5003, 0x791926b5, 0xaffb98c2, &[0], &[28]),
    row(52, 5003, 5001, 0x9c4012b5, 0xc67f5427, &[3], &[16]),
    row(53, 5003, 5001, 0x9c4012b5, 0xd0b57246, &[6], &[8]),
];

#[test]
fn every_packet_decodes_verifies_and_reencodes() {
    let packets = packets();
    assert_eq!(packets.len(), SUMMARY.len());
    for row in &SUMMARY {
        let bytes = &packets[&row.frame];
        let view = Packet::new_checked(&bytes[..]).expect("header");
        assert!(view.verify_checksum(), "frame {}: bad checksum", row.frame);
        assert_eq!(
            view.checksum().swap_bytes(),
            row.checksum,
            "frame {}",
            row.frame
        );
        assert_eq!(
            (view.src_port(), view.dst_port()),
            (row.src, row.dst),
            "frame {}",
            row.frame
        );
        assert_eq!(view.verification_tag(), row.vtag, "frame {}", row.frame);
        let walked: Vec<(u8, u16)> = view
            .chunks()
            .map(|c| {
                let (range, chunk) = c.expect("chunk");
                assert_eq!(range.len(), usize::from(chunk.length()));
                (chunk.chunk_type(), chunk.length())
            })
            .collect();
        let expected: Vec<(u8, u16)> = row
            .types
            .iter()
            .copied()
            .zip(row.lengths.iter().copied())
            .collect();
        assert_eq!(walked, expected, "frame {}", row.frame);

        let repr = PacketRepr::parse(bytes).unwrap_or_else(|e| panic!("frame {}: {e}", row.frame));
        assert_eq!(repr.header.verification_tag, row.vtag);
        let types: Vec<u8> = repr.chunks.iter().map(Chunk::chunk_type).collect();
        assert_eq!(types, row.types, "frame {}", row.frame);
        for (chunk, &len) in repr.chunks.iter().zip(row.lengths) {
            assert_eq!(
                chunk.length(),
                usize::from(len),
                "frame {}: {chunk:?}",
                row.frame
            );
        }
        assert_eq!(repr.buffer_len(), bytes.len(), "frame {}", row.frame);
        let out = repr.emit();
        assert_eq!(
            hex::encode(&out),
            hex::encode(bytes),
            "frame {}: emit(parse(b)) != b",
            row.frame
        );
    }
}

/// TSN, stream, SSN, PPID, flags U/B/E/I, user data length.
type DataFields = (u32, u16, u16, u32, [bool; 4], usize);

/// `tshark -e sctp.data_tsn_raw -e sctp.data_sid -e sctp.data_ssn
/// -e sctp.data_payload_proto_id -e sctp.data_[ubei]_bit`, and the user
/// data length (chunk length - 16).
#[test]
fn data_chunks() {
    #[rustfmt::skip]
    let expected: [(u32, &[DataFields]); 14] = [
        (7, &[(1833212554, 0, 0, 51, [false, true, true, false], 5)]),
        (9, &[(1145309040, 0, 0, 0, [false, true, true, false], 5)]),
        (11, &[(1833212555, 1, 0, 51, [true, true, true, false], 100)]),
        (12, &[(1145309041, 0, 1, 0, [false, true, true, false], 100)]),
        (13, &[(1833212556, 1, 0, 51, [false, true, true, true], 31)]),
        (15, &[(1145309042, 0, 2, 0, [false, true, true, false], 31)]),
        (16, &[
            (1833212557, 0, 1, 51, [false, true, false, false], 600),
            (1833212558, 0, 1, 51, [false, false, false, false], 600),
        ]),
        (17, &[(1833212559, 0, 1, 51, [false, false, true, false], 300)]),
        (19, &[(1145309043, 0, 3, 0, [false, true, false, false], 1444)]),
        (21, &[(1145309044, 0, 3, 0, [false, false, true, false], 56)]),
        (26, &[(1833212560, 0, 2, 51, [false, true, true, false], 7)]),
        (27, &[(1145309045, 0, 4, 0, [false, true, true, false], 7)]),
        (49, &[(3141677265, 0, 0, 51, [false, true, true, false], 12)]),
        (51, &[(1612411600, 0, 0, 0, [false, true, true, false], 12)]),
    ];
    for (frame, chunks) in expected {
        let data: Vec<_> = packet(frame)
            .chunks
            .into_iter()
            .filter_map(|c| {
                if let Chunk::Data(d) = c {
                    Some(d)
                } else {
                    None
                }
            })
            .collect();
        let got: Vec<_> = data
            .iter()
            .map(|d| {
                (
                    d.tsn,
                    d.stream_id,
                    d.ssn,
                    d.ppid,
                    [d.unordered, d.begin, d.end, d.immediate],
                    d.payload.len(),
                )
            })
            .collect();
        assert_eq!(got, chunks, "frame {frame}");
    }
    // capture_peer.c fills messages with 'a'..'z' repeating.
    let Chunk::Data(d) = &packet(7).chunks[0] else {
        panic!()
    };
    assert_eq!(&d.payload[..], b"abcde");
    let Chunk::Data(d) = &packet(17).chunks[0] else {
        panic!()
    };
    assert_eq!(d.payload[0], b'a' + (1200 % 26) as u8);
}

/// `tshark -e sctp.sack_cumulative_tsn_ack_raw -e sctp.sack_a_rwnd`; no
/// gap blocks or duplicates occur on a loss-free loopback.
#[test]
fn sack_chunks() {
    let expected = [
        (8, 1833212554, 131072),
        (10, 1145309040, 130811),
        (12, 1833212555, 131072),
        (13, 1145309041, 131072),
        (14, 1833212556, 131072),
        (16, 1145309042, 131072),
        (18, 1833212559, 128804),
        (20, 1145309043, 129372),
        (22, 1145309044, 131072),
        (27, 1833212560, 131072),
        (28, 1145309045, 131072),
        (50, 3141677265, 130804),
        (52, 1612411600, 130804),
    ];
    for (frame, cum, a_rwnd) in expected {
        let sacks: Vec<_> = packet(frame)
            .chunks
            .into_iter()
            .filter_map(|c| {
                if let Chunk::Sack(s) = c {
                    Some(s)
                } else {
                    None
                }
            })
            .collect();
        assert_eq!(sacks.len(), 1, "frame {frame}");
        assert_eq!(
            (sacks[0].cum_tsn_ack, sacks[0].a_rwnd),
            (cum, a_rwnd),
            "frame {frame}"
        );
        assert!(sacks[0].gap_blocks.is_empty() && sacks[0].dup_tsns.is_empty());
    }
}

/// The RANDOM parameters of the INIT (frame 1) and INIT ACK (frame 2) of
/// the association that later exchanges authenticated ASCONFs: with them
/// (and the empty endpoint-pair shared key 0) the association key of RFC
/// 4895 section 6.1 can be derived and the HMACs of frames 22 to 29
/// checked.
pub const ASSOC1_INIT_RANDOM: &str =
    "446009ddc4d29da8e483f96b017a406189244081734267a06b9fdfb55f71250a";
pub const ASSOC1_INIT_ACK_RANDOM: &str =
    "5b18514225a9a67e44d5e7e2666ad7b818d365221e1af1dc2a76a223d75ca3c0";

/// INIT and INIT ACK: `tshark -e sctp.init_* -e sctp.initack_*
/// -e sctp.parameter_type -e sctp.random_number -e sctp.hmac_id
/// -e sctp.supported_chunk_type -e sctp.parameter_ipv4_address
/// -e sctp.parameter_supported_address_type`.
#[test]
fn init_and_init_ack() {
    let expected = [
        (1, 0x2dbf1ab3, 1833212554, ASSOC1_INIT_RANDOM),
        (2, 0xc698755e, 1145309040, ASSOC1_INIT_ACK_RANDOM),
        (
            43,
            0x791926b5,
            3141677265,
            "0e7a711906aaa7b953301538eeb22fb4c95bd60c46f75ae160a3da5517042c19",
        ),
        (
            44,
            0x9c4012b5,
            1612411600,
            "a17b1de37409aaf25a642de09c4d3827cfd1ac50806f4a9576a2a57b9c5df1b5",
        ),
    ];
    for (frame, tag, tsn, random) in expected {
        let repr = packet(frame);
        let (init, is_ack) = match &repr.chunks[..] {
            [Chunk::Init(i)] => (i, false),
            [Chunk::InitAck(i)] => (i, true),
            other => panic!("frame {frame}: {other:?}"),
        };
        assert_eq!(is_ack, frame % 2 == 0);
        assert_eq!(init.initiate_tag, tag);
        assert_eq!(init.a_rwnd, 131072);
        assert_eq!((init.outbound_streams, init.inbound_streams), (10, 2048));
        assert_eq!(init.initial_tsn, tsn);
        let mut params = vec![
            Param::EcnCapable,
            Param::ForwardTsnSupported,
            Param::SupportedExtensions(vec![192, 15, 193, 128, 130]),
            Param::Random(Bytes::from(hex::decode(random).unwrap())),
            Param::HmacAlgo(vec![1]),
            Param::Chunks(vec![128, 193]),
        ];
        if is_ack {
            params.push(Param::Ipv4Address(Ipv4Addr::new(127, 0, 0, 2)));
            params.push(Param::Ipv4Address(Ipv4Addr::new(127, 0, 0, 1)));
            let Some(Param::StateCookie(cookie)) = init.params.last() else {
                panic!("no cookie")
            };
            assert_eq!(cookie.len(), 340);
            params.push(Param::StateCookie(cookie.clone()));
        } else {
            params.push(Param::SupportedAddressTypes(vec![5]));
        }
        assert_eq!(init.params, params, "frame {frame}");
    }
}

#[test]
fn cookie_echo_returns_the_state_cookie_and_cookie_ack() {
    for (init_ack, echo, ack) in [(2, 3, 4), (44, 45, 46)] {
        let [Chunk::InitAck(i)] = &packet(init_ack).chunks[..] else {
            panic!()
        };
        let Some(Param::StateCookie(cookie)) = i.params.last() else {
            panic!()
        };
        assert_eq!(
            packet(echo).chunks,
            vec![Chunk::CookieEcho {
                cookie: cookie.clone()
            }]
        );
        assert_eq!(packet(ack).chunks, vec![Chunk::CookieAck]);
    }
}

/// AUTH, ASCONF and ASCONF-ACK: `tshark -e sctp.shared_key_id
/// -e sctp.hmac_id -e sctp.hmac -e sctp.asconf_seq_nr_number
/// -e sctp.asconf_ack_seq_nr_number -e sctp.parameter_type
/// -e sctp.correlation_id -e sctp.parameter_ipv4_address`.
#[test]
fn authenticated_asconf_exchange() {
    let ip = |last: u8| IpAddr::V4(Ipv4Addr::new(127, 0, 0, last));
    let requests = [
        (
            22,
            "e182d47a67ef44ba88f5b3102f287d41fba945e5",
            0x6d449a8a,
            ip(1),
            Param::AddIpAddress {
                correlation_id: 0x0100_0000,
                address: ip(2),
            },
        ),
        (
            24,
            "08f1a6c74b6431f395019c813b484225aaa68bf4",
            0x6d449a8b,
            ip(2),
            Param::SetPrimaryAddress {
                correlation_id: 0x0100_0000,
                address: ip(2),
            },
        ),
        (
            28,
            "64246d847c1b21638cdc8484cd4a06f039bc1888",
            0x6d449a8c,
            ip(2),
            Param::DeleteIpAddress {
                correlation_id: 0x0100_0000,
                address: ip(2),
            },
        ),
    ];
    let acks = [
        (23, "1d992780bcaa98f8529f27c8679616f9eece44a5", 0x6d449a8a),
        (25, "369a033436712a01145908d6655707a28fb0dcb4", 0x6d449a8b),
        (29, "d55a925fb6d08959e566fb4f991bc48757477532", 0x6d449a8c),
    ];
    let bytes_of = packets();
    let check_auth = |frame: u32, chunk: &Chunk, hmac: &str| {
        let Chunk::Auth(a) = chunk else {
            panic!("frame {frame}: {chunk:?}")
        };
        assert_eq!((a.shared_key_id, a.hmac_id), (0, 1), "frame {frame}");
        assert_eq!(hex::encode(&a.hmac), hmac, "frame {frame}");
        // The AUTH chunk is the first chunk: its HMAC sits at 12 + 8.
        let p = &bytes_of[&frame];
        let (range, _) = Packet::new_unchecked(&p[..])
            .chunks()
            .next()
            .unwrap()
            .unwrap();
        let h = auth_hmac_range(range);
        assert_eq!(h, 20..40);
        assert_eq!(hex::encode(&p[h]), hmac);
    };
    for (frame, hmac, serial, address, request) in requests {
        let repr = packet(frame);
        check_auth(frame, &repr.chunks[0], hmac);
        let Chunk::Asconf(a) = &repr.chunks[1] else {
            panic!("frame {frame}")
        };
        assert_eq!((a.serial, a.address), (serial, address), "frame {frame}");
        assert_eq!(a.params, vec![request], "frame {frame}");
    }
    for (frame, hmac, serial) in acks {
        let repr = packet(frame);
        assert_eq!(repr.chunks.len(), 2);
        check_auth(frame, &repr.chunks[0], hmac);
        let Chunk::AsconfAck(a) = &repr.chunks[1] else {
            panic!("frame {frame}")
        };
        assert_eq!(a.serial, serial);
        // usrsctp reports success implicitly: no parameters.
        assert!(a.params.is_empty());
    }
}

/// `tshark -e sctp.parameter_length -e sctp.parameter_heartbeat_information`:
/// the acknowledgement echoes the request's information.
#[test]
fn heartbeats() {
    let expected = [
        (
            5,
            6,
            "ae24026ba8390a00f4254cba3b778a63021000007f000002000000000000000000000000",
        ),
        (
            30,
            31,
            "b024026b2de803000000000000000000021000007f000001000000000000000000000000",
        ),
        (
            32,
            33,
            "b024026be59a05000000000000000000021000007f000001000000000000000000000000",
        ),
        (
            34,
            35,
            "b124026b87c10d000000000000000000021000007f000001000000000000000000000000",
        ),
        (
            36,
            37,
            "b224026b458d04000000000000000000021000007f000001000000000000000000000000",
        ),
        (
            38,
            39,
            "b224026bb9dc04000000000000000000021000007f000002000000000000000000000000",
        ),
        (
            47,
            48,
            "b324026b094806002db0757093ac16fc021000007f000002000000000000000000000000",
        ),
    ];
    for (hb, ack, info) in expected {
        let info = Bytes::from(hex::decode(info).unwrap());
        assert_eq!(info.len(), 40 - 4);
        assert_eq!(
            packet(hb).chunks,
            vec![Chunk::Heartbeat { info: info.clone() }],
            "frame {hb}"
        );
        assert_eq!(
            packet(ack).chunks,
            vec![Chunk::HeartbeatAck { info }],
            "frame {ack}"
        );
    }
}

/// `tshark -e sctp.shutdown_cumulative_tsn_ack -e sctp.abort_t_bit
/// -e sctp.shutdown_complete_t_bit -e sctp.cause_code -e sctp.chunk_length`.
#[test]
fn shutdown_and_abort() {
    assert_eq!(
        packet(40).chunks,
        vec![Chunk::Shutdown {
            cum_tsn_ack: 1145309045
        }]
    );
    assert_eq!(packet(41).chunks, vec![Chunk::ShutdownAck]);
    assert_eq!(
        packet(42).chunks,
        vec![Chunk::ShutdownComplete { t_bit: false }]
    );
    assert_eq!(
        packet(53).chunks,
        vec![Chunk::Abort {
            t_bit: false,
            causes: vec![ErrorCause::UserInitiatedAbort {
                reason: Bytes::new()
            }],
        }]
    );
}

#[test]
fn a_flipped_bit_fails_the_checksum() {
    for (frame, bytes) in packets() {
        let mut b = bytes.to_vec();
        let last = b.len() - 1;
        b[last] ^= 0x80;
        assert!(
            !Packet::new_checked(&b[..]).unwrap().verify_checksum(),
            "frame {frame}"
        );
    }
}
