//! Path failure detection (RFC 9260 section 8.2) and quick failover,
//! SCTP-PF (RFC 7829).
//!
//! Every error of a destination (a T3-rtx expiry, an unanswered HEARTBEAT,
//! a retransmitted ASCONF or SHUTDOWN) goes through
//! [`Association::path_error`]:
//!
//! - above PMR errors the destination is inactive (RFC 9260), new data
//!   goes to an active alternate (failover);
//! - with SCTP-PF on (`AssociationConfig::pf_max_retrans`), above PFMR
//!   errors it is potentially failed first (RFC 7829 section 3): new data
//!   moves to an active destination at once, and the PF destination is
//!   probed by a HEARTBEAT once per RTO, HB.interval ignored, the RTO
//!   backed off by each unanswered probe; its first answer (or an
//!   acknowledgement of data sent there) makes it active again;
//! - with Primary Path Switchover (`primary_switchover_max_retrans`,
//!   RFC 7829 section 5), above PSMR errors of the primary the
//!   destination data goes to becomes the primary for good.
//!
//! With PFMR 0 a path break moves new data after one RTO instead of
//! RTO * (2^(PMR+1) - 1): the first timeout.

use super::{Association, Event, PrimaryReason};
use crate::Time;
use crate::path::PathState;

impl Association {
    /// Counts one error against path `i`; marks it potentially failed or
    /// inactive, moves new data away, and switches the primary over, as
    /// configured. An unconfirmed path never fails (it was never up).
    pub(super) fn path_error(&mut self, i: usize, now: Time) {
        let pmr = self.cfg.path_max_retrans;
        let before = self.data_path();
        let confirmed = self.paths[i].confirmed;
        let failed = self.paths[i].record_error(pmr);
        if !confirmed {
            return;
        }
        let mut announced = false;
        if failed {
            announced = i == self.primary;
            self.path_failed(i);
        } else if let Some(pfmr) = self.cfg.pf_max_retrans
            && self.paths[i].check_potentially_failed(pfmr)
        {
            announced = self.path_potentially_failed(i, before, now);
        }
        self.primary_switchover(i, announced);
    }

    /// Section 3 of RFC 7829: announce the PF state, probe the
    /// destination at once and then once per RTO, and send new data to an
    /// active destination if one exists (otherwise it stays here: the
    /// least bad one). Returns whether the data destination changed.
    fn path_potentially_failed(&mut self, i: usize, before: Option<usize>, now: Time) -> bool {
        let addr = self.paths[i].remote;
        self.push_event(Event::PathPotentiallyFailed { addr });
        self.paths[i].heartbeat_deadline = Some(now);
        let after = self.data_path();
        match after {
            Some(alt) if before == Some(i) && alt != i => {
                let alt_addr = self.paths[alt].remote;
                self.data_path_changed(alt);
                self.push_event(Event::PrimaryChanged {
                    addr: alt_addr,
                    reason: PrimaryReason::Failover,
                });
                true
            }
            _ => false,
        }
    }

    /// Section 5 of RFC 7829: the primary's error counter exceeds PSMR,
    /// so the active destination data goes to now becomes the primary
    /// (data stays there when the old primary recovers).
    fn primary_switchover(&mut self, i: usize, announced: bool) {
        let Some(psmr) = self.cfg.primary_switchover_max_retrans else {
            return;
        };
        if i != self.primary || self.paths[i].error_count <= psmr {
            return;
        }
        let Some(alt) = self
            .data_path()
            .filter(|&d| d != i && self.paths[d].usable())
        else {
            return;
        };
        self.primary = alt;
        if !announced {
            let addr = self.paths[alt].remote;
            self.data_path_changed(alt);
            self.push_event(Event::PrimaryChanged {
                addr,
                reason: PrimaryReason::Failover,
            });
        }
    }

    /// Is path `i` probed as a potentially-failed destination: the next
    /// heartbeat one RTO (backed off by every unanswered probe) after
    /// this one, HB.interval ignored, even when heartbeats are off (RFC
    /// 7829 section 3): the probe is its only way back.
    pub(super) fn probed_as_pf(&self, i: usize) -> bool {
        self.paths[i].state == PathState::PotentiallyFailed && self.paths[i].confirmed
    }
}
