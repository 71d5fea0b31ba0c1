//! IP packets as real bytes: IPv4 (RFC 791) and IPv6 (RFC 8200) headers
//! around the transport payload, so that captures open in Wireshark.
//!
//! An [`IpPacket`] owns one `BytesMut` buffer that travels unchanged from the
//! sender's agent through every queue, link and router to the receiver: a
//! router decrements the TTL / hop limit in place and patches the IPv4
//! header checksum incrementally (RFC 1624), nothing is re-allocated.
//! Every packet that enters the simulator from an agent is validated here
//! (version, lengths, IPv4 header checksum), so the forwarding path can read
//! fixed header offsets without further checks.
//!
//! IPv6 extension headers are not parsed: [`IpPacket::protocol`] is the
//! fixed header's Next Header field. No fragmentation, no IPv4 options are
//! generated (received options are accepted and skipped).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use bytes::{Buf, BufMut, Bytes, BytesMut};
use etherparse::{IpNumber, Ipv6FlowLabel, Ipv6Header};

/// IP protocol numbers used by the simulator (IANA "Protocol Numbers").
pub mod proto {
    /// IPv4 encapsulation (IP-in-IP, RFC 2003).
    pub const IPIP: u8 = 4;
    pub const TCP: u8 = 6;
    pub const UDP: u8 = 17;
    /// IPv6 encapsulation (RFC 2473).
    pub const IPV6: u8 = 41;
    pub const SCTP: u8 = 132;
}

/// Length of the IPv4 header without options (RFC 791).
pub const IPV4_HEADER_LEN: usize = 20;
/// Length of the fixed IPv6 header (RFC 8200).
pub const IPV6_HEADER_LEN: usize = 40;
/// Default TTL / hop limit of packets built by the helpers.
pub const DEFAULT_TTL: u8 = 64;

/// Why bytes are not an acceptable IP packet.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PacketError {
    #[error("packet too short: {0} bytes")]
    TooShort(usize),
    #[error("unknown IP version {0}")]
    BadVersion(u8),
    #[error("bad IPv4 header length {0}")]
    BadHeaderLen(usize),
    #[error("IP length field says {field} bytes, packet has {actual}")]
    LengthMismatch { field: usize, actual: usize },
    #[error("bad IPv4 header checksum")]
    BadChecksum,
    #[error("source and destination address families differ")]
    FamilyMismatch,
    #[error("payload of {0} bytes does not fit an IP packet")]
    TooLarge(usize),
    #[error("protocol {0} is not an IP-in-IP tunnel")]
    NotTunnel(u8),
    #[error("not a UDP packet (protocol {0})")]
    NotUdp(u8),
    #[error("bad UDP length field {field} for {actual} payload bytes")]
    BadUdpLength { field: usize, actual: usize },
}

/// IP version of a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IpVersion {
    V4,
    V6,
}

/// A validated IP packet (header and payload) with a simulator-wide unique
/// id used by traces (0 until the world assigns one when it is sent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IpPacket {
    buf: BytesMut,
    uid: u64,
}

impl IpPacket {
    /// Validates `buf` as one IP packet: version 4 or 6, header and length
    /// fields consistent with the buffer, IPv4 header checksum correct.
    pub fn parse(buf: BytesMut) -> Result<IpPacket, PacketError> {
        validate(&buf)?;
        Ok(IpPacket { buf, uid: 0 })
    }

    /// Copies and validates a packet.
    pub fn from_slice(bytes: &[u8]) -> Result<IpPacket, PacketError> {
        IpPacket::parse(BytesMut::from(bytes))
    }

    /// Builds a packet carrying `payload` (one copy of the payload).
    pub fn build(
        src: IpAddr,
        dst: IpAddr,
        protocol: u8,
        ttl: u8,
        payload: &[u8],
    ) -> Result<IpPacket, PacketError> {
        let mut buf = header(src, dst, protocol, ttl, payload.len())?;
        buf.extend_from_slice(payload);
        Ok(IpPacket { buf, uid: 0 })
    }

