//! The sockets a script opens (RFC 6458 one-to-one style): file
//! descriptors, their state, and the errno values the socket layer of a
//! kernel would report for the engine's outcomes.

use std::collections::VecDeque;

use bytes::Bytes;
use msctp_proto::{AssocId, AssociationConfig, CloseReason};

/// Bound on open descriptors.
pub const MAX_SOCKETS: usize = 256;

/// What a descriptor refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SockState {
    /// Created, not yet listening or connected.
    Fresh,
    Listening,
    /// Connected (or connecting) to one association.
    Assoc(AssocId),
}

#[derive(Debug, Clone)]
pub struct Socket {
    pub fd: i64,
    pub nonblocking: bool,
    pub state: SockState,
    /// Options set before the association exists (or inherited by
    /// accepted associations, for a listening socket).
    pub cfg: AssociationConfig,
    /// SO_ERROR: reported once, then cleared.
    pub pending_error: Option<&'static str>,
    /// Associations established on a listening socket, not yet accepted.
    pub accept_queue: VecDeque<AssocId>,
    /// The rest of a message a `read` did not take whole.
    pub partial: Option<Bytes>,
    /// How the association ended, once it has.
    pub closed: Option<CloseReason>,
    /// SCTP_DEFAULT_PRINFO (RFC 7496 section 4.3), as the script set it.
    pub default_prinfo: PrInfo,
    /// SCTP_RECVRCVINFO and SCTP_RECVNXTINFO (RFC 6458 sections 8.1.22
    /// and 8.1.23): what `sctp_recvv` reports.
    pub recv_rcvinfo: bool,
    pub recv_nxtinfo: bool,
    /// SCTP_FRAGMENT_INTERLEAVE (RFC 6458 section 8.1.20): 0, 1 or 2.
    pub fragment_interleave: i64,
    /// SCTP_ENABLE_STREAM_RESET (RFC 6525 section 6.3.1), as set.
    pub reset_mask: i64,
}

/// A partial reliability policy as the socket API writes it (RFC 7496
/// section 4.1's `struct sctp_prinfo`): the platform's policy number and
/// its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PrInfo {
    pub policy: i64,
    pub value: u32,
}

impl Socket {
    pub fn new(fd: i64, cfg: AssociationConfig) -> Self {
        Socket {
            fd,
            nonblocking: false,
            state: SockState::Fresh,
            cfg,
            pending_error: None,
            accept_queue: VecDeque::new(),
            partial: None,
            closed: None,
            default_prinfo: PrInfo::default(),
            recv_rcvinfo: false,
            recv_nxtinfo: false,
            fragment_interleave: 0,
            reset_mask: 0,
        }
    }

    pub fn assoc(&self) -> Option<AssocId> {
        match self.state {
            SockState::Assoc(id) => Some(id),
            _ => None,
        }
    }
}

/// The socket-layer error a closed association leaves behind (what a
/// kernel puts in SO_ERROR and returns from later calls).
pub fn close_errno(reason: &CloseReason) -> Option<&'static str> {
    match reason {
        CloseReason::Shutdown | CloseReason::Aborted | CloseReason::Restarted => None,
        CloseReason::InitFailed | CloseReason::PeerUnreachable => Some("ETIMEDOUT"),
        CloseReason::Refused { .. } => Some("ECONNREFUSED"),
        CloseReason::PeerAbort { .. } => Some("ECONNRESET"),
        CloseReason::ProtocolViolation(_) | CloseReason::IdleTimeout | CloseReason::Reclaimed => {
            Some("ECONNABORTED")
        }
    }
}

/// Errno names that are the same number on the platforms the scripts
/// target.
pub fn errno_eq(a: &str, b: &str) -> bool {
    fn norm(s: &str) -> &str {
        match s {
            "EWOULDBLOCK" => "EAGAIN",
            other => other,
        }
    }
    norm(a) == norm(b)
}

/// The descriptor table.
#[derive(Debug, Default)]
pub struct Sockets {
    pub list: Vec<Socket>,
}

impl Sockets {
    /// The lowest free descriptor from 3 on, as a kernel allocates them.
    pub fn next_fd(&self) -> i64 {
        let mut fd = 3;
        while self.list.iter().any(|s| s.fd == fd) {
            fd += 1;
        }
        fd
    }

    pub fn get(&self, fd: i64) -> Option<&Socket> {
        self.list.iter().find(|s| s.fd == fd)
    }

    pub fn get_mut(&mut self, fd: i64) -> Option<&mut Socket> {
        self.list.iter_mut().find(|s| s.fd == fd)
    }

    pub fn by_assoc_mut(&mut self, id: AssocId) -> Option<&mut Socket> {
        self.list
            .iter_mut()
            .find(|s| s.state == SockState::Assoc(id))
    }

    pub fn remove(&mut self, fd: i64) -> Option<Socket> {
        let i = self.list.iter().position(|s| s.fd == fd)?;
        Some(self.list.remove(i))
    }

    pub fn listener_mut(&mut self) -> Option<&mut Socket> {
        self.list
            .iter_mut()
            .find(|s| s.state == SockState::Listening)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_are_allocated_lowest_first() {
        let mut t = Sockets::default();
        assert_eq!(t.next_fd(), 3);
        t.list.push(Socket::new(3, AssociationConfig::default()));
        t.list.push(Socket::new(4, AssociationConfig::default()));
        assert_eq!(t.next_fd(), 5);
        t.remove(3);
        assert_eq!(t.next_fd(), 3);
    }

    #[test]
    fn errno_aliases_and_close_reasons() {
        assert!(errno_eq("EWOULDBLOCK", "EAGAIN"));
        assert!(!errno_eq("EAGAIN", "EINPROGRESS"));
        assert_eq!(close_errno(&CloseReason::InitFailed), Some("ETIMEDOUT"));
        assert_eq!(close_errno(&CloseReason::Shutdown), None);
    }
}
