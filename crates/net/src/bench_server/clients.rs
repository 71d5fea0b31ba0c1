//! The client side of `msctp bench server`: N `msctp_proto` endpoints,
//! one association each, driven over one non-blocking UDP socket per
//! loopback source address ([`run_clients`]), in a thread of the server's
//! process or a child process ([`client_main`]); some move to another
//! address (ADD-IP, RFC 5061) once all are up.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::ErrorKind;
use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bytes::Bytes;
use msctp_proto::{Endpoint, EndpointConfig, Event, Time};

use super::{
    CLIENT_PORT0, ClientReport, SERVER_ADDR, SERVER_PORT, ServerBenchConfig, addr_index,
    client_addr,
};
use crate::error::NetError;

/// What the clients tell the server side.
pub(super) enum Phase {
    /// N associations are up (the idle phase starts).
    SetUp(usize),
    Done(ClientReport),
}

/// The clients, in a thread or a child process.
pub(super) enum Clients {
    Thread(std::thread::JoinHandle<()>),
    Child(std::process::Child),
}

impl Clients {
    pub(super) fn join(self) -> Result<(), NetError> {
        match self {
            Clients::Thread(h) => h.join().map_err(|_| NetError::Stopped),
            Clients::Child(mut c) => c.wait().map(|_| ()).map_err(NetError::from),
        }
    }
}

pub(super) fn spawn_clients(
    cfg: &ServerBenchConfig,
    udp: u16,
    tx: tokio::sync::mpsc::UnboundedSender<Phase>,
) -> Result<Clients, NetError> {
    let server = SocketAddr::new(IpAddr::V4(SERVER_ADDR), udp);
    match &cfg.client_exe {
        None => {
            let cfg = cfg.clone();
            let h = std::thread::spawn(move || {
                let tx2 = tx.clone();
                let r = run_clients(&cfg, server, &mut |n| {
                    let _ = tx2.send(Phase::SetUp(n));
                });
                let r = r.unwrap_or_else(|e| ClientReport {
                    first_failure: Some(e.to_string()),
                    ..Default::default()
                });
                let _ = tx.send(Phase::Done(r));
            });
            Ok(Clients::Thread(h))
        }
        Some(exe) => {
            let mut child = Command::new(exe)
                .args(["bench", "server", "--clients-for"])
                .arg(udp.to_string())
                .args(["--clients", &cfg.clients.to_string()])
                .args(["--addresses", &cfg.addresses.to_string()])
                .args(["--window", &cfg.window.to_string()])
                .args(["--idle", &cfg.idle_secs.to_string()])
                .args(["--moving", &cfg.moving.to_string()])
                .stdout(Stdio::piped())
                .spawn()?;
            let out = child.stdout.take().ok_or(NetError::Stopped)?;
            std::thread::spawn(move || {
                use std::io::BufRead;
                for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
                    if let Some(n) = line.strip_prefix("set-up ") {
                        let _ = tx.send(Phase::SetUp(n.trim().parse().unwrap_or(0)));
                    } else if let Ok(r) = serde_json::from_str::<ClientReport>(&line) {
                        let _ = tx.send(Phase::Done(r));
                    }
                }
            });
            Ok(Clients::Child(child))
        }
    }
}

/// The client side of a child process: runs [`run_clients`] against the
/// server's UDP port on 127.0.0.1 and prints "set-up N", then the report
/// as JSON.
pub fn client_main(cfg: &ServerBenchConfig, server_udp: u16) -> Result<(), NetError> {
    let server = SocketAddr::new(IpAddr::V4(SERVER_ADDR), server_udp);
    let r = run_clients(cfg, server, &mut |n| println!("set-up {n}"))?;
    println!("{}", serde_json::to_string(&r).unwrap_or_default());
    Ok(())
}

/// One client: its endpoint (one association) and its home socket.
struct Client {
    ep: Endpoint,
    sock: usize,
    armed: Option<Time>,
    up: bool,
}

