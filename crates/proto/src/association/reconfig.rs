//! Stream reconfiguration (RFC 6525) at the association: whether it was
//! negotiated, the application's requests (reset outgoing or incoming
//! streams, reset SSNs and TSNs, add streams), their one outstanding
//! RE-CONFIG with its retransmission timer (section 5.1.1), and the
//! peer's requests with the Re-configuration Responses they get (section
//! 5.2). The sequence numbers restart in `send/reset.rs` and
//! `recv/reset.rs`.

use std::collections::VecDeque;
use std::net::IpAddr;

use bytes::Bytes;

use super::{Association, Directed, Event, Flow, ReconfigEvent, ReconfigRequest, SendOptions};
use crate::Time;
use crate::wire::chunk::reconfig_result as result;
use crate::wire::{Chunk, ReconfigChunk, ReconfigParam};

/// Streams one request may list: its parameter stays within a packet of
/// the smallest path MTU (RFC 8899's base, 1200 bytes) with an AUTH chunk.
pub const MAX_LISTED_STREAMS: usize = 512;

/// Messages held while their stream is being reset, at most (beyond that
/// `send` reports a full buffer).
const MAX_HELD: usize = 4096;

/// Why a request was not made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ReconfigError {
    #[error("stream reconfiguration was not negotiated with the peer")]
    NotSupported,
    #[error("the association is not established")]
    NotEstablished,
    #[error("a reconfiguration request is already in progress")]
    InProgress,
    #[error("stream {0} does not exist")]
    InvalidStream(u16),
    #[error("more streams than one request may list or the limit allows")]
    TooMany,
}

/// A message sent on a stream being reset: it waits for the outcome, as
/// it belongs after the reset (section 5.1.2).
#[derive(Debug, Clone)]
struct Held {
    stream: u16,
    ppid: u32,
    data: Bytes,
    opts: SendOptions,
    queued_at: Time,
}

/// Our request on the wire, waiting for its response.
#[derive(Debug, Clone)]
struct Outstanding {
    request: ReconfigRequest,
    param: ReconfigParam,
    seq: u32,
    path: usize,
    /// To be sent with the next packet.
    due: bool,
    /// T-RTO (section 5.1.1), once sent.
    deadline: Option<Time>,
    transmissions: u32,
    /// The peer answered In progress: the timer resends it without
    /// counting an error.
    in_progress: bool,
}

/// How the peer's request was answered (kept to answer a retransmission
/// alike, section 5.2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Response(u32, Option<(u32, u32)>),
    /// By our own request (an Outgoing SSN Reset or Add Outgoing Streams
    /// Request, sections 5.2.3 and 5.2.6).
    ByRequest,
}

/// An Outgoing SSN Reset Request of the peer waiting for our cumulative
/// TSN to reach its last TSN (section 5.2.2 E1, deferred reset).
#[derive(Debug, Clone)]
struct Deferred {
    seq: u32,
    last_tsn: u32,
    streams: Vec<u16>,
}

/// The association's stream reconfiguration state.
#[derive(Debug, Clone, Default)]
pub(super) struct ReconfigState {
    /// Both sides announced RE-CONFIG.
    pub(super) enabled: bool,
    /// Our next Re-configuration Request Sequence Number (initially our
    /// Initial TSN, section 4.1).
    next_seq: u32,
    /// The application's request, until it can leave.
    pending: Option<(ReconfigRequest, Option<u32>)>,
    outstanding: Option<Outstanding>,
    held: VecDeque<Held>,
    held_bytes: usize,
    /// The peer's next Request Sequence Number (its Initial TSN first).
    peer_next_seq: u32,
    /// The answers to the peer's last (at most two) requests.
    answered: VecDeque<(u32, Answer)>,
    deferred: Option<Deferred>,
}

impl ReconfigState {
    pub(super) fn new(enabled: bool, local_initial_tsn: u32, peer_initial_tsn: u32) -> Self {
        ReconfigState {
            enabled,
            next_seq: local_initial_tsn,
            peer_next_seq: peer_initial_tsn,
            ..Default::default()
        }
    }

