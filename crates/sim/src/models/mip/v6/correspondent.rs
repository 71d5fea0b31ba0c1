//! Route optimisation at a Mobile IPv6 correspondent node (RFC 6275
//! sections 9.3 and 9.5): a binding cache filled by Binding Updates from
//! mobile nodes; once a home address has a binding, the node's packets to
//! it go straight to the care-of address with a type 2 routing header, and
//! packets from the mobile node's care-of address with a Home Address
//! option are handed to the transport as coming from the home address.
//!
//! Not modelled: the return routability procedure (HoTI/CoTI/HoT/CoT) and
//! the binding authorization data it yields; Binding Updates are accepted
//! as they come (as in ns-2's Mobiwan), which leaves out one round trip
//! through the home agent per handover.

use std::net::{IpAddr, Ipv6Addr};
use std::time::Duration;

use super::binding_update::{Received, UpdateQueue};
use super::wire::{self, DEST_OPTIONS, MhMessage};
use crate::Time;
use crate::kernel::ip::IpPacket;
use crate::kernel::{Agent, Ctx, PacketOrigin};
use crate::models::mip::binding::BindingCache;
use crate::models::mip::{MipTraceEvent, TraceLog};

const TOKEN_PROCESS: u64 = 1;

/// Settings of a [`Correspondent6`].
#[derive(Debug, Clone, PartialEq)]
pub struct Correspondent6Config {
    /// The correspondent's address (Binding Updates are sent to it).
    pub address: Ipv6Addr,
    pub processing_delay: Duration,
    pub max_bindings: usize,
    pub max_pending: usize,
}

impl Correspondent6Config {
    pub fn new(address: Ipv6Addr) -> Self {
        Correspondent6Config {
            address,
            processing_delay: Duration::from_millis(1),
            max_bindings: 1024,
            max_pending: 256,
        }
    }
}

/// Counters of a correspondent node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Correspondent6Stats {
    pub binding_updates: u64,
    /// Packets sent with a routing header (route optimised).
    pub optimised_out: u64,
    /// Packets received with a Home Address option.
    pub optimised_in: u64,
    /// Packets with a Home Address option but no matching binding.
    pub unbound: u64,
    pub malformed: u64,
}

/// The correspondent node's binding cache agent (an interceptor).
#[derive(Debug)]
pub struct Correspondent6 {
    cfg: Correspondent6Config,
    cache: BindingCache<Ipv6Addr, u16>,
    pending: UpdateQueue,
    stats: Correspondent6Stats,
    trace: TraceLog,
}

impl Correspondent6 {
    pub fn new(cfg: Correspondent6Config) -> Self {
        let cache = BindingCache::new(cfg.max_bindings);
        let pending = UpdateQueue::new(cfg.processing_delay, cfg.max_pending);
        Correspondent6 {
            cfg,
            cache,
            pending,
            stats: Correspondent6Stats::default(),
            trace: TraceLog::default(),
        }
    }

    /// The care-of address bound to `home`, if any.
    pub fn binding(&self, home: Ipv6Addr) -> Option<Ipv6Addr> {
        self.cache.get(home).map(|b| b.care_of)
    }

    pub fn stats(&self) -> Correspondent6Stats {
        self.stats
    }

    pub fn trace(&self) -> &[(Time, MipTraceEvent)] {
        self.trace.events()
    }

    fn process_due(&mut self, ctx: &mut Ctx<'_>) {
        let now = ctx.now();
        while let Some(u) = self.pending.pop_due(now) {
            let lifetime = u.bu.lifetime_units;
            let status = u.apply(&mut self.cache, &mut self.trace, now, lifetime);
            u.acknowledge(ctx, self.cfg.address, status, lifetime);
        }
    }

    fn queue(
        &mut self,
        ctx: &mut Ctx<'_>,
        home: Ipv6Addr,
        care_of: Ipv6Addr,
        bu: wire::BindingUpdate,
    ) {
        self.stats.binding_updates += 1;
        let update = Received { home, care_of, bu };
        self.pending.push(ctx, update, TOKEN_PROCESS);
    }
}

impl Agent for Correspondent6 {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        ctx.set_interceptor(true);
    }

    fn on_intercept(
        &mut self,
        ctx: &mut Ctx<'_>,
        pkt: IpPacket,
        origin: &PacketOrigin,
    ) -> Option<IpPacket> {
        let me = IpAddr::V6(self.cfg.address);
        match origin {
            PacketOrigin::Received { .. } if pkt.dst() == me => {
                if pkt.protocol() == wire::MOBILITY_HEADER {
                    // A deregistration from the home address (mobile node
                    // back home).
                    if let IpAddr::V6(home) = pkt.src()
                        && let Ok(MhMessage::BindingUpdate(bu)) =
                            MhMessage::parse(home, self.cfg.address, pkt.payload())
                        && !bu.home
                    {
                        self.queue(ctx, home, home, bu);
                        return None;
                    }
                    return Some(pkt);
                }
                if pkt.protocol() != DEST_OPTIONS {
                    return Some(pkt);
                }
                let Ok((inner, care_of)) = wire::strip_home_address(&pkt) else {
                    self.stats.malformed += 1;
                    ctx.drop_packet(pkt, "malformed destination options");
                    return None;
                };
                let IpAddr::V6(home) = inner.src() else {
                    return None;
                };
                if inner.protocol() == wire::MOBILITY_HEADER {
                    match MhMessage::parse(home, self.cfg.address, inner.payload()) {
                        Ok(MhMessage::BindingUpdate(bu)) if !bu.home => {
                            self.queue(ctx, home, care_of, bu);
                        }
                        _ => self.stats.malformed += 1,
                    }
                    return None;
                }
                // RFC 6275 section 9.3.1: a Home Address option is only
                // accepted with a binding for that care-of address.
                if self.cache.is_bound_to(home, care_of, ctx.now()) {
                    self.stats.optimised_in += 1;
                    Some(inner)
                } else {
                    self.stats.unbound += 1;
                    ctx.drop_packet(inner, "home address option without binding");
                    None
                }
            }
            PacketOrigin::Local { .. } => {
                let IpAddr::V6(dst) = pkt.dst() else {
                    return Some(pkt);
                };
                if pkt.protocol() == wire::MOBILITY_HEADER {
                    return Some(pkt);
                }
                let Some(care_of) = self.cache.route(dst, ctx.now()) else {
                    return Some(pkt);
                };
                match wire::insert_routing_header(&pkt, care_of) {
                    Ok(out) => {
                        self.stats.optimised_out += 1;
                        Some(out)
                    }
                    Err(_) => Some(pkt),
                }
            }
            _ => Some(pkt),
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, _token: u64) {
        self.process_due(ctx);
    }
}
