//! Packetization Layer Path MTU Discovery of one path (RFC 8899; section
//! 6.2 for SCTP): the state machine of RFC 8899 section 5.2 (DISABLED,
//! BASE, SEARCHING, SEARCH_COMPLETE, ERROR), its probe counter and timers
//! (sections 5.1.1 to 5.1.3), black-hole detection (section 4.3) and
//! Packet Too Big messages taken as hints only (section 4.6).
//!
//! The association sends the probes (a HEARTBEAT padded to the probed
//! size by a PAD chunk, RFC 4820, RFC 8899 section 6.2.1.2) and tells this
//! machine what became of them; sizes are those of the SCTP packet
//! (common header included), as `AssociationConfig::path_mtu`.

use std::time::Duration;

use crate::Time;

/// BASE_PLPMTU (RFC 8899 section 5.1.2, 1200 bytes for SCTP, section
/// 6.2.1.1): what a path starts with and falls back to.
pub const BASE_PLPMTU: usize = 1200;

/// The search stops when the largest acknowledged and the smallest lost
/// probe sizes are this close (a declared choice: four 4-byte words, so a
/// search from the base to 1500 takes at most six probed sizes; RFC 8899
/// section 5.3.2 leaves the method open).
pub const SEARCH_STEP: usize = 16;

/// States of RFC 8899 section 5.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PmtuState {
    /// PLPMTUD off: the configured MTU is used.
    Disabled,
    /// Confirming that BASE_PLPMTU passes.
    Base,
    /// Probing larger sizes (or confirming the current one).
    Searching,
    /// The search ended; it starts again when PMTU_RAISE_TIMER expires.
    SearchComplete,
    /// Not even BASE_PLPMTU was acknowledged: BASE is kept and probed
    /// again every PROBE_TIMER (packets are not made smaller than the
    /// base, as SCTP packets of RFC 9260 need no IP fragmentation above
    /// it).
    Error,
}

/// A probe in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeInFlight {
    /// PROBED_SIZE (RFC 8899 section 5.1.3).
    pub size: usize,
    /// The nonce in the HEARTBEAT's information, echoed by its ACK.
    pub nonce: u64,
    /// PROBE_TIMER expiry: lost if not acknowledged by then.
    pub deadline: Time,
}

/// Counters of one path's PLPMTUD.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PmtuCounters {
    pub probes_sent: u64,
    pub probes_acked: u64,
    pub probes_lost: u64,
    /// Times the current PLPMTU stopped passing (section 4.3).
    pub black_holes: u64,
    pub ptb_received: u64,
    /// PTB messages that changed nothing (below the base, above what was
    /// probed).
    pub ptb_ignored: u64,
}

/// PLPMTUD of one path.
#[derive(Debug, Clone)]
pub struct Plpmtud {
    state: PmtuState,
    /// PLPMTU: the size packets to this path may have.
    plpmtu: usize,
    /// MAX_PLPMTU: the configured (interface) MTU.
    max: usize,
    /// The smallest size known not to pass (`max + 1` when none).
    high: usize,
    /// PROBE_COUNT: consecutive losses of probes of the current size.
    probe_count: u32,
    /// The size the next probe has when it differs from the search's
    /// choice: a PTB hint (section 4.6.2) to validate.
    hint: Option<usize>,
    /// The next probe confirms the current PLPMTU (a suspected black
    /// hole, a PTB smaller than it, a handover).
    confirming: bool,
    in_flight: Option<ProbeInFlight>,
    /// When the next probe is due (`Time::ZERO`: at once).
    next_probe_at: Option<Time>,
    /// PMTU_RAISE_TIMER expiry in SEARCH_COMPLETE.
    raise_at: Option<Time>,
    enabled: bool,
    max_probes: u32,
    probe_timer: Duration,
    raise_timer: Duration,
    pub stats: PmtuCounters,
}

impl Plpmtud {
    /// Off: the path's MTU is `mtu`.
    pub fn disabled(mtu: usize) -> Self {
        Plpmtud {
            state: PmtuState::Disabled,
            plpmtu: mtu,
            max: mtu,
            high: mtu + 1,
            probe_count: 0,
            hint: None,
            confirming: false,
            in_flight: None,
            next_probe_at: None,
            raise_at: None,
            enabled: false,
            max_probes: 1,
            probe_timer: Duration::from_secs(15),
            raise_timer: Duration::from_secs(600),
            stats: PmtuCounters::default(),
        }
    }

    /// On, for a new path: BASE state, the first probe due at once; the
    /// search goes up to `max`.
    pub fn new(cfg: &crate::config::PmtudConfig, max: usize) -> Self {
        if !cfg.enabled {
            return Self::disabled(max);
        }
        let mut p = Self::disabled(max);
        p.enabled = true;
        p.max_probes = cfg.max_probes;
        p.probe_timer = cfg.probe_timer;
        p.raise_timer = cfg.raise_timer;
        p.reset();
        p
    }

