//! msctp-net: the mSCTP engine (`msctp-proto`) on real networks.
//!
//! - [`Stack`] / [`Association`]: an async (Tokio) driver that runs SCTP
//!   associations over UDP (RFC 6951; port 9899 by default) with one
//!   socket per local address, IPv4 and IPv6; connect / accept, messages
//!   on streams, address changes (ASCONF), primary path, events.
//!   [`blocking`] wraps it for applications without async.
//! - [`monitor`]: Linux netlink interface monitor; with
//!   [`StackConfig::monitor`] its link and address events drive the
//!   handover policy of every association ([`mobility`]).
//! - [`transfer`] (files with a SHA-256 check), [`perf`] (throughput,
//!   paths, handovers) and [`bench`] (loopback throughput against usrsctp
//!   and kernel TCP), [`bench_server`] (a listener with 10 000 clients
//!   against kernel TCP's accept rate): the tools behind `msctp send /
//!   recv / listen / perf / bench`.
//! - [`streams`]: byte streams (Tokio `AsyncRead` / `AsyncWrite`), one
//!   per SCTP stream, with per-stream flow control, for applications
//!   written like TCP ones.
//! - [`tunnel`]: `msctp tunnel`, a SOCKS 5 front (RFC 1928) whose TCP
//!   connections ride one association, a stream each, to a server that
//!   holds the same key and relays them.
//! - [`udp`]: batched datagram I/O (`recvmmsg` / `sendmmsg`, UDP GSO and
//!   GRO with fallback) under the driver.

pub mod bench;
pub mod bench_server;
pub mod blocking;
pub mod config;
pub mod driver;
pub mod encap;
pub mod error;
pub mod impair;
pub mod mobility;
pub mod monitor;
pub mod perf;
pub mod route;
pub mod soak;
pub mod stack;
pub mod status;
pub mod streams;
pub mod transfer;
pub mod tunnel;
pub mod udp;

pub use config::{PolicyKind, SCTP_UDP_PORT, StackConfig};
pub use driver::NetEvent;
pub use error::NetError;
pub use mobility::Handover;
pub use msctp_proto::{Event, Message, PrPolicy, SendOptions};
pub use stack::{AssocHandle, Association, Stack};
pub use status::{AssocStatus, DriverStats};
