//! Robustness maps: how much of the space of values a paper leaves unsaid
//! (an experiment's `[robustness]`, [`crate::experiment::robustness`])
//! supports each of its claims.
//!
//! A study's map is itself an experiment, derived from the study
//! ([`derive`]): the mapped variants at the study's quick sweep points and
//! quick repetitions, times one more axis, `robustness_point`, whose value
//! i writes point i of a Latin hypercube design ([`sample`]) over the
//! declared parameters. So its runs are planned, seeded, stored, sharded
//! (`--shard`), reused and sent to a Dask cluster (the Python package) by
//! the same code as every other run, into `<out>/<id>.robustness/`.
//! [`evaluate`] then evaluates every claim at each design point alone (the
//! check restricted to `robustness_point = i`) and reports the share of
//! points where it holds, its 95% Wilson interval and a sensitivity index
//! per parameter ([`stats`]); [`figure`] draws each claim's verdicts over
//! its two most influential parameters.

pub mod evaluate;

pub mod sample;
pub mod stats;

use sha2::{Digest, Sha256};
use toml::{Table, Value};

use crate::experiment::checks::{CheckKind, CheckSpec};
use crate::experiment::robustness::ParamSpec;
use crate::experiment::{AxisSpec, Experiment, value};

pub use evaluate::{ClaimMap, RobustnessMap, evaluate};

/// The design's points per study when none is asked for: 24 points put
/// 12 in each half of every range (the sensitivity index compares the
/// halves) and give a share of 1 an interval down to 86%; the mapped
/// studies (E1, E2, E5, E6) then take about 700 CPU seconds, under 30
/// minutes on two loaded cores (docs/measurements/robustness.md).
pub const DEFAULT_POINTS: usize = 24;

/// Most design points per study (each point is a whole quick study).
pub const MAX_POINTS: usize = 4096;

/// The name of the axis that carries the design points.
pub const AXIS: &str = "robustness_point";

/// The map's experiment id: `<study id>.robustness`.
pub fn map_id(study: &str) -> String {
    format!("{study}.robustness")
}

/// The design: point i's quantiles `u[i]` (one per parameter, in [0, 1))
/// and the values they map to.
#[derive(Debug, Clone, PartialEq)]
pub struct Design {
    pub params: Vec<ParamSpec>,
    pub u: Vec<Vec<f64>>,
    pub values: Vec<Vec<Value>>,
}

/// The design's seed: a hash of the study's id, fixed so that a map is
/// reproducible and its stored runs are found again.
pub fn design_seed(study: &str) -> u64 {
    let mut h = Sha256::new();
    h.update(b"msctp-lab robustness design v1\0");
    h.update(study.as_bytes());
    let d = h.finalize();
    u64::from_le_bytes(d[..8].try_into().expect("8 bytes"))
}

/// `n` Latin hypercube points over the study's declared parameters.
pub fn design(exp: &Experiment, n: usize) -> Result<Design, String> {
    let Some(r) = &exp.spec.robustness else {
        return Err(format!(
            "{}: no [robustness] section: the study declares no unsaid values to map",
            exp.path.display()
        ));
    };
    if n == 0 || n > MAX_POINTS {
        return Err(format!("robustness points: {n} is not in 1..={MAX_POINTS}"));
    }
    let u = sample::latin_hypercube(n, r.params.len(), design_seed(&exp.spec.id));
    let values = u
        .iter()
        .map(|p| {
            r.params
                .iter()
                .zip(p)
                .map(|(q, &x)| q.value_at(x))
                .collect()
        })
        .collect();
    Ok(Design {
        params: r.params.clone(),
        u,
        values,
    })
}

/// A study's map as an experiment, with its design and which of the
/// study's claims it maps.
#[derive(Debug, Clone)]
pub struct Mapped {
    /// The derived experiment (id `<study>.robustness`).
    pub exp: Experiment,
    pub study: String,
    pub design: Design,
    /// (index of the check in the study's file, index in `exp`'s checks).
    pub checks: Vec<(usize, usize)>,
    /// (index in the study's file, claim, why it is not mapped).
    pub unmapped: Vec<(usize, String, String)>,
}

/// The variants a check compares.
fn check_variants(c: &CheckSpec, all: &[String]) -> Vec<String> {
    let mut v = if c.kind == CheckKind::Best {
        let mut v = c.among.clone().unwrap_or_else(|| all.to_vec());
        v.extend(c.variant.clone());
        v
    } else {
        c.selected_variants(all)
    };
    v.extend(c.a.clone());
    v.extend(c.b.clone());
    v
}

