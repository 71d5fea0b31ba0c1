//! An SCTP endpoint (one local port, a set of local addresses): the
//! sans-I/O entry point of the engine.
//!
//! The caller hands received datagrams in with [`Endpoint::handle_datagram`],
//! sends what [`Endpoint::poll_transmit`] returns, calls
//! [`Endpoint::handle_timeout`] at [`Endpoint::poll_timeout`], and reads
//! [`Endpoint::poll_event`]. The endpoint demultiplexes packets to
//! associations (RFC 9260 section 8.5; RFC 5061 section 5.2 for an ASCONF
//! from a new address), answers INITs statelessly with a signed State
//! Cookie (section 5.1), and applies the out-of-the-blue rules (section
//! 8.4). Which association a packet belongs to is in [`demux`]; the peer
//! index that never gives one association's address to another is in
//! [`index`]. The packet's chunks are walked once ([`ChunkIndex`]) and a
//! COOKIE ECHO's cookie verified once ([`crate::cookie`]): the association
//! is handed both with the packet.
//!
//! No call walks every association: timers and the associations that may
//! have something to send are kept in a [`schedule`], room for new
//! associations (caps per source prefix, idle timeout, reclaiming) in
//! [`admission`].

mod admission;
mod demux;
mod index;
mod ootb;
mod ready;
mod refresh;
mod schedule;
mod table;

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap, VecDeque};
use std::net::IpAddr;

use bytes::Bytes;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::Time;
use crate::association::{Association, Event, State, Transmit};
use crate::config::{AssociationConfig, ConfigError, EndpointConfig};
use crate::cookie::CookieState;
use crate::wire::chunk::chunk_type;
use crate::wire::{Chunk, ChunkIndex, ErrorCause, Packet, crc};
use demux::Route;
use index::PeerIndex;
use schedule::Schedule;
use table::IdMap;

pub use crate::association::AssocId;

/// Why an association could not be started.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConnectError {
    #[error("no peer address given")]
    NoAddress,
    #[error("the association limit ({0}) is reached")]
    TooManyAssociations(usize),
    #[error("an association with that peer address and port exists")]
    Exists,
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// Endpoint-level counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EndpointStats {
    pub datagrams_received: u64,
    pub bad_checksum: u64,
    pub truncated: u64,
    /// Packets whose first chunk could not be delimited.
    pub malformed: u64,
    pub wrong_port: u64,
    pub out_of_the_blue: u64,
    pub inits_answered: u64,
    pub inits_refused: u64,
    /// INITs refused because they list more than
    /// `Limits::max_init_addresses` addresses (also in `inits_refused`).
    pub init_address_limit_refusals: u64,
    pub bad_cookies: u64,
    pub stale_cookies: u64,
    /// Valid cookies dropped because they came from an address their INIT
    /// did not announce, or named addresses of two associations.
    pub foreign_cookies: u64,
    /// INITs and cookies refused because a prefix of their source holds
    /// its cap (`max_associations_per_source`, `prefix_caps`).
    pub source_limit_refusals: u64,
    /// Peer addresses an association has but could not be indexed to it
    /// because a live association holds them (should stay 0).
    pub index_conflicts: u64,
    pub associations_created: u64,
    /// INITs and valid cookies refused because `max_associations`
    /// associations exist (answered with an ABORT, Out of Resource).
    pub association_limit_refusals: u64,
    /// Associations aborted by `idle_timeout`.
    pub idle_timeouts: u64,
    /// Idle associations aborted to make room (`reclaim_idle_after`).
    pub reclaimed: u64,
    /// [`Endpoint::association_visits`].
    pub association_visits: u64,
    pub events_dropped: u64,
    /// Replies not sent because a chunk was too long for the 16-bit Chunk
    /// Length field (RFC 9260 section 3.2: an INIT ACK whose cookie
    /// carries a huge INIT); the packet that asked is left unanswered.
    pub replies_too_long: u64,
}

