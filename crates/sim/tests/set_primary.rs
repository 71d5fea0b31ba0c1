//! "ns-2 set-primary" (`primary_switch = "local"`), the handover of the
//! studies that ran ns-2's SCTP module: the mobile's addresses all in the
//! INIT, the primary switched locally at both ends at the handoff
//! instant, no ASCONF on the wire. The reference drive: the mobile gets
//! its address in ap2 at about 8 s and leaves ap1 at 16 s.

use msctp_sim::measure::{EventRow, RunResult};
use msctp_sim::scenario::{self, DirectionSpec, PrimarySwitchSpec, REFERENCE, Scenario};

fn set_primary() -> Scenario {
    let mut s = scenario::parse(REFERENCE).expect("the reference scenario is valid");
    s.flows[0].sctp.primary_switch = PrimarySwitchSpec::Local;
    s
}

fn events<'a>(r: &'a RunResult, source: &str, kind: &str) -> Vec<&'a EventRow> {
    r.events
        .iter()
        .filter(|e| e.source == source && e.kind == kind)
        .collect()
}

/// mobile                      network                  correspondent
///   | INIT [10.1.0.10, 10.2.0.10] ----------------------->  |
///   | (8 s) address in ap2: set-primary 10.2.0.10 (local)    |
///   |   ......... the script, no packet .................>   | set-primary
///   |                                                        | HEARTBEAT? -> DATA to 10.2.0.10
///   no ASCONF, no ASCONF-ACK anywhere.
fn check(direction: DirectionSpec) {
    let mut s = set_primary();
    s.flows[0].direction = direction;
    let r = scenario::run_scenario(&s, 1).unwrap();
    let f = &r.summary.flows[0];
    let (mobile, fixed) = ("sctp/bulk/mobile", "sctp/bulk/fixed");

    // Both addresses in the INIT, though only ap1's is held at the start.
    let connect = events(&r, mobile, "connect");
    assert_eq!(connect.len(), 1);
    assert!(
        connect[0].detail.contains("10.1.0.10") && connect[0].detail.contains("10.2.0.10"),
        "{connect:?}"
    );

    // No ADD-IP: nothing counted on the wire, no request at either end.
    let a = f.asconf.as_ref().expect("an mSCTP flow counts ASCONF");
    assert_eq!((a.asconf_chunks, a.asconf_ack_chunks), (0, 0), "{a:?}");
    assert_eq!(a.signalling_bits, 0);
    assert_eq!(f.asconfs_sent, 0);
    for kind in ["local-address-added", "peer-primary-request", "decision"] {
        assert!(events(&r, mobile, kind).is_empty(), "{kind}");
    }

    // The switch, at the instant ap2's address comes, at both ends.
    let added = events(&r, "radio/mn", "address-added")
        .into_iter()
        .find(|e| e.detail.contains("10.2.0.10"))
        .expect("the address in ap2");
    let m_switch = events(&r, mobile, "set-primary");
    assert_eq!(m_switch.len(), 1, "{m_switch:?}");
    assert_eq!(m_switch[0].time, added.time);
    assert_eq!(m_switch[0].detail, "local 10.2.0.10");
    let f_switch = events(&r, fixed, "set-primary");
    assert_eq!(f_switch.len(), 1, "{f_switch:?}");
    assert_eq!(f_switch[0].time, added.time);
    assert_eq!(f_switch[0].detail, "destination 10.2.0.10");
    let t = added.time.as_secs_f64();
    assert!((7.5..9.0).contains(&t), "{t}");

    // The data moved to ap2 before ap1 was lost, and nothing was lost.
    assert_eq!(f.handovers.len(), 1, "{:?}", f.handovers);
    let h = &f.handovers[0];
    assert_eq!((h.old_path, h.new_path), (0, 1));
    assert!(h.time_s >= t && h.time_s < t + 0.5, "{h:?} after {t}");
    assert_eq!(f.lost_data_packets, 0);
    assert!(f.goodput_bps > 1.8e6, "{}", f.goodput_bps);
}

#[test]
fn downlink_switches_locally_without_asconf() {
    check(DirectionSpec::Downlink);
}

#[test]
fn uplink_switches_locally_without_asconf() {
    check(DirectionSpec::Uplink);
}

/// The local switch follows a policy's instants: with one that has none
/// (failover only) the file is refused.
#[test]
fn local_switch_needs_a_policy_with_instants() {
    let mut s = set_primary();
    s.flows[0].policy = scenario::PolicySpec::FailoverOnly;
    let e = scenario::run_scenario(&s, 1).unwrap_err().to_string();
    assert!(e.contains("primary_switch"), "{e}");
}

/// The downlink handoff time with ns-2's timers (RTO.Initial 3 s,
/// RTO.Min 1 s) and the given path handling, and when ap2's address came.
fn downlink_move(rfc2960_paths: bool) -> (f64, Option<f64>) {
    let mut s = set_primary();
    s.flows[0].direction = DirectionSpec::Downlink;
    let a = &mut s.flows[0].sctp.association;
    a.rto_initial = std::time::Duration::from_secs(3);
    a.rto_min = std::time::Duration::from_secs(1);
    a.confirm_listed_addresses = rfc2960_paths;
    let r = scenario::run_scenario(&s, 1).unwrap();
    let added = events(&r, "radio/mn", "address-added")
        .into_iter()
        .find(|e| e.detail.contains("10.2.0.10"))
        .expect("the address in ap2")
        .time
        .as_secs_f64();
    let moved = r.summary.flows[0].handovers.first().map(|h| h.time_s);
    (added, moved)
}

/// mobile                      network                  correspondent
///   | INIT [10.1.0.10, 10.2.0.10] ----------------------->  | 10.2.0.10:
///   |                                                        |  RFC 2960: confirmed
///   | (8 s) address in ap2: set-primary (local, both ends)   |
///   |<======================= DATA to 10.2.0.10 =============|  at once
/// With RFC 9260 path verification instead, the correspondent's probes
/// to the address (out of reach until 8 s) back off from 3 s, and the
/// data waits for the next one to be answered.
#[test]
fn rfc2960_paths_let_the_correspondent_move_at_once() {
    let (t, moved) = downlink_move(true);
    let moved = moved.expect("the data moved to ap2");
    eprintln!("RFC 2960 paths: address at {t:.3} s, data moved at {moved:.3} s");
    assert!(moved >= t && moved < t + 0.5, "{moved} after {t}");
    let (t9260, later) = downlink_move(false);
    eprintln!("RFC 9260 verification: address at {t9260:.3} s, data moved at {later:?}");
    assert!(
        later.is_none_or(|m| m > moved + 0.5),
        "{later:?} against {moved}"
    );
}
