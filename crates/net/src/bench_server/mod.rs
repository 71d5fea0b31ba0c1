//! `msctp bench server`: one listening msctp stack (what `msctp listen`
//! runs) with N clients, each its own association, from many loopback
//! source addresses and SCTP ports; some clients move to another address
//! (ASCONF) once set up. Measured in one run:
//! - msctp: handshakes per second (first INIT to the last association
//!   up), the server's resident memory per association (clients in a
//!   child process, so that only the server is counted), and the server
//!   loop's cost with N idle associations (CPU per second, calls into
//!   associations per datagram or timer event);
//! - kernel TCP's accept rate for the same N connections from the same
//!   source addresses;
//! - usrsctp ([`usrsctp`]): one usrsctp server process (Debian's
//!   libusrsctp, SCTP over UDP) taking the same N clients: handshakes per
//!   second, memory per association, idle CPU; or the largest number of
//!   associations it held, when fewer than N.
//!
//! The clients are an in-process driver of N `msctp_proto` endpoints over
//! one non-blocking UDP socket per source address ([`run_clients`]), the
//! same for the msctp and the usrsctp server.

mod clients;
mod tcp;
pub mod usrsctp;

use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::bench::cpu_time;
use crate::config::StackConfig;
use crate::error::NetError;
use crate::stack::Stack;
use clients::{Phase, spawn_clients};
pub use clients::{client_main, run_clients};
pub use tcp::tcp_accept;

/// The server's SCTP port.
const SERVER_PORT: u16 = 5001;
/// Client k uses SCTP port `CLIENT_PORT0 + k`.
const CLIENT_PORT0: u16 = 10_000;
const SERVER_ADDR: Ipv4Addr = Ipv4Addr::LOCALHOST;

/// What to measure.
#[derive(Debug, Clone)]
pub struct ServerBenchConfig {
    /// Clients (associations), at most 50 000.
    pub clients: usize,
    /// Loopback source addresses 127.10.a.1 (each in its own /24, so
    /// that the server's default caps per address and per /24 hold).
    pub addresses: usize,
    /// Handshakes in flight at once.
    pub window: usize,
    /// Seconds the N associations are held idle while the server's cost
    /// is measured.
    pub idle_secs: f64,
    /// Clients that move to another source address (ASCONF add, then
    /// delete of the old one) once all are set up.
    pub moving: usize,
    /// Contenders (`msctp`, `tcp`, `usrsctp`); empty: all.
    pub only: Vec<String>,
    /// Run the clients as `EXE bench server --clients-for PORT ...`, a
    /// child process (the CLI does), so that the server's memory is its
    /// own; `None`: a thread of this process.
    pub client_exe: Option<PathBuf>,
}

impl Default for ServerBenchConfig {
    fn default() -> Self {
        ServerBenchConfig {
            clients: 10_000,
            addresses: 256,
            window: 256,
            idle_secs: 10.0,
            moving: 100,
            only: Vec::new(),
            client_exe: None,
        }
    }
}

/// What the client driver saw (printed as JSON by a child process).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ClientReport {
    pub established: usize,
    pub failed: usize,
    /// First INIT to the last association up.
    pub setup_secs: f64,
    /// Moves completed (old address deleted).
    pub moved: usize,
    /// The first failure's reason.
    pub first_failure: Option<String>,
    /// Why the first move failed.
    pub move_failure: Option<String>,
}

/// The msctp side.
#[derive(Debug, Clone, Serialize)]
pub struct MsctpServer {
    pub clients: ClientReport,
    pub handshakes_per_s: f64,
    /// Associations the server accepted.
    pub accepted: usize,
    /// Server resident memory per association (None with in-process
    /// clients, whose memory would be counted too).
    pub rss_per_association: Option<f64>,
    /// Server CPU seconds per second with N idle associations.
    pub idle_cpu_per_s: Option<f64>,
    /// Datagrams the server received in the idle phase, per second.
    pub idle_datagrams_per_s: f64,
    /// Calls into associations per datagram received or sent in the
    /// idle phase (the server loop's work per event).
    pub idle_visits_per_datagram: f64,
    /// UDP datagrams the host dropped for a full receive buffer during
    /// the set-up ([`udp_receive_drops`]).
    pub setup_udp_drops: Option<u64>,
}