    /// Whether a message on `stream` must wait: an outgoing reset of it
    /// (or of all streams) was asked for and not yet answered.
    pub(super) fn holds(&self, stream: u16) -> bool {
        let covers = |r: &ReconfigRequest| match r {
            ReconfigRequest::ResetOutgoing(s) => s.is_empty() || s.contains(&stream),
            ReconfigRequest::ResetAssociation => true,
            _ => false,
        };
        self.pending.as_ref().is_some_and(|(r, _)| covers(r))
            || self
                .outstanding
                .as_ref()
                .is_some_and(|o| covers(&o.request))
    }

    pub(super) fn held_bytes(&self) -> usize {
        self.held_bytes
    }

    /// The held messages, taken out (stream, PPID, data).
    pub(super) fn take_held(&mut self) -> Vec<(u16, u32, Bytes)> {
        self.held_bytes = 0;
        std::mem::take(&mut self.held)
            .into_iter()
            .map(|h| (h.stream, h.ppid, h.data))
            .collect()
    }

    fn busy(&self) -> bool {
        self.pending.is_some() || self.outstanding.is_some()
    }
}

// -------------------------------------------------------------------
// Application interface and sender side (RFC 6525 section 5.1)
// -------------------------------------------------------------------

impl Association {
    /// Whether both sides announced RE-CONFIG (RFC 6525 section 3.1).
    pub fn stream_reconfig(&self) -> bool {
        self.reconfig.enabled
    }

    /// Resets outgoing `streams` (all when empty), RFC 6525 section
    /// 5.1.2: the Outgoing SSN Reset Request leaves once the messages
    /// queued on them were sent, naming the last TSN sent; messages sent
    /// on them meanwhile wait, and leave with SSN 0 on once the peer
    /// performed the reset ([`ReconfigEvent::StreamsReset`]) or with the
    /// old numbering if it refused ([`ReconfigEvent::Refused`]).
    pub fn reset_streams(&mut self, streams: &[u16]) -> Result<(), ReconfigError> {
        let list = self.check_listed(streams, self.sender.outbound_streams())?;
        self.request(ReconfigRequest::ResetOutgoing(list))
    }

    /// Asks the peer to reset its outgoing streams towards us (RFC 6525
    /// section 5.1.3): it answers with an Outgoing SSN Reset Request.
    pub fn request_incoming_reset(&mut self, streams: &[u16]) -> Result<(), ReconfigError> {
        let list = self.check_listed(streams, self.receiver.inbound_streams())?;
        self.request(ReconfigRequest::ResetIncoming(list))
    }

    /// Resets every SSN and the TSNs both ways (RFC 6525 section 5.1.4):
    /// the request leaves once everything sent was acknowledged; messages
    /// sent meanwhile wait for the outcome.
    pub fn reset_association(&mut self) -> Result<(), ReconfigError> {
        self.request(ReconfigRequest::ResetAssociation)
    }

    /// Adds `n` outgoing streams (RFC 6525 section 5.1.5), usable once
    /// the peer agreed ([`ReconfigEvent::StreamsChanged`]); at most
    /// `max_outbound_streams` in all.
    pub fn add_outgoing_streams(&mut self, n: u16) -> Result<(), ReconfigError> {
        let total = usize::from(self.sender.outbound_streams()) + usize::from(n);
        if n == 0 || total > usize::from(self.cfg.max_outbound_streams) {
            return Err(ReconfigError::TooMany);
        }
        self.request(ReconfigRequest::AddOutgoing(n))
    }

    /// Asks the peer to add `n` streams towards us (RFC 6525 section
    /// 5.1.6); at most `max_inbound_streams` in all.
    pub fn add_incoming_streams(&mut self, n: u16) -> Result<(), ReconfigError> {
        let total = usize::from(self.receiver.inbound_streams()) + usize::from(n);
        if n == 0 || total > usize::from(self.cfg.max_inbound_streams) {
            return Err(ReconfigError::TooMany);
        }
        self.request(ReconfigRequest::AddIncoming(n))
    }

    /// A stream list of a request: each stream exists, listed once.
    fn check_listed(&self, streams: &[u16], count: u16) -> Result<Vec<u16>, ReconfigError> {
        if streams.len() > MAX_LISTED_STREAMS {
            return Err(ReconfigError::TooMany);
        }
        let mut list: Vec<u16> = Vec::with_capacity(streams.len());
        for &s in streams {
            if s >= count {
                return Err(ReconfigError::InvalidStream(s));
            }
            if !list.contains(&s) {
                list.push(s);
            }
        }
        Ok(list)
    }

