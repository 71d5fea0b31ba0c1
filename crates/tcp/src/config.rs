//! Configuration of a TCP endpoint. Every limit is here, with its default
//! and the RFC it comes from; [`TcpConfig::ns3_compatible`] is the preset
//! that matches ns-3 3.37's `TcpSocket`/`TcpSocketBase` defaults as used by
//! the reference programs in `bench/ns3/`.

use std::time::Duration;

/// Why a configuration is refused; [`ConfigError::key`] names the field
/// by its key in a configuration file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("mss {0} is out of range (64..=65495)")]
    Mss(u16),
    #[error("recv_buffer {0} must be at least one MSS and at most 2^30 bytes")]
    RecvBuffer(usize),
    #[error("send_buffer must lie between 1 and 2^34 bytes")]
    SendBuffer,
    #[error("RTO bounds inconsistent: min {min:?}, initial {initial:?}, max {max:?}")]
    RtoBounds {
        min: Duration,
        initial: Duration,
        max: Duration,
    },
    #[error("{0} must be at least 1")]
    Zero(&'static str),
    /// A value outside the bounds that keep the connection's resources
    /// and lifetime finite.
    #[error("{key} {allowed}")]
    Range {
        key: &'static str,
        allowed: &'static str,
    },
}

impl ConfigError {
    /// The refused field's key in a configuration file.
    pub fn key(&self) -> &'static str {
        match self {
            ConfigError::Mss(_) => "mss",
            ConfigError::RecvBuffer(_) => "recv_buffer",
            ConfigError::SendBuffer => "send_buffer",
            ConfigError::RtoBounds { .. } => "min_rto_ms",
            ConfigError::Zero(key) | ConfigError::Range { key, .. } => key,
        }
    }
}

