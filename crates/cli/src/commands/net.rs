//! `msctp listen | send | recv | perf`: mSCTP over UDP (RFC 6951) on real
//! networks, with `msctp-net`.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use msctp_net::error::parse_ip;
use msctp_net::perf::{self, PerfConfig, PerfLine};
use msctp_net::transfer;
use msctp_net::{NetEvent, PolicyKind, SCTP_UDP_PORT, Stack, StackConfig};
use msctp_proto::policy::AisleParams;
use msctp_proto::{CmtConfig, CmtRtxPolicy, CmtScheduler};

/// Options every network command shares.
#[derive(clap::Args, Debug, Clone)]
pub struct NetOpts {
    /// Local address to use (repeat for a multi-homed host); default: every
    /// address of the host's interfaces except loopback.
    #[arg(long = "bind", short = 'b', value_name = "ADDR")]
    bind: Vec<String>,
    /// Local SCTP port.
    #[arg(long, default_value_t = 5001)]
    port: u16,
    /// Local UDP encapsulation port (RFC 6951).
    #[arg(long, default_value_t = SCTP_UDP_PORT)]
    udp_port: u16,
    /// The peer's UDP encapsulation port (until learned from its packets).
    #[arg(long, default_value_t = SCTP_UDP_PORT)]
    remote_udp_port: u16,
    /// Follow the host's interfaces (netlink): add new addresses, delete
    /// lost ones, let the policy move data when links go up or down.
    #[arg(long)]
    monitor: bool,
    /// Interface to follow (repeat); default: all but loopback.
    #[arg(long = "iface", value_name = "NAME")]
    ifaces: Vec<String>,
    /// Handover policy: failover-only, newest-address, fastest-first or
    /// aisle (moves data off a congested path, from the path estimators;
    /// runs without --monitor too).
    #[arg(long, default_value = "fastest-first")]
    policy: String,
    /// AISLE: theta, B2 must exceed theta x B1 when B2 is fresh.
    #[arg(long, default_value_t = 1.1, value_name = "THETA")]
    aisle_theta: f64,
    /// AISLE: hold-down Th after a swap, seconds.
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS")]
    aisle_hold_down: f64,
    /// AISLE: freshness Td of an available-bandwidth estimate, seconds.
    #[arg(long, default_value_t = 120.0, value_name = "SECONDS")]
    aisle_freshness: f64,
    /// AISLE: seed of its random draws (default: random).
    #[arg(long, value_name = "N")]
    aisle_seed: Option<u64>,
    /// Turn the path estimators off (no capacity probes, no available
    /// bandwidth; AISLE then never swaps).
    #[arg(long)]
    no_estimators: bool,
    /// Window limit from the path estimates: each path's window at most
    /// its estimated rate x (its smallest RTT + MS milliseconds), and the
    /// path data moves to starts there (docs/DESIGN.md); keeps about MS
    /// queued at the bottleneck instead of filling its buffer. Off by
    /// default.
    #[arg(long, value_name = "MS")]
    window_limit: Option<u64>,
    /// Concurrent multipath transfer: new data over every path of a
    /// multi-homed peer at once. A receiver given --cmt acknowledges as
    /// CMT's delayed-ack algorithm says (fewer SACKs under reordering).
    #[arg(long)]
    cmt: bool,
    /// CMT scheduler: fastest-path-first (the next packet to the path
    /// where it arrives soonest, from the capacity estimates or cwnd/SRTT)
    /// or round-robin.
    #[arg(long, value_name = "NAME")]
    cmt_scheduler: Option<String>,
    /// CMT retransmission destination: cwnd (RTX-CWND, the path with the
    /// largest congestion window; the default) or ssthresh (RTX-SSTHRESH,
    /// the largest slow-start threshold).
    #[arg(long, value_name = "POLICY")]
    cmt_rtx: Option<String>,
    /// Nominal rate of an interface for fastest-first, NAME=BITS_PER_S
    /// (e.g. wlan0=54000000; repeat).
    #[arg(long = "rate", value_name = "NAME=BPS")]
    rates: Vec<String>,
    /// Timers for small-RTT networks (RTO.Min 20 ms, SACK delay 4 ms,
    /// heartbeat 1 s, 4 MB windows, Max.Burst 4) instead of the RFC 9260
    /// defaults.
    #[arg(long)]
    lan: bool,
    /// Quick failover, SCTP-PF (RFC 7829): a path is "potentially failed"
    /// after more than N consecutive timeouts and new data moves to
    /// another path at once (RFC 7829 recommends 0); without it data
    /// moves only after Path.Max.Retrans + 1 timeouts.
    #[arg(long, value_name = "N")]
    pf_max_retrans: Option<u32>,
    /// Primary path switchover (RFC 7829): after more than N timeouts on
    /// the primary, the path data moved to becomes the primary for good
    /// (no return when the old primary recovers). At least
    /// --pf-max-retrans.
    #[arg(long, value_name = "N")]
    primary_switchover: Option<u32>,
    /// Machine-readable output: one JSON object per line.
    #[arg(long)]
    json: bool,
    /// Seconds to wait for a peer to answer before declaring it
    /// unreachable.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    connect_timeout: f64,
    /// Abort an association with no user data either way for this long
    /// (HEARTBEATs do not count; RFC 6458's SCTP_AUTOCLOSE); 0 turns it
    /// off.
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0)]
    idle_timeout: f64,
    /// Impair what this host receives, in user space (tests without
    /// netem): e.g. loss=0.01,dup=0.005,reorder=0.01,delay=20ms,seed=7.
    #[arg(long, value_name = "SPEC")]
    impair: Option<String>,
    /// No path MTU discovery: every path uses the fixed path MTU. By
    /// default each path's MTU is discovered (RFC 8899 section 6.2:
    /// probes from 1200 bytes up, ICMP Packet Too Big as a validated
    /// hint), except on loopback.
    #[arg(long)]
    no_pmtud: bool,
}

