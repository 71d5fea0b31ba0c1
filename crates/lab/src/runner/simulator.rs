//! The simulator as a runner: a scenario table is a scenario file of
//! `msctp_sim::scenario` (parsed and range-checked by the simulator, so
//! its messages name the key), run with [`run_scenario`], and the run's
//! summary (docs/MODELS.md section 5 measures per flow) flattened into dotted
//! metric names ([`crate::runner::flatten`]): `flows.<flow>.goodput_bps`,
//! `flows.<flow>.total_handoff_delay_s`, `flows.<flow>.lost_data_packets`,
//! `flows.<flow>.handovers.count`, `flows.<flow>.handovers.0.handoff_latency_s`,
//! `flows.<flow>.failovers.0.failover_time_s`, `drops.<reason>`, ...
//!
//! One optional top-level table belongs to the lab, not the simulator,
//! and is removed before the scenario is parsed:
//!
//! ```toml
//! [lab]
//! series = ["goodput"]   # keep goodput.<flow> (time_s, bit/s) per run
//!                         # ("stations": stations.<cell>, stations per cell)
//! ```
//!
//! Time series are off by default: a 600 s run has thousands of goodput
//! bins, and every run's series is stored in its JSON file.

use std::path::Path;

use msctp_sim::measure::RunResult;
use msctp_sim::scenario::{Prepared as SimPrepared, Scenario};
use sha2::{Digest, Sha256};
use toml::{Table, Value};

use crate::runner::flatten::{FlattenLimits, flatten};
use crate::runner::record::RunRecord;
use crate::runner::{Prepared, PreparedScenario, RunError, Runner, model_fingerprint};

/// See the module documentation.
#[derive(Debug, Clone, Copy, Default)]
pub struct SimRunner {
    pub limits: FlattenLimits,
}

/// What the `[lab]` table asks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct LabKeys {
    goodput_series: bool,
    stations_series: bool,
}

thread_local! {
    static SPLITS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The scenario and the `[lab]` keys of a table, parsed but not checked:
/// [`SimRunner`] parses a cell's table once and resolves it once
/// ([`Runner::prepare_own`]); every run of the cell starts from that.
fn split(table: &Table) -> Result<(Scenario, LabKeys), RunError> {
    SPLITS.with(|n| n.set(n.get() + 1));
    let mut t = table.clone();
    let mut keys = LabKeys::default();
    if let Some(lab) = t.remove("lab") {
        let Value::Table(lab) = lab else {
            return Err(RunError::Scenario("`lab` must be a table".into()));
        };
        for (k, v) in lab {
            match (k.as_str(), v) {
                ("series", Value::Array(a)) => {
                    for s in a {
                        match s.as_str() {
                            Some("goodput") => keys.goodput_series = true,
                            Some("stations") => keys.stations_series = true,
                            _ => {
                                return Err(RunError::Scenario(format!(
                                    "lab.series: unknown series {s} (known: \"goodput\", \"stations\")"
                                )));
                            }
                        }
                    }
                }
                ("series", _) => {
                    return Err(RunError::Scenario(
                        "lab.series must be an array of names".into(),
                    ));
                }
                (other, _) => {
                    return Err(RunError::Scenario(format!(
                        "unknown key `lab.{other}` (known: series)"
                    )));
                }
            }
        }
    }
    let s: Scenario = Value::Table(t)
        .try_into()
        .map_err(|e: toml::de::Error| RunError::Scenario(e.to_string()))?;
    Ok((s, keys))
}

/// A simulator scenario without nodes or flows runs and measures
/// nothing: says what is missing instead (every key has a default, so the
/// simulator itself accepts an empty file). A population of stations
/// brings its own flows.
pub fn check_something_to_simulate(scenario: &Table) -> Result<(), String> {
    let empty = |k: &str| {
        scenario
            .get(k)
            .and_then(|v| v.as_array())
            .is_none_or(|a| a.is_empty())
    };
    let missing: Vec<String> = ["nodes", "flows"]
        .into_iter()
        .filter(|k| empty(k) && (*k != "flows" || empty("stations")))
        .map(|k| format!("[[{k}]]"))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "the scenario has no {}: nothing to simulate (every key is documented in the \
         reference scenario, crates/sim/src/scenario/reference.toml)",
        missing.join(" and ")
    ))
}

/// At most `max_bytes + 1` bytes of `path` (one more than the limit, so
/// a file over it hashes differently from its first `max_bytes`).
fn read_bounded(path: &str, max_bytes: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut b = Vec::new();
    std::fs::File::open(path)?
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut b)?;
    Ok(b)
}

