//! The evaluation of an experiment's qualitative checks
//! ([`crate::experiment::checks::CheckSpec`]) on its aggregated results: each check's
//! verdict (agrees, disagrees, not evaluated) with the numbers behind it.

use std::collections::BTreeMap;

use toml::Table;

use crate::aggregate::{CellResult, Results};
use crate::experiment::checks::{CheckKind, CheckSpec, Expect, Order};
use crate::experiment::value;

/// Formula values per (formula id, variant, point label).
pub type FormulaValues = BTreeMap<(String, String, String), Result<f64, String>>;

/// The verdict of a check on our results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Agrees,
    Disagrees,
    /// Missing results (no runs, or a metric not measured).
    NotEvaluated,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Agrees => "agrees",
            Verdict::Disagrees => "disagrees",
            Verdict::NotEvaluated => "not evaluated",
        }
    }
}

/// A check's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckOutcome {
    pub index: usize,
    pub kind: CheckKind,
    pub claim: String,
    pub source: String,
    pub note: Option<String>,
    pub expect: Expect,
    pub verdict: Verdict,
    /// The numbers behind the verdict.
    pub detail: String,
}

impl CheckOutcome {
    /// Whether the verdict is the one the experiment file expects.
    pub fn as_expected(&self) -> bool {
        matches!(
            (self.expect, self.verdict),
            (Expect::Agree, Verdict::Agrees) | (Expect::Disagree, Verdict::Disagrees)
        )
    }
}

/// Numbers in details: four significant digits.
pub fn fmt(x: f64) -> String {
    if x == 0.0 {
        return "0".into(); // also -0.0 (an empty float sum)
    }
    if !x.is_finite() {
        return format!("{x}");
    }
    let mag = x.abs().log10().floor() as i32;
    if !(-4..6).contains(&mag) {
        format!("{x:.3e}")
    } else {
        let decimals = (3 - mag).max(0) as usize;
        format!("{x:.decimals$}")
    }
}

impl CheckSpec {
    /// Evaluates the check on `results`. `variants` is every variant of
    /// the experiment in order; `axis_order` every axis's values in order.
    pub fn evaluate(
        &self,
        index: usize,
        results: &Results,
        variants: &[String],
        axis_order: &[(String, Vec<toml::Value>)],
        formulas: &FormulaValues,
    ) -> CheckOutcome {
        let (verdict, detail) = match self.run(results, variants, axis_order, formulas) {
            Ok((true, d)) => (Verdict::Agrees, d),
            Ok((false, d)) => (Verdict::Disagrees, d),
            Err(d) => (Verdict::NotEvaluated, d),
        };
        CheckOutcome {
            index,
            kind: self.kind,
            claim: self.claim.clone(),
            source: self.source.clone(),
            note: self.note.clone(),
            expect: self.expect,
            verdict,
            detail,
        }
    }

    fn mean_of(&self, c: &CellResult) -> Result<f64, String> {
        c.mean(&self.metric).ok_or_else(|| {
            format!(
                "`{}` not measured for {} at {}",
                self.metric,
                c.variant,
                c.point.label()
            )
        })
    }

    /// Ok((holds, detail)); Err(why not evaluated).
    fn run(
        &self,
        results: &Results,
        variants: &[String],
        axis_order: &[(String, Vec<toml::Value>)],
        formulas: &FormulaValues,
    ) -> Result<(bool, String), String> {
        match self.kind {
            CheckKind::Equals | CheckKind::AtMost | CheckKind::AtLeast => {
                self.threshold(results, variants)
            }
            CheckKind::Increasing | CheckKind::Decreasing | CheckKind::Linear | CheckKind::Flat => {
                self.trend(results, variants, axis_order)
            }
            CheckKind::Greater | CheckKind::Less => self.compare_pair(results, formulas),
            CheckKind::Best => self.best(results, variants),
            CheckKind::Within => self.within(results, variants, formulas),
        }
    }

