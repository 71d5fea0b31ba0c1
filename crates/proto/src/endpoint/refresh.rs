//! Looking at an association again after something happened to it
//! (a packet, a timer, the application): its events moved to the
//! endpoint's queue, its deadline left to compute, its closing noted.
//!
//! An association's deadline (its earliest timer or its idle timeout) is
//! not armed in the [`super::schedule`] at each refresh: the association
//! is disarmed there and listed as *deferred*, and its deadline computed
//! when it is asked for ([`Endpoint::poll_timeout`]), armed when the
//! schedule is read mutably (`handle_timeout`), and frozen at its value
//! when what it depends on is about to change outside a refresh (the
//! application is handed the association, an idle check marks it
//! active): until the next refresh the frozen value stands, as an armed
//! deadline did. A packet handled and its answers sent used to compute
//! the deadline once per packet and once more for the poll that found
//! nothing; now once when the caller asks (and once when the
//! application is handed the association). The deadline depends only on
//! the association's state and its activity time, which change only at
//! a refresh or at the points that freeze it first, so every answer is
//! the one the deadline armed at the last refresh gave. At most
//! [`FEW_DEFERRED`] are deferred (a server with many associations): past
//! that they are all armed, so no call walks every association.

use std::collections::VecDeque;

use rustc_hash::FxHashSet;

use super::table::IdMap;
use super::{AssocId, Endpoint, EndpointStats, MAX_EVENTS, Meta};
use crate::Time;
use crate::association::{Association, Event};

/// Deferred deadlines up to this many; one more arms them all.
const FEW_DEFERRED: usize = 8;

/// An association whose deadline is not armed in the schedule.
#[derive(Debug, Clone, Copy)]
pub(super) struct Deferred {
    pub(super) id: AssocId,
    /// Its creation number.
    seq: u64,
    /// Its deadline as it stood when something it depends on was about
    /// to change outside a refresh (the application was handed the
    /// association, an idle check marked it active): until the next
    /// refresh, the deadline an armed schedule would hold. `None`:
    /// computed when asked for.
    frozen: Option<Option<Time>>,
}

impl Endpoint {
    /// Looks at `id` again after something happened to it: drains its
    /// events, defers its deadline (its timers and the idle timeout),
    /// marks it as maybe having something to send, notes whether it
    /// closed.
    pub(super) fn refresh(&mut self, id: AssocId, now: Time) {
        if let Some(seq) = self.refresh_unarmed(id, now) {
            self.defer_deadline(id, seq);
        }
    }

    /// [`Self::refresh`] but for the deadline, which the caller defers
    /// (`id`'s creation number returned) unless `id` is gone.
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

    /// Leaves `id`'s deadline (`seq` its creation number) to be computed
    /// when asked for: disarmed in the schedule, listed in `deferred`
    /// (its frozen value, if it had one, dropped: it was refreshed).
    pub(super) fn defer_deadline(&mut self, id: AssocId, seq: u64) {
        if let Some(d) = self.deferred.iter_mut().find(|d| d.id == id) {
            // Not armed since it was deferred.
            d.frozen = None;
            return;
        }
        if self.deferred.len() >= FEW_DEFERRED {
            self.settle_deadlines();
        }
        self.schedule.disarm(id);
        self.deferred.push(Deferred {
            id,
            seq,
            frozen: None,
        });
    }

    /// Arms every deferred deadline (frozen ones at their frozen value).
    pub(super) fn settle_deadlines(&mut self) {
        if self.deferred.is_empty() {
            return;
        }
        let mut list = std::mem::take(&mut self.deferred);
        for d in &list {
            let deadline = d.frozen.unwrap_or_else(|| self.deadline(d.id));
            if self.assocs.contains_key(&d.id) {
                self.schedule.arm(d.id, d.seq, deadline);
            }
        }
        list.clear();
        self.deferred = list;
    }

    /// Freezes `id`'s deadline at its present value if it is deferred:
    /// what it depends on is about to change outside a refresh, and until
    /// the next refresh it is the value an armed deadline would keep.
    pub(super) fn freeze_deadline_of(&mut self, id: AssocId) {
        let Some(k) = self.deferred.iter().position(|d| d.id == id) else {
            return;
        };
        if self.deferred[k].frozen.is_none() {
            self.deferred[k].frozen = Some(self.deadline(id));
        }
    }

    /// Freezes every deferred deadline ([`Self::freeze_deadline_of`]).
    pub(super) fn freeze_deadlines(&mut self) {
        for k in 0..self.deferred.len() {
            let id = self.deferred[k].id;
            self.freeze_deadline_of(id);
        }
    }

    /// `id`'s deadline: its earliest timer or its idle timeout.
    pub(super) fn deadline(&self, id: AssocId) -> Option<Time> {
        let a = self.assocs.get(&id)?;
        deadline_of(a, self.idle_deadline(id))
    }

    /// The earliest deferred deadline (frozen ones at their frozen value).
    pub(super) fn deferred_deadline(&self) -> Option<Time> {
        let each = self.deferred.iter().filter_map(|d| match d.frozen {
            Some(f) => f,
            None => self.deadline(d.id),
        });
        each.min()
    }

