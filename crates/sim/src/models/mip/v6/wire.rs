//! Mobile IPv6 and FMIPv6 messages on the wire, so that captures decode in
//! Wireshark (`mip6`, `icmpv6` dissectors):
//!
//! - the Mobility Header (RFC 6275 section 6.1, protocol 135): Binding
//!   Update (type 5) and Acknowledgement (6), and the FMIPv6 messages of
//!   RFC 5568 in the same header: Fast Binding Update (8) and
//!   Acknowledgement (9), Handover Initiate (14) and Acknowledge (15);
//!   mobility options Alternate Care-of Address (type 3, RFC 6275 6.2.5)
//!   and IPv6 Address/Prefix (type 17, RFC 5568 6.4.1);
//! - the Home Address destination option (RFC 6275 section 6.3) and the
//!   type 2 routing header (section 6.4), inserted and removed in place of
//!   a real stack's extension-header processing;
//! - ICMPv6 (RFC 4443 checksum): Router Solicitation and Advertisement
//!   with a Prefix Information option (RFC 4861, the H flag of RFC 6275
//!   7.1), Neighbor Advertisement (the FMIPv6 UNA, RFC 5568 6.3), and the
//!   FMIPv6 Router Solicitation for Proxy Advertisement and Proxy Router
//!   Advertisement (type 154, subtypes 2 and 3, RFC 5568 6.1) with the
//!   Link-layer Address (19) and IP Address/Prefix (17) options.

use std::net::{IpAddr, Ipv6Addr};

use ipnet::Ipv6Net;

use crate::kernel::ids::CellId;
use crate::kernel::ip::{IpPacket, IpVersion, PacketError, fold_checksum, ones_complement_add};

/// IPv6 Next Header values.
pub const MOBILITY_HEADER: u8 = 135;
pub const ICMPV6: u8 = 58;
pub const DEST_OPTIONS: u8 = 60;
pub const ROUTING: u8 = 43;
pub const NO_NEXT_HEADER: u8 = 59;

/// Mobility Header types.
pub mod mh_type {
    pub const BINDING_UPDATE: u8 = 5;
    pub const BINDING_ACK: u8 = 6;
    pub const FAST_BINDING_UPDATE: u8 = 8;
    pub const FAST_BINDING_ACK: u8 = 9;
    pub const HANDOVER_INITIATE: u8 = 14;
    pub const HANDOVER_ACK: u8 = 15;
}

/// Codes of the IP Address/Prefix option (RFC 5568 section 6.4.1).
pub mod addr_code {
    pub const OLD_COA: u8 = 1;
    pub const NEW_COA: u8 = 2;
    pub const NAR_ADDRESS: u8 = 3;
    pub const NAR_PREFIX: u8 = 4;
}

/// ICMPv6 types.
pub mod icmp_type {
    pub const ROUTER_SOLICITATION: u8 = 133;
    pub const ROUTER_ADVERTISEMENT: u8 = 134;
    pub const NEIGHBOR_ADVERTISEMENT: u8 = 136;
    /// FMIPv6 messages (RFC 5568 section 6.1).
    pub const FMIP: u8 = 154;
    pub const SUBTYPE_RTSOLPR: u8 = 2;
    pub const SUBTYPE_PRRTADV: u8 = 3;
}

/// Binding Update lifetimes count units of 4 seconds (RFC 6275 6.1.7).
pub const LIFETIME_UNIT_S: u64 = 4;

/// A malformed message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Mip6WireError {
    #[error("message too short: {0} bytes")]
    TooShort(usize),
    #[error("bad checksum")]
    BadChecksum,
    #[error("unexpected type {0}")]
    BadType(u8),
    #[error("option of type {0} overruns the message")]
    BadOption(u8),
    #[error("not an IPv6 packet")]
    NotIpv6,
    #[error("no such extension header")]
    NoHeader,
    #[error(transparent)]
    Packet(#[from] PacketError),
}

fn v6(b: &[u8]) -> Ipv6Addr {
    let mut o = [0u8; 16];
    o.copy_from_slice(&b[..16]);
    Ipv6Addr::from(o)
}

fn v6_of(a: IpAddr) -> Option<Ipv6Addr> {
    match a {
        IpAddr::V6(x) => Some(x),
        IpAddr::V4(_) => None,
    }
}

