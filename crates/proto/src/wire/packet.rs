//! The SCTP packet: common header (RFC 9260 section 3.1) and the chunk
//! sequence; CRC32c checksum (RFC 9260 appendix A).

use bytes::Bytes;
use std::ops::Range;

use super::WireError;
use super::chunk::{Chunk, ChunkView};
use super::crc;
use super::field::{padded, set_u16, set_u32, u16_at, u32_at};

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

/// Length of the common header (RFC 9260 section 3.1).
pub const HEADER_LEN: usize = 12;

impl<T: AsRef<[u8]>> Packet<T> {
    /// Length of the common header (RFC 9260 section 3.1).
    pub const HEADER_LEN: usize = HEADER_LEN;

    /// Wraps a buffer without any check. Accessors never panic: fields
    /// beyond the end of a short buffer read as zero, and
    /// [`Packet::chunks`] yields a [`WireError::Truncated`] error.
    pub fn new_unchecked(buffer: T) -> Self {
        Packet { buffer }
    }

    /// Wraps a buffer holding at least the 12-byte common header.
    pub fn new_checked(buffer: T) -> Result<Self, WireError> {
        let available = buffer.as_ref().len();
        if available < HEADER_LEN {
            return Err(WireError::Truncated {
                offset: 0,
                needed: HEADER_LEN,
                available,
            });
        }
        Ok(Packet { buffer })
    }

    /// Source Port Number.
    pub fn src_port(&self) -> u16 {
        u16_at(self.buffer.as_ref(), 0)
    }

    /// Destination Port Number.
    pub fn dst_port(&self) -> u16 {
        u16_at(self.buffer.as_ref(), 2)
    }

    /// Verification Tag.
    pub fn verification_tag(&self) -> u32 {
        u32_at(self.buffer.as_ref(), 4)
    }

    /// The stored checksum, in the convention of [`crc::checksum`] (the
    /// CRC32c value; the field holds it least significant byte first, so
    /// tools that print the field as a big-endian number, like Wireshark,
    /// show `checksum().swap_bytes()`).
    pub fn checksum(&self) -> u32 {
        crc::stored(self.buffer.as_ref())
    }

    /// Ports and verification tag.
    pub fn header(&self) -> CommonHeader {
        CommonHeader {
            src_port: self.src_port(),
            dst_port: self.dst_port(),
            verification_tag: self.verification_tag(),
        }
    }

    /// True when the stored checksum is the CRC32c of the packet.
    pub fn verify_checksum(&self) -> bool {
        crc::verify(self.buffer.as_ref())
    }

    /// The bytes after the common header (the chunks).
    pub fn payload(&self) -> &[u8] {
        self.buffer.as_ref().get(HEADER_LEN..).unwrap_or_default()
    }

    /// The chunks in order: see [`ChunkIter`].
    pub fn chunks(&self) -> ChunkIter<'_> {
        ChunkIter::new(self.buffer.as_ref())
    }

    /// The wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
    /// Sets the Source Port Number (no effect on a short buffer).
    pub fn set_src_port(&mut self, port: u16) {
        set_u16(self.buffer.as_mut(), 0, port);
    }

    /// Sets the Destination Port Number (no effect on a short buffer).
    pub fn set_dst_port(&mut self, port: u16) {
        set_u16(self.buffer.as_mut(), 2, port);
    }

    /// Sets the Verification Tag (no effect on a short buffer).
    pub fn set_verification_tag(&mut self, tag: u32) {
        set_u32(self.buffer.as_mut(), 4, tag);
    }

    /// Computes the CRC32c and stores it (no effect on a short buffer).
    pub fn fill_checksum(&mut self) {
        crc::fill(self.buffer.as_mut());
    }
}

