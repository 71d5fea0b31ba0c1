//! Assembling: turns a resolved scenario ([`crate::scenario::resolve`])
//! into a simulation, a [`World`]: the fixed nodes, links and cells with
//! their routes ([`routes`]), the scheduled network events, the mobiles
//! with their radios ([`mobiles`]), then each flow with the builder of its
//! transport, then the captures.
//!
//! One builder per transport: [`msctp`] (the engine with a handover
//! policy), [`tcp`] (TCP alone or over Mobile IP or FMIPv6), [`sctp`]
//! (SCTP over Mobile IPv4), [`udp`] (CBR and Pareto sources with a sink),
//! [`handoff`] (the single-connection handoff), [`cmhn`] (the
//! multi-connection transport); the baselines start alike
//! ([`baseline`]). They read the built topology through [`env`] and share
//! per scenario the measuring agents of [`observers`] and the Mobile IP
//! deployments of [`mip`] ([`Shared`]).
//!
//! The order of construction is part of a run's identity (agent ids,
//! events at equal times): it follows the file's order, and for each flow
//! the order its builder documents.

mod baseline;
mod bridge;
mod cmhn;
mod env;
mod handoff;
mod mip;
mod mobiles;
mod msctp;
pub(crate) mod observer;
mod observers;
mod quic;
mod routes;
mod sctp;
mod tcp;
mod udp;

use std::cell::RefCell;
use std::net::IpAddr;
use std::rc::Rc;

use msctp_proto::Time;

pub(crate) use baseline::{BaselineFlow, FlowAgents, SchemeParts};
pub(crate) use mip::{Mip4Parts, Mip6Parts};
pub(crate) use observer::{FlowObserver, NO_PATH, PathRecord, WatchRecords};

use super::error::ScenarioError;
use super::resolve::{Capture, Degradation, Flow, NodeRef, Resolved};
use super::spec::secs;
use super::spec::*;
use crate::kernel::error_model::ErrorModelSpec;
use crate::kernel::ids::{AgentId, CellId, IfaceId, LinkId, NodeId};
use crate::kernel::node::NodeKind;
use crate::kernel::notification::Notification;
use crate::kernel::pcap::{CaptureConfig, SharedBuffer};
use crate::kernel::trace::TraceConfig;
use crate::kernel::world::{World, WorldConfig};
use crate::measure::delay::MessageDelays;
use crate::measure::flow_log::{FlowLog, SharedFlowLog};
use crate::models::radio::driver::SharedDriverLog;
use env::Env;

/// A flow in the built world.
#[derive(Debug)]
pub(crate) struct BuiltFlow {
    pub spec: FlowSpec,
    pub log: SharedFlowLog,
    pub kind: BuiltKind,
}

impl BuiltFlow {
    /// The agent that sends the data of an mSCTP flow (the fixed node's
    /// downlink, the mobile's uplink); `None` for other transports.
    pub fn msctp_data_sender(&self) -> Option<AgentId> {
        let BuiltKind::Msctp {
            mobile_agent,
            fixed_agent,
            ..
        } = &self.kind
        else {
            return None;
        };
        Some(match self.spec.direction {
            DirectionSpec::Downlink => *fixed_agent,
            DirectionSpec::Uplink => *mobile_agent,
        })
    }
}

/// The agents of a flow, by transport.
#[derive(Debug)]
pub(crate) enum BuiltKind {
    Msctp {
        mobile_agent: AgentId,
        fixed_agent: AgentId,
        /// The observers counting ADD-IP signalling at the mobile and the
        /// fixed node (agent, watch index).
        asconf: [(AgentId, usize); 2],
        /// The mobile's address in each of its cells: `PathId(k)` is the
        /// k-th.
        path_addrs: Vec<IpAddr>,
    },
    Baseline(Box<BaselineFlow>),
}

/// A mobile in the built world.
#[derive(Debug, Clone)]
pub(crate) struct BuiltMobile {
    pub name: String,
    /// (time s, x m, y m) of the trajectory's waypoints (`map.json`).
    pub waypoints: Vec<(f64, f64, f64)>,
    pub driver_log: SharedDriverLog,
}

/// Everything a run needs after building.
pub(crate) struct Built {
    pub world: World,
    pub flows: Vec<BuiltFlow>,
    pub mobiles: Vec<BuiltMobile>,
    pub captures: Vec<(String, SharedBuffer)>,
    pub network_log: Rc<RefCell<Vec<(Time, String)>>>,
}

