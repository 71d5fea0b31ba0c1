//! The source address of each path, as a multi-homed host's kernel would
//! choose it: a packet to a peer address leaves from a local address of
//! the interface the kernel's route to that peer address uses.
//!
//! The engine names a source per path (the path's own, the association's
//! local primary, or the first usable address). When the kernel's route
//! from that source to the peer goes out another interface, the packet
//! would leave that interface with a foreign source (a weak-host send):
//! answers, and ICMP errors such as Packet Too Big (RFC 6951 section
//! 5.6, RFC 8899 section 4.6), are routed back towards the other
//! interface and may never arrive. Linux's own SCTP picks, per path, a
//! bound address on the route's output device (`sctp_v4_get_dst`); so
//! does this: the engine's source is kept when its route (RTM_GETROUTE
//! with that source, policy routing included) leaves from the source's
//! own interface, and is otherwise replaced by the route's preferred
//! source (RTA_PREFSRC of the lookup without source), if the association
//! may use it.
//!
//! Lookups are rtnetlink requests (rtnetlink(7)), answered at once by the
//! kernel; their results are cached per (source, destination) for
//! [`REFRESH`] and dropped when local addresses change.

use std::collections::HashMap;
use std::io;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use netlink_packet_core::{NLM_F_REQUEST, NetlinkHeader, NetlinkMessage, NetlinkPayload};
use netlink_packet_route::route::{RouteAddress, RouteAttribute, RouteHeader, RouteMessage};
use netlink_packet_route::{AddressFamily, RouteNetlinkMessage};
use netlink_sys::protocols::NETLINK_ROUTE;
use netlink_sys::{Socket, SocketAddr};

use crate::monitor::{self, IfaceChange};

/// How long a lookup's result is used before it is made again (routes
/// change without the addresses changing).
pub const REFRESH: Duration = Duration::from_secs(1);
/// Cached (source, destination) pairs at most; beyond, the cache starts
/// over.
pub const MAX_ENTRIES: usize = 4096;
/// Reads of one lookup's answer at most.
const MAX_READS: usize = 16;

/// The kernel's route to a destination: its output interface and its
/// preferred source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Route {
    pub oif: Option<u32>,
    pub pref_src: Option<IpAddr>,
}

/// One rtnetlink socket for route lookups.
pub struct RouteLookup {
    socket: Socket,
    seq: u32,
}

impl std::fmt::Debug for RouteLookup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RouteLookup")
    }
}

impl RouteLookup {
    pub fn new() -> io::Result<Self> {
        let mut socket = Socket::new(NETLINK_ROUTE)?;
        socket.bind_auto()?;
        socket.connect(&SocketAddr::new(0, 0))?;
        // The kernel answers a lookup synchronously; a bound on the wait
        // anyway, so that a lost answer cannot stall the driver.
        set_recv_timeout(&socket, Duration::from_millis(50))?;
        Ok(RouteLookup { socket, seq: 0 })
    }

    /// The route to `dest`, from `src` if given (RTM_GETROUTE).
    pub fn get(&mut self, dest: IpAddr, src: Option<IpAddr>) -> io::Result<Route> {
        self.seq = self.seq.wrapping_add(1);
        let seq = self.seq;
        let mut m = RouteMessage::default();
        let bits = if dest.is_ipv4() { 32 } else { 128 };
        m.header.address_family = if dest.is_ipv4() {
            AddressFamily::Inet
        } else {
            AddressFamily::Inet6
        };
        m.header.destination_prefix_length = bits;
        m.header.table = RouteHeader::RT_TABLE_UNSPEC;
        m.attributes
            .push(RouteAttribute::Destination(RouteAddress::from(dest)));
        if let Some(s) = src.filter(|s| s.is_ipv4() == dest.is_ipv4()) {
            m.header.source_prefix_length = bits;
            m.attributes
                .push(RouteAttribute::Source(RouteAddress::from(s)));
        }
        let mut packet = NetlinkMessage::new(
            NetlinkHeader::default(),
            NetlinkPayload::from(RouteNetlinkMessage::GetRoute(m)),
        );
        packet.header.flags = NLM_F_REQUEST;
        packet.header.sequence_number = seq;
        packet.finalize();
        let mut buf = vec![0; packet.buffer_len()];
        packet.serialize(&mut buf[..]);
        self.socket.send(&buf, 0)?;
        for _ in 0..MAX_READS {
            let (buf, _) = self.socket.recv_from_full()?;
            if let Some(r) = parse_answer(&buf, seq)? {
                return Ok(r);
            }
        }
        Err(io::Error::other("no answer to the route lookup"))
    }
}

