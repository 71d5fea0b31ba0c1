//! Variable-length parameters: RFC 9260 section 3.3.2.1 and 3.3.3.1,
//! RFC 5061 section 4.2, RFC 4895 section 3.

use bytes::Bytes;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::ops::Range;

use super::WireError;
use super::cause::ErrorCause;
use super::field::{correlated, u16_at, u32_at};
use super::tlv::{self, Kind, Tlv, TlvIter, TlvView};

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
    AddIpAddress {
        correlation_id: u32,
        address: IpAddr,
    },
    /// RFC 5061 section 4.2.2.
    DeleteIpAddress {
        correlation_id: u32,
        address: IpAddr,
    },
    /// RFC 5061 section 4.2.4.
    SetPrimaryAddress {
        correlation_id: u32,
        address: IpAddr,
    },
    /// RFC 5061 section 4.2.3 (correlation id, then error causes).
    ErrorCauseIndication {
        correlation_id: u32,
        causes: Vec<ErrorCause>,
    },
    /// RFC 5061 section 4.2.5.
    SuccessIndication {
        correlation_id: u32,
    },
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
    Unknown {
        param_type: u16,
        value: Bytes,
    },
}

/// A zero-copy view of one parameter TLV (without padding).
///
/// The same layout serves error causes (RFC 9260 section 3.3.10: Cause
/// Code, Cause Length, Cause-Specific Information), so causes are walked
/// with this view and [`ParamIter`] too.
#[derive(Debug, Clone)]
pub struct ParamView<T: AsRef<[u8]>> {
    tlv: TlvView<T>,
}

impl<T: AsRef<[u8]>> ParamView<T> {
    /// Type and Length: RFC 9260 section 3.2.1.
    pub const HEADER_LEN: usize = tlv::VALUE;

    /// Wraps a buffer without any check. Accessors never panic: fields
    /// beyond the end of a short buffer read as zero.
    pub fn new_unchecked(buffer: T) -> Self {
        ParamView {
            tlv: TlvView::new_unchecked(buffer),
        }
    }

    /// Wraps a buffer that starts with one TLV: it must hold the 4-byte
    /// header and the length field must be at least 4 and fit the buffer
    /// ([`WireError::BadParamLength`] otherwise, so that a length of 0 is
    /// recognisable). The buffer may continue past the TLV (padding, the
    /// next TLV): accessors stop at the length field.
    pub fn new_checked(buffer: T) -> Result<Self, WireError> {
        Ok(ParamView {
            tlv: TlvView::new_checked(buffer, Kind::Param)?,
        })
    }

    /// The Parameter Type (or Cause Code) field.
    pub fn param_type(&self) -> u16 {
        self.tlv.type_field()
    }

    /// The Parameter Length (or Cause Length) field: header and value,
    /// without padding.
    pub fn length(&self) -> u16 {
        self.tlv.length()
    }

    /// The value: the bytes after the header up to the length field
    /// (clamped to the buffer).
    pub fn value(&self) -> &[u8] {
        self.tlv.value()
    }

    /// The length rounded up to a multiple of 4 (RFC 9260 section 3.2.1).
    pub fn padded_len(&self) -> usize {
        self.tlv.padded_len()
    }

    /// What to do if this parameter's type is not understood.
    pub fn unknown_action(&self) -> UnknownParamAction {
        UnknownParamAction::from_type(self.param_type())
    }

    /// The wrapped buffer.
    pub fn into_inner(self) -> T {
        self.tlv.into_inner()
    }
}

/// Walks a list of parameter (or error-cause) TLVs, each padded to 4 bytes
/// (RFC 9260 section 3.2.1); the padding of the last one may be missing,
/// since a chunk's length does not count it (section 3.2).
///
/// Yields each TLV's byte range (header and value, without padding) within
/// the buffer given to [`ParamIter::new`], and a view of it. After an error
/// (fewer than 4 bytes left, a length field below 4 or past the end of the
/// list) it yields nothing more.
#[derive(Debug, Clone)]
pub struct ParamIter<'a> {
    inner: TlvIter<'a>,
}