/// Upper-layer checksum over the IPv6 pseudo-header (RFC 8200 section 8.1).
pub fn checksum6(src: Ipv6Addr, dst: Ipv6Addr, next_header: u8, msg: &[u8]) -> u16 {
    let mut acc = ones_complement_add(0, &src.octets());
    acc = ones_complement_add(acc, &dst.octets());
    acc += msg.len() as u64 + u64::from(next_header);
    fold_checksum(ones_complement_add(acc, msg))
}

/// Appends option bytes `opt` after padding so that it starts at an offset
/// `n * align + offset` (RFC 6275 section 6.2: Pad1 and PadN).
fn push_aligned(b: &mut Vec<u8>, align: usize, offset: usize, opt: &[u8]) {
    let pad = (align + offset - b.len() % align) % align;
    push_pad(b, pad);
    b.extend_from_slice(opt);
}

fn push_pad(b: &mut Vec<u8>, pad: usize) {
    match pad {
        0 => {}
        1 => b.push(0),
        n => {
            b.push(1);
            b.push((n - 2) as u8);
            b.extend(std::iter::repeat_n(0, n - 2));
        }
    }
}

/// Binding Update / Fast Binding Update (same format, RFC 5568 6.2.3).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BindingUpdate {
    pub sequence: u16,
    /// A: acknowledgement requested.
    pub ack: bool,
    /// H: home registration.
    pub home: bool,
    /// Lifetime in units of 4 s (0: delete the binding).
    pub lifetime_units: u16,
    /// Alternate Care-of Address option (the NCoA of a fast binding
    /// update).
    pub alternate_coa: Option<Ipv6Addr>,
    /// IPv6 Address/Prefix options (code, address).
    pub addresses: Vec<(u8, Ipv6Addr)>,
}

/// Binding Acknowledgement / Fast Binding Acknowledgement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BindingAck {
    /// 0: accepted (below 128: accepted).
    pub status: u8,
    pub sequence: u16,
    pub lifetime_units: u16,
}

/// Handover Initiate (RFC 5568 section 6.2.1).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HandoverInitiate {
    pub sequence: u16,
    /// Code 0: FBU with PCoA as source (predictive); 1: reactive.
    pub code: u8,
    pub previous_coa: Option<Ipv6Addr>,
    pub new_coa: Option<Ipv6Addr>,
}

/// Handover Acknowledge (RFC 5568 section 6.2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HandoverAck {
    pub sequence: u16,
    /// 0: handover accepted, NCoA valid.
    pub code: u8,
}

/// A Mobility Header message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MhMessage {
    BindingUpdate(BindingUpdate),
    BindingAck(BindingAck),
    FastBindingUpdate(BindingUpdate),
    FastBindingAck(BindingAck),
    HandoverInitiate(HandoverInitiate),
    HandoverAck(HandoverAck),
}

fn address_option(code: u8, a: Ipv6Addr) -> Vec<u8> {
    let mut o = vec![17, 18, code, 128];
    o.extend_from_slice(&a.octets());
    o
}

impl MhMessage {
    fn kind(&self) -> u8 {
        match self {
            MhMessage::BindingUpdate(_) => mh_type::BINDING_UPDATE,
            MhMessage::BindingAck(_) => mh_type::BINDING_ACK,
            MhMessage::FastBindingUpdate(_) => mh_type::FAST_BINDING_UPDATE,
            MhMessage::FastBindingAck(_) => mh_type::FAST_BINDING_ACK,
            MhMessage::HandoverInitiate(_) => mh_type::HANDOVER_INITIATE,
            MhMessage::HandoverAck(_) => mh_type::HANDOVER_ACK,
        }
    }

