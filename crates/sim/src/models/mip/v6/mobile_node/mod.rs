//! The Mobile IPv6 mobile node (RFC 6275 section 11), with route
//! optimisation and, optionally, the mobile side of FMIPv6 (RFC 5568).
//!
//! Movement detection: router advertisements (a new router, or the
//! current one's lifetime running out) and, with link-layer triggers,
//! link-up / link-down notifications (a router solicitation on link-up).
//! The care-of address is formed from the advertised prefix and the home
//! address's interface identifier (stateless autoconfiguration) and used
//! after a configurable configuration delay (duplicate address detection).
//! Then a Binding Update goes to the home agent (from the care-of address,
//! home address in a destination option) and, once it is acknowledged, to
//! each correspondent of [`MobileNode6Config::correspondents`].
//!
//! Data path: packets of the node's transports are sent from the home
//! address. Away from home the client rewrites them: to a correspondent
//! with an acknowledged binding for the current care-of address, from the
//! care-of address with a Home Address option (route optimisation); to any
//! other destination, reverse-tunnelled to the home agent. Packets
//! arriving tunnelled or with a type 2 routing header are restored to the
//! home address before the transports see them.
//!
//! Fast handovers (when [`MobileNode6Config::fast_handovers`] is set): a
//! `BeaconDetected` notification for another cell makes the node ask its
//! current router for a proxy advertisement of that access point
//! (RtSolPr), form the new care-of address from the answer (PrRtAdv) and
//! send a Fast Binding Update from the current care-of address. When its
//! interface then comes up in that cell, the node uses the new care-of
//! address at once (no detection or configuration delay), announces
//! itself to the new router with an unsolicited neighbour advertisement,
//! sends what it has to send through a tunnel to the previous router until
//! its home agent acknowledges the new address, and updates its bindings.
//! If it attached before receiving the Fast Binding Acknowledgement, it
//! sends the Fast Binding Update again from the new link (reactive mode).
//! When it attaches is up to the scenario (early, ideal, late).

use std::collections::VecDeque;
use std::net::{IpAddr, Ipv6Addr};
use std::time::Duration;

mod fast;
mod signalling;

use ipnet::{IpNet, Ipv6Net};

use super::router::ALL_NODES;
use super::wire::{
    self, BindingUpdate, ICMPV6, LIFETIME_UNIT_S, MhMessage, ProxyAdvertisement,
    RouterAdvertisement, icmp_type,
};
use crate::Time;
use crate::kernel::ids::{CellId, IfaceId};
use crate::kernel::ip::{DEFAULT_TTL, IpPacket, proto};
use crate::kernel::node::Attachment;
use crate::kernel::notification::Notification;
use crate::kernel::routing::Route;
use crate::kernel::tunnel;
use crate::kernel::{Agent, Ctx, PacketOrigin, RxInfo};
use crate::models::mip::{FmipMessage, MipTraceEvent, TraceLog};

const TOKEN_CONFIGURE: u64 = 1;
const TOKEN_RETRY: u64 = 2;
const TOKEN_EXPIRY: u64 = 3;

fn token(kind: u64, index: u64, generation: u64) -> u64 {
    (generation << 12) | ((index & 0xff) << 4) | kind
}

/// Settings of a [`MobileNode6`].
#[derive(Debug, Clone, PartialEq)]
pub struct MobileNode6Config {
    pub home_address: Ipv6Addr,
    pub home_prefix: Ipv6Net,
    pub home_agent: Ipv6Addr,
    /// Interfaces the client may use, most preferred first.
    pub ifaces: Vec<IfaceId>,
    /// Correspondents to send Binding Updates to (route optimisation).
    pub correspondents: Vec<Ipv6Addr>,
    pub route_optimisation: bool,
    /// Binding lifetime requested, units of 4 s.
    pub lifetime_units: u16,
    /// Time from movement detection to a usable care-of address
    /// (stateless autoconfiguration and duplicate address detection).
    pub address_config_delay: Duration,
    /// First Binding Acknowledgement timeout (RFC 6275
    /// INITIAL_BINDACK_TIMEOUT: 1 s), doubled per retry.
    pub binding_timeout: Duration,
    pub max_retries: u32,
    pub link_layer_triggers: bool,
    pub solicit_on_link_up: bool,
    /// Act as an FMIPv6 mobile node.
    pub fast_handovers: bool,
}

