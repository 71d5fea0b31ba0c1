//! AISLE, autonomic interface selection (Budzisz et al., "Towards
//! transport-layer mobility: Evolution of SCTP multihoming", Computer
//! Communications 2008, section 4.2.2; docs/MODELS.md section 3): the
//! sender moves its data to another path when the primary is congested,
//! with a probability that makes a population of senders spread over the
//! paths in proportion to their capacities.
//!
//! Inputs, all from the association's path statistics
//! ([`crate::estimate`]): the capacity C of every path (packet pair) and
//! the available bandwidth B of the primary (Westwood+), with the time B
//! was last measured on each path (B of an alternate is known only from
//! when it last carried data).
//!
//! A congestion event on the primary (section 4.2.2.3) is a loss the
//! sender inferred (a T3-rtx expiry or an entry into fast recovery after
//! three missing reports), or a Westwood+ sample, taken in congestion
//! avoidance, that leaves B1 below 10% of C1 (in slow start the
//! acknowledged rate measures the window's growth, not the path). "As
//! soon as an AISLE station detects congestion on its primary path, it
//! performs the following path-selection procedure", so on each event
//! ([`AisleRule::Paper`], the default), with p_s = C2 / (C1 + C2):
//!
//! 1. Step 1: if a swap was made less than Th ago, nothing; else a swap
//!    is considered with probability p_s (a first draw; otherwise
//!    nothing, Step 3);
//! 2. Step 2: if B2 was measured less than Td ago (fresh), swap when
//!    B2 > θ·B1; otherwise (B2 unknown or stale) swap with probability
//!    p_s (a second draw);
//! 3. Step 3: end.
//!
//! So a swap has probability p_s² when B2 is stale and p_s·[B2 > θ·B1]
//! when it is fresh. [`AisleRule::SingleDraw`] keeps our earlier reading,
//! in which Step 2 with a stale B2 swaps outright (p_s per event).
//! With more than two paths, C2 is the largest capacity among the usable
//! alternates and the swap goes there. Defaults (section 4.2.2.4):
//! θ = 1.1, Th = 60 s, Td = 120 s.

use std::net::IpAddr;
use std::time::Duration;

use rand_chacha::ChaCha8Rng;
use rand_core::RngCore;

use super::{Decision, FailoverOnly, HandoverPolicy, LinkEvent};
use crate::path::{PathState, PathStats};
use crate::{Association, Time};

/// How many draws against p_s one congestion event makes (Budzisz et al.,
/// section 4.2.2.3). In files `rule = "paper"` or `"single_draw"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum AisleRule {
    /// The paper's Steps 1-3: Step 1 considers a swap with probability
    /// p_s; Step 2, when B2 is unknown or stale, swaps with probability
    /// p_s again (p_s² per event).
    #[default]
    Paper,
    /// One draw: a swap considered in Step 1 happens when B2 is unknown
    /// or stale (p_s per event); with a fresh B2 as in the paper.
    SingleDraw,
}

