//! `msctp soak`: mobiles through many link cuts and address changes on
//! impaired links, with exactly-once in-order and SHA-256 checks
//! ([`msctp_net::soak`]).

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use msctp_net::impair::ImpairConfig;
use msctp_net::soak::{self, Progress, SoakConfig, SoakReport};

/// Options of `msctp soak`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Chaos events: link cuts of the dual-homed mobile and address
    /// changes of the single-radio one (half each, at random).
    #[arg(long, default_value_t = 1000)]
    cuts: usize,
    /// Shortest time between events, seconds.
    #[arg(long, default_value_t = 0.2, value_name = "SECONDS")]
    min_interval: f64,
    /// Longest time between events, seconds.
    #[arg(long, default_value_t = 5.0, value_name = "SECONDS")]
    max_interval: f64,
    /// Seed of the schedule and the impairment.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Impairment of every received datagram, e.g.
    /// `loss=0.01,dup=0.005,reorder=0.01,delay=20ms` (`none`: clean links).
    #[arg(long, default_value = "loss=0.01,dup=0.005,reorder=0.01,delay=20ms")]
    impair: String,
    /// Streams of the message association.
    #[arg(long, default_value_t = 4)]
    streams: u16,
    /// One message every so many milliseconds (streams in turn).
    #[arg(long, default_value_t = 5, value_name = "MS")]
    message_interval: u64,
    /// Size of each file transferred (one association per file), KiB.
    #[arg(long, default_value_t = 2048, value_name = "KIB")]
    file_kib: usize,
    /// A progress line every so many events.
    #[arg(long, default_value_t = 50)]
    report_every: usize,
    /// Time the single-radio mobile is without an address, milliseconds.
    #[arg(long, default_value_t = 50, value_name = "MS")]
    move_gap: u64,
    /// Turn the path estimators (capacity probes) off on every stack.
    #[arg(long)]
    no_estimators: bool,
    /// Print the report as JSON (after the progress lines).
    #[arg(long)]
    json: bool,
}

fn config(a: &Args) -> anyhow::Result<SoakConfig> {
    let secs = |s: f64, what: &str| {
        if s.is_finite() && (0.1..=3600.0).contains(&s) {
            Ok(Duration::from_secs_f64(s))
        } else {
            bail!("--{what}: seconds between 0.1 and 3600")
        }
    };
    let (min, max) = (
        secs(a.min_interval, "min-interval")?,
        secs(a.max_interval, "max-interval")?,
    );
    if min > max {
        bail!("--min-interval is above --max-interval");
    }
    if a.cuts == 0 || a.streams == 0 || a.message_interval == 0 || a.file_kib == 0 {
        bail!("--cuts, --streams, --message-interval and --file-kib must be above 0");
    }
    if a.file_kib > 1 << 20 {
        bail!("--file-kib: at most 1 GiB");
    }
    let impair = match a.impair.as_str() {
        "none" | "" => None,
        s => Some(
            s.parse::<ImpairConfig>()
                .map_err(anyhow::Error::msg)
                .context("--impair")?,
        ),
    };
    Ok(SoakConfig {
        events: a.cuts,
        min_interval: min,
        max_interval: max,
        seed: a.seed,
        impair,
        streams: a.streams,
        message_interval: Duration::from_millis(a.message_interval),
        file_size: a.file_kib << 10,
        report_every: a.report_every.max(1),
        move_gap: Duration::from_millis(a.move_gap.min(10_000)),
        estimators: !a.no_estimators,
        ..SoakConfig::default()
    })
}

fn line(p: &Progress) {
    println!(
        "{:>8.1} s  events {:>5} (cuts {:>4}, moves {:>4})  handovers {:>5}  RSS {:>7.1} MiB  \
         CPU {:>7.1} s ({:>6.1} ms/event, {:>6.1} ms/handover)  messages {:>9}  files {:>5}",
        p.elapsed_s,
        p.events,
        p.cuts,
        p.moves,
        p.handovers,
        p.rss_kib as f64 / 1024.0,
        p.cpu_s,
        p.cpu_ms_per_event,
        p.cpu_ms_per_handover,
        p.messages,
        p.files
    );
}

fn summary(r: &SoakReport) {
    println!(
        "soak: {} events ({} link cuts, {} address changes) in {:.0} s, {} handovers",
        r.events, r.cuts, r.moves, r.elapsed_s, r.handovers
    );
    println!(
        "messages: {} sent, {} delivered once in order ({:.1} MB), {} duplicates, {} out of \
         order, {} missing, {} corrupt",
        r.messages_sent,
        r.messages_delivered,
        r.message_bytes as f64 / 1e6,
        r.duplicates,
        r.reorders,
        r.missing,
        r.corrupt
    );
    println!(
        "files: {} sent, {} SHA-256-identical ({:.1} MB), {} corrupt; associations lost: {} \
         ({} carrying messages); connect attempts that failed: {}",
        r.files_sent,
        r.files_intact,
        r.file_bytes as f64 / 1e6,
        r.files_corrupt,
        r.associations_lost,
        r.message_associations_lost,
        r.connect_failures
    );
    println!(
        "impairment (all stacks): {} datagrams dropped, {} duplicated, {} reordered",
        r.impaired.dropped, r.impaired.duplicated, r.impaired.reordered
    );
    println!("longest delivery gap per event, ms:");
    for g in &r.gaps {
        println!(
            "  {:<32} n {:>5}  min {:>7.1}  p50 {:>7.1}  p90 {:>7.1}  p99 {:>7.1}  max {:>7.1}",
            g.kind, g.n, g.min, g.p50, g.p90, g.p99, g.max
        );
    }
    if let (Some(f), Some(l)) = (r.progress.first(), r.progress.last()) {
        let max = r.progress.iter().map(|p| p.rss_kib).max().unwrap_or(0);
        println!(
            "RSS: {:.1} MiB at the first line, {:.1} MiB at the last, {:.1} MiB at most",
            f.rss_kib as f64 / 1024.0,
            l.rss_kib as f64 / 1024.0,
            max as f64 / 1024.0
        );
    }
    for e in &r.errors {
        println!("error: {e}");
    }
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let cfg = config(&a)?;
    if let Some(why) = soak::preflight() {
        bail!("{why}");
    }
    println!(
        "msctp soak: {} events every {:.1}-{:.1} s, impairment {}, seed {}",
        cfg.events,
        cfg.min_interval.as_secs_f64(),
        cfg.max_interval.as_secs_f64(),
        cfg.impair.map_or("none".into(), |i| i.to_string()),
        cfg.seed
    );
    let r = soak::run(cfg, &mut line)?;
    summary(&r);
    if a.json {
        println!("{}", serde_json::to_string(&r)?);
    }
    if r.violations.is_empty() {
        println!("PASS: every message once and in order, every file intact, no association lost");
        Ok(ExitCode::SUCCESS)
    } else {
        for v in &r.violations {
            println!("FAIL: {v}");
        }
        Ok(ExitCode::from(1))
    }
}
