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
            json,
        } => {
            if !(duration > 0.0 && duration <= 1e6) {
                bail!("--duration must lie in (0, 1e6] seconds, got {duration}");
            }
            let cfg = msctp_sim::bench::BenchConfig {
                duration_s: duration,
                seed,
                ..Default::default()
            };
            let r = msctp_sim::bench::run_bench(&cfg).map_err(|e| anyhow::anyhow!("{e}"))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&r)?);
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
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{report}");
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
