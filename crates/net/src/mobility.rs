//! Handover on a real host: the interface monitor's [`LinkEvent`]s go to
//! the association's handover policy (`msctp_proto::policy`, the same
//! interface the simulator uses), whose decisions are carried out with
//! `policy::apply`; this module adds what only the host knows: which local
//! address reaches which peer address (the subnet they share), so that a
//! "make this local address primary" decision also moves new data to the
//! peer address reached through it, and whether the link under the old
//! path is down, in which case its outstanding data is resent on the new
//! path at once (`Association::retransmit_path_data`) instead of after a
//! retransmission timeout.

use std::net::IpAddr;

use msctp_proto::asconf::LocalAddrState;
use msctp_proto::policy::{self, Decision, HandoverPolicy, LinkEvent};
use msctp_proto::{Association, Event, Time};

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

/// The policy of one association and its bookkeeping.
pub struct Mobility {
    /// `None`: no policy (`PolicyKind::None`), addresses stay as they are.
    policy: Option<Box<dyn HandoverPolicy + Send>>,
    move_data: bool,
    /// A move onto a link that just came back, held until the path over it
    /// has answered a heartbeat (see [`Mobility::on_link_events`]).
    held: Option<Held>,
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

/// How long a move onto a returning link waits at most for the path's
/// heartbeat answer.
const RETURN_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

fn heartbeat_acks(assoc: &Association, peer: IpAddr) -> u64 {
    assoc
        .path_stats(peer)
        .map(|p| p.counters.heartbeat_acks_received)
        .unwrap_or(0)
}

impl std::fmt::Debug for Mobility {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mobility")
            .field("policy", &self.policy_name())
            .finish()
    }
}

fn usable_locals(assoc: &Association) -> Vec<IpAddr> {
    assoc
        .local_addresses()
        .iter()
        .filter(|l| l.state != LocalAddrState::DeletePending)
        .map(|l| l.addr)
        .collect()
}

/// Fixes each path's source to the local address on the peer address's
/// subnet (none if no local address shares it: the association chooses:
/// its local primary, else where it last heard from that peer address).
/// The local primary itself is left to the policy: pinning it here would
/// send every path without a subnet match from one address.
pub fn pair_paths(assoc: &mut Association, ifaces: &Interfaces) {
    let locals = usable_locals(assoc);
    let peers: Vec<IpAddr> = assoc.paths().iter().map(|p| p.remote).collect();
    for r in peers {
        let src = ifaces.on_link_with(r, &locals);
        let _ = assoc.set_path_source(r, src);
    }
}

/// The peer address reached through the local address `local` (the one on
/// its subnet), if any.
fn peer_via(assoc: &Association, ifaces: &Interfaces, local: IpAddr) -> Option<IpAddr> {
    assoc
        .paths()
        .iter()
        .map(|p| p.remote)
        .find(|r| ifaces.on_link_with(*r, &[local]) == Some(local))
}

/// The peer address a decision list moves data to over the link `iface`
/// that just came up, if it does (a make-primary of an address on it).
fn returning_peer(
    decisions: &[Decision],
    iface: u32,
    assoc: &Association,
    ifaces: &Interfaces,
) -> Option<IpAddr> {
    // Only worth waiting while another working link carries the data.
    let current = assoc
        .data_destination()
        .and_then(|p| ifaces.on_link_with(p, &usable_locals(assoc)))
        .and_then(|l| ifaces.iface_of(l));
    if !current.is_some_and(|c| c != iface && ifaces.is_up(c)) {
        return None;
    }
    decisions.iter().find_map(|d| {
        let Decision::MakePrimary(local) = *d else {
            return None;
        };
        if ifaces.iface_of(local) != Some(iface) {
            return None;
        }
        peer_via(assoc, ifaces, local)
    })
}

impl Mobility {
    pub fn new(kind: &PolicyKind, ifaces: &Interfaces, move_data: bool) -> Self {
        let policy = kind
            .map_interfaces(|name| ifaces.index_of(name))
            .build(rand::random);
        Mobility {
            policy,
            move_data,
            held: None,
        }
    }

    pub fn policy_name(&self) -> &'static str {
        self.policy.as_ref().map_or("none", |p| p.name())
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

    /// Link-layer events: ask the policy, carry its decisions out.
    pub fn on_link_events(
        &mut self,
        now: Time,
        events: &[LinkEvent],
        assoc: &mut Association,
        ifaces: &Interfaces,
    ) -> Vec<Handover> {
        let mut out = Vec::new();
        for ev in events {
            let Some(policy) = self.policy.as_mut() else {
                continue;
            };
            let d = policy.on_link_event(now, ev, assoc);
            let up = match ev {
                LinkEvent::LinkUp { iface } => Some(*iface),
                _ => None,
            };
            // Moving onto a link that just came back: the host may not reach
            // the peer over it yet (neighbour entries, routes), and data
            // sent into it would wait for a retransmission timeout. The move
            // waits until the path over that link answers the heartbeat
            // sent below (at most RETURN_WAIT); the old link carries the
            // data meanwhile.
            if let Some(iface) = up
                && let Some(peer) = returning_peer(&d, iface, assoc, ifaces)
            {
                self.held = Some(Held {
                    decisions: d,
                    peer,
                    acks: heartbeat_acks(assoc, peer),
                    deadline: now + RETURN_WAIT,
                });
            } else {
                out.extend(self.carry_out(now, &d, assoc, ifaces));
            }
            if let Some(iface) = up {
                // Probe the paths over the link that came back, so they are
                // usable after one round trip.
                let peers: Vec<IpAddr> = assoc.paths().iter().map(|p| p.remote).collect();
                let locals = usable_locals(assoc);
                for r in peers {
                    if let Some(src) = ifaces.on_link_with(r, &locals)
                        && ifaces.iface_of(src) == Some(iface)
                    {
                        let _ = assoc.probe_path(now, r);
                    }
                }
            }
        }
        out
    }

