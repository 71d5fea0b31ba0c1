//! The run summary of a baseline flow: the measures of docs/MODELS.md section
//! 5 defined exactly as for mSCTP ([`crate::measure`] over the flow's
//! records), and each scheme's own quantities (Mobile IP's T_ad and T_reg
//! per handover and its tunnelling overhead, FMIPv6's timeline and
//! buffers, TCP's timeouts, the E4 schemes' handoffs and connections, UDP
//! datagram counts).
//!
//! **Paths.** The measures that compare paths (handovers, handoff delay)
//! need every arrival tagged with the network path the data took. For
//! mSCTP that is the mobile's address; for the baselines it is the cell
//! the mobile's interface was attached to, numbered like mSCTP's paths
//! (the index of the mobile's address in that cell), because under Mobile
//! IP the transport sees the home address on both sides of a handover:
//! - downlink (the mobile receives): the cell of the receiving interface
//!   at the arrival (TCP and UDP records carry the interface; SCTP
//!   arrivals are matched with the observer's receive records);
//! - uplink (the fixed node receives): the cell the mobile sent that data
//!   from (the observer's send records, matched by data number: the
//!   latest send of the same data at or before the arrival);
//! - CMHN: the slot's interface (one cell each).
//!
//! Sender-side retransmissions of uplink flows get the path of their own
//! send; downlink retransmissions keep the fixed node's label (they are
//! only matched by data number).

use std::collections::BTreeSet;

use crate::models::quic::QuicAgent;

use super::{FlowOut, fill_handovers, goodput_rows, sctp_data, sctp_rows, summary_of};
use crate::Time;
use crate::kernel::ids::{AgentId, IfaceId};
use crate::kernel::world::World;
use crate::measure::PathId;
use crate::measure::flow_log::FlowLog;
use crate::measure::{
    CmhnSummary, EventRow, FmipSummary, MipHandoverSummary, MobileIpSummary, PathRow,
    SingleHandoffRecord, SingleHandoffSummary, TcpSummary, UdpSummary,
};
use crate::models::app::{ParetoOnOff, UdpCbr, UdpSink};
use crate::models::cmhn::CmhnAgent;
use crate::models::cmhn::SwitchRecord;
use crate::models::fmip::FmipRouter;
use crate::models::handoff::{HandoffPeer, HandoffRecord, SingleConnectionHandoff};
use crate::models::mip::MipTraceEvent;
use crate::models::mip::v4::{HomeAgent, MobileNode};
use crate::models::mip::v6::{HomeAgent6, MobileNode6};
use crate::models::sctp::SctpAgent;
use crate::models::tcp::TcpAgent;
use crate::scenario::assemble::{
    BaselineFlow, FlowAgents, FlowObserver, Mip4Parts, Mip6Parts, NO_PATH, PathRecord, SchemeParts,
    WatchRecords,
};
use crate::scenario::spec::*;

fn observer(w: &World, (a, _): (AgentId, usize)) -> Option<&FlowObserver> {
    w.agent::<FlowObserver>(a)
}

fn records(w: &World, o: (AgentId, usize)) -> Option<&WatchRecords> {
    observer(w, o).and_then(|x| x.records(o.1))
}

/// Path records by data number: (data number, time, path), sorted by
/// data number, the records of one number in the order they were made
/// (time order). One sorted vector rather than a map of vectors: one
/// allocation for all records.
type SeqIndex = Vec<(u64, Time, u32)>;

fn index(recs: &[PathRecord]) -> SeqIndex {
    let mut v: SeqIndex = recs.iter().map(|r| (r.seq, r.time, r.path)).collect();
    // Stable: the records of one number keep their order.
    v.sort_by_key(|e| e.0);
    v
}

/// The path of the latest record of `seq` at or before `t`.
fn lookup(idx: &SeqIndex, seq: u64, t: Time) -> Option<u32> {
    let lo = idx.partition_point(|e| e.0 < seq);
    let hi = lo + idx[lo..].partition_point(|e| e.0 == seq);
    idx[lo..hi]
        .iter()
        .rev()
        .find(|(_, at, _)| *at <= t)
        .map(|(_, _, p)| *p)
}

