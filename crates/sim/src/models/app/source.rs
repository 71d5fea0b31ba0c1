//! What the application above a reliable transport (SCTP or TCP) wants to
//! send: the traffic of the studies (greedy FTP, a file of N bytes, CBR,
//! Pareto ON/OFF), as a sequence of messages the transport agent takes
//! when its send buffer has room. One definition serves every transport,
//! so mSCTP and the baselines carry exactly the same offered load.

use std::time::Duration;

use rand::Rng;
use rand_distr::{Distribution, Pareto};

use super::AppConfigError;
use crate::Time;

/// The traffic pattern.
#[derive(Debug, Clone, PartialEq)]
pub enum Traffic {
    /// Greedy (FTP bulk): always has data; messages of `message_bytes`.
    Bulk { message_bytes: usize },
    /// A file of `bytes`, then nothing (file delivery time).
    File { bytes: u64, message_bytes: usize },
    /// One message of `message_bytes` every `message_bytes * 8 / rate_bps`.
    Cbr { message_bytes: usize, rate_bps: u64 },
    /// Pareto ON/OFF (ns-2 semantics): CBR at `rate_bps` during ON periods
    /// of mean `mean_on`, silent during OFF periods of mean `mean_off`,
    /// both Pareto-distributed with `shape`.
    Pareto {
        message_bytes: usize,
        rate_bps: u64,
        mean_on: Duration,
        mean_off: Duration,
        shape: f64,
    },
}

/// A traffic source in time.
#[derive(Debug, Clone)]
pub struct Source {
    traffic: Traffic,
    start: Time,
    stop: Option<Time>,
    /// Bytes handed to the transport so far.
    produced: u64,
    /// Next message due (CBR, Pareto).
    next_at: Time,
    /// Pareto: messages left in the current burst (0: a new burst, after
    /// an OFF period, is drawn when the next message is due).
    burst_left: u64,
}

impl Source {
    pub fn new(traffic: Traffic, start: Time, stop: Option<Time>) -> Result<Self, AppConfigError> {
        let size = match &traffic {
            Traffic::Bulk { message_bytes } | Traffic::File { message_bytes, .. } => *message_bytes,
            Traffic::Cbr {
                message_bytes,
                rate_bps,
            } => {
                if *rate_bps == 0 {
                    return Err(AppConfigError::NotPositive("rate_bps"));
                }
                *message_bytes
            }
            Traffic::Pareto {
                message_bytes,
                rate_bps,
                mean_on,
                mean_off,
                shape,
            } => {
                if *rate_bps == 0 {
                    return Err(AppConfigError::NotPositive("rate_bps"));
                }
                if mean_on.is_zero() || mean_off.is_zero() {
                    return Err(AppConfigError::NotPositive("mean_on/mean_off"));
                }
                if *shape <= 1.0 || !shape.is_finite() {
                    return Err(AppConfigError::BadShape(*shape));
                }
                *message_bytes
            }
        };
        if size == 0 {
            return Err(AppConfigError::NotPositive("message_bytes"));
        }
        Ok(Source {
            traffic,
            start,
            stop,
            produced: 0,
            next_at: start,
            burst_left: 0,
        })
    }

    pub fn traffic(&self) -> &Traffic {
        &self.traffic
    }

    /// Bytes handed to the transport so far.
    pub fn produced(&self) -> u64 {
        self.produced
    }

    /// A file source that has handed over its whole file, or a source past
    /// its stop time.
    pub fn finished(&self, now: Time) -> bool {
        if self.stop.is_some_and(|s| now >= s) {
            return true;
        }
        matches!(self.traffic, Traffic::File { bytes, .. } if self.produced >= bytes)
    }

    /// Messages (their sizes) the application writes at `now` into a send
    /// buffer with `room` free bytes. Greedy and file sources fill the room;
    /// timed sources write what is due (a message that does not fit waits:
    /// the application blocks, it does not drop).
    pub fn take<R: Rng + ?Sized>(&mut self, now: Time, room: usize, rng: &mut R) -> Vec<usize> {
        let mut out = Vec::new();
        if now < self.start || self.finished(now) {
            return out;
        }
        let mut room = room;
        match self.traffic.clone() {
            Traffic::Bulk { message_bytes } => {
                while room >= message_bytes {
                    out.push(message_bytes);
                    room -= message_bytes;
                }
            }
            Traffic::File {
                bytes,
                message_bytes,
            } => {
                let mut taken = self.produced;
                while taken < bytes {
                    let m = (message_bytes as u64).min(bytes - taken) as usize;
                    if m > room {
                        break;
                    }
                    out.push(m);
                    room -= m;
                    taken += m as u64;
                }
            }
            Traffic::Cbr {
                message_bytes,
                rate_bps,
            } => {
                let gap = interval(message_bytes, rate_bps);
                while self.next_at <= now
                    && room >= message_bytes
                    && self.stop.is_none_or(|s| self.next_at < s)
                {
                    out.push(message_bytes);
                    room -= message_bytes;
                    self.next_at += gap;
                }
            }
            Traffic::Pareto {
                message_bytes,
                rate_bps,
                mean_on,
                mean_off,
                shape,
            } => {
                // As ns-2's POO_Traffic: a burst of max(1, round(B)) messages
                // at the peak rate, B Pareto-distributed with mean
                // mean_on / interval; then an idle gap of one interval plus
                // a Pareto OFF time.
                let gap = interval(message_bytes, rate_bps);
                while self.next_at <= now
                    && room >= message_bytes
                    && self.stop.is_none_or(|s| self.next_at < s)
                {
                    if self.burst_left == 0 {
                        let mean_burst = mean_on.as_secs_f64() / gap.as_secs_f64().max(1e-12);
                        let b = pareto_value(mean_burst, shape, rng).round().max(1.0);
                        self.burst_left = b.min(1e9) as u64;
                    }
                    out.push(message_bytes);
                    room -= message_bytes;
                    self.burst_left -= 1;
                    self.next_at += gap;
                    if self.burst_left == 0 {
                        let off = pareto_value(mean_off.as_secs_f64(), shape, rng).min(1e6);
                        self.next_at += Duration::from_secs_f64(off);
                    }
                }
            }
        }
        self.produced += out.iter().map(|&m| m as u64).sum::<u64>();
        out
    }

