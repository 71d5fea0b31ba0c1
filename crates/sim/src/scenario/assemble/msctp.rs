//! An mSCTP flow (`msctp`): the unchanged engine at both ends, the fixed
//! node listening on every address it has, the mobile connecting from
//! the flow's start with its handover policy; every cell address of the
//! mobile numbered as a path. Built in this order: the fixed node's
//! agent, the mobile's, then the observers that count ADD-IP signalling
//! at both ends (after the agents, so nothing of the agents' numbering
//! moves). With `primary_switch = "local"` (ns-2 set-primary) the mobile
//! runs no handover manager: its agent switches the primary locally at
//! the policy's instants and tells the fixed node's agent
//! ([`LocalSwitch`]).

use std::collections::BTreeMap;
use std::net::IpAddr;

use msctp_proto::policy::PolicyKind;

use super::BuiltKind;
use super::FlowCx;
use super::env::Env;
use super::observer::Watch;
use super::sctp::agent_configs;
use crate::kernel::ids::{AgentId, NodeId};
use crate::kernel::ip::proto;
use crate::kernel::world::World;
use crate::models::sctp::{LocalSwitch, SctpAgent, SctpAgentConfig};
use crate::scenario::error::ScenarioError;
use crate::scenario::resolve::{Flow, SctpFlow};
use crate::scenario::spec::DirectionSpec;

pub(super) fn build(mut cx: FlowCx<'_, '_>) -> Result<BuiltKind, ScenarioError> {
    let spec = &cx.f.spec;
    let key = format!("flows[{}]", spec.name);
    let m = cx.env.mobile(cx.f);
    let fixed = cx.env.fixed(cx.f);
    let path_addrs = m.addrs.clone();
    let fixed_addrs = fixed_addresses(cx.w, fixed, &key)?;
    let sctp =
        cx.f.sctp
            .as_ref()
            .ok_or_else(|| ScenarioError::model(&key, "no SCTP configuration"))?;
    let (mut mobile, mut fixed_cfg) = agent_configs(
        cx.env,
        cx.f,
        cx.start,
        cx.log,
        sctp.association.clone(),
        fixed_addrs,
        path_addrs.clone(),
    )?;
    apply_options(&cx, sctp, &mut mobile, &mut fixed_cfg);
    let name = format!("sctp/{}", spec.name);
    let fixed_agent =
        cx.w.add_agent(fixed, &name, Box::new(SctpAgent::new(fixed_cfg)))
            .map_err(|e| ScenarioError::model(&key, e))?;
    if let Some(ls) = mobile.local_switch.as_mut() {
        ls.peer_agent = Some(fixed_agent);
    }
    let mobile_agent =
        cx.w.add_agent(m.node, &name, Box::new(SctpAgent::new(mobile)))
            .map_err(|e| ScenarioError::model(&key, e))?;
    let asconf = watch_asconf(&mut cx)?;
    Ok(BuiltKind::Msctp {
        mobile_agent,
        fixed_agent,
        asconf,
        path_addrs,
    })
}

/// Every address of the fixed node (it listens on all of them); an error
/// naming `{key}.fixed` if it has none.
fn fixed_addresses(w: &World, fixed: NodeId, key: &str) -> Result<Vec<IpAddr>, ScenarioError> {
    let fixed_addrs: Vec<IpAddr> = w
        .node(fixed)
        .map(|n| {
            n.ifaces()
                .iter()
                .flat_map(|i| i.addrs().iter().map(|a| a.addr()))
                .collect()
        })
        .unwrap_or_default();
    if fixed_addrs.is_empty() {
        return Err(ScenarioError::reference(
            format!("{key}.fixed"),
            "the fixed node has no address (no link)",
        ));
    }
    Ok(fixed_addrs)
}

