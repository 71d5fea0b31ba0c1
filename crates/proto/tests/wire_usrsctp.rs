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
const SUMMARY: [Row; 73] = [
    row(1, 5002, 5001, 0x00000000, 0xa1f06f95, &[1], &[98]),
    row(2, 5001, 5002, 0x21cf1a47, 0x7665f7d0, &[2], &[452]),
    row(3, 5002, 5001, 0x427413b0, 0x9465b8e5, &[10], &[344]),
    row(4, 5001, 5002, 0x21cf1a47, 0x0431dfa0, &[11], &[4]),
    row(5, 5002, 5001, 0x427413b0, 0x183e4ad3, &[4], &[44]),
    row(6, 5002, 5001, 0x427413b0, 0x416851dc, &[0], &[21]),
    row(7, 5001, 5002, 0x21cf1a47, 0x81f4b991, &[5], &[44]),
    row(8, 5001, 5002, 0x21cf1a47, 0x687aa252, &[3], &[16]),
    row(9, 5001, 5002, 0x21cf1a47, 0xea3be694, &[0], &[21]),
    row(10, 5002, 5001, 0x427413b0, 0x28acd2f4, &[3], &[16]),
    row(11, 5002, 5001, 0x427413b0, 0xd3e67f9b, &[0], &[116]),
    row(12, 5001, 5002, 0x21cf1a47, 0x39c952d5, &[3, 0], &[16, 116]),
    row(13, 5002, 5001, 0x427413b0, 0xb59a6482, &[3, 0], &[16, 47]),
    row(14, 5001, 5002, 0x21cf1a47, 0x13155485, &[3], &[16]),
    row(15, 5001, 5002, 0x21cf1a47, 0xbe5d5783, &[0], &[47]),
    row(16, 5002, 5001, 0x427413b0, 0x0915ffc4, &[3, 0, 0], &[16, 616, 616]),
    row(17, 5002, 5001, 0x427413b0, 0xae4e6d69, &[0], &[316]),
    row(18, 5001, 5002, 0x21cf1a47, 0xa9a7dd81, &[3], &[16]),
    row(19, 5001, 5002, 0x21cf1a47, 0xcfc528cd, &[0], &[1460]),
    row(20, 5002, 5001, 0x427413b0, 0xdfcab523, &[3], &[16]),
    row(21, 5001, 5002, 0x21cf1a47, 0x58796cdf, &[0], &[72]),
    row(22, 5002, 5001, 0x427413b0, 0xa369e472, &[15, 193, 3], &[28, 32, 16]),
    row(23, 5001, 5002, 0x21cf1a47, 0xad3b2eed, &[15, 128], &[28, 8]),
    row(24, 5002, 5001, 0x427413b0, 0x52bf4e55, &[15, 193], &[28, 32]),
    row(25, 5001, 5002, 0x21cf1a47, 0x2ed950a6, &[15, 128], &[28, 8]),
    row(26, 5001, 5002, 0x21cf1a47, 0x0f3b252a, &[4], &[44]),
    row(27, 5002, 5001, 0x427413b0, 0x96f1d668, &[5], &[44]),
    row(28, 5002, 5001, 0x427413b0, 0x245ad877, &[0], &[23]),
    row(29, 5001, 5002, 0x21cf1a47, 0x06ccd9bc, &[3, 0], &[16, 23]),
    row(30, 5002, 5001, 0x427413b0, 0xebb4f177, &[15, 193, 3], &[28, 32, 16]),
    row(31, 5001, 5002, 0x21cf1a47, 0x1a8211c8, &[15, 128], &[28, 8]),
    row(32, 5002, 5001, 0x427413b0, 0x0a78934c, &[4], &[44]),
    row(33, 5001, 5002, 0x21cf1a47, 0x93b2600e, &[5], &[44]),
    row(34, 5001, 5002, 0x21cf1a47, 0x840af24c, &[4], &[44]),
    row(35, 5002, 5001, 0x427413b0, 0x1dc0010e, &[5], &[44]),
    row(36, 5002, 5001, 0x427413b0, 0x612137e8, &[4], &[44]),
    row(37, 5001, 5002, 0x21cf1a47, 0xf8ebc4aa, &[5], &[44]),
    row(38, 5001, 5002, 0x21cf1a47, 0xf1760921, &[4], &[44]),
    row(39, 5002, 5001, 0x427413b0, 0x68bcfa63, &[5], &[44]),
    row(40, 5002, 5001, 0x427413b0, 0x1dfad07e, &[7], &[8]),
    row(41, 5001, 5002, 0x21cf1a47, 0x3db8fdc2, &[8], &[4]),
    row(42, 5002, 5001, 0x427413b0, 0x0055cd49, &[14], &[4]),
    row(43, 5003, 5001, 0x00000000, 0x43f71254, &[1], &[98]),
    row(44, 5001, 5003, 0xbdd64d2e, 0x90a31b08, &[2], &[452]),
    row(45, 5003, 5001, 0xc78b9a6d, 0x5e5228eb, &[10], &[344]),
    row(46, 5001, 5003, 0xbdd64d2e, 0xc46f49d1, &[11], &[4]),
    row(47, 5003, 5001, 0xc78b9a6d, 0x94ad784b, &[4], &[44]),
    row(48, 5001, 5003, 0xbdd64d2e, 0xee694ab6, &[5], &[44]),
    row(49, 5003, 5001, 0xc78b9a6d, 0xe2247e33, &[0], &[28]),
    row(50, 5001, 5003, 0xbdd64d2e, 0xd0737d2b, &[3], &[16]),
    row(51, 5001, 5003, 0xbdd64d2e, 0xd0874a0e, &[0], &[28]),
    row(52, 5003, 5001, 0xc78b9a6d, 0xd28cbd06, &[3], &[16]),
    row(53, 5003, 5001, 0xc78b9a6d, 0xad3c7ba7, &[15, 193], &[28, 32]),
    row(54, 5001, 5003, 0xbdd64d2e, 0x1e46b12f, &[15, 128], &[28, 8]),
    row(55, 5003, 5001, 0xc78b9a6d, 0x11296b0a, &[15, 193], &[28, 32]),
    row(56, 5001, 5003, 0xbdd64d2e, 0xf4186c22, &[15, 128], &[28, 36]),
    row(57, 5003, 5001, 0xbdd64d2e, 0xdf8f928a, &[6], &[4]),
    row(58, 5003, 5001, 0xc78b9a6d, 0x11296b0a, &[15, 193], &[28, 32]),
    row(59, 5001, 5003, 0xc78b9a6d, 0x3f5eaabd, &[6], &[4]),
    row(60, 5003, 5001, 0xc78b9a6d, 0x84a117d9, &[4], &[44]),
    row(61, 5001, 5003, 0xc78b9a6d, 0x3f5eaabd, &[6], &[4]),
    row(62, 5003, 5001, 0xc78b9a6d, 0xc3170610, &[6], &[8]),
    row(63, 5004, 5001, 0x00000000, 0xa16cf0b8, &[1], &[98]),
    row(64, 5001, 5004, 0xc56fb540, 0x598eaa55, &[2], &[452]),
    row(65, 5004, 5001, 0xfa1bc461, 0xe7da6ea7, &[10], &[344]),
    row(66, 5001, 5004, 0xc56fb540, 0x70876b9a, &[11], &[4]),
    row(67, 5004, 5001, 0xfa1bc461, 0x3fb2daad, &[4], &[44]),
    row(68, 5001, 5004, 0xc56fb540, 0x6b4ba729, &[5], &[44]),
    row(69, 5004, 5001, 0xfa1bc461, 0xce0819bc, &[0], &[28]),
    row(70, 5001, 5004, 0xc56fb540, 0x0fd0184d, &[3], &[16]),
    row(71, 5001, 5004, 0xc56fb540, 0xe8c40e66, &[0], &[28]),
    row(72, 5004, 5001, 0xfa1bc461, 0x2bd577bb, &[3], &[16]),
    row(73, 5004, 5001, 0xfa1bc461, 0x0921dff1, &[6], &[8]),
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
#[rustfmt::skip]
fn data_chunks() {
    let expected: [(u32, &[DataFields]); 16] = [
        (6, &[(3952296428, 0, 0, 51, [false, true, true, false], 5)]),
        (9, &[(1931921931, 0, 0, 0, [false, true, true, false], 5)]),
        (11, &[(3952296429, 1, 0, 51, [true, true, true, false], 100)]),
        (12, &[(1931921932, 0, 1, 0, [false, true, true, false], 100)]),
        (13, &[(3952296430, 1, 0, 51, [false, true, true, true], 31)]),
        (15, &[(1931921933, 0, 2, 0, [false, true, true, false], 31)]),
        (16, &[(3952296431, 0, 1, 51, [false, true, false, false], 600), (3952296432, 0, 1, 51, [false, false, false, false], 600)]),
        (17, &[(3952296433, 0, 1, 51, [false, false, true, false], 300)]),
        (19, &[(1931921934, 0, 3, 0, [false, true, false, false], 1444)]),
        (21, &[(1931921935, 0, 3, 0, [false, false, true, false], 56)]),
        (28, &[(3952296434, 0, 2, 51, [false, true, true, false], 7)]),
        (29, &[(1931921936, 0, 4, 0, [false, true, true, false], 7)]),
        (49, &[(1923950503, 0, 0, 51, [false, true, true, false], 12)]),
        (51, &[(2664249535, 0, 0, 0, [false, true, true, false], 12)]),
        (69, &[(1720518857, 0, 0, 51, [false, true, true, false], 12)]),
        (71, &[(2696266530, 0, 0, 0, [false, true, true, false], 12)]),
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
    // usrsctp_peer.c's capture-client fills messages with 'a'..'z' repeating.
    let Chunk::Data(d) = &packet(6).chunks[0] else {
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
        (8, 3952296428, 130811),
        (10, 1931921931, 131072),
        (12, 3952296429, 131072),
        (13, 1931921932, 131072),
        (14, 3952296430, 130785),
        (16, 1931921933, 131072),
        (18, 3952296433, 128804),
        (20, 1931921934, 129372),
        (22, 1931921935, 131072),
        (29, 3952296434, 131072),
        (30, 1931921936, 131072),
        (50, 1923950503, 130804),
        (52, 2664249535, 130804),
        (70, 1720518857, 131072),
        (72, 2696266530, 130804),
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
/// association 1, which later exchanges authenticated ASCONFs: with them
/// (and the empty endpoint-pair shared key 0) the association key of RFC
/// 4895 section 6.1 can be derived and the HMACs of frames 22 to 31
/// checked.
pub const ASSOC1_INIT_RANDOM: &str =
    "ef84e8c8fb8f8c35b649e306b870e6b194c6bbf78d72bd2ad7b552cb2e951c38";
pub const ASSOC1_INIT_ACK_RANDOM: &str =
    "6f0c019fce6a3490ffa710a6e40c97bf6ede3ed962c39e81e9dd77cc00ac2da2";
/// The same for association 2 (frames 43 and 44; ASCONFs in 53 to 58).
pub const ASSOC2_INIT_RANDOM: &str =
    "7f266e0fd4027e2280cabb2076daa0eba2376817aaf7aa11360f5e28054cee0a";
pub const ASSOC2_INIT_ACK_RANDOM: &str =
    "af88bf03e86f930842bdd5c320f07adf47e0e5c4524c721155d572686e1ac372";

/// INIT and INIT ACK: `tshark -e sctp.init_* -e sctp.initack_*
/// -e sctp.parameter_type -e sctp.random_number -e sctp.hmac_id
/// -e sctp.supported_chunk_type -e sctp.parameter_ipv4_address
/// -e sctp.parameter_supported_address_type`.
#[test]
fn init_and_init_ack() {
    let expected = [
        (1, 0x21cf1a47, 3952296428, ASSOC1_INIT_RANDOM),
        (2, 0x427413b0, 1931921931, ASSOC1_INIT_ACK_RANDOM),
        (43, 0xbdd64d2e, 1923950503, ASSOC2_INIT_RANDOM),
        (44, 0xc78b9a6d, 2664249535, ASSOC2_INIT_ACK_RANDOM),
        (
            63,
            0xc56fb540,
            1720518857,
            "86b10a79b273c204dca36f89b26be76505db1dec635c5feb123d0b82b17da1dc",
        ),
        (
            64,
            0xfa1bc461,
            2696266530,
            "7bf86bea1e14563ffad5cad7e1d612552bce8bfa34eb5ce19bfd5209afab26f4",
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
            assert_eq!(cookie.len(), 344 - 4);
            params.push(Param::StateCookie(cookie.clone()));
        } else {
            params.push(Param::SupportedAddressTypes(vec![5]));
        }
        assert_eq!(init.params, params, "frame {frame}");
    }
}

#[test]
fn cookie_echo_returns_the_state_cookie_and_cookie_ack() {
    for (init_ack, echo, ack) in [(2, 3, 4), (44, 45, 46), (64, 65, 66)] {
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
/// -e sctp.correlation_id -e sctp.parameter_ipv4_address -e sctp.cause_code
/// -e sctp.cause_length`.
#[test]
fn authenticated_asconf_exchange() {
    let ip = |last: u8| IpAddr::V4(Ipv4Addr::new(127, 0, 0, last));
    // usrsctp writes correlation id 1 in host (little-endian) byte order.
    let correlation_id = 0x0100_0000;
    let delete_1 = Param::DeleteIpAddress {
        correlation_id,
        address: ip(1),
    };
    let requests = [
        (
            22,
            "3edcc6f487f9cbf3d83b073c149fa0536cc6e4d2",
            0xeb9341ec,
            ip(1),
            Param::AddIpAddress {
                correlation_id,
                address: ip(2),
            },
        ),
        (
            24,
            "45fc239fb074d0a572a3fdbbc6b2a2cef33cc4c7",
            0xeb9341ed,
            ip(2),
            Param::SetPrimaryAddress {
                correlation_id,
                address: ip(2),
            },
        ),
        (
            30,
            "9fe5dee44749f9d75eaa5e988ad4bd6f25545064",
            0xeb9341ee,
            ip(2),
            Param::DeleteIpAddress {
                correlation_id,
                address: ip(2),
            },
        ),
        (
            53,
            "c5524481e339d573a96155c296eefc65002e8b00",
            0x72ad27a7,
            ip(1),
            Param::AddIpAddress {
                correlation_id,
                address: ip(2),
            },
        ),
        (
            55,
            "ccf8f88e683771424c0fe7f43a85cfacbd05dcf9",
            0x72ad27a8,
            ip(1),
            delete_1.clone(),
        ),
        // The same ASCONF retransmitted (to the peer's other address).
        (
            58,
            "ccf8f88e683771424c0fe7f43a85cfacbd05dcf9",
            0x72ad27a8,
            ip(1),
            delete_1.clone(),
        ),
    ];
    // Deleting the packets' own source address is refused (RFC 5061
    // section 5.2): the refused request comes back inside the cause.
    let mut refused = Vec::new();
    delete_1.emit(&mut refused);
    let acks = [
        (
            23,
            "3ea20af7fe5b3299e2aa11ba935989cecf578b7e",
            0xeb9341ec,
            vec![],
        ),
        (
            25,
            "ed2961ea8c6c0d22a05a85121cd9bbd809196e05",
            0xeb9341ed,
            vec![],
        ),
        (
            31,
            "6b18f82b8e56ef8ce3c0726ae1ffe6bdc7948341",
            0xeb9341ee,
            vec![],
        ),
        (
            54,
            "96fb69be5aead7f18589188ba25b561c1b21bac4",
            0x72ad27a7,
            vec![],
        ),
        (
            56,
            "766f770614fdeb0c6d63ee32c47b0ee9add23bb2",
            0x72ad27a8,
            vec![Param::ErrorCauseIndication {
                correlation_id,
                causes: vec![ErrorCause::DeleteSourceAddress {
                    request: Bytes::from(refused),
                }],
            }],
        ),
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
    for (frame, hmac, serial, params) in acks {
        let repr = packet(frame);
        assert_eq!(repr.chunks.len(), 2);
        check_auth(frame, &repr.chunks[0], hmac);
        let Chunk::AsconfAck(a) = &repr.chunks[1] else {
            panic!("frame {frame}")
        };
        assert_eq!(a.serial, serial);
        // usrsctp reports success implicitly: no parameters.
        assert_eq!(a.params, params, "frame {frame}");
    }
}

/// `tshark -e sctp.chunk_type -e sctp.parameter_length
/// -e sctp.parameter_heartbeat_information`: each acknowledgement echoes
/// the information of the request before it.
#[test]
#[rustfmt::skip]
fn heartbeats() {
    let expected = [
        (5, false, "1d28026b765a0c0003bb244b44abb795021000007f000002000000000000000000000000"),
        (7, true, "1d28026b765a0c0003bb244b44abb795021000007f000002000000000000000000000000"),
        (26, false, "1e28026bf7f00a000000000000000000021000007f000001000000000000000000000000"),
        (27, true, "1e28026bf7f00a000000000000000000021000007f000001000000000000000000000000"),
        (32, false, "1f28026bbbb306000000000000000000021000007f000001000000000000000000000000"),
        (33, true, "1f28026bbbb306000000000000000000021000007f000001000000000000000000000000"),
        (34, false, "1f28026ba6b20e000000000000000000021000007f000001000000000000000000000000"),
        (35, true, "1f28026ba6b20e000000000000000000021000007f000001000000000000000000000000"),
        (36, false, "2128026b64d700000000000000000000021000007f000002000000000000000000000000"),
        (37, true, "2128026b64d700000000000000000000021000007f000002000000000000000000000000"),
        (38, false, "2128026b595707000000000000000000021000007f000001000000000000000000000000"),
        (39, true, "2128026b595707000000000000000000021000007f000001000000000000000000000000"),
        (47, false, "2228026ba1d50700285d746722a08914021000007f000002000000000000000000000000"),
        (48, true, "2228026ba1d50700285d746722a08914021000007f000002000000000000000000000000"),
        (60, false, "2428026b380302000000000000000000021000007f000001000000000000000000000000"),
        (67, false, "2428026b9cd90700e59052bc7b45fb42021000007f000002000000000000000000000000"),
        (68, true, "2428026b9cd90700e59052bc7b45fb42021000007f000002000000000000000000000000"),
    ];
    for (frame, is_ack, info) in expected {
        let info = Bytes::from(hex::decode(info).unwrap());
        assert_eq!(info.len(), 40 - 4);
        let chunk = if is_ack { Chunk::HeartbeatAck { info } } else { Chunk::Heartbeat { info } };
        assert_eq!(packet(frame).chunks, vec![chunk], "frame {frame}");
    }
}

/// `tshark -e sctp.chunk_type -e sctp.shutdown_cumulative_tsn_ack
/// -e sctp.abort_t_bit -e sctp.shutdown_complete_t_bit -e sctp.cause_code
/// -e sctp.cause_length -e sctp.chunk_length`.
#[test]
fn shutdown_and_abort() {
    assert_eq!(
        packet(40).chunks,
        vec![Chunk::Shutdown {
            cum_tsn_ack: 1931921936
        }]
    );
    assert_eq!(packet(41).chunks, vec![Chunk::ShutdownAck]);
    assert_eq!(
        packet(42).chunks,
        vec![Chunk::ShutdownComplete { t_bit: false }]
    );
    // Answers to packets for an association that is gone: T bit, no cause.
    for frame in [57, 59, 61] {
        assert_eq!(
            packet(frame).chunks,
            vec![Chunk::Abort {
                t_bit: true,
                causes: vec![]
            }],
            "frame {frame}"
        );
    }
    // Close with SO_LINGER 0: an empty User-Initiated Abort cause.
    for frame in [62, 73] {
        assert_eq!(
            packet(frame).chunks,
            vec![Chunk::Abort {
                t_bit: false,
                causes: vec![ErrorCause::UserInitiatedAbort {
                    reason: Bytes::new()
                }]
            }],
            "frame {frame}"
        );
    }
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
