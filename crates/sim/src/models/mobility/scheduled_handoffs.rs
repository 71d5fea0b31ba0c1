//! The E1 movement (Song and Wang): a mobile node that makes exactly the
//! requested number of UMTS/WLAN handoffs in a time window.
//!
//! Geometry (default, [`OverlapGeometry::default`]): UMTS Node-B at (0, 0) with
//! radius 500 m; 802.11b AP at `(300 + 250/sqrt 2, 300 + 250/sqrt 2)` =
//! (476.78, 476.78) with radius 250 m, so its cell boundary cuts the
//! diagonal at (300, 300). The MN's home point is (250, 250), inside UMTS
//! only; its turning point is (350, 350), inside both cells (494.97 m from
//! the Node-B). Along the diagonal at 10 m/s the MN needs 50*sqrt 2 / 10 =
//! 7.07 s to reach the overlap and spends 7.07 s in it before the turning
//! point: the "about 7.07 s" of Song and Wang's set-up (`experiments/e1.toml`). The whole path stays in
//! UMTS coverage (a disc is convex), so every handoff is a crossing of the
//! AP cell's boundary: entering it is a handoff to WLAN, leaving it a
//! handoff back to UMTS.
//!
//! Two ways of filling the window with `n` handoffs ([`TurnPolicy`]):
//!
//! - [`TurnPolicy::Continuous`] (Song and Wang's movement, the default):
//!   the MN moves at 10 m/s without stopping at the turning point, so every
//!   visit to the WLAN lasts `2 * t_in` (14.14 s): in at `h`, out at
//!   `h + 2 * t_in`. Visit `k` (1-based) enters at `h_{2k-1} = start +
//!   (2k - 1) * floor(len / (n + 1))` (the odd instants of an even spread);
//!   between visits the MN waits at home, in UMTS only. With an odd `n`
//!   the last visit has no exit: the MN stops at the turning point and stays
//!   in the WLAN.
//! - [`TurnPolicy::Dwell`] (this model's first reading): handoff `i`
//!   (1..=n) happens exactly at `h_i = start + i * floor(len / (n + 1))`
//!   (nanoseconds), so handoffs are evenly spread. Odd handoffs enter the
//!   WLAN: the MN leaves home at `h_i - t_reach`, crosses the boundary at
//!   `h_i` and waits at the turning point. Even ones leave it: the MN leaves
//!   the turning point at `h_i - t_in`, crosses at `h_i` and waits at home.
//!   The share of time in the WLAN then grows with `n`.
//!
//! `n = 0` keeps the MN at home (UMTS only). Consecutive handoff instants
//! must be at least `2 * max(t_reach, t_in)` apart (14.14 s with the
//! defaults: at most 41 handoffs in 600 s).

use std::time::Duration;

use msctp_proto::Time;

use super::error::{MobilityError, check_point, check_positive};
use super::point::Point;
use super::trajectory::{Trajectory, TrajectoryBuilder, secs_to_nanos};

/// Cells and path of the E1 scenario; see the module documentation.
#[derive(Debug, Clone, PartialEq)]
pub struct OverlapGeometry {
    pub node_b: Point,
    pub node_b_radius_m: f64,
    pub ap: Point,
    pub ap_radius_m: f64,
    /// Where the MN starts and waits while on UMTS only.
    pub home: Point,
    /// Where the MN turns back, inside both cells.
    pub turn: Point,
    pub speed_mps: f64,
}

impl Default for OverlapGeometry {
    fn default() -> Self {
        let off = 250.0 / std::f64::consts::SQRT_2;
        OverlapGeometry {
            node_b: Point::new(0.0, 0.0),
            node_b_radius_m: 500.0,
            ap: Point::new(300.0 + off, 300.0 + off),
            ap_radius_m: 250.0,
            home: Point::new(250.0, 250.0),
            turn: Point::new(350.0, 350.0),
            speed_mps: 10.0,
        }
    }
}

