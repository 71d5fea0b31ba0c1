//! Movement patterns for the experiments: regular cross-over (E3
//! "cross-over") and seeded random waypoints (E3 "random").

use std::time::Duration;

use msctp_proto::Time;
use rand_core::RngCore;

use super::error::{MobilityError, check_point, check_positive};
use super::point::Point;
use super::trajectory::{Trajectory, TrajectoryBuilder};

/// Regular back-and-forth movement (E3 "cross-over": no ping-pong).
///
/// The station stands at `a` until `t0`, then travels `legs` straight legs
/// alternately to `b` and back to `a` at `speed_mps`, standing still for
/// `pause` at each turning point (not after the last leg). With `a` inside
/// only the first cell and `b` inside only the second, every leg crosses
/// the overlap once, i.e. one handover per leg.
pub fn cross_over(
    a: Point,
    b: Point,
    speed_mps: f64,
    pause: Duration,
    t0: Time,
    legs: usize,
) -> Result<Trajectory, MobilityError> {
    let a = check_point(a)?;
    let b = check_point(b)?;
    check_positive("speed_mps", speed_mps)?;
    if a == b && legs > 0 {
        return Err(MobilityError::BadGeometry("cross-over end points coincide"));
    }
    let mut builder = TrajectoryBuilder::new(t0, a)?;
    for i in 0..legs {
        if i > 0 {
            builder.pause(pause)?;
        }
        let to = if i % 2 == 0 { b } else { a };
        builder.move_to(to, speed_mps)?;
    }
    Ok(builder.build())
}

/// Parameters of [`random_waypoint`].
#[derive(Debug, Clone, PartialEq)]
pub struct RandomWaypointParams {
    /// Lower-left corner of the rectangular region (m).
    pub region_min: Point,
    /// Upper-right corner of the region (m). A zero width or height is
    /// allowed: a segment, e.g. the line through two cell centres.
    pub region_max: Point,
    /// Starting point (must lie in the region).
    pub start: Point,
    /// Time at which the first leg starts.
    pub start_time: Time,
    /// Speed of each leg is uniform in `[speed_min_mps, speed_max_mps]`;
    /// the minimum must be > 0 (a zero minimum makes the average speed
    /// decay over time, a known flaw of random waypoint).
    pub speed_min_mps: f64,
    pub speed_max_mps: f64,
    /// Pause after each leg, uniform in `[pause_min, pause_max]`.
    pub pause_min: Duration,
    pub pause_max: Duration,
    /// Legs are added until the trajectory reaches this time.
    pub until: Time,
    /// Bound on the number of waypoints.
    pub max_waypoints: usize,
}

