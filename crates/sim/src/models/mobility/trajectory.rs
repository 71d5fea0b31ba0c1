//! Piecewise-linear trajectories through timed waypoints.

use std::time::Duration;

use msctp_proto::Time;

use super::error::{MobilityError, check_point, check_positive};
use super::point::Point;

/// Default bound on the number of waypoints of one trajectory (a 600 s run
/// of random waypoints at 1 s per leg needs about 1200).
pub const DEFAULT_MAX_WAYPOINTS: usize = 1_000_000;

/// Converts a non-negative number of seconds to whole nanoseconds
/// (rounded to the nearest).
pub(crate) fn secs_to_nanos(name: &'static str, s: f64) -> Result<u64, MobilityError> {
    if !s.is_finite() || s < 0.0 {
        return Err(MobilityError::Negative { name, value: s });
    }
    let ns = (s * 1e9).round();
    if ns >= u64::MAX as f64 {
        Err(MobilityError::TimeOverflow)
    } else {
        Ok(ns as u64)
    }
}

/// A path in the plane as a function of time: straight legs at constant
/// speed between timed waypoints, strictly increasing in time. Before the
/// first waypoint the station stands at the first point, after the last at
/// the last point. A pause is two consecutive waypoints at the same point.
#[derive(Debug, Clone, PartialEq)]
pub struct Trajectory {
    points: Vec<(Time, Point)>,
}

impl Trajectory {
    /// A station that never moves.
    pub fn stationary(p: Point) -> Result<Trajectory, MobilityError> {
        Ok(Trajectory {
            points: vec![(Time::ZERO, check_point(p)?)],
        })
    }

    /// A trajectory through the given waypoints, whose times must strictly
    /// increase; at most `max_waypoints` of them.
    pub fn from_waypoints(
        points: Vec<(Time, Point)>,
        max_waypoints: usize,
    ) -> Result<Trajectory, MobilityError> {
        if points.is_empty() {
            return Err(MobilityError::Empty);
        }
        if points.len() > max_waypoints {
            return Err(MobilityError::TooManyWaypoints {
                limit: max_waypoints,
            });
        }
        for (i, (t, p)) in points.iter().enumerate() {
            check_point(*p)?;
            if i > 0 && points[i - 1].0 >= *t {
                return Err(MobilityError::TimeNotIncreasing {
                    last: points[i - 1].0,
                    next: *t,
                });
            }
        }
        Ok(Trajectory { points })
    }

    /// The timed waypoints.
    pub fn waypoints(&self) -> &[(Time, Point)] {
        &self.points
    }

    /// Time of the first waypoint (the station stands still before it).
    pub fn start_time(&self) -> Time {
        self.points.first().map_or(Time::ZERO, |w| w.0)
    }

    /// Time of the last waypoint (the station stands still after it).
    pub fn end_time(&self) -> Time {
        self.points.last().map_or(Time::ZERO, |w| w.0)
    }

    /// Position at time `t`: exact at waypoints, linear between them.
    pub fn position(&self, t: Time) -> Point {
        let i = self.points.partition_point(|(ti, _)| *ti <= t);
        if i == 0 {
            return self.points.first().map_or(Point::ORIGIN, |w| w.1);
        }
        let (t0, p0) = self.points[i - 1];
        match self.points.get(i) {
            None => p0,
            Some(&(t1, p1)) => {
                let f =
                    (t.as_nanos() - t0.as_nanos()) as f64 / (t1.as_nanos() - t0.as_nanos()) as f64;
                p0.lerp(p1, f)
            }
        }
    }

    /// The straight legs `(t0, p0, t1, p1)` between consecutive waypoints.
    pub fn legs(&self) -> impl Iterator<Item = (Time, Point, Time, Point)> + '_ {
        self.points
            .windows(2)
            .map(|w| (w[0].0, w[0].1, w[1].0, w[1].1))
    }
}

/// Builds a [`Trajectory`] leg by leg from a starting point and time.
#[derive(Debug, Clone)]
pub struct TrajectoryBuilder {
    points: Vec<(Time, Point)>,
    max_waypoints: usize,
}

impl TrajectoryBuilder {
    /// Starts at `start` at time `t0`.
    pub fn new(t0: Time, start: Point) -> Result<TrajectoryBuilder, MobilityError> {
        Ok(TrajectoryBuilder {
            points: vec![(t0, check_point(start)?)],
            max_waypoints: DEFAULT_MAX_WAYPOINTS,
        })
    }

    /// Changes the waypoint limit (default [`DEFAULT_MAX_WAYPOINTS`]).
    pub fn max_waypoints(&mut self, limit: usize) -> &mut Self {
        self.max_waypoints = limit;
        self
    }

    /// Current time and position (end of the path so far).
    pub fn last(&self) -> (Time, Point) {
        // The builder always holds its starting waypoint.
        self.points
            .last()
            .copied()
            .unwrap_or((Time::ZERO, Point::ORIGIN))
    }

    fn push(&mut self, t: Time, p: Point) -> Result<(), MobilityError> {
        let (last_t, _) = self.last();
        if t <= last_t {
            return Err(MobilityError::TimeNotIncreasing {
                last: last_t,
                next: t,
            });
        }
        if self.points.len() >= self.max_waypoints {
            return Err(MobilityError::TooManyWaypoints {
                limit: self.max_waypoints,
            });
        }
        self.points.push((t, p));
        Ok(())
    }

