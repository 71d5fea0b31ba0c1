//! The agent's application and flow records: messages from the traffic
//! source into the association, messages read, and what each packet says
//! about the flow (see the module documentation of the agent).

use std::net::IpAddr;

use bytes::Bytes;
use msctp_proto::Time;
use msctp_proto::association::send::Retransmit;
use smallvec::SmallVec;

use super::super::observe;
use super::SctpAgent;
use crate::kernel::Ctx;
use crate::measure::ReorderKind;

/// The payload of generated messages (zeros), shared by every agent.
pub(super) static ZEROS: [u8; 65_536] = [0; 65_536];

/// What one call of the agent's `feed_source` did.
pub(super) struct Fed {
    /// The association took bytes.
    pub(super) offered: bool,
    /// It took every message the source produced (none is true).
    pub(super) complete: bool,
}

/// The DATA chunks of a received packet (TSN, user bytes, whether the
/// association had the TSN before), without a heap allocation for the
/// usual few.
pub(super) type RxChunks = SmallVec<[(u32, u32, bool); 4]>;

impl SctpAgent {
    pub(super) fn read_messages(&mut self, now: Time) {
        let id = self.assoc;
        let (Some(ep), Some(id)) = (self.endpoint.as_mut(), id) else {
            return;
        };
        let Some(a) = ep.association_mut(id) else {
            return;
        };
        let mut log = self.cfg.log.as_ref().map(|l| l.borrow_mut());
        while let Some(m) = a.recv() {
            self.counters.messages_received += 1;
            if let Some(log) = log.as_mut() {
                log.delivered(now, m.data.len() as u64);
                log.message_delivered(now);
            }
        }
        if let Some(mut log) = log
            && log.completed_at.is_none()
            && self
                .cfg
                .expect_bytes
                .is_some_and(|b| log.bytes_delivered >= b)
        {
            log.completed_at = Some(now);
        }
    }

    /// Hands the application's messages to the association.
    pub(super) fn feed_source(&mut self, ctx: &mut Ctx<'_>) -> Fed {
        let idle = Fed {
            offered: false,
            complete: true,
        };
        let now = ctx.now();
        let Some(id) = self.assoc else { return idle };
        let Some(ep) = self.endpoint.as_mut() else {
            return idle;
        };
        let Some(a) = ep.association_mut(id) else {
            return idle;
        };
        if a.state() != msctp_proto::State::Established {
            return idle;
        }
        let Some(src) = self.cfg.source.as_mut() else {
            return idle;
        };
        let room = a.send_capacity();
        let msgs = src.take(now, room, ctx.rng());
        if msgs.is_empty() {
            return idle;
        }
        let taken = msgs.len();
        let mut accepted = 0;
        let mut offered = 0u64;
        let mut log = self.cfg.log.as_ref().map(|l| l.borrow_mut());
        let opts = msctp_proto::SendOptions {
            unordered: self.cfg.unordered,
            policy: self.cfg.send_policy,
            sack_immediately: false,
        };
        for (k, n) in msgs.into_iter().enumerate() {
            if k >= self.cfg.limits.max_messages_per_call {
                break;
            }
            let data = if n <= self.zeros.len() {
                self.zeros.slice(..n)
            } else {
                Bytes::from(vec![0u8; n])
            };
            match a.send_with(now, self.cfg.stream, self.cfg.ppid, data, &opts) {
                Ok(()) => {
                    offered += n as u64;
                    accepted += 1;
                    self.counters.messages_sent += 1;
                    if let Some(log) = log.as_mut() {
                        log.message_sent(now);
                    }
                }
                Err(_) => break,
            }
        }
        if let Some(log) = log.as_mut() {
            log.bytes_offered += offered;
        }
        Fed {
            offered: offered > 0,
            complete: accepted == taken,
        }
    }

    /// Logs what an outgoing packet says about the flow; true if it carries
    /// DATA.
    pub(super) fn observe_tx(&mut self, now: Time, src: IpAddr, dst: IpAddr, sctp: &[u8]) -> bool {
        let mut tsns: SmallVec<[u32; 8]> = SmallVec::new();
        let gaps = observe::for_each_data_and_gaps(sctp, |tsn, _| tsns.push(tsn));
        let Some(log) = self.cfg.log.clone() else {
            return !tsns.is_empty();
        };
        let mut log = log.borrow_mut();
        if gaps && self.cfg.source.is_none() {
            log.reorder_signal(now, ReorderKind::SackWithGaps);
        }
        if tsns.is_empty() || self.cfg.source.is_none() {
            return !tsns.is_empty();
        }
        let path = self.packet_path(src, dst);
        for tsn in tsns.iter().copied() {
            self.tx_numbers.set_origin(tsn);
            let seq = self.tx_numbers.seq(tsn);
            if self.highest_sent.is_some_and(|h| seq <= h) {
                let fast = self
                    .association()
                    .and_then(|a| a.retransmit_reason(tsn))
                    .is_some_and(|r| r == Retransmit::Fast);
                log.retransmitted(now, seq, path, fast);
            } else {
                self.highest_sent = Some(seq);
            }
        }
        true
    }

    /// Arrival records of an incoming packet: classification before and
    /// after the engine processed it.
    pub(super) fn observe_rx_before(&mut self, sctp: &[u8]) -> RxChunks {
        if self.cfg.log.is_none() || self.cfg.source.is_some() {
            return RxChunks::new();
        }
        let Some(a) = self.association() else {
            return RxChunks::new();
        };
        let mut out = RxChunks::new();
        observe::for_each_data(sctp, |tsn, n| out.push((tsn, n, a.has_received_tsn(tsn))));
        if !out.is_empty() && !self.rx_numbers.has_origin() {
            let first = a.cumulative_tsn_received().wrapping_add(1);
            self.rx_numbers.set_origin(first);
        }
        out
    }

    pub(super) fn observe_rx_after(
        &mut self,
        now: Time,
        src: IpAddr,
        dst: IpAddr,
        chunks: RxChunks,
    ) {
        if chunks.is_empty() {
            return;
        }
        let Some(log) = self.cfg.log.clone() else {
            return;
        };
        let path = self.packet_path(dst, src);
        let mut log = log.borrow_mut();
        for (tsn, n, had) in chunks {
            let has = self.association().is_some_and(|a| a.has_received_tsn(tsn));
            let seq = self.rx_numbers.seq(tsn);
            if had {
                log.arrival(now, path, seq, n, false);
            } else if has {
                log.arrival(now, path, seq, n, true);
            } else {
                self.counters.chunks_discarded += 1;
            }
        }
    }
}
