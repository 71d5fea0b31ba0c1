//! One TCP connection as a sans-I/O state machine (RFC 9293 section 3.10):
//! the caller passes in time and received segments, and polls out
//! segments to send, the next timer deadline and events.
//!
//! Sender: slow start and congestion avoidance (RFC 5681), fast retransmit
//! and NewReno fast recovery with partial ACKs (RFC 6582), limited transmit
//! (RFC 3042), RTO per RFC 6298 with back-off and Karn's rule, or with
//! SACK the loss recovery of RFC 6675. Receiver: reassembly, delayed ACKs
//! (RFC 5681 section 4.2), SACK blocks (RFC 2018), flow control.

use std::collections::VecDeque;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use msctp_proto::Time;

use crate::config::TcpConfig;
use crate::congestion::Congestion;
use crate::event::{CloseReason, TcpError, TcpEvent};
use crate::reassembly::Reassembly;
use crate::rtt::RttEstimator;
use crate::scoreboard::{Scoreboard, SegmentState, SentSegment};
use crate::send_buffer::SendBuffer;
use crate::seq::SeqNum;
use crate::stats::TcpStats;
use crate::wire::{self, Flags, SackBlock, SegmentHeader, TcpOptions, Timestamps};

/// Bound on duplicate ACKs owed at once (one per out-of-order segment
/// handled between two polls).
const MAX_OWED_ACKS: u32 = 64;

/// A segment to put on the network: IP addresses and the TCP bytes
/// (header, options, payload; checksum filled in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub src_ip: IpAddr,
    pub dst_ip: IpAddr,
    pub bytes: Vec<u8>,
}

/// Connection states of RFC 9293 section 3.3.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TcpState {
    Closed,
    SynSent,
    SynReceived,
    Established,
    FinWait1,
    FinWait2,
    CloseWait,
    Closing,
    LastAck,
    TimeWait,
}

/// How soon an ACK must go out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AckDue {
    None,
    Delayed,
    Now,
}

#[derive(Debug, Clone, Copy)]
struct RstToSend {
    seq: SeqNum,
    ack: Option<SeqNum>,
}

#[derive(Debug, Default, Clone)]
struct Counters {
    segments_sent: u64,
    data_segments_sent: u64,
    segments_retransmitted: u64,
    bytes_retransmitted: u64,
    timeouts: u64,
    fast_retransmits: u64,
    dup_acks_received: u64,
    bytes_acked: u64,
    segments_received: u64,
    bytes_received: u64,
    dup_acks_sent: u64,
    bad_segments: u64,
    rtt_samples: u64,
    events_dropped: u64,
}

/// A TCP connection.
#[derive(Debug)]
pub struct TcpConnection {
    config: TcpConfig,
    local: SocketAddr,
    remote: SocketAddr,
    state: TcpState,
    epoch: Time,

    // Send side (RFC 9293 section 3.3.1).
    iss: SeqNum,
    snd_una: SeqNum,
    /// Next sequence number never sent before (SND.MAX / HighData + 1).
    snd_max: SeqNum,
    snd_wnd: u32,
    snd_wl1: SeqNum,
    snd_wl2: SeqNum,
    max_snd_wnd: u32,
    snd_shift: u8,
    rcv_shift: u8,
    smss: u32,
    send_buf: SendBuffer,
    fin_queued: bool,
    fin_sent: bool,
    board: Scoreboard,
    cc: Congestion,
    rtt: RttEstimator,
    sack_ok: bool,
    ts_ok: bool,
    ws_ok: bool,
    ts_recent: u32,

    // Loss recovery.
    in_recovery: bool,
    recover: SeqNum,
    recover_active: bool,
    dup_acks: u32,
    /// New data sent beyond cwnd by limited transmit since the last new ACK.
    limited_tx_bytes: u32,
    partial_ack_seen: bool,
    retransmit_now: bool,
    consecutive_timeouts: u32,
    probe_zero_window: bool,

    // Receive side.
    irs: SeqNum,
    reasm: Reassembly,
    peer_fin_at: Option<u64>,
    peer_fin_done: bool,
    ack_due: AckDue,
    /// Immediate ACKs owed beyond the one `ack_due` stands for: every
    /// out-of-order segment gets its own duplicate ACK even when several
    /// are handled before the next poll.
    extra_acks: u32,
    ack_is_dup: bool,
    delack_segments: u32,
    first_data_acked: bool,
    last_adv_window: u32,
    last_ack_sent: SeqNum,

