//! Concurrent multipath transfer (docs/MODELS.md section 3; Iyengar, Amer and
//! Stewart, "Concurrent multipath transfer using SCTP multihoming over
//! independent end-to-end paths", IEEE/ACM ToN 14(5), 2006): which path
//! the next packet of new data takes (round-robin or fastest path first),
//! where a retransmission goes (RTX-SSTHRESH, RTX-CWND), and how long the
//! peer's receive window, shared by all paths, keeps the sender waiting.
//!
//! The SACK side of CMT (split fast retransmit, the per-path virtual
//! cumulative ack points of CUC, the sender's half of DAC) lives with the
//! rest of SACK processing in [`send`](super::send); the receiver's half of
//! DAC in the SACK scheduling of [`input`](super::input).

use std::time::Duration;

use super::Association;
use crate::Time;
use crate::config::{CmtConfig, CmtRtxPolicy, CmtScheduler, FpfInput};

/// Time the sender spent with data to send, room in a congestion window,
/// and no room in the peer's receive window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReceiveWindowBlock {
    /// Total, over finished episodes.
    pub total: Duration,
    /// Episodes (each start counts).
    pub episodes: u64,
    /// The episode under way, since when.
    pub since: Option<Time>,
}

/// CMT's scheduling state (docs/MODELS.md section 3).
#[derive(Debug, Clone, Default)]
pub(super) struct CmtState {
    /// Round-robin: the path to try first for the next packet of new
    /// data.
    pub(super) next: usize,
    /// Round-robin over the per-path send buffers: the buffer to fill
    /// next.
    pub(super) fill_next: usize,
    /// The per-path send buffers hold slots placed while the scheduler
    /// saw only part of the paths (one that could not take data, or,
    /// for fastest path first, one without a capacity estimate): they are
    /// placed again once it sees them all.
    pub(super) lanes_partial: bool,
    /// Data that was in flight to a deleted peer address is resent at
    /// this time if still unacknowledged.
    pub(super) rehome_deadline: Option<Time>,
}

impl Association {
    /// Turns concurrent multipath transfer on or off, or changes its
    /// scheduler and algorithms, for this association (at any time; a
    /// simulator switches it per association).
    pub fn set_cmt(&mut self, cmt: CmtConfig) {
        self.cfg.cmt = cmt;
        self.sender.cmt = cmt;
    }

    /// The CMT settings in force.
    pub fn cmt(&self) -> CmtConfig {
        self.cfg.cmt
    }

    /// Time the peer's receive window kept the sender waiting (data
    /// queued, a congestion window open, the receive window closed) up to
    /// `now`, and the number of such episodes.
    pub fn rwnd_blocked(&self, now: Time) -> (Duration, u64) {
        let b = &self.rwnd_block;
        let open = b.since.map_or(Duration::ZERO, |s| now.saturating_since(s));
        (b.total + open, b.episodes)
    }

    pub(super) fn cmt_sending(&self) -> bool {
        self.cfg.cmt.enabled
    }

    /// The receiver's half of DAC is on.
    pub(super) fn cmt_delayed_ack(&self) -> bool {
        self.cfg.cmt.enabled && self.cfg.cmt.delayed_ack
    }

    /// Path `i` may carry new data under CMT: active, confirmed, and not a
    /// path the application moved data off because its link went down.
    fn cmt_candidate(&self, i: usize) -> bool {
        let p = &self.paths[i];
        p.usable() && p.error_count == 0 && !self.moved_off.contains(&p.remote)
    }

    /// The path for the next packet of new data under CMT, `None` when it
    /// must wait (round-robin: no candidate's congestion window has room;
    /// fastest path first: the chosen path's has none). Without any
    /// candidate (all paths down or failing) the data path, as without
    /// CMT.
    pub(super) fn cmt_new_data_path(&self) -> Option<usize> {
        let n = self.paths.len();
        let room = |i: usize| self.paths[i].flight_size < self.paths[i].cc.cwnd;
        if self.sender.lanes_hold() {
            // Per-path send buffers: any path whose buffer holds a chunk
            // and whose window has room, in turn.
            return (0..n)
                .map(|k| (self.cmt_state.next + k) % n)
                .find(|&i| self.sender.lane_bytes(i) > 0 && room(i));
        }
        if !(0..n).any(|i| self.cmt_candidate(i)) {
            return self.data_path().filter(|&i| room(i));
        }
        let round_robin = || {
            (0..n)
                .map(|k| (self.cmt_state.next + k) % n)
                .find(|&i| self.cmt_candidate(i) && room(i))
        };
        match self.cfg.cmt.scheduler {
            CmtScheduler::RoundRobin => round_robin(),
            CmtScheduler::FastestPathFirst
                if self.cfg.cmt.fpf_input == FpfInput::Capacity
                    && (0..n).any(|i| self.cmt_candidate(i) && self.capacity_bps(i).is_none()) =>
            {
                round_robin()
            }
            CmtScheduler::FastestPathFirst => {
                let size = self
                    .sender
                    .peek_chunk_len(self.max_data_payload())
                    .unwrap_or(0) as u32;
                let primary = self.data_path();
                // Among all candidates, full or not (Casetti and Gaiotto's
                // bandwidth-aware source scheduling, W-SCTP): a packet
                // that arrives sooner after waiting for the fast path's
                // window waits for it.
                let best = (0..n)
                    .filter(|&i| self.cmt_candidate(i))
                    .map(|i| (self.reception_time(i, size), Some(i) != primary, i))
                    .min_by(|a, b| a.0.total_cmp(&b.0).then((a.1, a.2).cmp(&(b.1, b.2))))
                    .map(|(_, _, i)| i);
                best.filter(|&i| room(i))
            }
        }
    }

