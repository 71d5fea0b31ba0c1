//! The event-driven traces of a run (`output.trace = true`), one row per
//! change rather than per sampling instant:
//!
//! - `path_trace.csv`: per SCTP path at both ends, every value the
//!   engine's cwnd and ssthresh took with the RFC 9260 section 7.2 rule
//!   that set it (`cause`), and each change of flight size, RTO and SRTT
//!   (`msctp_proto::association::trace`);
//! - `delays.csv`: per delivered message, its one-way delay and the
//!   RFC 3550 interarrival jitter ([`super::delay`]);
//! - `queues.csv`: per link direction or station, the packets waiting in
//!   its transmit queue after each change.

use msctp_proto::Time;

use super::csv::{csv_field, fmt_time};

/// One change of a path.
#[derive(Debug, Clone, PartialEq)]
pub struct PathTraceRow {
    pub flow: String,
    /// "mobile" or "fixed": whose association.
    pub side: &'static str,
    pub time: Time,
    pub remote: String,
    /// Path id (index of the mobile's address) or -1 for the fixed node.
    pub path: i64,
    /// What changed: "new", a window rule ("ack", "fast_retransmit",
    /// "timeout", "idle", "limit", "end_slow_start", "start_at", "bdp") or
    /// "other" (flight size, RTO or SRTT only).
    pub cause: &'static str,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub flight: u32,
    pub srtt_ms: Option<f64>,
    pub rto_ms: f64,
}

/// One delivered message.
#[derive(Debug, Clone, PartialEq)]
pub struct DelayRow {
    pub flow: String,
    pub time: Time,
    pub delay_ms: f64,
    pub jitter_ms: f64,
}

/// A transmit queue's length after a change.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueRow {
    /// "link/<name>/<a>-><b>" or "cell/<name>/<node>" or
    /// "cell/<name>/downlink".
    pub queue: String,
    pub time: Time,
    pub packets: u32,
}

/// The three traces.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Traces {
    pub paths: Vec<PathTraceRow>,
    pub delays: Vec<DelayRow>,
    pub queues: Vec<QueueRow>,
}

impl Traces {
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty() && self.delays.is_empty() && self.queues.is_empty()
    }

    pub fn paths_csv(&self) -> String {
        let mut s = String::from(
            "flow,side,time_s,remote,path,cause,cwnd,ssthresh,flight,srtt_ms,rto_ms\n",
        );
        for r in &self.paths {
            s.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{},{:.6}\n",
                csv_field(&r.flow),
                r.side,
                fmt_time(r.time),
                r.remote,
                r.path,
                r.cause,
                r.cwnd,
                r.ssthresh,
                r.flight,
                r.srtt_ms.map(|x| format!("{x:.6}")).unwrap_or_default(),
                r.rto_ms
            ));
        }
        s
    }

    pub fn delays_csv(&self) -> String {
        let mut s = String::from("flow,time_s,delay_ms,jitter_ms\n");
        for r in &self.delays {
            s.push_str(&format!(
                "{},{},{:.6},{:.6}\n",
                csv_field(&r.flow),
                fmt_time(r.time),
                r.delay_ms,
                r.jitter_ms
            ));
        }
        s
    }

    pub fn queues_csv(&self) -> String {
        let mut s = String::from("queue,time_s,packets\n");
        for r in &self.queues {
            s.push_str(&format!(
                "{},{},{}\n",
                csv_field(&r.queue),
                fmt_time(r.time),
                r.packets
            ));
        }
        s
    }
}