/// The flow's SCTP options on both agents' configurations: split fast
/// retransmit, the mobile's handover policy (fastest-first with its
/// interface rates; none with a local switch, ns-2 set-primary), a random
/// initial path, AISLE at the data sender, and the oracle capacities.
fn apply_options(
    cx: &FlowCx<'_, '_>,
    sctp: &SctpFlow,
    mobile: &mut SctpAgentConfig,
    fixed_cfg: &mut SctpAgentConfig,
) {
    let spec = &cx.f.spec;
    mobile.split_fast_retransmit = sctp.split_fast_retransmit;
    fixed_cfg.split_fast_retransmit = sctp.split_fast_retransmit;
    mobile.policy = match &spec.policy {
        PolicyKind::FastestFirst { .. } => PolicyKind::FastestFirst {
            rates: fastest_first_rates(cx.w, cx.env, cx.f),
        },
        other => other.map_interfaces(|_| None),
    };
    if sctp.local_switch {
        // ns-2 set-primary: the switch follows the policy's instants, but
        // the agent makes it locally at both ends; no handover manager.
        let rates = match &spec.policy {
            PolicyKind::FastestFirst { .. } => fastest_first_rates(cx.w, cx.env, cx.f),
            _ => BTreeMap::new(),
        };
        mobile.policy = PolicyKind::None;
        mobile.local_switch = Some(LocalSwitch {
            peer_agent: None,
            rates,
        });
    }
    if spec.random_initial_path {
        let seed = rand::RngCore::next_u64(&mut crate::kernel::rng::stream(
            cx.seed,
            &format!("flow/{}/initial-path", spec.name),
        ));
        match spec.direction {
            DirectionSpec::Downlink => fixed_cfg.initial_path_seed = Some(seed),
            DirectionSpec::Uplink => mobile.initial_path_seed = Some(seed),
        }
    }
    if let PolicyKind::Aisle { params, seed } = &spec.policy {
        // AISLE is the data sender's choice of path (docs/MODELS.md 3);
        // the mobile's addresses follow its interfaces as with standard
        // SCTP. Its draws come from the run's seed unless the file names
        // one.
        let seed = seed.unwrap_or_else(|| {
            rand::RngCore::next_u64(&mut crate::kernel::rng::stream(
                cx.seed,
                &format!("flow/{}/aisle", spec.name),
            ))
        });
        let aisle = PolicyKind::Aisle {
            params: *params,
            seed: Some(seed),
        };
        match spec.direction {
            DirectionSpec::Downlink => {
                fixed_cfg.policy = aisle;
                mobile.policy = PolicyKind::FailoverOnly;
            }
            DirectionSpec::Uplink => mobile.policy = aisle,
        }
    }
    if sctp.oracle_start {
        // The capacity of each cell's network: a perfect estimate.
        let caps = cell_rates(cx);
        mobile.capacities = caps.clone();
        fixed_cfg.capacities = caps;
    }
    if sctp.oracle_capacities {
        // The paths' capacities a policy reads: each cell's configured
        // rate instead of the packet-pair estimate.
        let caps = cell_rates(cx);
        mobile.path_capacities = caps.clone();
        fixed_cfg.path_capacities = caps;
    }
}

/// The observers that count ADD-IP signalling at the mobile and at the
/// fixed node.
fn watch_asconf(cx: &mut FlowCx<'_, '_>) -> Result<[(AgentId, usize); 2], ScenarioError> {
    let watch = |local: u16, remote: u16| Watch {
        protocol: proto::SCTP,
        local_port: local,
        remote_port: remote,
        sends: false,
        receives: false,
        uids: false,
        refuse_unowned: false,
        asconf: true,
    };
    let m_obs = cx.shared.observers.watch(
        cx.w,
        cx.env,
        cx.f,
        true,
        watch(cx.f.mobile_port, cx.f.fixed_port),
    )?;
    let f_obs = cx.shared.observers.watch(
        cx.w,
        cx.env,
        cx.f,
        false,
        watch(cx.f.fixed_port, cx.f.mobile_port),
    )?;
    Ok([m_obs, f_obs])
}

/// The nominal rate of each mobile interface for a fastest-first policy:
/// the file's `rates`, else the rate of the interface's first cell.
fn fastest_first_rates(w: &World, env: &Env<'_>, f: &Flow) -> BTreeMap<u32, u64> {
    let PolicyKind::FastestFirst { rates } = &f.spec.policy else {
        return BTreeMap::new();
    };
    let s = &*env.r.scenario;
    let node = env.mobile(f).node;
    let mut by_iface = BTreeMap::new();
    for i in &s.mobiles[f.mobile].ifaces {
        let id = w
            .node(node)
            .and_then(|n| n.iface_by_name(&i.name))
            .map(|x| x.id().0);
        let rate = rates.get(&i.name).copied().or_else(|| {
            i.cells
                .first()
                .and_then(|c| s.cell_index(c))
                .map(|k| s.cells[k].rate_bps)
        });
        if let (Some(id), Some(r)) = (id, rate) {
            by_iface.insert(id, r);
        }
    }
    by_iface
}

/// Each cell's network prefix with its configured rate (bit/s): the
/// oracle that bandwidth-aware start or a policy may be given instead of
/// an estimate.
fn cell_rates(cx: &FlowCx<'_, '_>) -> Vec<(ipnet::IpNet, u64)> {
    cx.env
        .r
        .cells
        .iter()
        .zip(&cx.env.r.scenario.cells)
        .map(|(c, s)| (c.ap.trunc(), s.rate_bps))
        .collect()
}
