//! The summary of an mSCTP flow: the measures over its records, the
//! data packets lost, the handovers seen at the receiver, the failovers
//! after each link or cell break, and the ADD-IP signalling counted by the
//! observers at both ends.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::Duration;

use msctp_proto::Time;

use super::{FlowOut, fill_handovers, goodput_rows, sctp_data, sctp_rows, summary_of};
use crate::kernel::ids::AgentId;
use crate::kernel::world::World;
use crate::measure::flow_log::FlowLog;
use crate::measure::records::Arrival;
use crate::measure::{ArrivalKind, PathId, failover_time};
use crate::measure::{AsconfSummary, FailoverSummary};
use crate::models::sctp::SctpAgent;
use crate::scenario::assemble::{Built, BuiltFlow, FlowObserver};
use crate::scenario::resolve::{Event, Flow, Resolved};
use crate::scenario::spec::*;

#[allow(clippy::too_many_arguments)]
pub(super) fn outputs(
    r: &Resolved,
    b: &Built,
    rf: &Flow,
    f: &BuiltFlow,
    (mobile_agent, fixed_agent): (AgentId, AgentId),
    asconf: &[(AgentId, usize); 2],
    path_addrs: &[IpAddr],
    end: Time,
    tables: bool,
    warnings: &mut Vec<String>,
) -> FlowOut {
    let s = &*r.scenario;
    let spec = &f.spec;
    let w = &b.world;
    let mobile = w.agent::<SctpAgent>(mobile_agent);
    let fixed = w.agent::<SctpAgent>(fixed_agent);
    let log = f.log.borrow();
    // AISLE runs at the data sender, the other policies on the mobile.
    let policy = [fixed, mobile]
        .into_iter()
        .flatten()
        .map(|a| a.config().policy.name())
        .find(|n| *n == "aisle")
        .or_else(|| mobile.map(|m| m.config().policy.name()))
        .unwrap_or_default()
        .to_string();
    let mut sum = summary_of(s, spec, &log, "msctp", policy, end);
    // Lost data packets: drops of packets whose uid an agent of the flow
    // recorded as carrying DATA.
    let mut uids: Vec<u64> = Vec::new();
    sctp_data(&mut sum, [mobile, fixed], &mut uids, warnings);
    sum.count_lost(w.drops(), &mut uids);
    fill_handovers(&mut sum, s, &log, end);
    sum.asconf = Some(asconf_summary(w, asconf, sum.handovers.len()));
    // Failovers after link cuts.
    let sender = match spec.direction {
        DirectionSpec::Downlink => fixed,
        DirectionSpec::Uplink => mobile,
    };
    for (re, e) in r.events.iter().zip(&s.events) {
        if e.action.is_break() {
            let fs = failover(r, rf, (re, e), &log, sender, path_addrs);
            sum.failovers.push(fs);
        }
    }
    if let Some(a) = sender.and_then(|x| x.association()) {
        sum.rwnd_blocked_s = a.rwnd_blocked(end).0.as_secs_f64();
        sum.abandoned_messages = a.stats().abandoned.total();
    }
    if let Some(a) = mobile.and_then(|m| m.association()) {
        let st = a.stats();
        sum.asconfs_sent = st.asconfs_sent;
        sum.asconf_retransmissions = st.asconf_retransmissions;
    }
    sum.policy_decisions = [mobile, fixed]
        .into_iter()
        .flatten()
        .filter_map(|a| a.manager())
        .map(|m| m.decisions)
        .sum();
    for m in [mobile, fixed]
        .into_iter()
        .flatten()
        .filter_map(|a| a.manager())
    {
        for (k, v) in m.counters() {
            *sum.policy_counters.entry(k.to_string()).or_default() += v;
        }
    }
    let goodput = goodput_rows(s, &spec.name, &log, end, warnings);
    let (paths, events) = sctp_rows(
        spec,
        [("mobile", mobile), ("fixed", fixed)],
        tables,
        warnings,
    );
    if log.records_dropped > 0 {
        warnings.push(format!(
            "flow {}: {} records beyond limits.flow_records",
            spec.name, log.records_dropped
        ));
    }
    (sum, goodput, paths, events)
}