/// TCP endpoint parameters.
///
/// With the `serde` feature this is also a table of a configuration file
/// (the simulator's `[flows.tcp]`): keys are the field names, durations
/// in milliseconds with an `_ms` suffix (`msctp_time::units`), absent keys
/// keep the defaults, unknown keys are refused.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct TcpConfig {
    /// Largest payload per segment this endpoint sends and the MSS option it
    /// announces (RFC 9293 section 3.7.1). The effective send size is the
    /// smaller of this and the peer's MSS option (536 without one).
    pub mss: u16,
    /// Initial congestion window in segments; `None` is RFC 5681 section
    /// 3.1's rule (4, 3 or 2 segments by MSS).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub initial_window_segments: Option<u32>,
    /// Initial slow-start threshold in bytes (RFC 5681: "arbitrarily high").
    pub initial_ssthresh: u32,
    /// RTO before any RTT sample (RFC 6298 (2.1): 1 s).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "initial_rto_ms", with = "msctp_time::units::ms")
    )]
    pub initial_rto: Duration,
    /// Timeout of the first SYN / SYN-ACK, doubled at each retry.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "syn_rto_ms", with = "msctp_time::units::ms")
    )]
    pub syn_rto: Duration,
    /// Lower bound of the RTO (RFC 6298 (2.4): 1 s).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "min_rto_ms", with = "msctp_time::units::ms")
    )]
    pub min_rto: Duration,
    /// Upper bound of the RTO (RFC 6298 (2.5): at least 60 s).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "max_rto_ms", with = "msctp_time::units::ms")
    )]
    pub max_rto: Duration,
    /// Clock granularity G of RFC 6298 (2.2).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "clock_granularity_ms", with = "msctp_time::units::ms")
    )]
    pub clock_granularity: Duration,
    /// Karn's algorithm: keep the backed-off RTO until a valid RTT sample
    /// arrives (RFC 6298 section 5, note after (5.7)). When false, a new
    /// cumulative ACK recomputes the RTO from SRTT and RTTVAR, as ns-3 does.
    pub keep_backoff_until_sample: bool,
    /// Consecutive retransmission timeouts of the same data after which the
    /// connection is given up (RFC 9293 R2 threshold).
    pub max_retransmissions: u32,
    /// SYN (or SYN-ACK) retransmissions before giving up.
    pub syn_retries: u32,
    /// Delayed ACKs (RFC 5681 section 4.2, RFC 9293 section 3.8.6.3).
    pub delayed_ack: bool,
    /// Delayed-ACK timer (at most 500 ms; 200 ms in ns-3 and most stacks).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "delayed_ack_ms", with = "msctp_time::units::ms")
    )]
    pub delayed_ack_timeout: Duration,
    /// ACK after this many in-order data segments (2: "every second
    /// full-sized segment").
    pub delayed_ack_count: u32,
    /// Offer and use SACK (RFC 2018) with RFC 6675 loss recovery.
    pub sack: bool,
    /// Offer and use the timestamp option (RFC 7323); off by default.
    pub timestamps: bool,
    /// Offer window scaling (RFC 7323 section 2).
    pub window_scaling: bool,
    /// Limited transmit (RFC 3042): one new segment on each of the first
    /// two duplicate ACKs.
    pub limited_transmit: bool,
    /// At fast retransmit, halve ns-3's estimate of the bytes in flight
    /// instead of RFC 5681's FlightSize: with SACK the RFC 6675 pipe (the
    /// SACKed and lost segments left out), without SACK the outstanding
    /// data less one segment per duplicate ACK
    /// (`TcpSocketBase::EnterRecovery` in ns-3 3.37). A smaller ssthresh
    /// than the RFC's by one to a few segments.
    pub ssthresh_from_pipe: bool,
    /// Enter fast retransmit on duplicate ACKs only when the cumulative
    /// ACK covers more than `recover` (RFC 6582 section 3.2 step 1; ns-2's
    /// `bugFix_ true`, tcl/lib/ns-default.tcl 939). Off, duplicate ACKs at
    /// exactly `recover` may start a new recovery, as ns-3 3.37 does
    /// (`m_highRxAckMark >= m_recover`): after a recovery whose
    /// retransmissions were spurious (reordering, a handover), the
    /// duplicates they cause then start the next recovery, a cycle.
    pub careful_recover: bool,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681: 3).
    pub dup_ack_threshold: u32,
    /// Send buffer (bytes the application may queue, sent or not, unacked).
    pub send_buffer: usize,
    /// Receive buffer; the advertised window is what is free of it.
    pub recv_buffer: usize,
    /// Most out-of-order byte ranges held for reassembly; a segment that
    /// would need one more is dropped.
    pub max_out_of_order_ranges: usize,
    /// Nagle's algorithm (RFC 9293 section 3.7.4); ns-3 turns it off.
    pub nagle: bool,
    /// TIME-WAIT duration, 2*MSL (RFC 9293: MSL = 2 minutes).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "time_wait_ms", with = "msctp_time::units::ms")
    )]
    pub time_wait: Duration,
    /// Emit a [`crate::TcpEvent::RttSample`] for every RTT measurement.
    pub report_rtt_samples: bool,
    /// Most events waiting for `poll_event`; RTT-sample events beyond it
    /// are dropped (and counted).
    pub event_queue_limit: usize,
}

