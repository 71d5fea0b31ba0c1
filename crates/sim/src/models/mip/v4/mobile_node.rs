//! The Mobile IPv4 mobile node (RFC 5944 sections 2.4 and 3.6): agent
//! discovery from advertisements (and solicitations), movement detection,
//! registration through a foreign agent (or deregistration with the home
//! agent on return home), retransmission and renewal of registrations.
//!
//! The client works at the IP layer so that any transport agent of the
//! node (TCP, SCTP, UDP) runs unchanged above it, bound to the home
//! address: the client keeps the home address (as a /32) on the interface
//! in use and points the default route at the current agent. Packets from
//! the mobile node go straight to their destination through the foreign
//! agent (triangle routing); packets to it arrive tunnelled at the foreign
//! agent, which delivers them on the link.
//!
//! With several interfaces (one radio per access network), the first
//! interface of [`MobileNodeConfig::ifaces`] that is up and has a valid
//! advertisement is used. Movement is detected when the chosen agent
//! changes: an advertisement from a new agent, the current agent's
//! advertisement lifetime running out (RFC 5944 section 2.4.2.1), or, with
//! link-layer triggers, the current interface's link going down.

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use ipnet::{IpNet, Ipv4Net};

use super::wire::{self, AgentAdvertisement, REGISTRATION_PORT, Registration, RegistrationRequest};
use crate::Time;
use crate::kernel::ids::IfaceId;
use crate::kernel::ip::{DEFAULT_TTL, IpPacket, proto};
use crate::kernel::node::Attachment;
use crate::kernel::notification::Notification;
use crate::kernel::routing::Route;
use crate::kernel::udp::{self, UdpView};
use crate::kernel::{Agent, Ctx, RxInfo};
use crate::models::mip::{ICMP, MipTraceEvent, TraceLog};

// Timer tokens: the kind in the low 4 bits, the generation of the request
// (or registration) it belongs to above, so stale timers are ignored.
const TOKEN_SEND: u64 = 1;
const TOKEN_RETRY: u64 = 2;
const TOKEN_EXPIRY: u64 = 3;
const TOKEN_RENEW: u64 = 4;

fn token(kind: u64, generation: u64) -> u64 {
    (generation << 4) | kind
}

/// Settings of a [`MobileNode`].
#[derive(Debug, Clone, PartialEq)]
pub struct MobileNodeConfig {
    pub home_address: Ipv4Addr,
    /// The home network (to recognise the home agent's advertisements).
    pub home_prefix: Ipv4Net,
    pub home_agent: Ipv4Addr,
    /// Interfaces the client may use, most preferred first.
    pub ifaces: Vec<IfaceId>,
    /// Security association with the home agent.
    pub spi: u32,
    pub key: Vec<u8>,
    /// Registration lifetime requested, seconds.
    pub lifetime_s: u16,
    /// Time to compute a request's authenticator before sending it.
    pub auth_delay: Duration,
    /// Send an agent solicitation when an interface's link comes up.
    pub solicit_on_link_up: bool,
    /// Let link-up / link-down notifications drive movement detection;
    /// without them only advertisements and their lifetimes do.
    pub link_layer_triggers: bool,
    /// First retransmission timeout of a request, doubled per retry.
    pub registration_timeout: Duration,
    pub max_retries: u32,
    /// UDP source port of requests.
    pub port: u16,
}

