//! The handover manager of a mobile host, sans I/O: one per association,
//! shared by the simulator's SCTP agent and the real-network driver.
//!
//! It runs a [`HandoverPolicy`](crate::policy::HandoverPolicy) (docs/MODELS.md
//! section 3) and carries its [`Decision`]s out on the association (ASCONF
//! Add IP / Set Primary / Delete IP, RFC 5061 sections 4.2.1-4.2.4, with
//! [`policy::apply`](crate::policy::apply)). The caller feeds it
//! - link events ([`LinkEvent`], from the radio model or the interface
//!   monitor) with [`HandoverManager::on_link_event`]; before the
//!   association is established they wait (bounded) and are replayed by
//!   [`HandoverManager::on_established`];
//! - association events with [`HandoverManager::on_association_event`];
//! - [`HandoverManager::poll`] whenever the association processed input or
//!   timers (a held move may be ready, a policy watching the path
//!   estimators may decide);
//!
//! always with the caller's current time and a view of the host's
//! interfaces ([`Links`]: which interface holds an address, whether its
//! link is up, which local address shares a subnet with a peer address).
//! It answers with the [`Move`]s of data it made; every decision and its
//! outcome is kept as a [`DecisionRecord`].
//!
//! What it adds to the policy, each switchable in [`HandoverConfig`]:
//! - **hold until proved**: a move onto a link that just came back waits
//!   until the path over it has answered a heartbeat (RFC 9260 section
//!   8.3), at most [`HandoverConfig::return_wait`], while another working
//!   link carries the data; the host may not reach the peer over the
//!   returning link yet (neighbour entries, routes);
//! - **probe**: paths over a link that came up are sent an on-demand
//!   heartbeat (RFC 9260 section 8.3), so they are usable after one RTT;
//! - **follow the peer address**: a new local primary also moves new data
//!   to the peer address on its subnet, and that path's source to it;
//! - **move data**: when the link under the old path is down, its
//!   outstanding DATA is resent on the new path at once instead of after
//!   a retransmission timeout (RFC 9260 section 6.3.3).

mod moves;

use std::collections::VecDeque;
use std::net::IpAddr;
use std::time::Duration;

use crate::Time;
use crate::association::{AddressError, Association, Event};
use crate::policy::{Decision, HandoverPolicy, IfaceId, LinkEvent};

pub use moves::{pair_paths, usable_locals};

/// What the host knows about its interfaces (the simulator's node or the
/// real host's interface monitor).
pub trait Links {
    /// The interface holding local address `local`.
    fn iface_of(&self, local: IpAddr) -> Option<IfaceId>;
    /// Whether the link of interface `iface` is up.
    fn is_up(&self, iface: IfaceId) -> bool;
    /// The one of `locals` on the same subnet as `peer` (the source that
    /// reaches it directly), if any; the longest prefix wins.
    fn on_link_with(&self, peer: IpAddr, locals: &[IpAddr]) -> Option<IpAddr>;
}

/// Settings of a [`HandoverManager`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandoverConfig {
    /// Link events kept while the association is not established (older
    /// ones are dropped and counted).
    pub max_pending: usize,
    /// Decision records kept (all are counted).
    pub max_records: usize,
    /// Hold a move onto a link that just came back until the path over it
    /// answers a heartbeat (RFC 9260 section 8.3), at most this long;
    /// `None`: move at once.
    pub return_wait: Option<Duration>,
    /// Send an on-demand heartbeat (RFC 9260 section 8.3) on the paths
    /// over a link that came up.
    pub probe_returning_link: bool,
    /// A new local primary also makes the peer address on its subnet the
    /// primary path (RFC 9260 section 6.4) with itself as that path's
    /// source.
    pub follow_peer_address: bool,
    /// When the link under the old path is down, resend its outstanding
    /// DATA on the new path at once (RFC 9260 section 6.3.3 leaves it to
    /// the retransmission timer otherwise).
    pub move_data_on_link_down: bool,
}

