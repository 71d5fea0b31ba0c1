//! Building packets: what goes out next, to which address, bundled how
//! (RFC 9260 sections 6.1, 6.10; RFC 5061 section 4.1 for ASCONF in front of
//! DATA; RFC 4895 section 6.2 for AUTH).

use std::net::IpAddr;

use super::send::Retransmit;
use super::{Association, Directed, State, Transmit};
use crate::RetransmitDestination;
use crate::Time;
use crate::asconf::LocalAddrState;
use crate::wire::chunk::chunk_type;
use crate::wire::{AuthChunk, Chunk};

const COMMON_HEADER: usize = 12;
const DATA_HEADER: usize = 16;
/// Smallest fragment cut to fit the room left behind control chunks.
const MIN_FRAGMENT: usize = 256;

fn pad4(n: usize) -> usize {
    (n + 3) & !3
}

/// What limits the next DATA packets.
#[derive(Debug, Clone)]
pub(super) struct TxControl {
    /// DATA packets still allowed before the next input (Max.Burst,
    /// RFC 9260 section 6.1).
    pub(super) burst_budget: u32,
    /// Fast retransmissions were just marked: the next packet of them
    /// ignores cwnd (section 7.2.4 step 3).
    pub(super) fast_rtx_pending: bool,
    /// Zero window probing (RFC 9260 section 6.1 rule A): when the last
    /// probe left, until a SACK acknowledges new data. With
    /// `last_sack_at`, tells a probe's timeout while the peer keeps
    /// answering (no error) from a silent path.
    pub(super) zero_window_probe_at: Option<Time>,
    /// When the last SACK arrived.
    pub(super) last_sack_at: Option<Time>,
}

/// A packet being filled for one destination.
pub(super) struct Bundle {
    pub(super) dest: IpAddr,
    pub(super) source: Option<IpAddr>,
    chunks: Vec<Chunk>,
    /// Bytes of chunks so far (padded).
    size: usize,
    /// Room for chunks (MTU minus the common header).
    room: usize,
    /// Size of the AUTH chunk if one is needed.
    auth_overhead: usize,
    needs_auth: bool,
}

impl Bundle {
    pub(super) fn fits(&self, len: usize, needs_auth: bool) -> bool {
        let auth = if self.needs_auth || needs_auth {
            self.auth_overhead
        } else {
            0
        };
        self.size + pad4(len) + auth <= self.room
    }

    /// Would a chunk of `len` fit a packet with nothing else?
    pub(super) fn fits_empty(&self, len: usize, needs_auth: bool) -> bool {
        pad4(len) + if needs_auth { self.auth_overhead } else { 0 } <= self.room
    }

    pub(super) fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    pub(super) fn push(&mut self, c: Chunk, needs_auth: bool) {
        self.size += c.padded_len();
        self.needs_auth |= needs_auth;
        self.chunks.push(c);
    }
}

impl Association {
    /// Largest DATA payload that fits one packet (fragmentation size).
    pub(crate) fn max_data_payload(&self) -> usize {
        let auth = if self.must_authenticate(chunk_type::DATA) {
            self.auth_overhead()
        } else {
            0
        };
        (self.fragmentation_mtu() - COMMON_HEADER - DATA_HEADER - auth) & !3
    }

    fn new_bundle(&mut self, dest: IpAddr, source: Option<IpAddr>) -> Bundle {
        Bundle {
            dest,
            source,
            chunks: std::mem::take(&mut self.bundle_chunks),
            size: 0,
            room: self.mtu_to(dest) - COMMON_HEADER,
            auth_overhead: self.auth_overhead(),
            needs_auth: false,
        }
    }

