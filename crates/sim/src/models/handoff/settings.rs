//! The settings of the single-connection handoff a scenario gives
//! (`[flows.handoff]`): field names are the keys.

use std::time::Duration;

use msctp_proto::config::units;
use serde::{Deserialize, Serialize};

use crate::models::settings::{SettingError, at_most_ms, positive_ms, range_u};

/// The connection during handoff processing (module documentation of
/// [`super::SingleConnectionHandoff`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProcessingMode {
    /// It stops: nothing sent, no timer; at the end what was in flight is
    /// sent again.
    #[default]
    Freeze,
    /// Tsukamoto, Hori and Oie, section 5.1: "transmitted packets are
    /// dropped while the TCB ... is being updated"; its timers run, and it
    /// recovers by them.
    Drop,
}

/// The tunable part of a [`super::SingleConnectionConfig`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HandoffSettings {
    /// Set the congestion window from the new network's BDP after a
    /// handoff (the scheme's bandwidth awareness); otherwise slow start.
    pub bdp_start: bool,
    /// What the connection does during handoff processing.
    pub during_processing: ProcessingMode,
    /// Retransmission interval of an unacknowledged location update
    /// (200 ms).
    #[serde(rename = "update_retry_ms", with = "units::ms")]
    pub update_retry: Duration,
}

impl Default for HandoffSettings {
    fn default() -> Self {
        HandoffSettings {
            bdp_start: true,
            during_processing: ProcessingMode::Freeze,
            update_retry: Duration::from_millis(200),
        }
    }
}

impl HandoffSettings {
    /// Every bound, the error naming the key.
    pub fn validate(&self) -> Result<(), SettingError> {
        positive_ms("update_retry_ms", self.update_retry)
    }
}

/// How the scheme sees one network (a mobile interface): the processing
/// latency into it is the sum of its parts (docs/MODELS.md 2.3: DHCP
/// ~300 ms, location update ~50 ms, AAA ~350 ms, and on UMTS a PPP set-up
/// ~600 ms: 700 ms into WLAN, 1300 ms into UMTS); what it assumes of the
/// network, where the scenario does not derive it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetworkSettings {
    #[serde(rename = "dhcp_ms", with = "units::ms")]
    pub dhcp: Duration,
    #[serde(rename = "location_update_ms", with = "units::ms")]
    pub location_update: Duration,
    #[serde(rename = "aaa_ms", with = "units::ms")]
    pub aaa: Duration,
    #[serde(rename = "ppp_ms", with = "units::ms")]
    pub ppp: Duration,
    /// Bandwidth the scheme assumes (its BDP restart); absent: the cell's
    /// rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bandwidth_bps: Option<u64>,
    /// Round-trip time the scheme assumes; absent: twice the one-way
    /// propagation delay from the mobile to the fixed node through the
    /// cell.
    #[serde(
        rename = "rtt_ms",
        with = "units::opt_ms",
        skip_serializing_if = "Option::is_none"
    )]
    pub rtt: Option<Duration>,
    /// Higher is preferred when usable; absent: the faster network is
    /// preferred (rank by bandwidth).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preference: Option<u32>,
}

impl Default for NetworkSettings {
    fn default() -> Self {
        NetworkSettings {
            dhcp: Duration::from_millis(300),
            location_update: Duration::from_millis(50),
            aaa: Duration::from_millis(350),
            ppp: Duration::ZERO,
            bandwidth_bps: None,
            rtt: None,
            preference: None,
        }
    }
}

impl NetworkSettings {
    /// The handoff processing latency into this network.
    pub fn processing(&self) -> Duration {
        self.dhcp + self.location_update + self.aaa + self.ppp
    }

    /// Every bound, the error naming the key.
    pub fn validate(&self) -> Result<(), SettingError> {
        at_most_ms("processing", self.processing())?;
        if let Some(b) = self.bandwidth_bps {
            range_u("bandwidth_bps", b, 1, 1_000_000_000_000)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_processing_latency_is_the_sum_of_its_parts() {
        let wlan = NetworkSettings::default();
        assert_eq!(wlan.processing(), Duration::from_millis(700));
        let umts: NetworkSettings = toml::from_str("ppp_ms = 600.0").unwrap();
        assert_eq!(umts.processing(), Duration::from_millis(1300));
        let long: NetworkSettings = toml::from_str("dhcp_ms = 3.6e9\naaa_ms = 3.6e9").unwrap();
        assert!(long.validate().unwrap_err().key == "processing");
    }
}
