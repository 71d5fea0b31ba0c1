//! Link-layer event generation for one station and a set of cells.
//!
//! Each cell sends beacons at exact times `offset + k * interval`. At each
//! beacon the station's received power is evaluated (from its distance to
//! the cell with a [`crate::models::radio::propagation::TwoRayGround`] model, or from a
//! script of powers over time) and a per-cell state machine turns the
//! powers into the events of docs/MODELS.md section 3 that handover policies
//! consume: [`RadioEvent::BeaconDetected`] / [`RadioEvent::BeaconLost`]
//! (detection threshold), [`RadioEvent::SignalSample`],
//! [`RadioEvent::LinkUp`] / [`RadioEvent::LinkDown`] (data threshold, with
//! the decision latencies x and y of E4), [`RadioEvent::LinkGoingDown`]
//! (a warning threshold above the data threshold), and
//! [`RadioEvent::AddressObtained`] / [`RadioEvent::AddressLost`] (address
//! acquisition latency after link up, made of named parts).
//!
//! The model is pure: [`generate_timeline`] takes the station's
//! [`crate::models::mobility::Trajectory`] and the cell descriptions and returns a
//! sorted [`RadioTimeline`] for a time window, which a discrete-event
//! scheduler can consume whole or query with
//! [`RadioTimeline::next_after`]. [`coverage_intervals`] gives the exact
//! times the station is physically above a power threshold (where packets
//! can get through), as opposed to the moments the station *decides* a
//! link is up or down.
//!
//! The detailed rules are in [`tracker`]'s documentation.

mod acquisition;
mod cell_radio;
pub mod driver;
mod error;
mod event;
pub mod propagation;
mod script;
mod timeline;
pub mod tracker;

pub use acquisition::AddressAcquisition;
pub use cell_radio::{CellRadio, CellSignal, DecisionLatency, Thresholds};
pub use error::RadioError;
pub use event::{CellIndex, RadioEvent, TimedRadioEvent};
pub use script::ScriptedSignal;
pub use timeline::{RadioConfig, RadioTimeline, SampleMode, coverage_intervals, generate_timeline};
