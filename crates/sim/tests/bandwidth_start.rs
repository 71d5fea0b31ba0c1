//! Bandwidth-aware start after a failover (Budzisz et al. section 4.3.1;
//! E8): the new path's window from its capacity times its RTT instead of
//! slow start, the capacity either the cell's configured rate (the
//! "oracle") or the engine's packet-pair estimate, both options of the
//! scenario file.

mod common;

use msctp_sim::scenario::{self, run_scenario};

/// A dual-homed mobile receives a bulk transfer on `net1` (UMTS-like);
/// at 10 s its link layer says `net1` is going down (it dies at 12 s) and
/// the link-layer-triggered mobile moves the data to `net2` (WLAN-like),
/// a path that has carried nothing but heartbeats and probes.
const BASE: &str = r#"
name = "bandwidth-aware start test"
duration_s = 30.0
[output]
sample_ms = 10.0
end_after_failover_s = 3.0
failover_transfer_bytes = BYTES
WIRED
[[cells]]
name = "net1"
router = "ar1"
ap_addr = "10.1.0.254/24"
radius_m = 1000.0
rate_bps = 384000
delay_ms = 80.0
sharing = "dedicated"
[[cells]]
name = "net2"
router = "ar2"
ap_addr = "10.2.0.254/24"
radius_m = 1000.0
rate_bps = 11000000
delay_ms = 15.0
sharing = "dedicated"
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
traffic = { kind = "bulk", message_bytes = 1424 }
policy = { kind = "fastest_first" }
[flows.sctp]
rto_min_ms = 20.0
path_max_retrans = 1
assoc_max_retrans = 100
sack_delay_ms = 0.0
heartbeat_interval_ms = 30000.0
START
[[events]]
at_s = 12.0
action = "degrade_cell"
cell = "net1"
duration_s = 2.0
max_error = 0.0
going_down_at = 0.0
"#;

/// [`BASE`] with the wired part filled in.
fn base() -> String {
    BASE.replace("WIRED", common::WIRED)
}

fn run(start: &str, bytes: u64) -> msctp_sim::measure::RunResult {
    let text = base()
        .replace("START", start)
        .replace("BYTES", &bytes.to_string());
    let s = scenario::parse(&text).expect("valid scenario");
    run_scenario(&s, 1).expect("run")
}

fn transfer_time(r: &msctp_sim::measure::RunResult) -> f64 {
    r.summary.flows[0].failovers[0]
        .transfer_time_s
        .expect("the first bytes arrived on the alternate path")
}

const ORACLE: &str = "bandwidth_aware_start = true";
const PACKET_PAIR: &str = "bandwidth_aware_start = true\nbandwidth_estimate = \"packet_pair\"";

#[test]
fn bandwidth_aware_start_from_the_estimate_or_the_oracle_beats_slow_start() {
    // 11 Mbit/s x 35 ms: the window starts at about 47 kB instead of four
    // packets (RFC 9260's window after an idle path, 5808 bytes).
    for bytes in [10_000u64, 20_000] {
        let slow = transfer_time(&run("", bytes));
        let oracle = transfer_time(&run(ORACLE, bytes));
        let estimate = transfer_time(&run(PACKET_PAIR, bytes));
        assert!(
            oracle < 0.7 * slow && estimate < 0.7 * slow,
            "{bytes} B: slow start {slow}, oracle {oracle}, packet pair {estimate}"
        );
        // The packet-pair estimate is close to the cell's rate.
        assert!(
            (estimate - oracle).abs() <= 0.15 * oracle,
            "{bytes} B: oracle {oracle}, packet pair {estimate}"
        );
    }
    // What fits in the first window takes one trip either way.
    let slow = transfer_time(&run("", 3000));
    let oracle = transfer_time(&run(ORACLE, 3000));
    assert_eq!(slow, oracle);
}

#[test]
fn bandwidth_aware_start_oracle_is_logged_and_the_estimate_is_the_engines() {
    let r = run(ORACLE, 10_000);
    let e = r
        .events
        .iter()
        .find(|e| e.kind == "bandwidth-aware-start")
        .expect("the oracle start is an agent event");
    assert!(e.detail.contains("11000000 bit/s"), "{}", e.detail);
    // With the estimate the engine sets the window itself: no agent
    // event, and the window on the new path at the next sample is far
    // above the four packets of an idle path.
    let r = run(PACKET_PAIR, 10_000);
    assert!(!r.events.iter().any(|e| e.kind == "bandwidth-aware-start"));
    let moved = 12.0 + r.summary.flows[0].failovers[0].sender_moved_s.unwrap();
    let cwnd = r
        .paths
        .iter()
        .find(|p| p.side == "fixed" && p.path == 1 && p.data_path && p.time.as_secs_f64() >= moved)
        .expect("a sample after the move")
        .cwnd;
    assert!(cwnd > 30_000, "cwnd {cwnd}");
}