/// What the MN does at the turning point (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TurnPolicy {
    /// Turn back at once: every visit to the WLAN lasts `2 * t_in`.
    #[default]
    Continuous,
    /// Wait at the turning point until the next handoff is due.
    Dwell,
}

impl OverlapGeometry {
    /// Checks that home is in UMTS only and the turning point in both cells.
    pub fn validate(&self) -> Result<(), MobilityError> {
        for p in [self.node_b, self.ap, self.home, self.turn] {
            check_point(p)?;
        }
        check_positive("node_b_radius_m", self.node_b_radius_m)?;
        check_positive("ap_radius_m", self.ap_radius_m)?;
        check_positive("speed_mps", self.speed_mps)?;
        if self.home.distance_to(self.node_b) >= self.node_b_radius_m
            || self.turn.distance_to(self.node_b) >= self.node_b_radius_m
        {
            return Err(MobilityError::BadGeometry(
                "home and turn must be inside the UMTS cell",
            ));
        }
        if self.home.distance_to(self.ap) <= self.ap_radius_m {
            return Err(MobilityError::BadGeometry(
                "home must be outside the WLAN cell",
            ));
        }
        if self.turn.distance_to(self.ap) >= self.ap_radius_m {
            return Err(MobilityError::BadGeometry(
                "turn must be inside the WLAN cell",
            ));
        }
        Ok(())
    }

    /// Distance (m) from home to the WLAN boundary along home -> turn.
    fn distance_to_boundary_m(&self) -> f64 {
        let len = self.home.distance_to(self.turn);
        let (dx, dy) = (
            (self.turn.x - self.home.x) / len,
            (self.turn.y - self.home.y) / len,
        );
        let (wx, wy) = (self.home.x - self.ap.x, self.home.y - self.ap.y);
        let b = wx * dx + wy * dy;
        let k = wx * wx + wy * wy - self.ap_radius_m * self.ap_radius_m;
        // Home is outside (k > 0) and turn inside, so the smaller root is
        // the entry point and lies in (0, len).
        -b - (b * b - k).max(0.0).sqrt()
    }

    /// Seconds from home to the overlap (7.07 s with the defaults).
    pub fn time_to_overlap_s(&self) -> f64 {
        self.distance_to_boundary_m() / self.speed_mps
    }

    /// Seconds from entering the overlap to the turning point (7.07 s).
    pub fn time_in_overlap_s(&self) -> f64 {
        (self.home.distance_to(self.turn) - self.distance_to_boundary_m()) / self.speed_mps
    }
}

/// The exact handoff times that [`scheduled_handoffs`] produces with the
/// default geometry `g` (e.g. to build the handover windows of the
/// metrics), in order. Saturates at [`Time::MAX`].
pub fn handoff_times(
    g: &OverlapGeometry,
    policy: TurnPolicy,
    handoffs: u32,
    window_start: Time,
    window_len: Duration,
) -> Vec<Time> {
    let len = u64::try_from(window_len.as_nanos()).unwrap_or(u64::MAX);
    let spacing = len / (u64::from(handoffs) + 1);
    let at = |i: u64| {
        spacing
            .saturating_mul(i)
            .saturating_add(window_start.as_nanos())
    };
    match policy {
        TurnPolicy::Dwell => (1..=u64::from(handoffs))
            .map(|i| Time::from_nanos(at(i)))
            .collect(),
        TurnPolicy::Continuous => {
            let visit = secs_to_nanos("visit", 2.0 * g.time_in_overlap_s()).unwrap_or(u64::MAX);
            (1..=u64::from(handoffs))
                .map(|i| {
                    if i % 2 == 1 {
                        Time::from_nanos(at(i))
                    } else {
                        Time::from_nanos(at(i - 1).saturating_add(visit))
                    }
                })
                .collect()
        }
    }
}

