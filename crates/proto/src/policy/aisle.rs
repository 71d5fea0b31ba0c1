//! AISLE, autonomic interface selection (docs/MODELS.md section 3; Budzisz et
//! al., section 4.2.2): the sender moves its data to another path when
//! the primary is congested, with a probability that makes a population
//! of senders spread over the paths in proportion to their capacities.
//!
//! Inputs, all from the association's path statistics
//! ([`crate::estimate`]): the capacity C of every path (packet pair) and
//! the available bandwidth B of the primary (Westwood+), with the time B
//! was last measured on each path (B of an alternate is known only from
//! when it last carried data).
//!
//! A congestion event on the primary is a loss the sender inferred (a
//! T3-rtx expiry or an entry into fast recovery after three missing
//! reports), or a Westwood+ sample, taken in congestion avoidance, that
//! leaves B1 below 10% of C1 (in slow start the acknowledged rate
//! measures the window's growth, not the path). On each event:
//!
//! 1. if the last swap was less than Th ago: nothing;
//! 2. with probability p = C2 / (C1 + C2) a swap is considered (a single
//!    draw from the caller-seeded generator; otherwise nothing);
//! 3. if B2 was measured less than Td ago, the swap happens only when
//!    B2 > θ·B1; otherwise (B2 unknown or stale) it happens.
//!
//! So a swap has probability p when B2 is stale and p·[B2 > θ·B1] when it
//! is fresh. (docs/MODELS.md's wording "else swap with probability p" is read
//! as this same single draw, not a second one, which would make p² and
//! break the capacity-proportional split AISLE is designed to reach.)
//! With more than two paths, C2 is the largest capacity among the usable
//! alternates and the swap goes there. Defaults: θ = 1.1, Th = 60 s,
//! Td = 120 s.

use std::net::IpAddr;
use std::time::Duration;

use rand_chacha::ChaCha8Rng;
use rand_core::RngCore;

use super::{Decision, FailoverOnly, HandoverPolicy, LinkEvent};
use crate::path::{PathState, PathStats};
use crate::{Association, Time};

/// AISLE's parameters. In a file (with the `serde` feature): `theta`,
/// `hold_down_s`, `freshness_s`, `low_bandwidth`, `draw_once_per_hold_down`,
/// each optional.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct AisleParams {
    /// θ: with a fresh B2, swap only when B2 > θ·B1 (1.1).
    pub theta: f64,
    /// Th: hold-down after a swap (60 s).
    #[cfg_attr(feature = "serde", serde(rename = "hold_down_s", with = "secs"))]
    pub hold_down: Duration,
    /// Td: B2 is fresh when measured less than this long ago (120 s).
    #[cfg_attr(feature = "serde", serde(rename = "freshness_s", with = "secs"))]
    pub freshness: Duration,
    /// B1 below this fraction of C1 is congestion (0.1).
    pub low_bandwidth: f64,
    /// At most one draw against p per hold-down period (false: a draw on
    /// every congestion event outside the hold-down). The source does not
    /// say how often a congested primary draws; when congestion events
    /// come many times per Th, drawing on each makes a swap all but
    /// certain soon after every hold-down, whatever p, and this option
    /// isolates that effect (E7's notes).
    pub draw_once_per_hold_down: bool,
}

impl AisleParams {
    /// Checks the ranges: θ and the fraction finite and >= 0, the
    /// durations at most a day.
    pub fn validate(&self) -> Result<(), &'static str> {
        if !(self.theta.is_finite() && self.theta >= 0.0) {
            return Err("theta must be a finite number >= 0");
        }
        if !(0.0..=1.0).contains(&self.low_bandwidth) {
            return Err("low_bandwidth must be in [0, 1]");
        }
        let day = Duration::from_secs(86_400);
        if self.hold_down > day || self.freshness > day {
            return Err("hold_down_s and freshness_s must be at most 86400");
        }
        Ok(())
    }
}

/// Durations as seconds (a float) in files.
#[cfg(feature = "serde")]
mod secs {
    use std::time::Duration;

