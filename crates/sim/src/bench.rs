//! How fast the simulator runs mSCTP: simulated packets and events per CPU
//! second, and peak memory, on a bulk-transfer scenario (what `msctp bench
//! sim` reports).
//!
//! The scenario ([`bulk_scenario`]) is the reference topology with the
//! mobile standing in the overlap of both cells (both addresses in the
//! association), a greedy downlink SCTP transfer with a 1 MiB window over
//! a 100 Mbit/s backbone and `cell_rate_bps` cells, path samples every
//! 100 ms, no capture. CPU time is the calling thread's, from
//! `/proc/thread-self/schedstat` (Linux); elsewhere the wall clock stands
//! in. Peak memory is the process's peak resident set (`VmHWM` in
//! `/proc/self/status`), reset before each run where Linux allows it
//! (`/proc/self/clear_refs`), so it is that run's peak (with whatever the
//! process still holds from before); `peak_rss_scope` says which.

use std::time::Instant;

use serde::Serialize;

use crate::scenario::{self, MobilitySpec, REFERENCE, Scenario, ScenarioError};

mod queue;
pub use queue::{QueueBenchError, QueueCost, queue_cost};

/// Parameters of one benchmark run.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchConfig {
    /// Simulated seconds.
    pub duration_s: f64,
    pub seed: u64,
    /// Rate of both cells (bit/s).
    pub cell_rate_bps: u64,
    /// Runs of each measurement; the fastest is kept ([`measure_best`]).
    pub runs: usize,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            duration_s: 60.0,
            seed: 1,
            cell_rate_bps: 11_000_000,
            runs: 1,
        }
    }
}

/// What a benchmark run measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchResult {
    pub simulated_s: f64,
    /// "thread" (the thread's CPU clock) or "wall".
    pub cpu_clock: &'static str,
    pub cpu_s: f64,
    pub wall_s: f64,
    /// Simulator events dispatched.
    pub events: u64,
    /// IP packets created by agents (SCTP packets).
    pub packets: u64,
    pub events_per_cpu_s: f64,
    pub packets_per_cpu_s: f64,
    /// Simulated seconds per CPU-second.
    pub simulated_s_per_cpu_s: f64,
    /// Application bytes delivered (to check the run did real work).
    pub bytes_delivered: u64,
    pub peak_rss_bytes: Option<u64>,
    /// "run" (the peak was reset before the run) or "process".
    pub peak_rss_scope: &'static str,
}

impl BenchResult {
    /// CPU nanoseconds per simulated event.
    pub fn cpu_ns_per_event(&self) -> f64 {
        self.cpu_s / self.events.max(1) as f64 * 1e9
    }
}

/// The benchmark scenario (see the module documentation).
pub fn bulk_scenario(cfg: &BenchConfig) -> Result<Scenario, ScenarioError> {
    let mut s = scenario::parse(REFERENCE)?;
    s.name = "bench: bulk SCTP transfer to a dual-homed mobile".into();
    s.duration_s = cfg.duration_s;
    s.output.pcap.clear();
    for c in &mut s.cells {
        c.rate_bps = cfg.cell_rate_bps;
    }
    for l in &mut s.links {
        l.rate_bps = 100_000_000;
    }
    s.mobiles[0].mobility = MobilitySpec::Stationary {
        x_m: 150.0,
        y_m: 0.0,
    };
    s.flows[0].sctp.association.receive_window = 1 << 20;
    s.validate()?;
    Ok(s)
}

/// E7a's scenario file as the study runs it (`experiments/scenarios/
/// e7a.toml`: 50 stations arriving over the run, 802.11a and 802.11b
/// under the DCF with contention, AISLE on sender-based packet pairs):
/// the reproduction's dearest runs (E7a and E7a-causes run it nine times
/// at 1 800 s).
pub const E7A: &str = include_str!("../../../experiments/scenarios/e7a.toml");

/// [`E7A`] cut to `duration_s` simulated seconds (its own length: 1 800),
/// without its `[lab]` table (the series the lab collects from a run).
pub fn e7a_scenario(duration_s: f64) -> Result<Scenario, ScenarioError> {
    let parse = |e: toml::de::Error| ScenarioError::Parse(e.to_string());
    let mut t: toml::Table = toml::from_str(E7A).map_err(parse)?;
    t.remove("lab");
    let mut s: Scenario = t.try_into().map_err(parse)?;
    s.duration_s = duration_s;
    s.validate()?;
    Ok(s)
}