impl SimRunner {
    fn record(&self, r: &RunResult, keys: LabKeys) -> Result<RunRecord, RunError> {
        let f = flatten(&r.summary, self.limits).map_err(RunError::BadRecord)?;
        let mut rec = RunRecord {
            metrics: f.metrics,
            ..RunRecord::default()
        };
        if f.truncated {
            rec.metrics.insert("lab.metrics_truncated".into(), 1.0);
        }
        if keys.goodput_series {
            for g in &r.goodput {
                rec.series
                    .entry(format!("goodput.{}", g.flow))
                    .or_default()
                    .push((g.time.as_secs_f64(), g.goodput_bps));
            }
        }
        if keys.stations_series {
            for st in &r.stations {
                let t = st.time.as_secs_f64();
                rec.series
                    .entry(format!("stations.{}", st.cell))
                    .or_default()
                    .push((t, f64::from(st.stations)));
                rec.series
                    .entry(format!("fair.{}", st.cell))
                    .or_default()
                    .push((t, st.fair));
            }
        }
        Ok(rec)
    }

    /// Runs the scenario and returns its record together with everything
    /// the run produced (summary, goodput, path and event tables,
    /// captures): what `msctp run --out` writes, for the Python package.
    pub fn run_full(&self, table: &Table, seed: u64) -> Result<(RunRecord, RunResult), RunError> {
        let p = self.prepare_sim(table, RunError::Failed)?;
        let r = p
            .scenario
            .run(seed)
            .map_err(|e| RunError::Failed(e.to_string()))?;
        Ok((self.record(&r, p.keys)?, r))
    }

    fn go(&self, table: &Table, seed: u64, dir: Option<&Path>) -> Result<RunRecord, RunError> {
        self.prepare_sim(table, RunError::Failed)?.go(seed, dir)
    }

    /// The table parsed and its scenario resolved (an error in either
    /// wrapped by `fail`).
    fn prepare_sim(
        &self,
        table: &Table,
        fail: fn(String) -> RunError,
    ) -> Result<SimCell, RunError> {
        let (s, keys) = split(table)?;
        let scenario = s.into_prepared().map_err(|e| fail(e.to_string()))?;
        Ok(SimCell {
            runner: *self,
            keys,
            scenario,
        })
    }
}

/// A cell's scenario resolved once, run with each seed.
struct SimCell {
    runner: SimRunner,
    keys: LabKeys,
    scenario: SimPrepared,
}

impl SimCell {
    /// A run's record; its outputs written to `dir` if given (the record
    /// reads the summary and series only: without `dir`, the path and
    /// event tables are not built).
    fn go(&self, seed: u64, dir: Option<&Path>) -> Result<RunRecord, RunError> {
        let r = match dir {
            Some(_) => self.scenario.run(seed),
            None => self.scenario.run_summary(seed),
        }
        .map_err(|e| RunError::Failed(e.to_string()))?;
        if let Some(d) = dir {
            r.write_to_dir(d)
                .map_err(|e| RunError::Failed(format!("{}: {e}", d.display())))?;
        }
        self.runner.record(&r, self.keys)
    }
}

impl PreparedScenario for SimCell {
    fn run(&self, seed: u64) -> Result<RunRecord, RunError> {
        self.go(seed, None)
    }

    /// [`SimRunner::cost_hint`] of the expanded scenario (its stations
    /// are mobiles there).
    fn cost_hint(&self) -> f64 {
        let s = self.scenario.scenario();
        s.duration_s * (s.nodes.len() + s.mobiles.len()) as f64
    }

    fn run_with_outputs(&self, seed: u64, dir: &Path) -> Result<RunRecord, RunError> {
        self.go(seed, Some(dir))
    }
}

