//! Building a [`World`] from a validated scenario.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::net::IpAddr;
use std::rc::Rc;
use std::time::Duration;

use ipnet::IpNet;
use msctp_proto::policy::AddRule;
use msctp_proto::{AssociationConfig, Time};

use super::baselines::{self, BaselineFlow, Env, Infra, Watch};
use super::spec::*;
use super::validate::{ScenarioError, gateway_of, host_in, net};
use crate::kernel::error_model::ErrorModelSpec;
use crate::kernel::ids::{AgentId, CellId, IfaceId, LinkId, NodeId};
use crate::kernel::link::LinkConfig;
use crate::kernel::node::NodeKind;
use crate::kernel::pcap::{CaptureConfig, SharedBuffer};
use crate::kernel::routing::Route;
use crate::kernel::wireless::{CellConfig, Sharing};
use crate::kernel::world::{World, WorldConfig};
use crate::metrics::flow_log::{FlowLog, SharedFlowLog};
use crate::models::app::{Source, Traffic};
use crate::models::mobility::{
    OverlapGeometry, Point, RandomWaypointParams, Trajectory, TrajectoryBuilder, cross_over,
    random_waypoint, scheduled_handoffs,
};
use crate::models::radio::driver::{self, RadioAction, RadioLink, SharedDriverLog, StationRadio};
use crate::models::radio::propagation::TwoRayGround;
use crate::models::radio::{
    self, AddressAcquisition, CellSignal, DecisionLatency, RadioConfig, SampleMode, ScriptedSignal,
    Thresholds,
};
use crate::models::sctp::handover::PolicyKind;
use crate::models::sctp::{Role, SctpAgent, SctpAgentConfig};

/// Milliseconds of a scenario file as a duration (negative: zero).
pub(super) fn ms(v: f64) -> Duration {
    Duration::from_secs_f64((v / 1000.0).max(0.0))
}

/// Seconds of a scenario file as a time (negative: zero).
pub(super) fn secs(v: f64) -> Time {
    Time::from_secs_f64(v.max(0.0))
}

/// `AssociationConfig` from the scenario's SCTP section (RFC defaults for
/// absent keys).
pub(crate) fn association_config(s: &SctpSpec) -> AssociationConfig {
    let mut c = AssociationConfig::default();
    if let Some(v) = s.rto_initial_ms {
        c.rto_initial = ms(v);
    }
    if let Some(v) = s.rto_min_ms {
        c.rto_min = ms(v);
    }
    if let Some(v) = s.rto_max_ms {
        c.rto_max = ms(v);
    }
    if let Some(v) = s.max_burst {
        c.max_burst = (v > 0).then_some(v);
    }
    if let Some(v) = s.assoc_max_retrans {
        c.assoc_max_retrans = v;
    }
    if let Some(v) = s.path_max_retrans {
        c.path_max_retrans = v;
    }
    if let Some(v) = s.max_init_retrans {
        c.max_init_retrans = v;
    }
    if let Some(v) = s.heartbeat_interval_ms {
        c.heartbeat_interval = (v > 0.0).then(|| ms(v));
    }
    if let Some(v) = s.sack_delay_ms {
        c.sack_delay = (v > 0.0).then(|| ms(v));
    }
    if let Some(v) = s.sack_frequency {
        c.sack_frequency = v;
    }
    if let Some(v) = s.receive_window {
        c.receive_window = v;
    }
    if let Some(v) = s.send_buffer {
        c.send_buffer = v;
    }
    if let Some(v) = s.path_mtu {
        c.path_mtu = v;
    }
    if let Some(v) = s.initial_cwnd {
        c.initial_cwnd = Some(v);
    }
    if let Some(v) = s.asconf {
        c.asconf = v;
    }
    if let Some(v) = s.auth {
        c.auth = v;
    }
    if let Some(v) = s.confirm_asconf_source {
        c.confirm_asconf_source = v;
    }
    if let Some(v) = s.return_to_primary {
        c.return_to_primary = v;
    }
    if let Some(v) = s.valid_cookie_life_ms {
        c.valid_cookie_life = ms(v);
    }
    if let Some(v) = s.outbound_streams {
        c.outbound_streams = v;
    }
    if let Some(v) = s.max_inbound_streams {
        c.max_inbound_streams = v;
    }
    if let Some(v) = s.max_message_size {
        c.max_message_size = v;
    }
    if let Some(v) = s.max_gap_blocks {
        c.limits.max_gap_blocks = v;
    }
    if let Some(v) = s.max_dup_tsns {
        c.limits.max_dup_tsns = v;
    }
    c
}