/// Walks the chunks of a packet (RFC 9260 section 3.2).
///
/// Yields, in order, each chunk's byte range within the packet buffer
/// (header and value, without padding) and a view of it. Chunks are padded
/// to 4 bytes; the last chunk's padding may be missing. It yields an error,
/// then nothing more, when the buffer is shorter than the common header,
/// when 1 to 3 bytes are left over after a chunk and its padding
/// ([`WireError::Truncated`]), or when a length field is below 4 or runs
/// past the end of the packet ([`WireError::BadChunkLength`]).
#[derive(Debug, Clone)]
pub struct ChunkIter<'a> {
    buf: &'a [u8],
    pos: usize,
    done: bool,
}

impl<'a> ChunkIter<'a> {
    /// Walks the chunks of `packet`, which starts with the common header.
    pub fn new(packet: &'a [u8]) -> Self {
        ChunkIter {
            buf: packet,
            pos: HEADER_LEN,
            done: false,
        }
    }
}

impl<'a> Iterator for ChunkIter<'a> {
    type Item = Result<(Range<usize>, ChunkView<&'a [u8]>), WireError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let len = self.buf.len();
        if len < HEADER_LEN {
            self.done = true;
            return Some(Err(WireError::Truncated {
                offset: 0,
                needed: HEADER_LEN,
                available: len,
            }));
        }
        if self.pos >= len {
            self.done = true;
            return None;
        }
        let offset = self.pos;
        let available = len - offset;
        if available < 4 {
            self.done = true;
            return Some(Err(WireError::Truncated {
                offset,
                needed: 4,
                available,
            }));
        }
        let length = u16_at(self.buf, offset + 2);
        let chunk_len = usize::from(length);
        if chunk_len < 4 || chunk_len > available {
            self.done = true;
            return Some(Err(WireError::BadChunkLength { offset, length }));
        }
        let range = offset..offset + chunk_len;
        self.pos = offset.saturating_add(padded(chunk_len)).min(len);
        let view = ChunkView::new_unchecked(self.buf.get(range.clone()).unwrap_or_default());
        Some(Ok((range, view)))
    }
}

impl PacketRepr {
    /// Decodes a packet: the common header and every chunk, in order.
    /// Does NOT check the checksum (see [`Packet::verify_checksum`]).
    /// Payloads are slices of `buf`. Fails on the first chunk that cannot
    /// be decoded; to go on past such a chunk, walk [`Packet::chunks`] and
    /// call [`Chunk::parse`] on each.
    pub fn parse(buf: &Bytes) -> Result<PacketRepr, WireError> {
        let packet = Packet::new_checked(&buf[..])?;
        let header = packet.header();
        let mut chunks = Vec::new();
        for item in packet.chunks() {
            let (range, _) = item?;
            chunks.push(Chunk::parse_at(buf, range)?);
        }
        Ok(PacketRepr { header, chunks })
    }

    /// Bytes [`PacketRepr::emit`] produces: the header and every chunk,
    /// padded.
    pub fn buffer_len(&self) -> usize {
        self.chunks
            .iter()
            .fold(HEADER_LEN, |n, c| n.saturating_add(c.padded_len()))
    }

    /// Encodes the packet, checksum filled in.
    pub fn emit(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.buffer_len());
        self.emit_into(&mut out);
        out
    }

    /// Appends the encoded packet to `out` and fills its checksum (computed
    /// over the appended bytes only). Chunks too long for their length
    /// field are written with a saturated length: see
    /// [`PacketRepr::try_emit_into`].
    pub fn emit_into(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&self.header.src_port.to_be_bytes());
        out.extend_from_slice(&self.header.dst_port.to_be_bytes());
        out.extend_from_slice(&self.header.verification_tag.to_be_bytes());
        out.extend_from_slice(&[0; 4]);
        for chunk in &self.chunks {
            chunk.emit(out);
        }
        if let Some(packet) = out.get_mut(start..) {
            crc::fill(packet);
        }
    }

    /// Like [`PacketRepr::emit_into`], but refuses (appending nothing) a
    /// packet with a chunk too long for its length field.
    pub fn try_emit_into(&self, out: &mut Vec<u8>) -> Result<(), WireError> {
        for chunk in &self.chunks {
            chunk.check_emittable()?;
        }
        self.emit_into(out);
        Ok(())
    }
}
