//! The SCTP packet: common header (RFC 9260 section 3.1) and the chunk
//! sequence; CRC32c checksum (RFC 9260 appendix A).

use bytes::Bytes;
use std::ops::Range;

use super::WireError;
use super::chunk::{Chunk, ChunkView};
use super::crc;
use super::field::{header, set_u16, set_u32, u16_at, u32_at};
use super::tlv::{self, Kind, TlvIter};

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
pub const HEADER_LEN: usize = header::LEN;

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
        u16_at(self.buffer.as_ref(), header::SRC_PORT)
    }

    /// Destination Port Number.
    pub fn dst_port(&self) -> u16 {
        u16_at(self.buffer.as_ref(), header::DST_PORT)
    }

    /// Verification Tag.
    pub fn verification_tag(&self) -> u32 {
        u32_at(self.buffer.as_ref(), header::VERIFICATION_TAG)
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
        set_u16(self.buffer.as_mut(), header::SRC_PORT, port);
    }

    /// Sets the Destination Port Number (no effect on a short buffer).
    pub fn set_dst_port(&mut self, port: u16) {
        set_u16(self.buffer.as_mut(), header::DST_PORT, port);
    }

    /// Sets the Verification Tag (no effect on a short buffer).
    pub fn set_verification_tag(&mut self, tag: u32) {
        set_u32(self.buffer.as_mut(), header::VERIFICATION_TAG, tag);
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
    inner: TlvIter<'a>,
    /// The packet's length when it is shorter than the common header.
    short: Option<usize>,
}

impl<'a> ChunkIter<'a> {
    /// Walks the chunks of `packet`, which starts with the common header.
    pub fn new(packet: &'a [u8]) -> Self {
        let len = packet.len();
        ChunkIter {
            inner: TlvIter::new_in(packet, HEADER_LEN.min(len)..len, Kind::Chunk),
            short: (len < HEADER_LEN).then_some(len),
        }
    }
}

impl<'a> Iterator for ChunkIter<'a> {
    type Item = Result<(Range<usize>, ChunkView<&'a [u8]>), WireError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(available) = self.short.take() {
            return Some(Err(WireError::Truncated {
                offset: 0,
                needed: HEADER_LEN,
                available,
            }));
        }
        let item = self.inner.next()?;
        Some(item.map(|(range, bytes)| (range, ChunkView::new_unchecked(bytes))))
    }
}

/// One chunk of a received packet, as the walk over the packet found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedChunk {
    /// Header and value in the packet, without padding.
    pub range: Range<usize>,
    pub chunk_type: u8,
    pub flags: u8,
}

/// The chunks of a received packet, walked once: each chunk's place,
/// type and flags, in order, and whether the walk stopped at a chunk
/// whose header does not hold (what came before it is kept). The endpoint
/// builds it to find the packet's association and hands it over, so the
/// association processes the chunks without walking the packet again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChunkIndex {
    chunks: Vec<IndexedChunk>,
    malformed: bool,
}

impl ChunkIndex {
    /// Walks the chunks of `packet` (which starts with the common header).
    pub fn new(packet: &[u8]) -> Self {
        let mut index = ChunkIndex::default();
        index.refill(packet);
        index
    }

    /// Walks the chunks of another packet, reusing this index's memory.
    pub fn refill(&mut self, packet: &[u8]) {
        self.chunks.clear();
        self.malformed = false;
        for item in ChunkIter::new(packet) {
            match item {
                Ok((range, c)) => self.chunks.push(IndexedChunk {
                    range,
                    chunk_type: c.chunk_type(),
                    flags: c.flags(),
                }),
                Err(_) => {
                    self.malformed = true;
                    break;
                }
            }
        }
    }

    /// The chunks, in order.
    pub fn chunks(&self) -> &[IndexedChunk] {
        &self.chunks
    }

    pub fn first(&self) -> Option<&IndexedChunk> {
        self.chunks.first()
    }

