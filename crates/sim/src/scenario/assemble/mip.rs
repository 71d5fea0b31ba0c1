//! Mobile IP deployments of a scenario (docs/MODELS.md 2.1, 2.2): the agents
//! of [`crate::models::mip`] and [`crate::models::fmip`] placed on the scenario's routers
//! and hosts from a flow's `[flows.mip4]`, `[flows.mip6]` and
//! `[flows.fmip6]` tables (validated identical across flows, so the first
//! flow builds the deployment and later ones reuse it).
//!
//! - Mobile IPv4: a home agent on the home cell's router (address: the
//!   cell's access point address, advertising on the home cell with the H
//!   flag), a foreign agent on each foreign cell's router (care-of address:
//!   the cell's access point address), one client per mobile with its home
//!   address (home prefix + `host_id`) and one security association each.
//! - Mobile IPv6: router advertisements on every IPv6 cell the mobiles use
//!   and on the home cell, a home agent on the home cell's router, a
//!   correspondent binding cache on every fixed node of a flow, one client
//!   per mobile naming its flows' fixed nodes as correspondents; FMIPv6
//!   access-router agents on the cells of the FMIPv6 mobiles, each knowing
//!   the others as neighbours, and each FMIPv6 mobile's scripted move.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration;

use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use rand::Rng;

use super::env::Env;
use super::mobiles::{MobileInfo, MobileLink};
use crate::kernel::ids::{AgentId, CellId, IfaceId, NodeId};
use crate::kernel::world::World;
use crate::models::fmip::{FmipRouter, FmipRouterConfig, Move, Neighbour, schedule_move};
use crate::models::mip::v4::{ForeignAgent, HomeAgent, MobileNode, MobileSecurity};
use crate::models::mip::v6::{AccessRouter, Correspondent6, HomeAgent6, MobileNode6};
use crate::scenario::error::ScenarioError;
use crate::scenario::resolve::{Flow, host_in};
use crate::scenario::spec::*;
use crate::scenario::spec::{ms, secs};

/// The security association index of every mobile with its home agent.
const SPI: u32 = 256;

fn key_of(mobile: &str) -> Vec<u8> {
    format!("msctp-sim mip4 {mobile}").into_bytes()
}

/// The Mobile IP deployments of a scenario, each created by the first
/// flow that needs it.
#[derive(Debug, Default)]
pub(crate) struct Deployments {
    mip4: Option<Mip4Infra>,
    mip6: Option<Mip6Infra>,
}

/// The Mobile IPv4 deployment.
#[derive(Debug)]
pub(crate) struct Mip4Infra {
    ha: AgentId,
    ha_addr: Ipv4Addr,
    home_prefix: Ipv4Net,
    home_net: IpNet,
    clients: BTreeMap<NodeId, AgentId>,
}

/// What a Mobile IPv4 flow's summary reads.
#[derive(Debug, Clone)]
pub(crate) struct Mip4Parts {
    pub client: AgentId,
    pub ha: AgentId,
    pub home: IpAddr,
}

fn v4(n: IpNet, key: &str) -> Result<Ipv4Net, ScenarioError> {
    match n {
        IpNet::V4(x) => Ok(x),
        IpNet::V6(_) => Err(ScenarioError::model(key, "not an IPv4 cell")),
    }
}

fn v6(n: IpNet, key: &str) -> Result<Ipv6Net, ScenarioError> {
    match n {
        IpNet::V6(x) => Ok(x),
        IpNet::V4(_) => Err(ScenarioError::model(key, "not an IPv6 cell")),
    }
}

/// The address of `host_id` in a cell's prefix (the home address).
fn address_in(ap: IpNet, host_id: u32, key: &str) -> Result<IpAddr, ScenarioError> {
    host_in(ap, host_id)
        .map(|n| n.addr())
        .ok_or_else(|| ScenarioError::model(key, "host_id does not fit the home prefix"))
}

/// The home address of a mobile in the home network `home_net`.
fn home_address(home_net: IpNet, spec: &MobileSpec) -> Result<IpAddr, ScenarioError> {
    let key = format!("mobiles[{}].host_id", spec.name);
    address_in(home_net, spec.host_id, &key)
}

/// The index of cell `name`.
fn cell(env: &Env<'_>, name: &str, key: &str) -> Result<usize, ScenarioError> {
    env.r
        .scenario
        .cell_index(name)
        .ok_or_else(|| ScenarioError::reference(key, format!("no cell {name:?}")))
}

