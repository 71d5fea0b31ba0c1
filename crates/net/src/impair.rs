//! User-space link impairment on the driver's receive path: seeded
//! Bernoulli loss, duplication, and reordering (a datagram held back for a
//! random delay while later ones pass it).
//!
//! The kernel's `netem` qdisc would do this on a link, but it is not
//! available everywhere (containers without the `sch_netem` module, CI
//! runners); impairing what the driver reads works on any host, affects
//! only the stacks configured with it, and is reproducible from a seed.
//! It models a lossy, duplicating, reordering path (RFC 9260 sections
//! 6.2 and 6.10 require the receiver to cope with all three: duplicate
//! TSNs are reported in the SACK, out-of-order TSNs as gap blocks).
//! Off by default ([`StackConfig::impair`](crate::StackConfig::impair)
//! `None`): the driver then only tests an `Option` per batch.

use std::collections::VecDeque;
use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;
use std::time::Duration;

use msctp_proto::Time;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::udp::Datagram;

/// What to do to received datagrams. Parsed from
/// `loss=0.01,dup=0.005,reorder=0.01,delay=20ms,seed=7,held=1024` (any
/// subset, any order; probabilities in [0, 1]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImpairConfig {
    /// Probability that a datagram is dropped.
    pub loss: f64,
    /// Probability that a datagram is delivered twice.
    pub dup: f64,
    /// Probability that a datagram is held back (and so overtaken by the
    /// datagrams after it) for a delay uniform in (0, `delay`].
    pub reorder: f64,
    /// Longest time a reordered datagram is held back.
    pub delay: Duration,
    /// Seed of the generator (the same seed and the same arrivals give
    /// the same impairment).
    pub seed: u64,
    /// Most datagrams held back at once; beyond, a datagram drawn for
    /// reordering is delivered in order (bounds the memory the layer
    /// takes).
    pub max_held: usize,
}

impl Default for ImpairConfig {
    fn default() -> Self {
        ImpairConfig {
            loss: 0.0,
            dup: 0.0,
            reorder: 0.0,
            delay: Duration::from_millis(20),
            seed: 1,
            max_held: 1024,
        }
    }
}

impl fmt::Display for ImpairConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "loss={},dup={},reorder={},delay={}ms,seed={},held={}",
            self.loss,
            self.dup,
            self.reorder,
            self.delay.as_millis(),
            self.seed,
            self.max_held
        )
    }
}

impl FromStr for ImpairConfig {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let mut c = ImpairConfig::default();
        for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (k, v) = item
                .split_once('=')
                .ok_or_else(|| format!("`{item}`: expected KEY=VALUE"))?;
            let prob = |v: &str| -> Result<f64, String> {
                match v.parse::<f64>() {
                    Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
                    _ => Err(format!("`{item}`: a probability in [0, 1]")),
                }
            };
            match k {
                "loss" => c.loss = prob(v)?,
                "dup" => c.dup = prob(v)?,
                "reorder" => c.reorder = prob(v)?,
                "delay" => {
                    let ms = v.strip_suffix("ms").unwrap_or(v);
                    c.delay = ms
                        .parse::<u64>()
                        .ok()
                        .filter(|ms| *ms > 0 && *ms <= 10_000)
                        .map(Duration::from_millis)
                        .ok_or_else(|| format!("`{item}`: milliseconds in 1..=10000"))?;
                }
                "seed" => {
                    c.seed = v
                        .parse()
                        .map_err(|_| format!("`{item}`: an unsigned integer"))?
                }
                "held" => {
                    c.max_held = v
                        .parse()
                        .map_err(|_| format!("`{item}`: an unsigned integer"))?
                }
                _ => {
                    return Err(format!(
                        "`{k}`: unknown impairment (loss, dup, reorder, delay, seed, held)"
                    ));
                }
            }
        }
        Ok(c)
    }
}

/// What the layer did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ImpairStats {
    pub dropped: u64,
    pub duplicated: u64,
    pub reordered: u64,
}

/// A datagram held back: when it is due, which local address it came in
/// on, the datagram.
type Held = (Time, IpAddr, Datagram);