    /// Section 5.1.1: one request at a time.
    fn request(&mut self, r: ReconfigRequest) -> Result<(), ReconfigError> {
        if !self.reconfig.enabled {
            return Err(ReconfigError::NotSupported);
        }
        if self.state != super::State::Established {
            return Err(ReconfigError::NotEstablished);
        }
        if self.reconfig.busy() {
            return Err(ReconfigError::InProgress);
        }
        self.reconfig.pending = Some((r, None));
        Ok(())
    }

    /// A message for a stream being reset: held until the outcome.
    pub(super) fn hold_message(
        &mut self,
        now: Time,
        stream: u16,
        ppid: u32,
        data: Bytes,
        opts: &SendOptions,
    ) -> Result<(), super::SendError> {
        if self.reconfig.held.len() >= MAX_HELD {
            self.send_blocked = true;
            return Err(super::SendError::BufferFull);
        }
        self.reconfig.held_bytes += data.len();
        self.reconfig.held.push_back(Held {
            stream,
            ppid,
            data,
            opts: *opts,
            queued_at: now,
        });
        Ok(())
    }

    /// The held messages go to the send queue, in the order sent.
    fn release_held(&mut self) {
        if !self.reconfig.held.is_empty() && !self.sender.has_outstanding() {
            self.tx.burst_budget = self.burst_allowance();
        }
        self.reconfig.held_bytes = 0;
        for h in std::mem::take(&mut self.reconfig.held) {
            self.sender
                .push_with(h.stream, h.ppid, h.data, &h.opts, h.queued_at);
        }
    }

    /// The association ended: held messages are returned.
    pub(super) fn reconfig_closed(&mut self) {
        self.reconfig.outstanding = None;
        self.reconfig.pending = None;
        for (stream, ppid, data) in self.reconfig.take_held() {
            self.push_event(Event::SendFailed { stream, ppid, data });
        }
    }

    /// Before each packet: a deferred reset whose TSN was reached is
    /// performed, the pending request starts when it may, and the
    /// outstanding one is queued when due.
    pub(super) fn poll_reconfig(&mut self, now: Time) {
        if !self.reconfig.enabled || !self.state.is_established() {
            return;
        }
        self.complete_deferred();
        self.start_request();
        let Some(o) = self.reconfig.outstanding.as_mut() else {
            return;
        };
        if !o.due {
            return;
        }
        let Some(path) = self.paths.get(o.path) else {
            return;
        };
        o.due = false;
        o.deadline = Some(now + path.rto.rto());
        o.transmissions += 1;
        let dest = path.remote;
        let chunk = Chunk::Reconfig(ReconfigChunk {
            params: vec![o.param.clone()],
        });
        self.ctrl_push(Directed {
            dest,
            source: None,
            reflect: None,
            chunk,
        });
    }

    /// The pending request leaves once what it must follow was sent
    /// (section 5.1.2) or acknowledged (section 5.1.4).
    fn start_request(&mut self) {
        let Some((r, answers)) = &self.reconfig.pending else {
            return;
        };
        let seq = self.reconfig.next_seq;
        let param = match r {
            ReconfigRequest::ResetOutgoing(s) => {
                if self.sender.queued_on(s) {
                    return;
                }
                ReconfigParam::OutgoingSsnReset {
                    request_seq: seq,
                    response_seq: answers
                        .unwrap_or_else(|| self.reconfig.peer_next_seq.wrapping_sub(1)),
                    last_tsn: self.sender.next_tsn.wrapping_sub(1),
                    streams: s.clone(),
                }
            }
            ReconfigRequest::ResetAssociation => {
                if !self.sender.is_idle() {
                    return;
                }
                ReconfigParam::SsnTsnReset { request_seq: seq }
            }
            ReconfigRequest::ResetIncoming(s) => ReconfigParam::IncomingSsnReset {
                request_seq: seq,
                streams: s.clone(),
            },
            ReconfigRequest::AddOutgoing(n) => ReconfigParam::AddOutgoingStreams {
                request_seq: seq,
                new_streams: *n,
            },
            ReconfigRequest::AddIncoming(n) => ReconfigParam::AddIncomingStreams {
                request_seq: seq,
                new_streams: *n,
            },
        };
        let Some((request, _)) = self.reconfig.pending.take() else {
            return;
        };
        self.reconfig.next_seq = seq.wrapping_add(1);
        self.reconfig.outstanding = Some(Outstanding {
            request,
            param,
            seq,
            path: self.data_path().unwrap_or(self.primary),
            due: true,
            deadline: None,
            transmissions: 0,
            in_progress: false,
        });
    }

