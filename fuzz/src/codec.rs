//! Target `codec`: the packet codec (`msctp_proto::wire`) on arbitrary
//! bytes.
//!
//! Checked for every input:
//! - the zero-copy views (`Packet`, `ChunkIter`) and every typed parser
//!   (`PacketRepr`, `Chunk`, `Param` lists, `ErrorCause` lists) return a
//!   value or an error, never panic;
//! - for a packet that parses, `emit` writes exactly `buffer_len` bytes and
//!   re-parses to the same value: `parse(emit(parse(b))) == parse(b)`, and
//!   so `emit` is a fixed point after one round trip;
//! - the same holds chunk by chunk, also in packets whose later chunks do
//!   not parse.
//!
//! Why not `emit(parse(b)) == b` for every `b` that parses: the codec is
//! deliberately not byte-exact on input the RFC lets a receiver accept in
//! several spellings. Reserved flag bits are ignored on receipt and sent
//! as zero (RFC 9260 section 3.2), the checksum is recomputed, padding
//! bytes need not be zero on receipt (section 3.2: "the receiver MUST
//! ignore the padding bytes"), and a container whose length counts the
//! padding of its last TLV is accepted but re-emitted with the canonical
//! length. Any of these makes the bytes differ while the meaning is the
//! same. So the fuzzer checks the fixed point above, and the corpus replay
//! checks `emit(parse(b)) == b` exactly for every packet of the seed
//! corpus that a real stack put on the wire (files named `real-*`, see
//! [`crate::seeds`]): there the encoding is canonical and must come back
//! byte for byte.

use bytes::Bytes;
use msctp_proto::wire::{Chunk, ErrorCause, Packet, PacketRepr, Param};

/// Largest input worth trying: a datagram of the largest path MTU.
pub const MAX_LEN: usize = 9000;

/// Runs one input.
pub fn run(data: &[u8]) {
    let buf = Bytes::copy_from_slice(&data[..data.len().min(MAX_LEN)]);
    views_and_chunks(&buf);
    // Parameter and cause lists are parsed from chunk values by the
    // chunk parsers; parse the raw bytes as lists too so their parsers
    // see unaligned and truncated input directly.
    if let Ok(list) = Param::parse_list(&buf) {
        for p in &list {
            let mut out = Vec::new();
            p.emit(&mut out);
            assert_eq!(out.len(), p.padded_len(), "param emit length");
        }
    }
    if let Ok(list) = ErrorCause::parse_list(&buf) {
        for c in &list {
            let mut out = Vec::new();
            c.emit(&mut out);
            assert_eq!(out.len(), c.padded_len(), "cause emit length");
        }
    }
    if let Ok(repr) = PacketRepr::parse(&buf) {
        round_trip(&repr);
    }
}

/// Walks the chunks with the views and parses each one on its own.
fn views_and_chunks(buf: &Bytes) {
    let Ok(packet) = Packet::new_checked(&buf[..]) else {
        return;
    };
    let _ = (packet.header(), packet.verify_checksum(), packet.payload());
    for item in packet.chunks() {
        let Ok((range, view)) = item else { break };
        let _ = (view.flags(), view.value(), view.unknown_action());
        assert!(range.end <= buf.len(), "chunk range inside the packet");
        if let Ok(chunk) = Chunk::parse(&buf.slice(range)) {
            let mut out = Vec::new();
            chunk.emit(&mut out);
            assert_eq!(out.len(), chunk.padded_len(), "chunk emit length");
            let again = Chunk::parse(&Bytes::from(out)).expect("an emitted chunk parses");
            assert_eq!(again, chunk, "chunk round trip");
        }
    }
}

/// `parse(emit(r)) == r` and `emit` is a fixed point.
pub fn round_trip(repr: &PacketRepr) -> Vec<u8> {
    let once = repr.emit();
    assert_eq!(
        once.len(),
        repr.buffer_len(),
        "emit writes buffer_len bytes"
    );
    let reparsed = PacketRepr::parse(&Bytes::from(once.clone())).expect("emitted packet parses");
    assert_eq!(&reparsed, repr, "parse(emit(parse(b))) == parse(b)");
    assert_eq!(reparsed.emit(), once, "emit is a fixed point");
    assert!(Packet::new_checked(&once[..]).unwrap().verify_checksum());
    once
}

/// The exact round trip for canonical packets (checked on the real
/// packets of the seed corpus).
pub fn exact_round_trip(data: &[u8]) -> Result<(), String> {
    let repr = PacketRepr::parse(&Bytes::copy_from_slice(data)).map_err(|e| e.to_string())?;
    let out = round_trip(&repr);
    if out == data {
        Ok(())
    } else {
        Err(format!(
            "emit(parse(b)) differs: {} bytes in, {} out",
            data.len(),
            out.len()
        ))
    }
}
