//! The analytic models of the studies, evaluated per (variant, point)
//! beside the simulated values. A fixed set of named formulas whose
//! parameters come from constants, the point's axis values, the run's
//! scenario, or a measured metric's mean:
//!
//! - `mip_handoff_delay` (Song and Wang): `T_MIP = T_ad + T_reg` per
//!   handoff, times `handoffs` (default 1) for a total.
//! - `msctp_signalling_bits` (Song and Wang): three ASCONF / ASCONF-ACK
//!   pairs per handoff, `pairs * (asconf_bits + ack_bits)` = 3 x (192 +
//!   64) = 768 bits with the defaults, times `handoffs`.
//! - `mip_tunnel_overhead_bits` (Song and Wang): `header_bits` (160, the
//!   IP-in-IP header) per tunnelled datagram, times `datagrams`.
//! - `failover_time` (docs/MODELS.md section 3, Budzisz et al.): the PMR + 1
//!   consecutive timeouts before failover with the RTO doubling each time,
//!   `sum_{i=0..PMR} min(RTO * 2^i, RTO.Max)`, which is
//!   `RTO * (2^(PMR+1) - 1)` while the RTO stays below `rto_max`
//!   (optional; no cap when absent).
//! - `ideal_transfer_time` (Budzisz et al., section 4.3.1: "a fictitious
//!   optimal SCTP [with] perfect knowledge about the available bandwidth
//!   [that sends] with the optimal rate directly from the start"): the
//!   first `bytes` reach the receiver one one-way `delay` (plus
//!   `extra_delay`, default 0) after they leave, spread by their
//!   transmission at `rate_bps`: `delay + extra_delay + 8 bytes /
//!   rate_bps`, in seconds, divided by `unit_s` (default 1; 0.001 gives
//!   milliseconds). Headers are left out, so it is a lower bound.
//!
//! Parameter forms in the experiment file: a number; `{ axis = "pmr" }`;
//! `{ scenario = "sctp.rto_min_ms", scale = 0.001 }`;
//! `{ metric = "rto_at_break_s" }` (the cell's mean, in display units).

use serde::Deserialize;
use toml::{Table, Value};

use crate::experiment::names::Names;
use crate::experiment::value;

/// The named formulas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FormulaKind {
    MipHandoffDelay,
    MsctpSignallingBits,
    MipTunnelOverheadBits,
    FailoverTime,
    IdealTransferTime,
}

impl FormulaKind {
    pub fn name(self) -> &'static str {
        match self {
            FormulaKind::MipHandoffDelay => "mip_handoff_delay",
            FormulaKind::MsctpSignallingBits => "msctp_signalling_bits",
            FormulaKind::MipTunnelOverheadBits => "mip_tunnel_overhead_bits",
            FormulaKind::FailoverTime => "failover_time",
            FormulaKind::IdealTransferTime => "ideal_transfer_time",
        }
    }

    /// (parameter, default) pairs; `None`: required.
    pub fn params(self) -> &'static [(&'static str, Option<f64>)] {
        match self {
            FormulaKind::MipHandoffDelay => {
                &[("t_ad", None), ("t_reg", None), ("handoffs", Some(1.0))]
            }
            FormulaKind::MsctpSignallingBits => &[
                ("pairs", Some(3.0)),
                ("asconf_bits", Some(192.0)),
                ("ack_bits", Some(64.0)),
                ("handoffs", Some(1.0)),
            ],
            FormulaKind::MipTunnelOverheadBits => {
                &[("header_bits", Some(160.0)), ("datagrams", None)]
            }
            FormulaKind::FailoverTime => &[
                ("rto", None),
                ("pmr", None),
                ("rto_max", Some(f64::INFINITY)),
            ],
            FormulaKind::IdealTransferTime => &[
                ("delay", None),
                ("bytes", None),
                ("rate_bps", None),
                ("extra_delay", Some(0.0)),
                ("unit_s", Some(1.0)),
            ],
        }
    }

    /// The formula as printed in the report.
    pub fn text(self) -> &'static str {
        match self {
            FormulaKind::MipHandoffDelay => "handoffs x (T_ad + T_reg)",
            FormulaKind::MsctpSignallingBits => "handoffs x pairs x (asconf_bits + ack_bits)",
            FormulaKind::MipTunnelOverheadBits => "header_bits x datagrams",
            FormulaKind::FailoverTime => {
                "sum_{i=0..PMR} min(RTO x 2^i, RTO.Max) = RTO x (2^(PMR+1) - 1) below RTO.Max"
            }
            FormulaKind::IdealTransferTime => {
                "(delay + extra_delay + 8 x bytes / rate_bps) / unit_s"
            }
        }
    }

    /// Evaluates with every parameter given in `params()` order.
    pub fn eval(self, p: &[f64]) -> Result<f64, String> {
        match self {
            FormulaKind::MipHandoffDelay => Ok(p[2] * (p[0] + p[1])),
            FormulaKind::MsctpSignallingBits => Ok(p[3] * p[0] * (p[1] + p[2])),
            FormulaKind::MipTunnelOverheadBits => Ok(p[0] * p[1]),
            FormulaKind::FailoverTime => {
                let (rto, pmr, rto_max) = (p[0], p[1], p[2]);
                if !(pmr >= 0.0 && pmr.fract() == 0.0 && pmr <= 63.0) {
                    return Err(format!("pmr must be an integer in 0..=63, got {pmr}"));
                }
                if rto.is_nan() || rto < 0.0 || rto_max.is_nan() {
                    return Err(format!("rto must be >= 0, got {rto}"));
                }
                let mut total = 0.0;
                let mut r = rto;
                for _ in 0..=(pmr as u32) {
                    total += r.min(rto_max);
                    r *= 2.0;
                }
                Ok(total)
            }
            FormulaKind::IdealTransferTime => {
                let (delay, bytes, rate, extra, unit) = (p[0], p[1], p[2], p[3], p[4]);
                if !(rate > 0.0 && unit > 0.0) {
                    return Err(format!(
                        "rate_bps and unit_s must be > 0, got {rate} and {unit}"
                    ));
                }
                if !(delay >= 0.0 && extra >= 0.0 && bytes >= 0.0) {
                    return Err(format!(
                        "delay, extra_delay and bytes must be >= 0, got {delay}, {extra}, {bytes}"
                    ));
                }
                Ok((delay + extra + 8.0 * bytes / rate) / unit)
            }
        }
    }
}