/// The stations benchmark (`msctp bench sim`'s stations axis): `n`
/// stationary dual-homed stations sharing one 802.11a and one 802.11b
/// cell (the shared medium of docs/MODELS.md 6.1, as E7a), each receiving
/// a bulk download from one correspondent, all started in the first
/// second; with or without the path estimators.
pub fn stations_scenario(
    n: usize,
    duration_s: f64,
    estimators: bool,
) -> Result<Scenario, ScenarioError> {
    let text = format!(
        r#"
name = "bench: {n} stations sharing two cells"
duration_s = {duration_s}
[output]
sample_ms = 0.0
series_bin_ms = 1000.0
[limits]
flow_records = 200000
data_uids = 200000
[[nodes]]
name = "cn"
[[nodes]]
name = "core"
kind = "router"
[[nodes]]
name = "ap_a"
kind = "router"
[[nodes]]
name = "ap_b"
kind = "router"
[[links]]
name = "cn-core"
a = "cn"
a_addr = "10.0.0.1/24"
b = "core"
b_addr = "10.0.0.254/24"
rate_bps = 1000000000
queue_packets = 10000
[[links]]
name = "core-a"
a = "core"
a_addr = "10.0.1.1/30"
b = "ap_a"
b_addr = "10.0.1.2/30"
rate_bps = 1000000000
queue_packets = 10000
[[links]]
name = "core-b"
a = "core"
a_addr = "10.0.2.1/30"
b = "ap_b"
b_addr = "10.0.2.2/30"
rate_bps = 1000000000
queue_packets = 10000
[[cells]]
name = "wlan_a"
router = "ap_a"
ap_addr = "10.1.0.254/16"
radius_m = 1000.0
rate_bps = 54000000
queue_packets = 50
ap_queue_packets = 400
frame_overhead_us = 171.0
[[cells]]
name = "wlan_b"
router = "ap_b"
ap_addr = "10.2.0.254/16"
radius_m = 1000.0
rate_bps = 11000000
queue_packets = 50
ap_queue_packets = 400
frame_overhead_us = 892.0
[[stations]]
name = "sta"
count = {n}
first_host_id = 10
ifaces = [{{ name = "a", cells = ["wlan_a"] }}, {{ name = "b", cells = ["wlan_b"] }}]
fixed = "cn"
start_s = 0.0
mean_interarrival_s = {gap}
random_initial_path = true
traffic = {{ kind = "bulk", message_bytes = 1424 }}
policy = {{ kind = "failover_only" }}
[stations.sctp]
estimators = {{ enabled = {estimators} }}
"#,
        gap = 1.0 / n.max(1) as f64,
    );
    scenario::parse(&text)
}

/// Runs a scenario once and measures it.
pub fn measure(s: &Scenario, seed: u64) -> Result<BenchResult, ScenarioError> {
    let scope = if reset_peak_rss() { "run" } else { "process" };
    let cpu0 = crate::cpu::thread_cpu_time();
    let wall0 = Instant::now();
    let r = scenario::run_scenario(s, seed)?;
    let wall = wall0.elapsed().as_secs_f64();
    let (clock, cpu) = match (cpu0, crate::cpu::thread_cpu_time()) {
        (Some(a), Some(b)) if b >= a => ("thread", (b - a).as_secs_f64()),
        _ => ("wall", wall),
    };
    let per = |n: u64| if cpu > 0.0 { n as f64 / cpu } else { 0.0 };
    Ok(BenchResult {
        simulated_s: s.duration_s,
        cpu_clock: clock,
        cpu_s: cpu,
        wall_s: wall,
        events: r.summary.events,
        packets: r.summary.packets_created,
        events_per_cpu_s: per(r.summary.events),
        packets_per_cpu_s: per(r.summary.packets_created),
        simulated_s_per_cpu_s: if cpu > 0.0 { s.duration_s / cpu } else { 0.0 },
        bytes_delivered: r.summary.flows.iter().map(|f| f.bytes_delivered).sum(),
        peak_rss_bytes: crate::cpu::peak_rss_kb().map(|kb| kb * 1024),
        peak_rss_scope: scope,
    })
}

