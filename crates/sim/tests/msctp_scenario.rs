//! mSCTP scenarios end to end (docs/MODELS.md sections 1.4 and 3): the
//! reference scenario, a soft handover between two cells at 10 m/s, and the
//! same path break handled by failover only.

use msctp_sim::measure::{EventRow, RunResult};
use msctp_sim::scenario::{
    self, DirectionSpec, MobileIfaceSpec, PolicySpec, REFERENCE, Scenario, TrafficSpec,
};

fn reference() -> Scenario {
    scenario::parse(REFERENCE).expect("the reference scenario is valid")
}

fn events<'a>(r: &'a RunResult, source: &str, kind: &str) -> Vec<&'a EventRow> {
    r.events
        .iter()
        .filter(|e| e.source == source && e.kind == kind)
        .collect()
}

/// Make-before-break: the mobile gets its address in the new cell 8 s
/// before it leaves the old one, adds it and makes it primary at once; no
/// data packet is lost and the new path carries data before the old one
/// stops (handoff delay zero).
#[test]
fn soft_handover_loses_nothing_and_has_zero_handoff_delay() {
    let r = scenario::run_scenario(&reference(), 1).unwrap();
    let f = &r.summary.flows[0];
    assert!(r.summary.warnings.is_empty(), "{:?}", r.summary.warnings);
    assert!(
        r.summary.drops.is_empty(),
        "no drop at all: {:?}",
        r.summary.drops
    );
    assert_eq!(f.lost_data_packets, 0);
    assert_eq!(f.handovers.len(), 1, "{:?}", f.handovers);
    let h = &f.handovers[0];
    assert_eq!((h.old_path, h.new_path), (0, 1));
    assert_eq!(h.handoff_delay_s, Some(0.0));
    // The longest wait for new data around the handover stays well below
    // one RTT plus queueing (the cell queue holds about 0.3 s of data).
    assert!(h.handoff_latency_s < 0.1, "{h:?}");
    // The handover happened when the new address came (8 s: the mobile
    // enters ap2's 190 m disc at x = 110 m), not when the old link died.
    assert!(h.time_s > 8.0 && h.time_s < 9.0, "{h:?}");
    // Add + Set Primary in one ASCONF, Delete in another, each answered.
    let mobile = "sctp/bulk/mobile";
    assert_eq!(events(&r, mobile, "local-address-added").len(), 1);
    assert_eq!(events(&r, mobile, "local-address-removed").len(), 1);
    assert_eq!(events(&r, mobile, "peer-primary-request").len(), 1);
    assert!(f.asconfs_sent >= 2, "{f:?}");
    // The transfer kept going: over 1.8 Mbit/s of the 2 Mbit/s cells from
    // start to end, and most of the bytes after the handover.
    assert!(f.goodput_bps > 1.8e6, "{}", f.goodput_bps);
    // The goodput never fell to zero for a whole 100 ms bin once started.
    let holes = r
        .goodput
        .iter()
        .filter(|g| g.time.as_secs_f64() > 1.5 && g.goodput_bps == 0.0)
        .count();
    assert_eq!(holes, 0);
}