impl<'a> ParamIter<'a> {
    /// Walks the whole of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Self::new_in(buf, 0..buf.len())
    }

    /// Walks `range` of `buf` (clamped to `buf`); the ranges yielded and the
    /// offsets in errors are positions in `buf`.
    pub fn new_in(buf: &'a [u8], range: Range<usize>) -> Self {
        ParamIter {
            inner: TlvIter::new_in(buf, range, Kind::Param),
        }
    }
}

impl<'a> Iterator for ParamIter<'a> {
    type Item = Result<(Range<usize>, ParamView<&'a [u8]>), WireError>;

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.inner.next()?;
        Some(item.map(|(range, bytes)| (range, ParamView::new_unchecked(bytes))))
    }
}

impl UnknownParamAction {
    /// The action encoded in the two high bits of a parameter type (RFC
    /// 9260 section 3.2.1).
    pub fn from_type(param_type: u16) -> Self {
        match param_type >> 14 {
            0 => UnknownParamAction::Stop,
            1 => UnknownParamAction::StopAndReport,
            2 => UnknownParamAction::Skip,
            _ => UnknownParamAction::SkipAndReport,
        }
    }

    /// True for the actions that ask for an Unrecognized Parameter report.
    pub fn reports(self) -> bool {
        matches!(
            self,
            UnknownParamAction::StopAndReport | UnknownParamAction::SkipAndReport
        )
    }

    /// True for the actions that stop processing the chunk's parameters.
    pub fn stops(self) -> bool {
        matches!(
            self,
            UnknownParamAction::Stop | UnknownParamAction::StopAndReport
        )
    }
}

/// Length of an IPv4 Address parameter (RFC 9260 section 3.3.2.1).
pub const IPV4_ADDRESS_LEN: usize = 8;
/// Length of an IPv6 Address parameter (RFC 9260 section 3.3.2.1).
pub const IPV6_ADDRESS_LEN: usize = 20;

/// Length of the IPv4 or IPv6 Address parameter that carries `address`.
pub fn address_param_len(address: &IpAddr) -> usize {
    match address {
        IpAddr::V4(_) => IPV4_ADDRESS_LEN,
        IpAddr::V6(_) => IPV6_ADDRESS_LEN,
    }
}

/// Appends the IPv4 or IPv6 Address parameter for `address` (8 or 20
/// bytes, never padded).
pub fn emit_address(address: &IpAddr, out: &mut Vec<u8>) {
    match address {
        IpAddr::V4(a) => {
            out.extend_from_slice(&param_type::IPV4_ADDRESS.to_be_bytes());
            out.extend_from_slice(&8u16.to_be_bytes());
            out.extend_from_slice(&a.octets());
        }
        IpAddr::V6(a) => {
            out.extend_from_slice(&param_type::IPV6_ADDRESS.to_be_bytes());
            out.extend_from_slice(&20u16.to_be_bytes());
            out.extend_from_slice(&a.octets());
        }
    }
}

