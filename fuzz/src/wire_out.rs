//! Helpers shared by the targets: building packets around fuzzed chunks
//! and checking what the engine sends.

use bytes::Bytes;
use msctp_proto::wire::{Chunk, PacketRepr, crc};

/// An SCTP packet: common header with `tag`, then `chunks` (already
/// encoded), checksum filled in.
pub fn packet(src_port: u16, dst_port: u16, tag: u32, chunks: &[u8]) -> Vec<u8> {
    let mut p = Vec::with_capacity(12 + chunks.len());
    p.extend_from_slice(&src_port.to_be_bytes());
    p.extend_from_slice(&dst_port.to_be_bytes());
    p.extend_from_slice(&tag.to_be_bytes());
    p.extend_from_slice(&[0; 4]);
    p.extend_from_slice(chunks);
    crc::fill(&mut p);
    p
}

/// Every packet the engine sends must be one it can decode itself: a
/// fuzzed input must never make it emit garbage. Returns the decoded
/// packet. (Its checksum is checked by whoever receives it: [`check_sent`]
/// for packets that go nowhere, the receiving endpoint otherwise.)
pub fn check_decodes(payload: &Bytes) -> PacketRepr {
    let repr = PacketRepr::parse(payload)
        .unwrap_or_else(|e| panic!("the engine sent a packet it cannot parse: {e}"));
    assert!(!repr.chunks.is_empty(), "the engine sent an empty packet");
    repr
}

/// [`check_decodes`], and the checksum is valid.
pub fn check_sent(payload: &Bytes) -> PacketRepr {
    let repr = check_decodes(payload);
    assert!(
        msctp_proto::wire::Packet::new_checked(&payload[..])
            .unwrap()
            .verify_checksum(),
        "the engine sent a bad checksum"
    );
    repr
}

/// The State Cookie and Initiate Tag of an INIT ACK, if `repr` holds one.
pub fn init_ack_cookie(repr: &PacketRepr) -> Option<(u32, Bytes)> {
    repr.chunks.iter().find_map(|c| match c {
        Chunk::InitAck(i) => i.state_cookie().map(|c| (i.initiate_tag, c.clone())),
        _ => None,
    })
}
