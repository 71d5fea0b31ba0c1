//! Reading SCTP packets as an observer (no state of the association is
//! touched): the DATA chunks a packet carries (RFC 9260 section 3.3.1:
//! TSN in the first four bytes of the chunk value, 12 bytes of DATA header
//! before the user data) and whether a SACK has gap-ack blocks (section
//! 3.3.4: number of gap blocks at value offset 8). A malformed packet
//! yields what could be read before the damage; it never panics.

use msctp_proto::wire::chunk::chunk_type;

/// Bytes of the DATA chunk header inside the chunk value (TSN, stream,
/// SSN, PPID).
const DATA_VALUE_HEADER: usize = 12;

/// The SCTP common header (RFC 9260 section 3.1).
const COMMON_HEADER: usize = 12;

/// Calls `f(type, value)` for each chunk of an SCTP packet, in order,
/// stopping at the first that cannot be delimited: the walk of
/// [`msctp_proto::wire::Packet::chunks`] (RFC 9260 section 3.2: a chunk
/// header needs 4 bytes, a length field at least 4 and within the packet;
/// chunks padded to 4 bytes, the last one's padding may be missing),
/// without its error values. This runs for every packet the agent sends
/// and receives.
fn for_each_chunk(sctp: &[u8], mut f: impl FnMut(u8, &[u8])) {
    let end = sctp.len();
    if end < COMMON_HEADER {
        return;
    }
    let mut pos = COMMON_HEADER;
    while pos < end {
        if end - pos < 4 {
            return;
        }
        let len = usize::from(u16::from_be_bytes([sctp[pos + 2], sctp[pos + 3]]));
        if len < 4 || len > end - pos {
            return;
        }
        f(sctp[pos], &sctp[pos + 4..pos + len]);
        pos = (pos + ((len + 3) & !3)).min(end);
    }
}

/// Calls `f(tsn, user_bytes)` for every DATA chunk of an SCTP packet.
pub fn for_each_data(sctp: &[u8], mut f: impl FnMut(u32, u32)) {
    for_each_chunk(sctp, |ty, v| {
        if ty == chunk_type::DATA && v.len() >= DATA_VALUE_HEADER {
            let tsn = u32::from_be_bytes([v[0], v[1], v[2], v[3]]);
            f(tsn, (v.len() - DATA_VALUE_HEADER) as u32);
        }
    });
}

/// True if the packet carries at least one DATA chunk.
pub fn has_data(sctp: &[u8]) -> bool {
    let mut any = false;
    for_each_data(sctp, |_, _| any = true);
    any
}

/// True if the packet carries a SACK with at least one gap-ack block.
pub fn sack_with_gaps(sctp: &[u8]) -> bool {
    let mut gaps = false;
    for_each_chunk(sctp, |ty, v| {
        gaps |= ty == chunk_type::SACK && v.len() >= 10 && u16::from_be_bytes([v[8], v[9]]) > 0;
    });
    gaps
}

/// [`for_each_data`] and [`sack_with_gaps`] in one walk over the chunks
/// (the agent reads both of every packet it sends): calls `f` for each
/// DATA chunk and says whether a SACK with gap-ack blocks came before the
/// first chunk that could not be delimited.
pub fn for_each_data_and_gaps(sctp: &[u8], mut f: impl FnMut(u32, u32)) -> bool {
    let mut gaps = false;
    for_each_chunk(sctp, |ty, v| match ty {
        chunk_type::DATA if v.len() >= DATA_VALUE_HEADER => {
            let tsn = u32::from_be_bytes([v[0], v[1], v[2], v[3]]);
            f(tsn, (v.len() - DATA_VALUE_HEADER) as u32);
        }
        chunk_type::SACK if v.len() >= 10 && u16::from_be_bytes([v[8], v[9]]) > 0 => {
            gaps = true;
        }
        _ => {}
    });
    gaps
}

/// The destination port of an SCTP packet (common header bytes 2..4).
pub fn dst_port(sctp: &[u8]) -> Option<u16> {
    sctp.get(2..4).map(|b| u16::from_be_bytes([b[0], b[1]]))
}

/// Numbers the TSNs of one direction of an association from 0 (the first
/// TSN, the sender's Initial TSN) upwards on a 64-bit line, so that both
/// ends of a flow give the same data the same number
/// ([`crate::measure::Arrival::seq`]). Serial number arithmetic (RFC 9260
/// section 1.6) relative to the highest TSN seen handles wrap-around.
#[derive(Debug, Clone, Copy, Default)]
pub struct TsnNumbering {
    /// (number, TSN) of the highest TSN seen.
    highest: Option<(u64, u32)>,
}

impl TsnNumbering {
    /// Sets the first TSN (no effect once set).
    pub fn set_origin(&mut self, first_tsn: u32) {
        if self.highest.is_none() {
            self.highest = Some((0, first_tsn));
        }
    }

    pub fn has_origin(&self) -> bool {
        self.highest.is_some()
    }

