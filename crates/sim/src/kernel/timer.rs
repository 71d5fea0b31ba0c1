//! Agent timers: a queue of armed timers, apart from the other events, in
//! which cancelling removes the timer.
//!
//! Transport agents re-arm their retransmission timer on nearly every
//! acknowledgement (cancel, then arm at a new time). Were timers ordinary
//! events, each cancelled one would stay in the event queue until it fell
//! due and was recognised as stale: in a bulk transfer about one event in
//! nine, and most of the queue. Here a timer is an entry of an indexed
//! binary heap (each armed timer knows its position), so cancelling is
//! O(log n) in the number of *armed* timers and nothing stale is ever
//! dispatched.
//!
//! A timer's key is (due time, sequence number) with the sequence number
//! drawn from the event queue's counter when it is armed, so timers and
//! other events due at the same instant run in the order they were
//! scheduled, exactly as if they shared one queue.

use crate::kernel::ids::AgentId;

/// A timer handle returned by [`Ctx::set_timer`](crate::Ctx::set_timer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimerId {
    slot: u32,
    generation: u32,
}

/// Position of a slot that is not armed.
const IDLE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Slot {
    generation: u32,
    /// Index in the heap, or `IDLE`.
    pos: u32,
    agent: AgentId,
    token: u64,
}

/// A timer that fell due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fired {
    pub key: u128,
    pub agent: AgentId,
    pub token: u64,
}

#[derive(Debug, Default)]
pub(crate) struct TimerQueue {
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// (key, slot), a binary min-heap on the key.
    heap: Vec<(u128, u32)>,
}

