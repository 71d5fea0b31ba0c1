//! ADD-IP (RFC 5061): the application's address requests, the ASCONFs
//! that carry them and their retransmission (section 5.1), the peer's
//! ASCONFs and their answers (section 5.2), and the rule that holds
//! packets from an address until its Add IP is acknowledged (section 5.3,
//! rule F1). The ASCONF state itself (serial numbers, the outstanding
//! ASCONF, the request queue, the peer's serial and the cached
//! ASCONF-ACK) is owned by [`AsconfState`](crate::asconf::AsconfState).

use std::net::IpAddr;

use bytes::Bytes;

use super::Flow;
use super::output::Bundle;
use super::{AddressError, Association, Event, PrimaryReason, State};
use crate::Time;
use crate::asconf::{
    AsconfError, LocalAddr, LocalAddrState, Request, is_unusable_peer_address, is_wildcard,
};
use crate::congestion::Congestion;
use crate::path::{Path, RtoEstimator};
use crate::wire::param::UnknownParamAction;
use crate::wire::{AsconfAckChunk, AsconfChunk, Chunk, ErrorCause, Param};

pub(super) fn addr_tlv(a: IpAddr) -> Bytes {
    let mut v = Vec::with_capacity(20);
    match a {
        IpAddr::V4(v4) => {
            v.extend_from_slice(&[0, 5, 0, 8]);
            v.extend_from_slice(&v4.octets());
        }
        IpAddr::V6(v6) => {
            v.extend_from_slice(&[0, 6, 0, 20]);
            v.extend_from_slice(&v6.octets());
        }
    }
    Bytes::from(v)
}

fn param_tlv(p: &Param) -> Bytes {
    let mut v = Vec::new();
    p.emit(&mut v);
    v.truncate(p.length());
    Bytes::from(v)
}

/// The Error Cause Indication reporting an unrecognized ASCONF parameter
/// (RFC 5061 section 5.2), if `budget` has room for it (reports are
/// bounded like an INIT ACK's, `limits.max_reflected_unrecognized`).
fn unknown_param_report(param: &Param, value: &[u8], budget: &mut usize) -> Option<Param> {
    let cid = if value.len() >= 4 {
        u32::from_be_bytes([value[0], value[1], value[2], value[3]])
    } else {
        0
    };
    let cause = ErrorCause::UnrecognizedParameters {
        params: param_tlv(param),
    };
    let report = Param::ErrorCauseIndication {
        correlation_id: cid,
        causes: vec![cause],
    };
    let left = budget.checked_sub(report.padded_len())?;
    *budget = left;
    Some(report)
}

// -------------------------------------------------------------------
// Application side: requests queued for the next ASCONF
// -------------------------------------------------------------------

impl Association {
    /// Adds a local address (RFC 5061 Add IP Address). It becomes a source
    /// only when the peer acknowledges it ([`Event::LocalAddressAdded`]).
    /// Adding an address whose Delete has not left yet withdraws the
    /// Delete instead.
    pub fn add_local_address(&mut self, addr: IpAddr) -> Result<(), AddressError> {
        if self
            .local
            .iter()
            .any(|l| l.addr == addr && l.state != LocalAddrState::DeletePending)
        {
            return Err(AddressError::AlreadyPresent);
        }
        // Added again before its Delete left: the peer never heard of the
        // deletion, so the Delete is withdrawn and nothing is sent (one
        // ASCONF deleting and adding the same address would only churn the
        // peer's paths). The address is as it was before: available, or
        // still being added if its Add is on the wire. It is in the list
        // already, so the limit below does not apply.
        if self.asconf.cancel_pending(|r| *r == Request::Delete(addr)) {
            let state = if self.asconf.in_flight(Request::Add(addr)) {
                LocalAddrState::AddPending
            } else {
                LocalAddrState::Available
            };
            if let Some(l) = self.local.iter_mut().find(|l| l.addr == addr) {
                l.state = state;
            }
            return Ok(());
        }
        if self.local.len() >= self.cfg.limits.max_local_addresses {
            return Err(AddressError::Limit);
        }
        if self.asconf.add_delete_refused {
            return Err(AsconfError::NotSupported.into());
        }
        self.asconf.queue(Request::Add(addr))?;
        match self.local.iter_mut().find(|l| l.addr == addr) {
            Some(l) => l.state = LocalAddrState::AddPending,
            None => self.local.push(LocalAddr {
                addr,
                state: LocalAddrState::AddPending,
            }),
        }
        Ok(())
    }

