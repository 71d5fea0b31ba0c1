//! Error causes: RFC 9260 section 3.3.10, RFC 5061 section 4.3,
//! RFC 4895 section 4.2.

use bytes::Bytes;
use std::ops::Range;

use super::WireError;
use super::field::{u16_at, u32_at};
use super::tlv::{self, Kind, Tlv};

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
    InvalidStreamIdentifier {
        stream_id: u16,
    },
    MissingMandatoryParameter {
        param_types: Vec<u16>,
    },
    /// Measure of staleness in microseconds.
    StaleCookie {
        staleness_us: u32,
    },
    OutOfResource,
    /// The unresolvable address parameter (TLV) as received.
    UnresolvableAddress {
        address: Bytes,
    },
    /// The unrecognised chunk (header and value) as received.
    UnrecognizedChunkType {
        chunk: Bytes,
    },
    InvalidMandatoryParameter,
    /// The unrecognised parameters (TLVs) as received.
    UnrecognizedParameters {
        params: Bytes,
    },
    NoUserData {
        tsn: u32,
    },
    CookieReceivedWhileShuttingDown,
    /// The new addresses (TLVs).
    RestartWithNewAddresses {
        addresses: Bytes,
    },
    UserInitiatedAbort {
        reason: Bytes,
    },
    ProtocolViolation {
        info: Bytes,
    },
    /// RFC 5061 0x00A0, carrying the refused request parameter (TLV).
    DeleteLastRemainingAddress {
        request: Bytes,
    },
    /// RFC 5061 0x00A1, carrying the refused request parameter (TLV).
    ResourceShortage {
        request: Bytes,
    },
    /// RFC 5061 0x00A2, carrying the refused request parameter (TLV).
    DeleteSourceAddress {
        request: Bytes,
    },
    /// RFC 5061 0x00A3.
    IllegalAsconfAck,
    /// RFC 5061 0x00A4, carrying the refused request parameter (TLV).
    NoAuthorization {
        request: Bytes,
    },
    /// RFC 4895 0x0105.
    UnsupportedHmacIdentifier {
        hmac_id: u16,
    },
    /// Any other code, kept whole.
    Unknown {
        code: u16,
        info: Bytes,
    },
}

fn fixed(what: &'static str, info: &[u8], len: usize) -> Result<(), WireError> {
    if info.len() == len {
        Ok(())
    } else {
        Err(WireError::BadLength {
            what,
            length: info.len() + 4,
        })
    }
}

impl ErrorCause {
    /// The Cause Code this value is sent with.
    pub fn code(&self) -> u16 {
        use cause_code as c;
        match self {
            ErrorCause::InvalidStreamIdentifier { .. } => c::INVALID_STREAM_IDENTIFIER,
            ErrorCause::MissingMandatoryParameter { .. } => c::MISSING_MANDATORY_PARAMETER,
            ErrorCause::StaleCookie { .. } => c::STALE_COOKIE,
            ErrorCause::OutOfResource => c::OUT_OF_RESOURCE,
            ErrorCause::UnresolvableAddress { .. } => c::UNRESOLVABLE_ADDRESS,
            ErrorCause::UnrecognizedChunkType { .. } => c::UNRECOGNIZED_CHUNK_TYPE,
            ErrorCause::InvalidMandatoryParameter => c::INVALID_MANDATORY_PARAMETER,
            ErrorCause::UnrecognizedParameters { .. } => c::UNRECOGNIZED_PARAMETERS,
            ErrorCause::NoUserData { .. } => c::NO_USER_DATA,
            ErrorCause::CookieReceivedWhileShuttingDown => c::COOKIE_RECEIVED_WHILE_SHUTTING_DOWN,
            ErrorCause::RestartWithNewAddresses { .. } => c::RESTART_WITH_NEW_ADDRESSES,
            ErrorCause::UserInitiatedAbort { .. } => c::USER_INITIATED_ABORT,
            ErrorCause::ProtocolViolation { .. } => c::PROTOCOL_VIOLATION,
            ErrorCause::DeleteLastRemainingAddress { .. } => c::DELETE_LAST_REMAINING_ADDRESS,
            ErrorCause::ResourceShortage { .. } => c::RESOURCE_SHORTAGE,
            ErrorCause::DeleteSourceAddress { .. } => c::DELETE_SOURCE_ADDRESS,
            ErrorCause::IllegalAsconfAck => c::ILLEGAL_ASCONF_ACK,
            ErrorCause::NoAuthorization { .. } => c::NO_AUTHORIZATION,
            ErrorCause::UnsupportedHmacIdentifier { .. } => c::UNSUPPORTED_HMAC_IDENTIFIER,
            ErrorCause::Unknown { code, .. } => *code,
        }
    }