/// Where a parameter's value comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamSource {
    Const(f64),
    Axis(String, f64),
    Scenario(String, f64),
    Metric(String, f64),
}

/// One analytic formula of an experiment.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FormulaSpec {
    pub id: String,
    pub kind: FormulaKind,
    pub label: Option<String>,
    #[serde(default)]
    pub unit: String,
    #[serde(default)]
    pub params: Table,
    /// The variants it applies to (default: all).
    pub variants: Option<Vec<String>>,
    /// The metric it predicts, shown beside it in the report.
    pub compare: Option<String>,
}

/// Parses one parameter value.
pub fn parse_param(ctx: &str, name: &str, v: &Value) -> Result<ParamSource, String> {
    if let Some(x) = value::as_number(v) {
        return if x.is_finite() {
            Ok(ParamSource::Const(x))
        } else {
            Err(format!("{ctx}: params.{name} must be finite"))
        };
    }
    let Value::Table(t) = v else {
        return Err(format!(
            "{ctx}: params.{name} must be a number or a table {{ axis | scenario | metric = \"...\", scale = ... }}"
        ));
    };
    let mut scale = 1.0;
    let mut source: Option<ParamSource> = None;
    for (k, x) in t {
        match k.as_str() {
            "scale" => {
                scale = value::as_number(x)
                    .filter(|s| s.is_finite())
                    .ok_or_else(|| format!("{ctx}: params.{name}.scale must be a finite number"))?;
            }
            "axis" | "scenario" | "metric" => {
                let Some(s) = x.as_str() else {
                    return Err(format!("{ctx}: params.{name}.{k} must be a string"));
                };
                if source.is_some() {
                    return Err(format!(
                        "{ctx}: params.{name}: give one of axis, scenario, metric"
                    ));
                }
                source = Some(match k.as_str() {
                    "axis" => ParamSource::Axis(s.to_string(), 1.0),
                    "scenario" => ParamSource::Scenario(s.to_string(), 1.0),
                    _ => ParamSource::Metric(s.to_string(), 1.0),
                });
            }
            other => {
                return Err(format!(
                    "{ctx}: params.{name}: unknown key `{other}` (axis, scenario, metric, scale)"
                ));
            }
        }
    }
    match source {
        Some(ParamSource::Axis(a, _)) => Ok(ParamSource::Axis(a, scale)),
        Some(ParamSource::Scenario(a, _)) => Ok(ParamSource::Scenario(a, scale)),
        Some(ParamSource::Metric(a, _)) => Ok(ParamSource::Metric(a, scale)),
        _ => Err(format!(
            "{ctx}: params.{name}: give one of axis, scenario, metric"
        )),
    }
}

impl FormulaSpec {
    pub fn label(&self) -> String {
        self.label.clone().unwrap_or_else(|| self.id.clone())
    }