impl Default for TcpConfig {
    /// RFC defaults: MSS 1460, IW by RFC 5681, RTO 1 s initial / 1 s min /
    /// 60 s max, delayed ACK every 2nd segment or 200 ms, SACK and
    /// timestamps off, window scaling on, 128 KiB buffers.
    fn default() -> Self {
        TcpConfig {
            mss: 1460,
            initial_window_segments: None,
            initial_ssthresh: u32::MAX,
            initial_rto: Duration::from_secs(1),
            syn_rto: Duration::from_secs(1),
            min_rto: Duration::from_secs(1),
            max_rto: Duration::from_secs(60),
            clock_granularity: Duration::from_millis(1),
            keep_backoff_until_sample: true,
            max_retransmissions: 15,
            syn_retries: 6,
            delayed_ack: true,
            delayed_ack_timeout: Duration::from_millis(200),
            delayed_ack_count: 2,
            sack: false,
            timestamps: false,
            window_scaling: true,
            limited_transmit: true,
            ssthresh_from_pipe: false,
            careful_recover: true,
            dup_ack_threshold: 3,
            send_buffer: 131_072,
            recv_buffer: 131_072,
            max_out_of_order_ranges: 256,
            nagle: false,
            time_wait: Duration::from_secs(240),
            report_rtt_samples: false,
            event_queue_limit: 1024,
        }
    }
}

impl TcpConfig {
    /// The settings of ns-3 3.37's TCP as used by `bench/ns3/tcp_bulk.cc`
    /// (values read from the 3.37 attribute defaults): segment size 1448
    /// (the scenarios' choice; ns-3's own default is 536), initial window
    /// 10 segments, minimum RTO 1 s, RTO cap 60 s, clock granularity 1 ms,
    /// SYN timeout 3 s (`ConnTimeout`) with 6 SYNs in all, 6 data retries,
    /// delayed ACK every 2nd segment or 200 ms, limited transmit on, Nagle
    /// off, 131072-byte send and receive buffers, window scaling on, backed
    /// off RTO recomputed on each new ACK, ssthresh at fast retransmit from
    /// ns-3's bytes-in-flight estimate (see `ssthresh_from_pipe`). ns-3
    /// turns SACK and timestamps
    /// on by default; the reference programs turn them off (and choose
    /// classic NewReno recovery instead of PRR) so that both sides run
    /// RFC 6582 NewReno; set `sack = true` for the SACK runs.
    pub fn ns3_compatible() -> Self {
        TcpConfig {
            mss: 1448,
            initial_window_segments: Some(10),
            syn_rto: Duration::from_secs(3),
            keep_backoff_until_sample: false,
            ssthresh_from_pipe: true,
            careful_recover: false,
            max_retransmissions: 6,
            // ConnCount = 6 SYNs in all: the first and 5 retries.
            syn_retries: 5,
            time_wait: Duration::from_secs(240),
            ..TcpConfig::default()
        }
    }

