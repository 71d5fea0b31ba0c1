//! Qualitative checks: the studies' claims, tested on our own results.
//! Each check names the claim and the paper's source, and says whether we
//! expect to agree (the default) or, for a documented difference, to
//! disagree; the test suite fails when a verdict is not the expected one,
//! so a model regression is caught in either direction.
//!
//! Kinds (fields beyond `kind`, `metric`, `claim`, `source`, `note`,
//! `expect`):
//! - `equals`: `value`, `tol` (absolute, default 0); `variants`, `at`.
//!   Every selected mean is within `tol` of `value`.
//! - `at_most` / `at_least`: `value`; `variants`, `at`.
//! - `increasing` / `decreasing`: `axis`, `tol` (allowed step against the
//!   trend, default 0); `variants`, `at`. Means along the axis (declared
//!   order), for each variant and each combination of the other axes.
//! - `greater` / `less`: `a`, `b` (variants), `margin` (relative, default
//!   0), `significant` (95% intervals must not overlap); `at`.
//!   mean_a > mean_b + margin x |mean_b| (resp. mean_a < mean_b - margin x
//!   |mean_b|)
//!   at every selected point. `formula` in place of `a`: the formula's
//!   value for `b` at each point stands for mean_a (an analytic bound
//!   against a simulated system; `significant` then needs only b's
//!   interval to clear it).
//! - `best`: `variant`, `order` ("lowest" | "highest"), `among`
//!   (default all variants); `at`. The variant has the extreme mean at
//!   every selected point.
//! - `within`: `formula`, `rel_tol` and/or `abs_tol`; `variants`, `at`.
//!   |mean - formula| <= max(abs_tol, rel_tol x |formula|).
//! - `linear`: `axis`, `min_r2`; `variants`, `at`. The coefficient of
//!   determination of a least-squares line through the means along the
//!   axis is at least `min_r2`.
//! - `flat`: `axis`, `rel_tol`; `variants`, `at`. (max - min) of the means
//!   along the axis <= rel_tol x |mean of the means|.

use serde::Deserialize;
use toml::Table;

use crate::experiment::names::Names;
use crate::experiment::value;

/// The kinds of check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    Equals,
    AtMost,
    AtLeast,
    Increasing,
    Decreasing,
    Greater,
    Less,
    Best,
    Within,
    Linear,
    Flat,
}

impl CheckKind {
    pub fn name(self) -> &'static str {
        match self {
            CheckKind::Equals => "equals",
            CheckKind::AtMost => "at_most",
            CheckKind::AtLeast => "at_least",
            CheckKind::Increasing => "increasing",
            CheckKind::Decreasing => "decreasing",
            CheckKind::Greater => "greater",
            CheckKind::Less => "less",
            CheckKind::Best => "best",
            CheckKind::Within => "within",
            CheckKind::Linear => "linear",
            CheckKind::Flat => "flat",
        }
    }

    /// (required fields, optional fields) beyond the common ones.
    fn fields(self) -> (&'static [&'static str], &'static [&'static str]) {
        match self {
            CheckKind::Equals => (&["value"], &["tol", "variants", "variant"]),
            CheckKind::AtMost | CheckKind::AtLeast => (&["value"], &["variants", "variant"]),
            CheckKind::Increasing | CheckKind::Decreasing => {
                (&["axis"], &["tol", "variants", "variant"])
            }
            CheckKind::Greater | CheckKind::Less => {
                (&["b"], &["a", "formula", "margin", "significant"])
            }
            CheckKind::Best => (&["variant", "order"], &["among"]),
            CheckKind::Within => (&["formula"], &["rel_tol", "abs_tol", "variants", "variant"]),
            CheckKind::Linear => (&["axis", "min_r2"], &["variants", "variant"]),
            CheckKind::Flat => (&["axis", "rel_tol"], &["variants", "variant"]),
        }
    }
}

/// Whether a check is expected to agree with the paper.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Expect {
    #[default]
    Agree,
    Disagree,
}

/// `best`: which extreme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    Lowest,
    Highest,
}

/// One check as written in the experiment file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckSpec {
    pub kind: CheckKind,
    pub metric: String,
    /// The paper's claim in words.
    pub claim: String,
    #[serde(default)]
    pub source: String,
    /// Our explanation (printed next to the verdict).
    pub note: Option<String>,
    #[serde(default)]
    pub expect: Expect,
    pub variant: Option<String>,
    pub variants: Option<Vec<String>>,
    #[serde(default)]
    pub at: Table,
    pub value: Option<f64>,
    pub tol: Option<f64>,
    pub a: Option<String>,
    pub b: Option<String>,
    pub margin: Option<f64>,
    pub significant: Option<bool>,
    pub axis: Option<String>,
    pub order: Option<Order>,
    pub among: Option<Vec<String>>,
    pub formula: Option<String>,
    pub rel_tol: Option<f64>,
    pub abs_tol: Option<f64>,
    pub min_r2: Option<f64>,
}

