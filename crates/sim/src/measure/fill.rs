//! How a flow's summary ([`FlowSummary`]) is filled from its records:
//! the handovers detected at the receiver and their handoff delay and
//! latency, goodput (over the run, over the configured windows, as a
//! series), file delivery time, reordering, retransmissions, losses of
//! data packets in the network's drop log. The scenario's adapter
//! (`scenario::collect`) picks the records and the agents' counters; the
//! computing is here.

use std::time::Duration;

use msctp_proto::Time;

use super::flow_log::FlowLog;
use super::records::in_time_order;
use super::result::GoodputRow;
use super::summary::{FlowSummary, GoodputWindow, HandoverSummary};
use super::{
    Arrival, ArrivalKind, HandoverWindow, PathId, Window, file_delivery_time, goodput_bps,
    goodput_series, handoff_delay, handoff_latency, longest_delivery_gap, out_of_order_arrivals,
    reordered_packets, spurious_retransmissions,
};
use crate::kernel::drop::{DropLog, DropReason as NetDropReason, DropRecord as NetDropRecord};

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
    let arrivals = in_time_order(arrivals);
    let new = |a: &&Arrival| a.kind == ArrivalKind::New;
    let mut out = Vec::new();
    let mut news = arrivals.iter().enumerate().filter(|(_, a)| new(a));
    let Some((_, first)) = news.next() else {
        return out;
    };
    let mut current = first.path;
    for (i, a) in news {
        if a.path == current {
            continue;
        }
        // This arrival and the new ones after it.
        let stable = arrivals[i..]
            .iter()
            .filter(new)
            .take(STABLE_ARRIVALS)
            .all(|b| b.path == a.path);
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

/// The arrivals (in time order) inside `window`: those
/// [`handoff_delay`] looks at.
fn inside(sorted: &[Arrival], window: Window) -> &[Arrival] {
    let lo = sorted.partition_point(|a| a.time < window.start);
    let hi = lo + sorted[lo..].partition_point(|a| a.time < window.end);
    &sorted[lo..hi]
}

/// The arrivals (in time order) from the latest new arrival at or before
/// `window.start` to the earliest new arrival at or after `window.end`
/// (or the ends of the log): those [`handoff_latency`] looks at.
fn around(sorted: &[Arrival], window: Window) -> &[Arrival] {
    let new = |a: &Arrival| a.kind == ArrivalKind::New;
    let after_start = sorted.partition_point(|a| a.time <= window.start);
    let at_end = sorted.partition_point(|a| a.time < window.end);
    let before = sorted[..after_start].iter().rposition(new);
    let after = sorted[at_end..].iter().position(new).map(|i| at_end + i);
    match (before, after) {
        // (They can be in either order when the window is empty.)
        (Some(b), Some(a)) => &sorted[b.min(a)..=b.max(a)],
        (Some(b), None) => &sorted[b..],
        (None, Some(a)) => &sorted[..=a],
        (None, None) => sorted,
    }
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Handover measures over windows `[t - before, t + after)`, cut at the
/// neighbouring handovers and at `run_end` (a wait cannot last beyond the
/// run).
pub fn handovers(
    arrivals: &[Arrival],
    before: Duration,
    after: Duration,
    run_end: Time,
) -> Vec<HandoverSummary> {
    let hs = detect_handovers(arrivals);
    // Both measures depend on the set of arrivals only, not on their
    // order: in time order, each handover's measures are computed over
    // the part of the log around its window (one pass over the whole log
    // per handover made a run with many handovers quadratic).
    let arrivals = in_time_order(arrivals);
    let mut out = Vec::new();
    for (i, h) in hs.iter().enumerate() {
        let mut start =
            Time::from_nanos(h.time.as_nanos().saturating_sub(before.as_nanos() as u64));
        if i > 0 {
            start = start.max(hs[i - 1].time);
        }
        let mut end = (h.time + after).min(run_end);
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
            handoff_delay_s: handoff_delay(inside(&arrivals, window), &hw).map(secs),
            handoff_latency_s: secs(handoff_latency(around(&arrivals, window), window)),
        });
    }
    out
}

