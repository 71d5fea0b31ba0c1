//! Per-direction packet error (loss) models of links and cells.
//!
//! A model decides, when a packet finishes serialisation, whether it is lost
//! on the medium (it used the capacity, it does not arrive). Each instance
//! owns its own random stream (see [`crate::kernel::rng`]).
//!
//! Models:
//! - [`ErrorModelSpec::None`].
//! - [`ErrorModelSpec::Bernoulli`]: each packet is lost with probability `loss`
//!   (ns-2 `ErrorModel/Uniform` with unit `pkt`).
//! - [`ErrorModelSpec::Expo`]: ns-2's `ErrorModel/Expo`, which is a
//!   `ErrorModel/TwoState` whose two sojourn lengths are exponential random
//!   variables (ns-2 `tcl/lib/ns-errmodel.tcl`, `TwoStateErrorModel` in
//!   `queue/errmodel.cc`): an error-free state of mean length `mean_good`
//!   alternates with an error state of mean length `mean_bad`; lengths count
//!   packets (unit `pkt`) or seconds (unit `time`); the chain starts in the
//!   error-free state. A packet is lost if the span it occupies (one unit
//!   of length for `pkt`, its transmission interval for `time`) overlaps
//!   the error state. With unit `pkt` the long-run loss rate is
//!   `1 - a/(a+b) * exp(-1/a)` for means `a` (good) and `b` (bad): a bad
//!   spell of any length spoils at least the packet it starts in.
//!   [`ErrorModelSpec::expo_for_average_loss`] solves that formula for `a`
//!   so an average loss (e.g. 5% for the Koh et al. study) can be set
//!   together with the mean burst length.
//!
//!   The other reading of "exponential error model" found in ns-2 scripts,
//!   a plain `ErrorModel` whose `ranvar` is `RandomVariable/Exponential`
//!   (a packet is lost when the exponential draw falls below `rate_`), is a
//!   memoryless per-packet loss of probability `1 - exp(-rate/avg)`:
//!   [`ErrorModelSpec::ns2_exponential_ranvar`] builds that Bernoulli model.
//! - [`ErrorModelSpec::GilbertElliott`]: two-state Markov chain stepped once
//!   per packet, a loss probability per state (Gilbert 1960, Elliott 1963).
//!   The packet is judged in the current state, then the chain steps.
//! - [`ErrorModelSpec::Ramp`]: a frame error rate that moves linearly from
//!   `from` at `start` to `to` at `end` (constant outside), evaluated at the
//!   end of each packet's transmission (Budzisz et al. section 4.2.1).

use rand::Rng;
use rand_distr::{Distribution, Exp};

use crate::Time;
use crate::kernel::rng::SimRng;

/// Unit in which [`ErrorModelSpec::Expo`] counts state lengths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorUnit {
    /// Lengths are numbers of packets (ns-2 unit `pkt`).
    Packets,
    /// Lengths are seconds (ns-2 unit `time`).
    Seconds,
}

/// Configuration of an error model (a value; each link direction or station
/// gets its own running instance).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum ErrorModelSpec {
    #[default]
    None,
    Bernoulli {
        loss: f64,
    },
    Expo {
        mean_good: f64,
        mean_bad: f64,
        unit: ErrorUnit,
    },
    GilbertElliott {
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        loss_good: f64,
        loss_bad: f64,
    },
    Ramp {
        from: f64,
        to: f64,
        start: Time,
        end: Time,
    },
}

/// An invalid error model parameter.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ErrorModelError {
    #[error("{name} = {value} is not a probability in [0, 1]")]
    NotProbability { name: &'static str, value: f64 },
    #[error("{name} = {value} must be finite and > 0")]
    NotPositive { name: &'static str, value: f64 },
    #[error("ramp ends before it starts")]
    RampReversed,
    #[error("average loss {0} must be in (0, 1)")]
    LossOutOfRange(f64),
}

fn prob(name: &'static str, value: f64) -> Result<(), ErrorModelError> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(ErrorModelError::NotProbability { name, value })
    }
}

fn positive(name: &'static str, value: f64) -> Result<(), ErrorModelError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(ErrorModelError::NotPositive { name, value })
    }
}

