//! The flow observer: an interceptor agent on a flow's node that reads the
//! flow's packets without changing them (the transports and mobility
//! models are not touched for the measures), and records what the run
//! summary needs but the transport's receiver cannot see:
//!
//! - which network path a data packet took: the cell the node's interface
//!   was attached to when it sent the packet (uplink, matched at the fixed
//!   receiver by data number) or received it (SCTP over Mobile IP
//!   downlink). Under Mobile IP the transport sees the home address on
//!   both sides of a handover, so its own records cannot tell the paths
//!   apart;
//! - the interfaces' attachments over time (cells joined and left), so
//!   that an arrival recorded with its interface can be given its cell;
//! - the uids of the data packets it sends (lost data packets are the
//!   drops of these uids);
//! - the bits of ADD-IP signalling: ASCONF and ASCONF-ACK chunks sent, and
//!   the AUTH chunks bundled with them (RFC 5061, RFC 4895);
//! - optionally, it refuses a packet whose source address the node no
//!   longer holds (a host does not send from an address it lost), counting
//!   it, as the SCTP agent does for its own packets.
//!
//! Data numbers are those of the flow's records
//! ([`crate::measure::Arrival::seq`]): TCP byte offset from the first data
//! byte, SCTP TSN counted from the Initial TSN of the sender's INIT or
//! INIT ACK, the stamp sequence number of a UDP datagram. Records are
//! bounded; records beyond the bound are counted.

use std::collections::BTreeMap;

use smallvec::SmallVec;

use msctp_proto::wire::Packet;
use msctp_proto::wire::chunk::chunk_type;

use crate::Time;
use crate::kernel::ids::{CellId, IfaceId};
use crate::kernel::ip::{IpPacket, proto};
use crate::kernel::node::Attachment;
use crate::kernel::notification::Notification;
use crate::kernel::udp::UDP_HEADER_LEN;
use crate::kernel::{Agent, Ctx, PacketOrigin};
use crate::models::app::Stamp;
use crate::models::sctp::observe::TsnNumbering;
use crate::models::tcp::peek_header;
use crate::models::tcp::seqspace::unwrap_offset;

/// Path id of a packet whose cell is unknown (the interface is attached
/// to no cell the scenario numbers).
pub(crate) const NO_PATH: u32 = u32::MAX;

/// What to look at for one flow on this node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Watch {
    /// IP protocol of the flow (6, 17, 132).
    pub protocol: u8,
    /// This node's port and the other end's.
    pub local_port: u16,
    pub remote_port: u16,
    /// Record (time, data number, path) of every data packet sent.
    pub sends: bool,
    /// Record (time, data number, path) of every SCTP data packet
    /// received.
    pub receives: bool,
    /// Record the uid of every data packet sent.
    pub uids: bool,
    /// Take (and count) packets from an address the node does not hold.
    pub refuse_unowned: bool,
    /// Count ASCONF / ASCONF-ACK / AUTH bits sent.
    pub asconf: bool,
}

/// One data packet on a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PathRecord {
    pub time: Time,
    pub seq: u64,
    pub path: u32,
}

/// ADD-IP signalling sent (chunk lengths without padding).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct AsconfCount {
    pub asconf_chunks: u64,
    pub asconf_bytes: u64,
    pub ack_chunks: u64,
    pub ack_bytes: u64,
    /// AUTH chunks in packets that carry an ASCONF or ASCONF-ACK.
    pub auth_bytes: u64,
}

/// What was recorded for one watch.
#[derive(Debug, Clone, Default)]
pub(crate) struct WatchRecords {
    pub sends: Vec<PathRecord>,
    pub receives: Vec<PathRecord>,
    pub uids: Vec<u64>,
    pub records_dropped: u64,
    pub uids_dropped: u64,
    /// Packets refused for an unowned source address.
    pub refused: u64,
    pub asconf: AsconfCount,
    tcp_iss: Option<u32>,
    tcp_high: u64,
    tsn_out: TsnNumbering,
    tsn_in: TsnNumbering,
}

/// The observer agent of one node.
#[derive(Debug)]
pub(crate) struct FlowObserver {
    watches: Vec<(Watch, WatchRecords)>,
    /// (protocol, local port, remote port) to the first watch of those
    /// ports, and to the first of them that records receives (a node
    /// serving many flows finds a packet's watch without a scan).
    by_ports: BTreeMap<(u8, u16, u16), usize>,
    receiving_by_ports: BTreeMap<(u8, u16, u16), usize>,
    /// Path id of each cell the scenario numbers for this node.
    paths: BTreeMap<CellId, u32>,
    /// (time, interface, cell attached or `None`), in time order.
    attachments: Vec<(Time, IfaceId, Option<CellId>)>,
    limit: usize,
    uid_limit: usize,
    attachments_dropped: u64,
}

