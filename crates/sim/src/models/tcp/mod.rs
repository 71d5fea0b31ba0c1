//! TCP in the simulator: the sans-I/O TCP NewReno of `msctp-tcp` (RFC 9293,
//! RFC 5681 slow start / congestion avoidance / fast retransmit, RFC 6582
//! NewReno fast recovery with partial ACKs, RFC 6298 RTO with back-off,
//! delayed ACK on or off, optional SACK of RFC 2018 / 6675) wrapped as
//! simulator agents that exchange real IPv4/IPv6 packets.
//!
//! - [`TcpEndpoint`]: one connection inside an agent (packets in, packets
//!   out, timer, flow records); reused by the handoff schemes
//!   ([`crate::models::handoff`], [`crate::models::cmhn`]).
//! - [`TcpAgent`]: a client or server whose application is an
//!   [`crate::models::app::Source`].
//! - [`reference`](mod@reference): the single-path scenarios of `bench/ns3/README.md`
//!   (the comparison with ns-3) and the speed benchmark.
//!
//! Statistics per connection are [`msctp_tcp::TcpStats`] (cwnd, ssthresh,
//! SRTT, RTO, bytes in flight, timeouts, fast retransmits, ...), the
//! counterpart of the SCTP engine's per-path statistics.

mod agent;
mod endpoint;
pub mod reference;
pub mod seqspace;

pub use agent::{TcpAgent, TcpAgentConfig, TcpRole};
pub use endpoint::{HeaderPeek, PathTagging, TcpEndpoint, peek_header};
pub use msctp_tcp::{TcpConfig, TcpStats};
