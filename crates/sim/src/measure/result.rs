//! The outputs of one run ([`RunResult`], what `msctp run` writes):
//!
//! - `summary.json`: [`RunSummary`], the measures of docs/MODELS.md section 5
//!   per flow, computed with [`crate::measure`] from the flow's records;
//! - `goodput.csv`: application bytes delivered over time per flow (bins
//!   of `output.series_bin_ms`, with the cumulative count);
//! - `paths.csv`: per SCTP path at each sampling instant, at both ends:
//!   cwnd, ssthresh, bytes in flight, SRTT, RTO, error count, whether new
//!   data goes there (the primary path series);
//! - `stations.csv`: stations per cell over time (mSCTP flows, by their
//!   data sender's path; E7);
//! - `events.csv`: radio driver actions, link-layer notifications, network
//!   events, association events and policy decisions, in time order;
//! - `map.json`: the cells and the mobiles' trajectories ([`super::map`]);
//! - with `output.trace`, the event-driven traces `path_trace.csv`,
//!   `delays.csv` and `queues.csv` ([`super::trace`]);
//! - one pcap per captured interface.
//!
//! Everything is produced in a fixed order with fixed number formatting
//! (times as seconds with nine decimals, i.e. exact nanoseconds), so the
//! same scenario and seed give byte-identical files.

use std::io::{self, Write};
use std::path::Path;

use msctp_proto::Time;

use super::csv::{csv_field, fmt_time, opt_f};
use super::flow_log::FlowLog;
use super::map::RunMap;
use super::summary::RunSummary;
use super::trace::Traces;

/// One goodput bin.
#[derive(Debug, Clone, PartialEq)]
pub struct GoodputRow {
    pub flow: String,
    pub time: Time,
    pub goodput_bps: f64,
    pub cumulative_bytes: u64,
}

/// One path sample. The flow's name is shared by its rows and the
/// remote address is formatted only when written (`paths_csv`): a run
/// sampling every 5 ms makes tens of thousands of rows.
#[derive(Debug, Clone, PartialEq)]
pub struct PathRow {
    pub flow: std::sync::Arc<str>,
    /// "mobile" or "fixed": whose association.
    pub side: &'static str,
    pub time: Time,
    pub remote: std::net::IpAddr,
    /// Path id (index of the mobile's address) or -1 for the fixed node.
    pub path: i64,
    pub data_path: bool,
    pub active: bool,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub flight: u32,
    pub srtt_ms: Option<f64>,
    pub rto_ms: f64,
    pub errors: u32,
}

/// One event line.
#[derive(Debug, Clone, PartialEq)]
pub struct EventRow {
    pub time: Time,
    /// `radio/<mobile>`, `network`, `sctp/<flow>/<side>`.
    pub source: String,
    pub kind: String,
    pub detail: String,
}

/// The number of stations whose data goes through a cell at a bin's
/// start (mSCTP flows, by their data sender's path).
#[derive(Debug, Clone, PartialEq)]
pub struct StationRow {
    pub cell: String,
    pub time: Time,
    pub stations: u32,
    /// The cell's fair share of the stations present: their number times
    /// the cell's nominal rate over the sum of all cells' rates.
    pub fair: f64,
}

/// Everything a run produced.
#[derive(Debug, Clone)]
pub struct RunResult {
    pub summary: RunSummary,
    pub goodput: Vec<GoodputRow>,
    /// Stations per cell over time (empty without mSCTP flows).
    pub stations: Vec<StationRow>,
    pub paths: Vec<PathRow>,
    pub events: Vec<EventRow>,
    /// The cells and the mobiles' trajectories.
    pub map: RunMap,
    /// The event-driven traces (empty unless `output.trace`).
    pub traces: Traces,
    /// ("node:iface", pcap file bytes).
    pub pcaps: Vec<(String, Vec<u8>)>,
    /// (flow name, its records) for further analysis.
    pub logs: Vec<(String, FlowLog)>,
}

impl RunResult {
    /// The summary as pretty-printed JSON.
    pub fn summary_json(&self) -> String {
        serde_json::to_string_pretty(&self.summary)
            .unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    pub fn goodput_csv(&self) -> String {
        let mut s = String::from("flow,time_s,goodput_bps,cumulative_bytes\n");
        for r in &self.goodput {
            s.push_str(&format!(
                "{},{},{:.3},{}\n",
                csv_field(&r.flow),
                fmt_time(r.time),
                r.goodput_bps,
                r.cumulative_bytes
            ));
        }
        s
    }

    pub fn paths_csv(&self) -> String {
        let mut s = String::from(
            "flow,side,time_s,remote,path,data_path,active,cwnd,ssthresh,flight,srtt_ms,rto_ms,errors\n",
        );
        for r in &self.paths {
            s.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{},{},{:.6},{}\n",
                csv_field(&r.flow),
                r.side,
                fmt_time(r.time),
                r.remote,
                r.path,
                u8::from(r.data_path),
                u8::from(r.active),
                r.cwnd,
                r.ssthresh,
                r.flight,
                opt_f(r.srtt_ms),
                r.rto_ms,
                r.errors
            ));
        }
        s
    }

    pub fn events_csv(&self) -> String {
        let mut s = String::from("time_s,source,kind,detail\n");
        for r in &self.events {
            s.push_str(&format!(
                "{},{},{},{}\n",
                fmt_time(r.time),
                csv_field(&r.source),
                csv_field(&r.kind),
                csv_field(&r.detail)
            ));
        }
        s
    }

    /// Writes `summary.json`, the three CSV files and the pcaps (named
    /// after "node:iface" with ':' replaced by '_') into `dir`.
    /// Stations per cell over time (`stations.csv`).
    pub fn stations_csv(&self) -> String {
        let mut s = String::from("cell,time_s,stations,fair\n");
        for r in &self.stations {
            s.push_str(&format!(
                "{},{},{},{:.3}\n",
                csv_field(&r.cell),
                fmt_time(r.time),
                r.stations,
                r.fair
            ));
        }
        s
    }

    pub fn write_to_dir(&self, dir: &Path) -> io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let put = |name: &str, bytes: &[u8]| -> io::Result<()> {
            let mut f = std::fs::File::create(dir.join(name))?;
            f.write_all(bytes)
        };
        put("summary.json", self.summary_json().as_bytes())?;
        put("goodput.csv", self.goodput_csv().as_bytes())?;
        put("paths.csv", self.paths_csv().as_bytes())?;
        put("events.csv", self.events_csv().as_bytes())?;
        put("map.json", self.map.to_json().as_bytes())?;
        if !self.stations.is_empty() {
            put("stations.csv", self.stations_csv().as_bytes())?;
        }
        if !self.traces.is_empty() {
            put("path_trace.csv", self.traces.paths_csv().as_bytes())?;
            put("delays.csv", self.traces.delays_csv().as_bytes())?;
            put("queues.csv", self.traces.queues_csv().as_bytes())?;
        }
        for (name, bytes) in &self.pcaps {
            let safe: String = name
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            put(&format!("{safe}.pcap"), bytes)?;
        }
        Ok(())
    }
}
