//! Concurrent multipath transfer in scenario files (`[flows.sctp.cmt]`,
//! issue 12), from the E9 base scenario: scenario C of docs/MODELS.md
//! section 4 (a dual-homed mobile receiving from a single-homed
//! correspondent) and scenario D (both dual-homed, CMT both ways), with
//! the measures CMT needs: goodput, receiver reordering, time blocked by
//! the receive window, longest delivery gap.

use msctp_proto::{CmtConfig, CmtScheduler as CmtSchedulerSpec};
use msctp_sim::measure::FlowSummary;
use msctp_sim::scenario::{self, DirectionSpec, Scenario};

fn e9_text() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../experiments/scenarios/e9.toml"
    );
    std::fs::read_to_string(path).expect("the E9 scenario")
}

fn e9() -> Scenario {
    scenario::parse(&e9_text()).expect("the E9 scenario is valid")
}

/// Scenario D: the E9 scenario with a second link between the
/// correspondent and the core (a second address, 10.0.3.1), both
/// networks WLANs, a 1 MiB window, 15 s.
fn scenario_d(direction: DirectionSpec, cmt: Option<CmtSchedulerSpec>) -> FlowSummary {
    let second = r#"
[[links]]
name = "cn-core2"
a = "cn"
a_addr = "10.0.3.1/24"
b = "core"
b_addr = "10.0.3.254/24"
rate_bps = 100000000
delay_ms = 1.0
queue_packets = 1000
"#;
    let text = e9_text().replacen("[[links]]", &format!("{}\n[[links]]", second.trim()), 1);
    let mut s = scenario::parse(&text).expect("scenario D is valid");
    s.cells[1].rate_bps = 11_000_000;
    s.cells[1].delay_ms = 15.0;
    s.duration_s = 15.0;
    s.output.goodput_windows_s = vec![(5.0, 15.0)];
    s.flows[0].start_jitter_s = 0.0;
    s.flows[0].direction = direction;
    s.flows[0].sctp.association.receive_window = 1 << 20;
    s.flows[0].sctp.association.cmt = cmt.map(CmtConfig::on).unwrap_or_default();
    let r = scenario::run_scenario(&s, 1).unwrap();
    assert!(r.summary.warnings.is_empty(), "{:?}", r.summary.warnings);
    assert_eq!(
        r.summary.drops.get("NoRoute"),
        None,
        "{:?}",
        r.summary.drops
    );
    r.summary.flows[0].clone()
}

/// Network 2 at `rate_bps` and `delay_ms`, the given receive window and
/// CMT scheduler (`None`: single path); the flow's summary.
fn run(rate_bps: u64, delay_ms: f64, rwnd: u32, cmt: Option<CmtSchedulerSpec>) -> FlowSummary {
    let mut s = e9();
    s.cells[1].rate_bps = rate_bps;
    s.cells[1].delay_ms = delay_ms;
    s.duration_s = 15.0;
    s.output.goodput_windows_s = vec![(5.0, 15.0)];
    s.flows[0].start_jitter_s = 0.0;
    s.flows[0].sctp.association.receive_window = rwnd;
    s.flows[0].sctp.association.cmt = cmt.map(CmtConfig::on).unwrap_or_default();
    let r = scenario::run_scenario(&s, 1).unwrap();
    assert!(r.summary.warnings.is_empty(), "{:?}", r.summary.warnings);
    r.summary.flows[0].clone()
}

fn goodput(f: &FlowSummary) -> f64 {
    f.goodput_windows[0].goodput_bps
}

