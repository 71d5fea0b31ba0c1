//! The receive side: in-order bytes waiting for the application and
//! out-of-order ranges waiting for the gap before them (RFC 9293 section
//! 3.10.7.4), plus the SACK blocks that describe those ranges (RFC 2018
//! section 4). Positions are 64-bit stream offsets so that nothing here
//! depends on sequence-number wrap-around.

use std::collections::{BTreeMap, VecDeque};

#[derive(Debug, Clone)]
struct Range {
    data: Vec<u8>,
    /// When this range last received data (for SACK block order).
    stamp: u64,
}

/// What an arriving segment did to the buffer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Arrival {
    /// Bytes that became readable in order.
    pub delivered: usize,
    /// The segment (or part of it) lies beyond a gap.
    pub out_of_order: bool,
    /// The segment completed a gap: out-of-order data became readable.
    pub filled_gap: bool,
    /// Nothing of it was new.
    pub duplicate: bool,
    /// It was dropped for lack of room.
    pub dropped: bool,
}

#[derive(Debug, Clone)]
pub struct Reassembly {
    readable: VecDeque<u8>,
    capacity: usize,
    next: u64,
    ooo: BTreeMap<u64, Range>,
    max_ranges: usize,
    clock: u64,
}

impl Reassembly {
    pub fn new(capacity: usize, max_ranges: usize) -> Self {
        Reassembly {
            readable: VecDeque::new(),
            capacity,
            next: 0,
            ooo: BTreeMap::new(),
            max_ranges,
            clock: 0,
        }
    }

    /// Offset of the next byte expected in order (RCV.NXT).
    pub fn next(&self) -> u64 {
        self.next
    }

    /// Advances the expected offset past a control flag (SYN or FIN) that
    /// occupies sequence space but carries no byte.
    pub fn skip(&mut self, n: u64) {
        self.next += n;
    }

    /// Receive window: room not taken by unread in-order bytes (the
    /// out-of-order bytes lie inside this window, so the right edge never
    /// moves left).
    pub fn window(&self) -> usize {
        self.capacity.saturating_sub(self.readable.len())
    }

    pub fn readable(&self) -> usize {
        self.readable.len()
    }

    pub fn has_out_of_order(&self) -> bool {
        !self.ooo.is_empty()
    }

    /// Offset after the highest byte held out of order.
    pub fn highest_out_of_order(&self) -> Option<u64> {
        self.ooo
            .iter()
            .next_back()
            .map(|(s, r)| s + r.data.len() as u64)
    }

    /// Stores the bytes of a segment starting at stream offset `at`.
    pub fn insert(&mut self, at: u64, bytes: &[u8]) -> Arrival {
        let mut a = Arrival::default();
        let right = self.next + self.window() as u64;
        let mut start = at;
        let mut data = bytes;
        if start < self.next {
            let cut = ((self.next - start) as usize).min(data.len());
            data = &data[cut..];
            start = self.next;
        }
        let end = (start + data.len() as u64).min(right);
        if end <= start {
            a.duplicate = !bytes.is_empty() && at + (bytes.len() as u64) <= self.next;
            a.dropped = !a.duplicate && !bytes.is_empty();
            return a;
        }
        let data = &data[..(end - start) as usize];
        self.clock += 1;
        if start == self.next {
            self.readable.extend(data);
            self.next = end;
            a.delivered = data.len();
            // Pull whatever out-of-order data is now contiguous.
            while let Some((&s, _)) = self.ooo.first_key_value() {
                if s > self.next {
                    break;
                }
                let Some((s, r)) = self.ooo.pop_first() else {
                    break;
                };
                let r_end = s + r.data.len() as u64;
                if r_end > self.next {
                    let skip = (self.next - s) as usize;
                    self.readable.extend(&r.data[skip..]);
                    a.delivered += r.data.len() - skip;
                    self.next = r_end;
                }
                a.filled_gap = true;
            }
            return a;
        }
        a.out_of_order = true;
        // Merge with every range that overlaps or touches [start, end).
        let touching: Vec<u64> = self
            .ooo
            .range(..=end)
            .filter(|(s, r)| *s + r.data.len() as u64 >= start)
            .map(|(s, _)| *s)
            .collect();
        if touching.is_empty() && self.ooo.len() >= self.max_ranges {
            a.out_of_order = false;
            a.dropped = true;
            return a;
        }
        let mut new_start = start;
        let mut new_end = end;
        let mut covered = true;
        for s in &touching {
            if let Some(r) = self.ooo.get(s) {
                let r_end = *s + r.data.len() as u64;
                if !(*s <= start && r_end >= end) {
                    covered = false;
                }
                new_start = new_start.min(*s);
                new_end = new_end.max(r_end);
            }
        }
        a.duplicate = covered && !touching.is_empty();
        let mut merged = vec![0u8; (new_end - new_start) as usize];
        for s in &touching {
            if let Some(r) = self.ooo.remove(s) {
                let off = (*s - new_start) as usize;
                merged[off..off + r.data.len()].copy_from_slice(&r.data);
            }
        }
        let off = (start - new_start) as usize;
        merged[off..off + data.len()].copy_from_slice(data);
        self.ooo.insert(
            new_start,
            Range {
                data: merged,
                stamp: self.clock,
            },
        );
        a
    }