/// Long-run loss of the `pkt`-unit two-state exponential model.
fn expo_packet_loss(mean_good: f64, mean_bad: f64) -> f64 {
    1.0 - mean_good / (mean_good + mean_bad) * (-1.0 / mean_good).exp()
}

impl ErrorModelSpec {
    /// Checks every parameter.
    pub fn validate(&self) -> Result<(), ErrorModelError> {
        match *self {
            ErrorModelSpec::None => Ok(()),
            ErrorModelSpec::Bernoulli { loss } => prob("loss", loss),
            ErrorModelSpec::Expo {
                mean_good,
                mean_bad,
                ..
            } => {
                positive("mean_good", mean_good)?;
                positive("mean_bad", mean_bad)
            }
            ErrorModelSpec::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            } => {
                prob("p_good_to_bad", p_good_to_bad)?;
                prob("p_bad_to_good", p_bad_to_good)?;
                prob("loss_good", loss_good)?;
                prob("loss_bad", loss_bad)
            }
            ErrorModelSpec::Ramp {
                from,
                to,
                start,
                end,
            } => {
                prob("from", from)?;
                prob("to", to)?;
                if end < start {
                    Err(ErrorModelError::RampReversed)
                } else {
                    Ok(())
                }
            }
        }
    }

    /// Bernoulli loss with probability `loss`.
    pub fn bernoulli(loss: f64) -> Result<Self, ErrorModelError> {
        let s = ErrorModelSpec::Bernoulli { loss };
        s.validate().map(|_| s)
    }

    /// ns-2 `ErrorModel` with `ranvar` = `RandomVariable/Exponential` of mean
    /// `avg` and `rate_` = `rate`, unit `pkt`: loss probability
    /// `1 - exp(-rate/avg)` per packet.
    pub fn ns2_exponential_ranvar(rate: f64, avg: f64) -> Result<Self, ErrorModelError> {
        positive("avg", avg)?;
        if !(rate.is_finite() && rate >= 0.0) {
            return Err(ErrorModelError::NotPositive {
                name: "rate",
                value: rate,
            });
        }
        ErrorModelSpec::bernoulli(1.0 - (-rate / avg).exp())
    }

    /// ns-2 `ErrorModel/Expo` (unit `pkt`) whose long-run loss rate is
    /// `loss`, with error bursts of mean length `mean_bad` packets. The mean
    /// error-free length is found by bisection on the loss formula.
    pub fn expo_for_average_loss(loss: f64, mean_bad: f64) -> Result<Self, ErrorModelError> {
        if !(loss > 0.0 && loss < 1.0) {
            return Err(ErrorModelError::LossOutOfRange(loss));
        }
        positive("mean_bad", mean_bad)?;
        // expo_packet_loss is decreasing in mean_good: bisect in log space.
        let (mut lo, mut hi) = (1e-9f64.ln(), 1e15f64.ln());
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if expo_packet_loss(mid.exp(), mean_bad) > loss {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let mean_good = (0.5 * (lo + hi)).exp();
        let s = ErrorModelSpec::Expo {
            mean_good,
            mean_bad,
            unit: ErrorUnit::Packets,
        };
        s.validate().map(|_| s)
    }

    /// The long-run loss rate, where it does not depend on timing (None for
    /// `Ramp` and for `Expo` in time units).
    pub fn expected_loss(&self) -> Option<f64> {
        match *self {
            ErrorModelSpec::None => Some(0.0),
            ErrorModelSpec::Bernoulli { loss } => Some(loss),
            ErrorModelSpec::Expo {
                mean_good,
                mean_bad,
                unit: ErrorUnit::Packets,
            } => Some(expo_packet_loss(mean_good, mean_bad)),
            ErrorModelSpec::Expo {
                unit: ErrorUnit::Seconds,
                ..
            } => None,
            ErrorModelSpec::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            } => {
                let s = p_good_to_bad + p_bad_to_good;
                if s == 0.0 {
                    return Some(loss_good);
                }
                let pi_bad = p_good_to_bad / s;
                Some((1.0 - pi_bad) * loss_good + pi_bad * loss_bad)
            }
            ErrorModelSpec::Ramp { .. } => None,
        }
    }
}

