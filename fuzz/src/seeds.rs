//! The seed corpus: real packets and files, written by
//! `cargo run -p msctp-fuzz --bin seed-corpus` into `fuzz/corpus/`.
//!
//! - Packets msctp puts on the wire in a scripted session (handshake with
//!   AUTH and ADD-IP parameters, DATA, SACK with gap blocks after a loss,
//!   fast retransmission, ASCONF and ASCONF-ACK for Add IP, Set Primary
//!   and Delete IP, HEARTBEAT and its ACK, SHUTDOWN, SHUTDOWN ACK,
//!   SHUTDOWN COMPLETE, ABORT), over IPv4 and IPv6;
//! - the packets usrsctp sent and received in the capture of
//!   `crates/proto/testdata/usrsctp` (another stack's encodings);
//! - an ERROR chunk for every error cause this stack knows, ASCONF-ACKs
//!   carrying them, and every parameter type in an INIT;
//! - for the parsers, the reference scenario files and every
//!   conformance script of `tests/conformance`.
//!
//! Files whose name starts with `real-` are canonical encodings: the
//! replay checks that they survive `emit(parse(b)) == b` byte for byte.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use bytes::Bytes;
use msctp_proto::wire::{
    AsconfAckChunk, Chunk, ErrorCause, InitChunk, PacketRepr, Param, SackChunk,
};
use msctp_proto::wire::{
    CommonHeader, GapBlock, IDataChunk, IForwardEntry, IForwardTsnChunk, ReconfigChunk,
    ReconfigParam,
};
use msctp_proto::{EndpointConfig, Time};

use crate::pair::{Pair, Seen, Side, ip, pair};

/// One corpus file.
pub struct Seed {
    pub target: &'static str,
    pub name: String,
    pub bytes: Vec<u8>,
}

/// The repository root (the fuzz crate is one level down).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("fuzz/ has a parent")
        .to_path_buf()
}

/// Every seed of every target.
pub fn all() -> Vec<Seed> {
    let mut out = Vec::new();
    let mut packets: Vec<(String, Vec<u8>)> = Vec::new();
    for (i, s) in session(false).into_iter().enumerate() {
        packets.push((format!("msctp-v4-{i:03}"), s.bytes.to_vec()));
    }
    for (i, s) in session(true).into_iter().enumerate().take(40) {
        packets.push((format!("msctp-v6-{i:03}"), s.bytes.to_vec()));
    }
    packets.extend(usrsctp_packets());
    packets.extend(constructed());
    for (name, bytes) in &packets {
        let exact = crate::codec::exact_round_trip(bytes).is_ok();
        let prefix = if exact { "real-" } else { "" };
        out.push(Seed {
            target: "codec",
            name: format!("{prefix}{name}"),
            bytes: bytes.clone(),
        });
        let mut l = vec![0u8];
        l.extend_from_slice(bytes);
        out.push(Seed {
            target: "listener",
            name: name.clone(),
            bytes: l,
        });
    }
    for name in ["reference.toml", "reference-baselines.toml"] {
        let path = repo_root().join("crates/sim/src/scenario").join(name);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        out.push(Seed {
            target: "scenario",
            name: name.into(),
            bytes,
        });
    }
    for path in scripts(&repo_root().join("tests/conformance")) {
        let mut bytes = vec![0u8];
        bytes.extend(std::fs::read(&path).unwrap());
        let rel = path
            .strip_prefix(repo_root().join("tests/conformance"))
            .unwrap();
        out.push(Seed {
            target: "script",
            name: rel.to_string_lossy().replace('/', "-"),
            bytes,
        });
    }
    out.extend(crate::established::seeds());
    out.extend(crate::listener::finding_seeds());
    out
}

fn scripts(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            out.extend(scripts(&p));
        } else if p.extension().is_some_and(|e| e == "pkt") {
            out.push(p);
        }
    }
    out
}

