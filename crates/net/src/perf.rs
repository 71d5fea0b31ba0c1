//! An iperf-like measurement over one association, behind `msctp perf`:
//! the client sends for a while, the server receives and reports back;
//! both print throughput per interval, the client also per-path
//! statistics and every handover as it happens, with the delivery gap and
//! losses the receiver saw around it.
//!
//! Wire use: data on stream 0 (PPID [`PPID_PERF_DATA`]); once per
//! interval the server sends a [`ReceiverReport`] (JSON) on stream 1
//! (PPID [`PPID_PERF_REPORT`]); the client ends with a graceful shutdown.

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde::{Deserialize, Serialize};

use crate::driver::NetEvent;
use crate::error::NetError;
use crate::mobility::Handover;
use crate::stack::Association;
use crate::transfer::GapTracker;
use msctp_proto::{Event, SendOptions};

pub const PPID_PERF_DATA: u32 = 0x6d73_0010;
pub const PPID_PERF_REPORT: u32 = 0x6d73_0011;

/// What the receiver saw in one interval.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ReceiverReport {
    /// Seconds since the first data.
    pub t: f64,
    pub bytes: u64,
    /// Longest wait between deliveries in the interval.
    pub longest_gap_ms: f64,
    /// Duplicate TSNs received so far (spurious retransmissions).
    pub duplicates: u64,
}

/// One path in a report line.
#[derive(Debug, Clone, Serialize)]
pub struct PathLine {
    pub peer: IpAddr,
    pub active: bool,
    /// DATA payload acknowledged on this path in the interval, Mbit/s
    /// (under CMT, the path's share of the throughput).
    pub mbps: f64,
    /// "active", "potentially-failed" (SCTP-PF) or "inactive".
    pub state: &'static str,
    pub cwnd: u32,
    pub srtt_ms: Option<f64>,
    pub flight: u32,
    pub retransmissions: u64,
    pub t3_expirations: u64,
    /// Capacity of the path by packet-pair dispersion (whole IP packets),
    /// Mbit/s; `None` until a probe train was answered.
    pub capacity_mbps: Option<f64>,
    /// Bandwidth available to the association on the path (Westwood+,
    /// payload), Mbit/s; measured while the path carries data.
    pub available_mbps: Option<f64>,
}

fn to_mbps(bps: Option<u64>) -> Option<f64> {
    bps.map(|b| b as f64 / 1e6)
}

fn show(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.2}")).unwrap_or_else(|| "-".into())
}

/// What `msctp perf` prints, one per line (`--json`: one JSON object per
/// line, tagged by `type`).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PerfLine {
    /// Client: acknowledged throughput, paths, the receiver's last report.
    Interval {
        t: f64,
        mbps: f64,
        primary: Option<IpAddr>,
        paths: Vec<PathLine>,
        receiver: Option<ReceiverReport>,
    },
    /// Client: a handover, when it happens.
    Handover { t: f64, handover: Handover },
    /// Client: what the receiver saw around the last handover (the next
    /// report after it): longest gap, chunks resent at once, and of these
    /// the ones the receiver did not have already (lost on the old path).
    HandoverResult {
        t: f64,
        gap_ms: f64,
        retransmitted: usize,
        lost: u64,
    },
    /// Server: received throughput.
    Received {
        t: f64,
        mbps: f64,
        longest_gap_ms: f64,
    },
    /// End of the run.
    Summary {
        seconds: f64,
        bytes: u64,
        mbps: f64,
        longest_gap_ms: f64,
        handovers: usize,
        retransmitted_chunks: u64,
        /// Retransmissions the receiver already had (client).
        spurious_retransmissions: u64,
        /// Seconds the receiver's window kept the sender waiting while a
        /// congestion window was open (client).
        rwnd_blocked_s: f64,
        /// Messages the sender abandoned under their partial reliability
        /// policy (RFC 7496 section 4; client with `--lifetime-ms` or
        /// `--max-retransmissions`).
        abandoned_messages: u64,
    },
}