impl NetOpts {
    pub(crate) fn config(&self, listen: bool) -> anyhow::Result<StackConfig> {
        let mut c = StackConfig::new(self.port);
        if self.lan {
            c = c.tuned_for_lan();
        }
        if !(self.connect_timeout > 0.0 && self.connect_timeout <= 3600.0) {
            bail!("--connect-timeout must lie between 0 and 3600 seconds");
        }
        c.connect_timeout = Duration::from_secs_f64(self.connect_timeout);
        if self.no_pmtud {
            c.endpoint.association.pmtud.enabled = false;
        }
        if !(0.0..=1e6).contains(&self.idle_timeout) {
            bail!("--idle-timeout must lie between 0 (off) and 1000000 seconds");
        }
        c.endpoint.idle_timeout =
            (self.idle_timeout > 0.0).then(|| Duration::from_secs_f64(self.idle_timeout));
        if let Some(spec) = &self.impair {
            c.impair = Some(
                spec.parse()
                    .map_err(anyhow::Error::msg)
                    .context("--impair")?,
            );
        }
        c.udp_port = self.udp_port;
        c.remote_udp_port = self.remote_udp_port;
        c.endpoint.listen = listen;
        c.local_addrs = self
            .bind
            .iter()
            .map(|b| parse_ip(b))
            .collect::<Result<_, _>>()?;
        c.monitor = self.monitor;
        c.interfaces = self.ifaces.clone();
        c.policy = match self.policy.as_str() {
            "failover-only" => PolicyKind::FailoverOnly,
            "newest-address" => PolicyKind::NewestAddress,
            "fastest-first" => {
                let mut rates = BTreeMap::new();
                for r in &self.rates {
                    let (name, bps) = r
                        .split_once('=')
                        .with_context(|| format!("--rate {r:?}: expected NAME=BITS_PER_S"))?;
                    let bps: u64 = bps
                        .parse()
                        .with_context(|| format!("--rate {r:?}: bad rate"))?;
                    rates.insert(name.to_string(), bps);
                }
                PolicyKind::FastestFirst { rates }
            }
            "aisle" => {
                let secs = |name: &str, v: f64| -> anyhow::Result<Duration> {
                    Duration::try_from_secs_f64(v)
                        .map_err(|_| anyhow::anyhow!("--{name} {v}: expected seconds >= 0"))
                };
                if !self.aisle_theta.is_finite() || self.aisle_theta <= 0.0 {
                    bail!(
                        "--aisle-theta {}: expected a positive number",
                        self.aisle_theta
                    );
                }
                PolicyKind::Aisle {
                    params: AisleParams {
                        theta: self.aisle_theta,
                        hold_down: secs("aisle-hold-down", self.aisle_hold_down)?,
                        freshness: secs("aisle-freshness", self.aisle_freshness)?,
                        ..AisleParams::default()
                    },
                    seed: self.aisle_seed,
                }
            }
            other => {
                bail!(
                    "unknown policy {other:?} (failover-only, newest-address, fastest-first, aisle)"
                )
            }
        };
        c.endpoint.association.estimators.enabled = !self.no_estimators;
        if let Some(ms) = self.window_limit {
            if self.no_estimators {
                bail!("--window-limit needs the path estimators (drop --no-estimators)");
            }
            let e = &mut c.endpoint.association.estimators;
            e.window_limit = Some(std::time::Duration::from_millis(ms));
            e.bandwidth_aware_start = true;
        }
        c.endpoint.association.cmt = self.cmt_config()?;
        c.endpoint.association.pf_max_retrans = self.pf_max_retrans;
        c.endpoint.association.primary_switchover_max_retrans = self.primary_switchover;
        c.endpoint.association.validate().map_err(|e| {
            anyhow::anyhow!("--pf-max-retrans / --primary-switchover / --window-limit: {e}")
        })?;
        Ok(c)
    }

