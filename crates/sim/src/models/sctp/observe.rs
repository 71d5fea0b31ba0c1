//! Reading SCTP packets as an observer (no state of the association is
//! touched): the DATA chunks a packet carries (RFC 9260 section 3.3.1:
//! TSN in the first four bytes of the chunk value, 12 bytes of DATA header
//! before the user data) and whether a SACK has gap-ack blocks (section
//! 3.3.4: number of gap blocks at value offset 8). A malformed packet
//! yields what could be read before the damage; it never panics.

use msctp_proto::wire::Packet;
use msctp_proto::wire::chunk::chunk_type;

/// Bytes of the DATA chunk header inside the chunk value (TSN, stream,
/// SSN, PPID).
const DATA_VALUE_HEADER: usize = 12;

/// Calls `f(tsn, user_bytes)` for every DATA chunk of an SCTP packet.
pub fn for_each_data(sctp: &[u8], mut f: impl FnMut(u32, u32)) {
    let Ok(p) = Packet::new_checked(sctp) else {
        return;
    };
    for item in p.chunks() {
        let Ok((_, c)) = item else { return };
        if c.chunk_type() != chunk_type::DATA {
            continue;
        }
        let v = c.value();
        if v.len() < DATA_VALUE_HEADER {
            continue;
        }
        let tsn = u32::from_be_bytes([v[0], v[1], v[2], v[3]]);
        f(tsn, (v.len() - DATA_VALUE_HEADER) as u32);
    }
}

/// True if the packet carries at least one DATA chunk.
pub fn has_data(sctp: &[u8]) -> bool {
    let mut any = false;
    for_each_data(sctp, |_, _| any = true);
    any
}

/// True if the packet carries a SACK with at least one gap-ack block.
pub fn sack_with_gaps(sctp: &[u8]) -> bool {
    let Ok(p) = Packet::new_checked(sctp) else {
        return false;
    };
    for item in p.chunks() {
        let Ok((_, c)) = item else { return false };
        if c.chunk_type() == chunk_type::SACK {
            let v = c.value();
            if v.len() >= 10 && u16::from_be_bytes([v[8], v[9]]) > 0 {
                return true;
            }
        }
    }
    false
}

/// [`for_each_data`] and [`sack_with_gaps`] in one walk over the chunks
/// (the agent reads both of every packet it sends): calls `f` for each
/// DATA chunk and says whether a SACK with gap-ack blocks came before the
/// first chunk that could not be delimited.
pub fn for_each_data_and_gaps(sctp: &[u8], mut f: impl FnMut(u32, u32)) -> bool {
    let Ok(p) = Packet::new_checked(sctp) else {
        return false;
    };
    let mut gaps = false;
    for item in p.chunks() {
        let Ok((_, c)) = item else { break };
        let v = c.value();
        match c.chunk_type() {
            chunk_type::DATA if v.len() >= DATA_VALUE_HEADER => {
                let tsn = u32::from_be_bytes([v[0], v[1], v[2], v[3]]);
                f(tsn, (v.len() - DATA_VALUE_HEADER) as u32);
            }
            chunk_type::SACK if v.len() >= 10 && u16::from_be_bytes([v[8], v[9]]) > 0 => {
                gaps = true;
            }
            _ => {}
        }
    }
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
