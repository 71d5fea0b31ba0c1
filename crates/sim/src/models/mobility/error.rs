//! Errors of the mobility models.

use msctp_proto::Time;
use thiserror::Error;

/// An invalid mobility description.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum MobilityError {
    #[error("coordinates must be finite, got ({x}, {y})")]
    NonFinitePoint { x: f64, y: f64 },
    #[error("{name} must be finite and > 0, got {value}")]
    NotPositive { name: &'static str, value: f64 },
    #[error("{name} must be finite and >= 0, got {value}")]
    Negative { name: &'static str, value: f64 },
    #[error("waypoint times must increase: {next} after {last}")]
    TimeNotIncreasing { last: Time, next: Time },
    #[error("a trajectory needs at least one waypoint")]
    Empty,
    #[error("too many waypoints (limit {limit})")]
    TooManyWaypoints { limit: usize },
    #[error("time overflow while building a trajectory")]
    TimeOverflow,
    #[error("invalid region: {0}")]
    BadRegion(&'static str),
    #[error("invalid geometry: {0}")]
    BadGeometry(&'static str),
    /// A mobility trace file that cannot be read (`line` 0: the file as a
    /// whole).
    #[error("mobility trace{}: {reason}", at_line(*line))]
    BadTrace { line: usize, reason: String },
    #[error(
        "{handoffs} handoffs do not fit in the window: need {needed_ns} ns between handoffs, have {spacing_ns} ns"
    )]
    HandoffsDoNotFit {
        handoffs: u32,
        needed_ns: u64,
        spacing_ns: u64,
    },
}

fn at_line(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(" line {line}")
    }
}

/// Checks a point's coordinates.
pub(crate) fn check_point(p: super::Point) -> Result<super::Point, MobilityError> {
    if p.is_finite() {
        Ok(p)
    } else {
        Err(MobilityError::NonFinitePoint { x: p.x, y: p.y })
    }
}

/// Checks a finite, strictly positive number.
pub(crate) fn check_positive(name: &'static str, value: f64) -> Result<f64, MobilityError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(MobilityError::NotPositive { name, value })
    }
}
