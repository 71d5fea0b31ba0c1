//! Destinations ("paths") of an association: one per peer transport
//! address, each with its own RTT/RTO estimate (RFC 9260 section 6.3), error
//! counter and reachability state (section 8.2), heartbeat schedule
//! (section 8.3), path verification (section 5.4) and congestion state
//! (section 7).

use std::net::IpAddr;
use std::time::Duration;

use crate::Time;
use crate::congestion::Congestion;
use crate::estimate::{CapacityEstimator, Westwood};

/// RTT measurement and retransmission timeout of one destination
/// (RFC 9260 section 6.3.1), in integer nanoseconds.
#[derive(Debug, Clone)]
pub struct RtoEstimator {
    srtt: Option<Duration>,
    rttvar: Duration,
    rto: Duration,
    min: Duration,
    max: Duration,
    /// The smallest RTT measured since the last [`Self::reset_min_rtt`].
    min_rtt: Option<Duration>,
    /// The last RTT measured.
    latest: Option<Duration>,
}

impl RtoEstimator {
    pub fn new(initial: Duration, min: Duration, max: Duration) -> Self {
        RtoEstimator {
            srtt: None,
            rttvar: Duration::ZERO,
            rto: initial.clamp(min, max),
            min,
            max,
            min_rtt: None,
            latest: None,
        }
    }

    /// Feeds one RTT measurement R (rules C2 and C3: alpha = 1/8,
    /// beta = 1/4, RTO = SRTT + 4 * RTTVAR, clamped to [RTO.Min, RTO.Max]).
    pub fn sample(&mut self, r: Duration) {
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.latest = Some(r);
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                let diff = srtt.abs_diff(r);
                self.rttvar = (self.rttvar * 3 + diff) / 4;
                self.srtt = Some((srtt * 7 + r) / 8);
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        // A zero RTTVAR is replaced by the clock granularity G (1 ns here).
        let var = self.rttvar.max(Duration::from_nanos(1));
        self.rto = (srtt + var * 4).clamp(self.min, self.max);
    }

    /// Exponential back-off after a timeout (rule E2):
    /// RTO = min(max(2 * RTO, RTO.Min), RTO.Max).
    pub fn back_off(&mut self) {
        self.rto = (self.rto * 2).max(self.min).min(self.max);
    }

    pub fn rto(&self) -> Duration {
        self.rto
    }

    pub fn srtt(&self) -> Option<Duration> {
        self.srtt
    }

    pub fn rttvar(&self) -> Duration {
        self.rttvar
    }

    /// The smallest RTT measured on the path (its base RTT, what a packet
    /// takes with the least queued before it), since the path's route
    /// last changed.
    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt
    }

    /// The last RTT measured.
    pub fn latest_rtt(&self) -> Option<Duration> {
        self.latest
    }

    /// Forgets the smallest RTT (the route under the path changed).
    pub fn reset_min_rtt(&mut self) {
        self.min_rtt = None;
    }
}

/// Reachability of a destination (RFC 9260 section 8.2; RFC 7829).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathState {
    Active,
    /// SCTP-PF (RFC 7829), when on: more than PFMR but at most PMR
    /// consecutive errors. No new data goes here while an active
    /// destination exists; a HEARTBEAT probes it once per RTO, and the
    /// first answer (or acknowledged data) makes it active again.
    PotentiallyFailed,
    /// More than PMR consecutive errors: no new data goes here; heartbeats
    /// continue so the path can come back.
    Inactive,
}

/// A HEARTBEAT in flight on a path.
#[derive(Debug, Clone, Copy)]
pub struct HeartbeatProbe {
    pub nonce: u64,
    pub sent_at: Time,
    /// When an unanswered probe counts as an error (one RTO after sending).
    pub timeout: Time,
    /// The timeout passed and the error was counted; a late answer still
    /// proves reachability.
    pub timed_out: bool,
}