    /// Max.Burst for the burst that starts now (RFC 9260 section 6.1
    /// rule D): `max_burst` packets, or with `burst_autosize` what the
    /// data path delivers in that time at cwnd / SRTT, if more, up to
    /// [`crate::config::MAX_AUTOSIZED_BURST`] bytes.
    pub(super) fn burst_allowance(&self) -> u32 {
        let Some(packets) = self.cfg.max_burst else {
            return u32::MAX;
        };
        let Some(span) = self.cfg.burst_autosize else {
            return packets;
        };
        let Some(path) = self.data_path().map(|p| &self.paths[p]) else {
            return packets;
        };
        let Some(srtt) = path.rto.srtt().filter(|d| !d.is_zero()) else {
            return packets;
        };
        let bytes = (u128::from(path.cc.cwnd) * span.as_nanos() / srtt.as_nanos())
            .min(u128::from(crate::config::MAX_AUTOSIZED_BURST));
        let autosized = bytes / self.cfg.path_mtu.max(1) as u128;
        packets.max(autosized as u32)
    }

    /// The next datagram to send, if any.
    pub(crate) fn poll_transmit(&mut self, now: Time) -> Option<Transmit> {
        self.note_rwnd_block(now);
        self.build_packet(now)
    }

    /// The next reply that answers the packet just handled, alone in its
    /// packet: one with a reflected tag (an INIT ACK or ABORT answering an
    /// INIT, a SHUTDOWN COMPLETE with the T bit) or the SHUTDOWN ACK that
    /// answers an INIT in SHUTDOWN-ACK-SENT (section 9.2). The endpoint takes
    /// them right after the packet, as its stateless replies: such a
    /// packet's verification tag proves nothing (RFC 9260 section 8.5.1),
    /// so over UDP its answer goes to the datagram's own source port and
    /// the association's stored port is not taken from it
    /// (draft-tuexen-tsvwg-rfc6951-bis section 5.4).
    /// A reply too long to encode is dropped (and counted by `emit_raw`).
    pub(crate) fn poll_reply(&mut self) -> Option<Transmit> {
        while let Some(i) = self.ctrl.iter().position(|d| d.reflect.is_some()) {
            let d = self.ctrl.remove(i)?;
            let tag = d.reflect?;
            if let Some(t) = self.emit_raw(d.dest, d.source, tag, &[d.chunk], false) {
                return Some(t);
            }
        }
        None
    }

    /// The next packet: a capacity train's, the handshake's, or one
    /// bundle for one destination filled in the order of section 6.10 and
    /// RFC 5061: control replies, SHUTDOWN, SACK, ASCONF, retransmissions,
    /// new data.
    fn build_packet(&mut self, now: Time) -> Option<Transmit> {
        // A capacity train leaves back to back, before anything else.
        if self.cfg.estimators.enabled {
            self.queue_due_trains(now);
            if let Some(t) = self.poll_probe() {
                return Some(t);
            }
        }
        if let Some(t) = self.poll_handshake(now) {
            return Some(t);
        }
        if let Some(t) = self.poll_pmtu_probe(now) {
            return Some(t);
        }
        if self.state == State::Closed && self.ctrl.is_empty() {
            return None;
        }
        self.apply_policies(now);
        self.maybe_start_asconf();
        self.cmt_fill_lanes();
        self.poll_reconfig(now);
        let dest = self.choose_destination(now)?;
        if self.held_for_asconf(dest, now) {
            return None;
        }
        let source = self.source_for_addr(dest);
        let mut b = self.new_bundle(dest, source);

        // 1. Control replies for this destination, in order.
        self.bundle_ctrl(&mut b);
        if self.state == State::Closed {
            return self.finish(b, now);
        }
        let data_path = self.data_path();
        let is_data_dest = data_path.is_some_and(|p| self.paths[p].remote == dest);
        // Where new data goes: the data path, or under CMT the scheduler's
        // choice.
        let new_data_path = if self.cmt_sending() {
            self.cmt_new_data_path()
        } else {
            data_path
        };
        // 2. SHUTDOWN / SHUTDOWN ACK.
        if self.shutdown.due && is_data_dest {
            self.bundle_shutdown(&mut b, data_path, now);
        }
        // 3. SACK: when due, and piggy-backed whenever something goes out.
        self.bundle_sack(&mut b);
        // 4. ASCONF, in front of any DATA (RFC 5061).
        self.maybe_start_asconf();
        self.bundle_asconf(&mut b, now);
        // 4b. FORWARD TSN, in front of DATA (RFC 3758 section 3.5).
        self.bundle_forward_tsn(&mut b, now);

        // 5. Retransmissions, then 6. new data: never to an UNCONFIRMED
        // address (RFC 9260 section 5.4); control chunks (a HEARTBEAT with
        // its nonce, the ASCONF-ACK to the ASCONF's source) may go there.
        if self.state.is_established()
            && let Some(p) = self.path_index(dest)
        {
            // A new source address under this path is a new network route.
            let path = &mut self.paths[p];
            if path.route_source != b.source {
                // A new route may have another MTU (RFC 8899 section 5.2:
                // a new path starts at BASE).
                if path.route_source.is_some() {
                    path.pmtu.reset();
                }
                path.route = path.route.wrapping_add(1);
                path.route_source = b.source;
                path.rto.reset_min_rtt();
            }
            if !path.confirmed {
                return self.finish(b, now);
            }
            self.bundle_retransmissions(&mut b, p, now);
            if new_data_path == Some(p) && self.may_send_new_data() {
                self.bundle_new_data(&mut b, p, now);
            }
        }
        self.finish(b, now)
    }

