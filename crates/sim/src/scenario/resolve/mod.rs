//! Resolution: the one pass over a parsed scenario that checks it and
//! gives what building consumes, so nothing is looked up or parsed twice.
//! A [`Resolved`] scenario holds names as indices into the file's lists
//! (nodes, links, cells, mobiles), addresses as prefixes, the models'
//! configurations built and checked by the file's tables themselves
//! ([`crate::scenario::spec`]: links, cells, movements, traffic), and
//! for every flow its ports, address family and transport configuration.
//!
//! The checks of the topology, cells, mobiles and events are here; those
//! of flows in [`flows`], of the baseline transports' tables and of the
//! combinations a scenario may not ask for in [`transport`].

mod flows;
mod transport;

use std::net::IpAddr;
use std::sync::Arc;

use ipnet::IpNet;
use msctp_proto::Time;
use rustc_hash::FxHashMap;

pub(crate) use flows::{Flow, SctpFlow};
pub(crate) use transport::Family;

use super::error::{MAX_S, ScenarioError, net, positive_f, range_f, range_u, unique};
use super::spec::*;
use crate::kernel::error_model::ErrorModelSpec;
use crate::kernel::link::LinkConfig;
use crate::kernel::wireless::CellConfig;
use crate::models::radio::CellRadio;

thread_local! {
    static RESOLUTIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Resolutions of a scenario on this thread so far ([`Scenario::prepare`]
/// and [`super::run_scenario`] resolve once each): for the tests that a
/// run resolves its scenario once.
pub fn resolutions_on_this_thread() -> u64 {
    RESOLUTIONS.with(|n| n.get())
}

/// A scenario checked and resolved; see the module documentation. It
/// owns the (expanded) scenario, so that one resolution serves every run
/// of it ([`super::Prepared`]).
pub(crate) struct Resolved {
    pub scenario: Arc<Scenario>,
    /// One per `[[links]]`, in order.
    pub links: Vec<Link>,
    /// One per `[[cells]]`, in order.
    pub cells: Vec<Cell>,
    /// One per `[[mobiles]]`, in order.
    pub mobiles: Vec<Mobile>,
    /// One per `[[flows]]`, in order.
    pub flows: Vec<Flow>,
    /// One per `[[events]]`, in order.
    pub events: Vec<Event>,
    /// One per `output.pcap` entry, in order.
    pub captures: Vec<Capture>,
}

/// What a resolution gives besides the scenario itself.
struct Parts {
    links: Vec<Link>,
    cells: Vec<Cell>,
    mobiles: Vec<Mobile>,
    flows: Vec<Flow>,
    events: Vec<Event>,
    captures: Vec<Capture>,
}

/// A point-to-point link between fixed nodes `a` and `b` (indices into
/// the scenario's nodes).
pub(crate) struct Link {
    pub a: usize,
    pub b: usize,
    pub a_addr: IpNet,
    pub b_addr: IpNet,
    pub config: LinkConfig,
}

/// A cell on fixed node `router`.
pub(crate) struct Cell {
    pub router: usize,
    /// The access point's address and prefix.
    pub ap: IpNet,
    pub medium: CellConfig,
    /// The configured error models (downlink, uplink).
    pub errors: (ErrorModelSpec, ErrorModelSpec),
    /// What a station's radio hears of it.
    pub radio: CellRadio,
}

/// One (interface, cell) pair of a mobile.
#[derive(Debug, Clone)]
pub(crate) struct MobileLink {
    /// Index into the mobile's interfaces.
    pub iface: usize,
    /// Index into the scenario's cells.
    pub cell: usize,
    /// The mobile's address in the cell (prefix + host_id).
    pub address: IpNet,
}

/// How a mobile's radio is driven.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RadioUse {
    /// The radio driver with addresses (mSCTP, TCP, UDP, E4 schemes).
    Full,
    /// The radio driver without address actions: a Mobile IP client
    /// manages the addresses.
    NoAddresses,
    /// No radio model: an FMIPv6 script or a Mobile IPv6 forced switch
    /// attaches and moves the mobile (the index of its first link, in the
    /// `from_cell`).
    Scripted { from: usize },
}

/// A mobile node.
pub(crate) struct Mobile {
    /// Every (interface, cell) pair, in declaration order.
    pub links: Vec<MobileLink>,
    /// The mobile's addresses without repeats, with the interface of the
    /// first link holding each: `PathId(k)` is the k-th.
    pub addrs: Vec<(usize, IpAddr)>,
    pub movement: Movement,
    pub radio: RadioUse,
}

/// A scheduled network event on link or cell `target` (by index).
pub(crate) struct Event {
    pub at: Time,
    pub action: EventAction,
    pub target: usize,
    /// `degrade_cell`: the degradation before the break at `at`.
    pub degrade: Option<Degradation>,
    /// `break_cell` / `degrade_cell`: the stations' link layer sees the
    /// break (link lost, address removed).
    pub link_down: bool,
}

/// A cell's degradation before it dies (`degrade_cell`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Degradation {
    /// The frame error rate starts rising here (0 there, `max_error` at
    /// the break).
    pub start: Time,
    pub max_error: f64,
    /// When the stations' link layer says "going down".
    pub hint: Option<Time>,
}

