//! The TCP segment on the wire (RFC 9293 section 3.1): header, the options
//! this model speaks (MSS, window scale and timestamps of RFC 7323, SACK and
//! SACK-permitted of RFC 2018) and the checksum over the IPv4 or IPv6
//! pseudo-header.
//!
//! The fixed header and the checksum come from the `etherparse` crate; the
//! option list is read here because RFC 9293 (section 3.2) requires unknown
//! options to be skipped by their length, which `etherparse`'s iterator
//! does not do.

use std::net::IpAddr;

use etherparse::{TcpHeader, TcpOptionElement};

use crate::seq::SeqNum;

/// Why a buffer is not an acceptable TCP segment.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// The buffer is not a decodable TCP header (too short, or a data
    /// offset smaller than the header or beyond the buffer).
    #[error("malformed TCP header: {0}")]
    Header(String),
    /// The checksum does not match the pseudo-header and the bytes.
    #[error("bad TCP checksum: carried {carried:#06x}, computed {computed:#06x}")]
    BadChecksum { carried: u16, computed: u16 },
    /// Source and destination addresses are not of the same IP version.
    #[error("source and destination addresses of different IP versions")]
    AddressFamilyMismatch,
    /// An option whose length byte is impossible (RFC 9293 section 3.2:
    /// the segment is dropped).
    #[error("malformed TCP option kind {kind} with length {len}")]
    BadOption { kind: u8, len: u8 },
    /// The options to emit do not fit in 40 bytes.
    #[error("TCP options need {0} bytes, at most 40 fit")]
    OptionsTooLong(usize),
    /// The payload is larger than an IP packet can carry.
    #[error("TCP payload of {0} bytes is too large")]
    PayloadTooLarge(usize),
}

/// One SACK block (RFC 2018 section 3): `left` is the first sequence number
/// of a block of received data, `right` the one after its last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SackBlock {
    pub left: SeqNum,
    pub right: SeqNum,
}

/// The timestamp option (RFC 7323 section 3): TSval and TSecr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timestamps {
    pub value: u32,
    pub echo: u32,
}

/// The options this model reads and writes; others are skipped on input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TcpOptions {
    /// Maximum segment size (kind 2), SYN only.
    pub mss: Option<u16>,
    /// Window scale shift (kind 3, RFC 7323 section 2), SYN only.
    pub window_scale: Option<u8>,
    /// SACK permitted (kind 4), SYN only.
    pub sack_permitted: bool,
    /// SACK blocks (kind 5), at most 4.
    pub sack_blocks: Vec<SackBlock>,
    /// Timestamps (kind 8).
    pub timestamps: Option<Timestamps>,
}

/// The control bits of the header.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flags {
    pub fin: bool,
    pub syn: bool,
    pub rst: bool,
    pub psh: bool,
    pub ack: bool,
    pub urg: bool,
    pub ece: bool,
    pub cwr: bool,
}

/// A decoded TCP header.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SegmentHeader {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: SeqNum,
    pub ack: SeqNum,
    pub flags: Flags,
    /// The window field as carried (not yet scaled).
    pub window: u16,
    pub urgent: u16,
    pub options: TcpOptions,
}

impl SegmentHeader {
    /// Sequence space the segment occupies: payload plus one for SYN and
    /// one for FIN (RFC 9293 section 3.4, SEG.LEN).
    pub fn seg_len(&self, payload_len: usize) -> u32 {
        let len = u32::try_from(payload_len).unwrap_or(u32::MAX);
        len.saturating_add(u32::from(self.flags.syn))
            .saturating_add(u32::from(self.flags.fin))
    }
}

/// Decodes a segment received from `src` for `dst`, verifying its checksum.
/// Returns the header and the payload.
pub fn parse(src: IpAddr, dst: IpAddr, bytes: &[u8]) -> Result<(SegmentHeader, &[u8]), WireError> {
    let (h, payload) =
        TcpHeader::from_slice(bytes).map_err(|e| WireError::Header(e.to_string()))?;
    // A correct segment sums, with its pseudo-header and its checksum
    // field, to zero (RFC 1071); the checksum to report is only computed
    // when it does not.
    if segment_checksum(src, dst, bytes)? != 0 {
        let computed = checksum(&h, src, dst, payload)?;
        return Err(WireError::BadChecksum {
            carried: h.checksum,
            computed,
        });
    }
    Ok((decode(&h)?, payload))
}