/// The pieces of a scenario its flows share, each created by the first
/// flow that needs it.
#[derive(Default)]
pub(crate) struct Shared {
    pub observers: observers::Observers,
    pub mip: mip::Deployments,
    /// The Poisson arrival times drawn so far, per population.
    pub arrivals: Arrivals,
}

/// The arrival times of each `[[stations]]` population: the k-th is the
/// sum of the stream's first k + 1 exponential draws. Drawn once per
/// population and kept (prefix sums), instead of k + 1 draws from a new
/// stream for station k (quadratic in the population); the sums are the
/// same floating-point operations in the same order, so the same values.
#[derive(Default)]
pub(crate) struct Arrivals {
    /// (stream name, mean's bits) -> (the stream, the sums so far).
    drawn: std::collections::BTreeMap<(String, u64), (crate::kernel::rng::SimRng, Vec<f64>)>,
}

impl Arrivals {
    /// The `index`-th arrival's offset (seconds) of population `a`.
    fn offset(&mut self, seed: u64, a: &PoissonArrival) -> f64 {
        let key = (a.stream.clone(), a.mean_s.to_bits());
        let (rng, sums) = self
            .drawn
            .entry(key)
            .or_insert_with(|| (crate::kernel::rng::stream(seed, &a.stream), Vec::new()));
        let exp = rand_distr::Exp::new(1.0 / a.mean_s).expect("mean checked positive");
        while sums.len() <= a.index {
            let d: f64 = rand_distr::Distribution::sample(&exp, rng);
            // As `Sum for f64` folds: d0 + d1 + ... left to right.
            let sum = sums.last().map_or(d, |prev| prev + d);
            sums.push(sum);
        }
        sums[a.index]
    }
}

/// What a transport's builder works with: the world, the built topology,
/// the scenario's shared pieces, the flow, its start (drawn from the
/// run's seed) and its log.
pub(crate) struct FlowCx<'a, 'r> {
    pub w: &'a mut World,
    pub env: &'a Env<'r>,
    pub shared: &'a mut Shared,
    pub f: &'a Flow,
    pub start: Time,
    pub log: &'a SharedFlowLog,
    /// The run's seed (for models that draw, e.g. AISLE).
    pub seed: u64,
}

/// The World's ids of the scenario's fixed nodes, links and cells, by
/// index in the file.
pub(crate) struct Ids {
    pub fixed: Vec<NodeId>,
    pub links: Vec<LinkId>,
    pub cells: Vec<CellId>,
    /// The access point interface of each cell.
    pub ap_ifaces: Vec<IfaceId>,
}

pub(crate) fn assemble(r: &Resolved, seed: u64) -> Result<Built, ScenarioError> {
    let s = &*r.scenario;
    let mut w = World::new(WorldConfig {
        seed,
        drop_log_limit: s.limits.drop_log,
        max_backlog: s.limits.max_backlog,
        trace: TraceConfig {
            queues: s.output.trace,
            max_records: s.limits.flow_records,
            ..Default::default()
        },
    });
    let mut ids = Ids {
        fixed: add_nodes(&mut w, s)?,
        links: Vec::new(),
        cells: Vec::new(),
        ap_ifaces: Vec::new(),
    };
    let ends = connect_links(&mut w, r, &mut ids)?;
    let mut owned: Vec<(NodeId, ipnet::IpNet)> =
        ends.iter().map(|e| (e.node, e.addr.trunc())).collect();
    owned.extend(add_cells(&mut w, r, &mut ids)?);
    // Nodes in name order (the order routes have always been installed).
    let mut by_name: Vec<(&str, NodeId)> = s
        .nodes
        .iter()
        .map(|n| n.name.as_str())
        .zip(ids.fixed.iter().copied())
        .collect();
    by_name.sort();
    let nodes: Vec<NodeId> = by_name.into_iter().map(|(_, id)| id).collect();
    routes::install(&mut w, &nodes, &ends, &owned)?;
    let network_log = schedule_events(&mut w, r, &ids);
    let (infos, mobiles) = mobiles::build(&mut w, r, &ids)?;
    let env = Env {
        r,
        ids: &ids,
        mobiles: &infos,
    };
    let mut flows = Vec::new();
    let mut shared = Shared::default();
    for f in &r.flows {
        flows.push(build_flow(&mut w, &env, &mut shared, f, seed)?);
    }
    let mut captures = Vec::new();
    for (i, (c, name)) in r.captures.iter().zip(&s.output.pcap).enumerate() {
        let node = match c.node {
            NodeRef::Fixed(k) => ids.fixed[k],
            NodeRef::Mobile(k) => infos[k].node,
        };
        let key = format!("output.pcap[{i}]");
        captures.push((name.clone(), capture(&mut w, s, node, c, &key, name)?));
    }
    Ok(Built {
        world: w,
        flows,
        mobiles,
        captures,
        network_log,
    })
}

