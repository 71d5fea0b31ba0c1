//! Chunks: RFC 9260 section 3.2 and 3.3, RFC 4895 section 4.1 (AUTH),
//! RFC 5061 section 4.1 (ASCONF, ASCONF-ACK), RFC 8260 section 2 (I-DATA,
//! I-FORWARD-TSN), RFC 6525 section 3.1 (RE-CONFIG).

use bytes::Bytes;
use std::net::IpAddr;
use std::ops::Range;

use super::WireError;
use super::cause::ErrorCause;
use super::field::{asconf, auth, cum_tsn, data, u8_at, u16_at, u32_at};
use super::param::{Param, ParamIter, address_param_len, emit_address};
use super::probe::{ProbeChunk, ProbeEchoChunk};
use super::tlv::{self, Kind, Tlv, TlvView};

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
    /// PAD (RFC 4820 section 3): fills a packet to a size; the receiver
    /// discards it and goes on with the packet's other chunks.
    pub const PAD: u8 = 0x84;
    /// msctp's capacity probe (an extension, not IANA-registered; see
    /// [`crate::wire::probe`]): high bits `10`, skipped silently by peers
    /// that do not know it.
    pub const PROBE: u8 = 0xB0;
    /// The answer to a train of [`PROBE`]s (msctp extension, high bits `10`).
    pub const PROBE_ECHO: u8 = 0xB1;
    pub const FORWARD_TSN: u8 = 0xC0;
    pub const ASCONF: u8 = 0xC1;
    /// I-DATA (RFC 8260 section 2.1).
    pub const I_DATA: u8 = 0x40;
    /// I-FORWARD-TSN (RFC 8260 section 2.3).
    pub const I_FORWARD_TSN: u8 = 0xC2;
    /// RE-CONFIG (RFC 6525 section 3.1).
    pub const RECONFIG: u8 = 0x82;
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

impl InitChunk {
    /// The State Cookie parameter of an INIT ACK (RFC 9260 section
    /// 3.3.3.1), the first if several were sent.
    pub fn state_cookie(&self) -> Option<&Bytes> {
        self.params.iter().find_map(|p| match p {
            Param::StateCookie(c) => Some(c),
            _ => None,
        })
    }
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
    /// Chunk Flags: reserved by RFC 9260 (sent as 0, ignored on receipt)
    /// except where CMT's delayed ack uses them ([`sack_flags`]).
    pub flags: u8,
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
    Heartbeat {
        info: Bytes,
    },
    /// HEARTBEAT ACK echoing the Heartbeat Info value.
    HeartbeatAck {
        info: Bytes,
    },
    /// ABORT; `t_bit` set when the verification tag is reflected.
    Abort {
        t_bit: bool,
        causes: Vec<ErrorCause>,
    },
    Shutdown {
        cum_tsn_ack: u32,
    },
    ShutdownAck,
    Error {
        causes: Vec<ErrorCause>,
    },
    CookieEcho {
        cookie: Bytes,
    },
    CookieAck,
    ShutdownComplete {
        t_bit: bool,
    },
    Auth(AuthChunk),
    Asconf(AsconfChunk),
    AsconfAck(AsconfAckChunk),
    /// msctp's capacity probe (docs/DESIGN.md, "Path estimators").
    Probe(ProbeChunk),
    /// The arrival times of a train of probes.
    ProbeEcho(ProbeEchoChunk),
    /// FORWARD TSN (RFC 3758 section 3.2): parsed so it can be recognised;
    /// this stack does not negotiate PR-SCTP.
    ForwardTsn {
        new_cum_tsn: u32,
        streams: Vec<(u16, u16)>,
    },
    /// I-DATA (RFC 8260 section 2.1).
    IData(IDataChunk),
    /// I-FORWARD-TSN (RFC 8260 section 2.3).
    IForwardTsn(IForwardTsnChunk),
    /// RE-CONFIG (RFC 6525 section 3.1).
    Reconfig(ReconfigChunk),
    /// Any other type, kept whole so it can be reported (Unrecognized Chunk
    /// Type) and re-emitted byte for byte.
    Unknown {
        chunk_type: u8,
        flags: u8,
        value: Bytes,
    },
}

/// A zero-copy view of one chunk (header and value, without padding).
#[derive(Debug, Clone)]
pub struct ChunkView<T: AsRef<[u8]>> {
    tlv: TlvView<T>,
}

