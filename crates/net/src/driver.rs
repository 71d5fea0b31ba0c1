//! The driver: one Tokio task that owns the engine's [`Endpoint`], the UDP
//! sockets, the clock and the timer, and the interface monitor. It runs
//! the sans-I/O loop (datagrams in, transmits out, timers, events) and
//! serves the application handles' commands.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use msctp_proto::asconf::LocalAddrState;
use msctp_proto::association::SendError;
use msctp_proto::policy::LinkEvent;
use msctp_proto::{AssocId, CloseReason, Endpoint, Event, Message, SendOptions, Time, Transmit};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, Sleep};

use crate::config::StackConfig;
use crate::encap::{self, RemotePorts, SocketSet};
use crate::error::{NetError, describe_close};
use crate::impair::Impair;
use crate::mobility::{Handover, Mobility, pair_paths};
use crate::monitor::{IfaceChange, Interfaces, Subscription};
use crate::status::{AssocStatus, DriverStats};
use crate::udp::{self, Datagram, Train};

mod command;
mod mobility;
mod service;
mod session;

use mobility::report_handovers;

/// A packet the engine produced, waiting for the next batched send.
struct Queued {
    sock: usize,
    to: SocketAddr,
    payload: Vec<u8>,
}

/// Packets taken from the engine before they are sent in one batch.
const TX_QUEUE: usize = 1024;

/// What the application sees besides messages.
#[derive(Debug, Clone, PartialEq)]
pub enum NetEvent {
    /// An engine event (path up/down, primary changed, address added...).
    Assoc(Event),
    /// A handover carried out by the policy.
    Handover(Handover),
}

/// Send credit shared by an association's handles and the driver: a
/// handle takes credit for the bytes of a message before queueing it
/// (without waiting for an answer), the driver gives it back when the
/// engine has taken the message. An error of such a send is kept and
/// reported by the next call.
#[derive(Debug)]
pub(crate) struct SendShared {
    pub credit: tokio::sync::Semaphore,
    /// Credit (bytes) the semaphore was created with.
    pub limit: usize,
    pub error: std::sync::Mutex<Option<String>>,
    /// `error` holds something (read without the lock on every send).
    pub failed: std::sync::atomic::AtomicBool,
    /// The application dropped its [`Association`](crate::Association):
    /// nobody reads this session any more (see `Driver::release`).
    pub released: std::sync::atomic::AtomicBool,
}

impl SendShared {
    fn fail(&self, e: &NetError) {
        if let Ok(mut g) = self.error.lock()
            && g.is_none()
        {
            *g = Some(e.to_string());
            self.failed
                .store(true, std::sync::atomic::Ordering::Release);
        }
    }
}

/// What an association handle is made of.
#[derive(Debug)]
pub(crate) struct AssocParts {
    pub id: AssocId,
    /// The session of the association the handle belongs to: a restart
    /// (RFC 9260 section 5.2.4) starts a new one under the same id.
    pub session: u64,
    pub shared: std::sync::Arc<SendShared>,
    pub events: mpsc::Receiver<NetEvent>,
    pub peer_addrs: Vec<IpAddr>,
    pub peer_port: u16,
}

/// Per-association operations.
#[derive(Debug, Clone)]
pub(crate) enum AssocOp {
    SetPrimary(IpAddr),
    RequestPeerPrimary(IpAddr),
    ProbeCapacity(IpAddr),
    AddLocal(IpAddr),
    RemoveLocal(IpAddr),
    /// RFC 6525: reset outgoing streams (all when empty), ask the peer to
    /// reset its outgoing ones, add outgoing streams.
    ResetStreams(Vec<u16>),
    RequestIncomingReset(Vec<u16>),
    AddStreams(u16),
    Abort,
}

type Reply<T> = oneshot::Sender<Result<T, NetError>>;