/// A uniform number in `[0, 1)` from the 53 high bits of one `u64` draw.
fn unit<R: RngCore + ?Sized>(rng: &mut R) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Seeded random waypoint movement (E3 "random", where ping-pong between
/// overlapping cells is possible).
///
/// Exact rule: from `start` at `start_time`, repeat until the path reaches
/// `until`: draw four numbers from `rng`, in this order, each uniform in
/// `[0, 1)` from the high 53 bits of one `next_u64`: `ux`, `uy`, `us`,
/// `up`. Travel in a straight line to
/// `(min.x + ux * (max.x - min.x), min.y + uy * (max.y - min.y))` at speed
/// `speed_min + us * (speed_max - speed_min)`, then pause for
/// `pause_min + floor(up * (pause_max - pause_min))` (in nanoseconds).
/// The last leg may end after `until`.
///
/// Over a strip along the line through two overlapping cells' centres, the
/// station often turns back inside the overlap region, so it crosses the
/// same boundary back and forth: ping-pong. The same RNG state gives the
/// same trajectory.
pub fn random_waypoint<R: RngCore + ?Sized>(
    p: &RandomWaypointParams,
    rng: &mut R,
) -> Result<Trajectory, MobilityError> {
    let lo = check_point(p.region_min)?;
    let hi = check_point(p.region_max)?;
    let start = check_point(p.start)?;
    if lo.x > hi.x || lo.y > hi.y {
        return Err(MobilityError::BadRegion(
            "region_min must not exceed region_max",
        ));
    }
    if start.x < lo.x || start.x > hi.x || start.y < lo.y || start.y > hi.y {
        return Err(MobilityError::BadRegion("start point outside the region"));
    }
    let vmin = check_positive("speed_min_mps", p.speed_min_mps)?;
    let vmax = check_positive("speed_max_mps", p.speed_max_mps)?;
    if vmin > vmax {
        return Err(MobilityError::BadRegion(
            "speed_min_mps exceeds speed_max_mps",
        ));
    }
    if p.pause_min > p.pause_max {
        return Err(MobilityError::BadRegion("pause_min exceeds pause_max"));
    }
    if lo == hi && p.pause_max.is_zero() {
        return Err(MobilityError::BadRegion(
            "a single-point region without pauses never advances",
        ));
    }
    let pmin = u64::try_from(p.pause_min.as_nanos()).map_err(|_| MobilityError::TimeOverflow)?;
    let pmax = u64::try_from(p.pause_max.as_nanos()).map_err(|_| MobilityError::TimeOverflow)?;
    let mut b = TrajectoryBuilder::new(p.start_time, start)?;
    b.max_waypoints(p.max_waypoints);
    while b.last().0 < p.until {
        let ux = unit(rng);
        let uy = unit(rng);
        let us = unit(rng);
        let up = unit(rng);
        let dest = Point::new(lo.x + ux * (hi.x - lo.x), lo.y + uy * (hi.y - lo.y));
        let speed = vmin + us * (vmax - vmin);
        b.move_to(dest, speed)?;
        let pause = pmin
            .saturating_add((up * (pmax - pmin) as f64) as u64)
            .min(pmax);
        b.pause(Duration::from_nanos(pause))?;
    }
    Ok(b.build())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha8Rng;
    use rand_core::SeedableRng;

    #[test]
    fn cross_over_alternates_between_the_end_points() {
        let a = Point::new(-10.0, 0.0);
        let b = Point::new(310.0, 0.0);
        let tr = cross_over(a, b, 20.0, Duration::from_secs(2), Time::from_secs(1), 4).unwrap();
        // 320 m at 20 m/s = 16 s per leg, 2 s pauses.
        let w: Vec<_> = tr.waypoints().to_vec();
        assert_eq!(w.len(), 8);
        assert_eq!(w[1], (Time::from_secs(17), b));
        assert_eq!(w[2], (Time::from_secs(19), b));
        assert_eq!(w[3], (Time::from_secs(35), a));
        assert_eq!(w[7], (Time::from_secs(71), a));
        // E3 geometry: cells of radius 190 m at x = 0 and x = 300 (80 m
        // overlap). Every leg enters one cell and leaves the other once.
        let c1 = tr.circle_crossings(Point::new(0.0, 0.0), 190.0).unwrap();
        let c2 = tr.circle_crossings(Point::new(300.0, 0.0), 190.0).unwrap();
        assert_eq!(c1.crossings.len(), 4);
        assert_eq!(c2.crossings.len(), 4);
        assert!(cross_over(a, a, 1.0, Duration::ZERO, Time::ZERO, 2).is_err());
        assert_eq!(
            cross_over(a, b, 1.0, Duration::ZERO, Time::ZERO, 0)
                .unwrap()
                .waypoints()
                .len(),
            1
        );
    }

    fn params() -> RandomWaypointParams {
        RandomWaypointParams {
            region_min: Point::new(-50.0, 0.0),
            region_max: Point::new(350.0, 0.0),
            start: Point::new(0.0, 0.0),
            start_time: Time::ZERO,
            speed_min_mps: 20.0,
            speed_max_mps: 20.0,
            pause_min: Duration::ZERO,
            pause_max: Duration::from_secs(2),
            until: Time::from_secs(600),
            max_waypoints: 10_000,
        }
    }

    #[test]
    fn random_waypoint_is_seeded_and_stays_in_region() {
        let p = params();
        let t1 = random_waypoint(&p, &mut ChaCha8Rng::seed_from_u64(7)).unwrap();
        let t2 = random_waypoint(&p, &mut ChaCha8Rng::seed_from_u64(7)).unwrap();
        let t3 = random_waypoint(&p, &mut ChaCha8Rng::seed_from_u64(8)).unwrap();
        assert_eq!(t1, t2);
        assert_ne!(t1, t3);
        assert!(t1.end_time() >= p.until);
        for (_, w) in t1.waypoints() {
            assert!(w.x >= -50.0 && w.x <= 350.0 && w.y == 0.0);
        }
        // Legs are at 20 m/s.
        for (t0, p0, t1_, p1) in t1.legs() {
            let d = p0.distance_to(p1);
            if d > 0.0 {
                let v = d / (t1_.as_nanos() - t0.as_nanos()) as f64 * 1e9;
                assert!((v - 20.0).abs() < 1e-6, "{v}");
            }
        }
    }

    #[test]
    fn random_waypoint_on_the_centre_line_ping_pongs() {
        // Cells of radius 190 m at x = 0 and 300: the overlap is [110, 190].
        // Ping-pong: the station enters cell 2 and leaves it again without
        // having left cell 1 in between (it turned back in the overlap).
        let p = params();
        let mut found = false;
        for seed in 0..20 {
            let tr = random_waypoint(&p, &mut ChaCha8Rng::seed_from_u64(seed)).unwrap();
            let c1 = tr.circle_crossings(Point::new(0.0, 0.0), 190.0).unwrap();
            let c2 = tr.circle_crossings(Point::new(300.0, 0.0), 190.0).unwrap();
            for w in c2.crossings.windows(2) {
                if w[0].kind == super::super::CrossingKind::Enter
                    && c1.count_in(w[0].time, w[1].time) == 0
                    && c1.inside_at(w[0].time)
                {
                    found = true;
                }
            }
        }
        assert!(found, "no ping-pong in 20 seeds");
    }

    #[test]
    fn random_waypoint_rejects_bad_parameters() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut p = params();
        p.start = Point::new(-60.0, 0.0);
        assert!(random_waypoint(&p, &mut rng).is_err());
        let mut p = params();
        p.speed_min_mps = 0.0;
        assert!(random_waypoint(&p, &mut rng).is_err());
        let mut p = params();
        p.speed_min_mps = 30.0;
        assert!(random_waypoint(&p, &mut rng).is_err());
        let mut p = params();
        p.region_max = p.region_min;
        p.start = p.region_min;
        p.pause_max = Duration::ZERO;
        assert!(random_waypoint(&p, &mut rng).is_err());
        let mut p = params();
        p.max_waypoints = 5;
        assert!(matches!(
            random_waypoint(&p, &mut rng),
            Err(MobilityError::TooManyWaypoints { .. })
        ));
    }
}
