//! Python values to and from the lab's TOML tables and records. Numbers
//! cross as Python ints and floats (exact f64), never through text.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use pythonize::{depythonize, pythonize};
use serde::Serialize;
use toml::Table;

use crate::ScenarioError;

/// A scenario given as TOML text or as a dict of TOML values.
pub fn scenario_table(obj: &Bound<'_, PyAny>) -> PyResult<Table> {
    if let Ok(s) = obj.cast::<PyString>() {
        return toml::from_str(s.to_str()?)
            .map_err(|e| ScenarioError::new_err(format!("scenario TOML: {e}")));
    }
    if obj.cast::<PyDict>().is_ok() {
        return depythonize::<Table>(obj).map_err(|e| {
            ScenarioError::new_err(format!(
                "scenario dict: {e} (values must be str, int, float, bool, lists or dicts)"
            ))
        });
    }
    Err(ScenarioError::new_err(format!(
        "a scenario is TOML text or a dict, not {}",
        obj.get_type().name()?
    )))
}

/// `{"dotted.key": value}` applied to `table` with the lab's key paths
/// (the way experiment variants and sweep axes override a scenario).
pub fn apply_overrides(table: &mut Table, overrides: &Bound<'_, PyDict>) -> PyResult<()> {
    let o: Table = depythonize(overrides.as_any())
        .map_err(|e| ScenarioError::new_err(format!("overrides: {e}")))?;
    msctp_lab::keypath::apply_overrides(table, &o)
        .map_err(|e| ScenarioError::new_err(format!("overrides: {e}")))
}

/// Any serialisable value as Python objects.
pub fn to_py<T: Serialize + ?Sized>(py: Python<'_>, v: &T) -> PyResult<Py<PyAny>> {
    pythonize(py, v)
        .map(Bound::unbind)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

/// A Python value into a serialisable type.
pub fn from_py<'a, T: serde::Deserialize<'a>>(
    obj: &'a Bound<'_, PyAny>,
    what: &str,
) -> PyResult<T> {
    depythonize(obj).map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("{what}: {e}")))
}
