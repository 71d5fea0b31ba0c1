//! The propagation stage of a channel: packets in flight, in FIFO order.
//!
//! A channel never reorders: an item's arrival time is at least the
//! previous item's (if the delay is lowered at run time, a packet waits for
//! the one ahead of it). Only the head of the pipe has an arrival event in
//! the scheduler, so the event queue does not grow with the bandwidth-delay
//! product. Events carry a generation number; an event whose generation is
//! stale (the pipe was purged or re-armed earlier) is ignored.

use std::collections::VecDeque;

use crate::Time;

#[derive(Debug, Clone)]
pub struct Pipe<T> {
    items: VecDeque<(Time, T)>,
    /// Time and generation of the one pending arrival event, if any.
    armed: Option<(Time, u32)>,
    generation: u32,
}

impl<T> Default for Pipe<T> {
    fn default() -> Self {
        Pipe {
            items: VecDeque::new(),
            armed: None,
            generation: 0,
        }
    }
}

impl<T> Pipe<T> {
    /// Adds an item due at `at` (pushed later if an earlier item is due
    /// later). Returns `(time, generation)` of an arrival event the caller
    /// must schedule, if one is needed.
    #[must_use]
    pub fn push(&mut self, at: Time, item: T) -> Option<(Time, u32)> {
        let at = self.items.back().map_or(at, |(last, _)| at.max(*last));
        self.items.push_back((at, item));
        self.arm()
    }

    /// Called by the arrival event of generation `generation` at `now`:
    /// false if the event is stale.
    pub fn fire(&mut self, generation: u32) -> bool {
        match self.armed {
            Some((_, g)) if g == generation => {
                self.armed = None;
                true
            }
            _ => false,
        }
    }

    /// Next item due at or before `now`.
    pub fn pop_due(&mut self, now: Time) -> Option<T> {
        if self.items.front().is_some_and(|(t, _)| *t <= now) {
            self.items.pop_front().map(|(_, it)| it)
        } else {
            None
        }
    }

    /// After popping: the arrival event to schedule for the new head.
    #[must_use]
    pub fn arm(&mut self) -> Option<(Time, u32)> {
        let head = self.items.front()?.0;
        match self.armed {
            Some((t, _)) if t <= head => None,
            _ => {
                self.generation = self.generation.wrapping_add(1);
                self.armed = Some((head, self.generation));
                self.armed
            }
        }
    }

    /// Removes the items matching `remove` (returns them in order). A
    /// pending event for a removed head fires and finds nothing due.
    pub fn extract_if(&mut self, mut remove: impl FnMut(&T) -> bool) -> Vec<T> {
        let mut out = Vec::new();
        let mut keep = VecDeque::with_capacity(self.items.len());
        for (t, it) in self.items.drain(..) {
            if remove(&it) {
                out.push(it)
            } else {
                keep.push_back((t, it))
            }
        }
        self.items = keep;
        out
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(n: u64) -> Time {
        Time::from_nanos(n)
    }

    #[test]
    fn one_event_for_the_head_only() {
        let mut p = Pipe::default();
        let ev = p.push(t(10), 'a').unwrap();
        assert_eq!(ev.0, t(10));
        assert!(p.push(t(12), 'b').is_none());
        assert!(p.fire(ev.1));
        assert_eq!(p.pop_due(t(10)), Some('a'));
        assert_eq!(p.pop_due(t(10)), None);
        let ev2 = p.arm().unwrap();
        assert_eq!(ev2.0, t(12));
        assert!(!p.fire(ev.1), "old generation is stale");
        assert!(p.fire(ev2.1));
        assert_eq!(p.pop_due(t(12)), Some('b'));
        assert!(p.arm().is_none());
    }

    #[test]
    fn fifo_even_if_delay_drops() {
        let mut p = Pipe::default();
        let _ = p.push(t(100), 1);
        let _ = p.push(t(50), 2);
        assert_eq!(p.pop_due(t(99)), None);
        assert_eq!(p.pop_due(t(100)), Some(1));
        assert_eq!(p.pop_due(t(100)), Some(2));
    }

    #[test]
    fn purge_then_earlier_push_rearms() {
        let mut p = Pipe::default();
        let old = p.push(t(100), 1).unwrap();
        assert_eq!(p.extract_if(|_| true), [1]);
        // A new item due earlier than the stale event gets its own event.
        let new = p.push(t(60), 2).unwrap();
        assert_eq!(new.0, t(60));
        assert!(!p.fire(old.1));
        assert!(p.fire(new.1));
        assert_eq!(p.pop_due(t(60)), Some(2));
    }
}