/// The flow's records: the transports' log, or, for UDP, one built from
/// the sink's arrivals.
fn flow_records(w: &World, b: &BaselineFlow, log: &FlowLog, limit: usize) -> FlowLog {
    let FlowAgents::Udp {
        source,
        pareto,
        sink,
        payload,
    } = b.agents
    else {
        return log.clone();
    };
    let mut out = FlowLog::with_limit(limit);
    let sent = if pareto {
        w.agent::<ParetoOnOff>(source).map_or(0, |x| x.sent())
    } else {
        w.agent::<UdpCbr>(source).map_or(0, |x| x.sent())
    };
    out.bytes_offered = sent * payload;
    if let Some(s) = w.agent::<UdpSink>(sink) {
        let mut seen = BTreeSet::new();
        for a in s.arrivals() {
            let seq = a.seq.unwrap_or(u64::MAX);
            let new = seen.insert(seq);
            let path = a.iface.map_or(NO_PATH, |i| i.0);
            out.arrival(a.at, PathId(path), seq, payload as u32, new);
            if new {
                out.delivered(a.at, payload);
            }
        }
        out.records_dropped += s.packets().saturating_sub(s.arrivals().len() as u64);
    }
    out
}

/// Tags arrivals (and uplink retransmissions) with cells; see the module
/// documentation. Returns how many arrivals got no path.
fn relabel(log: &mut FlowLog, w: &World, b: &BaselineFlow) -> u64 {
    let mut unknown = 0u64;
    let mut set = |p: &mut PathId, v: Option<u32>| {
        let v = v.unwrap_or(NO_PATH);
        if v == NO_PATH {
            unknown += 1;
        }
        *p = PathId(v);
    };
    if matches!(b.agents, FlowAgents::Cmhn { .. }) {
        for a in &mut log.arrivals {
            let v = b.slot_paths.get(a.path.0 as usize).copied();
            set(&mut a.path, v);
        }
        for r in &mut log.retransmissions {
            r.path = PathId(
                b.slot_paths
                    .get(r.path.0 as usize)
                    .copied()
                    .unwrap_or(NO_PATH),
            );
        }
        return unknown;
    }
    if matches!(b.agents, FlowAgents::Quic { .. }) && !b.downlink {
        // The QUIC server tagged each arrival with the mobile's address
        // it came from, numbered as the paths already.
        return log.arrivals.iter().filter(|a| a.path.0 == NO_PATH).count() as u64;
    }
    let Some(mo) = observer(w, b.mobile_obs) else {
        return log.arrivals.len() as u64;
    };
    let Some(mr) = records(w, b.mobile_obs) else {
        return log.arrivals.len() as u64;
    };
    let sctp = matches!(b.agents, FlowAgents::Sctp { .. });
    if b.downlink {
        if sctp {
            let idx = index(&mr.receives);
            for a in &mut log.arrivals {
                let v = lookup(&idx, a.seq, a.time);
                set(&mut a.path, v);
            }
        } else {
            for a in &mut log.arrivals {
                let v = (a.path.0 != NO_PATH)
                    .then(|| mo.path_of(mo.cell_at(IfaceId(a.path.0), a.time)));
                set(&mut a.path, v);
            }
        }
    } else {
        let idx = index(&mr.sends);
        for a in &mut log.arrivals {
            let v = lookup(&idx, a.seq, a.time);
            set(&mut a.path, v);
        }
        for r in &mut log.retransmissions {
            r.path = PathId(lookup(&idx, r.seq, r.time).unwrap_or(NO_PATH));
        }
    }
    unknown
}

