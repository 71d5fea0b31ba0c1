//! The sending half of an association: user messages waiting to be sent,
//! their fragmentation into DATA chunks (RFC 9260 section 6.9), the
//! retransmission queue of chunks sent but not cumulatively acknowledged,
//! and the processing of SACKs: RTT measurement, congestion window updates,
//! missing reports and fast retransmit (sections 6.2.1, 6.3 and 7.2).

use std::collections::VecDeque;
use std::time::Duration;

use bytes::Bytes;
use smallvec::SmallVec;

use crate::Time;
use crate::config::CmtConfig;
use crate::path::Path;
use crate::tsn;
use crate::wire::{DataChunk, SackChunk};

/// User messages queued for sending: a run of `count` consecutive
/// messages with the same stream, PPID and ordering and the very same
/// payload (one `Bytes`: the same memory and length, hence the same bytes),
/// with consecutive stream sequence numbers when ordered. A real
/// application's messages have payloads of their own and make runs of one,
/// as one entry per message did before. A generated bulk source fills the
/// send buffer with equal messages (the simulator's payload is one shared
/// buffer of zeros: about 736 messages of 1 424 bytes in a 1 MB buffer):
/// one entry per message took 48 bytes each, the queue's capacity growing
/// to 1 024 entries, 48 kB per association and 54 MB of the 150 MB heap at
/// 1 000 simulated stations; as a run it is one entry. The chunks cut from
/// a run are exactly those its messages would give one by one.
#[derive(Debug, Clone)]
struct OutRun {
    data: Bytes,
    /// Bytes of the run's first message already cut into chunks.
    offset: usize,
    /// Messages in the run, the first included (at least 1).
    count: u32,
    ppid: u32,
    stream: u16,
    /// The SSN of the run's first message (0 for unordered messages).
    ssn: u16,
    unordered: bool,
}

impl OutRun {
    /// Bytes not yet cut into chunks.
    fn remaining(&self) -> usize {
        self.data.len() * self.count as usize - self.offset
    }

    /// Whether a message pushed now (`ssn` its SSN) continues this run.
    fn continued_by(
        &self,
        stream: u16,
        ssn: u16,
        ppid: u32,
        unordered: bool,
        data: &Bytes,
    ) -> bool {
        self.stream == stream
            && self.ppid == ppid
            && self.unordered == unordered
            && self.count < u32::MAX
            && (unordered || self.ssn.wrapping_add(self.count as u16) == ssn)
            // The run holds its `data`, so equal pointers cannot be a
            // freed and reused allocation with other contents.
            && self.data.as_ptr() == data.as_ptr()
            && self.data.len() == data.len()
    }
}

/// Why a chunk is waiting for retransmission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retransmit {
    /// Three missing reports (section 7.2.4).
    Fast,
    /// T3-rtx expiry on the destination it was sent to (section 6.3.3).
    Timeout,
    /// Its destination was deleted by the peer (RFC 5061).
    Rehome,
    /// The application moved data off its path at once (a handover: the
    /// link under that path went down), see
    /// [`Association::retransmit_path_data`](crate::Association::retransmit_path_data).
    Handover,
}

/// A DATA chunk that has a TSN and is not yet cumulatively acknowledged.
#[derive(Debug, Clone)]
pub struct SentChunk {
    pub data: DataChunk,
    /// Index of the path it was last sent on.
    pub path: usize,
    pub sent_at: Time,
    pub transmissions: u32,
    /// Acknowledged by a gap block (can be reneged).
    pub gap_acked: bool,
    /// Its next acknowledgement says nothing new about the path it is
    /// assigned to, and is not counted as newly acknowledged for missing
    /// reports or windows: a gap block acknowledged it and a later SACK no
    /// longer did (reneged, or a SACK overtaken by an older one on another
    /// path; as FreeBSD's `chunk_was_revoked`), or it was in flight to a
    /// peer address deleted under CMT and held ([`Sender::rehome`]).
    pub revoked: bool,
    /// Counted in its path's flight size.
    pub in_flight: bool,
    pub marked: Option<Retransmit>,
    pub missing_reports: u32,
    /// A SACK counts as a missing report only if it newly acknowledges a
    /// TSN above this one: the chunk's own TSN when first sent, the
    /// highest TSN sent so far when retransmitted. Acknowledgements of
    /// data sent before a retransmission say nothing about whether the
    /// retransmission arrived (the rule of FreeBSD's
    /// `sctp_strike_gap_ack_chunks`); counting them would fast-retransmit
    /// it again, spuriously, and cut the window of the path it was
    /// retransmitted on.
    pub strike_above: u32,
    pub fast_retransmitted: bool,
    /// Why it was last retransmitted (`None`: sent once).
    pub last_retransmit: Option<Retransmit>,
    /// The route (`Path::route`) it was last sent on.
    pub route: u32,
}

impl SentChunk {
    /// Bytes of user data.
    pub fn payload_len(&self) -> u32 {
        self.data.payload.len() as u32
    }
}

/// One value per path, without a heap allocation for the usual few paths
/// (a SACK is processed per packet; its per-path tallies were half a dozen
/// allocations each).
pub type PerPath<T> = SmallVec<[T; 4]>;

/// What a SACK did, for the association to act on.
#[derive(Debug, Default)]
pub struct SackOutcome {
    /// The SACK was older than the current cumulative ack point and was
    /// ignored.
    pub stale: bool,
    /// The SACK acknowledged a TSN never sent: protocol violation.
    pub acks_unsent: bool,
    pub cum_advanced: bool,
    /// Bytes newly acknowledged (cumulatively or by gap blocks).
    pub bytes_acked: u64,
    /// Chunks newly marked for fast retransmission.
    pub fast_retransmits: u32,
    /// Paths that had data acknowledged (their error counters reset).
    pub acked_paths: PerPath<usize>,
    /// Of those, the paths where at least one newly acknowledged chunk was
    /// not marked for timeout retransmission: ns-2 clears the error
    /// counter only for these (`ErrorCounterReset::Ns2`).
    pub acked_unmarked_paths: PerPath<usize>,
    /// Paths that entered fast recovery.
    pub entered_fast_recovery: PerPath<usize>,
    /// Bytes newly acknowledged per path (index as in the path list).
    pub acked_bytes: PerPath<u32>,
}

