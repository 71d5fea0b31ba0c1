//! Turning a runner's structured summary (anything `Serialize`, e.g. the
//! simulator's per-run summary) into the flat named metrics of a
//! [`RunRecord`](crate::RunRecord): every number becomes a metric named by
//! its dotted path (`flows.dl.goodput_bps`), so experiment files can
//! refer to any measure a runner reports without the lab knowing its
//! types.
//!
//! - numbers are taken as they are; booleans as 0 / 1; nulls (a measure
//!   that could not be taken) and strings are left out;
//! - an array element that is an object with a string `name` is named by
//!   it (`flows.dl`), else by its index (`handovers.0`); every array also
//!   gives `<path>.count`;
//! - at most `max_array_items` elements of an array and `max_metrics`
//!   metrics in all are taken (both bounds are reported in the result).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

/// Bounds of a flattening.
#[derive(Debug, Clone, Copy)]
pub struct FlattenLimits {
    pub max_array_items: usize,
    pub max_metrics: usize,
}

impl Default for FlattenLimits {
    fn default() -> Self {
        FlattenLimits {
            max_array_items: 256,
            max_metrics: 100_000,
        }
    }
}

/// The metrics, and whether a bound cut anything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Flattened {
    pub metrics: BTreeMap<String, f64>,
    pub truncated: bool,
}

/// Flattens any serialisable value (see the module documentation).
pub fn flatten<T: Serialize>(value: &T, limits: FlattenLimits) -> Result<Flattened, String> {
    let v = serde_json::to_value(value).map_err(|e| e.to_string())?;
    let mut out = Flattened::default();
    walk(&v, String::new(), &limits, &mut out);
    Ok(out)
}

fn join(prefix: &str, seg: &str) -> String {
    if prefix.is_empty() {
        seg.to_string()
    } else {
        format!("{prefix}.{seg}")
    }
}

fn put(out: &mut Flattened, limits: &FlattenLimits, key: String, x: f64) {
    if !x.is_finite() {
        return;
    }
    if out.metrics.len() >= limits.max_metrics {
        out.truncated = true;
        return;
    }
    out.metrics.insert(key, x);
}

fn walk(v: &Value, path: String, limits: &FlattenLimits, out: &mut Flattened) {
    match v {
        Value::Number(n) => {
            if let Some(x) = n.as_f64() {
                put(out, limits, path, x);
            }
        }
        Value::Bool(b) => put(out, limits, path, if *b { 1.0 } else { 0.0 }),
        Value::Null | Value::String(_) => {}
        Value::Object(m) => {
            for (k, x) in m {
                walk(x, join(&path, k), limits, out);
            }
        }
        Value::Array(a) => {
            put(out, limits, join(&path, "count"), a.len() as f64);
            if a.len() > limits.max_array_items {
                out.truncated = true;
            }
            for (i, x) in a.iter().take(limits.max_array_items).enumerate() {
                let seg = x
                    .get("name")
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty() && !s.contains('.'))
                    .map(str::to_string)
                    .unwrap_or_else(|| i.to_string());
                walk(x, join(&path, &seg), limits, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Flow {
        name: String,
        goodput_bps: f64,
        delivery_s: Option<f64>,
        up: bool,
        handovers: Vec<Ho>,
    }
    #[derive(Serialize)]
    struct Ho {
        delay_s: Option<f64>,
    }
    #[derive(Serialize)]
    struct Summary {
        seed: u64,
        scenario: String,
        flows: Vec<Flow>,
        drops: BTreeMap<String, u64>,
    }

    fn sample() -> Summary {
        Summary {
            seed: 3,
            scenario: "x".into(),
            flows: vec![Flow {
                name: "dl".into(),
                goodput_bps: 1.5e6,
                delivery_s: None,
                up: true,
                handovers: vec![Ho { delay_s: Some(0.2) }, Ho { delay_s: None }],
            }],
            drops: [("QueueFull".to_string(), 7)].into_iter().collect(),
        }
    }

    #[test]
    fn numbers_become_dotted_metrics() {
        let f = flatten(&sample(), FlattenLimits::default()).unwrap();
        let m = &f.metrics;
        assert_eq!(m["seed"], 3.0);
        assert_eq!(m["flows.count"], 1.0);
        assert_eq!(m["flows.dl.goodput_bps"], 1.5e6);
        assert_eq!(m["flows.dl.up"], 1.0);
        assert_eq!(m["flows.dl.handovers.count"], 2.0);
        assert_eq!(m["flows.dl.handovers.0.delay_s"], 0.2);
        assert!(!m.contains_key("flows.dl.handovers.1.delay_s"));
        assert!(!m.contains_key("flows.dl.delivery_s"));
        assert!(!m.contains_key("scenario"));
        assert_eq!(m["drops.QueueFull"], 7.0);
        assert!(!f.truncated);
    }

    #[test]
    fn bounds_are_reported() {
        let l = FlattenLimits {
            max_array_items: 1,
            max_metrics: 100,
        };
        let f = flatten(&sample(), l).unwrap();
        assert!(f.truncated);
        assert!(!f.metrics.contains_key("flows.dl.handovers.1.delay_s"));
        let l = FlattenLimits {
            max_array_items: 10,
            max_metrics: 2,
        };
        let f = flatten(&sample(), l).unwrap();
        assert!(f.truncated);
        assert_eq!(f.metrics.len(), 2);
    }
}
