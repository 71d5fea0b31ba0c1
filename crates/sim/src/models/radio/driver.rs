//! The radio driver: turns a mobile station's [`crate::models::radio`] timeline
//! into events of a [`World`].
//!
//! A station is a node with radio interfaces. An interface that serves one
//! cell is a dedicated radio (dual- or multi-homed mobile, cases C and D of
//! docs/MODELS.md section 4); for each such interface and its cell:
//!
//! - **Physical link**: the interface is attached to the cell
//!   ([`World::attach`]) when the station enters the region where the
//!   cell's power is at or above the data threshold
//!   ([`coverage_intervals`], exact), and detached ([`World::detach`]) when
//!   it leaves it. Packets get through exactly while attached. The World
//!   raises `LinkUp` / `LinkDown` for these; the station's own logic does
//!   not see them (it only learns through beacons).
//! - **Link-layer events** of the timeline, delivered to the node's agents
//!   as notifications at their exact times: `BeaconDetected`,
//!   `BeaconLost`, `SignalSample`, `LinkGoingDown`, and the decisions
//!   `LinkDetected` (radio `LinkUp`, after the decision latency x) and
//!   `LinkLost` (radio `LinkDown`, y after the last usable beacon).
//! - **Address**: at the radio's `AddressObtained` (link up plus the
//!   acquisition latency: router discovery, PPP, DHCP, AAA, location
//!   update) the station's address in the cell is added to the interface
//!   with a default route through the cell's router (the route first, so
//!   the first packet from the new address is routable); at `AddressLost`
//!   the address and the route are removed. The World raises
//!   `AddressAdded` / `AddressRemoved`.
//!
//! An interface that serves several cells is one radio moving between
//! them (a single-homed mobile, case B, or an access point change within
//! one subnet, case A): it is attached to one cell at a time and its
//! address follows the attachment; the rules are in `shared_radio`'s
//! documentation. Its link-layer notifications are those of every cell.
//!
//! At equal times: attach first (with a shared radio's own sequence of
//! detach, attach and address changes), then the radio events in timeline
//! order, then detach. The plan is computed once for the run window
//! ([`plan`], pure and testable) and replayed in the World one instant at a
//! time ([`install`]). Failures of World calls (which a valid plan does not
//! cause) are recorded in the [`DriverLog`], never panics.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::net::IpAddr;
use std::rc::Rc;

use ipnet::IpNet;

use crate::Time;
use crate::kernel::ids::{CellId, IfaceId, NodeId};
use crate::kernel::notification::Notification;
use crate::kernel::routing::Route;
use crate::kernel::world::World;
use crate::models::mobility::Trajectory;
use crate::models::radio::{
    self, RadioConfig, RadioError, RadioEvent, coverage_intervals, generate_timeline,
};

/// One interface of the station and the cell it serves.
#[derive(Debug, Clone)]
pub struct RadioLink {
    pub iface: IfaceId,
    /// The World's cell.
    pub cell: CellId,
    /// The cell as the radio model sees it (its `id` is replaced by the
    /// link's index).
    pub radio: radio::CellRadio,
    /// The station's address in the cell, with the prefix length.
    pub address: IpNet,
    /// The cell's router (next hop of the default route).
    pub gateway: IpAddr,
}

/// A mobile station: its node, its movement, its radio links.
#[derive(Debug, Clone)]
pub struct StationRadio {
    pub node: NodeId,
    pub trajectory: Trajectory,
    pub links: Vec<RadioLink>,
    pub config: RadioConfig,
}

/// What the driver does at one instant.
#[derive(Debug, Clone)]
pub enum RadioAction {
    Attach {
        iface: IfaceId,
        cell: CellId,
    },
    Detach {
        iface: IfaceId,
    },
    AddAddress {
        iface: IfaceId,
        addr: IpNet,
        gateway: IpAddr,
    },
    RemoveAddress {
        iface: IfaceId,
        addr: IpNet,
    },
    /// Adds (or removes) a host route at the cell's access point to the
    /// station's address through the cell (a shared radio).
    StationRoute {
        cell: CellId,
        addr: IpAddr,
        add: bool,
    },
    Notify(Notification),
}