/// What the endpoint keeps about each association besides the
/// association itself.
#[derive(Debug, Clone, Copy)]
struct Meta {
    /// Creation number: the order of `associations()` and round robin.
    seq: u64,
    /// Last user data seen either way ([`admission`]).
    last_active: Time,
    /// Events of this association in the endpoint's queue.
    queued_events: u32,
}

/// Bound on queued stateless replies.
const MAX_PENDING_REPLIES: usize = 1024;
/// Bound on undelivered events.
const MAX_EVENTS: usize = 1 << 16;

/// An SCTP endpoint.
#[derive(Debug, Clone)]
pub struct Endpoint {
    cfg: EndpointConfig,
    /// The chunk index of the packet being handled (memory reused).
    rx_chunks: ChunkIndex,
    rng: ChaCha20Rng,
    secret: [u8; 32],
    local_addrs: Vec<IpAddr>,
    /// Keyed by ids the endpoint assigns itself (never by anything a peer
    /// chooses): a short list, a fast non-keyed hash beyond
    /// ([`table::IdMap`]); nothing iterates it where order would matter
    /// (`order` gives the order). Boxed: an association is about 3.4 kB
    /// and the table keeps room for entries beyond those it holds (a hash
    /// table had 4 buckets for 1: inline, an endpoint with one association,
    /// as each station of the simulator has, took 13.8 kB for it, boxed
    /// 3.5 kB).
    assocs: IdMap<Box<Association>>,
    meta: IdMap<Meta>,
    /// Ids by creation number (deterministic iteration).
    order: BTreeMap<u64, AssocId>,
    next_seq: u64,
    next_id: u32,
    /// Closed associations not yet forgotten (they hold no slot).
    closed: FxHashSet<AssocId>,
    /// Closed ones that may be forgotten once their events are read.
    finished: Vec<AssocId>,
    /// Associations started by `connect` (the only ones in COOKIE-WAIT).
    connecting: Vec<AssocId>,
    /// (peer address, peer port) -> association.
    index: PeerIndex,
    /// Incoming associations per source prefix (address and length;
    /// keyed by what peers choose: SipHash), and each one's source.
    per_prefix: HashMap<(IpAddr, u8), usize>,
    source_of: FxHashMap<AssocId, IpAddr>,
    /// (last activity, id), one entry per association, lazily updated:
    /// the oldest idle one to reclaim.
    idle_heap: BinaryHeap<Reverse<(Time, AssocId)>>,
    schedule: Schedule,
    /// The latest time the caller gave.
    now: Time,
    /// Calls into associations made by the endpoint's own loops.
    visits: u64,
    /// Associations (and creation numbers) whose deadline is computed
    /// when asked for, not armed in the schedule ([`refresh`]).
    deferred: Vec<refresh::Deferred>,
    /// Memory for the touched ids being refreshed (reused).
    touched_buf: Vec<AssocId>,
    pending: VecDeque<Transmit>,
    events: VecDeque<(AssocId, Event)>,
    stats: EndpointStats,
}

impl Endpoint {
    /// A new endpoint; `seed` feeds every random choice (tags, TSNs,
    /// RANDOM parameters, heartbeat nonces, cookie secret).
    pub fn new(cfg: EndpointConfig, seed: [u8; 32]) -> Result<Self, ConfigError> {
        cfg.validate()?;
        let mut rng = ChaCha20Rng::from_seed(seed);
        let mut secret = [0u8; 32];
        rng.fill_bytes(&mut secret);
        Ok(Endpoint {
            cfg,
            rng,
            secret,
            local_addrs: Vec::new(),
            assocs: IdMap::default(),
            meta: IdMap::default(),
            order: BTreeMap::new(),
            next_seq: 0,
            next_id: 1,
            closed: FxHashSet::default(),
            finished: Vec::new(),
            connecting: Vec::new(),
            index: PeerIndex::default(),
            rx_chunks: ChunkIndex::default(),
            per_prefix: HashMap::new(),
            source_of: FxHashMap::default(),
            idle_heap: BinaryHeap::new(),
            schedule: Schedule::default(),
            now: Time::ZERO,
            visits: 0,
            deferred: Vec::new(),
            touched_buf: Vec::new(),
            pending: VecDeque::new(),
            events: VecDeque::new(),
            stats: EndpointStats::default(),
        })
    }

