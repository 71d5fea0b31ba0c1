//! What the application sees of an association: its states (RFC 9260
//! section 4), its events, why it closed, and why a request was refused.

use std::net::IpAddr;

use bytes::Bytes;

use crate::asconf::AsconfError;
use crate::wire::ErrorCause;

/// Association states (RFC 9260 section 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    CookieWait,
    CookieEchoed,
    Established,
    ShutdownPending,
    ShutdownSent,
    ShutdownReceived,
    ShutdownAckSent,
    Closed,
}

impl State {
    /// States in which user data flows (or drains).
    pub fn is_established(self) -> bool {
        matches!(
            self,
            State::Established
                | State::ShutdownPending
                | State::ShutdownSent
                | State::ShutdownReceived
                | State::ShutdownAckSent
        )
    }

    /// States in which HEARTBEATs (and the PLPMTUD probes that ride the
    /// heartbeat timers) are sent: not after this endpoint sent its
    /// SHUTDOWN or SHUTDOWN ACK (RFC 4460 section 2.10, which Linux and
    /// FreeBSD follow). A heartbeat that reaches a peer which has already
    /// sent its SHUTDOWN COMPLETE is out of the blue there and answered
    /// with an ABORT (RFC 9260 section 8.4), which would end with an
    /// abort an association whose data was all delivered.
    pub fn sends_heartbeats(self) -> bool {
        matches!(
            self,
            State::Established | State::ShutdownPending | State::ShutdownReceived
        )
    }
}

/// Why an association ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CloseReason {
    /// Graceful shutdown completed.
    Shutdown,
    /// The peer sent an ABORT.
    PeerAbort { causes: Vec<ErrorCause> },
    /// The application aborted.
    Aborted,
    /// INIT or COOKIE ECHO went unanswered Max.Init.Retransmits times.
    InitFailed,
    /// The peer refused the association (ABORT or bad INIT ACK), with
    /// the ABORT's causes (e.g. Out of Resource, RFC 9260 section
    /// 3.3.10.4, from a peer that holds as many associations as it
    /// takes).
    Refused { causes: Vec<ErrorCause> },
    /// Association.Max.Retrans consecutive errors: the peer is unreachable.
    PeerUnreachable,
    /// The peer violated the protocol and we aborted.
    ProtocolViolation(&'static str),
    /// The peer restarted with new tags; this association's state is gone.
    Restarted,
    /// No user data either way for the endpoint's `idle_timeout` (RFC
    /// 6458 section 8.1.8's SCTP_AUTOCLOSE): aborted.
    IdleTimeout,
    /// Idle while the endpoint was full: aborted (Out of Resource) to
    /// make room for a new association (`reclaim_idle_after`).
    Reclaimed,
}