    /// The queued control chunks for the bundle's destination, in order,
    /// as many as fit (those sent alone with a reflected tag excepted).
    fn bundle_ctrl(&mut self, b: &mut Bundle) {
        let mut i = 0;
        while i < self.ctrl.len() {
            if self.ctrl[i].dest == b.dest && self.ctrl[i].reflect.is_none() {
                let len = self.ctrl[i].chunk.padded_len();
                let auth = self.must_authenticate(self.ctrl[i].chunk.chunk_type());
                if !b.fits(len, auth) {
                    break;
                }
                let d = self.ctrl.remove(i).expect("index checked");
                if b.source.is_none() {
                    b.source = d.source;
                }
                b.push(d.chunk, auth);
            } else {
                i += 1;
            }
        }
    }

    /// SHUTDOWN or SHUTDOWN ACK (section 9.2), T2-shutdown started.
    fn bundle_shutdown(&mut self, b: &mut Bundle, data_path: Option<usize>, now: Time) {
        let c = match self.state {
            State::ShutdownSent => Some(Chunk::Shutdown {
                cum_tsn_ack: self.receiver.cum_tsn(),
            }),
            State::ShutdownAckSent => Some(Chunk::ShutdownAck),
            _ => None,
        };
        if let Some(c) = c
            && b.fits(c.padded_len(), false)
        {
            let ty = c.chunk_type();
            b.push(c, self.must_authenticate(ty));
            self.shutdown.due = false;
            let rto = data_path
                .map(|p| self.paths[p].rto.rto())
                .unwrap_or(self.cfg.rto_initial);
            self.shutdown.deadline = Some(now + rto);
        }
    }

    /// A SACK when one is due or pending (section 6.2), with as many gap
    /// blocks as the bundle has room for.
    fn bundle_sack(&mut self, b: &mut Bundle) {
        let sack_pending = self.sack.now || self.sack.deadline.is_some();
        if !(sack_pending
            && self.state.is_established()
            && (self.state != State::ShutdownSent || self.sack.now))
        {
            return;
        }
        let auth = self.must_authenticate(chunk_type::SACK);
        let max_blocks = self.cfg.limits.max_gap_blocks;
        // Gap blocks beyond the room are left for a later SACK.
        let room_blocks = b
            .room
            .saturating_sub(b.size + 16 + if auth { b.auth_overhead } else { 0 })
            / 4;
        let packets = self.receiver.packets_since_sack;
        let mut sack = self
            .receiver
            .build_sack(max_blocks.min(room_blocks.saturating_sub(self.cfg.limits.max_dup_tsns)));
        if self.cmt_delayed_ack() {
            sack.set_dac_packets(packets);
        }
        let c = Chunk::Sack(sack);
        if b.fits(c.padded_len(), auth) {
            b.push(c, auth);
            self.sack.now = false;
            self.sack.deadline = None;
            self.stats.sacks_sent += 1;
        }
    }

