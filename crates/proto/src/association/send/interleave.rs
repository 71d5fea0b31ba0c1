//! The sender's side of I-DATA (RFC 8260): which queued message gives the
//! next chunk (the stream scheduler, `schedule.rs`) and the I-FORWARD-TSN
//! that skips abandoned messages by their MIDs (section 2.3).

use smallvec::SmallVec;

use super::{Sender, StreamScheduler};
use crate::Time;
use crate::path::Path;
use crate::wire::{Chunk, IForwardEntry, IForwardTsnChunk};

/// Bytes an I-DATA header has beyond a DATA header (20 against 16, RFC
/// 8260 section 2.1).
pub const IDATA_EXTRA: usize = 4;

impl Sender {
    /// Bytes the chunk header has beyond DATA's.
    pub(super) fn extra_header(&self) -> usize {
        if self.interleave { IDATA_EXTRA } else { 0 }
    }

    /// The queue index of the run that gives the next chunk. First come,
    /// first served is the queue's head. Without I-DATA a message once
    /// started is finished first (only one is ever partly cut).
    pub(super) fn scheduled(&self) -> Option<usize> {
        if self.queue.is_empty() {
            return None;
        }
        if self.schedule.kind == StreamScheduler::Fcfs {
            return Some(0);
        }
        if !self.interleave
            && let Some(i) = self.queue.iter().position(|r| r.offset > 0)
        {
            return Some(i);
        }
        // The first run of each stream, in queue order.
        let mut heads: SmallVec<[(usize, u16); 8]> = SmallVec::new();
        for (i, r) in self.queue.iter().enumerate() {
            if !heads.iter().any(|h| h.1 == r.stream) {
                heads.push((i, r.stream));
            }
        }
        self.schedule.pick(&heads)
    }

    /// Sets a stream's priority value or weight (see [`StreamScheduler`]).
    pub fn set_stream_value(&mut self, stream: u16, value: u16) {
        self.schedule.set_value(stream, value);
    }

    /// The next chunk will open a new packet (round robin per packet).
    pub fn packet_started(&mut self) {
        self.schedule.packet_started();
    }

    /// The I-FORWARD-TSN to send when I-DATA is in use (RFC 8260 section
    /// 2.3): the Advanced.Peer.Ack.Point and, per stream and ordering, the
    /// largest MID abandoned up to it. `n` chunks of the retransmission
    /// queue are covered.
    pub(super) fn i_forward_tsn(&self, n: usize) -> Chunk {
        let mut entries: Vec<IForwardEntry> = Vec::new();
        for c in self.outstanding.range(..n.min(self.outstanding.len())) {
            let Some(id) = c.interleaved.filter(|_| c.abandoned) else {
                continue;
            };
            let (stream, unordered) = (c.data.stream_id, c.data.unordered);
            match entries
                .iter_mut()
                .find(|e| e.stream == stream && e.unordered == unordered)
            {
                // TSN order is MID order within a stream and ordering.
                Some(e) => e.mid = id.mid,
                None => entries.push(IForwardEntry {
                    stream,
                    unordered,
                    mid: id.mid,
                }),
            }
        }
        entries.sort_unstable();
        Chunk::IForwardTsn(IForwardTsnChunk {
            new_cum_tsn: self.adv_peer_ack,
            entries,
        })
    }

    /// Whether outstanding chunk `k` is a fragment of the message
    /// `(stream, unordered, mid)`.
    fn of_message(&self, k: usize, stream: u16, unordered: bool, mid: u32) -> bool {
        let c = &self.outstanding[k];
        c.data.stream_id == stream
            && c.data.unordered == unordered
            && c.interleaved.is_some_and(|id| id.mid == mid)
    }

    /// With I-DATA the fragments of a message are not consecutive: all
    /// the outstanding chunks with its stream, ordering and MID are
    /// abandoned (RFC 3758 section 3.1 rule A3, RFC 8260 section 2.3), and
    /// the rest of it if it is still being cut.
    pub(super) fn abandon_interleaved(&mut self, idx: usize, paths: &mut [Path]) {
        let c = &self.outstanding[idx];
        let (stream, unordered, pr) = (c.data.stream_id, c.data.unordered, c.pr);
        let Some(mid) = c.interleaved.map(|id| id.mid) else {
            return;
        };
        let mut ended = false;
        for k in 0..self.outstanding.len() {
            if self.of_message(k, stream, unordered, mid) {
                ended |= self.outstanding[k].data.end;
                self.abandon_chunk(k, paths);
            }
        }
        if !ended
            && let Some(i) = self.queue.iter().position(|r| {
                r.offset > 0 && r.stream == stream && r.unordered == unordered && r.mid == mid
            })
        {
            self.drop_rest(i);
        }
        self.abandoned.of(pr).sent += 1;
    }

    /// The messages partly cut whose lifetime is over, with I-DATA (any
    /// number of them may be partly sent at once).
    pub(super) fn abandon_expired_partial(&mut self, now: Time, paths: &mut [Path]) {
        let expired: Vec<(u16, bool, u32)> = (self.queue.iter())
            .filter(|r| r.offset > 0 && r.pr.expired(now))
            .map(|r| (r.stream, r.unordered, r.mid))
            .collect();
        for (stream, unordered, mid) in expired {
            if let Some(k) =
                (0..self.outstanding.len()).find(|&k| self.of_message(k, stream, unordered, mid))
            {
                self.abandon_interleaved(k, paths);
            }
        }
    }
}