/// Goodput, file time, reordering and retransmission measures of a flow
/// log, filled into `f`.
pub(crate) fn fill_from_log(
    f: &mut FlowSummary,
    log: &FlowLog,
    start: Time,
    end: Time,
    file_bytes: Option<u64>,
    windows: &[(f64, f64)],
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
    f.goodput_windows = windows
        .iter()
        .map(|&(from_s, to_s)| GoodputWindow {
            from_s,
            to_s,
            goodput_bps: Window::new(Time::from_secs_f64(from_s), Time::from_secs_f64(to_s))
                .ok()
                .and_then(|w| goodput_bps(&log.deliveries, w).ok())
                .unwrap_or(0.0),
            longest_gap_s: Window::new(Time::from_secs_f64(from_s), Time::from_secs_f64(to_s))
                .map_or(0.0, |w| secs(longest_delivery_gap(&log.deliveries, w))),
        })
        .collect();
    f.arrivals = log.arrivals.len() as u64;
    f.duplicate_arrivals = log
        .arrivals
        .iter()
        .filter(|a| a.kind == ArrivalKind::Duplicate)
        .count() as u64;
    f.longest_delivery_gap_s = secs(longest_delivery_gap(&log.deliveries, Window::ALL));
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

impl FlowSummary {
    /// A flow's summary with its identity filled and every measure zero
    /// (`direction`: "downlink" or "uplink"; `start_s`: the flow's start).
    pub fn new(name: &str, transport: &str, direction: &str, policy: String, start_s: f64) -> Self {
        FlowSummary {
            name: name.to_string(),
            transport: transport.into(),
            direction: direction.into(),
            policy,
            start_s,
            bytes_offered: 0,
            bytes_delivered: 0,
            goodput_bps: 0.0,
            file_delivery_time_s: None,
            goodput_windows: Vec::new(),
            data_packets_sent: 0,
            lost_data_packets: 0,
            lost_data_by_reason: Default::default(),
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
            abandoned_messages: 0,
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

    /// Lost data packets: drops of the packets whose uid is in `uids`
    /// (sorted here), by reason; those lost to mobility are every reason
    /// but a full queue and the medium. Walks the shorter of the drop log
    /// and the uids (one flow among many looks its few packets up in the
    /// log's uid index).
    pub fn count_lost(&mut self, drops: &DropLog, uids: &mut [u64]) {
        uids.sort_unstable();
        let mut count = |d: &NetDropRecord| {
            self.lost_data_packets += 1;
            if !matches!(
                d.reason,
                NetDropReason::QueueOverflow | NetDropReason::LinkError
            ) {
                self.lost_data_mobility += 1;
            }
            *self
                .lost_data_by_reason
                .entry(format!("{:?}", d.reason))
                .or_insert(0) += 1;
        };
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

    /// The handovers detected at the receiver ([`handovers`] over windows
    /// `before` and `after` each), their total handoff delay and how many
    /// could not be measured.
    pub fn fill_handovers(&mut self, log: &FlowLog, before: Duration, after: Duration, end: Time) {
        self.handovers = handovers(&log.arrivals, before, after, end);
        for h in &self.handovers {
            match h.handoff_delay_s {
                Some(d) => self.total_handoff_delay_s += d,
                None => self.handovers_unmeasured += 1,
            }
        }
    }
}

/// The goodput series of flow `name` from the start of the run to `end`
/// in bins of `bin`, each with the bytes delivered up to its end.
pub fn goodput_rows(
    name: &str,
    log: &FlowLog,
    end: Time,
    bin: Duration,
) -> Result<Vec<GoodputRow>, super::MetricsError> {
    let mut goodput = Vec::new();
    let Ok(w) = Window::new(Time::ZERO, end) else {
        return Ok(goodput);
    };
    let series = goodput_series(&log.deliveries, w, bin, 10_000_000)?;
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
    Ok(goodput)
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
    fn handovers_are_found_in_an_unsorted_log_as_in_a_sorted_one() {
        let mut arr: Vec<Arrival> = [0, 0, 1, 1, 1, 1, 0, 0, 0, 0]
            .into_iter()
            .enumerate()
            .map(|(i, p)| a(i as u64 * 10, p))
            .collect();
        let sorted = detect_handovers(&arr);
        assert_eq!(sorted.len(), 2);
        arr.reverse();
        assert_eq!(detect_handovers(&arr), sorted);
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
            Time::MAX,
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

    /// The part of a time-ordered log a handover's measures are computed
    /// over gives what the whole log gives, for any log and window
    /// (duplicates, equal times, empty windows, no data on either side).
    #[test]
    fn the_part_around_a_window_measures_as_the_whole_log() {
        use proptest::prelude::*;
        let arrival = (0u64..60, 0u32..3, any::<bool>()).prop_map(|(ms, p, dup)| Arrival {
            kind: if dup {
                ArrivalKind::Duplicate
            } else {
                ArrivalKind::New
            },
            ..a(ms, p)
        });
        proptest!(|(mut arr in proptest::collection::vec(arrival, 0..40),
                    start in 0u64..60, len in 0u64..30, old in 0u32..3, new in 0u32..3)| {
            arr.sort_by_key(|x| x.time);
            let window = Window {
                start: Time::from_millis(start),
                end: Time::from_millis(start + len),
            };
            let hw = HandoverWindow { window, old: PathId(old), new: PathId(new) };
            prop_assert_eq!(
                handoff_delay(inside(&arr, window), &hw),
                handoff_delay(&arr, &hw)
            );
            prop_assert_eq!(
                handoff_latency(around(&arr, window), window),
                handoff_latency(&arr, window)
            );
        });
    }
}