#[test]
fn cmt_in_a_scenario_file_aggregates_two_equal_networks() {
    let single = run(11_000_000, 15.0, 1 << 20, None);
    for scheduler in [
        CmtSchedulerSpec::RoundRobin,
        CmtSchedulerSpec::FastestPathFirst,
    ] {
        let cmt = run(11_000_000, 15.0, 1 << 20, Some(scheduler));
        println!(
            "{scheduler:?}: {:.2} Mbit/s (single path {:.2}), reordering {}, \
             longest gap {:.1} ms",
            goodput(&cmt) / 1e6,
            goodput(&single) / 1e6,
            cmt.out_of_order_arrivals,
            cmt.longest_delivery_gap_s * 1e3
        );
        assert!(goodput(&cmt) > 1.8 * goodput(&single), "{scheduler:?}");
        assert!(cmt.out_of_order_arrivals > single.out_of_order_arrivals);
        assert_eq!(cmt.lost_data_mobility, 0);
        assert!(cmt.longest_delivery_gap_s > 0.0);
    }
}

/// Round-robin over WLAN and UMTS with a 64 KiB buffer: the receive
/// window fills with WLAN data waiting behind UMTS packets, the sender is
/// blocked by it and delivers a fraction of what the WLAN alone carries.
/// Fastest path first on the packet-pair capacities (E9's scenario runs
/// the estimators) sends UMTS a packet only when 28 are outstanding on
/// the WLAN, and suffers less, but still: its reception time has no
/// propagation delay (Budzisz et al., section 4.3.2.2), so each such
/// packet arrives some 110 ms after the WLAN's behind it (E9's note).
#[test]
fn round_robin_is_blocked_by_a_small_receive_buffer() {
    let rr = run(384_000, 80.0, 65_536, Some(CmtSchedulerSpec::RoundRobin));
    let fpf = run(
        384_000,
        80.0,
        65_536,
        Some(CmtSchedulerSpec::FastestPathFirst),
    );
    println!(
        "round-robin {:.2} Mbit/s, blocked {:.1} s, reordering {}; \
         fastest path first {:.2} Mbit/s",
        goodput(&rr) / 1e6,
        rr.rwnd_blocked_s,
        rr.out_of_order_arrivals,
        goodput(&fpf) / 1e6
    );
    assert!(goodput(&rr) < 1e6);
    assert!(rr.rwnd_blocked_s > 0.5 * 10.0);
    assert!(rr.out_of_order_arrivals > 100);
    assert!(goodput(&fpf) > 3.0 * goodput(&rr));
    let single = run(384_000, 80.0, 65_536, None);
    assert!(goodput(&fpf) < 0.75 * goodput(&single));
}

/// Scenario D: CMT both ways. Uplink, the mobile sends each path from
/// its own interface, so both WLANs carry data; downlink, the
/// correspondent sends to both of the mobile's addresses.
#[test]
fn cmt_both_ways_between_two_dual_homed_hosts() {
    for direction in [DirectionSpec::Uplink, DirectionSpec::Downlink] {
        let single = scenario_d(direction, None);
        let cmt = scenario_d(direction, Some(CmtSchedulerSpec::RoundRobin));
        println!(
            "{direction:?}: CMT {:.2} Mbit/s, single path {:.2}",
            goodput(&cmt) / 1e6,
            goodput(&single) / 1e6
        );
        assert!(goodput(&cmt) > 1.8 * goodput(&single), "{direction:?}");
        assert_eq!(cmt.lost_data_mobility, 0);
    }
}

#[test]
fn the_cmt_table_is_checked() {
    let base = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../experiments/scenarios/e9.toml"
    ))
    .unwrap();
    let with = |table: &str| format!("{base}\n[flows.sctp.cmt]\n{table}\n");
    let s = scenario::parse(&with(
        "enabled = true\nscheduler = \"round_robin\"\nrtx_policy = \"ssthresh\"",
    ))
    .unwrap();
    let cmt = &s.flows[0].sctp.association.cmt;
    assert!(cmt.enabled && cmt.delayed_ack && cmt.split_fast_retransmit);
    assert_eq!(cmt.scheduler, CmtSchedulerSpec::RoundRobin);
    for bad in ["scheduler = \"fastest\"", "rtx = \"cwnd\""] {
        let e = scenario::parse(&with(bad)).unwrap_err().to_string();
        assert!(e.contains("scheduler") || e.contains("rtx"), "{bad}: {e}");
    }
}
