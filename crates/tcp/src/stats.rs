//! Counters and state readable at any time.

use std::time::Duration;

use crate::state::TcpState;

/// A snapshot of a connection's state and counters.
#[derive(Debug, Clone, PartialEq)]
pub struct TcpStats {
    pub state: TcpState,
    /// Congestion window (bytes).
    pub cwnd: u32,
    /// Slow-start threshold (bytes).
    pub ssthresh: u32,
    /// Smoothed RTT, once measured.
    pub srtt: Option<Duration>,
    pub rttvar: Duration,
    /// Current retransmission timeout, back-off included.
    pub rto: Duration,
    /// Latest RTT sample.
    pub last_rtt: Option<Duration>,
    /// Bytes in flight (RFC 6675 pipe).
    pub bytes_in_flight: u32,
    /// Sender MSS in use.
    pub smss: u32,
    /// The peer's receive window (bytes, scaled).
    pub peer_window: u32,
    /// In fast recovery now.
    pub in_recovery: bool,
    pub segments_sent: u64,
    pub data_segments_sent: u64,
    pub segments_retransmitted: u64,
    pub bytes_retransmitted: u64,
    /// Retransmission timeouts (zero-window probes excluded).
    pub timeouts: u64,
    /// Fast retransmits (entries into fast recovery).
    pub fast_retransmits: u64,
    pub dup_acks_received: u64,
    /// Data bytes acknowledged by the peer.
    pub bytes_acked: u64,
    pub segments_received: u64,
    /// Data bytes that became readable in order.
    pub bytes_received: u64,
    /// Duplicate ACKs sent: ACKs answering an out-of-order or duplicate
    /// data segment (the receiver-side reordering signal).
    pub dup_acks_sent: u64,
    /// Segments dropped before processing (bad checksum, malformed).
    pub bad_segments: u64,
    pub rtt_samples: u64,
    /// RTT-sample events dropped because the event queue was full.
    pub events_dropped: u64,
}
