//! Building and changing the network: nodes, interfaces, addresses, routes,
//! links, cells, attach/detach, link cut/restore.

use std::net::IpAddr;
use std::time::Duration;

use ipnet::IpNet;

use super::{Core, TopologyError, World, WorldConfig};
use crate::Time;
use crate::kernel::dcf::Contention;
use crate::kernel::drop::DropLog;
use crate::kernel::drop::{DropReason, DropSite};
use crate::kernel::error_model::ErrorModelSpec;
use crate::kernel::ids::{CellId, IfaceId, LinkId, NodeId};
use crate::kernel::link::{Channel, ChannelStats, Direction, Link, LinkConfig};
use crate::kernel::node::{Attachment, DEFAULT_MAX_ADDRS, Iface, Node, NodeKind};
use crate::kernel::notification::Notification;
use crate::kernel::pipe::Pipe;
use crate::kernel::queue::DropTailQueue;
use crate::kernel::rng::{self, SimRng};
use crate::kernel::routing::Route;
use crate::kernel::scheduler::Scheduler;
use crate::kernel::timer::TimerQueue;
use crate::kernel::trace::Tracer;
use crate::kernel::wireless::{
    Cell, CellConfig, DOWN, DcfMedium, SharedMedium, Sharing, StationSlot, StationStats, UP,
};

impl Core {
    pub(crate) fn node_mut(&mut self, node: NodeId) -> Result<&mut Node, TopologyError> {
        self.nodes
            .get_mut(node.index())
            .ok_or(TopologyError::UnknownNode(node))
    }

    pub(crate) fn iface_mut(
        &mut self,
        node: NodeId,
        iface: IfaceId,
    ) -> Result<&mut Iface, TopologyError> {
        self.node_mut(node)?
            .ifaces
            .get_mut(iface.index())
            .ok_or(TopologyError::UnknownIface(node, iface))
    }

    pub(crate) fn check_iface(&self, node: NodeId, iface: IfaceId) -> Result<(), TopologyError> {
        let n = self
            .nodes
            .get(node.index())
            .ok_or(TopologyError::UnknownNode(node))?;
        n.ifaces
            .get(iface.index())
            .map(|_| ())
            .ok_or(TopologyError::UnknownIface(node, iface))
    }

    pub(crate) fn add_address(
        &mut self,
        node: NodeId,
        iface: IfaceId,
        addr: IpNet,
    ) -> Result<(), TopologyError> {
        let ifc = self.iface_mut(node, iface)?;
        if ifc.has_addr(addr.addr()) {
            return Err(TopologyError::AddressExists(node, iface, addr.addr()));
        }
        if ifc.addrs.len() >= DEFAULT_MAX_ADDRS {
            return Err(TopologyError::TooManyAddresses(
                node,
                iface,
                DEFAULT_MAX_ADDRS,
            ));
        }
        ifc.addrs.push(addr);
        self.nodes[node.index()].reindex_addrs();
        if addr.prefix_len() < addr.max_prefix_len() {
            self.nodes[node.index()]
                .routes
                .add(Route::direct(addr.trunc(), iface))?;
        }
        self.notify_node(node, Notification::AddressAdded { iface, addr });
        Ok(())
    }

    pub(crate) fn remove_address(
        &mut self,
        node: NodeId,
        iface: IfaceId,
        addr: IpAddr,
    ) -> Result<(), TopologyError> {
        let ifc = self.iface_mut(node, iface)?;
        let pos = ifc
            .addrs
            .iter()
            .position(|n| n.addr() == addr)
            .ok_or(TopologyError::NoSuchAddress(node, iface, addr))?;
        let net = ifc.addrs.remove(pos);
        // Keep the connected route while another address of the interface
        // is in the same prefix.
        let still = ifc.addrs.iter().any(|n| n.trunc() == net.trunc());
        self.nodes[node.index()].reindex_addrs();
        if !still {
            self.nodes[node.index()]
                .routes
                .remove(net.trunc(), Some(iface));
        }
        self.notify_node(node, Notification::AddressRemoved { iface, addr: net });
        Ok(())
    }

