//! One SCTP association: its state machine (RFC 9260 section 4), data
//! transfer, multi-homing, address reconfiguration (RFC 5061) and chunk
//! authentication (RFC 4895).
//!
//! The association is driven by its [`Endpoint`](crate::endpoint::Endpoint),
//! which demultiplexes packets to it and collects its output; the
//! application talks to it through the methods below.

mod addip;
mod auth;
mod cmt;
mod collision;
mod estimators;
mod failover;
mod handshake;
mod input;
mod output;
pub mod recv;
pub mod send;
mod timers;
pub mod trace;

use std::collections::VecDeque;
use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

pub use cmt::ReceiveWindowBlock;
pub(crate) use collision::announced_addresses;
pub use estimators::ProbeError;
pub use handshake::{InitError, PeerInit, check_address_count, local_auth_params, local_params};

/// The INIT ACK the endpoint sends statelessly (section 5.1 step B).
#[allow(clippy::too_many_arguments)]
pub(crate) fn build_init_ack_for_endpoint(
    cfg: &AssociationConfig,
    local_addrs: &[IpAddr],
    secret: &[u8],
    now: Time,
    peer_init_raw: Bytes,
    peer: &PeerInit,
    (src, dst): (IpAddr, IpAddr),
    (local_port, peer_port): (u16, u16),
    (local_tag, local_initial_tsn): (u32, u32),
    local_random: Option<[u8; RANDOM_LEN]>,
) -> Chunk {
    handshake::build_init_ack(handshake::InitAckSpec {
        cfg,
        local_addrs,
        secret,
        now,
        peer_init_raw,
        peer,
        src,
        dst,
        local_port,
        peer_port,
        local_tag,
        local_initial_tsn,
        local_tie_tag: 0,
        peer_tie_tag: 0,
        local_random,
    })
}

/// The error cause of the ABORT refusing an INIT or INIT ACK.
pub(crate) fn init_error_cause(e: &InitError, init: &InitChunk) -> ErrorCause {
    use crate::wire::Param;
    match e {
        InitError::ZeroStreams | InitError::ZeroTag => ErrorCause::InvalidMandatoryParameter,
        InitError::MissingCookie => ErrorCause::MissingMandatoryParameter {
            param_types: vec![7],
        },
        InitError::HostName => {
            let address = init
                .params
                .iter()
                .find(|p| matches!(p, Param::HostNameAddress(_)))
                .map(|p| {
                    let mut v = Vec::new();
                    p.emit(&mut v);
                    v.truncate(p.length());
                    Bytes::from(v)
                })
                .unwrap_or_default();
            ErrorCause::UnresolvableAddress { address }
        }
        InitError::TooManyAddresses { .. } => ErrorCause::OutOfResource,
        other => ErrorCause::ProtocolViolation {
            info: Bytes::from(other.to_string()),
        },
    }
}
pub use recv::Message;

use crate::Time;
use crate::asconf::{AsconfError, AsconfState, LocalAddr, LocalAddrState};
use crate::auth::RANDOM_LEN;
use crate::config::AssociationConfig;
use crate::congestion::Congestion;
use crate::path::{Path, PathStats, RtoEstimator};
use crate::wire::{Chunk, ErrorCause, InitChunk};
use recv::Receiver;
use send::Sender;

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

/// A datagram to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmit {
    /// Local address to send from; `None` lets the host choose.
    pub source: Option<IpAddr>,
    pub destination: IpAddr,
    /// The SCTP packet (common header and chunks), after `headroom`
    /// bytes left free for the driver ([`Transmit::packet`]).
    pub payload: Vec<u8>,
    /// Bytes at the front of `payload` before the packet: the endpoint's
    /// `transmit_headroom` (0 by default: `payload` is the packet).
    pub headroom: usize,
    /// The association that sent it (set by [`crate::Endpoint::poll_transmit`];
    /// `None` for the endpoint's stateless replies). A driver that
    /// encapsulates in UDP keys the remote port by it (RFC 6951 section
    /// 5: per association and destination address).
    pub assoc: Option<AssocId>,
}

impl Transmit {
    /// The SCTP packet (the buffer after its headroom).
    pub fn packet(&self) -> &[u8] {
        &self.payload[self.headroom..]
    }

    /// The SCTP packet, writable (to fill a checksum left to the driver).
    pub fn packet_mut(&mut self) -> &mut [u8] {
        &mut self.payload[self.headroom..]
    }
}

/// Handle of an association within its endpoint (the endpoint hands them
/// out; defined here so that a [`Transmit`] can name its sender).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AssocId(pub u32);

