//! Packets that belong to no association (RFC 9260 section 8.4), and the
//! listening side of the handshake that creates one without keeping state
//! before the COOKIE ECHO (section 5.1 steps B and D).

use std::net::IpAddr;

use bytes::Bytes;
use rand_core::RngCore;

use super::{AssocId, Endpoint, MAX_PENDING_REPLIES};
use crate::Time;
use crate::association::{Association, PeerInit, Transmit, build_init_ack_for_endpoint};
use crate::cookie::CookieState;
use crate::wire::chunk::chunk_type;
use crate::wire::field::{header, init};
use crate::wire::{Chunk, ChunkIndex, ErrorCause, Packet, crc};

impl Endpoint {
    pub(super) fn reply(
        &mut self,
        from: IpAddr,
        to: IpAddr,
        peer_port: u16,
        tag: u32,
        chunks: Vec<Chunk>,
    ) {
        self.reply_from_port(self.cfg.port, from, to, peer_port, tag, chunks);
    }

    /// Refuses an INIT or a cookie: an ABORT tagged with the peer's
    /// Initiate Tag (RFC 9260 section 5.1), T bit clear.
    pub(super) fn abort_init(
        &mut self,
        dst: IpAddr,
        src: IpAddr,
        peer_port: u16,
        tag: u32,
        causes: Vec<ErrorCause>,
    ) {
        let abort = Chunk::Abort {
            t_bit: false,
            causes,
        };
        self.reply(dst, src, peer_port, tag, vec![abort]);
    }

    /// A reply sent from SCTP port `port` (another than ours only for
    /// [`Endpoint::no_endpoint`]).
    fn reply_from_port(
        &mut self,
        port: u16,
        from: IpAddr,
        to: IpAddr,
        peer_port: u16,
        tag: u32,
        chunks: Vec<Chunk>,
    ) {
        if self.pending.len() >= MAX_PENDING_REPLIES {
            return;
        }
        if chunks.iter().any(|c| c.check_emittable().is_err()) {
            self.stats.replies_too_long += 1;
            return;
        }
        let headroom = self.cfg.transmit_headroom;
        let mut buf = Vec::with_capacity(headroom + 128);
        buf.resize(headroom, 0);
        buf.extend_from_slice(&port.to_be_bytes());
        buf.extend_from_slice(&peer_port.to_be_bytes());
        buf.extend_from_slice(&tag.to_be_bytes());
        buf.extend_from_slice(&[0; 4]);
        for c in &chunks {
            c.emit(&mut buf);
        }
        if !self.cfg.checksum_offload {
            crc::fill(&mut buf[headroom..]);
        }
        self.pending.push_back(Transmit {
            source: Some(from),
            destination: to,
            payload: buf,
            headroom,
            assoc: None,
        });
    }

