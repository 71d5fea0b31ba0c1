//! The states of a TCP connection (RFC 9293 section 3.3.2).

/// Connection states of RFC 9293 section 3.3.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TcpState {
    Closed,
    SynSent,
    SynReceived,
    Established,
    FinWait1,
    FinWait2,
    CloseWait,
    Closing,
    LastAck,
    TimeWait,
}