impl TimerQueue {
    /// Arms a timer with `key` (`time_ns << 64 | seq`, unique).
    pub fn arm(&mut self, key: u128, agent: AgentId, token: u64) -> TimerId {
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.slots.push(Slot {
                    generation: 0,
                    pos: IDLE,
                    agent,
                    token,
                });
                u32::try_from(self.slots.len() - 1).unwrap_or(u32::MAX)
            }
        };
        let s = &mut self.slots[slot as usize];
        s.agent = agent;
        s.token = token;
        let generation = s.generation;
        let at = self.heap.len();
        self.heap.push((key, slot));
        self.slots[slot as usize].pos = at as u32;
        self.sift_up(at);
        TimerId { slot, generation }
    }

    /// Moves the armed timer `id` to `key` (with `token`): the same as
    /// cancelling it and arming a new one, which would take the slot
    /// just freed, so the handle returned is the one [`TimerQueue::arm`]
    /// would return; but the entry moves within the heap instead of
    /// leaving it and entering again. `None` (nothing changed) if `id` is
    /// not armed.
    pub fn rearm(&mut self, id: TimerId, key: u128, agent: AgentId, token: u64) -> Option<TimerId> {
        let pos = self.live(id)?.pos as usize;
        let s = &mut self.slots[id.slot as usize];
        s.generation = s.generation.wrapping_add(1);
        s.agent = agent;
        s.token = token;
        let generation = s.generation;
        let old = self.heap[pos].0;
        self.heap[pos].0 = key;
        if key < old {
            self.sift_up(pos);
        } else {
            self.sift_down(pos);
        }
        Some(TimerId {
            slot: id.slot,
            generation,
        })
    }

    fn live(&self, id: TimerId) -> Option<&Slot> {
        self.slots
            .get(id.slot as usize)
            .filter(|s| s.generation == id.generation && s.pos != IDLE)
    }

    /// Disarms `id`; false if it already fired or was cancelled.
    pub fn cancel(&mut self, id: TimerId) -> bool {
        let Some(s) = self.live(id) else {
            return false;
        };
        let pos = s.pos as usize;
        self.remove_at(pos);
        self.release(id.slot);
        true
    }

    pub fn is_armed(&self, id: TimerId) -> bool {
        self.live(id).is_some()
    }

    /// Timers currently armed.
    pub fn armed(&self) -> usize {
        self.heap.len()
    }

    /// Key of the earliest timer.
    pub fn peek_key(&self) -> Option<u128> {
        self.heap.first().map(|e| e.0)
    }

    /// Removes the earliest timer (it is then no longer armed).
    pub fn pop(&mut self) -> Option<Fired> {
        let &(key, slot) = self.heap.first()?;
        self.remove_at(0);
        let s = self.slots[slot as usize];
        self.release(slot);
        Some(Fired {
            key,
            agent: s.agent,
            token: s.token,
        })
    }

    fn release(&mut self, slot: u32) {
        let s = &mut self.slots[slot as usize];
        s.generation = s.generation.wrapping_add(1);
        s.pos = IDLE;
        self.free.push(slot);
    }

    /// Takes the entry at `pos` out of the heap.
    fn remove_at(&mut self, pos: usize) {
        let last = self.heap.len() - 1;
        self.heap.swap(pos, last);
        self.heap.pop();
        if pos < last {
            self.place(pos);
            self.sift_down(pos);
            self.sift_up(pos);
        }
    }

    fn place(&mut self, pos: usize) {
        let slot = self.heap[pos].1;
        self.slots[slot as usize].pos = pos as u32;
    }

    fn sift_up(&mut self, mut pos: usize) {
        while pos > 0 {
            let parent = (pos - 1) / 2;
            if self.heap[parent].0 <= self.heap[pos].0 {
                break;
            }
            self.heap.swap(parent, pos);
            self.place(pos);
            pos = parent;
        }
        self.place(pos);
    }

    fn sift_down(&mut self, mut pos: usize) {
        let n = self.heap.len();
        loop {
            let l = 2 * pos + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let child = if r < n && self.heap[r].0 < self.heap[l].0 {
                r
            } else {
                l
            };
            if self.heap[pos].0 <= self.heap[child].0 {
                break;
            }
            self.heap.swap(pos, child);
            self.place(pos);
            pos = child;
        }
        self.place(pos);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: AgentId = AgentId(7);

    #[test]
    fn cancel_and_reuse_make_old_handles_stale() {
        let mut q = TimerQueue::default();
        let a = q.arm(10, A, 1);
        assert!(q.is_armed(a));
        assert!(q.cancel(a));
        assert!(!q.cancel(a));
        assert_eq!(q.armed(), 0);
        let b = q.arm(20, A, 2); // reuses a's slot with a new generation
        assert!(!q.is_armed(a));
        assert!(!q.cancel(a), "the cancelled handle does not touch b");
        assert_eq!(
            q.pop(),
            Some(Fired {
                key: 20,
                agent: A,
                token: 2
            })
        );
        assert!(!q.is_armed(b) && !q.cancel(b));
        assert_eq!(q.pop(), None);
    }

    /// `rearm` behaves as `cancel` then `arm` (same handles, same pops),
    /// checked against a queue doing the two steps, under random moves.
    #[test]
    fn rearm_is_cancel_then_arm() {
        use proptest::prelude::*;
        proptest!(|(ops in proptest::collection::vec((0usize..8, 0u64..50, 0u8..4), 0..300))| {
            let (mut a, mut b) = (TimerQueue::default(), TimerQueue::default());
            let mut ids: Vec<Option<(TimerId, TimerId)>> = vec![None; 8];
            let mut seq = 0u64;
            for (k, t, op) in ops {
                seq += 1;
                let key = u128::from(t) << 64 | u128::from(seq);
                match (op, ids[k]) {
                    (0, _) => {
                        let f = (a.pop(), b.pop());
                        prop_assert_eq!(f.0, f.1);
                    }
                    (1, Some((ia, ib))) => {
                        prop_assert_eq!(a.cancel(ia), b.cancel(ib));
                        ids[k] = None;
                    }
                    (_, Some((ia, ib))) => {
                        let ra = a.rearm(ia, key, A, seq);
                        let rb = if b.cancel(ib) { Some(b.arm(key, A, seq)) } else { None };
                        prop_assert_eq!(ra, rb);
                        ids[k] = match (ra, rb) {
                            (Some(x), Some(y)) => Some((x, y)),
                            _ => None,
                        };
                    }
                    (_, None) => {
                        let (x, y) = (a.arm(key, A, seq), b.arm(key, A, seq));
                        prop_assert_eq!(x, y);
                        ids[k] = Some((x, y));
                    }
                }
                prop_assert_eq!(a.armed(), b.armed());
                prop_assert_eq!(a.peek_key(), b.peek_key());
            }
            while let Some(f) = b.pop() {
                prop_assert_eq!(a.pop(), Some(f));
            }
            prop_assert_eq!(a.pop(), None);
        });
    }

    #[test]
    fn timers_come_out_in_key_order_whatever_is_cancelled() {
        // A deterministic shuffle of keys; every third timer cancelled.
        let mut q = TimerQueue::default();
        let mut ids = Vec::new();
        for i in 0..300u64 {
            let key = u128::from((i * 7919) % 1009) << 64 | u128::from(i);
            ids.push((key, q.arm(key, A, i)));
        }
        let mut kept: Vec<(u128, u64)> = Vec::new();
        for (i, (key, id)) in ids.iter().enumerate() {
            if i % 3 == 0 {
                assert!(q.cancel(*id));
            } else {
                kept.push((*key, i as u64));
            }
        }
        kept.sort();
        assert_eq!(q.armed(), kept.len());
        let out: Vec<(u128, u64)> =
            std::iter::from_fn(|| q.pop().map(|f| (f.key, f.token))).collect();
        assert_eq!(out, kept);
        for (_, id) in ids {
            assert!(!q.is_armed(id));
        }
    }
}