pub(crate) enum Command {
    Connect {
        peers: Vec<IpAddr>,
        port: u16,
        udp_port: Option<u16>,
        reply: Reply<AssocParts>,
    },
    Accept {
        reply: Reply<AssocParts>,
    },
    Send {
        id: AssocId,
        session: u64,
        stream: u16,
        ppid: u32,
        opts: SendOptions,
        data: Bytes,
        /// Credit taken for it (given back when the engine takes it).
        credit: u32,
        /// `None`: nobody waits; an error goes to the shared state.
        reply: Option<Reply<()>>,
    },
    Recv {
        id: AssocId,
        session: u64,
        max: usize,
        reply: Reply<Vec<Message>>,
    },
    Status {
        id: AssocId,
        session: u64,
        reply: Reply<AssocStatus>,
    },
    Op {
        id: AssocId,
        session: u64,
        op: AssocOp,
        reply: Reply<()>,
    },
    Shutdown {
        id: AssocId,
        session: u64,
        reply: Reply<()>,
    },
    /// The application dropped the session's [`Association`](crate::Association).
    Release {
        id: AssocId,
        session: u64,
    },
    AddLocal {
        addr: IpAddr,
        reply: Reply<()>,
    },
    RemoveLocal {
        addr: IpAddr,
        reply: Reply<()>,
    },
    LocalAddrs {
        reply: Reply<Vec<IpAddr>>,
    },
    Stats {
        reply: Reply<DriverStats>,
    },
}

struct PendingSend {
    stream: u16,
    ppid: u32,
    /// Ordering, partial reliability policy (RFC 7496), I bit (RFC 7053).
    opts: SendOptions,
    /// When the application handed it over (a lifetime counts from then).
    queued_at: Time,
    data: Bytes,
    credit: u32,
    reply: Option<Reply<()>>,
}

impl PendingSend {
    /// The engine took the message (or refused it): give the credit back
    /// and answer.
    fn done(self, shared: &SendShared, r: Result<(), NetError>) {
        shared.credit.add_permits(self.credit as usize);
        Self::answer(self.reply, shared, r);
    }

    fn answer(reply: Option<Reply<()>>, shared: &SendShared, r: Result<(), NetError>) {
        match reply {
            Some(reply) => {
                let _ = reply.send(r);
            }
            None => {
                if let Err(e) = r {
                    shared.fail(&e);
                }
            }
        }
    }
}

/// The driver's view of one association.
struct Assoc {
    /// Which session of the association this is (driver-wide unique).
    session: u64,
    /// The application dropped its handle: shut down by then (abort
    /// after `drain_timeout`).
    release_deadline: Option<Time>,
    shared: std::sync::Arc<SendShared>,
    events: mpsc::Sender<NetEvent>,
    /// Held until `accept` hands the association out.
    events_rx: Option<mpsc::Receiver<NetEvent>>,
    connect_reply: Option<Reply<AssocParts>>,
    connect_peer: Option<(IpAddr, u16)>,
    sends: VecDeque<PendingSend>,
    recv: Option<(usize, Reply<Vec<Message>>)>,
    /// Messages whose receive request was abandoned (the application's
    /// future was dropped): delivered first next time, so `recv` is
    /// cancel-safe.
    stash: Vec<Message>,
    shutdown_replies: Vec<Reply<()>>,
    shutdown_wanted: bool,
    shutdown_started: bool,
    closed: Option<CloseReason>,
    connected: bool,
    /// Remote UDP port for addresses not heard from yet.
    udp_port: u16,
    mobility: Option<Mobility>,
    peer_port: u16,
}

pub(crate) struct Driver {
    cfg: StackConfig,
    ep: Endpoint,
    socks: SocketSet,
    ports: RemotePorts,
    start: Instant,
    cmds: mpsc::Receiver<Command>,
    assocs: HashMap<AssocId, Assoc>,
    /// Associations with something for `service` to do (a command or an
    /// engine event came for them, or they wait for room, a held move,
    /// readable data): only these are serviced, not every association
    /// (issue 31: 10 000 mostly idle associations).
    busy: BTreeSet<AssocId>,
    /// Closed associations the application may still hold.
    ended: BTreeSet<AssocId>,
    accept_queue: VecDeque<AssocId>,
    accept_waiters: VecDeque<Reply<AssocParts>>,
    ifaces: Interfaces,
    monitor: Option<Subscription>,
    /// Datagrams read in one batch, before the engine takes them.
    rx: Vec<Datagram>,
    /// Packets from the engine waiting for one batched send.
    txq: Vec<Queued>,
    timer: Pin<Box<Sleep>>,
    stats: DriverStats,
    unreported: Unreported,
    /// User-space link impairment of received datagrams (off: `None`).
    impair: Option<Impair>,
    /// The next session number.
    next_session: u64,
    /// Sessions a restart ended whose handle still exists.
    retired: HashMap<(AssocId, u64), session::Retired>,
    /// Each path's source as the kernel's route has it (`route.rs`).
    sources: crate::route::Sources,
}

