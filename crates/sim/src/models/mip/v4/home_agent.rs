//! The Mobile IPv4 home agent (RFC 5944 sections 3.8 and 4.2.3): it
//! advertises on the home link, processes registration requests (after a
//! configurable processing and authentication delay), keeps one binding
//! per mobile node (home address to care-of address, with a lifetime) and
//! intercepts every packet for a home address that has a binding, sending
//! it IP-in-IP (RFC 2003: a 20-byte outer header from the home agent to the
//! care-of address). Packets for a mobile node at home (no binding) are
//! routed normally.

use std::collections::{BTreeMap, VecDeque};
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use ipnet::Ipv4Net;

use super::advert::{AdvertisementConfig, Advertiser};
use super::wire::{
    self, AgentFlags, REGISTRATION_PORT, Registration, RegistrationReply, RegistrationRequest, code,
};
use crate::Time;
use crate::kernel::ip::{DEFAULT_TTL, IpPacket};
use crate::kernel::udp::{self, UdpView};
use crate::kernel::{Agent, Ctx, PacketOrigin, RxInfo};
use crate::models::mip::binding::{self, BindingCache};
use crate::models::mip::{ICMP, MipTraceEvent, TraceLog};

const TOKEN_ADVERTISE: u64 = 1;
const TOKEN_PROCESS: u64 = 2;

/// A mobile node's security association with its home agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MobileSecurity {
    pub home_address: Ipv4Addr,
    pub spi: u32,
    pub key: Vec<u8>,
}

/// Settings of a [`HomeAgent`].
#[derive(Debug, Clone, PartialEq)]
pub struct HomeAgentConfig {
    /// The home agent's address (the registration target).
    pub address: Ipv4Addr,
    /// The home network.
    pub home_prefix: Ipv4Net,
    /// Advertising on the home link (a home agent advertises with the H
    /// flag so mobile nodes can tell they are at home).
    pub advertise: Option<AdvertisementConfig>,
    /// Longest registration lifetime granted, seconds.
    pub max_lifetime_s: u16,
    /// Time to process a registration request.
    pub processing_delay: Duration,
    /// Time to verify the request's authenticator and compute the reply's.
    pub auth_delay: Duration,
    /// Mobile nodes allowed to register (with their keys). A request for
    /// an unknown home address, or without a valid authenticator, is
    /// denied with code 131.
    pub mobiles: Vec<MobileSecurity>,
    /// Most bindings kept.
    pub max_bindings: usize,
    /// Most requests waiting for processing.
    pub max_pending: usize,
}

impl HomeAgentConfig {
    pub fn new(address: Ipv4Addr, home_prefix: Ipv4Net) -> Self {
        HomeAgentConfig {
            address,
            home_prefix,
            advertise: None,
            max_lifetime_s: 600,
            processing_delay: Duration::from_millis(1),
            auth_delay: Duration::from_millis(1),
            mobiles: Vec::new(),
            max_bindings: 1024,
            max_pending: 256,
        }
    }
}

/// A mobility binding (RFC 5944 section 4.2.3); its sequence is the
/// registration's Identification.
pub type Binding = binding::Binding<Ipv4Addr, u64>;

/// Counters of a home agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HomeAgentStats {
    pub requests: u64,
    pub accepted: u64,
    pub denied: u64,
    pub deregistrations: u64,
    pub tunnelled_packets: u64,
    pub tunnelled_bytes: u64,
    pub malformed: u64,
    pub advertisements: u64,
}

#[derive(Debug, Clone)]
struct PendingRequest {
    due: Time,
    req: RegistrationRequest,
    raw: Vec<u8>,
    from: Ipv4Addr,
    from_port: u16,
}

/// The home agent.
#[derive(Debug)]
pub struct HomeAgent {
    cfg: HomeAgentConfig,
    advertiser: Option<Advertiser>,
    bindings: BindingCache<Ipv4Addr, u64>,
    last_identification: BTreeMap<Ipv4Addr, u64>,
    pending: VecDeque<PendingRequest>,
    stats: HomeAgentStats,
    trace: TraceLog,
}

impl HomeAgent {
    pub fn new(cfg: HomeAgentConfig) -> Self {
        let bindings = BindingCache::new(cfg.max_bindings);
        let advertiser = cfg.advertise.clone().map(Advertiser::new);
        HomeAgent {
            cfg,
            advertiser,
            bindings,
            last_identification: BTreeMap::new(),
            pending: VecDeque::new(),
            stats: HomeAgentStats::default(),
            trace: TraceLog::default(),
        }
    }

    pub fn stats(&self) -> HomeAgentStats {
        let mut s = self.stats;
        s.advertisements = self.advertiser.as_ref().map_or(0, |a| a.sent);
        s
    }

    /// The binding of `home` (expired ones included until next used).
    pub fn binding(&self, home: Ipv4Addr) -> Option<&Binding> {
        self.bindings.get(home)
    }

    /// What the agent did, in time order.
    pub fn trace(&self) -> &[(Time, MipTraceEvent)] {
        self.trace.events()
    }

    fn advertise(&mut self, ctx: &mut Ctx<'_>) {
        let max = self.cfg.max_lifetime_s;
        if let Some(a) = self.advertiser.as_mut() {
            let flags = AgentFlags {
                home_agent: true,
                ..Default::default()
            };
            a.advertise(ctx, flags, max, Vec::new());
        }
    }

