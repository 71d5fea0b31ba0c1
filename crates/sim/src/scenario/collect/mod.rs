//! The outputs of a finished run ([`crate::measure::RunResult`]): the
//! run-wide counters and events, and for every flow its summary (the
//! measures of [`crate::measure`] over its records), goodput series, path
//! samples and events; mSCTP flows in [`msctp`], the baselines in
//! [`baseline`]. The helpers here are what both share.

mod baseline;
mod msctp;
mod stations;
mod trace;

use std::collections::BTreeMap;
use std::time::Duration;

use msctp_proto::Time;

use super::assemble::{Built, BuiltFlow, BuiltKind};
use super::resolve::{Flow, Resolved};
use super::spec::*;
use crate::kernel::drop::DropLog;
use crate::measure::fill::fill_from_log;
use crate::measure::flow_log::FlowLog;
use crate::measure::{
    self, EventRow, FlowSummary, GoodputRow, MapCell, MapMobile, PathRow, RunMap, RunResult,
    RunSummary,
};
use crate::models::sctp::SctpAgent;

/// Every output of a finished run; without `tables`, the path samples
/// and the event table are left empty (nothing else differs: the summary,
/// its warnings and the series are the same).
pub(crate) fn collect(r: &Resolved, seed: u64, mut b: Built, end: Time, tables: bool) -> RunResult {
    let s = &*r.scenario;
    let mut warnings = Vec::new();
    if let Err(e) = b.world.flush_captures() {
        warnings.push(format!("pcap: {e}"));
    }
    let stats = b.world.stats();
    let drops = b.world.drops();
    let drop_counts = drop_counts(drops, &mut warnings);
    let mut events = node_events(&b, tables, &mut warnings);
    let mut flows = Vec::new();
    let mut goodput = Vec::new();
    let mut paths = Vec::new();
    let mut logs = Vec::new();
    for (rf, f) in r.flows.iter().zip(&b.flows) {
        let (summary, g, p, ev) = flow_outputs(r, &b, rf, f, end, tables, &mut warnings);
        flows.push(summary);
        append(&mut goodput, g);
        append(&mut paths, p);
        append(&mut events, ev);
    }
    let traces = if s.output.trace {
        trace::traces(&b, &mut warnings)
    } else {
        Default::default()
    };
    // The run is over: each flow's log moves into the result (a copy
    // would double the largest record of the run).
    for f in &b.flows {
        let log = std::mem::replace(&mut *f.log.borrow_mut(), FlowLog::with_limit(0));
        logs.push((f.spec.name.clone(), log));
    }
    // Stable sort: equal times keep the order of their sources.
    events.sort_by_key(|e| e.time);
    let (station_rows, station_means) = stations::stations(
        r,
        &b,
        end,
        Duration::from_secs_f64(s.output.series_bin_ms / 1000.0),
        s.output.stations_window_s,
    );
    let congestion = stations::congestion_rate(&b, &flows, end);
    let mut pcaps = Vec::new();
    for (name, buf) in &b.captures {
        pcaps.push((name.clone(), buf.contents()));
    }
    RunResult {
        summary: RunSummary {
            scenario: s.name.clone(),
            seed,
            duration_s: s.duration_s,
            events: stats.events,
            packets_created: stats.packets_created,
            drops: drop_counts,
            drops_unlogged: drops.unlogged(),
            flows,
            stations: station_means,
            congestion_events_per_station_s: congestion,
            warnings,
        },
        goodput,
        stations: station_rows,
        paths,
        events,
        map: run_map(s, &b),
        traces,
        pcaps,
        logs,
    }
}

/// `more` after the rows of `all` (moved, not copied, when `all` is
/// still empty).
fn append<T>(all: &mut Vec<T>, mut more: Vec<T>) {
    if all.is_empty() {
        *all = more;
    } else {
        all.append(&mut more);
    }
}

