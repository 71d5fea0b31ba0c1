//! `msctp.run`: one simulation, as `msctp run SCENARIO --seed N --json`.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use msctp_lab::pipeline::adhoc::scenario_seed;
use msctp_lab::runner;
use msctp_lab::runner::simulator::SimRunner;

use crate::convert::{apply_overrides, scenario_table, to_py};
use crate::{RunFailed, ScenarioError};

/// Runs `scenario` (TOML text or a dict) once with `seed` (default: the
/// scenario's `seed`, else 1) after applying `overrides` (dotted keys).
/// Returns a dict: seed, metrics, series and, for the simulator with
/// `tables`, the summary (JSON text) and the goodput, paths and events
/// tables and the event-driven traces (`path_trace`, `delays`, `queues`;
/// header only unless the scenario sets `output.trace = true`) (CSV
/// text, as `msctp run --out` writes them).
#[pyfunction]
#[pyo3(signature = (scenario, seed=None, overrides=None, runner="sim", tables=true))]
pub fn run(
    py: Python<'_>,
    scenario: &Bound<'_, PyAny>,
    seed: Option<u64>,
    overrides: Option<&Bound<'_, PyDict>>,
    runner: &str,
    tables: bool,
) -> PyResult<Py<PyDict>> {
    let mut table = scenario_table(scenario)?;
    if let Some(o) = overrides {
        apply_overrides(&mut table, o)?;
    }
    let seed = seed.unwrap_or_else(|| scenario_seed(&table));
    let r = runner::by_name(runner).map_err(ScenarioError::new_err)?;
    r.validate(&table)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let out = PyDict::new(py);
    out.set_item("seed", seed)?;
    if runner == "sim" && tables {
        let sim = SimRunner::default();
        let (record, result) = py
            .detach(|| {
                sim.run_full(&table, seed).map(|(rec, res)| {
                    let t = [
                        res.summary_json(),
                        res.goodput_csv(),
                        res.paths_csv(),
                        res.events_csv(),
                        res.traces.paths_csv(),
                        res.traces.delays_csv(),
                        res.traces.queues_csv(),
                    ];
                    (rec, t)
                })
            })
            .map_err(|e| RunFailed::new_err(e.to_string()))?;
        out.set_item("metrics", to_py(py, &record.metrics)?)?;
        out.set_item("series", to_py(py, &record.series)?)?;
        let names = [
            "summary",
            "goodput",
            "paths",
            "events",
            "path_trace",
            "delays",
            "queues",
        ];
        for (name, text) in names.iter().zip(result) {
            out.set_item(*name, text)?;
        }
    } else {
        let record = py
            .detach(|| r.run(&table, seed))
            .map_err(|e| RunFailed::new_err(e.to_string()))?;
        out.set_item("metrics", to_py(py, &record.metrics)?)?;
        out.set_item("series", to_py(py, &record.series)?)?;
    }
    Ok(out.unbind())
}
