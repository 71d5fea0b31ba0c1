//! SCTP over UDP (RFC 6951): one UDP socket per local address, all on the
//! local encapsulation port, so that each path leaves from the interface
//! its source address belongs to; and the remote encapsulation port of
//! each association's peer addresses, learned from the packets it
//! accepts (the decapsulation procedure of section 5).

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::task::{Context, Poll};

use socket2::{Domain, Protocol, Socket, Type};
use tokio::net::UdpSocket;

use msctp_proto::AssocId;

use crate::error::NetError;
use crate::udp::Batcher;

/// A UDP socket bound to one local address, with its batching state
/// (offloads the kernel granted, reused receive slots).
#[derive(Debug)]
pub struct LocalSocket {
    pub addr: IpAddr,
    pub sock: UdpSocket,
    pub batch: Batcher,
}

/// How a socket is opened.
#[derive(Debug, Clone, Copy)]
pub struct SocketOptions {
    /// SO_RCVBUF and SO_SNDBUF, bytes.
    pub buffer: usize,
    /// Largest datagram read.
    pub max_datagram: usize,
    /// Ask for UDP GSO and GRO.
    pub offload: bool,
    /// DF on every datagram and ICMP errors queued (PLPMTUD,
    /// [`crate::udp::enable_plpmtud`]).
    pub pmtud: bool,
}

/// Opens a UDP socket on `addr`:`port` (non-blocking, IPv6-only for IPv6
/// addresses so that the IPv4 socket of the same port can coexist).
pub fn bind(addr: IpAddr, port: u16, opts: SocketOptions) -> Result<LocalSocket, NetError> {
    let buffer = opts.buffer;
    let fail = |source: io::Error| match source.kind() {
        io::ErrorKind::AddrInUse => NetError::PortInUse { addr, port },
        io::ErrorKind::AddrNotAvailable => NetError::AddressNotLocal { addr },
        _ => NetError::Socket { addr, port, source },
    };
    let domain = if addr.is_ipv4() {
        Domain::IPV4
    } else {
        Domain::IPV6
    };
    let s = Socket::new(domain, Type::DGRAM, Some(Protocol::UDP)).map_err(fail)?;
    if addr.is_ipv6() {
        s.set_only_v6(true).map_err(fail)?;
    }
    // Buffers are a hint; the kernel caps them (net.core.rmem_max).
    let _ = s.set_recv_buffer_size(buffer);
    let _ = s.set_send_buffer_size(buffer);
    s.set_nonblocking(true).map_err(fail)?;
    if opts.pmtud {
        use std::os::fd::AsRawFd;
        crate::udp::enable_plpmtud(s.as_raw_fd(), addr.is_ipv6()).map_err(fail)?;
    }
    s.bind(&SocketAddr::new(addr, port).into()).map_err(fail)?;
    let batch = {
        use std::os::fd::AsRawFd;
        Batcher::new(s.as_raw_fd(), opts.max_datagram, opts.offload)
    };
    let std_sock: std::net::UdpSocket = s.into();
    let sock = UdpSocket::from_std(std_sock).map_err(fail)?;
    Ok(LocalSocket { addr, sock, batch })
}

/// The sockets of a stack.
#[derive(Debug, Default)]
pub struct SocketSet {
    pub socks: Vec<LocalSocket>,
}

impl SocketSet {
    pub fn addrs(&self) -> Vec<IpAddr> {
        self.socks.iter().map(|s| s.addr).collect()
    }

    pub fn contains(&self, addr: IpAddr) -> bool {
        self.socks.iter().any(|s| s.addr == addr)
    }

    pub fn remove(&mut self, addr: IpAddr) {
        self.socks.retain(|s| s.addr != addr);
    }

    /// Polls every socket for readability: the index of one that has
    /// datagrams queued (or an error to read).
    pub fn poll_readable(&self, cx: &mut Context<'_>) -> Poll<usize> {
        for (i, s) in self.socks.iter().enumerate() {
            if s.sock.poll_recv_ready(cx).is_ready() {
                return Poll::Ready(i);
            }
        }
        Poll::Pending
    }

    /// Index of the socket to send from: the one bound to `source`; if
    /// that address has no socket (the host lost it), one bound to an
    /// address `stand_in` accepts; with no source, the first of the
    /// destination's family. A packet must never leave from an address
    /// its peer does not know: it would be out of the blue there and
    /// answered with an ABORT (RFC 9260 section 8.4).
    pub fn index_for(
        &self,
        source: Option<IpAddr>,
        dest: IpAddr,
        stand_in: impl Fn(IpAddr) -> bool,
    ) -> Option<usize> {
        let family = |s: &&LocalSocket| s.addr.is_ipv4() == dest.is_ipv4();
        match source {
            Some(a) => self.socks.iter().position(|s| s.addr == a).or_else(|| {
                self.socks
                    .iter()
                    .position(|s| family(&s) && stand_in(s.addr))
            }),
            None => self.socks.iter().position(|s| family(&s)),
        }
    }
}

