//! Stations on each network over time (E7): for every mSCTP flow, the
//! cell that holds the mobile address its data sender sends new data to,
//! from the sender's record of its data path; counted per cell.

use std::collections::BTreeMap;
use std::net::IpAddr;

use msctp_proto::Time;

use super::super::assemble::Built;
use super::super::resolve::Resolved;
use crate::measure::{FlowSummary, StationRow};
use crate::models::sctp::SctpAgent;

/// Per cell, the changes of its station count: (time, +1 / -1).
fn changes(r: &Resolved, b: &Built) -> BTreeMap<usize, Vec<(Time, i64)>> {
    let cell_of = |a: IpAddr| r.cells.iter().position(|c| c.ap.trunc().contains(&a));
    let mut out: BTreeMap<usize, Vec<(Time, i64)>> = BTreeMap::new();
    for f in &b.flows {
        let Some(sender) = f.msctp_data_sender() else {
            continue;
        };
        let Some(a) = b.world.agent::<SctpAgent>(sender) else {
            continue;
        };
        let mut current: Option<usize> = None;
        for &(t, addr) in a.data_paths() {
            // Uplink: the data path is the fixed node's address; count
            // the cell of the mobile's source instead (not tracked: such
            // flows count nowhere).
            let c = cell_of(addr);
            if c == current {
                continue;
            }
            if let Some(old) = current {
                out.entry(old).or_default().push((t, -1));
            }
            if let Some(new) = c {
                out.entry(new).or_default().push((t, 1));
            }
            current = c;
        }
    }
    for v in out.values_mut() {
        v.sort_by_key(|x| x.0);
    }
    out
}

/// The station count of every cell at the start of each bin of `bin`
/// up to `end`, and the time-average count of each over `window` (if
/// given).
pub(crate) fn stations(
    r: &Resolved,
    b: &Built,
    end: Time,
    bin: std::time::Duration,
    window: Option<(f64, f64)>,
) -> (Vec<StationRow>, BTreeMap<String, f64>) {
    let ch = changes(r, b);
    let mut rows = Vec::new();
    let mut means = BTreeMap::new();
    if ch.is_empty() {
        return (rows, means);
    }
    // Every station counted anywhere, for the fair reference.
    let mut all: Vec<(Time, i64)> = ch.values().flatten().copied().collect();
    all.sort_by_key(|x| x.0);
    let total_rate: f64 = r.scenario.cells.iter().map(|c| c.rate_bps as f64).sum();
    for (k, cell) in r.scenario.cells.iter().enumerate() {
        let v = ch.get(&k).map(Vec::as_slice).unwrap_or_default();
        let share = cell.rate_bps as f64 / total_rate;
        // Bins.
        let (mut i, mut j) = (0, 0);
        let (mut count, mut active) = (0i64, 0i64);
        let mut t = Time::ZERO;
        while t <= end && !bin.is_zero() {
            while i < v.len() && v[i].0 <= t {
                count += v[i].1;
                i += 1;
            }
            while j < all.len() && all[j].0 <= t {
                active += all[j].1;
                j += 1;
            }
            rows.push(StationRow {
                cell: cell.name.clone(),
                time: t,
                stations: count as u32,
                fair: active as f64 * share,
            });
            t += bin;
        }
        // Time average over the window.
        if let Some((from, to)) = window.filter(|(f, t)| t > f) {
            let (from, to) = (Time::from_secs_f64(from), Time::from_secs_f64(to).min(end));
            let mut count = 0i64;
            let mut area = 0.0;
            let mut last = from;
            for &(t, d) in v {
                if t > last && t < to {
                    area += count as f64 * (t - last).as_secs_f64();
                    last = t;
                }
                if t >= to {
                    break;
                }
                count += d;
            }
            if to > last {
                area += count as f64 * (to - last).as_secs_f64();
            }
            let span = to.saturating_since(from).as_secs_f64();
            if span > 0.0 {
                means.insert(cell.name.clone(), area / span);
            }
        }
    }
    (rows, means)
}

/// AISLE's congestion events per station per second: the policy counter
/// `congestion_events` of every flow over the station-seconds from each
/// flow's first data path to `end`; `None` when no flow counts them.
pub(crate) fn congestion_rate(b: &Built, flows: &[FlowSummary], end: Time) -> Option<f64> {
    let events: Vec<u64> = flows
        .iter()
        .filter_map(|f| f.policy_counters.get("congestion_events").copied())
        .collect();
    if events.is_empty() {
        return None;
    }
    let seconds: f64 = b
        .flows
        .iter()
        .filter_map(|f| f.msctp_data_sender())
        .filter_map(|s| b.world.agent::<SctpAgent>(s))
        .filter_map(|a| a.data_paths().first().map(|&(t, _)| t))
        .map(|t| end.saturating_since(t).as_secs_f64())
        .sum();
    (seconds > 0.0).then(|| events.iter().sum::<u64>() as f64 / seconds)
}