    fn on_registration(&mut self, ctx: &mut Ctx<'_>, pkt: &IpPacket) -> bool {
        let Ok(u) = UdpView::parse(pkt) else {
            return false;
        };
        if u.dst_port != REGISTRATION_PORT || pkt.dst() != IpAddr::V4(self.cfg.address) {
            return false;
        }
        let IpAddr::V4(from) = pkt.src() else {
            return false;
        };
        match Registration::parse(u.payload) {
            Ok(Registration::Request(req)) if req.home_agent == self.cfg.address => {
                self.stats.requests += 1;
                if self.pending.len() >= self.cfg.max_pending {
                    self.stats.denied += 1;
                    return true;
                }
                let due = ctx.now() + self.cfg.processing_delay + self.cfg.auth_delay;
                self.pending.push_back(PendingRequest {
                    due,
                    req,
                    raw: u.payload.to_vec(),
                    from,
                    from_port: u.src_port,
                });
                ctx.set_timer(due, TOKEN_PROCESS);
                true
            }
            Ok(_) => false,
            Err(_) => {
                self.stats.malformed += 1;
                true
            }
        }
    }

    fn process_due(&mut self, ctx: &mut Ctx<'_>) {
        let now = ctx.now();
        while self.pending.front().is_some_and(|p| p.due <= now) {
            let Some(p) = self.pending.pop_front() else {
                break;
            };
            self.process(ctx, p);
        }
    }

    fn process(&mut self, ctx: &mut Ctx<'_>, p: PendingRequest) {
        let now = ctx.now();
        let req = &p.req;
        let sec = self
            .cfg
            .mobiles
            .iter()
            .find(|m| m.home_address == req.home_address)
            .cloned();
        let mut reply_code = code::ACCEPTED;
        let mut lifetime = req.lifetime_s.min(self.cfg.max_lifetime_s);
        match &sec {
            None => reply_code = code::HA_AUTH_FAILED,
            Some(s) => {
                let spi_ok = req.auth.as_ref().is_some_and(|a| a.spi == s.spi);
                if !spi_ok || !wire::verify_auth(&p.raw, &s.key) {
                    reply_code = code::HA_AUTH_FAILED;
                } else if self
                    .last_identification
                    .get(&req.home_address)
                    .is_some_and(|&last| req.identification <= last)
                {
                    reply_code = code::HA_IDENT_MISMATCH;
                }
            }
        }
        if reply_code == code::ACCEPTED {
            self.last_identification
                .insert(req.home_address, req.identification);
            if req.lifetime_s == 0 || req.care_of == req.home_address {
                self.bindings.unbind(now, req.home_address, &mut self.trace);
                self.stats.deregistrations += 1;
                lifetime = 0;
            } else if self
                .bindings
                .bind(
                    now,
                    req.home_address,
                    req.care_of,
                    Duration::from_secs(u64::from(lifetime)),
                    req.identification,
                    &mut self.trace,
                )
                .is_err()
            {
                reply_code = code::HA_UNKNOWN_HA;
            }
        }
        if reply_code == code::ACCEPTED {
            self.stats.accepted += 1;
        } else {
            self.stats.denied += 1;
            lifetime = 0;
        }
        let reply = RegistrationReply {
            code: reply_code,
            lifetime_s: lifetime,
            home_address: req.home_address,
            home_agent: self.cfg.address,
            identification: req.identification,
            auth: None,
        };
        let bytes = match &sec {
            Some(s) => reply.emit(Some((s.spi, &s.key))),
            None => reply.emit(None),
        };
        if let Ok(pkt) = udp::build(
            IpAddr::V4(self.cfg.address),
            IpAddr::V4(p.from),
            REGISTRATION_PORT,
            p.from_port,
            DEFAULT_TTL,
            &bytes,
        ) {
            let _ = ctx.send(pkt);
        }
    }
}

impl Agent for HomeAgent {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        ctx.set_interceptor(true);
        if let Some(a) = &self.advertiser {
            ctx.set_timer(ctx.now() + a.cfg.offset, TOKEN_ADVERTISE);
        }
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: IpPacket, rx: &RxInfo) -> Option<IpPacket> {
        if self.on_registration(ctx, &pkt) {
            return None;
        }
        if pkt.protocol() == ICMP
            && wire::is_solicitation(pkt.payload())
            && let Some(a) = &self.advertiser
            && a.cfg.answer_solicitations
            && rx.iface == Some(a.cfg.iface)
        {
            self.advertise(ctx);
            return None;
        }
        Some(pkt)
    }

    fn on_intercept(
        &mut self,
        ctx: &mut Ctx<'_>,
        pkt: IpPacket,
        _origin: &PacketOrigin,
    ) -> Option<IpPacket> {
        let IpAddr::V4(dst) = pkt.dst() else {
            return Some(pkt);
        };
        if !self.cfg.home_prefix.contains(&dst) {
            return Some(pkt);
        }
        let stats = &mut self.stats;
        let ends = (dst, self.cfg.address);
        self.bindings
            .tunnel(ctx, pkt, ends, "TTL expired at the home agent", |len| {
                stats.tunnelled_packets += 1;
                stats.tunnelled_bytes += len as u64;
            })
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, token: u64) {
        match token {
            TOKEN_ADVERTISE => {
                self.advertise(ctx);
                if let Some(a) = &self.advertiser {
                    ctx.set_timer_in(a.cfg.interval, TOKEN_ADVERTISE);
                }
            }
            TOKEN_PROCESS => self.process_due(ctx),
            _ => {}
        }
    }
}
