//! Set-up chunks for an association that exists (RFC 9260 section 5.2):
//! INIT collisions (5.2.1), a peer's restart or an attacker's INIT
//! (5.2.2), and the COOKIE ECHO table of section 5.2.4 with its
//! tie-tags.
//!
//! The endpoint hands an INIT or COOKIE ECHO here when any transport
//! address it names belongs to this association (section 5.1.2 rule D),
//! not only when its source does. What keeps another host from taking
//! the association over:
//! - an INIT that would add an address is refused with an ABORT carrying
//!   the "Restart of an Association with New Addresses" cause (5.2.1 in
//!   COOKIE-ECHOED, 5.2.2 afterwards);
//! - in COOKIE-WAIT the INIT ACK goes only to an address the application
//!   asked for and the INIT reports (5.2.1 rules 1 to 3);
//! - tie-tags are random nonces kept in the association, never its
//!   verification tags (section 2, "Tie-Tags"), so a cookie cannot
//!   reveal the tags, and only a cookie made by this association's own
//!   INIT ACK restarts it (action A).

use std::net::IpAddr;

use bytes::Bytes;

use super::Flow;
use super::addip::addr_tlv;
use super::handshake::{InitAckSpec, build_init_ack};
use super::{Association, Directed, Event, PeerInit, State};
use crate::Time;
use crate::cookie::CookieState;
use crate::wire::{Chunk, ErrorCause, InitChunk};

/// The transport addresses an INIT announces: its source, then the
/// addresses it lists (section 5.1.2 rule C), acceptable ones only
/// (`peer_address`), each once.
pub(crate) fn announced_addresses(src: IpAddr, listed: &[IpAddr]) -> Vec<IpAddr> {
    crate::peer_address::transport_addresses(src, None, listed, &[], usize::MAX)
}

impl Association {
    /// The tie-tags of this association, drawn the first time an
    /// unexpected INIT needs them (section 5.2.2: random, non-zero).
    fn tie_tags(&mut self) -> (u32, u32) {
        if let Some(t) = self.tie_tags {
            return t;
        }
        let t = (super::nonzero(&mut self.rng), super::nonzero(&mut self.rng));
        self.tie_tags = Some(t);
        t
    }

    /// Refuses set-up chunks that would add peer addresses: an ABORT with
    /// the "Restart of an Association with New Addresses" cause listing
    /// them, tagged with `tag` (the Initiate Tag of the INIT refused).
    /// Returns whether it refused.
    fn refuse_new_addresses(
        &mut self,
        announced: &[IpAddr],
        tag: u32,
        src: IpAddr,
        dst: IpAddr,
    ) -> bool {
        let new: Vec<IpAddr> = announced
            .iter()
            .copied()
            .filter(|a| self.path_index(*a).is_none())
            .collect();
        if new.is_empty() {
            return false;
        }
        self.stats.restarts_refused += 1;
        let addresses: Vec<u8> = new.iter().flat_map(|a| addr_tlv(*a).to_vec()).collect();
        self.ctrl_push(Directed {
            dest: src,
            source: Some(dst),
            reflect: Some(tag),
            chunk: Chunk::Abort {
                t_bit: false,
                causes: vec![ErrorCause::RestartWithNewAddresses {
                    addresses: Bytes::from(addresses),
                }],
            },
        });
        true
    }

    /// Section 9.2: an INIT in SHUTDOWN-ACK-SENT (our SHUTDOWN ACK's
    /// SHUTDOWN COMPLETE was lost) is discarded and the SHUTDOWN ACK sent
    /// again, as the answer to this packet: over UDP it goes to the INIT's
    /// own port (the peer that closed and connects again has a new one),
    /// and T2-shutdown is left alone, so INITs repeated faster than our
    /// RTO cannot keep the half-closed association alive for ever. The new
    /// association's endpoint treats it as out of the blue and answers
    /// with a SHUTDOWN COMPLETE with the T bit (section 8.4 rule 5), which
    /// ends this one; its next INIT is answered.
    fn answer_init_with_shutdown_ack(&mut self, src: IpAddr, dst: IpAddr) {
        self.ctrl_push(Directed {
            dest: src,
            source: Some(dst),
            reflect: Some(self.peer_tag),
            chunk: Chunk::ShutdownAck,
        });
    }