/// The E1 trajectory with exactly `handoffs` crossings of the WLAN cell
/// boundary in `[window_start, window_start + window_len)`, at the times
/// given in the module documentation for `policy`; the MN never leaves
/// UMTS coverage.
pub fn scheduled_handoffs(
    g: &OverlapGeometry,
    policy: TurnPolicy,
    handoffs: u32,
    window_start: Time,
    window_len: Duration,
) -> Result<Trajectory, MobilityError> {
    g.validate()?;
    let mut b = TrajectoryBuilder::new(Time::ZERO, g.home)?;
    if handoffs == 0 {
        return Ok(b.build());
    }
    let leg = secs_to_nanos("leg", g.home.distance_to(g.turn) / g.speed_mps)?;
    let reach = secs_to_nanos("reach", g.time_to_overlap_s())?.min(leg);
    let inside = leg - reach;
    let len = u64::try_from(window_len.as_nanos()).map_err(|_| MobilityError::TimeOverflow)?;
    let spacing = len / (u64::from(handoffs) + 1);
    let needed = reach.max(inside).saturating_mul(2);
    if spacing < needed {
        return Err(MobilityError::HandoffsDoNotFit {
            handoffs,
            needed_ns: needed,
            spacing_ns: spacing,
        });
    }
    let instant = |i: u64| {
        spacing
            .checked_mul(i)
            .and_then(|x| x.checked_add(window_start.as_nanos()))
            .ok_or(MobilityError::TimeOverflow)
    };
    let first_departure = |h: u64| {
        h.checked_sub(reach)
            .ok_or(MobilityError::BadGeometry("first handoff before time zero"))
    };
    match policy {
        TurnPolicy::Dwell => {
            for i in 1..=u64::from(handoffs) {
                let h = instant(i)?;
                let (depart, to) = if i % 2 == 1 {
                    (first_departure(h)?, g.turn)
                } else {
                    (h - inside, g.home)
                };
                b.pause_until(Time::from_nanos(depart))?;
                let arrive = depart.checked_add(leg).ok_or(MobilityError::TimeOverflow)?;
                b.move_to_at(to, Time::from_nanos(arrive))?;
            }
        }
        TurnPolicy::Continuous => {
            for i in (1..=u64::from(handoffs)).step_by(2) {
                let depart = first_departure(instant(i)?)?;
                b.pause_until(Time::from_nanos(depart))?;
                let turn = depart.checked_add(leg).ok_or(MobilityError::TimeOverflow)?;
                b.move_to_at(g.turn, Time::from_nanos(turn))?;
                if i < u64::from(handoffs) {
                    let home = turn.checked_add(leg).ok_or(MobilityError::TimeOverflow)?;
                    b.move_to_at(g.home, Time::from_nanos(home))?;
                }
            }
        }
    }
    Ok(b.build())
}

#[cfg(test)]
mod tests {
    use super::super::CrossingKind;
    use super::*;

    #[test]
    fn default_geometry_has_the_published_timings() {
        let g = OverlapGeometry::default();
        g.validate().unwrap();
        // 50 * sqrt(2) / 10 = 7.0711 s both ways.
        assert!(
            (g.time_to_overlap_s() - 7.071_068).abs() < 1e-5,
            "{}",
            g.time_to_overlap_s()
        );
        assert!(
            (g.time_in_overlap_s() - 7.071_068).abs() < 1e-5,
            "{}",
            g.time_in_overlap_s()
        );
    }

