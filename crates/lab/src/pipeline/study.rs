//! One experiment as a library, for whoever runs its runs somewhere else
//! than [`run_experiment`]'s thread pool: `msctp reproduce --shard I/N`
//! (a job array), and the Python package's executors (a process pool, a
//! Dask cluster).
//!
//! The plan, seeds, storage keys, store and report are the lab's own, so
//! the results equal those of `msctp reproduce` byte for byte: a
//! [`Study`] hands out [`RunTask`]s (the full scenario as TOML text, the
//! seed, the runner and model fingerprint), [`run_task`] runs one on any
//! machine with the same build, and [`Study::store`] writes the outcome
//! to the results store exactly as the pool does ([`run_file`]).
//! [`Study::report`] is `msctp reproduce --report-only`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::aggregate::aggregate;
use crate::error::LabError;
use crate::execute::pool::{PoolJob, execute_pool};
use crate::execute::{ExecReport, FailedRun, describe_run, run_file};
use crate::experiment::Experiment;
use crate::pipeline::adhoc::summarize_sweep;
use crate::pipeline::reproduce::{ExperimentRun, LabOptions, prepare_cells_with, run_experiment};
use crate::plan::Plan;
use crate::plan::shard::Shard;
use crate::runner;
use crate::runner::record::RunRecord;
use crate::runner::{Prepared, RunError, Runner};
use crate::store::Store;

/// A planned experiment with its results store.
pub struct Study {
    exp: Experiment,
    plan: Plan,
    store: Store,
    runner: Arc<dyn Runner + Send>,
    /// One per [`Plan::cells`], prepared (the simulator: resolved) when
    /// the plan was checked; the runs start from them, so that a cell is
    /// resolved once, as in `msctp reproduce`.
    cells: Vec<Prepared<'static>>,
    opts: LabOptions,
}

/// Everything a worker needs to run one run of a plan, anywhere.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunTask {
    /// Index into [`Plan::runs`].
    pub run: usize,
    pub key: String,
    /// The runner's name (`sim`, `synthetic`).
    pub runner: String,
    /// The model fingerprint of the planning side; a worker with another
    /// build refuses the task.
    pub fingerprint: String,
    /// The cell's full scenario (what `scenarios/<cell>.toml` holds).
    pub scenario: String,
    pub seed: u64,
}

/// What a worker sends back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunOutcome {
    /// The worker's model fingerprint.
    pub fingerprint: String,
    /// Seconds the run took on the worker.
    pub wall_time_s: f64,
    pub result: Result<RunRecord, RunError>,
}

/// Runs one task in the calling thread with the runner it names (the
/// worker side). A panic of the model is caught and returned as
/// [`RunError::Panicked`], as in the lab's own pool.
pub fn run_task(task: &RunTask) -> RunOutcome {
    let runner = match runner::by_name(&task.runner) {
        Ok(r) => r,
        Err(e) => {
            return RunOutcome {
                fingerprint: String::new(),
                wall_time_s: 0.0,
                result: Err(RunError::Failed(e)),
            };
        }
    };
    let fingerprint = runner.fingerprint();
    let refuse = |e: RunError| RunOutcome {
        fingerprint: fingerprint.clone(),
        wall_time_s: 0.0,
        result: Err(e),
    };
    if fingerprint != task.fingerprint {
        return refuse(RunError::Failed(format!(
            "this worker's model is build {fingerprint}, the experiment was planned with build {}: \
             install the same msctp build everywhere",
            task.fingerprint
        )));
    }
    let scenario: toml::Table = match toml::from_str(&task.scenario) {
        Ok(t) => t,
        Err(e) => return refuse(RunError::Scenario(e.to_string())),
    };
    let t = Instant::now();
    let result = catch_unwind(AssertUnwindSafe(|| runner.run(&scenario, task.seed)))
        .unwrap_or_else(|p| Err(RunError::Panicked(crate::execute::panic_message(&p))));
    RunOutcome {
        fingerprint,
        wall_time_s: t.elapsed().as_secs_f64(),
        result,
    }
}

