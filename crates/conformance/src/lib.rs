//! msctp-conformance: a packetdrill-script interpreter that drives the
//! msctp engine directly, in virtual time, with no kernel.
//!
//! The scripts are packetdrill's (as the ETSI TS 102 369 SCTP test suite
//! writes them): socket calls of the RFC 6458 API interleaved with packets
//! injected (`<`) and packets expected (`>`) at given times. Read as
//! packetdrill does:
//! - `#ifdef NAME` sections keep the branch of the selected platform
//!   ([`RunConfig::platform`], `FreeBSD` by default); backtick commands
//!   are ignored; `--tolerance_usecs=N` sets the timing tolerance.
//! - The engine's first INIT or INIT ACK fixes the mapping of its symbolic
//!   tag and TSN ([`mapping`]); injected packets get the verification tag
//!   and CRC32c filled in unless `sctp(tag=N)` or `sctp(bad_crc32c)` says
//!   otherwise; `COOKIE_ECHO[val=...]` echoes the engine's cookie and
//!   `HEARTBEAT_ACK[...val=...]` its heartbeat information.
//! - Every `>` line is checked field by field ([`matcher`]); a packet the
//!   script does not expect, a missing one, or one outside its time window
//!   fails the script ([`runner`]).
//!
//! Extensions, all written in packetdrill's style:
//! - multi-homing: `--local_ip2=A` gives the engine a second address,
//!   `--remote_ip2=B` makes the script own a second peer address, and a
//!   packet line may name its addresses, `< SRC > DST sctp: ...`;
//! - ADD-IP (RFC 5061) and AUTH (RFC 4895): chunks `ASCONF`,
//!   `ASCONF_ACK`, `AUTH`; parameters `ADD_IP_ADDRESS`,
//!   `DELETE_IP_ADDRESS`, `SET_PRIMARY_ADDRESS`, `ERROR_CAUSE_INDICATION`,
//!   `SUCCESS_INDICATION`, `ADAPTATION_INDICATION`,
//!   `SUPPORTED_EXTENSIONS`, `RANDOM`, `CHUNKS`, `HMAC_ALGO`; causes
//!   `DELETE_LAST_REMAINING_ADDRESS`, `RESOURCE_SHORTAGE`,
//!   `DELETE_SOURCE_ADDRESS`, `ILLEGAL_ASCONF_ACK`, `REQUEST_REFUSED`,
//!   `UNSUPPORTED_HMAC_IDENTIFIER`; options `--asconf=on`, `--auth=on`,
//!   `--hmac=sha256,sha1`, `--auth_chunks=DATA,...`; system calls
//!   `sctp_bindx`, `sctp_getpaddrs`, `sctp_getladdrs` and the socket
//!   options `SCTP_PRIMARY_ADDR`, `SCTP_SET_PEER_PRIMARY_ADDR`;
//! - PR-SCTP (RFC 3758, RFC 7496) and SACK-IMMEDIATELY (RFC 7053), in
//!   packetdrill's syntax: the chunk `FORWARD_TSN[cum_tsn=N,
//!   ids=[{sid,ssn}, ...]]`, the DATA flag `I`; option `--pr_sctp=on`
//!   (or the script's `sysctl` of `net.inet.sctp.pr_enable`); the calls
//!   `sctp_sendv`, `sctp_sendmsg`, `sctp_recvv` and the socket options
//!   `SCTP_PR_SUPPORTED`, `SCTP_DEFAULT_PRINFO`, `SCTP_RECVRCVINFO`;
//! - I-DATA (RFC 8260) as the public sctplab/sctp-idata scripts write it:
//!   the chunks `I_DATA[flgs=, len=, tsn=, sid=, mid=, ppid= | fsn=]` and
//!   `I_FORWARD_TSN[cum_tsn=, ids=[{sid, u, mid}, ...]]`, the socket
//!   options `SCTP_FRAGMENT_INTERLEAVE` and `SCTP_INTERLEAVING_SUPPORTED`;
//! - stream reconfiguration (RFC 6525 section 6.3): the socket options
//!   `SCTP_ENABLE_STREAM_RESET`, `SCTP_RESET_STREAMS`, `SCTP_RESET_ASSOC`,
//!   `SCTP_ADD_STREAMS`;
//! - `sctp_connectx` (RFC 6458 section 9.9) to the script's addresses.
//!
//! A call or option the interpreter does not know, or one the engine
//! cannot honour, fails the script as unsupported, naming it and its line.
//!
//! Entry points: [`parse_script`], [`run_script`], [`run_file`],
//! [`run_paths`].