impl MobileNodeConfig {
    pub fn new(
        home_address: Ipv4Addr,
        home_prefix: Ipv4Net,
        home_agent: Ipv4Addr,
        ifaces: Vec<IfaceId>,
        key: Vec<u8>,
    ) -> Self {
        MobileNodeConfig {
            home_address,
            home_prefix,
            home_agent,
            ifaces,
            spi: 256,
            key,
            lifetime_s: 300,
            auth_delay: Duration::from_millis(1),
            solicit_on_link_up: false,
            link_layer_triggers: true,
            registration_timeout: Duration::from_secs(1),
            max_retries: 5,
            port: REGISTRATION_PORT,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Known {
    agent: Ipv4Addr,
    care_of: Option<Ipv4Addr>,
    home: bool,
    expires_at: Time,
}

/// Where the mobile node is attached now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attached {
    pub iface: IfaceId,
    pub agent: Ipv4Addr,
    /// The care-of address registered (None at home).
    pub care_of: Option<Ipv4Addr>,
    pub at_home: bool,
    /// The registration (or deregistration) was accepted.
    pub registered: bool,
}

#[derive(Debug, Clone)]
struct Pending {
    identification: u64,
    payload: Vec<u8>,
    dst: Ipv4Addr,
    iface: IfaceId,
    next_hop: Ipv4Addr,
    tries: u32,
    sent: bool,
    generation: u64,
}

/// One handover as the mobile node saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandoverRecord {
    /// The agent on the new link was first heard (agent discovery done).
    pub discovered_at: Time,
    /// The node decided to move.
    pub detected_at: Time,
    /// The (first) registration request left.
    pub request_sent_at: Option<Time>,
    /// The reply accepting it arrived.
    pub accepted_at: Option<Time>,
    pub to_agent: Ipv4Addr,
    pub at_home: bool,
}

/// Counters of a mobile node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MobileNodeStats {
    pub advertisements: u64,
    pub solicitations: u64,
    pub requests_sent: u64,
    pub retransmissions: u64,
    pub accepted: u64,
    pub denied: u64,
    pub handovers: u64,
    pub malformed: u64,
}

/// The mobile node's Mobile IP client.
#[derive(Debug)]
pub struct MobileNode {
    cfg: MobileNodeConfig,
    known: Vec<Option<Known>>,
    /// When each interface's current agent was first heard.
    heard_at: Vec<Option<Time>>,
    attached: Option<Attached>,
    pending: Option<Pending>,
    last_identification: u64,
    generation: u64,
    handovers: Vec<HandoverRecord>,
    stats: MobileNodeStats,
    trace: TraceLog,
}

impl MobileNode {
    pub fn new(cfg: MobileNodeConfig) -> Self {
        let n = cfg.ifaces.len();
        MobileNode {
            cfg,
            known: vec![None; n],
            heard_at: vec![None; n],
            attached: None,
            pending: None,
            last_identification: 0,
            generation: 0,
            handovers: Vec::new(),
            stats: MobileNodeStats::default(),
            trace: TraceLog::default(),
        }
    }

    pub fn attached(&self) -> Option<Attached> {
        self.attached
    }

    pub fn handovers(&self) -> &[HandoverRecord] {
        &self.handovers
    }

    pub fn stats(&self) -> MobileNodeStats {
        self.stats
    }

    pub fn trace(&self) -> &[(Time, MipTraceEvent)] {
        self.trace.events()
    }

    fn slot_of(&self, iface: IfaceId) -> Option<usize> {
        self.cfg.ifaces.iter().position(|&i| i == iface)
    }

    fn iface_usable(ctx: &Ctx<'_>, iface: IfaceId) -> bool {
        ctx.node()
            .iface(iface)
            .is_some_and(|i| i.is_up() && !matches!(i.attachment(), Attachment::None))
    }

    fn solicit(&mut self, ctx: &mut Ctx<'_>, iface: IfaceId) {
        let src = IpAddr::V4(self.cfg.home_address);
        if let Ok(p) = IpPacket::build(
            src,
            IpAddr::V4(Ipv4Addr::BROADCAST),
            ICMP,
            1,
            &wire::emit_solicitation(),
        ) && ctx.send_via(p, iface, None).is_ok()
        {
            self.stats.solicitations += 1;
            self.trace
                .push(ctx.now(), MipTraceEvent::SolicitationSent { iface });
        }
    }