impl<T: AsRef<[u8]>> ChunkView<T> {
    /// Chunk Type, Chunk Flags, Chunk Length: RFC 9260 section 3.2.
    pub const HEADER_LEN: usize = tlv::VALUE;

    /// Wraps a buffer without any check. Accessors never panic: fields
    /// beyond the end of a short buffer read as zero.
    pub fn new_unchecked(buffer: T) -> Self {
        ChunkView {
            tlv: TlvView::new_unchecked(buffer),
        }
    }

    /// Wraps a buffer that starts with one chunk: it must hold the 4-byte
    /// header, and the length field must be at least 4 and fit the buffer
    /// ([`WireError::BadChunkLength`] otherwise). The buffer may continue
    /// past the chunk: accessors stop at the length field.
    pub fn new_checked(buffer: T) -> Result<Self, WireError> {
        Ok(ChunkView {
            tlv: TlvView::new_checked(buffer, Kind::Chunk)?,
        })
    }

    /// The Chunk Type field.
    pub fn chunk_type(&self) -> u8 {
        u8_at(self.tlv.bytes(), tlv::TYPE)
    }

    /// The Chunk Flags field.
    pub fn flags(&self) -> u8 {
        u8_at(self.tlv.bytes(), tlv::FLAGS)
    }

    /// The Chunk Length field: header and value, without padding.
    pub fn length(&self) -> u16 {
        self.tlv.length()
    }

    /// The value: the bytes after the 4-byte header up to the length field
    /// (clamped to the buffer).
    pub fn value(&self) -> &[u8] {
        self.tlv.value()
    }

    /// The length rounded up to a multiple of 4 (RFC 9260 section 3.2).
    pub fn padded_len(&self) -> usize {
        self.tlv.padded_len()
    }

    /// What RFC 9260 section 3.2 says to do if this chunk's type is not
    /// understood.
    pub fn unknown_action(&self) -> UnknownChunkAction {
        UnknownChunkAction::from_type(self.chunk_type())
    }

    /// The wrapped buffer.
    pub fn into_inner(self) -> T {
        self.tlv.into_inner()
    }
}

impl UnknownChunkAction {
    /// The action encoded in the two high bits of a chunk type (RFC 9260
    /// section 3.2).
    pub fn from_type(chunk_type: u8) -> Self {
        match chunk_type >> 6 {
            0 => UnknownChunkAction::Stop,
            1 => UnknownChunkAction::StopAndReport,
            2 => UnknownChunkAction::Skip,
            _ => UnknownChunkAction::SkipAndReport,
        }
    }

    /// True for the actions that ask for an Unrecognized Chunk Type report.
    pub fn reports(self) -> bool {
        matches!(
            self,
            UnknownChunkAction::StopAndReport | UnknownChunkAction::SkipAndReport
        )
    }

    /// True for the actions that discard the rest of the packet.
    pub fn stops(self) -> bool {
        matches!(
            self,
            UnknownChunkAction::Stop | UnknownChunkAction::StopAndReport
        )
    }
}

/// DATA chunk flag bits (RFC 9260 section 3.3.1, RFC 7053 for I).
pub mod data_flags {
    /// E: last fragment.
    pub const END: u8 = 0x01;
    /// B: first fragment.
    pub const BEGIN: u8 = 0x02;
    /// U: unordered.
    pub const UNORDERED: u8 = 0x04;
    /// I: SACK immediately (RFC 7053).
    pub const IMMEDIATE: u8 = 0x08;
}

/// Chunk Flags of SACK used by CMT's delayed-ack algorithm (DAC; Iyengar,
/// Amer and Stewart): how many DATA packets arrived since the previous
/// SACK, as usrsctp sends them (the count shifted left by 6; its sender
/// reads bit 0x80, "two packets"). RFC 9260 reserves the bits: a stack
/// without CMT ignores them.
pub mod sack_flags {
    /// The SACK acknowledges one DATA packet.
    pub const DAC_ONE: u8 = 0x40;
    /// The SACK acknowledges two (or more) DATA packets.
    pub const DAC_TWO: u8 = 0x80;
}

impl SackChunk {
    /// DATA packets acknowledged according to the DAC flags: 0 (not
    /// said), 1 or 2.
    pub fn dac_packets(&self) -> u8 {
        if self.flags & sack_flags::DAC_TWO != 0 {
            2
        } else if self.flags & sack_flags::DAC_ONE != 0 {
            1
        } else {
            0
        }
    }

