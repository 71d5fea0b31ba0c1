//! One worker pool over the runs of several plans (all the experiments
//! `msctp reproduce` was asked for), the dearest runs first.
//!
//! Each experiment used to have a pool of its own, one experiment after
//! the other: a long run near the end of an experiment (E7a's 50-station
//! runs take minutes, the rest of E7a nothing) kept one worker busy while
//! the others waited for the next experiment. Now every pending run of
//! every job is in one queue, ordered by the runner's cost estimate
//! ([`Runner::cost_hint`], known before the run), dearest first, ties in
//! job and plan order: the longest-processing-time-first rule, whose
//! last runs are the cheapest, so every worker stays busy to the end
//! (its makespan is within 4/3 of the best possible with exact costs;
//! with estimates, what matters is that the long runs are estimated
//! long).
//!
//! The order is decided by the plans alone (not by timings), so it is
//! the same on every machine; the results never depend on it (each run
//! builds its own world from its scenario and seed, and every run is
//! stored under its own key).

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use crate::execute::{
    ExecOptions, ExecReport, FailedRun, describe_run, panic_message, parallel_each, progress_bar,
    run_file,
};
use crate::plan::Plan;
use crate::runner::{Prepared, PreparedScenario, RunError, Runner, prepare};
use crate::store::{Store, StoreError};

/// Executes the plan's missing runs with `runner` and stores them.
pub fn execute(
    plan: &Plan,
    runner: &dyn Runner,
    store: &Store,
    opts: &ExecOptions,
) -> Result<ExecReport, StoreError> {
    let all: Vec<usize> = (0..plan.runs.len()).collect();
    execute_subset(plan, &all, runner, store, opts)
}

/// Executes the missing runs among `subset` (indices into
/// [`Plan::runs`], e.g. one shard of the plan) and stores them: a pool of
/// one job ([`crate::execute::pool`]), dearest runs first.
pub fn execute_subset(
    plan: &Plan,
    subset: &[usize],
    runner: &dyn Runner,
    store: &Store,
    opts: &ExecOptions,
) -> Result<ExecReport, StoreError> {
    let job = PoolJob {
        plan,
        runs: subset,
        runner,
        store,
        cells: None,
    };
    let mut r = execute_pool(&[job], opts).map_err(|e| e.error)?;
    Ok(r.jobs.remove(0))
}

/// The runs of one plan to execute in the pool.
pub struct PoolJob<'a> {
    pub plan: &'a Plan,
    /// Indices into [`Plan::runs`] (all of them, or one shard).
    pub runs: &'a [usize],
    pub runner: &'a dyn Runner,
    pub store: &'a Store,
    /// The plan's cells as the runner prepared them when the plan was
    /// checked (one per [`Plan::cells`], [`crate::runner::prepare`]);
    /// `None`: the pool prepares the cells of the pending runs, once each.
    pub cells: Option<&'a [Prepared<'a>]>,
}

/// A run in the pool's queue.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Queued {
    /// Index of the job.
    pub job: usize,
    /// Index into the job's [`Plan::runs`].
    pub run: usize,
    /// The runner's estimate ([`Runner::cost_hint`]); not finite or
    /// negative counts as 0.
    pub cost: f64,
}

/// The pending runs (`pending[j]`: indices into job j's plan) in the
/// order the pool starts them: dearest first, then job order, then plan
/// order. The estimate is asked once per cell (a cell's runs differ only
/// in their seed).
pub fn schedule(jobs: &[PoolJob], pending: &[Vec<usize>]) -> Vec<Queued> {
    schedule_by(jobs, pending, |j, cell| {
        jobs[j].runner.cost_hint(&jobs[j].plan.cells[cell].scenario)
    })
}

