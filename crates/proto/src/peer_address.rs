//! Which addresses a peer may list as its own transport addresses (in an
//! INIT or INIT ACK, RFC 9260 section 5.1.2), and the list the
//! association keeps from them.
//!
//! An INIT's address list is the peer's word only: an address it names is
//! not proven until a heartbeat to it returns (section 5.4). So the list
//! is bounded before any work is done on it, deduplicated in linear time,
//! and kept free of addresses that can never be a remote peer's:
//!
//! - never usable: the unspecified address, multicast, the IPv4 limited
//!   broadcast and "this network" (0.0.0.0/8) addresses (RFC 5061 section
//!   5.2 refuses broadcast and multicast), and an IPv4-mapped IPv6 form
//!   (`::ffff:a.b.c.d`) of any address that is refused as IPv4;
//! - loopback (127.0.0.0/8, `::1`) only from a peer whose packet itself
//!   came over loopback: such an address never leaves a node (RFC 4291
//!   section 2.5.3);
//! - link-local (169.254.0.0/16, `fe80::/10`) only from a peer whose
//!   packet came from a link-local or loopback address: its scope is one
//!   link (RFC 4007 section 6), and from a routed peer it names a host on
//!   our own link. Linux applies the same scoping (`sctp_in_scope`);
//! - one of our own local addresses only from a peer on this host (its
//!   packet came from one of them too, on another SCTP port): from a
//!   remote peer it would be a path to ourselves.
//!
//! Private addresses (RFC 1918, unique local IPv6) are accepted from any
//! peer: a multi-homed host often has several private networks.

use std::collections::HashSet;
use std::net::IpAddr;

/// How far an address reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// This node only.
    Loopback,
    /// One link.
    LinkLocal,
    /// Routed (private or global).
    Routed,
}

/// The IPv4 address an IPv4-mapped IPv6 address stands for.
fn unmapped(a: &IpAddr) -> IpAddr {
    match a {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => *a,
        },
        IpAddr::V4(_) => *a,
    }
}

/// The scope of an address (an IPv4-mapped one has its IPv4 scope).
pub fn scope(a: &IpAddr) -> Scope {
    match unmapped(a) {
        IpAddr::V4(v4) if v4.is_loopback() => Scope::Loopback,
        IpAddr::V4(v4) if v4.is_link_local() => Scope::LinkLocal,
        IpAddr::V6(v6) if v6.is_loopback() => Scope::Loopback,
        IpAddr::V6(v6) if v6.is_unicast_link_local() => Scope::LinkLocal,
        _ => Scope::Routed,
    }
}

/// Addresses that can never be a peer's transport address, whoever
/// names them.
pub fn never_usable(a: &IpAddr) -> bool {
    match unmapped(a) {
        // 0.0.0.0/8 ("this network", RFC 1122 3.2.1.3) holds 0.0.0.0.
        IpAddr::V4(v4) => v4.octets()[0] == 0 || v4.is_broadcast() || v4.is_multicast(),
        IpAddr::V6(v6) => v6.is_unspecified() || v6.is_multicast(),
    }
}

/// May a peer whose packet came from `src` list `listed` as one of its
/// addresses, to an endpoint with the local addresses `local`?
pub fn acceptable(listed: &IpAddr, src: &IpAddr, local: &[IpAddr]) -> bool {
    if never_usable(listed) || (local.contains(listed) && !local.contains(src)) {
        return false;
    }
    match scope(listed) {
        Scope::Loopback => scope(src) == Scope::Loopback,
        Scope::LinkLocal => scope(src) <= Scope::LinkLocal,
        Scope::Routed => true,
    }
}