    /// INIT and COOKIE ECHO (re)transmissions.
    fn poll_handshake(&mut self, now: Time) -> Option<Transmit> {
        let state = self.state;
        let st = self.init.as_mut()?;
        if !st.due {
            return None;
        }
        st.due = false;
        st.deadline = Some(now + st.rto.rto());
        let dest = st.dest;
        match state {
            State::CookieWait => {
                let chunk = Chunk::Init(st.chunk.clone());
                let source = self.source_for_addr(dest);
                self.emit_raw(dest, source, 0, &[chunk], false)
            }
            State::CookieEchoed => {
                let cookie = st.cookie.clone()?;
                let mut chunks = vec![Chunk::CookieEcho { cookie }];
                chunks.extend(st.cookie_bundle.iter().cloned());
                let source = self.source_for_addr(dest);
                let tag = self.peer_tag;
                let auth = chunks
                    .iter()
                    .any(|c| self.must_authenticate(c.chunk_type()));
                self.emit_raw(dest, source, tag, &chunks, auth)
            }
            _ => None,
        }
    }

    /// Picks the destination of the next packet.
    fn choose_destination(&mut self, now: Time) -> Option<IpAddr> {
        if let Some(d) = self.ctrl.front() {
            let dest = d.dest;
            // A control chunk held for the ASCONF (rule F1) must not hold
            // the ASCONF back: when the ASCONF goes elsewhere, its packet
            // goes first. Otherwise nothing would ever leave: the control
            // chunk waits for the ASCONF's acknowledgement, the ASCONF for
            // the control chunk ahead of it.
            // (`build_packet` has just started the ASCONF if one is due.)
            if self.state.is_established()
                && self.held_for_asconf(dest, now)
                && let Some(o) = &self.asconf.outstanding
                && o.deadline.is_none()
                && let Some(p) = self.paths.get(o.path)
            {
                return Some(p.remote);
            }
            return Some(dest);
        }
        if !self.state.is_established() {
            return None;
        }
        let data_path = self.data_path()?;
        let data_dest = self.paths[data_path].remote;
        if self.shutdown.due && matches!(self.state, State::ShutdownSent | State::ShutdownAckSent) {
            return Some(data_dest);
        }
        self.maybe_start_asconf();
        if let Some(o) = &self.asconf.outstanding
            && o.deadline.is_none()
        {
            return self.paths.get(o.path).map(|p| p.remote);
        }
        if let Some(idx) = self.sender.first_marked() {
            let dest = self.retransmit_path(idx);
            let p = &self.paths[dest];
            if self.tx.fast_rtx_pending || p.flight_size < p.cc.cwnd || p.flight_size == 0 {
                return Some(p.remote);
            }
        }
        if self.sender.has_queued() && self.may_send_new_data() && self.rwnd_allows() {
            if self.cmt_sending() {
                if let Some(p) = self.cmt_new_data_path() {
                    return Some(self.paths[p].remote);
                }
            } else {
                let p = &self.paths[data_path];
                if p.flight_size < p.cc.cwnd {
                    return Some(data_dest);
                }
            }
        }
        if self.sack.now || self.sender.forward_tsn_due {
            let d = self
                .sack
                .dest
                .filter(|d| self.path_index(*d).is_some())
                .unwrap_or(data_dest);
            // A SACK goes where it is due; a FORWARD TSN alone avoids a
            // failing path.
            return Some(if self.sack.now {
                d
            } else {
                self.forward_tsn_dest(d)
            });
        }
        let _ = now;
        None
    }

    fn may_send_new_data(&self) -> bool {
        matches!(
            self.state,
            State::Established | State::ShutdownPending | State::ShutdownReceived
        ) && self.tx.burst_budget > 0
    }

