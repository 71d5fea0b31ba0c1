//! Radio propagation: received power (watts) as a function of distance.
//!
//! The studies reproduced here ran in ns-2 with its two-ray ground model
//! (`mobile/tworayground.cc`, ns-2.35) and the defaults of the 914 MHz
//! Lucent WaveLAN interface (`Phy/WirelessPhy` in ns-default.tcl):
//! Pt = 0.28183815 W, Gt = Gr = 1, antennas 1.5 m above the nodes,
//! system loss L = 1, frequency 914 MHz.
//!
//! The model, as ns-2.35 computes it (checked against its source):
//! - wavelength `lambda = c / f` with ns-2's `SPEED_OF_LIGHT` = 3e8 m/s
//!   exactly (`mobile/propagation.h`), not 299 792 458 m/s;
//! - crossover distance `dc = 4 * pi * ht * hr / lambda`;
//! - `d <= dc`: Friis free space,
//!   `Pr = Pt * Gt * Gr * lambda^2 / ((4 * pi * d)^2 * L)`;
//! - `d > dc`: two-ray ground, `Pr = Pt * Gt * Gr * ht^2 * hr^2 / (d^4 * L)`.
//!
//! Both branches divide by L, and at `dc` they agree, so the power is a
//! continuous, strictly decreasing function of distance and can be
//! inverted exactly ([`TwoRayGround::distance_for_power_m`]). (ns-2.1b's
//! older version put `sqrt(L)` into `dc` and left L out of the two-ray
//! branch; with the default L = 1 both versions give the same numbers.)
//!
//! Distance is horizontal: the ground is flat and every node stands at
//! height zero with its antenna at `ht` / `hr`, as in ns-2's scenarios.
//!
//! Hand-computed values with the defaults (unit-tested below):
//! `lambda` = 0.328 227 571 m, `dc` = 86.14 m, range at RXThresh
//! 3.652e-10 W = 250.01 m (ns-2's documented 250 m radius;
//! 3.652e-10 is the exact 3.65262e-10 rounded), range at
//! CSThresh 1.559e-11 W = 550 m.
//!
//! E3 (Koh, Chang and Lee) uses cells of radius 190 m with a data
//! threshold of 3.6e-10 W. The transmit power that gives exactly that range
//! is `Pt = 3.6e-10 * 190^4 / (1.5^2 * 1.5^2)` = 0.092 672 71 W
//! ([`TwoRayGround::tx_power_for_range_w`], constant [`E3_CELL_TX_POWER_W`]).
//! With it, the other E3 thresholds correspond to these ranges: beacon
//! detection 1.5e-11 W at 420.5 m, Primary-Change aggressive 6.8e-10 W at
//! 162.2 m, conservative 4.7e-10 W at 177.7 m.

use thiserror::Error;

/// ns-2's speed of light (`SPEED_OF_LIGHT` in `mobile/propagation.h`).
pub const NS2_SPEED_OF_LIGHT_M_PER_S: f64 = 3.0e8;
/// ns-2's default transmit power (W): 24.5 dBm, a 250 m range at the
/// default receive threshold.
pub const NS2_DEFAULT_TX_POWER_W: f64 = 0.281_838_15;
/// ns-2's default receive threshold `RXThresh_` (W): 250 m with defaults.
pub const NS2_DEFAULT_RX_THRESHOLD_W: f64 = 3.652e-10;
/// ns-2's default carrier-sense threshold `CSThresh_` (W): 550 m.
pub const NS2_DEFAULT_CS_THRESHOLD_W: f64 = 1.559e-11;
/// Transmit power (W) that gives E3's 190 m cell radius at E3's data
/// threshold of 3.6e-10 W with the other ns-2 defaults (see module doc).
pub const E3_CELL_TX_POWER_W: f64 =
    3.6e-10 * 190.0 * 190.0 * 190.0 * 190.0 / (1.5 * 1.5 * 1.5 * 1.5);

/// An invalid propagation parameter or query.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PropagationError {
    /// A parameter that must be a finite number greater than zero is not.
    #[error("propagation parameter {name} must be finite and > 0, got {value}")]
    NotPositive { name: &'static str, value: f64 },
}

fn check_positive(name: &'static str, value: f64) -> Result<f64, PropagationError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(PropagationError::NotPositive { name, value })
    }
}

/// The two-ray ground propagation model of ns-2 (Friis below the
/// crossover distance). All fields are validated by [`TwoRayGround::new`];
/// build it with `new` or [`TwoRayGround::ns2_default`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoRayGround {
    tx_power_w: f64,
    tx_gain: f64,
    rx_gain: f64,
    tx_height_m: f64,
    rx_height_m: f64,
    system_loss: f64,
    frequency_hz: f64,
    min_distance_m: f64,
}

