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

use std::collections::{BTreeMap, VecDeque};
use std::net::{IpAddr, Ipv6Addr};
use std::time::Duration;

use ipnet::Ipv6Net;

use super::wire::{self, BindingAck, DEST_OPTIONS, LIFETIME_UNIT_S, MhMessage};
use crate::Time;
use crate::kernel::ip::{DEFAULT_TTL, IpPacket, proto};
use crate::kernel::tunnel;
use crate::kernel::{Agent, Ctx, PacketOrigin, RxInfo};
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

/// A binding cache entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheEntry {
    pub care_of: Ipv6Addr,
    pub expires_at: Time,
    pub sequence: u16,
}

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
    cache: BTreeMap<Ipv6Addr, CacheEntry>,
    pending: VecDeque<(Time, Ipv6Addr, Ipv6Addr, wire::BindingUpdate)>,
    stats: HomeAgent6Stats,
    trace: TraceLog,
}

impl HomeAgent6 {
    pub fn new(cfg: HomeAgent6Config) -> Self {
        HomeAgent6 {
            cfg,
            cache: BTreeMap::new(),
            pending: VecDeque::new(),
            stats: HomeAgent6Stats::default(),
            trace: TraceLog::default(),
        }
    }

    pub fn binding(&self, home: Ipv6Addr) -> Option<&CacheEntry> {
        self.cache.get(&home)
    }

    pub fn stats(&self) -> HomeAgent6Stats {
        self.stats
    }

    pub fn trace(&self) -> &[(Time, MipTraceEvent)] {
        self.trace.events()
    }

    fn process_due(&mut self, ctx: &mut Ctx<'_>) {
        let now = ctx.now();
        while self.pending.front().is_some_and(|p| p.0 <= now) {
            let Some((_, home, care_of, bu)) = self.pending.pop_front() else {
                break;
            };
            let newer = self
                .cache
                .get(&home)
                .is_none_or(|e| (bu.sequence.wrapping_sub(e.sequence) as i16) > 0);
            let lifetime = bu.lifetime_units.min(self.cfg.max_lifetime_units);
            let mut status = 0u8;
            if !self.cfg.home_prefix.contains(&home) {
                status = 132; // not home subnet
            } else if !newer {
                status = 135; // sequence number out of window
            } else if lifetime == 0 || care_of == home {
                self.cache.remove(&home);
                self.trace.push(
                    now,
                    MipTraceEvent::BindingRemoved {
                        home: IpAddr::V6(home),
                    },
                );
            } else if self.cache.len() >= self.cfg.max_bindings && !self.cache.contains_key(&home) {
                status = 130; // insufficient resources
            } else {
                self.cache.insert(
                    home,
                    CacheEntry {
                        care_of,
                        expires_at: now
                            + Duration::from_secs(u64::from(lifetime) * LIFETIME_UNIT_S),
                        sequence: bu.sequence,
                    },
                );
                self.trace.push(
                    now,
                    MipTraceEvent::BindingUpdated {
                        home: IpAddr::V6(home),
                        care_of: IpAddr::V6(care_of),
                    },
                );
            }
            if bu.ack {
                let ba = MhMessage::BindingAck(BindingAck {
                    status,
                    sequence: bu.sequence,
                    lifetime_units: if status < 128 { lifetime } else { 0 },
                });
                let Ok(p) = wire::mh_packet(self.cfg.address, home, &ba, DEFAULT_TTL) else {
                    continue;
                };
                let out = if care_of == home {
                    Ok(p)
                } else {
                    wire::insert_routing_header(&p, care_of)
                };
                if let Ok(out) = out {
                    let _ = ctx.send(out);
                }
            }
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
                match MhMessage::parse(home, self.cfg.address, inner.payload()) {
                    Ok(MhMessage::BindingUpdate(bu)) if bu.home => {
                        self.stats.binding_updates += 1;
                        if self.pending.len() < self.cfg.max_pending {
                            let due = ctx.now() + self.cfg.processing_delay;
                            self.pending.push_back((due, home, care_of, bu));
                            ctx.set_timer(due, TOKEN_PROCESS);
                        }
                    }
                    _ => self.stats.malformed += 1,
                }
                None
            }
            // A deregistration from the home address itself.
            wire::MOBILITY_HEADER => {
                let IpAddr::V6(home) = pkt.src() else {
                    return None;
                };
                match MhMessage::parse(home, self.cfg.address, pkt.payload()) {
                    Ok(MhMessage::BindingUpdate(bu)) if bu.home => {
                        self.stats.binding_updates += 1;
                        if self.pending.len() < self.cfg.max_pending {
                            let due = ctx.now() + self.cfg.processing_delay;
                            self.pending.push_back((due, home, home, bu));
                            ctx.set_timer(due, TOKEN_PROCESS);
                        }
                    }
                    _ => self.stats.malformed += 1,
                }
                None
            }
            // Reverse tunnel: forward what a mobile node sent from its
            // home address.
            proto::IPV6 => {
                match tunnel::decapsulate(pkt) {
                    Ok(inner) => match inner.src() {
                        IpAddr::V6(h) if self.cache.contains_key(&h) => {
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
        let now = ctx.now();
        let care_of = match self.cache.get(&dst) {
            Some(e) if e.expires_at > now => e.care_of,
            Some(_) => {
                self.cache.remove(&dst);
                return Some(pkt);
            }
            None => return Some(pkt),
        };
        let from = IpAddr::V6(self.cfg.address);
        let expired = "hop limit expired at the home agent";
        if let Some(len) = tunnel::forward(ctx, pkt, from, IpAddr::V6(care_of), expired) {
            self.stats.tunnelled_packets += 1;
            self.stats.tunnelled_bytes += len as u64;
        }
        None
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, _token: u64) {
        self.process_due(ctx);
    }
}
