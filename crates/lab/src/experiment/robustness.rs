//! `[robustness]`: the values a study's paper leaves unsaid, declared as
//! ranges or lists of choices, each with its reason. `msctp reproduce
//! --robustness` samples that space ([`crate::robustness`]) and reports
//! for every claim the share of the space where it holds.
//!
//! ```toml
//! [robustness]
//! variants = ["mip-tcp", "msctp"]   # the variants mapped (default all)
//!
//! [[robustness.params]]
//! name = "cn_delay_ms"              # a column name in the map
//! key = "links.0.delay_ms"          # or keys = [...]: the paths `set` uses
//! min = 2.0                         # a numeric range ...
//! max = 50.0
//! scale = "log"                     # or "linear" (default)
//! integer = false                   # round to whole numbers
//! reason = "the paper gives no delay for the correspondent's link"
//!
//! [[robustness.params]]
//! name = "direction"
//! key = "flows.0.direction"
//! choices = ["uplink", "downlink"]  # ... or a list of choices
//! reason = "..."
//! ```
//!
//! A parameter's keys may not be a sweep axis's keys (the axis already
//! varies them), and each must be a value of the scenario of some mapped
//! variant (base scenario plus the variant's overrides): a typo is refused
//! when the file is loaded, naming the file and the key.

use serde::Deserialize;
use toml::{Table, Value};

use crate::experiment::value;
use crate::keypath;

/// How a numeric range is sampled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scale {
    /// Uniform in the value.
    #[default]
    Linear,
    /// Uniform in the logarithm (for ranges over orders of magnitude).
    Log,
}

/// One unsaid value.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamSpec {
    /// Short name, a column of the map (letters, digits, - _ . +).
    pub name: String,
    /// The scenario key the value is written at (dotted, as in `set`).
    pub key: Option<String>,
    /// Several keys that all take the value.
    #[serde(default)]
    pub keys: Vec<String>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    #[serde(default)]
    pub scale: Scale,
    /// Round sampled values to whole numbers (written as integers).
    #[serde(default)]
    pub integer: bool,
    /// A list of choices instead of a range.
    pub choices: Option<Vec<Value>>,
    /// Why the value is unsaid, in one line ("the paper gives no link
    /// delay").
    pub reason: String,
}

/// What a parameter ranges over.
#[derive(Debug, Clone, PartialEq)]
pub enum Domain<'a> {
    Range {
        min: f64,
        max: f64,
        scale: Scale,
        integer: bool,
    },
    Choices(&'a [Value]),
}

impl ParamSpec {
    /// The keys the value is written at.
    pub fn all_keys(&self) -> Vec<&str> {
        self.key
            .iter()
            .chain(self.keys.iter())
            .map(String::as_str)
            .collect()
    }