/// Kernel TCP's side.
#[derive(Debug, Clone, Serialize)]
pub struct TcpAccept {
    pub connections: usize,
    pub secs: f64,
    pub accepts_per_s: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ServerBenchReport {
    pub clients: usize,
    pub msctp: Option<MsctpServer>,
    pub tcp: Option<TcpAccept>,
    /// msctp handshakes per second / TCP accepts per second.
    pub ratio_tcp: Option<f64>,
    pub usrsctp: Option<usrsctp::UsrsctpServer>,
    /// Why usrsctp was not measured (no gcc or libusrsctp-dev).
    pub usrsctp_not_run: Option<String>,
    /// msctp handshakes per second / usrsctp's.
    pub ratio_usrsctp: Option<f64>,
    /// msctp server memory per association / usrsctp's.
    pub memory_ratio_usrsctp: Option<f64>,
}

impl std::fmt::Display for ServerBenchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "server with {} clients on loopback:", self.clients)?;
        if let Some(m) = &self.msctp {
            let c = &m.clients;
            writeln!(
                f,
                "  msctp: {} up, {} failed in {:.2} s: {:.0} handshakes/s; {} moved",
                c.established, c.failed, c.setup_secs, m.handshakes_per_s, c.moved
            )?;
            if let Some(r) = m.rss_per_association {
                writeln!(
                    f,
                    "  msctp server memory: {:.1} kB RSS per association",
                    r / 1e3
                )?;
            }
            let cpu = m
                .idle_cpu_per_s
                .map_or("CPU not measured (clients in-process)".into(), |c| {
                    format!("{:.2} % of a CPU", c * 100.0)
                });
            writeln!(
                f,
                "  msctp idle: {cpu}, {:.0} datagrams/s received, {:.2} association visits per datagram",
                m.idle_datagrams_per_s, m.idle_visits_per_datagram
            )?;
            if let Some(d) = m.setup_udp_drops {
                writeln!(
                    f,
                    "  msctp set-up: {d} UDP datagrams dropped for a full receive buffer"
                )?;
            }
            for e in [&c.first_failure, &c.move_failure].into_iter().flatten() {
                writeln!(f, "  first failure: {e}")?;
            }
        }
        if let Some(t) = &self.tcp {
            writeln!(
                f,
                "  kernel TCP: {} accepted in {:.2} s: {:.0} accepts/s",
                t.connections, t.secs, t.accepts_per_s
            )?;
        }
        if let Some(r) = self.ratio_tcp {
            writeln!(f, "  msctp handshakes / TCP accepts = {r:.3}")?;
        }
        if let Some(u) = &self.usrsctp {
            u.fmt_against(self, f)?;
        }
        if let Some(why) = &self.usrsctp_not_run {
            writeln!(f, "  usrsctp: not run: {why}")?;
        }
        Ok(())
    }
}

fn client_addr(a: usize) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 10, (a % 256) as u8, 1 + (a / 256) as u8))
}

/// The index of a client source address ([`client_addr`]).
fn addr_index(addr: IpAddr) -> Option<usize> {
    match addr {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            (o[0] == 127 && o[1] == 10 && o[3] >= 1)
                .then(|| usize::from(o[2]) + 256 * usize::from(o[3] - 1))
        }
        IpAddr::V6(_) => None,
    }
}

/// The resident memory of process `pid` ("self": this one), bytes.
fn rss_of(pid: &str) -> Option<f64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024.0)
}

/// The host's count of UDP datagrams dropped for a full socket receive
/// buffer (`RcvbufErrors` in /proc/net/snmp): a server that cannot keep
/// up loses INITs there, and each costs its client a 1 s retransmission
/// (RFC 9260 section 15, RTO.Initial).
fn udp_receive_drops() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/net/snmp").ok()?;
    let mut udp = s.lines().filter(|l| l.starts_with("Udp:"));
    let (names, values) = (udp.next()?, udp.next()?);
    let k = names.split_whitespace().position(|n| n == "RcvbufErrors")?;
    values.split_whitespace().nth(k)?.parse().ok()
}

/// The server's configuration: `msctp listen`'s defaults (RFC 9260
/// timers), room for N associations, loopback only.
fn server_config(n: usize) -> StackConfig {
    let mut c = StackConfig::new(SERVER_PORT);
    c.udp_port = 0;
    c.local_addrs = vec![IpAddr::V4(SERVER_ADDR)];
    c.endpoint.listen = true;
    c.endpoint.max_associations = n + 64;
    c.accept_queue = 4096;
    c
}

