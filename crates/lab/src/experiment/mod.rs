//! Experiment files (`experiments/*.toml`): one study, its variants and
//! sweep axes, repetitions, the figures and tables it plots, the values
//! the paper published, the analytic formulas computed beside the
//! simulation, the qualitative checks, and our notes on each difference.
//!
//! Parsing refuses unknown keys (toml names the key and its line);
//! [`Experiment::load`] then checks every cross-reference (a figure's
//! axis, a check's variant, a published value's point) and names what is
//! wrong. The format, key by key, is in `crates/lab/README.md`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use thiserror::Error;
use toml::{Table, Value};

pub mod checks;
pub mod formulas;
pub mod names;
pub mod provenance;
pub mod robustness;
pub mod value;

use crate::keypath;
use checks::CheckSpec;
use formulas::FormulaSpec;
use names::Names;
use robustness::RobustnessSpec;

/// An experiment file that cannot be used. Every message names the file
/// and the key.
#[derive(Debug, Error)]
pub enum SpecError {
    /// (`err` is in the message, so it is not also the error's source:
    /// a report of the chain would say it twice.)
    #[error("{path}: cannot read: {err}")]
    Read { path: PathBuf, err: std::io::Error },
    #[error("{path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

fn d_runner() -> String {
    "sim".into()
}
fn d_tolerance() -> f64 {
    0.1
}
fn d_scale() -> f64 {
    1.0
}
fn d_true() -> bool {
    true
}
fn d_decimals() -> usize {
    3
}

/// How run seeds are derived.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SeedMode {
    /// seed = hash(experiment, variant, point, repetition): every run has
    /// its own random numbers.
    #[default]
    Independent,
    /// seed = hash(experiment, point, repetition): the variants of one
    /// point and repetition share their random numbers (common random
    /// numbers: the same mobility and losses for every stack, so
    /// differences between variants are less noisy).
    Common,
}

/// Where the base scenario comes from.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum ScenarioSource {
    /// A scenario file, relative to the experiment file.
    Path(String),
    /// The scenario written inline as a table.
    Inline(Table),
}

/// One line of a figure: a set of overrides of the base scenario.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantSpec {
    pub name: String,
    /// Legend text; default: the name.
    pub label: Option<String>,
    /// Overrides by dotted key path (see [`crate::keypath`]).
    #[serde(default)]
    pub set: Table,
}

/// A sweep axis: values written at one or more dotted keys, or
/// per-value override tables (or both).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxisSpec {
    pub name: String,
    /// Axis label with unit, e.g. "Handoff rate (handoffs / 600 s)".
    pub label: Option<String>,
    /// The key the value is written at.
    pub key: Option<String>,
    /// Several keys that all take the value.
    #[serde(default)]
    pub keys: Vec<String>,
    pub values: Vec<Value>,
    /// The values used with `--quick` (a subset of `values`).
    pub quick_values: Option<Vec<Value>>,
    /// Per value (by its label) a table of extra overrides.
    #[serde(default)]
    pub overrides: Table,
}

/// A measure as shown: a runner metric (`from`) times `scale`, with label
/// and unit, e.g. `throughput_mbps` from `goodput_bps` with scale 1e-6.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricSpec {
    pub name: String,
    /// The runner's metric; default: `name`.
    pub from: Option<String>,
    #[serde(default = "d_scale")]
    pub scale: f64,
    pub label: Option<String>,
    #[serde(default)]
    pub unit: String,
    /// Paired comparison with another variant: each repetition's value is
    /// divided by (`relation = "ratio"`, default) or reduced by
    /// (`"difference"`) the same repetition's value of this variant at the
    /// same point. Meant for `seeds = "common"`, where repetition r of
    /// every variant sees the same random numbers.
    pub relative_to: Option<String>,
    #[serde(default)]
    pub relation: Relation,
}

/// How a relative metric compares with its reference variant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Relation {
    #[default]
    Ratio,
    Difference,
}

