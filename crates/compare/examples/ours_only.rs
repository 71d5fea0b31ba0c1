//! Profiling aid: our engine alone in the engine bench's transfer
//! (`perf record target/release/examples/ours_only [MB] [message]`).
use msctp_compare::engine_bench::{EngineBenchConfig, transfer};
use msctp_compare::peer::{Ours, Setup};

fn main() {
    let mut a = std::env::args().skip(1);
    let mb: usize = a.next().and_then(|x| x.parse().ok()).unwrap_or(256);
    let message: usize = a.next().and_then(|x| x.parse().ok()).unwrap_or(1424);
    let cfg = EngineBenchConfig {
        bytes: mb << 20,
        ..Default::default()
    };
    let s = Setup::default();
    match transfer(
        Ours::new(&s, false, 1),
        Ours::new(&s, true, 2),
        &cfg,
        message,
    ) {
        Ok(r) => println!("{:.1} MB per CPU-second", r / 1e6),
        Err(e) => eprintln!("{e}"),
    }
}
