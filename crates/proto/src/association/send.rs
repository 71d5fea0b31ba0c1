//! The sending half of an association: user messages waiting to be sent,
//! their fragmentation into DATA chunks (RFC 9260 section 6.9), the
//! retransmission queue of chunks sent but not cumulatively acknowledged,
//! and the processing of SACKs: RTT measurement, congestion window updates,
//! missing reports and fast retransmit (sections 6.2.1, 6.3 and 7.2).

use std::collections::VecDeque;

use bytes::Bytes;
use smallvec::SmallVec;

use crate::Time;
use crate::config::CmtConfig;
use crate::path::Path;

use crate::wire::{Chunk, DataChunk, IDataChunk};

use lanes::Lanes;
use partial::Pr;
pub use partial::{Abandoned, AbandonedCounters, PrPolicy, SendOptions};
pub(crate) use schedule::Schedule;
pub use schedule::{DEFAULT_STREAM_VALUE, StreamScheduler};

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
    /// The SSN of the run's first message once its first chunk is cut
    /// (0 for unordered messages). A message gets its SSN when it starts
    /// to leave, not when it is queued: a message abandoned before it was
    /// sent (RFC 7496) leaves no hole in the stream's sequence, which
    /// FORWARD TSN could not skip (it names only TSNs that were sent).
    ssn: u16,
    unordered: bool,
    /// The partial reliability policy of its messages (RFC 3758, 7496).
    pr: Pr,
    /// Set the I bit on each message's last chunk (RFC 7053).
    immediate: bool,
    /// With I-DATA: the MID of the run's first message (given when its
    /// first chunk is cut, as the SSN) and the FSN of its next fragment.
    mid: u32,
    fsn: u32,
}

impl OutRun {
    /// Bytes not yet cut into chunks.
    fn remaining(&self) -> usize {
        self.data.len() * self.count as usize - self.offset
    }

    /// Whether a message pushed now (`ssn` its SSN) continues this run.
    /// (SSNs are given as the messages leave, consecutive within a run.)
    fn continued_by(
        &self,
        stream: u16,
        ppid: u32,
        opts: &SendOptions,
        pr: Pr,
        data: &Bytes,
    ) -> bool {
        self.stream == stream
            && self.ppid == ppid
            && self.unordered == opts.unordered
            && self.pr == pr
            && self.immediate == opts.sack_immediately
            && self.count < u32::MAX
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
    /// Its message's partial reliability policy.
    pub(crate) pr: Pr,
    /// Abandoned (RFC 3758 section 3.5): never retransmitted, its payload
    /// released, skipped with FORWARD TSN.
    pub abandoned: bool,
    /// Sent as I-DATA (RFC 8260): its message's MID and its FSN (the
    /// `ssn` of `data` is then unused).
    pub interleaved: Option<MessageId>,
}

/// The identity of an I-DATA fragment (RFC 8260 section 2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageId {
    pub mid: u32,
    pub fsn: u32,
}

impl SentChunk {
    /// Bytes of user data.
    pub fn payload_len(&self) -> u32 {
        self.data.payload.len() as u32
    }

    /// The chunk as it goes on the wire: DATA, or I-DATA when the
    /// association interleaves.
    pub fn wire(&self) -> Chunk {
        let d = &self.data;
        match self.interleaved {
            None => Chunk::Data(d.clone()),
            Some(id) => Chunk::IData(IDataChunk {
                tsn: d.tsn,
                stream_id: d.stream_id,
                mid: id.mid,
                ppid: if d.begin { d.ppid } else { 0 },
                fsn: id.fsn,
                unordered: d.unordered,
                begin: d.begin,
                end: d.end,
                immediate: d.immediate,
                payload: d.payload.clone(),
            }),
        }
    }
}

