//! Exact times at which a trajectory enters or leaves a disc (a cell
//! boundary, or the region where a received power is above a threshold).
//!
//! On a leg from `p0` (time `t0`) to `p1` (time `t1`), with
//! `v = (p1 - p0) / (t1 - t0)` and `w = p0 - c`, the squared distance to the
//! centre `c` after `s` seconds is `|w + v s|^2`; the station is inside the
//! disc of radius `r` while `a s^2 + b s + k <= 0` with `a = |v|^2`,
//! `b = 2 w.v`, `k = |w|^2 - r^2`. The roots of that quadratic, clipped to
//! the leg, give the inside interval of each leg; adjacent intervals are
//! merged across waypoints, single-instant touches (tangents) are dropped,
//! and what is left gives the enter and exit times, rounded to the
//! nanosecond. Inside means distance <= r, which is "received power >=
//! threshold" for a power that decreases with distance.

use msctp_proto::Time;

use super::error::{MobilityError, check_point, check_positive};
use super::point::Point;
use super::trajectory::Trajectory;

/// Direction of a boundary crossing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CrossingKind {
    /// The station comes inside the disc.
    Enter,
    /// The station goes outside the disc.
    Exit,
}

/// One boundary crossing at an exact time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Crossing {
    pub time: Time,
    pub kind: CrossingKind,
}

/// All crossings of one disc boundary by one trajectory, over all time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CircleCrossings {
    /// Whether the station is inside at time zero (before any crossing).
    pub inside_at_start: bool,
    /// Crossings in time order, alternating Enter and Exit.
    pub crossings: Vec<Crossing>,
}

impl CircleCrossings {
    /// Whether the station is inside at `t`; at a crossing time the state
    /// after the crossing applies.
    pub fn inside_at(&self, t: Time) -> bool {
        let n = self.crossings.partition_point(|c| c.time <= t);
        match n.checked_sub(1).and_then(|i| self.crossings.get(i)) {
            None => self.inside_at_start,
            Some(c) => c.kind == CrossingKind::Enter,
        }
    }

    /// The first crossing strictly after `t`, if any.
    pub fn next_after(&self, t: Time) -> Option<Crossing> {
        let n = self.crossings.partition_point(|c| c.time <= t);
        self.crossings.get(n).copied()
    }

    /// Number of crossings with `start <= time < end`.
    pub fn count_in(&self, start: Time, end: Time) -> usize {
        self.crossings
            .iter()
            .filter(|c| c.time >= start && c.time < end)
            .count()
    }