    /// The peer's window admits the next chunk, or nothing is in flight
    /// (zero window probe, section 6.1 rule A).
    pub(super) fn rwnd_allows(&self) -> bool {
        let len = self
            .sender
            .peek_chunk_len(self.max_data_payload())
            .unwrap_or(0) as u32;
        self.sender.peer_rwnd >= len || self.paths.iter().all(|p| p.flight_size == 0)
    }

    /// Where a marked chunk goes: after a timeout, to an active alternate
    /// destination if there is one (section 6.4); otherwise the data path.
    /// With [`RetransmitDestination::AlwaysAlternate`] (ns-2 `rtxToAlt_
    /// 1`), every fast or timeout retransmission goes to an alternate.
    fn retransmit_path(&self, idx: usize) -> usize {
        let c = self.sender.chunk(idx);
        let data_path = self.data_path().unwrap_or(0);
        // Under CMT every reason follows the retransmission policy.
        if self.cmt_sending()
            && let Some(p) = self.cmt_retransmit_path(c.path)
        {
            return p;
        }
        if self.cfg.retransmit_destination == RetransmitDestination::AlwaysAlternate
            && matches!(c.marked, Some(Retransmit::Fast | Retransmit::Timeout))
        {
            return self.next_active_after(c.path).unwrap_or(data_path);
        }
        if c.marked == Some(Retransmit::Fast) && self.cfg.fast_retransmit_on_fastest {
            // The active, confirmed destination where it arrives soonest:
            // by the SRTT, or for a path with nothing of ours in flight
            // (its queue empty) by its last idle heartbeat round trip;
            // the data path on a tie or without samples.
            let srtt = |i: usize| {
                let p = &self.paths[i];
                let idle = self
                    .idle_rtt
                    .iter()
                    .find(|(a, _)| *a == p.remote)
                    .map(|e| e.1);
                match (p.flight_size, idle) {
                    (0, Some(r)) => Some(r),
                    _ => p.rto.srtt(),
                }
            };
            // A destination whose link just went down (its data was moved
            // away and nothing came from it since) is no candidate.
            let best = (0..self.paths.len())
                .filter(|&i| self.paths[i].usable() && self.paths[i].confirmed)
                .filter(|&i| i == data_path || !self.moved_off.contains(&self.paths[i].remote))
                .filter_map(|i| srtt(i).map(|s| (s, i != data_path, i)))
                .min();
            if let Some((_, _, i)) = best {
                return i;
            }
        }
        if c.marked == Some(Retransmit::Timeout) {
            if data_path != c.path && self.paths[data_path].usable() {
                return data_path;
            }
            if let Some(alt) =
                (0..self.paths.len()).find(|&i| i != c.path && self.paths[i].usable())
            {
                return alt;
            }
        }
        data_path
    }

    /// ns-2's `GetNextDest` (`sctp/sctp.cc` 5555-5587): the first usable
    /// destination after `path` in address order, wrapping round to
    /// `path` itself; `None` when none is usable.
    fn next_active_after(&self, path: usize) -> Option<usize> {
        let n = self.paths.len();
        (1..=n)
            .map(|k| (path + k) % n)
            .find(|&i| self.paths[i].usable())
    }

    fn bundle_retransmissions(&mut self, b: &mut Bundle, path: usize, now: Time) {
        let auth = self.must_authenticate(chunk_type::DATA);
        let ignore_cwnd = std::mem::take(&mut self.tx.fast_rtx_pending);
        let mut sent_any = false;
        for idx in self.sender.marked_indices() {
            if self.retransmit_path(idx) != path {
                continue;
            }
            let p = &self.paths[path];
            // The first chunk may go out on an empty path regardless of cwnd.
            let first_on_idle_path = p.flight_size == 0 && !sent_any;
            if !ignore_cwnd && p.flight_size >= p.cc.cwnd && !first_on_idle_path {
                break;
            }
            let c = self.sender.chunk(idx).wire();
            // A chunk cut for a larger MTU than this path's (PLPMTUD
            // lowered it since) goes alone: never held forever.
            let oversize = !sent_any && b.is_empty() && !b.fits_empty(c.padded_len(), auth);
            if !b.fits(c.padded_len(), auth) && !oversize {
                break;
            }
            b.push(c, auth);
            self.sender.retransmitted(idx, path, now, &mut self.paths);
            self.paths[path].stats.retransmissions += 1;
            self.note_data_sent(path, now);
            sent_any = true;
        }
    }

