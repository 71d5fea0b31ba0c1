//! The binding cache every Mobile IP agent that redirects a home address
//! keeps: the Mobile IPv4 home agent's mobility bindings (RFC 5944
//! section 4.2.3), the Mobile IPv6 home agent's and correspondent node's
//! binding caches (RFC 6275 sections 9.1 and 10.1). One entry per home
//! address: the care-of address it is bound to, until when, and the
//! sequence number of the registration that made it (the Identification
//! of RFC 5944, the 16-bit Sequence Number of RFC 6275 section 6.1.7).
//!
//! The cache is bounded (`max` entries: a new home address is refused
//! when full, an existing one may always be refreshed) and expires
//! entries lazily: an expired entry is removed the next time a packet
//! needs it ([`BindingCache::route`]). Every creation, change and removal
//! is written to the agent's trace ([`MipTraceEvent::BindingUpdated`],
//! [`MipTraceEvent::BindingRemoved`]).

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::Duration;

use crate::Time;
use crate::kernel::Ctx;
use crate::kernel::ip::IpPacket;
use crate::kernel::tunnel;
use crate::models::mip::{MipTraceEvent, TraceLog};

/// One binding: a home address's care-of address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding<A, S> {
    pub care_of: A,
    pub expires_at: Time,
    /// The sequence number (Mobile IPv6) or Identification (Mobile IPv4)
    /// of the registration that created or last refreshed the binding.
    pub sequence: S,
    /// When the binding was (last) created or changed to this care-of
    /// address (a refresh to the same care-of address keeps it).
    pub since: Time,
}

/// A new binding refused because the cache holds `max` home addresses
/// already; the agent answers with its protocol's refusal (RFC 6275
/// section 6.1.8 status 130, insufficient resources).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheFull;

/// The bindings of one agent, keyed by home address.
#[derive(Debug, Clone)]
pub struct BindingCache<A, S> {
    entries: BTreeMap<A, Binding<A, S>>,
    max: usize,
}

