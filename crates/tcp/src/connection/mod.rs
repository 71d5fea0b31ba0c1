//! One TCP connection as a sans-I/O state machine (RFC 9293 section 3.10):
//! the caller passes in time and received segments, and polls out
//! segments to send, the next timer deadline and events.
//!
//! Sender: slow start and congestion avoidance (RFC 5681), fast retransmit
//! and NewReno fast recovery with partial ACKs (RFC 6582), limited transmit
//! (RFC 3042), RTO per RFC 6298 with back-off and Karn's rule, or with
//! SACK the loss recovery of RFC 6675. Receiver: reassembly, delayed ACKs
//! (RFC 5681 section 4.2), SACK blocks (RFC 2018), flow control.
//!
//! Laid out as the SCTP association is: this file holds the state, the
//! application interface and the handoff hooks; `input.rs` what arrives,
//! `output.rs` what is sent, `timers.rs` the retransmission, delayed-ACK
//! and TIME-WAIT timers.

use std::collections::VecDeque;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use msctp_time::Time;

use crate::config::TcpConfig;
use crate::congestion::Congestion;
use crate::event::{CloseReason, TcpError, TcpEvent};
use crate::reassembly::Reassembly;
use crate::rtt::RttEstimator;
use crate::scoreboard::Scoreboard;
use crate::send_buffer::SendBuffer;
use crate::seq::SeqNum;
use crate::state::TcpState;
use crate::stats::TcpStats;
use crate::wire::SegmentHeader;

mod input;
mod output;
mod timers;

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
    /// Received segments' checksums are left to the layer below
    /// ([`Self::set_checksum_offload`]).
    checksum_offload: bool,

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
            checksum_offload: false,
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
    /// Leaves the checksum of received segments (RFC 9293 section 3.1) to
    /// the layer below, as a receive checksum offload does: the segment is
    /// taken as it arrives. For a network that never changes a packet's
    /// bytes nor its addresses (a simulator), where every checksum is
    /// correct; segments sent keep their checksum.
    pub fn set_checksum_offload(&mut self, on: bool) {
        self.checksum_offload = on;
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
        self.queue(data.len(), |buf| buf.write(data))
    }

    /// Queues up to `n` zero bytes of application data, as [`Self::write`]
    /// of that many zeros does (the segments carry them without a copy).
    pub fn write_zeros(&mut self, n: usize) -> Result<usize, TcpError> {
        self.queue(n, |buf| buf.write_zeros(n))
    }

    /// Queues `n` bytes with `put` (which returns how many fit) while the
    /// sending side is open; a short write marks the writer blocked.
    fn queue(
        &mut self,
        n: usize,
        put: impl FnOnce(&mut SendBuffer) -> usize,
    ) -> Result<usize, TcpError> {
        let open = matches!(
            self.state,
            TcpState::SynSent | TcpState::SynReceived | TcpState::Established | TcpState::CloseWait
        );
        if !open || self.fin_queued {
            return Err(TcpError::SendClosed);
        }
        let w = put(&mut self.send_buf);
        if w < n {
            self.write_blocked = true;
        }
        Ok(w)
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

    // ----- handoff hooks (docs/MODELS.md 2.3 and 2.4) -----

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
}

#[cfg(test)]
mod tests;
