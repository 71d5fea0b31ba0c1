//! Running a scenario: resolve it, build its world, run it (to the end,
//! or until every sender failed over when `output.end_after_failover_s`
//! asks so), collect its outputs.

use std::time::Duration;

use msctp_proto::Time;

use super::assemble::{self, Built};
use super::collect;
use super::error::ScenarioError;
use super::spec::*;
use crate::measure::RunResult;
use crate::models::sctp::SctpAgent;

/// Builds the scenario's world with `seed`, runs it for `duration_s` and
/// returns every output. The same scenario and seed give identical
/// results.
pub fn run_scenario(s: &Scenario, seed: u64) -> Result<RunResult, ScenarioError> {
    let s = &*s.expanded()?;
    let r = s.resolve()?;
    let mut b = assemble::assemble(&r, seed)?;
    let mut end = Time::from_secs_f64(s.duration_s);
    let last_break = r
        .events
        .iter()
        .filter(|e| e.action.is_break())
        .map(|e| e.at)
        .max();
    match (s.output.end_after_failover_s, last_break) {
        (Some(after), Some(brk)) => {
            // Run in steps; stop `after` seconds once every sender failed
            // over after the last break.
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
    Ok(collect::collect(&r, seed, b, end))
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
