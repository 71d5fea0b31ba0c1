//! Handoff delay, handoff latency and failover time (docs/MODELS.md section 5).

use std::time::Duration;

use msctp_proto::Time;

use super::records::{Arrival, ArrivalKind, HandoverWindow, PathId, Window};

/// Handoff delay of one handover: the gap between the last data packet
/// received on the old path and the first received on the new one.
///
/// Exactly: with `L` the latest arrival (new or duplicate data) on
/// `h.old` and `F` the earliest arrival on `h.new`, both within `h.window`,
/// the delay is `F - L` if `F > L`, and zero otherwise (the paths overlap:
/// data still came on the old path after the new one started). `None` if
/// either path has no arrival in the window (the handover is not complete,
/// or the window is too narrow).
pub fn handoff_delay(arrivals: &[Arrival], h: &HandoverWindow) -> Option<Duration> {
    let in_window = |a: &&Arrival| h.window.contains(a.time);
    let last_old = arrivals
        .iter()
        .filter(in_window)
        .filter(|a| a.path == h.old)
        .map(|a| a.time)
        .max()?;
    let first_new = arrivals
        .iter()
        .filter(in_window)
        .filter(|a| a.path == h.new)
        .map(|a| a.time)
        .min()?;
    Some(first_new - last_old)
}

/// Total handoff delay over several handovers (E1): the sum of
/// [`handoff_delay`] over the handovers that could be measured, and the
/// number of handovers that could not (`None`).
pub fn total_handoff_delay(
    arrivals: &[Arrival],
    handovers: &[HandoverWindow],
) -> (Duration, usize) {
    let mut total = Duration::ZERO;
    let mut missing = 0;
    for h in handovers {
        match handoff_delay(arrivals, h) {
            Some(d) => total = total.saturating_add(d),
            None => missing += 1,
        }
    }
    (total, missing)
}

/// Handoff latency: the longest time the receiver waits for the next new
/// data packet during the handover window.
///
/// Exactly: take the times of arrivals of new data ([`ArrivalKind::New`],
/// any path) strictly inside `(window.start, window.end)`; put in front the
/// latest new arrival at or before `window.start` (or `window.start` itself
/// if there is none) and behind the earliest new arrival at or after
/// `window.end` (or `window.end` if there is none). The latency is the
/// largest gap between consecutive times of that list. A wait that starts
/// in the window counts in full even if it ends after the window; a wait
/// with no data before or after the window is cut at the window's edge
/// (so a run without any data gives the window's length).
pub fn handoff_latency(arrivals: &[Arrival], window: Window) -> Duration {
    let news = arrivals
        .iter()
        .filter(|a| a.kind == ArrivalKind::New)
        .map(|a| a.time);
    let before = news
        .clone()
        .filter(|t| *t <= window.start)
        .max()
        .unwrap_or(window.start);
    let after = news
        .clone()
        .filter(|t| *t >= window.end)
        .min()
        .unwrap_or(window.end);
    let mut times: Vec<Time> = news
        .filter(|t| *t > window.start && *t < window.end)
        .collect();
    times.push(before);
    times.push(after);
    times.sort();
    times
        .windows(2)
        .map(|w| w[1] - w[0])
        .max()
        .unwrap_or(Duration::ZERO)
}