/// The cell ids and access point of cell `k`.
fn ap(
    w: &World,
    env: &Env<'_>,
    k: usize,
    key: &str,
) -> Result<(CellId, NodeId, IfaceId, IpNet), ScenarioError> {
    let id = env.ids.cells[k];
    let (router, iface) = w.cell_ap(id).ok_or_else(|| {
        let name = &env.r.scenario.cells[k].name;
        ScenarioError::model(key, format!("cell {name:?} has no access point"))
    })?;
    Ok((id, router, iface, env.r.cells[k].ap))
}

/// Cells (by index) used by the mobiles whose flows satisfy `pred`, in
/// scenario order, without repeats.
fn cells_of(env: &Env<'_>, pred: impl Fn(&FlowSpec) -> bool) -> Vec<usize> {
    let mobiles: Vec<usize> = env
        .r
        .flows
        .iter()
        .filter(|f| pred(&f.spec))
        .map(|f| f.mobile)
        .collect();
    let mut out: Vec<usize> = Vec::new();
    for (k, m) in env.r.mobiles.iter().enumerate() {
        if !mobiles.contains(&k) {
            continue;
        }
        for l in &m.links {
            if !out.contains(&l.cell) {
                out.push(l.cell);
            }
        }
    }
    out
}

/// The first advertisement's offset: the given one, or a phase drawn
/// uniformly in [0, interval) from the stream `<kind>/advert/<cell>` of the
/// run's seed.
fn phase(
    w: &World,
    kind: &str,
    cell: &str,
    given: Option<Duration>,
    interval: Duration,
) -> Duration {
    match given {
        Some(o) => o,
        None => {
            let mut rng = w.rng_stream(&format!("{kind}/advert/{cell}"));
            let period = interval.as_nanos() as u64;
            Duration::from_nanos(if period == 0 {
                0
            } else {
                rng.gen_range(0..period)
            })
        }
    }
}

fn is_mip4(f: &FlowSpec) -> bool {
    f.transport.mobility() == Mobility::MobileIpv4
}

fn is_mip6(f: &FlowSpec) -> bool {
    matches!(
        f.transport.mobility(),
        Mobility::MobileIpv6 | Mobility::FastMobileIpv6
    )
}

fn mip4_infra(w: &mut World, env: &Env<'_>, x: &Mip4Spec) -> Result<Mip4Infra, ScenarioError> {
    let key = "mip4";
    let cells = &env.r.scenario.cells;
    let home_cell = cell(env, &x.scenario.home_cell, &format!("{key}.home_cell"))?;
    let (_, ha_router, ha_if, home_net) = ap(w, env, home_cell, &format!("{key}.home_cell"))?;
    let home_prefix = v4(home_net, key)?.trunc();
    let ha_addr = v4(home_net, key)?.addr();
    let advert = |w: &World, cell: &str, iface, address| {
        let offset = phase(w, "mip4", cell, x.advert_offset, x.advert_interval);
        x.advertisement(iface, address, offset)
    };
    let home_advert = advert(w, &x.scenario.home_cell, ha_if, ha_addr);
    let mut hcfg = x.home_agent(ha_addr, home_prefix, Some(home_advert));
    for (k, m) in env.r.scenario.mobiles.iter().enumerate() {
        if env
            .r
            .flows
            .iter()
            .any(|f| f.mobile == k && is_mip4(&f.spec))
        {
            let home = address_in(home_net, m.host_id, &format!("mobiles[{}].host_id", m.name))?;
            let IpAddr::V4(home) = home else {
                return Err(ScenarioError::model(key, "home address is not IPv4"));
            };
            hcfg.mobiles.push(MobileSecurity {
                home_address: home,
                spi: SPI,
                key: key_of(&m.name),
            });
        }
    }
    let ha = w
        .add_agent(ha_router, "mip4/ha", Box::new(HomeAgent::new(hcfg)))
        .map_err(|e| ScenarioError::model(key, e))?;
    let k = format!("{key}.foreign_cells");
    let foreign = match &x.scenario.foreign_cells {
        Some(names) => names
            .iter()
            .map(|c| cell(env, c, &k))
            .collect::<Result<Vec<_>, _>>()?,
        None => cells_of(env, is_mip4)
            .into_iter()
            .filter(|c| *c != home_cell)
            .collect(),
    };
    for c in foreign {
        let name = &cells[c].name;
        let (_, router, iface, n) = ap(w, env, c, &k)?;
        let coa = v4(n, &k)?.addr();
        let fcfg = x.foreign_agent(advert(w, name, iface, coa));
        w.add_agent(
            router,
            &format!("mip4/fa/{name}"),
            Box::new(ForeignAgent::new(fcfg)),
        )
        .map_err(|e| ScenarioError::model(&k, e))?;
    }
    Ok(Mip4Infra {
        ha,
        ha_addr,
        home_prefix,
        home_net,
        clients: BTreeMap::new(),
    })
}

