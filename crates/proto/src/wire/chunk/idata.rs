//! I-DATA and I-FORWARD-TSN (RFC 8260 sections 2.1 and 2.3): the chunks
//! that let an association interleave the fragments of messages of
//! different streams. A message is named by its stream, its U bit and a
//! 32-bit Message Identifier (MID); its fragments by a Fragment Sequence
//! Number (FSN), 0 for the first, whose chunk carries the PPID in the same
//! place.

use std::ops::Range;

use bytes::Bytes;

use super::{Chunk, bad, data_flags};
use crate::wire::WireError;
use crate::wire::field::{u16_at, u32_at};

/// Offsets in an I-DATA chunk (RFC 8260 section 2.1).
mod off {
    pub const TSN: usize = 4;
    pub const STREAM_ID: usize = 8;
    pub const MID: usize = 12;
    pub const PPID_OR_FSN: usize = 16;
    pub const USER_DATA: usize = 20;
}

/// I-DATA chunk (RFC 8260 section 2.1): flags U, B, E and I as in DATA.
/// The PPID/FSN field is a PPID when `begin` is set (the FSN is then 0)
/// and an FSN otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IDataChunk {
    pub tsn: u32,
    pub stream_id: u16,
    /// Message Identifier: the same for all fragments of a message; per
    /// stream, one counter for ordered and one for unordered messages.
    pub mid: u32,
    /// PPID of the message (meaningful when `begin`; 0 otherwise).
    pub ppid: u32,
    /// Fragment Sequence Number (0 when `begin`).
    pub fsn: u32,
    pub unordered: bool,
    pub begin: bool,
    pub end: bool,
    /// I bit (RFC 7053).
    pub immediate: bool,
    pub payload: Bytes,
}

impl IDataChunk {
    /// Bytes before the user data: chunk header, TSN, Stream Identifier,
    /// Reserved, MID, PPID/FSN (RFC 8260 section 2.1).
    pub const HEADER_LEN: usize = off::USER_DATA;

    /// The chunk flags (reserved bits zero).
    pub fn flags(&self) -> u8 {
        let mut f = 0;
        if self.end {
            f |= data_flags::END;
        }
        if self.begin {
            f |= data_flags::BEGIN;
        }
        if self.unordered {
            f |= data_flags::UNORDERED;
        }
        if self.immediate {
            f |= data_flags::IMMEDIATE;
        }
        f
    }

    pub(super) fn value_len(&self) -> usize {
        (Self::HEADER_LEN - 4).saturating_add(self.payload.len())
    }

    pub(super) fn emit_value(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.tsn.to_be_bytes());
        out.extend_from_slice(&self.stream_id.to_be_bytes());
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&self.mid.to_be_bytes());
        let ppid_fsn = if self.begin { self.ppid } else { self.fsn };
        out.extend_from_slice(&ppid_fsn.to_be_bytes());
        out.extend_from_slice(&self.payload);
    }

    /// Decodes an I-DATA chunk; the payload is a slice of `buf`.
    pub(super) fn decode(
        buf: &Bytes,
        range: Range<usize>,
        c: &[u8],
        flags: u8,
    ) -> Result<Chunk, WireError> {
        if c.len() < Self::HEADER_LEN {
            return Err(bad("I-DATA chunk", c.len()));
        }
        let begin = flags & data_flags::BEGIN != 0;
        let ppid_fsn = u32_at(c, off::PPID_OR_FSN);
        Ok(Chunk::IData(IDataChunk {
            tsn: u32_at(c, off::TSN),
            stream_id: u16_at(c, off::STREAM_ID),
            mid: u32_at(c, off::MID),
            ppid: if begin { ppid_fsn } else { 0 },
            fsn: if begin { 0 } else { ppid_fsn },
            unordered: flags & data_flags::UNORDERED != 0,
            begin,
            end: flags & data_flags::END != 0,
            immediate: flags & data_flags::IMMEDIATE != 0,
            payload: buf.slice(range.start + Self::HEADER_LEN..range.end),
        }))
    }
}

/// One entry of an I-FORWARD-TSN (RFC 8260 section 2.3): on `stream`,
/// the ordered (or, with `unordered`, the unordered) messages up to `mid`
/// are skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct IForwardEntry {
    pub stream: u16,
    pub unordered: bool,
    pub mid: u32,
}