fn scheme_name(spec: &FlowSpec) -> String {
    match spec.transport {
        TransportSpec::Mip4Tcp | TransportSpec::Mip4Sctp => "mobile-ipv4".into(),
        TransportSpec::Mip6Tcp | TransportSpec::Mip6Udp => "mobile-ipv6".into(),
        TransportSpec::Fmip6Tcp | TransportSpec::Fmip6Udp => {
            let a = spec.fmip6.as_ref().map_or(AttachSpec::Ideal, |x| x.attach);
            format!("fmipv6-{}", attach_name(a))
        }
        TransportSpec::SingleHandoff => "single-connection".into(),
        TransportSpec::Cmhn => match spec.cmhn.as_ref().map(|c| c.scheduling) {
            Some(SchedulingSpec::Stripe) => "cmhn-stripe".into(),
            _ => "cmhn-switch".into(),
        },
        _ => "none".into(),
    }
}

fn attach_name(a: AttachSpec) -> &'static str {
    match a {
        AttachSpec::Early => "early",
        AttachSpec::Ideal => "ideal",
        AttachSpec::Late => "late",
    }
}

fn opt_s(t: Option<Time>) -> Option<f64> {
    t.map(|x| x.as_secs_f64())
}

/// Everything a baseline flow reports.
#[allow(clippy::too_many_arguments)]
pub(crate) fn outputs(
    s: &Scenario,
    w: &World,
    spec: &FlowSpec,
    shared: &FlowLog,
    b: &BaselineFlow,
    end: Time,
    tables: bool,
    warnings: &mut Vec<String>,
) -> FlowOut {
    let mut log = flow_records(w, b, shared, s.limits.flow_records);
    let unknown = relabel(&mut log, w, b);
    if let Some(o) = observer(w, b.mobile_obs)
        && o.attachments_dropped() > 0
    {
        warnings.push(format!(
            "flow {}: {} attachment changes of the mobile beyond limits.flow_records: \
             paths may be wrong",
            spec.name,
            o.attachments_dropped()
        ));
    }
    if unknown > 0 {
        warnings.push(format!(
            "flow {}: {unknown} records without a known path (bounds reached, or data \
             from an interface attached to no cell)",
            spec.name
        ));
    }
    let mut sum = summary_of(s, spec, &log, spec.transport.name(), scheme_name(spec), end);
    // Data packets and their losses.
    let mut uids: Vec<u64> = Vec::new();
    let mut paths: Vec<PathRow> = Vec::new();
    let mut events: Vec<EventRow> = Vec::new();
    match b.agents {
        FlowAgents::Sctp { mobile, fixed } => {
            let m = w.agent::<SctpAgent>(mobile);
            let f = w.agent::<SctpAgent>(fixed);
            sctp_data(&mut sum, [m, f], &mut uids, warnings);
            let (p, e) = sctp_rows(spec, [("mobile", m), ("fixed", f)], tables, warnings);
            paths = p;
            events = e;
        }
        _ => {
            let sender = if b.downlink {
                b.fixed_obs
            } else {
                b.mobile_obs
            };
            if let Some(r) = records(w, sender) {
                uids.extend_from_slice(&r.uids);
                sum.data_packets_sent = r.uids.len() as u64 + r.uids_dropped;
                if r.uids_dropped > 0 {
                    warnings.push(format!(
                        "flow {}: data packet uids beyond limits.data_uids: lost packets \
                         undercounted",
                        spec.name
                    ));
                }
            }
        }
    }
    for o in [b.mobile_obs, b.fixed_obs] {
        if let Some(r) = records(w, o) {
            sum.datagrams_refused += r.refused;
            if r.records_dropped > 0 {
                warnings.push(format!(
                    "flow {}: {} path records beyond limits.flow_records",
                    spec.name, r.records_dropped
                ));
            }
        }
    }
    sum.count_lost(w.drops(), &mut uids);
    fill_handovers(&mut sum, s, &log, end);
    scheme_summaries(&mut sum, s, w, spec, b, &mut events);
    if log.records_dropped > 0 {
        warnings.push(format!(
            "flow {}: {} records beyond limits.flow_records",
            spec.name, log.records_dropped
        ));
    }
    let goodput = goodput_rows(s, &spec.name, &log, end, warnings);
    (sum, goodput, paths, events)
}