/// A node of the scenario: fixed or mobile, by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NodeRef {
    Fixed(usize),
    Mobile(usize),
}

/// A capture of interface `iface` of `node`.
pub(crate) struct Capture {
    pub node: NodeRef,
    pub iface: String,
}

impl Scenario {
    /// Checks every value's range and every name reference.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.prepare().map(|_| ())
    }

    /// Checks the scenario (expanded: without `[[stations]]`) and
    /// resolves it (see the module documentation).
    pub(crate) fn resolve(self: Arc<Self>) -> Result<Resolved, ScenarioError> {
        let p = self.resolve_parts()?;
        Ok(Resolved {
            scenario: self,
            links: p.links,
            cells: p.cells,
            mobiles: p.mobiles,
            flows: p.flows,
            events: p.events,
            captures: p.captures,
        })
    }

    /// Everything of [`Resolved`] but the scenario.
    fn resolve_parts(&self) -> Result<Parts, ScenarioError> {
        RESOLUTIONS.with(|n| n.set(n.get() + 1));
        positive_f("duration_s", self.duration_s, MAX_S)?;
        self.limits.validate()?;
        self.output.validate()?;
        let captures = self.resolve_captures()?;
        self.radio.validate()?;
        unique(
            "nodes/mobiles",
            self.nodes
                .iter()
                .map(|n| n.name.as_str())
                .chain(self.mobiles.iter().map(|m| m.name.as_str())),
        )?;
        unique("links", self.links.iter().map(|l| l.name.as_str()))?;
        unique("cells", self.cells.iter().map(|c| c.name.as_str()))?;
        unique("flows", self.flows.iter().map(|f| f.name.as_str()))?;
        let links = self
            .links
            .iter()
            .map(|l| self.resolve_link(l))
            .collect::<Result<Vec<_>, _>>()?;
        let cells = self
            .cells
            .iter()
            .map(|c| self.resolve_cell(c))
            .collect::<Result<Vec<_>, _>>()?;
        // Name lookups in O(1): a population of stations makes thousands
        // of mobiles and flows, and a scan per reference was quadratic.
        let mut mobile_index: FxHashMap<&str, usize> = FxHashMap::default();
        for (k, m) in self.mobiles.iter().enumerate() {
            mobile_index.entry(m.name.as_str()).or_insert(k);
        }
        let mut first_flow: FxHashMap<&str, usize> = FxHashMap::default();
        for (k, f) in self.flows.iter().enumerate() {
            first_flow.entry(f.mobile.as_str()).or_insert(k);
        }
        let mut mobiles = Vec::new();
        for m in &self.mobiles {
            let flow = first_flow.get(m.name.as_str()).map(|&k| &self.flows[k]);
            mobiles.push(self.resolve_mobile(m, flow, &cells)?);
        }
        if let Some(x) = self.output.end_after_failover_s {
            range_f("output.end_after_failover_s", x, 0.0, self.duration_s)?;
        }
        if let Some(b) = self.output.failover_transfer_bytes {
            range_u("output.failover_transfer_bytes", b, 1, 1 << 40)?;
        }
        let mut flows = Vec::new();
        for (k, f) in self.flows.iter().enumerate() {
            let mobile = mobile_index.get(f.mobile.as_str()).copied();
            flows.push(self.resolve_flow(k, f, mobile, &links, &cells)?);
        }
        self.check_deployments()?;
        let events = self
            .events
            .iter()
            .enumerate()
            .map(|(k, e)| self.resolve_event(k, e))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Parts {
            links,
            cells,
            mobiles,
            flows,
            events,
            captures,
        })
    }

    /// The index of fixed node `name`.
    pub(crate) fn fixed_index(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }

    /// The index of cell `name`.
    pub(crate) fn cell_index(&self, name: &str) -> Option<usize> {
        self.cells.iter().position(|c| c.name == name)
    }

    fn fixed_ref(&self, key: String, name: &str) -> Result<usize, ScenarioError> {
        self.fixed_index(name)
            .ok_or_else(|| ScenarioError::reference(key, format!("no fixed node {name:?}")))
    }

    /// The captures of `output.pcap`, their nodes looked up.
    fn resolve_captures(&self) -> Result<Vec<Capture>, ScenarioError> {
        let o = &self.output;
        let mut captures = Vec::new();
        for (i, p) in o.pcap.iter().enumerate() {
            let key = format!("output.pcap[{i}]");
            let Some((n, iface)) = p.split_once(':') else {
                return Err(ScenarioError::range(
                    key,
                    format!("{p:?}"),
                    "must be \"node:interface\"",
                ));
            };
            let node = match (
                self.fixed_index(n),
                self.mobiles.iter().position(|m| m.name == n),
            ) {
                (Some(k), _) => NodeRef::Fixed(k),
                (None, Some(k)) => NodeRef::Mobile(k),
                (None, None) => {
                    return Err(ScenarioError::reference(key, format!("no node {n:?}")));
                }
            };
            captures.push(Capture {
                node,
                iface: iface.to_string(),
            });
        }
        Ok(captures)
    }

    fn resolve_link(&self, l: &LinkSpec) -> Result<Link, ScenarioError> {
        let key = format!("links[{}]", l.name);
        let a = self.fixed_ref(format!("{key}.a"), &l.a)?;
        let a_addr = net(&format!("{key}.a_addr"), &l.a_addr)?;
        let b = self.fixed_ref(format!("{key}.b"), &l.b)?;
        let b_addr = net(&format!("{key}.b_addr"), &l.b_addr)?;
        Ok(Link {
            a,
            b,
            a_addr,
            b_addr,
            config: l.config(&key)?,
        })
    }

    fn resolve_cell(&self, c: &CellSpec) -> Result<Cell, ScenarioError> {
        let key = format!("cells[{}]", c.name);
        let router = self.fixed_ref(format!("{key}.router"), &c.router)?;
        let ap = net(&format!("{key}.ap_addr"), &c.ap_addr)?;
        if ap.prefix_len() + 2 > ap.max_prefix_len() {
            return Err(ScenarioError::range(
                format!("{key}.ap_addr"),
                &c.ap_addr,
                "the prefix must leave room for stations (at most /30 or /126)",
            ));
        }
        let models = c.models(&self.radio, &key)?;
        Ok(Cell {
            router,
            ap,
            medium: models.medium,
            errors: models.errors,
            radio: models.radio,
        })
    }

    /// Mobile `m`; `flow` is the first flow of the file that it runs.
    fn resolve_mobile(
        &self,
        m: &MobileSpec,
        flow: Option<&FlowSpec>,
        cells: &[Cell],
    ) -> Result<Mobile, ScenarioError> {
        let key = format!("mobiles[{}]", m.name);
        if m.ifaces.is_empty() {
            return Err(ScenarioError::reference(
                format!("{key}.ifaces"),
                "a mobile needs at least one interface",
            ));
        }
        unique(
            &format!("{key}.ifaces"),
            m.ifaces.iter().map(|i| i.name.as_str()),
        )?;
        let movement = m.mobility.movement(
            &format!("{key}.mobility"),
            Time::from_secs_f64(self.duration_s.max(0.0)),
        )?;
        let mut links: Vec<MobileLink> = Vec::new();
        let mut addrs: Vec<(usize, IpAddr)> = Vec::new();
        for (k, i) in m.ifaces.iter().enumerate() {
            if i.cells.is_empty() {
                return Err(ScenarioError::reference(
                    format!("{key}.ifaces[{k}].cells"),
                    "an interface needs at least one cell",
                ));
            }
            for (j, name) in i.cells.iter().enumerate() {
                let ikey = format!("{key}.ifaces[{k}].cells[{j}]");
                let Some(cell) = self.cell_index(name) else {
                    return Err(ScenarioError::reference(ikey, format!("no cell {name:?}")));
                };
                if links.iter().any(|l| l.cell == cell) {
                    return Err(ScenarioError::reference(
                        ikey,
                        format!("cell {name:?} is listed twice"),
                    ));
                }
                let ap = cells[cell].ap;
                range_u(
                    &format!("{key}.host_id"),
                    u64::from(m.host_id),
                    1,
                    max_host_id(ap),
                )?;
                let address = host_in(ap, m.host_id).ok_or_else(|| {
                    ScenarioError::model(
                        format!("{key}.host_id"),
                        format!("does not fit the prefix of cell {name:?}"),
                    )
                })?;
                links.push(MobileLink {
                    iface: k,
                    cell,
                    address,
                });
                if !addrs.iter().any(|(_, a)| *a == address.addr()) {
                    addrs.push((k, address.addr()));
                }
            }
        }
        let radio = self.radio_use(&key, flow, &links)?;
        Ok(Mobile {
            links,
            addrs,
            movement,
            radio,
        })
    }

    /// How mobile `key`'s radio is driven, given the first flow it runs
    /// and its (interface, cell) links.
    fn radio_use(
        &self,
        key: &str,
        flow: Option<&FlowSpec>,
        links: &[MobileLink],
    ) -> Result<RadioUse, ScenarioError> {
        Ok(match flow.map(|f| (f.transport.mobility(), f)) {
            Some((Mobility::FastMobileIpv6, f)) => {
                // The FMIPv6 script owns the attachments (one fmip6 table
                // per scenario, the mobile stationary: see transport.rs).
                let from = f
                    .fmip6
                    .as_ref()
                    .and_then(|x| self.cell_index(&x.scenario.from_cell))
                    .and_then(|c| links.iter().position(|l| l.cell == c))
                    .ok_or_else(|| ScenarioError::reference(key, "no interface for from_cell"))?;
                RadioUse::Scripted { from }
            }
            Some((Mobility::MobileIpv6, f))
                if f.mip6
                    .as_ref()
                    .is_some_and(|x| x.scenario.forced_switch.is_some()) =>
            {
                // One radio switched by script (transport.rs checks it).
                let from = f
                    .mip6
                    .as_ref()
                    .and_then(|x| x.scenario.forced_switch.as_ref())
                    .and_then(|x| self.cell_index(&x.from_cell))
                    .and_then(|c| links.iter().position(|l| l.cell == c))
                    .ok_or_else(|| ScenarioError::reference(key, "no interface for from_cell"))?;
                RadioUse::Scripted { from }
            }
            Some((Mobility::MobileIpv4 | Mobility::MobileIpv6, _)) => RadioUse::NoAddresses,
            _ => RadioUse::Full,
        })
    }

    fn resolve_event(&self, k: usize, e: &EventSpec) -> Result<Event, ScenarioError> {
        let key = format!("events[{k}]");
        range_f(&format!("{key}.at_s"), e.at_s, 0.0, self.duration_s)?;
        let target = if e.action.is_cell() {
            self.cell_index(&e.cell).ok_or_else(|| {
                ScenarioError::reference(format!("{key}.cell"), format!("no cell {:?}", e.cell))
            })?
        } else {
            self.links
                .iter()
                .position(|l| l.name == e.link)
                .ok_or_else(|| {
                    ScenarioError::reference(format!("{key}.link"), format!("no link {:?}", e.link))
                })?
        };
        let degrade = if e.action == EventAction::DegradeCell {
            range_f(&format!("{key}.duration_s"), e.duration_s, 0.0, e.at_s)?;
            range_f(&format!("{key}.max_error"), e.max_error, 0.0, 1.0)?;
            if let Some(x) = e.going_down_at {
                range_f(&format!("{key}.going_down_at"), x, 0.0, 1.0)?;
            }
            let start = e.at_s - e.duration_s;
            Some(Degradation {
                start: secs(start),
                max_error: e.max_error,
                hint: e.going_down_at.map(|x| secs(start + x * e.duration_s)),
            })
        } else {
            None
        };
        if e.link_down && !matches!(e.action, EventAction::BreakCell | EventAction::DegradeCell) {
            return Err(ScenarioError::combination(
                format!("{key}.link_down"),
                "only a break_cell or degrade_cell event has a link layer to see it",
            ));
        }
        Ok(Event {
            at: secs(e.at_s),
            action: e.action,
            target,
            degrade,
            link_down: e.link_down,
        })
    }
}

