//! Lost packets, reordered packets and spurious retransmissions
//! (docs/MODELS.md section 5).

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::records::{
    Arrival, ArrivalKind, DropRecord, ReorderSignal, Retransmission, Window, in_time_order,
};

/// Lost packets: the number of dropped data packets (`is_data`) with a
/// drop time in `window`, whatever the reason (queue overflow, link error,
/// dead address, stale tunnel end, other).
pub fn lost_packets(drops: &[DropRecord], window: Window) -> u64 {
    drops
        .iter()
        .filter(|d| d.is_data && window.contains(d.time))
        .count() as u64
}

/// Reordered packets: the number of receiver reordering signals in
/// `window`, i.e. packets that made the receiver send a duplicate ACK
/// (TCP) or a SACK with gap-ack blocks (SCTP).
pub fn reordered_packets(signals: &[ReorderSignal], window: Window) -> u64 {
    signals.iter().filter(|s| window.contains(s.time)).count() as u64
}

/// A transport-independent cross-check of reordering: the number of
/// new-data arrivals in `window` whose `seq` is lower than the highest
/// `seq` of an earlier new-data arrival (earlier in time, including
/// before the window; ties in time keep the input order).
pub fn out_of_order_arrivals(arrivals: &[Arrival], window: Window) -> u64 {
    let mut highest: Option<u64> = None;
    let mut count = 0;
    let arrivals = in_time_order(arrivals);
    for a in arrivals.iter().filter(|a| a.kind == ArrivalKind::New) {
        if highest.is_some_and(|h| a.seq < h) && window.contains(a.time) {
            count += 1;
        }
        highest = Some(highest.map_or(a.seq, |h| h.max(a.seq)));
    }
    count
}

