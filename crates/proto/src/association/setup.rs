//! Association set-up as this association runs it (RFC 9260 section 5):
//! the active side's INIT, INIT ACK and COOKIE ECHO with the T1-init
//! timer, the passive side's creation from a valid State Cookie, and what
//! both learn from the peer's INIT or INIT ACK. The parameters of the
//! INIT exchange themselves are built and checked in `handshake.rs`.

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;

use rand_core::RngCore;

use super::Flow;
use super::recv::Receiver;
use super::send::Sender;
use super::{
    Association, CloseReason, Directed, Event, PeerInit, State, local_auth_params, local_params,
};
use crate::Time;
use crate::asconf::AsconfState;
use crate::auth::RANDOM_LEN;
use crate::config::AssociationConfig;
use crate::congestion::Congestion;
use crate::path::{Path, RtoEstimator};
use crate::wire::{Chunk, ErrorCause, InitChunk};

/// The handshake of the side that sent the INIT.
#[derive(Debug, Clone)]
pub(super) struct InitState {
    pub(super) chunk: InitChunk,
    /// Peer address the INIT goes to.
    pub(super) dest: IpAddr,
    /// The peer addresses the application gave (an INIT ACK answering a
    /// colliding INIT goes only to one of them, section 5.2.1).
    pub(super) peers: Vec<IpAddr>,
    pub(super) cookie: Option<Bytes>,
    /// Chunks to bundle after the COOKIE ECHO (an ERROR reporting
    /// unrecognized INIT ACK parameters).
    pub(super) cookie_bundle: Vec<Chunk>,
    pub(super) retransmits: u32,
    pub(super) deadline: Option<Time>,
    /// The INIT / COOKIE ECHO must be (re)sent now.
    pub(super) due: bool,
    pub(super) rto: RtoEstimator,
}

impl Association {
    /// Starts an association towards `peer_addrs` (the first is the
    /// initial destination): state COOKIE-WAIT, INIT ready to send.
    pub fn connect(
        cfg: AssociationConfig,
        now: Time,
        seed: [u8; 32],
        local_port: u16,
        peer_port: u16,
        local_addrs: &[IpAddr],
        peer_addrs: &[IpAddr],
    ) -> Option<Self> {
        let dest = *peer_addrs.first()?;
        let mut a = Association::blank(cfg, seed, local_port, peer_port, local_addrs);
        let local_auth = if a.cfg.auth {
            let mut random = [0u8; RANDOM_LEN];
            a.rng.fill_bytes(&mut random);
            Some(local_auth_params(&a.cfg, &random))
        } else {
            None
        };
        let addrs: Vec<IpAddr> = a.local.iter().map(|l| l.addr).collect();
        let chunk = InitChunk {
            initiate_tag: a.local_tag,
            a_rwnd: a.cfg.receive_window,
            outbound_streams: a.cfg.outbound_streams,
            inbound_streams: a.cfg.max_inbound_streams,
            initial_tsn: a.local_initial_tsn,
            params: local_params(&a.cfg, &addrs, local_auth.as_ref(), false),
        };
        a.auth.local = local_auth;
        let rto = RtoEstimator::new(a.cfg.rto_initial, a.cfg.rto_min, a.cfg.rto_max);
        a.init = Some(InitState {
            chunk,
            dest,
            peers: peer_addrs.to_vec(),
            cookie: None,
            cookie_bundle: Vec::new(),
            retransmits: 0,
            deadline: None,
            due: true,
            rto,
        });
        a.state = State::CookieWait;
        let _ = now;
        Some(a)
    }

    /// The host's addresses changed while the INIT is unanswered
    /// (COOKIE-WAIT): the INIT lists `addrs` from now on and goes out
    /// again at once, from one of them, if the address it left from is
    /// gone. The peer keeps no state before the COOKIE ECHO (RFC 9260
    /// section 5.1), so a retransmitted INIT may list other addresses
    /// than the first (section 5.1.2: an INIT lists the sender's
    /// addresses); an INIT repeated from an address the host lost would
    /// never leave, and a mobile that moved during its set-up would wait
    /// for Max.Init.Retransmits in vain. After COOKIE-WAIT the peer's
    /// state cookie holds the INIT's list, and ADD-IP (RFC 5061) moves the
    /// association once established. Returns whether the INIT changed.
    pub fn handshake_addresses_changed(&mut self, addrs: &[IpAddr]) -> bool {
        if self.state != State::CookieWait || addrs.is_empty() {
            return false;
        }
        let addrs: Vec<IpAddr> = addrs
            .iter()
            .copied()
            .take(self.cfg.limits.max_local_addresses)
            .collect();
        if self.local.iter().map(|l| l.addr).eq(addrs.iter().copied()) {
            return false;
        }
        let Some(st) = self.init.as_ref() else {
            return false;
        };
        let old_source = self.source_for_addr(st.dest);
        self.local = addrs
            .iter()
            .map(|&addr| crate::asconf::LocalAddr {
                addr,
                state: crate::asconf::LocalAddrState::Available,
            })
            .collect();
        let params = local_params(&self.cfg, &addrs, self.auth.local.as_ref(), false);
        let source_gone = old_source.is_some_and(|s| !addrs.contains(&s));
        if let Some(st) = self.init.as_mut() {
            st.chunk.params = params;
            st.due |= source_gone;
        }
        true
    }