    /// The timer of the outstanding request.
    pub(super) fn reconfig_deadline(&self) -> Option<Time> {
        self.reconfig.outstanding.as_ref().and_then(|o| o.deadline)
    }

    /// Section 5.1.1: the request is sent again when its timer expires,
    /// to an alternate destination if one is usable, the expiry counted
    /// as an error of the path and the association with the RTO backed
    /// off (as T3-rtx); after an In progress answer it is asked again
    /// without an error.
    pub(super) fn reconfig_timeout(&mut self, now: Time) {
        let Some(o) = self.reconfig.outstanding.as_ref() else {
            return;
        };
        if o.deadline.is_none_or(|d| d > now) || self.paths.is_empty() {
            return;
        }
        let i = o.path.min(self.paths.len() - 1);
        let mut next = i;
        if !o.in_progress {
            self.paths[i].rto.back_off();
            self.path_error(i, now);
            if self.association_error() {
                return;
            }
            next = (0..self.paths.len())
                .find(|&k| k != i && self.paths[k].usable())
                .unwrap_or(i);
        }
        if let Some(o) = self.reconfig.outstanding.as_mut() {
            o.path = next;
            o.deadline = None;
            o.due = true;
            o.in_progress = false;
        }
    }

    /// The peer's Re-configuration Response to our request (section
    /// 5.1.x, the response side of each).
    fn on_reconfig_response(&mut self, now: Time, seq: u32, res: u32, tsns: Option<(u32, u32)>) {
        let Some(o) = self.reconfig.outstanding.as_mut() else {
            return;
        };
        if o.seq != seq {
            return;
        }
        if res == result::IN_PROGRESS {
            o.in_progress = true;
            let rto = self.paths.get(o.path).map(|p| p.rto.rto());
            o.deadline = rto.map(|r| now + r);
            return;
        }
        let Some(o) = self.reconfig.outstanding.take() else {
            return;
        };
        let done = matches!(
            res,
            result::SUCCESS_PERFORMED | result::SUCCESS_NOTHING_TO_DO
        );
        if !done {
            self.release_held();
            self.push_event(Event::Reconfig(ReconfigEvent::Refused {
                request: o.request,
                result: res,
            }));
            return;
        }
        match o.request {
            ReconfigRequest::ResetOutgoing(streams) => {
                self.sender.reset_outgoing(&streams);
                self.release_held();
                self.push_event(Event::Reconfig(ReconfigEvent::StreamsReset {
                    incoming: false,
                    streams,
                }));
            }
            ReconfigRequest::ResetAssociation => {
                let Some((peer_next, our_next)) = tsns else {
                    // Performed without the next TSNs: nothing to go on.
                    self.release_held();
                    self.push_event(Event::Reconfig(ReconfigEvent::Refused {
                        request: ReconfigRequest::ResetAssociation,
                        result: res,
                    }));
                    return;
                };
                self.sender.reset_tsn(our_next);
                self.receiver.reset_tsn(peer_next);
                self.release_held();
                self.push_event(Event::Reconfig(ReconfigEvent::AssociationReset {
                    next_tsn: our_next,
                    peer_next_tsn: peer_next,
                }));
            }
            ReconfigRequest::AddOutgoing(n) => {
                self.sender.add_outgoing(n);
                self.streams_changed();
            }
            // Answered by the peer's own request when it acts on them.
            ReconfigRequest::ResetIncoming(_) | ReconfigRequest::AddIncoming(_) => {}
        }
    }

    fn streams_changed(&mut self) {
        self.push_event(Event::Reconfig(ReconfigEvent::StreamsChanged {
            inbound: self.receiver.inbound_streams(),
            outbound: self.sender.outbound_streams(),
        }));
    }
}

// -------------------------------------------------------------------
// Receiver side (RFC 6525 section 5.2)
// -------------------------------------------------------------------

