//! The QUIC row of the handover table: the same topology, schedule and
//! gap measures as the other systems, with a quinn client that moves
//! between the links (`common/quic.rs`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{FILE_SIZE, GAP_FLOOR_MS, RESEND_TRIP, RUN_LIMIT, Row, Topology, longest_while_down};
use crate::quic;

/// The QUIC run: its row, its gaps at and after the cuts, and how many
/// moves left a failed link 1.
pub(crate) fn run_quic(
    t: &Arc<Topology>,
    data: Arc<Vec<u8>>,
    sha: &str,
) -> (Row, quic::MoveGaps, usize) {
    t.quic_server_routes();
    let sched = t.clone();
    let (schedule_tx, schedule_rx) = std::sync::mpsc::channel();
    let up = quic::Upload {
        server: "10.9.0.1:4433".parse().unwrap(),
        prefer: vec!["mn1".into(), "mn2".into()],
        limit: RUN_LIMIT,
        floor: Duration::from_secs_f64(GAP_FLOOR_MS / 1e3),
    };
    let run = quic::send_file_quic(&t.mn, &t.cn, up, data, move || {
        let _ = schedule_tx.send(sched.play_schedule());
    });
    let commands = match schedule_rx.recv() {
        Ok(s) => s.join().unwrap_or_default(),
        Err(_) => Vec::new(),
    };
    let end = run
        .first_delivery
        .map_or(Instant::now(), |f| f + run.gaps.span())
        + Duration::from_millis(1);
    let failures: Vec<(Instant, Instant)> = commands
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.0)
        .map(|(k, c)| (c.1, commands.get(k + 1).map_or(end, |n| n.1)))
        .collect();
    let mut g = run.move_gaps(&failures, RESEND_TRIP);
    g.up_second = commands
        .iter()
        .enumerate()
        .filter(|(_, c)| c.0)
        .map(|(k, c)| {
            let next = commands.get(k + 1).map_or(end, |n| n.1);
            run.longest_in(c.1, (c.1 + Duration::from_secs(1)).min(next), None)
        })
        .collect();
    for r in &run.rebinds {
        let since = commands.iter().rev().find(|c| c.1 <= r.read);
        println!(
            "quic move to {:?}{}: read {:.1} ms, rebound {:.1} ms after link 1 went {}",
            r.to,
            if r.left_failed { " (link lost)" } else { "" },
            since.map_or(f64::NAN, |c| (r.read - c.1).as_secs_f64() * 1e3),
            since.map_or(f64::NAN, |c| (r.at - c.1).as_secs_f64() * 1e3),
            since.map_or("-", |c| if c.0 { "up" } else { "down" }),
        );
    }
    println!("quic client: {}", run.client_summary());
    if let Some(e) = &run.error {
        eprintln!("quic run: {e}");
    }
    let moved = run.rebinds.iter().filter(|r| r.left_failed).count();
    let span = run.gaps.span().as_secs_f64();
    let row = Row {
        system: "QUIC (quinn, rebinds on link-down)",
        completed: run.sent_ok && run.bytes == FILE_SIZE,
        intact: run.sha256 == sha,
        longest_gap_ms: run.gaps.longest.as_secs_f64() * 1e3,
        throughput_mbps: if span > 0.0 {
            run.bytes as f64 * 8.0 / span / 1e6
        } else {
            0.0
        },
        elapsed_s: span,
        down_ms: longest_while_down(&run.intervals(), &commands, end),
        note: format!(
            "{} moves; gaps at the cuts (ms): {:.1?}",
            run.rebinds.len(),
            g.cut
        ),
    };
    (row, g, moved)
}