    /// Refreshes the associations the application was handed.
    pub(super) fn refresh_touched(&mut self, now: Time) {
        if self.schedule.touched().is_empty() {
            return;
        }
        let mut ids = std::mem::take(&mut self.touched_buf);
        self.schedule.take_touched_into(&mut ids);
        for &id in &ids {
            self.refresh(id, now);
        }
        self.touched_buf = ids;
    }

    /// The application is handed `id` (it may change anything): its
    /// deadline frozen as it stands, then `id` touched, so that
    /// [`Endpoint::poll_timeout`] answers as it did when every refresh
    /// armed the deadline at once.
    pub(super) fn touch(&mut self, id: AssocId) {
        self.freeze_deadline_of(id);
        self.schedule.touch(id);
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
    meta: &mut IdMap<Meta>,
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

#[cfg(test)]
mod tests {
    use std::net::IpAddr;
    use std::time::Duration;

    use bytes::Bytes;

    use super::*;
    use crate::EndpointConfig;

    /// The reference: the earliest deadline the associations' state gives
    /// now, what a schedule armed at every refresh holds while nothing was
    /// handed to the application since.
    fn armed_now(ep: &Endpoint) -> Option<Time> {
        let ids = ep.associations().into_iter();
        ids.filter_map(|id| ep.deadline(id)).min()
    }

    /// A server with more clients than [`FEW_DEFERRED`] and than its
    /// table holds (an idle timeout, reclaiming): whenever asked, `poll_timeout` answers
    /// what deadlines armed at every refresh gave; with an association
    /// handed out and changed since, the earlier of its deadline before
    /// and after (the schedule kept the one armed before).
    #[test]
    fn deferred_deadlines_answer_as_armed_ones() {
        let server: IpAddr = "10.0.0.100".parse().unwrap();
        let mut cfg = EndpointConfig::new(5000);
        cfg.listen = true;
        cfg.idle_timeout = Some(Duration::from_millis(900));
        cfg.max_associations = 10;
        cfg.reclaim_idle_after = Some(Duration::from_millis(150));
        let mut eps = vec![Endpoint::new(cfg, [9; 32]).unwrap()];
        eps[0].set_local_addresses(&[server]);
        let addrs: Vec<IpAddr> = (1..=12u8).map(|k| IpAddr::from([10, 0, 0, k])).collect();
        let mut ids = Vec::new();
        for (k, addr) in addrs.iter().enumerate() {
            let mut ep = Endpoint::new(EndpointConfig::new(4000), [k as u8; 32]).unwrap();
            ep.set_local_addresses(&[*addr]);
            // The last two come once the others have gone idle.
            if k < 10 {
                ids.push(ep.connect(Time::ZERO, &[server], 5000).ok());
            } else {
                ids.push(None);
            }
            eps.push(ep);
        }
        let addr_of = |i: usize| if i == 0 { server } else { addrs[i - 1] };
        let mut wire: Vec<(usize, IpAddr, IpAddr, Bytes)> = Vec::new();
        for step in 0..400u64 {
            let now = Time::from_millis(step * 7);
            if step == 300 {
                for k in 11..=12 {
                    ids[k - 1] = eps[k].connect(now, &[server], 5000).ok();
                }
            }
            for (to, src, dst, data) in std::mem::take(&mut wire) {
                eps[to].handle_datagram(now, src, dst, data);
            }
            for (i, ep) in eps.iter_mut().enumerate() {
                if ep.poll_timeout().is_some_and(|t| t <= now) {
                    ep.handle_timeout(now);
                }
                // Each client's application sends every third step.
                if i > 0 && (step + i as u64).is_multiple_of(3) && step < 250 {
                    let before = ep.poll_timeout();
                    assert_eq!(before, armed_now(ep), "step {step} client {i}");
                    let Some(id) = ids[i - 1] else {
                        // Not connected yet: nothing else to do either.
                        continue;
                    };
                    if let Some(a) = ep.association_mut(id) {
                        let _ = a.send(0, 0, Bytes::from_static(&[7; 300]), false);
                    }
                    let after = ep.deadline(id);
                    let want = match (before, after) {
                        (Some(b), Some(a)) => Some(b.min(a)),
                        (b, a) => b.or(a),
                    };
                    assert_eq!(ep.poll_timeout(), want, "step {step} client {i}");
                }
                if i == 0 {
                    // The server's application reads everything.
                    for id in ep.associations() {
                        if let Some(a) = ep.association_mut(id) {
                            while a.recv().is_some() {}
                        }
                    }
                }
                while let Some(t) = ep.poll_transmit(now) {
                    let src = t.source.unwrap_or(addr_of(i));
                    let to = if i == 0 {
                        addrs.iter().position(|a| *a == t.destination).unwrap() + 1
                    } else {
                        0
                    };
                    wire.push((to, src, t.destination, Bytes::copy_from_slice(t.packet())));
                }
                while ep.poll_event().is_some() {}
                assert_eq!(ep.poll_timeout(), armed_now(ep), "step {step} endpoint {i}");
            }
        }
        // Idle ones were reclaimed for the clients beyond the table's
        // room, and timed out.
        let st = eps[0].stats();
        assert!(st.associations_created > 10, "{st:?}");
        assert!(st.reclaimed > 0 && st.idle_timeouts > 0, "{st:?}");
    }
}