/// Like [`parse`], with the checksum left to the layer below (receive
/// checksum offload): the same checks of the addresses and the length as
/// the checksum's, without summing the bytes.
pub fn parse_offloaded(
    src: IpAddr,
    dst: IpAddr,
    bytes: &[u8],
) -> Result<(SegmentHeader, &[u8]), WireError> {
    let (h, payload) =
        TcpHeader::from_slice(bytes).map_err(|e| WireError::Header(e.to_string()))?;
    pseudo_header_sum(src, dst, bytes.len())?;
    Ok((decode(&h)?, payload))
}

/// The header as this model reads it, with its options.
fn decode(h: &TcpHeader) -> Result<SegmentHeader, WireError> {
    let options = parse_options(h.options.as_slice())?;
    Ok(SegmentHeader {
        src_port: h.source_port,
        dst_port: h.destination_port,
        seq: SeqNum(h.sequence_number),
        ack: SeqNum(h.acknowledgment_number),
        flags: Flags {
            fin: h.fin,
            syn: h.syn,
            rst: h.rst,
            psh: h.psh,
            ack: h.ack,
            urg: h.urg,
            ece: h.ece,
            cwr: h.cwr,
        },
        window: h.window_size,
        urgent: h.urgent_pointer,
        options,
    })
}

/// Encodes a segment sent from `src` to `dst`, with its checksum.
pub fn emit(
    header: &SegmentHeader,
    payload: &[u8],
    src: IpAddr,
    dst: IpAddr,
) -> Result<Vec<u8>, WireError> {
    let h = fixed_header(header)?;
    let mut out = Vec::with_capacity(h.header_len() + payload.len());
    out.extend_from_slice(&h.to_bytes());
    out.extend_from_slice(payload);
    let c = segment_checksum(src, dst, &out)?;
    out[16..18].copy_from_slice(&c.to_be_bytes());
    Ok(out)
}

/// [`emit`] of a payload of `len` zero bytes: the same bytes, the sum
/// taken over the header alone (zeros add nothing to a one's complement
/// sum, RFC 1071, and the header's length is a multiple of 4, so the
/// payload's words are whole).
pub fn emit_zeros(
    header: &SegmentHeader,
    len: usize,
    src: IpAddr,
    dst: IpAddr,
) -> Result<Vec<u8>, WireError> {
    let h = fixed_header(header)?;
    let hl = h.header_len();
    let mut out = Vec::with_capacity(hl + len);
    out.extend_from_slice(&h.to_bytes());
    let c = checksum_with_zeros(src, dst, &out, hl + len)?;
    out.resize(hl + len, 0);
    out[16..18].copy_from_slice(&c.to_be_bytes());
    Ok(out)
}

/// The header with its options and a zero checksum field.
fn fixed_header(header: &SegmentHeader) -> Result<TcpHeader, WireError> {
    let mut h = TcpHeader::new(
        header.src_port,
        header.dst_port,
        header.seq.0,
        header.window,
    );
    h.acknowledgment_number = header.ack.0;
    h.fin = header.flags.fin;
    h.syn = header.flags.syn;
    h.rst = header.flags.rst;
    h.psh = header.flags.psh;
    h.ack = header.flags.ack;
    h.urg = header.flags.urg;
    h.ece = header.flags.ece;
    h.cwr = header.flags.cwr;
    h.urgent_pointer = header.urgent;
    let elements = option_elements(&header.options)?;
    h.set_options(&elements).map_err(|e| match e {
        etherparse::TcpOptionWriteError::NotEnoughSpace(n) => WireError::OptionsTooLong(n),
    })?;
    h.checksum = 0;
    Ok(h)
}

