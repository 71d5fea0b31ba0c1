//! Room for incoming associations (issue 31, finding 6): caps per source
//! prefix at several nested lengths, the idle timeout, and the reclaiming
//! of the association idle the longest when the table is full.
//!
//! RFC 9260 leaves admission to the implementation: section 5.1 lets an
//! endpoint refuse an INIT or COOKIE ECHO with an ABORT carrying Out of
//! Resource (section 3.3.10.4). Idleness is counted as the sockets API's
//! SCTP_AUTOCLOSE counts it (RFC 6458 section 8.1.8): no user data sent
//! or received. The endpoint marks an association active when a packet it
//! accepted carries DATA or a SACK (data of ours acknowledged), and when it
//! finds data queued, unacknowledged or unread in it; HEARTBEATs do not
//! count (a peer's stack answers them without its application).

use std::cmp::Reverse;
use std::net::IpAddr;

use smallvec::SmallVec;

use super::table::IdMap;
use super::{AssocId, Endpoint, Meta};
use crate::Time;
use crate::association::{Association, CloseReason};
use crate::config::EndpointConfig;
use crate::wire::ErrorCause;

/// The prefixes an incoming association from one source is counted under,
/// each with its cap.
pub(super) type Keys = SmallVec<[((IpAddr, u8), usize); 4]>;

fn mask(addr: IpAddr, len: u8) -> IpAddr {
    match addr {
        IpAddr::V4(v4) => {
            let bits = u32::from(len.min(32));
            let m = u32::MAX.checked_shl(32 - bits).unwrap_or(0);
            IpAddr::V4((u32::from(v4) & m).into())
        }
        IpAddr::V6(v6) => {
            let bits = u32::from(len.min(128));
            let m = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            IpAddr::V6((u128::from(v6) & m).into())
        }
    }
}

/// Why an incoming association may not be created now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refusal {
    /// A prefix of the source holds its cap.
    Prefix,
    /// `max_associations` live associations, none idle long enough.
    Full,
}

impl Endpoint {
    /// The prefixes `src` is counted under: its address (IPv6: its
    /// `source_prefix_v6`) capped at `max_associations_per_source`, then
    /// each wider prefix of `prefix_caps` of its family.
    pub(super) fn source_keys(&self, src: IpAddr) -> Keys {
        let first = match src {
            IpAddr::V4(_) => 32,
            IpAddr::V6(_) => self.cfg.source_prefix_v6,
        };
        let mut keys = Keys::new();
        keys.push((
            (mask(src, first), first),
            self.cfg.max_associations_per_source,
        ));
        for c in &self.cfg.prefix_caps {
            if c.ipv6 == src.is_ipv6() {
                keys.push(((mask(src, c.prefix_len), c.prefix_len), c.max));
            }
        }
        keys
    }

    /// Associations neither closed nor forgotten: what the table holds.
    pub(super) fn live_count(&self) -> usize {
        self.assocs.len() - self.closed.len()
    }

    /// May an incoming association from `src` be created at `now`? With
    /// the table full, only if an association has been idle long enough
    /// to be reclaimed (`reclaim`, at the COOKIE ECHO, makes sure).
    pub(super) fn admission(&mut self, now: Time, src: IpAddr) -> Result<(), Refusal> {
        let over = self
            .source_keys(src)
            .iter()
            .any(|(k, max)| self.per_prefix.get(k).is_some_and(|n| n >= max));
        if over {
            return Err(Refusal::Prefix);
        }
        if self.live_count() < self.cfg.max_associations || self.oldest_idle(now).is_some() {
            return Ok(());
        }
        Err(Refusal::Full)
    }

    /// Counts a new incoming association under its source's prefixes.
    pub(super) fn count_source(&mut self, id: AssocId, src: IpAddr) {
        for (k, _) in self.source_keys(src) {
            *self.per_prefix.entry(k).or_insert(0) += 1;
        }
        self.source_of.insert(id, src);
    }

    pub(super) fn uncount_source(&mut self, id: AssocId) {
        let Some(src) = self.source_of.remove(&id) else {
            return;
        };
        for (k, _) in self.source_keys(src) {
            if let Some(n) = self.per_prefix.get_mut(&k) {
                *n -= 1;
                if *n == 0 {
                    self.per_prefix.remove(&k);
                }
            }
        }
    }

