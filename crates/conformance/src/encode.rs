//! From script descriptions to bytes.
//!
//! Two uses share one encoder:
//! - inbound packets: every field gets a value (wildcards become 0, as in
//!   packetdrill), script TSNs and tags are mapped to the engine's, the
//!   State Cookie and Heartbeat Info the engine sent are echoed;
//! - expected TLVs of outbound packets (parameters, error causes, chunks
//!   inside causes): the bytes come with a mask of the bytes to compare, so
//!   `...` fields are skipped byte by byte.
//!
//! Lengths follow packetdrill (and RFC 9260 section 3.2): a TLV's length
//! counts its value but not its own padding; a list of TLVs pads every
//! element but the last; a chunk embedded in an Unrecognized Chunk Type
//! cause is copied with its padding.

use std::net::IpAddr;

use msctp_proto::wire::cause::cause_code as c;
use msctp_proto::wire::param::{emit_address, param_type as p};

use crate::mapping::Mapping;
use crate::names;

mod chunk;
use crate::spec::{CauseList, CauseSpec, Field, ParamList, ParamSpec};
pub use chunk::chunk;

/// Bytes with a per-byte "compare this" mask.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Masked {
    pub bytes: Vec<u8>,
    pub mask: Vec<bool>,
    /// False once an element of unknown length was written: the
    /// enclosing length is then unknown too, and nothing after it is
    /// compared.
    pub len_known: bool,
}

impl Masked {
    fn new() -> Self {
        Masked {
            bytes: Vec::new(),
            mask: Vec::new(),
            len_known: true,
        }
    }

    fn put(&mut self, data: &[u8], checked: bool) {
        let checked = checked && self.len_known;
        self.bytes.extend_from_slice(data);
        self.mask.extend(std::iter::repeat_n(checked, data.len()));
    }

    fn u8(&mut self, v: Option<u8>) {
        self.put(&[v.unwrap_or(0)], v.is_some());
    }
    fn u16(&mut self, v: Option<u16>) {
        self.put(&v.unwrap_or(0).to_be_bytes(), v.is_some());
    }
    fn u32(&mut self, v: Option<u32>) {
        self.put(&v.unwrap_or(0).to_be_bytes(), v.is_some());
    }

    fn pad(&mut self) {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
            self.mask.push(false);
        }
    }

    fn append(&mut self, other: &Masked) {
        if !self.len_known {
            self.put(&other.bytes, false);
        } else {
            self.bytes.extend_from_slice(&other.bytes);
            self.mask.extend_from_slice(&other.mask);
        }
        self.len_known &= other.len_known;
    }

    /// Appends an embedded TLV: after one of unknown length nothing is
    /// compared.
    fn append_tlv(&mut self, t: &Tlv) {
        self.append(&t.body);
        if !t.check_len {
            self.unknown();
        }
    }

    /// Marks the rest as unknown (an element of unknown length follows).
    fn unknown(&mut self) {
        self.len_known = false;
    }
}

/// An encoded TLV (parameter, cause, or chunk): `bytes` hold the header
/// and value without the trailing padding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tlv {
    pub body: Masked,
    /// The length field is known and must be compared.
    pub check_len: bool,
    /// The type (or cause code) is known and must be compared.
    pub check_type: bool,
}

impl Tlv {
    pub fn len_field(&self) -> u16 {
        u16::from_be_bytes([
            self.body.bytes.get(2).copied().unwrap_or(0),
            self.body.bytes.get(3).copied().unwrap_or(0),
        ])
    }

    /// Whether the bytes after the header can be compared at all.
    pub fn value_checked(&self) -> bool {
        self.body.mask.iter().skip(4).any(|m| *m)
    }
}

/// Why an inbound packet could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("{0} needs a value for {1} in an inbound packet")]
    NeedsValue(&'static str, &'static str),
    #[error("COOKIE_ECHO[val=...]: the engine has not sent a State Cookie yet")]
    NoCookie,
    #[error("HEARTBEAT_ACK[val=...]: the engine has not sent a HEARTBEAT yet")]
    NoHeartbeat,
    #[error("{0} is too long for its 16-bit length field")]
    TooLong(&'static str),
}