    fn info_len(&self) -> usize {
        match self {
            ErrorCause::InvalidStreamIdentifier { .. }
            | ErrorCause::StaleCookie { .. }
            | ErrorCause::NoUserData { .. } => 4,
            ErrorCause::MissingMandatoryParameter { param_types } => {
                4usize.saturating_add(param_types.len().saturating_mul(2))
            }
            ErrorCause::OutOfResource
            | ErrorCause::InvalidMandatoryParameter
            | ErrorCause::CookieReceivedWhileShuttingDown
            | ErrorCause::IllegalAsconfAck => 0,
            ErrorCause::UnresolvableAddress { address: b }
            | ErrorCause::UnrecognizedChunkType { chunk: b }
            | ErrorCause::UnrecognizedParameters { params: b }
            | ErrorCause::RestartWithNewAddresses { addresses: b }
            | ErrorCause::UserInitiatedAbort { reason: b }
            | ErrorCause::ProtocolViolation { info: b }
            | ErrorCause::DeleteLastRemainingAddress { request: b }
            | ErrorCause::ResourceShortage { request: b }
            | ErrorCause::DeleteSourceAddress { request: b }
            | ErrorCause::NoAuthorization { request: b }
            | ErrorCause::Unknown { info: b, .. } => b.len(),
            ErrorCause::UnsupportedHmacIdentifier { .. } => 2,
        }
    }

    /// The Cause Length field: header and information, without padding.
    /// May exceed 65535 for an oversized cause, which cannot be sent.
    pub fn length(&self) -> usize {
        self.info_len().saturating_add(4)
    }

    /// The length rounded up to a multiple of 4: the bytes
    /// [`ErrorCause::emit`] appends.
    pub fn padded_len(&self) -> usize {
        Tlv::padded_len(self)
    }

    /// Decodes one error cause; `bytes` starts with the cause's header and
    /// may continue past its length field (padding), which is ignored.
    pub fn parse(bytes: &Bytes) -> Result<ErrorCause, WireError> {
        tlv::parse_one(bytes)
    }

    /// Decodes a list of padded error causes (the value of an ABORT or
    /// ERROR chunk), in order.
    pub fn parse_list(buf: &Bytes) -> Result<Vec<ErrorCause>, WireError> {
        tlv::parse_list_at(buf, 0..buf.len())
    }

    /// Appends the cause (header, information and zero padding to 4
    /// bytes). The length field saturates at 65535 for an oversized cause
    /// (check [`ErrorCause::length`] first).
    pub fn emit(&self, out: &mut Vec<u8>) {
        Tlv::emit(self, out)
    }
}

impl Tlv for ErrorCause {
    const KIND: Kind = Kind::Param;

    fn length(&self) -> usize {
        ErrorCause::length(self)
    }

