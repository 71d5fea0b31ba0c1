//! UMTS common transport channels ([`Sharing::Common`](crate::kernel::wireless::Sharing::Common)):
//! one downlink and one uplink channel per cell, each shared among all
//! attached stations, scheduled per TTI; RLC acknowledged mode (3GPP TS
//! 25.322) segments each packet into PDUs of `rlc_pdu_bytes` payload and
//! retransmits the PDUs the channel loses (see
//! [`crate::kernel::wireless`] for the rules and the simplifications).

use std::collections::VecDeque;

use super::super::{ChanRef, Core, Event};
use crate::Time;
use crate::kernel::drop::{DropReason, DropSite};
use crate::kernel::ids::CellId;
use crate::kernel::ip::IpPacket;
use crate::kernel::link::tti_ceil;
use crate::kernel::trace::TraceKind;
use crate::kernel::wireless::{CommonChannel, DOWN, RlcSdu, StationSlot};

impl Core {
    /// A packet for (DOWN) or from (UP) station `slot` of a common-channel
    /// cell: into that station's queue of the direction, and the channel
    /// scheduled.
    pub(crate) fn common_enqueue(&mut self, cell: CellId, slot: u32, dir: usize, pkt: IpPacket) {
        let c = &mut self.cells[cell.index()];
        let s = &mut c.slots[slot as usize];
        let ch = &mut s.ch[dir];
        match ch.queue.push(pkt) {
            Ok(()) => {
                ch.stats.max_queue = ch.stats.max_queue.max(ch.queue.len());
                let (node, iface) = if dir == DOWN { c.ap } else { (s.node, s.iface) };
                self.tracer.queue(self.now, node, iface, ch.queue.len());
            }
            Err(pkt) => {
                ch.stats.queue_drops += 1;
                let site = DropSite::Cell {
                    cell,
                    node: s.node,
                    iface: s.iface,
                };
                self.drop_pkt(site, DropReason::QueueOverflow, pkt);
                return;
            }
        }
        self.common_arm(cell, dir);
    }

    /// Schedules the channel's next TTI if none is.
    fn common_arm(&mut self, cell: CellId, dir: usize) {
        let now = self.now;
        let c = &mut self.cells[cell.index()];
        let tti = c.cfg.tti.unwrap_or(std::time::Duration::from_millis(10));
        let Some(cm) = c.common.as_mut() else { return };
        let ch = &mut cm[dir];
        if ch.armed {
            return;
        }
        let mut at = tti_ceil(now, tti);
        if let Some(last) = ch.last_tti
            && at < last + tti
        {
            at = last + tti;
        }
        ch.armed = true;
        self.sched.push(
            at,
            Event::CommonTti {
                cell,
                dir: dir as u8,
            },
        );
    }

    /// One TTI of a common channel: its PDUs go round robin, one at a
    /// time, to the stations with data (retransmissions due first, then
    /// the packet being segmented, then the next queued packet); packets
    /// whose PDUs have all arrived are delivered in order at the end of
    /// the TTI, after the cell's delay.
    pub(crate) fn on_common_tti(&mut self, cell: CellId, dir: usize) {
        let now = self.now;
        let c = &mut self.cells[cell.index()];
        let turn = Turn {
            now,
            tti: c.cfg.tti.unwrap_or(std::time::Duration::from_millis(10)),
            pdu: c.cfg.rlc_pdu_bytes.max(1),
            arq: c.cfg.rlc_status_delay,
            budget: c.cfg.pdus_per_tti(),
            dir,
        };
        let Some(cm) = c.common.as_mut() else { return };
        let ch: &mut CommonChannel = &mut cm[dir];
        ensure_slots(ch, c.slots.len());
        ch.armed = false;
        ch.last_tti = Some(now);
        send_pdus(ch, &mut c.slots, &turn);
        let (out, more) = complete_sdus(ch, &c.slots, dir);
        let at = now + turn.tti + c.cfg.delay;
        self.deliver_sdus(cell, dir, at, out);
        if more {
            self.common_arm(cell, dir);
        }
    }

    /// The complete SDUs of a TTI (station slot, packet) onto their
    /// stations' pipes, arriving at `at`.
    fn deliver_sdus(&mut self, cell: CellId, dir: usize, at: Time, out: Vec<(u32, IpPacket)>) {
        let now = self.now;
        for (slot, pkt) in out {
            let r = ChanRef::Station {
                cell,
                slot,
                dir: dir as u8,
            };
            let (node, iface) = if dir == DOWN {
                self.cells[cell.index()].ap
            } else {
                let st = &self.cells[cell.index()].slots[slot as usize];
                (st.node, st.iface)
            };
            self.tracer
                .packet(now, node, Some(iface), TraceKind::TxStart, &pkt);
            let ch = &mut self.cells[cell.index()].slots[slot as usize].ch[dir];
            ch.stats.tx_packets += 1;
            ch.stats.tx_bytes += pkt.len() as u64;
            if let Some((t, generation)) = ch.pipe.push(at, pkt) {
                self.sched.push(t, Event::Arrive { ch: r, generation });
            }
        }
    }