/// Spurious retransmissions: retransmissions of data the receiver already
/// had, or got anyway from another copy.
///
/// Exactly, for each data item `s`, with `r` its retransmissions in
/// `retransmissions`, `n` its arrivals at the receiver (any kind), `a` the
/// time of its first arrival, and `k` its retransmissions sent at or after
/// `a`: if `n = 0` none is spurious (every copy was lost, so each
/// retransmission was needed); otherwise `min(r, max(n - 1, k))` are: each
/// arrival beyond the first brought nothing new, and a retransmission sent
/// when the receiver already had the data was useless even if it got lost.
/// The count is exact when no retransmitted copy is lost, and a lower
/// bound otherwise. To count only fast retransmissions, pass only those.
pub fn spurious_retransmissions(retransmissions: &[Retransmission], arrivals: &[Arrival]) -> u64 {
    if retransmissions.is_empty() {
        return 0;
    }
    // Only retransmitted data matters: the arrivals are walked once
    // against the (few) retransmitted seqs rather than indexed whole (a
    // hash map, never iterated: the sum below walks `sent` in order).
    // seq -> (arrivals, first arrival time)
    let mut got: FxHashMap<u64, (u64, Option<msctp_proto::Time>)> =
        retransmissions.iter().map(|r| (r.seq, (0, None))).collect();
    for a in arrivals {
        if let Some(e) = got.get_mut(&a.seq) {
            e.0 += 1;
            e.1 = Some(e.1.map_or(a.time, |t| t.min(a.time)));
        }
    }
    // seq -> (retransmissions, retransmissions at or after the first arrival)
    let mut sent: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    for r in retransmissions {
        let e = sent.entry(r.seq).or_insert((0, 0));
        e.0 += 1;
        if got
            .get(&r.seq)
            .and_then(|(_, first)| *first)
            .is_some_and(|first| r.time >= first)
        {
            e.1 += 1;
        }
    }
    sent.iter()
        .map(|(seq, (r, k))| match got.get(seq) {
            Some(&(n, _)) if n > 0 => (*r).min((n - 1).max(*k)),
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::super::records::{DropReason, PathId, ReorderKind};
    use super::*;
    use msctp_proto::Time;

    fn t(ms: u64) -> Time {
        Time::from_millis(ms)
    }

    fn arr(ms: u64, seq: u64, kind: ArrivalKind) -> Arrival {
        Arrival {
            time: t(ms),
            path: PathId(1),
            seq,
            bytes: 100,
            kind,
        }
    }

    fn retx(ms: u64, seq: u64) -> Retransmission {
        Retransmission {
            time: t(ms),
            seq,
            path: PathId(2),
            fast: true,
        }
    }

    #[test]
    fn lost_counts_data_drops_in_window() {
        let d = |ms, is_data, reason| DropRecord {
            time: t(ms),
            reason,
            is_data,
        };
        let drops = [
            d(10, true, DropReason::QueueOverflow),
            d(20, false, DropReason::QueueOverflow),
            d(30, true, DropReason::StaleTunnel),
            d(40, true, DropReason::DeadAddress),
        ];
        assert_eq!(lost_packets(&drops, Window::ALL), 3);
        assert_eq!(lost_packets(&drops, Window::new(t(15), t(40)).unwrap()), 1);
        assert_eq!(lost_packets(&[], Window::ALL), 0);
    }

    #[test]
    fn reordering_signals_and_out_of_order_arrivals() {
        let s = |ms| ReorderSignal {
            time: t(ms),
            kind: ReorderKind::SackWithGaps,
        };
        assert_eq!(
            reordered_packets(&[s(1), s(2), s(50)], Window::new(t(0), t(10)).unwrap()),
            2
        );
        assert_eq!(reordered_packets(&[], Window::ALL), 0);
        // 1, 2, 5, 3, 4, 6 (by time): 3 and 4 arrive after 5. Duplicates of
        // old data do not count.
        let tr = [
            arr(10, 1, ArrivalKind::New),
            arr(20, 2, ArrivalKind::New),
            arr(30, 5, ArrivalKind::New),
            arr(40, 3, ArrivalKind::New),
            arr(45, 1, ArrivalKind::Duplicate),
            arr(50, 4, ArrivalKind::New),
            arr(60, 6, ArrivalKind::New),
        ];
        assert_eq!(out_of_order_arrivals(&tr, Window::ALL), 2);
        assert_eq!(
            out_of_order_arrivals(&tr, Window::new(t(45), t(100)).unwrap()),
            1
        );
        assert_eq!(out_of_order_arrivals(&[], Window::ALL), 0);
    }

    #[test]
    fn spurious_retransmissions_cases() {
        // seq 1: original lost, one retransmission delivers it: not spurious.
        // seq 2: original delayed on the slow path, fast-retransmitted at 25,
        //        original arrives at 30 and the retransmission at 40: spurious.
        // seq 3: receiver had it at 50; retransmitted at 60 and that copy
        //        lost: spurious (sent when the receiver already had it).
        // seq 4: original and two retransmissions lost, third arrives: none.
        // seq 5: original lost, retransmitted twice, both arrive: one spurious.
        let arrivals = [
            arr(20, 1, ArrivalKind::New),
            arr(30, 2, ArrivalKind::New),
            arr(40, 2, ArrivalKind::Duplicate),
            arr(50, 3, ArrivalKind::New),
            arr(90, 4, ArrivalKind::New),
            arr(100, 5, ArrivalKind::New),
            arr(110, 5, ArrivalKind::Duplicate),
        ];
        let r = [
            retx(15, 1),
            retx(25, 2),
            retx(60, 3),
            retx(70, 4),
            retx(75, 4),
            retx(80, 4),
            retx(95, 5),
            retx(96, 5),
        ];
        assert_eq!(spurious_retransmissions(&r, &arrivals), 3);
        // Item by item.
        assert_eq!(spurious_retransmissions(&r[..1], &arrivals), 0);
        assert_eq!(spurious_retransmissions(&r[1..2], &arrivals), 1);
        assert_eq!(spurious_retransmissions(&r[2..3], &arrivals), 1);
        assert_eq!(spurious_retransmissions(&r[3..6], &arrivals), 0);
        assert_eq!(spurious_retransmissions(&r[6..], &arrivals), 1);
        // Never arrived: nothing spurious. No retransmissions: zero.
        assert_eq!(spurious_retransmissions(&[retx(10, 9)], &arrivals), 0);
        assert_eq!(spurious_retransmissions(&[], &arrivals), 0);
        assert_eq!(spurious_retransmissions(&r, &[]), 0);
    }

    /// The definition computed the direct way (every arrival indexed),
    /// against which the implementation, which indexes only retransmitted
    /// data, is checked on random records.
    fn spurious_by_definition(retx: &[Retransmission], arrivals: &[Arrival]) -> u64 {
        let mut got: BTreeMap<u64, (u64, Time)> = BTreeMap::new();
        for a in arrivals {
            let e = got.entry(a.seq).or_insert((0, a.time));
            e.0 += 1;
            e.1 = e.1.min(a.time);
        }
        let mut sent: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
        for r in retx {
            let e = sent.entry(r.seq).or_insert((0, 0));
            e.0 += 1;
            if got.get(&r.seq).is_some_and(|(_, first)| r.time >= *first) {
                e.1 += 1;
            }
        }
        sent.iter()
            .map(|(seq, (r, k))| got.get(seq).map_or(0, |(n, _)| (*r).min((n - 1).max(*k))))
            .sum()
    }

    #[test]
    fn spurious_retransmissions_agree_with_the_definition() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: u64| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (x >> 33) % m
        };
        for round in 0..300 {
            let seqs = 1 + next(40);
            let arrivals: Vec<Arrival> = (0..next(120))
                .map(|_| arr(next(1000), next(seqs), ArrivalKind::New))
                .collect();
            let r: Vec<Retransmission> = (0..next(30))
                .map(|_| retx(next(1000), next(seqs)))
                .collect();
            assert_eq!(
                spurious_retransmissions(&r, &arrivals),
                spurious_by_definition(&r, &arrivals),
                "round {round}"
            );
        }
    }
}