/// Runs the benchmark.
pub fn run(cfg: &ServerBenchConfig) -> Result<ServerBenchReport, NetError> {
    if cfg.clients == 0 || cfg.clients > 50_000 || cfg.addresses == 0 || cfg.addresses > 4096 {
        return Err(NetError::Closed(
            "clients must lie between 1 and 50 000, addresses between 1 and 4 096".into(),
        ));
    }
    let runs = |n: &str| cfg.only.is_empty() || cfg.only.iter().any(|o| o == n);
    let msctp = if runs("msctp") {
        Some(msctp_server(cfg)?)
    } else {
        None
    };
    let tcp = if runs("tcp") {
        Some(tcp_accept(cfg.clients, cfg.addresses)?)
    } else {
        None
    };
    let (usrsctp, usrsctp_not_run) = if runs("usrsctp") {
        match usrsctp::run(cfg) {
            Ok(u) => (Some(u), None),
            Err(e) => (None, Some(e)),
        }
    } else {
        (None, None)
    };
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    };
    let hs = msctp.as_ref().map(|m| m.handshakes_per_s);
    let mem = msctp.as_ref().and_then(|m| m.rss_per_association);
    Ok(ServerBenchReport {
        clients: cfg.clients,
        ratio_tcp: ratio(hs, tcp.as_ref().map(|t| t.accepts_per_s)),
        ratio_usrsctp: ratio(hs, usrsctp.as_ref().map(|u| u.handshakes_per_s)),
        memory_ratio_usrsctp: ratio(mem, usrsctp.as_ref().and_then(|u| u.rss_per_association)),
        msctp,
        tcp,
        usrsctp,
        usrsctp_not_run,
    })
}

fn msctp_server(cfg: &ServerBenchConfig) -> Result<MsctpServer, NetError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let server = Stack::bind(server_config(cfg.clients)).await?;
        let udp = server.udp_port();
        let accepted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let rss0 = rss_of("self");
        let drops0 = udp_receive_drops();
        let mut drops = None;
        // As `msctp listen`: accept, and read each association until it ends.
        let acceptor = {
            let (server, accepted) = (server.clone(), accepted.clone());
            tokio::spawn(async move {
                while let Ok(mut a) = server.accept().await {
                    accepted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    tokio::spawn(async move { while let Ok(Some(_)) = a.recv().await {} });
                }
            })
        };
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Phase>();
        let clients = spawn_clients(cfg, udp, tx)?;
        // Set-up done: the server's memory, then the idle phase.
        let mut rss_per = None;
        let mut idle = None;
        let mut report = None;
        while let Some(p) = rx.recv().await {
            match p {
                Phase::SetUp(n) => {
                    drops = udp_receive_drops()
                        .zip(drops0)
                        .map(|(b, a)| b.saturating_sub(a));
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    if let (Some(a), Some(b), true) =
                        (rss0, rss_of("self"), cfg.client_exe.is_some())
                    {
                        rss_per = Some((b - a) / n.max(1) as f64);
                    }
                    let s = server.stats().await?;
                    idle = Some((Instant::now(), cpu_time(false), s));
                }
                Phase::Done(r) => {
                    report = Some(r);
                    break;
                }
            }
        }
        let report = report.ok_or_else(|| NetError::Closed("the clients stopped".into()))?;
        let s1 = server.stats().await?;
        let (cpu, dgrams, visits) = match idle {
            Some((t0, c0, s0)) => {
                let secs = t0.elapsed().as_secs_f64().max(1e-9);
                let cpu = match (c0, cpu_time(false)) {
                    (Some(a), Some(b)) if cfg.client_exe.is_some() => Some((b - a) / secs),
                    _ => None,
                };
                let d = (s1.datagrams_received + s1.datagrams_sent)
                    - (s0.datagrams_received + s0.datagrams_sent);
                let v = s1.endpoint.association_visits - s0.endpoint.association_visits;
                (
                    cpu,
                    s1.datagrams_received.saturating_sub(s0.datagrams_received) as f64 / secs,
                    v as f64 / d.max(1) as f64,
                )
            }
            None => (None, 0.0, 0.0),
        };
        clients.join()?;
        acceptor.abort();
        Ok(MsctpServer {
            handshakes_per_s: report.established as f64 / report.setup_secs.max(1e-9),
            accepted: accepted.load(std::sync::atomic::Ordering::Relaxed),
            clients: report,
            rss_per_association: rss_per,
            idle_cpu_per_s: cpu,
            idle_datagrams_per_s: dgrams,
            idle_visits_per_datagram: visits,
            setup_udp_drops: drops,
        })
    })
}
