//! The single-path TCP scenarios of `bench/ns3/README.md` run through the
//! simulator (the [`TcpAgent`] on simulator links), their comparison with
//! the recorded ns-3 3.37 results, and the speed benchmark against ns-3.
//!
//! The simulator scenario reproduces the ns-3 program `tcp_bulk.cc`:
//! a chain of point-to-point links from the sender to the receiver, each
//! the same both ways, with a drop-tail queue of `queue` waiting packets
//! (the one being serialised not counted, as ns-3's device queue once its
//! queue disc is removed), 2 bytes of PPP framing per packet
//! ([`LinkConfig::framing`]), optional random packet loss on the last link
//! towards the receiver only (ns-3: a `RateErrorModel` on the receiver's
//! device), a greedy sender from t = 0 (ns-3's `BulkSendApplication`) and
//! goodput counted at the receiving application over `[0, time]`. TCP is
//! [`TcpConfig::ns3_compatible`] (NewReno, segment 1448, initial window 10,
//! min RTO 1 s, delayed ACK 2 segments / 200 ms, SACK off unless asked).

use std::fmt::Write as _;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::Path;
use std::time::{Duration, Instant};

use serde::Deserialize;

use super::{TcpAgent, TcpAgentConfig};
use crate::cpu::{peak_rss_kb, thread_cpu_time};
use crate::kernel::error_model::ErrorModelSpec;
use crate::kernel::ids::{AgentId, LinkId, NodeId};
use crate::kernel::link::{Direction, LinkConfig};
use crate::kernel::routing::Route;
use crate::models::app::{Source, Traffic};
use crate::{Time, World, WorldConfig};
use msctp_tcp::TcpConfig;

/// PPP header bytes of ns-3's point-to-point device.
pub const PPP_FRAMING: usize = 2;

/// One hop of the chain.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hop {
    pub rate_bps: u64,
    pub delay: Duration,
    /// Drop-tail queue limit in packets.
    pub queue: usize,
}

/// A bulk-transfer scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct BulkScenario {
    pub name: String,
    pub hops: Vec<Hop>,
    pub duration: Duration,
    /// Packet loss probability on the last hop towards the receiver.
    pub loss: f64,
    pub sack: bool,
    pub seed: u64,
}

/// What a run measured (the fields of the ns-3 program's output).
#[derive(Debug, Clone, PartialEq)]
pub struct BulkOutcome {
    /// Receiver application bytes over the run, times 8, over the run time.
    pub goodput_bps: f64,
    pub rx_bytes: u64,
    pub rtos: u64,
    pub fast_retransmits: u64,
    pub retransmitted_segments: u64,
    pub data_segments_sent: u64,
    pub queue_drops: u64,
    pub error_drops: u64,
    /// Simulator events dispatched.
    pub events: u64,
    /// Wall time of building and running the scenario.
    pub wall: Duration,
}