/// Data numbers of one packet: on the stack for the usual few (a bulk
/// packet carries one DATA chunk; the observer runs for every packet).
type Seqs = SmallVec<[u64; 8]>;

/// Offset of the Initial TSN in an INIT / INIT ACK chunk value (initiate
/// tag, a_rwnd, OS, MIS: RFC 9260 section 3.3.2).
const INIT_TSN_OFFSET: usize = 12;

impl FlowObserver {
    pub(crate) fn new(paths: BTreeMap<CellId, u32>, limit: usize, uid_limit: usize) -> Self {
        FlowObserver {
            watches: Vec::new(),
            by_ports: BTreeMap::new(),
            receiving_by_ports: BTreeMap::new(),
            paths,
            attachments: Vec::new(),
            limit,
            uid_limit,
            attachments_dropped: 0,
        }
    }

    /// Adds a watch; returns its index.
    pub(crate) fn watch(&mut self, w: Watch) -> usize {
        let i = self.watches.len();
        let ports = (w.protocol, w.local_port, w.remote_port);
        self.by_ports.entry(ports).or_insert(i);
        if w.receives {
            self.receiving_by_ports.entry(ports).or_insert(i);
        }
        self.watches.push((w, WatchRecords::default()));
        i
    }

    pub(crate) fn records(&self, i: usize) -> Option<&WatchRecords> {
        self.watches.get(i).map(|(_, r)| r)
    }

    pub(crate) fn attachments(&self) -> &[(Time, IfaceId, Option<CellId>)] {
        &self.attachments
    }

    /// Attachment changes beyond the bound (not recorded).
    pub(crate) fn attachments_dropped(&self) -> u64 {
        self.attachments_dropped
    }

    /// The path of a cell (`NO_PATH` if not numbered).
    pub(crate) fn path_of(&self, cell: Option<CellId>) -> u32 {
        cell.and_then(|c| self.paths.get(&c).copied())
            .unwrap_or(NO_PATH)
    }

    /// The cell `iface` was attached to at `t` (the latest change at or
    /// before `t`).
    pub(crate) fn cell_at(&self, iface: IfaceId, t: Time) -> Option<CellId> {
        let end = self.attachments.partition_point(|(at, _, _)| *at <= t);
        self.attachments[..end]
            .iter()
            .rev()
            .find(|(_, i, _)| *i == iface)
            .and_then(|(_, _, c)| *c)
    }

    fn note_attachment(&mut self, t: Time, iface: IfaceId, cell: Option<CellId>) {
        if self.attachments.len() < self.limit {
            self.attachments.push((t, iface, cell));
        } else {
            self.attachments_dropped += 1;
        }
    }

    fn iface_path(&self, ctx: &Ctx<'_>, iface: Option<IfaceId>) -> u32 {
        let cell = iface
            .and_then(|i| ctx.node().iface(i))
            .and_then(|i| match i.attachment() {
                Attachment::CellStation { cell, .. } => Some(cell),
                _ => None,
            });
        self.path_of(cell)
    }

    fn on_local(&mut self, ctx: &mut Ctx<'_>, pkt: IpPacket) -> Option<IpPacket> {
        let p = pkt.protocol();
        let Some(ports) = ports(p, pkt.payload()) else {
            return Some(pkt);
        };
        let Some(&k) = self.by_ports.get(&(p, ports.0, ports.1)) else {
            return Some(pkt);
        };
        let w = self.watches[k].0;
        let src = pkt.src();
        if w.refuse_unowned && !ctx.node().owns(src) {
            self.watches[k].1.refused += 1;
            return None;
        }
        let now = ctx.now();
        // The path is looked up only for the records that need it (an
        // mSCTP flow's observer counts ASCONF bits only).
        let path = if w.sends {
            self.iface_path(ctx, ctx.node().iface_of_addr(src))
        } else {
            NO_PATH
        };
        let (limit, uid_limit) = (self.limit, self.uid_limit);
        let r = &mut self.watches[k].1;
        let mut seqs = Seqs::new();
        match p {
            proto::TCP => {
                if let Some(h) = peek_header(pkt.payload()) {
                    if h.syn {
                        r.tcp_iss = Some(h.seq);
                    } else if h.payload_len > 0
                        && let Some(iss) = r.tcp_iss
                    {
                        let off = unwrap_offset(h.seq, iss.wrapping_add(1), r.tcp_high);
                        r.tcp_high = r.tcp_high.max(off + h.payload_len as u64);
                        seqs.push(off);
                    }
                }
            }
            proto::UDP => {
                if let Some(s) = pkt.payload().get(UDP_HEADER_LEN..).and_then(Stamp::read) {
                    seqs.push(s.seq);
                }
            }
            proto::SCTP => {
                let bytes = pkt.payload();
                if w.asconf {
                    count_asconf(bytes, &mut r.asconf);
                }
                if w.sends || w.uids {
                    sctp_init_origin(bytes, &mut r.tsn_out);
                    for_each_tsn(bytes, |tsn| {
                        if r.tsn_out.has_origin() {
                            seqs.push(r.tsn_out.seq(tsn));
                        }
                    });
                }
            }
            _ => {}
        }
        if !seqs.is_empty() {
            if w.uids {
                if r.uids.len() < uid_limit {
                    r.uids.push(pkt.uid());
                } else {
                    r.uids_dropped += 1;
                }
            }
            if w.sends {
                for seq in seqs {
                    if r.sends.len() < limit {
                        r.sends.push(PathRecord {
                            time: now,
                            seq,
                            path,
                        });
                    } else {
                        r.records_dropped += 1;
                    }
                }
            }
        }
        Some(pkt)
    }