/// Internet checksum (RFC 1071) of a whole TCP segment `seg` (header,
/// options, payload) with the IPv4 or IPv6 pseudo-header (RFC 9293 section
/// 3.1, RFC 8200 section 8.1). The one's complement sum does not depend on
/// byte order (RFC 1071 section 2 (B)): the bytes are summed as
/// little-endian 32-bit words (a loop the compiler vectorises), folded, and
/// the result's bytes swapped. The profile of a simulated bulk transfer was
/// dominated by the byte-serial carry chain used before.
fn segment_checksum(src: IpAddr, dst: IpAddr, seg: &[u8]) -> Result<u16, WireError> {
    checksum_with_zeros(src, dst, seg, seg.len())
}

/// [`segment_checksum`] of a segment of `seg_len` bytes whose bytes after
/// `start` (of even length) are zeros.
fn checksum_with_zeros(
    src: IpAddr,
    dst: IpAddr,
    start: &[u8],
    seg_len: usize,
) -> Result<u16, WireError> {
    debug_assert!(start.len().is_multiple_of(2) || start.len() == seg_len);
    let addresses = pseudo_header_sum(src, dst, seg_len)?;
    let len = seg_len as u64;
    let le = fold(addresses + sum_le(start));
    // Back to network order, then protocol 6 and the TCP length (32 bits
    // wide for IPv6: the same sum of 16-bit halves).
    let be = u64::from(le.swap_bytes()) + 6 + (len >> 16) + (len & 0xffff);
    Ok(!fold(be))
}

/// The addresses' part of the pseudo-header sum (as [`sum_le`]), once
/// both are of one IP version and the segment's length fits the
/// pseudo-header's length field (16 bits for IPv4, 32 for IPv6).
fn pseudo_header_sum(src: IpAddr, dst: IpAddr, seg_len: usize) -> Result<u64, WireError> {
    let len = seg_len as u64;
    match (src, dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => {
            if len > u64::from(u16::MAX) {
                return Err(WireError::PayloadTooLarge(seg_len));
            }
            Ok(sum_le(&s.octets()) + sum_le(&d.octets()))
        }
        (IpAddr::V6(s), IpAddr::V6(d)) => {
            if len > u64::from(u32::MAX) {
                return Err(WireError::PayloadTooLarge(seg_len));
            }
            Ok(sum_le(&s.octets()) + sum_le(&d.octets()))
        }
        _ => Err(WireError::AddressFamilyMismatch),
    }
}

/// Sum of `data` as little-endian 16-bit words (an odd last byte is the
/// low byte of a word padded with zero), unfolded: the sum of its
/// little-endian 32-bit words, read eight bytes at a time (two words per
/// load), then of the 16-bit and 8-bit rest. Less than 2^33 per 8 bytes:
/// no overflow below 2^34 bytes, and a segment is at most 2^32.
fn sum_le(data: &[u8]) -> u64 {
    let mut eights = data.chunks_exact(8);
    let mut acc: u64 = 0;
    for c in &mut eights {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        acc += (w & 0xffff_ffff) + (w >> 32);
    }
    let mut fours = eights.remainder().chunks_exact(4);
    for c in &mut fours {
        acc += u64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    }
    let mut rest = fours.remainder().chunks_exact(2);
    for c in &mut rest {
        acc += u64::from(u16::from_le_bytes([c[0], c[1]]));
    }
    if let [last] = rest.remainder() {
        acc += u64::from(*last);
    }
    acc
}

/// Folds an unfolded one's complement sum to 16 bits.
fn fold(mut acc: u64) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

/// Bytes of options a header with these options needs (padded to 4).
pub fn options_len(options: &TcpOptions) -> usize {
    let mut n = 0;
    if options.mss.is_some() {
        n += 4;
    }
    if options.window_scale.is_some() {
        n += 4; // NOP + 3
    }
    if options.sack_permitted {
        n += 2;
    }
    if options.timestamps.is_some() {
        n += 10;
    }
    if !options.sack_blocks.is_empty() {
        n += 2 + 2 + 8 * options.sack_blocks.len(); // NOP NOP + kind/len + blocks
    }
    n.div_ceil(4) * 4
}