    pub(crate) fn set_iface_up(
        &mut self,
        node: NodeId,
        iface: IfaceId,
        up: bool,
    ) -> Result<(), TopologyError> {
        let ifc = self.iface_mut(node, iface)?;
        if ifc.up == up {
            return Ok(());
        }
        ifc.up = up;
        let att = ifc.attachment;
        let cell = match att {
            Attachment::CellAp { cell } | Attachment::CellStation { cell, .. } => Some(cell),
            _ => None,
        };
        if !up {
            self.flush_tx_queue(node, iface, att);
            self.notify_node(node, Notification::LinkDown { iface, cell });
        } else {
            self.notify_node(node, Notification::LinkUp { iface, cell });
        }
        Ok(())
    }

    /// Drops the packets waiting to leave by an interface that went down
    /// (the one being serialised finishes; packets in flight arrive).
    fn flush_tx_queue(&mut self, node: NodeId, iface: IfaceId, att: Attachment) {
        let site = DropSite::Node {
            node,
            iface: Some(iface),
        };
        let flushed: Vec<_> = match att {
            Attachment::None => Vec::new(),
            Attachment::Link { link, end } => self.links[link.index()].ch[usize::from(end)]
                .queue
                .drain()
                .collect(),
            Attachment::CellStation { cell, slot } => {
                let c = &mut self.cells[cell.index()];
                c.slots[slot as usize].ch[UP].queue.drain().collect()
            }
            Attachment::CellAp { cell } => {
                let c = &mut self.cells[cell.index()];
                let mut v: Vec<_> = c
                    .shared
                    .as_mut()
                    .map(|m| m.ap_queue.drain().map(|(_, p)| p).collect())
                    .unwrap_or_default();
                if c.cfg.sharing != Sharing::Shared {
                    for s in &mut c.slots {
                        v.extend(s.ch[DOWN].queue.drain());
                    }
                }
                v
            }
        };
        for p in flushed {
            self.drop_pkt(site, DropReason::IfaceDown, p);
        }
    }

    /// Interface and source address to reach `dst` by destination routing.
    pub(crate) fn source_for(&self, node: NodeId, dst: IpAddr) -> Option<(IfaceId, IpAddr)> {
        let n = self.nodes.get(node.index())?;
        let r = n.routes.lookup(dst, |i| n.ifaces[i.index()].up)?;
        let src = n.ifaces[r.iface.index()].addr_like(dst)?;
        Some((r.iface, src))
    }

    pub(crate) fn stream(&self, name: &str) -> SimRng {
        rng::stream(self.cfg.seed, name)
    }
}

impl World {
    /// An empty world at time zero.
    pub fn new(cfg: WorldConfig) -> World {
        let core = Core {
            now: Time::ZERO,
            cfg,
            sched: Scheduler::new(),
            nodes: Vec::new(),
            links: Vec::new(),
            cells: Vec::new(),
            agent_meta: Vec::new(),
            timers: TimerQueue::default(),
            actions: Vec::new(),
            free_actions: Vec::new(),
            outbox: Default::default(),
            notes: Default::default(),
            drops: DropLog::new(cfg.drop_log_limit),
            tracer: Tracer::new(cfg.trace),
            captures: Vec::new(),
            next_uid: 0,
            events: 0,
        };
        World {
            core,
            agents: Vec::new(),
        }
    }

    pub fn now(&self) -> Time {
        self.core.now
    }

    pub fn config(&self) -> &WorldConfig {
        &self.core.cfg
    }

    /// The random stream of a component named `name` (for models outside
    /// the world, e.g. mobility: use a name no other component uses).
    pub fn rng_stream(&self, name: &str) -> SimRng {
        self.core.stream(name)
    }

    pub fn add_node(&mut self, name: &str, kind: NodeKind) -> Result<NodeId, TopologyError> {
        if self.core.nodes.iter().any(|n| n.name == name) {
            return Err(TopologyError::DuplicateName {
                kind: "node",
                name: name.into(),
            });
        }
        let id = NodeId(self.core.nodes.len() as u32);
        self.core.nodes.push(Node::new(id, name.into(), kind));
        Ok(id)
    }