impl MobileNode6Config {
    pub fn new(
        home_address: Ipv6Addr,
        home_prefix: Ipv6Net,
        home_agent: Ipv6Addr,
        ifaces: Vec<IfaceId>,
    ) -> Self {
        MobileNode6Config {
            home_address,
            home_prefix,
            home_agent,
            ifaces,
            correspondents: Vec::new(),
            route_optimisation: true,
            lifetime_units: 150,
            address_config_delay: Duration::from_millis(1),
            binding_timeout: Duration::from_secs(1),
            max_retries: 5,
            link_layer_triggers: true,
            solicit_on_link_up: true,
            fast_handovers: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct KnownRouter {
    router: Ipv6Addr,
    prefix: Ipv6Net,
    home: bool,
    expires_at: Time,
}

/// Where the mobile node is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Current6 {
    pub iface: IfaceId,
    pub router: Ipv6Addr,
    pub prefix: Ipv6Net,
    pub at_home: bool,
    /// The care-of address (the home address at home).
    pub care_of: Ipv6Addr,
    /// The care-of address is configured and usable.
    pub ready: bool,
    /// Attached by a fast handover.
    pub fast: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BindingState {
    care_of: Ipv6Addr,
    sequence: u16,
    acked: bool,
    tries: u32,
    lifetime_units: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CnState {
    address: Ipv6Addr,
    acked_coa: Option<Ipv6Addr>,
    pending: Option<BindingState>,
}

/// A fast handover being prepared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Prepared {
    cell: CellId,
    identifier: u16,
    par: Ipv6Addr,
    previous_coa: Ipv6Addr,
    nar: Option<Ipv6Addr>,
    prefix: Option<Ipv6Net>,
    new_coa: Option<Ipv6Addr>,
    fbu_sequence: u16,
    fback: bool,
}

/// One handover as the mobile node saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Handover6Record {
    pub detected_at: Time,
    pub ready_at: Option<Time>,
    pub home_bu_sent_at: Option<Time>,
    pub home_acked_at: Option<Time>,
    /// The last correspondent acknowledged the new care-of address.
    pub correspondents_acked_at: Option<Time>,
    pub router: Ipv6Addr,
    pub at_home: bool,
    pub fast: bool,
}

/// Times of the fast-handover messages of the latest preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FastRecord {
    pub rtsolpr_at: Option<Time>,
    pub prrtadv_at: Option<Time>,
    pub fbu_at: Option<Time>,
    pub fback_at: Option<Time>,
    pub attached_at: Option<Time>,
    pub una_at: Option<Time>,
    /// The Fast Binding Update was (re)sent from the new link.
    pub reactive: bool,
}

/// Counters of a mobile node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MobileNode6Stats {
    pub router_advertisements: u64,
    pub binding_updates: u64,
    pub retransmissions: u64,
    pub binding_acks: u64,
    pub handovers: u64,
    pub reverse_tunnelled: u64,
    pub route_optimised: u64,
    pub tunnelled_to_par: u64,
    pub decapsulated: u64,
    pub dropped_no_coa: u64,
    pub malformed: u64,
}

/// The mobile node's Mobile IPv6 client.
#[derive(Debug)]
pub struct MobileNode6 {
    cfg: MobileNode6Config,
    known: Vec<Option<KnownRouter>>,
    current: Option<Current6>,
    previous_coas: VecDeque<Ipv6Addr>,
    generation: u64,
    sequence: u16,
    home: Option<BindingState>,
    cns: Vec<CnState>,
    prepared: Option<Prepared>,
    fast_record: FastRecord,
    /// (PAR, previous care-of address) while uplink packets go through
    /// the previous router.
    par_tunnel: Option<(Ipv6Addr, Ipv6Addr)>,
    handovers: Vec<Handover6Record>,
    stats: MobileNode6Stats,
    trace: TraceLog,
}