fn checksum(h: &TcpHeader, src: IpAddr, dst: IpAddr, payload: &[u8]) -> Result<u16, WireError> {
    let sum = match (src, dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => h.calc_checksum_ipv4_raw(s.octets(), d.octets(), payload),
        (IpAddr::V6(s), IpAddr::V6(d)) => h.calc_checksum_ipv6_raw(s.octets(), d.octets(), payload),
        _ => return Err(WireError::AddressFamilyMismatch),
    };
    sum.map_err(|_| WireError::PayloadTooLarge(payload.len()))
}

fn option_elements(o: &TcpOptions) -> Result<Vec<TcpOptionElement>, WireError> {
    let mut v = Vec::new();
    if let Some(mss) = o.mss {
        v.push(TcpOptionElement::MaximumSegmentSize(mss));
    }
    if let Some(ws) = o.window_scale {
        v.push(TcpOptionElement::Noop);
        v.push(TcpOptionElement::WindowScale(ws));
    }
    if o.sack_permitted {
        v.push(TcpOptionElement::SelectiveAcknowledgementPermitted);
    }
    if let Some(ts) = o.timestamps {
        v.push(TcpOptionElement::Timestamp(ts.value, ts.echo));
    }
    if let Some((first, rest)) = o.sack_blocks.split_first() {
        if rest.len() > 3 {
            return Err(WireError::OptionsTooLong(options_len(o)));
        }
        let mut more = [None; 3];
        for (slot, b) in more.iter_mut().zip(rest) {
            *slot = Some((b.left.0, b.right.0));
        }
        v.push(TcpOptionElement::Noop);
        v.push(TcpOptionElement::Noop);
        v.push(TcpOptionElement::SelectiveAcknowledgement(
            (first.left.0, first.right.0),
            more,
        ));
    }
    Ok(v)
}