    /// Builds a packet around `buf`, whose payload starts at `headroom`:
    /// the header is written into the last bytes of the headroom (20 for
    /// IPv4, 40 for IPv6) and the buffer becomes the packet's, with no
    /// copy and no new allocation (a transport that leaves room in front
    /// of what it produces, `msctp_proto::Transmit::headroom`).
    pub fn build_in_headroom(
        src: IpAddr,
        dst: IpAddr,
        protocol: u8,
        ttl: u8,
        mut buf: Vec<u8>,
        headroom: usize,
    ) -> Result<IpPacket, PacketError> {
        let payload_len = buf.len().saturating_sub(headroom);
        let (h, len) = header_bytes(src, dst, protocol, ttl, payload_len)?;
        let Some(start) = headroom.checked_sub(len).filter(|_| headroom <= buf.len()) else {
            return Err(PacketError::TooShort(headroom));
        };
        buf[start..headroom].copy_from_slice(&h[..len]);
        // `Bytes` takes the vector without copying (and, its length being
        // its capacity, without allocating) and hands it on to `BytesMut`,
        // being its only owner.
        let mut b = Bytes::from(buf);
        b.advance(start);
        let buf = b.try_into_mut().unwrap_or_else(|b| BytesMut::from(&b[..]));
        Ok(IpPacket { buf, uid: 0 })
    }

    /// Builds a packet whose `payload_len` payload bytes are written by
    /// `fill` straight into the packet buffer (no intermediate copy).
    pub fn build_with(
        src: IpAddr,
        dst: IpAddr,
        protocol: u8,
        ttl: u8,
        payload_len: usize,
        fill: impl FnOnce(&mut [u8]),
    ) -> Result<IpPacket, PacketError> {
        let mut buf = header(src, dst, protocol, ttl, payload_len)?;
        let hlen = buf.len();
        buf.resize(hlen + payload_len, 0);
        fill(&mut buf[hlen..]);
        Ok(IpPacket { buf, uid: 0 })
    }

    #[inline]
    pub fn version(&self) -> IpVersion {
        if self.buf[0] >> 4 == 4 {
            IpVersion::V4
        } else {
            IpVersion::V6
        }
    }

    /// Header length (IPv4 with options; the fixed 40 bytes for IPv6).
    #[inline]
    pub fn header_len(&self) -> usize {
        match self.version() {
            IpVersion::V4 => usize::from(self.buf[0] & 0x0f) * 4,
            IpVersion::V6 => IPV6_HEADER_LEN,
        }
    }

    /// Read per packet by hosts (source-based interface choice) and the
    /// flow observer: always inlined, like [`IpPacket::dst`].
    #[inline(always)]
    pub fn src(&self) -> IpAddr {
        match self.version() {
            IpVersion::V4 => IpAddr::V4(v4_at(&self.buf, 12)),
            IpVersion::V6 => IpAddr::V6(v6_at(&self.buf, 8)),
        }
    }

    /// Read at every hop (routing, local delivery, interceptors): always
    /// inlined, since LLVM otherwise keeps it a call.
    #[inline(always)]
    pub fn dst(&self) -> IpAddr {
        match self.version() {
            IpVersion::V4 => IpAddr::V4(v4_at(&self.buf, 16)),
            IpVersion::V6 => IpAddr::V6(v6_at(&self.buf, 24)),
        }
    }

    /// Protocol (IPv4) or Next Header (IPv6) field.
    #[inline]
    pub fn protocol(&self) -> u8 {
        match self.version() {
            IpVersion::V4 => self.buf[9],
            IpVersion::V6 => self.buf[6],
        }
    }

    /// TTL (IPv4) or Hop Limit (IPv6).
    pub fn ttl(&self) -> u8 {
        match self.version() {
            IpVersion::V4 => self.buf[8],
            IpVersion::V6 => self.buf[7],
        }
    }

    /// Whole packet length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Never true for a validated packet; present for API completeness.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    #[inline]
    pub fn payload(&self) -> &[u8] {
        &self.buf[self.header_len()..]
    }

