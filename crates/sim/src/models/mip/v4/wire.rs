//! Mobile IPv4 messages on the wire (RFC 5944), so that captures decode in
//! Wireshark (`mip` dissector on UDP port 434, ICMP router advertisements
//! with the mobility agent extension):
//!
//! - Agent Advertisement: an ICMP Router Advertisement (RFC 1256, type 9)
//!   followed by a Mobility Agent Advertisement Extension (type 16)
//!   (RFC 5944 section 2.1.1);
//! - Agent Solicitation: an ICMP Router Solicitation (type 10, section 2.2);
//! - Registration Request (type 1, section 3.3) and Reply (type 3,
//!   section 3.4) on UDP port 434, with the Mobile-Home Authentication
//!   Extension (type 32, section 3.5.2).
//!
//! The authenticator is HMAC-SHA-256 truncated to 128 bits over the
//! registration message up to and including the extension's SPI field
//! (section 3.5.1 defines what is protected; the algorithm is chosen by the
//! SPI's security association, and the default HMAC-MD5 is replaced here
//! because no MD5 implementation is in the workspace).

use std::net::Ipv4Addr;

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::kernel::ip::internet_checksum;

/// UDP port of Mobile IP registration (RFC 5944 section 3.1).
pub const REGISTRATION_PORT: u16 = 434;
/// ICMP type of a router advertisement (RFC 1256).
pub const ICMP_ROUTER_ADVERTISEMENT: u8 = 9;
/// ICMP type of a router solicitation (RFC 1256).
pub const ICMP_ROUTER_SOLICITATION: u8 = 10;
/// Code of an agent advertisement from an agent that does not route
/// ordinary traffic (RFC 5944 section 2.1.1); 0 when it does.
pub const CODE_MOBILITY_ONLY: u8 = 16;
/// Extension type of the Mobility Agent Advertisement Extension.
pub const EXT_MOBILITY_AGENT_ADV: u8 = 16;
/// Extension type of the Mobile-Home Authentication Extension.
pub const EXT_MOBILE_HOME_AUTH: u8 = 32;
/// Length of the authenticator this model computes.
pub const AUTHENTICATOR_LEN: usize = 16;

/// Registration reply codes used here (RFC 5944 section 3.4).
pub mod code {
    pub const ACCEPTED: u8 = 0;
    /// Foreign agent: requested lifetime too long.
    pub const FA_LIFETIME_TOO_LONG: u8 = 69;
    /// Home agent: mobile node failed authentication.
    pub const HA_AUTH_FAILED: u8 = 131;
    /// Home agent: identification mismatch (replay).
    pub const HA_IDENT_MISMATCH: u8 = 133;
    /// Home agent: unknown home agent address.
    pub const HA_UNKNOWN_HA: u8 = 136;
}

/// A malformed Mobile IP message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MipWireError {
    #[error("message too short: {0} bytes")]
    TooShort(usize),
    #[error("unexpected message type {0}")]
    BadType(u8),
    #[error("bad ICMP checksum")]
    BadChecksum,
    #[error("extension of type {kind} overruns the message")]
    BadExtension { kind: u8 },
    #[error("no mobility agent advertisement extension")]
    NotAnAgent,
}

/// The flags of a mobility agent advertisement (RFC 5944 section 2.1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AgentFlags {
    /// R: registration required (even with a co-located care-of address).
    pub registration_required: bool,
    /// B: busy.
    pub busy: bool,
    /// H: the agent is a home agent on this link.
    pub home_agent: bool,
    /// F: the agent is a foreign agent on this link.
    pub foreign_agent: bool,
    /// T: reverse tunnelling supported.
    pub reverse_tunnel: bool,
}

/// An agent advertisement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentAdvertisement {
    /// The agent's address on the link (the router address of RFC 1256).
    pub agent: Ipv4Addr,
    /// Advertisement lifetime in seconds (validity of the router entry).
    pub lifetime_s: u16,
    pub sequence: u16,
    /// Longest registration lifetime the agent accepts, in seconds.
    pub registration_lifetime_s: u16,
    pub flags: AgentFlags,
    /// Care-of addresses offered (foreign agents; may be empty for a home
    /// agent only).
    pub care_of: Vec<Ipv4Addr>,
}

