//! Transmission: drop-tail queues, transmitters (serialisation at the
//! channel's rate), error models, propagation pipes, for point-to-point
//! links, dedicated cell channels and shared cell media. See
//! [`crate::kernel::link`] and [`crate::kernel::wireless`] for the rules.

use std::net::IpAddr;

use smallvec::SmallVec;

use super::{ChanRef, Core, Event, World};
use crate::Time;
use crate::kernel::drop::{DropReason, DropSite};
use crate::kernel::ids::{CellId, IfaceId, NodeId};
use crate::kernel::ip::{IpPacket, is_group_address};
use crate::kernel::link::{Channel, InService, serialization_time, tti_ceil};
use crate::kernel::node::Attachment;
use crate::kernel::trace::TraceKind;
use crate::kernel::wireless::{BROADCAST_SLOT, DOWN, SharedTx, Sharing, UP};

mod common;
mod dcf;

impl Core {
    /// Hands a packet to an interface for transmission to `next_hop`.
    pub(crate) fn transmit(
        &mut self,
        node: NodeId,
        iface: IfaceId,
        next_hop: IpAddr,
        pkt: IpPacket,
    ) {
        let ifc = &self.nodes[node.index()].ifaces[iface.index()];
        let site = DropSite::Node {
            node,
            iface: Some(iface),
        };
        if !ifc.up {
            self.drop_pkt(site, DropReason::IfaceDown, pkt);
            return;
        }
        match ifc.attachment {
            Attachment::None => self.drop_pkt(site, DropReason::Detached, pkt),
            Attachment::Link { link, end } => {
                if self.links[link.index()].up {
                    self.chan_enqueue(ChanRef::Link { link, dir: end }, pkt);
                } else {
                    self.links[link.index()].ch[usize::from(end)]
                        .stats
                        .down_drops += 1;
                    self.drop_pkt(DropSite::Link { link, dir: end }, DropReason::LinkDown, pkt);
                }
            }
            Attachment::CellAp { cell } => self.cell_downlink(cell, next_hop, pkt),
            Attachment::CellStation { cell, slot } => self.cell_uplink(cell, slot, pkt),
        }
    }

    #[inline]
    fn chan(&mut self, r: ChanRef) -> &mut Channel {
        match r {
            ChanRef::Link { link, dir } => &mut self.links[link.index()].ch[usize::from(dir)],
            ChanRef::Station { cell, slot, dir } => {
                &mut self.cells[cell.index()].slots[slot as usize].ch[usize::from(dir)]
            }
        }
    }

    /// (node, iface) that transmits on the channel.
    #[inline]
    fn chan_sender(&self, r: ChanRef) -> (NodeId, IfaceId) {
        match r {
            ChanRef::Link { link, dir } => self.links[link.index()].ends[usize::from(dir)],
            ChanRef::Station { cell, slot, dir } => {
                let c = &self.cells[cell.index()];
                let s = &c.slots[slot as usize];
                if usize::from(dir) == DOWN {
                    c.ap
                } else {
                    (s.node, s.iface)
                }
            }
        }
    }

    /// (node, iface) that receives from the channel.
    #[inline]
    pub(crate) fn chan_receiver(&self, r: ChanRef) -> (NodeId, IfaceId) {
        match r {
            ChanRef::Link { link, dir } => self.links[link.index()].ends[1 - usize::from(dir)],
            ChanRef::Station { cell, slot, dir } => {
                let c = &self.cells[cell.index()];
                let s = &c.slots[slot as usize];
                if usize::from(dir) == DOWN {
                    (s.node, s.iface)
                } else {
                    c.ap
                }
            }
        }
    }

    #[inline]
    fn chan_site(&self, r: ChanRef) -> DropSite {
        match r {
            ChanRef::Link { link, dir } => DropSite::Link { link, dir },
            ChanRef::Station { cell, slot, .. } => {
                let s = &self.cells[cell.index()].slots[slot as usize];
                DropSite::Cell {
                    cell,
                    node: s.node,
                    iface: s.iface,
                }
            }
        }
    }

