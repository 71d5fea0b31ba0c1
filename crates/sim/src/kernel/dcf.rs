//! The 802.11 distributed coordination function (DCF, IEEE 802.11-2007
//! clause 9.2) of a shared cell, in two forms:
//!
//! - the mean exchange ([`DcfTiming::overhead_for`], `contention = false`):
//!   every frame pays one whole exchange with the mean first backoff
//!   (CWmin/2 slots) and the medium is shared round robin, so there are no
//!   collisions and no retries. It is the MAC Song and Wang's ns-2 runs
//!   used for both of their networks (E1, E3);
//! - contention ([`Contention`], `contention = true`): every transmitter
//!   (the access point and each station) with a frame draws a random
//!   backoff from its contention window [0, CW], counts idle slots after
//!   DIFS, freezes while the medium is busy; transmitters whose backoff
//!   ends in the same slot collide; a failed frame doubles CW up to CWmax
//!   and is retried until the short (frames sent without RTS, and RTS
//!   frames) or long (data frames after RTS/CTS) retry limit, then
//!   discarded (dot11ShortRetryLimit 7, dot11LongRetryLimit 4, which are
//!   also ns-2's `ShortRetryLimit_` and `LongRetryLimit_`). This is the
//!   process Bianchi ("Performance analysis of the IEEE 802.11 distributed
//!   coordination function", IEEE JSAC 18(3), 2000) models; E7a uses it.
//!
//! One data frame of `L` bytes of IP packet costs
//!
//! ```text
//! [RTS + SIFS + CTS + SIFS +] DATA(L) + SIFS + ACK, then DIFS
//! ```
//!
//! RTS/CTS precedes a unicast data frame whose MAC frame (the packet, the
//! 24-byte MAC header and the 4-byte FCS) is longer than
//! `rts_threshold` bytes (dot11RTSThreshold; clause 9.2.6); 0, ns-2's
//! `RTSThreshold_` default, puts RTS/CTS before every frame. RTS (20
//! bytes), CTS and ACK (14 bytes each) go at the basic rate, DATA at the
//! data rate, each after the PHY's preamble and header.
//!
//! The PHYs ([`Phy`]): DSSS/HR-DSSS (802.11b, clauses 15 and 18, long
//! preamble; also ns-2's defaults, `tcl/lib/ns-default.tcl` 684-691:
//! CWMin_ 31, CWMax_ 1023, SlotTime_ 20 us, SIFS_ 10 us, PreambleLength_
//! 144 bits, PLCPHeaderLength_ 48 bits, PLCPDataRate_ 1 Mbit/s; DIFS =
//! SIFS + 2 slots, `mac/mac-802_11.h` 239) and OFDM (802.11a, clause 17:
//! slot 9 us, SIFS 16 us, CWmin 15, CWmax 1023, 20 us of preamble and
//! SIGNAL, 4 us symbols carrying 16 service bits, the frame and 6 tail
//! bits).
//!
//! Simplifications of the contention form, all as in Bianchi's model:
//! the channel is sensed without delay (no propagation or CCA time), so
//! only transmitters whose backoff ends in the same slot collide; after a
//! collision every transmitter waits DIFS (not EIFS or the ACK timeout)
//! and the medium is busy for the longest colliding frame; a transmitter
//! whose queue empties after a success does no post-backoff, and one that
//! gets a frame draws a fresh backoff, counted from the first slot
//! boundary DIFS after it (ns-2 also defers a frame that finds the medium
//! idle by DIFS and a random backoff). Broadcast frames are sent without
//! RTS/CTS, acknowledgement or retry. A frame the cell's error model
//! loses is a failed transmission like a collision (no ACK): it is
//! retried.

use std::time::Duration;

use rand::Rng;
use smallvec::SmallVec;

use crate::Time;
use crate::kernel::rng::SimRng;

/// CWmin: the mean first backoff is CWmin / 2 slots (the mean form).
const CW_MIN: u64 = 31;
/// RTS, CTS and ACK frames, bytes (frame control, duration, addresses,
/// FCS).
const RTS_BYTES: usize = 20;
const CTS_BYTES: usize = 14;
const ACK_BYTES: usize = 14;
/// MAC header (24 bytes) and FCS (4) of a data frame.
pub const DATA_MAC_BYTES: usize = 28;