    pub fn config(&self) -> &EndpointConfig {
        &self.cfg
    }

    pub fn port(&self) -> u16 {
        self.cfg.port
    }

    pub fn stats(&self) -> EndpointStats {
        EndpointStats {
            association_visits: self.visits,
            ..self.stats
        }
    }

    /// The local addresses new associations start with.
    pub fn local_addresses(&self) -> &[IpAddr] {
        &self.local_addrs
    }

    pub fn set_local_addresses(&mut self, addrs: &[IpAddr]) {
        self.local_addrs = addrs.to_vec();
        // Their deadlines frozen before any of them changes.
        self.freeze_deadlines();
        // An association whose INIT is unanswered was started with the
        // endpoint's addresses: its INIT follows them
        // (`Association::handshake_addresses_changed`).
        for &id in &self.connecting {
            if let Some(a) = self.assocs.get_mut(&id)
                && a.handshake_addresses_changed(addrs)
            {
                self.schedule.touch(id);
            }
        }
    }

    /// Accepts incoming associations.
    pub fn set_listening(&mut self, on: bool) {
        self.cfg.listen = on;
    }

    /// Replaces the configuration of associations created from now on
    /// (incoming ones; `connect` takes its own with `connect_with`), as
    /// socket options set on a listening socket do.
    pub fn set_association_defaults(&mut self, cfg: AssociationConfig) -> Result<(), ConfigError> {
        cfg.validate()?;
        self.cfg.association = cfg;
        Ok(())
    }

    pub fn association(&self, id: AssocId) -> Option<&Association> {
        self.assocs.get(&id).map(|a| &**a)
    }

    /// The association, to be changed by the application: the endpoint
    /// looks at it again (timers, output, events) at its next call.
    pub fn association_mut(&mut self, id: AssocId) -> Option<&mut Association> {
        if !self.assocs.contains_key(&id) {
            return None;
        }
        self.touch(id);
        self.assocs.get_mut(&id).map(|a| &mut **a)
    }

    /// How many times the endpoint's own loops (timers, output, events,
    /// admission) have called into an association so far: a measure of
    /// the work per call that does not grow with the number of
    /// associations (the schedule test and `msctp bench server`).
    pub fn association_visits(&self) -> u64 {
        self.visits
    }

    /// The association that packets from peer address `addr`, port
    /// `port`, are delivered to (the demultiplexing key of RFC 9260
    /// section 8.5's implementation note).
    pub fn association_for_peer(&self, addr: IpAddr, port: u16) -> Option<AssocId> {
        self.index.get(addr, port)
    }

    /// Ids of the associations, oldest first.
    pub fn associations(&self) -> Vec<AssocId> {
        self.order.values().copied().collect()
    }

    /// How many associations the endpoint holds (closed ones included
    /// until forgotten).
    pub fn association_count(&self) -> usize {
        self.assocs.len()
    }

    /// Removes an association (after it closed) and forgets it.
    pub fn remove(&mut self, id: AssocId) -> Option<Association> {
        let a = *self.assocs.remove(&id)?;
        if let Some(m) = self.meta.remove(&id) {
            self.order.remove(&m.seq);
            self.schedule.remove(id, m.seq);
        }
        self.deferred.retain(|d| d.id != id);
        self.closed.remove(&id);
        self.connecting.retain(|x| *x != id);
        self.index.remove(id);
        self.uncount_source(id);
        Some(a)
    }

    /// Starts an association with the endpoint's association defaults.
    pub fn connect(
        &mut self,
        now: Time,
        peer_addrs: &[IpAddr],
        peer_port: u16,
    ) -> Result<AssocId, ConnectError> {
        let cfg = self.cfg.association.clone();
        self.connect_with(now, peer_addrs, peer_port, cfg)
    }

