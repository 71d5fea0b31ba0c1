//! UDP datagrams (RFC 768) inside [`IpPacket`]s, with the checksum over the
//! IPv4 or IPv6 pseudo-header (RFC 768, RFC 8200 section 8.1).

use std::net::IpAddr;

use crate::kernel::ip::{IpPacket, PacketError, fold_checksum, ones_complement_add, proto};

/// Length of the UDP header.
pub const UDP_HEADER_LEN: usize = 8;

/// Builds an IP packet carrying one UDP datagram with a correct checksum.
pub fn build(
    src: IpAddr,
    dst: IpAddr,
    src_port: u16,
    dst_port: u16,
    ttl: u8,
    payload: &[u8],
) -> Result<IpPacket, PacketError> {
    build_with(src, dst, src_port, dst_port, ttl, payload.len(), |b| {
        b.copy_from_slice(payload)
    })
}

/// Like [`build`], with the `payload_len` payload bytes written by `fill`
/// straight into the packet; the checksum (over the IPv4 or IPv6
/// pseudo-header, RFC 768 / RFC 8200 section 8.1) is computed in place.
pub fn build_with(
    src: IpAddr,
    dst: IpAddr,
    src_port: u16,
    dst_port: u16,
    ttl: u8,
    payload_len: usize,
    fill: impl FnOnce(&mut [u8]),
) -> Result<IpPacket, PacketError> {
    let total = UDP_HEADER_LEN + payload_len;
    let udp_len = u16::try_from(total).map_err(|_| PacketError::TooLarge(total))?;
    let pseudo = match (src, dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => {
            let acc = ones_complement_add(0, &s.octets());
            ones_complement_add(acc, &d.octets())
        }
        (IpAddr::V6(s), IpAddr::V6(d)) => {
            let acc = ones_complement_add(0, &s.octets());
            ones_complement_add(acc, &d.octets())
        }
        _ => return Err(PacketError::FamilyMismatch),
    };
    let pseudo = pseudo + u64::from(proto::UDP) + u64::from(udp_len);
    let mut pkt = IpPacket::build_with(src, dst, proto::UDP, ttl, total, |b| {
        b[0..2].copy_from_slice(&src_port.to_be_bytes());
        b[2..4].copy_from_slice(&dst_port.to_be_bytes());
        b[4..6].copy_from_slice(&udp_len.to_be_bytes());
        fill(&mut b[UDP_HEADER_LEN..]);
    })?;
    let d = pkt.payload_mut();
    let mut sum = fold_checksum(ones_complement_add(pseudo, d));
    // RFC 768: a computed zero is sent as all ones (zero means "none").
    if sum == 0 {
        sum = 0xffff;
    }
    d[6..8].copy_from_slice(&sum.to_be_bytes());
    Ok(pkt)
}

/// A parsed view of the UDP datagram inside a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UdpView<'a> {
    pub src_port: u16,
    pub dst_port: u16,
    pub payload: &'a [u8],
}