/// Remote UDP encapsulation ports (RFC 6951 section 5, decapsulation):
/// per association and peer address, the UDP source port of the last
/// packet from that address that the association accepted (it passed the
/// verification-tag check). Two peers behind one NAT share an IP address but not a port,
/// and a NAT that rebinds changes the port of one association's address
/// only; keying by the address alone mixed them up.
#[derive(Debug, Default)]
pub struct RemotePorts {
    learned: HashMap<(AssocId, IpAddr), u16>,
    max_entries: usize,
}

impl RemotePorts {
    pub fn new(max_entries: usize) -> Self {
        RemotePorts {
            learned: HashMap::new(),
            max_entries,
        }
    }

    /// Records the source port of a packet from `addr` that association
    /// `id` accepted. Returns the port known before (`None`: the first
    /// packet from that address); a different one is a rebinding.
    pub fn learn(&mut self, id: AssocId, addr: IpAddr, port: u16) -> Option<u16> {
        let before = self.learned.get(&(id, addr)).copied();
        if before == Some(port) {
            return before;
        }
        if self.learned.len() >= self.max_entries && !self.learned.contains_key(&(id, addr)) {
            // Bounded: forget an arbitrary entry (it is learned again from
            // the next packet of that peer address).
            if let Some(k) = self.learned.keys().next().copied() {
                self.learned.remove(&k);
            }
        }
        self.learned.insert((id, addr), port);
        before
    }

    pub fn get(&self, id: AssocId, addr: IpAddr) -> Option<u16> {
        self.learned.get(&(id, addr)).copied()
    }

    /// Forgets the ports of associations that `keep` rejects.
    pub fn retain(&mut self, mut keep: impl FnMut(AssocId) -> bool) {
        self.learned.retain(|(id, _), _| keep(*id));
    }

    pub fn len(&self) -> usize {
        self.learned.len()
    }

    pub fn is_empty(&self) -> bool {
        self.learned.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn bind_reports_port_in_use_and_foreign_addresses() {
        let lo: IpAddr = "127.0.0.1".parse().unwrap();
        let o = SocketOptions {
            buffer: 1 << 16,
            max_datagram: 65_535,
            offload: true,
            pmtud: false,
        };
        let a = bind(lo, 0, o).unwrap();
        let port = a.sock.local_addr().unwrap().port();
        match bind(lo, port, o) {
            Err(NetError::PortInUse { port: p, .. }) => assert_eq!(p, port),
            other => panic!("expected PortInUse, got {other:?}"),
        }
        // 192.0.2.1 (TEST-NET-1) is never a local address.
        match bind("192.0.2.1".parse().unwrap(), 0, o) {
            Err(NetError::AddressNotLocal { .. }) => {}
            other => panic!("expected AddressNotLocal, got {other:?}"),
        }
    }

    /// A source the host no longer has is replaced only by an address the
    /// caller vouches for (one the peer knows), never by just any socket:
    /// a packet from an address the peer never heard of is out of the
    /// blue there and answered with an ABORT.
    #[tokio::test]
    async fn a_lost_source_is_stood_in_for_only_by_a_known_address() {
        let o = SocketOptions {
            buffer: 1 << 16,
            max_datagram: 65_535,
            offload: false,
            pmtud: false,
        };
        let (l1, l2): (IpAddr, IpAddr) =
            ("127.0.0.1".parse().unwrap(), "127.0.0.2".parse().unwrap());
        let mut set = SocketSet::default();
        set.socks.push(bind(l1, 0, o).unwrap());
        set.socks.push(bind(l2, 0, o).unwrap());
        let gone: IpAddr = "127.0.0.9".parse().unwrap();
        let peer: IpAddr = "127.0.0.5".parse().unwrap();
        assert_eq!(set.index_for(Some(l2), peer, |_| false), Some(1));
        assert_eq!(set.index_for(Some(gone), peer, |_| false), None);
        assert_eq!(set.index_for(Some(gone), peer, |a| a == l2), Some(1));
        assert_eq!(set.index_for(None, peer, |_| false), Some(0));
        let v6: IpAddr = "::1".parse().unwrap();
        assert_eq!(
            set.index_for(Some(gone), v6, |_| true),
            None,
            "no IPv6 socket"
        );
    }

    #[test]
    fn remote_ports_are_learned_per_association_and_bounded() {
        let mut r = RemotePorts::new(3);
        let (x, y) = (AssocId(1), AssocId(2));
        let nat: IpAddr = "10.0.0.1".parse().unwrap();
        assert_eq!(r.get(x, nat), None);
        assert_eq!(r.learn(x, nat, 40000), None);
        assert_eq!(r.learn(x, nat, 40000), Some(40000), "same port");
        // A second mobile behind the same NAT address.
        assert_eq!(r.learn(y, nat, 40001), None);
        assert_eq!(r.get(x, nat), Some(40000));
        assert_eq!(r.get(y, nat), Some(40001));
        // The NAT rebinds x's mapping: only x's port changes.
        assert_eq!(r.learn(x, nat, 41000), Some(40000));
        assert_eq!((r.get(x, nat), r.get(y, nat)), (Some(41000), Some(40001)));
        r.learn(x, "10.0.0.2".parse().unwrap(), 1);
        r.learn(x, "10.0.0.3".parse().unwrap(), 2);
        assert_eq!(r.len(), 3, "bounded");
        r.retain(|id| id != x);
        assert_eq!(r.len(), r.get(y, nat).map_or(0, |_| 1));
    }
}