/// Decodes `tlv`, which must be exactly one IPv4 or IPv6 Address parameter
/// (the form RFC 5061 sections 4.1.1 and 4.2 embed in ASCONF chunks and
/// their request parameters).
pub(crate) fn parse_address(param: &[u8]) -> Result<IpAddr, WireError> {
    if param.len() < tlv::VALUE {
        return Err(WireError::Truncated {
            offset: 0,
            needed: tlv::VALUE,
            available: param.len(),
        });
    }
    let kind = u16_at(param, tlv::TYPE);
    let length = usize::from(u16_at(param, tlv::LENGTH));
    // The length to report: the length field if it is wrong, else the
    // number of bytes the parameter really occupies.
    let wrong = |field: usize, expected: usize| {
        if field != expected {
            field
        } else {
            param.len()
        }
    };
    match kind {
        param_type::IPV4_ADDRESS => match param.get(tlv::VALUE..) {
            Some(&[a, b, c, d]) if length == IPV4_ADDRESS_LEN => {
                Ok(IpAddr::V4(Ipv4Addr::new(a, b, c, d)))
            }
            _ => Err(WireError::BadLength {
                what: "IPv4 Address parameter",
                length: wrong(length, IPV4_ADDRESS_LEN),
            }),
        },
        param_type::IPV6_ADDRESS => {
            let octets: Option<[u8; 16]> = param.get(tlv::VALUE..).and_then(|v| v.try_into().ok());
            match octets {
                Some(o) if length == IPV6_ADDRESS_LEN => Ok(IpAddr::V6(Ipv6Addr::from(o))),
                _ => Err(WireError::BadLength {
                    what: "IPv6 Address parameter",
                    length: wrong(length, IPV6_ADDRESS_LEN),
                }),
            }
        }
        other => Err(WireError::BadAddressType(other)),
    }
}

fn exact(what: &'static str, value: &[u8], len: usize) -> Result<(), WireError> {
    if value.len() == len {
        Ok(())
    } else {
        Err(WireError::BadLength {
            what,
            length: value.len() + 4,
        })
    }
}

fn u16_list(what: &'static str, value: &[u8]) -> Result<Vec<u16>, WireError> {
    if !value.len().is_multiple_of(2) {
        return Err(WireError::BadLength {
            what,
            length: value.len() + 4,
        });
    }
    Ok(value
        .chunks_exact(2)
        .map(|p| u16::from_be_bytes([p[0], p[1]]))
        .collect())
}

impl Param {
    /// The Parameter Type this value is sent with.
    pub fn param_type(&self) -> u16 {
        use param_type as t;
        match self {
            Param::HeartbeatInfo(_) => t::HEARTBEAT_INFO,
            Param::Ipv4Address(_) => t::IPV4_ADDRESS,
            Param::Ipv6Address(_) => t::IPV6_ADDRESS,
            Param::StateCookie(_) => t::STATE_COOKIE,
            Param::UnrecognizedParameter(_) => t::UNRECOGNIZED_PARAMETER,
            Param::CookiePreservative(_) => t::COOKIE_PRESERVATIVE,
            Param::HostNameAddress(_) => t::HOST_NAME_ADDRESS,
            Param::SupportedAddressTypes(_) => t::SUPPORTED_ADDRESS_TYPES,
            Param::EcnCapable => t::ECN_CAPABLE,
            Param::ForwardTsnSupported => t::FORWARD_TSN_SUPPORTED,
            Param::AddIpAddress { .. } => t::ADD_IP_ADDRESS,
            Param::DeleteIpAddress { .. } => t::DELETE_IP_ADDRESS,
            Param::SetPrimaryAddress { .. } => t::SET_PRIMARY_ADDRESS,
            Param::ErrorCauseIndication { .. } => t::ERROR_CAUSE_INDICATION,
            Param::SuccessIndication { .. } => t::SUCCESS_INDICATION,
            Param::AdaptationLayerIndication(_) => t::ADAPTATION_LAYER_INDICATION,
            Param::SupportedExtensions(_) => t::SUPPORTED_EXTENSIONS,
            Param::Random(_) => t::RANDOM,
            Param::Chunks(_) => t::CHUNKS,
            Param::HmacAlgo(_) => t::HMAC_ALGO,
            Param::Unknown { param_type, .. } => *param_type,
        }
    }

