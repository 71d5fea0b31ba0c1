//! `msctp-modgraph [--edges] SRC_DIR...`: the circles among sibling
//! modules of each crate (exit status 1 if there is one); with `--edges`
//! every dependency between siblings too.

use std::path::Path;
use std::process::ExitCode;

use msctp_modgraph::Crate;

fn main() -> ExitCode {
    let mut edges = false;
    let mut dirs = Vec::new();
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "--edges" => edges = true,
            "-h" | "--help" => {
                println!("usage: msctp-modgraph [--edges] SRC_DIR...");
                return ExitCode::SUCCESS;
            }
            _ => dirs.push(a),
        }
    }
    if dirs.is_empty() {
        eprintln!("usage: msctp-modgraph [--edges] SRC_DIR...");
        return ExitCode::from(2);
    }
    let mut found = false;
    for d in &dirs {
        let c = match Crate::load(Path::new(d)) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
        };
        if edges {
            for e in c.edges() {
                println!("{d}: {}: {} -> {}   ({})", e.level, e.from, e.to, e.witness);
            }
        }
        let circles = c.circles();
        if circles.is_empty() {
            println!("{d}: no circles");
        }
        for circle in circles {
            found = true;
            print!("{d}: {circle}");
        }
    }
    if found {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
