//! What the handover manager does with the host's view of its links:
//! pairing paths with the local address on their subnet, finding the move
//! onto a returning link, probing it, and carrying decisions out as moves
//! of new data.

use std::net::IpAddr;

use super::{HandoverConfig, Links, Move};
use crate::Time;
use crate::asconf::LocalAddrState;
use crate::association::{AddressError, Association};
use crate::policy::{self, Decision, IfaceId};

/// The association's local addresses not being deleted.
pub fn usable_locals(assoc: &Association) -> Vec<IpAddr> {
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
pub fn pair_paths(assoc: &mut Association, links: &dyn Links) {
    let locals = usable_locals(assoc);
    let peers: Vec<IpAddr> = assoc.paths().iter().map(|p| p.remote).collect();
    for r in peers {
        let src = links.on_link_with(r, &locals);
        let _ = assoc.set_path_source(r, src);
    }
}

pub(super) fn heartbeat_acks(assoc: &Association, peer: IpAddr) -> u64 {
    assoc
        .path_stats(peer)
        .map(|p| p.counters.heartbeat_acks_received)
        .unwrap_or(0)
}

/// The peer address reached through the local address `local` (the one on
/// its subnet), if any.
fn peer_via(assoc: &Association, links: &dyn Links, local: IpAddr) -> Option<IpAddr> {
    assoc
        .paths()
        .iter()
        .map(|p| p.remote)
        .find(|r| links.on_link_with(*r, &[local]) == Some(local))
}

/// The peer address a decision list moves data to over the link `iface`
/// that just came up, if it does (a make-primary of an address on it) and
/// another working link carries the data meanwhile.
pub(super) fn returning_peer(
    decisions: &[Decision],
    iface: IfaceId,
    assoc: &Association,
    links: &dyn Links,
) -> Option<IpAddr> {
    let current = assoc
        .data_destination()
        .and_then(|p| links.on_link_with(p, &usable_locals(assoc)))
        .and_then(|l| links.iface_of(l));
    if !current.is_some_and(|c| c != iface && links.is_up(c)) {
        return None;
    }
    decisions.iter().find_map(|d| {
        let Decision::MakePrimary(local) = *d else {
            return None;
        };
        if links.iface_of(local) != Some(iface) {
            return None;
        }
        peer_via(assoc, links, local)
    })
}

/// Probes the paths whose source is on the link `iface` that came back,
/// so they are usable after one round trip.
pub(super) fn probe_link(now: Time, iface: IfaceId, assoc: &mut Association, links: &dyn Links) {
    let peers: Vec<IpAddr> = assoc.paths().iter().map(|p| p.remote).collect();
    let locals = usable_locals(assoc);
    for r in peers {
        if let Some(src) = links.on_link_with(r, &locals)
            && links.iface_of(src) == Some(iface)
        {
            let _ = assoc.probe_path(now, r);
        }
    }
}

/// Applies `decisions` ([`policy::apply`]) and returns the moves of new
/// data they made, with each decision's result.
pub(super) fn carry_out(
    now: Time,
    cfg: &HandoverConfig,
    decisions: &[Decision],
    assoc: &mut Association,
    links: &dyn Links,
) -> (Vec<Move>, Vec<Result<(), AddressError>>) {
    let from_peer = assoc.data_destination();
    // Where data left from: the chosen local primary, else the address on
    // the data path's subnet, else the first address.
    let from_local = assoc
        .local_primary()
        .or_else(|| from_peer.and_then(|p| links.on_link_with(p, &usable_locals(assoc))))
        .or_else(|| assoc.local_addresses().first().map(|l| l.addr));
    let results = policy::apply(assoc, decisions);
    let mut out = Vec::new();
    for (d, r) in decisions.iter().zip(&results) {
        if r.is_err() {
            continue;
        }
        let m = match *d {
            Decision::MakePrimary(to_local) if from_local != Some(to_local) => {
                primary_move(now, cfg, assoc, links, from_local, from_peer, to_local)
            }
            Decision::UsePath(to_peer) if from_peer != Some(to_peer) => {
                path_move(now, assoc, links, from_local, from_peer, to_peer)
            }
            _ => None,
        };
        out.extend(m);
    }
    (out, results)
}

/// A new local primary: new data leaves from `to_local`.
fn primary_move(
    now: Time,
    cfg: &HandoverConfig,
    assoc: &mut Association,
    links: &dyn Links,
    from_local: Option<IpAddr>,
    from_peer: Option<IpAddr>,
    to_local: IpAddr,
) -> Option<Move> {
    // New data goes to the peer address reached through the new local
    // address, if one is on its subnet.
    if cfg.follow_peer_address
        && let Some(p) = peer_via(assoc, links, to_local)
    {
        let _ = assoc.set_primary(p);
        let _ = assoc.set_path_source(p, Some(to_local));
    }
    let old_iface = from_local.and_then(|a| links.iface_of(a));
    let link_down = old_iface.is_some_and(|i| !links.is_up(i));
    let mut retransmitted = 0;
    if cfg.move_data_on_link_down
        && link_down
        && let Some(old) = from_peer
    {
        retransmitted = assoc.retransmit_path_data(old).unwrap_or(0);
    }
    Some(Move {
        at: now,
        from_local,
        to_local,
        from_peer,
        to_peer: assoc.data_destination(),
        link_down,
        retransmitted,
    })
}

/// The sender chose another path (AISLE): data leaves from the address
/// paired with it. The old path is congested, not dead: nothing is resent
/// at once.
fn path_move(
    now: Time,
    assoc: &Association,
    links: &dyn Links,
    from_local: Option<IpAddr>,
    from_peer: Option<IpAddr>,
    to_peer: IpAddr,
) -> Option<Move> {
    let locals = usable_locals(assoc);
    let old = from_peer.and_then(|p| links.on_link_with(p, &locals));
    let to_local = links
        .on_link_with(to_peer, &locals)
        .or(assoc.local_primary())
        .or(locals.first().copied())?;
    Some(Move {
        at: now,
        from_local: old.or(from_local),
        to_local,
        from_peer,
        to_peer: Some(to_peer),
        link_down: false,
        retransmitted: 0,
    })
}