/// The Mobile IPv4 parts of a flow (deployment and the mobile's client
/// created on first use).
pub(super) fn mip4_for(
    w: &mut World,
    env: &Env<'_>,
    deployments: &mut Deployments,
    flow: &Flow,
) -> Result<Mip4Parts, ScenarioError> {
    let f = &flow.spec;
    let m = env.mobile(flow);
    let key = format!("flows[{}].mip4", f.name);
    let Some(x) = &f.mip4 else {
        return Err(ScenarioError::reference(key, "missing"));
    };
    if deployments.mip4.is_none() {
        deployments.mip4 = Some(mip4_infra(w, env, x)?);
    }
    let Some(d) = deployments.mip4.as_mut() else {
        return Err(ScenarioError::model(key, "no Mobile IPv4 deployment"));
    };
    let spec = &env.r.scenario.mobiles[flow.mobile];
    let home = home_address(d.home_net, spec)?;
    let IpAddr::V4(home4) = home else {
        return Err(ScenarioError::model(key, "home address is not IPv4"));
    };
    let client = match d.clients.get(&m.node) {
        Some(&c) => c,
        None => {
            let ifaces = m.interfaces();
            let mut cfg =
                x.mobile_node(home4, d.home_prefix, d.ha_addr, ifaces, key_of(&spec.name));
            cfg.spi = SPI;
            let c = w
                .add_agent(m.node, "mip4/mn", Box::new(MobileNode::new(cfg)))
                .map_err(|e| ScenarioError::model(&key, e))?;
            d.clients.insert(m.node, c);
            c
        }
    };
    Ok(Mip4Parts {
        client,
        ha: d.ha,
        home,
    })
}

/// The Mobile IPv6 deployment.
#[derive(Debug)]
pub(crate) struct Mip6Infra {
    ha: AgentId,
    ha_addr: Ipv6Addr,
    home_prefix: Ipv6Net,
    home_net: IpNet,
    fmip: Vec<AgentId>,
    /// A flow's summary already carries the access routers' traces (they
    /// serve every FMIPv6 flow: one flow writes them).
    fmip_traced: bool,
    correspondents: BTreeMap<NodeId, AgentId>,
    clients: BTreeMap<NodeId, AgentId>,
}

/// What a Mobile IPv6 / FMIPv6 flow's summary reads.
#[derive(Debug, Clone)]
pub(crate) struct Mip6Parts {
    pub client: AgentId,
    pub ha: AgentId,
    /// FMIPv6 access-router agents (empty for plain Mobile IPv6).
    pub fmip: Vec<AgentId>,
    /// This flow writes the access routers' traces (the first FMIPv6 flow
    /// of the scenario; the routers are shared).
    pub router_traces: bool,
    pub home: IpAddr,
    pub fast: Option<FastMove>,
}

/// What an FMIPv6 flow's summary reads of its scripted move.
#[derive(Debug, Clone)]
pub(crate) struct FastMove {
    pub attach: AttachSpec,
    pub trigger_s: f64,
}

