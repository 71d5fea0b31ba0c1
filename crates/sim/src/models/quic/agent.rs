//! The QUIC agent: a quinn-proto `Endpoint` and its one `Connection` on a
//! node, fed the node's UDP datagrams and polled for transmits and timeouts
//! at simulated time. The client opens the connection and one
//! unidirectional stream (RFC 9000 section 2.1); the sending side's
//! application is an [`app::Source`](crate::models::app::Source) writing to
//! that stream, the receiving side reads it in order and keeps the flow
//! records.
//!
//! Connection migration (RFC 9000 section 9): the client follows the link
//! layer's decisions ([`LinkDecision`]): when a network is declared usable
//! it moves to that interface's address, when its network is declared
//! gone it moves to another usable interface; quinn-proto then validates
//! the new path (section 8.2) and the server follows it (section 9.3).

use std::cell::RefCell;
use std::net::{IpAddr, SocketAddr};
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Buf, Bytes};
use quinn_proto::{
    ClientConfig, Connection, ConnectionHandle, DatagramEvent, Dir, Endpoint, Event, StreamEvent,
    StreamId, TransportConfig, WriteError,
};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

use super::crypto::{CryptoError, RandomScope};
use super::setup::{self, SimClock};
use crate::Time;
use crate::kernel::ids::IfaceId;
use crate::kernel::ip::proto;
use crate::kernel::notification::Notification;
use crate::kernel::udp::{self, UdpView};
use crate::kernel::{Agent, Ctx, EngineTimer, IpPacket, RxInfo};
use crate::measure::PathId;
use crate::measure::flow_log::SharedFlowLog;
use crate::models::app::Source;
use crate::models::handoff::{LinkDecision, TriggerSource};

const TOKEN_ENGINE: u64 = 0;
const TOKEN_START: u64 = 1;
/// Datagrams drained from the connection in one call (bounded; the
/// pacer and congestion window stop it long before).
const MAX_TRANSMITS_PER_CALL: usize = 4096;
/// Bytes the application writes per call at most.
const MAX_WRITE_PER_CALL: u64 = 1 << 20;
static ZEROS: [u8; 16384] = [0; 16384];

/// Which end of the connection the agent is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuicRole {
    /// Connects from `local` to `remote` at `start`, and migrates.
    Client {
        local: SocketAddr,
        remote: SocketAddr,
        start: Time,
    },
    /// Accepts one connection on `port` (any local address).
    Server { port: u16 },
}

/// How the receiving end tags arrivals with a path for the handover
/// measures.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum QuicPathTagging {
    /// The receiving node's interface (a multi-homed mobile).
    #[default]
    Interface,
    /// The position of the peer's address in this list (a single-homed
    /// correspondent receiving from a migrating client: the mobile's
    /// addresses, numbered as mSCTP's paths); `u32::MAX` when absent.
    PeerAddress(Vec<IpAddr>),
}

/// Settings of a [`QuicAgent`].
#[derive(Clone)]
pub struct QuicAgentConfig {
    pub role: QuicRole,
    /// quinn-proto's transport settings (its defaults unless a study
    /// declares otherwise).
    pub transport: Arc<TransportConfig>,
    pub source: Option<Source>,
    pub log: Option<SharedFlowLog>,
    /// Seeds the endpoint, its keys, connection IDs and the TLS session.
    pub seed: u64,
    pub ttl: u8,
    pub tagging: QuicPathTagging,
    /// Which notifications the client takes as link decisions.
    pub triggers: TriggerSource,
    /// Finish the stream once a file source has handed over its file.
    pub finish_when_done: bool,
}

impl QuicAgentConfig {
    pub fn client(local: SocketAddr, remote: SocketAddr, start: Time, seed: u64) -> Self {
        Self::new(
            QuicRole::Client {
                local,
                remote,
                start,
            },
            seed,
        )
    }

    pub fn server(port: u16, seed: u64) -> Self {
        Self::new(QuicRole::Server { port }, seed)
    }

    fn new(role: QuicRole, seed: u64) -> Self {
        QuicAgentConfig {
            role,
            transport: Arc::new(TransportConfig::default()),
            source: None,
            log: None,
            seed,
            ttl: crate::kernel::ip::DEFAULT_TTL,
            tagging: QuicPathTagging::Interface,
            triggers: TriggerSource::Decisions,
            finish_when_done: true,
        }
    }