/// The peer's transport addresses from a packet's source `src` and the
/// addresses it lists: `src` first (and `also`, another source, when
/// given), then each acceptable listed address once, in the order
/// listed, at most `max` in all. Linear in the length of `listed`.
pub fn transport_addresses(
    src: IpAddr,
    also: Option<IpAddr>,
    listed: &[IpAddr],
    local: &[IpAddr],
    max: usize,
) -> Vec<IpAddr> {
    let mut out = Vec::with_capacity(listed.len().min(max) + 2);
    let mut seen = HashSet::with_capacity(out.capacity());
    // The sources are packets' own: kept whatever their scope (the
    // endpoint has already refused non-unicast sources).
    let sources = std::iter::once(src).chain(also).map(|a| (a, true));
    let others = listed.iter().map(|a| (*a, false));
    for (a, is_source) in sources.chain(others) {
        if out.len() >= max {
            break;
        }
        if (is_source || acceptable(&a, &src, local)) && seen.insert(a) {
            out.push(a);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_routed_peer_cannot_list_loopback_link_local_broadcast_or_our_own_addresses() {
        let src = ip("198.51.100.7");
        let local = [ip("203.0.113.1")];
        for bad in [
            "127.0.0.1",
            "127.9.9.9",
            "::1",
            "169.254.1.1",
            "fe80::1",
            "255.255.255.255",
            "0.0.0.0",
            "0.1.2.3",
            "224.0.0.1",
            "ff02::1",
            "::",
            "::ffff:224.0.0.1",
            "::ffff:127.0.0.1",
            "::ffff:255.255.255.255",
            "203.0.113.1",
        ] {
            assert!(!acceptable(&ip(bad), &src, &local), "{bad} accepted");
        }
        for good in [
            "10.1.0.2",
            "192.168.3.4",
            "198.51.100.8",
            "2001:db8::1",
            "fd00::1",
        ] {
            assert!(acceptable(&ip(good), &src, &local), "{good} refused");
        }
    }

    #[test]
    fn a_peer_on_this_host_may_share_our_addresses() {
        // Two endpoints of one host on other SCTP ports (loopback tests,
        // a multi-homed host talking to itself).
        let local = [ip("127.0.0.1"), ip("127.0.0.2")];
        assert!(acceptable(&ip("127.0.0.2"), &ip("127.0.0.1"), &local));
        let local = [ip("10.0.0.1"), ip("10.0.1.1")];
        assert!(acceptable(&ip("10.0.1.1"), &ip("10.0.0.1"), &local));
        assert!(!acceptable(&ip("10.0.1.1"), &ip("10.9.9.9"), &local));
    }

    #[test]
    fn narrow_scopes_are_accepted_from_peers_of_that_scope() {
        let none: [IpAddr; 0] = [];
        assert!(acceptable(&ip("127.0.0.2"), &ip("127.0.0.1"), &none));
        assert!(acceptable(&ip("169.254.0.9"), &ip("169.254.0.1"), &none));
        assert!(acceptable(&ip("fe80::2"), &ip("fe80::1"), &none));
        assert!(acceptable(&ip("fe80::2"), &ip("::1"), &none));
        assert!(!acceptable(&ip("127.0.0.2"), &ip("169.254.0.1"), &none));
    }

    #[test]
    fn the_list_keeps_the_source_first_each_address_once_and_at_most_max() {
        let listed: Vec<IpAddr> = ["10.0.0.2", "10.0.0.1", "127.0.0.1", "10.0.0.2", "10.0.0.3"]
            .iter()
            .map(|s| ip(s))
            .collect();
        let got = transport_addresses(ip("10.0.0.1"), None, &listed, &[], 16);
        assert_eq!(got, [ip("10.0.0.1"), ip("10.0.0.2"), ip("10.0.0.3")]);
        let got = transport_addresses(ip("10.0.0.1"), None, &listed, &[], 2);
        assert_eq!(got, [ip("10.0.0.1"), ip("10.0.0.2")]);
        let got = transport_addresses(ip("10.0.0.1"), Some(ip("10.0.0.3")), &listed, &[], 16);
        assert_eq!(got, [ip("10.0.0.1"), ip("10.0.0.3"), ip("10.0.0.2")]);
    }

    #[test]
    fn a_64_kib_list_with_repeats_keeps_each_address_once() {
        // 8 185 addresses (a 64 KiB INIT), most of them repeated.
        let listed: Vec<IpAddr> = (0..8185u32)
            .map(|i| IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + (i % 4000))))
            .collect();
        let got = transport_addresses(ip("10.0.0.0"), None, &listed, &[], usize::MAX);
        assert_eq!(got.len(), 4000);
    }
}
