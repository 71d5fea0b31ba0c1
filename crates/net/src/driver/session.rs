//! Application sessions of an association: what a restart ends and what
//! a dropped handle leaves behind.
//!
//! The engine keeps a restarted association under its id (RFC 9260
//! section 5.2.4 action A: the peer lost its state and started again with
//! new tags), but for the application it is a new session, as the sockets
//! API reports it (RFC 6458 section 6.1.1, `SCTP_RESTART`): the old
//! handle's session ends (its `recv` ends, its sends, status and
//! operations fail with "the peer restarted") and the new one is handed
//! out by `accept` like a new association. Every handle therefore names
//! its session; a command of an ended session never reaches the
//! association that took its place.
//!
//! A dropped [`Association`](crate::Association) releases its session: the
//! driver shuts the association down gracefully (RFC 9260 section 9.2),
//! so that what was queued is still delivered, unless messages arrived
//! that nobody will read any more: then it aborts (section 9.1), which
//! tells the peer that they were not taken, rather than acknowledging
//! them and dropping them silently. A shutdown the peer holds up past
//! `drain_timeout` is aborted too.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use msctp_proto::{AssocId, CloseReason, Event, Message, Time};

use super::{Assoc, Command, Driver, NetEvent, PendingSend, SendShared};
use crate::error::{NetError, describe_close};

/// What is left of a session a restart ended while its handle exists.
pub(crate) struct Retired {
    shared: Arc<SendShared>,
    /// Messages of an abandoned receive, still owed to the handle.
    stash: Vec<Message>,
}

/// The error every request of a restarted session gets.
fn restarted_error() -> NetError {
    NetError::Closed(format!(
        "{} (RFC 9260 section 5.2.4): this session has ended, `accept` gives the new one",
        describe_close(&CloseReason::Restarted)
    ))
}

impl Command {
    /// The association and session a per-session command is for.
    fn session(&self) -> Option<(AssocId, u64)> {
        match self {
            Command::Send { id, session, .. }
            | Command::Recv { id, session, .. }
            | Command::Status { id, session, .. }
            | Command::Op { id, session, .. }
            | Command::Shutdown { id, session, .. }
            | Command::Release { id, session } => Some((*id, *session)),
            _ => None,
        }
    }
}

impl Driver {
    /// Answers a command of a session that has ended (the association
    /// restarted since); returns the others for `command`.
    pub(super) fn stale_command(&mut self, c: Command) -> Option<Command> {
        let Some((id, session)) = c.session() else {
            return Some(c);
        };
        let current = match self.assocs.get(&id) {
            Some(a) => a.session == session,
            None => !self.retired.contains_key(&(id, session)),
        };
        if current {
            return Some(c);
        }
        let key = (id, session);
        match c {
            Command::Send {
                stream,
                ppid,
                opts,
                data,
                credit,
                reply,
                ..
            } => {
                let p = PendingSend {
                    stream,
                    ppid,
                    opts,
                    queued_at: Time::ZERO,
                    data,
                    credit,
                    reply,
                };
                match self.retired.get(&key) {
                    Some(r) => p.done(&r.shared, Err(restarted_error())),
                    None => {
                        if let Some(r) = p.reply {
                            let _ = r.send(Err(restarted_error()));
                        }
                    }
                }
            }
            Command::Recv { reply, .. } => {
                // What an abandoned receive left, then the end.
                let msgs = self
                    .retired
                    .get_mut(&key)
                    .map(|r| std::mem::take(&mut r.stash))
                    .unwrap_or_default();
                if let Err(Ok(back)) = reply.send(Ok(msgs))
                    && let Some(r) = self.retired.get_mut(&key)
                {
                    r.stash = back;
                }
            }
            Command::Status { reply, .. } => {
                let _ = reply.send(Err(restarted_error()));
            }
            Command::Op { reply, .. } | Command::Shutdown { reply, .. } => {
                let _ = reply.send(Err(restarted_error()));
            }
            Command::Release { .. } => {
                self.retired.remove(&key);
            }
            _ => {}
        }
        None
    }

