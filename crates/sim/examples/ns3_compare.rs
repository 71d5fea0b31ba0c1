//! The TCP agent on simulator links against ns-3 3.37 (bench/ns3/README.md),
//! the programs behind `bench/ns3/compare.sh`:
//!
//! - `table`: the comparison table of `bench/ns3/COMPARISON.md` from the
//!   ns-3 results named by `NS3_RESULTS` (default: the recorded
//!   `bench/ns3/results-3.37.jsonl`), `SIM_RUNS` seeds for the lossy
//!   scenarios (default 20), written to `COMPARISON_OUT` if set;
//! - `speed`: scenario (e) side by side with the compiled ns-3 program
//!   named by `NS3_TCP_BULK` (default `/tmp/ns3bin/tcp_bulk`);
//! - `speed-sim`: scenario (e) three times in the simulator alone.
//!
//! `cargo run --release -p msctp-sim --example ns3_compare -- table`.
//! The assertions against the recorded results are the test
//! `crates/sim/tests/tcp_ns3.rs`.

use std::path::{Path, PathBuf};

use msctp_sim::models::tcp::reference::{self, ns3_scenario, read_ns3_results, run_bulk};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let what = std::env::args().nth(1).unwrap_or_default();
    match what.as_str() {
        "table" => table(),
        "speed" => {
            let prog =
                std::env::var("NS3_TCP_BULK").unwrap_or_else(|_| "/tmp/ns3bin/tcp_bulk".into());
            let r = reference::speed_benchmark(Path::new(&prog))?;
            println!("{}", r.render());
            Ok(())
        }
        "speed-sim" => {
            let s = ns3_scenario("e", false, 1).ok_or("no ns-3 scenario (e)")?;
            for _ in 0..3 {
                let o = run_bulk(&s)?;
                println!(
                    "msctp-sim scenario e: wall {:.3} s, {} events, goodput {:.4} Mbit/s",
                    o.wall.as_secs_f64(),
                    o.events,
                    o.goodput_bps / 1e6
                );
            }
            Ok(())
        }
        _ => Err(format!("usage: ns3_compare table|speed|speed-sim (not {what:?})").into()),
    }
}

fn table() -> Result<(), Box<dyn std::error::Error>> {
    let ns3_path = std::env::var("NS3_RESULTS")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/ns3/results-3.37.jsonl")
        });
    let ns3 = read_ns3_results(&ns3_path)?;
    let runs = match std::env::var("SIM_RUNS") {
        Ok(s) => s.parse().map_err(|e| format!("SIM_RUNS={s:?}: {e}"))?,
        Err(_) => 20,
    };
    let table = reference::comparison_markdown(&ns3, runs)?;
    println!("{table}");
    if let Ok(out) = std::env::var("COMPARISON_OUT") {
        std::fs::write(out, table)?;
    }
    Ok(())
}
