//! `msctp soak`: a dual-homed and a single-radio mobile in network
//! namespaces through many link cuts and address changes at random
//! intervals, on links with user-space loss, duplication and reordering
//! ([`crate::impair`]), while numbered messages on several streams and
//! file transfers run. It checks that every message is delivered exactly
//! once and in order per stream (RFC 9260 section 6.6), that every file
//! arrives SHA-256-identical, and that no association is lost; it prints
//! the process's RSS and CPU time per handover as it goes and, at the
//! end, the distribution of the longest delivery gap at each event.
//!
//! Needs root (it makes the namespaces, [`netns`]), `ip` and `tc`.

pub mod netns;
pub mod traffic;

use std::io;
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use crate::impair::{ImpairConfig, ImpairStats};
use crate::{DriverStats, PolicyKind, SCTP_UDP_PORT, Stack, StackConfig};
use netns::{CN_DH, CN_SR, SR_SUBNETS, Topology, ips};
use traffic::Mobile;

/// What to run.
#[derive(Debug, Clone)]
pub struct SoakConfig {
    /// Chaos events: link cuts of the dual-homed mobile and address
    /// changes of the single-radio one, chosen at random (half each).
    pub events: usize,
    /// Time between events, uniform in [min, max].
    pub min_interval: Duration,
    pub max_interval: Duration,
    /// Seed of the schedule (and, offset per stack, of the impairment).
    pub seed: u64,
    /// Impairment of what every stack receives (`None`: clean links).
    pub impair: Option<ImpairConfig>,
    /// Streams of the message association.
    pub streams: u16,
    /// One message every `message_interval` (streams in turn).
    pub message_interval: Duration,
    /// Size of each transferred file.
    pub file_size: usize,
    /// A progress line every so many events.
    pub report_every: usize,
    /// Time the single-radio mobile is without an address when it moves.
    pub move_gap: Duration,
    /// How long the applications get to finish after the last event.
    pub finish_timeout: Duration,
    /// The path estimators (capacity probes, [`msctp_proto::EstimatorConfig`])
    /// on every stack, as [`StackConfig::new`] has them.
    pub estimators: bool,
}

impl Default for SoakConfig {
    fn default() -> Self {
        SoakConfig {
            events: 1000,
            min_interval: Duration::from_millis(200),
            max_interval: Duration::from_secs(5),
            seed: 1,
            impair: Some(ImpairConfig {
                loss: 0.01,
                dup: 0.005,
                reorder: 0.01,
                ..ImpairConfig::default()
            }),
            streams: 4,
            message_interval: Duration::from_millis(5),
            file_size: 2 << 20,
            report_every: 50,
            move_gap: Duration::from_millis(50),
            finish_timeout: Duration::from_secs(60),
            estimators: true,
        }
    }
}

/// A progress line.
#[derive(Debug, Clone, Serialize)]
pub struct Progress {
    pub elapsed_s: f64,
    pub events: usize,
    pub cuts: usize,
    pub moves: usize,
    /// Handovers the mobiles' policies carried out so far.
    pub handovers: u64,
    /// The process's resident set (all stacks), KiB.
    pub rss_kib: u64,
    /// The process's CPU time (user + system) so far, s.
    pub cpu_s: f64,
    /// CPU time since the previous line per event and per handover, ms.
    pub cpu_ms_per_event: f64,
    pub cpu_ms_per_handover: f64,
    pub messages: u64,
    pub files: u64,
}

