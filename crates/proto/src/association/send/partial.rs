//! Partial reliability on the sending side (RFC 3758 section 3.5) with the
//! policies of RFC 7496: which messages are abandoned and when, the
//! Advanced.Peer.Ack.Point, and the FORWARD TSN that tells the peer to
//! skip what was abandoned.
//!
//! An abandoned chunk stays in the retransmission queue (its TSN keeps the
//! queue consecutive) until the peer's cumulative ack passes it, but it is
//! no longer in flight, never retransmitted, and its payload is released at
//! once: it no longer counts against the send buffer.

use std::time::Duration;

use bytes::Bytes;

use super::Sender;
use crate::Time;
use crate::path::Path;
use crate::tsn;
use crate::wire::Chunk;

/// How hard a message is tried (RFC 3758 section 4, RFC 7496 section 3).
/// Effective only when both sides announced PR-SCTP
/// ([`crate::AssociationConfig::pr_sctp`]); otherwise every message is
/// reliable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PrPolicy {
    /// Fully reliable (RFC 9260).
    #[default]
    Reliable,
    /// Timed reliability (RFC 3758 section 4, RFC 7496 section 3's
    /// SCTP_PR_SCTP_TTL): a message not acknowledged this long after it
    /// was handed to the association is abandoned when it is next due to
    /// be sent or retransmitted; one not yet sent is dropped unsent.
    Lifetime(Duration),
    /// Limited retransmissions (RFC 7496 section 3.1): each chunk of the
    /// message is retransmitted at most this many times (0: sent once),
    /// after which the message is abandoned.
    MaxRetransmissions(u32),
    /// Priority (RFC 7496 section 3.2), 0 the highest: when the send
    /// buffer has no room for a message, messages of lower priority (a
    /// larger value) are abandoned to make it, unsent ones first.
    Priority(u16),
}

/// The options of one message (RFC 6458's `sctp_sndinfo` flags and
/// `sctp_prinfo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SendOptions {
    /// Unordered delivery (the U bit, RFC 9260 section 3.3.1).
    pub unordered: bool,
    /// Partial reliability policy.
    pub policy: PrPolicy,
    /// Ask the peer to acknowledge the message at once: the I bit on its
    /// last chunk (RFC 7053 section 4.1, RFC 6458's SCTP_SACK_IMMEDIATELY).
    pub sack_immediately: bool,
}

/// A message's policy as the sender applies it: a lifetime becomes its
/// deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Pr {
    #[default]
    Reliable,
    Until(Time),
    MaxRtx(u32),
    Priority(u16),
}

impl Pr {
    pub(crate) fn new(policy: PrPolicy, now: Time) -> Pr {
        match policy {
            PrPolicy::Reliable => Pr::Reliable,
            PrPolicy::Lifetime(d) => Pr::Until(now + d),
            PrPolicy::MaxRetransmissions(n) => Pr::MaxRtx(n),
            PrPolicy::Priority(p) => Pr::Priority(p),
        }
    }

    pub(super) fn expired(self, now: Time) -> bool {
        matches!(self, Pr::Until(t) if t <= now)
    }

    fn lower_than(self, prio: u16) -> bool {
        matches!(self, Pr::Priority(q) if q > prio)
    }
}

/// Messages abandoned under one policy (RFC 7496 section 4's
/// `sprstat_abandoned_unsent` and `sprstat_abandoned_sent`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Abandoned {
    /// Dropped before any of their chunks was sent.
    pub unsent: u64,
    /// Abandoned after at least one chunk was sent (skipped with FORWARD
    /// TSN).
    pub sent: u64,
}

/// Messages abandoned, per policy (RFC 7496 section 4).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AbandonedCounters {
    pub lifetime: Abandoned,
    pub retransmissions: Abandoned,
    pub priority: Abandoned,
}

impl AbandonedCounters {
    pub(super) fn of(&mut self, pr: Pr) -> &mut Abandoned {
        match pr {
            Pr::MaxRtx(_) => &mut self.retransmissions,
            Pr::Priority(_) => &mut self.priority,
            _ => &mut self.lifetime,
        }
    }

    /// All messages abandoned, sent or not.
    pub fn total(&self) -> u64 {
        [self.lifetime, self.retransmissions, self.priority]
            .iter()
            .map(|a| a.unsent + a.sent)
            .sum()
    }
}

