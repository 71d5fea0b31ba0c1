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

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};

use super::{AssocId, Endpoint, EndpointStats, MAX_EVENTS, Meta};
use crate::Time;
use crate::association::{Association, Event};

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
    /// Looks the association and its [`Meta`] up once each (this runs for
    /// every packet received and most packets sent).
    pub(super) fn refresh_unarmed(&mut self, id: AssocId, now: Time) -> Option<u64> {
        self.visits += 1;
        let a = self.assocs.get_mut(&id)?;
        drain_into(id, a, &mut self.events, &mut self.meta, &mut self.stats);
        let holds_data = super::admission::holds_data_of(a);
        let m = self.meta.get_mut(&id)?;
        if holds_data {
            m.mark_active(now);
        }
        let seq = m.seq;
        note_closed(id, a, &mut self.closed, &mut self.finished);
        self.schedule.set_ready(id, seq);
        Some(seq)
    }

    /// Arms `id`'s deadline in the schedule: its earliest timer or its
    /// idle timeout.
    pub(super) fn arm_deadline(&mut self, id: AssocId, seq: u64) {
        let Some(a) = self.assocs.get(&id) else {
            return;
        };
        let deadline = deadline_of(a, self.idle_deadline(id));
        self.schedule.arm(id, seq, deadline);
    }

    /// `id`'s deadline: its earliest timer or its idle timeout.
    pub(super) fn deadline(&self, id: AssocId) -> Option<Time> {
        let a = self.assocs.get(&id)?;
        deadline_of(a, self.idle_deadline(id))
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
}

/// An association's deadline: its earliest timer, or its idle timeout
/// (`idle`, the endpoint's [`Endpoint::idle_deadline`]) while it is not
/// closed.
pub(super) fn deadline_of(a: &Association, idle: Option<Time>) -> Option<Time> {
    let deadline = a.poll_timeout();
    if a.is_closed() {
        return deadline;
    }
    match idle {
        Some(idle) => Some(deadline.map_or(idle, |t| t.min(idle))),
        None => deadline,
    }
}

/// Notes `id` (the association `a`, already looked up) closed, and maybe
/// to be forgotten, if it is. The endpoint's fields it changes are
/// passed apart, so that the caller keeps `a`.
pub(super) fn note_closed(
    id: AssocId,
    a: &Association,
    closed: &mut FxHashSet<AssocId>,
    finished: &mut Vec<AssocId>,
) {
    if a.is_closed() {
        closed.insert(id);
        if a.is_finished() {
            finished.push(id);
        }
    }
}

/// Moves `a`'s events to the endpoint's queue (bounded by [`MAX_EVENTS`],
/// the oldest dropped), counting them in each association's [`Meta`].
pub(super) fn drain_into(
    id: AssocId,
    a: &mut Association,
    events: &mut VecDeque<(AssocId, Event)>,
    meta: &mut FxHashMap<AssocId, Meta>,
    stats: &mut EndpointStats,
) {
    while let Some(e) = a.poll_event() {
        if events.len() >= MAX_EVENTS
            && let Some((old, _)) = events.pop_front()
        {
            stats.events_dropped += 1;
            if let Some(m) = meta.get_mut(&old) {
                m.queued_events -= 1;
            }
        }
        events.push_back((id, e));
        if let Some(m) = meta.get_mut(&id) {
            m.queued_events += 1;
        }
    }
}
