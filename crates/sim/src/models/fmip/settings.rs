//! The settings of FMIPv6 a scenario gives (`[flows.fmip6]`, one
//! deployment per scenario): the access routers' and the scripted move's.
//! Field names are the keys.

use std::time::Duration;

use msctp_proto::config::units;
use serde::{Deserialize, Serialize};

use super::AttachTiming;
use crate::models::settings::{SettingError, positive_ms, range_u};

/// When the mobile attaches to the new access router (docs/MODELS.md 2.2;
/// [`AttachTiming`] with the settings' delays).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Attach {
    /// `early_after_ms` after the trigger, before the previous router
    /// forwards.
    Early,
    /// When the Fast Binding Acknowledgement arrives.
    #[default]
    Ideal,
    /// `late_after_ms` after the Fast Binding Acknowledgement.
    Late,
}

/// FMIPv6 (RFC 5568): the move's timing and the access routers' settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FmipSettings {
    pub attach: Attach,
    /// Early: attach this long after the trigger (10 ms).
    #[serde(rename = "early_after_ms", with = "units::ms")]
    pub early_after: Duration,
    /// Late: attach this long after the Fast Binding Acknowledgement
    /// (300 ms).
    #[serde(rename = "late_after_ms", with = "units::ms")]
    pub late_after: Duration,
    /// Link-layer switch between leaving the old cell and joining the new
    /// (20 ms).
    #[serde(rename = "switch_ms", with = "units::ms")]
    pub switch: Duration,
    /// Ideal/late: how often the acknowledgement is looked for (0.1 ms),
    /// and when to move anyway without one, after the trigger (2 s).
    #[serde(rename = "poll_ms", with = "units::ms")]
    pub poll: Duration,
    #[serde(rename = "give_up_ms", with = "units::ms")]
    pub give_up: Duration,
    /// Access routers: processing of each FMIPv6 message (1 ms).
    #[serde(rename = "processing_ms", with = "units::ms")]
    pub processing_delay: Duration,
    /// Packets the new router buffers for one arriving mobile node.
    pub buffer_packets: usize,
    /// How long buffered packets wait for the mobile node's announcement
    /// (3 s).
    #[serde(rename = "buffer_time_ms", with = "units::ms")]
    pub buffer_time: Duration,
    /// How long the previous router tunnels to the new care-of address
    /// (10 s).
    #[serde(rename = "forward_time_ms", with = "units::ms")]
    pub forward_time: Duration,
}

impl Default for FmipSettings {
    fn default() -> Self {
        FmipSettings {
            attach: Attach::Ideal,
            early_after: Duration::from_millis(10),
            late_after: Duration::from_millis(300),
            switch: Duration::from_millis(20),
            poll: Duration::from_micros(100),
            give_up: Duration::from_secs(2),
            processing_delay: Duration::from_millis(1),
            buffer_packets: 100,
            buffer_time: Duration::from_secs(3),
            forward_time: Duration::from_secs(10),
        }
    }
}

impl FmipSettings {
    /// Every bound, the error naming the key.
    pub fn validate(&self) -> Result<(), SettingError> {
        positive_ms("poll_ms", self.poll)?;
        positive_ms("give_up_ms", self.give_up)?;
        range_u("buffer_packets", self.buffer_packets as u64, 0, 10_000_000)
    }

    /// When the mobile attaches, with its delay.
    pub fn timing(&self) -> AttachTiming {
        match self.attach {
            Attach::Early => AttachTiming::Early {
                after_trigger: self.early_after,
            },
            Attach::Ideal => AttachTiming::Ideal,
            Attach::Late => AttachTiming::Late {
                after_fback: self.late_after,
            },
        }
    }
}
