//! Dynamic address reconfiguration, RFC 5061: the state of our own address
//! requests (ASCONF sender, section 5.1) and of the peer's (ASCONF receiver,
//! section 5.2), and the address rules both sides apply.

use std::collections::VecDeque;
use std::net::IpAddr;

use crate::Time;
use crate::wire::{AsconfAckChunk, AsconfChunk, ErrorCause, Param};

/// How a local address takes part in the association.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalAddrState {
    /// Known to the peer; usable as a source.
    Available,
    /// Add IP requested, not yet acknowledged: not used as a source
    /// (section 5.1, unless no other address can be used).
    AddPending,
    /// Delete IP requested, not yet acknowledged: packets to it are still
    /// accepted; not used as a source unless nothing else is left.
    DeletePending,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalAddr {
    pub addr: IpAddr,
    pub state: LocalAddrState,
}

/// One request of ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    Add(IpAddr),
    Delete(IpAddr),
    SetPrimary(IpAddr),
}

impl Request {
    pub fn to_param(self, correlation_id: u32) -> Param {
        match self {
            Request::Add(address) => Param::AddIpAddress {
                correlation_id,
                address,
            },
            Request::Delete(address) => Param::DeleteIpAddress {
                correlation_id,
                address,
            },
            Request::SetPrimary(address) => Param::SetPrimaryAddress {
                correlation_id,
                address,
            },
        }
    }

    pub fn address(self) -> IpAddr {
        match self {
            Request::Add(a) | Request::Delete(a) | Request::SetPrimary(a) => a,
        }
    }
}

/// An ASCONF of ours waiting for its ASCONF-ACK.
#[derive(Debug, Clone)]
pub struct OutstandingAsconf {
    pub chunk: AsconfChunk,
    pub requests: Vec<(u32, Request)>,
    /// Path index it was last sent to.
    pub path: usize,
    /// Local address it was sent from.
    pub source: Option<IpAddr>,
    /// T4-RTO deadline; `None` until first sent.
    pub deadline: Option<Time>,
    pub transmissions: u32,
}

/// ADD-IP state of one association.
#[derive(Debug, Clone)]
pub struct AsconfState {
    /// Both sides announced ADD-IP and AUTH is in use.
    pub enabled: bool,
    /// The peer answered Add IP or Delete IP with "unrecognized
    /// parameter": send neither again (RFC 5061 section 5.3, rule F3a).
    pub add_delete_refused: bool,
    /// The peer answered Set Primary with "unrecognized parameter": send
    /// it no more (rule F3b).
    pub set_primary_refused: bool,
    pending: VecDeque<Request>,
    pub outstanding: Option<OutstandingAsconf>,
    next_serial: u32,
    next_correlation: u32,
    /// Serial number of the last peer ASCONF processed.
    pub peer_serial: u32,
    /// The last ASCONF-ACK we sent, for a retransmitted ASCONF.
    pub cached_ack: Option<AsconfAckChunk>,
    max_pending: usize,
}

/// Why a request was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AsconfError {
    #[error("the peer does not support ADD-IP (or AUTH is not in use)")]
    NotSupported,
    #[error("too many address requests are pending")]
    QueueFull,
    #[error("the address is not valid for this request")]
    BadAddress,
    #[error("the last address of an association cannot be deleted")]
    LastAddress,
}

impl AsconfState {
    /// `local_initial_tsn` / `peer_initial_tsn`: serial numbers start at
    /// the Initial TSNs (section 4.1, rule A2).
    pub fn new(
        enabled: bool,
        local_initial_tsn: u32,
        peer_initial_tsn: u32,
        max_pending: usize,
    ) -> Self {
        AsconfState {
            enabled,
            add_delete_refused: false,
            set_primary_refused: false,
            pending: VecDeque::new(),
            outstanding: None,
            next_serial: local_initial_tsn,
            next_correlation: 1,
            peer_serial: peer_initial_tsn.wrapping_sub(1),
            cached_ack: None,
            max_pending,
        }
    }

    pub fn queue(&mut self, r: Request) -> Result<(), AsconfError> {
        if !self.enabled {
            return Err(AsconfError::NotSupported);
        }
        if self.pending.len() >= self.max_pending {
            return Err(AsconfError::QueueFull);
        }
        self.pending.push_back(r);
        Ok(())
    }

    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    pub fn pending(&self) -> impl Iterator<Item = &Request> {
        self.pending.iter()
    }