fn tcp_summary(
    sender: Option<msctp_tcp::TcpStats>,
    receiver: Option<msctp_tcp::TcpStats>,
    ep: Option<&crate::models::tcp::TcpEndpoint>,
    connections: u64,
) -> TcpSummary {
    let st = sender.as_ref();
    let closed = ep.and_then(|e| e.closed());
    TcpSummary {
        connections,
        timeouts: st.map_or(0, |x| x.timeouts),
        fast_retransmits: st.map_or(0, |x| x.fast_retransmits),
        segments_retransmitted: st.map_or(0, |x| x.segments_retransmitted),
        dup_acks_sent: receiver.map_or(0, |r| r.dup_acks_sent),
        connected_s: opt_s(ep.and_then(|e| e.connected_at())),
        closed_s: closed.map(|(t, _)| t.as_secs_f64()),
        closed_reason: closed.map(|(_, r)| format!("{r:?}")),
        timed_out: matches!(closed, Some((_, msctp_tcp::CloseReason::TimedOut))),
    }
}

fn scheme_summaries(
    sum: &mut crate::measure::FlowSummary,
    s: &Scenario,
    w: &World,
    spec: &FlowSpec,
    b: &BaselineFlow,
    events: &mut Vec<EventRow>,
) {
    let down = b.downlink;
    match b.agents {
        // The flow's measures are the common ones; the client's
        // migrations and the sender's losses (quinn-proto's counters).
        FlowAgents::Quic { mobile, fixed } => {
            let m = w.agent::<QuicAgent>(mobile);
            let f = w.agent::<QuicAgent>(fixed);
            let tx = if down { f } else { m };
            if let Some(m) = m {
                sum.policy_decisions = m.stats().migrations;
                sum.policy_counters
                    .insert("quic_migrations".into(), m.stats().migrations);
            }
            if let Some(ps) = tx.and_then(|a| a.connection_stats()).map(|c| c.path) {
                sum.policy_counters
                    .insert("quic_lost_packets".into(), ps.lost_packets);
                sum.policy_counters
                    .insert("quic_congestion_events".into(), ps.congestion_events);
            }
        }
        FlowAgents::Tcp { mobile, fixed } => {
            let m = w.agent::<TcpAgent>(mobile);
            let f = w.agent::<TcpAgent>(fixed);
            let (tx, rx) = if down { (f, m) } else { (m, f) };
            sum.tcp = Some(tcp_summary(
                tx.and_then(|a| a.stats()),
                rx.and_then(|a| a.stats()),
                m.and_then(|a| a.endpoint(0)),
                m.map_or(0, |a| a.endpoints().len() as u64),
            ));
        }
        FlowAgents::Single { mobile, fixed } => {
            single_summary(sum, w, spec, (mobile, fixed), down, events)
        }
        FlowAgents::Cmhn { mobile, fixed } => {
            cmhn_summary(sum, w, spec, (mobile, fixed), down, events)
        }
        FlowAgents::Udp {
            source,
            pareto,
            sink,
            ..
        } => sum.udp = Some(udp_summary(w, source, pareto, sink)),
        FlowAgents::Sctp { .. } => {}
    }
    let Some(mo) = observer(w, b.mobile_obs) else {
        return;
    };
    let source = format!("{}/{}", spec.transport.name(), spec.mobile);
    match &b.scheme {
        SchemeParts::None => {}
        SchemeParts::Mip4(p) => mip4_summary(sum, w, mo, p, &source, events),
        SchemeParts::Mip6(p) => mip6_summary(sum, w, spec, mo, p, &source, events),
    }
    let _ = s;
}

/// The latest change of the mobile's attachments at or before `t`.
fn attachment_before(mo: &FlowObserver, t: Time) -> Option<Time> {
    mo.attachments()
        .iter()
        .rev()
        .find(|(at, _, _)| *at <= t && *at > Time::ZERO)
        .map(|(at, _, _)| *at)
}

