//! Routes between fixed nodes: for every prefix owned by another node, a
//! route through the first hop of a fewest-hop path (breadth-first over
//! the links in declaration order), computed per address family over the
//! links of that family (so IPv4 and IPv6 links may run side by side).
//!
//! A multi-homed host (a node that does not forward, with several links)
//! also gets, for each of its other links, a route through that link to
//! every prefix reachable without coming back through the host, after the
//! first (metric 1): a packet whose source address pins it to that link
//! (a dual-homed correspondent answering from its second address,
//! scenario D of docs/MODELS.md section 4) has a route there, and a
//! packet without one still takes the first.

use std::collections::{BTreeMap, VecDeque};
use std::net::IpAddr;

use ipnet::IpNet;

use crate::kernel::ids::{IfaceId, NodeId};
use crate::kernel::routing::Route;
use crate::kernel::world::World;
use crate::scenario::error::ScenarioError;

/// One end of a link: ends come in pairs, in the links' order.
#[derive(Debug, Clone, Copy)]
pub(super) struct End {
    pub node: NodeId,
    pub iface: IfaceId,
    pub addr: IpNet,
}

/// Installs the routes of every node in `nodes` to every prefix in
/// `owned` (node, prefix) that another node holds.
pub(super) fn install(
    w: &mut World,
    nodes: &[NodeId],
    ends: &[End],
    owned: &[(NodeId, IpNet)],
) -> Result<(), ScenarioError> {
    for v4 in [true, false] {
        let fam_ends: Vec<End> = ends
            .chunks(2)
            .filter(|p| p.iter().all(|e| e.addr.addr().is_ipv4() == v4))
            .flatten()
            .copied()
            .collect();
        let fam_owned: Vec<(NodeId, IpNet)> = owned
            .iter()
            .filter(|(_, p)| p.addr().is_ipv4() == v4)
            .copied()
            .collect();
        install_family(w, nodes, &fam_ends, &fam_owned)?;
    }
    Ok(())
}

fn install_family(
    w: &mut World,
    nodes: &[NodeId],
    ends: &[End],
    owned: &[(NodeId, IpNet)],
) -> Result<(), ScenarioError> {
    for &src in nodes {
        // first[node] = (iface at src, gateway address) of the first hop.
        let mut first: BTreeMap<NodeId, (IfaceId, IpAddr)> = BTreeMap::new();
        let mut seen = vec![src];
        let mut queue = VecDeque::from([src]);
        while let Some(n) = queue.pop_front() {
            for pair in ends.chunks(2) {
                let [x, y] = pair else { continue };
                let (here, there) = if x.node == n {
                    (x, y)
                } else if y.node == n {
                    (y, x)
                } else {
                    continue;
                };
                if seen.contains(&there.node) {
                    continue;
                }
                seen.push(there.node);
                let hop = if n == src {
                    (here.iface, there.addr.addr())
                } else {
                    first[&n]
                };
                first.insert(there.node, hop);
                queue.push_back(there.node);
            }
        }
        let local: Vec<IpNet> = owned
            .iter()
            .filter(|(n, _)| *n == src)
            .map(|(_, p)| *p)
            .collect();
        for (owner, prefix) in owned {
            if *owner == src || local.contains(prefix) {
                continue;
            }
            let Some(&(iface, gw)) = first.get(owner) else {
                continue;
            };
            if gw.is_ipv4() != prefix.addr().is_ipv4() {
                continue;
            }
            w.add_route(src, Route::via(*prefix, iface, gw))
                .map_err(|e| ScenarioError::model("routes", e))?;
        }
        if w.node(src).is_some_and(|n| !n.forwarding()) {
            alternate_routes(w, src, ends, owned, &first)?;
        }
    }
    Ok(())
}

/// The routes of host `src` through each of its links other than the
/// first hops of `first` (see the module documentation).
fn alternate_routes(
    w: &mut World,
    src: NodeId,
    ends: &[End],
    owned: &[(NodeId, IpNet)],
    first: &BTreeMap<NodeId, (IfaceId, IpAddr)>,
) -> Result<(), ScenarioError> {
    let mine: Vec<(End, End)> = ends
        .chunks(2)
        .filter_map(|p| match p {
            [x, y] if x.node == src => Some((*x, *y)),
            [x, y] if y.node == src => Some((*y, *x)),
            _ => None,
        })
        .collect();
    if mine.len() < 2 {
        return Ok(());
    }
    for (here, there) in mine {
        // Breadth-first from the far end of this link, never through src.
        let mut seen = vec![src, there.node];
        let mut queue = VecDeque::from([there.node]);
        while let Some(n) = queue.pop_front() {
            for pair in ends.chunks(2) {
                let [x, y] = pair else { continue };
                let next = if x.node == n {
                    y.node
                } else if y.node == n {
                    x.node
                } else {
                    continue;
                };
                if !seen.contains(&next) {
                    seen.push(next);
                    queue.push_back(next);
                }
            }
        }
        let gw = there.addr.addr();
        for (owner, prefix) in owned {
            if *owner == src
                || owned.contains(&(src, *prefix))
                || !seen.contains(owner)
                || first.get(owner).is_some_and(|f| f.0 == here.iface)
                || gw.is_ipv4() != prefix.addr().is_ipv4()
            {
                continue;
            }
            w.add_route(src, Route::via(*prefix, here.iface, gw).with_metric(1))
                .map_err(|e| ScenarioError::model("routes", e))?;
        }
    }
    Ok(())
}
