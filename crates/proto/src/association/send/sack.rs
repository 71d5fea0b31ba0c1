//! The sender's processing of a SACK (RFC 9260 sections 6.2.1 and 7.2):
//! cumulative and gap acknowledgements, reneging, missing reports and
//! fast retransmit, and the per-path consequences (congestion windows,
//! T3-rtx timers, RTT samples). With CMT (docs/MODELS.md section 3) the
//! split fast retransmit, CUC and DAC rules of Iyengar et al.

use std::time::Duration;

use smallvec::SmallVec;

use super::{PerPath, Pr, Retransmit, SackOutcome, Sender, SentChunk};
use crate::Time;
use crate::path::Path;
use crate::tsn;
use crate::wire::SackChunk;

/// What one SACK newly acknowledged, per path: filled chunk by chunk as
/// the cumulative part and the gap blocks are walked, then applied to
/// the paths.
struct Tally {
    now: Time,
    n_paths: usize,
    /// Earliest outstanding TSN per path before the SACK, for the T3
    /// rule R3 (only chunks this SACK can acknowledge matter).
    earliest: PerPath<Option<u32>>,
    /// The path's earliest chunk was acknowledged (T3 restart, CMT CUC).
    earliest_acked: PerPath<bool>,
    /// A chunk not marked for timeout retransmission was acknowledged.
    acked_unmarked: PerPath<bool>,
    acked_bytes: PerPath<u32>,
    /// The lowest TSN this SACK newly acknowledges (CMT DAC).
    lowest_new: Option<u32>,
    /// Highest TSN newly acknowledged overall (HTNA, section 7.2.4).
    htna: Option<u32>,
    /// Highest TSN newly acknowledged per (path, route), for split fast
    /// retransmit.
    htna_route: PerPath<((usize, u32), u32)>,
    rtt_samples: PerPath<(usize, Duration)>,
}

impl Tally {
    fn new(now: Time, earliest: PerPath<Option<u32>>) -> Self {
        let n_paths = earliest.len();
        Tally {
            now,
            n_paths,
            earliest,
            earliest_acked: smallvec::smallvec![false; n_paths],
            acked_unmarked: smallvec::smallvec![false; n_paths],
            acked_bytes: smallvec::smallvec![0; n_paths],
            lowest_new: None,
            htna: None,
            htna_route: SmallVec::new(),
            rtt_samples: SmallVec::new(),
        }
    }

    /// Chunk `c` is newly acknowledged (cumulatively or by a gap block).
    fn ack(&mut self, c: &mut SentChunk, marked: &mut usize, paths: &mut [Path]) {
        let len = c.data.payload.len() as u32;
        let p = c.path.min(self.n_paths - 1);
        if c.in_flight {
            c.in_flight = false;
            paths[p].flight_size = paths[p].flight_size.saturating_sub(len);
        }
        match c.marked.take() {
            Some(Retransmit::Timeout) => *marked -= 1,
            Some(_) => {
                *marked -= 1;
                self.acked_unmarked[p] = true;
            }
            None => self.acked_unmarked[p] = true,
        }
        if self.earliest[p] == Some(c.data.tsn) {
            self.earliest_acked[p] = true;
        }
        if std::mem::take(&mut c.revoked) {
            // Acknowledged before: nothing new about its path.
            return;
        }
        if self.lowest_new.is_none() {
            self.lowest_new = Some(c.data.tsn);
        }
        self.acked_bytes[p] += len;
        if self.htna.is_none_or(|h| tsn::gt(c.data.tsn, h)) {
            self.htna = Some(c.data.tsn);
        }
        let key = (p, c.route);
        match self.htna_route.iter_mut().find(|(k, _)| *k == key) {
            Some((_, h)) if tsn::gt(c.data.tsn, *h) => *h = c.data.tsn,
            Some(_) => {}
            None => self.htna_route.push((key, c.data.tsn)),
        }
        if c.transmissions == 1
            && let Some((t, at)) = paths[p].rtt_probe
            && t == c.data.tsn
        {
            self.rtt_samples.push((p, self.now.saturating_since(at)));
            paths[p].rtt_probe = None;
        }
    }
}