/// The fixed nodes, in the file's order.
fn add_nodes(w: &mut World, s: &Scenario) -> Result<Vec<NodeId>, ScenarioError> {
    let mut fixed = Vec::new();
    for n in &s.nodes {
        let kind = match n.kind {
            NodeKindSpec::Host => NodeKind::Host,
            NodeKindSpec::Router => NodeKind::Router,
        };
        let id = w
            .add_node(&n.name, kind)
            .map_err(|e| ScenarioError::model(format!("nodes[{}]", n.name), e))?;
        fixed.push(id);
    }
    Ok(fixed)
}

/// The point-to-point links (into `ids.links`); both ends of each, for
/// the routes.
fn connect_links(
    w: &mut World,
    r: &Resolved,
    ids: &mut Ids,
) -> Result<Vec<routes::End>, ScenarioError> {
    let mut ends = Vec::new();
    for (l, spec) in r.links.iter().zip(&r.scenario.links) {
        let key = format!("links[{}]", spec.name);
        let (a, b) = (ids.fixed[l.a], ids.fixed[l.b]);
        let (id, ia, ib) = w
            .connect(&spec.name, a, l.a_addr, b, l.b_addr, l.config.clone())
            .map_err(|e| ScenarioError::model(&key, e))?;
        ids.links.push(id);
        ends.push(routes::End {
            node: a,
            iface: ia,
            addr: l.a_addr,
        });
        ends.push(routes::End {
            node: b,
            iface: ib,
            addr: l.b_addr,
        });
    }
    Ok(ends)
}

/// The cells on their routers (into `ids.cells`, `ids.ap_ifaces`); the
/// prefix each router owns through them, for the routes.
fn add_cells(
    w: &mut World,
    r: &Resolved,
    ids: &mut Ids,
) -> Result<Vec<(NodeId, ipnet::IpNet)>, ScenarioError> {
    let mut owned = Vec::new();
    for (c, spec) in r.cells.iter().zip(&r.scenario.cells) {
        let key = format!("cells[{}]", spec.name);
        let router = ids.fixed[c.router];
        let (cell, ap_if) = w
            .add_cell(&spec.name, router, &spec.name, c.medium.clone())
            .map_err(|e| ScenarioError::model(&key, e))?;
        w.add_address(router, ap_if, c.ap)
            .map_err(|e| ScenarioError::model(&key, e))?;
        w.set_forwarding(router, true)
            .map_err(|e| ScenarioError::model(&key, e))?;
        ids.cells.push(cell);
        ids.ap_ifaces.push(ap_if);
        owned.push((router, c.ap.trunc()));
    }
    Ok(owned)
}

