//! The Mobile IPv6 home agent (RFC 6275 section 10): a binding cache of
//! home registrations, Binding Updates processed after a configurable
//! delay and acknowledged (to the care-of address, with a type 2 routing
//! header), packets for a registered home address intercepted and tunnelled
//! IPv6-in-IPv6 to the care-of address (RFC 2473, 40 bytes of outer
//! header), and reverse-tunnelled packets from mobile nodes decapsulated
//! and forwarded (bidirectional tunnelling, section 10.4.5).
//!
//! Not modelled: IPsec protection of the signalling, proxy neighbour
//! discovery on the home link (interception stands for it), DHAAD.

use std::net::{IpAddr, Ipv6Addr};
use std::time::Duration;

use ipnet::Ipv6Net;

use super::binding_update::{NOT_HOME_SUBNET, Received, UpdateQueue};
use super::wire::{self, DEST_OPTIONS, MhMessage};
use crate::Time;
use crate::kernel::ip::{IpPacket, proto};
use crate::kernel::tunnel;
use crate::kernel::{Agent, Ctx, PacketOrigin, RxInfo};
use crate::models::mip::binding::{Binding, BindingCache};
use crate::models::mip::{MipTraceEvent, TraceLog};

const TOKEN_PROCESS: u64 = 1;

/// Settings of a [`HomeAgent6`].
#[derive(Debug, Clone, PartialEq)]
pub struct HomeAgent6Config {
    pub address: Ipv6Addr,
    pub home_prefix: Ipv6Net,
    /// Time to process a Binding Update.
    pub processing_delay: Duration,
    /// Longest lifetime granted, in 4-second units.
    pub max_lifetime_units: u16,
    pub max_bindings: usize,
    pub max_pending: usize,
}

impl HomeAgent6Config {
    pub fn new(address: Ipv6Addr, home_prefix: Ipv6Net) -> Self {
        HomeAgent6Config {
            address,
            home_prefix,
            processing_delay: Duration::from_millis(1),
            max_lifetime_units: 150,
            max_bindings: 1024,
            max_pending: 256,
        }
    }
}

/// A binding cache entry (RFC 6275 section 9.1).
pub type CacheEntry = Binding<Ipv6Addr, u16>;

/// Counters of a home agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HomeAgent6Stats {
    pub binding_updates: u64,
    pub tunnelled_packets: u64,
    pub tunnelled_bytes: u64,
    pub reverse_tunnelled: u64,
    pub malformed: u64,
}

/// The home agent.
#[derive(Debug)]
pub struct HomeAgent6 {
    cfg: HomeAgent6Config,
    cache: BindingCache<Ipv6Addr, u16>,
    pending: UpdateQueue,
    stats: HomeAgent6Stats,
    trace: TraceLog,
}

impl HomeAgent6 {
    pub fn new(cfg: HomeAgent6Config) -> Self {
        let cache = BindingCache::new(cfg.max_bindings);
        let pending = UpdateQueue::new(cfg.processing_delay, cfg.max_pending);
        HomeAgent6 {
            cfg,
            cache,
            pending,
            stats: HomeAgent6Stats::default(),
            trace: TraceLog::default(),
        }
    }

    pub fn binding(&self, home: Ipv6Addr) -> Option<&CacheEntry> {
        self.cache.get(home)
    }

    pub fn stats(&self) -> HomeAgent6Stats {
        self.stats
    }

    pub fn trace(&self) -> &[(Time, MipTraceEvent)] {
        self.trace.events()
    }

    /// A mobility header from `home` at `care_of` (`home` itself for a
    /// deregistration from the home link): a home registration is queued
    /// for processing (RFC 6275 section 10.3.1), anything else counted
    /// as malformed.
    fn on_home_update(&mut self, ctx: &mut Ctx<'_>, home: Ipv6Addr, care_of: Ipv6Addr, mh: &[u8]) {
        match MhMessage::parse(home, self.cfg.address, mh) {
            Ok(MhMessage::BindingUpdate(bu)) if bu.home => {
                self.stats.binding_updates += 1;
                let update = Received { home, care_of, bu };
                self.pending.push(ctx, update, TOKEN_PROCESS);
            }
            _ => self.stats.malformed += 1,
        }
    }

    fn process_due(&mut self, ctx: &mut Ctx<'_>) {
        let now = ctx.now();
        while let Some(u) = self.pending.pop_due(now) {
            let lifetime = u.bu.lifetime_units.min(self.cfg.max_lifetime_units);
            let status = if self.cfg.home_prefix.contains(&u.home) {
                u.apply(&mut self.cache, &mut self.trace, now, lifetime)
            } else {
                NOT_HOME_SUBNET
            };
            u.acknowledge(ctx, self.cfg.address, status, lifetime);
        }
    }
}

impl Agent for HomeAgent6 {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        ctx.set_interceptor(true);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: IpPacket, _rx: &RxInfo) -> Option<IpPacket> {
        if pkt.dst() != IpAddr::V6(self.cfg.address) {
            return Some(pkt);
        }
        match pkt.protocol() {
            // A Binding Update from a care-of address, with the home
            // address in a destination option.
            DEST_OPTIONS => {
                let Ok((inner, care_of)) = wire::strip_home_address(&pkt) else {
                    self.stats.malformed += 1;
                    return None;
                };
                let IpAddr::V6(home) = inner.src() else {
                    return None;
                };
                self.on_home_update(ctx, home, care_of, inner.payload());
                None
            }
            // A deregistration from the home address itself.
            wire::MOBILITY_HEADER => {
                let IpAddr::V6(home) = pkt.src() else {
                    return None;
                };
                self.on_home_update(ctx, home, home, pkt.payload());
                None
            }
            // Reverse tunnel: forward what a mobile node sent from its
            // home address.
            proto::IPV6 => {
                match tunnel::decapsulate(pkt) {
                    Ok(inner) => match inner.src() {
                        IpAddr::V6(h) if self.cache.contains(h) => {
                            self.stats.reverse_tunnelled += 1;
                            let _ = ctx.send(inner);
                        }
                        _ => ctx.drop_packet(inner, "reverse tunnel from an unbound address"),
                    },
                    Err(_) => self.stats.malformed += 1,
                }
                None
            }
            _ => Some(pkt),
        }
    }

    fn on_intercept(
        &mut self,
        ctx: &mut Ctx<'_>,
        pkt: IpPacket,
        _origin: &PacketOrigin,
    ) -> Option<IpPacket> {
        let IpAddr::V6(dst) = pkt.dst() else {
            return Some(pkt);
        };
        if !self.cfg.home_prefix.contains(&dst) {
            return Some(pkt);
        }
        let stats = &mut self.stats;
        let ends = (dst, self.cfg.address);
        self.cache.tunnel(
            ctx,
            pkt,
            ends,
            "hop limit expired at the home agent",
            |len| {
                stats.tunnelled_packets += 1;
                stats.tunnelled_bytes += len as u64;
            },
        )
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, _token: u64) {
        self.process_due(ctx);
    }
}