    /// The Mobility Header bytes, checksummed for `src` to `dst` (the
    /// home address when the packet will carry a Home Address option).
    pub fn emit(&self, src: Ipv6Addr, dst: Ipv6Addr) -> Vec<u8> {
        let mut b = vec![NO_NEXT_HEADER, 0, self.kind(), 0, 0, 0];
        match self {
            MhMessage::BindingUpdate(u) | MhMessage::FastBindingUpdate(u) => {
                b.extend_from_slice(&u.sequence.to_be_bytes());
                b.push((u8::from(u.ack) << 7) | (u8::from(u.home) << 6));
                b.push(0);
                b.extend_from_slice(&u.lifetime_units.to_be_bytes());
                if let Some(c) = u.alternate_coa {
                    let mut o = vec![3, 16];
                    o.extend_from_slice(&c.octets());
                    push_aligned(&mut b, 8, 6, &o);
                }
                for &(code, a) in &u.addresses {
                    push_aligned(&mut b, 8, 4, &address_option(code, a));
                }
            }
            MhMessage::BindingAck(a) | MhMessage::FastBindingAck(a) => {
                b.push(a.status);
                b.push(0);
                b.extend_from_slice(&a.sequence.to_be_bytes());
                b.extend_from_slice(&a.lifetime_units.to_be_bytes());
            }
            MhMessage::HandoverInitiate(h) => {
                b.extend_from_slice(&h.sequence.to_be_bytes());
                b.push(0);
                b.push(h.code);
                if let Some(p) = h.previous_coa {
                    push_aligned(&mut b, 8, 4, &address_option(addr_code::OLD_COA, p));
                }
                if let Some(n) = h.new_coa {
                    push_aligned(&mut b, 8, 4, &address_option(addr_code::NEW_COA, n));
                }
            }
            MhMessage::HandoverAck(h) => {
                b.extend_from_slice(&h.sequence.to_be_bytes());
                b.push(0);
                b.push(h.code);
            }
        }
        // The header is a multiple of 8 octets; Header Len excludes the
        // first 8 (RFC 6275 6.1.1).
        let pad = (8 - b.len() % 8) % 8;
        push_pad(&mut b, pad);
        b[1] = (b.len() / 8 - 1) as u8;
        let c = checksum6(src, dst, MOBILITY_HEADER, &b);
        b[4..6].copy_from_slice(&c.to_be_bytes());
        b
    }

    /// Parses and checks a Mobility Header received for `src` to `dst`.
    pub fn parse(src: Ipv6Addr, dst: Ipv6Addr, b: &[u8]) -> Result<MhMessage, Mip6WireError> {
        if b.len() < 8 {
            return Err(Mip6WireError::TooShort(b.len()));
        }
        let len = (usize::from(b[1]) + 1) * 8;
        if b.len() < len {
            return Err(Mip6WireError::TooShort(b.len()));
        }
        let b = &b[..len];
        if checksum6(src, dst, MOBILITY_HEADER, b) != 0 {
            return Err(Mip6WireError::BadChecksum);
        }
        let body = &b[6..];
        let need = |n: usize| {
            if body.len() < n {
                Err(Mip6WireError::TooShort(b.len()))
            } else {
                Ok(())
            }
        };
        match b[2] {
            t @ (mh_type::BINDING_UPDATE | mh_type::FAST_BINDING_UPDATE) => {
                need(6)?;
                let mut u = BindingUpdate {
                    sequence: u16::from_be_bytes([body[0], body[1]]),
                    ack: body[2] & 0x80 != 0,
                    home: body[2] & 0x40 != 0,
                    lifetime_units: u16::from_be_bytes([body[4], body[5]]),
                    ..Default::default()
                };
                for (kind, data) in options(&body[6..])? {
                    match kind {
                        3 if data.len() == 16 => u.alternate_coa = Some(v6(data)),
                        17 if data.len() == 18 => u.addresses.push((data[0], v6(&data[2..]))),
                        _ => {}
                    }
                }
                Ok(if t == mh_type::BINDING_UPDATE {
                    MhMessage::BindingUpdate(u)
                } else {
                    MhMessage::FastBindingUpdate(u)
                })
            }
            t @ (mh_type::BINDING_ACK | mh_type::FAST_BINDING_ACK) => {
                need(6)?;
                let a = BindingAck {
                    status: body[0],
                    sequence: u16::from_be_bytes([body[2], body[3]]),
                    lifetime_units: u16::from_be_bytes([body[4], body[5]]),
                };
                Ok(if t == mh_type::BINDING_ACK {
                    MhMessage::BindingAck(a)
                } else {
                    MhMessage::FastBindingAck(a)
                })
            }
            mh_type::HANDOVER_INITIATE => {
                need(4)?;
                let mut h = HandoverInitiate {
                    sequence: u16::from_be_bytes([body[0], body[1]]),
                    code: body[3],
                    ..Default::default()
                };
                for (kind, data) in options(&body[4..])? {
                    if kind == 17 && data.len() == 18 {
                        match data[0] {
                            addr_code::OLD_COA => h.previous_coa = Some(v6(&data[2..])),
                            addr_code::NEW_COA => h.new_coa = Some(v6(&data[2..])),
                            _ => {}
                        }
                    }
                }
                Ok(MhMessage::HandoverInitiate(h))
            }
            mh_type::HANDOVER_ACK => {
                need(4)?;
                Ok(MhMessage::HandoverAck(HandoverAck {
                    sequence: u16::from_be_bytes([body[0], body[1]]),
                    code: body[3],
                }))
            }
            t => Err(Mip6WireError::BadType(t)),
        }
    }
}

