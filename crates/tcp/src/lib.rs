//! msctp-tcp: a sans-I/O TCP NewReno model for the msctp simulator's
//! baselines (TCP over Mobile IP, single-connection vertical handoff,
//! multi-connection transport).
//!
//! Like the SCTP engine (`msctp-proto`), a [`TcpConnection`] owns no
//! socket, clock or thread: the caller passes time ([`Time`]) and received
//! segments (real TCP header bytes with the IP addresses of the
//! pseudo-header) in, and polls segments to send, the next timer deadline
//! and [`TcpEvent`]s out.
//!
//! ```text
//! conn.handle_segment(now, src_ip, dst_ip, &bytes)?;   // input
//! conn.handle_timeout(now);                            // when poll_timeout() is due
//! while let Some(seg) = conn.poll_transmit(now) { ... } // output
//! while let Some(ev) = conn.poll_event() { ... }
//! ```
//!
//! What it implements: RFC 9293 (segment format, three-way handshake, FIN
//! and RST, flow control with window scaling of RFC 7323), RFC 5681 (slow
//! start, congestion avoidance, fast retransmit, delayed ACK), RFC 6582
//! (NewReno fast recovery with partial ACKs), RFC 3042 (limited transmit),
//! RFC 6298 (RTO, back-off, Karn's rule), RFC 2018 and RFC 6675 (SACK and
//! SACK-based loss recovery, optional), RFC 7323 timestamps (optional; no
//! PAWS). [`TcpConfig::ns3_compatible`] matches ns-3 3.37's TCP as used by
//! the reference programs in `bench/ns3/`.
//!
//! Hooks for the handoff baselines (docs/MODELS.md 2.3, 2.4):
//! [`TcpConnection::set_local_ip`] / [`TcpConnection::set_remote_ip`],
//! [`TcpConnection::set_cwnd`] / [`TcpConnection::set_ssthresh`],
//! [`TcpConnection::reset_rtt`], [`TcpConnection::freeze`] /
//! [`TcpConnection::thaw`], [`TcpConnection::retransmit_unacked`],
//! [`TcpConnection::take_unacked`], and per-ACK RTT samples as
//! [`TcpEvent::RttSample`] (with `report_rtt_samples`).
//!
//! Not implemented: urgent data, PAWS, ECN, D-SACK, SACK NextSeg rules 3
//! and 4 of RFC 6675, TCP Fast Open, keep-alives, path MTU discovery.

pub mod config;
pub mod congestion;
pub mod connection;
pub mod event;
pub mod listener;
pub mod reassembly;
pub mod rtt;
pub mod scoreboard;
pub mod send_buffer;
pub mod seq;
pub mod state;
pub mod stats;
pub mod wire;

pub use config::{ConfigError, TcpConfig};
pub use connection::{Segment, TcpConnection};
pub use event::{CloseReason, TcpError, TcpEvent};
pub use listener::{ListenOutcome, TcpListener};
pub use msctp_time::Time;
pub use seq::SeqNum;
pub use state::TcpState;
pub use stats::TcpStats;
pub use wire::WireError;