    /// Fastest path first's reception time, in seconds, of the next
    /// packet (`size` bytes) on path `i` (Budzisz et al., section
    /// 4.3.2.2): R_i = (O_i + P) / C_i, with the path's packet-pair
    /// capacity as C_i, or without one cwnd_i / SRTT_i
    /// ([`FpfInput::CwndSrtt`]).
    fn reception_time(&self, i: usize, size: u32) -> f64 {
        let p = &self.paths[i];
        // With per-path send buffers, what waits in the path's buffer is
        // ahead of the chunk too.
        let outstanding =
            f64::from(p.flight_size) + self.sender.lane_bytes(i) as f64 + f64::from(size);
        let bytes_per_s = match self.capacity_bps(i) {
            Some(bps) => bps as f64 / 8.0,
            None => {
                let rtt = p.rto.srtt().unwrap_or(p.rto.rto()).as_secs_f64();
                f64::from(p.cc.cwnd.max(1)) / rtt.max(1e-6)
            }
        };
        outstanding / bytes_per_s
    }

    /// Fills the per-path send buffers (Budzisz et al., section 4.3.2.1;
    /// `send/lanes.rs`) when CMT runs with them: each chunk cut from the
    /// queue goes to the buffer of the path the scheduler picks
    /// (round-robin: the next in turn with room; fastest path first: the
    /// least reception time, counting what waits in the buffer, and
    /// nothing while that buffer is full). A path that can no longer take
    /// data gives its slots back, and they are placed among the paths
    /// left, each buffer within its size.
    ///
    /// Fastest path first is round-robin until every path has a capacity
    /// estimate (R_i has no C_i before), and a greedy application fills
    /// every buffer at once then. Those slots hold no chunk yet (no TSN,
    /// no sequence number: `send/lanes.rs`), so when the last estimate
    /// comes the slots not sent are placed again by R_i, as the paper's
    /// scheduler places every chunk ("the path with the lowest R_i is
    /// selected as the chunk destination", Budzisz et al., section
    /// 4.3.2.2). Kept, the slots given to a slow path drained at its rate
    /// for the rest of the transfer: over a WLAN and GERAN with a 64 KiB
    /// receive window, 45 slots, six seconds of GERAN's link, each packet
    /// holding the receive window while the WLAN idled (E9's `fpf-wg`).
    ///
    /// In the same way, slots placed while a path could not take data (no
    /// CMT candidate: its T3-rtx timer expired and no acknowledgement has
    /// cleared its error count yet, CMT-PF) are placed again when it can.
    /// Handed as they were to the path left, a WLAN's slots went to GERAN
    /// at each spurious WLAN timeout and drained at GERAN's rate long
    /// after the WLAN was back (E9's `fpf-wg` at 64 KiB, five runs in ten
    /// at 0.21-0.23 Mbit/s).
    pub(super) fn cmt_fill_lanes(&mut self) {
        if !self.sender.lanes_on() || self.paths.is_empty() {
            return;
        }
        let n = self.paths.len();
        self.sender.lanes_resize(n);
        let mut takers: Vec<usize> = (0..n).filter(|&i| self.cmt_candidate(i)).collect();
        if takers.is_empty() {
            takers.extend(self.data_path());
        }
        if takers.is_empty() {
            return;
        }
        for i in 0..n {
            if !takers.contains(&i) {
                self.sender.lane_release(i);
            }
        }
        let limit = self.cfg.cmt.path_send_buffer as usize;
        let max = self.max_data_payload();
        let by_capacity = self.cfg.cmt.fpf_input == FpfInput::Capacity;
        let unmeasured = self.cfg.cmt.scheduler == CmtScheduler::FastestPathFirst
            && by_capacity
            && takers.iter().any(|&i| self.capacity_bps(i).is_none());
        let partial = unmeasured || takers.len() < n;
        if !partial && self.cmt_state.lanes_partial {
            self.sender.lanes_clear();
        }
        self.cmt_state.lanes_partial = partial;
        while let Some(size) = self.sender.lane_fill_ready(max) {
            let fits = |a: &Self, i: usize| {
                let b = a.sender.lane_bytes(i);
                b == 0 || b + size <= limit
            };
            let round_robin = (0..n)
                .map(|k| (self.cmt_state.fill_next + k) % n)
                .find(|&i| takers.contains(&i) && fits(self, i));
            let chosen = match self.cfg.cmt.scheduler {
                // The least reception time among all paths; when its
                // buffer is full the chunk waits (the application's write
                // blocks), it does not go to a slower path's buffer.
                CmtScheduler::FastestPathFirst if !unmeasured => takers
                    .iter()
                    .map(|&i| (self.reception_time(i, size as u32), i))
                    .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
                    .map(|(_, i)| i)
                    .filter(|&i| fits(self, i)),
                _ => round_robin,
            };
            let Some(i) = chosen else {
                break;
            };
            self.sender.lane_fill(i, size);
            self.cmt_state.fill_next = (i + 1) % n;
        }
    }

