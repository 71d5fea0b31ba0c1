//! RE-CONFIG (RFC 6525 section 3.1) and its parameters (section 4): the
//! requests to reset streams, to reset SSNs and TSNs, to add streams, and
//! the response to each.

use std::ops::Range;

use bytes::Bytes;

use super::{Chunk, bad};
use crate::wire::WireError;
use crate::wire::field::{u16_at, u32_at};
use crate::wire::tlv::{self, Kind, Tlv};

/// Parameter types of RFC 6525 section 4.
pub mod reconfig_param {
    pub const OUTGOING_SSN_RESET: u16 = 13;
    pub const INCOMING_SSN_RESET: u16 = 14;
    pub const SSN_TSN_RESET: u16 = 15;
    pub const RESPONSE: u16 = 16;
    pub const ADD_OUTGOING_STREAMS: u16 = 17;
    pub const ADD_INCOMING_STREAMS: u16 = 18;
}

/// The Result field of a Re-configuration Response (RFC 6525 section
/// 4.4).
pub mod reconfig_result {
    pub const SUCCESS_NOTHING_TO_DO: u32 = 0;
    pub const SUCCESS_PERFORMED: u32 = 1;
    pub const DENIED: u32 = 2;
    pub const ERROR_WRONG_SSN: u32 = 3;
    pub const ERROR_REQUEST_IN_PROGRESS: u32 = 4;
    pub const ERROR_BAD_SEQUENCE_NUMBER: u32 = 5;
    pub const IN_PROGRESS: u32 = 6;
}

/// One parameter of a RE-CONFIG chunk (RFC 6525 section 4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReconfigParam {
    /// Outgoing SSN Reset Request (section 4.1): the sender resets its
    /// outgoing `streams` (all when empty) after `last_tsn`.
    OutgoingSsnReset {
        request_seq: u32,
        response_seq: u32,
        last_tsn: u32,
        streams: Vec<u16>,
    },
    /// Incoming SSN Reset Request (section 4.2): asks the peer to reset
    /// its outgoing `streams` (all when empty).
    IncomingSsnReset { request_seq: u32, streams: Vec<u16> },
    /// SSN/TSN Reset Request (section 4.3).
    SsnTsnReset { request_seq: u32 },
    /// Re-configuration Response (section 4.4); the next TSNs only in the
    /// answer to an SSN/TSN Reset Request.
    Response {
        response_seq: u32,
        result: u32,
        next_tsns: Option<(u32, u32)>,
    },
    /// Add Outgoing Streams Request (section 4.5).
    AddOutgoingStreams { request_seq: u32, new_streams: u16 },
    /// Add Incoming Streams Request (section 4.6).
    AddIncomingStreams { request_seq: u32, new_streams: u16 },
    /// Any other parameter, kept whole.
    Unknown { param_type: u16, value: Bytes },
}

/// RE-CONFIG chunk (RFC 6525 section 3.1): one or two parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReconfigChunk {
    pub params: Vec<ReconfigParam>,
}

impl ReconfigChunk {
    pub(super) fn value_len(&self) -> usize {
        tlv::list_len(&self.params)
    }

    pub(super) fn emit_value(&self, out: &mut Vec<u8>) {
        tlv::emit_list(&self.params, out);
    }

    pub(super) fn decode(buf: &Bytes, range: Range<usize>) -> Result<Chunk, WireError> {
        let params = tlv::parse_list_at(buf, range.start + tlv::VALUE..range.end)?;
        Ok(Chunk::Reconfig(ReconfigChunk { params }))
    }
}

fn streams_len(streams: &[u16]) -> usize {
    streams.len().saturating_mul(2)
}

fn stream_list(what: &'static str, v: &[u8], len: usize) -> Result<Vec<u16>, WireError> {
    if !v.len().is_multiple_of(2) {
        return Err(bad(what, len));
    }
    Ok(v.chunks_exact(2).map(|s| u16_at(s, 0)).collect())
}

impl Tlv for ReconfigParam {
    const KIND: Kind = Kind::Param;

