//! The abstract runner: whatever turns one scenario and one seed into a
//! [`RunRecord`]. The simulator's scenario runner is one; the tests use
//! fake ones. The lab never looks inside a scenario except to apply the
//! overrides of variants and sweep axes (dotted key paths).

use std::path::Path;

pub mod flatten;
mod known;
mod prepared;
pub mod record;
pub mod simulator;
pub mod synthetic;

pub use known::{NAMES, by_name};
pub use prepared::{Prepared, PreparedScenario, prepare, prepare_shared};
pub use record::{RunError, RunRecord};

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

    /// What the scenario reads besides itself (files it names, such as a
    /// mobility trace), as a digest of their contents: part of every run's
    /// storage key, so a run is not reused after such a file changed.
    /// Default: nothing read.
    fn inputs_digest(&self, _scenario: &toml::Table) -> String {
        String::new()
    }

    /// Checks a scenario without running it, so a bad override is
    /// reported before hours of runs. Default: accepts everything.
    fn validate(&self, _scenario: &toml::Table) -> Result<(), RunError> {
        Ok(())
    }

    /// Runs the scenario with `seed`.
    fn run(&self, scenario: &toml::Table, seed: u64) -> Result<RunRecord, RunError>;

    /// What running the scenario costs, relative to the runner's other
    /// scenarios, estimated before any run (any unit; only the order
    /// matters): the pool starts the dearest runs first, so that no long
    /// run is left alone at the end ([`crate::execute::pool`]). It decides the
    /// order of the runs, never a result. Default: 1 (plan order).
    fn cost_hint(&self, _scenario: &toml::Table) -> f64 {
        1.0
    }

    /// Checks the scenario and prepares it for all its runs at once (a
    /// simulator resolves it): what [`prepare`] hands the pool, one per
    /// cell of a plan. `None` (the default): the runner prepares nothing
    /// of its own, and [`prepare`] validates the table and keeps it. The
    /// prepared cell owns what it needs (it may outlive the borrow of the
    /// runner, [`prepare_shared`]).
    fn prepare_own(&self, _scenario: &toml::Table) -> Option<Result<Prepared<'static>, RunError>> {
        None
    }

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

/// The fingerprint of the simulation model compiled into this build: a
/// hash of the sources of this crate and of every workspace crate it
/// depends on, of `Cargo.lock` and of the target (computed by
/// `build.rs`; 16 hex digits). A runner whose model is compiled in returns
/// it from [`Runner::fingerprint`]: any change to the model makes new
/// storage keys, so stored runs of an older model are never taken for
/// current ones, while the `msctp` command and the Python extension built
/// from the same sources agree and share one results store.
pub fn model_fingerprint() -> String {
    env!("MSCTP_MODEL_FINGERPRINT").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_fingerprint_is_16_hex_digits() {
        let a = model_fingerprint();
        assert_eq!(a.len(), 16);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()), "{a}");
    }
}
