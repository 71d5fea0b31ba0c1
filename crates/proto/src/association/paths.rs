//! The association's paths (RFC 9260 sections 5.4, 6.4 and 8.2): the
//! application's view and choices (primary, sources, heartbeats, moving
//! data off a path whose link went down), the choice of the path for new
//! data and of the source address for each destination, and the
//! announcements of paths failing and recovering.

use std::net::IpAddr;
use std::time::Duration;

use super::send::Retransmit;
use super::{AddressError, Association, Event, PrimaryReason, State};
use crate::Time;
use crate::asconf::{LocalAddr, LocalAddrState};
use crate::path::PathStats;

impl Association {
    /// Peer addresses and their state.
    pub fn paths(&self) -> Vec<PathStats> {
        self.path_snapshots().collect()
    }

    /// The snapshots of [`Association::paths`] one by one, in the same
    /// order, without collecting them (a driver sampling every path at a
    /// short interval).
    pub fn path_snapshots(&self) -> impl ExactSizeIterator<Item = PathStats> + '_ {
        self.paths.iter().map(|p| p.snapshot())
    }

    /// The peer's addresses (one per path), without the statistics of
    /// [`Association::paths`].
    pub fn peer_addresses(&self) -> impl ExactSizeIterator<Item = IpAddr> + '_ {
        self.paths.iter().map(|p| p.remote)
    }

    /// Whether the endpoint's peer index was found to hold exactly
    /// [`Association::peer_addresses`] since they last changed.
    pub(crate) fn peer_index_current(&self) -> bool {
        self.peer_index_current
    }

    /// The endpoint found its peer index to hold exactly
    /// [`Association::peer_addresses`].
    pub(crate) fn set_peer_index_current(&mut self) {
        self.peer_index_current = true;
    }

    /// Does this association have reason to believe that `addr` is its
    /// peer's: an address the application gave to reach the peer (while
    /// the handshake runs), or a confirmed path (RFC 9260 section 5.4).
    /// An address the peer only listed is not: a packet naming it proves
    /// nothing, so the endpoint routes no one else's set-up chunk by it
    /// and lets an association that confirmed it take it over.
    pub(crate) fn vouches_for(&self, addr: IpAddr) -> bool {
        match self.state {
            State::CookieWait | State::CookieEchoed => {
                self.init
                    .as_ref()
                    .is_some_and(|st| st.peers.contains(&addr))
                    || self.paths.iter().any(|p| p.remote == addr && p.confirmed)
            }
            _ => self.paths.iter().any(|p| p.remote == addr && p.confirmed),
        }
    }

    /// Statistics of the path to `addr`.
    pub fn path_stats(&self, addr: IpAddr) -> Option<PathStats> {
        self.paths
            .iter()
            .find(|p| p.remote == addr)
            .map(|p| p.snapshot())
    }

    /// The primary destination address.
    pub fn primary(&self) -> Option<IpAddr> {
        self.paths.get(self.primary).map(|p| p.remote)
    }

    /// Where new data goes now (the primary unless it failed).
    pub fn data_destination(&self) -> Option<IpAddr> {
        self.data_path().map(|i| self.paths[i].remote)
    }

    pub fn local_addresses(&self) -> &[LocalAddr] {
        &self.local
    }

    pub fn local_primary(&self) -> Option<IpAddr> {
        self.local_primary
    }

    /// Chooses the primary destination (RFC 9260 section 8.2 / the
    /// application's choice). The address must be a peer address.
    pub fn set_primary(&mut self, addr: IpAddr) -> Result<(), AddressError> {
        let i = self
            .paths
            .iter()
            .position(|p| p.remote == addr)
            .ok_or(AddressError::Unknown)?;
        if i != self.primary {
            self.primary = i;
            self.data_path_changed(i);
            self.push_event(Event::PrimaryChanged {
                addr,
                reason: PrimaryReason::Local,
            });
        }
        Ok(())
    }

    /// Chooses the local address to send from (for a multi-homed host whose
    /// interfaces reach the peer through different networks).
    pub fn set_local_primary(&mut self, addr: Option<IpAddr>) -> Result<(), AddressError> {
        if let Some(a) = addr
            && !self.local.iter().any(|l| l.addr == a)
        {
            return Err(AddressError::Unknown);
        }
        self.local_primary = addr;
        Ok(())
    }

    /// Fixes the local address used for the path to `peer` (`None`: the
    /// association chooses).
    pub fn set_path_source(
        &mut self,
        peer: IpAddr,
        source: Option<IpAddr>,
    ) -> Result<(), AddressError> {
        let p = self
            .paths
            .iter_mut()
            .find(|p| p.remote == peer)
            .ok_or(AddressError::Unknown)?;
        p.source = source;
        Ok(())
    }

    /// Sets the congestion window of the path to `addr` from a bandwidth
    /// estimate (bandwidth-aware start after a handover, docs/MODELS.md 3).
    pub fn set_path_cwnd_from_bdp(
        &mut self,
        addr: IpAddr,
        bdp_bytes: u64,
    ) -> Result<(), AddressError> {
        let icwnd = self.cfg.initial_cwnd_for(self.cfg.path_mtu);
        let p = self
            .paths
            .iter_mut()
            .find(|p| p.remote == addr)
            .ok_or(AddressError::Unknown)?;
        p.cc.set_from_bdp(bdp_bytes, icwnd);
        // Not decayed for the idle time before it (see
        // `start_path_from_estimate`).
        p.last_data_sent = None;
        Ok(())
    }

    /// Moves the outstanding data of the path to `addr` at once: every
    /// chunk in flight there is marked for retransmission on the current
    /// data path (normally a new primary chosen just before), and the
    /// path's T3-rtx timer stops. For a handover triggered by the link
    /// layer (docs/MODELS.md section 3, "link-layer triggered"): the chunks
    /// sent over a link that just went down are resent now rather than
    /// after a retransmission timeout. Congestion state, RTO and error
    /// counters are left alone (the path did not show congestion).
    /// Returns the number of chunks marked.
    pub fn retransmit_path_data(&mut self, addr: IpAddr) -> Result<usize, AddressError> {
        let i = self.path_index(addr).ok_or(AddressError::Unknown)?;
        let n = self
            .sender
            .mark_path(i, Retransmit::Handover, &mut self.paths);
        if !self.moved_off.contains(&addr) {
            self.moved_off.push(addr);
        }
        let p = &mut self.paths[i];
        if p.flight_size == 0 {
            p.t3_deadline = None;
        }
        p.rtt_probe = None;
        p.fast_recovery_exit = None;
        Ok(n)
    }

    /// Probes the path to `addr` with a HEARTBEAT now (e.g. when the link under it came back up), so that an inactive
    /// path becomes usable after one round trip instead of at the next
    /// heartbeat interval (RFC 9260 section 8.3 allows on-demand
    /// heartbeats).
    pub fn probe_path(&mut self, now: Time, addr: IpAddr) -> Result<(), AddressError> {
        let i = self.path_index(addr).ok_or(AddressError::Unknown)?;
        if !self.state.sends_heartbeats() || self.paths[i].heartbeat.is_some_and(|h| !h.timed_out) {
            return Ok(());
        }
        self.queue_heartbeat(i, now);
        Ok(())
    }

    /// Changes HB.interval (RFC 9260 section 8.3) of a running association;
    /// `None` stops heartbeats on confirmed paths (unconfirmed addresses
    /// are still probed, section 5.4), as SPP_HB_DISABLE does (RFC 6458
    /// section 8.1.12).
    pub fn set_heartbeat_interval(&mut self, interval: Option<Duration>, now: Time) {
        self.cfg.heartbeat_interval = interval;
        for p in self.paths.iter_mut().filter(|p| p.confirmed) {
            p.heartbeat_deadline = interval.map(|iv| now + iv + p.rto.rto());
        }
    }

    /// Changes Path.Max.Retrans of a running association.
    pub fn set_path_max_retrans(&mut self, pmr: u32) {
        self.cfg.path_max_retrans = pmr;
    }
}