/// A scripted session between a multi-homed mobile (A) and a dual-homed
/// correspondent (B), every packet recorded.
pub fn session(v6: bool) -> Vec<Seen> {
    let (a1, a2, b1, b2) = if v6 {
        (
            ip("2001:db8:1::2"),
            ip("2001:db8:2::2"),
            ip("2001:db8:9::1"),
            ip("2001:db8:9::2"),
        )
    } else {
        (
            ip("10.1.0.2"),
            ip("10.2.0.2"),
            ip("10.9.0.1"),
            ip("10.9.0.2"),
        )
    };
    let mut p = pair(
        EndpointConfig::new(5000),
        &[a1, a2],
        EndpointConfig::new(6000),
        &[b1, b2],
        Duration::from_millis(10),
        11,
    );
    p.endpoint(Side::A).set_local_addresses(&[a1]);
    p.record = true;
    let (ida, idb) = p.establish().expect("the session connects");
    let send = |p: &mut Pair, side: Side, n: usize, len: usize| {
        let id = if side == Side::A { ida } else { idb };
        for k in 0..n {
            let data = Bytes::from(vec![k as u8; len]);
            let _ = p.endpoint(side).association_mut(id).unwrap().send(
                (k % 2) as u16,
                42,
                data,
                k % 3 == 0,
            );
        }
    };
    send(&mut p, Side::A, 4, 300);
    send(&mut p, Side::B, 2, 2000);
    p.steps_for(Duration::from_millis(500), 10_000);
    // A loss: the primary path drops one DATA packet, so the SACKs for
    // the packets after it report a gap and the sender retransmits fast.
    p.set_up(a1, b1, false);
    send(&mut p, Side::A, 1, 1000);
    p.flush();
    p.set_up(a1, b1, true);
    send(&mut p, Side::A, 8, 1000);
    p.steps_for(Duration::from_secs(3), 10_000);
    // ADD-IP: add an address, ask for it as primary, delete the old one.
    {
        let a = p.endpoint(Side::A).association_mut(ida).unwrap();
        a.add_local_address(a2).unwrap();
        a.request_peer_primary(a2).unwrap();
    }
    send(&mut p, Side::A, 2, 100);
    p.steps_for(Duration::from_secs(2), 10_000);
    let _ = p
        .endpoint(Side::A)
        .association_mut(ida)
        .unwrap()
        .remove_local_address(a1);
    p.steps_for(Duration::from_secs(2), 10_000);
    // Heartbeats on the idle association.
    p.steps_for(Duration::from_secs(40), 10_000);
    // Graceful shutdown.
    let now = p.now;
    p.endpoint(Side::A)
        .association_mut(ida)
        .unwrap()
        .shutdown(now);
    p.steps_for(Duration::from_secs(2), 10_000);
    // A second association that is aborted by the application.
    if let Some((ida2, _)) = p.establish() {
        p.endpoint(Side::A)
            .association_mut(ida2)
            .unwrap()
            .abort(Some(Bytes::from_static(b"seed")));
        p.steps_for(Duration::from_secs(1), 10_000);
    }
    let _ = Time::ZERO;
    p.take_seen()
}

/// The packets of the usrsctp capture (`crates/proto/testdata/usrsctp`).
fn usrsctp_packets() -> Vec<(String, Vec<u8>)> {
    let path = repo_root().join("crates/proto/testdata/usrsctp/packets.hex");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let (n, hex) = l.split_once('\t')?;
            let bytes = (0..hex.len() / 2)
                .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
                .collect::<Option<Vec<u8>>>()?;
            Some((format!("usrsctp-{:03}", n.parse::<u32>().ok()?), bytes))
        })
        .collect()
}