    /// `equals` / `at_most` / `at_least`: every selected cell's mean
    /// against `value`.
    fn threshold(&self, results: &Results, variants: &[String]) -> Result<(bool, String), String> {
        let m = &self.metric;
        let target = self.value.unwrap_or(0.0);
        let tol = self.tol.unwrap_or(0.0);
        let cells = self.cells(results, variants)?;
        let mut bad = Vec::new();
        for c in &cells {
            let x = self.mean_of(c)?;
            let ok = match self.kind {
                CheckKind::Equals => (x - target).abs() <= tol,
                CheckKind::AtMost => x <= target,
                _ => x >= target,
            };
            if !ok {
                bad.push(format!("{} at {}: {}", c.variant, c.point.label(), fmt(x)));
            }
        }
        let rel = match self.kind {
            CheckKind::Equals => format!("= {} ± {}", fmt(target), fmt(tol)),
            CheckKind::AtMost => format!("<= {}", fmt(target)),
            _ => format!(">= {}", fmt(target)),
        };
        Ok(summarise(&bad, cells.len(), &format!("mean {m} {rel}")))
    }

    /// `increasing` / `decreasing` / `linear` / `flat`: the means along
    /// `axis`, per variant and other coordinates.
    fn trend(
        &self,
        results: &Results,
        variants: &[String],
        axis_order: &[(String, Vec<toml::Value>)],
    ) -> Result<(bool, String), String> {
        let axis = self.axis.as_deref().unwrap_or_default();
        let order = axis_order
            .iter()
            .find(|(n, _)| n == axis)
            .map(|(_, v)| v.as_slice())
            .unwrap_or_default();
        let cells = self.cells(results, variants)?;
        // Group by variant and the other coordinates.
        let mut groups: Vec<(String, String, Vec<&CellResult>)> = Vec::new();
        for c in cells {
            let rest = c.point.without(axis).label();
            match groups
                .iter_mut()
                .find(|(v, r, _)| *v == c.variant && *r == rest)
            {
                Some(g) => g.2.push(c),
                None => groups.push((c.variant.clone(), rest, vec![c])),
            }
        }
        let mut bad = Vec::new();
        let mut summary = Vec::new();
        for (variant, rest, mut cs) in groups {
            cs.sort_by_key(|c| {
                c.point
                    .get(axis)
                    .and_then(|v| order.iter().position(|o| value::same(o, v)))
                    .unwrap_or(usize::MAX)
            });
            if cs.len() < 2 {
                return Err(format!(
                    "{variant} at {rest}: fewer than two points along `{axis}`"
                ));
            }
            let mut xs = Vec::new();
            let mut ys = Vec::new();
            for c in &cs {
                ys.push(self.mean_of(c)?);
                xs.push(c.point.get(axis).and_then(value::as_number).unwrap_or(0.0));
            }
            let series = ys.iter().map(|y| fmt(*y)).collect::<Vec<_>>().join(" → ");
            let tol = self.tol.unwrap_or(0.0);
            let (ok, what) = match self.kind {
                CheckKind::Increasing => (ys.windows(2).all(|w| w[1] >= w[0] - tol), series),
                CheckKind::Decreasing => (ys.windows(2).all(|w| w[1] <= w[0] + tol), series),
                CheckKind::Linear => {
                    let r2 = r_squared(&xs, &ys);
                    (r2 >= self.min_r2.unwrap_or(1.0), format!("R² = {r2:.3}"))
                }
                _ => {
                    let max = ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    let min = ys.iter().copied().fold(f64::INFINITY, f64::min);
                    let mean = ys.iter().sum::<f64>() / ys.len() as f64;
                    let spread = if mean == 0.0 {
                        max - min
                    } else {
                        (max - min) / mean.abs()
                    };
                    (
                        spread <= self.rel_tol.unwrap_or(0.0),
                        format!("spread {:.1}% ({series})", spread * 100.0),
                    )
                }
            };
            let line = if rest == "-" {
                format!("{variant}: {what}")
            } else {
                format!("{variant} at {rest}: {what}")
            };
            if ok {
                summary.push(line);
            } else {
                bad.push(line);
            }
        }
        if bad.is_empty() {
            Ok((true, summary.join("; ")))
        } else {
            Ok((false, format!("fails for {}", bad.join("; "))))
        }
    }

