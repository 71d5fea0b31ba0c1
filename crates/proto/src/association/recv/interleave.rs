//! The receiver's side of I-DATA (RFC 8260 section 2.1): fragments are
//! put together by stream, U bit and MID in FSN order, whatever TSNs they
//! came with (the sender may interleave the fragments of several
//! messages); ordered messages are delivered in MID order per stream. And
//! I-FORWARD-TSN (section 2.3): the messages it names are dropped or
//! skipped.

use std::collections::{BTreeMap, HashMap};

use bytes::{Bytes, BytesMut};

use super::{DataOutcome, Message, Receiver};
use crate::wire::{IDataChunk, IForwardEntry};

/// A message of which some fragments arrived.
#[derive(Debug, Clone, Default)]
struct Partial {
    /// Fragments by FSN.
    frags: BTreeMap<u32, Bytes>,
    /// From the first fragment (FSN 0, B bit).
    ppid: Option<u32>,
    /// The FSN of the last fragment (E bit), once it arrived.
    last: Option<u32>,
    bytes: usize,
}

/// The state of I-DATA reassembly and ordering.
#[derive(Debug, Clone, Default)]
pub(super) struct IReassembly {
    /// Partial messages by (stream, unordered, MID).
    partial: HashMap<(u16, bool, u32), Partial>,
    /// The next ordered MID expected per stream (absent: 0).
    pub(super) next_mid: HashMap<u16, u32>,
    /// Complete ordered messages waiting for their turn, by (stream, MID).
    pub(super) waiting: HashMap<(u16, u32), Message>,
    /// Fragments held in `partial` (for the memory bound).
    pub fragments: usize,
}

impl IReassembly {
    /// Items held: fragments and waiting messages.
    pub fn items(&self) -> usize {
        self.fragments + self.waiting.len()
    }

    /// Drops every partly received message (an SSN/TSN reset, RFC 6525
    /// section 5.2.4); returns the bytes they held.
    pub(super) fn drop_partial(&mut self) -> usize {
        self.fragments = 0;
        self.partial.drain().map(|(_, p)| p.bytes).sum()
    }
}

/// `a` is at or before `b` in serial arithmetic on 32 bits.
fn serial_le(a: u32, b: u32) -> bool {
    b.wrapping_sub(a) < 1 << 31
}

impl Receiver {
    /// Processes one I-DATA chunk (already checked for non-empty payload).
    pub fn on_idata(&mut self, c: IDataChunk) -> DataOutcome {
        let len = c.payload.len();
        if let Err(outcome) = self.admit(c.tsn, c.stream_id, len) {
            return outcome;
        }
        if c.begin && c.end {
            let msg = Message {
                stream: c.stream_id,
                ppid: c.ppid,
                unordered: c.unordered,
                data: c.payload,
            };
            self.deliver_mid(msg, c.mid);
            return DataOutcome::Accepted;
        }
        let key = (c.stream_id, c.unordered, c.mid);
        let r = &mut self.idata;
        let p = r.partial.entry(key).or_default();
        let fsn = if c.begin { 0 } else { c.fsn };
        if c.begin {
            p.ppid = Some(c.ppid);
        }
        if c.end {
            p.last = Some(fsn);
        }
        p.bytes += len;
        match p.frags.insert(fsn, c.payload) {
            // The same fragment again under another TSN (a peer that
            // breaks the rules): the newer one replaces it.
            Some(old) => {
                p.bytes -= old.len();
                self.buffered -= old.len();
            }
            None => r.fragments += 1,
        }
        if p.bytes > self.max_message {
            return DataOutcome::MessageTooLarge;
        }
        let complete = match (p.ppid, p.last) {
            (Some(_), Some(last)) => {
                p.frags.len() as u64 == u64::from(last) + 1
                    && p.frags.keys().next_back() == Some(&last)
            }
            _ => false,
        };
        if !complete {
            return DataOutcome::Accepted;
        }
        let Some(p) = r.partial.remove(&key) else {
            return DataOutcome::Accepted;
        };
        r.fragments -= p.frags.len();
        self.reassembly_visits += p.frags.len() as u64;
        let mut data = BytesMut::with_capacity(p.bytes);
        for f in p.frags.values() {
            data.extend_from_slice(f);
        }
        let msg = Message {
            stream: c.stream_id,
            ppid: p.ppid.unwrap_or(0),
            unordered: c.unordered,
            data: data.freeze(),
        };
        self.deliver_mid(msg, c.mid);
        DataOutcome::Accepted
    }

    /// Hands a complete message to the ready queue, in MID order for
    /// ordered messages.
    fn deliver_mid(&mut self, msg: Message, mid: u32) {
        if msg.unordered {
            self.ready.push_back(msg);
            return;
        }
        let stream = msg.stream;
        let next = self.idata.next_mid.get(&stream).copied().unwrap_or(0);
        if mid != next {
            if let Some(old) = self.idata.waiting.insert((stream, mid), msg) {
                self.buffered -= old.data.len();
            }
            return;
        }
        self.ready.push_back(msg);
        self.release_from(stream, next.wrapping_add(1));
    }

    /// Stream `stream` goes on at MID `next`: the waiting messages that
    /// follow on are delivered.
    fn release_from(&mut self, stream: u16, mut next: u32) {
        while let Some(m) = self.idata.waiting.remove(&(stream, next)) {
            self.ready.push_back(m);
            next = next.wrapping_add(1);
        }
        self.idata.next_mid.insert(stream, next);
    }

    /// Processes an I-FORWARD-TSN (RFC 8260 section 2.3): the TSNs up to
    /// `new_cum` count as received; the named messages, and those before
    /// them on their stream and ordering, are dropped if partly received,
    /// and the ordered streams skip them. Returns false when stale.
    pub fn on_i_forward_tsn(&mut self, new_cum: u32, entries: &[IForwardEntry]) -> bool {
        if !self.on_forward_tsn(new_cum, &[]) {
            return false;
        }
        for e in entries {
            if usize::from(e.stream) >= self.streams.len() {
                continue;
            }
            let gone: Vec<(u16, bool, u32)> = (self.idata.partial.keys())
                .filter(|k| k.0 == e.stream && k.1 == e.unordered && serial_le(k.2, e.mid))
                .copied()
                .collect();
            for k in gone {
                if let Some(p) = self.idata.partial.remove(&k) {
                    self.idata.fragments -= p.frags.len();
                    self.buffered -= p.bytes;
                }
            }
            if e.unordered {
                continue;
            }
            let next = self.idata.next_mid.get(&e.stream).copied().unwrap_or(0);
            if !serial_le(next, e.mid) {
                continue;
            }
            // Complete messages up to the skipped MID go first, in order.
            let mut due: Vec<u32> = (self.idata.waiting.keys())
                .filter(|k| k.0 == e.stream && serial_le(k.1, e.mid) && serial_le(next, k.1))
                .map(|k| k.1)
                .collect();
            due.sort_unstable_by_key(|m| m.wrapping_sub(next));
            for m in due {
                if let Some(msg) = self.idata.waiting.remove(&(e.stream, m)) {
                    self.ready.push_back(msg);
                }
            }
            self.release_from(e.stream, e.mid.wrapping_add(1));
        }
        true
    }
}