/// Counters of one association.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AssociationStats {
    pub packets_received: u64,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Packets dropped for a wrong verification tag.
    pub bad_vtag: u64,
    /// AUTH failures and unauthenticated chunks that required AUTH.
    pub auth_failures: u64,
    /// Chunks that could not be decoded.
    pub malformed_chunks: u64,
    /// Unknown chunk types seen.
    pub unknown_chunks: u64,
    pub protocol_violations: u64,
    /// Chunks not sent because they are too long for the 16-bit Chunk
    /// Length field (RFC 9260 section 3.2); should stay 0.
    pub chunks_too_long: u64,
    pub data_chunks_received: u64,
    /// Fragments looked at by reassembly: at most three per DATA chunk
    /// received and one per fragment delivered (RFC 9260 section 6.9).
    pub reassembly_visits: u64,
    pub duplicate_tsns_received: u64,
    pub data_dropped_no_buffer: u64,
    pub sacks_sent: u64,
    pub sacks_received: u64,
    pub asconfs_sent: u64,
    pub asconf_retransmissions: u64,
    pub asconfs_received: u64,
    /// ASCONFs whose serial number is not the next expected one: a
    /// retransmission of the last (answered from the cached ASCONF-ACK,
    /// RFC 5061 section 5.2) or an old or future serial (discarded), as
    /// a replay would carry.
    pub stale_asconfs: u64,
    /// INITs received by an association that exists (collisions and
    /// restart attempts, RFC 9260 section 5.2): answered, never applied
    /// directly.
    pub unexpected_inits: u64,
    /// SACKs with more Gap Ack Blocks than `Limits::max_gap_blocks` (a
    /// peer's huge gap-report list; processed at a bounded cost).
    pub oversized_sacks: u64,
    /// DATA chunks sent as zero window probes (RFC 9260 section 6.1
    /// rule A) to a peer whose window was closed.
    pub zero_window_probes: u64,
    pub events_dropped: u64,
    pub t3_expirations: u64,
    pub fast_retransmissions: u64,
    pub retransmitted_chunks: u64,
    /// Retransmissions the peer reported as duplicates (it already had the
    /// data): spurious.
    pub spurious_retransmissions: u64,
    /// Of these, fast retransmissions (e.g. reordering across CMT paths
    /// taken for loss).
    pub spurious_fast_retransmissions: u64,
    /// Time the peer's receive window kept the sender waiting (data
    /// queued, a congestion window open), over finished episodes; see
    /// [`Association::rwnd_blocked`] for the one under way.
    pub rwnd_blocked: Duration,
    /// Episodes of it.
    pub rwnd_blocked_episodes: u64,
    pub messages_delivered: u64,
    /// INITs (or restart cookies) refused because they add peer
    /// addresses (RFC 9260 section 5.2.2).
    pub restarts_refused: u64,
    /// COOKIE ECHOs discarded by section 5.2.4's table (late, or
    /// matching nothing).
    pub cookies_discarded: u64,
    /// ASCONF Add IP requests refused because another association of
    /// the endpoint has that peer address.
    pub addresses_refused_in_use: u64,
}

/// The handshake of the side that sent the INIT.
#[derive(Debug, Clone)]
struct InitState {
    chunk: InitChunk,
    /// Peer address the INIT goes to.
    dest: IpAddr,
    /// The peer addresses the application gave (an INIT ACK answering a
    /// colliding INIT goes only to one of them, section 5.2.1).
    peers: Vec<IpAddr>,
    cookie: Option<Bytes>,
    /// Chunks to bundle after the COOKIE ECHO (an ERROR reporting
    /// unrecognized INIT ACK parameters).
    cookie_bundle: Vec<Chunk>,
    retransmits: u32,
    deadline: Option<Time>,
    /// The INIT / COOKIE ECHO must be (re)sent now.
    due: bool,
    rto: RtoEstimator,
}

/// Graceful shutdown progress (section 9.2).
#[derive(Debug, Clone, Default)]
struct ShutdownState {
    /// SHUTDOWN or SHUTDOWN ACK must be (re)sent.
    due: bool,
    deadline: Option<Time>,
    retransmits: u32,
    /// T5-shutdown-guard.
    guard: Option<Time>,
}

/// A control chunk addressed to a specific peer address (replies go back
/// to where the request came from).
#[derive(Debug, Clone)]
struct Directed {
    dest: IpAddr,
    source: Option<IpAddr>,
    /// Send alone with this verification tag (INIT ACK and ABORT answering
    /// an INIT, SHUTDOWN COMPLETE with the T bit).
    reflect: Option<u32>,
    chunk: Chunk,
}

