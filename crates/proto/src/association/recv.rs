//! The receiving half of an association: which TSNs arrived (for SACKs,
//! RFC 9260 section 6.2), duplicate detection, the receiver window, and
//! reassembly of fragmented messages with ordered and unordered delivery
//! per stream (sections 6.5, 6.6 and 6.9).

use std::collections::{BTreeMap, HashMap, VecDeque};

use bytes::{Bytes, BytesMut};

use crate::tsn::Unwrapper;
use crate::wire::{DataChunk, GapBlock, SackChunk};

/// A user message reassembled and ready for the application.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub stream: u16,
    pub ppid: u32,
    pub unordered: bool,
    pub data: Bytes,
}

/// What happened to one received DATA chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataOutcome {
    /// New data, accepted.
    Accepted,
    /// Already received (reported in the next SACK).
    Duplicate,
    /// Not accepted (no buffer space or too many gaps); not acknowledged,
    /// the sender will retransmit.
    Dropped,
    /// Stream identifier beyond the negotiated count: acknowledged and
    /// discarded; the caller reports Invalid Stream Identifier.
    InvalidStream,
    /// A message grew beyond the configured maximum size; the caller
    /// aborts (Out of Resource) rather than lose data silently.
    MessageTooLarge,
}

/// A run of fragments (see [`Receiver::runs`]): its last TSN and the
/// payload bytes it holds.
#[derive(Debug, Clone, Copy)]
struct Run {
    last: u64,
    bytes: usize,
}

#[derive(Debug, Clone, Default)]
struct InStream {
    next_ssn: u16,
    /// Complete ordered messages waiting for their turn, by SSN.
    waiting: HashMap<u16, Message>,
}

/// Memory a held chunk or message costs beyond its payload (map node,
/// chunk header fields, buffer handle), for the receiver's memory bound.
pub const ITEM_OVERHEAD: usize = 128;
/// Data filling holes is accepted up to this many receive windows of
/// memory in all (see [`Receiver::on_data`]).
pub const HOLE_SLACK: usize = 2;

/// Receiver state.
#[derive(Debug, Clone)]
pub struct Receiver {
    unwrap: Unwrapper,
    /// Unwrapped cumulative TSN (everything up to it has arrived).
    cum: u64,
    /// Received TSN blocks above `cum + 1`, sorted, disjoint, not adjacent.
    ranges: Vec<(u64, u64)>,
    max_ranges: usize,
    dups: Vec<u32>,
    max_dups: usize,
    highest: u64,
    /// Fragments of messages not yet complete, by unwrapped TSN.
    fragments: BTreeMap<u64, DataChunk>,
    /// Every fragment held belongs to exactly one run: a longest chain of
    /// fragments of one message at consecutive TSNs (no E fragment
    /// before its end, no B fragment after its start), by its first TSN.
    runs: BTreeMap<u64, Run>,
    streams: Vec<InStream>,
    ready: VecDeque<Message>,
    /// Bytes held (fragments, waiting and ready messages).
    buffered: usize,
    /// Messages in the streams' `waiting` maps.
    waiting_count: usize,
    window: u32,
    max_message: usize,
    /// I-DATA reassembly (RFC 8260).
    idata: interleave::IReassembly,
    /// Bytes of the partially reassembled message per (stream, unordered)
    /// are checked against `max_message` at completion time; this bound
    /// stops a message from growing without limit before then.
    pub data_chunks_received: u64,
    /// Fragments looked at by reassembly: its cost, bounded by a few per
    /// fragment received (issue 31, finding 4).
    pub reassembly_visits: u64,
    pub duplicates_received: u64,
    /// New DATA chunks whose TSN is below the highest already received:
    /// the receiver's reordering (across CMT paths, or a retransmission
    /// filling a hole).
    pub out_of_order_received: u64,
    pub dropped_for_window: u64,
    /// Packets with DATA since the last SACK.
    pub packets_since_sack: u32,
    /// The a_rwnd value in the last SACK sent.
    pub last_advertised: u32,
}