/// Type-length-value options (Pad1 and PadN skipped).
fn options(mut b: &[u8]) -> Result<Vec<(u8, &[u8])>, Mip6WireError> {
    let mut out = Vec::new();
    while let Some(&kind) = b.first() {
        if kind == 0 {
            b = &b[1..];
            continue;
        }
        let len = usize::from(*b.get(1).ok_or(Mip6WireError::BadOption(kind))?);
        let data = b.get(2..2 + len).ok_or(Mip6WireError::BadOption(kind))?;
        if kind != 1 {
            out.push((kind, data));
        }
        b = &b[2 + len..];
    }
    Ok(out)
}

/// Builds a packet carrying a Mobility Header message.
pub fn mh_packet(
    src: Ipv6Addr,
    dst: Ipv6Addr,
    msg: &MhMessage,
    ttl: u8,
) -> Result<IpPacket, PacketError> {
    IpPacket::build(
        IpAddr::V6(src),
        IpAddr::V6(dst),
        MOBILITY_HEADER,
        ttl,
        &msg.emit(src, dst),
    )
}

fn addresses(pkt: &IpPacket) -> Result<(Ipv6Addr, Ipv6Addr), Mip6WireError> {
    match (pkt.version(), v6_of(pkt.src()), v6_of(pkt.dst())) {
        (IpVersion::V6, Some(s), Some(d)) => Ok((s, d)),
        _ => Err(Mip6WireError::NotIpv6),
    }
}

fn rebuild(
    src: Ipv6Addr,
    dst: Ipv6Addr,
    next_header: u8,
    ttl: u8,
    payload: &[u8],
    uid: u64,
) -> Result<IpPacket, Mip6WireError> {
    let mut p = IpPacket::build(IpAddr::V6(src), IpAddr::V6(dst), next_header, ttl, payload)?;
    p.set_uid(uid);
    Ok(p)
}

/// Rewrites a packet sent from the home address into one sent from the
/// care-of address with a Home Address destination option (24 bytes:
/// PadN to the option's 8n+6 alignment, then type 201 with the home
/// address), RFC 6275 section 6.3.
pub fn insert_home_address(pkt: &IpPacket, care_of: Ipv6Addr) -> Result<IpPacket, Mip6WireError> {
    let (home, dst) = addresses(pkt)?;
    let mut b = Vec::with_capacity(24 + pkt.payload().len());
    b.extend_from_slice(&[pkt.protocol(), 2, 1, 2, 0, 0, 201, 16]);
    b.extend_from_slice(&home.octets());
    b.extend_from_slice(pkt.payload());
    rebuild(care_of, dst, DEST_OPTIONS, pkt.ttl(), &b, pkt.uid())
}

/// If `pkt` starts with a destination options header holding a Home
/// Address option, returns the packet as sent from the home address (the
/// header removed) and the care-of address it came from.
pub fn strip_home_address(pkt: &IpPacket) -> Result<(IpPacket, Ipv6Addr), Mip6WireError> {
    let (care_of, dst) = addresses(pkt)?;
    if pkt.protocol() != DEST_OPTIONS {
        return Err(Mip6WireError::NoHeader);
    }
    let p = pkt.payload();
    if p.len() < 8 {
        return Err(Mip6WireError::TooShort(p.len()));
    }
    let hlen = (usize::from(p[1]) + 1) * 8;
    let opts = p.get(2..hlen).ok_or(Mip6WireError::TooShort(p.len()))?;
    let home = options(opts)?
        .into_iter()
        .find(|(k, d)| *k == 201 && d.len() == 16)
        .map(|(_, d)| v6(d))
        .ok_or(Mip6WireError::NoHeader)?;
    let back = rebuild(home, dst, p[0], pkt.ttl(), &p[hlen..], pkt.uid())?;
    Ok((back, care_of))
}

