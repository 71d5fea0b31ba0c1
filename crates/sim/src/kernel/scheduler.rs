//! The event queue: a radix heap on event times, with the events due at
//! the current instant in a FIFO; keys are (time, insertion sequence).
//!
//! Two events due at the same instant run in the order they were scheduled,
//! so a run never depends on the queue's internal layout. The queue is
//! generic over the event payload so it can be tested on its own. Events
//! kept in another queue (agent timers, [`crate::kernel::timer`]) take
//! their key from this one ([`Scheduler::reserve`]), so the two merge into
//! one order.
//!
//! A discrete-event simulation never schedules before the event it is
//! running: every key pushed is above the key last popped. A radix heap
//! (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for the shortest
//! path problem", J. ACM 37(2), 1990) uses that: an entry sits in the
//! bucket of the highest bit in which its time differs from the time of
//! the last key popped, so every time of a lower bucket is below every
//! time of a higher one, and a pop refiles only the rest of the lowest
//! non-empty bucket, each entry into a strictly lower bucket. It pops the
//! same minimum a heap pops (keys are unique), with fewer moves of the
//! entries than the 4-ary heap it replaced (whose `pop` was the largest
//! single function of a run's profile).
//!
//! The buckets are over the time alone (64 bits, not the 128 of the
//! key): entries due at the instant of the last key popped are kept apart,
//! in key order, in a FIFO. Those refiled there when the clock reaches
//! their instant were all scheduled before it did, so each later push at
//! that instant (a higher sequence number than any queued) goes to the
//! back; the FIFO pops from the front. An entry therefore never moves
//! through buckets of sequence-number bits, and one bucket index is one
//! 64-bit operation. A key below the last popped (a caller scheduling in
//! the past) is still ordered exactly: the buckets are rebuilt around it.

use std::collections::VecDeque;

use crate::Time;

/// `key` is `time_ns << 64 | seq`: one integer comparison orders by time,
/// then insertion sequence.
type Entry<E> = (u128, E);

/// The time of an event key.
pub fn key_time(key: u128) -> Time {
    Time::from_nanos((key >> 64) as u64)
}

/// The time of a key in nanoseconds.
#[inline(always)]
fn time_ns(key: u128) -> u64 {
    (key >> 64) as u64
}

/// Bucket of time `t` relative to the bound's time `last` (below it): the
/// highest bit in which they differ, 0..=63.
#[inline(always)]
fn bucket_of(last: u64, t: u64) -> usize {
    (63 ^ (t ^ last).leading_zeros()) as usize & 63
}

/// A deterministic priority queue of events.
pub struct Scheduler<E> {
    /// The entries due at the bound's instant, in key order.
    now: VecDeque<Entry<E>>,
    /// Bucket `b` holds the entries whose time's highest bit differing
    /// from the bound's time is bit `b` (their time is above it): every
    /// time of a bucket is below every time of a higher one.
    buckets: Box<[Vec<Entry<E>>; 64]>,
    /// The smallest key of each non-empty bucket and its index there, so
    /// that the next event is found without scanning a bucket: a bucket
    /// far ahead (events scheduled long before they fall due) would
    /// otherwise be scanned again each time the buckets below it empty.
    mins: Box<[(u128, usize); 64]>,
    /// Bit `b` set when bucket `b` is not empty.
    nonempty: u64,
    /// Not above any key queued: the last key popped, or the key the
    /// buckets were rebuilt around.
    last: u128,
    len: usize,
    next_seq: u64,
}

impl<E> Default for Scheduler<E> {
    fn default() -> Self {
        Scheduler {
            now: VecDeque::new(),
            buckets: Box::new(std::array::from_fn(|_| Vec::new())),
            mins: Box::new([(0, 0); 64]),
            nonempty: 0,
            last: 0,
            len: 0,
            next_seq: 0,
        }
    }
}