impl AgentAdvertisement {
    /// The ICMP message (type 9, one router address, extension 16).
    pub fn emit(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(16 + 6 + 4 * self.care_of.len() + 2);
        b.push(ICMP_ROUTER_ADVERTISEMENT);
        b.push(if self.flags.foreign_agent || self.flags.home_agent {
            CODE_MOBILITY_ONLY
        } else {
            0
        });
        b.extend_from_slice(&[0, 0]); // checksum
        b.push(1); // number of addresses
        b.push(2); // address entry size (words)
        b.extend_from_slice(&self.lifetime_s.to_be_bytes());
        b.extend_from_slice(&self.agent.octets());
        b.extend_from_slice(&0u32.to_be_bytes()); // preference
        let n = self.care_of.len().min(60);
        b.push(EXT_MOBILITY_AGENT_ADV);
        b.push((6 + 4 * n) as u8);
        b.extend_from_slice(&self.sequence.to_be_bytes());
        b.extend_from_slice(&self.registration_lifetime_s.to_be_bytes());
        let f = &self.flags;
        let bits = (u8::from(f.registration_required) << 7)
            | (u8::from(f.busy) << 6)
            | (u8::from(f.home_agent) << 5)
            | (u8::from(f.foreign_agent) << 4)
            | (u8::from(f.reverse_tunnel) << 1);
        b.push(bits);
        b.push(0);
        for a in &self.care_of[..n] {
            b.extend_from_slice(&a.octets());
        }
        let c = internet_checksum(&b);
        b[2..4].copy_from_slice(&c.to_be_bytes());
        b
    }

    /// Parses an ICMP message; an ICMP router advertisement without the
    /// mobility extension is [`MipWireError::NotAnAgent`].
    pub fn parse(b: &[u8]) -> Result<AgentAdvertisement, MipWireError> {
        if b.len() < 8 {
            return Err(MipWireError::TooShort(b.len()));
        }
        if b[0] != ICMP_ROUTER_ADVERTISEMENT {
            return Err(MipWireError::BadType(b[0]));
        }
        if internet_checksum(b) != 0 {
            return Err(MipWireError::BadChecksum);
        }
        let num = usize::from(b[4]);
        let size = usize::from(b[5]).max(2) * 4;
        let lifetime_s = u16::from_be_bytes([b[6], b[7]]);
        let addrs_end = 8 + num * size;
        if b.len() < addrs_end || num == 0 {
            return Err(MipWireError::TooShort(b.len()));
        }
        let agent = v4(&b[8..12]);
        let mut at = addrs_end;
        while at + 2 <= b.len() {
            let kind = b[at];
            let len = usize::from(b[at + 1]);
            let body = b
                .get(at + 2..at + 2 + len)
                .ok_or(MipWireError::BadExtension { kind })?;
            if kind == EXT_MOBILITY_AGENT_ADV {
                if body.len() < 6 {
                    return Err(MipWireError::BadExtension { kind });
                }
                let bits = body[4];
                let care_of = body[6..].chunks_exact(4).map(v4).collect();
                return Ok(AgentAdvertisement {
                    agent,
                    lifetime_s,
                    sequence: u16::from_be_bytes([body[0], body[1]]),
                    registration_lifetime_s: u16::from_be_bytes([body[2], body[3]]),
                    flags: AgentFlags {
                        registration_required: bits & 0x80 != 0,
                        busy: bits & 0x40 != 0,
                        home_agent: bits & 0x20 != 0,
                        foreign_agent: bits & 0x10 != 0,
                        reverse_tunnel: bits & 0x02 != 0,
                    },
                    care_of,
                });
            }
            at += 2 + len;
        }
        Err(MipWireError::NotAnAgent)
    }
}

/// An agent solicitation (ICMP router solicitation, 8 bytes).
pub fn emit_solicitation() -> Vec<u8> {
    let mut b = vec![ICMP_ROUTER_SOLICITATION, 0, 0, 0, 0, 0, 0, 0];
    let c = internet_checksum(&b);
    b[2..4].copy_from_slice(&c.to_be_bytes());
    b
}

/// True if `b` is a well-formed ICMP router solicitation.
pub fn is_solicitation(b: &[u8]) -> bool {
    b.len() >= 8 && b[0] == ICMP_ROUTER_SOLICITATION && internet_checksum(b) == 0
}

/// The Mobile-Home Authentication Extension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthExtension {
    pub spi: u32,
    pub authenticator: Vec<u8>,
}

/// A registration request (RFC 5944 section 3.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistrationRequest {
    /// Flag byte S B D M G r T x as sent.
    pub flags: u8,
    pub lifetime_s: u16,
    pub home_address: Ipv4Addr,
    pub home_agent: Ipv4Addr,
    pub care_of: Ipv4Addr,
    pub identification: u64,
    pub auth: Option<AuthExtension>,
}

/// A registration reply (RFC 5944 section 3.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistrationReply {
    pub code: u8,
    pub lifetime_s: u16,
    pub home_address: Ipv4Addr,
    pub home_agent: Ipv4Addr,
    pub identification: u64,
    pub auth: Option<AuthExtension>,
}

