//! The type-length-value layout that every chunk (RFC 9260 section 3.2),
//! parameter (section 3.2.1) and error cause (section 3.3.10) shares: a
//! 16-bit type (for a chunk, Chunk Type and Chunk Flags), a 16-bit length
//! counting the 4-byte header and the value, the value, then zero padding
//! to a multiple of 4 bytes that the length does not count.
//!
//! - [`TlvView`]: one such structure at the start of a buffer, with
//!   checked accessors; [`ChunkView`](super::ChunkView) and
//!   [`ParamView`](super::ParamView) (which serves error causes too) name
//!   its type field;
//! - [`TlvIter`]: the walk over a list of them (the chunks of a packet,
//!   the parameters of an INIT, the causes of an ABORT), where the last
//!   one's padding may be missing;
//! - [`Tlv`]: a typed chunk, parameter or cause, decoded with
//!   [`parse_at`] / [`parse_list_at`] and emitted with [`Tlv::emit`] /
//!   [`emit_list`] (a list inside a chunk or parameter: every member
//!   padded but the last, whose padding is the enclosing structure's).

use std::ops::Range;

use bytes::Bytes;

use super::WireError;
use super::field::{backpatch_len, pad, padded, u16_at};

/// The header's fields, from the structure's start.
pub(crate) const TYPE: usize = 0;
/// A chunk's Chunk Flags (the low byte of the type field).
pub(crate) const FLAGS: usize = 1;
pub(crate) const LENGTH: usize = 2;
/// The value starts here.
pub(crate) const VALUE: usize = 4;

/// Which structures a list holds, for the error a bad length gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Chunk,
    /// Parameters and error causes.
    Param,
}

impl Kind {
    fn bad_length(self, offset: usize, length: u16) -> WireError {
        match self {
            Kind::Chunk => WireError::BadChunkLength { offset, length },
            Kind::Param => WireError::BadParamLength { offset, length },
        }
    }
}

/// The bytes of `buf` from `offset` must hold a TLV header whose length is
/// at least the header and fits in `end`: its unpadded length.
fn checked_len(buf: &[u8], offset: usize, end: usize, kind: Kind) -> Result<usize, WireError> {
    let available = end.saturating_sub(offset);
    if available < VALUE {
        return Err(WireError::Truncated {
            offset,
            needed: VALUE,
            available,
        });
    }
    let length = u16_at(buf, offset + LENGTH);
    let len = usize::from(length);
    if len < VALUE || len > available {
        return Err(kind.bad_length(offset, length));
    }
    Ok(len)
}

/// A zero-copy view of one TLV at the start of a buffer (which may go on
/// past it: padding, the next TLV).
#[derive(Debug, Clone)]
pub struct TlvView<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> TlvView<T> {
    /// Type and Length.
    pub const HEADER_LEN: usize = VALUE;

    /// Wraps a buffer without any check. Accessors never panic: fields
    /// beyond the end of a short buffer read as zero.
    pub fn new_unchecked(buffer: T) -> Self {
        TlvView { buffer }
    }

    /// Wraps a buffer that starts with one TLV: it must hold the header,
    /// and the length field must be at least the header and fit the
    /// buffer (a bad length is reported as `kind`'s).
    pub(crate) fn new_checked(buffer: T, kind: Kind) -> Result<Self, WireError> {
        let b = buffer.as_ref();
        checked_len(b, 0, b.len(), kind)?;
        Ok(TlvView { buffer })
    }

    /// The 16-bit type field (a chunk's type and flags).
    pub fn type_field(&self) -> u16 {
        u16_at(self.buffer.as_ref(), TYPE)
    }

    /// The length field: header and value, without padding.
    pub fn length(&self) -> u16 {
        u16_at(self.buffer.as_ref(), LENGTH)
    }

    /// The value: the bytes after the header up to the length field
    /// (clamped to the buffer).
    pub fn value(&self) -> &[u8] {
        let buf = self.buffer.as_ref();
        let end = usize::from(self.length()).min(buf.len());
        buf.get(VALUE..end).unwrap_or_default()
    }

    /// The length rounded up to a multiple of 4.
    pub fn padded_len(&self) -> usize {
        padded(usize::from(self.length()))
    }

