//! Support for the per-study claim tests: run an experiment in quick mode
//! into a directory and fail, listing every claim whose verdict is not
//! the expected one, so that a regression in the models fails CI.
//!
//! ```no_run
//! # use msctp_lab::{pipeline::testing, runner::synthetic::SyntheticRunner};
//! # use std::path::Path;
//! let dir = tempfile::tempdir().unwrap();
//! testing::assert_claims(Path::new("experiments/e1.toml"), &SyntheticRunner, dir.path());
//! ```

use std::path::Path;

use crate::analysis::verdicts::CheckOutcome;
use crate::error::LabError;
use crate::execute::ExecOptions;
use crate::experiment::Experiment;
use crate::pipeline::reproduce::{LabOptions, run_experiment};
use crate::runner::Runner;

/// Runs the experiment file in quick mode (no plots) under `out` and
/// returns every check's outcome. Failed runs are an error.
pub fn quick_claims(
    spec: &Path,
    runner: &dyn Runner,
    out: &Path,
) -> Result<Vec<CheckOutcome>, LabError> {
    let exp = Experiment::load(spec)?;
    let opts = LabOptions {
        quick: true,
        repetitions: None,
        exec: ExecOptions {
            progress: false,
            ..ExecOptions::default()
        },
        out: out.to_path_buf(),
        plots: false,
        max_runs: crate::pipeline::reproduce::MAX_RUNS,
    };
    let run = run_experiment(exp, runner, &opts, true)?;
    if let Some(f) = run.failed().first() {
        return Err(LabError::Input(format!(
            "{} of {} runs failed; first: {}: {}",
            run.failed().len(),
            run.exec.total,
            f.what,
            f.error
        )));
    }
    Ok(run.analysis.checks)
}

/// Describes the outcomes that differ from what the file expects
/// (empty: all as expected).
pub fn unexpected_report(outcomes: &[CheckOutcome]) -> String {
    outcomes
        .iter()
        .filter(|c| !c.as_expected())
        .map(|c| {
            format!(
                "check {} ({}): \"{}\" — {} (expected to {:?}): {}\n",
                c.index,
                c.kind.name(),
                c.claim,
                c.verdict.word(),
                c.expect,
                c.detail
            )
        })
        .collect()
}

/// Panics with a list of the claims whose verdict is not the expected one
/// (for `#[test]` functions).
pub fn assert_claims(spec: &Path, runner: &dyn Runner, out: &Path) {
    match quick_claims(spec, runner, out) {
        Err(e) => panic!("{}: {e}", spec.display()),
        Ok(outcomes) => {
            let bad = unexpected_report(&outcomes);
            assert!(bad.is_empty(), "{}:\n{bad}", spec.display());
        }
    }
}

/// A `runs.csv` without its `wall_time_s` column (a measured time, the
/// one column two executions of the same runs may differ in): for tests
/// that compare the results of two ways of running a plan.
pub fn runs_csv_without_wall_time(csv: &str) -> String {
    let col = csv
        .lines()
        .next()
        .and_then(|h| h.split(',').position(|c| c == "wall_time_s"))
        .expect("a runs.csv header with wall_time_s");
    csv.lines()
        .map(|l| {
            let mut f: Vec<&str> = l.split(',').collect();
            f.remove(col);
            f.join(",")
        })
        .collect::<Vec<_>>()
        .join("\n")
}