/// An action and its time.
#[derive(Debug, Clone)]
pub struct PlannedAction {
    pub time: Time,
    pub action: RadioAction,
}

/// Why a station's radio cannot be driven.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RadioDriverError {
    #[error("address {addr} and gateway {gateway} are of different families")]
    FamilyMismatch { addr: IpNet, gateway: IpAddr },
    #[error(transparent)]
    Radio(#[from] RadioError),
}

/// The plan of every World action for `station` during `[start, end]`.
pub fn plan(
    station: &StationRadio,
    start: Time,
    end: Time,
) -> Result<Vec<PlannedAction>, RadioDriverError> {
    for l in &station.links {
        if l.address.addr().is_ipv4() != l.gateway.is_ipv4() {
            return Err(RadioDriverError::FamilyMismatch {
                addr: l.address,
                gateway: l.gateway,
            });
        }
    }
    let cells: Vec<radio::CellRadio> = station
        .links
        .iter()
        .enumerate()
        .map(|(i, l)| radio::CellRadio {
            id: radio::CellIndex(i as u32),
            ..l.radio.clone()
        })
        .collect();
    let timeline = generate_timeline(&station.trajectory, &cells, start, end, &station.config)?;
    let coverage = coverage_within(station, &cells, start, end)?;
    // (time, class, order, action): class 0 attach (and a shared radio's
    // own sequence), 1 radio events, 2 detach.
    let mut rows: Vec<(Time, u8, usize, RadioAction)> = Vec::new();
    attachments(station, &coverage, &timeline, end, &mut rows);
    for e in timeline.events() {
        if let Some(action) = event_action(station, &e.event) {
            rows.push((e.time, 1, rows.len(), action));
        }
    }
    rows.sort_by_key(|(t, class, order, _)| (*t, *class, *order));
    // Collected in place (the rows' allocation): a plan lives only until
    // `install_plan` turns it into the driver's compact steps.
    Ok(rows
        .into_iter()
        .map(|(time, _, _, action)| PlannedAction { time, action })
        .collect())
}

/// A cell's physical coverage: intervals `[from, until)` (`until` `None`:
/// beyond the plan's end).
type Coverage = Vec<(Time, Option<Time>)>;

/// Per cell (in link order), the intervals `[from, until)` of its physical
/// coverage within `[start, end]` (`until` `None`: beyond `end`).
fn coverage_within(
    station: &StationRadio,
    cells: &[radio::CellRadio],
    start: Time,
    end: Time,
) -> Result<Vec<Coverage>, RadioDriverError> {
    let mut coverage = Vec::with_capacity(cells.len());
    for cell in cells {
        let cov = coverage_intervals(&station.trajectory, cell, cell.thresholds.data_w)?;
        coverage.push(
            cov.into_iter()
                .filter(|(from, until)| *from <= end && until.is_none_or(|u| u > start))
                .map(|(from, until)| (from.max(start), until.filter(|u| *u <= end)))
                .collect::<Vec<_>>(),
        );
    }
    Ok(coverage)
}

/// The attach and detach rows of each interface (class 0 and 2): a radio
/// of one cell follows that cell's coverage; a radio of several cells
/// follows [`shared_radio`].
fn attachments(
    station: &StationRadio,
    coverage: &[Coverage],
    timeline: &radio::RadioTimeline,
    end: Time,
    rows: &mut Vec<(Time, u8, usize, RadioAction)>,
) {
    let mut ifaces: Vec<IfaceId> = Vec::new();
    for l in &station.links {
        if !ifaces.contains(&l.iface) {
            ifaces.push(l.iface);
        }
    }
    for iface in ifaces {
        let members: Vec<usize> = (0..station.links.len())
            .filter(|&k| station.links[k].iface == iface)
            .collect();
        if let [k] = members[..] {
            let l = &station.links[k];
            for &(from, until) in &coverage[k] {
                let attach = RadioAction::Attach {
                    iface,
                    cell: l.cell,
                };
                rows.push((from, 0, rows.len(), attach));
                if let Some(u) = until {
                    rows.push((u, 2, rows.len(), RadioAction::Detach { iface }));
                }
            }
        } else {
            for (t, a) in shared_radio(station, &members, coverage, timeline, end) {
                rows.push((t, 0, rows.len(), a));
            }
        }
    }
}