impl Default for HandoverConfig {
    /// What a real host runs: hold for 500 ms at most, probe, follow the
    /// peer address, move data off a dead link.
    fn default() -> Self {
        HandoverConfig {
            max_pending: 10_000,
            max_records: 100_000,
            return_wait: Some(Duration::from_millis(500)),
            probe_returning_link: true,
            follow_peer_address: true,
            move_data_on_link_down: true,
        }
    }
}

/// One decision a policy took and what came of it.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionRecord {
    pub time: Time,
    pub decision: Decision,
    pub result: Result<(), AddressError>,
}

/// A move of new data made by a decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    pub at: Time,
    /// Local address data left from, and the one it leaves from now.
    pub from_local: Option<IpAddr>,
    pub to_local: IpAddr,
    /// Peer address new data went to, and goes to now.
    pub from_peer: Option<IpAddr>,
    pub to_peer: Option<IpAddr>,
    /// The link under the old path was down.
    pub link_down: bool,
    /// DATA chunks resent at once from the old path.
    pub retransmitted: usize,
}

/// Decisions waiting for the returning link's path to prove it works.
#[derive(Debug)]
struct Held {
    decisions: Vec<Decision>,
    peer: IpAddr,
    /// The path's heartbeat acknowledgements when the link came up.
    acks: u64,
    /// Carried out by then even without an answer.
    deadline: Time,
}

/// Runs one policy for one association. See the module documentation.
pub struct HandoverManager {
    policy: Box<dyn HandoverPolicy + Send>,
    cfg: HandoverConfig,
    pending: VecDeque<LinkEvent>,
    held: Option<Held>,
    records: Vec<DecisionRecord>,
    /// Decisions taken (all, including those not kept in `records`).
    pub decisions: u64,
    /// Link events dropped from the pending queue (bound reached).
    pub pending_dropped: u64,
}

impl std::fmt::Debug for HandoverManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HandoverManager")
            .field("policy", &self.policy.name())
            .field("pending", &self.pending.len())
            .field("held", &self.held.is_some())
            .field("decisions", &self.decisions)
            .finish()
    }
}

impl HandoverManager {
    pub fn new(policy: Box<dyn HandoverPolicy + Send>, cfg: HandoverConfig) -> Self {
        HandoverManager {
            policy,
            cfg,
            pending: VecDeque::new(),
            held: None,
            records: Vec::new(),
            decisions: 0,
            pending_dropped: 0,
        }
    }

    pub fn config(&self) -> &HandoverConfig {
        &self.cfg
    }