impl<A, S> BindingCache<A, S>
where
    A: Ord + Copy + Into<IpAddr>,
    S: Copy,
{
    /// An empty cache of at most `max` bindings.
    pub fn new(max: usize) -> Self {
        BindingCache {
            entries: BTreeMap::new(),
            max,
        }
    }

    /// The binding of `home`, expired ones included until next used.
    pub fn get(&self, home: A) -> Option<&Binding<A, S>> {
        self.entries.get(&home)
    }

    /// Whether `home` has a binding (expired or not).
    pub fn contains(&self, home: A) -> bool {
        self.entries.contains_key(&home)
    }

    /// Whether `home` is bound to `care_of` and the binding has not
    /// expired at `now` (RFC 6275 section 9.3.1: a Home Address option is
    /// accepted only with such a binding).
    pub fn is_bound_to(&self, home: A, care_of: A, now: Time) -> bool {
        self.entries
            .get(&home)
            .is_some_and(|b| b.care_of == care_of && b.expires_at > now)
    }

    /// Where a packet for `home` goes at `now`: the care-of address of a
    /// live binding, or `None` (no binding; an expired one is removed
    /// here, without a trace event: it ran out, nobody removed it).
    pub fn route(&mut self, home: A, now: Time) -> Option<A> {
        match self.entries.get(&home) {
            Some(b) if b.expires_at > now => Some(b.care_of),
            Some(_) => {
                self.entries.remove(&home);
                None
            }
            None => None,
        }
    }

    /// A home agent's interception (RFC 5944 section 4.2.3, RFC 6275
    /// section 10.4.1): a packet for `home` with a live binding is
    /// tunnelled from `agent` to the care-of address (or dropped with
    /// `expired`), `sent` told the outer packet's length, and `None`
    /// returned; without one the packet is handed back to be routed
    /// normally.
    pub fn tunnel(
        &mut self,
        ctx: &mut Ctx<'_>,
        pkt: IpPacket,
        (home, agent): (A, A),
        expired: &'static str,
        sent: impl FnOnce(usize),
    ) -> Option<IpPacket> {
        let Some(care_of) = self.route(home, ctx.now()) else {
            return Some(pkt);
        };
        if let Some(len) = tunnel::forward(ctx, pkt, agent.into(), care_of.into(), expired) {
            sent(len);
        }
        None
    }

    /// Binds `home` to `care_of` for `lifetime` from `now`, creating the
    /// binding or refreshing it; refused when `home` is new and the cache
    /// is full.
    pub fn bind(
        &mut self,
        now: Time,
        home: A,
        care_of: A,
        lifetime: Duration,
        sequence: S,
        trace: &mut TraceLog,
    ) -> Result<(), CacheFull> {
        let since = match self.entries.get(&home) {
            Some(b) if b.care_of == care_of => b.since,
            Some(_) => now,
            None if self.entries.len() >= self.max => return Err(CacheFull),
            None => now,
        };
        self.entries.insert(
            home,
            Binding {
                care_of,
                expires_at: now + lifetime,
                sequence,
                since,
            },
        );
        trace.push(
            now,
            MipTraceEvent::BindingUpdated {
                home: home.into(),
                care_of: care_of.into(),
            },
        );
        Ok(())
    }

    /// Removes the binding of `home` (a deregistration: the mobile node is
    /// back home or asked for lifetime 0).
    pub fn unbind(&mut self, now: Time, home: A, trace: &mut TraceLog) {
        self.entries.remove(&home);
        trace.push(now, MipTraceEvent::BindingRemoved { home: home.into() });
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv6Addr;

    use super::*;

    const HOME: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 1, 0, 0, 0, 0, 10);
    const COA1: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 2, 0, 0, 0, 0, 10);
    const COA2: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 3, 0, 0, 0, 0, 10);

    fn t(s: u64) -> Time {
        Time::from_secs(s)
    }

    #[test]
    fn a_refresh_keeps_since_a_move_resets_it() {
        let mut c = BindingCache::<Ipv6Addr, u16>::new(4);
        let mut trace = TraceLog::default();
        let life = Duration::from_secs(10);
        c.bind(t(1), HOME, COA1, life, 1, &mut trace).unwrap();
        c.bind(t(2), HOME, COA1, life, 2, &mut trace).unwrap();
        assert_eq!(c.get(HOME).unwrap().since, t(1));
        assert_eq!(c.get(HOME).unwrap().sequence, 2);
        c.bind(t(3), HOME, COA2, life, 3, &mut trace).unwrap();
        assert_eq!(c.get(HOME).unwrap().since, t(3));
        assert_eq!(trace.events().len(), 3);
    }

    #[test]
    fn a_full_cache_refuses_new_homes_but_refreshes_old_ones() {
        let mut c = BindingCache::<Ipv6Addr, u16>::new(1);
        let mut trace = TraceLog::default();
        let life = Duration::from_secs(10);
        c.bind(t(1), HOME, COA1, life, 1, &mut trace).unwrap();
        assert_eq!(
            c.bind(t(1), COA2, COA1, life, 1, &mut trace),
            Err(CacheFull)
        );
        assert!(c.bind(t(2), HOME, COA2, life, 2, &mut trace).is_ok());
        assert_eq!(trace.events().len(), 2);
    }

    #[test]
    fn an_expired_binding_is_removed_when_a_packet_needs_it() {
        let mut c = BindingCache::<Ipv6Addr, u16>::new(4);
        let mut trace = TraceLog::default();
        c.bind(t(1), HOME, COA1, Duration::from_secs(5), 1, &mut trace)
            .unwrap();
        assert!(c.is_bound_to(HOME, COA1, t(5)));
        assert!(!c.is_bound_to(HOME, COA2, t(5)));
        assert_eq!(c.route(HOME, t(5)), Some(COA1));
        assert!(!c.is_bound_to(HOME, COA1, t(6)));
        assert!(c.contains(HOME));
        assert_eq!(c.route(HOME, t(6)), None);
        assert!(!c.contains(HOME));
        c.bind(t(7), HOME, COA1, Duration::from_secs(5), 2, &mut trace)
            .unwrap();
        c.unbind(t(8), HOME, &mut trace);
        assert!(c.get(HOME).is_none());
        assert_eq!(
            trace.events().last(),
            Some(&(t(8), MipTraceEvent::BindingRemoved { home: HOME.into() }))
        );
    }
}
