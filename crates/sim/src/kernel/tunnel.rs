//! IP-in-IP tunnelling: IPv4 in IPv4 (protocol 4, RFC 2003), IPv6 in IPv6
//! or IPv4 (Next Header / protocol 41, RFC 2473, RFC 4213), IPv4 in IPv6
//! (Next Header 4). Used by the Mobile IP home agent and the FMIPv6 access
//! routers. Encapsulation copies the inner packet once into a new buffer
//! with room for the outer header; decapsulation is zero-copy.

use std::net::IpAddr;

use crate::kernel::Ctx;
use crate::kernel::ip::{DEFAULT_TTL, IpPacket, IpVersion, PacketError, proto};

/// Wraps `inner` in an outer header from `outer_src` to `outer_dst`. The
/// outer packet keeps the inner packet's uid, so a trace can follow it.
pub fn encapsulate(
    outer_src: IpAddr,
    outer_dst: IpAddr,
    ttl: u8,
    inner: &IpPacket,
) -> Result<IpPacket, PacketError> {
    let protocol = match inner.version() {
        IpVersion::V4 => proto::IPIP,
        IpVersion::V6 => proto::IPV6,
    };
    let mut p = IpPacket::build(outer_src, outer_dst, protocol, ttl, inner.as_bytes())?;
    p.set_uid(inner.uid());
    Ok(p)
}

/// Forwards `inner` into the tunnel from `from` to `to` as an encapsulating
/// router does (RFC 2003 section 3.1: the inner TTL or hop limit is
/// decremented first). Drops it with `expired` when that runs out, or when
/// it is too large to tunnel. Returns the outer packet's length if sent.
pub fn forward(
    ctx: &mut Ctx<'_>,
    mut inner: IpPacket,
    from: IpAddr,
    to: IpAddr,
    expired: &'static str,
) -> Option<usize> {
    if !inner.decrement_ttl() {
        ctx.drop_packet(inner, expired);
        return None;
    }
    match encapsulate(from, to, DEFAULT_TTL, &inner) {
        Ok(outer) => {
            let len = outer.len();
            let _ = ctx.send(outer);
            Some(len)
        }
        Err(_) => {
            ctx.drop_packet(inner, "packet too large to tunnel");
            None
        }
    }
}

/// Removes the outer header of a tunnelled packet and validates the inner
/// one.
pub fn decapsulate(outer: IpPacket) -> Result<IpPacket, PacketError> {
    match outer.protocol() {
        proto::IPIP | proto::IPV6 => outer.strip_header(),
        p => Err(PacketError::NotTunnel(p)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v4_in_v4_round_trip() {
        let a = |s: &str| -> IpAddr { s.parse().unwrap() };
        let mut inner =
            IpPacket::build(a("10.0.0.1"), a("10.9.0.1"), proto::SCTP, 60, b"data").unwrap();
        inner.set_uid(42);
        let outer = encapsulate(a("192.0.2.1"), a("198.51.100.1"), 64, &inner).unwrap();
        assert_eq!(outer.protocol(), proto::IPIP);
        assert_eq!(outer.len(), inner.len() + 20);
        assert_eq!(outer.uid(), 42);
        let back = decapsulate(outer).unwrap();
        assert_eq!(back, inner);
    }

    #[test]
    fn v6_in_v6_and_v4_in_v6() {
        let a = |s: &str| -> IpAddr { s.parse().unwrap() };
        let inner6 =
            IpPacket::build(a("2001:db8::1"), a("2001:db8::2"), proto::UDP, 60, &[0; 8]).unwrap();
        let o = encapsulate(a("2001:db8:f::1"), a("2001:db8:e::1"), 64, &inner6).unwrap();
        assert_eq!(o.protocol(), proto::IPV6);
        assert_eq!(decapsulate(o).unwrap(), inner6);
        let inner4 =
            IpPacket::build(a("10.0.0.1"), a("10.0.0.2"), proto::UDP, 60, &[0; 8]).unwrap();
        let o = encapsulate(a("2001:db8:f::1"), a("2001:db8:e::1"), 64, &inner4).unwrap();
        assert_eq!(o.protocol(), proto::IPIP);
        assert_eq!(decapsulate(o).unwrap(), inner4);
    }

    #[test]
    fn decapsulating_garbage_is_an_error() {
        let a = |s: &str| -> IpAddr { s.parse().unwrap() };
        let p = IpPacket::build(a("10.0.0.1"), a("10.0.0.2"), proto::UDP, 60, &[0; 8]).unwrap();
        assert_eq!(decapsulate(p), Err(PacketError::NotTunnel(proto::UDP)));
        let p = IpPacket::build(a("10.0.0.1"), a("10.0.0.2"), proto::IPIP, 60, &[0x45; 8]).unwrap();
        assert!(decapsulate(p).is_err());
    }
}
