//! What one run reports: scalar measures and, for the few figures that
//! plot against time, time series; or why it could not run.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Why a run (or the validation of its scenario) failed.
#[derive(Debug, Clone, PartialEq, Error, Serialize, Deserialize)]
pub enum RunError {
    /// The scenario is not valid for this runner (unknown key, value out
    /// of range); the message names the key.
    #[error("invalid scenario: {0}")]
    Scenario(String),
    /// The run started but failed.
    #[error("run failed: {0}")]
    Failed(String),
    /// The run returned a record the lab cannot store.
    #[error("bad run record: {0}")]
    BadRecord(String),
    /// The runner panicked (a bug in the model); the lab caught it.
    #[error("runner panicked: {0}")]
    Panicked(String),
}

/// The outcome of one run: named scalar measures (the measures of
/// docs/MODELS.md section 5, e.g. `goodput_bps`, `handoff_delay_s`) and named
/// time series of `(time_s, value)` points (e.g. stations on each network
/// over time). A measure the run could not take is
/// left out, never written as NaN.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    #[serde(default)]
    pub metrics: BTreeMap<String, f64>,
    #[serde(default)]
    pub series: BTreeMap<String, Vec<(f64, f64)>>,
}

impl RunRecord {
    /// An empty record.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a scalar measure (builder style).
    pub fn with_metric(mut self, name: impl Into<String>, value: f64) -> Self {
        self.metrics.insert(name.into(), value);
        self
    }

    /// Adds a time series (builder style).
    pub fn with_series(mut self, name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        self.series.insert(name.into(), points);
        self
    }

    /// Refuses non-finite values (JSON cannot hold them, and a NaN in a
    /// mean poisons the statistics): the runner must omit what it could
    /// not measure. Also bounds the number of series points.
    pub fn check(&self, max_series_points: usize) -> Result<(), RunError> {
        for (name, v) in &self.metrics {
            if !v.is_finite() {
                return Err(RunError::BadRecord(format!(
                    "metric `{name}` is {v} (omit a measure that could not be taken)"
                )));
            }
        }
        for (name, points) in &self.series {
            if points.len() > max_series_points {
                return Err(RunError::BadRecord(format!(
                    "series `{name}` has {} points, more than the limit {max_series_points}",
                    points.len()
                )));
            }
            if let Some((t, v)) = points
                .iter()
                .find(|(t, v)| !t.is_finite() || !v.is_finite())
            {
                return Err(RunError::BadRecord(format!(
                    "series `{name}` has a non-finite point ({t}, {v})"
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_values_are_refused() {
        let ok = RunRecord::new()
            .with_metric("a", 1.0)
            .with_series("s", vec![(0.0, 1.0)]);
        assert!(ok.check(10).is_ok());
        let bad = RunRecord::new().with_metric("a", f64::NAN);
        let e = bad.check(10).unwrap_err().to_string();
        assert!(e.contains("`a`"), "{e}");
        let bad = RunRecord::new().with_series("s", vec![(f64::INFINITY, 1.0)]);
        assert!(bad.check(10).is_err());
        let long = RunRecord::new().with_series("s", vec![(0.0, 0.0); 11]);
        assert!(long.check(10).unwrap_err().to_string().contains("limit 10"));
    }

    #[test]
    fn json_round_trip() {
        let r = RunRecord::new()
            .with_metric("goodput_bps", 1.5e6)
            .with_series("stations", vec![(0.0, 1.0), (1.0, 2.0)]);
        let s = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<RunRecord>(&s).unwrap(), r);
    }
}
