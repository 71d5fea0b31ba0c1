//! The endpoint's schedule: which association's timer is due next and
//! which associations may have something to send, kept up to date as
//! each association is touched, so that no call of the endpoint walks
//! every association (issue 31: a server with 10 000 associations).
//!
//! Timers are a binary heap of (deadline, creation number, id) with lazy
//! invalidation: `armed` holds each association's current deadline, and a
//! heap entry that disagrees with it is stale and skipped when it comes
//! to the top. The heap is rebuilt from `armed` when stale entries
//! outnumber the live ones, so it stays within twice the associations.
//!
//! The ready set holds the associations that may have a packet to send
//! (touched by a packet, a timer or the application since their last
//! fruitless poll), by creation number: `poll_transmit` serves them
//! round robin from the one after the last that sent, as it served every
//! association in creation order before.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::{FxHashMap, FxHashSet};

use super::AssocId;
use super::ready::ReadySet;
use crate::Time;

/// Touched associations up to this many are found by a look through the
/// list rather than by hashing.
const FEW_TOUCHED: usize = 8;

/// See the module documentation.
#[derive(Debug, Clone, Default)]
pub(super) struct Schedule {
    heap: BinaryHeap<Reverse<(Time, u64, AssocId)>>,
    armed: FxHashMap<AssocId, (Time, u64)>,
    ready: ReadySet,
    /// Creation number after the last association that sent.
    cursor: u64,
    /// Handed to the application mutably since last refreshed.
    touched: Vec<AssocId>,
    /// The ids of `touched` once it has [`FEW_TOUCHED`] or more (empty
    /// before).
    touched_set: FxHashSet<AssocId>,
}

impl Schedule {
    /// Sets `id`'s deadline (`seq` its creation number).
    /// Re-arming the deadline already armed (most calls: the endpoint
    /// re-arms after every packet) changes nothing, and leaves the heap's
    /// top live as it was.
    pub(super) fn arm(&mut self, id: AssocId, seq: u64, deadline: Option<Time>) {
        let changed = match deadline {
            Some(t) => {
                // One lookup whether or not it changed.
                let changed = match self.armed.get_mut(&id) {
                    Some(v) if *v == (t, seq) => false,
                    Some(v) => {
                        *v = (t, seq);
                        true
                    }
                    None => {
                        self.armed.insert(id, (t, seq));
                        true
                    }
                };
                if changed {
                    if self.armed.len() == 1 {
                        // The only deadline armed (the simulator's
                        // endpoints hold one association each): every
                        // other entry is stale, dropped at once.
                        self.heap.clear();
                    }
                    self.heap.push(Reverse((t, seq, id)));
                }
                changed
            }
            None => {
                let changed = self.armed.remove(&id).is_some();
                if self.armed.is_empty() {
                    self.heap.clear();
                }
                changed
            }
        };
        if !changed {
            return;
        }
        if self.heap.len() > 2 * self.armed.len() + 64 {
            self.heap = self
                .armed
                .iter()
                .map(|(id, (t, seq))| Reverse((*t, *seq, *id)))
                .collect();
        }
        self.prune();
    }

    /// Takes `id`'s deadline out (computed elsewhere until armed again).
    pub(super) fn disarm(&mut self, id: AssocId) {
        self.arm(id, 0, None);
    }

    /// Drops stale entries from the top, so that `next` reads a live one.
    fn prune(&mut self) {
        while let Some(Reverse((t, seq, id))) = self.heap.peek() {
            if self.armed.get(id) == Some(&(*t, *seq)) {
                break;
            }
            self.heap.pop();
        }
    }

    /// The earliest deadline armed.
    pub(super) fn next(&self) -> Option<Time> {
        self.heap.peek().map(|Reverse((t, _, _))| *t)
    }

    /// Takes the associations whose deadline is at or before `now`, in
    /// creation order; their deadlines are disarmed (the caller re-arms).
    pub(super) fn take_due(&mut self, now: Time) -> Vec<(u64, AssocId)> {
        let mut due = Vec::new();
        while let Some(Reverse((t, seq, id))) = self.heap.peek().copied() {
            if t > now {
                break;
            }
            self.heap.pop();
            if self.armed.get(&id) == Some(&(t, seq)) {
                self.armed.remove(&id);
                due.push((seq, id));
            }
            self.prune();
        }
        due.sort_unstable();
        due
    }

    /// `id` may have something to send.
    pub(super) fn set_ready(&mut self, id: AssocId, seq: u64) {
        self.ready.insert(seq, id);
    }

    /// The next association that may have something to send: the first
    /// ready one from the cursor on, wrapping around.
    pub(super) fn next_ready(&self) -> Option<(u64, AssocId)> {
        self.ready.first_from(self.cursor)
    }

    /// `seq` sent a packet: the next poll starts after it.
    pub(super) fn sent(&mut self, seq: u64) {
        self.cursor = seq + 1;
    }

    /// `seq` had nothing to send.
    pub(super) fn not_ready(&mut self, seq: u64) {
        self.ready.remove(seq);
    }