    /// Deletes a local address (RFC 5061 Delete IP Address). The address
    /// stops being used as a source at once (the host is losing it) but
    /// packets to it are accepted until the peer acknowledges. Removing an
    /// address already being deleted changes nothing.
    pub fn remove_local_address(&mut self, addr: IpAddr) -> Result<(), AddressError> {
        let idx = self
            .local
            .iter()
            .position(|l| l.addr == addr)
            .ok_or(AddressError::Unknown)?;
        // Already being deleted: one Delete is enough (a second one would
        // make the peer answer "unresolvable address").
        if self.local[idx].state == LocalAddrState::DeletePending {
            return Ok(());
        }
        if self.local[idx].state == LocalAddrState::AddPending {
            // Never announced: withdraw the request if still queued.
            let queued = self.asconf.pending().any(|r| *r == Request::Add(addr));
            if queued {
                self.asconf.cancel_pending(|r| r.address() == addr);
                self.local.remove(idx);
                return Ok(());
            }
        }
        let others = self
            .local
            .iter()
            .filter(|l| l.addr != addr && l.state != LocalAddrState::DeletePending)
            .count();
        if others == 0 {
            return Err(AsconfError::LastAddress.into());
        }
        if self.asconf.add_delete_refused {
            return Err(AsconfError::NotSupported.into());
        }
        self.asconf.queue(Request::Delete(addr))?;
        self.local[idx].state = LocalAddrState::DeletePending;
        if self.local_primary == Some(addr) {
            self.local_primary = None;
        }
        Ok(())
    }

    /// Asks the peer to send to `addr` (one of ours) from now on (RFC 5061
    /// Set Primary Address). The address may be one being added in the
    /// same request.
    pub fn request_peer_primary(&mut self, addr: IpAddr) -> Result<(), AddressError> {
        if !self
            .local
            .iter()
            .any(|l| l.addr == addr && l.state != LocalAddrState::DeletePending)
        {
            return Err(AddressError::Unknown);
        }
        if self.asconf.set_primary_refused {
            return Err(AsconfError::NotSupported.into());
        }
        self.asconf.queue(Request::SetPrimary(addr))?;
        Ok(())
    }

    /// ADD-IP is usable with this peer.
    pub fn asconf_enabled(&self) -> bool {
        self.asconf.enabled
    }

    /// An ASCONF is waiting for its ASCONF-ACK, or requests are queued.
    pub fn asconf_busy(&self) -> bool {
        self.asconf.outstanding.is_some() || self.asconf.has_pending()
    }
}

// -------------------------------------------------------------------
// Sender side (RFC 5061 sections 5.1 and 5.3)
// -------------------------------------------------------------------

impl Association {
    /// Whether a packet to `dest` must wait: it would leave from an
    /// address not yet acknowledged by the peer, and it cannot carry the
    /// ASCONF that adds it. Such an address carries nothing but the
    /// packet with that ASCONF (RFC 5061 section 5.3, rule F1; the
    /// single-homed move): anything else from it would reach the peer as
    /// out of the blue.
    pub(super) fn held_for_asconf(&self, dest: IpAddr, now: Time) -> bool {
        // Usually no address is being added: no source to look up.
        if !self.adding_address() {
            return false;
        }
        self.source_for_addr(dest)
            .is_some_and(|s| self.is_pending_add(s))
            && !self.asconf_due_to(dest, now)
    }

    /// Is one of our addresses being added (its Add IP unacknowledged)?
    pub(super) fn adding_address(&self) -> bool {
        self.local
            .iter()
            .any(|l| l.state == LocalAddrState::AddPending)
    }

    /// Path `i`'s only source is an address the peer does not know yet
    /// (its Add IP unacknowledged): such an address carries nothing but
    /// its ASCONF (RFC 5061 section 5.3, rule F1), so a probe, a capacity
    /// train or a heartbeat to path `i` waits for the ASCONF-ACK.
    pub(super) fn source_awaits_asconf(&self, i: usize) -> bool {
        self.source_for(i).is_some_and(|s| self.is_pending_add(s))
    }

    /// Is `addr` one of our addresses whose Add IP the peer has not
    /// acknowledged yet?
    pub(super) fn is_pending_add(&self, addr: IpAddr) -> bool {
        self.local
            .iter()
            .any(|l| l.addr == addr && l.state == LocalAddrState::AddPending)
    }

