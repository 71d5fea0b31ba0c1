//! A cell's degradation before it dies (`degrade_cell`, Budzisz et al.
//! section 4.2.1; E6): the frame error rate of the cell's stations rises
//! linearly from 0 to a maximum over the degradation, the cell then breaks
//! silently, and the stations' link layer may say "going down" at any
//! chosen point of it, which the link-layer-triggered policy acts on.

mod common;

use msctp_sim::scenario::{self, run_scenario};

/// A stationary dual-homed mobile on two cells (11 Mbit/s 15 ms, 384
/// kbit/s 80 ms), a flow from the correspondent; `net1` degrades over
/// 10 s and dies at 20 s.
const BASE: &str = r#"
name = "degradation test"
duration_s = 24.0
[output]
sample_ms = 10.0
WIRED
CELLS
[[mobiles]]
name = "mn"
ifaces = [{ name = "if1", cells = ["net1"] }, { name = "if2", cells = ["net2"] }]
[mobiles.mobility]
kind = "stationary"
[[flows]]
name = "data"
mobile = "mn"
fixed = "cn"
start_s = 0.5
FLOW
[[events]]
at_s = 20.0
action = "degrade_cell"
cell = "net1"
duration_s = 10.0
EVENT
"#;

/// [`BASE`] with the wired part and the cells filled in.
fn base() -> String {
    BASE.replace("WIRED", common::WIRED)
        .replace("CELLS\n", common::WLAN_UMTS_CELLS)
}

fn scenario(flow: &str, event: &str) -> scenario::Scenario {
    let text = base().replace("FLOW", flow).replace("EVENT", event);
    scenario::parse(&text).expect("valid scenario")
}

/// UDP, so that every frame the medium loses is a missing arrival.
const UDP: &str = r#"transport = "udp"
traffic = { kind = "cbr", message_bytes = 972, rate_bps = 3200000 }"#;

#[test]
fn degradation_raises_the_frame_error_rate_linearly_then_the_cell_dies() {
    // 400 packets/s; the error rate reaches 0.5 at the break.
    let r = run_scenario(&scenario(UDP, "max_error = 0.5"), 1).expect("run");
    // Datagrams received in [from, to), from the goodput series (bins of
    // 100 ms, each row dated at its bin's start).
    let arrivals_in = |from: f64, to: f64| {
        let bytes: f64 = r
            .goodput
            .iter()
            .filter(|g| (from - 1e-9..to - 1e-9).contains(&g.time.as_secs_f64()))
            .map(|g| g.goodput_bps * 0.1 / 8.0)
            .sum();
        (bytes / 972.0).round()
    };
    let sent_per_s = 400.0;
    // Before the degradation nothing is lost.
    // Before the degradation nothing is lost (one packet of difference:
    // bins count arrivals, a delay after sending).
    assert!((arrivals_in(5.0, 10.0) - 5.0 * sent_per_s).abs() <= 1.0);
    // Each 2.5 s quarter of the degradation loses the ramp's mean rate
    // there: 0.0625, 0.1875, 0.3125, 0.4375 of 1000 packets (within 4
    // binomial standard deviations).
    for q in 0..4 {
        let from = 10.0 + 2.5 * q as f64;
        let p = 0.5 * (from + 1.25 - 10.0) / 10.0;
        let n = 2.5 * sent_per_s;
        let lost = n - arrivals_in(from, from + 2.5);
        let sd = (n * p * (1.0 - p)).sqrt();
        assert!(
            (lost - n * p).abs() <= 4.0 * sd,
            "quarter {q}: {lost} lost of {n}, expected {:.0}",
            n * p
        );
    }
    // Then the cell is dead: nothing arrives (the last frames were in
    // flight at the break for one delay).
    assert_eq!(arrivals_in(20.1, 24.0), 0.0);
    let net: Vec<(&str, f64)> = r
        .events
        .iter()
        .filter(|e| e.source == "network")
        .map(|e| (e.kind.as_str(), e.time.as_secs_f64()))
        .collect();
    assert!(net.contains(&("degrade-cell", 10.0)), "{net:?}");
    assert!(net.contains(&("break-cell", 20.0)), "{net:?}");
    assert!(
        !net.iter().any(|(k, _)| *k == "link-going-down"),
        "no hint asked for"
    );
}

