//! Batched UDP I/O (Linux): many datagrams per system call in both
//! directions, with the kernel's segmentation offload where it has it.
//!
//! - Receive: `recvmmsg` fills up to [`RECV_BATCH`] slots at once; with
//!   `UDP_GRO` on (Linux 5.0) one slot may hold several datagrams of one
//!   sender coalesced by the kernel, split again here by the segment size
//!   the kernel reports (a `UDP_GRO` control message). Payloads leave as
//!   [`Bytes`] without a copy when they fill at least half of their slot
//!   (a coalesced batch), and are copied into a buffer of their own size
//!   otherwise, so that a small datagram kept by the engine (received
//!   DATA waits for the application) never holds a 64 kB slot.
//! - Send: `sendmmsg` sends up to [`SEND_BATCH`] messages at once; with
//!   `UDP_SEGMENT` (GSO, Linux 4.18) a message carries up to
//!   [`MAX_SEGMENTS`] equal-size datagrams to one destination, which the
//!   kernel (or the NIC) cuts apart. The segments are gathered from the
//!   engine's packets with an `iovec` each: no copy in user space.
//!   Where the kernel or the device refuses GSO (`EIO`, `EINVAL`,
//!   `EOPNOTSUPP`), the socket falls back to one datagram per message,
//!   still batched by `sendmmsg`.
//!
//! Elsewhere than Linux every call reports `Unsupported` and the driver
//! uses Tokio's one-datagram calls.

use std::io;
use std::net::SocketAddr;

use bytes::{Bytes, BytesMut};

/// Messages (slots) per `recvmmsg` call.
pub const RECV_BATCH: usize = 32;
/// Messages per `sendmmsg` call.
pub const SEND_BATCH: usize = 64;
/// Most datagrams in one GSO message (the kernel's `UDP_MAX_SEGMENTS`).
pub const MAX_SEGMENTS: usize = 64;
/// Most bytes in one GSO message (an IP packet's limit, less headers).
pub const MAX_GSO_BYTES: usize = 65_000;

/// One datagram received.
#[derive(Debug, Clone)]
pub struct Datagram {
    pub from: SocketAddr,
    pub data: Bytes,
}

/// Datagrams to one destination, all of `segments[0].len()` bytes but
/// the last, which may be shorter: one GSO message (or one datagram).
#[derive(Debug)]
pub struct Train<'a> {
    pub to: SocketAddr,
    pub segments: &'a [&'a [u8]],
}

#[cfg(target_os = "linux")]
mod sys {
    use super::*;
    use std::mem::{size_of, zeroed};
    use std::net::{Ipv4Addr, Ipv6Addr, SocketAddrV4, SocketAddrV6};
    use std::os::fd::RawFd;

    fn last_err() -> io::Error {
        io::Error::last_os_error()
    }