/// Why a scenario could not run.
#[derive(Debug, thiserror::Error)]
pub enum ReferenceError {
    #[error("scenario has no hop")]
    NoHop,
    #[error("topology: {0}")]
    Topology(#[from] crate::TopologyError),
    #[error("tcp: {0}")]
    Tcp(#[from] msctp_tcp::TcpError),
    #[error("application: {0}")]
    App(#[from] crate::models::app::AppConfigError),
    #[error("reading {path}: {err}")]
    Io { path: String, err: std::io::Error },
    #[error("ns-3 program failed: {0}")]
    Ns3(String),
    #[error("the agent vanished")]
    NoAgent,
}

/// The five scenarios of `bench/ns3/README.md`: (a) 2 Mbit/s, 50 ms RTT,
/// queue 20, 60 s; (b) the same with 200 ms RTT; (c) and (d) those with 1%
/// loss; (e) 10 Mbit/s 15 ms then 2 Mbit/s 1 ms, queues 100, 600 s.
pub fn ns3_scenario(name: &str, sack: bool, seed: u64) -> Option<BulkScenario> {
    let ms = Duration::from_millis;
    let hop = |rate_bps, delay, queue| Hop {
        rate_bps,
        delay,
        queue,
    };
    let (hops, loss, secs) = match name {
        "a" => (vec![hop(2_000_000, ms(25), 20)], 0.0, 60),
        "b" => (vec![hop(2_000_000, ms(100), 20)], 0.0, 60),
        "c" => (vec![hop(2_000_000, ms(25), 20)], 0.01, 60),
        "d" => (vec![hop(2_000_000, ms(100), 20)], 0.01, 60),
        "e" => (
            vec![hop(10_000_000, ms(15), 100), hop(2_000_000, ms(1), 100)],
            0.0,
            600,
        ),
        _ => return None,
    };
    Some(BulkScenario {
        name: name.into(),
        hops,
        duration: Duration::from_secs(secs),
        loss,
        sack,
        seed,
    })
}

fn subnet_addr(hop: usize, host: u8) -> Ipv4Addr {
    Ipv4Addr::new(10, 1, (hop + 1) as u8, host)
}

/// Runs one scenario in the simulator.
pub fn run_bulk(s: &BulkScenario) -> Result<BulkOutcome, ReferenceError> {
    if s.hops.is_empty() {
        return Err(ReferenceError::NoHop);
    }
    let wall = Instant::now();
    let mut w = World::new(WorldConfig::with_seed(s.seed));
    let (nodes, links) = build_chain(&mut w, s)?;
    let end = Time::ZERO + s.duration;
    let (sender, receiver) = add_flow(&mut w, s, &nodes, end)?;
    w.run_until(end);
    let rx_bytes = w
        .agent::<TcpAgent>(receiver)
        .ok_or(ReferenceError::NoAgent)?
        .delivered();
    let st = w
        .agent::<TcpAgent>(sender)
        .ok_or(ReferenceError::NoAgent)?
        .stats()
        .ok_or(ReferenceError::NoAgent)?;
    let mut queue_drops = 0;
    let mut error_drops = 0;
    for &l in &links {
        for d in [Direction::AtoB, Direction::BtoA] {
            if let Some(cs) = w.link_stats(l, d) {
                queue_drops += cs.queue_drops;
                error_drops += cs.error_drops;
            }
        }
    }
    Ok(BulkOutcome {
        goodput_bps: rx_bytes as f64 * 8.0 / s.duration.as_secs_f64(),
        rx_bytes,
        rtos: st.timeouts,
        fast_retransmits: st.fast_retransmits,
        retransmitted_segments: st.segments_retransmitted,
        data_segments_sent: st.data_segments_sent,
        queue_drops,
        error_drops,
        events: w.stats().events,
        wall: wall.elapsed(),
    })
}

/// The chain sender - routers - receiver, one subnet per hop (the last
/// hop lossy), with static routes: its nodes and links.
fn build_chain(
    w: &mut World,
    s: &BulkScenario,
) -> Result<(Vec<NodeId>, Vec<LinkId>), ReferenceError> {
    let n = s.hops.len();
    let mut nodes = vec![w.add_host("sender")?];
    for i in 1..n {
        nodes.push(w.add_router(&format!("r{i}"))?);
    }
    nodes.push(w.add_host("receiver")?);
    let mut links = Vec::new();
    let mut ifaces = Vec::new();
    for (i, h) in s.hops.iter().enumerate() {
        let mut cfg = LinkConfig::new(h.rate_bps, h.delay)
            .queue_limit(h.queue)
            .framing(PPP_FRAMING);
        if i + 1 == n && s.loss > 0.0 {
            cfg.error_ab = ErrorModelSpec::Bernoulli { loss: s.loss };
        }
        let a = IpAddr::V4(subnet_addr(i, 1));
        let b = IpAddr::V4(subnet_addr(i, 2));
        let (l, ia, ib) = w.connect(
            &format!("hop{i}"),
            nodes[i],
            ipnet::IpNet::new(a, 24).map_err(|_| ReferenceError::NoHop)?,
            nodes[i + 1],
            ipnet::IpNet::new(b, 24).map_err(|_| ReferenceError::NoHop)?,
            cfg,
        )?;
        links.push(l);
        ifaces.push((ia, ib));
    }
    // Static routes along the chain: node k reaches subnets left of it via
    // its left neighbour and subnets right of it via its right neighbour.
    for k in 0..=n {
        for j in 0..n {
            let net = ipnet::IpNet::new(IpAddr::V4(subnet_addr(j, 0)), 24)
                .map_err(|_| ReferenceError::NoHop)?;
            if j + 1 < k {
                // Left of node k: through hop k-1's a end.
                let gw = IpAddr::V4(subnet_addr(k - 1, 1));
                w.add_route(nodes[k], Route::via(net, ifaces[k - 1].1, gw))?;
            } else if j > k {
                let gw = IpAddr::V4(subnet_addr(k, 2));
                w.add_route(nodes[k], Route::via(net, ifaces[k].0, gw))?;
            }
        }
    }
    Ok((nodes, links))
}

/// The bulk TCP sender on the first node (until `end`) and its sink on
/// the last: their agent ids.
fn add_flow(
    w: &mut World,
    s: &BulkScenario,
    nodes: &[NodeId],
    end: Time,
) -> Result<(AgentId, AgentId), ReferenceError> {
    let n = s.hops.len();
    let tcp = TcpConfig {
        sack: s.sack,
        ..TcpConfig::ns3_compatible()
    };
    let src = Source::new(
        Traffic::Bulk {
            message_bytes: 1448,
        },
        Time::ZERO,
        Some(end),
    )?;
    let local = SocketAddr::new(IpAddr::V4(subnet_addr(0, 1)), 49153);
    let remote = SocketAddr::new(IpAddr::V4(subnet_addr(n - 1, 2)), 5000);
    let mut ccfg = TcpAgentConfig::client(tcp.clone(), local, remote, Time::ZERO).with_source(src);
    ccfg.close_when_done = false;
    let sender = w.add_agent(nodes[0], "tcp", Box::new(TcpAgent::new(ccfg)?))?;
    let receiver = w.add_agent(
        nodes[n],
        "sink",
        Box::new(TcpAgent::new(TcpAgentConfig::server(tcp, 5000))?),
    )?;
    Ok((sender, receiver))
}

/// One line of the ns-3 program's output (`bench/ns3/results-*.jsonl`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Ns3Record {
    pub name: String,
    pub sack: bool,
    pub loss: f64,
    pub run: u32,
    pub throughput_bps: f64,
    pub rtos: u64,
    pub fast_retransmits: u64,
    pub retransmitted_segments: u64,
    pub queue_drops: u64,
    pub error_drops: u64,
    pub events: u64,
    pub wall_s: f64,
    /// Peak resident set size of the ns-3 process in kB (newer runs only;
    /// negative if the program could not read it).
    #[serde(default)]
    pub max_rss_kb: Option<i64>,
    /// CPU time (user + system) of the ns-3 process, seconds (newer runs
    /// only; negative if unavailable).
    #[serde(default)]
    pub cpu_s: Option<f64>,
}

/// Parses the ns-3 program's JSON lines (lines that do not parse are
/// skipped: build messages, blank lines).
pub fn parse_ns3_results(text: &str) -> Vec<Ns3Record> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<Ns3Record>(l).ok())
        .collect()
}

