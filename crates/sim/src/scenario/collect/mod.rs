//! The outputs of a finished run ([`crate::output::RunResult`]): the
//! run-wide counters and events, and for every flow its summary (the
//! measures of [`crate::metrics`] over its records), goodput series, path
//! samples and events; mSCTP flows in [`msctp`], the baselines in
//! [`baseline`]. The helpers here are what both share.

mod baseline;
mod msctp;
mod stations;
mod trace;

use std::collections::BTreeMap;
use std::time::Duration;

use msctp_proto::Time;

use super::build::{Built, BuiltFlow, BuiltKind};
use super::resolve::{Flow, Resolved};
use super::spec::*;
use crate::kernel::world::World;
use crate::metrics::flow_log::FlowLog;
use crate::metrics::{Window, goodput_series};
use crate::models::sctp::SctpAgent;
use crate::output::summary::{fill_from_log, handovers};
use crate::output::{
    EventRow, FlowSummary, GoodputRow, MapCell, MapMobile, PathRow, RunMap, RunResult, RunSummary,
};

/// Every output of a finished run.
pub(crate) fn collect(r: &Resolved<'_>, seed: u64, mut b: Built, end: Time) -> RunResult {
    let s = r.scenario;
    let mut warnings = Vec::new();
    if let Err(e) = b.world.flush_captures() {
        warnings.push(format!("pcap: {e}"));
    }
    let stats = b.world.stats();
    let drops = b.world.drops();
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
    let mut events: Vec<EventRow> = Vec::new();
    for m in &b.mobiles {
        let log = m.driver_log.borrow();
        for (t, kind, detail) in &log.entries {
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
    for (t, line) in b.network_log.borrow().iter() {
        let (kind, detail) = line.split_once(' ').unwrap_or((line.as_str(), ""));
        events.push(EventRow {
            time: *t,
            source: "network".into(),
            kind: kind.to_string(),
            detail: detail.to_string(),
        });
    }
    let mut flows = Vec::new();
    let mut goodput = Vec::new();
    let mut paths = Vec::new();
    let mut logs = Vec::new();
    for (rf, f) in r.flows.iter().zip(&b.flows) {
        let (summary, g, p, ev) = flow_outputs(r, &b, rf, f, end, &mut warnings);
        flows.push(summary);
        goodput.extend(g);
        paths.extend(p);
        events.extend(ev);
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
        map: RunMap {
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
        },
        traces,
        pcaps,
        logs,
    }
}

pub(crate) type FlowOut = (FlowSummary, Vec<GoodputRow>, Vec<PathRow>, Vec<EventRow>);

fn flow_outputs(
    r: &Resolved<'_>,
    b: &Built,
    rf: &Flow<'_>,
    f: &BuiltFlow,
    end: Time,
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
            warnings,
        ),
        BuiltKind::Baseline(bf) => {
            let log = f.log.borrow();
            baseline::outputs(r.scenario, &b.world, &f.spec, &log, bf, end, warnings)
        }
    }
}

