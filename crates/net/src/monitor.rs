//! The interface monitor: Linux rtnetlink (RTM_NEWLINK / RTM_DELLINK /
//! RTM_NEWADDR / RTM_DELADDR, the `RTMGRP_LINK` and `RTMGRP_IPV*_IFADDR`
//! multicast groups; see rtnetlink(7)) read with `netlink-sys` and parsed
//! with `netlink-packet-route`. It reports links going up or down
//! (`IFF_RUNNING`, which follows the carrier) and addresses appearing or
//! going; [`Interfaces`] keeps the table and turns changes into the
//! handover policies' [`LinkEvent`]s.

use std::collections::BTreeMap;
use std::io;
use std::net::IpAddr;

use netlink_packet_core::{
    NLM_F_DUMP, NLM_F_REQUEST, NetlinkHeader, NetlinkMessage, NetlinkPayload,
};
use netlink_packet_route::RouteNetlinkMessage;
use netlink_packet_route::address::{AddressAttribute, AddressFlags, AddressMessage};
use netlink_packet_route::link::{LinkAttribute, LinkFlags, LinkMessage};
use netlink_sys::protocols::NETLINK_ROUTE;
use netlink_sys::{AsyncSocket, AsyncSocketExt, Socket, SocketAddr, TokioSocket};

use msctp_proto::policy::LinkEvent;

/// `RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR` (linux/rtnetlink.h).
const GROUPS: u32 = 0x1 | 0x10 | 0x100;

/// One change of the host's interfaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IfaceChange {
    /// A link exists with this state (`up`: administratively up and
    /// running, i.e. carrier present).
    Link {
        index: u32,
        name: String,
        up: bool,
    },
    LinkRemoved {
        index: u32,
    },
    /// A usable address (not tentative, not failed duplicate detection).
    AddrAdded {
        index: u32,
        addr: IpAddr,
        prefix_len: u8,
    },
    AddrRemoved {
        index: u32,
        addr: IpAddr,
    },
}