/// A Mobile IP agent's trace as events of `source`.
fn trace_events(events: &mut Vec<EventRow>, source: &str, trace: &[(Time, MipTraceEvent)]) {
    for (t, e) in trace {
        let text = format!("{e:?}");
        let (kind, detail) = match text.split_once(' ') {
            Some((k, d)) => (k.to_string(), d.to_string()),
            None => (text, String::new()),
        };
        events.push(EventRow {
            time: *t,
            source: source.to_string(),
            kind,
            detail,
        });
    }
}

/// The single-connection handoff's TCP connection, its handoffs and the
/// peer's location updates.
fn single_summary(
    sum: &mut crate::measure::FlowSummary,
    w: &World,
    spec: &FlowSpec,
    (mobile, fixed): (AgentId, AgentId),
    down: bool,
    events: &mut Vec<EventRow>,
) {
    let m = w.agent::<SingleConnectionHandoff>(mobile);
    let peer = w.agent::<HandoffPeer>(fixed);
    let pt = peer.map(|p| p.tcp());
    let (tx, rx) = if down {
        (pt.and_then(|a| a.stats()), m.and_then(|a| a.stats()))
    } else {
        (m.and_then(|a| a.stats()), pt.and_then(|a| a.stats()))
    };
    sum.tcp = Some(tcp_summary(
        tx,
        rx,
        pt.and_then(|a| a.endpoint(0)),
        u64::from(m.and_then(|a| a.connection()).is_some()),
    ));
    if let Some(m) = m {
        events.extend(processing_events(spec, m.records()));
        let handoffs: Vec<SingleHandoffRecord> = m
            .records()
            .iter()
            .map(|r| SingleHandoffRecord {
                decided_s: r.decided_at.as_secs_f64(),
                from: r.from,
                to: r.to,
                resumed_s: opt_s(r.resumed_at),
                first_data_s: opt_s(r.first_data_at),
                stopped_s: r.resumed_at.map(|t| (t - r.decided_at).as_secs_f64()),
            })
            .collect();
        let completed = handoffs.iter().filter(|h| h.resumed_s.is_some()).count();
        sum.handoff = Some(SingleHandoffSummary {
            completed,
            superseded: handoffs.len() - completed,
            total_stopped_s: handoffs.iter().filter_map(|h| h.stopped_s).sum(),
            location_updates: peer.map_or(0, |p| p.updates()),
            handoffs,
        });
    }
}

/// The multi-connection transport's counters and its sender's
/// connections summed over its slots.
fn cmhn_summary(
    sum: &mut crate::measure::FlowSummary,
    w: &World,
    spec: &FlowSpec,
    (mobile, fixed): (AgentId, AgentId),
    down: bool,
    events: &mut Vec<EventRow>,
) {
    let m = w.agent::<CmhnAgent>(mobile);
    let f = w.agent::<CmhnAgent>(fixed);
    // The sender's switches (the mobile's when it sends).
    let sender = if down { f } else { m };
    events.extend(switch_events(spec, sender.map_or(&[], |a| a.switches())));
    let (ms, fs) = (
        m.map(|a| a.stats()).unwrap_or_default(),
        f.map(|a| a.stats()).unwrap_or_default(),
    );
    sum.cmhn = Some(CmhnSummary {
        handshakes: ms.handshakes + fs.handshakes,
        reuses: ms.reuses + fs.reuses,
        expired: ms.expired + fs.expired,
        switches: ms.switches + fs.switches,
        records_resent: ms.records_resent + fs.records_resent,
        link_messages: ms.link_messages_sent + fs.link_messages_sent,
        duplicates_received: ms.duplicates_received + fs.duplicates_received,
    });
    // The sender's connections, summed over its slots.
    let (tx, rx) = if down { (f, m) } else { (m, f) };
    let mut t = tcp_summary(None, None, None, 0);
    for slot in 0..crate::models::cmhn::MAX_SLOTS {
        if let Some(c) = tx.and_then(|a| a.connection(slot)) {
            let st = c.stats();
            t.connections += 1;
            t.timeouts += st.timeouts;
            t.fast_retransmits += st.fast_retransmits;
            t.segments_retransmitted += st.segments_retransmitted;
        }
        if let Some(c) = rx.and_then(|a| a.connection(slot)) {
            t.dup_acks_sent += c.stats().dup_acks_sent;
        }
    }
    // CMHN's connections keep no records of their own: its
    // reordering signals are the receiver's duplicate ACKs.
    if sum.reordered_packets == 0 {
        sum.reordered_packets = t.dup_acks_sent;
    }
    sum.tcp = Some(t);
}

