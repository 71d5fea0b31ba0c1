//! Variable-length parameters: RFC 9260 section 3.3.2.1 and 3.3.3.1,
//! RFC 5061 section 4.2, RFC 4895 section 3.

use bytes::Bytes;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::cause::ErrorCause;

/// Parameter type codes.
pub mod param_type {
    pub const HEARTBEAT_INFO: u16 = 1;
    pub const IPV4_ADDRESS: u16 = 5;
    pub const IPV6_ADDRESS: u16 = 6;
    pub const STATE_COOKIE: u16 = 7;
    pub const UNRECOGNIZED_PARAMETER: u16 = 8;
    pub const COOKIE_PRESERVATIVE: u16 = 9;
    pub const HOST_NAME_ADDRESS: u16 = 11;
    pub const SUPPORTED_ADDRESS_TYPES: u16 = 12;
    pub const ECN_CAPABLE: u16 = 0x8000;
    pub const RANDOM: u16 = 0x8002;
    pub const CHUNKS: u16 = 0x8003;
    pub const HMAC_ALGO: u16 = 0x8004;
    pub const SUPPORTED_EXTENSIONS: u16 = 0x8008;
    pub const FORWARD_TSN_SUPPORTED: u16 = 0xC000;
    pub const ADD_IP_ADDRESS: u16 = 0xC001;
    pub const DELETE_IP_ADDRESS: u16 = 0xC002;
    pub const ERROR_CAUSE_INDICATION: u16 = 0xC003;
    pub const SET_PRIMARY_ADDRESS: u16 = 0xC004;
    pub const SUCCESS_INDICATION: u16 = 0xC005;
    pub const ADAPTATION_LAYER_INDICATION: u16 = 0xC006;
}

/// What RFC 9260 section 3.2.1 says to do with a parameter of unknown type,
/// from its two high bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownParamAction {
    /// 00: stop processing this chunk's parameters, do not report.
    Stop,
    /// 01: stop processing and report (Unrecognized Parameter).
    StopAndReport,
    /// 10: skip this parameter and continue.
    Skip,
    /// 11: skip, continue, and report.
    SkipAndReport,
}

/// A decoded parameter. One type serves INIT, INIT ACK, ASCONF and
/// ASCONF-ACK; the association checks that a parameter fits where it came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Param {
    /// Heartbeat Info (type 1): opaque sender-specific information.
    HeartbeatInfo(Bytes),
    Ipv4Address(Ipv4Addr),
    Ipv6Address(Ipv6Addr),
    StateCookie(Bytes),
    /// Unrecognized Parameter (type 8): the unrecognised TLV, whole.
    UnrecognizedParameter(Bytes),
    /// Cookie Preservative: suggested life-span increment in milliseconds.
    CookiePreservative(u32),
    HostNameAddress(Bytes),
    SupportedAddressTypes(Vec<u16>),
    /// ECN Capable (0x8000), value ignored.
    EcnCapable,
    /// Forward-TSN Supported (0xC000, RFC 3758).
    ForwardTsnSupported,
    /// RFC 5061 section 4.2.1. `address` may be unspecified (0.0.0.0 / ::).
    AddIpAddress { correlation_id: u32, address: IpAddr },
    /// RFC 5061 section 4.2.2.
    DeleteIpAddress { correlation_id: u32, address: IpAddr },
    /// RFC 5061 section 4.2.4.
    SetPrimaryAddress { correlation_id: u32, address: IpAddr },
    /// RFC 5061 section 4.2.3 (correlation id, then error causes).
    ErrorCauseIndication { correlation_id: u32, causes: Vec<ErrorCause> },
    /// RFC 5061 section 4.2.5.
    SuccessIndication { correlation_id: u32 },
    /// RFC 5061 section 4.2.6.
    AdaptationLayerIndication(u32),
    /// RFC 5061 section 4.2.7: chunk types the sender supports.
    SupportedExtensions(Vec<u8>),
    /// RFC 4895 section 3.1.
    Random(Bytes),
    /// RFC 4895 section 3.2: chunk types that must be authenticated.
    Chunks(Vec<u8>),
    /// RFC 4895 section 3.3: HMAC identifiers in order of preference.
    HmacAlgo(Vec<u16>),
    /// Any other type, kept whole.
    Unknown { param_type: u16, value: Bytes },
}

/// A zero-copy view of one parameter TLV (without padding).
#[derive(Debug, Clone)]
pub struct ParamView<T: AsRef<[u8]>> {
    buffer: T,
}