/// The physical layer's timing (IEEE 802.11-2007, clauses 15, 17, 18).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Phy {
    /// 802.11b DSSS/HR-DSSS, long PLCP preamble and header (192 us at
    /// 1 Mbit/s): slot 20 us, SIFS 10 us, CW 31..1023.
    #[default]
    Dsss,
    /// 802.11a OFDM: slot 9 us, SIFS 16 us, CW 15..1023, 20 us of
    /// preamble and SIGNAL, 4 us symbols.
    Ofdm,
}

impl Phy {
    pub fn slot(self) -> Duration {
        match self {
            Phy::Dsss => Duration::from_micros(20),
            Phy::Ofdm => Duration::from_micros(9),
        }
    }

    pub fn sifs(self) -> Duration {
        match self {
            Phy::Dsss => Duration::from_micros(10),
            Phy::Ofdm => Duration::from_micros(16),
        }
    }

    /// DIFS = SIFS + 2 slots (clause 9.2.10).
    pub fn difs(self) -> Duration {
        self.sifs() + 2 * self.slot()
    }

    /// aCWmin and aCWmax.
    pub fn cw(self) -> (u32, u32) {
        match self {
            Phy::Dsss => (31, 1023),
            Phy::Ofdm => (15, 1023),
        }
    }

    /// Air time of a frame of `bytes` (MAC header and FCS included) at
    /// `rate_bps`, with the PHY's preamble and header.
    pub fn airtime(self, bytes: usize, rate_bps: u64) -> Duration {
        let rate = rate_bps.max(1);
        match self {
            Phy::Dsss => {
                Duration::from_micros(192)
                    + Duration::from_nanos(bytes as u64 * 8 * 1_000_000_000 / rate)
            }
            Phy::Ofdm => {
                // Data bits per 4 us symbol; rates below 250 kbit/s would
                // carry none: at least one.
                let per_symbol = (rate * 4 / 1_000_000).max(1);
                let bits = 16 + 8 * bytes as u64 + 6;
                Duration::from_micros(20 + 4 * bits.div_ceil(per_symbol))
            }
        }
    }
}

/// An 802.11 DCF contention MAC of a shared cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DcfTiming {
    pub phy: Phy,
    /// Rate of the control frames (RTS, CTS, ACK), bit/s.
    pub basic_rate_bps: u64,
    /// dot11RTSThreshold: RTS/CTS before unicast data frames longer than
    /// this (bytes of MAC frame); 0: before every frame.
    pub rts_threshold: u32,
    /// Random backoff, collisions and retries ([`Contention`]); false: the
    /// mean exchange shared round robin.
    pub contention: bool,
    /// dot11ShortRetryLimit (7).
    pub short_retry_limit: u32,
    /// dot11LongRetryLimit (4).
    pub long_retry_limit: u32,
}

impl Default for DcfTiming {
    fn default() -> Self {
        DcfTiming {
            phy: Phy::Dsss,
            basic_rate_bps: 1_000_000,
            rts_threshold: 0,
            contention: false,
            short_retry_limit: 7,
            long_retry_limit: 4,
        }
    }
}

impl DcfTiming {
    /// The mean form for a packet of `len` bytes: the exchange's time
    /// besides the data frame's MAC header and payload at the data rate
    /// (which the medium adds per packet), RTS/CTS included when the frame
    /// is longer than the threshold.
    pub fn overhead_for(&self, len: usize) -> Duration {
        let mut t = self.overhead_basic();
        if self.uses_rts(len, true) {
            let (sifs, at_basic) = (self.phy.sifs(), |b| {
                self.phy.airtime(b, self.basic_rate_bps)
            });
            t += at_basic(RTS_BYTES) + sifs + at_basic(CTS_BYTES) + sifs;
        }
        t
    }