impl Sender {
    /// Processes a SACK (section 6.2.1 and 7.2).
    pub fn on_sack(&mut self, sack: &SackChunk, now: Time, paths: &mut [Path]) -> SackOutcome {
        let mut out = SackOutcome::default();
        let highest_sent = self.next_tsn.wrapping_sub(1);
        if let Some(refused) = self.refuse_sack(sack, highest_sent) {
            return refused;
        }
        self.note_duplicate_reports(&sack.dup_tsns);
        let flight_before: PerPath<u32> = paths.iter().map(|p| p.flight_size).collect();
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
        let mut tally = Tally::new(now, self.earliest_in_flight(prefix, paths.len()));

        if n_cum_raw > 0 {
            out.cum_advanced = true;
            self.ack_cumulative(sack.cum_tsn_ack, n_cum, &mut tally, paths);
        }
        // Gap blocks, and reneging of blocks no longer reported: the chunks
        // up to the last block, and up to the highest one gap-acked before.
        let scan = max_end
            .max(old_gap_end.saturating_sub(n_cum))
            .min(self.outstanding.len());
        self.ack_gap_blocks(sack, scan, &mut tally, paths);
        self.strike_missing(sack, scan, &tally, highest_sent, &mut out, paths);
        self.apply_to_paths(&tally, &flight_before, &mut out, paths);
        for &(p, r) in &tally.rtt_samples {
            paths[p].rto.sample(r);
        }
        self.stats.bytes_acked += out.bytes_acked;
        let in_flight: u32 = paths.iter().map(|p| p.flight_size).sum();
        self.peer_rwnd = sack.a_rwnd.saturating_sub(in_flight);
        out.acked_bytes = tally.acked_bytes;
        out
    }

    /// The outcome of a SACK that is ignored: older than the cumulative
    /// ack point, or acknowledging a TSN never sent.
    fn refuse_sack(&self, sack: &SackChunk, highest_sent: u32) -> Option<SackOutcome> {
        if tsn::lt(sack.cum_tsn_ack, self.cum_ack) {
            return Some(SackOutcome {
                stale: true,
                ..SackOutcome::default()
            });
        }
        let acks_unsent = tsn::gt(sack.cum_tsn_ack, highest_sent)
            || sack.gap_blocks.iter().any(|b| {
                b.start > b.end
                    || tsn::gt(sack.cum_tsn_ack.wrapping_add(b.end as u32), highest_sent)
            });
        acks_unsent.then(|| SackOutcome {
            acks_unsent: true,
            ..SackOutcome::default()
        })
    }

    /// Earliest TSN in flight per path among the first `prefix` chunks.
    fn earliest_in_flight(&self, prefix: usize, n_paths: usize) -> PerPath<Option<u32>> {
        let mut earliest: PerPath<Option<u32>> = smallvec::smallvec![None; n_paths];
        for c in self.outstanding.range(..prefix).filter(|c| c.in_flight) {
            if c.path < n_paths && earliest[c.path].is_none() {
                earliest[c.path] = Some(c.data.tsn);
            }
        }
        earliest
    }

    /// The cumulative part: the first `n_cum` chunks leave the queue.
    fn ack_cumulative(&mut self, cum: u32, n_cum: usize, tally: &mut Tally, paths: &mut [Path]) {
        for _ in 0..n_cum {
            let Some(mut c) = self.outstanding.pop_front() else {
                break;
            };
            if matches!(c.pr, Pr::Until(_)) {
                self.lifetimes_outstanding -= 1;
            }
            if !c.gap_acked {
                tally.ack(&mut c, &mut self.marked, paths);
            } else if c.marked.take().is_some() {
                self.marked -= 1;
            }
            self.outstanding_bytes -= c.data.payload.len();
        }
        self.cum_ack = cum;
    }

