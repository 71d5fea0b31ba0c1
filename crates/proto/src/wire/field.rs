//! Big-endian field access, 4-byte padding, and the offsets of every
//! fixed field, shared by the packet, chunk, parameter and error-cause
//! codecs (after smoltcp's `mod field`: a field is named where it is
//! read or written, never a bare number).
//!
//! RFC 9260 section 3: every integer field is in network byte order, and
//! chunks, parameters and error causes are padded to a multiple of 4 bytes
//! with zero bytes that are not counted in their length field (sections 3.2
//! and 3.2.1). The readers here never panic: a field that lies (partly)
//! outside the buffer reads as zero. Callers check lengths first, so that
//! only happens on views built with `new_unchecked` over a short buffer.

/// The common header (RFC 9260 section 3.1), from the packet's start.
pub(crate) mod header {
    pub const SRC_PORT: usize = 0;
    pub const DST_PORT: usize = 2;
    pub const VERIFICATION_TAG: usize = 4;
    pub const CHECKSUM: usize = 8;
    /// The chunks start here.
    pub const LEN: usize = 12;
}

/// DATA (RFC 9260 section 3.3.1), from the chunk's start.
pub(crate) mod data {
    pub const TSN: usize = 4;
    pub const STREAM_ID: usize = 8;
    pub const SSN: usize = 10;
    pub const PPID: usize = 12;
    pub const USER_DATA: usize = 16;
}

/// INIT and INIT ACK (RFC 9260 sections 3.3.2, 3.3.3), from the chunk's
/// start.
pub(crate) mod init {
    pub const INITIATE_TAG: usize = 4;
    pub const A_RWND: usize = 8;
    pub const OUTBOUND_STREAMS: usize = 12;
    pub const INBOUND_STREAMS: usize = 14;
    pub const INITIAL_TSN: usize = 16;
    pub const PARAMS: usize = 20;
}

/// SACK (RFC 9260 section 3.3.4), from the chunk's start; each gap block
/// is a start and an end offset, each duplicate a TSN.
pub(crate) mod sack {
    pub const CUM_TSN_ACK: usize = 4;
    pub const A_RWND: usize = 8;
    pub const GAP_BLOCKS: usize = 12;
    pub const DUP_TSNS: usize = 14;
    pub const BLOCKS: usize = 16;
    pub const BLOCK_START: usize = 0;
    pub const BLOCK_END: usize = 2;
    pub const BLOCK_LEN: usize = 4;
    pub const DUP_LEN: usize = 4;
}

/// SHUTDOWN (RFC 9260 section 3.3.8): the cumulative TSN ack; also the
/// FORWARD TSN's new cumulative TSN (RFC 3758 section 3.2), each of whose
/// stream entries is a stream and a sequence number.
pub(crate) mod cum_tsn {
    pub const CUM_TSN: usize = 4;
    pub const LEN: usize = 8;
    pub const STREAM: usize = 0;
    pub const STREAM_SEQ: usize = 2;
    pub const STREAM_ENTRY_LEN: usize = 4;
}

/// AUTH (RFC 4895 section 4.2), from the chunk's start.
pub(crate) mod auth {
    pub const SHARED_KEY_ID: usize = 4;
    pub const HMAC_ID: usize = 6;
    pub const HMAC: usize = 8;
}

/// ASCONF and ASCONF-ACK (RFC 5061 sections 4.1.1, 4.1.2), from the
/// chunk's start: the serial number, then (ASCONF) the address parameter
/// and the requests, or (ASCONF-ACK) the responses.
pub(crate) mod asconf {
    pub const SERIAL: usize = 4;
    pub const PARAMS: usize = 8;
}

/// PROBE and PROBE-ECHO (this project's capacity probes, see
/// [`super::probe`]), from the chunk's start; each arrival entry of an
/// echo from the entry's start.
pub(crate) mod probe {
    pub const TRAIN: usize = 4;
    pub const SEQ: usize = 8;
    pub const COUNT: usize = 9;
    pub const ENTRY_SEQ: usize = 0;
    pub const ENTRY_PACKET_LEN: usize = 2;
    pub const ENTRY_OFFSET_NS: usize = 4;
}

