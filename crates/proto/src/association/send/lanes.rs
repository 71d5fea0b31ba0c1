//! A send buffer per path for CMT (Budzisz et al., section 4.3.2.1: "the
//! single-buffer SCTP architecture must be replaced by a *multibuffer*
//! structure, giving to each interface its own send buffer").
//!
//! With `CmtConfig::path_send_buffer` set, the CMT scheduler assigns
//! each next chunk of the queue to a path's buffer, and the path sends
//! what its buffer holds when its congestion window lets it. A buffer
//! holds chunk slots (their sizes), not the chunks: the data, its stream
//! sequence number (or MID and FSN, RFC 8260) and its TSN are taken from
//! the shared queue when the chunk leaves, so the order of stream
//! sequence numbers is the order of TSNs, as in single-path SCTP.
//! Declared choice: with the sequence number given when a chunk entered a
//! buffer, a chunk waiting in a slow path's buffer held back delivery of
//! every later one that had left over the fast path; the receiver's
//! window filled with them and dropped the missing chunk when it came (a
//! deadlock, E9's first run with the buffers: no goodput at 16 and
//! 64 KiB). A buffer holds at most `path_send_buffer` bytes (one chunk at
//! least).
//!
//! What the buffers change: a path whose window is full holds only the
//! slots assigned to it; without them the next chunk waits for the path
//! the scheduler picked, and every other path with it.
//!
//! A message that would be fragmented into DATA chunks is not assigned
//! (its fragments must have consecutive TSNs, RFC 9260 section 6.9); it
//! leaves from the shared queue once every buffer is empty.

use std::collections::VecDeque;

use super::Sender;

/// The per-path send buffers (empty when unused): chunk sizes per path.
#[derive(Debug, Clone, Default)]
pub(crate) struct Lanes {
    queues: Vec<VecDeque<usize>>,
    /// Bytes per buffer.
    bytes: Vec<usize>,
}

impl Sender {
    /// The per-path send buffers are in use: CMT is on with a buffer size.
    pub fn lanes_on(&self) -> bool {
        self.cmt.enabled && self.cmt.path_send_buffer > 0
    }

    /// Some path's buffer holds a chunk (and the queue its data).
    pub fn lanes_hold(&self) -> bool {
        self.lanes_on() && !self.queue.is_empty() && self.lanes.bytes.iter().any(|&b| b > 0)
    }

    /// Bytes assigned to path `path`'s buffer.
    pub fn lane_bytes(&self, path: usize) -> usize {
        if self.queue.is_empty() {
            return 0;
        }
        self.lanes.bytes.get(path).copied().unwrap_or(0)
    }

    /// Bytes assigned to all buffers.
    fn lanes_total(&self) -> usize {
        self.lanes.bytes.iter().sum()
    }

    /// One buffer per path.
    pub fn lanes_resize(&mut self, paths: usize) {
        if self.lanes.queues.len() < paths {
            self.lanes.queues.resize_with(paths, VecDeque::new);
            self.lanes.bytes.resize(paths, 0);
        }
    }

    /// Forgets every assignment (the queue emptied, CMT was turned off,
    /// or the scheduler places every slot not sent yet again): the
    /// queue's data is all unassigned (the slots hold no chunk, see the
    /// module's note).
    pub fn lanes_clear(&mut self) {
        for path in 0..self.lanes.queues.len() {
            self.lane_release(path);
        }
    }

    /// The queue holds data not yet assigned to a buffer, and the next
    /// chunk is no fragment of a DATA message (see the module's note).
    /// Returns its size.
    pub fn lane_fill_ready(&mut self, max_payload: usize) -> Option<usize> {
        if self.queue.is_empty() || !self.lanes_on() {
            self.lanes_clear();
            return None;
        }
        let unassigned = self.queued_bytes.checked_sub(self.lanes_total())?;
        if unassigned == 0 {
            return None;
        }
        let idx = self.scheduled()?;
        let run = &self.queue[idx];
        if !self.interleave && (run.offset > 0 || run.data.len() > max_payload) {
            return None;
        }
        let size = self.peek_chunk_len(max_payload)?;
        Some(size.min(unassigned + self.extra_header()))
    }

    /// Assigns a chunk of `size` bytes to path `path`'s buffer.
    pub fn lane_fill(&mut self, path: usize, size: usize) {
        self.lanes_resize(path + 1);
        self.lanes.bytes[path] += size;
        self.lanes.queues[path].push_back(size);
    }

    /// Takes back path `path`'s slots not sent yet (it no longer takes
    /// data): their data is unassigned again, for the scheduler to place.
    pub fn lane_release(&mut self, path: usize) {
        if let Some(q) = self.lanes.queues.get_mut(path) {
            q.clear();
            self.lanes.bytes[path] = 0;
        }
    }

    /// Moves path `from`'s assignments to path `to`: `from` is gone.
    pub fn lane_move(&mut self, from: usize, to: usize) {
        if from == to || self.lanes.bytes.get(from).is_none_or(|&b| b == 0) {
            return;
        }
        self.lanes_resize(to.max(from) + 1);
        let moved = std::mem::take(&mut self.lanes.queues[from]);
        let bytes = std::mem::take(&mut self.lanes.bytes[from]);
        self.lanes.queues[to].extend(moved);
        self.lanes.bytes[to] += bytes;
    }

    /// Size of the next chunk path `path` would send (as
    /// [`Sender::peek_chunk_len`]): with the buffers in use, only what is
    /// assigned to `path` (nothing else while the queue's next chunk can
    /// be assigned); otherwise the queue's next chunk.
    pub fn peek_chunk_len_on(&self, path: usize, max_payload: usize) -> Option<usize> {
        let next = self.peek_chunk_len(max_payload)?;
        if !self.lanes_on() {
            return Some(next);
        }
        if let Some(&slot) = self.lanes.queues.get(path).and_then(|q| q.front()) {
            return Some(slot.min(next));
        }
        if self.lanes_hold() {
            return None;
        }
        let run = &self.queue[self.scheduled()?];
        let assignable = self.interleave || (run.offset == 0 && run.data.len() <= max_payload);
        (!assignable).then_some(next)
    }

    /// A chunk left on path `path`: its slot is used.
    pub(super) fn lane_sent(&mut self, path: usize) {
        if let Some(q) = self.lanes.queues.get_mut(path)
            && let Some(size) = q.pop_front()
        {
            self.lanes.bytes[path] -= size;
        }
        if self.queue.is_empty() {
            self.lanes_clear();
        }
    }

    /// Path `removed` is gone: its assignments go to the first remaining
    /// path, the buffers above it shift down.
    pub(super) fn lanes_path_removed(&mut self, removed: usize) {
        if removed >= self.lanes.queues.len() {
            return;
        }
        let target = if removed == 0 { 1 } else { 0 };
        if target < self.lanes.queues.len() {
            self.lane_move(removed, target);
        }
        self.lanes.queues.remove(removed);
        self.lanes.bytes.remove(removed);
    }
}
