//! Chunks (RFC 9260 section 3.3, RFC 4895 section 4.1, RFC 5061
//! section 4.1), encoded field by field for [`super`]'s two uses.

use msctp_proto::auth::HmacAlgorithm;
use msctp_proto::wire::chunk::chunk_type as t;

use super::{
    EncodeError, Masked, Mode, Tlv, address_param, bytes_or_len, cause_list, field, len16, param,
    param_list,
};
use crate::spec::{ChunkSpec, Field, InitSpec, ParamSpec};

fn chunk_header(m: &mut Masked, ty: Option<u8>, flags: &Field<u8>) {
    m.u8(ty);
    m.u8(field(flags));
    // Length, filled in by `finish_chunk`.
    m.put(&[0, 0], false);
}

/// Writes the length field: the script's (`len=`) or the real one.
fn finish_chunk(mut m: Masked, len: Option<u16>, what: &'static str) -> Result<Tlv, EncodeError> {
    let real = len16(m.bytes.len(), what)?;
    let (l, check_len) = match len {
        Some(l) => (l, true),
        None => (real, m.len_known),
    };
    m.bytes[2..4].copy_from_slice(&l.to_be_bytes());
    Ok(Tlv {
        body: m,
        check_len,
        check_type: true,
    })
}

fn init_body(mode: Mode<'_>, m: &mut Masked, i: &InitSpec) -> Result<(), EncodeError> {
    let tag = field(&i.tag).map(|t| match mode {
        Mode::Inbound(ctx) => ctx.map.local_tag_to_live(t),
        Mode::Expect => t,
    });
    m.u32(tag);
    m.u32(field(&i.a_rwnd));
    m.u16(field(&i.os));
    m.u16(field(&i.is));
    m.u32(field(&i.tsn));
    let p = param_list(mode, &i.params)?;
    m.append(&p);
    Ok(())
}

