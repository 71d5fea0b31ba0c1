//! Axis values: TOML scalars used as sweep coordinates, compared so that
//! `3` and `3.0` are the same point.

use toml::Value;

/// Whether `v` can be an axis value (string, integer, float, boolean).
pub fn is_scalar(v: &Value) -> bool {
    matches!(
        v,
        Value::String(_) | Value::Integer(_) | Value::Float(_) | Value::Boolean(_)
    )
}

/// The value as a number, for numeric axes.
pub fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Integer(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// Equality of axis values: numbers by value, others exactly.
pub fn same(a: &Value, b: &Value) -> bool {
    match (as_number(a), as_number(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// How a value is shown in labels, CSV cells and file names (strings
/// without quotes, numbers in their shortest form).
pub fn label(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Integer(i) => i.to_string(),
        Value::Float(f) => format!("{f}"),
        Value::Boolean(b) => b.to_string(),
        other => other.to_string(),
    }
}

/// The canonical form hashed into seeds: typed, so the string "3" and
/// the number 3 differ, while 3 and 3.0 agree.
pub fn canonical(v: &Value) -> String {
    match v {
        Value::String(s) => format!("s:{s}"),
        Value::Boolean(b) => format!("b:{b}"),
        other => match as_number(other) {
            Some(x) => format!("n:{x}"),
            None => format!("v:{other}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_compare_by_value() {
        assert!(same(&Value::Integer(3), &Value::Float(3.0)));
        assert!(!same(&Value::Integer(3), &Value::String("3".into())));
        assert_eq!(canonical(&Value::Integer(3)), canonical(&Value::Float(3.0)));
        assert_ne!(
            canonical(&Value::Integer(3)),
            canonical(&Value::String("3".into()))
        );
        assert_eq!(label(&Value::String("mip-tcp".into())), "mip-tcp");
        assert_eq!(label(&Value::Float(0.5)), "0.5");
        assert!(!is_scalar(&Value::Array(vec![])));
    }
}
