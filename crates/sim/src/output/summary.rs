//! The JSON summary of a run: per flow, the measures of SYSTEMS.md
//! section 5 as [`crate::metrics`] defines them.

use std::collections::BTreeMap;

use msctp_proto::Time;
use serde::Serialize;

use crate::metrics::{
    Arrival, ArrivalKind, HandoverWindow, PathId, Window, file_delivery_time, goodput_bps,
    handoff_delay, handoff_latency, out_of_order_arrivals, reordered_packets,
    spurious_retransmissions,
};

/// The whole run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    pub scenario: String,
    pub seed: u64,
    pub duration_s: f64,
    /// Simulator events dispatched.
    pub events: u64,
    /// IP packets sent by agents.
    pub packets_created: u64,
    /// Every drop in the network, by reason.
    pub drops: BTreeMap<String, u64>,
    /// Drops counted but not logged with their identity (the drop log
    /// bound); lost data packets are then a lower bound.
    pub drops_unlogged: u64,
    pub flows: Vec<FlowSummary>,
    /// Anything that makes a figure doubtful (bounds reached, errors).
    pub warnings: Vec<String>,
}

/// One handover, detected from the receiver's arrivals (see
/// [`detect_handovers`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HandoverSummary {
    pub time_s: f64,
    pub old_path: u32,
    pub new_path: u32,
    /// Handoff delay (metrics::handoff_delay) over the handover window;
    /// `None` when not measurable.
    pub handoff_delay_s: Option<f64>,
    /// Handoff latency (metrics::handoff_latency) over the window.
    pub handoff_latency_s: f64,
}

/// What followed a `cut_link` event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailoverSummary {
    pub link: String,
    pub break_s: f64,
    /// The path new data arrived on after the break, other than the one
    /// before it.
    pub alternate_path: Option<u32>,
    /// metrics::failover_time: break to the first new data on the
    /// alternate path.
    pub failover_time_s: Option<f64>,
    /// Break to the data sender's failover (its primary moved because the
    /// old one became inactive: PMR + 1 timeouts).
    pub sender_failover_s: Option<f64>,
    /// Break to the first arrival on the alternate path of data that was
    /// first sent there (never retransmitted): new data moved over, as
    /// opposed to retransmissions of what the break lost, which RFC 9260
    /// sends to an alternate address after the first timeout already.
    pub new_data_failover_s: Option<f64>,
    /// The sender's RTO of the path that carried data before the break, in
    /// its last path sample before the break (sample with a short
    /// `output.sample_ms` for precision): the RTO of RTO * (2^(PMR+1) - 1).
    pub rto_at_break_s: Option<f64>,
}

/// One flow.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowSummary {
    pub name: String,
    pub transport: String,
    pub direction: String,
    pub policy: String,
    pub start_s: f64,
    pub bytes_offered: u64,
    pub bytes_delivered: u64,
    /// Goodput (bit/s) from the flow's start to the end of the run.
    pub goodput_bps: f64,
    /// File flows: start to delivery of the last byte.
    pub file_delivery_time_s: Option<f64>,
    pub data_packets_sent: u64,
    /// Packets carrying this flow's DATA dropped anywhere, and why.
    pub lost_data_packets: u64,
    pub lost_data_by_reason: BTreeMap<String, u64>,
    pub arrivals: u64,
    pub duplicate_arrivals: u64,
    /// SACKs with gap-ack blocks sent by the receiver.
    pub reordered_packets: u64,
    /// New data arriving below the highest number already received.
    pub out_of_order_arrivals: u64,
    pub retransmissions: u64,
    pub fast_retransmissions: u64,
    pub spurious_retransmissions: u64,
    pub spurious_fast_retransmissions: u64,
    pub handovers: Vec<HandoverSummary>,
    pub total_handoff_delay_s: f64,
    pub handovers_unmeasured: usize,
    pub failovers: Vec<FailoverSummary>,
    /// ASCONF chunks the mobile sent (first transmissions) and retransmitted.
    pub asconfs_sent: u64,
    pub asconf_retransmissions: u64,
    pub policy_decisions: u64,
    /// Datagrams the hosts refused to send: from an address the node no
    /// longer holds, or with no source address at all.
    pub datagrams_refused: u64,
    /// Records beyond the flow log's bound (measures are then partial).
    pub records_dropped: u64,
}

/// A handover seen at the receiver: the path of new data changes and the
/// new path carries the next [`STABLE_ARRIVALS`] new arrivals (or all
/// remaining ones), so that a few stragglers on the old path or a single
/// retransmission on another do not count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DetectedHandover {
    pub time: Time,
    pub old: PathId,
    pub new: PathId,
}

/// New arrivals that must follow on the new path for a switch to count.
pub const STABLE_ARRIVALS: usize = 4;

