//! Segment arrival (RFC 9293 section 3.10.7): the SYN-SENT and
//! synchronized-state processing, ACK processing with NewReno fast
//! retransmit and recovery (RFC 5681, RFC 6582; limited transmit, RFC
//! 3042) or SACK-based recovery (RFC 6675), data and FIN reception.

use std::net::IpAddr;
use std::time::Duration;

use msctp_time::Time;

use super::{AckDue, MAX_OWED_ACKS, RstToSend, TcpConnection};
use crate::congestion::Congestion;
use crate::event::{CloseReason, TcpError, TcpEvent};
use crate::seq::SeqNum;
use crate::state::TcpState;
use crate::wire::{self, SackBlock, SegmentHeader};

impl TcpConnection {
    /// Processes a segment that arrived from `src_ip` for `dst_ip`.
    pub fn handle_segment(
        &mut self,
        now: Time,
        src_ip: IpAddr,
        dst_ip: IpAddr,
        bytes: &[u8],
    ) -> Result<(), TcpError> {
        if src_ip != self.remote.ip() || dst_ip != self.local.ip() {
            return Err(TcpError::NotForThisConnection);
        }
        let parsed = if self.checksum_offload {
            wire::parse_offloaded(src_ip, dst_ip, bytes)
        } else {
            wire::parse(src_ip, dst_ip, bytes)
        };
        let (h, payload) = match parsed {
            Ok(x) => x,
            Err(e) => {
                self.counters.bad_segments += 1;
                return Err(e.into());
            }
        };
        if h.src_port != self.remote.port() || h.dst_port != self.local.port() {
            return Err(TcpError::NotForThisConnection);
        }
        self.counters.segments_received += 1;
        match self.state {
            TcpState::Closed => {
                if !h.flags.rst {
                    self.queue_rst_for(&h, payload.len());
                }
            }
            TcpState::SynSent => self.on_segment_syn_sent(now, &h),
            _ => self.on_segment_synchronized(now, &h, payload),
        }
        Ok(())
    }

    pub(super) fn take_syn_options(&mut self, h: &SegmentHeader) {
        let o = &h.options;
        let peer_mss = u32::from(o.mss.unwrap_or(536));
        self.smss = u32::from(self.config.mss).min(peer_mss).max(64);
        self.cc = Congestion::new(
            self.config.initial_window_bytes(self.smss),
            self.config.initial_ssthresh,
            self.smss,
        );
        match (self.config.window_scaling, o.window_scale) {
            (true, Some(s)) => {
                self.ws_ok = true;
                self.snd_shift = s.min(14);
                self.rcv_shift = self.config.window_shift();
            }
            _ => {
                self.ws_ok = false;
                self.snd_shift = 0;
                self.rcv_shift = 0;
            }
        }
        self.sack_ok = self.config.sack && o.sack_permitted;
        self.ts_ok = self.config.timestamps && o.timestamps.is_some();
        if let (true, Some(ts)) = (self.ts_ok, o.timestamps) {
            self.ts_recent = ts.value;
        }
    }

    pub(super) fn on_segment_syn_sent(&mut self, now: Time, h: &SegmentHeader) {
        // RFC 9293 section 3.10.7.3.
        if h.flags.ack && (h.ack.le(self.iss) || h.ack.gt(self.snd_max)) {
            if !h.flags.rst {
                self.rst_pending = Some(RstToSend {
                    seq: h.ack,
                    ack: None,
                });
            }
            return;
        }
        if h.flags.rst {
            if h.flags.ack {
                self.terminate(CloseReason::Reset);
            }
            return;
        }
        if !h.flags.syn {
            return;
        }
        self.take_syn_options(h);
        self.irs = h.seq;
        if h.flags.ack {
            self.snd_una = h.ack;
            self.send_buf.set_head(h.ack);
            // The window of a SYN is never scaled (RFC 7323 section 2.2).
            self.snd_wnd = u32::from(h.window);
            self.max_snd_wnd = self.snd_wnd;
            self.snd_wl1 = h.seq;
            self.snd_wl2 = h.ack;
            if let (false, Some(sent)) = (self.syn_retransmitted, self.syn_sent_at) {
                self.take_rtt_sample(now - sent);
            }
            self.syn_pending = false;
            self.rto_at = None;
            self.state = TcpState::Established;
            self.push_event(TcpEvent::Connected);
            self.ack_due = AckDue::Now;
            if self.fin_queued {
                self.state = TcpState::FinWait1;
            }
        } else {
            // Simultaneous open: answer with SYN-ACK.
            self.snd_wnd = u32::from(h.window);
            self.state = TcpState::SynReceived;
            self.syn_pending = true;
        }
    }