impl Association {
    /// Index of the path that carries new data: the primary if usable,
    /// otherwise the usable path with the fewest errors, otherwise the
    /// confirmed path with the fewest errors (RFC 9260 section 6.4.1);
    /// never an unconfirmed one (section 5.4).
    pub(super) fn data_path(&self) -> Option<usize> {
        if self.paths.is_empty() {
            return None;
        }
        if self.paths[self.primary].usable() {
            return Some(self.primary);
        }
        self.paths
            .iter()
            .enumerate()
            .filter(|(_, p)| p.usable())
            .min_by_key(|(_, p)| p.error_count)
            .map(|(i, _)| i)
            .or_else(|| {
                // Nothing usable: the confirmed path with the fewest errors.
                self.paths
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.confirmed)
                    .min_by_key(|(_, p)| p.error_count)
                    .map(|(i, _)| i)
            })
        // No confirmed path at all (the peer deleted every confirmed
        // address): no data path until a probe confirms one (RFC 9260
        // section 5.4: no DATA to an UNCONFIRMED address).
    }

    /// Local address usable as a source (not being added or deleted).
    pub(super) fn local_usable(&self, a: IpAddr) -> bool {
        self.local
            .iter()
            .any(|l| l.addr == a && l.state == LocalAddrState::Available)
    }

    /// The source address for packets to `path`: the path's fixed source,
    /// then the local primary, then the address at which we last heard
    /// from that peer address, then any available address, and as a last
    /// resort an address being added (single-homed handover: the only
    /// address left) or being deleted.
    ///
    /// A fixed source still being added is the source all the same: the
    /// packet with its ASCONF leaves from it and the rest wait for the
    /// ASCONF-ACK (`held_for_asconf`). Another address would be one on
    /// another link, and the peer's answers to it (the ASCONF-ACK goes to
    /// the ASCONF's source, RFC 5061 section 5.2) would take that link,
    /// which may be dead: the single-radio move with a second interface
    /// down.
    pub(super) fn source_for(&self, path: usize) -> Option<IpAddr> {
        let p = &self.paths[path];
        if let Some(s) = p.source
            && self.is_pending_add(s)
            && s.is_ipv4() == p.remote.is_ipv4()
        {
            return Some(s);
        }
        let candidates = [p.source, self.local_primary, p.learned_source];
        for c in candidates.into_iter().flatten() {
            if self.local_usable(c) && c.is_ipv4() == p.remote.is_ipv4() {
                return Some(c);
            }
        }
        let family = |l: &&LocalAddr| l.addr.is_ipv4() == p.remote.is_ipv4();
        self.local
            .iter()
            .filter(family)
            .find(|l| l.state == LocalAddrState::Available)
            .or_else(|| {
                self.local
                    .iter()
                    .filter(family)
                    .find(|l| l.state == LocalAddrState::AddPending)
            })
            .or_else(|| self.local.iter().find(family))
            .map(|l| l.addr)
    }

    pub(super) fn source_for_addr(&self, dest: IpAddr) -> Option<IpAddr> {
        match self.paths.iter().position(|p| p.remote == dest) {
            Some(i) => self.source_for(i),
            None => self
                .local
                .iter()
                .filter(|l| l.addr.is_ipv4() == dest.is_ipv4())
                .find(|l| l.state == LocalAddrState::Available)
                .or_else(|| self.local.first())
                .map(|l| l.addr),
        }
    }

    pub(super) fn path_index(&self, addr: IpAddr) -> Option<usize> {
        self.paths.iter().position(|p| p.remote == addr)
    }

    /// A path stopped being usable: announce it and move data away.
    pub(super) fn path_failed(&mut self, i: usize) {
        let addr = self.paths[i].remote;
        self.push_event(Event::PathDown { addr });
        if i == self.primary
            && let Some(alt) = self.data_path().filter(|&d| d != i)
        {
            let alt_addr = self.paths[alt].remote;
            if !self.cfg.return_to_primary {
                self.primary = alt;
            }
            self.data_path_changed(alt);
            self.push_event(Event::PrimaryChanged {
                addr: alt_addr,
                reason: PrimaryReason::Failover,
            });
        }
    }

    /// A path is reachable again.
    pub(super) fn path_recovered(&mut self, i: usize) {
        let addr = self.paths[i].remote;
        self.push_event(Event::PathUp { addr });
        if i == self.primary && self.cfg.return_to_primary {
            self.push_event(Event::PrimaryChanged {
                addr,
                reason: PrimaryReason::Failover,
            });
        }
    }
}
