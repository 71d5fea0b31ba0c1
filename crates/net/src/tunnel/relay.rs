//! The relay between an application's TCP connection and its stream:
//! both directions at once, the bytes handed over without a copy in
//! between (a TCP read becomes the message sent, a message received is
//! written to TCP as it came). Where one side ends its writes, the relay
//! ends the other side's; it returns once both directions ended, or at
//! the first error (the caller then drops both: the peer's stream is
//! reset, the TCP connection closed).

use std::io;

use bytes::{BufMut, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::streams::SctpStream;

/// Bytes read from TCP at once: `buffer`, cut to whole messages of the
/// stream (`max_write`, itself whole packets) if it holds at least one.
pub fn read_size(buffer: usize, max_write: usize) -> usize {
    let max_write = max_write.max(1);
    if buffer >= max_write {
        buffer / max_write * max_write
    } else {
        buffer.max(1)
    }
}

/// Relays between `tcp` and `s` until both directions ended.
pub async fn relay(tcp: &mut TcpStream, s: &SctpStream, buffer: usize) -> io::Result<()> {
    let size = read_size(buffer, s.max_write());
    let (mut rd, mut wr) = tcp.split();
    let up = async {
        let mut buf = BytesMut::new();
        loop {
            buf.reserve(size);
            let mut room = (&mut buf).limit(size);
            if rd.read_buf(&mut room).await? == 0 {
                s.shutdown_write();
                return Ok::<_, io::Error>(());
            }
            s.write_all_bytes(buf.split().freeze()).await?;
        }
    };
    let down = async {
        while let Some(b) = s.read_bytes().await? {
            wr.write_all(&b).await?;
        }
        wr.shutdown().await
    };
    tokio::try_join!(up, down).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::read_size;

    #[test]
    fn reads_are_whole_messages() {
        assert_eq!(read_size(64 << 10, 65_416), 65_416);
        assert_eq!(read_size(256 << 10, 65_416), 4 * 65_416);
        assert_eq!(read_size(4096, 65_416), 4096);
        assert_eq!(read_size(0, 65_416), 1);
    }
}