/// Encodes a chunk (header and value, without its trailing padding). In
/// inbound mode an AUTH chunk's MAC is left as zeros for the caller to
/// fill in.
///
/// Long because: one short arm per chunk kind of the script language
/// (17); the longer bodies are functions of their own.
pub fn chunk(mode: Mode<'_>, c: &ChunkSpec) -> Result<Tlv, EncodeError> {
    let mut m = Masked::new();
    let map_local = |tsn| local_tsn(mode, tsn);
    let mut len = None;
    match c {
        ChunkSpec::Data {
            flags,
            len: l,
            tsn,
            sid,
            ssn,
            ppid,
        } => {
            chunk_header(&mut m, Some(t::DATA), flags);
            m.u32(field(tsn));
            m.u16(field(sid));
            m.u16(field(ssn));
            m.u32(field(ppid));
            len = user_data(mode, &mut m, l, 16);
        }
        ChunkSpec::Init(i) | ChunkSpec::InitAck(i) => {
            chunk_header(&mut m, c.chunk_type(), &i.flags);
            init_body(mode, &mut m, i)?;
        }
        ChunkSpec::Sack {
            flags,
            cum_tsn,
            a_rwnd,
            gaps,
            dups,
        } => {
            chunk_header(&mut m, Some(t::SACK), flags);
            sack_body(mode, &mut m, [cum_tsn, a_rwnd], gaps, dups);
        }
        ChunkSpec::Heartbeat { flags, info } => {
            chunk_header(&mut m, Some(t::HEARTBEAT), flags);
            match info {
                Some(p) => m.append_tlv(&param(mode, p)?),
                None => mode.wildcard(&mut m),
            }
        }
        ChunkSpec::HeartbeatAck { flags, info } => {
            chunk_header(&mut m, Some(t::HEARTBEAT_ACK), flags);
            heartbeat_ack_body(mode, &mut m, info)?;
        }
        ChunkSpec::Abort { flags, causes } | ChunkSpec::Error { flags, causes } => {
            chunk_header(&mut m, c.chunk_type(), flags);
            let l = cause_list(mode, causes)?;
            m.append(&l);
        }
        ChunkSpec::Shutdown { flags, cum_tsn } => {
            chunk_header(&mut m, Some(t::SHUTDOWN), flags);
            m.u32(field(cum_tsn).map(map_local));
        }
        ChunkSpec::ShutdownAck { flags }
        | ChunkSpec::CookieAck { flags }
        | ChunkSpec::ShutdownComplete { flags } => {
            chunk_header(&mut m, c.chunk_type(), flags);
        }
        ChunkSpec::CookieEcho { flags, len: l, val } => match (mode, val) {
            (Mode::Inbound(ctx), Field::Any) => {
                // packetdrill echoes the engine's cookie, whole.
                let cookie = ctx.cookie.ok_or(EncodeError::NoCookie)?;
                chunk_header(&mut m, Some(t::COOKIE_ECHO), &Field::Is(0));
                m.put(cookie, true);
            }
            _ => {
                chunk_header(&mut m, Some(t::COOKIE_ECHO), flags);
                let (v, explicit) = bytes_or_len(mode, l, val, 4);
                m.append(&v);
                len = explicit;
            }
        },
        ChunkSpec::Generic {
            ty,
            flags,
            len: l,
            val,
        } => {
            if ty.is_any() && mode.inbound() {
                return Err(EncodeError::NeedsValue("CHUNK", "type"));
            }
            chunk_header(&mut m, field(ty), flags);
            let (v, explicit) = bytes_or_len(mode, l, val, 4);
            m.append(&v);
            len = explicit;
        }
        ChunkSpec::Asconf {
            flags,
            serial,
            addr,
            params,
        } => {
            chunk_header(&mut m, Some(t::ASCONF), flags);
            m.u32(field(serial));
            let a = address_param(mode, addr, "ASCONF")?;
            m.append(&a);
            let p = param_list(mode, params)?;
            m.append(&p);
        }
        ChunkSpec::AsconfAck {
            flags,
            serial,
            params,
        } => {
            chunk_header(&mut m, Some(t::ASCONF_ACK), flags);
            // Acknowledges an ASCONF of the engine: a serial in its space.
            m.u32(field(serial).map(map_local));
            let p = param_list(mode, params)?;
            m.append(&p);
        }
        ChunkSpec::ForwardTsn {
            flags,
            cum_tsn,
            ids,
        } => {
            chunk_header(&mut m, Some(t::FORWARD_TSN), flags);
            forward_tsn_body(mode, &mut m, cum_tsn, ids);
        }
        ChunkSpec::IData {
            flags,
            len: l,
            tsn,
            sid,
            mid,
            ppid_fsn,
        } => {
            chunk_header(&mut m, Some(t::I_DATA), flags);
            m.u32(field(tsn));
            m.u16(field(sid));
            m.u16(Some(0));
            m.u32(field(mid));
            m.u32(field(ppid_fsn));
            len = user_data(mode, &mut m, l, 20);
        }
        ChunkSpec::IForwardTsn {
            flags,
            cum_tsn,
            ids,
        } => {
            chunk_header(&mut m, Some(t::I_FORWARD_TSN), flags);
            m.u32(field(cum_tsn));
            match ids {
                Field::Is(list) => {
                    for (sid, u, mid) in list {
                        m.u16(Some(*sid));
                        m.u16(Some(u16::from(*u)));
                        m.u32(Some(*mid));
                    }
                }
                Field::Any => mode.wildcard(&mut m),
            }
        }
        ChunkSpec::Auth {
            flags,
            key_id,
            hmac_id,
            hmac,
        } => {
            chunk_header(&mut m, Some(t::AUTH), flags);
            auth_body(mode, &mut m, key_id, hmac_id, hmac);
        }
    }
    finish_chunk(m, len, c.name())
}

/// The user data of a DATA or I-DATA chunk whose header is `header`
/// bytes: zeros up to the script's `len`, or any bytes when it is `...`.
fn user_data(mode: Mode<'_>, m: &mut Masked, l: &Field<u16>, header: usize) -> Option<u16> {
    match l {
        Field::Is(l) => {
            let n = usize::from(*l).saturating_sub(header);
            m.put(&vec![0u8; n], false);
            Some(*l)
        }
        Field::Any => {
            mode.wildcard(m);
            None
        }
    }
}

/// A TSN (or ASCONF serial) of the engine's own sequence space, mapped
/// to the live run's in inbound packets.
fn local_tsn(mode: Mode<'_>, tsn: u32) -> u32 {
    match mode {
        Mode::Inbound(ctx) => ctx.map.local_tsn_to_live(tsn),
        Mode::Expect => tsn,
    }
}

/// SACK after its header (RFC 9260 section 3.3.4): cumulative TSN ack
/// and a_rwnd, the counts, the gap blocks, the duplicate TSNs.
fn sack_body(
    mode: Mode<'_>,
    m: &mut Masked,
    [cum_tsn, a_rwnd]: [&Field<u32>; 2],
    gaps: &Field<Vec<(u16, u16)>>,
    dups: &Field<Vec<u32>>,
) {
    m.u32(field(cum_tsn).map(|x| local_tsn(mode, x)));
    m.u32(field(a_rwnd));
    let g: &[(u16, u16)] = gaps.get().map_or(&[], |v| v.as_slice());
    let d: &[u32] = dups.get().map_or(&[], |v| v.as_slice());
    m.u16(gaps.get().map(|_| g.len() as u16));
    m.u16(dups.get().map(|_| d.len() as u16));
    for (s, e) in g {
        m.u16(Some(*s));
        m.u16(Some(*e));
    }
    for t in d {
        m.u32(Some(local_tsn(mode, *t)));
    }
    if (gaps.is_any() || dups.is_any()) && !mode.inbound() {
        m.unknown();
    }
}

