//! UDP sink: takes every UDP packet to its port (on any address of its
//! node) and records it.

use std::net::IpAddr;

use crate::Time;
use crate::kernel::ids::IfaceId;
use crate::kernel::ip::IpPacket;
use crate::kernel::udp::UdpView;
use crate::kernel::{Agent, Ctx, RxInfo};

use super::Stamp;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SinkConfig {
    pub port: u16,
    /// Arrivals kept in [`UdpSink::arrivals`] (counters cover all).
    pub max_records: usize,
}

impl SinkConfig {
    pub fn new(port: u16) -> Self {
        SinkConfig {
            port,
            max_records: 1_000_000,
        }
    }
}

/// One received datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arrival {
    pub at: Time,
    pub uid: u64,
    pub src: IpAddr,
    pub dst: IpAddr,
    pub iface: Option<IfaceId>,
    /// Whole IP packet length.
    pub len: usize,
    /// From the stamp, if the payload carried one.
    pub seq: Option<u64>,
    pub sent_at: Option<Time>,
}

/// The sink agent.
#[derive(Debug)]
pub struct UdpSink {
    cfg: SinkConfig,
    arrivals: Vec<Arrival>,
    packets: u64,
    bytes: u64,
    payload_bytes: u64,
    first_at: Option<Time>,
    last_at: Option<Time>,
    highest_seq: Option<u64>,
    reordered: u64,
}

impl UdpSink {
    pub fn new(cfg: SinkConfig) -> Self {
        UdpSink {
            cfg,
            arrivals: Vec::new(),
            packets: 0,
            bytes: 0,
            payload_bytes: 0,
            first_at: None,
            last_at: None,
            highest_seq: None,
            reordered: 0,
        }
    }

    /// The first `max_records` arrivals.
    pub fn arrivals(&self) -> &[Arrival] {
        &self.arrivals
    }

    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Whole IP bytes received.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// UDP payload bytes received.
    pub fn payload_bytes(&self) -> u64 {
        self.payload_bytes
    }

    pub fn first_at(&self) -> Option<Time> {
        self.first_at
    }

    pub fn last_at(&self) -> Option<Time> {
        self.last_at
    }

    /// Highest sequence number seen (one source per sink assumed).
    pub fn highest_seq(&self) -> Option<u64> {
        self.highest_seq
    }

    /// Packets whose sequence number was below one already received.
    pub fn reordered(&self) -> u64 {
        self.reordered
    }
}

impl Agent for UdpSink {
    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: IpPacket, rx: &RxInfo) -> Option<IpPacket> {
        let Ok(v) = UdpView::parse(&pkt) else {
            return Some(pkt);
        };
        if v.dst_port != self.cfg.port {
            return Some(pkt);
        }
        let now = ctx.now();
        let stamp = Stamp::read(v.payload);
        self.packets += 1;
        self.bytes += pkt.len() as u64;
        self.payload_bytes += v.payload.len() as u64;
        self.first_at.get_or_insert(now);
        self.last_at = Some(now);
        if let Some(s) = stamp {
            match self.highest_seq {
                Some(h) if s.seq < h => self.reordered += 1,
                _ => self.highest_seq = Some(s.seq),
            }
        }
        if self.arrivals.len() < self.cfg.max_records {
            self.arrivals.push(Arrival {
                at: now,
                uid: pkt.uid(),
                src: pkt.src(),
                dst: pkt.dst(),
                iface: rx.iface,
                len: pkt.len(),
                seq: stamp.map(|s| s.seq),
                sent_at: stamp.map(|s| s.sent_at),
            });
        }
        None
    }
}
