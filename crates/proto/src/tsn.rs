//! Serial number arithmetic for 32-bit TSNs and serial numbers
//! (RFC 9260 section 1.6, after RFC 1982), and unwrapping to 64 bits so the
//! engine can key ordered maps without wrap-around surprises.

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

/// Maps 32-bit serial numbers near a moving reference onto a monotonic u64
/// line. The reference is the last value passed to [`Unwrapper::advance`];
/// values within 2^31 either side of it unwrap correctly.
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
            base64: (1u64 << 32) + initial as u64,
        }
    }

    pub fn unwrap(&self, v: u32) -> u64 {
        let d = v.wrapping_sub(self.base32) as i32 as i64;
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

    #[test]
    fn serial_comparisons_wrap() {
        assert!(lt(1, 2));
        assert!(lt(u32::MAX, 0));
        assert!(gt(0, u32::MAX));
        assert!(le(5, 5) && ge(5, 5));
        assert!(!lt(5, 5));
        assert!(lt(0x7fff_fff0, 0x8000_0010));
    }

    #[test]
    fn unwrapping_crosses_zero() {
        let mut u = Unwrapper::new(u32::MAX - 1);
        let a = u.unwrap(u32::MAX - 1);
        let b = u.unwrap(u32::MAX);
        let c = u.unwrap(0);
        let d = u.unwrap(u32::MAX - 5);
        assert!(d < a && a < b && b < c);
        assert_eq!(c - a, 2);
        u.advance(3);
        assert_eq!(u.unwrap(3), a + 5);
        assert_eq!(u.unwrap(u32::MAX), b);
        assert_eq!(Unwrapper::wrap(u.unwrap(7)), 7);
    }
}