    pub fn state(&self) -> PmtuState {
        self.state
    }

    /// The PLPMTU: the largest packet for this path.
    pub fn mtu(&self) -> usize {
        self.plpmtu
    }

    /// The largest packet new DATA is cut for: the PLPMTU, or the base
    /// while the PLPMTU is in doubt (being confirmed after a PTB, a
    /// T3-rtx expiry or a handover): chunks cut now cannot be cut again
    /// if the doubt proves true (RFC 9260 section 6.9), and the PLPMTU
    /// itself changes only by probes.
    pub fn data_mtu(&self) -> usize {
        if self.confirming {
            BASE_PLPMTU.min(self.plpmtu)
        } else {
            self.plpmtu
        }
    }

    pub fn in_flight(&self) -> Option<ProbeInFlight> {
        self.in_flight
    }

    /// Back to BASE (a new path, or a new route under it): packets at most
    /// BASE_PLPMTU until probes say more; the first probe at once.
    pub fn reset(&mut self) {
        if !self.enabled {
            return;
        }
        self.state = PmtuState::Base;
        self.plpmtu = BASE_PLPMTU.min(self.max);
        self.high = self.max + 1;
        self.probe_count = 0;
        self.hint = None;
        self.confirming = false;
        self.in_flight = None;
        self.next_probe_at = Some(Time::ZERO);
        self.raise_at = None;
    }

    /// The path became the data path (a handover): the current PLPMTU is
    /// confirmed by a probe and the search runs again up to the maximum.
    pub fn restart(&mut self) {
        match self.state {
            PmtuState::Disabled | PmtuState::Base | PmtuState::Error => {}
            PmtuState::Searching | PmtuState::SearchComplete => {
                self.state = PmtuState::Searching;
                self.high = self.max + 1;
                self.probe_count = 0;
                self.confirming = self.plpmtu > BASE_PLPMTU;
                self.raise_at = None;
                if self.in_flight.is_none() {
                    self.next_probe_at = Some(Time::ZERO);
                }
            }
        }
    }

    /// Data sent at the PLPMTU went unacknowledged (a T3-rtx expiry): a
    /// possible black hole (section 4.3), confirmed or cleared by a probe
    /// of the PLPMTU.
    pub fn suspect_black_hole(&mut self) {
        if !matches!(self.state, PmtuState::Searching | PmtuState::SearchComplete)
            || self.plpmtu <= BASE_PLPMTU
            || self.confirming
        {
            return;
        }
        self.state = PmtuState::Searching;
        self.confirming = true;
        self.probe_count = 0;
        self.raise_at = None;
        // A larger probe in flight gives way to the confirmation.
        self.in_flight = None;
        self.next_probe_at = Some(Time::ZERO);
    }

    /// The earliest deadline: next probe, probe loss, raise timer.
    pub fn deadline(&self) -> Option<Time> {
        // A due probe waits for the one in flight.
        let next = self.next_probe_at.filter(|_| self.in_flight.is_none());
        earliest(next, self.timer_deadline())
    }

    /// The earliest of the probe-loss and raise timers, without the next
    /// probe's time: the deadline of a path whose probe cannot leave yet
    /// (its only source not yet added at the peer), which sends it when
    /// asked for output again.
    pub fn timer_deadline(&self) -> Option<Time> {
        earliest(self.in_flight.map(|p| p.deadline), self.raise_at)
    }

    /// Runs the timers due at `now`: a probe not acknowledged within
    /// PROBE_TIMER is lost (MAX_PROBES of one size: the size fails), the
    /// raise timer restarts the search.
    pub fn on_timeout(&mut self, now: Time) {
        if let Some(p) = self.in_flight
            && p.deadline <= now
        {
            self.in_flight = None;
            self.stats.probes_lost += 1;
            self.probe_count += 1;
            if self.probe_count >= self.max_probes {
                self.size_failed(p.size, now);
            }
            self.next_probe_at = Some(now);
        }
        if self.raise_at.is_some_and(|t| t <= now) {
            self.raise_at = None;
            self.state = PmtuState::Searching;
            self.high = self.max + 1;
            self.probe_count = 0;
            self.next_probe_at = Some(now);
        }
    }

    /// MAX_PROBES probes of `size` were lost.
    fn size_failed(&mut self, size: usize, now: Time) {
        self.probe_count = 0;
        match self.state {
            PmtuState::Base | PmtuState::Error => {
                self.state = PmtuState::Error;
                self.plpmtu = BASE_PLPMTU.min(self.max);
            }
            _ if size <= self.plpmtu => {
                // The current size no longer passes: black hole (section
                // 4.3); back to BASE, the search later bounded by it.
                self.stats.black_holes += 1;
                self.state = PmtuState::Base;
                self.plpmtu = BASE_PLPMTU.min(self.max);
                self.high = size.max(self.plpmtu + 1);
                self.confirming = false;
            }
            _ => {
                self.high = self.high.min(size);
                if self.hint == Some(size) {
                    self.hint = None;
                }
                self.check_complete(now);
            }
        }
    }

