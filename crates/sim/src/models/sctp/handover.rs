//! The handover manager of an mSCTP mobile node: it turns the node's link-
//! and IP-layer notifications into the [`LinkEvent`]s of
//! `msctp_proto::policy`, feeds them (and the association's events) to a
//! [`HandoverPolicy`], and carries the policy's decisions out on the
//! association (ASCONF Add IP / Set Primary / Delete IP, docs/MODELS.md
//! sections 1.4 and 3).
//!
//! It runs inside the SCTP agent ([`crate::models::sctp::SctpAgent`]) rather than as
//! an agent of its own: a policy decides by looking at the association
//! (its addresses and path statistics) and acts on it synchronously, and
//! the simulator never lets one agent borrow another's state.
//!
//! Notification to [`LinkEvent`] mapping (interface numbers are the node's
//! [`IfaceId`](crate::IfaceId) indices):
//! - `BeaconDetected` / `BeaconLost` / `LinkGoingDown`: the same event;
//! - `SignalSample`: the same event, except that a sample of a cell other
//!   than the one the interface is attached to is ignored (a policy keys
//!   signal strength by interface);
//! - `LinkDetected` / `LinkLost` (the station's link-layer decisions, with
//!   the decision latencies x and y): `LinkUp` / `LinkDown`. The physical
//!   `LinkUp` / `LinkDown` of attach and detach are not passed on: the
//!   station does not know about them;
//! - `AddressAdded` / `AddressRemoved` on an interface: `AddressObtained` /
//!   `AddressLost` (the radio driver configures and removes addresses).
//!
//! Events that arrive before the association is established are kept (up
//! to a bound; older ones are dropped and counted) and replayed in order
//! when it is.

use std::collections::VecDeque;

use msctp_proto::association::AddressError;
pub use msctp_proto::policy::PolicyKind;
use msctp_proto::policy::{Decision, HandoverPolicy, LinkEvent, apply};
use msctp_proto::{Association, Event, Time};

use crate::kernel::node::{Attachment, Node};
use crate::kernel::notification::Notification;

/// The [`LinkEvent`] a notification stands for on `node`, if any (see the
/// module documentation for the mapping).
pub fn link_event(n: &Notification, node: &Node) -> Option<LinkEvent> {
    match n {
        Notification::BeaconDetected { iface, .. } => {
            Some(LinkEvent::BeaconDetected { iface: iface.0 })
        }
        Notification::BeaconLost { iface, .. } => Some(LinkEvent::BeaconLost { iface: iface.0 }),
        Notification::SignalSample {
            iface,
            cell,
            power_w,
        } => {
            let serving = node.iface(*iface).map(|i| i.attachment());
            match serving {
                Some(Attachment::CellStation { cell: c, .. }) if c != *cell => None,
                _ => Some(LinkEvent::SignalSample {
                    iface: iface.0,
                    power_w: *power_w,
                }),
            }
        }
        Notification::LinkDetected { iface, .. } => Some(LinkEvent::LinkUp { iface: iface.0 }),
        Notification::LinkLost { iface, .. } => Some(LinkEvent::LinkDown { iface: iface.0 }),
        Notification::LinkGoingDown { iface, .. } => {
            Some(LinkEvent::LinkGoingDown { iface: iface.0 })
        }
        Notification::AddressAdded { iface, addr } => Some(LinkEvent::AddressObtained {
            iface: iface.0,
            addr: addr.addr(),
        }),
        Notification::AddressRemoved { iface, addr } => Some(LinkEvent::AddressLost {
            iface: iface.0,
            addr: addr.addr(),
        }),
        _ => None,
    }
}

/// One decision a policy took and what came of it.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionRecord {
    pub time: Time,
    pub decision: Decision,
    pub result: Result<(), AddressError>,
}

/// Bounds of a [`HandoverManager`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ManagerLimits {
    /// Link events kept while the association is not established.
    pub max_pending: usize,
    /// Decision records kept (all are counted).
    pub max_records: usize,
}

impl Default for ManagerLimits {
    fn default() -> Self {
        ManagerLimits {
            max_pending: 10_000,
            max_records: 100_000,
        }
    }
}

/// Runs one policy for one association.
pub struct HandoverManager {
    policy: Box<dyn HandoverPolicy>,
    pending: VecDeque<(Time, LinkEvent)>,
    limits: ManagerLimits,
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
            .field("decisions", &self.decisions)
            .finish()
    }
}

