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
//! 8.4).

pub mod cookie;

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;

use bytes::Bytes;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

use crate::Time;
use crate::association::{Association, Event, PeerInit, Transmit, build_init_ack_for_endpoint};
use crate::config::{AssociationConfig, ConfigError, EndpointConfig};
use crate::wire::chunk::chunk_type;
use crate::wire::{Chunk, ErrorCause, Packet, crc};
use cookie::{CookieError, CookieState};

/// Handle of an association within its endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AssocId(pub u32);

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
    pub bad_cookies: u64,
    pub stale_cookies: u64,
    pub associations_created: u64,
    pub events_dropped: u64,
}

/// Bound on queued stateless replies.
const MAX_PENDING_REPLIES: usize = 1024;
/// Bound on undelivered events.
const MAX_EVENTS: usize = 1 << 16;

/// An SCTP endpoint.
#[derive(Debug)]
pub struct Endpoint {
    cfg: EndpointConfig,
    rng: ChaCha20Rng,
    secret: [u8; 32],
    local_addrs: Vec<IpAddr>,
    assocs: HashMap<AssocId, Association>,
    /// Ids in creation order (deterministic iteration).
    order: Vec<AssocId>,
    next_id: u32,
    /// (peer address, peer port) -> association.
    by_peer: HashMap<(IpAddr, u16), AssocId>,
    indexed: HashMap<AssocId, Vec<IpAddr>>,
    pending: VecDeque<Transmit>,
    events: VecDeque<(AssocId, Event)>,
    cursor: usize,
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
            assocs: HashMap::new(),
            order: Vec::new(),
            next_id: 1,
            by_peer: HashMap::new(),
            indexed: HashMap::new(),
            pending: VecDeque::new(),
            events: VecDeque::new(),
            cursor: 0,
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
        self.stats
    }

    /// The local addresses new associations start with.
    pub fn local_addresses(&self) -> &[IpAddr] {
        &self.local_addrs
    }

    pub fn set_local_addresses(&mut self, addrs: &[IpAddr]) {
        self.local_addrs = addrs.to_vec();
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
        self.assocs.get(&id)
    }

    pub fn association_mut(&mut self, id: AssocId) -> Option<&mut Association> {
        self.assocs.get_mut(&id)
    }

    /// Ids of the associations, oldest first.
    pub fn associations(&self) -> Vec<AssocId> {
        self.order.clone()
    }

    /// Removes an association (after it closed) and forgets it.
    pub fn remove(&mut self, id: AssocId) -> Option<Association> {
        let a = self.assocs.remove(&id)?;
        self.order.retain(|x| *x != id);
        if let Some(addrs) = self.indexed.remove(&id) {
            for addr in addrs {
                self.by_peer.remove(&(addr, a.peer_port()));
            }
        }
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
        if self.assocs.len() >= self.cfg.max_associations {
            return Err(ConnectError::TooManyAssociations(self.cfg.max_associations));
        }
        if peer_addrs
            .iter()
            .any(|a| self.by_peer.contains_key(&(*a, peer_port)))
        {
            return Err(ConnectError::Exists);
        }
        let mut seed = [0u8; 32];
        self.rng.fill_bytes(&mut seed);
        let local = self.local_addrs.clone();
        let mut a =
            Association::connect(cfg, now, seed, self.cfg.port, peer_port, &local, peer_addrs)
                .ok_or(ConnectError::NoAddress)?;
        a.set_secret(self.secret);
        let id = self.insert(a);
        // The INIT's destination indexes the association until the peer's
        // addresses are known.
        for addr in peer_addrs {
            self.by_peer.insert((*addr, peer_port), id);
        }
        self.indexed.insert(id, peer_addrs.to_vec());
        Ok(id)
    }

    fn insert(&mut self, a: Association) -> AssocId {
        let id = AssocId(self.next_id);
        self.next_id = self.next_id.wrapping_add(1).max(1);
        self.assocs.insert(id, a);
        self.order.push(id);
        self.stats.associations_created += 1;
        id
    }

    /// Keeps the (peer address, port) index in step with the association's
    /// peer addresses (they change through ASCONF).
    fn reindex(&mut self, id: AssocId) {
        let Some(a) = self.assocs.get(&id) else {
            return;
        };
        let port = a.peer_port();
        // The common case, every packet: nothing changed.
        if let Some(old) = self.indexed.get(&id)
            && old.len() == a.paths().len()
            && a.paths()
                .iter()
                .all(|p| old.binary_search(&p.remote).is_ok())
        {
            return;
        }
        let mut now_addrs: Vec<IpAddr> = a.paths().iter().map(|p| p.remote).collect();
        if now_addrs.is_empty() {
            // Still in COOKIE-WAIT: keep the INIT destinations.
            return;
        }
        now_addrs.sort();
        let old = self
            .indexed
            .insert(id, now_addrs.clone())
            .unwrap_or_default();
        for addr in old {
            if now_addrs.binary_search(&addr).is_err()
                && self.by_peer.get(&(addr, port)) == Some(&id)
            {
                self.by_peer.remove(&(addr, port));
            }
        }
        for addr in now_addrs {
            self.by_peer.insert((addr, port), id);
        }
    }

    fn drain_events(&mut self, id: AssocId) {
        let Some(a) = self.assocs.get_mut(&id) else {
            return;
        };
        while let Some(e) = a.poll_event() {
            if self.events.len() >= MAX_EVENTS {
                self.events.pop_front();
                self.stats.events_dropped += 1;
            }
            self.events.push_back((id, e));
        }
    }

    /// Processes one received SCTP packet (`data`, without IP or UDP
    /// headers) that came from `src` to `dst`.
    pub fn handle_datagram(&mut self, now: Time, src: IpAddr, dst: IpAddr, data: Bytes) {
        self.stats.datagrams_received += 1;
        let Ok(pkt) = Packet::new_checked(&data[..]) else {
            self.stats.truncated += 1;
            return;
        };
        if !pkt.verify_checksum() {
            self.stats.bad_checksum += 1;
            return;
        }
        if pkt.dst_port() != self.cfg.port {
            self.stats.wrong_port += 1;
            return;
        }
        let sport = pkt.src_port();
        let vtag = pkt.verification_tag();
        let mut types: Vec<(std::ops::Range<usize>, u8)> = Vec::new();
        for c in pkt.chunks() {
            match c {
                Ok((r, v)) => types.push((r, v.chunk_type())),
                Err(_) => break,
            }
        }
        if types.is_empty() {
            // Not even the first chunk header is sound.
            self.stats.malformed += 1;
            return;
        }
        // Non-unicast sources are never answered (section 8.4 rule 1).
        if crate::asconf::is_unusable_peer_address(&src) || src.is_unspecified() {
            return;
        }
        let id = self.lookup(&data, src, sport, vtag, &types);
        let cookie_range = types
            .iter()
            .find(|(_, t)| *t == chunk_type::COOKIE_ECHO)
            .map(|(r, _)| r.clone());
        let cookie = match &cookie_range {
            Some(r) => match self.open_cookie(now, &data, r.clone(), src, dst, sport) {
                Ok(c) => Some(c),
                Err(()) => return,
            },
            None => None,
        };
        match id {
            Some(id) => {
                if let Some(c) = &cookie
                    && c.peer_port != sport
                {
                    return;
                }
                if let Some(a) = self.assocs.get_mut(&id) {
                    a.handle_packet(now, src, dst, &data, cookie.as_ref());
                }
                self.reindex(id);
                self.drain_events(id);
            }
            None => self.out_of_the_blue(now, src, dst, sport, vtag, &data, &types, cookie),
        }
    }

    /// Finds the association for a packet: by peer address and port, else
    /// by an ASCONF's Address Parameter plus the verification tag (RFC
    /// 5061 section 5.2), else by tag for an INIT ACK coming from another
    /// address of the peer (RFC 9260 section 5.1).
    fn lookup(
        &self,
        data: &Bytes,
        src: IpAddr,
        sport: u16,
        vtag: u32,
        types: &[(std::ops::Range<usize>, u8)],
    ) -> Option<AssocId> {
        if let Some(id) = self.by_peer.get(&(src, sport)) {
            return Some(*id);
        }
        if let Some((r, _)) = types.iter().find(|(_, t)| *t == chunk_type::ASCONF)
            && let Ok(Chunk::Asconf(a)) = Chunk::parse(&data.slice(r.clone()))
            && let Some(id) = self.by_peer.get(&(a.address, sport))
            && self.assocs.get(id).is_some_and(|x| x.local_tag() == vtag)
        {
            return Some(*id);
        }
        if types
            .first()
            .is_some_and(|(_, t)| *t == chunk_type::INIT_ACK)
        {
            return self
                .order
                .iter()
                .find(|id| {
                    self.assocs.get(id).is_some_and(|a| {
                        a.local_tag() == vtag
                            && a.peer_port() == sport
                            && a.state() == crate::association::State::CookieWait
                    })
                })
                .copied();
        }
        None
    }

    /// Verifies a COOKIE ECHO's cookie. Stale cookies are answered with an
    /// ERROR (section 5.2.6); forged ones are dropped.
    fn open_cookie(
        &mut self,
        now: Time,
        data: &Bytes,
        r: std::ops::Range<usize>,
        src: IpAddr,
        dst: IpAddr,
        sport: u16,
    ) -> Result<CookieState, ()> {
        let Ok(Chunk::CookieEcho { cookie }) = Chunk::parse(&data.slice(r)) else {
            return Err(());
        };
        match CookieState::open(&cookie, &self.secret, now) {
            Ok(c) => {
                if c.local_port != self.cfg.port {
                    self.stats.bad_cookies += 1;
                    return Err(());
                }
                Ok(c)
            }
            Err(CookieError::Stale {
                staleness_us,
                peer_tag,
            }) => {
                self.stats.stale_cookies += 1;
                let chunk = Chunk::Error {
                    causes: vec![ErrorCause::StaleCookie { staleness_us }],
                };
                self.reply(dst, src, sport, peer_tag, vec![chunk]);
                Err(())
            }
            Err(_) => {
                self.stats.bad_cookies += 1;
                Err(())
            }
        }
    }

    fn reply(&mut self, from: IpAddr, to: IpAddr, peer_port: u16, tag: u32, chunks: Vec<Chunk>) {
        if self.pending.len() >= MAX_PENDING_REPLIES {
            return;
        }
        let mut buf = Vec::with_capacity(128);
        buf.extend_from_slice(&self.cfg.port.to_be_bytes());
        buf.extend_from_slice(&peer_port.to_be_bytes());
        buf.extend_from_slice(&tag.to_be_bytes());
        buf.extend_from_slice(&[0; 4]);
        for c in &chunks {
            c.emit(&mut buf);
        }
        crc::fill(&mut buf);
        self.pending.push_back(Transmit {
            source: Some(from),
            destination: to,
            payload: buf,
        });
    }

    /// Section 8.4: packets that belong to no association.
    #[allow(clippy::too_many_arguments)]
    fn out_of_the_blue(
        &mut self,
        now: Time,
        src: IpAddr,
        dst: IpAddr,
        sport: u16,
        vtag: u32,
        data: &Bytes,
        types: &[(std::ops::Range<usize>, u8)],
        cookie: Option<CookieState>,
    ) {
        self.stats.out_of_the_blue += 1;
        let has = |t: u8| types.iter().any(|(_, x)| *x == t);
        if has(chunk_type::ABORT)
            || has(chunk_type::SHUTDOWN_COMPLETE)
            || has(chunk_type::COOKIE_ACK)
        {
            return;
        }
        if has(chunk_type::INIT) {
            if vtag != 0 || types.len() > 1 {
                return;
            }
            let raw = data.slice(types[0].0.clone());
            self.answer_init(now, src, dst, sport, raw);
            return;
        }
        if let Some(c) = cookie {
            if !self.cfg.listen || c.local_tag != vtag || c.peer_port != sport {
                self.stats.bad_cookies += 1;
                return;
            }
            self.accept_cookie(now, src, dst, data, c);
            return;
        }
        if has(chunk_type::SHUTDOWN_ACK) {
            self.reply(
                dst,
                src,
                sport,
                vtag,
                vec![Chunk::ShutdownComplete { t_bit: true }],
            );
            return;
        }
        if has(chunk_type::ERROR) {
            return;
        }
        self.reply(
            dst,
            src,
            sport,
            vtag,
            vec![Chunk::Abort {
                t_bit: true,
                causes: vec![],
            }],
        );
    }

    /// Section 5.1 step B: INIT ACK with a cookie, no state kept.
    fn answer_init(&mut self, now: Time, src: IpAddr, dst: IpAddr, sport: u16, raw: Bytes) {
        let init = match Chunk::parse(&raw) {
            Ok(Chunk::Init(init)) => init,
            Err(crate::wire::WireError::BadParamLength { .. }) if raw.len() >= 20 => {
                // The fixed part is readable but a parameter is malformed
                // (e.g. its length is zero): refuse with a Protocol
                // Violation, tagged with the Initiate Tag.
                let tag = u32::from_be_bytes([raw[4], raw[5], raw[6], raw[7]]);
                if tag != 0 {
                    self.stats.inits_refused += 1;
                    let cause = ErrorCause::ProtocolViolation {
                        info: Bytes::from_static(b"malformed INIT parameter"),
                    };
                    self.reply(
                        dst,
                        src,
                        sport,
                        tag,
                        vec![Chunk::Abort {
                            t_bit: false,
                            causes: vec![cause],
                        }],
                    );
                }
                return;
            }
            _ => return,
        };
        if init.initiate_tag == 0 {
            return;
        }
        if !self.cfg.listen {
            self.stats.inits_refused += 1;
            self.reply(
                dst,
                src,
                sport,
                init.initiate_tag,
                vec![Chunk::Abort {
                    t_bit: false,
                    causes: vec![],
                }],
            );
            return;
        }
        let peer = match PeerInit::from_chunk(&init, false) {
            Ok(p) => p,
            Err(e) => {
                self.stats.inits_refused += 1;
                let cause = crate::association::init_error_cause(&e, &init);
                self.reply(
                    dst,
                    src,
                    sport,
                    init.initiate_tag,
                    vec![Chunk::Abort {
                        t_bit: false,
                        causes: vec![cause],
                    }],
                );
                return;
            }
        };
        if self.assocs.len() >= self.cfg.max_associations {
            self.stats.inits_refused += 1;
            self.reply(
                dst,
                src,
                sport,
                init.initiate_tag,
                vec![Chunk::Abort {
                    t_bit: false,
                    causes: vec![ErrorCause::OutOfResource],
                }],
            );
            return;
        }
        let local_tag = loop {
            let t = self.rng.next_u32();
            if t != 0 {
                break t;
            }
        };
        let local_tsn = self.rng.next_u32();
        let random = if self.cfg.association.auth {
            let mut r = [0u8; crate::auth::RANDOM_LEN];
            self.rng.fill_bytes(&mut r);
            Some(r)
        } else {
            None
        };
        let chunk = build_init_ack_for_endpoint(
            &self.cfg.association,
            &self.local_addrs,
            &self.secret,
            now,
            raw,
            &peer,
            (src, dst),
            (self.cfg.port, sport),
            (local_tag, local_tsn),
            random,
        );
        self.stats.inits_answered += 1;
        self.reply(dst, src, sport, init.initiate_tag, vec![chunk]);
    }

    /// Section 5.1 step D: a valid cookie creates the association.
    fn accept_cookie(&mut self, now: Time, src: IpAddr, dst: IpAddr, data: &Bytes, c: CookieState) {
        let peer = match Chunk::parse(&c.peer_init) {
            Ok(Chunk::Init(i)) => match PeerInit::from_chunk(&i, false) {
                Ok(p) => p,
                Err(_) => return,
            },
            _ => return,
        };
        if self.assocs.len() >= self.cfg.max_associations {
            self.reply(
                dst,
                src,
                c.peer_port,
                c.peer_tag,
                vec![Chunk::Abort {
                    t_bit: false,
                    causes: vec![ErrorCause::OutOfResource],
                }],
            );
            return;
        }
        let mut seed = [0u8; 32];
        self.rng.fill_bytes(&mut seed);
        let local = if self.local_addrs.is_empty() {
            vec![dst]
        } else {
            self.local_addrs.clone()
        };
        let mut a = match Association::from_cookie(
            self.cfg.association.clone(),
            now,
            seed,
            &c,
            &peer,
            &local,
        ) {
            Ok(a) => a,
            Err(why) => {
                let cause = ErrorCause::ProtocolViolation {
                    info: Bytes::from_static(why.as_bytes()),
                };
                self.reply(
                    dst,
                    src,
                    c.peer_port,
                    c.peer_tag,
                    vec![Chunk::Abort {
                        t_bit: false,
                        causes: vec![cause],
                    }],
                );
                return;
            }
        };
        a.set_secret(self.secret);
        let id = self.insert(a);
        self.reindex(id);
        if let Some(a) = self.assocs.get_mut(&id) {
            a.handle_packet(now, src, dst, data, Some(&c));
        }
        self.reindex(id);
        self.drain_events(id);
    }

    /// The next datagram to send.
    pub fn poll_transmit(&mut self, now: Time) -> Option<Transmit> {
        if let Some(t) = self.pending.pop_front() {
            return Some(t);
        }
        let n = self.order.len();
        for k in 0..n {
            let idx = (self.cursor + k) % n;
            let id = self.order[idx];
            if let Some(a) = self.assocs.get_mut(&id)
                && let Some(t) = a.poll_transmit(now)
            {
                self.cursor = (idx + 1) % n.max(1);
                self.drain_events(id);
                return Some(t);
            }
        }
        self.reap();
        None
    }

    /// Forgets closed associations with nothing left to deliver.
    fn reap(&mut self) {
        let done: Vec<AssocId> = self
            .order
            .iter()
            .filter(|id| {
                self.assocs.get(id).is_some_and(|a| a.is_finished())
                    && !self.events.iter().any(|(e, _)| e == *id)
            })
            .copied()
            .collect();
        for id in done {
            self.remove(id);
        }
    }

    /// The earliest timer deadline of any association.
    pub fn poll_timeout(&self) -> Option<Time> {
        self.assocs.values().filter_map(|a| a.poll_timeout()).min()
    }

    /// Runs the timers due at `now`.
    pub fn handle_timeout(&mut self, now: Time) {
        let ids = self.order.clone();
        for id in ids {
            if let Some(a) = self.assocs.get_mut(&id)
                && a.poll_timeout().is_some_and(|t| t <= now)
            {
                a.handle_timeout(now);
            }
            self.drain_events(id);
        }
    }

    /// The next application event.
    pub fn poll_event(&mut self) -> Option<(AssocId, Event)> {
        self.events.pop_front()
    }

    /// Application calls on an association may create events (e.g. an
    /// abort); this moves them to the endpoint queue.
    pub fn flush_events(&mut self) {
        for id in self.order.clone() {
            self.drain_events(id);
        }
    }
}
