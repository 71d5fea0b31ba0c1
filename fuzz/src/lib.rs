//! The fuzz targets of msctp, as plain functions.
//!
//! Each module is one target: `run(&[u8])` takes one input and panics on
//! a finding. The libFuzzer harness (`fuzz/libfuzzer`, built by
//! cargo-fuzz, see `scripts/fuzz.sh`) calls these functions; the ordinary
//! test suite replays the checked-in corpus (`fuzz/corpus/<target>/`)
//! through the same functions (`fuzz/tests/corpus.rs`), so a finding, once
//! its input is in the corpus, stays fixed without libFuzzer or nightly.

pub mod chunks;
pub mod codec;
pub mod established;
pub mod listener;
pub mod pair;
pub mod scenario;
pub mod script;
pub mod seeds;
pub mod session;
pub mod wire_out;

/// A target: one input in, a panic on a finding.
pub type Target = fn(&[u8]);

/// The targets by name, as the corpus directories and the libFuzzer
/// binaries are named.
pub const TARGETS: &[(&str, Target)] = &[
    ("codec", codec::run),
    ("listener", listener::run),
    ("established", established::run),
    ("session", session::run),
    ("scenario", scenario::run),
    ("script", script::run),
];

/// `FUZZ_TRACE=1` makes the targets print the steps they run (for the
/// `replay` binary when a finding needs explaining).
pub fn trace() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("FUZZ_TRACE").is_some())
}
