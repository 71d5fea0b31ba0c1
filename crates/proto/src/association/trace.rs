//! The event-driven path trace: every value a destination's congestion
//! window and slow-start threshold took (RFC 9260 section 7.2), with the
//! rule that set it, and each change of its flight size, RTO and SRTT
//! (section 6.3.1), for an observer (the simulator's trace, a live view).
//!
//! Off by default and then free: the congestion state keeps its changes
//! only while the trace is on ([`crate::congestion::Congestion::record_changes`]),
//! and nothing else runs. The engine has no clock: the caller drains the
//! trace with [`Association::take_path_trace`] after each call into the
//! engine, giving the time of that call, which every change it made
//! shares.

use std::net::IpAddr;
use std::time::Duration;

use crate::Time;
use crate::congestion::WindowCause;

use super::Association;

/// Why a [`PathRecord`] was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathCause {
    /// The path was first seen by the trace (its initial values).
    New,
    /// Its window moved by this rule.
    Window(WindowCause),
    /// Its flight size, RTO or SRTT moved.
    Other,
}

impl PathCause {
    /// A short lower-case name for traces ("new", "ack", ..., "other").
    pub fn label(self) -> &'static str {
        match self {
            PathCause::New => "new",
            PathCause::Window(c) => c.label(),
            PathCause::Other => "other",
        }
    }
}

/// The values of one path after a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathRecord {
    pub time: Time,
    /// The peer address of the path.
    pub remote: IpAddr,
    pub cwnd: u32,
    pub ssthresh: u32,
    /// Bytes in flight to the path.
    pub flight: u32,
    pub rto: Duration,
    pub srtt: Option<Duration>,
    pub cause: PathCause,
}

/// (cwnd, ssthresh, flight, RTO, SRTT) of a path.
type Values = (u32, u32, u32, Duration, Option<Duration>);

/// What the trace last reported per path.
#[derive(Debug, Clone, Default)]
pub(crate) struct PathTrace {
    last: Vec<(IpAddr, Values)>,
}

impl Association {
    /// Turns the event-driven path trace on or off (see the module doc).
    pub fn set_path_trace(&mut self, on: bool) {
        for p in &mut self.paths {
            p.cc.record_changes(on);
        }
        self.path_trace = on.then(Box::default);
    }

    /// Whether the path trace is on.
    pub fn path_trace_enabled(&self) -> bool {
        self.path_trace.is_some()
    }

    /// Appends to `out` what changed on each path since the last call, all
    /// at `now` (the time of the engine call that made the changes): one
    /// record per value the window took, then one if only the flight size,
    /// RTO or SRTT moved. Nothing when the trace is off.
    pub fn take_path_trace(&mut self, now: Time, out: &mut Vec<PathRecord>) {
        let Some(trace) = self.path_trace.as_mut() else {
            return;
        };
        for p in &mut self.paths {
            let values = (
                p.cc.cwnd,
                p.cc.ssthresh,
                p.flight_size,
                p.rto.rto(),
                p.rto.srtt(),
            );
            let remote = p.remote;
            let record = |cause, cwnd, ssthresh| PathRecord {
                time: now,
                remote,
                cwnd,
                ssthresh,
                flight: values.2,
                rto: values.3,
                srtt: values.4,
                cause,
            };
            let known = trace.last.iter_mut().find(|(a, _)| *a == remote);
            // A path the trace has not seen, or one rebuilt since (the
            // handshake rebuilds the initiator's paths): start over.
            if known.is_none() || !p.cc.records_changes() {
                p.cc.record_changes(true);
                out.push(record(PathCause::New, values.0, values.1));
                match known {
                    Some((_, v)) => *v = values,
                    None => trace.last.push((remote, values)),
                }
                continue;
            }
            let Some((_, last)) = known else { continue };
            let changes = p.cc.take_changes();
            for c in &changes {
                out.push(record(PathCause::Window(c.cause), c.cwnd, c.ssthresh));
            }
            if changes.is_empty() && *last != values {
                out.push(record(PathCause::Other, values.0, values.1));
            }
            *last = values;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::congestion::{Congestion, WindowCause, WindowChange};

    #[test]
    fn every_window_rule_is_kept_only_while_recording() {
        let mut c = Congestion::new(1000, 4000, 8000);
        c.on_timeout();
        assert!(c.take_changes().is_empty(), "off: nothing kept");
        c.record_changes(true);
        // cwnd 1000, ssthresh 4000 after the timeout.
        c.on_ack(1000, 500, true, false); // window not full: no growth
        c.on_ack(1000, 1000, true, false);
        c.on_ack(1000, 2000, true, false);
        c.on_fast_retransmit();
        c.on_idle();
        c.limit(100_000);
        let got = c.take_changes();
        let want = [
            (2000, 4000, WindowCause::Ack),
            (3000, 4000, WindowCause::Ack),
            (4000, 4000, WindowCause::FastRetransmit),
        ];
        let got: Vec<_> = got
            .iter()
            .map(
                |&WindowChange {
                     cwnd,
                     ssthresh,
                     cause,
                 }| (cwnd, ssthresh, cause),
            )
            .collect();
        assert_eq!(got, want, "unchanged windows are not reported");
        assert!(c.take_changes().is_empty(), "taken once");
    }
}
