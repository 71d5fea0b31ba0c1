//! msctp-lab: the experiment layer. Everything around a single
//! simulation run, written against an abstract [`Runner`]:
//!
//! - experiment files ([`spec`]): variants, sweep axes, repetitions,
//!   figures, tables, published values, analytic formulas ([`formula`]),
//!   qualitative checks ([`check`]) and notes, validated strictly against
//!   the names the file declares ([`names`]);
//! - planning ([`plan`]): variants x points x repetitions, each run's
//!   scenario (dotted-key overrides, [`keypath`]) and seed ([`seed`]);
//! - execution ([`execute`], [`pool`]): one worker pool over the runs of
//!   every selected experiment, dearest first, with a progress bar;
//!   finished runs are stored at once as JSON ([`store`]) and never
//!   repeated;
//! - statistics ([`stats`]: mean, sample standard deviation, Student-t
//!   quantiles and intervals; [`aggregate`]: the summaries per (variant,
//!   point, metric), tidy CSV tables);
//! - [`analysis`] (the formulas and checks evaluated on the results),
//!   [`plot`] (PNG and SVG), [`report`] (Markdown tables and
//!   `docs/REPRODUCTION.md`), [`reproduce`] (one experiment end to end),
//!   [`adhoc`] (`msctp run` / `msctp sweep`), [`testing`] (claim tests for
//!   CI);
//! - distribution: [`shard`] (slices of a plan for job arrays) and
//!   [`study`] (plan, run anywhere, store, report: `--shard`,
//!   `--report-only` and the Python package).
//!
//! The file format is documented key by key in `crates/lab/README.md`.

pub mod adhoc;
pub mod aggregate;
pub mod analysis;
pub mod check;
pub mod error;
pub mod execute;
pub mod flatten;
pub mod formula;
pub mod keypath;
pub mod names;
pub mod plan;
pub mod plot;
pub mod pool;
pub mod record;
pub mod report;
pub mod reproduce;
pub mod runner;
pub mod runners;
pub mod seed;
pub mod shard;
pub mod sim_runner;
pub mod spec;
pub mod stats;
pub mod store;
pub mod study;
pub mod synthetic;
pub mod testing;
pub mod value;

pub use error::LabError;
pub use record::RunRecord;
pub use reproduce::{ExperimentRun, LabOptions, run_experiment, write_reproduction};
pub use runner::{FnRunner, RunError, Runner};
pub use shard::Shard;
pub use spec::{Experiment, ExperimentSpec};
pub use study::{RunOutcome, RunTask, Study, run_task};
