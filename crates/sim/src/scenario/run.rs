//! Running a scenario: resolve it once ([`Prepared`]), then for each seed
//! build its world, run it (to the end, or until every sender failed
//! over when `output.end_after_failover_s` asks so), collect its outputs.

use std::sync::Arc;
use std::time::Duration;

use msctp_proto::Time;

use super::assemble::{self, Built};
use super::collect;
use super::error::ScenarioError;
use super::resolve::Resolved;
use super::spec::*;
use crate::measure::RunResult;
use crate::models::sctp::SctpAgent;

/// Builds the scenario's world with `seed`, runs it for `duration_s` and
/// returns every output. The same scenario and seed give identical
/// results. Several runs of one scenario: [`Scenario::prepare`] once, then
/// [`Prepared::run`] for each seed.
pub fn run_scenario(s: &Scenario, seed: u64) -> Result<RunResult, ScenarioError> {
    s.prepare()?.run(seed)
}

/// A scenario expanded, checked and resolved once, to be run with any
/// number of seeds (from any thread: a run builds its own world).
pub struct Prepared {
    r: Resolved,
}

impl Scenario {
    /// Expands and checks the scenario and resolves it, once for all its
    /// runs ([`Scenario::validate`] without dropping the result).
    pub fn prepare(&self) -> Result<Prepared, ScenarioError> {
        let s = self.expanded()?.into_owned();
        Ok(Prepared {
            r: Arc::new(s).resolve()?,
        })
    }

    /// [`Scenario::prepare`] of a scenario the caller no longer needs (not
    /// copied when it has no `[[stations]]` to expand).
    pub fn into_prepared(self) -> Result<Prepared, ScenarioError> {
        let s = if self.stations.is_empty() {
            self
        } else {
            self.expanded()?.into_owned()
        };
        Ok(Prepared {
            r: Arc::new(s).resolve()?,
        })
    }
}

impl Prepared {
    /// The scenario, its `[[stations]]` expanded into mobiles and flows.
    pub fn scenario(&self) -> &Scenario {
        &self.r.scenario
    }

    /// Builds the world with `seed`, runs it and returns every output
    /// (see [`run_scenario`]).
    pub fn run(&self, seed: u64) -> Result<RunResult, ScenarioError> {
        self.run_keeping(seed, true)
    }

    /// [`Prepared::run`] for a caller that reads the summary and the
    /// goodput and station series only: the same run, the same summary
    /// (warnings included) and series, but the path samples
    /// ([`RunResult::paths`]) and the event table ([`RunResult::events`])
    /// are left empty instead of being built row by row.
    pub fn run_summary(&self, seed: u64) -> Result<RunResult, ScenarioError> {
        self.run_keeping(seed, false)
    }

    /// The run, its path and event tables built if `tables`.
    fn run_keeping(&self, seed: u64, tables: bool) -> Result<RunResult, ScenarioError> {
        let r = &self.r;
        let s = &*r.scenario;
        let mut b = assemble::assemble(r, seed)?;
        let mut end = Time::from_secs_f64(s.duration_s);
        let last_break = r
            .events
            .iter()
            .filter(|e| e.action.is_break())
            .map(|e| e.at)
            .max();
        match (s.output.end_after_failover_s, last_break) {
            (Some(after), Some(brk)) => {
                // Run in steps; stop `after` seconds once every sender
                // failed over after the last break.
                let step = Duration::from_millis(100);
                let mut t = Time::ZERO;
                while t < end {
                    t = (t + step).min(end);
                    b.world.run_until(t);
                    if t >= brk
                        && let Some(done) = all_failed_over(&b, brk)
                    {
                        end = end.min((done + Duration::from_secs_f64(after)).max(t));
                    }
                }
            }
            _ => b.world.run_until(end),
        }
        Ok(collect::collect(r, seed, b, end, tables))
    }
}

/// When the last of the flows' data senders moved its primary because the
/// old one failed (at or after `brk`), if all did.
fn all_failed_over(b: &Built, brk: Time) -> Option<Time> {
    let mut latest = brk;
    for f in &b.flows {
        // Only SCTP senders fail over; other transports do not count.
        let Some(sender) = f.msctp_data_sender() else {
            continue;
        };
        let a = b.world.agent::<SctpAgent>(sender)?;
        let t = a
            .events()
            .iter()
            .find(|ev| {
                ev.time >= brk && ev.kind == "primary-changed" && ev.detail.ends_with("Failover")
            })?
            .time;
        latest = latest.max(t);
    }
    Some(latest)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference scenario, short and without captures.
    fn reference() -> Scenario {
        let mut s = super::super::parse(super::super::REFERENCE).unwrap();
        s.duration_s = 6.0;
        s.output.pcap.clear();
        s
    }

    /// A run for the summary alone, and a full run of the same prepared
    /// scenario, give what a fresh resolution's full run gives: the same
    /// summary and series; only the path and event tables are left out of
    /// the first.
    #[test]
    fn summary_runs_change_nothing_but_the_tables() {
        let s = reference();
        let p = s.prepare().unwrap();
        for seed in [1, 2, 1] {
            let fresh = run_scenario(&s, seed).unwrap();
            assert!(!fresh.paths.is_empty() && !fresh.events.is_empty());
            let lean = p.run_summary(seed).unwrap();
            assert_eq!(lean.summary, fresh.summary);
            assert_eq!(lean.goodput, fresh.goodput);
            assert_eq!(lean.stations, fresh.stations);
            assert!(lean.paths.is_empty() && lean.events.is_empty());
            let full = p.run(seed).unwrap();
            assert_eq!(full.summary, fresh.summary);
            assert_eq!(full.goodput, fresh.goodput);
            assert_eq!(full.paths, fresh.paths);
            assert_eq!(full.events, fresh.events);
        }
    }

    /// The lab shares one prepared scenario between the threads that run
    /// its seeds.
    #[test]
    fn a_prepared_scenario_is_shared_between_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<Prepared>();
    }
}
