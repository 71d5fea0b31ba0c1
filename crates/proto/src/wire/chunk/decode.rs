//! Decoding of the chunk types whose values have structure of their own
//! (the rest is decoded in place by `Chunk::decode`).

use std::ops::Range;

use bytes::Bytes;

use super::{
    AsconfChunk, Chunk, DataChunk, GapBlock, InitChunk, SackChunk, bad, chunk_type, data_flags,
};
use crate::wire::WireError;
use crate::wire::field::{asconf, cum_tsn, data, init, sack, u16_at, u32_at};
use crate::wire::param::{ParamIter, parse_address};
use crate::wire::tlv;

/// DATA (RFC 9260 section 3.3.1): the payload is a slice of `buf`.
pub(super) fn data(
    buf: &Bytes,
    range: Range<usize>,
    c: &[u8],
    flags: u8,
) -> Result<Chunk, WireError> {
    if c.len() < DataChunk::HEADER_LEN {
        return Err(bad("DATA chunk", c.len()));
    }
    Ok(Chunk::Data(DataChunk {
        tsn: u32_at(c, data::TSN),
        stream_id: u16_at(c, data::STREAM_ID),
        ssn: u16_at(c, data::SSN),
        ppid: u32_at(c, data::PPID),
        unordered: flags & data_flags::UNORDERED != 0,
        begin: flags & data_flags::BEGIN != 0,
        end: flags & data_flags::END != 0,
        immediate: flags & data_flags::IMMEDIATE != 0,
        payload: buf.slice(range.start + DataChunk::HEADER_LEN..range.end),
    }))
}

/// INIT or INIT ACK (sections 3.3.2 and 3.3.3).
pub(super) fn init(
    buf: &Bytes,
    range: Range<usize>,
    c: &[u8],
    kind: u8,
) -> Result<Chunk, WireError> {
    let is_init = kind == chunk_type::INIT;
    if c.len() < init::PARAMS {
        let what = if is_init {
            "INIT chunk"
        } else {
            "INIT ACK chunk"
        };
        return Err(bad(what, c.len()));
    }
    let init = InitChunk {
        initiate_tag: u32_at(c, init::INITIATE_TAG),
        a_rwnd: u32_at(c, init::A_RWND),
        outbound_streams: u16_at(c, init::OUTBOUND_STREAMS),
        inbound_streams: u16_at(c, init::INBOUND_STREAMS),
        initial_tsn: u32_at(c, init::INITIAL_TSN),
        params: tlv::parse_list_at(buf, range.start + init::PARAMS..range.end)?,
    };
    Ok(if is_init {
        Chunk::Init(init)
    } else {
        Chunk::InitAck(init)
    })
}

/// SACK (section 3.3.4): the block counts must agree with the length.
pub(super) fn sack(c: &[u8], flags: u8) -> Result<Chunk, WireError> {
    let len = c.len();
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
    Ok(Chunk::Sack(SackChunk {
        flags,
        cum_tsn_ack: u32_at(c, sack::CUM_TSN_ACK),
        a_rwnd: u32_at(c, sack::A_RWND),
        gap_blocks,
        dup_tsns,
    }))
}

/// ASCONF (RFC 5061 section 4.1.1): an Address Parameter, then the
/// requests.
pub(super) fn asconf(buf: &Bytes, range: Range<usize>, c: &[u8]) -> Result<Chunk, WireError> {
    let len = c.len();
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
    Ok(Chunk::Asconf(AsconfChunk {
        serial: u32_at(c, asconf::SERIAL),
        address,
        params,
    }))
}

/// FORWARD TSN (RFC 3758 section 3.2).
pub(super) fn forward_tsn(c: &[u8]) -> Result<Chunk, WireError> {
    let len = c.len();
    if len < cum_tsn::LEN || !len.is_multiple_of(cum_tsn::STREAM_ENTRY_LEN) {
        return Err(bad("FORWARD TSN chunk", len));
    }
    let streams = c[cum_tsn::LEN..]
        .chunks_exact(cum_tsn::STREAM_ENTRY_LEN)
        .map(|s| (u16_at(s, cum_tsn::STREAM), u16_at(s, cum_tsn::STREAM_SEQ)))
        .collect();
    Ok(Chunk::ForwardTsn {
        new_cum_tsn: u32_at(c, cum_tsn::CUM_TSN),
        streams,
    })
}
