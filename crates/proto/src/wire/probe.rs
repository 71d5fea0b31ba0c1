//! PROBE and PROBE-ECHO: the two chunks of msctp's packet-pair capacity
//! estimator (docs/MODELS.md section 3, AISLE; the design and its reasons are
//! in docs/DESIGN.md, "Path estimators").
//!
//! These are msctp extension chunks, not IETF ones. Their types, 0xB0 and
//! 0xB1, are unassigned by IANA and unknown to usrsctp, Linux, FreeBSD and
//! Wireshark; their two high bits are `10`, which RFC 9260 section 3.2
//! defines as "skip this chunk and continue processing, do not report": a
//! peer that does not know them drops them silently and processes the rest
//! of the packet. A sender announces that it understands them by listing
//! both types in its Supported Extensions parameter (RFC 5061 section
//! 4.2.7) and sends trains only to peers that did.
//!
//! ```text
//! PROBE (0xB0)
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |  Type = 0xB0  |  Flags = 0    |            Length             |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                        Train Identifier                       |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |   Sequence    |     Count     |        Reserved (zero)        |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! \                 Filler (zero bytes, Length - 12)              \
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//!
//! PROBE-ECHO (0xB1)
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |  Type = 0xB1  |  Flags = 0    |       Length = 8 + 8 n        |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                        Train Identifier                       |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |   Sequence    |   Reserved    |     Packet Length (bytes)     |  \
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+   n
//! |       Arrival Offset (ns after the train's first arrival)     |  /
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! ```
//!
//! One PROBE chunk travels per packet; the filler makes the large packets
//! of a train as long as the path MTU. The echo lists the probes of one
//! train in the order they arrived, each with the length of the SCTP
//! packet that carried it and its arrival time relative to the first.

use bytes::Bytes;

use super::WireError;
use super::field::{probe as field, u8_at, u16_at, u32_at};

/// Bytes of a PROBE chunk without filler.
pub const PROBE_HEADER_LEN: usize = 12;
/// Bytes of a PROBE-ECHO chunk before its arrival entries.
pub const ECHO_HEADER_LEN: usize = 8;
/// Bytes of one arrival entry.
pub const ECHO_ENTRY_LEN: usize = 8;

/// PROBE: one packet of a capacity-probe train.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeChunk {
    /// Chosen at random by the sender; names the train in the echo.
    pub train: u32,
    /// Position in the train, from 0.
    pub seq: u8,
    /// Packets in the train.
    pub count: u8,
    /// Filler after the header (zero bytes when we send).
    pub filler: Bytes,
}

/// One probe as the receiver saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeArrival {
    pub seq: u8,
    /// Length of the SCTP packet that carried the probe.
    pub packet_len: u16,
    /// Nanoseconds after the train's first probe arrived (saturated).
    pub offset_ns: u32,
}

/// PROBE-ECHO: the arrivals of one train, in arrival order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeEchoChunk {
    pub train: u32,
    pub arrivals: Vec<ProbeArrival>,
}

impl ProbeChunk {
    /// A probe whose chunk is `chunk_len` bytes long (at least the header).
    pub fn sized(train: u32, seq: u8, count: u8, chunk_len: usize) -> ProbeChunk {
        /// Zeros shared by every probe's filler (a large probe on loopback
        /// fills a 64 kB packet; allocating and clearing it for each was
        /// half of a train's cost).
        static ZEROS: [u8; 1 << 16] = [0; 1 << 16];
        let n = chunk_len.saturating_sub(PROBE_HEADER_LEN);
        let filler = match ZEROS.get(..n) {
            Some(z) => Bytes::from_static(z),
            None => Bytes::from(vec![0u8; n]),
        };
        ProbeChunk {
            train,
            seq,
            count,
            filler,
        }
    }

    pub(crate) fn value_len(&self) -> usize {
        (PROBE_HEADER_LEN - 4).saturating_add(self.filler.len())
    }

    /// Decodes the chunk `c` (header and value, unpadded); `filler` is the
    /// slice of the datagram after the fixed part.
    pub(crate) fn parse(c: &[u8], filler: Bytes) -> Result<ProbeChunk, WireError> {
        if c.len() < PROBE_HEADER_LEN {
            return Err(WireError::BadLength {
                what: "PROBE chunk",
                length: c.len(),
            });
        }
        Ok(ProbeChunk {
            train: u32_at(c, field::TRAIN),
            seq: u8_at(c, field::SEQ),
            count: u8_at(c, field::COUNT),
            filler,
        })
    }

    pub(crate) fn emit_value(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.train.to_be_bytes());
        out.extend_from_slice(&[self.seq, self.count, 0, 0]);
        out.extend_from_slice(&self.filler);
    }
}

impl ProbeEchoChunk {
    pub(crate) fn value_len(&self) -> usize {
        (ECHO_HEADER_LEN - 4).saturating_add(self.arrivals.len().saturating_mul(ECHO_ENTRY_LEN))
    }

    pub(crate) fn parse(c: &[u8]) -> Result<ProbeEchoChunk, WireError> {
        let len = c.len();
        if len < ECHO_HEADER_LEN || !(len - ECHO_HEADER_LEN).is_multiple_of(ECHO_ENTRY_LEN) {
            return Err(WireError::BadLength {
                what: "PROBE-ECHO chunk",
                length: len,
            });
        }
        let arrivals = c[ECHO_HEADER_LEN..]
            .chunks_exact(ECHO_ENTRY_LEN)
            .map(|e| ProbeArrival {
                seq: u8_at(e, field::ENTRY_SEQ),
                packet_len: u16_at(e, field::ENTRY_PACKET_LEN),
                offset_ns: u32_at(e, field::ENTRY_OFFSET_NS),
            })
            .collect();
        Ok(ProbeEchoChunk {
            train: u32_at(c, field::TRAIN),
            arrivals,
        })
    }

    pub(crate) fn emit_value(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.train.to_be_bytes());
        for a in &self.arrivals {
            out.extend_from_slice(&[a.seq, 0]);
            out.extend_from_slice(&a.packet_len.to_be_bytes());
            out.extend_from_slice(&a.offset_ns.to_be_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::chunk::{Chunk, UnknownChunkAction, chunk_type};

    fn roundtrip(c: &Chunk) -> Vec<u8> {
        crate::wire::tlv::testing::emitted(c)
    }

    #[test]
    fn probe_types_are_skipped_silently_by_peers_that_do_not_know_them() {
        for ty in [chunk_type::PROBE, chunk_type::PROBE_ECHO] {
            assert_eq!(UnknownChunkAction::from_type(ty), UnknownChunkAction::Skip);
        }
    }

    #[test]
    fn probe_wire_format() {
        let small = Chunk::Probe(ProbeChunk::sized(0x0102_0304, 1, 6, 12));
        assert_eq!(
            roundtrip(&small),
            [0xb0, 0, 0, 12, 1, 2, 3, 4, 1, 6, 0, 0],
            "a small probe is its 12-byte header"
        );
        let large = Chunk::Probe(ProbeChunk::sized(7, 2, 6, 1401));
        let b = roundtrip(&large);
        assert_eq!(u16::from_be_bytes([b[2], b[3]]), 1401);
        assert_eq!(b.len(), 1404, "padded to 4 bytes");
    }

    #[test]
    fn probe_echo_wire_format() {
        let echo = Chunk::ProbeEcho(ProbeEchoChunk {
            train: 9,
            arrivals: vec![
                ProbeArrival {
                    seq: 0,
                    packet_len: 28,
                    offset_ns: 0,
                },
                ProbeArrival {
                    seq: 1,
                    packet_len: 1452,
                    offset_ns: 0x0a0b_0c0d,
                },
            ],
        });
        assert_eq!(
            roundtrip(&echo),
            [
                0xb1, 0, 0, 24, 0, 0, 0, 9, //
                0, 0, 0, 28, 0, 0, 0, 0, //
                1, 0, 0x05, 0xac, 0x0a, 0x0b, 0x0c, 0x0d
            ]
        );
    }

    #[test]
    fn malformed_probes_are_refused() {
        for bad in [
            &[0xb0u8, 0, 0, 8, 0, 0, 0, 1][..],
            &[0xb1, 0, 0, 4][..],
            &[0xb1, 0, 0, 12, 0, 0, 0, 1, 0, 0, 0, 0][..],
        ] {
            assert!(
                Chunk::parse(&Bytes::copy_from_slice(bad)).is_err(),
                "{bad:02x?}"
            );
        }
    }
}
