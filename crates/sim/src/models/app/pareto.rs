//! Pareto ON/OFF UDP source with the semantics of ns-2's
//! `Application/Traffic/Pareto` (`POO_Traffic` in ns-2's
//! `tools/pareto.cc`):
//! - during a burst, packets leave every `interval = packet_size*8/rate`;
//! - the number of packets of a burst is a Pareto draw of mean
//!   `burst_time / interval` (scale `mean * (shape-1)/shape`), rounded to
//!   the nearest integer, at least 1;
//! - after the last packet of a burst, the next one leaves after `interval`
//!   plus an idle time drawn from a Pareto of mean `idle_time`;
//! - as in ns-2's `TrafficGenerator::start`, the first packet leaves one
//!   such gap (interval plus idle time) after `start`;
//! - no packet leaves at or after `stop`.
//!
//! Draws come from the agent's own random stream.

use rand_distr::{Distribution, Pareto};

use crate::Time;
use crate::kernel::{Agent, Ctx};

use super::{AppConfigError, Stamp, UdpFlow, check_size};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParetoConfig {
    pub flow: UdpFlow,
    /// Whole IP packet size in bytes.
    pub packet_size: usize,
    /// Sending rate during bursts, bit/s.
    pub rate_bps: u64,
    /// Mean burst (ON) time.
    pub mean_on: std::time::Duration,
    /// Mean idle (OFF) time.
    pub mean_off: std::time::Duration,
    /// Pareto shape (ns-2 default 1.5).
    pub shape: f64,
    pub start: Time,
    pub stop: Option<Time>,
}

/// A Pareto ON/OFF source agent.
#[derive(Debug)]
pub struct ParetoOnOff {
    cfg: ParetoConfig,
    interval_s: f64,
    burst: Pareto<f64>,
    idle: Pareto<f64>,
    remaining: u64,
    next_seq: u64,
    next_at: Time,
    bursts: u64,
    send_errors: u64,
}

impl ParetoOnOff {
    pub fn new(cfg: ParetoConfig) -> Result<Self, AppConfigError> {
        check_size(&cfg.flow, cfg.packet_size)?;
        if cfg.rate_bps == 0 {
            return Err(AppConfigError::NotPositive("rate_bps"));
        }
        if !(cfg.shape.is_finite() && cfg.shape > 1.0) {
            return Err(AppConfigError::BadShape(cfg.shape));
        }
        if cfg.mean_on.is_zero() {
            return Err(AppConfigError::NotPositive("mean_on"));
        }
        if cfg.mean_off.is_zero() {
            return Err(AppConfigError::NotPositive("mean_off"));
        }
        let interval_s = (cfg.packet_size * 8) as f64 / cfg.rate_bps as f64;
        let burst_len = cfg.mean_on.as_secs_f64() / interval_s;
        let k = (cfg.shape - 1.0) / cfg.shape;
        let burst = Pareto::new(burst_len * k, cfg.shape)
            .map_err(|_| AppConfigError::NotPositive("mean_on"))?;
        let idle = Pareto::new(cfg.mean_off.as_secs_f64() * k, cfg.shape)
            .map_err(|_| AppConfigError::NotPositive("mean_off"))?;
        Ok(ParetoOnOff {
            cfg,
            interval_s,
            burst,
            idle,
            remaining: 0,
            next_seq: 0,
            next_at: Time::ZERO,
            bursts: 0,
            send_errors: 0,
        })
    }

    pub fn sent(&self) -> u64 {
        self.next_seq
    }

    /// Bursts started so far.
    pub fn bursts(&self) -> u64 {
        self.bursts
    }

    pub fn send_errors(&self) -> u64 {
        self.send_errors
    }

    /// Gap to the next packet, drawing a new burst when one ends.
    fn next_gap(&mut self, ctx: &mut Ctx<'_>) -> f64 {
        let mut t = self.interval_s;
        if self.remaining == 0 {
            let n = (self.burst.sample(ctx.rng()) + 0.5) as u64;
            self.remaining = n.max(1);
            self.bursts += 1;
            t += self.idle.sample(ctx.rng());
        }
        self.remaining -= 1;
        t
    }

    fn schedule(&mut self, ctx: &mut Ctx<'_>, from: Time) {
        let gap = self.next_gap(ctx);
        let at = from + std::time::Duration::from_nanos((gap * 1e9).round() as u64);
        if self.cfg.stop.is_some_and(|s| at >= s) {
            return;
        }
        self.next_at = at;
        ctx.set_timer(at, 0);
    }
}