    fn value_len(&self) -> usize {
        match self {
            Param::HeartbeatInfo(b)
            | Param::StateCookie(b)
            | Param::UnrecognizedParameter(b)
            | Param::HostNameAddress(b)
            | Param::Random(b)
            | Param::Unknown { value: b, .. } => b.len(),
            Param::Ipv4Address(_) => 4,
            Param::Ipv6Address(_) => 16,
            Param::CookiePreservative(_)
            | Param::AdaptationLayerIndication(_)
            | Param::SuccessIndication { .. } => 4,
            Param::SupportedAddressTypes(v) | Param::HmacAlgo(v) => v.len().saturating_mul(2),
            Param::EcnCapable | Param::ForwardTsnSupported => 0,
            Param::AddIpAddress { address, .. }
            | Param::DeleteIpAddress { address, .. }
            | Param::SetPrimaryAddress { address, .. } => 4 + address_param_len(address),
            Param::ErrorCauseIndication { causes, .. } => {
                4usize.saturating_add(tlv::list_len(causes))
            }
            Param::SupportedExtensions(v) | Param::Chunks(v) => v.len(),
        }
    }

    /// The Parameter Length field: header and value, without padding. May
    /// exceed 65535 for an oversized value, which cannot be sent.
    pub fn length(&self) -> usize {
        self.value_len()
            .saturating_add(ParamView::<&[u8]>::HEADER_LEN)
    }

    /// The length rounded up to a multiple of 4: the bytes [`Param::emit`]
    /// appends.
    pub fn padded_len(&self) -> usize {
        Tlv::padded_len(self)
    }

    /// Decodes one parameter; `tlv` starts with the parameter's header and
    /// may continue past its length field (padding), which is ignored.
    pub fn parse(bytes: &Bytes) -> Result<Param, WireError> {
        tlv::parse_one(bytes)
    }

    /// Decodes a list of padded parameters, such as the variable part of an
    /// INIT or ASCONF chunk, in order.
    pub fn parse_list(buf: &Bytes) -> Result<Vec<Param>, WireError> {
        tlv::parse_list_at(buf, 0..buf.len())
    }

    /// Appends the parameter (header, value and zero padding to 4 bytes).
    /// The length field saturates at 65535 for an oversized value (check
    /// [`Param::length`] first; the chunk emitters refuse such chunks in
    /// their checked forms).
    pub fn emit(&self, out: &mut Vec<u8>) {
        Tlv::emit(self, out)
    }
}

impl Tlv for Param {
    const KIND: Kind = Kind::Param;

    fn length(&self) -> usize {
        Param::length(self)
    }

    fn decode(buf: &Bytes, range: Range<usize>, p: &[u8]) -> Result<Param, WireError> {
        use param_type as t;
        let value = &p[tlv::VALUE..];
        let slice = || buf.slice(range.start + tlv::VALUE..range.end);
        let kind = u16_at(p, tlv::TYPE);
        let param = match kind {
            t::HEARTBEAT_INFO => Param::HeartbeatInfo(slice()),
            t::IPV4_ADDRESS | t::IPV6_ADDRESS => match parse_address(p)? {
                IpAddr::V4(a) => Param::Ipv4Address(a),
                IpAddr::V6(a) => Param::Ipv6Address(a),
            },
            t::STATE_COOKIE => Param::StateCookie(slice()),
            t::UNRECOGNIZED_PARAMETER => Param::UnrecognizedParameter(slice()),
            t::COOKIE_PRESERVATIVE => {
                exact("Cookie Preservative parameter", value, 4)?;
                Param::CookiePreservative(u32_at(value, 0))
            }
            t::HOST_NAME_ADDRESS => Param::HostNameAddress(slice()),
            t::SUPPORTED_ADDRESS_TYPES => {
                Param::SupportedAddressTypes(u16_list("Supported Address Types parameter", value)?)
            }
            t::ECN_CAPABLE => Param::EcnCapable,
            t::FORWARD_TSN_SUPPORTED => Param::ForwardTsnSupported,
            t::ADD_IP_ADDRESS | t::DELETE_IP_ADDRESS | t::SET_PRIMARY_ADDRESS => {
                if value.len() < 8 {
                    return Err(WireError::BadLength {
                        what: "ADD-IP request parameter",
                        length: p.len(),
                    });
                }
                let correlation_id = u32_at(value, correlated::CORRELATION_ID);
                let address = parse_address(&value[correlated::REST..])?;
                match kind {
                    t::ADD_IP_ADDRESS => Param::AddIpAddress {
                        correlation_id,
                        address,
                    },
                    t::DELETE_IP_ADDRESS => Param::DeleteIpAddress {
                        correlation_id,
                        address,
                    },
                    _ => Param::SetPrimaryAddress {
                        correlation_id,
                        address,
                    },
                }
            }
            t::ERROR_CAUSE_INDICATION => {
                if value.len() < 4 {
                    return Err(WireError::BadLength {
                        what: "Error Cause Indication parameter",
                        length: p.len(),
                    });
                }
                let causes = tlv::parse_list_at(
                    buf,
                    range.start + tlv::VALUE + correlated::REST..range.end,
                )?;
                Param::ErrorCauseIndication {
                    correlation_id: u32_at(value, correlated::CORRELATION_ID),
                    causes,
                }
            }
            t::SUCCESS_INDICATION => {
                exact("Success Indication parameter", value, 4)?;
                Param::SuccessIndication {
                    correlation_id: u32_at(value, correlated::CORRELATION_ID),
                }
            }
            t::ADAPTATION_LAYER_INDICATION => {
                exact("Adaptation Layer Indication parameter", value, 4)?;
                Param::AdaptationLayerIndication(u32_at(value, 0))
            }
            t::SUPPORTED_EXTENSIONS => Param::SupportedExtensions(value.to_vec()),
            t::RANDOM => Param::Random(slice()),
            t::CHUNKS => Param::Chunks(value.to_vec()),
            t::HMAC_ALGO => Param::HmacAlgo(u16_list("HMAC-ALGO parameter", value)?),
            other => Param::Unknown {
                param_type: other,
                value: slice(),
            },
        };
        Ok(param)
    }