    /// Section 8.4: packets that belong to no association.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn out_of_the_blue(
        &mut self,
        now: Time,
        src: IpAddr,
        dst: IpAddr,
        sport: u16,
        vtag: u32,
        data: &Bytes,
        chunks: &ChunkIndex,
        cookie: Option<CookieState>,
    ) -> Option<AssocId> {
        self.stats.out_of_the_blue += 1;
        let has = |t: u8| chunks.has(t);
        if has(chunk_type::ABORT)
            || has(chunk_type::SHUTDOWN_COMPLETE)
            || has(chunk_type::COOKIE_ACK)
        {
            return None;
        }
        if has(chunk_type::INIT) {
            if vtag != 0 || chunks.len() > 1 {
                return None;
            }
            let raw = data.slice(chunks.chunks()[0].range.clone());
            self.answer_init(now, src, dst, sport, raw);
            return None;
        }
        if let Some(c) = cookie {
            if !self.cfg.listen || c.local_tag != vtag || c.peer_port != sport {
                self.stats.bad_cookies += 1;
                return None;
            }
            return self.accept_cookie(now, src, dst, data, chunks, c);
        }
        if has(chunk_type::SHUTDOWN_ACK) {
            self.reply(
                dst,
                src,
                sport,
                vtag,
                vec![Chunk::ShutdownComplete { t_bit: true }],
            );
            return None;
        }
        if has(chunk_type::ERROR) {
            return None;
        }
        self.reply(
            dst,
            src,
            sport,
            vtag,
            vec![Chunk::Abort {
                t_bit: true,
                causes: vec![],
            }],
        );
        None
    }

    /// Section 5.1 step B: INIT ACK with a cookie, no state kept.
    fn answer_init(&mut self, now: Time, src: IpAddr, dst: IpAddr, sport: u16, raw: Bytes) {
        let init = match Chunk::parse(&raw) {
            Ok(Chunk::Init(init)) => init,
            Err(crate::wire::WireError::BadParamLength { .. }) if raw.len() >= 20 => {
                // The fixed part is readable but a parameter is malformed
                // (e.g. its length is zero): refuse with a Protocol
                // Violation, tagged with the Initiate Tag.
                let tag = u32::from_be_bytes([raw[4], raw[5], raw[6], raw[7]]);
                if tag != 0 {
                    self.stats.inits_refused += 1;
                    let cause = ErrorCause::ProtocolViolation {
                        info: Bytes::from_static(b"malformed INIT parameter"),
                    };
                    self.abort_init(dst, src, sport, tag, vec![cause]);
                }
                return;
            }
            _ => return,
        };
        if init.initiate_tag == 0 {
            return;
        }
        if !self.cfg.listen {
            self.stats.inits_refused += 1;
            self.abort_init(dst, src, sport, init.initiate_tag, vec![]);
            return;
        }
        // Admission first: a source over its share costs no more work.
        if let Err(why) = self.admission(now, src) {
            self.stats.inits_refused += 1;
            self.refuse_no_room(why, (dst, src), sport, init.initiate_tag);
            return;
        }
        let peer = match PeerInit::from_chunk(&init, false) {
            Ok(p) => p,
            Err(e) => {
                self.stats.inits_refused += 1;
                let cause = crate::association::init_error_cause(&e, &init);
                self.abort_init(dst, src, sport, init.initiate_tag, vec![cause]);
                return;
            }
        };
        let local_tag = loop {
            let t = self.rng.next_u32();
            if t != 0 {
                break t;
            }
        };
        let local_tsn = self.rng.next_u32();
        let random = if self.cfg.association.auth {
            let mut r = [0u8; crate::auth::RANDOM_LEN];
            self.rng.fill_bytes(&mut r);
            Some(r)
        } else {
            None
        };
        let chunk = build_init_ack_for_endpoint(
            &self.cfg.association,
            &self.local_addrs,
            &self.secret,
            now,
            raw,
            &peer,
            (src, dst),
            (self.cfg.port, sport),
            (local_tag, local_tsn),
            random,
        );
        self.stats.inits_answered += 1;
        self.reply(dst, src, sport, init.initiate_tag, vec![chunk]);
    }

    /// Section 5.1 step D: a valid cookie creates the association.
    fn accept_cookie(
        &mut self,
        now: Time,
        src: IpAddr,
        dst: IpAddr,
        data: &Bytes,
        chunks: &ChunkIndex,
        c: CookieState,
    ) -> Option<AssocId> {
        let peer = match Chunk::parse(&c.peer_init) {
            Ok(Chunk::Init(i)) => match PeerInit::from_chunk(&i, false) {
                Ok(p) => p,
                Err(_) => return None,
            },
            _ => return None,
        };
        // With the table full, the association idle the longest makes
        // room if it has been idle long enough.
        let admitted = self.admission(now, c.init_src).and_then(|()| {
            if self.live_count() < self.cfg.max_associations || self.reclaim(now) {
                Ok(())
            } else {
                Err(super::admission::Refusal::Full)
            }
        });
        if let Err(why) = admitted {
            self.refuse_no_room(why, (dst, src), c.peer_port, c.peer_tag);
            return None;
        }
        let mut seed = [0u8; 32];
        self.rng.fill_bytes(&mut seed);
        let local = if self.local_addrs.is_empty() {
            vec![dst]
        } else {
            self.local_addrs.clone()
        };
        let a = match Association::from_cookie(
            self.cfg.association.clone(),
            now,
            seed,
            &c,
            &peer,
            &local,
        ) {
            Ok(a) => a,
            Err(why) => {
                let cause = ErrorCause::ProtocolViolation {
                    info: Bytes::from_static(why.as_bytes()),
                };
                self.abort_init(dst, src, c.peer_port, c.peer_tag, vec![cause]);
                return None;
            }
        };
        let id = self.insert(a, now);
        self.count_source(id, c.init_src);
        self.reindex(id);
        let index = &self.index;
        let mut accepted = false;
        if let Some(a) = self.assocs.get_mut(&id) {
            let in_use = |addr: IpAddr| index.get(addr, c.peer_port).is_some_and(|o| o != id);
            accepted = a.handle_packet(now, src, dst, data, chunks, Some(&c), &in_use);
        }
        self.reindex(id);
        self.refresh(id, now);
        accepted.then_some(id)
    }

    /// A packet for an SCTP port no endpoint serves (section 8.4, with
    /// `EndpointConfig::answer_other_ports`): an ABORT to an INIT (tagged
    /// with its Initiate Tag, rule 3), a SHUTDOWN COMPLETE to a SHUTDOWN
    /// ACK (rule 5), nothing to an ABORT, SHUTDOWN COMPLETE, COOKIE ACK or
    /// ERROR (rules 2, 6, 7), an ABORT with the T bit to anything else
    /// (rule 8). The checksum was verified.
    pub(super) fn no_endpoint(&mut self, src: IpAddr, dst: IpAddr, data: &Bytes) {
        let pkt = Packet::new_unchecked(&data[..]);
        let (port, sport, vtag) = (pkt.dst_port(), pkt.src_port(), pkt.verification_tag());
        let chunks = ChunkIndex::new(&data[..]);
        let has = |t: u8| chunks.has(t);
        if chunks.is_empty()
            || crate::asconf::is_unusable_peer_address(&src)
            || has(chunk_type::ABORT)
            || has(chunk_type::SHUTDOWN_COMPLETE)
            || has(chunk_type::COOKIE_ACK)
            || has(chunk_type::ERROR)
        {
            return;
        }
        let abort = |t_bit| Chunk::Abort {
            t_bit,
            causes: vec![],
        };
        if chunks.chunks()[0].chunk_type == chunk_type::INIT {
            let at = header::LEN + init::INITIATE_TAG;
            let tag = data
                .get(at..at + 4)
                .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
                .unwrap_or(0);
            if vtag == 0 && tag != 0 && chunks.len() == 1 {
                self.reply_from_port(port, dst, src, sport, tag, vec![abort(false)]);
            }
        } else if has(chunk_type::SHUTDOWN_ACK) {
            let chunk = Chunk::ShutdownComplete { t_bit: true };
            self.reply_from_port(port, dst, src, sport, vtag, vec![chunk]);
        } else {
            self.reply_from_port(port, dst, src, sport, vtag, vec![abort(true)]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EndpointConfig;
    use crate::wire::{CommonHeader, InitChunk, PacketRepr};

    fn packet(dst_port: u16, vtag: u32, chunk: Chunk) -> Bytes {
        Bytes::from(
            PacketRepr {
                header: CommonHeader {
                    src_port: 5000,
                    dst_port,
                    verification_tag: vtag,
                },
                chunks: vec![chunk],
            }
            .emit(),
        )
    }

    #[test]
    fn a_port_nobody_serves_refuses_an_init_when_the_endpoint_is_alone() {
        let init = Chunk::Init(InitChunk {
            initiate_tag: 0xabcd,
            a_rwnd: 1500,
            outbound_streams: 1,
            inbound_streams: 1,
            initial_tsn: 1,
            params: vec![],
        });
        let (peer, us): (IpAddr, IpAddr) =
            ("10.0.0.2".parse().unwrap(), "10.0.0.1".parse().unwrap());
        for alone in [false, true] {
            let cfg = EndpointConfig {
                listen: true,
                answer_other_ports: alone,
                ..EndpointConfig::new(6000)
            };
            let mut ep = Endpoint::new(cfg, [1; 32]).unwrap();
            ep.handle_datagram(Time::ZERO, peer, us, packet(6001, 0, init.clone()));
            let abort = Chunk::Abort {
                t_bit: true,
                causes: vec![],
            };
            ep.handle_datagram(Time::ZERO, peer, us, packet(6001, 0x77, abort));
            let heartbeat = Chunk::Heartbeat {
                info: Bytes::from_static(b"hb"),
            };
            ep.handle_datagram(Time::ZERO, peer, us, packet(6001, 0x77, heartbeat));
            let out: Vec<PacketRepr> = std::iter::from_fn(|| ep.poll_transmit(Time::ZERO))
                .map(|t| PacketRepr::parse(&Bytes::from(t.payload)).unwrap())
                .collect();
            assert_eq!(ep.stats().wrong_port, 3);
            if !alone {
                assert!(out.is_empty());
                continue;
            }
            assert_eq!(out.len(), 2, "{out:?}");
            assert_eq!(out[0].header.src_port, 6001);
            assert_eq!(out[0].header.verification_tag, 0xabcd);
            assert!(matches!(
                out[0].chunks[..],
                [Chunk::Abort { t_bit: false, .. }]
            ));
            assert_eq!(out[1].header.verification_tag, 0x77);
            assert!(matches!(
                out[1].chunks[..],
                [Chunk::Abort { t_bit: true, .. }]
            ));
        }
    }
}
