//! QUIC (RFC 9000) in the simulator: quinn-proto's sans-I/O endpoint and
//! connection as an agent beside the SCTP and TCP agents, driven by the
//! simulated clock and fed the simulated links' UDP datagrams, with
//! connection migration (RFC 9000 section 9) on the link layer's
//! decisions.
//!
//! - [`QuicAgent`]: a client (connects, migrates) or a server (accepts one
//!   connection); a bulk, file, CBR or Pareto source writes one
//!   unidirectional stream, the other end reads it and keeps the flow's
//!   records ([`crate::measure::flow_log::FlowLog`]).
//! - [`crypto`]: a TLS 1.3 session (RFC 9001) whose randomness is the
//!   agent's seeded stream, with a stand-in key exchange of X25519's sizes
//!   and a checked-in Ed25519 certificate, so a run is a function of its
//!   seed.
//! - `protection`: null packet protection of the AEAD's sizes and limits
//!   (the simulator measures transport, not cryptography).
//! - [`settings`]: what a scenario may change of quinn's transport
//!   (`[flows.quic]`), quinn's own defaults otherwise.
//! - [`setup`]: quinn-proto's settings with the seeded keys, connection
//!   IDs and the simulated clock.

mod agent;
pub mod crypto;
mod protection;
pub mod settings;
pub mod setup;

pub use agent::{QuicAgent, QuicAgentConfig, QuicPathTagging, QuicRole, QuicStats};
pub use quinn_proto::TransportConfig;
pub use settings::{Congestion, QuicSettings};