/// A registration message on UDP port 434.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Registration {
    Request(RegistrationRequest),
    Reply(RegistrationReply),
}

fn v4(b: &[u8]) -> Ipv4Addr {
    Ipv4Addr::new(b[0], b[1], b[2], b[3])
}

fn mac(key: &[u8], data: &[u8]) -> Vec<u8> {
    // HMAC accepts keys of any length, so `new_from_slice` cannot fail;
    // an empty tag is returned rather than panicking if it ever did.
    match Hmac::<Sha256>::new_from_slice(key) {
        Ok(mut m) => {
            m.update(data);
            m.finalize().into_bytes()[..AUTHENTICATOR_LEN].to_vec()
        }
        Err(_) => Vec::new(),
    }
}

/// Appends the authentication extension over `fixed` (the message so far).
fn append_auth(b: &mut Vec<u8>, spi: u32, key: &[u8]) {
    b.push(EXT_MOBILE_HOME_AUTH);
    b.push((4 + AUTHENTICATOR_LEN) as u8);
    b.extend_from_slice(&spi.to_be_bytes());
    let tag = mac(key, b);
    b.extend_from_slice(&tag);
}

/// Reads the extensions after the fixed part; returns the authentication
/// extension and the offset of its authenticator.
fn parse_auth(b: &[u8], fixed: usize) -> Result<Option<(AuthExtension, usize)>, MipWireError> {
    let mut at = fixed;
    while at + 2 <= b.len() {
        let kind = b[at];
        let len = usize::from(b[at + 1]);
        let body = b
            .get(at + 2..at + 2 + len)
            .ok_or(MipWireError::BadExtension { kind })?;
        if kind == EXT_MOBILE_HOME_AUTH {
            if body.len() < 4 {
                return Err(MipWireError::BadExtension { kind });
            }
            let spi = u32::from_be_bytes([body[0], body[1], body[2], body[3]]);
            return Ok(Some((
                AuthExtension {
                    spi,
                    authenticator: body[4..].to_vec(),
                },
                at + 6,
            )));
        }
        at += 2 + len;
    }
    Ok(None)
}

impl RegistrationRequest {
    /// The UDP payload, authenticated with `key` under `spi` if given.
    pub fn emit(&self, auth: Option<(u32, &[u8])>) -> Vec<u8> {
        let mut b = Vec::with_capacity(24 + 22);
        b.push(1);
        b.push(self.flags);
        b.extend_from_slice(&self.lifetime_s.to_be_bytes());
        b.extend_from_slice(&self.home_address.octets());
        b.extend_from_slice(&self.home_agent.octets());
        b.extend_from_slice(&self.care_of.octets());
        b.extend_from_slice(&self.identification.to_be_bytes());
        if let Some((spi, key)) = auth {
            append_auth(&mut b, spi, key);
        }
        b
    }
}

impl RegistrationReply {
    pub fn emit(&self, auth: Option<(u32, &[u8])>) -> Vec<u8> {
        let mut b = Vec::with_capacity(20 + 22);
        b.push(3);
        b.push(self.code);
        b.extend_from_slice(&self.lifetime_s.to_be_bytes());
        b.extend_from_slice(&self.home_address.octets());
        b.extend_from_slice(&self.home_agent.octets());
        b.extend_from_slice(&self.identification.to_be_bytes());
        if let Some((spi, key)) = auth {
            append_auth(&mut b, spi, key);
        }
        b
    }
}

impl Registration {
    /// Parses a registration message (the UDP payload).
    pub fn parse(b: &[u8]) -> Result<Registration, MipWireError> {
        let kind = *b.first().ok_or(MipWireError::TooShort(0))?;
        match kind {
            1 => {
                if b.len() < 24 {
                    return Err(MipWireError::TooShort(b.len()));
                }
                let auth = parse_auth(b, 24)?.map(|(a, _)| a);
                Ok(Registration::Request(RegistrationRequest {
                    flags: b[1],
                    lifetime_s: u16::from_be_bytes([b[2], b[3]]),
                    home_address: v4(&b[4..8]),
                    home_agent: v4(&b[8..12]),
                    care_of: v4(&b[12..16]),
                    identification: u64_at(&b[16..24]),
                    auth,
                }))
            }
            3 => {
                if b.len() < 20 {
                    return Err(MipWireError::TooShort(b.len()));
                }
                let auth = parse_auth(b, 20)?.map(|(a, _)| a);
                Ok(Registration::Reply(RegistrationReply {
                    code: b[1],
                    lifetime_s: u16::from_be_bytes([b[2], b[3]]),
                    home_address: v4(&b[4..8]),
                    home_agent: v4(&b[8..12]),
                    identification: u64_at(&b[12..20]),
                    auth,
                }))
            }
            k => Err(MipWireError::BadType(k)),
        }
    }
}