const MSCTP: &str = r#"traffic = { kind = "cbr", message_bytes = 1000, rate_bps = 200000 }
POLICY
[flows.sctp]
rto_min_ms = 20.0
path_max_retrans = 2
assoc_max_retrans = 100
sack_delay_ms = 0.0"#;

fn msctp(policy: &str) -> String {
    MSCTP.replace("POLICY", policy)
}

#[test]
fn degradation_hint_moves_a_link_layer_triggered_mobile_before_the_break() {
    let s = scenario(
        &msctp(r#"policy = { kind = "fastest_first" }"#),
        "going_down_at = 0.3",
    );
    let r = run_scenario(&s, 1).expect("run");
    let hint = r
        .events
        .iter()
        .find(|e| e.kind == "link-going-down")
        .expect("the hint was raised");
    assert_eq!(hint.time.as_secs_f64(), 13.0, "0.3 of 10 s from 10 s");
    let f = &r.summary.flows[0];
    // The data moved to the second cell at the hint, long before the
    // cell died: the first arrival there is within a round trip of it.
    let log = &r.logs[0].1;
    let first_on_2 = log
        .arrivals
        .iter()
        .find(|a| a.path.0 == 1)
        .expect("data on the second cell")
        .time
        .as_secs_f64();
    assert!(
        (13.0..13.5).contains(&first_on_2),
        "first arrival on net2 at {first_on_2}"
    );
    assert!(f.policy_decisions > 0);
    // Nothing new crossed the dying cell after the move.
    assert!(
        !log.arrivals
            .iter()
            .any(|a| a.path.0 == 0 && a.time.as_secs_f64() > 14.0),
        "data kept flowing on net1"
    );
}

#[test]
fn degradation_without_a_hint_leaves_the_move_to_failover() {
    // The same policy but no hint, and standard SCTP with a hint: both
    // stay on the dying cell until failover after the break.
    for (policy, event) in [
        (r#"policy = { kind = "fastest_first" }"#, ""),
        (
            r#"policy = { kind = "failover_only" }"#,
            "going_down_at = 0.3",
        ),
    ] {
        let r = run_scenario(&scenario(&msctp(policy), event), 1).expect("run");
        let fo = &r.summary.flows[0].failovers;
        assert_eq!(fo.len(), 1, "the break is a failover event");
        assert_eq!(fo[0].break_s, 20.0);
        // The sender moved its data by failover, after the break.
        assert!(
            fo[0].sender_failover_s.is_some_and(|t| t > 0.0),
            "{policy} {event}: {:?}",
            fo[0]
        );
        assert!(
            fo[0].new_data_failover_s.is_some_and(|t| t > 0.0),
            "{policy} {event}: {:?}",
            fo[0]
        );
    }
}

/// The event rows of `source` in time order, as (time, kind, detail).
fn rows<'a>(r: &'a msctp_sim::measure::RunResult, source: &str) -> Vec<(f64, &'a str, &'a str)> {
    r.events
        .iter()
        .filter(|e| e.source == source)
        .map(|e| (e.time.as_secs_f64(), e.kind.as_str(), e.detail.as_str()))
        .collect()
}

#[test]
fn death_seen_by_the_link_layer_ends_in_a_delete_ip() {
    // mobile (fastest_first)            correspondent
    //   13 s  link going down (net1)
    //         ASCONF Set Primary(net2) ->   data to net2
    //   20 s  net1 dies, link layer: LinkLost, address gone
    //         ASCONF Delete IP(net1)   ->   path to net1 removed
    //                                  <-   ASCONF-ACK
    // and no path failure is ever detected: the dead path is deleted,
    // not failed over.
    let s = scenario(
        &msctp(r#"policy = { kind = "fastest_first" }"#),
        "going_down_at = 0.3\nlink_down = true",
    );
    let r = run_scenario(&s, 1).expect("run");
    let net = rows(&r, "network");
    assert!(net.contains(&(20.0, "break-cell", "net1")), "{net:?}");
    assert!(net.contains(&(20.0, "link-down", "net1")), "{net:?}");
    let mobile = rows(&r, "sctp/data/mobile");
    let fixed = rows(&r, "sctp/data/fixed");
    let deleted = mobile
        .iter()
        .find(|(_, k, d)| *k == "decision" && d.starts_with("Delete(10.1."))
        .unwrap_or_else(|| panic!("the mobile deletes its net1 address: {mobile:?}"));
    assert_eq!(deleted.0, 20.0, "at the death itself");
    assert!(
        mobile
            .iter()
            .any(|(t, k, d)| *t > 20.0 && *k == "local-address-removed" && d.starts_with("10.1.")),
        "the correspondent acknowledged the deletion: {mobile:?}"
    );
    let removed = fixed
        .iter()
        .find(|(_, k, d)| *k == "peer-address-removed" && d.starts_with("10.1."))
        .unwrap_or_else(|| panic!("the correspondent drops the path: {fixed:?}"));
    // One way over UMTS (80 ms plus serialisation, behind the data queued
    // there) after the death.
    assert!((20.0..21.5).contains(&removed.0), "{removed:?}");
    assert!(
        !fixed.iter().any(|(_, k, _)| *k == "path-down"),
        "no failover at the correspondent: {fixed:?}"
    );
}

#[test]
fn a_sudden_break_seen_by_the_link_layer_moves_standard_sctp_without_failover() {
    // mobile (failover_only)            correspondent
    //   20 s  net1 breaks (no degradation), link layer: LinkLost,
    //         address gone
    //         ASCONF Delete IP(net1)   ->   path to net1 removed, its
    //                                       data to net2 at once
    // Standard SCTP follows its interfaces' addresses, so a break the
    // link layer sees ends the primary path by deletion, not failover.
    let text = base()
        .replace("FLOW", &msctp(r#"policy = { kind = "failover_only" }"#))
        .replace("EVENT", "link_down = true")
        .replace(r#"action = "degrade_cell""#, r#"action = "break_cell""#)
        .replace("duration_s = 10.0\n", "");
    let r = run_scenario(&scenario::parse(&text).expect("valid"), 1).expect("run");
    let net = rows(&r, "network");
    assert!(net.contains(&(20.0, "link-down", "net1")), "{net:?}");
    assert!(!net.iter().any(|(_, k, _)| *k == "degrade-cell"), "{net:?}");
    let fixed = rows(&r, "sctp/data/fixed");
    let removed = fixed
        .iter()
        .find(|(_, k, d)| *k == "peer-address-removed" && d.starts_with("10.1."))
        .unwrap_or_else(|| panic!("the correspondent drops the path: {fixed:?}"));
    assert!((20.0..20.5).contains(&removed.0), "{removed:?}");
    assert!(
        !fixed.iter().any(|(_, k, _)| *k == "path-down"),
        "no failover: {fixed:?}"
    );
    // New data reaches the mobile over net2 within a second of the break.
    let log = &r.logs[0].1;
    assert!(
        log.arrivals
            .iter()
            .any(|a| a.path.0 == 1 && (20.0..21.0).contains(&a.time.as_secs_f64())),
        "no data on net2 after the break"
    );
}

#[test]
fn silent_death_leaves_the_dead_address_in_the_association() {
    // The same mobile when the link layer does not see the death: no
    // Delete IP, the address stays, the correspondent finds the path
    // dead itself (its heartbeats go unanswered).
    let s = scenario(
        &msctp(r#"policy = { kind = "fastest_first" }"#),
        "going_down_at = 0.3",
    );
    let r = run_scenario(&s, 1).expect("run");
    assert!(
        !rows(&r, "network")
            .iter()
            .any(|(_, k, _)| *k == "link-down")
    );
    assert!(
        !rows(&r, "sctp/data/mobile")
            .iter()
            .any(|(_, k, d)| *k == "decision" && d.starts_with("Delete(")),
        "nothing deleted"
    );
}

#[test]
fn degradation_keys_are_checked() {
    for (event, key) in [
        ("going_down_at = 1.5", "events[0].going_down_at"),
        ("max_error = 2.0", "events[0].max_error"),
    ] {
        let text = base().replace("FLOW", UDP).replace("EVENT", event);
        let e = scenario::parse(&text).unwrap_err().to_string();
        assert!(e.contains(key), "{e}");
    }
    // Only a cell's break has a link layer to see it.
    let text = base()
        .replace("FLOW", UDP)
        .replace("EVENT", "link_down = true")
        .replace(r#"action = "degrade_cell""#, r#"action = "restore_cell""#);
    let e = scenario::parse(&text).unwrap_err().to_string();
    assert!(e.contains("events[0].link_down"), "{e}");
    let text = base()
        .replace("FLOW", UDP)
        .replace("EVENT", "")
        .replace("duration_s = 10.0", "duration_s = 30.0");
    let e = scenario::parse(&text).unwrap_err().to_string();
    assert!(e.contains("events[0].duration_s"), "{e}");
}