/// The largest host id a mobile may have in a cell whose access point has
/// prefix `ap` (the all-zeros and all-ones host parts excluded; a host id
/// is a `u32`).
pub(crate) fn max_host_id(ap: IpNet) -> u64 {
    let host_bits = ap.max_prefix_len() - ap.prefix_len();
    let max_host = if host_bits >= 32 {
        u64::from(u32::MAX) - 1
    } else {
        (1u64 << host_bits).saturating_sub(2)
    };
    max_host.max(1)
}

/// The host address `host_id` in the prefix of `ap`.
pub(crate) fn host_in(ap: IpNet, host_id: u32) -> Option<IpNet> {
    match ap {
        IpNet::V4(n) => {
            let base = u32::from(n.network());
            let a = base.checked_add(host_id)?;
            let addr = std::net::Ipv4Addr::from(a);
            ipnet::Ipv4Net::new(addr, n.prefix_len())
                .ok()
                .filter(|x| n.contains(&x.addr()))
                .map(IpNet::V4)
        }
        IpNet::V6(n) => {
            let base = u128::from(n.network());
            let a = base.checked_add(u128::from(host_id))?;
            let addr = std::net::Ipv6Addr::from(a);
            ipnet::Ipv6Net::new(addr, n.prefix_len())
                .ok()
                .filter(|x| n.contains(&x.addr()))
                .map(IpNet::V6)
        }
    }
}