    fn length(&self) -> usize {
        let value = match self {
            ReconfigParam::OutgoingSsnReset { streams, .. } => 12 + streams_len(streams),
            ReconfigParam::IncomingSsnReset { streams, .. } => 4 + streams_len(streams),
            ReconfigParam::SsnTsnReset { .. } => 4,
            ReconfigParam::Response { next_tsns, .. } => {
                if next_tsns.is_some() {
                    16
                } else {
                    8
                }
            }
            ReconfigParam::AddOutgoingStreams { .. } | ReconfigParam::AddIncomingStreams { .. } => {
                8
            }
            ReconfigParam::Unknown { value, .. } => value.len(),
        };
        value.saturating_add(tlv::VALUE)
    }

    fn emit_value(&self, out: &mut Vec<u8>) {
        use reconfig_param as t;
        let ty = match self {
            ReconfigParam::OutgoingSsnReset { .. } => t::OUTGOING_SSN_RESET,
            ReconfigParam::IncomingSsnReset { .. } => t::INCOMING_SSN_RESET,
            ReconfigParam::SsnTsnReset { .. } => t::SSN_TSN_RESET,
            ReconfigParam::Response { .. } => t::RESPONSE,
            ReconfigParam::AddOutgoingStreams { .. } => t::ADD_OUTGOING_STREAMS,
            ReconfigParam::AddIncomingStreams { .. } => t::ADD_INCOMING_STREAMS,
            ReconfigParam::Unknown { param_type, .. } => *param_type,
        };
        out.extend_from_slice(&ty.to_be_bytes());
        out.extend_from_slice(&[0, 0]);
        let streams = |out: &mut Vec<u8>, s: &[u16]| {
            for x in s {
                out.extend_from_slice(&x.to_be_bytes());
            }
        };
        match self {
            ReconfigParam::OutgoingSsnReset {
                request_seq,
                response_seq,
                last_tsn,
                streams: s,
            } => {
                out.extend_from_slice(&request_seq.to_be_bytes());
                out.extend_from_slice(&response_seq.to_be_bytes());
                out.extend_from_slice(&last_tsn.to_be_bytes());
                streams(out, s);
            }
            ReconfigParam::IncomingSsnReset {
                request_seq,
                streams: s,
            } => {
                out.extend_from_slice(&request_seq.to_be_bytes());
                streams(out, s);
            }
            ReconfigParam::SsnTsnReset { request_seq } => {
                out.extend_from_slice(&request_seq.to_be_bytes());
            }
            ReconfigParam::Response {
                response_seq,
                result,
                next_tsns,
            } => {
                out.extend_from_slice(&response_seq.to_be_bytes());
                out.extend_from_slice(&result.to_be_bytes());
                if let Some((sender, receiver)) = next_tsns {
                    out.extend_from_slice(&sender.to_be_bytes());
                    out.extend_from_slice(&receiver.to_be_bytes());
                }
            }
            ReconfigParam::AddOutgoingStreams {
                request_seq,
                new_streams,
            }
            | ReconfigParam::AddIncomingStreams {
                request_seq,
                new_streams,
            } => {
                out.extend_from_slice(&request_seq.to_be_bytes());
                out.extend_from_slice(&new_streams.to_be_bytes());
                out.extend_from_slice(&[0, 0]);
            }
            ReconfigParam::Unknown { value, .. } => out.extend_from_slice(value),
        }
    }