/// AISLE's parameters. In a file (with the `serde` feature): `theta`,
/// `hold_down_s`, `freshness_s`, `low_bandwidth`, `draw_once_per_hold_down`,
/// `rule`, each optional.
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
    /// At most one Step 1 per hold-down period (false, the paper's rule:
    /// Steps 1-3 on every congestion event outside the hold-down). A
    /// variant, not the paper's: when congestion events come many times
    /// per Th, drawing on each makes a swap likely soon after every
    /// hold-down, and this option isolates that effect (E7's notes).
    pub draw_once_per_hold_down: bool,
    /// The draws per congestion event: the paper's two (default) or one.
    pub rule: AisleRule,
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
            rule: AisleRule::Paper,
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
    /// Step 1's draw came out "consider a swap" (goto Step 2).
    pub considered: u64,
    /// Swaps considered (Step 2) but refused: a fresh B2 not above θ·B1.
    pub refused_fresh: u64,
    /// Swaps considered with B2 unknown or stale, refused by Step 2's
    /// second draw (paper rule only).
    pub refused_draw: u64,
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
        // Step 1: consider a swap with probability p_s.
        let p = c2 as f64 / (c1 as f64 + c2 as f64).max(1.0);
        if self.unit() >= p {
            return None;
        }
        self.stats.considered += 1;
        // Step 2.
        let b2_fresh = alt
            .available_bps
            .zip(alt.available_updated)
            .and_then(|(b, t)| (now.saturating_since(t) < self.params.freshness).then_some(b));
        match b2_fresh {
            Some(b2) => {
                let b1 = primary.available_bps.unwrap_or(0) as f64;
                if b2 as f64 <= self.params.theta * b1 {
                    self.stats.refused_fresh += 1;
                    return None;
                }
            }
            None => {
                if self.params.rule == AisleRule::Paper && self.unit() >= p {
                    self.stats.refused_draw += 1;
                    return None;
                }
            }
        }
        self.last_swap = Some(now);
        self.stats.swaps += 1;
        Some(alt.addr)
    }

    /// A uniform draw in [0, 1) from the policy's generator (53 bits).
    fn unit(&mut self) -> f64 {
        unit(&mut self.rng)
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

/// A uniform number in [0, 1) from the top 53 bits of the next `u64`.
pub(crate) fn unit(rng: &mut impl RngCore) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
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
            ("considered", s.considered),
            ("refused_fresh", s.refused_fresh),
            ("refused_draw", s.refused_draw),
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
    fn swaps_with(rule: AisleRule, n: u64, primary: PathView, alt: PathView, now: Time) -> u64 {
        let params = AisleParams {
            rule,
            ..AisleParams::default()
        };
        (0..n)
            .filter(|&seed| {
                let mut a = Aisle::new(params, ChaCha8Rng::seed_from_u64(seed));
                a.on_congestion(now, &primary, &[alt]).is_some()
            })
            .count() as u64
    }

    fn swaps(n: u64, primary: PathView, alt: PathView, now: Time) -> u64 {
        swaps_with(AisleRule::Paper, n, primary, alt, now)
    }

    /// Within `z` standard deviations of a binomial(n, p) mean.
    fn within(k: u64, n: u64, p: f64, z: f64) -> bool {
        let mean = n as f64 * p;
        let sd = (n as f64 * p * (1.0 - p)).sqrt();
        (k as f64 - mean).abs() <= z * sd
    }

    /// With B2 unknown, the paper's Steps 1 and 2 draw twice: a swap with
    /// p_s²; the single-draw variant swaps with p_s. Each within 3
    /// standard deviations of 20 000 seeded trials.
    #[test]
    fn aisle_swaps_with_p_s_squared_and_single_draw_with_p_s() {
        let n = 20_000;
        for (c1, c2) in [
            (2_000_000u64, 1_000_000u64),
            (11_000_000, 54_000_000),
            (1, 1),
        ] {
            let p = c2 as f64 / (c1 + c2) as f64;
            let (primary, alt) = (view("10.1.0.1", c1, None), view("10.2.0.1", c2, None));
            let k = swaps(n, primary, alt, Time::ZERO);
            assert!(
                within(k, n, p * p, 3.0),
                "paper, C1 {c1} C2 {c2}: {k} swaps of {n}, expected p_s^2 = {:.3}",
                p * p
            );
            let k = swaps_with(AisleRule::SingleDraw, n, primary, alt, Time::ZERO);
            assert!(
                within(k, n, p, 3.0),
                "single draw, C1 {c1} C2 {c2}: {k} swaps of {n}, expected p_s = {p:.3}"
            );
        }
    }

    /// The steps one by one, on draws known in advance: the policy's
    /// generator is a seeded ChaCha8, so a mirror of it gives the numbers
    /// Step 1 and Step 2 will draw.
    #[test]
    fn aisle_steps_1_to_3_in_sequence() {
        use rand_core::SeedableRng;
        // A seed whose first two draws rise: u0 < u1.
        let (seed, u0, u1) = (0..)
            .map(|seed| {
                let mut mirror = ChaCha8Rng::seed_from_u64(seed);
                (seed, unit(&mut mirror), unit(&mut mirror))
            })
            .find(|(_, u0, u1)| u1 - u0 > 0.2)
            .unwrap();
        // p_s = C2 / (C1 + C2) between them.
        let c2 = 1_000_000u64;
        let c1 = (c2 as f64 * (1.0 - (u0 + u1) / 2.0) / ((u0 + u1) / 2.0)) as u64;
        let p = c2 as f64 / (c1 + c2) as f64;
        assert!(u0 < p && p < u1, "{u0} < {p} < {u1}");
        let mut a = Aisle::with_seed(AisleParams::default(), seed);
        let primary = view("10.1.0.1", c1, Some((100_000, Time::ZERO)));
        let alt = view("10.2.0.1", c2, None);
        let t1 = Time::from_secs(1);
        // Congestion on the primary, no swap in the past Th, B2 unknown.
        // Step 1: u0 < p_s, a swap is considered (goto 2). Step 2: B2
        // unknown, u1 >= p_s: do nothing. Step 3.
        assert_eq!(a.on_congestion(t1, &primary, &[alt]), None);
        assert_eq!((a.stats.considered, a.stats.refused_draw), (1, 1));
        // The single-draw variant swaps on the same first draw.
        let params = AisleParams {
            rule: AisleRule::SingleDraw,
            ..AisleParams::default()
        };
        let mut once = Aisle::with_seed(params, seed);
        assert_eq!(
            once.on_congestion(t1, &primary, &[alt]),
            Some(ip("10.2.0.1"))
        );
        assert_eq!(a.stats.swaps, 0);
        // A fresh B2 of 1.2 B1: Step 2 compares instead of drawing.
        let mut a = Aisle::with_seed(AisleParams::default(), seed);
        let fresh = view("10.2.0.1", c2, Some((120_000, t1)));
        let mut events = 0;
        let swapped = loop {
            events += 1;
            if let Some(to) = a.on_congestion(t1, &primary, &[fresh]) {
                break to;
            }
            assert!(events < 100, "p_s = {p}: no swap in 100 events");
        };
        assert_eq!(swapped, ip("10.2.0.1"));
        assert_eq!(a.stats.considered, 1, "one Step 2, which swapped");
        assert_eq!(a.stats.refused_draw + a.stats.refused_fresh, 0);
        // Step 1 after a swap: within Th nothing is drawn.
        let before = a.stats;
        let t2 = t1 + Duration::from_secs(59);
        assert_eq!(a.on_congestion(t2, &fresh, &[primary]), None);
        assert_eq!(a.stats.held_down, before.held_down + 1);
        assert_eq!(a.stats.considered, before.considered);
        // A fresh B2 not above θ·B1 (1.05 B1): Step 2 refuses.
        let mut a = Aisle::with_seed(AisleParams::default(), seed);
        let worse = view("10.2.0.1", c2, Some((105_000, t1)));
        for _ in 0..200 {
            assert_eq!(a.on_congestion(t1, &primary, &[worse]), None);
        }
        assert_eq!(a.stats.refused_fresh, a.stats.considered);
        assert!(a.stats.considered > 0);
    }

    #[test]
    fn aisle_with_a_fresh_b2_swaps_only_when_b2_beats_theta_b1() {
        let now = Time::from_secs(100);
        let n = 4_000;
        let p = 1.0 / 3.0;
        // B2 measured 10 s ago: fresh (Td = 120 s): one draw, then the
        // comparison.
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
        assert!(within(swaps(n, primary, better, now), n, p, 3.0));
        assert_eq!(swaps(n, primary, worse, now), 0, "B2 <= 1.1 B1");
        // The same B2 measured 130 s ago is stale: Step 2 draws again.
        let stale = view("10.2.0.1", 1_000_000, Some((1_050_000, Time::from_secs(0))));
        let later = Time::from_secs(130);
        assert!(within(swaps(n, primary, stale, later), n, p * p, 3.0));
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

    /// With many congestion events per hold-down, Steps 1-3 on each make a
    /// swap likely; with one Step 1 per Th a station swaps with p_s² per
    /// period.
    #[test]
    fn aisle_draws_once_per_hold_down_when_asked() {
        let primary = view("10.1.0.1", 7_000_000, None);
        let alt = view("10.2.0.1", 3_000_000, None);
        let (n, p) = (2_000u64, 0.3f64);
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
        let q = 1.0 - (1.0 - p * p).powi(50);
        assert!(
            within(every, n, q, 3.0),
            "{every} of {n}: 1 - (1 - p_s^2)^50"
        );
        let once = swapped_within_th(true);
        assert!(
            within(once, n, p * p, 3.0),
            "{once} of {n}, expected p_s^2 = {}",
            p * p
        );
    }
}