impl Receiver {
    /// `peer_initial_tsn`: the Initial TSN of the peer's INIT / INIT ACK.
    pub fn new(
        peer_initial_tsn: u32,
        inbound_streams: u16,
        window: u32,
        max_message: usize,
        max_ranges: usize,
        max_dups: usize,
    ) -> Self {
        let cum32 = peer_initial_tsn.wrapping_sub(1);
        let unwrap = Unwrapper::new(cum32);
        let cum = unwrap.unwrap(cum32);
        Receiver {
            unwrap,
            cum,
            ranges: Vec::new(),
            max_ranges: max_ranges.max(1) * 4,
            dups: Vec::new(),
            max_dups,
            highest: cum,
            fragments: BTreeMap::new(),
            runs: BTreeMap::new(),
            streams: vec![InStream::default(); inbound_streams as usize],
            ready: VecDeque::new(),
            buffered: 0,
            waiting_count: 0,
            window,
            max_message,
            idata: interleave::IReassembly::default(),
            data_chunks_received: 0,
            reassembly_visits: 0,
            duplicates_received: 0,
            out_of_order_received: 0,
            dropped_for_window: 0,
            packets_since_sack: 0,
            last_advertised: window,
        }
    }

    pub fn inbound_streams(&self) -> u16 {
        self.streams.len() as u16
    }

    /// The cumulative TSN ack point.
    pub fn cum_tsn(&self) -> u32 {
        Unwrapper::wrap(self.cum)
    }

    /// Are there holes (received TSNs above the cumulative point)?
    pub fn has_gaps(&self) -> bool {
        !self.ranges.is_empty()
    }

    pub fn has_dups(&self) -> bool {
        !self.dups.is_empty()
    }

    /// Highest TSN received.
    pub fn highest_tsn(&self) -> u32 {
        Unwrapper::wrap(self.highest)
    }

    /// Current advertised receiver window.
    pub fn a_rwnd(&self) -> u32 {
        (self.window as usize).saturating_sub(self.buffered) as u32
    }

    pub fn buffered(&self) -> usize {
        self.buffered
    }

    /// Whether DATA with TSN `tsn` has been received (it is at or below
    /// the cumulative point or in a gap-ack block). Serial number
    /// arithmetic: a TSN 2^31 or more behind the cumulative point is old,
    /// hence received.
    pub fn has_received(&self, tsn: u32) -> bool {
        self.is_received(self.unwrap.unwrap(tsn))
    }

    fn is_received(&self, t: u64) -> bool {
        t <= self.cum || self.ranges.iter().any(|&(s, e)| s <= t && t <= e)
    }

    /// Records TSN `t` (known new). Returns false if it cannot be tracked
    /// (too many gap blocks).
    fn mark(&mut self, t: u64) -> bool {
        if t == self.cum + 1 {
            self.cum = t;
            // Absorb a leading range that is now contiguous.
            if let Some(&(s, e)) = self.ranges.first()
                && s == self.cum + 1
            {
                self.cum = e;
                self.ranges.remove(0);
            }
            self.unwrap.advance(Unwrapper::wrap(self.cum));
            return true;
        }
        let i = self.ranges.partition_point(|&(_, e)| e + 1 < t);
        let joins_prev = i < self.ranges.len() && self.ranges[i].1 + 1 == t;
        let next = if joins_prev { i + 1 } else { i };
        let joins_next = next < self.ranges.len() && self.ranges[next].0 == t + 1;
        match (joins_prev, joins_next) {
            (true, true) => {
                self.ranges[i].1 = self.ranges[next].1;
                self.ranges.remove(next);
            }
            (true, false) => self.ranges[i].1 = t,
            (false, true) => self.ranges[next].0 = t,
            (false, false) => {
                if self.ranges.len() >= self.max_ranges {
                    return false;
                }
                self.ranges.insert(i, (t, t));
            }
        }
        true
    }

    /// Processes one DATA chunk (already checked for non-empty payload).
    pub fn on_data(&mut self, chunk: DataChunk) -> DataOutcome {
        if let Err(outcome) = self.admit(chunk.tsn, chunk.stream_id, chunk.payload.len()) {
            return outcome;
        }
        if chunk.begin && chunk.end {
            let msg = Message {
                stream: chunk.stream_id,
                ppid: chunk.ppid,
                unordered: chunk.unordered,
                data: chunk.payload,
            };
            self.deliver(msg, chunk.ssn);
            return DataOutcome::Accepted;
        }
        let t = self.unwrap.unwrap(chunk.tsn);
        self.fragments.insert(t, chunk);
        self.try_reassemble(t)
    }