/// The same drive with failover-only: the link layer is told to notice the
/// loss of ap1 only after 60 s (y), so only SCTP's path failure detection
/// moves the data. Its gap from the break (leaving ap1 at 16 s) to the
/// sender's failover is about RTO * (2^(PMR+1) - 1) (docs/MODELS.md section 3).
#[test]
fn failover_only_shows_the_expected_failover_gap() {
    let mut s = reference();
    s.flows[0].policy = PolicySpec::FailoverOnly;
    s.flows[0].sctp.association.path_max_retrans = 2;
    s.radio.link_down_after_ms = Some(60_000.0);
    s.duration_s = 40.0;
    let r = scenario::run_scenario(&s, 1).unwrap();
    let f = &r.summary.flows[0];
    let detach = events(&r, "radio/mn", "detach");
    assert_eq!(detach.len(), 1);
    let t_break = detach[0].time;
    assert_eq!(t_break.as_secs_f64(), 16.0);
    let fail = events(&r, "sctp/bulk/fixed", "primary-changed")
        .into_iter()
        .find(|e| e.detail.ends_with("Failover") && e.time > t_break)
        .expect("the sender failed over");
    let gap = (fail.time - t_break).as_secs_f64();
    // RTO of the old path at the break, as the sender sampled it.
    let rto = r
        .paths
        .iter()
        .rev()
        .find(|p| p.side == "fixed" && p.remote.to_string() == "10.1.0.10" && p.time <= t_break)
        .expect("samples of the old path")
        .rto_ms
        / 1000.0;
    // PMR + 1 = 3 timeouts of RTO, 2 RTO and 4 RTO. The first T3 was
    // started before the break (lower bound 6 RTO from the break) or
    // restarted by a SACK still on its way at the break, at most about
    // one RTO later (upper bound 7 RTO plus one). The RTO itself is read
    // from a sample up to 100 ms old, hence the 10% slack below.
    let pmr = 2;
    let upper = rto * ((1u32 << (pmr + 1)) - 1) as f64;
    let lower = rto * ((1u32 << (pmr + 1)) - 2) as f64;
    assert!(
        gap >= lower * 0.9 && gap <= upper + rto,
        "gap {gap} s, RTO {rto} s, expected in [{lower}, {upper}]"
    );
    // Data sent to the dead address was lost (detached station), unlike
    // the soft handover.
    assert!(f.lost_data_packets > 0);
    assert!(f.lost_data_by_reason.contains_key("Detached"), "{f:?}");
    // The data did move: most of it was delivered by the end.
    assert!(f.bytes_delivered > 5_000_000, "{f:?}");
    println!("failover gap {gap:.3} s with RTO {rto:.3} s (bounds {lower:.3}..{upper:.3})");
}

/// The reference drive, uplink: the mobile sends; the same soft handover.
#[test]
fn uplink_soft_handover_loses_nothing() {
    let mut s = reference();
    s.flows[0].direction = DirectionSpec::Uplink;
    let r = scenario::run_scenario(&s, 1).unwrap();
    let f = &r.summary.flows[0];
    assert_eq!(f.direction, "uplink");
    assert_eq!(f.lost_data_packets, 0);
    assert_eq!(f.handovers.len(), 1, "{:?}", f.handovers);
    assert_eq!(f.handovers[0].handoff_delay_s, Some(0.0));
    assert!(f.goodput_bps > 1.8e6, "{}", f.goodput_bps);
}

/// Case B of docs/MODELS.md section 4: one radio for both cells. Leaving ap1
/// at 16 s it re-associates with ap2 at once, loses its old address and
/// gets the new one (no acquisition delay here); the policy then sends one
/// ASCONF from the new address with Add(new), Delete(old), Set Primary(new)
/// and the correspondent finds the association by the old address in it.
#[test]
fn single_homed_mobile_moves_its_association() {
    let mut s = reference();
    s.mobiles[0].ifaces = vec![MobileIfaceSpec {
        name: "wlan".into(),
        cells: vec!["ap1".into(), "ap2".into()],
    }];
    s.output.pcap = vec!["mn:wlan".into()];
    let r = scenario::run_scenario(&s, 1).unwrap();
    let f = &r.summary.flows[0];
    assert!(r.summary.warnings.is_empty(), "{:?}", r.summary.warnings);
    let attach: Vec<f64> = events(&r, "radio/mn", "attach")
        .iter()
        .map(|e| e.time.as_secs_f64())
        .collect();
    assert_eq!(attach.len(), 2);
    assert!((attach[1] - 16.0).abs() < 1e-6, "{attach:?}");
    let fixed = "sctp/bulk/fixed";
    assert_eq!(events(&r, fixed, "peer-address-added").len(), 1);
    assert_eq!(events(&r, fixed, "peer-address-removed").len(), 1);
    let moved = &events(&r, "sctp/bulk/mobile", "local-address-added")[0];
    assert!(moved.time.as_secs_f64() < 16.5, "{moved:?}");
    // Break before make: a real gap, but short (one round trip plus the
    // retransmission of what was lost in ap1's queue).
    assert_eq!(f.handovers.len(), 1, "{:?}", f.handovers);
    let h = &f.handovers[0];
    let delay = h.handoff_delay_s.expect("measurable");
    assert!(delay > 0.0 && delay < 1.5, "{h:?}");
    assert!(
        f.lost_data_packets > 0,
        "data queued for the old cell is lost"
    );
    // The transfer goes on after the move.
    let late: u64 = r
        .goodput
        .iter()
        .filter(|g| g.time.as_secs_f64() >= 20.0)
        .map(|g| (g.goodput_bps / 8.0 * 0.1) as u64)
        .sum();
    assert!(late > 1_000_000, "{late} bytes after 20 s");
}

