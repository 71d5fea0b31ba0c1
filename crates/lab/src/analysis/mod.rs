//! Everything the report says about one experiment, computed from the
//! aggregated results: the analytic formulas at every cell, the published
//! values beside ours with a plain verdict, and the qualitative checks.

mod formula_values;
pub mod verdicts;

pub use verdicts::FormulaValues;

use crate::aggregate::Results;
use crate::experiment::{BASE_VARIANT, Experiment, PublishedSpec};
use crate::plan::{Plan, Point};
use verdicts::CheckOutcome;

/// A published value beside ours.
#[derive(Debug, Clone, PartialEq)]
pub struct PublishedOutcome {
    pub spec: PublishedSpec,
    pub variant: String,
    pub point: String,
    pub ours_mean: Option<f64>,
    pub ours_ci: Option<f64>,
    pub n: usize,
    /// (ours - published) / |published|; `None` when not measured or the
    /// published value is 0.
    pub relative_difference: Option<f64>,
    pub tolerance: f64,
    pub verdict: PublishedVerdict,
}

/// How a published value compares with ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PublishedVerdict {
    /// Within the relative tolerance, or inside our 95% CI.
    Agrees,
    Differs,
    NotMeasured,
}

impl PublishedVerdict {
    pub fn word(self) -> &'static str {
        match self {
            PublishedVerdict::Agrees => "agrees",
            PublishedVerdict::Differs => "differs",
            PublishedVerdict::NotMeasured => "not measured",
        }
    }
}

/// One experiment analysed.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub results: Results,
    pub formulas: FormulaValues,
    pub published: Vec<PublishedOutcome>,
    pub checks: Vec<CheckOutcome>,
}

impl Analysis {
    /// Checks whose verdict is not the expected one.
    pub fn unexpected(&self) -> Vec<&CheckOutcome> {
        self.checks.iter().filter(|c| !c.as_expected()).collect()
    }
}

/// Analyses aggregated results.
pub fn analyse(exp: &Experiment, plan: &Plan, results: Results) -> Analysis {
    let spec = &exp.spec;
    let mut formulas = FormulaValues::new();
    for f in &spec.formulas {
        for (i, pc) in plan.cells.iter().enumerate() {
            if !f.applies_to(&pc.variant) {
                continue;
            }
            let Some(cell) = results.cells.get(i) else {
                continue;
            };
            formulas.insert(
                (f.id.clone(), pc.variant.clone(), pc.point.label()),
                f.evaluate(&pc.scenario, cell),
            );
        }
    }
    let published = spec
        .published
        .iter()
        .map(|p| {
            let variant = p.variant.clone().unwrap_or_else(|| {
                spec.variants
                    .first()
                    .map(|v| v.name.clone())
                    .unwrap_or_else(|| BASE_VARIANT.to_string())
            });
            let point = published_point(plan, &p.at);
            let cell = point.as_ref().and_then(|pt| results.cell(&variant, pt));
            let summary = cell.and_then(|c| c.summary(&p.metric));
            let tolerance = p.tolerance.unwrap_or(spec.published_tolerance);
            let ours_mean = summary.map(|s| s.mean);
            let ours_ci = summary.and_then(|s| s.ci95_half_width);
            let relative_difference = match ours_mean {
                Some(m) if p.value != 0.0 => Some((m - p.value) / p.value.abs()),
                _ => None,
            };
            let verdict = match ours_mean {
                None => PublishedVerdict::NotMeasured,
                Some(m) => {
                    let within_tol = (m - p.value).abs() <= tolerance * p.value.abs();
                    let within_ci = ours_ci.is_some_and(|h| (m - p.value).abs() <= h);
                    if within_tol || within_ci {
                        PublishedVerdict::Agrees
                    } else {
                        PublishedVerdict::Differs
                    }
                }
            };
            PublishedOutcome {
                spec: p.clone(),
                variant,
                point: point
                    .map(|p| p.label())
                    .unwrap_or_else(|| "(not in this run)".into()),
                ours_mean,
                ours_ci,
                n: summary.map(|s| s.n).unwrap_or(0),
                relative_difference,
                tolerance,
                verdict,
            }
        })
        .collect();
    let axis_order: Vec<(String, Vec<toml::Value>)> = spec
        .axes
        .iter()
        .map(|a| (a.name.clone(), a.values.clone()))
        .collect();
    let variants = spec.variant_names();
    let checks = spec
        .checks
        .iter()
        .enumerate()
        .map(|(i, c)| c.evaluate(i, &results, &variants, &axis_order, &formulas))
        .collect();
    Analysis {
        results,
        formulas,
        published,
        checks,
    }
}

/// The planned point a published value refers to (its `at` fixes every
/// axis with several values; single-valued axes take their value).
fn published_point(plan: &Plan, at: &toml::Table) -> Option<Point> {
    plan.points.iter().find(|p| p.matches(at)).cloned()
}