fn mip6_infra(
    w: &mut World,
    env: &Env<'_>,
    x: &Mip6Spec,
    fast: Option<&Fmip6Spec>,
) -> Result<Mip6Infra, ScenarioError> {
    let key = "mip6";
    let cells = &env.r.scenario.cells;
    let home_cell = cell(env, &x.scenario.home_cell, &format!("{key}.home_cell"))?;
    let (_, ha_router, _, home_net) = ap(w, env, home_cell, &format!("{key}.home_cell"))?;
    let home_prefix = v6(home_net, key)?.trunc();
    let ha_addr = v6(home_net, key)?.addr();
    let mut ra_cells = vec![home_cell];
    for c in cells_of(env, is_mip6) {
        if !ra_cells.contains(&c) {
            ra_cells.push(c);
        }
    }
    for &k_cell in &ra_cells {
        let c = &cells[k_cell].name;
        let k = format!("{key}.cells[{c}]");
        let (_, router, iface, n) = ap(w, env, k_cell, &k)?;
        let n6 = v6(n, &k)?;
        let offset = phase(w, "mip6", c, x.ra_offset, x.ra_interval);
        let cfg = x.access_router(iface, n6.addr(), n6.trunc(), k_cell == home_cell, offset);
        w.add_agent(
            router,
            &format!("mip6/ra/{c}"),
            Box::new(AccessRouter::new(cfg)),
        )
        .map_err(|e| ScenarioError::model(&k, e))?;
    }
    let hcfg = x.home_agent(ha_addr, home_prefix);
    let ha = w
        .add_agent(ha_router, "mip6/ha", Box::new(HomeAgent6::new(hcfg)))
        .map_err(|e| ScenarioError::model(key, e))?;
    let mut fmip = Vec::new();
    if let Some(fx) = fast {
        let fast_cells = cells_of(env, |f| f.transport.mobility() == Mobility::FastMobileIpv6);
        let mut routers = Vec::new();
        for &k_cell in &fast_cells {
            let c = &cells[k_cell].name;
            let k = format!("fmip6.cells[{c}]");
            let (id, router, iface, n) = ap(w, env, k_cell, &k)?;
            let n6 = v6(n, &k)?;
            routers.push((
                c.clone(),
                router,
                iface,
                Neighbour {
                    cell: id,
                    address: n6.addr(),
                    prefix: n6.trunc(),
                },
            ));
        }
        for (c, router, iface, me) in &routers {
            let mut cfg = FmipRouterConfig::new(me.address, *iface, me.prefix);
            cfg.neighbours = routers.iter().filter(|r| r.0 != *c).map(|r| r.3).collect();
            cfg.settings = fx.model.clone();
            let a = w
                .add_agent(
                    *router,
                    &format!("fmip6/{c}"),
                    Box::new(FmipRouter::new(cfg)),
                )
                .map_err(|e| ScenarioError::model("fmip6", e))?;
            fmip.push(a);
        }
    }
    Ok(Mip6Infra {
        ha,
        ha_addr,
        home_prefix,
        home_net,
        fmip,
        fmip_traced: false,
        correspondents: BTreeMap::new(),
        clients: BTreeMap::new(),
    })
}

/// The first IPv6 address of a node.
fn v6_addr(w: &World, node: NodeId) -> Option<Ipv6Addr> {
    w.node(node)?
        .ifaces()
        .iter()
        .flat_map(|i| i.addrs().iter())
        .find_map(|a| match a.addr() {
            IpAddr::V6(x) => Some(x),
            IpAddr::V4(_) => None,
        })
}