    /// Carries out a held move once its path answered a heartbeat or the
    /// wait is over; call it whenever the association has done something.
    pub fn poll(
        &mut self,
        now: Time,
        assoc: &mut Association,
        ifaces: &Interfaces,
    ) -> Vec<Handover> {
        let ready = self
            .held
            .take_if(|h| now >= h.deadline || heartbeat_acks(assoc, h.peer) > h.acks);
        let mut out = match ready {
            Some(h) => self.carry_out(now, &h.decisions, assoc, ifaces),
            None => Vec::new(),
        };
        // Policies that watch the path statistics (AISLE).
        if let Some(policy) = self.policy.as_mut() {
            let d = policy.poll(now, assoc);
            out.extend(self.carry_out(now, &d, assoc, ifaces));
        }
        out
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
        let Some(policy) = self.policy.as_mut() else {
            return Vec::new();
        };
        let d = policy.on_association_event(now, ev, assoc);
        let mut out = self.carry_out(now, &d, assoc, ifaces);
        out.extend(self.poll(now, assoc, ifaces));
        out
    }

    fn carry_out(
        &mut self,
        now: Time,
        decisions: &[Decision],
        assoc: &mut Association,
        ifaces: &Interfaces,
    ) -> Vec<Handover> {
        if decisions.is_empty() {
            return Vec::new();
        }
        // New decisions replace a move still held for a returning link.
        self.held = None;
        let from_peer = assoc.data_destination();
        // Where data left from: the chosen local primary, else the
        // address on the data path's subnet, else the first address.
        let from_local = assoc
            .local_primary()
            .or_else(|| from_peer.and_then(|p| ifaces.on_link_with(p, &usable_locals(assoc))))
            .or_else(|| assoc.local_addresses().first().map(|l| l.addr));
        let results = policy::apply(assoc, decisions);
        let mut out = Vec::new();
        for (d, r) in decisions.iter().zip(results) {
            if r.is_err() {
                continue;
            }
            let to_local = match *d {
                Decision::MakePrimary(to_local) => to_local,
                Decision::UsePath(to_peer) => {
                    // The sender chose another path (AISLE): data leaves
                    // from the address paired with it. The old path is
                    // congested, not dead: nothing is resent at once.
                    if from_peer == Some(to_peer) {
                        continue;
                    }
                    let locals = usable_locals(assoc);
                    let old = from_peer.and_then(|p| ifaces.on_link_with(p, &locals));
                    let Some(to_local) = ifaces
                        .on_link_with(to_peer, &locals)
                        .or(assoc.local_primary())
                        .or(locals.first().copied())
                    else {
                        continue;
                    };
                    out.push(Handover {
                        at_ns: now.as_nanos(),
                        from_local: old.or(from_local),
                        to_local,
                        from_peer,
                        to_peer: Some(to_peer),
                        link_down: false,
                        retransmitted: 0,
                        link_event_ns: None,
                        sent_ns: None,
                    });
                    continue;
                }
                _ => continue,
            };
            if from_local == Some(to_local) {
                continue;
            }
            // New data goes to the peer address reached through the new
            // local address, if one is on its subnet.
            let to_peer = peer_via(assoc, ifaces, to_local);
            if let Some(p) = to_peer {
                let _ = assoc.set_primary(p);
                let _ = assoc.set_path_source(p, Some(to_local));
            }
            let old_iface = from_local.and_then(|a| ifaces.iface_of(a));
            let link_down = old_iface.is_some_and(|i| !ifaces.is_up(i));
            let mut retransmitted = 0;
            if self.move_data
                && link_down
                && let Some(old) = from_peer
            {
                retransmitted = assoc.retransmit_path_data(old).unwrap_or(0);
            }
            out.push(Handover {
                at_ns: now.as_nanos(),
                from_local,
                to_local,
                from_peer,
                to_peer: assoc.data_destination(),
                link_down,
                retransmitted,
                link_event_ns: None,
                sent_ns: None,
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::IfaceChange;
    use msctp_proto::{Endpoint, EndpointConfig};

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

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
        let mut ep = Endpoint::new(EndpointConfig::new(5002), [7; 32]).unwrap();
        ep.set_local_addresses(&[a]);
        let mut peer_cfg = EndpointConfig::new(5003);
        peer_cfg.listen = true;
        let mut peer = Endpoint::new(peer_cfg, [8; 32]).unwrap();
        peer.set_local_addresses(&[cn]);
        let id = ep.connect(Time::ZERO, &[cn], 5003).unwrap();
        // The handshake, in memory (the peer sees the INIT from `a`).
        for _ in 0..4 {
            while let Some(t) = ep.poll_transmit(Time::ZERO) {
                peer.handle_datagram(Time::ZERO, a, cn, t.packet().to_vec().into());
            }
            while let Some(t) = peer.poll_reply().or_else(|| peer.poll_transmit(Time::ZERO)) {
                ep.handle_datagram(Time::ZERO, cn, a, t.packet().to_vec().into());
            }
        }
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