    /// Starts an association with its own configuration.
    pub fn connect_with(
        &mut self,
        now: Time,
        peer_addrs: &[IpAddr],
        peer_port: u16,
        cfg: AssociationConfig,
    ) -> Result<AssocId, ConnectError> {
        cfg.validate()?;
        if peer_addrs.is_empty() {
            return Err(ConnectError::NoAddress);
        }
        self.now = self.now.max(now);
        if self.live_count() >= self.cfg.max_associations {
            return Err(ConnectError::TooManyAssociations(self.cfg.max_associations));
        }
        if peer_addrs.iter().any(|a| {
            self.index
                .get(*a, peer_port)
                .is_some_and(|id| self.is_live(id))
        }) {
            return Err(ConnectError::Exists);
        }
        let mut seed = [0u8; 32];
        self.rng.fill_bytes(&mut seed);
        let local = self.local_addrs.clone();
        let a = Association::connect(cfg, now, seed, self.cfg.port, peer_port, &local, peer_addrs)
            .ok_or(ConnectError::NoAddress)?;
        let id = self.insert(a, now);
        self.connecting.retain(|x| {
            self.assocs
                .get(x)
                .is_some_and(|a| a.state() == State::CookieWait)
        });
        self.connecting.push(id);
        // The INIT's destinations index the association until the peer's
        // addresses are known.
        let assocs = &self.assocs;
        let gone = |o: AssocId, _| assocs.get(&o).is_none_or(|x| x.state() == State::Closed);
        self.index.set(id, peer_port, peer_addrs, gone);
        self.refresh(id, now);
        Ok(id)
    }

    /// Adds a new association, giving it what every association of this
    /// endpoint shares (the cookie secret, the transmit headroom).
    fn insert(&mut self, mut a: Association, now: Time) -> AssocId {
        a.set_secret(self.secret);
        a.set_transmit_headroom(self.cfg.transmit_headroom);
        let mut id = AssocId(self.next_id);
        while self.assocs.contains_key(&id) {
            // After 2^32 ids: skip those still in use.
            id = AssocId(id.0.wrapping_add(1).max(1));
        }
        self.next_id = id.0.wrapping_add(1).max(1);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.assocs.insert(id, Box::new(a));
        self.meta.insert(
            id,
            Meta {
                seq,
                last_active: now,
                queued_events: 0,
            },
        );
        self.order.insert(seq, id);
        if self.idle_heap.len() > 2 * self.meta.len() + 64 {
            // Entries of forgotten associations: rebuilt without them.
            let meta = &self.meta;
            self.idle_heap = meta
                .iter()
                .map(|(id, m)| Reverse((m.last_active, *id)))
                .collect();
        } else {
            self.idle_heap.push(Reverse((now, id)));
        }
        self.stats.associations_created += 1;
        id
    }

    /// Keeps the (peer address, port) index in step with the association's
    /// peer addresses (they change through ASCONF and restarts). An
    /// address a live association holds is never taken from it.
    fn reindex(&mut self, id: AssocId) {
        let Some(a) = self.assocs.get_mut(&id) else {
            return;
        };
        // The index changes what `id` holds only here and when `id` is
        // created or removed: found holding its addresses once, it holds
        // them until they change.
        if a.peer_index_current() {
            return;
        }
        let port = a.peer_port();
        // Compared in place: this runs for every packet received after a
        // change of the addresses.
        if a.peer_addresses().len() == 0 {
            // Still in COOKIE-WAIT (the INIT destinations stay).
            return;
        }
        if self.index.holds(id, port, a.peer_addresses()) {
            // No change.
            a.set_peer_index_current();
            return;
        }
        let Some(a) = self.assocs.get(&id) else {
            return;
        };
        let addrs: Vec<IpAddr> = a.peer_addresses().collect();
        let assocs = &self.assocs;
        // An address goes over from a holder that is gone, or from one
        // that holds it on the peer's word only when this association
        // has confirmed it (a client whose address an attacker listed
        // in advance gets it back).
        let may_take = |o: AssocId, addr: IpAddr| match assocs.get(&o) {
            None => true,
            Some(x) if x.state() == State::Closed => true,
            Some(x) => a.vouches_for(addr) && !x.vouches_for(addr),
        };
        let refused = self.index.set(id, port, &addrs, may_take);
        self.stats.index_conflicts += refused.len() as u64;
    }

