//! Movements: the file's `mobility` table of a mobile (a position, legs,
//! the studies' patterns or a trace file made by another tool), which
//! checks its own times and positions (each message names the key path)
//! and gives the mobility model's trajectory, or the parameters of one
//! drawn from the run's seed.

use std::time::Duration;

use msctp_proto::Time;
use serde::{Deserialize, Serialize};

use super::{Scenario, secs};
use crate::models::mobility::{
    DEFAULT_MAX_WAYPOINTS, MobilityError, OverlapGeometry, Point, RandomWaypointParams, Trajectory,
    TrajectoryBuilder, TurnPolicy, cross_over, import, scheduled_handoffs,
};
use crate::scenario::error::{MAX_S, ScenarioError, positive_f, range_f, range_u};

/// How a mobile moves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum MobilitySpec {
    /// Standing at (x, y).
    Stationary {
        #[serde(default)]
        x_m: f64,
        #[serde(default)]
        y_m: f64,
    },
    /// From `start` at `start_s`, straight legs to each point at its speed.
    Waypoints {
        start: (f64, f64),
        #[serde(default)]
        start_s: f64,
        legs: Vec<LegSpec>,
    },
    /// Back and forth between `a` and `b` (E3 cross-over).
    CrossOver {
        a: (f64, f64),
        b: (f64, f64),
        speed_mps: f64,
        #[serde(default)]
        pause_s: f64,
        #[serde(default)]
        start_s: f64,
        legs: usize,
    },
    /// Seeded random waypoints in a rectangle (E3 random).
    RandomWaypoint {
        min: (f64, f64),
        max: (f64, f64),
        start: (f64, f64),
        #[serde(default)]
        start_s: f64,
        speed_min_mps: f64,
        speed_max_mps: f64,
        #[serde(default)]
        pause_min_s: f64,
        #[serde(default)]
        pause_max_s: f64,
    },
    /// A trace made by another tool (`models::mobility::import`):
    /// `trace` is the file (a path relative to the working directory;
    /// BonnMotion's `.movements` gunzipped, an ns-2 movement file such
    /// as `setdest` writes, or SUMO's FCD output), `node` the trace's node
    /// this mobile follows.
    Trace {
        trace: String,
        format: TraceFormatSpec,
        #[serde(default)]
        node: usize,
        /// BonnMotion: coordinates per waypoint (2, or 3 for x y z).
        #[serde(default = "d_trace_dims")]
        dimensions: usize,
        /// Largest file read (bytes); a larger one is an error, not
        /// truncated.
        #[serde(default = "d_trace_bytes")]
        max_bytes: u64,
        /// Most waypoints taken from the file.
        #[serde(default = "d_trace_waypoints")]
        max_waypoints: usize,
    },
    /// The E1 schedule: `handoffs` WLAN boundary crossings in the window.
    E1 {
        handoffs: u32,
        window_start_s: f64,
        window_s: f64,
        /// "continuous" (Song and Wang: turn back at once, 14.14 s per
        /// visit to the WLAN) or "dwell" (wait at the turning point until
        /// the next handoff is due).
        #[serde(default)]
        turn: TurnSpec,
    },
}

/// The format of a mobility trace file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceFormatSpec {
    /// BonnMotion's native `.movements` (one node per line).
    Bonnmotion,
    /// ns-2 movement commands (`setdest`).
    Ns2,
    /// SUMO's floating car data (`sumo --fcd-output`, XML); `node` is the
    /// vehicle's rank in the order of first appearance.
    Sumo,
}

fn d_trace_dims() -> usize {
    2
}
fn d_trace_bytes() -> u64 {
    64 << 20
}
fn d_trace_waypoints() -> usize {
    crate::models::mobility::DEFAULT_MAX_WAYPOINTS
}

/// What an E1 mobile does at its turning point
/// (`models::mobility::TurnPolicy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum TurnSpec {
    #[default]
    Continuous,
    Dwell,
}

