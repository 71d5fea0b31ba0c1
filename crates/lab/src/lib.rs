//! msctp-lab: the experiment layer. Everything around a single
//! simulation run, written against an abstract [`Runner`]. One folder per
//! stage, in the order a run goes through them:
//!
//! 1. [`experiment`]: the experiment file (`experiments/*.toml`):
//!    variants, sweep axes, repetitions, figures, tables, published
//!    values, analytic formulas ([`experiment::formulas`]), qualitative
//!    checks ([`experiment::checks`]) and notes, validated strictly
//!    against the names the file declares ([`experiment::names`]); axis
//!    values ([`experiment::value`]);
//! 2. [`plan`]: variants x points x repetitions, each run's scenario
//!    (dotted-key overrides, [`keypath`]), seed and storage key
//!    ([`plan::seed`]); slices of a plan for job arrays ([`plan::shard`]);
//! 3. [`runner`]: what turns one scenario and one seed into a
//!    [`RunRecord`]: the [`Runner`] trait, the simulator
//!    ([`runner::simulator`]), the synthetic runner
//!    ([`runner::synthetic`]), the runners known by name
//!    ([`runner::by_name`]) and the flattening of a run summary into
//!    named metrics ([`runner::flatten`]);
//! 4. [`execute`]: one worker pool over the runs of every selected
//!    experiment, dearest first ([`execute::pool`]), with a progress bar;
//! 5. [`store`]: finished runs stored at once as JSON and never repeated;
//!    the tidy CSV tables;
//! 6. [`aggregate`]: the summaries per (variant, point, metric), with
//!    [`aggregate::stats`] (mean, sample standard deviation, Student-t
//!    intervals);
//! 7. [`analysis`]: the formulas, the published values and the checks'
//!    verdicts ([`analysis::verdicts`]) evaluated on the results;
//! 8. [`report`]: Markdown tables and `docs/REPRODUCTION.md`, figures
//!    ([`report::plot`], PNG and SVG).
//!
//! [`pipeline`] chains the stages for each caller: `msctp reproduce`
//! ([`pipeline::reproduce`]), `msctp run` / `msctp sweep`
//! ([`pipeline::adhoc`]), runs executed elsewhere (`--shard`,
//! `--report-only`, the Python package: [`pipeline::study`]) and the
//! claim tests of CI ([`pipeline::testing`]).
//!
//! The file format is documented key by key in `crates/lab/README.md`.

pub mod aggregate;
pub mod analysis;
pub mod error;
pub mod execute;
pub mod experiment;
pub mod keypath;
pub mod pipeline;
pub mod plan;
pub mod report;
pub mod robustness;
pub mod runner;
pub mod store;

pub use error::LabError;
pub use experiment::{Experiment, ExperimentSpec};
pub use pipeline::reproduce::{ExperimentRun, LabOptions, run_experiment, write_reproduction};
pub use pipeline::study::{RunOutcome, RunTask, Study, run_task};
pub use plan::shard::Shard;
pub use runner::record::RunRecord;
pub use runner::{FnRunner, RunError, Runner};

// The flat paths of the lab before it was arranged along its pipeline,
// kept only so that code written against them on other branches still
// builds after a merge; nothing in the workspace uses them. Remove once
// this round's branches are merged.
#[doc(hidden)]
pub use {
    aggregate::stats,
    execute::pool,
    experiment as spec,
    experiment::{checks as check, formulas as formula, names, value},
    pipeline::{adhoc, reproduce, study, testing},
    plan::{seed, shard},
    report::plot,
    runner::{flatten, record, simulator as sim_runner, synthetic},
};