/// What a radio event of one of the station's cells does: a notification
/// to the station's agents, or (a radio of one cell) its address gained
/// or lost; `None` for an event of no cell of the station, and for the
/// address events of a shared radio (its addresses follow its
/// attachments instead).
fn event_action(station: &StationRadio, event: &RadioEvent) -> Option<RadioAction> {
    let l = station.links.get(event.cell().0 as usize)?;
    let (iface, cell) = (l.iface, l.cell);
    let shared = || station.links.iter().filter(|l| l.iface == iface).count() > 1;
    Some(match *event {
        RadioEvent::BeaconDetected { .. } => {
            RadioAction::Notify(Notification::BeaconDetected { iface, cell })
        }
        RadioEvent::BeaconLost { .. } => {
            RadioAction::Notify(Notification::BeaconLost { iface, cell })
        }
        RadioEvent::SignalSample { power_w, .. } => {
            RadioAction::Notify(Notification::SignalSample {
                iface,
                cell,
                power_w,
            })
        }
        RadioEvent::LinkUp { .. } => {
            RadioAction::Notify(Notification::LinkDetected { iface, cell })
        }
        RadioEvent::LinkGoingDown { .. } => RadioAction::Notify(Notification::LinkGoingDown {
            iface,
            cell: Some(cell),
        }),
        RadioEvent::LinkDown { .. } => RadioAction::Notify(Notification::LinkLost { iface, cell }),
        RadioEvent::AddressObtained { .. } | RadioEvent::AddressLost { .. } if shared() => {
            return None;
        }
        RadioEvent::AddressObtained { .. } => RadioAction::AddAddress {
            iface,
            addr: l.address,
            gateway: l.gateway,
        },
        RadioEvent::AddressLost { .. } => RadioAction::RemoveAddress {
            iface,
            addr: l.address,
        },
    })
}

/// What moves a shared radio: physical coverage and the link-layer
/// decisions of its cells, and address acquisitions coming due. At equal
/// times in this order (a link lost before one gained; an address due at
/// the instant the link goes is not obtained).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Edge {
    CoverageEnd(usize),
    Down(usize),
    CoverageStart(usize),
    Up(usize),
    AddressDue(usize, u64),
}

/// The attachments and addresses of one radio that serves several cells
/// (cases A and B of docs/MODELS.md section 4): it is attached to at most one
/// cell at a time.
///
/// - It attaches to a cell when it is free, the cell covers it physically
///   and its link layer has declared the cell up (a re-association); among
///   several such cells, to the one declared up first (then the first
///   listed).
/// - It detaches when the cell's coverage ends or its link layer declares
///   the cell down, and attaches at once to another candidate if there is
///   one (a link-layer handoff).
/// - Its address is the attached cell's: on attaching to a cell whose
///   address it already holds (same subnet: case A) nothing changes;
///   otherwise the old address is removed at once (the station left that
///   subnet) and the new one added after the cell's acquisition latency, if
///   the radio is still attached to the cell then (case B). An address kept
///   after a detach without re-attach goes when its cell is declared down.
/// - The cell's access point gets a host route to the station's address
///   for as long as the radio is attached, so two cells of one subnet
///   deliver to the one the station is in.
fn shared_radio(
    station: &StationRadio,
    members: &[usize],
    coverage: &[Coverage],
    timeline: &radio::RadioTimeline,
    end: Time,
) -> Vec<(Time, RadioAction)> {
    let mut queue = shared_edges(members, coverage, timeline);
    let mut radio = SharedRadio::new(station, members);
    while let Some(Reverse((t, edge))) = queue.pop() {
        let lost = radio.on_edge(t, edge);
        if let (Some(k), Some((c, _))) = (lost, radio.attached)
            && k == c
        {
            radio.detach(t, c);
        }
        if radio.attached.is_some() {
            continue;
        }
        if let Some(due) = radio.attach_best(t)
            && due.0 <= end
        {
            queue.push(Reverse(due));
        }
    }
    radio.out
}

