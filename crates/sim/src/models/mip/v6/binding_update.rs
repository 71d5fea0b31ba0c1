//! Binding Updates at a node that keeps a binding cache, the home agent
//! (RFC 6275 section 10.3.1) and the correspondent node (section 9.5.1)
//! alike: each update waits a processing delay in a bounded queue, is
//! applied to the cache (refused when its Sequence Number is not newer
//! than the cache entry's, status 135, or the cache is full, status 130),
//! and acknowledged when it asked for it (section 9.5.4: to the care-of
//! address with a type 2 routing header, or to the home address for a
//! deregistration from home).

use std::collections::VecDeque;
use std::net::Ipv6Addr;
use std::time::Duration;

use super::wire::{self, BindingAck, BindingUpdate, LIFETIME_UNIT_S, MhMessage};
use crate::Time;
use crate::kernel::Ctx;
use crate::kernel::ip::DEFAULT_TTL;
use crate::models::mip::TraceLog;
use crate::models::mip::binding::BindingCache;

/// Status 130 (RFC 6275 section 6.1.8): insufficient resources.
pub const INSUFFICIENT_RESOURCES: u8 = 130;
/// Status 132: not home subnet (a home agent only).
pub const NOT_HOME_SUBNET: u8 = 132;
/// Status 135: Sequence Number out of window.
pub const SEQUENCE_OUT_OF_WINDOW: u8 = 135;

/// A received Binding Update for `home`, sent from `care_of`.
#[derive(Debug, Clone)]
pub struct Received {
    pub home: Ipv6Addr,
    pub care_of: Ipv6Addr,
    pub bu: BindingUpdate,
}

impl Received {
    /// Applies the update to `cache` with `lifetime_units` granted; the
    /// status to acknowledge (0: accepted).
    pub fn apply(
        &self,
        cache: &mut BindingCache<Ipv6Addr, u16>,
        trace: &mut TraceLog,
        now: Time,
        lifetime_units: u16,
    ) -> u8 {
        let (home, care_of, seq) = (self.home, self.care_of, self.bu.sequence);
        // RFC 6275 section 9.5.1: newer modulo 2^16.
        let newer = cache
            .get(home)
            .is_none_or(|b| (seq.wrapping_sub(b.sequence) as i16) > 0);
        if !newer {
            return SEQUENCE_OUT_OF_WINDOW;
        }
        if lifetime_units == 0 || care_of == home {
            cache.unbind(now, home, trace);
            return 0;
        }
        let lifetime = Duration::from_secs(u64::from(lifetime_units) * LIFETIME_UNIT_S);
        match cache.bind(now, home, care_of, lifetime, seq, trace) {
            Ok(()) => 0,
            Err(_) => INSUFFICIENT_RESOURCES,
        }
    }

    /// Sends the Binding Acknowledgement from `from` if the update asked
    /// for one: `lifetime_units` granted when accepted, 0 when refused.
    pub fn acknowledge(&self, ctx: &mut Ctx<'_>, from: Ipv6Addr, status: u8, lifetime_units: u16) {
        if !self.bu.ack {
            return;
        }
        let ba = MhMessage::BindingAck(BindingAck {
            status,
            sequence: self.bu.sequence,
            lifetime_units: if status < 128 { lifetime_units } else { 0 },
        });
        let Ok(p) = wire::mh_packet(from, self.home, &ba, DEFAULT_TTL) else {
            return;
        };
        let out = if self.care_of == self.home {
            Ok(p)
        } else {
            wire::insert_routing_header(&p, self.care_of)
        };
        if let Ok(out) = out {
            let _ = ctx.send(out);
        }
    }
}

/// Binding Updates waiting for their processing delay, at most `max`
/// (more are dropped unanswered).
#[derive(Debug)]
pub struct UpdateQueue {
    pending: VecDeque<(Time, Received)>,
    delay: Duration,
    max: usize,
}

impl UpdateQueue {
    pub fn new(delay: Duration, max: usize) -> Self {
        UpdateQueue {
            pending: VecDeque::new(),
            delay,
            max,
        }
    }

    /// Queues an update, due after the processing delay, and sets the
    /// agent's timer `token` for it; dropped when the queue is full.
    pub fn push(&mut self, ctx: &mut Ctx<'_>, update: Received, token: u64) {
        if self.pending.len() < self.max {
            let due = ctx.now() + self.delay;
            self.pending.push_back((due, update));
            ctx.set_timer(due, token);
        }
    }

    /// The next update due at `now`, in arrival order.
    pub fn pop_due(&mut self, now: Time) -> Option<Received> {
        if self.pending.front().is_some_and(|p| p.0 <= now) {
            self.pending.pop_front().map(|p| p.1)
        } else {
            None
        }
    }
}
