//! The abstract runner: whatever turns one scenario and one seed into a
//! [`RunRecord`]. The simulator's scenario runner is one; the tests use
//! fake ones. The lab never looks inside a scenario except to apply the
//! overrides of variants and sweep axes (dotted key paths).

use std::path::Path;

pub use crate::record::RunError;
use crate::record::RunRecord;

/// Runs one scenario with one seed. Implementations must be
/// deterministic (same scenario and seed, same record) and independent
/// (a run builds its own world inside the calling thread: the
/// simulator's `World` is not `Send`, so nothing of a run crosses
/// threads except the scenario table in and the record out).
pub trait Runner: Sync {
    /// Short name (`sim`, `synthetic`), as written in experiment files.
    fn name(&self) -> &str;

    /// Identifies the model's version; part of every run's storage key, so
    /// results of another model version are not reused. Default: none.
    fn fingerprint(&self) -> String {
        String::new()
    }

    /// Checks a scenario without running it, so a bad override is
    /// reported before hours of runs. Default: accepts everything.
    fn validate(&self, _scenario: &toml::Table) -> Result<(), RunError> {
        Ok(())
    }

    /// Runs the scenario with `seed`.
    fn run(&self, scenario: &toml::Table, seed: u64) -> Result<RunRecord, RunError>;

    /// Runs the scenario and writes its detailed outputs (traces,
    /// captures) into `dir`, for `msctp run --out`. Default: [`run`](Self::run)
    /// without extra files.
    fn run_with_outputs(
        &self,
        scenario: &toml::Table,
        seed: u64,
        _dir: &Path,
    ) -> Result<RunRecord, RunError> {
        self.run(scenario, seed)
    }
}

/// A runner made of a closure (tests, small models).
pub struct FnRunner<F> {
    name: String,
    f: F,
}

impl<F> FnRunner<F>
where
    F: Fn(&toml::Table, u64) -> Result<RunRecord, RunError> + Sync,
{
    pub fn new(name: impl Into<String>, f: F) -> Self {
        FnRunner {
            name: name.into(),
            f,
        }
    }
}

impl<F> Runner for FnRunner<F>
where
    F: Fn(&toml::Table, u64) -> Result<RunRecord, RunError> + Sync,
{
    fn name(&self) -> &str {
        &self.name
    }
    fn run(&self, scenario: &toml::Table, seed: u64) -> Result<RunRecord, RunError> {
        (self.f)(scenario, seed)
    }
}

/// A fingerprint of the running executable: the SHA-256 of its bytes
/// (hex, 16 digits), computed once. A runner whose model is compiled into
/// the binary can return it from [`Runner::fingerprint`], so any rebuild
/// of the model makes new storage keys and stored runs of an older model
/// are never mistaken for current ones (at the price of re-running after
/// an unrelated rebuild). `"unknown"` when the executable cannot be read.
pub fn binary_fingerprint() -> String {
    use sha2::{Digest, Sha256};
    static FP: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    FP.get_or_init(|| {
        std::env::current_exe()
            .and_then(std::fs::read)
            .map(|bytes| {
                Sha256::digest(&bytes)[..8]
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect()
            })
            .unwrap_or_else(|_| "unknown".into())
    })
    .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_fingerprint_is_stable() {
        let a = binary_fingerprint();
        assert_eq!(a.len(), 16);
        assert_eq!(a, binary_fingerprint());
    }
}