    // Handshake and control.
    syn_pending: bool,
    syn_retransmitted: bool,
    syn_sent_at: Option<Time>,
    syn_retries_left: u32,
    syn_timeout: Duration,
    rst_pending: Option<RstToSend>,

    // Timers.
    rto_at: Option<Time>,
    delack_at: Option<Time>,
    time_wait_at: Option<Time>,
    frozen: bool,

    events: VecDeque<TcpEvent>,
    readable_signalled: bool,
    write_blocked: bool,
    counters: Counters,
}

impl TcpConnection {
    fn new(
        config: TcpConfig,
        now: Time,
        local: SocketAddr,
        remote: SocketAddr,
        iss: u32,
    ) -> Result<Self, TcpError> {
        config.validate()?;
        let smss = u32::from(config.mss);
        let iss = SeqNum(iss);
        let rtt = RttEstimator::new(
            config.initial_rto,
            config.min_rto,
            config.max_rto,
            config.clock_granularity,
        );
        Ok(TcpConnection {
            local,
            remote,
            state: TcpState::Closed,
            epoch: now,
            iss,
            snd_una: iss,
            snd_max: iss.wrapping_add(1),
            snd_wnd: 0,
            snd_wl1: SeqNum(0),
            snd_wl2: iss,
            max_snd_wnd: 0,
            snd_shift: 0,
            rcv_shift: 0,
            smss,
            send_buf: SendBuffer::new(config.send_buffer, iss.wrapping_add(1)),
            fin_queued: false,
            fin_sent: false,
            board: Scoreboard::default(),
            cc: Congestion::new(
                config.initial_window_bytes(smss),
                config.initial_ssthresh,
                smss,
            ),
            rtt,
            sack_ok: false,
            ts_ok: false,
            ws_ok: false,
            ts_recent: 0,
            in_recovery: false,
            recover: iss,
            recover_active: false,
            dup_acks: 0,
            limited_tx_bytes: 0,
            partial_ack_seen: false,
            retransmit_now: false,
            consecutive_timeouts: 0,
            probe_zero_window: false,
            irs: SeqNum(0),
            reasm: Reassembly::new(config.recv_buffer, config.max_out_of_order_ranges),
            peer_fin_at: None,
            peer_fin_done: false,
            ack_due: AckDue::None,
            extra_acks: 0,
            ack_is_dup: false,
            delack_segments: 0,
            first_data_acked: false,
            last_adv_window: 0,
            last_ack_sent: SeqNum(0),
            syn_pending: false,
            syn_retransmitted: false,
            syn_sent_at: None,
            syn_retries_left: config.syn_retries,
            syn_timeout: config.syn_rto,
            rst_pending: None,
            rto_at: None,
            delack_at: None,
            time_wait_at: None,
            frozen: false,
            events: VecDeque::new(),
            readable_signalled: false,
            write_blocked: false,
            counters: Counters::default(),
            config,
        })
    }

    /// Active open: a connection in SYN-SENT whose SYN is ready to be
    /// polled. `iss` is the initial sequence number (the caller chooses it,
    /// so runs are reproducible).
    pub fn connect(
        config: TcpConfig,
        now: Time,
        local: SocketAddr,
        remote: SocketAddr,
        iss: u32,
    ) -> Result<Self, TcpError> {
        let mut c = Self::new(config, now, local, remote, iss)?;
        c.state = TcpState::SynSent;
        c.syn_pending = true;
        Ok(c)
    }

    /// Passive open from a received SYN (used by [`crate::TcpListener`]):
    /// a connection in SYN-RECEIVED whose SYN-ACK is ready to be polled.
    pub(crate) fn accept(
        config: TcpConfig,
        now: Time,
        local: SocketAddr,
        remote: SocketAddr,
        iss: u32,
        syn: &SegmentHeader,
    ) -> Result<Self, TcpError> {
        let mut c = Self::new(config, now, local, remote, iss)?;
        c.state = TcpState::SynReceived;
        c.take_syn_options(syn);
        c.irs = syn.seq;
        c.snd_wnd = u32::from(syn.window);
        c.max_snd_wnd = c.snd_wnd;
        c.snd_wl1 = syn.seq;
        c.syn_pending = true;
        c.counters.segments_received += 1;
        Ok(c)
    }

