//! What the baseline flows (every transport but `msctp`) have in common:
//! the observers at both ends, the mobility support under the transport
//! and the mobile's address ([`baseline_ends`]), and their description in
//! the built world ([`BaselineFlow`]), which the run summary reads.
//!
//! Mobile IP is infrastructure shared by every flow of a scenario (one
//! deployment of each version; one client per mobile), created by the
//! first flow that needs it; see [`super::mip`].

use std::net::IpAddr;

use super::Shared;
use super::env::Env;
use super::mip::{Mip4Parts, Mip6Parts, mip4_for, mip6_for};
use super::observer::Watch;
use crate::kernel::Agent;
use crate::kernel::ids::{AgentId, NodeId};
use crate::kernel::ip::proto;
use crate::kernel::world::World;
use crate::scenario::error::ScenarioError;
use crate::scenario::resolve::{Family, Flow};
use crate::scenario::spec::{Carries, DirectionSpec, Mobility, TransportSpec};

/// The agents of a baseline flow.
#[derive(Debug, Clone)]
pub(crate) enum FlowAgents {
    /// `TcpAgent` client on the mobile, server on the fixed node.
    Tcp { mobile: AgentId, fixed: AgentId },
    /// `SctpAgent`s (SCTP over Mobile IPv4).
    Sctp { mobile: AgentId, fixed: AgentId },
    /// `SingleConnectionHandoff` and its `HandoffPeer`.
    Single { mobile: AgentId, fixed: AgentId },
    /// `CmhnAgent`s.
    Cmhn { mobile: AgentId, fixed: AgentId },
    /// `QuicAgent` client on the mobile, server on the fixed node.
    Quic { mobile: AgentId, fixed: AgentId },
    /// A CBR or Pareto source and a sink.
    Udp {
        source: AgentId,
        pareto: bool,
        sink: AgentId,
        /// Payload bytes of each datagram.
        payload: u64,
    },
}

/// The mobility models behind a flow.
#[derive(Debug, Clone)]
pub(crate) enum SchemeParts {
    None,
    Mip4(Mip4Parts),
    Mip6(Mip6Parts),
}

/// A baseline flow in the built world.
#[derive(Debug, Clone)]
pub(crate) struct BaselineFlow {
    pub downlink: bool,
    pub agents: FlowAgents,
    pub scheme: SchemeParts,
    /// The observers (agent, watch index) at the mobile and the fixed node.
    pub mobile_obs: (AgentId, usize),
    pub fixed_obs: (AgentId, usize),
    /// CMHN: the path id of each slot (mobile interface).
    pub slot_paths: Vec<u32>,
}

/// What every baseline flow starts with, built in this order: its
/// observers (first, so that on a Mobile IP node they see the packets
/// before the client rewrites them), then its mobility support (the
/// Mobile IP deployment and client, if any), which gives the mobile's
/// address.
pub(super) struct BaselineEnds {
    /// `flows[<name>]`.
    pub key: String,
    /// The agents' name: `<transport>/<flow>`.
    name: String,
    pub downlink: bool,
    pub mobile: NodeId,
    pub fixed: NodeId,
    pub fixed_addr: IpAddr,
    pub mobile_addr: IpAddr,
    scheme: SchemeParts,
    mobile_obs: (AgentId, usize),
    fixed_obs: (AgentId, usize),
}

impl BaselineEnds {
    /// Adds one of the flow's agents.
    pub(super) fn add(
        &self,
        w: &mut World,
        node: NodeId,
        agent: Box<dyn Agent>,
    ) -> Result<AgentId, ScenarioError> {
        w.add_agent(node, &self.name, agent)
            .map_err(|e| ScenarioError::model(&self.key, e))
    }

    /// The flow in the built world.
    pub(super) fn flow(self, agents: FlowAgents) -> BaselineFlow {
        BaselineFlow {
            downlink: self.downlink,
            agents,
            scheme: self.scheme,
            mobile_obs: self.mobile_obs,
            fixed_obs: self.fixed_obs,
            slot_paths: Vec::new(),
        }
    }
}

/// See [`BaselineEnds`].
pub(super) fn baseline_ends(
    w: &mut World,
    env: &Env<'_>,
    shared: &mut Shared,
    f: &Flow,
) -> Result<BaselineEnds, ScenarioError> {
    let spec = &f.spec;
    let key = format!("flows[{}]", spec.name);
    let m = env.mobile(f);
    let fixed = env.fixed(f);
    let downlink = spec.direction == DirectionSpec::Downlink;
    let t = spec.transport;
    let protocol = match t {
        TransportSpec::Mip4Sctp => proto::SCTP,
        _ if t.carries() == Carries::Datagrams => proto::UDP,
        _ => proto::TCP,
    };
    let mobile_obs = shared.observers.watch(
        w,
        env,
        f,
        true,
        Watch {
            protocol,
            local_port: f.mobile_port,
            remote_port: f.fixed_port,
            sends: !downlink,
            receives: downlink && protocol == proto::SCTP,
            uids: !downlink && protocol != proto::SCTP,
            refuse_unowned: protocol != proto::SCTP,
            asconf: false,
        },
    )?;
    let fixed_obs = shared.observers.watch(
        w,
        env,
        f,
        false,
        Watch {
            protocol,
            local_port: f.fixed_port,
            remote_port: f.mobile_port,
            sends: false,
            receives: false,
            uids: downlink && protocol != proto::SCTP,
            refuse_unowned: false,
            asconf: false,
        },
    )?;
    let fam = f.family.unwrap_or(Family::V4);
    let fixed_addr = env.fixed_addr(w, fixed, fam, &format!("{key}.fixed"))?;
    let (scheme, mobile_addr) = match t.mobility() {
        Mobility::MobileIpv4 => {
            let parts = mip4_for(w, env, &mut shared.mip, f)?;
            let home = parts.home;
            (SchemeParts::Mip4(parts), home)
        }
        Mobility::MobileIpv6 | Mobility::FastMobileIpv6 => {
            let parts = mip6_for(w, env, &mut shared.mip, f, fixed_addr)?;
            let home = parts.home;
            (SchemeParts::Mip6(parts), home)
        }
        _ => (SchemeParts::None, plain_address(env, f, &key)?),
    };
    Ok(BaselineEnds {
        name: format!("{}/{}", t.name(), spec.name),
        key,
        downlink,
        mobile: m.node,
        fixed,
        fixed_addr,
        mobile_addr,
        scheme,
        mobile_obs,
        fixed_obs,
    })
}

/// The mobile's address a `tcp` / `udp` flow uses: `mobile_iface`'s (or
/// the first interface's) first cell.
fn plain_address(env: &Env<'_>, f: &Flow, key: &str) -> Result<IpAddr, ScenarioError> {
    let m = env.mobile(f);
    let spec = &env.r.scenario.mobiles[f.mobile];
    let link = match &f.spec.mobile_iface {
        Some(name) => spec
            .ifaces
            .iter()
            .position(|i| &i.name == name)
            .and_then(|k| m.links.iter().find(|l| l.iface_index == k)),
        None => m.links.first(),
    };
    link.map(|l| l.address.addr())
        .ok_or_else(|| ScenarioError::reference(format!("{key}.mobile_iface"), "no such interface"))
}
