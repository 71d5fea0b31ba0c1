//! Packetization Layer Path MTU Discovery (RFC 8899) settings.

use std::time::Duration;

#[cfg(feature = "serde")]
use super::units;

/// PLPMTUD per path (RFC 8899 section 6.2 for SCTP; module
/// [`crate::pmtu`]). Off by default: every path then takes
/// [`super::AssociationConfig::path_mtu`] as its MTU (RFC 9260's fixed
/// PMTU), as the simulated studies assume. On, a path's packets start at
/// [`BASE_PLPMTU`](crate::pmtu::BASE_PLPMTU) and grow only by probes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct PmtudConfig {
    /// Run PLPMTUD; `path_mtu` is then the largest size probed
    /// (MAX_PLPMTU, RFC 8899 section 5.1.2).
    pub enabled: bool,
    /// PROBE_TIMER (RFC 8899 section 5.1.1): how long a probe waits for
    /// its HEARTBEAT ACK before it counts as lost. The RFC: at least 1 s,
    /// SHOULD be more than 15 s; 15 s by default.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "probe_timer_ms", with = "units::ms")
    )]
    pub probe_timer: Duration,
    /// PMTU_RAISE_TIMER (RFC 8899 section 5.1.1): after the search
    /// completed, how long until it starts again to find a larger MTU
    /// (600 s, the RFC's value).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "raise_timer_ms", with = "units::ms")
    )]
    pub raise_timer: Duration,
    /// MAX_PROBES (RFC 8899 section 5.1.2): probes of one size lost
    /// before the size is taken as too large (3, the RFC's default).
    pub max_probes: u32,
}

impl Default for PmtudConfig {
    fn default() -> Self {
        PmtudConfig {
            enabled: false,
            probe_timer: Duration::from_secs(15),
            raise_timer: Duration::from_secs(600),
            max_probes: 3,
        }
    }
}

impl PmtudConfig {
    /// On, with the RFC's timers and probe count.
    pub fn on() -> Self {
        PmtudConfig {
            enabled: true,
            ..Default::default()
        }
    }

    /// The default, off: left out of a written configuration.
    pub fn is_off_default(&self) -> bool {
        *self == PmtudConfig::default()
    }

    /// Bounds: PROBE_TIMER at least 1 s (RFC 8899 section 5.1.1), the
    /// raise timer at least the probe timer, 1 to 10 probes per size.
    pub(super) fn validate(&self) -> Result<(), &'static str> {
        if self.probe_timer < Duration::from_secs(1) || self.probe_timer > Duration::from_secs(3600)
        {
            return Err(
                "probe_timer_ms must lie between 1000 (RFC 8899 section 5.1.1) and 3600000",
            );
        }
        if self.raise_timer < self.probe_timer || self.raise_timer > Duration::from_secs(86_400) {
            return Err("raise_timer_ms must lie between probe_timer_ms and 86400000");
        }
        if !(1..=10).contains(&self.max_probes) {
            return Err("max_probes must lie between 1 and 10");
        }
        Ok(())
    }
}
