//! Big-endian field access and 4-byte padding shared by the chunk,
//! parameter and error-cause codecs.
//!
//! RFC 9260 section 3: every integer field is in network byte order, and
//! chunks, parameters and error causes are padded to a multiple of 4 bytes
//! with zero bytes that are not counted in their length field (sections 3.2
//! and 3.2.1). The readers here never panic: a field that lies (partly)
//! outside the buffer reads as zero. Callers check lengths first, so that
//! only happens on views built with `new_unchecked` over a short buffer.

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

/// Length of a list of padded TLVs when the last one's padding is not
/// counted: RFC 9260 section 3.2, "the Chunk Length field ... does include
/// padding of any variable-length parameter except the last parameter in
/// the chunk". `lengths` yields the unpadded lengths.
pub(crate) fn tlv_list_len(lengths: impl Iterator<Item = usize>) -> usize {
    let mut total = 0usize;
    let mut last_pad = 0usize;
    for len in lengths {
        total = total.saturating_add(padded(len));
        last_pad = padded(len) - len;
    }
    total - last_pad
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
        assert_eq!(tlv_list_len([5usize, 6, 7].into_iter()), 8 + 8 + 7);
        assert_eq!(tlv_list_len(std::iter::empty()), 0);
    }
}
