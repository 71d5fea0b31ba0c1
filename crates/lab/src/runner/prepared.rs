//! A scenario checked once and ready to run with any seed: a plan's cell
//! is prepared once (when the plan is checked, [`prepare`]), and the pool
//! runs each of the cell's seeds from it, so a runner that resolves its
//! scenario (the simulator) does so once per cell, not once more per run.

use std::sync::Arc;

use crate::runner::{RunError, RunRecord, Runner};

/// One cell's scenario as the runner prepared it. Shared by the pool's
/// threads (each run builds its own world from it).
pub trait PreparedScenario: Send + Sync {
    /// Runs the scenario with `seed`.
    fn run(&self, seed: u64) -> Result<RunRecord, RunError>;

    /// What running it costs ([`Runner::cost_hint`]).
    fn cost_hint(&self) -> f64;

    /// Runs it with `seed` and writes the run's detailed outputs into
    /// `dir` ([`Runner::run_with_outputs`]).
    fn run_with_outputs(&self, seed: u64, dir: &std::path::Path) -> Result<RunRecord, RunError>;
}

/// A prepared scenario of a runner that lives `'a`.
pub type Prepared<'a> = Box<dyn PreparedScenario + 'a>;

/// Checks `scenario` with `runner` and prepares it for its runs
/// ([`Runner::prepare_own`]; a runner that prepares nothing of its own
/// gets the table validated and kept).
pub fn prepare<'a>(
    runner: &'a dyn Runner,
    scenario: &toml::Table,
) -> Result<Prepared<'a>, RunError> {
    if let Some(p) = runner.prepare_own(scenario) {
        return p;
    }
    Table::checked(Held::Borrowed(runner), scenario)
}

/// [`prepare`] with a runner the prepared cell shares, so that it lives
/// as long as the cell does: what a [`crate::Study`], which owns its
/// runner, keeps for its runs.
pub fn prepare_shared(
    runner: &Arc<dyn Runner + Send>,
    scenario: &toml::Table,
) -> Result<Prepared<'static>, RunError> {
    if let Some(p) = runner.prepare_own(scenario) {
        return p;
    }
    Table::checked(Held::Shared(Arc::clone(runner)), scenario)
}

/// The runner a [`Table`] runs its scenario with.
enum Held<'a> {
    Borrowed(&'a dyn Runner),
    Shared(Arc<dyn Runner + Send>),
}

impl Held<'_> {
    fn get(&self) -> &dyn Runner {
        match self {
            Held::Borrowed(r) => *r,
            Held::Shared(r) => r.as_ref(),
        }
    }
}

/// The table itself, run by the runner each time.
struct Table<'a> {
    runner: Held<'a>,
    scenario: toml::Table,
    cost: f64,
}

impl<'a> Table<'a> {
    /// The table validated by the runner and kept.
    fn checked(runner: Held<'a>, scenario: &toml::Table) -> Result<Prepared<'a>, RunError> {
        runner.get().validate(scenario)?;
        Ok(Box::new(Table {
            cost: runner.get().cost_hint(scenario),
            runner,
            scenario: scenario.clone(),
        }))
    }
}

impl PreparedScenario for Table<'_> {
    fn run(&self, seed: u64) -> Result<RunRecord, RunError> {
        self.runner.get().run(&self.scenario, seed)
    }

    fn cost_hint(&self) -> f64 {
        self.cost
    }

    fn run_with_outputs(&self, seed: u64, dir: &std::path::Path) -> Result<RunRecord, RunError> {
        self.runner
            .get()
            .run_with_outputs(&self.scenario, seed, dir)
    }
}