    pub fn with_source(mut self, source: Source) -> Self {
        self.source = Some(source);
        self
    }

    pub fn with_log(mut self, log: SharedFlowLog) -> Self {
        self.log = Some(log);
        self
    }
}

/// Counters of one agent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QuicStats {
    pub datagrams_sent: u64,
    pub datagrams_received: u64,
    /// Datagrams the simulator refused (backlog) or that could not be built.
    pub send_errors: u64,
    /// UDP datagrams for our port that the endpoint did not take.
    pub stray: u64,
    /// Local address changes of the client.
    pub migrations: u64,
    pub connected_at: Option<Time>,
    pub lost_at: Option<Time>,
    /// Application bytes written to / read from the stream.
    pub bytes_written: u64,
    pub bytes_read: u64,
}

/// A QUIC endpoint agent.
pub struct QuicAgent {
    cfg: QuicAgentConfig,
    endpoint: Endpoint,
    client_config: Option<ClientConfig>,
    /// Boxed: quinn's connection is several kilobytes, and [`Self::drive`]
    /// takes it out and puts it back on every call.
    conn: Option<(ConnectionHandle, Box<Connection>)>,
    base: Instant,
    clock: SimClock,
    random: Rc<RefCell<ChaCha20Rng>>,
    source: Option<Source>,
    /// Bytes the application took from its source and has not written yet.
    pending: u64,
    send_stream: Option<StreamId>,
    recv_stream: Option<StreamId>,
    finished: bool,
    /// The client's current local address.
    local: Option<SocketAddr>,
    /// Interfaces the link layer declared usable, newest last.
    usable: Vec<IfaceId>,
    /// An interface declared usable that has no address yet.
    wanted: Option<IfaceId>,
    armed: EngineTimer,
    buf: Vec<u8>,
    stats: QuicStats,
}

impl std::fmt::Debug for QuicAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuicAgent")
            .field("role", &self.cfg.role)
            .field("stats", &self.stats)
            .finish()
    }
}

impl QuicAgent {
    pub fn new(mut cfg: QuicAgentConfig) -> Result<Self, CryptoError> {
        let mut rng = ChaCha20Rng::seed_from_u64(cfg.seed);
        let clock = SimClock::default();
        let endpoint_config = Arc::new(setup::endpoint_config(&mut rng));
        let (server_config, client_config) = match cfg.role {
            QuicRole::Server { .. } => (
                Some(Arc::new(setup::server_config(
                    &mut rng,
                    &clock,
                    cfg.transport.clone(),
                )?)),
                None,
            ),
            QuicRole::Client { .. } => (None, Some(setup::client_config(cfg.transport.clone())?)),
        };
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let endpoint = Endpoint::new(endpoint_config, server_config, true, Some(seed));
        let source = cfg.source.take();
        let local = match cfg.role {
            QuicRole::Client { local, .. } => Some(local),
            QuicRole::Server { .. } => None,
        };
        Ok(QuicAgent {
            cfg,
            endpoint,
            client_config,
            conn: None,
            base: Instant::now(),
            clock,
            random: Rc::new(RefCell::new(rng)),
            source,
            pending: 0,
            send_stream: None,
            recv_stream: None,
            finished: false,
            local,
            usable: Vec::new(),
            wanted: None,
            armed: EngineTimer::new(TOKEN_ENGINE),
            buf: Vec::new(),
            stats: QuicStats::default(),
        })
    }

    pub fn stats(&self) -> QuicStats {
        self.stats
    }

    /// The connection's own statistics (RTT, congestion window, losses).
    pub fn connection_stats(&self) -> Option<quinn_proto::ConnectionStats> {
        self.conn.as_ref().map(|(_, c)| c.stats())
    }

    /// The client's current local address.
    pub fn local_address(&self) -> Option<SocketAddr> {
        self.local
    }

    /// The address the connection sends to.
    pub fn remote_address(&self) -> Option<SocketAddr> {
        self.conn.as_ref().map(|(_, c)| c.remote_address())
    }

    pub fn is_connected(&self) -> bool {
        self.stats.connected_at.is_some() && self.stats.lost_at.is_none()
    }

    fn port(&self) -> u16 {
        match self.cfg.role {
            QuicRole::Client { local, .. } => local.port(),
            QuicRole::Server { port } => port,
        }
    }

    fn instant(&self, t: Time) -> Instant {
        self.base + Duration::from_nanos(t.as_nanos())
    }

