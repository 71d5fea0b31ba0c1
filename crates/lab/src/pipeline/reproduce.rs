//! Experiments end to end (plan, execute missing runs on one pool for
//! all of them, aggregate, analyse, tables, figures, report section), and
//! a set of experiments into `docs/REPRODUCTION.md`.

use std::path::{Path, PathBuf};

use crate::aggregate::aggregate;
use crate::analysis::{Analysis, analyse};
use crate::error::LabError;
use crate::execute::pool::{PoolJob, execute_pool};
use crate::execute::{ExecOptions, ExecReport, FailedRun, parallel_map};
use crate::experiment::Experiment;
use crate::plan::{Plan, plan};
use crate::report::plot;
use crate::report::{self, ExperimentReport};
use crate::robustness::RobustnessMap;
use crate::runner::{self, Prepared as PreparedCell, Runner};
use crate::store::Store;

/// Options shared by `reproduce` and the tests.
#[derive(Debug, Clone)]
pub struct LabOptions {
    pub quick: bool,
    /// Overrides the experiment's repetitions.
    pub repetitions: Option<u32>,
    pub exec: ExecOptions,
    /// Result root: one directory per experiment below it.
    pub out: PathBuf,
    /// Draw the figures (PNG and SVG).
    pub plots: bool,
    /// Largest number of runs one experiment may plan (a typo such as
    /// `repetitions = 3000000` is refused before anything is allocated).
    pub max_runs: usize,
}

/// Default of [`LabOptions::max_runs`].
pub const MAX_RUNS: usize = 1_000_000;

impl LabOptions {
    pub fn new(out: impl Into<PathBuf>) -> Self {
        LabOptions {
            quick: false,
            repetitions: None,
            exec: ExecOptions::default(),
            out: out.into(),
            plots: true,
            max_runs: MAX_RUNS,
        }
    }
}

/// One experiment done.
#[derive(Debug, Clone)]
pub struct ExperimentRun {
    pub exp: Experiment,
    pub plan: Plan,
    pub analysis: Analysis,
    pub exec: ExecReport,
    /// The experiment's result directory.
    pub dir: PathBuf,
    /// (figure id, title, [png, svg]).
    pub figures: Vec<(String, String, Vec<PathBuf>)>,
    /// The study's stored robustness map (`<out>/<id>.robustness/`), if
    /// `msctp reproduce --robustness` made one, and its figure (PNG).
    pub robustness: Option<(RobustnessMap, Option<PathBuf>)>,
}

impl ExperimentRun {
    pub fn failed(&self) -> &[FailedRun] {
        &self.exec.failed
    }

    /// Material for the report, with figure paths relative to `report_dir`
    /// where the figures were copied to `figure_dir`.
    pub fn report_entry(&self, figure_rel: &str) -> ExperimentReport<'_> {
        ExperimentReport {
            exp: &self.exp,
            plan: &self.plan,
            analysis: &self.analysis,
            figures: self
                .figures
                .iter()
                .map(|(id, title, _)| (id.clone(), title.clone(), format!("{figure_rel}/{id}.png")))
                .collect(),
            failed: self.exec.failed.clone(),
            robustness: self.robustness.as_ref().map(|(m, png)| {
                (
                    m,
                    png.as_ref().map(|_| format!("{figure_rel}/robustness.png")),
                )
            }),
        }
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> LabError + '_ {
    move |source| LabError::Io {
        path: path.to_path_buf(),
        err: source,
    }
}

/// Plans the experiment and checks every scenario with the runner.
pub fn prepare(exp: &Experiment, runner: &dyn Runner, opts: &LabOptions) -> Result<Plan, LabError> {
    prepare_cells(exp, runner, opts).map(|(plan, _)| plan)
}

/// [`prepare`], with each cell's scenario as the runner prepared it when
/// checking it ([`runner::prepare`]): the runs of a cell start from it.
pub fn prepare_cells<'a>(
    exp: &Experiment,
    runner: &'a dyn Runner,
    opts: &LabOptions,
) -> Result<(Plan, Vec<PreparedCell<'a>>), LabError> {
    prepare_cells_with(exp, runner, opts, |s| runner::prepare(runner, s))
}

