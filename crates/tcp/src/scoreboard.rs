//! The sender's record of transmitted, unacknowledged segments: when each
//! was sent (for RTT samples and Karn's rule, RFC 6298 section 3), whether
//! it was retransmitted, and whether it is believed in flight, lost or
//! selectively acknowledged (the scoreboard of RFC 6675 section 4).
//!
//! "Pipe" (RFC 6675 section 2, SetPipe) is the sum of the segments in
//! flight: a segment marked lost leaves the pipe until it is retransmitted.
//! Without SACK nothing is ever SACKed and only the head or, after a
//! timeout, every segment is marked lost, so pipe is RFC 5681's FlightSize
//! less what is waiting for retransmission.

use std::collections::VecDeque;

use msctp_time::Time;

use crate::seq::SeqNum;
use crate::wire::SackBlock;

/// Where a sent segment stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentState {
    InFlight,
    Lost,
    Sacked,
}

#[derive(Debug, Clone)]
pub struct SentSegment {
    pub seq: SeqNum,
    /// Data bytes.
    pub len: u32,
    /// The segment carries our FIN (one more sequence number).
    pub fin: bool,
    pub sent_at: Time,
    /// Ever retransmitted: its ACK gives no RTT sample (Karn).
    pub retransmitted: bool,
    /// Retransmitted since it was last marked lost: not marked lost again
    /// by SACK information (RFC 6675 HighRxt), only by a timeout.
    pub rtx_in_episode: bool,
    pub state: SegmentState,
}

impl SentSegment {
    /// Sequence space taken.
    pub fn space(&self) -> u32 {
        self.len + u32::from(self.fin)
    }
    pub fn end(&self) -> SeqNum {
        self.seq.wrapping_add(self.space())
    }
}

/// Result of a cumulative acknowledgment.
#[derive(Debug, Clone, Copy, Default)]
pub struct Acked {
    /// Data bytes newly acknowledged.
    pub bytes: u32,
    /// The FIN was acknowledged.
    pub fin: bool,
    /// Send time of the earliest fully acknowledged segment and whether it
    /// was retransmitted (ns-3 takes its sample the same way).
    pub earliest: Option<(Time, bool)>,
}

#[derive(Debug, Clone, Default)]
pub struct Scoreboard {
    segs: VecDeque<SentSegment>,
}

impl Scoreboard {
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    pub fn len(&self) -> usize {
        self.segs.len()
    }

    pub fn push(&mut self, seg: SentSegment) {
        self.segs.push_back(seg);
    }

    pub fn get(&self, i: usize) -> Option<&SentSegment> {
        self.segs.get(i)
    }

    pub fn get_mut(&mut self, i: usize) -> Option<&mut SentSegment> {
        self.segs.get_mut(i)
    }

    pub fn clear(&mut self) {
        self.segs.clear();
    }

    /// Removes what `ack` covers; a segment covered in part is trimmed.
    pub fn acknowledge(&mut self, ack: SeqNum) -> Acked {
        let mut out = Acked::default();
        while let Some(front) = self.segs.front_mut() {
            if front.end().le(ack) {
                out.bytes += front.len;
                out.fin |= front.fin;
                if out.earliest.is_none() {
                    out.earliest = Some((front.sent_at, front.retransmitted));
                }
                self.segs.pop_front();
            } else {
                if front.seq.lt(ack) {
                    let cut = ack.since(front.seq).min(front.len);
                    front.seq = ack;
                    front.len -= cut;
                    out.bytes += cut;
                }
                break;
            }
        }
        out
    }

    /// Marks the segments that a SACK block covers entirely; returns the
    /// data bytes newly SACKed (RFC 6675 Update()).
    pub fn apply_sack(&mut self, blocks: &[SackBlock]) -> u32 {
        let mut newly = 0;
        for b in blocks {
            if !b.left.lt(b.right) {
                continue;
            }
            for s in self.segs.iter_mut() {
                if s.state != SegmentState::Sacked
                    && s.seq.ge(b.left)
                    && s.end().le(b.right)
                    && s.len > 0
                {
                    s.state = SegmentState::Sacked;
                    newly += s.len;
                }
            }
        }
        newly
    }

    /// Bytes in flight (RFC 6675 pipe).
    pub fn pipe(&self) -> u32 {
        self.segs
            .iter()
            .filter(|s| s.state == SegmentState::InFlight)
            .map(|s| s.len)
            .sum()
    }

    pub fn sacked_bytes(&self) -> u32 {
        self.segs
            .iter()
            .filter(|s| s.state == SegmentState::Sacked)
            .map(|s| s.len)
            .sum()
    }

    /// The first segment waiting for retransmission.
    pub fn first_lost(&self) -> Option<usize> {
        self.segs.iter().position(|s| s.state == SegmentState::Lost)
    }