impl MetricSpec {
    pub fn source(&self) -> &str {
        self.from.as_deref().unwrap_or(&self.name)
    }
    /// "Label (unit)".
    pub fn axis_label(&self) -> String {
        let l = self.label.as_deref().unwrap_or(&self.name);
        if self.unit.is_empty() {
            l.to_string()
        } else {
            format!("{l} ({})", self.unit)
        }
    }
}

/// A figure of the study. Scalar figures plot `y` against axis `x`, one
/// line per variant, error bars = 95% CI; time-series figures plot the
/// named `series` against time.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureSpec {
    pub id: String,
    pub title: String,
    /// The paper's figure this reproduces, e.g. "Fig. 6".
    #[serde(default)]
    pub source: String,
    pub x: Option<String>,
    pub y: Option<String>,
    /// One line per value of this axis (per variant), instead of one
    /// line per variant.
    pub lines: Option<String>,
    #[serde(default)]
    pub series: Vec<String>,
    pub variants: Option<Vec<String>>,
    /// Fixed values of the other axes.
    #[serde(default, rename = "where")]
    pub at: Table,
    pub x_label: Option<String>,
    pub y_label: Option<String>,
    /// Formula ids drawn as dashed lines.
    #[serde(default)]
    pub formulas: Vec<String>,
    /// Fixed y range [low, high]; default: from the data.
    pub y_range: Option<[f64; 2]>,
    /// With an automatic range, start the y axis at zero (default true;
    /// false zooms on small differences).
    #[serde(default = "d_true")]
    pub y_from_zero: bool,
}

/// A Markdown table: one row per combination of `rows` dimensions
/// ("variant" or axis names), one column per metric (mean ± 95% CI).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    pub id: String,
    pub title: String,
    #[serde(default)]
    pub source: String,
    pub rows: Vec<String>,
    pub columns: Vec<String>,
    pub variants: Option<Vec<String>>,
    #[serde(default, rename = "where")]
    pub at: Table,
    #[serde(default)]
    pub formulas: Vec<String>,
    #[serde(default = "d_decimals")]
    pub decimals: usize,
}

/// A value the paper published, in the metric's display units.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedSpec {
    pub variant: Option<String>,
    #[serde(default)]
    pub at: Table,
    pub metric: String,
    pub value: f64,
    /// Where in the paper, e.g. "Fig. 5".
    pub source: String,
    /// Our explanation of a difference.
    pub note: Option<String>,
    /// Relative tolerance for "agrees"; default: the experiment's.
    pub tolerance: Option<f64>,
}

/// Free text printed in the report.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoteSpec {
    pub about: Option<String>,
    pub text: String,
}

/// The whole experiment file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSpec {
    /// Short id, e.g. "E1" (letters, digits, '-', '_').
    pub id: String,
    pub title: String,
    /// The paper, as cited in the report.
    #[serde(default)]
    pub paper: String,
    #[serde(default)]
    pub description: String,
    pub scenario: ScenarioSource,
    /// Which runner runs the scenario (default "sim").
    #[serde(default = "d_runner")]
    pub runner: String,
    pub repetitions: u32,
    /// Repetitions with `--quick`; default min(3, repetitions).
    pub quick_repetitions: Option<u32>,
    #[serde(default)]
    pub seeds: SeedMode,
    /// Relative difference up to which a published value "agrees".
    #[serde(default = "d_tolerance")]
    pub published_tolerance: f64,
    #[serde(default)]
    pub variants: Vec<VariantSpec>,
    #[serde(default)]
    pub axes: Vec<AxisSpec>,
    #[serde(default)]
    pub metrics: Vec<MetricSpec>,
    #[serde(default)]
    pub figures: Vec<FigureSpec>,
    #[serde(default)]
    pub tables: Vec<TableSpec>,
    #[serde(default)]
    pub published: Vec<PublishedSpec>,
    #[serde(default)]
    pub formulas: Vec<FormulaSpec>,
    #[serde(default)]
    pub checks: Vec<CheckSpec>,
    #[serde(default)]
    pub notes: Vec<NoteSpec>,
    /// The values the paper leaves unsaid, as ranges or choices
    /// ([`robustness`]).
    pub robustness: Option<RobustnessSpec>,
    /// Where each value of the scenario and the variants comes from
    /// ([`provenance`]): key path pattern -> source.
    #[serde(default)]
    pub provenance: Table,
}