/// Reads a results file.
pub fn read_ns3_results(path: &Path) -> Result<Vec<Ns3Record>, ReferenceError> {
    let text = msctp_input::read_text(path).map_err(|err| ReferenceError::Io {
        path: path.display().to_string(),
        err,
    })?;
    Ok(parse_ns3_results(&text))
}

/// Means over several runs of one scenario.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Means {
    pub runs: usize,
    pub goodput_bps: f64,
    /// Standard error of the goodput mean (0 for one run).
    pub goodput_se: f64,
    pub rtos: f64,
    pub fast_retransmits: f64,
    pub retransmitted: f64,
    pub queue_drops: f64,
    pub error_drops: f64,
    pub events: f64,
    pub wall_s: f64,
}

/// One run's figures, as averaged by [`Means`].
#[derive(Debug, Clone, Copy)]
struct Row {
    goodput: f64,
    rtos: u64,
    fast: u64,
    retransmitted: u64,
    queue_drops: u64,
    error_drops: u64,
    events: u64,
    wall_s: f64,
}

fn means(rows: &[Row]) -> Means {
    let n = rows.len();
    if n == 0 {
        return Means::default();
    }
    let nf = n as f64;
    let avg = |f: fn(&Row) -> f64| rows.iter().map(f).sum::<f64>() / nf;
    let g = avg(|r| r.goodput);
    let se = if n > 1 {
        let var = rows.iter().map(|r| (r.goodput - g).powi(2)).sum::<f64>() / (nf - 1.0);
        (var / nf).sqrt()
    } else {
        0.0
    };
    Means {
        runs: n,
        goodput_bps: g,
        goodput_se: se,
        rtos: avg(|r| r.rtos as f64),
        fast_retransmits: avg(|r| r.fast as f64),
        retransmitted: avg(|r| r.retransmitted as f64),
        queue_drops: avg(|r| r.queue_drops as f64),
        error_drops: avg(|r| r.error_drops as f64),
        events: avg(|r| r.events as f64),
        wall_s: avg(|r| r.wall_s),
    }
}