    fn on_advertisement(&mut self, ctx: &mut Ctx<'_>, slot: usize, adv: AgentAdvertisement) {
        let now = ctx.now();
        self.stats.advertisements += 1;
        let iface = self.cfg.ifaces[slot];
        let home = adv.flags.home_agent && self.cfg.home_prefix.contains(&adv.agent);
        if !home && !adv.flags.foreign_agent {
            return;
        }
        let care_of = if home {
            None
        } else {
            adv.care_of.first().copied()
        };
        if !home && care_of.is_none() {
            return;
        }
        let known = Known {
            agent: adv.agent,
            care_of,
            home,
            expires_at: now + Duration::from_secs(u64::from(adv.lifetime_s)),
        };
        let new_agent = self.known[slot].is_none_or(|k| k.agent != adv.agent);
        if new_agent {
            self.heard_at[slot] = Some(now);
            self.trace.push(
                now,
                MipTraceEvent::AgentDiscovered {
                    iface,
                    agent: IpAddr::V4(adv.agent),
                    home,
                },
            );
        }
        self.known[slot] = Some(known);
        ctx.set_timer(known.expires_at, TOKEN_EXPIRY);
        self.evaluate(ctx);
    }

    /// Chooses the best usable agent and moves to it if it changed.
    fn evaluate(&mut self, ctx: &mut Ctx<'_>) {
        let now = ctx.now();
        for slot in 0..self.known.len() {
            if let Some(k) = self.known[slot]
                && k.expires_at <= now
            {
                self.known[slot] = None;
                self.trace.push(
                    now,
                    MipTraceEvent::AgentLost {
                        iface: self.cfg.ifaces[slot],
                        agent: IpAddr::V4(k.agent),
                    },
                );
            }
        }
        let best = (0..self.known.len())
            .find(|&s| self.known[s].is_some() && Self::iface_usable(ctx, self.cfg.ifaces[s]));
        let Some(slot) = best else {
            return;
        };
        let Some(k) = self.known[slot] else {
            return;
        };
        let iface = self.cfg.ifaces[slot];
        if let Some(a) = self.attached
            && a.iface == iface
            && a.agent == k.agent
        {
            return;
        }
        self.move_to(ctx, slot, k);
    }

    fn move_to(&mut self, ctx: &mut Ctx<'_>, slot: usize, k: Known) {
        let now = ctx.now();
        let iface = self.cfg.ifaces[slot];
        let from = self.attached.map(|a| a.agent);
        self.trace.push(
            now,
            MipTraceEvent::MovementDetected {
                from: from.map(IpAddr::V4),
                to: IpAddr::V4(k.agent),
                iface,
            },
        );
        self.stats.handovers += 1;
        self.place_home_address(ctx, iface);
        // The default route now points at the new agent.
        let default: IpNet = IpNet::V4(Ipv4Net::default());
        ctx.remove_route(default, None);
        let _ = ctx.add_route(Route::via(default, iface, IpAddr::V4(k.agent)));
        self.attached = Some(Attached {
            iface,
            agent: k.agent,
            care_of: k.care_of,
            at_home: k.home,
            registered: false,
        });
        self.handovers.push(HandoverRecord {
            discovered_at: self.heard_at[slot].unwrap_or(now),
            detected_at: now,
            request_sent_at: None,
            accepted_at: None,
            to_agent: k.agent,
            at_home: k.home,
        });
        self.register(ctx);
    }

    /// Keeps the home address on `iface` only (added first, so the node
    /// owns it throughout).
    fn place_home_address(&mut self, ctx: &mut Ctx<'_>, iface: IfaceId) {
        let home = IpAddr::V4(self.cfg.home_address);
        let holders: Vec<IfaceId> = ctx
            .node()
            .ifaces()
            .iter()
            .filter(|i| i.has_addr(home))
            .map(|i| i.id())
            .collect();
        if !holders.contains(&iface)
            && let Ok(net) = IpNet::new(home, 32)
        {
            let _ = ctx.add_address(iface, net);
        }
        for h in holders {
            if h != iface {
                let _ = ctx.remove_address(h, home);
            }
        }
    }

    fn next_identification(&mut self, now: Time) -> u64 {
        // RFC 5944 appendix A: timestamps make a good identification; keep
        // it strictly increasing.
        let id = now.as_nanos().max(self.last_identification + 1);
        self.last_identification = id;
        id
    }