    /// An INIT for an existing association (sections 5.2.1 and 5.2.2).
    /// The association does not change whatever the answer.
    pub(super) fn on_init(
        &mut self,
        now: Time,
        init: &InitChunk,
        raw: Bytes,
        src: IpAddr,
        dst: IpAddr,
    ) -> Flow {
        let peer = match PeerInit::from_chunk(init, false) {
            Ok(p) => p,
            Err(_) => return Flow::Stop,
        };
        if self.state != State::Closed {
            self.stats.unexpected_inits += 1;
        }
        let announced = announced_addresses(src, &peer.addresses);
        let own_random = self
            .auth
            .local
            .as_ref()
            .and_then(|a| a.random.as_slice().try_into().ok());
        let (dest, local_tag, local_tsn, (tie_local, tie_peer), random) = match self.state {
            State::Closed => return Flow::Stop,
            State::ShutdownAckSent => {
                self.answer_init_with_shutdown_ack(src, dst);
                return Flow::Stop;
            }
            State::CookieWait => {
                // Section 5.2.1: our INIT's parameters, sent only to an
                // address the application gave us that the INIT reports,
                // its source if it is one.
                let Some(st) = &self.init else {
                    return Flow::Stop;
                };
                let Some(dest) = announced.iter().find(|a| st.peers.contains(a)).copied() else {
                    return Flow::Stop;
                };
                let (tag, tsn) = (st.chunk.initiate_tag, st.chunk.initial_tsn);
                (dest, tag, tsn, (0, 0), own_random)
            }
            State::CookieEchoed => {
                // Section 5.2.1: the same, unless the INIT adds an address
                // to the forming association.
                if self.refuse_new_addresses(&announced, peer.initiate_tag, src, dst) {
                    return Flow::Stop;
                }
                let Some(st) = &self.init else {
                    return Flow::Stop;
                };
                let (tag, tsn) = (st.chunk.initiate_tag, st.chunk.initial_tsn);
                (src, tag, tsn, self.tie_tags(), own_random)
            }
            _ => {
                // Section 5.2.2: a new tag and the tie-tags, unless the
                // INIT adds addresses (a restart with new addresses, or
                // another host naming our peer's addresses).
                if self.refuse_new_addresses(&announced, peer.initiate_tag, src, dst) {
                    return Flow::Stop;
                }
                let tag = super::nonzero(&mut self.rng);
                let tsn = rand_core::RngCore::next_u32(&mut self.rng);
                let random = if self.cfg.auth {
                    let mut r = [0u8; crate::auth::RANDOM_LEN];
                    rand_core::RngCore::fill_bytes(&mut self.rng, &mut r);
                    Some(r)
                } else {
                    None
                };
                (src, tag, tsn, self.tie_tags(), random)
            }
        };
        let addrs: Vec<IpAddr> = self.local.iter().map(|l| l.addr).collect();
        let chunk = build_init_ack(InitAckSpec {
            cfg: &self.cfg,
            local_addrs: &addrs,
            secret: &self.secret,
            now,
            peer_init_raw: raw,
            peer: &peer,
            src,
            dst,
            local_port: self.local_port,
            peer_port: self.peer_port,
            local_tag,
            local_initial_tsn: local_tsn,
            local_tie_tag: tie_local,
            peer_tie_tag: tie_peer,
            local_random: random,
        });
        self.ctrl_push(Directed {
            dest,
            source: Some(dst),
            reflect: Some(peer.initiate_tag),
            chunk,
        });
        Flow::Stop
    }