    /// The number of `tsn`; 0 before the origin is set, and for TSNs below
    /// the origin (which cannot carry this flow's data).
    pub fn seq(&mut self, tsn: u32) -> u64 {
        let Some((h, ht)) = self.highest else {
            return 0;
        };
        let d = i64::from(msctp_serial::Serial(tsn).diff(msctp_serial::Serial(ht)));
        let s = (h as i64).saturating_add(d);
        if s < 0 {
            return 0;
        }
        if d > 0 {
            self.highest = Some((s as u64, tsn));
        }
        s as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use msctp_proto::wire::{Chunk, DataChunk, GapBlock, PacketRepr, SackChunk};

    fn packet(chunks: Vec<Chunk>) -> Vec<u8> {
        PacketRepr {
            header: msctp_proto::wire::CommonHeader {
                src_port: 1,
                dst_port: 2,
                verification_tag: 3,
            },
            chunks,
        }
        .emit()
    }

    fn data(tsn: u32, n: usize) -> Chunk {
        Chunk::Data(DataChunk {
            tsn,
            stream_id: 0,
            ssn: 0,
            ppid: 0,
            unordered: false,
            begin: true,
            end: true,
            immediate: false,
            payload: Bytes::from(vec![0u8; n]),
        })
    }

    fn sack(gaps: Vec<GapBlock>) -> Chunk {
        Chunk::Sack(SackChunk {
            flags: 0,
            cum_tsn_ack: 9,
            a_rwnd: 1000,
            gap_blocks: gaps,
            dup_tsns: vec![],
        })
    }

    #[test]
    fn data_chunks_and_sack_gaps_are_read() {
        let p = packet(vec![sack(vec![]), data(10, 100), data(11, 3)]);
        let mut seen = Vec::new();
        for_each_data(&p, |t, n| seen.push((t, n)));
        assert_eq!(seen, vec![(10, 100), (11, 3)]);
        assert!(has_data(&p));
        assert!(!sack_with_gaps(&p));
        assert_eq!(dst_port(&p), Some(2));
        let g = packet(vec![sack(vec![GapBlock { start: 2, end: 3 }])]);
        assert!(sack_with_gaps(&g));
        assert!(!has_data(&g));
        // Garbage and truncation never panic.
        for cut in 0..p.len() {
            let _ = has_data(&p[..cut]);
            let _ = sack_with_gaps(&p[..cut]);
        }
        assert!(!has_data(&[0xff; 3]));
        assert_eq!(dst_port(&[1]), None);
    }

    #[test]
    fn one_walk_reads_what_the_two_read() {
        let gap = || vec![GapBlock { start: 2, end: 3 }];
        let packets = [
            packet(vec![sack(vec![]), data(10, 100), data(11, 3)]),
            packet(vec![sack(gap()), data(12, 7)]),
            packet(vec![data(13, 1), sack(gap())]),
            packet(vec![sack(vec![])]),
        ];
        for p in &packets {
            // Every truncation too: both stop at the first bad chunk.
            for cut in 0..=p.len() {
                let p = &p[..cut];
                let (mut one, mut two) = (Vec::new(), Vec::new());
                let gaps = for_each_data_and_gaps(p, |t, n| one.push((t, n)));
                for_each_data(p, |t, n| two.push((t, n)));
                assert_eq!(one, two, "cut {cut}");
                assert_eq!(gaps, sack_with_gaps(p), "cut {cut}");
            }
        }
    }

    proptest::proptest! {
        /// The walk yields what the protocol crate's chunk iterator
        /// yields before its first error, for any bytes (whole packets,
        /// cut ones, bad lengths).
        #[test]
        fn chunk_walk_is_the_packet_iterator(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
            lens in proptest::collection::vec(0u16..40, 0..6),
        ) {
            // Plausible chunk headers over the random bytes.
            let mut buf = bytes.clone();
            let mut at = COMMON_HEADER;
            for l in lens {
                if at + 4 > buf.len() {
                    break;
                }
                buf[at + 2..at + 4].copy_from_slice(&l.to_be_bytes());
                at += (usize::from(l) + 3) & !3;
            }
            let mut got: Vec<(u8, Vec<u8>)> = Vec::new();
            for_each_chunk(&buf, |t, v| got.push((t, v.to_vec())));
            let mut want: Vec<(u8, Vec<u8>)> = Vec::new();
            if let Ok(p) = msctp_proto::wire::Packet::new_checked(&buf[..]) {
                for item in p.chunks() {
                    let Ok((_, c)) = item else { break };
                    want.push((c.chunk_type(), c.value().to_vec()));
                }
            }
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn tsn_numbering_starts_at_zero_and_survives_wrap() {
        let mut n = TsnNumbering::default();
        assert_eq!(n.seq(5), 0, "no origin yet");
        n.set_origin(u32::MAX - 1);
        n.set_origin(7);
        assert_eq!(n.seq(u32::MAX - 1), 0);
        assert_eq!(n.seq(u32::MAX), 1);
        assert_eq!(n.seq(0), 2);
        assert_eq!(n.seq(5), 7);
        assert_eq!(n.seq(u32::MAX), 1, "an old TSN keeps its number");
        assert_eq!(n.seq(u32::MAX - 5), 0, "below the origin saturates");
    }
}
