//! Point-to-point full-duplex links and the channel (one direction of
//! transmission) they are made of.
//!
//! Timing (exact, integer nanoseconds): a packet of `L` bytes handed to a
//! channel of rate `R` bit/s starts serialising as soon as the transmitter
//! is free (else waits in the drop-tail queue), finishes
//! [`serialization_time`]`(L + F, R)` later, and arrives `delay` after that,
//! where `F` is the link's framing overhead ([`LinkConfig::framing_bytes`],
//! zero unless set: e.g. 2 for the PPP header of ns-3's point-to-point
//! device).
//! The serialisation time is `L*8*1e9/R` nanoseconds rounded to the nearest
//! nanosecond (halves up); rounding is per packet, so back-to-back packets
//! may drift from the ideal by at most 0.5 ns each.
//!
//! The error model of the direction is consulted when serialisation ends:
//! a lost packet used the capacity but never arrives.
//!
//! Cutting a link (a cable cut, a radio link that vanishes): every packet
//! queued, being serialised or in flight in either direction is dropped
//! (reason `LinkDown`), and packets sent while it is cut are dropped at
//! once. Restoring it gives an empty, idle link. Rate, delay, queue limit
//! and error model can be changed at run time; a new rate applies from the
//! next packet that starts serialising, a new delay from the next packet
//! that finishes (a link never reorders: see [`crate::kernel::pipe`]).

use std::time::Duration;

use crate::Time;
use crate::kernel::error_model::{ErrorModel, ErrorModelError, ErrorModelSpec};
use crate::kernel::ids::{IfaceId, NodeId};
use crate::kernel::ip::IpPacket;
use crate::kernel::pipe::Pipe;
use crate::kernel::queue::DropTailQueue;
use crate::kernel::rng::SimRng;

/// Serialisation time of `len` bytes at `rate_bps`, rounded to the nearest
/// nanosecond (halves up). `rate_bps` must be positive (checked when a
/// rate is configured).
pub fn serialization_time(len: usize, rate_bps: u64) -> Duration {
    let rate = rate_bps.max(1);
    // In 64 bits when the numerator fits (any packet: up to 1.1 GB at any
    // rate), else in 128: the same quotient, without a 128-bit division
    // per packet.
    let ns = (len as u64)
        .checked_mul(8_000_000_000)
        .and_then(|n| n.checked_add(rate / 2))
        .map(|n| u128::from(n / rate))
        .unwrap_or_else(|| (len as u128 * 8_000_000_000 + u128::from(rate / 2)) / u128::from(rate));
    Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
}

/// Invalid link or cell parameters.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LinkConfigError {
    #[error("the transmission time interval must be > 0")]
    ZeroTti,
    #[error("rate must be > 0 bit/s")]
    ZeroRate,
    #[error("a contention MAC needs a shared medium")]
    ContentionOnDedicated,
    #[error(transparent)]
    ErrorModel(#[from] ErrorModelError),
}

/// Parameters of a point-to-point link.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkConfig {
    pub rate_bps: u64,
    pub delay: Duration,
    /// Packets that may wait in each direction's queue.
    pub queue_limit: usize,
    /// Link-layer framing bytes added to every packet's serialisation time
    /// (not to the IP packet, nor to captures): 0 by default, as ns-2; 2
    /// for ns-3's `PointToPointNetDevice` (PPP header).
    pub framing_bytes: usize,
    /// Error model of direction 0 (end a to end b).
    pub error_ab: ErrorModelSpec,
    /// Error model of direction 1 (end b to end a).
    pub error_ba: ErrorModelSpec,
}

impl LinkConfig {
    /// A lossless link with ns-2's default queue limit of 50 packets.
    pub fn new(rate_bps: u64, delay: Duration) -> Self {
        LinkConfig {
            rate_bps,
            delay,
            queue_limit: 50,
            framing_bytes: 0,
            error_ab: ErrorModelSpec::None,
            error_ba: ErrorModelSpec::None,
        }
    }

    pub fn queue_limit(mut self, packets: usize) -> Self {
        self.queue_limit = packets;
        self
    }

    /// Framing bytes per packet (see [`LinkConfig::framing_bytes`]).
    pub fn framing(mut self, bytes: usize) -> Self {
        self.framing_bytes = bytes;
        self
    }

    /// The same error model (separate instances) in both directions.
    pub fn error(mut self, spec: ErrorModelSpec) -> Self {
        self.error_ab = spec;
        self.error_ba = spec;
        self
    }

    pub fn validate(&self) -> Result<(), LinkConfigError> {
        if self.rate_bps == 0 {
            return Err(LinkConfigError::ZeroRate);
        }
        self.error_ab.validate()?;
        self.error_ba.validate()?;
        Ok(())
    }
}

/// Counters of one channel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChannelStats {
    /// Packets that started serialisation.
    pub tx_packets: u64,
    pub tx_bytes: u64,
    /// Packets that arrived at the far end.
    pub rx_packets: u64,
    pub rx_bytes: u64,
    pub queue_drops: u64,
    pub error_drops: u64,
    /// Dropped because the link was cut, or the station detached.
    pub down_drops: u64,
    /// Largest queue length seen.
    pub max_queue: usize,
}

