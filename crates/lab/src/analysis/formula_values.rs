//! The evaluation of an experiment's analytic formulas
//! ([`crate::experiment::formulas::FormulaSpec`]) at one cell of its results: the
//! parameters taken from constants, axis values, scenario keys or measured
//! means, then the formula.

use toml::Table;

use crate::aggregate::CellResult;
use crate::experiment::formulas::{FormulaSpec, ParamSource, parse_param};
use crate::{experiment::value, keypath};

impl FormulaSpec {
    /// Evaluates at one cell: `scenario` is the cell's scenario, `cell`
    /// its measured results.
    pub fn evaluate(&self, scenario: &Table, cell: &CellResult) -> Result<f64, String> {
        let mut args = Vec::new();
        for (name, default) in self.kind.params() {
            let v = match self.params.get(*name) {
                None => default.ok_or_else(|| format!("parameter `{name}` missing"))?,
                Some(raw) => match parse_param(&self.id, name, raw)? {
                    ParamSource::Const(x) => x,
                    ParamSource::Axis(a, s) => {
                        cell.point
                            .get(&a)
                            .and_then(value::as_number)
                            .ok_or_else(|| format!("`{name}`: no numeric value of axis `{a}`"))?
                            * s
                    }
                    ParamSource::Scenario(p, s) => {
                        keypath::get(scenario, &p)
                            .and_then(value::as_number)
                            .ok_or_else(|| {
                                format!("`{name}`: scenario key `{p}` is missing or not a number")
                            })?
                            * s
                    }
                    ParamSource::Metric(m, s) => {
                        cell.mean(&m)
                            .ok_or_else(|| format!("`{name}`: metric `{m}` not measured"))?
                            * s
                    }
                },
            };
            args.push(v);
        }
        let out = self.kind.eval(&args)?;
        if out.is_finite() {
            Ok(out)
        } else {
            Err(format!("{} gave {out}", self.kind.name()))
        }
    }
}
