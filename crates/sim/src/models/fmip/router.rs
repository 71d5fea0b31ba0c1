//! The FMIPv6 access router (RFC 5568 sections 3 and 5), in both roles:
//!
//! As previous access router (PAR): answers a Router Solicitation for
//! Proxy Advertisement with the neighbouring router's address and prefix
//! for the access point asked about; on a Fast Binding Update from the
//! mobile node's previous care-of address (predictive mode) it sends a
//! Handover Initiate to the new router, and on its Handover Acknowledge
//! starts tunnelling every packet for the previous care-of address to the
//! new one and sends the Fast Binding Acknowledgement to both addresses; a
//! Fast Binding Update that arrives from the new link (reactive mode)
//! starts the tunnel at once. It also decapsulates what the mobile node
//! sends back through the tunnel.
//!
//! As new access router (NAR): on a Handover Initiate it expects the new
//! care-of address and buffers the packets for it (a bounded buffer, for a
//! bounded time) until the mobile node announces itself with an
//! unsolicited neighbour advertisement, then delivers them.

use std::collections::VecDeque;
use std::net::{IpAddr, Ipv6Addr};

use ipnet::Ipv6Net;

use super::settings::FmipSettings;
use crate::Time;
use crate::kernel::ids::{CellId, IfaceId};
use crate::kernel::ip::{DEFAULT_TTL, IpPacket, proto};
use crate::kernel::tunnel;
use crate::kernel::{Agent, Ctx, PacketOrigin, RxInfo};
use crate::models::mip::v6::wire::{
    self, BindingAck, HandoverAck, HandoverInitiate, ICMPV6, MhMessage, ProxyAdvertisement,
    icmp_type,
};
use crate::models::mip::{FmipMessage, MipTraceEvent, TraceLog};

/// The FMIPv6 message a Mobility Header message is, if it is one.
fn fmip_message(m: &MhMessage) -> Option<FmipMessage> {
    match m {
        MhMessage::FastBindingUpdate(_) => Some(FmipMessage::FBU),
        MhMessage::FastBindingAck(_) => Some(FmipMessage::FBack),
        MhMessage::HandoverInitiate(_) => Some(FmipMessage::HI),
        MhMessage::HandoverAck(_) => Some(FmipMessage::HAck),
        _ => None,
    }
}

const TOKEN_PROCESS: u64 = 1;
const TOKEN_EXPIRE: u64 = 2;

/// A neighbouring access router and the access point (cell) it serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Neighbour {
    pub cell: CellId,
    pub address: Ipv6Addr,
    pub prefix: Ipv6Net,
}

/// Settings of an [`FmipRouter`].
#[derive(Debug, Clone, PartialEq)]
pub struct FmipRouterConfig {
    /// The router's address (on its access link; mobile nodes know it from
    /// router advertisements).
    pub address: Ipv6Addr,
    /// The access interface (a cell's access point).
    pub iface: IfaceId,
    pub prefix: Ipv6Net,
    pub neighbours: Vec<Neighbour>,
    /// The deployment's settings (processing, buffer, forwarding).
    pub settings: FmipSettings,
}

impl FmipRouterConfig {
    pub fn new(address: Ipv6Addr, iface: IfaceId, prefix: Ipv6Net) -> Self {
        FmipRouterConfig {
            address,
            iface,
            prefix,
            neighbours: Vec::new(),
            settings: FmipSettings::default(),
        }
    }
}

/// Counters of an FMIPv6 router.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FmipRouterStats {
    pub proxy_advertisements: u64,
    pub fast_binding_updates: u64,
    pub handover_initiates: u64,
    pub handover_acks: u64,
    /// Packets tunnelled to a new care-of address (PAR).
    pub forwarded: u64,
    /// Packets buffered for an arriving mobile node (NAR).
    pub buffered: u64,
    /// Buffered packets delivered after the announcement.
    pub delivered_from_buffer: u64,
    /// Packets dropped because the buffer was full or timed out.
    pub buffer_drops: u64,
    pub reverse_tunnelled: u64,
    pub malformed: u64,
}