/// FORWARD TSN after its header (RFC 3758 section 3.2): the New
/// Cumulative TSN and one Stream/Stream Sequence pair per entry. Inbound
/// the TSN is the script's own (the peer's space, unmapped, like an
/// inbound DATA's); `ids=...` injects no entries.
fn forward_tsn_body(
    mode: Mode<'_>,
    m: &mut Masked,
    cum_tsn: &Field<u32>,
    ids: &Field<Vec<(u16, u16)>>,
) {
    m.u32(field(cum_tsn));
    match ids {
        Field::Is(list) => {
            for (sid, ssn) in list {
                m.u16(Some(*sid));
                m.u16(Some(*ssn));
            }
        }
        Field::Any => mode.wildcard(m),
    }
}

/// HEARTBEAT ACK after its header (RFC 9260 section 3.3.6): inbound
/// without a given value, the engine's last Heartbeat Info echoed whole.
fn heartbeat_ack_body(
    mode: Mode<'_>,
    m: &mut Masked,
    info: &Option<ParamSpec>,
) -> Result<(), EncodeError> {
    let echo = match info {
        None => true,
        Some(ParamSpec::HeartbeatInfo { val, .. }) => val.is_any(),
        Some(_) => false,
    };
    match (mode, echo, info) {
        (Mode::Inbound(ctx), true, _) => {
            let hb = ctx.heartbeat.ok_or(EncodeError::NoHeartbeat)?;
            m.put(hb, true);
        }
        (_, _, Some(p)) => m.append_tlv(&param(mode, p)?),
        (_, _, None) => m.unknown(),
    }
    Ok(())
}

/// AUTH after its header (RFC 4895 section 4.1). Inbound, the MAC is
/// left as zeros for the caller to fill in, and a missing identifier is
/// HMAC-SHA-1, the one every endpoint supports (section 6.1).
fn auth_body(
    mode: Mode<'_>,
    m: &mut Masked,
    key_id: &Field<u16>,
    hmac_id: &Field<u16>,
    hmac: &Field<Vec<u8>>,
) {
    m.u16(field(key_id));
    let sha1 = HmacAlgorithm::Sha1.id();
    let id = field(hmac_id).or(mode.inbound().then_some(sha1));
    m.u16(id);
    match hmac {
        Field::Is(h) => m.put(h, true),
        Field::Any if mode.inbound() => {
            let algo = id.and_then(HmacAlgorithm::from_id);
            let n = algo.unwrap_or(HmacAlgorithm::Sha1).mac_len();
            m.put(&vec![0u8; n], false);
        }
        Field::Any => m.unknown(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::InboundCtx;
    use crate::mapping::Mapping;

    #[test]
    fn inbound_chunks_map_tsns_and_echo_the_cookie() {
        let map = Mapping {
            script_local_tsn: 1,
            live_local_tsn: 1001,
            ..Mapping::default()
        };
        let ctx = InboundCtx {
            map: &map,
            cookie: Some(&[9, 9, 9]),
            heartbeat: None,
        };
        let sack = chunk(
            Mode::Inbound(&ctx),
            &ChunkSpec::Sack {
                flags: Field::Is(0),
                cum_tsn: Field::Is(1),
                a_rwnd: Field::Is(1500),
                gaps: Field::Is(vec![(2, 2)]),
                dups: Field::Is(vec![]),
            },
        )
        .unwrap();
        assert_eq!(sack.len_field(), 20);
        assert_eq!(&sack.body.bytes[4..8], &1001u32.to_be_bytes());
        let echo = chunk(
            Mode::Inbound(&ctx),
            &ChunkSpec::CookieEcho {
                flags: Field::Is(0),
                len: Field::Any,
                val: Field::Any,
            },
        )
        .unwrap();
        assert_eq!(echo.body.bytes, vec![10, 0, 0, 7, 9, 9, 9]);
        let none = InboundCtx {
            map: &map,
            cookie: None,
            heartbeat: None,
        };
        assert_eq!(
            chunk(
                Mode::Inbound(&none),
                &ChunkSpec::CookieEcho {
                    flags: Field::Is(0),
                    len: Field::Any,
                    val: Field::Any
                }
            ),
            Err(EncodeError::NoCookie)
        );
    }
}