/// Sender state.
#[derive(Debug, Clone)]
pub struct Sender {
    queue: VecDeque<OutRun>,
    /// Bytes of messages not yet cut into chunks.
    queued_bytes: usize,
    next_ssn: Vec<u16>,
    /// TSN-ordered: `outstanding[i].data.tsn == cum_ack + 1 + i`.
    outstanding: VecDeque<SentChunk>,
    /// Peer's cumulative TSN ack point.
    pub cum_ack: u32,
    pub next_tsn: u32,
    /// Peer receive window as last computed (section 6.2.1).
    pub peer_rwnd: u32,
    /// The window the peer advertised in its INIT or INIT ACK: the initial
    /// ssthresh of every path, also of those added later by ASCONF
    /// (section 7.2.1, "arbitrarily high"; the current `peer_rwnd` may be
    /// near zero while the window is full).
    pub peer_initial_rwnd: u32,
    /// Payload bytes in the retransmission queue.
    outstanding_bytes: usize,
    /// Chunks currently marked for retransmission.
    marked: usize,
    /// The highest TSN a gap block acknowledged (the chunks above it are
    /// not gap-acked), so that a SACK looks no further.
    highest_gap_acked: Option<u32>,
    /// Split fast retransmit for CMT (docs/MODELS.md section 3): a missing
    /// report counts only when a later chunk sent on the same path is newly
    /// acknowledged.
    pub split_fast_retransmit: bool,
    /// Concurrent multipath transfer: the sender's algorithms (SFR, CUC,
    /// DAC) apply when it is enabled.
    pub cmt: CmtConfig,
    /// The last retransmitted TSNs (and whether by fast retransmit), to
    /// recognise the peer's duplicate reports of them: a retransmission
    /// the peer reports as a duplicate was spurious.
    recent_retransmits: VecDeque<(u32, bool)>,
    /// Which scanned chunks a SACK's gap blocks cover (memory reused from
    /// SACK to SACK).
    covered: Vec<bool>,
    pub stats: SenderCounters,
}

/// The route of chunks held after their destination was deleted: no
/// path has it.
const HELD_ROUTE: u32 = u32::MAX;

/// Retransmitted TSNs remembered for spurious-retransmission detection.
const RECENT_RETRANSMITS: usize = 256;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SenderCounters {
    pub messages_queued: u64,
    pub data_chunks_sent: u64,
    pub retransmitted_chunks: u64,
    pub fast_retransmitted_chunks: u64,
    pub bytes_acked: u64,
    /// Retransmissions the peer reported as duplicates (it had the data).
    pub spurious_retransmissions: u64,
    /// Of these, fast retransmissions.
    pub spurious_fast_retransmissions: u64,
}

impl Sender {
    pub fn new(initial_tsn: u32, outbound_streams: u16, peer_rwnd: u32) -> Self {
        Sender {
            queue: VecDeque::new(),
            queued_bytes: 0,
            next_ssn: vec![0; outbound_streams as usize],
            outstanding: VecDeque::new(),
            cum_ack: initial_tsn.wrapping_sub(1),
            next_tsn: initial_tsn,
            peer_rwnd,
            peer_initial_rwnd: peer_rwnd,
            outstanding_bytes: 0,
            marked: 0,
            highest_gap_acked: None,
            split_fast_retransmit: false,
            cmt: CmtConfig::default(),
            recent_retransmits: VecDeque::new(),
            covered: Vec::new(),
            stats: SenderCounters::default(),
        }
    }

    pub fn outbound_streams(&self) -> u16 {
        self.next_ssn.len() as u16
    }

    /// Bytes the send buffer holds (queued plus unacknowledged).
    pub fn buffered(&self) -> usize {
        self.queued_bytes + self.outstanding_bytes
    }

    /// Nothing queued and nothing unacknowledged.
    pub fn is_idle(&self) -> bool {
        self.queue.is_empty() && self.outstanding.is_empty()
    }

    pub fn has_queued(&self) -> bool {
        !self.queue.is_empty()
    }

    pub fn has_outstanding(&self) -> bool {
        !self.outstanding.is_empty()
    }

    pub fn has_marked(&self) -> bool {
        self.marked > 0
    }

    pub fn outstanding(&self) -> impl Iterator<Item = &SentChunk> {
        self.outstanding.iter()
    }

    /// Queues a message; the caller checked stream validity and buffer room.
    pub fn push(&mut self, stream: u16, ppid: u32, unordered: bool, data: Bytes) {
        let ssn = if unordered {
            0
        } else {
            let s = &mut self.next_ssn[stream as usize];
            let v = *s;
            *s = s.wrapping_add(1);
            v
        };
        self.queued_bytes += data.len();
        self.stats.messages_queued += 1;
        if let Some(run) = self.queue.back_mut()
            && run.continued_by(stream, ssn, ppid, unordered, &data)
        {
            run.count += 1;
            return;
        }
        self.queue.push_back(OutRun {
            data,
            offset: 0,
            count: 1,
            ppid,
            stream,
            ssn,
            unordered,
        });
    }

    /// Cuts the next DATA chunk (at most `max_payload` bytes of user data)
    /// from the head of the queue and gives it the next TSN. The chunk is
    /// appended to the retransmission queue as sent on `path` at `now`.
    pub fn next_chunk(
        &mut self,
        max_payload: usize,
        path: usize,
        route: u32,
        now: Time,
    ) -> Option<&SentChunk> {
        // The first message of the run at the head.
        let run = self.queue.front_mut()?;
        let remaining = run.data.len() - run.offset;
        let take = remaining.min(max_payload.max(1));
        let payload = run.data.slice(run.offset..run.offset + take);
        let begin = run.offset == 0;
        run.offset += take;
        let end = run.offset == run.data.len();
        let chunk = DataChunk {
            tsn: self.next_tsn,
            stream_id: run.stream,
            ssn: run.ssn,
            ppid: run.ppid,
            unordered: run.unordered,
            begin,
            end,
            immediate: false,
            payload,
        };
        if end {
            if run.count > 1 {
                // On to the run's next message.
                run.count -= 1;
                run.offset = 0;
                if !run.unordered {
                    run.ssn = run.ssn.wrapping_add(1);
                }
            } else {
                self.queue.pop_front();
            }
        }
        self.queued_bytes -= take;
        self.outstanding_bytes += take;
        self.next_tsn = self.next_tsn.wrapping_add(1);
        self.stats.data_chunks_sent += 1;
        let strike_above = chunk.tsn;
        self.outstanding.push_back(SentChunk {
            data: chunk,
            path,
            sent_at: now,
            transmissions: 1,
            gap_acked: false,
            revoked: false,
            in_flight: true,
            marked: None,
            missing_reports: 0,
            strike_above,
            fast_retransmitted: false,
            last_retransmit: None,
            route,
        });
        self.outstanding.back()
    }

    /// Checks the sender's bookkeeping against its queues: TSNs of the
    /// retransmission queue consecutive from the cumulative ack point, the
    /// byte and mark counters equal to what the queues hold, and every
    /// path's flight size equal to the payload of the chunks counted in
    /// flight there. For tests and fuzz targets (it walks every queue).
    pub fn check_accounting(&self, paths: &[Path]) -> Result<(), String> {
        for (i, c) in self.outstanding.iter().enumerate() {
            let want = self.cum_ack.wrapping_add(1).wrapping_add(i as u32);
            if c.data.tsn != want {
                return Err(format!(
                    "outstanding[{i}] has TSN {} not {want}",
                    c.data.tsn
                ));
            }
            if c.in_flight && c.path >= paths.len() {
                return Err(format!(
                    "TSN {} in flight on missing path {}",
                    c.data.tsn, c.path
                ));
            }
        }
        let next = self
            .cum_ack
            .wrapping_add(1)
            .wrapping_add(self.outstanding.len() as u32);
        if next != self.next_tsn {
            return Err(format!("next TSN {} but {} expected", self.next_tsn, next));
        }
        let bytes: usize = self.outstanding.iter().map(|c| c.data.payload.len()).sum();
        if bytes != self.outstanding_bytes {
            return Err(format!(
                "outstanding bytes {} but chunks hold {bytes}",
                self.outstanding_bytes
            ));
        }
        let queued: usize = self.queue.iter().map(OutRun::remaining).sum();
        if queued != self.queued_bytes {
            return Err(format!(
                "queued bytes {} but messages hold {queued}",
                self.queued_bytes
            ));
        }
        let marked = self
            .outstanding
            .iter()
            .filter(|c| c.marked.is_some())
            .count();
        if marked != self.marked {
            return Err(format!("{} marked but {marked} chunks are", self.marked));
        }
        for (i, p) in paths.iter().enumerate() {
            let flight: u64 = self
                .outstanding
                .iter()
                .filter(|c| c.in_flight && c.path == i)
                .map(|c| c.data.payload.len() as u64)
                .sum();
            if flight != u64::from(p.flight_size) {
                return Err(format!(
                    "path {i} flight size {} but {flight} in flight",
                    p.flight_size
                ));
            }
        }
        Ok(())
    }