/// Timeline of one handover at this router (for tests and traces).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FmipRouterRecord {
    pub fbu_at: Option<Time>,
    pub hi_sent_at: Option<Time>,
    pub hack_at: Option<Time>,
    pub forwarding_from: Option<Time>,
    pub expected_at: Option<Time>,
    pub announced_at: Option<Time>,
}

#[derive(Debug)]
enum Work {
    ProxyAdvertisement {
        to: Ipv6Addr,
        identifier: u16,
        ap: [u8; 6],
    },
    FastBindingUpdate {
        previous: Ipv6Addr,
        new: Ipv6Addr,
        sequence: u16,
        reactive: bool,
    },
    HandoverInitiate {
        par: Ipv6Addr,
        hi: HandoverInitiate,
    },
    HandoverAck {
        ack: HandoverAck,
    },
}

#[derive(Debug, Clone, Copy)]
struct Forward {
    previous: Ipv6Addr,
    new: Ipv6Addr,
    until: Time,
}

#[derive(Debug, Clone, Copy)]
struct Waiting {
    hi_sequence: u16,
    previous: Ipv6Addr,
    new: Ipv6Addr,
    fbu_sequence: u16,
}

#[derive(Debug)]
struct Expected {
    new: Ipv6Addr,
    announced: bool,
    buffer: VecDeque<IpPacket>,
    until: Time,
}

/// The FMIPv6 agent of an access router (an interceptor).
#[derive(Debug)]
pub struct FmipRouter {
    cfg: FmipRouterConfig,
    work: VecDeque<(Time, Work)>,
    forwards: Vec<Forward>,
    waiting: Vec<Waiting>,
    expected: Vec<Expected>,
    /// Care-of addresses announced (UNA) lately, for a Handover Initiate
    /// that arrives after the mobile node (early attachment).
    announced: VecDeque<(Ipv6Addr, Time)>,
    hi_sequence: u16,
    stats: FmipRouterStats,
    record: FmipRouterRecord,
    trace: TraceLog,
}

/// Most handovers a router tracks at once (forwarding, waiting, expected).
const MAX_ENTRIES: usize = 256;

impl FmipRouter {
    pub fn new(cfg: FmipRouterConfig) -> Self {
        FmipRouter {
            cfg,
            work: VecDeque::new(),
            forwards: Vec::new(),
            waiting: Vec::new(),
            expected: Vec::new(),
            announced: VecDeque::new(),
            hi_sequence: 0,
            stats: FmipRouterStats::default(),
            record: FmipRouterRecord::default(),
            trace: TraceLog::default(),
        }
    }

    /// Every FMIPv6 message this router sent and received (bounded by
    /// [`crate::models::mip::TRACE_LIMIT`]).
    pub fn trace(&self) -> &[(Time, MipTraceEvent)] {
        self.trace.events()
    }

    fn log(&mut self, t: Time, message: FmipMessage, sent: bool, peer: Ipv6Addr) {
        self.trace.push(t, MipTraceEvent::fmip(message, sent, peer));
    }

    /// The router's own address.
    pub fn address(&self) -> Ipv6Addr {
        self.cfg.address
    }

    pub fn stats(&self) -> FmipRouterStats {
        self.stats
    }

    /// The latest handover's timeline at this router.
    pub fn record(&self) -> FmipRouterRecord {
        self.record
    }

    /// Packets waiting in the buffer now.
    pub fn buffered_now(&self) -> usize {
        self.expected.iter().map(|e| e.buffer.len()).sum()
    }

    fn schedule(&mut self, ctx: &mut Ctx<'_>, w: Work) {
        if self.work.len() >= MAX_ENTRIES {
            self.stats.malformed += 1;
            return;
        }
        let due = ctx.now() + self.cfg.settings.processing_delay;
        self.work.push_back((due, w));
        ctx.set_timer(due, TOKEN_PROCESS);
    }