    /// The ABORT refusing an INIT or cookie for lack of room (RFC 9260
    /// section 5.1: Out of Resource), counted.
    pub(super) fn refuse_no_room(
        &mut self,
        why: Refusal,
        (dst, src): (IpAddr, IpAddr),
        sport: u16,
        tag: u32,
    ) {
        match why {
            Refusal::Prefix => self.stats.source_limit_refusals += 1,
            Refusal::Full => self.stats.association_limit_refusals += 1,
        }
        self.abort_init(dst, src, sport, tag, vec![ErrorCause::OutOfResource]);
    }

    /// Marks `id` active at `now`.
    pub(super) fn mark_active(&mut self, id: AssocId, now: Time) {
        if let Some(m) = self.meta.get_mut(&id) {
            m.mark_active(now);
        }
    }

    /// Has `id` data in flight or waiting (queued, unacknowledged,
    /// unread)? Then it is active now.
    pub(super) fn holds_data(&self, id: AssocId) -> bool {
        self.assocs.get(&id).is_some_and(|a| holds_data_of(a))
    }

    /// When `id` turns idle for the idle timeout, if it has one.
    pub(super) fn idle_deadline(&self, id: AssocId) -> Option<Time> {
        idle_deadline_of(&self.cfg, &self.meta, id)
    }

    /// The idle timeout's check at `now`: aborts `id` if it has been idle
    /// for `idle_timeout`.
    pub(super) fn check_idle(&mut self, id: AssocId, now: Time) {
        if self.holds_data(id) {
            self.mark_active(id, now);
        }
        let Some(deadline) = self.idle_deadline(id) else {
            return;
        };
        if deadline <= now
            && let Some(a) = self.assocs.get_mut(&id)
            && !a.is_closed()
        {
            let secs = self.cfg.idle_timeout.unwrap_or_default().as_secs();
            let reason = format!("idle for {secs} s (no user data either way)");
            let cause = ErrorCause::UserInitiatedAbort {
                reason: reason.into_bytes().into(),
            };
            a.abort_with(vec![cause], CloseReason::IdleTimeout);
            self.stats.idle_timeouts += 1;
        }
    }

    /// With the table full, aborts the association idle the longest if it
    /// has been idle `reclaim_idle_after` (Out of Resource); says whether
    /// a slot was freed.
    pub(super) fn reclaim(&mut self, now: Time) -> bool {
        let Some(id) = self.oldest_idle(now) else {
            return false;
        };
        let Some(a) = self.assocs.get_mut(&id) else {
            return false;
        };
        a.abort_with(vec![ErrorCause::OutOfResource], CloseReason::Reclaimed);
        self.stats.reclaimed += 1;
        self.refresh(id, now);
        true
    }

    /// The live association idle the longest, if idle for
    /// `reclaim_idle_after` at `now`.
    fn oldest_idle(&mut self, now: Time) -> Option<AssocId> {
        let after = self.cfg.reclaim_idle_after?;
        // Each association has one entry; an entry older than its
        // association's last activity is put back with it (lazy), so
        // every association is looked at most twice.
        let mut budget = 2 * self.assocs.len() + 2;
        while budget > 0 {
            budget -= 1;
            let Reverse((t, id)) = *self.idle_heap.peek()?;
            self.idle_heap.pop();
            if !self.meta.contains_key(&id) || self.closed.contains(&id) {
                continue;
            }
            if self.holds_data(id) {
                // Its deadline follows its activity: kept as it was.
                self.freeze_deadline_of(id);
                self.mark_active(id, now);
            }
            let last = self.meta.get(&id).map_or(t, |m| m.last_active);
            if last != t {
                self.idle_heap.push(Reverse((last, id)));
                continue;
            }
            // The oldest activity recorded, and recorded right: it stays.
            self.idle_heap.push(Reverse((t, id)));
            return (t + after <= now).then_some(id);
        }
        None
    }
}

/// [`Endpoint::idle_deadline`] from the endpoint's fields it reads (for a
/// caller that holds one of its associations).
pub(super) fn idle_deadline_of(
    cfg: &EndpointConfig,
    meta: &IdMap<Meta>,
    id: AssocId,
) -> Option<Time> {
    let t = cfg.idle_timeout?;
    Some(meta.get(&id)?.last_active + t)
}

/// [`Endpoint::holds_data`] of an association already looked up.
pub(super) fn holds_data_of(a: &Association) -> bool {
    a.send_buffered() > 0 || a.readable()
}

impl Meta {
    /// [`Endpoint::mark_active`] of an association's meta already looked
    /// up.
    pub(super) fn mark_active(&mut self, now: Time) {
        self.last_active = self.last_active.max(now);
    }
}