    /// Sets the DAC flags for `packets` DATA packets (0: none).
    pub fn set_dac_packets(&mut self, packets: u32) {
        self.flags &= !(sack_flags::DAC_ONE | sack_flags::DAC_TWO);
        self.flags |= match packets {
            0 => 0,
            1 => sack_flags::DAC_ONE,
            _ => sack_flags::DAC_TWO,
        };
    }
}

/// The T bit of ABORT and SHUTDOWN COMPLETE (RFC 9260 sections 3.3.7 and
/// 3.3.13): the verification tag is reflected.
pub const T_BIT: u8 = 0x01;

impl DataChunk {
    /// Bytes before the user data: chunk header, TSN, Stream Identifier,
    /// Stream Sequence Number, Payload Protocol Identifier.
    pub const HEADER_LEN: usize = data::USER_DATA;
}

impl AuthChunk {
    /// Offset of the HMAC field from the start of the AUTH chunk (chunk
    /// header, Shared Key Identifier, HMAC Identifier: RFC 4895 section
    /// 4.1).
    pub const HMAC_OFFSET: usize = auth::HMAC;
}

/// The byte range of the HMAC field of an AUTH chunk whose bytes (header
/// and value, without padding) occupy `chunk` in the packet, as
/// [`Packet::chunks`](super::Packet::chunks) yields it. RFC 4895 section
/// 6.2: the HMAC is computed over the AUTH chunk, with this field set to
/// zero, and every chunk after it as they appear in the packet (padding
/// included), so with the packet `p` and `h = auth_hmac_range(r)` the input
/// is `p[r.start..h.start]`, `h.len()` zero bytes, then `p[h.end..]`.
/// A range too short to hold an AUTH header gives an empty range at its
/// end; this never panics.
pub fn auth_hmac_range(chunk: Range<usize>) -> Range<usize> {
    let start = chunk
        .start
        .saturating_add(AuthChunk::HMAC_OFFSET)
        .min(chunk.end);
    start.max(chunk.start)..chunk.end.max(chunk.start)
}

/// The largest value the 16-bit Chunk Length field can hold.
pub const MAX_CHUNK_LEN: usize = u16::MAX as usize;

fn bad(what: &'static str, length: usize) -> WireError {
    WireError::BadLength { what, length }
}

impl Chunk {
    /// The Chunk Type this value is sent with.
    pub fn chunk_type(&self) -> u8 {
        use chunk_type as t;
        match self {
            Chunk::Data(_) => t::DATA,
            Chunk::Init(_) => t::INIT,
            Chunk::InitAck(_) => t::INIT_ACK,
            Chunk::Sack(_) => t::SACK,
            Chunk::Heartbeat { .. } => t::HEARTBEAT,
            Chunk::HeartbeatAck { .. } => t::HEARTBEAT_ACK,
            Chunk::Abort { .. } => t::ABORT,
            Chunk::Shutdown { .. } => t::SHUTDOWN,
            Chunk::ShutdownAck => t::SHUTDOWN_ACK,
            Chunk::Error { .. } => t::ERROR,
            Chunk::CookieEcho { .. } => t::COOKIE_ECHO,
            Chunk::CookieAck => t::COOKIE_ACK,
            Chunk::ShutdownComplete { .. } => t::SHUTDOWN_COMPLETE,
            Chunk::Auth(_) => t::AUTH,
            Chunk::Asconf(_) => t::ASCONF,
            Chunk::AsconfAck(_) => t::ASCONF_ACK,
            Chunk::Probe(_) => t::PROBE,
            Chunk::ProbeEcho(_) => t::PROBE_ECHO,
            Chunk::ForwardTsn { .. } => t::FORWARD_TSN,
            Chunk::IData(_) => t::I_DATA,
            Chunk::IForwardTsn(_) => t::I_FORWARD_TSN,
            Chunk::Reconfig(_) => t::RECONFIG,
            Chunk::Unknown { chunk_type, .. } => *chunk_type,
        }
    }

    /// The Chunk Flags this value is sent with (reserved bits zero).
    pub fn flags(&self) -> u8 {
        match self {
            Chunk::Data(d) => {
                let mut f = 0;
                if d.end {
                    f |= data_flags::END;
                }
                if d.begin {
                    f |= data_flags::BEGIN;
                }
                if d.unordered {
                    f |= data_flags::UNORDERED;
                }
                if d.immediate {
                    f |= data_flags::IMMEDIATE;
                }
                f
            }
            Chunk::Abort { t_bit: true, .. } | Chunk::ShutdownComplete { t_bit: true } => T_BIT,
            Chunk::Sack(s) => s.flags,
            Chunk::IData(d) => d.flags(),
            Chunk::Unknown { flags, .. } => *flags,
            _ => 0,
        }
    }