    /// Processes one received SCTP packet (`data`, without IP or UDP
    /// headers) that came from `src` to `dst`.
    ///
    /// Returns the association whose peer the packet proved to come from:
    /// it passed the check of that association's own verification tag
    /// (RFC 9260 section 8.5, the T-bit rules of 8.5.1), or its valid
    /// cookie created or restarted the association. A packet with an INIT
    /// is never such a proof (its tag is 0: anyone can send it), even when
    /// the association answers it. A driver that encapsulates in UDP
    /// learns the peer's encapsulation port from proven packets only, per
    /// association and address (RFC 6951 section 5.4; its revision,
    /// draft-tuexen-tsvwg-rfc6951-bis, spells out that packets whose tag
    /// cannot be checked must not change the stored port). Replies the
    /// packet caused that answer it (INIT ACK, ABORT, SHUTDOWN COMPLETE
    /// with a reflected tag, the SHUTDOWN ACK an INIT gets in
    /// SHUTDOWN-ACK-SENT; from an association or stateless) are read with
    /// [`Endpoint::poll_reply`] and go to the datagram's own UDP port.
    pub fn handle_datagram(
        &mut self,
        now: Time,
        src: IpAddr,
        dst: IpAddr,
        data: Bytes,
    ) -> Option<AssocId> {
        self.stats.datagrams_received += 1;
        self.now = self.now.max(now);
        let Ok(pkt) = Packet::new_checked(&data[..]) else {
            self.stats.truncated += 1;
            return None;
        };
        // With checksum offload the layer below has checked it.
        if !self.cfg.checksum_offload && !pkt.verify_checksum() {
            self.stats.bad_checksum += 1;
            return None;
        }
        if pkt.dst_port() != self.cfg.port {
            self.stats.wrong_port += 1;
            if self.cfg.answer_other_ports {
                self.no_endpoint(src, dst, &data);
            }
            return None;
        }
        let (sport, vtag) = (pkt.src_port(), pkt.verification_tag());
        // The one walk over the chunks: demultiplexing reads it, and the
        // association is handed it with the packet. Its buffer is reused
        // from packet to packet.
        let mut chunks = std::mem::take(&mut self.rx_chunks);
        chunks.refill(&data[..]);
        let accepted = self.dispatch(now, src, dst, &data, (sport, vtag), &chunks);
        self.rx_chunks = chunks;
        accepted
    }

