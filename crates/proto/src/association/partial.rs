//! Partial reliability (RFC 3758, RFC 7496) and SACK-IMMEDIATELY (RFC
//! 7053) at the association: messages sent with options, the FORWARD TSN
//! in outgoing packets and its processing when it arrives, and the I bit
//! set on DATA. The sender's abandonment rules are in
//! `send/partial.rs`, the receiver's skipping in `recv/forward.rs`.

use std::net::IpAddr;

use super::Flow;
use super::output::Bundle;
use super::{Association, State};
use crate::Time;
use crate::wire::Chunk;
use crate::wire::chunk::chunk_type;

impl Association {
    /// Whether both sides announced PR-SCTP (RFC 3758 section 3.3.1):
    /// only then do message policies apply and FORWARD TSN flow.
    pub fn pr_sctp(&self) -> bool {
        self.sender.pr_sctp
    }

    /// Tells the association that the data is about to move to another
    /// path (the handover manager holds a move until the new path is
    /// proven): with [`AssociationConfig::sack_immediately`] every packet
    /// of DATA carries the I bit meanwhile (RFC 7053 section 4.1), so that
    /// the peer's SACKs report the old path's data at once, not after its
    /// delayed-SACK timer.
    ///
    /// [`AssociationConfig::sack_immediately`]: crate::AssociationConfig::sack_immediately
    pub fn set_move_pending(&mut self, pending: bool) {
        self.move_pending = pending;
    }

    /// Whether a move is pending ([`Self::set_move_pending`]).
    pub fn move_pending(&self) -> bool {
        self.move_pending
    }

    /// Applies the message policies before a packet is filled (RFC 3758
    /// section 3.5, RFC 7496 section 3).
    pub(super) fn apply_policies(&mut self, now: Time) {
        if self.state.is_established() {
            self.sender.abandon_due(now, &mut self.paths);
        }
    }

    /// A FORWARD TSN when one is due (RFC 3758 section 3.5 rule C1:
    /// bundled, in front of the packet's DATA), with a T3-rtx timer running
    /// on its destination: if the peer does not answer, the timer's expiry
    /// sends it again (rule A5), as usrsctp does.
    pub(super) fn bundle_forward_tsn(&mut self, b: &mut Bundle, now: Time) {
        if !self.sender.forward_tsn_due || !self.state.is_established() {
            return;
        }
        let Some(p) = self.path_index(b.dest).filter(|&p| self.paths[p].confirmed) else {
            return;
        };
        if self.forward_tsn_dest(b.dest) != b.dest {
            return;
        }
        let auth = self.must_authenticate(chunk_type::FORWARD_TSN);
        let Some(c) = self.sender.forward_tsn() else {
            return;
        };
        if !b.fits(c.padded_len(), auth) {
            return;
        }
        b.push(c, auth);
        self.sender.forward_tsn_due = false;
        self.stats.forward_tsns_sent += 1;
        let path = &mut self.paths[p];
        if path.t3_deadline.is_none() {
            path.t3_deadline = Some(now + path.rto.rto());
        }
    }

    /// Where a FORWARD TSN for a packet to `dest` goes: `dest`, unless its
    /// retransmission timer expired without an answer since (error count
    /// above zero, RFC 9260 section 8.2) and another confirmed path has
    /// none; then that path. A FORWARD TSN lost on a failing path left
    /// the receiver holding every later message of its stream until that
    /// path's backed-off T3-rtx timer fired; RFC 9260 section 6.4 sends a
    /// retransmission that timed out to another address likewise.
    pub(super) fn forward_tsn_dest(&self, dest: IpAddr) -> IpAddr {
        let failing = self
            .path_index(dest)
            .is_some_and(|i| self.paths[i].error_count > 0);
        if !failing {
            return dest;
        }
        self.paths
            .iter()
            .find(|q| q.confirmed && q.error_count == 0)
            .map_or(dest, |q| q.remote)
    }

    /// Sets the I bit (RFC 7053 section 4.1) on the last DATA chunk of a
    /// packet about to leave when the send queue is empty after it (the
    /// last message before the send buffer empties) or a move is pending.
    pub(super) fn mark_sack_immediately(&mut self, chunks: &mut [Chunk]) {
        let queue_empties = !self.sender.has_queued();
        if !self.cfg.sack_immediately || !(self.move_pending || queue_empties) {
            return;
        }
        let last = chunks
            .iter_mut()
            .rev()
            .find(|c| matches!(c, Chunk::Data(_) | Chunk::IData(_)));
        let immediate = match last {
            Some(Chunk::Data(d)) => Some(&mut d.immediate),
            Some(Chunk::IData(d)) => Some(&mut d.immediate),
            _ => None,
        };
        if let Some(i) = immediate
            && !*i
        {
            *i = true;
            self.stats.sack_immediately_sent += 1;
        }
    }

    /// A FORWARD TSN from the peer (RFC 3758 section 3.6), when PR-SCTP
    /// was negotiated: the receiver skips what the peer abandoned, and a
    /// SACK reports the new cumulative TSN at once.
    pub(super) fn on_forward_tsn(
        &mut self,
        new_cum: u32,
        streams: &[(u16, u16)],
        src: IpAddr,
    ) -> Flow {
        if !matches!(
            self.state,
            State::Established | State::ShutdownPending | State::ShutdownSent
        ) {
            return Flow::Continue;
        }
        self.stats.forward_tsns_received += 1;
        self.receiver.on_forward_tsn(new_cum, streams);
        self.sack.now = true;
        self.sack.deadline = None;
        self.sack.dest = Some(src);
        Flow::Continue
    }
}
