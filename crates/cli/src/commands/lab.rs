//! `msctp run | sweep | reproduce`: the simulation lab (crate
//! `msctp-lab`). This file only parses arguments and prints; the work is
//! in the library.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use msctp_lab::analysis::PublishedVerdict;
use msctp_lab::analysis::verdicts::fmt;
use msctp_lab::execute::pool::execute_pool;
use msctp_lab::execute::{ExecOptions, default_jobs};
use msctp_lab::experiment::{Experiment, list_experiment_files};
use msctp_lab::pipeline::adhoc;
use msctp_lab::pipeline::reproduce::{Selected, run_experiments};
use msctp_lab::{LabOptions, Shard, Study, runner, write_reproduction};

#[derive(clap::Args)]
pub struct RunArgs {
    /// Scenario file (TOML).
    pub scenario: PathBuf,
    /// Seed of the first repetition (default: the scenario's `seed`, else 1);
    /// repetition i uses seed + i.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Repetitions.
    #[arg(long, default_value_t = 1)]
    pub reps: u32,
    /// Print the runs' records as JSON instead of a summary.
    #[arg(long)]
    pub json: bool,
    /// Write each run's detailed outputs (traces, captures) here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also write the viewer page (`view.html`) of each run into its
    /// output directory, with the event-driven traces on
    /// (`output.trace = true`); needs `--out`.
    #[arg(long, requires = "out")]
    pub view: bool,
    /// Runner (sim, synthetic).
    #[arg(long, default_value = "sim")]
    pub runner: String,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub jobs: Option<usize>,
}

#[derive(clap::Args)]
pub struct SweepArgs {
    /// Scenario file (TOML).
    pub scenario: PathBuf,
    /// An axis: dotted.key=value1,value2,... (repeat for a grid).
    #[arg(long = "param", required = true)]
    pub params: Vec<String>,
    /// Repetitions per point.
    #[arg(long, default_value_t = 3)]
    pub reps: u32,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Result root (the sweep goes to OUT/sweep-<scenario name>/).
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Runner (sim, synthetic).
    #[arg(long, default_value = "sim")]
    pub runner: String,
    /// Run everything again, ignoring stored runs.
    #[arg(long)]
    pub fresh: bool,
}

#[derive(clap::Args)]
pub struct ReproduceArgs {
    /// Experiment ids (E1, E2-up, ...; a study id such as E2 runs all its
    /// parts) or `all` (default: all).
    pub ids: Vec<String>,
    /// Fewer repetitions and sweep points: a smoke test, not the study.
    #[arg(long)]
    pub quick: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Result root (one directory per experiment).
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Directory of experiment files.
    #[arg(long, default_value = "experiments")]
    pub experiments: PathBuf,
    /// Where REPRODUCTION.md and figures/ go (default: docs, only for
    /// full runs; give it to write a quick run's report too).
    #[arg(long)]
    pub docs: Option<PathBuf>,
    /// Do not write REPRODUCTION.md.
    #[arg(long)]
    pub no_docs: bool,
    /// Override every experiment's repetitions.
    #[arg(long)]
    pub reps: Option<u32>,
    /// Run everything again, ignoring stored runs.
    #[arg(long)]
    pub fresh: bool,
    /// Run only slice I of N of each selected experiment's plan (I from 1
    /// to N; round robin over the runs) and store the runs, without a
    /// report: one task of a job array. Merge with `--report-only`.
    #[arg(long, value_name = "I/N", conflicts_with = "report_only")]
    pub shard: Option<Shard>,
    /// Run nothing: build the results and the report from the stored runs
    /// (e.g. those the shards of a job array stored).
    #[arg(long, conflicts_with = "fresh")]
    pub report_only: bool,
    /// With `--report-only`: write REPRODUCTION.md even when stored runs
    /// are missing (without it, a report that would be built from part of
    /// the runs is not written, so a complete one is never overwritten by
    /// an incomplete one).
    #[arg(long, requires = "report_only")]
    pub partial: bool,
    /// Map how robust each claim is over the values the paper leaves
    /// unsaid (each study's `[robustness]`): run each selected study that
    /// declares them at Latin hypercube points of that space (quick sweep
    /// and repetitions per point; with `--shard` or `--report-only` as
    /// usual) and print, per claim, the share of the space where it holds
    /// (95% Wilson interval) and the parameter that moves it most.
    /// Results in OUT/<id>.robustness/; the next report
    /// (`msctp reproduce --report-only`) shows them.
    #[arg(long)]
    pub robustness: bool,
    /// Design points per study with `--robustness`.
    #[arg(long, value_name = "N", requires = "robustness",
          default_value_t = msctp_lab::robustness::DEFAULT_POINTS)]
    pub robustness_points: usize,
}

