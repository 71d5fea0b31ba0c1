//! The simulator's adapter to the engine's handover manager
//! (`msctp_proto::handover`, the one real hosts run too): it turns the
//! node's link- and IP-layer notifications into the [`LinkEvent`]s of
//! `msctp_proto::policy` and shows the manager the node's interfaces
//! ([`NodeLinks`]); the manager runs the policy and carries its decisions
//! out on the association (ASCONF Add IP / Set Primary / Delete IP,
//! docs/MODELS.md sections 1.4 and 3).
//!
//! The manager runs inside the SCTP agent ([`crate::models::sctp::SctpAgent`]) rather than as
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
//! Events that arrive before the association is established are kept by
//! the manager (up to a bound; older ones are dropped and counted) and
//! replayed in order when it is.

use std::net::IpAddr;

pub use msctp_proto::handover::{DecisionRecord, HandoverConfig, HandoverManager, Links};
use msctp_proto::policy::LinkEvent;
pub use msctp_proto::policy::PolicyKind;

use crate::kernel::ids::IfaceId;
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

/// The node's interfaces as the handover manager sees them: interface
/// numbers are [`IfaceId`](crate::IfaceId) indices, a link is up while the
/// interface is up and attached (to a link or a cell), and a local address
/// is on link with a peer address when the peer lies in its prefix.
pub struct NodeLinks<'a>(pub &'a Node);

impl Links for NodeLinks<'_> {
    fn iface_of(&self, local: IpAddr) -> Option<u32> {
        self.0.iface_of_addr(local).map(|i| i.0)
    }

    fn is_up(&self, iface: u32) -> bool {
        self.0
            .iface(IfaceId(iface))
            .is_some_and(|i| i.is_up() && i.attachment() != Attachment::None)
    }

    fn on_link_with(&self, peer: IpAddr, locals: &[IpAddr]) -> Option<IpAddr> {
        self.0
            .ifaces()
            .iter()
            .flat_map(|i| i.addrs())
            .filter(|n| locals.contains(&n.addr()) && n.contains(&peer))
            .max_by_key(|n| n.prefix_len())
            .map(|n| n.addr())
    }
}

/// The handover settings the simulator's mobile runs with: the engine's
/// ([`HandoverConfig::default`]) except that the outstanding data of a dead
/// link is left to the retransmission timer, as in the studies the
/// simulator reproduces.
pub fn sim_handover_config() -> HandoverConfig {
    HandoverConfig {
        move_data_on_link_down: false,
        ..HandoverConfig::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::ids::{CellId, NodeId};
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