/// The name of the implicit variant of an experiment without variants.
pub const BASE_VARIANT: &str = "base";

/// Column names of the tidy table that axes may not take.
pub const RESERVED: &[&str] = &[
    "experiment",
    "variant",
    "repetition",
    "seed",
    "run_key",
    "wall_time_s",
    "metric",
    "n",
    "planned",
    "mean",
    "std_dev",
    "ci95",
    "min",
    "max",
];

/// A loaded and validated experiment.
#[derive(Debug, Clone)]
pub struct Experiment {
    pub spec: ExperimentSpec,
    /// The base scenario (file contents or inline table).
    pub base: Table,
    /// The experiment file, for messages.
    pub path: PathBuf,
}

fn check_id(ctx: &str, id: &str) -> Result<(), String> {
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' || c == '+')
    {
        return Err(format!(
            "{ctx}: `{id}` must be non-empty and use only letters, digits, '-', '_', '.', '+'"
        ));
    }
    Ok(())
}

fn unique<'a>(ctx: &str, names: impl Iterator<Item = &'a str>) -> Result<(), String> {
    let mut seen = BTreeSet::new();
    for n in names {
        if !seen.insert(n) {
            return Err(format!("{ctx}: `{n}` appears twice"));
        }
    }
    Ok(())
}

impl ExperimentSpec {
    /// Parses an experiment file's text (unknown keys refused).
    pub fn parse(text: &str) -> Result<Self, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    /// Variant names, the implicit `base` when none is declared.
    pub fn variant_names(&self) -> Vec<String> {
        if self.variants.is_empty() {
            vec![BASE_VARIANT.to_string()]
        } else {
            self.variants.iter().map(|v| v.name.clone()).collect()
        }
    }

    /// The legend label of a variant.
    pub fn variant_label(&self, name: &str) -> String {
        self.variants
            .iter()
            .find(|v| v.name == name)
            .and_then(|v| v.label.clone())
            .unwrap_or_else(|| name.to_string())
    }

    pub fn metric(&self, name: &str) -> Option<&MetricSpec> {
        self.metrics.iter().find(|m| m.name == name)
    }

    pub fn axis(&self, name: &str) -> Option<&AxisSpec> {
        self.axes.iter().find(|a| a.name == name)
    }

    pub fn quick_repetitions(&self) -> u32 {
        self.quick_repetitions
            .unwrap_or_else(|| self.repetitions.min(3))
    }

    /// The axis values used in full or quick mode.
    pub fn axis_values(&self, axis: &AxisSpec, quick: bool) -> Vec<Value> {
        match (&axis.quick_values, quick) {
            (Some(q), true) => q.clone(),
            _ => axis.values.clone(),
        }
    }

    pub fn names(&self) -> Names {
        Names {
            variants: self.variant_names(),
            axes: self
                .axes
                .iter()
                .map(|a| (a.name.clone(), a.values.clone()))
                .collect(),
            metrics: self.metrics.iter().map(|m| m.name.clone()).collect(),
            formulas: self.formulas.iter().map(|f| f.id.clone()).collect(),
        }
    }

