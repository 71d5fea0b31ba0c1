//! The settings of a QUIC flow a scenario gives (`[flows.quic]`): field
//! names are the keys, and the defaults are quinn-proto 0.11's own
//! (`TransportConfig::default()`, `MtuDiscoveryConfig::default()`), so a
//! flow without the table runs quinn as it ships. Only the transport
//! parameters and recovery settings a mobility study would vary are
//! exposed; every other field keeps quinn's default.

use std::sync::Arc;
use std::time::Duration;

use msctp_proto::config::units;
use quinn_proto::congestion::{BbrConfig, CubicConfig, NewRenoConfig};
use quinn_proto::{IdleTimeout, MtuDiscoveryConfig, TransportConfig, VarInt};
use serde::{Deserialize, Serialize};

use crate::models::settings::{SettingError, range_f, range_u};

/// The congestion controller (quinn-proto's three).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Congestion {
    /// CUBIC (RFC 9438), quinn's default.
    #[default]
    Cubic,
    /// NewReno as RFC 9002 section 7 describes it.
    NewReno,
    /// quinn's experimental BBR.
    Bbr,
}

/// The tunable part of a QUIC flow's transport (both ends).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct QuicSettings {
    pub congestion: Congestion,
    /// The RTT assumed before the first sample (RFC 9002 section 6.2.2:
    /// 333 ms).
    #[serde(rename = "initial_rtt_ms", with = "units::ms")]
    pub initial_rtt: Duration,
    /// The idle timeout offered (RFC 9000 section 10.1; 30 s, RFC 9308
    /// section 3.2); 0: none.
    #[serde(rename = "max_idle_timeout_ms", with = "units::ms")]
    pub max_idle_timeout: Duration,
    /// PING frames this often while idle (RFC 9000 section 10.1.2); 0:
    /// none (quinn's default).
    #[serde(rename = "keep_alive_interval_ms", with = "units::ms")]
    pub keep_alive_interval: Duration,
    /// Flow-control window of one stream, bytes (1 250 000).
    pub stream_receive_window: u64,
    /// Flow-control window of the connection, bytes; absent: unlimited
    /// (quinn's default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receive_window: Option<u64>,
    /// Most unacknowledged data sent, bytes (10 000 000).
    pub send_window: u64,
    /// Packets a later acknowledged packet must be ahead to declare a
    /// loss (RFC 9002 section 6.1.1: 3).
    pub packet_threshold: u32,
    /// Time threshold of loss detection, in RTTs (RFC 9002 section
    /// 6.1.2: 9/8).
    pub time_threshold: f64,
    /// PTOs without an acknowledgement that make persistent congestion
    /// (RFC 9002 section 7.6.1: 3).
    pub persistent_congestion_threshold: u32,
    /// UDP payload size before path MTU discovery, bytes (1200; quinn
    /// uses the larger of it and `min_mtu`).
    pub initial_mtu: u16,
    /// UDP payload size every path is assumed to carry, bytes (1200).
    pub min_mtu: u16,
    /// DPLPMTUD (RFC 8899) on the path (true).
    pub mtu_discovery: bool,
    /// Largest UDP payload discovery tries, bytes (1452).
    pub mtu_upper_bound: u16,
}

impl Default for QuicSettings {
    /// quinn-proto 0.11's defaults (`TransportConfig::default()`).
    fn default() -> Self {
        QuicSettings {
            congestion: Congestion::Cubic,
            initial_rtt: Duration::from_millis(333),
            max_idle_timeout: Duration::from_secs(30),
            keep_alive_interval: Duration::ZERO,
            stream_receive_window: 1_250_000,
            receive_window: None,
            send_window: 10_000_000,
            packet_threshold: 3,
            time_threshold: 9.0 / 8.0,
            persistent_congestion_threshold: 3,
            initial_mtu: 1200,
            min_mtu: 1200,
            mtu_discovery: true,
            mtu_upper_bound: 1452,
        }
    }
}

/// quinn's largest window and flow-control values (QUIC's variable-length
/// integers, RFC 9000 section 16).
const MAX_VARINT: u64 = (1 << 62) - 1;