/// Runs [`measure`] `runs` times (at least once) and keeps the run that
/// took least CPU time: on a shared machine the fastest run is the one
/// least disturbed by others (the simulation itself is deterministic).
pub fn measure_best(s: &Scenario, seed: u64, runs: usize) -> Result<BenchResult, ScenarioError> {
    let mut best = measure(s, seed)?;
    for _ in 1..runs {
        let r = measure(s, seed)?;
        if r.cpu_s < best.cpu_s {
            best = r;
        }
    }
    Ok(best)
}

/// The path estimators' cost (issue 11: at most 5% of `msctp bench
/// sim`) on one scenario: runs with and without them in interleaved
/// pairs whose order alternates (with then without, without then with,
/// ...) after one discarded warm-up run of each, so that neither side
/// always runs first and slow drifts of the machine's load fall on both
/// alike; the per-pair ratios' median and spread. One pair is no measure
/// on a shared machine: the CPU time of one run varies by 10 to 40%.
/// Each side of a pair may be the fastest of several runs (`runs`).
#[derive(Debug, Clone, Serialize)]
pub struct EstimatorCost {
    /// Runs of each side of a pair; the fastest is kept.
    pub runs: usize,
    /// CPU nanoseconds per event with the estimators, one per pair.
    pub with_ns_per_event: Vec<f64>,
    /// The same without them.
    pub without_ns_per_event: Vec<f64>,
    /// CPU per event, with / without, of each pair.
    pub ratios: Vec<f64>,
    /// CPU of the whole run (the same simulated time), with / without,
    /// of each pair: also counts the events the estimators add (trains
    /// and their echoes).
    pub run_ratios: Vec<f64>,
}

impl EstimatorCost {
    /// The median of the per-pair ratios of CPU per event.
    pub fn median_ratio(&self) -> f64 {
        median(&self.ratios)
    }

    /// The lower and upper quartile of the per-pair ratios.
    pub fn quartiles(&self) -> (f64, f64) {
        (quantile(&self.ratios, 0.25), quantile(&self.ratios, 0.75))
    }

    /// The smallest and largest per-pair ratio.
    pub fn spread(&self) -> (f64, f64) {
        (quantile(&self.ratios, 0.0), quantile(&self.ratios, 1.0))
    }

    /// The median of the per-pair ratios of the whole run's CPU.
    pub fn median_run_ratio(&self) -> f64 {
        median(&self.run_ratios)
    }
}

/// The median (of an even count, the mean of the middle two); NaN when
/// empty.
pub fn median(v: &[f64]) -> f64 {
    quantile(v, 0.5)
}

