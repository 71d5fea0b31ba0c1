//! A send buffer per path for CMT (Budzisz et al., section 4.3.2.1: "the
//! single-buffer SCTP architecture must be replaced by a *multibuffer*
//! structure, giving to each interface its own send buffer").
//!
//! With `CmtConfig::path_send_buffer` set, the CMT scheduler assigns each
//! chunk to a path when it is cut from the message queue, and the chunk
//! waits in that path's buffer until the path's congestion window lets
//! it leave. A chunk gets its stream sequence number (or MID and FSN,
//! RFC 8260) when it is cut and its TSN when it leaves (RFC 9260 section
//! 6.9 gives a fragmented message consecutive TSNs; the TSN order stays
//! the order of departure, so SACK processing is unchanged and the
//! receiver, as the paper demands, is a standard one). A path's buffer
//! holds at most `path_send_buffer` bytes (one chunk at least).
//!
//! What the buffers change: a path whose window is full holds only the
//! chunks assigned to it; without them the next chunk waits for the path
//! the scheduler picked, and every other path with it.
//!
//! Declared simplifications: a message that would be fragmented into
//! DATA chunks is not assigned (its fragments must have consecutive
//! TSNs); it leaves from the shared queue once every buffer is empty.
//! Chunks waiting in a buffer are not abandoned under PR-SCTP before they
//! leave (bounded by the buffer's size).

use std::collections::VecDeque;

use super::MessageId;
use super::Sender;
use super::partial::Pr;
use crate::wire::DataChunk;

/// A chunk cut from a message, with its stream sequence number (or MID
/// and FSN), waiting for its TSN.
#[derive(Debug, Clone)]
pub(crate) struct CutChunk {
    /// The chunk; its `tsn` is given when it leaves.
    pub data: DataChunk,
    pub pr: Pr,
    pub interleaved: Option<MessageId>,
}

impl CutChunk {
    /// Bytes counted for it: payload, plus I-DATA's extra header.
    fn len(&self) -> usize {
        self.data.payload.len()
            + if self.interleaved.is_some() {
                super::interleave::IDATA_EXTRA
            } else {
                0
            }
    }
}

/// The per-path send buffers (empty when unused).
#[derive(Debug, Clone, Default)]
pub(crate) struct Lanes {
    queues: Vec<VecDeque<CutChunk>>,
    /// Payload bytes per buffer.
    bytes: Vec<usize>,
}

impl Sender {
    /// The per-path send buffers are in use: CMT is on with a buffer size.
    pub fn lanes_on(&self) -> bool {
        self.cmt.enabled && self.cmt.path_send_buffer > 0
    }

    /// Some path's buffer holds a chunk.
    pub fn lanes_hold(&self) -> bool {
        self.lanes.bytes.iter().any(|&b| b > 0)
    }

    /// Payload bytes waiting in path `path`'s buffer.
    pub fn lane_bytes(&self, path: usize) -> usize {
        self.lanes.bytes.get(path).copied().unwrap_or(0)
    }

    /// Payload bytes waiting in all buffers.
    pub(super) fn lanes_total(&self) -> usize {
        self.lanes.bytes.iter().sum()
    }

    /// One buffer per path.
    pub fn lanes_resize(&mut self, paths: usize) {
        if self.lanes.queues.len() < paths {
            self.lanes.queues.resize_with(paths, VecDeque::new);
            self.lanes.bytes.resize(paths, 0);
        }
    }

    /// The next chunk could be assigned to a buffer: the queue holds data
    /// and it is no fragment of a DATA message (see the module's note).
    pub fn lane_fill_ready(&self, max_payload: usize) -> bool {
        let Some(idx) = self.scheduled() else {
            return false;
        };
        if self.interleave {
            return true;
        }
        let run = &self.queue[idx];
        run.offset == 0 && run.data.len() <= max_payload
    }

