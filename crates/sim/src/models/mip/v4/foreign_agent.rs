//! The Mobile IPv4 foreign agent (RFC 5944 sections 3.7 and 4.2.2): it
//! advertises a care-of address on its link (a cell), relays registration
//! requests from visiting mobile nodes to their home agents and the
//! replies back (each after a configurable processing delay), keeps a
//! visitor list, and decapsulates the tunnelled packets addressed to its
//! care-of address, delivering them on the link to the visitor's home
//! address. A packet whose visitor has left the cell is lost there (the
//! cell drops it as `Detached`) until the home agent's binding changes.

use std::collections::{BTreeMap, VecDeque};
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use super::advert::{AdvertisementConfig, Advertiser};
use super::wire::{self, AgentFlags, REGISTRATION_PORT, Registration, code};
use crate::Time;
use crate::kernel::ip::{DEFAULT_TTL, IpPacket, proto};
use crate::kernel::tunnel;
use crate::kernel::udp::{self, UdpView};
use crate::kernel::{Agent, Ctx, RxInfo};
use crate::models::mip::{ICMP, MipTraceEvent, TraceLog};

const TOKEN_ADVERTISE: u64 = 1;
const TOKEN_RELAY: u64 = 2;

/// Settings of a [`ForeignAgent`].
#[derive(Debug, Clone, PartialEq)]
pub struct ForeignAgentConfig {
    /// Advertising on the visitors' link; its address is the care-of
    /// address offered.
    pub advertise: AdvertisementConfig,
    /// Longest registration lifetime accepted, seconds.
    pub max_lifetime_s: u16,
    /// Time to process (and relay) a registration message, each way.
    pub processing_delay: Duration,
    pub max_visitors: usize,
    pub max_pending: usize,
}

impl ForeignAgentConfig {
    pub fn new(advertise: AdvertisementConfig) -> Self {
        ForeignAgentConfig {
            advertise,
            max_lifetime_s: 600,
            processing_delay: Duration::from_millis(1),
            max_visitors: 1024,
            max_pending: 256,
        }
    }
}

/// A visitor list entry (RFC 5944 section 3.7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Visitor {
    pub home_agent: Ipv4Addr,
    /// UDP source port of the mobile node's request (replies go there).
    pub port: u16,
    pub expires_at: Time,
}

/// Counters of a foreign agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ForeignAgentStats {
    pub requests_relayed: u64,
    pub replies_relayed: u64,
    pub denied: u64,
    pub decapsulated: u64,
    pub no_visitor: u64,
    pub malformed: u64,
    pub advertisements: u64,
}

#[derive(Debug, Clone)]
enum Relay {
    ToHomeAgent {
        home_agent: Ipv4Addr,
        payload: Vec<u8>,
    },
    ToMobile {
        home: Ipv4Addr,
        port: u16,
        payload: Vec<u8>,
    },
}

#[derive(Debug, Clone)]
struct PendingVisitor {
    home: Ipv4Addr,
    home_agent: Ipv4Addr,
    identification: u64,
    port: u16,
}

/// The foreign agent.
#[derive(Debug)]
pub struct ForeignAgent {
    cfg: ForeignAgentConfig,
    advertiser: Advertiser,
    visitors: BTreeMap<Ipv4Addr, Visitor>,
    pending: VecDeque<PendingVisitor>,
    relays: VecDeque<(Time, Relay)>,
    stats: ForeignAgentStats,
    trace: TraceLog,
}

impl ForeignAgent {
    pub fn new(cfg: ForeignAgentConfig) -> Self {
        let advertiser = Advertiser::new(cfg.advertise.clone());
        ForeignAgent {
            cfg,
            advertiser,
            visitors: BTreeMap::new(),
            pending: VecDeque::new(),
            relays: VecDeque::new(),
            stats: ForeignAgentStats::default(),
            trace: TraceLog::default(),
        }
    }

    /// The care-of address this agent offers.
    pub fn care_of(&self) -> Ipv4Addr {
        self.cfg.advertise.address
    }

    pub fn stats(&self) -> ForeignAgentStats {
        let mut s = self.stats;
        s.advertisements = self.advertiser.sent;
        s
    }

