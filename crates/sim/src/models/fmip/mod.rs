//! Fast Handovers for Mobile IPv6 (FMIPv6, RFC 5568) in the simulator
//! (docs/MODELS.md section 2.2).
//!
//! The access-router side is [`FmipRouter`] (previous and new router
//! roles); the mobile side is [`crate::models::mip::v6::MobileNode6`] with
//! `fast_handovers` set. The predictive sequence is: the mobile node hears
//! the new access point (`BeaconDetected`), asks its router (RtSolPr), gets
//! the new router's prefix (PrRtAdv), forms its new care-of address and
//! sends a Fast Binding Update; the previous router exchanges Handover
//! Initiate / Acknowledge with the new router, tunnels the packets for the
//! previous care-of address to the new one and acknowledges (FBack); the
//! new router buffers them until the mobile node, attached, announces
//! itself (UNA); then Mobile IPv6 binding updates move the traffic to the
//! new care-of address.
//!
//! When the mobile node attaches to the new router is the scenario's
//! choice: [`AttachTiming`] and [`schedule_move`]:
//! - early: it leaves before the previous router forwards: packets sent to
//!   the old link meanwhile are lost, as with plain Mobile IP; the Fast
//!   Binding Update is then sent from the new link (reactive mode);
//! - ideal: it leaves when the Fast Binding Acknowledgement arrives: the
//!   new router holds the forwarded packets and delivers them after the
//!   announcement, so the only blackout is the link switch and the
//!   announcement's travel;
//! - late: it stays on the old link after the previous router started
//!   forwarding: its packets wait in the new router's buffer (delay, and
//!   loss once the bounded buffer is full) while it is still on the old
//!   link.

mod router;
mod settings;

use std::time::Duration;

pub use router::{FmipRouter, FmipRouterConfig, FmipRouterRecord, FmipRouterStats, Neighbour};
pub use settings::{Attach, FmipSettings};

use crate::kernel::ids::{AgentId, CellId, IfaceId, NodeId};
use crate::models::mip::v6::MobileNode6;
use crate::{Time, World};

/// When the mobile node moves to the new access router.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttachTiming {
    /// This long after the trigger (before forwarding starts if short).
    Early { after_trigger: Duration },
    /// As soon as the Fast Binding Acknowledgement arrives.
    Ideal,
    /// This long after the Fast Binding Acknowledgement arrives.
    Late { after_fback: Duration },
}

/// A move from one link to another for [`schedule_move`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    pub node: NodeId,
    /// The mobile node's FMIPv6 client.
    pub client: AgentId,
    /// The interface that leaves the previous cell (detached at the move).
    pub old_iface: Option<IfaceId>,
    /// The interface that attaches to the new cell, and the cell.
    pub new_iface: IfaceId,
    pub new_cell: CellId,
    /// Link-layer switching time between detaching and attaching.
    pub switch_delay: Duration,
}

/// Triggers a fast handover at `trigger_at` (a `BeaconDetected` of the new
/// cell on the new interface) and moves the mobile node with the chosen
/// timing. With [`AttachTiming::Ideal`] or [`AttachTiming::Late`] the
/// acknowledgement is watched every `poll` (the move happens at most that
/// much after it); if none arrives within `give_up`, the node moves then.
pub fn schedule_move(
    w: &mut World,
    m: Move,
    trigger_at: Time,
    timing: AttachTiming,
    poll: Duration,
    give_up: Duration,
) {
    w.at(trigger_at, move |w| {
        let _ = w.notify(
            m.node,
            crate::Notification::BeaconDetected {
                iface: m.new_iface,
                cell: m.new_cell,
            },
        );
    });
    match timing {
        AttachTiming::Early { after_trigger } => {
            w.at(trigger_at + after_trigger, move |w| do_move(w, m));
        }
        AttachTiming::Ideal => watch(w, m, trigger_at, Duration::ZERO, poll, trigger_at + give_up),
        AttachTiming::Late { after_fback } => {
            watch(w, m, trigger_at, after_fback, poll, trigger_at + give_up)
        }
    }
}

fn watch(w: &mut World, m: Move, at: Time, extra: Duration, poll: Duration, deadline: Time) {
    let poll = poll.max(Duration::from_nanos(1));
    w.at(at, move |w| {
        let now = w.now();
        let fback = w
            .agent::<MobileNode6>(m.client)
            .and_then(|c| c.fast_record().fback_at);
        match fback {
            Some(t) => w.at(t.max(now) + extra, move |w| do_move(w, m)),
            None if now >= deadline => do_move(w, m),
            None => watch(w, m, now + poll, extra, poll, deadline),
        }
    });
}

fn do_move(w: &mut World, m: Move) {
    if let Some(old) = m.old_iface {
        let _ = w.detach(m.node, old);
    }
    let at = w.now() + m.switch_delay;
    w.at(at, move |w| {
        let _ = w.attach(m.node, m.new_iface, m.new_cell);
    });
}
