//! `[[stations]]`: a population of identical stations, each a mobile with
//! one flow to a fixed node (Budzisz et al. section 4.2.2, E7: up to 50
//! dual-homed stations in two shared cells; `msctp bench sim`'s stations
//! axis). A population is expanded into ordinary `[[mobiles]]` and
//! `[[flows]]` before the scenario is resolved
//! ([`Scenario::expanded`](super::Scenario::expanded)), so every model
//! sees plain mobiles and flows.

use serde::{Deserialize, Serialize};

use super::{DirectionSpec, MobileIfaceSpec, PolicySpec, SctpSpec, TrafficSpec, d_policy};

fn d_first_host() -> u32 {
    10
}

/// A population of `count` stations named `<name>0`, `<name>1`, ...
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StationsSpec {
    /// Required, a prefix of the mobiles' and flows' names.
    pub name: String,
    /// Required: how many stations (at most 100 000).
    pub count: usize,
    /// Host part of station k's address in every cell: this + k.
    #[serde(default = "d_first_host")]
    pub first_host_id: u32,
    /// Required: the radio interfaces of every station (as a mobile's).
    pub ifaces: Vec<MobileIfaceSpec>,
    /// Stations stand at (x, y) (they do not move).
    #[serde(default)]
    pub x_m: f64,
    #[serde(default)]
    pub y_m: f64,
    /// Required: the fixed node every station's flow goes to or from.
    pub fixed: String,
    /// The first arrival (s).
    #[serde(default)]
    pub start_s: f64,
    /// Stations arrive with exponential inter-arrival times of this mean
    /// (s), drawn from the run's seed: station k starts at `start_s` plus
    /// the sum of k + 1 draws. Absent: all start at `start_s`.
    #[serde(default)]
    pub mean_interarrival_s: Option<f64>,
    #[serde(default)]
    pub direction: DirectionSpec,
    #[serde(default)]
    pub traffic: TrafficSpec,
    /// The mSCTP handover policy of every station's flow.
    #[serde(default = "d_policy")]
    pub policy: PolicySpec,
    #[serde(default)]
    pub sctp: SctpSpec,
    /// The data sender starts on an interface picked uniformly at random
    /// (from the run's seed) instead of the first one (E7a: "each picking
    /// an AP at random").
    #[serde(default)]
    pub random_initial_path: bool,
}

/// When a population's station starts: the `index`-th arrival of a
/// Poisson process of mean inter-arrival `mean_s`, from the stream named
/// `stream` of the run's seed.
#[derive(Debug, Clone, PartialEq)]
pub struct PoissonArrival {
    pub stream: String,
    pub index: usize,
    pub mean_s: f64,
}
