//! `msctp.Experiment`'s native half: a [`Study`] (plan, store, report)
//! and [`run_task`], the function a worker (a thread, a process, a Dask
//! worker on another host) runs.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use toml::Value;

use msctp_lab::analysis::PublishedVerdict;
use msctp_lab::execute::ExecOptions;
use msctp_lab::pipeline::adhoc::sweep_experiment_from;
use msctp_lab::pipeline::robustness::{finish_map, prepare_map};
use msctp_lab::robustness::Mapped;
use msctp_lab::{
    Experiment, LabOptions, RunOutcome, RunTask, Shard, Study, run_task as lab_run_task,
};

use crate::convert::{from_py, scenario_table, to_py};
use crate::{ExperimentError, lab_err};

/// A planned experiment and its results store.
#[pyclass(module = "msctp._native", name = "Study", frozen)]
pub struct PyStudy {
    inner: Study,
    /// The robustness map this study runs, when loaded with
    /// `robustness_points`.
    mapped: Option<Mapped>,
}

/// Options shared by `load` and `sweep`.
fn options(
    out: PathBuf,
    quick: bool,
    repetitions: Option<u32>,
    jobs: Option<usize>,
    fresh: bool,
    plots: bool,
) -> PyResult<LabOptions> {
    if jobs == Some(0) {
        return Err(ExperimentError::new_err("jobs must be at least 1"));
    }
    let mut o = LabOptions::new(out);
    o.quick = quick;
    o.repetitions = repetitions;
    o.plots = plots;
    o.exec = ExecOptions {
        jobs: jobs.unwrap_or_else(msctp_lab::execute::default_jobs),
        progress: false,
        fresh,
        ..ExecOptions::default()
    };
    Ok(o)
}

#[pymethods]
impl PyStudy {
    /// Loads an experiment file and plans it (results under `out/<id>/`);
    /// with `robustness_points`, plans its robustness map instead
    /// (`msctp reproduce ID --robustness --robustness-points N`, results
    /// under `out/<id>.robustness/`).
    #[staticmethod]
    #[pyo3(signature = (path, out, quick=false, repetitions=None, jobs=None, fresh=false, plots=true, robustness_points=None))]
    // Python keyword arguments, one parameter each.
    #[allow(clippy::too_many_arguments)]
    fn load(
        py: Python<'_>,
        path: PathBuf,
        out: PathBuf,
        quick: bool,
        repetitions: Option<u32>,
        jobs: Option<usize>,
        fresh: bool,
        plots: bool,
        robustness_points: Option<usize>,
    ) -> PyResult<PyStudy> {
        let opts = options(out, quick, repetitions, jobs, fresh, plots)?;
        let exp = Experiment::load(&path).map_err(|e| lab_err(e.into()))?;
        let mapped = match robustness_points {
            None => None,
            Some(n) => {
                let runner = msctp_lab::runner::by_name(&exp.spec.runner)
                    .map_err(ExperimentError::new_err)?;
                Some(
                    py.detach(|| prepare_map(&exp, n, runner.as_ref()))
                        .map_err(lab_err)?,
                )
            }
        };
        let exp = mapped.as_ref().map(|m| m.exp.clone()).unwrap_or(exp);
        let inner = py
            .detach(|| Study::open_default(exp, opts))
            .map_err(lab_err)?;
        Ok(PyStudy { inner, mapped })
    }