    /// Mutable payload. Changing it invalidates transport checksums that the
    /// caller must then fix; the IP header stays valid.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let h = self.header_len();
        &mut self.buf[h..]
    }

    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    pub fn into_bytes_mut(self) -> BytesMut {
        self.buf
    }

    pub fn freeze(self) -> Bytes {
        self.buf.freeze()
    }

    #[inline]
    pub fn uid(&self) -> u64 {
        self.uid
    }

    pub fn set_uid(&mut self, uid: u64) {
        self.uid = uid;
    }

    /// Decrements TTL / hop limit for forwarding (RFC 791 section 3.2,
    /// RFC 8200 section 3). Returns false, leaving the packet unchanged,
    /// when the packet must be discarded because the value would reach 0.
    /// The IPv4 checksum is updated incrementally (RFC 1624, eqn. 3).
    pub fn decrement_ttl(&mut self) -> bool {
        match self.version() {
            IpVersion::V4 => {
                let ttl = self.buf[8];
                if ttl <= 1 {
                    return false;
                }
                let old_word = u16::from_be_bytes([ttl, self.buf[9]]);
                let new_word = u16::from_be_bytes([ttl - 1, self.buf[9]]);
                let hc = u16::from_be_bytes([self.buf[10], self.buf[11]]);
                // HC' = ~(~HC + ~m + m'), one's complement arithmetic.
                let mut sum = u32::from(!hc) + u32::from(!old_word) + u32::from(new_word);
                while sum > 0xffff {
                    sum = (sum & 0xffff) + (sum >> 16);
                }
                let new_hc = !(sum as u16);
                self.buf[8] = ttl - 1;
                self.buf[10..12].copy_from_slice(&new_hc.to_be_bytes());
                true
            }
            IpVersion::V6 => {
                let hl = self.buf[7];
                if hl <= 1 {
                    return false;
                }
                self.buf[7] = hl - 1;
                true
            }
        }
    }

    /// Strips the outer header, keeping the uid: the payload becomes the
    /// packet (zero copy). Used by tunnel decapsulation.
    pub(crate) fn strip_header(mut self) -> Result<IpPacket, PacketError> {
        let h = self.header_len();
        let inner = self.buf.split_off(h);
        validate(&inner)?;
        Ok(IpPacket {
            buf: inner,
            uid: self.uid,
        })
    }
}

/// A buffer of room for the packet holding its header (see
/// [`header_bytes`]).
fn header(
    src: IpAddr,
    dst: IpAddr,
    protocol: u8,
    ttl: u8,
    payload_len: usize,
) -> Result<BytesMut, PacketError> {
    let (h, len) = header_bytes(src, dst, protocol, ttl, payload_len)?;
    let mut buf = BytesMut::with_capacity(len + payload_len);
    buf.put_slice(&h[..len]);
    Ok(buf)
}

/// The header of a packet and its length: IPv4 (RFC 791: no options,
/// Don't Fragment set, identification 0, header checksum filled in) or
/// IPv6 (RFC 8200: traffic class and flow label 0), the same bytes as
/// etherparse's `Ipv4Header::new` / `Ipv6Header` give (checked by a test),
/// written directly: this runs for every packet an agent sends.
fn header_bytes(
    src: IpAddr,
    dst: IpAddr,
    protocol: u8,
    ttl: u8,
    payload_len: usize,
) -> Result<([u8; IPV6_HEADER_LEN], usize), PacketError> {
    let mut out = [0u8; IPV6_HEADER_LEN];
    match (src, dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => {
            let total = u16::try_from(IPV4_HEADER_LEN + payload_len)
                .map_err(|_| PacketError::TooLarge(payload_len))?;
            let [t0, t1] = total.to_be_bytes();
            let [s0, s1, s2, s3] = s.octets();
            let [d0, d1, d2, d3] = d.octets();
            let mut h = [
                0x45, 0, t0, t1, 0, 0, 0x40, 0, ttl, protocol, 0, 0, s0, s1, s2, s3, d0, d1, d2, d3,
            ];
            let sum = internet_checksum(&h);
            h[10..12].copy_from_slice(&sum.to_be_bytes());
            out[..IPV4_HEADER_LEN].copy_from_slice(&h);
            Ok((out, IPV4_HEADER_LEN))
        }
        (IpAddr::V6(s), IpAddr::V6(d)) => {
            let plen =
                u16::try_from(payload_len).map_err(|_| PacketError::TooLarge(payload_len))?;
            let h = Ipv6Header {
                traffic_class: 0,
                flow_label: Ipv6FlowLabel::ZERO,
                payload_length: plen,
                next_header: IpNumber(protocol),
                hop_limit: ttl,
                source: s.octets(),
                destination: d.octets(),
            };
            out.copy_from_slice(&h.to_bytes());
            Ok((out, IPV6_HEADER_LEN))
        }
        _ => Err(PacketError::FamilyMismatch),
    }
}