    fn value_len(&self) -> usize {
        match self {
            Chunk::Data(d) => 12usize.saturating_add(d.payload.len()),
            Chunk::Init(i) | Chunk::InitAck(i) => 16usize.saturating_add(tlv::list_len(&i.params)),
            Chunk::Sack(s) => {
                let n = s.gap_blocks.len().saturating_add(s.dup_tsns.len());
                12usize.saturating_add(n.saturating_mul(4))
            }
            Chunk::Heartbeat { info } | Chunk::HeartbeatAck { info } => {
                4usize.saturating_add(info.len())
            }
            Chunk::Abort { causes, .. } | Chunk::Error { causes } => tlv::list_len(causes),
            Chunk::Shutdown { .. } => 4,
            Chunk::ShutdownAck | Chunk::CookieAck | Chunk::ShutdownComplete { .. } => 0,
            Chunk::CookieEcho { cookie } => cookie.len(),
            Chunk::Auth(a) => 4usize.saturating_add(a.hmac.len()),
            // The address parameter is 8 or 20 bytes: never padded.
            Chunk::Asconf(a) => {
                (4 + address_param_len(&a.address)).saturating_add(tlv::list_len(&a.params))
            }
            Chunk::AsconfAck(a) => 4usize.saturating_add(tlv::list_len(&a.params)),
            Chunk::Probe(p) => p.value_len(),
            Chunk::ProbeEcho(e) => e.value_len(),
            Chunk::ForwardTsn { streams, .. } => {
                4usize.saturating_add(streams.len().saturating_mul(4))
            }
            Chunk::IData(d) => d.value_len(),
            Chunk::IForwardTsn(f) => f.value_len(),
            Chunk::Reconfig(r) => r.value_len(),
            Chunk::Unknown { value, .. } => value.len(),
        }
    }

    /// The Chunk Length field: header and value, without the chunk's own
    /// padding (RFC 9260 section 3.2). May exceed [`MAX_CHUNK_LEN`] for an
    /// oversized value, which cannot be sent.
    pub fn length(&self) -> usize {
        self.value_len()
            .saturating_add(ChunkView::<&[u8]>::HEADER_LEN)
    }

    /// The length rounded up to a multiple of 4: the bytes
    /// [`Chunk::emit`] appends.
    pub fn padded_len(&self) -> usize {
        Tlv::padded_len(self)
    }

    /// Decodes one chunk. `chunk` starts with the chunk header and holds at
    /// least the bytes its length field counts (e.g. `buf.slice(range)` with
    /// a range from [`Packet::chunks`](super::Packet::chunks)); anything
    /// after them is ignored. Payloads are slices of `chunk` (no copy).
    pub fn parse(chunk: &Bytes) -> Result<Chunk, WireError> {
        tlv::parse_one(chunk)
    }

    /// The value of a HEARTBEAT or HEARTBEAT ACK: one Heartbeat Info TLV
    /// (RFC 9260 sections 3.3.5 and 3.3.6), possibly followed by its
    /// padding. Its type is not checked: the receiver echoes the
    /// information unchanged (section 8.3), and re-emits it as type 1.
    fn parse_heartbeat_info(
        buf: &Bytes,
        value: Range<usize>,
        kind: u8,
    ) -> Result<Bytes, WireError> {
        let what = if kind == chunk_type::HEARTBEAT {
            "HEARTBEAT chunk"
        } else {
            "HEARTBEAT ACK chunk"
        };
        let chunk_len = value.len() + 4;
        let mut tlvs = ParamIter::new_in(buf, value.clone());
        let (r, _) = match tlvs.next() {
            Some(item) => item?,
            None => return Err(bad(what, chunk_len)),
        };
        if tlvs.next().is_some() {
            return Err(bad(what, chunk_len));
        }
        Ok(buf.slice(r.start + 4..r.end))
    }

    /// Appends the chunk: header, value and zero padding to a multiple of 4
    /// bytes (RFC 9260 section 3.2). Inner parameters and error causes are
    /// padded, and the length field counts all padding but the last inner
    /// TLV's. The length field saturates at 65535 for an oversized chunk
    /// (see [`Chunk::try_emit`] for the checked form).
    pub fn emit(&self, out: &mut Vec<u8>) {
        Tlv::emit(self, out)
    }