    /// `best`: `variant` has the highest (lowest) mean among `among` at
    /// each of its selected points.
    fn best(&self, results: &Results, variants: &[String]) -> Result<(bool, String), String> {
        let target = self.variant.clone().unwrap_or_default();
        let among = self.among.clone().unwrap_or_else(|| variants.to_vec());
        let mine = results.select(std::slice::from_ref(&target), &self.at);
        if mine.is_empty() {
            return Err(format!("no results for {target} at {}", at_label(&self.at)));
        }
        let lowest = self.order == Some(Order::Lowest);
        let mut bad = Vec::new();
        let mut lines = Vec::new();
        for c in mine {
            let me = self.mean_of(c)?;
            let mut winner = (target.clone(), me);
            for v in among.iter().filter(|v| **v != target) {
                let Some(o) = results.cell(v, &c.point) else {
                    return Err(format!("no results for {v} at {}", c.point.label()));
                };
                let x = self.mean_of(o)?;
                if (lowest && x < winner.1) || (!lowest && x > winner.1) {
                    winner = (v.clone(), x);
                }
            }
            if winner.0 == target {
                lines.push(format!("at {}: {target} {}", c.point.label(), fmt(me)));
            } else {
                bad.push(format!(
                    "at {}: {} {} beats {target} {}",
                    c.point.label(),
                    winner.0,
                    fmt(winner.1),
                    fmt(me)
                ));
            }
        }
        if bad.is_empty() {
            Ok((true, lines.join("; ")))
        } else {
            Ok((false, bad.join("; ")))
        }
    }

    /// `within`: every selected cell's mean within tolerance of `formula`.
    fn within(
        &self,
        results: &Results,
        variants: &[String],
        formulas: &FormulaValues,
    ) -> Result<(bool, String), String> {
        let m = &self.metric;
        let f = self.formula.clone().unwrap_or_default();
        let cells = self.cells(results, variants)?;
        let mut bad = Vec::new();
        let mut worst = 0.0f64;
        for c in &cells {
            let x = self.mean_of(c)?;
            let key = (f.clone(), c.variant.clone(), c.point.label());
            let y = match formulas.get(&key) {
                Some(Ok(y)) => *y,
                Some(Err(e)) => {
                    return Err(format!("formula `{f}` at {}: {e}", c.point.label()));
                }
                None => {
                    return Err(format!(
                        "formula `{f}` not evaluated for {} at {}",
                        c.variant,
                        c.point.label()
                    ));
                }
            };
            let allowed = self
                .abs_tol
                .unwrap_or(0.0)
                .max(self.rel_tol.unwrap_or(0.0) * y.abs());
            let dev = (x - y).abs();
            if y != 0.0 {
                worst = worst.max(dev / y.abs());
            }
            if dev > allowed {
                bad.push(format!(
                    "{} at {}: measured {} vs formula {}",
                    c.variant,
                    c.point.label(),
                    fmt(x),
                    fmt(y)
                ));
            }
        }
        let mut r = summarise(&bad, cells.len(), &format!("{m} within tolerance of `{f}`"));
        r.1 = format!("{} (largest relative deviation {:.1}%)", r.1, worst * 100.0);
        Ok(r)
    }