#[inline]
fn v4_at(b: &[u8], at: usize) -> Ipv4Addr {
    Ipv4Addr::new(b[at], b[at + 1], b[at + 2], b[at + 3])
}

#[inline]
fn v6_at(b: &[u8], at: usize) -> Ipv6Addr {
    let mut o = [0u8; 16];
    o.copy_from_slice(&b[at..at + 16]);
    Ipv6Addr::from(o)
}

/// One's complement sum (RFC 1071) of `data` as big-endian 16-bit words
/// (an odd last byte padded with zero), added to `acc`, unfolded. Eight
/// bytes are added per step: the one's complement sum may be computed on
/// any word size and folded at the end (RFC 1071 section 2 (B)).
pub fn ones_complement_add(mut acc: u64, data: &[u8]) -> u64 {
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_be_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        // Add the two 32-bit halves: no overflow before 2^32 steps.
        acc += (w >> 32) + (w & 0xffff_ffff);
    }
    let mut rest = chunks.remainder().chunks_exact(2);
    for c in &mut rest {
        acc += u64::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = rest.remainder() {
        acc += u64::from(*last) << 8;
    }
    acc
}

/// Folds an unfolded sum to 16 bits and complements it.
pub fn fold_checksum(mut acc: u64) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

/// Internet checksum (RFC 1071) of `data`, folded and complemented.
pub fn internet_checksum(data: &[u8]) -> u16 {
    fold_checksum(ones_complement_add(0, data))
}

fn validate(b: &[u8]) -> Result<(), PacketError> {
    let first = *b.first().ok_or(PacketError::TooShort(0))?;
    match first >> 4 {
        4 => {
            if b.len() < IPV4_HEADER_LEN {
                return Err(PacketError::TooShort(b.len()));
            }
            let ihl = usize::from(first & 0x0f) * 4;
            if ihl < IPV4_HEADER_LEN || ihl > b.len() {
                return Err(PacketError::BadHeaderLen(ihl));
            }
            let total = usize::from(u16::from_be_bytes([b[2], b[3]]));
            if total != b.len() {
                return Err(PacketError::LengthMismatch {
                    field: total,
                    actual: b.len(),
                });
            }
            // A correct header sums to 0xffff, i.e. its checksum is 0.
            if internet_checksum(&b[..ihl]) != 0 {
                return Err(PacketError::BadChecksum);
            }
            Ok(())
        }
        6 => {
            if b.len() < IPV6_HEADER_LEN {
                return Err(PacketError::TooShort(b.len()));
            }
            let plen = usize::from(u16::from_be_bytes([b[4], b[5]]));
            if plen + IPV6_HEADER_LEN != b.len() {
                return Err(PacketError::LengthMismatch {
                    field: plen + IPV6_HEADER_LEN,
                    actual: b.len(),
                });
            }
            Ok(())
        }
        v => Err(PacketError::BadVersion(v)),
    }
}

