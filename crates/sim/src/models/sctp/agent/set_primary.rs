//! "ns-2 set-primary": the handover of the studies that ran ns-2's SCTP
//! module (Song and Wang, Tsang et al.), as that module made it. Its
//! `set-primary-destination` command only sets the sender's own primary
//! destination (`SetPrimary()` in ns-2's `sctp/sctp.cc` sets
//! `spPrimaryDest` and sends nothing) and the module has no ADD-IP code,
//! so in those runs:
//! - every address of the mobile is in the association from the INIT
//!   (RFC 9260 section 5.1.2: an INIT lists all the sender's addresses),
//!   whether or not its network is in reach yet;
//! - at the handoff instant the script switches the primary locally at
//!   both ends: the mobile sends from its new address and the
//!   correspondent sends to it ([`ScriptedPrimary`], delivered to the
//!   correspondent's agent at the same virtual time, no packet);
//! - no ASCONF (RFC 5061) crosses the network, and addresses are never
//!   added or deleted.
//!
//! The instants are those at which the RFC 5061 variant's policy decides
//! ([`LocalSwitch`]): a new address of a faster network (by the policy's
//! rates), or any new address when no rates are given (the newest
//! address); and, when the link of the address in use is going down or
//! lost, the fastest other address whose link is up.
//!
//! One difference from ns-2 remains: our engine sends no DATA to an
//! address it has not confirmed (RFC 9260 section 5.4), or to an inactive
//! one, where ns-2's module had no path verification. When the
//! correspondent is told to send to such an address it probes it with a
//! HEARTBEAT at once, and the data follows the answer one round trip later
//! (until then it keeps going to the old address).

use std::collections::BTreeMap;
use std::net::IpAddr;

use msctp_proto::path::PathState;

use super::SctpAgent;
use crate::kernel::Ctx;
use crate::kernel::ids::{AgentId, IfaceId};
use crate::kernel::node::{Attachment, Node};
use crate::kernel::notification::Notification;

/// The mobile's local switch of the primary (see the module
/// documentation).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LocalSwitch {
    /// The correspondent's agent, told of each switch.
    pub peer_agent: Option<AgentId>,
    /// Nominal rate (bit/s) of each interface's network, by interface
    /// index: a new address becomes primary when its network is faster
    /// than the current one's. Empty: every new address does.
    pub rates: BTreeMap<u32, u64>,
}

/// The script's order to the correspondent: send to `addr` (one of the
/// mobile's addresses) from now on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScriptedPrimary {
    pub addr: IpAddr,
}

/// The interface is up and attached (to a link or a cell).
fn iface_up(node: &Node, iface: IfaceId) -> bool {
    node.iface(iface)
        .is_some_and(|i| i.is_up() && i.attachment() != Attachment::None)
}

impl LocalSwitch {
    fn rate(&self, iface: Option<IfaceId>) -> u64 {
        iface
            .and_then(|i| self.rates.get(&i.0).copied())
            .unwrap_or(0)
    }

    /// The address the primary moves to on `n`, if it moves: `current` is
    /// the mobile's address in use, `addrs` its addresses in the
    /// association.
    pub fn decide(
        &self,
        n: &Notification,
        node: &Node,
        current: Option<IpAddr>,
        addrs: &[IpAddr],
    ) -> Option<IpAddr> {
        match n {
            Notification::AddressAdded { iface, addr } if addrs.contains(&addr.addr()) => {
                let new = addr.addr();
                let better = match current {
                    None => true,
                    Some(c) if c == new => false,
                    Some(c) => {
                        let held = node.iface_of_addr(c);
                        !held.is_some_and(|i| iface_up(node, i))
                            || self.rates.is_empty()
                            || self.rate(Some(*iface)) > self.rate(held)
                    }
                };
                better.then_some(new)
            }
            Notification::LinkGoingDown { iface, .. } | Notification::LinkLost { iface, .. } => {
                let c = current?;
                (node.iface_of_addr(c) == Some(*iface)).then_some(())?;
                self.best_other(node, c, addrs)
            }
            Notification::AddressRemoved { addr, .. } if current == Some(addr.addr()) => {
                self.best_other(node, addr.addr(), addrs)
            }
            _ => None,
        }
    }

    /// The fastest address other than `not` that the node holds on an
    /// interface that is up.
    fn best_other(&self, node: &Node, not: IpAddr, addrs: &[IpAddr]) -> Option<IpAddr> {
        let old_iface = node.iface_of_addr(not);
        addrs
            .iter()
            .filter(|a| **a != not)
            .filter_map(|a| node.iface_of_addr(*a).map(|i| (*a, i)))
            .filter(|(_, i)| Some(*i) != old_iface && iface_up(node, *i))
            .max_by_key(|(_, i)| self.rate(Some(*i)))
            .map(|(a, _)| a)
    }
}

impl SctpAgent {
    /// The mobile's addresses for the INIT in set-primary mode: those the
    /// node holds now (`held`, the INIT leaves from the first), then the
    /// others of the flow's addresses of the same family.
    pub(super) fn init_addresses(&self, held: Vec<IpAddr>) -> Vec<IpAddr> {
        if self.cfg.local_switch.is_none() {
            return held;
        }
        let v4 = held.first().is_some_and(|a| a.is_ipv4());
        let mut all = held;
        for a in &self.cfg.path_addrs {
            if a.is_ipv4() == v4 && !all.contains(a) {
                all.push(*a);
            }
        }
        all
    }