    /// Takes a DATA or I-DATA chunk of `len` bytes of user data on
    /// `stream` into the receive buffer (its TSN recorded, its bytes
    /// counted), or says why not: a duplicate, no room, no such stream, a
    /// message too large.
    pub(super) fn admit(&mut self, tsn: u32, stream: u16, len: usize) -> Result<(), DataOutcome> {
        self.accept_tsn(tsn, len)?;
        if usize::from(stream) >= self.streams.len() {
            return Err(DataOutcome::InvalidStream);
        }
        if len > self.max_message {
            return Err(DataOutcome::MessageTooLarge);
        }
        self.buffered += len;
        Ok(())
    }

    /// Records the TSN of a DATA or I-DATA chunk of `len` bytes of user
    /// data, or says why it is not taken (a duplicate, or no room).
    fn accept_tsn(&mut self, tsn: u32, len: usize) -> Result<(), DataOutcome> {
        let t = self.unwrap.unwrap(tsn);
        if self.is_received(t) {
            self.duplicates_received += 1;
            if self.dups.len() < self.max_dups {
                self.dups.push(tsn);
            }
            return Err(DataOutcome::Duplicate);
        }
        // Window check: new data beyond the highest TSN is dropped when the
        // buffer is full; data filling a hole is taken beyond the window (its
        // space was advertised when the later data was accepted), but never
        // beyond HOLE_SLACK windows in all, counting ITEM_OVERHEAD for every
        // chunk and message held: a peer that opens a huge TSN gap and fills
        // it with tiny chunks cannot make the receiver hold more than that
        // (a conforming sender never gets near it, RFC 9260 section 6.2).
        if t > self.highest && self.buffered + len > self.window as usize {
            self.dropped_for_window += 1;
            return Err(DataOutcome::Dropped);
        }
        if self.memory() + len + ITEM_OVERHEAD > HOLE_SLACK * self.window as usize {
            self.dropped_for_window += 1;
            return Err(DataOutcome::Dropped);
        }
        if !self.mark(t) {
            self.dropped_for_window += 1;
            return Err(DataOutcome::Dropped);
        }
        if t < self.highest {
            self.out_of_order_received += 1;
        }
        self.highest = self.highest.max(t);
        self.data_chunks_received += 1;
        Ok(())
    }

    /// Adds fragment `t` to the runs (section 6.9) and delivers the
    /// message it completes, if any. A fragment joins the run that ends
    /// at `t - 1` and the run that starts at `t + 1` when they hold the
    /// same message: a few map operations per fragment whatever the
    /// arrival order, instead of a walk over the message's fragments (a
    /// peer interleaving long runs of middle fragments made that walk
    /// quadratic).
    fn try_reassemble(&mut self, t: u64) -> DataOutcome {
        let Some(c) = self.fragments.get(&t) else {
            return DataOutcome::Accepted;
        };
        let (stream, unordered, ssn) = (c.stream_id, c.unordered, c.ssn);
        let (begin, end) = (c.begin, c.end);
        let same_message = |c: &DataChunk| {
            c.stream_id == stream && c.unordered == unordered && (unordered || c.ssn == ssn)
        };
        let mut run = Run {
            last: t,
            bytes: c.payload.len(),
        };
        let mut first = t;
        self.reassembly_visits += 1;
        // The run ending at t - 1: the run starting last before t.
        if !begin
            && let Some(prev) = t.checked_sub(1)
            && self
                .fragments
                .get(&prev)
                .is_some_and(|p| same_message(p) && !p.end)
            && let Some((&f, r)) = self.runs.range(..t).next_back()
            && r.last == prev
        {
            self.reassembly_visits += 1;
            first = f;
            run.bytes += r.bytes;
            self.runs.remove(&f);
        }
        if !end
            && self
                .fragments
                .get(&(t + 1))
                .is_some_and(|n| same_message(n) && !n.begin)
            && let Some(r) = self.runs.remove(&(t + 1))
        {
            self.reassembly_visits += 1;
            run.last = r.last;
            run.bytes += r.bytes;
        }
        let complete = self.fragments.get(&first).is_some_and(|c| c.begin)
            && self.fragments.get(&run.last).is_some_and(|c| c.end);
        if !complete {
            self.runs.insert(first, run);
            return self.check_partial_size(run.bytes);
        }
        if run.bytes > self.max_message {
            self.runs.insert(first, run);
            return DataOutcome::MessageTooLarge;
        }
        let mut data = BytesMut::with_capacity(run.bytes);
        let mut ppid = 0;
        for k in first..=run.last {
            if let Some(c) = self.fragments.remove(&k) {
                self.reassembly_visits += 1;
                if k == first {
                    ppid = c.ppid;
                }
                data.extend_from_slice(&c.payload);
            }
        }
        self.deliver(
            Message {
                stream,
                ppid,
                unordered,
                data: data.freeze(),
            },
            ssn,
        );
        DataOutcome::Accepted
    }