    /// Every cross-reference and range check; the message names the key.
    pub fn validate(&self) -> Result<(), String> {
        check_id("id", &self.id)?;
        if self.title.trim().is_empty() {
            return Err("title: must not be empty".into());
        }
        if self.repetitions == 0 {
            return Err("repetitions: must be at least 1".into());
        }
        if self.quick_repetitions == Some(0) {
            return Err("quick_repetitions: must be at least 1".into());
        }
        if !(self.published_tolerance.is_finite() && self.published_tolerance >= 0.0) {
            return Err("published_tolerance: must be a finite number >= 0".into());
        }
        for (i, v) in self.variants.iter().enumerate() {
            check_id(&format!("variants[{i}].name"), &v.name)?;
        }
        unique("variants", self.variants.iter().map(|v| v.name.as_str()))?;
        self.validate_axes()?;
        for (i, m) in self.metrics.iter().enumerate() {
            check_id(&format!("metrics[{i}].name"), &m.name)?;
            if !(m.scale.is_finite() && m.scale != 0.0) {
                return Err(format!(
                    "metrics[{i}] ({}): scale must be a finite non-zero number",
                    m.name
                ));
            }
        }
        unique("metrics", self.metrics.iter().map(|m| m.name.as_str()))?;
        let names = self.names();
        for (i, m) in self.metrics.iter().enumerate() {
            if let Some(r) = &m.relative_to {
                names.check_variants(
                    &format!("metrics[{i}] ({}): relative_to", m.name),
                    std::slice::from_ref(r),
                )?;
            }
        }
        for (i, f) in self.formulas.iter().enumerate() {
            check_id(&format!("formulas[{i}].id"), &f.id)?;
            f.validate(&format!("formulas[{i}] ({})", f.id), &names)?;
        }
        unique("formulas", self.formulas.iter().map(|f| f.id.as_str()))?;
        self.validate_figures(&names)?;
        self.validate_tables(&names)?;
        for (i, p) in self.published.iter().enumerate() {
            let ctx = format!("published[{i}]");
            self.check_variant_opt(&ctx, p.variant.as_deref(), &names)?;
            names.check_metric(&ctx, &p.metric)?;
            names.check_at(&ctx, &p.at)?;
            names.check_fixed(&ctx, &p.at, &[])?;
            if !p.value.is_finite() {
                return Err(format!("{ctx}: value must be finite"));
            }
            if let Some(t) = p.tolerance
                && !(t.is_finite() && t >= 0.0)
            {
                return Err(format!("{ctx}: tolerance must be a finite number >= 0"));
            }
        }
        for (i, c) in self.checks.iter().enumerate() {
            c.validate(&format!("checks[{i}] ({})", c.kind.name()), &names)?;
        }
        if let Some(r) = &self.robustness {
            let axis_keys: Vec<&str> = self
                .axes
                .iter()
                .flat_map(|a| a.key.iter().chain(a.keys.iter()))
                .map(String::as_str)
                .collect();
            r.validate(&names.variants, &axis_keys)?;
        }
        provenance::validate(&self.provenance)?;
        Ok(())
    }

    fn check_variant_opt(&self, ctx: &str, v: Option<&str>, names: &Names) -> Result<(), String> {
        match v {
            Some(v) => names.check_variants(ctx, &[v.to_string()]),
            None if names.variants.len() > 1 => Err(format!(
                "{ctx}: `variant` is required (the experiment has several)"
            )),
            None => Ok(()),
        }
    }

    fn validate_axes(&self) -> Result<(), String> {
        unique("axes", self.axes.iter().map(|a| a.name.as_str()))?;
        for (i, a) in self.axes.iter().enumerate() {
            let ctx = format!("axes[{i}] ({})", a.name);
            check_id(&format!("axes[{i}].name"), &a.name)?;
            if RESERVED.contains(&a.name.as_str()) {
                return Err(format!(
                    "{ctx}: `{}` is a reserved column name ({})",
                    a.name,
                    RESERVED.join(", ")
                ));
            }
            if a.values.is_empty() {
                return Err(format!("{ctx}: values must not be empty"));
            }
            for v in &a.values {
                if value::as_number(v).is_some_and(|x| !x.is_finite()) {
                    return Err(format!("{ctx}: values must be finite numbers"));
                }
                if !value::is_scalar(v) {
                    return Err(format!(
                        "{ctx}: values must be strings, numbers or booleans, got {}",
                        v.type_str()
                    ));
                }
            }
            for (j, v) in a.values.iter().enumerate() {
                if a.values[..j].iter().any(|w| value::same(v, w)) {
                    return Err(format!("{ctx}: value {} appears twice", value::label(v)));
                }
            }
            let numeric = a.values.iter().all(|v| value::as_number(v).is_some());
            if !numeric && a.values.iter().any(|v| value::as_number(v).is_some()) {
                return Err(format!(
                    "{ctx}: values mix numbers and other types; use one kind"
                ));
            }
            if let Some(q) = &a.quick_values {
                if q.is_empty() {
                    return Err(format!("{ctx}: quick_values must not be empty"));
                }
                for v in q {
                    if !a.values.iter().any(|w| value::same(v, w)) {
                        return Err(format!(
                            "{ctx}: quick value {} is not one of `values`",
                            value::label(v)
                        ));
                    }
                }
            }
            if a.key.is_none() && a.keys.is_empty() && a.overrides.is_empty() {
                return Err(format!(
                    "{ctx}: give `key`, `keys` or `overrides` (where the value goes)"
                ));
            }
            if a.key.is_some() && !a.keys.is_empty() {
                return Err(format!("{ctx}: give `key` or `keys`, not both"));
            }
            for (label, o) in &a.overrides {
                if !a.values.iter().any(|v| value::label(v) == *label) {
                    return Err(format!(
                        "{ctx}: overrides.{label}: `{label}` is not one of the axis values"
                    ));
                }
                if !o.is_table() {
                    return Err(format!("{ctx}: overrides.{label} must be a table"));
                }
            }
        }
        Ok(())
    }