    /// Size of the next chunk `next_chunk` would produce.
    pub fn peek_chunk_len(&self, max_payload: usize) -> Option<usize> {
        let run = self.queue.front()?;
        Some((run.data.len() - run.offset).min(max_payload.max(1)))
    }

    /// Index of the lowest-TSN chunk marked for retransmission.
    pub fn first_marked(&self) -> Option<usize> {
        if self.marked == 0 {
            return None;
        }
        self.outstanding.iter().position(|c| c.marked.is_some())
    }

    pub fn chunk(&self, idx: usize) -> &SentChunk {
        &self.outstanding[idx]
    }

    /// Indices of marked chunks, lowest TSN first.
    pub fn marked_indices(&self) -> Vec<usize> {
        if self.marked == 0 {
            return Vec::new();
        }
        self.outstanding
            .iter()
            .enumerate()
            .filter(|(_, c)| c.marked.is_some())
            .map(|(i, _)| i)
            .collect()
    }

    /// The outstanding chunk with TSN `tsn`, if it is still unacknowledged.
    pub fn outstanding_chunk(&self, tsn: u32) -> Option<&SentChunk> {
        let idx = tsn.wrapping_sub(self.cum_ack).wrapping_sub(1) as usize;
        self.outstanding.get(idx).filter(|c| c.data.tsn == tsn)
    }

    /// Records the retransmission of chunk `idx` on `path`.
    pub fn retransmitted(
        &mut self,
        idx: usize,
        path: usize,
        now: Time,
        paths: &mut [Path],
    ) -> &SentChunk {
        let c = &mut self.outstanding[idx];
        if let Some(why) = c.marked.take() {
            self.marked -= 1;
            c.last_retransmit = Some(why);
        }
        if self.recent_retransmits.len() >= RECENT_RETRANSMITS {
            self.recent_retransmits.pop_front();
        }
        self.recent_retransmits
            .push_back((c.data.tsn, c.last_retransmit == Some(Retransmit::Fast)));
        c.path = path;
        c.route = paths[path].route;
        c.sent_at = now;
        c.transmissions += 1;
        c.missing_reports = 0;
        c.revoked = false;
        c.strike_above = self.next_tsn.wrapping_sub(1);
        if !c.in_flight {
            c.in_flight = true;
            paths[path].flight_size += c.data.payload.len() as u32;
        }
        self.stats.retransmitted_chunks += 1;
        c
    }

    fn mark(&mut self, idx: usize, why: Retransmit, paths: &mut [Path]) {
        let c = &mut self.outstanding[idx];
        if c.gap_acked {
            return;
        }
        if c.marked.is_none() {
            self.marked += 1;
        }
        c.marked = Some(why);
        if c.in_flight {
            c.in_flight = false;
            let p = &mut paths[c.path];
            p.flight_size = p.flight_size.saturating_sub(c.data.payload.len() as u32);
        }
    }

    /// T3-rtx expired on `path`: every chunk in flight there is marked for
    /// retransmission (section 6.3.3 E3). Returns how many.
    pub fn mark_path_for_timeout(&mut self, path: usize, paths: &mut [Path]) -> usize {
        let idx: Vec<usize> = self
            .outstanding
            .iter()
            .enumerate()
            .filter(|(_, c)| c.path == path && c.in_flight)
            .map(|(i, _)| i)
            .collect();
        for &i in &idx {
            self.mark(i, Retransmit::Timeout, paths);
        }
        idx.len()
    }

    /// The path's link is gone (handover): every chunk in flight there is
    /// marked for retransmission on the data path, without the T3-rtx
    /// penalties (no cwnd collapse, no RTO back-off, no error counted).
    /// Returns how many.
    pub fn mark_path_for_handover(&mut self, path: usize, paths: &mut [Path]) -> usize {
        let idx: Vec<usize> = self
            .outstanding
            .iter()
            .enumerate()
            .filter(|(_, c)| c.path == path && c.in_flight)
            .map(|(i, _)| i)
            .collect();
        for &i in &idx {
            self.mark(i, Retransmit::Handover, paths);
        }
        idx.len()
    }

    /// A destination is being removed (the peer deleted the address):
    /// its chunks now belong to `to`, and those still in flight are marked
    /// for retransmission at once (the peer deletes an address it can no
    /// longer use, so what is in flight to it is presumed lost), or, with
    /// `hold`, left to arrive: they leave the flight, unmarked, until
    /// [`Sender::mark_held`] marks those still unacknowledged (CMT: the
    /// mobile leaves a network whose link still delivers, and the other
    /// paths have queues of their own that resent copies would wait in).
    pub fn rehome(&mut self, from: usize, to: usize, paths: &mut [Path], hold: bool) {
        let idx: Vec<usize> = self
            .outstanding
            .iter()
            .enumerate()
            .filter(|(_, c)| c.path == from && c.in_flight)
            .map(|(i, _)| i)
            .collect();
        for i in idx {
            if hold {
                let c = &mut self.outstanding[i];
                c.in_flight = false;
                // Its acknowledgement says nothing about `to`, and data
                // sent on `to` is no measure of its fate (split fast
                // retransmit compares it with no route).
                c.revoked = true;
                c.route = HELD_ROUTE;
            } else {
                self.mark(i, Retransmit::Rehome, paths);
            }
        }
        for c in self.outstanding.iter_mut() {
            if c.path == from {
                c.path = to;
            }
        }
        paths[from].flight_size = 0;
    }

