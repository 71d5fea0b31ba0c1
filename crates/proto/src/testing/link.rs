//! One direction of an address pair in the [`Pair`](super::Pair)'s
//! network: delay, rate with a drop-tail queue, loss, duplication,
//! reordering, up or down.

use std::time::Duration;

use crate::Time;

/// One direction of an address pair.
#[derive(Debug, Clone)]
pub struct Link {
    pub delay: Duration,
    /// Bits per second; `None`: infinitely fast.
    pub rate_bps: Option<u64>,
    /// Queue limit in packets (drop-tail) when `rate_bps` is set.
    pub queue: usize,
    pub loss: f64,
    pub duplicate: f64,
    /// Probability that a packet is held back by `reorder_delay` extra.
    pub reorder: f64,
    pub reorder_delay: Duration,
    /// Largest packet (SCTP packet bytes) the link carries; a larger one
    /// is dropped, with no Packet Too Big (an ICMP black hole).
    pub mtu: Option<usize>,
    pub up: bool,
    busy_until: Time,
    queued: Vec<Time>,
}

impl Link {
    /// A link that delays every packet by `delay` and loses none.
    pub fn new(delay: Duration) -> Self {
        Link {
            delay,
            rate_bps: None,
            queue: 1000,
            loss: 0.0,
            duplicate: 0.0,
            reorder: 0.0,
            reorder_delay: Duration::ZERO,
            mtu: None,
            up: true,
            busy_until: Time::ZERO,
            queued: Vec::new(),
        }
    }

    /// Serialises at `bps` behind a drop-tail queue of `queue` packets.
    pub fn rate(mut self, bps: u64, queue: usize) -> Self {
        self.rate_bps = Some(bps);
        self.queue = queue;
        self
    }

    /// Drops every packet longer than `mtu` bytes.
    pub fn mtu(mut self, mtu: usize) -> Self {
        self.mtu = Some(mtu);
        self
    }

    /// Loses each packet with probability `p`.
    pub fn loss(mut self, p: f64) -> Self {
        self.loss = p;
        self
    }

    /// When a packet of `len` bytes offered `now` leaves the link's queue,
    /// or `None` when the queue is full. Infinitely fast links send at
    /// once.
    pub(super) fn depart(&mut self, now: Time, len: usize) -> Option<Time> {
        let Some(bps) = self.rate_bps else {
            return Some(now);
        };
        self.queued.retain(|t| *t > now);
        if self.queued.len() >= self.queue {
            return None;
        }
        let start = self.busy_until.max(now);
        let tx = Duration::from_nanos((len as u64 * 8 * 1_000_000_000).div_ceil(bps));
        self.busy_until = start + tx;
        self.queued.push(self.busy_until);
        Some(self.busy_until)
    }
}