fn error_model(e: &ErrorSpec, key: &str) -> Result<ErrorModelSpec, ScenarioError> {
    let spec = match *e {
        ErrorSpec::None => ErrorModelSpec::None,
        ErrorSpec::Bernoulli { loss } => ErrorModelSpec::Bernoulli { loss },
        ErrorSpec::Expo { loss, mean_burst } => {
            ErrorModelSpec::expo_for_average_loss(loss, mean_burst)
                .map_err(|e| ScenarioError::model(key, e))?
        }
        ErrorSpec::GilbertElliott {
            p_good_to_bad,
            p_bad_to_good,
            loss_good,
            loss_bad,
        } => ErrorModelSpec::GilbertElliott {
            p_good_to_bad,
            p_bad_to_good,
            loss_good,
            loss_bad,
        },
        ErrorSpec::Ramp {
            from,
            to,
            start_s,
            end_s,
        } => ErrorModelSpec::Ramp {
            from,
            to,
            start: secs(start_s),
            end: secs(end_s),
        },
    };
    spec.validate().map_err(|e| ScenarioError::model(key, e))?;
    Ok(spec)
}

/// A flow in the built world.
#[derive(Debug)]
pub(crate) struct BuiltFlow {
    pub spec: FlowSpec,
    pub log: SharedFlowLog,
    pub kind: BuiltKind,
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

/// A mobile's radio links and path numbering.
#[derive(Debug, Clone)]
pub(crate) struct MobileInfo {
    pub node: NodeId,
    /// Every (interface, cell) pair, in declaration order.
    pub links: Vec<MobileLink>,
    /// The mobile's address in each of its cells, without repeats:
    /// `PathId(k)` is the k-th.
    pub addrs: Vec<(String, IpAddr)>,
}

#[derive(Debug, Clone)]
pub(crate) struct MobileLink {
    pub iface_name: String,
    pub iface: IfaceId,
    pub cell_name: String,
    pub cell: CellId,
    /// The mobile's address in the cell (prefix + host_id).
    pub address: IpNet,
}

impl MobileInfo {
    /// Path id of each cell: the index of the cell's address in `addrs`.
    pub fn paths(&self) -> BTreeMap<CellId, u32> {
        self.links
            .iter()
            .filter_map(|l| {
                self.addrs
                    .iter()
                    .position(|(_, a)| *a == l.address.addr())
                    .map(|k| (l.cell, k as u32))
            })
            .collect()
    }

    /// The links of an interface.
    pub fn iface_links(&self, name: &str) -> impl Iterator<Item = &MobileLink> {
        self.links.iter().filter(move |l| l.iface_name == name)
    }
}

/// How a mobile's radio is driven.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RadioUse {
    /// The radio driver with addresses (mSCTP, TCP, UDP, E4 schemes).
    Full,
    /// The radio driver without address actions: a Mobile IP client
    /// manages the addresses.
    NoAddresses,
    /// No radio model: an FMIPv6 script attaches and moves the mobile.
    Scripted,
}

