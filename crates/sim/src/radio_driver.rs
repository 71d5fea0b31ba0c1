//! The radio driver: turns a mobile station's [`crate::radio`] timeline
//! into events of a [`World`].
//!
//! A station is a node with one radio interface per access network; each
//! interface serves exactly one cell (a dual- or multi-homed mobile, cases
//! C and D of SYSTEMS.md section 4). For each interface and its cell:
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
//! At equal times: attach first, then the radio events in timeline order,
//! then detach. The plan is computed once for the run window
//! ([`plan`], pure and testable) and replayed in the World one instant at a
//! time ([`install`]). Failures of World calls (which a valid plan does not
//! cause) are recorded in the [`DriverLog`], never panics.
//!
//! Not modelled here: one radio moving between several cells (a
//! single-homed mobile, case B, or an AP change without an address change,
//! case A) — an interface that serves two cells is refused with
//! [`RadioDriverError::SharedInterface`].

use std::cell::RefCell;
use std::net::IpAddr;
use std::rc::Rc;

use ipnet::IpNet;

use crate::Time;
use crate::ids::{CellId, IfaceId, NodeId};
use crate::mobility::Trajectory;
use crate::notification::Notification;
use crate::radio::{
    self, RadioConfig, RadioError, RadioEvent, coverage_intervals, generate_timeline,
};
use crate::routing::Route;
use crate::world::World;

/// One interface of the station and the cell it serves.
#[derive(Debug, Clone)]
pub struct RadioLink {
    pub iface: IfaceId,
    /// The World's cell.
    pub cell: CellId,
    /// The cell as the radio model sees it (its `id` is replaced by the
    /// link's index).
    pub radio: radio::CellConfig,
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
    #[error("interface {0} serves more than one cell (one radio per cell is supported)")]
    SharedInterface(IfaceId),
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
    for (i, l) in station.links.iter().enumerate() {
        if station.links[..i].iter().any(|o| o.iface == l.iface) {
            return Err(RadioDriverError::SharedInterface(l.iface));
        }
        if l.address.addr().is_ipv4() != l.gateway.is_ipv4() {
            return Err(RadioDriverError::FamilyMismatch {
                addr: l.address,
                gateway: l.gateway,
            });
        }
    }
    let cells: Vec<radio::CellConfig> = station
        .links
        .iter()
        .enumerate()
        .map(|(i, l)| radio::CellConfig {
            id: radio::CellId(i as u32),
            ..l.radio.clone()
        })
        .collect();
    // (time, class, order, action): class 0 attach, 1 radio, 2 detach.
    let mut rows: Vec<(Time, u8, usize, RadioAction)> = Vec::new();
    for (l, cell) in station.links.iter().zip(&cells) {
        let cov = coverage_intervals(&station.trajectory, cell, cell.thresholds.data_w)?;
        for (from, until) in cov {
            if from > end || until.is_some_and(|u| u <= start) {
                continue;
            }
            rows.push((
                from.max(start),
                0,
                rows.len(),
                RadioAction::Attach {
                    iface: l.iface,
                    cell: l.cell,
                },
            ));
            if let Some(u) = until.filter(|u| *u <= end) {
                rows.push((u, 2, rows.len(), RadioAction::Detach { iface: l.iface }));
            }
        }
    }
    let timeline = generate_timeline(&station.trajectory, &cells, start, end, &station.config)?;
    for e in timeline.events() {
        let Some(l) = station.links.get(e.event.cell().0 as usize) else {
            continue;
        };
        let (iface, cell) = (l.iface, l.cell);
        let action = match e.event {
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
            RadioEvent::LinkDown { .. } => {
                RadioAction::Notify(Notification::LinkLost { iface, cell })
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
        };
        rows.push((e.time, 1, rows.len(), action));
    }
    rows.sort_by_key(|(t, class, order, _)| (*t, *class, *order));
    Ok(rows
        .into_iter()
        .map(|(time, _, _, action)| PlannedAction { time, action })
        .collect())
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
    plan: Vec<PlannedAction>,
    log: SharedDriverLog,
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
    let log = Rc::new(RefCell::new(DriverLog {
        limit: log_limit,
        ..Default::default()
    }));
    let d = Rc::new(Driver {
        node: station.node,
        plan,
        log: log.clone(),
    });
    schedule(w, d, 0);
    Ok(log)
}

fn schedule(w: &mut World, d: Rc<Driver>, idx: usize) {
    let Some(first) = d.plan.get(idx) else {
        return;
    };
    let t = first.time;
    w.at(t, move |w| {
        let mut i = idx;
        while let Some(a) = d.plan.get(i).filter(|a| a.time == t) {
            apply(w, &d, &a.action);
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
        RadioAction::Notify(n) => {
            let text = format!("{n:?}");
            match text.split_once('(') {
                Some((k, rest)) => (k.to_string(), rest.trim_end_matches(')').to_string()),
                None => (text, String::new()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mobility::{Point, TrajectoryBuilder};
    use crate::propagation::TwoRayGround;
    use crate::radio::{SampleMode, Thresholds};

    fn station() -> StationRadio {
        // Two cells 300 m apart on the x axis, 190 m radius at the data
        // threshold; the station drives from x = 0 to x = 300 at 10 m/s.
        let prop = TwoRayGround::ns2_default()
            .with_tx_power_w(crate::propagation::E3_CELL_TX_POWER_W)
            .unwrap();
        let mk = |x: f64| {
            radio::CellConfig::geometric(radio::CellId(0), Point::new(x, 0.0), prop, Thresholds::E3)
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

    #[test]
    fn bad_stations_are_refused() {
        let mut s = station();
        s.links[1].iface = IfaceId(0);
        assert_eq!(
            plan(&s, Time::ZERO, Time::from_secs(1)).unwrap_err(),
            RadioDriverError::SharedInterface(IfaceId(0))
        );
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
}
