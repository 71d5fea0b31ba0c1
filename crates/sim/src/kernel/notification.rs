//! Notifications: link-layer and IP events delivered to the agents of one
//! node ([`Agent::on_notify`](crate::Agent::on_notify)), and the way agents
//! of one node talk to each other.
//!
//! The simulator itself raises `LinkUp`/`LinkDown` (interface state, link
//! cut/restore, station attach/detach), `AddressAdded`/`AddressRemoved`,
//! and `StationAttached`/`StationDetached` at the access point. The radio
//! model's events (beacons, signal samples, "link going down") are raised
//! by whoever drives it, through [`World::notify`](crate::World::notify).
//! Agents post `Custom` notifications with [`Ctx::notify`](crate::Ctx::notify)
//! (to every other agent of the node) or
//! [`Ctx::notify_agent`](crate::Ctx::notify_agent) (to one): e.g. a mobility
//! manager telling the SCTP agent that a new address is usable. They are
//! delivered in order, after the current callback returns, at the same
//! virtual time.

use std::any::Any;
use std::fmt;
use std::net::IpAddr;
use std::rc::Rc;

use ipnet::IpNet;

use crate::kernel::ids::{CellId, IfaceId, NodeId};

/// An event for the agents of a node.
#[derive(Clone)]
#[non_exhaustive]
pub enum Notification {
    /// The interface can carry packets again (administratively up, link
    /// restored, station attached to `cell`).
    LinkUp {
        iface: IfaceId,
        cell: Option<CellId>,
    },
    /// The interface cannot carry packets (down, link cut, station detached
    /// from `cell`).
    LinkDown {
        iface: IfaceId,
        cell: Option<CellId>,
    },
    /// The link layer predicts the loss of the link (e.g. signal falling).
    LinkGoingDown {
        iface: IfaceId,
        cell: Option<CellId>,
    },
    AddressAdded {
        iface: IfaceId,
        addr: IpNet,
    },
    AddressRemoved {
        iface: IfaceId,
        addr: IpNet,
    },
    /// A beacon / advertisement of `cell` was first heard on `iface`.
    BeaconDetected {
        iface: IfaceId,
        cell: CellId,
    },
    /// Beacons of `cell` are no longer heard on `iface`.
    BeaconLost {
        iface: IfaceId,
        cell: CellId,
    },
    /// Received power sample of `cell`'s beacon on `iface`, in watts.
    SignalSample {
        iface: IfaceId,
        cell: CellId,
        power_w: f64,
    },
    /// At the access point: a station interface attached to its cell.
    StationAttached {
        ap_iface: IfaceId,
        cell: CellId,
        node: NodeId,
        iface: IfaceId,
    },
    /// At the access point: a station interface left its cell.
    StationDetached {
        ap_iface: IfaceId,
        cell: CellId,
        node: NodeId,
        iface: IfaceId,
    },
    /// An address obtained by some configuration protocol the simulator
    /// does not model in packets (DHCP, SLAAC) and that the receiver
    /// should configure; the raiser decides.
    AddressObtained {
        iface: IfaceId,
        addr: IpNet,
        router: Option<IpAddr>,
    },
    /// The station's link layer decides that `cell` is usable on `iface`
    /// (usable beacons for the decision latency x). Unlike `LinkUp`, which
    /// follows the physical attachment, this is what the station knows.
    LinkDetected {
        iface: IfaceId,
        cell: CellId,
    },
    /// The station's link layer decides that `cell` is gone on `iface` (no
    /// usable beacon for the decision latency y), possibly long after the
    /// physical `LinkDown`.
    LinkLost {
        iface: IfaceId,
        cell: CellId,
    },
    /// Anything else: agent-to-agent messages. Receivers downcast.
    Custom(Rc<dyn Any>),
}

impl Notification {
    /// Wraps a value as a custom notification.
    pub fn custom<T: Any>(value: T) -> Notification {
        Notification::Custom(Rc::new(value))
    }

    /// The value of a custom notification, if it is a `T`.
    pub fn downcast<T: Any>(&self) -> Option<&T> {
        match self {
            Notification::Custom(v) => v.downcast_ref::<T>(),
            _ => None,
        }
    }
}

impl fmt::Debug for Notification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notification::LinkUp { iface, cell } => write!(f, "LinkUp({iface}, {cell:?})"),
            Notification::LinkDown { iface, cell } => write!(f, "LinkDown({iface}, {cell:?})"),
            Notification::LinkGoingDown { iface, cell } => {
                write!(f, "LinkGoingDown({iface}, {cell:?})")
            }
            Notification::AddressAdded { iface, addr } => {
                write!(f, "AddressAdded({iface}, {addr})")
            }
            Notification::AddressRemoved { iface, addr } => {
                write!(f, "AddressRemoved({iface}, {addr})")
            }
            Notification::BeaconDetected { iface, cell } => {
                write!(f, "BeaconDetected({iface}, {cell})")
            }
            Notification::BeaconLost { iface, cell } => write!(f, "BeaconLost({iface}, {cell})"),
            Notification::SignalSample {
                iface,
                cell,
                power_w,
            } => {
                write!(f, "SignalSample({iface}, {cell}, {power_w:e} W)")
            }
            Notification::StationAttached {
                ap_iface,
                cell,
                node,
                iface,
            } => {
                write!(f, "StationAttached({ap_iface}, {cell}, {node}/{iface})")
            }
            Notification::StationDetached {
                ap_iface,
                cell,
                node,
                iface,
            } => {
                write!(f, "StationDetached({ap_iface}, {cell}, {node}/{iface})")
            }
            Notification::AddressObtained {
                iface,
                addr,
                router,
            } => {
                write!(f, "AddressObtained({iface}, {addr}, {router:?})")
            }
            Notification::LinkDetected { iface, cell } => {
                write!(f, "LinkDetected({iface}, {cell})")
            }
            Notification::LinkLost { iface, cell } => write!(f, "LinkLost({iface}, {cell})"),
            Notification::Custom(_) => write!(f, "Custom(..)"),
        }
    }
}
