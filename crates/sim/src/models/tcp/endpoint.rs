//! One TCP connection ([`msctp_tcp::TcpConnection`], RFC 9293 / 5681 /
//! 6582 / 6298) driven from inside a simulator agent: received packets in,
//! segments out as real IPv4/IPv6 packets (protocol 6), the connection's
//! timer, and the flow records of docs/MODELS.md section 5 (data arrivals with
//! their sequence number and whether they were new, deliveries to the
//! application, retransmissions, duplicate ACKs sent as reordering
//! signals).
//!
//! The endpoint is not an agent itself: [`super::TcpAgent`], the
//! single-connection handoff scheme and the multi-connection transport each
//! own one or several and call [`TcpEndpoint::on_packet`],
//! [`TcpEndpoint::on_timer`] and [`TcpEndpoint::flush`] from their own
//! callbacks.

use std::net::IpAddr;

use msctp_tcp::{CloseReason, TcpConnection, TcpError, TcpEvent, TcpState, TcpStats};

use super::seqspace::{ReceivedRanges, unwrap_offset};
use crate::Time;
use crate::kernel::ip::{IpPacket, proto};
use crate::kernel::{Ctx, RxInfo};
use crate::measure::flow_log::SharedFlowLog;
use crate::measure::{PathId, ReorderKind};

/// The fields of a TCP header the records need, read without verifying
/// the checksum (the connection does that).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderPeek {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub syn: bool,
    pub fin: bool,
    pub rst: bool,
    pub payload_len: usize,
}

/// Reads ports, sequence number, SYN/FIN/RST and the payload length of the
/// TCP segment in `bytes`; `None` if it is not a plausible header.
pub fn peek_header(bytes: &[u8]) -> Option<HeaderPeek> {
    if bytes.len() < 20 {
        return None;
    }
    let doff = usize::from(bytes[12] >> 4) * 4;
    if doff < 20 || doff > bytes.len() {
        return None;
    }
    let flags = bytes[13];
    Some(HeaderPeek {
        src_port: u16::from_be_bytes([bytes[0], bytes[1]]),
        dst_port: u16::from_be_bytes([bytes[2], bytes[3]]),
        seq: u32::from_be_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]),
        fin: flags & 0x01 != 0,
        syn: flags & 0x02 != 0,
        rst: flags & 0x04 != 0,
        payload_len: bytes.len() - doff,
    })
}

/// How arrivals and retransmissions name their path
/// ([`crate::measure::PathId`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PathTagging {
    /// The node's interface index: the one a segment arrived on (receiver)
    /// or left by (sender, from its source address).
    #[default]
    Interface,
    /// Always this path (a single-homed end that cannot tell).
    Fixed(u32),
}

/// One TCP connection inside an agent, with its records.
#[derive(Debug)]
pub struct TcpEndpoint {
    conn: TcpConnection,
    ttl: u8,
    log: Option<SharedFlowLog>,
    tagging: PathTagging,
    /// Our initial sequence number, once our SYN was sent.
    iss: Option<u32>,
    /// End (offset) of the highest data sent so far.
    snd_high: u64,
    /// The peer's initial sequence number, once its SYN arrived.
    irs: Option<u32>,
    received: ReceivedRanges,
    /// `dup_acks_sent` of the connection when last looked at.
    dup_acks_seen: u64,
    /// A segment arrived out of order or duplicate since the last flush.
    check_dup_acks: bool,
    /// Bytes read by the application.
    delivered: u64,
    /// Read and count received bytes in [`Self::flush`] (a plain sink).
    auto_read: bool,
    connected_at: Option<Time>,
    closed: Option<(Time, CloseReason)>,
    peer_finished_at: Option<Time>,
    /// Packets the IP layer refused (backlog bound).
    send_errors: u64,
    /// Segments the connection rejected (not for it, malformed).
    rejected: u64,
    /// Read buffer (allocated once).
    scratch: Vec<u8>,
    /// While set, what the connection sends is dropped with this reason
    /// instead of sent (the single-connection scheme's TCB update).
    dropping: Option<&'static str>,
}

impl TcpEndpoint {
    /// Wraps a connection (from [`TcpConnection::connect`] or a
    /// [`msctp_tcp::TcpListener`]). Simulated links lose packets but never
    /// change their bytes, and no node rewrites addresses (tunnels wrap
    /// the packet as it is): the checksum of every segment that reaches the
    /// connection for its own addresses is correct, so its verification is
    /// left to the "network card" (receive checksum offload,
    /// [`TcpConnection::set_checksum_offload`]); segments sent still carry
    /// their checksum (listeners and captures read it).
    pub fn new(mut conn: TcpConnection, ttl: u8, log: Option<SharedFlowLog>) -> Self {
        conn.set_checksum_offload(true);
        TcpEndpoint {
            conn,
            ttl,
            log,
            tagging: PathTagging::Interface,
            iss: None,
            snd_high: 0,
            irs: None,
            received: ReceivedRanges::new(4096),
            dup_acks_seen: 0,
            check_dup_acks: false,
            delivered: 0,
            auto_read: true,
            connected_at: None,
            closed: None,
            peer_finished_at: None,
            send_errors: 0,
            dropping: None,
            rejected: 0,
            scratch: Vec::new(),
        }
    }