    /// The bytes the view holds (from the TLV's start).
    pub fn bytes(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// The wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }
}

/// Walks a list of TLVs, each padded to 4 bytes, the last one's padding
/// possibly missing (an enclosing length does not count it). Yields each
/// TLV's byte range (header and value, without padding) within the
/// buffer, and those bytes; after an error (fewer than 4 bytes left, a length below 4 or
/// past the end of the list) it yields nothing more.
#[derive(Debug, Clone)]
pub(crate) struct TlvIter<'a> {
    buf: &'a [u8],
    pos: usize,
    end: usize,
    kind: Kind,
    done: bool,
}

impl<'a> TlvIter<'a> {
    /// Walks `range` of `buf` (clamped to `buf`); ranges and error offsets
    /// are positions in `buf`.
    pub(crate) fn new_in(buf: &'a [u8], range: Range<usize>, kind: Kind) -> Self {
        let end = range.end.min(buf.len());
        TlvIter {
            buf,
            pos: range.start,
            end,
            kind,
            done: range.start >= end,
        }
    }
}

impl<'a> Iterator for TlvIter<'a> {
    type Item = Result<(Range<usize>, &'a [u8]), WireError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.pos >= self.end {
            self.done = true;
            return None;
        }
        let offset = self.pos;
        match checked_len(self.buf, offset, self.end, self.kind) {
            Ok(len) => {
                self.pos = offset.saturating_add(padded(len)).min(self.end);
                let range = offset..offset + len;
                Some(Ok((range.clone(), self.buf.get(range).unwrap_or_default())))
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// A typed chunk, parameter or error cause.
pub(crate) trait Tlv: Sized {
    /// What a list of them is, for length errors.
    const KIND: Kind;

    /// The length field: header and value, without padding. May exceed
    /// 65535 for an oversized value, which cannot be sent.
    fn length(&self) -> usize;

    /// Appends the header and value, no padding; the length field is
    /// filled in by [`Tlv::emit`] and [`emit_list`].
    fn emit_value(&self, out: &mut Vec<u8>);

    /// Decodes the TLV whose header and value are `tlv` (at least the
    /// header), found at `range` of `buf`: payloads are slices of `buf`,
    /// error offsets positions in it.
    fn decode(buf: &Bytes, range: Range<usize>, tlv: &[u8]) -> Result<Self, WireError>;

    /// The length rounded up to a multiple of 4: the bytes `emit` appends.
    fn padded_len(&self) -> usize {
        padded(self.length())
    }

    /// Appends the TLV without its trailing padding; the length field
    /// saturates at 65535 for an oversized value.
    fn emit_unpadded(&self, out: &mut Vec<u8>) {
        let start = out.len();
        self.emit_value(out);
        backpatch_len(out, start);
    }

    /// Appends the TLV with zero padding to 4 bytes.
    fn emit(&self, out: &mut Vec<u8>) {
        let start = out.len();
        self.emit_unpadded(out);
        pad(out, start);
    }
}

/// Decodes the TLV occupying exactly `range` of `buf` (its length field is
/// taken to be `range.len()`).
pub(crate) fn parse_at<T: Tlv>(buf: &Bytes, range: Range<usize>) -> Result<T, WireError> {
    let Some(bytes) = buf.get(range.clone()) else {
        let available = buf.len().saturating_sub(range.start);
        return Err(WireError::Truncated {
            offset: range.start,
            needed: range.len(),
            available,
        });
    };
    if bytes.len() < VALUE {
        return Err(WireError::Truncated {
            offset: range.start,
            needed: VALUE,
            available: bytes.len(),
        });
    }
    T::decode(buf, range, bytes)
}

/// Decodes one TLV at the start of `buf`, which may go on past its length
/// field (padding), which is ignored.
pub(crate) fn parse_one<T: Tlv>(buf: &Bytes) -> Result<T, WireError> {
    let view = TlvView::new_checked(&buf[..], T::KIND)?;
    parse_at(buf, 0..usize::from(view.length()))
}

/// Decodes the list of TLVs in `range` of `buf`.
pub(crate) fn parse_list_at<T: Tlv>(buf: &Bytes, range: Range<usize>) -> Result<Vec<T>, WireError> {
    let mut out = Vec::new();
    for item in TlvIter::new_in(buf, range, T::KIND) {
        out.push(parse_at(buf, item?.0)?);
    }
    Ok(out)
}

/// Appends `items`, each padded but the last (RFC 9260 section 3.2: the
/// enclosing length does not count the last one's padding; the enclosing
/// structure pads itself).
pub(crate) fn emit_list<T: Tlv>(items: &[T], out: &mut Vec<u8>) {
    let last = items.len().saturating_sub(1);
    for (i, item) in items.iter().enumerate() {
        if i == last {
            item.emit_unpadded(out)
        } else {
            item.emit(out)
        }
    }
}

/// Bytes [`emit_list`] appends: every member's padded length but the
/// last one's padding.
pub(crate) fn list_len<T: Tlv>(items: &[T]) -> usize {
    let mut total = 0usize;
    let mut last_pad = 0usize;
    for len in items.iter().map(Tlv::length) {
        total = total.saturating_add(padded(len));
        last_pad = padded(len) - len;
    }
    total - last_pad
}

/// What the codecs' tests share: hex input, and the round trip every
/// chunk, parameter and cause must survive.
#[cfg(test)]
pub(crate) mod testing {
    use bytes::Bytes;

    use super::{Tlv, TlvView, parse_one};
    use crate::wire::WireError;

    /// Bytes from a hex string with spaces and `|` as visual separators.
    pub(crate) fn bytes(hex_str: &str) -> Bytes {
        let clean: String = hex_str.chars().filter(|c| c.is_ascii_hexdigit()).collect();
        Bytes::from(hex::decode(clean).expect("test hex"))
    }

    /// Parses one TLV given with its padding, checks that `emit` gives the
    /// same bytes back and that the lengths agree; returns it with its
    /// type field.
    pub(crate) fn roundtrip<T: Tlv + std::fmt::Debug>(hex_str: &str) -> (T, u16) {
        let b = bytes(hex_str);
        let t: T = parse_one(&b).expect("parse");
        let mut out = Vec::new();
        t.emit(&mut out);
        assert_eq!(
            hex::encode(&out),
            hex::encode(&b),
            "emit(parse(b)) != b for {t:?}"
        );
        let view = TlvView::new_unchecked(&b[..]);
        assert_eq!(t.length(), usize::from(view.length()));
        assert_eq!(t.padded_len(), b.len());
        (t, view.type_field())
    }

    /// The round trip from the value side: `t` emitted (its padded length)
    /// parses back to `t`; returns the bytes.
    pub(crate) fn emitted<T: Tlv + PartialEq + std::fmt::Debug>(t: &T) -> Vec<u8> {
        let mut out = Vec::new();
        t.emit(&mut out);
        assert_eq!(out.len(), t.padded_len(), "{t:?}");
        let back: T = parse_one(&Bytes::from(out.clone())).expect("parses");
        assert_eq!(&back, t);
        out
    }

    /// The error of a TLV that must not parse.
    pub(crate) fn parse_err<T: Tlv + std::fmt::Debug>(hex_str: &str) -> WireError {
        parse_one::<T>(&bytes(hex_str)).expect_err("must not parse")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_is_walked_to_its_end_and_stops_at_a_bad_length() {
        // Two TLVs, the first padded, the last one's padding missing.
        let b = [0, 1, 0, 5, 9, 0, 0, 0, 0, 2, 0, 6, 7, 8];
        let ranges: Vec<_> = TlvIter::new_in(&b, 0..b.len(), Kind::Param)
            .map(|r| r.unwrap().0)
            .collect();
        assert_eq!(ranges, [0..5, 8..14]);
        // A length below the header ends the walk with the kind's error.
        let bad = [0, 1, 0, 3, 0];
        let mut it = TlvIter::new_in(&bad, 0..bad.len(), Kind::Chunk);
        assert_eq!(
            it.next(),
            Some(Err(WireError::BadChunkLength {
                offset: 0,
                length: 3
            }))
        );
        assert_eq!(it.next(), None);
        // Fewer than 4 bytes left.
        let mut it = TlvIter::new_in(&b, 12..14, Kind::Param);
        assert_eq!(
            it.next(),
            Some(Err(WireError::Truncated {
                offset: 12,
                needed: 4,
                available: 2
            }))
        );
    }

    #[test]
    fn a_view_never_reads_past_its_buffer() {
        let v = TlvView::new_unchecked(&[0xab, 0xcd, 0, 9, 1][..]);
        assert_eq!(
            (v.type_field(), v.length(), v.value(), v.padded_len()),
            (0xabcd, 9, &[1][..], 12)
        );
        assert!(TlvView::new_checked(&[0, 1, 0, 9, 1][..], Kind::Param).is_err());
    }
}
