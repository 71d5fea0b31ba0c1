//! Structure-aware chunk lists for the association targets: chunks built
//! with `arbitrary` from fields the fuzzer chooses, with TSNs, serial
//! numbers and addresses relative to the association's state so that
//! mutations land near the edges the engine checks (one TSN beyond the
//! window, the next ASCONF serial, an address of the peer) instead of
//! being refused at the first comparison; and the signing of AUTH chunks
//! with the association key.

use std::net::IpAddr;

use arbitrary::Arbitrary;
use bytes::Bytes;
use msctp_proto::auth::HmacAlgorithm;
use msctp_proto::wire::chunk::{auth_hmac_range, chunk_type};
use msctp_proto::wire::{
    AsconfAckChunk, AsconfChunk, AuthChunk, Chunk, DataChunk, ErrorCause, GapBlock, InitChunk,
    Packet, Param, SackChunk, crc,
};

/// What the chunks are relative to.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// Cumulative TSN the receiver of the packet has reached.
    pub data_base: u32,
    /// Cumulative TSN the sender of the packet has reached (SACK base).
    pub sack_base: u32,
    /// The claimed sender's first ASCONF serial number.
    pub serial_base: u32,
    /// Addresses the fuzzer can name: both sides' and an attacker's.
    pub addrs: Vec<IpAddr>,
}

impl Ctx {
    fn addr(&self, i: u8) -> IpAddr {
        self.addrs[usize::from(i) % self.addrs.len()]
    }
}

#[derive(Debug, Clone, Arbitrary)]
pub enum FCause {
    InvalidStream(u16),
    Missing(Vec<u16>),
    Stale(u32),
    OutOfResource,
    UnrecognizedChunk(Vec<u8>),
    NoUserData(i8),
    Shutting,
    UserAbort(Vec<u8>),
    Violation(Vec<u8>),
    DeleteLast(u8),
    ResourceShortage(u8),
    DeleteSource(u8),
    IllegalAsconfAck,
    NoAuthorization(u8),
    UnsupportedHmac(u16),
    Unknown(u16, Vec<u8>),
}

#[derive(Debug, Clone, Arbitrary)]
pub enum FParam {
    Add(u32, u8),
    Delete(u32, u8),
    SetPrimary(u32, u8),
    Success(u32),
    ErrorIndication(u32, Vec<FCause>),
    Adaptation(u32),
    Unknown(u16, Vec<u8>),
}

#[derive(Debug, Clone, Arbitrary)]
pub enum FChunk {
    Data {
        tsn: i16,
        stream: u8,
        ssn: u16,
        flags: u8,
        len: u8,
    },
    Sack {
        cum: i16,
        a_rwnd: u32,
        gaps: Vec<(u16, u16)>,
        dups: Vec<i16>,
    },
    Heartbeat(Vec<u8>),
    HeartbeatAck(Vec<u8>),
    Abort(bool, Vec<FCause>),
    Shutdown(i16),
    ShutdownAck,
    Error(Vec<FCause>),
    CookieEcho(Vec<u8>),
    CookieAck,
    ShutdownComplete(bool),
    Asconf {
        serial: i16,
        address: u8,
        params: Vec<FParam>,
    },
    AsconfAck {
        serial: i16,
        params: Vec<FParam>,
    },
    ForwardTsn(i16, Vec<(u16, u16)>),
    Init {
        tag: u32,
        tsn: u32,
        streams: (u16, u16),
        addrs: Vec<u8>,
    },
    Unknown(u8, u8, Vec<u8>),
}

fn tlv(ctx: &Ctx, i: u8) -> Bytes {
    let mut v = Vec::new();
    Param::AddIpAddress {
        correlation_id: u32::from(i),
        address: ctx.addr(i),
    }
    .emit(&mut v);
    Bytes::from(v)
}