impl MobileNode6 {
    pub fn new(cfg: MobileNode6Config) -> Self {
        let n = cfg.ifaces.len();
        let cns = cfg
            .correspondents
            .iter()
            .map(|&address| CnState {
                address,
                acked_coa: None,
                pending: None,
            })
            .collect();
        MobileNode6 {
            cfg,
            known: vec![None; n],
            current: None,
            previous_coas: VecDeque::new(),
            generation: 0,
            sequence: 0,
            home: None,
            cns,
            prepared: None,
            fast_record: FastRecord::default(),
            par_tunnel: None,
            handovers: Vec::new(),
            stats: MobileNode6Stats::default(),
            trace: TraceLog::default(),
        }
    }

    pub fn current(&self) -> Option<Current6> {
        self.current
    }

    pub fn handovers(&self) -> &[Handover6Record] {
        &self.handovers
    }

    /// The latest fast-handover preparation's timeline.
    pub fn fast_record(&self) -> FastRecord {
        self.fast_record
    }

    /// Every FMIPv6 message in the trace (the timeline of each fast
    /// handover, where [`Self::fast_record`] keeps the latest).
    fn fmip_trace(&mut self, t: Time, message: FmipMessage, sent: bool, peer: Ipv6Addr) {
        self.trace.push(t, MipTraceEvent::fmip(message, sent, peer));
    }

    pub fn stats(&self) -> MobileNode6Stats {
        self.stats
    }

    pub fn trace(&self) -> &[(Time, MipTraceEvent)] {
        self.trace.events()
    }

    /// The home agent acknowledged the current care-of address.
    pub fn home_registered(&self) -> bool {
        self.home.is_some_and(|h| h.acked)
    }

    /// The care-of address the correspondent `cn` acknowledged.
    pub fn correspondent_binding(&self, cn: Ipv6Addr) -> Option<Ipv6Addr> {
        self.cns
            .iter()
            .find(|c| c.address == cn)
            .and_then(|c| c.acked_coa)
    }

    fn slot_of(&self, iface: IfaceId) -> Option<usize> {
        self.cfg.ifaces.iter().position(|&i| i == iface)
    }

    fn cell_of(ctx: &Ctx<'_>, iface: IfaceId) -> Option<CellId> {
        match ctx.node().iface(iface)?.attachment() {
            Attachment::CellStation { cell, .. } => Some(cell),
            _ => None,
        }
    }

    fn usable(ctx: &Ctx<'_>, iface: IfaceId) -> bool {
        ctx.node()
            .iface(iface)
            .is_some_and(|i| i.is_up() && !matches!(i.attachment(), Attachment::None))
    }

    /// The care-of address formed from `prefix` and the home address's
    /// interface identifier.
    fn form_address(&self, prefix: Ipv6Net) -> Ipv6Addr {
        let p = u128::from(prefix.network());
        let iid = u128::from(self.cfg.home_address) & 0xffff_ffff_ffff_ffff;
        Ipv6Addr::from((p & !0xffff_ffff_ffff_ffffu128) | iid)
    }

    fn send_icmp(
        &mut self,
        ctx: &mut Ctx<'_>,
        iface: IfaceId,
        src: Ipv6Addr,
        dst: Ipv6Addr,
        msg: &[u8],
    ) {
        if let Ok(p) = IpPacket::build(IpAddr::V6(src), IpAddr::V6(dst), ICMPV6, 255, msg) {
            let _ = ctx.send_via(p, iface, None);
        }
    }

    fn solicit(&mut self, ctx: &mut Ctx<'_>, iface: IfaceId) {
        let src = self.current.map_or(self.cfg.home_address, |c| c.care_of);
        let msg = wire::router_solicitation(src, super::router::ALL_ROUTERS);
        self.send_icmp(ctx, iface, src, super::router::ALL_ROUTERS, &msg);
    }