/// True for addresses that every node on the link receives: IPv4 limited
/// broadcast and multicast, IPv6 multicast.
pub fn is_group_address(a: IpAddr) -> bool {
    match a {
        IpAddr::V4(v4) => v4.is_broadcast() || v4.is_multicast(),
        IpAddr::V6(v6) => v6.is_multicast(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::Ipv4HeaderSlice;

    fn v4(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    /// The header written directly is byte for byte etherparse's, for
    /// every TTL and protocol and many lengths and addresses; the size
    /// bound is the same.
    #[test]
    fn build_v4_writes_etherparses_header() {
        let addrs = ["0.0.0.0", "10.0.0.1", "192.168.255.254", "255.255.255.255"];
        for (k, len) in [0usize, 1, 19, 20, 1452, 1480, 65_515]
            .into_iter()
            .enumerate()
        {
            for ttl in [0u8, 1, 63, 64, 255] {
                for protocol in [0u8, 4, 6, 17, 132, 255] {
                    let (s, d) = (v4(addrs[k % 4]), v4(addrs[(k + 1) % 4]));
                    let (IpAddr::V4(s4), IpAddr::V4(d4)) = (s, d) else {
                        unreachable!()
                    };
                    let mut h = etherparse::Ipv4Header::new(
                        len as u16,
                        ttl,
                        IpNumber(protocol),
                        s4.octets(),
                        d4.octets(),
                    )
                    .unwrap();
                    h.header_checksum = h.calc_header_checksum();
                    let p = IpPacket::build_with(s, d, protocol, ttl, len, |_| {}).unwrap();
                    assert_eq!(
                        &p.as_bytes()[..20],
                        &h.to_bytes()[..],
                        "{len} {ttl} {protocol}"
                    );
                }
            }
        }
        assert_eq!(
            IpPacket::build(v4("10.0.0.1"), v4("10.0.0.2"), 132, 64, &[0; 65_516]),
            Err(PacketError::TooLarge(65_516))
        );
    }

    /// A packet built in a buffer's headroom is byte for byte the packet
    /// built by copying, for both families; too little headroom is an
    /// error.
    #[test]
    fn build_in_headroom_equals_build() {
        let payload: Vec<u8> = (0..1452u32).map(|i| (i * 7) as u8).collect();
        let pairs = [
            (v4("10.0.0.1"), v4("10.0.1.2")),
            (v4("2001:db8::1"), v4("2001:db8::2")),
        ];
        for (s, d) in pairs {
            let copied = IpPacket::build(s, d, proto::SCTP, 64, &payload).unwrap();
            let mut buf = vec![0xee; IPV6_HEADER_LEN];
            buf.extend_from_slice(&payload);
            let direct =
                IpPacket::build_in_headroom(s, d, proto::SCTP, 64, buf, IPV6_HEADER_LEN).unwrap();
            assert_eq!(direct.as_bytes(), copied.as_bytes());
            assert_eq!(direct.payload(), &payload[..]);
        }
        let short = vec![0; 10 + payload.len()];
        assert!(IpPacket::build_in_headroom(pairs[0].0, pairs[0].1, 132, 64, short, 10).is_err());
    }

    #[test]
    fn build_v4_has_correct_checksum_and_fields() {
        let p = IpPacket::build(v4("10.0.0.1"), v4("10.0.1.2"), proto::SCTP, 64, b"hello").unwrap();
        assert_eq!(p.len(), 25);
        assert_eq!(p.version(), IpVersion::V4);
        assert_eq!(p.src(), v4("10.0.0.1"));
        assert_eq!(p.dst(), v4("10.0.1.2"));
        assert_eq!(p.protocol(), proto::SCTP);
        assert_eq!(p.payload(), b"hello");
        // Cross-check with etherparse's own full checksum computation.
        let h = Ipv4HeaderSlice::from_slice(p.as_bytes())
            .unwrap()
            .to_header();
        assert_eq!(h.header_checksum, h.calc_header_checksum());
        assert_eq!(internet_checksum(&p.as_bytes()[..20]), 0);
    }

    #[test]
    fn wide_checksum_equals_word_by_word() {
        fn reference(d: &[u8]) -> u16 {
            let mut sum: u32 = 0;
            for c in d.chunks(2) {
                sum += u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]));
                sum = (sum & 0xffff) + (sum >> 16);
            }
            !(sum as u16)
        }
        for len in 0..100usize {
            let d: Vec<u8> = (0..len).map(|i| (i * 151 + 7) as u8 ^ 0xa5).collect();
            assert_eq!(internet_checksum(&d), reference(&d), "len {len}");
        }
        assert_eq!(internet_checksum(&[0xff; 4096]), reference(&[0xff; 4096]));
    }

    #[test]
    fn known_checksum_vector() {
        // RFC 1071-style worked example (header from a captured packet).
        let hdr: [u8; 20] = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(internet_checksum(&hdr), 0xb861);
    }

    #[test]
    fn ttl_decrement_keeps_checksum_valid() {
        let mut p = IpPacket::build(
            v4("192.0.2.1"),
            v4("198.51.100.7"),
            proto::UDP,
            3,
            &[0; 100],
        )
        .unwrap();
        assert!(p.decrement_ttl());
        assert!(p.decrement_ttl());
        assert_eq!(p.ttl(), 1);
        assert_eq!(internet_checksum(&p.as_bytes()[..20]), 0);
        let h = Ipv4HeaderSlice::from_slice(p.as_bytes())
            .unwrap()
            .to_header();
        assert_eq!(h.header_checksum, h.calc_header_checksum());
        assert!(!p.decrement_ttl());
        assert_eq!(p.ttl(), 1);
        // every TTL value, including the carry cases of the incremental update
        for ttl in 2..=255u8 {
            let mut p =
                IpPacket::build(v4("255.255.255.254"), v4("10.0.0.1"), 255, ttl, &[]).unwrap();
            assert!(p.decrement_ttl());
            assert_eq!(internet_checksum(&p.as_bytes()[..20]), 0, "ttl {ttl}");
            assert!(IpPacket::from_slice(p.as_bytes()).is_ok());
        }
    }

    #[test]
    fn v6_build_and_hop_limit() {
        let s: IpAddr = "2001:db8::1".parse().unwrap();
        let d: IpAddr = "2001:db8:1::2".parse().unwrap();
        let mut p = IpPacket::build(s, d, proto::TCP, 2, &[1, 2, 3]).unwrap();
        assert_eq!(p.len(), 43);
        assert_eq!((p.src(), p.dst(), p.protocol()), (s, d, proto::TCP));
        assert!(p.decrement_ttl());
        assert!(!p.decrement_ttl());
        assert_eq!(p.payload(), &[1, 2, 3]);
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        assert_eq!(IpPacket::from_slice(&[]), Err(PacketError::TooShort(0)));
        assert_eq!(
            IpPacket::from_slice(&[0x45; 10]),
            Err(PacketError::TooShort(10))
        );
        assert_eq!(
            IpPacket::from_slice(&[0x75; 30]),
            Err(PacketError::BadVersion(7))
        );
        let good = IpPacket::build(v4("1.2.3.4"), v4("5.6.7.8"), 17, 9, &[0; 8]).unwrap();
        let mut b = good.as_bytes().to_vec();
        b[15] ^= 1;
        assert_eq!(IpPacket::from_slice(&b), Err(PacketError::BadChecksum));
        let mut b = good.as_bytes().to_vec();
        b.push(0);
        assert!(matches!(
            IpPacket::from_slice(&b),
            Err(PacketError::LengthMismatch { .. })
        ));
        let mut b = good.as_bytes().to_vec();
        b[0] = 0x44;
        assert_eq!(IpPacket::from_slice(&b), Err(PacketError::BadHeaderLen(16)));
        let s6: IpAddr = "::1".parse().unwrap();
        assert_eq!(
            IpPacket::build(v4("1.2.3.4"), s6, 1, 1, &[]),
            Err(PacketError::FamilyMismatch)
        );
        assert!(matches!(
            IpPacket::build(v4("1.2.3.4"), v4("1.2.3.5"), 1, 1, &vec![0; 70_000]),
            Err(PacketError::TooLarge(_))
        ));
        // random garbage of every length never panics
        for len in 0..64 {
            let junk: Vec<u8> = (0..len).map(|i| (i * 37 + 0x40) as u8).collect();
            let _ = IpPacket::from_slice(&junk);
        }
    }

    #[test]
    fn group_addresses() {
        assert!(is_group_address(v4("255.255.255.255")));
        assert!(is_group_address(v4("224.0.0.1")));
        assert!(is_group_address("ff02::1".parse().unwrap()));
        assert!(!is_group_address(v4("10.0.0.255")));
    }
}