impl Runner for SimRunner {
    fn name(&self) -> &str {
        "sim"
    }
    fn fingerprint(&self) -> String {
        model_fingerprint()
    }
    /// The mobility trace files the scenario follows
    /// ([`Scenario::input_files`]): each one's name and the SHA-256 of its
    /// contents (or why it cannot be read: the run then fails with that
    /// error, and a file that appears later gets another key).
    fn inputs_digest(&self, scenario: &Table) -> String {
        let Ok((s, _)) = split(scenario) else {
            return String::new();
        };
        let mut out = String::new();
        for (path, max_bytes) in s.input_files() {
            let digest = read_bounded(path, max_bytes).map(|b| {
                Sha256::digest(&b)
                    .iter()
                    .map(|x| format!("{x:02x}"))
                    .collect::<String>()
            });
            match digest {
                Ok(d) => out.push_str(&format!("{path} sha256:{d}\n")),
                Err(e) => out.push_str(&format!("{path} unreadable: {e}\n")),
            }
        }
        out
    }
    fn validate(&self, scenario: &Table) -> Result<(), RunError> {
        check_something_to_simulate(scenario).map_err(RunError::Scenario)?;
        self.prepare_sim(scenario, RunError::Scenario).map(|_| ())
    }
    /// The table parsed once and its scenario resolved once, for all the
    /// runs of a cell.
    fn prepare_own(&self, scenario: &Table) -> Option<Result<Prepared<'static>, RunError>> {
        let p = check_something_to_simulate(scenario)
            .map_err(RunError::Scenario)
            .and_then(|()| self.prepare_sim(scenario, RunError::Scenario));
        Some(p.map(|c| Box::new(c) as Prepared<'static>))
    }
    /// Simulated seconds times the nodes that run agents (fixed nodes,
    /// mobiles and every station of a population): what a run costs
    /// grows with both (each node's agents, timers and packets), and both
    /// are in the scenario before the run. How well it orders: the full
    /// reproduction of 2026-11-27 (11 769 runs, 466 s of run CPU) took
    /// 238 s on two workers, 198% of the two cores, so the pool's end
    /// left next to nothing idle. A scenario that does not parse costs 0
    /// (it fails at once).
    fn cost_hint(&self, scenario: &Table) -> f64 {
        let Ok((s, _)) = split(scenario) else {
            return 0.0;
        };
        let stations: usize = s.stations.iter().map(|p| p.count).sum();
        let nodes = s.nodes.len() + s.mobiles.len() + stations;
        s.duration_s * nodes as f64
    }
    fn run(&self, scenario: &Table, seed: u64) -> Result<RunRecord, RunError> {
        self.go(scenario, seed, None)
    }
    fn run_with_outputs(
        &self,
        scenario: &Table,
        seed: u64,
        dir: &Path,
    ) -> Result<RunRecord, RunError> {
        self.go(scenario, seed, Some(dir))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use msctp_sim::scenario::REFERENCE;

    fn reference(duration: f64) -> Table {
        let mut t: Table = toml::from_str(REFERENCE).unwrap();
        t.insert("duration_s".into(), Value::Float(duration));
        // No captures in tests.
        if let Some(Value::Table(o)) = t.get_mut("output") {
            o.insert("pcap".into(), Value::Array(Vec::new()));
        }
        t
    }

    #[test]
    fn reference_scenario_through_the_runner() {
        let mut t = reference(12.0);
        let lab: Table = toml::from_str("series = [\"goodput\"]").unwrap();
        t.insert("lab".into(), Value::Table(lab));
        let r = SimRunner::default().run(&t, 1).unwrap();
        let g = r.metrics["flows.bulk.goodput_bps"];
        assert!(g > 100_000.0, "goodput {g}");
        assert_eq!(r.metrics["flows.count"], 1.0);
        assert!(r.metrics.contains_key("flows.bulk.lost_data_packets"));
        let s = &r.series["goodput.bulk"];
        assert!(s.len() > 50, "{} bins", s.len());
        // Deterministic.
        assert_eq!(SimRunner::default().run(&t, 1).unwrap(), r);
    }

    #[test]
    fn a_run_resolves_its_scenario_once() {
        use msctp_sim::scenario::resolutions_on_this_thread as resolutions;
        let splits = || SPLITS.with(|n| n.get());
        let t = reference(2.0);
        let runner = SimRunner::default();
        let (before, parsed) = (resolutions(), splits());
        // The plan checks a cell by preparing it: parsed once, resolved once.
        let cell = crate::runner::prepare(&runner, &t).unwrap();
        assert_eq!(resolutions(), before + 1, "preparing resolves once");
        assert_eq!(splits(), parsed + 1, "preparing parses once");
        // The pool orders by the cost and runs each seed from the cell.
        assert!(cell.cost_hint() > 0.0);
        assert_eq!(cell.cost_hint(), runner.cost_hint(&t));
        let (one, two) = (cell.run(1).unwrap(), cell.run(2).unwrap());
        assert_eq!(resolutions(), before + 1, "the runs resolve nothing more");
        assert_eq!(splits(), parsed + 2, "nor parse (but the cost_hint check)");
        // The same records as a run of the table itself (which parses and
        // resolves once).
        assert_eq!(runner.run(&t, 1).unwrap(), one);
        assert_eq!(runner.run(&t, 2).unwrap(), two);
        assert_eq!(resolutions(), before + 3);
        assert_eq!(splits(), parsed + 4);
    }

    #[test]
    fn bad_scenarios_name_the_key() {
        let mut t = reference(1.0);
        t.insert("duration".into(), Value::Float(1.0));
        let e = SimRunner::default().validate(&t).unwrap_err().to_string();
        assert!(e.contains("duration"), "{e}");
        let mut t = reference(-1.0);
        let e = SimRunner::default().validate(&t).unwrap_err().to_string();
        assert!(e.contains("duration_s"), "{e}");
        t.insert("duration_s".into(), Value::Float(1.0));
        let lab: Table = toml::from_str("sries = []").unwrap();
        t.insert("lab".into(), Value::Table(lab));
        let e = SimRunner::default().validate(&t).unwrap_err().to_string();
        assert!(e.contains("lab.sries"), "{e}");
        let lab: Table = toml::from_str("series = [\"paths\"]").unwrap();
        t.insert("lab".into(), Value::Table(lab));
        assert!(SimRunner::default().validate(&t).is_err());
    }
}
