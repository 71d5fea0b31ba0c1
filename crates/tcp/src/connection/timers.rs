//! The connection's timers: retransmission (RFC 6298 with back-off and
//! Karn's rule; the SYN timeout of RFC 9293 section 3.8.1), delayed ACK
//! (RFC 5681 section 4.2) and TIME-WAIT.

use std::time::Duration;

use msctp_time::Time;

use super::{AckDue, TcpConnection};
use crate::event::CloseReason;
use crate::state::TcpState;

impl TcpConnection {
    /// The earliest deadline at which [`Self::handle_timeout`] must be
    /// called; `None` when no timer runs (or frozen).
    pub fn poll_timeout(&self) -> Option<Time> {
        if self.frozen {
            return None;
        }
        [self.rto_at, self.delack_at, self.time_wait_at]
            .into_iter()
            .flatten()
            .min()
    }

    /// Runs the timers that are due at `now`.
    pub fn handle_timeout(&mut self, now: Time) {
        if self.frozen {
            return;
        }
        if self.time_wait_at.is_some_and(|t| t <= now) {
            self.time_wait_at = None;
            self.state = TcpState::Closed;
            self.clear_timers();
            return;
        }
        if self.delack_at.is_some_and(|t| t <= now) {
            self.delack_at = None;
            self.ack_due = AckDue::Now;
        }
        if self.rto_at.is_some_and(|t| t <= now) {
            self.rto_at = None;
            self.on_retransmission_timeout(now);
        }
    }

    pub(super) fn current_timeout(&self) -> Duration {
        match self.state {
            TcpState::SynSent | TcpState::SynReceived => self.syn_timeout,
            _ => self.rtt.rto(),
        }
    }

    pub(super) fn on_retransmission_timeout(&mut self, now: Time) {
        match self.state {
            TcpState::SynSent | TcpState::SynReceived => {
                if self.syn_retries_left == 0 {
                    self.terminate(CloseReason::TimedOut);
                    return;
                }
                self.syn_retries_left -= 1;
                self.syn_timeout = self
                    .syn_timeout
                    .saturating_mul(2)
                    .min(self.config.max_rto.max(self.config.syn_rto));
                self.syn_pending = true;
                self.syn_retransmitted = true;
                return;
            }
            TcpState::Closed | TcpState::TimeWait => return,
            _ => {}
        }
        if self.board.is_empty() {
            if self.probe_zero_window || self.window_closed_with_data() {
                // Persist timer (RFC 9293 section 3.8.6.1): probe the window.
                self.probe_zero_window = true;
                self.retransmit_now = true;
                self.rtt.back_off();
                self.rto_at = Some(now + self.rtt.rto());
            }
            return;
        }
        if self.snd_wnd == 0 && self.probe_zero_window {
            // A lost window probe is not a congestion signal.
            self.rtt.back_off();
            self.board.mark_all_lost();
            self.retransmit_now = true;
            self.rto_at = Some(now + self.rtt.rto());
            return;
        }
        self.consecutive_timeouts += 1;
        if self.consecutive_timeouts > self.config.max_retransmissions {
            self.terminate(CloseReason::TimedOut);
            return;
        }
        self.counters.timeouts += 1;
        let flight = self.snd_max.since(self.snd_una);
        self.cc.on_timeout(flight, self.consecutive_timeouts == 1);
        self.rtt.back_off();
        // RFC 6582 section 4 / RFC 6675 section 5.1: recovery ends, and a new
        // fast retransmit waits until everything sent so far is acked.
        self.in_recovery = false;
        self.dup_acks = 0;
        self.recover = self.snd_max;
        self.recover_active = true;
        self.board.mark_all_lost();
        self.retransmit_now = true;
        self.rto_at = Some(now + self.rtt.rto());
    }

    pub(super) fn window_closed_with_data(&self) -> bool {
        let unsent =
            self.send_buf.available_from(self.snd_max) > 0 || (self.fin_queued && !self.fin_sent);
        unsent && self.snd_wnd == 0
    }

    pub(super) fn clear_timers(&mut self) {
        self.rto_at = None;
        self.delack_at = None;
    }

    pub(super) fn restart_rto(&mut self, now: Time) {
        self.rto_at = Some(now + self.rtt.rto());
    }
}