    pub(super) fn is_synchronized(&self) -> bool {
        !matches!(
            self.state,
            TcpState::Closed | TcpState::SynSent | TcpState::SynReceived
        )
    }

    pub(super) fn rcv_nxt(&self) -> SeqNum {
        self.irs
            .wrapping_add(1)
            .wrapping_add(self.reasm.next() as u32)
    }

    pub(super) fn rcv_wnd(&self) -> u32 {
        u32::try_from(self.reasm.window()).unwrap_or(u32::MAX)
    }

    /// RFC 9293 section 3.10.7.4, first check: is the segment acceptable?
    pub(super) fn acceptable(&self, h: &SegmentHeader, payload_len: usize) -> bool {
        let seg_len = h.seg_len(payload_len);
        let rcv_nxt = self.rcv_nxt();
        let wnd = self.rcv_wnd().max(self.last_adv_window);
        let in_window = |s: SeqNum| s.ge(rcv_nxt) && s.lt(rcv_nxt.wrapping_add(wnd));
        match (seg_len, wnd) {
            (0, 0) => h.seq == rcv_nxt,
            (0, _) => in_window(h.seq),
            (_, 0) => false,
            (n, _) => in_window(h.seq) || in_window(h.seq.wrapping_add(n - 1)),
        }
    }

    pub(super) fn on_segment_synchronized(&mut self, now: Time, h: &SegmentHeader, payload: &[u8]) {
        let rcv_nxt = self.rcv_nxt();
        if self.state == TcpState::SynReceived
            && h.flags.syn
            && !h.flags.ack
            && h.seq.wrapping_add(1) == rcv_nxt
        {
            // Our SYN-ACK was lost: the peer repeats its SYN.
            self.syn_pending = true;
            return;
        }
        if !self.acceptable(h, payload.len()) {
            if !h.flags.rst {
                // Zero-window probes and old duplicates are answered with an
                // ACK (RFC 9293 section 3.10.7.4).
                self.ack_due = AckDue::Now;
                if !payload.is_empty() && h.seq.lt(rcv_nxt) {
                    self.ack_is_dup = true;
                }
            }
            return;
        }
        if h.flags.rst {
            if h.seq == rcv_nxt {
                self.terminate(CloseReason::Reset);
            } else {
                // RFC 5961 section 3.2: challenge ACK.
                self.ack_due = AckDue::Now;
            }
            return;
        }
        if h.flags.syn {
            // RFC 5961 section 4.2: challenge ACK for a SYN in a synchronized state.
            self.ack_due = AckDue::Now;
            return;
        }
        if !h.flags.ack {
            return;
        }
        if let (true, Some(ts)) = (self.ts_ok, h.options.timestamps)
            && h.seq.le(self.last_ack_sent)
        {
            self.ts_recent = ts.value;
        }
        if self.state == TcpState::SynReceived {
            if h.ack.gt(self.snd_una) && h.ack.le(self.snd_max) {
                if let (false, Some(sent)) = (self.syn_retransmitted, self.syn_sent_at) {
                    self.take_rtt_sample(now - sent);
                }
                self.snd_una = h.ack;
                self.send_buf.set_head(h.ack);
                self.snd_wnd = u32::from(h.window) << self.snd_shift;
                self.max_snd_wnd = self.snd_wnd;
                self.snd_wl1 = h.seq;
                self.snd_wl2 = h.ack;
                self.syn_pending = false;
                self.rto_at = None;
                self.state = if self.fin_queued {
                    TcpState::FinWait1
                } else {
                    TcpState::Established
                };
                self.push_event(TcpEvent::Connected);
            } else {
                self.rst_pending = Some(RstToSend {
                    seq: h.ack,
                    ack: None,
                });
                return;
            }
        }
        if h.ack.gt(self.snd_max) {
            // Acknowledges something not yet sent: answer with an ACK, drop.
            self.ack_due = AckDue::Now;
            return;
        }
        self.process_ack(now, h, payload.len());
        if self.state == TcpState::Closed {
            return;
        }
        self.process_data(now, h, payload);
        self.process_fin(now, h, payload.len());
    }

