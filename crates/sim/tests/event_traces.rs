//! The event-driven traces of a run (`output.trace = true`): the SCTP
//! paths' every change, the one-way delay and jitter of every delivered
//! message, the transmit queues' lengths.
//!
//! The reference scenario (a soft handover between two cells at 10 m/s)
//! with the path samples every 100 ms: every sample (the state the agent
//! read at that instant) must be what the path trace says the path was
//! at that time, so the event trace reproduces the sampled series; and it
//! has the values the samples missed.

use msctp_sim::measure::RunResult;
use msctp_sim::scenario::{self, REFERENCE, Scenario};

fn traced() -> Scenario {
    let mut s = scenario::parse(REFERENCE).expect("the reference scenario is valid");
    s.output.trace = true;
    s.output.sample_ms = 100.0;
    s
}

#[test]
fn the_path_trace_reproduces_every_sample_and_more() {
    let r: RunResult = scenario::run_scenario(&traced(), 1).unwrap();
    assert!(r.summary.warnings.is_empty(), "{:?}", r.summary.warnings);
    let t = &r.traces;
    assert!(!t.paths.is_empty() && !r.paths.is_empty());
    let mut checked = 0;
    for s in &r.paths {
        // The trace rows of this path at this end up to the sample time;
        // at the sample's own instant a later event may already have
        // changed the path, so any row at that instant may match.
        let rows: Vec<_> = t
            .paths
            .iter()
            .filter(|p| *p.flow == *s.flow && p.side == s.side && p.remote == s.remote.to_string())
            .collect();
        let before = rows.iter().rev().find(|p| p.time < s.time);
        let at: Vec<_> = rows.iter().filter(|p| p.time == s.time).collect();
        let same = |p: &&&msctp_sim::measure::PathTraceRow| {
            (p.cwnd, p.ssthresh, p.flight) == (s.cwnd, s.ssthresh, s.flight)
                && (p.rto_ms - s.rto_ms).abs() < 1e-6
        };
        assert!(
            before.is_some_and(|p| same(&p)) || at.iter().any(same),
            "sample {s:?} is not in the trace: before {before:?}, at {at:?}"
        );
        checked += 1;
    }
    // The trace has what happened between samples: the data sender's
    // window changes (slow start moves it at every SACK) against the
    // changes the 100 ms samples show.
    let mut sampled_changes = 0;
    let remotes: std::collections::BTreeSet<std::net::IpAddr> =
        r.paths.iter().map(|p| p.remote).collect();
    for remote in remotes {
        sampled_changes += r
            .paths
            .iter()
            .filter(|p| p.side == "fixed" && p.remote == remote)
            .map(|p| (p.cwnd, p.ssthresh))
            .collect::<Vec<_>>()
            .windows(2)
            .filter(|w| w[0] != w[1])
            .count();
    }
    let traced_changes = t
        .paths
        .iter()
        .filter(|p| p.side == "fixed" && p.cause != "other" && p.cause != "new")
        .count();
    let causes: std::collections::BTreeSet<&str> = t.paths.iter().map(|p| p.cause).collect();
    println!(
        "{checked} samples found in {} trace rows; data sender's window: \
         {traced_changes} changes traced, {sampled_changes} seen by the samples; \
         causes {causes:?}",
        t.paths.len()
    );
    assert!(checked > 100);
    assert!(
        traced_changes > 2 * sampled_changes,
        "the trace sees what the samples miss"
    );
    assert!(causes.contains("ack") && causes.contains("new"));

    // One-way delay and jitter per delivered message.
    let f = &r.summary.flows[0];
    assert!(!t.delays.is_empty());
    assert!(
        t.delays
            .iter()
            .all(|d| d.delay_ms > 0.0 && d.jitter_ms >= 0.0)
    );
    assert!(t.delays.windows(2).all(|w| w[0].time <= w[1].time));
    let bytes = f.bytes_delivered as f64;
    println!(
        "{} delays ({bytes} bytes delivered), {} queue rows",
        t.delays.len(),
        t.queues.len()
    );
    // Queues: some fill, and each drains back to zero.
    assert!(t.queues.iter().any(|q| q.packets > 5));
    let names: std::collections::BTreeSet<&str> =
        t.queues.iter().map(|q| q.queue.as_str()).collect();
    assert!(names.len() >= 2, "{names:?}");
    // The CSV files are written.
    let dir = std::env::temp_dir().join(format!("msctp-event-traces-{}", std::process::id()));
    r.write_to_dir(&dir).unwrap();
    for f in ["path_trace.csv", "delays.csv", "queues.csv"] {
        let text = std::fs::read_to_string(dir.join(f)).unwrap();
        assert!(text.lines().count() > 10, "{f}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn traces_are_off_by_default_and_change_nothing() {
    let mut plain = traced();
    plain.output.trace = false;
    let a = scenario::run_scenario(&plain, 3).unwrap();
    let b = scenario::run_scenario(&traced(), 3).unwrap();
    assert!(a.traces.is_empty());
    assert_eq!(a.summary_json(), b.summary_json());
    assert_eq!(a.paths_csv(), b.paths_csv());
    assert_eq!(a.events_csv(), b.events_csv());
}