    /// The size of the next probe if one is due at `now` (none in flight).
    pub fn probe_due(&mut self, now: Time) -> Option<usize> {
        if self.in_flight.is_some() || self.next_probe_at.is_none_or(|t| t > now) {
            return None;
        }
        let size = match self.state {
            PmtuState::Disabled | PmtuState::SearchComplete => {
                self.next_probe_at = None;
                return None;
            }
            PmtuState::Base | PmtuState::Error => BASE_PLPMTU.min(self.max),
            PmtuState::Searching if self.confirming => self.plpmtu,
            PmtuState::Searching => match self.hint {
                Some(h) if h > self.plpmtu && h < self.high => h,
                _ if self.high > self.max => self.max,
                _ => ((self.plpmtu + self.high) / 2) & !3,
            },
        };
        Some(size)
    }

    /// The probe of `size` with `nonce` left at `now`.
    pub fn probe_sent(&mut self, size: usize, nonce: u64, now: Time) {
        self.stats.probes_sent += 1;
        self.next_probe_at = None;
        self.in_flight = Some(ProbeInFlight {
            size,
            nonce,
            deadline: now + self.probe_timer,
        });
    }

    /// A HEARTBEAT ACK with `nonce` arrived: if it answers the probe in
    /// flight, its size passes. Returns whether it did.
    pub fn on_probe_ack(&mut self, nonce: u64, now: Time) -> bool {
        let Some(p) = self.in_flight.filter(|p| p.nonce == nonce) else {
            return false;
        };
        self.in_flight = None;
        self.stats.probes_acked += 1;
        self.probe_count = 0;
        self.next_probe_at = Some(now);
        match self.state {
            PmtuState::Base | PmtuState::Error => {
                self.state = PmtuState::Searching;
                self.plpmtu = p.size;
            }
            PmtuState::Searching if self.confirming => {
                // The current size passes: a PTB smaller than it was
                // wrong, the loss was no black hole.
                self.confirming = false;
                if self.hint.is_some_and(|h| h <= self.plpmtu) {
                    self.hint = None;
                }
            }
            _ => {
                self.plpmtu = self.plpmtu.max(p.size);
                if self.hint.is_some_and(|h| h <= self.plpmtu) {
                    self.hint = None;
                }
            }
        }
        self.check_complete(now);
        true
    }

    /// An ICMP or ICMPv6 Packet Too Big said packets to this path may
    /// have at most `size` bytes (the SCTP packet's, IP and UDP headers
    /// taken off). Only a hint (RFC 8899 section 4.6): PLPMTU changes only
    /// when a probe is acknowledged. A size below the base or not below
    /// the probe in flight changes nothing; one below a probe in flight
    /// ends that probe (it is reported too large) and is probed next if
    /// above the PLPMTU; one below the PLPMTU makes a probe of the PLPMTU
    /// confirm it (lost MAX_PROBES times: a black hole, and the search
    /// starts at the hint). Returns whether the hint was taken.
    pub fn on_packet_too_big(&mut self, size: usize) -> bool {
        self.stats.ptb_received += 1;
        let size = size & !3;
        if !self.enabled
            || size < BASE_PLPMTU
            || matches!(self.state, PmtuState::Base | PmtuState::Error)
        {
            self.stats.ptb_ignored += 1;
            return false;
        }
        let mut taken = false;
        if let Some(p) = self.in_flight.filter(|p| self.confirming && size < p.size) {
            // A PTB while the PLPMTU is being confirmed: that probe is
            // lost (with ICMP, a black hole is found in round trips, not
            // in MAX_PROBES probe timers).
            self.in_flight = None;
            self.stats.probes_lost += 1;
            self.probe_count += 1;
            if self.probe_count >= self.max_probes {
                self.size_failed(p.size, Time::ZERO);
            }
            self.hint = Some(size);
            self.next_probe_at = Some(Time::ZERO);
            return true;
        }
        if let Some(p) = self.in_flight.filter(|p| size < p.size) {
            // The probe was too large: not counted as lost, not repeated;
            // nothing above the reported size is probed before the raise
            // timer (a forged PTB can only hold the search down, never
            // lower the PLPMTU without a probe).
            self.in_flight = None;
            self.high = self.high.min(p.size).min((size + 1).max(self.plpmtu + 1));
            self.probe_count = 0;
            self.next_probe_at = Some(Time::ZERO);
            taken = true;
        }
        if size > self.plpmtu && size < self.high {
            self.hint = Some(size);
            self.state = PmtuState::Searching;
            self.raise_at = None;
            self.next_probe_at.get_or_insert(Time::ZERO);
            taken = true;
        } else if size < self.plpmtu {
            self.hint = Some(size);
            self.state = PmtuState::Searching;
            self.confirming = true;
            self.probe_count = 0;
            self.raise_at = None;
            if self.in_flight.is_none() {
                self.next_probe_at = Some(Time::ZERO);
            }
            taken = true;
        }
        if !taken {
            self.stats.ptb_ignored += 1;
        }
        taken
    }