    fn bundle_new_data(&mut self, b: &mut Bundle, path: usize, now: Time) {
        let auth = self.must_authenticate(chunk_type::DATA);
        let max = self.max_data_payload();
        self.apply_idle_decay(path, now);
        self.sender.packet_started();
        let mut sent_any = false;
        loop {
            // Fragments are cut to the room left in this packet, so data
            // rides behind control chunks (an ASCONF in front of DATA)
            // instead of waiting for the next packet; a sliver of room is
            // not worth a fragment.
            // The AUTH chunk is not in `b.size`: it costs its room whether
            // this chunk or one bundled before (a SACK) needs it.
            let auth_cost = if auth || b.needs_auth {
                b.auth_overhead
            } else {
                0
            };
            let room = b.room.saturating_sub(b.size + DATA_HEADER + auth_cost) & !3;
            self.cmt_fill_lanes();
            let Some(full) = self.sender.peek_chunk_len_on(path, max) else {
                break;
            };
            // A chunk from a path's send buffer is cut already.
            let cut = self.sender.lanes_hold();
            let here = if full <= room {
                full
            } else if room >= MIN_FRAGMENT && !cut {
                room
            } else {
                break;
            };
            let p = &self.paths[path];
            if p.flight_size >= p.cc.cwnd {
                break;
            }
            let probe = self.paths.iter().all(|p| p.flight_size == 0);
            // A zero window probe: one chunk when nothing is in flight.
            let zero_window_probe = probe && !sent_any;
            if self.sender.peer_rwnd < here as u32 && !zero_window_probe {
                break;
            }
            let Some(sent) = self
                .sender
                .next_chunk(here, path, self.paths[path].route, now)
            else {
                break;
            };
            let c = sent.wire();
            let tsn = sent.data.tsn;
            let n = sent.payload_len();
            if self.sender.peer_rwnd < n {
                self.stats.zero_window_probes += 1;
                self.tx.zero_window_probe_at = Some(now);
            }
            b.push(c, auth);
            self.sender.peer_rwnd = self.sender.peer_rwnd.saturating_sub(n);
            let p = &mut self.paths[path];
            p.flight_size += n;
            if p.rtt_probe.is_none() {
                p.rtt_probe = Some((tsn, now));
            }
            self.note_data_sent(path, now);
            sent_any = true;
        }
        if sent_any {
            self.tx.burst_budget = self.tx.burst_budget.saturating_sub(1);
            self.cmt_sent_new_data(path);
        }
    }

    /// Section 7.2.1: cwnd decays while a destination sends no data.
    fn apply_idle_decay(&mut self, path: usize, now: Time) {
        let p = &mut self.paths[path];
        if p.flight_size > 0 {
            return;
        }
        if let Some(last) = p.last_data_sent {
            let rto = p.rto.rto().max(std::time::Duration::from_nanos(1));
            let idle = now.saturating_since(last);
            let periods = (idle.as_nanos() / rto.as_nanos()).min(16);
            for _ in 0..periods {
                p.cc.on_idle();
            }
            if periods > 0 {
                p.last_data_sent = Some(now);
            }
        }
    }