#[derive(Debug, Clone)]
enum State {
    None,
    Bernoulli {
        loss: f64,
    },
    Expo {
        good: Exp<f64>,
        bad: Exp<f64>,
        unit: ErrorUnit,
        in_bad: bool,
        started: bool,
        remaining: f64,
    },
    Gilbert {
        p_gb: f64,
        p_bg: f64,
        loss_good: f64,
        loss_bad: f64,
        in_bad: bool,
    },
    Ramp {
        from: f64,
        to: f64,
        start: Time,
        end: Time,
    },
}

/// A running error model.
#[derive(Debug, Clone)]
pub struct ErrorModel {
    state: State,
    rng: SimRng,
}

impl ErrorModel {
    /// Instantiates `spec` (which must be valid) with its random stream.
    pub fn new(spec: &ErrorModelSpec, rng: SimRng) -> Result<ErrorModel, ErrorModelError> {
        spec.validate()?;
        let state = match *spec {
            ErrorModelSpec::None => State::None,
            ErrorModelSpec::Bernoulli { loss } => State::Bernoulli { loss },
            ErrorModelSpec::Expo {
                mean_good,
                mean_bad,
                unit,
            } => State::Expo {
                good: Exp::new(1.0 / mean_good).map_err(|_| ErrorModelError::NotPositive {
                    name: "mean_good",
                    value: mean_good,
                })?,
                bad: Exp::new(1.0 / mean_bad).map_err(|_| ErrorModelError::NotPositive {
                    name: "mean_bad",
                    value: mean_bad,
                })?,
                unit,
                in_bad: false,
                started: false,
                remaining: 0.0,
            },
            ErrorModelSpec::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            } => State::Gilbert {
                p_gb: p_good_to_bad,
                p_bg: p_bad_to_good,
                loss_good,
                loss_bad,
                in_bad: false,
            },
            ErrorModelSpec::Ramp {
                from,
                to,
                start,
                end,
            } => State::Ramp {
                from,
                to,
                start,
                end,
            },
        };
        Ok(ErrorModel { state, rng })
    }

    /// Replaces the model, keeping the random stream.
    pub fn respecify(&mut self, spec: &ErrorModelSpec) -> Result<(), ErrorModelError> {
        let rng = self.rng.clone();
        *self = ErrorModel::new(spec, rng)?;
        Ok(())
    }

    /// True when the packet transmitted over `[tx_start, tx_end]` is lost.
    pub fn is_lost(&mut self, tx_start: Time, tx_end: Time) -> bool {
        let rng = &mut self.rng;
        match &mut self.state {
            State::None => false,
            State::Bernoulli { loss } => rng.r#gen::<f64>() < *loss,
            State::Gilbert {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
                in_bad,
            } => {
                let p = if *in_bad { *loss_bad } else { *loss_good };
                let lost = rng.r#gen::<f64>() < p;
                let flip = if *in_bad { *p_bg } else { *p_gb };
                if rng.r#gen::<f64>() < flip {
                    *in_bad = !*in_bad;
                }
                lost
            }
            State::Ramp {
                from,
                to,
                start,
                end,
            } => {
                let p = ramp_value(*from, *to, *start, *end, tx_end);
                rng.r#gen::<f64>() < p
            }
            State::Expo {
                good,
                bad,
                unit,
                in_bad,
                started,
                remaining,
            } => match unit {
                ErrorUnit::Packets => {
                    // `remaining` is the length left in the current state.
                    if !*started {
                        *started = true;
                        *in_bad = false;
                        *remaining = good.sample(rng);
                    }
                    let mut lost = *in_bad && *remaining > 0.0;
                    *remaining -= 1.0;
                    while *remaining <= 0.0 {
                        *in_bad = !*in_bad;
                        *remaining += if *in_bad {
                            bad.sample(rng)
                        } else {
                            good.sample(rng)
                        };
                        lost |= *in_bad;
                    }
                    lost
                }
                ErrorUnit::Seconds => {
                    // `remaining` is the absolute time (s) the current state ends.
                    if !*started {
                        *started = true;
                        *in_bad = false;
                        *remaining = good.sample(rng);
                    }
                    let (s, e) = (tx_start.as_secs_f64(), tx_end.as_secs_f64());
                    while *remaining <= s {
                        *in_bad = !*in_bad;
                        *remaining += if *in_bad {
                            bad.sample(rng)
                        } else {
                            good.sample(rng)
                        };
                    }
                    let mut lost = *in_bad;
                    while *remaining < e {
                        *in_bad = !*in_bad;
                        *remaining += if *in_bad {
                            bad.sample(rng)
                        } else {
                            good.sample(rng)
                        };
                        lost |= *in_bad;
                    }
                    lost
                }
            },
        }
    }
}