/// Something the application should know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The association is established.
    Connected,
    /// The association ended; no more events follow except `SendFailed`.
    Closed { reason: CloseReason },
    /// The peer restarted the association (RFC 9260 section 5.2.4 A).
    Restarted,
    /// At least one message is ready for [`Association::recv`].
    Readable,
    /// The send buffer has room again after [`SendError::BufferFull`].
    Writable,
    /// A peer address became reachable again (after it was inactive or
    /// potentially failed, or first confirmed).
    PathUp { addr: IpAddr },
    /// A peer address exceeded Path.Max.Retrans.
    PathDown { addr: IpAddr },
    /// SCTP-PF (RFC 7829): a peer address exceeded
    /// PotentiallyFailed.Max.Retrans; new data goes elsewhere while it is
    /// probed. `PathUp` follows when it answers, `PathDown` if it stays
    /// silent past Path.Max.Retrans.
    PathPotentiallyFailed { addr: IpAddr },
    /// A peer address was verified by a HEARTBEAT ACK (section 5.4).
    PathConfirmed { addr: IpAddr },
    /// The peer added one of its addresses (ASCONF).
    PeerAddressAdded { addr: IpAddr },
    /// The peer deleted one of its addresses (ASCONF).
    PeerAddressRemoved { addr: IpAddr },
    /// The destination for new data changed (locally, by the peer's Set
    /// Primary, or by failover).
    PrimaryChanged { addr: IpAddr, reason: PrimaryReason },
    /// Our Add IP was acknowledged: the address can now be a source.
    LocalAddressAdded { addr: IpAddr },
    /// Our Add IP was refused.
    LocalAddressAddFailed {
        addr: IpAddr,
        causes: Vec<ErrorCause>,
    },
    /// Our Delete IP was acknowledged.
    LocalAddressRemoved { addr: IpAddr },
    /// Our Delete IP was refused; the address stays in the association.
    LocalAddressRemoveFailed {
        addr: IpAddr,
        causes: Vec<ErrorCause>,
    },
    /// Our Set Primary request was answered.
    PeerPrimaryRequest { addr: IpAddr, accepted: bool },
    /// The peer does not support ADD-IP; queued requests failed.
    AsconfUnsupported,
    /// The peer's Adaptation Layer Indication.
    Adaptation { indication: u32 },
    /// The peer reported errors in an ERROR chunk.
    PeerError { causes: Vec<ErrorCause> },
    /// A packet failed authentication and was discarded (RFC 4895 6.3).
    AuthenticationFailure,
    /// Data that was not delivered when the association ended, returned to
    /// the application (no data is silently lost).
    SendFailed { stream: u16, ppid: u32, data: Bytes },
    /// A stream reconfiguration (RFC 6525) was performed or refused.
    Reconfig(ReconfigEvent),
}

/// Why the destination for new data changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrimaryReason {
    /// The application chose it.
    Local,
    /// The peer asked for it (Set Primary Address).
    PeerRequest,
    /// The old primary became inactive.
    Failover,
    /// The old primary was deleted by the peer.
    Deleted,
}

/// Why a message could not be queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    #[error("the association is not established")]
    NotConnected,
    #[error("the association is shutting down")]
    ShuttingDown,
    #[error("stream {0} does not exist")]
    InvalidStream(u16),
    #[error("message of {0} bytes exceeds the configured maximum")]
    TooLarge(usize),
    #[error("empty message")]
    Empty,
    #[error("send buffer full")]
    BufferFull,
}

/// Why an address operation was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AddressError {
    #[error("address is already part of the association")]
    AlreadyPresent,
    #[error("address is not part of the association")]
    Unknown,
    #[error("the address limit is reached")]
    Limit,
    #[error(transparent)]
    Asconf(#[from] AsconfError),
}

/// A request of this endpoint (RFC 6525 section 5.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReconfigRequest {
    /// Reset these outgoing streams, all when empty (section 5.1.2).
    ResetOutgoing(Vec<u16>),
    /// Ask the peer to reset its outgoing streams towards us (section
    /// 5.1.3).
    ResetIncoming(Vec<u16>),
    /// Reset every SSN and the TSNs both ways (section 5.1.4).
    ResetAssociation,
    /// Add outgoing streams (section 5.1.5).
    AddOutgoing(u16),
    /// Ask the peer to add streams towards us (section 5.1.6).
    AddIncoming(u16),
}

/// What became of a reconfiguration, for the application (the
/// notifications of RFC 6525 section 6.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReconfigEvent {
    /// Streams were reset (SCTP_STREAM_RESET_EVENT): our outgoing ones
    /// when the peer performed our request, or our incoming ones at the
    /// peer's request; all when `streams` is empty. Their sequence
    /// numbers start at 0 again.
    StreamsReset { incoming: bool, streams: Vec<u16> },
    /// The peer did not perform our request: `result` is the Result of
    /// its Re-configuration Response (section 4.4), e.g. 2 (Denied).
    Refused {
        request: ReconfigRequest,
        result: u32,
    },
    /// SSNs and TSNs were reset (SCTP_ASSOC_RESET_EVENT): our next TSN
    /// and the peer's.
    AssociationReset { next_tsn: u32, peer_next_tsn: u32 },
    /// Streams were added (SCTP_STREAM_CHANGE_EVENT): the counts now.
    StreamsChanged { inbound: u16, outbound: u16 },
}
