//! The baseline transports of scenario files (SYSTEMS.md section 2): each
//! `transport` value other than `msctp` becomes the agents of the models
//! in [`crate::models::tcp`], [`crate::models::mip`], [`crate::models::fmip`], [`crate::models::handoff`],
//! [`crate::models::cmhn`] and [`crate::models::app`], wired to the scenario's topology,
//! plus what every flow needs for its measures: a [`FlowObserver`] on both
//! ends (paths, data packet uids, ADD-IP bits) and, for the E4 schemes, a
//! [`DecisionBridge`] that hands them the radio's link decisions.
//!
//! Mobile IP is infrastructure shared by every flow of a scenario (one
//! deployment of each version; one client per mobile), created by the first
//! flow that needs it; see [`mip`].

mod bridge;
pub(crate) mod collect;
mod mip;
mod observer;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::rc::Rc;
use std::time::Duration;

use ipnet::IpNet;
use msctp_tcp::TcpConfig;

pub(crate) use bridge::DecisionBridge;
pub(crate) use observer::{FlowObserver, NO_PATH, Watch};

use super::build::{MobileInfo, Names, ms, secs};
use super::check::Family;
use super::spec::*;
use super::validate::{ScenarioError, host_in};
use crate::kernel::ids::{AgentId, NodeId};
use crate::kernel::ip::proto;
use crate::kernel::world::World;
use crate::metrics::flow_log::{FlowLog, SharedFlowLog};
use crate::models::app::UdpSink;
use crate::models::app::{
    CbrConfig, ParetoConfig, ParetoOnOff, SinkConfig, Source, UdpCbr, UdpFlow,
};
use crate::models::cmhn::{CmhnAgent, CmhnConfig, CmhnInterface, CmhnSide, Scheduling};
use crate::models::handoff::{
    HandoffPeer, NetworkProfile, SingleConnectionConfig, SingleConnectionHandoff,
};
use crate::models::sctp::handover::PolicyKind;
use crate::models::sctp::{Role, SctpAgent, SctpAgentConfig};
use crate::models::tcp::{TcpAgent, TcpAgentConfig};

pub(crate) use mip::{Mip4Parts, Mip6Parts};

/// `TcpConfig` from a `[flows.tcp]` table (the preset's values for absent
/// keys).
pub(crate) fn tcp_config(t: &TcpSpec) -> TcpConfig {
    let mut c = match t.preset {
        TcpPresetSpec::Rfc => TcpConfig::default(),
        TcpPresetSpec::Ns3 => TcpConfig::ns3_compatible(),
    };
    if let Some(v) = t.mss {
        c.mss = v;
    }
    if let Some(v) = t.initial_window_segments {
        c.initial_window_segments = Some(v);
    }
    if let Some(v) = t.initial_ssthresh {
        c.initial_ssthresh = v;
    }
    if let Some(v) = t.initial_rto_ms {
        c.initial_rto = ms(v);
    }
    if let Some(v) = t.min_rto_ms {
        c.min_rto = ms(v);
    }
    if let Some(v) = t.max_rto_ms {
        c.max_rto = ms(v);
    }
    if let Some(v) = t.syn_rto_ms {
        c.syn_rto = ms(v);
    }
    if let Some(v) = t.max_retransmissions {
        c.max_retransmissions = v;
    }
    if let Some(v) = t.syn_retries {
        c.syn_retries = v;
    }
    if let Some(v) = t.delayed_ack {
        c.delayed_ack = v;
    }
    if let Some(v) = t.delayed_ack_ms {
        c.delayed_ack_timeout = ms(v);
    }
    if let Some(v) = t.delayed_ack_count {
        c.delayed_ack_count = v;
    }
    if let Some(v) = t.sack {
        c.sack = v;
    }
    if let Some(v) = t.timestamps {
        c.timestamps = v;
    }
    if let Some(v) = t.window_scaling {
        c.window_scaling = v;
    }
    if let Some(v) = t.limited_transmit {
        c.limited_transmit = v;
    }
    if let Some(v) = t.nagle {
        c.nagle = v;
    }
    if let Some(v) = t.dup_ack_threshold {
        c.dup_ack_threshold = v;
    }
    if let Some(v) = t.send_buffer {
        c.send_buffer = v;
    }
    if let Some(v) = t.recv_buffer {
        c.recv_buffer = v;
    }
    c
}

