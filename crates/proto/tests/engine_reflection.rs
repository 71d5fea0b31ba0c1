//! Issue 31 finding 9: what a listener sends back for one INIT. The
//! reflected Unrecognized Parameters are bounded
//! (`limits.max_reflected_unrecognized`, RFC 9260 sections 3.2.1 and 5.1),
//! the State Cookie carries the INIT without the parameters its
//! processing skipped, and a chunk too long for its 16-bit length field is
//! never sent (section 3.2): no saturated length on the wire.

use std::net::IpAddr;

use bytes::Bytes;
use msctp_proto::wire::{Chunk, CommonHeader, InitChunk, Packet, PacketRepr, Param};
use msctp_proto::{Endpoint, EndpointConfig, Event, Time};

const PEER: &str = "192.0.2.7";
const LISTENER: &str = "10.9.0.1";

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn listener() -> Endpoint {
    let mut cfg = EndpointConfig::new(6000);
    cfg.listen = true;
    let mut ep = Endpoint::new(cfg, [9; 32]).unwrap();
    ep.set_local_addresses(&[ip(LISTENER)]);
    ep
}

fn packet(vtag: u32, chunk: Chunk) -> Vec<u8> {
    PacketRepr {
        header: CommonHeader {
            src_port: 5000,
            dst_port: 6000,
            verification_tag: vtag,
        },
        chunks: vec![chunk],
    }
    .emit()
}

/// Hands `pkt` to the listener; returns the packets it sends.
fn exchange(ep: &mut Endpoint, pkt: Vec<u8>) -> Vec<Vec<u8>> {
    ep.handle_datagram(Time::ZERO, ip(PEER), ip(LISTENER), Bytes::from(pkt));
    std::iter::from_fn(|| ep.poll_transmit(Time::ZERO))
        .map(|t| t.packet().to_vec())
        .collect()
}

/// Every chunk's length field accounts for the packet exactly.
fn well_formed(pkt: &[u8]) -> bool {
    let Ok(p) = Packet::new_checked(pkt) else {
        return false;
    };
    let mut total = 12;
    for c in p.chunks() {
        let Ok((range, _)) = c else {
            return false;
        };
        total = range.start + range.len().div_ceil(4) * 4;
    }
    total == pkt.len()
}

fn init(params: Vec<Param>) -> Chunk {
    Chunk::Init(InitChunk {
        initiate_tag: 0x1234,
        a_rwnd: 65_535,
        outbound_streams: 1,
        inbound_streams: 1,
        initial_tsn: 1,
        params,
    })
}

/// `n` parameters of an unknown type that asks to be skipped and
/// reported (upper bits 11, section 3.2.1), 4 bytes each.
fn unknown_reported(n: usize) -> Vec<Param> {
    (0..n)
        .map(|_| Param::Unknown {
            param_type: 0xC0FF,
            value: Bytes::new(),
        })
        .collect()
}

fn init_ack(pkt: &[u8]) -> InitChunk {
    match PacketRepr::parse(&Bytes::copy_from_slice(pkt))
        .unwrap()
        .chunks
        .remove(0)
    {
        Chunk::InitAck(a) => a,
        other => panic!("not an INIT ACK: {other:?}"),
    }
}

/// ```text
///  peer                                         listener
///   |-- INIT (32 bytes) ------------------------->|
///   |<------------------------- INIT ACK ---------|   x7.4 (the cookie)
///   |-- INIT + 300 unknown "report" params ------>|
///   |<-- INIT ACK: reports up to the budget, -----|   was x3.1, now < x1
///   |    cookie without the unknown params        |
///   |-- COOKIE ECHO ----------------------------->|
///   |<------------------------- COOKIE ACK -------|   the cookie still works
/// ```
#[test]
fn an_init_full_of_unknown_parameters_draws_a_bounded_reply() {
    let mut ep = listener();
    let plain = packet(0, init(vec![]));
    let out = exchange(&mut ep, plain.clone());
    assert_eq!(out.len(), 1);
    let plain_ratio = out[0].len() as f64 / plain.len() as f64;

    let big = packet(0, init(unknown_reported(300)));
    let out = exchange(&mut ep, big.clone());
    assert_eq!(out.len(), 1);
    let ratio = out[0].len() as f64 / big.len() as f64;
    eprintln!(
        "INIT {} bytes -> reply {} bytes (x{plain_ratio:.1}); INIT with 300 unknown \
         parameters {} bytes -> reply {} bytes (x{ratio:.2})",
        plain.len(),
        (plain_ratio * plain.len() as f64).round(),
        big.len(),
        out[0].len()
    );
    let ack = init_ack(&out[0]);
    let reported: usize = ack
        .params
        .iter()
        .filter(|p| matches!(p, Param::UnrecognizedParameter(_)))
        .map(|p| p.padded_len())
        .sum();
    let budget = EndpointConfig::new(1)
        .association
        .limits
        .max_reflected_unrecognized;
    assert!(
        reported > 0,
        "the first unknown parameters are still reported"
    );
    assert!(
        reported <= budget,
        "{reported} bytes reported, budget {budget}"
    );
    assert!(ratio < 1.0, "reply x{ratio:.2} the INIT");
    // The cookie (without the unknown parameters) still sets up the
    // association.
    let cookie = ack.state_cookie().cloned().unwrap();
    let out = exchange(
        &mut ep,
        packet(ack.initiate_tag, Chunk::CookieEcho { cookie }),
    );
    assert!(out.iter().all(|p| well_formed(p)));
    ep.flush_events();
    assert!(
        std::iter::from_fn(|| ep.poll_event()).any(|(_, e)| e == Event::Connected),
        "the COOKIE ECHO was refused"
    );
}

/// ```text
///  peer                                         listener
///   |-- INIT, 64 KB of unknown "skip" params ---->|
///   |<------------------------- INIT ACK ---------|   small: not in the cookie
///   |-- INIT, 64 KB of known params ------------->|
///   |   (an INIT ACK would exceed 65 535 bytes)   |   no reply, counted; never
///   |                                             |   a saturated length
/// ```
#[test]
fn an_init_ack_that_cannot_be_encoded_is_not_sent() {
    let mut ep = listener();
    let skipped: Vec<Param> = (0..16_370)
        .map(|_| Param::Unknown {
            param_type: 0x80FF,
            value: Bytes::new(),
        })
        .collect();
    let out = exchange(&mut ep, packet(0, init(skipped)));
    assert!(out.iter().all(|p| well_formed(p)), "a malformed reply");
    assert_eq!(out.len(), 1, "answered");
    assert!(out[0].len() < 1000, "{} bytes", out[0].len());

    // Supported Address Types (RFC 9260 section 3.3.2.1.4), known and
    // kept in the cookie, 8 bytes each.
    let known: Vec<Param> = (0..8_180)
        .map(|_| Param::SupportedAddressTypes(vec![5]))
        .collect();
    let before = ep.stats().replies_too_long;
    let out = exchange(&mut ep, packet(0, init(known)));
    assert!(out.iter().all(|p| well_formed(p)), "a malformed reply");
    assert!(
        out.is_empty(),
        "replies: {:?}",
        out.iter()
            .map(|p| (
                p.len(),
                PacketRepr::parse(&Bytes::copy_from_slice(p)).map(|r| r.chunks.len())
            ))
            .collect::<Vec<_>>()
    );
    assert_eq!(ep.stats().replies_too_long, before + 1);
}