    fn validate_figures(&self, names: &Names) -> Result<(), String> {
        unique("figures", self.figures.iter().map(|f| f.id.as_str()))?;
        for (i, f) in self.figures.iter().enumerate() {
            let ctx = format!("figures[{i}] ({})", f.id);
            check_id(&format!("figures[{i}].id"), &f.id)?;
            if let Some(v) = &f.variants {
                names.check_variants(&ctx, v)?;
            }
            names.check_at(&ctx, &f.at)?;
            for fid in &f.formulas {
                if !names.formulas.contains(fid) {
                    return Err(format!("{ctx}: unknown formula `{fid}`"));
                }
            }
            if let Some([lo, hi]) = f.y_range
                && !(lo.is_finite() && hi.is_finite() && lo < hi)
            {
                return Err(format!(
                    "{ctx}: y_range must be [low, high] with low < high"
                ));
            }
            match (&f.y, f.series.is_empty()) {
                (Some(y), true) => {
                    names.check_metric(&ctx, y)?;
                    let Some(x) = &f.x else {
                        return Err(format!("{ctx}: `x` (an axis name) is required with `y`"));
                    };
                    let Some(values) = names.axis(x) else {
                        return Err(format!("{ctx}: x = `{x}` is not an axis"));
                    };
                    if f.at.contains_key(x) {
                        return Err(format!(
                            "{ctx}: the x axis `{x}` cannot be fixed in `where`"
                        ));
                    }
                    let _ = values;
                    let mut free = vec![x.as_str()];
                    if let Some(l) = &f.lines {
                        if names.axis(l).is_none() {
                            return Err(format!("{ctx}: lines = `{l}` is not an axis"));
                        }
                        if l == x || f.at.contains_key(l) {
                            return Err(format!(
                                "{ctx}: the lines axis `{l}` cannot be the x axis or fixed in `where`"
                            ));
                        }
                        free.push(l.as_str());
                    }
                    names.check_fixed(&ctx, &f.at, &free)?;
                }
                (None, false) => {
                    if f.x.is_some() || f.lines.is_some() {
                        return Err(format!(
                            "{ctx}: a time-series figure plots against time; remove `x` and `lines`"
                        ));
                    }
                    if !f.formulas.is_empty() {
                        return Err(format!("{ctx}: formulas are drawn on scalar figures only"));
                    }
                    names.check_fixed(&ctx, &f.at, &[])?;
                }
                (Some(_), false) => {
                    return Err(format!("{ctx}: give `y` or `series`, not both"));
                }
                (None, true) => {
                    return Err(format!("{ctx}: give `y` (a metric) or `series`"));
                }
            }
        }
        Ok(())
    }

