//! Runs a scenario file and writes its outputs:
//! `cargo run --example run_scenario -- FILE.toml OUTDIR [SEED]`.

use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: run_scenario FILE.toml OUTDIR [SEED]");
        std::process::exit(2);
    }
    let text = match std::fs::read_to_string(&args[1]) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{}: {e}", args[1]);
            std::process::exit(1);
        }
    };
    let s = match msctp_sim::scenario::parse(&text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let seed = args.get(3).and_then(|x| x.parse().ok()).unwrap_or(s.seed);
    match msctp_sim::scenario::run_scenario(&s, seed) {
        Ok(r) => {
            if let Err(e) = r.write_to_dir(Path::new(&args[2])) {
                eprintln!("{}: {e}", args[2]);
                std::process::exit(1);
            }
            println!("{}", r.summary_json());
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