impl Association {
    /// A RE-CONFIG chunk (RFC 6525 section 3.1), when negotiated: its
    /// responses first, then its requests, answered together in one
    /// RE-CONFIG back to where it came from.
    pub(super) fn on_reconfig(
        &mut self,
        now: Time,
        c: ReconfigChunk,
        src: IpAddr,
        dst: IpAddr,
    ) -> Flow {
        if !self.state.is_established() {
            return Flow::Continue;
        }
        let mut answers = Vec::new();
        // Section 3.1: one or two parameters; more is not a valid chunk
        // and only the first two are looked at.
        for p in c.params.into_iter().take(2) {
            match p {
                ReconfigParam::Response {
                    response_seq,
                    result,
                    next_tsns,
                } => self.on_reconfig_response(now, response_seq, result, next_tsns),
                ReconfigParam::Unknown { .. } => self.stats.malformed_chunks += 1,
                request => {
                    if let Some(a) = self.on_reconfig_request(request) {
                        answers.push(a);
                    }
                }
            }
        }
        if !answers.is_empty() {
            self.reply(src, dst, Chunk::Reconfig(ReconfigChunk { params: answers }));
        }
        Flow::Continue
    }

    /// One request of the peer: its sequence number checked (section
    /// 5.2.1), a retransmission answered as before, a new one processed.
    fn on_reconfig_request(&mut self, p: ReconfigParam) -> Option<ReconfigParam> {
        let seq = match &p {
            ReconfigParam::OutgoingSsnReset { request_seq, .. }
            | ReconfigParam::IncomingSsnReset { request_seq, .. }
            | ReconfigParam::SsnTsnReset { request_seq }
            | ReconfigParam::AddOutgoingStreams { request_seq, .. }
            | ReconfigParam::AddIncomingStreams { request_seq, .. } => *request_seq,
            _ => return None,
        };
        // An Outgoing SSN Reset Request may answer our Incoming one
        // (section 5.2.3), an Add Outgoing Streams Request our Add
        // Incoming one (section 5.2.6).
        match &p {
            ReconfigParam::OutgoingSsnReset { response_seq, .. } => {
                self.answered_by_peer(|r, o| {
                    matches!(r, ReconfigRequest::ResetIncoming(_)) && o == *response_seq
                });
            }
            ReconfigParam::AddOutgoingStreams { .. } => {
                self.answered_by_peer(|r, _| matches!(r, ReconfigRequest::AddIncoming(_)));
            }
            _ => {}
        }
        let answer = if seq == self.reconfig.peer_next_seq {
            let a = self.perform_request(p);
            self.reconfig.peer_next_seq = seq.wrapping_add(1);
            if self.reconfig.answered.len() == 2 {
                self.reconfig.answered.pop_front();
            }
            self.reconfig.answered.push_back((seq, a));
            a
        } else if let Some(&(_, a)) = self.reconfig.answered.iter().find(|(s, _)| *s == seq) {
            a
        } else {
            Answer::Response(result::ERROR_BAD_SEQUENCE_NUMBER, None)
        };
        match answer {
            Answer::Response(result, next_tsns) => Some(ReconfigParam::Response {
                response_seq: seq,
                result,
                next_tsns,
            }),
            Answer::ByRequest => None,
        }
    }

    /// Our outstanding request was answered by the peer's request.
    fn answered_by_peer(&mut self, is: impl Fn(&ReconfigRequest, u32) -> bool) {
        if self
            .reconfig
            .outstanding
            .as_ref()
            .is_some_and(|o| is(&o.request, o.seq))
        {
            self.reconfig.outstanding = None;
        }
    }

