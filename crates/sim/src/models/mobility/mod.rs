//! Mobility: where a station is at any time, exactly and cheaply.
//!
//! Every movement pattern compiles to a [`Trajectory`]: a piecewise-linear
//! path through timed waypoints (a pause is two waypoints at the same place).
//! [`Trajectory::position`] is a binary search and a linear interpolation;
//! [`Trajectory::circle_crossings`] solves, leg by leg, the quadratic that
//! gives the exact times the path enters or leaves a disc (a cell of given
//! radius, or equivalently the region where a received power exceeds a
//! threshold), so a scheduler can place link events exactly instead of
//! sampling positions.
//!
//! Patterns: [`Trajectory::stationary`], [`TrajectoryBuilder`] (waypoints at
//! a speed or at given times, pauses), [`cross_over`] (regular back and
//! forth, E3), [`random_waypoint`] (seeded, E3 "random"), and
//! [`scheduled_handoffs`] (the E1 schedule that produces a requested number of
//! handoffs in a window); [`import`] reads traces made by other tools
//! (BonnMotion, ns-2's `setdest`).

mod crossing;
mod error;
pub mod import;
mod patterns;
mod point;
mod scheduled_handoffs;
mod trajectory;

pub use crossing::{CircleCrossings, Crossing, CrossingKind};
pub use error::MobilityError;
pub use patterns::{RandomWaypointParams, cross_over, random_waypoint};
pub use point::Point;
pub use scheduled_handoffs::{OverlapGeometry, TurnPolicy, handoff_times, scheduled_handoffs};
pub use trajectory::{DEFAULT_MAX_WAYPOINTS, Trajectory, TrajectoryBuilder};