/// How to encode.
#[derive(Clone, Copy)]
pub enum Mode<'a> {
    /// Build a packet to inject.
    Inbound(&'a InboundCtx<'a>),
    /// Build the expectation of an outbound TLV (no mapping).
    Expect,
}

/// What inbound encoding needs from the run.
pub struct InboundCtx<'a> {
    pub map: &'a Mapping,
    /// The State Cookie of the engine's last INIT ACK.
    pub cookie: Option<&'a [u8]>,
    /// The value of the engine's last HEARTBEAT chunk (its Heartbeat Info
    /// parameter, whole).
    pub heartbeat: Option<&'a [u8]>,
}

impl Mode<'_> {
    fn inbound(&self) -> bool {
        matches!(self, Mode::Inbound(_))
    }

    /// A wildcard value: any bytes are expected (nothing to inject).
    fn wildcard(&self, m: &mut Masked) {
        if !self.inbound() {
            m.unknown();
        }
    }
}

fn field<T: Copy>(f: &Field<T>) -> Option<T> {
    f.get().copied()
}

fn len16(n: usize, what: &'static str) -> Result<u16, EncodeError> {
    u16::try_from(n).map_err(|_| EncodeError::TooLong(what))
}

/// Wraps a value into a TLV. `len`: an explicit length from the script.
fn wrap(
    ty: Option<u16>,
    len: Option<u16>,
    value: Masked,
    what: &'static str,
) -> Result<Tlv, EncodeError> {
    let mut body = Masked::new();
    body.u16(ty);
    let (field, check_len) = match len {
        Some(l) => (l, true),
        None => (len16(4 + value.bytes.len(), what)?, value.len_known),
    };
    body.put(&field.to_be_bytes(), false);
    body.append(&value);
    body.len_known = check_len;
    Ok(Tlv {
        body,
        check_len,
        check_type: ty.is_some(),
    })
}

/// Appends TLVs as a list: each padded but the last (whose padding the
/// container adds).
fn list(items: &[Tlv]) -> Masked {
    let mut m = Masked::new();
    for (k, t) in items.iter().enumerate() {
        if !t.check_len {
            m.append(&t.body);
            m.unknown();
            continue;
        }
        m.append(&t.body);
        if k + 1 < items.len() {
            m.pad();
        }
    }
    m
}

fn bytes_or_len(
    mode: Mode<'_>,
    len: &Field<u16>,
    val: &Field<Vec<u8>>,
    header: usize,
) -> (Masked, Option<u16>) {
    let mut m = Masked::new();
    match (val, len) {
        (Field::Is(v), l) => {
            m.put(v, true);
            (m, field(l))
        }
        (Field::Any, Field::Is(l)) => {
            let n = usize::from(*l).saturating_sub(header);
            m.put(&vec![0u8; n], false);
            (m, Some(*l))
        }
        (Field::Any, Field::Any) => {
            mode.wildcard(&mut m);
            (m, None)
        }
    }
}

/// A field of 16-bit values (address types, HMAC identifiers), given or
/// a wildcard.
fn u16_list(mode: Mode<'_>, v: &mut Masked, f: &Field<Vec<u16>>) {
    match f {
        Field::Is(list) => list.iter().for_each(|x| v.u16(Some(*x))),
        Field::Any => mode.wildcard(v),
    }
}

/// A field of bytes (chunk types, cause information), given or a wildcard.
fn byte_list(mode: Mode<'_>, v: &mut Masked, f: &Field<Vec<u8>>) {
    match f {
        Field::Is(b) => v.put(b, true),
        Field::Any => mode.wildcard(v),
    }
}

fn address_value(m: &mut Masked, a: &Field<IpAddr>) {
    match a {
        Field::Is(IpAddr::V4(v4)) => m.put(&v4.octets(), true),
        Field::Is(IpAddr::V6(v6)) => m.put(&v6.octets(), true),
        Field::Any => m.unknown(),
    }
}

/// The Address Parameter of ADD-IP (RFC 5061 section 4.2.1): a whole
/// IPv4 or IPv6 Address parameter.
fn address_param(
    mode: Mode<'_>,
    a: &Field<IpAddr>,
    what: &'static str,
) -> Result<Masked, EncodeError> {
    let mut m = Masked::new();
    match a {
        Field::Is(addr) => {
            let mut b = Vec::with_capacity(20);
            emit_address(addr, &mut b);
            m.put(&b, true);
        }
        Field::Any => {
            if mode.inbound() {
                return Err(EncodeError::NeedsValue(what, "addr"));
            }
            m.unknown();
        }
    }
    Ok(m)
}