    /// Prepares a (de)registration for the current attachment; it leaves
    /// after the authentication delay.
    fn register(&mut self, ctx: &mut Ctx<'_>) {
        let Some(a) = self.attached else {
            return;
        };
        let identification = self.next_identification(ctx.now());
        let (care_of, lifetime, dst) = if a.at_home {
            (self.cfg.home_address, 0, self.cfg.home_agent)
        } else {
            match a.care_of {
                Some(c) => (c, self.cfg.lifetime_s, a.agent),
                None => return,
            }
        };
        let req = RegistrationRequest {
            flags: 0,
            lifetime_s: lifetime,
            home_address: self.cfg.home_address,
            home_agent: self.cfg.home_agent,
            care_of,
            identification,
            auth: None,
        };
        let payload = req.emit(Some((self.cfg.spi, &self.cfg.key)));
        let tries = self.pending.as_ref().map_or(0, |p| {
            if p.iface == a.iface && p.next_hop == a.agent {
                p.tries
            } else {
                0
            }
        });
        self.generation += 1;
        self.pending = Some(Pending {
            identification,
            payload,
            dst,
            iface: a.iface,
            next_hop: a.agent,
            tries,
            sent: false,
            generation: self.generation,
        });
        ctx.set_timer_in(self.cfg.auth_delay, token(TOKEN_SEND, self.generation));
    }

    fn send_pending(&mut self, ctx: &mut Ctx<'_>) {
        let now = ctx.now();
        let Some(p) = self.pending.as_mut() else {
            return;
        };
        if p.sent {
            return;
        }
        p.sent = true;
        let lifetime = u16::from_be_bytes([p.payload[2], p.payload[3]]);
        let care_of = Ipv4Addr::new(p.payload[12], p.payload[13], p.payload[14], p.payload[15]);
        let Ok(pkt) = udp::build(
            IpAddr::V4(self.cfg.home_address),
            IpAddr::V4(p.dst),
            self.cfg.port,
            REGISTRATION_PORT,
            DEFAULT_TTL,
            &p.payload,
        ) else {
            return;
        };
        let _ = ctx.send_via(pkt, p.iface, Some(IpAddr::V4(p.next_hop)));
        if p.tries == 0 {
            self.stats.requests_sent += 1;
        } else {
            self.stats.retransmissions += 1;
        }
        let timeout = self
            .cfg
            .registration_timeout
            .saturating_mul(1u32 << p.tries.min(16));
        p.tries += 1;
        let ev = MipTraceEvent::RegistrationSent {
            identification: p.identification,
            agent: IpAddr::V4(p.next_hop),
            care_of: IpAddr::V4(care_of),
            lifetime_s: lifetime,
        };
        self.trace.push(now, ev);
        if let Some(h) = self.handovers.last_mut()
            && h.request_sent_at.is_none()
        {
            h.request_sent_at = Some(now);
        }
        ctx.set_timer_in(timeout, token(TOKEN_RETRY, p.generation));
    }

    fn on_reply(&mut self, ctx: &mut Ctx<'_>, payload: &[u8]) {
        let now = ctx.now();
        let Ok(Registration::Reply(rep)) = Registration::parse(payload) else {
            self.stats.malformed += 1;
            return;
        };
        let Some(p) = &self.pending else {
            return;
        };
        if rep.identification != p.identification || rep.home_address != self.cfg.home_address {
            return;
        }
        // Replies from the home agent carry its authenticator; a denial by
        // a foreign agent does not.
        let from_ha = rep.auth.is_some();
        if from_ha && !wire::verify_auth(payload, &self.cfg.key) {
            self.stats.malformed += 1;
            return;
        }
        self.pending = None;
        if rep.code <= 1 {
            self.stats.accepted += 1;
            self.trace.push(
                now,
                MipTraceEvent::RegistrationAccepted {
                    identification: rep.identification,
                    lifetime_s: rep.lifetime_s,
                },
            );
            if let Some(a) = self.attached.as_mut() {
                a.registered = true;
            }
            if let Some(h) = self.handovers.last_mut()
                && h.accepted_at.is_none()
            {
                h.accepted_at = Some(now);
            }
            if rep.lifetime_s > 0 {
                // Renew before the binding expires (at 80% of it).
                let renew = Duration::from_secs(u64::from(rep.lifetime_s)).mul_f64(0.8);
                ctx.set_timer_in(renew, token(TOKEN_RENEW, self.generation));
            }
        } else {
            self.stats.denied += 1;
            self.trace.push(
                now,
                MipTraceEvent::RegistrationDenied {
                    identification: rep.identification,
                    code: rep.code,
                },
            );
        }
    }