/// Case A: the two access points serve one subnet; moving between them
/// changes no address, so mSCTP has nothing to do and does nothing.
#[test]
fn access_point_change_without_address_change_needs_no_asconf() {
    let mut s = reference();
    s.cells[1].router = "ar1".into();
    s.cells[1].ap_addr = "10.1.0.253/24".into();
    s.mobiles[0].ifaces = vec![MobileIfaceSpec {
        name: "wlan".into(),
        cells: vec!["ap1".into(), "ap2".into()],
    }];
    s.output.pcap.clear();
    let r = scenario::run_scenario(&s, 1).unwrap();
    let f = &r.summary.flows[0];
    assert!(r.summary.warnings.is_empty(), "{:?}", r.summary.warnings);
    assert_eq!(events(&r, "radio/mn", "attach").len(), 2);
    assert_eq!(events(&r, "radio/mn", "address-added").len(), 1);
    assert_eq!(f.asconfs_sent, 0);
    assert_eq!(f.policy_decisions, 0);
    assert!(f.handovers.is_empty(), "one address, one path");
    let late: f64 = r
        .goodput
        .iter()
        .filter(|g| g.time.as_secs_f64() >= 20.0)
        .map(|g| g.goodput_bps)
        .sum::<f64>()
        / 100.0;
    assert!(late > 1.5e6, "goodput after the move {late}");
}

/// Koh, Chang and Lee's rules through the whole pipeline (radio samples,
/// handover manager, ASCONF): with aggressive Add-IP the new address is
/// added when it is obtained; the primary changes when ap1's power falls
/// below the Primary-Change threshold: 6.8e-10 W (aggressive) at 162.2 m
/// from ap1, 4.7e-10 W (conservative) at 177.7 m. The mobile starts at
/// x = 50 m at 2 s and drives at 10 m/s, so about 13.2 s and 14.8 s, at
/// the next 100 ms beacon.
#[test]
fn signal_strength_primary_change_follows_the_threshold() {
    let mut times = Vec::new();
    for threshold in [6.8e-10, 4.7e-10] {
        let mut s = reference();
        s.flows[0].policy = PolicySpec::SignalStrength {
            add_rule: msctp_proto::policy::AddRule::Aggressive,
            add_threshold_w: 3.6e-10,
            primary_threshold_w: threshold,
        };
        s.duration_s = 18.0;
        s.output.pcap.clear();
        let r = scenario::run_scenario(&s, 1).unwrap();
        let d: Vec<_> = events(&r, "sctp/bulk/mobile", "decision")
            .into_iter()
            .map(|e| (e.time.as_secs_f64(), e.detail.clone()))
            .collect();
        let add = d.iter().find(|(_, x)| x.starts_with("Add(10.2.0.10)"));
        assert!(add.is_some_and(|(t, _)| (8.0..8.2).contains(t)), "{d:?}");
        let primary = d
            .iter()
            .find(|(_, x)| x.starts_with("MakePrimary(10.2.0.10)"))
            .expect("a primary change");
        times.push(primary.0);
        let f = &r.summary.flows[0];
        assert_eq!(f.lost_data_packets, 0, "{threshold}");
        assert_eq!(f.handovers.len(), 1);
    }
    assert!(
        (13.2..13.35).contains(&times[0]),
        "aggressive at {}",
        times[0]
    );
    assert!(
        (14.75..14.9).contains(&times[1]),
        "conservative at {}",
        times[1]
    );
}