/// The packet being serialised.
#[derive(Debug)]
pub(crate) struct InService {
    /// None when it was purged (cut, detach) while on the wire: the
    /// transmitter stays busy until its end anyway.
    pub pkt: Option<IpPacket>,
    pub start: Time,
}

/// One direction of transmission: queue, transmitter, propagation pipe,
/// error model.
#[derive(Debug)]
pub(crate) struct Channel {
    pub rate_bps: u64,
    pub delay: Duration,
    /// Framing bytes added to each packet's serialisation.
    pub framing: usize,
    pub queue: DropTailQueue<IpPacket>,
    pub in_service: Option<InService>,
    pub pipe: Pipe<IpPacket>,
    pub error: ErrorModel,
    pub stats: ChannelStats,
    /// Transmission time interval (dedicated UMTS-like cell channels; see
    /// [`crate::kernel::wireless::CellConfig::tti`]).
    pub tti: Option<Duration>,
}

/// `t` rounded up to a multiple of `tti`.
pub(crate) fn tti_ceil(t: Time, tti: Duration) -> Time {
    let q = tti.as_nanos().max(1) as u64;
    let n = t.as_nanos();
    Time::from_nanos(n.div_ceil(q) * q)
}

impl Channel {
    pub fn new(
        rate_bps: u64,
        delay: Duration,
        queue_limit: usize,
        error: &ErrorModelSpec,
        rng: SimRng,
    ) -> Result<Self, LinkConfigError> {
        if rate_bps == 0 {
            return Err(LinkConfigError::ZeroRate);
        }
        Ok(Channel {
            rate_bps,
            delay,
            framing: 0,
            queue: DropTailQueue::new(queue_limit),
            in_service: None,
            pipe: Pipe::default(),
            error: ErrorModel::new(error, rng)?,
            stats: ChannelStats::default(),
            tti: None,
        })
    }

    /// Removes every queued, in-service and in-flight packet (returned for
    /// drop accounting). A busy transmitter stays busy until its scheduled
    /// end; only then does it take the next packet.
    pub fn purge(&mut self) -> Vec<IpPacket> {
        let mut out: Vec<IpPacket> = self.queue.drain().collect();
        if let Some(s) = self.in_service.as_mut() {
            out.extend(s.pkt.take());
        }
        out.extend(self.pipe.extract_if(|_| true));
        out
    }
}

/// Direction of a link: 0 carries packets from end a to end b.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    AtoB = 0,
    BtoA = 1,
}

/// A point-to-point link.
#[derive(Debug)]
pub(crate) struct Link {
    pub name: String,
    pub ends: [(NodeId, IfaceId); 2],
    pub ch: [Channel; 2],
    pub up: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_time_exact_and_rounded() {
        // 1500 B at 10 Mb/s: 1.2 ms exactly.
        assert_eq!(
            serialization_time(1500, 10_000_000),
            Duration::from_micros(1200)
        );
        // 1500 B at 11 Mb/s: 1090909.0909 ns -> 1090909 ns.
        assert_eq!(
            serialization_time(1500, 11_000_000),
            Duration::from_nanos(1_090_909)
        );
        // 1 B at 3 b/s: 2666666666.67 ns -> rounds up.
        assert_eq!(
            serialization_time(1, 3),
            Duration::from_nanos(2_666_666_667)
        );
        // half a nanosecond rounds up: 1 B at 16 Gb/s = 0.5 ns
        assert_eq!(
            serialization_time(1, 16_000_000_000),
            Duration::from_nanos(1)
        );
        assert_eq!(serialization_time(0, 1_000), Duration::ZERO);
    }

    /// The quotient computed in 128 bits, as the function did before its
    /// 64-bit fast path.
    fn wide(len: usize, rate_bps: u64) -> Duration {
        let rate = u128::from(rate_bps.max(1));
        let ns = (len as u128 * 8 * 1_000_000_000 + rate / 2) / rate;
        Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
    }

    #[test]
    fn serialization_time_in_64_bits_is_the_128_bit_quotient() {
        // Both sides of the point where len x 8e9 + rate/2 leaves 64 bits.
        let edge = (u64::MAX / 8_000_000_000) as usize;
        let lens = [
            0,
            1,
            40,
            1500,
            65_535,
            edge - 1,
            edge,
            edge + 1,
            usize::MAX / 16,
        ];
        let rates = [
            1,
            3,
            9_600,
            11_000_000,
            54_000_000,
            1 << 40,
            u64::MAX - 1,
            u64::MAX,
        ];
        for len in lens {
            for rate in rates {
                assert_eq!(
                    serialization_time(len, rate),
                    wide(len, rate),
                    "{len} B at {rate} b/s"
                );
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn serialization_time_matches_wide_arithmetic(len in 0usize..1 << 36, rate in 1u64..) {
            proptest::prop_assert_eq!(serialization_time(len, rate), wide(len, rate));
        }
    }

    #[test]
    fn config_validation() {
        assert_eq!(
            LinkConfig::new(0, Duration::ZERO).validate(),
            Err(LinkConfigError::ZeroRate)
        );
        let bad = LinkConfig::new(1, Duration::ZERO).error(ErrorModelSpec::Bernoulli { loss: 2.0 });
        assert!(matches!(
            bad.validate(),
            Err(LinkConfigError::ErrorModel(_))
        ));
    }
}
