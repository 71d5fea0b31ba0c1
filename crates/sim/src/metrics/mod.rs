//! The measures every experiment reports (docs/MODELS.md section 5), defined
//! once, as functions over records that any transport (SCTP, TCP, UDP) or
//! mobility model can produce:
//!
//! - [`records`]: what a run logs: receiver arrivals, application
//!   deliveries, drops, sender retransmissions, receiver reordering signals,
//!   handover windows;
//! - [`goodput`]: goodput over a window, as a time series, file delivery
//!   time;
//! - [`handoff`]: handoff delay, handoff latency, failover time;
//! - [`delay`]: one-way delay and jitter per delivered message;
//! - [`loss`]: lost packets, reordered packets, spurious retransmissions.
//!
//! Statistics over repetitions (means, Student-t intervals) belong to the
//! experiment layer (`msctp-lab`).
//!
//! Input records need not be sorted; every function sorts what it needs.
//! The exact definition of each measure is in its doc comment.

pub mod delay;
pub mod flow_log;
pub mod goodput;
pub mod handoff;
pub mod loss;
pub mod records;

pub use flow_log::{FlowLog, SharedFlowLog};
pub use goodput::{file_delivery_time, goodput_bps, goodput_series, longest_delivery_gap};
pub use handoff::{failover_time, handoff_delay, handoff_latency, total_handoff_delay};
pub use loss::{lost_packets, out_of_order_arrivals, reordered_packets, spurious_retransmissions};
pub use records::{
    Arrival, ArrivalKind, Delivery, DropReason, DropRecord, HandoverWindow, MetricsError, PathId,
    ReorderKind, ReorderSignal, Retransmission, Window,
};