/// Drops per reason; a warning when some were not logged.
fn drop_counts(drops: &DropLog, warnings: &mut Vec<String>) -> BTreeMap<String, u64> {
    let mut drop_counts = BTreeMap::new();
    for (reason, n, _) in drops.counts() {
        drop_counts.insert(format!("{reason:?}"), n);
    }
    if drops.unlogged() > 0 {
        warnings.push(format!(
            "{} drops not logged (limits.drop_log): lost data packets are a lower bound",
            drops.unlogged()
        ));
    }
    drop_counts
}

/// The radio drivers' events of each mobile (their errors and dropped
/// lines as warnings), then the network's scheduled events (without
/// `tables`, the warnings alone).
fn node_events(b: &Built, tables: bool, warnings: &mut Vec<String>) -> Vec<EventRow> {
    let mut events: Vec<EventRow> = Vec::new();
    for m in &b.mobiles {
        let log = m.driver_log.borrow();
        let entries = if tables { &log.entries[..] } else { &[] };
        for (t, kind, detail) in entries {
            events.push(EventRow {
                time: *t,
                source: format!("radio/{}", m.name),
                kind: kind.clone(),
                detail: detail.clone(),
            });
        }
        for (t, e) in &log.errors {
            warnings.push(format!("radio/{} at {t}: {e}", m.name));
        }
        if log.entries_dropped > 0 {
            warnings.push(format!(
                "radio/{}: {} log lines dropped (limits.radio_log)",
                m.name, log.entries_dropped
            ));
        }
    }
    if !tables {
        return events;
    }
    for (t, line) in b.network_log.borrow().iter() {
        let (kind, detail) = line.split_once(' ').unwrap_or((line.as_str(), ""));
        events.push(EventRow {
            time: *t,
            source: "network".into(),
            kind: kind.to_string(),
            detail: detail.to_string(),
        });
    }
    events
}

/// The run's map: the cells and each mobile's waypoints.
fn run_map(s: &Scenario, b: &Built) -> RunMap {
    RunMap {
        duration_s: s.duration_s,
        cells: s
            .cells
            .iter()
            .map(|c| MapCell {
                name: c.name.clone(),
                x_m: c.x_m,
                y_m: c.y_m,
                radius_m: c.radius_m,
                rate_bps: c.rate_bps,
            })
            .collect(),
        mobiles: b
            .mobiles
            .iter()
            .map(|m| MapMobile {
                name: m.name.clone(),
                waypoints: m.waypoints.clone(),
            })
            .collect(),
    }
}

pub(crate) type FlowOut = (FlowSummary, Vec<GoodputRow>, Vec<PathRow>, Vec<EventRow>);

fn flow_outputs(
    r: &Resolved,
    b: &Built,
    rf: &Flow,
    f: &BuiltFlow,
    end: Time,
    tables: bool,
    warnings: &mut Vec<String>,
) -> FlowOut {
    match &f.kind {
        BuiltKind::Msctp {
            mobile_agent,
            fixed_agent,
            asconf,
            path_addrs,
        } => msctp::outputs(
            r,
            b,
            rf,
            f,
            (*mobile_agent, *fixed_agent),
            asconf,
            path_addrs,
            end,
            tables,
            warnings,
        ),
        BuiltKind::Baseline(bf) => {
            let log = f.log.borrow();
            baseline::outputs(
                &r.scenario,
                &b.world,
                &f.spec,
                &log,
                bf,
                end,
                tables,
                warnings,
            )
        }
    }
}

/// A flow's summary with the measures of its records filled in.
pub(crate) fn summary_of(
    s: &Scenario,
    spec: &FlowSpec,
    log: &FlowLog,
    transport: &str,
    policy: String,
    end: Time,
) -> FlowSummary {
    let start = Time::from_secs_f64(spec.start_s);
    let direction = match spec.direction {
        DirectionSpec::Downlink => "downlink",
        DirectionSpec::Uplink => "uplink",
    };
    let mut sum = FlowSummary::new(&spec.name, transport, direction, policy, spec.start_s);
    fill_from_log(
        &mut sum,
        log,
        start,
        end.max(start),
        spec.traffic.file_bytes(),
        &s.output.goodput_windows_s,
    );
    sum
}

