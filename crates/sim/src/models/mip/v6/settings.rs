//! The settings of a Mobile IPv6 deployment a scenario gives
//! (`[flows.mip6]`): field names are the keys. One struct for the access
//! routers' advertisements, the home agent, the correspondents and the
//! mobile nodes (one deployment per scenario); its methods make each
//! agent's configuration from it with what the topology decides
//! (addresses, interfaces).

use std::net::Ipv6Addr;
use std::time::Duration;

use ipnet::Ipv6Net;
use msctp_proto::config::units;
use serde::{Deserialize, Serialize};

use super::{AccessRouterConfig, Correspondent6Config, HomeAgent6Config, MobileNode6Config};
use crate::kernel::ids::IfaceId;
use crate::models::settings::{SettingError, positive_ms, range_u};

/// Mobile IPv6 (RFC 6275) with route optimisation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Mip6Settings {
    /// Time between router advertisements (RFC 6275 section 7.5 allows
    /// down to 30 ms for mobility; 1 s).
    #[serde(rename = "ra_interval_ms", with = "units::ms")]
    pub ra_interval: Duration,
    /// The first advertisement's offset; absent: each router's phase
    /// drawn uniformly in [0, interval) from the run's seed.
    #[serde(
        rename = "ra_offset_ms",
        with = "units::opt_ms",
        skip_serializing_if = "Option::is_none"
    )]
    pub ra_offset: Option<Duration>,
    /// Router lifetime announced, s.
    pub ra_lifetime_s: u16,
    /// Routers answer solicitations at once.
    pub answer_solicitations: bool,
    /// The mobile solicits when an interface comes up.
    pub solicit_on_link_up: bool,
    /// Link up/down drive movement detection.
    pub link_layer_triggers: bool,
    /// Binding updates to the correspondents (route optimisation).
    pub route_optimisation: bool,
    /// Care-of address configuration (duplicate address detection).
    #[serde(rename = "address_config_ms", with = "units::ms")]
    pub address_config: Duration,
    /// Binding lifetime asked, s (sent in units of 4 s: a multiple of 4
    /// is exact); also the longest the home agent grants.
    pub binding_lifetime_s: u32,
    /// First Binding Acknowledgement timeout (RFC 6275
    /// INITIAL_BINDACK_TIMEOUT: 1 s), doubled per retry.
    #[serde(rename = "binding_timeout_ms", with = "units::ms")]
    pub binding_timeout: Duration,
    pub max_retries: u32,
    /// Binding Update processing at the home agent and at the
    /// correspondents.
    #[serde(rename = "ha_processing_ms", with = "units::ms")]
    pub ha_processing: Duration,
    #[serde(rename = "cn_processing_ms", with = "units::ms")]
    pub cn_processing: Duration,
}

impl Default for Mip6Settings {
    fn default() -> Self {
        Mip6Settings {
            ra_interval: Duration::from_secs(1),
            ra_offset: None,
            ra_lifetime_s: 3,
            answer_solicitations: true,
            solicit_on_link_up: true,
            link_layer_triggers: true,
            route_optimisation: true,
            address_config: Duration::from_millis(1),
            binding_lifetime_s: 600,
            binding_timeout: Duration::from_secs(1),
            max_retries: 5,
            ha_processing: Duration::from_millis(1),
            cn_processing: Duration::from_millis(1),
        }
    }
}

impl Mip6Settings {
    /// Every bound, the error naming the key.
    pub fn validate(&self) -> Result<(), SettingError> {
        positive_ms("ra_interval_ms", self.ra_interval)?;
        range_u("ra_lifetime_s", u64::from(self.ra_lifetime_s), 1, 9000)?;
        range_u(
            "binding_lifetime_s",
            u64::from(self.binding_lifetime_s),
            4,
            262_140,
        )?;
        positive_ms("binding_timeout_ms", self.binding_timeout)?;
        range_u("max_retries", u64::from(self.max_retries), 0, 16)
    }

    /// The binding lifetime in the 4-second units of the messages.
    pub fn lifetime_units(&self) -> u16 {
        self.binding_lifetime_s.div_ceil(4).min(u32::from(u16::MAX)) as u16
    }

    /// The advertisements of the router at `address` of `prefix` on
    /// `iface`, the first at `offset` (`ra_offset`, or a drawn phase);
    /// `home_agent`: the link is the home link (H flag).
    pub fn access_router(
        &self,
        iface: IfaceId,
        address: Ipv6Addr,
        prefix: Ipv6Net,
        home_agent: bool,
        offset: Duration,
    ) -> AccessRouterConfig {
        AccessRouterConfig {
            interval: self.ra_interval,
            offset,
            lifetime_s: self.ra_lifetime_s,
            home_agent,
            answer_solicitations: self.answer_solicitations,
            ..AccessRouterConfig::new(iface, address, prefix)
        }
    }

    /// The home agent at `address` of `home_prefix`.
    pub fn home_agent(&self, address: Ipv6Addr, home_prefix: Ipv6Net) -> HomeAgent6Config {
        let mut c = HomeAgent6Config::new(address, home_prefix);
        c.processing_delay = self.ha_processing;
        c.max_lifetime_units = self.lifetime_units();
        c
    }

    /// A correspondent's binding cache at `address`.
    pub fn correspondent(&self, address: Ipv6Addr) -> Correspondent6Config {
        let mut c = Correspondent6Config::new(address);
        c.processing_delay = self.cn_processing;
        c
    }

    /// A mobile node with its home address, home agent and interfaces
    /// (its correspondents and FMIPv6 role are the scenario's).
    pub fn mobile_node(
        &self,
        home_address: Ipv6Addr,
        home_prefix: Ipv6Net,
        home_agent: Ipv6Addr,
        ifaces: Vec<IfaceId>,
    ) -> MobileNode6Config {
        let mut c = MobileNode6Config::new(home_address, home_prefix, home_agent, ifaces);
        c.route_optimisation = self.route_optimisation;
        c.lifetime_units = self.lifetime_units();
        c.address_config_delay = self.address_config;
        c.binding_timeout = self.binding_timeout;
        c.max_retries = self.max_retries;
        c.link_layer_triggers = self.link_layer_triggers;
        c.solicit_on_link_up = self.solicit_on_link_up;
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::settings::tests::every_key_changes;

    /// The agents' configurations made from `s`, as text.
    fn agents(s: &Mip6Settings) -> String {
        let a: Ipv6Addr = "2001:db8::1".parse().unwrap();
        let p: Ipv6Net = "2001:db8::/64".parse().unwrap();
        let offset = s.ra_offset.unwrap_or_default();
        format!(
            "{:?}{:?}{:?}{:?}",
            s.access_router(IfaceId(0), a, p, true, offset),
            s.home_agent(a, p),
            s.correspondent(a),
            s.mobile_node(a, p, a, vec![IfaceId(0)])
        )
    }

    #[test]
    fn every_setting_reaches_an_agent() {
        every_key_changes::<Mip6Settings>(agents);
    }
}
