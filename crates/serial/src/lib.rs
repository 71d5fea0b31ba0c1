//! msctp-serial: 32-bit serial numbers, the circular counters of SCTP
//! (TSNs, stream sequence numbers, ASCONF serials: RFC 9260 section 1.6)
//! and TCP (sequence numbers: RFC 9293 section 3.4), compared by serial
//! number arithmetic (RFC 1982 with SERIAL_BITS = 32), and unwrapped onto
//! a 64-bit line where they no longer wrap.
//!
//! RFC 1982 section 3.2: `a < b` when `a != b` and `b - a` (modulo 2^32)
//! is below 2^31. Two numbers exactly 2^31 apart are not comparable:
//! neither is less than the other.
//!
//! Shared by the SCTP engine, the TCP model and the simulator's observers,
//! which all counted these numbers on their own before.

use std::fmt;

/// A 32-bit serial number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Serial(pub u32);

impl Serial {
    /// The number `n` steps after this one.
    pub fn wrapping_add(self, n: u32) -> Serial {
        Serial(self.0.wrapping_add(n))
    }

    /// Steps from `earlier` to `self`, assuming `earlier <= self`.
    pub fn since(self, earlier: Serial) -> u32 {
        self.0.wrapping_sub(earlier.0)
    }

    /// Signed distance from `other` to `self` (positive when `self` is
    /// later); `i32::MIN` for two numbers 2^31 apart.
    pub fn diff(self, other: Serial) -> i32 {
        self.0.wrapping_sub(other.0) as i32
    }

    /// `self < other` (RFC 1982 section 3.2).
    pub fn lt(self, other: Serial) -> bool {
        lt(self.0, other.0)
    }

    pub fn le(self, other: Serial) -> bool {
        le(self.0, other.0)
    }

    pub fn gt(self, other: Serial) -> bool {
        gt(self.0, other.0)
    }

    pub fn ge(self, other: Serial) -> bool {
        ge(self.0, other.0)
    }

    /// The later of two numbers (`self` when they are not comparable).
    pub fn max(self, other: Serial) -> Serial {
        if other.gt(self) { other } else { self }
    }

    /// The earlier of two numbers (`self` when they are not comparable).
    pub fn min(self, other: Serial) -> Serial {
        if other.lt(self) { other } else { self }
    }
}

impl fmt::Display for Serial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// `a < b` in serial number arithmetic.
pub fn lt(a: u32, b: u32) -> bool {
    a != b && b.wrapping_sub(a) < (1 << 31)
}

/// `a <= b` in serial number arithmetic.
pub fn le(a: u32, b: u32) -> bool {
    a == b || lt(a, b)
}

/// `a > b` in serial number arithmetic.
pub fn gt(a: u32, b: u32) -> bool {
    lt(b, a)
}

/// `a >= b` in serial number arithmetic.
pub fn ge(a: u32, b: u32) -> bool {
    le(b, a)
}

/// The point of the 64-bit line whose low 32 bits are `v` nearest to
/// `reference`: `reference` moved by the signed distance from its low
/// 32 bits to `v` (ties, 2^31 either way, go down), or one turn of 2^32
/// higher when that would be below zero (the line starts at zero).
pub fn unwrap_near(v: u32, reference: u64) -> u64 {
    let d = i64::from(Serial(v).diff(Serial(reference as u32)));
    match reference.checked_add_signed(d) {
        Some(n) => n,
        None => reference.wrapping_add_signed(d).wrapping_add(1 << 32),
    }
}

/// Maps 32-bit serial numbers near a moving reference onto a monotonic
/// u64 line. The reference is the last value passed to
/// [`Unwrapper::advance`]; values within 2^31 either side of it unwrap
/// correctly.
#[derive(Debug, Clone, Copy)]
pub struct Unwrapper {
    base32: u32,
    base64: u64,
}

impl Unwrapper {
    /// Starts at `initial`, placed at 2^32 on the u64 line so that values
    /// just below it still unwrap to positive numbers.
    pub fn new(initial: u32) -> Self {
        Unwrapper {
            base32: initial,
            base64: (1u64 << 32) + u64::from(initial),
        }
    }

    pub fn unwrap(&self, v: u32) -> u64 {
        let d = i64::from(Serial(v).diff(Serial(self.base32)));
        (self.base64 as i64 + d) as u64
    }

    /// Moves the reference to `v` (normally a cumulative ack point).
    pub fn advance(&mut self, v: u32) {
        self.base64 = self.unwrap(v);
        self.base32 = v;
    }

    /// The 32-bit value of an unwrapped number.
    pub fn wrap(v: u64) -> u32 {
        v as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn comparisons_wrap_and_numbers_half_a_turn_apart_are_not_comparable() {
        assert!(lt(1, 2));
        assert!(lt(u32::MAX, 0));
        assert!(gt(0, u32::MAX));
        assert!(le(5, 5) && ge(5, 5));
        assert!(!lt(5, 5));
        assert!(lt(0x7fff_fff0, 0x8000_0010));
        assert!(!lt(0, 1 << 31) && !gt(0, 1 << 31));
        let a = Serial(u32::MAX - 10);
        let b = a.wrapping_add(20);
        assert_eq!(b, Serial(9));
        assert!(a.lt(b) && b.gt(a) && a.le(a) && a.ge(a));
        assert_eq!(b.since(a), 20);
        assert_eq!(a.diff(b), -20);
        assert_eq!((a.max(b), a.min(b)), (b, a));
    }

    #[test]
    fn unwrapping_crosses_zero() {
        let mut u = Unwrapper::new(u32::MAX - 1);
        let a = u.unwrap(u32::MAX - 1);
        let b = u.unwrap(u32::MAX);
        let c = u.unwrap(0);
        assert!(a < b && b < c);
        u.advance(0);
        assert_eq!(u.unwrap(1), c + 1);
        assert_eq!(Unwrapper::wrap(c), 0);
        assert_eq!(unwrap_near(5, (1 << 32) + 0xffff_fff0), (2 << 32) + 5);
        assert_eq!(unwrap_near(u32::MAX, 3), u64::from(u32::MAX));
        assert_eq!(unwrap_near(7, 7), 7);
    }

    /// The nearest non-negative point by brute force over three turns.
    fn nearest(v: u32, reference: u64) -> u64 {
        let turn = reference >> 32;
        [turn.wrapping_sub(1), turn, turn + 1]
            .into_iter()
            .filter(|&t| t <= turn + 1 && (t << 32) >> 32 == t)
            .map(|t| (t << 32) | u64::from(v))
            .min_by_key(|&c| c.abs_diff(reference))
            .unwrap_or(0)
    }

    proptest! {
        #[test]
        fn unwrap_near_is_the_nearest_point(v in any::<u32>(), reference in 0u64..(1 << 40)) {
            let n = unwrap_near(v, reference);
            prop_assert_eq!(n as u32, v);
            prop_assert_eq!(n.abs_diff(reference), nearest(v, reference).abs_diff(reference));
        }
    }
}