    /// A COOKIE ECHO for an existing association: table 7 of section
    /// 5.2.4 (the endpoint checked the signature, the lifetime, and that
    /// the cookie names no other association's address).
    pub(super) fn on_cookie_echo(
        &mut self,
        now: Time,
        c: &CookieState,
        src: IpAddr,
        dst: IpAddr,
    ) -> Flow {
        let peer_init = match Chunk::parse(&c.peer_init) {
            Ok(Chunk::Init(i)) => i,
            _ => return Flow::Stop,
        };
        let Ok(peer) = PeerInit::from_chunk(&peer_init, false) else {
            return Flow::Stop;
        };
        let my_match = c.local_tag == self.local_tag;
        let peer_match = c.peer_tag == self.peer_tag;
        let ties_match =
            c.local_tie_tag != 0 && self.tie_tags == Some((c.local_tie_tag, c.peer_tie_tag));
        if !my_match && !peer_match && ties_match {
            return self.restart(now, c, &peer, src, dst);
        }
        if my_match && !peer_match {
            // B: INIT collision; adopt the peer's parameters from the cookie.
            if self.setup_peer(&peer, c.init_src, c.init_src, now).is_err() {
                return Flow::Stop;
            }
            self.establish(now);
            self.cookie_ack(src, dst);
            return Flow::Continue;
        }
        if my_match && peer_match {
            // D: a duplicate, or our own crossing COOKIE ECHO.
            if matches!(self.state, State::CookieWait | State::CookieEchoed) {
                if self.state == State::CookieWait
                    && self.setup_peer(&peer, c.init_src, c.init_src, now).is_err()
                {
                    return Flow::Stop;
                }
                self.establish(now);
            }
            self.cookie_ack(src, dst);
            return Flow::Continue;
        }
        // C (a late cookie: our tag differs, the peer's matches, no
        // tie-tags) and every case the table does not list: discard.
        self.stats.cookies_discarded += 1;
        Flow::Stop
    }

    fn cookie_ack(&mut self, src: IpAddr, dst: IpAddr) {
        self.ctrl_push(Directed {
            dest: src,
            source: Some(dst),
            reflect: None,
            chunk: Chunk::CookieAck,
        });
    }

    /// Action A: the peer restarted. The association starts again from
    /// the cookie, keeping its place at the endpoint; unsent data goes
    /// back to the application.
    fn restart(
        &mut self,
        now: Time,
        c: &CookieState,
        peer: &PeerInit,
        src: IpAddr,
        dst: IpAddr,
    ) -> Flow {
        if self.state == State::ShutdownAckSent {
            self.ctrl_push(Directed {
                dest: src,
                source: Some(dst),
                reflect: None,
                chunk: Chunk::ShutdownAck,
            });
            let chunk = Chunk::Error {
                causes: vec![ErrorCause::CookieReceivedWhileShuttingDown],
            };
            self.ctrl_push(Directed {
                dest: src,
                source: Some(dst),
                reflect: None,
                chunk,
            });
            return Flow::Stop;
        }
        // The INIT was checked for new addresses when it came (5.2.2);
        // the peer's addresses may have changed since (ASCONF).
        let announced = announced_addresses(c.init_src, &peer.addresses);
        if self.refuse_new_addresses(&announced, c.peer_tag, src, dst) {
            return Flow::Stop;
        }
        let addrs: Vec<IpAddr> = self.local.iter().map(|l| l.addr).collect();
        let mut seed = [0u8; 32];
        rand_core::RngCore::fill_bytes(&mut self.rng, &mut seed);
        let secret = self.secret;
        let Ok(mut fresh) = Association::from_cookie(self.cfg.clone(), now, seed, c, peer, &addrs)
        else {
            return Flow::Stop;
        };
        fresh.secret = secret;
        fresh.headroom = self.headroom;
        let mut old_unsent = self.sender.drain_unsent();
        old_unsent.extend(self.reconfig.take_held());
        // Messages delivered to the application's queue but not read yet
        // were acknowledged: the application still gets them, before
        // anything of the new incarnation (as a socket keeps what its
        // receive buffer holds across SCTP_RESTART, RFC 6458 section
        // 6.1.1). Fragments and messages out of order are dropped with
        // the old incarnation, whose peer restarted without them.
        let unread = self.receiver.take_unread();
        let mut events = std::mem::take(&mut self.events);
        *self = fresh;
        self.receiver.keep_unread(unread);
        // Keep earlier events, replace "Connected" by "Restarted".
        self.events.retain(|e| *e != Event::Connected);
        events.extend(self.events.drain(..));
        self.events = events;
        self.push_event(Event::Restarted);
        for (stream, ppid, data) in old_unsent {
            self.push_event(Event::SendFailed { stream, ppid, data });
        }
        self.cookie_ack(src, dst);
        Flow::Continue
    }
}
