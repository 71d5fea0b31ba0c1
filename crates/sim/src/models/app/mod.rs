//! Applications that need no transport protocol: UDP traffic sources and a
//! sink, as simulator agents.
//!
//! - [`UdpCbr`]: constant bit rate (ns-2 `Application/Traffic/CBR`).
//! - [`ParetoOnOff`]: Pareto ON/OFF (ns-2 `Application/Traffic/Pareto`).
//! - [`UdpSink`]: records every arrival on a port.
//! - [`Source`]: the traffic above a reliable transport (bulk, file, CBR,
//!   Pareto), shared by the SCTP and TCP agents.
//!
//! Sizes follow ns-2: `packet_size` is the size of the whole IP packet on
//! the link (ns-2 agents send packets of exactly `packetSize_` bytes), and
//! the rate counts those bytes. Each datagram's payload starts with a
//! [`Stamp`] (sequence number and send time) so the sink can measure delay,
//! loss and reordering; the rest is zeros.

mod cbr;
mod pareto;
mod sink;
mod source;
mod stamp;

pub use cbr::{CbrConfig, UdpCbr};
pub use pareto::{ParetoConfig, ParetoOnOff};
pub use sink::{Arrival, SinkConfig, UdpSink};
pub use source::{Source, Traffic};
pub use stamp::{STAMP_LEN, Stamp};

use std::net::IpAddr;

use crate::kernel::ip::{IPV4_HEADER_LEN, IPV6_HEADER_LEN, IpPacket, PacketError};
use crate::kernel::udp::{self, UDP_HEADER_LEN};

/// Addresses and ports of a UDP flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UdpFlow {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub src_port: u16,
    pub dst_port: u16,
    pub ttl: u8,
}

impl UdpFlow {
    pub fn new(src: IpAddr, src_port: u16, dst: IpAddr, dst_port: u16) -> Self {
        UdpFlow {
            src,
            dst,
            src_port,
            dst_port,
            ttl: crate::kernel::ip::DEFAULT_TTL,
        }
    }

    /// IP + UDP header bytes of this flow's packets.
    pub fn overhead(&self) -> usize {
        UDP_HEADER_LEN
            + if self.src.is_ipv4() {
                IPV4_HEADER_LEN
            } else {
                IPV6_HEADER_LEN
            }
    }

    /// A packet of `packet_size` bytes in total carrying `stamp`.
    pub(crate) fn packet(&self, packet_size: usize, stamp: Stamp) -> Result<IpPacket, PacketError> {
        let payload_len = packet_size.saturating_sub(self.overhead()).max(STAMP_LEN);
        let mut payload = vec![0u8; payload_len];
        stamp.write(&mut payload);
        udp::build(
            self.src,
            self.dst,
            self.src_port,
            self.dst_port,
            self.ttl,
            &payload,
        )
    }
}

/// An invalid application parameter.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AppConfigError {
    #[error("packet size {size} is below the {min} bytes of headers and stamp")]
    PacketTooSmall { size: usize, min: usize },
    #[error("packet size {0} exceeds an IP packet")]
    PacketTooLarge(usize),
    #[error("source and destination address families differ")]
    FamilyMismatch,
    #[error("{0} must be > 0")]
    NotPositive(&'static str),
    #[error("Pareto shape {0} must be > 1 (finite mean)")]
    BadShape(f64),
}

fn check_size(flow: &UdpFlow, packet_size: usize) -> Result<(), AppConfigError> {
    if flow.src.is_ipv4() != flow.dst.is_ipv4() {
        return Err(AppConfigError::FamilyMismatch);
    }
    let min = flow.overhead() + STAMP_LEN;
    if packet_size < min {
        return Err(AppConfigError::PacketTooSmall {
            size: packet_size,
            min,
        });
    }
    if packet_size > 65_535 {
        return Err(AppConfigError::PacketTooLarge(packet_size));
    }
    Ok(())
}
