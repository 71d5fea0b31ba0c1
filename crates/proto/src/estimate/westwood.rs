//! Available bandwidth by Westwood+ (Mascolo, Grieco et al.; docs/MODELS.md
//! section 3): once per window of max(RTT, 50 ms) the sender takes the
//! bytes acknowledged in the window divided by its length as a sample, and
//! filters the samples with an EWMA, estimate = 7/8 old + 1/8 sample.
//!
//! Two choices beyond that rule, both as Linux's `tcp_westwood` and BBR's
//! rate sampler do:
//! - the first sample fills the empty filter (instead of 1/8 of it);
//! - a window in which the sender ran out of data to send
//!   ("application-limited": nothing queued at an acknowledgement, or an
//!   idle period with nothing outstanding) measures the application, not
//!   the path: its sample is used only when it raises the estimate (or
//!   fills the empty filter: a lower bound is better than nothing).

use std::time::Duration;

use crate::Time;

/// The shortest window (Westwood+'s lower bound on the RTT it filters at).
pub const MIN_WINDOW: Duration = Duration::from_millis(50);

/// Westwood+ state of one path.
#[derive(Debug, Clone, Default)]
pub struct Westwood {
    window_start: Option<Time>,
    bytes: u64,
    app_limited: bool,
    estimate: Option<u64>,
    updated: Option<Time>,
    samples: u64,
}

impl Westwood {
    /// `bytes` of data sent on this path were newly acknowledged at `now`;
    /// `srtt` is the path's smoothed RTT; `app_limited` says the sender had
    /// nothing queued. Returns true when this closed a window and took a
    /// sample.
    pub fn on_ack(
        &mut self,
        now: Time,
        bytes: u64,
        srtt: Option<Duration>,
        app_limited: bool,
    ) -> bool {
        let Some(start) = self.window_start else {
            // The first acknowledgement opens the window; its bytes were
            // sent before it.
            self.window_start = Some(now);
            self.bytes = 0;
            self.app_limited = app_limited;
            return false;
        };
        self.bytes = self.bytes.saturating_add(bytes);
        self.app_limited |= app_limited;
        let elapsed = now.saturating_since(start);
        let window = srtt.unwrap_or(MIN_WINDOW).max(MIN_WINDOW);
        if elapsed < window {
            return false;
        }
        let ns = elapsed.as_nanos().max(1);
        let sample = (u128::from(self.bytes) * 8 * 1_000_000_000 / ns).min(u64::MAX as u128) as u64;
        let limited = std::mem::replace(&mut self.app_limited, app_limited);
        self.window_start = Some(now);
        self.bytes = 0;
        if limited && self.estimate.is_some_and(|e| sample <= e) {
            return false;
        }
        self.estimate = Some(match self.estimate {
            None => sample,
            Some(e) => ((u128::from(e) * 7 + u128::from(sample)) / 8) as u64,
        });
        self.updated = Some(now);
        self.samples += 1;
        true
    }

    /// Nothing is outstanding on the path and nothing waits to be sent:
    /// the window is application-limited (idle time is no measure of the
    /// path).
    pub fn on_idle(&mut self) {
        self.app_limited = true;
    }

    /// The estimate in bits per second of DATA payload, if any.
    pub fn estimate(&self) -> Option<u64> {
        self.estimate
    }

    /// When the estimate last changed.
    pub fn updated(&self) -> Option<Time> {
        self.updated
    }

    /// Samples taken so far.
    pub fn samples(&self) -> u64 {
        self.samples
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    /// Acks of 1250 bytes every 10 ms: 1 Mbit/s.
    fn feed(w: &mut Westwood, from: u64, to: u64, bytes: u64, srtt: Option<Duration>) {
        let mut t = from;
        while t <= to {
            w.on_ack(ms(t), bytes, srtt, false);
            t += 10;
        }
    }

    #[test]
    fn westwood_measures_a_constant_ack_stream_exactly() {
        let mut w = Westwood::default();
        feed(&mut w, 0, 1000, 1250, Some(Duration::from_millis(20)));
        // Window = max(20 ms, 50 ms) = 50 ms: 5 acks of 1250 bytes each.
        assert_eq!(w.estimate(), Some(1_000_000));
        assert_eq!(w.samples(), 20);
    }

    #[test]
    fn westwood_window_follows_a_long_rtt() {
        let mut w = Westwood::default();
        feed(&mut w, 0, 1000, 1250, Some(Duration::from_millis(200)));
        assert_eq!(w.samples(), 5, "one sample per 200 ms RTT");
        assert_eq!(w.estimate(), Some(1_000_000));
    }

    #[test]
    fn westwood_filters_with_seven_eighths_of_the_old_estimate() {
        let mut w = Westwood::default();
        feed(&mut w, 0, 50, 1250, None);
        assert_eq!(w.estimate(), Some(1_000_000));
        // The rate doubles: one window of 2 Mbit/s moves the estimate by
        // an eighth of the difference.
        feed(&mut w, 60, 100, 2500, None);
        assert_eq!(w.estimate(), Some(1_125_000));
        let mut prev = 1_125_000u64;
        for k in 0..40u64 {
            let from = 110 + 50 * k;
            feed(&mut w, from, from + 40, 2500, None);
            let e = w.estimate().unwrap();
            assert_eq!(e, (prev * 7 + 2_000_000) / 8);
            prev = e;
        }
        assert!(prev > 1_990_000, "converges to the new rate: {prev}");
    }

    #[test]
    fn westwood_ignores_idle_time_and_application_limited_drops() {
        let mut w = Westwood::default();
        feed(&mut w, 0, 500, 1250, None);
        assert_eq!(w.estimate(), Some(1_000_000));
        w.on_idle();
        // Ten seconds later the transfer resumes at the same rate.
        feed(&mut w, 10_500, 11_000, 1250, None);
        assert_eq!(w.estimate(), Some(1_000_000), "the idle gap is no sample");
        // Bursts of an application that pauses between them still give
        // samples: one window of 50 ms, idle for half of it.
        let mut b = Westwood::default();
        for k in 0..20u64 {
            let t0 = k * 50;
            for j in 0..3 {
                b.on_ack(ms(t0 + j * 10), 2500, None, false);
            }
            b.on_idle();
        }
        assert!(b.samples() > 0 && b.estimate().is_some());
        // The application sends at a tenth of the rate: no drop.
        let mut t = 11_010;
        while t < 12_000 {
            w.on_ack(ms(t), 125, None, true);
            t += 10;
        }
        assert_eq!(w.estimate(), Some(1_000_000));
        // An application-limited window that is faster still counts.
        let before = w.samples();
        let mut t = 12_000;
        while t < 12_100 {
            w.on_ack(ms(t), 5000, None, true);
            t += 10;
        }
        assert!(w.samples() > before && w.estimate().unwrap() > 1_000_000);
    }
}