/// Longest delivery gaps at events of one kind, ms.
#[derive(Debug, Clone, Serialize)]
pub struct GapStats {
    pub kind: &'static str,
    pub n: usize,
    pub min: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

impl GapStats {
    /// Nearest-rank percentiles of `ms`.
    pub fn of(kind: &'static str, mut ms: Vec<f64>) -> GapStats {
        ms.sort_by(f64::total_cmp);
        let at = |p: f64| {
            if ms.is_empty() {
                return 0.0;
            }
            let rank = ((p * ms.len() as f64).ceil() as usize).clamp(1, ms.len());
            ms[rank - 1]
        };
        GapStats {
            kind,
            n: ms.len(),
            min: at(0.0),
            p50: at(0.5),
            p90: at(0.9),
            p99: at(0.99),
            max: at(1.0),
        }
    }
}

/// One event's longest delivery gap.
#[derive(Debug, Clone, Serialize)]
pub struct EventGap {
    pub at_s: f64,
    pub single_radio: bool,
    pub gap_ms: f64,
}

/// The result of a soak.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SoakReport {
    pub events: usize,
    pub cuts: usize,
    pub moves: usize,
    pub elapsed_s: f64,
    pub handovers: u64,
    pub messages_sent: u64,
    pub messages_delivered: u64,
    pub message_bytes: u64,
    pub duplicates: u64,
    pub reorders: u64,
    pub missing: u64,
    pub corrupt: u64,
    pub files_sent: u64,
    pub files_intact: u64,
    pub files_corrupt: u64,
    pub file_bytes: u64,
    pub associations_lost: u64,
    /// Of those, message associations (the others carried files).
    pub message_associations_lost: u64,
    pub connect_failures: u64,
    /// What the impairment did, all stacks.
    pub impaired: ImpairStats,
    /// Longest delivery gap of the mobile's messages from each event to
    /// that mobile's next one: link cuts, address changes, all.
    pub gaps: Vec<GapStats>,
    /// Each event: when (s after the first), which mobile, its gap (ms).
    pub event_gaps: Vec<EventGap>,
    pub progress: Vec<Progress>,
    pub errors: Vec<String>,
    /// Empty when every check passed.
    pub violations: Vec<String>,
}

/// Why the soak cannot run on this host, if it cannot.
pub fn preflight() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("msctp soak needs root: it creates network namespaces".into());
    }
    for t in ["ip", "tc"] {
        let found = std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(t).is_file()));
        if !found {
            return Some(format!("msctp soak needs `{t}` (iproute2)"));
        }
    }
    None
}