    /// [`DcfTiming::overhead_for`] without RTS/CTS.
    fn overhead_basic(&self) -> Duration {
        let (slot, sifs) = (self.phy.slot(), self.phy.sifs());
        let plcp = self.phy.airtime(0, 1);
        let at_basic = |bytes: usize| self.phy.airtime(bytes, self.basic_rate_bps);
        let backoff = slot * CW_MIN as u32 / 2;
        self.phy.difs() + backoff + plcp + sifs + at_basic(ACK_BYTES)
    }

    /// RTS/CTS precedes a unicast packet of `len` bytes.
    pub fn uses_rts(&self, len: usize, unicast: bool) -> bool {
        unicast && (len + DATA_MAC_BYTES) as u64 > u64::from(self.rts_threshold)
    }

    /// Air time of the data frame carrying a packet of `len` bytes.
    pub fn data_airtime(&self, len: usize, rate_bps: u64) -> Duration {
        self.phy.airtime(len + DATA_MAC_BYTES, rate_bps)
    }

    /// Air time of an RTS frame.
    pub fn rts_airtime(&self) -> Duration {
        self.phy.airtime(RTS_BYTES, self.basic_rate_bps)
    }

    /// A whole successful exchange for a packet of `len` bytes, without
    /// the DIFS after it: [RTS SIFS CTS SIFS] DATA [SIFS ACK].
    pub fn exchange(&self, len: usize, rate_bps: u64, unicast: bool) -> Duration {
        let sifs = self.phy.sifs();
        let mut t = self.data_airtime(len, rate_bps);
        if unicast {
            t += sifs + self.phy.airtime(ACK_BYTES, self.basic_rate_bps);
        }
        if self.uses_rts(len, unicast) {
            t +=
                self.rts_airtime() + sifs + self.phy.airtime(CTS_BYTES, self.basic_rate_bps) + sifs;
        }
        t
    }

    /// The first part of an attempt that collides: the RTS, or the whole
    /// data frame without RTS/CTS.
    pub fn collision_airtime(&self, len: usize, rate_bps: u64, unicast: bool) -> Duration {
        if self.uses_rts(len, unicast) {
            self.rts_airtime()
        } else {
            self.data_airtime(len, rate_bps)
        }
    }
}

/// One transmitter's backoff state.
#[derive(Debug, Clone, Copy)]
struct Backoff {
    /// Idle slots still to count; `None`: no frame contending.
    slots: Option<u32>,
    /// When counting (re)starts: DIFS after the medium's last busy period.
    resume: Time,
    /// Current contention window CW (the backoff is uniform in 0..=CW).
    cw: u32,
    short_retries: u32,
    long_retries: u32,
}

/// What a failed attempt leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterFailure {
    /// The frame contends again (a new backoff from the doubled window).
    Retry,
    /// The retry limit is reached: the frame is discarded.
    Discard,
}

/// The backoff process of a shared medium's transmitters (the access
/// point is transmitter 0, station slot s is s + 1), with its own random
/// stream.
#[derive(Debug)]
pub struct Contention {
    mac: DcfTiming,
    st: Vec<Backoff>,
    rng: SimRng,
    /// Start of the current idle period's slot grid: DIFS after the end
    /// of the last busy period.
    grid: Time,
    /// What [`Contention::next_attempt`] returned, while no backoff has changed
    /// since (cleared by every change of a transmitter's `slots` or
    /// `resume`: `join`, `leave`, `busy`); the medium asks again for each
    /// frame queued while it is idle and when the backoff ends.
    cached: Option<Next>,
}

/// When the next attempt starts and who makes it (see
/// [`Contention::next_attempt`]).
type Next = Option<(Time, SmallVec<[usize; 2]>)>;

impl Contention {
    pub fn new(mac: DcfTiming, rng: SimRng) -> Self {
        Contention {
            mac,
            st: Vec::new(),
            rng,
            grid: Time::ZERO,
            cached: None,
        }
    }

    fn entry(&mut self, t: usize) -> &mut Backoff {
        let cw = self.mac.phy.cw().0;
        if self.st.len() <= t {
            self.st.resize(
                t + 1,
                Backoff {
                    slots: None,
                    resume: Time::ZERO,
                    cw,
                    short_retries: 0,
                    long_retries: 0,
                },
            );
        }
        &mut self.st[t]
    }