impl<E> Scheduler<E> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `event` at `time` (inlined into each caller: the call's
    /// own cost was a fifth of the push).
    #[inline(always)]
    pub fn push(&mut self, time: Time, event: E) {
        let key = self.reserve(time);
        if key < self.last {
            self.rebuild_below(key);
        }
        // Of the bound's instant, the key is higher than any queued: the
        // FIFO's new back, in order.
        self.file_relative(time_ns(self.last), key, event);
        self.len += 1;
    }

    /// The key (`time_ns << 64 | seq`) an event scheduled now at `time`
    /// would have, for an event kept elsewhere: it counts as scheduled.
    pub fn reserve(&mut self, time: Time) -> u128 {
        let seq = self.next_seq;
        self.next_seq += 1;
        (u128::from(time.as_nanos()) << 64) | u128::from(seq)
    }

    /// Appends an entry to bucket `b` and updates the bucket's minimum.
    #[inline(always)]
    fn file(&mut self, b: usize, key: u128, event: E) {
        let v = &mut self.buckets[b];
        v.push((key, event));
        let at = v.len() - 1;
        // Bit `b` of `nonempty` is set exactly when bucket `b` is not
        // empty, so an entry at index 0 found the bucket empty.
        if at == 0 {
            self.mins[b] = (key, 0);
            self.nonempty |= 1u64 << b;
        } else if key < self.mins[b].0 {
            self.mins[b] = (key, at);
        }
    }

    /// Files an entry relative to the bound's time `last` (its key not
    /// below the bound): at the FIFO's back if of the bound's instant
    /// (a caller refiling several restores the FIFO's key order), else in
    /// its bucket.
    #[inline(always)]
    fn file_relative(&mut self, last: u64, key: u128, event: E) {
        let t = time_ns(key);
        if t == last {
            self.now.push_back((key, event));
        } else {
            self.file(bucket_of(last, t), key, event);
        }
    }

    /// Makes `key` (below `last`: scheduled in the past) the bound: every
    /// entry is filed again relative to it.
    #[cold]
    fn rebuild_below(&mut self, key: u128) {
        let mut all: Vec<Entry<E>> = Vec::with_capacity(self.len);
        all.extend(self.now.drain(..));
        for v in self.buckets.iter_mut() {
            all.append(v);
        }
        self.nonempty = 0;
        self.last = key;
        let last = time_ns(key);
        for (k, e) in all {
            self.file_relative(last, k, e);
        }
        self.now.make_contiguous().sort_unstable_by_key(|e| e.0);
    }

    /// The time of the next event.
    pub fn peek_time(&self) -> Option<Time> {
        self.peek_key().map(key_time)
    }

    /// The key of the next event.
    #[inline]
    pub fn peek_key(&self) -> Option<u128> {
        if let Some(e) = self.now.front() {
            return Some(e.0);
        }
        if self.nonempty == 0 {
            return None;
        }
        Some(self.mins[self.nonempty.trailing_zeros() as usize].0)
    }

    /// Removes and returns the next event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        if let Some((key, event)) = self.now.pop_front() {
            // Of the bound's instant: below every bucket's entries.
            self.len -= 1;
            self.last = key;
            return Some((key_time(key), event));
        }
        if self.nonempty == 0 {
            return None;
        }
        let b = self.nonempty.trailing_zeros() as usize;
        let (key, idx) = self.mins[b];
        self.len -= 1;
        let v = &mut self.buckets[b];
        let (_, event) = v.swap_remove(idx);
        if v.is_empty() {
            // The bucket held the popped entry alone (the usual case): the
            // others keep their buckets relative to the popped time.
            self.nonempty &= !(1u64 << b);
            self.last = key;
            return Some((key_time(key), event));
        }
        self.last = key;
        self.nonempty &= !(1u64 << b);
        self.refile_bucket(b);
        Some((key_time(key), event))
    }

    /// Moves the rest of bucket `b` (the lowest, whose minimum was just
    /// popped and is now the bound) to lower buckets relative to the
    /// popped time, or to the FIFO if due at it; higher buckets keep
    /// theirs (their times differ from it in the same highest bit as from
    /// the previous bound). The FIFO was empty (bucket `b` was the lowest
    /// entry): the entries refiled there are put in key order; each
    /// bucket's minimum is kept, and keys are unique.
    #[inline(never)]
    fn refile_bucket(&mut self, b: usize) {
        let mut rest = std::mem::take(&mut self.buckets[b]);
        let last = time_ns(self.last);
        for (k, e) in rest.drain(..) {
            debug_assert!(
                time_ns(k) == last || bucket_of(last, time_ns(k)) < b,
                "a bucket's entries move to lower buckets"
            );
            self.file_relative(last, k, e);
        }
        // The emptied vector keeps its capacity for the bucket.
        self.buckets[b] = rest;
        if self.now.len() > 1 {
            self.now.make_contiguous().sort_unstable_by_key(|e| e.0);
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of events ever scheduled.
    pub fn scheduled(&self) -> u64 {
        self.next_seq
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_insertion() {
        let mut s = Scheduler::new();
        s.push(Time::from_nanos(5), "c");
        s.push(Time::from_nanos(1), "a");
        s.push(Time::from_nanos(5), "d");
        s.push(Time::from_nanos(1), "b");
        s.push(Time::from_nanos(3), "x");
        let order: Vec<_> = std::iter::from_fn(|| s.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, ["a", "b", "x", "c", "d"]);
    }

    #[test]
    fn a_reserved_key_falls_between_the_events_scheduled_around_it() {
        let mut s = Scheduler::new();
        s.push(Time::from_nanos(5), "a");
        let k = s.reserve(Time::from_nanos(5));
        s.push(Time::from_nanos(5), "b");
        assert_eq!(key_time(k), Time::from_nanos(5));
        assert!(s.peek_key().unwrap() < k);
        s.pop();
        assert!(s.peek_key().unwrap() > k);
        assert_eq!(s.scheduled(), 3);
    }

    /// Any mix of pushes and pops gives what a sorted list gives.
    #[test]
    fn pops_follow_time_then_insertion_order_under_any_interleaving() {
        use proptest::prelude::*;
        proptest!(|(ops in proptest::collection::vec(proptest::option::of(0u64..20), 0..400))| {
            let mut s = Scheduler::new();
            let mut model: Vec<(u64, u32)> = Vec::new();
            for (i, op) in ops.into_iter().enumerate() {
                match op {
                    Some(t) => {
                        s.push(Time::from_nanos(t), i as u32);
                        model.push((t, i as u32));
                    }
                    None => {
                        model.sort();
                        let want = (!model.is_empty()).then(|| model.remove(0));
                        let got = s.pop().map(|(t, e)| (t.as_nanos(), e));
                        prop_assert_eq!(got, want);
                    }
                }
                prop_assert_eq!(s.len(), model.len());
            }
        });
    }

    /// A simulation's pattern: each pop followed by pushes at the popped
    /// time or later (delays up to 2^40 ns, so keys spread over many
    /// buckets); the pops follow a sorted map of the same keys.
    #[test]
    fn pushes_after_each_pop_are_popped_in_key_order() {
        use proptest::prelude::*;
        proptest!(|(ops in proptest::collection::vec((0u64..3, 0u64..1 << 40), 0..2000))| {
            let mut s = Scheduler::new();
            let mut model = std::collections::BTreeMap::new();
            let mut seq = 0u64;
            let mut now = 0u64;
            for (n, d) in ops {
                for _ in 0..n {
                    s.push(Time::from_nanos(now + d), seq);
                    model.insert((now + d, seq), ());
                    seq += 1;
                }
                pop_as_the_model(&mut s, &mut model, &mut now)?;
            }
        });
    }

    /// One pop from the scheduler and from the sorted map it is checked
    /// against: the same key, the same length after; `now` moves to it.
    fn pop_as_the_model(
        s: &mut Scheduler<u64>,
        model: &mut std::collections::BTreeMap<(u64, u64), ()>,
        now: &mut u64,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        use proptest::prelude::*;
        let want = model.pop_first().map(|(k, ())| k);
        let got = s.pop().map(|(t, e)| (t.as_nanos(), e));
        prop_assert_eq!(got, want);
        if let Some((t, _)) = got {
            *now = t;
        }
        prop_assert_eq!(s.len(), model.len());
        Ok(())
    }

    /// Many events due at the same instants (delays 0 to 3 ns, now and
    /// then one in the past): the FIFO of the current instant and the
    /// entries refiled into it keep the key order of a sorted map.
    #[test]
    fn events_at_the_current_instant_keep_key_order() {
        use proptest::prelude::*;
        proptest!(|(ops in proptest::collection::vec((0u64..4, 0u64..4, any::<bool>()), 0..2000))| {
            let mut s = Scheduler::new();
            let mut model = std::collections::BTreeMap::new();
            let mut seq = 0u64;
            let mut now = 0u64;
            for (n, d, past) in ops {
                for i in 0..n {
                    let t = if past && i == 0 { now.saturating_sub(d) } else { now + d };
                    s.push(Time::from_nanos(t), seq);
                    model.insert((t, seq), ());
                    seq += 1;
                }
                prop_assert_eq!(s.peek_key().map(|k| (key_time(k).as_nanos(), k as u64)), model.keys().next().copied());
                pop_as_the_model(&mut s, &mut model, &mut now)?;
            }
        });
    }

    /// Events scheduled far ahead sit in a high bucket while near ones
    /// come and go below it: each pop still gives the earliest, and the
    /// far ones come out in their order once the near ones are done.
    #[test]
    fn near_events_pass_a_bucket_of_far_ones_in_key_order() {
        let mut s = Scheduler::new();
        for i in 0..50u64 {
            s.push(Time::from_nanos(1_000_000 + 7 * (50 - i)), 1000 + i);
        }
        let mut now = 0;
        for i in 0..200u64 {
            s.push(Time::from_nanos(now + 1 + i % 3), i);
            let (t, e) = s.pop().unwrap();
            assert_eq!(e, i);
            now = t.as_nanos();
        }
        let far: Vec<_> = std::iter::from_fn(|| s.pop().map(|(_, e)| e)).collect();
        let want: Vec<_> = (1000..1050u64).rev().collect();
        assert_eq!(far, want);
    }

    #[test]
    fn many_simultaneous_events_keep_fifo_order() {
        let mut s = Scheduler::new();
        for i in 0..1000u32 {
            s.push(Time::from_nanos(u64::from(i % 3)), i);
        }
        let mut last = (Time::ZERO, 0u32);
        let mut first = true;
        while let Some((t, i)) = s.pop() {
            if !first {
                assert!(t > last.0 || (t == last.0 && i > last.1));
            }
            first = false;
            last = (t, i);
        }
    }
}