/// Rewrites a packet for the home address into one for the care-of
/// address with a type 2 routing header carrying the home address (24
/// bytes, RFC 6275 section 6.4).
pub fn insert_routing_header(pkt: &IpPacket, care_of: Ipv6Addr) -> Result<IpPacket, Mip6WireError> {
    let (src, home) = addresses(pkt)?;
    let mut b = Vec::with_capacity(24 + pkt.payload().len());
    b.extend_from_slice(&[pkt.protocol(), 2, 2, 1, 0, 0, 0, 0]);
    b.extend_from_slice(&home.octets());
    b.extend_from_slice(pkt.payload());
    rebuild(src, care_of, ROUTING, pkt.ttl(), &b, pkt.uid())
}

/// If `pkt` starts with a type 2 routing header with one segment left,
/// returns it as addressed to the home address, and that address.
pub fn strip_routing_header(pkt: &IpPacket) -> Result<(IpPacket, Ipv6Addr), Mip6WireError> {
    let (src, _) = addresses(pkt)?;
    if pkt.protocol() != ROUTING {
        return Err(Mip6WireError::NoHeader);
    }
    let p = pkt.payload();
    if p.len() < 24 || p[1] != 2 || p[2] != 2 || p[3] != 1 {
        return Err(Mip6WireError::NoHeader);
    }
    let home = v6(&p[8..24]);
    let back = rebuild(src, home, p[0], pkt.ttl(), &p[24..], pkt.uid())?;
    Ok((back, home))
}

fn icmp(src: Ipv6Addr, dst: Ipv6Addr, mut msg: Vec<u8>) -> Vec<u8> {
    msg[2] = 0;
    msg[3] = 0;
    let c = checksum6(src, dst, ICMPV6, &msg);
    msg[2..4].copy_from_slice(&c.to_be_bytes());
    msg
}

/// Checks an ICMPv6 message's checksum; its type if correct.
pub fn icmp_type_of(src: Ipv6Addr, dst: Ipv6Addr, msg: &[u8]) -> Option<u8> {
    (msg.len() >= 4 && checksum6(src, dst, ICMPV6, msg) == 0).then(|| msg[0])
}

/// A router advertisement with one prefix (RFC 4861 section 4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouterAdvertisement {
    pub router_lifetime_s: u16,
    /// H: the router is a home agent (RFC 6275 section 7.1).
    pub home_agent: bool,
    pub prefix: Ipv6Net,
    pub valid_lifetime_s: u32,
}

impl RouterAdvertisement {
    pub fn emit(&self, src: Ipv6Addr, dst: Ipv6Addr) -> Vec<u8> {
        let mut b = vec![icmp_type::ROUTER_ADVERTISEMENT, 0, 0, 0, 64];
        b.push(if self.home_agent { 0x20 } else { 0 });
        b.extend_from_slice(&self.router_lifetime_s.to_be_bytes());
        b.extend_from_slice(&[0; 8]); // reachable time, retrans timer
        // Prefix Information option: on-link and autonomous.
        b.extend_from_slice(&[3, 4, self.prefix.prefix_len(), 0xc0]);
        b.extend_from_slice(&self.valid_lifetime_s.to_be_bytes());
        b.extend_from_slice(&self.valid_lifetime_s.to_be_bytes());
        b.extend_from_slice(&[0; 4]);
        b.extend_from_slice(&self.prefix.network().octets());
        icmp(src, dst, b)
    }