/// The `q`-quantile of `v` by linear interpolation between the closest
/// ranks (`q` = 0.5: the median); NaN when empty.
pub fn quantile(v: &[f64], q: f64) -> f64 {
    let mut s: Vec<f64> = v.to_vec();
    s.sort_by(f64::total_cmp);
    if s.is_empty() {
        return f64::NAN;
    }
    let pos = q.clamp(0.0, 1.0) * (s.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    s[lo] + (s[hi] - s[lo]) * (pos - lo as f64)
}

/// Measures [`EstimatorCost`] of `with` against `without` (the same
/// scenario with and without the estimators) over `pairs` interleaved
/// pairs; each side of a pair is the fastest of `runs` runs
/// ([`measure_best`]), as the bench's other figures are, so that one run
/// slowed by other work on the machine does not make a pair's ratio (a
/// disturbance lasting through all of a side's runs still does).
pub fn estimator_cost(
    without: &Scenario,
    with: &Scenario,
    seed: u64,
    pairs: usize,
    runs: usize,
) -> Result<EstimatorCost, ScenarioError> {
    measure(with, seed)?;
    measure(without, seed)?;
    let mut c = EstimatorCost {
        runs: runs.max(1),
        with_ns_per_event: Vec::new(),
        without_ns_per_event: Vec::new(),
        ratios: Vec::new(),
        run_ratios: Vec::new(),
    };
    for k in 0..pairs {
        let (a, b) = if k % 2 == 0 {
            let a = measure_best(with, seed, runs)?;
            (a, measure_best(without, seed, runs)?)
        } else {
            let b = measure_best(without, seed, runs)?;
            (measure_best(with, seed, runs)?, b)
        };
        let (pa, pb) = (a.cpu_ns_per_event(), b.cpu_ns_per_event());
        c.with_ns_per_event.push(pa);
        c.without_ns_per_event.push(pb);
        c.ratios.push(pa / pb.max(1e-9));
        c.run_ratios.push(a.cpu_s / b.cpu_s.max(1e-12));
    }
    Ok(c)
}

/// Resets the process's peak resident set to its current size (Linux:
/// writing 5 to `/proc/self/clear_refs`); false where that is not possible.
fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Runs the benchmark scenario once and measures it; with `estimators`
/// the flow runs the path estimators (packet pairs, Westwood+).
pub fn run_bench_with(cfg: &BenchConfig, estimators: bool) -> Result<BenchResult, ScenarioError> {
    let mut s = bulk_scenario(cfg)?;
    s.flows[0].sctp.association.estimators.enabled = estimators;
    measure_best(&s, cfg.seed, cfg.runs)
}

/// [`estimator_cost`] on the benchmark scenario.
pub fn bulk_estimator_cost(
    cfg: &BenchConfig,
    pairs: usize,
) -> Result<EstimatorCost, ScenarioError> {
    let mut with = bulk_scenario(cfg)?;
    with.flows[0].sctp.association.estimators.enabled = true;
    let mut without = bulk_scenario(cfg)?;
    without.flows[0].sctp.association.estimators.enabled = false;
    estimator_cost(&without, &with, cfg.seed, pairs, cfg.runs)
}

/// Runs the benchmark scenario (`cfg.runs` times, keeping the fastest)
/// and measures it.
pub fn run_bench(cfg: &BenchConfig) -> Result<BenchResult, ScenarioError> {
    measure_best(&bulk_scenario(cfg)?, cfg.seed, cfg.runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_bench_measures_real_work() {
        let r = run_bench(&BenchConfig {
            duration_s: 3.0,
            ..Default::default()
        })
        .unwrap();
        assert!(r.events > 1000 && r.packets > 1000, "{r:?}");
        assert!(r.bytes_delivered > 1_000_000, "{r:?}");
        assert!(r.events_per_cpu_s > 0.0 && r.cpu_s > 0.0);
        assert!(r.simulated_s_per_cpu_s > 0.0);
    }

    #[test]
    fn the_best_of_several_runs_is_the_same_simulation() {
        let s = bulk_scenario(&BenchConfig {
            duration_s: 1.0,
            ..Default::default()
        })
        .unwrap();
        let one = measure(&s, 1).unwrap();
        let best = measure_best(&s, 1, 3).unwrap();
        assert_eq!((one.events, one.packets), (best.events, best.packets));
        assert_eq!(one.bytes_delivered, best.bytes_delivered);
    }

    #[test]
    fn quantiles_interpolate_between_ranks() {
        let v = [3.0, 1.0, 2.0, 4.0];
        assert_eq!(median(&v), 2.5);
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&v, 1.0), 4.0);
        assert_eq!(quantile(&v, 0.25), 1.75);
        assert_eq!(median(&[5.0]), 5.0);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn the_estimator_cost_is_measured_in_pairs() {
        let c = bulk_estimator_cost(
            &BenchConfig {
                duration_s: 2.0,
                runs: 2,
                ..Default::default()
            },
            3,
        )
        .unwrap();
        assert_eq!((c.ratios.len(), c.run_ratios.len(), c.runs), (3, 3, 2));
        assert!(c.ratios.iter().all(|r| r.is_finite() && *r > 0.0));
        let (lo, hi) = c.spread();
        assert!(lo <= c.median_ratio() && c.median_ratio() <= hi);
    }

    /// Ten simulated seconds: in the first three, a station that arrives
    /// into 20 bulk downloads' full AP queue can lose its first packets
    /// and back off its retransmission timer past the end (seen in 6 of
    /// 12 seeds without the estimators and 3 of 12 with them); over ten,
    /// every station got data in all 24 runs tried.
    #[test]
    fn the_stations_bench_runs_every_station() {
        let s = stations_scenario(20, 10.0, true).unwrap();
        let r = measure(&s, 1).unwrap();
        assert!(r.bytes_delivered > 1_000_000, "{r:?}");
        let run = scenario::run_scenario(&s, 1).unwrap();
        assert_eq!(run.summary.flows.len(), 20);
        assert!(
            run.summary.flows.iter().all(|f| f.bytes_delivered > 0),
            "every station got data"
        );
    }
}