pub mod encode;
pub mod error;
pub mod lexer;
pub mod mapping;
pub mod matcher;
pub mod names;
pub mod parser;
pub mod preprocess;
pub mod render;
pub mod runner;
pub mod script;
pub mod sockets;
pub mod spec;
mod syscalls;
pub mod value;

use std::path::{Path, PathBuf};

pub use error::{Failure, FailureKind, ParseError};
pub use parser::parse_script;
pub use runner::{RunConfig, Summary};
pub use script::Script;

/// Bound on the size of a script file.
const MAX_SCRIPT_BYTES: u64 = 4 << 20;
/// Bound on the scripts one call runs.
const MAX_SCRIPTS: usize = 10_000;

/// What became of one script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Pass(Summary),
    Fail(Failure),
    /// The script could not be read or parsed.
    Error(String),
}

impl Outcome {
    pub fn passed(&self) -> bool {
        matches!(self, Outcome::Pass(_))
    }
}

/// One script's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptReport {
    pub path: PathBuf,
    pub outcome: Outcome,
    /// What happened, line by line, when [`RunConfig::trace`] is set.
    pub trace: Vec<String>,
}

/// Parses and runs a script's text.
pub fn run_script(text: &str, cfg: &RunConfig) -> Outcome {
    run_script_traced(text, cfg).0
}

/// Parses and runs a script's text, with the trace of the run.
pub fn run_script_traced(text: &str, cfg: &RunConfig) -> (Outcome, Vec<String>) {
    match parse_script(text, &cfg.platform) {
        Ok(s) => {
            let (result, trace) = runner::run_traced(&s, cfg);
            let outcome = match result {
                Ok(sum) => Outcome::Pass(sum),
                Err(f) => Outcome::Fail(f),
            };
            (outcome, trace)
        }
        Err(e) => (Outcome::Error(e.to_string()), Vec::new()),
    }
}

/// Reads and runs one script file.
pub fn run_file(path: &Path, cfg: &RunConfig) -> ScriptReport {
    let (outcome, trace) = match read_script(path) {
        Ok(text) => run_script_traced(&text, cfg),
        Err(e) => (Outcome::Error(e), Vec::new()),
    };
    ScriptReport {
        path: path.to_path_buf(),
        outcome,
        trace,
    }
}

/// A script: a regular file of at most [`MAX_SCRIPT_BYTES`] (or the
/// smaller input limit `msctp_input::max_file_size`).
fn read_script(path: &Path) -> Result<String, String> {
    let limit = msctp_input::max_file_size()
        .map_err(|e| e.to_string())?
        .min(MAX_SCRIPT_BYTES);
    msctp_input::read_text_limited(path, limit).map_err(|e| format!("{}: {e}", path.display()))
}

/// The `.pkt` files under the given files and directories (recursively),
/// in name order.
pub fn collect_scripts(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        collect_into(p, &mut out)?;
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn collect_into(p: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if out.len() >= MAX_SCRIPTS {
        return Ok(());
    }
    let meta = std::fs::metadata(p)?;
    if meta.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for e in entries {
            let is_dir = std::fs::metadata(&e).map(|m| m.is_dir()).unwrap_or(false);
            if is_dir || e.extension().is_some_and(|x| x == "pkt") {
                collect_into(&e, out)?;
            }
        }
    } else {
        out.push(p.to_path_buf());
    }
    Ok(())
}

/// Runs every script under `paths`.
pub fn run_paths(paths: &[PathBuf], cfg: &RunConfig) -> std::io::Result<Vec<ScriptReport>> {
    Ok(collect_scripts(paths)?
        .iter()
        .map(|p| run_file(p, cfg))
        .collect())
}