    pub fn visitor(&self, home: Ipv4Addr) -> Option<&Visitor> {
        self.visitors.get(&home)
    }

    pub fn trace(&self) -> &[(Time, MipTraceEvent)] {
        self.trace.events()
    }

    fn advertise(&mut self, ctx: &mut Ctx<'_>) {
        let flags = AgentFlags {
            foreign_agent: true,
            registration_required: true,
            busy: self.visitors.len() >= self.cfg.max_visitors,
            ..Default::default()
        };
        let coa = self.cfg.advertise.address;
        self.advertiser
            .advertise(ctx, flags, self.cfg.max_lifetime_s, vec![coa]);
    }

    fn schedule(&mut self, ctx: &mut Ctx<'_>, relay: Relay) {
        let due = ctx.now() + self.cfg.processing_delay;
        self.relays.push_back((due, relay));
        ctx.set_timer(due, TOKEN_RELAY);
    }

    /// A registration message (RFC 5944 section 3): a visitor's request
    /// or a home agent's reply, each for this agent; `false` if the
    /// packet is not one.
    fn on_registration(&mut self, ctx: &mut Ctx<'_>, pkt: &IpPacket, rx: &RxInfo) -> bool {
        let Ok(u) = UdpView::parse(pkt) else {
            return false;
        };
        if u.dst_port != REGISTRATION_PORT {
            return false;
        }
        let me = self.cfg.advertise.address;
        let on_link = rx.iface == Some(self.cfg.advertise.iface);
        match Registration::parse(u.payload) {
            // A request from a visitor on our link, for us.
            Ok(Registration::Request(req)) if on_link => {
                if req.care_of != me {
                    return false;
                }
                self.on_request(ctx, &req, u.src_port, u.payload);
                true
            }
            // A reply from a home agent, for us.
            Ok(Registration::Reply(rep)) if pkt.dst() == IpAddr::V4(me) => {
                self.on_reply(ctx, &rep, u.payload);
                true
            }
            Ok(_) => false,
            Err(_) => {
                self.stats.malformed += 1;
                true
            }
        }
    }

    /// A visitor's request (sent from `port`) for this care-of address:
    /// denied when too many are pending or its lifetime is too long
    /// (RFC 5944 section 3.7.2, code 69), else remembered and relayed to
    /// its home agent.
    fn on_request(
        &mut self,
        ctx: &mut Ctx<'_>,
        req: &wire::RegistrationRequest,
        port: u16,
        payload: &[u8],
    ) {
        if self.pending.len() >= self.cfg.max_pending {
            self.stats.denied += 1;
            return;
        }
        if req.lifetime_s > self.cfg.max_lifetime_s {
            // RFC 5944 section 3.7.2: deny, code 69.
            self.stats.denied += 1;
            let reply = wire::RegistrationReply {
                code: code::FA_LIFETIME_TOO_LONG,
                lifetime_s: self.cfg.max_lifetime_s,
                home_address: req.home_address,
                home_agent: req.home_agent,
                identification: req.identification,
                auth: None,
            };
            self.schedule(
                ctx,
                Relay::ToMobile {
                    home: req.home_address,
                    port,
                    payload: reply.emit(None),
                },
            );
            return;
        }
        self.pending.push_back(PendingVisitor {
            home: req.home_address,
            home_agent: req.home_agent,
            identification: req.identification,
            port,
        });
        self.trace.push(
            ctx.now(),
            MipTraceEvent::RequestRelayed {
                home: req.home_address,
                identification: req.identification,
            },
        );
        self.schedule(
            ctx,
            Relay::ToHomeAgent {
                home_agent: req.home_agent,
                payload: payload.to_vec(),
            },
        );
    }