impl Agent for ParetoOnOff {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        let from = self.cfg.start.max(ctx.now());
        self.schedule(ctx, from);
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, _token: u64) {
        let stamp = Stamp {
            seq: self.next_seq,
            sent_at: ctx.now(),
        };
        self.next_seq += 1;
        match self.cfg.flow.packet(self.cfg.packet_size, stamp) {
            Ok(p) => {
                if ctx.send(p).is_err() {
                    self.send_errors += 1;
                }
            }
            Err(_) => self.send_errors += 1,
        }
        let now = ctx.now();
        self.schedule(ctx, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::app::{SinkConfig, UdpSink};
    use crate::{World, WorldConfig};
    use std::time::Duration;

    /// Source and sink on one node (loopback delivery keeps send times).
    fn run(cfg: ParetoConfig, until: Time) -> (World, crate::AgentId, crate::AgentId) {
        let mut w = World::new(WorldConfig::with_seed(5));
        let n = w.add_host("n").unwrap();
        let i = w.add_iface(n, "lo").unwrap();
        w.add_address(n, i, "10.0.0.1/32".parse().unwrap()).unwrap();
        let src = w
            .add_agent(n, "pareto", Box::new(ParetoOnOff::new(cfg).unwrap()))
            .unwrap();
        let sink = w
            .add_agent(n, "sink", Box::new(UdpSink::new(SinkConfig::new(9))))
            .unwrap();
        w.run_until(until);
        (w, src, sink)
    }

    fn config() -> ParetoConfig {
        let a = "10.0.0.1".parse().unwrap();
        ParetoConfig {
            flow: UdpFlow::new(a, 9, a, 9),
            packet_size: 100,
            rate_bps: 80_000,
            mean_on: Duration::from_millis(500),
            mean_off: Duration::from_millis(500),
            shape: 2.5,
            start: Time::from_secs(1),
            stop: None,
        }
    }

    #[test]
    fn bursts_idle_times_and_long_run_rate() {
        let secs = 2000;
        let (w, src, sink) = run(config(), Time::from_secs(secs));
        let p = w.agent::<ParetoOnOff>(src).unwrap();
        let s = w.agent::<UdpSink>(sink).unwrap();
        assert_eq!(s.packets(), p.sent());
        // Packets per burst: mean 500 ms / 10 ms = 50.
        let per_burst = p.sent() as f64 / p.bursts() as f64;
        assert!((per_burst - 50.0).abs() < 5.0, "{per_burst}");
        // Long-run rate: 80 kb/s * on / (on + off), the 10 ms gap after each
        // burst's last packet counted in the off time.
        let rate = s.bytes() as f64 * 8.0 / (secs - 1) as f64;
        let want = 80_000.0 * 0.5 / (0.5 + 0.5 + 0.01);
        assert!((rate - want).abs() < 0.1 * want, "{rate} vs {want}");
        // Inside a burst packets are exactly one interval apart; between
        // bursts the gap is longer.
        let a = s.arrivals();
        assert!(
            a[0].at > Time::from_millis(1010),
            "first packet after interval + idle"
        );
        let gaps: Vec<u64> = a
            .windows(2)
            .map(|x| (x[1].at - x[0].at).as_nanos() as u64)
            .collect();
        assert!(gaps.iter().all(|g| *g >= 10_000_000));
        let exact = gaps.iter().filter(|g| **g == 10_000_000).count() as u64;
        assert_eq!(exact + p.bursts() - 1, gaps.len() as u64);
    }

    #[test]
    fn stop_and_bad_parameters() {
        let mut cfg = config();
        cfg.stop = Some(Time::from_secs(20));
        let (w, _, sink) = run(cfg, Time::from_secs(40));
        let s = w.agent::<UdpSink>(sink).unwrap();
        assert!(s.last_at().unwrap() < Time::from_secs(20));
        let mut bad = config();
        bad.shape = 1.0;
        assert!(ParetoOnOff::new(bad).is_err());
        let mut bad = config();
        bad.mean_off = Duration::ZERO;
        assert!(ParetoOnOff::new(bad).is_err());
        let mut bad = config();
        bad.packet_size = 20;
        assert!(ParetoOnOff::new(bad).is_err());
    }
}