impl HandoverManager {
    pub fn new(policy: Box<dyn HandoverPolicy>, limits: ManagerLimits) -> Self {
        HandoverManager {
            policy,
            pending: VecDeque::new(),
            limits,
            records: Vec::new(),
            decisions: 0,
            pending_dropped: 0,
        }
    }

    pub fn policy_name(&self) -> &'static str {
        self.policy.name()
    }

    /// Decisions taken so far, with their outcome.
    pub fn records(&self) -> &[DecisionRecord] {
        &self.records
    }

    /// A link event. Without an established association it waits.
    pub fn on_link_event(&mut self, now: Time, ev: LinkEvent, assoc: Option<&mut Association>) {
        match assoc {
            Some(a) if a.state().is_established() => self.feed(now, &ev, a),
            _ => {
                if self.pending.len() >= self.limits.max_pending {
                    self.pending.pop_front();
                    self.pending_dropped += 1;
                }
                self.pending.push_back((now, ev));
            }
        }
    }

    /// The association is established: replays the waiting link events.
    pub fn on_established(&mut self, now: Time, assoc: &mut Association) {
        while let Some((_, ev)) = self.pending.pop_front() {
            self.feed(now, &ev, assoc);
        }
    }

    /// An association event (path down, address confirmed, ...).
    pub fn on_association_event(&mut self, now: Time, ev: &Event, assoc: &mut Association) {
        if !assoc.state().is_established() {
            return;
        }
        let d = self.policy.on_association_event(now, ev, assoc);
        self.carry_out(now, &d, assoc);
    }

    /// The association processed input or timers: a policy that watches
    /// the path statistics (AISLE) may decide. Returns whether it did.
    pub fn poll(&mut self, now: Time, assoc: &mut Association) -> bool {
        if !assoc.state().is_established() {
            return false;
        }
        let d = self.policy.poll(now, assoc);
        self.carry_out(now, &d, assoc);
        !d.is_empty()
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

    fn feed(&mut self, now: Time, ev: &LinkEvent, assoc: &mut Association) {
        let d = self.policy.on_link_event(now, ev, assoc);
        self.carry_out(now, &d, assoc);
    }

    fn carry_out(&mut self, now: Time, decisions: &[Decision], assoc: &mut Association) {
        if decisions.is_empty() {
            return;
        }
        let results = apply(assoc, decisions);
        for (decision, result) in decisions.iter().zip(results) {
            self.decisions += 1;
            if self.records.len() < self.limits.max_records {
                self.records.push(DecisionRecord {
                    time: now,
                    decision: *decision,
                    result,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::ids::{CellId, IfaceId, NodeId};
    use crate::kernel::node::NodeKind;

    #[test]
    fn notifications_map_to_link_events() {
        let node = Node::new(NodeId(0), "mn".into(), NodeKind::Host);
        let i = IfaceId(1);
        let c = CellId(0);
        assert_eq!(
            link_event(&Notification::LinkDetected { iface: i, cell: c }, &node),
            Some(LinkEvent::LinkUp { iface: 1 })
        );
        assert_eq!(
            link_event(&Notification::LinkLost { iface: i, cell: c }, &node),
            Some(LinkEvent::LinkDown { iface: 1 })
        );
        // Physical attach / detach is not something the station knows.
        assert_eq!(
            link_event(
                &Notification::LinkUp {
                    iface: i,
                    cell: Some(c)
                },
                &node
            ),
            None
        );
        let addr = "10.1.0.10/24".parse().unwrap();
        assert_eq!(
            link_event(&Notification::AddressAdded { iface: i, addr }, &node),
            Some(LinkEvent::AddressObtained {
                iface: 1,
                addr: "10.1.0.10".parse().unwrap()
            })
        );
        assert_eq!(
            link_event(&Notification::AddressRemoved { iface: i, addr }, &node),
            Some(LinkEvent::AddressLost {
                iface: 1,
                addr: "10.1.0.10".parse().unwrap()
            })
        );
        // Interface 1 does not exist on this node: the sample passes.
        assert_eq!(
            link_event(
                &Notification::SignalSample {
                    iface: i,
                    cell: c,
                    power_w: 1e-9
                },
                &node
            ),
            Some(LinkEvent::SignalSample {
                iface: 1,
                power_w: 1e-9
            })
        );
    }
}
