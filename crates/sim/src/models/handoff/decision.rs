//! The link-layer decisions the handoff schemes act on (E4): after `x`
//! seconds of beacons a network is declared usable, after `y` seconds
//! without it is declared gone. These are decisions, not the physical
//! attachment: a station may be attached to a cell (and lose what is sent
//! there) before the decision to use it, or after the link died and before
//! the decision that it is gone.

use crate::kernel::ids::IfaceId;
use crate::kernel::notification::Notification;

/// A decision about one interface's network, delivered to the node's
/// agents as `Notification::custom(LinkDecision::..)` (e.g. by the radio
/// driver from `RadioEvent::LinkUp` / `RadioEvent::LinkDown`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkDecision {
    /// The network of `iface` is usable.
    Up { iface: IfaceId },
    /// The network of `iface` is gone.
    Down { iface: IfaceId },
}

/// Which notifications a scheme treats as link decisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TriggerSource {
    /// Only [`LinkDecision`] custom notifications.
    #[default]
    Decisions,
    /// Also the simulator's own `LinkUp` / `LinkDown` (attach, detach,
    /// interface state): decisions with zero latency.
    LinkNotifications,
}

impl LinkDecision {
    /// Reads a decision out of a notification, as `source` allows.
    pub fn from_notification(n: &Notification, source: TriggerSource) -> Option<LinkDecision> {
        if let Some(d) = n.downcast::<LinkDecision>() {
            return Some(*d);
        }
        if source == TriggerSource::LinkNotifications {
            return match n {
                Notification::LinkUp { iface, .. } => Some(LinkDecision::Up { iface: *iface }),
                Notification::LinkDown { iface, .. } => Some(LinkDecision::Down { iface: *iface }),
                _ => None,
            };
        }
        None
    }

    pub fn iface(&self) -> IfaceId {
        match *self {
            LinkDecision::Up { iface } | LinkDecision::Down { iface } => iface,
        }
    }

    /// The notification carrying this decision.
    pub fn notification(self) -> Notification {
        Notification::custom(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_and_link_notifications() {
        let i = IfaceId(1);
        let d = LinkDecision::Up { iface: i };
        assert_eq!(
            LinkDecision::from_notification(&d.notification(), TriggerSource::Decisions),
            Some(d)
        );
        let up = Notification::LinkUp {
            iface: i,
            cell: None,
        };
        assert_eq!(
            LinkDecision::from_notification(&up, TriggerSource::Decisions),
            None
        );
        assert_eq!(
            LinkDecision::from_notification(&up, TriggerSource::LinkNotifications),
            Some(d)
        );
        assert_eq!(d.iface(), i);
    }
}
