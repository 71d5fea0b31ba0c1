//! A shared medium under the 802.11 DCF's contention form
//! ([`crate::kernel::dcf`]): who sends next is decided by the
//! transmitters' random backoffs, attempts may collide, failed frames are
//! retried up to the retry limits.

use smallvec::SmallVec;

use super::super::{Core, Event};
use crate::kernel::dcf::AfterFailure;
use crate::kernel::drop::{DropReason, DropSite};
use crate::kernel::ids::CellId;
use crate::kernel::wireless::{BROADCAST_SLOT, DOWN, SharedTx, UP};

impl Core {
    /// Brings the contention up to date (every transmitter with a frame
    /// contends, the others leave) and schedules the next attempt; nothing
    /// while the medium is busy.
    pub(crate) fn dcf_kick(&mut self, cell: CellId) {
        let now = self.now;
        let c = &mut self.cells[cell.index()];
        let Some(m) = c.shared.as_mut() else { return };
        let Some(d) = m.dcf.as_mut() else { return };
        if m.in_service.is_some() {
            return;
        }
        for t in m.backlogged.snapshot() {
            let has_frame = d.held.contains_key(t)
                || if t == 0 {
                    !m.ap_queue.is_empty()
                } else {
                    c.slots
                        .get(t - 1)
                        .is_some_and(|s| s.attached && !s.ch[UP].queue.is_empty())
                };
            if has_frame {
                d.contention.join(t, now);
            } else {
                d.contention.leave(t);
                m.backlogged.remove(t);
            }
        }
        let Some((at, _)) = d.contention.next_attempt() else {
            d.scheduled = None;
            return;
        };
        let at = at.max(now);
        if d.scheduled == Some(at) {
            return;
        }
        d.generation = d.generation.wrapping_add(1);
        d.scheduled = Some(at);
        let generation = d.generation;
        self.sched
            .push(at, Event::MediumContend { cell, generation });
    }

    /// A backoff ended: the transmitters whose backoff ends now send (one:
    /// its frame exchange; several: a collision).
    pub(crate) fn on_medium_contend(&mut self, cell: CellId, generation: u32) {
        let now = self.now;
        let c = &mut self.cells[cell.index()];
        let Some(m) = c.shared.as_mut() else { return };
        let Some(d) = m.dcf.as_mut() else { return };
        if d.generation != generation || m.in_service.is_some() {
            return;
        }
        d.scheduled = None;
        let who = match d.contention.next_attempt() {
            Some((at, who)) if at <= now => who,
            _ => {
                self.dcf_kick(cell);
                return;
            }
        };
        // Each sender's frame: kept from an earlier attempt, or the head
        // of its queue.
        for &t in &who {
            if d.held.contains_key(t) {
                continue;
            }
            let f = if t == 0 {
                m.ap_queue.pop().map(|(slot, pkt)| (DOWN, slot, pkt))
            } else {
                c.slots[t - 1].ch[UP]
                    .queue
                    .pop()
                    .map(|pkt| (UP, (t - 1) as u32, pkt))
            };
            if let Some(f) = f {
                d.held.insert(t, f);
            }
        }
        let who: SmallVec<[usize; 2]> = who
            .into_iter()
            .filter(|t| d.held.contains_key(*t))
            .collect();
        let mac = c.cfg.mac.unwrap_or_default();
        let rate = c.cfg.rate_bps;
        if who.len() == 1 {
            let t = who[0];
            let Some((dir, slot, pkt)) = d.held.remove(t) else {
                return;
            };
            let unicast = slot != BROADCAST_SLOT;
            let dur = mac.exchange(pkt.len(), rate, unicast);
            d.contention.busy(now, now + dur, &who);
            d.rts = mac.uses_rts(pkt.len(), unicast);
            d.attempt = who;
            m.busy += dur;
            self.begin_medium_tx(cell, dir, slot, pkt, now + dur);
        } else if !who.is_empty() {
            let dur = who
                .iter()
                .filter_map(|t| d.held.get(*t))
                .map(|(_, slot, p)| mac.collision_airtime(p.len(), rate, *slot != BROADCAST_SLOT))
                .max()
                .unwrap_or_default();
            d.contention.busy(now, now + dur, &who);
            d.attempt = who;
            d.rts = false;
            m.busy += dur;
            m.in_service = Some(SharedTx {
                dir: DOWN,
                slot: BROADCAST_SLOT,
                pkt: None,
                start: now,
            });
            self.sched.push(now + dur, Event::MediumTxDone(cell));
        } else {
            self.dcf_kick(cell);
        }
    }

    /// The end of an attempt: a collision's senders retry or discard; a
    /// single frame is delivered, or, lost by the error model (no ACK),
    /// retried or discarded.
    pub(crate) fn dcf_done(&mut self, cell: CellId) {
        let now = self.now;
        let c = &mut self.cells[cell.index()];
        let Some(m) = c.shared.as_mut() else { return };
        let Some(tx) = m.in_service.take() else {
            return;
        };
        let Some(d) = m.dcf.as_mut() else { return };
        let who = std::mem::take(&mut d.attempt);
        let mut discarded = Vec::new();
        if who.len() > 1 {
            for &t in &who {
                let broadcast = d.held.get(t).is_some_and(|f| f.1 == BROADCAST_SLOT);
                if broadcast {
                    // No acknowledgement, no retry: lost.
                    d.contention.success(t);
                    discarded.extend(d.held.remove(t));
                } else if d.contention.failure(t, false) == AfterFailure::Discard {
                    discarded.extend(d.held.remove(t));
                }
            }
        } else if let (Some(&t), Some(pkt)) = (who.first(), tx.pkt) {
            let lost = tx.slot != BROADCAST_SLOT
                && c.slots[tx.slot as usize].ch[tx.dir]
                    .error
                    .is_lost(tx.start, now);
            if lost {
                match d.contention.failure(t, d.rts) {
                    AfterFailure::Retry => {
                        d.held.insert(t, (tx.dir, tx.slot, pkt));
                    }
                    AfterFailure::Discard => discarded.push((tx.dir, tx.slot, pkt)),
                }
            } else {
                d.contention.success(t);
                // Broadcasts meet each station's error model on the way.
                let tx = SharedTx {
                    pkt: Some(pkt),
                    ..tx
                };
                let errors = tx.slot == BROADCAST_SLOT;
                self.medium_deliver(cell, tx, errors);
            }
        }
        for (dir, slot, p) in discarded {
            let c = &mut self.cells[cell.index()];
            let site = if slot == BROADCAST_SLOT {
                let (node, iface) = c.ap;
                DropSite::Node {
                    node,
                    iface: Some(iface),
                }
            } else {
                let s = &mut c.slots[slot as usize];
                s.ch[dir].stats.error_drops += 1;
                DropSite::Cell {
                    cell,
                    node: s.node,
                    iface: s.iface,
                }
            };
            self.drop_pkt(site, DropReason::LinkError, p);
        }
        self.dcf_kick(cell);
    }
}