    /// Timers that follow a DATA transmission on `path` (section 6.3.2 R1
    /// and the heartbeat idle rule of section 8.3).
    fn note_data_sent(&mut self, path: usize, now: Time) {
        let interval = self.cfg.heartbeat_interval;
        let p = &mut self.paths[path];
        p.last_data_sent = Some(now);
        p.stats.data_chunks_sent += 1;
        if p.t3_deadline.is_none() {
            p.t3_deadline = Some(now + p.rto.rto());
        }
        if p.confirmed
            && let Some(iv) = interval
        {
            let next = now + iv + p.rto.rto();
            if p.heartbeat.is_none() && p.heartbeat_deadline.is_none_or(|d| d < next) {
                p.heartbeat_deadline = Some(next);
            }
        }
    }

    /// Accounting and emission of a filled bundle.
    fn finish(&mut self, b: Bundle, _now: Time) -> Option<Transmit> {
        let Bundle {
            dest,
            source,
            mut chunks,
            needs_auth,
            ..
        } = b;
        if chunks.is_empty() {
            self.bundle_chunks = chunks;
            return None;
        }
        self.mark_sack_immediately(&mut chunks);
        let source = self.sack_source(dest, &chunks).or(source);
        let tag = self.peer_tag;
        let t = self.emit_raw(dest, source, tag, &chunks, needs_auth);
        chunks.clear();
        self.bundle_chunks = chunks;
        let t = t?;
        if let Some(i) = self.path_index(dest) {
            let p = &mut self.paths[i];
            p.stats.packets_sent += 1;
            p.stats.bytes_sent += t.packet().len() as u64;
        }
        Some(t)
    }

    /// With CMT's `sack_on_arrival_link`, the source of a packet that
    /// carries a SACK and no DATA to where the SACK is due: the local
    /// address the last DATA arrived at, while it is usable.
    fn sack_source(&self, dest: IpAddr, chunks: &[Chunk]) -> Option<IpAddr> {
        let cmt = self.cfg.cmt;
        if !(cmt.enabled && cmt.sack_on_arrival_link) || self.sack.dest != Some(dest) {
            return None;
        }
        let sack = chunks.iter().any(|c| matches!(c, Chunk::Sack(_)));
        let data = (chunks.iter()).any(|c| matches!(c, Chunk::Data(_) | Chunk::IData(_)));
        if !sack || data {
            return None;
        }
        let via = self.sack.via?;
        self.local
            .iter()
            .find(|l| l.addr == via && l.state == LocalAddrState::Available)
            .map(|l| l.addr)
    }

    /// Serialises chunks after a common header with `tag`, inserting an
    /// AUTH chunk first when `auth` (RFC 4895 section 6.2). The checksum
    /// field is left zero: the endpoint fills it as the packet leaves
    /// ([`crate::Endpoint::poll_transmit`]), unless the layer below does
    /// (checksum offload).
    ///
    /// A chunk too long for its 16-bit Chunk Length field (RFC 9260
    /// section 3.2) is refused and counted (`chunks_too_long`), never sent
    /// with a saturated length; `None` when nothing is left to send.
    pub(super) fn emit_raw(
        &mut self,
        dest: IpAddr,
        source: Option<IpAddr>,
        tag: u32,
        chunks: &[Chunk],
        auth: bool,
    ) -> Option<Transmit> {
        if chunks.iter().all(|c| c.check_emittable().is_ok()) {
            return Some(self.emit_raw_padded(dest, source, tag, 0, chunks, auth));
        }
        let fit: Vec<Chunk> = chunks
            .iter()
            .filter(|c| c.check_emittable().is_ok())
            .cloned()
            .collect();
        self.stats.chunks_too_long += (chunks.len() - fit.len()) as u64;
        if fit.is_empty() {
            return None;
        }
        Some(self.emit_raw_padded(dest, source, tag, 0, &fit, auth))
    }