/// Means of the ns-3 runs of scenario `name` with SACK `sack`.
pub fn ns3_means(records: &[Ns3Record], name: &str, sack: bool) -> Means {
    let rows: Vec<_> = records
        .iter()
        .filter(|r| r.name == name && r.sack == sack)
        .map(|r| Row {
            goodput: r.throughput_bps,
            rtos: r.rtos,
            fast: r.fast_retransmits,
            retransmitted: r.retransmitted_segments,
            queue_drops: r.queue_drops,
            error_drops: r.error_drops,
            events: r.events,
            wall_s: r.wall_s,
        })
        .collect();
    means(&rows)
}

/// Runs scenario `name` over seeds `1..=runs` (one run for the lossless
/// scenarios, which have no randomness) and averages.
pub fn sim_means(name: &str, sack: bool, runs: u64) -> Result<Means, ReferenceError> {
    let mut rows = Vec::new();
    let lossless = ns3_scenario(name, sack, 1).is_some_and(|s| s.loss == 0.0);
    let runs = if lossless { 1 } else { runs.max(1) };
    for seed in 1..=runs {
        let s = ns3_scenario(name, sack, seed).ok_or(ReferenceError::NoHop)?;
        let o = run_bulk(&s)?;
        rows.push(Row {
            goodput: o.goodput_bps,
            rtos: o.rtos,
            fast: o.fast_retransmits,
            retransmitted: o.retransmitted_segments,
            queue_drops: o.queue_drops,
            error_drops: o.error_drops,
            events: o.events,
            wall_s: o.wall.as_secs_f64(),
        });
    }
    Ok(means(&rows))
}

/// The comparison table (Markdown) of every scenario, NewReno and SACK,
/// the simulator over `runs` seeds against the ns-3 records.
pub fn comparison_markdown(ns3: &[Ns3Record], runs: u64) -> Result<String, ReferenceError> {
    let mut out = String::new();
    for sack in [false, true] {
        let _ = writeln!(
            out,
            "\n### {}\n\n| | runs sim / ns-3 | goodput sim Mbit/s | goodput ns-3 Mbit/s | ratio | RTOs sim / ns-3 | fast retransmits sim / ns-3 | retransmitted segments sim / ns-3 | queue drops sim / ns-3 | error drops sim / ns-3 | events sim / ns-3 |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
            if sack {
                "SACK on (information)"
            } else {
                "NewReno, SACK off (the `ns3_compatible` preset)"
            }
        );
        for name in ["a", "b", "c", "d", "e"] {
            let n = ns3_means(ns3, name, sack);
            if n.runs == 0 {
                continue;
            }
            let m = sim_means(name, sack, runs)?;
            let pm = |x: &Means| {
                if x.runs > 1 {
                    format!("{:.4} ± {:.4}", x.goodput_bps / 1e6, x.goodput_se / 1e6)
                } else {
                    format!("{:.4}", x.goodput_bps / 1e6)
                }
            };
            let _ = writeln!(
                out,
                "| {name} | {} / {} | {} | {} | {:.3} | {:.2} / {:.2} | {:.1} / {:.1} | {:.1} / {:.1} | {:.1} / {:.1} | {:.1} / {:.1} | {:.0} / {:.0} |",
                m.runs,
                n.runs,
                pm(&m),
                pm(&n),
                m.goodput_bps / n.goodput_bps,
                m.rtos,
                n.rtos,
                m.fast_retransmits,
                n.fast_retransmits,
                m.retransmitted,
                n.retransmitted,
                m.queue_drops,
                n.queue_drops,
                m.error_drops,
                n.error_drops,
                m.events,
                n.events,
            );
        }
    }
    Ok(out)
}