    fn cmt_config(&self) -> anyhow::Result<CmtConfig> {
        if !self.cmt && (self.cmt_scheduler.is_some() || self.cmt_rtx.is_some()) {
            bail!("--cmt-scheduler and --cmt-rtx need --cmt");
        }
        let scheduler = match self.cmt_scheduler.as_deref() {
            None | Some("fastest-path-first") => CmtScheduler::FastestPathFirst,
            Some("round-robin") => CmtScheduler::RoundRobin,
            Some(other) => {
                bail!("unknown CMT scheduler {other:?} (fastest-path-first, round-robin)")
            }
        };
        let rtx_policy = match self.cmt_rtx.as_deref() {
            None | Some("cwnd") => CmtRtxPolicy::Cwnd,
            Some("ssthresh") => CmtRtxPolicy::Ssthresh,
            Some(other) => bail!("unknown CMT retransmission policy {other:?} (cwnd, ssthresh)"),
        };
        Ok(CmtConfig {
            enabled: self.cmt,
            scheduler,
            rtx_policy,
            ..CmtConfig::default()
        })
    }

    fn print(&self, line: &impl serde::Serialize, text: impl std::fmt::Display) {
        if self.json {
            match serde_json::to_string(line) {
                Ok(j) => println!("{j}"),
                Err(e) => eprintln!("msctp: cannot encode output: {e}"),
            }
        } else {
            println!("{text}");
        }
    }
}

pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?)
}

/// Says which interfaces `--iface` names that do not exist yet (the
/// monitor will use them when they appear).
pub(crate) fn warn_missing_interfaces(s: &Stack) {
    for name in &s.info().missing_interfaces {
        eprintln!("msctp: no interface {name:?} yet; it will be followed when it appears");
    }
}

/// Starts an association, saying first what it tries (a peer that does
/// not answer takes `connect_timeout` to be declared unreachable).
async fn connect(
    s: &Stack,
    peers: &[IpAddr],
    port: u16,
    udp_port: u16,
) -> anyhow::Result<msctp_net::Association> {
    let list: Vec<String> = peers.iter().map(|p| p.to_string()).collect();
    eprintln!(
        "connecting to {} SCTP port {port} over UDP port {udp_port} (giving up after {:.0} s)",
        list.join(", "),
        s.info().connect_timeout.as_secs_f64()
    );
    Ok(s.connect_via(peers, port, Some(udp_port)).await?)
}

/// Checks that received files can be written into `dir` before any
/// association is accepted.
fn check_writable_dir(dir: &std::path::Path) -> anyhow::Result<()> {
    let shown = dir.display();
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("-d {shown}: no such directory (create it first)")
        }
        Err(e) => bail!("-d {shown}: {e}"),
        Ok(m) if !m.is_dir() => bail!("-d {shown}: not a directory"),
        Ok(_) => {}
    }
    let probe = dir.join(format!(".msctp-recv-probe-{}", std::process::id()));
    std::fs::File::create(&probe)
        .with_context(|| format!("-d {shown}: cannot write files there"))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

pub(crate) fn peers(to: &[String]) -> anyhow::Result<Vec<IpAddr>> {
    if to.is_empty() {
        bail!("give the peer's address with --to ADDR (repeat for a multi-homed peer)");
    }
    Ok(to.iter().map(|t| parse_ip(t)).collect::<Result<_, _>>()?)
}

#[derive(clap::Args)]
pub struct ListenArgs {
    #[command(flatten)]
    net: NetOpts,
}

