//! Structured event trace: one record per packet event, drop, notification
//! or agent remark, with time, node, kind and details; written as CSV.
//!
//! Tracing is off by default (the counters and the drop log are always on);
//! each category is switched on in [`TraceConfig`], and the record buffer
//! is bounded (`max_records`; further records are counted, not kept).

use std::io::{self, Write};
use std::net::IpAddr;

use serde::Serialize;

use crate::Time;
use crate::kernel::drop::DropReason;
use crate::kernel::ids::{IfaceId, NodeId};
use crate::kernel::ip::IpPacket;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum TraceKind {
    /// An agent handed the packet to its node's IP layer.
    Send,
    /// Serialisation started on the interface (the packet left the queue).
    TxStart,
    /// The packet arrived at the interface.
    Receive,
    /// Given to an agent of the node.
    Deliver,
    /// Forwarded by a router.
    Forward,
    /// Discarded.
    Drop(DropReason),
    /// A notification delivered to the node's agents.
    Notify,
    /// A remark of an agent ([`crate::Ctx::trace`]).
    Agent(&'static str),
}

impl TraceKind {
    fn label(&self) -> String {
        match self {
            TraceKind::Drop(r) => format!("drop:{r:?}"),
            TraceKind::Agent(l) => format!("agent:{l}"),
            other => format!("{other:?}").to_lowercase(),
        }
    }
}

/// One trace record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TraceRecord {
    pub time_ns: u64,
    pub node: NodeId,
    pub iface: Option<IfaceId>,
    pub kind: TraceKind,
    pub uid: u64,
    pub len: usize,
    pub src: Option<IpAddr>,
    pub dst: Option<IpAddr>,
    pub protocol: Option<u8>,
    pub detail: String,
}

/// Which categories are traced and how many records are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceConfig {
    /// Send, TxStart, Receive, Deliver, Forward.
    pub packets: bool,
    pub drops: bool,
    pub notifications: bool,
    pub agents: bool,
    /// Each transmit queue's length after every change
    /// ([`Tracer::queue_records`]).
    pub queues: bool,
    pub max_records: usize,
}

impl Default for TraceConfig {
    fn default() -> Self {
        TraceConfig {
            packets: false,
            drops: false,
            notifications: false,
            agents: false,
            queues: false,
            max_records: 1_000_000,
        }
    }
}

impl TraceConfig {
    /// Everything on, with the default bound.
    pub fn all() -> Self {
        TraceConfig {
            packets: true,
            drops: true,
            notifications: true,
            agents: true,
            queues: true,
            ..Default::default()
        }
    }
}

/// A transmit queue's length after a change: the queue of the interface
/// `iface` of `node` (a link direction, a station's, an access point's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueRecord {
    pub time: Time,
    pub node: NodeId,
    pub iface: IfaceId,
    pub packets: u32,
}

/// The trace buffer.
#[derive(Debug, Clone, Default)]
pub struct Tracer {
    cfg: TraceConfig,
    records: Vec<TraceRecord>,
    queue_records: Vec<QueueRecord>,
    overflow: u64,
}

impl Tracer {
    pub fn new(cfg: TraceConfig) -> Self {
        Tracer {
            cfg,
            records: Vec::new(),
            queue_records: Vec::new(),
            overflow: 0,
        }
    }

    pub fn config(&self) -> &TraceConfig {
        &self.cfg
    }

    pub fn set_config(&mut self, cfg: TraceConfig) {
        self.cfg = cfg;
    }

    fn push(&mut self, r: TraceRecord) {
        if self.records.len() < self.cfg.max_records {
            self.records.push(r);
        } else {
            self.overflow += 1;
        }
    }

    /// Is `kind` traced? Checked inline at every packet event (tracing
    /// is off in most runs); the record itself is built out of line.
    #[inline]
    fn traces(&self, kind: TraceKind) -> bool {
        match kind {
            TraceKind::Drop(_) => self.cfg.drops,
            TraceKind::Notify => self.cfg.notifications,
            TraceKind::Agent(_) => self.cfg.agents,
            _ => self.cfg.packets,
        }
    }

    #[inline]
    pub(crate) fn packet(
        &mut self,
        now: Time,
        node: NodeId,
        iface: Option<IfaceId>,
        kind: TraceKind,
        pkt: &IpPacket,
    ) {
        if self.traces(kind) {
            self.record_packet(now, node, iface, kind, pkt);
        }
    }

