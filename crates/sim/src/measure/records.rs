//! The records a run produces, from which every measure is computed.

use std::time::Duration;

use msctp_proto::Time;
use thiserror::Error;

/// The network path a packet came over, as the experiment numbers them:
/// e.g. the receiver's local address (mSCTP downlink), the mobile node's
/// interface or care-of address (Mobile IP), or for a receiver with a
/// single address the sender's interface (uplink).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PathId(pub u32);

/// Whether an arriving data packet carried data the receiver lacked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArrivalKind {
    /// First copy of this data to reach the receiver.
    New,
    /// The receiver already had this data (a duplicate).
    Duplicate,
}

/// A data packet arriving at the receiver's transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Arrival {
    pub time: Time,
    pub path: PathId,
    /// Identifies the data carried (SCTP TSN, TCP segment start sequence,
    /// UDP packet number); copies of the same data share it, and it grows
    /// in sending order.
    pub seq: u64,
    /// Payload bytes.
    pub bytes: u32,
    pub kind: ArrivalKind,
}

/// `arrivals` in time order, ties in their given order. A run's log is
/// written in simulation order, so it is sorted already and borrowed as
/// it is; only an unsorted slice is copied and sorted.
pub fn in_time_order(arrivals: &[Arrival]) -> std::borrow::Cow<'_, [Arrival]> {
    if arrivals.is_sorted_by_key(|a| a.time) {
        std::borrow::Cow::Borrowed(arrivals)
    } else {
        let mut v = arrivals.to_vec();
        v.sort_by_key(|a| a.time);
        std::borrow::Cow::Owned(v)
    }
}

/// Bytes handed to the receiving application in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Delivery {
    pub time: Time,
    pub bytes: u64,
}

/// Why a packet was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// A full queue.
    QueueOverflow,
    /// The link's error model.
    LinkError,
    /// Sent to an address that is no longer reachable (a cell the mobile
    /// node has left, a link that is down).
    DeadAddress,
    /// Tunnelled to a stale care-of address or tunnel end point.
    StaleTunnel,
    /// Anything else.
    Other,
}

/// A packet dropped anywhere in the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DropRecord {
    pub time: Time,
    pub reason: DropReason,
    /// Whether the packet carried transport data (not only control).
    pub is_data: bool,
}

/// A retransmission sent by the data sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Retransmission {
    pub time: Time,
    /// The data retransmitted (same numbering as [`Arrival::seq`]).
    pub seq: u64,
    pub path: PathId,
    /// Fast retransmission (missing reports) rather than a timeout.
    pub fast: bool,
}

/// What a receiver sent that tells the sender about out-of-order data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReorderKind {
    /// A TCP duplicate ACK.
    DuplicateAck,
    /// An SCTP SACK with at least one gap-ack block.
    SackWithGaps,
}

/// A receiver reordering signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReorderSignal {
    pub time: Time,
    pub kind: ReorderKind,
}

/// One handover from path `old` to path `new`, to be measured within
/// `window` (which should start before the handover and end before the
/// next one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HandoverWindow {
    pub window: Window,
    pub old: PathId,
    pub new: PathId,
}

/// A half-open time window `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Window {
    pub start: Time,
    pub end: Time,
}

impl Window {
    /// All of time.
    pub const ALL: Window = Window {
        start: Time::ZERO,
        end: Time::MAX,
    };

    /// `[start, end)`; an error if `end < start`.
    pub fn new(start: Time, end: Time) -> Result<Window, MetricsError> {
        if end < start {
            Err(MetricsError::BadWindow)
        } else {
            Ok(Window { start, end })
        }
    }

    pub fn contains(&self, t: Time) -> bool {
        t >= self.start && t < self.end
    }

    pub fn duration(&self) -> Duration {
        self.end - self.start
    }
}

/// An invalid metric query.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MetricsError {
    #[error("window ends before it starts")]
    BadWindow,
    #[error("window has zero length")]
    EmptyWindow,
    #[error("bin width must be > 0")]
    ZeroBin,
    #[error("more than {limit} bins")]
    TooManyBins { limit: usize },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrivals_are_put_in_time_order_only_when_they_are_not() {
        let a = |ms: u64, seq: u64| Arrival {
            time: Time::from_millis(ms),
            path: PathId(0),
            seq,
            bytes: 1,
            kind: ArrivalKind::New,
        };
        let sorted = [a(1, 1), a(2, 2), a(2, 3)];
        assert!(matches!(
            in_time_order(&sorted),
            std::borrow::Cow::Borrowed(_)
        ));
        // Out of order: sorted, ties (time 2) in their given order.
        let mixed = [a(2, 3), a(1, 1), a(2, 2)];
        let seqs: Vec<u64> = in_time_order(&mixed).iter().map(|x| x.seq).collect();
        assert_eq!(seqs, [1, 3, 2]);
    }

    #[test]
    fn window_is_half_open() {
        let w = Window::new(Time::from_secs(1), Time::from_secs(3)).unwrap();
        assert!(w.contains(Time::from_secs(1)));
        assert!(!w.contains(Time::from_secs(3)));
        assert_eq!(w.duration(), Duration::from_secs(2));
        assert_eq!(
            Window::new(Time::from_secs(3), Time::from_secs(1)),
            Err(MetricsError::BadWindow)
        );
        assert!(Window::ALL.contains(Time::ZERO));
    }
}
