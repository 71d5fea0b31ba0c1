//! The mobiles: a host with one interface per radio, its movement, and
//! what drives its radio: the radio driver playing the station's timeline
//! (attachments, link-layer events, addresses), the same without address
//! actions under Mobile IP (whose client owns the addresses), or nothing
//! but the initial attachment under an FMIPv6 script.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::rc::Rc;

use ipnet::IpNet;
use msctp_proto::Time;

use super::{BuiltMobile, Ids};
use crate::kernel::ids::{CellId, IfaceId, NodeId};
use crate::kernel::world::World;
use crate::models::mobility::random_waypoint;
use crate::models::radio::RadioConfig;
use crate::models::radio::driver::{
    self, DriverLog, RadioAction, RadioLink, SharedDriverLog, StationRadio,
};
use crate::scenario::error::ScenarioError;
use crate::scenario::resolve::{RadioUse, Resolved};
use crate::scenario::spec::{Movement, secs};

/// A mobile's radio links and path numbering in the built world.
#[derive(Debug, Clone)]
pub(crate) struct MobileInfo {
    pub node: NodeId,
    /// Every (interface, cell) pair, in declaration order.
    pub links: Vec<MobileLink>,
    /// The mobile's addresses without repeats: `PathId(k)` is the k-th.
    pub addrs: Vec<IpAddr>,
}

impl MobileInfo {
    /// The mobile's interfaces without repeats, in declaration order.
    pub fn interfaces(&self) -> Vec<IfaceId> {
        let mut ifaces = Vec::new();
        for l in &self.links {
            if !ifaces.contains(&l.iface) {
                ifaces.push(l.iface);
            }
        }
        ifaces
    }
}

/// One (interface, cell) pair of a mobile.
#[derive(Debug, Clone)]
pub(crate) struct MobileLink {
    pub iface: IfaceId,
    pub cell: CellId,
    /// Index into the mobile's interfaces.
    pub iface_index: usize,
    /// Index into the scenario's cells.
    pub cell_index: usize,
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
                    .position(|a| *a == l.address.addr())
                    .map(|k| (l.cell, k as u32))
            })
            .collect()
    }
}

/// Adds every mobile (in the file's order) with its radio.
pub(super) fn build(
    w: &mut World,
    r: &Resolved,
    ids: &Ids,
) -> Result<(Vec<MobileInfo>, Vec<BuiltMobile>), ScenarioError> {
    let s = &*r.scenario;
    let end = secs(s.duration_s);
    let mut infos = Vec::new();
    let mut built = Vec::new();
    for (m, spec) in r.mobiles.iter().zip(&s.mobiles) {
        let key = format!("mobiles[{}]", spec.name);
        let node = w
            .add_host(&spec.name)
            .map_err(|e| ScenarioError::model(&key, e))?;
        let trajectory = match &m.movement {
            Movement::Fixed(t) => t.clone(),
            Movement::RandomWaypoint(params) => {
                let mut rng = w.rng_stream(&format!("mobility/{}", spec.name));
                random_waypoint(params, &mut rng)
                    .map_err(|e| ScenarioError::model(format!("{key}.mobility"), e))?
            }
        };
        let waypoints = trajectory
            .waypoints()
            .iter()
            .map(|(t, p)| (t.as_secs_f64(), p.x, p.y))
            .collect();
        let mut iface_ids = Vec::new();
        for i in &spec.ifaces {
            iface_ids.push(
                w.add_iface(node, &i.name)
                    .map_err(|e| ScenarioError::model(&key, e))?,
            );
        }
        let links: Vec<MobileLink> = m
            .links
            .iter()
            .map(|l| MobileLink {
                iface: iface_ids[l.iface],
                cell: ids.cells[l.cell],
                iface_index: l.iface,
                cell_index: l.cell,
                address: l.address,
            })
            .collect();
        let info = MobileInfo {
            node,
            links,
            addrs: m.addrs.iter().map(|(_, a)| *a).collect(),
        };
        let driver_log = match m.radio {
            RadioUse::Scripted { from } => scripted_attach(w, s.limits.radio_log, &info, from),
            use_ => {
                let station = StationRadio {
                    node,
                    trajectory,
                    links: info
                        .links
                        .iter()
                        .map(|l| RadioLink {
                            iface: l.iface,
                            cell: l.cell,
                            radio: r.cells[l.cell_index].radio.clone(),
                            address: l.address,
                            gateway: r.cells[l.cell_index].ap.addr(),
                        })
                        .collect(),
                    config: RadioConfig {
                        sample_mode: s.radio.sample_mode(),
                        max_events: s.limits.radio_events,
                        ..Default::default()
                    },
                };
                let mut plan = driver::plan(&station, Time::ZERO, end)
                    .map_err(|e| ScenarioError::model(&key, e))?;
                if use_ == RadioUse::NoAddresses {
                    plan.retain(|a| {
                        !matches!(
                            a.action,
                            RadioAction::AddAddress { .. } | RadioAction::RemoveAddress { .. }
                        )
                    });
                }
                driver::install_plan(w, node, plan, s.limits.radio_log)
            }
        };
        built.push(BuiltMobile {
            name: spec.name.clone(),
            waypoints,
            driver_log,
        });
        infos.push(info);
    }
    Ok((infos, built))
}

/// An FMIPv6 mobile: attached at time zero to the cell of link `from`;
/// its script moves it later.
fn scripted_attach(w: &mut World, limit: usize, m: &MobileInfo, from: usize) -> SharedDriverLog {
    let (node, iface, cell) = (m.node, m.links[from].iface, m.links[from].cell);
    let driver_log: SharedDriverLog = Rc::new(RefCell::new(DriverLog {
        limit,
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
    driver_log
}