    pub(super) fn ready_ids(&self) -> impl Iterator<Item = AssocId> + '_ {
        self.ready.ids()
    }

    /// The application was handed `id` mutably: it may have changed
    /// anything. A few touched ones are looked for in the list itself
    /// (the simulator touches one association between two polls); the
    /// set, which then holds the same ids, from [`FEW_TOUCHED`] on.
    pub(super) fn touch(&mut self, id: AssocId) {
        if self.touched.len() < FEW_TOUCHED {
            if !self.touched.contains(&id) {
                self.touched.push(id);
                if self.touched.len() == FEW_TOUCHED {
                    self.touched_set.extend(self.touched.iter().copied());
                }
            }
            return;
        }
        if self.touched_set.insert(id) {
            self.touched.push(id);
        }
    }

    pub(super) fn touched(&self) -> &[AssocId] {
        &self.touched
    }

    /// Moves the touched ones into `out` (emptied first); both keep their
    /// memory, so that a refresh per packet allocates nothing.
    pub(super) fn take_touched_into(&mut self, out: &mut Vec<AssocId>) {
        self.touched_set.clear();
        out.clear();
        out.append(&mut self.touched);
    }

    /// Forgets `id`.
    pub(super) fn remove(&mut self, id: AssocId, seq: u64) {
        self.armed.remove(&id);
        self.ready.remove(seq);
        self.prune();
    }

    /// Heap entries (live and stale), for the bound test.
    #[cfg(test)]
    fn heap_len(&self) -> usize {
        self.heap.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_deadlines_are_skipped_and_the_heap_stays_bounded() {
        let mut s = Schedule::default();
        let t = Time::from_millis;
        s.arm(AssocId(1), 1, Some(t(50)));
        s.arm(AssocId(2), 2, Some(t(20)));
        // 2 moves later: its old entry is stale and no longer the next.
        s.arm(AssocId(2), 2, Some(t(80)));
        assert_eq!(s.next(), Some(t(50)));
        // Deadlines re-armed over and over do not grow the heap.
        for k in 0..10_000 {
            s.arm(AssocId(1), 1, Some(t(100 + k)));
        }
        assert!(s.heap_len() <= 2 * 2 + 64 + 1, "{}", s.heap_len());
        assert_eq!(s.next(), Some(t(80)));
        // Due ones come in creation order, once each, and are disarmed.
        s.arm(AssocId(1), 1, Some(t(70)));
        assert_eq!(s.take_due(t(90)), vec![(1, AssocId(1)), (2, AssocId(2))]);
        assert_eq!(s.next(), None);
        assert!(s.take_due(t(1000)).is_empty());
        s.arm(AssocId(3), 3, None);
        assert_eq!(s.next(), None);
    }

    #[test]
    fn touched_ones_are_listed_once_each() {
        let mut s = Schedule::default();
        let mut out = Vec::new();
        for round in [3u32, 20] {
            for _ in 0..3 {
                for k in 1..=round {
                    s.touch(AssocId(k));
                }
            }
            let want: Vec<AssocId> = (1..=round).map(AssocId).collect();
            assert_eq!(s.touched(), &want[..]);
            s.take_touched_into(&mut out);
            assert_eq!(out, want);
            assert!(s.touched().is_empty());
        }
        s.touch(AssocId(9));
        assert_eq!(s.touched(), &[AssocId(9)]);
    }

    #[test]
    fn a_lone_deadline_keeps_the_heap_at_one_entry() {
        let mut s = Schedule::default();
        let t = Time::from_millis;
        for k in 0..100 {
            s.arm(AssocId(1), 1, Some(t(1000 - k)));
            assert_eq!(s.heap_len(), 1);
            assert_eq!(s.next(), Some(t(1000 - k)));
        }
        // A second one: both live, the earlier first.
        s.arm(AssocId(2), 2, Some(t(5)));
        assert_eq!(s.next(), Some(t(5)));
        s.arm(AssocId(2), 2, None);
        assert_eq!(s.next(), Some(t(901)));
        s.arm(AssocId(1), 1, None);
        assert_eq!((s.next(), s.heap_len()), (None, 0));
        assert!(s.take_due(t(10_000)).is_empty());
    }

    #[test]
    fn ready_ones_are_served_round_robin_from_after_the_last_sender() {
        let mut s = Schedule::default();
        for k in 1..=3 {
            s.set_ready(AssocId(k), u64::from(k));
        }
        assert_eq!(s.next_ready(), Some((1, AssocId(1))));
        s.sent(1);
        assert_eq!(s.next_ready(), Some((2, AssocId(2))));
        s.not_ready(2);
        assert_eq!(s.next_ready(), Some((3, AssocId(3))));
        s.sent(3);
        // Wraps around.
        assert_eq!(s.next_ready(), Some((1, AssocId(1))));
        s.remove(AssocId(1), 1);
        assert_eq!(s.next_ready(), Some((3, AssocId(3))));
        // The only one left, before the cursor: served again.
        s.sent(3);
        s.not_ready(3);
        s.set_ready(AssocId(1), 1);
        assert_eq!(s.next_ready(), Some((1, AssocId(1))));
        s.not_ready(1);
        assert_eq!(s.next_ready(), None);
    }
}