    fn sim_time(&self, i: Instant) -> Time {
        Time::from_nanos(
            u64::try_from(i.saturating_duration_since(self.base).as_nanos()).unwrap_or(u64::MAX),
        )
    }

    fn connect(&mut self, ctx: &mut Ctx<'_>) {
        let QuicRole::Client { remote, .. } = self.cfg.role else {
            return;
        };
        let Some(cc) = self.client_config.take() else {
            return;
        };
        let now = self.instant(ctx.now());
        match self
            .endpoint
            .connect(now, cc, remote, super::crypto::SERVER_NAME)
        {
            Ok((h, c)) => self.conn = Some((h, Box::new(c))),
            Err(_) => self.stats.send_errors += 1,
        }
    }

    /// Feeds one UDP datagram to the endpoint: the packet's buffer, cut
    /// to the UDP payload, becomes the endpoint's (no copy).
    fn receive(&mut self, ctx: &mut Ctx<'_>, pkt: IpPacket, rx: &RxInfo) {
        let Ok(v) = UdpView::parse(&pkt) else {
            self.stats.stray += 1;
            return;
        };
        self.stats.datagrams_received += 1;
        let (src, dst) = (pkt.src(), pkt.dst());
        let remote = SocketAddr::new(src, v.src_port);
        let now = self.instant(ctx.now());
        let start = pkt.as_bytes().len() - pkt.payload().len() + udp::UDP_HEADER_LEN;
        let end = start + v.payload.len();
        let mut data = pkt.into_bytes_mut();
        data.truncate(end);
        data.advance(start);
        let mut buf = std::mem::take(&mut self.buf);
        let ev = self
            .endpoint
            .handle(now, remote, Some(dst), None, data, &mut buf);
        match ev {
            Some(DatagramEvent::ConnectionEvent(ch, e)) => match self.conn.as_mut() {
                Some((h, c)) if *h == ch => c.handle_event(e),
                _ => self.stats.stray += 1,
            },
            Some(DatagramEvent::NewConnection(incoming)) => {
                if self.conn.is_none() && matches!(self.cfg.role, QuicRole::Server { .. }) {
                    match self.endpoint.accept(incoming, now, &mut buf, None) {
                        Ok((h, c)) => self.conn = Some((h, Box::new(c))),
                        Err(e) => {
                            self.stats.stray += 1;
                            if let Some(t) = e.response {
                                let b = buf[..t.size].to_vec();
                                self.send_datagram(ctx, t.destination, t.src_ip, &b);
                            }
                        }
                    }
                } else {
                    self.stats.stray += 1;
                    self.endpoint.ignore(incoming);
                }
            }
            Some(DatagramEvent::Response(t)) => {
                let b = buf[..t.size].to_vec();
                self.send_datagram(ctx, t.destination, t.src_ip, &b);
            }
            None => {}
        }
        self.buf = buf;
        let path = match &self.cfg.tagging {
            QuicPathTagging::Interface => rx.iface.map_or(u32::MAX, |i| i.0),
            QuicPathTagging::PeerAddress(list) => list
                .iter()
                .position(|a| *a == src)
                .map_or(u32::MAX, |k| k as u32),
        };
        self.drive(ctx, Some(PathId(path)));
    }

    fn send_datagram(
        &mut self,
        ctx: &mut Ctx<'_>,
        dst: SocketAddr,
        src_ip: Option<IpAddr>,
        payload: &[u8],
    ) {
        let src = match (self.local, src_ip) {
            (Some(l), _) if matches!(self.cfg.role, QuicRole::Client { .. }) => l.ip(),
            (_, Some(ip)) => ip,
            _ => match ctx.source_for(dst.ip()) {
                Some((_, ip)) => ip,
                None => {
                    self.stats.send_errors += 1;
                    return;
                }
            },
        };
        match udp::build(
            src,
            dst.ip(),
            self.port(),
            dst.port(),
            self.cfg.ttl,
            payload,
        ) {
            Ok(p) => match ctx.send(p) {
                Ok(()) => self.stats.datagrams_sent += 1,
                Err(_) => self.stats.send_errors += 1,
            },
            Err(_) => self.stats.send_errors += 1,
        }
    }