    fn validate_tables(&self, names: &Names) -> Result<(), String> {
        unique("tables", self.tables.iter().map(|t| t.id.as_str()))?;
        for (i, t) in self.tables.iter().enumerate() {
            let ctx = format!("tables[{i}] ({})", t.id);
            check_id(&format!("tables[{i}].id"), &t.id)?;
            if t.rows.is_empty() {
                return Err(format!("{ctx}: rows must not be empty"));
            }
            unique(&format!("{ctx}: rows"), t.rows.iter().map(String::as_str))?;
            for r in &t.rows {
                if r != "variant" && names.axis(r).is_none() {
                    return Err(format!(
                        "{ctx}: row dimension `{r}` is neither `variant` nor an axis"
                    ));
                }
                if t.at.contains_key(r) {
                    return Err(format!(
                        "{ctx}: `{r}` is a row dimension and fixed in `where`"
                    ));
                }
            }
            if t.columns.is_empty() && t.formulas.is_empty() {
                return Err(format!("{ctx}: columns must not be empty"));
            }
            for c in &t.columns {
                names.check_metric(&ctx, c)?;
            }
            for fid in &t.formulas {
                if !names.formulas.contains(fid) {
                    return Err(format!("{ctx}: unknown formula `{fid}`"));
                }
            }
            if let Some(v) = &t.variants {
                names.check_variants(&ctx, v)?;
            }
            names.check_at(&ctx, &t.at)?;
            let free: Vec<&str> = t.rows.iter().map(String::as_str).collect();
            names.check_fixed(&ctx, &t.at, &free)?;
            if t.decimals > 12 {
                return Err(format!("{ctx}: decimals must be at most 12"));
            }
        }
        Ok(())
    }
}

impl Experiment {
    /// Reads, parses and validates an experiment file; a scenario given
    /// as a path is read relative to the experiment file.
    pub fn load(path: &Path) -> Result<Self, SpecError> {
        let text = msctp_input::read_text(path).map_err(|source| SpecError::Read {
            path: path.to_path_buf(),
            err: source,
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        Self::from_str(&text, path, dir)
    }

    /// Parses and validates experiment text; `dir` resolves a scenario
    /// path, `path` names the file in messages.
    pub fn from_str(text: &str, path: &Path, dir: &Path) -> Result<Self, SpecError> {
        let invalid = |message: String| SpecError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let spec = ExperimentSpec::parse(text).map_err(|message| SpecError::Parse {
            path: path.to_path_buf(),
            message,
        })?;
        spec.validate().map_err(invalid)?;
        let base = match &spec.scenario {
            ScenarioSource::Inline(t) => t.clone(),
            ScenarioSource::Path(p) => {
                let sp = dir.join(p);
                let text = msctp_input::read_text(&sp).map_err(|source| SpecError::Read {
                    path: sp.clone(),
                    err: source,
                })?;
                toml::from_str::<Table>(&text).map_err(|e| SpecError::Parse {
                    path: sp.clone(),
                    message: e.to_string(),
                })?
            }
        };
        if let Some(r) = &spec.robustness {
            let mut scenarios = Vec::new();
            for v in r.mapped_variants(&spec.variant_names()) {
                let mut s = base.clone();
                if let Some(vs) = spec.variants.iter().find(|x| x.name == v) {
                    keypath::apply_overrides(&mut s, &vs.set)
                        .map_err(|e| invalid(format!("variant `{v}`: {e}")))?;
                }
                scenarios.push((v, s));
            }
            r.check_keys_exist(&scenarios).map_err(invalid)?;
        }
        Ok(Experiment {
            spec,
            base,
            path: path.to_path_buf(),
        })
    }
}

/// Every `*.toml` experiment file in `dir`, sorted by file name.
pub fn list_experiment_files(dir: &Path) -> Result<Vec<PathBuf>, SpecError> {
    let rd = std::fs::read_dir(dir).map_err(|source| SpecError::Read {
        path: dir.to_path_buf(),
        err: source,
    })?;
    let mut files = Vec::new();
    for e in rd {
        let e = e.map_err(|source| SpecError::Read {
            path: dir.to_path_buf(),
            err: source,
        })?;
        let p = e.path();
        if p.is_file() && p.extension().is_some_and(|x| x == "toml") {
            files.push(p);
        }
    }
    files.sort();
    Ok(files)
}
