//! TCP sequence numbers seen from outside the connection: 32-bit values
//! unwrapped into 64-bit byte offsets from the start of the stream, and the
//! set of byte ranges a receiver already holds (to tell new data from
//! duplicates in the flow records of docs/MODELS.md section 5).

/// Unwraps `seq` (32 bits) into the 64-bit offset `seq - base` closest to
/// `reference` (RFC 9293 section 3.4: sequence numbers are compared modulo
/// 2^32; a transfer longer than 4 GiB keeps counting; offsets start at 0).
pub fn unwrap_offset(seq: u32, base: u32, reference: u64) -> u64 {
    msctp_serial::unwrap_near(seq.wrapping_sub(base), reference)
}

/// Byte ranges `[start, end)` received so far: a contiguous prefix and a
/// bounded list of ranges above it.
#[derive(Debug, Clone)]
pub struct ReceivedRanges {
    /// Every byte below this was received.
    cumulative: u64,
    /// Disjoint ranges above `cumulative`, sorted, not touching.
    above: Vec<(u64, u64)>,
    /// Most ranges kept in `above`; beyond it the highest is forgotten
    /// (a later copy of its bytes then counts as new).
    max_ranges: usize,
}

impl ReceivedRanges {
    pub fn new(max_ranges: usize) -> Self {
        ReceivedRanges {
            cumulative: 0,
            above: Vec::new(),
            max_ranges: max_ranges.max(1),
        }
    }

    /// Every byte below this offset was received.
    pub fn cumulative(&self) -> u64 {
        self.cumulative
    }

    /// Records `[start, end)`; true if any of its bytes is new.
    pub fn insert(&mut self, start: u64, end: u64) -> bool {
        if end <= start {
            return false;
        }
        if end <= self.cumulative {
            return false;
        }
        let start = start.max(self.cumulative);
        let new = !self.above.iter().any(|&(s, e)| s <= start && end <= e);
        // Merge [start, end) with every range it overlaps or touches.
        let mut s = start;
        let mut e = end;
        let mut kept = Vec::with_capacity(self.above.len() + 1);
        for &(rs, re) in &self.above {
            if re < s || rs > e {
                kept.push((rs, re));
            } else {
                s = s.min(rs);
                e = e.max(re);
            }
        }
        let pos = kept.partition_point(|&(rs, _)| rs < s);
        kept.insert(pos, (s, e));
        if let Some(&(fs, fe)) = kept.first()
            && fs <= self.cumulative
        {
            self.cumulative = self.cumulative.max(fe);
            kept.remove(0);
        }
        if kept.len() > self.max_ranges {
            kept.truncate(self.max_ranges);
        }
        self.above = kept;
        new
    }

    /// Ranges held above the cumulative point.
    pub fn ranges_above(&self) -> usize {
        self.above.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwrap_follows_the_reference_across_wraps() {
        assert_eq!(unwrap_offset(1001, 1000, 0), 1);
        assert_eq!(unwrap_offset(5, u32::MAX - 4, 0), 10);
        // Just past 4 GiB.
        let r = (1u64 << 32) - 100;
        assert_eq!(
            unwrap_offset(1000u32.wrapping_add(50), 1000, r),
            (1 << 32) + 50
        );
        assert_eq!(
            unwrap_offset(1000u32.wrapping_sub(200), 1000, r),
            (1 << 32) - 200
        );
        assert_eq!(
            unwrap_offset(1000u32.wrapping_add(200), 1000, r + 300),
            (1 << 32) + 200
        );
        // An old segment slightly below the reference.
        assert_eq!(
            unwrap_offset(1000 + 10, 1000, (1 << 32) + 20),
            (1 << 32) + 10
        );
    }

    #[test]
    fn ranges_tell_new_from_duplicate() {
        let mut r = ReceivedRanges::new(8);
        assert!(r.insert(0, 100));
        assert_eq!(r.cumulative(), 100);
        assert!(!r.insert(0, 100), "a full duplicate");
        assert!(r.insert(200, 300), "out of order");
        assert_eq!(r.cumulative(), 100);
        assert!(!r.insert(250, 300));
        assert!(r.insert(50, 150), "partly new");
        assert!(r.insert(150, 200), "fills the hole");
        assert_eq!(r.cumulative(), 300);
        assert_eq!(r.ranges_above(), 0);
        assert!(!r.insert(10, 10));
    }

    #[test]
    fn ranges_are_bounded() {
        let mut r = ReceivedRanges::new(2);
        for i in 1..10u64 {
            r.insert(i * 100, i * 100 + 10);
        }
        assert_eq!(r.ranges_above(), 2);
        // The forgotten high range counts as new again.
        assert!(r.insert(900, 910));
    }
}
