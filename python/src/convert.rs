//! Python values to and from the lab's TOML tables and records. Numbers
//! cross as Python ints and floats (exact f64), never through text.
//!
//! A Python value is walked before it is converted ([`check_shape`]): a
//! dict or list that contains itself, nesting deeper than [`MAX_NESTING`]
//! or more than [`MAX_ITEMS`] values in all is refused with a
//! `ScenarioError` (a `ValueError`) instead of overflowing the stack (the
//! conversion recurses once per level) or expanding without end.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use pythonize::{depythonize, pythonize};
use serde::Serialize;
use toml::Table;

use crate::ScenarioError;

/// Deepest nesting of dicts, lists and tuples a value given to the lab may
/// have. The simulator's scenarios are at most four levels deep (e.g.
/// `flows[0].sctp.cmt`), and experiment values about as much; the
/// conversion recurses once per level.
pub const MAX_NESTING: usize = 64;

/// Most values (of any kind, nested ones included) in one value given to
/// the lab: bounds a dict that refers to the same sub-dict many times,
/// which the conversion would copy at every reference.
pub const MAX_ITEMS: usize = 1 << 20;

/// Checks that `obj` contains no dict, list or tuple of its own path
/// (a cycle), nests at most [`MAX_NESTING`] deep and holds at most
/// [`MAX_ITEMS`] values; `what` names it in the message.
pub fn check_shape(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<()> {
    let mut walk = Walk {
        path: Vec::new(),
        items: 0,
        what,
    };
    walk.visit(obj)
}

struct Walk<'w> {
    /// The containers from the top to the current one (by identity).
    path: Vec<usize>,
    items: usize,
    what: &'w str,
}

impl Walk<'_> {
    fn visit(&mut self, obj: &Bound<'_, PyAny>) -> PyResult<()> {
        self.items += 1;
        if self.items > MAX_ITEMS {
            return Err(ScenarioError::new_err(format!(
                "{}: more than {MAX_ITEMS} values",
                self.what
            )));
        }
        let children: Vec<Bound<'_, PyAny>> = if let Ok(d) = obj.cast::<PyDict>() {
            d.values().iter().collect()
        } else if let Ok(l) = obj.cast::<PyList>() {
            l.iter().collect()
        } else if let Ok(t) = obj.cast::<PyTuple>() {
            t.iter().collect()
        } else {
            return Ok(());
        };
        let id = obj.as_ptr() as usize;
        if self.path.contains(&id) {
            return Err(ScenarioError::new_err(format!(
                "{}: a dict or list that contains itself",
                self.what
            )));
        }
        if self.path.len() >= MAX_NESTING {
            return Err(ScenarioError::new_err(format!(
                "{}: nested deeper than {MAX_NESTING} levels",
                self.what
            )));
        }
        self.path.push(id);
        for c in &children {
            self.visit(c)?;
        }
        self.path.pop();
        Ok(())
    }
}

/// A scenario given as TOML text or as a dict of TOML values.
pub fn scenario_table(obj: &Bound<'_, PyAny>) -> PyResult<Table> {
    if let Ok(s) = obj.cast::<PyString>() {
        return toml::from_str(s.to_str()?)
            .map_err(|e| ScenarioError::new_err(format!("scenario TOML: {e}")));
    }
    if obj.cast::<PyDict>().is_ok() {
        check_shape(obj, "scenario dict")?;
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
    check_shape(overrides.as_any(), "overrides")?;
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
    check_shape(obj, what)?;
    depythonize(obj).map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("{what}: {e}")))
}
