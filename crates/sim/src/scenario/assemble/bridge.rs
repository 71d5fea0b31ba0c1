//! The link-decision bridge: the TCP handoff schemes of E4
//! ([`crate::models::handoff`], [`crate::models::cmhn`]) act on
//! [`LinkDecision`](crate::models::handoff::LinkDecision) notifications; the radio
//! driver raises the link layer's decisions as
//! `Notification::LinkDetected` (link up after the decision latency x) and
//! `Notification::LinkLost` (link down, y after the last usable beacon).
//! This agent, on the mobile, turns the second into the first for the
//! node's other agents:
//!
//! - a network is declared usable (`Up`) once its link is detected *and*
//!   the interface holds an address: at `LinkDetected` if the address is
//!   already there, else at the interface's next `AddressAdded` (the radio
//!   adds it after the cell's acquisition latency, at the same instant
//!   when that latency is zero). A scheme then never binds a connection to
//!   an address the node does not hold yet;
//! - it is declared gone (`Down`) at `LinkLost`.

use std::collections::BTreeSet;

use crate::kernel::ids::IfaceId;
use crate::kernel::notification::Notification;
use crate::kernel::{Agent, Ctx};
use crate::models::handoff::LinkDecision;

/// See the module documentation.
#[derive(Debug, Default)]
pub(crate) struct DecisionBridge {
    /// Links detected whose interface has no address yet.
    waiting: BTreeSet<IfaceId>,
    pub(crate) ups: u64,
    pub(crate) downs: u64,
}

impl DecisionBridge {
    fn up(&mut self, ctx: &mut Ctx<'_>, iface: IfaceId) {
        self.waiting.remove(&iface);
        self.ups += 1;
        ctx.notify(LinkDecision::Up { iface }.notification());
    }
}

impl Agent for DecisionBridge {
    fn on_notify(&mut self, ctx: &mut Ctx<'_>, n: &Notification) {
        match n {
            Notification::LinkDetected { iface, .. } => {
                let has_addr = ctx
                    .node()
                    .iface(*iface)
                    .is_some_and(|i| !i.addrs().is_empty());
                if has_addr {
                    self.up(ctx, *iface);
                } else {
                    self.waiting.insert(*iface);
                }
            }
            Notification::AddressAdded { iface, .. } if self.waiting.contains(iface) => {
                self.up(ctx, *iface);
            }
            Notification::LinkLost { iface, .. } => {
                self.waiting.remove(iface);
                self.downs += 1;
                ctx.notify(LinkDecision::Down { iface: *iface }.notification());
            }
            _ => {}
        }
    }
}
