//! A file over a kernel stream socket (TCP or Linux MPTCP) between two
//! namespaces, measured as the msctp receiver measures its own: bytes,
//! SHA-256, time from the first to the last delivery, longest wait
//! between deliveries.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use msctp_net::transfer::{self, GapTracker};
use sha2::{Digest, Sha256};
use socket2::{Domain, Protocol, SockAddr, Socket, Type};

use super::Netns;

/// IPPROTO_MPTCP (Linux 5.6 and later).
pub const IPPROTO_MPTCP: i32 = 262;

/// A stream socket, MPTCP or plain TCP.
pub fn stream_socket(mptcp: bool) -> Socket {
    let proto = if mptcp {
        Protocol::from(IPPROTO_MPTCP)
    } else {
        Protocol::TCP
    };
    Socket::new(Domain::IPV4, Type::STREAM, Some(proto)).expect("socket")
}

/// What the receiver of a stream saw.
#[derive(Debug)]
pub struct StreamRun {
    /// The sender wrote everything within the limit.
    pub sent_ok: bool,
    pub bytes: usize,
    pub sha256: String,
    pub gaps: GapTracker,
    /// When the first bytes were read (the origin of `gaps`' times).
    pub first_delivery: Option<Instant>,
}

impl StreamRun {
    /// Bytes per second between the first and the last delivery, bit/s.
    pub fn throughput_bps(&self) -> f64 {
        let span = self.gaps.span().as_secs_f64();
        if span > 0.0 {
            self.bytes as f64 * 8.0 / span
        } else {
            0.0
        }
    }
}

/// Sends `data` from `from` to `to_addr:port` in `to` over TCP or MPTCP;
/// `started` is called once the connection is up (and, for MPTCP, given
/// 300 ms to open its other subflows). Gives up after `limit`.
pub fn send_stream(
    from: &Netns,
    to: &Netns,
    (to_addr, port): (IpAddr, u16),
    data: std::sync::Arc<Vec<u8>>,
    mptcp: bool,
    limit: Duration,
    started: impl FnOnce() + Send + 'static,
) -> StreamRun {
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let rx = to.spawn(move || {
        let l = stream_socket(mptcp);
        l.set_reuse_address(true).unwrap();
        l.bind(&SockAddr::from(SocketAddr::new(
            "0.0.0.0".parse().unwrap(),
            port,
        )))
        .unwrap();
        l.listen(1).unwrap();
        ready_tx.send(()).unwrap();
        let (mut s, _) = l.accept().unwrap();
        s.set_read_timeout(Some(limit)).unwrap();
        let start = Instant::now();
        let mut gaps = GapTracker::new(Duration::from_millis(50));
        let mut h = Sha256::new();
        let mut n = 0usize;
        let mut first = None;
        let mut buf = vec![0u8; 65536];
        while start.elapsed() <= limit {
            match s.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(k) => {
                    let now = Instant::now();
                    first.get_or_insert(now);
                    gaps.observe(now);
                    h.update(&buf[..k]);
                    n += k;
                }
            }
        }
        (n, transfer::hex(&h.finalize()), gaps, first)
    });
    ready_rx.recv().unwrap();
    let tx = from.spawn(move || {
        let s = stream_socket(mptcp);
        s.connect(&SockAddr::from(SocketAddr::new(to_addr, port)))
            .unwrap();
        s.set_write_timeout(Some(limit)).unwrap();
        if mptcp {
            std::thread::sleep(Duration::from_millis(300));
        }
        started();
        let mut s = std::net::TcpStream::from(s);
        let start = Instant::now();
        let mut ok = true;
        for c in data.chunks(65536) {
            if start.elapsed() > limit || s.write_all(c).is_err() {
                ok = false;
                break;
            }
        }
        let _ = s.shutdown(std::net::Shutdown::Write);
        let mut rest = Vec::new();
        let _ = s.read_to_end(&mut rest);
        ok
    });
    let sent_ok = tx.join().unwrap();
    let (bytes, sha256, gaps, first_delivery) = rx.join().unwrap();
    StreamRun {
        sent_ok,
        bytes,
        sha256,
        gaps,
        first_delivery,
    }
}

/// Lets Linux MPTCP use a second subflow: `server` announces
/// `server_addr` on `server_dev` (ADD_ADDR), both accept it. Returns
/// false if the kernel has no MPTCP.
pub fn enable_mptcp(client: &Netns, server: &Netns, server_addr: &str, server_dev: &str) -> bool {
    let limits = [
        "mptcp",
        "limits",
        "set",
        "subflow",
        "4",
        "add_addr_accepted",
        "4",
    ];
    let ok = std::process::Command::new("ip")
        .args(["-n", &server.name])
        .args(limits)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return false;
    }
    client.ip(&limits);
    server.ip(&[
        "mptcp",
        "endpoint",
        "add",
        server_addr,
        "dev",
        server_dev,
        "signal",
    ]);
    true
}
