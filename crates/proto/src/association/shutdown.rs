//! Graceful shutdown (RFC 9260 section 9.2): the application's request,
//! the SHUTDOWN / SHUTDOWN ACK exchange once all data is acknowledged, the
//! T2-shutdown timer and the T5-shutdown-guard.

use std::net::IpAddr;

use super::Flow;
use super::{Association, CloseReason, State};
use crate::Time;
use crate::wire::Chunk;

/// Graceful shutdown progress (section 9.2).
#[derive(Debug, Clone, Default)]
pub(super) struct ShutdownState {
    /// SHUTDOWN or SHUTDOWN ACK must be (re)sent.
    pub(super) due: bool,
    pub(super) deadline: Option<Time>,
    pub(super) retransmits: u32,
    /// T5-shutdown-guard.
    pub(super) guard: Option<Time>,
}

impl Association {
    /// Starts a graceful shutdown (section 9.2): queued data is still sent.
    pub fn shutdown(&mut self, now: Time) {
        match self.state {
            State::Established => {
                self.state = State::ShutdownPending;
                self.maybe_progress_shutdown(now);
            }
            State::CookieWait | State::CookieEchoed => self.abort(None),
            _ => {}
        }
    }

    pub(super) fn on_shutdown(&mut self, now: Time, cum: u32, src: IpAddr) -> Flow {
        match self.state {
            State::Established | State::ShutdownPending | State::ShutdownReceived => {
                let o = self.sender.on_shutdown_cum_ack(cum, now, &mut self.paths);
                if o.acks_unsent {
                    self.protocol_violation("SHUTDOWN acknowledges a TSN that was not sent", src);
                    return Flow::Stop;
                }
                if self.state != State::ShutdownReceived {
                    self.state = State::ShutdownReceived;
                }
            }
            State::ShutdownSent => {
                // Both sides shut down at once: answer with SHUTDOWN ACK.
                self.sender.on_shutdown_cum_ack(cum, now, &mut self.paths);
                self.state = State::ShutdownAckSent;
                self.shutdown.due = true;
                self.shutdown.retransmits = 0;
            }
            State::ShutdownAckSent => self.shutdown.due = true,
            _ => {}
        }
        Flow::Continue
    }

    pub(super) fn on_shutdown_ack(&mut self, src: IpAddr, dst: IpAddr) -> Flow {
        if matches!(self.state, State::ShutdownSent | State::ShutdownAckSent) {
            self.reply(src, dst, Chunk::ShutdownComplete { t_bit: false });
            self.close(CloseReason::Shutdown);
            return Flow::Stop;
        }
        Flow::Continue
    }

    pub(super) fn t2(&mut self, now: Time) {
        if self.shutdown.guard.is_some_and(|g| g <= now) {
            self.send_abort(vec![], None);
            self.close(CloseReason::PeerUnreachable);
            return;
        }
        if self.shutdown.due || self.shutdown.deadline.is_none_or(|d| d > now) {
            return;
        }
        self.shutdown.deadline = None;
        self.shutdown.retransmits += 1;
        if let Some(p) = self.data_path() {
            self.paths[p].rto.back_off();
            self.path_error(p, now);
        }
        if self.association_error() {
            return;
        }
        self.shutdown.due = true;
    }

    /// Moves a graceful shutdown on once all data is acknowledged
    /// (section 9.2), messages held for a stream reset (RFC 6525)
    /// included.
    pub(super) fn maybe_progress_shutdown(&mut self, now: Time) {
        let idle = self.sender.is_idle() && self.reconfig.held_bytes() == 0;
        match self.state {
            State::ShutdownPending if idle => {
                self.state = State::ShutdownSent;
                self.shutdown.due = true;
                self.shutdown.retransmits = 0;
                self.shutdown.guard = Some(now + self.cfg.rto_max * 5);
            }
            State::ShutdownReceived if idle => {
                self.state = State::ShutdownAckSent;
                self.shutdown.due = true;
                self.shutdown.retransmits = 0;
            }
            _ => {}
        }
    }
}