    fn decode(buf: &Bytes, range: Range<usize>, p: &[u8]) -> Result<ErrorCause, WireError> {
        use cause_code as c;
        let info = &p[tlv::VALUE..];
        let slice = || buf.slice(range.start + tlv::VALUE..range.end);
        let cause = match u16_at(p, tlv::TYPE) {
            c::INVALID_STREAM_IDENTIFIER => {
                fixed("Invalid Stream Identifier cause", info, 4)?;
                ErrorCause::InvalidStreamIdentifier {
                    stream_id: u16_at(info, 0),
                }
            }
            c::MISSING_MANDATORY_PARAMETER => {
                let what = "Missing Mandatory Parameter cause";
                if info.len() < 4 || !info.len().is_multiple_of(2) {
                    return Err(WireError::BadLength {
                        what,
                        length: p.len(),
                    });
                }
                let listed = &info[4..];
                if u64::from(u32_at(info, 0)) != (listed.len() / 2) as u64 {
                    return Err(WireError::BadLength {
                        what,
                        length: p.len(),
                    });
                }
                let param_types = listed
                    .chunks_exact(2)
                    .map(|t| u16::from_be_bytes([t[0], t[1]]))
                    .collect();
                ErrorCause::MissingMandatoryParameter { param_types }
            }
            c::STALE_COOKIE => {
                fixed("Stale Cookie cause", info, 4)?;
                ErrorCause::StaleCookie {
                    staleness_us: u32_at(info, 0),
                }
            }
            c::OUT_OF_RESOURCE => {
                fixed("Out of Resource cause", info, 0)?;
                ErrorCause::OutOfResource
            }
            c::UNRESOLVABLE_ADDRESS => ErrorCause::UnresolvableAddress { address: slice() },
            c::UNRECOGNIZED_CHUNK_TYPE => ErrorCause::UnrecognizedChunkType { chunk: slice() },
            c::INVALID_MANDATORY_PARAMETER => {
                fixed("Invalid Mandatory Parameter cause", info, 0)?;
                ErrorCause::InvalidMandatoryParameter
            }
            c::UNRECOGNIZED_PARAMETERS => ErrorCause::UnrecognizedParameters { params: slice() },
            c::NO_USER_DATA => {
                fixed("No User Data cause", info, 4)?;
                ErrorCause::NoUserData {
                    tsn: u32_at(info, 0),
                }
            }
            c::COOKIE_RECEIVED_WHILE_SHUTTING_DOWN => {
                fixed("Cookie Received While Shutting Down cause", info, 0)?;
                ErrorCause::CookieReceivedWhileShuttingDown
            }
            c::RESTART_WITH_NEW_ADDRESSES => {
                ErrorCause::RestartWithNewAddresses { addresses: slice() }
            }
            c::USER_INITIATED_ABORT => ErrorCause::UserInitiatedAbort { reason: slice() },
            c::PROTOCOL_VIOLATION => ErrorCause::ProtocolViolation { info: slice() },
            c::DELETE_LAST_REMAINING_ADDRESS => {
                ErrorCause::DeleteLastRemainingAddress { request: slice() }
            }
            c::RESOURCE_SHORTAGE => ErrorCause::ResourceShortage { request: slice() },
            c::DELETE_SOURCE_ADDRESS => ErrorCause::DeleteSourceAddress { request: slice() },
            c::ILLEGAL_ASCONF_ACK => {
                fixed("Illegal ASCONF-ACK cause", info, 0)?;
                ErrorCause::IllegalAsconfAck
            }
            c::NO_AUTHORIZATION => ErrorCause::NoAuthorization { request: slice() },
            c::UNSUPPORTED_HMAC_IDENTIFIER => {
                fixed("Unsupported HMAC Identifier cause", info, 2)?;
                ErrorCause::UnsupportedHmacIdentifier {
                    hmac_id: u16_at(info, 0),
                }
            }
            other => ErrorCause::Unknown {
                code: other,
                info: slice(),
            },
        };
        Ok(cause)
    }