fn set_recv_timeout(socket: &Socket, t: Duration) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let tv = libc::timeval {
        tv_sec: t.as_secs() as libc::time_t,
        tv_usec: t.subsec_micros() as libc::suseconds_t,
    };
    // SAFETY: a valid socket descriptor and a timeval of the right size.
    let r = unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVTIMEO,
            (&tv as *const libc::timeval).cast(),
            std::mem::size_of::<libc::timeval>() as libc::socklen_t,
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The route in an answer to request `seq`; `None` if the buffer holds
/// no answer to it; an error if the kernel refused (e.g. unreachable).
fn parse_answer(buf: &[u8], seq: u32) -> io::Result<Option<Route>> {
    let mut off = 0;
    while off < buf.len() {
        let Ok(msg) = NetlinkMessage::<RouteNetlinkMessage>::deserialize(&buf[off..]) else {
            break;
        };
        let len = msg.header.length as usize;
        if msg.header.sequence_number == seq {
            match msg.payload {
                NetlinkPayload::InnerMessage(RouteNetlinkMessage::NewRoute(r)) => {
                    let mut out = Route::default();
                    for a in &r.attributes {
                        match a {
                            RouteAttribute::Oif(i) => out.oif = Some(*i),
                            RouteAttribute::PrefSource(RouteAddress::Inet(v)) => {
                                out.pref_src = Some(IpAddr::V4(*v))
                            }
                            RouteAttribute::PrefSource(RouteAddress::Inet6(v)) => {
                                out.pref_src = Some(IpAddr::V6(*v))
                            }
                            _ => {}
                        }
                    }
                    return Ok(Some(out));
                }
                NetlinkPayload::Error(e) => {
                    return Err(e
                        .code
                        .map(|c| io::Error::from_raw_os_error(-c.get()))
                        .unwrap_or_else(|| io::Error::other("empty route answer")));
                }
                _ => {}
            }
        }
        if len == 0 {
            break;
        }
        off += (len + 3) & !3;
    }
    Ok(None)
}

/// The per-path source choice with its cache.
#[derive(Debug, Default)]
pub struct Sources {
    lookup: Option<RouteLookup>,
    /// The lookup socket could not be opened: the engine's sources stand.
    failed: bool,
    /// (engine's source, destination) -> source to use, and when found.
    cache: HashMap<(IpAddr, IpAddr), (IpAddr, Instant)>,
    /// Local address -> interface index, and when read.
    ifaces: HashMap<IpAddr, u32>,
    ifaces_at: Option<Instant>,
    /// Sources replaced, for the statistics.
    pub replaced: u64,
}

impl Sources {
    /// Forgets every result (local addresses changed).
    pub fn invalidate(&mut self) {
        self.cache.clear();
        self.ifaces_at = None;
    }

    /// The source for a packet from `src` (the engine's choice) to
    /// `dest`; `usable` says whether the association may send from an
    /// address. Any lookup failure keeps `src`.
    pub fn choose(
        &mut self,
        now: Instant,
        src: IpAddr,
        dest: IpAddr,
        usable: impl Fn(IpAddr) -> bool,
    ) -> IpAddr {
        if self.failed || src.is_loopback() || dest.is_loopback() || src == dest {
            return src;
        }
        if let Some(&(s, at)) = self.cache.get(&(src, dest))
            && now.duration_since(at) < REFRESH
        {
            // A replacement must still be usable: the association may
            // have deleted it since (ASCONF), and a packet from it would
            // be out of the blue at the peer.
            if s == src || usable(s) {
                return s;
            }
            self.cache.remove(&(src, dest));
            return src;
        }
        let chosen = self.look_up(now, src, dest, usable).unwrap_or(src);
        if self.cache.len() >= MAX_ENTRIES {
            self.cache.clear();
        }
        self.cache.insert((src, dest), (chosen, now));
        if chosen != src {
            tracing::debug!("to {dest}: source {chosen} (the route's), not {src}");
        }
        chosen
    }

    fn look_up(
        &mut self,
        now: Instant,
        src: IpAddr,
        dest: IpAddr,
        usable: impl Fn(IpAddr) -> bool,
    ) -> Option<IpAddr> {
        if self.lookup.is_none() {
            match RouteLookup::new() {
                Ok(l) => self.lookup = Some(l),
                Err(e) => {
                    tracing::debug!("no route lookups ({e}): the engine's sources are used");
                    self.failed = true;
                    return None;
                }
            }
        }
        if self
            .ifaces_at
            .is_none_or(|at| now.duration_since(at) >= REFRESH)
        {
            self.ifaces = monitor::dump()
                .ok()?
                .into_iter()
                .filter_map(|c| match c {
                    IfaceChange::AddrAdded { index, addr, .. } => Some((addr, index)),
                    _ => None,
                })
                .collect();
            self.ifaces_at = Some(now);
        }
        let lookup = self.lookup.as_mut()?;
        let from_src = lookup.get(dest, Some(src)).ok()?;
        let own = self.ifaces.get(&src).copied();
        if from_src.oif.is_none() || own.is_none() || from_src.oif == own {
            // The route from the engine's source leaves from its own
            // interface (or nothing better is known).
            return Some(src);
        }
        let plain = lookup.get(dest, None).ok()?;
        let pref = plain.pref_src?;
        if pref != src && usable(pref) {
            self.replaced += 1;
            Some(pref)
        } else {
            Some(src)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_sources_are_left_alone() {
        let mut s = Sources::default();
        let lo: IpAddr = "127.0.0.1".parse().unwrap();
        let other: IpAddr = "10.9.9.9".parse().unwrap();
        assert_eq!(s.choose(Instant::now(), lo, other, |_| true), lo);
        assert!(s.cache.is_empty(), "no lookup for loopback");
    }

    #[test]
    fn an_error_answer_is_an_error_not_a_route() {
        // NLMSG_ERROR (type 2) for sequence 7 with -ENETUNREACH.
        let mut b = Vec::new();
        b.extend_from_slice(&36u32.to_ne_bytes());
        b.extend_from_slice(&2u16.to_ne_bytes());
        b.extend_from_slice(&0u16.to_ne_bytes());
        b.extend_from_slice(&7u32.to_ne_bytes());
        b.extend_from_slice(&0u32.to_ne_bytes());
        b.extend_from_slice(&(-libc::ENETUNREACH).to_ne_bytes());
        b.extend_from_slice(&[0u8; 16]);
        let e = parse_answer(&b, 7).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENETUNREACH));
        assert!(parse_answer(&b, 8).unwrap().is_none(), "another request's");
    }
}