impl Sender {
    /// Applies the policies before a packet is filled: drops unsent
    /// messages whose lifetime is over, abandons the messages of chunks
    /// marked for retransmission whose lifetime is over or whose
    /// retransmissions are used up (RFC 3758 section 3.5, RFC 7496 section
    /// 3.1), and advances the Advanced.Peer.Ack.Point over them; a FORWARD
    /// TSN becomes due when it moves.
    pub fn abandon_due(&mut self, now: Time, paths: &mut [Path]) {
        if !self.pr_sctp || !self.pr_used {
            return;
        }
        // A message partly sent and expired: its sent chunks and the rest.
        if self.interleave {
            self.abandon_expired_partial(now, paths);
        } else if let Some(run) = self.queue.iter().find(|r| r.offset > 0)
            && run.pr.expired(now)
            && !self.outstanding.is_empty()
        {
            self.abandon_message(self.outstanding.len() - 1, paths);
        }
        let mut dropped = 0;
        let mut bytes = 0;
        self.queue.retain(|r| {
            let drop = r.offset == 0 && r.pr.expired(now);
            if drop {
                dropped += u64::from(r.count);
                bytes += r.remaining();
            }
            !drop
        });
        self.queued_bytes -= bytes;
        self.abandoned.lifetime.unsent += dropped;
        if self.marked > 0 {
            let due: Vec<usize> = self
                .outstanding
                .iter()
                .enumerate()
                .filter(|(_, c)| {
                    c.marked.is_some()
                        && match c.pr {
                            Pr::Until(t) => t <= now,
                            Pr::MaxRtx(n) => c.transmissions > n,
                            _ => false,
                        }
                })
                .map(|(i, _)| i)
                .collect();
            for i in due {
                self.abandon_message(i, paths);
            }
        }
        self.abandon_expired_in_flight(now, paths);
        self.advance_ack_point();
    }

    /// Abandons the messages of chunks still in flight whose lifetime is
    /// over: timed reliability abandons a message when its lifetime ends
    /// (RFC 7496 section 3.1), sent or not, not only when a chunk of it
    /// comes up for retransmission (RFC 3758 section 3.5 rule A1). Without
    /// this a chunk lost on a path that failed waited for that path's
    /// backed-off T3-rtx timer (up to RTO.Max) before it was abandoned,
    /// and the receiver held every later message of its stream until then.
    /// Scans from the oldest chunk and stops at the first one still alive
    /// (bounded work per packet; a later chunk with a shorter lifetime
    /// waits for the ones before it). Skipped when no chunk with a
    /// lifetime is outstanding (reliable or retransmission-limited bulk
    /// is not walked per packet).
    fn abandon_expired_in_flight(&mut self, now: Time, paths: &mut [Path]) {
        if self.lifetimes_outstanding == 0 {
            return;
        }
        let mut i = 0;
        while let Some(c) = self.outstanding.get(i) {
            match c.pr {
                _ if c.abandoned || c.gap_acked => {}
                Pr::Until(t) if t <= now => self.abandon_message(i, paths),
                Pr::Until(_) => break,
                _ => {}
            }
            i += 1;
        }
    }

    /// RFC 7496 section 3.2: makes `need` bytes of room in the send buffer
    /// for a message of priority `prio` by abandoning messages of lower
    /// priority, unsent ones first (lowest priority first), then sent ones
    /// (oldest first). Abandons nothing and returns false when all of
    /// them together would not free enough.
    pub fn make_room(&mut self, need: usize, prio: u16, paths: &mut [Path]) -> bool {
        if !self.pr_sctp || !self.pr_used {
            return false;
        }
        // A run whose first message is partly sent is not dropped whole
        // (its sent part goes with the sent messages).
        let started = |_: usize, offset: usize| offset > 0;
        let unsent: usize = (self.queue.iter().enumerate())
            .filter(|(i, r)| r.pr.lower_than(prio) && !started(*i, r.offset))
            .map(|(_, r)| r.remaining())
            .sum();
        let sent: usize = (self.outstanding.iter())
            .filter(|c| !c.abandoned && c.pr.lower_than(prio))
            .map(|c| c.data.payload.len())
            .sum();
        let head_rest: usize = (self.queue.iter())
            .filter(|r| r.offset > 0 && r.pr.lower_than(prio))
            .map(|r| r.data.len() - r.offset)
            .sum();
        if unsent + sent + head_rest < need {
            return false;
        }
        let target = self.buffered().saturating_sub(need);
        let mut levels: Vec<u16> = (self.queue.iter())
            .filter_map(|r| match r.pr {
                Pr::Priority(q) if q > prio => Some(q),
                _ => None,
            })
            .collect();
        levels.sort_unstable_by(|a, b| b.cmp(a));
        levels.dedup();
        for q in levels {
            if self.buffered() <= target {
                break;
            }
            let (mut dropped, mut bytes) = (0u64, 0usize);
            let mut i = 0;
            self.queue.retain(|r| {
                let drop = r.pr == Pr::Priority(q) && !started(i, r.offset);
                i += 1;
                if drop {
                    dropped += u64::from(r.count);
                    bytes += r.remaining();
                }
                !drop
            });
            self.queued_bytes -= bytes;
            self.abandoned.priority.unsent += dropped;
        }
        let mut i = 0;
        while self.buffered() > target && i < self.outstanding.len() {
            let c = &self.outstanding[i];
            if !c.abandoned && c.pr.lower_than(prio) {
                self.abandon_message(i, paths);
            }
            i += 1;
        }
        self.advance_ack_point();
        true
    }