impl Study {
    /// Plans the experiment, checks (prepares) every cell's scenario with
    /// the runner and opens its results directory `<opts.out>/<id>/`.
    pub fn open(
        exp: Experiment,
        runner: Box<dyn Runner + Send>,
        opts: LabOptions,
    ) -> Result<Study, LabError> {
        let runner: Arc<dyn Runner + Send> = Arc::from(runner);
        let (plan, cells) = prepare_cells_with(&exp, runner.as_ref(), &opts, |s| {
            runner::prepare_shared(&runner, s)
        })?;
        let store = Store::open(&opts.out.join(&exp.spec.id))?;
        Ok(Study {
            exp,
            plan,
            store,
            runner,
            cells,
            opts,
        })
    }

    /// [`Study::open`] with the runner the experiment file names.
    pub fn open_default(exp: Experiment, opts: LabOptions) -> Result<Study, LabError> {
        let runner = runner::by_name(&exp.spec.runner).map_err(|message| LabError::Runner {
            experiment: exp.spec.id.clone(),
            message,
        })?;
        Study::open(exp, runner, opts)
    }

    pub fn experiment(&self) -> &Experiment {
        &self.exp
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    pub fn options(&self) -> &LabOptions {
        &self.opts
    }

    pub fn runner(&self) -> &dyn Runner {
        self.runner.as_ref()
    }

    /// The experiment's result directory.
    pub fn dir(&self) -> &Path {
        &self.store.dir
    }

    /// Whether run `run` is in the store.
    pub fn is_stored(&self, run: usize) -> bool {
        self.store.load(&self.plan.runs[run].key).is_some()
    }

    /// The runs of `shard` (all runs without one), in plan order.
    pub fn runs(&self, shard: Option<Shard>) -> Vec<usize> {
        match shard {
            Some(s) => s.runs(&self.plan),
            None => (0..self.plan.runs.len()).collect(),
        }
    }

    /// The runs among `runs` still to do: not stored, or all of them with
    /// `opts.exec.fresh`.
    pub fn pending(&self, runs: &[usize]) -> Vec<usize> {
        runs.iter()
            .copied()
            .filter(|&r| self.opts.exec.fresh || !self.is_stored(r))
            .collect()
    }

    /// The task of run `run`.
    pub fn task(&self, run: usize) -> RunTask {
        let r = &self.plan.runs[run];
        RunTask {
            run,
            key: r.key.clone(),
            runner: self.runner.name().to_string(),
            fingerprint: self.runner.fingerprint(),
            scenario: self.plan.cells[r.cell].canonical.clone(),
            seed: r.seed,
        }
    }

    /// Stores what a worker returned for run `run`, exactly as the lab's
    /// own pool does. A failed run is returned (nothing is stored, so it
    /// is tried again next time); an outcome from another model build, or
    /// a record the lab cannot store, is a failure too.
    pub fn store(&self, run: usize, outcome: RunOutcome) -> Result<Option<FailedRun>, LabError> {
        let failed = |error| FailedRun {
            key: self.plan.runs[run].key.clone(),
            what: describe_run(&self.plan, run),
            error,
        };
        let record = match outcome.result {
            Ok(r) => r,
            Err(e) => return Ok(Some(failed(e))),
        };
        let mine = self.runner.fingerprint();
        if outcome.fingerprint != mine {
            return Ok(Some(failed(RunError::Failed(format!(
                "run on model build {}, not this build {mine}",
                outcome.fingerprint
            )))));
        }
        if let Err(e) = record.check(self.opts.exec.max_series_points) {
            return Ok(Some(failed(e)));
        }
        let file = run_file(
            &self.plan,
            run,
            self.runner.as_ref(),
            record,
            outcome.wall_time_s,
        );
        self.store.save(&file)?;
        Ok(None)
    }

    /// Runs the missing runs among `runs` on this machine's thread pool
    /// (`opts.exec.jobs` threads) and stores them.
    pub fn execute(&self, runs: &[usize]) -> Result<ExecReport, LabError> {
        let mut r = execute_pool(&[self.pool_job(runs)], &self.opts.exec).map_err(|e| e.error)?;
        Ok(r.jobs.remove(0))
    }

    /// The runs among `runs` as a job of a pool shared with other studies
    /// ([`crate::execute::pool::execute_pool`]): `msctp reproduce --shard` runs the
    /// slice of every selected experiment on one pool.
    pub fn pool_job<'a>(&'a self, runs: &'a [usize]) -> PoolJob<'a> {
        PoolJob {
            plan: &self.plan,
            runs,
            runner: self.runner.as_ref(),
            store: &self.store,
            cells: Some(&self.cells),
        }
    }

    /// Rebuilds `runs.csv` from the stored runs of the plan; returns its
    /// path.
    pub fn write_runs_csv(&self) -> Result<std::path::PathBuf, LabError> {
        let runs = self.store.load_plan(&self.plan);
        Ok(self.store.write_runs_csv(&self.plan, &runs)?)
    }

    /// Rebuilds `summary.csv` (and `runs.csv`) from the stored runs: per
    /// variant, point and metric the mean, standard deviation and 95%
    /// confidence interval, as `msctp reproduce` and `msctp sweep` write
    /// it. An experiment that declares no metrics (an ad-hoc sweep) is
    /// summarised over every metric its runs reported. Returns its path.
    pub fn write_summary_csv(&self) -> Result<std::path::PathBuf, LabError> {
        if self.exp.spec.metrics.is_empty() {
            summarize_sweep(
                self.exp.clone(),
                self.plan.clone(),
                &self.store,
                ExecReport::default(),
            )?;
        } else {
            let runs = self.store.load_plan(&self.plan);
            self.store.write_runs_csv(&self.plan, &runs)?;
            let results = aggregate(&self.exp, &self.plan, &runs);
            results.write_summary_csv(&self.store)?;
        }
        Ok(self.store.dir.join("summary.csv"))
    }

    /// Writes the experiment's results from the stored runs, as `msctp
    /// reproduce --report-only`: `runs.csv`, `summary.csv`, the scenarios,
    /// tables, figures (with `opts.plots`) and `report.md`.
    pub fn report(&self) -> Result<ExperimentRun, LabError> {
        run_experiment(self.exp.clone(), self.runner.as_ref(), &self.opts, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::execute::ExecOptions;

    const EXP: &str = r#"
id = "S1"
title = "Synthetic"
runner = "synthetic"
repetitions = 3
scenario = { synthetic = { x = 0, metrics = { y = { intercept = 1.0, slope = 0.5, noise = 0.1 } } } }

[[axes]]
name = "x"
key = "synthetic.x"
values = [0, 1, 2]

[[metrics]]
name = "y"
"#;

    fn study(out: &Path) -> Study {
        let exp = Experiment::from_str(EXP, Path::new("s1.toml"), Path::new(".")).unwrap();
        let mut opts = LabOptions::new(out);
        opts.exec = ExecOptions {
            jobs: 2,
            progress: false,
            ..ExecOptions::default()
        };
        opts.plots = false;
        Study::open_default(exp, opts).unwrap()
    }

    fn file(dir: &Path, name: &str) -> String {
        std::fs::read_to_string(dir.join(name)).unwrap()
    }

    #[test]
    fn tasks_run_elsewhere_store_what_the_pool_stores() {
        let pool = tempfile::tempdir().unwrap();
        let s = study(pool.path());
        let all = s.runs(None);
        assert_eq!(s.execute(&all).unwrap().executed, 9);
        s.report().unwrap();

        let tasks = tempfile::tempdir().unwrap();
        let t = study(tasks.path());
        assert_eq!(t.pending(&all), all);
        for r in t.pending(&all) {
            let outcome = run_task(&t.task(r));
            assert!(t.store(r, outcome).unwrap().is_none());
        }
        assert!(t.pending(&all).is_empty());
        t.report().unwrap();
        let wall = crate::pipeline::testing::runs_csv_without_wall_time;
        assert_eq!(
            wall(&file(s.dir(), "runs.csv")),
            wall(&file(t.dir(), "runs.csv"))
        );
        assert_eq!(file(s.dir(), "summary.csv"), file(t.dir(), "summary.csv"));
        assert_eq!(file(s.dir(), "report.md"), file(t.dir(), "report.md"));
    }

    #[test]
    fn shards_split_the_plan_and_merge_into_one_report() {
        let whole = tempfile::tempdir().unwrap();
        let s = study(whole.path());
        s.execute(&s.runs(None)).unwrap();
        s.report().unwrap();
        let split = tempfile::tempdir().unwrap();
        let t = study(split.path());
        let mut total = 0;
        for i in 1..=4 {
            let shard = Shard::new(i, 4).unwrap();
            let r = t.execute(&t.runs(Some(shard))).unwrap();
            assert_eq!(r.executed, r.total);
            total += r.total;
            // Repeating a shard runs nothing.
            assert_eq!(t.execute(&t.runs(Some(shard))).unwrap().executed, 0);
        }
        assert_eq!(total, 9);
        t.report().unwrap();
        assert_eq!(file(s.dir(), "summary.csv"), file(t.dir(), "summary.csv"));
    }

    /// The simulator's reference scenario (2 s, no captures) as the base
    /// of a two-cell experiment, two repetitions each, its files in `out`.
    fn sim_study(out: &Path) -> Study {
        use msctp_sim::scenario::REFERENCE;
        let mut base: toml::Table = toml::from_str(REFERENCE).unwrap();
        base.insert("duration_s".into(), toml::Value::Float(2.0));
        if let Some(toml::Value::Table(o)) = base.get_mut("output") {
            o.insert("pcap".into(), toml::Value::Array(Vec::new()));
        }
        std::fs::write(out.join("base.toml"), toml::to_string(&base).unwrap()).unwrap();
        let exp = r#"
id = "R1"
title = "Reference"
runner = "sim"
repetitions = 2
scenario = "base.toml"

[[axes]]
name = "duration"
key = "duration_s"
values = [1.0, 2.0]
"#;
        let exp = Experiment::from_str(exp, &out.join("r1.toml"), out).unwrap();
        let mut opts = LabOptions::new(out.join("results"));
        opts.exec = ExecOptions {
            jobs: 1,
            progress: false,
            ..ExecOptions::default()
        };
        opts.plots = false;
        Study::open_default(exp, opts).unwrap()
    }

    #[test]
    fn a_shard_resolves_each_cell_once() {
        use msctp_sim::scenario::resolutions_on_this_thread as resolutions;
        let dir = tempfile::tempdir().unwrap();
        let before = resolutions();
        // Opening the study checks each of its two cells by preparing
        // (resolving) it, on this thread.
        let s = sim_study(dir.path());
        assert_eq!(s.plan().cells.len(), 2);
        assert_eq!(resolutions(), before + 2, "opening resolves each cell once");
        // `msctp reproduce --shard 1/2`: the shard's runs on one pool; the
        // pool prepares nothing more (it would, on this thread).
        let shard = s.runs(Some(Shard::new(1, 2).unwrap()));
        let pool = execute_pool(&[s.pool_job(&shard)], &s.options().exec).unwrap();
        assert_eq!(pool.jobs[0].executed, 2, "{:?}", pool.jobs[0].failed);
        assert_eq!(resolutions(), before + 2, "the shard resolves nothing more");
        // The rest, through `Study::execute`.
        let r = s.execute(&s.runs(None)).unwrap();
        assert_eq!((r.executed, r.cached), (2, 2), "{:?}", r.failed);
        assert_eq!(resolutions(), before + 2, "nor does `execute`");
    }

    #[test]
    fn foreign_builds_and_bad_records_are_not_stored() {
        let dir = tempfile::tempdir().unwrap();
        let s = study(dir.path());
        let mut task = s.task(0);
        task.fingerprint = "0000000000000000".into();
        let o = run_task(&task);
        let e = o.result.as_ref().unwrap_err().to_string();
        assert!(e.contains("install the same msctp build"), "{e}");
        let o = RunOutcome {
            fingerprint: "ffffffffffffffff".into(),
            wall_time_s: 0.1,
            result: Ok(RunRecord::new().with_metric("y", 1.0)),
        };
        let f = s.store(0, o).unwrap().unwrap();
        assert!(
            f.error.to_string().contains("not this build"),
            "{}",
            f.error
        );
        let o = RunOutcome {
            fingerprint: s.runner().fingerprint(),
            wall_time_s: 0.1,
            result: Ok(RunRecord::new().with_metric("y", f64::NAN)),
        };
        assert!(s.store(0, o).unwrap().is_some());
        assert!(!s.is_stored(0));
    }
}