    fn decode(buf: &Bytes, range: Range<usize>, p: &[u8]) -> Result<Self, WireError> {
        use reconfig_param as t;
        let len = p.len();
        let v = &p[tlv::VALUE..];
        let exact = |what: &'static str, want: usize| {
            if len == want {
                Ok(())
            } else {
                Err(bad(what, len))
            }
        };
        Ok(match u16_at(p, 0) {
            t::OUTGOING_SSN_RESET => {
                const W: &str = "Outgoing SSN Reset Request";
                if len < 16 {
                    return Err(bad(W, len));
                }
                ReconfigParam::OutgoingSsnReset {
                    request_seq: u32_at(v, 0),
                    response_seq: u32_at(v, 4),
                    last_tsn: u32_at(v, 8),
                    streams: stream_list(W, &v[12..], len)?,
                }
            }
            t::INCOMING_SSN_RESET => {
                const W: &str = "Incoming SSN Reset Request";
                if len < 8 {
                    return Err(bad(W, len));
                }
                ReconfigParam::IncomingSsnReset {
                    request_seq: u32_at(v, 0),
                    streams: stream_list(W, &v[4..], len)?,
                }
            }
            t::SSN_TSN_RESET => {
                exact("SSN/TSN Reset Request", 8)?;
                ReconfigParam::SsnTsnReset {
                    request_seq: u32_at(v, 0),
                }
            }
            t::RESPONSE => {
                if len != 12 && len != 20 {
                    return Err(bad("Re-configuration Response", len));
                }
                ReconfigParam::Response {
                    response_seq: u32_at(v, 0),
                    result: u32_at(v, 4),
                    next_tsns: (len == 20).then(|| (u32_at(v, 8), u32_at(v, 12))),
                }
            }
            t::ADD_OUTGOING_STREAMS | t::ADD_INCOMING_STREAMS => {
                exact("Add Streams Request", 12)?;
                let (request_seq, new_streams) = (u32_at(v, 0), u16_at(v, 4));
                if u16_at(p, 0) == t::ADD_OUTGOING_STREAMS {
                    ReconfigParam::AddOutgoingStreams {
                        request_seq,
                        new_streams,
                    }
                } else {
                    ReconfigParam::AddIncomingStreams {
                        request_seq,
                        new_streams,
                    }
                }
            }
            other => ReconfigParam::Unknown {
                param_type: other,
                value: buf.slice(range.start + tlv::VALUE..range.end),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(c: Chunk) -> Vec<u8> {
        crate::wire::tlv::testing::emitted(&c)
    }

    #[test]
    fn an_outgoing_reset_and_an_incoming_reset_in_one_chunk() {
        let b = roundtrip(Chunk::Reconfig(ReconfigChunk {
            params: vec![
                ReconfigParam::OutgoingSsnReset {
                    request_seq: 1,
                    response_seq: 9,
                    last_tsn: 100,
                    streams: vec![1, 2, 3],
                },
                ReconfigParam::IncomingSsnReset {
                    request_seq: 2,
                    streams: vec![4],
                },
            ],
        }));
        assert_eq!(b[0], 0x82);
        // 4 + (22 + 2 padding) + 10 (the last padding is the chunk's).
        assert_eq!(u16::from_be_bytes([b[2], b[3]]), 38);
        assert_eq!(&b[4..8], &[0, 13, 0, 22]);
    }

    #[test]
    fn responses_adds_and_tsn_resets() {
        for p in [
            ReconfigParam::SsnTsnReset { request_seq: 5 },
            ReconfigParam::Response {
                response_seq: 5,
                result: reconfig_result::SUCCESS_PERFORMED,
                next_tsns: Some((1000, 2000)),
            },
            ReconfigParam::Response {
                response_seq: 6,
                result: reconfig_result::IN_PROGRESS,
                next_tsns: None,
            },
            ReconfigParam::AddOutgoingStreams {
                request_seq: 7,
                new_streams: 16,
            },
            ReconfigParam::AddIncomingStreams {
                request_seq: 8,
                new_streams: 1,
            },
        ] {
            roundtrip(Chunk::Reconfig(ReconfigChunk { params: vec![p] }));
        }
    }

    #[test]
    fn malformed_parameters_are_refused() {
        // SSN/TSN Reset Request of length 12.
        let b = Bytes::from_static(&[0x82, 0, 0, 16, 0, 15, 0, 12, 0, 0, 0, 1, 0, 0, 0, 0]);
        assert!(Chunk::parse(&b).is_err());
        // Response of length 16.
        let b = Bytes::from_static(&[
            0x82, 0, 0, 20, 0, 16, 0, 16, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0,
        ]);
        assert!(Chunk::parse(&b).is_err());
    }
}