    /// The mobile in set-primary mode: switches on link notifications.
    pub(super) fn on_local_switch(&mut self, ctx: &mut Ctx<'_>, n: &Notification) {
        let Some(ls) = self.cfg.local_switch.as_ref() else {
            return;
        };
        let Some(a) = self.association() else {
            return;
        };
        let addrs: Vec<IpAddr> = a.local_addresses().iter().map(|l| l.addr).collect();
        let Some(to) = ls.decide(n, ctx.node(), a.local_primary(), &addrs) else {
            return;
        };
        let peer = ls.peer_agent;
        let now = ctx.now();
        if let Some(a) = self.association_mut() {
            let _ = a.set_local_primary(Some(to));
        }
        self.event(now, "set-primary", format!("local {to}"));
        if let Some(p) = peer {
            ctx.notify_agent(p, Notification::custom(ScriptedPrimary { addr: to }));
        }
        self.bandwidth_aware_start_from(now, to);
        self.drive(ctx);
    }

    /// The correspondent told by the script to send to `addr`.
    pub(super) fn on_scripted_primary(&mut self, ctx: &mut Ctx<'_>, addr: IpAddr) {
        let now = ctx.now();
        let Some(a) = self.association_mut() else {
            return;
        };
        let _ = a.set_primary(addr);
        let usable = a
            .path_stats(addr)
            .is_some_and(|p| p.confirmed && p.state == PathState::Active);
        if !usable {
            let _ = a.probe_path(now, addr);
        }
        self.event(now, "set-primary", format!("destination {addr}"));
        self.drive(ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::ids::{CellId, NodeId};
    use crate::kernel::node::{Iface, NodeKind};

    const UMTS: &str = "10.1.0.10";
    const WLAN: &str = "10.2.0.10";

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    /// A mobile with a UMTS interface (0) and a WLAN interface (1), each
    /// attached and holding its address when `in_cell`.
    fn mobile(umts: bool, wlan: bool) -> Node {
        let mut n = Node::new(NodeId(0), "mn".into(), NodeKind::Host);
        for (k, (addr, in_cell)) in [(UMTS, umts), (WLAN, wlan)].into_iter().enumerate() {
            let mut i = Iface::new(IfaceId(k as u32), format!("if{k}"));
            if in_cell {
                i.addrs.push(format!("{addr}/24").parse().unwrap());
                i.attachment = Attachment::CellStation {
                    cell: CellId(k as u32),
                    slot: 0,
                };
            }
            n.ifaces.push(i);
        }
        n.reindex_addrs();
        n
    }

    fn fastest_first() -> LocalSwitch {
        LocalSwitch {
            peer_agent: None,
            rates: BTreeMap::from([(0, 2_000_000), (1, 11_000_000)]),
        }
    }

    /// E1's instants: to the WLAN when its address comes, back to UMTS
    /// when the WLAN link is going down; a slower network's address does
    /// not take over, an event on another interface changes nothing.
    #[test]
    fn fastest_first_instants() {
        let ls = fastest_first();
        let addrs = [ip(UMTS), ip(WLAN)];
        let both = mobile(true, true);
        let wlan_added = Notification::AddressAdded {
            iface: IfaceId(1),
            addr: format!("{WLAN}/24").parse().unwrap(),
        };
        assert_eq!(
            ls.decide(&wlan_added, &both, Some(ip(UMTS)), &addrs),
            Some(ip(WLAN))
        );
        let umts_added = Notification::AddressAdded {
            iface: IfaceId(0),
            addr: format!("{UMTS}/24").parse().unwrap(),
        };
        assert_eq!(ls.decide(&umts_added, &both, Some(ip(WLAN)), &addrs), None);
        let going_down = Notification::LinkGoingDown {
            iface: IfaceId(1),
            cell: Some(CellId(1)),
        };
        assert_eq!(
            ls.decide(&going_down, &both, Some(ip(WLAN)), &addrs),
            Some(ip(UMTS))
        );
        assert_eq!(ls.decide(&going_down, &both, Some(ip(UMTS)), &addrs), None);
        // Nowhere to go: the WLAN alone.
        let wlan_only = mobile(false, true);
        assert_eq!(
            ls.decide(&going_down, &wlan_only, Some(ip(WLAN)), &addrs),
            None
        );
    }

    /// Without rates (newest address) every new address takes over, and
    /// an address the node no longer holds is left at once.
    #[test]
    fn newest_address_instants() {
        let ls = LocalSwitch::default();
        let addrs = [ip(UMTS), ip(WLAN)];
        let umts_added = Notification::AddressAdded {
            iface: IfaceId(0),
            addr: format!("{UMTS}/24").parse().unwrap(),
        };
        assert_eq!(
            ls.decide(&umts_added, &mobile(true, true), Some(ip(WLAN)), &addrs),
            Some(ip(UMTS))
        );
        let wlan_removed = Notification::AddressRemoved {
            iface: IfaceId(1),
            addr: format!("{WLAN}/24").parse().unwrap(),
        };
        assert_eq!(
            ls.decide(&wlan_removed, &mobile(true, false), Some(ip(WLAN)), &addrs),
            Some(ip(UMTS))
        );
        // An address outside the association is not switched to.
        let other = Notification::AddressAdded {
            iface: IfaceId(0),
            addr: "10.9.0.10/24".parse().unwrap(),
        };
        assert_eq!(
            ls.decide(&other, &mobile(true, true), Some(ip(WLAN)), &addrs),
            None
        );
    }
}