fn jobs(j: Option<usize>) -> anyhow::Result<usize> {
    match j {
        Some(0) => bail!("--jobs must be at least 1"),
        Some(n) => Ok(n),
        None => Ok(default_jobs()),
    }
}

pub(super) fn exec_options(j: Option<usize>, fresh: bool) -> anyhow::Result<ExecOptions> {
    Ok(ExecOptions {
        jobs: jobs(j)?,
        progress: std::io::stderr().is_terminal(),
        fresh,
        ..ExecOptions::default()
    })
}

/// The simulator's own check (`msctp_lab::runner::simulator`), said with the
/// file's name.
fn check_something_to_simulate(path: &Path, scenario: &toml::Table) -> anyhow::Result<()> {
    msctp_lab::runner::simulator::check_something_to_simulate(scenario)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

pub fn run(a: RunArgs) -> anyhow::Result<ExitCode> {
    let runner = runner::by_name(&a.runner).map_err(anyhow::Error::msg)?;
    let mut scenario = adhoc::read_scenario(&a.scenario)?;
    if runner.name() == "sim" {
        check_something_to_simulate(&a.scenario, &scenario)?;
    }
    if a.view {
        let output = scenario
            .entry("output")
            .or_insert_with(|| toml::Value::Table(Default::default()));
        match output {
            toml::Value::Table(t) => {
                t.insert("trace".into(), toml::Value::Boolean(true));
            }
            _ => bail!("{}: `output` is not a table", a.scenario.display()),
        }
    }
    let seed = a.seed.unwrap_or_else(|| adhoc::scenario_seed(&scenario));
    let out = adhoc::run_scenario_reps(
        runner.as_ref(),
        &scenario,
        seed,
        a.reps,
        jobs(a.jobs)?,
        a.out.as_deref(),
    )?;
    let mut failed = 0;
    if a.json {
        let items: Vec<serde_json::Value> = out
            .iter()
            .map(|(s, r)| match r {
                Ok(rec) => serde_json::json!({ "seed": s, "record": rec }),
                Err(e) => serde_json::json!({ "seed": s, "error": e.to_string() }),
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&items)?);
        failed = out.iter().filter(|(_, r)| r.is_err()).count();
    } else {
        let mut by_metric: std::collections::BTreeMap<&str, Vec<f64>> = Default::default();
        for (s, r) in &out {
            match r {
                Ok(rec) => {
                    for (k, v) in &rec.metrics {
                        by_metric.entry(k).or_default().push(*v);
                    }
                }
                Err(e) => {
                    failed += 1;
                    eprintln!("seed {s}: {e}");
                }
            }
        }
        println!(
            "{}: {} run(s), seeds {seed}..{}",
            a.scenario.display(),
            out.len(),
            seed.wrapping_add(u64::from(a.reps) - 1)
        );
        let width = by_metric.keys().map(|k| k.len()).max().unwrap_or(10);
        for (k, v) in by_metric {
            match msctp_lab::aggregate::stats::summarize(&v) {
                Ok(s) => match s.ci95_half_width {
                    Some(h) => println!("  {k:width$}  {} ± {} (n={})", fmt(s.mean), fmt(h), s.n),
                    None => println!("  {k:width$}  {}", fmt(s.mean)),
                },
                Err(e) => println!("  {k:width$}  ({e})"),
            }
        }
        if let Some(o) = &a.out {
            println!("outputs in {}", o.display());
        }
    }
    if let (true, Some(o)) = (a.view, &a.out) {
        for (s, r) in &out {
            if r.is_ok() {
                let dir = if a.reps == 1 {
                    o.clone()
                } else {
                    o.join(format!("seed-{s}"))
                };
                let page = super::view::write_page(&dir, None, msctp_view::DEFAULT_MAX_POINTS)?;
                eprintln!("view: {}", page.display());
            }
        }
    }
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

pub fn sweep(a: SweepArgs) -> anyhow::Result<ExitCode> {
    let runner = runner::by_name(&a.runner).map_err(anyhow::Error::msg)?;
    let params = a
        .params
        .iter()
        .map(|p| adhoc::parse_param(p))
        .collect::<Result<Vec<_>, _>>()?;
    if a.reps == 0 {
        bail!("--reps must be at least 1");
    }
    if runner.name() == "sim" {
        check_something_to_simulate(&a.scenario, &adhoc::read_scenario(&a.scenario)?)?;
    }
    let exp = adhoc::sweep_experiment(&a.scenario, &params, a.reps, runner.name())?;
    let mut opts = LabOptions::new(&a.out);
    opts.exec = exec_options(a.jobs, a.fresh)?;
    let s = adhoc::sweep(exp, runner.as_ref(), &opts)?;
    println!(
        "{}: {} runs ({} run now, {} stored before, {} failed) in {:.1} s",
        s.exp.spec.id,
        s.exec.total,
        s.exec.executed,
        s.exec.cached,
        s.exec.failed.len(),
        s.exec.wall.as_secs_f64()
    );
    for f in &s.exec.failed {
        eprintln!("failed: {}: {}", f.what, f.error);
    }
    let width = s
        .results
        .cells
        .iter()
        .flat_map(|c| c.metrics.keys().map(|k| k.len()))
        .max()
        .unwrap_or(10);
    for c in &s.results.cells {
        println!("{} ({} of {} runs):", c.point.label(), c.done, c.planned);
        for (m, st) in &c.metrics {
            let Some(sm) = &st.summary else { continue };
            let v = match sm.ci95_half_width {
                Some(h) => format!("{} ± {}", fmt(sm.mean), fmt(h)),
                None => fmt(sm.mean),
            };
            println!("  {m:width$}  {v} (n={})", sm.n);
        }
    }
    println!(
        "tables: {}",
        a.out.join(&s.exp.spec.id).join("summary.csv").display()
    );
    Ok(if s.exec.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn load_all(dir: &Path) -> anyhow::Result<Vec<Experiment>> {
    let files = list_experiment_files(dir)?;
    if files.is_empty() {
        bail!(
            "no experiment files (*.toml) in {}; see crates/lab/README.md for the format",
            dir.display()
        );
    }
    let mut out = Vec::new();
    for f in files {
        out.push(Experiment::load(&f)?);
    }
    Ok(out)
}

/// Whether the id asked for names the experiment: its id (any case), or
/// the study it is a part of (`E2` names `E2-up` and `E2-down`).
fn id_matches(asked: &str, id: &str) -> bool {
    if id.eq_ignore_ascii_case(asked) {
        return true;
    }
    id.len() > asked.len() + 1
        && id.is_char_boundary(asked.len())
        && id[..asked.len()].eq_ignore_ascii_case(asked)
        && id[asked.len()..].starts_with('-')
}

/// The experiments of `a.experiments` and whether each was asked for by
/// `a.ids` (an unknown id is an error naming the ones there are).
pub fn studies(a: &ReproduceArgs) -> anyhow::Result<(Vec<Experiment>, Vec<bool>)> {
    let all = load_all(&a.experiments)?;
    let want_all = a.ids.is_empty() || a.ids.iter().any(|i| i.eq_ignore_ascii_case("all"));
    if !want_all {
        for id in &a.ids {
            if !all.iter().any(|e| id_matches(id, &e.spec.id)) {
                bail!(
                    "no experiment `{id}` in {} (experiments: {})",
                    a.experiments.display(),
                    all.iter()
                        .map(|e| e.spec.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
        }
    }
    let asked = all
        .iter()
        .map(|e| want_all || a.ids.iter().any(|i| id_matches(i, &e.spec.id)))
        .collect();
    Ok((all, asked))
}

/// The experiments that were asked for.
pub fn only_asked(all: Vec<Experiment>, asked: Vec<bool>) -> Vec<Experiment> {
    all.into_iter()
        .zip(asked)
        .filter_map(|(e, k)| k.then_some(e))
        .collect()
}

pub fn reproduce(a: ReproduceArgs) -> anyhow::Result<ExitCode> {
    let (all, asked) = studies(&a)?;
    if let Some(shard) = a.shard {
        return reproduce_shard(&a, only_asked(all, asked), shard);
    }
    let docs = match (&a.docs, a.no_docs, a.quick) {
        (_, true, _) => None,
        (Some(d), false, _) => Some(d.clone()),
        (None, false, false) => Some(PathBuf::from("docs")),
        (None, false, true) => None,
    };
    let mut opts = LabOptions::new(&a.out);
    opts.quick = a.quick;
    opts.repetitions = a.reps;
    opts.exec = exec_options(a.jobs, a.fresh)?;
    let (wanted, mut missing) = wanted_experiments(all, asked, docs.is_some())?;
    let t0 = std::time::Instant::now();
    let runs = run_experiments(
        wanted
            .iter()
            .map(|(exp, runner, run_it)| Selected {
                exp: exp.clone(),
                runner: runner.as_ref(),
                execute: *run_it && !a.report_only,
            })
            .collect(),
        &opts,
    )?;
    let wall = t0.elapsed().as_secs_f64();
    let mut done = Vec::new();
    let mut bad = false;
    let mut incomplete = false;
    let mut totals = Totals::default();
    for (r, (_, _, run_it)) in runs.into_iter().zip(&wanted) {
        let id = r.exp.spec.id.clone();
        if *run_it && a.report_only {
            let stored_all = print_report_only(&r);
            incomplete |= !stored_all.0;
            bad |= !stored_all.0 || !stored_all.1;
        } else if *run_it {
            bad |= !print_ran(&r);
            totals.add(&r.exec);
        } else {
            let (d, p) = r.analysis.results.completeness();
            if d == 0 {
                missing.push((id, format!("no stored results (0 of {p} runs)")));
                continue;
            }
        }
        done.push(r);
    }
    if !a.report_only {
        let Totals {
            total,
            executed,
            cached,
            failed,
            run_s,
            cpu_s,
        } = totals;
        println!(
            "all: {total} runs ({executed} run now, {cached} stored before, {failed} failed) in {wall:.1} s on {} workers; {run_s:.1} s of runs ({cpu_s:.1} s CPU)",
            opts.exec.jobs
        );
    }
    match docs {
        Some(d) if incomplete && !a.partial => eprintln!(
            "report not written to {}: stored runs are missing (above); run them, or pass --partial to write a report from the stored runs only",
            d.display()
        ),
        Some(d) => {
            let p = write_reproduction(&done, &missing, &d)?;
            println!("report: {}", p.display());
        }
        None => {}
    }
    Ok(if bad {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Every experiment the report needs (all of them with a report to
/// write, else those asked for), with its runner and whether it was asked
/// for; the experiments left out for want of a runner, and why.
#[allow(clippy::type_complexity)]
fn wanted_experiments(
    all: Vec<Experiment>,
    asked: Vec<bool>,
    report: bool,
) -> anyhow::Result<(
    Vec<(Experiment, Box<dyn runner::Runner + Send>, bool)>,
    Vec<(String, String)>,
)> {
    let mut missing = Vec::new();
    let mut wanted = Vec::new();
    for (exp, run_it) in all.into_iter().zip(asked) {
        let id = exp.spec.id.clone();
        if !run_it && !report {
            continue;
        }
        match runner::by_name(&exp.spec.runner) {
            Ok(r) => wanted.push((exp, r, run_it)),
            Err(why) if !run_it => missing.push((id, why)),
            Err(why) => bail!("{}: {why}", exp.path.display()),
        }
    }
    Ok((wanted, missing))
}

/// The run totals of the experiments run, for the last line.
#[derive(Default)]
struct Totals {
    total: usize,
    executed: usize,
    cached: usize,
    failed: usize,
    run_s: f64,
    cpu_s: f64,
}

impl Totals {
    fn add(&mut self, e: &msctp_lab::execute::ExecReport) {
        self.total += e.total;
        self.executed += e.executed;
        self.cached += e.cached;
        self.failed += e.failed.len();
        self.run_s += e.run_time.as_secs_f64();
        self.cpu_s += e.run_cpu.as_secs_f64();
    }
}

/// `--report-only`: the experiment's line (stored runs, claims); whether
/// every planned run is stored, and every claim as expected.
fn print_report_only(r: &msctp_lab::ExperimentRun) -> (bool, bool) {
    let id = &r.exp.spec.id;
    let (stored, planned) = r.analysis.results.completeness();
    let c = &r.analysis.checks;
    let unexpected: Vec<_> = c.iter().filter(|x| !x.as_expected()).collect();
    println!(
        "{id}: report from {stored} of {planned} planned runs stored; claims as expected {}/{}; results in {}",
        c.len() - unexpected.len(),
        c.len(),
        r.dir.display()
    );
    if stored < planned {
        eprintln!(
            "  {} runs missing: run the missing shards again, or `msctp reproduce {id}`",
            planned - stored
        );
    }
    print_unexpected(&unexpected);
    (stored == planned, unexpected.is_empty())
}

/// The line of an experiment run (runs, time, claims, published values)
/// and its failures; whether it ran without failure and every claim as
/// expected.
fn print_ran(r: &msctp_lab::ExperimentRun) -> bool {
    let id = &r.exp.spec.id;
    let c = &r.analysis.checks;
    let unexpected: Vec<_> = c.iter().filter(|x| !x.as_expected()).collect();
    let agree = r
        .analysis
        .published
        .iter()
        .filter(|p| p.verdict == PublishedVerdict::Agrees)
        .count();
    let e = &r.exec;
    println!(
        "{id}: {} runs ({} run now, {} stored before, {} failed), {:.1} s of runs ({:.1} s CPU), done at {:.1} s; claims as expected {}/{}; published values agreeing {agree}/{}; results in {}",
        e.total,
        e.executed,
        e.cached,
        e.failed.len(),
        e.run_time.as_secs_f64(),
        e.run_cpu.as_secs_f64(),
        e.wall.as_secs_f64(),
        c.len() - unexpected.len(),
        c.len(),
        r.analysis.published.len(),
        r.dir.display()
    );
    for f in e.failed.iter().take(10) {
        eprintln!("  failed: {}: {}", f.what, f.error);
    }
    print_unexpected(&unexpected);
    e.failed.is_empty() && unexpected.is_empty()
}

fn print_unexpected(unexpected: &[&msctp_lab::analysis::verdicts::CheckOutcome]) {
    for u in unexpected {
        eprintln!(
            "  claim \"{}\": {} (expected to {:?}): {}",
            u.claim,
            u.verdict.word(),
            u.expect,
            u.detail
        );
    }
}

/// `reproduce --shard I/N`: the slice's runs of each selected experiment,
/// stored; no report.
pub(super) fn reproduce_shard(
    a: &ReproduceArgs,
    selected: Vec<Experiment>,
    shard: Shard,
) -> anyhow::Result<ExitCode> {
    let mut opts = LabOptions::new(&a.out);
    opts.quick = a.quick;
    opts.repetitions = a.reps;
    opts.exec = exec_options(a.jobs, a.fresh)?;
    let mut studies = Vec::new();
    for exp in selected {
        let id = exp.spec.id.clone();
        studies.push(
            Study::open_default(exp, opts.clone()).with_context(|| format!("experiment {id}"))?,
        );
    }
    // One pool over the slices of every selected experiment.
    let slices: Vec<Vec<usize>> = studies.iter().map(|s| s.runs(Some(shard))).collect();
    let jobs: Vec<_> = studies
        .iter()
        .zip(&slices)
        .map(|(s, runs)| s.pool_job(runs))
        .collect();
    let pool = execute_pool(&jobs, &opts.exec).map_err(|e| {
        anyhow::Error::new(e.error).context(format!(
            "experiment {}",
            studies[e.job].experiment().spec.id
        ))
    })?;
    let mut failed = false;
    for (study, r) in studies.iter().zip(&pool.jobs) {
        let id = &study.experiment().spec.id;
        println!(
            "{id} shard {shard}: {} of {} runs ({} run now, {} stored before, {} failed), {:.1} s of runs ({:.1} s CPU); results in {}",
            r.total,
            study.plan().runs.len(),
            r.executed,
            r.cached,
            r.failed.len(),
            r.run_time.as_secs_f64(),
            r.run_cpu.as_secs_f64(),
            study.dir().display()
        );
        for f in r.failed.iter().take(10) {
            eprintln!("  failed: {}: {}", f.what, f.error);
        }
        failed |= !r.failed.is_empty();
    }
    println!(
        "shard {shard}: {} runs in {:.1} s",
        pool.jobs.iter().map(|r| r.total).sum::<usize>(),
        pool.wall.as_secs_f64()
    );
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::id_matches;

    #[test]
    fn a_study_id_names_its_parts() {
        assert!(id_matches("E2", "E2-up"));
        assert!(id_matches("e2", "E2-down"));
        assert!(id_matches("E2-up", "E2-up"));
        assert!(id_matches("e5", "E5"));
        assert!(!id_matches("E2", "E20"));
        assert!(!id_matches("E2-", "E2-up"));
        assert!(!id_matches("E2-up", "E2"));
        assert!(!id_matches("E", "E2-up"));
    }
}