/// Encodes a parameter.
// Long because: one short arm per parameter kind of the script language.
pub fn param(mode: Mode<'_>, p: &ParamSpec) -> Result<Tlv, EncodeError> {
    let mut v = Masked::new();
    let (ty, len): (Option<u16>, Option<u16>) = match p {
        ParamSpec::Ipv4(a) => {
            if a.is_any() {
                v.put(&[0; 4], false);
            } else {
                address_value(&mut v, a);
            }
            (Some(p::IPV4_ADDRESS), None)
        }
        ParamSpec::Ipv6(a) => {
            if a.is_any() {
                v.put(&[0; 16], false);
            } else {
                address_value(&mut v, a);
            }
            (Some(p::IPV6_ADDRESS), None)
        }
        ParamSpec::StateCookie { len, val } => {
            let (m, l) = bytes_or_len(mode, len, val, 4);
            v = m;
            (Some(p::STATE_COOKIE), l)
        }
        ParamSpec::HostName(h) => {
            match h {
                Field::Is(s) => {
                    v.put(s.as_bytes(), true);
                    v.put(&[0], true);
                }
                Field::Any => {
                    if mode.inbound() {
                        v.put(&[0], false);
                    } else {
                        v.unknown();
                    }
                }
            }
            (Some(p::HOST_NAME_ADDRESS), None)
        }
        ParamSpec::SupportedAddressTypes(t) => {
            u16_list(mode, &mut v, t);
            (Some(p::SUPPORTED_ADDRESS_TYPES), None)
        }
        ParamSpec::CookiePreservative(i) => {
            v.u32(field(i));
            (Some(p::COOKIE_PRESERVATIVE), None)
        }
        ParamSpec::Unrecognized(ps) => {
            params_field(mode, &mut v, ps)?;
            (Some(p::UNRECOGNIZED_PARAMETER), None)
        }
        ParamSpec::HeartbeatInfo { len, val } => {
            let (m, l) = bytes_or_len(mode, len, val, 4);
            v = m;
            (Some(p::HEARTBEAT_INFO), l)
        }
        ParamSpec::EcnCapable => (Some(p::ECN_CAPABLE), None),
        ParamSpec::ForwardTsnSupported => (Some(p::FORWARD_TSN_SUPPORTED), None),
        ParamSpec::SupportedExtensions(t) => {
            byte_list(mode, &mut v, t);
            (Some(p::SUPPORTED_EXTENSIONS), None)
        }
        ParamSpec::Adaptation(c) => {
            v.u32(field(c));
            (Some(p::ADAPTATION_LAYER_INDICATION), None)
        }
        ParamSpec::Random { len, val } => {
            let (m, l) = bytes_or_len(mode, len, val, 4);
            v = m;
            (Some(p::RANDOM), l)
        }
        ParamSpec::Chunks(t) => {
            byte_list(mode, &mut v, t);
            (Some(p::CHUNKS), None)
        }
        ParamSpec::HmacAlgo(ids) => {
            u16_list(mode, &mut v, ids);
            (Some(p::HMAC_ALGO), None)
        }
        ParamSpec::AddIp { corr, addr }
        | ParamSpec::DeleteIp { corr, addr }
        | ParamSpec::SetPrimary { corr, addr } => {
            let ty = match p {
                ParamSpec::AddIp { .. } => p::ADD_IP_ADDRESS,
                ParamSpec::DeleteIp { .. } => p::DELETE_IP_ADDRESS,
                _ => p::SET_PRIMARY_ADDRESS,
            };
            let name = names::param_name(ty).unwrap_or("PARAMETER");
            v.u32(field(corr));
            let a = address_param(mode, addr, name)?;
            v.append(&a);
            (Some(ty), None)
        }
        ParamSpec::ErrorIndication { corr, causes } => {
            v.u32(field(corr));
            let c = cause_list(mode, causes)?;
            v.append(&c);
            (Some(p::ERROR_CAUSE_INDICATION), None)
        }
        ParamSpec::Success { corr } => {
            v.u32(field(corr));
            (Some(p::SUCCESS_INDICATION), None)
        }
        ParamSpec::Generic { ty, len, val } => {
            let (m, l) = bytes_or_len(mode, len, val, 4);
            v = m;
            let t = field(ty);
            if t.is_none() && mode.inbound() {
                return Err(EncodeError::NeedsValue("PARAMETER", "type"));
            }
            (t, l)
        }
    };
    let name = ty.and_then(names::param_name).unwrap_or("PARAMETER");
    wrap(ty, len, v, name)
}

