//! The stages chained end to end, once per kind of caller:
//!
//! - [`reproduce`]: `msctp reproduce`, every selected experiment on one
//!   pool, then `docs/REPRODUCTION.md`;
//! - [`adhoc`]: `msctp run` / `msctp sweep`, a scenario file run directly
//!   or swept over `--param` axes;
//! - [`robustness`]: `msctp reproduce --robustness`, the robustness maps;
//! - [`study`]: one experiment as a library for runs executed elsewhere
//!   (`--shard`, `--report-only`, the Python package);
//! - [`testing`]: the claim tests of CI.

pub mod adhoc;
pub mod reproduce;
pub mod robustness;
pub mod study;
pub mod testing;