    /// Traces the length of the channel's queue (when queues are traced).
    fn trace_queue(&mut self, r: ChanRef) {
        if self.tracer.config().queues {
            let (node, iface) = self.chan_sender(r);
            let len = self.chan(r).queue.len();
            self.tracer.queue(self.now, node, iface, len);
        }
    }

    fn chan_enqueue(&mut self, r: ChanRef, pkt: IpPacket) {
        let ch = self.chan(r);
        if ch.in_service.is_none() {
            self.chan_start(r, pkt, false);
            return;
        }
        match ch.queue.push(pkt) {
            Ok(()) => {
                ch.stats.max_queue = ch.stats.max_queue.max(ch.queue.len());
                self.trace_queue(r);
            }
            Err(pkt) => {
                ch.stats.queue_drops += 1;
                let site = self.chan_site(r);
                self.drop_pkt(site, DropReason::QueueOverflow, pkt);
            }
        }
    }

    /// Starts serialising `pkt`; `back_to_back` when the transmitter has
    /// just finished the previous packet (a TTI channel waits for the
    /// next boundary only after it was idle).
    fn chan_start(&mut self, r: ChanRef, pkt: IpPacket, back_to_back: bool) {
        let (node, iface) = self.chan_sender(r);
        self.write_capture(node, iface, &pkt);
        self.tracer
            .packet(self.now, node, Some(iface), TraceKind::TxStart, &pkt);
        let now = self.now;
        let ch = self.chan(r);
        let ser = serialization_time(pkt.len() + ch.framing, ch.rate_bps);
        let begin = match ch.tti {
            Some(tti) if !back_to_back => tti_ceil(now, tti),
            _ => now,
        };
        ch.stats.tx_packets += 1;
        ch.stats.tx_bytes += pkt.len() as u64;
        ch.in_service = Some(InService {
            pkt: Some(pkt),
            start: begin,
        });
        self.sched.push(begin + ser, Event::TxDone(r));
    }

    /// End of serialisation on a channel: error model, then propagation;
    /// the transmitter takes the next queued packet.
    pub(crate) fn on_tx_done(&mut self, r: ChanRef) {
        let now = self.now;
        let ch = self.chan(r);
        let Some(done) = ch.in_service.take() else {
            return;
        };
        if let Some(pkt) = done.pkt {
            if ch.error.is_lost(done.start, now) {
                ch.stats.error_drops += 1;
                let site = self.chan_site(r);
                self.drop_pkt(site, DropReason::LinkError, pkt);
            } else {
                // With a TTI the packet goes with the interval its last
                // bit was sent in.
                let sent = ch.tti.map_or(now, |tti| tti_ceil(now, tti));
                let at = sent + ch.delay;
                if let Some((t, generation)) = ch.pipe.push(at, pkt) {
                    self.sched.push(t, Event::Arrive { ch: r, generation });
                }
            }
        }
        if let Some(next) = self.chan(r).queue.pop() {
            self.trace_queue(r);
            self.chan_start(r, next, true);
        }
    }

    /// The attached station of `cell` whose interface holds `addr` (the
    /// slot found last time for it if it still does, else a search).
    fn station_for(&mut self, cell: CellId, addr: IpAddr) -> Option<u32> {
        let c = &self.cells[cell.index()];
        let holds = |i: usize| {
            let s = &c.slots[i];
            s.attached && self.nodes[s.node.index()].ifaces[s.iface.index()].has_addr(addr)
        };
        if let Some(&k) = c.addr_cache.get(&addr)
            && (k as usize) < c.slots.len()
            && holds(k as usize)
        {
            return Some(k);
        }
        let found = (0..c.slots.len()).find(|&i| holds(i)).map(|i| i as u32);
        let cache = &mut self.cells[cell.index()].addr_cache;
        match found {
            Some(k) => {
                cache.insert(addr, k);
            }
            None => {
                cache.remove(&addr);
            }
        }
        found
    }

