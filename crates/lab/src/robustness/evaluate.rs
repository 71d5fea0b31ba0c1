//! A map's verdicts: every mapped claim evaluated at each design point
//! alone, the share of points where it holds with its 95% Wilson interval,
//! and each parameter's sensitivity index ([`super::stats`]); written as
//! `robustness.json` (read back by the report), `robustness.csv` (one row
//! per design point and claim: the map) and `robustness-summary.csv` (one
//! row per claim).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use toml::Value;

use super::stats::{Z95, group_shares, sensitivity, wilson};
use super::{AXIS, Mapped, map_id};
use crate::analysis::Analysis;
use crate::analysis::verdicts::Verdict;
use crate::experiment::checks::Expect;
use crate::experiment::robustness::Domain;
use crate::experiment::value;
use crate::store::{StoreError, io};

/// A declared parameter as the map shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParamInfo {
    pub name: String,
    pub keys: Vec<String>,
    /// "5 to 50 (log)", "uplink | downlink".
    pub domain: String,
    pub reason: String,
    /// Whether it is a numeric range (two halves) or a list of choices.
    pub range: bool,
    /// The number of groups the sensitivity index compares (2 halves, or
    /// the choices).
    pub groups: usize,
}

/// One claim over the map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimMap {
    /// The check's index in the study's file.
    pub check: usize,
    pub claim: String,
    /// "agree" or "disagree": what the study expects at its own choice.
    pub expect: String,
    /// Per design point: "agrees", "disagrees" or "not evaluated".
    pub verdicts: Vec<String>,
    /// Points where the claim holds ("agrees"), and points evaluated.
    pub holds: usize,
    pub evaluated: usize,
    pub share: Option<f64>,
    /// The 95% Wilson score interval of the share.
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// Per parameter, the sensitivity index ([`super::stats`]).
    pub sensitivity: Vec<Option<f64>>,
}

impl ClaimMap {
    /// Parameter indices by decreasing |sensitivity| (unknown last).
    pub fn by_influence(&self) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..self.sensitivity.len()).collect();
        let key = |i: &usize| self.sensitivity[*i].map(f64::abs).unwrap_or(-1.0);
        idx.sort_by(|a, b| key(b).total_cmp(&key(a)).then(a.cmp(b)));
        idx
    }
}

/// A claim the map does not cover.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnmappedClaim {
    pub check: usize,
    pub claim: String,
    pub why: String,
}

/// A study's robustness map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RobustnessMap {
    pub study: String,
    pub points: usize,
    pub params: Vec<ParamInfo>,
    /// Per design point, the quantile of each parameter and its value.
    pub u: Vec<Vec<f64>>,
    pub values: Vec<Vec<Value>>,
    pub claims: Vec<ClaimMap>,
    pub unmapped: Vec<UnmappedClaim>,
    /// Runs of the map stored, and planned.
    pub stored: usize,
    pub planned: usize,
}

fn domain_text(d: &Domain) -> String {
    match d {
        Domain::Choices(c) => c.iter().map(value::label).collect::<Vec<_>>().join(" | "),
        Domain::Range {
            min,
            max,
            scale,
            integer,
        } => format!(
            "{min} to {max}{}{}",
            if *scale == crate::experiment::robustness::Scale::Log {
                " (log)"
            } else {
                ""
            },
            if *integer { ", whole" } else { "" }
        ),
    }
}

