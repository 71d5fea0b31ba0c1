//! msctp-proto: a sans-I/O mobile SCTP engine.
//!
//! SCTP (RFC 9260) with dynamic address reconfiguration (ADD-IP, RFC 5061)
//! and chunk authentication (AUTH, RFC 4895). The engine owns no sockets,
//! threads, clocks or random sources: the caller passes the current time
//! and a random seed in, hands received datagrams to it, and polls it for
//! datagrams to send, timer deadlines and application events.

pub mod time;
pub mod wire;

pub use time::Time;
