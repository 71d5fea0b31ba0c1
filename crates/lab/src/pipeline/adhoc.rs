//! `msctp run` and `msctp sweep`: a scenario file run directly, with
//! repetitions, or swept over `--param key=v1,v2,...` axes. A sweep is an
//! ad-hoc experiment (id from the scenario file name) stored like the
//! studies, so it is resumable too.

use std::collections::BTreeSet;
use std::path::Path;

use toml::{Table, Value};

use crate::aggregate::{Results, aggregate};
use crate::error::LabError;
use crate::execute::ExecReport;
use crate::execute::pool::{PoolJob, execute_pool};
use crate::experiment::{
    AxisSpec, Experiment, ExperimentSpec, MetricSpec, ScenarioSource, SeedMode,
};
use crate::pipeline::reproduce::LabOptions;
use crate::plan::Plan;
use crate::runner::record::RunRecord;
use crate::runner::{RunError, Runner};
use crate::store::Store;

/// Reads a scenario file as a table (a regular file within the input
/// size limit: `msctp_input`).
pub fn read_scenario(path: &Path) -> Result<Table, LabError> {
    let text = msctp_input::read_text(path).map_err(|source| LabError::Io {
        path: path.to_path_buf(),
        err: source,
    })?;
    toml::from_str(&text).map_err(|e| LabError::Input(format!("{}: {e}", path.display())))
}

/// One value of a `--param`: a TOML literal (`3`, `0.5`, `true`,
/// `"text"`), or else the text as a string.
pub fn parse_value(s: &str) -> Value {
    let s = s.trim();
    match toml::from_str::<Table>(&format!("v = {s}")) {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| Value::String(s.to_string())),
        Err(_) => Value::String(s.to_string()),
    }
}

/// Parses `key=v1,v2,...`.
pub fn parse_param(arg: &str) -> Result<(String, Vec<Value>), LabError> {
    let Some((k, vs)) = arg.split_once('=') else {
        return Err(LabError::Input(format!(
            "--param `{arg}`: expected key=value1,value2,..."
        )));
    };
    let k = k.trim();
    if k.is_empty() || k.split('.').any(|s| s.trim().is_empty()) {
        return Err(LabError::Input(format!("--param `{arg}`: bad key `{k}`")));
    }
    let values: Vec<Value> = vs
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(parse_value)
        .collect();
    if values.is_empty() {
        return Err(LabError::Input(format!("--param `{arg}`: no values")));
    }
    Ok((k.to_string(), values))
}

/// The seed of repetition `i` of `msctp run`: `seed + i`.
pub fn run_seeds(seed: u64, reps: u32) -> Vec<u64> {
    (0..reps as u64).map(|i| seed.wrapping_add(i)).collect()
}

/// The default seed of a scenario: its integer `seed` key, else 1.
pub fn scenario_seed(s: &Table) -> u64 {
    s.get("seed")
        .and_then(Value::as_integer)
        .and_then(|i| u64::try_from(i).ok())
        .unwrap_or(1)
}

/// One repetition of `msctp run`: its seed and outcome.
pub type SeededRun = (u64, Result<RunRecord, RunError>);

/// Runs a scenario `reps` times (seeds `seed`, `seed + 1`, ...) on
/// `jobs` threads; with `out`, each run's detailed outputs go to
/// `out/seed-<seed>/` (or `out/` for a single run).
pub fn run_scenario_reps(
    runner: &dyn Runner,
    scenario: &Table,
    seed: u64,
    reps: u32,
    jobs: usize,
    out: Option<&Path>,
) -> Result<Vec<SeededRun>, LabError> {
    if reps == 0 {
        return Err(LabError::Input("--reps must be at least 1".into()));
    }
    let cell =
        crate::runner::prepare(runner, scenario).map_err(|e| LabError::Input(e.to_string()))?;
    let seeds = run_seeds(seed, reps);
    let results = crate::execute::parallel_map(&seeds, jobs, |&s| {
        let r = match out {
            Some(dir) => {
                let d = if reps == 1 {
                    dir.to_path_buf()
                } else {
                    dir.join(format!("seed-{s}"))
                };
                std::fs::create_dir_all(&d)
                    .map_err(|e| RunError::Failed(format!("{}: {e}", d.display())))
                    .and_then(|()| cell.run_with_outputs(s, &d))
            }
            None => cell.run(s),
        };
        (s, r)
    });
    Ok(results)
}

/// A sweep done.
#[derive(Debug, Clone)]
pub struct SweepRun {
    pub exp: Experiment,
    pub plan: Plan,
    pub results: Results,
    pub exec: ExecReport,
}