    /// Transmitter `t` has a frame at `now`: if it is not contending yet,
    /// it draws a backoff from its window, counted from the first slot
    /// boundary DIFS after `now` (or from the end of the current busy
    /// period's DIFS).
    pub fn join(&mut self, t: usize, now: Time) {
        let (grid, slot, difs) = (self.grid, self.mac.phy.slot(), self.mac.phy.difs());
        if self.entry(t).slots.is_some() {
            return;
        }
        let ready = now + difs;
        let resume = if ready <= grid {
            grid
        } else {
            let k = (ready - grid).as_nanos().div_ceil(slot.as_nanos());
            grid + slot * k as u32
        };
        let cw = self.st[t].cw;
        let draw = self.rng.gen_range(0..=cw);
        let b = &mut self.st[t];
        b.slots = Some(draw);
        b.resume = resume;
        self.cached = None;
    }

    /// Transmitter `t` no longer has a frame (its queue was purged).
    pub fn leave(&mut self, t: usize) {
        if let Some(b) = self.st.get_mut(t)
            && b.slots.take().is_some()
        {
            self.cached = None;
        }
    }

    /// When the next attempt starts and which transmitters make it (more
    /// than one: a collision); `None` when nobody contends.
    pub fn next_attempt(&mut self) -> Next {
        if let Some(n) = &self.cached {
            return n.clone();
        }
        let n = self.compute_next();
        self.cached = Some(n.clone());
        n
    }

    /// [`Contention::next_attempt`] computed from every transmitter's backoff.
    fn compute_next(&self) -> Next {
        // In nanoseconds: a slot is microseconds, a backoff at most CWmax
        // slots, so `resume + slot * k` is the `Time + Duration` sum.
        let slot = u64::try_from(self.mac.phy.slot().as_nanos()).unwrap_or(u64::MAX);
        let mut best: Option<(u64, SmallVec<[usize; 2]>)> = None;
        for (t, b) in self.st.iter().enumerate() {
            let Some(k) = b.slots else { continue };
            let at = b
                .resume
                .as_nanos()
                .saturating_add(slot.saturating_mul(u64::from(k)));
            match &mut best {
                Some((bt, who)) if *bt == at => who.push(t),
                Some((bt, _)) if *bt < at => {}
                _ => best = Some((at, SmallVec::from_slice(&[t]))),
            }
        }
        best.map(|(at, who)| (Time::from_nanos(at), who))
    }

    /// The medium is busy from `start` to `end` with an attempt of
    /// `who`: the others freeze the slots they have counted, and everyone
    /// resumes DIFS after `end`.
    pub fn busy(&mut self, start: Time, end: Time, who: &[usize]) {
        let slot = self.mac.phy.slot().as_nanos();
        self.grid = end + self.mac.phy.difs();
        self.cached = None;
        for (t, b) in self.st.iter_mut().enumerate() {
            if who.contains(&t) {
                b.slots = None;
                continue;
            }
            if let Some(k) = b.slots.as_mut() {
                if start > b.resume {
                    let counted = ((start - b.resume).as_nanos() / slot) as u32;
                    *k = k.saturating_sub(counted);
                }
                b.resume = self.grid;
            }
        }
    }

    /// Transmitter `t`'s frame was acknowledged (or was a broadcast): the
    /// window and the retry counts start again.
    pub fn success(&mut self, t: usize) {
        let cw = self.mac.phy.cw().0;
        let b = self.entry(t);
        b.cw = cw;
        b.short_retries = 0;
        b.long_retries = 0;
    }

    /// Transmitter `t`'s attempt failed (a collision, or no ACK); `long`:
    /// a data frame sent after RTS/CTS (the long retry count), else the
    /// short one. The window doubles; at the limit the frame is
    /// discarded and the window starts again.
    pub fn failure(&mut self, t: usize, long: bool) -> AfterFailure {
        let (cw_min, cw_max) = self.mac.phy.cw();
        let (short_limit, long_limit) = (self.mac.short_retry_limit, self.mac.long_retry_limit);
        let b = self.entry(t);
        let over = if long {
            b.long_retries += 1;
            b.long_retries >= long_limit
        } else {
            b.short_retries += 1;
            b.short_retries >= short_limit
        };
        if over {
            b.cw = cw_min;
            b.short_retries = 0;
            b.long_retries = 0;
            AfterFailure::Discard
        } else {
            b.cw = (2 * (b.cw + 1) - 1).min(cw_max);
            AfterFailure::Retry
        }
    }
}