/// The impairment state of one driver (all its sockets).
#[derive(Debug)]
pub struct Impair {
    cfg: ImpairConfig,
    rng: StdRng,
    /// Held datagrams, in arrival order (each with its own due time).
    held: VecDeque<Held>,
    pub stats: ImpairStats,
}

impl Impair {
    pub fn new(cfg: ImpairConfig) -> Self {
        Impair {
            rng: StdRng::seed_from_u64(cfg.seed),
            cfg,
            held: VecDeque::new(),
            stats: ImpairStats::default(),
        }
    }

    /// Impairs the datagrams just read on the socket of `local` (in
    /// place): drops, duplicates and holds back some; appends those held
    /// for `local` that are due at `now`.
    pub fn apply(&mut self, now: Time, local: IpAddr, rx: &mut Vec<Datagram>) {
        if !rx.is_empty() {
            let fresh = std::mem::take(rx);
            for d in fresh {
                self.one(now, local, d, rx);
            }
        }
        self.release(now, local, rx);
    }

    fn one(&mut self, now: Time, local: IpAddr, d: Datagram, out: &mut Vec<Datagram>) {
        let c = self.cfg;
        if c.loss > 0.0 && self.rng.gen_bool(c.loss) {
            self.stats.dropped += 1;
            return;
        }
        if c.dup > 0.0 && self.rng.gen_bool(c.dup) {
            self.stats.duplicated += 1;
            out.push(d.clone());
        }
        if c.reorder > 0.0 && self.held.len() < c.max_held && self.rng.gen_bool(c.reorder) {
            self.stats.reordered += 1;
            let max = u64::try_from(c.delay.as_nanos()).unwrap_or(u64::MAX).max(1);
            let due = Time::from_nanos(now.as_nanos().saturating_add(self.rng.gen_range(1..=max)));
            self.held.push_back((due, local, d));
            return;
        }
        out.push(d);
    }

    /// Moves the datagrams held for `local` that are due at `now` to
    /// `out`, in arrival order.
    fn release(&mut self, now: Time, local: IpAddr, out: &mut Vec<Datagram>) {
        if self.held.is_empty() {
            return;
        }
        let mut keep = VecDeque::with_capacity(self.held.len());
        for h in self.held.drain(..) {
            if h.1 == local && h.0 <= now {
                out.push(h.2);
            } else {
                keep.push_back(h);
            }
        }
        self.held = keep;
    }

    /// Drops the datagrams due at `now` held for a local address not in
    /// `live` (its socket is gone: they could not have arrived).
    pub fn drop_orphans(&mut self, now: Time, live: &[IpAddr]) {
        self.held.retain(|h| h.0 > now || live.contains(&h.1));
    }

    /// When the next held datagram is due.
    pub fn next_due(&self) -> Option<Time> {
        self.held.iter().map(|h| h.0).min()
    }

