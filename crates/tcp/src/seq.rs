//! TCP sequence numbers: 32-bit values compared modulo 2^32 (RFC 9293
//! section 3.4). `a < b` means `b` lies less than 2^31 ahead of `a`.

use std::fmt;

/// A sequence number in the 32-bit circular space of TCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SeqNum(pub u32);

impl SeqNum {
    /// The sequence number `n` octets after this one.
    pub fn wrapping_add(self, n: u32) -> SeqNum {
        SeqNum(self.0.wrapping_add(n))
    }

    /// Octets from `earlier` to `self`, assuming `earlier <= self`.
    pub fn since(self, earlier: SeqNum) -> u32 {
        self.0.wrapping_sub(earlier.0)
    }

    /// Signed distance from `other` to `self` (positive when `self` is later).
    pub fn diff(self, other: SeqNum) -> i32 {
        self.0.wrapping_sub(other.0) as i32
    }

    pub fn lt(self, other: SeqNum) -> bool {
        self.diff(other) < 0
    }
    pub fn le(self, other: SeqNum) -> bool {
        self.diff(other) <= 0
    }
    pub fn gt(self, other: SeqNum) -> bool {
        self.diff(other) > 0
    }
    pub fn ge(self, other: SeqNum) -> bool {
        self.diff(other) >= 0
    }

    /// The later of two sequence numbers.
    pub fn max(self, other: SeqNum) -> SeqNum {
        if self.ge(other) { self } else { other }
    }

    /// The earlier of two sequence numbers.
    pub fn min(self, other: SeqNum) -> SeqNum {
        if self.le(other) { self } else { other }
    }
}

impl fmt::Display for SeqNum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_wrap_around() {
        let a = SeqNum(u32::MAX - 10);
        let b = a.wrapping_add(20);
        assert_eq!(b, SeqNum(9));
        assert!(a.lt(b) && b.gt(a) && a.le(a) && a.ge(a));
        assert_eq!(b.since(a), 20);
        assert_eq!(a.diff(b), -20);
        assert_eq!(a.max(b), b);
        assert_eq!(a.min(b), a);
    }
}