    /// When the source next has data regardless of buffer room (timed
    /// sources); `None` for greedy and file sources (they are limited by
    /// the buffer only) and once finished.
    pub fn next_due(&self, now: Time) -> Option<Time> {
        if self.finished(now) {
            return None;
        }
        match self.traffic {
            Traffic::Bulk { .. } | Traffic::File { .. } => (now < self.start).then_some(self.start),
            Traffic::Cbr { .. } | Traffic::Pareto { .. } => Some(self.next_at.max(self.start)),
        }
    }
}

fn interval(bytes: usize, rate_bps: u64) -> Duration {
    Duration::from_nanos(((bytes as u128 * 8 * 1_000_000_000) / rate_bps as u128) as u64)
}

/// A Pareto-distributed value with the given mean (scale = mean *
/// (shape - 1) / shape).
fn pareto_value<R: Rng + ?Sized>(mean: f64, shape: f64, rng: &mut R) -> f64 {
    let scale = mean * (shape - 1.0) / shape;
    Pareto::new(scale, shape)
        .map(|p| p.sample(rng))
        .unwrap_or(mean)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha8Rng;
    use rand_core::SeedableRng;

    #[test]
    fn bulk_fills_the_room() {
        let mut s = Source::new(
            Traffic::Bulk {
                message_bytes: 1000,
            },
            Time::ZERO,
            None,
        )
        .unwrap();
        let mut r = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(s.take(Time::ZERO, 3500, &mut r), vec![1000; 3]);
        assert_eq!(s.produced(), 3000);
        assert_eq!(s.next_due(Time::ZERO), None);
    }

    #[test]
    fn file_stops_at_its_size() {
        let mut s = Source::new(
            Traffic::File {
                bytes: 2500,
                message_bytes: 1000,
            },
            Time::ZERO,
            None,
        )
        .unwrap();
        let mut r = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(s.take(Time::ZERO, 10_000, &mut r), vec![1000, 1000, 500]);
        assert!(s.finished(Time::ZERO));
        assert!(s.take(Time::ZERO, 10_000, &mut r).is_empty());
    }

    #[test]
    fn cbr_is_paced_and_blocks_without_room() {
        let mut s = Source::new(
            Traffic::Cbr {
                message_bytes: 200,
                rate_bps: 16_000,
            },
            Time::from_secs(1),
            None,
        )
        .unwrap();
        let mut r = ChaCha8Rng::seed_from_u64(1);
        assert!(s.take(Time::ZERO, 10_000, &mut r).is_empty());
        assert_eq!(s.next_due(Time::ZERO), Some(Time::from_secs(1)));
        // One message every 100 ms.
        assert_eq!(s.take(Time::from_millis(1250), 10_000, &mut r).len(), 3);
        assert_eq!(
            s.next_due(Time::from_millis(1250)),
            Some(Time::from_millis(1300))
        );
        assert!(
            s.take(Time::from_millis(1400), 100, &mut r).is_empty(),
            "no room: it waits"
        );
        assert_eq!(s.take(Time::from_millis(1400), 1000, &mut r).len(), 2);
    }

    #[test]
    fn pareto_long_run_rate_is_on_fraction_of_peak() {
        let traffic = Traffic::Pareto {
            message_bytes: 200,
            rate_bps: 24_000,
            mean_on: Duration::from_millis(200),
            mean_off: Duration::from_millis(100),
            shape: 1.5,
        };
        let mut s = Source::new(traffic, Time::ZERO, None).unwrap();
        let mut r = ChaCha8Rng::seed_from_u64(7);
        let end = Time::from_secs(20_000);
        let mut t = Time::ZERO;
        while t < end {
            s.take(t, usize::MAX, &mut r);
            t = s.next_due(t).unwrap().max(t + Duration::from_nanos(1));
        }
        let rate = s.produced() as f64 * 8.0 / end.as_secs_f64();
        // A cycle is a burst of 3 messages on average (each followed by one
        // 66.7 ms interval: 200 ms) plus a 100 ms OFF time, so the rate is
        // 24 kbit/s * 200 / (200 + 100) = 16 kbit/s. Shape 1.5 has infinite
        // variance, so the tolerance is wide.
        assert!((rate - 16_000.0).abs() < 2_000.0, "rate {rate}");
    }

    #[test]
    fn bad_parameters_are_refused() {
        assert!(Source::new(Traffic::Bulk { message_bytes: 0 }, Time::ZERO, None).is_err());
        assert!(
            Source::new(
                Traffic::Cbr {
                    message_bytes: 10,
                    rate_bps: 0
                },
                Time::ZERO,
                None
            )
            .is_err()
        );
        let p = Traffic::Pareto {
            message_bytes: 10,
            rate_bps: 1,
            mean_on: Duration::from_secs(1),
            mean_off: Duration::from_secs(1),
            shape: 1.0,
        };
        assert!(Source::new(p, Time::ZERO, None).is_err());
    }
}