/// Datagrams sent, received, missing and reordered.
fn udp_summary(w: &World, source: AgentId, pareto: bool, sink: AgentId) -> UdpSummary {
    let (sent, errors) = if pareto {
        w.agent::<ParetoOnOff>(source)
            .map_or((0, 0), |x| (x.sent(), x.send_errors()))
    } else {
        w.agent::<UdpCbr>(source)
            .map_or((0, 0), |x| (x.sent(), x.send_errors()))
    };
    let k = w.agent::<UdpSink>(sink);
    let unique: BTreeSet<u64> = k
        .map(|x| x.arrivals().iter().filter_map(|a| a.seq).collect())
        .unwrap_or_default();
    UdpSummary {
        datagrams_sent: sent,
        datagrams_received: k.map_or(0, |x| x.packets()),
        datagrams_missing: sent.saturating_sub(unique.len() as u64),
        reordered: k.map_or(0, |x| x.reordered()),
        send_errors: errors,
    }
}

/// Mobile IPv4: the client's handovers (after the first attachment) and
/// signalling, the home agent's tunnel.
fn mip4_summary(
    sum: &mut crate::measure::FlowSummary,
    w: &World,
    mo: &FlowObserver,
    p: &Mip4Parts,
    source: &str,
    events: &mut Vec<EventRow>,
) {
    let Some(c) = w.agent::<MobileNode>(p.client) else {
        return;
    };
    trace_events(events, source, c.trace());
    let ha = w
        .agent::<HomeAgent>(p.ha)
        .map(|h| h.stats())
        .unwrap_or_default();
    let st = c.stats();
    // The first record is the initial attachment, not a handover.
    let hs: Vec<MipHandoverSummary> = c
        .handovers()
        .iter()
        .skip(1)
        .map(|h| {
            let trig = attachment_before(mo, h.detected_at);
            let t_ad = trig.map(|x| (h.detected_at - x).as_secs_f64());
            let t_reg = h.accepted_at.map(|a| (a - h.detected_at).as_secs_f64());
            MipHandoverSummary {
                time_s: h.detected_at.as_secs_f64(),
                trigger_s: opt_s(trig),
                to_home: h.at_home,
                fast: false,
                t_ad_s: t_ad,
                t_reg_s: t_reg,
                t_mip_s: t_ad.zip(t_reg).map(|(a, r)| a + r),
            }
        })
        .collect();
    sum.mobile_ip = Some(mip_summary(
        4,
        hs,
        st.requests_sent + st.retransmissions,
        st.retransmissions,
        st.advertisements,
        (ha.tunnelled_packets, ha.tunnelled_bytes, 20),
        (0, 0),
    ));
}