    pub fn policy_name(&self) -> &'static str {
        self.policy.name()
    }

    /// Decisions taken so far, with their outcome.
    pub fn records(&self) -> &[DecisionRecord] {
        &self.records
    }

    /// When the move held for a returning link is carried out at the
    /// latest (without a heartbeat answer before): a driver calls
    /// [`poll`](Self::poll) by then.
    pub fn held_deadline(&self) -> Option<Time> {
        self.held.as_ref().map(|h| h.deadline)
    }

    /// Whether the policy's `poll` can decide anything (AISLE).
    pub fn polls(&self) -> bool {
        self.policy.polls()
    }

    /// Whether the policy reads signal samples (signal strength).
    pub fn reads_signal(&self) -> bool {
        self.policy.reads_signal()
    }

    /// The policy's own counters (AISLE: congestion events, swaps, ...).
    pub fn counters(&self) -> Vec<(&'static str, u64)> {
        self.policy.counters()
    }

    /// A link event. Without an established association it waits.
    pub fn on_link_event(
        &mut self,
        now: Time,
        ev: LinkEvent,
        assoc: Option<&mut Association>,
        links: &dyn Links,
    ) -> Vec<Move> {
        match assoc {
            Some(a) if a.state().is_established() => self.feed(now, &ev, a, links),
            _ => {
                if self.pending.len() >= self.cfg.max_pending {
                    self.pending.pop_front();
                    self.pending_dropped += 1;
                }
                self.pending.push_back(ev);
                Vec::new()
            }
        }
    }

    /// The association is established: replays the waiting link events.
    pub fn on_established(
        &mut self,
        now: Time,
        assoc: &mut Association,
        links: &dyn Links,
    ) -> Vec<Move> {
        let mut out = Vec::new();
        while let Some(ev) = self.pending.pop_front() {
            out.extend(self.feed(now, &ev, assoc, links));
        }
        out
    }

    /// An association event (path down, address confirmed, ...).
    pub fn on_association_event(
        &mut self,
        now: Time,
        ev: &Event,
        assoc: &mut Association,
        links: &dyn Links,
    ) -> Vec<Move> {
        if !assoc.state().is_established() {
            return Vec::new();
        }
        let d = self.policy.on_association_event(now, ev, assoc);
        self.carry_out(now, &d, assoc, links)
    }

    /// The association processed input or timers: carries out a held move
    /// whose path answered a heartbeat (or whose wait is over), and lets a
    /// policy that watches the path statistics (AISLE) decide. Returns the
    /// moves and whether anything was decided.
    pub fn poll(
        &mut self,
        now: Time,
        assoc: &mut Association,
        links: &dyn Links,
    ) -> (Vec<Move>, bool) {
        if !assoc.state().is_established() {
            return (Vec::new(), false);
        }
        let ready = self
            .held
            .take_if(|h| now >= h.deadline || moves::heartbeat_acks(assoc, h.peer) > h.acks);
        if ready.is_some() {
            assoc.set_move_pending(false);
        }
        let mut decided = false;
        let mut out = match ready {
            Some(h) => {
                decided = true;
                self.carry_out(now, &h.decisions, assoc, links)
            }
            None => Vec::new(),
        };
        let d = self.policy.poll(now, assoc);
        decided |= !d.is_empty();
        out.extend(self.carry_out(now, &d, assoc, links));
        (out, decided)
    }

    fn feed(
        &mut self,
        now: Time,
        ev: &LinkEvent,
        assoc: &mut Association,
        links: &dyn Links,
    ) -> Vec<Move> {
        let d = self.policy.on_link_event(now, ev, assoc);
        let LinkEvent::LinkUp { iface } = *ev else {
            return self.carry_out(now, &d, assoc, links);
        };
        let returning = self
            .cfg
            .return_wait
            .and_then(|w| moves::returning_peer(&d, iface, assoc, links).map(|p| (w, p)));
        let out = match returning {
            Some((wait, peer)) => {
                // The data still goes over the old path meanwhile: its
                // DATA asks for immediate SACKs (RFC 7053).
                assoc.set_move_pending(true);
                self.held = Some(Held {
                    decisions: d,
                    peer,
                    acks: moves::heartbeat_acks(assoc, peer),
                    deadline: now + wait,
                });
                Vec::new()
            }
            None => self.carry_out(now, &d, assoc, links),
        };
        if self.cfg.probe_returning_link {
            moves::probe_link(now, iface, assoc, links);
        }
        out
    }

    fn carry_out(
        &mut self,
        now: Time,
        decisions: &[Decision],
        assoc: &mut Association,
        links: &dyn Links,
    ) -> Vec<Move> {
        if decisions.is_empty() {
            return Vec::new();
        }
        // New decisions replace a move still held for a returning link.
        self.held = None;
        assoc.set_move_pending(false);
        let (moves, results) = moves::carry_out(now, &self.cfg, decisions, assoc, links);
        for (decision, result) in decisions.iter().zip(results) {
            self.decisions += 1;
            if self.records.len() < self.cfg.max_records {
                self.records.push(DecisionRecord {
                    time: now,
                    decision: *decision,
                    result,
                });
            }
        }
        moves
    }
}

#[cfg(test)]
mod tests;