    /// Parses a checked router advertisement with a prefix option.
    pub fn parse(src: Ipv6Addr, dst: Ipv6Addr, b: &[u8]) -> Result<Self, Mip6WireError> {
        if icmp_type_of(src, dst, b) != Some(icmp_type::ROUTER_ADVERTISEMENT) {
            return Err(Mip6WireError::BadType(b.first().copied().unwrap_or(0)));
        }
        if b.len() < 16 {
            return Err(Mip6WireError::TooShort(b.len()));
        }
        let mut at = 16;
        while at + 8 <= b.len() {
            let kind = b[at];
            let len = usize::from(b[at + 1]) * 8;
            if len == 0 || at + len > b.len() {
                return Err(Mip6WireError::BadOption(kind));
            }
            if kind == 3 && len == 32 {
                let o = &b[at..at + 32];
                let prefix = Ipv6Net::new(v6(&o[16..32]), o[2].min(128))
                    .map_err(|_| Mip6WireError::BadOption(3))?;
                return Ok(RouterAdvertisement {
                    router_lifetime_s: u16::from_be_bytes([b[6], b[7]]),
                    home_agent: b[5] & 0x20 != 0,
                    prefix,
                    valid_lifetime_s: u32::from_be_bytes([o[4], o[5], o[6], o[7]]),
                });
            }
            at += len;
        }
        Err(Mip6WireError::NoHeader)
    }
}

/// A router solicitation (RFC 4861 section 4.1).
pub fn router_solicitation(src: Ipv6Addr, dst: Ipv6Addr) -> Vec<u8> {
    icmp(
        src,
        dst,
        vec![icmp_type::ROUTER_SOLICITATION, 0, 0, 0, 0, 0, 0, 0],
    )
}

/// An unsolicited neighbor advertisement for `target` with the override
/// flag (the FMIPv6 UNA, RFC 5568 section 6.3).
pub fn unsolicited_na(src: Ipv6Addr, dst: Ipv6Addr, target: Ipv6Addr, lla: [u8; 6]) -> Vec<u8> {
    let mut b = vec![icmp_type::NEIGHBOR_ADVERTISEMENT, 0, 0, 0, 0x20, 0, 0, 0];
    b.extend_from_slice(&target.octets());
    b.extend_from_slice(&[2, 1]);
    b.extend_from_slice(&lla);
    icmp(src, dst, b)
}

/// The target of a checked neighbor advertisement.
pub fn na_target(src: Ipv6Addr, dst: Ipv6Addr, b: &[u8]) -> Option<Ipv6Addr> {
    (icmp_type_of(src, dst, b) == Some(icmp_type::NEIGHBOR_ADVERTISEMENT) && b.len() >= 24)
        .then(|| v6(&b[8..24]))
}

/// The link-layer address this model gives the access point of `cell`
/// (locally administered, the cell index in the last two bytes): what
/// RtSolPr and PrRtAdv carry to name an access point.
pub fn ap_id(cell: CellId) -> [u8; 6] {
    let c = cell.0.to_be_bytes();
    [0x02, 0, c[0], c[1], c[2], c[3]]
}

/// FMIPv6 Router Solicitation for Proxy Advertisement (RFC 5568 6.1.1):
/// asks the current router about the access point `new_ap`.
pub fn rtsolpr(src: Ipv6Addr, dst: Ipv6Addr, identifier: u16, new_ap: [u8; 6]) -> Vec<u8> {
    let mut b = vec![icmp_type::FMIP, 0, 0, 0, icmp_type::SUBTYPE_RTSOLPR, 0];
    b.extend_from_slice(&identifier.to_be_bytes());
    // Link-layer Address option, code 1: the new access point (type,
    // length, code and 6 bytes, padded to 16 bytes: length 2).
    b.extend_from_slice(&[19, 2, 1]);
    b.extend_from_slice(&new_ap);
    b.extend_from_slice(&[0; 7]);
    icmp(src, dst, b)
}

/// A Proxy Router Advertisement's content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProxyAdvertisement {
    pub identifier: u16,
    /// 0: the new access point is known (NAR information follows);
    /// 1: unknown access point (no NAR information).
    pub code: u8,
    pub new_ap: [u8; 6],
    pub nar_address: Option<Ipv6Addr>,
    pub nar_prefix: Option<Ipv6Net>,
}