fn cause(c: &FCause, ctx: &Ctx) -> ErrorCause {
    match c {
        FCause::InvalidStream(s) => ErrorCause::InvalidStreamIdentifier { stream_id: *s },
        FCause::Missing(t) => ErrorCause::MissingMandatoryParameter {
            param_types: t.clone(),
        },
        FCause::Stale(s) => ErrorCause::StaleCookie { staleness_us: *s },
        FCause::OutOfResource => ErrorCause::OutOfResource,
        FCause::UnrecognizedChunk(b) => ErrorCause::UnrecognizedChunkType {
            chunk: Bytes::copy_from_slice(b),
        },
        FCause::NoUserData(o) => ErrorCause::NoUserData {
            tsn: ctx.sack_base.wrapping_add_signed(i32::from(*o)),
        },
        FCause::Shutting => ErrorCause::CookieReceivedWhileShuttingDown,
        FCause::UserAbort(b) => ErrorCause::UserInitiatedAbort {
            reason: Bytes::copy_from_slice(b),
        },
        FCause::Violation(b) => ErrorCause::ProtocolViolation {
            info: Bytes::copy_from_slice(b),
        },
        FCause::DeleteLast(i) => ErrorCause::DeleteLastRemainingAddress {
            request: tlv(ctx, *i),
        },
        FCause::ResourceShortage(i) => ErrorCause::ResourceShortage {
            request: tlv(ctx, *i),
        },
        FCause::DeleteSource(i) => ErrorCause::DeleteSourceAddress {
            request: tlv(ctx, *i),
        },
        FCause::IllegalAsconfAck => ErrorCause::IllegalAsconfAck,
        FCause::NoAuthorization(i) => ErrorCause::NoAuthorization {
            request: tlv(ctx, *i),
        },
        FCause::UnsupportedHmac(h) => ErrorCause::UnsupportedHmacIdentifier { hmac_id: *h },
        FCause::Unknown(code, b) => ErrorCause::Unknown {
            code: *code,
            info: Bytes::copy_from_slice(b),
        },
    }
}

fn param(p: &FParam, ctx: &Ctx) -> Param {
    match p {
        FParam::Add(c, a) => Param::AddIpAddress {
            correlation_id: *c,
            address: ctx.addr(*a),
        },
        FParam::Delete(c, a) => Param::DeleteIpAddress {
            correlation_id: *c,
            address: ctx.addr(*a),
        },
        FParam::SetPrimary(c, a) => Param::SetPrimaryAddress {
            correlation_id: *c,
            address: ctx.addr(*a),
        },
        FParam::Success(c) => Param::SuccessIndication { correlation_id: *c },
        FParam::ErrorIndication(c, causes) => Param::ErrorCauseIndication {
            correlation_id: *c,
            causes: causes.iter().map(|x| cause(x, ctx)).collect(),
        },
        FParam::Adaptation(v) => Param::AdaptationLayerIndication(*v),
        FParam::Unknown(t, v) => Param::Unknown {
            param_type: *t,
            value: Bytes::copy_from_slice(v),
        },
    }
}