/// [`schedule`] with the estimate `cost(job, cell)`.
fn schedule_by(
    jobs: &[PoolJob],
    pending: &[Vec<usize>],
    cost: impl Fn(usize, usize) -> f64,
) -> Vec<Queued> {
    let mut queue = Vec::with_capacity(pending.iter().map(Vec::len).sum());
    for (j, (job, runs)) in jobs.iter().zip(pending).enumerate() {
        let mut by_cell: HashMap<usize, f64> = HashMap::new();
        for &run in runs {
            let cell = job.plan.runs[run].cell;
            let cost = *by_cell.entry(cell).or_insert_with(|| {
                let c = cost(j, cell);
                if c.is_finite() && c > 0.0 { c } else { 0.0 }
            });
            queue.push(Queued { job: j, run, cost });
        }
    }
    queue.sort_by(|a, b| {
        b.cost
            .total_cmp(&a.cost)
            .then(a.job.cmp(&b.job))
            .then(a.run.cmp(&b.run))
    });
    queue
}

/// The prepared cells of one job: given with the job, or prepared here
/// (the cells of its pending runs, each once).
enum JobCells<'a, 'b> {
    Given(&'b [Prepared<'a>]),
    Own(Vec<Option<Result<Prepared<'a>, RunError>>>),
}

impl<'a> JobCells<'a, '_> {
    fn of<'b>(job: &'b PoolJob<'a>, pending: &[usize]) -> JobCells<'a, 'b> {
        if let Some(cells) = job.cells {
            return JobCells::Given(cells);
        }
        let mut own: Vec<Option<Result<Prepared<'a>, RunError>>> =
            (0..job.plan.cells.len()).map(|_| None).collect();
        for &run in pending {
            let c = job.plan.runs[run].cell;
            if own[c].is_none() {
                own[c] = Some(prepare(job.runner, &job.plan.cells[c].scenario));
            }
        }
        JobCells::Own(own)
    }

    /// Cell `c` prepared, or why it could not be.
    fn get(&self, c: usize) -> Result<&dyn PreparedScenario, RunError> {
        let p = match self {
            JobCells::Given(cells) => cells.get(c).map(Ok),
            JobCells::Own(own) => own.get(c).and_then(Option::as_ref).map(Result::as_ref),
        };
        match p {
            Some(Ok(p)) => Ok(p.as_ref()),
            Some(Err(e)) => Err(e.clone()),
            None => Err(RunError::Failed(format!("cell {c} was not prepared"))),
        }
    }
}

/// What the pool did, per job.
#[derive(Debug, Clone, Default)]
pub struct PoolReport {
    /// One report per job, in job order.
    pub jobs: Vec<ExecReport>,
    /// The whole pool.
    pub wall: Duration,
}

/// A run could not be stored (the pool stopped handing out runs).
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub struct PoolError {
    /// Index of the job whose run it was.
    pub job: usize,
    pub error: StoreError,
}

/// Executes the jobs' missing runs (all of them with `opts.fresh`) on
/// one pool of `opts.jobs` threads, dearest first ([`schedule`]), and
/// stores each as it finishes. A failed run is reported in its job's
/// report (and not stored); a store error stops the pool and is returned.
pub fn execute_pool(jobs: &[PoolJob], opts: &ExecOptions) -> Result<PoolReport, PoolError> {
    let t0 = Instant::now();
    let pending = pending_runs(jobs, opts);
    let cells: Vec<JobCells> = jobs
        .iter()
        .zip(&pending)
        .map(|(j, p)| JobCells::of(j, p))
        .collect();
    let queue = schedule_by(jobs, &pending, |j, c| {
        cells[j].get(c).map_or(0.0, |p| p.cost_hint())
    });
    let mut tally = Tally::new(jobs, &pending, t0);
    if queue.is_empty() {
        return tally.finish(true);
    }
    let pb = progress_bar(queue.len() as u64, opts.progress);
    pb.set_message(tally.label());
    let start = |q: &Queued| {
        let run = &jobs[q.job].plan.runs[q.run];
        let cell = cells[q.job].get(run.cell);
        let (t, cpu) = (Instant::now(), thread_cpu());
        let out = catch_unwind(AssertUnwindSafe(|| cell.and_then(|c| c.run(run.seed))))
            .unwrap_or_else(|p| Err(RunError::Panicked(panic_message(&p))));
        let cpu = thread_cpu().saturating_sub(cpu);
        let out = out.and_then(|r| r.check(opts.max_series_points).map(|()| r));
        (out, t.elapsed().as_secs_f64(), cpu)
    };
    parallel_each(&queue, opts.jobs, start, |i, (out, wall, cpu)| {
        let flow = tally.record(queue[i], out, wall, cpu);
        pb.set_message(tally.label());
        pb.inc(1);
        flow
    });
    pb.finish_and_clear();
    tally.finish(false)
}

