//! Packets as text, in the script language, for failure messages: the
//! engine's actual packets are shown the way a script would describe them
//! (its TSNs and tag mapped back to script values).

use std::fmt::Write as _;

use bytes::Bytes;
use msctp_proto::wire::{Chunk, ErrorCause, Packet, Param};

use crate::mapping::Mapping;
use crate::names;

/// Name of a parameter type, as the scripts spell it.
pub fn param_name(ty: u16) -> String {
    names::param_name(ty).map_or_else(|| format!("PARAMETER(type=0x{ty:04x})"), String::from)
}

/// Name of an error cause code.
pub fn cause_name(code: u16) -> String {
    names::cause_name(code).map_or_else(|| format!("CAUSE(code=0x{code:04x})"), String::from)
}

/// Name of a chunk type.
pub fn chunk_name(ty: u8) -> String {
    names::chunk_name(ty).map_or_else(|| format!("CHUNK(type=0x{ty:02x})"), String::from)
}

/// A byte list as the scripts write it, shortened when long.
pub fn bytes_list(b: &[u8]) -> String {
    const SHOWN: usize = 24;
    let mut s = String::from("[");
    for (k, x) in b.iter().take(SHOWN).enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "0x{x:02x}");
    }
    if b.len() > SHOWN {
        let _ = write!(s, ", ... ({} bytes)", b.len());
    }
    s.push(']');
    s
}

fn tlv_bytes(ty: u16, value: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(4 + value.len());
    v.extend_from_slice(&ty.to_be_bytes());
    v.extend_from_slice(&((value.len() + 4) as u16).to_be_bytes());
    v.extend_from_slice(value);
    v
}

/// Renders one raw parameter TLV.
pub fn render_param_raw(raw: &[u8]) -> String {
    match Param::parse(&Bytes::copy_from_slice(raw)) {
        Ok(p) => render_param(&p),
        Err(_) => format!("<malformed parameter {}>", bytes_list(raw)),
    }
}

fn render_params(ps: &[Param]) -> String {
    ps.iter().map(render_param).collect::<Vec<_>>().join(", ")
}

