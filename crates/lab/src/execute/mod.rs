//! Running a plan: the runs not yet stored are executed on a pool of
//! worker threads ([`crate::execute::pool`]; each run builds its own world inside
//! its thread), each finished run is written at once (so an interruption
//! loses only the runs in progress), with a progress bar of runs done,
//! runs left and the time left.

pub mod pool;

use std::io::IsTerminal;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::plan::Plan;
use crate::runner::record::RunRecord;
use crate::runner::{RunError, Runner};
use crate::store::{FORMAT, RunFile};

/// How to execute.
#[derive(Debug, Clone)]
pub struct ExecOptions {
    /// Worker threads (at least 1).
    pub jobs: usize,
    /// Show a progress bar (only drawn on a terminal anyway).
    pub progress: bool,
    /// Ignore stored runs and run everything again.
    pub fresh: bool,
    /// Largest time series a run may return.
    pub max_series_points: usize,
}

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            jobs: default_jobs(),
            progress: true,
            fresh: false,
            max_series_points: 1_000_000,
        }
    }
}

/// `available_parallelism()`, or 1.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// A run that failed.
#[derive(Debug, Clone)]
pub struct FailedRun {
    pub key: String,
    /// "variant at point, repetition r (seed s)".
    pub what: String,
    pub error: RunError,
}

/// What an execution did.
#[derive(Debug, Clone, Default)]
pub struct ExecReport {
    pub total: usize,
    /// Found in the store and not run again.
    pub cached: usize,
    /// Run now and stored.
    pub executed: usize,
    pub failed: Vec<FailedRun>,
    /// From the start of the pool to the end of this plan's last run.
    pub wall: Duration,
    /// The wall times of the runs executed now, summed.
    pub run_time: Duration,
    /// The CPU time of the runs executed now, summed (their threads' CPU
    /// time; zero where the platform does not tell it). Unlike
    /// `run_time` it does not grow when other processes take the cores.
    pub run_cpu: Duration,
}

/// The stored form of run `ri` of the plan, finished by `runner` in
/// `wall_time_s` seconds with `record`: what every path that runs a plan
/// (this pool, a shard, the Python package's executors) writes.
pub fn run_file(
    plan: &Plan,
    ri: usize,
    runner: &dyn Runner,
    record: RunRecord,
    wall_time_s: f64,
) -> RunFile {
    let run = &plan.runs[ri];
    let cell = &plan.cells[run.cell];
    RunFile {
        format: FORMAT,
        key: run.key.clone(),
        experiment: plan.experiment.clone(),
        variant: cell.variant.clone(),
        point: cell.point.coords.clone(),
        repetition: run.repetition,
        seed: run.seed,
        runner: runner.name().to_string(),
        fingerprint: runner.fingerprint(),
        wall_time_s,
        record,
    }
}

/// "variant at point, repetition r (seed s)": a run as named in messages.
pub fn describe_run(plan: &Plan, ri: usize) -> String {
    let run = &plan.runs[ri];
    let cell = &plan.cells[run.cell];
    format!(
        "{} at {}, repetition {} (seed {})",
        cell.variant,
        cell.point.label(),
        run.repetition,
        run.seed
    )
}

pub(crate) fn progress_bar(len: u64, wanted: bool) -> ProgressBar {
    let pb = ProgressBar::new(len);
    let on_terminal = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
    if !(wanted && on_terminal) {
        pb.set_draw_target(ProgressDrawTarget::hidden());
    }
    if let Ok(style) = ProgressStyle::with_template(
        "[{elapsed_precise}] {pos}/{len} runs, ETA {eta} ({msg}) {wide_bar}",
    ) {
        pb.set_style(style);
    }
    pb
}

pub(crate) fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".into()
    }
}

/// Maps `f` over `items` on up to `jobs` threads, keeping the order.
/// A panic in `f` is re-raised after all threads stop.
pub fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let mut out: Vec<Option<R>> = Vec::with_capacity(items.len());
    out.resize_with(items.len(), || None);
    parallel_each(items, jobs, f, |i, r| {
        out[i] = Some(r);
        ControlFlow::Continue(())
    });
    out.into_iter().flatten().collect()
}

/// Runs `f` over `items` on up to `jobs` threads, each thread taking the
/// next item in order, and hands every result with its item's index to
/// `sink` on the calling thread as it comes (in completion order). When
/// `sink` breaks, no further item is started (those running finish and
/// are still handed over). A panic in `f` is re-raised after all threads
/// stop.
pub(crate) fn parallel_each<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    f: impl Fn(&T) -> R + Sync,
    mut sink: impl FnMut(usize, R) -> ControlFlow<()>,
) {
    let next = AtomicUsize::new(0);
    let jobs = jobs.clamp(1, items.len().max(1));
    let (tx, rx) = mpsc::channel::<(usize, R)>();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (next, f) = (&next, &f);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    if tx.send((i, f(item))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (i, r) in rx {
            if sink(i, r).is_break() {
                next.store(items.len(), Ordering::Relaxed);
            }
        }
    });
}
