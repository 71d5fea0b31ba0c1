//! [`SctpStream`]: one SCTP stream of a [`Connection`](super::Connection)
//! as a byte stream, Tokio's `AsyncRead` and `AsyncWrite`.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::{Buf, Bytes};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::state::End;
use super::{Alive, Shared, frame};

/// A byte stream carried on one SCTP stream, used like a TCP socket.
///
/// Writes are cut into messages of at most `StreamConfig::max_write`
/// bytes, and never more than the peer's reader granted (per-stream flow
/// control, see [`super::frame`]): a writer whose reader is slow waits,
/// other streams of the association go on (SCTP delivers each stream in
/// order on its own, RFC 9260 section 6.6, so a loss on one stream does
/// not hold another's data back either). `shutdown` ends the write half
/// (the peer reads end of stream); dropping the stream ends both: a peer
/// still sending is told to stop (its writes then fail with
/// `ConnectionReset`).
#[derive(Debug)]
pub struct SctpStream {
    pub(super) shared: Arc<Shared>,
    pub(super) id: u16,
    pub(super) _alive: Arc<Alive>,
}

fn error(kind: io::ErrorKind, why: impl Into<String>) -> io::Error {
    io::Error::new(kind, why.into())
}

impl SctpStream {
    /// The SCTP stream number it is carried on.
    pub fn id(&self) -> u16 {
        self.id
    }
}

impl AsyncRead for SctpStream {
    /// Reads what arrived; end of stream once the peer shut its write
    /// half down and everything was read; `ConnectionReset` if the peer
    /// dropped the stream, `ConnectionAborted` if the association ended.
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let window = self.shared.cfg.stream_window;
        let id = self.id;
        let mut st = self.shared.lock();
        let ended = st.ended.clone();
        let Some(s) = st.slots.get_mut(&id) else {
            return Poll::Ready(Ok(()));
        };
        if s.buffered > 0 {
            let mut n = 0;
            while out.remaining() > 0 {
                let Some(front) = s.buf.front_mut() else {
                    break;
                };
                let k = front.len().min(out.remaining());
                out.put_slice(&front[..k]);
                front.advance(k);
                if front.is_empty() {
                    s.buf.pop_front();
                }
                n += k;
            }
            s.buffered -= n;
            s.unannounced += n;
            st.maybe_grant(id, window);
            return Poll::Ready(Ok(()));
        }
        match (s.recv_end, ended) {
            (Some(End::Fin), _) => Poll::Ready(Ok(())),
            (Some(End::Reset), _) => Poll::Ready(Err(error(
                io::ErrorKind::ConnectionReset,
                format!("the peer reset stream {id}"),
            ))),
            (None, Some(why)) => Poll::Ready(Err(error(io::ErrorKind::ConnectionAborted, why))),
            (None, None) => {
                s.read_waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl AsyncWrite for SctpStream {
    /// Takes up to the peer's remaining credit (at most `max_write`
    /// bytes) as one message; waits while the credit is used up.
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if buf.is_empty() {
            return Poll::Ready(Ok(0));
        }
        let max_write = self.shared.cfg.max_write;
        let id = self.id;
        let mut st = self.shared.lock();
        let ended = st.ended.clone();
        let Some(s) = st.slots.get_mut(&id) else {
            return Poll::Ready(Err(error(io::ErrorKind::BrokenPipe, "stream closed")));
        };
        if s.peer_stopped {
            let why = format!("the peer reset stream {id}");
            return Poll::Ready(Err(error(io::ErrorKind::ConnectionReset, why)));
        }
        if s.sent_end.is_some() {
            let why = "write after shutdown";
            return Poll::Ready(Err(error(io::ErrorKind::BrokenPipe, why)));
        }
        if let Some(why) = ended {
            return Poll::Ready(Err(error(io::ErrorKind::ConnectionAborted, why)));
        }
        if s.credit == 0 {
            s.write_waker = Some(cx.waker().clone());
            return Poll::Pending;
        }
        let n = buf.len().min(s.credit).min(max_write);
        s.credit -= n;
        st.send(id, frame::DATA, Bytes::copy_from_slice(&buf[..n]));
        Poll::Ready(Ok(n))
    }

    /// Written bytes are queued for the association at once; nothing to
    /// flush (as with a TCP socket).
    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    /// Ends the write half: the peer reads end of stream after the data
    /// written before.
    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let id = self.id;
        let mut st = self.shared.lock();
        st.send_end(id, End::Fin);
        Poll::Ready(Ok(()))
    }
}

impl Drop for SctpStream {
    /// Lets go of the stream: unread data is discarded; a peer still
    /// sending is told to stop (RESET), else the write half ends (FIN).
    fn drop(&mut self) {
        let id = self.id;
        let mut st = self.shared.lock();
        let Some(s) = st.slots.get_mut(&id) else {
            return;
        };
        s.held = false;
        s.buf.clear();
        s.buffered = 0;
        if s.recv_end.is_none() {
            st.send_reset(id);
        } else {
            st.send_end(id, End::Fin);
        }
        st.settle(id);
    }
}
