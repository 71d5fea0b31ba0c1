//! The one timer a transport agent keeps for its protocol engine(s): the
//! re-arm that every such agent does after each call into its engine
//! (arm at the engine's next deadline, cancel the timer armed for an
//! older one), kept in one place.
//!
//! Two disciplines, both used by the models:
//! - [`EngineTimer::arm_by`]: the timer fires *no later than* the given
//!   time; a timer already armed earlier stays (the agent wakes early,
//!   finds nothing due and re-arms). Deadlines are moved at least one
//!   nanosecond into the future, so an overdue deadline never fires at the
//!   instant it was armed in a loop. Used by agents whose engines report a
//!   deadline that only ever comes closer between calls (TCP, the
//!   single-connection handoff, cmhn).
//! - [`EngineTimer::set`]: the timer fires *exactly* at the given time, or
//!   not at all (`None`); used by the SCTP agent, whose
//!   `Endpoint::poll_timeout` is exact.

use std::time::Duration;

use crate::Time;
use crate::kernel::timer::TimerId;
use crate::kernel::world::agent::Ctx;

/// An agent's engine timer: the armed time and its handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineTimer {
    token: u64,
    armed: Option<(Time, TimerId)>,
}

impl EngineTimer {
    /// A timer not armed; when armed it fires with `token`.
    pub fn new(token: u64) -> Self {
        EngineTimer { token, armed: None }
    }

    /// The time it is armed for, if it is.
    pub fn due(&self) -> Option<Time> {
        self.armed.map(|(t, _)| t)
    }

    /// The timer fired: it is no longer armed. Call it from `on_timer`
    /// before calling the engine.
    pub fn fired(&mut self) {
        self.armed = None;
    }

    /// Makes the timer fire no later than `at` (at least 1 ns from now); a
    /// timer armed for an earlier time is kept.
    pub fn arm_by(&mut self, ctx: &mut Ctx<'_>, at: Time) {
        let at = at.max(ctx.now() + Duration::from_nanos(1));
        match self.armed {
            Some((t, _)) if t <= at => {}
            Some((_, id)) => self.armed = Some((at, ctx.reset_timer(id, at, self.token))),
            None => self.armed = Some((at, ctx.set_timer(at, self.token))),
        }
    }

    /// Makes the timer fire exactly at `at`, or not at all for `None`.
    pub fn set(&mut self, ctx: &mut Ctx<'_>, at: Option<Time>) {
        if self.due() == at {
            return;
        }
        match (self.armed.take(), at) {
            // Cancel and arm in one move of the queue entry.
            (Some((_, id)), Some(t)) => {
                self.armed = Some((t, ctx.reset_timer(id, t, self.token)));
            }
            (Some((_, id)), None) => {
                ctx.cancel_timer(id);
            }
            (None, Some(t)) => self.armed = Some((t, ctx.set_timer(t, self.token))),
            (None, None) => {}
        }
    }
}
