//! Running a scenario and collecting its outputs.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::Duration;

use msctp_proto::Time;

use super::baselines::{self, FlowObserver};
use super::build::{self, Built, BuiltFlow, BuiltKind};
use super::spec::*;
use super::validate::ScenarioError;
use crate::kernel::ids::AgentId;
use crate::metrics::{ArrivalKind, PathId, Window, failover_time, goodput_series};
use crate::models::sctp::SctpAgent;
use crate::output::summary::{fill_from_log, handovers};
use crate::output::{
    AsconfSummary, EventRow, FailoverSummary, FlowSummary, GoodputRow, PathRow, RunResult,
    RunSummary,
};

/// Builds the scenario's world with `seed`, runs it for `duration_s` and
/// returns every output. The same scenario and seed give identical
/// results.
pub fn run_scenario(s: &Scenario, seed: u64) -> Result<RunResult, ScenarioError> {
    let mut b = build::build(s, seed)?;
    let mut end = Time::from_secs_f64(s.duration_s);
    let last_break = s
        .events
        .iter()
        .filter(|e| e.action.is_break())
        .map(|e| Time::from_secs_f64(e.at_s))
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
    Ok(collect(s, seed, b, end))
}

/// When the last of the flows' data senders moved its primary because the
/// old one failed (at or after `brk`), if all did.
fn all_failed_over(b: &Built, brk: Time) -> Option<Time> {
    let mut latest = brk;
    for f in &b.flows {
        let BuiltKind::Msctp {
            mobile_agent,
            fixed_agent,
            ..
        } = &f.kind
        else {
            // Only SCTP senders fail over; other transports do not count.
            continue;
        };
        let sender = match f.spec.direction {
            DirectionSpec::Downlink => *fixed_agent,
            DirectionSpec::Uplink => *mobile_agent,
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

fn collect(s: &Scenario, seed: u64, mut b: Built, end: Time) -> RunResult {
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
    for f in &b.flows {
        let (summary, g, p, ev) = flow_outputs(s, &b, f, end, &mut warnings);
        flows.push(summary);
        goodput.extend(g);
        paths.extend(p);
        events.extend(ev);
        logs.push((f.spec.name.clone(), f.log.borrow().clone()));
    }
    // Stable sort: equal times keep the order of their sources.
    events.sort_by_key(|e| e.time);
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
            warnings,
        },
        goodput,
        paths,
        events,
        pcaps,
        logs,
    }
}

pub(crate) type FlowOut = (FlowSummary, Vec<GoodputRow>, Vec<PathRow>, Vec<EventRow>);

fn flow_outputs(
    s: &Scenario,
    b: &Built,
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
        } => msctp_outputs(
            s,
            b,
            f,
            (*mobile_agent, *fixed_agent),
            asconf,
            path_addrs,
            end,
            warnings,
        ),
        BuiltKind::Baseline(bf) => {
            let log = f.log.borrow();
            baselines::collect::outputs(s, &b.world, &f.spec, &log, bf, end, warnings)
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
        handovers: Vec::new(),
        total_handoff_delay_s: 0.0,
        handovers_unmeasured: 0,
        failovers: Vec::new(),
        asconfs_sent: 0,
        asconf_retransmissions: 0,
        policy_decisions: 0,
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

/// Lost data packets: drops of the packets whose uid is in `uids` (sorted
/// here), by reason.
pub(crate) fn count_lost(sum: &mut FlowSummary, w: &crate::World, uids: &mut [u64]) {
    uids.sort_unstable();
    for d in w.drops().records() {
        if uids.binary_search(&d.uid).is_ok() {
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
        }
    }
}

/// Handovers detected at the receiver, over the scenario's windows.
pub(crate) fn fill_handovers(
    sum: &mut FlowSummary,
    s: &Scenario,
    log: &crate::metrics::flow_log::FlowLog,
    end: Time,
) {
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
    log: &crate::metrics::flow_log::FlowLog,
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

#[allow(clippy::too_many_arguments)]
fn msctp_outputs(
    s: &Scenario,
    b: &Built,
    f: &BuiltFlow,
    (mobile_agent, fixed_agent): (AgentId, AgentId),
    asconf: &[(AgentId, usize); 2],
    path_addrs: &[IpAddr],
    end: Time,
    warnings: &mut Vec<String>,
) -> FlowOut {
    let spec = &f.spec;
    let w = &b.world;
    let mobile = w.agent::<SctpAgent>(mobile_agent);
    let fixed = w.agent::<SctpAgent>(fixed_agent);
    let log = f.log.borrow();
    let start = Time::from_secs_f64(spec.start_s);
    let file_bytes = spec.traffic.file_bytes();
    let mut sum = new_summary(
        spec,
        "msctp",
        mobile
            .map(|m| m.config().policy.name().to_string())
            .unwrap_or_default(),
    );
    fill_from_log(
        &mut sum,
        &log,
        start,
        end.max(start),
        file_bytes,
        &s.output.goodput_windows_s,
    );
    // Lost data packets: drops of packets whose uid an agent of the flow
    // recorded as carrying DATA.
    let mut uids: Vec<u64> = Vec::new();
    for a in [mobile, fixed].into_iter().flatten() {
        sum.data_packets_sent += a.counters().data_packets_out;
        sum.datagrams_refused += a.counters().unowned_source + a.counters().send_failures;
        uids.extend_from_slice(a.data_uids());
        if a.counters().data_uids_dropped > 0 {
            warnings.push(format!(
                "flow {}: data packet uids beyond the bound: lost packets undercounted",
                spec.name
            ));
        }
    }
    count_lost(&mut sum, w, &mut uids);
    fill_handovers(&mut sum, s, &log, end);
    sum.asconf = Some(asconf_summary(w, asconf, sum.handovers.len()));
    // Failovers after link cuts.
    let sender = match spec.direction {
        DirectionSpec::Downlink => fixed,
        DirectionSpec::Uplink => mobile,
    };
    for e in s.events.iter().filter(|e| e.action.is_break()) {
        let t = Time::from_secs_f64(e.at_s);
        let mut news: Vec<_> = log
            .arrivals
            .iter()
            .filter(|a| a.kind == ArrivalKind::New)
            .collect();
        news.sort_by_key(|a| a.time);
        // The path that carried most new data in the second before the
        // break (a stray retransmission on another path, e.g. after a
        // spurious timeout, does not make that path "the" data path).
        let mut counts: BTreeMap<PathId, u64> = BTreeMap::new();
        for a in news
            .iter()
            .filter(|a| a.time < t && t.saturating_since(a.time) <= Duration::from_secs(1))
        {
            *counts.entry(a.path).or_default() += u64::from(a.bytes);
        }
        // A broken cell names the broken path exactly: the mobile's
        // address in that cell.
        let cell_path = if e.action.is_cell() {
            let mobile_spec = s.mobiles.iter().find(|m| m.name == spec.mobile);
            let cell_spec = s.cells.iter().find(|c| c.name == e.cell);
            match (mobile_spec, cell_spec) {
                (Some(m), Some(c)) => c
                    .ap_addr
                    .parse::<ipnet::IpNet>()
                    .ok()
                    .and_then(|ap| super::validate::host_in(ap, m.host_id))
                    .and_then(|a| path_addrs.iter().position(|x| *x == a.addr()))
                    .map(|k| PathId(k as u32)),
                _ => None,
            }
        } else {
            None
        };
        let before_path = cell_path.or_else(|| {
            counts
                .iter()
                .max_by_key(|(_, b)| **b)
                .map(|(p, _)| *p)
                .or_else(|| news.iter().rev().find(|a| a.time < t).map(|a| a.path))
        });
        let alt = news
            .iter()
            .find(|a| a.time >= t && Some(a.path) != before_path)
            .map(|a| a.path);
        let sender_failover = sender.and_then(|a| {
            a.events()
                .iter()
                .find(|ev| {
                    ev.time >= t && ev.kind == "primary-changed" && ev.detail.ends_with("Failover")
                })
                .map(|ev| (ev.time - t).as_secs_f64())
        });
        let rto_at_break = sender.and_then(|a| {
            a.samples()
                .iter()
                .rfind(|x| x.time <= t && x.data_path)
                .map(|x| x.rto.as_secs_f64())
        });
        let retransmitted: std::collections::BTreeSet<u64> =
            log.retransmissions.iter().map(|r| r.seq).collect();
        let new_data_failover = alt.and_then(|p| {
            news.iter()
                .find(|a| a.time >= t && a.path == p && !retransmitted.contains(&a.seq))
                .map(|a| (a.time - t).as_secs_f64())
        });
        sum.failovers.push(FailoverSummary {
            link: if e.action.is_cell() {
                e.cell.clone()
            } else {
                e.link.clone()
            },
            break_s: e.at_s,
            alternate_path: alt.map(|p: PathId| p.0),
            failover_time_s: alt
                .and_then(|p| failover_time(&log.arrivals, t, p))
                .map(|d| d.as_secs_f64()),
            sender_failover_s: sender_failover,
            new_data_failover_s: new_data_failover,
            rto_at_break_s: rto_at_break,
        });
    }
    if let Some(a) = mobile.and_then(|m| m.association()) {
        let st = a.stats();
        sum.asconfs_sent = st.asconfs_sent;
        sum.asconf_retransmissions = st.asconf_retransmissions;
    }
    sum.policy_decisions = mobile.and_then(|m| m.manager()).map_or(0, |m| m.decisions);
    let goodput = goodput_rows(s, &spec.name, &log, end, warnings);
    let (paths, events) = sctp_rows(spec, [("mobile", mobile), ("fixed", fixed)], warnings);
    if log.records_dropped > 0 {
        warnings.push(format!(
            "flow {}: {} records beyond limits.flow_records",
            spec.name, log.records_dropped
        ));
    }
    (sum, goodput, paths, events)
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

/// The ADD-IP signalling of an mSCTP flow, from the observers at both
/// ends (ASCONFs the mobile sent, ASCONF-ACKs the fixed node sent).
fn asconf_summary(
    w: &crate::World,
    obs: &[(AgentId, usize); 2],
    handovers: usize,
) -> AsconfSummary {
    let count = |(a, k): (AgentId, usize)| {
        w.agent::<FlowObserver>(a)
            .and_then(|o| o.records(k))
            .map(|r| r.asconf)
            .unwrap_or_default()
    };
    let m = count(obs[0]);
    let f = count(obs[1]);
    let asconf_bits = 8 * m.asconf_bytes;
    let asconf_ack_bits = 8 * f.ack_bytes;
    let auth_bits = 8 * (m.auth_bytes + f.auth_bytes);
    let signalling_bits = asconf_bits + asconf_ack_bits;
    let per = |bits: u64| (handovers > 0).then(|| bits as f64 / handovers as f64);
    AsconfSummary {
        asconf_chunks: m.asconf_chunks,
        asconf_bits,
        asconf_ack_chunks: f.ack_chunks,
        asconf_ack_bits,
        auth_bits,
        signalling_bits,
        bits_per_handover: per(signalling_bits),
        bits_per_handover_with_auth: per(signalling_bits + auth_bits),
    }
}
