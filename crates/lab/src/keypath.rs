//! Dotted key paths into a TOML scenario (`transport.kind`,
//! `flows.0.policy.add_ip`): how variants and sweep axes override the
//! base scenario. A segment made only of digits indexes an array.

use thiserror::Error;
use toml::{Table, Value};

/// A path that cannot be applied.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum KeyPathError {
    #[error("key path `{0}` is empty or has an empty segment")]
    Empty(String),
    #[error("key path `{path}`: `{prefix}` is {found}, not a table or an array")]
    NotContainer {
        path: String,
        prefix: String,
        found: &'static str,
    },
    #[error(
        "key path `{path}`: index {index} is out of range (the array `{prefix}` has {len} items)"
    )]
    OutOfRange {
        path: String,
        prefix: String,
        index: usize,
        len: usize,
    },
    #[error("key path `{path}`: `{prefix}` is an array; index it with a number")]
    ArrayNeedsIndex { path: String, prefix: String },
    #[error("key path `{start}...` has {segments} segments (at most {MAX_SEGMENTS})")]
    TooLong { start: String, segments: usize },
}

/// Most segments of a key path. A scenario's keys have at most five
/// (`flows.0.sctp.cmt.enabled`); setting a path creates one table per
/// missing segment and recurses once per segment.
pub const MAX_SEGMENTS: usize = 64;

fn segments(path: &str) -> Result<Vec<&str>, KeyPathError> {
    let n = path.split('.').count();
    if n > MAX_SEGMENTS {
        return Err(KeyPathError::TooLong {
            start: path.chars().take(40).collect(),
            segments: n,
        });
    }
    let segs: Vec<&str> = path.split('.').collect();
    if path.is_empty() || segs.iter().any(|s| s.trim().is_empty()) {
        return Err(KeyPathError::Empty(path.to_string()));
    }
    Ok(segs)
}

fn index_of(seg: &str) -> Option<usize> {
    if seg.bytes().all(|b| b.is_ascii_digit()) {
        seg.parse().ok()
    } else {
        None
    }
}