    fn on_retry(&mut self, ctx: &mut Ctx<'_>) {
        let Some(p) = &self.pending else {
            return;
        };
        if !p.sent {
            return;
        }
        if p.tries > self.cfg.max_retries {
            self.pending = None;
            return;
        }
        // A retransmission is a new request with a new identification.
        self.register(ctx);
    }
}

impl Agent for MobileNode {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        let home = IpAddr::V4(self.cfg.home_address);
        if !ctx.node().owns(home)
            && let Some(&first) = self.cfg.ifaces.first()
            && let Ok(net) = IpNet::new(home, 32)
        {
            let _ = ctx.add_address(first, net);
        }
        if self.cfg.solicit_on_link_up {
            for i in self.cfg.ifaces.clone() {
                if Self::iface_usable(ctx, i) {
                    self.solicit(ctx, i);
                }
            }
        }
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: IpPacket, rx: &RxInfo) -> Option<IpPacket> {
        match pkt.protocol() {
            ICMP => {
                let Some(slot) = rx.iface.and_then(|i| self.slot_of(i)) else {
                    return Some(pkt);
                };
                match AgentAdvertisement::parse(pkt.payload()) {
                    Ok(adv) => {
                        self.on_advertisement(ctx, slot, adv);
                        None
                    }
                    Err(_) => Some(pkt),
                }
            }
            proto::UDP => {
                let is_reply = UdpView::parse(&pkt).is_ok_and(|u| {
                    u.dst_port == self.cfg.port
                        && u.src_port == REGISTRATION_PORT
                        && u.payload.first() == Some(&3)
                });
                if !is_reply || pkt.dst() != IpAddr::V4(self.cfg.home_address) {
                    return Some(pkt);
                }
                if let Ok(u) = UdpView::parse(&pkt) {
                    let payload = u.payload.to_vec();
                    self.on_reply(ctx, &payload);
                }
                None
            }
            _ => Some(pkt),
        }
    }

    fn on_notify(&mut self, ctx: &mut Ctx<'_>, n: &Notification) {
        if !self.cfg.link_layer_triggers {
            return;
        }
        match n {
            Notification::LinkDown { iface, .. } => {
                let Some(slot) = self.slot_of(*iface) else {
                    return;
                };
                // The agent of a lost link is unreachable: no default route
                // through it until the node chooses another agent (else
                // packets would leave by whatever cell the radio joins
                // next, before agent discovery).
                if self.attached.is_some_and(|a| a.iface == *iface) {
                    ctx.remove_route(IpNet::V4(Ipv4Net::default()), Some(*iface));
                }
                if let Some(k) = self.known[slot].take() {
                    self.trace.push(
                        ctx.now(),
                        MipTraceEvent::AgentLost {
                            iface: *iface,
                            agent: IpAddr::V4(k.agent),
                        },
                    );
                }
                self.evaluate(ctx);
            }
            Notification::LinkUp { iface, .. } => {
                if self.slot_of(*iface).is_some() && self.cfg.solicit_on_link_up {
                    self.solicit(ctx, *iface);
                }
                self.evaluate(ctx);
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, tok: u64) {
        let generation = tok >> 4;
        let current = self.pending.as_ref().map(|p| p.generation);
        match tok & 0xf {
            TOKEN_SEND if current == Some(generation) => self.send_pending(ctx),
            TOKEN_RETRY if current == Some(generation) => self.on_retry(ctx),
            TOKEN_EXPIRY => self.evaluate(ctx),
            TOKEN_RENEW
                if generation == self.generation
                    && self.pending.is_none()
                    && self.attached.is_some_and(|a| !a.at_home) =>
            {
                self.register(ctx)
            }
            _ => {}
        }
    }
}