/// One destination of the association.
#[derive(Debug, Clone)]
pub struct Path {
    /// The peer's transport address.
    pub remote: IpAddr,
    pub state: PathState,
    /// Verified by a HEARTBEAT ACK (or by the handshake) per section 5.4.
    pub confirmed: bool,
    pub rto: RtoEstimator,
    /// Consecutive unanswered retransmissions and heartbeats.
    pub error_count: u32,
    pub cc: Congestion,
    /// Bytes of DATA outstanding (sent, not acknowledged) to this address.
    pub flight_size: u32,
    /// T3-rtx deadline.
    pub t3_deadline: Option<Time>,
    /// Next HEARTBEAT (or path-verification probe) deadline.
    pub heartbeat_deadline: Option<Time>,
    pub heartbeat: Option<HeartbeatProbe>,
    /// The TSN being timed for an RTT measurement and when it was sent
    /// (one measurement per round trip, Karn's rule: never a
    /// retransmitted chunk).
    pub rtt_probe: Option<(u32, Time)>,
    /// Last time DATA was sent to this address (idle cwnd decay).
    pub last_data_sent: Option<Time>,
    /// Last time anything was received from this address.
    pub last_heard: Option<Time>,
    /// Last time a SACK acknowledged data sent to this address.
    pub last_ack: Option<Time>,
    /// Local address to send from, if fixed by the application.
    pub source: Option<IpAddr>,
    /// The local address at which we last received from this address.
    pub learned_source: Option<IpAddr>,
    /// The network route under this path: bumped whenever the source
    /// address of its packets changes (a mobile switching interfaces under
    /// one peer address), so split fast retransmit compares like with like.
    pub route: u32,
    /// The source address of the route.
    pub route_source: Option<IpAddr>,
    /// Fast recovery on this destination: exits when the cumulative ack
    /// reaches this TSN (RFC 9260 section 7.2.4).
    pub fast_recovery_exit: Option<u32>,
    /// Capacity by packet-pair dispersion (when the estimators are on).
    pub capacity: CapacityEstimator,
    /// A capacity the application gave instead of the estimate (an
    /// oracle, to isolate the estimator's part in a policy's decisions);
    /// reported as `capacity_bps` while set.
    pub capacity_given: Option<u64>,
    /// Available bandwidth by Westwood+ (when the estimators are on).
    pub westwood: Westwood,
    /// First trains of a new path still to send (see
    /// `EstimatorConfig::probe_new_paths`).
    pub initial_trains: u8,
    /// When the next of them is due (set once the path can carry one).
    pub probe_at: Option<Time>,
    /// Path MTU discovery (RFC 8899); disabled: the configured MTU.
    pub pmtu: crate::pmtu::Plpmtud,
    pub stats: PathCounters,
}

/// Counters of one path.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PathCounters {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub data_chunks_sent: u64,
    pub retransmissions: u64,
    pub fast_retransmissions: u64,
    pub t3_expirations: u64,
    /// Times the path entered the potentially-failed state (SCTP-PF).
    pub potentially_failed: u64,
    /// Times it became active again after being potentially failed or
    /// inactive.
    pub recoveries: u64,
    pub heartbeats_sent: u64,
    pub heartbeat_acks_received: u64,
    pub packets_received: u64,
    /// Bytes of DATA payload sent here and acknowledged.
    pub bytes_acked: u64,
}

impl Path {
    pub fn new(remote: IpAddr, rto: RtoEstimator, cc: Congestion, confirmed: bool) -> Self {
        let mtu = cc.mtu() as usize;
        Path {
            remote,
            state: PathState::Active,
            confirmed,
            rto,
            error_count: 0,
            cc,
            flight_size: 0,
            t3_deadline: None,
            heartbeat_deadline: None,
            heartbeat: None,
            rtt_probe: None,
            last_data_sent: None,
            last_heard: None,
            last_ack: None,
            source: None,
            learned_source: None,
            route: 0,
            route_source: None,
            fast_recovery_exit: None,
            capacity: CapacityEstimator::new(5),
            capacity_given: None,
            westwood: Westwood::default(),
            initial_trains: 0,
            probe_at: None,
            pmtu: crate::pmtu::Plpmtud::disabled(mtu),
            stats: PathCounters::default(),
        }
    }

    /// Can new DATA go here?
    pub fn usable(&self) -> bool {
        self.state == PathState::Active && self.confirmed
    }

    /// Room in the congestion window for more bytes.
    pub fn cwnd_room(&self) -> u32 {
        self.cc.cwnd.saturating_sub(self.flight_size)
    }

    /// Counts one error (T3 expiry or unanswered heartbeat). Returns true
    /// when this error made the path inactive (error count now above PMR;
    /// from the active or the potentially-failed state).
    pub fn record_error(&mut self, pmr: u32) -> bool {
        self.error_count = self.error_count.saturating_add(1);
        if self.state != PathState::Inactive && self.error_count > pmr {
            self.state = PathState::Inactive;
            return true;
        }
        false
    }

    /// SCTP-PF (RFC 7829 section 3): an active destination whose error
    /// counter exceeds PFMR becomes potentially failed. Returns true when
    /// it did.
    pub fn check_potentially_failed(&mut self, pfmr: u32) -> bool {
        if self.state == PathState::Active && self.error_count > pfmr {
            self.state = PathState::PotentiallyFailed;
            self.stats.potentially_failed += 1;
            return true;
        }
        false
    }

    /// Something sent to this address was acknowledged. Returns true when
    /// this brought an inactive or potentially-failed path back.
    pub fn record_success(&mut self) -> bool {
        self.error_count = 0;
        if self.state != PathState::Active {
            self.state = PathState::Active;
            self.stats.recoveries += 1;
            return true;
        }
        false
    }