    /// Abandons the message chunk `idx` belongs to: all its chunks (RFC
    /// 3758 section 3.1 rule A3: every fragment of a message at once),
    /// and the part of it not yet cut into chunks.
    pub(super) fn abandon_message(&mut self, idx: usize, paths: &mut [Path]) {
        if self.outstanding[idx].abandoned {
            return;
        }
        if self.interleave {
            return self.abandon_interleaved(idx, paths);
        }
        let pr = self.outstanding[idx].pr;
        // A message's chunks have consecutive TSNs.
        let mut first = idx;
        while first > 0 && !self.outstanding[first].data.begin {
            first -= 1;
        }
        let mut last = idx;
        while !self.outstanding[last].data.end && last + 1 < self.outstanding.len() {
            last += 1;
        }
        for k in first..=last {
            self.abandon_chunk(k, paths);
        }
        if !self.outstanding[last].data.end
            && let Some(i) = self.queue.iter().position(|r| r.offset > 0)
        {
            // The rest of the message is the one run partly cut.
            self.drop_rest(i);
        }
        self.abandoned.of(pr).sent += 1;
    }

    /// Drops the part of run `i`'s first message not yet cut into chunks.
    pub(super) fn drop_rest(&mut self, i: usize) {
        let run = &mut self.queue[i];
        self.queued_bytes -= run.data.len() - run.offset;
        if run.count > 1 {
            run.count -= 1;
            run.offset = 0;
        } else {
            self.queue.remove(i);
        }
    }

    pub(super) fn abandon_chunk(&mut self, k: usize, paths: &mut [Path]) {
        let c = &mut self.outstanding[k];
        if c.abandoned {
            return;
        }
        c.abandoned = true;
        if c.marked.take().is_some() {
            self.marked -= 1;
        }
        let len = c.data.payload.len();
        if let Some(p) = paths.get_mut(c.path) {
            if c.in_flight {
                p.flight_size = p.flight_size.saturating_sub(len as u32);
            }
            // No RTT sample from a chunk whose acknowledgement may come
            // from a FORWARD TSN.
            if p.rtt_probe.is_some_and(|(t, _)| t == c.data.tsn) {
                p.rtt_probe = None;
            }
        }
        c.in_flight = false;
        self.outstanding_bytes -= len;
        c.data.payload = Bytes::new();
    }

    /// Moves the Advanced.Peer.Ack.Point to the cumulative ack point if
    /// that is ahead, then over the abandoned chunks that follow (RFC 3758
    /// section 3.5 rules A2 and A3). A FORWARD TSN becomes due when it
    /// moved ahead of the cumulative ack point (rule A5).
    pub fn advance_ack_point(&mut self) {
        if tsn::lt(self.adv_peer_ack, self.cum_ack) {
            self.adv_peer_ack = self.cum_ack;
        }
        let before = self.adv_peer_ack;
        let mut i = self.adv_peer_ack.wrapping_sub(self.cum_ack) as usize;
        while let Some(c) = self.outstanding.get(i)
            && c.abandoned
        {
            self.adv_peer_ack = c.data.tsn;
            i += 1;
        }
        if self.adv_peer_ack != before {
            self.forward_tsn_due = true;
        }
    }

    /// After a SACK or a T3-rtx expiry: a cumulative ack behind the
    /// Advanced.Peer.Ack.Point means the FORWARD TSN sent was lost or is
    /// still on its way; it is sent again (RFC 3758 section 3.5 rules A5
    /// and C3; usrsctp does so on every such SACK).
    pub fn recheck_forward_tsn(&mut self) {
        if !self.pr_sctp {
            return;
        }
        self.advance_ack_point();
        if tsn::gt(self.adv_peer_ack, self.cum_ack) {
            self.forward_tsn_due = true;
        }
    }

    /// The FORWARD TSN to send (RFC 3758 section 3.2): the
    /// Advanced.Peer.Ack.Point and, for each stream with ordered messages
    /// skipped, the largest SSN skipped (section 3.5 rule C4); `None` when
    /// the peer's cumulative ack has reached the point.
    pub fn forward_tsn(&mut self) -> Option<Chunk> {
        if !tsn::gt(self.adv_peer_ack, self.cum_ack) {
            self.forward_tsn_due = false;
            return None;
        }
        let n = self.adv_peer_ack.wrapping_sub(self.cum_ack) as usize;
        if self.interleave {
            return Some(self.i_forward_tsn(n));
        }
        let mut streams: Vec<(u16, u16)> = Vec::new();
        for c in self.outstanding.range(..n.min(self.outstanding.len())) {
            if !c.abandoned || c.data.unordered {
                continue;
            }
            match streams.iter_mut().find(|(s, _)| *s == c.data.stream_id) {
                // TSN order is SSN order within a stream.
                Some(e) => e.1 = c.data.ssn,
                None => streams.push((c.data.stream_id, c.data.ssn)),
            }
        }
        streams.sort_unstable();
        Some(Chunk::ForwardTsn {
            new_cum_tsn: self.adv_peer_ack,
            streams,
        })
    }
}
