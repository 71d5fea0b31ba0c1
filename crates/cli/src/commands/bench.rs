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

#[derive(Subcommand)]
enum What {
    /// The simulator on a bulk mSCTP transfer to a dual-homed mobile:
    /// simulated events and packets per CPU-second, peak memory.
    Sim {
        /// Simulated seconds.
        #[arg(long, default_value_t = 60.0)]
        duration: f64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The stations axis: numbers of stations sharing an 802.11a and
        /// an 802.11b cell, each with a bulk download (comma-separated;
        /// empty: skip).
        #[arg(long, value_delimiter = ',', default_value = "10,100,1000")]
        stations: Vec<usize>,
        /// Simulated seconds of each stations run.
        #[arg(long, default_value_t = 10.0)]
        stations_duration: f64,
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
    /// without debug output) and kernel TCP, one after the other in this
    /// run: MB/s, CPU seconds per GB, ratios.
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
        /// (1452-byte packets), usrsctp, tcp.
        #[arg(long, value_parser = ["msctp", "msctp-auth", "msctp-eth", "usrsctp", "tcp"])]
        only: Vec<String>,
        /// Run msctp without its path estimators.
        #[arg(long)]
        no_estimators: bool,
        /// Pairs of msctp transfers with and without the path estimators,
        /// interleaved, for their cost (median and spread of the per-pair
        /// CPU ratios); 0: not measured.
        #[arg(long, default_value_t = 10)]
        estimator_pairs: usize,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.what {
        What::Sim {
            duration,
            seed,
            stations,
            stations_duration,
            json,
        } => {
            if !(duration > 0.0 && duration <= 1e6) {
                bail!("--duration must lie in (0, 1e6] seconds, got {duration}");
            }
            if !(stations_duration > 0.0 && stations_duration <= 1e5) {
                bail!("--stations-duration must lie in (0, 1e5] seconds, got {stations_duration}");
            }
            if let Some(n) = stations
                .iter()
                .find(|n| **n == 0 || **n > msctp_sim::scenario::MAX_STATIONS)
            {
                bail!(
                    "--stations: {n} is not in [1, {}]",
                    msctp_sim::scenario::MAX_STATIONS
                );
            }
            let cfg = msctp_sim::bench::BenchConfig {
                duration_s: duration,
                seed,
                ..Default::default()
            };
            let err = |e: msctp_sim::scenario::ScenarioError| anyhow::anyhow!("{e}");
            let r = msctp_sim::bench::run_bench(&cfg).map_err(err)?;
            // The estimators' cost: the same transfer with them on.
            let with = msctp_sim::bench::run_bench_with(&cfg, true).map_err(err)?;
            let cost = |a: &msctp_sim::bench::BenchResult| a.cpu_s / a.events.max(1) as f64;
            let est_ratio = cost(&with) / cost(&r).max(1e-18);
            // The stations axis.
            let mut axis = Vec::new();
            for &n in &stations {
                let s = msctp_sim::bench::stations_scenario(n, stations_duration, false)
                    .map_err(err)?;
                let a = msctp_sim::bench::measure(&s, seed).map_err(err)?;
                let s =
                    msctp_sim::bench::stations_scenario(n, stations_duration, true).map_err(err)?;
                let b = msctp_sim::bench::measure(&s, seed).map_err(err)?;
                axis.push((n, a, b));
            }
            if json {
                let stations: Vec<serde_json::Value> = axis
                    .iter()
                    .map(|(n, a, b)| {
                        serde_json::json!({
                            "stations": n,
                            "without_estimators": a,
                            "with_estimators": b,
                            "cpu_ns_per_event": cost(a) * 1e9,
                            "estimators_cost_ratio": cost(b) / cost(a).max(1e-18),
                        })
                    })
                    .collect();
                let out = serde_json::json!({
                    "bulk": r,
                    "bulk_with_estimators": with,
                    "estimators_cost_ratio": est_ratio,
                    "stations": stations,
                });
                println!("{}", serde_json::to_string_pretty(&out)?);
            } else {
                println!(
                    "simulator: bulk mSCTP transfer, {:.0} simulated s",
                    r.simulated_s
                );
                println!(
                    "  CPU {:.3} s ({} clock), wall {:.3} s",
                    r.cpu_s, r.cpu_clock, r.wall_s
                );
                println!(
                    "  {} events: {:.2} M events per CPU-second",
                    r.events,
                    r.events_per_cpu_s / 1e6
                );
                println!(
                    "  {} packets: {:.3} M packets per CPU-second",
                    r.packets,
                    r.packets_per_cpu_s / 1e6
                );
                println!("  {:.1} MB delivered", r.bytes_delivered as f64 / 1e6);
                if let Some(b) = r.peak_rss_bytes {
                    println!("  peak RSS {:.1} MB", b as f64 / 1e6);
                }
                println!(
                    "  ratio to simulated time: {:.0}x faster than real time",
                    r.simulated_s / r.cpu_s.max(1e-9)
                );
                println!(
                    "  with the path estimators (packet pairs, Westwood+): {:.2} M events per CPU-second; CPU per event {:.3}x without",
                    with.events_per_cpu_s / 1e6,
                    est_ratio
                );
                if !axis.is_empty() {
                    println!(
                        "stations sharing an 802.11a and an 802.11b cell, bulk downloads, {stations_duration:.0} simulated s each:"
                    );
                    println!(
                        "  {:>8} {:>12} {:>9} {:>14} {:>14} {:>12}",
                        "stations", "events", "CPU s", "M events/CPU-s", "ns/event", "estimators"
                    );
                    let base = axis.first().map(|(n, a, _)| (*n, cost(a)));
                    for (n, a, b) in &axis {
                        println!(
                            "  {:>8} {:>12} {:>9.3} {:>14.2} {:>14.1} {:>11.3}x",
                            n,
                            a.events,
                            a.cpu_s,
                            a.events_per_cpu_s / 1e6,
                            cost(a) * 1e9,
                            cost(b) / cost(a).max(1e-18)
                        );
                    }
                    if let (Some((n0, c0)), Some((n1, a1, _))) = (base, axis.last())
                        && *n1 > n0
                    {
                        println!(
                            "  cost per event grows {:.2}x from {n0} to {n1} stations ({:.1}x more stations)",
                            cost(a1) / c0.max(1e-18),
                            *n1 as f64 / n0 as f64
                        );
                    }
                }
            }
            Ok(ExitCode::SUCCESS)
        }
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
            estimator_pairs,
            json,
        } => {
            if megabytes == 0 || megabytes > 100_000 {
                bail!("--megabytes must lie in [1, 100000], got {megabytes}");
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
            let report = msctp_net::bench::run(&cfg)?;
            // The estimators' cost: interleaved pairs of msctp transfers
            // with and without them, in this run.
            let cost = if cfg.estimators && estimator_pairs > 0 && cfg.runs_msctp() {
                Some(msctp_net::bench::estimator_cost(&cfg, estimator_pairs)?)
            } else {
                None
            };
            if json {
                let mut v = serde_json::to_value(&report)?;
                if let (Some(c), Some(o)) = (&cost, v.as_object_mut()) {
                    o.insert("estimators_cost_ratio".into(), c.median_ratio().into());
                    o.insert("estimators_cost".into(), serde_json::to_value(c)?);
                }
                println!("{}", serde_json::to_string_pretty(&v)?);
            } else {
                print!("{report}");
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
    }
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
