//! Path estimators (docs/MODELS.md section 3, AISLE): what a sender learns about
//! each destination beyond RFC 9260's RTT.
//!
//! - [`packet_pair`]: the capacity of the path's bottleneck, from the
//!   dispersion of a 6-packet train (2 small, 2 large, 2 small) that the
//!   receiver times and echoes (chunks in [`crate::wire::probe`]);
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
pub use westwood::Westwood;
