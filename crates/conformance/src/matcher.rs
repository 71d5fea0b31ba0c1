//! Checks an outbound packet against a `>` line, field by field, as
//! packetdrill does: the chunk count, each chunk's type, flags and length,
//! its fields (TSNs and tags mapped to script values), and its parameters
//! or error causes in order, where `...` skips a field and a trailing
//! `...` accepts further parameters or causes.
//!
//! Beyond packetdrill, the verification tag is checked when the script
//! gives one (`> sctp(tag=N): ...`), and an AUTH chunk's MAC is verified
//! against the association key.

use bytes::Bytes;
use msctp_proto::auth::HmacAlgorithm;
use msctp_proto::wire::{Chunk, Packet, ParamIter};

use crate::encode::{self, Mode, Tlv};
use crate::mapping::Mapping;
use crate::render::{bytes_list, cause_name, chunk_name, param_name};
use crate::spec::{CauseList, ChunkSpec, Field, ParamList};

/// What the matcher needs besides the packet.
pub struct MatchCtx<'a> {
    pub map: &'a Mapping,
    /// The association key for AUTH chunks (RFC 4895 section 6.1).
    pub auth_key: Option<&'a [u8]>,
}

fn check<T: PartialEq + std::fmt::Display>(
    what: &str,
    expected: &Field<T>,
    actual: T,
) -> Result<(), String> {
    match expected {
        Field::Is(e) if *e != actual => Err(format!("{what}: expected {e}, actual {actual}")),
        _ => Ok(()),
    }
}

/// Compares one actual TLV (header and value, no padding) with an
/// expected encoding.
pub fn match_tlv(
    what: &str,
    e: &Tlv,
    actual: &[u8],
    name: &dyn Fn(u16) -> String,
) -> Result<(), String> {
    let a_ty = u16::from_be_bytes([
        actual.first().copied().unwrap_or(0),
        actual.get(1).copied().unwrap_or(0),
    ]);
    let e_ty = u16::from_be_bytes([e.body.bytes[0], e.body.bytes[1]]);
    if e.check_type && a_ty != e_ty {
        return Err(format!(
            "{what}: expected {}, actual {}",
            name(e_ty),
            name(a_ty)
        ));
    }
    let a_len = actual.len();
    if e.check_len && usize::from(e.len_field()) != a_len {
        return Err(format!(
            "{what} ({}): length expected {}, actual {a_len}",
            name(a_ty),
            e.len_field()
        ));
    }
    match_value(&format!("{what} ({})", name(a_ty)), e, actual)
}

/// Compares the bytes after the 4-byte header where the mask says so.
fn match_value(what: &str, e: &Tlv, actual: &[u8]) -> Result<(), String> {
    for (i, (b, m)) in e.body.bytes.iter().zip(&e.body.mask).enumerate().skip(4) {
        if !*m {
            continue;
        }
        match actual.get(i) {
            Some(x) if x == b => {}
            other => {
                return Err(format!(
                    "{what}: value differs at byte {} (expected 0x{b:02x}, actual {}): \
                     expected {}, actual {}",
                    i - 4,
                    other.map_or("nothing".to_string(), |x| format!("0x{x:02x}")),
                    bytes_list(e.body.bytes.get(4..).unwrap_or_default()),
                    bytes_list(actual.get(4..).unwrap_or_default())
                ));
            }
        }
    }
    Ok(())
}

/// Splits a TLV list into its elements.
fn tlvs(region: &[u8], what: &str) -> Result<Vec<Vec<u8>>, String> {
    let mut out = Vec::new();
    for item in ParamIter::new(region) {
        match item {
            Ok((r, _)) => out.push(region.get(r).unwrap_or_default().to_vec()),
            Err(e) => return Err(format!("malformed {what} list: {e}")),
        }
    }
    Ok(out)
}

fn match_list(
    what: &str,
    region: &[u8],
    expected: &[Tlv],
    more: bool,
    name: &dyn Fn(u16) -> String,
) -> Result<(), String> {
    let actual = tlvs(region, what)?;
    for (k, e) in expected.iter().enumerate() {
        let e_ty = u16::from_be_bytes([e.body.bytes[0], e.body.bytes[1]]);
        let Some(a) = actual.get(k) else {
            return Err(format!(
                "{what} #{}: expected {}, but the chunk has only {} {what}s",
                k + 1,
                name(e_ty),
                actual.len()
            ));
        };
        match_tlv(&format!("{what} #{}", k + 1), e, a, name)?;
    }
    if !more && actual.len() > expected.len() {
        let extra = &actual[expected.len()];
        let ty = u16::from_be_bytes([extra[0], extra[1]]);
        return Err(format!(
            "{what} #{}: unexpected {} (the script lists {} {what}s)",
            expected.len() + 1,
            name(ty),
            expected.len()
        ));
    }
    Ok(())
}

