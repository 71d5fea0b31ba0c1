//! Handover on a real host: a thin adapter around the engine's handover
//! manager (`msctp_proto::handover`, the one the simulator runs too). The
//! interface monitor's [`LinkEvent`]s and the association's events go to
//! the manager with the driver's time and the host's view of its links
//! ([`Interfaces`], which knows which local address shares a subnet with
//! which peer address); the moves it makes become [`Handover`] reports.

use std::net::IpAddr;

use msctp_proto::handover::{DecisionRecord, HandoverConfig, HandoverManager, Links, Move};
use msctp_proto::policy::{IfaceId, LinkEvent};
use msctp_proto::{Association, Event, Time};

pub use msctp_proto::handover::pair_paths;

use crate::config::PolicyKind;
use crate::monitor::Interfaces;

/// One handover as it happened.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Handover {
    /// Driver time (nanoseconds since the stack started).
    pub at_ns: u64,
    /// Local address data left from, and the one it leaves from now.
    pub from_local: Option<IpAddr>,
    pub to_local: IpAddr,
    /// Peer address new data went to, and goes to now.
    pub from_peer: Option<IpAddr>,
    pub to_peer: Option<IpAddr>,
    /// The link under the old path was down.
    pub link_down: bool,
    /// DATA chunks resent at once from the old path (outstanding there).
    pub retransmitted: usize,
    /// When the driver read the interface change that caused it (driver
    /// time, ns), for a handover decided on a link event.
    pub link_event_ns: Option<u64>,
    /// When the first packet after the decision was handed to the kernel
    /// (driver time, ns).
    pub sent_ns: Option<u64>,
}

impl From<Move> for Handover {
    fn from(m: Move) -> Self {
        Handover {
            at_ns: m.at.as_nanos(),
            from_local: m.from_local,
            to_local: m.to_local,
            from_peer: m.from_peer,
            to_peer: m.to_peer,
            link_down: m.link_down,
            retransmitted: m.retransmitted,
            link_event_ns: None,
            sent_ns: None,
        }
    }
}

impl Links for Interfaces {
    fn iface_of(&self, local: IpAddr) -> Option<IfaceId> {
        Interfaces::iface_of(self, local)
    }
    fn is_up(&self, iface: IfaceId) -> bool {
        Interfaces::is_up(self, iface)
    }
    fn on_link_with(&self, peer: IpAddr, locals: &[IpAddr]) -> Option<IpAddr> {
        Interfaces::on_link_with(self, peer, locals)
    }
}

fn handovers(moves: Vec<Move>) -> Vec<Handover> {
    moves.into_iter().map(Handover::from).collect()
}

/// The handover manager of one association (`None`: no policy,
/// `PolicyKind::None`, addresses stay as they are).
#[derive(Debug)]
pub struct Mobility {
    manager: Option<HandoverManager>,
}

impl Mobility {
    pub fn new(kind: &PolicyKind, ifaces: &Interfaces, move_data: bool) -> Self {
        let cfg = HandoverConfig {
            move_data_on_link_down: move_data,
            ..HandoverConfig::default()
        };
        let manager = kind
            .map_interfaces(|name| ifaces.index_of(name))
            .build(rand::random)
            .map(|p| HandoverManager::new(p, cfg));
        Mobility { manager }
    }

    pub fn policy_name(&self) -> &'static str {
        self.manager.as_ref().map_or("none", |m| m.policy_name())
    }

    /// The policy's decisions so far, with their outcome.
    pub fn records(&self) -> &[DecisionRecord] {
        self.manager.as_ref().map_or(&[], |m| m.records())
    }

    /// Feeds the current interface state to a fresh policy, then applies
    /// what it decides (e.g. fastest-first picks the fastest link).
    pub fn start(
        &mut self,
        now: Time,
        assoc: &mut Association,
        ifaces: &Interfaces,
    ) -> Vec<Handover> {
        pair_paths(assoc, ifaces);
        self.on_link_events(now, &ifaces.snapshot_events(), assoc, ifaces)
    }

    /// Link-layer events: the manager asks the policy and carries its
    /// decisions out (holding a move onto a returning link until the path
    /// over it answers a heartbeat).
    pub fn on_link_events(
        &mut self,
        now: Time,
        events: &[LinkEvent],
        assoc: &mut Association,
        ifaces: &Interfaces,
    ) -> Vec<Handover> {
        let Some(m) = self.manager.as_mut() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for ev in events {
            out.extend(handovers(m.on_link_event(
                now,
                ev.clone(),
                Some(&mut *assoc),
                ifaces,
            )));
        }
        out
    }

    /// Carries out a held move once its path answered a heartbeat or the
    /// wait is over, and lets a policy watching the path statistics
    /// decide; call it whenever the association has done something.
    pub fn poll(
        &mut self,
        now: Time,
        assoc: &mut Association,
        ifaces: &Interfaces,
    ) -> Vec<Handover> {
        match self.manager.as_mut() {
            Some(m) => handovers(m.poll(now, assoc, ifaces).0),
            None => Vec::new(),
        }
    }

    /// Association events (addresses confirmed, paths down, ...).
    pub fn on_event(
        &mut self,
        now: Time,
        ev: &Event,
        assoc: &mut Association,
        ifaces: &Interfaces,
    ) -> Vec<Handover> {
        // (The driver has paired the paths with their sources already.)
        let Some(m) = self.manager.as_mut() else {
            return Vec::new();
        };
        let mut out = handovers(m.on_association_event(now, ev, assoc, ifaces));
        out.extend(self.poll(now, assoc, ifaces));
        out
    }
}