/// Linear ramp from `from` at `start` to `to` at `end`, clamped outside.
pub fn ramp_value(from: f64, to: f64, start: Time, end: Time, at: Time) -> f64 {
    if at <= start {
        return if at == end { to } else { from };
    }
    if at >= end {
        return to;
    }
    let span = (end.as_nanos() - start.as_nanos()) as f64;
    let x = (at.as_nanos() - start.as_nanos()) as f64 / span;
    from + (to - from) * x
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::rng::stream;

    /// Runs `n` back-to-back packets of 1 ms and returns the loss fraction.
    fn loss_rate(spec: ErrorModelSpec, n: u64, seed: u64) -> f64 {
        let mut m = ErrorModel::new(&spec, stream(seed, "test")).unwrap();
        let mut lost = 0u64;
        for i in 0..n {
            let s = Time::from_millis(i);
            if m.is_lost(s, Time::from_millis(i + 1)) {
                lost += 1;
            }
        }
        lost as f64 / n as f64
    }

    /// |observed - expected| within `k` standard errors, with a variance
    /// inflation factor for correlated (bursty) losses.
    fn assert_close(observed: f64, expected: f64, n: u64, inflation: f64) {
        let se = (expected * (1.0 - expected) * inflation / n as f64).sqrt();
        assert!(
            (observed - expected).abs() <= 4.5 * se + 1e-12,
            "observed {observed}, expected {expected} (se {se})"
        );
    }

    #[test]
    fn none_never_loses() {
        assert_eq!(loss_rate(ErrorModelSpec::None, 10_000, 1), 0.0);
    }

    #[test]
    fn bernoulli_long_run() {
        for p in [0.01, 0.05, 0.3] {
            let n = 200_000;
            assert_close(
                loss_rate(ErrorModelSpec::bernoulli(p).unwrap(), n, 3),
                p,
                n,
                1.0,
            );
        }
        assert_eq!(
            loss_rate(ErrorModelSpec::bernoulli(1.0).unwrap(), 1000, 3),
            1.0
        );
    }

    #[test]
    fn expo_long_run_matches_formula_and_solver() {
        let spec = ErrorModelSpec::expo_for_average_loss(0.05, 2.0).unwrap();
        let ErrorModelSpec::Expo { mean_good, .. } = spec else {
            panic!()
        };
        assert!((expo_packet_loss(mean_good, 2.0) - 0.05).abs() < 1e-9);
        assert!((spec.expected_loss().unwrap() - 0.05).abs() < 1e-9);
        let n = 400_000;
        // Bursts of about 3 packets: variance inflated by about the burst length.
        assert_close(loss_rate(spec, n, 5), 0.05, n, 6.0);
        // Also an arbitrary parameter pair, not produced by the solver.
        let spec = ErrorModelSpec::Expo {
            mean_good: 10.0,
            mean_bad: 0.5,
            unit: ErrorUnit::Packets,
        };
        let want = spec.expected_loss().unwrap();
        assert!((want - (1.0 - 10.0 / 10.5 * (-0.1f64).exp())).abs() < 1e-12);
        assert_close(loss_rate(spec, n, 6), want, n, 4.0);
    }

    #[test]
    fn expo_is_bursty() {
        // Same average as Bernoulli 5%, but losses cluster: P(loss | previous
        // lost) is far above 5%.
        let spec = ErrorModelSpec::expo_for_average_loss(0.05, 4.0).unwrap();
        let mut m = ErrorModel::new(&spec, stream(9, "b")).unwrap();
        let (mut prev, mut pairs, mut lost_prev) = (false, 0u64, 0u64);
        for i in 0..200_000u64 {
            let l = m.is_lost(Time::from_millis(i), Time::from_millis(i + 1));
            if prev {
                lost_prev += 1;
                if l {
                    pairs += 1;
                }
            }
            prev = l;
        }
        assert!(pairs as f64 / lost_prev as f64 > 0.5);
    }

    #[test]
    fn expo_time_unit_long_run() {
        // Packets of 1 ms back to back, states of mean 95 ms / 5 ms:
        // P(a 1 ms packet is clean) = P(good at start) * P(no switch in 1 ms).
        let spec = ErrorModelSpec::Expo {
            mean_good: 0.095,
            mean_bad: 0.005,
            unit: ErrorUnit::Seconds,
        };
        let want = 1.0 - 0.95 * (-0.001f64 / 0.095).exp();
        let n = 400_000;
        assert_close(loss_rate(spec, n, 11), want, n, 12.0);
    }

    #[test]
    fn ns2_ranvar_reading() {
        let s = ErrorModelSpec::ns2_exponential_ranvar(0.05, 1.0).unwrap();
        assert!((s.expected_loss().unwrap() - (1.0 - (-0.05f64).exp())).abs() < 1e-15);
    }

    #[test]
    fn gilbert_elliott_long_run() {
        let spec = ErrorModelSpec::GilbertElliott {
            p_good_to_bad: 0.01,
            p_bad_to_good: 0.1,
            loss_good: 0.001,
            loss_bad: 0.5,
        };
        let want = spec.expected_loss().unwrap();
        assert!((want - (0.1 / 0.11 * 0.001 + 0.01 / 0.11 * 0.5)).abs() < 1e-12);
        let n = 400_000;
        assert_close(loss_rate(spec, n, 13), want, n, 25.0);
    }

    #[test]
    fn ramp_value_and_long_run() {
        let (s, e) = (Time::from_secs(10), Time::from_secs(20));
        assert_eq!(ramp_value(0.0, 0.1, s, e, Time::from_secs(5)), 0.0);
        assert!((ramp_value(0.0, 0.1, s, e, Time::from_secs(15)) - 0.05).abs() < 1e-15);
        assert_eq!(ramp_value(0.0, 0.1, s, e, Time::from_secs(30)), 0.1);
        assert_eq!(ramp_value(0.0, 0.1, s, s, s), 0.1);
        // 1 ms packets over 0..30 s: 10 s at 0, 10 s average 0.05, 10 s at 0.1.
        let spec = ErrorModelSpec::Ramp {
            from: 0.0,
            to: 0.1,
            start: s,
            end: e,
        };
        let n = 30_000;
        let want = (0.0 + 0.05 + 0.1) / 3.0;
        assert_close(loss_rate(spec, n, 17), want, n, 1.0);
    }

    #[test]
    fn invalid_parameters_are_errors() {
        assert!(ErrorModelSpec::bernoulli(1.5).is_err());
        assert!(ErrorModelSpec::bernoulli(f64::NAN).is_err());
        assert!(ErrorModelSpec::expo_for_average_loss(0.0, 1.0).is_err());
        assert!(ErrorModelSpec::expo_for_average_loss(0.05, -1.0).is_err());
        let bad = ErrorModelSpec::Expo {
            mean_good: 0.0,
            mean_bad: 1.0,
            unit: ErrorUnit::Packets,
        };
        assert!(ErrorModel::new(&bad, stream(0, "x")).is_err());
        let rev = ErrorModelSpec::Ramp {
            from: 0.0,
            to: 0.1,
            start: Time::from_secs(2),
            end: Time::from_secs(1),
        };
        assert_eq!(rev.validate(), Err(ErrorModelError::RampReversed));
        assert!(ErrorModelSpec::ns2_exponential_ranvar(-1.0, 1.0).is_err());
    }
}
