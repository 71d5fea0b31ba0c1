//! The datagrams an association hands its driver.

use std::net::IpAddr;

/// A datagram to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmit {
    /// Local address to send from; `None` lets the host choose.
    pub source: Option<IpAddr>,
    pub destination: IpAddr,
    /// The SCTP packet (common header and chunks), after `headroom`
    /// bytes left free for the driver ([`Transmit::packet`]).
    pub payload: Vec<u8>,
    /// Bytes at the front of `payload` before the packet: the endpoint's
    /// `transmit_headroom` (0 by default: `payload` is the packet).
    pub headroom: usize,
    /// The association that sent it (set by [`crate::Endpoint::poll_transmit`];
    /// `None` for the endpoint's stateless replies). A driver that
    /// encapsulates in UDP keys the remote port by it (RFC 6951 section
    /// 5: per association and destination address).
    pub assoc: Option<AssocId>,
}

impl Transmit {
    /// The SCTP packet (the buffer after its headroom).
    pub fn packet(&self) -> &[u8] {
        &self.payload[self.headroom..]
    }

    /// The SCTP packet, writable (to fill a checksum left to the driver).
    pub fn packet_mut(&mut self) -> &mut [u8] {
        &mut self.payload[self.headroom..]
    }
}

/// Handle of an association within its endpoint (the endpoint hands them
/// out; defined here so that a [`Transmit`] can name its sender).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AssocId(pub u32);