    /// An ad-hoc sweep of a scenario (TOML text or dict), as `msctp
    /// sweep`: `params` is a list of (dotted key, values); results under
    /// `out/sweep-<name>/`.
    #[staticmethod]
    #[pyo3(signature = (scenario, name, params, repetitions, out, runner="sim", jobs=None, fresh=false))]
    // Python keyword arguments, one parameter each.
    #[allow(clippy::too_many_arguments)]
    fn sweep(
        py: Python<'_>,
        scenario: &Bound<'_, PyAny>,
        name: &str,
        params: Vec<(String, Bound<'_, PyAny>)>,
        repetitions: u32,
        out: PathBuf,
        runner: &str,
        jobs: Option<usize>,
        fresh: bool,
    ) -> PyResult<PyStudy> {
        if repetitions == 0 {
            return Err(ExperimentError::new_err("repetitions must be at least 1"));
        }
        let base = scenario_table(scenario)?;
        let mut axes = Vec::new();
        for (key, values) in params {
            let values: Vec<Value> = from_py(&values, &format!("values of `{key}`"))?;
            axes.push((key, values));
        }
        let path = PathBuf::from(format!("{name}.toml"));
        let exp = sweep_experiment_from(base, &path, name, &axes, repetitions, runner)
            .map_err(lab_err)?;
        let opts = options(out, false, None, jobs, fresh, false)?;
        let inner = py
            .detach(|| Study::open_default(exp, opts))
            .map_err(lab_err)?;
        Ok(PyStudy {
            inner,
            mapped: None,
        })
    }

    #[getter]
    fn id(&self) -> String {
        self.inner.experiment().spec.id.clone()
    }

    #[getter]
    fn title(&self) -> String {
        self.inner.experiment().spec.title.clone()
    }

    /// The experiment's result directory.
    #[getter]
    fn dir(&self) -> PathBuf {
        self.inner.dir().to_path_buf()
    }

    #[getter]
    fn axes(&self) -> Vec<String> {
        self.inner
            .experiment()
            .spec
            .axes
            .iter()
            .map(|a| a.name.clone())
            .collect()
    }

    /// Threads `Experiment.run` uses without an executor.
    #[getter]
    fn jobs(&self) -> usize {
        self.inner.options().exec.jobs
    }

    #[getter]
    fn runner(&self) -> String {
        self.inner.runner().name().to_string()
    }

    /// Every run: (run, key, variant, point {axis: value}, repetition,
    /// seed, stored).
    fn plan(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        let plan = self.inner.plan();
        let out = PyList::empty(py);
        for (i, r) in plan.runs.iter().enumerate() {
            let cell = &plan.cells[r.cell];
            let point = PyDict::new(py);
            for (axis, v) in &cell.point.coords {
                point.set_item(axis, to_py(py, v)?)?;
            }
            out.append((
                i,
                r.key.clone(),
                cell.variant.clone(),
                point,
                r.repetition,
                r.seed,
                self.inner.is_stored(i),
            ))?;
        }
        Ok(out.unbind())
    }

    /// The runs of slice `shard` = (I, N) of the plan, or all.
    #[pyo3(signature = (shard=None))]
    fn runs(&self, shard: Option<(usize, usize)>) -> PyResult<Vec<usize>> {
        let shard = shard
            .map(|(i, n)| Shard::new(i, n))
            .transpose()
            .map_err(ExperimentError::new_err)?;
        Ok(self.inner.runs(shard))
    }

    /// The runs among `runs` still to do.
    fn pending(&self, runs: Vec<usize>) -> PyResult<Vec<usize>> {
        let n = self.inner.plan().runs.len();
        if let Some(bad) = runs.iter().find(|&&r| r >= n) {
            return Err(ExperimentError::new_err(format!(
                "run {bad} is not in the plan ({n} runs)"
            )));
        }
        Ok(self.inner.pending(&runs))
    }

    /// The task of run `run`, as a dict for any executor to pickle.
    fn task(&self, py: Python<'_>, run: usize) -> PyResult<Py<PyAny>> {
        if run >= self.inner.plan().runs.len() {
            return Err(ExperimentError::new_err(format!(
                "run {run} is not in the plan"
            )));
        }
        to_py(py, &self.inner.task(run))
    }

    /// Stores a worker's outcome for run `run`; returns the failure
    /// message of a failed run (nothing stored), else None.
    fn store(&self, run: usize, outcome: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
        if run >= self.inner.plan().runs.len() {
            return Err(ExperimentError::new_err(format!(
                "run {run} is not in the plan"
            )));
        }
        let outcome: RunOutcome = from_py(outcome, "run outcome")?;
        let failed = self.inner.store(run, outcome).map_err(lab_err)?;
        Ok(failed.map(|f| format!("{}: {}", f.what, f.error)))
    }

    /// Rebuilds runs.csv from the store; returns its path.
    fn write_runs_csv(&self, py: Python<'_>) -> PyResult<PathBuf> {
        py.detach(|| self.inner.write_runs_csv()).map_err(lab_err)
    }

    /// Rebuilds summary.csv (and runs.csv) from the store; returns its path.
    fn write_summary_csv(&self, py: Python<'_>) -> PyResult<PathBuf> {
        py.detach(|| self.inner.write_summary_csv())
            .map_err(lab_err)
    }

    /// Writes the results and report from the stored runs, as `msctp
    /// reproduce --report-only`. Returns a dict: dir, report, figures
    /// (paths), checks and published values (lists of dicts), stored and
    /// planned run counts.
    fn report(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        let r = py.detach(|| self.inner.report()).map_err(lab_err)?;
        let d = PyDict::new(py);
        d.set_item("dir", r.dir.clone())?;
        d.set_item("report", r.dir.join("report.md"))?;
        let figures = PyList::empty(py);
        for (_, _, files) in &r.figures {
            for f in files {
                figures.append(f.clone())?;
            }
        }
        d.set_item("figures", figures)?;
        let checks = PyList::empty(py);
        for c in &r.analysis.checks {
            let x = PyDict::new(py);
            x.set_item("claim", &c.claim)?;
            x.set_item("source", &c.source)?;
            x.set_item("verdict", c.verdict.word())?;
            x.set_item("expected", format!("{:?}", c.expect).to_lowercase())?;
            x.set_item("as_expected", c.as_expected())?;
            x.set_item("detail", &c.detail)?;
            checks.append(x)?;
        }
        d.set_item("checks", checks)?;
        let published = PyList::empty(py);
        for p in &r.analysis.published {
            let x = PyDict::new(py);
            x.set_item("variant", &p.variant)?;
            x.set_item("point", &p.point)?;
            x.set_item("metric", &p.spec.metric)?;
            x.set_item("published", p.spec.value)?;
            x.set_item("ours", p.ours_mean)?;
            x.set_item("ci95", p.ours_ci)?;
            x.set_item("agrees", p.verdict == PublishedVerdict::Agrees)?;
            published.append(x)?;
        }
        d.set_item("published", published)?;
        let (stored, planned) = r.analysis.results.completeness();
        d.set_item("stored", stored)?;
        d.set_item("planned", planned)?;
        Ok(d.unbind())
    }

    /// Builds the robustness map from the stored runs (running nothing)
    /// and writes it, as `msctp reproduce --robustness --report-only`;
    /// returns the path of `robustness.csv`.
    fn robustness(&self, py: Python<'_>) -> PyResult<PathBuf> {
        let Some(m) = &self.mapped else {
            return Err(ExperimentError::new_err(format!(
                "{}: not a robustness map; load the experiment with robustness_points=N",
                self.inner.experiment().spec.id
            )));
        };
        py.detach(|| {
            let run = self.inner.report()?;
            let done = finish_map(m, run, self.inner.options())?;
            Ok(done.run.dir.join("robustness.csv"))
        })
        .map_err(lab_err)
    }
}

/// Runs one task (a dict from `Study.task`) in the calling thread with
/// the GIL released; returns the outcome as a dict for `Study.store`.
/// This is what a worker runs: a thread, a process or a Dask worker with
/// the same msctp build.
#[pyfunction]
pub fn run_task(py: Python<'_>, task: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let task: RunTask = from_py(task, "run task")?;
    let outcome = py.detach(|| lab_run_task(&task));
    to_py(py, &outcome)
}