    /// Maximal intervals `[enter, exit)` during which the station is
    /// inside; `None` as the end means it stays inside for ever.
    pub fn inside_intervals(&self) -> Vec<(Time, Option<Time>)> {
        let mut out = Vec::new();
        let mut open = if self.inside_at_start {
            Some(Time::ZERO)
        } else {
            None
        };
        for c in &self.crossings {
            match (c.kind, open) {
                (CrossingKind::Enter, None) => open = Some(c.time),
                (CrossingKind::Exit, Some(s)) => {
                    out.push((s, Some(c.time)));
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

/// Converts `t0 + s` seconds to a time, clamped to `[t0, t1]`.
fn offset_time(t0: Time, t1: Time, s: f64) -> Time {
    let ns = (s * 1e9).round();
    let off = if ns.is_nan() || ns <= 0.0 {
        0
    } else if ns >= u64::MAX as f64 {
        u64::MAX
    } else {
        ns as u64
    };
    let t = Time::from_nanos(t0.as_nanos().saturating_add(off));
    t.min(t1)
}

/// The sub-interval of one leg during which the station is inside.
fn leg_inside(t0: Time, p0: Point, t1: Time, p1: Point, c: Point, r: f64) -> Option<(Time, Time)> {
    let dur = (t1.as_nanos() - t0.as_nanos()) as f64 * 1e-9;
    let vx = (p1.x - p0.x) / dur;
    let vy = (p1.y - p0.y) / dur;
    let wx = p0.x - c.x;
    let wy = p0.y - c.y;
    let a = vx * vx + vy * vy;
    let b = 2.0 * (wx * vx + wy * vy);
    let k = wx * wx + wy * wy - r * r;
    if a == 0.0 {
        // Standing still (a pause).
        return if k <= 0.0 { Some((t0, t1)) } else { None };
    }
    let disc = b * b - 4.0 * a * k;
    if disc <= 0.0 {
        return None;
    }
    // Numerically stable roots: q = -(b + sign(b) sqrt(disc)) / 2.
    let sq = disc.sqrt();
    let q = if b >= 0.0 {
        -0.5 * (b + sq)
    } else {
        -0.5 * (b - sq)
    };
    let (r1, r2) = (q / a, k / q);
    let (lo, hi) = if r1 <= r2 { (r1, r2) } else { (r2, r1) };
    if hi < 0.0 || lo > dur {
        return None;
    }
    Some((offset_time(t0, t1, lo), offset_time(t0, t1, hi)))
}

impl Trajectory {
    /// Exact crossings of the circle of `radius_m` around `center`.
    pub fn circle_crossings(
        &self,
        center: Point,
        radius_m: f64,
    ) -> Result<CircleCrossings, MobilityError> {
        let c = check_point(center)?;
        let r = check_positive("radius_m", radius_m)?;
        let inside = |p: Point| p.distance_to(c) <= r;
        let wp = self.waypoints();
        let first = wp.first().map_or(Point::ORIGIN, |w| w.1);
        let last = wp.last().map_or(Point::ORIGIN, |w| w.1);
        let start = self.start_time();
        // Inside intervals in time order, closed at both ends.
        let mut intervals: Vec<(Time, Time)> = Vec::new();
        if inside(first) {
            intervals.push((Time::ZERO, start));
        }
        for (t0, p0, t1, p1) in self.legs() {
            if let Some(iv) = leg_inside(t0, p0, t1, p1, c, r) {
                intervals.push(iv);
            }
        }
        if inside(last) {
            intervals.push((self.end_time(), Time::MAX));
        }
        // Merge touching intervals (across waypoints, allowing 1 ns of
        // rounding) and drop single instants.
        let mut merged: Vec<(Time, Time)> = Vec::new();
        for (s, e) in intervals {
            match merged.last_mut() {
                Some(m) if s.as_nanos() <= m.1.as_nanos().saturating_add(1) => m.1 = m.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        merged.retain(|(s, e)| e > s);
        let mut crossings = Vec::with_capacity(2 * merged.len());
        let mut inside_at_start = false;
        for (s, e) in merged {
            if s == Time::ZERO {
                inside_at_start = true;
            } else {
                crossings.push(Crossing {
                    time: s,
                    kind: CrossingKind::Enter,
                });
            }
            if e != Time::MAX {
                crossings.push(Crossing {
                    time: e,
                    kind: CrossingKind::Exit,
                });
            }
        }
        Ok(CircleCrossings {
            inside_at_start,
            crossings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::trajectory::TrajectoryBuilder;
    use super::*;
    use std::time::Duration;

    fn at(s: f64) -> Time {
        Time::from_secs_f64(s)
    }

    #[test]
    fn straight_pass_through_a_circle() {
        // From (-200, 0) to (200, 0) at 10 m/s, starting at t = 0: the circle of
        // radius 100 around the origin is entered at 10 s and left at 30 s.
        let mut b = TrajectoryBuilder::new(Time::ZERO, Point::new(-200.0, 0.0)).unwrap();
        b.move_to(Point::new(200.0, 0.0), 10.0).unwrap();
        let cc = b.build().circle_crossings(Point::ORIGIN, 100.0).unwrap();
        assert!(!cc.inside_at_start);
        assert_eq!(
            cc.crossings,
            vec![
                Crossing {
                    time: at(10.0),
                    kind: CrossingKind::Enter
                },
                Crossing {
                    time: at(30.0),
                    kind: CrossingKind::Exit
                }
            ]
        );
        assert!(!cc.inside_at(at(9.999)));
        assert!(cc.inside_at(at(10.0)));
        assert!(cc.inside_at(at(29.0)));
        assert!(!cc.inside_at(at(30.0)));
        assert_eq!(cc.next_after(at(10.0)).map(|c| c.time), Some(at(30.0)));
        assert_eq!(cc.next_after(at(30.0)), None);
        assert_eq!(cc.count_in(Time::ZERO, at(30.0)), 1);
        assert_eq!(cc.inside_intervals(), vec![(at(10.0), Some(at(30.0)))]);
    }

    #[test]
    fn offset_pass_uses_the_chord() {
        // Line y = 60 through a circle of radius 100: chord half-length 80.
        let mut b = TrajectoryBuilder::new(Time::from_secs(5), Point::new(-100.0, 60.0)).unwrap();
        b.move_to(Point::new(100.0, 60.0), 20.0).unwrap();
        let cc = b.build().circle_crossings(Point::ORIGIN, 100.0).unwrap();
        // Enters at x = -80 (1 s after start), leaves at x = 80 (9 s).
        assert_eq!(cc.crossings[0].time, at(6.0));
        assert_eq!(cc.crossings[1].time, at(14.0));
    }

    #[test]
    fn inside_across_waypoints_and_pauses_is_one_interval() {
        let mut b = TrajectoryBuilder::new(Time::ZERO, Point::new(0.0, 0.0)).unwrap();
        b.move_to(Point::new(50.0, 0.0), 10.0).unwrap();
        b.pause(Duration::from_secs(3)).unwrap();
        b.move_to(Point::new(50.0, 50.0), 10.0).unwrap();
        b.move_to(Point::new(200.0, 50.0), 10.0).unwrap();
        let tr = b.build();
        let cc = tr.circle_crossings(Point::ORIGIN, 100.0).unwrap();
        assert!(cc.inside_at_start);
        assert_eq!(cc.crossings.len(), 1);
        assert_eq!(cc.crossings[0].kind, CrossingKind::Exit);
        // Exit at x = sqrt(100^2 - 50^2) = 86.6025 on the last leg, which
        // starts at 13 s from x = 50.
        let expect = 13.0 + ((10_000.0f64 - 2_500.0).sqrt() - 50.0) / 10.0;
        assert!((cc.crossings[0].time.as_secs_f64() - expect).abs() < 2e-9);
        let pos = tr.position(cc.crossings[0].time);
        assert!((pos.distance_to(Point::ORIGIN) - 100.0).abs() < 1e-6);
    }

    #[test]
    fn tangent_and_outside_paths_do_not_cross() {
        let mut b = TrajectoryBuilder::new(Time::ZERO, Point::new(-200.0, 100.0)).unwrap();
        b.move_to(Point::new(200.0, 100.0), 10.0).unwrap();
        b.move_to(Point::new(200.0, 300.0), 10.0).unwrap();
        let cc = b.build().circle_crossings(Point::ORIGIN, 100.0).unwrap();
        assert!(!cc.inside_at_start);
        assert!(cc.crossings.is_empty());
        assert!(cc.inside_intervals().is_empty());
    }

    #[test]
    fn ending_inside_stays_inside() {
        let mut b = TrajectoryBuilder::new(Time::ZERO, Point::new(300.0, 0.0)).unwrap();
        b.move_to(Point::new(0.0, 0.0), 10.0).unwrap();
        let cc = b.build().circle_crossings(Point::ORIGIN, 100.0).unwrap();
        assert_eq!(
            cc.crossings,
            vec![Crossing {
                time: at(20.0),
                kind: CrossingKind::Enter
            }]
        );
        assert_eq!(cc.inside_intervals(), vec![(at(20.0), None)]);
        assert!(cc.inside_at(Time::MAX));
    }

    #[test]
    fn stationary_inside_and_outside() {
        let s = Trajectory::stationary(Point::new(10.0, 0.0)).unwrap();
        let cc = s.circle_crossings(Point::ORIGIN, 100.0).unwrap();
        assert!(cc.inside_at_start && cc.crossings.is_empty());
        assert_eq!(cc.inside_intervals(), vec![(Time::ZERO, None)]);
        let cc = s.circle_crossings(Point::new(500.0, 0.0), 100.0).unwrap();
        assert!(!cc.inside_at_start && cc.crossings.is_empty());
        assert!(s.circle_crossings(Point::ORIGIN, 0.0).is_err());
        assert!(s.circle_crossings(Point::new(f64::NAN, 0.0), 1.0).is_err());
    }

    #[test]
    fn crossing_positions_lie_on_the_circle_for_many_legs() {
        // A zig-zag path: every reported crossing is on the boundary and the
        // inside state sampled just before and after flips.
        let mut b = TrajectoryBuilder::new(Time::ZERO, Point::new(-150.0, -150.0)).unwrap();
        for i in 0..20 {
            let x = if i % 2 == 0 { 150.0 } else { -150.0 };
            let y = -150.0 + 15.0 * i as f64;
            b.move_to(Point::new(x, y), 7.0).unwrap();
        }
        let tr = b.build();
        let c = Point::new(10.0, 5.0);
        let cc = tr.circle_crossings(c, 120.0).unwrap();
        assert!(cc.crossings.len() >= 20);
        for (i, x) in cc.crossings.iter().enumerate() {
            let d = tr.position(x.time).distance_to(c);
            assert!((d - 120.0).abs() < 1e-5, "{d}");
            let before = tr
                .position(Time::from_nanos(x.time.as_nanos() - 1_000_000))
                .distance_to(c)
                <= 120.0;
            let after = tr
                .position(Time::from_nanos(x.time.as_nanos() + 1_000_000))
                .distance_to(c)
                <= 120.0;
            assert_eq!(after, x.kind == CrossingKind::Enter, "crossing {i}");
            assert_eq!(before, x.kind == CrossingKind::Exit, "crossing {i}");
        }
    }
}