fn finite_nonneg(ctx: &str, name: &str, v: Option<f64>) -> Result<(), String> {
    match v {
        Some(x) if !(x.is_finite() && x >= 0.0) => {
            Err(format!("{ctx}: `{name}` must be a finite number >= 0"))
        }
        _ => Ok(()),
    }
}

impl CheckSpec {
    fn present(&self) -> Vec<&'static str> {
        let mut p = Vec::new();
        let pairs: [(&'static str, bool); 15] = [
            ("variant", self.variant.is_some()),
            ("variants", self.variants.is_some()),
            ("value", self.value.is_some()),
            ("tol", self.tol.is_some()),
            ("a", self.a.is_some()),
            ("b", self.b.is_some()),
            ("margin", self.margin.is_some()),
            ("significant", self.significant.is_some()),
            ("axis", self.axis.is_some()),
            ("order", self.order.is_some()),
            ("among", self.among.is_some()),
            ("formula", self.formula.is_some()),
            ("rel_tol", self.rel_tol.is_some()),
            ("abs_tol", self.abs_tol.is_some()),
            ("min_r2", self.min_r2.is_some()),
        ];
        for (n, here) in pairs {
            if here {
                p.push(n);
            }
        }
        p
    }

    /// The selected variants (`variant` or `variants`, default all).
    pub fn selected_variants(&self, all: &[String]) -> Vec<String> {
        match (&self.variant, &self.variants) {
            (Some(v), _) => vec![v.clone()],
            (None, Some(vs)) => vs.clone(),
            (None, None) => all.to_vec(),
        }
    }

    /// Checks fields and references; names what is wrong.
    pub fn validate(&self, ctx: &str, names: &Names) -> Result<(), String> {
        let (required, optional) = self.kind.fields();
        let present = self.present();
        for r in required {
            if !present.contains(r) {
                return Err(format!("{ctx}: `{r}` is required"));
            }
        }
        for p in &present {
            if !required.contains(p) && !optional.contains(p) {
                return Err(format!("{ctx}: `{p}` is not used by this kind of check"));
            }
        }
        if self.variant.is_some() && self.variants.is_some() {
            return Err(format!("{ctx}: give `variant` or `variants`, not both"));
        }
        if self.claim.trim().is_empty() {
            return Err(format!("{ctx}: `claim` must not be empty"));
        }
        names.check_metric(ctx, &self.metric)?;
        for v in self
            .variant
            .iter()
            .chain(self.variants.iter().flatten())
            .chain(self.a.iter())
            .chain(self.b.iter())
            .chain(self.among.iter().flatten())
        {
            names.check_variants(ctx, std::slice::from_ref(v))?;
        }
        names.check_at(ctx, &self.at)?;
        if let Some(a) = &self.axis {
            let Some(values) = names.axis(a) else {
                return Err(format!("{ctx}: `{a}` is not an axis"));
            };
            if self.at.contains_key(a) {
                return Err(format!("{ctx}: the axis `{a}` cannot be fixed in `at`"));
            }
            if values.len() < 2 {
                return Err(format!("{ctx}: the axis `{a}` has fewer than two values"));
            }
            if self.kind == CheckKind::Linear
                && values.iter().any(|v| value::as_number(v).is_none())
            {
                return Err(format!("{ctx}: `linear` needs a numeric axis"));
            }
        }
        if let Some(f) = &self.formula
            && !names.formulas.contains(f)
        {
            return Err(format!("{ctx}: unknown formula `{f}`"));
        }
        if let Some(v) = self.value
            && !v.is_finite()
        {
            return Err(format!("{ctx}: `value` must be finite"));
        }
        finite_nonneg(ctx, "tol", self.tol)?;
        finite_nonneg(ctx, "margin", self.margin)?;
        finite_nonneg(ctx, "rel_tol", self.rel_tol)?;
        finite_nonneg(ctx, "abs_tol", self.abs_tol)?;
        if self.kind == CheckKind::Within && self.rel_tol.is_none() && self.abs_tol.is_none() {
            return Err(format!("{ctx}: give `rel_tol` or `abs_tol`"));
        }
        if let Some(r) = self.min_r2
            && !(0.0..=1.0).contains(&r)
        {
            return Err(format!("{ctx}: `min_r2` must be in [0, 1]"));
        }
        if let (Some(a), Some(b)) = (&self.a, &self.b)
            && a == b
        {
            return Err(format!("{ctx}: `a` and `b` are the same variant"));
        }
        if matches!(self.kind, CheckKind::Greater | CheckKind::Less)
            && self.a.is_some() == self.formula.is_some()
        {
            return Err(format!(
                "{ctx}: give `a` (a variant) or `formula`, one of them"
            ));
        }
        Ok(())
    }
}