    pub fn serialize<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let x = <f64 as serde::Deserialize>::deserialize(d)?;
        Duration::try_from_secs_f64(x).map_err(serde::de::Error::custom)
    }
}

impl Default for AisleParams {
    fn default() -> Self {
        AisleParams {
            theta: 1.1,
            hold_down: Duration::from_secs(60),
            freshness: Duration::from_secs(120),
            low_bandwidth: 0.1,
            draw_once_per_hold_down: false,
        }
    }
}

/// What AISLE knows about one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathView {
    pub addr: IpAddr,
    pub capacity_bps: Option<u64>,
    pub available_bps: Option<u64>,
    pub available_updated: Option<Time>,
}

impl PathView {
    pub fn of(p: &PathStats) -> PathView {
        PathView {
            addr: p.remote,
            capacity_bps: p.capacity_bps,
            available_bps: p.available_bps,
            available_updated: p.available_updated,
        }
    }
}

/// Why the primary counted as congested.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Congestion {
    /// T3-rtx expiry or fast recovery.
    Loss,
    /// B1 < 10% of C1.
    LowBandwidth,
}

/// Counters of the policy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AisleStats {
    pub congestion_events: u64,
    /// Events inside the hold-down.
    pub held_down: u64,
    /// Events without both capacities known.
    pub no_estimate: u64,
    /// Swaps considered (the draw below p) but refused: a fresh B2 not
    /// above θ·B1.
    pub refused_fresh: u64,
    pub swaps: u64,
}

/// The primary's counters last seen.
#[derive(Debug, Clone, Copy)]
struct Watch {
    addr: IpAddr,
    losses: u64,
    samples: u64,
}

/// The AISLE policy. Addresses follow the interfaces as with
/// [`FailoverOnly`]; the data path is chosen by the rule above.
#[derive(Debug)]
pub struct Aisle {
    pub params: AisleParams,
    rng: ChaCha8Rng,
    base: FailoverOnly,
    last_swap: Option<Time>,
    last_draw: Option<Time>,
    watch: Option<Watch>,
    pub stats: AisleStats,
}

impl Aisle {
    /// A policy drawing from `rng` (seeded by the caller: the engine has no
    /// randomness of its own).
    pub fn new(params: AisleParams, rng: ChaCha8Rng) -> Self {
        Aisle {
            params,
            rng,
            base: FailoverOnly::default(),
            last_swap: None,
            last_draw: None,
            watch: None,
            stats: AisleStats::default(),
        }
    }

    /// A policy drawing from a ChaCha8 generator seeded with `seed`.
    pub fn with_seed(params: AisleParams, seed: u64) -> Self {
        use rand_core::SeedableRng;
        Aisle::new(params, ChaCha8Rng::seed_from_u64(seed))
    }

    /// When this policy last moved the data.
    pub fn last_swap(&self) -> Option<Time> {
        self.last_swap
    }

    /// The decision rule on one congestion event of `primary`: the path to
    /// move to, if any.
    pub fn on_congestion(
        &mut self,
        now: Time,
        primary: &PathView,
        alternates: &[PathView],
    ) -> Option<IpAddr> {
        self.stats.congestion_events += 1;
        if self
            .last_swap
            .is_some_and(|t| now.saturating_since(t) < self.params.hold_down)
        {
            self.stats.held_down += 1;
            return None;
        }
        let alt = alternates
            .iter()
            .filter(|a| a.addr != primary.addr)
            .filter_map(|a| a.capacity_bps.map(|c| (a, c)))
            .max_by_key(|(_, c)| *c);
        let (Some(c1), Some((alt, c2))) = (primary.capacity_bps, alt) else {
            self.stats.no_estimate += 1;
            return None;
        };
        if self.params.draw_once_per_hold_down
            && self
                .last_draw
                .is_some_and(|t| now.saturating_since(t) < self.params.hold_down)
        {
            self.stats.held_down += 1;
            return None;
        }
        self.last_draw = Some(now);
        let p = c2 as f64 / (c1 as f64 + c2 as f64).max(1.0);
        let u = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        if u >= p {
            return None;
        }
        let b2_fresh = alt
            .available_bps
            .zip(alt.available_updated)
            .and_then(|(b, t)| (now.saturating_since(t) < self.params.freshness).then_some(b));
        if let Some(b2) = b2_fresh {
            let b1 = primary.available_bps.unwrap_or(0) as f64;
            if b2 as f64 <= self.params.theta * b1 {
                self.stats.refused_fresh += 1;
                return None;
            }
        }
        self.last_swap = Some(now);
        self.stats.swaps += 1;
        Some(alt.addr)
    }