/// An SCTP association.
#[derive(Debug, Clone)]
pub struct Association {
    cfg: AssociationConfig,
    state: State,
    local_port: u16,
    peer_port: u16,
    /// Our verification tag (the peer's packets carry it).
    local_tag: u32,
    /// The peer's verification tag (our packets carry it).
    peer_tag: u32,
    local_initial_tsn: u32,
    rng: ChaCha8Rng,
    local: Vec<LocalAddr>,
    /// Our preferred source address.
    local_primary: Option<IpAddr>,
    paths: Vec<Path>,
    primary: usize,
    /// Association error counter (section 8.1).
    error_count: u32,
    sender: Sender,
    receiver: Receiver,
    auth: auth::Auth,
    asconf: AsconfState,
    init: Option<InitState>,
    shutdown: ShutdownState,
    ctrl: VecDeque<Directed>,
    /// The chunk list of the packet being built (memory reused from
    /// packet to packet; empty between packets).
    bundle_chunks: Vec<Chunk>,
    /// Bytes left free in front of each packet built (the endpoint's
    /// `transmit_headroom`).
    headroom: usize,
    /// A SACK must go out with the next packet, or at this deadline.
    sack_now: bool,
    sack_deadline: Option<Time>,
    /// Where SACKs go: the source of the last DATA received.
    sack_dest: Option<IpAddr>,
    /// DATA packets still allowed before the next input (Max.Burst).
    burst_budget: u32,
    /// Heartbeats to unconfirmed addresses in the current window (its
    /// end, one RTO after its first, and their count; at most
    /// `hb_max_burst` per window, section 5.4).
    verification_window: (Time, u32),
    /// Fast retransmissions were just marked: the next packet of them
    /// ignores cwnd (section 7.2.4 step 3).
    fast_rtx_pending: bool,
    /// Zero window probing (RFC 9260 section 6.1 rule A): when the last
    /// probe left, until a SACK acknowledges new data. With
    /// `last_sack_at`, tells a probe's timeout while the peer keeps
    /// answering (no error) from a silent path.
    zero_window_probe_at: Option<Time>,
    /// When the last SACK arrived.
    last_sack_at: Option<Time>,
    /// The endpoint's cookie secret (INIT ACKs for collisions).
    secret: [u8; 32],
    /// Tie-tags (RFC 9260 sections 2 and 5.2.2): a random nonce put in
    /// the cookies of INIT ACKs answering unexpected INITs; a cookie
    /// carrying it restarts this association (section 5.2.4 action A).
    tie_tags: Option<(u32, u32)>,
    /// `Event::Closed` was emitted.
    closed_reported: bool,
    send_blocked: bool,
    events: VecDeque<Event>,
    stats: AssociationStats,
    /// Peer addresses whose data the application moved away because the
    /// link under them went down (`retransmit_path_data`), until a packet
    /// from them arrives: no fast retransmission goes there meanwhile.
    moved_off: Vec<IpAddr>,
    /// The last heartbeat round trip of each peer address measured while
    /// none of our data was in flight there (its queue empty).
    idle_rtt: Vec<(IpAddr, Duration)>,
    /// The peer announced capacity probes (Supported Extensions).
    peer_probes: bool,
    /// Probe packets of a train going out, back to back.
    probe_out: VecDeque<Transmit>,
    /// Probe trains from the peer being timed.
    train_rx: crate::estimate::TrainReceiver,
    /// CMT round-robin: the path to try first for the next packet of new
    /// data.
    cmt_next: usize,
    /// How long the peer's receive window has kept the sender waiting.
    rwnd_block: ReceiveWindowBlock,
    /// CMT: data that was in flight to a deleted peer address is resent
    /// at this time if still unacknowledged.
    rehome_deadline: Option<Time>,
    /// The event-driven path trace, when on (`trace.rs`).
    path_trace: Option<Box<trace::PathTrace>>,
}

impl Association {
    fn blank(
        cfg: AssociationConfig,
        seed: [u8; 32],
        local_port: u16,
        peer_port: u16,
        local_addrs: &[IpAddr],
    ) -> Self {
        let mut rng = ChaCha8Rng::from_seed(seed);
        let local_tag = nonzero(&mut rng);
        let local_initial_tsn = rng.next_u32();
        let mut secret = [0u8; 32];
        rng.fill_bytes(&mut secret);
        let max_pending = cfg.limits.max_pending_asconf_params;
        let mut sender = Sender::new(local_initial_tsn, cfg.outbound_streams, 0);
        sender.cmt = cfg.cmt;
        let receiver = Receiver::new(
            0,
            1,
            cfg.receive_window,
            cfg.max_message_size,
            cfg.limits.max_gap_blocks,
            cfg.limits.max_dup_tsns,
        );
        let local = local_addrs
            .iter()
            .take(cfg.limits.max_local_addresses)
            .map(|&addr| LocalAddr {
                addr,
                state: LocalAddrState::Available,
            })
            .collect();
        Association {
            burst_budget: cfg.max_burst.unwrap_or(u32::MAX),
            verification_window: (Time::ZERO, 0),
            fast_rtx_pending: false,
            zero_window_probe_at: None,
            last_sack_at: None,
            secret,
            tie_tags: None,
            closed_reported: false,
            cfg,
            state: State::Closed,
            local_port,
            peer_port,
            local_tag,
            peer_tag: 0,
            local_initial_tsn,
            rng,
            local,
            local_primary: None,
            paths: Vec::new(),
            primary: 0,
            error_count: 0,
            sender,
            receiver,
            auth: auth::Auth::default(),
            asconf: AsconfState::new(false, local_initial_tsn, 0, max_pending),
            init: None,
            shutdown: ShutdownState::default(),
            ctrl: VecDeque::new(),
            bundle_chunks: Vec::new(),
            headroom: 0,
            sack_now: false,
            sack_deadline: None,
            sack_dest: None,
            send_blocked: false,
            events: VecDeque::new(),
            stats: AssociationStats::default(),
            moved_off: Vec::new(),
            idle_rtt: Vec::new(),
            peer_probes: false,
            probe_out: VecDeque::new(),
            train_rx: crate::estimate::TrainReceiver::default(),
            cmt_next: 0,
            rwnd_block: ReceiveWindowBlock::default(),
            rehome_deadline: None,
            path_trace: None,
        }
    }