/// The client driver: `cfg.clients` endpoints, one association each to
/// `server`, at most `cfg.window` handshakes in flight; `set_up` is
/// called once all are up (or failed); then, while `cfg.moving` clients
/// move, all are held (HEARTBEATs answered) for `cfg.idle_secs` and
/// aborted.
pub fn run_clients(
    cfg: &ServerBenchConfig,
    server: SocketAddr,
    set_up: &mut dyn FnMut(usize),
) -> Result<ClientReport, NetError> {
    let socks: Vec<UdpSocket> = (0..cfg.addresses)
        .map(|a| {
            let s = UdpSocket::bind((client_addr(a), 0))?;
            s.set_nonblocking(true)?;
            Ok(s)
        })
        .collect::<Result<_, std::io::Error>>()?;
    let start = Instant::now();
    let now = || Time::from_nanos(start.elapsed().as_nanos() as u64);
    let mut d = Driver {
        socks,
        server,
        clients: Vec::with_capacity(cfg.clients),
        timers: BinaryHeap::new(),
        report: ClientReport::default(),
        moving: 0,
    };
    let mut buf = vec![0u8; 65_536];
    let mut setup_end: Option<Instant> = None;
    let mut idle_end = None;
    loop {
        let t = now();
        let mut work = false;
        // New handshakes while the window has room.
        while d.clients.len() < cfg.clients
            && d.clients.len() - d.report.established - d.report.failed < cfg.window
        {
            d.start(t)?;
            work = true;
        }
        work |= d.receive(t, &mut buf);
        work |= d.timers(t);
        if setup_end.is_none() && d.report.established + d.report.failed == cfg.clients {
            d.report.setup_secs = start.elapsed().as_secs_f64();
            setup_end = Some(Instant::now());
            d.start_moves(cfg.moving, t);
        }
        // The idle phase starts once the moves are done (or after 2 s).
        if let Some(e) = setup_end
            && idle_end.is_none()
            && (d.report.moved >= d.moving || e.elapsed() >= Duration::from_secs(2))
        {
            set_up(d.report.established);
            idle_end = Some(Instant::now() + Duration::from_secs_f64(cfg.idle_secs));
        }
        if idle_end.is_some_and(|e| Instant::now() >= e) {
            break;
        }
        if !work {
            std::thread::sleep(Duration::from_micros(200));
        }
    }
    d.abort_all(now());
    Ok(d.report)
}

struct Driver {
    socks: Vec<UdpSocket>,
    server: SocketAddr,
    clients: Vec<Client>,
    timers: BinaryHeap<Reverse<(Time, usize)>>,
    report: ClientReport,
    moving: usize,
}

impl Driver {
    fn start(&mut self, now: Time) -> Result<(), NetError> {
        let k = self.clients.len();
        let sock = k % self.socks.len();
        let mut ep = Endpoint::new(EndpointConfig::new(CLIENT_PORT0 + k as u16), {
            let mut s = [7u8; 32];
            s[..8].copy_from_slice(&(k as u64).to_le_bytes());
            s
        })?;
        ep.set_local_addresses(&[client_addr(sock)]);
        ep.connect(now, &[self.server.ip()], SERVER_PORT)?;
        self.clients.push(Client {
            ep,
            sock,
            armed: None,
            up: false,
        });
        self.flush(k, now);
        Ok(())
    }

    /// Reads every socket until empty.
    fn receive(&mut self, now: Time, buf: &mut [u8]) -> bool {
        let mut work = false;
        for a in 0..self.socks.len() {
            loop {
                let (n, from) = match self.socks[a].recv_from(buf) {
                    Ok(x) => x,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(_) => break,
                };
                work = true;
                if n < 12 {
                    continue;
                }
                let port = u16::from_be_bytes([buf[2], buf[3]]);
                let Some(k) = port.checked_sub(CLIENT_PORT0).map(usize::from) else {
                    continue;
                };
                let local = self.socks[a]
                    .local_addr()
                    .map(|s| s.ip())
                    .unwrap_or(from.ip());
                if let Some(c) = self.clients.get_mut(k) {
                    c.ep.handle_datagram(now, from.ip(), local, Bytes::copy_from_slice(&buf[..n]));
                    self.flush(k, now);
                }
            }
        }
        work
    }