    /// [`Self::emit_raw`] with a PAD chunk (RFC 4820 section 3) of `pad`
    /// bytes (header included; a multiple of 4, at least 4; 0: none) right
    /// after the common header, before the AUTH chunk: the HMAC covers only
    /// what follows the AUTH chunk (RFC 4895 section 6.2), so the filler of
    /// a large capacity probe is not hashed by either side.
    pub(super) fn emit_raw_padded(
        &mut self,
        dest: IpAddr,
        source: Option<IpAddr>,
        tag: u32,
        pad: usize,
        chunks: &[Chunk],
        auth: bool,
    ) -> Transmit {
        debug_assert!(
            pad == 0 || (pad >= 4 && pad.is_multiple_of(4) && pad <= usize::from(u16::MAX))
        );
        // Exactly the packet's size: with a large path MTU (loopback) a
        // SACK must not take 64 kB.
        let size = COMMON_HEADER
            + pad
            + chunks.iter().map(|c| c.padded_len()).sum::<usize>()
            + if auth { self.auth_overhead() } else { 0 };
        let headroom = self.headroom;
        let mut buf = Vec::with_capacity(headroom + size);
        buf.resize(headroom, 0);
        // The common header (RFC 9260 section 3.1), checksum zero, in one
        // append.
        let mut header = [0u8; COMMON_HEADER];
        header[0..2].copy_from_slice(&self.local_port.to_be_bytes());
        header[2..4].copy_from_slice(&self.peer_port.to_be_bytes());
        header[4..8].copy_from_slice(&tag.to_be_bytes());
        buf.extend_from_slice(&header);
        if pad > 0 {
            buf.extend_from_slice(&[chunk_type::PAD, 0]);
            buf.extend_from_slice(&(pad as u16).to_be_bytes());
            buf.resize(buf.len() + pad - 4, 0);
        }
        let auth_state = if auth { self.auth.state.as_ref() } else { None };
        let auth_start = buf.len();
        if let Some(st) = auth_state {
            let alg = st.send_algorithm;
            Chunk::Auth(AuthChunk {
                shared_key_id: 0,
                hmac_id: alg.id(),
                hmac: bytes::Bytes::from_static(&crate::auth::ZERO_MAC[..alg.mac_len()]),
            })
            .emit(&mut buf);
        }
        for c in chunks {
            // Never a saturated length on the wire (RFC 9260 section 3.2);
            // `emit_raw` has left out what does not fit, and a probe
            // always fits.
            if c.try_emit(&mut buf).is_err() {
                self.stats.chunks_too_long += 1;
            }
        }
        if let Some(st) = auth_state {
            let alg = st.send_algorithm;
            let mac = st.mac(alg, &buf[auth_start..]);
            buf[auth_start + 8..auth_start + 8 + alg.mac_len()].copy_from_slice(&mac);
        }
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += (buf.len() - headroom) as u64;
        Transmit {
            source,
            destination: dest,
            payload: buf,
            headroom,
            assoc: None,
        }
    }

    /// Queues a HEARTBEAT to path `i` (section 8.3 or 5.4).
    pub(super) fn queue_heartbeat(&mut self, i: usize, now: Time) {
        let chunk = self.heartbeat_chunk(i, now);
        let dest = self.paths[i].remote;
        let source = self.source_for(i);
        self.ctrl.push_back(Directed {
            dest,
            source,
            reflect: None,
            chunk,
        });
    }

    /// A HEARTBEAT for path `i`, counted and remembered as the path's
    /// probe in flight.
    pub(super) fn heartbeat_chunk(&mut self, i: usize, now: Time) -> Chunk {
        let nonce = self.arm_heartbeat(i, now);
        let info = super::input::encode_heartbeat_info(self.paths[i].remote, nonce, None);
        Chunk::Heartbeat { info }
    }

    /// Path `i`'s heartbeat in flight from `now`, counted: returns its
    /// nonce (a plain HEARTBEAT's or a capacity train's).
    pub(super) fn arm_heartbeat(&mut self, i: usize, now: Time) -> u64 {
        let nonce = self.random_u64();
        let p = &mut self.paths[i];
        let rto = p.rto.rto();
        p.heartbeat = Some(crate::path::HeartbeatProbe {
            nonce,
            sent_at: now,
            timeout: now + rto,
            timed_out: false,
        });
        p.stats.heartbeats_sent += 1;
        nonce
    }
}
