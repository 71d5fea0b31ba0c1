//! `[provenance]`: where each value a study's scenario and variants set
//! comes from. Every value a run uses is either cited (the paper, its
//! tool's defaults, our structure), swept by an axis (the paper's x axis)
//! or declared unsaid under `[robustness]`; [`Experiment::unsourced`]
//! lists the values that are none of these, so a test can enforce the
//! rule per study.
//!
//! ```toml
//! [provenance]
//! "flows.0.tcp" = "ns-2.26 tcl/lib/ns-default.tcl 909-987 (the comment above the variants)"
//! "cells.*.radius_m" = "the paper, section 5.1: UMTS 500 m, WLAN 250 m"
//! "nodes" = "structure: names of the topology's nodes"
//! ```
//!
//! A pattern is a dotted key path; `*` matches any one segment, and a
//! pattern covers every value below it.

use std::collections::BTreeSet;

use toml::{Table, Value};

use crate::experiment::Experiment;
use crate::keypath;

/// Checks the section: every pattern a valid key path, every source a
/// non-empty string.
pub fn validate(provenance: &Table) -> Result<(), String> {
    for (pattern, source) in provenance {
        let mut t = Table::new();
        keypath::set(&mut t, &pattern.replace('*', "x"), Value::from(0))
            .map_err(|e| format!("provenance: {e}"))?;
        match source.as_str() {
            Some(s) if !s.trim().is_empty() => {}
            _ => {
                return Err(format!(
                    "provenance.\"{pattern}\": the source must be a non-empty string"
                ));
            }
        }
    }
    Ok(())
}

/// Every leaf value's key path in `t` (array items by index; an array of
/// plain values is one leaf).
pub fn leaf_paths(t: &Table) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in t {
        walk(k, v, &mut out);
    }
    out
}

fn walk(path: &str, v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Table(t) if !t.is_empty() => {
            for (k, w) in t {
                walk(&format!("{path}.{k}"), w, out);
            }
        }
        Value::Array(a) if a.iter().any(Value::is_table) => {
            for (i, w) in a.iter().enumerate() {
                walk(&format!("{path}.{i}"), w, out);
            }
        }
        _ => out.push(path.to_string()),
    }
}

/// Whether `pattern` (dotted, `*` = any one segment) is `path` or one of
/// its prefixes.
pub fn covers(pattern: &str, path: &str) -> bool {
    let p: Vec<&str> = pattern.split('.').collect();
    let q: Vec<&str> = path.split('.').collect();
    p.len() <= q.len() && p.iter().zip(&q).all(|(a, b)| *a == "*" || a == b)
}

impl Experiment {
    /// The key paths of values the scenario or a variant sets that are
    /// neither cited under `[provenance]`, nor swept by an axis, nor
    /// declared under `[robustness]`. Empty for a study whose every value
    /// has a source.
    pub fn unsourced(&self) -> Vec<String> {
        let spec = &self.spec;
        let mut declared: Vec<String> = spec.provenance.keys().cloned().collect();
        for a in &spec.axes {
            declared.extend(a.key.iter().chain(a.keys.iter()).cloned());
        }
        if let Some(r) = &spec.robustness {
            for p in &r.params {
                declared.extend(p.all_keys().into_iter().map(String::from));
            }
        }
        let mut paths: BTreeSet<String> = leaf_paths(&self.base).into_iter().collect();
        for v in &spec.variants {
            let mut s = Table::new();
            if keypath::apply_overrides(&mut s, &v.set).is_ok() {
                paths.extend(leaf_paths(&s));
            }
        }
        for a in &spec.axes {
            for o in a.overrides.values() {
                let mut s = Table::new();
                if let Some(o) = o.as_table()
                    && keypath::apply_overrides(&mut s, o).is_ok()
                {
                    paths.extend(leaf_paths(&s));
                }
            }
        }
        paths
            .into_iter()
            .filter(|p| !declared.iter().any(|d| covers(d, p)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_cover_their_subtrees() {
        assert!(covers("flows.0.tcp", "flows.0.tcp.mss"));
        assert!(covers("cells.*.radius_m", "cells.1.radius_m"));
        assert!(covers("nodes", "nodes.3.name"));
        assert!(!covers("cells.*.radius_m", "cells.1.rate_bps"));
        assert!(!covers("flows.0.tcp.mss", "flows.0.tcp"));
        let t: Table =
            toml::from_str("a = 1\n[b]\nc = [1, 2]\n[[d]]\ne = 'x'\n[[d]]\nf = { g = 2 }").unwrap();
        assert_eq!(leaf_paths(&t), vec!["a", "b.c", "d.0.e", "d.1.f.g"]);
    }
}
