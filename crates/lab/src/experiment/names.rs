//! The names an experiment declares (variants, sweep axes with their
//! values, metrics, formulas), against which every cross-reference of the
//! file is checked: the checks of [`crate::experiment::checks`], the formulas of
//! [`crate::experiment::formulas`], the figures and tables of [`crate::experiment`].

use toml::{Table, Value};

use crate::experiment::value;

/// What the cross-reference checks see.
#[derive(Debug, Clone)]
pub struct Names {
    pub variants: Vec<String>,
    pub axes: Vec<(String, Vec<Value>)>,
    pub metrics: Vec<String>,
    pub formulas: Vec<String>,
}

impl Names {
    pub fn has_variant(&self, v: &str) -> bool {
        self.variants.iter().any(|x| x == v)
    }
    pub fn has_metric(&self, m: &str) -> bool {
        self.metrics.iter().any(|x| x == m)
    }
    pub fn axis(&self, name: &str) -> Option<&[Value]> {
        self.axes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }
    /// Checks a variant list (default: all).
    pub fn check_variants(&self, ctx: &str, vs: &[String]) -> Result<(), String> {
        for v in vs {
            if !self.has_variant(v) {
                return Err(format!(
                    "{ctx}: unknown variant `{v}` (variants: {})",
                    self.variants.join(", ")
                ));
            }
        }
        Ok(())
    }
    pub fn check_metric(&self, ctx: &str, m: &str) -> Result<(), String> {
        if self.has_metric(m) {
            Ok(())
        } else {
            Err(format!(
                "{ctx}: metric `{m}` is not declared in [[metrics]] (declared: {})",
                self.metrics.join(", ")
            ))
        }
    }
    /// Checks a point selection `{ axis = value }`: known axes, values on
    /// the axis.
    pub fn check_at(&self, ctx: &str, at: &Table) -> Result<(), String> {
        for (k, v) in at {
            let Some(values) = self.axis(k) else {
                return Err(format!(
                    "{ctx}: `{k}` is not an axis (axes: {})",
                    self.axes
                        .iter()
                        .map(|(n, _)| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            };
            if !values.iter().any(|x| value::same(x, v)) {
                return Err(format!(
                    "{ctx}: {k} = {} is not one of the axis values",
                    value::label(v)
                ));
            }
        }
        Ok(())
    }
    /// Checks that every axis other than `free` is fixed by `at` or has a
    /// single value.
    pub fn check_fixed(&self, ctx: &str, at: &Table, free: &[&str]) -> Result<(), String> {
        for (name, values) in &self.axes {
            if values.len() > 1 && !at.contains_key(name) && !free.contains(&name.as_str()) {
                return Err(format!(
                    "{ctx}: axis `{name}` has several values; fix one in `where`/`at`"
                ));
            }
        }
        Ok(())
    }
}