/// The coverage and link-layer edges of a shared radio's cells, earliest
/// first.
fn shared_edges(
    members: &[usize],
    coverage: &[Coverage],
    timeline: &radio::RadioTimeline,
) -> BinaryHeap<Reverse<(Time, Edge)>> {
    let mut edges: Vec<(Time, Edge)> = Vec::new();
    for &k in members {
        for &(from, until) in &coverage[k] {
            edges.push((from, Edge::CoverageStart(k)));
            if let Some(u) = until {
                edges.push((u, Edge::CoverageEnd(k)));
            }
        }
    }
    for e in timeline.events() {
        let k = e.event.cell().0 as usize;
        if !members.contains(&k) {
            continue;
        }
        match e.event {
            RadioEvent::LinkUp { .. } => edges.push((e.time, Edge::Up(k))),
            RadioEvent::LinkDown { .. } => edges.push((e.time, Edge::Down(k))),
            _ => {}
        }
    }
    edges.sort();
    edges.into_iter().map(Reverse).collect()
}

/// The state of a shared radio ([`shared_radio`]) and the actions it
/// took so far.
struct SharedRadio<'a> {
    links: &'a [RadioLink],
    members: &'a [usize],
    iface: IfaceId,
    /// Per link: its cell covers the station.
    covered: Vec<bool>,
    /// Per link: since when its link layer has the cell up.
    up_since: Vec<Option<Time>>,
    /// The cell attached to and the attachment's generation.
    attached: Option<(usize, u64)>,
    generation: u64,
    /// (address, the cell it was obtained in).
    held: Option<(IpNet, usize)>,
    out: Vec<(Time, RadioAction)>,
}

impl<'a> SharedRadio<'a> {
    fn new(station: &'a StationRadio, members: &'a [usize]) -> Self {
        let n = station.links.len();
        SharedRadio {
            links: &station.links,
            members,
            iface: station.links[members[0]].iface,
            covered: vec![false; n],
            up_since: vec![None; n],
            attached: None,
            generation: 0,
            held: None,
            out: Vec::new(),
        }
    }

    /// One edge at `t`; returns the cell it took away (coverage ended or
    /// link down). A cell declared down takes its address along unless
    /// the attached cell has the same one.
    fn on_edge(&mut self, t: Time, edge: Edge) -> Option<usize> {
        let (links, iface) = (self.links, self.iface);
        match edge {
            Edge::CoverageStart(k) => self.covered[k] = true,
            Edge::Up(k) => self.up_since[k] = Some(t),
            Edge::CoverageEnd(k) => {
                self.covered[k] = false;
                return Some(k);
            }
            Edge::Down(k) => {
                self.up_since[k] = None;
                if let Some((a, _)) = self.held
                    && a == links[k].address
                    && self.attached.is_none_or(|(c, _)| links[c].address != a)
                {
                    self.out
                        .push((t, RadioAction::RemoveAddress { iface, addr: a }));
                    self.held = None;
                }
                return Some(k);
            }
            Edge::AddressDue(k, g) => {
                if self.attached == Some((k, g)) && self.held.is_none() {
                    let l = &links[k];
                    self.out.push((
                        t,
                        RadioAction::AddAddress {
                            iface,
                            addr: l.address,
                            gateway: l.gateway,
                        },
                    ));
                    self.held = Some((l.address, k));
                }
            }
        }
        None
    }

