//! The records of one transport flow (docs/MODELS.md section 5), written by
//! the flow's sending and receiving agents (SCTP, TCP, or a handoff
//! scheme above them) and read by the experiment layer, which computes
//! the measures with [`crate::measure`]. One log per flow, shared by its
//! two ends through [`SharedFlowLog`].

use std::cell::RefCell;
use std::rc::Rc;

use crate::Time;
use crate::measure::delay::MessageDelays;
use crate::measure::{
    Arrival, ArrivalKind, Delivery, PathId, ReorderKind, ReorderSignal, Retransmission,
};

/// A flow's log, shared by the agents at both ends.
pub type SharedFlowLog = Rc<RefCell<FlowLog>>;

/// Everything a flow records. Record vectors are bounded by `limit`
/// (records beyond it are counted in `records_dropped`, never silently
/// lost); totals are always exact.
#[derive(Debug, Clone)]
pub struct FlowLog {
    pub arrivals: Vec<Arrival>,
    pub deliveries: Vec<Delivery>,
    pub retransmissions: Vec<Retransmission>,
    pub reorder_signals: Vec<ReorderSignal>,
    /// Bytes handed to the receiving application, in order.
    pub bytes_delivered: u64,
    /// Bytes the sending application handed to the transport.
    pub bytes_offered: u64,
    /// When the receiving application got the last byte of a file flow.
    pub completed_at: Option<Time>,
    pub limit: usize,
    pub records_dropped: u64,
    /// One-way delay and jitter per message, kept when the run's
    /// `output.trace` is on (`None`: off).
    pub delays: Option<Box<MessageDelays>>,
}

impl Default for FlowLog {
    fn default() -> Self {
        FlowLog::with_limit(4_000_000)
    }
}

impl FlowLog {
    pub fn with_limit(limit: usize) -> Self {
        FlowLog {
            arrivals: Vec::new(),
            deliveries: Vec::new(),
            retransmissions: Vec::new(),
            reorder_signals: Vec::new(),
            bytes_delivered: 0,
            bytes_offered: 0,
            completed_at: None,
            limit,
            records_dropped: 0,
            delays: None,
        }
    }

    pub fn shared() -> SharedFlowLog {
        Rc::new(RefCell::new(FlowLog::default()))
    }

    fn room(&mut self, len: usize) -> bool {
        if len >= self.limit {
            self.records_dropped += 1;
            false
        } else {
            true
        }
    }

    /// A data packet (or chunk) arrived at the receiving transport.
    pub fn arrival(&mut self, time: Time, path: PathId, seq: u64, bytes: u32, new: bool) {
        if self.room(self.arrivals.len()) {
            let kind = if new {
                ArrivalKind::New
            } else {
                ArrivalKind::Duplicate
            };
            self.arrivals.push(Arrival {
                time,
                path,
                seq,
                bytes,
                kind,
            });
        }
    }

    /// Bytes handed to the receiving application.
    pub fn delivered(&mut self, time: Time, bytes: u64) {
        self.bytes_delivered += bytes;
        if self.room(self.deliveries.len()) {
            self.deliveries.push(Delivery { time, bytes });
        }
    }

    /// The sending application handed a message to the transport (for
    /// the per-message delays, when kept).
    pub fn message_sent(&mut self, time: Time) {
        if let Some(d) = self.delays.as_mut() {
            d.sent(time);
        }
    }

    /// The receiving application read a message (see `message_sent`).
    pub fn message_delivered(&mut self, time: Time) {
        if let Some(d) = self.delays.as_mut() {
            d.delivered(time);
        }
    }

    /// The sender retransmitted data `seq` on `path`.
    pub fn retransmitted(&mut self, time: Time, seq: u64, path: PathId, fast: bool) {
        if self.room(self.retransmissions.len()) {
            self.retransmissions.push(Retransmission {
                time,
                seq,
                path,
                fast,
            });
        }
    }

    /// The receiver sent a duplicate ACK or a SACK with gap blocks.
    pub fn reorder_signal(&mut self, time: Time, kind: ReorderKind) {
        if self.room(self.reorder_signals.len()) {
            self.reorder_signals.push(ReorderSignal { time, kind });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_bounded_and_totals_exact() {
        let mut l = FlowLog::with_limit(2);
        for i in 0..5 {
            l.delivered(Time::from_millis(i), 100);
        }
        assert_eq!(l.deliveries.len(), 2);
        assert_eq!(l.bytes_delivered, 500);
        assert_eq!(l.records_dropped, 3);
    }
}