    /// A snapshot of the path for the application.
    #[inline]
    pub fn snapshot(&self) -> PathStats {
        PathStats {
            remote: self.remote,
            state: self.state,
            confirmed: self.confirmed,
            cwnd: self.cc.cwnd,
            ssthresh: self.cc.ssthresh,
            srtt: self.rto.srtt(),
            rttvar: self.rto.rttvar(),
            rto: self.rto.rto(),
            flight_size: self.flight_size,
            error_count: self.error_count,
            counters: self.stats,
            capacity_bps: self.capacity_given.or(self.capacity.estimate()),
            capacity_updated: self.capacity.updated(),
            probes: self.capacity.counters,
            available_bps: self.westwood.estimate(),
            available_updated: self.westwood.updated(),
            available_samples: self.westwood.samples(),
        }
    }
}

/// Statistics of one path, readable at any time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathStats {
    pub remote: IpAddr,
    pub state: PathState,
    pub confirmed: bool,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub srtt: Option<Duration>,
    pub rttvar: Duration,
    pub rto: Duration,
    /// Bytes in flight.
    pub flight_size: u32,
    pub error_count: u32,
    pub counters: PathCounters,
    /// Capacity of the path's bottleneck by packet-pair dispersion, bits
    /// per second of whole packets (SCTP packet plus the configured
    /// overhead); median of the last samples.
    pub capacity_bps: Option<u64>,
    /// When the capacity estimate last changed.
    pub capacity_updated: Option<Time>,
    /// Capacity trains sent, answered with or without a sample.
    pub probes: crate::estimate::packet_pair::ProbeCounters,
    /// Bandwidth available to this association on the path (Westwood+),
    /// bits per second of DATA payload acknowledged; measured while the
    /// path carries data.
    pub available_bps: Option<u64>,
    /// When the available-bandwidth estimate last changed.
    pub available_updated: Option<Time>,
    /// Westwood+ samples taken.
    pub available_samples: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn rto_follows_rfc_9260_section_6_3_1() {
        let mut e = RtoEstimator::new(ms(1000), ms(20), ms(60_000));
        assert_eq!(e.rto(), ms(1000));
        e.sample(ms(100));
        // SRTT = 100, RTTVAR = 50, RTO = 300.
        assert_eq!(e.srtt(), Some(ms(100)));
        assert_eq!(e.rto(), ms(300));
        e.sample(ms(200));
        // RTTVAR = 3/4*50 + 1/4*100 = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5
        assert_eq!(e.srtt(), Some(Duration::from_micros(112_500)));
        assert_eq!(e.rttvar(), Duration::from_micros(62_500));
        assert_eq!(e.rto(), Duration::from_micros(362_500));
    }

    #[test]
    fn rto_is_clamped_and_backs_off() {
        let mut e = RtoEstimator::new(ms(1000), ms(1000), ms(4000));
        e.sample(ms(1));
        assert_eq!(e.rto(), ms(1000), "RTO.Min applies");
        e.back_off();
        assert_eq!(e.rto(), ms(2000));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), ms(4000), "RTO.Max applies");
    }

    #[test]
    fn path_is_potentially_failed_above_pfmr_and_inactive_above_pmr() {
        let mut p = Path::new(
            "10.0.0.1".parse().unwrap(),
            RtoEstimator::new(ms(1000), ms(1000), ms(60_000)),
            Congestion::new(1000, 4000, u32::MAX),
            true,
        );
        // PFMR 0, PMR 2: the first error makes it PF, the third inactive.
        assert!(!p.record_error(2));
        assert!(p.check_potentially_failed(0));
        assert_eq!(p.state, PathState::PotentiallyFailed);
        assert!(!p.usable(), "no new data to a PF destination");
        assert!(!p.check_potentially_failed(0), "entered once");
        assert!(!p.record_error(2));
        assert!(p.record_error(2), "PF -> inactive above PMR");
        assert_eq!(p.state, PathState::Inactive);
        assert!(p.record_success());
        assert_eq!((p.state, p.error_count), (PathState::Active, 0));
        // A PF destination that answers is active again.
        p.record_error(2);
        p.check_potentially_failed(0);
        assert!(p.record_success());
        assert!(p.usable());
    }

    #[test]
    fn path_goes_inactive_after_pmr_plus_one_errors() {
        let mut p = Path::new(
            "10.0.0.1".parse().unwrap(),
            RtoEstimator::new(ms(1000), ms(1000), ms(60_000)),
            Congestion::new(1000, 4000, u32::MAX),
            true,
        );
        assert!(!p.record_error(2));
        assert!(!p.record_error(2));
        assert!(p.record_error(2), "third error exceeds PMR = 2");
        assert!(!p.usable());
        assert!(p.record_success());
        assert!(p.usable());
        assert_eq!(p.error_count, 0);
    }
}
