//! Path estimators (docs/MODELS.md section 3, AISLE): what a sender learns about
//! each destination beyond RFC 9260's RTT.
//!
//! - [`packet_pair`]: the capacity of the path's bottleneck, from the
//!   dispersion of a 6-packet train (2 small, 2 large, 2 small): HEARTBEATs
//!   whose acknowledgments the sender times (SBPP, [`CapacityMethod::Sbpp`])
//!   or msctp's PROBEs that the receiver times and echoes
//!   ([`CapacityMethod::ProbeEcho`], chunks in [`crate::wire::probe`]);
//! - [`westwood`]: the bandwidth available on a path that carries data,
//!   Westwood+ style, from the bytes acknowledged per round trip.
//!
//! Both are sans-I/O: they are fed the caller's time and what arrived, and
//! hold bounded state. The association runs them when
//! [`EstimatorConfig::enabled`](crate::config::EstimatorConfig) is set and
//! shows their results in [`PathStats`](crate::path::PathStats).

pub mod packet_pair;
pub mod westwood;

pub use packet_pair::{CapacityEstimator, Discard, TrainReceiver};

/// How a path's capacity train is timed (`EstimatorConfig::capacity_method`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum CapacityMethod {
    /// Sender-based packet pair (Budzisz et al., AISLE; the SProbe train):
    /// six HEARTBEATs (RFC 9260 section 8.3), the two large ones filled to
    /// the path MTU by a PAD chunk (RFC 4820) that the peer does not echo,
    /// timed at the sender from the returning HEARTBEAT ACKs. Any peer
    /// answers; the train is the path's heartbeat (one error counted if no
    /// acknowledgment returns, RFC 9260 section 8.3), and it assumes the
    /// return path keeps the acknowledgments' spacing.
    #[default]
    Sbpp,
    /// Receiver-timed: six PROBE chunks, timed by the peer and answered in
    /// one PROBE-ECHO ([`crate::wire::probe`]); only peers that announced
    /// them (RFC 5061 section 4.2.7 Supported Extensions) answer. Not
    /// affected by the return path.
    ProbeEcho,
}
pub use westwood::Westwood;