    /// Moves in a straight line to `p` at `speed_mps`; the leg's duration is
    /// rounded to the nanosecond (at least 1 ns). Moving to the current
    /// point does nothing.
    pub fn move_to(&mut self, p: Point, speed_mps: f64) -> Result<&mut Self, MobilityError> {
        let p = check_point(p)?;
        let speed = check_positive("speed_mps", speed_mps)?;
        let (t, here) = self.last();
        let dist = here.distance_to(p);
        if dist == 0.0 {
            return Ok(self);
        }
        let ns = secs_to_nanos("leg duration", dist / speed)?.max(1);
        let arrival = t
            .as_nanos()
            .checked_add(ns)
            .ok_or(MobilityError::TimeOverflow)?;
        self.push(Time::from_nanos(arrival), p)?;
        Ok(self)
    }

    /// Moves in a straight line to `p`, arriving exactly at `arrival`
    /// (which must be later than the current time).
    pub fn move_to_at(&mut self, p: Point, arrival: Time) -> Result<&mut Self, MobilityError> {
        let p = check_point(p)?;
        self.push(arrival, p)?;
        Ok(self)
    }

    /// Stands still for `d` (nothing for a zero duration).
    pub fn pause(&mut self, d: Duration) -> Result<&mut Self, MobilityError> {
        let (t, here) = self.last();
        let ns = u64::try_from(d.as_nanos()).map_err(|_| MobilityError::TimeOverflow)?;
        if ns == 0 {
            return Ok(self);
        }
        let until = t
            .as_nanos()
            .checked_add(ns)
            .ok_or(MobilityError::TimeOverflow)?;
        self.push(Time::from_nanos(until), here)?;
        Ok(self)
    }

    /// Stands still until `t` (nothing if `t` is not later than now).
    pub fn pause_until(&mut self, t: Time) -> Result<&mut Self, MobilityError> {
        let (now, here) = self.last();
        if t > now {
            self.push(t, here)?;
        }
        Ok(self)
    }

    /// The finished trajectory.
    pub fn build(self) -> Trajectory {
        Trajectory {
            points: self.points,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_is_exact_at_waypoints_and_linear_between() {
        let mut b = TrajectoryBuilder::new(Time::from_secs(1), Point::new(0.0, 0.0)).unwrap();
        b.move_to(Point::new(100.0, 0.0), 10.0).unwrap();
        b.pause(Duration::from_secs(5)).unwrap();
        b.move_to_at(Point::new(100.0, 50.0), Time::from_secs(26))
            .unwrap();
        let tr = b.build();
        assert_eq!(tr.waypoints().len(), 4);
        assert_eq!(tr.position(Time::ZERO), Point::new(0.0, 0.0));
        assert_eq!(tr.position(Time::from_secs(1)), Point::new(0.0, 0.0));
        assert_eq!(tr.position(Time::from_secs(6)), Point::new(50.0, 0.0));
        assert_eq!(tr.position(Time::from_secs(11)), Point::new(100.0, 0.0));
        assert_eq!(tr.position(Time::from_secs(14)), Point::new(100.0, 0.0));
        assert_eq!(tr.position(Time::from_secs(21)), Point::new(100.0, 25.0));
        assert_eq!(tr.position(Time::from_secs(26)), Point::new(100.0, 50.0));
        assert_eq!(tr.position(Time::MAX), Point::new(100.0, 50.0));
        assert_eq!(tr.start_time(), Time::from_secs(1));
        assert_eq!(tr.end_time(), Time::from_secs(26));
        assert_eq!(tr.legs().count(), 3);
    }

    #[test]
    fn stationary_and_errors() {
        let s = Trajectory::stationary(Point::new(3.0, 4.0)).unwrap();
        assert_eq!(s.position(Time::from_secs(100)), Point::new(3.0, 4.0));
        assert!(Trajectory::stationary(Point::new(f64::INFINITY, 0.0)).is_err());
        assert_eq!(
            Trajectory::from_waypoints(vec![], 10),
            Err(MobilityError::Empty)
        );
        let p = Point::ORIGIN;
        assert!(matches!(
            Trajectory::from_waypoints(vec![(Time::from_secs(1), p), (Time::from_secs(1), p)], 10),
            Err(MobilityError::TimeNotIncreasing { .. })
        ));
        assert!(matches!(
            Trajectory::from_waypoints(vec![(Time::from_secs(1), p), (Time::from_secs(2), p)], 1),
            Err(MobilityError::TooManyWaypoints { limit: 1 })
        ));
        let mut b = TrajectoryBuilder::new(Time::ZERO, p).unwrap();
        assert!(b.move_to(Point::new(1.0, 0.0), 0.0).is_err());
        assert!(b.move_to(Point::new(1.0, 0.0), f64::NAN).is_err());
        assert!(b.move_to(Point::new(f64::NAN, 0.0), 1.0).is_err());
        assert!(b.move_to_at(Point::new(1.0, 0.0), Time::ZERO).is_err());
        b.max_waypoints(2);
        b.move_to(Point::new(1.0, 0.0), 1.0).unwrap();
        assert!(matches!(
            b.move_to(Point::new(2.0, 0.0), 1.0),
            Err(MobilityError::TooManyWaypoints { .. })
        ));
        // Zero moves and pauses add nothing.
        b.move_to(Point::new(1.0, 0.0), 1.0).unwrap();
        b.pause(Duration::ZERO).unwrap();
        b.pause_until(Time::ZERO).unwrap();
        let mut far = TrajectoryBuilder::new(Time::MAX, p).unwrap();
        assert_eq!(
            far.pause(Duration::from_secs(1)).err(),
            Some(MobilityError::TimeOverflow)
        );
    }
}