/// Failover time: from the primary path's break at `break_time` to the
/// first arrival of new data ([`ArrivalKind::New`]) on the `alternate` path
/// at or after the break. `None` if none arrives.
pub fn failover_time(
    arrivals: &[Arrival],
    break_time: Time,
    alternate: PathId,
) -> Option<Duration> {
    arrivals
        .iter()
        .filter(|a| a.path == alternate && a.kind == ArrivalKind::New && a.time >= break_time)
        .map(|a| a.time - break_time)
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: PathId = PathId(1);
    const NEW: PathId = PathId(2);

    fn a(ms: u64, path: PathId, seq: u64, kind: ArrivalKind) -> Arrival {
        Arrival {
            time: Time::from_millis(ms),
            path,
            seq,
            bytes: 1000,
            kind,
        }
    }

    fn n(ms: u64, path: PathId, seq: u64) -> Arrival {
        a(ms, path, seq, ArrivalKind::New)
    }

    fn w(s: u64, e: u64) -> Window {
        Window::new(Time::from_millis(s), Time::from_millis(e)).unwrap()
    }

    fn hw(s: u64, e: u64) -> HandoverWindow {
        HandoverWindow {
            window: w(s, e),
            old: OLD,
            new: NEW,
        }
    }

    #[test]
    fn handoff_delay_break_before_make() {
        // Old path until 1.0 s, blackout, new path from 1.8 s.
        let tr = [
            n(900, OLD, 1),
            n(1000, OLD, 2),
            n(1800, NEW, 3),
            n(1900, NEW, 4),
        ];
        assert_eq!(
            handoff_delay(&tr, &hw(0, 5000)),
            Some(Duration::from_millis(800))
        );
        // Unsorted input gives the same.
        let rev: Vec<_> = tr.iter().rev().copied().collect();
        assert_eq!(
            handoff_delay(&rev, &hw(0, 5000)),
            Some(Duration::from_millis(800))
        );
        // A duplicate arriving late on the old path still counts as a packet
        // received on the old address.
        let mut dup = tr.to_vec();
        dup.push(a(1200, OLD, 2, ArrivalKind::Duplicate));
        assert_eq!(
            handoff_delay(&dup, &hw(0, 5000)),
            Some(Duration::from_millis(600))
        );
    }

    #[test]
    fn handoff_delay_overlapping_paths_is_zero() {
        let tr = [
            n(900, OLD, 1),
            n(950, NEW, 2),
            n(1000, OLD, 3),
            n(1050, NEW, 4),
        ];
        assert_eq!(handoff_delay(&tr, &hw(0, 5000)), Some(Duration::ZERO));
    }

    #[test]
    fn handoff_delay_incomplete_or_no_handover() {
        // No data on the new path: not measurable.
        let tr = [n(900, OLD, 1), n(1000, OLD, 2)];
        assert_eq!(handoff_delay(&tr, &hw(0, 5000)), None);
        assert_eq!(handoff_delay(&[], &hw(0, 5000)), None);
        // Window excludes the new path's data.
        let tr = [n(900, OLD, 1), n(6000, NEW, 2)];
        assert_eq!(handoff_delay(&tr, &hw(0, 5000)), None);
        // Several handovers (E1): total and count of unmeasurable ones.
        let tr = [
            n(100, OLD, 1),
            n(300, NEW, 2),
            n(1100, NEW, 3),
            n(1150, OLD, 4),
        ];
        let back = HandoverWindow {
            window: w(1000, 2000),
            old: NEW,
            new: OLD,
        };
        let (total, missing) = total_handoff_delay(&tr, &[hw(0, 1000), back, hw(2000, 3000)]);
        assert_eq!(total, Duration::from_millis(250));
        assert_eq!(missing, 1);
    }

    #[test]
    fn handoff_latency_longest_wait() {
        // Inter-packet 100 ms, a 700 ms hole during the window.
        let tr = [
            n(0, OLD, 1),
            n(100, OLD, 2),
            n(200, OLD, 3),
            n(900, NEW, 4),
            n(1000, NEW, 5),
        ];
        assert_eq!(
            handoff_latency(&tr, w(150, 950)),
            Duration::from_millis(700)
        );
        // The wait that straddles the window's start counts in full.
        assert_eq!(
            handoff_latency(&tr, w(500, 950)),
            Duration::from_millis(700)
        );
        // Duplicates do not end a wait.
        let mut dup = tr.to_vec();
        dup.push(a(500, NEW, 2, ArrivalKind::Duplicate));
        assert_eq!(
            handoff_latency(&dup, w(150, 950)),
            Duration::from_millis(700)
        );
        // Smooth handover: one inter-packet time.
        let smooth = [n(0, OLD, 1), n(100, OLD, 2), n(200, NEW, 3), n(300, NEW, 4)];
        assert_eq!(
            handoff_latency(&smooth, w(50, 250)),
            Duration::from_millis(100)
        );
        // No data at all: the whole window.
        assert_eq!(
            handoff_latency(&[], w(100, 600)),
            Duration::from_millis(500)
        );
        // Data stops for good inside the window: cut at the window's end.
        assert_eq!(
            handoff_latency(&tr[..3], w(0, 1000)),
            Duration::from_millis(800)
        );
    }

    #[test]
    fn failover() {
        let tr = [
            n(9_900, OLD, 1),
            a(10_500, NEW, 1, ArrivalKind::Duplicate),
            n(10_700, NEW, 2),
            n(9_000, NEW, 0),
            n(10_800, NEW, 3),
        ];
        assert_eq!(
            failover_time(&tr, Time::from_secs(10), NEW),
            Some(Duration::from_millis(700))
        );
        assert_eq!(failover_time(&tr, Time::from_secs(11), NEW), None);
        assert_eq!(failover_time(&[], Time::ZERO, NEW), None);
    }
}
