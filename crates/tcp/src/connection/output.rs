//! What the connection sends (RFC 9293 section 3.10): SYN and SYN-ACK,
//! RST, pure ACKs with SACK blocks (RFC 2018) and timestamps (RFC 7323),
//! and data within the congestion and peer windows.

use msctp_time::Time;

use super::{AckDue, RstToSend, Segment, TcpConnection};
use crate::scoreboard::{SegmentState, SentSegment};
use crate::send_buffer::Payload;
use crate::seq::SeqNum;
use crate::state::TcpState;
use crate::wire::{self, Flags, SackBlock, SegmentHeader, TcpOptions, Timestamps};

impl TcpConnection {
    pub(super) fn ts_now(&self, now: Time) -> u32 {
        // Millisecond clock, never 0 so that an echo of 0 means "none".
        ((now - self.epoch).as_millis() as u32).wrapping_add(1)
    }

    pub(super) fn adv_window_bytes(&self) -> u32 {
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
                &Payload::Zeros(0),
            );
        }
        None
    }

    pub(super) fn emit_syn(&mut self, now: Time) -> Option<Segment> {
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

    pub(super) fn emit_rst(&mut self, rst: RstToSend) -> Option<Segment> {
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
    pub(super) fn emit_flags(
        &mut self,
        now: Time,
        seq: SeqNum,
        flags: Flags,
        payload: &Payload,
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
        match payload {
            Payload::Zeros(n) => self.segment(wire::emit_zeros(
                &header,
                *n,
                self.local.ip(),
                self.remote.ip(),
            )),
            Payload::Bytes(b) => self.build(&header, b),
        }
    }

    pub(super) fn build(&mut self, header: &SegmentHeader, payload: &[u8]) -> Option<Segment> {
        self.segment(wire::emit(
            header,
            payload,
            self.local.ip(),
            self.remote.ip(),
        ))
    }

    fn segment(&self, bytes: Result<Vec<u8>, wire::WireError>) -> Option<Segment> {
        match bytes {
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
    pub(super) fn payload_room(&self) -> u32 {
        let opt = if self.ts_ok { 12 } else { 0 };
        self.smss.saturating_sub(opt).max(1)
    }

    pub(super) fn emit_data(&mut self, now: Time) -> Option<Segment> {
        match self.board.first_lost() {
            Some(i) => self.emit_retransmission(now, i),
            None => self.emit_new_data(now),
        }
    }

    /// First: the retransmission of segment `i` of the board, marked lost,
    /// when the window allows it (or a retransmission is due now).
    fn emit_retransmission(&mut self, now: Time, i: usize) -> Option<Segment> {
        let pipe = self.board.pipe();
        let seg = self.board.get(i)?.clone();
        let allowed = self.retransmit_now || pipe.saturating_add(seg.len.max(1)) <= self.cc.cwnd;
        if !allowed {
            return None;
        }
        self.retransmit_now = false;
        let payload = self.send_buf.payload_at(seg.seq, seg.len);
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
        self.emit_flags(now, seg.seq, flags, &payload)
    }

    /// Then: new data (and the FIN after it), as the windows, silly window
    /// avoidance and Nagle allow.
    fn emit_new_data(&mut self, now: Time) -> Option<Segment> {
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
        let payload = self.send_buf.payload_at(seq, len);
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