    fn emit_value(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.code().to_be_bytes());
        out.extend_from_slice(&[0, 0]);
        match self {
            ErrorCause::InvalidStreamIdentifier { stream_id } => {
                out.extend_from_slice(&stream_id.to_be_bytes());
                out.extend_from_slice(&[0, 0]);
            }
            ErrorCause::MissingMandatoryParameter { param_types } => {
                let count = u32::try_from(param_types.len()).unwrap_or(u32::MAX);
                out.extend_from_slice(&count.to_be_bytes());
                for t in param_types {
                    out.extend_from_slice(&t.to_be_bytes());
                }
            }
            ErrorCause::StaleCookie { staleness_us: v } | ErrorCause::NoUserData { tsn: v } => {
                out.extend_from_slice(&v.to_be_bytes())
            }
            ErrorCause::OutOfResource
            | ErrorCause::InvalidMandatoryParameter
            | ErrorCause::CookieReceivedWhileShuttingDown
            | ErrorCause::IllegalAsconfAck => {}
            ErrorCause::UnresolvableAddress { address: b }
            | ErrorCause::UnrecognizedChunkType { chunk: b }
            | ErrorCause::UnrecognizedParameters { params: b }
            | ErrorCause::RestartWithNewAddresses { addresses: b }
            | ErrorCause::UserInitiatedAbort { reason: b }
            | ErrorCause::ProtocolViolation { info: b }
            | ErrorCause::DeleteLastRemainingAddress { request: b }
            | ErrorCause::ResourceShortage { request: b }
            | ErrorCause::DeleteSourceAddress { request: b }
            | ErrorCause::NoAuthorization { request: b }
            | ErrorCause::Unknown { info: b, .. } => out.extend_from_slice(b),
            ErrorCause::UnsupportedHmacIdentifier { hmac_id } => {
                out.extend_from_slice(&hmac_id.to_be_bytes())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::wire::tlv::testing::bytes;

    fn roundtrip(hex_str: &str) -> ErrorCause {
        let (c, code) = crate::wire::tlv::testing::roundtrip::<ErrorCause>(hex_str);
        assert_eq!(c.code(), code);
        c
    }

    fn parse_err(hex_str: &str) -> WireError {
        crate::wire::tlv::testing::parse_err::<ErrorCause>(hex_str)
    }

    #[test]
    fn rfc9260_causes() {
        use ErrorCause as E;
        assert_eq!(
            roundtrip("0001 0008 0005 0000"),
            E::InvalidStreamIdentifier { stream_id: 5 }
        );
        assert_eq!(
            roundtrip("0002 000c 00000002 0007 0009"),
            E::MissingMandatoryParameter {
                param_types: vec![7, 9]
            }
        );
        assert_eq!(
            roundtrip("0002 000a 00000001 0007 0000"),
            E::MissingMandatoryParameter {
                param_types: vec![7]
            }
        );
        assert_eq!(
            roundtrip("0003 0008 000186a0"),
            E::StaleCookie {
                staleness_us: 100_000
            }
        );
        assert_eq!(roundtrip("0004 0004"), E::OutOfResource);
        assert_eq!(
            roundtrip("0005 000c 0005 0008 c0000201"),
            E::UnresolvableAddress {
                address: bytes("0005 0008 c0000201")
            }
        );
        assert_eq!(
            roundtrip("0006 0009 4f000005 ff 000000"),
            E::UnrecognizedChunkType {
                chunk: bytes("4f000005 ff")
            }
        );
        assert_eq!(roundtrip("0007 0004"), E::InvalidMandatoryParameter);
        assert_eq!(
            roundtrip("0008 0008 ff770004"),
            E::UnrecognizedParameters {
                params: bytes("ff770004")
            }
        );
        assert_eq!(roundtrip("0009 0008 00000011"), E::NoUserData { tsn: 17 });
        assert_eq!(roundtrip("000a 0004"), E::CookieReceivedWhileShuttingDown);
        assert_eq!(
            roundtrip("000b 000c 0005 0008 c0000202"),
            E::RestartWithNewAddresses {
                addresses: bytes("0005 0008 c0000202")
            }
        );
        assert_eq!(
            roundtrip("000c 0007 627965 00"),
            E::UserInitiatedAbort {
                reason: bytes("627965")
            }
        );
        assert_eq!(
            roundtrip("000c 0004"),
            E::UserInitiatedAbort {
                reason: Bytes::new()
            }
        );
        assert_eq!(
            roundtrip("000d 0009 6f6f70730a 000000"),
            E::ProtocolViolation {
                info: bytes("6f6f70730a")
            }
        );
    }

    #[test]
    fn rfc5061_and_rfc4895_causes() {
        use ErrorCause as E;
        let request = "c002 0010 00000001 0005 0008 c0000201";
        assert_eq!(
            roundtrip(&format!("00a0 0014 {request}")),
            E::DeleteLastRemainingAddress {
                request: bytes(request)
            }
        );
        assert_eq!(
            roundtrip(&format!("00a1 0014 {request}")),
            E::ResourceShortage {
                request: bytes(request)
            }
        );
        assert_eq!(
            roundtrip(&format!("00a2 0014 {request}")),
            E::DeleteSourceAddress {
                request: bytes(request)
            }
        );
        assert_eq!(roundtrip("00a3 0004"), E::IllegalAsconfAck);
        assert_eq!(
            roundtrip(&format!("00a4 0014 {request}")),
            E::NoAuthorization {
                request: bytes(request)
            }
        );
        assert_eq!(
            roundtrip("0105 0006 0002 0000"),
            E::UnsupportedHmacIdentifier { hmac_id: 2 }
        );
        assert_eq!(
            roundtrip("1234 0005 ff 000000"),
            E::Unknown {
                code: 0x1234,
                info: bytes("ff")
            }
        );
    }

    #[test]
    fn fixed_size_causes_with_wrong_lengths() {
        let cases = [
            ("0001 0006 0005 0000", "Invalid Stream Identifier cause", 6),
            (
                "0002 000c 00000003 0007 0009",
                "Missing Mandatory Parameter cause",
                12,
            ),
            (
                "0002 0006 0000 0000",
                "Missing Mandatory Parameter cause",
                6,
            ),
            (
                "0002 0009 00000000 00 000000",
                "Missing Mandatory Parameter cause",
                9,
            ),
            ("0003 000c 000186a0 00000000", "Stale Cookie cause", 12),
            ("0004 0008 00000000", "Out of Resource cause", 8),
            (
                "0007 0005 00 000000",
                "Invalid Mandatory Parameter cause",
                5,
            ),
            ("0009 0004", "No User Data cause", 4),
            (
                "000a 0008 00000000",
                "Cookie Received While Shutting Down cause",
                8,
            ),
            ("00a3 0008 00000000", "Illegal ASCONF-ACK cause", 8),
            (
                "0105 0008 0001 0002",
                "Unsupported HMAC Identifier cause",
                8,
            ),
        ];
        for (hex_str, what, length) in cases {
            assert_eq!(
                parse_err(hex_str),
                WireError::BadLength { what, length },
                "{hex_str}"
            );
        }
        assert_eq!(
            parse_err("0001 0000"),
            WireError::BadParamLength {
                offset: 0,
                length: 0
            }
        );
        assert_eq!(
            parse_err("00"),
            WireError::Truncated {
                offset: 0,
                needed: 4,
                available: 1
            }
        );
    }

    #[test]
    fn cause_lists() {
        let b = bytes("000c 0005 aa 000000 0004 0004");
        let causes = ErrorCause::parse_list(&b).unwrap();
        assert_eq!(
            causes,
            vec![
                ErrorCause::UserInitiatedAbort {
                    reason: bytes("aa")
                },
                ErrorCause::OutOfResource
            ]
        );
        assert_eq!(tlv::list_len(&causes), 12);
        let mut out = Vec::new();
        tlv::emit_list(&causes, &mut out);
        assert_eq!(&out[..], &b[..]);
        assert_eq!(
            ErrorCause::parse_list(&bytes("0004 0004 0004 0000")).unwrap_err(),
            WireError::BadParamLength {
                offset: 4,
                length: 0
            }
        );
    }
}
