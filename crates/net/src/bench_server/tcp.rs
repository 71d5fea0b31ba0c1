//! Kernel TCP's side of `msctp bench server`: the accept rate for the
//! same N connections from the same loopback source addresses.

use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::time::Instant;

use super::{SERVER_ADDR, TcpAccept, client_addr};
use crate::error::NetError;

/// Kernel TCP: `n` connections to a listener on 127.0.0.1 from the same
/// source addresses, connected one after the other (each client socket
/// closed once connected, so that 2N descriptors are not needed), all
/// accepted and held by the server; accepts per second from the first
/// connect to the last accept.
pub fn tcp_accept(n: usize, addresses: usize) -> Result<TcpAccept, NetError> {
    // The accept queue as deep as the msctp server's (`accept_queue`):
    // std's 128 overflowed, and each SYN dropped waited 1 s.
    let l = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
    l.bind(&SocketAddr::new(IpAddr::V4(SERVER_ADDR), 0).into())?;
    l.listen(4096)?;
    let l: TcpListener = l.into();
    let to = l.local_addr()?;
    let acceptor = std::thread::spawn(move || -> std::io::Result<(Vec<TcpStream>, Instant)> {
        let mut held = Vec::with_capacity(n);
        while held.len() < n {
            held.push(l.accept()?.0);
        }
        Ok((held, Instant::now()))
    });
    let start = Instant::now();
    for k in 0..n {
        let s = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
        s.bind(&SocketAddr::new(client_addr(k % addresses), 0).into())?;
        s.connect(&to.into())?;
    }
    let (held, end) = acceptor.join().map_err(|_| NetError::Stopped)??;
    let secs = end.duration_since(start).as_secs_f64();
    Ok(TcpAccept {
        connections: held.len(),
        secs,
        accepts_per_s: held.len() as f64 / secs.max(1e-9),
    })
}