/// Evaluates every mapped claim at each design point of the map's
/// analysed results (the derived experiment's [`Analysis`]).
pub fn evaluate(mapped: &Mapped, analysis: &Analysis) -> RobustnessMap {
    let exp = &mapped.exp;
    let d = &mapped.design;
    let variants = exp.spec.variant_names();
    let axis_order: Vec<(String, Vec<Value>)> = exp
        .spec
        .axes
        .iter()
        .map(|a| (a.name.clone(), a.values.clone()))
        .collect();
    let params: Vec<ParamInfo> = d
        .params
        .iter()
        .map(|p| {
            let dom = p.domain();
            let (range, groups) = match &dom {
                Domain::Choices(c) => (false, c.len()),
                Domain::Range { .. } => (true, 2),
            };
            ParamInfo {
                name: p.name.clone(),
                keys: p.all_keys().into_iter().map(String::from).collect(),
                domain: domain_text(&dom),
                reason: p.reason.clone(),
                range,
                groups,
            }
        })
        .collect();
    let claims = mapped
        .checks
        .iter()
        .map(|&(orig, i)| {
            let spec = &exp.spec.checks[i];
            let verdicts: Vec<Verdict> = (0..d.u.len())
                .map(|p| {
                    let mut c = spec.clone();
                    c.at.insert(AXIS.into(), Value::Integer(p as i64));
                    c.evaluate(
                        i,
                        &analysis.results,
                        &variants,
                        &axis_order,
                        &analysis.formulas,
                    )
                    .verdict
                })
                .collect();
            claim_map(orig, spec, &verdicts, &params, &d.u)
        })
        .collect();
    let (stored, planned) = analysis.results.completeness();
    RobustnessMap {
        study: mapped.study.clone(),
        points: d.u.len(),
        params,
        u: d.u.clone(),
        values: d.values.clone(),
        claims,
        unmapped: mapped
            .unmapped
            .iter()
            .map(|(check, claim, why)| UnmappedClaim {
                check: *check,
                claim: claim.clone(),
                why: why.clone(),
            })
            .collect(),
        stored,
        planned,
    }
}

fn claim_map(
    check: usize,
    spec: &crate::experiment::checks::CheckSpec,
    verdicts: &[Verdict],
    params: &[ParamInfo],
    u: &[Vec<f64>],
) -> ClaimMap {
    let holds: Vec<Option<bool>> = verdicts
        .iter()
        .map(|v| match v {
            Verdict::Agrees => Some(true),
            Verdict::Disagrees => Some(false),
            Verdict::NotEvaluated => None,
        })
        .collect();
    let k = holds.iter().filter(|h| **h == Some(true)).count();
    let n = holds.iter().filter(|h| h.is_some()).count();
    let interval = wilson(k, n, Z95);
    let sens = params
        .iter()
        .enumerate()
        .map(|(j, p)| {
            let groups: Vec<usize> = u
                .iter()
                .map(|x| ((x[j] * p.groups as f64) as usize).min(p.groups - 1))
                .collect();
            sensitivity(&group_shares(&groups, p.groups, &holds), p.range)
        })
        .collect();
    ClaimMap {
        check,
        claim: spec.claim.clone(),
        expect: match spec.expect {
            Expect::Agree => "agree",
            Expect::Disagree => "disagree",
        }
        .into(),
        verdicts: verdicts.iter().map(|v| v.word().to_string()).collect(),
        holds: k,
        evaluated: n,
        share: (n > 0).then(|| k as f64 / n as f64),
        low: interval.map(|i| i.0),
        high: interval.map(|i| i.1),
        sensitivity: sens,
    }
}

fn pct(x: f64) -> String {
    format!("{:.0}%", 100.0 * x)
}

impl RobustnessMap {
    /// "holds in 20/24 points (83%, 95% CI 64-93%)".
    pub fn share_text(c: &ClaimMap) -> String {
        match (c.share, c.low, c.high) {
            (Some(s), Some(l), Some(h)) => format!(
                "{}/{} ({}, 95% CI {}-{})",
                c.holds,
                c.evaluated,
                pct(s),
                pct(l),
                pct(h)
            ),
            _ => "not evaluated".into(),
        }
    }

    /// "queue_packets (+0.58)": the most influential parameter, or "-"
    /// when no parameter moves the claim.
    pub fn influence_text(&self, c: &ClaimMap) -> String {
        match c.by_influence().first() {
            Some(&j) if c.sensitivity[j].is_some_and(|s| s != 0.0) => {
                let s = c.sensitivity[j].unwrap_or(0.0);
                if self.params[j].range {
                    format!("{} ({s:+.2})", self.params[j].name)
                } else {
                    format!("{} ({s:.2})", self.params[j].name)
                }
            }
            _ => "-".into(),
        }
    }

