//! What a connection tells its user, and the errors it returns.

use std::time::Duration;

use crate::config::ConfigError;
use crate::wire::WireError;

/// Why a connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseReason {
    /// Both FINs exchanged and acknowledged (entering TIME-WAIT, or the
    /// last ACK received in LAST-ACK).
    Normal,
    /// The peer reset the connection.
    Reset,
    /// Too many retransmissions without progress (RFC 9293 R2).
    TimedOut,
    /// The local user called `abort()`.
    Aborted,
}

/// An event polled with `poll_event`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TcpEvent {
    /// The three-way handshake completed.
    Connected,
    /// In-order data can be read (signalled again after the next `read`).
    Readable,
    /// Room in the send buffer after a `write` that did not take everything.
    Writable,
    /// The peer's FIN arrived after all its data: no more data will come.
    PeerFinished,
    /// The connection is over.
    Closed(CloseReason),
    /// One RTT measurement (only with `report_rtt_samples`).
    RttSample { rtt: Duration, srtt: Duration },
}

/// Errors of the connection API.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TcpError {
    #[error(transparent)]
    Wire(#[from] WireError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The segment's addresses or ports are not this connection's.
    #[error("segment is not for this connection")]
    NotForThisConnection,
    /// `write` after `close` or on a closed connection.
    #[error("connection is closed for sending")]
    SendClosed,
}