    /// The peer's SYN was seen by someone else (a listener) with this
    /// sequence number: its initial sequence number.
    pub fn on_syn_seen(&mut self, seq: u32) {
        self.irs = Some(seq);
    }

    /// How records name paths.
    pub fn with_tagging(mut self, tagging: PathTagging) -> Self {
        self.tagging = tagging;
        self
    }

    /// Whether [`Self::flush`] reads and discards received data itself
    /// (default); an owner that parses the stream turns it off and calls
    /// [`Self::read_into`].
    pub fn set_auto_read(&mut self, on: bool) {
        self.auto_read = on;
    }

    pub fn connection(&self) -> &TcpConnection {
        &self.conn
    }

    /// The connection, for the handoff hooks (freeze, set addresses, set
    /// cwnd, ...).
    pub fn connection_mut(&mut self) -> &mut TcpConnection {
        &mut self.conn
    }

    pub fn stats(&self) -> TcpStats {
        self.conn.stats()
    }

    pub fn state(&self) -> TcpState {
        self.conn.state()
    }

    /// Application bytes read from the connection so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    pub fn connected_at(&self) -> Option<Time> {
        self.connected_at
    }

    pub fn closed(&self) -> Option<(Time, CloseReason)> {
        self.closed
    }

    /// When the peer's FIN was read (all its data delivered).
    pub fn peer_finished_at(&self) -> Option<Time> {
        self.peer_finished_at
    }

    pub fn send_errors(&self) -> u64 {
        self.send_errors
    }

    pub fn rejected_segments(&self) -> u64 {
        self.rejected
    }

    /// True if a TCP packet from `src` to `dst` with header `h` belongs to
    /// this connection: both addresses and both ports match.
    pub fn matches(&self, src: IpAddr, dst: IpAddr, h: &HeaderPeek) -> bool {
        let l = self.conn.local_addr();
        let r = self.conn.remote_addr();
        h.dst_port == l.port() && h.src_port == r.port() && src == r.ip() && dst == l.ip()
    }

    /// Queues `n` bytes of application data (zeros: the payload content
    /// does not matter to any measure); returns how many fit. Nothing to
    /// write is no write (not an error on a closed connection).
    pub fn write_zeros(&mut self, n: usize) -> Result<usize, TcpError> {
        if n == 0 {
            return Ok(0);
        }
        self.conn.write_zeros(n)
    }

    /// Queues application bytes; returns how many fit.
    pub fn write(&mut self, data: &[u8]) -> Result<usize, TcpError> {
        self.conn.write(data)
    }

    /// Bytes the application may still write.
    pub fn send_capacity(&self) -> usize {
        self.conn.send_capacity()
    }

    /// A TCP packet for this connection arrived: records the data arrival
    /// and hands the segment to the connection. Call [`Self::flush`]
    /// afterwards.
    pub fn on_packet(&mut self, now: Time, pkt: &IpPacket, rx: &RxInfo) {
        let bytes = pkt.payload();
        if let Some(h) = peek_header(bytes) {
            if h.syn && !h.rst {
                self.irs = Some(h.seq);
            }
            if h.payload_len > 0
                && let Some(irs) = self.irs
            {
                let base = irs.wrapping_add(1);
                let before = self.received.cumulative();
                let off = unwrap_offset(h.seq, base, before);
                let len = h.payload_len as u64;
                let new = self.received.insert(off, off + len);
                if off != before || !new {
                    self.check_dup_acks = true;
                }
                if let Some(log) = &self.log {
                    let path = match self.tagging {
                        PathTagging::Interface => rx.iface.map_or(u32::MAX, |i| i.0),
                        PathTagging::Fixed(p) => p,
                    };
                    log.borrow_mut()
                        .arrival(now, PathId(path), off, h.payload_len as u32, new);
                }
            }
        }
        if self
            .conn
            .handle_segment(now, pkt.src(), pkt.dst(), bytes)
            .is_err()
        {
            self.rejected += 1;
        }
    }

    /// Runs the connection's timers if due.
    pub fn on_timer(&mut self, now: Time) {
        if self.conn.poll_timeout().is_some_and(|t| t <= now) {
            self.conn.handle_timeout(now);
        }
    }

    /// Drops what the connection sends, with `reason`, until called with
    /// `None`.
    pub fn set_dropping(&mut self, reason: Option<&'static str>) {
        self.dropping = reason;
    }

    /// The connection's next deadline.
    pub fn deadline(&self) -> Option<Time> {
        self.conn.poll_timeout()
    }

    /// Reads every readable byte, appending it to `out` if given; returns
    /// how many and records the delivery.
    pub fn read_into(&mut self, now: Time, mut out: Option<&mut Vec<u8>>) -> u64 {
        if self.scratch.is_empty() {
            self.scratch = vec![0; 16 * 1024];
        }
        let mut total = 0u64;
        loop {
            let n = self.conn.read(&mut self.scratch);
            if n == 0 {
                break;
            }
            if let Some(o) = out.as_deref_mut() {
                o.extend_from_slice(&self.scratch[..n]);
            }
            total += n as u64;
        }
        if total > 0 {
            self.delivered += total;
            if let Some(log) = &self.log {
                log.borrow_mut().delivered(now, total);
            }
        }
        total
    }

    /// Reads (if auto-reading), handles the connection's events and sends
    /// everything it has to send.
    pub fn flush(&mut self, ctx: &mut Ctx<'_>) {
        let now = ctx.now();
        if self.auto_read {
            self.read_into(now, None);
        }
        self.drain_events(now);
        while let Some(seg) = self.conn.poll_transmit(now) {
            self.note_outgoing(ctx, &seg.bytes, seg.src_ip);
            match IpPacket::build(seg.src_ip, seg.dst_ip, proto::TCP, self.ttl, &seg.bytes) {
                Ok(pkt) if self.dropping.is_some() => {
                    ctx.drop_packet(pkt, self.dropping.unwrap_or_default());
                }
                Ok(pkt) => {
                    if ctx.send(pkt).is_err() {
                        self.send_errors += 1;
                    }
                }
                Err(_) => self.send_errors += 1,
            }
        }
        if self.check_dup_acks {
            self.check_dup_acks = false;
            let sent = self.conn.stats().dup_acks_sent;
            if sent > self.dup_acks_seen {
                if let Some(log) = &self.log {
                    let mut l = log.borrow_mut();
                    for _ in self.dup_acks_seen..sent {
                        l.reorder_signal(now, ReorderKind::DuplicateAck);
                    }
                }
                self.dup_acks_seen = sent;
            }
        }
        self.drain_events(now);
    }

    fn drain_events(&mut self, now: Time) {
        while let Some(ev) = self.conn.poll_event() {
            match ev {
                TcpEvent::Connected => {
                    self.connected_at.get_or_insert(now);
                }
                TcpEvent::Closed(r) => {
                    self.closed.get_or_insert((now, r));
                }
                TcpEvent::PeerFinished => {
                    if self.auto_read {
                        self.read_into(now, None);
                    }
                    if self.peer_finished_at.is_none() {
                        self.peer_finished_at = Some(now);
                        if let Some(log) = &self.log {
                            log.borrow_mut().completed_at.get_or_insert(now);
                        }
                    }
                }
                TcpEvent::Readable | TcpEvent::Writable | TcpEvent::RttSample { .. } => {}
            }
        }
    }

    /// Sender-side records of an outgoing segment: our ISS from our SYN,
    /// and retransmissions (data starting below the highest sent).
    fn note_outgoing(&mut self, ctx: &mut Ctx<'_>, bytes: &[u8], src: IpAddr) {
        let Some(h) = peek_header(bytes) else {
            return;
        };
        if h.syn {
            self.iss = Some(h.seq);
            return;
        }
        let Some(iss) = self.iss else {
            return;
        };
        if h.payload_len == 0 {
            return;
        }
        let off = unwrap_offset(h.seq, iss.wrapping_add(1), self.snd_high);
        let end = off + h.payload_len as u64;
        if off < self.snd_high
            && let Some(log) = &self.log
        {
            let fast = self.conn.stats().in_recovery;
            let path = match self.tagging {
                PathTagging::Interface => ctx.node().iface_of_addr(src).map_or(u32::MAX, |i| i.0),
                PathTagging::Fixed(p) => p,
            };
            log.borrow_mut()
                .retransmitted(ctx.now(), off, PathId(path), fast);
        }
        self.snd_high = self.snd_high.max(end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peek_reads_a_real_header_and_refuses_junk() {
        let h = msctp_tcp::wire::SegmentHeader {
            src_port: 1,
            dst_port: 2,
            seq: msctp_tcp::SeqNum(77),
            flags: msctp_tcp::wire::Flags {
                syn: true,
                ack: true,
                ..Default::default()
            },
            ..Default::default()
        };
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let bytes = msctp_tcp::wire::emit(&h, b"abc", a, b).unwrap();
        let p = peek_header(&bytes).unwrap();
        assert_eq!((p.src_port, p.dst_port, p.seq), (1, 2, 77));
        assert!(p.syn && !p.fin && !p.rst);
        assert_eq!(p.payload_len, 3);
        assert_eq!(peek_header(&bytes[..19]), None);
        let mut bad = bytes.clone();
        bad[12] = 0x10; // data offset 4 bytes
        assert_eq!(peek_header(&bad), None);
        bad[12] = 0xf0; // 60 bytes, beyond the buffer
        assert_eq!(peek_header(&bad), None);
    }
}