/// The Mobile IPv6 parts of a flow (deployment, the fixed node's binding
/// cache, the mobile's client and FMIPv6 move created on first use).
pub(super) fn mip6_for(
    w: &mut World,
    env: &Env<'_>,
    deployments: &mut Deployments,
    flow: &Flow,
    fixed_addr: IpAddr,
) -> Result<Mip6Parts, ScenarioError> {
    let f = &flow.spec;
    let m = env.mobile(flow);
    let fixed = env.fixed(flow);
    let key = format!("flows[{}].mip6", f.name);
    let Some(x) = &f.mip6 else {
        return Err(ScenarioError::reference(key, "missing"));
    };
    // The deployment knows about FMIPv6 if any flow of the scenario uses it.
    let fast_any = env.r.flows.iter().find_map(|g| g.spec.fmip6.clone());
    if deployments.mip6.is_none() {
        deployments.mip6 = Some(mip6_infra(w, env, x, fast_any.as_ref())?);
    }
    let Some(d) = deployments.mip6.as_mut() else {
        return Err(ScenarioError::model(key, "no Mobile IPv6 deployment"));
    };
    let IpAddr::V6(fixed6) = fixed_addr else {
        return Err(ScenarioError::model(
            format!("flows[{}].fixed", f.name),
            "no IPv6 address",
        ));
    };
    if let std::collections::btree_map::Entry::Vacant(e) = d.correspondents.entry(fixed) {
        let cfg = x.correspondent(fixed6);
        let c = w
            .add_agent(fixed, "mip6/cn", Box::new(Correspondent6::new(cfg)))
            .map_err(|e| ScenarioError::model(&key, e))?;
        e.insert(c);
    }
    let spec = &env.r.scenario.mobiles[flow.mobile];
    let home = home_address(d.home_net, spec)?;
    let IpAddr::V6(home6) = home else {
        return Err(ScenarioError::model(key, "home address is not IPv6"));
    };
    let client = match d.clients.get(&m.node) {
        Some(&c) => c,
        None => {
            let ifaces = m.interfaces();
            let mut cfg = x.mobile_node(home6, d.home_prefix, d.ha_addr, ifaces);
            for g in env.r.flows.iter().filter(|g| g.mobile == flow.mobile) {
                if let Some(a) = v6_addr(w, env.ids.fixed[g.fixed])
                    && !cfg.correspondents.contains(&a)
                {
                    cfg.correspondents.push(a);
                }
            }
            cfg.fast_handovers = f.fmip6.is_some();
            let c = w
                .add_agent(m.node, "mip6/mn", Box::new(MobileNode6::new(cfg)))
                .map_err(|e| ScenarioError::model(&key, e))?;
            d.clients.insert(m.node, c);
            if let Some(fs) = &x.scenario.forced_switch {
                schedule_forced_switch(
                    w,
                    &env.r.scenario.cells,
                    m,
                    fs,
                    &format!("flows[{}].mip6.forced_switch", f.name),
                )?;
            }
            if let Some(fx) = &f.fmip6 {
                schedule_fast_move(
                    w,
                    &env.r.scenario.cells,
                    m,
                    c,
                    fx,
                    &format!("flows[{}].fmip6", f.name),
                )?;
            }
            c
        }
    };
    Ok(Mip6Parts {
        client,
        ha: d.ha,
        fmip: if f.fmip6.is_some() {
            d.fmip.clone()
        } else {
            Vec::new()
        },
        router_traces: f.fmip6.is_some() && !std::mem::replace(&mut d.fmip_traced, true),
        home,
        fast: f.fmip6.as_ref().map(|x| FastMove {
            attach: x.attach,
            trigger_s: x.scenario.trigger_s,
        }),
    })
}

/// The mobile's link in the cell named `name`.
fn link_in<'m>(
    cells: &[CellSpec],
    m: &'m MobileInfo,
    name: &str,
    key: &str,
) -> Result<&'m MobileLink, ScenarioError> {
    cells
        .iter()
        .position(|c| c.name == name)
        .and_then(|c| m.links.iter().find(|l| l.cell_index == c))
        .ok_or_else(|| ScenarioError::reference(key, "no interface"))
}

/// A Mobile IPv6 mobile's single radio, switched break-before-make: it
/// leaves `from_cell` at `at_s` and joins `to_cell` `switch_ms` later.
fn schedule_forced_switch(
    w: &mut World,
    cells: &[CellSpec],
    m: &MobileInfo,
    x: &ForcedSwitchSpec,
    key: &str,
) -> Result<(), ScenarioError> {
    let link_of = |name: &str, k: &str| link_in(cells, m, name, &format!("{key}.{k}"));
    let from = link_of(&x.from_cell, "from_cell")?.iface;
    let to = link_of(&x.to_cell, "to_cell")?;
    let (node, new_iface, new_cell) = (m.node, to.iface, to.cell);
    let switch = ms(x.switch_ms);
    w.at(secs(x.at_s), move |w| {
        let _ = w.detach(node, from);
        let at = w.now() + switch;
        w.at(at, move |w| {
            let _ = w.attach(node, new_iface, new_cell);
        });
    });
    Ok(())
}

/// The FMIPv6 script of a mobile: the trigger (the new access point's
/// beacon) at `trigger_s`, then the move with the chosen timing.
fn schedule_fast_move(
    w: &mut World,
    cells: &[CellSpec],
    m: &MobileInfo,
    client: AgentId,
    x: &Fmip6Spec,
    key: &str,
) -> Result<(), ScenarioError> {
    let link_of = |name: &str, k: &str| link_in(cells, m, name, &format!("{key}.{k}"));
    let from = link_of(&x.scenario.from_cell, "from_cell")?;
    let to = link_of(&x.scenario.to_cell, "to_cell")?;
    schedule_move(
        w,
        Move {
            node: m.node,
            client,
            old_iface: Some(from.iface),
            new_iface: to.iface,
            new_cell: to.cell,
            switch_delay: x.switch,
        },
        secs(x.scenario.trigger_s),
        x.timing(),
        x.poll.max(Duration::from_nanos(1)),
        x.give_up,
    );
    Ok(())
}