/// Reads an option list (RFC 9293 section 3.2). Unknown kinds are skipped
/// by their length; a length that is impossible for the kind, or runs past
/// the end, rejects the segment.
fn parse_options(mut b: &[u8]) -> Result<TcpOptions, WireError> {
    let mut o = TcpOptions::default();
    while let Some(&kind) = b.first() {
        match kind {
            0 => break,
            1 => {
                b = &b[1..];
                continue;
            }
            _ => {}
        }
        let len = *b.get(1).ok_or(WireError::BadOption { kind, len: 0 })?;
        let l = usize::from(len);
        if l < 2 || l > b.len() {
            return Err(WireError::BadOption { kind, len });
        }
        let body = &b[2..l];
        match kind {
            2 => {
                let v: [u8; 2] = body
                    .try_into()
                    .map_err(|_| WireError::BadOption { kind, len })?;
                o.mss = Some(u16::from_be_bytes(v));
            }
            3 => {
                let v: [u8; 1] = body
                    .try_into()
                    .map_err(|_| WireError::BadOption { kind, len })?;
                o.window_scale = Some(v[0]);
            }
            4 => {
                if !body.is_empty() {
                    return Err(WireError::BadOption { kind, len });
                }
                o.sack_permitted = true;
            }
            5 => {
                if body.is_empty() || !body.len().is_multiple_of(8) || body.len() > 32 {
                    return Err(WireError::BadOption { kind, len });
                }
                o.sack_blocks = body
                    .chunks_exact(8)
                    .map(|c| SackBlock {
                        left: SeqNum(u32::from_be_bytes([c[0], c[1], c[2], c[3]])),
                        right: SeqNum(u32::from_be_bytes([c[4], c[5], c[6], c[7]])),
                    })
                    .collect();
            }
            8 => {
                if body.len() != 8 {
                    return Err(WireError::BadOption { kind, len });
                }
                o.timestamps = Some(Timestamps {
                    value: u32::from_be_bytes([body[0], body[1], body[2], body[3]]),
                    echo: u32::from_be_bytes([body[4], body[5], body[6], body[7]]),
                });
            }
            _ => {}
        }
        b = &b[l..];
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, Ipv6Addr};

    fn v4() -> (IpAddr, IpAddr) {
        (
            IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
            IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
        )
    }

    #[test]
    fn emit_zeros_is_emit_of_zeros_and_parse_offloaded_reads_it() {
        let v6 = (
            IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1)),
            IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0xffff, 2)),
        );
        let mut data = syn_header();
        data.flags = Flags {
            ack: true,
            psh: true,
            ..Flags::default()
        };
        data.options = TcpOptions {
            timestamps: Some(Timestamps {
                value: 0xfedc_ba98,
                echo: 7,
            }),
            sack_blocks: vec![SackBlock {
                left: SeqNum(0xffff_fff0),
                right: SeqNum(0x10),
            }],
            ..TcpOptions::default()
        };
        for (src, dst) in [v4(), v6] {
            for h in [syn_header(), data.clone(), SegmentHeader::default()] {
                for len in (0..70).chain([1459, 1460, 1461]) {
                    let want = emit(&h, &vec![0; len], src, dst).unwrap();
                    assert_eq!(emit_zeros(&h, len, src, dst).unwrap(), want);
                    assert_eq!(
                        parse_offloaded(src, dst, &want).unwrap(),
                        parse(src, dst, &want).unwrap()
                    );
                }
            }
        }
        let (a, b) = v4();
        assert_eq!(
            emit_zeros(&syn_header(), 3, a, v6.1),
            Err(WireError::AddressFamilyMismatch)
        );
        let seg = emit(&syn_header(), &[], a, b).unwrap();
        assert_eq!(
            parse_offloaded(a, v6.1, &seg),
            Err(WireError::AddressFamilyMismatch)
        );
    }

    fn syn_header() -> SegmentHeader {
        SegmentHeader {
            src_port: 1234,
            dst_port: 80,
            seq: SeqNum(1000),
            ack: SeqNum(0),
            flags: Flags {
                syn: true,
                ..Flags::default()
            },
            window: 65535,
            urgent: 0,
            options: TcpOptions {
                mss: Some(1448),
                window_scale: Some(7),
                sack_permitted: true,
                sack_blocks: vec![],
                timestamps: Some(Timestamps { value: 5, echo: 0 }),
            },
        }
    }

    #[test]
    fn round_trip_with_all_options_v4_and_v6() {
        let (s, d) = v4();
        let h = syn_header();
        let bytes = emit(&h, b"", s, d).unwrap();
        assert_eq!(bytes.len(), 20 + options_len(&h.options));
        let (back, payload) = parse(s, d, &bytes).unwrap();
        assert_eq!(back, h);
        assert!(payload.is_empty());

        let s6 = IpAddr::V6(Ipv6Addr::LOCALHOST);
        let d6 = IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1));
        let mut h2 = h.clone();
        h2.flags = Flags {
            ack: true,
            psh: true,
            ..Flags::default()
        };
        h2.options = TcpOptions {
            sack_blocks: vec![
                SackBlock {
                    left: SeqNum(10),
                    right: SeqNum(20),
                },
                SackBlock {
                    left: SeqNum(30),
                    right: SeqNum(40),
                },
                SackBlock {
                    left: SeqNum(50),
                    right: SeqNum(60),
                },
            ],
            timestamps: Some(Timestamps { value: 9, echo: 7 }),
            ..TcpOptions::default()
        };
        let bytes = emit(&h2, b"hello", s6, d6).unwrap();
        let (back, payload) = parse(s6, d6, &bytes).unwrap();
        assert_eq!(back, h2);
        assert_eq!(payload, b"hello");
    }

    #[test]
    fn checksum_covers_pseudo_header_and_payload() {
        let (s, d) = v4();
        let mut bytes = emit(&syn_header(), b"data", s, d).unwrap();
        // Wrong destination address: the pseudo-header differs.
        let other = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 3));
        assert!(matches!(
            parse(s, other, &bytes),
            Err(WireError::BadChecksum { .. })
        ));
        let last = bytes.len() - 1;
        bytes[last] ^= 0x40;
        assert!(matches!(
            parse(s, d, &bytes),
            Err(WireError::BadChecksum { .. })
        ));
        assert_eq!(
            parse(s, IpAddr::V6(Ipv6Addr::LOCALHOST), &bytes),
            Err(WireError::AddressFamilyMismatch)
        );
    }

    #[test]
    fn fast_checksum_equals_etherparse_for_many_sizes() {
        let (s, d) = v4();
        let s6 = IpAddr::V6("2001:db8::1".parse().unwrap());
        let d6 = IpAddr::V6("2001:db8::2".parse().unwrap());
        for n in 0..200usize {
            let payload: Vec<u8> = (0..n).map(|i| (i * 97 + n) as u8).collect();
            for (a, b) in [(s, d), (s6, d6)] {
                let bytes = emit(&syn_header(), &payload, a, b).unwrap();
                let (h, p) = TcpHeader::from_slice(&bytes).unwrap();
                assert_eq!(h.checksum, checksum(&h, a, b, p).unwrap(), "len {n}");
                assert!(parse(a, b, &bytes).is_ok());
            }
        }
    }

    #[test]
    fn known_checksum_value() {
        // A SYN from 192.168.0.1:49152 to 192.168.0.2:80, seq 1, window
        // 8192, no options. Checksum computed by hand with RFC 1071:
        // pseudo header 0xc0a8+0x0001+0xc0a8+0x0002+0x0006+0x0014 and the
        // header words 0xc000+0x0050+0x0000+0x0001+0+0+0x5002+0x2000.
        let s = IpAddr::V4(Ipv4Addr::new(192, 168, 0, 1));
        let d = IpAddr::V4(Ipv4Addr::new(192, 168, 0, 2));
        let h = SegmentHeader {
            src_port: 49152,
            dst_port: 80,
            seq: SeqNum(1),
            flags: Flags {
                syn: true,
                ..Flags::default()
            },
            window: 8192,
            ..SegmentHeader::default()
        };
        let bytes = emit(&h, b"", s, d).unwrap();
        let words: u32 = [
            0xc0a8u32, 0x0001, 0xc0a8, 0x0002, 0x0006, 0x0014, 0xc000, 0x0050, 0x0001, 0x5002,
            0x2000,
        ]
        .iter()
        .sum();
        let folded = (words & 0xffff) + (words >> 16);
        let expected = !(folded as u16);
        assert_eq!(u16::from_be_bytes([bytes[16], bytes[17]]), expected);
    }

    #[test]
    fn unknown_options_are_skipped_and_bad_lengths_rejected() {
        assert_eq!(
            parse_options(&[1, 30, 4, 0xaa, 0xbb, 2, 4, 5, 0xb4, 0])
                .unwrap()
                .mss,
            Some(1460)
        );
        assert_eq!(
            parse_options(&[2, 3, 5]),
            Err(WireError::BadOption { kind: 2, len: 3 })
        );
        assert_eq!(
            parse_options(&[30, 0]),
            Err(WireError::BadOption { kind: 30, len: 0 })
        );
        assert_eq!(
            parse_options(&[30, 9, 1]),
            Err(WireError::BadOption { kind: 30, len: 9 })
        );
        assert_eq!(
            parse_options(&[5, 6, 0, 0, 0, 0]),
            Err(WireError::BadOption { kind: 5, len: 6 })
        );
        assert_eq!(
            parse_options(&[30]),
            Err(WireError::BadOption { kind: 30, len: 0 })
        );
    }

    #[test]
    fn garbage_never_panics() {
        let (s, d) = v4();
        let mut x: u32 = 12345;
        for len in 0..80 {
            let buf: Vec<u8> = (0..len)
                .map(|_| {
                    x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    (x >> 16) as u8
                })
                .collect();
            let _ = parse(s, d, &buf);
            let _ = parse_options(&buf);
        }
    }
}
