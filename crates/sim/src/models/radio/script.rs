//! Scripted received power: a step function of time, for experiments that
//! say when a network is there rather than where the station is (E4: "WLAN
//! beacons from t = 20 s", "beacons stop at t = 30 s", "the WLAN comes and
//! goes five times at 1 s intervals").

use std::time::Duration;

use msctp_proto::Time;

use super::error::RadioError;

/// Received power as a step function: from each step's time on, the power
/// is the step's value (`None`: no signal at all) until the next step.
/// Before the first step there is no signal.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedSignal {
    steps: Vec<(Time, Option<f64>)>,
}

impl ScriptedSignal {
    /// Steps with strictly increasing times; powers finite and > 0.
    pub fn new(steps: Vec<(Time, Option<f64>)>) -> Result<ScriptedSignal, RadioError> {
        for (i, (t, p)) in steps.iter().enumerate() {
            if let Some(w) = p
                && !(w.is_finite() && *w > 0.0)
            {
                return Err(RadioError::BadScript("powers must be finite and > 0"));
            }
            if i > 0 && steps[i - 1].0 >= *t {
                return Err(RadioError::BadScript("step times must strictly increase"));
            }
        }
        Ok(ScriptedSignal { steps })
    }

    /// Power `power_w` during each half-open interval `[from, until)`
    /// (intervals in increasing order, not overlapping), nothing elsewhere.
    pub fn available(
        power_w: f64,
        intervals: &[(Time, Time)],
    ) -> Result<ScriptedSignal, RadioError> {
        let mut steps = Vec::with_capacity(2 * intervals.len());
        for &(from, until) in intervals {
            if until <= from {
                return Err(RadioError::BadScript("an interval ends before it starts"));
            }
            match steps.last() {
                None => steps.push((from, Some(power_w))),
                Some((t, None)) if *t < from => steps.push((from, Some(power_w))),
                // Back-to-back intervals: the previous one continues.
                Some((t, None)) if *t == from => {
                    steps.pop();
                }
                _ => {
                    return Err(RadioError::BadScript(
                        "intervals overlap or are out of order",
                    ));
                }
            }
            steps.push((until, None));
        }
        ScriptedSignal::new(steps)
    }

    /// Power `power_w` from `from` on, for ever (E4 case 1).
    pub fn from(power_w: f64, from: Time) -> Result<ScriptedSignal, RadioError> {
        ScriptedSignal::new(vec![(from, Some(power_w))])
    }

    /// Power `power_w` from time zero until `until` (E4 case 2).
    pub fn until(power_w: f64, until: Time) -> Result<ScriptedSignal, RadioError> {
        ScriptedSignal::available(power_w, &[(Time::ZERO, until)])
    }

    /// `cycles` times: on for `on`, then off for `off`, starting at
    /// `first_on` (E4 case 3: five cycles of 1 s on, 1 s off).
    pub fn on_off(
        power_w: f64,
        first_on: Time,
        on: Duration,
        off: Duration,
        cycles: u32,
    ) -> Result<ScriptedSignal, RadioError> {
        if on.is_zero() {
            return Err(RadioError::BadScript("on duration must be > 0"));
        }
        let mut intervals = Vec::with_capacity(cycles as usize);
        let mut t = first_on;
        for _ in 0..cycles {
            let end = t + on;
            intervals.push((t, end));
            t = end + off;
        }
        ScriptedSignal::available(power_w, &intervals)
    }

    /// The power at `t` (`None`: no signal).
    pub fn power_at(&self, t: Time) -> Option<f64> {
        let n = self.steps.partition_point(|(ti, _)| *ti <= t);
        n.checked_sub(1)
            .and_then(|i| self.steps.get(i))
            .and_then(|(_, p)| *p)
    }

    /// The steps.
    pub fn steps(&self) -> &[(Time, Option<f64>)] {
        &self.steps
    }

    /// Maximal intervals `[from, until)` where the power is at least
    /// `threshold_w` (`None` as end: for ever).
    pub fn intervals_at_least(&self, threshold_w: f64) -> Vec<(Time, Option<Time>)> {
        let mut out = Vec::new();
        let mut open: Option<Time> = None;
        for &(t, p) in &self.steps {
            let good = p.is_some_and(|w| w >= threshold_w);
            match (good, open) {
                (true, None) => open = Some(t),
                (false, Some(s)) => {
                    out.push((s, Some(t)));
                    open = None;
                }
                _ => {}
            }
        }
        if let Some(s) = open {
            out.push((s, None));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: u64) -> Time {
        Time::from_secs(x)
    }

    #[test]
    fn step_function_and_intervals() {
        let sig =
            ScriptedSignal::available(1e-9, &[(s(2), s(4)), (s(4), s(5)), (s(7), s(8))]).unwrap();
        assert_eq!(
            sig.steps(),
            &[
                (s(2), Some(1e-9)),
                (s(5), None),
                (s(7), Some(1e-9)),
                (s(8), None)
            ]
        );
        assert_eq!(sig.power_at(s(1)), None);
        assert_eq!(sig.power_at(s(2)), Some(1e-9));
        assert_eq!(sig.power_at(s(4)), Some(1e-9));
        assert_eq!(sig.power_at(s(5)), None);
        assert_eq!(
            sig.intervals_at_least(1e-9),
            vec![(s(2), Some(s(5))), (s(7), Some(s(8)))]
        );
        assert!(sig.intervals_at_least(2e-9).is_empty());
        assert_eq!(
            ScriptedSignal::from(1e-9, s(20))
                .unwrap()
                .intervals_at_least(1e-10),
            vec![(s(20), None)]
        );
        assert_eq!(
            ScriptedSignal::until(1e-9, s(30)).unwrap().power_at(s(30)),
            None
        );
    }

    #[test]
    fn on_off_ping_pong() {
        let sig = ScriptedSignal::on_off(
            1e-9,
            s(10),
            Duration::from_secs(1),
            Duration::from_secs(1),
            5,
        )
        .unwrap();
        let iv = sig.intervals_at_least(1e-9);
        assert_eq!(iv.len(), 5);
        assert_eq!(iv[0], (s(10), Some(s(11))));
        assert_eq!(iv[4], (s(18), Some(s(19))));
        // No gap: a single interval.
        let cont =
            ScriptedSignal::on_off(1e-9, s(0), Duration::from_secs(1), Duration::ZERO, 3).unwrap();
        assert_eq!(cont.intervals_at_least(1e-9), vec![(s(0), Some(s(3)))]);
    }

    #[test]
    fn bad_scripts_are_errors() {
        assert!(ScriptedSignal::new(vec![(s(1), Some(1.0)), (s(1), None)]).is_err());
        assert!(ScriptedSignal::new(vec![(s(1), Some(-1.0))]).is_err());
        assert!(ScriptedSignal::new(vec![(s(1), Some(f64::NAN))]).is_err());
        assert!(ScriptedSignal::available(1.0, &[(s(2), s(1))]).is_err());
        assert!(ScriptedSignal::available(1.0, &[(s(2), s(5)), (s(3), s(6))]).is_err());
        assert!(ScriptedSignal::available(1.0, &[(s(5), s(6)), (s(1), s(2))]).is_err());
        assert!(ScriptedSignal::on_off(1.0, s(0), Duration::ZERO, Duration::ZERO, 1).is_err());
    }
}