    fn check_partial_size(&self, size: usize) -> DataOutcome {
        if size > self.max_message {
            DataOutcome::MessageTooLarge
        } else {
            DataOutcome::Accepted
        }
    }

    /// Bytes the receiver holds, with an estimate of the bookkeeping per
    /// chunk and message (what its memory use is bounded by).
    pub fn memory(&self) -> usize {
        let items =
            self.fragments.len() + self.ready.len() + self.waiting_count + self.idata.items();
        self.buffered + items * ITEM_OVERHEAD
    }

    /// Hands a complete message to the ready queue, in SSN order for
    /// ordered messages.
    fn deliver(&mut self, msg: Message, ssn: u16) {
        if msg.unordered {
            self.ready.push_back(msg);
            return;
        }
        let s = &mut self.streams[msg.stream as usize];
        if ssn != s.next_ssn {
            // A second complete message with the same SSN (only a peer
            // that breaks the rules sends one) replaces the first, whose
            // bytes are no longer held.
            match s.waiting.insert(ssn, msg) {
                Some(old) => self.buffered -= old.data.len(),
                None => self.waiting_count += 1,
            }
            return;
        }
        self.ready.push_back(msg);
        s.next_ssn = s.next_ssn.wrapping_add(1);
        if s.waiting.is_empty() {
            return;
        }
        while let Some(m) = s.waiting.remove(&s.next_ssn) {
            self.waiting_count -= 1;
            self.ready.push_back(m);
            s.next_ssn = s.next_ssn.wrapping_add(1);
        }
    }

    /// Next message for the application, freeing its buffer space.
    pub fn read(&mut self) -> Option<Message> {
        let m = self.ready.pop_front()?;
        self.buffered -= m.data.len();
        Some(m)
    }

    /// The messages delivered but not yet read, taken out (a restart
    /// hands them to the new incarnation, [`Self::keep_unread`]).
    pub fn take_unread(&mut self) -> VecDeque<Message> {
        let unread = std::mem::take(&mut self.ready);
        self.buffered -= unread.iter().map(|m| m.data.len()).sum::<usize>();
        unread
    }

    /// Puts `unread` (from [`Self::take_unread`]) before the messages
    /// ready now: they were delivered (and acknowledged) first, and they
    /// occupy the receive buffer until read.
    pub fn keep_unread(&mut self, mut unread: VecDeque<Message>) {
        self.buffered += unread.iter().map(|m| m.data.len()).sum::<usize>();
        unread.append(&mut self.ready);
        self.ready = unread;
    }

    pub fn readable(&self) -> bool {
        !self.ready.is_empty()
    }

    /// Builds a SACK reflecting the current state and clears the duplicate
    /// list (section 6.4). Gap blocks whose offsets do not fit in 16 bits
    /// and blocks beyond `max_blocks` are left out (the sender learns of
    /// them in a later SACK).
    pub fn build_sack(&mut self, max_blocks: usize) -> SackChunk {
        let mut gap_blocks = Vec::with_capacity(self.ranges.len().min(max_blocks));
        for &(s, e) in &self.ranges {
            if gap_blocks.len() >= max_blocks {
                break;
            }
            let (so, eo) = (s - self.cum, e - self.cum);
            if eo > u16::MAX as u64 {
                break;
            }
            gap_blocks.push(GapBlock {
                start: so as u16,
                end: eo as u16,
            });
        }
        let a_rwnd = self.a_rwnd();
        self.last_advertised = a_rwnd;
        self.packets_since_sack = 0;
        SackChunk {
            flags: 0,
            cum_tsn_ack: self.cum_tsn(),
            a_rwnd,
            gap_blocks,
            dup_tsns: std::mem::take(&mut self.dups),
        }
    }
}