    // ----- accessors -----

    pub fn state(&self) -> TcpState {
        self.state
    }
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }
    pub fn remote_addr(&self) -> SocketAddr {
        self.remote
    }
    pub fn config(&self) -> &TcpConfig {
        &self.config
    }
    /// Fully closed: nothing more will be sent or timed.
    pub fn is_closed(&self) -> bool {
        self.state == TcpState::Closed
    }
    /// SACK was negotiated.
    pub fn sack_enabled(&self) -> bool {
        self.sack_ok
    }
    /// Bytes the application may still write.
    pub fn send_capacity(&self) -> usize {
        if self.fin_queued {
            0
        } else {
            self.send_buf.free()
        }
    }
    /// Bytes written and not yet acknowledged (sent or not).
    pub fn unacked_len(&self) -> usize {
        self.send_buf.len()
    }
    /// The peer finished sending and everything before its FIN was read.
    pub fn peer_finished(&self) -> bool {
        self.peer_fin_done && self.reasm.readable() == 0
    }

    /// A snapshot of the connection's variables and counters.
    pub fn stats(&self) -> TcpStats {
        let c = &self.counters;
        TcpStats {
            state: self.state,
            cwnd: self.cc.cwnd,
            ssthresh: self.cc.ssthresh,
            srtt: self.rtt.srtt(),
            rttvar: self.rtt.rttvar(),
            rto: self.rtt.rto(),
            last_rtt: self.rtt.latest(),
            bytes_in_flight: self.board.pipe(),
            smss: self.smss,
            peer_window: self.snd_wnd,
            in_recovery: self.in_recovery,
            segments_sent: c.segments_sent,
            data_segments_sent: c.data_segments_sent,
            segments_retransmitted: c.segments_retransmitted,
            bytes_retransmitted: c.bytes_retransmitted,
            timeouts: c.timeouts,
            fast_retransmits: c.fast_retransmits,
            dup_acks_received: c.dup_acks_received,
            bytes_acked: c.bytes_acked,
            segments_received: c.segments_received,
            bytes_received: c.bytes_received,
            dup_acks_sent: c.dup_acks_sent,
            bad_segments: c.bad_segments,
            rtt_samples: c.rtt_samples,
            events_dropped: c.events_dropped,
        }
    }

    // ----- application interface -----

    /// Queues bytes for sending; returns how many fit in the send buffer.
    pub fn write(&mut self, data: &[u8]) -> Result<usize, TcpError> {
        let open = matches!(
            self.state,
            TcpState::SynSent | TcpState::SynReceived | TcpState::Established | TcpState::CloseWait
        );
        if !open || self.fin_queued {
            return Err(TcpError::SendClosed);
        }
        let n = self.send_buf.write(data);
        if n < data.len() {
            self.write_blocked = true;
        }
        Ok(n)
    }

    /// Moves received in-order bytes into `buf`; returns how many (0 when
    /// nothing is readable; see [`Self::peer_finished`] for end of stream).
    pub fn read(&mut self, buf: &mut [u8]) -> usize {
        let n = self.reasm.read(buf);
        self.readable_signalled = false;
        if n > 0 && self.reasm.readable() > 0 {
            self.push_event(TcpEvent::Readable);
            self.readable_signalled = true;
        }
        // Receiver-side silly window avoidance (RFC 9293 section
        // 3.8.6.2.2): announce a reopened window only when the last one was
        // too small for the sender to use.
        let win = self.adv_window_bytes();
        if self.is_synchronized()
            && self.last_adv_window < 2 * self.smss
            && win >= self.last_adv_window.saturating_add(self.smss)
        {
            self.ack_due = AckDue::Now;
        }
        n
    }

    /// Closes the sending direction: a FIN follows the queued data
    /// (RFC 9293 section 3.10.4).
    pub fn close(&mut self) {
        match self.state {
            TcpState::SynSent => self.terminate(CloseReason::Normal),
            TcpState::SynReceived => self.fin_queued = true,
            TcpState::Established => {
                self.fin_queued = true;
                self.state = TcpState::FinWait1;
            }
            TcpState::CloseWait => {
                self.fin_queued = true;
                self.state = TcpState::LastAck;
            }
            _ => {}
        }
    }

    /// Resets the connection (RFC 9293 section 3.10.5): an RST is queued
    /// if the peer knows the connection, and the connection is closed.
    pub fn abort(&mut self) {
        if self.state == TcpState::Closed {
            return;
        }
        if self.is_synchronized() || self.state == TcpState::SynReceived {
            self.rst_pending = Some(RstToSend {
                seq: self.snd_max,
                ack: None,
            });
        }
        self.terminate(CloseReason::Aborted);
    }

    /// Next event for the user.
    pub fn poll_event(&mut self) -> Option<TcpEvent> {
        self.events.pop_front()
    }

    // ----- handoff hooks (SYSTEMS.md 2.3 and 2.4) -----

    /// Uses a new local IP address from now on (after a handoff).
    pub fn set_local_ip(&mut self, ip: IpAddr) {
        self.local.set_ip(ip);
    }

    /// Sends to a new peer IP address from now on.
    pub fn set_remote_ip(&mut self, ip: IpAddr) {
        self.remote.set_ip(ip);
    }

    /// Sets the congestion window (bytes, at least one segment), e.g. to
    /// the new link's bandwidth-delay product instead of slow start.
    pub fn set_cwnd(&mut self, bytes: u32) {
        self.cc.cwnd = bytes.max(self.smss);
    }

    /// Sets the slow-start threshold (bytes, at least two segments).
    pub fn set_ssthresh(&mut self, bytes: u32) {
        self.cc.ssthresh = bytes.max(2 * self.smss);
    }

    /// Forgets the RTT estimate (a new path): back to the initial RTO.
    pub fn reset_rtt(&mut self) {
        self.rtt.reset();
    }

    /// Treats every unacknowledged segment as lost: they are sent again
    /// from SND.UNA on, the first at once and the others as the congestion
    /// window allows (after a handoff, whatever was in flight on the old
    /// path is gone). Neither cwnd nor ssthresh changes and no timeout is
    /// counted; an ongoing fast recovery ends, and, as after a
    /// retransmission timeout (RFC 6582 section 4.2), no fast retransmit
    /// starts until everything sent so far is acknowledged: segments that
    /// had arrived (their ACKs lost with the old path) come back as
    /// duplicate ACKs, which signal no loss.
    pub fn retransmit_unacked(&mut self) {
        if self.board.is_empty() {
            return;
        }
        self.board.mark_all_lost();
        self.retransmit_now = true;
        self.in_recovery = false;
        self.dup_acks = 0;
        self.consecutive_timeouts = 0;
        self.recover = self.snd_max;
        self.recover_active = true;
    }

    /// Stops the connection: nothing is sent and no timer runs until
    /// [`Self::thaw`]. Received segments are still processed; what they
    /// call for is sent after the thaw.
    pub fn freeze(&mut self) {
        self.frozen = true;
    }

    pub fn is_frozen(&self) -> bool {
        self.frozen
    }

    /// Restarts a frozen connection at `now`: a pending retransmission
    /// timer restarts with a full RTO, a pending delayed ACK goes out.
    pub fn thaw(&mut self, now: Time) {
        if !self.frozen {
            return;
        }
        self.frozen = false;
        if self.rto_at.is_some() {
            self.rto_at = Some(now + self.current_timeout());
        }
        if self.delack_at.is_some() {
            self.delack_at = None;
            self.ack_due = AckDue::Now;
        }
        if let Some(t) = self.time_wait_at {
            self.time_wait_at = Some(t.max(now));
        }
    }

    /// Takes the data not yet acknowledged so that a connection manager can
    /// send it on another connection. Returns every byte from SND.UNA on:
    /// first those sent and unacknowledged, then those never sent. The
    /// never-sent bytes leave this connection; the sent ones stay in its
    /// retransmission queue because they already occupy its sequence space
    /// (the peer may hold some of them), so a thawed connection may still
    /// retransmit them and the manager above must discard duplicates.
    pub fn take_unacked(&mut self) -> Vec<u8> {
        let out = self.send_buf.take_from(self.snd_max);
        if self.send_buf.free() > 0 && self.write_blocked {
            self.write_blocked = false;
            self.push_event(TcpEvent::Writable);
        }
        out
    }

    // ----- timers -----

    /// The earliest deadline at which [`Self::handle_timeout`] must be
    /// called; `None` when no timer runs (or frozen).
    pub fn poll_timeout(&self) -> Option<Time> {
        if self.frozen {
            return None;
        }
        [self.rto_at, self.delack_at, self.time_wait_at]
            .into_iter()
            .flatten()
            .min()
    }

    /// Runs the timers that are due at `now`.
    pub fn handle_timeout(&mut self, now: Time) {
        if self.frozen {
            return;
        }
        if self.time_wait_at.is_some_and(|t| t <= now) {
            self.time_wait_at = None;
            self.state = TcpState::Closed;
            self.clear_timers();
            return;
        }
        if self.delack_at.is_some_and(|t| t <= now) {
            self.delack_at = None;
            self.ack_due = AckDue::Now;
        }
        if self.rto_at.is_some_and(|t| t <= now) {
            self.rto_at = None;
            self.on_retransmission_timeout(now);
        }
    }

    fn current_timeout(&self) -> Duration {
        match self.state {
            TcpState::SynSent | TcpState::SynReceived => self.syn_timeout,
            _ => self.rtt.rto(),
        }
    }

    fn on_retransmission_timeout(&mut self, now: Time) {
        match self.state {
            TcpState::SynSent | TcpState::SynReceived => {
                if self.syn_retries_left == 0 {
                    self.terminate(CloseReason::TimedOut);
                    return;
                }
                self.syn_retries_left -= 1;
                self.syn_timeout = self
                    .syn_timeout
                    .saturating_mul(2)
                    .min(self.config.max_rto.max(self.config.syn_rto));
                self.syn_pending = true;
                self.syn_retransmitted = true;
                return;
            }
            TcpState::Closed | TcpState::TimeWait => return,
            _ => {}
        }
        if self.board.is_empty() {
            if self.probe_zero_window || self.window_closed_with_data() {
                // Persist timer (RFC 9293 section 3.8.6.1): probe the window.
                self.probe_zero_window = true;
                self.retransmit_now = true;
                self.rtt.back_off();
                self.rto_at = Some(now + self.rtt.rto());
            }
            return;
        }
        if self.snd_wnd == 0 && self.probe_zero_window {
            // A lost window probe is not a congestion signal.
            self.rtt.back_off();
            self.board.mark_all_lost();
            self.retransmit_now = true;
            self.rto_at = Some(now + self.rtt.rto());
            return;
        }
        self.consecutive_timeouts += 1;
        if self.consecutive_timeouts > self.config.max_retransmissions {
            self.terminate(CloseReason::TimedOut);
            return;
        }
        self.counters.timeouts += 1;
        let flight = self.snd_max.since(self.snd_una);
        self.cc.on_timeout(flight, self.consecutive_timeouts == 1);
        self.rtt.back_off();
        // RFC 6582 section 4 / RFC 6675 section 5.1: recovery ends, and a new
        // fast retransmit waits until everything sent so far is acked.
        self.in_recovery = false;
        self.dup_acks = 0;
        self.recover = self.snd_max;
        self.recover_active = true;
        self.board.mark_all_lost();
        self.retransmit_now = true;
        self.rto_at = Some(now + self.rtt.rto());
    }

    fn window_closed_with_data(&self) -> bool {
        let unsent =
            self.send_buf.available_from(self.snd_max) > 0 || (self.fin_queued && !self.fin_sent);
        unsent && self.snd_wnd == 0
    }

    fn clear_timers(&mut self) {
        self.rto_at = None;
        self.delack_at = None;
    }

    fn restart_rto(&mut self, now: Time) {
        self.rto_at = Some(now + self.rtt.rto());
    }

    // ----- input -----

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
        let (h, payload) = match wire::parse(src_ip, dst_ip, bytes) {
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

    fn take_syn_options(&mut self, h: &SegmentHeader) {
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

    fn on_segment_syn_sent(&mut self, now: Time, h: &SegmentHeader) {
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

    fn is_synchronized(&self) -> bool {
        !matches!(
            self.state,
            TcpState::Closed | TcpState::SynSent | TcpState::SynReceived
        )
    }

    fn rcv_nxt(&self) -> SeqNum {
        self.irs
            .wrapping_add(1)
            .wrapping_add(self.reasm.next() as u32)
    }

    fn rcv_wnd(&self) -> u32 {
        u32::try_from(self.reasm.window()).unwrap_or(u32::MAX)
    }

    /// RFC 9293 section 3.10.7.4, first check: is the segment acceptable?
    fn acceptable(&self, h: &SegmentHeader, payload_len: usize) -> bool {
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

    fn on_segment_synchronized(&mut self, now: Time, h: &SegmentHeader, payload: &[u8]) {
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

    fn process_ack(&mut self, now: Time, h: &SegmentHeader, payload_len: usize) {
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

    fn on_new_ack(&mut self, now: Time, h: &SegmentHeader, ack: SeqNum) {
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
        if self.recover_active && ack.ge(self.recover) {
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

    fn on_dup_ack(&mut self, _now: Time) {
        self.counters.dup_acks_received += 1;
        if self.in_recovery {
            if !self.sack_ok {
                self.cc.inflate();
            }
            return;
        }
        self.dup_acks += 1;
        let may_enter = !self.recover_active || self.snd_una.ge(self.recover);
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
    fn enter_fast_recovery(&mut self) {
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

    fn on_fin_acked(&mut self, now: Time) {
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

    fn enter_time_wait(&mut self, now: Time) {
        if self.state != TcpState::TimeWait {
            self.push_event(TcpEvent::Closed(CloseReason::Normal));
        }
        self.state = TcpState::TimeWait;
        self.rto_at = None;
        self.time_wait_at = Some(now + self.config.time_wait);
    }

    fn process_data(&mut self, now: Time, h: &SegmentHeader, payload: &[u8]) {
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

    fn process_fin(&mut self, now: Time, h: &SegmentHeader, payload_len: usize) {
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

    fn take_rtt_sample(&mut self, r: Duration) {
        self.rtt.sample(r);
        self.counters.rtt_samples += 1;
        if self.config.report_rtt_samples {
            let srtt = self.rtt.srtt().unwrap_or(r);
            self.push_event(TcpEvent::RttSample { rtt: r, srtt });
        }
    }

    fn push_event(&mut self, e: TcpEvent) {
        if self.events.len() >= self.config.event_queue_limit
            && matches!(e, TcpEvent::RttSample { .. })
        {
            self.counters.events_dropped += 1;
            return;
        }
        self.events.push_back(e);
    }

    fn terminate(&mut self, reason: CloseReason) {
        self.state = TcpState::Closed;
        self.rto_at = None;
        self.delack_at = None;
        self.time_wait_at = None;
        self.syn_pending = false;
        self.ack_due = AckDue::None;
        self.extra_acks = 0;
        self.push_event(TcpEvent::Closed(reason));
    }

    fn queue_rst_for(&mut self, h: &SegmentHeader, payload_len: usize) {
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

    // ----- output -----

    fn ts_now(&self, now: Time) -> u32 {
        // Millisecond clock, never 0 so that an echo of 0 means "none".
        ((now - self.epoch).as_millis() as u32).wrapping_add(1)
    }

    fn adv_window_bytes(&self) -> u32 {
        let max = 65535u32 << self.rcv_shift;
        self.rcv_wnd().min(max)
    }

    /// The next segment to send, if any. Call until it returns `None`
    /// after every input and timeout.
    pub fn poll_transmit(&mut self, now: Time) -> Option<Segment> {
        if self.frozen {
            return None;
        }
        if let Some(rst) = self.rst_pending.take() {
            return self.emit_rst(rst);
        }
        match self.state {
            TcpState::Closed => return None,
            TcpState::SynSent | TcpState::SynReceived => {
                if self.syn_pending {
                    return self.emit_syn(now);
                }
                if self.state == TcpState::SynSent {
                    return None;
                }
            }
            _ => {}
        }
        if self.is_synchronized()
            && let Some(seg) = self.emit_data(now)
        {
            return Some(seg);
        }
        if self.ack_due == AckDue::Now && self.state != TcpState::SynReceived {
            return self.emit_flags(
                now,
                self.snd_max,
                Flags {
                    ack: true,
                    ..Flags::default()
                },
                &[],
            );
        }
        None
    }

    fn emit_syn(&mut self, now: Time) -> Option<Segment> {
        self.syn_pending = false;
        let passive = self.state == TcpState::SynReceived;
        let options = TcpOptions {
            mss: Some(self.config.mss),
            window_scale: if self.config.window_scaling && (!passive || self.ws_ok) {
                Some(self.config.window_shift())
            } else {
                None
            },
            sack_permitted: self.config.sack && (!passive || self.sack_ok),
            sack_blocks: Vec::new(),
            timestamps: if self.config.timestamps && (!passive || self.ts_ok) {
                Some(Timestamps {
                    value: self.ts_now(now),
                    echo: if passive { self.ts_recent } else { 0 },
                })
            } else {
                None
            },
        };
        let header = SegmentHeader {
            src_port: self.local.port(),
            dst_port: self.remote.port(),
            seq: self.iss,
            ack: if passive { self.rcv_nxt() } else { SeqNum(0) },
            flags: Flags {
                syn: true,
                ack: passive,
                ..Flags::default()
            },
            window: u16::try_from(self.rcv_wnd().min(65535)).unwrap_or(u16::MAX),
            urgent: 0,
            options,
        };
        if self.syn_sent_at.is_none() {
            self.syn_sent_at = Some(now);
        }
        self.last_adv_window = u32::from(header.window);
        self.rto_at = Some(now + self.syn_timeout);
        self.counters.segments_sent += 1;
        if passive {
            self.last_ack_sent = header.ack;
        }
        self.build(&header, &[])
    }

    fn emit_rst(&mut self, rst: RstToSend) -> Option<Segment> {
        let header = SegmentHeader {
            src_port: self.local.port(),
            dst_port: self.remote.port(),
            seq: rst.seq,
            ack: rst.ack.unwrap_or(SeqNum(0)),
            flags: Flags {
                rst: true,
                ack: rst.ack.is_some(),
                ..Flags::default()
            },
            ..SegmentHeader::default()
        };
        self.counters.segments_sent += 1;
        self.build(&header, &[])
    }

    /// Builds a segment with ACK (and whatever `flags` adds), carrying the
    /// current window, timestamps and SACK blocks, and records that an ACK
    /// went out.
    fn emit_flags(
        &mut self,
        now: Time,
        seq: SeqNum,
        flags: Flags,
        payload: &[u8],
    ) -> Option<Segment> {
        let rcv_nxt = self.rcv_nxt();
        let win = self.adv_window_bytes();
        let mut options = TcpOptions::default();
        if self.ts_ok {
            options.timestamps = Some(Timestamps {
                value: self.ts_now(now),
                echo: self.ts_recent,
            });
        }
        if self.sack_ok && self.reasm.has_out_of_order() {
            let max_blocks = if self.ts_ok { 3 } else { 4 };
            let base = self.reasm.next();
            options.sack_blocks = self
                .reasm
                .sack_ranges(max_blocks)
                .into_iter()
                .map(|(s, e)| SackBlock {
                    left: rcv_nxt.wrapping_add((s - base) as u32),
                    right: rcv_nxt.wrapping_add((e - base) as u32),
                })
                .collect();
        }
        let header = SegmentHeader {
            src_port: self.local.port(),
            dst_port: self.remote.port(),
            seq,
            ack: rcv_nxt,
            flags,
            window: u16::try_from(win >> self.rcv_shift).unwrap_or(u16::MAX),
            urgent: 0,
            options,
        };
        if self.ack_is_dup && payload.is_empty() {
            self.counters.dup_acks_sent += 1;
        }
        if self.extra_acks > 0 {
            self.extra_acks -= 1;
            self.ack_due = AckDue::Now;
        } else {
            self.ack_is_dup = false;
            self.ack_due = AckDue::None;
        }
        self.delack_at = None;
        self.delack_segments = 0;
        self.last_adv_window = win;
        self.last_ack_sent = rcv_nxt;
        self.counters.segments_sent += 1;
        self.build(&header, payload)
    }

    fn build(&mut self, header: &SegmentHeader, payload: &[u8]) -> Option<Segment> {
        match wire::emit(header, payload, self.local.ip(), self.remote.ip()) {
            Ok(bytes) => Some(Segment {
                src_ip: self.local.ip(),
                dst_ip: self.remote.ip(),
                bytes,
            }),
            // Only an address-family mix (caller's addresses) can fail here;
            // there is nothing to send then.
            Err(_) => None,
        }
    }

    /// Room for options in a data segment: the MSS counts payload bytes of
    /// a segment without options (RFC 9293 section 3.7.1), so options
    /// shrink the payload.
    fn payload_room(&self) -> u32 {
        let opt = if self.ts_ok { 12 } else { 0 };
        self.smss.saturating_sub(opt).max(1)
    }

    fn emit_data(&mut self, now: Time) -> Option<Segment> {
        // 1. Retransmission of a segment marked lost.
        if let Some(i) = self.board.first_lost() {
            let pipe = self.board.pipe();
            let seg = self.board.get(i)?.clone();
            let allowed =
                self.retransmit_now || pipe.saturating_add(seg.len.max(1)) <= self.cc.cwnd;
            if !allowed {
                return None;
            }
            self.retransmit_now = false;
            let payload = self.send_buf.read_at(seg.seq, seg.len);
            if let Some(s) = self.board.get_mut(i) {
                s.state = SegmentState::InFlight;
                s.retransmitted = true;
                s.rtx_in_episode = true;
                s.sent_at = now;
            }
            self.counters.segments_retransmitted += 1;
            self.counters.bytes_retransmitted += u64::from(seg.len);
            self.counters.data_segments_sent += u64::from(seg.len > 0);
            if self.rto_at.is_none() {
                self.restart_rto(now);
            }
            let flags = Flags {
                ack: true,
                fin: seg.fin,
                psh: seg.fin,
                ..Flags::default()
            };
            return self.emit_flags(now, seg.seq, flags, &payload);
        }
        // 2. New data (and the FIN after it).
        let unsent = self.send_buf.available_from(self.snd_max);
        let fin_ready = self.fin_queued && !self.fin_sent;
        if unsent == 0 && !fin_ready {
            return None;
        }
        let pipe = self.board.pipe();
        let mut cwnd = self.cc.cwnd;
        if self.config.limited_transmit && !self.in_recovery && self.dup_acks > 0 {
            // RFC 3042: the first two duplicate ACKs each allow one new segment.
            cwnd = cwnd.saturating_add(self.dup_acks.min(2) * self.smss);
        }
        let usable_cwnd = cwnd.saturating_sub(pipe);
        let right_edge = self.snd_una.wrapping_add(self.snd_wnd);
        let mut usable_rwnd = if right_edge.gt(self.snd_max) {
            right_edge.since(self.snd_max)
        } else {
            0
        };
        let probing = self.probe_zero_window && self.retransmit_now;
        if probing {
            usable_rwnd = usable_rwnd.max(1);
        }
        let room = self.payload_room();
        let usable = usable_cwnd.min(usable_rwnd);
        let want = unsent.min(room);
        let len = want.min(usable);
        if unsent > 0 {
            // Sender silly window avoidance (RFC 9293 section 3.8.6.2.1),
            // as ns-3: wait for a full segment when more data waits.
            let sws_wait = len < want
                && !probing
                && !(self.board.is_empty() && usable_rwnd >= self.max_snd_wnd / 2 && len > 0);
            let nagle_wait = self.config.nagle && len < room && !self.board.is_empty();
            if len == 0 || sws_wait || nagle_wait {
                if self.board.is_empty() && usable_rwnd < want && self.rto_at.is_none() {
                    // Nothing in flight will bring an ACK: the persist
                    // timer will probe the peer's window.
                    self.probe_zero_window = true;
                    self.restart_rto(now);
                }
                return None;
            }
        }
        if probing {
            self.retransmit_now = false;
        }
        let seq = self.snd_max;
        let payload = self.send_buf.read_at(seq, len);
        let fin = fin_ready && unsent == len;
        self.board.push(SentSegment {
            seq,
            len,
            fin,
            sent_at: now,
            retransmitted: false,
            rtx_in_episode: false,
            state: SegmentState::InFlight,
        });
        self.snd_max = seq.wrapping_add(len + u32::from(fin));
        if fin {
            self.fin_sent = true;
        }
        self.counters.data_segments_sent += u64::from(len > 0);
        if pipe.saturating_add(len) > self.cc.cwnd && self.dup_acks > 0 && !self.in_recovery {
            self.limited_tx_bytes = self.limited_tx_bytes.saturating_add(len);
        }
        if self.rto_at.is_none() || probing {
            self.restart_rto(now);
        }
        let flags = Flags {
            ack: true,
            fin,
            psh: len > 0 && len == unsent,
            ..Flags::default()
        };
        self.emit_flags(now, seq, flags, &payload)
    }
}

#[cfg(test)]
mod tests;