    /// Turns UDP_GRO on; false if the kernel does not know it.
    pub fn enable_gro(fd: RawFd) -> bool {
        let on: libc::c_int = 1;
        // SAFETY: a valid option pointer and length for an int option.
        let r = unsafe {
            libc::setsockopt(
                fd,
                libc::SOL_UDP,
                libc::UDP_GRO,
                &on as *const _ as *const libc::c_void,
                size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        r == 0
    }

    /// Whether the kernel knows UDP_SEGMENT (GSO).
    pub fn gso_supported(fd: RawFd) -> bool {
        let mut v: libc::c_int = 0;
        let mut len = size_of::<libc::c_int>() as libc::socklen_t;
        // SAFETY: valid out pointers for an int option.
        let r = unsafe {
            libc::getsockopt(
                fd,
                libc::SOL_UDP,
                libc::UDP_SEGMENT,
                &mut v as *mut _ as *mut libc::c_void,
                &mut len,
            )
        };
        r == 0
    }

    pub fn to_sockaddr(a: &SocketAddr) -> (libc::sockaddr_storage, libc::socklen_t) {
        // SAFETY: sockaddr_storage is plain data; all-zero is valid.
        let mut ss: libc::sockaddr_storage = unsafe { zeroed() };
        let len = match a {
            SocketAddr::V4(v4) => {
                let sin = libc::sockaddr_in {
                    sin_family: libc::AF_INET as libc::sa_family_t,
                    sin_port: v4.port().to_be(),
                    sin_addr: libc::in_addr {
                        s_addr: u32::from_ne_bytes(v4.ip().octets()),
                    },
                    sin_zero: [0; 8],
                };
                // SAFETY: sockaddr_storage is larger than sockaddr_in and
                // suitably aligned.
                unsafe { std::ptr::write(&mut ss as *mut _ as *mut libc::sockaddr_in, sin) };
                size_of::<libc::sockaddr_in>()
            }
            SocketAddr::V6(v6) => {
                let sin6 = libc::sockaddr_in6 {
                    sin6_family: libc::AF_INET6 as libc::sa_family_t,
                    sin6_port: v6.port().to_be(),
                    sin6_flowinfo: v6.flowinfo(),
                    sin6_addr: libc::in6_addr {
                        s6_addr: v6.ip().octets(),
                    },
                    sin6_scope_id: v6.scope_id(),
                };
                // SAFETY: as above, for sockaddr_in6.
                unsafe { std::ptr::write(&mut ss as *mut _ as *mut libc::sockaddr_in6, sin6) };
                size_of::<libc::sockaddr_in6>()
            }
        };
        (ss, len as libc::socklen_t)
    }

    pub fn from_sockaddr(ss: &libc::sockaddr_storage) -> Option<SocketAddr> {
        match ss.ss_family as libc::c_int {
            libc::AF_INET => {
                // SAFETY: the family says it is a sockaddr_in.
                let sin = unsafe { &*(ss as *const _ as *const libc::sockaddr_in) };
                let ip = Ipv4Addr::from(sin.sin_addr.s_addr.to_ne_bytes());
                Some(SocketAddr::V4(SocketAddrV4::new(
                    ip,
                    u16::from_be(sin.sin_port),
                )))
            }
            libc::AF_INET6 => {
                // SAFETY: the family says it is a sockaddr_in6.
                let sin6 = unsafe { &*(ss as *const _ as *const libc::sockaddr_in6) };
                let ip = Ipv6Addr::from(sin6.sin6_addr.s6_addr);
                Some(SocketAddr::V6(SocketAddrV6::new(
                    ip,
                    u16::from_be(sin6.sin6_port),
                    sin6.sin6_flowinfo,
                    sin6.sin6_scope_id,
                )))
            }
            _ => None,
        }
    }

    /// Room for one control message with an int (UDP_GRO) or a u16
    /// (UDP_SEGMENT), 8-byte aligned.
    pub type Cmsg = [u64; 4];

    pub fn cmsg_space_int() -> usize {
        // SAFETY: pure arithmetic.
        unsafe { libc::CMSG_SPACE(size_of::<libc::c_int>() as u32) as usize }
    }

    /// recvmmsg into `slots` (each of `slot` bytes of spare capacity).
    /// Returns per message (length, source, GRO segment size).
    pub fn recvmmsg(
        fd: RawFd,
        slots: &mut [BytesMut],
        slot: usize,
        out: &mut Vec<(usize, SocketAddr, Option<usize>)>,
    ) -> io::Result<()> {
        let n = slots.len();
        // SAFETY: plain data, zero is a valid initial value.
        let mut names: Vec<libc::sockaddr_storage> = vec![unsafe { zeroed() }; n];
        let mut cmsgs: Vec<Cmsg> = vec![[0; 4]; n];
        let mut iovs: Vec<libc::iovec> = Vec::with_capacity(n);
        for s in slots.iter_mut() {
            s.reserve(slot);
            let spare = s.spare_capacity_mut();
            iovs.push(libc::iovec {
                iov_base: spare.as_mut_ptr() as *mut libc::c_void,
                iov_len: spare.len().min(slot),
            });
        }
        // SAFETY: plain data, zero is a valid initial value.
        let mut hdrs: Vec<libc::mmsghdr> = (0..n).map(|_| unsafe { zeroed() }).collect();
        for i in 0..n {
            let h = &mut hdrs[i].msg_hdr;
            h.msg_name = &mut names[i] as *mut _ as *mut libc::c_void;
            h.msg_namelen = size_of::<libc::sockaddr_storage>() as libc::socklen_t;
            h.msg_iov = &mut iovs[i];
            h.msg_iovlen = 1;
            h.msg_control = cmsgs[i].as_mut_ptr() as *mut libc::c_void;
            h.msg_controllen = std::mem::size_of::<Cmsg>() as _;
        }
        // SAFETY: every pointer in hdrs points into the vectors above,
        // alive and unmoved until the call returns.
        let r = unsafe {
            libc::recvmmsg(
                fd,
                hdrs.as_mut_ptr(),
                n as libc::c_uint,
                libc::MSG_DONTWAIT,
                std::ptr::null_mut(),
            )
        };
        if r < 0 {
            return Err(last_err());
        }
        for (i, h) in hdrs.iter().take(r as usize).enumerate() {
            let len = h.msg_len as usize;
            // SAFETY: the kernel wrote `len` bytes at the slot's spare
            // capacity.
            unsafe { slots[i].set_len(len) };
            let Some(from) = from_sockaddr(&names[i]) else {
                continue;
            };
            let mut seg = None;
            // SAFETY: walking the control buffer the kernel filled, with
            // the libc macros, within msg_controllen.
            unsafe {
                let mut c = libc::CMSG_FIRSTHDR(&h.msg_hdr);
                while !c.is_null() {
                    if (*c).cmsg_level == libc::SOL_UDP && (*c).cmsg_type == libc::UDP_GRO {
                        let v = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::c_int);
                        if v > 0 {
                            seg = Some(v as usize);
                        }
                    }
                    c = libc::CMSG_NXTHDR(&h.msg_hdr, c);
                }
            }
            out.push((len, from, seg));
        }
        Ok(())
    }

    /// sendmmsg of `trains` (each one GSO message when `gso`, else each
    /// must hold one segment). Returns how many trains were sent.
    pub fn sendmmsg(fd: RawFd, trains: &[Train<'_>], gso: bool) -> io::Result<usize> {
        let n = trains.len();
        let total_iovs: usize = trains.iter().map(|t| t.segments.len()).sum();
        let mut names = Vec::with_capacity(n);
        let mut iovs: Vec<libc::iovec> = Vec::with_capacity(total_iovs);
        let mut cmsgs: Vec<Cmsg> = vec![[0; 4]; n];
        for t in trains {
            names.push(to_sockaddr(&t.to));
            for s in t.segments {
                iovs.push(libc::iovec {
                    iov_base: s.as_ptr() as *mut libc::c_void,
                    iov_len: s.len(),
                });
            }
        }
        // SAFETY: plain data, zero is a valid initial value.
        let mut hdrs: Vec<libc::mmsghdr> = (0..n).map(|_| unsafe { zeroed() }).collect();
        let mut at = 0;
        for (i, t) in trains.iter().enumerate() {
            let h = &mut hdrs[i].msg_hdr;
            h.msg_name = &mut names[i].0 as *mut _ as *mut libc::c_void;
            h.msg_namelen = names[i].1;
            h.msg_iov = iovs[at..].as_mut_ptr();
            h.msg_iovlen = t.segments.len() as _;
            at += t.segments.len();
            if gso && t.segments.len() > 1 {
                let size = t.segments[0].len() as u16;
                h.msg_control = cmsgs[i].as_mut_ptr() as *mut libc::c_void;
                // SAFETY: pure arithmetic.
                h.msg_controllen = unsafe { libc::CMSG_SPACE(size_of::<u16>() as u32) } as _;
                // SAFETY: the control buffer is 32 bytes, more than
                // CMSG_SPACE(2); the header is written through the macros.
                unsafe {
                    let c = libc::CMSG_FIRSTHDR(h);
                    (*c).cmsg_level = libc::SOL_UDP;
                    (*c).cmsg_type = libc::UDP_SEGMENT;
                    (*c).cmsg_len = libc::CMSG_LEN(size_of::<u16>() as u32) as _;
                    std::ptr::write_unaligned(libc::CMSG_DATA(c) as *mut u16, size);
                }
            }
        }
        // SAFETY: every pointer in hdrs points into the vectors above or
        // into the caller's segments, alive until the call returns.
        let r = unsafe { libc::sendmmsg(fd, hdrs.as_mut_ptr(), n as libc::c_uint, 0) };
        if r < 0 {
            return Err(last_err());
        }
        Ok(r as usize)
    }
}

/// Sockets for PLPMTUD (RFC 8899 section 6.2, RFC 6951 section 5.6):
/// every datagram with DF set whatever the kernel's cached path MTU
/// (`IP_PMTUDISC_PROBE`: a probe larger than that MTU must reach the path,
/// not be cut by the kernel), and ICMP errors queued for reading
/// (`IP_RECVERR`), so that a Packet Too Big reaches the engine as a hint.
#[cfg(target_os = "linux")]
pub fn enable_plpmtud(fd: std::os::fd::RawFd, v6: bool) -> io::Result<()> {
    let opts = if v6 {
        [
            (
                libc::IPPROTO_IPV6,
                libc::IPV6_MTU_DISCOVER,
                libc::IPV6_PMTUDISC_PROBE,
            ),
            (libc::IPPROTO_IPV6, libc::IPV6_RECVERR, 1),
        ]
    } else {
        [
            (
                libc::IPPROTO_IP,
                libc::IP_MTU_DISCOVER,
                libc::IP_PMTUDISC_PROBE,
            ),
            (libc::IPPROTO_IP, libc::IP_RECVERR, 1),
        ]
    };
    for (level, name, v) in opts {
        // SAFETY: an int option of the right size.
        let r = unsafe {
            libc::setsockopt(
                fd,
                level,
                name,
                (&v as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
pub fn enable_plpmtud(_fd: i32, _v6: bool) -> io::Result<()> {
    Ok(())
}

/// Most errors read from a socket's error queue in one call.
pub const MAX_QUEUED_ERRORS: usize = 64;

/// Drains (up to [`MAX_QUEUED_ERRORS`]) the error queue of socket `fd`
/// (`IP_RECVERR`): for each "message too long" (an ICMP Fragmentation
/// Needed or ICMPv6 Packet Too Big, or the local stack's), the original
/// datagram's destination and the MTU reported (of the IP packet) go to
/// `out`; other errors are dropped. Returns how many errors were read.
#[cfg(target_os = "linux")]
pub fn read_mtu_errors(fd: std::os::fd::RawFd, out: &mut Vec<(std::net::IpAddr, u32)>) -> usize {
    let mut read = 0;
    while read < MAX_QUEUED_ERRORS {
        // SAFETY: plain data; all-zero is valid.
        let mut name: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
        let mut payload = [0u8; 64];
        let mut iov = libc::iovec {
            iov_base: payload.as_mut_ptr().cast(),
            iov_len: payload.len(),
        };
        let mut control = [0u64; 64];
        // SAFETY: plain data; all-zero is valid.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_name = (&mut name as *mut libc::sockaddr_storage).cast();
        msg.msg_namelen = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = std::mem::size_of_val(&control) as _;
        // SAFETY: every pointer in `msg` refers to a live buffer of the
        // given size.
        let r = unsafe { libc::recvmsg(fd, &mut msg, libc::MSG_ERRQUEUE | libc::MSG_DONTWAIT) };
        if r < 0 {
            break;
        }
        read += 1;
        let dest = sys::from_sockaddr(&name).map(|a| a.ip());
        // SAFETY: `msg` was filled by recvmsg; the CMSG macros stay
        // within its control buffer.
        let mut c = unsafe { libc::CMSG_FIRSTHDR(&msg) };
        while !c.is_null() {
            // SAFETY: non-null header inside the control buffer.
            let h = unsafe { &*c };
            let is_err = (h.cmsg_level == libc::IPPROTO_IP && h.cmsg_type == libc::IP_RECVERR)
                || (h.cmsg_level == libc::IPPROTO_IPV6 && h.cmsg_type == libc::IPV6_RECVERR);
            if is_err {
                // SAFETY: an IP_RECVERR message carries a
                // sock_extended_err, possibly unaligned.
                let ee: libc::sock_extended_err =
                    unsafe { std::ptr::read_unaligned(libc::CMSG_DATA(c).cast()) };
                if ee.ee_errno == libc::EMSGSIZE as u32
                    && let Some(d) = dest
                {
                    out.push((d, ee.ee_info));
                }
            }
            // SAFETY: as above.
            c = unsafe { libc::CMSG_NXTHDR(&msg, c) };
        }
    }
    read
}

#[cfg(not(target_os = "linux"))]
pub fn read_mtu_errors(_fd: i32, _out: &mut Vec<(std::net::IpAddr, u32)>) -> usize {
    0
}

/// The MTU of the loopback interface (`lo`) as the socket `fd` sees it
/// (its network namespace), if the kernel tells.
#[cfg(target_os = "linux")]
pub fn loopback_mtu(fd: std::os::fd::RawFd) -> Option<usize> {
    // SAFETY: ifreq is plain data; all-zero is valid.
    let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
    for (d, s) in req.ifr_name.iter_mut().zip(b"lo\0") {
        *d = *s as libc::c_char;
    }
    // SAFETY: SIOCGIFMTU reads the name and writes ifru_mtu of `req`.
    let r = unsafe { libc::ioctl(fd, libc::SIOCGIFMTU as _, &mut req) };
    if r != 0 {
        return None;
    }
    // SAFETY: the kernel filled the mtu member.
    let mtu = unsafe { req.ifr_ifru.ifru_mtu };
    usize::try_from(mtu).ok().filter(|m| *m > 0)
}

#[cfg(not(target_os = "linux"))]
pub fn loopback_mtu(_fd: i32) -> Option<usize> {
    None
}

/// Whether an error of a GSO send means "no GSO here" (the device or
/// kernel cannot segment), so that the socket should fall back.
pub fn is_gso_refusal(e: &io::Error) -> bool {
    #[cfg(target_os = "linux")]
    {
        matches!(
            e.raw_os_error(),
            Some(libc::EIO) | Some(libc::EINVAL) | Some(libc::EOPNOTSUPP)
        )
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = e;
        false
    }
}

/// The offloads a socket has and the receive slots it reuses.
#[derive(Debug)]
pub struct Batcher {
    pub gso: bool,
    pub gro: bool,
    slot: usize,
    slots: Vec<BytesMut>,
    meta: Vec<(usize, SocketAddr, Option<usize>)>,
}

impl Batcher {
    /// Sets up `fd`: GRO on if the kernel has it (and `offload`), GSO if
    /// it knows UDP_SEGMENT. `max_datagram`: the largest datagram read
    /// without GRO.
    #[cfg(target_os = "linux")]
    pub fn new(fd: std::os::fd::RawFd, max_datagram: usize, offload: bool) -> Self {
        let gro = offload && sys::enable_gro(fd);
        let gso = offload && sys::gso_supported(fd);
        let _ = sys::cmsg_space_int();
        // A coalesced read is at most 64 kB.
        let slot = if gro {
            65_535usize.max(max_datagram)
        } else {
            max_datagram.max(1500)
        };
        Batcher {
            gso,
            gro,
            slot,
            slots: Vec::new(),
            meta: Vec::new(),
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub fn new(_fd: i32, max_datagram: usize, _offload: bool) -> Self {
        Batcher {
            gso: false,
            gro: false,
            slot: max_datagram.max(1500),
            slots: Vec::new(),
            meta: Vec::new(),
        }
    }

    /// Reads what is queued (one `recvmmsg`), splitting coalesced reads
    /// into datagrams, appended to `out`. `WouldBlock` when nothing was.
    #[cfg(target_os = "linux")]
    pub fn recv(&mut self, fd: std::os::fd::RawFd, out: &mut Vec<Datagram>) -> io::Result<usize> {
        while self.slots.len() < RECV_BATCH {
            self.slots.push(BytesMut::with_capacity(self.slot));
        }
        self.meta.clear();
        sys::recvmmsg(fd, &mut self.slots, self.slot, &mut self.meta)?;
        let got = self.meta.len();
        for (i, &(len, from, seg)) in self.meta.iter().enumerate() {
            let buf = &mut self.slots[i];
            let data = if len * 2 >= self.slot {
                // Well filled: hand the slot itself over (no copy).
                let b = std::mem::replace(buf, BytesMut::with_capacity(self.slot));
                b.freeze()
            } else {
                let b = Bytes::copy_from_slice(&buf[..len]);
                buf.clear();
                b
            };
            match seg {
                Some(s) if s < len => {
                    let mut at = 0;
                    while at < len {
                        let end = (at + s).min(len);
                        out.push(Datagram {
                            from,
                            data: data.slice(at..end),
                        });
                        at = end;
                    }
                }
                _ => out.push(Datagram { from, data }),
            }
        }
        Ok(got)
    }

    #[cfg(not(target_os = "linux"))]
    pub fn recv(&mut self, _fd: i32, _out: &mut Vec<Datagram>) -> io::Result<usize> {
        Err(io::ErrorKind::Unsupported.into())
    }

    /// Sends `trains` with one `sendmmsg`; how many went.
    #[cfg(target_os = "linux")]
    pub fn send(&self, fd: std::os::fd::RawFd, trains: &[Train<'_>]) -> io::Result<usize> {
        sys::sendmmsg(fd, trains, self.gso)
    }

    #[cfg(not(target_os = "linux"))]
    pub fn send(&self, _fd: i32, _trains: &[Train<'_>]) -> io::Result<usize> {
        Err(io::ErrorKind::Unsupported.into())
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn a_gso_train_arrives_as_separate_datagrams_and_gro_reads_them_back() {
        let a = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let b = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut rx = Batcher::new(b.as_raw_fd(), 65_535, true);
        let tx = Batcher::new(a.as_raw_fd(), 65_535, true);
        let segs: Vec<Vec<u8>> = (0..5u8)
            .map(|i| vec![i; if i == 4 { 300 } else { 1000 }])
            .collect();
        let refs: Vec<&[u8]> = segs.iter().map(|s| &s[..]).collect();
        let to = b.local_addr().unwrap();
        let single: Vec<&[u8]> = vec![b"alone"];
        let trains = [
            Train {
                to,
                segments: &refs,
            },
            Train {
                to,
                segments: &single,
            },
        ];
        let sent = match tx.send(a.as_raw_fd(), &trains) {
            Ok(n) => n,
            Err(e) if is_gso_refusal(&e) => {
                // No GSO on this kernel: the fallback sends each alone.
                let tx = Batcher {
                    gso: false,
                    ..Batcher::new(a.as_raw_fd(), 65_535, false)
                };
                let ones: Vec<Vec<&[u8]>> = refs.iter().map(|s| vec![*s]).collect();
                let t: Vec<Train> = ones
                    .iter()
                    .map(|s| Train { to, segments: s })
                    .chain(std::iter::once(Train {
                        to,
                        segments: &single,
                    }))
                    .collect();
                tx.send(a.as_raw_fd(), &t).unwrap() - 4
            }
            Err(e) => panic!("{e}"),
        };
        assert_eq!(sent, 2);
        let mut got = Vec::new();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
        while got.len() < 6 && std::time::Instant::now() < deadline {
            match rx.recv(b.as_raw_fd(), &mut got) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    std::thread::sleep(std::time::Duration::from_millis(5))
                }
                Err(e) => panic!("{e}"),
            }
        }
        let lens: Vec<usize> = got.iter().map(|d| d.data.len()).collect();
        assert_eq!(lens, vec![1000, 1000, 1000, 1000, 300, 5]);
        for (i, d) in got.iter().take(5).enumerate() {
            assert!(d.data.iter().all(|&x| x == i as u8));
            assert_eq!(d.from, a.local_addr().unwrap());
        }
        assert_eq!(&got[5].data[..], b"alone");
    }
}
