//! The peer index: which association a packet from a peer transport
//! address (address, port) belongs to (RFC 9260 section 5.1.2, the
//! implementation note: "the IP addresses and SCTP port are generally
//! used as the key to find the TCB").
//!
//! An address belongs to at most one association. The rule that keeps
//! associations from stealing each other's addresses (issue 19) lives
//! here: an entry held by a live association is never re-pointed; only
//! an entry of a closed association (or of none) can be taken.

use std::collections::HashMap;
use std::net::IpAddr;

use rustc_hash::FxHashMap;

use super::AssocId;

/// (peer address, peer port) -> association, and the reverse.
///
/// `by_peer` is keyed by what peers choose (their addresses and ports) and
/// keeps the standard library's keyed SipHash, which a peer cannot flood
/// with colliding keys; `held` is keyed by the endpoint's own association
/// ids and uses a fast unkeyed hash.
///
/// `last` remembers the last entry [`PeerIndex::find`] found: consecutive
/// packets mostly come from one peer address, and it saves hashing the key
/// with SipHash for each of them. Any change to the index forgets it.
///
/// `departed` keeps, per association, the last [`DEPARTED`] addresses its
/// peer deleted (ASCONF Delete IP, RFC 5061 section 4.2.2): the peer may
/// use such an address until our ASCONF-ACK reaches it, and its packets
/// sent meanwhile arrive after the deletion. Looked up by address alone
/// they would be out of the blue and answered with an ABORT that the peer
/// accepts (RFC 9260 sections 8.4 and 8.5.1): a handover under load lost
/// its association that way. [`PeerIndex::departed`] gives them to their
/// association, which the caller checks by the verification tag.
#[derive(Debug, Clone, Default)]
pub(super) struct PeerIndex {
    by_peer: HashMap<(IpAddr, u16), AssocId>,
    /// What each association holds: its peer port and addresses.
    held: FxHashMap<AssocId, (u16, Vec<IpAddr>)>,
    departed: FxHashMap<AssocId, Vec<(IpAddr, u16)>>,
    /// The same, keyed by what peers choose (SipHash, as `by_peer`): a
    /// lookup is one probe, not a walk over every association.
    departed_by: HashMap<(IpAddr, u16), AssocId>,
    last: Option<(IpAddr, u16, AssocId)>,
}

/// Deleted peer addresses remembered per association.
const DEPARTED: usize = 4;

impl PeerIndex {
    pub(super) fn get(&self, addr: IpAddr, port: u16) -> Option<AssocId> {
        match self.last {
            Some((a, p, id)) if a == addr && p == port => Some(id),
            _ => self.by_peer.get(&(addr, port)).copied(),
        }
    }

    /// [`PeerIndex::get`] for a received packet: the entry found is
    /// remembered for the next one.
    pub(super) fn find(&mut self, addr: IpAddr, port: u16) -> Option<AssocId> {
        let found = self.get(addr, port);
        if let Some(id) = found {
            self.last = Some((addr, port, id));
        }
        found
    }

    /// The association whose peer deleted `addr` (at `port`) lately, if
    /// no association holds it now.
    pub(super) fn departed(&self, addr: IpAddr, port: u16) -> Option<AssocId> {
        if self.get(addr, port).is_some() {
            return None;
        }
        self.departed_by.get(&(addr, port)).copied()
    }

    /// Forgets that `id`'s peer deleted `key`.
    fn forget_departed(&mut self, id: AssocId, key: (IpAddr, u16)) {
        if self.departed_by.get(&key) == Some(&id) {
            self.departed_by.remove(&key);
        }
    }

    /// Does `id` hold exactly `addrs` (in this order) at `port`?
    pub(super) fn holds(
        &self,
        id: AssocId,
        port: u16,
        addrs: impl ExactSizeIterator<Item = IpAddr>,
    ) -> bool {
        self.held.get(&id).is_some_and(|(p, a)| {
            *p == port && a.len() == addrs.len() && a.iter().copied().eq(addrs)
        })
    }