    fn send_mh(&mut self, ctx: &mut Ctx<'_>, dst: Ipv6Addr, msg: &MhMessage) {
        if let Some(m) = fmip_message(msg) {
            self.log(ctx.now(), m, true, dst);
        }
        if let Ok(p) = wire::mh_packet(self.cfg.address, dst, msg, DEFAULT_TTL) {
            let _ = ctx.send(p);
        }
    }

    fn neighbour_for_prefix(&self, a: Ipv6Addr) -> Option<Neighbour> {
        self.cfg
            .neighbours
            .iter()
            .copied()
            .find(|n| n.prefix.contains(&a))
    }

    fn start_forwarding(&mut self, ctx: &mut Ctx<'_>, previous: Ipv6Addr, new: Ipv6Addr) {
        let until = ctx.now() + self.cfg.settings.forward_time;
        self.forwards.retain(|f| f.previous != previous);
        if self.forwards.len() < MAX_ENTRIES {
            self.forwards.push(Forward {
                previous,
                new,
                until,
            });
        }
        self.record.forwarding_from = Some(ctx.now());
    }

    fn fast_ack(&mut self, ctx: &mut Ctx<'_>, to: &[Ipv6Addr], sequence: u16) {
        let msg = MhMessage::FastBindingAck(BindingAck {
            status: 0,
            sequence,
            lifetime_units: (self.cfg.settings.forward_time.as_secs() / 4).min(u64::from(u16::MAX))
                as u16,
        });
        for &a in to {
            self.send_mh(ctx, a, &msg);
        }
    }

    // Long because: one arm per kind of pending work (RFC 5568 messages), read best side by side.
    fn process(&mut self, ctx: &mut Ctx<'_>, w: Work) {
        let now = ctx.now();
        match w {
            Work::ProxyAdvertisement { to, identifier, ap } => {
                let n = self
                    .cfg
                    .neighbours
                    .iter()
                    .find(|n| wire::ap_id(n.cell) == ap);
                let adv = ProxyAdvertisement {
                    identifier,
                    code: if n.is_some() { 0 } else { 1 },
                    new_ap: ap,
                    nar_address: n.map(|n| n.address),
                    nar_prefix: n.map(|n| n.prefix),
                };
                let msg = adv.emit(self.cfg.address, to);
                if let Ok(p) = IpPacket::build(
                    IpAddr::V6(self.cfg.address),
                    IpAddr::V6(to),
                    ICMPV6,
                    255,
                    &msg,
                ) {
                    self.stats.proxy_advertisements += 1;
                    self.log(now, FmipMessage::PrRtAdv, true, to);
                    let _ = ctx.send(p);
                }
            }
            Work::FastBindingUpdate {
                previous,
                new,
                sequence,
                reactive,
            } => {
                self.record = FmipRouterRecord {
                    fbu_at: Some(now),
                    ..Default::default()
                };
                if reactive {
                    // The mobile node is already on the new link.
                    self.start_forwarding(ctx, previous, new);
                    self.fast_ack(ctx, &[new], sequence);
                    return;
                }
                let Some(nar) = self.neighbour_for_prefix(new) else {
                    return;
                };
                self.hi_sequence = self.hi_sequence.wrapping_add(1);
                let hi = HandoverInitiate {
                    sequence: self.hi_sequence,
                    code: 0,
                    previous_coa: Some(previous),
                    new_coa: Some(new),
                };
                self.waiting.retain(|x| x.previous != previous);
                if self.waiting.len() < MAX_ENTRIES {
                    self.waiting.push(Waiting {
                        hi_sequence: hi.sequence,
                        previous,
                        new,
                        fbu_sequence: sequence,
                    });
                }
                self.record.hi_sent_at = Some(now);
                self.stats.handover_initiates += 1;
                self.send_mh(ctx, nar.address, &MhMessage::HandoverInitiate(hi));
            }
            Work::HandoverInitiate { par, hi } => {
                let Some(new) = hi.new_coa else {
                    return;
                };
                let code = if self.cfg.prefix.contains(&new) { 0 } else { 3 };
                if code == 0 {
                    self.expected.retain(|e| e.new != new);
                    // The mobile node may already be here (it attached
                    // before the previous router's Handover Initiate).
                    let here = self
                        .announced
                        .iter()
                        .any(|&(a, t)| a == new && now < t + self.cfg.settings.buffer_time);
                    if self.expected.len() < MAX_ENTRIES {
                        let until = now + self.cfg.settings.buffer_time;
                        self.expected.push(Expected {
                            new,
                            announced: here,
                            buffer: VecDeque::new(),
                            until,
                        });
                        ctx.set_timer(until, TOKEN_EXPIRE);
                        self.record.expected_at = Some(now);
                    }
                }
                self.send_mh(
                    ctx,
                    par,
                    &MhMessage::HandoverAck(HandoverAck {
                        sequence: hi.sequence,
                        code,
                    }),
                );
            }
            Work::HandoverAck { ack } => {
                let Some(pos) = self
                    .waiting
                    .iter()
                    .position(|x| x.hi_sequence == ack.sequence)
                else {
                    return;
                };
                let w = self.waiting.remove(pos);
                self.record.hack_at = Some(now);
                if ack.code != 0 {
                    return;
                }
                self.start_forwarding(ctx, w.previous, w.new);
                self.fast_ack(ctx, &[w.previous, w.new], w.fbu_sequence);
            }
        }
    }

