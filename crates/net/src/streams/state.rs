//! The state the streams of one connection share: every stream's receive
//! buffer, credit and end markers, under one lock, and the queue of
//! frames to send (see [`super::frame`] for the protocol).

use std::collections::{HashMap, VecDeque};
use std::task::Waker;

use bytes::Bytes;
use tokio::sync::mpsc;

use super::frame;

/// What the writer task sends, in this order.
#[derive(Debug)]
pub(crate) enum Out {
    Frame {
        stream: u16,
        ppid: u32,
        data: Bytes,
    },
    /// Grant the peer what the reader of `stream` consumed since the last
    /// grant (read at send time, so grants coalesce).
    Window(u16),
    /// Reset our outgoing `stream` (RFC 6525 section 5.1.2): its number
    /// was freed.
    ResetStream(u16),
    /// Shut the association down gracefully after what is queued.
    Close,
}

/// How a direction of a stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    Fin,
    Reset,
}

/// One stream (both directions).
#[derive(Debug)]
pub(crate) struct Slot {
    /// Received bytes not read yet, and their total.
    pub buf: VecDeque<Bytes>,
    pub buffered: usize,
    /// Bytes the peer may still send (granted and not received).
    pub allowed: usize,
    /// Bytes read since the last grant.
    pub unannounced: usize,
    /// An `Out::Window` for this stream is queued.
    pub grant_queued: bool,
    pub recv_end: Option<End>,
    /// Bytes the peer lets us send.
    pub credit: usize,
    pub sent_end: Option<End>,
    /// RESET sent (it may follow a FIN: the write half was shut down,
    /// then the stream dropped unread).
    pub sent_reset: bool,
    /// The peer sent RESET: it discards what we send.
    pub peer_stopped: bool,
    pub sent_done: bool,
    pub recv_done: bool,
    /// The application holds the stream's handle.
    pub held: bool,
    pub read_waker: Option<Waker>,
    pub write_waker: Option<Waker>,
}

impl Slot {
    pub fn new() -> Slot {
        Slot {
            buf: VecDeque::new(),
            buffered: 0,
            allowed: frame::INITIAL_WINDOW,
            unannounced: 0,
            grant_queued: false,
            recv_end: None,
            credit: frame::INITIAL_WINDOW,
            sent_end: None,
            sent_reset: false,
            peer_stopped: false,
            sent_done: false,
            recv_done: false,
            held: true,
            read_waker: None,
            write_waker: None,
        }
    }

    pub fn wake(&mut self) {
        if let Some(w) = self.read_waker.take() {
            w.wake();
        }
        if let Some(w) = self.write_waker.take() {
            w.wake();
        }
    }
}

/// Counters of a connection's streams.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamStats {
    /// Streams opened here / by the peer.
    pub opened: u64,
    pub accepted: u64,
    /// Streams the peer opened that were refused (limit or full accept
    /// queue): answered with RESET.
    pub refused: u64,
    /// Frames that broke the protocol (DATA beyond the granted window, an
    /// OPEN of a stream in use or of the wrong side, a frame for no
    /// stream, an unknown kind): the stream is reset or the frame dropped.
    pub violations: u64,
    /// Streams whose number is free again (DONE both ways).
    pub freed: u64,
    /// Freed streams whose outgoing direction was then reset (RFC 6525;
    /// only when both sides support it), so that the next stream on the
    /// number starts from SSN 0.
    pub reset: u64,
    /// Resets that could not be asked for (the engine refused the request,
    /// or another was in progress for [`super::RESET_PATIENCE`]); not
    /// those of an association that was ending.
    pub reset_failed: u64,
}

/// Everything under the connection's lock.
#[derive(Debug)]
pub(crate) struct ConnState {
    pub slots: HashMap<u16, Slot>,
    /// Why the association ended (every stream fails with it).
    pub ended: Option<String>,
    /// Stream numbers below `limit` are usable (negotiated streams).
    pub limit: u16,
    /// This side opens the streams of this parity (1: odd, 0: even).
    pub parity: u16,
    pub next_id: u16,
    pub stats: StreamStats,
    /// Both sides support RE-CONFIG: a freed stream is reset.
    pub reset_freed: bool,
    /// To the writer task. Unbounded as a channel, bounded by what can
    /// enter it: DATA only within the peer's credit (at most
    /// `stream_window` per stream), at most one queued `Window` per
    /// stream (grants coalesce), OPEN, FIN, RESET, DONE and one
    /// `ResetStream` once each per stream, and streams are bounded by
    /// `max_streams`.
    pub out: mpsc::UnboundedSender<Out>,
}

impl ConnState {
    pub fn send(&self, stream: u16, ppid: u32, data: Bytes) {
        // The writer is gone only once the connection has ended; the
        // frame then has nowhere to go.
        let _ = self.out.send(Out::Frame { stream, ppid, data });
    }

    /// Ends the sending direction of `id` with `end` (once).
    pub fn send_end(&mut self, id: u16, end: End) {
        let Some(s) = self.slots.get_mut(&id) else {
            return;
        };
        if s.sent_end.is_some() {
            return;
        }
        s.sent_end = Some(end);
        let ppid = match end {
            End::Fin => frame::FIN,
            End::Reset => frame::RESET,
        };
        self.send(id, ppid, Bytes::from_static(frame::MARK));
        self.settle(id);
    }