/// The scheduled cuts and restorations of links and cells, each logged
/// when it happens.
fn schedule_events(w: &mut World, r: &Resolved, ids: &Ids) -> Rc<RefCell<Vec<(Time, String)>>> {
    let network_log: Rc<RefCell<Vec<(Time, String)>>> = Rc::new(RefCell::new(Vec::new()));
    for e in &r.events {
        let log = network_log.clone();
        let action = e.action;
        if let Some(d) = e.degrade {
            schedule_degradation(w, r, ids, e.target, e.at, d, &network_log);
        }
        if action.is_cell() {
            let cell = ids.cells[e.target];
            let configured = r.cells[e.target].errors;
            let name = r.scenario.cells[e.target].name.clone();
            w.at(e.at, move |w| {
                let (down, up) = match action {
                    EventAction::BreakCell | EventAction::DegradeCell => (
                        ErrorModelSpec::Bernoulli { loss: 1.0 },
                        ErrorModelSpec::Bernoulli { loss: 1.0 },
                    ),
                    _ => configured,
                };
                let mut errors = Vec::new();
                for (node, iface) in w.cell_stations(cell) {
                    if let Err(e) = w.set_station_error(cell, node, iface, down, up) {
                        errors.push(e.to_string());
                    }
                }
                let verb = match action {
                    EventAction::BreakCell | EventAction::DegradeCell => "break-cell",
                    _ => "restore-cell",
                };
                let what = if errors.is_empty() {
                    format!("{verb} {name}")
                } else {
                    format!("error {name}: {}", errors.join("; "))
                };
                log.borrow_mut().push((w.now(), what));
            });
            if e.link_down {
                schedule_link_down(w, r, ids, e.target, e.at, &network_log);
            }
            continue;
        }
        let id = ids.links[e.target];
        let name = r.scenario.links[e.target].name.clone();
        w.at(e.at, move |w| {
            let r = match action {
                EventAction::CutLink => w.cut_link(id),
                _ => w.restore_link(id),
            };
            let what = match (action, r) {
                (EventAction::CutLink, Ok(())) => format!("cut-link {name}"),
                (_, Ok(())) => format!("restore-link {name}"),
                (_, Err(e)) => format!("error {name}: {e}"),
            };
            log.borrow_mut().push((w.now(), what));
        });
    }
    network_log
}

/// A `degrade_cell` event before its break at `at`: the frame error
/// rate of every station of the cell, both directions, ramps from 0 at
/// the degradation's start to its maximum at `at`
/// ([`ErrorModelSpec::Ramp`], judged at the end of each frame); the
/// stations' link layer says "going down" at the hint, if any.
fn schedule_degradation(
    w: &mut World,
    r: &Resolved,
    ids: &Ids,
    target: usize,
    at: Time,
    d: Degradation,
    log: &Rc<RefCell<Vec<(Time, String)>>>,
) {
    let cell = ids.cells[target];
    let name = r.scenario.cells[target].name.clone();
    let ramp = ErrorModelSpec::Ramp {
        from: 0.0,
        to: d.max_error,
        start: d.start,
        end: at,
    };
    let start_log = log.clone();
    let start_name = name.clone();
    w.at(d.start, move |w| {
        let mut errors = Vec::new();
        for (node, iface) in w.cell_stations(cell) {
            if let Err(e) = w.set_station_error(cell, node, iface, ramp, ramp) {
                errors.push(e.to_string());
            }
        }
        let what = if errors.is_empty() {
            format!("degrade-cell {start_name}")
        } else {
            format!("error {start_name}: {}", errors.join("; "))
        };
        start_log.borrow_mut().push((w.now(), what));
    });
    if let Some(hint) = d.hint {
        let log = log.clone();
        w.at(hint, move |w| {
            for (node, iface) in w.cell_stations(cell) {
                let note = Notification::LinkGoingDown {
                    iface,
                    cell: Some(cell),
                };
                let _ = w.notify(node, note);
            }
            log.borrow_mut()
                .push((w.now(), format!("link-going-down {name}")));
        });
    }
}

/// A break the stations' link layer sees (`link_down`): at `at`, after
/// the break itself, every station interface of the cell reports the link
/// lost (`LinkLost`, the station's own decision, at once: the link layer
/// that degrades the link knows when it is gone) and loses its addresses
/// and its default route through the cell, as the radio driver does when
/// a station leaves a cell (`AddressRemoved`): a mobile's handover manager
/// deletes the address (ASCONF Delete IP, RFC 5061 section 4.2.2).
fn schedule_link_down(
    w: &mut World,
    r: &Resolved,
    ids: &Ids,
    target: usize,
    at: Time,
    log: &Rc<RefCell<Vec<(Time, String)>>>,
) {
    let cell = ids.cells[target];
    let name = r.scenario.cells[target].name.clone();
    let log = log.clone();
    w.at(at, move |w| {
        let mut errors = Vec::new();
        for (node, iface) in w.cell_stations(cell) {
            let note = Notification::LinkLost { iface, cell };
            if let Err(e) = w.notify(node, note) {
                errors.push(e.to_string());
            }
            let addrs: Vec<ipnet::IpNet> = w
                .node(node)
                .and_then(|n| n.iface(iface))
                .map(|i| i.addrs().to_vec())
                .unwrap_or_default();
            for a in addrs {
                let any: ipnet::IpNet = if a.addr().is_ipv4() {
                    ipnet::IpNet::V4(ipnet::Ipv4Net::default())
                } else {
                    ipnet::IpNet::V6(ipnet::Ipv6Net::default())
                };
                let removed = w
                    .remove_route(node, any, Some(iface))
                    .and_then(|_| w.remove_address(node, iface, a.addr()));
                if let Err(e) = removed {
                    errors.push(e.to_string());
                }
            }
        }
        let what = if errors.is_empty() {
            format!("link-down {name}")
        } else {
            format!("error {name}: {}", errors.join("; "))
        };
        log.borrow_mut().push((w.now(), what));
    });
}

