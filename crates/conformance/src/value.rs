//! The generic value tree the parser builds before giving it meaning:
//! packet fields (`tsn=3`, `gaps=[2:2]`, `PARAMETER[...]`) and system-call
//! arguments (`{srto_initial=100}`, `O_RDWR | O_NONBLOCK`) share it.

use std::net::IpAddr;

use crate::error::ParseError;

/// One value as written in the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// `...`: anything.
    Any,
    /// A number, name, address or gap block, as written.
    Word(String),
    Str(String),
    /// `[a, b, c]`
    List(Vec<Value>),
    /// `{name=value, ...}`
    Struct(Vec<(String, Value)>),
    /// `NAME[items]`: a chunk, parameter or error cause.
    Spec(String, Vec<Item>),
    /// `a | b | c`
    Or(Vec<Value>),
    /// `-value`
    Neg(Box<Value>),
    /// `name(args)`, e.g. `htons(8080)`.
    Call(String, Vec<Value>),
}

/// An item inside `NAME[...]`: `name=value`, or a bare value (`...` or a
/// nested spec).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Assign(String, Value),
    Bare(Value),
}

impl Value {
    /// A short rendering for error messages.
    pub fn describe(&self) -> String {
        match self {
            Value::Any => "...".into(),
            Value::Word(w) => w.clone(),
            Value::Str(s) => format!("\"{s}\""),
            Value::List(l) => format!(
                "[{}]",
                l.iter()
                    .map(|v| v.describe())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Value::Struct(f) => format!(
                "{{{}}}",
                f.iter()
                    .map(|(n, v)| if n.is_empty() {
                        v.describe()
                    } else {
                        format!("{n}={}", v.describe())
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Value::Spec(n, items) => format!("{n}[{} items]", items.len()),
            Value::Or(v) => v
                .iter()
                .map(|v| v.describe())
                .collect::<Vec<_>>()
                .join(" | "),
            Value::Neg(v) => format!("-{}", v.describe()),
            Value::Call(n, a) => format!(
                "{n}({})",
                a.iter()
                    .map(|v| v.describe())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// Reads an unsigned integer: decimal or `0x` hexadecimal.
pub fn parse_uint(word: &str) -> Option<u64> {
    if let Some(hex) = word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()) {
        word.parse().ok()
    } else {
        None
    }
}

/// Reads a decimal number of seconds (`0.1`, `65`, `1.000001`) as
/// nanoseconds, exactly (no floating point).
pub fn parse_seconds(word: &str) -> Option<u64> {
    let (int, frac) = match word.split_once('.') {
        Some((i, f)) => (i, f),
        None => (word, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if frac.len() > 9 {
        return None;
    }
    let secs: u64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let mut nanos: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    for _ in frac.len()..9 {
        nanos *= 10;
    }
    secs.checked_mul(1_000_000_000)?.checked_add(nanos)
}

/// Helpers to read a value of a given shape, with the line for errors.
pub struct Reader {
    pub line: usize,
}

impl Reader {
    pub fn err(&self, msg: impl Into<String>) -> ParseError {
        ParseError::new(self.line, msg)
    }

    pub fn uint(&self, v: &Value, what: &str, max: u64) -> Result<u64, ParseError> {
        match v {
            Value::Word(w) => match parse_uint(w) {
                Some(n) if n <= max => Ok(n),
                Some(_) => Err(self.err(format!("{what}: {w} is out of range"))),
                None => Err(self.err(format!("{what}: expected a number, found {w}"))),
            },
            other => Err(self.err(format!(
                "{what}: expected a number, found {}",
                other.describe()
            ))),
        }
    }

    pub fn ip(&self, v: &Value, what: &str) -> Result<IpAddr, ParseError> {
        match v {
            Value::Word(w) | Value::Str(w) => w
                .parse()
                .map_err(|_| self.err(format!("{what}: {w} is not an IP address"))),
            Value::Call(name, args) if name == "inet_addr" || name == "inet6_addr" => {
                match args.as_slice() {
                    [a] => self.ip(a, what),
                    _ => Err(self.err(format!("{what}: {name} takes one address"))),
                }
            }
            other => Err(self.err(format!(
                "{what}: expected an IP address, found {}",
                other.describe()
            ))),
        }
    }

    /// A byte list `[0x01, 2, ...]`.
    pub fn bytes(&self, v: &Value, what: &str) -> Result<Vec<u8>, ParseError> {
        match v {
            Value::List(items) => items
                .iter()
                .map(|i| self.uint(i, what, 0xff).map(|b| b as u8))
                .collect(),
            Value::Str(s) => Ok(s.as_bytes().to_vec()),
            other => Err(self.err(format!(
                "{what}: expected a byte list, found {}",
                other.describe()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_seconds() {
        assert_eq!(parse_uint("0x02"), Some(2));
        assert_eq!(parse_uint("0xC0CC"), Some(0xc0cc));
        assert_eq!(parse_uint("176"), Some(176));
        assert_eq!(parse_uint("1.5"), None);
        assert_eq!(parse_uint(""), None);
        assert_eq!(parse_seconds("0.1"), Some(100_000_000));
        assert_eq!(parse_seconds("65.0"), Some(65_000_000_000));
        assert_eq!(parse_seconds("1"), Some(1_000_000_000));
        assert_eq!(parse_seconds(".5"), Some(500_000_000));
        assert_eq!(parse_seconds("0.000001"), Some(1_000));
        assert_eq!(parse_seconds("0.0000000001"), None);
        assert_eq!(parse_seconds("1.2.3"), None);
        assert_eq!(parse_seconds("x"), None);
        assert_eq!(parse_seconds("."), None);
    }
}
