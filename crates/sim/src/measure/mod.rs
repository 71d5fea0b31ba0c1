//! Measures: what a run records, the measures every experiment reports
//! (docs/MODELS.md section 5) defined once over those records, and the
//! outputs of a run that carry them. One room, in three layers, each using
//! only the ones above it:
//!
//! 1. What a run records, written by the models as it goes (any transport,
//!    SCTP, TCP or UDP, and any mobility model can produce them):
//!    - [`records`]: receiver arrivals, application deliveries, drops,
//!      sender retransmissions, receiver reordering signals, handover
//!      windows;
//!    - [`flow_log`]: one flow's records ([`FlowLog`]), bounded;
//! 2. The measures, as functions over those records:
//!    - [`goodput`]: goodput over a window, as a time series, file
//!      delivery time;
//!    - [`handoff`]: handoff delay, handoff latency, failover time;
//!    - [`delay`]: one-way delay and jitter per delivered message;
//!    - [`loss`]: lost packets, reordered packets, spurious
//!      retransmissions;
//! 3. A run's outputs:
//!    - [`summary`]: the JSON summary ([`RunSummary`]), per flow the
//!      measures of its records ([`FlowSummary`]) and its scheme's own
//!      quantities, with the names the experiment layer reads;
//!    - [`fill`]: how a flow's summary and goodput series are computed
//!      from its records and the network's drop log;
//!    - [`result`]: everything a run produced ([`RunResult`]) and the
//!      files `msctp run` writes (CSV series, events, pcaps);
//!    - [`trace`]: the event-driven traces (`output.trace`);
//!    - [`map`]: the cells and the mobiles' trajectories;
//!    - [`csv`]: the number and text formats of the CSV files.
//!
//! The scenario reads a finished world into these types
//! (`scenario::collect`, an adapter: which agent holds what); how each
//! quantity is computed is here. Statistics over repetitions (means,
//! Student-t intervals) belong to the experiment layer (`msctp-lab`).
//!
//! Input records need not be sorted; every function sorts what it needs.
//! The exact definition of each measure is in its doc comment.

pub mod csv;
pub mod delay;
pub mod fill;
pub mod flow_log;
pub mod goodput;
pub mod handoff;
pub mod loss;
pub mod map;
pub mod records;
pub mod result;
pub mod summary;
pub mod trace;

pub use csv::fmt_time;
pub use fill::{DetectedHandover, STABLE_ARRIVALS, detect_handovers, goodput_rows};
pub use flow_log::{FlowLog, SharedFlowLog};
pub use goodput::{file_delivery_time, goodput_bps, goodput_series, longest_delivery_gap};
pub use handoff::{failover_time, handoff_delay, handoff_latency, total_handoff_delay};
pub use loss::{lost_packets, out_of_order_arrivals, reordered_packets, spurious_retransmissions};
pub use map::{MapCell, MapMobile, RunMap};
pub use records::{
    Arrival, ArrivalKind, Delivery, DropReason, DropRecord, HandoverWindow, MetricsError, PathId,
    ReorderKind, ReorderSignal, Retransmission, Window,
};
pub use result::{EventRow, GoodputRow, PathRow, RunResult, StationRow};
pub use summary::{
    AsconfSummary, CmhnSummary, FailoverSummary, FlowSummary, FmipSummary, GoodputWindow,
    HandoverSummary, MipHandoverSummary, MobileIpSummary, RunSummary, SingleHandoffRecord,
    SingleHandoffSummary, TcpSummary, UdpSummary,
};
pub use trace::{DelayRow, PathTraceRow, QueueRow, Traces};
