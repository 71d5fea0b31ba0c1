//! The send buffer: bytes the application wrote that are not yet
//! acknowledged, sent or not (RFC 9293 section 3.3.1, SND.UNA onwards).
//! Bounded by the configured size.
//!
//! The buffer knows which of its bytes are zeros written as such
//! ([`SendBuffer::write_zeros`], a simulated application's bulk data):
//! every byte after the first `dirty` ones. Reading them needs no copy and
//! their checksum is that of the header alone ([`Payload::Zeros`]).

use std::collections::VecDeque;

use crate::seq::SeqNum;

#[derive(Debug, Clone)]
pub struct SendBuffer {
    data: VecDeque<u8>,
    capacity: usize,
    /// Sequence number of `data[0]`.
    head: SeqNum,
    /// Bytes from the head that may be other than zero; all after them
    /// were written by [`Self::write_zeros`].
    dirty: usize,
}

/// Bytes read from the buffer for a segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Payload {
    /// This many zero bytes.
    Zeros(usize),
    /// These bytes.
    Bytes(Vec<u8>),
}

impl Payload {
    pub fn len(&self) -> usize {
        match self {
            Payload::Zeros(n) => *n,
            Payload::Bytes(b) => b.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl SendBuffer {
    pub fn new(capacity: usize, head: SeqNum) -> Self {
        SendBuffer {
            data: VecDeque::new(),
            capacity,
            head,
            dirty: 0,
        }
    }

    /// Sets the sequence number of the first byte (once the ISN is known).
    pub fn set_head(&mut self, head: SeqNum) {
        self.head = head;
    }

    pub fn head(&self) -> SeqNum {
        self.head
    }

    /// Sequence number after the last buffered byte.
    pub fn end(&self) -> SeqNum {
        self.head.wrapping_add(self.len_u32())
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    fn len_u32(&self) -> u32 {
        u32::try_from(self.data.len()).unwrap_or(u32::MAX)
    }

    pub fn free(&self) -> usize {
        self.capacity.saturating_sub(self.data.len())
    }

    /// Queues as much of `bytes` as fits; returns how much.
    pub fn write(&mut self, bytes: &[u8]) -> usize {
        let n = bytes.len().min(self.free());
        self.data.extend(&bytes[..n]);
        if n > 0 {
            self.dirty = self.data.len();
        }
        n
    }

    /// Queues as many of `n` zero bytes as fit; returns how many.
    pub fn write_zeros(&mut self, n: usize) -> usize {
        let n = n.min(self.free());
        self.data.resize(self.data.len() + n, 0);
        n
    }

    /// Bytes buffered from `seq` on (0 when `seq` is outside).
    pub fn available_from(&self, seq: SeqNum) -> u32 {
        let end = self.end();
        if seq.lt(self.head) || seq.ge(end) {
            0
        } else {
            end.since(seq)
        }
    }

    /// Copies up to `len` bytes starting at `seq`.
    pub fn read_at(&self, seq: SeqNum, len: u32) -> Vec<u8> {
        match self.span(seq, len) {
            Some((start, end)) => self.data.range(start..end).copied().collect(),
            None => Vec::new(),
        }
    }

    /// The bytes [`Self::read_at`] returns, as [`Payload::Zeros`] when
    /// they are all zeros written as such (no copy).
    pub fn payload_at(&self, seq: SeqNum, len: u32) -> Payload {
        match self.span(seq, len) {
            Some((start, end)) if start >= self.dirty => Payload::Zeros(end - start),
            Some((start, end)) => Payload::Bytes(self.data.range(start..end).copied().collect()),
            None => Payload::Zeros(0),
        }
    }

    /// Positions in `data` of up to `len` bytes from `seq`; `None` when
    /// there are none.
    fn span(&self, seq: SeqNum, len: u32) -> Option<(usize, usize)> {
        if seq.lt(self.head) {
            return None;
        }
        let start = seq.since(self.head) as usize;
        let end = start.saturating_add(len as usize).min(self.data.len());
        (start < end).then_some((start, end))
    }

    /// Drops the bytes before `ack` (they are acknowledged); returns how
    /// many were dropped.
    pub fn acknowledge(&mut self, ack: SeqNum) -> usize {
        if ack.le(self.head) {
            return 0;
        }
        let n = (ack.since(self.head) as usize).min(self.data.len());
        self.data.drain(..n);
        self.dirty = self.dirty.saturating_sub(n);
        self.head = self.head.wrapping_add(n as u32);
        n
    }

    /// Returns every buffered byte (from the head to the end) and removes
    /// from the buffer those from `seq` on, keeping the ones before it.
    pub fn take_from(&mut self, seq: SeqNum) -> Vec<u8> {
        let keep = if seq.le(self.head) {
            0
        } else {
            (seq.since(self.head) as usize).min(self.data.len())
        };
        let out: Vec<u8> = self.data.iter().copied().collect();
        self.data.truncate(keep);
        self.dirty = self.dirty.min(keep);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_write_read_and_ack() {
        let mut b = SendBuffer::new(10, SeqNum(u32::MAX - 2));
        assert_eq!(b.write(b"hello world"), 10);
        assert_eq!(b.free(), 0);
        assert_eq!(b.read_at(SeqNum(u32::MAX), 3), b"llo");
        assert_eq!(b.available_from(SeqNum(0)), 7);
        assert_eq!(b.acknowledge(SeqNum(2)), 5);
        assert_eq!(b.head(), SeqNum(2));
        assert_eq!(b.read_at(SeqNum(2), 100), b" worl");
        assert_eq!(b.acknowledge(SeqNum(1)), 0);
        assert_eq!(b.end(), SeqNum(7));
        assert_eq!(b.take_from(SeqNum(4)), b" worl");
        assert_eq!(b.len(), 2);
    }

    /// `payload_at` against `read_at` (the reference) over writes of
    /// zeros and of other bytes, acknowledgements and truncations.
    #[test]
    fn payload_at_matches_read_at() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut next = move |m: u64| rng.gen_range(0..m);
        for round in 0..200 {
            let head = SeqNum((u32::MAX - 50).wrapping_add(round));
            let mut b = SendBuffer::new(300, head);
            let mut zero_runs = 0;
            for _ in 0..60 {
                match next(5) {
                    0 => {
                        zero_runs += 1;
                        b.write_zeros(next(80) as usize);
                    }
                    1 => {
                        let v: Vec<u8> = (0..next(40)).map(|i| (i % 3) as u8).collect();
                        b.write(&v);
                    }
                    2 => {
                        let ack = b.head().wrapping_add(next(60) as u32);
                        b.acknowledge(ack);
                    }
                    3 if next(4) == 0 => {
                        let at = b.head().wrapping_add(next(200) as u32);
                        b.take_from(at);
                    }
                    _ => {}
                }
                for _ in 0..5 {
                    let seq = SeqNum(b.head().0.wrapping_add(next(320) as u32).wrapping_sub(10));
                    let len = next(120) as u32;
                    let want = b.read_at(seq, len);
                    match b.payload_at(seq, len) {
                        Payload::Zeros(n) => {
                            assert_eq!(want, vec![0; n], "round {round}");
                        }
                        Payload::Bytes(got) => assert_eq!(got, want, "round {round}"),
                    }
                }
            }
            assert!(zero_runs > 0);
        }
    }
}