    /// Creates the association from a valid cookie (the passive side,
    /// RFC 9260 section 5.1 step D): state ESTABLISHED.
    pub(crate) fn from_cookie(
        cfg: AssociationConfig,
        now: Time,
        seed: [u8; 32],
        cookie: &crate::cookie::CookieState,
        peer: &PeerInit,
        local_addrs: &[IpAddr],
    ) -> Result<Self, &'static str> {
        let mut a = Association::blank(cfg, seed, cookie.local_port, cookie.peer_port, local_addrs);
        a.local_tag = cookie.local_tag;
        a.local_initial_tsn = cookie.local_initial_tsn;
        a.auth.local = cookie.local_random.map(|r| local_auth_params(&a.cfg, &r));
        a.setup_peer(peer, cookie.init_src, cookie.init_src, now)?;
        if a.local.is_empty() {
            a.local_primary = None;
        }
        a.state = State::Established;
        a.push_event(Event::Connected);
        if let Some(ind) = peer.adaptation {
            a.push_event(Event::Adaptation { indication: ind });
        }
        Ok(a)
    }

    /// Sets up everything that depends on the peer's INIT / INIT ACK.
    pub(super) fn setup_peer(
        &mut self,
        peer: &PeerInit,
        src: IpAddr,
        confirmed: IpAddr,
        now: Time,
    ) -> Result<(), &'static str> {
        self.peer_tag = peer.initiate_tag;
        let local: Vec<IpAddr> = self.local.iter().map(|l| l.addr).collect();
        let addrs = crate::peer_address::transport_addresses(
            src,
            Some(confirmed),
            &peer.addresses,
            &local,
            self.cfg.limits.max_peer_addresses,
        );
        let mtu = self.cfg.path_mtu;
        let icwnd = self.cfg.initial_cwnd_for(mtu);
        // RFC 2960 path handling: every listed address confirmed.
        let all = self.cfg.confirm_listed_addresses;
        self.paths = addrs
            .iter()
            .map(|&addr| {
                let rto =
                    RtoEstimator::new(self.cfg.rto_initial, self.cfg.rto_min, self.cfg.rto_max);
                let mut p = Path::new(
                    addr,
                    rto,
                    Congestion::new(mtu, icwnd, peer.a_rwnd.max(1)),
                    all || addr == confirmed,
                );
                p.pmtu = crate::pmtu::Plpmtud::new(&self.cfg.pmtud, mtu);
                p
            })
            .collect();
        self.peer_index_current = false;
        self.primary = self
            .paths
            .iter()
            .position(|p| p.remote == confirmed)
            .unwrap_or(0);
        let os = self.cfg.outbound_streams.min(peer.inbound_streams);
        let is = self.cfg.max_inbound_streams.min(peer.outbound_streams);
        // A switch set before the handshake completed survives the new
        // sender.
        let sfr = self.sender.split_fast_retransmit;
        let mut schedule = std::mem::take(&mut self.sender.schedule);
        schedule.kind = self.cfg.stream_scheduler;
        self.sender = Sender::new(self.local_initial_tsn, os, peer.a_rwnd);
        self.sender.split_fast_retransmit = sfr;
        self.sender.schedule = schedule;
        self.sender.interleave = self.cfg.interleaving && peer.supports_idata;
        self.sender.cmt = self.cfg.cmt;
        self.sender.fast_retransmit_threshold = self.cfg.fast_retransmit_threshold;
        self.sender.pr_sctp = self.cfg.pr_sctp && peer.supports_pr_sctp;
        self.receiver = Receiver::new(
            peer.initial_tsn,
            is,
            self.cfg.receive_window,
            self.cfg.max_message_size,
            self.cfg.limits.max_gap_blocks,
            self.cfg.limits.max_dup_tsns,
        );
        self.auth.negotiate(&self.cfg, peer)?;
        let asconf_on = self.cfg.asconf && peer.supports_asconf && self.auth.state.is_some();
        self.asconf = AsconfState::new(
            asconf_on,
            self.local_initial_tsn,
            peer.initial_tsn,
            self.cfg.limits.max_pending_asconf_params,
        );
        self.reconfig = super::reconfig::ReconfigState::new(
            self.cfg.stream_reconfig && peer.supports_reconfig,
            self.local_initial_tsn,
            peer.initial_tsn,
        );
        self.probes.peer_supports = peer.supports_probes;
        for i in 0..self.paths.len() {
            self.init_path_estimators(i);
        }
        // Unconfirmed addresses are probed at once (section 5.4).
        for p in self.paths.iter_mut() {
            p.heartbeat_deadline = Some(if p.confirmed {
                now + self.cfg.heartbeat_interval.unwrap_or(Duration::MAX)
            } else {
                now
            });
        }
        Ok(())
    }

    pub(super) fn on_init_ack(
        &mut self,
        now: Time,
        init: &InitChunk,
        src: IpAddr,
        dst: IpAddr,
    ) -> Flow {
        if self.state != State::CookieWait {
            // Section 5.2.3: unexpected INIT ACK, discard.
            return Flow::Stop;
        }
        let max = self.cfg.limits.max_init_addresses;
        let peer = match super::handshake::check_address_count(init, max)
            .and_then(|()| PeerInit::from_chunk(init, true))
        {
            Ok(p) => p,
            Err(e) => {
                let cause = super::init_error_cause(&e, init);
                // Without a usable tag of the peer, the ABORT reflects ours
                // (T bit, section 3.3.7); section 3.3.3 allows this ABORT
                // for an Initiate Tag of 0.
                let (reflect, t_bit) = if init.initiate_tag != 0 {
                    (init.initiate_tag, false)
                } else {
                    (self.local_tag, true)
                };
                self.ctrl_push(Directed {
                    dest: src,
                    source: Some(dst),
                    reflect: Some(reflect),
                    chunk: Chunk::Abort {
                        t_bit,
                        causes: vec![cause],
                    },
                });
                self.close(CloseReason::Refused { causes: Vec::new() });
                return Flow::Stop;
            }
        };
        let Some(st) = self.init.as_ref() else {
            return Flow::Stop;
        };
        let dest = st.dest;
        let rtt = if st.retransmits == 0 {
            st.deadline
                .map(|d| st.rto.rto().saturating_sub(d.saturating_since(now)))
        } else {
            None
        };
        if let Err(why) = self.setup_peer(&peer, src, dest, now) {
            self.ctrl_push(Directed {
                dest: src,
                source: Some(dst),
                reflect: Some(peer.initiate_tag),
                chunk: Chunk::Abort {
                    t_bit: false,
                    causes: vec![ErrorCause::ProtocolViolation {
                        info: Bytes::from_static(why.as_bytes()),
                    }],
                },
            });
            self.close(CloseReason::Refused { causes: Vec::new() });
            return Flow::Stop;
        }
        if let Some(r) = rtt
            && let Some(i) = self.path_index(dest)
        {
            self.paths[i].rto.sample(r);
        }
        let rto = self.path_index(dest).map(|i| self.paths[i].rto.clone());
        let st = self.init.as_mut().expect("checked above");
        st.cookie = peer.cookie.clone();
        st.cookie_bundle.clear();
        if !peer.unrecognized.is_empty() {
            let params: Vec<u8> = peer.unrecognized.iter().flat_map(|b| b.to_vec()).collect();
            st.cookie_bundle.push(Chunk::Error {
                causes: vec![ErrorCause::UnrecognizedParameters {
                    params: Bytes::from(params),
                }],
            });
        }
        st.retransmits = 0;
        st.due = true;
        st.deadline = None;
        if let Some(r) = rto {
            st.rto = r;
        }
        self.state = State::CookieEchoed;
        if let Some(ind) = peer.adaptation {
            self.push_event(Event::Adaptation { indication: ind });
        }
        Flow::Stop
    }

    pub(super) fn establish(&mut self, _now: Time) {
        if !matches!(self.state, State::CookieWait | State::CookieEchoed) {
            return;
        }
        self.init = None;
        self.state = State::Established;
        self.push_event(Event::Connected);
    }

    pub(super) fn on_cookie_ack(&mut self, now: Time) -> Flow {
        if self.state == State::CookieEchoed {
            if let Some(st) = &self.init
                && st.retransmits == 0
                && let (Some(d), Some(i)) = (st.deadline, self.path_index(st.dest))
            {
                let rtt = st.rto.rto().saturating_sub(d.saturating_since(now));
                self.paths[i].rto.sample(rtt);
            }
            self.establish(now);
        }
        Flow::Continue
    }

    pub(super) fn t1(&mut self, now: Time) {
        let Some(st) = self.init.as_mut() else { return };
        if st.due || st.deadline.is_none_or(|d| d > now) {
            return;
        }
        st.retransmits += 1;
        if st.retransmits > self.cfg.max_init_retrans {
            self.close(CloseReason::InitFailed);
            return;
        }
        st.rto.back_off();
        st.due = true;
    }
}