    /// The first chunk of type `t`.
    pub fn find(&self, t: u8) -> Option<&IndexedChunk> {
        self.chunks.iter().find(|c| c.chunk_type == t)
    }

    /// Whether a chunk of type `t` is bundled.
    pub fn has(&self, t: u8) -> bool {
        self.find(t).is_some()
    }

    pub fn len(&self) -> usize {
        self.chunks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// The walk stopped at a chunk whose header does not hold.
    pub fn malformed(&self) -> bool {
        self.malformed
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
            chunks.push(tlv::parse_at(buf, range)?);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::chunk::DataChunk;

    fn bytes(hex_str: &str) -> Vec<u8> {
        let clean: String = hex_str.chars().filter(|c| c.is_ascii_hexdigit()).collect();
        hex::decode(clean).expect("test hex")
    }

    /// COOKIE ACK, then a DATA chunk with 5 bytes of user data whose
    /// padding is missing (allowed for the last chunk).
    const PACKET: &str = "1389 138a 0000abcd 00000000 | 0b 00 0004 | 00 03 0015 00000001 0000 0000 00000000 68656c6c6f";

    #[test]
    fn header_fields_and_chunk_walk() {
        let mut buf = bytes(PACKET);
        crc::fill(&mut buf);
        let p = Packet::new_checked(&buf[..]).unwrap();
        assert_eq!(
            p.header(),
            CommonHeader {
                src_port: 5001,
                dst_port: 5002,
                verification_tag: 0xabcd
            }
        );
        assert!(p.verify_checksum());
        assert_eq!(p.checksum(), crc::checksum(&buf));
        assert_eq!(p.payload().len(), buf.len() - 12);
        let walked: Vec<_> = p.chunks().map(|c| c.unwrap()).collect();
        assert_eq!(walked.len(), 2);
        assert_eq!(walked[0].0, 12..16);
        assert_eq!(walked[1].0, 16..37);
        assert_eq!(walked[1].1.value().len(), 17);
        assert_eq!(walked[1].1.chunk_type(), 0);
    }

    #[test]
    fn parse_then_emit_adds_only_the_missing_padding() {
        let mut buf = bytes(PACKET);
        crc::fill(&mut buf);
        let repr = PacketRepr::parse(&Bytes::from(buf.clone())).unwrap();
        assert_eq!(repr.chunks.len(), 2);
        assert_eq!(repr.chunks[0], Chunk::CookieAck);
        let Chunk::Data(DataChunk {
            payload,
            begin,
            end,
            ..
        }) = &repr.chunks[1]
        else {
            panic!()
        };
        assert_eq!(&payload[..], b"hello");
        assert!(*begin && *end);
        let out = repr.emit();
        assert_eq!(out.len(), buf.len() + 3);
        assert_eq!(&out[12..buf.len()], &buf[12..]);
        assert_eq!(&out[buf.len()..], &[0, 0, 0]);
        assert!(crc::verify(&out));
        assert_eq!(repr.buffer_len(), out.len());
        assert_eq!(PacketRepr::parse(&Bytes::from(out)).unwrap(), repr);
    }

    #[test]
    fn emit_into_appends_and_checksums_only_its_packet() {
        let repr = PacketRepr {
            header: CommonHeader {
                src_port: 1,
                dst_port: 2,
                verification_tag: 3,
            },
            chunks: vec![Chunk::ShutdownAck],
        };
        let mut out = vec![0xee; 5];
        repr.emit_into(&mut out);
        assert_eq!(&out[..5], &[0xee; 5]);
        assert!(crc::verify(&out[5..]));
        assert_eq!(out.len(), 5 + 16);
        let mut p = Packet::new_checked(&mut out[5..]).unwrap();
        p.set_verification_tag(0x0102_0304);
        p.set_src_port(7);
        p.set_dst_port(8);
        assert!(!p.verify_checksum());
        p.fill_checksum();
        assert!(p.verify_checksum());
        assert_eq!(
            p.header(),
            CommonHeader {
                src_port: 7,
                dst_port: 8,
                verification_tag: 0x0102_0304
            }
        );
    }

    #[test]
    fn try_emit_into_refuses_oversized_chunks() {
        let repr = PacketRepr {
            header: CommonHeader {
                src_port: 1,
                dst_port: 2,
                verification_tag: 3,
            },
            chunks: vec![Chunk::CookieEcho {
                cookie: Bytes::from(vec![0; 70_000]),
            }],
        };
        let mut out = Vec::new();
        assert_eq!(
            repr.try_emit_into(&mut out),
            Err(WireError::TooLong {
                what: "chunk",
                length: 70_004
            })
        );
        assert!(out.is_empty());
    }

    #[test]
    fn walk_errors() {
        let hdr = "1389 138a 00000000 00000000";
        // Header only: no chunks, no error.
        assert_eq!(
            Packet::new_checked(&bytes(hdr)[..])
                .unwrap()
                .chunks()
                .count(),
            0
        );
        assert_eq!(
            PacketRepr::parse(&Bytes::from(bytes(hdr))).unwrap().chunks,
            vec![]
        );
        let cases = [
            (
                format!("{hdr} 0b00"),
                WireError::Truncated {
                    offset: 12,
                    needed: 4,
                    available: 2,
                },
            ),
            (
                format!("{hdr} 0b000004 0b00"),
                WireError::Truncated {
                    offset: 16,
                    needed: 4,
                    available: 2,
                },
            ),
            (
                format!("{hdr} 0b000000"),
                WireError::BadChunkLength {
                    offset: 12,
                    length: 0,
                },
            ),
            (
                format!("{hdr} 0b000003"),
                WireError::BadChunkLength {
                    offset: 12,
                    length: 3,
                },
            ),
            (
                format!("{hdr} 0b000008 0000"),
                WireError::BadChunkLength {
                    offset: 12,
                    length: 8,
                },
            ),
        ];
        for (hex_str, err) in cases {
            let b = bytes(&hex_str);
            let p = Packet::new_checked(&b[..]).unwrap();
            let items: Vec<_> = p.chunks().collect();
            assert_eq!(
                items.last().unwrap().as_ref().unwrap_err(),
                &err,
                "{hex_str}"
            );
            assert_eq!(PacketRepr::parse(&Bytes::from(b)).unwrap_err(), err);
        }
        // An unparsable chunk fails the whole packet, the walk still goes on.
        let b = bytes(&format!("{hdr} 07000004 0b000004"));
        assert_eq!(
            PacketRepr::parse(&Bytes::from(b.clone())).unwrap_err(),
            WireError::BadLength {
                what: "SHUTDOWN chunk",
                length: 4
            }
        );
        assert_eq!(
            Packet::new_unchecked(&b[..])
                .chunks()
                .filter(Result::is_ok)
                .count(),
            2
        );
    }

    #[test]
    fn short_buffers() {
        for len in 0..12 {
            let b = vec![0xffu8; len];
            assert_eq!(
                Packet::new_checked(&b[..]).unwrap_err(),
                WireError::Truncated {
                    offset: 0,
                    needed: 12,
                    available: len
                }
            );
            let p = Packet::new_unchecked(&b[..]);
            let _ = (
                p.src_port(),
                p.dst_port(),
                p.verification_tag(),
                p.checksum(),
                p.verify_checksum(),
            );
            let mut it = p.chunks();
            assert!(matches!(it.next(), Some(Err(WireError::Truncated { .. }))));
            assert!(it.next().is_none());
            assert!(PacketRepr::parse(&Bytes::from(b.clone())).is_err());
            let mut m = b.clone();
            let mut p = Packet::new_unchecked(&mut m[..]);
            p.set_verification_tag(1);
            p.fill_checksum();
        }
    }
}
