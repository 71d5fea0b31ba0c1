//! The single-connection vertical handoff (`single-handoff`, E4): one TCP
//! connection whose mobile end moves between networks (one per mobile
//! interface, each serving one cell) on the radio's link decisions,
//! restarting from each network's bandwidth-delay product; a location
//! peer on the fixed node. Built after the common baseline ends: the
//! mobile's link-decision bridge, the fixed node's peer, the mobile's
//! agent.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use super::FlowCx;
use super::baseline::{BaselineFlow, FlowAgents, baseline_ends};
use super::env::Env;
use super::mobiles::MobileInfo;
use super::tcp::tcp_of;
use crate::models::handoff::{
    HandoffPeer, NetworkProfile, SingleConnectionConfig, SingleConnectionHandoff,
};
use crate::models::tcp::{TcpAgent, TcpAgentConfig};
use crate::scenario::error::ScenarioError;
use crate::scenario::resolve::{Flow, Resolved};
use crate::scenario::spec::HandoffSpec;
use crate::scenario::spec::ms;

pub(super) fn build(cx: FlowCx<'_, '_>) -> Result<BaselineFlow, ScenarioError> {
    let ends = baseline_ends(cx.w, cx.env, cx.shared, cx.f)?;
    let key = &ends.key;
    let tcp = tcp_of(cx.f, key)?;
    let m = cx.env.mobile(cx.f);
    let h = cx.f.spec.handoff.clone().unwrap_or_default();
    let networks = networks(cx.env.r, cx.f, m, &h, key)?;
    let mut cfg = SingleConnectionConfig::new(
        tcp.clone(),
        networks,
        SocketAddr::new(ends.fixed_addr, cx.f.fixed_port),
    );
    cfg.initial = initial_link(cx.env, cx.f, m, h.scenario.initial.as_deref());
    cfg.local_port = cx.f.mobile_port;
    cfg.start = cx.start;
    cfg.log = Some(cx.log.clone());
    cfg.settings = h.model.clone();
    let mut server = TcpAgentConfig::server(tcp, cx.f.fixed_port).with_log(cx.log.clone());
    if ends.downlink {
        server = server.with_source(cx.env.source(cx.f, cx.start)?);
    } else {
        cfg.source = Some(cx.env.source(cx.f, cx.start)?);
    }
    let server =
        TcpAgent::new(server).map_err(|e| ScenarioError::model(format!("{key}.tcp"), e))?;
    let mobile_side = SingleConnectionHandoff::new(cfg)
        .map_err(|e| ScenarioError::model(format!("{key}.handoff"), e))?;
    cx.shared.observers.bridge(cx.w, ends.mobile, key)?;
    let fixed_agent = ends.add(cx.w, ends.fixed, Box::new(HandoffPeer::new(server)))?;
    let mobile_agent = ends.add(cx.w, ends.mobile, Box::new(mobile_side))?;
    Ok(ends.flow(FlowAgents::Single {
        mobile: mobile_agent,
        fixed: fixed_agent,
    }))
}

/// The link of the interface named `initial` (absent or unknown: the
/// first link).
pub(super) fn initial_link(
    env: &Env<'_>,
    f: &Flow,
    m: &MobileInfo,
    initial: Option<&str>,
) -> usize {
    let ifaces = &env.r.scenario.mobiles[f.mobile].ifaces;
    initial
        .and_then(|n| ifaces.iter().position(|i| i.name == n))
        .and_then(|k| m.links.iter().position(|l| l.iface_index == k))
        .unwrap_or(0)
}

/// One-way propagation delay (ms) between two fixed nodes over the
/// fewest-hop path of the scenario's links (declaration order breaks
/// ties); `None` if they are not connected.
fn path_delay_ms(r: &Resolved, from: usize, to: usize) -> Option<f64> {
    let mut best: BTreeMap<usize, f64> = BTreeMap::new();
    best.insert(from, 0.0);
    let mut frontier = vec![from];
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for n in frontier {
            let d = best[&n];
            for (l, spec) in r.links.iter().zip(&r.scenario.links) {
                let other = if l.a == n {
                    l.b
                } else if l.b == n {
                    l.a
                } else {
                    continue;
                };
                if let std::collections::btree_map::Entry::Vacant(e) = best.entry(other) {
                    e.insert(d + spec.delay_ms);
                    next.push(other);
                }
            }
        }
        frontier = next;
    }
    best.get(&to).copied()
}

/// The networks of the single-connection handoff, one per mobile
/// interface (resolved: one cell each).
fn networks(
    r: &Resolved,
    f: &Flow,
    m: &MobileInfo,
    h: &HandoffSpec,
    key: &str,
) -> Result<Vec<NetworkProfile>, ScenarioError> {
    let s = &*r.scenario;
    let ifaces = &s.mobiles[f.mobile].ifaces;
    let mut out = Vec::new();
    let mut rates = Vec::new();
    for l in &m.links {
        let cell = &s.cells[l.cell_index];
        let iface = &ifaces[l.iface_index].name;
        let n = h.scenario.networks.get(iface).cloned().unwrap_or_default();
        let bandwidth = n.bandwidth_bps.unwrap_or(cell.rate_bps);
        rates.push(bandwidth);
        let rtt = match n.rtt {
            Some(rtt) => rtt,
            None => {
                let router = r.cells[l.cell_index].router;
                let core = path_delay_ms(r, router, f.fixed).ok_or_else(|| {
                    ScenarioError::reference(
                        format!("{key}.handoff.networks.{iface}.rtt_ms"),
                        format!(
                            "cell {:?}'s router is not connected to {:?}: give rtt_ms",
                            cell.name, f.spec.fixed
                        ),
                    )
                })?;
                ms(2.0 * (cell.delay_ms + core))
            }
        };
        out.push(NetworkProfile {
            iface: l.iface,
            address: l.address.addr(),
            bandwidth_bps: bandwidth,
            rtt,
            processing: n.processing(),
            preference: n.preference.unwrap_or(0),
        });
    }
    // Default preference: rank by bandwidth (the faster network preferred).
    for (i, l) in m.links.iter().enumerate() {
        let explicit = h
            .scenario
            .networks
            .get(&ifaces[l.iface_index].name)
            .and_then(|n| n.preference)
            .is_some();
        if !explicit {
            out[i].preference = rates.iter().filter(|&&r| r < rates[i]).count() as u32;
        }
    }
    Ok(out)
}
