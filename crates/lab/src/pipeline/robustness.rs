//! `msctp reproduce --robustness`: each selected study's robustness map
//! ([`crate::robustness`]) derived as an experiment and run through
//! [`run_experiments`] (one pool, the store, its reuse), then its claims
//! evaluated per design point and written to `<out>/<id>.robustness/`
//! (`robustness.json`, `robustness.csv`, `robustness-summary.csv`,
//! `figures/robustness.png|svg`).

use crate::error::LabError;
use crate::experiment::Experiment;
use crate::pipeline::reproduce::{ExperimentRun, LabOptions, Selected, run_experiments};
use crate::report::robustness_figure as figure;
use crate::robustness::{Mapped, RobustnessMap, check_extremes, derive, evaluate};
use crate::runner::Runner;

/// One study's map done.
#[derive(Debug, Clone)]
pub struct MapRun {
    pub run: ExperimentRun,
    pub map: RobustnessMap,
    /// The figure's files (PNG, SVG), if drawn.
    pub figure: Vec<std::path::PathBuf>,
}

/// Derives the map of `exp` with `points` design points and checks the
/// declared extremes with the runner.
pub fn prepare_map(
    exp: &Experiment,
    points: usize,
    runner: &dyn Runner,
) -> Result<Mapped, LabError> {
    let scenario = |message| LabError::Scenario {
        experiment: exp.spec.id.clone(),
        message,
    };
    let mapped = derive(exp, points).map_err(scenario)?;
    check_extremes(&mapped, runner).map_err(scenario)?;
    Ok(mapped)
}

/// Evaluates a map's experiment run and writes the map's files.
pub fn finish_map(
    mapped: &Mapped,
    run: ExperimentRun,
    opts: &LabOptions,
) -> Result<MapRun, LabError> {
    let map = evaluate(mapped, &run.analysis);
    map.write(&run.dir)?;
    let figure = if opts.plots {
        figure::render(&map, &run.dir.join("figures"), "robustness")?
    } else {
        Vec::new()
    };
    Ok(MapRun { run, map, figure })
}

/// Runs (what is missing of) the maps of `studies` on one pool
/// (`execute` false: from the stored runs only) and writes each map.
pub fn run_maps(
    studies: Vec<(Experiment, &dyn Runner)>,
    points: usize,
    execute: bool,
    opts: &LabOptions,
) -> Result<Vec<MapRun>, LabError> {
    let mut mapped = Vec::with_capacity(studies.len());
    for (exp, runner) in &studies {
        mapped.push(prepare_map(exp, points, *runner)?);
    }
    let selected = mapped
        .iter()
        .zip(&studies)
        .map(|(m, (_, runner))| Selected {
            exp: m.exp.clone(),
            runner: *runner,
            execute,
        })
        .collect();
    let runs = run_experiments(selected, opts).map_err(|e| e.error)?;
    mapped
        .iter()
        .zip(runs)
        .map(|(m, r)| finish_map(m, r, opts))
        .collect()
}