/// Side-by-side speed figures of one bulk scenario in ns-3 and here.
#[derive(Debug, Clone, PartialEq)]
pub struct SpeedReport {
    /// Wall time of the simulator scenario (build and run, in process).
    pub sim_wall: Duration,
    /// CPU time of the thread that ran it (Linux schedstat).
    pub sim_cpu: Option<Duration>,
    /// Peak resident set of this process after the simulator run (Linux
    /// `VmHWM`), and before it.
    pub sim_peak_rss_kb: Option<u64>,
    pub sim_rss_before_kb: Option<u64>,
    pub sim_events: u64,
    pub sim_goodput_bps: f64,
    /// Wall time ns-3 reports for its own run (setup and run).
    pub ns3_wall: Duration,
    /// CPU time (user + system) of the ns-3 process.
    pub ns3_cpu: Option<Duration>,
    /// Wall time of the ns-3 process, start to exit (library loading
    /// included).
    pub ns3_process_wall: Duration,
    pub ns3_peak_rss_kb: Option<u64>,
    pub ns3_events: u64,
    pub ns3_goodput_bps: f64,
}

impl SpeedReport {
    /// ns-3 wall time over ours (its own timing against ours).
    pub fn wall_ratio(&self) -> f64 {
        self.ns3_wall.as_secs_f64() / self.sim_wall.as_secs_f64().max(1e-9)
    }

    /// ns-3 CPU time over ours (less sensitive than wall time to other
    /// jobs on a shared machine).
    pub fn cpu_ratio(&self) -> Option<f64> {
        Some(self.ns3_cpu?.as_secs_f64() / self.sim_cpu?.as_secs_f64().max(1e-9))
    }

    /// ns-3 peak RSS over ours.
    pub fn rss_ratio(&self) -> Option<f64> {
        Some(self.ns3_peak_rss_kb? as f64 / self.sim_peak_rss_kb?.max(1) as f64)
    }

    /// A plain-text report.
    pub fn render(&self) -> String {
        let kb = |v: Option<u64>| v.map_or("n/a".to_string(), |k| format!("{k} kB"));
        let secs = |v: Option<Duration>| {
            v.map_or("n/a".to_string(), |d| format!("{:.3} s", d.as_secs_f64()))
        };
        let ratio = |v: Option<f64>| v.map_or("n/a".to_string(), |r| format!("{r:.1}x"));
        let mut s = String::new();
        let _ = writeln!(
            s,
            "TCP NewReno bulk, 10 Mbit/s 15 ms then 2 Mbit/s 1 ms, 600 simulated s"
        );
        let _ = writeln!(
            s,
            "ns-3 3.37: wall {:.3} s (process {:.3} s), CPU {}, peak RSS {}, {} events, goodput {:.4} Mbit/s",
            self.ns3_wall.as_secs_f64(),
            self.ns3_process_wall.as_secs_f64(),
            secs(self.ns3_cpu),
            kb(self.ns3_peak_rss_kb),
            self.ns3_events,
            self.ns3_goodput_bps / 1e6
        );
        let _ = writeln!(
            s,
            "msctp-sim: wall {:.3} s, CPU {}, peak RSS {} (before the run {}), {} events, goodput {:.4} Mbit/s",
            self.sim_wall.as_secs_f64(),
            secs(self.sim_cpu),
            kb(self.sim_peak_rss_kb),
            kb(self.sim_rss_before_kb),
            self.sim_events,
            self.sim_goodput_bps / 1e6
        );
        let _ = writeln!(
            s,
            "ratio ns-3 / msctp-sim: wall {:.1}x, CPU {}, peak RSS {}",
            self.wall_ratio(),
            ratio(self.cpu_ratio()),
            ratio(self.rss_ratio())
        );
        s
    }
}