    /// The associations that hold any of `addrs` at `port` and for which
    /// `counts(association, address)` holds, each once, in the order of
    /// `addrs`.
    pub(super) fn owners(
        &self,
        addrs: &[IpAddr],
        port: u16,
        counts: impl Fn(AssocId, IpAddr) -> bool,
    ) -> Vec<AssocId> {
        let mut out: Vec<AssocId> = Vec::new();
        for a in addrs {
            if let Some(id) = self.get(*a, port)
                && counts(id, *a)
                && !out.contains(&id)
            {
                out.push(id);
            }
        }
        out
    }

    /// Makes `id` hold exactly `addrs` at `port`. An address held by
    /// another association is taken only when `may_take(holder, address)`
    /// allows it (the holder is gone, or holds it only on the peer's
    /// word); otherwise it stays where it is and is returned.
    pub(super) fn set(
        &mut self,
        id: AssocId,
        port: u16,
        addrs: &[IpAddr],
        may_take: impl Fn(AssocId, IpAddr) -> bool,
    ) -> Vec<IpAddr> {
        // Forgotten first, so that the lookups below read the map as it
        // changes.
        self.last = None;
        let old = self.held.remove(&id).map(|(_, a)| a).unwrap_or_default();
        for addr in &old {
            if !addrs.contains(addr) && self.get(*addr, port) == Some(id) {
                self.by_peer.remove(&(*addr, port));
                let gone = self.departed.entry(id).or_default();
                let oldest = (gone.len() == DEPARTED).then(|| gone.remove(0));
                gone.push((*addr, port));
                if let Some(key) = oldest {
                    self.forget_departed(id, key);
                }
                self.departed_by.insert((*addr, port), id);
            }
        }
        if let Some(gone) = self.departed.get_mut(&id) {
            let back: Vec<(IpAddr, u16)> = gone
                .iter()
                .filter(|(a, p)| *p == port && addrs.contains(a))
                .copied()
                .collect();
            gone.retain(|k| !back.contains(k));
            for key in back {
                self.forget_departed(id, key);
            }
        }
        let mut refused = Vec::new();
        let mut kept = Vec::with_capacity(addrs.len());
        for addr in addrs {
            match self.get(*addr, port) {
                Some(other) if other != id && !may_take(other, *addr) => refused.push(*addr),
                _ => {
                    self.by_peer.insert((*addr, port), id);
                    kept.push(*addr);
                }
            }
        }
        self.held.insert(id, (port, kept));
        refused
    }