    /// The outstanding ASCONF should go out now, to `dest`.
    ///
    /// It waits (at most until the next SACK) while data is queued but the
    /// congestion or receiver window stops it, so that it leaves in front
    /// of DATA in the same packet and adds no packet of its own (docs/MODELS.md
    /// 1.4). It waits only while SACKs are flowing (one arrived within the
    /// path's RTO), and never when it must leave from an address being
    /// added (the single-homed move: the old path is gone).
    pub(super) fn asconf_due_to(&self, dest: IpAddr, now: Time) -> bool {
        let Some(o) = &self.asconf.outstanding else {
            return false;
        };
        if o.deadline.is_some() {
            return false;
        }
        let Some(p) = self.paths.get(o.path) else {
            return false;
        };
        if p.remote != dest {
            return false;
        }
        let window_full = p.flight_size > 0 && (p.flight_size >= p.cc.cwnd || !self.rwnd_allows());
        let acks_flowing = p
            .last_ack
            .is_some_and(|t| now.saturating_since(t) < p.rto.rto());
        let from_new_address = self
            .source_for(o.path)
            .is_some_and(|s| self.is_pending_add(s));
        let wait = self.sender.has_queued()
            && window_full
            && acks_flowing
            && !from_new_address
            && self.data_path() == Some(o.path);
        !wait
    }

    /// Starts the next ASCONF if none is outstanding.
    #[inline]
    pub(super) fn maybe_start_asconf(&mut self) {
        // Checked inline: every poll for output passes here, and a request
        // is rarely waiting.
        if self.asconf.enabled
            && self.asconf.outstanding.is_none()
            && self.asconf.has_pending()
            && self.state.is_established()
        {
            self.start_asconf();
        }
    }

    /// Makes the next ASCONF from the queued requests.
    fn start_asconf(&mut self) {
        // The Address Parameter: an address the peer knows (available, or
        // being deleted: still valid until acknowledged).
        let known = self
            .local
            .iter()
            .find(|l| l.state == LocalAddrState::Available)
            .or_else(|| {
                self.local
                    .iter()
                    .find(|l| l.state == LocalAddrState::DeletePending)
            })
            .map(|l| l.addr);
        let address = known.unwrap_or(std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED));
        let max_params = (self.cfg.path_mtu - 200) / 32;
        let path = self.data_path().unwrap_or(0);
        if let Some(_o) = self.asconf.start_next(address, max_params)
            && let Some(o) = self.asconf.outstanding.as_mut()
        {
            o.path = path;
        }
    }

    /// The outstanding ASCONF, when due to the bundle's destination
    /// (RFC 5061 section 5.1), T4-RTO started.
    pub(super) fn bundle_asconf(&mut self, b: &mut Bundle, now: Time) {
        if self.asconf_due_to(b.dest, now)
            && let Some(o) = self.asconf.outstanding.as_ref()
        {
            let c = Chunk::Asconf(o.chunk.clone());
            if b.fits(c.padded_len(), true) {
                b.push(c, true);
                let rto = self.paths[o.path].rto.rto();
                let o = self.asconf.outstanding.as_mut().expect("checked");
                o.deadline = Some(now + rto);
                o.transmissions += 1;
                o.source = b.source;
                if o.transmissions > 1 {
                    self.stats.asconf_retransmissions += 1;
                } else {
                    self.stats.asconfs_sent += 1;
                }
            }
        }
    }

    /// RFC 5061 section 5.1 rules B1-B5: ASCONF retransmission.
    pub(super) fn t4(&mut self, now: Time) {
        let Some(o) = self.asconf.outstanding.as_ref() else {
            return;
        };
        if o.deadline.is_none_or(|d| d > now) {
            return;
        }
        let i = o.path.min(self.paths.len().saturating_sub(1));
        if self.paths.is_empty() {
            return;
        }
        self.paths[i].rto.back_off();
        self.path_error(i, now);
        if self.association_error() {
            return;
        }
        // Retransmit, to an alternate destination if one is usable.
        let alt = (0..self.paths.len())
            .find(|&k| k != i && self.paths[k].usable())
            .unwrap_or(i);
        if let Some(o) = self.asconf.outstanding.as_mut() {
            o.path = alt;
            o.deadline = None;
        }
    }
}

// -------------------------------------------------------------------
// Receiver side (RFC 5061 section 5.2)
// -------------------------------------------------------------------