impl std::fmt::Display for PerfLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PerfLine::Interval {
                t,
                mbps,
                primary,
                paths,
                receiver,
            } => {
                write!(f, "[{t:7.2}s] {mbps:8.2} Mbit/s")?;
                if let Some(r) = receiver {
                    write!(f, "  rx gap {:6.1} ms", r.longest_gap_ms)?;
                }
                if let Some(p) = primary {
                    write!(f, "  primary {p}")?;
                }
                for p in paths {
                    write!(
                        f,
                        " | {} {} {:.2} Mbit/s cwnd {} srtt {} flight {} rtx {} cap {} avail {} Mbit/s",
                        p.peer,
                        match p.state {
                            "active" => "up",
                            "potentially-failed" => "PF",
                            _ => "DOWN",
                        },
                        p.mbps,
                        p.cwnd,
                        p.srtt_ms
                            .map(|s| format!("{s:.1}ms"))
                            .unwrap_or_else(|| "-".into()),
                        p.flight,
                        p.retransmissions,
                        show(p.capacity_mbps),
                        show(p.available_mbps)
                    )?;
                }
                Ok(())
            }
            PerfLine::Handover { t, handover: h } => write!(
                f,
                "[{t:7.2}s] handover {} -> {} (peer {} -> {}){}, {} chunks resent at once",
                h.from_local.map(|a| a.to_string()).unwrap_or("-".into()),
                h.to_local,
                h.from_peer.map(|a| a.to_string()).unwrap_or("-".into()),
                h.to_peer.map(|a| a.to_string()).unwrap_or("-".into()),
                if h.link_down { ", link down" } else { "" },
                h.retransmitted
            ),
            PerfLine::HandoverResult {
                t,
                gap_ms,
                retransmitted,
                lost,
            } => write!(
                f,
                "[{t:7.2}s] handover result: longest gap {gap_ms:.1} ms, {lost} lost, {retransmitted} retransmitted"
            ),
            PerfLine::Received {
                t,
                mbps,
                longest_gap_ms,
            } => write!(
                f,
                "[{t:7.2}s] {mbps:8.2} Mbit/s received, longest gap {longest_gap_ms:.1} ms"
            ),
            PerfLine::Summary {
                seconds,
                bytes,
                mbps,
                longest_gap_ms,
                handovers,
                retransmitted_chunks,
                spurious_retransmissions,
                rwnd_blocked_s,
                abandoned_messages,
            } => {
                write!(
                    f,
                    "total: {bytes} bytes in {seconds:.2} s, {mbps:.2} Mbit/s, longest gap {longest_gap_ms:.1} ms, {handovers} handovers, {retransmitted_chunks} chunks retransmitted ({spurious_retransmissions} spurious), receive window blocked {rwnd_blocked_s:.2} s"
                )?;
                if *abandoned_messages > 0 {
                    write!(f, ", {abandoned_messages} messages abandoned")?;
                }
                Ok(())
            }
        }
    }
}

/// Client settings.
#[derive(Debug, Clone)]
pub struct PerfConfig {
    pub duration: Duration,
    pub message: usize,
    pub interval: Duration,
    /// The options of every message sent (a partial reliability policy,
    /// RFC 3758 / RFC 7496).
    pub send: SendOptions,
}

impl Default for PerfConfig {
    fn default() -> Self {
        PerfConfig {
            duration: Duration::from_secs(10),
            message: 1400,
            interval: Duration::from_secs(1),
            send: SendOptions::default(),
        }
    }
}