/// Handovers decided but not yet reported: each is told to the
/// application once the driver has sent the first packet after it (its
/// `sent_ns`), at the end of the same pass.
type Unreported = Vec<(mpsc::Sender<NetEvent>, Handover)>;

fn now_of(start: Instant) -> Time {
    Time::from_nanos(u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX))
}

impl Driver {
    pub(crate) fn new(
        cfg: StackConfig,
        ep: Endpoint,
        socks: SocketSet,
        cmds: mpsc::Receiver<Command>,
        ifaces: Interfaces,
        monitor: Option<Subscription>,
        start: std::time::Instant,
    ) -> Self {
        let start = Instant::from_std(start);
        Driver {
            impair: cfg.impair.map(Impair::new),
            ports: RemotePorts::new(4096),
            rx: Vec::new(),
            txq: Vec::new(),
            cfg,
            ep,
            socks,
            start,
            cmds,
            assocs: HashMap::new(),
            busy: BTreeSet::new(),
            ended: BTreeSet::new(),
            accept_queue: VecDeque::new(),
            accept_waiters: VecDeque::new(),
            ifaces,
            monitor,
            timer: Box::pin(tokio::time::sleep_until(start + Duration::from_secs(3600))),
            stats: DriverStats::default(),
            unreported: Vec::new(),
            next_session: 0,
            retired: HashMap::new(),
            sources: crate::route::Sources::default(),
        }
    }

    fn now(&self) -> Time {
        now_of(self.start)
    }