    pub(super) fn process_ack(&mut self, now: Time, h: &SegmentHeader, payload_len: usize) {
        let ack = h.ack;
        let window = u32::from(h.window) << self.snd_shift;
        let newly_sacked = if self.sack_ok {
            let blocks: Vec<SackBlock> = h
                .options
                .sack_blocks
                .iter()
                .copied()
                .filter(|b| b.left.ge(ack) && b.right.le(self.snd_max))
                .collect();
            self.board.apply_sack(&blocks)
        } else {
            0
        };
        if ack.gt(self.snd_una) {
            self.on_new_ack(now, h, ack);
        } else if ack == self.snd_una {
            let is_dup = if self.sack_ok {
                newly_sacked > 0
            } else {
                // RFC 5681 section 2 (a)-(e); a zero window means the ACK
                // answers a window probe, not a loss.
                payload_len == 0
                    && !h.flags.syn
                    && !h.flags.fin
                    && window == self.snd_wnd
                    && window > 0
                    && self.snd_max.gt(self.snd_una)
                    && !self.board.is_empty()
            };
            if is_dup {
                self.on_dup_ack(now);
            }
        }
        // Window update (RFC 9293 section 3.10.7.4, fifth check).
        if self.snd_wl1.lt(h.seq) || (self.snd_wl1 == h.seq && self.snd_wl2.le(ack)) {
            self.snd_wnd = window;
            self.max_snd_wnd = self.max_snd_wnd.max(window);
            self.snd_wl1 = h.seq;
            self.snd_wl2 = ack;
        }
        if self.snd_wnd > 0 && self.probe_zero_window {
            self.probe_zero_window = false;
            self.rtt.restore();
            if self.board.is_empty() {
                self.rto_at = None;
            }
        }
        if self.sack_ok && self.in_recovery {
            self.board
                .mark_lost_by_sack(self.config.dup_ack_threshold, self.smss);
        }
    }

    pub(super) fn on_new_ack(&mut self, now: Time, h: &SegmentHeader, ack: SeqNum) {
        let acked_space = ack.since(self.snd_una);
        let res = self.board.acknowledge(ack);
        let data_acked = res.bytes.min(acked_space);
        self.send_buf.acknowledge(ack.min(self.send_buf.end()));
        self.snd_una = ack;
        self.counters.bytes_acked += u64::from(data_acked);
        self.consecutive_timeouts = 0;

        // RTT: the timestamp echo when in use (RFC 7323 section 4.1),
        // otherwise the earliest newly acknowledged segment unless it was
        // retransmitted (Karn's rule, RFC 6298 section 3).
        let ts_sample = match (self.ts_ok, h.options.timestamps) {
            (true, Some(ts)) if ts.echo != 0 => Some(Duration::from_millis(u64::from(
                self.ts_now(now).wrapping_sub(ts.echo),
            ))),
            _ => None,
        };
        let sample = ts_sample.or(match res.earliest {
            Some((sent, false)) => Some(now - sent),
            _ => None,
        });
        match sample {
            Some(r) => self.take_rtt_sample(r),
            None if !self.config.keep_backoff_until_sample => self.rtt.restore(),
            None => {}
        }

        let mut restart_timer = true;
        if self.in_recovery {
            if ack.ge(self.recover) {
                // Full acknowledgment: recovery is over (RFC 6582 step 3).
                self.in_recovery = false;
                self.dup_acks = 0;
                self.cc.exit_fast_recovery();
            } else {
                // Partial acknowledgment (RFC 6582 step 5).
                if !self.sack_ok {
                    self.board.mark_head_lost();
                    self.retransmit_now = true;
                    self.cc.partial_ack(acked_space);
                }
                // "Impatient" variant: only the first partial ACK restarts
                // the retransmission timer (RFC 6582 section 4.1).
                restart_timer = !self.partial_ack_seen;
                self.partial_ack_seen = true;
            }
        } else {
            self.dup_acks = 0;
            self.cc.on_ack(data_acked);
        }
        self.limited_tx_bytes = 0;
        let past_recover = if self.config.careful_recover {
            ack.gt(self.recover)
        } else {
            ack.ge(self.recover)
        };
        if self.recover_active && past_recover {
            self.recover_active = false;
        }
        if self.board.is_empty() {
            self.rto_at = None;
        } else if restart_timer {
            self.restart_rto(now);
        }
        if res.fin {
            self.on_fin_acked(now);
        }
        if self.write_blocked && self.send_buf.free() > 0 {
            self.write_blocked = false;
            self.push_event(TcpEvent::Writable);
        }
    }