    fn cell_downlink(&mut self, cell: CellId, next_hop: IpAddr, pkt: IpPacket) {
        let broadcast = is_group_address(next_hop) || is_group_address(pkt.dst());
        let slot = if broadcast {
            BROADCAST_SLOT
        } else {
            match self.station_for(cell, next_hop) {
                Some(s) => s,
                None => {
                    let (n, i) = self.cells[cell.index()].ap;
                    self.drop_pkt(
                        DropSite::Node {
                            node: n,
                            iface: Some(i),
                        },
                        DropReason::Detached,
                        pkt,
                    );
                    return;
                }
            }
        };
        match self.cells[cell.index()].cfg.sharing {
            Sharing::Common => {
                if slot == BROADCAST_SLOT {
                    let attached: Vec<u32> = (0..self.cells[cell.index()].slots.len() as u32)
                        .filter(|s| self.cells[cell.index()].slots[*s as usize].attached)
                        .collect();
                    for s in attached {
                        self.common_enqueue(cell, s, DOWN, pkt.clone());
                    }
                } else {
                    self.common_enqueue(cell, slot, DOWN, pkt);
                }
            }
            Sharing::Dedicated => {
                if slot == BROADCAST_SLOT {
                    let attached: Vec<u32> = (0..self.cells[cell.index()].slots.len() as u32)
                        .filter(|s| self.cells[cell.index()].slots[*s as usize].attached)
                        .collect();
                    for s in attached {
                        self.chan_enqueue(
                            ChanRef::Station {
                                cell,
                                slot: s,
                                dir: DOWN as u8,
                            },
                            pkt.clone(),
                        );
                    }
                } else {
                    self.chan_enqueue(
                        ChanRef::Station {
                            cell,
                            slot,
                            dir: DOWN as u8,
                        },
                        pkt,
                    );
                }
            }
            Sharing::Shared => {
                let c = &mut self.cells[cell.index()];
                let Some(m) = c.shared.as_mut() else { return };
                match m.ap_queue.push((slot, pkt)) {
                    Ok(()) => {
                        m.backlogged.insert(0);
                        let (n, i) = c.ap;
                        self.tracer.queue(self.now, n, i, m.ap_queue.len());
                        if slot != BROADCAST_SLOT {
                            let st = &mut c.slots[slot as usize].ch[DOWN].stats;
                            st.max_queue = st.max_queue.max(m.ap_queue.len());
                        }
                    }
                    Err((_, pkt)) => {
                        let (n, i) = c.ap;
                        let site = if slot == BROADCAST_SLOT {
                            DropSite::Node {
                                node: n,
                                iface: Some(i),
                            }
                        } else {
                            let s = &mut c.slots[slot as usize];
                            s.ch[DOWN].stats.queue_drops += 1;
                            DropSite::Cell {
                                cell,
                                node: s.node,
                                iface: s.iface,
                            }
                        };
                        self.drop_pkt(site, DropReason::QueueOverflow, pkt);
                    }
                }
                self.medium_kick(cell);
            }
        }
    }

    fn cell_uplink(&mut self, cell: CellId, slot: u32, pkt: IpPacket) {
        match self.cells[cell.index()].cfg.sharing {
            Sharing::Common => self.common_enqueue(cell, slot, UP, pkt),
            Sharing::Dedicated => self.chan_enqueue(
                ChanRef::Station {
                    cell,
                    slot,
                    dir: UP as u8,
                },
                pkt,
            ),
            Sharing::Shared => {
                let c = &mut self.cells[cell.index()];
                let s = &mut c.slots[slot as usize];
                let ch = &mut s.ch[UP];
                match ch.queue.push(pkt) {
                    Ok(()) => {
                        ch.stats.max_queue = ch.stats.max_queue.max(ch.queue.len());
                        self.tracer.queue(self.now, s.node, s.iface, ch.queue.len());
                        if let Some(m) = c.shared.as_mut() {
                            m.backlogged.insert(slot as usize + 1);
                        }
                    }
                    Err(pkt) => {
                        ch.stats.queue_drops += 1;
                        let site = DropSite::Cell {
                            cell,
                            node: s.node,
                            iface: s.iface,
                        };
                        self.drop_pkt(site, DropReason::QueueOverflow, pkt);
                    }
                }
                self.medium_kick(cell);
            }
        }
    }

