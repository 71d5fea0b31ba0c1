//! Why a scenario cannot run, and the vocabulary of the checks that say so:
//! ranges of the file's numbers (each message names the key and the
//! allowed range), unique names, addresses with prefix lengths.
//!
//! The numbers checked here are the ones the file converts (a duration in
//! milliseconds must be finite and fit a `Duration`) and the scenario's own
//! bounds (limits, outputs); what a model's configuration means is checked
//! by the model's own `validate`, whose message is given under the key of
//! the file (see the tables of [`crate::scenario::spec`], which check
//! their own values and build their models).

use ipnet::IpNet;

/// Why a scenario cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScenarioError {
    /// TOML syntax, an unknown key or a value of the wrong type (the
    /// message names the key and the line).
    #[error("scenario file: {0}")]
    Parse(String),
    /// A value outside its allowed range.
    #[error("{key} = {value}: {allowed}")]
    Range {
        key: String,
        value: String,
        allowed: String,
    },
    /// A name that refers to nothing, or is used twice.
    #[error("{key}: {why}")]
    Reference { key: String, why: String },
    /// The model refused what the scenario asks (a message from the
    /// simulator or the engine).
    #[error("{key}: {why}")]
    Model { key: String, why: String },
}

impl ScenarioError {
    pub(crate) fn model(key: impl Into<String>, why: impl ToString) -> Self {
        ScenarioError::Model {
            key: key.into(),
            why: why.to_string(),
        }
    }

    pub(crate) fn reference(key: impl Into<String>, why: impl Into<String>) -> Self {
        ScenarioError::Reference {
            key: key.into(),
            why: why.into(),
        }
    }

    /// A value the file may not combine with others (another transport's
    /// table, a traffic kind the transport cannot carry, ...).
    pub(crate) fn combination(key: impl Into<String>, why: impl Into<String>) -> Self {
        ScenarioError::reference(key, why)
    }

    /// A model's setting out of range, under the key of its table
    /// (`flows[up].cmhn`).
    pub(crate) fn setting(table: &str, e: crate::models::settings::SettingError) -> Self {
        ScenarioError::Range {
            key: format!("{table}.{}", e.key),
            value: e.value,
            allowed: e.allowed,
        }
    }

    /// A value outside a range the message states.
    pub(crate) fn range(
        key: impl Into<String>,
        value: impl ToString,
        allowed: impl Into<String>,
    ) -> Self {
        ScenarioError::Range {
            key: key.into(),
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }
}

/// Longest duration in milliseconds (1000 hours).
pub(crate) const MAX_MS: f64 = 3.6e9;
/// Longest time in seconds.
pub(crate) const MAX_S: f64 = 1e7;
/// Fastest rate, bit/s.
pub(crate) const MAX_RATE: u64 = 1_000_000_000_000;
/// Longest queue, packets.
pub(crate) const MAX_QUEUE: u64 = 10_000_000;

/// `v` in `[lo, hi]` and finite.
pub(crate) fn range_f(key: &str, v: f64, lo: f64, hi: f64) -> Result<(), ScenarioError> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(ScenarioError::range(
            key,
            v,
            format!("must be a number in [{lo}, {hi}]"),
        ))
    }
}

/// `v` in `(0, hi]` and finite.
pub(crate) fn positive_f(key: &str, v: f64, hi: f64) -> Result<(), ScenarioError> {
    if v.is_finite() && v > 0.0 && v <= hi {
        Ok(())
    } else {
        Err(ScenarioError::range(
            key,
            v,
            format!("must be a number in (0, {hi}]"),
        ))
    }
}

/// `v` in `[lo, hi]`.
pub(crate) fn range_u(key: &str, v: u64, lo: u64, hi: u64) -> Result<(), ScenarioError> {
    if v >= lo && v <= hi {
        Ok(())
    } else {
        Err(ScenarioError::range(
            key,
            v,
            format!("must be an integer in [{lo}, {hi}]"),
        ))
    }
}

/// A duration in milliseconds the file gives: finite, in `[0, MAX_MS]`.
pub(crate) fn duration_ms(key: &str, v: f64) -> Result<(), ScenarioError> {
    range_f(key, v, 0.0, MAX_MS)
}

/// An address with prefix length, e.g. "10.1.0.254/24".
pub(crate) fn net(key: &str, v: &str) -> Result<IpNet, ScenarioError> {
    v.parse::<IpNet>().map_err(|_| {
        ScenarioError::range(
            key,
            format!("{v:?}"),
            "must be an address with prefix length, e.g. \"10.1.0.254/24\"",
        )
    })
}

/// Names of one list: none empty, none twice.
pub(crate) fn unique<'a>(
    key: &str,
    names: impl Iterator<Item = &'a str>,
) -> Result<(), ScenarioError> {
    let mut seen: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
    for n in names {
        if n.is_empty() {
            return Err(ScenarioError::reference(key, "empty name"));
        }
        if !seen.insert(n) {
            return Err(ScenarioError::reference(
                key,
                format!("name {n:?} used twice"),
            ));
        }
    }
    Ok(())
}