    /// The loop; returns when every handle is gone and the associations
    /// still open have shut down (gracefully, within `drain_timeout`).
    // Long because: it is the driver's event loop, one `select!` over its
    // inputs (interface changes, datagrams, commands, the timer) and the
    // dispatch of each; the select borrows the sockets, the timer and the
    // monitor out of `self` at once, so its parts do not move to methods.
    pub(crate) async fn run(mut self) {
        let mut draining: Option<Instant> = None;
        loop {
            if let Some(until) = draining {
                let open = self
                    .ep
                    .associations()
                    .iter()
                    .any(|id| self.ep.association(*id).is_some_and(|a| !a.is_closed()));
                if !open || Instant::now() >= until {
                    break;
                }
            }
            self.service();
            self.flush().await;
            let held = self.impair.as_ref().and_then(Impair::next_due);
            let deadline = match (self.ep.poll_timeout(), held) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            if let Some(d) = deadline {
                let at = self.start + Duration::from_nanos(d.as_nanos());
                if self.timer.deadline() != at {
                    self.timer.as_mut().reset(at);
                }
            }
            let Driver {
                cmds,
                socks,
                timer,
                monitor,
                ..
            } = &mut self;
            let wait = async {
                match monitor.as_mut() {
                    Some(m) => m.next().await,
                    None => std::future::pending().await,
                }
            };
            enum Input {
                Cmd(Option<Command>),
                Dgram(usize),
                Timer,
                Iface(io::Result<Vec<IfaceChange>>),
            }
            let drain_tick = async {
                match draining {
                    Some(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                    None => std::future::pending().await,
                }
            };
            let input = tokio::select! {
                biased;
                // Interface changes first: a link that went down must not
                // wait behind a busy transfer's datagrams and sends.
                m = wait => Input::Iface(m),
                i = std::future::poll_fn(|cx| socks.poll_readable(cx)) => Input::Dgram(i),
                c = cmds.recv(), if draining.is_none() => Input::Cmd(c),
                _ = timer.as_mut(), if deadline.is_some() => Input::Timer,
                _ = drain_tick => Input::Timer,
            };
            match input {
                Input::Cmd(None) => {
                    // Every handle dropped: shut down what is open, with
                    // the data still queued delivered first.
                    let now = self.now();
                    for id in self.ep.associations() {
                        if let Some(a) = self.ep.association_mut(id) {
                            a.shutdown(now);
                        }
                    }
                    draining = Some(Instant::now() + self.cfg.drain_timeout);
                }
                Input::Cmd(Some(c)) => {
                    self.command(c);
                    // Take what else is waiting, so that a burst of sends
                    // costs one pass of the loop.
                    for _ in 0..self.cfg.recv_batch.max(1) * 4 {
                        match self.cmds.try_recv() {
                            Ok(c) => self.command(c),
                            Err(_) => break,
                        }
                    }
                }
                Input::Dgram(i) => self.drain_sockets(i),
                Input::Timer => {}
                Input::Iface(Ok(changes)) => self.iface_changes(&changes),
                Input::Iface(Err(e)) => {
                    tracing::warn!("interface monitor failed: {e}; handovers stop");
                    self.stats.monitor_errors += 1;
                    self.monitor = None;
                }
            }
            self.release_held();
            let now = self.now();
            if self.ep.poll_timeout().is_some_and(|t| t <= now) {
                self.ep.handle_timeout(now);
            }
        }
        // Past the drain time: abort what is left.
        for id in self.ep.associations() {
            if let Some(a) = self.ep.association_mut(id) {
                a.abort(None);
            }
        }
        self.ep.flush_events();
        self.flush().await;
    }

    /// Reads what is queued on the sockets (batches of `recvmmsg`, the
    /// socket that woke the driver first), up to `recv_batch` datagrams,
    /// and hands every datagram to the engine.
    fn drain_sockets(&mut self, first: usize) {
        let mut budget = self.cfg.recv_batch.max(1);
        let n = self.socks.socks.len();
        let mut idle = vec![false; n];
        let mut k = 0;
        while budget > 0 && idle.iter().any(|d| !d) {
            let i = (first + k) % n.max(1);
            k += 1;
            if n == 0 || idle[i] {
                continue;
            }
            let got = self.read_socket(i);
            match got {
                Some(c) if c > 0 => budget = budget.saturating_sub(c),
                _ => idle[i] = true,
            }
            let now = self.now();
            let local = self.socks.socks[i].addr;
            let mut rx = std::mem::take(&mut self.rx);
            if let Some(imp) = &mut self.impair {
                imp.apply(now, local, &mut rx);
            }
            for d in rx.drain(..) {
                self.stats.datagrams_received += 1;
                let (ip, port) = (d.from.ip(), d.from.port());
                if let Some(id) = self.ep.handle_datagram(now, ip, local, d.data) {
                    self.learn_port(id, ip, port);
                }
                // Stateless replies answer the datagram's own UDP port.
                while let Some(t) = self.ep.poll_reply() {
                    self.queue_transmit_to(t, port);
                }
            }
            self.rx = rx;
        }
    }

    /// Hands the engine the datagrams the impairment layer held back that
    /// are due (a pass over the sockets releases each socket's); those of
    /// sockets that are gone are dropped.
    fn release_held(&mut self) {
        let now = self.now();
        let due = |d: &Option<Impair>| d.as_ref().and_then(Impair::next_due);
        if due(&self.impair).is_some_and(|t| t <= now) {
            self.drain_sockets(0);
            let live = self.socks.addrs();
            if let Some(imp) = &mut self.impair {
                imp.drop_orphans(now, &live);
            }
        }
    }

    /// One `recvmmsg` on socket `i` into `self.rx`: how many datagrams,
    /// `None` when nothing was queued.
    fn read_socket(&mut self, i: usize) -> Option<usize> {
        use std::os::fd::AsRawFd;
        let s = &mut self.socks.socks[i];
        let fd = s.sock.as_raw_fd();
        let before = self.rx.len();
        let (sock, batch, rx) = (&s.sock, &mut s.batch, &mut self.rx);
        match sock.try_io(tokio::io::Interest::READABLE, || batch.recv(fd, rx)) {
            Ok(_) => {
                self.stats.recv_batches += 1;
                Some(self.rx.len() - before)
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => None,
            Err(e) => {
                // ICMP errors reported on the socket (port unreachable,
                // ...): the engine's timers handle the loss; a Packet Too
                // Big is a hint to PLPMTUD.
                self.stats.recv_errors += 1;
                tracing::debug!("receive error: {e}");
                self.take_mtu_errors(i);
                Some(0)
            }
        }
    }

    /// Reads socket `i`'s queued ICMP errors (with PLPMTUD on, RFC 6951
    /// section 5.6): each Packet Too Big goes to the associations with a
    /// path to its destination as a hint, the MTU less the IP and UDP
    /// headers (RFC 8899 section 4.6: validated by a probe).
    fn take_mtu_errors(&mut self, i: usize) {
        use std::os::fd::AsRawFd;
        if !self.cfg.endpoint.association.pmtud.enabled {
            return;
        }
        let fd = self.socks.socks[i].sock.as_raw_fd();
        let mut errs = Vec::new();
        udp::read_mtu_errors(fd, &mut errs);
        for (dest, mtu) in errs {
            let headers = if dest.is_ipv4() { 28 } else { 48 };
            let hint = (mtu as usize).saturating_sub(headers);
            tracing::debug!(%dest, mtu, "Packet Too Big");
            for id in self.ep.associations() {
                if let Some(a) = self.ep.association_mut(id) {
                    a.on_packet_too_big(dest, hint);
                }
            }
        }
    }

    /// Sends everything the engine has to send, in batches.
    async fn flush(&mut self) {
        loop {
            let now = self.now();
            while self.txq.len() < TX_QUEUE {
                let Some(t) = self.ep.poll_transmit(now) else {
                    break;
                };
                self.queue_transmit(t);
            }
            if self.txq.is_empty() {
                break;
            }
            self.send_queued().await;
        }
        for (tx, h) in self.unreported.drain(..) {
            let _ = tx.try_send(NetEvent::Handover(h));
        }
        // Transmitting may have produced events (e.g. a closed association).
        self.service();
    }

    /// The remote encapsulation port of association `id`'s address `ip`
    /// is `port` (RFC 6951 section 5): learned per association and
    /// address, so that two peers behind one NAT address keep their own
    /// ports and a NAT rebinding moves only the association it belongs to.
    fn learn_port(&mut self, id: AssocId, ip: IpAddr, port: u16) {
        let before = self.ports.learn(id, ip, port);
        if before == Some(port) {
            return;
        }
        if before.is_some() {
            self.stats.remote_port_changes += 1;
        }
        // Addresses not heard from yet use the latest port.
        if let Some(a) = self.assocs.get_mut(&id) {
            a.udp_port = port;
        }
    }

    fn queue_transmit(&mut self, t: Transmit) {
        let port = self.udp_port_for(t.assoc, t.destination);
        self.queue_transmit_to(t, port);
    }

    fn queue_transmit_to(&mut self, t: Transmit, port: u16) {
        // A stand-in source must be an address the peer has acknowledged
        // (looked up only when the source has no socket: not per packet).
        let known = |a: IpAddr| {
            t.assoc
                .and_then(|id| self.ep.association(id))
                .is_some_and(|x| {
                    x.local_addresses()
                        .iter()
                        .any(|l| l.addr == a && l.state == LocalAddrState::Available)
                })
        };
        // The packet leaves from an address of the interface its route
        // uses (route.rs), if the association knows that address.
        let source = match t.source {
            Some(s) if t.assoc.is_some() => Some(self.sources.choose(
                std::time::Instant::now(),
                s,
                t.destination,
                |a| self.socks.contains(a) && known(a),
            )),
            s => s,
        };
        let Some(sock) = self.socks.index_for(source, t.destination, known) else {
            tracing::debug!(
                "no socket to send from {:?} to {}: packet dropped",
                t.source,
                t.destination
            );
            self.stats.no_socket += 1;
            return;
        };
        // The UDP payload is the SCTP packet: any headroom the endpoint
        // was configured to leave (`transmit_headroom`) is not sent.
        let mut payload = t.payload;
        payload.drain(..t.headroom);
        self.txq.push(Queued {
            sock,
            to: SocketAddr::new(t.destination, port),
            payload,
        });
    }

    /// Sends the queued packets: consecutive packets of one socket to
    /// one destination and of one size (the last may be shorter) form a
    /// GSO train; trains go `SEND_BATCH` per `sendmmsg`.
    async fn send_queued(&mut self) {
        use std::os::fd::AsRawFd;
        let mut done = 0;
        while done < self.txq.len() {
            let sock = self.txq[done].sock;
            let s = &self.socks.socks[sock];
            let gso = s.batch.gso;
            // The run of packets from this socket.
            let run_end = self.txq[done..]
                .iter()
                .position(|q| q.sock != sock)
                .map_or(self.txq.len(), |p| done + p);
            let segs: Vec<&[u8]> = self.txq[done..run_end]
                .iter()
                .map(|q| &q.payload[..])
                .collect();
            // Trains: (start, end) in segs.
            let mut bounds: Vec<(usize, usize)> = Vec::new();
            let mut a = 0;
            while a < segs.len() && bounds.len() < udp::SEND_BATCH {
                let mut b = a + 1;
                if gso {
                    let size = segs[a].len();
                    let mut bytes = size;
                    while b < segs.len()
                        && b - a < udp::MAX_SEGMENTS
                        && self.txq[done + b].to == self.txq[done + a].to
                        && segs[b].len() <= size
                        && bytes + segs[b].len() <= udp::MAX_GSO_BYTES
                    {
                        bytes += segs[b].len();
                        b += 1;
                        if segs[b - 1].len() < size {
                            break;
                        }
                    }
                }
                bounds.push((a, b));
                a = b;
            }
            let trains: Vec<Train> = bounds
                .iter()
                .map(|&(a, b)| Train {
                    to: self.txq[done + a].to,
                    segments: &segs[a..b],
                })
                .collect();
            let fd = s.sock.as_raw_fd();
            let r = s
                .sock
                .try_io(tokio::io::Interest::WRITABLE, || s.batch.send(fd, &trains));
            match r {
                Ok(k) => {
                    if !self.unreported.is_empty() {
                        let now = now_of(self.start).as_nanos();
                        for (_, h) in self.unreported.iter_mut() {
                            h.sent_ns.get_or_insert(now);
                        }
                    }
                    let k = k.max(1).min(bounds.len());
                    let sent = bounds[k - 1].1;
                    self.stats.datagrams_sent += sent as u64;
                    self.stats.send_batches += 1;
                    self.stats.gso_trains +=
                        bounds[..k].iter().filter(|(a, b)| b - a > 1).count() as u64;
                    done += sent;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    drop(trains);
                    if self.socks.socks[sock].sock.writable().await.is_err() {
                        self.stats.send_errors += 1;
                        done = run_end;
                    }
                }
                Err(e) if gso && bounds[0].1 - bounds[0].0 > 1 && udp::is_gso_refusal(&e) => {
                    // The kernel or device cannot segment: one datagram
                    // per message from now on.
                    tracing::debug!("UDP GSO refused ({e}); sending without it");
                    drop(trains);
                    self.socks.socks[sock].batch.gso = false;
                    self.stats.gso_fallbacks += 1;
                }
                Err(e) => {
                    // Unreachable network, address gone, ...: the first
                    // train is lost (the engine's timers deal with it);
                    // the rest go on.
                    let lost = bounds[0].1;
                    self.stats.send_errors += lost as u64;
                    tracing::debug!("send to {} failed: {e}", trains[0].to);
                    done += lost;
                    drop(trains);
                    self.take_mtu_errors(sock);
                }
            }
        }
        self.txq.clear();
    }

    /// The UDP port a packet of association `assoc` to `dest` goes to: the
    /// one learned from that address, else the association's latest (or
    /// the one given to `connect`), else the configured default.
    fn udp_port_for(&self, assoc: Option<AssocId>, dest: IpAddr) -> u16 {
        let Some(id) = assoc else {
            return self.cfg.remote_udp_port;
        };
        self.ports
            .get(id, dest)
            .or_else(|| self.assocs.get(&id).map(|a| a.udp_port))
            .unwrap_or(self.cfg.remote_udp_port)
    }

    fn new_assoc(&mut self, id: AssocId, udp_port: u16, peer_port: u16) -> &mut Assoc {
        let (tx, rx) = mpsc::channel(self.cfg.event_queue.max(1));
        let limit = self
            .cfg
            .send_credit
            .clamp(1, tokio::sync::Semaphore::MAX_PERMITS);
        let shared = std::sync::Arc::new(SendShared {
            credit: tokio::sync::Semaphore::new(limit),
            limit,
            error: std::sync::Mutex::new(None),
            failed: std::sync::atomic::AtomicBool::new(false),
            released: std::sync::atomic::AtomicBool::new(false),
        });
        let session = self.next_session;
        self.next_session += 1;
        self.assocs.entry(id).or_insert(Assoc {
            session,
            release_deadline: None,
            shared,
            events: tx,
            events_rx: Some(rx),
            connect_reply: None,
            connect_peer: None,
            sends: VecDeque::new(),
            recv: None,
            stash: Vec::new(),
            shutdown_replies: Vec::new(),
            shutdown_wanted: false,
            shutdown_started: false,
            closed: None,
            connected: false,
            udp_port,
            mobility: None,
            peer_port,
        })
    }

    fn parts(&mut self, id: AssocId) -> Option<AssocParts> {
        let peer_addrs = self
            .ep
            .association(id)
            .map(|a| a.paths().iter().map(|p| p.remote).collect())
            .unwrap_or_default();
        let a = self.assocs.get_mut(&id)?;
        Some(AssocParts {
            id,
            session: a.session,
            shared: a.shared.clone(),
            events: a.events_rx.take()?,
            peer_addrs,
            peer_port: a.peer_port,
        })
    }

    /// A passively opened association waits for `accept` (or is aborted
    /// when `accept_queue` associations already wait).
    fn admit(&mut self, id: AssocId) {
        if self.accept_queue.len() >= self.cfg.accept_queue {
            if let Some(x) = self.ep.association_mut(id) {
                x.abort(None);
            }
            self.stats.accept_overflows += 1;
        } else {
            self.accept_queue.push_back(id);
        }
    }

    fn event(&mut self, now: Time, id: AssocId, ev: Event) {
        self.busy.insert(id);
        match &ev {
            Event::Readable | Event::Writable | Event::SendFailed { .. } => {}
            Event::Closed { reason } => {
                tracing::info!("association {id:?} ended: {}", describe_close(reason))
            }
            _ => tracing::debug!("association {id:?}: {ev:?}"),
        }
        if matches!(ev, Event::Closed { .. }) {
            self.ended.insert(id);
        }
        if !self.assocs.contains_key(&id) {
            // A passively opened association.
            let (udp, peer_port) = match self.ep.association(id) {
                Some(x) => (
                    x.primary()
                        .and_then(|p| self.ports.get(id, p))
                        .unwrap_or(self.cfg.remote_udp_port),
                    x.peer_port(),
                ),
                None => (self.cfg.remote_udp_port, 0),
            };
            self.new_assoc(id, udp, peer_port);
            if matches!(ev, Event::Connected) {
                self.admit(id);
            }
        }
        match &ev {
            Event::Connected => self.established(now, id),
            Event::Restarted => self.restarted(now, id),
            Event::Closed { reason } => {
                if let Some(a) = self.assocs.get_mut(&id) {
                    a.closed = Some(reason.clone());
                    if let Some(r) = a.connect_reply.take() {
                        let err = match (reason, a.connect_peer) {
                            (CloseReason::InitFailed, Some((peer, port))) => {
                                NetError::Unreachable {
                                    peer: SocketAddr::new(peer, a.udp_port),
                                    port,
                                    udp_port: a.udp_port,
                                    secs: now.as_secs_f64(),
                                }
                            }
                            (CloseReason::Refused { .. } | CloseReason::PeerAbort { .. }, _) => {
                                NetError::Refused(describe_close(reason))
                            }
                            _ => NetError::Closed(describe_close(reason)),
                        };
                        let _ = r.send(Err(err));
                    }
                    for r in a.shutdown_replies.drain(..) {
                        let res = if *reason == CloseReason::Shutdown {
                            Ok(())
                        } else {
                            Err(NetError::Closed(describe_close(reason)))
                        };
                        let _ = r.send(res);
                    }
                }
            }
            _ => {}
        }
        // Address changes: each path leaves from the address on its subnet.
        if matches!(
            ev,
            Event::LocalAddressAdded { .. }
                | Event::LocalAddressRemoved { .. }
                | Event::PeerAddressAdded { .. }
                | Event::PeerAddressRemoved { .. }
        ) && let Some(x) = self.ep.association_mut(id)
        {
            pair_paths(x, &self.ifaces);
        }
        // The policy hears about association events too.
        if let Some(a) = self.assocs.get_mut(&id) {
            if let (Some(m), Some(x)) = (a.mobility.as_mut(), self.ep.association_mut(id)) {
                let hs = m.on_event(now, &ev, x, &self.ifaces);
                report_handovers(&mut self.stats, &mut self.unreported, &a.events, None, hs);
            }
            if !matches!(ev, Event::Readable | Event::Writable)
                && a.events.try_send(NetEvent::Assoc(ev)).is_err()
            {
                self.stats.events_dropped += 1;
            }
        }
    }
}