    /// SEARCH_COMPLETE once the gap between what passes and what does
    /// not is below [`SEARCH_STEP`]; the raise timer then runs.
    fn check_complete(&mut self, now: Time) {
        if self.state != PmtuState::Searching || self.confirming || self.hint.is_some() {
            return;
        }
        if self.plpmtu >= self.max || self.high.saturating_sub(self.plpmtu) <= SEARCH_STEP {
            self.state = PmtuState::SearchComplete;
            self.next_probe_at = None;
            self.raise_at = Some(now + self.raise_timer);
        }
    }
}

/// The earlier of two deadlines, either maybe absent (called on every
/// poll of the association's deadline: no iterator).
fn earliest(a: Option<Time>, b: Option<Time>) -> Option<Time> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PmtudConfig;

    /// Runs probes against a path that passes packets up to `limit`
    /// (`ptb`: a Packet Too Big for each larger one); returns the final
    /// PLPMTU and the probes sent.
    fn search(max: usize, limit: usize, ptb: bool) -> (Plpmtud, u64) {
        let mut p = Plpmtud::new(&PmtudConfig::on(), max);
        let mut now = Time::ZERO;
        for nonce in 0..200u64 {
            if p.state() == PmtuState::SearchComplete {
                break;
            }
            let Some(size) = p.probe_due(now) else {
                now = p.deadline().expect("a timer runs");
                p.on_timeout(now);
                continue;
            };
            p.probe_sent(size, nonce, now);
            if size <= limit {
                now += Duration::from_millis(10);
                assert!(p.on_probe_ack(nonce, now));
            } else if ptb {
                p.on_packet_too_big(limit);
            }
        }
        let sent = p.stats.probes_sent;
        (p, sent)
    }

    #[test]
    fn starts_at_the_base_and_finds_the_maximum_in_two_probes() {
        let p = Plpmtud::new(&PmtudConfig::on(), 1452);
        assert_eq!((p.state(), p.mtu()), (PmtuState::Base, BASE_PLPMTU));
        let (p, sent) = search(1452, 1452, false);
        assert_eq!(
            (p.state(), p.mtu(), sent),
            (PmtuState::SearchComplete, 1452, 2)
        );
    }

    #[test]
    fn search_converges_below_a_smaller_link() {
        let (p, _) = search(1452, 1252, false);
        assert_eq!(p.state(), PmtuState::SearchComplete);
        assert!(
            p.mtu() <= 1252 && p.mtu() + SEARCH_STEP >= 1252,
            "{}",
            p.mtu()
        );
        // Every failed size was probed MAX_PROBES times.
        assert_eq!(p.stats.probes_lost % 3, 0);
    }

    #[test]
    fn a_ptb_hint_is_probed_and_then_used() {
        let (p, sent) = search(1452, 1252, true);
        assert_eq!((p.mtu(), p.stats.probes_lost), (1252, 0));
        // BASE, the maximum (answered by the PTB), the hint.
        assert_eq!(sent, 3);
    }

    #[test]
    fn a_ptb_below_the_plpmtu_is_believed_only_if_the_probe_fails() {
        let (mut p, _) = search(1452, 1452, false);
        assert!(p.on_packet_too_big(1280));
        // Still 1452 until a probe says otherwise.
        assert_eq!(p.mtu(), 1452);
        let now = Time::from_secs(1);
        assert_eq!(p.probe_due(now), Some(1452));
        p.probe_sent(1452, 9, now);
        assert!(p.on_probe_ack(9, now));
        assert_eq!(p.mtu(), 1452);
        assert!(!p.on_packet_too_big(600));
        assert_eq!(p.stats.ptb_ignored, 1);
    }

    #[test]
    fn black_hole_falls_back_to_the_base() {
        let (mut p, _) = search(1452, 1452, false);
        p.suspect_black_hole();
        let mut now = Time::from_secs(1);
        for n in 0..3 {
            assert_eq!(p.probe_due(now), Some(1452));
            p.probe_sent(1452, 100 + n, now);
            now = p.deadline().unwrap();
            p.on_timeout(now);
        }
        assert_eq!((p.state(), p.mtu()), (PmtuState::Base, BASE_PLPMTU));
        assert_eq!(p.stats.black_holes, 1);
    }
}