/// Parameters of [`TwoRayGround::new`], with ns-2's defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoRayGroundParams {
    /// Transmit power Pt (W).
    pub tx_power_w: f64,
    /// Transmit antenna gain Gt (linear).
    pub tx_gain: f64,
    /// Receive antenna gain Gr (linear).
    pub rx_gain: f64,
    /// Transmit antenna height ht (m).
    pub tx_height_m: f64,
    /// Receive antenna height hr (m).
    pub rx_height_m: f64,
    /// System loss L (linear, >= 1 in practice).
    pub system_loss: f64,
    /// Carrier frequency (Hz).
    pub frequency_hz: f64,
    /// Distances below this (m) are evaluated at this distance: Friis does
    /// not hold in the near field and would give infinite power at d = 0.
    /// ns-2 has no such floor; the default 1 m never matters at cell scale.
    pub min_distance_m: f64,
}

impl Default for TwoRayGroundParams {
    fn default() -> Self {
        TwoRayGroundParams {
            tx_power_w: NS2_DEFAULT_TX_POWER_W,
            tx_gain: 1.0,
            rx_gain: 1.0,
            tx_height_m: 1.5,
            rx_height_m: 1.5,
            system_loss: 1.0,
            frequency_hz: 914.0e6,
            min_distance_m: 1.0,
        }
    }
}

impl Default for TwoRayGround {
    fn default() -> Self {
        TwoRayGround::ns2_default()
    }
}

impl TwoRayGround {
    /// Builds the model; every parameter must be finite and > 0.
    pub fn new(p: TwoRayGroundParams) -> Result<Self, PropagationError> {
        Ok(TwoRayGround {
            tx_power_w: check_positive("tx_power_w", p.tx_power_w)?,
            tx_gain: check_positive("tx_gain", p.tx_gain)?,
            rx_gain: check_positive("rx_gain", p.rx_gain)?,
            tx_height_m: check_positive("tx_height_m", p.tx_height_m)?,
            rx_height_m: check_positive("rx_height_m", p.rx_height_m)?,
            system_loss: check_positive("system_loss", p.system_loss)?,
            frequency_hz: check_positive("frequency_hz", p.frequency_hz)?,
            min_distance_m: check_positive("min_distance_m", p.min_distance_m)?,
        })
    }

    /// ns-2's defaults (see [`TwoRayGroundParams::default`]).
    pub fn ns2_default() -> Self {
        let p = TwoRayGroundParams::default();
        TwoRayGround {
            tx_power_w: p.tx_power_w,
            tx_gain: p.tx_gain,
            rx_gain: p.rx_gain,
            tx_height_m: p.tx_height_m,
            rx_height_m: p.rx_height_m,
            system_loss: p.system_loss,
            frequency_hz: p.frequency_hz,
            min_distance_m: p.min_distance_m,
        }
    }

    /// The parameters this model was built from.
    pub fn params(&self) -> TwoRayGroundParams {
        TwoRayGroundParams {
            tx_power_w: self.tx_power_w,
            tx_gain: self.tx_gain,
            rx_gain: self.rx_gain,
            tx_height_m: self.tx_height_m,
            rx_height_m: self.rx_height_m,
            system_loss: self.system_loss,
            frequency_hz: self.frequency_hz,
            min_distance_m: self.min_distance_m,
        }
    }

    /// The same model with another transmit power (W).
    pub fn with_tx_power_w(self, tx_power_w: f64) -> Result<Self, PropagationError> {
        Ok(TwoRayGround {
            tx_power_w: check_positive("tx_power_w", tx_power_w)?,
            ..self
        })
    }

    /// Transmit power Pt (W).
    pub fn tx_power_w(&self) -> f64 {
        self.tx_power_w
    }

    /// Wavelength `c / f` (m), with ns-2's c = 3e8 m/s.
    pub fn wavelength_m(&self) -> f64 {
        NS2_SPEED_OF_LIGHT_M_PER_S / self.frequency_hz
    }

    /// Crossover distance `4 * pi * ht * hr / lambda` (m) where the Friis
    /// and two-ray powers are equal.
    pub fn crossover_distance_m(&self) -> f64 {
        4.0 * std::f64::consts::PI * self.tx_height_m * self.rx_height_m / self.wavelength_m()
    }