pub fn render_param(p: &Param) -> String {
    match p {
        Param::HeartbeatInfo(v) => {
            format!(
                "HEARTBEAT_INFORMATION[len={}, val={}]",
                v.len() + 4,
                bytes_list(v)
            )
        }
        Param::Ipv4Address(a) => format!("IPV4_ADDRESS[addr={a}]"),
        Param::Ipv6Address(a) => format!("IPV6_ADDRESS[addr={a}]"),
        Param::StateCookie(c) => format!("STATE_COOKIE[len={}, val=...]", c.len() + 4),
        Param::UnrecognizedParameter(raw) => {
            format!("UNRECOGNIZED_PARAMETER[params=[{}]]", render_tlv_list(raw))
        }
        Param::CookiePreservative(i) => format!("COOKIE_PRESERVATIVE[incr={i}]"),
        Param::HostNameAddress(h) => format!(
            "HOSTNAME_ADDRESS[addr=\"{}\"]",
            String::from_utf8_lossy(h).trim_end_matches('\0')
        ),
        Param::SupportedAddressTypes(t) => format!(
            "SUPPORTED_ADDRESS_TYPES[types=[{}]]",
            t.iter()
                .map(|x| match x {
                    5 => "IPv4".to_string(),
                    6 => "IPv6".to_string(),
                    11 => "HOSTNAME".to_string(),
                    o => o.to_string(),
                })
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Param::EcnCapable => "ECN_CAPABLE[]".into(),
        Param::ForwardTsnSupported => "FORWARD_TSN_SUPPORTED[]".into(),
        Param::AddIpAddress {
            correlation_id,
            address,
        } => format!("ADD_IP_ADDRESS[corr_id={correlation_id}, addr={address}]"),
        Param::DeleteIpAddress {
            correlation_id,
            address,
        } => format!("DELETE_IP_ADDRESS[corr_id={correlation_id}, addr={address}]"),
        Param::SetPrimaryAddress {
            correlation_id,
            address,
        } => format!("SET_PRIMARY_ADDRESS[corr_id={correlation_id}, addr={address}]"),
        Param::ErrorCauseIndication {
            correlation_id,
            causes,
        } => format!(
            "ERROR_CAUSE_INDICATION[corr_id={correlation_id}, {}]",
            render_causes(causes)
        ),
        Param::SuccessIndication { correlation_id } => {
            format!("SUCCESS_INDICATION[corr_id={correlation_id}]")
        }
        Param::AdaptationLayerIndication(v) => {
            format!("ADAPTATION_INDICATION[adaptation_code_point={v}]")
        }
        Param::SupportedExtensions(t) => format!(
            "SUPPORTED_EXTENSIONS[types=[{}]]",
            t.iter()
                .map(|x| chunk_name(*x))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Param::Random(r) => format!("RANDOM[len={}, val=...]", r.len() + 4),
        Param::Chunks(c) => format!(
            "CHUNKS[types=[{}]]",
            c.iter()
                .map(|x| chunk_name(*x))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Param::HmacAlgo(ids) => format!(
            "HMAC_ALGO[ids=[{}]]",
            ids.iter()
                .map(|i| match i {
                    1 => "SHA1".to_string(),
                    3 => "SHA256".to_string(),
                    o => o.to_string(),
                })
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Param::Unknown { param_type, value } => format!(
            "PARAMETER[type=0x{param_type:04x}, len={}, val={}]",
            value.len() + 4,
            bytes_list(value)
        ),
    }
}

/// Renders concatenated parameter TLVs.
fn render_tlv_list(raw: &[u8]) -> String {
    let mut out = Vec::new();
    for item in msctp_proto::wire::ParamIter::new(raw) {
        match item {
            Ok((r, _)) => out.push(render_param_raw(raw.get(r).unwrap_or_default())),
            Err(_) => {
                out.push(format!("<malformed {}>", bytes_list(raw)));
                break;
            }
        }
    }
    out.join(", ")
}

fn render_causes(cs: &[ErrorCause]) -> String {
    cs.iter().map(render_cause).collect::<Vec<_>>().join(", ")
}

pub fn render_cause(c: &ErrorCause) -> String {
    match c {
        ErrorCause::InvalidStreamIdentifier { stream_id } => {
            format!("INVALID_STREAM_IDENTIFIER[sid={stream_id}]")
        }
        ErrorCause::MissingMandatoryParameter { param_types } => format!(
            "MISSING_MANDATORY_PARAMETER[types=[{}]]",
            param_types
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ErrorCause::StaleCookie { staleness_us } => {
            format!("STALE_COOKIE_ERROR[staleness={staleness_us}]")
        }
        ErrorCause::OutOfResource => "OUT_OF_RESOURCES[]".into(),
        ErrorCause::UnresolvableAddress { address } => {
            format!("UNRESOLVABLE_ADDRESS[param={}]", render_param_raw(address))
        }
        ErrorCause::UnrecognizedChunkType { chunk } => format!(
            "UNRECOGNIZED_CHUNK_TYPE[chk=CHUNK[type=0x{:02x}, len={}, bytes={}]]",
            chunk.first().copied().unwrap_or(0),
            chunk.len(),
            bytes_list(chunk)
        ),
        ErrorCause::InvalidMandatoryParameter => "INVALID_MANDATORY_PARAMETER[]".into(),
        ErrorCause::UnrecognizedParameters { params } => {
            format!(
                "UNRECOGNIZED_PARAMETERS[params=[{}]]",
                render_tlv_list(params)
            )
        }
        ErrorCause::NoUserData { tsn } => format!("NO_USER_DATA[tsn={tsn}]"),
        ErrorCause::CookieReceivedWhileShuttingDown => "COOKIE_RECEIVED_WHILE_SHUTDOWN[]".into(),
        ErrorCause::RestartWithNewAddresses { addresses } => {
            format!(
                "RESTART_WITH_NEW_ADDRESSES[list=[{}]]",
                render_tlv_list(addresses)
            )
        }
        ErrorCause::UserInitiatedAbort { reason } => format!(
            "USER_INITIATED_ABORT[info=\"{}\"]",
            String::from_utf8_lossy(reason)
        ),
        ErrorCause::ProtocolViolation { info } => {
            format!(
                "PROTOCOL_VIOLATION[info=\"{}\"]",
                String::from_utf8_lossy(info)
            )
        }
        ErrorCause::DeleteLastRemainingAddress { request } => {
            format!(
                "DELETE_LAST_REMAINING_ADDRESS[param={}]",
                render_param_raw(request)
            )
        }
        ErrorCause::ResourceShortage { request } => {
            format!("RESOURCE_SHORTAGE[param={}]", render_param_raw(request))
        }
        ErrorCause::DeleteSourceAddress { request } => {
            format!("DELETE_SOURCE_ADDRESS[param={}]", render_param_raw(request))
        }
        ErrorCause::IllegalAsconfAck => "ILLEGAL_ASCONF_ACK[]".into(),
        ErrorCause::NoAuthorization { request } => {
            format!("REQUEST_REFUSED[param={}]", render_param_raw(request))
        }
        ErrorCause::UnsupportedHmacIdentifier { hmac_id } => {
            format!("UNSUPPORTED_HMAC_IDENTIFIER[hmac_id={hmac_id}]")
        }
        ErrorCause::Unknown { code, info } => format!(
            "CAUSE[code=0x{code:04x}, len={}, info={}]",
            info.len() + 4,
            bytes_list(info)
        ),
    }
}

fn data_flags(f: u8) -> String {
    let mut s = String::new();
    for (bit, c) in [(8, 'I'), (4, 'U'), (2, 'B'), (1, 'E')] {
        if f & bit != 0 {
            s.push(c);
        }
    }
    if s.is_empty() { "0".into() } else { s }
}

fn t_flags(f: u8) -> String {
    match f {
        0 => "0".into(),
        1 => "T".into(),
        o => format!("0x{o:02x}"),
    }
}

/// Renders one chunk (raw bytes, header and value, no padding), mapping
/// the engine's TSNs and tag to script values.
// Long because: one arm per chunk kind, each printing that chunk's fields.
pub fn render_chunk(raw: &[u8], map: &Mapping) -> String {
    let ty = raw.first().copied().unwrap_or(0);
    let flags = raw.get(1).copied().unwrap_or(0);
    let len = raw.len();
    let chunk = match Chunk::parse(&Bytes::copy_from_slice(raw)) {
        Ok(c) => c,
        Err(e) => {
            return format!(
                "{}[flgs=0x{flags:02x}, len={len}, <undecodable: {e}>]",
                chunk_name(ty)
            );
        }
    };
    match chunk {
        Chunk::Data(d) => format!(
            "DATA[flgs={}, len={len}, tsn={}, sid={}, ssn={}, ppid={}]",
            data_flags(flags),
            map.local_tsn_to_script(d.tsn),
            d.stream_id,
            d.ssn,
            d.ppid
        ),
        Chunk::Init(i) | Chunk::InitAck(i) => {
            let params = render_params(&i.params);
            format!(
                "{}[flgs={flags}, tag={}, a_rwnd={}, os={}, is={}, tsn={}{}{}]",
                chunk_name(ty),
                map.local_tag_to_script(i.initiate_tag),
                i.a_rwnd,
                i.outbound_streams,
                i.inbound_streams,
                map.local_tsn_to_script(i.initial_tsn),
                if params.is_empty() { "" } else { ", " },
                params
            )
        }
        Chunk::Sack(s) => format!(
            "SACK[flgs={flags}, cum_tsn={}, a_rwnd={}, gaps=[{}], dups=[{}]]",
            s.cum_tsn_ack,
            s.a_rwnd,
            s.gap_blocks
                .iter()
                .map(|g| format!("{}:{}", g.start, g.end))
                .collect::<Vec<_>>()
                .join(", "),
            s.dup_tsns
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Chunk::Heartbeat { info } | Chunk::HeartbeatAck { info } => format!(
            "{}[flgs={flags}, {}]",
            chunk_name(ty),
            render_param_raw(&tlv_bytes(1, &info))
        ),
        Chunk::Abort { causes, .. } | Chunk::Error { causes } => {
            let cs = render_causes(&causes);
            format!(
                "{}[flgs={}{}{}]",
                chunk_name(ty),
                t_flags(flags),
                if cs.is_empty() { "" } else { ", " },
                cs
            )
        }
        Chunk::Shutdown { cum_tsn_ack } => format!("SHUTDOWN[flgs={flags}, cum_tsn={cum_tsn_ack}]"),
        Chunk::ShutdownAck => format!("SHUTDOWN_ACK[flgs={flags}]"),
        Chunk::CookieEcho { cookie } => {
            format!(
                "COOKIE_ECHO[flgs={flags}, len={}, val=...]",
                cookie.len() + 4
            )
        }
        Chunk::CookieAck => format!("COOKIE_ACK[flgs={flags}]"),
        Chunk::ShutdownComplete { .. } => format!("SHUTDOWN_COMPLETE[flgs={}]", t_flags(flags)),
        Chunk::Auth(a) => format!(
            "AUTH[flgs={flags}, keyid={}, hmac_id={}, hmac={}]",
            a.shared_key_id,
            a.hmac_id,
            bytes_list(&a.hmac)
        ),
        Chunk::Asconf(a) => {
            let params = render_params(&a.params);
            format!(
                "ASCONF[flgs={flags}, serial={}, addr={}{}{}]",
                map.local_tsn_to_script(a.serial),
                a.address,
                if params.is_empty() { "" } else { ", " },
                params
            )
        }
        Chunk::AsconfAck(a) => {
            let params = render_params(&a.params);
            format!(
                "ASCONF_ACK[flgs={flags}, serial={}{}{}]",
                a.serial,
                if params.is_empty() { "" } else { ", " },
                params
            )
        }
        Chunk::ForwardTsn {
            new_cum_tsn,
            streams,
        } => format!(
            "FORWARD_TSN[flgs={flags}, cum_tsn={}, ids=[{}]]",
            map.local_tsn_to_script(new_cum_tsn),
            streams
                .iter()
                .map(|(sid, ssn)| format!("{{{sid},{ssn}}}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Chunk::IData(d) => format!(
            "I_DATA[flgs={}, len={len}, tsn={}, sid={}, mid={}, {}={}]",
            data_flags(flags),
            map.local_tsn_to_script(d.tsn),
            d.stream_id,
            d.mid,
            if d.begin { "ppid" } else { "fsn" },
            if d.begin { d.ppid } else { d.fsn }
        ),
        Chunk::IForwardTsn(f) => format!(
            "I_FORWARD_TSN[flgs={flags}, cum_tsn={}, ids=[{}]]",
            map.local_tsn_to_script(f.new_cum_tsn),
            f.entries
                .iter()
                .map(|e| format!("{{{}, {}, {}}}", e.stream, u8::from(e.unordered), e.mid))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Chunk::Probe(_) | Chunk::ProbeEcho(_) | Chunk::Reconfig(_) | Chunk::Unknown { .. } => {
            format!(
                "CHUNK[type=0x{ty:02x}, flgs=0x{flags:02x}, len={len}, val={}]",
                bytes_list(raw.get(4..).unwrap_or_default())
            )
        }
    }
}

/// Renders a whole packet (common header and chunks).
pub fn render_packet(src: &str, dst: &str, packet: &[u8], map: &Mapping) -> String {
    let view = match Packet::new_checked(packet) {
        Ok(v) => v,
        Err(_) => return format!("{src} > {dst} <{} bytes, no SCTP header>", packet.len()),
    };
    let mut chunks = Vec::new();
    for item in view.chunks() {
        match item {
            Ok((r, _)) => chunks.push(render_chunk(packet.get(r).unwrap_or_default(), map)),
            Err(e) => {
                chunks.push(format!("<malformed: {e}>"));
                break;
            }
        }
    }
    format!(
        "{src} > {dst} sctp(vtag=0x{:08x}): {}",
        view.verification_tag(),
        chunks.join("; ")
    )
}