    /// Detaches from cell `c` (and its access point's host route goes).
    fn detach(&mut self, t: Time, c: usize) {
        let l = &self.links[c];
        self.out
            .push((t, RadioAction::Detach { iface: self.iface }));
        self.out.push((
            t,
            RadioAction::StationRoute {
                cell: l.cell,
                addr: l.address.addr(),
                add: false,
            },
        ));
        self.attached = None;
    }

    /// Attaches to the covering cell up the longest (then the first
    /// listed), if any, with its host route; keeps an address of the same
    /// subnet, else drops the old one and returns when the new one comes
    /// due (the acquisition latency after `t`).
    fn attach_best(&mut self, t: Time) -> Option<(Time, Edge)> {
        let best = self
            .members
            .iter()
            .copied()
            .filter(|&k| self.covered[k])
            .filter_map(|k| self.up_since[k].map(|u| (u, k)))
            .min();
        let (_, k) = best?;
        let iface = self.iface;
        self.generation += 1;
        self.attached = Some((k, self.generation));
        let l = &self.links[k];
        self.out.push((
            t,
            RadioAction::Attach {
                iface,
                cell: l.cell,
            },
        ));
        self.out.push((
            t,
            RadioAction::StationRoute {
                cell: l.cell,
                addr: l.address.addr(),
                add: true,
            },
        ));
        match self.held {
            Some((a, _)) if a == l.address => {
                self.held = Some((a, k));
                None
            }
            other => {
                if let Some((a, _)) = other {
                    self.out
                        .push((t, RadioAction::RemoveAddress { iface, addr: a }));
                    self.held = None;
                }
                let due = t + l.radio.acquisition.total();
                Some((due, Edge::AddressDue(k, self.generation)))
            }
        }
    }
}

/// What the driver did: one line per action (bounded), and World calls that
/// failed.
#[derive(Debug, Clone, Default)]
pub struct DriverLog {
    /// (time, kind, detail).
    pub entries: Vec<(Time, String, String)>,
    pub errors: Vec<(Time, String)>,
    pub limit: usize,
    pub entries_dropped: u64,
}

/// A driver installed in a World: read its log after the run.
pub type SharedDriverLog = Rc<RefCell<DriverLog>>;

struct Driver {
    node: NodeId,
    plan: Vec<(Time, Step)>,
    log: SharedDriverLog,
}

/// A planned action as the driver keeps it until its instant. A plan is
/// mostly signal samples (one per heard beacon of each cell: about 210
/// actions per station in 10 simulated s of `msctp bench sim`, all kept
/// from the start of the run); stored as `PlannedAction`s (56 bytes) the
/// plans of 1 000 stations would take 11.8 MB, as steps (32 bytes with
/// the time) they take 6.7 MB, the few other actions boxed.
enum Step {
    Sample {
        iface: IfaceId,
        cell: CellId,
        power_w: f64,
    },
    Other(Box<RadioAction>),
}

impl Step {
    fn new(a: RadioAction) -> Step {
        match a {
            RadioAction::Notify(Notification::SignalSample {
                iface,
                cell,
                power_w,
            }) => Step::Sample {
                iface,
                cell,
                power_w,
            },
            other => Step::Other(Box::new(other)),
        }
    }

    fn apply(&self, w: &mut World, d: &Driver) {
        match self {
            &Step::Sample {
                iface,
                cell,
                power_w,
            } => {
                let n = Notification::SignalSample {
                    iface,
                    cell,
                    power_w,
                };
                apply(w, d, &RadioAction::Notify(n));
            }
            Step::Other(a) => apply(w, d, a),
        }
    }
}

/// Plans the station's radio for `[start, end]` and schedules every action
/// in `w`. `log_limit` bounds the log's entries (errors are always kept,
/// they are rare).
pub fn install(
    w: &mut World,
    station: &StationRadio,
    start: Time,
    end: Time,
    log_limit: usize,
) -> Result<SharedDriverLog, RadioDriverError> {
    let plan = plan(station, start, end)?;
    Ok(install_plan(w, station.node, plan, log_limit))
}