/// Resident set of this process, KiB (`VmRSS` of /proc/self/status).
pub fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// User + system CPU time of this process (all threads), s.
pub fn cpu_s() -> f64 {
    // SAFETY: a zeroed rusage is valid; getrusage only writes it.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a rusage.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// Driver counters of the four stacks (dual-homed, single-radio, and the
/// correspondent's two), refreshed every second.
type StatSlots = Arc<Mutex<[DriverStats; 4]>>;

struct Shared {
    cfg: SoakConfig,
    stop: AtomicBool,
    dh: Mobile,
    sr: Mobile,
    stats: StatSlots,
}

fn stack_config(port: u16, cfg: &SoakConfig, slot: u64) -> StackConfig {
    let mut c = StackConfig::new(port).tuned_for_lan();
    if !cfg.estimators {
        c.endpoint.association.estimators = msctp_proto::EstimatorConfig::default();
    }
    c.impair = cfg.impair.map(|i| ImpairConfig {
        seed: i
            .seed
            .wrapping_add(cfg.seed.wrapping_mul(4))
            .wrapping_add(slot),
        ..i
    });
    c
}

/// Runs a soak; `progress` sees a line every `report_every` events.
pub fn run(cfg: SoakConfig, progress: &mut dyn FnMut(&Progress)) -> io::Result<SoakReport> {
    if let Some(why) = preflight() {
        return Err(io::Error::new(io::ErrorKind::PermissionDenied, why));
    }
    if cfg.min_interval > cfg.max_interval || cfg.min_interval < Duration::from_millis(100) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the interval between events must be at least 100 ms and min <= max",
        ));
    }
    let mut topo = Topology::new()?;
    let sh = Arc::new(Shared {
        cfg: cfg.clone(),
        stop: AtomicBool::new(false),
        dh: Mobile::new(cfg.streams),
        sr: Mobile::new(cfg.streams),
        stats: Arc::default(),
    });
    let threads = [
        in_ns(&topo.cn, sh.clone(), correspondent),
        in_ns(&topo.dh, sh.clone(), {
            let ifaces = topo.dh_ifaces.to_vec();
            move |sh| mobile(sh, false, ifaces)
        }),
        in_ns(&topo.sr, sh.clone(), {
            let ifaces = vec![topo.sr_iface.clone()];
            move |sh| mobile(sh, true, ifaces)
        }),
    ];
    // Both message associations up before the first event.
    let t0 = Instant::now();
    while !(sh.dh.ready() && sh.sr.ready()) {
        if t0.elapsed() > Duration::from_secs(30) || threads.iter().any(|t| t.is_finished()) {
            sh.stop.store(true, Relaxed);
            let why: Vec<String> = threads
                .into_iter()
                .filter(|t| t.is_finished())
                .filter_map(|t| t.join().ok().and_then(|r| r.err()))
                .collect();
            return Err(io::Error::other(format!(
                "the associations did not start: {why:?}"
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut report = chaos(&cfg, &mut topo, &sh, progress)?;
    sh.stop.store(true, Relaxed);
    let t1 = Instant::now();
    while !(sh.dh.finished() && sh.sr.finished()) && t1.elapsed() < cfg.finish_timeout {
        std::thread::sleep(Duration::from_millis(50));
    }
    let stuck = !(sh.dh.finished() && sh.sr.finished());
    for t in threads {
        if t.is_finished()
            && let Ok(Err(e)) = t.join()
        {
            report.errors.push(e);
        }
    }
    summarize(&sh, &mut report, stuck);
    drop(topo);
    Ok(report)
}

impl Mobile {
    fn new(streams: u16) -> Mobile {
        Mobile {
            check: Mutex::new(traffic::StreamCheck::new(streams.max(1))),
            ..Mobile::default()
        }
    }

    fn ready(&self) -> bool {
        self.ready.load(Relaxed)
    }

    fn finished(&self) -> bool {
        self.done.load(Relaxed) && self.checked.load(Relaxed)
    }
}

/// Runs `f` on a new thread inside namespace `ns`, on its own Tokio
/// runtime (a stack's driver must run where its sockets are made: it
/// binds new addresses' sockets later).
fn in_ns<F, Fut>(ns: &netns::Netns, sh: Arc<Shared>, f: F) -> JoinHandle<Result<(), String>>
where
    F: FnOnce(Arc<Shared>) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<(), String>>,
{
    let name = ns.name.clone();
    std::thread::spawn(move || {
        netns::enter(&name).map_err(|e| format!("setns {name}: {e}"))?;
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?
            .block_on(f(sh))
    })
}

/// SCTP ports of the correspondent's applications: messages and files
/// (each its own stack, so each its own UDP port: 9899 and 9900).
pub const MSG_PORT: u16 = 5001;
pub const FILE_PORT: u16 = 5003;
/// The file stacks' UDP encapsulation port (RFC 6951 section 5.1: any
/// port; the mobiles are told it when they connect).
pub const FILE_UDP_PORT: u16 = SCTP_UDP_PORT + 1;

/// The correspondent: per mobile, a message stack (its one association
/// carries the numbered messages) and a file stack (one association per
/// file). The mobiles have one stack each, on UDP port 9899, which is
/// what the correspondent's stacks assume for their addresses not heard
/// from yet (RFC 6951 section 5.5).
async fn correspondent(sh: Arc<Shared>) -> Result<(), String> {
    let config = |port: u16, udp: u16, addrs: &[Ipv4Addr], slot: u64| {
        let mut c = stack_config(port, &sh.cfg, slot);
        c.udp_port = udp;
        c.local_addrs = ips(addrs);
        c.endpoint.listen = true;
        c
    };
    let bind = |c: StackConfig| async move { Stack::bind(c).await.map_err(|e| e.to_string()) };
    let m1 = bind(config(MSG_PORT, SCTP_UDP_PORT, &CN_DH, 2)).await?;
    let m2 = bind(config(MSG_PORT, SCTP_UDP_PORT, &[CN_SR], 3)).await?;
    let f1 = bind(config(FILE_PORT, FILE_UDP_PORT, &CN_DH, 4)).await?;
    let f2 = bind(config(FILE_PORT, FILE_UDP_PORT, &[CN_SR], 5)).await?;
    let (a, b) = tokio::join!(
        serve(&m1, &f1, sh.clone(), 2, |s| &s.dh),
        serve(&m2, &f2, sh.clone(), 3, |s| &s.sr)
    );
    a.and(b)
}

/// One mobile's side at the correspondent: the message association on
/// `msgs`, file associations on `files`.
async fn serve(
    msgs: &Stack,
    files: &Stack,
    sh: Arc<Shared>,
    slot: usize,
    which: fn(&Shared) -> &Mobile,
) -> Result<(), String> {
    let first = tokio::time::timeout(Duration::from_secs(30), msgs.accept())
        .await
        .map_err(|_| "no message association within 30 s".to_string())?
        .map_err(|e| e.to_string())?;
    let handle = first.handle();
    let checker = traffic::check_messages(first, &sh.stop, which(&sh));
    let receive = async {
        let mut set = tokio::task::JoinSet::new();
        // Kept across the loop's turns: a dropped accept would lose the
        // association it was about to get.
        let mut acc = Box::pin(files.accept());
        loop {
            tokio::select! {
                r = &mut acc => match r {
                    Ok(a) => {
                        let sh = sh.clone();
                        set.spawn(async move { traffic::receive_file(a, which(&sh)).await });
                        acc.set(files.accept());
                    }
                    Err(e) => {
                        which(&sh).fail(format!("accept: {e}"));
                        break;
                    }
                },
                _ = tokio::time::sleep(Duration::from_millis(100)) => {
                    if which(&sh).done.load(Relaxed) {
                        break;
                    }
                }
            }
            while set.try_join_next().is_some() {}
        }
        let _ = tokio::time::timeout(Duration::from_secs(30), async {
            while set.join_next().await.is_some() {}
        })
        .await;
    };
    let stats = watch_stats(msgs, &sh.stats, slot);
    tokio::select! {
        _ = async { tokio::join!(checker, receive) } => {}
        _ = stats => {}
        _ = stuck(&sh, "correspondent", which(&sh), async { handle.status().await }) => {}
    }
    if let Ok(st) = msgs.stats().await
        && let Ok(mut v) = sh.stats.lock()
    {
        v[slot] = st;
    }
    Ok(())
}

/// Returns half the finish timeout after the stop, with the message
/// association's state (`status`) kept in the errors: what a run that
/// does not finish was waiting for.
async fn stuck(
    sh: &Shared,
    side: &str,
    m: &Mobile,
    status: impl std::future::Future<Output = Result<crate::AssocStatus, crate::NetError>>,
) {
    while !sh.stop.load(Relaxed) {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::time::sleep(sh.cfg.finish_timeout / 2).await;
    let st = match status.await {
        Ok(st) => format!(
            "state {:?}, primary {:?}, local {:?}, buffered {} B, paths {:?}",
            st.state,
            st.primary,
            st.local,
            st.send_buffered,
            st.paths
                .iter()
                .map(|p| (p.remote, p.state, p.counters.t3_expirations))
                .collect::<Vec<_>>()
        ),
        Err(e) => e.to_string(),
    };
    m.note_always(format!("{side}: message association not finished: {st}"));
}

/// Copies a stack's counters to its slot every second (never returns).
async fn watch_stats(s: &Stack, slots: &StatSlots, slot: usize) {
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        if let Ok(st) = s.stats().await
            && let Ok(mut v) = slots.lock()
        {
            v[slot] = st;
        }
    }
}

/// A mobile: one stack that follows its interfaces (netlink), with the
/// message association to the correspondent's port 5001 and the file
/// associations to its port 5003 (SCTP allows one association between
/// two endpoints, RFC 9260 section 5.2). The dual-homed mobile prefers
/// the faster link (fastest-first), the single-radio one the newest
/// address (its only way to move, RFC 5061 section 5.2).
async fn mobile(sh: Arc<Shared>, single_radio: bool, ifaces: Vec<String>) -> Result<(), String> {
    let slot = usize::from(single_radio);
    let mut c = stack_config(5002, &sh.cfg, slot as u64);
    c.monitor = true;
    c.interfaces = ifaces.clone();
    c.policy = if single_radio {
        PolicyKind::NewestAddress
    } else {
        PolicyKind::FastestFirst {
            rates: [
                (ifaces[0].clone(), 20_000_000),
                (ifaces[1].clone(), 10_000_000),
            ]
            .into(),
        }
    };
    let peers = if single_radio {
        ips(&[CN_SR])
    } else {
        ips(&CN_DH)
    };
    let m = if single_radio { &sh.sr } else { &sh.dh };
    let s = Stack::bind(c).await.map_err(|e| e.to_string())?;
    let a = s
        .connect(&peers, MSG_PORT)
        .await
        .map_err(|e| e.to_string())?;
    m.ready.store(true, Relaxed);
    let data: Vec<u8> = {
        let mut r = StdRng::seed_from_u64(sh.cfg.seed ^ 0x5eed);
        (0..sh.cfg.file_size).map(|_| r.r#gen()).collect()
    };
    let (streams, every) = (sh.cfg.streams.max(1), sh.cfg.message_interval);
    let work = async {
        tokio::join!(
            traffic::send_messages(&a, streams, every, &sh.stop, m),
            traffic::send_files(&s, &peers, &data, &sh.stop, m)
        )
    };
    tokio::select! {
        _ = work => {}
        _ = watch_stats(&s, &sh.stats, slot) => {}
        _ = stuck(&sh, "mobile", m, a.status()) => {}
    }
    // The stack stays until the correspondent has seen the message
    // association end, as a host's stack outlives the application's
    // close: a SHUTDOWN COMPLETE lost on the impaired link leaves the
    // correspondent retransmitting its SHUTDOWN ACK, which only a stack
    // still there answers (RFC 9260 section 8.4, rule 5); a vanished one
    // would leave it to give up with "peer unreachable".
    let linger = Instant::now();
    while !m.checked.load(Relaxed) && linger.elapsed() < sh.cfg.finish_timeout / 2 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    if let Ok(st) = s.stats().await
        && let Ok(mut v) = sh.stats.lock()
    {
        v[slot] = st;
    }
    m.done.store(true, Relaxed);
    Ok(())
}

/// The chaos loop: `events` events at random intervals; returns the
/// report's schedule part (gaps, progress).
fn chaos(
    cfg: &SoakConfig,
    topo: &mut Topology,
    sh: &Shared,
    progress: &mut dyn FnMut(&Progress),
) -> io::Result<SoakReport> {
    let mut rng = StdRng::seed_from_u64(cfg.seed);
    let mut meter = Meter::new();
    let mut gaps: Vec<(bool, f64)> = Vec::new();
    // Per mobile (dual-homed, single-radio): when its event whose window
    // is open happened.
    let mut open: [Option<f64>; 2] = [None, None];
    let mut r = SoakReport {
        events: cfg.events,
        ..SoakReport::default()
    };
    let mut next = Instant::now();
    let (lo, hi) = (
        cfg.min_interval.as_secs_f64(),
        cfg.max_interval.as_secs_f64(),
    );
    for k in 0..cfg.events {
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
        let interval = Duration::from_secs_f64(rng.gen_range(lo..=hi));
        let at = Instant::now();
        next = at + interval;
        let sr = rng.gen_bool(0.5);
        let m = if sr { &sh.sr } else { &sh.dh };
        let g = m.window.lock().map(|mut w| w.close(at)).unwrap_or_default();
        let t = at.duration_since(meter.start).as_secs_f64();
        if let Some(t0) = open[usize::from(sr)].replace(t) {
            gaps.push((sr, g.as_secs_f64() * 1e3));
            r.event_gaps.push(EventGap {
                at_s: t0,
                single_radio: sr,
                gap_ms: g.as_secs_f64() * 1e3,
            });
        }
        if sr {
            r.moves += 1;
            move_single_radio(cfg, topo, &mut rng)?;
        } else {
            r.cuts += 1;
            let link = rng.gen_range(0..2usize);
            // Up again before the next event: never both links down.
            let down = interval.mul_f64(rng.gen_range(0.1..0.9));
            topo.set_link(link, false)?;
            std::thread::sleep(down.saturating_sub(at.elapsed()));
            topo.set_link(link, true)?;
        }
        if (k + 1) % cfg.report_every.max(1) == 0 || k + 1 == cfg.events {
            let line = meter.line(sh, k + 1, r.cuts, r.moves);
            progress(&line);
            r.progress.push(line);
        }
    }
    // The last events' windows close after a full interval at most.
    std::thread::sleep(
        next.saturating_duration_since(Instant::now())
            .max(cfg.max_interval / 2),
    );
    let at = Instant::now();
    for (sr, m) in [(false, &sh.dh), (true, &sh.sr)] {
        let g = m.window.lock().map(|mut w| w.close(at)).unwrap_or_default();
        if let Some(t0) = open[usize::from(sr)] {
            gaps.push((sr, g.as_secs_f64() * 1e3));
            r.event_gaps.push(EventGap {
                at_s: t0,
                single_radio: sr,
                gap_ms: g.as_secs_f64() * 1e3,
            });
        }
    }
    r.event_gaps.sort_by(|a, b| a.at_s.total_cmp(&b.at_s));
    let pick = |sr: Option<bool>| -> Vec<f64> {
        gaps.iter()
            .filter(|(s, _)| sr.is_none_or(|x| x == *s))
            .map(|g| g.1)
            .collect()
    };
    r.elapsed_s = meter.start.elapsed().as_secs_f64();
    r.gaps = vec![
        GapStats::of("link cut (dual-homed)", pick(Some(false))),
        GapStats::of("address change (single radio)", pick(Some(true))),
        GapStats::of("all", pick(None)),
    ];
    Ok(r)
}

/// The single-radio mobile moves: its address goes, and `move_gap` later
/// one in another subnet (a random host number) comes with its gateway.
fn move_single_radio(cfg: &SoakConfig, topo: &mut Topology, rng: &mut StdRng) -> io::Result<()> {
    topo.drop_sr_address()?;
    std::thread::sleep(cfg.move_gap);
    let old = topo.sr_addr.octets();
    let subnet = loop {
        let s = rng.gen_range(1..=SR_SUBNETS);
        if s != old[2] {
            break s;
        }
    };
    topo.obtain_sr_address(Ipv4Addr::new(10, 52, subnet, rng.gen_range(2..=250)))
}

/// The progress lines' clock and the previous line's counts.
struct Meter {
    start: Instant,
    cpu0: f64,
    cpu: f64,
    handovers: u64,
    events: usize,
}

impl Meter {
    fn new() -> Meter {
        let cpu = cpu_s();
        Meter {
            start: Instant::now(),
            cpu0: cpu,
            cpu,
            handovers: 0,
            events: 0,
        }
    }

    /// The line after `events` events; CPU per event and per handover
    /// over the events since the previous line.
    fn line(&mut self, sh: &Shared, events: usize, cuts: usize, moves: usize) -> Progress {
        let (handovers, cpu) = (handovers(sh), cpu_s());
        let dcpu = cpu - self.cpu;
        let line = Progress {
            elapsed_s: self.start.elapsed().as_secs_f64(),
            events,
            cuts,
            moves,
            handovers,
            rss_kib: rss_kib(),
            cpu_s: cpu - self.cpu0,
            cpu_ms_per_event: dcpu * 1e3 / events.saturating_sub(self.events).max(1) as f64,
            cpu_ms_per_handover: dcpu * 1e3
                / handovers.saturating_sub(self.handovers).max(1) as f64,
            messages: delivered(sh),
            files: sh.dh.files_intact.load(Relaxed) + sh.sr.files_intact.load(Relaxed),
        };
        (self.cpu, self.handovers, self.events) = (cpu, handovers, events);
        line
    }
}

fn handovers(sh: &Shared) -> u64 {
    sh.stats
        .lock()
        .map(|v| v[0].handovers + v[1].handovers)
        .unwrap_or(0)
}

fn delivered(sh: &Shared) -> u64 {
    [&sh.dh, &sh.sr]
        .iter()
        .map(|m| m.check.lock().map(|c| c.delivered).unwrap_or(0))
        .sum()
}

/// Fills in the counts and the verdict.
fn summarize(sh: &Shared, r: &mut SoakReport, stuck: bool) {
    r.handovers = handovers(sh);
    if let Ok(v) = sh.stats.lock() {
        for s in v.iter() {
            r.impaired.dropped += s.impaired.dropped;
            r.impaired.duplicated += s.impaired.duplicated;
            r.impaired.reordered += s.impaired.reordered;
        }
    }
    for (name, m) in [("dual-homed", &sh.dh), ("single-radio", &sh.sr)] {
        let sent = m.sent.lock().map(|s| s.clone()).unwrap_or_default();
        let c = m.check.lock().map(|c| c.clone()).unwrap_or_default();
        r.messages_sent += sent.iter().sum::<u64>();
        r.messages_delivered += c.delivered;
        r.message_bytes += c.bytes;
        r.duplicates += c.duplicates;
        r.reorders += c.reorders;
        r.corrupt += c.corrupt;
        r.missing += c.missing(&sent);
        r.files_sent += m.files_sent.load(Relaxed);
        r.files_intact += m.files_intact.load(Relaxed);
        r.files_corrupt += m.files_corrupt.load(Relaxed);
        r.file_bytes += m.file_bytes.load(Relaxed);
        r.associations_lost += m.lost.load(Relaxed);
        r.message_associations_lost += m.message_lost.load(Relaxed);
        r.connect_failures += m.connect_failures.load(Relaxed);
        if let Ok(e) = m.errors.lock() {
            r.errors.extend(e.iter().map(|e| format!("{name}: {e}")));
        }
        if !m.finished() {
            r.violations
                .push(format!("{name}: the applications did not finish"));
        }
    }
    let v = &mut r.violations;
    for (what, n) in [
        ("duplicate messages", r.duplicates),
        ("messages out of order", r.reorders),
        ("messages missing", r.missing),
        ("corrupt messages", r.corrupt),
        ("corrupt files", r.files_corrupt),
        ("associations lost", r.associations_lost),
    ] {
        if n > 0 {
            v.push(format!("{n} {what}"));
        }
    }
    if r.messages_delivered == 0 || r.files_intact == 0 {
        v.push("no messages or no files delivered".into());
    }
    if stuck && v.is_empty() {
        v.push("the run did not finish in time".into());
    }
}
