//! The SCTP wire format: the common header and every chunk, parameter and
//! error cause of RFC 9260 (section 3), RFC 5061 (section 4, ADD-IP) and
//! RFC 4895 (sections 3 and 4, AUTH).
//!
//! Two layers, after smoltcp's `wire` module:
//! - views (`Packet<T>`, `ChunkView<T>`, `ParamView<T>`, all but the first
//!   named views of the one type-length-value view of [`tlv`]) over a byte
//!   buffer with checked accessors, which never copy and never panic on
//!   any input; every fixed field is read at a named offset (`field.rs`,
//!   as smoltcp's `mod field`);
//! - typed representations (`PacketRepr`, [`Chunk`], [`Param`],
//!   [`ErrorCause`]) with `parse` and `emit` (one TLV codec in [`tlv`]:
//!   the walk over a list, the padding rules, `emit_list`), where payloads are
//!   [`bytes::Bytes`] slices of the received datagram (no copy of user
//!   data). For every valid packet, `emit(parse(b)) == b`.
//!
//! The parser rejects only what cannot be decoded (truncation, a length
//! field that does not fit, a fixed-size structure of the wrong size, an
//! embedded address that is neither IPv4 nor IPv6); semantically wrong but
//! decodable content (a DATA chunk without user data, an unknown chunk or
//! parameter, a chunk bundled where it should not be) is parsed and left to
//! the association to answer as the RFC says.
//!
//! Conventions:
//! - Padding (RFC 9260 section 3.2): every chunk, parameter and error cause
//!   is padded to 4 bytes. A container's length field counts the padding of
//!   every inner TLV but the last, whose padding is the container's own. On
//!   receipt the last chunk's (or TLV's) padding may be missing, and a
//!   length that counts the last inner padding is accepted too; emitting
//!   always follows the rule above, as usrsctp does (see the captured INIT
//!   in `testdata/usrsctp`).
//! - Lengths: `length()` is the value of the 16-bit length field (no
//!   padding) and `padded_len()` the bytes `emit` appends, both as `usize`.
//!   A value too long for its length field is emitted with the field
//!   saturated; `Chunk::try_emit` and `PacketRepr::try_emit_into` refuse it
//!   with [`WireError::TooLong`] instead, and the engine sends only through
//!   them (an oversized chunk is refused and counted, never sent).
//! - Checksum (RFC 9260 appendix A): [`crc::checksum`] returns the CRC32c
//!   value, which the packet holds least significant byte first; see
//!   [`Packet::checksum`].
//! - Reserved bits and fields are ignored on receipt and sent as zero.

pub mod cause;
pub mod chunk;
pub mod crc;
pub(crate) mod field;
pub mod packet;
pub mod param;
pub mod probe;
pub mod tlv;

pub use cause::ErrorCause;
pub use chunk::{
    AsconfAckChunk, AsconfChunk, AuthChunk, Chunk, ChunkView, DataChunk, GapBlock, IDataChunk,
    IForwardEntry, IForwardTsnChunk, InitChunk, ReconfigChunk, ReconfigParam, SackChunk,
    UnknownChunkAction, auth_hmac_range,
};
pub use packet::{ChunkIndex, ChunkIter, CommonHeader, IndexedChunk, Packet, PacketRepr};
pub use param::{Param, ParamIter, ParamView, UnknownParamAction};
pub use probe::{ProbeArrival, ProbeChunk, ProbeEchoChunk};
pub use tlv::TlvView;

/// Why a buffer could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// The buffer ends before the structure it must hold.
    #[error("truncated: need {needed} bytes at offset {offset}, have {available}")]
    Truncated {
        offset: usize,
        needed: usize,
        available: usize,
    },
    /// A chunk length field below 4 or beyond the end of the packet.
    #[error("bad chunk length {length} at offset {offset}")]
    BadChunkLength { offset: usize, length: u16 },
    /// A parameter or error-cause length field below 4 or beyond its container.
    #[error("bad parameter length {length} at offset {offset}")]
    BadParamLength { offset: usize, length: u16 },
    /// A fixed-size field or structure has a length its definition forbids
    /// (e.g. an IPv4 Address parameter whose length is not 8).
    #[error("bad length {length} for {what}")]
    BadLength { what: &'static str, length: usize },
    /// An embedded address parameter is neither IPv4 (5) nor IPv6 (6).
    #[error("unsupported address parameter type {0:#06x}")]
    BadAddressType(u16),
    /// On emit: a structure too long for its 16-bit length field.
    #[error("{what} of {length} bytes is too long to encode")]
    TooLong { what: &'static str, length: usize },
}