/// Bytes of one I-FORWARD-TSN entry: Stream Identifier, Reserved and U
/// flag, Message Identifier.
const ENTRY_LEN: usize = 8;
/// The U flag in the 16-bit Reserved/U field of an entry.
const ENTRY_U: u16 = 0x0001;

/// I-FORWARD-TSN (RFC 8260 section 2.3): the new cumulative TSN and the
/// skipped messages per stream and ordering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IForwardTsnChunk {
    pub new_cum_tsn: u32,
    pub entries: Vec<IForwardEntry>,
}

impl IForwardTsnChunk {
    pub(super) fn value_len(&self) -> usize {
        4usize.saturating_add(self.entries.len().saturating_mul(ENTRY_LEN))
    }

    pub(super) fn emit_value(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.new_cum_tsn.to_be_bytes());
        for e in &self.entries {
            out.extend_from_slice(&e.stream.to_be_bytes());
            let u = if e.unordered { ENTRY_U } else { 0 };
            out.extend_from_slice(&u.to_be_bytes());
            out.extend_from_slice(&e.mid.to_be_bytes());
        }
    }

    /// Decodes an I-FORWARD-TSN: a length of 8 plus a whole number of
    /// entries.
    pub(super) fn decode(c: &[u8]) -> Result<Chunk, WireError> {
        let len = c.len();
        if len < 8 || !(len - 8).is_multiple_of(ENTRY_LEN) {
            return Err(bad("I-FORWARD-TSN chunk", len));
        }
        let entries = c[8..]
            .chunks_exact(ENTRY_LEN)
            .map(|e| IForwardEntry {
                stream: u16_at(e, 0),
                unordered: u16_at(e, 2) & ENTRY_U != 0,
                mid: u32_at(e, 4),
            })
            .collect();
        Ok(Chunk::IForwardTsn(IForwardTsnChunk {
            new_cum_tsn: u32_at(c, 4),
            entries,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(c: Chunk) -> Vec<u8> {
        crate::wire::tlv::testing::emitted(&c)
    }

    #[test]
    fn first_fragment_carries_the_ppid_later_ones_the_fsn() {
        let first = IDataChunk {
            tsn: 7,
            stream_id: 2,
            mid: 0x0102_0304,
            ppid: 51,
            fsn: 0,
            unordered: false,
            begin: true,
            end: false,
            immediate: false,
            payload: Bytes::from_static(b"abcd"),
        };
        let b = roundtrip(Chunk::IData(first.clone()));
        assert_eq!(b[0], 0x40);
        assert_eq!(b[1], data_flags::BEGIN);
        assert_eq!(&b[2..4], &[0, 24]);
        assert_eq!(&b[16..20], &51u32.to_be_bytes());
        let later = IDataChunk {
            begin: false,
            end: true,
            ppid: 0,
            fsn: 3,
            ..first
        };
        let b = roundtrip(Chunk::IData(later));
        assert_eq!(&b[16..20], &3u32.to_be_bytes());
    }

    #[test]
    fn i_forward_tsn_entries_carry_the_u_flag() {
        let c = Chunk::IForwardTsn(IForwardTsnChunk {
            new_cum_tsn: 99,
            entries: vec![
                IForwardEntry {
                    stream: 1,
                    unordered: true,
                    mid: 5,
                },
                IForwardEntry {
                    stream: 3,
                    unordered: false,
                    mid: 0xFFFF_FFFF,
                },
            ],
        });
        let b = roundtrip(c);
        assert_eq!(b[0], 0xC2);
        assert_eq!(&b[2..4], &[0, 24]);
        assert_eq!(&b[8..16], &[0, 1, 0, 1, 0, 0, 0, 5]);
    }

    #[test]
    fn short_chunks_are_refused() {
        let short =
            Bytes::from_static(&[0x40, 0x03, 0x00, 0x10, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0]);
        assert!(Chunk::parse(&short).is_err());
        let ragged = Bytes::from_static(&[0xC2, 0, 0, 12, 0, 0, 0, 1, 0, 1, 0, 0]);
        assert!(Chunk::parse(&ragged).is_err());
    }
}