    /// Forgets `id`: the entries it still holds are removed.
    pub(super) fn remove(&mut self, id: AssocId) {
        self.last = None;
        for key in self.departed.remove(&id).unwrap_or_default() {
            self.forget_departed(id, key);
        }
        if let Some((port, addrs)) = self.held.remove(&id) {
            for addr in addrs {
                if self.get(addr, port) == Some(id) {
                    self.by_peer.remove(&(addr, port));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_live_owner_keeps_its_address_and_a_closed_one_gives_it_up() {
        let mut x = PeerIndex::default();
        let (m1, m2) = (ip("10.0.0.1"), ip("10.0.0.2"));
        assert!(x.set(AssocId(1), 5000, &[m1], |_, _| false).is_empty());
        // Another association asks for m1 and m2: m1 stays with 1.
        assert_eq!(x.set(AssocId(2), 5000, &[m1, m2], |_, _| false), vec![m1]);
        assert_eq!(x.get(m1, 5000), Some(AssocId(1)));
        assert_eq!(x.get(m2, 5000), Some(AssocId(2)));
        // The same address on another port is another transport address.
        assert!(x.set(AssocId(3), 5001, &[m1], |_, _| false).is_empty());
        assert_eq!(
            x.owners(&[m2, m1, m2], 5000, |_, _| true),
            [AssocId(2), AssocId(1)]
        );
        assert_eq!(
            x.owners(&[m1, m2], 5000, |id, _| id != AssocId(1)),
            [AssocId(2)]
        );
        // 1 closed: 2 may take m1; removing 1 later leaves 2's entry alone.
        assert!(
            x.set(AssocId(2), 5000, &[m1, m2], |id, _| id == AssocId(1))
                .is_empty()
        );
        x.remove(AssocId(1));
        assert_eq!(x.get(m1, 5000), Some(AssocId(2)));
        // Dropping an address releases it.
        x.set(AssocId(2), 5000, &[m2], |_, _| false);
        assert_eq!(x.get(m1, 5000), None);
        x.remove(AssocId(2));
        assert_eq!(x.get(m2, 5000), None);
        assert_eq!(x.get(m1, 5001), Some(AssocId(3)));
    }

    #[test]
    fn an_address_the_peer_deleted_is_remembered_until_someone_holds_it() {
        let mut x = PeerIndex::default();
        let (m1, m2) = (ip("10.0.0.1"), ip("10.0.0.2"));
        x.set(AssocId(1), 5000, &[m1, m2], |_, _| false);
        assert_eq!(x.departed(m1, 5000), None, "still held");
        // The peer deleted m1.
        x.set(AssocId(1), 5000, &[m2], |_, _| false);
        assert_eq!(x.get(m1, 5000), None);
        assert_eq!(x.departed(m1, 5000), Some(AssocId(1)));
        assert_eq!(x.departed(m1, 5001), None, "another port");
        // Another association now holds it: that one is asked first.
        x.set(AssocId(2), 5000, &[m1], |_, _| false);
        assert_eq!(x.departed(m1, 5000), None);
        x.remove(AssocId(2));
        // The peer adds it back: no longer departed; deleted again, then
        // the association ends: forgotten.
        x.set(AssocId(1), 5000, &[m1, m2], |_, _| false);
        assert_eq!(x.departed(m1, 5000), None);
        x.set(AssocId(1), 5000, &[m2], |_, _| false);
        assert_eq!(x.departed(m1, 5000), Some(AssocId(1)));
        x.remove(AssocId(1));
        assert_eq!(x.departed(m1, 5000), None);
        // Bounded: only the last DEPARTED deletions are kept.
        let many: Vec<IpAddr> = (1..=10).map(|i| ip(&format!("10.1.0.{i}"))).collect();
        x.set(AssocId(3), 5000, &many, |_, _| false);
        x.set(AssocId(3), 5000, &many[9..], |_, _| false);
        let kept = many[..9]
            .iter()
            .filter(|a| x.departed(**a, 5000).is_some())
            .count();
        assert_eq!(kept, DEPARTED);
    }

    #[test]
    fn the_remembered_lookup_never_outlives_a_change() {
        let mut x = PeerIndex::default();
        let (m1, m2) = (ip("10.0.0.1"), ip("10.0.0.2"));
        x.set(AssocId(1), 5000, &[m1], |_, _| false);
        // Found (and remembered), then closed and taken by 2.
        assert_eq!(x.find(m1, 5000), Some(AssocId(1)));
        x.set(AssocId(2), 5000, &[m1], |id, _| id == AssocId(1));
        assert_eq!(x.find(m1, 5000), Some(AssocId(2)));
        // Remembered for 2, then 2 is removed: nobody holds it.
        x.remove(AssocId(2));
        assert_eq!(x.find(m1, 5000), None);
        // Remembered, then its holder drops it for another address.
        x.set(AssocId(3), 5000, &[m1], |_, _| false);
        assert_eq!(x.find(m1, 5000), Some(AssocId(3)));
        x.set(AssocId(3), 5000, &[m2], |_, _| false);
        assert_eq!(x.find(m1, 5000), None);
        assert_eq!(x.find(m1, 5001), None);
    }
}