    fn on_received(&mut self, ctx: &mut Ctx<'_>, pkt: &IpPacket, iface: IfaceId) {
        let p = pkt.protocol();
        if p != proto::SCTP {
            return;
        }
        let Some((src_port, dst_port)) = ports(p, pkt.payload()) else {
            return;
        };
        // Received: our port is the destination.
        let Some(&k) = self.receiving_by_ports.get(&(p, dst_port, src_port)) else {
            return;
        };
        let now = ctx.now();
        let path = self.iface_path(ctx, Some(iface));
        let limit = self.limit;
        let r = &mut self.watches[k].1;
        let bytes = pkt.payload();
        sctp_init_origin(bytes, &mut r.tsn_in);
        let mut seqs = Seqs::new();
        for_each_tsn(bytes, |tsn| {
            if r.tsn_in.has_origin() {
                seqs.push(r.tsn_in.seq(tsn));
            }
        });
        for seq in seqs {
            if r.receives.len() < limit {
                r.receives.push(PathRecord {
                    time: now,
                    seq,
                    path,
                });
            } else {
                r.records_dropped += 1;
            }
        }
    }
}

/// Source and destination ports of a TCP, UDP or SCTP header.
fn ports(protocol: u8, payload: &[u8]) -> Option<(u16, u16)> {
    if !matches!(protocol, proto::TCP | proto::UDP | proto::SCTP) {
        return None;
    }
    let b = payload.get(..4)?;
    Some((
        u16::from_be_bytes([b[0], b[1]]),
        u16::from_be_bytes([b[2], b[3]]),
    ))
}

