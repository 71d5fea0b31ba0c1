//! One experiment end to end (plan, execute missing runs, aggregate,
//! analyse, tables, figures, report section), and a set of experiments
//! into `docs/REPRODUCTION.md`.

use std::path::{Path, PathBuf};

use crate::aggregate::aggregate;
use crate::analysis::{Analysis, analyse};
use crate::error::LabError;
use crate::execute::{ExecOptions, ExecReport, FailedRun, execute};
use crate::plan::{Plan, plan};
use crate::plot;
use crate::report::{self, ExperimentReport};
use crate::runner::Runner;
use crate::spec::Experiment;
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
        }
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> LabError + '_ {
    move |source| LabError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Plans the experiment and checks every scenario with the runner.
pub fn prepare(exp: &Experiment, runner: &dyn Runner, opts: &LabOptions) -> Result<Plan, LabError> {
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
    let plan = plan(
        exp,
        opts.quick,
        opts.repetitions,
        runner.name(),
        &runner.fingerprint(),
    )
    .map_err(|message| LabError::Scenario {
        experiment: id.clone(),
        message,
    })?;
    for c in &plan.cells {
        runner
            .validate(&c.scenario)
            .map_err(|e| LabError::Scenario {
                experiment: id.clone(),
                message: format!("variant `{}` at {}: {e}", c.variant, c.point.label()),
            })?;
    }
    Ok(plan)
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
    let plan = prepare(&exp, runner, opts)?;
    let dir = opts.out.join(&exp.spec.id);
    let store = Store::open(&dir)?;
    let exec = if execute_runs {
        execute(&plan, runner, &store, &opts.exec)?
    } else {
        ExecReport {
            total: plan.runs.len(),
            ..Default::default()
        }
    };
    write_scenarios(&plan, &dir)?;
    let runs = store.load_plan(&plan);
    store.write_runs_csv(&plan, &runs)?;
    let results = aggregate(&exp, &plan, &runs);
    results.write_summary_csv(&store)?;
    let analysis = analyse(&exp, &plan, results);
    let tables_dir = dir.join("tables");
    std::fs::create_dir_all(&tables_dir).map_err(io_err(&tables_dir))?;
    for t in &exp.spec.tables {
        let md = report::table_markdown(&exp, &plan, &analysis, t);
        let p = tables_dir.join(format!("{}.md", t.id));
        std::fs::write(&p, format!("# {}\n\n{md}", t.title)).map_err(io_err(&p))?;
    }
    let mut figures = Vec::new();
    if opts.plots {
        let fig_dir = dir.join("figures");
        for f in &exp.spec.figures {
            let data = plot::figure_data(&exp, &plan, &analysis, f);
            let files = plot::render(&data, &fig_dir, &f.id)?;
            figures.push((f.id.clone(), f.title.clone(), files));
        }
    }
    let run = ExperimentRun {
        exp,
        plan,
        analysis,
        exec,
        dir: dir.clone(),
        figures,
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
        for (_, _, files) in &r.figures {
            for f in files {
                let Some(name) = f.file_name() else { continue };
                let to = fig_dir.join(name);
                std::fs::copy(f, &to).map_err(io_err(&to))?;
            }
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
