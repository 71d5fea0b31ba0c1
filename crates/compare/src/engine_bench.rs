//! The engine bench: our engine and sctp-proto, each between two of its
//! own endpoints in one thread ([`crate::memory::Pair`], no sockets), the
//! same bulk transfer, payload bytes per CPU-second of the thread (both
//! ends, the whole engine: chunking, SACKs, congestion control, checksums,
//! reassembly). Runs alternate between the engines so that drifts of a
//! shared machine's load fall on both; the best run of each is kept.

use std::time::Duration;

use serde::Serialize;

use crate::memory::Pair;
use crate::peer::{Ours, Peer, Setup, Theirs};
use crate::thread_cpu_seconds;

/// What to measure.
#[derive(Debug, Clone)]
pub struct EngineBenchConfig {
    /// Payload bytes per transfer.
    pub bytes: usize,
    /// Message sizes; 0 stands for one packet's worth
    /// ([`Setup::packet_payload`]).
    pub messages: Vec<usize>,
    /// Transfers of each engine at each size.
    pub runs: usize,
    pub setup: Setup,
    /// One-way delay of the in-memory link.
    pub delay: Duration,
}

impl Default for EngineBenchConfig {
    fn default() -> Self {
        EngineBenchConfig {
            bytes: 64 << 20,
            messages: vec![0, 64 << 10],
            runs: 3,
            setup: Setup::default(),
            delay: Duration::from_micros(500),
        }
    }
}

/// One engine at one message size.
#[derive(Debug, Clone, Serialize)]
pub struct EngineMeasure {
    pub engine: &'static str,
    /// Payload bytes per CPU-second, best run.
    pub bytes_per_cpu_s: f64,
    /// Every run's figure.
    pub runs: Vec<f64>,
}

/// One message size.
#[derive(Debug, Clone, Serialize)]
pub struct EngineRow {
    pub message: usize,
    pub ours: EngineMeasure,
    pub theirs: EngineMeasure,
    /// ours / theirs.
    pub ratio: f64,
}

/// The run.
#[derive(Debug, Clone, Serialize)]
pub struct EngineReport {
    pub bytes: usize,
    pub mtu: usize,
    pub rows: Vec<EngineRow>,
}

impl std::fmt::Display for EngineReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "two engines in memory, one thread, {} MB per transfer, {}-byte packets:",
            self.bytes / 1_000_000,
            self.mtu
        )?;
        writeln!(
            f,
            "  {:>8} {:>22} {:>22} {:>8}",
            "message", "msctp MB/CPU-s", "sctp-proto MB/CPU-s", "ratio"
        )?;
        for r in &self.rows {
            writeln!(
                f,
                "  {:>8} {:>22.1} {:>22.1} {:>7.2}x",
                r.message,
                r.ours.bytes_per_cpu_s / 1e6,
                r.theirs.bytes_per_cpu_s / 1e6,
                r.ratio
            )?;
        }
        Ok(())
    }
}

/// One transfer between two peers: payload bytes per CPU-second, or why
/// it failed.
pub fn transfer<A: Peer, B: Peer>(
    client: A,
    server: B,
    cfg: &EngineBenchConfig,
    message: usize,
) -> Result<f64, String> {
    let name = client.name();
    let mut p = Pair::new(client, server, cfg.delay);
    p.record = false;
    if !p.connect(Duration::from_secs(10)) {
        return Err(format!("{name}: no association"));
    }
    let cpu0 = thread_cpu_seconds();
    let got = p.bulk(0, cfg.bytes, message, Duration::from_secs(3600));
    let cpu = thread_cpu_seconds() - cpu0;
    if got != cfg.bytes {
        return Err(format!("{name}: received {got} of {} bytes", cfg.bytes));
    }
    Ok(got as f64 / cpu.max(1e-9))
}

/// Runs the bench.
pub fn run(cfg: &EngineBenchConfig) -> Result<EngineReport, String> {
    let s = cfg.setup;
    let mut rows = Vec::new();
    for &m in &cfg.messages {
        let message = if m == 0 { s.packet_payload() } else { m };
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for k in 0..cfg.runs.max(1) {
            let mine = |v: &mut Vec<f64>| -> Result<(), String> {
                v.push(transfer(
                    Ours::new(&s, false, 1),
                    Ours::new(&s, true, 2),
                    cfg,
                    message,
                )?);
                Ok(())
            };
            let other = |v: &mut Vec<f64>| -> Result<(), String> {
                v.push(transfer(
                    Theirs::new(&s, false),
                    Theirs::new(&s, true),
                    cfg,
                    message,
                )?);
                Ok(())
            };
            if k % 2 == 0 {
                mine(&mut ours)?;
                other(&mut theirs)?;
            } else {
                other(&mut theirs)?;
                mine(&mut ours)?;
            }
        }
        let best = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
        let (a, b) = (best(&ours), best(&theirs));
        rows.push(EngineRow {
            message,
            ours: EngineMeasure {
                engine: "msctp",
                bytes_per_cpu_s: a,
                runs: ours,
            },
            theirs: EngineMeasure {
                engine: "sctp-proto",
                bytes_per_cpu_s: b,
                runs: theirs,
            },
            ratio: a / b.max(1e-9),
        });
    }
    Ok(EngineReport {
        bytes: cfg.bytes,
        mtu: s.mtu,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both engines move a small transfer at both message sizes; the
    /// figures are positive and the ratio is theirs over ours.
    #[test]
    fn a_short_bench_measures_both_engines() {
        let cfg = EngineBenchConfig {
            bytes: 1 << 20,
            runs: 1,
            ..Default::default()
        };
        let r = run(&cfg).expect("both engines transfer");
        assert_eq!(r.rows.len(), 2);
        assert_eq!(r.rows[0].message, 1424);
        for row in &r.rows {
            assert!(row.ours.bytes_per_cpu_s > 0.0 && row.theirs.bytes_per_cpu_s > 0.0);
            let want = row.ours.bytes_per_cpu_s / row.theirs.bytes_per_cpu_s;
            assert!((row.ratio - want).abs() < 1e-9);
        }
    }
}
