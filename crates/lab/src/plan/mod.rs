//! Expanding an experiment into runs: variants x points (the cartesian
//! product of the sweep axes, first axis slowest) x repetitions, each run
//! with its scenario, seed and storage key.
//!
//! A run's scenario is the base scenario, then the variant's overrides,
//! then each axis's value (written at its keys) and per-value overrides,
//! in axis order: the swept value wins over the variant.

pub mod seed;
pub mod shard;

use toml::{Table, Value};

use crate::experiment::Experiment;
use crate::experiment::value;
use crate::keypath;
use crate::runner::Runner;

/// One coordinate per sweep axis, in axis order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Point {
    pub coords: Vec<(String, Value)>,
}

impl Point {
    /// The value of one axis.
    pub fn get(&self, axis: &str) -> Option<&Value> {
        self.coords.iter().find(|(n, _)| n == axis).map(|(_, v)| v)
    }

    /// "handoffs=3, pattern=random"; "-" for an experiment without axes.
    pub fn label(&self) -> String {
        if self.coords.is_empty() {
            return "-".into();
        }
        self.coords
            .iter()
            .map(|(n, v)| format!("{n}={}", value::label(v)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The typed form hashed into seeds.
    pub fn canonical(&self) -> String {
        self.coords
            .iter()
            .map(|(n, v)| format!("{n}={}", value::canonical(v)))
            .collect::<Vec<_>>()
            .join(";")
    }

    /// Whether every `axis = value` of `at` holds at this point (axes not
    /// named in `at` match anything).
    pub fn matches(&self, at: &Table) -> bool {
        at.iter()
            .all(|(k, v)| self.get(k).is_some_and(|mine| value::same(mine, v)))
    }

    /// The same point without one axis (to group points along it).
    pub fn without(&self, axis: &str) -> Point {
        Point {
            coords: self
                .coords
                .iter()
                .filter(|(n, _)| n != axis)
                .cloned()
                .collect(),
        }
    }
}

/// One (variant, point) combination and its scenario.
#[derive(Debug, Clone)]
pub struct PlannedCell {
    pub variant: String,
    pub point: Point,
    pub scenario: Table,
    /// `toml::to_string` of the scenario (hashed into run keys).
    pub canonical: String,
}

/// One run.
#[derive(Debug, Clone)]
pub struct PlannedRun {
    /// Index into [`Plan::cells`].
    pub cell: usize,
    pub repetition: u32,
    pub seed: u64,
    pub key: String,
}

/// Every run of an experiment in one mode.
#[derive(Debug, Clone)]
pub struct Plan {
    pub experiment: String,
    pub quick: bool,
    pub repetitions: u32,
    pub variants: Vec<String>,
    pub points: Vec<Point>,
    /// Variant-major: all points of the first variant, then the next.
    pub cells: Vec<PlannedCell>,
    /// Cell-major, repetitions in order.
    pub runs: Vec<PlannedRun>,
}

impl Plan {
    pub fn cell_index(&self, variant: &str, point: &Point) -> Option<usize> {
        self.cells
            .iter()
            .position(|c| c.variant == variant && c.point == *point)
    }
}

/// The points of the sweep in the given mode.
pub fn points(exp: &Experiment, quick: bool) -> Vec<Point> {
    let mut pts = vec![Point::default()];
    for axis in &exp.spec.axes {
        let values = exp.spec.axis_values(axis, quick);
        let mut next = Vec::with_capacity(pts.len() * values.len());
        for p in &pts {
            for v in &values {
                let mut q = p.clone();
                q.coords.push((axis.name.clone(), v.clone()));
                next.push(q);
            }
        }
        pts = next;
    }
    pts
}

/// The scenario of one variant at one point.
pub fn scenario_for(exp: &Experiment, variant: &str, point: &Point) -> Result<Table, String> {
    let mut s = exp.base.clone();
    if let Some(v) = exp.spec.variants.iter().find(|v| v.name == variant) {
        keypath::apply_overrides(&mut s, &v.set)
            .map_err(|e| format!("variant `{variant}`: {e}"))?;
    }
    for axis in &exp.spec.axes {
        let Some(val) = point.get(&axis.name) else {
            continue;
        };
        let ctx = format!("axis `{}` = {}", axis.name, value::label(val));
        for key in axis.key.iter().chain(axis.keys.iter()) {
            keypath::set(&mut s, key, val.clone()).map_err(|e| format!("{ctx}: {e}"))?;
        }
        if let Some(Value::Table(o)) = axis.overrides.get(&value::label(val)) {
            keypath::apply_overrides(&mut s, o).map_err(|e| format!("{ctx}: {e}"))?;
        }
    }
    Ok(s)
}

/// Expands the experiment. `repetitions` overrides the file's count
/// (`--reps`); the runner's name and fingerprint and the digest of the
/// files each scenario reads ([`Runner::inputs_digest`]) enter the storage
/// keys.
pub fn plan(
    exp: &Experiment,
    quick: bool,
    repetitions: Option<u32>,
    runner: &dyn Runner,
) -> Result<Plan, String> {
    let fingerprint = runner.fingerprint();
    let reps = repetitions.unwrap_or(if quick {
        exp.spec.quick_repetitions()
    } else {
        exp.spec.repetitions
    });
    if reps == 0 {
        return Err("repetitions must be at least 1".into());
    }
    let variants = exp.spec.variant_names();
    let pts = points(exp, quick);
    let mut cells = Vec::with_capacity(variants.len() * pts.len());
    let mut runs = Vec::new();
    for v in &variants {
        for p in &pts {
            let scenario = scenario_for(exp, v, p)?;
            let canonical = toml::to_string(&scenario)
                .map_err(|e| format!("variant `{v}` at {}: {e}", p.label()))?;
            let inputs = runner.inputs_digest(&scenario);
            let cell = cells.len();
            for rep in 0..reps {
                let seed = seed::run_seed(exp.spec.seeds, &exp.spec.id, v, &p.canonical(), rep);
                let key = seed::run_key(runner.name(), &fingerprint, &canonical, &inputs, seed);
                runs.push(PlannedRun {
                    cell,
                    repetition: rep,
                    seed,
                    key,
                });
            }
            cells.push(PlannedCell {
                variant: v.clone(),
                point: p.clone(),
                scenario,
                canonical,
            });
        }
    }
    Ok(Plan {
        experiment: exp.spec.id.clone(),
        quick,
        repetitions: reps,
        variants,
        points: pts,
        cells,
        runs,
    })
}