    /// The rest of [`Endpoint::handle_datagram`] once the packet's header
    /// is sound and its chunks walked.
    fn dispatch(
        &mut self,
        now: Time,
        src: IpAddr,
        dst: IpAddr,
        data: &Bytes,
        (sport, vtag): (u16, u32),
        chunks: &ChunkIndex,
    ) -> Option<AssocId> {
        if chunks.is_empty() {
            // Not even the first chunk header is sound.
            self.stats.malformed += 1;
            return None;
        }
        // Non-unicast sources are never answered (section 8.4 rule 1).
        if crate::asconf::is_unusable_peer_address(&src) || src.is_unspecified() {
            return None;
        }
        let cookie = match chunks.find(chunk_type::COOKIE_ECHO) {
            Some(c) => match self.verify_cookie(data, c.range.clone()) {
                Some(c) => Some(c),
                None => return None,
            },
            None => None,
        };
        let route = match &cookie {
            Some(c) => self.route_cookie(src, sport, c),
            None if chunks.chunks()[0].chunk_type == chunk_type::INIT => {
                let r = chunks.chunks()[0].range.clone();
                match self.screen_init(data, src, dst, sport, r) {
                    Some(listed) => self.route_init(src, sport, &listed),
                    None => return None,
                }
            }
            None => self.lookup(data, src, sport, vtag, chunks),
        };
        // A stale cookie is still valid when both its tags are the
        // association's (RFC 9260 section 5.2.4 step 3); otherwise it is
        // answered with a Stale Cookie ERROR (sections 5.1.5, 5.2.6).
        if let Some(c) = &cookie
            && let Some(staleness_us) = c.staleness_us(now)
        {
            let same_tags = |id: &AssocId| {
                self.assocs
                    .get(id)
                    .is_some_and(|a| a.local_tag() == c.local_tag && a.peer_tag() == c.peer_tag)
            };
            match route {
                Route::Discard => return None,
                Route::Association(id) if same_tags(&id) => {}
                _ => {
                    self.stats.stale_cookies += 1;
                    let chunk = Chunk::Error {
                        causes: vec![ErrorCause::StaleCookie { staleness_us }],
                    };
                    self.reply(dst, src, sport, c.peer_tag, vec![chunk]);
                    return None;
                }
            }
        }
        match route {
            Route::Association(id) => {
                let index = &self.index;
                let mut proven = false;
                if let Some(a) = self.assocs.get_mut(&id) {
                    let in_use = |addr: IpAddr| index.get(addr, sport).is_some_and(|o| o != id);
                    proven = a.handle_packet(now, src, dst, data, chunks, cookie.as_ref(), &in_use);
                    // Its answers with a reflected tag answer this datagram.
                    while let Some(mut t) = a.poll_reply() {
                        if self.pending.len() >= MAX_PENDING_REPLIES {
                            continue;
                        }
                        if !self.cfg.checksum_offload {
                            crc::fill(t.packet_mut());
                        }
                        self.pending.push_back(t);
                    }
                }
                // User data, or ours acknowledged: the association is
                // in use ([`admission`]).
                if proven && (chunks.has(chunk_type::DATA) || chunks.has(chunk_type::SACK)) {
                    self.mark_active(id, now);
                }
                self.reindex(id);
                self.refresh(id, now);
                proven.then_some(id)
            }
            Route::None => self.out_of_the_blue(now, src, dst, sport, vtag, data, chunks, cookie),
            Route::Discard => None,
        }
    }

    /// Reads a COOKIE ECHO's cookie and checks its signature and port;
    /// forged ones are dropped (the lifetime is checked by the caller).
    fn verify_cookie(&mut self, data: &Bytes, r: std::ops::Range<usize>) -> Option<CookieState> {
        let Ok(Chunk::CookieEcho { cookie }) = Chunk::parse(&data.slice(r)) else {
            return None;
        };
        match CookieState::verify(&cookie, &self.secret) {
            Ok(c) if c.local_port == self.cfg.port => Some(c),
            _ => {
                self.stats.bad_cookies += 1;
                None
            }
        }
    }

    /// The next datagram to send, its checksum filled in (RFC 9260
    /// section 6.8) unless the endpoint has checksum offload.
    /// Only the associations that something happened to since their last
    /// fruitless poll are asked, round robin.
    pub fn poll_transmit(&mut self, now: Time) -> Option<Transmit> {
        if let Some(t) = self.pending.pop_front() {
            return Some(t);
        }
        self.now = self.now.max(now);
        self.refresh_touched(now);
        while let Some((seq, id)) = self.schedule.next_ready() {
            self.visits += 1;
            let Some(a) = self.assocs.get_mut(&id) else {
                self.schedule.not_ready(seq);
                continue;
            };
            let sent = a.poll_transmit(now);
            // Sending starts timers; a fruitless poll may draw one. Its
            // closing noted on the association at hand (no second
            // lookup), its deadline deferred.
            refresh::note_closed(id, a, &mut self.closed, &mut self.finished);
            if sent.is_some() {
                refresh::drain_into(id, a, &mut self.events, &mut self.meta, &mut self.stats);
            }
            self.defer_deadline(id, seq);
            let Some(mut t) = sent else {
                self.schedule.not_ready(seq);
                continue;
            };
            self.schedule.sent(seq);
            t.assoc = Some(id);
            if !self.cfg.checksum_offload {
                crc::fill(t.packet_mut());
            }
            return Some(t);
        }
        self.reap();
        None
    }