/// A mobile in the built world.
#[derive(Debug, Clone)]
pub(crate) struct BuiltMobile {
    pub name: String,
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

/// Where each fixed node and mobile went, and the cells.
pub(crate) struct Names {
    pub nodes: BTreeMap<String, NodeId>,
    pub cells: BTreeMap<String, (CellId, IpNet)>,
}

pub(crate) fn build(s: &Scenario, seed: u64) -> Result<Built, ScenarioError> {
    s.validate()?;
    let mut w = World::new(WorldConfig {
        seed,
        drop_log_limit: s.limits.drop_log,
        max_backlog: s.limits.max_backlog,
        ..Default::default()
    });
    let mut names = Names {
        nodes: BTreeMap::new(),
        cells: BTreeMap::new(),
    };
    for n in &s.nodes {
        let kind = match n.kind {
            NodeKindSpec::Host => NodeKind::Host,
            NodeKindSpec::Router => NodeKind::Router,
        };
        let id = w
            .add_node(&n.name, kind)
            .map_err(|e| ScenarioError::model(format!("nodes[{}]", n.name), e))?;
        names.nodes.insert(n.name.clone(), id);
    }
    let mut links = BTreeMap::new();
    // (node, iface, address) of every link end, in declaration order.
    let mut ends: Vec<(NodeId, IfaceId, IpNet, LinkId)> = Vec::new();
    for l in &s.links {
        let key = format!("links[{}]", l.name);
        let a = names.nodes[&l.a];
        let b = names.nodes[&l.b];
        let a_addr = net(&format!("{key}.a_addr"), &l.a_addr)?;
        let b_addr = net(&format!("{key}.b_addr"), &l.b_addr)?;
        let err = error_model(&l.error, &format!("{key}.error"))?;
        let cfg = LinkConfig::new(l.rate_bps, ms(l.delay_ms))
            .queue_limit(l.queue_packets)
            .error(err);
        let (id, ia, ib) = w
            .connect(&l.name, a, a_addr, b, b_addr, cfg)
            .map_err(|e| ScenarioError::model(&key, e))?;
        links.insert(l.name.clone(), id);
        ends.push((a, ia, a_addr, id));
        ends.push((b, ib, b_addr, id));
    }
    let mut owned: Vec<(NodeId, IpNet)> = ends.iter().map(|e| (e.0, e.2.trunc())).collect();
    for c in &s.cells {
        let key = format!("cells[{}]", c.name);
        let router = names.nodes[&c.router];
        let ap = net(&format!("{key}.ap_addr"), &c.ap_addr)?;
        let sharing = match c.sharing {
            SharingSpec::Shared => Sharing::Shared,
            SharingSpec::Dedicated => Sharing::Dedicated,
        };
        let cfg = CellConfig::new(c.rate_bps, ms(c.delay_ms), sharing)
            .at(c.x_m, c.y_m, c.radius_m)
            .queue_limit(c.queue_packets)
            .error(
                error_model(&c.downlink_error, &format!("{key}.downlink_error"))?,
                error_model(&c.uplink_error, &format!("{key}.uplink_error"))?,
            );
        let (cell, ap_if) = w
            .add_cell(&c.name, router, &c.name, cfg)
            .map_err(|e| ScenarioError::model(&key, e))?;
        w.add_address(router, ap_if, ap)
            .map_err(|e| ScenarioError::model(&key, e))?;
        w.set_forwarding(router, true)
            .map_err(|e| ScenarioError::model(&key, e))?;
        names.cells.insert(c.name.clone(), (cell, ap));
        owned.push((router, ap.trunc()));
    }
    install_routes(&mut w, &names, &ends, &owned)?;
    let network_log: Rc<RefCell<Vec<(Time, String)>>> = Rc::new(RefCell::new(Vec::new()));
    for e in &s.events {
        let log = network_log.clone();
        let action = e.action;
        if action.is_cell() {
            let Some(&(cell, _)) = names.cells.get(&e.cell) else {
                continue;
            };
            let Some(spec) = s.cells.iter().find(|c| c.name == e.cell) else {
                continue;
            };
            let key = format!("cells[{}]", e.cell);
            let configured = (
                error_model(&spec.downlink_error, &format!("{key}.downlink_error"))?,
                error_model(&spec.uplink_error, &format!("{key}.uplink_error"))?,
            );
            let name = e.cell.clone();
            w.at(secs(e.at_s), move |w| {
                let (down, up) = match action {
                    EventAction::BreakCell => (
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
                let verb = if action == EventAction::BreakCell {
                    "break-cell"
                } else {
                    "restore-cell"
                };
                let what = if errors.is_empty() {
                    format!("{verb} {name}")
                } else {
                    format!("error {name}: {}", errors.join("; "))
                };
                log.borrow_mut().push((w.now(), what));
            });
            continue;
        }
        let Some(&id) = links.get(&e.link) else {
            continue;
        };
        let name = e.link.clone();
        w.at(secs(e.at_s), move |w| {
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
    let mut mobiles = Vec::new();
    let mut mobile_addrs: BTreeMap<String, Vec<(String, IpAddr)>> = BTreeMap::new();
    let mut infos: BTreeMap<String, MobileInfo> = BTreeMap::new();
    let end = secs(s.duration_s);
    for m in &s.mobiles {
        let key = format!("mobiles[{}]", m.name);
        let node = w
            .add_host(&m.name)
            .map_err(|e| ScenarioError::model(&key, e))?;
        names.nodes.insert(m.name.clone(), node);
        let trajectory = trajectory(&w, m, &key, end)?;
        let mut rlinks = Vec::new();
        let mut addrs = Vec::new();
        let mut links = Vec::new();
        for i in &m.ifaces {
            let iface = w
                .add_iface(node, &i.name)
                .map_err(|e| ScenarioError::model(&key, e))?;
            for cell_name in &i.cells {
                let (cell, ap) = names.cells[cell_name];
                let spec = s
                    .cells
                    .iter()
                    .find(|c| &c.name == cell_name)
                    .ok_or_else(|| ScenarioError::reference(&key, "cell vanished"))?;
                let address = host_in(ap, m.host_id).ok_or_else(|| {
                    ScenarioError::model(
                        format!("{key}.host_id"),
                        format!("does not fit the prefix of cell {cell_name:?}"),
                    )
                })?;
                rlinks.push(RadioLink {
                    iface,
                    cell,
                    radio: radio_cell(s, spec)?,
                    address,
                    gateway: gateway_of(ap),
                });
                links.push(MobileLink {
                    iface_name: i.name.clone(),
                    iface,
                    cell_name: cell_name.clone(),
                    cell,
                    address,
                });
                if !addrs.iter().any(|(_, a)| *a == address.addr()) {
                    addrs.push((i.name.clone(), address.addr()));
                }
            }
        }
        infos.insert(
            m.name.clone(),
            MobileInfo {
                node,
                links: links.clone(),
                addrs: addrs.clone(),
            },
        );
        let radio_use = s
            .flows
            .iter()
            .filter(|f| f.mobile == m.name)
            .map(|f| match f.transport.mobility() {
                Mobility::FastMobileIpv6 => RadioUse::Scripted,
                Mobility::MobileIpv4 | Mobility::MobileIpv6 => RadioUse::NoAddresses,
                _ => RadioUse::Full,
            })
            .next()
            .unwrap_or(RadioUse::Full);
        if radio_use == RadioUse::Scripted {
            // The FMIPv6 script owns the attachments (validated: one fmip6
            // table per scenario, the mobile stationary).
            let from = s
                .flows
                .iter()
                .find(|f| f.mobile == m.name)
                .and_then(|f| f.fmip6.as_ref())
                .map(|x| x.from_cell.clone())
                .unwrap_or_default();
            let link = links
                .iter()
                .find(|l| l.cell_name == from)
                .ok_or_else(|| ScenarioError::reference(&key, "no interface for from_cell"))?;
            let (iface, cell) = (link.iface, link.cell);
            let driver_log: SharedDriverLog = Rc::new(RefCell::new(driver::DriverLog {
                limit: s.limits.radio_log,
                ..Default::default()
            }));
            let log = driver_log.clone();
            w.at(Time::ZERO, move |w| {
                let r = w.attach(node, iface, cell);
                let mut l = log.borrow_mut();
                match r {
                    Ok(()) => l.entries.push((
                        w.now(),
                        "attach".into(),
                        format!("{iface} {cell} (fmip6 script)"),
                    )),
                    Err(e) => l.errors.push((w.now(), format!("fmip6 attach: {e}"))),
                }
            });
            mobiles.push(BuiltMobile {
                name: m.name.clone(),
                driver_log,
            });
            mobile_addrs.insert(m.name.clone(), addrs);
            continue;
        }
        let sample_mode = match s.radio.samples {
            SampleName::EveryBeacon => SampleMode::EveryBeacon,
            SampleName::Off => SampleMode::Off,
            SampleName::Periodic => SampleMode::Interval(ms(s.radio.sample_period_ms)),
        };
        let station = StationRadio {
            node,
            trajectory,
            links: rlinks,
            config: RadioConfig {
                sample_mode,
                max_events: s.limits.radio_events,
                ..Default::default()
            },
        };
        let mut plan =
            driver::plan(&station, Time::ZERO, end).map_err(|e| ScenarioError::model(&key, e))?;
        if radio_use == RadioUse::NoAddresses {
            plan.retain(|a| {
                !matches!(
                    a.action,
                    RadioAction::AddAddress { .. } | RadioAction::RemoveAddress { .. }
                )
            });
        }
        let driver_log = driver::install_plan(&mut w, node, plan, s.limits.radio_log);
        mobiles.push(BuiltMobile {
            name: m.name.clone(),
            driver_log,
        });
        mobile_addrs.insert(m.name.clone(), addrs);
    }
    let mut flows = Vec::new();
    let mut infra = Infra::default();
    for (k, f) in s.flows.iter().enumerate() {
        if f.transport == TransportSpec::Msctp {
            flows.push(build_flow(
                &mut w,
                s,
                seed,
                k,
                f,
                &names,
                &mobile_addrs,
                &infos,
                &mut infra,
            )?);
        } else {
            let env = Env {
                s,
                names: &names,
                mobiles: &infos,
            };
            // The baselines start at the drawn time too (the summary keeps
            // the nominal start_s, as for mSCTP).
            let started = FlowSpec {
                start_s: jittered_start_s(seed, f),
                start_jitter_s: 0.0,
                ..f.clone()
            };
            let (log, b) = baselines::build_flow(&mut w, &env, &mut infra, k, &started)?;
            flows.push(BuiltFlow {
                spec: f.clone(),
                log,
                kind: BuiltKind::Baseline(Box::new(b)),
            });
        }
    }
    let mut captures = Vec::new();
    for (i, p) in s.output.pcap.iter().enumerate() {
        let key = format!("output.pcap[{i}]");
        let (n, ifname) = p
            .split_once(':')
            .ok_or_else(|| ScenarioError::reference(&key, "must be node:interface"))?;
        let node = *names
            .nodes
            .get(n)
            .ok_or_else(|| ScenarioError::reference(&key, format!("no node {n:?}")))?;
        let iface = w
            .node(node)
            .and_then(|x| x.iface_by_name(ifname))
            .map(|x| x.id())
            .ok_or_else(|| {
                // Link interfaces are named after their link, radio ones
                // after the mobile's `ifaces` entries.
                let known: Vec<String> = w
                    .node(node)
                    .map(|x| x.ifaces().iter().map(|i| format!("{:?}", i.name)).collect())
                    .unwrap_or_default();
                ScenarioError::reference(
                    &key,
                    format!(
                        "node {n:?} has no interface {ifname:?} (it has {})",
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
            .map_err(|e| ScenarioError::model(&key, e))?;
        captures.push((p.clone(), buf));
    }
    Ok(Built {
        world: w,
        flows,
        mobiles,
        captures,
        network_log,
    })
}

/// Routes between fixed nodes: for every prefix owned by another node, a
/// route through the first hop of a fewest-hop path (breadth-first over
/// the links in declaration order), computed per address family over the
/// links of that family (so IPv4 and IPv6 links may run side by side).
fn install_routes(
    w: &mut World,
    names: &Names,
    ends: &[(NodeId, IfaceId, IpNet, LinkId)],
    owned: &[(NodeId, IpNet)],
) -> Result<(), ScenarioError> {
    for v4 in [true, false] {
        let fam_ends: Vec<(NodeId, IfaceId, IpNet, LinkId)> = ends
            .chunks(2)
            .filter(|p| p.iter().all(|e| e.2.addr().is_ipv4() == v4))
            .flatten()
            .copied()
            .collect();
        let fam_owned: Vec<(NodeId, IpNet)> = owned
            .iter()
            .filter(|(_, p)| p.addr().is_ipv4() == v4)
            .copied()
            .collect();
        install_family_routes(w, names, &fam_ends, &fam_owned)?;
    }
    Ok(())
}

fn install_family_routes(
    w: &mut World,
    names: &Names,
    ends: &[(NodeId, IfaceId, IpNet, LinkId)],
    owned: &[(NodeId, IpNet)],
) -> Result<(), ScenarioError> {
    for &src in names.nodes.values() {
        // first[node] = (iface at src, gateway address) of the first hop.
        let mut first: BTreeMap<NodeId, (IfaceId, IpAddr)> = BTreeMap::new();
        let mut seen = vec![src];
        let mut queue = VecDeque::from([src]);
        while let Some(n) = queue.pop_front() {
            for pair in ends.chunks(2) {
                let [x, y] = pair else { continue };
                let (here, there) = if x.0 == n {
                    (x, y)
                } else if y.0 == n {
                    (y, x)
                } else {
                    continue;
                };
                if seen.contains(&there.0) {
                    continue;
                }
                seen.push(there.0);
                let hop = if n == src {
                    (here.1, there.2.addr())
                } else {
                    first[&n]
                };
                first.insert(there.0, hop);
                queue.push_back(there.0);
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
    }
    Ok(())
}

fn trajectory(
    w: &World,
    m: &MobileSpec,
    key: &str,
    end: Time,
) -> Result<Trajectory, ScenarioError> {
    let key = format!("{key}.mobility");
    let err = |e: crate::models::mobility::MobilityError| ScenarioError::model(&key, e);
    let p = |(x, y): (f64, f64)| Point::new(x, y);
    match &m.mobility {
        MobilitySpec::Stationary { x_m, y_m } => {
            Trajectory::stationary(Point::new(*x_m, *y_m)).map_err(err)
        }
        MobilitySpec::Waypoints {
            start,
            start_s,
            legs,
        } => {
            let mut b = TrajectoryBuilder::new(secs(*start_s), p(*start)).map_err(err)?;
            for (i, l) in legs.iter().enumerate() {
                match (l.speed_mps, l.pause_s) {
                    (Some(v), None) => {
                        b.move_to(p(l.to), v).map_err(err)?;
                    }
                    (None, Some(d)) => {
                        b.pause(Duration::from_secs_f64(d.max(0.0))).map_err(err)?;
                    }
                    _ => {
                        return Err(ScenarioError::Range {
                            key: format!("{key}.legs[{i}]"),
                            value: format!("{l:?}"),
                            allowed: "a leg has either speed_mps or pause_s".into(),
                        });
                    }
                }
            }
            Ok(b.build())
        }
        MobilitySpec::CrossOver {
            a,
            b,
            speed_mps,
            pause_s,
            start_s,
            legs,
        } => cross_over(
            p(*a),
            p(*b),
            *speed_mps,
            Duration::from_secs_f64(pause_s.max(0.0)),
            secs(*start_s),
            *legs,
        )
        .map_err(err),
        MobilitySpec::RandomWaypoint {
            min,
            max,
            start,
            start_s,
            speed_min_mps,
            speed_max_mps,
            pause_min_s,
            pause_max_s,
        } => {
            let params = RandomWaypointParams {
                region_min: p(*min),
                region_max: p(*max),
                start: p(*start),
                start_time: secs(*start_s),
                speed_min_mps: *speed_min_mps,
                speed_max_mps: *speed_max_mps,
                pause_min: Duration::from_secs_f64(pause_min_s.max(0.0)),
                pause_max: Duration::from_secs_f64(pause_max_s.max(0.0)),
                until: end,
                max_waypoints: crate::models::mobility::DEFAULT_MAX_WAYPOINTS,
            };
            let mut rng = w.rng_stream(&format!("mobility/{}", m.name));
            random_waypoint(&params, &mut rng).map_err(err)
        }
        MobilitySpec::E1 {
            handoffs,
            window_start_s,
            window_s,
        } => scheduled_handoffs(
            &OverlapGeometry::default(),
            *handoffs,
            secs(*window_start_s),
            Duration::from_secs_f64(window_s.max(0.0)),
        )
        .map_err(err),
    }
}

fn radio_cell(s: &Scenario, c: &CellSpec) -> Result<radio::CellRadio, ScenarioError> {
    let key = format!("cells[{}]", c.name);
    let r = &s.radio;
    let data_w = c.data_w.unwrap_or(r.data_w);
    let thresholds = Thresholds {
        beacon_detection_w: c.beacon_detection_w.unwrap_or(r.beacon_detection_w),
        data_w,
        going_down_w: c.going_down_w.or(r.going_down_w).unwrap_or(data_w),
    };
    let interval = ms(c.beacon_interval_ms.unwrap_or(r.beacon_interval_ms));
    let signal = match &c.signal_steps {
        Some(steps) => {
            let steps = steps
                .iter()
                .map(|(t, p)| (secs(*t), (*p > 0.0).then_some(*p)))
                .collect();
            CellSignal::Scripted(
                ScriptedSignal::new(steps)
                    .map_err(|e| ScenarioError::model(format!("{key}.signal_steps"), e))?,
            )
        }
        None => {
            let base = TwoRayGround::ns2_default();
            let tx = match c.tx_power_w {
                Some(p) => p,
                None => base
                    .tx_power_for_range_w(c.radius_m, data_w)
                    .map_err(|e| ScenarioError::model(format!("{key}.radius_m"), e))?,
            };
            CellSignal::Geometric {
                position: Point::new(c.x_m, c.y_m),
                propagation: base
                    .with_tx_power_w(tx)
                    .map_err(|e| ScenarioError::model(format!("{key}.tx_power_w"), e))?,
            }
        }
    };
    let a = c.acquisition.as_ref().unwrap_or(&r.acquisition);
    let cfg = radio::CellRadio {
        id: radio::CellIndex(0),
        signal,
        beacon_interval: interval,
        beacon_offset: ms(c.beacon_offset_ms),
        thresholds,
        decision: DecisionLatency {
            link_up_after: ms(c.link_up_after_ms.unwrap_or(r.link_up_after_ms)),
            link_down_after: c
                .link_down_after_ms
                .or(r.link_down_after_ms)
                .map_or(interval, ms),
            beacon_lost_after: c
                .beacon_lost_after_ms
                .or(r.beacon_lost_after_ms)
                .map_or(interval, ms),
        },
        acquisition: AddressAcquisition {
            router_discovery: ms(a.router_discovery_ms),
            ppp: ms(a.ppp_ms),
            dhcp: ms(a.dhcp_ms),
            aaa: ms(a.aaa_ms),
            location_update: ms(a.location_update_ms),
        },
    };
    cfg.validate().map_err(|e| ScenarioError::model(&key, e))?;
    Ok(cfg)
}

pub(crate) fn traffic(t: &TrafficSpec) -> Traffic {
    match *t {
        TrafficSpec::Bulk { message_bytes } => Traffic::Bulk { message_bytes },
        TrafficSpec::File {
            bytes,
            message_bytes,
        } => Traffic::File {
            bytes,
            message_bytes,
        },
        TrafficSpec::Cbr {
            message_bytes,
            rate_bps,
        } => Traffic::Cbr {
            message_bytes,
            rate_bps,
        },
        TrafficSpec::Pareto {
            message_bytes,
            rate_bps,
            mean_on_ms,
            mean_off_ms,
            shape,
        } => Traffic::Pareto {
            message_bytes,
            rate_bps,
            mean_on: ms(mean_on_ms),
            mean_off: ms(mean_off_ms),
            shape,
        },
    }
}

/// The flow's start: drawn in `[start_s, start_s + start_jitter_s)` from
/// the run seed and the flow's name (EXPERIMENTS.md E5: sources start
/// uniformly at random in the first 5 s), for every transport.
pub(crate) fn jittered_start_s(seed: u64, f: &FlowSpec) -> f64 {
    let jitter = if f.start_jitter_s > 0.0 {
        let mut rng = crate::kernel::rng::stream(seed, &format!("flow/{}/start", f.name));
        rand::Rng::gen_range(&mut rng, 0.0..f.start_jitter_s)
    } else {
        0.0
    };
    f.start_s + jitter
}

#[allow(clippy::too_many_arguments)]
fn build_flow(
    w: &mut World,
    s: &Scenario,
    seed: u64,
    k: usize,
    f: &FlowSpec,
    names: &Names,
    mobile_addrs: &BTreeMap<String, Vec<(String, IpAddr)>>,
    infos: &BTreeMap<String, MobileInfo>,
    infra: &mut Infra,
) -> Result<BuiltFlow, ScenarioError> {
    let key = format!("flows[{}]", f.name);
    let mobile = names.nodes[&f.mobile];
    let fixed = names.nodes[&f.fixed];
    let addrs = mobile_addrs.get(&f.mobile).cloned().unwrap_or_default();
    let path_addrs: Vec<IpAddr> = addrs.iter().map(|(_, a)| *a).collect();
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
    let (fixed_port, mobile_port) = Scenario::flow_ports(k, f);
    let start = secs(jittered_start_s(seed, f));
    let stop = f.stop_s.map(secs);
    let source = Source::new(traffic(&f.traffic), start, stop)
        .map_err(|e| ScenarioError::model(format!("{key}.traffic"), e))?;
    let expect = f.traffic.file_bytes();
    let policy = match &f.policy {
        PolicySpec::None => PolicyKind::None,
        PolicySpec::FailoverOnly => PolicyKind::FailoverOnly,
        PolicySpec::NewestAddress => PolicyKind::NewestAddress,
        PolicySpec::SignalStrength {
            add,
            add_threshold_w,
            primary_threshold_w,
        } => PolicyKind::SignalStrength {
            add_rule: match add {
                AddRuleSpec::Aggressive => AddRule::Aggressive,
                AddRuleSpec::Conservative => AddRule::Conservative,
            },
            add_threshold_w: *add_threshold_w,
            primary_threshold_w: *primary_threshold_w,
        },
        PolicySpec::FastestFirst { rates } => {
            let mut by_iface = BTreeMap::new();
            let m = s.mobiles.iter().find(|m| m.name == f.mobile);
            for i in m.map(|m| m.ifaces.as_slice()).unwrap_or_default() {
                let id = w
                    .node(mobile)
                    .and_then(|n| n.iface_by_name(&i.name))
                    .map(|x| x.id().0);
                let rate = rates.get(&i.name).copied().or_else(|| {
                    s.cells
                        .iter()
                        .find(|c| i.cells.first() == Some(&c.name))
                        .map(|c| c.rate_bps)
                });
                if let (Some(id), Some(r)) = (id, rate) {
                    by_iface.insert(id, r);
                }
            }
            PolicyKind::FastestFirst { rates: by_iface }
        }
    };
    let assoc = association_config(&f.sctp);
    let log: SharedFlowLog = Rc::new(RefCell::new(FlowLog::with_limit(s.limits.flow_records)));
    let sample = (s.output.sample_ms > 0.0).then(|| ms(s.output.sample_ms));
    let downlink = f.direction == DirectionSpec::Downlink;
    let mut mcfg = SctpAgentConfig::new(
        mobile_port,
        Role::Connect {
            peer: fixed_addrs,
            peer_port: fixed_port,
            at: start,
        },
    );
    mcfg.association = assoc.clone();
    mcfg.split_fast_retransmit = f.sctp.split_fast_retransmit.unwrap_or(false);
    mcfg.log = Some(log.clone());
    mcfg.mobile_side = true;
    mcfg.path_addrs = path_addrs.clone();
    mcfg.policy = policy;
    mcfg.sample_interval = sample;
    mcfg.limits.max_events = s.limits.agent_events;
    mcfg.limits.max_data_uids = s.limits.data_uids;
    let mut fcfg = SctpAgentConfig::new(fixed_port, Role::Listen);
    fcfg.association = assoc;
    fcfg.split_fast_retransmit = mcfg.split_fast_retransmit;
    fcfg.log = Some(log.clone());
    fcfg.path_addrs = path_addrs.clone();
    fcfg.sample_interval = sample;
    fcfg.limits.max_events = s.limits.agent_events;
    fcfg.limits.max_data_uids = s.limits.data_uids;
    if f.sctp.bandwidth_aware_start == Some(true) {
        // The capacity of each cell's network: a perfect estimate.
        let mut caps = Vec::new();
        for c in &s.cells {
            let prefix = net(&format!("cells[{}].ap_addr", c.name), &c.ap_addr)?;
            caps.push((prefix.trunc(), c.rate_bps));
        }
        mcfg.capacities = caps.clone();
        fcfg.capacities = caps;
    }
    if downlink {
        fcfg.source = Some(source);
        mcfg.expect_bytes = expect;
    } else {
        mcfg.source = Some(source);
        fcfg.expect_bytes = expect;
    }
    let name = format!("sctp/{}", f.name);
    let fixed_agent = w
        .add_agent(fixed, &name, Box::new(SctpAgent::new(fcfg)))
        .map_err(|e| ScenarioError::model(&key, e))?;
    let mobile_agent = w
        .add_agent(mobile, &name, Box::new(SctpAgent::new(mcfg)))
        .map_err(|e| ScenarioError::model(&key, e))?;
    // ADD-IP signalling counted at both ends (the observers are added
    // after the SCTP agents, so nothing of the agents' numbering moves).
    let env = Env {
        s,
        names,
        mobiles: infos,
    };
    let watch = |local: u16, remote: u16| Watch {
        protocol: crate::kernel::ip::proto::SCTP,
        local_port: local,
        remote_port: remote,
        sends: false,
        receives: false,
        uids: false,
        refuse_unowned: false,
        asconf: true,
    };
    let m_obs = infra.watch(w, &env, &f.mobile, watch(mobile_port, fixed_port))?;
    let f_obs = infra.watch(w, &env, &f.fixed, watch(fixed_port, mobile_port))?;
    Ok(BuiltFlow {
        spec: f.clone(),
        log,
        kind: BuiltKind::Msctp {
            mobile_agent,
            fixed_agent,
            asconf: [m_obs, f_obs],
            path_addrs,
        },
    })
}