    /// The range or the choices (after [`RobustnessSpec::validate`]).
    pub fn domain(&self) -> Domain<'_> {
        match &self.choices {
            Some(c) => Domain::Choices(c),
            None => Domain::Range {
                min: self.min.unwrap_or(0.0),
                max: self.max.unwrap_or(0.0),
                scale: self.scale,
                integer: self.integer,
            },
        }
    }

    /// The value at quantile `u` in [0, 1): a range maps `u` linearly or
    /// logarithmically onto [min, max]; choices take the `floor(u k)`-th of
    /// k.
    pub fn value_at(&self, u: f64) -> Value {
        let u = u.clamp(0.0, 1.0);
        match self.domain() {
            Domain::Choices(c) => {
                let i = ((u * c.len() as f64) as usize).min(c.len() - 1);
                c[i].clone()
            }
            Domain::Range {
                min,
                max,
                scale,
                integer,
            } => {
                let x = match scale {
                    Scale::Linear => min + u * (max - min),
                    Scale::Log => (min.ln() + u * (max.ln() - min.ln())).exp(),
                };
                let x = x.clamp(min, max);
                if integer {
                    Value::Integer(x.round() as i64)
                } else {
                    Value::Float(x)
                }
            }
        }
    }

    /// The extreme values (min and max, or every choice): what
    /// [`crate::robustness`] checks with the runner before sampling.
    pub fn extremes(&self) -> Vec<Value> {
        match self.domain() {
            Domain::Choices(c) => c.to_vec(),
            Domain::Range { .. } => vec![self.value_at(0.0), self.value_at(1.0)],
        }
    }

    fn validate(&self, ctx: &str) -> Result<(), String> {
        if self.reason.trim().is_empty() {
            return Err(format!("{ctx}: `reason` must say why the value is unsaid"));
        }
        match (&self.key, self.keys.is_empty()) {
            (None, true) => return Err(format!("{ctx}: give `key` or `keys`")),
            (Some(_), false) => return Err(format!("{ctx}: give `key` or `keys`, not both")),
            _ => {}
        }
        for k in self.all_keys() {
            let mut t = Table::new();
            keypath::set(&mut t, k, Value::from(0)).map_err(|e| format!("{ctx}: {e}"))?;
        }
        match (&self.choices, self.min, self.max) {
            (Some(c), None, None) => {
                if self.integer || self.scale != Scale::Linear {
                    return Err(format!(
                        "{ctx}: `integer` and `scale` apply to ranges, not to choices"
                    ));
                }
                if c.len() < 2 {
                    return Err(format!("{ctx}: give at least two choices"));
                }
                for (j, v) in c.iter().enumerate() {
                    if !value::is_scalar(v) || value::as_number(v).is_some_and(|x| !x.is_finite()) {
                        return Err(format!(
                            "{ctx}: choices must be strings, finite numbers or booleans"
                        ));
                    }
                    if c[..j].iter().any(|w| value::same(v, w)) {
                        return Err(format!("{ctx}: choice {} appears twice", value::label(v)));
                    }
                }
                Ok(())
            }
            (None, Some(lo), Some(hi)) => {
                if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                    return Err(format!(
                        "{ctx}: the range must be finite with min < max (got {lo} to {hi})"
                    ));
                }
                if self.scale == Scale::Log && lo <= 0.0 {
                    return Err(format!("{ctx}: a log range needs min > 0 (got {lo})"));
                }
                if self.integer && hi.round() - lo.round() < 1.0 {
                    return Err(format!(
                        "{ctx}: an integer range needs at least two whole numbers"
                    ));
                }
                Ok(())
            }
            (Some(_), _, _) => Err(format!("{ctx}: give `choices` or `min`/`max`, not both")),
            _ => Err(format!(
                "{ctx}: give a range (`min` and `max`) or a list of `choices`"
            )),
        }
    }
}

/// The whole `[robustness]` section.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RobustnessSpec {
    /// The variants the map runs (default all): the paper's own stacks,
    /// without the extras, keep the map affordable. Claims about other
    /// variants are not mapped.
    pub variants: Option<Vec<String>>,
    pub params: Vec<ParamSpec>,
}

impl RobustnessSpec {
    /// Checks names, ranges and choices; `variants` are the experiment's
    /// variants, `axis_keys` the keys its sweep axes write.
    pub fn validate(&self, variants: &[String], axis_keys: &[&str]) -> Result<(), String> {
        if self.params.is_empty() {
            return Err("robustness: declare at least one entry in `params`".into());
        }
        if let Some(vs) = &self.variants {
            if vs.is_empty() {
                return Err("robustness.variants: must not be empty".into());
            }
            for v in vs {
                if !variants.contains(v) {
                    return Err(format!(
                        "robustness.variants: unknown variant `{v}` (variants: {})",
                        variants.join(", ")
                    ));
                }
            }
        }
        let mut seen: Vec<&str> = Vec::new();
        for (i, p) in self.params.iter().enumerate() {
            let ctx = format!("robustness.params[{i}] ({})", p.name);
            if p.name.is_empty()
                || !p
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.+".contains(c))
            {
                return Err(format!(
                    "{ctx}: name must be non-empty and use only letters, digits, '-', '_', '.', '+'"
                ));
            }
            if seen.contains(&p.name.as_str()) {
                return Err(format!("robustness.params: `{}` appears twice", p.name));
            }
            seen.push(&p.name);
            p.validate(&ctx)?;
            for k in p.all_keys() {
                if axis_keys.contains(&k) {
                    return Err(format!(
                        "{ctx}: key `{k}` is a sweep axis's key; the axis already varies it"
                    ));
                }
                let earlier = self.params[..i].iter().find(|q| q.all_keys().contains(&k));
                if let Some(q) = earlier {
                    return Err(format!("{ctx}: key `{k}` is also `{}`'s key", q.name));
                }
            }
        }
        Ok(())
    }