    fn emit_value(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.param_type().to_be_bytes());
        out.extend_from_slice(&[0, 0]);
        match self {
            Param::HeartbeatInfo(b)
            | Param::StateCookie(b)
            | Param::UnrecognizedParameter(b)
            | Param::HostNameAddress(b)
            | Param::Random(b)
            | Param::Unknown { value: b, .. } => out.extend_from_slice(b),
            Param::Ipv4Address(a) => out.extend_from_slice(&a.octets()),
            Param::Ipv6Address(a) => out.extend_from_slice(&a.octets()),
            Param::CookiePreservative(v) | Param::AdaptationLayerIndication(v) => {
                out.extend_from_slice(&v.to_be_bytes())
            }
            Param::SuccessIndication { correlation_id } => {
                out.extend_from_slice(&correlation_id.to_be_bytes())
            }
            Param::SupportedAddressTypes(v) | Param::HmacAlgo(v) => {
                for x in v {
                    out.extend_from_slice(&x.to_be_bytes());
                }
            }
            Param::EcnCapable | Param::ForwardTsnSupported => {}
            Param::AddIpAddress {
                correlation_id,
                address,
            }
            | Param::DeleteIpAddress {
                correlation_id,
                address,
            }
            | Param::SetPrimaryAddress {
                correlation_id,
                address,
            } => {
                out.extend_from_slice(&correlation_id.to_be_bytes());
                emit_address(address, out);
            }
            Param::ErrorCauseIndication {
                correlation_id,
                causes,
            } => {
                out.extend_from_slice(&correlation_id.to_be_bytes());
                tlv::emit_list(causes, out);
            }
            Param::SupportedExtensions(v) | Param::Chunks(v) => out.extend_from_slice(v),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::cause::ErrorCause;

    use crate::wire::tlv::testing::bytes;

    /// Parses one padded parameter, checks `emit` gives the same bytes.
    fn roundtrip(hex_str: &str) -> Param {
        let (p, kind) = crate::wire::tlv::testing::roundtrip::<Param>(hex_str);
        assert_eq!(p.param_type(), kind);
        p
    }

    fn parse_err(hex_str: &str) -> WireError {
        crate::wire::tlv::testing::parse_err::<Param>(hex_str)
    }

    #[test]
    fn base_parameters() {
        assert_eq!(
            roundtrip("0001 0007 616263 00"),
            Param::HeartbeatInfo(Bytes::from_static(b"abc"))
        );
        assert_eq!(
            roundtrip("0005 0008 c0000201"),
            Param::Ipv4Address(Ipv4Addr::new(192, 0, 2, 1))
        );
        assert_eq!(
            roundtrip("0006 0014 20010db8 00000000 00000000 0000ffff"),
            Param::Ipv6Address("2001:db8::ffff".parse().unwrap())
        );
        assert_eq!(
            roundtrip("0007 0006 6b6b 0000"),
            Param::StateCookie(Bytes::from_static(b"kk"))
        );
        assert_eq!(
            roundtrip("0008 0008 ff770004"),
            Param::UnrecognizedParameter(Bytes::from_static(&[0xff, 0x77, 0, 4]))
        );
        assert_eq!(
            roundtrip("0009 0008 00002710"),
            Param::CookiePreservative(10_000)
        );
        assert_eq!(
            roundtrip("000b 000b 6578616d706c65 00"),
            Param::HostNameAddress(Bytes::from_static(b"example"))
        );
        assert_eq!(
            roundtrip("000c 0006 0005 0000"),
            Param::SupportedAddressTypes(vec![5])
        );
        assert_eq!(
            roundtrip("000c 0008 0006 0005"),
            Param::SupportedAddressTypes(vec![6, 5])
        );
        assert_eq!(roundtrip("8000 0004"), Param::EcnCapable);
        assert_eq!(roundtrip("c000 0004"), Param::ForwardTsnSupported);
        assert_eq!(
            roundtrip("abcd 0006 0102 0000"),
            Param::Unknown {
                param_type: 0xabcd,
                value: Bytes::from_static(&[1, 2])
            }
        );
    }

    #[test]
    fn auth_parameters() {
        let random = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
        assert_eq!(
            roundtrip(&format!("8002 0024 {random}")),
            Param::Random(bytes(random))
        );
        assert_eq!(
            roundtrip("8003 0006 c180 0000"),
            Param::Chunks(vec![0xc1, 0x80])
        );
        assert_eq!(
            roundtrip("8004 0008 0003 0001"),
            Param::HmacAlgo(vec![3, 1])
        );
        assert_eq!(
            parse_err("8004 0007 0003 00 00"),
            WireError::BadLength {
                what: "HMAC-ALGO parameter",
                length: 7
            }
        );
    }

    #[test]
    fn add_ip_parameters() {
        assert_eq!(
            roundtrip("8008 0005 c1 000000"),
            Param::SupportedExtensions(vec![0xc1])
        );
        assert_eq!(
            roundtrip("c001 0010 0000000a 0005 0008 00000000"),
            Param::AddIpAddress {
                correlation_id: 10,
                address: IpAddr::from([0, 0, 0, 0])
            }
        );
        assert_eq!(
            roundtrip("c002 001c 0000000b 0006 0014 00000000 00000000 00000000 00000000"),
            Param::DeleteIpAddress {
                correlation_id: 11,
                address: "::".parse().unwrap()
            }
        );
        assert_eq!(
            roundtrip("c004 0010 0000000c 0005 0008 c6336401"),
            Param::SetPrimaryAddress {
                correlation_id: 12,
                address: IpAddr::from([198, 51, 100, 1])
            }
        );
        assert_eq!(
            roundtrip("c005 0008 0000000d"),
            Param::SuccessIndication { correlation_id: 13 }
        );
        assert_eq!(
            roundtrip("c006 0008 01020304"),
            Param::AdaptationLayerIndication(0x0102_0304)
        );
        assert_eq!(
            roundtrip("c003 0018 0000000e 00a3 0004 0105 0006 0002 0000 0004 0004"),
            Param::ErrorCauseIndication {
                correlation_id: 14,
                causes: vec![
                    ErrorCause::IllegalAsconfAck,
                    ErrorCause::UnsupportedHmacIdentifier { hmac_id: 2 },
                    ErrorCause::OutOfResource,
                ],
            }
        );
        assert_eq!(
            roundtrip("c003 0008 0000000f"),
            Param::ErrorCauseIndication {
                correlation_id: 15,
                causes: vec![]
            }
        );
    }

    #[test]
    fn fixed_size_parameters_with_wrong_lengths() {
        assert_eq!(
            parse_err("0005 0007 c00002 00"),
            WireError::BadLength {
                what: "IPv4 Address parameter",
                length: 7
            }
        );
        assert_eq!(
            parse_err("0006 0008 20010db8"),
            WireError::BadLength {
                what: "IPv6 Address parameter",
                length: 8
            }
        );
        assert_eq!(
            parse_err("0009 000c 00002710 00000000"),
            WireError::BadLength {
                what: "Cookie Preservative parameter",
                length: 12
            }
        );
        assert_eq!(
            parse_err("000c 0007 0005 00 00"),
            WireError::BadLength {
                what: "Supported Address Types parameter",
                length: 7
            }
        );
        assert_eq!(
            parse_err("c005 0004"),
            WireError::BadLength {
                what: "Success Indication parameter",
                length: 4
            }
        );
        assert_eq!(
            parse_err("c006 000c 00000001 00000000"),
            WireError::BadLength {
                what: "Adaptation Layer Indication parameter",
                length: 12
            }
        );
        assert_eq!(
            parse_err("c001 000a 00000001 0005 0000"),
            WireError::BadLength {
                what: "ADD-IP request parameter",
                length: 10
            }
        );
        assert_eq!(
            parse_err("c001 000c 00000001 0005 0004"),
            WireError::BadLength {
                what: "IPv4 Address parameter",
                length: 4
            }
        );
        assert_eq!(
            parse_err("c001 0010 00000001 0005 000c c0000201"),
            WireError::BadLength {
                what: "IPv4 Address parameter",
                length: 12
            }
        );
        assert_eq!(
            parse_err("c002 0010 00000001 000b 0008 61626364"),
            WireError::BadAddressType(0x000b)
        );
        assert_eq!(
            parse_err("c003 0006 0000"),
            WireError::BadLength {
                what: "Error Cause Indication parameter",
                length: 6
            }
        );
        assert_eq!(
            parse_err("c003 000c 00000001 0001 0000"),
            WireError::BadParamLength {
                offset: 8,
                length: 0
            }
        );
        // ECN Capable and Forward-TSN Supported: value ignored.
        assert_eq!(
            Param::parse(&bytes("8000 0008 00000000")).unwrap(),
            Param::EcnCapable
        );
        assert_eq!(
            Param::parse(&bytes("c000 0005 01 000000")).unwrap(),
            Param::ForwardTsnSupported
        );
    }

    #[test]
    fn view_and_header_errors() {
        assert_eq!(
            parse_err("0005 0000"),
            WireError::BadParamLength {
                offset: 0,
                length: 0
            }
        );
        assert_eq!(
            parse_err("0005 0003"),
            WireError::BadParamLength {
                offset: 0,
                length: 3
            }
        );
        assert_eq!(
            parse_err("0005 0009 c0000201"),
            WireError::BadParamLength {
                offset: 0,
                length: 9
            }
        );
        assert_eq!(
            parse_err("0005 00"),
            WireError::Truncated {
                offset: 0,
                needed: 4,
                available: 3
            }
        );
        let b = bytes("0001 0006 abcd 0000");
        let v = ParamView::new_checked(&b[..]).unwrap();
        assert_eq!(
            (v.param_type(), v.length(), v.value(), v.padded_len()),
            (1, 6, &[0xab, 0xcd][..], 8)
        );
        assert_eq!(v.unknown_action(), UnknownParamAction::Stop);
        let v = ParamView::new_unchecked(&b[..5]);
        assert_eq!(v.value(), &[0xab][..]);
        let v = ParamView::new_unchecked(&b[..1]);
        assert_eq!((v.param_type(), v.length(), v.value()), (0, 0, &[][..]));
        assert_eq!(v.into_inner(), &[0u8][..]);
    }

    #[test]
    fn list_walk_and_padding() {
        // The last parameter's padding may be missing or present.
        let without = bytes("0001 0005 aa 000000 0001 0006 bbcc");
        let with = bytes("0001 0005 aa 000000 0001 0006 bbcc 0000");
        for b in [&without, &with] {
            let ranges: Vec<_> = ParamIter::new(b).map(|r| r.unwrap().0).collect();
            assert_eq!(ranges, vec![0..5, 8..14]);
            assert_eq!(
                Param::parse_list(b).unwrap(),
                vec![
                    Param::HeartbeatInfo(Bytes::from_static(&[0xaa])),
                    Param::HeartbeatInfo(Bytes::from_static(&[0xbb, 0xcc])),
                ]
            );
        }
        assert_eq!(tlv::list_len(&Param::parse_list(&with).unwrap()), 14);
        // Stray bytes after the last parameter.
        let mut it = ParamIter::new(&[0, 1, 0, 4, 9, 9][..]);
        assert!(it.next().unwrap().is_ok());
        assert_eq!(
            it.next().unwrap().unwrap_err(),
            WireError::Truncated {
                offset: 4,
                needed: 4,
                available: 2
            }
        );
        assert!(it.next().is_none());
        // A zero length stops the walk with an error the engine can match.
        let b = bytes("0001 0004 0005 0000 0001 0004");
        let mut it = ParamIter::new(&b);
        assert!(it.next().unwrap().is_ok());
        assert_eq!(
            it.next().unwrap().unwrap_err(),
            WireError::BadParamLength {
                offset: 4,
                length: 0
            }
        );
        assert!(it.next().is_none());
        assert_eq!(
            Param::parse_list(&b).unwrap_err(),
            WireError::BadParamLength {
                offset: 4,
                length: 0
            }
        );
        // Sub-ranges: offsets are positions in the whole buffer.
        let ranges: Vec<_> = ParamIter::new_in(&b, 4..8).collect();
        assert_eq!(ranges.len(), 1);
        assert_eq!(
            ranges[0].as_ref().unwrap_err(),
            &WireError::BadParamLength {
                offset: 4,
                length: 0
            }
        );
        assert_eq!(ParamIter::new_in(&b, Range { start: 9, end: 4 }).count(), 0);
        assert_eq!(ParamIter::new_in(&b, 8..100).count(), 1);
        assert!(Param::parse_list(&Bytes::new()).unwrap().is_empty());
    }

    #[test]
    fn unknown_param_action_from_high_bits() {
        assert_eq!(
            UnknownParamAction::from_type(0x3fff),
            UnknownParamAction::Stop
        );
        assert_eq!(
            UnknownParamAction::from_type(0x4000),
            UnknownParamAction::StopAndReport
        );
        assert_eq!(
            UnknownParamAction::from_type(param_type::ECN_CAPABLE),
            UnknownParamAction::Skip
        );
        assert_eq!(
            UnknownParamAction::from_type(param_type::ADD_IP_ADDRESS),
            UnknownParamAction::SkipAndReport
        );
        assert!(
            UnknownParamAction::StopAndReport.reports()
                && UnknownParamAction::StopAndReport.stops()
        );
        assert!(!UnknownParamAction::Skip.reports() && !UnknownParamAction::Skip.stops());
    }

    #[test]
    fn oversized_parameter_saturates_its_length_field() {
        let p = Param::StateCookie(Bytes::from(vec![0u8; 70_000]));
        assert_eq!(p.length(), 70_004);
        let mut out = Vec::new();
        p.emit(&mut out);
        assert_eq!(out.len(), 70_004);
        assert_eq!(&out[2..4], &[0xff, 0xff]);
    }
}
