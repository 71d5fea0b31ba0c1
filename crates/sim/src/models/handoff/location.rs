//! The location update of the single-connection scheme: the mobile node
//! tells its correspondent the connection's new address (docs/MODELS.md 2.3
//! "location update"). The papers do not specify a format; this model's
//! own UDP message is:
//!
//! ```text
//! "MHLU" | kind (1: update, 2: ack) | family (4 or 6) | sequence (u16)
//!       | mobile port (u16) | correspondent port (u16) | old address | new address
//! ```

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

const MAGIC: &[u8; 4] = b"MHLU";

/// A location update or its acknowledgement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocationUpdate {
    pub ack: bool,
    pub sequence: u16,
    pub mobile_port: u16,
    pub correspondent_port: u16,
    pub old: IpAddr,
    pub new: IpAddr,
}

impl LocationUpdate {
    pub fn emit(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(12 + 32);
        b.extend_from_slice(MAGIC);
        b.push(if self.ack { 2 } else { 1 });
        b.push(if self.old.is_ipv4() { 4 } else { 6 });
        b.extend_from_slice(&self.sequence.to_be_bytes());
        b.extend_from_slice(&self.mobile_port.to_be_bytes());
        b.extend_from_slice(&self.correspondent_port.to_be_bytes());
        for a in [self.old, self.new] {
            match a {
                IpAddr::V4(v) => b.extend_from_slice(&v.octets()),
                IpAddr::V6(v) => b.extend_from_slice(&v.octets()),
            }
        }
        b
    }

    /// Parses a message; `None` if it is not a well-formed update.
    pub fn parse(b: &[u8]) -> Option<LocationUpdate> {
        if b.len() < 12 || &b[..4] != MAGIC {
            return None;
        }
        let ack = match b[4] {
            1 => false,
            2 => true,
            _ => return None,
        };
        let alen = match b[5] {
            4 => 4,
            6 => 16,
            _ => return None,
        };
        if b.len() < 12 + 2 * alen {
            return None;
        }
        let addr = |s: &[u8]| -> IpAddr {
            if alen == 4 {
                IpAddr::V4(Ipv4Addr::new(s[0], s[1], s[2], s[3]))
            } else {
                let mut o = [0u8; 16];
                o.copy_from_slice(&s[..16]);
                IpAddr::V6(Ipv6Addr::from(o))
            }
        };
        Some(LocationUpdate {
            ack,
            sequence: u16::from_be_bytes([b[6], b[7]]),
            mobile_port: u16::from_be_bytes([b[8], b[9]]),
            correspondent_port: u16::from_be_bytes([b[10], b[11]]),
            old: addr(&b[12..12 + alen]),
            new: addr(&b[12 + alen..12 + 2 * alen]),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_junk() {
        let u = LocationUpdate {
            ack: false,
            sequence: 3,
            mobile_port: 40000,
            correspondent_port: 5000,
            old: "10.0.1.2".parse().unwrap(),
            new: "10.0.2.2".parse().unwrap(),
        };
        assert_eq!(LocationUpdate::parse(&u.emit()), Some(u));
        let v6 = LocationUpdate {
            ack: true,
            old: "2001:db8::1".parse().unwrap(),
            new: "2001:db8::2".parse().unwrap(),
            ..u
        };
        assert_eq!(LocationUpdate::parse(&v6.emit()), Some(v6));
        for n in 0..40 {
            assert_eq!(LocationUpdate::parse(&u.emit()[..n.min(19)]), None);
        }
        let mut bad = u.emit();
        bad[5] = 5;
        assert_eq!(LocationUpdate::parse(&bad), None);
    }
}