/// Bianchi's saturation throughput (bit/s of `payload_bytes` packets) of
/// `n` stations (Bianchi 2000, equations 7, 9 and 13, with no propagation
/// delay): τ from the fixed point with p = 1 - (1 - τ)^(n-1), W = CWmin +
/// 1 and m = log2((CWmax + 1) / W) backoff stages.
pub fn bianchi_saturation_bps(mac: &DcfTiming, rate_bps: u64, payload_bytes: usize, n: u32) -> f64 {
    let (cw_min, cw_max) = mac.phy.cw();
    let w = f64::from(cw_min + 1);
    let m = (f64::from(cw_max + 1) / w).log2().round() as i32;
    let tau_of = |p: f64| {
        2.0 * (1.0 - 2.0 * p) / ((1.0 - 2.0 * p) * (w + 1.0) + p * w * (1.0 - (2.0 * p).powi(m)))
    };
    // Bisection on p in [0, 1): p - (1 - (1 - τ(p))^(n-1)) is increasing.
    let (mut lo, mut hi) = (0.0f64, 0.999_999f64);
    for _ in 0..200 {
        let p = (lo + hi) / 2.0;
        let f = p - (1.0 - (1.0 - tau_of(p)).powi(n as i32 - 1));
        if f > 0.0 {
            hi = p;
        } else {
            lo = p;
        }
    }
    let tau = tau_of((lo + hi) / 2.0);
    let n = f64::from(n);
    let p_tr = 1.0 - (1.0 - tau).powf(n);
    let p_s = n * tau * (1.0 - tau).powf(n - 1.0) / p_tr;
    let difs = mac.phy.difs().as_secs_f64();
    let ts = mac.exchange(payload_bytes, rate_bps, true).as_secs_f64() + difs;
    let tc = mac
        .collision_airtime(payload_bytes, rate_bps, true)
        .as_secs_f64()
        + difs;
    let sigma = mac.phy.slot().as_secs_f64();
    p_s * p_tr * (payload_bytes * 8) as f64
        / ((1.0 - p_tr) * sigma + p_tr * p_s * ts + p_tr * (1.0 - p_s) * tc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::link::serialization_time;

    #[test]
    fn a_1040_byte_packet_at_2_mbit_s_with_rts_cts_takes_5_8_ms() {
        // 50 + 310 + 352 + 10 + 304 + 10 + (192 + 4272) + 10 + 304 us.
        let dcf = DcfTiming::default();
        let t = dcf.overhead_for(1040) + serialization_time(1040 + DATA_MAC_BYTES, 2_000_000);
        assert_eq!(t, Duration::from_micros(5_814));
        // Without RTS/CTS: 676 us less (RTS, CTS, two SIFS).
        let basic = DcfTiming {
            rts_threshold: 2347,
            ..dcf
        };
        assert_eq!(
            dcf.overhead_for(1040) - basic.overhead_for(1040),
            Duration::from_micros(676)
        );
    }

    #[test]
    fn ofdm_frames_are_whole_symbols() {
        // 1500 + 28 bytes at 54 Mbit/s: 16 + 12 224 + 6 bits in 216-bit
        // symbols: 57 symbols, 228 us, plus 20 us.
        assert_eq!(
            Phy::Ofdm.airtime(1528, 54_000_000),
            Duration::from_micros(248)
        );
        // An ACK at 6 Mbit/s: 134 bits in 24-bit symbols: 6, 24 us + 20.
        assert_eq!(Phy::Ofdm.airtime(14, 6_000_000), Duration::from_micros(44));
        assert_eq!(Phy::Ofdm.difs(), Duration::from_micros(34));
    }

    #[test]
    fn the_threshold_decides_rts_per_frame() {
        let mac = DcfTiming {
            rts_threshold: 400,
            ..DcfTiming::default()
        };
        assert!(!mac.uses_rts(40, true), "a SACK goes without RTS");
        assert!(mac.uses_rts(1500, true));
        assert!(!mac.uses_rts(1500, false), "never for a broadcast");
    }

    /// Two transmitters whose backoffs end in the same slot collide; a
    /// third that joins later counts its slots on the same grid; the
    /// window doubles per failure up to the short retry limit.
    #[test]
    fn contention_in_sequence() {
        let mac = DcfTiming {
            contention: true,
            ..DcfTiming::default()
        };
        let slot = mac.phy.slot();
        let mut c = Contention::new(mac, crate::kernel::rng::stream(1, "t"));
        c.join(1, Time::ZERO);
        c.join(2, Time::ZERO);
        let (at, who) = c.next_attempt().unwrap();
        // Counting starts on the medium's slot grid, DIFS or less than a
        // slot more after the frame came.
        let start = c.st[1].resume;
        assert_eq!(start, c.st[2].resume);
        assert!(start >= Time::ZERO + mac.phy.difs() && start < Time::ZERO + mac.phy.difs() + slot);
        assert!(at >= start && (at - start).as_nanos().is_multiple_of(slot.as_nanos()));
        // Force a collision: both at 5 slots.
        c.st[1].slots = Some(5);
        c.st[2].slots = Some(5);
        c.cached = None;
        let (at, who2) = c.next_attempt().unwrap();
        assert_eq!(at, start + slot * 5);
        assert_eq!(who2.as_slice(), &[1, 2]);
        let _ = who;
        let end = at + mac.collision_airtime(1500, 11_000_000, true);
        c.busy(at, end, &who2);
        assert_eq!(c.failure(1, false), AfterFailure::Retry);
        assert_eq!(c.st[1].cw, 63);
        for _ in 0..5 {
            assert_eq!(c.failure(1, false), AfterFailure::Retry);
        }
        assert_eq!(c.st[1].cw, 1023, "CWmax");
        assert_eq!(c.failure(1, false), AfterFailure::Discard, "7th failure");
        assert_eq!(c.st[1].cw, 31);
        // A transmitter counting when the medium went busy keeps the rest.
        c.join(3, end);
        c.st[3].slots = Some(4);
        c.cached = None;
        let resume = c.st[3].resume;
        assert_eq!(resume, end + mac.phy.difs());
        let busy_at = resume + slot * 3;
        c.busy(busy_at, busy_at + Duration::from_micros(500), &[1]);
        assert_eq!(c.st[3].slots, Some(1), "3 of 4 slots counted");
        assert_eq!(
            c.st[3].resume,
            busy_at + Duration::from_micros(500) + mac.phy.difs()
        );
    }

    /// The cached answer of `next` is the one computed afresh, whatever
    /// the sequence of joins, leaves, attempts, successes and failures.
    #[test]
    fn next_is_cached_only_while_nothing_changes() {
        use proptest::prelude::*;
        proptest!(|(ops in proptest::collection::vec((0u8..6, 0usize..6, 0u64..3000), 0..200))| {
            let mac = DcfTiming {
                contention: true,
                ..DcfTiming::default()
            };
            let mut c = Contention::new(mac, crate::kernel::rng::stream(7, "t"));
            let mut now = Time::ZERO;
            for (op, t, dt) in ops {
                now += Duration::from_micros(dt);
                match op {
                    0 | 1 => c.join(t, now),
                    2 => c.leave(t),
                    3 => {
                        let who: Vec<usize> = c.next_attempt().map(|(_, w)| w.to_vec()).unwrap_or_default();
                        c.busy(now, now + Duration::from_micros(300), &who);
                    }
                    4 => c.success(t),
                    _ => {
                        let _ = c.failure(t, dt % 2 == 0);
                    }
                }
                let fresh = c.compute_next();
                prop_assert_eq!(c.next_attempt(), fresh.clone());
                prop_assert_eq!(c.next_attempt(), fresh);
            }
        });
    }
}