    /// Gap blocks over the first `scan` chunks, and reneging of chunks
    /// gap-acked before that no block covers any more.
    fn ack_gap_blocks(
        &mut self,
        sack: &SackChunk,
        scan: usize,
        tally: &mut Tally,
        paths: &mut [Path],
    ) {
        let n_paths = paths.len();
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
                    tally.ack(c, &mut self.marked, paths);
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
                if !c.in_flight && c.marked.is_none() && !c.abandoned && c.path < n_paths {
                    c.in_flight = true;
                    let p = &mut paths[c.path];
                    p.flight_size += c.data.payload.len() as u32;
                    if p.t3_deadline.is_none() {
                        p.t3_deadline = Some(tally.now + p.rto.rto());
                    }
                }
            }
        }
        self.highest_gap_acked = highest_gap_acked;
        self.covered = covered;
    }

    /// Missing reports (HTNA, section 7.2.4; split fast retransmit for
    /// CMT): only chunks below the highest TSN newly acknowledged can be
    /// struck, all within the scanned range; the third report (or
    /// [`Sender::fast_retransmit_threshold`]) marks a chunk for fast
    /// retransmission and its path enters fast recovery.
    fn strike_missing(
        &mut self,
        sack: &SackChunk,
        scan: usize,
        tally: &Tally,
        highest_sent: u32,
        out: &mut SackOutcome,
        paths: &mut [Path],
    ) {
        let Some(h) = tally.htna else {
            return;
        };
        let sfr =
            self.split_fast_retransmit || (self.cmt.enabled && self.cmt.split_fast_retransmit);
        let dac = self.cmt.enabled && self.cmt.delayed_ack && sack.dac_packets() >= 2;
        // CMT DAC (Iyengar et al.; usrsctp's `sctp_strike_gap_ack_chunks`):
        // a SACK for two packets that newly acknowledges data of one path
        // only says twice that a chunk below all it acknowledges is
        // missing.
        let dests_acked = tally.acked_bytes.iter().filter(|&&b| b > 0).count();
        let double_strike_below = tally.lowest_new.filter(|_| dac && dests_acked == 1);
        let mut newly_marked: SmallVec<[usize; 8]> = SmallVec::new();
        for (i, c) in self.outstanding.range_mut(..scan).enumerate() {
            if c.gap_acked || c.marked.is_some() || c.abandoned {
                continue;
            }
            let limit = if sfr {
                tally
                    .htna_route
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
            if c.missing_reports >= self.fast_retransmit_threshold && !c.fast_retransmitted {
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

    /// Fast recovery exit, congestion windows, error counters and T3
    /// timers of every path (sections 6.3.2, 7.2).
    fn apply_to_paths(
        &self,
        tally: &Tally,
        flight_before: &[u32],
        out: &mut SackOutcome,
        paths: &mut [Path],
    ) {
        let cuc = self.cmt.enabled && self.cmt.cwnd_update;
        let now = tally.now;
        for p in 0..paths.len() {
            if let Some(exit) = paths[p].fast_recovery_exit
                && (tsn::ge(self.cum_ack, exit) || (cuc && !self.in_flight_up_to(p, exit)))
            {
                // CMT: the path's own (virtual) cumulative ack point
                // passed the recovery point (usrsctp's pseudo-cumack).
                paths[p].fast_recovery_exit = None;
            }
            let path = &mut paths[p];
            let acked = tally.acked_bytes[p];
            if acked > 0 {
                path.last_ack = Some(now);
                let in_fr = path.fast_recovery_exit.is_some();
                // CMT CUC: the window grows when the path's virtual
                // cumulative ack point (its earliest chunk in flight)
                // moves, although the association's may not.
                let cum = out.cum_advanced || (cuc && tally.earliest_acked[p]);
                path.cc.on_ack(acked, flight_before[p], cum, in_fr);
                path.stats.bytes_acked += u64::from(acked);
                out.acked_paths.push(p);
                if tally.acked_unmarked[p] {
                    out.acked_unmarked_paths.push(p);
                }
                out.bytes_acked += acked as u64;
            }
            if path.flight_size == 0 {
                path.t3_deadline = None;
                if acked > 0 {
                    path.cc.on_all_acked();
                }
            } else if tally.earliest_acked[p] {
                path.t3_deadline = Some(now + path.rto.rto());
            }
        }
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
}