    /// The next stateless reply (INIT ACK, ABORT, SHUTDOWN COMPLETE, Stale
    /// Cookie ERROR) caused by the datagrams handled so far, before any
    /// association's packets. A driver that reads it right after
    /// [`Endpoint::handle_datagram`] knows which datagram it answers (over
    /// UDP: the source port to answer to).
    pub fn poll_reply(&mut self) -> Option<Transmit> {
        self.pending.pop_front()
    }

    /// Forgets closed associations with nothing left to deliver (their
    /// events read): those noted closed and finished since the last time.
    fn reap(&mut self) {
        if self.finished.is_empty() {
            return;
        }
        let mut cands = std::mem::take(&mut self.finished);
        cands.sort_unstable();
        cands.dedup();
        for id in cands {
            let Some(a) = self.assocs.get(&id) else {
                continue;
            };
            if !a.is_finished() {
                // Its unread messages were left: noted again when read.
                continue;
            }
            if self.meta.get(&id).is_some_and(|m| m.queued_events > 0) {
                self.finished.push(id);
            } else {
                self.remove(id);
            }
        }
    }

    /// The earliest deadline: a timer of an association or an idle
    /// timeout.
    pub fn poll_timeout(&self) -> Option<Time> {
        let mut t = self.schedule.next();
        // Those deferred are not in the schedule.
        if let Some(d) = self.deferred_deadline() {
            t = Some(t.map_or(d, |t| t.min(d)));
        }
        // Associations the application changed since (usually none).
        for id in self.schedule.touched() {
            if let Some(d) = self.deadline(*id) {
                t = Some(t.map_or(d, |t| t.min(d)));
            }
        }
        t
    }

    /// Runs the timers due at `now` (and the idle timeouts), visiting the
    /// associations whose deadline passed, in creation order.
    pub fn handle_timeout(&mut self, now: Time) {
        self.now = self.now.max(now);
        self.refresh_touched(now);
        self.settle_deadlines();
        for (_, id) in self.schedule.take_due(now) {
            self.visits += 1;
            if let Some(a) = self.assocs.get_mut(&id)
                && a.poll_timeout().is_some_and(|t| t <= now)
            {
                a.handle_timeout(now);
            }
            self.check_idle(id, now);
            self.refresh(id, now);
        }
    }

    /// The next application event.
    pub fn poll_event(&mut self) -> Option<(AssocId, Event)> {
        let (id, e) = self.events.pop_front()?;
        if let Some(m) = self.meta.get_mut(&id) {
            m.queued_events -= 1;
        }
        Some((id, e))
    }

    /// Whether [`poll_event`](Self::poll_event) has an event to give.
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    /// Whether a call of [`poll_transmit`](Self::poll_transmit) that finds
    /// nothing to send leaves the endpoint exactly as it was, so that a
    /// driver that knows nothing changed since its last fruitless poll at
    /// this instant may skip the next one without changing what follows.
    /// False only while some association has a path ready for one of its
    /// first capacity trains (the estimators, issue 11) whose deadline is
    /// not drawn yet: the next poll draws that train's jitter from the
    /// association's random stream. A fruitless poll draws every such
    /// deadline, so right after one this is true.
    pub fn idle_poll_is_pure(&self) -> bool {
        // An association neither ready nor touched had a fruitless poll
        // since anything happened to it.
        let touched = self.schedule.touched().iter().copied();
        !self.schedule.ready_ids().chain(touched).any(|id| {
            self.assocs
                .get(&id)
                .is_some_and(|a| a.polls_draw_randomness())
        })
    }

    /// Application calls on an association may create events (e.g. an
    /// abort); this moves them to the endpoint queue (of the associations
    /// handed out by [`Endpoint::association_mut`] since).
    pub fn flush_events(&mut self) {
        let now = self.now;
        self.refresh_touched(now);
    }
}