/// The chunk `c` stands for in context `ctx`.
pub fn build(c: &FChunk, ctx: &Ctx) -> Chunk {
    let rel = |base: u32, off: i16| base.wrapping_add_signed(i32::from(off));
    match c {
        FChunk::Data {
            tsn,
            stream,
            ssn,
            flags,
            len,
        } => Chunk::Data(DataChunk {
            tsn: rel(ctx.data_base, *tsn),
            stream_id: u16::from(*stream % 12),
            ssn: *ssn,
            ppid: 0,
            unordered: flags & 4 != 0,
            begin: flags & 2 != 0,
            end: flags & 1 != 0,
            immediate: flags & 8 != 0,
            payload: Bytes::from(vec![0xd5; usize::from(*len)]),
        }),
        FChunk::Sack {
            cum,
            a_rwnd,
            gaps,
            dups,
        } => Chunk::Sack(SackChunk {
            flags: 0,
            cum_tsn_ack: rel(ctx.sack_base, *cum),
            a_rwnd: *a_rwnd,
            gap_blocks: gaps
                .iter()
                .map(|&(start, end)| GapBlock { start, end })
                .collect(),
            dup_tsns: dups.iter().map(|d| rel(ctx.sack_base, *d)).collect(),
        }),
        FChunk::Heartbeat(b) => Chunk::Heartbeat {
            info: Bytes::copy_from_slice(b),
        },
        FChunk::HeartbeatAck(b) => Chunk::HeartbeatAck {
            info: Bytes::copy_from_slice(b),
        },
        FChunk::Abort(t, causes) => Chunk::Abort {
            t_bit: *t,
            causes: causes.iter().map(|x| cause(x, ctx)).collect(),
        },
        FChunk::Shutdown(cum) => Chunk::Shutdown {
            cum_tsn_ack: rel(ctx.sack_base, *cum),
        },
        FChunk::ShutdownAck => Chunk::ShutdownAck,
        FChunk::Error(causes) => Chunk::Error {
            causes: causes.iter().map(|x| cause(x, ctx)).collect(),
        },
        FChunk::CookieEcho(b) => Chunk::CookieEcho {
            cookie: Bytes::copy_from_slice(b),
        },
        FChunk::CookieAck => Chunk::CookieAck,
        FChunk::ShutdownComplete(t) => Chunk::ShutdownComplete { t_bit: *t },
        FChunk::Asconf {
            serial,
            address,
            params,
        } => Chunk::Asconf(AsconfChunk {
            serial: rel(ctx.serial_base, *serial),
            address: ctx.addr(*address),
            params: params.iter().map(|p| param(p, ctx)).collect(),
        }),
        FChunk::AsconfAck { serial, params } => Chunk::AsconfAck(AsconfAckChunk {
            serial: rel(ctx.serial_base, *serial),
            params: params.iter().map(|p| param(p, ctx)).collect(),
        }),
        FChunk::ForwardTsn(cum, streams) => Chunk::ForwardTsn {
            new_cum_tsn: rel(ctx.data_base, *cum),
            streams: streams.clone(),
        },
        FChunk::Init {
            tag,
            tsn,
            streams,
            addrs,
        } => Chunk::Init(InitChunk {
            initiate_tag: *tag,
            a_rwnd: 65536,
            outbound_streams: streams.0,
            inbound_streams: streams.1,
            initial_tsn: *tsn,
            params: addrs
                .iter()
                .map(|a| match ctx.addr(*a) {
                    IpAddr::V4(v) => Param::Ipv4Address(v),
                    IpAddr::V6(v) => Param::Ipv6Address(v),
                })
                .collect(),
        }),
        FChunk::Unknown(t, f, v) => Chunk::Unknown {
            chunk_type: *t,
            flags: *f,
            value: Bytes::copy_from_slice(v),
        },
    }
}

/// The chunks of a packet: an AUTH chunk first if `auth` is set (SHA-256
/// if true, SHA-1 if false; sign the packet with [`sign`]), then the
/// first `max` of `chunks` built in `ctx`.
pub fn encode(chunks: &[FChunk], ctx: &Ctx, auth: Option<bool>, max: usize) -> Vec<u8> {
    let mut out = Vec::new();
    if let Some(sha256) = auth {
        let alg = if sha256 {
            HmacAlgorithm::Sha256
        } else {
            HmacAlgorithm::Sha1
        };
        auth_chunk(alg).emit(&mut out);
    }
    for c in chunks.iter().take(max) {
        build(c, ctx).emit(&mut out);
    }
    out
}

/// An AUTH chunk to be signed by [`sign`]: the HMAC field zeroed.
pub fn auth_chunk(alg: HmacAlgorithm) -> Chunk {
    Chunk::Auth(AuthChunk {
        shared_key_id: 0,
        hmac_id: alg.id(),
        hmac: Bytes::from(vec![0; alg.mac_len()]),
    })
}

/// Fills the HMAC of the first AUTH chunk of `packet` (a whole SCTP
/// packet) with the MAC under `key` (RFC 4895 section 6.2), if its HMAC
/// identifier is known and its HMAC field has the algorithm's length;
/// then the checksum.
pub fn sign(packet: &mut [u8], key: &[u8]) {
    let auth = Packet::new_checked(&packet[..]).ok().and_then(|p| {
        p.chunks()
            .map_while(|c| c.ok())
            .find(|(_, v)| v.chunk_type() == chunk_type::AUTH && v.value().len() >= 4)
            .map(|(r, v)| (r, u16::from_be_bytes([v.value()[2], v.value()[3]])))
    });
    if let Some((range, id)) = auth
        && let Some(alg) = HmacAlgorithm::from_id(id)
    {
        let start = range.start;
        let hmac = auth_hmac_range(range);
        if hmac.len() == alg.mac_len() && hmac.end <= packet.len() {
            packet[hmac.clone()].fill(0);
            let mac = alg.mac(key, &[&packet[start..]]);
            packet[hmac].copy_from_slice(&mac);
        }
    }
    crc::fill(packet);
}