    /// Runs the connection: endpoint events, application events, the
    /// application's writes and reads, transmits, the timer.
    fn drive(&mut self, ctx: &mut Ctx<'_>, arrival_path: Option<PathId>) {
        let now_t = ctx.now();
        self.clock.set(now_t.as_nanos());
        let now = self.instant(now_t);
        let Some((ch, mut conn)) = self.conn.take() else {
            return;
        };
        // Endpoint events (new connection IDs, drained connections).
        for _ in 0..1024 {
            let Some(ev) = conn.poll_endpoint_events() else {
                break;
            };
            if let Some(ce) = self.endpoint.handle_event(ch, ev) {
                conn.handle_event(ce);
            }
        }
        // Application events.
        for _ in 0..1024 {
            let Some(ev) = conn.poll() else { break };
            match ev {
                Event::Connected => {
                    self.stats.connected_at.get_or_insert(now_t);
                }
                Event::ConnectionLost { .. } => {
                    self.stats.lost_at.get_or_insert(now_t);
                }
                Event::Stream(StreamEvent::Opened { dir: Dir::Uni })
                    if self.recv_stream.is_none() =>
                {
                    self.recv_stream = conn.streams().accept(Dir::Uni);
                }
                _ => {}
            }
        }
        if self.stats.connected_at.is_some() || conn.side().is_client() {
            self.write(&mut conn, now_t, ctx);
        }
        self.read(&mut conn, now_t, arrival_path);
        // Transmits.
        let mut buf = std::mem::take(&mut self.buf);
        for _ in 0..MAX_TRANSMITS_PER_CALL {
            buf.clear();
            let Some(t) = conn.poll_transmit(now, 1, &mut buf) else {
                break;
            };
            self.send_datagram(ctx, t.destination, t.src_ip, &buf[..t.size]);
        }
        self.buf = buf;
        // Endpoint events raised by sending (retired IDs).
        while let Some(ev) = conn.poll_endpoint_events() {
            if let Some(ce) = self.endpoint.handle_event(ch, ev) {
                conn.handle_event(ce);
            }
        }
        let mut next = conn.poll_timeout().map(|i| self.sim_time(i));
        if let Some(src) = &self.source
            && !self.finished
            && let Some(t) = src.next_due(now_t)
            && t > now_t
        {
            next = Some(next.map_or(t, |n| n.min(t)));
        }
        self.conn = Some((ch, conn));
        self.armed.set(ctx, next.map(|t| t.max(now_t)));
    }

    /// The sending application: opens the stream, writes what its source
    /// has, finishes the stream when a file is all written.
    fn write(&mut self, conn: &mut Connection, now: Time, ctx: &mut Ctx<'_>) {
        let Some(src) = self.source.as_mut() else {
            return;
        };
        if self.finished {
            return;
        }
        if self.send_stream.is_none() {
            self.send_stream = conn.streams().open(Dir::Uni);
        }
        let Some(id) = self.send_stream else {
            return;
        };
        let mut written = 0u64;
        while written < MAX_WRITE_PER_CALL {
            if self.pending == 0 {
                let room = usize::try_from(MAX_WRITE_PER_CALL - written).unwrap_or(usize::MAX);
                let taken: u64 = src
                    .take(now, room, ctx.rng())
                    .iter()
                    .map(|m| *m as u64)
                    .sum();
                if taken == 0 {
                    break;
                }
                self.pending = taken;
                if let Some(log) = &self.cfg.log {
                    log.borrow_mut().message_sent(now);
                }
            }
            let n = usize::try_from(self.pending.min(ZEROS.len() as u64)).unwrap_or(0);
            // The stream takes the zeros as they are (no copy, as `write`
            // of a slice makes); the bytes and their segments are the same.
            let mut chunk = [Bytes::from_static(&ZEROS[..n])];
            match (conn.send_stream(id).write_chunks(&mut chunk)).map(|w| w.bytes) {
                Ok(0) | Err(WriteError::Blocked) => break,
                Ok(w) => {
                    self.pending -= w as u64;
                    written += w as u64;
                }
                Err(_) => {
                    self.finished = true;
                    break;
                }
            }
        }
        if written > 0 {
            self.stats.bytes_written += written;
            if let Some(log) = &self.cfg.log {
                log.borrow_mut().bytes_offered += written;
            }
        }
        if self.cfg.finish_when_done && self.pending == 0 && src.finished(now) && !self.finished {
            let _ = conn.send_stream(id).finish();
            self.finished = true;
        }
    }

