//! Constant-bit-rate UDP source (ns-2 `Application/Traffic/CBR` without
//! jitter): the first packet leaves at `start`, packet k at
//! `start + k * packet_size * 8 / rate` (computed exactly from k, rounded
//! to the nanosecond, so no drift accumulates), none at or after `stop`.

use crate::Time;
use crate::kernel::{Agent, Ctx};

use super::{AppConfigError, Stamp, UdpFlow, check_size};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CbrConfig {
    pub flow: UdpFlow,
    /// Whole IP packet size in bytes.
    pub packet_size: usize,
    /// Bits per second counting whole IP packets.
    pub rate_bps: u64,
    pub start: Time,
    pub stop: Option<Time>,
    pub max_packets: Option<u64>,
}

/// A CBR source agent.
#[derive(Debug)]
pub struct UdpCbr {
    cfg: CbrConfig,
    next_seq: u64,
    send_errors: u64,
}

impl UdpCbr {
    pub fn new(cfg: CbrConfig) -> Result<Self, AppConfigError> {
        check_size(&cfg.flow, cfg.packet_size)?;
        if cfg.rate_bps == 0 {
            return Err(AppConfigError::NotPositive("rate_bps"));
        }
        Ok(UdpCbr {
            cfg,
            next_seq: 0,
            send_errors: 0,
        })
    }

    /// Send time of packet `k`.
    pub fn send_time(&self, k: u64) -> Time {
        let bits = self.cfg.packet_size as u128 * 8;
        let rate = u128::from(self.cfg.rate_bps);
        let ns = (u128::from(k) * bits * 1_000_000_000 + rate / 2) / rate;
        Time::from_nanos(
            self.cfg
                .start
                .as_nanos()
                .saturating_add(u64::try_from(ns).unwrap_or(u64::MAX)),
        )
    }

    /// Packets sent so far.
    pub fn sent(&self) -> u64 {
        self.next_seq
    }

    /// Sends refused by the node (backlog bound).
    pub fn send_errors(&self) -> u64 {
        self.send_errors
    }

    fn schedule_next(&mut self, ctx: &mut Ctx<'_>) {
        if self.cfg.max_packets.is_some_and(|m| self.next_seq >= m) {
            return;
        }
        let t = self.send_time(self.next_seq);
        if self.cfg.stop.is_some_and(|s| t >= s) {
            return;
        }
        ctx.set_timer(t, 0);
    }
}

impl Agent for UdpCbr {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        self.schedule_next(ctx);
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
        self.schedule_next(ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn send_times_do_not_drift() {
        let a = "10.0.0.1".parse().unwrap();
        let cfg = CbrConfig {
            flow: UdpFlow::new(a, 1, a, 2),
            packet_size: 1500,
            rate_bps: 11_000_000,
            start: Time::from_secs(1),
            stop: None,
            max_packets: None,
        };
        let c = UdpCbr::new(cfg).unwrap();
        assert_eq!(c.send_time(0), Time::from_secs(1));
        assert_eq!(c.send_time(1), Time::from_nanos(1_001_090_909));
        // 11000 packets of 12000 bits at 11 Mb/s: exactly 12 s later.
        assert_eq!(c.send_time(11_000), Time::from_secs(13));
        let mut bad = cfg;
        bad.rate_bps = 0;
        assert!(UdpCbr::new(bad).is_err());
        let mut bad = cfg;
        bad.flow.dst = "::1".parse().unwrap();
        assert!(UdpCbr::new(bad).is_err());
    }
}