    /// Friis free-space power (W) at distance `d_m` (floored at the
    /// minimum distance): `Pt*Gt*Gr*lambda^2 / ((4*pi*d)^2 * L)`.
    pub fn friis_w(&self, d_m: f64) -> f64 {
        let d = self.floor_distance(d_m);
        let m = self.wavelength_m() / (4.0 * std::f64::consts::PI * d);
        self.tx_power_w * self.tx_gain * self.rx_gain * m * m / self.system_loss
    }

    /// Two-ray ground power (W) at distance `d_m` (floored at the minimum
    /// distance): `Pt*Gt*Gr*ht^2*hr^2 / (d^4 * L)`.
    pub fn two_ray_w(&self, d_m: f64) -> f64 {
        let d = self.floor_distance(d_m);
        let h2 = self.tx_height_m * self.tx_height_m * self.rx_height_m * self.rx_height_m;
        self.tx_power_w * self.tx_gain * self.rx_gain * h2 / (d * d * d * d * self.system_loss)
    }

    /// Received power (W) at horizontal distance `d_m`: Friis up to and
    /// including the crossover distance, two-ray ground beyond (ns-2.35).
    /// Negative or NaN distances are treated as the minimum distance.
    pub fn received_power_w(&self, d_m: f64) -> f64 {
        if d_m <= self.crossover_distance_m() || d_m.is_nan() {
            self.friis_w(d_m)
        } else {
            self.two_ray_w(d_m)
        }
    }

    /// The distance (m) at which the received power equals `power_w`: the
    /// range of a receiver whose threshold is `power_w`. Power decreases
    /// strictly with distance, so a receiver hears the transmitter exactly
    /// when it is at most this far. A threshold above the power at the
    /// minimum distance gives the minimum distance.
    pub fn distance_for_power_m(&self, power_w: f64) -> Result<f64, PropagationError> {
        let p = check_positive("power_w", power_w)?;
        let dc = self.crossover_distance_m();
        let gain = self.tx_power_w * self.tx_gain * self.rx_gain / self.system_loss;
        let d = if p >= self.friis_w(dc) {
            // Friis: d = lambda / (4*pi) * sqrt(gain / p)
            self.wavelength_m() / (4.0 * std::f64::consts::PI) * (gain / p).sqrt()
        } else {
            let h2 = self.tx_height_m * self.tx_height_m * self.rx_height_m * self.rx_height_m;
            (gain * h2 / p).sqrt().sqrt()
        };
        Ok(d.max(self.min_distance_m))
    }

    /// The transmit power (W) for which the received power at `range_m`
    /// equals `threshold_w`, all other parameters unchanged (the power is
    /// linear in Pt, so this is exact).
    pub fn tx_power_for_range_w(
        &self,
        range_m: f64,
        threshold_w: f64,
    ) -> Result<f64, PropagationError> {
        let range = check_positive("range_m", range_m)?;
        let threshold = check_positive("threshold_w", threshold_w)?;
        let per_watt = self.received_power_w(range) / self.tx_power_w;
        Ok(threshold / per_watt)
    }

