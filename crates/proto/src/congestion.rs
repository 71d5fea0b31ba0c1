//! Per-destination congestion control, RFC 9260 section 7.2: slow start,
//! congestion avoidance, fast retransmit / fast recovery and the reaction to
//! retransmission timeouts, plus the hook for a bandwidth-aware start after
//! a handover (docs/MODELS.md section 3).

/// Congestion state of one destination.
#[derive(Debug, Clone)]
pub struct Congestion {
    mtu: u32,
    /// Congestion window in bytes.
    pub cwnd: u32,
    /// Slow-start threshold in bytes.
    pub ssthresh: u32,
    partial_bytes_acked: u32,
    /// Every change of (cwnd, ssthresh), kept only while a path trace is
    /// on ([`Congestion::record_changes`]); `None` costs one branch per
    /// change.
    trail: Option<Vec<WindowChange>>,
}

/// What changed a destination's window (the rule of RFC 9260 section 7.2
/// or the extension that applied).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowCause {
    /// Slow start or congestion avoidance on a SACK (sections 7.2.1, 7.2.2).
    Ack,
    /// Fast retransmit (section 7.2.4).
    FastRetransmit,
    /// T3-rtx expiry (section 7.2.3).
    Timeout,
    /// Idle for one RTO (section 7.2.1).
    Idle,
    /// The window limit from the capacity estimate.
    Limit,
    /// Slow start left on a delay signal.
    EndSlowStart,
    /// Started at a known limit.
    StartAt,
    /// Bandwidth-aware start from a bandwidth-delay product.
    Bdp,
}

impl WindowCause {
    /// A short lower-case name for traces.
    pub fn label(self) -> &'static str {
        match self {
            WindowCause::Ack => "ack",
            WindowCause::FastRetransmit => "fast_retransmit",
            WindowCause::Timeout => "timeout",
            WindowCause::Idle => "idle",
            WindowCause::Limit => "limit",
            WindowCause::EndSlowStart => "end_slow_start",
            WindowCause::StartAt => "start_at",
            WindowCause::Bdp => "bdp",
        }
    }
}

/// One change of a destination's window: the values after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowChange {
    pub cwnd: u32,
    pub ssthresh: u32,
    pub cause: WindowCause,
}

/// Which phase the window is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    SlowStart,
    CongestionAvoidance,
}

impl Congestion {
    /// A new destination: cwnd as given (RFC 9260 section 7.2.1), ssthresh
    /// arbitrarily high (the peer's receiver window, at most u32::MAX).
    pub fn new(mtu: usize, initial_cwnd: u32, ssthresh: u32) -> Self {
        Congestion {
            mtu: mtu as u32,
            cwnd: initial_cwnd,
            ssthresh,
            partial_bytes_acked: 0,
            trail: None,
        }
    }

    /// Starts (or stops) keeping every change of (cwnd, ssthresh) for an
    /// observer ([`Congestion::take_changes`]).
    pub fn record_changes(&mut self, on: bool) {
        self.trail = on.then(Vec::new);
    }

    /// Whether changes are being kept.
    pub fn records_changes(&self) -> bool {
        self.trail.is_some()
    }