    /// Path `i`'s packet-pair capacity estimate, bit/s.
    fn capacity_bps(&self, i: usize) -> Option<u64> {
        self.paths[i].capacity.estimate().filter(|&b| b > 0)
    }

    /// A packet of new data went to path `i`: round-robin moves on.
    pub(super) fn cmt_sent_new_data(&mut self, i: usize) {
        if self.cmt_sending() && !self.paths.is_empty() {
            self.cmt_state.next = (i + 1) % self.paths.len();
        }
    }

    /// Where a retransmission of a chunk last sent on `from` goes under
    /// CMT: the candidate path with the largest ssthresh (RTX-SSTHRESH) or
    /// cwnd (RTX-CWND); on a tie one other than `from`, then the lower
    /// index. `None` without candidates.
    pub(super) fn cmt_retransmit_path(&self, from: usize) -> Option<usize> {
        let key = |i: usize| {
            let cc = &self.paths[i].cc;
            match self.cfg.cmt.rtx_policy {
                CmtRtxPolicy::Ssthresh => cc.ssthresh,
                CmtRtxPolicy::Cwnd => cc.cwnd,
            }
        };
        (0..self.paths.len())
            .filter(|&i| self.cmt_candidate(i))
            .max_by(|&a, &b| {
                key(a)
                    .cmp(&key(b))
                    .then((a != from).cmp(&(b != from)))
                    .then(b.cmp(&a))
            })
    }

    /// CMT-PF (Natarajan et al.): a path whose retransmission timer
    /// expired gets no new data while another path works, and is probed
    /// with a HEARTBEAT every RTO until one is answered (or a SACK
    /// acknowledges data sent there), instead of with the next chunk of
    /// new data.
    pub(super) fn cmt_path_timed_out(&mut self, i: usize, now: Time) {
        if !self.cmt_sending() || !self.paths[i].confirmed {
            return;
        }
        if self.paths[i].heartbeat.is_none_or(|h| h.timed_out) {
            self.queue_heartbeat(i, now);
        }
        self.paths[i].heartbeat_deadline = Some(now + self.paths[i].rto.rto());
    }

    /// Path `i` is probed as in CMT-PF: a heartbeat once per RTO instead
    /// of the usual interval, while CMT runs and the path has errors.
    pub(super) fn cmt_probed(&self, i: usize) -> bool {
        self.cmt_sending() && self.paths[i].error_count > 0
    }

    /// The peer deleted the address of path `i` while CMT runs: what was
    /// in flight there gets the path's RTO to arrive before it is resent.
    pub(super) fn cmt_hold_rehomed(&mut self, i: usize, now: Time) {
        let until = now + self.paths[i].rto.rto();
        self.cmt_state.rehome_deadline = Some(
            self.cmt_state
                .rehome_deadline
                .map_or(until, |d| d.max(until)),
        );
    }

    /// The deadline of data held after a deletion, for the timers.
    pub(super) fn cmt_timer(&self) -> Option<Time> {
        self.cmt_state.rehome_deadline
    }

    /// Runs the held-data deadline.
    pub(super) fn cmt_timeout(&mut self, now: Time) {
        if self.cmt_state.rehome_deadline.is_some_and(|d| d <= now) {
            self.cmt_state.rehome_deadline = None;
            if self.sender.mark_held(&mut self.paths) > 0 {
                self.tx.fast_rtx_pending = true;
            }
        }
    }

    /// Follows the receive-window block: called before each packet is
    /// built, so an episode starts when the window closes on waiting data
    /// and ends when it opens (or the data is gone).
    pub(super) fn note_rwnd_block(&mut self, now: Time) {
        let blocked = self.state.is_established()
            && self.sender.has_queued()
            && !self.rwnd_allows()
            && self.cwnd_open_for_new_data();
        let b = &mut self.rwnd_block;
        match (blocked, b.since) {
            (true, None) => {
                b.since = Some(now);
                b.episodes += 1;
            }
            (false, Some(s)) => {
                b.total += now.saturating_since(s);
                b.since = None;
            }
            _ => {}
        }
    }

    /// Some path that would take new data has room in its congestion
    /// window.
    fn cwnd_open_for_new_data(&self) -> bool {
        let room = |i: usize| self.paths[i].flight_size < self.paths[i].cc.cwnd;
        if self.cmt_sending() {
            (0..self.paths.len()).any(|i| self.cmt_candidate(i) && room(i))
        } else {
            self.data_path().is_some_and(room)
        }
    }
}
