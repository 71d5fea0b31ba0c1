//! Runs one target on input files, as libFuzzer would, to debug a finding:
//! `cargo run -p msctp-fuzz --bin replay -- TARGET FILE...`.
//!
//! `--time` instead times the target over the files (directories are
//! read), as a profile of the harness's cost per input: the mean time
//! per input, the events and packets per input of the association
//! targets, and the slowest inputs. Build with `--release` for that.

use std::path::PathBuf;
use std::time::{Duration, Instant};

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
    let Some((target, files)) = args.split_first() else {
        eprintln!("usage: replay [--time] TARGET FILE|DIR...");
        std::process::exit(2);
    };
    let Some((_, run)) = msctp_fuzz::TARGETS.iter().find(|(n, _)| n == target) else {
        eprintln!("unknown target {target}");
        std::process::exit(2);
    };
    let files = inputs(files);
    let mut times: Vec<(Duration, PathBuf)> = Vec::new();
    for f in files {
        let data = std::fs::read(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let start = Instant::now();
        run(&data);
        if time {
            times.push((start.elapsed(), f));
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
        let per_input = |c: &std::sync::atomic::AtomicU64| {
            c.load(std::sync::atomic::Ordering::Relaxed) as f64 / times.len() as f64
        };
        println!(
            "per input: {:.1} events, {:.1} packets sent (association targets)",
            per_input(&msctp_fuzz::pair::STEPS),
            per_input(&msctp_fuzz::pair::PACKETS)
        );
        times.sort_by(|a, b| b.0.cmp(&a.0));
        for (d, f) in times.iter().take(10) {
            println!("{:>10.1} us  {}", d.as_secs_f64() * 1e6, f.display());
        }
    }
}