mod forward;
mod interleave;
mod reset;

#[cfg(test)]
mod tests {
    use super::*;

    fn data(
        tsn: u32,
        stream: u16,
        ssn: u16,
        b: bool,
        e: bool,
        unordered: bool,
        payload: &'static [u8],
    ) -> DataChunk {
        DataChunk {
            tsn,
            stream_id: stream,
            ssn,
            ppid: 7,
            unordered,
            begin: b,
            end: e,
            immediate: false,
            payload: Bytes::from_static(payload),
        }
    }

    fn rx(initial: u32) -> Receiver {
        Receiver::new(initial, 4, 10_000, 1000, 16, 8)
    }

    #[test]
    fn in_order_single_chunk_messages_are_delivered_at_once() {
        let mut r = rx(100);
        assert_eq!(r.cum_tsn(), 99);
        assert_eq!(
            r.on_data(data(100, 0, 0, true, true, false, b"a")),
            DataOutcome::Accepted
        );
        assert_eq!(
            r.on_data(data(101, 0, 1, true, true, false, b"b")),
            DataOutcome::Accepted
        );
        assert_eq!(r.cum_tsn(), 101);
        assert_eq!(r.read().unwrap().data, &b"a"[..]);
        assert_eq!(r.read().unwrap().data, &b"b"[..]);
        assert!(r.read().is_none());
    }

    #[test]
    fn gaps_and_duplicates_are_reported_in_the_sack() {
        let mut r = rx(1);
        r.on_data(data(1, 0, 0, true, true, true, b"x"));
        r.on_data(data(3, 0, 0, true, true, true, b"x"));
        r.on_data(data(4, 0, 0, true, true, true, b"x"));
        r.on_data(data(7, 0, 0, true, true, true, b"x"));
        let got: Vec<u32> = (0..9).filter(|t| r.has_received(*t)).collect();
        assert_eq!(
            got,
            vec![0, 1, 3, 4, 7],
            "at or below cum, or in a gap block"
        );
        assert!(
            r.has_received(1u32.wrapping_add(1 << 31)),
            "old by serial arithmetic"
        );
        assert!(!r.has_received(1u32.wrapping_add((1 << 31) - 1)));
        assert_eq!(
            r.on_data(data(3, 0, 0, true, true, true, b"x")),
            DataOutcome::Duplicate
        );
        assert_eq!(
            r.on_data(data(1, 0, 0, true, true, true, b"x")),
            DataOutcome::Duplicate
        );
        let s = r.build_sack(16);
        assert_eq!(s.cum_tsn_ack, 1);
        assert_eq!(
            s.gap_blocks,
            vec![GapBlock { start: 2, end: 3 }, GapBlock { start: 6, end: 6 }]
        );
        assert_eq!(s.dup_tsns, vec![3, 1]);
        assert!(
            r.build_sack(16).dup_tsns.is_empty(),
            "duplicates are reported once"
        );
        r.on_data(data(2, 0, 0, true, true, true, b"x"));
        let s = r.build_sack(16);
        assert_eq!(s.cum_tsn_ack, 4);
        assert_eq!(s.gap_blocks, vec![GapBlock { start: 3, end: 3 }]);
        assert_eq!(r.build_sack(0).gap_blocks, vec![], "block limit respected");
    }

    #[test]
    fn ordered_messages_wait_for_their_turn() {
        let mut r = rx(10);
        r.on_data(data(11, 1, 1, true, true, false, b"second"));
        assert!(r.read().is_none());
        r.on_data(data(10, 1, 0, true, true, false, b"first"));
        assert_eq!(r.read().unwrap().data, &b"first"[..]);
        assert_eq!(r.read().unwrap().data, &b"second"[..]);
    }