/// Sends for `cfg.duration`, calling `out` with every line.
pub async fn client(
    mut assoc: Association,
    cfg: &PerfConfig,
    mut out: impl FnMut(&PerfLine),
) -> Result<PerfLine, NetError> {
    let start = Instant::now();
    let accepted = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let h = assoc.handle();
    let mut events = assoc.take_events();
    let sender = spawn_sender(&h, cfg, start + cfg.duration, &accepted, &stop);
    let mut tick = tokio::time::interval(cfg.interval);
    tick.tick().await;
    let mut last_acked = 0u64;
    let mut last_path_acked: Vec<(IpAddr, u64)> = Vec::new();
    let mut last_t = 0.0;
    let mut receiver: Option<ReceiverReport> = None;
    let mut handovers = 0usize;
    let mut pending_handover: Option<(usize, u64)> = None;
    let mut longest_gap = 0f64;
    let mut done = false;
    while !done {
        tokio::select! {
            _ = tick.tick() => {
                let st = h.status().await?;
                let t = start.elapsed().as_secs_f64();
                let acked = accepted.load(Ordering::Relaxed).saturating_sub(st.send_buffered as u64);
                let span = (t - last_t).max(1e-9);
                let mbps = (acked - last_acked.min(acked)) as f64 * 8.0 / span / 1e6;
                last_acked = acked;
                last_t = t;
                let paths = path_lines(&st.paths, &last_path_acked, span);
                last_path_acked = st.paths.iter().map(|p| (p.remote, p.counters.bytes_acked)).collect();
                out(&PerfLine::Interval { t, mbps, primary: st.data_destination, paths, receiver: receiver.take() });
                if sender.is_finished() {
                    done = true;
                }
            }
            m = assoc.recv() => {
                match m? {
                    Some(m) if m.ppid == PPID_PERF_REPORT && m.data.len() <= 4096 => {
                        if let Ok(r) = serde_json::from_slice::<ReceiverReport>(&m.data) {
                            longest_gap = longest_gap.max(r.longest_gap_ms);
                            if let Some((rtx, dups_before)) = pending_handover.take() {
                                let dups = r.duplicates.saturating_sub(dups_before);
                                out(&PerfLine::HandoverResult {
                                    t: start.elapsed().as_secs_f64(),
                                    gap_ms: r.longest_gap_ms,
                                    retransmitted: rtx,
                                    lost: (rtx as u64).saturating_sub(dups),
                                });
                            }
                            receiver = Some(r);
                        }
                    }
                    Some(_) => {}
                    None => done = true,
                }
            }
            e = async { match events.as_mut() { Some(r) => r.recv().await, None => std::future::pending().await } } => {
                match e {
                    Some(NetEvent::Handover(hv)) => {
                        handovers += 1;
                        let dups = receiver.as_ref().map_or(0, |r| r.duplicates);
                        pending_handover = Some((hv.retransmitted, dups));
                        out(&PerfLine::Handover { t: start.elapsed().as_secs_f64(), handover: hv });
                    }
                    Some(NetEvent::Assoc(Event::Closed { .. })) | None => done = true,
                    Some(_) => {}
                }
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    // A send that failed ends the run with its error, not a summary of
    // nothing.
    if let Ok(Err(e)) = sender.await {
        return Err(e);
    }
    let st = h.status().await.ok();
    h.shutdown().await?;
    let secs = start.elapsed().as_secs_f64();
    let bytes = accepted.load(Ordering::Relaxed);
    let summary = summary_line(st.as_ref(), secs, bytes, longest_gap, handovers);
    out(&summary);
    Ok(summary)
}

/// The sending task: messages of `cfg.message` bytes until `end` or
/// `stop`, counting the bytes the association accepted.
fn spawn_sender(
    h: &crate::stack::AssocHandle,
    cfg: &PerfConfig,
    end: Instant,
    accepted: &Arc<AtomicU64>,
    stop: &Arc<AtomicBool>,
) -> tokio::task::JoinHandle<Result<(), NetError>> {
    let (accepted, stop, h) = (accepted.clone(), stop.clone(), h.clone());
    let payload = Bytes::from(vec![0x5a; cfg.message.max(1)]);
    let opts = cfg.send;
    tokio::spawn(async move {
        while Instant::now() < end && !stop.load(Ordering::Relaxed) {
            h.send_message(0, PPID_PERF_DATA, payload.clone(), opts)
                .await?;
            accepted.fetch_add(payload.len() as u64, Ordering::Relaxed);
        }
        Ok::<(), NetError>(())
    })
}

/// Each path's line of an interval of `span` seconds: its state, its
/// rate from the bytes acknowledged since the last interval
/// (`last_acked`, per peer address), its congestion figures.
fn path_lines(
    paths: &[msctp_proto::path::PathStats],
    last_acked: &[(IpAddr, u64)],
    span: f64,
) -> Vec<PathLine> {
    let path_mbps = |peer: IpAddr, now: u64| {
        let before = last_acked.iter().find(|e| e.0 == peer).map_or(0, |e| e.1);
        now.saturating_sub(before) as f64 * 8.0 / span / 1e6
    };
    paths
        .iter()
        .map(|p| PathLine {
            peer: p.remote,
            active: p.state == msctp_proto::path::PathState::Active,
            mbps: path_mbps(p.remote, p.counters.bytes_acked),
            state: match p.state {
                msctp_proto::path::PathState::Active => "active",
                msctp_proto::path::PathState::PotentiallyFailed => "potentially-failed",
                msctp_proto::path::PathState::Inactive => "inactive",
            },
            cwnd: p.cwnd,
            srtt_ms: p.srtt.map(|d| d.as_secs_f64() * 1e3),
            flight: p.flight_size,
            retransmissions: p.counters.retransmissions,
            t3_expirations: p.counters.t3_expirations,
            capacity_mbps: to_mbps(p.capacity_bps),
            available_mbps: to_mbps(p.available_bps),
        })
        .collect()
}

/// The run's summary: `bytes` accepted in `secs`, with the association's
/// final counters (`st`; zeros if its status could not be read).
fn summary_line(
    st: Option<&crate::status::AssocStatus>,
    secs: f64,
    bytes: u64,
    longest_gap_ms: f64,
    handovers: usize,
) -> PerfLine {
    PerfLine::Summary {
        seconds: secs,
        bytes,
        mbps: bytes as f64 * 8.0 / secs.max(1e-9) / 1e6,
        longest_gap_ms,
        handovers,
        retransmitted_chunks: st.map_or(0, |s| s.stats.retransmitted_chunks),
        spurious_retransmissions: st.map_or(0, |s| s.stats.spurious_retransmissions),
        rwnd_blocked_s: st.map_or(0.0, |s| s.stats.rwnd_blocked.as_secs_f64()),
        abandoned_messages: st.map_or(0, |s| s.stats.abandoned.total()),
    }
}

/// Receives one client's run, sending a report every `interval`.
pub async fn server(
    mut assoc: Association,
    interval: Duration,
    mut out: impl FnMut(&PerfLine),
) -> Result<PerfLine, NetError> {
    let h = assoc.handle();
    let mut tick = tokio::time::interval(interval);
    tick.tick().await;
    let mut start: Option<Instant> = None;
    let mut total = 0u64;
    let mut bytes = 0u64;
    let mut gaps = GapTracker::new(Duration::from_millis(50));
    let mut window_gap = Duration::ZERO;
    let mut last_delivery: Option<Instant> = None;
    let mut last_t = 0.0;
    loop {
        tokio::select! {
            m = assoc.recv() => {
                let Some(m) = m? else { break };
                if m.ppid != PPID_PERF_DATA {
                    continue;
                }
                let now = Instant::now();
                start.get_or_insert(now);
                if let Some(l) = last_delivery {
                    window_gap = window_gap.max(now.saturating_duration_since(l));
                }
                last_delivery = Some(now);
                gaps.observe(now);
                bytes += m.data.len() as u64;
                total += m.data.len() as u64;
            }
            _ = tick.tick() => {
                let Some(s) = start else { continue };
                let t = s.elapsed().as_secs_f64();
                let dups = h.status().await.map(|st| st.stats.duplicate_tsns_received).unwrap_or(0);
                let r = ReceiverReport {
                    t,
                    bytes,
                    longest_gap_ms: window_gap.as_secs_f64() * 1e3,
                    duplicates: dups,
                };
                out(&PerfLine::Received {
                    t,
                    mbps: bytes as f64 * 8.0 / (t - last_t).max(1e-9) / 1e6,
                    longest_gap_ms: r.longest_gap_ms,
                });
                last_t = t;
                bytes = 0;
                window_gap = Duration::ZERO;
                if let Ok(j) = serde_json::to_vec(&r) {
                    // Best effort: the client may be shutting down.
                    let _ = tokio::time::timeout(interval, h.send(1, PPID_PERF_REPORT, Bytes::from(j))).await;
                }
            }
        }
    }
    let secs = gaps.span().as_secs_f64();
    let summary = PerfLine::Summary {
        seconds: secs,
        bytes: total,
        mbps: total as f64 * 8.0 / secs.max(1e-9) / 1e6,
        longest_gap_ms: gaps.longest.as_secs_f64() * 1e3,
        handovers: 0,
        retransmitted_chunks: 0,
        spurious_retransmissions: 0,
        rwnd_blocked_s: 0.0,
        abandoned_messages: 0,
    };
    out(&summary);
    Ok(summary)
}
