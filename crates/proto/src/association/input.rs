//! Processing of received packets: verification tags (RFC 9260 section
//! 8.5), chunk authentication (RFC 4895 section 6.3), and every chunk type.

use std::net::IpAddr;

use bytes::Bytes;

use super::auth::AuthFailure;
use super::interleave::InData;
use super::recv::DataOutcome;
use super::{Association, CloseReason, Directed, Event, Flow, State};
use crate::cookie::CookieState;
use crate::wire::chunk::{UnknownChunkAction, chunk_type};
use crate::wire::{Chunk, ChunkIndex, ErrorCause, IndexedChunk, Packet, Param, SackChunk};
use crate::{ErrorCounterReset, Time};

/// Bound on queued control replies (heartbeat acks, errors): a peer cannot
/// make the association hold more.
const MAX_CTRL_QUEUE: usize = 256;

/// A received packet, as its chunks' handlers see it.
#[derive(Clone, Copy)]
struct Received<'a> {
    now: Time,
    src: IpAddr,
    dst: IpAddr,
    packet: &'a Bytes,
    /// The validated State Cookie, if the packet carried a COOKIE ECHO.
    cookie: Option<&'a CookieState>,
    /// Whether a peer address belongs to another association.
    in_use: &'a dyn Fn(IpAddr) -> bool,
}

/// What the chunks of one packet have shown so far.
#[derive(Default)]
struct Pass {
    /// DATA the state accepts was seen (a SACK is due).
    data_seen: bool,
    /// One had the I bit (SACK at once, RFC 7053).
    immediate: bool,
    /// An AUTH chunk authenticated the chunks after it.
    authenticated: bool,
}