    /// The map as printed by `msctp reproduce --robustness`.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} robustness: {} points over {} unsaid values ({}); {} of {} runs stored",
            self.study,
            self.points,
            self.params.len(),
            self.params
                .iter()
                .map(|p| format!("{} {}", p.name, p.domain))
                .collect::<Vec<_>>()
                .join(", "),
            self.stored,
            self.planned
        );
        for c in &self.claims {
            let _ = writeln!(
                s,
                "  holds {:<34} most moved by {:<30} {}{}",
                Self::share_text(c),
                self.influence_text(c),
                c.claim,
                if c.expect == "disagree" {
                    " [expected to disagree]"
                } else {
                    ""
                }
            );
        }
        for u in &self.unmapped {
            let _ = writeln!(s, "  not mapped: {} ({})", u.claim, u.why);
        }
        s
    }

    /// The map's directory under the result root.
    pub fn dir(out: &Path, study: &str) -> PathBuf {
        out.join(map_id(study))
    }

    /// The stored map of `study` under the result root, if any.
    pub fn load(out: &Path, study: &str) -> Option<RobustnessMap> {
        let p = Self::dir(out, study).join("robustness.json");
        let text = std::fs::read_to_string(p).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Writes `robustness.json`, `robustness.csv` and
    /// `robustness-summary.csv` into `dir`; returns the CSV map's path.
    pub fn write(&self, dir: &Path) -> Result<PathBuf, StoreError> {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let j = dir.join("robustness.json");
        let text = serde_json::to_string_pretty(self).expect("a map serialises");
        std::fs::write(&j, text).map_err(io(&j))?;
        let csv_err = |path: &Path| {
            let path = path.to_path_buf();
            move |e: csv::Error| StoreError::Csv {
                path: path.clone(),
                message: e.to_string(),
            }
        };
        let p = dir.join("robustness.csv");
        let mut w = csv::Writer::from_path(&p).map_err(csv_err(&p))?;
        let mut head = vec!["point".to_string()];
        head.extend(self.params.iter().map(|q| q.name.clone()));
        head.extend(["check", "claim", "expect", "verdict", "holds"].map(String::from));
        w.write_record(&head).map_err(csv_err(&p))?;
        for c in &self.claims {
            for (i, v) in c.verdicts.iter().enumerate() {
                let mut row = vec![i.to_string()];
                row.extend(self.values[i].iter().map(value::label));
                row.extend([
                    c.check.to_string(),
                    c.claim.clone(),
                    c.expect.clone(),
                    v.clone(),
                    match v.as_str() {
                        "agrees" => "true",
                        "disagrees" => "false",
                        _ => "",
                    }
                    .to_string(),
                ]);
                w.write_record(&row).map_err(csv_err(&p))?;
            }
        }
        w.flush().map_err(io(&p))?;
        let s = dir.join("robustness-summary.csv");
        let mut w = csv::Writer::from_path(&s).map_err(csv_err(&s))?;
        let mut head: Vec<String> = [
            "check",
            "claim",
            "expect",
            "holds",
            "evaluated",
            "share",
            "low",
            "high",
            "most_moved_by",
        ]
        .map(String::from)
        .to_vec();
        head.extend(
            self.params
                .iter()
                .map(|q| format!("sensitivity.{}", q.name)),
        );
        w.write_record(&head).map_err(csv_err(&s))?;
        let num = |x: Option<f64>| x.map(|v| format!("{v:.6}")).unwrap_or_default();
        for c in &self.claims {
            let mut row = vec![
                c.check.to_string(),
                c.claim.clone(),
                c.expect.clone(),
                c.holds.to_string(),
                c.evaluated.to_string(),
                num(c.share),
                num(c.low),
                num(c.high),
                self.influence_text(c),
            ];
            row.extend(c.sensitivity.iter().map(|x| num(*x)));
            w.write_record(&row).map_err(csv_err(&s))?;
        }
        w.flush().map_err(io(&s))?;
        Ok(p)
    }
}