    fn floor_distance(&self, d_m: f64) -> f64 {
        if d_m.is_nan() {
            self.min_distance_m
        } else {
            d_m.max(self.min_distance_m)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    #[test]
    fn ns2_default_wavelength_and_crossover() {
        let m = TwoRayGround::ns2_default();
        // 3e8 / 914e6
        assert!(rel(m.wavelength_m(), 0.328_227_571_1) < 1e-9);
        // 4*pi*2.25/0.3282275711 = 86.1424...
        assert!(
            rel(m.crossover_distance_m(), 86.142_4) < 1e-5,
            "{}",
            m.crossover_distance_m()
        );
        // Continuity at the crossover distance.
        let dc = m.crossover_distance_m();
        assert!(rel(m.friis_w(dc), m.two_ray_w(dc)) < 1e-12);
    }

    #[test]
    fn ns2_250m_radius_matches_rxthresh() {
        let m = TwoRayGround::ns2_default();
        // 0.28183815 * 5.0625 / 250^4 = 3.652621e-10
        let p = m.received_power_w(250.0);
        assert!(rel(p, 3.652_621e-10) < 1e-6, "{p}");
        let d = m.distance_for_power_m(NS2_DEFAULT_RX_THRESHOLD_W).unwrap();
        // 3.652e-10 is 3.65262e-10 rounded: the range is 250.01 m.
        assert!((d - 250.01).abs() < 0.001, "{d}");
        // ns-2's comment tables: 550 m at CSThresh 1.559e-11.
        let cs = m.distance_for_power_m(NS2_DEFAULT_CS_THRESHOLD_W).unwrap();
        assert!((cs - 550.0).abs() < 0.1, "{cs}");
        // Values from the RXThresh table in ns-2's wireless scripts:
        // 500 m -> 2.28289e-11, 100 m -> 1.42681e-08.
        assert!(rel(m.received_power_w(500.0), 2.28289e-11) < 1e-5);
        assert!(rel(m.received_power_w(100.0), 1.42681e-08) < 1e-5);
    }

    #[test]
    fn friis_branch_below_crossover() {
        let m = TwoRayGround::ns2_default();
        // 10 m: Friis: 0.28183815 * (0.3282275711 / (4*pi*10))^2 = 1.9228e-6
        let p = m.received_power_w(10.0);
        assert!(rel(p, 1.922_78e-6) < 1e-4, "{p}");
        let d = m.distance_for_power_m(p).unwrap();
        assert!((d - 10.0).abs() < 1e-9, "{d}");
        // Floor at the minimum distance.
        assert_eq!(m.received_power_w(0.0), m.received_power_w(1.0));
        assert_eq!(m.received_power_w(-3.0), m.received_power_w(1.0));
        assert_eq!(m.received_power_w(f64::NAN), m.received_power_w(1.0));
        assert_eq!(m.distance_for_power_m(1.0).unwrap(), 1.0);
    }

    #[test]
    fn e3_cell_power_and_threshold_ranges() {
        let m = TwoRayGround::ns2_default();
        let pt = m.tx_power_for_range_w(190.0, 3.6e-10).unwrap();
        // 3.6e-10 * 190^4 / 5.0625 = 0.0926727...
        assert!(rel(pt, 0.092_672_71) < 1e-6, "{pt}");
        assert!(rel(pt, E3_CELL_TX_POWER_W) < 1e-12);
        let e3 = m.with_tx_power_w(pt).unwrap();
        let r = |w: f64| e3.distance_for_power_m(w).unwrap();
        assert!((r(3.6e-10) - 190.0).abs() < 1e-6);
        // (0.4691553 / 1.5e-11)^(1/4) = 420.54
        assert!((r(1.5e-11) - 420.54).abs() < 0.01, "{}", r(1.5e-11));
        // (0.4691553 / 6.8e-10)^(1/4) = 162.07
        assert!((r(6.8e-10) - 162.07).abs() < 0.01, "{}", r(6.8e-10));
        // (0.4691553 / 4.7e-10)^(1/4) = 177.75
        assert!((r(4.7e-10) - 177.75).abs() < 0.01, "{}", r(4.7e-10));
        // Aggressive Primary-Change (higher threshold) triggers closer to
        // the cell centre than conservative.
        assert!(r(6.8e-10) < r(4.7e-10));
    }

    #[test]
    fn power_is_strictly_decreasing_and_inverse_is_exact() {
        let m = TwoRayGround::ns2_default();
        let mut last = f64::INFINITY;
        for i in 1..2000 {
            let d = i as f64 * 0.5;
            let p = m.received_power_w(d);
            assert!(p < last || d <= 1.0);
            last = p;
            if d >= 1.0 {
                let back = m.distance_for_power_m(p).unwrap();
                assert!((back - d).abs() < 1e-9 * d.max(1.0), "{d} {back}");
            }
        }
    }

    #[test]
    fn system_loss_divides_both_branches() {
        let p = TwoRayGroundParams {
            system_loss: 2.0,
            ..TwoRayGroundParams::default()
        };
        let lossy = TwoRayGround::new(p).unwrap();
        let m = TwoRayGround::ns2_default();
        for d in [10.0, 86.0, 87.0, 250.0] {
            assert!(rel(lossy.received_power_w(d), m.received_power_w(d) / 2.0) < 1e-12);
        }
    }

    #[test]
    fn invalid_parameters_are_errors() {
        let bad = TwoRayGroundParams {
            frequency_hz: 0.0,
            ..TwoRayGroundParams::default()
        };
        assert!(matches!(
            TwoRayGround::new(bad),
            Err(PropagationError::NotPositive {
                name: "frequency_hz",
                ..
            })
        ));
        let nan = TwoRayGroundParams {
            tx_height_m: f64::NAN,
            ..TwoRayGroundParams::default()
        };
        assert!(TwoRayGround::new(nan).is_err());
        let m = TwoRayGround::ns2_default();
        assert!(m.distance_for_power_m(0.0).is_err());
        assert!(m.distance_for_power_m(-1.0).is_err());
        assert!(m.distance_for_power_m(f64::INFINITY).is_err());
        assert!(m.tx_power_for_range_w(0.0, 1e-10).is_err());
        assert!(m.with_tx_power_w(-1.0).is_err());
        assert_eq!(TwoRayGround::new(TwoRayGroundParams::default()).unwrap(), m);
    }
}
