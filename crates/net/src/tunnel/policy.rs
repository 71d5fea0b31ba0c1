//! Where the tunnel's server agrees to connect: so that it is no open
//! relay into the networks behind it, private, loopback, link-local and
//! other special-purpose ranges (RFC 6890) are refused unless allowed,
//! and an allow list can narrow it further. Names are resolved by the
//! server and every address checked, so a name cannot smuggle a private
//! address past the policy.

use std::net::{IpAddr, SocketAddr};

use ipnet::IpNet;

use super::socks::{Target, reply};

/// The destination policy of `msctp tunnel --server`.
#[derive(Debug, Clone, Default)]
pub struct DestPolicy {
    /// Only these networks (empty: any public address).
    pub allow: Vec<IpNet>,
    /// Never these networks (checked first).
    pub deny: Vec<IpNet>,
    /// Allow special-purpose addresses (RFC 6890: loopback, RFC 1918
    /// private, link-local, unique local, shared CGN space...) that are
    /// not in `allow` (off: refused unless `allow` names them).
    pub allow_private: bool,
    /// Allowed destination ports (empty: any).
    pub ports: Vec<u16>,
}

/// An address in a special-purpose range of RFC 6890 (or multicast,
/// unspecified): not a public host.
pub fn is_special(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(a) => {
            let o = a.octets();
            a.is_private()
                || a.is_loopback()
                || a.is_link_local()
                || a.is_unspecified()
                || a.is_multicast()
                || a.is_broadcast()
                || o[0] == 0
                || (o[0] == 100 && (o[1] & 0xc0) == 64) // 100.64/10, RFC 6598
                || (o[0] == 192 && o[1] == 0 && o[2] == 0) // 192.0.0/24
                || o[0] >= 240
        }
        IpAddr::V6(a) => {
            if let Some(v4) = a.to_ipv4_mapped() {
                return is_special(IpAddr::V4(v4));
            }
            let s = a.segments();
            a.is_loopback()
                || a.is_unspecified()
                || a.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00 // unique local, RFC 4193
                || (s[0] & 0xffc0) == 0xfe80 // link-local
                || (s[0] == 0x64 && s[1] == 0xff9b) // NAT64, RFC 6052
        }
    }
}

impl DestPolicy {
    /// May the server connect to `to`?
    pub fn permits(&self, to: SocketAddr) -> bool {
        let ip = match to.ip() {
            IpAddr::V6(a) => a.to_ipv4_mapped().map_or(to.ip(), IpAddr::V4),
            v4 => v4,
        };
        if !self.ports.is_empty() && !self.ports.contains(&to.port()) {
            return false;
        }
        if self.deny.iter().any(|n| n.contains(&ip)) {
            return false;
        }
        let listed = self.allow.iter().any(|n| n.contains(&ip));
        if !self.allow.is_empty() && !listed {
            return false;
        }
        listed || self.allow_private || !is_special(ip)
    }

    /// The addresses to try for `t` (a name resolved here), or the SOCKS
    /// reply code that refuses it: NOT_ALLOWED if the policy forbids
    /// every address, HOST_UNREACHABLE if the name does not resolve.
    pub async fn resolve(&self, t: &Target) -> Result<Vec<SocketAddr>, u8> {
        let all: Vec<SocketAddr> = match t {
            Target::Addr(a) => vec![*a],
            Target::Domain(d, p) => match tokio::net::lookup_host((d.as_str(), *p)).await {
                Ok(it) => it.collect(),
                Err(_) => return Err(reply::HOST_UNREACHABLE),
            },
        };
        if all.is_empty() {
            return Err(reply::HOST_UNREACHABLE);
        }
        let ok: Vec<SocketAddr> = all.into_iter().filter(|a| self.permits(*a)).collect();
        if ok.is_empty() {
            return Err(reply::NOT_ALLOWED);
        }
        Ok(ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sa(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    #[test]
    fn private_ranges_are_refused_by_default() {
        let p = DestPolicy::default();
        for a in [
            "127.0.0.1:80",
            "10.1.2.3:80",
            "172.16.0.1:80",
            "192.168.1.1:80",
            "169.254.169.254:80",
            "100.64.0.1:80",
            "0.0.0.0:80",
            "[::1]:80",
            "[fd00::1]:80",
            "[fe80::1]:80",
            "[::ffff:127.0.0.1]:80",
            "[::ffff:10.0.0.1]:80",
        ] {
            assert!(!p.permits(sa(a)), "{a} must be refused");
        }
        for a in ["192.0.2.1:80", "8.8.8.8:53", "[2001:db8::1]:443"] {
            assert!(p.permits(sa(a)), "{a} is public");
        }
    }

    #[test]
    fn allow_deny_and_ports() {
        let p = DestPolicy {
            allow: vec!["10.0.0.0/8".parse().unwrap()],
            deny: vec!["10.9.0.0/16".parse().unwrap()],
            ports: vec![80, 443],
            ..DestPolicy::default()
        };
        assert!(p.permits(sa("10.1.1.1:80")), "listed private network");
        assert!(!p.permits(sa("10.9.1.1:80")), "denied inside allowed");
        assert!(!p.permits(sa("10.1.1.1:22")), "port not allowed");
        assert!(!p.permits(sa("192.0.2.1:80")), "not in the allow list");
    }
}