    /// Marks for retransmission every chunk held by [`Sender::rehome`]
    /// that is still unacknowledged. Returns how many.
    pub fn mark_held(&mut self, paths: &mut [Path]) -> usize {
        let idx: Vec<usize> = self
            .outstanding
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.in_flight && !c.gap_acked && c.marked.is_none())
            .map(|(i, _)| i)
            .collect();
        for &i in &idx {
            self.mark(i, Retransmit::Rehome, paths);
        }
        idx.len()
    }

    /// After a path at index `removed` is deleted from the path vector,
    /// indices above it shift down by one.
    pub fn path_removed(&mut self, removed: usize) {
        for c in self.outstanding.iter_mut() {
            if c.path > removed {
                c.path -= 1;
            }
        }
    }

    /// Processes a SACK (section 6.2.1 and 7.2).
    pub fn on_sack(&mut self, sack: &SackChunk, now: Time, paths: &mut [Path]) -> SackOutcome {
        let mut out = SackOutcome::default();
        if tsn::lt(sack.cum_tsn_ack, self.cum_ack) {
            out.stale = true;
            return out;
        }
        let highest_sent = self.next_tsn.wrapping_sub(1);
        if tsn::gt(sack.cum_tsn_ack, highest_sent) {
            out.acks_unsent = true;
            return out;
        }
        for b in &sack.gap_blocks {
            if b.start > b.end || tsn::gt(sack.cum_tsn_ack.wrapping_add(b.end as u32), highest_sent)
            {
                out.acks_unsent = true;
                return out;
            }
        }
        self.note_duplicate_reports(&sack.dup_tsns);
        let sfr =
            self.split_fast_retransmit || (self.cmt.enabled && self.cmt.split_fast_retransmit);
        let cuc = self.cmt.enabled && self.cmt.cwnd_update;
        let dac = self.cmt.enabled && self.cmt.delayed_ack && sack.dac_packets() >= 2;
        let n_paths = paths.len();
        let flight_before: PerPath<u32> = paths.iter().map(|p| p.flight_size).collect();
        let mut acked_bytes: PerPath<u32> = smallvec::smallvec![0; n_paths];
        // The lowest TSN this SACK newly acknowledges (CMT DAC).
        let mut lowest_new: Option<u32> = None;
        // Highest TSN newly acked per path (split fast retransmit) and overall.
        let mut htna: Option<u32> = None;
        // Highest TSN newly acked per (path, route), for split fast retransmit.
        let mut htna_route: PerPath<((usize, u32), u32)> = SmallVec::new();
        let mut rtt_samples: PerPath<(usize, Duration)> = SmallVec::new();
        // Every scan below stops at the highest TSN this SACK can say
        // anything about (its cumulative point plus its last gap block,
        // or the highest chunk gap-acked before, whose block may be gone):
        // a SACK costs what it acknowledges, not the size of the window.
        let n_cum_raw = sack.cum_tsn_ack.wrapping_sub(self.cum_ack) as usize;
        let n_cum = n_cum_raw.min(self.outstanding.len());
        let max_end = sack
            .gap_blocks
            .iter()
            .map(|b| b.end as usize)
            .max()
            .unwrap_or(0);
        let old_gap_end = self
            .highest_gap_acked
            .map_or(0, |t| t.wrapping_sub(self.cum_ack) as usize);
        let prefix = (n_cum + max_end).min(self.outstanding.len());
        // Earliest outstanding TSN per path before the SACK, for the T3
        // rule R3 (only chunks this SACK can acknowledge matter).
        let mut earliest: PerPath<Option<u32>> = smallvec::smallvec![None; n_paths];
        for c in self.outstanding.range(..prefix).filter(|c| c.in_flight) {
            if c.path < n_paths && earliest[c.path].is_none() {
                earliest[c.path] = Some(c.data.tsn);
            }
        }
        let mut earliest_acked: PerPath<bool> = smallvec::smallvec![false; n_paths];
        let mut acked_unmarked: PerPath<bool> = smallvec::smallvec![false; n_paths];

        let mut ack_chunk = |c: &mut SentChunk, marked: &mut usize, paths: &mut [Path]| {
            let len = c.data.payload.len() as u32;
            let p = c.path.min(n_paths - 1);
            if c.in_flight {
                c.in_flight = false;
                paths[p].flight_size = paths[p].flight_size.saturating_sub(len);
            }
            match c.marked.take() {
                Some(Retransmit::Timeout) => *marked -= 1,
                Some(_) => {
                    *marked -= 1;
                    acked_unmarked[p] = true;
                }
                None => acked_unmarked[p] = true,
            }
            if earliest[p] == Some(c.data.tsn) {
                earliest_acked[p] = true;
            }
            if std::mem::take(&mut c.revoked) {
                // Acknowledged before: nothing new about its path.
                return;
            }
            if lowest_new.is_none() {
                lowest_new = Some(c.data.tsn);
            }
            acked_bytes[p] += len;
            if htna.is_none_or(|h| tsn::gt(c.data.tsn, h)) {
                htna = Some(c.data.tsn);
            }
            let key = (p, c.route);
            match htna_route.iter_mut().find(|(k, _)| *k == key) {
                Some((_, h)) if tsn::gt(c.data.tsn, *h) => *h = c.data.tsn,
                Some(_) => {}
                None => htna_route.push((key, c.data.tsn)),
            }
            if c.transmissions == 1
                && let Some((t, at)) = paths[p].rtt_probe
                && t == c.data.tsn
            {
                rtt_samples.push((p, now.saturating_since(at)));
                paths[p].rtt_probe = None;
            }
        };

        // Cumulative part.
        if n_cum_raw > 0 {
            out.cum_advanced = true;
            for _ in 0..n_cum {
                let Some(mut c) = self.outstanding.pop_front() else {
                    break;
                };
                if !c.gap_acked {
                    ack_chunk(&mut c, &mut self.marked, paths);
                } else if c.marked.take().is_some() {
                    self.marked -= 1;
                }
                self.outstanding_bytes -= c.data.payload.len();
            }
            self.cum_ack = sack.cum_tsn_ack;
        }
        // Gap blocks, and reneging of blocks no longer reported: the chunks
        // up to the last block, and up to the highest one gap-acked before.
        let scan = max_end
            .max(old_gap_end.saturating_sub(n_cum))
            .min(self.outstanding.len());
        let mut covered = std::mem::take(&mut self.covered);
        covered.clear();
        covered.resize(scan, false);
        for b in &sack.gap_blocks {
            // Offsets are relative to the new cumulative point: offset 1
            // is outstanding[0]. Offset 0 names the cumulative TSN itself
            // (already acknowledged; a start of 0 is malformed but
            // harmless), and the block is clamped to the queue so a peer's
            // huge gap lists cost at most one pass over it per block.
            let start = usize::from(b.start.max(1));
            let end = usize::from(b.end).min(covered.len());
            for slot in covered.iter_mut().take(end).skip(start - 1) {
                *slot = true;
            }
        }
        let mut highest_gap_acked = None;
        for (i, c) in self.outstanding.range_mut(..scan).enumerate() {
            if covered[i] {
                if !c.gap_acked {
                    c.gap_acked = true;
                    ack_chunk(c, &mut self.marked, paths);
                }
                highest_gap_acked = Some(c.data.tsn);
            } else if c.gap_acked {
                // Reneged (section 6.2.1): treat as not received; the
                // T3-rtx timer recovers it. Under CMT a SACK is often
                // overtaken by a newer one sent over a faster path, so the
                // chunk goes back in flight where it was sent (its timer
                // covers it) and its next acknowledgement, which follows
                // soon, is no news (`revoked`, as FreeBSD's
                // `chunk_was_revoked`). Without CMT the sender keeps
                // RFC 9260's plain rule (study E2 measures it).
                c.gap_acked = false;
                if !self.cmt.enabled {
                    continue;
                }
                c.revoked = true;
                if !c.in_flight && c.marked.is_none() && c.path < n_paths {
                    c.in_flight = true;
                    let p = &mut paths[c.path];
                    p.flight_size += c.data.payload.len() as u32;
                    if p.t3_deadline.is_none() {
                        p.t3_deadline = Some(now + p.rto.rto());
                    }
                }
            }
        }
        self.highest_gap_acked = highest_gap_acked;
        self.covered = covered;
        // CMT DAC (Iyengar et al.; usrsctp's `sctp_strike_gap_ack_chunks`):
        // a SACK for two packets that newly acknowledges data of one path
        // only says twice that a chunk below all it acknowledges is
        // missing.
        let dests_acked = acked_bytes.iter().filter(|&&b| b > 0).count();
        let double_strike_below = lowest_new.filter(|_| dac && dests_acked == 1);

        // Missing reports (HTNA, section 7.2.4; split fast retransmit for
        // CMT): only chunks below the highest TSN newly acknowledged can
        // be struck, all within the scanned range.
        if let Some(h) = htna {
            let mut newly_marked: SmallVec<[usize; 8]> = SmallVec::new();
            for (i, c) in self.outstanding.range_mut(..scan).enumerate() {
                if c.gap_acked || c.marked.is_some() {
                    continue;
                }
                let limit = if sfr {
                    htna_route
                        .iter()
                        .find(|(k, _)| *k == (c.path, c.route))
                        .map(|(_, h)| *h)
                } else {
                    Some(h)
                };
                let Some(limit) = limit else { continue };
                if !tsn::lt(c.strike_above, limit) {
                    continue;
                }
                // In fast recovery, only chunks above the recovery point are
                // candidates again once they were fast-retransmitted.
                c.missing_reports += 1;
                if double_strike_below.is_some_and(|l| tsn::lt(c.data.tsn, l)) {
                    c.missing_reports += 1;
                }
                if c.missing_reports >= 3 && !c.fast_retransmitted {
                    newly_marked.push(i);
                }
            }
            for i in newly_marked {
                let p = self.outstanding[i].path;
                self.mark(i, Retransmit::Fast, paths);
                self.outstanding[i].fast_retransmitted = true;
                self.stats.fast_retransmitted_chunks += 1;
                out.fast_retransmits += 1;
                let path = &mut paths[p];
                if path.fast_recovery_exit.is_none() {
                    path.cc.on_fast_retransmit();
                    path.fast_recovery_exit = Some(highest_sent);
                    path.stats.fast_retransmissions += 1;
                    out.entered_fast_recovery.push(p);
                }
            }
        }
        // Fast recovery exit, congestion windows, error counters, T3 timers.
        for p in 0..n_paths {
            if let Some(exit) = paths[p].fast_recovery_exit
                && (tsn::ge(self.cum_ack, exit) || (cuc && !self.in_flight_up_to(p, exit)))
            {
                // CMT: the path's own (virtual) cumulative ack point
                // passed the recovery point (usrsctp's pseudo-cumack).
                paths[p].fast_recovery_exit = None;
            }
            let path = &mut paths[p];
            if acked_bytes[p] > 0 {
                path.last_ack = Some(now);
                let in_fr = path.fast_recovery_exit.is_some();
                // CMT CUC: the window grows when the path's virtual
                // cumulative ack point (its earliest chunk in flight)
                // moves, although the association's may not.
                let cum = out.cum_advanced || (cuc && earliest_acked[p]);
                path.cc.on_ack(acked_bytes[p], flight_before[p], cum, in_fr);
                path.stats.bytes_acked += u64::from(acked_bytes[p]);
                out.acked_paths.push(p);
                if acked_unmarked[p] {
                    out.acked_unmarked_paths.push(p);
                }
                out.bytes_acked += acked_bytes[p] as u64;
            }
            if path.flight_size == 0 {
                path.t3_deadline = None;
                if acked_bytes[p] > 0 {
                    path.cc.on_all_acked();
                }
            } else if earliest_acked[p] {
                path.t3_deadline = Some(now + path.rto.rto());
            }
        }
        for (p, r) in rtt_samples {
            paths[p].rto.sample(r);
        }
        self.stats.bytes_acked += out.bytes_acked;
        let in_flight: u32 = paths.iter().map(|p| p.flight_size).sum();
        self.peer_rwnd = sack.a_rwnd.saturating_sub(in_flight);
        out.acked_bytes = acked_bytes;
        out
    }

    /// Some chunk sent to path `p` with a TSN at or below `upto` is still
    /// in flight (its virtual cumulative ack point has not passed `upto`).
    fn in_flight_up_to(&self, p: usize, upto: u32) -> bool {
        self.outstanding
            .iter()
            .take_while(|c| tsn::le(c.data.tsn, upto))
            .any(|c| c.in_flight && c.path == p)
    }

    /// The peer reported these TSNs as received more than once: a
    /// retransmission of one of them was spurious.
    fn note_duplicate_reports(&mut self, dups: &[u32]) {
        if self.recent_retransmits.is_empty() {
            return;
        }
        for d in dups {
            if let Some(i) = self.recent_retransmits.iter().position(|(t, _)| t == d) {
                let (_, fast) = self.recent_retransmits.remove(i).expect("found");
                self.stats.spurious_retransmissions += 1;
                if fast {
                    self.stats.spurious_fast_retransmissions += 1;
                }
            }
        }
    }

    /// A SHUTDOWN carries a cumulative TSN ack (section 9.2): processed as
    /// a SACK without gap blocks, keeping the last known window.
    pub fn on_shutdown_cum_ack(&mut self, cum: u32, now: Time, paths: &mut [Path]) -> SackOutcome {
        let in_flight: u32 = paths.iter().map(|p| p.flight_size).sum();
        let sack = SackChunk {
            flags: 0,
            cum_tsn_ack: cum,
            a_rwnd: self.peer_rwnd.saturating_add(in_flight),
            gap_blocks: vec![],
            dup_tsns: vec![],
        };
        self.on_sack(&sack, now, paths)
    }

    /// Everything still unsent or unacknowledged, for the application when
    /// the association ends (no data is silently lost).
    pub fn drain_unsent(&mut self) -> Vec<(u16, u32, Bytes)> {
        let mut out: Vec<(u16, u32, Bytes)> = Vec::new();
        // Unacknowledged chunks, re-joined per message where possible.
        for c in self.outstanding.drain(..) {
            out.push((c.data.stream_id, c.data.ppid, c.data.payload));
        }
        for m in self.queue.drain(..) {
            out.push((m.stream, m.ppid, m.data.slice(m.offset..)));
            for _ in 1..m.count {
                out.push((m.stream, m.ppid, m.data.clone()));
            }
        }
        self.queued_bytes = 0;
        self.outstanding_bytes = 0;
        self.marked = 0;
        self.highest_gap_acked = None;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::congestion::Congestion;
    use crate::path::RtoEstimator;
    use crate::wire::GapBlock;

    fn paths(n: usize) -> Vec<Path> {
        (0..n)
            .map(|i| {
                Path::new(
                    format!("10.0.0.{}", i + 1).parse().unwrap(),
                    RtoEstimator::new(
                        Duration::from_secs(1),
                        Duration::from_millis(100),
                        Duration::from_secs(60),
                    ),
                    Congestion::new(1000, 100_000, 1_000_000),
                    true,
                )
            })
            .collect()
    }

    fn send_n(s: &mut Sender, paths: &mut [Path], n: usize, path: usize, now: Time) {
        for _ in 0..n {
            s.push(0, 0, false, Bytes::from(vec![0u8; 100]));
            let len = s.next_chunk(1000, path, 0, now).unwrap().payload_len();
            paths[path].flight_size += len;
        }
    }

    fn sack(cum: u32, gaps: &[(u16, u16)]) -> SackChunk {
        SackChunk {
            flags: 0,
            cum_tsn_ack: cum,
            a_rwnd: 100_000,
            gap_blocks: gaps
                .iter()
                .map(|&(start, end)| GapBlock { start, end })
                .collect(),
            dup_tsns: vec![],
        }
    }

    #[test]
    fn fragmentation_sets_begin_and_end() {
        let mut s = Sender::new(10, 2, 10_000);
        s.push(1, 9, false, Bytes::from(vec![1u8; 2500]));
        let now = Time::ZERO;
        let a = s.next_chunk(1000, 0, 0, now).unwrap().data.clone();
        let b = s.next_chunk(1000, 0, 0, now).unwrap().data.clone();
        let c = s.next_chunk(1000, 0, 0, now).unwrap().data.clone();
        assert!(s.next_chunk(1000, 0, 0, now).is_none());
        assert_eq!(
            (a.tsn, a.begin, a.end, a.payload.len()),
            (10, true, false, 1000)
        );
        assert_eq!((b.tsn, b.begin, b.end), (11, false, false));
        assert_eq!(
            (c.tsn, c.begin, c.end, c.payload.len()),
            (12, false, true, 500)
        );
        assert_eq!(a.ssn, c.ssn);
        assert_eq!(s.buffered(), 2500);
    }

    /// Equal messages (one shared payload) are queued as runs, and cut
    /// into exactly the chunks, and drained as exactly the messages, that
    /// the same messages with payloads of their own give.
    #[test]
    fn equal_messages_queue_as_runs_and_give_the_same_chunks() {
        let zeros = Bytes::from_static(&[0u8; 4096]);
        let own = |n: usize| Bytes::from(vec![0u8; n]);
        // (stream, ppid, unordered, len); runs of shared payloads broken
        // by a change of stream, PPID, ordering, length or a payload of
        // its own.
        let mut msgs: Vec<(u16, u32, bool, usize, bool)> = Vec::new();
        msgs.extend((0..40).map(|_| (1, 7, false, 1424, true)));
        msgs.push((1, 7, false, 1424, false));
        msgs.extend((0..5).map(|_| (1, 7, true, 1424, true)));
        msgs.extend((0..5).map(|_| (0, 7, false, 1424, true)));
        msgs.extend((0..5).map(|_| (0, 8, false, 1424, true)));
        msgs.extend((0..5).map(|_| (0, 8, false, 300, true)));
        let mut shared = Sender::new(1, 2, 1 << 20);
        let mut separate = Sender::new(1, 2, 1 << 20);
        for &(stream, ppid, unordered, len, is_shared) in &msgs {
            let data = if is_shared {
                zeros.slice(..len)
            } else {
                own(len)
            };
            shared.push(stream, ppid, unordered, data);
            separate.push(stream, ppid, unordered, own(len));
        }
        assert_eq!(separate.queue.len(), msgs.len());
        assert_eq!(shared.queue.len(), 6, "runs of 40, 1, 5, 5, 5 and 5");
        assert_eq!(shared.buffered(), separate.buffered());
        let mut p = paths(1);
        let cut = |s: &mut Sender| {
            let c = &s.next_chunk(1000, 0, 0, Time::ZERO)?.data;
            Some((
                c.tsn,
                c.stream_id,
                c.ssn,
                c.ppid,
                c.unordered,
                c.begin,
                c.end,
                c.payload.clone(),
            ))
        };
        for k in 0..200 {
            let (a, b) = (cut(&mut shared), cut(&mut separate));
            assert_eq!(a, b, "chunk {k}");
            if let Some(c) = a {
                p[0].flight_size += c.7.len() as u32;
            }
            shared.check_accounting(&p).unwrap();
            assert_eq!(shared.peek_chunk_len(1000), separate.peek_chunk_len(1000));
            assert_eq!(shared.buffered(), separate.buffered());
            if k == 30 {
                // Part of the way through the first run, mid-message.
                assert_eq!(
                    shared.clone().drain_unsent(),
                    separate.clone().drain_unsent()
                );
            }
        }
        assert!(!shared.has_queued() && !separate.has_queued());
    }

    #[test]
    fn cumulative_ack_frees_buffer_and_samples_rtt() {
        let mut p = paths(1);
        let mut s = Sender::new(1, 1, 100_000);
        send_n(&mut s, &mut p, 3, 0, Time::ZERO);
        p[0].rtt_probe = Some((1, Time::ZERO));
        p[0].t3_deadline = Some(Time::from_secs(1));
        let o = s.on_sack(&sack(3, &[]), Time::from_millis(50), &mut p);
        assert!(o.cum_advanced);
        assert_eq!(o.bytes_acked, 300);
        assert_eq!(s.buffered(), 0);
        assert_eq!(p[0].flight_size, 0);
        assert_eq!(p[0].t3_deadline, None, "T3 stops when all acked");
        assert_eq!(p[0].rto.srtt(), Some(Duration::from_millis(50)));
    }

    #[test]
    fn stale_and_impossible_sacks() {
        let mut p = paths(1);
        let mut s = Sender::new(100, 1, 100_000);
        send_n(&mut s, &mut p, 5, 0, Time::ZERO);
        s.on_sack(&sack(102, &[]), Time::ZERO, &mut p);
        assert!(s.on_sack(&sack(101, &[]), Time::ZERO, &mut p).stale);
        assert!(s.on_sack(&sack(105, &[]), Time::ZERO, &mut p).acks_unsent);
        assert!(
            s.on_sack(&sack(102, &[(1, 9)]), Time::ZERO, &mut p)
                .acks_unsent
        );
    }

    #[test]
    fn gap_block_starting_at_offset_zero_is_harmless() {
        // Found by the `established` fuzz target: a Gap Ack Block Start of
        // 0 underflowed the offset arithmetic (a panic with overflow
        // checks on). Offset 0 names the cumulative TSN itself.
        let mut p = paths(1);
        let mut s = Sender::new(1, 1, 100_000);
        send_n(&mut s, &mut p, 4, 0, Time::ZERO);
        let o = s.on_sack(&sack(1, &[(0, 2)]), Time::ZERO, &mut p);
        assert!(!o.acks_unsent);
        // TSN 1 cumulatively, TSNs 2 and 3 by the block (offsets 1 and 2).
        assert_eq!(o.bytes_acked, 300);
        assert_eq!(p[0].flight_size, 100);
        s.check_accounting(&p).unwrap();
    }

    #[test]
    fn three_missing_reports_trigger_one_fast_retransmit() {
        let mut p = paths(1);
        let mut s = Sender::new(1, 1, 100_000);
        send_n(&mut s, &mut p, 6, 0, Time::ZERO);
        // TSN 1 lost; 2..4 arrive one by one.
        assert_eq!(
            s.on_sack(&sack(0, &[(2, 2)]), Time::ZERO, &mut p)
                .fast_retransmits,
            0
        );
        assert_eq!(
            s.on_sack(&sack(0, &[(2, 3)]), Time::ZERO, &mut p)
                .fast_retransmits,
            0
        );
        let o = s.on_sack(&sack(0, &[(2, 4)]), Time::ZERO, &mut p);
        assert_eq!(o.fast_retransmits, 1);
        assert_eq!(o.entered_fast_recovery.as_slice(), [0]);
        assert_eq!(p[0].cc.cwnd, 50_000);
        assert_eq!(s.first_marked(), Some(0));
        assert_eq!(
            p[0].flight_size, 200,
            "TSN 1 left the flight; 5 and 6 remain"
        );
        assert_eq!(s.outstanding_chunk(1).unwrap().last_retransmit, None);
        s.retransmitted(0, 0, Time::ZERO, &mut p);
        assert_eq!(
            s.outstanding_chunk(1).unwrap().last_retransmit,
            Some(Retransmit::Fast),
            "the reason of the last retransmission is kept for observers"
        );
        assert!(s.outstanding_chunk(7).is_none());
        assert!(s.outstanding_chunk(0).is_none());
        // More reports do not mark it again.
        assert_eq!(
            s.on_sack(&sack(0, &[(2, 5)]), Time::ZERO, &mut p)
                .fast_retransmits,
            0
        );
        assert_eq!(
            s.on_sack(&sack(0, &[(2, 6)]), Time::ZERO, &mut p)
                .fast_retransmits,
            0
        );
        // Recovery ends when the cumulative ack passes the exit point.
        s.on_sack(&sack(6, &[]), Time::ZERO, &mut p);
        assert_eq!(p[0].fast_recovery_exit, None);
    }

    #[test]
    fn a_retransmission_is_struck_only_by_data_sent_after_it() {
        // TSN 1 lost on path 0; its T3-rtx retransmission goes to path 1
        // while SACKs for data sent before it (2..6 on path 0) keep
        // arriving. They must not fast-retransmit it again, nor cut the
        // window of path 1 (section 7.2.4: the reports are about the
        // first transmission, already handled by the timeout).
        let mut p = paths(2);
        let mut s = Sender::new(1, 1, 100_000);
        send_n(&mut s, &mut p, 6, 0, Time::ZERO);
        assert_eq!(s.mark_path_for_timeout(0, &mut p), 6);
        s.retransmitted(0, 1, Time::ZERO, &mut p);
        let cwnd1 = p[1].cc.cwnd;
        for k in 2..=6u16 {
            let o = s.on_sack(&sack(0, &[(2, k)]), Time::ZERO, &mut p);
            assert_eq!(
                o.fast_retransmits, 0,
                "report {k} is older than the retransmission"
            );
        }
        assert_eq!(p[1].cc.cwnd, cwnd1);
        assert_eq!(s.outstanding_chunk(1).unwrap().missing_reports, 0);
        // Data sent after the retransmission does count: three SACKs
        // acknowledging TSNs 7..9 while 1 is still missing.
        send_n(&mut s, &mut p, 3, 1, Time::ZERO);
        let mut fr = 0;
        for k in 7..=9u16 {
            fr += s
                .on_sack(&sack(0, &[(2, k)]), Time::ZERO, &mut p)
                .fast_retransmits;
        }
        assert_eq!(fr, 1, "a lost retransmission is still detected");
        assert_eq!(s.outstanding_chunk(1).unwrap().path, 1);
    }

    #[test]
    fn split_fast_retransmit_ignores_reports_from_other_paths() {
        let mut p = paths(2);
        let mut s = Sender::new(1, 1, 100_000);
        s.split_fast_retransmit = true;
        send_n(&mut s, &mut p, 1, 0, Time::ZERO); // TSN 1 on the slow path 0
        send_n(&mut s, &mut p, 4, 1, Time::ZERO); // TSN 2..5 on the fast path 1
        for k in 2..=5u16 {
            let o = s.on_sack(&sack(0, &[(2, k)]), Time::ZERO, &mut p);
            assert_eq!(o.fast_retransmits, 0, "reordering across paths is not loss");
        }
        s.split_fast_retransmit = false;
        send_n(&mut s, &mut p, 3, 1, Time::ZERO); // TSN 6..8
        let mut total = 0;
        for k in 6..=8u16 {
            total += s
                .on_sack(&sack(0, &[(2, k)]), Time::ZERO, &mut p)
                .fast_retransmits;
        }
        assert_eq!(total, 1, "without SFR the same pattern is a loss");
    }

    #[test]
    fn split_fast_retransmit_separates_routes_under_one_path() {
        // One peer address, the source address changes (route 0 -> 1): data
        // sent on the new, faster route overtakes the old route's.
        let mut p = paths(1);
        let mut s = Sender::new(1, 1, 100_000);
        s.split_fast_retransmit = true;
        send_n(&mut s, &mut p, 1, 0, Time::ZERO); // TSN 1 on route 0
        p[0].route = 1;
        for _ in 0..4 {
            s.push(0, 0, false, Bytes::from(vec![0u8; 100]));
            let len = s.next_chunk(1000, 0, 1, Time::ZERO).unwrap().payload_len();
            p[0].flight_size += len;
        }
        for k in 2..=5u16 {
            assert_eq!(
                s.on_sack(&sack(0, &[(2, k)]), Time::ZERO, &mut p)
                    .fast_retransmits,
                0
            );
        }
    }

    #[test]
    fn timeout_marks_flight_of_that_path_only() {
        let mut p = paths(2);
        let mut s = Sender::new(1, 1, 100_000);
        send_n(&mut s, &mut p, 2, 0, Time::ZERO);
        send_n(&mut s, &mut p, 1, 1, Time::ZERO);
        assert_eq!(s.mark_path_for_timeout(0, &mut p), 2);
        assert_eq!(p[0].flight_size, 0);
        assert_eq!(p[1].flight_size, 100);
        assert_eq!(s.marked_indices(), vec![0, 1]);
        s.retransmitted(0, 1, Time::ZERO, &mut p);
        assert_eq!(p[1].flight_size, 200);
        assert_eq!(s.marked_indices(), vec![1]);
    }

    #[test]
    fn reneged_gap_acks_are_forgotten() {
        let mut p = paths(1);
        let mut s = Sender::new(1, 1, 100_000);
        send_n(&mut s, &mut p, 3, 0, Time::ZERO);
        s.on_sack(&sack(0, &[(2, 3)]), Time::ZERO, &mut p);
        assert!(s.outstanding().nth(2).unwrap().gap_acked);
        s.on_sack(&sack(0, &[]), Time::ZERO, &mut p);
        assert!(!s.outstanding().nth(2).unwrap().gap_acked);
    }

    #[test]
    fn cmt_reneged_chunks_return_to_the_flight_and_their_second_ack_is_no_news() {
        let mut p = paths(1);
        let mut s = cmt_sender();
        send_n(&mut s, &mut p, 4, 0, Time::ZERO);
        s.on_sack(&sack(0, &[(2, 4)]), Time::ZERO, &mut p);
        assert_eq!(p[0].flight_size, 100);
        p[0].t3_deadline = None;
        // An older SACK overtaken by the newer one (or reneging).
        s.on_sack(&sack(0, &[(2, 2)]), Time::ZERO, &mut p);
        assert_eq!(p[0].flight_size, 300, "TSNs 3 and 4 are in flight again");
        assert!(
            p[0].t3_deadline.is_some(),
            "and the T3-rtx timer covers them"
        );
        s.check_accounting(&p).unwrap();
        let o = s.on_sack(&sack(0, &[(2, 4)]), Time::ZERO, &mut p);
        assert_eq!(o.bytes_acked, 0, "acknowledged before: nothing new");
        assert_eq!(s.outstanding_chunk(1).unwrap().missing_reports, 1);
        assert_eq!(p[0].flight_size, 100);
        s.check_accounting(&p).unwrap();
    }

    #[test]
    fn duplicate_reports_of_a_retransmission_count_it_spurious() {
        let mut p = paths(1);
        let mut s = Sender::new(1, 1, 100_000);
        send_n(&mut s, &mut p, 6, 0, Time::ZERO);
        for k in 2..=4u16 {
            s.on_sack(&sack(0, &[(2, k)]), Time::ZERO, &mut p);
        }
        s.retransmitted(0, 0, Time::ZERO, &mut p);
        // TSN 1 was only late: both copies arrive.
        let mut late = sack(6, &[]);
        late.dup_tsns = vec![1, 1, 4];
        s.on_sack(&late, Time::ZERO, &mut p);
        assert_eq!(s.stats.spurious_retransmissions, 1);
        assert_eq!(s.stats.spurious_fast_retransmissions, 1);
    }

    fn cmt_sender() -> Sender {
        let mut s = Sender::new(1, 1, 100_000);
        s.cmt = CmtConfig {
            enabled: true,
            ..CmtConfig::default()
        };
        s
    }

    fn dac(mut sk: SackChunk, packets: u32) -> SackChunk {
        sk.set_dac_packets(packets);
        sk
    }

    #[test]
    fn cmt_dac_two_packet_sacks_count_twice_below_what_they_newly_ack() {
        // TSN 1 lost; the receiver acknowledges every second packet.
        let mut p = paths(1);
        let mut s = cmt_sender();
        send_n(&mut s, &mut p, 6, 0, Time::ZERO);
        let o = s.on_sack(&dac(sack(0, &[(2, 3)]), 2), Time::ZERO, &mut p);
        assert_eq!(o.fast_retransmits, 0);
        assert_eq!(s.outstanding_chunk(1).unwrap().missing_reports, 2);
        let o = s.on_sack(&dac(sack(0, &[(2, 5)]), 2), Time::ZERO, &mut p);
        assert_eq!(o.fast_retransmits, 1, "two SACKs for four packets");
        // Without the flag the same SACKs are one report each.
        let mut p = paths(1);
        let mut s = cmt_sender();
        send_n(&mut s, &mut p, 6, 0, Time::ZERO);
        s.on_sack(&sack(0, &[(2, 3)]), Time::ZERO, &mut p);
        let o = s.on_sack(&sack(0, &[(2, 5)]), Time::ZERO, &mut p);
        assert_eq!(o.fast_retransmits, 0);
        assert_eq!(s.outstanding_chunk(1).unwrap().missing_reports, 2);
    }

    #[test]
    fn cmt_dac_counts_once_for_a_sack_acking_two_paths_or_around_the_hole() {
        let mut p = paths(2);
        let mut s = cmt_sender();
        send_n(&mut s, &mut p, 2, 0, Time::ZERO); // TSN 1, 2 on path 0
        send_n(&mut s, &mut p, 1, 1, Time::ZERO); // TSN 3 on path 1
        send_n(&mut s, &mut p, 1, 0, Time::ZERO); // TSN 4 on path 0
        // TSN 2 (path 0) and TSN 3 (path 1) newly acknowledged: two paths.
        s.on_sack(&dac(sack(0, &[(2, 3)]), 2), Time::ZERO, &mut p);
        assert_eq!(s.outstanding_chunk(1).unwrap().missing_reports, 1);
        // Then a SACK for two packets newly acknowledging TSN 4 alone (path
        // 0), TSN 1 still missing below it: two reports.
        s.on_sack(&dac(sack(0, &[(2, 4)]), 2), Time::ZERO, &mut p);
        assert_eq!(s.outstanding_chunk(1).unwrap().missing_reports, 3);
    }

    #[test]
    fn cmt_cuc_grows_a_window_when_its_paths_earliest_chunk_is_acked() {
        // TSN 1 on path 0 is late; paths 1's chunks are acknowledged by
        // gap blocks while the cumulative ack point stays.
        let run = |cmt: bool| {
            let mut p = paths(2);
            let mut s = if cmt {
                cmt_sender()
            } else {
                Sender::new(1, 1, 100_000)
            };
            s.split_fast_retransmit = true;
            p[1].cc = Congestion::new(1000, 300, 100_000);
            send_n(&mut s, &mut p, 1, 0, Time::ZERO);
            send_n(&mut s, &mut p, 3, 1, Time::ZERO);
            s.on_sack(&sack(0, &[(2, 4)]), Time::ZERO, &mut p);
            p[1].cc.cwnd
        };
        assert_eq!(run(false), 300, "standard SCTP: no cumulative progress");
        assert_eq!(run(true), 600, "CUC: path 1's own ack point moved");
    }

    #[test]
    fn cmt_rehome_holds_in_flight_data_until_told_to_resend_it() {
        let mut p = paths(2);
        let mut s = cmt_sender();
        send_n(&mut s, &mut p, 3, 0, Time::ZERO);
        send_n(&mut s, &mut p, 1, 1, Time::ZERO);
        s.rehome(0, 1, &mut p, true);
        assert_eq!(p[0].flight_size, 0);
        assert_eq!(p[1].flight_size, 100, "held chunks are in no flight");
        assert!(!s.has_marked());
        // The deleted path still delivers TSN 1; path 1 delivers TSN 4.
        let o = s.on_sack(&sack(1, &[(3, 3)]), Time::ZERO, &mut p);
        assert_eq!(o.fast_retransmits, 0);
        assert_eq!(o.acked_bytes[1], 100, "only TSN 4 counts for path 1");
        assert_eq!(s.mark_held(&mut p), 2, "TSNs 2 and 3 are resent");
        s.check_accounting(&p).unwrap();
    }

    #[test]
    fn drain_returns_everything_unacknowledged() {
        let mut p = paths(1);
        let mut s = Sender::new(1, 1, 100_000);
        send_n(&mut s, &mut p, 2, 0, Time::ZERO);
        s.push(0, 5, false, Bytes::from_static(b"queued"));
        let d = s.drain_unsent();
        assert_eq!(d.len(), 3);
        assert_eq!(d[2].2, &b"queued"[..]);
        assert_eq!(s.buffered(), 0);
    }
}