    /// Moves up to `buf.len()` in-order bytes to the application.
    pub fn read(&mut self, buf: &mut [u8]) -> usize {
        let n = buf.len().min(self.readable.len());
        // Copy the ring buffer's two halves as slices (a byte-by-byte
        // drain dominated the simulator's profile).
        let (a, b) = self.readable.as_slices();
        let na = n.min(a.len());
        buf[..na].copy_from_slice(&a[..na]);
        buf[na..n].copy_from_slice(&b[..n - na]);
        self.readable.drain(..n);
        n
    }

    /// The out-of-order ranges as `[start, end)` offsets, the most recently
    /// changed first (RFC 2018 section 4: the first block reports the most
    /// recently received segment), at most `n`.
    pub fn sack_ranges(&self, n: usize) -> Vec<(u64, u64)> {
        let mut v: Vec<(u64, u64, u64)> = self
            .ooo
            .iter()
            .map(|(s, r)| (r.stamp, *s, *s + r.data.len() as u64))
            .collect();
        v.sort_by_key(|r| std::cmp::Reverse(r.0));
        v.into_iter().take(n).map(|(_, s, e)| (s, e)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_across_the_ring_buffer_wrap() {
        let mut r = Reassembly::new(16, 4);
        let data: Vec<u8> = (0..40u8).collect();
        r.insert(0, &data[..10]);
        let mut buf = [0u8; 8];
        assert_eq!(r.read(&mut buf), 8);
        assert_eq!(buf, data[..8]);
        // The next bytes wrap around the ring's end.
        r.insert(10, &data[10..24]);
        let mut small = [0u8; 5];
        assert_eq!(r.read(&mut small), 5);
        assert_eq!(small, data[8..13]);
        let mut rest = [0u8; 32];
        assert_eq!(r.read(&mut rest), 11);
        assert_eq!(&rest[..11], &data[13..24]);
        assert_eq!(r.read(&mut rest), 0);
    }

    #[test]
    fn in_order_and_gap_filling() {
        let mut r = Reassembly::new(100, 8);
        assert_eq!(r.insert(0, b"abc").delivered, 3);
        let a = r.insert(6, b"ghi");
        assert!(a.out_of_order && a.delivered == 0);
        let a = r.insert(10, b"k");
        assert!(a.out_of_order);
        assert_eq!(r.sack_ranges(4), vec![(10, 11), (6, 9)]);
        let a = r.insert(3, b"def");
        assert_eq!(a.delivered, 6);
        assert!(a.filled_gap);
        assert_eq!(r.next(), 9);
        assert_eq!(r.sack_ranges(4), vec![(10, 11)]);
        let mut buf = [0u8; 20];
        assert_eq!(r.read(&mut buf), 9);
        assert_eq!(&buf[..9], b"abcdefghi");
        assert!(r.insert(0, b"abc").duplicate);
    }

    #[test]
    fn overlapping_out_of_order_ranges_merge() {
        let mut r = Reassembly::new(100, 8);
        r.insert(10, b"0123");
        r.insert(20, b"ab");
        r.insert(12, b"23456789");
        assert_eq!(r.sack_ranges(4), vec![(10, 20 + 2)]);
        assert!(r.insert(14, b"45").duplicate);
        let a = r.insert(0, b"xxxxxxxxxx");
        assert_eq!(a.delivered, 22);
        let mut buf = [0u8; 30];
        r.read(&mut buf);
        assert_eq!(&buf[10..22], b"0123456789ab");
    }

    #[test]
    fn window_and_range_limits_are_enforced() {
        let mut r = Reassembly::new(8, 1);
        assert_eq!(r.insert(0, b"0123456789").delivered, 8);
        assert_eq!(r.window(), 0);
        assert!(r.insert(8, b"x").dropped);
        let mut buf = [0u8; 4];
        r.read(&mut buf);
        assert_eq!(r.window(), 4);
        assert!(r.insert(10, b"a").out_of_order);
        // A second separate range exceeds max_ranges = 1.
        assert!(r.insert(12, b"b").dropped);
        // Beyond the right edge (8 + 4 = 12) is cut.
        assert!(r.insert(11, b"bcdef").out_of_order);
        assert_eq!(r.sack_ranges(4), vec![(10, 12)]);
    }
}
