//! An IPv6 access router's router advertisements (RFC 4861 section 6.2):
//! a prefix on a link, advertised periodically to all nodes and in answer
//! to router solicitations. Mobile nodes detect movement from them and
//! form their care-of addresses from the prefix (RFC 6275 section 11.5).
//! A home agent's router advertises with the H flag.

use std::net::{IpAddr, Ipv6Addr};
use std::time::Duration;

use ipnet::Ipv6Net;

use super::wire::{self, ICMPV6, RouterAdvertisement, icmp_type};
use crate::kernel::ids::IfaceId;
use crate::kernel::ip::IpPacket;
use crate::kernel::{Agent, Ctx, RxInfo};

/// All-nodes multicast address (RFC 4291 section 2.7.1).
pub const ALL_NODES: Ipv6Addr = Ipv6Addr::new(0xff02, 0, 0, 0, 0, 0, 0, 1);
/// All-routers multicast address.
pub const ALL_ROUTERS: Ipv6Addr = Ipv6Addr::new(0xff02, 0, 0, 0, 0, 0, 0, 2);

const TOKEN_ADVERTISE: u64 = 1;

/// Settings of an [`AccessRouter`].
#[derive(Debug, Clone, PartialEq)]
pub struct AccessRouterConfig {
    pub iface: IfaceId,
    /// The router's address on the link (source of advertisements, the
    /// mobile nodes' default router).
    pub address: Ipv6Addr,
    pub prefix: Ipv6Net,
    /// Time between unsolicited advertisements (RFC 6275 section 7.5
    /// allows intervals down to 30 ms for mobility).
    pub interval: Duration,
    pub offset: Duration,
    /// Router lifetime announced, seconds.
    pub lifetime_s: u16,
    /// Set the H flag: the router is the link's home agent.
    pub home_agent: bool,
    pub answer_solicitations: bool,
}

impl AccessRouterConfig {
    pub fn new(iface: IfaceId, address: Ipv6Addr, prefix: Ipv6Net) -> Self {
        AccessRouterConfig {
            iface,
            address,
            prefix,
            interval: Duration::from_secs(1),
            offset: Duration::ZERO,
            lifetime_s: 3,
            home_agent: false,
            answer_solicitations: true,
        }
    }
}

/// The router-advertisement agent of an access router.
#[derive(Debug)]
pub struct AccessRouter {
    cfg: AccessRouterConfig,
    sent: u64,
}

impl AccessRouter {
    pub fn new(cfg: AccessRouterConfig) -> Self {
        AccessRouter { cfg, sent: 0 }
    }

    pub fn advertisements(&self) -> u64 {
        self.sent
    }

    fn advertise(&mut self, ctx: &mut Ctx<'_>) {
        let ra = RouterAdvertisement {
            router_lifetime_s: self.cfg.lifetime_s,
            home_agent: self.cfg.home_agent,
            prefix: self.cfg.prefix,
            valid_lifetime_s: u32::from(self.cfg.lifetime_s),
        };
        let msg = ra.emit(self.cfg.address, ALL_NODES);
        if let Ok(p) = IpPacket::build(
            IpAddr::V6(self.cfg.address),
            IpAddr::V6(ALL_NODES),
            ICMPV6,
            255,
            &msg,
        ) && ctx.send_via(p, self.cfg.iface, None).is_ok()
        {
            self.sent += 1;
        }
    }
}

impl Agent for AccessRouter {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        ctx.set_timer(ctx.now() + self.cfg.offset, TOKEN_ADVERTISE);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: IpPacket, rx: &RxInfo) -> Option<IpPacket> {
        if pkt.protocol() != ICMPV6 || rx.iface != Some(self.cfg.iface) {
            return Some(pkt);
        }
        let (IpAddr::V6(s), IpAddr::V6(d)) = (pkt.src(), pkt.dst()) else {
            return Some(pkt);
        };
        if wire::icmp_type_of(s, d, pkt.payload()) != Some(icmp_type::ROUTER_SOLICITATION) {
            return Some(pkt);
        }
        if self.cfg.answer_solicitations {
            self.advertise(ctx);
        }
        None
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, _token: u64) {
        self.advertise(ctx);
        ctx.set_timer_in(self.cfg.interval, TOKEN_ADVERTISE);
    }
}