/// Derives the map of `exp` with `n` design points: see the module
/// documentation. Claims about variants the map does not run, or at
/// points outside the quick sweep, are listed as not mapped.
pub fn derive(exp: &Experiment, n: usize) -> Result<Mapped, String> {
    let design = design(exp, n)?;
    let r = exp.spec.robustness.as_ref().expect("design checked it");
    let all = exp.spec.variant_names();
    let mapped = r.mapped_variants(&all);
    let mut spec = exp.spec.clone();
    spec.id = map_id(&exp.spec.id);
    spec.title = format!("{} (robustness map)", exp.spec.title);
    spec.variants.retain(|v| mapped.contains(&v.name));
    for a in &mut spec.axes {
        a.values = exp.spec.axis_values(a, true);
        a.quick_values = None;
        a.overrides
            .retain(|k, _| a.values.iter().any(|v| value::label(v) == *k));
    }
    spec.repetitions = exp.spec.quick_repetitions();
    spec.quick_repetitions = Some(spec.repetitions);
    spec.figures.clear();
    spec.tables.clear();
    spec.published.clear();
    spec.notes.clear();
    spec.robustness = None;
    spec.provenance = Table::new();
    spec.metrics
        .retain(|m| m.relative_to.as_ref().is_none_or(|v| mapped.contains(v)));
    let metrics: Vec<String> = spec.metrics.iter().map(|m| m.name.clone()).collect();
    spec.formulas.retain(|f| {
        f.params
            .values()
            .all(|p| match p.get("metric").and_then(Value::as_str) {
                Some(m) => metrics.iter().any(|x| x == m),
                None => true,
            })
    });
    for f in &mut spec.formulas {
        if let Some(vs) = &mut f.variants {
            vs.retain(|v| mapped.contains(v));
        }
    }
    spec.formulas
        .retain(|f| f.variants.as_ref().is_none_or(|v| !v.is_empty()));
    let names = spec.names();
    let mut checks = Vec::new();
    let mut unmapped = Vec::new();
    let mut kept = Vec::new();
    for (i, c) in exp.spec.checks.iter().enumerate() {
        let why = if let Some(v) = check_variants(c, &all).iter().find(|v| !mapped.contains(v)) {
            Some(format!("variant `{v}` is not in the map"))
        } else {
            c.validate("", &names).err().map(|e| {
                format!(
                    "not in the map's quick sweep ({})",
                    e.trim_start_matches(": ")
                )
            })
        };
        match why {
            Some(w) => unmapped.push((i, c.claim.clone(), w)),
            None => {
                checks.push((i, kept.len()));
                kept.push(c.clone());
            }
        }
    }
    spec.checks = kept;
    spec.axes.push(design_axis(&design, &spec.axes)?);
    spec.validate()
        .map_err(|e| format!("{}: the robustness map: {e}", exp.path.display()))?;
    Ok(Mapped {
        exp: Experiment {
            spec,
            base: exp.base.clone(),
            path: exp.path.clone(),
        },
        study: exp.spec.id.clone(),
        design,
        checks,
        unmapped,
    })
}

/// The axis of the design: value i writes point i's values at their keys.
fn design_axis(design: &Design, axes: &[AxisSpec]) -> Result<AxisSpec, String> {
    if axes.iter().any(|a| a.name == AXIS) {
        return Err(format!("an axis is already named `{AXIS}`"));
    }
    let mut overrides = Table::new();
    for (i, vals) in design.values.iter().enumerate() {
        let mut o = Table::new();
        for (p, v) in design.params.iter().zip(vals) {
            for k in p.all_keys() {
                o.insert(k.to_string(), v.clone());
            }
        }
        overrides.insert(i.to_string(), Value::Table(o));
    }
    Ok(AxisSpec {
        name: AXIS.into(),
        label: Some("Robustness design point".into()),
        key: None,
        keys: Vec::new(),
        values: (0..design.values.len() as i64)
            .map(Value::Integer)
            .collect(),
        quick_values: None,
        overrides,
    })
}

/// Checks every parameter's extremes (min and max, or each choice) with
/// the runner on each mapped variant's scenario, so a value the model
/// refuses is named with its parameter before anything runs.
pub fn check_extremes(mapped: &Mapped, runner: &dyn crate::Runner) -> Result<(), String> {
    let exp = &mapped.exp;
    for v in &exp.spec.variants {
        let mut base = exp.base.clone();
        crate::keypath::apply_overrides(&mut base, &v.set).map_err(|e| e.to_string())?;
        for p in &mapped.design.params {
            for x in p.extremes() {
                let mut s = base.clone();
                for k in p.all_keys() {
                    crate::keypath::set(&mut s, k, x.clone()).map_err(|e| e.to_string())?;
                }
                runner.validate(&s).map_err(|e| {
                    format!(
                        "{}: robustness parameter `{}` ({}) = {} with variant `{}`: {e}",
                        exp.path.display(),
                        p.name,
                        p.all_keys().join(", "),
                        value::label(&x),
                        v.name
                    )
                })?;
            }
        }
    }
    Ok(())
}