/// Schedules a plan (from [`plan`], possibly edited: e.g. without the
/// address actions, for a mobile whose addresses a Mobile IP client
/// manages) for `node` in `w`.
pub fn install_plan(
    w: &mut World,
    node: NodeId,
    plan: Vec<PlannedAction>,
    log_limit: usize,
) -> SharedDriverLog {
    let log = Rc::new(RefCell::new(DriverLog {
        limit: log_limit,
        ..Default::default()
    }));
    // Not collected in place: that would keep the plan's larger
    // allocation (its rows were collected in place in `plan`).
    let mut steps = Vec::with_capacity(plan.len());
    steps.extend(plan.into_iter().map(|a| (a.time, Step::new(a.action))));
    let d = Rc::new(Driver {
        node,
        plan: steps,
        log: log.clone(),
    });
    schedule(w, d, 0);
    log
}

fn schedule(w: &mut World, d: Rc<Driver>, idx: usize) {
    let Some(&(t, _)) = d.plan.get(idx) else {
        return;
    };
    w.at(t, move |w| {
        let mut i = idx;
        while let Some((_, step)) = d.plan.get(i).filter(|(at, _)| *at == t) {
            step.apply(w, &d);
            i += 1;
        }
        schedule(w, d, i);
    });
}

fn default_route(addr: IpNet, iface: IfaceId, gateway: IpAddr) -> Route {
    let any: IpNet = if addr.addr().is_ipv4() {
        IpNet::V4(ipnet::Ipv4Net::default())
    } else {
        IpNet::V6(ipnet::Ipv6Net::default())
    };
    Route::via(any, iface, gateway)
}

fn apply(w: &mut World, d: &Driver, a: &RadioAction) {
    let now = w.now();
    let node = d.node;
    let result = match a {
        RadioAction::Attach { iface, cell } => w.attach(node, *iface, *cell),
        RadioAction::Detach { iface } => w.detach(node, *iface),
        RadioAction::AddAddress {
            iface,
            addr,
            gateway,
        } => w
            .add_route(node, default_route(*addr, *iface, *gateway))
            .and_then(|_| w.add_address(node, *iface, *addr)),
        RadioAction::RemoveAddress { iface, addr } => {
            let r = w.remove_address(node, *iface, addr.addr());
            let any = default_route(*addr, *iface, addr.addr()).dest;
            r.and_then(|_| w.remove_route(node, any, Some(*iface)).map(|_| ()))
        }
        RadioAction::StationRoute { cell, addr, add } => match w.cell_ap(*cell) {
            Some((ap, ap_if)) => {
                let host = IpNet::from(*addr);
                if *add {
                    w.add_route(ap, Route::direct(host, ap_if))
                } else {
                    w.remove_route(ap, host, Some(ap_if)).map(|_| ())
                }
            }
            None => Err(crate::kernel::world::TopologyError::UnknownCell(*cell)),
        },
        RadioAction::Notify(n) => w.notify(node, n.clone()),
    };
    let mut log = d.log.borrow_mut();
    if let Err(e) = result {
        log.errors.push((now, format!("{a:?}: {e}")));
    }
    if !matches!(a, RadioAction::Notify(Notification::SignalSample { .. })) {
        if log.entries.len() < log.limit {
            let (kind, detail) = describe(a);
            log.entries.push((now, kind, detail));
        } else {
            log.entries_dropped += 1;
        }
    }
}