/// The ADD-IP signalling of an mSCTP flow, from the observers at both
/// ends (ASCONFs the mobile sent, ASCONF-ACKs the fixed node sent).
fn asconf_summary(w: &World, obs: &[(AgentId, usize); 2], handovers: usize) -> AsconfSummary {
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

/// The failover after break `e` (`re` resolved): the path that carried
/// the data before it, the first new data on another path after it, the
/// sender's own failover and move, its RTO at the break.
fn failover(
    r: &Resolved,
    rf: &Flow,
    (re, e): (&Event, &EventSpec),
    log: &FlowLog,
    sender: Option<&SctpAgent>,
    path_addrs: &[IpAddr],
) -> FailoverSummary {
    let s = &*r.scenario;
    let t = re.at;
    let mut news: Vec<&Arrival> = log
        .arrivals
        .iter()
        .filter(|a| a.kind == ArrivalKind::New)
        .collect();
    news.sort_by_key(|a| a.time);
    let before_path = data_path_before(r, rf, (re, e), &news, path_addrs);
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
    // The sender's first move after the degradation started (or the
    // break), whatever its reason (failover, the peer's request after
    // a link-layer hint, its own policy): where and when.
    let since = re.degrade.map_or(t, |d| d.start);
    let moved = sender.and_then(|a| first_move(a, since, path_addrs));
    let transfer_time = s
        .output
        .failover_transfer_bytes
        .and_then(|want| transfer_time(&news, moved?, want));
    FailoverSummary {
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
        sender_moved_s: moved.map(|(m, _)| m.as_secs_f64() - t.as_secs_f64()),
        transfer_time_s: transfer_time,
    }
}

/// The path that carried the data before break `e` (`re` resolved): a
/// broken cell names it exactly (the mobile's address in that cell);
/// else the path that carried most new data in the second before the
/// break (a stray retransmission on another path, e.g. after a spurious
/// timeout, does not make that path "the" data path), else the path of
/// the last new data before it.
fn data_path_before(
    r: &Resolved,
    rf: &Flow,
    (re, e): (&Event, &EventSpec),
    news: &[&Arrival],
    path_addrs: &[IpAddr],
) -> Option<PathId> {
    let t = re.at;
    let mut counts: BTreeMap<PathId, u64> = BTreeMap::new();
    for a in news
        .iter()
        .filter(|a| a.time < t && t.saturating_since(a.time) <= Duration::from_secs(1))
    {
        *counts.entry(a.path).or_default() += u64::from(a.bytes);
    }
    let cell_path = if e.action.is_cell() {
        r.mobiles[rf.mobile]
            .links
            .iter()
            .find(|l| l.cell == re.target)
            .and_then(|l| path_addrs.iter().position(|x| *x == l.address.addr()))
            .map(|k| PathId(k as u32))
    } else {
        None
    };
    cell_path.or_else(|| {
        counts
            .iter()
            .max_by_key(|(_, b)| **b)
            .map(|(p, _)| *p)
            .or_else(|| news.iter().rev().find(|a| a.time < t).map(|a| a.path))
    })
}

/// The sender's first primary change at or after `since`: when, and to
/// which path.
fn first_move(sender: &SctpAgent, since: Time, path_addrs: &[IpAddr]) -> Option<(Time, PathId)> {
    sender
        .events()
        .iter()
        .find(|ev| ev.time >= since && ev.kind == "primary-changed")
        .and_then(|ev| {
            let addr: std::net::IpAddr = ev.detail.split(' ').next()?.parse().ok()?;
            let k = path_addrs.iter().position(|x| *x == addr)?;
            Some((ev.time, PathId(k as u32)))
        })
}

/// Seconds from the move `(from, p)` until `want` bytes of new data
/// arrived on path `p`.
fn transfer_time(news: &[&Arrival], (from, p): (Time, PathId), want: u64) -> Option<f64> {
    let mut got = 0u64;
    news.iter()
        .filter(|a| a.time >= from && a.path == p)
        .find(|a| {
            got += u64::from(a.bytes);
            got >= want
        })
        .map(|a| (a.time - from).as_secs_f64())
}
