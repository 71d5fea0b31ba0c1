//! Looking at an association again after something happened to it
//! (a packet, a timer, the application): its events moved to the
//! endpoint's queue, its deadline re-armed in the [`super::schedule`],
//! its closing noted.
//!
//! `poll_transmit` refreshes the associations the application was handed
//! without arming their deadlines (`refresh_touched_unarmed`): it polls
//! them right after and arms them then; the ones it did not poll are
//! armed before it returns (`arm_unarmed`), unchanged since their
//! refresh, so as they would have been armed then. One computation of
//! the deadline per touched association and packet instead of two.

use super::{AssocId, Endpoint, MAX_EVENTS};
use crate::Time;

impl Endpoint {
    /// Looks at `id` again after something happened to it: drains its
    /// events, re-arms its deadline (its timers and the idle timeout),
    /// marks it as maybe having something to send, notes whether it
    /// closed.
    pub(super) fn refresh(&mut self, id: AssocId, now: Time) {
        if let Some(seq) = self.refresh_unarmed(id, now) {
            self.arm_deadline(id, seq);
        }
    }

    /// [`Self::refresh`] but for arming the deadline, which the caller
    /// does (`id`'s creation number returned) unless `id` is gone.
    pub(super) fn refresh_unarmed(&mut self, id: AssocId, now: Time) -> Option<u64> {
        self.visits += 1;
        self.drain_events(id);
        if self.holds_data(id) {
            self.mark_active(id, now);
        }
        let seq = self.meta.get(&id).map(|m| m.seq)?;
        self.note_closed(id);
        self.schedule.set_ready(id, seq);
        Some(seq)
    }

    /// Arms `id`'s deadline: its earliest timer or its idle timeout.
    pub(super) fn arm(&mut self, id: AssocId, seq: u64) {
        self.note_closed(id);
        self.arm_deadline(id, seq);
    }

    /// Notes `id` closed, and maybe to be forgotten, if it is.
    pub(super) fn note_closed(&mut self, id: AssocId) {
        if let Some(a) = self.assocs.get(&id)
            && a.is_closed()
        {
            self.closed.insert(id);
            if a.is_finished() {
                self.finished.push(id);
            }
        }
    }

    /// The schedule's part of [`Self::arm`].
    pub(super) fn arm_deadline(&mut self, id: AssocId, seq: u64) {
        if !self.assocs.contains_key(&id) {
            return;
        }
        let deadline = self.deadline(id);
        self.schedule.arm(id, seq, deadline);
    }

    /// `id`'s deadline: its earliest timer or its idle timeout.
    pub(super) fn deadline(&self, id: AssocId) -> Option<Time> {
        let a = self.assocs.get(&id)?;
        let deadline = a.poll_timeout();
        if a.is_closed() {
            return deadline;
        }
        match self.idle_deadline(id) {
            Some(idle) => Some(deadline.map_or(idle, |t| t.min(idle))),
            None => deadline,
        }
    }

    /// Refreshes the associations the application was handed.
    pub(super) fn refresh_touched(&mut self, now: Time) {
        self.refresh_touched_unarmed(now);
        self.arm_unarmed();
    }

    /// [`Self::refresh_touched`] leaving the deadlines to arm in
    /// `unarmed` ([`Self::arm_unarmed`] arms them).
    pub(super) fn refresh_touched_unarmed(&mut self, now: Time) {
        if self.schedule.touched().is_empty() {
            return;
        }
        let mut ids = std::mem::take(&mut self.touched_buf);
        self.schedule.take_touched_into(&mut ids);
        for &id in &ids {
            if let Some(seq) = self.refresh_unarmed(id, now) {
                self.unarmed.push((id, seq));
            }
        }
        self.touched_buf = ids;
    }

    /// Arms the deadlines left in `unarmed`. Nothing reads a deadline
    /// between `refresh_touched_unarmed` and this call, and an
    /// association's deadline depends only on its state and activity
    /// time, so it is armed as it would have been then.
    pub(super) fn arm_unarmed(&mut self) {
        if self.unarmed.is_empty() {
            return;
        }
        let mut list = std::mem::take(&mut self.unarmed);
        for &(id, seq) in &list {
            self.arm_deadline(id, seq);
        }
        list.clear();
        self.unarmed = list;
    }

    pub(super) fn drain_events(&mut self, id: AssocId) {
        let Some(a) = self.assocs.get_mut(&id) else {
            return;
        };
        while let Some(e) = a.poll_event() {
            if self.events.len() >= MAX_EVENTS
                && let Some((old, _)) = self.events.pop_front()
            {
                self.stats.events_dropped += 1;
                if let Some(m) = self.meta.get_mut(&old) {
                    m.queued_events -= 1;
                }
            }
            self.events.push_back((id, e));
            if let Some(m) = self.meta.get_mut(&id) {
                m.queued_events += 1;
            }
        }
    }
}
