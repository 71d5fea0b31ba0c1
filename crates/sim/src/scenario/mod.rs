//! Scenario files: a whole simulation run described in TOML (topology,
//! cells and radio, mobiles and their movement, flows with their
//! transport, traffic, handover policy and SCTP parameters, scheduled
//! network events, outputs), and [`run_scenario`], which builds the
//! [`World`](crate::World), runs it and computes the measures of
//! docs/MODELS.md section 5 ([`crate::measure::RunResult`]).
//!
//! [`REFERENCE`] is a complete scenario listing every key with its default
//! and meaning. Parsing refuses unknown keys (the message names the key and
//! its line); [`Scenario::validate`] refuses out-of-range values with a
//! message that names the key and the allowed range.
//!
//! Transports ([`TransportSpec`]): `msctp`, and the baselines of
//! docs/MODELS.md section 2 (`tcp`, `mip4-tcp`, `mip4-sctp`, `mip6-tcp`,
//! `mip6-udp`, `fmip6-tcp`, `fmip6-udp`, `single-handoff`, `cmhn`, `udp`),
//! each with its own table of keys ([`transport`], listed with their
//! defaults in [`REFERENCE_BASELINES`]). Every flow reports the same
//! measures (docs/MODELS.md section 5), its data paths being the cells the
//! mobile used (for mSCTP, its addresses), plus its scheme's own
//! quantities ([`crate::measure::FlowSummary`]).
//!
//! Topology conventions: fixed nodes are joined by point-to-point links;
//! routes between them are computed (fewest hops, ties by declaration
//! order) for every link and cell prefix. A cell lives on a node (its
//! router); a mobile has one radio interface per cell, whose address is
//! the cell prefix plus the mobile's `host_id`, configured by the radio
//! driver ([`crate::models::radio::driver`]) when the link is up and the address
//! acquired.

mod assemble;
mod collect;
pub(crate) mod error;
mod expand;
mod resolve;
mod run;
pub mod spec;

pub use error::ScenarioError;
pub use expand::MAX_STATIONS;
pub use resolve::resolutions_on_this_thread;
pub use run::{Prepared, run_scenario};
pub use spec::*;

/// Parses a scenario file and checks it ([`Scenario::validate`]).
pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    let s: Scenario = toml::from_str(text).map_err(|e| ScenarioError::Parse(e.to_string()))?;
    s.validate()?;
    Ok(s)
}

/// A complete scenario with every key at its default (two overlapping
/// cells, a mobile driving from one to the other, a downlink bulk flow).
pub const REFERENCE: &str = include_str!("reference.toml");

/// A complete scenario with one flow of every baseline transport and every
/// key of their tables (`[flows.tcp]`, `[flows.mip4]`, `[flows.mip6]`,
/// `[flows.fmip6]`, `[flows.handoff]`, `[flows.cmhn]`) at its default.
pub const REFERENCE_BASELINES: &str = include_str!("reference-baselines.toml");