/// Parses a checked RtSolPr: (identifier, new access point).
pub fn parse_rtsolpr(src: Ipv6Addr, dst: Ipv6Addr, b: &[u8]) -> Option<(u16, [u8; 6])> {
    if icmp_type_of(src, dst, b) != Some(icmp_type::FMIP)
        || b.len() < 8
        || b[4] != icmp_type::SUBTYPE_RTSOLPR
    {
        return None;
    }
    let id = u16::from_be_bytes([b[6], b[7]]);
    let mut at = 8;
    while at + 2 <= b.len() {
        let len = usize::from(b[at + 1]) * 8;
        if len == 0 || at + len > b.len() {
            return None;
        }
        if b[at] == 19 && len >= 9 && b[at + 2] == 1 {
            let mut ap = [0u8; 6];
            ap.copy_from_slice(&b[at + 3..at + 9]);
            return Some((id, ap));
        }
        at += len;
    }
    None
}

impl ProxyAdvertisement {
    /// The PrRtAdv message (RFC 5568 6.1.2).
    pub fn emit(&self, src: Ipv6Addr, dst: Ipv6Addr) -> Vec<u8> {
        let mut b = vec![
            icmp_type::FMIP,
            self.code,
            0,
            0,
            icmp_type::SUBTYPE_PRRTADV,
            0,
        ];
        b.extend_from_slice(&self.identifier.to_be_bytes());
        b.extend_from_slice(&[19, 2, 1]);
        b.extend_from_slice(&self.new_ap);
        b.extend_from_slice(&[0; 7]);
        if let Some(p) = self.nar_prefix {
            b.extend_from_slice(&[17, 3, addr_code::NAR_PREFIX, p.prefix_len(), 0, 0, 0, 0]);
            b.extend_from_slice(&p.network().octets());
        }
        if let Some(a) = self.nar_address {
            b.extend_from_slice(&[17, 3, addr_code::NAR_ADDRESS, 128, 0, 0, 0, 0]);
            b.extend_from_slice(&a.octets());
        }
        icmp(src, dst, b)
    }

