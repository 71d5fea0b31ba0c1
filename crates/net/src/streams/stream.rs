//! [`SctpStream`]: one SCTP stream of a [`Connection`](super::Connection)
//! as a byte stream, Tokio's `AsyncRead` and `AsyncWrite`.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::{Buf, Bytes};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::state::{End, Slot};
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

impl SctpStream {
    /// Largest message one write becomes (bytes): the connection's
    /// `StreamConfig::max_write`.
    pub fn max_write(&self) -> usize {
        self.shared.cfg.max_write
    }

    /// The next bytes received, as the association delivered them (no
    /// copy); `None` at end of stream. Errors as [`AsyncRead`]'s.
    pub fn poll_read_bytes(&self, cx: &mut Context<'_>) -> Poll<io::Result<Option<Bytes>>> {
        let window = self.shared.cfg.stream_window;
        let id = self.id;
        let mut st = self.shared.lock();
        let ended = st.ended.clone();
        let Some(s) = st.slots.get_mut(&id) else {
            return Poll::Ready(Ok(None));
        };
        if let Some(b) = s.buf.pop_front() {
            s.buffered -= b.len();
            s.unannounced += b.len();
            st.maybe_grant(id, window);
            return Poll::Ready(Ok(Some(b)));
        }
        end_or_wait(s, ended, id, cx).map_ok(|()| None)
    }

    /// [`Self::poll_read_bytes`] as a future.
    pub async fn read_bytes(&self) -> io::Result<Option<Bytes>> {
        std::future::poll_fn(|cx| self.poll_read_bytes(cx)).await
    }

    /// Sends the front of `data` without copying it (as much as the
    /// peer's credit and `max_write` allow), removing it from `data`:
    /// the bytes taken. Errors as [`AsyncWrite`]'s.
    pub fn poll_write_bytes(
        &self,
        cx: &mut Context<'_>,
        data: &mut Bytes,
    ) -> Poll<io::Result<usize>> {
        self.poll_send(cx, data.len(), |n| data.split_to(n))
    }

    /// Sends all of `data` (see [`Self::poll_write_bytes`]).
    pub async fn write_all_bytes(&self, mut data: Bytes) -> io::Result<()> {
        while !data.is_empty() {
            std::future::poll_fn(|cx| self.poll_write_bytes(cx, &mut data)).await?;
        }
        Ok(())
    }

    /// Ends a stream the peer opened at once and frees its number without
    /// waiting for the peer's end (RESET, then DONE): for an OPEN that
    /// may not come from the peer at all (injected on the path), whose
    /// number would otherwise stay taken until the association ends. A
    /// peer that did open it reads what was written before, then
    /// `ConnectionReset`; its FIN and DONE find no stream here and are
    /// dropped. Only the peer opens numbers of its parity, and only after
    /// its DONE, which arrives before its next OPEN on the number (one
    /// SCTP stream is delivered in order, RFC 9260 section 6.6), so
    /// nothing of the old stream reaches a new one. On a stream this side
    /// opened, the same as dropping it.
    pub fn abandon(self) {
        let id = self.id;
        let mut st = self.shared.lock();
        if id % 2 == st.parity {
            return;
        }
        if let Some(s) = st.slots.get_mut(&id) {
            s.held = false;
            s.buf.clear();
            s.buffered = 0;
        }
        st.send_reset(id);
        if let Some(s) = st.slots.remove(&id) {
            if !s.sent_done {
                st.send(id, frame::DONE, Bytes::from_static(frame::MARK));
            }
            st.stats.freed += 1;
        }
    }

    /// Ends the write half (as `shutdown`).
    pub fn shutdown_write(&self) {
        self.shared.lock().send_end(self.id, End::Fin);
    }

    /// Takes up to the peer's remaining credit (at most `max_write`
    /// bytes) of `len` as one message, made by `take`; waits while the
    /// credit is used up.
    fn poll_send(
        &self,
        cx: &mut Context<'_>,
        len: usize,
        take: impl FnOnce(usize) -> Bytes,
    ) -> Poll<io::Result<usize>> {
        if len == 0 {
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
        let n = len.min(s.credit).min(max_write);
        s.credit -= n;
        st.send(id, frame::DATA, take(n));
        Poll::Ready(Ok(n))
    }
}

/// With nothing buffered: end of stream once the peer's FIN arrived,
/// `ConnectionReset` after its RESET, `ConnectionAborted` once the
/// association ended, else waits.
fn end_or_wait(
    s: &mut Slot,
    ended: Option<String>,
    id: u16,
    cx: &mut Context<'_>,
) -> Poll<io::Result<()>> {
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
        end_or_wait(s, ended, id, cx)
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
        self.poll_send(cx, buf.len(), |n| Bytes::copy_from_slice(&buf[..n]))
    }

    /// Written bytes are queued for the association at once; nothing to
    /// flush (as with a TCP socket).
    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    /// Ends the write half: the peer reads end of stream after the data
    /// written before.
    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.shutdown_write();
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