/// The runs of each job to execute: those not stored yet (all of them
/// with `opts.fresh`).
fn pending_runs(jobs: &[PoolJob], opts: &ExecOptions) -> Vec<Vec<usize>> {
    jobs.iter()
        .map(|j| {
            j.runs
                .iter()
                .copied()
                .filter(|&i| opts.fresh || j.store.load(&j.plan.runs[i].key).is_none())
                .collect()
        })
        .collect()
}

/// What the pool has done so far: each job's report, its failures, the
/// runs left, the first store error.
struct Tally<'j, 'a> {
    jobs: &'j [PoolJob<'a>],
    t0: Instant,
    report: PoolReport,
    /// Per job: (run, failure), in completion order.
    failures: Vec<Vec<(usize, FailedRun)>>,
    failed: usize,
    /// Per job: runs not done yet.
    left: Vec<usize>,
    first_store_error: Option<PoolError>,
}

impl<'j, 'a> Tally<'j, 'a> {
    fn new(jobs: &'j [PoolJob<'a>], pending: &[Vec<usize>], t0: Instant) -> Self {
        let report = PoolReport {
            jobs: jobs
                .iter()
                .zip(pending)
                .map(|(j, p)| ExecReport {
                    total: j.runs.len(),
                    cached: j.runs.len() - p.len(),
                    ..Default::default()
                })
                .collect(),
            wall: Duration::ZERO,
        };
        Tally {
            jobs,
            t0,
            report,
            failures: vec![Vec::new(); jobs.len()],
            failed: 0,
            left: pending.iter().map(Vec::len).collect(),
            first_store_error: None,
        }
    }

    /// The progress bar's message.
    fn label(&self) -> String {
        let failed = self.failed;
        if self.jobs.len() == 1 {
            let (id, cached) = (&self.jobs[0].plan.experiment, self.report.jobs[0].cached);
            return format!("{id}: {cached} stored before, {failed} failed");
        }
        format!(
            "{} of {} experiments to finish, {failed} runs failed",
            self.left.iter().filter(|&&n| n > 0).count(),
            self.jobs.len()
        )
    }

    /// Run `q` ended with `out` after `wall` seconds and `cpu`: stores
    /// its record, or keeps its failure. A store error stops the pool
    /// handing out runs.
    fn record(
        &mut self,
        q: Queued,
        out: Result<crate::runner::RunRecord, RunError>,
        wall: f64,
        cpu: Duration,
    ) -> ControlFlow<()> {
        let job = &self.jobs[q.job];
        let rep = &mut self.report.jobs[q.job];
        rep.run_time += Duration::from_secs_f64(wall);
        rep.run_cpu += cpu;
        let mut flow = ControlFlow::Continue(());
        match out {
            Ok(record) => {
                let file = run_file(job.plan, q.run, job.runner, record, wall);
                match job.store.save(&file) {
                    Ok(()) => rep.executed += 1,
                    Err(e) => {
                        // Stop handing out work; report after the pool ends.
                        flow = ControlFlow::Break(());
                        self.first_store_error.get_or_insert(PoolError {
                            job: q.job,
                            error: e,
                        });
                    }
                }
            }
            Err(error) => {
                self.failed += 1;
                let f = FailedRun {
                    key: job.plan.runs[q.run].key.clone(),
                    what: describe_run(job.plan, q.run),
                    error,
                };
                self.failures[q.job].push((q.run, f));
            }
        }
        self.left[q.job] -= 1;
        if self.left[q.job] == 0 {
            self.report.jobs[q.job].wall = self.t0.elapsed();
        }
        flow
    }

    /// The pool's report (each job's failures in plan order; with
    /// nothing to run, every job's wall time the pool's), or its first
    /// store error.
    fn finish(mut self, nothing_to_run: bool) -> Result<PoolReport, PoolError> {
        if let Some(e) = self.first_store_error {
            return Err(e);
        }
        self.report.wall = self.t0.elapsed();
        for (r, mut f) in self.report.jobs.iter_mut().zip(self.failures) {
            if nothing_to_run {
                r.wall = self.report.wall;
            }
            // They arrived in completion order; report them in plan order.
            f.sort_by_key(|(run, _)| *run);
            r.failed = f.into_iter().map(|(_, f)| f).collect();
        }
        Ok(self.report)
    }
}