    /// Removes queued (not yet sent) requests matching `f`; whether any
    /// was.
    pub fn cancel_pending(&mut self, f: impl Fn(&Request) -> bool) -> bool {
        let before = self.pending.len();
        self.pending.retain(|r| !f(r));
        self.pending.len() < before
    }

    /// Is `r` in the ASCONF waiting for its ASCONF-ACK?
    pub fn in_flight(&self, r: Request) -> bool {
        self.outstanding
            .as_ref()
            .is_some_and(|o| o.requests.iter().any(|(_, x)| *x == r))
    }

    /// Builds the next ASCONF from all queued requests when none is
    /// outstanding (rule A3: one at a time). `address` locates the
    /// association at the peer (an address the peer knows, RFC 5061
    /// section 4.1.1).
    ///
    /// A Delete of `address` itself waits for the next ASCONF (unless it
    /// is all there is to send): the Address Parameter must find the
    /// association at the peer both before and after the peer processes
    /// the request. An ASCONF that deleted its own Address Parameter,
    /// retransmitted after its ASCONF-ACK was lost from a source the peer
    /// has not heard of (a single-radio mobile that moved again), would
    /// name an address the peer had just deleted: out of the blue to it
    /// (section 5.2), answered with an ABORT.
    pub fn start_next(&mut self, address: IpAddr, max_params: usize) -> Option<&OutstandingAsconf> {
        if self.outstanding.is_some() || self.pending.is_empty() {
            return None;
        }
        let own_delete = Request::Delete(address);
        let deferred = self.pending.len() > 1 && self.pending.contains(&own_delete);
        if deferred {
            self.pending.retain(|r| *r != own_delete);
        }
        let mut requests = Vec::new();
        while requests.len() < max_params.max(1) {
            let Some(r) = self.pending.pop_front() else {
                break;
            };
            let id = self.next_correlation;
            self.next_correlation = self.next_correlation.wrapping_add(1).max(1);
            requests.push((id, r));
        }
        let chunk = AsconfChunk {
            serial: self.next_serial,
            address,
            params: requests.iter().map(|&(id, r)| r.to_param(id)).collect(),
        };
        self.next_serial = self.next_serial.wrapping_add(1);
        if deferred {
            self.pending.push_front(own_delete);
        }
        self.outstanding = Some(OutstandingAsconf {
            chunk,
            requests,
            path: 0,
            source: None,
            deadline: None,
            transmissions: 0,
        });
        self.outstanding.as_ref()
    }

    /// Matches an ASCONF-ACK to the outstanding request (section 5.3):
    /// returns, for each request, `Ok(())` or the error causes reported.
    /// `None` when the ACK is not for the outstanding serial (ignored).
    #[allow(clippy::type_complexity)]
    pub fn on_ack(
        &mut self,
        ack: &AsconfAckChunk,
    ) -> Option<Vec<(Request, Result<(), Vec<ErrorCause>>)>> {
        let out = self.outstanding.as_ref()?;
        if out.chunk.serial != ack.serial {
            return None;
        }
        let out = self.outstanding.take()?;
        let mut results = Vec::with_capacity(out.requests.len());
        for (id, r) in out.requests {
            let causes = ack.params.iter().find_map(|p| match p {
                Param::ErrorCauseIndication {
                    correlation_id,
                    causes,
                } if *correlation_id == id => Some(causes.clone()),
                _ => None,
            });
            results.push((r, causes.map_or(Ok(()), Err)));
        }
        Some(results)
    }

    /// The peer does not know ASCONF at all: every outstanding and queued
    /// request fails.
    pub fn disable(&mut self) -> Vec<Request> {
        self.enabled = false;
        let mut failed: Vec<Request> = self
            .outstanding
            .take()
            .map(|o| o.requests.into_iter().map(|(_, r)| r).collect())
            .unwrap_or_default();
        failed.extend(self.pending.drain(..));
        failed
    }
}

/// Addresses that can never be an SCTP transport address of a peer
/// (RFC 5061 section 5.2: broadcast and multicast are refused).
pub fn is_unusable_peer_address(a: &IpAddr) -> bool {
    match a {
        IpAddr::V4(v4) => v4.is_broadcast() || v4.is_multicast(),
        IpAddr::V6(v6) => v6.is_multicast(),
    }
}