    /// The changes kept since the last call, oldest first.
    pub fn take_changes(&mut self) -> Vec<WindowChange> {
        self.trail.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Notes the window after a rule ran, if it moved and changes are kept.
    fn note(&mut self, before: (u32, u32), cause: WindowCause) {
        if let Some(t) = &mut self.trail
            && before != (self.cwnd, self.ssthresh)
        {
            t.push(WindowChange {
                cwnd: self.cwnd,
                ssthresh: self.ssthresh,
                cause,
            });
        }
    }

    pub fn mtu(&self) -> u32 {
        self.mtu
    }

    pub fn phase(&self) -> Phase {
        if self.cwnd <= self.ssthresh {
            Phase::SlowStart
        } else {
            Phase::CongestionAvoidance
        }
    }

    /// New data acknowledged on this destination (section 7.2.1 and 7.2.2).
    ///
    /// `bytes_acked`: bytes of DATA newly acknowledged that were sent to this
    /// destination; `flight_before`: its flight size before the SACK;
    /// `cum_advanced`: the SACK moved the Cumulative TSN Ack Point;
    /// `in_fast_recovery`: the association is in fast recovery for this
    /// destination.
    pub fn on_ack(
        &mut self,
        bytes_acked: u32,
        flight_before: u32,
        cum_advanced: bool,
        in_fast_recovery: bool,
    ) {
        let before = (self.cwnd, self.ssthresh);
        self.grow(bytes_acked, flight_before, cum_advanced, in_fast_recovery);
        self.note(before, WindowCause::Ack);
    }

    /// The growth rules of [`Congestion::on_ack`].
    fn grow(
        &mut self,
        bytes_acked: u32,
        flight_before: u32,
        cum_advanced: bool,
        in_fast_recovery: bool,
    ) {
        if bytes_acked == 0 {
            return;
        }
        // "Fully utilised": the window stopped the sender, which sends
        // while the flight size is below cwnd (section 6.1 rule B).
        let fully_utilised = flight_before >= self.cwnd;
        match self.phase() {
            Phase::SlowStart => {
                if fully_utilised && cum_advanced && !in_fast_recovery {
                    self.cwnd = self.cwnd.saturating_add(bytes_acked.min(self.mtu));
                }
            }
            Phase::CongestionAvoidance => {
                if !cum_advanced {
                    return;
                }
                self.partial_bytes_acked = self.partial_bytes_acked.saturating_add(bytes_acked);
                if self.partial_bytes_acked >= self.cwnd && fully_utilised {
                    self.partial_bytes_acked -= self.cwnd;
                    self.cwnd = self.cwnd.saturating_add(self.mtu);
                }
            }
        }
    }

    /// All data sent to this destination is acknowledged: partial_bytes_acked
    /// resets (section 7.2.2).
    pub fn on_all_acked(&mut self) {
        self.partial_bytes_acked = 0;
    }

    /// Entering fast recovery after three missing reports (section 7.2.4):
    /// ssthresh = max(cwnd/2, 4*MTU), cwnd = ssthresh.
    pub fn on_fast_retransmit(&mut self) {
        let before = (self.cwnd, self.ssthresh);
        self.ssthresh = (self.cwnd / 2).max(4 * self.mtu);
        self.cwnd = self.ssthresh;
        self.partial_bytes_acked = 0;
        self.note(before, WindowCause::FastRetransmit);
    }

    /// T3-rtx expiry (section 7.2.3): ssthresh = max(cwnd/2, 4*MTU),
    /// cwnd = 1 MTU.
    pub fn on_timeout(&mut self) {
        let before = (self.cwnd, self.ssthresh);
        self.ssthresh = (self.cwnd / 2).max(4 * self.mtu);
        self.cwnd = self.mtu;
        self.partial_bytes_acked = 0;
        self.note(before, WindowCause::Timeout);
    }

    /// No data sent for one RTO (section 7.2.1): cwnd = max(cwnd/2, 4*MTU).
    pub fn on_idle(&mut self) {
        let before = (self.cwnd, self.ssthresh);
        self.cwnd = (self.cwnd / 2).max(4 * self.mtu);
        self.note(before, WindowCause::Idle);
    }

    /// Holds the window at most `max` bytes (the window limit from the
    /// capacity estimate, docs/DESIGN.md): cwnd and ssthresh are lowered to
    /// it, so that a window at the limit is in congestion avoidance and
    /// grows no further.
    pub fn limit(&mut self, max: u32) {
        let before = (self.cwnd, self.ssthresh);
        self.cwnd = self.cwnd.min(max);
        self.ssthresh = self.ssthresh.min(max);
        self.note(before, WindowCause::Limit);
    }

    /// Leaves slow start for congestion avoidance at the present window
    /// (a delay signal said the bottleneck's queue is building): ssthresh
    /// just below cwnd, which then grows by one MTU per window.
    pub fn end_slow_start(&mut self) {
        let before = (self.cwnd, self.ssthresh);
        self.ssthresh = self.cwnd.saturating_sub(1);
        self.note(before, WindowCause::EndSlowStart);
    }

    /// Starts the window at `w` bytes (cwnd = ssthresh = w), as a path new
    /// data moved to that has a known limit.
    pub fn start_at(&mut self, w: u32) {
        let before = (self.cwnd, self.ssthresh);
        self.cwnd = w;
        self.ssthresh = w;
        self.partial_bytes_acked = 0;
        self.note(before, WindowCause::StartAt);
    }

    /// Bandwidth-aware start (docs/MODELS.md section 3): the window of a path
    /// that becomes primary is set from its estimated bandwidth-delay
    /// product instead of slow start, never below the initial window; the
    /// path continues in congestion avoidance from there (ssthresh = cwnd),
    /// so it neither slow-starts past the capacity nor keeps a window grown
    /// on a faster network.
    pub fn set_from_bdp(&mut self, bdp_bytes: u64, initial_cwnd: u32) {
        let before = (self.cwnd, self.ssthresh);
        let w = bdp_bytes.min(u32::MAX as u64) as u32;
        self.cwnd = w.max(initial_cwnd);
        self.ssthresh = self.cwnd;
        self.partial_bytes_acked = 0;
        self.note(before, WindowCause::Bdp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MTU: usize = 1000;

    #[test]
    fn slow_start_grows_by_at_most_one_mtu_per_ack_when_window_is_full() {
        let mut c = Congestion::new(MTU, 3000, u32::MAX);
        c.on_ack(2000, 3000, true, false);
        assert_eq!(c.cwnd, 4000, "increase capped at one MTU");
        c.on_ack(500, 4000, true, false);
        assert_eq!(c.cwnd, 4500, "increase by bytes acked when smaller");
        c.on_ack(1000, 1000, true, false);
        assert_eq!(c.cwnd, 4500, "no growth when the window was not used");
        c.on_ack(1000, 4500, false, false);
        assert_eq!(c.cwnd, 4500, "no growth without cumulative progress");
        c.on_ack(1000, 4500, true, true);
        assert_eq!(c.cwnd, 4500, "no growth in fast recovery");
    }

    #[test]
    fn a_limit_holds_the_window_and_a_start_sets_both() {
        let mut c = Congestion::new(MTU, 3000, u32::MAX);
        c.limit(2500);
        assert_eq!((c.cwnd, c.ssthresh), (2500, 2500));
        c.limit(10_000);
        assert_eq!(
            (c.cwnd, c.ssthresh),
            (2500, 2500),
            "a higher limit grows nothing"
        );
        c.start_at(7000);
        assert_eq!((c.cwnd, c.ssthresh), (7000, 7000));
        c.end_slow_start();
        assert_eq!(c.phase(), Phase::CongestionAvoidance);
        c.on_ack(1000, 7000, true, false);
        assert_eq!(c.cwnd, 7000, "one MTU per window from here");
    }

    /// ETSI sctp-d-v-8-9: after a T3-rtx timeout (cwnd = 1 MTU) the SACK
    /// of the one retransmitted chunk, smaller than the MTU, does not grow
    /// cwnd: the sender could still have sent more under the window.
    #[test]
    fn a_window_not_filled_does_not_grow() {
        let mut c = Congestion::new(1480, 1480, 5920);
        c.on_ack(1452, 1452, true, false);
        assert_eq!(c.cwnd, 1480);
        c.on_ack(1452, 2904, true, false);
        assert_eq!(c.cwnd, 2932);
    }

    #[test]
    fn congestion_avoidance_adds_one_mtu_per_window() {
        let mut c = Congestion::new(MTU, 4000, 3000);
        assert_eq!(c.phase(), Phase::CongestionAvoidance);
        for _ in 0..3 {
            c.on_ack(1000, 4000, true, false);
        }
        assert_eq!(c.cwnd, 4000);
        c.on_ack(1000, 4000, true, false);
        assert_eq!(c.cwnd, 5000);
    }

    #[test]
    fn losses_halve_or_collapse_the_window() {
        let mut c = Congestion::new(MTU, 20_000, u32::MAX);
        c.on_fast_retransmit();
        assert_eq!((c.cwnd, c.ssthresh), (10_000, 10_000));
        c.on_timeout();
        assert_eq!((c.cwnd, c.ssthresh), (1000, 5000));
        c.on_timeout();
        assert_eq!(
            (c.cwnd, c.ssthresh),
            (1000, 4000),
            "ssthresh floor is 4 MTU"
        );
        let mut idle = Congestion::new(MTU, 20_000, u32::MAX);
        idle.on_idle();
        assert_eq!(idle.cwnd, 10_000);
        idle.on_idle();
        idle.on_idle();
        assert_eq!(idle.cwnd, 4000);
    }

    #[test]
    fn bandwidth_aware_start_sets_window_from_bdp() {
        let mut c = Congestion::new(MTU, 4000, 8000);
        c.set_from_bdp(50_000, 4000);
        assert_eq!((c.cwnd, c.ssthresh), (50_000, 50_000));
        // At most one slow-start step (cwnd <= ssthresh), then congestion
        // avoidance: no growth until a whole window is acknowledged.
        c.on_ack(1000, 50_000, true, false);
        let after = c.cwnd;
        assert!(after <= 51_000, "{after}");
        c.on_ack(1000, after, true, false);
        c.on_ack(1000, after, true, false);
        assert_eq!(c.cwnd, after, "congestion avoidance, not slow start");
        c.set_from_bdp(10, 4000);
        assert_eq!((c.cwnd, c.ssthresh), (4000, 4000));
    }
}
