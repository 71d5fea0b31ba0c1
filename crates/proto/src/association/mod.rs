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
mod events;
mod failover;
mod handshake;
mod input;
mod interleave;
mod output;
mod partial;
mod paths;
mod pmtud;
mod reconfig;
pub mod recv;
pub mod send;
mod setup;
mod shutdown;
mod stats;
mod timers;
pub mod trace;
mod transmit;

use std::collections::VecDeque;
use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

pub use cmt::ReceiveWindowBlock;
pub(crate) use collision::announced_addresses;
pub use estimators::ProbeError;
pub use events::{
    AddressError, CloseReason, Event, PrimaryReason, ReconfigEvent, ReconfigRequest, SendError,
    State,
};
pub use handshake::{InitError, PeerInit, check_address_count, local_auth_params, local_params};
pub use pmtud::PathMtu;
pub use reconfig::{MAX_LISTED_STREAMS, ReconfigError};
pub use stats::AssociationStats;
pub use transmit::{AssocId, Transmit};

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
/// Outcome of a chunk handler (`input.rs` and the handlers in the
/// other files): go on with the next chunk or stop.
#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Stop,
}

pub use send::{Abandoned, AbandonedCounters, PrPolicy, SendOptions, StreamScheduler};

use crate::Time;
use crate::asconf::{AsconfState, LocalAddr, LocalAddrState};
use crate::auth::RANDOM_LEN;
use crate::config::AssociationConfig;
use crate::path::Path;
use crate::wire::{Chunk, ErrorCause, InitChunk};
use recv::Receiver;
use send::Sender;
use setup::InitState;
use shutdown::ShutdownState;

/// A SACK owed to the peer (RFC 9260 section 6.2).
#[derive(Debug, Clone, Default)]
struct SackDue {
    /// It must go out with the next packet.
    now: bool,
    /// Or at this deadline (the delayed SACK timer).
    deadline: Option<Time>,
    /// Where it goes: the source of the last DATA received.
    dest: Option<IpAddr>,
    /// The local address that DATA arrived at.
    via: Option<IpAddr>,
}

/// A control chunk addressed to a specific peer address (replies go back
/// to where the request came from).
#[derive(Debug, Clone)]
struct Directed {
    dest: IpAddr,
    source: Option<IpAddr>,
    /// Send alone with this verification tag, as the answer to the packet
    /// just handled (INIT ACK and ABORT answering an INIT, SHUTDOWN
    /// COMPLETE with the T bit, the SHUTDOWN ACK an INIT gets in
    /// SHUTDOWN-ACK-SENT).
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
    /// The endpoint's peer index was found to hold exactly these paths'
    /// addresses; false again whenever the paths change (one of the three
    /// places that add, remove or replace them), so that the endpoint
    /// compares them only after a change, not for every packet.
    peer_index_current: bool,
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
    /// The SACK we owe the peer (section 6.2).
    sack: SackDue,
    /// What limits the next DATA packets (Max.Burst, fast retransmit,
    /// zero window probing).
    tx: output::TxControl,
    /// Heartbeats to unconfirmed addresses in the current window (its
    /// end, one RTO after its first, and their count; at most
    /// `hb_max_burst` per window, section 5.4).
    verification_window: (Time, u32),
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
    /// Capacity probe trains, ours and the peer's.
    probes: estimators::Probes,
    /// CMT's scheduling state.
    cmt_state: cmt::CmtState,
    /// How long the peer's receive window has kept the sender waiting.
    rwnd_block: ReceiveWindowBlock,
    /// The event-driven path trace, when on (`trace.rs`).
    path_trace: Option<Box<trace::PathTrace>>,
    /// A move of the data to another path is pending
    /// ([`Association::set_move_pending`], RFC 7053).
    move_pending: bool,
    /// Stream reconfiguration (RFC 6525, `reconfig.rs`).
    reconfig: reconfig::ReconfigState,
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
        sender.fast_retransmit_threshold = cfg.fast_retransmit_threshold;
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
            tx: output::TxControl {
                burst_budget: cfg.max_burst.unwrap_or(u32::MAX),
                fast_rtx_pending: false,
                zero_window_probe_at: None,
                last_sack_at: None,
            },
            verification_window: (Time::ZERO, 0),
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
            peer_index_current: false,
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
            sack: SackDue::default(),
            send_blocked: false,
            events: VecDeque::new(),
            stats: AssociationStats::default(),
            moved_off: Vec::new(),
            idle_rtt: Vec::new(),
            probes: estimators::Probes::default(),
            cmt_state: cmt::CmtState::default(),
            rwnd_block: ReceiveWindowBlock::default(),
            path_trace: None,
            move_pending: false,
            reconfig: reconfig::ReconfigState::default(),
        }
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
    /// section 6.9): fully reliable, ordered unless `unordered`.
    pub fn send(
        &mut self,
        stream: u16,
        ppid: u32,
        data: Bytes,
        unordered: bool,
    ) -> Result<(), SendError> {
        let opts = SendOptions {
            unordered,
            ..SendOptions::default()
        };
        self.send_with(Time::ZERO, stream, ppid, data, &opts)
    }

    /// Queues a user message with its options at `now` (when a
    /// [`PrPolicy::Lifetime`] starts): a partial reliability policy (RFC
    /// 3758, RFC 7496; reliable when the peer does not support PR-SCTP)
    /// and SACK-IMMEDIATELY (RFC 7053). A message of
    /// [`PrPolicy::Priority`] that finds the buffer full makes room by
    /// abandoning messages of lower priority (RFC 7496 section 3.2).
    pub fn send_with(
        &mut self,
        now: Time,
        stream: u16,
        ppid: u32,
        data: Bytes,
        opts: &SendOptions,
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
        let excess = (self.send_buffered() + data.len()).saturating_sub(self.cfg.send_buffer);
        if excess > 0 {
            let made = match opts.policy {
                PrPolicy::Priority(p) => self.sender.make_room(excess, p, &mut self.paths),
                _ => false,
            };
            if !made {
                self.send_blocked = true;
                return Err(SendError::BufferFull);
            }
        }
        if self.reconfig.holds(stream) {
            return self.hold_message(now, stream, ppid, data, opts);
        }
        if !self.sender.has_outstanding() {
            self.tx.burst_budget = self.burst_allowance();
        }
        self.sender.push_with(stream, ppid, data, opts, now);
        Ok(())
    }

    /// Room left in the send buffer, in bytes.
    pub fn send_capacity(&self) -> usize {
        self.cfg.send_buffer.saturating_sub(self.send_buffered())
    }

    /// Bytes queued or unacknowledged (with those held while their
    /// stream is being reset).
    pub fn send_buffered(&self) -> usize {
        self.sender.buffered() + self.reconfig.held_bytes()
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
            self.sack.now = true;
        }
        Some(m)
    }

    pub fn readable(&self) -> bool {
        self.receiver.readable()
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

    /// Outbound streams negotiated (min of ours and the peer's MIS).
    pub fn outbound_streams(&self) -> u16 {
        self.sender.outbound_streams()
    }

    /// Inbound streams negotiated.
    pub fn inbound_streams(&self) -> u16 {
        self.receiver.inbound_streams()
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
        self.sack.now = false;
        self.sack.deadline = None;
        self.probes.out.clear();
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
        self.reconfig_closed();
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