    pub(super) fn on_dup_ack(&mut self, _now: Time) {
        self.counters.dup_acks_received += 1;
        if self.in_recovery {
            if !self.sack_ok {
                self.cc.inflate();
            }
            return;
        }
        self.dup_acks += 1;
        let past_recover = if self.config.careful_recover {
            self.snd_una.gt(self.recover)
        } else {
            self.snd_una.ge(self.recover)
        };
        let may_enter = !self.recover_active || past_recover;
        let threshold = self.dup_acks >= self.config.dup_ack_threshold;
        let sack_lost = self.sack_ok
            && self
                .board
                .head_is_lost(self.config.dup_ack_threshold, self.smss);
        if may_enter && (threshold || sack_lost) {
            self.enter_fast_recovery();
        }
    }

    /// Fast retransmit and entry into fast recovery (RFC 6582 section 3.2
    /// step 2; RFC 6675 section 5 step 4 with SACK).
    pub(super) fn enter_fast_recovery(&mut self) {
        self.counters.fast_retransmits += 1;
        self.in_recovery = true;
        self.partial_ack_seen = false;
        self.recover = self.snd_max;
        self.recover_active = true;
        let outstanding = self.snd_max.since(self.snd_una);
        self.board.mark_head_lost();
        if self.sack_ok {
            self.board
                .mark_lost_by_sack(self.config.dup_ack_threshold, self.smss);
        }
        let flight = if !self.config.ssthresh_from_pipe {
            // RFC 5681 section 3.2 step 2: data sent by limited transmit is
            // not part of the FlightSize that sets ssthresh.
            outstanding.saturating_sub(self.limited_tx_bytes)
        } else if self.sack_ok {
            // ns-3 (TcpSocketBase::EnterRecovery): its RFC 6675 pipe.
            self.board.pipe()
        } else {
            // ns-3 without SACK: each duplicate ACK that limited transmit
            // (or the fast retransmit) saw counts as one segment out of the
            // pipe; the lost head is out too but counted back in.
            let reno_sacked = if self.config.limited_transmit {
                self.dup_acks
            } else {
                1
            };
            outstanding.saturating_sub(reno_sacked.saturating_mul(self.smss))
        };
        self.limited_tx_bytes = 0;
        self.cc
            .enter_fast_recovery(flight, self.config.dup_ack_threshold, !self.sack_ok);
        self.retransmit_now = true;
    }

    pub(super) fn on_fin_acked(&mut self, now: Time) {
        match self.state {
            TcpState::FinWait1 => self.state = TcpState::FinWait2,
            TcpState::Closing => self.enter_time_wait(now),
            TcpState::LastAck => {
                self.state = TcpState::Closed;
                self.clear_timers();
                self.push_event(TcpEvent::Closed(CloseReason::Normal));
            }
            _ => {}
        }
    }

    pub(super) fn enter_time_wait(&mut self, now: Time) {
        if self.state != TcpState::TimeWait {
            self.push_event(TcpEvent::Closed(CloseReason::Normal));
        }
        self.state = TcpState::TimeWait;
        self.rto_at = None;
        self.time_wait_at = Some(now + self.config.time_wait);
    }