/// The value of an ASCONF request or response parameter (RFC 5061
/// section 4.2): the correlation ID, then an address parameter or error
/// causes.
pub(crate) mod correlated {
    pub const CORRELATION_ID: usize = 0;
    pub const REST: usize = 4;
}

/// Reads the byte at `off`, or 0 when out of range.
pub(crate) fn u8_at(buf: &[u8], off: usize) -> u8 {
    buf.get(off).copied().unwrap_or(0)
}

/// Reads the big-endian `u16` at `off`, or 0 when out of range.
pub(crate) fn u16_at(buf: &[u8], off: usize) -> u16 {
    match buf.get(off..off.saturating_add(2)) {
        Some(&[a, b]) => u16::from_be_bytes([a, b]),
        _ => 0,
    }
}

/// Reads the big-endian `u32` at `off`, or 0 when out of range.
pub(crate) fn u32_at(buf: &[u8], off: usize) -> u32 {
    match buf.get(off..off.saturating_add(4)) {
        Some(&[a, b, c, d]) => u32::from_be_bytes([a, b, c, d]),
        _ => 0,
    }
}

/// Writes the big-endian `u16` at `off` if it fits; does nothing otherwise.
pub(crate) fn set_u16(buf: &mut [u8], off: usize, value: u16) {
    if let Some(dst) = buf.get_mut(off..off.saturating_add(2)) {
        dst.copy_from_slice(&value.to_be_bytes());
    }
}

/// Writes the big-endian `u32` at `off` if it fits; does nothing otherwise.
pub(crate) fn set_u32(buf: &mut [u8], off: usize, value: u32) {
    if let Some(dst) = buf.get_mut(off..off.saturating_add(4)) {
        dst.copy_from_slice(&value.to_be_bytes());
    }
}

/// `len` rounded up to a multiple of 4 (saturating near `usize::MAX`).
pub(crate) const fn padded(len: usize) -> usize {
    match len.checked_add(3) {
        Some(l) => l & !3,
        None => usize::MAX & !3,
    }
}

/// Appends zero bytes until the structure that started at `start` in `out`
/// is a multiple of 4 bytes long.
pub(crate) fn pad(out: &mut Vec<u8>, start: usize) {
    let len = out.len().saturating_sub(start);
    out.resize(out.len() + (padded(len) - len), 0);
}

/// Fills in the 16-bit length field at `start + 2` of a TLV or chunk header
/// with the number of bytes written since `start` (saturated at 65535; the
/// checked emitters refuse such structures before writing them).
pub(crate) fn backpatch_len(out: &mut [u8], start: usize) {
    let len = out.len().saturating_sub(start);
    let field = u16::try_from(len).unwrap_or(u16::MAX);
    set_u16(out, start.saturating_add(2), field);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_never_panic_and_read_big_endian() {
        let b = [0x12, 0x34, 0x56, 0x78];
        assert_eq!(u8_at(&b, 3), 0x78);
        assert_eq!(u8_at(&b, 4), 0);
        assert_eq!(u16_at(&b, 0), 0x1234);
        assert_eq!(u16_at(&b, 3), 0);
        assert_eq!(u16_at(&b, usize::MAX), 0);
        assert_eq!(u32_at(&b, 0), 0x1234_5678);
        assert_eq!(u32_at(&b, 1), 0);
        assert_eq!(u32_at(&b, usize::MAX - 1), 0);
    }

    #[test]
    fn writers_ignore_out_of_range() {
        let mut b = [0u8; 4];
        set_u16(&mut b, 3, 0xffff);
        set_u32(&mut b, 1, 0xffff_ffff);
        assert_eq!(b, [0; 4]);
        set_u32(&mut b, 0, 0xdead_beef);
        assert_eq!(b, [0xde, 0xad, 0xbe, 0xef]);
    }

    #[test]
    fn padding() {
        assert_eq!(padded(0), 0);
        assert_eq!(padded(5), 8);
        assert_eq!(padded(8), 8);
        assert_eq!(padded(usize::MAX), usize::MAX & !3);
        let mut v = vec![1, 2, 3];
        pad(&mut v, 1);
        assert_eq!(v, [1, 2, 3, 0, 0]);
    }
}