impl Default for MobilitySpec {
    fn default() -> Self {
        MobilitySpec::Stationary { x_m: 0.0, y_m: 0.0 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LegSpec {
    pub to: (f64, f64),
    /// Either a speed ...
    #[serde(default)]
    pub speed_mps: Option<f64>,
    /// ... or a pause (s) at the current point (then `to` is ignored).
    #[serde(default)]
    pub pause_s: Option<f64>,
}

/// How a mobile moves: a trajectory, or the parameters of one drawn from
/// the run's seed.
#[derive(Debug, Clone)]
pub(crate) enum Movement {
    Fixed(Trajectory),
    RandomWaypoint(RandomWaypointParams),
}

impl MobilitySpec {
    /// The movement until `end`, its times and positions checked here, the
    /// rest by the mobility model (the random waypoints when they are drawn);
    /// `key` names it (`mobiles[<name>].mobility`).
    // Long because: one arm per kind of movement, each building its trajectory.
    pub(crate) fn movement(&self, key: &str, end: Time) -> Result<Movement, ScenarioError> {
        self.check(key)?;
        let m = self;
        let err = |e: crate::models::mobility::MobilityError| ScenarioError::model(key, e);
        let p = |(x, y): (f64, f64)| Point::new(x, y);
        let fixed = match m {
            MobilitySpec::Stationary { x_m, y_m } => {
                Trajectory::stationary(Point::new(*x_m, *y_m)).map_err(err)?
            }
            MobilitySpec::Waypoints {
                start,
                start_s,
                legs,
            } => {
                let mut b = TrajectoryBuilder::new(secs(*start_s), p(*start)).map_err(err)?;
                for (i, l) in legs.iter().enumerate() {
                    match (l.speed_mps, l.pause_s) {
                        (Some(v), None) => {
                            b.move_to(p(l.to), v).map_err(err)?;
                        }
                        (None, Some(d)) => {
                            b.pause(Duration::from_secs_f64(d.max(0.0))).map_err(err)?;
                        }
                        _ => {
                            return Err(ScenarioError::range(
                                format!("{key}.legs[{i}]"),
                                format!("{l:?}"),
                                "a leg has either speed_mps or pause_s",
                            ));
                        }
                    }
                }
                b.build()
            }
            MobilitySpec::CrossOver {
                a,
                b,
                speed_mps,
                pause_s,
                start_s,
                legs,
            } => cross_over(
                p(*a),
                p(*b),
                *speed_mps,
                Duration::from_secs_f64(pause_s.max(0.0)),
                secs(*start_s),
                *legs,
            )
            .map_err(err)?,
            MobilitySpec::RandomWaypoint {
                min,
                max,
                start,
                start_s,
                speed_min_mps,
                speed_max_mps,
                pause_min_s,
                pause_max_s,
            } => {
                return Ok(Movement::RandomWaypoint(RandomWaypointParams {
                    region_min: p(*min),
                    region_max: p(*max),
                    start: p(*start),
                    start_time: secs(*start_s),
                    speed_min_mps: *speed_min_mps,
                    speed_max_mps: *speed_max_mps,
                    pause_min: Duration::from_secs_f64(pause_min_s.max(0.0)),
                    pause_max: Duration::from_secs_f64(pause_max_s.max(0.0)),
                    until: end,
                    max_waypoints: DEFAULT_MAX_WAYPOINTS,
                }));
            }
            MobilitySpec::Trace {
                trace,
                format,
                node,
                dimensions,
                max_bytes,
                max_waypoints,
            } => {
                let text = read_trace(trace, *max_bytes)
                    .map_err(|e| ScenarioError::model(format!("{key}.trace"), e))?;
                match format {
                    TraceFormatSpec::Bonnmotion => {
                        import::bonnmotion(&text, *node, *dimensions, *max_waypoints)
                    }
                    TraceFormatSpec::Ns2 => import::ns2(&text, *node, end, *max_waypoints),
                    TraceFormatSpec::Sumo => import::sumo_fcd(&text, *node, *max_waypoints),
                }
                .map_err(|e| ScenarioError::model(format!("{key} ({trace})"), e))?
            }
            MobilitySpec::E1 {
                handoffs,
                window_start_s,
                window_s,
                turn,
            } => scheduled_handoffs(
                &OverlapGeometry::default(),
                match turn {
                    TurnSpec::Continuous => TurnPolicy::Continuous,
                    TurnSpec::Dwell => TurnPolicy::Dwell,
                },
                *handoffs,
                secs(*window_start_s),
                Duration::from_secs_f64(window_s.max(0.0)),
            )
            .map_err(err)?,
        };
        Ok(Movement::Fixed(fixed))
    }
}

impl Scenario {
    /// The files a run of this scenario reads besides the scenario itself
    /// (mobility traces, `mobility.trace`), with the most bytes read of
    /// each: what a results store must key on besides the scenario text,
    /// so that a changed file is not answered with a stored run.
    pub fn input_files(&self) -> Vec<(&str, u64)> {
        self.mobiles
            .iter()
            .filter_map(|m| match &m.mobility {
                MobilitySpec::Trace {
                    trace, max_bytes, ..
                } => Some((trace.as_str(), *max_bytes)),
                _ => None,
            })
            .collect()
    }
}

/// A trace file's text, at most `max_bytes` long (read no further).
fn read_trace(path: &str, max_bytes: u64) -> Result<String, MobilityError> {
    use std::io::Read;
    let err = |e: std::io::Error| MobilityError::BadTrace {
        line: 0,
        reason: format!("{path}: {e}"),
    };
    let f = std::fs::File::open(path).map_err(err)?;
    let mut text = String::new();
    f.take(max_bytes.saturating_add(1))
        .read_to_string(&mut text)
        .map_err(err)?;
    if text.len() as u64 > max_bytes {
        return Err(MobilityError::BadTrace {
            line: 0,
            reason: format!("{path}: longer than max_bytes = {max_bytes}"),
        });
    }
    Ok(text)
}

fn point(key: &str, (x, y): (f64, f64)) -> Result<(), ScenarioError> {
    range_f(&format!("{key}[0]"), x, -1e7, 1e7)?;
    range_f(&format!("{key}[1]"), y, -1e7, 1e7)
}

impl MobilitySpec {
    /// Times and positions of a movement (speeds and shapes are checked by the
    /// mobility model itself, whose errors name the mobility key).
    fn check(&self, key: &str) -> Result<(), ScenarioError> {
        let m = self;
        let start = |v: f64| range_f(&format!("{key}.start_s"), v, 0.0, MAX_S);
        let pause = |k: &str, v: f64| range_f(&format!("{key}.{k}"), v, 0.0, MAX_S);
        match m {
            MobilitySpec::Stationary { x_m, y_m } => point(key, (*x_m, *y_m)),
            MobilitySpec::Waypoints {
                start: p,
                start_s,
                legs,
            } => {
                point(&format!("{key}.start"), *p)?;
                start(*start_s)?;
                for (i, l) in legs.iter().enumerate() {
                    point(&format!("{key}.legs[{i}].to"), l.to)?;
                    if let Some(v) = l.speed_mps {
                        positive_f(&format!("{key}.legs[{i}].speed_mps"), v, 1e6)?;
                    }
                    if let Some(p) = l.pause_s {
                        pause(&format!("legs[{i}].pause_s"), p)?;
                    }
                }
                Ok(())
            }
            MobilitySpec::CrossOver {
                a,
                b,
                pause_s,
                start_s,
                legs,
                ..
            } => {
                point(&format!("{key}.a"), *a)?;
                point(&format!("{key}.b"), *b)?;
                pause("pause_s", *pause_s)?;
                start(*start_s)?;
                range_u(&format!("{key}.legs"), *legs as u64, 0, 1_000_000)
            }
            MobilitySpec::RandomWaypoint {
                min,
                max,
                start: p,
                start_s,
                speed_min_mps,
                speed_max_mps,
                pause_min_s,
                pause_max_s,
            } => {
                point(&format!("{key}.min"), *min)?;
                point(&format!("{key}.max"), *max)?;
                point(&format!("{key}.start"), *p)?;
                start(*start_s)?;
                positive_f(&format!("{key}.speed_min_mps"), *speed_min_mps, 1e6)?;
                range_f(
                    &format!("{key}.speed_max_mps"),
                    *speed_max_mps,
                    *speed_min_mps,
                    1e6,
                )?;
                pause("pause_min_s", *pause_min_s)?;
                range_f(
                    &format!("{key}.pause_max_s"),
                    *pause_max_s,
                    *pause_min_s,
                    MAX_S,
                )
            }
            MobilitySpec::Trace {
                dimensions,
                max_bytes,
                max_waypoints,
                ..
            } => {
                range_u(&format!("{key}.dimensions"), *dimensions as u64, 2, 3)?;
                range_u(&format!("{key}.max_bytes"), *max_bytes, 1, 1 << 34)?;
                range_u(
                    &format!("{key}.max_waypoints"),
                    *max_waypoints as u64,
                    1,
                    100_000_000,
                )
            }
            MobilitySpec::E1 {
                handoffs,
                window_start_s,
                window_s,
                ..
            } => {
                range_u(&format!("{key}.handoffs"), u64::from(*handoffs), 0, 100_000)?;
                pause("window_start_s", *window_start_s)?;
                pause("window_s", *window_s)
            }
        }
    }
}