/// What the flow builders read of the built topology.
pub(crate) struct Env<'a> {
    pub s: &'a Scenario,
    pub names: &'a Names,
    pub mobiles: &'a BTreeMap<String, MobileInfo>,
}

impl Env<'_> {
    fn node(&self, name: &str, key: &str) -> Result<NodeId, ScenarioError> {
        self.names
            .nodes
            .get(name)
            .copied()
            .ok_or_else(|| ScenarioError::reference(key, format!("no node {name:?}")))
    }

    fn mobile(&self, name: &str, key: &str) -> Result<&MobileInfo, ScenarioError> {
        self.mobiles
            .get(name)
            .ok_or_else(|| ScenarioError::reference(key, format!("no mobile {name:?}")))
    }

    /// The first address of `fam` of a fixed node (its links in
    /// declaration order).
    fn fixed_addr(
        &self,
        w: &World,
        node: NodeId,
        fam: Family,
        key: &str,
    ) -> Result<IpAddr, ScenarioError> {
        w.node(node)
            .and_then(|n| {
                n.ifaces()
                    .iter()
                    .flat_map(|i| i.addrs().iter())
                    .find(|a| Family::of(a) == fam)
                    .map(|a| a.addr())
            })
            .ok_or_else(|| {
                ScenarioError::reference(key, "the fixed node has no address of the flow's family")
            })
    }
}

/// Scenario-wide pieces shared by flows: one observer per node, one
/// decision bridge per mobile, the Mobile IP deployments.
#[derive(Default)]
pub(crate) struct Infra {
    observers: BTreeMap<NodeId, AgentId>,
    bridges: BTreeMap<NodeId, AgentId>,
    pub(crate) mip4: Option<mip::Mip4Infra>,
    pub(crate) mip6: Option<mip::Mip6Infra>,
}

impl Infra {
    /// The observer of `node_name` (created on first use: on a mobile it
    /// numbers the mobile's cells as paths).
    pub(crate) fn observer(
        &mut self,
        w: &mut World,
        env: &Env<'_>,
        node_name: &str,
    ) -> Result<AgentId, ScenarioError> {
        let node = env.node(node_name, "flows")?;
        if let Some(&a) = self.observers.get(&node) {
            return Ok(a);
        }
        let paths = env
            .mobiles
            .get(node_name)
            .map(|m| m.paths())
            .unwrap_or_default();
        let obs = FlowObserver::new(paths, env.s.limits.flow_records, env.s.limits.data_uids);
        let id = w
            .add_agent(node, "observer", Box::new(obs))
            .map_err(|e| ScenarioError::model(format!("nodes[{node_name}]"), e))?;
        self.observers.insert(node, id);
        Ok(id)
    }

    /// Adds a watch to the observer of `node_name`.
    pub(crate) fn watch(
        &mut self,
        w: &mut World,
        env: &Env<'_>,
        node_name: &str,
        watch: Watch,
    ) -> Result<(AgentId, usize), ScenarioError> {
        let id = self.observer(w, env, node_name)?;
        let k = w
            .agent_mut::<FlowObserver>(id)
            .map(|o| o.watch(watch))
            .ok_or_else(|| ScenarioError::model("flows", "observer vanished"))?;
        Ok((id, k))
    }

    fn bridge(&mut self, w: &mut World, node: NodeId, key: &str) -> Result<(), ScenarioError> {
        if self.bridges.contains_key(&node) {
            return Ok(());
        }
        let id = w
            .add_agent(node, "link-decisions", Box::new(DecisionBridge::default()))
            .map_err(|e| ScenarioError::model(key, e))?;
        self.bridges.insert(node, id);
        Ok(())
    }
}

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

/// Ports of flow `k` (as for mSCTP: 5000 + 2k and + 1 unless given).
fn source(f: &FlowSpec, key: &str) -> Result<Source, ScenarioError> {
    Source::new(
        super::build::traffic(&f.traffic),
        secs(f.start_s),
        f.stop_s.map(secs),
    )
    .map_err(|e| ScenarioError::model(format!("{key}.traffic"), e))
}

