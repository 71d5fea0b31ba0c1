//! Chunks: RFC 9260 section 3.2 and 3.3, RFC 4895 section 4.1 (AUTH),
//! RFC 5061 section 4.1 (ASCONF, ASCONF-ACK).

use bytes::Bytes;
use std::net::IpAddr;

use super::cause::ErrorCause;
use super::param::Param;

/// Chunk type codes (RFC 9260 section 3.2, RFC 4895, RFC 5061, RFC 3758).
pub mod chunk_type {
    pub const DATA: u8 = 0;
    pub const INIT: u8 = 1;
    pub const INIT_ACK: u8 = 2;
    pub const SACK: u8 = 3;
    pub const HEARTBEAT: u8 = 4;
    pub const HEARTBEAT_ACK: u8 = 5;
    pub const ABORT: u8 = 6;
    pub const SHUTDOWN: u8 = 7;
    pub const SHUTDOWN_ACK: u8 = 8;
    pub const ERROR: u8 = 9;
    pub const COOKIE_ECHO: u8 = 10;
    pub const COOKIE_ACK: u8 = 11;
    pub const ECNE: u8 = 12;
    pub const CWR: u8 = 13;
    pub const SHUTDOWN_COMPLETE: u8 = 14;
    pub const AUTH: u8 = 15;
    pub const ASCONF_ACK: u8 = 0x80;
    pub const FORWARD_TSN: u8 = 0xC0;
    pub const ASCONF: u8 = 0xC1;
}

/// What RFC 9260 section 3.2 says to do with a chunk of unknown type, from
/// its two high bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownChunkAction {
    /// 00: stop processing this packet, discard it, do not report.
    Stop,
    /// 01: stop processing, discard, report in an ERROR chunk
    /// (Unrecognized Chunk Type cause).
    StopAndReport,
    /// 10: skip this chunk and continue processing.
    Skip,
    /// 11: skip this chunk, continue, and report it.
    SkipAndReport,
}

/// DATA chunk (RFC 9260 section 3.3.1); flags U, B, E and I (RFC 7053).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataChunk {
    pub tsn: u32,
    pub stream_id: u16,
    pub ssn: u16,
    pub ppid: u32,
    /// U bit: unordered delivery.
    pub unordered: bool,
    /// B bit: first fragment of a user message.
    pub begin: bool,
    /// E bit: last fragment of a user message.
    pub end: bool,
    /// I bit (RFC 7053): the receiver should SACK immediately.
    pub immediate: bool,
    /// User data, a slice of the received datagram. May be empty on receive
    /// (the association answers with the No User Data cause).
    pub payload: Bytes,
}

/// INIT and INIT ACK (RFC 9260 sections 3.3.2 and 3.3.3): same fixed part,
/// then variable-length parameters in the order received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitChunk {
    pub initiate_tag: u32,
    pub a_rwnd: u32,
    pub outbound_streams: u16,
    pub inbound_streams: u16,
    pub initial_tsn: u32,
    pub params: Vec<Param>,
}

/// One Gap Ack Block of a SACK: offsets from the Cumulative TSN Ack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GapBlock {
    pub start: u16,
    pub end: u16,
}

/// SACK (RFC 9260 section 3.3.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SackChunk {
    pub cum_tsn_ack: u32,
    pub a_rwnd: u32,
    pub gap_blocks: Vec<GapBlock>,
    pub dup_tsns: Vec<u32>,
}

/// AUTH (RFC 4895 section 4.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthChunk {
    pub shared_key_id: u16,
    pub hmac_id: u16,
    pub hmac: Bytes,
}

/// ASCONF (RFC 5061 section 4.1.1): serial number, the Address Parameter
/// that locates the association (section 4.1.1: an address of the sender
/// known to the peer), then the request parameters (Add IP Address, Delete
/// IP Address, Set Primary Address, Adaptation Layer Indication, or
/// anything else, kept in order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsconfChunk {
    pub serial: u32,
    pub address: IpAddr,
    pub params: Vec<Param>,
}

/// ASCONF-ACK (RFC 5061 section 4.1.2): serial number and response
/// parameters (Success Indication, Error Cause Indication).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsconfAckChunk {
    pub serial: u32,
    pub params: Vec<Param>,
}

/// A decoded chunk. Reserved flag bits are ignored on parse and emitted as
/// zero (RFC 9260 section 3.2: "set to 0 on transmit, ignored on receipt").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chunk {
    Data(DataChunk),
    Init(InitChunk),
    InitAck(InitChunk),
    Sack(SackChunk),
    /// HEARTBEAT carrying the value of its Heartbeat Info parameter.
    Heartbeat { info: Bytes },
    /// HEARTBEAT ACK echoing the Heartbeat Info value.
    HeartbeatAck { info: Bytes },
    /// ABORT; `t_bit` set when the verification tag is reflected.
    Abort { t_bit: bool, causes: Vec<ErrorCause> },
    Shutdown { cum_tsn_ack: u32 },
    ShutdownAck,
    Error { causes: Vec<ErrorCause> },
    CookieEcho { cookie: Bytes },
    CookieAck,
    ShutdownComplete { t_bit: bool },
    Auth(AuthChunk),
    Asconf(AsconfChunk),
    AsconfAck(AsconfAckChunk),
    /// FORWARD TSN (RFC 3758 section 3.2): parsed so it can be recognised;
    /// this stack does not negotiate PR-SCTP.
    ForwardTsn { new_cum_tsn: u32, streams: Vec<(u16, u16)> },
    /// Any other type, kept whole so it can be reported (Unrecognized Chunk
    /// Type) and re-emitted byte for byte.
    Unknown { chunk_type: u8, flags: u8, value: Bytes },
}

/// A zero-copy view of one chunk (header and value, without padding).
#[derive(Debug, Clone)]
pub struct ChunkView<T: AsRef<[u8]>> {
    buffer: T,
}
