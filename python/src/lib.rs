//! `msctp._native`: the lab (`crates/lab`) for Python. The Python package
//! (`python/msctp/`) wraps it with pandas and the executors; everything
//! that decides a result (scenarios, overrides, plans, seeds, storage
//! keys, the store, statistics, the report) is the lab's own code, so the
//! results equal those of the `msctp` command byte for byte.
//!
//! Every simulation runs with the GIL released (`Python::detach`), so
//! threads of the calling process run on while it does.

mod convert;
mod run;
mod study;

use pyo3::create_exception;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use msctp_lab::LabError;
use msctp_lab::experiment::SpecError;

create_exception!(
    _native,
    ScenarioError,
    PyValueError,
    "A scenario (or an override) the simulator refuses; the message names the key."
);
create_exception!(
    _native,
    ExperimentError,
    PyValueError,
    "An experiment file (or sweep) that cannot be used; the message names the key."
);
create_exception!(
    _native,
    RunFailed,
    PyRuntimeError,
    "A simulation that started but failed."
);

/// The Python exception for a lab error.
pub(crate) fn lab_err(e: LabError) -> PyErr {
    let msg = e.to_string();
    match e {
        LabError::Spec(SpecError::Read { err, .. }) => {
            if err.kind() == std::io::ErrorKind::NotFound {
                PyFileNotFoundError::new_err(msg)
            } else {
                PyOSError::new_err(msg)
            }
        }
        LabError::Io { .. } | LabError::Store(_) | LabError::Plot(_) => PyOSError::new_err(msg),
        LabError::Scenario { .. } => ScenarioError::new_err(msg),
        LabError::Spec(_) | LabError::Runner { .. } | LabError::Input(_) => {
            ExperimentError::new_err(msg)
        }
    }
}

/// The text of a file a user names, read as the `msctp` command reads
/// one (`msctp_input`): a regular file of at most `MSCTP_MAX_FILE_SIZE`
/// bytes (16 MiB by default). A device, FIFO or directory, or a larger
/// file, raises `OSError` at once.
#[pyfunction]
fn read_input(path: std::path::PathBuf) -> PyResult<String> {
    msctp_input::read_text(&path).map_err(|e| {
        let msg = format!("{}: {e}", path.display());
        if e.kind() == std::io::ErrorKind::NotFound {
            PyFileNotFoundError::new_err(msg)
        } else {
            PyOSError::new_err(msg)
        }
    })
}

/// The model build this extension runs (enters every stored run's key).
#[pyfunction]
fn model_fingerprint() -> String {
    msctp_lab::runner::model_fingerprint()
}

/// The simulator's reference scenario (`crates/sim/src/scenario/
/// reference.toml`: every key with its default; mSCTP soft handover
/// between two cells), or with `baselines` the one with every baseline
/// transport: TOML text to start a scenario from.
#[pyfunction]
#[pyo3(signature = (baselines=false))]
fn reference_scenario(baselines: bool) -> &'static str {
    if baselines {
        msctp_sim::scenario::REFERENCE_BASELINES
    } else {
        msctp_sim::scenario::REFERENCE
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add("ExperimentError", py.get_type::<ExperimentError>())?;
    m.add("RunFailed", py.get_type::<RunFailed>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_NESTING", convert::MAX_NESTING)?;
    m.add_function(wrap_pyfunction!(read_input, m)?)?;
    m.add_function(wrap_pyfunction!(model_fingerprint, m)?)?;
    m.add_function(wrap_pyfunction!(reference_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(run::run, m)?)?;
    m.add_function(wrap_pyfunction!(study::run_task, m)?)?;
    m.add_class::<study::PyStudy>()?;
    Ok(())
}
