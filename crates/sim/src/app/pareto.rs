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
use crate::agent::{Agent, Ctx};

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