fn match_params(region: &[u8], params: &ParamList) -> Result<(), String> {
    let expected = params
        .items
        .iter()
        .map(|p| encode::param(Mode::Expect, p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    match_list("parameter", region, &expected, params.more, &param_name)
}

fn match_causes(region: &[u8], causes: &CauseList) -> Result<(), String> {
    let expected = causes
        .items
        .iter()
        .map(|c| encode::cause(Mode::Expect, c))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    match_list("cause", region, &expected, causes.more, &cause_name)
}

/// Compares one chunk. `raw` is the chunk (header and value, no padding);
/// `from_auth` the packet bytes from this chunk on (for an AUTH chunk).
// Long because: one arm per chunk kind, each comparing that chunk's fields.
fn match_chunk(
    spec: &ChunkSpec,
    raw: &[u8],
    from_here: &[u8],
    ctx: &MatchCtx<'_>,
) -> Result<(), String> {
    let ty = raw[0];
    let flags = raw[1];
    if let Some(t) = spec.chunk_type()
        && t != ty
    {
        return Err(format!(
            "chunk type: expected {}, actual {}",
            spec.name(),
            chunk_name(ty)
        ));
    }
    let name = chunk_name(ty);
    if let Field::Is(f) = spec.flags()
        && *f != flags
    {
        return Err(format!(
            "{name} flags: expected 0x{f:02x}, actual 0x{flags:02x}"
        ));
    }
    let expected = encode::chunk(Mode::Expect, spec).map_err(|e| e.to_string())?;
    if expected.check_len && usize::from(expected.len_field()) != raw.len() {
        return Err(format!(
            "{name} length: expected {}, actual {}",
            expected.len_field(),
            raw.len()
        ));
    }
    if let ChunkSpec::Generic { val, .. } | ChunkSpec::CookieEcho { val, .. } = spec {
        if val.is_any() {
            return Ok(());
        }
        return match_value(&name, &expected, raw);
    }
    let chunk = Chunk::parse(&Bytes::copy_from_slice(raw))
        .map_err(|e| format!("{name}: the engine sent an undecodable chunk: {e}"))?;
    let map = ctx.map;
    match (spec, chunk) {
        (
            ChunkSpec::Data {
                tsn,
                sid,
                ssn,
                ppid,
                ..
            },
            Chunk::Data(d),
        ) => {
            check("DATA tsn", tsn, map.local_tsn_to_script(d.tsn))?;
            check("DATA sid", sid, d.stream_id)?;
            check("DATA ssn", ssn, d.ssn)?;
            check("DATA ppid", ppid, d.ppid)
        }
        (
            ChunkSpec::IData {
                tsn,
                sid,
                mid,
                ppid_fsn,
                ..
            },
            Chunk::IData(d),
        ) => {
            check("I_DATA tsn", tsn, map.local_tsn_to_script(d.tsn))?;
            check("I_DATA sid", sid, d.stream_id)?;
            check("I_DATA mid", mid, d.mid)?;
            let (what, v) = if d.begin {
                ("I_DATA ppid", d.ppid)
            } else {
                ("I_DATA fsn", d.fsn)
            };
            check(what, ppid_fsn, v)
        }
        (ChunkSpec::IForwardTsn { cum_tsn, ids, .. }, Chunk::IForwardTsn(f)) => {
            check(
                "I_FORWARD_TSN cum_tsn",
                cum_tsn,
                map.local_tsn_to_script(f.new_cum_tsn),
            )?;
            let actual: Vec<(u16, bool, u32)> = f
                .entries
                .iter()
                .map(|e| (e.stream, e.unordered, e.mid))
                .collect();
            match ids {
                Field::Is(want) if *want != actual => Err(format!(
                    "I_FORWARD_TSN ids: expected {want:?}, actual {actual:?}"
                )),
                _ => Ok(()),
            }
        }
        (ChunkSpec::Init(s), Chunk::Init(i)) | (ChunkSpec::InitAck(s), Chunk::InitAck(i)) => {
            check(
                &format!("{name} tag"),
                &s.tag,
                map.local_tag_to_script(i.initiate_tag),
            )?;
            check(&format!("{name} a_rwnd"), &s.a_rwnd, i.a_rwnd)?;
            check(&format!("{name} os"), &s.os, i.outbound_streams)?;
            check(&format!("{name} is"), &s.is, i.inbound_streams)?;
            check(
                &format!("{name} tsn"),
                &s.tsn,
                map.local_tsn_to_script(i.initial_tsn),
            )?;
            match_params(raw.get(20..).unwrap_or_default(), &s.params)
                .map_err(|e| format!("{name} {e}"))
        }
        (
            ChunkSpec::Sack {
                cum_tsn,
                a_rwnd,
                gaps,
                dups,
                ..
            },
            Chunk::Sack(s),
        ) => {
            check("SACK cum_tsn", cum_tsn, s.cum_tsn_ack)?;
            check("SACK a_rwnd", a_rwnd, s.a_rwnd)?;
            if let Field::Is(g) = gaps {
                let actual: Vec<(u16, u16)> =
                    s.gap_blocks.iter().map(|b| (b.start, b.end)).collect();
                if *g != actual {
                    return Err(format!("SACK gaps: expected {g:?}, actual {actual:?}"));
                }
            }
            if let Field::Is(d) = dups
                && *d != s.dup_tsns
            {
                return Err(format!(
                    "SACK dups: expected {d:?}, actual {:?}",
                    s.dup_tsns
                ));
            }
            Ok(())
        }
        (ChunkSpec::Heartbeat { .. }, Chunk::Heartbeat { .. })
        | (ChunkSpec::HeartbeatAck { .. }, Chunk::HeartbeatAck { .. }) => {
            match_value(&name, &expected, raw)
        }
        (ChunkSpec::Abort { causes, .. }, Chunk::Abort { .. })
        | (ChunkSpec::Error { causes, .. }, Chunk::Error { .. }) => {
            match_causes(raw.get(4..).unwrap_or_default(), causes)
                .map_err(|e| format!("{name} {e}"))
        }
        (ChunkSpec::Shutdown { cum_tsn, .. }, Chunk::Shutdown { cum_tsn_ack }) => {
            check("SHUTDOWN cum_tsn", cum_tsn, cum_tsn_ack)
        }
        (ChunkSpec::ShutdownAck { .. }, Chunk::ShutdownAck)
        | (ChunkSpec::CookieAck { .. }, Chunk::CookieAck)
        | (ChunkSpec::ShutdownComplete { .. }, Chunk::ShutdownComplete { .. }) => Ok(()),
        (
            ChunkSpec::Asconf {
                serial,
                addr,
                params,
                ..
            },
            Chunk::Asconf(a),
        ) => {
            check("ASCONF serial", serial, map.local_tsn_to_script(a.serial))?;
            if let Field::Is(x) = addr
                && *x != a.address
            {
                return Err(format!("ASCONF addr: expected {x}, actual {}", a.address));
            }
            let addr_len = if a.address.is_ipv4() { 8 } else { 20 };
            match_params(raw.get(8 + addr_len..).unwrap_or_default(), params)
                .map_err(|e| format!("ASCONF {e}"))
        }
        (ChunkSpec::AsconfAck { serial, params, .. }, Chunk::AsconfAck(a)) => {
            check("ASCONF_ACK serial", serial, a.serial)?;
            match_params(raw.get(8..).unwrap_or_default(), params)
                .map_err(|e| format!("ASCONF_ACK {e}"))
        }
        (
            ChunkSpec::ForwardTsn { cum_tsn, ids, .. },
            Chunk::ForwardTsn {
                new_cum_tsn,
                streams,
            },
        ) => {
            check(
                "FORWARD_TSN cum_tsn",
                cum_tsn,
                map.local_tsn_to_script(new_cum_tsn),
            )?;
            match ids {
                Field::Is(want) if *want != streams => Err(format!(
                    "FORWARD_TSN ids: expected {want:?}, actual {streams:?}"
                )),
                _ => Ok(()),
            }
        }
        (
            ChunkSpec::Auth {
                key_id,
                hmac_id,
                hmac,
                ..
            },
            Chunk::Auth(a),
        ) => {
            check("AUTH keyid", key_id, a.shared_key_id)?;
            check("AUTH hmac_id", hmac_id, a.hmac_id)?;
            match hmac {
                Field::Is(h) => {
                    if h[..] != a.hmac[..] {
                        return Err(format!(
                            "AUTH hmac: expected {}, actual {}",
                            bytes_list(h),
                            bytes_list(&a.hmac)
                        ));
                    }
                    Ok(())
                }
                Field::Any => verify_mac(from_here, a.hmac_id, &a.hmac, ctx.auth_key),
            }
        }
        (s, _) => Err(format!("chunk type: expected {}, actual {name}", s.name())),
    }
}

/// RFC 4895 section 6.3: the MAC covers the AUTH chunk (MAC field zeroed)
/// and everything after it.
fn verify_mac(
    from_auth: &[u8],
    hmac_id: u16,
    mac: &[u8],
    key: Option<&[u8]>,
) -> Result<(), String> {
    let key = key.ok_or("AUTH: the engine sent AUTH but no AUTH was negotiated")?;
    let alg = HmacAlgorithm::from_id(hmac_id)
        .ok_or_else(|| format!("AUTH: the engine used unknown HMAC identifier {hmac_id}"))?;
    let mut data = from_auth.to_vec();
    let field = 8..8 + alg.mac_len();
    let Some(slot) = data.get_mut(field) else {
        return Err("AUTH: chunk too short for its HMAC".into());
    };
    slot.fill(0);
    let expected = alg.mac(key, &[&data]);
    if expected.as_slice() != mac {
        return Err(format!(
            "AUTH hmac: wrong MAC (expected {}, actual {})",
            bytes_list(&expected),
            bytes_list(mac)
        ));
    }
    Ok(())
}

/// Compares a whole outbound packet with the chunk list of a `>` line.
pub fn match_packet(chunks: &[ChunkSpec], packet: &[u8], ctx: &MatchCtx<'_>) -> Result<(), String> {
    let view = Packet::new_checked(packet).map_err(|e| format!("not an SCTP packet: {e}"))?;
    if !view.verify_checksum() {
        return Err("the engine sent a packet with a bad CRC32c".into());
    }
    let mut actual = Vec::new();
    for item in view.chunks() {
        match item {
            Ok((r, _)) => actual.push(r),
            Err(e) => return Err(format!("the engine sent a malformed packet: {e}")),
        }
    }
    for (k, spec) in chunks.iter().enumerate() {
        let Some(r) = actual.get(k) else {
            return Err(format!(
                "chunk #{}: expected {}, but the packet has only {} chunk(s)",
                k + 1,
                spec.name(),
                actual.len()
            ));
        };
        let raw = packet.get(r.clone()).unwrap_or_default();
        let rest = packet.get(r.start..).unwrap_or_default();
        match_chunk(spec, raw, rest, ctx).map_err(|e| {
            if chunks.len() > 1 {
                format!("chunk #{}: {e}", k + 1)
            } else {
                e
            }
        })?;
    }
    if actual.len() > chunks.len() {
        let extra = packet.get(actual[chunks.len()].clone()).unwrap_or_default();
        return Err(format!(
            "chunk #{}: unexpected {} (the script lists {} chunk(s))",
            chunks.len() + 1,
            chunk_name(extra.first().copied().unwrap_or(0)),
            chunks.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{InitSpec, ParamSpec};
    use msctp_proto::wire::{CommonHeader, GapBlock};
    use msctp_proto::wire::{DataChunk, PacketRepr, SackChunk};

    fn packet(chunks: Vec<Chunk>) -> Vec<u8> {
        PacketRepr {
            header: CommonHeader {
                src_port: 8080,
                dst_port: 9,
                verification_tag: 7,
            },
            chunks,
        }
        .emit()
    }

    fn data(tsn: u32, len: usize) -> Chunk {
        Chunk::Data(DataChunk {
            tsn,
            stream_id: 0,
            ssn: 0,
            ppid: 0,
            unordered: false,
            begin: true,
            end: true,
            immediate: false,
            payload: Bytes::from(vec![0u8; len]),
        })
    }

    fn data_spec(tsn: u32, len: u16) -> ChunkSpec {
        ChunkSpec::Data {
            flags: Field::Is(3),
            len: Field::Is(len),
            tsn: Field::Is(tsn),
            sid: Field::Is(0),
            ssn: Field::Is(0),
            ppid: Field::Is(0),
        }
    }

    #[test]
    fn data_fields_are_compared_in_script_space() {
        let map = Mapping {
            script_local_tsn: 1,
            live_local_tsn: 5000,
            learned: true,
            ..Mapping::default()
        };
        let ctx = MatchCtx {
            map: &map,
            auth_key: None,
        };
        let p = packet(vec![data(5000, 1000)]);
        match_packet(&[data_spec(1, 1016)], &p, &ctx).unwrap();
        let e = match_packet(&[data_spec(2, 1016)], &p, &ctx).unwrap_err();
        assert!(e.contains("DATA tsn: expected 2, actual 1"), "{e}");
        let e = match_packet(&[data_spec(1, 1017)], &p, &ctx).unwrap_err();
        assert!(e.contains("length"), "{e}");
        let two = packet(vec![data(5000, 1000), data(5001, 4)]);
        let e = match_packet(&[data_spec(1, 1016)], &two, &ctx).unwrap_err();
        assert!(e.contains("unexpected DATA"), "{e}");
    }

    #[test]
    fn sack_gaps_and_parameter_lists() {
        let map = Mapping::default();
        let ctx = MatchCtx {
            map: &map,
            auth_key: None,
        };
        let p = packet(vec![Chunk::Sack(SackChunk {
            flags: 0,
            cum_tsn_ack: 1,
            a_rwnd: 1000,
            gap_blocks: vec![GapBlock { start: 2, end: 2 }],
            dup_tsns: vec![],
        })]);
        let spec = |gaps| ChunkSpec::Sack {
            flags: Field::Is(0),
            cum_tsn: Field::Is(1),
            a_rwnd: Field::Any,
            gaps,
            dups: Field::Is(vec![]),
        };
        match_packet(&[spec(Field::Is(vec![(2, 2)]))], &p, &ctx).unwrap();
        assert!(match_packet(&[spec(Field::Is(vec![]))], &p, &ctx).is_err());
        match_packet(&[spec(Field::Any)], &p, &ctx).unwrap();

        let init = packet(vec![Chunk::InitAck(msctp_proto::wire::InitChunk {
            initiate_tag: 9,
            a_rwnd: 1,
            outbound_streams: 1,
            inbound_streams: 1,
            initial_tsn: 1,
            params: vec![
                msctp_proto::wire::Param::StateCookie(Bytes::from_static(b"cookie")),
                msctp_proto::wire::Param::Ipv4Address("1.1.1.1".parse().unwrap()),
            ],
        })]);
        let spec = |items, more| {
            ChunkSpec::InitAck(InitSpec {
                flags: Field::Is(0),
                tag: Field::Any,
                a_rwnd: Field::Any,
                os: Field::Any,
                is: Field::Any,
                tsn: Field::Any,
                params: ParamList { items, more },
            })
        };
        let cookie = ParamSpec::StateCookie {
            len: Field::Any,
            val: Field::Any,
        };
        let addr = |a: &str| ParamSpec::Ipv4(Field::Is(a.parse().unwrap()));
        match_packet(
            &[spec(vec![cookie.clone(), addr("1.1.1.1")], false)],
            &init,
            &ctx,
        )
        .unwrap();
        match_packet(&[spec(vec![cookie.clone()], true)], &init, &ctx).unwrap();
        let e = match_packet(&[spec(vec![cookie.clone()], false)], &init, &ctx).unwrap_err();
        assert!(e.contains("unexpected IPV4_ADDRESS"), "{e}");
        let e =
            match_packet(&[spec(vec![cookie, addr("2.2.2.2")], false)], &init, &ctx).unwrap_err();
        assert!(e.contains("value differs"), "{e}");
        let e = match_packet(&[spec(vec![addr("1.1.1.1")], true)], &init, &ctx).unwrap_err();
        assert!(
            e.contains("expected IPV4_ADDRESS, actual STATE_COOKIE"),
            "{e}"
        );
    }

    #[test]
    fn auth_macs_are_verified_with_the_association_key() {
        let key = b"the association key".to_vec();
        let mut p = packet(vec![
            Chunk::Auth(msctp_proto::wire::AuthChunk {
                shared_key_id: 0,
                hmac_id: 1,
                hmac: Bytes::from(vec![0u8; 20]),
            }),
            Chunk::CookieAck,
        ]);
        let mac = HmacAlgorithm::Sha1.mac(&key, &[&p[12..]]);
        p[20..40].copy_from_slice(&mac);
        msctp_proto::wire::crc::fill(&mut p);
        let spec = [
            ChunkSpec::Auth {
                flags: Field::Is(0),
                key_id: Field::Is(0),
                hmac_id: Field::Is(1),
                hmac: Field::Any,
            },
            ChunkSpec::CookieAck {
                flags: Field::Is(0),
            },
        ];
        let map = Mapping::default();
        let good = MatchCtx {
            map: &map,
            auth_key: Some(&key),
        };
        match_packet(&spec, &p, &good).unwrap();
        let other = b"another key".to_vec();
        let bad = MatchCtx {
            map: &map,
            auth_key: Some(&other),
        };
        let e = match_packet(&spec, &p, &bad).unwrap_err();
        assert!(e.contains("wrong MAC"), "{e}");
        let none = MatchCtx {
            map: &map,
            auth_key: None,
        };
        assert!(
            match_packet(&spec, &p, &none)
                .unwrap_err()
                .contains("no AUTH")
        );
    }
}