    /// Starts an association towards `peer_addrs` (the first is the
    /// initial destination): state COOKIE-WAIT, INIT ready to send.
    pub fn connect(
        cfg: AssociationConfig,
        now: Time,
        seed: [u8; 32],
        local_port: u16,
        peer_port: u16,
        local_addrs: &[IpAddr],
        peer_addrs: &[IpAddr],
    ) -> Option<Self> {
        let dest = *peer_addrs.first()?;
        let mut a = Association::blank(cfg, seed, local_port, peer_port, local_addrs);
        let local_auth = if a.cfg.auth {
            let mut random = [0u8; RANDOM_LEN];
            a.rng.fill_bytes(&mut random);
            Some(local_auth_params(&a.cfg, &random))
        } else {
            None
        };
        let addrs: Vec<IpAddr> = a.local.iter().map(|l| l.addr).collect();
        let chunk = InitChunk {
            initiate_tag: a.local_tag,
            a_rwnd: a.cfg.receive_window,
            outbound_streams: a.cfg.outbound_streams,
            inbound_streams: a.cfg.max_inbound_streams,
            initial_tsn: a.local_initial_tsn,
            params: local_params(&a.cfg, &addrs, local_auth.as_ref(), false),
        };
        a.auth.local = local_auth;
        let rto = RtoEstimator::new(a.cfg.rto_initial, a.cfg.rto_min, a.cfg.rto_max);
        a.init = Some(InitState {
            chunk,
            dest,
            peers: peer_addrs.to_vec(),
            cookie: None,
            cookie_bundle: Vec::new(),
            retransmits: 0,
            deadline: None,
            due: true,
            rto,
        });
        a.state = State::CookieWait;
        let _ = now;
        Some(a)
    }