impl<'a> UdpView<'a> {
    /// Parses the UDP header of `pkt` (protocol must be 17). The checksum is
    /// not verified: the simulator does not corrupt bits.
    pub fn parse(pkt: &'a IpPacket) -> Result<UdpView<'a>, PacketError> {
        if pkt.protocol() != proto::UDP {
            return Err(PacketError::NotUdp(pkt.protocol()));
        }
        let p = pkt.payload();
        if p.len() < UDP_HEADER_LEN {
            return Err(PacketError::TooShort(p.len()));
        }
        let len = usize::from(u16::from_be_bytes([p[4], p[5]]));
        if len < UDP_HEADER_LEN || len > p.len() {
            return Err(PacketError::BadUdpLength {
                field: len,
                actual: p.len(),
            });
        }
        Ok(UdpView {
            src_port: u16::from_be_bytes([p[0], p[1]]),
            dst_port: u16::from_be_bytes([p[2], p[3]]),
            payload: &p[UDP_HEADER_LEN..len],
        })
    }

    /// Destination port of a UDP packet, without building the whole view.
    pub fn dst_port_of(pkt: &IpPacket) -> Option<u16> {
        let p = pkt.payload();
        (pkt.protocol() == proto::UDP && p.len() >= UDP_HEADER_LEN)
            .then(|| u16::from_be_bytes([p[2], p[3]]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::{SlicedPacket, TransportSlice};

    #[test]
    fn round_trip_v4_and_checksum_matches_etherparse() {
        let s: IpAddr = "10.1.0.1".parse().unwrap();
        let d: IpAddr = "10.2.0.1".parse().unwrap();
        let p = build(s, d, 5000, 6000, 64, b"payload!").unwrap();
        let v = UdpView::parse(&p).unwrap();
        assert_eq!(
            (v.src_port, v.dst_port, v.payload),
            (5000, 6000, &b"payload!"[..])
        );
        assert_eq!(UdpView::dst_port_of(&p), Some(6000));
        let sliced = SlicedPacket::from_ip(p.as_bytes()).unwrap();
        let Some(TransportSlice::Udp(u)) = sliced.transport else {
            panic!("not udp")
        };
        let ip = etherparse::Ipv4HeaderSlice::from_slice(p.as_bytes())
            .unwrap()
            .to_header();
        assert_eq!(
            u.checksum(),
            u.to_header().calc_checksum_ipv4(&ip, u.payload()).unwrap()
        );
        assert_ne!(u.checksum(), 0);
    }

    #[test]
    fn checksums_match_etherparse_for_many_sizes() {
        let s: IpAddr = "192.0.2.200".parse().unwrap();
        let d: IpAddr = "198.51.100.3".parse().unwrap();
        for len in 0..70usize {
            let payload: Vec<u8> = (0..len).map(|i| (i * 31 + len) as u8).collect();
            let p = build(s, d, 40_000 + len as u16, 53, 64, &payload).unwrap();
            let u = etherparse::UdpSlice::from_slice(&p.as_bytes()[20..]).unwrap();
            let ip = etherparse::Ipv4HeaderSlice::from_slice(p.as_bytes())
                .unwrap()
                .to_header();
            assert_eq!(
                u.checksum(),
                u.to_header().calc_checksum_ipv4(&ip, u.payload()).unwrap(),
                "len {len}"
            );
        }
    }

    #[test]
    fn v6_checksum() {
        let s: IpAddr = "2001:db8::1".parse().unwrap();
        let d: IpAddr = "2001:db8::2".parse().unwrap();
        let p = build(s, d, 1, 2, 64, &[7; 33]).unwrap();
        let u = etherparse::UdpSlice::from_slice(&p.as_bytes()[40..]).unwrap();
        let ip = etherparse::Ipv6HeaderSlice::from_slice(p.as_bytes())
            .unwrap()
            .to_header();
        assert_eq!(
            u.checksum(),
            u.to_header().calc_checksum_ipv6(&ip, u.payload()).unwrap()
        );
    }

    #[test]
    fn malformed_udp_is_an_error() {
        let s: IpAddr = "10.1.0.1".parse().unwrap();
        let p = IpPacket::build(s, s, proto::UDP, 1, &[0, 1, 0, 2, 0, 99, 0, 0]).unwrap();
        assert!(matches!(
            UdpView::parse(&p),
            Err(PacketError::BadUdpLength { .. })
        ));
        let p = IpPacket::build(s, s, proto::UDP, 1, &[0, 1]).unwrap();
        assert_eq!(UdpView::parse(&p), Err(PacketError::TooShort(2)));
        let p = IpPacket::build(s, s, proto::TCP, 1, &[0; 20]).unwrap();
        assert_eq!(UdpView::parse(&p), Err(PacketError::NotUdp(6)));
    }
}