fn link_change(m: &LinkMessage, removed: bool) -> IfaceChange {
    let index = m.header.index;
    if removed {
        return IfaceChange::LinkRemoved { index };
    }
    let name = m
        .attributes
        .iter()
        .find_map(|a| match a {
            LinkAttribute::IfName(n) => Some(n.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let f = m.header.flags;
    let up = f.contains(LinkFlags::Up) && f.contains(LinkFlags::Running);
    IfaceChange::Link { index, name, up }
}

fn addr_change(m: &AddressMessage, removed: bool) -> Option<IfaceChange> {
    let index = m.header.index;
    // IFA_LOCAL is the interface's own address on point-to-point links;
    // IFA_ADDRESS otherwise.
    let local = m.attributes.iter().find_map(|a| match a {
        AddressAttribute::Local(x) => Some(*x),
        _ => None,
    });
    let address = m.attributes.iter().find_map(|a| match a {
        AddressAttribute::Address(x) => Some(*x),
        _ => None,
    });
    let addr = local.or(address)?;
    let flags = m.attributes.iter().find_map(|a| match a {
        AddressAttribute::Flags(f) => Some(*f),
        _ => None,
    });
    let unusable = flags.is_some_and(|f| {
        f.contains(AddressFlags::Tentative) || f.contains(AddressFlags::Dadfailed)
    });
    if removed || unusable {
        return Some(IfaceChange::AddrRemoved { index, addr });
    }
    Some(IfaceChange::AddrAdded {
        index,
        addr,
        prefix_len: m.header.prefix_len,
    })
}

/// Parses a buffer of netlink messages into interface changes; anything
/// else (errors, other message types, undecodable messages) is skipped.
pub fn parse(buf: &[u8]) -> (Vec<IfaceChange>, bool) {
    let mut out = Vec::new();
    let mut done = false;
    let mut off = 0;
    while off < buf.len() {
        let Ok(msg) = NetlinkMessage::<RouteNetlinkMessage>::deserialize(&buf[off..]) else {
            break;
        };
        let len = msg.header.length as usize;
        match msg.payload {
            NetlinkPayload::InnerMessage(m) => match m {
                RouteNetlinkMessage::NewLink(l) => out.push(link_change(&l, false)),
                RouteNetlinkMessage::DelLink(l) => out.push(link_change(&l, true)),
                RouteNetlinkMessage::NewAddress(a) => out.extend(addr_change(&a, false)),
                RouteNetlinkMessage::DelAddress(a) => out.extend(addr_change(&a, true)),
                _ => {}
            },
            NetlinkPayload::Done(_) | NetlinkPayload::Error(_) => done = true,
            _ => {}
        }
        if len == 0 {
            break;
        }
        off += (len + 3) & !3;
    }
    (out, done)
}

fn request(msg: RouteNetlinkMessage, seq: u32) -> Vec<u8> {
    let mut packet = NetlinkMessage::new(NetlinkHeader::default(), NetlinkPayload::from(msg));
    packet.header.flags = NLM_F_DUMP | NLM_F_REQUEST;
    packet.header.sequence_number = seq;
    packet.finalize();
    let mut buf = vec![0; packet.buffer_len()];
    packet.serialize(&mut buf[..]);
    buf
}

/// The current links and addresses (a blocking netlink dump).
pub fn dump() -> io::Result<Vec<IfaceChange>> {
    let mut socket = Socket::new(NETLINK_ROUTE)?;
    socket.bind_auto()?;
    socket.connect(&SocketAddr::new(0, 0))?;
    let mut out = Vec::new();
    for (seq, msg) in [
        RouteNetlinkMessage::GetLink(LinkMessage::default()),
        RouteNetlinkMessage::GetAddress(AddressMessage::default()),
    ]
    .into_iter()
    .enumerate()
    {
        socket.send(&request(msg, seq as u32 + 1), 0)?;
        // A dump ends with NLMSG_DONE; bound the number of reads anyway.
        for _ in 0..10_000 {
            let (buf, _) = socket.recv_from_full()?;
            let (changes, done) = parse(&buf);
            out.extend(changes);
            if done {
                break;
            }
        }
    }
    Ok(out)
}

/// A netlink socket subscribed to link and address changes.
pub struct Subscription {
    socket: TokioSocket,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Subscription")
    }
}

impl Subscription {
    /// Subscribes (inside a Tokio runtime). Open it before [`dump`] so no
    /// change falls between the two.
    pub fn new() -> io::Result<Self> {
        let mut socket = TokioSocket::new(NETLINK_ROUTE)?;
        socket.socket_mut().bind(&SocketAddr::new(0, GROUPS))?;
        Ok(Subscription { socket })
    }

    /// The next batch of changes.
    pub async fn next(&mut self) -> io::Result<Vec<IfaceChange>> {
        loop {
            let (buf, _) = self.socket.recv_from_full().await?;
            let (changes, _) = parse(&buf);
            if !changes.is_empty() {
                return Ok(changes);
            }
        }
    }
}

/// One interface as the monitor knows it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Iface {
    pub name: String,
    pub up: bool,
    /// Addresses with their prefix length.
    pub addrs: Vec<(IpAddr, u8)>,
}

/// The host's interfaces, kept up to date from [`IfaceChange`]s.
#[derive(Debug, Clone, Default)]
pub struct Interfaces {
    pub ifaces: BTreeMap<u32, Iface>,
    /// Names followed; empty: all but loopback.
    pub follow: Vec<String>,
    /// Usable addresses followed interfaces lost, newest last, with the
    /// interface that held them (at most [`GONE_KEPT`]): an association
    /// set up while its address went away still lists it, and its policy
    /// learns of the loss when it starts ([`Interfaces::lost_events`]).
    gone: std::collections::VecDeque<(IpAddr, u32)>,
}

/// Lost addresses [`Interfaces`] remembers.
pub const GONE_KEPT: usize = 64;

impl Interfaces {
    pub fn new(follow: Vec<String>) -> Self {
        Interfaces {
            ifaces: BTreeMap::new(),
            follow,
            gone: Default::default(),
        }
    }

    /// Is the interface one the stack uses?
    pub fn followed(&self, index: u32) -> bool {
        let Some(i) = self.ifaces.get(&index) else {
            return false;
        };
        if self.follow.is_empty() {
            i.name != "lo"
        } else {
            self.follow.contains(&i.name)
        }
    }

    /// Applies a change and returns the policy events it means (only for
    /// followed interfaces, only when something actually changed).
    pub fn apply(&mut self, c: &IfaceChange) -> Vec<LinkEvent> {
        let mut ev = Vec::new();
        match c {
            IfaceChange::Link { index, name, up } => {
                let i = self.ifaces.entry(*index).or_default();
                let was = i.up;
                let first = i.name.is_empty();
                i.name = name.clone();
                i.up = *up;
                if self.followed(*index) && (first || was != *up) {
                    ev.push(if *up {
                        LinkEvent::LinkUp { iface: *index }
                    } else {
                        LinkEvent::LinkDown { iface: *index }
                    });
                }
            }
            IfaceChange::LinkRemoved { index } => {
                let follow = self.followed(*index);
                if let Some(i) = self.ifaces.remove(index)
                    && follow
                {
                    for (addr, _) in i.addrs {
                        self.note_gone(addr, *index);
                        ev.push(LinkEvent::AddressLost {
                            iface: *index,
                            addr,
                        });
                    }
                    ev.push(LinkEvent::LinkDown { iface: *index });
                }
            }
            IfaceChange::AddrAdded {
                index,
                addr,
                prefix_len,
            } => {
                self.gone.retain(|(a, _)| a != addr);
                let i = self.ifaces.entry(*index).or_default();
                if !i.addrs.iter().any(|(a, _)| a == addr) {
                    i.addrs.push((*addr, *prefix_len));
                    if self.followed(*index) && usable(addr) {
                        ev.push(LinkEvent::AddressObtained {
                            iface: *index,
                            addr: *addr,
                        });
                    }
                }
            }
            IfaceChange::AddrRemoved { index, addr } => {
                if let Some(i) = self.ifaces.get_mut(index)
                    && let Some(k) = i.addrs.iter().position(|(a, _)| a == addr)
                {
                    i.addrs.remove(k);
                    if self.followed(*index) && usable(addr) {
                        self.note_gone(*addr, *index);
                        ev.push(LinkEvent::AddressLost {
                            iface: *index,
                            addr: *addr,
                        });
                    }
                }
            }
        }
        ev
    }

    /// The events that describe the current state (for a policy that
    /// starts now): link up/down and every usable address.
    pub fn snapshot_events(&self) -> Vec<LinkEvent> {
        let mut ev = Vec::new();
        for (&index, i) in &self.ifaces {
            if !self.followed(index) {
                continue;
            }
            ev.push(if i.up {
                LinkEvent::LinkUp { iface: index }
            } else {
                LinkEvent::LinkDown { iface: index }
            });
            for (addr, _) in &i.addrs {
                if usable(addr) {
                    ev.push(LinkEvent::AddressObtained {
                        iface: index,
                        addr: *addr,
                    });
                }
            }
        }
        ev
    }

    fn note_gone(&mut self, addr: IpAddr, index: u32) {
        self.gone.retain(|(a, _)| *a != addr);
        if self.gone.len() == GONE_KEPT {
            self.gone.pop_front();
        }
        self.gone.push_back((addr, index));
    }

    /// `AddressLost` for each of `locals` that a followed interface held
    /// and lost and no interface holds now: what a policy starting on an
    /// association set up during the loss must learn (the driver hands
    /// link events only to established associations). Addresses the
    /// monitor never saw go (e.g. configured on an interface not
    /// followed) are left alone.
    pub fn lost_events(&self, locals: &[IpAddr]) -> Vec<LinkEvent> {
        locals
            .iter()
            .filter(|a| self.iface_of(**a).is_none())
            .filter_map(|a| {
                self.gone
                    .iter()
                    .find(|(g, _)| g == a)
                    .map(|&(addr, iface)| LinkEvent::AddressLost { iface, addr })
            })
            .collect()
    }

    /// Usable addresses of followed interfaces.
    pub fn addresses(&self) -> Vec<IpAddr> {
        self.ifaces
            .iter()
            .filter(|(k, _)| self.followed(**k))
            .flat_map(|(_, i)| i.addrs.iter().map(|(a, _)| *a))
            .filter(usable)
            .collect()
    }

    /// The interface holding `addr`.
    pub fn iface_of(&self, addr: IpAddr) -> Option<u32> {
        self.ifaces
            .iter()
            .find(|(_, i)| i.addrs.iter().any(|(a, _)| *a == addr))
            .map(|(k, _)| *k)
    }

    pub fn is_up(&self, index: u32) -> bool {
        self.ifaces.get(&index).is_some_and(|i| i.up)
    }

    /// The local address on the same subnet as `peer` (the source that
    /// reaches it directly), if any.
    pub fn on_link_with(&self, peer: IpAddr, among: &[IpAddr]) -> Option<IpAddr> {
        let mut best: Option<(IpAddr, u8)> = None;
        for i in self.ifaces.values() {
            for &(a, len) in &i.addrs {
                if among.contains(&a)
                    && same_prefix(a, peer, len)
                    && best.is_none_or(|(_, l)| len > l)
                {
                    best = Some((a, len));
                }
            }
        }
        best.map(|(a, _)| a)
    }

    /// Names of the host's interfaces, in index order.
    pub fn names(&self) -> Vec<String> {
        self.ifaces.values().map(|i| i.name.clone()).collect()
    }

    /// Followed names that no interface has (yet).
    pub fn missing(&self) -> Vec<String> {
        self.follow
            .iter()
            .filter(|n| self.index_of(n).is_none())
            .cloned()
            .collect()
    }

    /// The interface index for a name.
    pub fn index_of(&self, name: &str) -> Option<u32> {
        self.ifaces
            .iter()
            .find(|(_, i)| i.name == name)
            .map(|(k, _)| *k)
    }
}

/// Addresses an association can use: not link-local IPv6 (they need a
/// scope), not multicast or unspecified.
pub fn usable(addr: &IpAddr) -> bool {
    match addr {
        IpAddr::V4(a) => !a.is_unspecified() && !a.is_multicast() && !a.is_link_local(),
        IpAddr::V6(a) => {
            !a.is_unspecified() && !a.is_multicast() && (a.segments()[0] & 0xffc0) != 0xfe80
        }
    }
}

/// Do `a` and `b` share the first `len` bits?
pub fn same_prefix(a: IpAddr, b: IpAddr, len: u8) -> bool {
    match (a, b) {
        (IpAddr::V4(x), IpAddr::V4(y)) => {
            let len = u32::from(len.min(32));
            let mask = if len == 0 { 0 } else { u32::MAX << (32 - len) };
            (u32::from(x) & mask) == (u32::from(y) & mask)
        }
        (IpAddr::V6(x), IpAddr::V6(y)) => {
            let len = u32::from(len.min(128));
            let mask = if len == 0 {
                0
            } else {
                u128::MAX << (128 - len)
            };
            (u128::from(x) & mask) == (u128::from(y) & mask)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    /// An address lost while an association was being set up is reported
    /// to the policy that starts on it; one that came back, one the
    /// monitor never saw, and one on an interface not followed are not.
    #[test]
    fn lost_events_name_what_the_host_lost_and_nothing_else() {
        let mut t = Interfaces::new(vec!["s0".into()]);
        for (index, name) in [(3, "s0"), (4, "eth9")] {
            t.apply(&IfaceChange::Link {
                index,
                name: name.into(),
                up: true,
            });
        }
        let add = |t: &mut Interfaces, index, a: &str| {
            t.apply(&IfaceChange::AddrAdded {
                index,
                addr: ip(a),
                prefix_len: 24,
            })
        };
        let del = |t: &mut Interfaces, index, a: &str| {
            t.apply(&IfaceChange::AddrRemoved { index, addr: ip(a) })
        };
        add(&mut t, 3, "10.52.3.52");
        add(&mut t, 4, "192.0.2.7");
        // The single-radio move: the old address goes, a new one comes.
        del(&mut t, 3, "10.52.3.52");
        add(&mut t, 3, "10.52.2.221");
        del(&mut t, 4, "192.0.2.7");
        let locals = [
            ip("10.52.3.52"),
            ip("10.52.2.221"),
            ip("192.0.2.7"),
            ip("198.51.100.1"),
        ];
        assert_eq!(
            t.lost_events(&locals),
            vec![LinkEvent::AddressLost {
                iface: 3,
                addr: ip("10.52.3.52")
            }]
        );
        // It comes back: not lost any more.
        add(&mut t, 3, "10.52.3.52");
        assert!(t.lost_events(&locals).is_empty());
        // The memory is bounded.
        for k in 0..(GONE_KEPT as u8 + 10) {
            let a = format!("10.60.0.{k}");
            add(&mut t, 3, &a);
            del(&mut t, 3, &a);
        }
        assert_eq!(t.gone.len(), GONE_KEPT);
        assert!(t.lost_events(&[ip("10.60.0.0")]).is_empty(), "forgotten");
        assert_eq!(t.lost_events(&[ip("10.60.0.70")]).len(), 1);
    }

    #[test]
    fn table_turns_changes_into_policy_events() {
        let mut t = Interfaces::new(vec!["wlan0".into(), "wwan0".into()]);
        let ev = t.apply(&IfaceChange::Link {
            index: 3,
            name: "wlan0".into(),
            up: true,
        });
        assert_eq!(ev, vec![LinkEvent::LinkUp { iface: 3 }]);
        // Same state again: nothing new.
        assert!(
            t.apply(&IfaceChange::Link {
                index: 3,
                name: "wlan0".into(),
                up: true
            })
            .is_empty()
        );
        let ev = t.apply(&IfaceChange::AddrAdded {
            index: 3,
            addr: ip("10.1.0.2"),
            prefix_len: 24,
        });
        assert_eq!(
            ev,
            vec![LinkEvent::AddressObtained {
                iface: 3,
                addr: ip("10.1.0.2")
            }]
        );
        // Link-local IPv6 is kept in the table but never offered.
        assert!(
            t.apply(&IfaceChange::AddrAdded {
                index: 3,
                addr: ip("fe80::1"),
                prefix_len: 64
            })
            .is_empty()
        );
        // An interface not followed.
        t.apply(&IfaceChange::Link {
            index: 1,
            name: "lo".into(),
            up: true,
        });
        assert!(
            t.apply(&IfaceChange::AddrAdded {
                index: 1,
                addr: ip("127.0.0.1"),
                prefix_len: 8
            })
            .is_empty()
        );
        assert_eq!(t.addresses(), vec![ip("10.1.0.2")]);
        assert_eq!(
            t.on_link_with(ip("10.1.0.1"), &[ip("10.1.0.2")]),
            Some(ip("10.1.0.2"))
        );
        assert_eq!(t.on_link_with(ip("10.2.0.1"), &[ip("10.1.0.2")]), None);
        assert_eq!(
            t.apply(&IfaceChange::Link {
                index: 3,
                name: "wlan0".into(),
                up: false
            }),
            vec![LinkEvent::LinkDown { iface: 3 }]
        );
        assert_eq!(
            t.apply(&IfaceChange::AddrRemoved {
                index: 3,
                addr: ip("10.1.0.2")
            }),
            vec![LinkEvent::AddressLost {
                iface: 3,
                addr: ip("10.1.0.2")
            }]
        );
    }

    #[test]
    fn prefixes() {
        assert!(same_prefix(ip("10.1.0.2"), ip("10.1.0.1"), 24));
        assert!(!same_prefix(ip("10.1.0.2"), ip("10.2.0.1"), 24));
        assert!(same_prefix(ip("10.1.0.2"), ip("11.0.0.0"), 0));
        assert!(same_prefix(ip("2001:db8::1"), ip("2001:db8::2"), 64));
        assert!(!same_prefix(ip("2001:db8::1"), ip("10.0.0.1"), 0));
    }

    #[test]
    fn garbage_netlink_input_is_skipped() {
        let (c, done) = parse(&[1, 2, 3]);
        assert!(c.is_empty() && !done);
        let (c, _) = parse(&[0xff; 64]);
        assert!(c.is_empty());
    }

    #[test]
    fn the_dump_finds_loopback() {
        // Every network namespace has `lo`.
        let changes = dump().expect("netlink dump");
        assert!(
            changes
                .iter()
                .any(|c| matches!(c, IfaceChange::Link { name, .. } if name == "lo"))
        );
    }
}