/// The mobile's address a `tcp` / `udp` flow uses: `mobile_iface`'s (or
/// the first interface's) first cell.
fn plain_address(m: &MobileInfo, f: &FlowSpec, key: &str) -> Result<IpAddr, ScenarioError> {
    let link = match &f.mobile_iface {
        Some(name) => m.iface_links(name).next(),
        None => m.links.first(),
    };
    link.map(|l| l.address.addr())
        .ok_or_else(|| ScenarioError::reference(format!("{key}.mobile_iface"), "no such interface"))
}

/// Builds one baseline flow; returns its shared log and its parts.
pub(crate) fn build_flow(
    w: &mut World,
    env: &Env<'_>,
    infra: &mut Infra,
    k: usize,
    f: &FlowSpec,
) -> Result<(SharedFlowLog, BaselineFlow), ScenarioError> {
    let key = format!("flows[{}]", f.name);
    let s = env.s;
    let m = env.mobile(&f.mobile, &format!("{key}.mobile"))?.clone();
    let fixed = env.node(&f.fixed, &format!("{key}.fixed"))?;
    let (fixed_port, mobile_port) = Scenario::flow_ports(k, f);
    let downlink = f.direction == DirectionSpec::Downlink;
    let log: SharedFlowLog = Rc::new(RefCell::new(FlowLog::with_limit(s.limits.flow_records)));
    let t = f.transport;
    let protocol = match t {
        TransportSpec::Mip4Sctp => proto::SCTP,
        _ if t.carries() == Carries::Datagrams => proto::UDP,
        _ => proto::TCP,
    };
    // Observers first: on a Mobile IP node they must see the packets
    // before the client rewrites them.
    let mobile_obs = infra.watch(
        w,
        env,
        &f.mobile,
        Watch {
            protocol,
            local_port: mobile_port,
            remote_port: fixed_port,
            sends: !downlink,
            receives: downlink && protocol == proto::SCTP,
            uids: !downlink && protocol != proto::SCTP,
            refuse_unowned: protocol != proto::SCTP,
            asconf: false,
        },
    )?;
    let fixed_obs = infra.watch(
        w,
        env,
        &f.fixed,
        Watch {
            protocol,
            local_port: fixed_port,
            remote_port: mobile_port,
            sends: false,
            receives: false,
            uids: downlink && protocol != proto::SCTP,
            refuse_unowned: false,
            asconf: false,
        },
    )?;
    let fam = s.flow_family(
        f,
        s.mobiles
            .iter()
            .find(|x| x.name == f.mobile)
            .ok_or_else(|| ScenarioError::reference(format!("{key}.mobile"), "no such mobile"))?,
    )?;
    let fam = fam.unwrap_or(Family::V4);
    let fixed_addr = env.fixed_addr(w, fixed, fam, &format!("{key}.fixed"))?;
    let tcp = tcp_config(&f.tcp.clone().unwrap_or_default());
    // The mobility support and the mobile's address.
    let (scheme, mobile_addr) = match t.mobility() {
        Mobility::MobileIpv4 => {
            let parts = mip::mip4_for(w, env, infra, f, &m)?;
            let home = parts.home;
            (SchemeParts::Mip4(parts), home)
        }
        Mobility::MobileIpv6 | Mobility::FastMobileIpv6 => {
            let parts = mip::mip6_for(w, env, infra, f, &m, fixed, fixed_addr)?;
            let home = parts.home;
            (SchemeParts::Mip6(parts), home)
        }
        _ => (SchemeParts::None, plain_address(&m, f, &key)?),
    };
    let name = format!("{}/{}", t.name(), f.name);
    let add = |w: &mut World, node: NodeId, agent: Box<dyn crate::Agent>| {
        w.add_agent(node, &name, agent)
            .map_err(|e| ScenarioError::model(&key, e))
    };
    let mut slot_paths = Vec::new();
    let agents = match t {
        TransportSpec::Tcp
        | TransportSpec::Mip4Tcp
        | TransportSpec::Mip6Tcp
        | TransportSpec::Fmip6Tcp => {
            let local = SocketAddr::new(mobile_addr, mobile_port);
            let remote = SocketAddr::new(fixed_addr, fixed_port);
            let mut ccfg = TcpAgentConfig::client(tcp.clone(), local, remote, secs(f.start_s))
                .with_log(log.clone());
            let mut scfg = TcpAgentConfig::server(tcp, fixed_port).with_log(log.clone());
            if downlink {
                scfg = scfg.with_source(source(f, &key)?);
            } else {
                ccfg = ccfg.with_source(source(f, &key)?);
            }
            let server =
                TcpAgent::new(scfg).map_err(|e| ScenarioError::model(format!("{key}.tcp"), e))?;
            let client =
                TcpAgent::new(ccfg).map_err(|e| ScenarioError::model(format!("{key}.tcp"), e))?;
            let fixed_agent = add(w, fixed, Box::new(server))?;
            let mobile_agent = add(w, m.node, Box::new(client))?;
            FlowAgents::Tcp {
                mobile: mobile_agent,
                fixed: fixed_agent,
            }
        }
        TransportSpec::Mip4Sctp => {
            let mut assoc = super::build::association_config(&f.sctp);
            // SCTP over Mobile IP: no ADD-IP, one address (the home
            // address) at the mobile.
            assoc.asconf = false;
            let mut mcfg = SctpAgentConfig::new(
                mobile_port,
                Role::Connect {
                    peer: vec![fixed_addr],
                    peer_port: fixed_port,
                    at: secs(f.start_s),
                },
            );
            mcfg.association = assoc.clone();
            mcfg.log = Some(log.clone());
            mcfg.mobile_side = true;
            mcfg.path_addrs = vec![mobile_addr];
            mcfg.policy = PolicyKind::None;
            mcfg.sample_interval = (s.output.sample_ms > 0.0).then(|| ms(s.output.sample_ms));
            mcfg.limits.max_events = s.limits.agent_events;
            mcfg.limits.max_data_uids = s.limits.data_uids;
            let mut fcfg = SctpAgentConfig::new(fixed_port, Role::Listen);
            fcfg.association = assoc;
            fcfg.log = Some(log.clone());
            fcfg.path_addrs = vec![mobile_addr];
            fcfg.sample_interval = mcfg.sample_interval;
            fcfg.limits.max_events = s.limits.agent_events;
            fcfg.limits.max_data_uids = s.limits.data_uids;
            let expect = f.traffic.file_bytes();
            if downlink {
                fcfg.source = Some(source(f, &key)?);
                mcfg.expect_bytes = expect;
            } else {
                mcfg.source = Some(source(f, &key)?);
                fcfg.expect_bytes = expect;
            }
            let fixed_agent = add(w, fixed, Box::new(SctpAgent::new(fcfg)))?;
            let mobile_agent = add(w, m.node, Box::new(SctpAgent::new(mcfg)))?;
            FlowAgents::Sctp {
                mobile: mobile_agent,
                fixed: fixed_agent,
            }
        }
        TransportSpec::Mip6Udp | TransportSpec::Fmip6Udp | TransportSpec::Udp => {
            let (src, src_port, dst, dst_port, src_node, dst_node) = if downlink {
                (
                    fixed_addr,
                    fixed_port,
                    mobile_addr,
                    mobile_port,
                    fixed,
                    m.node,
                )
            } else {
                (
                    mobile_addr,
                    mobile_port,
                    fixed_addr,
                    fixed_port,
                    m.node,
                    fixed,
                )
            };
            let flow = UdpFlow::new(src, src_port, dst, dst_port);
            let tk = format!("{key}.traffic");
            let (agent, pareto, size): (Box<dyn crate::Agent>, bool, usize) = match f.traffic {
                TrafficSpec::Cbr {
                    message_bytes,
                    rate_bps,
                } => (
                    Box::new(
                        UdpCbr::new(CbrConfig {
                            flow,
                            packet_size: message_bytes,
                            rate_bps,
                            start: secs(f.start_s),
                            stop: f.stop_s.map(secs),
                            max_packets: None,
                        })
                        .map_err(|e| ScenarioError::model(&tk, e))?,
                    ),
                    false,
                    message_bytes,
                ),
                TrafficSpec::Pareto {
                    message_bytes,
                    rate_bps,
                    mean_on_ms,
                    mean_off_ms,
                    shape,
                } => (
                    Box::new(
                        ParetoOnOff::new(ParetoConfig {
                            flow,
                            packet_size: message_bytes,
                            rate_bps,
                            mean_on: ms(mean_on_ms),
                            mean_off: ms(mean_off_ms),
                            shape,
                            start: secs(f.start_s),
                            stop: f.stop_s.map(secs),
                        })
                        .map_err(|e| ScenarioError::model(&tk, e))?,
                    ),
                    true,
                    message_bytes,
                ),
                _ => {
                    return Err(ScenarioError::model(
                        format!("{tk}.kind"),
                        "datagram transports carry cbr or pareto traffic",
                    ));
                }
            };
            let payload = size
                .saturating_sub(flow.overhead())
                .max(crate::models::app::STAMP_LEN) as u64;
            let sink = UdpSink::new(SinkConfig {
                port: dst_port,
                max_records: s.limits.flow_records,
            });
            let source = add(w, src_node, agent)?;
            let sink = add(w, dst_node, Box::new(sink))?;
            FlowAgents::Udp {
                source,
                pareto,
                sink,
                payload,
            }
        }
        TransportSpec::SingleHandoff => {
            let h = f.handoff.clone().unwrap_or_default();
            let networks = networks(env, f, &m, &h, &key)?;
            let initial = match &h.initial {
                Some(n) => m.links.iter().position(|l| &l.iface_name == n).unwrap_or(0),
                None => 0,
            };
            let mut cfg = SingleConnectionConfig::new(
                tcp.clone(),
                networks,
                SocketAddr::new(fixed_addr, fixed_port),
            );
            cfg.initial = initial;
            cfg.local_port = mobile_port;
            cfg.start = secs(f.start_s);
            cfg.log = Some(log.clone());
            cfg.bdp_start = h.bdp_start;
            cfg.update_retry = ms(h.update_retry_ms);
            let mut scfg = TcpAgentConfig::server(tcp, fixed_port).with_log(log.clone());
            if downlink {
                scfg = scfg.with_source(source(f, &key)?);
            } else {
                cfg.source = Some(source(f, &key)?);
            }
            let server =
                TcpAgent::new(scfg).map_err(|e| ScenarioError::model(format!("{key}.tcp"), e))?;
            let mobile_side = SingleConnectionHandoff::new(cfg)
                .map_err(|e| ScenarioError::model(format!("{key}.handoff"), e))?;
            infra.bridge(w, m.node, &key)?;
            let fixed_agent = add(w, fixed, Box::new(HandoffPeer::new(server)))?;
            let mobile_agent = add(w, m.node, Box::new(mobile_side))?;
            FlowAgents::Single {
                mobile: mobile_agent,
                fixed: fixed_agent,
            }
        }
        TransportSpec::Cmhn => {
            let c = f.cmhn.clone().unwrap_or_default();
            let paths = m.paths();
            let interfaces: Vec<CmhnInterface> = m
                .links
                .iter()
                .map(|l| CmhnInterface {
                    iface: l.iface,
                    address: l.address.addr(),
                })
                .collect();
            slot_paths = m
                .links
                .iter()
                .map(|l| paths.get(&l.cell).copied().unwrap_or(NO_PATH))
                .collect();
            let initial = match &c.initial {
                Some(n) => m.links.iter().position(|l| &l.iface_name == n).unwrap_or(0),
                None => 0,
            };
            let scheduling = match c.scheduling {
                SchedulingSpec::Switch => Scheduling::Switch,
                SchedulingSpec::Stripe => Scheduling::Stripe,
            };
            let mut mc = CmhnConfig::new(
                tcp.clone(),
                CmhnSide::Mobile {
                    interfaces,
                    remote: SocketAddr::new(fixed_addr, fixed_port),
                    local_port: mobile_port,
                },
            );
            let mut fc = CmhnConfig::new(tcp, CmhnSide::Fixed { port: fixed_port });
            for x in [&mut mc, &mut fc] {
                x.scheduling = scheduling;
                x.keepalive = Duration::from_secs_f64(c.keepalive_s.max(0.0));
                x.probe_time = ms(c.probe_ms);
                x.estimate_interval = ms(c.estimate_ms);
                x.log = Some(log.clone());
                x.start = secs(f.start_s);
                x.max_record = c.max_record;
                x.max_reorder = c.max_reorder;
            }
            mc.initially_usable = vec![initial];
            if downlink {
                fc.source = Some(source(f, &key)?);
            } else {
                mc.source = Some(source(f, &key)?);
            }
            let fixed_side =
                CmhnAgent::new(fc).map_err(|e| ScenarioError::model(format!("{key}.cmhn"), e))?;
            let mobile_side =
                CmhnAgent::new(mc).map_err(|e| ScenarioError::model(format!("{key}.cmhn"), e))?;
            infra.bridge(w, m.node, &key)?;
            let fixed_agent = add(w, fixed, Box::new(fixed_side))?;
            let mobile_agent = add(w, m.node, Box::new(mobile_side))?;
            FlowAgents::Cmhn {
                mobile: mobile_agent,
                fixed: fixed_agent,
            }
        }
        TransportSpec::Msctp => {
            return Err(ScenarioError::model(&key, "msctp is not a baseline"));
        }
    };
    Ok((
        log,
        BaselineFlow {
            downlink,
            agents,
            scheme,
            mobile_obs,
            fixed_obs,
            slot_paths,
        },
    ))
}

