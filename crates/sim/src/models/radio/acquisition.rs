//! Address acquisition latency after a link comes up, as named parts.
//!
//! Defaults from docs/MODELS.md section 2.3 (the single-connection vertical
//! handoff scheme of Tsukamoto, Hori and Oie): DHCP 300 ms, location update
//! 50 ms, AAA 350 ms, and on UMTS a PPP set-up of 600 ms, i.e. 700 ms into
//! a WLAN and 1300 ms into UMTS. Router discovery (waiting for a router or
//! Mobile IP agent advertisement) is zero by default; a Mobile IP model sets
//! it to its advertisement wait.

use std::time::Duration;

use msctp_proto::config::units;
use serde::{Deserialize, Serialize};

/// The parts of the delay between link up and a usable address; a
/// scenario's `[radio.acquisition]` and a cell's `acquisition` (keys in
/// ms, absent ones zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AddressAcquisition {
    /// Waiting for a router / agent advertisement.
    #[serde(rename = "router_discovery_ms", with = "units::ms")]
    pub router_discovery: Duration,
    /// Point-to-point link set-up (UMTS).
    #[serde(rename = "ppp_ms", with = "units::ms")]
    pub ppp: Duration,
    /// Address binding by DHCP.
    #[serde(rename = "dhcp_ms", with = "units::ms")]
    pub dhcp: Duration,
    /// Authentication, authorisation and accounting.
    #[serde(rename = "aaa_ms", with = "units::ms")]
    pub aaa: Duration,
    /// Location update (counted here because docs/MODELS.md 2.3 counts it in
    /// the handoff processing time).
    #[serde(rename = "location_update_ms", with = "units::ms")]
    pub location_update: Duration,
}

impl AddressAcquisition {
    /// No delay: the address exists as soon as the link is up.
    pub const NONE: AddressAcquisition = AddressAcquisition {
        router_discovery: Duration::ZERO,
        ppp: Duration::ZERO,
        dhcp: Duration::ZERO,
        aaa: Duration::ZERO,
        location_update: Duration::ZERO,
    };

    /// Into a WLAN: DHCP 300 ms + location update 50 ms + AAA 350 ms.
    pub const fn wlan_default() -> AddressAcquisition {
        AddressAcquisition {
            router_discovery: Duration::ZERO,
            ppp: Duration::ZERO,
            dhcp: Duration::from_millis(300),
            aaa: Duration::from_millis(350),
            location_update: Duration::from_millis(50),
        }
    }

    /// Into UMTS: the WLAN parts plus PPP 600 ms.
    pub const fn umts_default() -> AddressAcquisition {
        AddressAcquisition {
            ppp: Duration::from_millis(600),
            ..AddressAcquisition::wlan_default()
        }
    }

    /// The named parts, in the order they happen.
    pub fn parts(&self) -> [(&'static str, Duration); 5] {
        [
            ("router_discovery", self.router_discovery),
            ("ppp", self.ppp),
            ("dhcp", self.dhcp),
            ("aaa", self.aaa),
            ("location_update", self.location_update),
        ]
    }

    /// The total delay (saturating).
    pub fn total(&self) -> Duration {
        self.parts()
            .iter()
            .fold(Duration::ZERO, |acc, (_, d)| acc.saturating_add(*d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_systems_md() {
        assert_eq!(
            AddressAcquisition::wlan_default().total(),
            Duration::from_millis(700)
        );
        assert_eq!(
            AddressAcquisition::umts_default().total(),
            Duration::from_millis(1300)
        );
        assert_eq!(AddressAcquisition::NONE.total(), Duration::ZERO);
        assert_eq!(AddressAcquisition::default(), AddressAcquisition::NONE);
        let big = AddressAcquisition {
            dhcp: Duration::MAX,
            aaa: Duration::MAX,
            ..AddressAcquisition::NONE
        };
        assert_eq!(big.total(), Duration::MAX);
        assert_eq!(
            AddressAcquisition::umts_default().parts()[1],
            ("ppp", Duration::from_millis(600))
        );
    }
}
