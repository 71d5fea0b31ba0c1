//! The multi-connection transport CMHN (connection manager for
//! heterogeneous networks, Tsukamoto, Hori and Oie; docs/MODELS.md 2.4): a
//! layer above one TCP connection per interface of the mobile node that
//!
//! - keeps each connection alive (frozen: no data, no timers) while its
//!   interface is inactive, for [`CmhnSettings::keepalive`], so a return to
//!   that network needs no new handshake (ping-pong resistance);
//! - acts on link-up / link-down decisions from the link layer
//!   ([`crate::models::handoff::LinkDecision`]); a receiving mobile node tells the
//!   sending correspondent over a connection whose link still works;
//! - on link-up measures the new connection's bandwidth-delay product
//!   during its start-up ([`BdpEstimator`]; the new connection carries
//!   data meanwhile) and switches when it beats the current one's;
//! - on a switch sends the old connection's unacknowledged data first on
//!   the new connection, then new data;
//! - stripes data over every usable connection when so configured
//!   ([`Scheduling::Stripe`]).
//!
//! Application data travels in numbered records ([`record`]) so the
//! receiver can merge the connections' streams, in order, without the
//! copies a switch resends. Flow records (arrivals, deliveries,
//! retransmissions) are kept at the record level: an arrival's `seq` is
//! the record number and its path the slot (the mobile node's interface
//! index); the TCP connections' own retransmissions are in their
//! statistics.

mod agent;
mod estimator;
pub mod record;
mod settings;

pub use agent::{
    CmhnAgent, CmhnConfig, CmhnConfigError, CmhnInterface, CmhnSide, CmhnStats, MAX_SLOTS,
    SwitchRecord,
};
pub use estimator::BdpEstimator;
pub use settings::{CmhnSettings, Scheduling};