    fn on_router_advertisement(
        &mut self,
        ctx: &mut Ctx<'_>,
        slot: usize,
        router: Ipv6Addr,
        ra: RouterAdvertisement,
    ) {
        let now = ctx.now();
        self.stats.router_advertisements += 1;
        let home = ra.prefix.network() == self.cfg.home_prefix.network();
        let k = KnownRouter {
            router,
            prefix: ra.prefix,
            home,
            expires_at: now + Duration::from_secs(u64::from(ra.router_lifetime_s)),
        };
        if self.known[slot].is_none_or(|o| o.router != router) {
            self.trace.push(
                now,
                MipTraceEvent::AgentDiscovered {
                    iface: self.cfg.ifaces[slot],
                    agent: IpAddr::V6(router),
                    home,
                },
            );
        }
        self.known[slot] = Some(k);
        ctx.set_timer(k.expires_at, token(TOKEN_EXPIRY, 0, 0));
        self.evaluate(ctx);
    }

    fn evaluate(&mut self, ctx: &mut Ctx<'_>) {
        let now = ctx.now();
        for s in 0..self.known.len() {
            if let Some(k) = self.known[s]
                && k.expires_at <= now
            {
                self.known[s] = None;
                self.trace.push(
                    now,
                    MipTraceEvent::AgentLost {
                        iface: self.cfg.ifaces[s],
                        agent: IpAddr::V6(k.router),
                    },
                );
            }
        }
        let Some(slot) = (0..self.known.len())
            .find(|&s| self.known[s].is_some() && Self::usable(ctx, self.cfg.ifaces[s]))
        else {
            return;
        };
        let Some(k) = self.known[slot] else {
            return;
        };
        let iface = self.cfg.ifaces[slot];
        if let Some(c) = self.current
            && c.iface == iface
            && c.router == k.router
        {
            return;
        }
        self.move_to(ctx, iface, k);
    }

    fn move_to(&mut self, ctx: &mut Ctx<'_>, iface: IfaceId, k: KnownRouter) {
        let now = ctx.now();
        // A fast handover not used (the node moved elsewhere, or before
        // the proxy advertisement came) is abandoned.
        self.prepared = None;
        self.generation += 1;
        self.stats.handovers += 1;
        self.trace.push(
            now,
            MipTraceEvent::MovementDetected {
                from: self.current.map(|c| IpAddr::V6(c.router)),
                to: IpAddr::V6(k.router),
                iface,
            },
        );
        let care_of = if k.home {
            self.cfg.home_address
        } else {
            self.form_address(k.prefix)
        };
        self.current = Some(Current6 {
            iface,
            router: k.router,
            prefix: k.prefix,
            at_home: k.home,
            care_of,
            ready: false,
            fast: false,
        });
        self.handovers.push(Handover6Record {
            detected_at: now,
            ready_at: None,
            home_bu_sent_at: None,
            home_acked_at: None,
            correspondents_acked_at: None,
            router: k.router,
            at_home: k.home,
            fast: false,
        });
        if k.home {
            self.configure(ctx);
        } else {
            ctx.set_timer_in(
                self.cfg.address_config_delay,
                token(TOKEN_CONFIGURE, 0, self.generation),
            );
        }
    }

    /// Installs the current care-of address, home address and default
    /// route, then updates the home agent.
    fn configure(&mut self, ctx: &mut Ctx<'_>) {
        let now = ctx.now();
        let Some(mut c) = self.current else {
            return;
        };
        let home = IpAddr::V6(self.cfg.home_address);
        // Remove old care-of addresses (kept in memory for packets still
        // tunnelled to them).
        let mine: Vec<(IfaceId, IpNet)> = ctx
            .node()
            .ifaces()
            .iter()
            .flat_map(|i| i.addrs().iter().map(move |a| (i.id(), *a)))
            .collect();
        for (i, a) in &mine {
            if let IpAddr::V6(x) = a.addr()
                && a.addr() != home
                && self.cfg.ifaces.contains(i)
                && x != c.care_of
            {
                let _ = ctx.remove_address(*i, a.addr());
                if !self.previous_coas.contains(&x) {
                    self.previous_coas.push_front(x);
                    self.previous_coas.truncate(4);
                }
            }
        }
        let home_len = if c.at_home {
            c.prefix.prefix_len()
        } else {
            128
        };
        for (i, a) in &mine {
            if a.addr() == home && (*i != c.iface || a.prefix_len() != home_len) {
                let _ = ctx.remove_address(*i, home);
            }
        }
        if !ctx.node().iface(c.iface).is_some_and(|i| i.has_addr(home))
            && let Ok(net) = IpNet::new(home, home_len)
        {
            let _ = ctx.add_address(c.iface, net);
        }
        if !c.at_home
            && !ctx
                .node()
                .iface(c.iface)
                .is_some_and(|i| i.has_addr(IpAddr::V6(c.care_of)))
            && let Ok(net) = IpNet::new(IpAddr::V6(c.care_of), c.prefix.prefix_len())
        {
            let _ = ctx.add_address(c.iface, net);
        }
        let default: IpNet = IpNet::V6(Ipv6Net::default());
        ctx.remove_route(default, None);
        let _ = ctx.add_route(Route::via(default, c.iface, IpAddr::V6(c.router)));
        c.ready = true;
        self.current = Some(c);
        if let Some(h) = self.handovers.last_mut() {
            h.ready_at.get_or_insert(now);
        }
        self.send_home_update(ctx);
    }

