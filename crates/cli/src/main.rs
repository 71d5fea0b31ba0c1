//! `msctp`: mobile SCTP on real networks and in the simulator.

mod allocator;
mod commands;

/// mimalloc instead of the C library's allocator: the simulator allocates
/// and frees small buffers at every packet; with 1 000 stations `msctp
/// bench sim` is about 1.3x faster per event with it (docs/DESIGN.md,
/// "Crates chosen"; figures in docs/measurements/build-profiles.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "msctp",
    version = version(),
    about = "Mobile SCTP: a real stack, and the lab that proves it"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run packetdrill-style conformance scripts against the engine.
    Conformance(commands::conformance::Args),
    /// Accept associations over UDP (RFC 6951) and report them.
    Listen(commands::net::ListenArgs),
    /// Send a file over an association.
    Send(commands::net::SendArgs),
    /// Receive files.
    Recv(commands::net::RecvArgs),
    /// Measure throughput and handovers (iperf-like).
    Perf(commands::net::PerfArgs),
    /// Run one simulation scenario.
    Run(commands::lab::RunArgs),
    /// Write the viewer page (map, time series, event marks) of a stored run.
    View(commands::view::Args),
    /// Sweep scenario parameters with repetitions.
    Sweep(commands::lab::SweepArgs),
    /// Reproduce the published studies.
    Reproduce(commands::lab::ReproduceArgs),
    /// Benchmarks with ratios against references measured in the same run.
    Bench(commands::bench::Args),
    /// TCP applications over one mSCTP association: a SOCKS 5 client side,
    /// a relaying server side (--server) that holds the same key.
    Tunnel(commands::tunnel::Args),
    /// Soak: mobiles through link cuts and address changes on impaired links (root).
    Soak(commands::soak::Args),
}

impl Command {
    /// Simulation commands, which end when their runs do: they keep the
    /// memory they free (`allocator`); the network commands do not.
    fn is_batch(&self) -> bool {
        match self {
            Command::Run(_) | Command::Sweep(_) | Command::Reproduce(_) => true,
            Command::Bench(a) => a.simulates(),
            _ => false,
        }
    }
}

/// "0.1.0 (model 0123456789abcdef)": the simulation model's build, which
/// enters every stored run's key (the Python package prints the same with
/// `msctp.model_fingerprint()`; the nodes of a cluster must agree).
fn version() -> &'static str {
    static V: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    V.get_or_init(|| {
        format!(
            "{} (model {})",
            env!("CARGO_PKG_VERSION"),
            msctp_lab::runner::model_fingerprint()
        )
    })
}

/// The stack's log (`tracing`) on stderr: warnings by default, more with
/// `RUST_LOG` (e.g. `RUST_LOG=msctp_net=debug msctp tunnel ...` shows each
/// association's events and each refused SOCKS request).
fn log_to_stderr() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// A reader that stops reading (`msctp bench sim --json | head`) ends
/// `msctp` quietly, as it ends any Unix filter: the Rust runtime ignores
/// SIGPIPE, and `println!` then panics on the broken pipe. Sockets are not
/// concerned: the standard library and tokio send with `MSG_NOSIGNAL`.
fn die_quietly_on_broken_pipe() {
    // SAFETY: called first in `main`, before any other thread exists;
    // SIG_DFL is a valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> std::process::ExitCode {
    die_quietly_on_broken_pipe();
    log_to_stderr();
    let cli = Cli::parse();
    if cli.command.is_batch() {
        allocator::keep_freed_memory();
    }
    let result = match cli.command {
        Command::Conformance(a) => commands::conformance::run(a),
        Command::Listen(a) => commands::net::listen(a),
        Command::Send(a) => commands::net::send(a),
        Command::Recv(a) => commands::net::recv(a),
        Command::Perf(a) => commands::net::perf(a),
        Command::Run(a) => commands::lab::run(a),
        Command::View(a) => commands::view::run(a),
        Command::Sweep(a) => commands::lab::sweep(a),
        Command::Reproduce(a) if a.robustness => commands::robustness::reproduce(a),
        Command::Reproduce(a) => commands::lab::reproduce(a),
        Command::Bench(a) => commands::bench::run(a),
        Command::Soak(a) => commands::soak::run(a),
        Command::Tunnel(a) => commands::tunnel::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("msctp: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}