    #[test]
    fn a_repeated_ssn_does_not_leak_window() {
        // Two complete messages with the same SSN, both waiting: the second
        // replaces the first, whose bytes must leave the accounting.
        let mut r = rx(10);
        r.on_data(data(11, 1, 1, true, true, false, b"aaaa"));
        r.on_data(data(12, 1, 1, true, true, false, b"bb"));
        r.on_data(data(10, 1, 0, true, true, false, b"c"));
        while r.read().is_some() {}
        assert_eq!(r.buffered(), 0);
        assert_eq!(r.memory(), 0);
    }

    #[test]
    fn filling_a_huge_gap_stops_at_the_memory_bound() {
        // TSN 10 never comes; far ahead data opens a gap, then tiny
        // fragments fill it: taken only up to HOLE_SLACK windows.
        let mut r = rx(10);
        r.on_data(data(100_000, 0, 0, true, false, false, b"z"));
        let mut taken = 0;
        for t in 11..50_000 {
            if r.on_data(data(t, 0, 0, true, false, false, b"y")) == DataOutcome::Accepted {
                taken += 1;
            }
        }
        assert!(taken > 0);
        assert!(r.memory() <= HOLE_SLACK * 10_000, "{} held", r.memory());
        assert!(r.dropped_for_window > 0);
    }

    #[test]
    fn unordered_messages_bypass_ordering() {
        let mut r = rx(10);
        r.on_data(data(11, 1, 0, true, true, true, b"u"));
        assert_eq!(r.read().unwrap().data, &b"u"[..]);
    }

    #[test]
    fn fragments_reassemble_in_any_arrival_order() {
        let mut r = rx(0);
        r.on_data(data(2, 2, 0, false, true, false, b"C"));
        r.on_data(data(0, 2, 0, true, false, false, b"A"));
        assert!(r.read().is_none());
        r.on_data(data(1, 2, 0, false, false, false, b"B"));
        let m = r.read().unwrap();
        assert_eq!(m.data, &b"ABC"[..]);
        assert_eq!(m.stream, 2);
        assert_eq!(r.buffered(), 0);
    }

    #[test]
    fn wraparound_of_tsn_and_ssn() {
        let mut r = rx(u32::MAX);
        r.streams[0].next_ssn = u16::MAX;
        r.on_data(data(u32::MAX, 0, u16::MAX, true, false, false, b"A"));
        r.on_data(data(1, 0, 0, true, true, false, b"C"));
        assert!(r.read().is_none(), "SSN 0 waits for SSN 65535");
        r.on_data(data(0, 0, u16::MAX, false, true, false, b"B"));
        assert_eq!(r.cum_tsn(), 1);
        assert_eq!(r.read().unwrap().data, &b"AB"[..]);
        assert_eq!(r.read().unwrap().data, &b"C"[..]);
    }

    #[test]
    fn window_limits_new_data_but_not_hole_filling() {
        let mut r = Receiver::new(0, 1, 1500, 1500, 16, 8);
        let big = &[0u8; 1000][..];
        let big: &'static [u8] = Box::leak(big.to_vec().into_boxed_slice());
        assert_eq!(
            r.on_data(data(1, 0, 1, true, true, false, big)),
            DataOutcome::Accepted
        );
        assert_eq!(r.a_rwnd(), 500);
        assert_eq!(
            r.on_data(data(2, 0, 2, true, true, false, big)),
            DataOutcome::Dropped
        );
        assert_eq!(
            r.on_data(data(0, 0, 0, true, true, false, big)),
            DataOutcome::Accepted,
            "fills the hole"
        );
        assert_eq!(r.cum_tsn(), 1);
        r.read();
        r.read();
        assert_eq!(r.a_rwnd(), 1500);
    }

    #[test]
    fn invalid_stream_is_acknowledged_but_not_delivered() {
        let mut r = rx(5);
        assert_eq!(
            r.on_data(data(5, 9, 0, true, true, false, b"x")),
            DataOutcome::InvalidStream
        );
        assert_eq!(r.cum_tsn(), 5);
        assert!(r.read().is_none());
    }