/// Handovers from the arrivals (any order; sorted by time here).
pub fn detect_handovers(arrivals: &[Arrival]) -> Vec<DetectedHandover> {
    let mut news: Vec<&Arrival> = arrivals
        .iter()
        .filter(|a| a.kind == ArrivalKind::New)
        .collect();
    news.sort_by_key(|a| a.time);
    let mut out = Vec::new();
    let Some(first) = news.first() else {
        return out;
    };
    let mut current = first.path;
    for i in 1..news.len() {
        let a = news[i];
        if a.path == current {
            continue;
        }
        let rest = &news[i..];
        let stable = rest.iter().take(STABLE_ARRIVALS).all(|b| b.path == a.path);
        if stable {
            out.push(DetectedHandover {
                time: a.time,
                old: current,
                new: a.path,
            });
            current = a.path;
        }
    }
    out
}

fn secs(d: std::time::Duration) -> f64 {
    d.as_secs_f64()
}

/// Handover measures over windows `[t - before, t + after)`, cut at the
/// neighbouring handovers.
pub(crate) fn handovers(
    arrivals: &[Arrival],
    before: std::time::Duration,
    after: std::time::Duration,
) -> Vec<HandoverSummary> {
    let hs = detect_handovers(arrivals);
    let mut out = Vec::new();
    for (i, h) in hs.iter().enumerate() {
        let mut start =
            Time::from_nanos(h.time.as_nanos().saturating_sub(before.as_nanos() as u64));
        if i > 0 {
            start = start.max(hs[i - 1].time);
        }
        let mut end = h.time + after;
        if let Some(n) = hs.get(i + 1) {
            end = end.min(n.time);
        }
        let window = Window {
            start,
            end: end.max(start),
        };
        let hw = HandoverWindow {
            window,
            old: h.old,
            new: h.new,
        };
        out.push(HandoverSummary {
            time_s: h.time.as_secs_f64(),
            old_path: h.old.0,
            new_path: h.new.0,
            handoff_delay_s: handoff_delay(arrivals, &hw).map(secs),
            handoff_latency_s: secs(handoff_latency(arrivals, window)),
        });
    }
    out
}

/// Goodput, file time, reordering and retransmission measures of a flow
/// log, filled into `f`.
pub(crate) fn fill_from_log(
    f: &mut FlowSummary,
    log: &crate::flow::FlowLog,
    start: Time,
    end: Time,
    file_bytes: Option<u64>,
) {
    f.bytes_offered = log.bytes_offered;
    f.bytes_delivered = log.bytes_delivered;
    f.goodput_bps = Window::new(start, end)
        .ok()
        .and_then(|w| goodput_bps(&log.deliveries, w).ok())
        .unwrap_or(0.0);
    f.file_delivery_time_s = file_bytes
        .and_then(|b| file_delivery_time(&log.deliveries, start, b))
        .map(secs);
    f.arrivals = log.arrivals.len() as u64;
    f.duplicate_arrivals = log
        .arrivals
        .iter()
        .filter(|a| a.kind == ArrivalKind::Duplicate)
        .count() as u64;
    f.reordered_packets = reordered_packets(&log.reorder_signals, Window::ALL);
    f.out_of_order_arrivals = out_of_order_arrivals(&log.arrivals, Window::ALL);
    f.retransmissions = log.retransmissions.len() as u64;
    let fast: Vec<_> = log
        .retransmissions
        .iter()
        .filter(|r| r.fast)
        .copied()
        .collect();
    f.fast_retransmissions = fast.len() as u64;
    f.spurious_retransmissions = spurious_retransmissions(&log.retransmissions, &log.arrivals);
    f.spurious_fast_retransmissions = spurious_retransmissions(&fast, &log.arrivals);
    f.records_dropped = log.records_dropped;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(ms: u64, path: u32) -> Arrival {
        Arrival {
            time: Time::from_millis(ms),
            path: PathId(path),
            seq: ms,
            bytes: 100,
            kind: ArrivalKind::New,
        }
    }

    #[test]
    fn handovers_need_a_stable_new_path() {
        // Interleaving during a soft handover, then path 1 for good.
        let arr: Vec<Arrival> = [0, 0, 1, 0, 0]
            .into_iter()
            .chain(std::iter::repeat_n(1, 300))
            .enumerate()
            .map(|(i, p)| a(i as u64 * 10, p))
            .collect();
        let h = detect_handovers(&arr);
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].time, Time::from_millis(50));
        assert_eq!((h[0].old, h[0].new), (PathId(0), PathId(1)));
        let s = handovers(
            &arr,
            std::time::Duration::from_secs(1),
            std::time::Duration::from_secs(1),
        );
        // Old-path data arrived after the first new-path data: zero delay.
        assert_eq!(s[0].handoff_delay_s, Some(0.0));
        assert!((s[0].handoff_latency_s - 0.01).abs() < 1e-12);
        // A single retransmission on another path is not a handover.
        let arr: Vec<Arrival> = [0, 0, 2, 0, 0, 0]
            .iter()
            .enumerate()
            .map(|(i, p)| a(i as u64 * 10, *p))
            .collect();
        assert!(detect_handovers(&arr).is_empty());
        assert!(detect_handovers(&[]).is_empty());
    }
}
