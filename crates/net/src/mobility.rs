//! Handover on a real host: a thin adapter around the engine's handover
//! manager (`msctp_proto::handover`, the one the simulator runs too). The
//! interface monitor's [`LinkEvent`]s and the association's events go to
//! the manager with the driver's time and the host's view of its links
//! ([`Interfaces`], which knows which local address shares a subnet with
//! which peer address); the moves it makes become [`Handover`] reports.

use std::net::IpAddr;

use msctp_proto::handover::{
    DecisionRecord, HandoverConfig, HandoverManager, Links, Move, usable_locals,
};
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
    /// what it decides (e.g. fastest-first picks the fastest link). The
    /// state includes the association's own addresses the host lost while
    /// it was being set up (after the addresses the host has, so that a
    /// single-radio mobile adds its new address before it deletes the old
    /// one: an association never deletes its last address, RFC 5061
    /// section 5.3): an address kept by mistake
    /// would later be the Address Parameter of an ASCONF the peer cannot
    /// resolve (RFC 5061 section 5.2), and the association would be lost
    /// at the next move.
    pub fn start(
        &mut self,
        now: Time,
        assoc: &mut Association,
        ifaces: &Interfaces,
    ) -> Vec<Handover> {
        pair_paths(assoc, ifaces);
        let mut events = ifaces.snapshot_events();
        events.extend(ifaces.lost_events(&usable_locals(assoc)));
        self.on_link_events(now, &events, assoc, ifaces)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::IfaceChange;
    use msctp_proto::EndpointConfig;
    use msctp_proto::asconf::LocalAddrState;
    use msctp_proto::testing::{Link, Pair, Side, ip};
    use std::time::Duration;

    /// A single-radio mobile starts an association from its address A; A
    /// goes and B comes before the handshake ends (the driver hands link
    /// events to established associations only). When the policy starts,
    /// B is added and A deleted: an association that kept A would later
    /// locate its ASCONFs by an address the peer never heard of, and the
    /// peer would answer them with an ABORT (`msctp soak` lost file
    /// associations this way).
    #[test]
    fn a_policy_starting_late_deletes_what_the_host_lost_meanwhile() {
        let (a, b, cn) = (ip("10.52.3.52"), ip("10.52.2.221"), ip("10.52.100.1"));
        // The handshake, in memory and in no time (the peer sees the INIT
        // from `a`).
        let mobile = (EndpointConfig::new(5002), &[a][..], [7; 32]);
        let peer = (EndpointConfig::new(5003), &[cn][..], [8; 32]);
        let mut p: Pair = Pair::with_secrets(mobile, peer, Link::new(Duration::ZERO), 0);
        let (id, _) = p.establish().expect("the handshake completes");
        let ep = p.endpoint(Side::A);
        assert!(ep.association(id).unwrap().state().is_established());
        let mut ifaces = Interfaces::new(vec!["s0".into()]);
        for c in [
            IfaceChange::Link {
                index: 2,
                name: "s0".into(),
                up: true,
            },
            IfaceChange::AddrAdded {
                index: 2,
                addr: a,
                prefix_len: 24,
            },
            IfaceChange::AddrRemoved { index: 2, addr: a },
            IfaceChange::AddrAdded {
                index: 2,
                addr: b,
                prefix_len: 24,
            },
        ] {
            ifaces.apply(&c);
        }
        let assoc = ep.association_mut(id).unwrap();
        let mut m = Mobility::new(&PolicyKind::NewestAddress, &ifaces, false);
        m.start(Time::ZERO, assoc, &ifaces);
        let locals: Vec<(IpAddr, LocalAddrState)> = assoc
            .local_addresses()
            .iter()
            .map(|l| (l.addr, l.state))
            .collect();
        assert_eq!(
            locals,
            vec![
                (a, LocalAddrState::DeletePending),
                (b, LocalAddrState::AddPending)
            ]
        );
    }
}