    /// Starts the next transmission on an idle shared medium: round robin
    /// over the AP queue (transmitter 0) and the stations' uplink queues
    /// (transmitter slot + 1), one packet per turn.
    pub(crate) fn medium_kick(&mut self, cell: CellId) {
        let now = self.now;
        let c = &mut self.cells[cell.index()];
        let Some(m) = c.shared.as_mut() else { return };
        if m.dcf.is_some() {
            self.dcf_kick(cell);
            return;
        }
        if m.in_service.is_some() {
            return;
        }
        // The next backlogged transmitter after the cursor, cyclically;
        // entries whose queue has emptied are dropped on the way.
        let t = loop {
            let next = m
                .backlogged
                .first_from(m.cursor + 1)
                .or_else(|| m.backlogged.first_from(0));
            let Some(t) = next else {
                return;
            };
            let queued = if t == 0 {
                !m.ap_queue.is_empty()
            } else {
                c.slots
                    .get(t - 1)
                    .is_some_and(|s| !s.ch[UP].queue.is_empty())
            };
            if queued {
                break t;
            }
            m.backlogged.remove(t);
        };
        m.cursor = t;
        let popped = if t == 0 {
            m.ap_queue.pop().map(|(slot, pkt)| (DOWN, slot, pkt))
        } else {
            c.slots[t - 1].ch[UP]
                .queue
                .pop()
                .map(|pkt| (UP, (t - 1) as u32, pkt))
        };
        let Some((dir, slot, pkt)) = popped else {
            return;
        };
        let ser = c.cfg.frame_time(pkt.len()) + c.cfg.frame_overhead;
        m.busy += ser;
        let (node, iface) = if dir == DOWN {
            c.ap
        } else {
            let s = &c.slots[slot as usize];
            (s.node, s.iface)
        };
        let left = if dir == DOWN {
            m.ap_queue.len()
        } else {
            c.slots[slot as usize].ch[UP].queue.len()
        };
        self.tracer.queue(self.now, node, iface, left);
        self.begin_medium_tx(cell, dir, slot, pkt, now + ser);
    }

    /// A frame of a shared medium's transmitter goes on the air now and
    /// holds the medium until `end`: the station's counters (unicast
    /// only), the capture and trace, and the medium's transmission in
    /// service. The round-robin medium and the DCF both start theirs here.
    pub(super) fn begin_medium_tx(
        &mut self,
        cell: CellId,
        dir: usize,
        slot: u32,
        pkt: IpPacket,
        end: Time,
    ) {
        let now = self.now;
        let c = &mut self.cells[cell.index()];
        let (node, iface) = if dir == DOWN {
            c.ap
        } else {
            let s = &c.slots[slot as usize];
            (s.node, s.iface)
        };
        if slot != BROADCAST_SLOT {
            let st = &mut c.slots[slot as usize].ch[dir].stats;
            st.tx_packets += 1;
            st.tx_bytes += pkt.len() as u64;
        }
        self.write_capture(node, iface, &pkt);
        self.tracer
            .packet(now, node, Some(iface), TraceKind::TxStart, &pkt);
        if let Some(m) = self.cells[cell.index()].shared.as_mut() {
            m.in_service = Some(SharedTx {
                dir,
                slot,
                pkt: Some(pkt),
                start: now,
            });
        }
        self.sched.push(end, Event::MediumTxDone(cell));
    }

    /// End of a transmission on a shared medium.
    pub(crate) fn on_medium_tx_done(&mut self, cell: CellId) {
        let c = &mut self.cells[cell.index()];
        let Some(m) = c.shared.as_mut() else { return };
        if m.dcf.is_some() {
            self.dcf_done(cell);
            return;
        }
        let Some(tx) = m.in_service.take() else {
            return;
        };
        self.medium_deliver(cell, tx, true);
        self.medium_kick(cell);
    }