    /// The peer restarted association `id` (RFC 9260 section 5.2.4 A):
    /// the session the application holds ends, a new one starts and is
    /// handed out like a new association (to `accept`, or to the
    /// `connect` still waiting for it).
    pub(super) fn restarted(&mut self, now: Time, id: AssocId) {
        let Some(mut old) = self.assocs.remove(&id) else {
            return;
        };
        let handed_out = old.events_rx.is_none() && old.connect_reply.is_none();
        let new = self.new_assoc(id, old.udp_port, old.peer_port);
        new.connect_reply = old.connect_reply.take();
        new.connect_peer = old.connect_peer;
        if handed_out {
            self.retire(id, old);
            if self.cfg.endpoint.listen {
                self.admit(id);
            } else if let Some(x) = self.ep.association_mut(id) {
                // Nobody can take the new session.
                x.abort(None);
            }
        }
        // Not handed out yet: the new session takes the old one's place
        // in the accept queue or answers its `connect`.
        self.established(now, id);
    }

    /// Ends session `old` of association `id` for its handle: waiting
    /// sends, receives and shutdowns fail, the events say why and stop.
    fn retire(&mut self, id: AssocId, mut old: Assoc) {
        for p in old.sends.drain(..) {
            p.done(&old.shared, Err(restarted_error()));
        }
        old.shared.fail(&restarted_error());
        old.shared.credit.close();
        for r in old.shutdown_replies.drain(..) {
            let _ = r.send(Err(restarted_error()));
        }
        let mut stash = std::mem::take(&mut old.stash);
        if let Some((_, reply)) = old.recv.take() {
            stash = match reply.send(Ok(stash)) {
                Err(Ok(back)) => back,
                _ => Vec::new(),
            };
        }
        let reason = CloseReason::Restarted;
        for ev in [Event::Restarted, Event::Closed { reason }] {
            if old.events.try_send(NetEvent::Assoc(ev)).is_err() {
                self.stats.events_dropped += 1;
            }
        }
        if !old.shared.released.load(Ordering::Acquire) {
            let r = Retired {
                shared: old.shared.clone(),
                stash,
            };
            self.retired.insert((id, old.session), r);
        }
    }

    /// `Command::Release`: the application dropped the session's handle.
    pub(super) fn release(&mut self, now: Time, id: AssocId) {
        if let Some(a) = self.assocs.get(&id) {
            a.shared.released.store(true, Ordering::Release);
        }
        self.check_released(now, id);
    }

    /// A released session shuts down gracefully, or aborts if messages
    /// wait that nobody will read or the shutdown takes longer than
    /// `drain_timeout` (checked whenever the driver runs, at least at
    /// every retransmission timeout of the shutdown).
    pub(super) fn check_released(&mut self, now: Time, id: AssocId) {
        let drain = self.cfg.drain_timeout;
        let Some(a) = self.assocs.get_mut(&id) else {
            return;
        };
        if a.closed.is_some() || !a.shared.released.load(Ordering::Acquire) {
            return;
        }
        let Some(x) = self.ep.association_mut(id) else {
            return;
        };
        let deadline = *a.release_deadline.get_or_insert(now + drain);
        let unread = x.readable() || !a.stash.is_empty();
        if unread || now >= deadline {
            tracing::debug!(
                "association {id:?} released with {}: abort",
                if unread {
                    "unread messages"
                } else {
                    "its shutdown unfinished"
                }
            );
            a.stash.clear();
            x.abort(None);
        } else {
            a.shutdown_wanted = true;
        }
    }

    /// Forgets retired sessions whose handle is gone.
    pub(super) fn forget_released(&mut self) {
        self.retired
            .retain(|_, r| !r.shared.released.load(Ordering::Acquire));
    }
}
