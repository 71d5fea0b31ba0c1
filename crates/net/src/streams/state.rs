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
    /// To the writer task. Unbounded as a channel, bounded by what can
    /// enter it: DATA only within the peer's credit (at most
    /// `stream_window` per stream), at most one queued `Window` per
    /// stream (grants coalesce), OPEN, FIN, RESET and DONE once each per
    /// stream, and streams are bounded by `max_streams`.
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
    /// of the stream; frees the number once DONE went both ways.
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
        }
    }

    /// Queues a grant for `id` if its reader consumed enough (a quarter
    /// of the window) or drained the buffer.
    pub fn maybe_grant(&mut self, id: u16, window: usize) {
        let Some(s) = self.slots.get_mut(&id) else {
            return;
        };
        let due = s.unannounced >= window / 4 || (s.buffered == 0 && s.unannounced > 0);
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