    #[test]
    fn exact_number_of_handoffs_for_0_to_10() {
        let g = OverlapGeometry::default();
        let start = Time::from_secs(30);
        let len = Duration::from_secs(600);
        let end = start + len;
        for n in 0..=10u32 {
            let tr = scheduled_handoffs(&g, TurnPolicy::Dwell, n, start, len).unwrap();
            let wlan = tr.circle_crossings(g.ap, g.ap_radius_m).unwrap();
            let umts = tr.circle_crossings(g.node_b, g.node_b_radius_m).unwrap();
            assert!(
                umts.inside_at_start && umts.crossings.is_empty(),
                "left UMTS with n={n}"
            );
            assert!(!wlan.inside_at_start);
            assert_eq!(wlan.crossings.len(), n as usize, "n={n}");
            assert_eq!(wlan.count_in(start, end), n as usize, "n={n}");
            let spacing = 600_000_000_000 / (u64::from(n) + 1);
            for (i, c) in wlan.crossings.iter().enumerate() {
                let h = start.as_nanos() + spacing * (i as u64 + 1);
                assert!(
                    c.time.as_nanos().abs_diff(h) <= 2,
                    "n={n} i={i} {} vs {h}",
                    c.time
                );
                let kind = if i % 2 == 0 {
                    CrossingKind::Enter
                } else {
                    CrossingKind::Exit
                };
                assert_eq!(c.kind, kind);
            }
            assert_eq!(wlan.inside_at(Time::MAX), n % 2 == 1);
            // Top speed is 10 m/s.
            for (t0, p0, t1, p1) in tr.legs() {
                let v = p0.distance_to(p1) / ((t1.as_nanos() - t0.as_nanos()) as f64 * 1e-9);
                assert!(v <= 10.0 + 1e-6, "{v}");
            }
        }
    }

    #[test]
    fn too_many_handoffs_is_an_error() {
        let g = OverlapGeometry::default();
        let r = scheduled_handoffs(
            &g,
            TurnPolicy::Continuous,
            50,
            Time::from_secs(30),
            Duration::from_secs(600),
        );
        assert!(matches!(
            r,
            Err(MobilityError::HandoffsDoNotFit { handoffs: 50, .. })
        ));
        assert!(
            scheduled_handoffs(
                &g,
                TurnPolicy::Continuous,
                41,
                Time::from_secs(30),
                Duration::from_secs(600)
            )
            .is_ok()
        );
        let mut bad = g.clone();
        bad.turn = Point::new(260.0, 260.0);
        assert!(matches!(bad.validate(), Err(MobilityError::BadGeometry(_))));
        let mut bad = g;
        bad.home = Point::new(400.0, 400.0);
        assert!(bad.validate().is_err());
    }
    #[test]
    fn continuous_movement_visits_the_wlan_for_14_s() {
        let g = OverlapGeometry::default();
        let start = Time::from_secs(30);
        let len = Duration::from_secs(600);
        let visit = 2.0 * g.time_in_overlap_s();
        for n in 0..=10u32 {
            let tr = scheduled_handoffs(&g, TurnPolicy::Continuous, n, start, len).unwrap();
            let wlan = tr.circle_crossings(g.ap, g.ap_radius_m).unwrap();
            assert_eq!(wlan.crossings.len(), n as usize, "n={n}");
            let want = handoff_times(&g, TurnPolicy::Continuous, n, start, len);
            for (c, h) in wlan.crossings.iter().zip(&want) {
                assert!(c.time.as_nanos().abs_diff(h.as_nanos()) <= 2, "n={n}");
            }
            // Each visit with an exit lasts 14.14 s; the MN never stands
            // still inside the WLAN except after an odd last entry.
            for pair in wlan.crossings.chunks(2) {
                if let [enter, exit] = pair {
                    assert_eq!(enter.kind, CrossingKind::Enter);
                    assert_eq!(exit.kind, CrossingKind::Exit);
                    let d = (exit.time.as_nanos() - enter.time.as_nanos()) as f64 * 1e-9;
                    assert!((d - visit).abs() < 1e-6, "n={n} {d}");
                }
            }
            assert_eq!(wlan.inside_at(Time::MAX), n % 2 == 1);
            for (t0, p0, t1, p1) in tr.legs() {
                let v = p0.distance_to(p1) / ((t1.as_nanos() - t0.as_nanos()) as f64 * 1e-9);
                assert!(v <= 10.0 + 1e-6, "{v}");
            }
        }
    }
}