    /// Checks the values against each other.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(64..=65495).contains(&self.mss) {
            return Err(ConfigError::Mss(self.mss));
        }
        if self.recv_buffer < usize::from(self.mss) || self.recv_buffer > (1 << 30) {
            return Err(ConfigError::RecvBuffer(self.recv_buffer));
        }
        if self.send_buffer == 0 || self.send_buffer > (1 << 34) {
            return Err(ConfigError::SendBuffer);
        }
        if self.min_rto.is_zero()
            || self.min_rto > self.max_rto
            || self.initial_rto > self.max_rto
            || self.syn_rto.is_zero()
            || self.initial_rto.is_zero()
        {
            return Err(ConfigError::RtoBounds {
                min: self.min_rto,
                initial: self.initial_rto,
                max: self.max_rto,
            });
        }
        let nonzero = [
            (self.delayed_ack_count, "delayed_ack_count"),
            (self.dup_ack_threshold, "dup_ack_threshold"),
            (
                self.initial_window_segments.unwrap_or(1),
                "initial_window_segments",
            ),
            (
                u32::try_from(self.max_out_of_order_ranges).unwrap_or(u32::MAX),
                "max_out_of_order_ranges",
            ),
            (
                u32::try_from(self.event_queue_limit).unwrap_or(u32::MAX),
                "event_queue_limit",
            ),
        ];
        for (v, name) in nonzero {
            if v == 0 {
                return Err(ConfigError::Zero(name));
            }
        }
        self.validate_bounds()
    }

    /// Upper bounds: the delayed-ACK timer of RFC 9293 section 3.8.6.3,
    /// counts and queues that keep a connection's life and memory finite.
    fn validate_bounds(&self) -> Result<(), ConfigError> {
        let range = |key, allowed| Err(ConfigError::Range { key, allowed });
        if self.delayed_ack_timeout > Duration::from_millis(500) {
            return range(
                "delayed_ack_ms",
                "must not exceed 500 ms (RFC 9293 section 3.8.6.3)",
            );
        }
        if self.initial_ssthresh == 0 {
            return range("initial_ssthresh", "must be at least 1 byte");
        }
        let at_most: [(u64, u64, &'static str, &'static str); 7] = [
            (
                u64::from(self.initial_window_segments.unwrap_or(1)),
                1_000_000,
                "initial_window_segments",
                "must be at most 1000000",
            ),
            (
                u64::from(self.max_retransmissions),
                100,
                "max_retransmissions",
                "must be at most 100",
            ),
            (
                u64::from(self.syn_retries),
                100,
                "syn_retries",
                "must be at most 100",
            ),
            (
                u64::from(self.delayed_ack_count),
                1000,
                "delayed_ack_count",
                "must be at most 1000",
            ),
            (
                u64::from(self.dup_ack_threshold),
                1000,
                "dup_ack_threshold",
                "must be at most 1000",
            ),
            (
                self.max_out_of_order_ranges as u64,
                1 << 20,
                "max_out_of_order_ranges",
                "must be at most 2^20",
            ),
            (
                self.event_queue_limit as u64,
                1 << 20,
                "event_queue_limit",
                "must be at most 2^20",
            ),
        ];
        for (v, max, key, allowed) in at_most {
            if v > max {
                return range(key, allowed);
            }
        }
        Ok(())
    }

    /// Initial window in bytes for a send MSS of `smss` (RFC 5681 section
    /// 3.1 when not configured).
    pub fn initial_window_bytes(&self, smss: u32) -> u32 {
        match self.initial_window_segments {
            Some(n) => n.saturating_mul(smss),
            None if smss > 2190 => 2 * smss,
            None if smss > 1095 => 3 * smss,
            None => 4 * smss,
        }
    }

    /// Window scale shift to announce: the smallest that lets the receive
    /// buffer be advertised in 16 bits (at most 14, RFC 7323 section 2.3).
    pub fn window_shift(&self) -> u8 {
        let mut shift = 0u8;
        while shift < 14 && (self.recv_buffer >> shift) > 65535 {
            shift += 1;
        }
        shift
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate_and_rfc5681_initial_window() {
        let c = TcpConfig::default();
        c.validate().unwrap();
        TcpConfig::ns3_compatible().validate().unwrap();
        assert_eq!(c.initial_window_bytes(1460), 4380);
        assert_eq!(c.initial_window_bytes(536), 2144);
        assert_eq!(c.initial_window_bytes(4000), 8000);
        assert_eq!(
            TcpConfig::ns3_compatible().initial_window_bytes(1448),
            14480
        );
        assert_eq!(c.window_shift(), 2); // 131072 >> 1 = 65536 does not fit
    }

    #[test]
    fn bad_values_are_refused() {
        let c = TcpConfig {
            mss: 10,
            ..TcpConfig::default()
        };
        assert_eq!(c.validate(), Err(ConfigError::Mss(10)));
        let c = TcpConfig {
            recv_buffer: 100,
            ..TcpConfig::default()
        };
        assert_eq!(c.validate(), Err(ConfigError::RecvBuffer(100)));
        let c = TcpConfig {
            min_rto: Duration::from_secs(100),
            ..TcpConfig::default()
        };
        assert!(matches!(c.validate(), Err(ConfigError::RtoBounds { .. })));
        let c = TcpConfig {
            dup_ack_threshold: 0,
            ..TcpConfig::default()
        };
        assert_eq!(c.validate(), Err(ConfigError::Zero("dup_ack_threshold")));
    }
}
