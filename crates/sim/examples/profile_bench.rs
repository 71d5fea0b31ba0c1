//! One run of a `msctp bench sim` scenario, for profilers: the bulk
//! transfer or the stations scenario, once, single-threaded and
//! deterministic, so that instruction counts compare simulator changes on
//! a busy machine:
//!
//! ```sh
//! cargo build --release -p msctp-sim --example profile_bench
//! valgrind --tool=callgrind target/release/examples/profile_bench bulk 20
//! valgrind --tool=callgrind target/release/examples/profile_bench stations 1000 10 [estimators]
//! ```
//!
//! Arguments: `bulk SECONDS [estimators]` or `stations N SECONDS
//! [estimators]`. Prints the events, packets and bytes delivered, so that
//! two builds can be checked to simulate the same thing. `docs/measurements/simulator-hot-path.md`
//! records the counts.

use msctp_sim::bench::{BenchConfig, bulk_scenario, stations_scenario};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let estimators = args.iter().any(|a| a == "estimators");
    let num = |i: usize, default: f64| {
        args.get(i)
            .and_then(|a| a.parse::<f64>().ok())
            .unwrap_or(default)
    };
    let s = match args.first().map(String::as_str) {
        Some("stations") => stations_scenario(num(1, 100.0) as usize, num(2, 10.0), estimators),
        _ => bulk_scenario(&BenchConfig {
            duration_s: num(1, 20.0),
            ..Default::default()
        })
        .map(|mut s| {
            s.flows[0].sctp.association.estimators.enabled = estimators;
            s
        }),
    };
    let s = match s {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    match msctp_sim::bench::measure(&s, 1) {
        Ok(r) => println!(
            "events {} packets {} bytes delivered {} CPU {:.3} s",
            r.events, r.packets, r.bytes_delivered, r.cpu_s
        ),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
