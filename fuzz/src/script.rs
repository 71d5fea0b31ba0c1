//! Target `script`: the conformance-script parser (packetdrill syntax,
//! `msctp_conformance::parse_script`) and, for what parses, the
//! interpreter that runs it against the engine in virtual time.
//!
//! Checked: any text is parsed or refused with an error naming the line,
//! never a panic; a script that parses runs to a pass or a failure (a
//! script that makes the engine misbehave is a failure of the script, not
//! a crash of the interpreter). The first input byte chooses the `#ifdef`
//! platform; the seed corpus holds every script of `tests/conformance`.

use msctp_conformance::{Outcome, RunConfig, run_script};

pub const MAX_LEN: usize = 16 * 1024;
const PLATFORMS: [&str; 3] = ["FreeBSD", "Linux", "msctp"];

/// Runs one input.
pub fn run(data: &[u8]) {
    if let Some(Outcome::Error(e)) = outcome(data) {
        assert!(!e.is_empty());
    }
}

/// What became of the script in `data` (`None`: not UTF-8, or empty).
pub fn outcome(data: &[u8]) -> Option<Outcome> {
    let data = &data[..data.len().min(MAX_LEN)];
    let (&platform, rest) = data.split_first()?;
    let text = std::str::from_utf8(rest).ok()?;
    let cfg = RunConfig {
        platform: PLATFORMS[usize::from(platform) % PLATFORMS.len()].into(),
        ..RunConfig::default()
    };
    Some(run_script(text, &cfg))
}