    /// `greater` / `less`: `a` (a variant, or `formula` evaluated for `b`)
    /// against `b` at each of b's selected points.
    fn compare_pair(
        &self,
        results: &Results,
        formulas: &FormulaValues,
    ) -> Result<(bool, String), String> {
        let m = &self.metric;
        let b = self.b.clone().unwrap_or_default();
        let a_name = match (&self.a, &self.formula) {
            (Some(a), _) => a.clone(),
            (None, Some(f)) => format!("`{f}`"),
            (None, None) => String::new(),
        };
        // The points: a's (each needing b's), or b's for a formula.
        let side = self.a.as_ref().unwrap_or(&b);
        let points = results.select(std::slice::from_ref(side), &self.at);
        if points.is_empty() {
            return Err(format!("no results for {side} at {}", at_label(&self.at)));
        }
        let margin = self.margin.unwrap_or(0.0);
        let mut bad = Vec::new();
        let mut lines = Vec::new();
        for p in &points {
            let Some(y) = results.cell(&b, &p.point) else {
                return Err(format!("no results for {b} at {}", p.point.label()));
            };
            let mb = self.mean_of(y)?;
            // mean_a and its 95% half width (none for a formula: exact).
            let (ma, ha) = match (&self.a, &self.formula) {
                (Some(_), _) => (
                    self.mean_of(p)?,
                    p.summary(m).and_then(|s| s.ci95_half_width),
                ),
                (None, Some(f)) => {
                    let key = (f.clone(), b.clone(), y.point.label());
                    match formulas.get(&key) {
                        Some(Ok(v)) => (*v, Some(0.0)),
                        Some(Err(e)) => {
                            return Err(format!("formula `{f}` at {}: {e}", y.point.label()));
                        }
                        None => {
                            return Err(format!(
                                "formula `{f}` not evaluated for {b} at {}",
                                y.point.label()
                            ));
                        }
                    }
                }
                (None, None) => return Err("give `a` or `formula`".into()),
            };
            let ordered = match self.kind {
                CheckKind::Greater => ma > mb + margin * mb.abs(),
                _ => ma < mb - margin * mb.abs(),
            };
            let mut ok = ordered;
            if self.significant == Some(true) {
                let hb = y.summary(m).and_then(|s| s.ci95_half_width);
                let (Some(ha), Some(hb)) = (ha, hb) else {
                    return Err("significance needs at least two repetitions".into());
                };
                ok &= match self.kind {
                    CheckKind::Greater => ma - ha > mb + hb,
                    _ => ma + ha < mb - hb,
                };
            }
            let sym = if self.kind == CheckKind::Greater {
                ">"
            } else {
                "<"
            };
            // A failed comparison says so in words: "a 1 > b 2" would
            // read as a claim.
            let (verb, tail) = match (ordered, ok) {
                (true, true) => ("", ""),
                (true, false) => ("", ", not significant (95% intervals overlap)"),
                _ => ("is not ", ""),
            };
            let line = format!(
                "at {}: {a_name} {} {verb}{sym} {b} {}{tail}",
                y.point.label(),
                fmt(ma),
                fmt(mb)
            );
            if ok {
                lines.push(line);
            } else {
                bad.push(line);
            }
        }
        if bad.is_empty() {
            Ok((true, lines.join("; ")))
        } else {
            Ok((false, format!("fails {}", bad.join("; "))))
        }
    }

    fn cells<'a>(
        &self,
        results: &'a Results,
        variants: &[String],
    ) -> Result<Vec<&'a CellResult>, String> {
        let vs = self.selected_variants(variants);
        let cells = results.select(&vs, &self.at);
        if cells.is_empty() {
            return Err(format!(
                "no results for {} at {}",
                vs.join(", "),
                at_label(&self.at)
            ));
        }
        Ok(cells)
    }
}

fn at_label(at: &Table) -> String {
    if at.is_empty() {
        return "any point".into();
    }
    at.iter()
        .map(|(k, v)| format!("{k}={}", value::label(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn summarise(bad: &[String], n: usize, what: &str) -> (bool, String) {
    if bad.is_empty() {
        (true, format!("{what} at all {n} selected points"))
    } else {
        (
            false,
            format!("{what} fails at {} of {n}: {}", bad.len(), bad.join("; ")),
        )
    }
}

/// Coefficient of determination of the least-squares line (1 when all y
/// are equal: a constant is a line).
pub fn r_squared(xs: &[f64], ys: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let mx = xs.iter().sum::<f64>() / n;
    let my = ys.iter().sum::<f64>() / n;
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let syy: f64 = ys.iter().map(|y| (y - my) * (y - my)).sum();
    if syy == 0.0 {
        return 1.0;
    }
    if sxx == 0.0 {
        return 0.0;
    }
    (sxy * sxy) / (sxx * syy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_squared_of_lines_and_noise() {
        assert!((r_squared(&[0.0, 1.0, 2.0], &[1.0, 3.0, 5.0]) - 1.0).abs() < 1e-12);
        assert_eq!(r_squared(&[0.0, 1.0, 2.0], &[4.0, 4.0, 4.0]), 1.0);
        assert!(r_squared(&[0.0, 1.0, 2.0, 3.0], &[0.0, 5.0, 0.0, 5.0]) < 0.5);
    }

    #[test]
    fn number_format() {
        assert_eq!(fmt(1.23456), "1.235");
        assert_eq!(fmt(-0.0), "0");
        assert_eq!(fmt(1234.5), "1234");
        assert_eq!(fmt(0.000012345), "1.234e-5");
        assert_eq!(fmt(0.0), "0");
    }
}
