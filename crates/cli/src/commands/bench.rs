//! `msctp bench`: speed measurements that print ratios against a reference
//! measured in the same run (never a figure from elsewhere).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, bail};
use clap::Subcommand;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

impl Args {
    /// `bench sim`: a batch of simulation runs (see `allocator`).
    pub fn simulates(&self) -> bool {
        matches!(self.what, What::Sim { .. })
    }
}

#[derive(Subcommand)]
enum What {
    /// The simulator on a bulk mSCTP transfer to a dual-homed mobile, and
    /// with 10 to 1 000 stations sharing two cells: simulated events,
    /// packets and seconds per CPU-second, peak memory, growth of the cost
    /// with the number of stations.
    Sim {
        /// Simulated seconds.
        #[arg(long, default_value_t = 60.0)]
        duration: f64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The stations axis: numbers of stations sharing an 802.11a and
        /// an 802.11b cell, each with a bulk download (comma-separated;
        /// empty: skip).
        #[arg(long, default_value = "10,100,1000", value_parser = parse_stations)]
        stations: StationList,
        /// Simulated seconds of each stations run.
        #[arg(long, default_value_t = 10.0)]
        stations_duration: f64,
        /// Runs of each measurement, and of each side of an estimator
        /// pair; the fastest is kept (on a shared machine, the one least
        /// disturbed by other work).
        #[arg(long, default_value_t = 1)]
        runs: usize,
        /// Pairs of runs with and without the path estimators,
        /// interleaved, for their cost on the bulk transfer and at each
        /// point of the stations axis (median and spread of the per-pair
        /// ratios of CPU per event); 0: not measured.
        #[arg(long, default_value_t = 9)]
        estimator_pairs: usize,
        /// Pairs of interleaved runs of the event queue against the 4-ary
        /// heap it replaced, on the same hold-model operations (32 events
        /// pending, a million pops and pushes each side); 0: not measured.
        #[arg(long, default_value_t = 9)]
        queue_pairs: usize,
        /// Also E7a's own scenario (50 stations under the 802.11 DCF,
        /// AISLE) for this many simulated seconds: 1800 is one run of the
        /// study, the reproduction's dearest (E7a and E7a-causes run it
        /// nine times); 0: not measured.
        #[arg(long, default_value_t = 0.0)]
        e7a_duration: f64,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// The simulator against ns-3 on the same TCP NewReno bulk transfer
    /// (10 Mbit/s 15 ms then 2 Mbit/s 1 ms, 600 simulated seconds), both
    /// run now, one after the other: wall time, CPU time, peak memory and
    /// their ratios.
    Ns3 {
        /// The ns-3 program (`bench/ns3/tcp_bulk.cc`, built); if absent it
        /// is built with `bench/ns3/build.sh` into `target/ns3/`.
        #[arg(long)]
        program: Option<PathBuf>,
    },
    /// The real-network driver on loopback, with AUTH off and with AUTH
    /// on every DATA and SACK, against usrsctp's own tool (tsctp, rebuilt
    /// without debug output), kernel TCP, quinn (QUIC) and sctp-proto over
    /// UDP, one after the other in this run, in rounds: MB/s, CPU seconds
    /// per GB, ratios (medians over the rounds).
    Net {
        /// Megabytes per transfer.
        #[arg(long, default_value_t = 200)]
        megabytes: u64,
        /// Message size in bytes (msctp and tsctp; kernel TCP writes 64 kB).
        #[arg(long, default_value_t = 65536)]
        message: usize,
        /// msctp's path MTU in bytes (default: the stack's choice, on
        /// loopback the interface's MTU less IP and UDP headers).
        #[arg(long)]
        mtu: Option<usize>,
        /// msctp without UDP GSO / GRO (batched system calls only).
        #[arg(long)]
        no_offload: bool,
        /// Run only these contenders (repeat): msctp, msctp-auth, msctp-eth
        /// (1452-byte packets), usrsctp, tcp, quinn, sctp-proto.
        #[arg(long, value_parser = ["msctp", "msctp-auth", "msctp-eth", "usrsctp", "tcp", "quinn", "sctp-proto"])]
        only: Vec<String>,
        /// Run msctp without its path estimators.
        #[arg(long)]
        no_estimators: bool,
        /// Rounds, 1 to 20: every contender runs once per round, one after
        /// the other; with more than one, each figure is the median over
        /// the rounds and each ratio the median of the rounds' own ratios,
        /// with their range (one transfer is no measure on a shared
        /// machine).
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Pairs of msctp transfers with and without the path estimators,
        /// interleaved, for their cost (median and spread of the per-pair
        /// CPU ratios); 0: not measured.
        #[arg(long, default_value_t = 10)]
        estimator_pairs: usize,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Instead: one TCP stream through `msctp tunnel` on loopback
        /// (its defaults, then with `--data-auth`) against direct TCP,
        /// alternated `--rounds` times in this run; the median ratios,
        /// the default's judged against issue 36's goal (at least 0.5x).
        #[arg(long)]
        tunnel: bool,
    },
    /// Our engine and sctp-proto (the SCTP of the WebRTC stacks), each
    /// between two endpoints in one thread without sockets, the same bulk
    /// transfer at 1452-byte packets in one-packet and 64 kB messages:
    /// payload bytes per CPU-second and ours / theirs.
    Engine {
        /// Megabytes per transfer.
        #[arg(long, default_value_t = 64)]
        megabytes: usize,
        /// Transfers of each engine at each message size, alternating;
        /// the best is kept.
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// A listening msctp stack (as `msctp listen`) with N clients on
    /// loopback, each its own association, from many source addresses and
    /// ports, some moving (ASCONF), the clients in a child process: set-up
    /// rate, the server's memory per association and its cost with N idle
    /// associations, against kernel TCP's accept rate for N connections
    /// and a usrsctp server (built with gcc against libusrsctp-dev) taking
    /// the same clients, all in this run.
    Server {
        /// Clients (associations), 1 to 50 000.
        #[arg(long, default_value_t = 10_000)]
        clients: usize,
        /// Loopback source addresses (127.10.a.1, ...), 1 to 4 096.
        #[arg(long, default_value_t = 256)]
        addresses: usize,
        /// Handshakes in flight at once.
        #[arg(long, default_value_t = 256)]
        window: usize,
        /// Seconds the associations are held idle while the server's cost
        /// is measured.
        #[arg(long, default_value_t = 10.0)]
        idle: f64,
        /// Clients that move to another source address once set up.
        #[arg(long, default_value_t = 100)]
        moving: usize,
        /// Run only these contenders (repeat): msctp, tcp, usrsctp.
        #[arg(long, value_parser = ["msctp", "tcp", "usrsctp"])]
        only: Vec<String>,
        /// Run the clients in this process (the server's memory and CPU
        /// are then not told apart from theirs).
        #[arg(long)]
        in_process: bool,
        /// Internal: be the clients of a server at this UDP port on
        /// 127.0.0.1 (the child process).
        #[arg(long, hide = true)]
        clients_for: Option<u16>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// The stations axis of `bench sim`.
#[derive(Debug, Clone)]
pub struct StationList(Vec<usize>);

/// "10,100,1000" (empty: no stations runs).
fn parse_stations(s: &str) -> Result<StationList, String> {
    s.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.parse::<usize>()
                .map_err(|e| format!("{p:?} is not a number of stations: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(StationList)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.what {
        What::Engine {
            megabytes,
            runs,
            json,
        } => super::bench_compare::engine(megabytes, runs, json, &build()),
        What::Server {
            clients,
            addresses,
            window,
            idle,
            moving,
            only,
            in_process,
            clients_for,
            json,
        } => {
            let cfg = server_config(clients, addresses, window, idle, moving, only)?;
            server(cfg, clients_for, in_process, json)
        }
        What::Sim {
            duration,
            seed,
            stations: StationList(stations),
            stations_duration,
            runs,
            estimator_pairs,
            queue_pairs,
            e7a_duration,
            json,
        } => sim(SimOpts {
            duration,
            seed,
            stations,
            stations_duration,
            runs,
            pairs: Pairs {
                estimator: estimator_pairs,
                queue: queue_pairs,
            },
            e7a_duration,
            json,
        }),
        What::Ns3 { program } => {
            let program = match program {
                Some(p) => p,
                None => build_ns3()?,
            };
            let report = msctp_sim::baseline_bench(&program).map_err(|e| anyhow::anyhow!("{e}"))?;
            print!("{}", report.render());
            Ok(ExitCode::SUCCESS)
        }
        What::Net {
            megabytes,
            message,
            mtu,
            no_offload,
            only,
            no_estimators,
            rounds,
            estimator_pairs,
            json,
            tunnel,
        } => {
            if megabytes == 0 || megabytes > 100_000 {
                bail!("--megabytes must lie in [1, 100000], got {megabytes}");
            }
            if !(1..=20).contains(&rounds) {
                bail!("--rounds must lie in [1, 20], got {rounds}");
            }
            if tunnel {
                return net_tunnel(megabytes, rounds, json);
            }
            if message == 0 || message > 65_536 {
                bail!("--message must lie in [1, 65536], got {message}");
            }
            if let Some(m) = mtu
                && !(508..=65_507).contains(&m)
            {
                bail!("--mtu must lie in [508, 65507], got {m}");
            }
            let cfg = msctp_net::bench::BenchConfig {
                bytes: megabytes << 20,
                message,
                path_mtu: mtu,
                offload: !no_offload,
                only,
                estimators: !no_estimators,
                ..Default::default()
            };
            net(&cfg, message, rounds, estimator_pairs, json)
        }
    }
}

/// `bench server`'s options checked and gathered.
fn server_config(
    clients: usize,
    addresses: usize,
    window: usize,
    idle: f64,
    moving: usize,
    only: Vec<String>,
) -> anyhow::Result<msctp_net::bench_server::ServerBenchConfig> {
    if !(0.0..=3600.0).contains(&idle) {
        bail!("--idle must lie in [0, 3600] seconds, got {idle}");
    }
    if window == 0 {
        bail!("--window must be at least 1");
    }
    Ok(msctp_net::bench_server::ServerBenchConfig {
        clients,
        addresses,
        window,
        idle_secs: idle,
        moving,
        only,
        client_exe: None,
    })
}

/// `bench server`: the clients of another process (`clients_for`), or the
/// server's benchmark and its report.
fn server(
    mut cfg: msctp_net::bench_server::ServerBenchConfig,
    clients_for: Option<u16>,
    in_process: bool,
    json: bool,
) -> anyhow::Result<ExitCode> {
    if let Some(port) = clients_for {
        msctp_net::bench_server::client_main(&cfg, port)?;
        return Ok(ExitCode::SUCCESS);
    }
    if !in_process {
        cfg.client_exe = Some(std::env::current_exe().context("cannot find msctp itself")?);
    }
    let report = msctp_net::bench_server::run(&cfg)?;
    if json {
        let mut v = serde_json::to_value(&report)?;
        if let Some(o) = v.as_object_mut() {
            o.insert("build".into(), build().into());
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        println!("build: {}", build());
        print!("{report}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Interleaved pairs of `bench sim`: with and without the estimators,
/// event queue against its reference.
struct Pairs {
    estimator: usize,
    queue: usize,
}

/// Events pending and operations of each side of `bench sim`'s event
/// queue pairs.
const QUEUE_PENDING: usize = 32;
const QUEUE_OPS: u64 = 1_000_000;

/// What `bench sim` was asked for (its arguments, checked by
/// [`SimOpts::check`]).
struct SimOpts {
    duration: f64,
    seed: u64,
    stations: Vec<usize>,
    stations_duration: f64,
    runs: usize,
    pairs: Pairs,
    e7a_duration: f64,
    json: bool,
}

impl SimOpts {
    /// Every argument within its bounds, or the first one that is not.
    fn check(&self) -> anyhow::Result<()> {
        let (duration, stations_duration, runs) =
            (self.duration, self.stations_duration, self.runs);
        let (estimator_pairs, queue_pairs, e7a) =
            (self.pairs.estimator, self.pairs.queue, self.e7a_duration);
        if !(0.0..=1e5).contains(&e7a) {
            bail!("--e7a-duration must lie in [0, 1e5] seconds, got {e7a}");
        }
        if queue_pairs > 1000 {
            bail!("--queue-pairs must lie in [0, 1000], got {queue_pairs}");
        }
        if !(1..=100).contains(&runs) {
            bail!("--runs must lie in [1, 100], got {runs}");
        }
        if estimator_pairs > 1000 {
            bail!("--estimator-pairs must lie in [0, 1000], got {estimator_pairs}");
        }
        if !(1.0..=1e6).contains(&duration) {
            bail!(
                "--duration must lie in [1, 1e6] seconds (the bulk transfer starts at 1 s), got {duration}"
            );
        }
        if !(stations_duration > 0.0 && stations_duration <= 1e5) {
            bail!("--stations-duration must lie in (0, 1e5] seconds, got {stations_duration}");
        }
        if let Some(n) = self
            .stations
            .iter()
            .find(|n| **n == 0 || **n > msctp_sim::scenario::MAX_STATIONS)
        {
            bail!(
                "--stations: {n} is not in [1, {}]",
                msctp_sim::scenario::MAX_STATIONS
            );
        }
        Ok(())
    }
}

/// `bench sim`: the bulk transfer, the estimators' cost, the stations
/// axis, the event queue against its reference, E7a's scenario.
fn sim(opts: SimOpts) -> anyhow::Result<ExitCode> {
    opts.check()?;
    let SimOpts {
        duration,
        seed,
        stations,
        stations_duration,
        runs,
        pairs,
        e7a_duration,
        json,
    } = opts;
    let estimator_pairs = pairs.estimator;
    let cfg = msctp_sim::bench::BenchConfig {
        duration_s: duration,
        seed,
        runs,
        ..Default::default()
    };
    let err = |e: msctp_sim::scenario::ScenarioError| anyhow::anyhow!("{e}");
    let r = msctp_sim::bench::run_bench(&cfg).map_err(err)?;
    // The estimators' cost: interleaved pairs of runs with and
    // without them.
    let est = if estimator_pairs > 0 {
        Some(msctp_sim::bench::bulk_estimator_cost(&cfg, estimator_pairs).map_err(err)?)
    } else {
        None
    };
    // The stations axis.
    let mut axis = Vec::new();
    for &n in &stations {
        let without =
            msctp_sim::bench::stations_scenario(n, stations_duration, false).map_err(err)?;
        let a = msctp_sim::bench::measure_best(&without, seed, runs).map_err(err)?;
        let c = if estimator_pairs > 0 {
            let with =
                msctp_sim::bench::stations_scenario(n, stations_duration, true).map_err(err)?;
            Some(
                msctp_sim::bench::estimator_cost(&without, &with, seed, estimator_pairs, runs)
                    .map_err(err)?,
            )
        } else {
            None
        };
        axis.push((n, a, c));
    }
    let queue = if pairs.queue > 0 {
        Some(msctp_sim::bench::queue_cost(
            QUEUE_PENDING,
            QUEUE_OPS,
            pairs.queue,
        )?)
    } else {
        None
    };
    let e7a = if e7a_duration > 0.0 {
        let s = msctp_sim::bench::e7a_scenario(e7a_duration).map_err(err)?;
        Some(msctp_sim::bench::measure_best(&s, seed, runs).map_err(err)?)
    } else {
        None
    };
    if json {
        print_sim_json(runs, &r, est.as_ref(), &axis, queue.as_ref(), e7a.as_ref())?;
    } else {
        print_sim(runs, stations_duration, &r, est.as_ref(), &axis);
        if let Some(e) = &e7a {
            print_e7a(e);
        }
        if let Some(q) = &queue {
            print_queue(q);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `bench net --tunnel`: the tunnel's transfer, `rounds` times each way.
fn net_tunnel(megabytes: u64, rounds: usize, json: bool) -> anyhow::Result<ExitCode> {
    let r = msctp_net::tunnel::bench::run(megabytes << 20, rounds)?;
    if json {
        let mut v = serde_json::to_value(&r)?;
        v["build"] = build().into();
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        println!("build: {}", build());
        print!("{r}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `bench net`: msctp and its contenders over loopback, and the
/// estimators' cost.
fn net(
    cfg: &msctp_net::bench::BenchConfig,
    message: usize,
    rounds: usize,
    estimator_pairs: usize,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let mut all = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let msctp = msctp_net::bench::run(cfg)?;
        let others = super::bench_compare::net_contenders(cfg.bytes, message, &cfg.only);
        all.push(msctp_compare::rounds::Round { msctp, others });
    }
    let rounds = msctp_compare::rounds::Rounds { rounds: all };
    // The estimators' cost: interleaved pairs of msctp transfers
    // with and without them, in this run.
    let cost = if cfg.estimators && estimator_pairs > 0 && cfg.runs_msctp() {
        Some(msctp_net::bench::estimator_cost(cfg, estimator_pairs)?)
    } else {
        None
    };
    if json {
        let mut v = serde_json::json!({
            "build": build(),
            "medians": rounds.medians(),
            "ratios": rounds.ratios(),
            "rounds": rounds.rounds,
        });
        if let (Some(o), Some(c)) = (v.as_object_mut(), &cost) {
            o.insert("estimators_cost_ratio".into(), c.median_ratio().into());
            o.insert("estimators_cost".into(), serde_json::to_value(c)?);
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        println!("build: {}", build());
        if let [one] = rounds.rounds.as_slice() {
            print!("{}", one.msctp);
            print!("{}", one.others.render(&one.msctp));
        } else {
            print!("{}", rounds.render());
        }
        if let Some(c) = &cost {
            let (lo, hi) = c.spread();
            println!(
                "path estimators (packet pairs, Westwood+): msctp CPU per GB with / without, {} interleaved pairs: median {:.3}x (pairs {lo:.3} to {hi:.3}; medians {:.3} s and {:.3} s: {:.3}x)",
                c.ratios.len(),
                c.median_ratio(),
                msctp_net::bench::median(&c.with),
                msctp_net::bench::median(&c.without),
                c.ratio_of_medians(),
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// How this `msctp` was built, printed with every benchmark's figures:
/// the optimisation level, and whether it is the profile-guided build of
/// `scripts/pgo.sh` (which sets `MSCTP_BUILD_PGO` to what it trained on).
pub(crate) fn build() -> String {
    let opt = if cfg!(debug_assertions) {
        "with debug assertions (a test profile: figures not representative, build with --release)"
    } else {
        "release"
    };
    match option_env!("MSCTP_BUILD_PGO") {
        Some(t) => format!("{opt}, profile-guided (trained on `msctp {t}`)"),
        None => format!("{opt}, no profile-guided optimisation"),
    }
}

/// How the cost grew from the first to the last point of the stations axis.
struct Growth {
    from: usize,
    to: usize,
    stations: f64,
    cpu: f64,
    events: f64,
    per_event: f64,
}

/// A point of the stations axis: stations, the run without the
/// estimators, their cost.
type AxisPoint = (
    usize,
    msctp_sim::bench::BenchResult,
    Option<msctp_sim::bench::EstimatorCost>,
);

/// "median 1.012x (quartiles 0.99 to 1.03, 9 pairs 0.95 to 1.08)".
fn describe_cost(c: &msctp_sim::bench::EstimatorCost) -> String {
    let (q1, q3) = c.quartiles();
    let (lo, hi) = c.spread();
    format!(
        "median {:.3}x (quartiles {q1:.3} to {q3:.3}; {} pairs {lo:.3} to {hi:.3}{}); whole run {:.3}x",
        c.median_ratio(),
        c.ratios.len(),
        if c.runs > 1 {
            format!(", each side the fastest of {} runs", c.runs)
        } else {
            String::new()
        },
        c.median_run_ratio()
    )
}

fn print_sim(
    runs: usize,
    stations_duration: f64,
    r: &msctp_sim::bench::BenchResult,
    est: Option<&msctp_sim::bench::EstimatorCost>,
    axis: &[AxisPoint],
) {
    println!("build: {}", build());
    println!(
        "simulator: bulk mSCTP transfer, {:.0} simulated s",
        r.simulated_s
    );
    println!(
        "  CPU {:.3} s ({} clock), wall {:.3} s",
        r.cpu_s, r.cpu_clock, r.wall_s
    );
    println!(
        "  {} events: {:.2} M events per CPU-second ({:.0} ns per event)",
        r.events,
        r.events_per_cpu_s / 1e6,
        r.cpu_ns_per_event()
    );
    println!(
        "  {} packets: {:.3} M packets per CPU-second",
        r.packets,
        r.packets_per_cpu_s / 1e6
    );
    println!("  {:.1} MB delivered", r.bytes_delivered as f64 / 1e6);
    if let Some(b) = r.peak_rss_bytes {
        println!(
            "  peak RSS {:.1} MB (peak of the {})",
            b as f64 / 1e6,
            r.peak_rss_scope
        );
    }
    if runs > 1 {
        println!("  (each figure: the fastest of {runs} runs)");
    }
    println!(
        "  ratio to simulated time: {:.0}x faster than real time",
        r.simulated_s / r.cpu_s.max(1e-9)
    );
    if let Some(c) = est {
        println!(
            "  path estimators (packet pairs, Westwood+), CPU per event with / without, interleaved pairs: {}",
            describe_cost(c)
        );
    }
    if axis.is_empty() {
        return;
    }
    println!(
        "stations sharing an 802.11a and an 802.11b cell, bulk downloads, {stations_duration:.0} simulated s each:"
    );
    println!(
        "  {:>8} {:>9} {:>8} {:>7} {:>10} {:>9} {:>10} {:>9} {:>8} {:>10}",
        "stations",
        "events",
        "packets",
        "CPU s",
        "M ev/CPU-s",
        "ns/event",
        "k pkt/CPU-s",
        "sim s/CPU-s",
        "peak MB",
        "estimators"
    );
    for (n, a, c) in axis {
        println!(
            "  {:>8} {:>9} {:>8} {:>7.3} {:>10.2} {:>9.1} {:>10.1} {:>9.1} {:>8.1} {:>9}",
            n,
            a.events,
            a.packets,
            a.cpu_s,
            a.events_per_cpu_s / 1e6,
            a.cpu_ns_per_event(),
            a.packets_per_cpu_s / 1e3,
            a.simulated_s_per_cpu_s,
            a.peak_rss_bytes.map_or(f64::NAN, |b| b as f64 / 1e6),
            c.as_ref()
                .map_or("-".to_string(), |c| format!("{:.3}x", c.median_ratio()))
        );
    }
    for (n, _, c) in axis {
        if let Some(c) = c {
            println!("  estimators at {n} stations: {}", describe_cost(c));
        }
    }
    if let Some(g) = stations_growth(axis) {
        println!(
            "  from {} to {} stations ({:.0}x): CPU {:.2}x, events {:.2}x, CPU per event {:.2}x",
            g.from, g.to, g.stations, g.cpu, g.events, g.per_event
        );
    }
}

/// E7a's lines of `bench sim`.
fn print_e7a(e: &msctp_sim::bench::BenchResult) {
    println!(
        "E7a's scenario (50 stations, 802.11 DCF, AISLE), {:.0} simulated s: CPU {:.2} s, {} events, {:.2} M events per CPU-second ({:.0} ns per event), {:.1} simulated s per CPU-second",
        e.simulated_s,
        e.cpu_s,
        e.events,
        e.events_per_cpu_s / 1e6,
        e.cpu_ns_per_event(),
        e.simulated_s_per_cpu_s
    );
}

/// The event queue's line of `bench sim`.
fn print_queue(q: &msctp_sim::bench::QueueCost) {
    let (lo, hi) = q.spread();
    println!(
        "event queue (hold model, {} events pending, {} pops and pushes): radix heap / 4-ary heap CPU, {} interleaved pairs: median {:.3}x (pairs {lo:.3} to {hi:.3}; {:.1} against {:.1} ns per operation)",
        q.pending,
        q.operations,
        q.ratios.len(),
        q.median_ratio(),
        msctp_sim::bench::median(&q.radix_ns_per_op),
        msctp_sim::bench::median(&q.dary_ns_per_op),
    );
}

fn print_sim_json(
    runs: usize,
    r: &msctp_sim::bench::BenchResult,
    est: Option<&msctp_sim::bench::EstimatorCost>,
    axis: &[AxisPoint],
    queue: Option<&msctp_sim::bench::QueueCost>,
    e7a: Option<&msctp_sim::bench::BenchResult>,
) -> anyhow::Result<()> {
    let stations: Vec<serde_json::Value> = axis
        .iter()
        .map(|(n, a, c)| {
            serde_json::json!({
                "stations": n,
                "without_estimators": a,
                "cpu_ns_per_event": a.cpu_ns_per_event(),
                "cpu_ns_per_packet": a.cpu_s / a.packets.max(1) as f64 * 1e9,
                "estimators_cost_ratio": c.as_ref().map(|c| c.median_ratio()),
                "estimators_cost": c,
            })
        })
        .collect();
    let growth = stations_growth(axis);
    let out = serde_json::json!({
        "build": build(),
        "runs_per_measurement": runs,
        "bulk": r,
        "bulk_cpu_ns_per_event": r.cpu_ns_per_event(),
        "estimators_cost_ratio": est.map(|c| c.median_ratio()),
        "estimators_cost": est,
        "event_queue_ratio": queue.map(|q| q.median_ratio()),
        "event_queue": queue,
        "e7a": e7a,
        "e7a_cpu_ns_per_event": e7a.map(|e| e.cpu_ns_per_event()),
        "stations": stations,
        "stations_growth": growth.map(|g| serde_json::json!({
            "from": g.from,
            "to": g.to,
            "stations_ratio": g.stations,
            "cpu_ratio": g.cpu,
            "events_ratio": g.events,
            "cpu_per_event_ratio": g.per_event,
        })),
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}

fn stations_growth(axis: &[AxisPoint]) -> Option<Growth> {
    let (n0, a0, _) = axis.first()?;
    let (n1, a1, _) = axis.last()?;
    if n1 <= n0 {
        return None;
    }
    let per = |a: &msctp_sim::bench::BenchResult| a.cpu_s / a.events.max(1) as f64;
    Some(Growth {
        from: *n0,
        to: *n1,
        stations: *n1 as f64 / *n0 as f64,
        cpu: a1.cpu_s / a0.cpu_s.max(1e-12),
        events: a1.events as f64 / a0.events.max(1) as f64,
        per_event: per(a1) / per(a0).max(1e-18),
    })
}

/// Builds the ns-3 reference program with the repository's script.
fn build_ns3() -> anyhow::Result<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let script = repo.join("bench/ns3/build.sh");
    if !script.exists() {
        bail!(
            "{} not found: give the ns-3 program with --program",
            script.display()
        );
    }
    let out = repo.join("target/ns3");
    let program = out.join("tcp_bulk");
    if !program.exists() {
        eprintln!("building the ns-3 reference program into {}", out.display());
        let status = Command::new("bash")
            .arg(&script)
            .arg(&out)
            .status()
            .with_context(|| format!("running {}", script.display()))?;
        if !status.success() {
            bail!(
                "{} failed (are Debian's ns3 and libns3-dev installed? scripts/install-deps.sh installs them)",
                script.display()
            );
        }
    }
    Ok(program)
}
