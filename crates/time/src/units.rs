//! Unit adapters of the configurations' serde form (feature `serde`; the
//! SCTP engine's `AssociationConfig`, the TCP model's `TcpConfig`): a
//! file gives durations as milliseconds (keys ending in `_ms`, a finite
//! number, fractions allowed) and turns an optional limit off with 0, so
//! that every key of a configuration file is a plain number.

use std::time::Duration;

use serde::{Deserialize, Deserializer, Serializer, de::Error};

/// Longest duration a file may give: 1000 hours (3.6e9 ms).
pub const MAX_MS: f64 = 3.6e9;

fn duration_of<'de, D: Deserializer<'de>>(v: f64) -> Result<Duration, D::Error> {
    if !v.is_finite() || !(0.0..=MAX_MS).contains(&v) {
        return Err(D::Error::custom(format!(
            "{v} ms: a duration must be a finite number of milliseconds between 0 and {MAX_MS}"
        )));
    }
    Ok(Duration::from_secs_f64(v / 1000.0))
}

fn ms_of(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A [`Duration`] as milliseconds.
pub mod ms {
    use super::*;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(ms_of(*d))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        duration_of::<D>(f64::deserialize(d)?)
    }
}

/// An optional [`Duration`] as milliseconds, 0 meaning `None` (off).
pub mod ms_zero_off {
    use super::*;

    pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.map_or(0.0, ms_of))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        let v = f64::deserialize(d)?;
        if v == 0.0 {
            return Ok(None);
        }
        duration_of::<D>(v).map(Some)
    }
}

/// An optional [`Duration`] as milliseconds, absent meaning `None` (the
/// field also needs `default` and `skip_serializing_if = "Option::is_none"`).
pub mod opt_ms {
    use super::*;

    pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_some(&ms_of(*d)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        duration_of::<D>(f64::deserialize(d)?).map(Some)
    }
}

/// An optional count, 0 meaning `None` (no limit).
pub mod zero_off {
    use super::*;

    pub fn serialize<S: Serializer>(v: &Option<u32>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(v.unwrap_or(0))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
        let v = u32::deserialize(d)?;
        Ok((v > 0).then_some(v))
    }
}

/// A [`Duration`] as seconds (keys ending in `_s`), at most
/// [`MAX_MS`] / 1000.
pub mod s {
    use super::*;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let v = f64::deserialize(d)?;
        if !v.is_finite() || !(0.0..=MAX_MS / 1000.0).contains(&v) {
            return Err(D::Error::custom(format!(
                "{v} s: a duration must be a finite number of seconds between 0 and {}",
                MAX_MS / 1000.0
            )));
        }
        Ok(Duration::from_secs_f64(v))
    }
}

#[cfg(test)]
mod tests {
    use serde::de::IntoDeserializer;
    use serde::de::value::Error;

    use super::*;

    #[test]
    fn seconds_are_read_as_a_duration_within_bounds() {
        let read = |v: f64| s::deserialize(IntoDeserializer::<Error>::into_deserializer(v));
        assert_eq!(read(30.0).unwrap(), Duration::from_secs(30));
        assert_eq!(read(0.5).unwrap(), Duration::from_millis(500));
        for bad in [-1.0, f64::NAN, f64::INFINITY, MAX_MS / 1000.0 + 1.0] {
            let e = read(bad).unwrap_err().to_string();
            assert!(e.contains("finite number of seconds"), "{e}");
        }
    }
}