impl Association {
    pub(super) fn on_asconf(
        &mut self,
        now: Time,
        a: AsconfChunk,
        src: IpAddr,
        dst: IpAddr,
        in_use: &dyn Fn(IpAddr) -> bool,
    ) -> Flow {
        if !self.asconf.enabled || !self.state.is_established() {
            return Flow::Continue;
        }
        if !self.asconf_is_next(a.serial, src, dst) {
            return Flow::Continue;
        }
        let mut responses: Vec<Param> = Vec::new();
        let mut successes: Vec<Param> = Vec::new();
        // Reports of unrecognized parameters are bounded like an INIT
        // ACK's (`limits.max_reflected_unrecognized`).
        let mut report_budget = self.cfg.limits.max_reflected_unrecognized;
        for param in &a.params {
            let result = match param {
                Param::AddIpAddress {
                    correlation_id,
                    address,
                } => Some((
                    *correlation_id,
                    self.peer_add(now, *address, src, param, in_use),
                )),
                Param::DeleteIpAddress {
                    correlation_id,
                    address,
                } => Some((*correlation_id, self.peer_delete(now, *address, src, param))),
                Param::SetPrimaryAddress {
                    correlation_id,
                    address,
                } => Some((*correlation_id, self.peer_set_primary(*address, src))),
                Param::AdaptationLayerIndication(v) => {
                    self.push_event(Event::Adaptation { indication: *v });
                    None
                }
                Param::Unknown { param_type, value } => {
                    let action = UnknownParamAction::from_type(*param_type);
                    if action.reports()
                        && let Some(report) = unknown_param_report(param, value, &mut report_budget)
                    {
                        responses.push(report);
                    }
                    if action.stops() {
                        break;
                    }
                    None
                }
                _ => None,
            };
            if let Some((cid, r)) = result {
                match r {
                    Ok(()) => successes.push(Param::SuccessIndication {
                        correlation_id: cid,
                    }),
                    Err(cause) => responses.push(Param::ErrorCauseIndication {
                        correlation_id: cid,
                        causes: vec![cause],
                    }),
                }
            }
            if self.state == State::Closed {
                return Flow::Stop;
            }
        }
        // Successes are implicit; they are spelled out only next to errors.
        if !responses.is_empty() {
            responses.extend(successes);
        }
        self.answer_asconf(now, a.serial, responses, src, dst);
        Flow::Continue
    }

    /// Counts a received ASCONF and tells whether its serial number is
    /// the next expected one (RFC 5061 section 5.2): a retransmission of
    /// the last is answered from the cached ASCONF-ACK, an old or future
    /// serial discarded.
    fn asconf_is_next(&mut self, serial: u32, src: IpAddr, dst: IpAddr) -> bool {
        self.stats.asconfs_received += 1;
        let expected = self.asconf.peer_serial.wrapping_add(1);
        if serial != expected {
            self.stats.stale_asconfs += 1;
        }
        if serial == self.asconf.peer_serial {
            // A retransmission: resend the cached answer, or discard.
            if let Some(ack) = self.asconf.cached_ack.clone() {
                self.reply(src, dst, Chunk::AsconfAck(ack));
            }
            return false;
        }
        serial == expected
    }

    /// Sends (and caches) the ASCONF-ACK of the ASCONF `serial` from
    /// `src`, and probes `src` at once if it is a new address.
    fn answer_asconf(
        &mut self,
        now: Time,
        serial: u32,
        responses: Vec<Param>,
        src: IpAddr,
        dst: IpAddr,
    ) {
        let ack = AsconfAckChunk {
            serial,
            params: responses,
        };
        self.asconf.peer_serial = serial;
        self.asconf.cached_ack = Some(ack.clone());
        self.reply(src, dst, Chunk::AsconfAck(ack));
        // The single-homed move: the ASCONF's source is a new, unconfirmed
        // address. Its probe leaves at once, in the packet of the
        // ASCONF-ACK (RFC 9260 section 5.4 allows a HEARTBEAT with a nonce
        // to an UNCONFIRMED address; one probe per RTO), so the move costs
        // one round trip more than the ASCONF. Other new addresses are
        // probed by the heartbeat timers.
        if let Some(i) = self.path_index(src)
            && !self.paths[i].confirmed
            && self.paths[i].heartbeat.is_none()
        {
            self.queue_heartbeat(i, now);
        }
        // An ASCONF proves the peer reached us: count it as life.
        self.error_count = 0;
    }

    /// Families in use by the association's peer addresses.
    fn uses_family(&self, a: &IpAddr) -> bool {
        self.paths.iter().any(|p| p.remote.is_ipv4() == a.is_ipv4())
    }