#[derive(clap::Args)]
pub struct SendArgs {
    /// The file to send.
    file: PathBuf,
    /// The receiver's addresses (repeat for a multi-homed receiver).
    #[arg(long = "to", value_name = "ADDR", required = true)]
    to: Vec<String>,
    /// The receiver's SCTP port.
    #[arg(long, default_value_t = 5001)]
    peer_port: u16,
    /// Message size in bytes.
    #[arg(long, default_value_t = 16384)]
    chunk: usize,
    #[command(flatten)]
    pr: PrOpts,
    #[command(flatten)]
    net: NetOpts,
}

/// Partial reliability of the messages sent (RFC 3758, RFC 7496), when
/// the peer supports PR-SCTP; without these options every message is
/// reliable.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct PrOpts {
    /// Timed reliability (RFC 3758): a message not acknowledged this many
    /// milliseconds after it was handed over is abandoned and skipped with
    /// FORWARD TSN.
    #[arg(long, value_name = "MS", conflicts_with = "max_retransmissions")]
    lifetime_ms: Option<u64>,
    /// Limited retransmissions (RFC 7496 section 3.1): each chunk of a
    /// message is retransmitted at most N times, then the message is
    /// abandoned (0: sent once, as UDP would).
    #[arg(long, value_name = "N")]
    max_retransmissions: Option<u32>,
}

impl PrOpts {
    fn options(&self) -> msctp_net::SendOptions {
        let policy = match (self.lifetime_ms, self.max_retransmissions) {
            (Some(ms), _) => msctp_net::PrPolicy::Lifetime(Duration::from_millis(ms)),
            (None, Some(n)) => msctp_net::PrPolicy::MaxRetransmissions(n),
            (None, None) => msctp_net::PrPolicy::Reliable,
        };
        msctp_net::SendOptions {
            policy,
            ..Default::default()
        }
    }
}

#[derive(clap::Args)]
pub struct RecvArgs {
    /// Directory to write received files into (named as the sender says,
    /// without any directory part).
    #[arg(long, short = 'd', default_value = ".")]
    dir: PathBuf,
    /// Stop after one file.
    #[arg(long)]
    once: bool,
    /// `--idle-timeout` (of the network options) also bounds how long a
    /// transfer waits for the sender's next message: a sender that
    /// vanished without a word (e.g. killed) is given up after it and the
    /// next sender is served.
    #[command(flatten)]
    net: NetOpts,
}

#[derive(clap::Args)]
pub struct PerfArgs {
    /// Run the receiving side.
    #[arg(long, short = 's', conflicts_with = "to")]
    server: bool,
    /// The server's addresses (client side).
    #[arg(long = "to", value_name = "ADDR")]
    to: Vec<String>,
    /// The server's SCTP port (client side).
    #[arg(long, default_value_t = 5001)]
    peer_port: u16,
    /// Seconds to send.
    #[arg(long, short = 't', default_value_t = 10.0)]
    time: f64,
    /// Message size in bytes.
    #[arg(long, short = 'l', default_value_t = 1400)]
    len: usize,
    /// Report interval in seconds.
    #[arg(long, short = 'i', default_value_t = 1.0)]
    interval: f64,
    /// Client: the messages' partial reliability.
    #[command(flatten)]
    pr: PrOpts,
    /// Client: serve the live viewer page (cwnd, flight, SRTT, throughput
    /// per path, handovers and path state changes as marks) on
    /// http://127.0.0.1:VIEW_PORT/, fed by server-sent events at every
    /// report interval (`-i 0.1` for a smooth view).
    #[arg(long, conflicts_with = "server")]
    view: bool,
    /// Port of the live viewer page (0: any free port, printed).
    #[arg(long, default_value_t = 0, requires = "view")]
    view_port: u16,
    #[command(flatten)]
    net: NetOpts,
}