/// The other applications over mSCTP, each through the handover: a file
/// (its delivery time), CBR (its rate), Pareto ON/OFF (on for 2/3 of the
/// time on average, so about 2/3 of the peak rate).
#[test]
fn file_cbr_and_pareto_flows() {
    let run = |traffic: TrafficSpec| {
        let mut s = reference();
        s.flows[0].traffic = traffic;
        s.output.pcap.clear();
        scenario::run_scenario(&s, 1).unwrap().summary.flows[0].clone()
    };
    let f = run(TrafficSpec::File {
        bytes: 3_000_000,
        message_bytes: 1400,
    });
    assert_eq!(f.bytes_delivered, 3_000_000);
    let t = f.file_delivery_time_s.expect("delivered");
    // 3 MB at under 2 Mbit/s: at least 12 s; the handover costs nothing.
    assert!(t > 12.0 && t < 14.5, "{t}");
    // The 64 KiB window fits the 50-packet cell queue with 1400-byte
    // messages (with 1000-byte ones it does not, and the queue drops).
    assert_eq!(f.lost_data_packets, 0, "{f:?}");

    let f = run(TrafficSpec::Cbr {
        message_bytes: 200,
        rate_bps: 400_000,
    });
    let expected = 400_000.0;
    assert!(
        (f.goodput_bps - expected).abs() / expected < 0.01,
        "{}",
        f.goodput_bps
    );
    // Without a backlog on the old path the paths do not overlap at the
    // receiver: the handoff delay is one inter-packet time (4 ms), the
    // "about one inter-packet time" of Tsang, Wang and Lau (study E2).
    assert_eq!(f.handovers.len(), 1);
    let h = &f.handovers[0];
    assert!(h.handoff_delay_s.is_some_and(|d| d <= 0.0045), "{h:?}");
    assert!(h.handoff_latency_s <= 0.0045, "{h:?}");
    assert_eq!(f.lost_data_packets, 0);

    let f = run(TrafficSpec::Pareto {
        message_bytes: 200,
        rate_bps: 400_000,
        mean_on_ms: 200.0,
        mean_off_ms: 100.0,
        shape: 1.5,
    });
    let ratio = f.goodput_bps / 400_000.0;
    assert!(ratio > 0.4 && ratio < 0.9, "{ratio}");
    assert_eq!(f.lost_data_packets, 0);
}

/// Link-layer triggered, fastest first: ap2 is slower, so its address is
/// added but data stays on ap1 until ap1's link layer warns that the link
/// is going down (power below 4.7e-10 W, 177.7 m from ap1: about 14.8 s),
/// then moves before anything is lost.
#[test]
fn fastest_first_switches_on_link_going_down() {
    let mut s = reference();
    s.radio.going_down_w = Some(4.7e-10);
    s.cells[1].rate_bps = 1_000_000;
    s.flows[0].policy = PolicySpec::FastestFirst {
        rates: Default::default(),
    };
    s.output.pcap.clear();
    let r = scenario::run_scenario(&s, 1).unwrap();
    let d: Vec<_> = events(&r, "sctp/bulk/mobile", "decision")
        .into_iter()
        .map(|e| (e.time.as_secs_f64(), e.detail.clone()))
        .collect();
    assert!(
        d[0].1.starts_with("Add(10.2.0.10)") && (8.0..8.2).contains(&d[0].0),
        "{d:?}"
    );
    let warn = events(&r, "radio/mn", "LinkGoingDown");
    let first_warn = warn
        .iter()
        .find(|e| e.detail.starts_with("if0"))
        .expect("ap1 warns");
    let switch = d
        .iter()
        .find(|(_, x)| x.starts_with("MakePrimary(10.2.0.10)"))
        .expect("a switch");
    assert_eq!(switch.0, first_warn.time.as_secs_f64());
    assert!((14.75..14.9).contains(&switch.0), "{switch:?}");
    let f = &r.summary.flows[0];
    assert_eq!(f.lost_data_packets, 0);
    assert_eq!(f.handovers.len(), 1);
    assert!(f.handovers[0].time_s > 14.7, "{:?}", f.handovers);
}