    /// Cuts the next chunk from the queue into path `path`'s buffer.
    pub fn lane_fill(&mut self, path: usize, max_payload: usize) -> bool {
        self.lanes_resize(path + 1);
        let Some(c) = self.cut_chunk(max_payload) else {
            return false;
        };
        self.lanes.bytes[path] += c.data.payload.len();
        self.lanes.queues[path].push_back(c);
        true
    }

    /// Moves every chunk of path `from`'s buffer to the front of path
    /// `to`'s, in order (they were cut before those `to` holds): `from`
    /// no longer takes data.
    pub fn lane_move(&mut self, from: usize, to: usize) {
        if from == to || self.lane_bytes(from) == 0 {
            return;
        }
        self.lanes_resize(to.max(from) + 1);
        let moved = std::mem::take(&mut self.lanes.queues[from]);
        let bytes = std::mem::take(&mut self.lanes.bytes[from]);
        let q = &mut self.lanes.queues[to];
        for c in moved.into_iter().rev() {
            q.push_front(c);
        }
        self.lanes.bytes[to] += bytes;
    }

    /// Size of the next chunk path `path` would send (as
    /// [`Sender::peek_chunk_len`]): the head of its buffer; with the
    /// buffers on and the queue's next chunk assignable, nothing else;
    /// with them off but still holding chunks (CMT turned off), the head
    /// of the first buffer that holds one.
    pub fn peek_chunk_len_on(&self, path: usize, max_payload: usize) -> Option<usize> {
        if let Some(c) = self.lanes.queues.get(path).and_then(|q| q.front()) {
            return Some(c.len());
        }
        if self.lanes_hold() {
            if self.lanes_on() {
                return None;
            }
            return self
                .lanes
                .queues
                .iter()
                .find_map(|q| q.front())
                .map(CutChunk::len);
        }
        if self.lanes_on() && self.lane_fill_ready(max_payload) {
            return None;
        }
        self.peek_chunk_len(max_payload)
    }

    /// Size of the next chunk any path would send: the queue's, else the
    /// first buffered one.
    pub fn peek_any_chunk_len(&self, max_payload: usize) -> Option<usize> {
        self.peek_chunk_len(max_payload).or_else(|| {
            self.lanes
                .queues
                .iter()
                .find_map(|q| q.front())
                .map(CutChunk::len)
        })
    }

    /// The chunk path `path` sends next from the buffers (see
    /// [`Sender::peek_chunk_len_on`]), taken out.
    pub(super) fn lane_pop(&mut self, path: usize) -> Option<CutChunk> {
        let from = if self.lanes.queues.get(path).is_some_and(|q| !q.is_empty()) {
            path
        } else if !self.lanes_on() {
            self.lanes.queues.iter().position(|q| !q.is_empty())?
        } else {
            return None;
        };
        let c = self.lanes.queues[from].pop_front()?;
        self.lanes.bytes[from] -= c.data.payload.len();
        Some(c)
    }

    /// Path `removed` is gone: its buffer's chunks go to the front of the
    /// first remaining path's, the buffers above it shift down.
    pub(super) fn lanes_path_removed(&mut self, removed: usize) {
        if removed >= self.lanes.queues.len() {
            return;
        }
        let target = if removed == 0 { 1 } else { 0 };
        if target < self.lanes.queues.len() {
            self.lane_move(removed, target);
        }
        let left = self.lanes.queues.remove(removed);
        self.lanes.bytes.remove(removed);
        // No path left: the chunks go back with the rest of the unsent
        // data (drain_unsent) through the first buffer.
        if !left.is_empty() {
            self.lanes_resize(1);
            let n = left.iter().map(|c| c.data.payload.len()).sum::<usize>();
            self.lanes.queues[0].extend(left);
            self.lanes.bytes[0] += n;
        }
    }

    /// Takes every buffered chunk out, in the order they were cut per
    /// buffer, for [`Sender::drain_unsent`].
    pub(super) fn lanes_drain(&mut self) -> Vec<CutChunk> {
        let mut out = Vec::new();
        for q in &mut self.lanes.queues {
            out.extend(q.drain(..));
        }
        for b in &mut self.lanes.bytes {
            *b = 0;
        }
        out
    }
}
