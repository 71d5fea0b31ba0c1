//! The comparisons of `msctp bench` with other implementations
//! (crates/compare): `msctp bench engine`, and the quinn and sctp-proto
//! contenders that `msctp bench net` runs after msctp's own.

use std::process::ExitCode;

use anyhow::bail;

/// `msctp bench engine`: our engine and sctp-proto, each between two
/// endpoints in one thread, payload bytes per CPU-second and the ratio;
/// `build` says how this `msctp` was built.
pub fn engine(megabytes: usize, runs: usize, json: bool, build: &str) -> anyhow::Result<ExitCode> {
    if megabytes == 0 || megabytes > 10_000 {
        bail!("--megabytes must lie in [1, 10000], got {megabytes}");
    }
    if runs == 0 || runs > 100 {
        bail!("--runs must lie in [1, 100], got {runs}");
    }
    let cfg = msctp_compare::engine_bench::EngineBenchConfig {
        bytes: megabytes << 20,
        runs,
        ..Default::default()
    };
    let r = msctp_compare::engine_bench::run(&cfg).map_err(anyhow::Error::msg)?;
    if json {
        let mut v = serde_json::to_value(&r)?;
        if let Some(o) = v.as_object_mut() {
            o.insert("build".into(), build.into());
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        println!("build: {build}");
        print!("{r}");
    }
    Ok(ExitCode::SUCCESS)
}

/// quinn and sctp-proto over loopback, after msctp's contenders.
pub fn net_contenders(
    bytes: u64,
    message: usize,
    only: &[String],
) -> msctp_compare::net::Contenders {
    msctp_compare::net::run(bytes, message, only)
}