/// `msctp listen`: accept associations, report them, discard their data.
pub fn listen(a: ListenArgs) -> anyhow::Result<ExitCode> {
    let cfg = a.net.config(true)?;
    runtime()?.block_on(async move {
        let s = Stack::bind(cfg).await?;
        warn_missing_interfaces(&s);
        let addrs = s.local_addresses().await?;
        eprintln!(
            "listening on SCTP port {} over UDP port {} at {:?}",
            s.info().port,
            s.udp_port(),
            addrs
        );
        loop {
            let mut assoc = s.accept().await?;
            let json = a.net.json;
            let peer = assoc.peer_addrs().to_vec();
            let port = assoc.peer_port();
            let opts = a.net.clone();
            opts.print(
                &serde_json::json!({"type": "accepted", "peer": peer, "port": port}),
                format!("association from {peer:?} port {port}"),
            );
            let mut events = assoc.take_events();
            tokio::spawn(async move {
                let mut bytes = 0u64;
                loop {
                    tokio::select! {
                        m = assoc.recv() => match m {
                            Ok(Some(m)) => bytes += m.data.len() as u64,
                            Ok(None) | Err(_) => break,
                        },
                        e = async { match events.as_mut() { Some(r) => r.recv().await, None => std::future::pending().await } } => {
                            match e {
                                Some(e) => {
                                    let text = format!("{peer:?}: {e:?}");
                                    if json {
                                        println!("{}", serde_json::json!({"type": "event", "peer": peer, "event": format!("{e:?}")}));
                                    } else {
                                        println!("{text}");
                                    }
                                }
                                None => events = None,
                            }
                        }
                    }
                }
                opts.print(
                    &serde_json::json!({"type": "closed", "peer": peer, "bytes": bytes}),
                    format!("association from {peer:?} ended after {bytes} bytes"),
                );
            });
        }
    })
}

/// `msctp send FILE --to ADDR...`
pub fn send(a: SendArgs) -> anyhow::Result<ExitCode> {
    let cfg = a.net.config(false)?;
    let peers = peers(&a.to)?;
    let name = a
        .file
        .file_name()
        .and_then(|n| n.to_str())
        .context("the file needs a name")?
        .to_string();
    runtime()?.block_on(async move {
        let f = tokio::fs::File::open(&a.file)
            .await
            .with_context(|| format!("cannot open {}", a.file.display()))?;
        let size = f.metadata().await?.len();
        let s = Stack::bind(cfg).await?;
        warn_missing_interfaces(&s);
        let mut assoc = connect(&s, &peers, a.peer_port, a.net.remote_udp_port).await?;
        let src = tokio::io::BufReader::new(f);
        let opts = a.pr.options();
        let r = transfer::send_file_with(&assoc, &name, size, src, a.chunk, opts).await?;
        while let Some(e) = assoc.try_event() {
            if let NetEvent::Handover(h) = e {
                a.net.print(&h, format!("handover: {h:?}"));
            }
        }
        let shares: Vec<String> = r
            .paths
            .iter()
            .filter(|p| p.bytes_acked > 0)
            .map(|p| {
                format!(
                    "{} {:.1}%",
                    p.peer,
                    p.bytes_acked as f64 * 100.0 / r.bytes.max(1) as f64
                )
            })
            .collect();
        a.net.print(
            &r,
            format!(
                "sent {} ({} bytes, SHA-256 {}) in {:.2} s; per path: {}{}",
                name,
                r.bytes,
                r.sha256,
                r.elapsed_s,
                shares.join(", "),
                match r.abandoned_messages {
                    0 => String::new(),
                    n => format!("; {n} messages abandoned (the file arrives incomplete)"),
                }
            ),
        );
        Ok(ExitCode::SUCCESS)
    })
}