/// [`prepare_cells`] with each cell prepared by `prepare_cell` (a
/// [`crate::Study`] keeps cells that share its runner).
pub fn prepare_cells_with<C>(
    exp: &Experiment,
    runner: &dyn Runner,
    opts: &LabOptions,
    prepare_cell: impl Fn(&toml::Table) -> Result<C, runner::RunError>,
) -> Result<(Plan, Vec<C>), LabError> {
    let id = exp.spec.id.clone();
    if runner.name() != exp.spec.runner {
        return Err(LabError::Runner {
            experiment: id,
            message: format!(
                "the file asks for runner `{}` but `{}` was given",
                exp.spec.runner,
                runner.name()
            ),
        });
    }
    let reps = opts.repetitions.unwrap_or(if opts.quick {
        exp.spec.quick_repetitions()
    } else {
        exp.spec.repetitions
    });
    let count = exp
        .spec
        .axes
        .iter()
        .map(|a| exp.spec.axis_values(a, opts.quick).len())
        .fold(exp.spec.variant_names().len(), usize::saturating_mul)
        .saturating_mul(reps as usize);
    if count > opts.max_runs {
        return Err(LabError::Scenario {
            experiment: id,
            message: format!(
                "{count} runs planned, more than the limit {} (check repetitions and axis values)",
                opts.max_runs
            ),
        });
    }
    let plan =
        plan(exp, opts.quick, opts.repetitions, runner).map_err(|message| LabError::Scenario {
            experiment: id.clone(),
            message,
        })?;
    let cells = plan
        .cells
        .iter()
        .map(|c| {
            prepare_cell(&c.scenario).map_err(|e| LabError::Scenario {
                experiment: id.clone(),
                message: format!("variant `{}` at {}: {e}", c.variant, c.point.label()),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((plan, cells))
}

/// Runs (what is missing of) one experiment and writes its results:
/// `runs/`, `runs.csv`, `summary.csv`, `tables/*.md`, `figures/*.png|svg`
/// and `report.md` under `<out>/<id>/`. With `execute_runs` false only
/// the stored runs are used.
pub fn run_experiment(
    exp: Experiment,
    runner: &dyn Runner,
    opts: &LabOptions,
    execute_runs: bool,
) -> Result<ExperimentRun, LabError> {
    let sel = Selected {
        exp,
        runner,
        execute: execute_runs,
    };
    let mut done = run_experiments(vec![sel], opts).map_err(|e| e.error)?;
    Ok(done.remove(0))
}

/// One experiment for [`run_experiments`].
pub struct Selected<'a> {
    pub exp: Experiment,
    pub runner: &'a dyn Runner,
    /// Run what is missing (false: report from the stored runs only).
    pub execute: bool,
}

/// An experiment could not be planned, run or reported.
#[derive(Debug, thiserror::Error)]
#[error("experiment {experiment}")]
pub struct ExperimentError {
    pub experiment: String,
    #[source]
    pub error: LabError,
}

/// An experiment planned, with its store and runner.
struct Prepared<'a> {
    exp: Experiment,
    plan: Plan,
    /// One per cell of the plan, prepared when it was checked.
    cells: Vec<PreparedCell<'a>>,
    store: Store,
    runner: &'a dyn Runner,
    /// Run what is missing ([`Selected::execute`]).
    execute: bool,
}

/// [`run_experiment`] for several experiments at once: every experiment
/// is planned (and each scenario checked) before anything runs; then the
/// missing runs of all of them go through one pool ([`crate::execute::pool`]),
/// dearest first, so no worker waits for an experiment's last long run
/// while runs of the next experiment are waiting; then each experiment's
/// results and report are written from its stored runs, experiments in
/// parallel (`opts.exec.jobs`). Returns the experiments in the order
/// given.
pub fn run_experiments(
    selected: Vec<Selected>,
    opts: &LabOptions,
) -> Result<Vec<ExperimentRun>, ExperimentError> {
    let mut prepared = Vec::with_capacity(selected.len());
    for sel in selected {
        let id = sel.exp.spec.id.clone();
        let wrap = |error| ExperimentError {
            experiment: id.clone(),
            error,
        };
        let (plan, cells) = prepare_cells(&sel.exp, sel.runner, opts).map_err(wrap)?;
        let store =
            Store::open(&opts.out.join(&sel.exp.spec.id)).map_err(|e| wrap(LabError::Store(e)))?;
        prepared.push(Prepared {
            exp: sel.exp,
            plan,
            cells,
            store,
            runner: sel.runner,
            execute: sel.execute,
        });
    }
    let all: Vec<Vec<usize>> = prepared
        .iter()
        .map(|p| (0..p.plan.runs.len()).collect())
        .collect();
    let in_pool: Vec<usize> = (0..prepared.len())
        .filter(|&i| prepared[i].execute)
        .collect();
    let jobs: Vec<PoolJob> = in_pool
        .iter()
        .map(|&i| PoolJob {
            plan: &prepared[i].plan,
            runs: &all[i],
            runner: prepared[i].runner,
            store: &prepared[i].store,
            cells: Some(&prepared[i].cells),
        })
        .collect();
    let mut pool = execute_pool(&jobs, &opts.exec).map_err(|e| ExperimentError {
        experiment: prepared[in_pool[e.job]].exp.spec.id.clone(),
        error: LabError::Store(e.error),
    })?;
    let mut exec: Vec<ExecReport> = prepared
        .iter()
        .map(|p| ExecReport {
            total: p.plan.runs.len(),
            ..Default::default()
        })
        .collect();
    for (&i, r) in in_pool.iter().zip(pool.jobs.drain(..)) {
        exec[i] = r;
    }
    let items: Vec<(&Prepared, ExecReport)> = prepared.iter().zip(exec).collect();
    parallel_map(&items, opts.exec.jobs, |(p, exec)| {
        finish(p, exec.clone(), opts).map_err(|error| ExperimentError {
            experiment: p.exp.spec.id.clone(),
            error,
        })
    })
    .into_iter()
    .collect()
}

/// Writes one experiment's results from its stored runs: the scenarios,
/// `runs.csv`, `summary.csv`, tables, figures and `report.md`.
fn finish(p: &Prepared, exec: ExecReport, opts: &LabOptions) -> Result<ExperimentRun, LabError> {
    let (exp, plan, store) = (&p.exp, &p.plan, &p.store);
    let dir = store.dir.clone();
    write_scenarios(plan, &dir)?;
    let runs = store.load_plan(plan);
    store.write_runs_csv(plan, &runs)?;
    let results = aggregate(exp, plan, &runs);
    results.write_summary_csv(store)?;
    let analysis = analyse(exp, plan, results);
    let tables_dir = dir.join("tables");
    std::fs::create_dir_all(&tables_dir).map_err(io_err(&tables_dir))?;
    for t in &exp.spec.tables {
        let md = report::table_markdown(exp, plan, &analysis, t);
        let p = tables_dir.join(format!("{}.md", t.id));
        std::fs::write(&p, format!("# {}\n\n{md}", t.title)).map_err(io_err(&p))?;
    }
    let mut figures = Vec::new();
    if opts.plots {
        let fig_dir = dir.join("figures");
        for f in &exp.spec.figures {
            let data = plot::figure_data(exp, plan, &analysis, f);
            let files = plot::render(&data, &fig_dir, &f.id)?;
            figures.push((f.id.clone(), f.title.clone(), files));
        }
    }
    let robustness = RobustnessMap::load(&opts.out, &exp.spec.id).map(|m| {
        let png = RobustnessMap::dir(&opts.out, &exp.spec.id).join("figures/robustness.png");
        (m, png.is_file().then_some(png))
    });
    let run = ExperimentRun {
        exp: exp.clone(),
        plan: plan.clone(),
        analysis,
        exec,
        dir: dir.clone(),
        figures,
        robustness,
    };
    let section = report::experiment_section(&run.report_entry("figures"));
    let p = dir.join("report.md");
    std::fs::write(&p, section).map_err(io_err(&p))?;
    Ok(run)
}

/// The file name of a cell's scenario: `<variant>@<point>.toml` with
/// anything but letters, digits, '-', '_', '.', '=' replaced by '_'.
pub fn scenario_file_name(variant: &str, point_label: &str) -> String {
    let raw = if point_label == "-" {
        variant.to_string()
    } else {
        format!("{variant}@{point_label}")
    };
    let safe: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '=' | '@') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{safe}.toml")
}

/// Writes every cell's full scenario to `<dir>/scenarios/`, so any stored
/// run can be repeated alone: `msctp run <that file> --seed <its seed>`.
fn write_scenarios(plan: &Plan, dir: &Path) -> Result<(), LabError> {
    let sdir = dir.join("scenarios");
    std::fs::create_dir_all(&sdir).map_err(io_err(&sdir))?;
    for c in &plan.cells {
        let p = sdir.join(scenario_file_name(&c.variant, &c.point.label()));
        std::fs::write(&p, &c.canonical).map_err(io_err(&p))?;
    }
    Ok(())
}

/// Writes `REPRODUCTION.md` into `docs` with the figures copied to
/// `docs/figures/<id>/`. Returns the report's path.
pub fn write_reproduction(
    runs: &[ExperimentRun],
    missing: &[(String, String)],
    docs: &Path,
) -> Result<PathBuf, LabError> {
    for r in runs {
        let fig_dir = docs.join("figures").join(&r.exp.spec.id);
        std::fs::create_dir_all(&fig_dir).map_err(io_err(&fig_dir))?;
        let map_png = r.robustness.as_ref().and_then(|(_, p)| p.clone());
        for (_, _, files) in &r.figures {
            for f in files.iter() {
                let Some(name) = f.file_name() else { continue };
                let to = fig_dir.join(name);
                std::fs::copy(f, &to).map_err(io_err(&to))?;
            }
        }
        if let Some(png) = map_png {
            let to = fig_dir.join("robustness.png");
            std::fs::copy(&png, &to).map_err(io_err(&to))?;
        }
    }
    let entries: Vec<ExperimentReport> = runs
        .iter()
        .map(|r| r.report_entry(&format!("figures/{}", r.exp.spec.id)))
        .collect();
    let md = report::reproduction_md(&entries, missing);
    let p = docs.join("REPRODUCTION.md");
    std::fs::create_dir_all(docs).map_err(io_err(docs))?;
    std::fs::write(&p, md).map_err(io_err(&p))?;
    Ok(p)
}