    fn on_mh(&mut self, ctx: &mut Ctx<'_>, pkt: &IpPacket) {
        let (IpAddr::V6(src), IpAddr::V6(dst)) = (pkt.src(), pkt.dst()) else {
            return;
        };
        // A reactive Fast Binding Update arrives from the new care-of
        // address with the previous one in a Home Address option.
        let (src, inner, reactive) = if pkt.protocol() == wire::DEST_OPTIONS {
            match wire::strip_home_address(pkt) {
                Ok((inner, _new)) => match inner.src() {
                    IpAddr::V6(prev) => (prev, inner, true),
                    IpAddr::V4(_) => return,
                },
                Err(_) => {
                    self.stats.malformed += 1;
                    return;
                }
            }
        } else {
            (src, pkt.clone(), false)
        };
        if inner.protocol() != wire::MOBILITY_HEADER {
            return;
        }
        let msg = MhMessage::parse(src, dst, inner.payload());
        if let Some(m) = msg.as_ref().ok().and_then(fmip_message) {
            self.log(ctx.now(), m, false, src);
        }
        match msg {
            Ok(MhMessage::FastBindingUpdate(u)) => {
                self.stats.fast_binding_updates += 1;
                let Some(new) = u.alternate_coa else {
                    return;
                };
                self.schedule(
                    ctx,
                    Work::FastBindingUpdate {
                        previous: src,
                        new,
                        sequence: u.sequence,
                        reactive,
                    },
                );
            }
            Ok(MhMessage::HandoverInitiate(hi)) => {
                self.schedule(ctx, Work::HandoverInitiate { par: src, hi });
            }
            Ok(MhMessage::HandoverAck(ack)) => {
                self.stats.handover_acks += 1;
                self.schedule(ctx, Work::HandoverAck { ack });
            }
            Ok(_) => {}
            Err(_) => self.stats.malformed += 1,
        }
    }

    fn announce(&mut self, ctx: &mut Ctx<'_>, target: Ipv6Addr) {
        let now = ctx.now();
        if self.announced.len() >= MAX_ENTRIES {
            self.announced.pop_front();
        }
        self.announced.push_back((target, now));
        let Some(e) = self.expected.iter_mut().find(|e| e.new == target) else {
            return;
        };
        e.announced = true;
        let packets: Vec<IpPacket> = e.buffer.drain(..).collect();
        self.record.announced_at = Some(now);
        for p in packets {
            self.stats.delivered_from_buffer += 1;
            let _ = ctx.send_via(p, self.cfg.iface, Some(IpAddr::V6(target)));
        }
    }

