//! The settings of the multi-connection transport a scenario gives
//! (`[flows.cmhn]`): field names are the keys.

use std::time::Duration;

use msctp_proto::config::units;
use serde::{Deserialize, Serialize};

use crate::models::settings::{SettingError, positive_ms, range_u};

/// How the sender uses several usable links.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scheduling {
    /// One link carries new data; a new link is measured during its
    /// start-up (it carries data meanwhile) and taken when its BDP beats
    /// the current one's.
    #[default]
    Switch,
    /// Every usable link carries data (pTCP-like striping).
    Stripe,
}

/// The tunable part of a [`super::CmhnConfig`] (both ends), with the
/// defaults of Tsukamoto, Hori and Oie's evaluation as docs/MODELS.md 2.4
/// takes them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CmhnSettings {
    pub scheduling: Scheduling,
    /// How long an inactive interface's connection is kept (frozen) for a
    /// return without a new handshake (30 s).
    #[serde(rename = "keepalive_s", with = "units::s")]
    pub keepalive: Duration,
    /// Longest start-up measurement of a new link before giving up on it
    /// (2 s).
    #[serde(rename = "probe_ms", with = "units::ms")]
    pub probe_time: Duration,
    /// Period of the BDP comparison (50 ms).
    #[serde(rename = "estimate_ms", with = "units::ms")]
    pub estimate_interval: Duration,
    /// Largest data record accepted from the peer, bytes.
    pub max_record: u32,
    /// Most out-of-order records held by the receiver.
    pub max_reorder: usize,
}

impl Default for CmhnSettings {
    fn default() -> Self {
        CmhnSettings {
            scheduling: Scheduling::Switch,
            keepalive: Duration::from_secs(30),
            probe_time: Duration::from_secs(2),
            estimate_interval: Duration::from_millis(50),
            max_record: 65_536,
            max_reorder: 100_000,
        }
    }
}

impl CmhnSettings {
    /// Every bound, the error naming the key.
    pub fn validate(&self) -> Result<(), SettingError> {
        positive_ms("probe_ms", self.probe_time)?;
        positive_ms("estimate_ms", self.estimate_interval)?;
        range_u("max_record", u64::from(self.max_record), 64, 1 << 24)?;
        range_u("max_reorder", self.max_reorder as u64, 1, 100_000_000)
    }
}