/// The unspecified address (0.0.0.0 / ::), the "wildcard" of RFC 5061
/// section 4.2.1, 4.2.2 and 4.2.4: it stands for the packet's source.
pub fn is_wildcard(a: &IpAddr) -> bool {
    a.is_unspecified()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn one_request_outstanding_with_serials_from_initial_tsn() {
        let mut s = AsconfState::new(true, 1000, 5000, 8);
        assert_eq!(s.peer_serial, 4999);
        s.queue(Request::Add(ip("10.1.0.1"))).unwrap();
        s.queue(Request::SetPrimary(ip("10.1.0.1"))).unwrap();
        let o = s.start_next(ip("10.0.0.1"), 8).unwrap();
        assert_eq!(o.chunk.serial, 1000);
        assert_eq!(o.chunk.params.len(), 2);
        assert!(matches!(
            o.chunk.params[0],
            Param::AddIpAddress {
                correlation_id: 1,
                ..
            }
        ));
        s.queue(Request::Delete(ip("10.0.0.1"))).unwrap();
        assert!(
            s.start_next(ip("10.0.0.1"), 8).is_none(),
            "one outstanding at a time"
        );
        // Wrong serial is ignored.
        assert!(
            s.on_ack(&AsconfAckChunk {
                serial: 999,
                params: vec![]
            })
            .is_none()
        );
        let r = s
            .on_ack(&AsconfAckChunk {
                serial: 1000,
                params: vec![Param::ErrorCauseIndication {
                    correlation_id: 2,
                    causes: vec![ErrorCause::IllegalAsconfAck],
                }],
            })
            .unwrap();
        assert_eq!(r[0], (Request::Add(ip("10.1.0.1")), Ok(())));
        assert!(r[1].1.is_err());
        let o = s.start_next(ip("10.0.0.1"), 8).unwrap();
        assert_eq!(o.chunk.serial, 1001);
        assert_eq!(o.requests[0].0, 3);
    }

    /// A single-radio move (Add new, Delete old, Set Primary new, located
    /// by the old address): the Delete of the Address Parameter itself
    /// waits for the next ASCONF, located by the new address.
    #[test]
    fn an_asconf_never_deletes_its_own_address_parameter() {
        let (old, new) = (ip("10.0.0.1"), ip("10.1.0.1"));
        let mut s = AsconfState::new(true, 1000, 5000, 8);
        for r in [
            Request::Add(new),
            Request::Delete(old),
            Request::SetPrimary(new),
        ] {
            s.queue(r).unwrap();
        }
        let o = s.start_next(old, 8).unwrap();
        let kinds: Vec<Request> = o.requests.iter().map(|(_, r)| *r).collect();
        assert_eq!(kinds, [Request::Add(new), Request::SetPrimary(new)]);
        assert_eq!(
            s.pending().copied().collect::<Vec<_>>(),
            [Request::Delete(old)]
        );
        s.on_ack(&AsconfAckChunk {
            serial: 1000,
            params: vec![],
        })
        .unwrap();
        let o = s.start_next(new, 8).unwrap();
        assert_eq!(o.chunk.address, new);
        assert_eq!(o.requests[0].1, Request::Delete(old));
        // All there is to send: it goes (a peer that can resolve nothing
        // else would never hear of it otherwise).
        let mut s = AsconfState::new(true, 1, 1, 8);
        s.queue(Request::Delete(old)).unwrap();
        assert!(s.start_next(old, 8).is_some());
    }

    #[test]
    fn queue_is_bounded_and_needs_support() {
        let mut s = AsconfState::new(false, 1, 1, 1);
        assert_eq!(
            s.queue(Request::Add(ip("10.0.0.1"))),
            Err(AsconfError::NotSupported)
        );
        s.enabled = true;
        s.queue(Request::Add(ip("10.0.0.1"))).unwrap();
        assert_eq!(
            s.queue(Request::Add(ip("10.0.0.2"))),
            Err(AsconfError::QueueFull)
        );
        assert_eq!(s.disable().len(), 1);
    }

    #[test]
    fn address_classes() {
        assert!(is_unusable_peer_address(&ip("255.255.255.255")));
        assert!(is_unusable_peer_address(&ip("224.0.0.1")));
        assert!(is_unusable_peer_address(&ip("ff02::1")));
        assert!(!is_unusable_peer_address(&ip("10.0.0.1")));
        assert!(is_wildcard(&ip("0.0.0.0")) && is_wildcard(&ip("::")));
    }
}