/// A flow summary with the identity fields filled and every measure zero.
pub(crate) fn new_summary(spec: &FlowSpec, transport: &str, policy: String) -> FlowSummary {
    FlowSummary {
        name: spec.name.clone(),
        transport: transport.into(),
        direction: match spec.direction {
            DirectionSpec::Downlink => "downlink".into(),
            DirectionSpec::Uplink => "uplink".into(),
        },
        policy,
        start_s: spec.start_s,
        bytes_offered: 0,
        bytes_delivered: 0,
        goodput_bps: 0.0,
        file_delivery_time_s: None,
        goodput_windows: Vec::new(),
        data_packets_sent: 0,
        lost_data_packets: 0,
        lost_data_by_reason: BTreeMap::new(),
        lost_data_mobility: 0,
        arrivals: 0,
        duplicate_arrivals: 0,
        reordered_packets: 0,
        out_of_order_arrivals: 0,
        retransmissions: 0,
        fast_retransmissions: 0,
        spurious_retransmissions: 0,
        spurious_fast_retransmissions: 0,
        longest_delivery_gap_s: 0.0,
        rwnd_blocked_s: 0.0,
        handovers: Vec::new(),
        total_handoff_delay_s: 0.0,
        handovers_unmeasured: 0,
        failovers: Vec::new(),
        asconfs_sent: 0,
        asconf_retransmissions: 0,
        policy_decisions: 0,
        policy_counters: Default::default(),
        datagrams_refused: 0,
        records_dropped: 0,
        asconf: None,
        mobile_ip: None,
        fmip: None,
        tcp: None,
        handoff: None,
        cmhn: None,
        udp: None,
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
    let mut sum = new_summary(spec, transport, policy);
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

/// Lost data packets: drops of the packets whose uid is in `uids` (sorted
/// here), by reason. Walks the shorter of the drop log and the uids (one
/// flow among many looks its few packets up in the log's uid index).
pub(crate) fn count_lost(sum: &mut FlowSummary, w: &World, uids: &mut [u64]) {
    uids.sort_unstable();
    let mut count = |d: &crate::kernel::drop::DropRecord| {
        sum.lost_data_packets += 1;
        if !matches!(
            d.reason,
            crate::kernel::drop::DropReason::QueueOverflow
                | crate::kernel::drop::DropReason::LinkError
        ) {
            sum.lost_data_mobility += 1;
        }
        *sum.lost_data_by_reason
            .entry(format!("{:?}", d.reason))
            .or_insert(0) += 1;
    };
    let drops = w.drops();
    if drops.records().len() <= uids.len() {
        for d in drops.records() {
            if uids.binary_search(&d.uid).is_ok() {
                count(d);
            }
        }
    } else {
        let mut last = None;
        for &uid in uids.iter() {
            // A uid listed twice counts its drops once.
            if last.replace(uid) != Some(uid) {
                drops.records_of(uid).for_each(&mut count);
            }
        }
    }
}

/// Handovers detected at the receiver, over the scenario's windows.
pub(crate) fn fill_handovers(sum: &mut FlowSummary, s: &Scenario, log: &FlowLog, end: Time) {
    let before = Duration::from_secs_f64(s.output.handover_window_before_s);
    let after = Duration::from_secs_f64(s.output.handover_window_after_s);
    sum.handovers = handovers(&log.arrivals, before, after, end);
    for h in &sum.handovers {
        match h.handoff_delay_s {
            Some(d) => sum.total_handoff_delay_s += d,
            None => sum.handovers_unmeasured += 1,
        }
    }
}

/// The goodput series of a flow (bins of `output.series_bin_ms`).
pub(crate) fn goodput_rows(
    s: &Scenario,
    name: &str,
    log: &FlowLog,
    end: Time,
    warnings: &mut Vec<String>,
) -> Vec<GoodputRow> {
    let mut goodput = Vec::new();
    let bin = Duration::from_secs_f64(s.output.series_bin_ms / 1000.0);
    if let Ok(w) = Window::new(Time::ZERO, end) {
        match goodput_series(&log.deliveries, w, bin, 10_000_000) {
            Ok(series) => {
                let mut deliveries: Vec<_> = log.deliveries.iter().collect();
                deliveries.sort_by_key(|d| d.time);
                let mut k = 0;
                let mut cum = 0u64;
                for (t, g) in series {
                    let bin_end = t + bin;
                    while let Some(d) = deliveries.get(k).filter(|d| d.time < bin_end) {
                        cum += d.bytes;
                        k += 1;
                    }
                    goodput.push(GoodputRow {
                        flow: name.to_string(),
                        time: t,
                        goodput_bps: g,
                        cumulative_bytes: cum,
                    });
                }
            }
            Err(e) => warnings.push(format!("flow {name}: goodput series: {e}")),
        }
    }
    goodput
}

/// Path samples and events of the SCTP agents of a flow, with warnings for
/// what went beyond their bounds.
pub(crate) fn sctp_rows(
    spec: &FlowSpec,
    agents: [(&'static str, Option<&SctpAgent>); 2],
    warnings: &mut Vec<String>,
) -> (Vec<PathRow>, Vec<EventRow>) {
    let mut paths = Vec::new();
    let mut events = Vec::new();
    for (side, agent) in agents {
        let Some(a) = agent else { continue };
        for p in a.samples() {
            paths.push(PathRow {
                flow: spec.name.clone(),
                side,
                time: p.time,
                remote: p.remote.to_string(),
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