    /// Sends a packet of the node's transports away from home.
    fn send_away(&mut self, ctx: &mut Ctx<'_>, pkt: IpPacket, c: Current6) {
        let IpAddr::V6(dst) = pkt.dst() else {
            return;
        };
        let (coa, via_par) = match self.par_tunnel {
            Some((par, pcoa)) => (pcoa, Some(par)),
            None => (c.care_of, None),
        };
        let ro = self.cfg.route_optimisation
            && self
                .cns
                .iter()
                .any(|x| x.address == dst && x.acked_coa == Some(coa));
        let out = if ro {
            self.stats.route_optimised += 1;
            wire::insert_home_address(&pkt, coa).ok()
        } else {
            self.stats.reverse_tunnelled += 1;
            tunnel::encapsulate(
                IpAddr::V6(coa),
                IpAddr::V6(self.cfg.home_agent),
                DEFAULT_TTL,
                &pkt,
            )
            .ok()
        };
        let Some(out) = out else {
            ctx.drop_packet(pkt, "cannot rewrite for mobility");
            return;
        };
        let out = match via_par {
            Some(par) => {
                self.stats.tunnelled_to_par += 1;
                match tunnel::encapsulate(IpAddr::V6(c.care_of), IpAddr::V6(par), DEFAULT_TTL, &out)
                {
                    Ok(o) => o,
                    Err(_) => return,
                }
            }
            None => out,
        };
        let _ = ctx.send(out);
    }

    fn is_mine(&self, a: Ipv6Addr) -> bool {
        a == self.cfg.home_address
            || self.current.is_some_and(|c| c.care_of == a)
            || self.previous_coas.contains(&a)
    }
}