    /// A home agent's reply to a pending request: an accepted one makes
    /// (or renews) the visitor while there is room, a denial removes it;
    /// either is relayed to the mobile. A reply to no pending request is
    /// counted as malformed.
    fn on_reply(&mut self, ctx: &mut Ctx<'_>, rep: &wire::RegistrationReply, payload: &[u8]) {
        let Some(pos) = self
            .pending
            .iter()
            .position(|p| p.home == rep.home_address && p.identification == rep.identification)
        else {
            self.stats.malformed += 1;
            return;
        };
        let Some(p) = self.pending.remove(pos) else {
            return;
        };
        if rep.code <= 1 && rep.lifetime_s > 0 {
            if self.visitors.len() < self.cfg.max_visitors || self.visitors.contains_key(&p.home) {
                self.visitors.insert(
                    p.home,
                    Visitor {
                        home_agent: p.home_agent,
                        port: p.port,
                        expires_at: ctx.now() + Duration::from_secs(u64::from(rep.lifetime_s)),
                    },
                );
            }
        } else {
            self.visitors.remove(&p.home);
        }
        self.schedule(
            ctx,
            Relay::ToMobile {
                home: p.home,
                port: p.port,
                payload: payload.to_vec(),
            },
        );
    }

    fn relay_due(&mut self, ctx: &mut Ctx<'_>) {
        let now = ctx.now();
        let me = IpAddr::V4(self.cfg.advertise.address);
        while self.relays.front().is_some_and(|r| r.0 <= now) {
            let Some((_, relay)) = self.relays.pop_front() else {
                break;
            };
            match relay {
                Relay::ToHomeAgent {
                    home_agent,
                    payload,
                } => {
                    if let Ok(p) = udp::build(
                        me,
                        IpAddr::V4(home_agent),
                        REGISTRATION_PORT,
                        REGISTRATION_PORT,
                        DEFAULT_TTL,
                        &payload,
                    ) {
                        self.stats.requests_relayed += 1;
                        let _ = ctx.send(p);
                    }
                }
                Relay::ToMobile {
                    home,
                    port,
                    payload,
                } => {
                    if let Ok(p) = udp::build(
                        me,
                        IpAddr::V4(home),
                        REGISTRATION_PORT,
                        port,
                        DEFAULT_TTL,
                        &payload,
                    ) {
                        self.stats.replies_relayed += 1;
                        let _ = ctx.send_via(p, self.cfg.advertise.iface, Some(IpAddr::V4(home)));
                    }
                }
            }
        }
    }

    fn decapsulate(&mut self, ctx: &mut Ctx<'_>, pkt: IpPacket) {
        let mut inner = match tunnel::decapsulate(pkt) {
            Ok(i) => i,
            Err(_) => {
                self.stats.malformed += 1;
                return;
            }
        };
        let IpAddr::V4(home) = inner.dst() else {
            ctx.drop_packet(inner, "tunnelled packet is not IPv4");
            return;
        };
        let now = ctx.now();
        match self.visitors.get(&home) {
            Some(v) if v.expires_at > now => {
                if !inner.decrement_ttl() {
                    ctx.drop_packet(inner, "TTL expired at the foreign agent");
                    return;
                }
                self.stats.decapsulated += 1;
                let _ = ctx.send_via(inner, self.cfg.advertise.iface, Some(IpAddr::V4(home)));
            }
            _ => {
                self.visitors.remove(&home);
                self.stats.no_visitor += 1;
                ctx.drop_packet(inner, "no visitor entry at the foreign agent");
            }
        }
    }
}

impl Agent for ForeignAgent {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        let at = ctx.now() + self.cfg.advertise.offset;
        ctx.set_timer(at, TOKEN_ADVERTISE);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: IpPacket, rx: &RxInfo) -> Option<IpPacket> {
        let me = IpAddr::V4(self.cfg.advertise.address);
        match pkt.protocol() {
            proto::UDP if self.on_registration(ctx, &pkt, rx) => return None,
            proto::IPIP if pkt.dst() == me => {
                self.decapsulate(ctx, pkt);
                return None;
            }
            ICMP if rx.iface == Some(self.cfg.advertise.iface)
                && wire::is_solicitation(pkt.payload()) =>
            {
                if self.cfg.advertise.answer_solicitations {
                    self.advertise(ctx);
                }
                return None;
            }
            _ => {}
        }
        Some(pkt)
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, token: u64) {
        match token {
            TOKEN_ADVERTISE => {
                self.advertise(ctx);
                ctx.set_timer_in(self.cfg.advertise.interval, TOKEN_ADVERTISE);
            }
            TOKEN_RELAY => self.relay_due(ctx),
            _ => {}
        }
    }
}