    /// Tells the peer to stop sending on `id` (it may follow our FIN).
    pub fn send_reset(&mut self, id: u16) {
        let Some(s) = self.slots.get_mut(&id) else {
            return;
        };
        if s.sent_reset {
            return;
        }
        s.sent_reset = true;
        s.sent_end.get_or_insert(End::Reset);
        self.send(id, frame::RESET, Bytes::from_static(frame::MARK));
        self.settle(id);
    }

    /// Sends DONE once both directions ended and the application let go
    /// of the stream; frees the number once DONE went both ways, and
    /// where both sides support RE-CONFIG has the writer reset the
    /// stream (RFC 6525 section 5.1.2: after the DONE, before anything a
    /// next stream on the number sends, which starts from SSN 0).
    pub fn settle(&mut self, id: u16) {
        let Some(s) = self.slots.get_mut(&id) else {
            return;
        };
        if !s.sent_done && !s.held && s.sent_end.is_some() && s.recv_end.is_some() {
            s.sent_done = true;
            self.send(id, frame::DONE, Bytes::from_static(frame::MARK));
        }
        if let Some(s) = self.slots.get(&id)
            && s.sent_done
            && s.recv_done
        {
            self.slots.remove(&id);
            self.stats.freed += 1;
            if self.reset_freed {
                let _ = self.out.send(Out::ResetStream(id));
            }
        }
    }

    /// Queues a grant for `id` if its reader consumed enough: a quarter
    /// of the window, or an eighth once it drained the buffer. The
    /// writer keeps at least three quarters of the window (seven eighths
    /// behind a reader that keeps up), so it never waits for a grant that
    /// is not sent; and a reader that keeps up does not send a WINDOW
    /// frame (a DATA chunk the peer acknowledges) for every message it
    /// reads, as it did when any drained buffer was granted at once.
    pub fn maybe_grant(&mut self, id: u16, window: usize) {
        let Some(s) = self.slots.get_mut(&id) else {
            return;
        };
        let due = s.unannounced >= window / 4 || (s.buffered == 0 && s.unannounced >= window / 8);
        if due && !s.grant_queued && s.recv_end.is_none() {
            s.grant_queued = true;
            let _ = self.out.send(Out::Window(id));
        }
    }

    /// The grant to send for `id` now (taken, so grants coalesce).
    pub fn take_grant(&mut self, id: u16) -> Option<u32> {
        let s = self.slots.get_mut(&id)?;
        s.grant_queued = false;
        if s.recv_end.is_some() || s.sent_done || s.unannounced == 0 {
            return None;
        }
        let n = s.unannounced.min(u32::MAX as usize);
        s.unannounced -= n;
        s.allowed += n;
        Some(n as u32)
    }

    /// A free stream number of this side's parity, if any.
    pub fn free_id(&mut self) -> Option<u16> {
        for _ in 0..=self.limit / 2 {
            let id = self.next_id;
            self.next_id = match id.checked_add(2) {
                Some(n) if n < self.limit => n,
                _ => 2 - self.parity,
            };
            if id != 0 && id < self.limit && !self.slots.contains_key(&id) {
                return Some(id);
            }
        }
        None
    }

    /// The association ended: every stream fails with `why`.
    pub fn end_all(&mut self, why: String) {
        self.ended.get_or_insert(why);
        for s in self.slots.values_mut() {
            s.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_stream() -> (ConnState, mpsc::UnboundedReceiver<Out>) {
        let (out, rx) = mpsc::unbounded_channel();
        let mut st = ConnState {
            slots: HashMap::new(),
            ended: None,
            limit: 16,
            parity: 1,
            next_id: 1,
            stats: StreamStats::default(),
            reset_freed: false,
            out,
        };
        st.slots.insert(1, Slot::new());
        (st, rx)
    }

    /// The grants the writer task would send now.
    fn grants(st: &mut ConnState, rx: &mut mpsc::UnboundedReceiver<Out>) -> Vec<u32> {
        let mut sent = Vec::new();
        while let Ok(o) = rx.try_recv() {
            if let Out::Window(id) = o {
                sent.extend(st.take_grant(id));
            }
        }
        sent
    }

    /// Reads one message of `n` bytes that had arrived.
    fn read(st: &mut ConnState, n: usize, window: usize) {
        let s = st.slots.get_mut(&1).expect("the stream");
        s.unannounced += n;
        st.maybe_grant(1, window);
    }

    #[test]
    fn a_reader_that_keeps_up_grants_an_eighth_of_the_window_at_a_time() {
        // peer --DATA 64 KiB--> reader reads it, buffer empty again; x64
        // reader --WINDOW 512 KiB--> peer after every 8 messages
        let window = 4 << 20;
        let (mut st, mut rx) = one_stream();
        let mut sent = Vec::new();
        for _ in 0..64 {
            read(&mut st, 64 << 10, window);
            sent.extend(grants(&mut st, &mut rx));
        }
        assert_eq!(sent, vec![512 << 10; 8]);
    }

    #[test]
    fn a_reader_behind_grants_a_quarter_and_a_small_read_waits() {
        let window = 4 << 20;
        let (mut st, mut rx) = one_stream();
        // 100 bytes read, buffer drained: no WINDOW for so little.
        read(&mut st, 100, window);
        assert!(grants(&mut st, &mut rx).is_empty());
        // More still buffered: nothing until a quarter was read.
        st.slots.get_mut(&1).expect("the stream").buffered = 1 << 20;
        read(&mut st, window / 8, window);
        assert!(grants(&mut st, &mut rx).is_empty());
        read(&mut st, window / 8, window);
        assert_eq!(grants(&mut st, &mut rx), vec![(window / 4 + 100) as u32]);
    }
}