/// A list of TLVs encoded one by one; `more`: further unknown ones may
/// follow (expectations only).
fn encode_list<T>(
    mode: Mode<'_>,
    items: &[T],
    more: bool,
    enc: fn(Mode<'_>, &T) -> Result<Tlv, EncodeError>,
) -> Result<Masked, EncodeError> {
    let tlvs = items
        .iter()
        .map(|x| enc(mode, x))
        .collect::<Result<Vec<_>, _>>()?;
    let mut m = list(&tlvs);
    if more {
        mode.wildcard(&mut m);
    }
    Ok(m)
}

fn param_list(mode: Mode<'_>, ps: &ParamList) -> Result<Masked, EncodeError> {
    encode_list(mode, &ps.items, ps.more, param)
}

fn cause_list(mode: Mode<'_>, cs: &CauseList) -> Result<Masked, EncodeError> {
    encode_list(mode, &cs.items, cs.more, cause)
}

/// A parameter list field of a parameter or cause (given, or a wildcard).
fn params_field(
    mode: Mode<'_>,
    v: &mut Masked,
    ps: &Field<Vec<ParamSpec>>,
) -> Result<(), EncodeError> {
    match ps {
        Field::Is(items) => *v = encode_list(mode, items, false, param)?,
        Field::Any => mode.wildcard(v),
    }
    Ok(())
}

fn embedded_param(
    mode: Mode<'_>,
    v: &mut Masked,
    p: &Option<Box<ParamSpec>>,
) -> Result<(), EncodeError> {
    match p {
        Some(p) => {
            v.append_tlv(&param(mode, p)?);
        }
        None => {
            mode.wildcard(v);
        }
    }
    Ok(())
}

/// Encodes an error cause.
// Long because: one short arm per error cause of the script language.
pub fn cause(mode: Mode<'_>, c: &CauseSpec) -> Result<Tlv, EncodeError> {
    let mut v = Masked::new();
    let mut explicit_len = None;
    let code: Option<u16> = match c {
        CauseSpec::InvalidStream(sid) => {
            v.u16(field(sid));
            v.put(&[0, 0], false);
            Some(c::INVALID_STREAM_IDENTIFIER)
        }
        CauseSpec::MissingMandatory(types) => {
            match types {
                Field::Is(list_) => {
                    v.put(&(list_.len() as u32).to_be_bytes(), true);
                    for t in list_ {
                        v.u16(Some(*t));
                    }
                }
                Field::Any => {
                    if mode.inbound() {
                        v.u32(Some(0));
                    } else {
                        v.unknown();
                    }
                }
            }
            Some(c::MISSING_MANDATORY_PARAMETER)
        }
        CauseSpec::StaleCookie(s) => {
            v.u32(field(s));
            Some(c::STALE_COOKIE)
        }
        CauseSpec::OutOfResources => Some(c::OUT_OF_RESOURCE),
        CauseSpec::Unresolvable(p) => {
            embedded_param(mode, &mut v, p)?;
            Some(c::UNRESOLVABLE_ADDRESS)
        }
        CauseSpec::UnrecognizedChunk(ch) => {
            match ch {
                Some(ch) => {
                    v.append_tlv(&chunk(mode, ch)?);
                    // The chunk is carried with its padding.
                    v.pad();
                }
                None => {
                    mode.wildcard(&mut v);
                }
            }
            Some(c::UNRECOGNIZED_CHUNK_TYPE)
        }
        CauseSpec::InvalidMandatory => Some(c::INVALID_MANDATORY_PARAMETER),
        CauseSpec::UnrecognizedParams(ps) => {
            params_field(mode, &mut v, ps)?;
            Some(c::UNRECOGNIZED_PARAMETERS)
        }
        CauseSpec::NoUserData(tsn) => {
            v.u32(field(tsn));
            Some(c::NO_USER_DATA)
        }
        CauseSpec::CookieWhileShutdown => Some(c::COOKIE_RECEIVED_WHILE_SHUTTING_DOWN),
        CauseSpec::RestartNewAddresses(ps) => {
            params_field(mode, &mut v, ps)?;
            Some(c::RESTART_WITH_NEW_ADDRESSES)
        }
        CauseSpec::UserAbort(info) | CauseSpec::ProtocolViolation(info) => {
            byte_list(mode, &mut v, info);
            if matches!(c, CauseSpec::UserAbort(_)) {
                Some(c::USER_INITIATED_ABORT)
            } else {
                Some(c::PROTOCOL_VIOLATION)
            }
        }
        CauseSpec::DeleteLast(p) => {
            embedded_param(mode, &mut v, p)?;
            Some(c::DELETE_LAST_REMAINING_ADDRESS)
        }
        CauseSpec::ResourceShortage(p) => {
            embedded_param(mode, &mut v, p)?;
            Some(c::RESOURCE_SHORTAGE)
        }
        CauseSpec::DeleteSource(p) => {
            embedded_param(mode, &mut v, p)?;
            Some(c::DELETE_SOURCE_ADDRESS)
        }
        CauseSpec::IllegalAsconfAck => Some(c::ILLEGAL_ASCONF_ACK),
        CauseSpec::RequestRefused(p) => {
            embedded_param(mode, &mut v, p)?;
            Some(c::NO_AUTHORIZATION)
        }
        CauseSpec::UnsupportedHmac(id) => {
            v.u16(field(id));
            Some(c::UNSUPPORTED_HMAC_IDENTIFIER)
        }
        CauseSpec::Generic { code, len, info } => {
            let (m, l) = bytes_or_len(mode, len, info, 4);
            v = m;
            explicit_len = l;
            field(code)
        }
    };
    let name = code.and_then(names::cause_name).unwrap_or("CAUSE");
    wrap(code, explicit_len, v, name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::ChunkSpec;

    fn generic(ty: u16, len: u16, val: &[u8]) -> ParamSpec {
        ParamSpec::Generic {
            ty: Field::Is(ty),
            len: Field::Is(len),
            val: Field::Is(val.to_vec()),
        }
    }

    #[test]
    fn unrecognized_parameters_cause_counts_no_final_padding() {
        let c = cause(
            Mode::Expect,
            &CauseSpec::UnrecognizedParams(Field::Is(vec![generic(0xc00c, 5, &[1])])),
        )
        .unwrap();
        assert_eq!(c.len_field(), 9);
        assert_eq!(c.body.bytes, vec![0, 8, 0, 9, 0xc0, 0x0c, 0, 5, 1]);
        assert!(c.check_len);
    }

    #[test]
    fn unrecognized_chunk_cause_carries_the_padded_chunk() {
        let ch = ChunkSpec::Generic {
            ty: Field::Is(0xef),
            flags: Field::Is(0),
            len: Field::Is(5),
            val: Field::Is(vec![1]),
        };
        let c = cause(
            Mode::Expect,
            &CauseSpec::UnrecognizedChunk(Some(Box::new(ch))),
        )
        .unwrap();
        assert_eq!(c.len_field(), 12);
        assert_eq!(&c.body.bytes[4..9], &[0xef, 0, 0, 5, 1]);
    }

    #[test]
    fn wildcards_are_masked_and_unknown_lengths_propagate() {
        let p = param(
            Mode::Expect,
            &ParamSpec::StateCookie {
                len: Field::Any,
                val: Field::Any,
            },
        )
        .unwrap();
        assert!(!p.check_len);
        let l = list(&[p, param(Mode::Expect, &ParamSpec::EcnCapable).unwrap()]);
        assert!(!l.len_known);
        assert!(
            l.mask.iter().skip(4).all(|m| !m),
            "nothing after an unknown length"
        );
        let a = param(
            Mode::Expect,
            &ParamSpec::AddIp {
                corr: Field::Any,
                addr: Field::Is("10.0.0.2".parse().unwrap()),
            },
        )
        .unwrap();
        assert_eq!(a.len_field(), 16);
        assert_eq!(&a.body.mask[4..8], &[false; 4], "correlation id skipped");
        assert!(a.body.mask[8..16].iter().all(|m| *m), "address compared");
    }
}