/// Sets the numbering origin from an INIT or INIT ACK chunk (the sender's
/// Initial TSN), if the packet carries one.
fn sctp_init_origin(sctp: &[u8], n: &mut TsnNumbering) {
    if n.has_origin() {
        return;
    }
    let Ok(p) = Packet::new_checked(sctp) else {
        return;
    };
    for item in p.chunks() {
        let Ok((_, c)) = item else { return };
        if matches!(c.chunk_type(), chunk_type::INIT | chunk_type::INIT_ACK)
            && let Some(b) = c.value().get(INIT_TSN_OFFSET..INIT_TSN_OFFSET + 4)
        {
            n.set_origin(u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
            return;
        }
    }
}

fn for_each_tsn(sctp: &[u8], mut f: impl FnMut(u32)) {
    crate::models::sctp::observe::for_each_data(sctp, |tsn, _| f(tsn));
}

/// Adds the ASCONF, ASCONF-ACK and bundled AUTH chunks of a packet.
fn count_asconf(sctp: &[u8], c: &mut AsconfCount) {
    let Ok(p) = Packet::new_checked(sctp) else {
        return;
    };
    let mut auth = 0u64;
    let mut signalling = false;
    for item in p.chunks() {
        let Ok((_, ch)) = item else { break };
        let len = u64::from(ch.length());
        match ch.chunk_type() {
            chunk_type::ASCONF => {
                c.asconf_chunks += 1;
                c.asconf_bytes += len;
                signalling = true;
            }
            chunk_type::ASCONF_ACK => {
                c.ack_chunks += 1;
                c.ack_bytes += len;
                signalling = true;
            }
            chunk_type::AUTH => auth += len,
            _ => {}
        }
    }
    if signalling {
        c.auth_bytes += auth;
    }
}

impl Agent for FlowObserver {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        ctx.set_interceptor(true);
        let now = ctx.now();
        let current: Vec<(IfaceId, Option<CellId>)> = ctx
            .node()
            .ifaces()
            .iter()
            .map(|i| {
                let cell = match i.attachment() {
                    Attachment::CellStation { cell, .. } => Some(cell),
                    _ => None,
                };
                (i.id(), cell)
            })
            .collect();
        for (i, c) in current {
            self.note_attachment(now, i, c);
        }
    }

    fn on_intercept(
        &mut self,
        ctx: &mut Ctx<'_>,
        pkt: IpPacket,
        origin: &PacketOrigin,
    ) -> Option<IpPacket> {
        match *origin {
            PacketOrigin::Local { .. } => self.on_local(ctx, pkt),
            PacketOrigin::Received { iface } => {
                self.on_received(ctx, &pkt, iface);
                Some(pkt)
            }
        }
    }

    fn on_notify(&mut self, ctx: &mut Ctx<'_>, n: &Notification) {
        let now = ctx.now();
        match n {
            Notification::LinkUp { iface, cell } => self.note_attachment(now, *iface, *cell),
            Notification::LinkDown { iface, .. } => self.note_attachment(now, *iface, None),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use msctp_proto::wire::{
        AsconfAckChunk, AsconfChunk, Chunk, CommonHeader, DataChunk, PacketRepr,
    };

    fn packet(chunks: Vec<Chunk>) -> Vec<u8> {
        PacketRepr {
            header: CommonHeader {
                src_port: 1,
                dst_port: 2,
                verification_tag: 3,
            },
            chunks,
        }
        .emit()
    }

    #[test]
    fn the_cell_of_an_interface_follows_its_attachments() {
        let (a, b) = (CellId(0), CellId(1));
        let mut o = FlowObserver::new(BTreeMap::from([(a, 0), (b, 1)]), 10, 10);
        let i = IfaceId(2);
        o.note_attachment(Time::ZERO, i, Some(a));
        o.note_attachment(Time::from_secs(5), IfaceId(3), Some(b));
        o.note_attachment(Time::from_secs(10), i, None);
        o.note_attachment(Time::from_secs(11), i, Some(b));
        assert_eq!(o.cell_at(i, Time::from_secs(3)), Some(a));
        assert_eq!(o.cell_at(i, Time::from_secs(10)), None);
        assert_eq!(o.cell_at(i, Time::from_secs(12)), Some(b));
        assert_eq!(o.path_of(o.cell_at(i, Time::from_secs(12))), 1);
        assert_eq!(o.path_of(Some(CellId(9))), NO_PATH);
        assert_eq!(o.path_of(None), NO_PATH);
        // Bounded: changes beyond the limit are counted, not kept.
        for k in 0..20 {
            o.note_attachment(Time::from_secs(20 + k), i, Some(a));
        }
        assert_eq!(o.attachments().len(), 10);
        assert_eq!(o.attachments_dropped(), 14);
    }

    #[test]
    fn asconf_bits_are_counted_and_garbage_is_harmless() {
        let asconf = Chunk::Asconf(AsconfChunk {
            serial: 7,
            address: "10.0.0.1".parse().unwrap(),
            params: Vec::new(),
        });
        let ack = Chunk::AsconfAck(AsconfAckChunk {
            serial: 7,
            params: Vec::new(),
        });
        let data = Chunk::Data(DataChunk {
            tsn: 1,
            stream_id: 0,
            ssn: 0,
            ppid: 0,
            unordered: false,
            begin: true,
            end: true,
            immediate: false,
            payload: Bytes::from_static(&[0; 10]),
        });
        let mut c = AsconfCount::default();
        count_asconf(&packet(vec![asconf, data.clone()]), &mut c);
        count_asconf(&packet(vec![ack]), &mut c);
        count_asconf(&packet(vec![data]), &mut c);
        // ASCONF: header 4 + serial 4 + IPv4 address parameter 8.
        assert_eq!((c.asconf_chunks, c.asconf_bytes), (1, 16));
        // ASCONF-ACK: header 4 + serial 4 (the paper's 64 bits).
        assert_eq!((c.ack_chunks, c.ack_bytes), (1, 8));
        let p = packet(vec![]);
        for cut in 0..p.len() {
            count_asconf(&p[..cut], &mut c);
            let mut n = TsnNumbering::default();
            sctp_init_origin(&p[..cut], &mut n);
        }
        assert_eq!(ports(proto::TCP, &[1, 2, 3]), None);
        assert_eq!(ports(1, &[0; 8]), None);
    }
}
