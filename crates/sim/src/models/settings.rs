//! The vocabulary of the models' settings (the part of a model's
//! configuration a scenario file gives, one serde struct per model: field
//! names are the file's keys, durations `_ms` or `_s` through
//! `msctp_proto::config::units`): the error of a `validate` that names
//! the key, and the range checks that make it.
//!
//! A key is named relative to the model's table (`probe_ms`,
//! `networks.umts.ppp_ms`); the scenario puts the table's own path in
//! front (`flows[up].cmhn.probe_ms`).

use std::time::Duration;

/// Longest duration a setting may hold, in milliseconds (1000 hours, as
/// `msctp_proto::config::units::MAX_MS`).
pub const MAX_MS: f64 = 3.6e9;

/// A setting outside its allowed range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key} = {value}: {allowed}")]
pub struct SettingError {
    /// The key, relative to the model's table.
    pub key: String,
    pub value: String,
    pub allowed: String,
}

impl SettingError {
    pub fn new(key: impl Into<String>, value: impl ToString, allowed: impl Into<String>) -> Self {
        SettingError {
            key: key.into(),
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }

    /// The same error under a table `prefix` (`networks.umts`).
    pub fn under(mut self, prefix: &str) -> Self {
        self.key = format!("{prefix}.{}", self.key);
        self
    }
}

/// `v` in `[lo, hi]` and finite.
pub fn range_f(key: &str, v: f64, lo: f64, hi: f64) -> Result<(), SettingError> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(SettingError::new(
            key,
            v,
            format!("must be a number in [{lo}, {hi}]"),
        ))
    }
}

/// `v` in `(0, hi]` and finite.
pub fn positive_f(key: &str, v: f64, hi: f64) -> Result<(), SettingError> {
    if v.is_finite() && v > 0.0 && v <= hi {
        Ok(())
    } else {
        Err(SettingError::new(
            key,
            v,
            format!("must be a number in (0, {hi}]"),
        ))
    }
}

/// `v` in `[lo, hi]`.
pub fn range_u(key: &str, v: u64, lo: u64, hi: u64) -> Result<(), SettingError> {
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(SettingError::new(
            key,
            v,
            format!("must be an integer in [{lo}, {hi}]"),
        ))
    }
}

/// A duration in milliseconds, as the file gives it.
pub fn ms_of(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A duration that must not be zero (at most [`MAX_MS`]).
pub fn positive_ms(key: &str, d: Duration) -> Result<(), SettingError> {
    positive_f(key, ms_of(d), MAX_MS)
}

/// A duration of at most [`MAX_MS`] (zero allowed).
pub fn at_most_ms(key: &str, d: Duration) -> Result<(), SettingError> {
    range_f(key, ms_of(d), 0.0, MAX_MS)
}

/// The keys a settings struct accepts in a file: the field names serde
/// derived for it (as renamed), without a value of it. For tests that
/// check every key of a model's settings reaches the model (here and in
/// `tests/scenario_settings.rs`).
pub fn field_names<T: serde::de::DeserializeOwned>() -> Vec<&'static str> {
    let mut names = Vec::new();
    let _ = T::deserialize(FieldNames(&mut names));
    names
}

/// A deserializer that records the field names of the struct asked
/// for.
struct FieldNames<'a>(&'a mut Vec<&'static str>);

impl<'de> serde::Deserializer<'de> for FieldNames<'_> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.extend(fields);
        Err(serde::de::Error::custom("names recorded"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map
        enum identifier ignored_any
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use serde::Serialize;
    use serde::de::DeserializeOwned;

    use super::*;

    /// Each key of settings `T`, set to another value than its default,
    /// changes what `view` shows of the configurations made from them
    /// (a setting that reaches no agent fails).
    pub(crate) fn every_key_changes<T>(view: fn(&T) -> String)
    where
        T: DeserializeOwned + Serialize + Default,
    {
        let names = field_names::<T>();
        assert!(!names.is_empty());
        let defaults = match toml::Value::try_from(T::default()).unwrap() {
            toml::Value::Table(t) => t,
            other => panic!("{other:?}"),
        };
        let base = view(&T::default());
        for name in names {
            let other = match defaults.get(name) {
                Some(toml::Value::Boolean(b)) => toml::Value::Boolean(!b),
                Some(toml::Value::Integer(i)) => toml::Value::Integer(i + 1),
                Some(toml::Value::Float(f)) => toml::Value::Float(f + 1.0),
                Some(v) => panic!("{name}: no other value for {v:?}"),
                None => toml::Value::Float(1.0),
            };
            let mut t = toml::Table::new();
            t.insert(name.to_string(), other.clone());
            let s: T = toml::Value::Table(t)
                .try_into()
                .unwrap_or_else(|e| panic!("{name} = {other}: {e}"));
            assert_ne!(view(&s), base, "{name} = {other} reaches no agent");
        }
    }

    #[test]
    fn an_error_names_its_key_under_the_table() {
        let e = positive_ms("probe_ms", Duration::ZERO)
            .unwrap_err()
            .under("cmhn");
        assert_eq!(e.key, "cmhn.probe_ms");
        assert_eq!(
            e.to_string(),
            "cmhn.probe_ms = 0: must be a number in (0, 3600000000]"
        );
        assert!(at_most_ms("x_ms", Duration::from_secs(3_600_000)).is_ok());
        assert!(range_u("n", 0, 1, 2).is_err());
    }
}