/// Mobile IPv6 (and FMIPv6): the client's handovers and signalling, the
/// home agent's tunnel, the access routers' fast handover.
fn mip6_summary(
    sum: &mut crate::measure::FlowSummary,
    w: &World,
    spec: &FlowSpec,
    mo: &FlowObserver,
    p: &Mip6Parts,
    source: &str,
    events: &mut Vec<EventRow>,
) {
    let Some(c) = w.agent::<MobileNode6>(p.client) else {
        return;
    };
    trace_events(events, source, c.trace());
    let ha = w
        .agent::<HomeAgent6>(p.ha)
        .map(|h| h.stats())
        .unwrap_or_default();
    let st = c.stats();
    let ro = spec.mip6.as_ref().is_some_and(|x| x.route_optimisation);
    let hs: Vec<MipHandoverSummary> = c
        .handovers()
        .iter()
        .skip(1)
        .map(|h| {
            let trig = attachment_before(mo, h.detected_at);
            let t_ad = trig.map(|x| (h.detected_at - x).as_secs_f64());
            let done = if ro {
                h.correspondents_acked_at.or(h.home_acked_at)
            } else {
                h.home_acked_at
            };
            let t_reg = done.map(|a| (a - h.detected_at).as_secs_f64());
            MipHandoverSummary {
                time_s: h.detected_at.as_secs_f64(),
                trigger_s: opt_s(trig),
                to_home: h.at_home,
                fast: h.fast,
                t_ad_s: t_ad,
                t_reg_s: t_reg,
                t_mip_s: t_ad.zip(t_reg).map(|(a, r)| a + r),
            }
        })
        .collect();
    sum.mobile_ip = Some(mip_summary(
        6,
        hs,
        st.binding_updates,
        st.retransmissions,
        st.router_advertisements,
        (ha.tunnelled_packets, ha.tunnelled_bytes, 40),
        (st.reverse_tunnelled, st.route_optimised),
    ));
    // The access routers' side of FMIPv6 (HI, HAck, PrRtAdv, FBack
    // sent; RtSolPr, FBU, UNA received).
    // They serve every FMIPv6 flow: written once, by the first.
    if p.router_traces {
        for &a in &p.fmip {
            if let Some(x) = w.agent::<FmipRouter>(a) {
                trace_events(events, &format!("fmip/{}", x.address()), x.trace());
            }
        }
    }
    if let Some(fx) = &p.fast {
        let r = c.fast_record();
        let trig = Time::from_secs_f64(fx.trigger_s);
        let after = |t: Option<Time>| t.map(|x| x.as_secs_f64() - trig.as_secs_f64());
        let mut fs = FmipSummary {
            attach: attach_name(fx.attach).into(),
            trigger_s: fx.trigger_s,
            prrtadv_after_s: after(r.prrtadv_at),
            fbu_after_s: after(r.fbu_at),
            fback_after_s: after(r.fback_at),
            attached_after_s: after(r.attached_at),
            una_after_s: after(r.una_at),
            reactive: r.reactive,
            forwarded: 0,
            buffered: 0,
            delivered_from_buffer: 0,
            buffer_drops: 0,
        };
        for &a in &p.fmip {
            if let Some(x) = w.agent::<FmipRouter>(a) {
                let st = x.stats();
                fs.forwarded += st.forwarded;
                fs.buffered += st.buffered;
                fs.delivered_from_buffer += st.delivered_from_buffer;
                fs.buffer_drops += st.buffer_drops;
            }
        }
        sum.fmip = Some(fs);
    }
}

/// The single-connection scheme's handoff processing periods as events:
/// `handoff-processing` when a handoff is decided (the connection stops),
/// `handoff-resumed` when it resumes on the new network.
fn processing_events(spec: &FlowSpec, records: &[HandoffRecord]) -> Vec<EventRow> {
    let source = format!("{}/{}", spec.transport.name(), spec.mobile);
    let mut out = Vec::new();
    for r in records {
        let until = match r.resumed_at {
            Some(t) => format!("until {t} ({} ms)", (t - r.decided_at).as_millis()),
            None => "superseded by another decision".to_string(),
        };
        out.push(EventRow {
            time: r.decided_at,
            source: source.clone(),
            kind: "handoff-processing".into(),
            detail: format!("network {} -> {}: connection stopped {until}", r.from, r.to),
        });
        if let Some(t) = r.resumed_at {
            out.push(EventRow {
                time: t,
                source: source.clone(),
                kind: "handoff-resumed".into(),
                detail: format!(
                    "on network {} after {} ms",
                    r.to,
                    (t - r.decided_at).as_millis()
                ),
            });
        }
    }
    out
}