    fn expire(&mut self, ctx: &mut Ctx<'_>) {
        let now = ctx.now();
        let mut dropped = Vec::new();
        self.expected.retain_mut(|e| {
            if e.until <= now {
                dropped.extend(e.buffer.drain(..));
                false
            } else {
                true
            }
        });
        for p in dropped {
            self.stats.buffer_drops += 1;
            ctx.drop_packet(p, "FMIPv6 buffer timed out");
        }
        self.forwards.retain(|f| f.until > now);
    }
}

impl Agent for FmipRouter {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        ctx.set_interceptor(true);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: IpPacket, rx: &RxInfo) -> Option<IpPacket> {
        let (IpAddr::V6(src), IpAddr::V6(dst)) = (pkt.src(), pkt.dst()) else {
            return Some(pkt);
        };
        let me = self.cfg.address;
        match pkt.protocol() {
            ICMPV6 if rx.iface == Some(self.cfg.iface) => {
                match wire::icmp_type_of(src, dst, pkt.payload()) {
                    Some(icmp_type::FMIP) if dst == me => {
                        if let Some((identifier, ap)) = wire::parse_rtsolpr(src, dst, pkt.payload())
                        {
                            self.log(ctx.now(), FmipMessage::RtSolPr, false, src);
                            self.schedule(
                                ctx,
                                Work::ProxyAdvertisement {
                                    to: src,
                                    identifier,
                                    ap,
                                },
                            );
                        }
                        None
                    }
                    Some(icmp_type::NEIGHBOR_ADVERTISEMENT) => {
                        if let Some(t) = wire::na_target(src, dst, pkt.payload()) {
                            self.log(ctx.now(), FmipMessage::UNA, false, src);
                            self.announce(ctx, t);
                        }
                        None
                    }
                    _ => Some(pkt),
                }
            }
            wire::MOBILITY_HEADER | wire::DEST_OPTIONS if dst == me => {
                self.on_mh(ctx, &pkt);
                None
            }
            // What the mobile node sends back through the tunnel.
            proto::IPV6 if dst == me => {
                match tunnel::decapsulate(pkt) {
                    Ok(inner) => {
                        let from_previous = self
                            .forwards
                            .iter()
                            .any(|f| IpAddr::V6(f.previous) == inner.src());
                        if from_previous {
                            self.stats.reverse_tunnelled += 1;
                            let _ = ctx.send(inner);
                        } else {
                            ctx.drop_packet(inner, "FMIPv6 reverse tunnel without a binding");
                        }
                    }
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
        let IpAddr::V6(dst) = pkt.dst() else {
            return Some(pkt);
        };
        if !matches!(origin, PacketOrigin::Received { .. }) {
            return Some(pkt);
        }
        let now = ctx.now();
        // Previous router: tunnel to the new care-of address.
        if let Some(f) = self
            .forwards
            .iter()
            .find(|f| f.previous == dst && f.until > now)
            .copied()
        {
            let from = IpAddr::V6(self.cfg.address);
            let expired = "hop limit expired at the previous router";
            if tunnel::forward(ctx, pkt, from, IpAddr::V6(f.new), expired).is_some() {
                self.stats.forwarded += 1;
            }
            return None;
        }
        // New router: hold packets for a mobile node not yet announced.
        if let Some(e) = self
            .expected
            .iter_mut()
            .find(|e| e.new == dst && !e.announced)
        {
            if e.buffer.len() < self.cfg.settings.buffer_packets {
                e.buffer.push_back(pkt);
                self.stats.buffered += 1;
            } else {
                self.stats.buffer_drops += 1;
                ctx.drop_packet(pkt, "FMIPv6 buffer full");
            }
            return None;
        }
        Some(pkt)
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, token: u64) {
        match token {
            TOKEN_PROCESS => {
                let now = ctx.now();
                while self.work.front().is_some_and(|w| w.0 <= now) {
                    if let Some((_, w)) = self.work.pop_front() {
                        self.process(ctx, w);
                    }
                }
            }
            TOKEN_EXPIRE => self.expire(ctx),
            _ => {}
        }
    }
}