    pub fn add_host(&mut self, name: &str) -> Result<NodeId, TopologyError> {
        self.add_node(name, NodeKind::Host)
    }

    pub fn add_router(&mut self, name: &str) -> Result<NodeId, TopologyError> {
        self.add_node(name, NodeKind::Router)
    }

    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.core.nodes.get(id.index())
    }

    pub fn node_by_name(&self, name: &str) -> Option<&Node> {
        self.core.nodes.iter().find(|n| n.name == name)
    }

    pub fn nodes(&self) -> &[Node] {
        &self.core.nodes
    }

    /// Adds an (unattached, up) interface.
    pub fn add_iface(&mut self, node: NodeId, name: &str) -> Result<IfaceId, TopologyError> {
        let n = self.core.node_mut(node)?;
        if n.ifaces.iter().any(|i| i.name == name) {
            return Err(TopologyError::DuplicateName {
                kind: "interface",
                name: name.into(),
            });
        }
        let id = IfaceId(n.ifaces.len() as u32);
        n.ifaces.push(Iface::new(id, name.into()));
        Ok(id)
    }

    /// Adds an address with its prefix length (e.g. `10.0.1.2/24`) and the
    /// connected route of the prefix (none for a /32 or /128).
    pub fn add_address(
        &mut self,
        node: NodeId,
        iface: IfaceId,
        addr: IpNet,
    ) -> Result<(), TopologyError> {
        self.core.add_address(node, iface, addr)?;
        self.pump();
        Ok(())
    }

    pub fn remove_address(
        &mut self,
        node: NodeId,
        iface: IfaceId,
        addr: IpAddr,
    ) -> Result<(), TopologyError> {
        self.core.remove_address(node, iface, addr)?;
        self.pump();
        Ok(())
    }

    pub fn add_route(&mut self, node: NodeId, route: Route) -> Result<(), TopologyError> {
        self.core.check_iface(node, route.iface)?;
        self.core.nodes[node.index()].routes.add(route)?;
        Ok(())
    }

    pub fn remove_route(
        &mut self,
        node: NodeId,
        dest: IpNet,
        iface: Option<IfaceId>,
    ) -> Result<usize, TopologyError> {
        Ok(self.core.node_mut(node)?.routes.remove(dest, iface))
    }

    pub fn set_forwarding(&mut self, node: NodeId, on: bool) -> Result<(), TopologyError> {
        self.core.node_mut(node)?.forwarding = on;
        Ok(())
    }

    /// Administrative interface state. Going down drops the packets waiting
    /// in the interface's transmit queue(s) (`IfaceDown`); the packet being
    /// serialised and those in flight continue. While down, packets sent by
    /// or arriving at the interface are dropped (`IfaceDown`) and routes
    /// through it are skipped by routers. Agents get `LinkDown`/`LinkUp`.
    pub fn set_iface_up(
        &mut self,
        node: NodeId,
        iface: IfaceId,
        up: bool,
    ) -> Result<(), TopologyError> {
        self.core.set_iface_up(node, iface, up)?;
        self.pump();
        Ok(())
    }

    /// Connects two unattached interfaces with a point-to-point link; `a` is
    /// end 0 (direction [`Direction::AtoB`] leaves from it).
    pub fn add_link(
        &mut self,
        name: &str,
        a: (NodeId, IfaceId),
        b: (NodeId, IfaceId),
        cfg: LinkConfig,
    ) -> Result<LinkId, TopologyError> {
        cfg.validate()?;
        if self.core.links.iter().any(|l| l.name == name) {
            return Err(TopologyError::DuplicateName {
                kind: "link",
                name: name.into(),
            });
        }
        for (n, i) in [a, b] {
            self.core.check_iface(n, i)?;
            if self.core.nodes[n.index()].ifaces[i.index()].attachment != Attachment::None {
                return Err(TopologyError::AlreadyAttached(n, i));
            }
        }
        let id = LinkId(self.core.links.len() as u32);
        let ch = |dir: &str, spec: &ErrorModelSpec| {
            Channel::new(
                cfg.rate_bps,
                cfg.delay,
                cfg.queue_limit,
                spec,
                self.core.stream(&format!("link/{name}/{dir}")),
            )
        };
        let mut ch = [ch("ab", &cfg.error_ab)?, ch("ba", &cfg.error_ba)?];
        for c in &mut ch {
            c.framing = cfg.framing_bytes;
        }
        self.core.links.push(Link {
            name: name.into(),
            ends: [a, b],
            ch,
            up: true,
        });
        self.core.nodes[a.0.index()].ifaces[a.1.index()].attachment =
            Attachment::Link { link: id, end: 0 };
        self.core.nodes[b.0.index()].ifaces[b.1.index()].attachment =
            Attachment::Link { link: id, end: 1 };
        Ok(id)
    }

    /// Convenience: new interfaces on `a` and `b` (named after the link),
    /// given addresses, joined by a link named `name`.
    pub fn connect(
        &mut self,
        name: &str,
        a: NodeId,
        a_addr: IpNet,
        b: NodeId,
        b_addr: IpNet,
        cfg: LinkConfig,
    ) -> Result<(LinkId, IfaceId, IfaceId), TopologyError> {
        let ia = self.add_iface(a, name)?;
        let ib = self.add_iface(b, name)?;
        let l = self.add_link(name, (a, ia), (b, ib), cfg)?;
        self.add_address(a, ia, a_addr)?;
        self.add_address(b, ib, b_addr)?;
        Ok((l, ia, ib))
    }

    fn link_mut(&mut self, link: LinkId) -> Result<&mut Link, TopologyError> {
        self.core
            .links
            .get_mut(link.index())
            .ok_or(TopologyError::UnknownLink(link))
    }

    /// Cuts a link: every packet queued, in transmission or in flight in
    /// either direction is dropped (`LinkDown`), and so is every packet sent
    /// until [`World::restore_link`]. Both ends' agents get `LinkDown`.
    pub fn cut_link(&mut self, link: LinkId) -> Result<(), TopologyError> {
        let l = self.link_mut(link)?;
        if !l.up {
            return Ok(());
        }
        l.up = false;
        let ends = l.ends;
        for dir in 0..2u8 {
            let purged = self.core.links[link.index()].ch[usize::from(dir)].purge();
            for p in purged {
                self.core.links[link.index()].ch[usize::from(dir)]
                    .stats
                    .down_drops += 1;
                self.core
                    .drop_pkt(DropSite::Link { link, dir }, DropReason::LinkDown, p);
            }
        }
        for (n, i) in ends {
            self.core.notify_node(
                n,
                crate::Notification::LinkDown {
                    iface: i,
                    cell: None,
                },
            );
        }
        self.pump();
        Ok(())
    }

    /// Restores a cut link (empty and idle). Both ends' agents get `LinkUp`.
    pub fn restore_link(&mut self, link: LinkId) -> Result<(), TopologyError> {
        let l = self.link_mut(link)?;
        if l.up {
            return Ok(());
        }
        l.up = true;
        let ends = l.ends;
        for (n, i) in ends {
            self.core.notify_node(
                n,
                crate::Notification::LinkUp {
                    iface: i,
                    cell: None,
                },
            );
        }
        self.pump();
        Ok(())
    }

    pub fn link_is_up(&self, link: LinkId) -> Option<bool> {
        self.core.links.get(link.index()).map(|l| l.up)
    }

    /// The two ends (node, interface) of a link.
    pub fn link_ends(&self, link: LinkId) -> Option<[(NodeId, IfaceId); 2]> {
        self.core.links.get(link.index()).map(|l| l.ends)
    }

    pub fn link_by_name(&self, name: &str) -> Option<LinkId> {
        self.core
            .links
            .iter()
            .position(|l| l.name == name)
            .map(|i| LinkId(i as u32))
    }

    pub fn link_stats(&self, link: LinkId, dir: Direction) -> Option<ChannelStats> {
        self.core
            .links
            .get(link.index())
            .map(|l| l.ch[dir as usize].stats)
    }

    /// Changes the rate of one direction (from the next packet that starts
    /// serialising).
    pub fn set_link_rate(
        &mut self,
        link: LinkId,
        dir: Direction,
        rate_bps: u64,
    ) -> Result<(), TopologyError> {
        if rate_bps == 0 {
            return Err(crate::kernel::link::LinkConfigError::ZeroRate.into());
        }
        self.link_mut(link)?.ch[dir as usize].rate_bps = rate_bps;
        Ok(())
    }

    /// Changes the propagation delay of one direction (from the next packet
    /// that finishes serialising; never reorders).
    pub fn set_link_delay(
        &mut self,
        link: LinkId,
        dir: Direction,
        delay: Duration,
    ) -> Result<(), TopologyError> {
        self.link_mut(link)?.ch[dir as usize].delay = delay;
        Ok(())
    }

    pub fn set_link_queue_limit(
        &mut self,
        link: LinkId,
        dir: Direction,
        packets: usize,
    ) -> Result<(), TopologyError> {
        self.link_mut(link)?.ch[dir as usize]
            .queue
            .set_limit(packets);
        Ok(())
    }

    /// Replaces the error model of one direction (its random stream goes on).
    pub fn set_link_error(
        &mut self,
        link: LinkId,
        dir: Direction,
        spec: ErrorModelSpec,
    ) -> Result<(), TopologyError> {
        self.link_mut(link)?.ch[dir as usize]
            .error
            .respecify(&spec)
            .map_err(|e| TopologyError::Config(e.into()))
    }

    /// Creates a cell whose access point is a new interface `ap_iface_name`
    /// of node `ap`.
    pub fn add_cell(
        &mut self,
        name: &str,
        ap: NodeId,
        ap_iface_name: &str,
        cfg: CellConfig,
    ) -> Result<(CellId, IfaceId), TopologyError> {
        cfg.validate()?;
        if self.core.cells.iter().any(|c| c.name == name) {
            return Err(TopologyError::DuplicateName {
                kind: "cell",
                name: name.into(),
            });
        }
        let iface = self.add_iface(ap, ap_iface_name)?;
        let id = CellId(self.core.cells.len() as u32);
        let dcf = cfg
            .mac
            .filter(|m| m.contention && cfg.sharing == Sharing::Shared)
            .map(|m| DcfMedium {
                contention: Contention::new(m, self.core.stream(&format!("cell/{name}/dcf"))),
                held: Default::default(),
                generation: 0,
                scheduled: None,
                attempt: Default::default(),
                rts: false,
            });
        let cfg_common = cfg.sharing == Sharing::Common;
        let shared = (cfg.sharing == Sharing::Shared).then(|| SharedMedium {
            ap_queue: DropTailQueue::new(cfg.ap_queue_limit.unwrap_or(cfg.queue_limit)),
            in_service: None,
            cursor: 0,
            backlogged: Default::default(),
            pipe: Pipe::default(),
            busy: Duration::ZERO,
            dcf,
        });
        self.core.cells.push(Cell {
            name: name.into(),
            cfg,
            ap: (ap, iface),
            slots: Vec::new(),
            shared,
            common: (cfg_common).then(Default::default),
            addr_cache: Default::default(),
        });
        self.core.nodes[ap.index()].ifaces[iface.index()].attachment =
            Attachment::CellAp { cell: id };
        Ok((id, iface))
    }

    pub fn cell_config(&self, cell: CellId) -> Option<&CellConfig> {
        self.core.cells.get(cell.index()).map(|c| &c.cfg)
    }

    pub fn cell_by_name(&self, name: &str) -> Option<CellId> {
        self.core
            .cells
            .iter()
            .position(|c| c.name == name)
            .map(|i| CellId(i as u32))
    }

    /// The access point (node, interface) of a cell.
    pub fn cell_ap(&self, cell: CellId) -> Option<(NodeId, IfaceId)> {
        self.core.cells.get(cell.index()).map(|c| c.ap)
    }

    /// Station interfaces currently attached to a cell.
    pub fn cell_stations(&self, cell: CellId) -> Vec<(NodeId, IfaceId)> {
        self.core
            .cells
            .get(cell.index())
            .map(|c| {
                c.slots
                    .iter()
                    .filter(|s| s.attached)
                    .map(|s| (s.node, s.iface))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Counters of a station's two directions (accumulated over all its
    /// attachments to the cell).
    pub fn station_stats(
        &self,
        cell: CellId,
        node: NodeId,
        iface: IfaceId,
    ) -> Option<StationStats> {
        let c = self.core.cells.get(cell.index())?;
        let s = c
            .slots
            .iter()
            .find(|s| s.node == node && s.iface == iface)?;
        Some(StationStats {
            downlink: s.ch[DOWN].stats,
            uplink: s.ch[UP].stats,
        })
    }

    /// Time the shared medium of a cell was busy (zero for dedicated cells).
    pub fn cell_busy_time(&self, cell: CellId) -> Option<Duration> {
        self.core
            .cells
            .get(cell.index())
            .map(|c| c.shared.as_ref().map_or(Duration::ZERO, |m| m.busy))
    }

    /// Attaches a station interface (not attached to anything) to a cell.
    /// The station's agents get `LinkUp`, the AP's agents `StationAttached`.
    pub fn attach(
        &mut self,
        node: NodeId,
        iface: IfaceId,
        cell: CellId,
    ) -> Result<(), TopologyError> {
        self.core.check_iface(node, iface)?;
        if cell.index() >= self.core.cells.len() {
            return Err(TopologyError::UnknownCell(cell));
        }
        if self.core.nodes[node.index()].ifaces[iface.index()].attachment != Attachment::None {
            return Err(TopologyError::AlreadyAttached(node, iface));
        }
        let existing = self.core.cells[cell.index()]
            .slots
            .iter()
            .position(|s| s.node == node && s.iface == iface);
        let slot = match existing {
            Some(s) => s,
            None => {
                let c = &self.core.cells[cell.index()];
                let base = format!(
                    "cell/{}/{}/{}",
                    c.name,
                    self.core.nodes[node.index()].name,
                    self.core.nodes[node.index()].ifaces[iface.index()].name
                );
                let cfg = c.cfg.clone();
                let mk = |dir: &str, spec: &ErrorModelSpec| {
                    Channel::new(
                        cfg.rate_bps,
                        cfg.delay,
                        cfg.queue_limit,
                        spec,
                        self.core.stream(&format!("{base}/{dir}")),
                    )
                };
                let mut ch = [
                    mk("down", &cfg.downlink_error)?,
                    mk("up", &cfg.uplink_error)?,
                ];
                for c in &mut ch {
                    c.tti = cfg.tti;
                }
                let slots = &mut self.core.cells[cell.index()].slots;
                slots.push(StationSlot {
                    node,
                    iface,
                    attached: false,
                    ch,
                });
                slots.len() - 1
            }
        };
        self.core.cells[cell.index()].slots[slot].attached = true;
        self.core.nodes[node.index()].ifaces[iface.index()].attachment = Attachment::CellStation {
            cell,
            slot: slot as u32,
        };
        let (ap, ap_iface) = self.core.cells[cell.index()].ap;
        self.core.notify_node(
            node,
            crate::Notification::LinkUp {
                iface,
                cell: Some(cell),
            },
        );
        self.core.notify_node(
            ap,
            crate::Notification::StationAttached {
                ap_iface,
                cell,
                node,
                iface,
            },
        );
        self.pump();
        Ok(())
    }

    /// Detaches a station interface from its cell. Everything queued for or
    /// by it, being sent to or by it, or in flight to or from it is dropped
    /// (`Detached`). The station's agents get `LinkDown`, the AP's agents
    /// `StationDetached`.
    pub fn detach(&mut self, node: NodeId, iface: IfaceId) -> Result<(), TopologyError> {
        self.core.check_iface(node, iface)?;
        let Attachment::CellStation { cell, slot } =
            self.core.nodes[node.index()].ifaces[iface.index()].attachment
        else {
            return Err(TopologyError::NotAStation(node, iface));
        };
        self.core.nodes[node.index()].ifaces[iface.index()].attachment = Attachment::None;
        let site = DropSite::Cell { cell, node, iface };
        let c = &mut self.core.cells[cell.index()];
        let s = &mut c.slots[slot as usize];
        s.attached = false;
        let mut purged = Vec::new();
        for (dir, ch) in s.ch.iter_mut().enumerate() {
            let p = ch.purge();
            ch.stats.down_drops += p.len() as u64;
            purged.extend(p.into_iter().map(|p| (dir, p)));
        }
        if let Some(m) = c.shared.as_mut() {
            let mut n = 0u64;
            for (_, p) in m.ap_queue.extract_if(|(s, _)| *s == slot) {
                purged.push((DOWN, p));
                n += 1;
            }
            if let Some(tx) = m.in_service.as_mut()
                && tx.slot == slot
                && let Some(p) = tx.pkt.take()
            {
                purged.push((tx.dir, p));
                n += 1;
            }
            for (d, _, p) in m.pipe.extract_if(|(_, s, _)| *s == slot) {
                purged.push((d, p));
                n += 1;
            }
            if let Some(d) = m.dcf.as_mut() {
                let t = slot as usize + 1;
                let gone: Vec<usize> = d
                    .held
                    .iter()
                    .filter(|(k, (_, s, _))| *k == t || *s == slot)
                    .map(|(k, _)| k)
                    .collect();
                for k in gone {
                    if let Some((dir, _, p)) = d.held.remove(k) {
                        purged.push((dir, p));
                        n += 1;
                    }
                }
            }
            c.slots[slot as usize].ch[DOWN].stats.down_drops += n;
        }
        for p in self.core.common_purge(cell, slot) {
            self.core.cells[cell.index()].slots[slot as usize].ch[DOWN]
                .stats
                .down_drops += 1;
            purged.push((DOWN, p));
        }
        for (_, p) in purged {
            self.core.drop_pkt(site, DropReason::Detached, p);
        }
        let (ap, ap_iface) = self.core.cells[cell.index()].ap;
        self.core.notify_node(
            node,
            crate::Notification::LinkDown {
                iface,
                cell: Some(cell),
            },
        );
        self.core.notify_node(
            ap,
            crate::Notification::StationDetached {
                ap_iface,
                cell,
                node,
                iface,
            },
        );
        self.pump();
        Ok(())
    }

    /// Changes a cell's rate and delay at run time (all stations, both
    /// directions): a new rate applies from the next packet that starts
    /// serialising, a new delay from the next that finishes (no reordering).
    pub fn set_cell_rate_delay(
        &mut self,
        cell: CellId,
        rate_bps: u64,
        delay: Duration,
    ) -> Result<(), TopologyError> {
        if rate_bps == 0 {
            return Err(crate::kernel::link::LinkConfigError::ZeroRate.into());
        }
        let c = self
            .core
            .cells
            .get_mut(cell.index())
            .ok_or(TopologyError::UnknownCell(cell))?;
        c.cfg.rate_bps = rate_bps;
        c.cfg.delay = delay;
        for s in &mut c.slots {
            for ch in &mut s.ch {
                ch.rate_bps = rate_bps;
                ch.delay = delay;
            }
        }
        Ok(())
    }

    /// Replaces a station's error models in a cell (e.g. as its signal
    /// fades); the random streams go on.
    pub fn set_station_error(
        &mut self,
        cell: CellId,
        node: NodeId,
        iface: IfaceId,
        downlink: ErrorModelSpec,
        uplink: ErrorModelSpec,
    ) -> Result<(), TopologyError> {
        let c = self
            .core
            .cells
            .get_mut(cell.index())
            .ok_or(TopologyError::UnknownCell(cell))?;
        let s = c
            .slots
            .iter_mut()
            .find(|s| s.node == node && s.iface == iface)
            .ok_or(TopologyError::NotAttached(node, iface, cell))?;
        s.ch[DOWN]
            .error
            .respecify(&downlink)
            .map_err(|e| TopologyError::Config(e.into()))?;
        s.ch[UP]
            .error
            .respecify(&uplink)
            .map_err(|e| TopologyError::Config(e.into()))?;
        Ok(())
    }
}