/// The multi-connection transport's processing of a new link as events:
/// `bdp-probe` when the new connection's bandwidth-delay product began to
/// be measured, `switch` when the sender moved its data to it.
fn switch_events(spec: &FlowSpec, switches: &[SwitchRecord]) -> Vec<EventRow> {
    let source = format!("{}/{}", spec.transport.name(), spec.mobile);
    let mut out = Vec::new();
    for s in switches {
        let from = s.from.map_or("-".to_string(), |f| f.to_string());
        if let Some(p) = s.probing_since {
            out.push(EventRow {
                time: p,
                source: source.clone(),
                kind: "bdp-probe".into(),
                detail: format!("connection {} measured until the switch at {}", s.to, s.at),
            });
        }
        let probed = s
            .probing_since
            .map(|p| format!(" after {} ms of probing", (s.at - p).as_millis()))
            .unwrap_or_default();
        out.push(EventRow {
            time: s.at,
            source: source.clone(),
            kind: "switch".into(),
            detail: format!(
                "connection {from} -> {}{probed}, {} records resent",
                s.to,
                s.resent.len()
            ),
        });
    }
    out
}

fn mip_summary(
    version: u8,
    handovers: Vec<MipHandoverSummary>,
    sent: u64,
    retransmissions: u64,
    advertisements: u64,
    (packets, bytes, header): (u64, u64, u64),
    (reverse, optimised): (u64, u64),
) -> MobileIpSummary {
    // `+ 0.0`: an empty float sum is -0.0, which would print as "-0".
    MobileIpSummary {
        version,
        total_t_ad_s: handovers.iter().filter_map(|h| h.t_ad_s).sum::<f64>() + 0.0,
        total_t_reg_s: handovers.iter().filter_map(|h| h.t_reg_s).sum::<f64>() + 0.0,
        total_t_mip_s: handovers.iter().filter_map(|h| h.t_mip_s).sum::<f64>() + 0.0,
        incomplete_handovers: handovers.iter().filter(|h| h.t_reg_s.is_none()).count(),
        handovers,
        registrations_sent: sent,
        registration_retransmissions: retransmissions,
        advertisements_heard: advertisements,
        tunnelled_packets: packets,
        tunnelled_bytes: bytes,
        tunnel_overhead_bytes: packets * header,
        reverse_tunnelled_packets: reverse,
        route_optimised_packets: optimised,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_arrival_takes_the_path_of_the_latest_send_before_it() {
        let r = |ms: u64, seq: u64, path: u32| PathRecord {
            time: Time::from_millis(ms),
            seq,
            path,
        };
        // Data 0 sent on path 0, resent on path 1 after a handover.
        let idx = index(&[r(10, 0, 0), r(20, 1400, 0), r(500, 0, 1)]);
        assert_eq!(lookup(&idx, 0, Time::from_millis(40)), Some(0));
        assert_eq!(lookup(&idx, 0, Time::from_millis(540)), Some(1));
        assert_eq!(lookup(&idx, 0, Time::from_millis(500)), Some(1));
        assert_eq!(lookup(&idx, 1400, Time::from_millis(15)), None);
        assert_eq!(lookup(&idx, 2800, Time::from_millis(900)), None);
        // Records given out of data-number order are found all the same.
        let idx = index(&[r(10, 2800, 0), r(20, 0, 0), r(30, 2800, 1)]);
        assert_eq!(lookup(&idx, 2800, Time::from_millis(25)), Some(0));
        assert_eq!(lookup(&idx, 2800, Time::from_millis(30)), Some(1));
        assert_eq!(lookup(&idx, 0, Time::from_millis(20)), Some(0));
        assert_eq!(lookup(&idx, 1400, Time::from_millis(90)), None);
    }
}
