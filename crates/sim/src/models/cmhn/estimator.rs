//! The bandwidth-delay product of one connection's path, measured from its
//! own acknowledgements (docs/MODELS.md 2.4: "on link-up measures the new
//! link's BDP during start-up"): a delivery-rate sample every window of
//! max(SRTT, 50 ms) (bytes newly acknowledged over the window, as
//! Westwood+'s bandwidth samples), the largest recent sample as the
//! bandwidth, times the smallest RTT seen.

use std::collections::VecDeque;
use std::time::Duration;

use crate::Time;

/// Rate samples kept (the largest of them is the bandwidth estimate).
const SAMPLES: usize = 10;
/// Shortest sampling window.
const MIN_WINDOW: Duration = Duration::from_millis(50);

/// A path's bandwidth and delay estimate.
#[derive(Debug, Clone, Default)]
pub struct BdpEstimator {
    window_start: Option<(Time, u64)>,
    rates: VecDeque<f64>,
    min_rtt: Option<Duration>,
}

impl BdpEstimator {
    /// Feeds the connection's acknowledged-byte counter and RTT estimates.
    pub fn update(&mut self, now: Time, acked: u64, srtt: Option<Duration>, rtt: Option<Duration>) {
        if let Some(r) = rtt.filter(|r| !r.is_zero()) {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        }
        let window = srtt.unwrap_or(MIN_WINDOW).max(MIN_WINDOW);
        match self.window_start {
            None => self.window_start = Some((now, acked)),
            Some((t0, a0)) if now >= t0 + window => {
                let secs = (now - t0).as_secs_f64();
                let rate = acked.saturating_sub(a0) as f64 * 8.0 / secs;
                if self.rates.len() == SAMPLES {
                    self.rates.pop_front();
                }
                self.rates.push_back(rate);
                self.window_start = Some((now, acked));
            }
            Some(_) => {}
        }
    }

    /// Restarts the rate measurement (after a pause: a frozen connection's
    /// idle time is not a rate).
    pub fn restart(&mut self) {
        self.window_start = None;
    }

    /// Bandwidth estimate, bit/s (0 before the first sample).
    pub fn bandwidth_bps(&self) -> f64 {
        self.rates.iter().copied().fold(0.0, f64::max)
    }

    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt
    }

    /// Bandwidth-delay product in bytes (0 until both are measured).
    pub fn bdp_bytes(&self) -> f64 {
        self.min_rtt
            .map_or(0.0, |r| self.bandwidth_bps() * r.as_secs_f64() / 8.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_steady_path_gives_its_bdp() {
        let mut e = BdpEstimator::default();
        let rtt = Duration::from_millis(100);
        // 1 Mbit/s: 125 bytes per ms.
        for ms in 0..=2000u64 {
            e.update(
                Time::from_millis(ms),
                ms * 125,
                Some(rtt),
                Some(rtt + Duration::from_millis(ms % 7)),
            );
        }
        assert!(
            (e.bandwidth_bps() - 1e6).abs() < 1e3,
            "{}",
            e.bandwidth_bps()
        );
        assert_eq!(e.min_rtt(), Some(rtt));
        assert!((e.bdp_bytes() - 12_500.0).abs() < 20.0);
        e.restart();
        assert!(e.bdp_bytes() > 0.0, "samples are kept across a restart");
    }

    #[test]
    fn nothing_measured_is_zero() {
        let e = BdpEstimator::default();
        assert_eq!(e.bdp_bytes(), 0.0);
        assert_eq!(e.bandwidth_bps(), 0.0);
    }
}