impl Agent for MobileNode6 {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        ctx.set_interceptor(true);
        let home = IpAddr::V6(self.cfg.home_address);
        if !ctx.node().owns(home)
            && let Some(&first) = self.cfg.ifaces.first()
            && let Ok(net) = IpNet::new(home, 128)
        {
            let _ = ctx.add_address(first, net);
        }
        if self.cfg.solicit_on_link_up {
            for i in self.cfg.ifaces.clone() {
                if Self::usable(ctx, i) {
                    self.solicit(ctx, i);
                }
            }
        }
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: IpPacket, rx: &RxInfo) -> Option<IpPacket> {
        let (IpAddr::V6(src), IpAddr::V6(dst)) = (pkt.src(), pkt.dst()) else {
            return Some(pkt);
        };
        match pkt.protocol() {
            ICMPV6 => {
                let Some(slot) = rx.iface.and_then(|i| self.slot_of(i)) else {
                    return Some(pkt);
                };
                match wire::icmp_type_of(src, dst, pkt.payload()) {
                    Some(icmp_type::ROUTER_ADVERTISEMENT) => {
                        match RouterAdvertisement::parse(src, dst, pkt.payload()) {
                            Ok(ra) => self.on_router_advertisement(ctx, slot, src, ra),
                            Err(_) => self.stats.malformed += 1,
                        }
                        None
                    }
                    Some(icmp_type::FMIP) => {
                        if let Some(adv) = ProxyAdvertisement::parse(src, dst, pkt.payload()) {
                            self.on_proxy_advertisement(ctx, adv);
                        }
                        None
                    }
                    _ => Some(pkt),
                }
            }
            wire::MOBILITY_HEADER if self.is_mine(dst) => {
                match MhMessage::parse(src, dst, pkt.payload()) {
                    Ok(MhMessage::BindingAck(ba)) => self.on_binding_ack(ctx, src, ba),
                    Ok(MhMessage::FastBindingAck(ba)) if ba.status < 128 => {
                        if let Some(p) = self.prepared.as_mut() {
                            p.fback = true;
                        }
                        self.fast_record.fback_at.get_or_insert(ctx.now());
                        self.fmip_trace(ctx.now(), FmipMessage::FBack, false, src);
                    }
                    Ok(_) => {}
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
        origin: &PacketOrigin,
    ) -> Option<IpPacket> {
        match origin {
            PacketOrigin::Local { .. } => {
                if pkt.src() != IpAddr::V6(self.cfg.home_address) {
                    return Some(pkt);
                }
                let Some(c) = self.current else {
                    return Some(pkt);
                };
                if c.at_home {
                    return Some(pkt);
                }
                if !c.ready {
                    self.stats.dropped_no_coa += 1;
                    ctx.drop_packet(pkt, "mobile node has no care-of address yet");
                    return None;
                }
                self.send_away(ctx, pkt, c);
                None
            }
            PacketOrigin::Received { .. } => {
                let mut p = pkt;
                let mut changed = false;
                for _ in 0..4 {
                    let IpAddr::V6(d) = p.dst() else {
                        break;
                    };
                    if !self.is_mine(d) || d == self.cfg.home_address {
                        break;
                    }
                    match p.protocol() {
                        proto::IPV6 => match tunnel::decapsulate(p) {
                            Ok(inner) => {
                                p = inner;
                                changed = true;
                            }
                            Err(_) => {
                                self.stats.malformed += 1;
                                return None;
                            }
                        },
                        wire::ROUTING => match wire::strip_routing_header(&p) {
                            Ok((inner, _)) => {
                                p = inner;
                                changed = true;
                            }
                            Err(_) => break,
                        },
                        _ => break,
                    }
                }
                if changed {
                    self.stats.decapsulated += 1;
                }
                Some(p)
            }
        }
    }

    fn on_notify(&mut self, ctx: &mut Ctx<'_>, n: &Notification) {
        match n {
            Notification::BeaconDetected { iface, cell } => self.on_beacon(ctx, *iface, *cell),
            Notification::LinkDown { iface, .. } if self.cfg.link_layer_triggers => {
                // The router of a lost link is unreachable: no default
                // route through it until the node moves to another router.
                if self.current.is_some_and(|c| c.iface == *iface) {
                    ctx.remove_route(IpNet::V6(Ipv6Net::default()), Some(*iface));
                }
                if let Some(slot) = self.slot_of(*iface)
                    && let Some(k) = self.known[slot].take()
                {
                    self.trace.push(
                        ctx.now(),
                        MipTraceEvent::AgentLost {
                            iface: *iface,
                            agent: IpAddr::V6(k.router),
                        },
                    );
                }
                self.evaluate(ctx);
            }
            Notification::LinkUp { iface, cell } => {
                if self.slot_of(*iface).is_none() {
                    return;
                }
                if let Some(p) = self.prepared
                    && *cell == Some(p.cell)
                    && p.new_coa.is_some()
                {
                    self.fast_attach(ctx, *iface, p);
                    return;
                }
                if self.cfg.link_layer_triggers {
                    if self.cfg.solicit_on_link_up {
                        self.solicit(ctx, *iface);
                    }
                    self.evaluate(ctx);
                }
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, tok: u64) {
        let kind = tok & 0xf;
        let index = ((tok >> 4) & 0xff) as usize;
        let generation = tok >> 12;
        match kind {
            TOKEN_CONFIGURE if generation == self.generation => self.configure(ctx),
            TOKEN_RETRY => self.on_retry(ctx, index, generation),
            TOKEN_EXPIRY => self.evaluate(ctx),
            _ => {}
        }
    }
}
