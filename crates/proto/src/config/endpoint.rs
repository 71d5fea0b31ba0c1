//! Parameters of an endpoint (one SCTP port): the limits it enforces on
//! the associations it holds.

use std::time::Duration;

use super::{AssociationConfig, ConfigError};

/// Parameters of an endpoint (one SCTP port).
#[derive(Debug, Clone)]
pub struct EndpointConfig {
    /// The local SCTP port.
    pub port: u16,
    /// Accept incoming associations.
    pub listen: bool,
    /// Associations accepted or created at most.
    pub max_associations: usize,
    /// Incoming associations one source may hold at a time (counted by
    /// the address its INIT came from), so that one host cannot take
    /// every slot of `max_associations`. Further INITs and COOKIE ECHOs
    /// from it are refused with an ABORT (Out of Resource).
    pub max_associations_per_source: usize,
    /// IPv6 sources are counted per prefix of this length (a host
    /// usually holds a whole /64); 128 counts each address.
    pub source_prefix_v6: u8,
    /// Caps on the incoming associations of wider source prefixes, on
    /// top of `max_associations_per_source`: an INIT or COOKIE ECHO is
    /// refused (ABORT, Out of Resource, RFC 9260 section 3.3.10.4) when
    /// any prefix that contains its source holds `max` associations. The
    /// levels nest (by default an IPv4 address and its /24; an IPv6 /64,
    /// its /56 and its /48), so that a host with many addresses or many
    /// /64s of one /56 cannot take every slot. At most
    /// [`MAX_PREFIX_CAPS`] entries.
    pub prefix_caps: Vec<PrefixCap>,
    /// An association with no user data in either direction for this
    /// long (nothing received from the peer, nothing queued, unacked or
    /// unread) is aborted with a User-Initiated Abort cause saying so,
    /// and closes with [`crate::CloseReason::IdleTimeout`]. RFC 9260 has
    /// no idle timeout; this is the SCTP_AUTOCLOSE of the sockets API
    /// (RFC 6458 section 8.1.8), whose notion of idle (no user data sent
    /// or received) it keeps: HEARTBEATs and their acks do not count,
    /// since a peer's stack answers them without its application (an
    /// idle association is alive but useless). It aborts instead of
    /// shutting down because nothing is queued in either direction (an
    /// ABORT loses nothing) and an ABORT frees the slot without waiting
    /// for a peer that may not answer. `None` (the default): never.
    pub idle_timeout: Option<Duration>,
    /// When `max_associations` associations exist and a valid COOKIE
    /// ECHO arrives, the association idle the longest (as
    /// `idle_timeout` counts idleness) is aborted to make room, with an
    /// Out of Resource cause (RFC 9260 section 3.3.10.4), if it has been
    /// idle at least this long; otherwise the cookie is refused with an
    /// Out of Resource ABORT. `None`: never reclaim. Default 60 s.
    pub reclaim_idle_after: Option<Duration>,
    /// This endpoint is the only SCTP endpoint at its addresses (the UDP
    /// driver, RFC 6951): a packet for another SCTP port is answered as
    /// RFC 9260 section 8.4 says for a packet no endpoint takes (an INIT
    /// gets an ABORT), so that a peer trying a port nobody serves is
    /// refused at once instead of waiting. Off where several endpoints
    /// share the addresses (the simulator).
    pub answer_other_ports: bool,
    /// Checksum offload: the CRC32c of RFC 9260 section 6.8 is neither
    /// computed for packets sent (the checksum field stays zero) nor
    /// verified on packets received, because the layer below does both,
    /// as a network card with SCTP checksum offload does for the Linux and
    /// FreeBSD stacks, and as usrsctp skips it on loopback
    /// (`sctp_no_csum_on_loopback`). Off by default: a driver whose
    /// packets cross a real network (the UDP driver) must keep it off.
    /// The simulator turns it on, its links lose packets but never flip
    /// bits, and fills the field itself when a capture records the bytes
    /// (`msctp_proto::wire::crc::fill`).
    pub checksum_offload: bool,
    /// Bytes left free at the front of every [`crate::Transmit`]'s buffer,
    /// before the SCTP packet, for the driver's own headers: a driver
    /// that prepends an IP header (the simulator) writes it there instead
    /// of copying the packet into a new buffer. 0 by default (the buffer
    /// is the packet); at most 64.
    pub transmit_headroom: usize,
    /// Defaults for every association of this endpoint.
    pub association: AssociationConfig,
}

impl EndpointConfig {
    pub fn new(port: u16) -> Self {
        EndpointConfig {
            port,
            listen: false,
            max_associations: 1024,
            max_associations_per_source: 64,
            source_prefix_v6: 64,
            prefix_caps: PrefixCap::defaults(),
            idle_timeout: None,
            reclaim_idle_after: Some(Duration::from_secs(60)),
            answer_other_ports: false,
            checksum_offload: false,
            transmit_headroom: 0,
            association: AssociationConfig::default(),
        }
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |field: &'static str, why: &'static str| Err(ConfigError { field, why });
        if self.port == 0 {
            return bad("port", "must not be 0");
        }
        if self.max_associations == 0 {
            return bad("max_associations", "must be at least 1");
        }
        if self.max_associations_per_source == 0 {
            return bad("max_associations_per_source", "must be at least 1");
        }
        if self.transmit_headroom > 64 {
            return bad("transmit_headroom", "must be at most 64 bytes");
        }
        if self.source_prefix_v6 == 0 || self.source_prefix_v6 > 128 {
            return bad("source_prefix_v6", "must lie between 1 and 128");
        }
        if self.prefix_caps.len() > MAX_PREFIX_CAPS {
            return bad("prefix_caps", "must have at most 8 entries");
        }
        for c in &self.prefix_caps {
            let bits = if c.ipv6 { 128 } else { 32 };
            if c.prefix_len == 0 || c.prefix_len > bits {
                return bad(
                    "prefix_caps",
                    "prefix lengths must lie between 1 and 32 (IPv4) or 128 (IPv6)",
                );
            }
            if c.max == 0 {
                return bad("prefix_caps", "each cap must be at least 1");
            }
        }
        if self.idle_timeout.is_some_and(|t| t.is_zero()) {
            return bad("idle_timeout", "must be positive (None turns it off)");
        }
        self.association.validate()
    }
}

/// Entries of [`EndpointConfig::prefix_caps`] at most.
pub const MAX_PREFIX_CAPS: usize = 8;

/// At most `max` incoming associations whose INIT came from one IPv4 or
/// IPv6 prefix of `prefix_len` bits ([`EndpointConfig::prefix_caps`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrefixCap {
    pub ipv6: bool,
    pub prefix_len: u8,
    pub max: usize,
}

impl PrefixCap {
    /// IPv4 /24: 256; IPv6 /56: 256, /48: 512 (with the 64 per address
    /// or /64 of `max_associations_per_source` and 1 024 in all: 16
    /// hosts of one /24 or /56 fill a quarter of the table at most).
    pub fn defaults() -> Vec<PrefixCap> {
        let cap = |ipv6, prefix_len, max| PrefixCap {
            ipv6,
            prefix_len,
            max,
        };
        vec![cap(false, 24, 256), cap(true, 56, 256), cap(true, 48, 512)]
    }
}
