//! Error causes: RFC 9260 section 3.3.10, RFC 5061 section 4.3,
//! RFC 4895 section 4.2.

use bytes::Bytes;

/// Cause codes.
pub mod cause_code {
    pub const INVALID_STREAM_IDENTIFIER: u16 = 1;
    pub const MISSING_MANDATORY_PARAMETER: u16 = 2;
    pub const STALE_COOKIE: u16 = 3;
    pub const OUT_OF_RESOURCE: u16 = 4;
    pub const UNRESOLVABLE_ADDRESS: u16 = 5;
    pub const UNRECOGNIZED_CHUNK_TYPE: u16 = 6;
    pub const INVALID_MANDATORY_PARAMETER: u16 = 7;
    pub const UNRECOGNIZED_PARAMETERS: u16 = 8;
    pub const NO_USER_DATA: u16 = 9;
    pub const COOKIE_RECEIVED_WHILE_SHUTTING_DOWN: u16 = 10;
    pub const RESTART_WITH_NEW_ADDRESSES: u16 = 11;
    pub const USER_INITIATED_ABORT: u16 = 12;
    pub const PROTOCOL_VIOLATION: u16 = 13;
    pub const DELETE_LAST_REMAINING_ADDRESS: u16 = 0x00A0;
    pub const RESOURCE_SHORTAGE: u16 = 0x00A1;
    pub const DELETE_SOURCE_ADDRESS: u16 = 0x00A2;
    pub const ILLEGAL_ASCONF_ACK: u16 = 0x00A3;
    pub const NO_AUTHORIZATION: u16 = 0x00A4;
    pub const UNSUPPORTED_HMAC_IDENTIFIER: u16 = 0x0105;
}

/// A decoded error cause. Where a cause carries a copy of an offending TLV
/// (parameter, chunk, address), it is kept as raw bytes, exactly as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorCause {
    InvalidStreamIdentifier { stream_id: u16 },
    MissingMandatoryParameter { param_types: Vec<u16> },
    /// Measure of staleness in microseconds.
    StaleCookie { staleness_us: u32 },
    OutOfResource,
    /// The unresolvable address parameter (TLV) as received.
    UnresolvableAddress { address: Bytes },
    /// The unrecognised chunk (header and value) as received.
    UnrecognizedChunkType { chunk: Bytes },
    InvalidMandatoryParameter,
    /// The unrecognised parameters (TLVs) as received.
    UnrecognizedParameters { params: Bytes },
    NoUserData { tsn: u32 },
    CookieReceivedWhileShuttingDown,
    /// The new addresses (TLVs).
    RestartWithNewAddresses { addresses: Bytes },
    UserInitiatedAbort { reason: Bytes },
    ProtocolViolation { info: Bytes },
    /// RFC 5061 0x00A0, carrying the refused request parameter (TLV).
    DeleteLastRemainingAddress { request: Bytes },
    /// RFC 5061 0x00A1, carrying the refused request parameter (TLV).
    ResourceShortage { request: Bytes },
    /// RFC 5061 0x00A2, carrying the refused request parameter (TLV).
    DeleteSourceAddress { request: Bytes },
    /// RFC 5061 0x00A3.
    IllegalAsconfAck,
    /// RFC 5061 0x00A4, carrying the refused request parameter (TLV).
    NoAuthorization { request: Bytes },
    /// RFC 4895 0x0105.
    UnsupportedHmacIdentifier { hmac_id: u16 },
    /// Any other code, kept whole.
    Unknown { code: u16, info: Bytes },
}
