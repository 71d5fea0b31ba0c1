//! A synthetic runner for exercising the experiment machinery: **not a
//! network model**. Each metric is `intercept + slope * x` plus Gaussian
//! noise drawn from the run seed, with `x` and the coefficients read from
//! the scenario's `[synthetic]` table:
//!
//! ```toml
//! [synthetic]
//! x = 3.0
//! [synthetic.metrics.goodput_bps]
//! intercept = 1.0e6
//! slope = -2.0e4
//! noise = 1.0e4      # standard deviation, default 0
//! ```
//!
//! Used by the lab's own tests and by `runner = "synthetic"` experiment
//! files that demonstrate the file format without a simulation.

use std::collections::BTreeMap;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use sha2::{Digest, Sha256};
use toml::{Table, Value};

use crate::experiment::value;
use crate::runner::record::RunRecord;
use crate::runner::{RunError, Runner};

/// See the module documentation.
#[derive(Debug, Clone, Copy, Default)]
pub struct SyntheticRunner;

struct Model {
    x: f64,
    metrics: BTreeMap<String, (f64, f64, f64)>,
}

fn num(t: &Table, key: &str, ctx: &str, default: Option<f64>) -> Result<f64, RunError> {
    match t.get(key) {
        None => default.ok_or_else(|| RunError::Scenario(format!("{ctx}.{key} is required"))),
        Some(v) => value::as_number(v)
            .filter(|x| x.is_finite())
            .ok_or_else(|| RunError::Scenario(format!("{ctx}.{key} must be a finite number"))),
    }
}

fn parse(s: &Table) -> Result<Model, RunError> {
    for k in s.keys() {
        if k != "synthetic" && k != "name" && k != "seed" {
            return Err(RunError::Scenario(format!(
                "unknown key `{k}` (the synthetic runner reads `synthetic`, `name`, `seed`)"
            )));
        }
    }
    let Some(Value::Table(t)) = s.get("synthetic") else {
        return Err(RunError::Scenario("table `synthetic` is required".into()));
    };
    for k in t.keys() {
        if k != "x" && k != "metrics" {
            return Err(RunError::Scenario(format!("unknown key `synthetic.{k}`")));
        }
    }
    let x = num(t, "x", "synthetic", Some(0.0))?;
    let mut metrics = BTreeMap::new();
    if let Some(m) = t.get("metrics") {
        let Value::Table(m) = m else {
            return Err(RunError::Scenario(
                "synthetic.metrics must be a table".into(),
            ));
        };
        for (name, spec) in m {
            let ctx = format!("synthetic.metrics.{name}");
            let Value::Table(spec) = spec else {
                return Err(RunError::Scenario(format!("{ctx} must be a table")));
            };
            for k in spec.keys() {
                if !["intercept", "slope", "noise"].contains(&k.as_str()) {
                    return Err(RunError::Scenario(format!("unknown key `{ctx}.{k}`")));
                }
            }
            let noise = num(spec, "noise", &ctx, Some(0.0))?;
            if noise < 0.0 {
                return Err(RunError::Scenario(format!("{ctx}.noise must be >= 0")));
            }
            metrics.insert(
                name.clone(),
                (
                    num(spec, "intercept", &ctx, Some(0.0))?,
                    num(spec, "slope", &ctx, Some(0.0))?,
                    noise,
                ),
            );
        }
    }
    Ok(Model { x, metrics })
}

impl Runner for SyntheticRunner {
    fn name(&self) -> &str {
        "synthetic"
    }
    fn fingerprint(&self) -> String {
        "synthetic-1".into()
    }
    fn validate(&self, scenario: &Table) -> Result<(), RunError> {
        parse(scenario).map(|_| ())
    }
    fn run(&self, scenario: &Table, seed: u64) -> Result<RunRecord, RunError> {
        let m = parse(scenario)?;
        let mut r = RunRecord::new();
        for (name, (a, b, noise)) in m.metrics {
            // One stream per metric: adding a metric never shifts another.
            let mut h = Sha256::new();
            h.update(seed.to_le_bytes());
            h.update(name.as_bytes());
            let mut s = [0u8; 32];
            s.copy_from_slice(&h.finalize());
            let mut rng = ChaCha8Rng::from_seed(s);
            let e = Normal::new(0.0, noise)
                .map_err(|e| RunError::Scenario(format!("{name}: {e}")))?
                .sample(&mut rng);
            r.metrics.insert(name, a + b * m.x + e);
        }
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_strict() {
        let s: Table = toml::from_str(
            "[synthetic]\nx = 2\n[synthetic.metrics.y]\nintercept = 1\nslope = 3\nnoise = 0.5\n",
        )
        .unwrap();
        let a = SyntheticRunner.run(&s, 9).unwrap();
        assert_eq!(a, SyntheticRunner.run(&s, 9).unwrap());
        assert_ne!(a, SyntheticRunner.run(&s, 10).unwrap());
        assert!((a.metrics["y"] - 7.0).abs() < 3.0);
        let bad: Table = toml::from_str("[synthetic]\nz = 1\n").unwrap();
        let e = SyntheticRunner.validate(&bad).unwrap_err().to_string();
        assert!(e.contains("synthetic.z"), "{e}");
        let bad: Table = toml::from_str("[synthetic.metrics.y]\nnoise = -1\n").unwrap();
        assert!(SyntheticRunner.validate(&bad).is_err());
    }
}