/// The DATA packets the SCTP agents of a flow sent (their uids into
/// `uids`) and the datagrams they refused.
pub(crate) fn sctp_data(
    sum: &mut FlowSummary,
    agents: [Option<&SctpAgent>; 2],
    uids: &mut Vec<u64>,
    warnings: &mut Vec<String>,
) {
    for a in agents.into_iter().flatten() {
        sum.data_packets_sent += a.counters().data_packets_out;
        sum.datagrams_refused += a.counters().unowned_source + a.counters().send_failures;
        uids.extend_from_slice(a.data_uids());
        if a.counters().data_uids_dropped > 0 {
            warnings.push(format!(
                "flow {}: data packet uids beyond the bound: lost packets undercounted",
                sum.name
            ));
        }
    }
}

/// The handovers detected at the receiver, over the scenario's windows
/// (`output.handover_window_before_s`, `output.handover_window_after_s`).
pub(crate) fn fill_handovers(sum: &mut FlowSummary, s: &Scenario, log: &FlowLog, end: Time) {
    let before = Duration::from_secs_f64(s.output.handover_window_before_s);
    let after = Duration::from_secs_f64(s.output.handover_window_after_s);
    sum.fill_handovers(log, before, after, end);
}

/// The goodput series of a flow (bins of `output.series_bin_ms`); a
/// series that cannot be computed is a warning.
pub(crate) fn goodput_rows(
    s: &Scenario,
    name: &str,
    log: &FlowLog,
    end: Time,
    warnings: &mut Vec<String>,
) -> Vec<GoodputRow> {
    let bin = Duration::from_secs_f64(s.output.series_bin_ms / 1000.0);
    measure::goodput_rows(name, log, end, bin).unwrap_or_else(|e| {
        warnings.push(format!("flow {name}: goodput series: {e}"));
        Vec::new()
    })
}

/// Path samples and events of the SCTP agents of a flow (none without
/// `tables`), with warnings for what went beyond their bounds.
pub(crate) fn sctp_rows(
    spec: &FlowSpec,
    agents: [(&'static str, Option<&SctpAgent>); 2],
    tables: bool,
    warnings: &mut Vec<String>,
) -> (Vec<PathRow>, Vec<EventRow>) {
    let rows = agents
        .iter()
        .filter_map(|(_, a)| *a)
        .map(|a| a.samples().len());
    let mut paths = Vec::with_capacity(if tables { rows.sum() } else { 0 });
    let mut events = Vec::new();
    let flow: std::sync::Arc<str> = spec.name.as_str().into();
    for (side, agent) in agents {
        let Some(a) = agent else { continue };
        let samples = if tables { a.samples() } else { &[] };
        for p in samples {
            paths.push(PathRow {
                flow: flow.clone(),
                side,
                time: p.time,
                remote: p.remote,
                path: if p.path.0 == u32::MAX {
                    -1
                } else {
                    i64::from(p.path.0)
                },
                data_path: p.data_path,
                active: p.active,
                cwnd: p.cwnd,
                ssthresh: p.ssthresh,
                flight: p.flight,
                srtt_ms: p.srtt.map(|d| d.as_secs_f64() * 1000.0),
                rto_ms: p.rto.as_secs_f64() * 1000.0,
                errors: p.errors,
            });
        }
        for e in a.events() {
            if matches!(e.kind, "config-error" | "connect-failed") {
                warnings.push(format!(
                    "flow {} ({side}) at {}: {} {}",
                    spec.name, e.time, e.kind, e.detail
                ));
            }
            if !tables {
                continue;
            }
            events.push(EventRow {
                time: e.time,
                source: format!("sctp/{}/{side}", spec.name),
                kind: e.kind.to_string(),
                detail: e.detail.clone(),
            });
        }
        let c = a.counters();
        if c.events_dropped + c.samples_dropped > 0 {
            warnings.push(format!(
                "flow {} ({side}): {} events and {} samples beyond the bounds",
                spec.name, c.events_dropped, c.samples_dropped
            ));
        }
        if c.no_endpoint > 0 {
            warnings.push(format!(
                "flow {} ({side}): {} packets for an agent without endpoint",
                spec.name, c.no_endpoint
            ));
        }
    }
    (paths, events)
}