    /// Datagrams held back now.
    pub fn held(&self) -> usize {
        self.held.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn dg(n: u32) -> Datagram {
        Datagram {
            from: "10.0.0.1:9899".parse().unwrap(),
            data: Bytes::copy_from_slice(&n.to_be_bytes()),
        }
    }

    fn num(d: &Datagram) -> u32 {
        u32::from_be_bytes(d.data[..4].try_into().unwrap())
    }

    const L: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 2));

    #[test]
    fn parses_and_refuses() {
        let c: ImpairConfig = "loss=0.01,dup=0.005,reorder=0.02,delay=30ms,seed=9"
            .parse()
            .unwrap();
        assert_eq!(c.loss, 0.01);
        assert_eq!(c.dup, 0.005);
        assert_eq!(c.reorder, 0.02);
        assert_eq!(c.delay, Duration::from_millis(30));
        assert_eq!(c.seed, 9);
        assert_eq!(c.to_string().parse::<ImpairConfig>().unwrap(), c);
        for bad in [
            "loss=2",
            "dup=-0.1",
            "jitter=1",
            "loss",
            "delay=0ms",
            "seed=x",
        ] {
            assert!(bad.parse::<ImpairConfig>().is_err(), "{bad}");
        }
    }

    #[test]
    fn nothing_configured_changes_nothing() {
        let mut i = Impair::new(ImpairConfig::default());
        let mut rx: Vec<Datagram> = (0..1000).map(dg).collect();
        i.apply(Time::from_nanos(0), L, &mut rx);
        assert_eq!(
            rx.iter().map(num).collect::<Vec<_>>(),
            (0..1000).collect::<Vec<_>>()
        );
        assert_eq!(i.stats, ImpairStats::default());
    }

    /// 100 000 datagrams through 1 % loss, 0.5 % duplication, 1 %
    /// reordering: the counts are near the probabilities, every datagram
    /// that was not dropped comes out (once, or twice if duplicated), and
    /// the held ones come out after later ones, once due.
    #[test]
    fn loss_dup_reorder_at_their_rates() {
        let cfg: ImpairConfig = "loss=0.01,dup=0.005,reorder=0.01,delay=20ms,seed=3"
            .parse()
            .unwrap();
        let mut i = Impair::new(cfg);
        let mut out = Vec::new();
        // One datagram every 10 us, read in batches of 10.
        let n = 100_000u32;
        for b in 0..n / 10 {
            let now = Time::from_nanos(u64::from(b) * 100_000);
            let mut rx: Vec<Datagram> = (b * 10..b * 10 + 10).map(dg).collect();
            i.apply(now, L, &mut rx);
            out.extend(rx.iter().map(num));
        }
        // The rest is released once due.
        assert!(i.held() > 0);
        let mut rx = Vec::new();
        i.apply(Time::from_nanos(u64::MAX / 2), L, &mut rx);
        out.extend(rx.iter().map(num));
        assert_eq!(i.held(), 0);
        let s = i.stats;
        let near = |x: u64, p: f64| (x as f64 - p * f64::from(n)).abs() < 0.2 * p * f64::from(n);
        assert!(near(s.dropped, 0.01), "{s:?}");
        assert!(near(s.duplicated, 0.005 * 0.99), "{s:?}");
        assert!(near(s.reordered, 0.01 * 0.99), "{s:?}");
        assert_eq!(
            out.len() as u64,
            u64::from(n) - s.dropped + s.duplicated,
            "each kept datagram once, the duplicated twice"
        );
        let inversions = out.windows(2).filter(|w| w[1] < w[0]).count() as u64;
        assert!(
            inversions >= s.reordered / 2,
            "held datagrams were overtaken: {inversions}"
        );
    }

    #[test]
    fn held_datagrams_wait_for_their_time_and_their_socket() {
        let cfg = ImpairConfig {
            reorder: 1.0,
            delay: Duration::from_millis(10),
            ..ImpairConfig::default()
        };
        let mut i = Impair::new(cfg);
        let mut rx = vec![dg(1)];
        i.apply(Time::from_nanos(0), L, &mut rx);
        assert!(rx.is_empty());
        let due = i.next_due().unwrap();
        assert!(due.as_nanos() > 0 && due.as_nanos() <= 10_000_000);
        // Another socket's read does not release it.
        let other: IpAddr = "10.0.1.2".parse().unwrap();
        i.apply(Time::from_nanos(u64::MAX / 2), other, &mut rx);
        assert!(rx.is_empty());
        // Not before its time.
        i.apply(Time::from_nanos(due.as_nanos() - 1), L, &mut rx);
        assert!(rx.is_empty());
        i.apply(due, L, &mut rx);
        assert_eq!(rx.iter().map(num).collect::<Vec<_>>(), [1]);
        assert_eq!(i.next_due(), None);
    }

    #[test]
    fn the_hold_is_bounded() {
        let cfg = ImpairConfig {
            reorder: 1.0,
            max_held: 8,
            ..ImpairConfig::default()
        };
        let mut i = Impair::new(cfg);
        let mut rx: Vec<Datagram> = (0..100).map(dg).collect();
        i.apply(Time::from_nanos(0), L, &mut rx);
        assert_eq!(i.held(), 8);
        assert_eq!(rx.len(), 92);
        i.drop_orphans(Time::from_nanos(u64::MAX / 2), &[L]);
        assert_eq!(i.held(), 8, "its socket is still there");
        i.drop_orphans(Time::from_nanos(u64::MAX / 2), &[]);
        assert_eq!(i.held(), 0);
    }
}
