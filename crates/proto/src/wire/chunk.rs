//! Chunks: RFC 9260 section 3.2 and 3.3, RFC 4895 section 4.1 (AUTH),
//! RFC 5061 section 4.1 (ASCONF, ASCONF-ACK).

use bytes::Bytes;
use std::net::IpAddr;
use std::ops::Range;

use super::WireError;
use super::cause::ErrorCause;
use super::field::{asconf, auth, cum_tsn, data, init, sack, u8_at, u16_at, u32_at};
use super::param::{Param, ParamIter, address_param_len, emit_address, parse_address};
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
        let chunk = match kind {
            t::DATA => {
                if len < DataChunk::HEADER_LEN {
                    return Err(bad("DATA chunk", len));
                }
                Chunk::Data(DataChunk {
                    tsn: u32_at(c, data::TSN),
                    stream_id: u16_at(c, data::STREAM_ID),
                    ssn: u16_at(c, data::SSN),
                    ppid: u32_at(c, data::PPID),
                    unordered: flags & data_flags::UNORDERED != 0,
                    begin: flags & data_flags::BEGIN != 0,
                    end: flags & data_flags::END != 0,
                    immediate: flags & data_flags::IMMEDIATE != 0,
                    payload: buf.slice(range.start + DataChunk::HEADER_LEN..range.end),
                })
            }
            t::INIT | t::INIT_ACK => {
                if len < init::PARAMS {
                    return Err(bad(
                        if kind == t::INIT {
                            "INIT chunk"
                        } else {
                            "INIT ACK chunk"
                        },
                        len,
                    ));
                }
                let init = InitChunk {
                    initiate_tag: u32_at(c, init::INITIATE_TAG),
                    a_rwnd: u32_at(c, init::A_RWND),
                    outbound_streams: u16_at(c, init::OUTBOUND_STREAMS),
                    inbound_streams: u16_at(c, init::INBOUND_STREAMS),
                    initial_tsn: u32_at(c, init::INITIAL_TSN),
                    params: tlv::parse_list_at(buf, range.start + init::PARAMS..range.end)?,
                };
                if kind == t::INIT {
                    Chunk::Init(init)
                } else {
                    Chunk::InitAck(init)
                }
            }
            t::SACK => {
                if len < sack::BLOCKS {
                    return Err(bad("SACK chunk", len));
                }
                let gaps = usize::from(u16_at(c, sack::GAP_BLOCKS));
                let dups = usize::from(u16_at(c, sack::DUP_TSNS));
                let dups_at = sack::BLOCKS + sack::BLOCK_LEN * gaps;
                if len != dups_at + sack::DUP_LEN * dups {
                    return Err(bad("SACK chunk", len));
                }
                let gap_blocks = c[sack::BLOCKS..dups_at]
                    .chunks_exact(sack::BLOCK_LEN)
                    .map(|b| GapBlock {
                        start: u16_at(b, sack::BLOCK_START),
                        end: u16_at(b, sack::BLOCK_END),
                    })
                    .collect();
                let dup_tsns = c[dups_at..]
                    .chunks_exact(sack::DUP_LEN)
                    .map(|d| u32_at(d, 0))
                    .collect();
                Chunk::Sack(SackChunk {
                    flags,
                    cum_tsn_ack: u32_at(c, sack::CUM_TSN_ACK),
                    a_rwnd: u32_at(c, sack::A_RWND),
                    gap_blocks,
                    dup_tsns,
                })
            }
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
            t::SHUTDOWN_ACK => {
                if len != tlv::VALUE {
                    return Err(bad("SHUTDOWN ACK chunk", len));
                }
                Chunk::ShutdownAck
            }
            t::ERROR => Chunk::Error {
                causes: tlv::parse_list_at(buf, v..range.end)?,
            },
            t::COOKIE_ECHO => Chunk::CookieEcho {
                cookie: buf.slice(v..range.end),
            },
            t::COOKIE_ACK => {
                if len != tlv::VALUE {
                    return Err(bad("COOKIE ACK chunk", len));
                }
                Chunk::CookieAck
            }
            t::SHUTDOWN_COMPLETE => {
                if len != tlv::VALUE {
                    return Err(bad("SHUTDOWN COMPLETE chunk", len));
                }
                Chunk::ShutdownComplete {
                    t_bit: flags & T_BIT != 0,
                }
            }
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
            t::ASCONF => {
                if len < asconf::PARAMS + tlv::VALUE {
                    return Err(bad("ASCONF chunk", len));
                }
                let mut tlvs = ParamIter::new_in(buf, range.start + asconf::PARAMS..range.end);
                let address = match tlvs.next() {
                    Some(Ok((r, _))) => parse_address(buf.get(r).unwrap_or_default())?,
                    Some(Err(e)) => return Err(e),
                    None => return Err(bad("ASCONF chunk", len)),
                };
                let mut params = Vec::new();
                for item in tlvs {
                    let (r, _) = item?;
                    params.push(tlv::parse_at(buf, r)?);
                }
                Chunk::Asconf(AsconfChunk {
                    serial: u32_at(c, asconf::SERIAL),
                    address,
                    params,
                })
            }
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
            t::FORWARD_TSN => {
                if len < cum_tsn::LEN || !len.is_multiple_of(cum_tsn::STREAM_ENTRY_LEN) {
                    return Err(bad("FORWARD TSN chunk", len));
                }
                let streams = c[cum_tsn::LEN..]
                    .chunks_exact(cum_tsn::STREAM_ENTRY_LEN)
                    .map(|s| (u16_at(s, cum_tsn::STREAM), u16_at(s, cum_tsn::STREAM_SEQ)))
                    .collect();
                Chunk::ForwardTsn {
                    new_cum_tsn: u32_at(c, cum_tsn::CUM_TSN),
                    streams,
                }
            }
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
            Chunk::Unknown { value, .. } => out.extend_from_slice(value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::cause::cause_code;
    use crate::wire::param::param_type;
    use std::net::{Ipv4Addr, Ipv6Addr};

    use crate::wire::tlv::testing::bytes;

    /// Parses one chunk given with its padding, checks `emit` gives the same
    /// bytes back and the lengths agree.
    fn roundtrip(hex_str: &str) -> Chunk {
        let (chunk, kind) = crate::wire::tlv::testing::roundtrip::<Chunk>(hex_str);
        assert_eq!(u16::from(chunk.chunk_type()), kind >> 8);
        chunk
    }

    fn parse_err(hex_str: &str) -> WireError {
        crate::wire::tlv::testing::parse_err::<Chunk>(hex_str)
    }

    #[test]
    fn data_with_all_flags_and_odd_payload() {
        let c = roundtrip(
            "00 0f 00 15 | 00 00 00 01 | 00 02 00 03 | 00 00 00 33 | 68 65 6c 6c 6f 00 00 00",
        );
        let Chunk::Data(d) = c else {
            panic!("not DATA: {c:?}")
        };
        assert_eq!((d.tsn, d.stream_id, d.ssn, d.ppid), (1, 2, 3, 51));
        assert!(d.unordered && d.begin && d.end && d.immediate);
        assert_eq!(&d.payload[..], b"hello");
    }

    #[test]
    fn data_flag_bits_one_by_one() {
        for (flag, u, b, e, i) in [
            (0x01u8, false, false, true, false),
            (0x02, false, true, false, false),
            (0x04, true, false, false, false),
            (0x08, false, false, false, true),
            (0x03, false, true, true, false),
        ] {
            let hex_str = format!("00 {flag:02x} 00 14 ffffffff 0000 ffff 00000000 01020304");
            let Chunk::Data(d) = roundtrip(&hex_str) else {
                panic!()
            };
            assert_eq!(
                (d.unordered, d.begin, d.end, d.immediate),
                (u, b, e, i),
                "flags {flag:#x}"
            );
            assert_eq!(d.tsn, u32::MAX);
            assert_eq!(d.ssn, u16::MAX);
        }
        // Reserved bits are ignored on receipt and sent as zero.
        let Chunk::Data(d) =
            Chunk::parse(&bytes("00 f3 00 10 00000001 0000 0000 00000000")).unwrap()
        else {
            panic!()
        };
        assert!(d.begin && d.end && !d.unordered && !d.immediate);
        assert_eq!(Chunk::Data(d).flags(), 0x03);
    }

    #[test]
    fn data_without_user_data_parses() {
        let Chunk::Data(d) = roundtrip("00 03 00 10 00000007 0001 0002 00000000") else {
            panic!()
        };
        assert!(d.payload.is_empty());
        assert_eq!(d.tsn, 7);
        assert_eq!(
            parse_err("00 03 00 0f 00000007 0001 0002 000000"),
            WireError::BadLength {
                what: "DATA chunk",
                length: 15
            }
        );
    }

    #[test]
    fn data_payload_is_a_slice_of_the_input() {
        let b = bytes("00 03 00 14 00000001 0000 0000 00000000 deadbeef");
        let Chunk::Data(d) = Chunk::parse(&b).unwrap() else {
            panic!()
        };
        assert_eq!(d.payload.as_ptr(), b[16..].as_ptr());
    }

    const INIT_PARAMS: &str = "
        0005 0008 c0000201
        0006 0014 20010db8 00000000 00000000 00000001
        0009 0008 000003e8
        000c 0008 0005 0006
        8000 0004
        c000 0004
        8008 0007 c1800f 00
        8002 0008 01020304
        8003 0006 c180 0000
        8004 0006 0001 0000
        ff77 0005 42 000000";

    #[test]
    fn init_with_every_kind_of_parameter() {
        // Length 20 + 84 + 5: the last parameter's padding is chunk padding.
        let c = roundtrip(&format!(
            "01 00 00 6d aabbccdd 00010000 000a 0005 00000001 {INIT_PARAMS}"
        ));
        let Chunk::Init(init) = c else { panic!() };
        assert_eq!(init.initiate_tag, 0xaabb_ccdd);
        assert_eq!(init.a_rwnd, 65536);
        assert_eq!((init.outbound_streams, init.inbound_streams), (10, 5));
        assert_eq!(init.initial_tsn, 1);
        assert_eq!(
            init.params,
            vec![
                Param::Ipv4Address(Ipv4Addr::new(192, 0, 2, 1)),
                Param::Ipv6Address("2001:db8::1".parse::<Ipv6Addr>().unwrap()),
                Param::CookiePreservative(1000),
                Param::SupportedAddressTypes(vec![5, 6]),
                Param::EcnCapable,
                Param::ForwardTsnSupported,
                Param::SupportedExtensions(vec![0xc1, 0x80, 0x0f]),
                Param::Random(Bytes::from_static(&[1, 2, 3, 4])),
                Param::Chunks(vec![0xc1, 0x80]),
                Param::HmacAlgo(vec![1]),
                Param::Unknown {
                    param_type: 0xff77,
                    value: Bytes::from_static(&[0x42])
                },
            ]
        );
    }

    #[test]
    fn init_ack_with_state_cookie_and_unrecognized_parameter() {
        let c = roundtrip(
            "02 00 00 27 01020304 0000ffff 0001 0001 80000000
             0007 000c 6b6b6b6b 6b6b6b6b
             0008 0007 ff7700 00",
        );
        let Chunk::InitAck(ack) = c else { panic!() };
        assert_eq!(
            ack.params,
            vec![
                Param::StateCookie(Bytes::from_static(b"kkkkkkkk")),
                Param::UnrecognizedParameter(Bytes::from_static(&[0xff, 0x77, 0x00])),
            ]
        );
    }

    #[test]
    fn init_that_includes_the_last_padding_in_its_length_is_accepted() {
        // Some stacks count the last parameter's padding; the parameters are
        // the same, only the re-emitted length differs (by the padding).
        let b = bytes("01 00 00 1c 00000001 00001000 0001 0001 00000001 000c 0006 0005 0000");
        let Chunk::Init(init) = Chunk::parse(&b).unwrap() else {
            panic!()
        };
        assert_eq!(init.params, vec![Param::SupportedAddressTypes(vec![5])]);
        assert_eq!(Chunk::Init(init).length(), 0x1a);
    }

    #[test]
    fn init_errors() {
        assert_eq!(
            parse_err("01 00 00 10 00000001 00001000 0001 0001"),
            WireError::BadLength {
                what: "INIT chunk",
                length: 16
            }
        );
        // A parameter with length 0 is recognisable (RFC 9260 section 3.2.1).
        assert_eq!(
            parse_err("01 00 00 18 00000001 00001000 0001 0001 00000001 0005 0000"),
            WireError::BadParamLength {
                offset: 20,
                length: 0
            }
        );
        // A parameter running past the chunk.
        assert_eq!(
            parse_err("01 00 00 18 00000001 00001000 0001 0001 00000001 0005 0008"),
            WireError::BadParamLength {
                offset: 20,
                length: 8
            }
        );
        // An IPv4 Address parameter of the wrong size.
        assert_eq!(
            parse_err("01 00 00 1b 00000001 00001000 0001 0001 00000001 0005 0007 c00002 00"),
            WireError::BadLength {
                what: "IPv4 Address parameter",
                length: 7
            }
        );
    }

    #[test]
    fn sack_with_gaps_and_duplicates() {
        let c = roundtrip(
            "03 00 00 1c 00000010 00001000 0002 0001
             0002 0003 0005 0005
             0000000e",
        );
        assert_eq!(
            c,
            Chunk::Sack(SackChunk {
                flags: 0,
                cum_tsn_ack: 0x10,
                a_rwnd: 0x1000,
                gap_blocks: vec![GapBlock { start: 2, end: 3 }, GapBlock { start: 5, end: 5 }],
                dup_tsns: vec![0x0e],
            })
        );
        roundtrip("03 00 00 10 ffffffff 00000000 0000 0000");
    }

    #[test]
    fn sack_counts_must_agree_with_length() {
        // Says 3 gap blocks and a duplicate, holds 3 blocks.
        let e = parse_err("03 00 00 1c 00000010 00001000 0003 0001 00020003 00050005 0000000e");
        assert_eq!(
            e,
            WireError::BadLength {
                what: "SACK chunk",
                length: 28
            }
        );
        // Says 1 duplicate, holds none.
        let e = parse_err("03 00 00 10 00000010 00001000 0000 0001");
        assert_eq!(
            e,
            WireError::BadLength {
                what: "SACK chunk",
                length: 16
            }
        );
        assert_eq!(
            parse_err("03 00 00 0c 00000010 00001000"),
            WireError::BadLength {
                what: "SACK chunk",
                length: 12
            }
        );
    }

    #[test]
    fn heartbeat_and_ack() {
        let c = roundtrip("04 00 00 0c 0001 0008 deadbeef");
        assert_eq!(
            c,
            Chunk::Heartbeat {
                info: Bytes::from_static(&[0xde, 0xad, 0xbe, 0xef])
            }
        );
        let c = roundtrip("05 00 00 0d 0001 0009 0102030405 000000");
        assert_eq!(
            c,
            Chunk::HeartbeatAck {
                info: Bytes::from_static(&[1, 2, 3, 4, 5])
            }
        );
        // Padding counted in the chunk length: accepted.
        let c = Chunk::parse(&bytes("05 00 00 10 0001 0009 0102030405 000000")).unwrap();
        assert_eq!(
            c,
            Chunk::HeartbeatAck {
                info: Bytes::from_static(&[1, 2, 3, 4, 5])
            }
        );
    }

    #[test]
    fn heartbeat_errors() {
        assert_eq!(
            parse_err("04 00 00 04"),
            WireError::BadLength {
                what: "HEARTBEAT chunk",
                length: 4
            }
        );
        assert_eq!(
            parse_err("04 00 00 08 0001 0000"),
            WireError::BadParamLength {
                offset: 4,
                length: 0
            }
        );
        assert_eq!(
            parse_err("04 00 00 10 0001 0008 deadbeef 0001 0004"),
            WireError::BadLength {
                what: "HEARTBEAT chunk",
                length: 16
            }
        );
        assert_eq!(
            parse_err("05 00 00 06 0001"),
            WireError::Truncated {
                offset: 4,
                needed: 4,
                available: 2
            }
        );
    }

    #[test]
    fn abort_with_t_bit_and_cause() {
        // User-Initiated Abort, reason "bye": cause length 7, chunk 11.
        let c = roundtrip("06 01 00 0b 000c 0007 627965 00");
        assert_eq!(
            c,
            Chunk::Abort {
                t_bit: true,
                causes: vec![ErrorCause::UserInitiatedAbort {
                    reason: Bytes::from_static(b"bye")
                }]
            }
        );
        assert_eq!(c.flags(), T_BIT);
        let c = roundtrip("06 00 00 04");
        assert_eq!(
            c,
            Chunk::Abort {
                t_bit: false,
                causes: vec![]
            }
        );
    }

    #[test]
    fn shutdown_family() {
        assert_eq!(
            roundtrip("07 00 00 08 0000002a"),
            Chunk::Shutdown { cum_tsn_ack: 42 }
        );
        assert_eq!(roundtrip("08 00 00 04"), Chunk::ShutdownAck);
        assert_eq!(
            roundtrip("0e 00 00 04"),
            Chunk::ShutdownComplete { t_bit: false }
        );
        assert_eq!(
            roundtrip("0e 01 00 04"),
            Chunk::ShutdownComplete { t_bit: true }
        );
        assert_eq!(
            parse_err("07 00 00 0c 0000002a 00000000"),
            WireError::BadLength {
                what: "SHUTDOWN chunk",
                length: 12
            }
        );
        assert_eq!(
            parse_err("08 00 00 08 00000000"),
            WireError::BadLength {
                what: "SHUTDOWN ACK chunk",
                length: 8
            }
        );
        assert_eq!(
            parse_err("0e 00 00 05 00"),
            WireError::BadLength {
                what: "SHUTDOWN COMPLETE chunk",
                length: 5
            }
        );
    }

    #[test]
    fn error_chunk_with_two_causes() {
        let c = roundtrip("09 00 00 18 0001 0008 0007 0000 | 0006 0008 4f000004 | 0004 0004");
        assert_eq!(
            c,
            Chunk::Error {
                causes: vec![
                    ErrorCause::InvalidStreamIdentifier { stream_id: 7 },
                    ErrorCause::UnrecognizedChunkType {
                        chunk: Bytes::from_static(&[0x4f, 0, 0, 4])
                    },
                    ErrorCause::OutOfResource,
                ]
            }
        );
        assert_eq!(
            parse_err("09 00 00 0b 0001 0008 0007 00"),
            WireError::BadParamLength {
                offset: 4,
                length: 8
            }
        );
    }

    #[test]
    fn cookie_echo_and_ack() {
        let c = roundtrip("0a 00 00 09 6b6b6b6b6b 000000");
        assert_eq!(
            c,
            Chunk::CookieEcho {
                cookie: Bytes::from_static(b"kkkkk")
            }
        );
        assert_eq!(
            roundtrip("0a 00 00 04"),
            Chunk::CookieEcho {
                cookie: Bytes::new()
            }
        );
        assert_eq!(roundtrip("0b 00 00 04"), Chunk::CookieAck);
        assert_eq!(
            parse_err("0b 00 00 08 00000000"),
            WireError::BadLength {
                what: "COOKIE ACK chunk",
                length: 8
            }
        );
    }

    #[test]
    fn auth_and_hmac_range() {
        let hmac = "00112233445566778899aabbccddeeff00112233";
        let c = roundtrip(&format!("0f 00 00 1c 0000 0001 {hmac}"));
        let Chunk::Auth(a) = c else { panic!() };
        assert_eq!((a.shared_key_id, a.hmac_id), (0, 1));
        assert_eq!(hex::encode(&a.hmac), hmac);
        assert_eq!(auth_hmac_range(12..40), 20..40);
        assert_eq!(auth_hmac_range(12..15), 15..15);
        assert_eq!(
            auth_hmac_range(usize::MAX - 2..usize::MAX),
            usize::MAX..usize::MAX
        );
        assert_eq!(
            auth_hmac_range(Range {
                start: usize::MAX,
                end: 0
            }),
            usize::MAX..usize::MAX
        );
        assert_eq!(
            parse_err("0f 00 00 07 0000 01 00"),
            WireError::BadLength {
                what: "AUTH chunk",
                length: 7
            }
        );
    }

    #[test]
    fn asconf_with_add_delete_set_primary() {
        let c = roundtrip(
            "c1 00 00 5c 00000001
             0005 0008 c0000201
             c001 0010 00000001 0005 0008 c6336401
             c002 0010 00000002 0005 0008 c0000201
             c004 0010 00000003 0005 0008 c6336401
             c001 001c 00000004 0006 0014 20010db8000000000000000000000002",
        );
        let Chunk::Asconf(a) = c else { panic!() };
        assert_eq!(a.serial, 1);
        assert_eq!(a.address, IpAddr::from([192, 0, 2, 1]));
        let new = IpAddr::from([198, 51, 100, 1]);
        assert_eq!(
            a.params,
            vec![
                Param::AddIpAddress {
                    correlation_id: 1,
                    address: new
                },
                Param::DeleteIpAddress {
                    correlation_id: 2,
                    address: IpAddr::from([192, 0, 2, 1])
                },
                Param::SetPrimaryAddress {
                    correlation_id: 3,
                    address: new
                },
                Param::AddIpAddress {
                    correlation_id: 4,
                    address: "2001:db8::2".parse().unwrap()
                },
            ]
        );
        // An IPv6 address parameter, adaptation layer indication.
        let c = roundtrip(
            "c1 00 00 24 ffffffff 0006 0014 20010db8000000000000000000000001 c006 0008 00000007",
        );
        let Chunk::Asconf(a) = c else { panic!() };
        assert_eq!(a.address, "2001:db8::1".parse::<IpAddr>().unwrap());
        assert_eq!(a.params, vec![Param::AdaptationLayerIndication(7)]);
    }

    #[test]
    fn asconf_errors() {
        // Host Name Address as the address parameter.
        assert_eq!(
            parse_err("c1 00 00 10 00000001 000b 0008 61626364"),
            WireError::BadAddressType(0x000b)
        );
        // No address parameter at all.
        assert_eq!(
            parse_err("c1 00 00 08 00000001"),
            WireError::BadLength {
                what: "ASCONF chunk",
                length: 8
            }
        );
        // Add IP Address whose address parameter is not an address.
        assert_eq!(
            parse_err(
                "c1 00 00 20 00000001 0005 0008 c0000201 c001 0010 00000001 8000 0008 c6336401"
            ),
            WireError::BadAddressType(0x8000)
        );
        // Add IP Address with an IPv6 parameter too short for an address.
        assert_eq!(
            parse_err(
                "c1 00 00 20 00000001 0005 0008 c0000201 c001 0010 00000001 0006 0008 c6336401"
            ),
            WireError::BadLength {
                what: "IPv6 Address parameter",
                length: 8
            }
        );
    }

    #[test]
    fn asconf_ack_with_success_and_error_indications() {
        // Success for correlation 1; for correlation 2, Delete Source
        // Address carrying the refused Delete IP Address request.
        let c = roundtrip(
            "80 00 00 2c 00000001
             c005 0008 00000001
             c003 001c 00000002
                00a2 0014 c002 0010 00000002 0005 0008 c0000201",
        );
        let Chunk::AsconfAck(a) = c else { panic!() };
        assert_eq!(a.serial, 1);
        assert_eq!(
            a.params,
            vec![
                Param::SuccessIndication { correlation_id: 1 },
                Param::ErrorCauseIndication {
                    correlation_id: 2,
                    causes: vec![ErrorCause::DeleteSourceAddress {
                        request: bytes("c002 0010 00000002 0005 0008 c0000201")
                    }],
                },
            ]
        );
        assert_eq!(
            roundtrip("80 00 00 08 00000009"),
            Chunk::AsconfAck(AsconfAckChunk {
                serial: 9,
                params: vec![]
            })
        );
        assert_eq!(
            parse_err("80 00 00 04"),
            WireError::BadLength {
                what: "ASCONF-ACK chunk",
                length: 4
            }
        );
    }

    #[test]
    fn forward_tsn() {
        let c = roundtrip("c0 00 00 10 00000064 0001 0002 0003 0004");
        assert_eq!(
            c,
            Chunk::ForwardTsn {
                new_cum_tsn: 100,
                streams: vec![(1, 2), (3, 4)]
            }
        );
        assert_eq!(
            parse_err("c0 00 00 0a 00000064 0001 0000"),
            WireError::BadLength {
                what: "FORWARD TSN chunk",
                length: 10
            }
        );
    }

    #[test]
    fn unknown_chunks_are_kept_whole() {
        let c = roundtrip("4f 12 00 07 616263 00");
        assert_eq!(
            c,
            Chunk::Unknown {
                chunk_type: 0x4f,
                flags: 0x12,
                value: Bytes::from_static(b"abc")
            }
        );
        assert_eq!(c.flags(), 0x12);
        // ECNE is not negotiated by this stack: it stays Unknown.
        assert!(matches!(
            roundtrip("0c 00 00 08 00000001"),
            Chunk::Unknown { chunk_type: 12, .. }
        ));
    }

    #[test]
    fn unknown_chunk_action_from_high_bits() {
        assert_eq!(
            UnknownChunkAction::from_type(0x3f),
            UnknownChunkAction::Stop
        );
        assert_eq!(
            UnknownChunkAction::from_type(0x40),
            UnknownChunkAction::StopAndReport
        );
        assert_eq!(
            UnknownChunkAction::from_type(0x80),
            UnknownChunkAction::Skip
        );
        assert_eq!(
            UnknownChunkAction::from_type(chunk_type::ASCONF),
            UnknownChunkAction::SkipAndReport
        );
        assert!(
            UnknownChunkAction::SkipAndReport.reports()
                && !UnknownChunkAction::SkipAndReport.stops()
        );
        assert!(UnknownChunkAction::Stop.stops() && !UnknownChunkAction::Stop.reports());
    }

    #[test]
    fn chunk_view_checks() {
        let b = bytes("4f 12 00 07 616263 00 ff");
        let v = ChunkView::new_checked(&b[..]).unwrap();
        assert_eq!(
            (v.chunk_type(), v.flags(), v.length(), v.padded_len()),
            (0x4f, 0x12, 7, 8)
        );
        assert_eq!(v.value(), b"abc");
        assert_eq!(v.unknown_action(), UnknownChunkAction::StopAndReport);
        assert_eq!(
            ChunkView::new_checked(&b[..3]).unwrap_err(),
            WireError::Truncated {
                offset: 0,
                needed: 4,
                available: 3
            }
        );
        assert_eq!(
            ChunkView::new_checked(&b[..6]).unwrap_err(),
            WireError::BadChunkLength {
                offset: 0,
                length: 7
            }
        );
        assert_eq!(
            ChunkView::new_checked(&[0u8, 0, 0, 3][..]).unwrap_err(),
            WireError::BadChunkLength {
                offset: 0,
                length: 3
            }
        );
        // Unchecked views over short buffers read zeros and never panic.
        let v = ChunkView::new_unchecked(&b[..2]);
        assert_eq!(
            (v.chunk_type(), v.flags(), v.length(), v.value()),
            (0x4f, 0x12, 0, &[][..])
        );
        let v = ChunkView::new_unchecked(&b[..5]);
        assert_eq!(v.value(), b"a");
    }

    #[test]
    fn chunk_parse_ignores_bytes_after_the_length() {
        let c = Chunk::parse(&bytes("0b 00 00 04 ffffffff")).unwrap();
        assert_eq!(c, Chunk::CookieAck);
    }

    #[test]
    fn try_emit_refuses_oversized_chunks() {
        let big = Chunk::CookieEcho {
            cookie: Bytes::from(vec![0u8; MAX_CHUNK_LEN - 3]),
        };
        let mut out = vec![1u8];
        assert_eq!(
            big.try_emit(&mut out),
            Err(WireError::TooLong {
                what: "chunk",
                length: MAX_CHUNK_LEN + 1
            })
        );
        assert_eq!(out, [1]);
        let fits = Chunk::CookieEcho {
            cookie: Bytes::from(vec![0u8; MAX_CHUNK_LEN - 4]),
        };
        fits.try_emit(&mut out).unwrap();
        assert_eq!(out.len(), 1 + crate::wire::field::padded(MAX_CHUNK_LEN));
        assert_eq!(&out[1..5], &[10, 0, 0xff, 0xff]);
    }

    #[test]
    fn type_codes_match_the_rfcs() {
        assert_eq!(param_type::ADD_IP_ADDRESS, 0xc001);
        assert_eq!(cause_code::UNSUPPORTED_HMAC_IDENTIFIER, 261);
        assert_eq!(chunk_type::ASCONF_ACK, 0x80);
    }
}
