//! msctp-sim: a deterministic discrete-event network simulator in which the
//! unchanged `msctp-proto` engine runs beside models of the protocols it is
//! compared with.
//!
//! Time is virtual, in integer nanoseconds ([`Time`], shared with the
//! engine). Same scenario and seed give byte-identical outputs.

pub use msctp_proto::Time;

// Radio and mobility models, link-layer event generation, metrics.
pub mod metrics;
pub mod mobility;
pub mod propagation;
pub mod radio;