/// Every error cause, once in an ERROR chunk and once in an ASCONF-ACK;
/// every parameter in an INIT; a SACK with many gap blocks.
fn constructed() -> Vec<(String, Vec<u8>)> {
    let header = CommonHeader {
        src_port: 5000,
        dst_port: 6000,
        verification_tag: 0x1234_5678,
    };
    let pkt = |chunks: Vec<Chunk>| PacketRepr { header, chunks }.emit();
    let tlv = Bytes::from_static(&[0x00, 0x05, 0x00, 0x08, 192, 0, 2, 7]);
    let causes = vec![
        (
            "invalid-stream",
            ErrorCause::InvalidStreamIdentifier { stream_id: 9 },
        ),
        (
            "missing-param",
            ErrorCause::MissingMandatoryParameter {
                param_types: vec![7, 9],
            },
        ),
        (
            "stale-cookie",
            ErrorCause::StaleCookie { staleness_us: 1000 },
        ),
        ("out-of-resource", ErrorCause::OutOfResource),
        (
            "unresolvable-address",
            ErrorCause::UnresolvableAddress {
                address: Bytes::from_static(&[0, 11, 0, 8, b'h', b'o', b's', b't']),
            },
        ),
        (
            "unrecognized-chunk",
            ErrorCause::UnrecognizedChunkType {
                chunk: Bytes::from_static(&[0x4f, 0, 0, 5, 1]),
            },
        ),
        ("invalid-mandatory", ErrorCause::InvalidMandatoryParameter),
        (
            "unrecognized-params",
            ErrorCause::UnrecognizedParameters {
                params: Bytes::from_static(&[0x80, 0x77, 0, 5, 1, 0, 0, 0]),
            },
        ),
        ("no-user-data", ErrorCause::NoUserData { tsn: 77 }),
        (
            "cookie-while-shutting-down",
            ErrorCause::CookieReceivedWhileShuttingDown,
        ),
        (
            "restart-new-addresses",
            ErrorCause::RestartWithNewAddresses {
                addresses: tlv.clone(),
            },
        ),
        (
            "user-abort",
            ErrorCause::UserInitiatedAbort {
                reason: Bytes::from_static(b"bye"),
            },
        ),
        (
            "protocol-violation",
            ErrorCause::ProtocolViolation {
                info: Bytes::from_static(b"why"),
            },
        ),
        (
            "delete-last",
            ErrorCause::DeleteLastRemainingAddress {
                request: tlv.clone(),
            },
        ),
        (
            "resource-shortage",
            ErrorCause::ResourceShortage {
                request: tlv.clone(),
            },
        ),
        (
            "delete-source",
            ErrorCause::DeleteSourceAddress {
                request: tlv.clone(),
            },
        ),
        ("illegal-asconf-ack", ErrorCause::IllegalAsconfAck),
        (
            "no-authorization",
            ErrorCause::NoAuthorization {
                request: tlv.clone(),
            },
        ),
        (
            "unsupported-hmac",
            ErrorCause::UnsupportedHmacIdentifier { hmac_id: 9 },
        ),
        (
            "unknown-cause",
            ErrorCause::Unknown {
                code: 0x7777,
                info: Bytes::from_static(b"?"),
            },
        ),
    ];
    let mut out = Vec::new();
    for (name, cause) in &causes {
        out.push((
            format!("cause-{name}"),
            pkt(vec![Chunk::Error {
                causes: vec![cause.clone()],
            }]),
        ));
        out.push((
            format!("asconf-ack-{name}"),
            pkt(vec![Chunk::AsconfAck(AsconfAckChunk {
                serial: 3,
                params: vec![Param::ErrorCauseIndication {
                    correlation_id: 1,
                    causes: vec![cause.clone()],
                }],
            })]),
        ));
    }
    out.push((
        "abort-all-causes".into(),
        pkt(vec![Chunk::Abort {
            t_bit: true,
            causes: causes.iter().map(|(_, c)| c.clone()).collect(),
        }]),
    ));
    let a4: IpAddr = ip("192.0.2.7");
    let a6: IpAddr = ip("2001:db8::7");
    let params = vec![
        Param::HeartbeatInfo(Bytes::from_static(b"hb")),
        Param::Ipv4Address("192.0.2.8".parse().unwrap()),
        Param::Ipv6Address("2001:db8::8".parse().unwrap()),
        Param::StateCookie(Bytes::from_static(&[1; 20])),
        Param::UnrecognizedParameter(Bytes::from_static(&[0x80, 0x99, 0, 4])),
        Param::CookiePreservative(5000),
        Param::HostNameAddress(Bytes::from_static(b"example.org\0")),
        Param::SupportedAddressTypes(vec![5, 6]),
        Param::EcnCapable,
        Param::ForwardTsnSupported,
        Param::AddIpAddress {
            correlation_id: 1,
            address: a4,
        },
        Param::DeleteIpAddress {
            correlation_id: 2,
            address: a6,
        },
        Param::SetPrimaryAddress {
            correlation_id: 3,
            address: a4,
        },
        Param::SuccessIndication { correlation_id: 4 },
        Param::AdaptationLayerIndication(7),
        Param::SupportedExtensions(vec![0x80, 0xc1, 0x0f]),
        Param::Random(Bytes::from_static(&[9; 32])),
        Param::Chunks(vec![0xc1, 0x80, 0]),
        Param::HmacAlgo(vec![3, 1]),
        Param::Unknown {
            param_type: 0x4321,
            value: Bytes::from_static(b"x"),
        },
    ];
    out.push((
        "init-all-params".into(),
        pkt(vec![Chunk::Init(InitChunk {
            initiate_tag: 1,
            a_rwnd: 65536,
            outbound_streams: 10,
            inbound_streams: 10,
            initial_tsn: 100,
            params,
        })]),
    ));
    out.push((
        "sack-many-gaps".into(),
        pkt(vec![Chunk::Sack(SackChunk {
            flags: 0,
            cum_tsn_ack: 1000,
            a_rwnd: 1 << 20,
            gap_blocks: (0..200)
                .map(|i| GapBlock {
                    start: 2 + 3 * i,
                    end: 3 + 3 * i,
                })
                .collect(),
            dup_tsns: vec![999, 998, 997],
        })]),
    ));
    out.push((
        "forward-tsn".into(),
        pkt(vec![Chunk::ForwardTsn {
            new_cum_tsn: 5,
            streams: vec![(1, 2), (3, 4)],
        }]),
    ));
    // RFC 8260 section 2: a message in three interleaved I-DATA fragments
    // (the first with its PPID, the others with FSNs), and an
    // I-FORWARD-TSN naming ordered and unordered messages.
    let idata = |tsn: u32, stream: u16, fsn: u32, begin: bool, end: bool| {
        Chunk::IData(IDataChunk {
            tsn,
            stream_id: stream,
            mid: 7,
            ppid: if begin { 51 } else { 0 },
            fsn,
            unordered: false,
            begin,
            end,
            immediate: end,
            payload: Bytes::from_static(b"interleaved"),
        })
    };
    out.push((
        "i-data-fragments".into(),
        pkt(vec![
            idata(10, 1, 0, true, false),
            idata(11, 2, 0, true, true),
            idata(12, 1, 1, false, true),
        ]),
    ));
    // RFC 6525: an outgoing and an incoming reset request in one
    // RE-CONFIG, and a response with the next TSNs.
    out.push((
        "reconfig-reset-requests".into(),
        pkt(vec![Chunk::Reconfig(ReconfigChunk {
            params: vec![
                ReconfigParam::OutgoingSsnReset {
                    request_seq: 1,
                    response_seq: 0,
                    last_tsn: 4,
                    streams: vec![1, 2, 3],
                },
                ReconfigParam::IncomingSsnReset {
                    request_seq: 2,
                    streams: vec![],
                },
            ],
        })]),
    ));
    out.push((
        "reconfig-response".into(),
        pkt(vec![Chunk::Reconfig(ReconfigChunk {
            params: vec![ReconfigParam::Response {
                response_seq: 1,
                result: 1,
                next_tsns: Some((100, 200)),
            }],
        })]),
    ));
    out.push((
        "i-forward-tsn".into(),
        pkt(vec![Chunk::IForwardTsn(IForwardTsnChunk {
            new_cum_tsn: 5,
            entries: vec![
                IForwardEntry {
                    stream: 1,
                    unordered: false,
                    mid: 2,
                },
                IForwardEntry {
                    stream: 3,
                    unordered: true,
                    mid: 0xFFFF_FFFF,
                },
            ],
        })]),
    ));
    out
}