    /// Checks kind parameters and references.
    pub fn validate(&self, ctx: &str, names: &Names) -> Result<(), String> {
        let known = self.kind.params();
        for (k, v) in &self.params {
            if !known.iter().any(|(n, _)| n == k) {
                return Err(format!(
                    "{ctx}: unknown parameter `{k}` for {} (parameters: {})",
                    self.kind.name(),
                    known.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
                ));
            }
            match parse_param(ctx, k, v)? {
                ParamSource::Axis(a, _) if names.axis(&a).is_none() => {
                    return Err(format!("{ctx}: params.{k}: `{a}` is not an axis"));
                }
                ParamSource::Axis(a, _)
                    if names
                        .axis(&a)
                        .is_some_and(|vals| vals.iter().any(|v| value::as_number(v).is_none())) =>
                {
                    return Err(format!("{ctx}: params.{k}: axis `{a}` is not numeric"));
                }
                ParamSource::Metric(m, _) => {
                    names.check_metric(&format!("{ctx}: params.{k}"), &m)?
                }
                ParamSource::Scenario(p, _) if p.is_empty() => {
                    return Err(format!("{ctx}: params.{k}: empty scenario key"));
                }
                _ => {}
            }
        }
        for (n, d) in known {
            if d.is_none() && !self.params.contains_key(*n) {
                return Err(format!(
                    "{ctx}: parameter `{n}` is required for {}",
                    self.kind.name()
                ));
            }
        }
        if let Some(v) = &self.variants {
            names.check_variants(ctx, v)?;
        }
        if let Some(m) = &self.compare {
            names.check_metric(ctx, m)?;
        }
        Ok(())
    }

    pub fn applies_to(&self, variant: &str) -> bool {
        self.variants
            .as_ref()
            .is_none_or(|v| v.iter().any(|x| x == variant))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_numbers() {
        // Song and Wang: 3 x (192 + 64) = 768 bits per handoff.
        assert_eq!(
            FormulaKind::MsctpSignallingBits
                .eval(&[3.0, 192.0, 64.0, 1.0])
                .unwrap(),
            768.0
        );
        assert_eq!(
            FormulaKind::MipHandoffDelay
                .eval(&[1.0, 0.25, 4.0])
                .unwrap(),
            5.0
        );
        assert_eq!(
            FormulaKind::MipTunnelOverheadBits
                .eval(&[160.0, 10.0])
                .unwrap(),
            1600.0
        );
        // RTO * (2^(PMR+1) - 1): RTO 0.2 s, PMR 0..5.
        for pmr in 0..=5 {
            let want = 0.2 * (2f64.powi(pmr + 1) - 1.0);
            let got = FormulaKind::FailoverTime
                .eval(&[0.2, pmr as f64, f64::INFINITY])
                .unwrap();
            assert!((got - want).abs() < 1e-12, "pmr {pmr}: {got} vs {want}");
        }
        // Capped by RTO.Max = 1 s: 0.4 + 0.8 + 1 + 1 = 3.2.
        assert_eq!(
            FormulaKind::FailoverTime.eval(&[0.4, 3.0, 1.0]).unwrap(),
            3.2
        );
        assert!(FormulaKind::FailoverTime.eval(&[0.4, 1.5, 1.0]).is_err());
        assert!(FormulaKind::FailoverTime.eval(&[0.4, -1.0, 1.0]).is_err());
        assert!(FormulaKind::FailoverTime.eval(&[0.4, 64.0, 1.0]).is_err());
        // 10 kB over 11 Mbit/s after 15 ms + 1.5 ms: 16.5 + 80 000 / 11 000 ms.
        let t = FormulaKind::IdealTransferTime
            .eval(&[0.015, 10_000.0, 11e6, 0.0015, 0.001])
            .unwrap();
        assert!((t - (16.5 + 80.0 / 11.0)).abs() < 1e-9, "{t}");
        assert!(
            FormulaKind::IdealTransferTime
                .eval(&[0.015, 10_000.0, 0.0, 0.0, 1.0])
                .is_err()
        );
        assert!(
            FormulaKind::IdealTransferTime
                .eval(&[-0.1, 10_000.0, 1e6, 0.0, 1.0])
                .is_err()
        );
    }

    #[test]
    fn parameter_forms() {
        let p = |s: &str| -> Value {
            toml::from_str::<Table>(&format!("x = {s}")).unwrap()["x"].clone()
        };
        assert_eq!(
            parse_param("f", "x", &p("2")).unwrap(),
            ParamSource::Const(2.0)
        );
        assert_eq!(
            parse_param("f", "x", &p("{ axis = \"pmr\" }")).unwrap(),
            ParamSource::Axis("pmr".into(), 1.0)
        );
        assert_eq!(
            parse_param("f", "x", &p("{ scenario = \"a.b\", scale = 0.001 }")).unwrap(),
            ParamSource::Scenario("a.b".into(), 0.001)
        );
        let e = parse_param("f", "x", &p("{ axis = \"a\", metric = \"m\" }")).unwrap_err();
        assert!(e.contains("one of"), "{e}");
        let e = parse_param("f", "x", &p("{ axes = \"a\" }")).unwrap_err();
        assert!(e.contains("unknown key `axes`"), "{e}");
        assert!(parse_param("f", "x", &p("\"a\"")).is_err());
    }
}