/// The value at `path`, if there is one.
pub fn get<'a>(table: &'a Table, path: &str) -> Option<&'a Value> {
    let segs = segments(path).ok()?;
    let (first, rest) = segs.split_first()?;
    let mut cur = table.get(*first)?;
    for seg in rest {
        cur = match cur {
            Value::Table(t) => t.get(*seg)?,
            Value::Array(a) => a.get(index_of(seg)?)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// Sets `path` to `value`, creating missing tables on the way. Arrays are
/// never grown: an index must exist.
pub fn set(table: &mut Table, path: &str, value: Value) -> Result<(), KeyPathError> {
    let segs = segments(path)?;
    set_in_table(table, &segs, 0, path, value)
}

fn set_in_table(
    t: &mut Table,
    segs: &[&str],
    i: usize,
    path: &str,
    value: Value,
) -> Result<(), KeyPathError> {
    if i + 1 == segs.len() {
        t.insert(segs[i].to_string(), value);
        return Ok(());
    }
    let entry = t
        .entry(segs[i].to_string())
        .or_insert_with(|| Value::Table(Table::new()));
    set_in_value(entry, segs, i + 1, path, value)
}

fn set_in_value(
    node: &mut Value,
    segs: &[&str],
    i: usize,
    path: &str,
    value: Value,
) -> Result<(), KeyPathError> {
    let prefix = || segs[..i].join(".");
    match node {
        Value::Table(t) => set_in_table(t, segs, i, path, value),
        Value::Array(a) => {
            let Some(idx) = index_of(segs[i]) else {
                return Err(KeyPathError::ArrayNeedsIndex {
                    path: path.to_string(),
                    prefix: prefix(),
                });
            };
            let len = a.len();
            let Some(slot) = a.get_mut(idx) else {
                return Err(KeyPathError::OutOfRange {
                    path: path.to_string(),
                    prefix: prefix(),
                    index: idx,
                    len,
                });
            };
            if i + 1 == segs.len() {
                *slot = value;
                Ok(())
            } else {
                set_in_value(slot, segs, i + 1, path, value)
            }
        }
        other => Err(KeyPathError::NotContainer {
            path: path.to_string(),
            prefix: prefix(),
            found: other.type_str(),
        }),
    }
}

/// Applies a table of overrides to `base`. Each key is a dotted path;
/// a table value is merged key by key (so `transport = { kind = "tcp" }`
/// and `"transport.kind" = "tcp"` mean the same and keep the other keys of
/// `transport`); any other value, arrays included, replaces what is there.
pub fn apply_overrides(base: &mut Table, overrides: &Table) -> Result<(), KeyPathError> {
    for (k, v) in overrides {
        apply_one(base, k, v)?;
    }
    Ok(())
}

fn apply_one(base: &mut Table, path: &str, v: &Value) -> Result<(), KeyPathError> {
    match v {
        Value::Table(t) if !t.is_empty() => {
            for (k2, v2) in t {
                let p = format!("{path}.{k2}");
                check_depth(&p, p.split('.').count())?;
                apply_one(base, &p, v2)?;
            }
            Ok(())
        }
        _ => set(base, path, v.clone()),
    }
}

/// The key path of a value nested `path.len()` tables deep, checked
/// before it is built (a deep override would otherwise build ever longer
/// paths first).
fn check_depth(path: &str, depth: usize) -> Result<(), KeyPathError> {
    if depth > MAX_SEGMENTS {
        return Err(KeyPathError::TooLong {
            start: path.chars().take(40).collect(),
            segments: depth,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Table {
        toml::from_str(
            r#"
            name = "x"
            [transport]
            kind = "msctp"
            rto_min_ms = 20
            [[flows]]
            name = "a"
            [flows.policy]
            add_ip = "aggressive"
            [[flows]]
            name = "b"
            "#,
        )
        .unwrap()
    }

    #[test]
    fn get_and_set_through_tables_and_arrays() {
        let mut t = base();
        assert_eq!(get(&t, "transport.kind").unwrap().as_str(), Some("msctp"));
        assert_eq!(get(&t, "flows.1.name").unwrap().as_str(), Some("b"));
        assert!(get(&t, "flows.2.name").is_none());
        assert!(get(&t, "transport.nothing").is_none());
        set(&mut t, "flows.0.policy.add_ip", Value::from("conservative")).unwrap();
        assert_eq!(
            get(&t, "flows.0.policy.add_ip").unwrap().as_str(),
            Some("conservative")
        );
        set(&mut t, "new.deep.key", Value::from(3)).unwrap();
        assert_eq!(get(&t, "new.deep.key").unwrap().as_integer(), Some(3));
        set(&mut t, "flows.1", Value::from("replaced")).unwrap();
        assert_eq!(get(&t, "flows.1").unwrap().as_str(), Some("replaced"));
    }

    #[test]
    fn bad_paths_are_named() {
        let mut t = base();
        let e = set(&mut t, "name.sub", Value::from(1)).unwrap_err();
        assert!(e.to_string().contains("`name` is string"), "{e}");
        let e = set(&mut t, "flows.5.name", Value::from(1)).unwrap_err();
        assert!(e.to_string().contains("index 5"), "{e}");
        let e = set(&mut t, "flows.name", Value::from(1)).unwrap_err();
        assert!(matches!(e, KeyPathError::ArrayNeedsIndex { .. }), "{e}");
        assert!(matches!(
            set(&mut t, "a..b", Value::from(1)),
            Err(KeyPathError::Empty(_))
        ));
        assert!(matches!(
            set(&mut t, "", Value::from(1)),
            Err(KeyPathError::Empty(_))
        ));
    }

    /// Issue 31, finding 10: an override key of 50 000 segments made
    /// 50 000 nested tables (and overflowed the stack dropping them).
    #[test]
    fn key_paths_have_at_most_max_segments() {
        let mut t = base();
        let long = vec!["a"; 50_000].join(".");
        let e = set(&mut t, &long, Value::from(1)).unwrap_err();
        assert!(
            e.to_string().contains("has 50000 segments (at most 64)"),
            "{e}"
        );
        let mut o = Table::new();
        o.insert(long, Value::from(1));
        assert!(matches!(
            apply_overrides(&mut t, &o),
            Err(KeyPathError::TooLong { .. })
        ));
        // Nested tables count their keys' segments too.
        let mut deep = Value::from(1);
        for _ in 0..100 {
            let mut inner = Table::new();
            inner.insert("b".into(), deep);
            deep = Value::Table(inner);
        }
        let mut o = Table::new();
        o.insert("a".into(), deep);
        assert!(matches!(
            apply_overrides(&mut t, &o),
            Err(KeyPathError::TooLong { .. })
        ));
        let ok = vec!["a"; MAX_SEGMENTS].join(".");
        set(&mut t, &ok, Value::from(1)).unwrap();
    }

    #[test]
    fn overrides_merge_tables() {
        let mut t = base();
        let o: Table = toml::from_str(
            r#"
            "transport.kind" = "mip-tcp"
            transport = { rto_min_ms = 200 }
            "flows.0.policy" = { primary = "conservative" }
            "#,
        )
        .unwrap();
        apply_overrides(&mut t, &o).unwrap();
        assert_eq!(get(&t, "transport.kind").unwrap().as_str(), Some("mip-tcp"));
        assert_eq!(
            get(&t, "transport.rto_min_ms").unwrap().as_integer(),
            Some(200)
        );
        assert_eq!(
            get(&t, "flows.0.policy.add_ip").unwrap().as_str(),
            Some("aggressive")
        );
        assert_eq!(
            get(&t, "flows.0.policy.primary").unwrap().as_str(),
            Some("conservative")
        );
    }
}