    /// Creates the association from a valid cookie (the passive side,
    /// RFC 9260 section 5.1 step D): state ESTABLISHED.
    pub(crate) fn from_cookie(
        cfg: AssociationConfig,
        now: Time,
        seed: [u8; 32],
        cookie: &crate::cookie::CookieState,
        peer: &PeerInit,
        local_addrs: &[IpAddr],
    ) -> Result<Self, &'static str> {
        let mut a = Association::blank(cfg, seed, cookie.local_port, cookie.peer_port, local_addrs);
        a.local_tag = cookie.local_tag;
        a.local_initial_tsn = cookie.local_initial_tsn;
        a.auth.local = cookie.local_random.map(|r| local_auth_params(&a.cfg, &r));
        a.setup_peer(peer, cookie.init_src, cookie.init_src, now)?;
        if a.local.is_empty() {
            a.local_primary = None;
        }
        a.state = State::Established;
        a.push_event(Event::Connected);
        if let Some(ind) = peer.adaptation {
            a.push_event(Event::Adaptation { indication: ind });
        }
        Ok(a)
    }

    /// Sets up everything that depends on the peer's INIT / INIT ACK.
    fn setup_peer(
        &mut self,
        peer: &PeerInit,
        src: IpAddr,
        confirmed: IpAddr,
        now: Time,
    ) -> Result<(), &'static str> {
        self.peer_tag = peer.initiate_tag;
        let local: Vec<IpAddr> = self.local.iter().map(|l| l.addr).collect();
        let addrs = crate::peer_address::transport_addresses(
            src,
            Some(confirmed),
            &peer.addresses,
            &local,
            self.cfg.limits.max_peer_addresses,
        );
        let mtu = self.cfg.path_mtu;
        let icwnd = self.cfg.initial_cwnd_for(mtu);
        self.paths = addrs
            .iter()
            .map(|&addr| {
                let rto =
                    RtoEstimator::new(self.cfg.rto_initial, self.cfg.rto_min, self.cfg.rto_max);
                Path::new(
                    addr,
                    rto,
                    Congestion::new(mtu, icwnd, peer.a_rwnd.max(1)),
                    addr == confirmed,
                )
            })
            .collect();
        self.primary = self
            .paths
            .iter()
            .position(|p| p.remote == confirmed)
            .unwrap_or(0);
        let os = self.cfg.outbound_streams.min(peer.inbound_streams);
        let is = self.cfg.max_inbound_streams.min(peer.outbound_streams);
        // A switch set before the handshake completed survives the new
        // sender.
        let sfr = self.sender.split_fast_retransmit;
        self.sender = Sender::new(self.local_initial_tsn, os, peer.a_rwnd);
        self.sender.split_fast_retransmit = sfr;
        self.sender.cmt = self.cfg.cmt;
        self.receiver = Receiver::new(
            peer.initial_tsn,
            is,
            self.cfg.receive_window,
            self.cfg.max_message_size,
            self.cfg.limits.max_gap_blocks,
            self.cfg.limits.max_dup_tsns,
        );
        self.auth.negotiate(&self.cfg, peer)?;
        let asconf_on = self.cfg.asconf && peer.supports_asconf && self.auth.state.is_some();
        self.asconf = AsconfState::new(
            asconf_on,
            self.local_initial_tsn,
            peer.initial_tsn,
            self.cfg.limits.max_pending_asconf_params,
        );
        self.peer_probes = peer.supports_probes;
        for i in 0..self.paths.len() {
            self.init_path_estimators(i);
        }
        // Unconfirmed addresses are probed at once (section 5.4).
        for p in self.paths.iter_mut() {
            p.heartbeat_deadline = Some(if p.confirmed {
                now + self.cfg.heartbeat_interval.unwrap_or(Duration::MAX)
            } else {
                now
            });
        }
        Ok(())
    }

    // ---------------------------------------------------------------
    // Application interface
    // ---------------------------------------------------------------

    pub fn state(&self) -> State {
        self.state
    }

    pub fn is_closed(&self) -> bool {
        self.state == State::Closed
    }

    /// Closed, nothing left to send, no unread messages or events: the
    /// endpoint may forget it.
    pub fn is_finished(&self) -> bool {
        self.state == State::Closed
            && self.ctrl.is_empty()
            && self.events.is_empty()
            && !self.receiver.readable()
    }

    pub(crate) fn set_secret(&mut self, secret: [u8; 32]) {
        self.secret = secret;
    }

    /// The endpoint's `transmit_headroom`, left free in front of every
    /// packet this association builds.
    pub(crate) fn set_transmit_headroom(&mut self, bytes: usize) {
        self.headroom = bytes;
    }

    pub fn local_port(&self) -> u16 {
        self.local_port
    }

    pub fn peer_port(&self) -> u16 {
        self.peer_port
    }

    /// Our verification tag (peers put it in every packet to us).
    pub fn local_tag(&self) -> u32 {
        self.local_tag
    }

    pub fn peer_tag(&self) -> u32 {
        self.peer_tag
    }

    pub fn config(&self) -> &AssociationConfig {
        &self.cfg
    }

    /// Queues a user message on `stream` (section 6.1 with fragmentation,
    /// section 6.9).
    pub fn send(
        &mut self,
        stream: u16,
        ppid: u32,
        data: Bytes,
        unordered: bool,
    ) -> Result<(), SendError> {
        match self.state {
            State::Established => {}
            State::CookieWait | State::CookieEchoed => return Err(SendError::NotConnected),
            State::Closed => return Err(SendError::NotConnected),
            _ => return Err(SendError::ShuttingDown),
        }
        if stream >= self.sender.outbound_streams() {
            return Err(SendError::InvalidStream(stream));
        }
        if data.is_empty() {
            return Err(SendError::Empty);
        }
        if data.len() > self.cfg.max_message_size {
            return Err(SendError::TooLarge(data.len()));
        }
        if self.sender.buffered() + data.len() > self.cfg.send_buffer {
            self.send_blocked = true;
            return Err(SendError::BufferFull);
        }
        if !self.sender.has_outstanding() {
            self.burst_budget = self.cfg.max_burst.unwrap_or(u32::MAX);
        }
        self.sender.push(stream, ppid, unordered, data);
        Ok(())
    }

    /// Room left in the send buffer, in bytes.
    pub fn send_capacity(&self) -> usize {
        self.cfg.send_buffer.saturating_sub(self.sender.buffered())
    }

    /// Bytes queued or unacknowledged.
    pub fn send_buffered(&self) -> usize {
        self.sender.buffered()
    }

    /// The next complete message, in order per stream.
    pub fn recv(&mut self) -> Option<Message> {
        let before = self.receiver.a_rwnd();
        let m = self.receiver.read()?;
        self.stats.messages_delivered += 1;
        // Window update (section 6.2): tell the peer when the window opened
        // by a large step since the last SACK.
        let after = self.receiver.a_rwnd();
        let mtu = self.cfg.path_mtu as u32;
        if after > before
            && after.saturating_sub(self.receiver.last_advertised)
                >= (self.cfg.receive_window / 4).max(mtu)
        {
            self.sack_now = true;
        }
        Some(m)
    }

    pub fn readable(&self) -> bool {
        self.receiver.readable()
    }

    /// Starts a graceful shutdown (section 9.2): queued data is still sent.
    pub fn shutdown(&mut self, now: Time) {
        match self.state {
            State::Established => {
                self.state = State::ShutdownPending;
                self.maybe_progress_shutdown(now);
            }
            State::CookieWait | State::CookieEchoed => self.abort(None),
            _ => {}
        }
    }

    /// Aborts the association (section 9.1), sending an ABORT with a User
    /// Initiated Abort cause carrying `reason` if given.
    pub fn abort(&mut self, reason: Option<Bytes>) {
        if self.state == State::Closed {
            return;
        }
        let causes = reason
            .map(|r| vec![ErrorCause::UserInitiatedAbort { reason: r }])
            .unwrap_or_default();
        if self.state != State::CookieWait {
            self.send_abort(causes, None);
        }
        self.close(CloseReason::Aborted);
    }

    /// Aborts on the endpoint's behalf (section 9.1) with `causes`,
    /// reporting `reason` (idle timeout, slot reclaimed).
    pub(crate) fn abort_with(&mut self, causes: Vec<ErrorCause>, reason: CloseReason) {
        if self.state == State::Closed {
            return;
        }
        if self.state != State::CookieWait {
            self.send_abort(causes, None);
        }
        self.close(reason);
    }

    /// Peer addresses and their state.
    pub fn paths(&self) -> Vec<PathStats> {
        self.paths.iter().map(|p| p.snapshot()).collect()
    }

    /// The peer's addresses (one per path), without the statistics of
    /// [`Association::paths`].
    pub fn peer_addresses(&self) -> impl ExactSizeIterator<Item = IpAddr> + '_ {
        self.paths.iter().map(|p| p.remote)
    }

    /// Does this association have reason to believe that `addr` is its
    /// peer's: an address the application gave to reach the peer (while
    /// the handshake runs), or a confirmed path (RFC 9260 section 5.4).
    /// An address the peer only listed is not: a packet naming it proves
    /// nothing, so the endpoint routes no one else's set-up chunk by it
    /// and lets an association that confirmed it take it over.
    pub(crate) fn vouches_for(&self, addr: IpAddr) -> bool {
        match self.state {
            State::CookieWait | State::CookieEchoed => {
                self.init
                    .as_ref()
                    .is_some_and(|st| st.peers.contains(&addr))
                    || self.paths.iter().any(|p| p.remote == addr && p.confirmed)
            }
            _ => self.paths.iter().any(|p| p.remote == addr && p.confirmed),
        }
    }

    /// Statistics of the path to `addr`.
    pub fn path_stats(&self, addr: IpAddr) -> Option<PathStats> {
        self.paths
            .iter()
            .find(|p| p.remote == addr)
            .map(|p| p.snapshot())
    }

    /// The primary destination address.
    pub fn primary(&self) -> Option<IpAddr> {
        self.paths.get(self.primary).map(|p| p.remote)
    }

    /// Where new data goes now (the primary unless it failed).
    pub fn data_destination(&self) -> Option<IpAddr> {
        self.data_path().map(|i| self.paths[i].remote)
    }

    pub fn local_addresses(&self) -> &[LocalAddr] {
        &self.local
    }

    pub fn local_primary(&self) -> Option<IpAddr> {
        self.local_primary
    }

    pub fn stats(&self) -> AssociationStats {
        let mut s = self.stats;
        s.retransmitted_chunks = self.sender.stats.retransmitted_chunks;
        s.fast_retransmissions = self.sender.stats.fast_retransmitted_chunks;
        s.spurious_retransmissions = self.sender.stats.spurious_retransmissions;
        s.spurious_fast_retransmissions = self.sender.stats.spurious_fast_retransmissions;
        s.rwnd_blocked = self.rwnd_block.total;
        s.rwnd_blocked_episodes = self.rwnd_block.episodes;
        s.data_chunks_received = self.receiver.data_chunks_received;
        s.reassembly_visits = self.receiver.reassembly_visits;
        s.duplicate_tsns_received = self.receiver.duplicates_received;
        s.data_dropped_no_buffer = self.receiver.dropped_for_window;
        s
    }

    /// Checks the send-side TSN accounting (consecutive TSNs from the
    /// cumulative ack point, byte counters, per-path flight sizes) against
    /// the queues. Meant for tests and fuzz targets: it walks every queue.
    /// A closed association has handed its data back to the application
    /// (`Event::SendFailed`) and has nothing left to account for.
    pub fn check_accounting(&self) -> Result<(), String> {
        if self.state == State::Closed {
            return Ok(());
        }
        self.sender.check_accounting(&self.paths)
    }

    /// Chooses the primary destination (RFC 9260 section 8.2 / the
    /// application's choice). The address must be a peer address.
    pub fn set_primary(&mut self, addr: IpAddr) -> Result<(), AddressError> {
        let i = self
            .paths
            .iter()
            .position(|p| p.remote == addr)
            .ok_or(AddressError::Unknown)?;
        if i != self.primary {
            self.primary = i;
            self.data_path_changed(i);
            self.push_event(Event::PrimaryChanged {
                addr,
                reason: PrimaryReason::Local,
            });
        }
        Ok(())
    }

    /// Chooses the local address to send from (for a multi-homed host whose
    /// interfaces reach the peer through different networks).
    pub fn set_local_primary(&mut self, addr: Option<IpAddr>) -> Result<(), AddressError> {
        if let Some(a) = addr
            && !self.local.iter().any(|l| l.addr == a)
        {
            return Err(AddressError::Unknown);
        }
        self.local_primary = addr;
        Ok(())
    }

    /// Fixes the local address used for the path to `peer` (`None`: the
    /// association chooses).
    pub fn set_path_source(
        &mut self,
        peer: IpAddr,
        source: Option<IpAddr>,
    ) -> Result<(), AddressError> {
        let p = self
            .paths
            .iter_mut()
            .find(|p| p.remote == peer)
            .ok_or(AddressError::Unknown)?;
        p.source = source;
        Ok(())
    }

    /// Sets the congestion window of the path to `addr` from a bandwidth
    /// estimate (bandwidth-aware start after a handover, docs/MODELS.md 3).
    pub fn set_path_cwnd_from_bdp(
        &mut self,
        addr: IpAddr,
        bdp_bytes: u64,
    ) -> Result<(), AddressError> {
        let icwnd = self.cfg.initial_cwnd_for(self.cfg.path_mtu);
        let p = self
            .paths
            .iter_mut()
            .find(|p| p.remote == addr)
            .ok_or(AddressError::Unknown)?;
        p.cc.set_from_bdp(bdp_bytes, icwnd);
        // Not decayed for the idle time before it (see
        // `start_path_from_estimate`).
        p.last_data_sent = None;
        Ok(())
    }

    /// Whether DATA with TSN `tsn` from the peer has been received (for
    /// observers that classify arriving chunks as new or duplicate).
    pub fn has_received_tsn(&self, tsn: u32) -> bool {
        self.receiver.has_received(tsn)
    }

    /// The cumulative TSN ack point of the data received from the peer
    /// (the peer's Initial TSN minus one before any DATA arrived).
    pub fn cumulative_tsn_received(&self) -> u32 {
        self.receiver.cum_tsn()
    }

    /// Why the outstanding DATA chunk `tsn` was last retransmitted (fast
    /// retransmit, T3-rtx timeout or re-homing); `None` if it was sent only
    /// once or is no longer outstanding. Read right after the packet that
    /// carries the retransmission was polled, it says why that copy went.
    pub fn retransmit_reason(&self, tsn: u32) -> Option<send::Retransmit> {
        self.sender
            .outstanding_chunk(tsn)
            .and_then(|c| c.last_retransmit)
    }

    /// Changes HB.interval (RFC 9260 section 8.3) of a running association;
    /// `None` stops heartbeats on confirmed paths (unconfirmed addresses
    /// are still probed, section 5.4), as SPP_HB_DISABLE does (RFC 6458
    /// section 8.1.12).
    pub fn set_heartbeat_interval(&mut self, interval: Option<Duration>, now: Time) {
        self.cfg.heartbeat_interval = interval;
        for p in self.paths.iter_mut().filter(|p| p.confirmed) {
            p.heartbeat_deadline = interval.map(|iv| now + iv + p.rto.rto());
        }
    }

    /// Changes Path.Max.Retrans of a running association.
    pub fn set_path_max_retrans(&mut self, pmr: u32) {
        self.cfg.path_max_retrans = pmr;
    }

    /// Outbound streams negotiated (min of ours and the peer's MIS).
    pub fn outbound_streams(&self) -> u16 {
        self.sender.outbound_streams()
    }

    /// Inbound streams negotiated.
    pub fn inbound_streams(&self) -> u16 {
        self.receiver.inbound_streams()
    }

    /// Moves the outstanding data of the path to `addr` at once: every
    /// chunk in flight there is marked for retransmission on the current
    /// data path (normally a new primary chosen just before), and the
    /// path's T3-rtx timer stops. For a handover triggered by the link
    /// layer (docs/MODELS.md section 3, "link-layer triggered"): the chunks
    /// sent over a link that just went down are resent now rather than
    /// after a retransmission timeout. Congestion state, RTO and error
    /// counters are left alone (the path did not show congestion).
    /// Returns the number of chunks marked.
    pub fn retransmit_path_data(&mut self, addr: IpAddr) -> Result<usize, AddressError> {
        let i = self.path_index(addr).ok_or(AddressError::Unknown)?;
        let n = self
            .sender
            .mark_path(i, send::Retransmit::Handover, &mut self.paths);
        if !self.moved_off.contains(&addr) {
            self.moved_off.push(addr);
        }
        let p = &mut self.paths[i];
        if p.flight_size == 0 {
            p.t3_deadline = None;
        }
        p.rtt_probe = None;
        p.fast_recovery_exit = None;
        Ok(n)
    }

    /// Probes the path to `addr` with a HEARTBEAT now (e.g. when the link under it came back up), so that an inactive
    /// path becomes usable after one round trip instead of at the next
    /// heartbeat interval (RFC 9260 section 8.3 allows on-demand
    /// heartbeats).
    pub fn probe_path(&mut self, now: Time, addr: IpAddr) -> Result<(), AddressError> {
        let i = self.path_index(addr).ok_or(AddressError::Unknown)?;
        if !self.state.is_established() || self.paths[i].heartbeat.is_some_and(|h| !h.timed_out) {
            return Ok(());
        }
        self.queue_heartbeat(i, now);
        Ok(())
    }

    /// Enables split fast retransmit (CMT, docs/MODELS.md section 3).
    pub fn set_split_fast_retransmit(&mut self, on: bool) {
        self.sender.split_fast_retransmit = on;
    }

    /// Whether split fast retransmit is on.
    pub fn split_fast_retransmit(&self) -> bool {
        self.sender.split_fast_retransmit
    }

    /// Next application event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    // ---------------------------------------------------------------
    // Internal helpers
    // ---------------------------------------------------------------

    fn push_event(&mut self, e: Event) {
        if self.events.len() >= self.cfg.limits.max_pending_events {
            self.events.pop_front();
            self.stats.events_dropped += 1;
        }
        self.events.push_back(e);
    }

    /// Ends the association: timers stop, undelivered data is returned.
    fn close(&mut self, reason: CloseReason) {
        if self.closed_reported {
            return;
        }
        self.closed_reported = true;
        self.state = State::Closed;
        self.init = None;
        self.shutdown = ShutdownState::default();
        self.sack_now = false;
        self.sack_deadline = None;
        self.probe_out.clear();
        for p in self.paths.iter_mut() {
            p.t3_deadline = None;
            p.heartbeat_deadline = None;
            p.heartbeat = None;
        }
        self.asconf.outstanding = None;
        self.push_event(Event::Closed { reason });
        for (stream, ppid, data) in self.sender.drain_unsent() {
            self.push_event(Event::SendFailed { stream, ppid, data });
        }
    }

    /// Queues an ABORT to the primary (or `dest`).
    fn send_abort(&mut self, causes: Vec<ErrorCause>, dest: Option<IpAddr>) {
        let Some(dest) = dest
            .or_else(|| self.paths.get(self.primary).map(|p| p.remote))
            .or(self.init.as_ref().map(|i| i.dest))
        else {
            return;
        };
        let source = self.source_for_addr(dest);
        self.ctrl.push_back(Directed {
            dest,
            source,
            reflect: None,
            chunk: Chunk::Abort {
                t_bit: false,
                causes,
            },
        });
    }

    /// Aborts because the peer broke the rules.
    fn protocol_violation(&mut self, what: &'static str, dest: IpAddr) {
        self.stats.protocol_violations += 1;
        self.send_abort(
            vec![ErrorCause::ProtocolViolation {
                info: Bytes::from_static(what.as_bytes()),
            }],
            Some(dest),
        );
        self.close(CloseReason::ProtocolViolation(what));
    }

    /// Index of the path that carries new data: the primary if usable,
    /// otherwise the usable path with the fewest errors, otherwise the
    /// confirmed path with the fewest errors (RFC 9260 section 6.4.1);
    /// never an unconfirmed one (section 5.4).
    fn data_path(&self) -> Option<usize> {
        if self.paths.is_empty() {
            return None;
        }
        if self.paths[self.primary].usable() {
            return Some(self.primary);
        }
        self.paths
            .iter()
            .enumerate()
            .filter(|(_, p)| p.usable())
            .min_by_key(|(_, p)| p.error_count)
            .map(|(i, _)| i)
            .or_else(|| {
                // Nothing usable: the confirmed path with the fewest errors.
                self.paths
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.confirmed)
                    .min_by_key(|(_, p)| p.error_count)
                    .map(|(i, _)| i)
            })
        // No confirmed path at all (the peer deleted every confirmed
        // address): no data path until a probe confirms one (RFC 9260
        // section 5.4: no DATA to an UNCONFIRMED address).
    }

    /// Local address usable as a source (not being added or deleted).
    fn local_usable(&self, a: IpAddr) -> bool {
        self.local
            .iter()
            .any(|l| l.addr == a && l.state == LocalAddrState::Available)
    }

    /// The source address for packets to `path`: the path's fixed source,
    /// then the local primary, then the address at which we last heard
    /// from that peer address, then any available address, and as a last
    /// resort an address being added (single-homed handover: the only
    /// address left) or being deleted.
    fn source_for(&self, path: usize) -> Option<IpAddr> {
        let p = &self.paths[path];
        let candidates = [p.source, self.local_primary, p.learned_source];
        for c in candidates.into_iter().flatten() {
            if self.local_usable(c) && c.is_ipv4() == p.remote.is_ipv4() {
                return Some(c);
            }
        }
        let family = |l: &&LocalAddr| l.addr.is_ipv4() == p.remote.is_ipv4();
        self.local
            .iter()
            .filter(family)
            .find(|l| l.state == LocalAddrState::Available)
            .or_else(|| {
                self.local
                    .iter()
                    .filter(family)
                    .find(|l| l.state == LocalAddrState::AddPending)
            })
            .or_else(|| self.local.iter().find(family))
            .map(|l| l.addr)
    }

    fn source_for_addr(&self, dest: IpAddr) -> Option<IpAddr> {
        match self.paths.iter().position(|p| p.remote == dest) {
            Some(i) => self.source_for(i),
            None => self
                .local
                .iter()
                .filter(|l| l.addr.is_ipv4() == dest.is_ipv4())
                .find(|l| l.state == LocalAddrState::Available)
                .or_else(|| self.local.first())
                .map(|l| l.addr),
        }
    }

    fn path_index(&self, addr: IpAddr) -> Option<usize> {
        self.paths.iter().position(|p| p.remote == addr)
    }

    /// A path stopped being usable: announce it and move data away.
    fn path_failed(&mut self, i: usize) {
        let addr = self.paths[i].remote;
        self.push_event(Event::PathDown { addr });
        if i == self.primary
            && let Some(alt) = self.data_path().filter(|&d| d != i)
        {
            let alt_addr = self.paths[alt].remote;
            if !self.cfg.return_to_primary {
                self.primary = alt;
            }
            self.data_path_changed(alt);
            self.push_event(Event::PrimaryChanged {
                addr: alt_addr,
                reason: PrimaryReason::Failover,
            });
        }
    }

    /// A path is reachable again.
    fn path_recovered(&mut self, i: usize) {
        let addr = self.paths[i].remote;
        self.push_event(Event::PathUp { addr });
        if i == self.primary && self.cfg.return_to_primary {
            self.push_event(Event::PrimaryChanged {
                addr,
                reason: PrimaryReason::Failover,
            });
        }
    }

    /// Counts an error against the association (section 8.1); aborts when
    /// Association.Max.Retrans is exceeded. Returns true if it closed.
    fn association_error(&mut self) -> bool {
        self.error_count += 1;
        if self.error_count > self.cfg.assoc_max_retrans {
            self.send_abort(vec![], None);
            self.close(CloseReason::PeerUnreachable);
            return true;
        }
        false
    }

    fn random_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// A jittered heartbeat period: RTO + HB.interval, the RTO part
    /// varied by +-50% (section 8.3).
    fn heartbeat_period(&mut self, rto: Duration, interval: Duration) -> Duration {
        let nanos = rto.as_nanos().min(u64::MAX as u128) as u64;
        let jitter = if nanos > 1 {
            self.rng.next_u64() % nanos
        } else {
            0
        };
        interval + Duration::from_nanos(nanos / 2 + jitter)
    }
}

/// A random non-zero 32-bit value (verification tags must not be 0).
fn nonzero(rng: &mut ChaCha8Rng) -> u32 {
    loop {
        let v = rng.next_u32();
        if v != 0 {
            return v;
        }
    }
}