    /// A frame's end on a shared medium: each receiver's error model
    /// (when `errors`), then propagation.
    pub(crate) fn medium_deliver(&mut self, cell: CellId, tx: SharedTx, errors: bool) {
        let now = self.now;
        let c = &mut self.cells[cell.index()];
        let Some(m) = c.shared.as_mut() else { return };
        // At most one of each for a unicast frame (one per station for a
        // broadcast): no heap allocation per frame.
        let mut lost: SmallVec<[(usize, IpPacket); 1]> = SmallVec::new();
        let mut arrive: SmallVec<[(Time, u32); 1]> = SmallVec::new();
        if let Some(pkt) = tx.pkt {
            let at = now + c.cfg.delay;
            if tx.slot == BROADCAST_SLOT {
                for (i, s) in c.slots.iter_mut().enumerate() {
                    if !s.attached {
                        continue;
                    }
                    if errors && s.ch[DOWN].error.is_lost(tx.start, now) {
                        s.ch[DOWN].stats.error_drops += 1;
                        lost.push((i, pkt.clone()));
                    } else if let Some(ev) = m.pipe.push(at, (DOWN, i as u32, pkt.clone())) {
                        arrive.push(ev);
                    }
                }
            } else {
                let s = &mut c.slots[tx.slot as usize];
                if errors && s.ch[tx.dir].error.is_lost(tx.start, now) {
                    s.ch[tx.dir].stats.error_drops += 1;
                    lost.push((tx.slot as usize, pkt));
                } else if let Some(ev) = m.pipe.push(at, (tx.dir, tx.slot, pkt)) {
                    arrive.push(ev);
                }
            }
        }
        for (t, generation) in arrive {
            self.sched.push(t, Event::MediumArrive { cell, generation });
        }
        for (i, p) in lost {
            let s = &self.cells[cell.index()].slots[i];
            let site = DropSite::Cell {
                cell,
                node: s.node,
                iface: s.iface,
            };
            self.drop_pkt(site, DropReason::LinkError, p);
        }
    }
}

impl World {
    /// Arrival event of a channel's pipe: delivers every packet now due.
    pub(crate) fn on_chan_arrive(&mut self, r: ChanRef, generation: u32) {
        let now = self.core.now;
        if !self.core.chan(r).pipe.fire(generation) {
            return;
        }
        let (node, iface) = self.core.chan_receiver(r);
        while let Some(pkt) = self.core.chan(r).pipe.pop_due(now) {
            let st = &mut self.core.chan(r).stats;
            st.rx_packets += 1;
            st.rx_bytes += pkt.len() as u64;
            self.receive(node, iface, pkt);
        }
        if let Some((t, generation)) = self.core.chan(r).pipe.arm() {
            self.core.sched.push(t, Event::Arrive { ch: r, generation });
        }
    }

    /// Arrival event of a shared medium.
    pub(crate) fn on_medium_arrive(&mut self, cell: CellId, generation: u32) {
        let now = self.core.now;
        let ok = self.core.cells[cell.index()]
            .shared
            .as_mut()
            .is_some_and(|m| m.pipe.fire(generation));
        if !ok {
            return;
        }
        loop {
            let c = &mut self.core.cells[cell.index()];
            let Some(m) = c.shared.as_mut() else { return };
            let Some((dir, slot, pkt)) = m.pipe.pop_due(now) else {
                break;
            };
            let s = &mut c.slots[slot as usize];
            let st = &mut s.ch[dir].stats;
            st.rx_packets += 1;
            st.rx_bytes += pkt.len() as u64;
            let (node, iface) = if dir == DOWN { (s.node, s.iface) } else { c.ap };
            self.receive(node, iface, pkt);
        }
        let next = self.core.cells[cell.index()]
            .shared
            .as_mut()
            .and_then(|m| m.pipe.arm());
        if let Some((t, generation)) = next {
            self.core
                .sched
                .push(t, Event::MediumArrive { cell, generation });
        }
    }
}
