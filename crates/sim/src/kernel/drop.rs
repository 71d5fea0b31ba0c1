//! Every packet the simulator discards is counted with its reason, so
//! "lost packets" (docs/MODELS.md section 5) can be measured, and the most
//! recent drops are kept in a bounded log with the packet's identity.

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::net::IpAddr;

use serde::Serialize;

use crate::Time;
use crate::kernel::ids::{CellId, IfaceId, LinkId, NodeId};
use crate::kernel::ip::IpPacket;

/// Why a packet was discarded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum DropReason {
    /// A drop-tail queue was full.
    QueueOverflow,
    /// The error model of a link or cell lost it on the medium, or an
    /// 802.11 DCF frame reached its retry limit (collisions or errors).
    LinkError,
    /// The link was cut (queued, in transmission or in flight), or the packet
    /// was sent while it was cut.
    LinkDown,
    /// The sending or receiving interface was administratively down.
    IfaceDown,
    /// To or from a station interface that is not attached to a cell, or
    /// queued/in flight for a station when it detached.
    Detached,
    /// No route to the destination.
    NoRoute,
    /// TTL / hop limit expired at a router.
    TtlExpired,
    /// A host (forwarding off) received a packet not addressed to it.
    NotForwarding,
    /// Addressed to the node, but no agent took it.
    NoListener,
    /// A node's outgoing-packet backlog within one instant exceeded its bound
    /// (an agent loop).
    Backlog,
    /// Discarded by an agent (e.g. a foreign agent with no binding, a stale
    /// tunnel end): the agent's own reason.
    Agent(&'static str),
}

/// Where a drop happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum DropSite {
    /// In a node's IP layer or an agent of it.
    Node {
        node: NodeId,
        iface: Option<IfaceId>,
    },
    /// On a link, direction 0 (end a to end b) or 1.
    Link { link: LinkId, dir: u8 },
    /// In a cell, for or from the station `node`/`iface`.
    Cell {
        cell: CellId,
        node: NodeId,
        iface: IfaceId,
    },
}

/// One dropped packet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DropRecord {
    pub time_ns: u64,
    pub site: DropSite,
    pub reason: DropReason,
    pub uid: u64,
    pub len: usize,
    pub src: IpAddr,
    pub dst: IpAddr,
    pub protocol: u8,
}

/// Drop counters (exact, never bounded) and the bounded log.
#[derive(Debug, Clone, Default)]
pub struct DropLog {
    counts: BTreeMap<DropReason, (u64, u64)>,
    records: Vec<DropRecord>,
    limit: usize,
    overflow: u64,
    /// (uid, index in `records`), sorted: built when first asked for
    /// after the last record (a run's summary asks once per flow).
    by_uid: OnceCell<Vec<(u64, u32)>>,
}

impl DropLog {
    pub fn new(limit: usize) -> Self {
        DropLog {
            limit,
            ..Default::default()
        }
    }

    pub(crate) fn record(&mut self, now: Time, site: DropSite, reason: DropReason, pkt: &IpPacket) {
        let e = self.counts.entry(reason).or_insert((0, 0));
        e.0 += 1;
        e.1 += pkt.len() as u64;
        if self.records.len() < self.limit {
            if self.by_uid.get().is_some() {
                self.by_uid.take();
            }
            self.records.push(DropRecord {
                time_ns: now.as_nanos(),
                site,
                reason,
                uid: pkt.uid(),
                len: pkt.len(),
                src: pkt.src(),
                dst: pkt.dst(),
                protocol: pkt.protocol(),
            });
        } else {
            self.overflow += 1;
        }
    }

    /// Packets dropped for `reason`.
    pub fn count(&self, reason: DropReason) -> u64 {
        self.counts.get(&reason).map_or(0, |c| c.0)
    }

    /// All drops.
    pub fn total(&self) -> u64 {
        self.counts.values().map(|c| c.0).sum()
    }

    /// (reason, packets, bytes) for every reason seen, in a fixed order.
    pub fn counts(&self) -> impl Iterator<Item = (DropReason, u64, u64)> + '_ {
        self.counts.iter().map(|(r, c)| (*r, c.0, c.1))
    }

    /// The first `limit` drops of the run.
    pub fn records(&self) -> &[DropRecord] {
        &self.records
    }

    /// The logged drops of the packet `uid`, in the order they happened.
    pub fn records_of(&self, uid: u64) -> impl Iterator<Item = &DropRecord> + '_ {
        let index = self.by_uid.get_or_init(|| {
            let mut v: Vec<(u64, u32)> = self
                .records
                .iter()
                .enumerate()
                .map(|(i, r)| (r.uid, i as u32))
                .collect();
            v.sort_unstable();
            v
        });
        let from = index.partition_point(|(u, _)| *u < uid);
        index[from..]
            .iter()
            .take_while(move |(u, _)| *u == uid)
            .map(|(_, i)| &self.records[*i as usize])
    }

    /// Drops counted but not logged because the log was full.
    pub fn unlogged(&self) -> u64 {
        self.overflow
    }
}