/// Builds the ad-hoc experiment of a sweep.
pub fn sweep_experiment(
    scenario_path: &Path,
    params: &[(String, Vec<Value>)],
    repetitions: u32,
    runner: &str,
) -> Result<Experiment, LabError> {
    let base = read_scenario(scenario_path)?;
    let stem = scenario_path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "sweep".into());
    sweep_experiment_from(base, scenario_path, &stem, params, repetitions, runner)
}

/// Builds the ad-hoc experiment of a sweep of the scenario `base` (id
/// `sweep-<name>`; `path` only names it in messages and the title).
pub fn sweep_experiment_from(
    base: Table,
    scenario_path: &Path,
    name: &str,
    params: &[(String, Vec<Value>)],
    repetitions: u32,
    runner: &str,
) -> Result<Experiment, LabError> {
    let id: String = format!("sweep-{name}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut seen = BTreeSet::new();
    let mut axes = Vec::new();
    for (k, vs) in params {
        if !seen.insert(k.clone()) {
            return Err(LabError::Input(format!("--param `{k}` given twice")));
        }
        axes.push(AxisSpec {
            name: k.clone(),
            label: Some(k.clone()),
            key: Some(k.clone()),
            keys: Vec::new(),
            values: vs.clone(),
            quick_values: None,
            overrides: Table::new(),
        });
    }
    let spec = ExperimentSpec {
        id,
        title: format!("Sweep of {}", scenario_path.display()),
        paper: String::new(),
        description: String::new(),
        scenario: ScenarioSource::Inline(base.clone()),
        runner: runner.to_string(),
        repetitions,
        quick_repetitions: None,
        seeds: SeedMode::Independent,
        published_tolerance: 0.1,
        variants: Vec::new(),
        axes,
        metrics: Vec::new(),
        figures: Vec::new(),
        tables: Vec::new(),
        published: Vec::new(),
        formulas: Vec::new(),
        checks: Vec::new(),
        notes: Vec::new(),
        robustness: None,
        provenance: Table::new(),
    };
    spec.validate()
        .map_err(|m| LabError::Input(format!("sweep: {m}")))?;
    Ok(Experiment {
        spec,
        base,
        path: scenario_path.to_path_buf(),
    })
}

/// Runs a sweep (resumable, stored under `opts.out/<id>/`) and aggregates
/// every metric the runs reported.
pub fn sweep(
    exp: Experiment,
    runner: &dyn Runner,
    opts: &LabOptions,
) -> Result<SweepRun, LabError> {
    let (p, cells) = crate::pipeline::reproduce::prepare_cells(&exp, runner, opts)?;
    let store = Store::open(&opts.out.join(&exp.spec.id))?;
    let all: Vec<usize> = (0..p.runs.len()).collect();
    let job = PoolJob {
        plan: &p,
        runs: &all,
        runner,
        store: &store,
        cells: Some(&cells),
    };
    let exec = execute_pool(&[job], &opts.exec)
        .map_err(|e| e.error)?
        .jobs
        .remove(0);
    summarize_sweep(exp, p, &store, exec)
}

/// The tables of a sweep from its stored runs: `runs.csv`, and
/// `summary.csv` over every metric the runs reported.
pub fn summarize_sweep(
    mut exp: Experiment,
    p: Plan,
    store: &Store,
    exec: ExecReport,
) -> Result<SweepRun, LabError> {
    let runs = store.load_plan(&p);
    store.write_runs_csv(&p, &runs)?;
    let names: BTreeSet<String> = runs
        .iter()
        .flatten()
        .flat_map(|r| r.record.metrics.keys().cloned())
        .collect();
    exp.spec.metrics = names
        .into_iter()
        .map(|n| MetricSpec {
            name: n,
            from: None,
            scale: 1.0,
            label: None,
            unit: String::new(),
            relative_to: None,
            relation: Default::default(),
        })
        .collect();
    let results = aggregate(&exp, &p, &runs);
    results.write_summary_csv(store)?;
    Ok(SweepRun {
        exp,
        plan: p,
        results,
        exec,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_parse() {
        let (k, v) = parse_param("mobility.speed=1,2.5,fast, true").unwrap();
        assert_eq!(k, "mobility.speed");
        assert_eq!(
            v,
            vec![
                Value::Integer(1),
                Value::Float(2.5),
                Value::String("fast".into()),
                Value::Boolean(true)
            ]
        );
        assert_eq!(parse_value("\"a,b\""), Value::String("a,b".into()));
        assert!(parse_param("novalue").is_err());
        assert!(parse_param("k=").is_err());
        assert!(parse_param("=1").is_err());
        assert!(parse_param("a..b=1").is_err());
        assert_eq!(run_seeds(u64::MAX, 2), vec![u64::MAX, 0]);
    }
}