    /// Everything a common-channel cell holds for or from station `slot`
    /// (being segmented or awaiting retransmission), removed.
    pub(crate) fn common_purge(&mut self, cell: CellId, slot: u32) -> Vec<IpPacket> {
        let c = &mut self.cells[cell.index()];
        let Some(cm) = c.common.as_mut() else {
            return Vec::new();
        };
        cm.iter_mut()
            .filter_map(|ch| ch.rlc.get_mut(slot as usize))
            .flat_map(|q| std::mem::take(q).into_iter().map(|u| u.pkt))
            .collect()
    }
}

/// The per-station RLC state of one direction, grown with the slots.
fn ensure_slots(ch: &mut CommonChannel, n: usize) {
    if ch.rlc.len() < n {
        ch.rlc.resize_with(n, VecDeque::new);
    }
}

/// What one TTI of a common channel works with.
struct Turn {
    now: Time,
    tti: std::time::Duration,
    /// RLC PDU payload, bytes (at least 1).
    pdu: usize,
    /// The RLC STATUS delay: a lost PDU is resent this long after its TTI.
    arq: std::time::Duration,
    /// PDUs the TTI carries.
    budget: u64,
    dir: usize,
}

/// The TTI's PDUs, round robin, one at a time, to the stations with data:
/// a retransmission due first, then a PDU of the packet being segmented,
/// then the next queued packet. A PDU the channel loses is due again once
/// the receiver's STATUS report is back (RLC AM).
fn send_pdus(ch: &mut CommonChannel, slots: &mut [StationSlot], t: &Turn) {
    let (now, dir) = (t.now, t.dir);
    let n = slots.len();
    let mut sent = 0u64;
    let mut idle_turns = 0;
    let mut s = ch.cursor;
    while sent < t.budget && idle_turns < n {
        s = (s + 1) % n.max(1);
        let slot = &mut slots[s];
        let rlc = &mut ch.rlc[s];
        if !slot.attached {
            idle_turns += 1;
            continue;
        }
        // Retransmission due, else a PDU not yet sent, else a new SDU.
        let k = rlc
            .iter()
            .position(|u| u.retx.first().is_some_and(|&t| t <= now))
            .map(|k| (k, true))
            .or_else(|| rlc.iter().position(|u| u.unsent > 0).map(|k| (k, false)));
        let (k, retx) = match k {
            Some(x) => x,
            None => match slot.ch[dir].queue.pop() {
                Some(pkt) => {
                    let pdus = pkt.len().div_ceil(t.pdu) as u32;
                    rlc.push_back(RlcSdu {
                        pkt,
                        unsent: pdus,
                        retx: Default::default(),
                    });
                    (rlc.len() - 1, false)
                }
                None => {
                    idle_turns += 1;
                    continue;
                }
            },
        };
        idle_turns = 0;
        sent += 1;
        ch.cursor = s;
        let u = &mut rlc[k];
        if retx {
            u.retx.remove(0);
        } else {
            u.unsent -= 1;
        }
        if slot.ch[dir].error.is_lost(now, now + t.tti) {
            // RLC AM: the receiver's STATUS report names the missing
            // PDU; it is resent once the report is back.
            u.retx.push(now + t.tti + t.arq);
            slot.ch[dir].stats.error_drops += 1;
        }
    }
}

/// In-sequence delivery: every station's complete SDUs (slot, packet),
/// taken off its RLC queue, and whether any station still has data.
fn complete_sdus(
    ch: &mut CommonChannel,
    slots: &[StationSlot],
    dir: usize,
) -> (Vec<(u32, IpPacket)>, bool) {
    let mut out: Vec<(u32, IpPacket)> = Vec::new();
    let mut more = false;
    for (s, rlc) in ch.rlc.iter_mut().enumerate() {
        while rlc
            .front()
            .is_some_and(|u| u.unsent == 0 && u.retx.is_empty())
        {
            if let Some(u) = rlc.pop_front() {
                out.push((s as u32, u.pkt));
            }
        }
        more |= !rlc.is_empty() || !slots[s].ch[dir].queue.is_empty();
    }
    (out, more)
}