    /// The receiving application: reads the stream in order.
    fn read(&mut self, conn: &mut Connection, now: Time, path: Option<PathId>) {
        let Some(id) = self.recv_stream else {
            return;
        };
        let mut recv = conn.recv_stream(id);
        let Ok(mut chunks) = recv.read(true) else {
            return;
        };
        let mut done = false;
        for _ in 0..65_536 {
            match chunks.next(usize::MAX) {
                Ok(Some(c)) => {
                    let n = c.bytes.len() as u64;
                    self.stats.bytes_read += n;
                    if let Some(log) = &self.cfg.log {
                        let mut l = log.borrow_mut();
                        if let Some(p) = path {
                            l.arrival(now, p, c.offset, n as u32, true);
                        }
                        l.delivered(now, n);
                        l.message_delivered(now);
                    }
                }
                Ok(None) => {
                    done = true;
                    break;
                }
                Err(_) => break,
            }
        }
        let _ = chunks.finalize();
        if done && let Some(log) = &self.cfg.log {
            log.borrow_mut().completed_at.get_or_insert(now);
        }
    }

    /// The client moves to `iface`'s address (same port).
    fn migrate_to(&mut self, ctx: &mut Ctx<'_>, iface: IfaceId) -> bool {
        let QuicRole::Client { remote, .. } = self.cfg.role else {
            return false;
        };
        let Some(cur) = self.local else { return false };
        let Some(addr) = ctx.node().iface(iface).and_then(|i| {
            i.addrs()
                .iter()
                .map(|n| n.addr())
                .find(|a| a.is_ipv4() == remote.is_ipv4())
        }) else {
            return false;
        };
        if addr == cur.ip() {
            return true;
        }
        self.local = Some(SocketAddr::new(addr, cur.port()));
        self.stats.migrations += 1;
        if let Some((_, c)) = self.conn.as_mut() {
            // RFC 9000 section 9.2: a new connection ID and a probe from
            // the new address.
            c.local_address_changed();
        }
        true
    }

    fn on_decision(&mut self, ctx: &mut Ctx<'_>, d: LinkDecision) {
        match d {
            LinkDecision::Up { iface } => {
                self.usable.retain(|i| *i != iface);
                self.usable.push(iface);
                self.wanted = if self.migrate_to(ctx, iface) {
                    None
                } else {
                    Some(iface)
                };
            }
            LinkDecision::Down { iface } => {
                self.usable.retain(|i| *i != iface);
                if self.wanted == Some(iface) {
                    self.wanted = None;
                }
                let on_it = self
                    .local
                    .is_some_and(|l| ctx.node().iface_of_addr(l.ip()) == Some(iface));
                if on_it {
                    for cand in self.usable.clone().into_iter().rev() {
                        if self.migrate_to(ctx, cand) {
                            break;
                        }
                    }
                }
            }
        }
    }
}

impl Agent for QuicAgent {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        let _scope = RandomScope::enter(&self.random);
        if let QuicRole::Client { start, .. } = self.cfg.role {
            if start <= ctx.now() {
                self.connect(ctx);
                self.drive(ctx, None);
            } else {
                ctx.set_timer(start, TOKEN_START);
            }
        }
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: IpPacket, rx: &RxInfo) -> Option<IpPacket> {
        if pkt.protocol() != proto::UDP || UdpView::dst_port_of(&pkt) != Some(self.port()) {
            return Some(pkt);
        }
        let _scope = RandomScope::enter(&self.random);
        self.receive(ctx, pkt, rx);
        None
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, token: u64) {
        let _scope = RandomScope::enter(&self.random);
        if token == TOKEN_START {
            self.connect(ctx);
        } else {
            self.armed.fired();
            let now = self.instant(ctx.now());
            if let Some((_, c)) = self.conn.as_mut() {
                c.handle_timeout(now);
            }
        }
        self.drive(ctx, None);
    }

    fn on_notify(&mut self, ctx: &mut Ctx<'_>, n: &Notification) {
        if !matches!(self.cfg.role, QuicRole::Client { .. }) {
            return;
        }
        let _scope = RandomScope::enter(&self.random);
        if let Notification::AddressAdded { iface, .. } = n
            && self.wanted == Some(*iface)
            && self.migrate_to(ctx, *iface)
        {
            self.wanted = None;
            self.drive(ctx, None);
            return;
        }
        if let Some(d) = LinkDecision::from_notification(n, self.cfg.triggers) {
            self.on_decision(ctx, d);
            self.drive(ctx, None);
        }
    }
}
