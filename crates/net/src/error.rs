//! Errors of the real-network driver. Every failure that comes from the
//! outside (a bad address, a port in use, an unreachable peer, a refused
//! association) is reported as one of these, with the address or port it
//! concerns, never as a panic.

use std::io;
use std::net::{IpAddr, SocketAddr};

use msctp_proto::association::{AddressError, SendError};
use msctp_proto::endpoint::ConnectError;
use msctp_proto::wire::ErrorCause;
use msctp_proto::{CloseReason, config::ConfigError};

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    #[error("UDP port {port} on {addr} is already in use (another SCTP-over-UDP stack?)")]
    PortInUse { addr: IpAddr, port: u16 },
    #[error("{addr} is not an address of this host (or not usable yet)")]
    AddressNotLocal { addr: IpAddr },
    #[error("cannot open a UDP socket on {addr} port {port}: {source}")]
    Socket {
        addr: IpAddr,
        port: u16,
        #[source]
        source: io::Error,
    },
    #[error("no local address given (and none found)")]
    NoLocalAddress,
    #[error("no interface named {name:?} (this host has: {})", known.join(", "))]
    UnknownInterface { name: String, known: Vec<String> },
    #[error("no local address of the same family as {peer}")]
    NoAddressFamily { peer: IpAddr },
    #[error("bad address {text:?}: {why}")]
    BadAddress { text: String, why: String },
    #[error(
        "no answer from {peer} (SCTP port {port}, UDP port {udp_port}) within {secs:.1} s: nobody is listening there or the peer is unreachable"
    )]
    Unreachable {
        peer: SocketAddr,
        port: u16,
        udp_port: u16,
        secs: f64,
    },
    #[error("the association ended: {0}")]
    Closed(String),
    #[error("no message from the peer for {0:.1} s")]
    Idle(f64),
    #[error("the peer refused the association ({0})")]
    Refused(String),
    #[error("cannot start the association: {0}")]
    Connect(#[from] ConnectError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("send failed: {0}")]
    Send(#[from] SendError),
    #[error("an earlier send failed: {0}")]
    SendFailed(String),
    #[error("address change refused: {0}")]
    Address(#[from] AddressError),
    #[error("capacity probe not sent: {0}")]
    Probe(#[from] msctp_proto::association::ProbeError),
    #[error("stream reconfiguration not requested: {0}")]
    Reconfig(#[from] msctp_proto::ReconfigError),
    #[error(
        "{0} messages sent before are still waiting for room in the send buffer; request the reconfiguration once they were taken"
    )]
    SendsWaiting(usize),
    #[error("the stack has stopped")]
    Stopped,
    #[error("too many requests are waiting on this association (limit {0})")]
    Busy(usize),
    #[error("no free stream: {open} streams in use (limit {limit})")]
    NoFreeStream { open: usize, limit: usize },
    #[error("bad stream configuration: {0}")]
    StreamConfig(String),
    #[error("interface monitor: {0}")]
    Monitor(io::Error),
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// A readable reason for an association's end.
pub fn describe_close(reason: &CloseReason) -> String {
    match reason {
        CloseReason::Shutdown => "graceful shutdown".into(),
        CloseReason::PeerAbort { causes } if out_of_resource(causes) => {
            "the peer aborted: it is out of resources (Out of Resource, RFC 9260 3.3.10.4; \
             a full server reclaims its longest-idle association)"
                .into()
        }
        CloseReason::PeerAbort { causes } if causes.is_empty() => "the peer aborted".into(),
        CloseReason::PeerAbort { causes } => format!("the peer aborted: {}", show(causes)),
        CloseReason::Aborted => "aborted locally".into(),
        CloseReason::IdleTimeout => {
            "aborted locally: no user data either way for the idle timeout".into()
        }
        CloseReason::Reclaimed => {
            "aborted locally: idle while the endpoint was full, its slot given to a new association"
                .into()
        }
        CloseReason::InitFailed => "the peer never answered the INIT".into(),
        CloseReason::Refused { causes } if out_of_resource(causes) => {
            "it answered with an ABORT, Out of Resource (RFC 9260 3.3.10.4): the peer holds as \
             many associations as it accepts (from this source or in all); try again later"
                .into()
        }
        CloseReason::Refused { causes } if causes.is_empty() => {
            "it answered with an ABORT: no endpoint accepts associations on that SCTP port".into()
        }
        CloseReason::Refused { causes } => {
            format!("it answered with an ABORT: {}", show(causes))
        }
        CloseReason::PeerUnreachable => {
            "the peer became unreachable (Association.Max.Retrans exceeded)".into()
        }
        CloseReason::ProtocolViolation(w) => format!("protocol violation: {w}"),
        CloseReason::Restarted => "the peer restarted".into(),
    }
}

fn out_of_resource(causes: &[ErrorCause]) -> bool {
    causes.contains(&ErrorCause::OutOfResource)
}

/// An ABORT's causes, a User-Initiated Abort's reason as text.
fn show(causes: &[ErrorCause]) -> String {
    let one = |c: &ErrorCause| match c {
        ErrorCause::UserInitiatedAbort { reason } => {
            format!("\"{}\"", String::from_utf8_lossy(reason))
        }
        other => format!("{other:?}"),
    };
    causes.iter().map(one).collect::<Vec<_>>().join(", ")
}

/// Parses an IP address given on a command line or in a file, with a
/// message that says what was wrong.
pub fn parse_ip(text: &str) -> Result<IpAddr, NetError> {
    let t = text.trim().trim_start_matches('[').trim_end_matches(']');
    t.parse::<IpAddr>().map_err(|e| NetError::BadAddress {
        text: text.to_string(),
        why: e.to_string(),
    })
}

/// Checks that an address can be a peer or local SCTP address (RFC 9260
/// section 8.4: unicast only).
pub fn check_unicast(addr: IpAddr) -> Result<IpAddr, NetError> {
    let why = match addr {
        a if a.is_unspecified() => Some("the unspecified address"),
        a if a.is_multicast() => Some("a multicast address"),
        IpAddr::V4(v4) if v4.is_broadcast() => Some("the broadcast address"),
        _ => None,
    };
    match why {
        Some(w) => Err(NetError::BadAddress {
            text: addr.to_string(),
            why: format!("{w} cannot be an SCTP address"),
        }),
        None => Ok(addr),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_checked_with_clear_messages() {
        assert_eq!(parse_ip("127.0.0.1").unwrap(), IpAddr::from([127, 0, 0, 1]));
        assert_eq!(parse_ip("[::1]").unwrap(), "::1".parse::<IpAddr>().unwrap());
        let e = parse_ip("127.0.0.300").unwrap_err().to_string();
        assert!(e.contains("127.0.0.300"), "{e}");
        assert!(check_unicast("0.0.0.0".parse().unwrap()).is_err());
        assert!(check_unicast("224.0.0.1".parse().unwrap()).is_err());
        assert!(check_unicast("255.255.255.255".parse().unwrap()).is_err());
        assert!(check_unicast("10.0.0.1".parse().unwrap()).is_ok());
    }

    #[test]
    fn a_refusal_for_lack_of_room_says_so() {
        let oor = CloseReason::Refused {
            causes: vec![ErrorCause::OutOfResource],
        };
        let text = describe_close(&oor);
        assert!(text.contains("Out of Resource"), "{text}");
        assert!(!text.contains("no endpoint accepts"), "{text}");
        let none = describe_close(&CloseReason::Refused { causes: vec![] });
        assert!(none.contains("no endpoint accepts"), "{none}");
        let reclaimed = CloseReason::PeerAbort {
            causes: vec![ErrorCause::OutOfResource],
        };
        assert!(describe_close(&reclaimed).contains("out of resources"));
        let idle = CloseReason::PeerAbort {
            causes: vec![ErrorCause::UserInitiatedAbort {
                reason: bytes::Bytes::from_static(b"idle for 300 s"),
            }],
        };
        assert!(describe_close(&idle).contains("\"idle for 300 s\""));
    }
}