    /// Marks the first unacknowledged, un-SACKed segment lost (fast
    /// retransmit; a NewReno partial ACK).
    pub fn mark_head_lost(&mut self) {
        if let Some(s) = self
            .segs
            .iter_mut()
            .find(|s| s.state != SegmentState::Sacked)
        {
            s.state = SegmentState::Lost;
            s.rtx_in_episode = false;
        }
    }

    /// After a retransmission timeout every segment not SACKed is lost
    /// (RFC 6675 section 5.1 keeps the SACK information, as ns-3 does).
    pub fn mark_all_lost(&mut self) {
        for s in self.segs.iter_mut() {
            if s.state != SegmentState::Sacked {
                s.state = SegmentState::Lost;
            }
            s.rtx_in_episode = false;
        }
    }

    /// RFC 6675 IsLost(): a segment is lost when `dup_thresh` SACKed
    /// segments, or more than `(dup_thresh - 1) * smss` SACKed bytes, lie
    /// above it. Marks such segments (not already retransmitted in this
    /// episode) lost; returns how many were newly marked.
    pub fn mark_lost_by_sack(&mut self, dup_thresh: u32, smss: u32) -> usize {
        let mut count = 0u32;
        let mut bytes = 0u64;
        let limit = u64::from(dup_thresh.saturating_sub(1)) * u64::from(smss);
        let mut marked = 0;
        for s in self.segs.iter_mut().rev() {
            match s.state {
                SegmentState::Sacked => {
                    count += 1;
                    bytes += u64::from(s.len);
                }
                SegmentState::InFlight
                    if !s.rtx_in_episode && (count >= dup_thresh || bytes > limit) =>
                {
                    s.state = SegmentState::Lost;
                    marked += 1;
                }
                _ => {}
            }
        }
        marked
    }

    /// RFC 6675 IsLost(HighACK + 1): whether the first segment is lost by
    /// the SACK rule.
    pub fn head_is_lost(&self, dup_thresh: u32, smss: u32) -> bool {
        let Some(head) = self.segs.front() else {
            return false;
        };
        if head.state == SegmentState::Sacked {
            return false;
        }
        let (count, bytes) = self
            .segs
            .iter()
            .skip(1)
            .filter(|s| s.state == SegmentState::Sacked)
            .fold((0u32, 0u64), |(c, b), s| (c + 1, b + u64::from(s.len)));
        count >= dup_thresh || bytes > u64::from(dup_thresh.saturating_sub(1)) * u64::from(smss)
    }

    pub fn iter(&self) -> impl Iterator<Item = &SentSegment> {
        self.segs.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(seq: u32, len: u32) -> SentSegment {
        SentSegment {
            seq: SeqNum(seq),
            len,
            fin: false,
            sent_at: Time::from_millis(u64::from(seq)),
            retransmitted: false,
            rtx_in_episode: false,
            state: SegmentState::InFlight,
        }
    }

    fn board(n: u32) -> Scoreboard {
        let mut b = Scoreboard::default();
        for i in 0..n {
            b.push(seg(i * 100, 100));
        }
        b
    }

    #[test]
    fn cumulative_ack_pops_and_trims() {
        let mut b = board(3);
        let a = b.acknowledge(SeqNum(150));
        assert_eq!(a.bytes, 150);
        assert_eq!(a.earliest, Some((Time::from_millis(0), false)));
        assert_eq!(b.len(), 2);
        assert_eq!(b.get(0).map(|s| (s.seq, s.len)), Some((SeqNum(150), 50)));
        assert_eq!(b.pipe(), 150);
    }

    #[test]
    fn sack_marks_and_rfc6675_loss_rule() {
        let mut b = board(6);
        // Segments 1, 2, 3 SACKed above a hole at 0.
        assert_eq!(
            b.apply_sack(&[SackBlock {
                left: SeqNum(100),
                right: SeqNum(400)
            }]),
            300
        );
        assert_eq!(
            b.apply_sack(&[SackBlock {
                left: SeqNum(100),
                right: SeqNum(400)
            }]),
            0
        );
        assert!(b.head_is_lost(3, 100));
        assert_eq!(b.pipe(), 300);
        assert_eq!(b.mark_lost_by_sack(3, 100), 1);
        assert_eq!(b.first_lost(), Some(0));
        assert_eq!(b.pipe(), 200);
        // Two SACKed segments of 100 bytes: 200 > (3-1)*100 is false, count 2 < 3.
        let mut b = board(4);
        b.apply_sack(&[SackBlock {
            left: SeqNum(200),
            right: SeqNum(400),
        }]);
        assert!(!b.head_is_lost(3, 100));
        assert_eq!(b.mark_lost_by_sack(3, 100), 0);
    }

    #[test]
    fn timeout_marks_everything_not_sacked() {
        let mut b = board(4);
        b.apply_sack(&[SackBlock {
            left: SeqNum(300),
            right: SeqNum(400),
        }]);
        b.mark_all_lost();
        assert_eq!(b.pipe(), 0);
        assert_eq!(b.first_lost(), Some(0));
        assert_eq!(b.sacked_bytes(), 100);
    }
}
