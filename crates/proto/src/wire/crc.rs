//! CRC32c (Castagnoli) checksum of SCTP packets, RFC 9260 section 6.8 and
//! appendix A.
//!
//! The checksum covers the whole packet (common header and all chunks) with
//! the checksum field taken as zero. The value computed by the reflected
//! CRC32c algorithm of appendix A (the standard CRC-32C, as the `crc32c`
//! crate returns it) is stored in the 4-byte field least significant byte
//! first: appendix A's reference code places `crc & 0xff` in the first
//! byte. RFC 3720 appendix B.4 (iSCSI uses the same CRC) gives vectors with
//! the bytes in that order, e.g. 32 zero bytes give `aa 36 91 8a`.

use std::ops::Range;

/// Byte range of the checksum field in the common header.
pub const CHECKSUM_RANGE: Range<usize> = super::field::header::CHECKSUM..super::field::header::LEN;

const ZEROS: [u8; 4] = [0; 4];

/// CRC32c of `packet` as if its checksum field (bytes 8 to 11) were zero,
/// without copying the packet. A buffer shorter than 12 bytes is treated
/// the same way (whatever part of the field it holds counts as zero).
pub fn checksum(packet: &[u8]) -> u32 {
    let head_end = packet.len().min(CHECKSUM_RANGE.start);
    let field_end = packet.len().min(CHECKSUM_RANGE.end);
    let mut crc = crc32c::crc32c(packet.get(..head_end).unwrap_or_default());
    crc = crc32c::crc32c_append(crc, ZEROS.get(..field_end - head_end).unwrap_or_default());
    crc32c::crc32c_append(crc, packet.get(field_end..).unwrap_or_default())
}

/// The checksum stored in the packet's checksum field, in the same
/// convention as [`checksum`] (the field read least significant byte
/// first); 0 if the buffer is shorter than 12 bytes.
pub fn stored(packet: &[u8]) -> u32 {
    match packet.get(CHECKSUM_RANGE) {
        Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    }
}

/// Computes the checksum and writes it into the packet's checksum field.
/// A buffer shorter than 12 bytes (no room for the field) is left as is.
pub fn fill(packet: &mut [u8]) {
    let crc = checksum(packet);
    if let Some(field) = packet.get_mut(CHECKSUM_RANGE) {
        field.copy_from_slice(&crc.to_le_bytes());
    }
}

/// True when the packet is at least 12 bytes long and its checksum field
/// holds the CRC32c of the packet.
pub fn verify(packet: &[u8]) -> bool {
    packet.len() >= CHECKSUM_RANGE.end && stored(packet) == checksum(packet)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 3720 appendix B.4, the CRC bytes as printed there (transmission
    /// order).
    #[test]
    fn rfc3720_b4_vectors() {
        let incrementing: Vec<u8> = (0u8..32).collect();
        let decrementing: Vec<u8> = (0u8..32).rev().collect();
        let iscsi_read_pdu: [u8; 48] = [
            0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, //
            0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00,
            0x00, 0x18, //
            0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00,
        ];
        let cases: [(&[u8], [u8; 4]); 5] = [
            (&[0u8; 32], [0xaa, 0x36, 0x91, 0x8a]),
            (&[0xffu8; 32], [0x43, 0xab, 0xa8, 0x62]),
            (&incrementing, [0x4e, 0x79, 0xdd, 0x46]),
            (&decrementing, [0x5c, 0xdb, 0x3f, 0x11]),
            (&iscsi_read_pdu, [0x56, 0x3a, 0x96, 0xd9]),
        ];
        for (data, wire) in cases {
            assert_eq!(crc32c::crc32c(data).to_le_bytes(), wire);
        }
    }

    #[test]
    fn checksum_ignores_the_field_and_fill_verifies() {
        let mut p: Vec<u8> = (0u8..40).collect();
        let c = checksum(&p);
        let mut zeroed = p.clone();
        zeroed[8..12].fill(0);
        assert_eq!(c, crc32c::crc32c(&zeroed));
        assert!(!verify(&p));
        fill(&mut p);
        assert!(verify(&p));
        assert_eq!(stored(&p), c);
        assert_eq!(&p[8..12], &c.to_le_bytes());
        p[20] ^= 1;
        assert!(!verify(&p));
    }

    #[test]
    fn short_buffers_do_not_panic() {
        for len in 0..12 {
            let mut p = vec![0x5au8; len];
            let _ = checksum(&p);
            fill(&mut p);
            assert_eq!(p, vec![0x5au8; len]);
            assert!(!verify(&p));
            assert_eq!(stored(&p), 0);
        }
        let mut p = vec![0x5au8; 10];
        let mut z = p.clone();
        z[8..10].fill(0);
        assert_eq!(checksum(&p), crc32c::crc32c(&z));
        fill(&mut p);
    }
}