impl QuicSettings {
    /// Every bound, the error naming the key.
    pub fn validate(&self) -> Result<(), SettingError> {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        range_f("initial_rtt_ms", ms(self.initial_rtt), 1.0, 60_000.0)?;
        range_f(
            "max_idle_timeout_ms",
            ms(self.max_idle_timeout),
            0.0,
            86_400_000.0,
        )?;
        range_f(
            "keep_alive_interval_ms",
            ms(self.keep_alive_interval),
            0.0,
            86_400_000.0,
        )?;
        range_u(
            "stream_receive_window",
            self.stream_receive_window,
            1,
            MAX_VARINT,
        )?;
        if let Some(w) = self.receive_window {
            range_u("receive_window", w, 1, MAX_VARINT)?;
        }
        range_u("send_window", self.send_window, 1, MAX_VARINT)?;
        range_u(
            "packet_threshold",
            u64::from(self.packet_threshold),
            3,
            1000,
        )?;
        range_f("time_threshold", self.time_threshold, 1.0, 10.0)?;
        range_u(
            "persistent_congestion_threshold",
            u64::from(self.persistent_congestion_threshold),
            2,
            1000,
        )?;
        // RFC 9000 section 14: every path carries 1200-byte datagrams.
        range_u("min_mtu", u64::from(self.min_mtu), 1200, 65_527)?;
        range_u("initial_mtu", u64::from(self.initial_mtu), 1200, 65_527)?;
        range_u(
            "mtu_upper_bound",
            u64::from(self.mtu_upper_bound),
            1200,
            65_527,
        )
    }

    /// quinn-proto's transport configuration with these settings (every
    /// other field quinn's default).
    pub fn transport(&self) -> TransportConfig {
        let mut t = TransportConfig::default();
        t.congestion_controller_factory(match self.congestion {
            Congestion::Cubic => Arc::new(CubicConfig::default()) as Arc<_>,
            Congestion::NewReno => Arc::new(NewRenoConfig::default()) as Arc<_>,
            Congestion::Bbr => Arc::new(BbrConfig::default()) as Arc<_>,
        });
        t.initial_rtt(self.initial_rtt);
        let idle = (!self.max_idle_timeout.is_zero())
            .then(|| IdleTimeout::try_from(self.max_idle_timeout).ok())
            .flatten();
        t.max_idle_timeout(idle);
        t.keep_alive_interval(
            (!self.keep_alive_interval.is_zero()).then_some(self.keep_alive_interval),
        );
        t.stream_receive_window(varint(self.stream_receive_window));
        t.receive_window(self.receive_window.map_or(VarInt::MAX, varint));
        t.send_window(self.send_window);
        t.packet_threshold(self.packet_threshold);
        t.time_threshold(self.time_threshold as f32);
        t.persistent_congestion_threshold(self.persistent_congestion_threshold);
        t.initial_mtu(self.initial_mtu);
        t.min_mtu(self.min_mtu);
        t.mtu_discovery_config(self.mtu_discovery.then(|| {
            let mut m = MtuDiscoveryConfig::default();
            m.upper_bound(self.mtu_upper_bound);
            m
        }));
        t
    }
}

/// `v` as a QUIC integer (validated to fit).
fn varint(v: u64) -> VarInt {
    VarInt::from_u64(v).unwrap_or(VarInt::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The defaults are quinn's: a flow without `[flows.quic]` runs
    /// quinn-proto as it ships (its `Debug` shows every field but the
    /// congestion controller's factory, which is CUBIC's by type).
    #[test]
    fn the_defaults_are_quinns() {
        let ours = format!("{:?}", QuicSettings::default().transport());
        let quinn = format!("{:?}", TransportConfig::default());
        assert_eq!(ours, quinn);
        assert!(QuicSettings::default().validate().is_ok());
    }

    #[test]
    fn each_setting_reaches_the_transport() {
        let s = QuicSettings {
            initial_rtt: Duration::from_millis(100),
            max_idle_timeout: Duration::ZERO,
            keep_alive_interval: Duration::from_secs(1),
            receive_window: Some(1 << 20),
            initial_mtu: 1400,
            ..QuicSettings::default()
        };
        let d = format!("{:?}", s.transport());
        for want in [
            "initial_rtt: 100ms",
            "max_idle_timeout: None",
            "keep_alive_interval: Some(1s)",
            "receive_window: 1048576",
            "initial_mtu: 1400",
        ] {
            assert!(d.contains(want), "{want} not in {d}");
        }
    }

    #[test]
    fn bad_values_name_their_key() {
        let bad = |s: QuicSettings, key: &str| {
            let e = s.validate().unwrap_err().to_string();
            assert!(e.contains(key), "{e}");
        };
        bad(
            QuicSettings {
                min_mtu: 1000,
                ..QuicSettings::default()
            },
            "min_mtu",
        );
        bad(
            QuicSettings {
                packet_threshold: 1,
                ..QuicSettings::default()
            },
            "packet_threshold",
        );
        bad(
            QuicSettings {
                initial_mtu: 1100,
                ..QuicSettings::default()
            },
            "initial_mtu",
        );
        bad(
            QuicSettings {
                time_threshold: 0.5,
                ..QuicSettings::default()
            },
            "time_threshold",
        );
        let toml_err = toml::from_str::<QuicSettings>("initial_rtt = 3").unwrap_err();
        assert!(toml_err.to_string().contains("initial_rtt"), "{toml_err}");
    }
}
