//! The association's timers: T1-init and T1-cookie (RFC 9260 section 5.1),
//! T3-rtx (section 6.3), delayed SACK (section 6.2), heartbeats and path
//! verification (sections 8.3 and 5.4), T2-shutdown and T5-shutdown-guard
//! (section 9.2), and T4-RTO for ASCONF (RFC 5061 section 5.1).

use super::{Association, State};
use crate::Time;

impl Association {
    /// The earliest deadline of any running timer.
    pub(crate) fn poll_timeout(&self) -> Option<Time> {
        let mut t: Option<Time> = None;
        let mut consider = |d: Option<Time>| {
            if let Some(d) = d {
                t = Some(t.map_or(d, |x| x.min(d)));
            }
        };
        if let Some(st) = &self.init
            && !st.due
        {
            consider(st.deadline);
        }
        if self.state == State::Closed {
            return t;
        }
        consider(self.sack.deadline);
        if !self.shutdown.due {
            consider(self.shutdown.deadline);
        }
        consider(self.shutdown.guard);
        if let Some(o) = &self.asconf.outstanding {
            consider(o.deadline);
        }
        consider(self.reconfig_deadline());
        consider(self.probe_timeout());
        consider(self.cmt_timer());
        let heartbeats = self.state.sends_heartbeats();
        let adding = self.cfg.pmtud.enabled && self.adding_address();
        for (i, p) in self.paths.iter().enumerate() {
            consider(p.t3_deadline);
            if !heartbeats {
                continue;
            }
            if p.confirmed {
                if adding && self.source_awaits_asconf(i) {
                    consider(p.pmtu.timer_deadline());
                } else {
                    consider(p.pmtu.deadline());
                }
            }
            consider(p.heartbeat_deadline);
            if let Some(h) = &p.heartbeat
                && !h.timed_out
            {
                consider(Some(h.timeout));
            }
        }
        t
    }

    /// Runs every timer whose deadline is at or before `now`.
    pub(crate) fn handle_timeout(&mut self, now: Time) {
        self.tx.burst_budget = self.burst_allowance();
        self.t1(now);
        if self.state == State::Closed {
            return;
        }
        if self.sack.deadline.is_some_and(|d| d <= now) {
            self.sack.deadline = None;
            self.sack.now = true;
        }
        self.cmt_timeout(now);
        for i in 0..self.paths.len() {
            if self.state == State::Closed {
                return;
            }
            if self.paths[i].t3_deadline.is_some_and(|d| d <= now) {
                self.t3_expired(i, now);
            }
        }
        // Heartbeats (path verification included) wait for the
        // association to exist at the peer: one sent while COOKIE ECHOED
        // could overtake the COOKIE ECHO and be answered with an ABORT
        // (RFC 9260 section 8.4); a deadline that fell due meanwhile
        // fires at the first timeout after the COOKIE ACK. They end, for
        // the same reason, once this end has sent its SHUTDOWN or
        // SHUTDOWN ACK (`State::sends_heartbeats`).
        for i in 0..self.paths.len() {
            if self.state == State::Closed {
                return;
            }
            if self.state.sends_heartbeats() {
                self.heartbeat_timers(i, now);
                self.paths[i].pmtu.on_timeout(now);
            }
        }
        if self.state == State::Closed {
            return;
        }
        self.t4(now);
        if self.state == State::Closed {
            return;
        }
        self.reconfig_timeout(now);
        if self.state == State::Closed {
            return;
        }
        self.t2(now);
    }

    /// Section 6.3.3. The timeout of a zero window probe that the peer
    /// answered with SACKs (its window still closed) is no error of the
    /// path or the association (section 6.1 rule A): the peer is there,
    /// its application is not reading. Counted, it would fail the path
    /// over (with SCTP-PF at the first probe) and in the end abort.
    fn t3_expired(&mut self, i: usize, now: Time) {
        self.stats.t3_expirations += 1;
        // A SACK since the probe left and since this timer started (it
        // ran one RTO): a peer that falls silent while its window is
        // closed still fails.
        let started = now - self.paths[i].rto.rto();
        let peer_answers_probes = self.tx.zero_window_probe_at.is_some_and(|probe| {
            self.tx
                .last_sack_at
                .is_some_and(|sack| sack >= probe && sack >= started)
        });
        let p = &mut self.paths[i];
        p.t3_deadline = None;
        p.stats.t3_expirations += 1;
        p.cc.on_timeout();
        p.rto.back_off();
        p.fast_recovery_exit = None;
        p.rtt_probe = None;
        p.pmtu.suspect_black_hole();
        self.sender
            .mark_path(i, super::send::Retransmit::Timeout, &mut self.paths);
        self.sender.recheck_forward_tsn();
        if peer_answers_probes {
            return;
        }
        self.path_error(i, now);
        if self.association_error() {
            return;
        }
        self.cmt_path_timed_out(i, now);
    }

    fn heartbeat_timers(&mut self, i: usize, now: Time) {
        // An unanswered probe counts as an error one RTO after it left.
        if let Some(h) = self.paths[i].heartbeat.as_mut()
            && !h.timed_out
            && h.timeout <= now
        {
            h.timed_out = true;
            let p = &mut self.paths[i];
            p.rto.back_off();
            let confirmed = p.confirmed;
            self.path_error(i, now);
            // Path verification failures do not count against the
            // association (the address was never part of it).
            if confirmed && self.association_error() {
                return;
            }
        }
        let p = &self.paths[i];
        if p.heartbeat_deadline.is_none_or(|d| d > now) {
            return;
        }
        let confirmed = p.confirmed;
        let outstanding = p.heartbeat.is_some_and(|h| !h.timed_out);
        let rto = p.rto.rto();
        if self.probed_as_pf(i) || (confirmed && self.cmt_probed(i)) {
            // SCTP-PF, and CMT-PF on a path with errors: once per RTO, no
            // HB.interval, no capacity train.
            if !outstanding {
                self.queue_heartbeat(i, now);
            }
            self.paths[i].heartbeat_deadline = Some(now + rto);
            return;
        }
        match (confirmed, self.cfg.heartbeat_interval) {
            (true, None) => {
                self.paths[i].heartbeat_deadline = None;
            }
            (true, Some(iv)) => {
                // On an idle path the heartbeat rides in a capacity train
                // when the peer answers those (docs/MODELS.md 3, AISLE).
                if !outstanding && !self.heartbeat_as_train(i, now) {
                    self.queue_heartbeat(i, now);
                }
                let period = self.heartbeat_period(rto, iv);
                self.paths[i].heartbeat_deadline = Some(now + period);
            }
            (false, _) => {
                // Path verification: one probe per RTO on each address,
                // and at most HB.Max.Burst to all of them together per
                // RTO (section 5.4); an address over the budget waits for
                // the next window.
                let (end, sent) = self.verification_window;
                let window_open = now < end;
                if !outstanding && window_open && sent >= self.cfg.hb_max_burst {
                    self.paths[i].heartbeat_deadline = Some(end);
                    return;
                }
                if !outstanding {
                    self.verification_window = if window_open {
                        (end, sent + 1)
                    } else {
                        (now + rto, 1)
                    };
                    self.queue_heartbeat(i, now);
                }
                let rto = self.paths[i].rto.rto();
                self.paths[i].heartbeat_deadline = Some(now + rto);
            }
        }
    }
}