/// Bandwidth-aware start (docs/MODELS.md section 3) when the mobile moves to a
/// slower network: the sender sets the window of the path it now uses to
/// the new network's capacity times the path's RTT, instead of pushing the
/// window grown on the fast network into the slow network's queue.
#[test]
fn bandwidth_aware_start_sizes_the_window_to_the_new_network() {
    for direction in [DirectionSpec::Downlink, DirectionSpec::Uplink] {
        let mut s = reference();
        s.flows[0].direction = direction;
        s.cells[1].rate_bps = 384_000;
        let plain = scenario::run_scenario(&s, 1).unwrap();
        s.flows[0].sctp.bandwidth_aware_start = true;
        let aware = scenario::run_scenario(&s, 1).unwrap();
        let side = if direction == DirectionSpec::Uplink {
            "sctp/bulk/mobile"
        } else {
            "sctp/bulk/fixed"
        };
        let starts = events(&aware, side, "bandwidth-aware-start");
        assert!(events(&plain, side, "bandwidth-aware-start").is_empty());
        assert_eq!(starts.len(), 1, "{direction:?}: {:?}", aware.events);
        // "<remote> via <addr>: 384000 bit/s x <srtt> -> cwnd <n>": the
        // window is the capacity times an RTT of the new path, far below
        // the 2 Mbit/s network's.
        let d = &starts[0].detail;
        assert!(d.contains("via 10.2."), "{d}");
        assert!(d.contains("384000 bit/s"), "{d}");
        let cwnd: u64 = d.rsplit(' ').next().unwrap().parse().unwrap();
        assert!((4_000..=30_000).contains(&cwnd), "{direction:?}: {d}");
        let drops = |r: &RunResult| r.summary.flows[0].lost_data_packets;
        println!(
            "{direction:?}: lost {} without, {} with; goodput {:.0} / {:.0}",
            drops(&plain),
            drops(&aware),
            plain.summary.flows[0].goodput_bps,
            aware.summary.flows[0].goodput_bps
        );
        assert!(drops(&aware) <= drops(&plain), "{direction:?}");
    }
}

/// The reference scenario's flow with `[flows.sctp] pr_sctp` and the
/// flow-level `reliability` policy set to `policy` (a TOML inline table).
fn with_reliability(pr_sctp: bool, policy: &str) -> Result<Scenario, String> {
    let mut t: toml::Table = toml::from_str(REFERENCE).unwrap();
    let flow = t["flows"].as_array_mut().unwrap()[0]
        .as_table_mut()
        .unwrap();
    let sctp = flow.get_mut("sctp").unwrap().as_table_mut().unwrap();
    sctp.insert("pr_sctp".into(), toml::Value::Boolean(pr_sctp));
    let p: toml::Table = toml::from_str(&format!("reliability = {policy}")).unwrap();
    flow.insert("reliability".into(), p["reliability"].clone());
    scenario::parse(&toml::to_string(&t).unwrap()).map_err(|e| e.to_string())
}

/// A partial reliability policy on every message of a flow (RFC 7496),
/// from the scenario file: with a 1 ms lifetime the queued bulk messages
/// expire and are abandoned (counted in `abandoned_messages`); the same
/// flow without a policy abandons nothing and the key is absent.
#[test]
fn a_flow_reliability_policy_abandons_messages_and_counts_them() {
    let reliable = scenario::run_scenario(&reference(), 1).unwrap();
    assert_eq!(reliable.summary.flows[0].abandoned_messages, 0);
    let timed = with_reliability(true, "{ lifetime_ms = 1.0 }").unwrap();
    let r = scenario::run_scenario(&timed, 1).unwrap();
    let f = &r.summary.flows[0];
    assert!(f.abandoned_messages > 0, "{f:?}");
    assert!(
        f.bytes_delivered < reliable.summary.flows[0].bytes_delivered,
        "abandoned messages are not delivered"
    );
}

#[test]
fn a_reliability_policy_needs_pr_sctp_and_exactly_one_kind() {
    let e = with_reliability(false, "{ lifetime_ms = 100.0 }").unwrap_err();
    assert!(
        e.contains("flows[bulk].reliability") && e.contains("pr_sctp"),
        "{e}"
    );
    let e = with_reliability(true, "{ lifetime_ms = 100.0, priority = 1 }").unwrap_err();
    assert!(e.contains("exactly one"), "{e}");
    let e = with_reliability(true, "{ lifetime_ms = -1.0 }").unwrap_err();
    assert!(e.contains("lifetime_ms"), "{e}");
    let e = with_reliability(true, "{ ttl = 1.0 }").unwrap_err();
    assert!(e.contains("ttl"), "{e}");
    assert!(with_reliability(true, "{ max_retransmissions = 0 }").is_ok());
}