    fn peer_add(
        &mut self,
        now: Time,
        address: IpAddr,
        src: IpAddr,
        param: &Param,
        in_use: &dyn Fn(IpAddr) -> bool,
    ) -> Result<(), ErrorCause> {
        let addr = if is_wildcard(&address) { src } else { address };
        if is_unusable_peer_address(&addr) || !self.uses_family(&addr) {
            return Err(ErrorCause::UnresolvableAddress {
                address: addr_tlv(address),
            });
        }
        if self.path_index(addr).is_some() {
            return Ok(());
        }
        if in_use(addr) {
            // Another association's peer has this address: adding it
            // would take that association's packets (RFC 5061 section
            // 4.2: refused by local policy).
            self.stats.addresses_refused_in_use += 1;
            return Err(ErrorCause::NoAuthorization {
                request: param_tlv(param),
            });
        }
        if self.paths.len() >= self.cfg.limits.max_peer_addresses {
            return Err(ErrorCause::ResourceShortage {
                request: param_tlv(param),
            });
        }
        let mtu = self.cfg.path_mtu;
        // RFC 9260 section 5.4: a new peer address is UNCONFIRMED until a
        // HEARTBEAT with a random nonce sent to it comes back, even when
        // the (authenticated) ASCONF that adds it came from it: the IP
        // source is spoofable, and AUTH proves only that the sender holds
        // the key, which a malicious peer does. No DATA goes there before
        // (see `build_packet`).
        let mut p = Path::new(
            addr,
            RtoEstimator::new(self.cfg.rto_initial, self.cfg.rto_min, self.cfg.rto_max),
            Congestion::new(
                mtu,
                self.cfg.initial_cwnd_for(mtu),
                self.sender.peer_initial_rwnd.max(mtu as u32),
            ),
            false,
        );
        p.heartbeat_deadline = Some(now);
        p.pmtu = crate::pmtu::Plpmtud::new(&self.cfg.pmtud, mtu);
        self.paths.push(p);
        self.peer_index_current = false;
        self.init_path_estimators(self.paths.len() - 1);
        self.push_event(Event::PeerAddressAdded { addr });
        Ok(())
    }

    fn peer_delete(
        &mut self,
        now: Time,
        address: IpAddr,
        src: IpAddr,
        param: &Param,
    ) -> Result<(), ErrorCause> {
        if is_wildcard(&address) {
            // Delete every address but the source.
            let doomed: Vec<IpAddr> = self
                .paths
                .iter()
                .map(|p| p.remote)
                .filter(|a| *a != src)
                .collect();
            if self.path_index(src).is_none() {
                return Err(ErrorCause::DeleteSourceAddress {
                    request: param_tlv(param),
                });
            }
            for a in doomed {
                self.remove_path(a, src, now);
            }
            return Ok(());
        }
        if is_unusable_peer_address(&address) {
            return Err(ErrorCause::UnresolvableAddress {
                address: addr_tlv(address),
            });
        }
        if self.path_index(address).is_none() {
            return Err(ErrorCause::UnresolvableAddress {
                address: addr_tlv(address),
            });
        }
        if self.paths.len() == 1 {
            return Err(ErrorCause::DeleteLastRemainingAddress {
                request: param_tlv(param),
            });
        }
        if address == src {
            return Err(ErrorCause::DeleteSourceAddress {
                request: param_tlv(param),
            });
        }
        self.remove_path(address, src, now);
        Ok(())
    }

    /// Removes a peer address: its outstanding data moves to the path of
    /// `prefer` (the ASCONF's source) or the data path.
    fn remove_path(&mut self, addr: IpAddr, prefer: IpAddr, now: Time) {
        let Some(i) = self.path_index(addr) else {
            return;
        };
        if self.paths.len() <= 1 {
            return;
        }
        let to = self
            .path_index(prefer)
            .filter(|&t| t != i)
            .or_else(|| (0..self.paths.len()).find(|&t| t != i && self.paths[t].usable()))
            .unwrap_or(if i == 0 { 1 } else { 0 });
        let hold = self.cmt_sending();
        self.sender.rehome(i, to, &mut self.paths, hold);
        if hold {
            self.cmt_hold_rehomed(i, now);
        }
        let was_primary = i == self.primary;
        self.paths.remove(i);
        self.peer_index_current = false;
        self.sender.path_removed(i);
        let to_after = if to > i { to - 1 } else { to };
        if self.primary > i {
            self.primary -= 1;
        } else if was_primary {
            self.primary = to_after;
        }
        if let Some(o) = self.asconf.outstanding.as_mut() {
            if o.path == i {
                o.path = to_after;
            } else if o.path > i {
                o.path -= 1;
            }
        }
        self.push_event(Event::PeerAddressRemoved { addr });
        if was_primary {
            let a = self.paths[self.primary].remote;
            self.push_event(Event::PrimaryChanged {
                addr: a,
                reason: PrimaryReason::Deleted,
            });
        }
    }

