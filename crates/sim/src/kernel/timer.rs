//! Agent timers: a slab of armed timers with generation counters, so that
//! cancelling is O(1) and a cancelled timer's event, still in the event
//! queue, is recognised as stale when it comes out.

/// A timer handle returned by [`Ctx::set_timer`](crate::Ctx::set_timer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimerId {
    slot: u32,
    generation: u32,
}

#[derive(Debug, Default)]
pub(crate) struct TimerSlab {
    /// (generation, armed) per slot.
    slots: Vec<(u32, bool)>,
    free: Vec<u32>,
    armed: usize,
}

impl TimerSlab {
    pub fn arm(&mut self) -> TimerId {
        self.armed += 1;
        if let Some(slot) = self.free.pop() {
            let s = &mut self.slots[slot as usize];
            s.1 = true;
            TimerId {
                slot,
                generation: s.0,
            }
        } else {
            let slot = u32::try_from(self.slots.len()).unwrap_or(u32::MAX);
            self.slots.push((0, true));
            TimerId {
                slot,
                generation: 0,
            }
        }
    }

    fn release(&mut self, id: TimerId) -> bool {
        match self.slots.get_mut(id.slot as usize) {
            Some(s) if s.0 == id.generation && s.1 => {
                s.0 = s.0.wrapping_add(1);
                s.1 = false;
                self.free.push(id.slot);
                self.armed -= 1;
                true
            }
            _ => false,
        }
    }

    /// Disarms `id`; false if it already fired or was cancelled.
    pub fn cancel(&mut self, id: TimerId) -> bool {
        self.release(id)
    }

    /// Called when `id`'s event comes out: true if the timer is still armed
    /// (it is then disarmed).
    pub fn fire(&mut self, id: TimerId) -> bool {
        self.release(id)
    }

    pub fn is_armed(&self, id: TimerId) -> bool {
        self.slots
            .get(id.slot as usize)
            .is_some_and(|s| s.0 == id.generation && s.1)
    }

    /// Timers currently armed.
    pub fn armed(&self) -> usize {
        self.armed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancel_and_reuse_make_old_events_stale() {
        let mut s = TimerSlab::default();
        let a = s.arm();
        assert!(s.is_armed(a));
        assert!(s.cancel(a));
        assert!(!s.cancel(a));
        let b = s.arm(); // reuses a's slot with a new generation
        assert!(!s.fire(a), "stale event of the cancelled timer");
        assert!(s.fire(b));
        assert!(!s.fire(b));
        assert_eq!(s.armed(), 0);
    }
}