    fn timers(&mut self, now: Time) -> bool {
        let mut work = false;
        while let Some(Reverse((t, k))) = self.timers.peek().copied() {
            if t > now {
                break;
            }
            self.timers.pop();
            let c = &mut self.clients[k];
            if c.armed != Some(t) {
                continue;
            }
            c.armed = None;
            c.ep.handle_timeout(now);
            self.flush(k, now);
            work = true;
        }
        work
    }

    /// Sends what client `k` has to send, reads its events, re-arms its
    /// timer.
    fn flush(&mut self, k: usize, now: Time) {
        self.send(k, now);
        let c = &mut self.clients[k];
        while let Some((id, e)) = c.ep.poll_event() {
            match e {
                Event::Connected => {
                    c.up = true;
                    self.report.established += 1;
                }
                Event::Closed { reason } if !c.up => {
                    self.report.failed += 1;
                    self.report
                        .first_failure
                        .get_or_insert_with(|| crate::error::describe_close(&reason));
                }
                Event::LocalAddressAdded { addr } => {
                    // Moved: packets leave from the new address, and the
                    // old one goes (an ASCONF may not delete its own
                    // source, RFC 5061 section 5.2).
                    let old = client_addr(c.sock);
                    if let Some(a) = c.ep.association_mut(id) {
                        let r = a
                            .set_local_primary(Some(addr))
                            .and_then(|()| a.remove_local_address(old));
                        if let Err(e) = r {
                            self.report
                                .move_failure
                                .get_or_insert_with(|| format!("cannot delete: {e}"));
                        }
                    }
                }
                Event::LocalAddressRemoved { .. } => self.report.moved += 1,
                Event::LocalAddressAddFailed { causes, .. }
                | Event::LocalAddressRemoveFailed { causes, .. } => {
                    self.report
                        .move_failure
                        .get_or_insert_with(|| format!("refused: {causes:?}"));
                }
                _ => {}
            }
        }
        // Sends caused by the events (the ASCONF deleting the old address).
        self.send(k, now);
        let c = &mut self.clients[k];
        let next = c.ep.poll_timeout();
        if next != c.armed {
            c.armed = next;
            if let Some(t) = next {
                self.timers.push(Reverse((t, k)));
            }
        }
    }

    /// Sends client `k`'s packets, each from the socket of its source
    /// address.
    fn send(&mut self, k: usize, now: Time) {
        let c = &mut self.clients[k];
        while let Some(t) = c.ep.poll_transmit(now) {
            let sock = t
                .source
                .and_then(addr_index)
                .filter(|a| *a < self.socks.len())
                .unwrap_or(c.sock);
            let _ = self.socks[sock].send_to(t.packet(), self.server);
        }
    }

    /// The first `n` clients that are up add the next address and, once
    /// the server acknowledges it, delete their old one.
    fn start_moves(&mut self, n: usize, now: Time) {
        let addrs = self.socks.len();
        for k in 0..self.clients.len() {
            if self.moving >= n || addrs < 2 {
                break;
            }
            let c = &mut self.clients[k];
            if !c.up {
                continue;
            }
            let new = (c.sock + 1) % addrs;
            let ids = c.ep.associations();
            let Some(a) = ids.first().and_then(|id| c.ep.association_mut(*id)) else {
                continue;
            };
            match a.add_local_address(client_addr(new)) {
                Ok(()) => {
                    self.moving += 1;
                    self.flush(k, now);
                }
                Err(e) => {
                    self.report
                        .move_failure
                        .get_or_insert_with(|| format!("cannot add: {e}"));
                }
            }
        }
    }

    fn abort_all(&mut self, now: Time) {
        for k in 0..self.clients.len() {
            let c = &mut self.clients[k];
            for id in c.ep.associations() {
                if let Some(a) = c.ep.association_mut(id) {
                    a.abort(None);
                }
            }
            self.flush(k, now);
        }
    }
}