fn u64_at(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_be_bytes(a)
}

/// Checks the Mobile-Home authenticator of a registration message `b`
/// (request or reply) against `key`: true if it has the extension and the
/// authenticator matches.
pub fn verify_auth(b: &[u8], key: &[u8]) -> bool {
    let fixed = match b.first() {
        Some(1) => 24,
        Some(3) => 20,
        _ => return false,
    };
    let Ok(Some((ext, tag_at))) = parse_auth(b, fixed) else {
        return false;
    };
    let expected = mac(key, &b[..tag_at]);
    !expected.is_empty() && ext.authenticator == expected
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(s: &str) -> Ipv4Addr {
        s.parse().unwrap()
    }

    #[test]
    fn advertisement_round_trip() {
        let adv = AgentAdvertisement {
            agent: a("10.2.0.254"),
            lifetime_s: 3,
            sequence: 7,
            registration_lifetime_s: 600,
            flags: AgentFlags {
                foreign_agent: true,
                registration_required: true,
                ..Default::default()
            },
            care_of: vec![a("10.2.0.254")],
        };
        let b = adv.emit();
        assert_eq!(b.len(), 16 + 2 + 6 + 4);
        assert_eq!(internet_checksum(&b), 0);
        assert_eq!(AgentAdvertisement::parse(&b).unwrap(), adv);
        // A plain router advertisement is not an agent.
        let mut plain = b[..16].to_vec();
        plain[2] = 0;
        plain[3] = 0;
        let c = internet_checksum(&plain);
        plain[2..4].copy_from_slice(&c.to_be_bytes());
        assert_eq!(
            AgentAdvertisement::parse(&plain),
            Err(MipWireError::NotAnAgent)
        );
        let mut bad = b.clone();
        bad[10] ^= 1;
        assert_eq!(
            AgentAdvertisement::parse(&bad),
            Err(MipWireError::BadChecksum)
        );
    }

    #[test]
    fn solicitation() {
        let s = emit_solicitation();
        assert!(is_solicitation(&s));
        assert!(!is_solicitation(&s[..4]));
    }

    #[test]
    fn registration_round_trip_and_authentication() {
        let key = b"secret";
        let rq = RegistrationRequest {
            flags: 0,
            lifetime_s: 300,
            home_address: a("10.1.0.10"),
            home_agent: a("10.1.0.254"),
            care_of: a("10.2.0.254"),
            identification: 42,
            auth: None,
        };
        let b = rq.emit(Some((256, key)));
        assert_eq!(b.len(), 24 + 2 + 4 + 16);
        assert!(verify_auth(&b, key));
        assert!(!verify_auth(&b, b"other"));
        let Registration::Request(back) = Registration::parse(&b).unwrap() else {
            panic!("not a request")
        };
        assert_eq!(back.care_of, rq.care_of);
        assert_eq!(back.auth.unwrap().spi, 256);
        let mut tampered = b.clone();
        tampered[13] ^= 1; // care-of address
        assert!(!verify_auth(&tampered, key));
        let rp = RegistrationReply {
            code: code::ACCEPTED,
            lifetime_s: 300,
            home_address: rq.home_address,
            home_agent: rq.home_agent,
            identification: 42,
            auth: None,
        };
        let b = rp.emit(Some((256, key)));
        assert!(verify_auth(&b, key));
        assert!(matches!(
            Registration::parse(&b),
            Ok(Registration::Reply(r)) if r.code == 0 && r.identification == 42
        ));
        assert!(!verify_auth(&rp.emit(None), key));
    }

    #[test]
    fn junk_is_an_error_never_a_panic() {
        for len in 0..64usize {
            let junk: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(37) ^ 1).collect();
            let _ = Registration::parse(&junk);
            let _ = AgentAdvertisement::parse(&junk);
            let _ = verify_auth(&junk, b"k");
            let mut r = junk.clone();
            if !r.is_empty() {
                r[0] = 1;
                let _ = Registration::parse(&r);
                r[0] = 3;
                let _ = Registration::parse(&r);
                r[0] = 9;
                let _ = AgentAdvertisement::parse(&r);
            }
        }
        // An extension that claims more bytes than there are.
        let mut b = RegistrationRequest {
            flags: 0,
            lifetime_s: 1,
            home_address: a("1.1.1.1"),
            home_agent: a("2.2.2.2"),
            care_of: a("3.3.3.3"),
            identification: 1,
            auth: None,
        }
        .emit(None);
        b.extend_from_slice(&[32, 200, 0]);
        assert!(matches!(
            Registration::parse(&b),
            Err(MipWireError::BadExtension { kind: 32 })
        ));
    }
}
