//! Periodic agent advertisements (RFC 5944 section 2.3: "agents SHOULD
//! send advertisements at most once per second" on each link they serve,
//! and answer solicitations), shared by home and foreign agents.

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use super::wire::{AgentAdvertisement, AgentFlags};
use crate::kernel::Ctx;
use crate::kernel::ids::IfaceId;
use crate::kernel::ip::IpPacket;
use crate::models::mip::ICMP;

/// How an agent advertises on one interface.
#[derive(Debug, Clone, PartialEq)]
pub struct AdvertisementConfig {
    /// The interface (a cell's access point, or a link).
    pub iface: IfaceId,
    /// The agent's address on it (the advertised router address).
    pub address: Ipv4Addr,
    /// Time between unsolicited advertisements.
    pub interval: Duration,
    /// First unsolicited advertisement at this offset from the start.
    pub offset: Duration,
    /// Advertisement lifetime (RFC 1256: typically three intervals).
    pub lifetime_s: u16,
    /// Answer agent solicitations at once (else the next periodic
    /// advertisement answers).
    pub answer_solicitations: bool,
}

impl AdvertisementConfig {
    /// One advertisement per second, lifetime 3 s, solicitations answered.
    pub fn new(iface: IfaceId, address: Ipv4Addr) -> Self {
        AdvertisementConfig {
            iface,
            address,
            interval: Duration::from_secs(1),
            offset: Duration::ZERO,
            lifetime_s: 3,
            answer_solicitations: true,
        }
    }
}

/// Sends advertisements with a running sequence number (RFC 5944 section
/// 2.1.1: wraps to 256, not 0, after 0xffff).
#[derive(Debug, Clone)]
pub(crate) struct Advertiser {
    pub cfg: AdvertisementConfig,
    pub sequence: u16,
    pub sent: u64,
}

impl Advertiser {
    pub fn new(cfg: AdvertisementConfig) -> Self {
        Advertiser {
            cfg,
            sequence: 0,
            sent: 0,
        }
    }

    /// Broadcasts one advertisement on the interface.
    pub fn advertise(
        &mut self,
        ctx: &mut Ctx<'_>,
        flags: AgentFlags,
        registration_lifetime_s: u16,
        care_of: Vec<Ipv4Addr>,
    ) {
        let adv = AgentAdvertisement {
            agent: self.cfg.address,
            lifetime_s: self.cfg.lifetime_s,
            sequence: self.sequence,
            registration_lifetime_s,
            flags,
            care_of,
        };
        self.sequence = match self.sequence {
            u16::MAX => 256,
            s => s + 1,
        };
        if let Ok(p) = IpPacket::build(
            IpAddr::V4(self.cfg.address),
            IpAddr::V4(Ipv4Addr::BROADCAST),
            ICMP,
            1,
            &adv.emit(),
        ) && ctx.send_via(p, self.cfg.iface, None).is_ok()
        {
            self.sent += 1;
        }
    }
}