    /// Looks for a congestion event on the path data goes to.
    fn congestion(&mut self, assoc: &Association) -> Option<(Congestion, PathStats)> {
        let primary = assoc.data_destination()?;
        let s = assoc.path_stats(primary)?;
        let losses = s.counters.t3_expirations + s.counters.fast_retransmissions;
        let samples = s.available_samples;
        let before = self.watch.replace(Watch {
            addr: primary,
            losses,
            samples,
        });
        let w = before.filter(|w| w.addr == primary)?;
        if losses > w.losses {
            return Some((Congestion::Loss, s));
        }
        let low = samples > w.samples
            && s.cwnd > s.ssthresh
            && s.capacity_bps
                .zip(s.available_bps)
                .is_some_and(|(c, b)| (b as f64) < self.params.low_bandwidth * c as f64);
        low.then_some((Congestion::LowBandwidth, s))
    }
}

impl HandoverPolicy for Aisle {
    fn name(&self) -> &'static str {
        "aisle"
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let s = self.stats;
        vec![
            ("congestion_events", s.congestion_events),
            ("held_down", s.held_down),
            ("no_estimate", s.no_estimate),
            ("refused_fresh", s.refused_fresh),
            ("swaps", s.swaps),
        ]
    }

    fn on_link_event(&mut self, now: Time, ev: &LinkEvent, assoc: &Association) -> Vec<Decision> {
        self.base.on_link_event(now, ev, assoc)
    }

    fn polls(&self) -> bool {
        true
    }

    fn poll(&mut self, now: Time, assoc: &Association) -> Vec<Decision> {
        let Some((_, primary)) = self.congestion(assoc) else {
            return Vec::new();
        };
        let alternates: Vec<PathView> = assoc
            .paths()
            .iter()
            .filter(|p| p.remote != primary.remote && p.confirmed && p.state == PathState::Active)
            .map(PathView::of)
            .collect();
        match self.on_congestion(now, &PathView::of(&primary), &alternates) {
            Some(a) => vec![Decision::UsePath(a)],
            None => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn view(addr: &str, c: u64, b: Option<(u64, Time)>) -> PathView {
        PathView {
            addr: ip(addr),
            capacity_bps: Some(c),
            available_bps: b.map(|x| x.0),
            available_updated: b.map(|x| x.1),
        }
    }

    /// Swaps out of `n` policies seeded 0..n, one congestion event each.
    fn swaps(n: u64, primary: PathView, alt: PathView, now: Time) -> u64 {
        (0..n)
            .filter(|&seed| {
                let mut a = Aisle::new(AisleParams::default(), ChaCha8Rng::seed_from_u64(seed));
                a.on_congestion(now, &primary, &[alt]).is_some()
            })
            .count() as u64
    }

    /// Within `z` standard deviations of a binomial(n, p) mean.
    fn within(k: u64, n: u64, p: f64, z: f64) -> bool {
        let mean = n as f64 * p;
        let sd = (n as f64 * p * (1.0 - p)).sqrt();
        (k as f64 - mean).abs() <= z * sd
    }

    #[test]
    fn aisle_swaps_with_probability_c2_over_c1_plus_c2() {
        let n = 20_000;
        for (c1, c2) in [
            (2_000_000u64, 1_000_000u64),
            (11_000_000, 54_000_000),
            (1, 1),
        ] {
            let p = c2 as f64 / (c1 + c2) as f64;
            let k = swaps(
                n,
                view("10.1.0.1", c1, None),
                view("10.2.0.1", c2, None),
                Time::ZERO,
            );
            assert!(
                within(k, n, p, 4.0),
                "C1 {c1} C2 {c2}: {k} swaps of {n}, expected p = {p:.3}"
            );
        }
    }

    #[test]
    fn aisle_with_a_fresh_b2_swaps_only_when_b2_beats_theta_b1() {
        let now = Time::from_secs(100);
        let n = 4_000;
        let p = 1.0 / 3.0;
        // B2 measured 10 s ago: fresh (Td = 120 s).
        let primary = view("10.1.0.1", 2_000_000, Some((1_000_000, now)));
        let better = view(
            "10.2.0.1",
            1_000_000,
            Some((1_200_000, Time::from_secs(90))),
        );
        let worse = view(
            "10.2.0.1",
            1_000_000,
            Some((1_050_000, Time::from_secs(90))),
        );
        assert!(within(swaps(n, primary, better, now), n, p, 4.0));
        assert_eq!(swaps(n, primary, worse, now), 0, "B2 <= 1.1 B1");
        // The same B2 measured 130 s ago is stale: swap with probability p.
        let stale = view("10.2.0.1", 1_000_000, Some((1_050_000, Time::from_secs(0))));
        let later = Time::from_secs(130);
        assert!(within(swaps(n, primary, stale, later), n, p, 4.0));
    }

    #[test]
    fn aisle_respects_the_hold_down() {
        let mut a = Aisle::new(AisleParams::default(), ChaCha8Rng::seed_from_u64(1));
        // C2 >> C1: p is almost 1.
        let primary = view("10.1.0.1", 1, None);
        let alt = view("10.2.0.1", u64::MAX / 4, None);
        assert_eq!(
            a.on_congestion(Time::from_secs(10), &primary, &[alt]),
            Some(ip("10.2.0.1"))
        );
        // Congestion on the new primary within Th = 60 s: no swap back.
        for s in [11, 30, 69] {
            assert_eq!(a.on_congestion(Time::from_secs(s), &alt, &[primary]), None);
        }
        assert_eq!(a.stats.held_down, 3);
        let back = view("10.1.0.1", u64::MAX / 4, None);
        let now = view("10.2.0.1", 1, None);
        assert_eq!(
            a.on_congestion(Time::from_secs(70), &now, &[back]),
            Some(ip("10.1.0.1")),
            "after Th the swap is allowed again"
        );
        // Without a capacity for the alternate, nothing.
        let unknown = PathView {
            capacity_bps: None,
            ..back
        };
        assert_eq!(
            a.on_congestion(Time::from_secs(500), &now, &[unknown]),
            None
        );
        assert_eq!(a.stats.no_estimate, 1);
    }

    /// With many congestion events per hold-down, a draw on each makes a
    /// swap all but certain; with one draw per Th a station swaps with
    /// probability p per period, as the capacity-proportional split needs.
    #[test]
    fn aisle_draws_once_per_hold_down_when_asked() {
        let primary = view("10.1.0.1", 9_000_000, None);
        let alt = view("10.2.0.1", 1_000_000, None);
        let (n, p) = (2_000u64, 0.1);
        let swapped_within_th = |once: bool| {
            (0..n)
                .filter(|&seed| {
                    let params = AisleParams {
                        draw_once_per_hold_down: once,
                        ..AisleParams::default()
                    };
                    let mut a = Aisle::new(params, ChaCha8Rng::seed_from_u64(seed));
                    // 50 congestion events, one a second, inside one Th.
                    (0..50).any(|s| {
                        a.on_congestion(Time::from_secs(s), &primary, &[alt])
                            .is_some()
                    })
                })
                .count() as u64
        };
        let every = swapped_within_th(false);
        assert!(every as f64 > 0.99 * n as f64, "{every} of {n}: 1 - 0.9^50");
        let once = swapped_within_th(true);
        assert!(within(once, n, p, 4.0), "{once} of {n}, expected p = {p}");
    }
}
