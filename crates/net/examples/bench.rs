//! Loopback throughput: msctp against usrsctp's tsctp and kernel TCP, in
//! one run. `cargo run --release -p msctp-net --example bench [MB] [MSG]`.

fn main() {
    let mut cfg = msctp_net::bench::BenchConfig::default();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(mb) = args.first().and_then(|a| a.parse::<u64>().ok()) {
        cfg.bytes = mb * 1_000_000;
    }
    if let Some(m) = args.get(1).and_then(|a| a.parse::<usize>().ok()) {
        cfg.message = m;
    }
    match msctp_net::bench::run(&cfg) {
        Ok(r) => print!("{r}"),
        Err(e) => {
            eprintln!("bench: {e}");
            std::process::exit(1);
        }
    }
}