    /// Like [`Chunk::emit`], but refuses (appending nothing) a chunk whose
    /// length or a count field (SACK gap blocks and duplicate TSNs) cannot
    /// be represented on the wire.
    pub fn try_emit(&self, out: &mut Vec<u8>) -> Result<(), WireError> {
        self.check_emittable()?;
        self.emit(out);
        Ok(())
    }

    /// Checks that every length and count field of this chunk fits its
    /// wire field. Inner parameters and causes are no longer than the
    /// chunk, so checking the chunk length covers them.
    pub fn check_emittable(&self) -> Result<(), WireError> {
        let length = self.length();
        if length > MAX_CHUNK_LEN {
            return Err(WireError::TooLong {
                what: "chunk",
                length,
            });
        }
        Ok(())
    }
}

impl Tlv for Chunk {
    const KIND: Kind = Kind::Chunk;

    fn length(&self) -> usize {
        Chunk::length(self)
    }

    fn decode(buf: &Bytes, range: Range<usize>, c: &[u8]) -> Result<Chunk, WireError> {
        use chunk_type as t;
        let len = c.len();
        let kind = c[tlv::TYPE];
        let flags = c[tlv::FLAGS];
        let v = range.start + tlv::VALUE;
        // A chunk type whose value is empty: exactly a header long.
        let empty = |what: &'static str, chunk: Chunk| {
            if len != tlv::VALUE {
                return Err(bad(what, len));
            }
            Ok(chunk)
        };
        let chunk = match kind {
            t::DATA => decode::data(buf, range, c, flags)?,
            t::INIT | t::INIT_ACK => decode::init(buf, range, c, kind)?,
            t::SACK => decode::sack(c, flags)?,
            t::HEARTBEAT | t::HEARTBEAT_ACK => {
                let info = Self::parse_heartbeat_info(buf, v..range.end, kind)?;
                if kind == t::HEARTBEAT {
                    Chunk::Heartbeat { info }
                } else {
                    Chunk::HeartbeatAck { info }
                }
            }
            t::ABORT => Chunk::Abort {
                t_bit: flags & T_BIT != 0,
                causes: tlv::parse_list_at(buf, v..range.end)?,
            },
            t::SHUTDOWN => {
                if len != cum_tsn::LEN {
                    return Err(bad("SHUTDOWN chunk", len));
                }
                Chunk::Shutdown {
                    cum_tsn_ack: u32_at(c, cum_tsn::CUM_TSN),
                }
            }
            t::SHUTDOWN_ACK => empty("SHUTDOWN ACK chunk", Chunk::ShutdownAck)?,
            t::ERROR => Chunk::Error {
                causes: tlv::parse_list_at(buf, v..range.end)?,
            },
            t::COOKIE_ECHO => Chunk::CookieEcho {
                cookie: buf.slice(v..range.end),
            },
            t::COOKIE_ACK => empty("COOKIE ACK chunk", Chunk::CookieAck)?,
            t::SHUTDOWN_COMPLETE => empty(
                "SHUTDOWN COMPLETE chunk",
                Chunk::ShutdownComplete {
                    t_bit: flags & T_BIT != 0,
                },
            )?,
            t::AUTH => {
                if len < AuthChunk::HMAC_OFFSET {
                    return Err(bad("AUTH chunk", len));
                }
                Chunk::Auth(AuthChunk {
                    shared_key_id: u16_at(c, auth::SHARED_KEY_ID),
                    hmac_id: u16_at(c, auth::HMAC_ID),
                    hmac: buf.slice(range.start + AuthChunk::HMAC_OFFSET..range.end),
                })
            }
            t::ASCONF => decode::asconf(buf, range, c)?,
            t::ASCONF_ACK => {
                if len < asconf::PARAMS {
                    return Err(bad("ASCONF-ACK chunk", len));
                }
                let params = tlv::parse_list_at(buf, range.start + asconf::PARAMS..range.end)?;
                Chunk::AsconfAck(AsconfAckChunk {
                    serial: u32_at(c, asconf::SERIAL),
                    params,
                })
            }
            t::PROBE => Chunk::Probe(ProbeChunk::parse(
                c,
                buf.slice((range.start + super::probe::PROBE_HEADER_LEN).min(range.end)..range.end),
            )?),
            t::PROBE_ECHO => Chunk::ProbeEcho(ProbeEchoChunk::parse(c)?),
            t::FORWARD_TSN => decode::forward_tsn(c)?,
            t::I_DATA => IDataChunk::decode(buf, range, c, flags)?,
            t::I_FORWARD_TSN => IForwardTsnChunk::decode(c)?,
            t::RECONFIG => ReconfigChunk::decode(buf, range)?,
            other => Chunk::Unknown {
                chunk_type: other,
                flags,
                value: buf.slice(v..range.end),
            },
        };
        Ok(chunk)
    }

    fn emit_value(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&[self.chunk_type(), self.flags(), 0, 0]);
        match self {
            Chunk::Data(d) => {
                out.extend_from_slice(&d.tsn.to_be_bytes());
                out.extend_from_slice(&d.stream_id.to_be_bytes());
                out.extend_from_slice(&d.ssn.to_be_bytes());
                out.extend_from_slice(&d.ppid.to_be_bytes());
                out.extend_from_slice(&d.payload);
            }
            Chunk::Init(i) | Chunk::InitAck(i) => {
                out.extend_from_slice(&i.initiate_tag.to_be_bytes());
                out.extend_from_slice(&i.a_rwnd.to_be_bytes());
                out.extend_from_slice(&i.outbound_streams.to_be_bytes());
                out.extend_from_slice(&i.inbound_streams.to_be_bytes());
                out.extend_from_slice(&i.initial_tsn.to_be_bytes());
                tlv::emit_list(&i.params, out);
            }
            Chunk::Sack(s) => {
                out.extend_from_slice(&s.cum_tsn_ack.to_be_bytes());
                out.extend_from_slice(&s.a_rwnd.to_be_bytes());
                let gaps = u16::try_from(s.gap_blocks.len()).unwrap_or(u16::MAX);
                let dups = u16::try_from(s.dup_tsns.len()).unwrap_or(u16::MAX);
                out.extend_from_slice(&gaps.to_be_bytes());
                out.extend_from_slice(&dups.to_be_bytes());
                for g in &s.gap_blocks {
                    out.extend_from_slice(&g.start.to_be_bytes());
                    out.extend_from_slice(&g.end.to_be_bytes());
                }
                for d in &s.dup_tsns {
                    out.extend_from_slice(&d.to_be_bytes());
                }
            }
            Chunk::Heartbeat { info } | Chunk::HeartbeatAck { info } => {
                Param::HeartbeatInfo(info.clone()).emit_unpadded(out);
            }
            Chunk::Abort { causes, .. } | Chunk::Error { causes } => tlv::emit_list(causes, out),
            Chunk::Shutdown { cum_tsn_ack } => out.extend_from_slice(&cum_tsn_ack.to_be_bytes()),
            Chunk::ShutdownAck | Chunk::CookieAck | Chunk::ShutdownComplete { .. } => {}
            Chunk::CookieEcho { cookie } => out.extend_from_slice(cookie),
            Chunk::Auth(a) => {
                out.extend_from_slice(&a.shared_key_id.to_be_bytes());
                out.extend_from_slice(&a.hmac_id.to_be_bytes());
                out.extend_from_slice(&a.hmac);
            }
            Chunk::Asconf(a) => {
                out.extend_from_slice(&a.serial.to_be_bytes());
                emit_address(&a.address, out);
                tlv::emit_list(&a.params, out);
            }
            Chunk::AsconfAck(a) => {
                out.extend_from_slice(&a.serial.to_be_bytes());
                tlv::emit_list(&a.params, out);
            }
            Chunk::Probe(p) => p.emit_value(out),
            Chunk::ProbeEcho(e) => e.emit_value(out),
            Chunk::ForwardTsn {
                new_cum_tsn,
                streams,
            } => {
                out.extend_from_slice(&new_cum_tsn.to_be_bytes());
                for (sid, ssn) in streams {
                    out.extend_from_slice(&sid.to_be_bytes());
                    out.extend_from_slice(&ssn.to_be_bytes());
                }
            }
            Chunk::IData(d) => d.emit_value(out),
            Chunk::IForwardTsn(f) => f.emit_value(out),
            Chunk::Reconfig(r) => r.emit_value(out),
            Chunk::Unknown { value, .. } => out.extend_from_slice(value),
        }
    }
}

mod decode;
mod idata;
mod reconfig;
pub use idata::{IDataChunk, IForwardEntry, IForwardTsnChunk};
pub use reconfig::{ReconfigChunk, ReconfigParam, reconfig_param, reconfig_result};
#[cfg(test)]
mod tests;