/// `msctp recv`: receive files into a directory.
pub fn recv(a: RecvArgs) -> anyhow::Result<ExitCode> {
    let cfg = a.net.config(true)?;
    check_writable_dir(&a.dir)?;
    // The same bound as the engine's idle timeout (checked by `config`).
    let idle = (a.net.idle_timeout > 0.0).then(|| Duration::from_secs_f64(a.net.idle_timeout));
    runtime()?.block_on(async move {
        let s = Stack::bind(cfg).await?;
        warn_missing_interfaces(&s);
        eprintln!(
            "waiting for files on SCTP port {} over UDP port {}",
            s.info().port,
            s.udp_port()
        );
        loop {
            let mut assoc = s.accept().await?;
            let tmp = a.dir.join(format!(".msctp-recv-{}", std::process::id()));
            let f = tokio::fs::File::create(&tmp)
                .await
                .with_context(|| format!("cannot write in {}", a.dir.display()))?;
            let r = transfer::receive_file_with(
                &mut assoc,
                tokio::io::BufWriter::new(f),
                transfer::GapTracker::new(Duration::from_millis(50)),
                idle,
            )
            .await;
            let r = match r {
                Ok(r) => r,
                Err(e) => {
                    // Part of a file arrived: it is cut off, whichever
                    // limit noticed (the transfer's wait for the next
                    // message or the association's idle timeout).
                    let got = tokio::fs::metadata(&tmp).await.map_or(0, |m| m.len());
                    let _ = tokio::fs::remove_file(&tmp).await;
                    if got > 0 {
                        eprintln!(
                            "msctp: transfer failed: {e}; INCOMPLETE (discarded): {got} bytes"
                        );
                    } else {
                        eprintln!("msctp: transfer failed: {e}");
                    }
                    if matches!(e, msctp_net::NetError::Idle(_)) {
                        // The sender is gone: free the association now
                        // (dropping it would first try a graceful end).
                        let _ = assoc.abort().await;
                    }
                    if a.once {
                        return Ok(ExitCode::from(1));
                    }
                    continue;
                }
            };
            // Only the last component of the sender's name is used.
            let name = std::path::Path::new(&r.name)
                .file_name()
                .map(|n| n.to_os_string())
                .unwrap_or_else(|| "received.bin".into());
            let dest = a.dir.join(name);
            if r.intact {
                tokio::fs::rename(&tmp, &dest).await?;
            } else {
                let _ = tokio::fs::remove_file(&tmp).await;
            }
            // A file without its trailer was cut off: say by what.
            let verdict = match (r.intact, &r.announced_sha256) {
                (true, _) => "received".to_string(),
                (false, Some(_)) => "CORRUPT (discarded)".to_string(),
                (false, None) => match assoc.status().await {
                    Err(e) => format!("INCOMPLETE (discarded; {e})"),
                    Ok(_) => "INCOMPLETE (discarded)".to_string(),
                },
            };
            a.net.print(
                &r,
                format!(
                    "{} {}: {} bytes, SHA-256 {}, {:.2} Mbit/s, longest gap {:.1} ms",
                    verdict,
                    dest.display(),
                    r.bytes,
                    r.sha256,
                    r.throughput_bps / 1e6,
                    r.longest_gap_ms
                ),
            );
            if a.once {
                return Ok(if r.intact {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(1)
                });
            }
        }
    })
}

/// `msctp perf --server` / `msctp perf --to ADDR...`
pub fn perf(a: PerfArgs) -> anyhow::Result<ExitCode> {
    let valid = |x: f64, max: f64| x > 0.0 && x < max;
    if !valid(a.time, 1e6) || !valid(a.interval, 1e4) {
        bail!("--time and --interval must be positive");
    }
    let interval = Duration::from_secs_f64(a.interval);
    let opts = a.net.clone();
    if !a.server {
        // The engine refuses larger messages (SendError::TooLarge): say so
        // now rather than send nothing.
        let max = a.net.config(false)?.endpoint.association.max_message_size;
        if a.len == 0 || a.len > max {
            bail!("--len {}: a message must have 1 to {max} bytes", a.len);
        }
    }
    let print = move |l: &PerfLine| opts.print(l, l);
    if a.server {
        let cfg = a.net.config(true)?;
        return runtime()?.block_on(async move {
            let s = Stack::bind(cfg).await?;
            warn_missing_interfaces(&s);
            eprintln!(
                "perf server on SCTP port {} over UDP port {}",
                s.info().port,
                s.udp_port()
            );
            loop {
                let assoc = s.accept().await?;
                let p = print.clone();
                tokio::spawn(async move {
                    if let Err(e) = perf::server(assoc, interval, p).await {
                        eprintln!("msctp: {e}");
                    }
                });
            }
        });
    }
    let cfg = a.net.config(false)?;
    let peers = peers(&a.to)?;
    let pc = PerfConfig {
        duration: Duration::from_secs_f64(a.time),
        message: a.len,
        interval,
        send: a.pr.options(),
    };
    let mut live = if a.view {
        let title = format!("msctp perf to {}", a.to.join(", "));
        Some(super::view::LivePerf::start(a.view_port, &title)?)
    } else {
        None
    };
    let out = move |l: &PerfLine| {
        print(l);
        if let Some(v) = live.as_mut() {
            v.publish(l);
        }
    };
    runtime()?.block_on(async move {
        let s = Stack::bind(cfg).await?;
        warn_missing_interfaces(&s);
        let assoc = connect(&s, &peers, a.peer_port, a.net.remote_udp_port).await?;
        perf::client(assoc, &pc, out).await?;
        Ok(ExitCode::SUCCESS)
    })
}
