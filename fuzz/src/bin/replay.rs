//! Runs one target on input files, as libFuzzer would, to debug a finding:
//! `cargo run -p msctp-fuzz --bin replay -- TARGET FILE...`.
//!
//! `--time [--repeat N]` instead times the target over the files
//! (directories are read; each file run N times, for `perf record`), as a
//! profile of the harness's cost per input: the mean time per input, the
//! events and packets per input of the association targets, and the
//! slowest inputs. Build with `--release` for that.

use std::path::PathBuf;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use msctp_fuzz::pair::{PACKETS, STEPS};

fn inputs(args: &[String]) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for a in args {
        let p = PathBuf::from(a);
        if p.is_dir() {
            let mut d: Vec<PathBuf> = std::fs::read_dir(&p)
                .unwrap_or_else(|e| panic!("{a}: {e}"))
                .flatten()
                .map(|e| e.path())
                .collect();
            d.sort();
            v.extend(d);
        } else {
            v.push(p);
        }
    }
    v
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let time = args.first().is_some_and(|a| a == "--time");
    if time {
        args.remove(0);
    }
    let mut repeat = 1u32;
    if time && args.first().is_some_and(|a| a == "--repeat") {
        repeat = args.get(1).and_then(|n| n.parse().ok()).unwrap_or_else(|| {
            eprintln!("--repeat needs a count");
            std::process::exit(2);
        });
        args.drain(..2);
    }
    let Some((target, files)) = args.split_first() else {
        eprintln!("usage: replay [--time [--repeat N]] TARGET FILE|DIR...");
        std::process::exit(2);
    };
    let Some((_, run)) = msctp_fuzz::TARGETS.iter().find(|(n, _)| n == target) else {
        eprintln!("unknown target {target}");
        std::process::exit(2);
    };
    let files = inputs(files);
    let mut times: Vec<(Duration, PathBuf)> = Vec::new();
    if time && let Some(f) = files.first() {
        // The targets build their base state once, on the first input:
        // that is set-up, not the cost of an input.
        run(&std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display())));
        STEPS.store(0, Relaxed);
        PACKETS.store(0, Relaxed);
    }
    for f in files {
        let data = std::fs::read(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let start = Instant::now();
        for _ in 0..repeat {
            run(&data);
        }
        if time {
            times.push((start.elapsed() / repeat, f));
        } else {
            println!("{}: ok", f.display());
        }
    }
    if time && !times.is_empty() {
        let total: Duration = times.iter().map(|t| t.0).sum();
        println!(
            "{} inputs, {:.1} us per input, {:.0} inputs/s",
            times.len(),
            total.as_secs_f64() * 1e6 / times.len() as f64,
            times.len() as f64 / total.as_secs_f64()
        );
        let runs = times.len() as f64 * f64::from(repeat);
        let per_input = |c: &std::sync::atomic::AtomicU64| c.load(Relaxed) as f64 / runs;
        println!(
            "per input: {:.1} events, {:.1} packets sent (association targets)",
            per_input(&STEPS),
            per_input(&PACKETS)
        );
        times.sort_by_key(|t| std::cmp::Reverse(t.0));
        for (d, f) in times.iter().take(10) {
            println!("{:>10.1} us  {}", d.as_secs_f64() * 1e6, f.display());
        }
    }
}