impl Association {
    /// Handles a packet the endpoint routed here, with what the endpoint
    /// already learned of it: the checksum was verified; `index` is its
    /// chunks, walked once; `cookie` the validated State Cookie if the
    /// packet carried a COOKIE ECHO; `in_use` says whether a peer address
    /// belongs to another association of the endpoint (the peer cannot
    /// add it). Returns whether the packet proved to come from the peer:
    /// its chunks were processed after a check of our own verification
    /// tag (or of the T-bit rules, or against the cookie); an INIT, whose
    /// tag is 0, never does, even when it is answered.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn handle_packet(
        &mut self,
        now: Time,
        src: IpAddr,
        dst: IpAddr,
        packet: &Bytes,
        index: &ChunkIndex,
        cookie: Option<&CookieState>,
        in_use: &dyn Fn(IpAddr) -> bool,
    ) -> bool {
        let vtag = Packet::new_unchecked(&packet[..]).verification_tag();
        if index.malformed() {
            self.stats.malformed_chunks += 1;
        }
        self.handle_chunks(now, src, dst, packet, vtag, index.chunks(), cookie, in_use)
    }

    /// [`handle_packet`](Self::handle_packet) once the chunk headers are
    /// known: the verification tag rules, then each chunk in turn, then
    /// what the packet as a whole calls for (a SACK, events).
    #[allow(clippy::too_many_arguments)]
    fn handle_chunks(
        &mut self,
        now: Time,
        src: IpAddr,
        dst: IpAddr,
        packet: &Bytes,
        vtag: u32,
        chunks: &[IndexedChunk],
        cookie: Option<&CookieState>,
        in_use: &dyn Fn(IpAddr) -> bool,
    ) -> bool {
        if chunks.is_empty() {
            return false;
        }
        self.stats.packets_received += 1;
        let Some(proven) = self.check_tags(src, dst, vtag, chunks) else {
            return false;
        };
        if proven {
            self.heard_from(now, src, dst);
        }
        self.tx.burst_budget = self.burst_allowance();

        let had_gaps = self.receiver.has_gaps();
        let readable_before = self.receiver.readable();
        let rx = Received {
            now,
            src,
            dst,
            packet,
            cookie,
            in_use,
        };
        let mut pass = Pass::default();
        for c in chunks {
            if self.state == State::Closed && cookie.is_none() {
                break;
            }
            if self.handle_chunk(&rx, c, &mut pass) == Flow::Stop {
                break;
            }
        }

        if pass.data_seen && self.state != State::Closed {
            self.sack.via = Some(dst);
            self.after_data(now, src, had_gaps, pass.immediate);
        }
        if !readable_before && self.receiver.readable() {
            self.push_event(Event::Readable);
        }
        self.maybe_progress_shutdown(now);
        if self.send_blocked && self.send_capacity() > 0 {
            self.send_blocked = false;
            self.push_event(Event::Writable);
        }
        proven
    }

    /// The verification tag rules (sections 8.5 and 8.5.1) and the
    /// bundling rules of section 6.10: `None` drops the packet, otherwise
    /// whether it proves to come from the peer (an INIT, whose tag is 0,
    /// does not).
    fn check_tags(
        &mut self,
        src: IpAddr,
        dst: IpAddr,
        vtag: u32,
        chunks: &[IndexedChunk],
    ) -> Option<bool> {
        let (first, first_flags) = (chunks[0].chunk_type, chunks[0].flags);
        let has = |t: u8| chunks.iter().any(|c| c.chunk_type == t);
        // Section 6.10: INIT ACK and SHUTDOWN COMPLETE are never bundled
        // (INIT is handled below); a packet that bundles one is dropped
        // whole rather than half processed.
        if chunks.len() > 1 && (has(chunk_type::INIT_ACK) || has(chunk_type::SHUTDOWN_COMPLETE)) {
            self.stats.protocol_violations += 1;
            return None;
        }
        // An INIT's tag is 0 (section 8.5.1): it proves nothing about its
        // source, which therefore teaches the paths nothing either.
        let proven = !has(chunk_type::INIT);
        if !proven {
            if vtag != 0 || chunks.len() > 1 {
                self.stats.bad_vtag += 1;
                return None;
            }
        } else if first == chunk_type::COOKIE_ECHO
            || (first == chunk_type::AUTH
                && chunks
                    .get(1)
                    .is_some_and(|c| c.chunk_type == chunk_type::COOKIE_ECHO))
        {
            // Checked against the cookie (section 5.2.4).
        } else if first == chunk_type::ABORT || first == chunk_type::SHUTDOWN_COMPLETE {
            let t_bit = first_flags & 1 != 0;
            let ok = (!t_bit && vtag == self.local_tag)
                || (t_bit && vtag == self.peer_tag && self.peer_tag != 0);
            if !ok {
                self.stats.bad_vtag += 1;
                return None;
            }
        } else if first == chunk_type::SHUTDOWN_ACK
            && matches!(self.state, State::CookieWait | State::CookieEchoed)
        {
            // Treated as out of the blue (section 8.4 rule 5).
            self.ctrl_push(Directed {
                dest: src,
                source: Some(dst),
                reflect: Some(vtag),
                chunk: Chunk::ShutdownComplete { t_bit: true },
            });
            return None;
        } else if vtag != self.local_tag {
            self.stats.bad_vtag += 1;
            return None;
        }
        Some(proven)
    }

    /// A packet proven to come from the peer arrived at `dst` from `src`.
    fn heard_from(&mut self, now: Time, src: IpAddr, dst: IpAddr) {
        if !self.moved_off.is_empty() {
            self.moved_off.retain(|a| *a != src);
        }
        if let Some(i) = self.path_index(src) {
            let p = &mut self.paths[i];
            p.last_heard = Some(now);
            p.learned_source = Some(dst);
            p.stats.packets_received += 1;
        }
    }

    /// One chunk of a packet: AUTH and the chunks it must cover (RFC 4895
    /// section 6.3), PAD, decoding, then the chunk's handler.
    fn handle_chunk(&mut self, rx: &Received<'_>, c: &IndexedChunk, pass: &mut Pass) -> Flow {
        let (range, ty) = (c.range.clone(), c.chunk_type);
        let (src, dst, packet) = (rx.src, rx.dst, rx.packet);
        let raw = packet.slice(range.clone());
        if ty == chunk_type::AUTH {
            return self.on_auth(&raw, packet, range.start, src, dst, pass);
        }
        // A chunk that must be authenticated and is not is discarded
        // before anything else looks at it (RFC 4895 6.3): a forged or
        // malformed ASCONF must not be able to abort the association.
        if !pass.authenticated && self.requires_auth(ty) {
            self.stats.auth_failures += 1;
            return Flow::Continue;
        }
        // PAD: discarded, the rest of the packet processed (RFC 4820
        // section 3); large capacity probes carry their filler in one.
        if ty == chunk_type::PAD {
            return Flow::Continue;
        }
        let chunk = match Chunk::parse(&raw) {
            Ok(c) => c,
            Err(e) => {
                self.stats.malformed_chunks += 1;
                if matches!(e, crate::wire::WireError::BadParamLength { .. })
                    && matches!(
                        ty,
                        chunk_type::ASCONF | chunk_type::ASCONF_ACK | chunk_type::INIT_ACK
                    )
                {
                    self.protocol_violation("malformed parameter", src);
                }
                return Flow::Stop;
            }
        };
        let immediate = match &chunk {
            Chunk::Data(d) => Some(d.immediate),
            Chunk::IData(d) => Some(d.immediate),
            _ => None,
        };
        if let Some(immediate) = immediate
            && self.accepts_data()
        {
            // DATA the state does not accept is dropped and leaves no
            // SACK behind (section 9.2: no data after the peer's SHUTDOWN
            // or in SHUTDOWN-ACK-SENT).
            pass.data_seen = true;
            pass.immediate |= immediate;
        }
        self.dispatch(rx, chunk, raw, range, ty)
    }

    /// An AUTH chunk: the chunks after it are authenticated, or the rest
    /// of the packet is discarded (RFC 4895 section 6.3).
    fn on_auth(
        &mut self,
        raw: &Bytes,
        packet: &Bytes,
        start: usize,
        src: IpAddr,
        dst: IpAddr,
        pass: &mut Pass,
    ) -> Flow {
        let a = match Chunk::parse(raw) {
            Ok(Chunk::Auth(a)) => a,
            _ => {
                // An AUTH shorter than its header or otherwise
                // undecodable: discard what follows (RFC 4895 6.3).
                self.stats.auth_failures += 1;
                return Flow::Stop;
            }
        };
        match self.verify_auth(packet, start, &a) {
            Ok(()) => {
                pass.authenticated = true;
                Flow::Continue
            }
            Err(AuthFailure::Discard) => {
                self.stats.auth_failures += 1;
                self.push_event(Event::AuthenticationFailure);
                Flow::Stop
            }
            Err(AuthFailure::UnsupportedHmac(id)) => {
                self.stats.auth_failures += 1;
                let chunk = Chunk::Error {
                    causes: vec![ErrorCause::UnsupportedHmacIdentifier { hmac_id: id }],
                };
                self.reply(src, dst, chunk);
                Flow::Stop
            }
        }
    }

    /// A decoded chunk to its handler.
    fn dispatch(
        &mut self,
        rx: &Received<'_>,
        chunk: Chunk,
        raw: Bytes,
        range: std::ops::Range<usize>,
        ty: u8,
    ) -> Flow {
        // Long because: the dispatch of a decoded chunk to its handler, one
        // short arm per chunk type (RFC 9260 section 3.3 and the extensions).
        let Received {
            now,
            src,
            dst,
            packet,
            cookie,
            in_use,
        } = *rx;
        match chunk {
            // RFC 8260 section 2.2: DATA once I-DATA is negotiated, or
            // I-DATA when it is not, is a protocol violation.
            Chunk::Data(_) if self.sender.interleave => {
                self.protocol_violation("DATA chunk where I-DATA was negotiated", src);
                Flow::Stop
            }
            Chunk::IData(_) if !self.sender.interleave && self.accepts_data() => {
                self.protocol_violation("I-DATA chunk without I-DATA negotiated", src);
                Flow::Stop
            }
            Chunk::Data(mut d) => {
                // The payload is a slice of the datagram: a small one is
                // copied out, so that what the receiver holds does not
                // pin a datagram many times its size.
                if d.payload.len() * 2 < packet.len() {
                    d.payload = Bytes::copy_from_slice(&d.payload);
                }
                self.on_data(InData::Data(d), src, dst)
            }
            Chunk::IData(mut d) => {
                if d.payload.len() * 2 < packet.len() {
                    d.payload = Bytes::copy_from_slice(&d.payload);
                }
                self.on_data(InData::IData(d), src, dst)
            }
            Chunk::IForwardTsn(f) if self.sender.pr_sctp && self.sender.interleave => {
                self.on_i_forward_tsn(&f, src)
            }
            Chunk::Sack(s) => self.on_sack(now, &s, src),
            Chunk::Init(i) => self.on_init(now, &i, raw, src, dst),
            Chunk::InitAck(i) => self.on_init_ack(now, &i, src, dst),
            Chunk::CookieEcho { .. } => match cookie {
                Some(c) => self.on_cookie_echo(now, c, src, dst),
                None => Flow::Stop,
            },
            Chunk::CookieAck => self.on_cookie_ack(now),
            Chunk::Heartbeat { info } => {
                if self.state != State::Closed {
                    self.reply(src, dst, Chunk::HeartbeatAck { info });
                }
                Flow::Continue
            }
            Chunk::HeartbeatAck { info } => self.on_heartbeat_ack(now, &info),
            Chunk::Abort { causes, .. } => {
                let reason = if matches!(self.state, State::CookieWait | State::CookieEchoed) {
                    CloseReason::Refused { causes }
                } else {
                    CloseReason::PeerAbort { causes }
                };
                self.close(reason);
                Flow::Stop
            }
            Chunk::Shutdown { cum_tsn_ack } => self.on_shutdown(now, cum_tsn_ack, src),
            Chunk::ShutdownAck => self.on_shutdown_ack(src, dst),
            Chunk::ShutdownComplete { .. } => {
                if self.state == State::ShutdownAckSent {
                    self.close(CloseReason::Shutdown);
                }
                Flow::Stop
            }
            Chunk::Error { causes } => self.on_error(now, causes),
            Chunk::Asconf(a) => self.on_asconf(now, a, src, dst, in_use),
            Chunk::AsconfAck(a) => self.on_asconf_ack(&a),
            Chunk::Auth(_) => Flow::Continue,
            Chunk::Probe(p) if self.cfg.estimators.enabled => {
                self.on_probe(now, src, dst, &p, packet.len());
                Flow::Continue
            }
            Chunk::ProbeEcho(e) if self.cfg.estimators.enabled => {
                self.on_probe_echo(now, &e);
                Flow::Continue
            }
            Chunk::ForwardTsn {
                new_cum_tsn,
                streams,
            } if self.sender.pr_sctp => self.on_forward_tsn(new_cum_tsn, &streams, src),
            Chunk::Reconfig(r) if self.stream_reconfig() => self.on_reconfig(now, r, src, dst),
            // With the estimators off, probes are the unknown chunks they
            // are to any other stack (skipped, high bits 10); so is FORWARD
            // TSN without PR-SCTP (RFC 3758 section 3.3.1).
            Chunk::ForwardTsn { .. }
            | Chunk::IForwardTsn(_)
            | Chunk::Reconfig(_)
            | Chunk::Probe(_)
            | Chunk::ProbeEcho(_)
            | Chunk::Unknown { .. } => {
                // The Unrecognized Chunk Type cause returns the chunk as
                // it was on the wire, padding included, as FreeBSD and
                // Linux do (section 3.3.10.6 leaves it open).
                let end = range.end.saturating_add(3) & !3;
                let padded = packet.slice(range.start..end.min(packet.len()));
                self.on_unknown_chunk(ty, padded, src, dst)
            }
        }
    }

    /// Queues `chunk` in answer to a packet that came from `src` to
    /// `dst`: it goes back where the packet came from, from where it
    /// arrived.
    pub(super) fn reply(&mut self, src: IpAddr, dst: IpAddr, chunk: Chunk) {
        self.ctrl_push(Directed {
            dest: src,
            source: Some(dst),
            reflect: None,
            chunk,
        });
    }

    /// Queues a control chunk, unless `MAX_CTRL_QUEUE` are waiting.
    pub(super) fn ctrl_push(&mut self, d: Directed) {
        if self.ctrl.len() < MAX_CTRL_QUEUE {
            self.ctrl.push_back(d);
        }
    }

    /// States in which received DATA is processed.
    fn accepts_data(&self) -> bool {
        matches!(
            self.state,
            State::Established | State::ShutdownPending | State::ShutdownSent
        )
    }

    fn on_data(&mut self, d: InData, src: IpAddr, dst: IpAddr) -> Flow {
        if !self.accepts_data() {
            return Flow::Continue;
        }
        let (tsn, stream, empty) = match &d {
            InData::Data(d) => (d.tsn, d.stream_id, d.payload.is_empty()),
            InData::IData(d) => (d.tsn, d.stream_id, d.payload.is_empty()),
        };
        if empty {
            // Section 6.2: a DATA chunk without user data aborts.
            self.stats.protocol_violations += 1;
            self.send_abort(vec![ErrorCause::NoUserData { tsn }], Some(src));
            self.close(CloseReason::ProtocolViolation(
                "DATA chunk without user data",
            ));
            return Flow::Stop;
        }
        let outcome = match d {
            InData::Data(d) => self.receiver.on_data(d),
            InData::IData(d) => self.receiver.on_idata(d),
        };
        match outcome {
            DataOutcome::Accepted => {}
            DataOutcome::Duplicate | DataOutcome::Dropped => self.sack.now = true,
            DataOutcome::InvalidStream => {
                let chunk = Chunk::Error {
                    causes: vec![ErrorCause::InvalidStreamIdentifier { stream_id: stream }],
                };
                self.reply(src, dst, chunk);
                self.sack.now = true;
            }
            DataOutcome::MessageTooLarge => {
                self.send_abort(vec![ErrorCause::OutOfResource], Some(src));
                self.close(CloseReason::ProtocolViolation(
                    "message exceeds the maximum size",
                ));
                return Flow::Stop;
            }
        }
        self.sack.dest = Some(src);
        Flow::Continue
    }

    /// SACK scheduling after a packet with DATA (section 6.2).
    ///
    /// The first packet with DATA of an association is acknowledged at
    /// once, before any SACK was sent, as FreeBSD and Linux do and as ETSI
    /// TS 102 369 test purpose SCTP/A/V/9/1 requires: the peer's slow
    /// start does not wait for the delayed-SACK timer.
    fn after_data(&mut self, now: Time, src: IpAddr, had_gaps: bool, immediate: bool) {
        self.receiver.packets_since_sack += 1;
        if self.state == State::ShutdownSent {
            // Section 9.2: answer each packet with DATA with a SHUTDOWN, and
            // a SACK too if the SHUTDOWN cannot say everything.
            self.shutdown.due = true;
            if self.receiver.has_gaps() || self.receiver.has_dups() {
                self.sack.now = true;
            }
            return;
        }
        self.sack.dest = Some(src);
        // CMT DAC: data arriving over several paths is reordered as a
        // rule, not a sign of loss; gaps do not force a SACK for every
        // packet (the SACK says how many packets it covers instead).
        let reordering = (self.receiver.has_gaps() || had_gaps) && !self.cmt_delayed_ack();
        let first = self.stats.sacks_sent == 0;
        if immediate
            || first
            || reordering
            || self.receiver.has_dups()
            || self.cfg.sack_delay.is_none()
            || self.receiver.packets_since_sack >= self.cfg.sack_frequency
        {
            self.sack.now = true;
            self.sack.deadline = None;
        } else if self.sack.deadline.is_none() {
            self.sack.deadline = self.cfg.sack_delay.map(|d| now + d);
        }
    }

    fn on_sack(&mut self, now: Time, s: &SackChunk, src: IpAddr) -> Flow {
        if !self.state.is_established() {
            return Flow::Continue;
        }
        self.stats.sacks_received += 1;
        if s.gap_blocks.len() > self.cfg.limits.max_gap_blocks {
            self.stats.oversized_sacks += 1;
        }
        let o = self.sender.on_sack(s, now, &mut self.paths);
        if o.acks_unsent {
            self.protocol_violation("SACK acknowledges a TSN that was not sent", src);
            return Flow::Stop;
        }
        if o.stale {
            // Section 6.2.1 D i): behind the cumulative ack point, an
            // out-of-order SACK (under CMT, one overtaken on a faster
            // path: Budzisz et al., section 4.3.2.1, discard them).
            self.stats.stale_sacks += 1;
            return Flow::Continue;
        }
        self.sender.recheck_forward_tsn();
        if self.cfg.estimators.enabled {
            self.feed_westwood(now, &o.acked_bytes);
            self.limit_windows();
        }
        self.tx.last_sack_at = Some(now);
        if !o.acked_paths.is_empty() {
            self.error_count = 0;
            self.tx.zero_window_probe_at = None;
        }
        let clearing = match self.cfg.error_counter_reset {
            ErrorCounterReset::Rfc9260 => o.acked_paths,
            ErrorCounterReset::Ns2 => o.acked_unmarked_paths,
        };
        for p in clearing {
            if self.paths[p].record_success() {
                self.path_recovered(p);
            }
        }
        if o.fast_retransmits > 0 {
            self.tx.fast_rtx_pending = true;
        }
        Flow::Continue
    }

    fn on_heartbeat_ack(&mut self, now: Time, info: &Bytes) -> Flow {
        let Some((addr, nonce, seq)) = decode_heartbeat_info(info) else {
            return Flow::Continue;
        };
        let Some(i) = self.path_index(addr) else {
            return Flow::Continue;
        };
        if seq.is_none() && self.on_pmtu_probe_ack(i, nonce, now) {
            return Flow::Continue;
        }
        if let Some(seq) = seq {
            // A packet of a capacity train (SBPP): timed here; the first
            // of the train's acknowledgments also answers its heartbeat.
            self.on_train_heartbeat_ack(now, i, nonce, seq);
        }
        let interval = self.cfg.heartbeat_interval;
        let p = &mut self.paths[i];
        let Some(probe) = p.heartbeat else {
            return Flow::Continue;
        };
        if probe.nonce != nonce {
            return Flow::Continue;
        }
        p.heartbeat = None;
        p.stats.heartbeat_acks_received += 1;
        if !probe.timed_out {
            let rtt = now.saturating_since(probe.sent_at);
            p.rto.sample(rtt);
            // What a packet takes there when nothing of ours is queued.
            if p.flight_size == 0 {
                match self.idle_rtt.iter_mut().find(|(a, _)| *a == addr) {
                    Some(e) => e.1 = rtt,
                    None => self.idle_rtt.push((addr, rtt)),
                }
            }
        }
        let newly_confirmed = !p.confirmed;
        p.confirmed = true;
        let recovered = p.record_success();
        let rto = p.rto.rto();
        self.error_count = 0;
        let next = interval.map(|iv| now + self.heartbeat_period(rto, iv));
        self.paths[i].heartbeat_deadline = next;
        if newly_confirmed {
            self.push_event(Event::PathConfirmed { addr });
        }
        if recovered {
            self.path_recovered(i);
        }
        Flow::Continue
    }

    fn on_error(&mut self, now: Time, causes: Vec<ErrorCause>) -> Flow {
        for c in &causes {
            match c {
                ErrorCause::StaleCookie { staleness_us } if self.state == State::CookieEchoed => {
                    // Section 5.2.6: retry with a Cookie Preservative.
                    if let Some(st) = self.init.as_mut() {
                        st.retransmits += 1;
                        if st.retransmits > self.cfg.max_init_retrans {
                            self.close(CloseReason::InitFailed);
                            return Flow::Stop;
                        }
                        let ms = (staleness_us / 1000).saturating_mul(2).max(1);
                        st.chunk
                            .params
                            .retain(|p| !matches!(p, Param::CookiePreservative(_)));
                        st.chunk.params.push(Param::CookiePreservative(ms));
                        st.cookie = None;
                        st.due = true;
                        st.deadline = None;
                        self.state = State::CookieWait;
                    }
                    let _ = now;
                    return Flow::Stop;
                }
                ErrorCause::UnrecognizedChunkType { chunk }
                    if chunk.first() == Some(&chunk_type::ASCONF) =>
                {
                    for r in self.asconf.disable() {
                        self.fail_request(r, vec![c.clone()]);
                    }
                    self.push_event(Event::AsconfUnsupported);
                }
                _ => {}
            }
        }
        self.push_event(Event::PeerError { causes });
        Flow::Continue
    }

    fn on_unknown_chunk(&mut self, ty: u8, raw: Bytes, src: IpAddr, dst: IpAddr) -> Flow {
        self.stats.unknown_chunks += 1;
        let action = UnknownChunkAction::from_type(ty);
        if matches!(
            action,
            UnknownChunkAction::StopAndReport | UnknownChunkAction::SkipAndReport
        ) {
            let chunk = Chunk::Error {
                causes: vec![ErrorCause::UnrecognizedChunkType { chunk: raw }],
            };
            self.reply(src, dst, chunk);
        }
        match action {
            UnknownChunkAction::Stop | UnknownChunkAction::StopAndReport => Flow::Stop,
            _ => Flow::Continue,
        }
    }
}

