//! The settings of a Mobile IPv4 deployment a scenario gives
//! (`[flows.mip4]`): field names are the keys. One struct for the home
//! agent, the foreign agents and the mobile nodes (one deployment per
//! scenario); [`Mip4Settings::home_agent`], [`Mip4Settings::foreign_agent`]
//! and [`Mip4Settings::mobile_node`] make each agent's configuration from
//! it with what the topology decides (addresses, interfaces, keys).

use std::net::Ipv4Addr;
use std::time::Duration;

use ipnet::Ipv4Net;
use msctp_proto::config::units;
use serde::{Deserialize, Serialize};

use super::{AdvertisementConfig, ForeignAgentConfig, HomeAgentConfig, MobileNodeConfig};
use crate::kernel::ids::IfaceId;
use crate::models::settings::{SettingError, positive_ms, range_u};

/// Mobile IPv4 (RFC 5944): agent advertisements, registration lifetimes,
/// processing delays, retransmission.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Mip4Settings {
    /// Time between agent advertisements (RFC 5944 section 2.3: at most
    /// one per second; 1 s).
    #[serde(rename = "advert_interval_ms", with = "units::ms")]
    pub advert_interval: Duration,
    /// The first advertisement's offset; absent: each agent's phase
    /// drawn uniformly in [0, interval) from the run's seed, so agent
    /// discovery after a move varies over repetitions as on a real
    /// network.
    #[serde(
        rename = "advert_offset_ms",
        with = "units::opt_ms",
        skip_serializing_if = "Option::is_none"
    )]
    pub advert_offset: Option<Duration>,
    /// Advertisement lifetime, s (RFC 1256: three intervals).
    pub advert_lifetime_s: u16,
    /// Agents answer solicitations at once.
    pub answer_solicitations: bool,
    /// The mobile solicits when an interface comes up (false: it waits
    /// for the next advertisement).
    pub solicit_on_link_up: bool,
    /// Link up/down drive movement detection (else only advertisements
    /// and their lifetimes).
    pub link_layer_triggers: bool,
    /// Registration lifetime the mobile asks, s.
    pub registration_lifetime_s: u16,
    /// Longest registration lifetime the agents grant, s.
    pub max_lifetime_s: u16,
    /// Mobile node: authenticator computation.
    #[serde(rename = "mn_auth_ms", with = "units::ms")]
    pub mn_auth: Duration,
    /// Foreign agent: processing of each relayed message.
    #[serde(rename = "fa_processing_ms", with = "units::ms")]
    pub fa_processing: Duration,
    /// Home agent: request processing, and authentication.
    #[serde(rename = "ha_processing_ms", with = "units::ms")]
    pub ha_processing: Duration,
    #[serde(rename = "ha_auth_ms", with = "units::ms")]
    pub ha_auth: Duration,
    /// First retransmission timeout of a request (doubled per retry).
    #[serde(rename = "registration_timeout_ms", with = "units::ms")]
    pub registration_timeout: Duration,
    /// Retransmissions of a request.
    pub max_retries: u32,
}

impl Default for Mip4Settings {
    fn default() -> Self {
        Mip4Settings {
            advert_interval: Duration::from_secs(1),
            advert_offset: None,
            advert_lifetime_s: 3,
            answer_solicitations: true,
            solicit_on_link_up: false,
            link_layer_triggers: true,
            registration_lifetime_s: 300,
            max_lifetime_s: 600,
            mn_auth: Duration::from_millis(1),
            fa_processing: Duration::from_millis(1),
            ha_processing: Duration::from_millis(1),
            ha_auth: Duration::from_millis(1),
            registration_timeout: Duration::from_secs(1),
            max_retries: 5,
        }
    }
}

impl Mip4Settings {
    /// Every bound, the error naming the key.
    pub fn validate(&self) -> Result<(), SettingError> {
        positive_ms("advert_interval_ms", self.advert_interval)?;
        range_u(
            "advert_lifetime_s",
            u64::from(self.advert_lifetime_s),
            1,
            65_535,
        )?;
        range_u(
            "registration_lifetime_s",
            u64::from(self.registration_lifetime_s),
            1,
            u64::from(self.max_lifetime_s),
        )?;
        range_u("max_lifetime_s", u64::from(self.max_lifetime_s), 1, 65_534)?;
        positive_ms("registration_timeout_ms", self.registration_timeout)?;
        range_u("max_retries", u64::from(self.max_retries), 0, 16)
    }

    /// An agent's advertisements on `iface` from `address`, the first at
    /// `offset` (the deployment's `advert_offset`, or a drawn phase).
    pub fn advertisement(
        &self,
        iface: IfaceId,
        address: Ipv4Addr,
        offset: Duration,
    ) -> AdvertisementConfig {
        AdvertisementConfig {
            interval: self.advert_interval,
            offset,
            lifetime_s: self.advert_lifetime_s,
            answer_solicitations: self.answer_solicitations,
            ..AdvertisementConfig::new(iface, address)
        }
    }

    /// The home agent at `address` of `home_prefix`.
    pub fn home_agent(
        &self,
        address: Ipv4Addr,
        home_prefix: Ipv4Net,
        advertise: Option<AdvertisementConfig>,
    ) -> HomeAgentConfig {
        let mut c = HomeAgentConfig::new(address, home_prefix);
        c.advertise = advertise;
        c.max_lifetime_s = self.max_lifetime_s;
        c.processing_delay = self.ha_processing;
        c.auth_delay = self.ha_auth;
        c
    }

    /// A foreign agent advertising its care-of address.
    pub fn foreign_agent(&self, advertise: AdvertisementConfig) -> ForeignAgentConfig {
        let mut c = ForeignAgentConfig::new(advertise);
        c.max_lifetime_s = self.max_lifetime_s;
        c.processing_delay = self.fa_processing;
        c
    }

    /// A mobile node with its home address, home agent and interfaces.
    pub fn mobile_node(
        &self,
        home_address: Ipv4Addr,
        home_prefix: Ipv4Net,
        home_agent: Ipv4Addr,
        ifaces: Vec<IfaceId>,
        key: Vec<u8>,
    ) -> MobileNodeConfig {
        let mut c = MobileNodeConfig::new(home_address, home_prefix, home_agent, ifaces, key);
        c.lifetime_s = self.registration_lifetime_s;
        c.auth_delay = self.mn_auth;
        c.solicit_on_link_up = self.solicit_on_link_up;
        c.link_layer_triggers = self.link_layer_triggers;
        c.registration_timeout = self.registration_timeout;
        c.max_retries = self.max_retries;
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::settings::tests::every_key_changes;

    /// The agents' configurations made from `s`, as text.
    fn agents(s: &Mip4Settings) -> String {
        let a = Ipv4Addr::new(10, 1, 0, 254);
        let p: Ipv4Net = "10.1.0.0/24".parse().unwrap();
        let offset = s.advert_offset.unwrap_or_default();
        let adv = s.advertisement(IfaceId(0), a, offset);
        format!(
            "{:?}{:?}{:?}",
            s.home_agent(a, p, Some(adv.clone())),
            s.foreign_agent(adv),
            s.mobile_node(a, p, a, vec![IfaceId(0)], vec![1])
        )
    }

    #[test]
    fn every_setting_reaches_an_agent() {
        every_key_changes::<Mip4Settings>(agents);
    }
}