    /// The mapped variants.
    pub fn mapped_variants(&self, all: &[String]) -> Vec<String> {
        self.variants.clone().unwrap_or_else(|| all.to_vec())
    }

    /// Checks that every key is a value of the scenario of some mapped
    /// variant (`scenarios`: (variant, base scenario with its overrides)).
    pub fn check_keys_exist(&self, scenarios: &[(String, Table)]) -> Result<(), String> {
        for (i, p) in self.params.iter().enumerate() {
            for k in p.all_keys() {
                if !scenarios.iter().any(|(_, s)| keypath::get(s, k).is_some()) {
                    return Err(format!(
                        "robustness.params[{i}] ({}): unknown key path `{k}`: no mapped variant's \
                         scenario ({}) has a value there; write the value the study uses into the \
                         scenario first",
                        p.name,
                        scenarios
                            .iter()
                            .map(|(v, _)| v.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(text: &str) -> ParamSpec {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn ranges_map_quantiles_linearly_or_logarithmically() {
        let p = param("name='d'\nkey='a.b'\nmin=1.0\nmax=100.0\nscale='log'\nreason='r'");
        assert!((p.value_at(0.5).as_float().unwrap() - 10.0).abs() < 1e-9);
        assert_eq!(p.value_at(0.0).as_float(), Some(1.0));
        let p = param("name='q'\nkey='a.b'\nmin=10\nmax=100\ninteger=true\nreason='r'");
        assert_eq!(p.value_at(0.5).as_integer(), Some(55));
        assert_eq!(p.extremes(), vec![Value::Integer(10), Value::Integer(100)]);
        let p = param("name='c'\nkey='a.b'\nchoices=['x','y','z']\nreason='r'");
        assert_eq!(p.value_at(0.34).as_str(), Some("y"));
        assert_eq!(p.value_at(0.999).as_str(), Some("z"));
    }

    #[test]
    fn bad_declarations_are_named() {
        let cases = [
            (
                "name='d'\nkey='a'\nmin=5.0\nmax=1.0\nreason='r'",
                "min < max",
            ),
            (
                "name='d'\nkey='a'\nmin=0.0\nmax=1.0\nscale='log'\nreason='r'",
                "min > 0",
            ),
            ("name='d'\nkey='a'\nmin=1.0\nreason='r'", "give a range"),
            (
                "name='d'\nkey='a'\nchoices=['x']\nreason='r'",
                "two choices",
            ),
            ("name='d'\nkey='a'\nchoices=['x','x']\nreason='r'", "twice"),
            ("name='d'\nmin=1.0\nmax=2.0\nreason='r'", "`key` or `keys`"),
            ("name='d'\nkey='a'\nmin=1.0\nmax=2.0\nreason=' '", "reason"),
            (
                "name='d'\nkey='a..b'\nmin=1.0\nmax=2.0\nreason='r'",
                "empty segment",
            ),
        ];
        for (text, want) in cases {
            let spec = RobustnessSpec {
                variants: None,
                params: vec![param(text)],
            };
            let e = spec.validate(&["base".into()], &[]).unwrap_err();
            assert!(e.contains(want), "{text}: {e}");
        }
        let spec = RobustnessSpec {
            variants: None,
            params: vec![param("name='d'\nkey='x.k'\nmin=1.0\nmax=2.0\nreason='r'")],
        };
        let e = spec.validate(&["base".into()], &["x.k"]).unwrap_err();
        assert!(e.contains("sweep axis"), "{e}");
    }
}