    #[test]
    fn oversized_messages_are_flagged() {
        let mut r = Receiver::new(0, 1, 100_000, 4, 16, 8);
        r.on_data(data(0, 0, 0, true, false, false, b"abc"));
        assert_eq!(
            r.on_data(data(1, 0, 0, false, false, false, b"def")),
            DataOutcome::MessageTooLarge
        );
    }

    /// Issue 31 finding 4: a peer extends two runs of middle fragments
    /// (no B, no E) of two messages in turn. Each fragment must cost a
    /// bounded number of fragment visits, not one per fragment of its run.
    /// Then the B and E fragments arrive and both messages complete.
    #[test]
    fn interleaved_fragment_runs_cost_a_bounded_number_of_visits_per_fragment() {
        let n: u32 = 2000;
        let mut r = Receiver::new(0, 2, 1 << 24, 1 << 20, 16, 8);
        // Message X on stream 0 at TSNs 1..=n, message Y on stream 1 at
        // TSNs n+2..=2n+1: their middles arrive alternately.
        let (x0, y0) = (1, n + 2);
        for k in 1..n - 1 {
            for (base, stream) in [(x0, 0), (y0, 1)] {
                assert_eq!(
                    r.on_data(data(base + k, stream, 0, false, false, false, b"m")),
                    DataOutcome::Accepted
                );
            }
        }
        let middles = 2 * u64::from(n - 2);
        eprintln!(
            "{} fragment visits for {middles} interleaved middle fragments",
            r.reassembly_visits
        );
        assert!(
            r.reassembly_visits <= 4 * middles,
            "{} fragment visits for {middles} fragments",
            r.reassembly_visits
        );
        for (base, stream) in [(x0, 0), (y0, 1)] {
            r.on_data(data(base, stream, 0, true, false, false, b"B"));
            r.on_data(data(base + n - 1, stream, 0, false, true, false, b"E"));
        }
        let mut sizes: Vec<(u16, usize)> = std::iter::from_fn(|| r.read())
            .map(|m| (m.stream, m.data.len()))
            .collect();
        sizes.sort();
        assert_eq!(sizes, vec![(0, n as usize), (1, n as usize)]);
        assert_eq!(r.memory(), 0);
        // Delivery visits each fragment once more.
        assert!(r.reassembly_visits <= 4 * middles + 2 * u64::from(n) + 16);
    }

    /// Runs join in any arrival order: unordered messages of 1 to 5
    /// fragments on two streams, next to each other in TSN order, arrive
    /// shuffled (200 orders); each is delivered whole, once, and nothing
    /// stays held.
    #[test]
    fn runs_join_in_any_arrival_order() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let payloads: [&'static [u8]; 5] = [b"a", b"b", b"c", b"d", b"e"];
        for _ in 0..200 {
            let mut chunks = Vec::new();
            let mut want = Vec::new();
            let mut tsn = 1u32;
            for m in 0..6u16 {
                let n = 1 + (next() % 5) as usize;
                let stream = m % 2;
                want.push((stream, payloads[..n].concat()));
                for (k, p) in payloads[..n].iter().enumerate() {
                    chunks.push(data(tsn, stream, 0, k == 0, k == n - 1, true, p));
                    tsn += 1;
                }
            }
            for i in (1..chunks.len()).rev() {
                chunks.swap(i, (next() % (i as u64 + 1)) as usize);
            }
            let mut r = Receiver::new(1, 2, 1 << 20, 1 << 20, 64, 8);
            for c in chunks {
                assert_eq!(r.on_data(c), DataOutcome::Accepted);
            }
            let mut got: Vec<(u16, Vec<u8>)> = std::iter::from_fn(|| r.read())
                .map(|m| (m.stream, m.data.to_vec()))
                .collect();
            got.sort();
            want.sort();
            assert_eq!(got, want);
            assert!(r.fragments.is_empty() && r.runs.is_empty());
        }
    }

    #[test]
    fn gap_tracking_is_bounded() {
        let mut r = Receiver::new(0, 1, 1 << 20, 1 << 20, 1, 8);
        let mut dropped = 0;
        for k in 0..20u32 {
            if r.on_data(data(2 + 2 * k, 0, 0, true, true, true, b"x")) == DataOutcome::Dropped {
                dropped += 1;
            }
        }
        assert_eq!(r.ranges.len(), 4);
        assert_eq!(dropped, 16);
    }
}
