//! The geometry of a run (`map.json`): the cells with their position,
//! radius and rate, and each mobile's trajectory as its timed waypoints
//! (the movement is piecewise linear between them, `models::mobility`).
//! What a viewer needs to draw and animate the run.

use serde::Serialize;

/// One cell.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapCell {
    pub name: String,
    pub x_m: f64,
    pub y_m: f64,
    pub radius_m: f64,
    pub rate_bps: u64,
}

/// One mobile: `(time_s, x_m, y_m)` waypoints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapMobile {
    pub name: String,
    pub waypoints: Vec<(f64, f64, f64)>,
}

/// The run's map.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunMap {
    pub duration_s: f64,
    pub cells: Vec<MapCell>,
    pub mobiles: Vec<MapMobile>,
}

impl RunMap {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}