    pub(super) fn process_data(&mut self, now: Time, h: &SegmentHeader, payload: &[u8]) {
        if payload.is_empty() {
            return;
        }
        if !matches!(
            self.state,
            TcpState::Established | TcpState::FinWait1 | TcpState::FinWait2
        ) {
            return;
        }
        let rcv_nxt = self.rcv_nxt();
        let at = self.reasm.next() as i64 + i64::from(h.seq.diff(rcv_nxt));
        let (at, data) = if at < 0 {
            let cut = usize::try_from(-at)
                .unwrap_or(usize::MAX)
                .min(payload.len());
            (self.reasm.next(), &payload[cut..])
        } else {
            (at as u64, payload)
        };
        let arrival = self.reasm.insert(at, data);
        self.counters.bytes_received += arrival.delivered as u64;
        if arrival.delivered > 0 && !self.readable_signalled {
            self.readable_signalled = true;
            self.push_event(TcpEvent::Readable);
        }
        if arrival.out_of_order || arrival.duplicate || arrival.dropped {
            // RFC 5681 section 4.2: an out-of-order segment is acknowledged
            // at once (a duplicate ACK).
            if self.ack_due == AckDue::Now {
                self.extra_acks = (self.extra_acks + 1).min(MAX_OWED_ACKS);
            }
            self.ack_due = AckDue::Now;
            self.ack_is_dup = arrival.delivered == 0;
        } else if arrival.filled_gap || self.reasm.has_out_of_order() {
            self.ack_due = AckDue::Now;
        } else if !self.config.delayed_ack || !self.first_data_acked {
            // ns-3 answers the first data segment at once, then delays.
            self.first_data_acked = true;
            self.ack_due = AckDue::Now;
        } else {
            self.delack_segments += 1;
            if self.delack_segments >= self.config.delayed_ack_count {
                self.ack_due = AckDue::Now;
            } else if self.ack_due == AckDue::None {
                self.ack_due = AckDue::Delayed;
                self.delack_at = Some(now + self.config.delayed_ack_timeout);
            }
        }
    }

    pub(super) fn process_fin(&mut self, now: Time, h: &SegmentHeader, payload_len: usize) {
        if h.flags.fin && self.peer_fin_at.is_none() {
            let rcv_nxt = self.rcv_nxt();
            let at = self.reasm.next() as i64 + i64::from(h.seq.diff(rcv_nxt)) + payload_len as i64;
            if at >= 0 {
                self.peer_fin_at = Some(at as u64);
            }
        }
        if h.flags.fin && self.peer_fin_done {
            // A retransmitted FIN: acknowledge again (TIME-WAIT restarts).
            self.ack_due = AckDue::Now;
            if self.state == TcpState::TimeWait {
                self.time_wait_at = Some(now + self.config.time_wait);
            }
            return;
        }
        let Some(fin_at) = self.peer_fin_at else {
            return;
        };
        if self.peer_fin_done || self.reasm.next() != fin_at {
            return;
        }
        self.peer_fin_done = true;
        self.reasm.skip(1);
        self.ack_due = AckDue::Now;
        self.push_event(TcpEvent::PeerFinished);
        match self.state {
            TcpState::Established => self.state = TcpState::CloseWait,
            TcpState::FinWait1 => {
                if self.fin_sent && self.snd_una == self.snd_max {
                    self.enter_time_wait(now);
                } else {
                    self.state = TcpState::Closing;
                }
            }
            TcpState::FinWait2 => self.enter_time_wait(now),
            _ => {}
        }
    }

    pub(super) fn queue_rst_for(&mut self, h: &SegmentHeader, payload_len: usize) {
        // RFC 9293 section 3.10.7.1.
        self.rst_pending = Some(if h.flags.ack {
            RstToSend {
                seq: h.ack,
                ack: None,
            }
        } else {
            RstToSend {
                seq: SeqNum(0),
                ack: Some(h.seq.wrapping_add(h.seg_len(payload_len))),
            }
        });
    }
}