/// One-way propagation delay (ms) between two fixed nodes over the
/// fewest-hop path of the scenario's links (declaration order breaks
/// ties); `None` if they are not connected.
fn path_delay_ms(s: &Scenario, from: &str, to: &str) -> Option<f64> {
    let mut best: BTreeMap<&str, f64> = BTreeMap::new();
    best.insert(from, 0.0);
    let mut frontier = vec![from];
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for n in frontier {
            let d = best[n];
            for l in &s.links {
                let other = if l.a == n {
                    l.b.as_str()
                } else if l.b == n {
                    l.a.as_str()
                } else {
                    continue;
                };
                if !best.contains_key(other) {
                    best.insert(other, d + l.delay_ms);
                    next.push(other);
                }
            }
        }
        frontier = next;
    }
    best.get(to).copied()
}

/// The networks of the single-connection handoff, one per mobile
/// interface (validated: one cell each).
fn networks(
    env: &Env<'_>,
    f: &FlowSpec,
    m: &MobileInfo,
    h: &HandoffSpec,
    key: &str,
) -> Result<Vec<NetworkProfile>, ScenarioError> {
    let s = env.s;
    let mut out = Vec::new();
    let mut rates = Vec::new();
    for l in &m.links {
        let cell = s
            .cell_spec(&l.cell_name)
            .ok_or_else(|| ScenarioError::reference(key, "cell vanished"))?;
        let n = h.networks.get(&l.iface_name).cloned().unwrap_or_default();
        let bandwidth = n.bandwidth_bps.unwrap_or(cell.rate_bps);
        rates.push(bandwidth);
        let rtt_ms = match n.rtt_ms {
            Some(r) => r,
            None => {
                let core = path_delay_ms(s, &cell.router, &f.fixed).ok_or_else(|| {
                    ScenarioError::reference(
                        format!("{key}.handoff.networks.{}.rtt_ms", l.iface_name),
                        format!(
                            "cell {:?}'s router is not connected to {:?}: give rtt_ms",
                            l.cell_name, f.fixed
                        ),
                    )
                })?;
                2.0 * (cell.delay_ms + core)
            }
        };
        out.push(NetworkProfile {
            iface: l.iface,
            address: l.address.addr(),
            bandwidth_bps: bandwidth,
            rtt: ms(rtt_ms),
            processing: ms(n.processing_ms()),
            preference: n.preference.unwrap_or(0),
        });
    }
    // Default preference: rank by bandwidth (the faster network preferred).
    for (i, l) in m.links.iter().enumerate() {
        let explicit = h
            .networks
            .get(&l.iface_name)
            .and_then(|n| n.preference)
            .is_some();
        if !explicit {
            out[i].preference = rates.iter().filter(|&&r| r < rates[i]).count() as u32;
        }
    }
    Ok(out)
}

/// The address of `host_id` in a cell's prefix (the home address).
pub(crate) fn address_in(ap: IpNet, host_id: u32, key: &str) -> Result<IpAddr, ScenarioError> {
    host_in(ap, host_id)
        .map(|n| n.addr())
        .ok_or_else(|| ScenarioError::model(key, "host_id does not fit the home prefix"))
}
