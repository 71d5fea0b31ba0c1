//! The stamp at the head of every application datagram: sequence number
//! and send time, big-endian, 16 bytes.

use crate::Time;

pub const STAMP_LEN: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub seq: u64,
    pub sent_at: Time,
}

impl Stamp {
    /// Writes the stamp at the start of `buf` (at least [`STAMP_LEN`] long,
    /// else nothing is written).
    pub fn write(&self, buf: &mut [u8]) {
        if buf.len() >= STAMP_LEN {
            buf[..8].copy_from_slice(&self.seq.to_be_bytes());
            buf[8..16].copy_from_slice(&self.sent_at.as_nanos().to_be_bytes());
        }
    }

    /// Reads a stamp; `None` if the payload is too short.
    pub fn read(buf: &[u8]) -> Option<Stamp> {
        let seq = u64::from_be_bytes(buf.get(..8)?.try_into().ok()?);
        let t = u64::from_be_bytes(buf.get(8..16)?.try_into().ok()?);
        Some(Stamp {
            seq,
            sent_at: Time::from_nanos(t),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_short_input() {
        let s = Stamp {
            seq: 77,
            sent_at: Time::from_nanos(123_456_789),
        };
        let mut b = [0u8; 20];
        s.write(&mut b);
        assert_eq!(Stamp::read(&b), Some(s));
        assert_eq!(Stamp::read(&b[..15]), None);
    }
}