    /// Parses a checked PrRtAdv.
    pub fn parse(src: Ipv6Addr, dst: Ipv6Addr, b: &[u8]) -> Option<ProxyAdvertisement> {
        if icmp_type_of(src, dst, b) != Some(icmp_type::FMIP)
            || b.len() < 8
            || b[4] != icmp_type::SUBTYPE_PRRTADV
        {
            return None;
        }
        let mut p = ProxyAdvertisement {
            identifier: u16::from_be_bytes([b[6], b[7]]),
            code: b[1],
            new_ap: [0; 6],
            nar_address: None,
            nar_prefix: None,
        };
        let mut at = 8;
        while at + 2 <= b.len() {
            let len = usize::from(b[at + 1]) * 8;
            if len == 0 || at + len > b.len() {
                return None;
            }
            let o = &b[at..at + len];
            match o[0] {
                19 if len >= 9 => p.new_ap.copy_from_slice(&o[3..9]),
                17 if len == 24 => {
                    let a = v6(&o[8..24]);
                    match o[2] {
                        addr_code::NAR_PREFIX => {
                            p.nar_prefix = Ipv6Net::new(a, o[3].min(128)).ok();
                        }
                        addr_code::NAR_ADDRESS => p.nar_address = Some(a),
                        _ => {}
                    }
                }
                _ => {}
            }
            at += len;
        }
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(s: &str) -> Ipv6Addr {
        s.parse().unwrap()
    }

    #[test]
    fn mobility_header_round_trips() {
        let (s, d) = (a("2001:db8:1::10"), a("2001:db8:9::1"));
        let msgs = [
            MhMessage::BindingUpdate(BindingUpdate {
                sequence: 9,
                ack: true,
                home: true,
                lifetime_units: 75,
                ..Default::default()
            }),
            MhMessage::FastBindingUpdate(BindingUpdate {
                sequence: 1,
                ack: true,
                alternate_coa: Some(a("2001:db8:b::10")),
                addresses: vec![(addr_code::OLD_COA, a("2001:db8:a::10"))],
                ..Default::default()
            }),
            MhMessage::BindingAck(BindingAck {
                status: 0,
                sequence: 9,
                lifetime_units: 75,
            }),
            MhMessage::FastBindingAck(BindingAck::default()),
            MhMessage::HandoverInitiate(HandoverInitiate {
                sequence: 3,
                code: 0,
                previous_coa: Some(a("2001:db8:a::10")),
                new_coa: Some(a("2001:db8:b::10")),
            }),
            MhMessage::HandoverAck(HandoverAck {
                sequence: 3,
                code: 0,
            }),
        ];
        for m in msgs {
            let b = m.emit(s, d);
            assert_eq!(b.len() % 8, 0);
            assert_eq!(MhMessage::parse(s, d, &b).unwrap(), m);
            // Another pseudo-header (a different source): the checksum
            // fails.
            assert_eq!(
                MhMessage::parse(a("2001:db8:1::11"), d, &b),
                Err(Mip6WireError::BadChecksum)
            );
        }
    }

    #[test]
    fn extension_headers_insert_and_strip() {
        let home = a("2001:db8:1::10");
        let coa = a("2001:db8:a::10");
        let cn = a("2001:db8:9::1");
        let mut p = IpPacket::build(IpAddr::V6(home), IpAddr::V6(cn), 6, 60, &[7; 40]).unwrap();
        p.set_uid(5);
        let out = insert_home_address(&p, coa).unwrap();
        assert_eq!(out.len(), p.len() + 24);
        assert_eq!(out.src(), IpAddr::V6(coa));
        assert_eq!(out.uid(), 5);
        let (back, from) = strip_home_address(&out).unwrap();
        assert_eq!(back, p);
        assert_eq!(from, coa);
        let q = IpPacket::build(IpAddr::V6(cn), IpAddr::V6(home), 17, 60, &[1; 30]).unwrap();
        let out = insert_routing_header(&q, coa).unwrap();
        assert_eq!(out.dst(), IpAddr::V6(coa));
        let (back, h) = strip_routing_header(&out).unwrap();
        assert_eq!((back, h), (q.clone(), home));
        assert_eq!(strip_routing_header(&q), Err(Mip6WireError::NoHeader));
        assert_eq!(strip_home_address(&q), Err(Mip6WireError::NoHeader));
    }

    #[test]
    fn icmp_messages_round_trip() {
        let (r, all) = (a("fe80::1"), a("ff02::1"));
        let ra = RouterAdvertisement {
            router_lifetime_s: 3,
            home_agent: true,
            prefix: "2001:db8:a::/64".parse().unwrap(),
            valid_lifetime_s: 30,
        };
        assert_eq!(
            RouterAdvertisement::parse(r, all, &ra.emit(r, all)).unwrap(),
            ra
        );
        let rs = router_solicitation(r, all);
        assert_eq!(icmp_type_of(r, all, &rs), Some(133));
        let una = unsolicited_na(r, all, a("2001:db8:b::10"), [2, 0, 0, 0, 0, 1]);
        assert_eq!(na_target(r, all, &una), Some(a("2001:db8:b::10")));
        let sol = rtsolpr(r, all, 77, [2, 0, 0, 0, 0, 3]);
        assert_eq!(parse_rtsolpr(r, all, &sol), Some((77, [2, 0, 0, 0, 0, 3])));
        let adv = ProxyAdvertisement {
            identifier: 77,
            code: 0,
            new_ap: [2, 0, 0, 0, 0, 3],
            nar_address: Some(a("2001:db8:b::1")),
            nar_prefix: Some("2001:db8:b::/64".parse().unwrap()),
        };
        assert_eq!(
            ProxyAdvertisement::parse(r, all, &adv.emit(r, all)),
            Some(adv)
        );
    }

    #[test]
    fn junk_never_panics() {
        let (s, d) = (a("::1"), a("::2"));
        for len in 0..80usize {
            let junk: Vec<u8> = (0..len)
                .map(|i| (i as u8).wrapping_mul(29) ^ 0x5a)
                .collect();
            let _ = MhMessage::parse(s, d, &junk);
            let _ = RouterAdvertisement::parse(s, d, &junk);
            let _ = parse_rtsolpr(s, d, &junk);
            let _ = ProxyAdvertisement::parse(s, d, &junk);
            let _ = na_target(s, d, &junk);
            let _ = options(&junk);
            if let Ok(p) = IpPacket::build(IpAddr::V6(s), IpAddr::V6(d), ROUTING, 9, &junk) {
                let _ = strip_routing_header(&p);
            }
            if let Ok(p) = IpPacket::build(IpAddr::V6(s), IpAddr::V6(d), DEST_OPTIONS, 9, &junk) {
                let _ = strip_home_address(&p);
            }
        }
    }
}