/// The speed benchmark (scenario (e) of `bench/ns3/README.md`): runs the
/// simulator scenario in this process first (so this process's peak RSS
/// is the simulator's), then the ns-3 program `ns3_tcp_bulk` (built by
/// `bench/ns3/build.sh`) on the same scenario, and reports both. Command:
/// `msctp bench` (once wired) or
/// `cargo test --profile ci -p msctp-sim --test tcp_ns3 -- --ignored speed --nocapture`.
pub fn speed_benchmark(ns3_tcp_bulk: &Path) -> Result<SpeedReport, ReferenceError> {
    let before = peak_rss_kb();
    let s = ns3_scenario("e", false, 1).ok_or(ReferenceError::NoHop)?;
    let cpu0 = thread_cpu_time();
    let o = run_bulk(&s)?;
    let sim_cpu = match (cpu0, thread_cpu_time()) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a)),
        _ => None,
    };
    let sim_peak = peak_rss_kb();
    let t0 = Instant::now();
    let out = std::process::Command::new(ns3_tcp_bulk)
        .args([
            "--name=e",
            "--links=10Mbps:15ms:100,2Mbps:1ms:100",
            "--time=600",
        ])
        .output()
        .map_err(|err| ReferenceError::Io {
            path: ns3_tcp_bulk.display().to_string(),
            err,
        })?;
    let ns3_process_wall = t0.elapsed();
    if !out.status.success() {
        return Err(ReferenceError::Ns3(
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let rec = parse_ns3_results(&text)
        .into_iter()
        .next()
        .ok_or_else(|| ReferenceError::Ns3(format!("no result line in: {text}")))?;
    Ok(SpeedReport {
        sim_wall: o.wall,
        sim_cpu,
        sim_peak_rss_kb: sim_peak,
        sim_rss_before_kb: before,
        sim_events: o.events,
        sim_goodput_bps: o.goodput_bps,
        ns3_wall: Duration::from_secs_f64(rec.wall_s.max(0.0)),
        ns3_cpu: rec.cpu_s.filter(|c| *c >= 0.0).map(Duration::from_secs_f64),
        ns3_process_wall,
        ns3_peak_rss_kb: rec.max_rss_kb.and_then(|k| u64::try_from(k).ok()),
        ns3_events: rec.events,
        ns3_goodput_bps: rec.throughput_bps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns3_lines_parse_and_junk_is_skipped() {
        let text = "building x\n{\"name\":\"a\",\"ns3\":\"3.37\",\"sack\":false,\"loss\":0,\"run\":1,\"throughput_bps\":1931825.1,\"rtos\":0,\"fast_retransmits\":14,\"retransmitted_segments\":28,\"queue_drops\":28,\"error_drops\":0,\"events\":54766,\"wall_s\":0.287}\n{bad json\n";
        let r = parse_ns3_results(text);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].fast_retransmits, 14);
        assert_eq!(r[0].max_rss_kb, None);
        let m = ns3_means(&r, "a", false);
        assert_eq!(m.runs, 1);
        assert!((m.goodput_bps - 1931825.1).abs() < 1e-6);
        assert_eq!(ns3_means(&r, "a", true).runs, 0);
    }

    #[test]
    fn unknown_scenario_and_empty_chain() {
        assert!(ns3_scenario("z", false, 1).is_none());
        let mut s = ns3_scenario("a", false, 1).unwrap();
        s.hops.clear();
        assert!(matches!(run_bulk(&s), Err(ReferenceError::NoHop)));
    }
}
