//! `msctp conformance [PATH...]`: runs packetdrill scripts (files, or
//! folders searched for `*.pkt`) against the engine in virtual time, one
//! line per script (a failure names the script line, the first mismatch,
//! and the expected and actual packet or value), then the totals. Exit
//! status 0 when every script passed, 1 otherwise.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use msctp_conformance::{Outcome, RunConfig, run_paths};

#[derive(clap::Args)]
pub struct Args {
    /// Scripts or folders (default: tests/conformance).
    pub paths: Vec<PathBuf>,
    /// The `#ifdef` branch to keep (FreeBSD is the one closest to RFC 9260
    /// behaviour; Linux is the other the ETSI scripts know).
    #[arg(long, default_value = "FreeBSD")]
    pub platform: String,
    /// Also print the packets the engine sent after each script's last
    /// event (not checked) and how many went to addresses the script
    /// does not own.
    #[arg(long, short)]
    pub verbose: bool,
    /// Print every packet in and out and every call, with its time.
    #[arg(long)]
    pub trace: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("tests/conformance")]
    } else {
        args.paths
    };
    let cfg = RunConfig {
        platform: args.platform,
        trace: args.trace,
        ..RunConfig::default()
    };
    let reports = run_paths(&paths, &cfg).context("reading the scripts")?;
    let mut passed = 0usize;
    let mut failed = 0usize;
    for r in &reports {
        let name = r.path.display();
        for t in &r.trace {
            println!("      {t}");
        }
        match &r.outcome {
            Outcome::Pass(sum) => {
                passed += 1;
                println!("pass  {name}");
                if args.verbose {
                    for t in &sum.trailing {
                        println!("      after the last event: {t}");
                    }
                    if sum.unobserved > 0 {
                        println!(
                            "      {} packet(s) to addresses the script does not own",
                            sum.unobserved
                        );
                    }
                }
            }
            Outcome::Fail(f) => {
                failed += 1;
                let mut line = format!("FAIL  {name}:{}: {}: {}", f.line, f.kind, f.message);
                if let Some(e) = &f.expected {
                    line.push_str(&format!(" | expected: {e}"));
                }
                if let Some(a) = &f.actual {
                    line.push_str(&format!(" | actual: {a}"));
                }
                println!("{line}");
            }
            Outcome::Error(e) => {
                failed += 1;
                println!("FAIL  {name}: cannot run: {e}");
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