    #[cold]
    #[inline(never)]
    fn record_packet(
        &mut self,
        now: Time,
        node: NodeId,
        iface: Option<IfaceId>,
        kind: TraceKind,
        pkt: &IpPacket,
    ) {
        self.push(TraceRecord {
            time_ns: now.as_nanos(),
            node,
            iface,
            kind,
            uid: pkt.uid(),
            len: pkt.len(),
            src: Some(pkt.src()),
            dst: Some(pkt.dst()),
            protocol: Some(pkt.protocol()),
            detail: String::new(),
        });
    }

    #[inline]
    pub(crate) fn note(
        &mut self,
        now: Time,
        node: NodeId,
        kind: TraceKind,
        detail: impl FnOnce() -> String,
    ) {
        if self.traces(kind) {
            self.push(TraceRecord {
                time_ns: now.as_nanos(),
                node,
                iface: None,
                kind,
                uid: 0,
                len: 0,
                src: None,
                dst: None,
                protocol: None,
                detail: detail(),
            });
        }
    }

    pub fn records(&self) -> &[TraceRecord] {
        &self.records
    }

    /// A queue changed length (when `queues` is on; bounded by
    /// `max_records`, the rest counted in [`Tracer::overflow`]).
    #[inline]
    pub(crate) fn queue(&mut self, now: Time, node: NodeId, iface: IfaceId, packets: usize) {
        if self.cfg.queues {
            if self.queue_records.len() < self.cfg.max_records {
                self.queue_records.push(QueueRecord {
                    time: now,
                    node,
                    iface,
                    packets: packets as u32,
                });
            } else {
                self.overflow += 1;
            }
        }
    }

    /// The queue lengths traced, in time order.
    pub fn queue_records(&self) -> &[QueueRecord] {
        &self.queue_records
    }

    /// Records not kept because of `max_records`.
    pub fn overflow(&self) -> u64 {
        self.overflow
    }

    /// Writes the records as CSV (RFC 4180 quoting) with a header line;
    /// nodes are written by name (`node_names[id]`).
    pub fn write_csv(&self, node_names: &[String], out: &mut impl Write) -> io::Result<()> {
        writeln!(
            out,
            "time_ns,node,iface,kind,uid,len,src,dst,protocol,detail"
        )?;
        for r in &self.records {
            let name = node_names.get(r.node.index()).map_or("?", String::as_str);
            let opt = |a: Option<IpAddr>| a.map(|a| a.to_string()).unwrap_or_default();
            writeln!(
                out,
                "{},{},{},{},{},{},{},{},{},{}",
                r.time_ns,
                csv_field(name),
                r.iface.map(|i| i.0.to_string()).unwrap_or_default(),
                csv_field(&r.kind.label()),
                r.uid,
                r.len,
                opt(r.src),
                opt(r.dst),
                r.protocol.map(|p| p.to_string()).unwrap_or_default(),
                csv_field(&r.detail),
            )?;
        }
        Ok(())
    }
}

/// Quotes a CSV field when it holds a comma, quote or line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quoting_and_bound() {
        let mut t = Tracer::new(TraceConfig {
            max_records: 2,
            ..TraceConfig::all()
        });
        t.note(
            Time::from_nanos(5),
            NodeId(0),
            TraceKind::Agent("x"),
            || "a,\"b\"".into(),
        );
        let p = IpPacket::build(
            "10.0.0.1".parse().unwrap(),
            "10.0.0.2".parse().unwrap(),
            17,
            3,
            &[],
        )
        .unwrap();
        t.packet(
            Time::from_nanos(6),
            NodeId(1),
            Some(IfaceId(2)),
            TraceKind::Drop(DropReason::NoRoute),
            &p,
        );
        t.note(
            Time::from_nanos(7),
            NodeId(0),
            TraceKind::Notify,
            String::new,
        );
        assert_eq!(t.overflow(), 1);
        let mut out = Vec::new();
        t.write_csv(&["h1".into(), "r1".into()], &mut out).unwrap();
        let s = String::from_utf8(out).unwrap();
        let lines: Vec<_> = s.lines().collect();
        assert_eq!(lines[1], "5,h1,,agent:x,0,0,,,,\"a,\"\"b\"\"\"");
        assert_eq!(lines[2], "6,r1,2,drop:NoRoute,0,20,10.0.0.1,10.0.0.2,17,");
    }

    #[test]
    fn categories_off_by_default() {
        let mut t = Tracer::new(TraceConfig::default());
        t.note(Time::ZERO, NodeId(0), TraceKind::Agent("x"), || {
            unreachable!("not formatted when off")
        });
        assert!(t.records().is_empty());
    }
}