    fn peer_set_primary(&mut self, address: IpAddr, src: IpAddr) -> Result<(), ErrorCause> {
        let addr = if is_wildcard(&address) { src } else { address };
        let Some(i) = self.path_index(addr) else {
            return Err(ErrorCause::UnresolvableAddress {
                address: addr_tlv(address),
            });
        };
        if i != self.primary {
            self.primary = i;
            self.data_path_changed(i);
            self.push_event(Event::PrimaryChanged {
                addr,
                reason: PrimaryReason::PeerRequest,
            });
        }
        Ok(())
    }

    pub(super) fn on_asconf_ack(&mut self, a: &AsconfAckChunk) -> Flow {
        let path = self.asconf.outstanding.as_ref().map(|o| o.path);
        let Some(results) = self.asconf.on_ack(a) else {
            return Flow::Continue;
        };
        self.error_count = 0;
        if let Some(p) = path.filter(|&p| p < self.paths.len())
            && self.paths[p].record_success()
        {
            self.path_recovered(p);
        }
        for (r, res) in results {
            match res {
                Ok(()) => self.complete_request(r),
                Err(causes) => self.fail_request(r, causes),
            }
        }
        Flow::Continue
    }

    fn complete_request(&mut self, r: Request) {
        match r {
            Request::Add(addr) => {
                if let Some(l) = self.local.iter_mut().find(|l| l.addr == addr)
                    && l.state == LocalAddrState::AddPending
                {
                    l.state = LocalAddrState::Available;
                }
                self.push_event(Event::LocalAddressAdded { addr });
            }
            Request::Delete(addr) => {
                self.local.retain(|l| l.addr != addr);
                for p in self.paths.iter_mut() {
                    if p.learned_source == Some(addr) {
                        p.learned_source = None;
                    }
                    if p.source == Some(addr) {
                        p.source = None;
                    }
                }
                self.push_event(Event::LocalAddressRemoved { addr });
            }
            Request::SetPrimary(addr) => self.push_event(Event::PeerPrimaryRequest {
                addr,
                accepted: true,
            }),
        }
    }

    /// A request refused by the peer. "Unrecognized parameter" means the
    /// peer does not do that kind of request: no more of them (RFC 5061
    /// section 5.3, rules F3a and F3b).
    pub(super) fn fail_request(&mut self, r: Request, causes: Vec<ErrorCause>) {
        let unrecognized = causes
            .iter()
            .any(|c| matches!(c, ErrorCause::UnrecognizedParameters { .. }));
        match r {
            Request::Add(addr) => {
                self.asconf.add_delete_refused |= unrecognized;
                self.local
                    .retain(|l| !(l.addr == addr && l.state == LocalAddrState::AddPending));
                self.push_event(Event::LocalAddressAddFailed { addr, causes });
            }
            Request::Delete(_) if unresolvable(&causes) => {
                // The peer does not have the address (RFC 5061 section
                // 5.2.2: Unresolvable Address): it is not part of the
                // association at the peer, which is what the Delete asked.
                // Kept, it could become the Address Parameter of a later
                // ASCONF that the peer cannot resolve (section 5.2), whose
                // packet from a new address would then be out of the blue.
                self.complete_request(r);
            }
            Request::Delete(addr) => {
                self.asconf.add_delete_refused |= unrecognized;
                if let Some(l) = self.local.iter_mut().find(|l| l.addr == addr) {
                    l.state = LocalAddrState::Available;
                }
                self.push_event(Event::LocalAddressRemoveFailed { addr, causes });
            }
            Request::SetPrimary(addr) => {
                self.asconf.set_primary_refused |= unrecognized;
                self.push_event(Event::PeerPrimaryRequest {
                    addr,
                    accepted: false,
                })
            }
        }
    }
}

/// Does an ASCONF-ACK's error say the peer cannot resolve the address?
fn unresolvable(causes: &[ErrorCause]) -> bool {
    causes
        .iter()
        .any(|c| matches!(c, ErrorCause::UnresolvableAddress { .. }))
}
