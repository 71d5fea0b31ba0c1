//! Path MTU discovery in the association (RFC 8899 section 6.2 for SCTP):
//! probes are HEARTBEATs filled to the probed size by a PAD chunk (RFC
//! 4820), each path's PLPMTU bounds the packets to it, and DATA is cut to
//! the smallest PLPMTU of the confirmed paths, so that a retransmission
//! to an alternate path or a handover never needs a packet larger than
//! that path takes (SCTP cannot cut a chunk again once it has a TSN; Linux
//! SCTP likewise fragments to the smallest PMTU of the association's
//! transports). The state machine of each path is [`crate::pmtu`].

use std::net::IpAddr;

use super::Association;
use crate::Time;
use crate::pmtu::{PmtuCounters, PmtuState};
use crate::wire::Chunk;
use crate::wire::chunk::chunk_type;

const COMMON_HEADER: usize = 12;

/// A path's PLPMTUD as the application sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathMtu {
    pub state: PmtuState,
    /// The PLPMTU: bytes of the largest SCTP packet sent there.
    pub mtu: usize,
    pub stats: PmtuCounters,
}

impl Association {
    /// The largest packet DATA is cut for: the configured `path_mtu`, or
    /// with PLPMTUD the smallest PLPMTU of the confirmed paths (of all
    /// paths while none is confirmed), the base for a path whose PLPMTU
    /// is being confirmed ([`crate::pmtu::Plpmtud::data_mtu`]).
    pub(super) fn fragmentation_mtu(&self) -> usize {
        if !self.cfg.pmtud.enabled {
            return self.cfg.path_mtu;
        }
        let confirmed = self
            .paths
            .iter()
            .filter(|p| p.confirmed)
            .map(|p| p.pmtu.data_mtu())
            .min();
        confirmed
            .or_else(|| self.paths.iter().map(|p| p.pmtu.data_mtu()).min())
            .unwrap_or(crate::pmtu::BASE_PLPMTU.min(self.cfg.path_mtu))
    }

    /// The largest packet to `dest`: its path's PLPMTU (the configured
    /// MTU without PLPMTUD or for an address that is no path).
    pub(super) fn mtu_to(&self, dest: IpAddr) -> usize {
        if !self.cfg.pmtud.enabled {
            return self.cfg.path_mtu;
        }
        self.path_index(dest)
            .map_or(self.cfg.path_mtu, |i| self.paths[i].pmtu.mtu())
    }

    /// A probe due on a confirmed path: a HEARTBEAT whose information
    /// carries a fresh nonce, behind a PAD chunk that makes the packet the
    /// probed size (RFC 8899 section 6.2.1.2). The PAD goes before any AUTH
    /// chunk, outside the HMAC. Not the path's heartbeat: its loss is no
    /// path error (RFC 8899 section 3 requirement 7: probe loss is no
    /// congestion or failure signal).
    pub(super) fn poll_pmtu_probe(&mut self, now: Time) -> Option<crate::Transmit> {
        if !self.cfg.pmtud.enabled || !self.state.is_established() {
            return None;
        }
        let adding = self.adding_address();
        let i = (0..self.paths.len()).find(|&i| {
            // Its only source not yet added at the peer: the probe waits,
            // with no timer for it (`poll_timeout`).
            if adding && self.source_awaits_asconf(i) {
                return false;
            }
            let p = &mut self.paths[i];
            p.confirmed && p.pmtu.probe_due(now).is_some()
        })?;
        let size = self.paths[i].pmtu.probe_due(now)?;
        let nonce = self.random_u64();
        let dest = self.paths[i].remote;
        let info = super::input::encode_heartbeat_info(dest, nonce, None);
        let hb = Chunk::Heartbeat { info };
        let auth = self.must_authenticate(chunk_type::HEARTBEAT);
        let fixed = COMMON_HEADER + hb.padded_len() + if auth { self.auth_overhead() } else { 0 };
        let pad = size.saturating_sub(fixed).min(usize::from(u16::MAX)) & !3;
        let pad = if pad >= 4 { pad } else { 0 };
        let source = self.source_for(i);
        let tag = self.peer_tag;
        let t = self.emit_raw_padded(dest, source, tag, pad, std::slice::from_ref(&hb), auth);
        let p = &mut self.paths[i];
        p.pmtu.probe_sent(t.packet().len(), nonce, now);
        p.stats.packets_sent += 1;
        p.stats.bytes_sent += t.packet().len() as u64;
        Some(t)
    }

    /// A HEARTBEAT ACK from path `i` with `nonce`: true if it answered
    /// that path's MTU probe (then the size passes; the path is heard).
    pub(super) fn on_pmtu_probe_ack(&mut self, i: usize, nonce: u64, now: Time) -> bool {
        let p = &mut self.paths[i];
        if !p.pmtu.on_probe_ack(nonce, now) {
            return false;
        }
        tracing::debug!(path = %p.remote, state = ?p.pmtu.state(), mtu = p.pmtu.mtu(), "PLPMTUD probe acknowledged");
        true
    }

    /// An ICMP/ICMPv6 Packet Too Big (or a local EMSGSIZE) said that
    /// packets to `path` may have at most `mtu` bytes of SCTP packet: a
    /// hint, validated by a probe before anything is sent smaller or
    /// larger (RFC 8899 section 4.6). Returns whether it was taken (false:
    /// PLPMTUD off, no such path, or a size the search ignores).
    pub fn on_packet_too_big(&mut self, path: IpAddr, mtu: usize) -> bool {
        let Some(i) = self.path_index(path) else {
            return false;
        };
        let p = &mut self.paths[i];
        let taken = p.pmtu.on_packet_too_big(mtu);
        tracing::debug!(path = %path, mtu, taken, "Packet Too Big hint");
        taken
    }

    /// PLPMTUD state of the path to `addr`.
    pub fn path_mtu(&self, addr: IpAddr) -> Option<PathMtu> {
        let p = &self.paths[self.path_index(addr)?];
        Some(PathMtu {
            state: p.pmtu.state(),
            mtu: p.pmtu.mtu(),
            stats: p.pmtu.stats,
        })
    }
}
