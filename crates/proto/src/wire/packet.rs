//! The SCTP packet: common header (RFC 9260 section 3.1) and the chunk
//! sequence; CRC32c checksum (RFC 9260 appendix A).

use super::chunk::Chunk;

/// The common header without its checksum (computed on emit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommonHeader {
    pub src_port: u16,
    pub dst_port: u16,
    pub verification_tag: u32,
}

/// A whole decoded packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PacketRepr {
    pub header: CommonHeader,
    pub chunks: Vec<Chunk>,
}

/// A zero-copy view of an SCTP packet.
#[derive(Debug, Clone)]
pub struct Packet<T: AsRef<[u8]>> {
    buffer: T,
}
