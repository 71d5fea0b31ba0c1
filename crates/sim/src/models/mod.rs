//! The protocol, radio and movement models, each a set of agents (or the
//! inputs of one) on the [`crate::kernel`]:
//!
//! - [`sctp`]: mSCTP, the unchanged `msctp-proto` engine as an agent, with
//!   its handover manager ([`sctp::handover`]);
//! - [`tcp`]: TCP NewReno agents over the `msctp-tcp` engine, and the
//!   single-path references compared with ns-3;
//! - [`mip`]: Mobile IPv4 ([`mip::v4`]) and Mobile IPv6 ([`mip::v6`]) side
//!   by side; [`fmip`]: Fast Handovers for Mobile IPv6 on top of
//!   [`mip::v6`];
//! - [`handoff`]: the single-connection vertical handoff of TCP;
//!   [`cmhn`]: the multi-connection transport;
//! - [`app`]: traffic sources (bulk, file, CBR, Pareto ON/OFF) and a
//!   datagram sink;
//! - [`radio`]: link-layer events from received power (beacons, link
//!   up/down with decision latencies, address acquisition), propagation,
//!   and the driver that plays a station's radio timeline into the world;
//! - [`mobility`]: where a station is at any time (trajectories, movement
//!   patterns).
//!
//! A model's settings that a scenario file gives are one serde struct of
//! the model (its fields the file's keys), checked by its `validate`
//! ([`settings`]).
//!
//! What each model implements, and from which RFC or paper section, is in
//! the repository's `docs/MODELS.md`.

pub mod app;
pub mod cmhn;
pub mod fmip;
pub mod handoff;
pub mod mip;
pub mod mobility;
pub mod quic;
pub mod radio;
pub mod sctp;
pub mod settings;
pub mod tcp;