/// The CPU time the calling thread has used (zero where the platform
/// does not tell it).
fn thread_cpu() -> Duration {
    msctp_sim::cpu::thread_cpu_time().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Mutex;

    use super::*;
    use crate::experiment::Experiment;
    use crate::plan::plan;
    use crate::runner::record::RunRecord;
    use crate::runner::synthetic::SyntheticRunner;

    /// The synthetic runner, with the scenario's `synthetic.x` as the cost
    /// estimate, recording the (x, seed) of each run it starts; runs with
    /// x = 99 fail.
    #[derive(Default)]
    struct Costly {
        started: Mutex<Vec<(i64, u64)>>,
    }

    fn x(s: &toml::Table) -> i64 {
        s["synthetic"]["x"].as_integer().unwrap()
    }

    impl Runner for Costly {
        fn name(&self) -> &str {
            "synthetic"
        }
        fn cost_hint(&self, s: &toml::Table) -> f64 {
            x(s) as f64
        }
        fn run(&self, s: &toml::Table, seed: u64) -> Result<RunRecord, RunError> {
            self.started.lock().unwrap().push((x(s), seed));
            if x(s) == 99 {
                return Err(RunError::Failed("x is 99".into()));
            }
            SyntheticRunner.run(s, seed)
        }
    }

    fn experiment(id: &str, xs: &str) -> Experiment {
        let text = format!(
            r#"
id = "{id}"
title = "Synthetic"
runner = "synthetic"
repetitions = 2
scenario = {{ synthetic = {{ x = 0, metrics = {{ y = {{ intercept = 1.0, slope = 0.5 }} }} }} }}

[[axes]]
name = "x"
key = "synthetic.x"
values = {xs}

[[metrics]]
name = "y"
"#
        );
        Experiment::from_str(&text, Path::new("s.toml"), Path::new(".")).unwrap()
    }

    fn plan_of(e: &Experiment) -> Plan {
        plan(e, false, None, &Costly::default()).unwrap()
    }

    /// Two jobs of all their runs (`runs`), each with its store.
    fn two_jobs<'a>(
        plans: [&'a Plan; 2],
        runs: [&'a [usize]; 2],
        runner: &'a Costly,
        stores: [&'a Store; 2],
    ) -> [PoolJob<'a>; 2] {
        [0, 1].map(|i| PoolJob {
            plan: plans[i],
            runs: runs[i],
            runner,
            store: stores[i],
            cells: None,
        })
    }

    /// (job, x, repetition) of each queued run.
    fn order(jobs: &[PoolJob], q: &[Queued]) -> Vec<(usize, i64, u32)> {
        q.iter()
            .map(|q| {
                let p = jobs[q.job].plan;
                let r = &p.runs[q.run];
                (q.job, x(&p.cells[r.cell].scenario), r.repetition)
            })
            .collect()
    }

    #[test]
    fn the_dearest_runs_go_first_ties_in_job_and_plan_order() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (experiment("A", "[1, 5, 2]"), experiment("B", "[2, 7]"));
        let (pa, pb) = (plan_of(&a), plan_of(&b));
        let store = Store::open(dir.path()).unwrap();
        let runner = Costly::default();
        let all_a: Vec<usize> = (0..pa.runs.len()).collect();
        let all_b: Vec<usize> = (0..pb.runs.len()).collect();
        let jobs = two_jobs([&pa, &pb], [&all_a, &all_b], &runner, [&store, &store]);
        let q = schedule(&jobs, &[all_a.clone(), all_b.clone()]);
        assert_eq!(
            order(&jobs, &q),
            [
                (1, 7, 0),
                (1, 7, 1),
                (0, 5, 0),
                (0, 5, 1),
                (0, 2, 0),
                (0, 2, 1),
                (1, 2, 0),
                (1, 2, 1),
                (0, 1, 0),
                (0, 1, 1),
            ]
        );
        // Only the pending runs are queued (here: B's second cell and
        // A's first run).
        let q = schedule(&jobs, &[vec![0], vec![3, 2]]);
        assert_eq!(order(&jobs, &q), [(1, 7, 0), (1, 7, 1), (0, 1, 0)]);
    }

    #[test]
    fn a_worker_starts_the_runs_in_the_schedule_order() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (experiment("A", "[3, 1]"), experiment("B", "[2, 4]"));
        let (pa, pb) = (plan_of(&a), plan_of(&b));
        let (sa, sb) = (
            Store::open(&dir.path().join("A")).unwrap(),
            Store::open(&dir.path().join("B")).unwrap(),
        );
        let runner = Costly::default();
        let all: Vec<usize> = (0..4).collect();
        let jobs = two_jobs([&pa, &pb], [&all, &all], &runner, [&sa, &sb]);
        let opts = ExecOptions {
            jobs: 1,
            progress: false,
            ..ExecOptions::default()
        };
        let r = execute_pool(&jobs, &opts).unwrap();
        let xs: Vec<i64> = runner.started.lock().unwrap().iter().map(|s| s.0).collect();
        assert_eq!(xs, [4, 4, 3, 3, 2, 2, 1, 1]);
        assert_eq!(
            (r.jobs[0].executed, r.jobs[1].executed, r.jobs[0].cached),
            (4, 4, 0)
        );
        if cfg!(unix) {
            assert!(r.jobs.iter().all(|j| j.run_cpu > Duration::ZERO));
        }
        // Everything is stored: a second pool runs nothing.
        let again = execute_pool(&jobs, &opts).unwrap();
        assert_eq!(runner.started.lock().unwrap().len(), 8);
        assert_eq!((again.jobs[0].cached, again.jobs[1].cached), (4, 4));
        assert_eq!(again.jobs[0].executed + again.jobs[1].executed, 0);
    }

    #[test]
    fn failures_stay_with_their_experiment_in_plan_order() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (experiment("A", "[99, 1]"), experiment("B", "[2, 99]"));
        let (pa, pb) = (plan_of(&a), plan_of(&b));
        let (sa, sb) = (
            Store::open(&dir.path().join("A")).unwrap(),
            Store::open(&dir.path().join("B")).unwrap(),
        );
        let runner = Costly::default();
        let all: Vec<usize> = (0..4).collect();
        let jobs = two_jobs([&pa, &pb], [&all, &all], &runner, [&sa, &sb]);
        let opts = ExecOptions {
            jobs: 2,
            progress: false,
            ..ExecOptions::default()
        };
        let r = execute_pool(&jobs, &opts).unwrap();
        for (job, first_failed) in [(0, 0), (1, 2)] {
            let rep = &r.jobs[job];
            assert_eq!((rep.executed, rep.failed.len()), (2, 2));
            let keys: Vec<&str> = rep.failed.iter().map(|f| f.key.as_str()).collect();
            let plan = jobs[job].plan;
            let want = [first_failed, first_failed + 1].map(|i| plan.runs[i].key.as_str());
            assert_eq!(keys, want);
            assert!(
                rep.failed[0].what.contains("x=99"),
                "{}",
                rep.failed[0].what
            );
        }
    }
}
