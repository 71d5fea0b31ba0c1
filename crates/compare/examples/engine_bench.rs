//! `cargo run --release -p msctp-compare --example engine_bench [MB]`:
//! the engine bench alone (also `msctp bench engine`).
fn main() {
    let mb: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(64);
    let cfg = msctp_compare::engine_bench::EngineBenchConfig {
        bytes: mb << 20,
        ..Default::default()
    };
    match msctp_compare::engine_bench::run(&cfg) {
        Ok(r) => print!("{r}"),
        Err(e) => eprintln!("engine bench: {e}"),
    }
}
