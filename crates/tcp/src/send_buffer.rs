//! The send buffer: bytes the application wrote that are not yet
//! acknowledged, sent or not (RFC 9293 section 3.3.1, SND.UNA onwards).
//! Bounded by the configured size.

use std::collections::VecDeque;

use crate::seq::SeqNum;

#[derive(Debug, Clone)]
pub struct SendBuffer {
    data: VecDeque<u8>,
    capacity: usize,
    /// Sequence number of `data[0]`.
    head: SeqNum,
}

impl SendBuffer {
    pub fn new(capacity: usize, head: SeqNum) -> Self {
        SendBuffer {
            data: VecDeque::new(),
            capacity,
            head,
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
        if seq.lt(self.head) {
            return Vec::new();
        }
        let start = seq.since(self.head) as usize;
        let end = start.saturating_add(len as usize).min(self.data.len());
        if start >= end {
            return Vec::new();
        }
        self.data.range(start..end).copied().collect()
    }

    /// Drops the bytes before `ack` (they are acknowledged); returns how
    /// many were dropped.
    pub fn acknowledge(&mut self, ack: SeqNum) -> usize {
        if ack.le(self.head) {
            return 0;
        }
        let n = (ack.since(self.head) as usize).min(self.data.len());
        self.data.drain(..n);
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
}