/// A chunk cut from a message, with its stream sequence number (or MID
/// and FSN), before it gets its TSN.
#[derive(Debug, Clone)]
pub(crate) struct CutChunk {
    /// The chunk; its `tsn` is given when it leaves.
    pub data: DataChunk,
    pub pr: Pr,
    pub interleaved: Option<MessageId>,
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
    /// Chunks in `outstanding` with a lifetime (`Pr::Until`), abandoned
    /// or not: when none, the in-flight lifetime check
    /// (`abandon_expired_in_flight`) has nothing to walk.
    lifetimes_outstanding: usize,
    /// The highest TSN a gap block acknowledged (the chunks above it are
    /// not gap-acked), so that a SACK looks no further.
    highest_gap_acked: Option<u32>,
    /// Split fast retransmit for CMT (docs/MODELS.md section 3): a missing
    /// report counts only when a later chunk sent on the same path is newly
    /// acknowledged.
    pub split_fast_retransmit: bool,
    /// The missing report that marks a chunk for fast retransmission
    /// (section 7.2.4: the third).
    pub fast_retransmit_threshold: u32,
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
    /// Both sides announced PR-SCTP (RFC 3758 section 3.3.1): messages
    /// with a policy may be abandoned.
    pub pr_sctp: bool,
    /// A message with a policy other than [`PrPolicy::Reliable`] was
    /// queued: the abandonment checks have work to do.
    pr_used: bool,
    /// Advanced.Peer.Ack.Point (RFC 3758 section 3.5).
    pub adv_peer_ack: u32,
    /// A FORWARD TSN is to be sent (RFC 3758 section 3.5 rules A5 and C3).
    pub forward_tsn_due: bool,
    /// Messages abandoned, per policy (RFC 7496 section 4).
    pub abandoned: AbandonedCounters,
    /// Both sides announced I-DATA (RFC 8260 section 2.2): chunks are
    /// I-DATA and the scheduler may interleave messages.
    pub interleave: bool,
    /// The stream scheduler (RFC 8260 section 3).
    pub(crate) schedule: Schedule,
    /// With I-DATA, the next MID per outgoing stream: ordered, unordered
    /// (RFC 8260 section 2.1: two independent counters from 0).
    next_mid: Vec<[u32; 2]>,
    /// CMT's send buffer per path (`lanes.rs`).
    lanes: Lanes,
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
            lifetimes_outstanding: 0,
            highest_gap_acked: None,
            split_fast_retransmit: false,
            fast_retransmit_threshold: 3,
            cmt: CmtConfig::default(),
            recent_retransmits: VecDeque::new(),
            covered: Vec::new(),
            stats: SenderCounters::default(),
            pr_sctp: false,
            pr_used: false,
            adv_peer_ack: initial_tsn.wrapping_sub(1),
            forward_tsn_due: false,
            abandoned: AbandonedCounters::default(),
            interleave: false,
            schedule: Schedule::default(),
            next_mid: vec![[0; 2]; outbound_streams as usize],
            lanes: Lanes::default(),
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
        !self.has_queued() && self.outstanding.is_empty()
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
        let opts = SendOptions {
            unordered,
            ..SendOptions::default()
        };
        self.push_with(stream, ppid, data, &opts, Time::ZERO);
    }

    /// Queues a message with its options, at `now` (the start of a
    /// lifetime); the caller checked stream validity and buffer room.
    pub fn push_with(
        &mut self,
        stream: u16,
        ppid: u32,
        data: Bytes,
        opts: &SendOptions,
        now: Time,
    ) {
        let pr = Pr::new(opts.policy, now);
        self.pr_used |= pr != Pr::Reliable;
        self.queued_bytes += data.len();
        self.stats.messages_queued += 1;
        if let Some(run) = self.queue.back_mut()
            && run.continued_by(stream, ppid, opts, pr, &data)
        {
            run.count += 1;
            return;
        }
        if self.schedule.kind != StreamScheduler::Fcfs
            && !self.queue.iter().any(|r| r.stream == stream)
        {
            let waiting = self.queue.iter().map(|r| r.stream);
            self.schedule.activated(stream, waiting);
        }
        self.queue.push_back(OutRun {
            data,
            offset: 0,
            count: 1,
            ppid,
            stream,
            ssn: 0,
            unordered: opts.unordered,
            pr,
            immediate: opts.sack_immediately,
            mid: 0,
            fsn: 0,
        });
    }

    /// Sends the next DATA chunk (at most `max_payload` bytes of user
    /// data) on `path` at `now`, cut from the head of the queue (using
    /// one of the path's slots under CMT with per-path buffers,
    /// `lanes.rs`). It gets the next TSN and joins the retransmission
    /// queue.
    pub fn next_chunk(
        &mut self,
        max_payload: usize,
        path: usize,
        route: u32,
        now: Time,
    ) -> Option<&SentChunk> {
        let cut = self.cut_chunk(max_payload)?;
        self.lane_sent(path);
        Some(self.commit(cut, path, route, now))
    }

    /// Cuts the next chunk from the queue: its stream sequence number (or
    /// MID and FSN) is given, its TSN not yet.
    pub(super) fn cut_chunk(&mut self, max_payload: usize) -> Option<CutChunk> {
        // The first message of the run the scheduler picks.
        let idx = self.scheduled()?;
        let max_payload = max_payload.saturating_sub(self.extra_header());
        let run = &mut self.queue[idx];
        let remaining = run.data.len() - run.offset;
        let take = remaining.min(max_payload.max(1));
        let payload = run.data.slice(run.offset..run.offset + take);
        let begin = run.offset == 0;
        if begin && self.interleave {
            let m = &mut self.next_mid[run.stream as usize][usize::from(run.unordered)];
            run.mid = *m;
            run.fsn = 0;
            *m = m.wrapping_add(1);
        } else if begin && !run.unordered {
            let s = &mut self.next_ssn[run.stream as usize];
            run.ssn = *s;
            *s = s.wrapping_add(1);
        }
        let interleaved = self.interleave.then_some(MessageId {
            mid: run.mid,
            fsn: run.fsn,
        });
        run.fsn = run.fsn.wrapping_add(1);
        self.schedule.served(run.stream, take);
        run.offset += take;
        let end = run.offset == run.data.len();
        let pr = run.pr;
        let data = DataChunk {
            tsn: 0,
            stream_id: run.stream,
            ssn: run.ssn,
            ppid: run.ppid,
            unordered: run.unordered,
            begin,
            end,
            immediate: end && run.immediate,
            payload,
        };
        if end {
            if run.count > 1 {
                // On to the run's next message.
                run.count -= 1;
                run.offset = 0;
            } else {
                self.queue.remove(idx);
            }
        }
        self.queued_bytes -= take;
        Some(CutChunk {
            data,
            pr,
            interleaved,
        })
    }

    /// Gives a cut chunk the next TSN and appends it to the
    /// retransmission queue as sent on `path` at `now`.
    fn commit(&mut self, cut: CutChunk, path: usize, route: u32, now: Time) -> &SentChunk {
        let mut chunk = cut.data;
        chunk.tsn = self.next_tsn;
        self.outstanding_bytes += chunk.payload.len();
        self.next_tsn = self.next_tsn.wrapping_add(1);
        self.stats.data_chunks_sent += 1;
        let strike_above = chunk.tsn;
        if matches!(cut.pr, Pr::Until(_)) {
            self.lifetimes_outstanding += 1;
        }
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
            pr: cut.pr,
            abandoned: false,
            interleaved: cut.interleaved,
        });
        &self.outstanding[self.outstanding.len() - 1]
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
        let lifetimes = (self.outstanding.iter())
            .filter(|c| matches!(c.pr, Pr::Until(_)))
            .count();
        if lifetimes != self.lifetimes_outstanding {
            return Err(format!(
                "{lifetimes} chunks with a lifetime outstanding, counted {}",
                self.lifetimes_outstanding
            ));
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

    /// Size of the next chunk `next_chunk` would produce, counted as
    /// a DATA chunk's payload: with I-DATA, its payload plus the 4 bytes
    /// its header has beyond DATA's (`max_payload` is counted so too).
    pub fn peek_chunk_len(&self, max_payload: usize) -> Option<usize> {
        let run = &self.queue[self.scheduled()?];
        let extra = self.extra_header();
        let payload = (run.data.len() - run.offset).min(max_payload.saturating_sub(extra).max(1));
        Some(payload + extra)
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
        if c.gap_acked || c.abandoned {
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

    /// Marks every chunk in flight on `path` for retransmission and
    /// returns how many: T3-rtx expired there ([`Retransmit::Timeout`],
    /// section 6.3.3 E3), or the path's link is gone
    /// ([`Retransmit::Handover`]: the data goes to the data path, and the
    /// caller applies none of the T3-rtx penalties: no cwnd collapse, no
    /// RTO back-off, no error counted).
    pub fn mark_path(&mut self, path: usize, why: Retransmit, paths: &mut [Path]) -> usize {
        let idx = self.in_flight_on(path);
        for &i in &idx {
            self.mark(i, why, paths);
        }
        idx.len()
    }

    /// Indices of the chunks in flight on `path`.
    fn in_flight_on(&self, path: usize) -> Vec<usize> {
        self.outstanding
            .iter()
            .enumerate()
            .filter(|(_, c)| c.path == path && c.in_flight)
            .map(|(i, _)| i)
            .collect()
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
        for i in self.in_flight_on(from) {
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
            .filter(|(_, c)| !c.in_flight && !c.gap_acked && !c.abandoned && c.marked.is_none())
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
        self.lanes_path_removed(removed);
        for c in self.outstanding.iter_mut() {
            if c.path > removed {
                c.path -= 1;
            }
        }
    }

    /// Everything still unsent or unacknowledged, for the application when
    /// the association ends (no data is silently lost).
    pub fn drain_unsent(&mut self) -> Vec<(u16, u32, Bytes)> {
        let mut out: Vec<(u16, u32, Bytes)> = Vec::new();
        // Unacknowledged chunks (abandoned ones hold nothing any more).
        self.lifetimes_outstanding = 0;
        for c in self.outstanding.drain(..).filter(|c| !c.abandoned) {
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

mod interleave;
mod lanes;
mod partial;
mod reset;
mod sack;
mod schedule;
#[cfg(test)]
mod tests;
