//! msctp-time: time as the msctp engines see it, a point on the caller's
//! monotonic clock in integer nanoseconds. The simulator passes virtual
//! time, the real-network driver the nanoseconds elapsed since it
//! started. Integer nanoseconds make every computation exact and
//! reproducible.
//!
//! A crate of its own so that every engine (the SCTP engine, the TCP
//! model) and the simulator share the one type without depending on each
//! other.

#[cfg(feature = "serde")]
pub mod units;

use std::fmt;
use std::ops::{Add, AddAssign, Sub};
use std::time::Duration;

/// A point in time, in nanoseconds since an arbitrary epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time(u64);

impl Time {
    /// The epoch.
    pub const ZERO: Time = Time(0);
    /// The largest representable time (about 584 years).
    pub const MAX: Time = Time(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Time {
        Time(ns)
    }
    pub const fn from_micros(us: u64) -> Time {
        Time(us.saturating_mul(1_000))
    }
    pub const fn from_millis(ms: u64) -> Time {
        Time(ms.saturating_mul(1_000_000))
    }
    pub const fn from_secs(s: u64) -> Time {
        Time(s.saturating_mul(1_000_000_000))
    }
    /// Seconds as a float, rounded to the nearest nanosecond; negative or
    /// non-finite input gives zero, too large input saturates.
    pub fn from_secs_f64(s: f64) -> Time {
        if !s.is_finite() || s <= 0.0 {
            return Time::ZERO;
        }
        let ns = (s * 1e9).round();
        if ns >= u64::MAX as f64 {
            Time::MAX
        } else {
            Time(ns as u64)
        }
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// Time elapsed since `earlier`, zero if `earlier` is later.
    pub fn saturating_since(self, earlier: Time) -> Duration {
        Duration::from_nanos(self.0.saturating_sub(earlier.0))
    }
    pub fn checked_since(self, earlier: Time) -> Option<Duration> {
        self.0.checked_sub(earlier.0).map(Duration::from_nanos)
    }
}

fn duration_nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl Add<Duration> for Time {
    type Output = Time;
    /// Saturating: a deadline past the end of time stays at [`Time::MAX`].
    fn add(self, d: Duration) -> Time {
        Time(self.0.saturating_add(duration_nanos(d)))
    }
}

impl AddAssign<Duration> for Time {
    fn add_assign(&mut self, d: Duration) {
        *self = *self + d;
    }
}

impl Sub<Duration> for Time {
    type Output = Time;
    /// Saturating at [`Time::ZERO`].
    fn sub(self, d: Duration) -> Time {
        Time(self.0.saturating_sub(duration_nanos(d)))
    }
}

impl Sub<Time> for Time {
    type Output = Duration;
    /// Saturating at zero, like [`Time::saturating_since`].
    fn sub(self, earlier: Time) -> Duration {
        self.saturating_since(earlier)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{:09}s",
            self.0 / 1_000_000_000,
            self.0 % 1_000_000_000
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_is_exact_and_saturating() {
        let t = Time::from_millis(1500);
        assert_eq!(t.as_nanos(), 1_500_000_000);
        assert_eq!(
            t + Duration::from_micros(1),
            Time::from_nanos(1_500_001_000)
        );
        assert_eq!(Time::MAX + Duration::from_secs(1), Time::MAX);
        assert_eq!(Time::ZERO - Duration::from_secs(1), Time::ZERO);
        assert_eq!(Time::from_secs(1) - Time::from_secs(3), Duration::ZERO);
        assert_eq!(
            Time::from_secs(3) - Time::from_secs(1),
            Duration::from_secs(2)
        );
        assert_eq!(Time::from_secs_f64(0.0000000015), Time::from_nanos(2));
        assert_eq!(Time::from_secs_f64(-1.0), Time::ZERO);
        assert_eq!(Time::from_secs_f64(f64::NAN), Time::ZERO);
        assert_eq!(Time::from_secs_f64(1e300), Time::MAX);
        assert_eq!(format!("{}", Time::from_millis(2001)), "2.001000000s");
    }
}