/// Kind and detail of an action for the event series.
pub fn describe(a: &RadioAction) -> (String, String) {
    match a {
        RadioAction::Attach { iface, cell } => ("attach".into(), format!("{iface} {cell}")),
        RadioAction::Detach { iface } => ("detach".into(), iface.to_string()),
        RadioAction::AddAddress { iface, addr, .. } => {
            ("address-added".into(), format!("{iface} {addr}"))
        }
        RadioAction::RemoveAddress { iface, addr } => {
            ("address-removed".into(), format!("{iface} {addr}"))
        }
        RadioAction::StationRoute { cell, addr, add } => (
            if *add {
                "station-route-added"
            } else {
                "station-route-removed"
            }
            .into(),
            format!("{cell} {addr}"),
        ),
        RadioAction::Notify(n) => {
            let text = format!("{n:?}");
            match text.split_once('(') {
                Some((k, rest)) => (
                    k.to_string(),
                    rest.strip_suffix(')').unwrap_or(rest).to_string(),
                ),
                None => (text, String::new()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::mobility::{Point, TrajectoryBuilder};
    use crate::models::radio::propagation::TwoRayGround;
    use crate::models::radio::{SampleMode, Thresholds};

    fn station() -> StationRadio {
        // Two cells 300 m apart on the x axis, 190 m radius at the data
        // threshold; the station drives from x = 0 to x = 300 at 10 m/s.
        let prop = TwoRayGround::ns2_default()
            .with_tx_power_w(crate::models::radio::propagation::E3_CELL_TX_POWER_W)
            .unwrap();
        let mk = |x: f64| {
            radio::CellRadio::geometric(
                radio::CellIndex(0),
                Point::new(x, 0.0),
                prop,
                Thresholds::E3,
            )
        };
        let mut b = TrajectoryBuilder::new(Time::from_secs(1), Point::new(0.0, 0.0)).unwrap();
        b.move_to(Point::new(300.0, 0.0), 10.0).unwrap();
        StationRadio {
            node: NodeId(0),
            trajectory: b.build(),
            links: vec![
                RadioLink {
                    iface: IfaceId(0),
                    cell: CellId(0),
                    radio: mk(0.0),
                    address: "10.1.0.10/24".parse().unwrap(),
                    gateway: "10.1.0.254".parse().unwrap(),
                },
                RadioLink {
                    iface: IfaceId(1),
                    cell: CellId(1),
                    radio: mk(300.0),
                    address: "10.2.0.10/24".parse().unwrap(),
                    gateway: "10.2.0.254".parse().unwrap(),
                },
            ],
            config: RadioConfig {
                sample_mode: SampleMode::Off,
                ..Default::default()
            },
        }
    }

    #[test]
    fn plan_attaches_on_coverage_and_configures_addresses() {
        let p = plan(&station(), Time::ZERO, Time::from_secs(40)).unwrap();
        let find = |f: &dyn Fn(&RadioAction) -> bool| {
            p.iter()
                .filter(|a| f(&a.action))
                .map(|a| a.time)
                .collect::<Vec<_>>()
        };
        // Cell 0 covers from the start; the station leaves it at x = 190,
        // 19 s after it starts moving at t = 1 s.
        let att0 = find(&|a| {
            matches!(
                a,
                RadioAction::Attach {
                    iface: IfaceId(0),
                    ..
                }
            )
        });
        assert_eq!(att0, vec![Time::ZERO]);
        let det0 = find(&|a| matches!(a, RadioAction::Detach { iface: IfaceId(0) }));
        assert_eq!(det0.len(), 1);
        assert!((det0[0].as_secs_f64() - 20.0).abs() < 1e-6, "{:?}", det0);
        // Cell 1 from x = 110: t = 12 s.
        let att1 = find(&|a| {
            matches!(
                a,
                RadioAction::Attach {
                    iface: IfaceId(1),
                    ..
                }
            )
        });
        assert!((att1[0].as_secs_f64() - 12.0).abs() < 1e-6);
        // Its address after the decision (first usable beacon at or after
        // 12 s: 12.0 s or 12.1 s), with no acquisition delay.
        let add1 = find(&|a| {
            matches!(
                a,
                RadioAction::AddAddress {
                    iface: IfaceId(1),
                    ..
                }
            )
        });
        assert_eq!(add1.len(), 1);
        assert!(add1[0] >= att1[0] && add1[0] <= att1[0] + std::time::Duration::from_millis(100));
        // The address of cell 0 is removed one beacon interval after the
        // last usable beacon (y = 100 ms).
        let rm0 = find(&|a| {
            matches!(
                a,
                RadioAction::RemoveAddress {
                    iface: IfaceId(0),
                    ..
                }
            )
        });
        assert_eq!(rm0.len(), 1);
        assert!(rm0[0] >= det0[0] && rm0[0] <= det0[0] + std::time::Duration::from_millis(200));
        // Decisions are notified.
        assert_eq!(
            find(&|a| matches!(a, RadioAction::Notify(Notification::LinkLost { .. }))),
            rm0
        );
        // Sorted by time.
        assert!(p.windows(2).all(|w| w[0].time <= w[1].time));
    }

    /// The size the plan's memory estimate in `Step`'s documentation
    /// counts on: a signal sample is stored unboxed in 24 bytes.
    #[test]
    fn steps_are_small() {
        assert!(std::mem::size_of::<(Time, Step)>() <= 32);
    }

    #[test]
    fn bad_stations_are_refused() {
        let mut s = station();
        s.links[0].gateway = "::1".parse().unwrap();
        assert!(matches!(
            plan(&s, Time::ZERO, Time::from_secs(1)),
            Err(RadioDriverError::FamilyMismatch { .. })
        ));
        let s = station();
        assert!(matches!(
            plan(&s, Time::from_secs(2), Time::from_secs(1)),
            Err(RadioDriverError::Radio(RadioError::BadWindow))
        ));
    }

    fn kinds(p: &[PlannedAction]) -> Vec<(f64, String)> {
        p.iter()
            .filter(|a| !matches!(a.action, RadioAction::Notify(_)))
            .map(|a| (a.time.as_secs_f64(), describe(&a.action).0))
            .collect()
    }

    #[test]
    fn one_radio_moves_between_two_subnets() {
        // Case B: one interface for both cells, a 1 s acquisition each.
        let mut s = station();
        s.links[1].iface = IfaceId(0);
        for l in &mut s.links {
            l.radio.acquisition.dhcp = std::time::Duration::from_secs(1);
        }
        let p = plan(&s, Time::ZERO, Time::from_secs(40)).unwrap();
        let k = kinds(&p);
        let at = |name: &str| -> Vec<f64> {
            k.iter()
                .filter(|(_, n)| n == name)
                .map(|(t, _)| *t)
                .collect()
        };
        // Attached to ap1 from the start, address after 1 s; it stays on
        // ap1 (no re-association while attached) until leaving it at 20 s,
        // then ap2 at once (declared up since 12 s): the old address goes
        // at once, the new one comes 1 s later.
        assert_eq!(at("attach").len(), 2);
        assert_eq!(at("attach")[0], 0.0);
        assert!((at("attach")[1] - 20.0).abs() < 1e-6, "{k:?}");
        assert!((at("detach")[0] - 20.0).abs() < 1e-6);
        let added = at("address-added");
        assert_eq!(added.len(), 2);
        assert_eq!(added[0], 1.0);
        assert!((added[1] - 21.0).abs() < 1e-6);
        assert!((at("address-removed")[0] - 20.0).abs() < 1e-6);
        assert_eq!(at("station-route-added").len(), 2);
        assert_eq!(at("station-route-removed").len(), 1);
        // Exactly one attachment at a time.
        let mut attached = 0i32;
        for a in &p {
            match a.action {
                RadioAction::Attach { .. } => attached += 1,
                RadioAction::Detach { .. } => attached -= 1,
                _ => {}
            }
            assert!((0..=1).contains(&attached));
        }
    }

    #[test]
    fn one_radio_same_subnet_keeps_its_address() {
        // Case A: two access points of one subnet.
        let mut s = station();
        s.links[1].iface = IfaceId(0);
        s.links[1].address = s.links[0].address;
        s.links[1].gateway = s.links[0].gateway;
        let p = plan(&s, Time::ZERO, Time::from_secs(40)).unwrap();
        let k = kinds(&p);
        let n = |name: &str| k.iter().filter(|(_, x)| x == name).count();
        assert_eq!(n("attach"), 2);
        assert_eq!(n("address-added"), 1, "{k:?}");
        assert_eq!(n("address-removed"), 0, "{k:?}");
    }
}
