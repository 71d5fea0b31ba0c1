//! sctp-proto over UDP sockets as a contender of `msctp bench net`, driven
//! by the small driver here (sctp-proto ships none): each end is a thread
//! with its own UDP socket on 127.0.0.1 carrying SCTP packets as UDP
//! payload (the encapsulation of RFC 6951), one `sendto` per packet and
//! one `recvfrom` per datagram (no GSO, GRO or batching), `poll(2)` for
//! the wait. The engine is the same [`Theirs`] as in the in-memory bench,
//! its clock the time since the run began.

use std::io::ErrorKind;
use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use bytes::Bytes;
use msctp_net::bench::Sample;

use crate::peer::{Peer, Setup, Theirs};
use crate::process_cpu_seconds;

/// Longest wait without a timer (to notice the other end is done).
const IDLE_WAIT: Duration = Duration::from_millis(20);
/// A transfer that has not finished by then fails.
const LIMIT: Duration = Duration::from_secs(300);

struct End {
    peer: Theirs,
    sock: UdpSocket,
    to: SocketAddr,
    base: Instant,
    buf: Vec<u8>,
}

impl End {
    fn now(&self) -> Duration {
        self.base.elapsed()
    }

    /// Receives what is there, fires due timers, sends what is ready;
    /// then waits for a datagram or the next timer.
    fn turn(&mut self) -> std::io::Result<()> {
        loop {
            match self.sock.recv(&mut self.buf) {
                Ok(n) => {
                    let now = self.now();
                    self.peer.input(now, Bytes::copy_from_slice(&self.buf[..n]));
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::ConnectionRefused => break,
                Err(e) => return Err(e),
            }
        }
        let now = self.now();
        if self.peer.timeout().is_some_and(|t| t <= now) {
            self.peer.on_timeout(now);
        }
        while let Some(p) = self.peer.output(now) {
            match self.sock.send_to(&p, self.to) {
                Ok(_) => {}
                // A full socket buffer: the packet is lost, as on a link.
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == ErrorKind::ConnectionRefused => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn wait(&self) {
        let now = self.now();
        let wait = self
            .peer
            .timeout()
            .map_or(IDLE_WAIT, |t| t.saturating_sub(now).min(IDLE_WAIT));
        let mut fd = libc::pollfd {
            fd: self.sock.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = wait.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: one valid pollfd.
        unsafe { libc::poll(&mut fd, 1, ms) };
    }
}

/// SO_RCVBUF and SO_SNDBUF, as msctp's sockets have by default
/// (`StackConfig::socket_buffer`).
const SOCKET_BUFFER: usize = 4 << 20;

fn socket() -> std::io::Result<UdpSocket> {
    let s = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0))?;
    s.set_nonblocking(true)?;
    let r = socket2::SockRef::from(&s);
    r.set_recv_buffer_size(SOCKET_BUFFER)?;
    r.set_send_buffer_size(SOCKET_BUFFER)?;
    Ok(s)
}

/// `bytes` from a client to a server thread in messages of `message`
/// bytes at packets of `mtu` bytes; throughput first byte to last at the
/// receiver, CPU time of the process (both threads).
pub fn sctp_proto_throughput(bytes: u64, message: usize, mtu: usize) -> Result<Sample, String> {
    let setup = Setup {
        mtu,
        ..Setup::default()
    };
    let (cs, ss) = (
        socket().map_err(|e| e.to_string())?,
        socket().map_err(|e| e.to_string())?,
    );
    let (ca, sa) = (
        cs.local_addr().map_err(|e| e.to_string())?,
        ss.local_addr().map_err(|e| e.to_string())?,
    );
    let base = Instant::now();
    let buf = vec![0u8; 65_536];
    let mut client = End {
        peer: Theirs::new(&setup, false),
        sock: cs,
        to: sa,
        base,
        buf: buf.clone(),
    };
    let mut server = End {
        peer: Theirs::new(&setup, true),
        sock: ss,
        to: ca,
        base,
        buf,
    };
    let cpu0 = process_cpu_seconds();
    let rx = std::thread::spawn(move || -> Result<(u64, f64), String> {
        let (mut got, mut start) = (0u64, None);
        while got < bytes {
            if base.elapsed() > LIMIT {
                return Err(format!("received {got} of {bytes} bytes in {LIMIT:?}"));
            }
            server.turn().map_err(|e| e.to_string())?;
            while let Some((_, m)) = server.peer.recv() {
                start.get_or_insert_with(Instant::now);
                got += m.len() as u64;
            }
            // Let the SACK that reading made room for leave.
            server.turn().map_err(|e| e.to_string())?;
            if got < bytes {
                server.wait();
            }
        }
        Ok((
            got,
            start.map_or(0.0, |t: Instant| t.elapsed().as_secs_f64()),
        ))
    });
    let payload = Bytes::from(vec![0x42u8; message.max(1)]);
    let now = client.now();
    client.peer.connect(now);
    let mut sent = 0u64;
    while !rx.is_finished() && base.elapsed() < LIMIT {
        client.turn().map_err(|e| e.to_string())?;
        while sent < bytes && client.peer.connected() {
            let n = (bytes - sent).min(payload.len() as u64) as usize;
            if !client.peer.send(0, payload.slice(..n)) {
                break;
            }
            sent += n as u64;
        }
        client.turn().map_err(|e| e.to_string())?;
        client.wait();
    }
    let (got, secs) = rx.join().map_err(|_| "receiver panicked".to_string())??;
    let cpu = process_cpu_seconds() - cpu0;
    Ok(Sample {
        bytes: got,
        secs,
        cpu_s: Some(cpu),
        path_mtu: Some(mtu),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A short transfer over real sockets arrives whole.
    #[test]
    fn sctp_proto_moves_a_megabyte_over_loopback_udp() {
        let s = sctp_proto_throughput(1 << 20, 1424, 1452).expect("transfer");
        assert_eq!(s.bytes, 1 << 20);
        assert!(s.secs > 0.0 && s.cpu_s.is_some_and(|c| c > 0.0));
    }
}
