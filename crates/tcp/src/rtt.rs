//! Round-trip time estimation and the retransmission timeout of RFC 6298.

use std::time::Duration;

/// SRTT, RTTVAR and the RTO with its exponential back-off.
#[derive(Debug, Clone)]
pub struct RttEstimator {
    srtt: Option<Duration>,
    rttvar: Duration,
    rto: Duration,
    latest: Option<Duration>,
    backed_off: bool,
    initial: Duration,
    min: Duration,
    max: Duration,
    granularity: Duration,
}

impl RttEstimator {
    pub fn new(initial: Duration, min: Duration, max: Duration, granularity: Duration) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: Duration::ZERO,
            rto: initial.clamp(min, max),
            latest: None,
            backed_off: false,
            initial,
            min,
            max,
            granularity,
        }
    }

    /// Takes one RTT measurement (RFC 6298 (2.2) and (2.3)) and recomputes
    /// the RTO, which ends any back-off.
    pub fn sample(&mut self, r: Duration) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                let err = srtt.abs_diff(r);
                // RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'| ; SRTT <- 7/8 SRTT + 1/8 R'
                self.rttvar = (self.rttvar.saturating_mul(3).saturating_add(err)) / 4;
                self.srtt = Some((srtt.saturating_mul(7).saturating_add(r)) / 8);
            }
        }
        self.latest = Some(r);
        self.rto = self.computed();
        self.backed_off = false;
    }

    /// RTO = SRTT + max(G, 4 RTTVAR), bounded by the minimum and maximum
    /// (RFC 6298 (2.4), (2.5)); the initial RTO before any sample.
    fn computed(&self) -> Duration {
        match self.srtt {
            None => self.initial,
            Some(srtt) => srtt.saturating_add(self.granularity.max(self.rttvar.saturating_mul(4))),
        }
        .clamp(self.min, self.max)
    }

    /// Doubles the RTO after a timeout (RFC 6298 (5.5)), up to the maximum.
    pub fn back_off(&mut self) {
        self.rto = self.rto.saturating_mul(2).min(self.max);
        self.backed_off = true;
    }

    /// Ends a back-off without a new sample (ns-3 does this on every new
    /// cumulative ACK).
    pub fn restore(&mut self) {
        self.rto = self.computed();
        self.backed_off = false;
    }

    /// Forgets all samples (a new path after a handoff): back to the
    /// initial RTO.
    pub fn reset(&mut self) {
        self.srtt = None;
        self.rttvar = Duration::ZERO;
        self.latest = None;
        self.backed_off = false;
        self.rto = self.computed();
    }

    pub fn rto(&self) -> Duration {
        self.rto
    }
    pub fn srtt(&self) -> Option<Duration> {
        self.srtt
    }
    pub fn rttvar(&self) -> Duration {
        self.rttvar
    }
    pub fn latest(&self) -> Option<Duration> {
        self.latest
    }
    pub fn is_backed_off(&self) -> bool {
        self.backed_off
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn rfc6298_first_and_later_samples() {
        let mut e = RttEstimator::new(ms(1000), ms(200), ms(60_000), ms(1));
        assert_eq!(e.rto(), ms(1000));
        e.sample(ms(100));
        assert_eq!(e.srtt(), Some(ms(100)));
        assert_eq!(e.rttvar(), ms(50));
        assert_eq!(e.rto(), ms(300)); // 100 + 4*50
        e.sample(ms(200));
        // RTTVAR = 3/4*50 + 1/4*100 = 62.5 ; SRTT = 7/8*100 + 1/8*200 = 112.5
        assert_eq!(e.rttvar(), Duration::from_micros(62_500));
        assert_eq!(e.srtt(), Some(Duration::from_micros(112_500)));
        assert_eq!(e.rto(), Duration::from_micros(362_500));
    }

    #[test]
    fn min_max_and_backoff() {
        let mut e = RttEstimator::new(ms(1000), ms(1000), ms(4000), ms(1));
        e.sample(ms(10));
        assert_eq!(e.rto(), ms(1000)); // clamped up to min
        e.back_off();
        assert_eq!(e.rto(), ms(2000));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), ms(4000)); // capped
        assert!(e.is_backed_off());
        e.restore();
        assert_eq!(e.rto(), ms(1000));
        e.reset();
        assert_eq!(e.srtt(), None);
        assert_eq!(e.rto(), ms(1000));
    }
}