    /// A new request of the peer, performed or refused.
    fn perform_request(&mut self, p: ReconfigParam) -> Answer {
        let fail = |r| Answer::Response(r, None);
        match p {
            ReconfigParam::OutgoingSsnReset {
                request_seq,
                last_tsn,
                streams,
                ..
            } => {
                // Streams we do not have: Linux and usrsctp answer so.
                if streams
                    .iter()
                    .any(|&s| s >= self.receiver.inbound_streams())
                {
                    return fail(result::ERROR_WRONG_SSN);
                }
                if self.reconfig.deferred.is_some() {
                    return fail(result::ERROR_REQUEST_IN_PROGRESS);
                }
                let cum = self.receiver.cum_tsn();
                if last_tsn.wrapping_sub(cum) as i32 > 0 {
                    // Section 5.2.2 E1: deferred until the cumulative
                    // TSN reaches the sender's last assigned TSN.
                    self.reconfig.deferred = Some(Deferred {
                        seq: request_seq,
                        last_tsn,
                        streams,
                    });
                    return fail(result::IN_PROGRESS);
                }
                self.reset_incoming(streams);
                fail(result::SUCCESS_PERFORMED)
            }
            ReconfigParam::IncomingSsnReset {
                request_seq,
                streams,
            } => {
                if streams.iter().any(|&s| s >= self.sender.outbound_streams()) {
                    return fail(result::ERROR_WRONG_SSN);
                }
                if self.reconfig.busy() {
                    return fail(result::ERROR_REQUEST_IN_PROGRESS);
                }
                // Section 5.2.3: answered by an Outgoing SSN Reset Request.
                self.reconfig.pending =
                    Some((ReconfigRequest::ResetOutgoing(streams), Some(request_seq)));
                Answer::ByRequest
            }
            ReconfigParam::SsnTsnReset { .. } => self.perform_tsn_reset(),
            ReconfigParam::AddOutgoingStreams { new_streams, .. } => {
                let total = usize::from(self.receiver.inbound_streams()) + usize::from(new_streams);
                if total > usize::from(self.cfg.max_inbound_streams) {
                    return fail(result::DENIED);
                }
                self.receiver.add_incoming(new_streams);
                self.streams_changed();
                fail(result::SUCCESS_PERFORMED)
            }
            ReconfigParam::AddIncomingStreams { new_streams, .. } => {
                let total = usize::from(self.sender.outbound_streams()) + usize::from(new_streams);
                if total > usize::from(self.cfg.max_outbound_streams) {
                    return fail(result::DENIED);
                }
                if self.reconfig.busy() {
                    return fail(result::ERROR_REQUEST_IN_PROGRESS);
                }
                // Section 5.2.6: answered by an Add Outgoing Streams
                // Request.
                self.reconfig.pending = Some((ReconfigRequest::AddOutgoing(new_streams), None));
                Answer::ByRequest
            }
            _ => fail(result::DENIED),
        }
    }

    /// Section 5.2.2 E3: the incoming streams restart at 0.
    fn reset_incoming(&mut self, streams: Vec<u16>) {
        self.receiver.reset_incoming(&streams);
        self.push_event(Event::Reconfig(ReconfigEvent::StreamsReset {
            incoming: true,
            streams,
        }));
    }

    /// Section 5.2.4: SSN/TSN reset, when nothing of ours waits for an
    /// acknowledgment (otherwise In progress: the requester asks again).
    fn perform_tsn_reset(&mut self) -> Answer {
        if self.reconfig.busy() || self.reconfig.deferred.is_some() {
            return Answer::Response(result::ERROR_REQUEST_IN_PROGRESS, None);
        }
        if !self.sender.is_idle() || !self.reconfig.held.is_empty() {
            return Answer::Response(result::IN_PROGRESS, None);
        }
        // G1: the peer's next TSN, the smallest we did not acknowledge
        // plus 2^31; G2: ours, the next we would have sent.
        let peer_next = self
            .receiver
            .cum_tsn()
            .wrapping_add(1)
            .wrapping_add(1 << 31);
        let our_next = self.sender.next_tsn;
        self.receiver.reset_tsn(peer_next);
        self.sender.reset_tsn(our_next);
        self.sack.now = true;
        self.push_event(Event::Reconfig(ReconfigEvent::AssociationReset {
            next_tsn: our_next,
            peer_next_tsn: peer_next,
        }));
        Answer::Response(result::SUCCESS_PERFORMED, Some((our_next, peer_next)))
    }

    /// Section 5.2.2: a deferred reset whose last TSN the cumulative TSN
    /// reached is performed; a retransmission of its request is then
    /// answered Performed.
    fn complete_deferred(&mut self) {
        let Some(d) = &self.reconfig.deferred else {
            return;
        };
        if (d.last_tsn.wrapping_sub(self.receiver.cum_tsn()) as i32) > 0 {
            return;
        }
        let Some(d) = self.reconfig.deferred.take() else {
            return;
        };
        for (s, a) in self.reconfig.answered.iter_mut() {
            if *s == d.seq {
                *a = Answer::Response(result::SUCCESS_PERFORMED, None);
            }
        }
        self.reset_incoming(d.streams);
    }
}