/// Our Heartbeat Information (RFC 9260 section 8.3, opaque to the peer):
/// the destination's family and address, the nonce, and for a packet of a
/// capacity train (SBPP) its sequence in the train, so that the sender can
/// time each HEARTBEAT ACK.
pub(super) fn encode_heartbeat_info(addr: IpAddr, nonce: u64, seq: Option<u8>) -> Bytes {
    let mut v = Vec::with_capacity(26);
    match addr {
        IpAddr::V4(a) => {
            v.push(4);
            v.extend_from_slice(&a.octets());
        }
        IpAddr::V6(a) => {
            v.push(6);
            v.extend_from_slice(&a.octets());
        }
    }
    v.extend_from_slice(&nonce.to_be_bytes());
    v.extend(seq);
    Bytes::from(v)
}

/// The address, nonce and train sequence (if any) of an echoed
/// Heartbeat Information; `None` for anything we did not write.
fn decode_heartbeat_info(info: &[u8]) -> Option<(IpAddr, u64, Option<u8>)> {
    let (addr, rest) = match (info.first()?, info.len()) {
        (4, 13 | 14) => {
            let mut a = [0u8; 4];
            a.copy_from_slice(&info[1..5]);
            (IpAddr::from(a), &info[5..])
        }
        (6, 25 | 26) => {
            let mut a = [0u8; 16];
            a.copy_from_slice(&info[1..17]);
            (IpAddr::from(a), &info[17..])
        }
        _ => return None,
    };
    let mut n = [0u8; 8];
    n.copy_from_slice(&rest[..8]);
    Some((addr, u64::from_be_bytes(n), rest.get(8).copied()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heartbeat_info_round_trip() {
        for a in ["10.1.2.3", "2001:db8::7"] {
            let addr: IpAddr = a.parse().unwrap();
            let info = encode_heartbeat_info(addr, 0xdead_beef_0123, None);
            assert_eq!(
                decode_heartbeat_info(&info),
                Some((addr, 0xdead_beef_0123, None))
            );
            let info = encode_heartbeat_info(addr, 7, Some(5));
            assert_eq!(decode_heartbeat_info(&info), Some((addr, 7, Some(5))));
        }
        assert_eq!(decode_heartbeat_info(b"\x04abc"), None);
        assert_eq!(decode_heartbeat_info(b""), None);
    }
}