/// The flow's start: drawn in `[start_s, start_s + start_jitter_s)` from
/// the run seed and the flow's name (E5: sources start uniformly at
/// random in the first 5 s), for every transport.
fn jittered_start(seed: u64, f: &FlowSpec, arrivals: &mut Arrivals) -> Time {
    if let Some(a) = &f.arrival {
        // The index-th arrival of a Poisson process (a station of a
        // `[[stations]]` population).
        return secs(f.start_s + arrivals.offset(seed, a));
    }
    let jitter = if f.start_jitter_s > 0.0 {
        let mut rng = crate::kernel::rng::stream(seed, &format!("flow/{}/start", f.name));
        rand::Rng::gen_range(&mut rng, 0.0..f.start_jitter_s)
    } else {
        0.0
    };
    secs(f.start_s + jitter)
}

/// One flow, by its transport's builder.
fn build_flow(
    w: &mut World,
    env: &Env<'_>,
    shared: &mut Shared,
    f: &Flow,
    seed: u64,
) -> Result<BuiltFlow, ScenarioError> {
    let spec = &f.spec;
    let limit = env.r.scenario.limits.flow_records;
    let mut flow_log = FlowLog::with_limit(limit);
    if env.r.scenario.output.trace {
        flow_log.delays = Some(Box::new(MessageDelays::with_limit(limit)));
    }
    let log: SharedFlowLog = Rc::new(RefCell::new(flow_log));
    let start = jittered_start(seed, spec, &mut shared.arrivals);
    let cx = FlowCx {
        w,
        env,
        shared,
        f,
        start,
        log: &log,
        seed,
    };
    let kind = match spec.transport {
        TransportSpec::Msctp => msctp::build(cx)?,
        t => BuiltKind::Baseline(Box::new(match t {
            TransportSpec::Tcp
            | TransportSpec::Mip4Tcp
            | TransportSpec::Mip6Tcp
            | TransportSpec::Fmip6Tcp => tcp::build(cx)?,
            TransportSpec::Mip4Sctp => sctp::build(cx)?,
            TransportSpec::Mip6Udp | TransportSpec::Fmip6Udp | TransportSpec::Udp => {
                udp::build(cx)?
            }
            TransportSpec::SingleHandoff => handoff::build(cx)?,
            TransportSpec::Cmhn => cmhn::build(cx)?,
            TransportSpec::Quic => quic::build(cx)?,
            TransportSpec::Msctp => unreachable!("handled above"),
        })),
    };
    Ok(BuiltFlow {
        spec: spec.clone(),
        log,
        kind,
    })
}

/// A capture of one interface into memory.
fn capture(
    w: &mut World,
    s: &Scenario,
    node: NodeId,
    c: &Capture,
    key: &str,
    name: &str,
) -> Result<SharedBuffer, ScenarioError> {
    let n = name.split_once(':').map_or(name, |(n, _)| n);
    let iface = w
        .node(node)
        .and_then(|x| x.iface_by_name(&c.iface))
        .map(|x| x.id())
        .ok_or_else(|| {
            // Link interfaces are named after their link, radio ones
            // after the mobile's `ifaces` entries.
            let known: Vec<String> = w
                .node(node)
                .map(|x| x.ifaces().iter().map(|i| format!("{:?}", i.name)).collect())
                .unwrap_or_default();
            ScenarioError::reference(
                key,
                format!(
                    "node {n:?} has no interface {:?} (it has {})",
                    c.iface,
                    known.join(", ")
                ),
            )
        })?;
    let buf = SharedBuffer::new();
    let cfg = CaptureConfig {
        snaplen: s.output.pcap_snaplen,
        max_bytes: s.output.pcap_max_bytes,
        ..Default::default()
    };
    w.capture(node, iface, cfg, Box::new(buf.clone()))
        .map_err(|e| ScenarioError::model(key, e))?;
    Ok(buf)
}
