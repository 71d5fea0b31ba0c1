//! Which association a received packet belongs to.
//!
//! Ordinary packets are found by their source transport address (RFC
//! 9260 section 8.5), an ASCONF from a new address by its Address
//! Parameter and tag (RFC 5061 section 5.2), an INIT ACK from another
//! address of the peer by its tag (section 5.1).
//!
//! Set-up chunks are matched by every address they name, not only by
//! their source (section 5.1.2 rule D: an INIT "MUST be treated as
//! belonging to an already established association ... if the use of any
//! of the valid address parameters contained within the chunk would
//! identify an existing TCB"). An INIT or COOKIE ECHO that names an
//! address of a live association goes to that association, which answers
//! as section 5.2 says; it never creates a second association that would
//! take the address (issue 19).

use std::net::IpAddr;
use std::ops::Range;

use bytes::Bytes;

use super::{AssocId, Endpoint};
use crate::association::{State, announced_addresses};
use crate::cookie::CookieState;
use crate::wire::chunk::chunk_type;
use crate::wire::{Chunk, ChunkIndex, InitChunk, Param};

/// Where a received packet goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Route {
    Association(AssocId),
    /// No association: the out-of-the-blue rules (section 8.4), which
    /// answer an INIT and turn a valid cookie into an association.
    None,
    /// Dropped, and counted.
    Discard,
}

/// Every address an INIT lists (section 3.3.2.1), before any rule of
/// which ones are used: matching by a superset is the safe side.
fn listed_addresses(init: &InitChunk) -> Vec<IpAddr> {
    init.params
        .iter()
        .filter_map(|p| match p {
            Param::Ipv4Address(a) => Some(IpAddr::V4(*a)),
            Param::Ipv6Address(a) => Some(IpAddr::V6(*a)),
            _ => None,
        })
        .collect()
}

impl Endpoint {
    /// An association that still exists for its peer: one that is closed
    /// keeps its index entries only until another needs them.
    pub(super) fn is_live(&self, id: AssocId) -> bool {
        self.assocs
            .get(&id)
            .is_some_and(|a| a.state() != State::Closed)
    }

    /// Does live association `id` hold `addr` as its peer's on better
    /// ground than the peer's word ([`Association::vouches_for`])? Only
    /// such an address routes set-up chunks: an address an attacker
    /// listed in its own INIT cannot claim a future client's INIT or
    /// COOKIE ECHO, nor let it restart the attacker's association.
    ///
    /// [`Association::vouches_for`]: crate::Association
    pub(super) fn vouches(&self, id: AssocId, addr: IpAddr) -> bool {
        self.assocs
            .get(&id)
            .is_some_and(|a| a.state() != State::Closed && a.vouches_for(addr))
    }

    /// Ordinary packets: by peer address and port, else by an address the
    /// peer deleted lately plus the verification tag, else by an ASCONF's
    /// Address Parameter plus the verification tag (RFC 5061 section
    /// 5.2), else by tag for an INIT ACK coming from another address of
    /// the peer (RFC 9260 section 5.1).
    pub(super) fn lookup(
        &mut self,
        data: &Bytes,
        src: IpAddr,
        sport: u16,
        vtag: u32,
        chunks: &ChunkIndex,
    ) -> Route {
        if let Some(id) = self.index.find(src, sport) {
            return Route::Association(id);
        }
        // Sent from an address before its deletion reached us: its own
        // association, if the tag proves it (see `PeerIndex::departed`).
        if let Some(id) = self.index.departed(src, sport)
            && self
                .assocs
                .get(&id)
                .is_some_and(|x| x.state() != State::Closed && x.local_tag() == vtag)
        {
            return Route::Association(id);
        }
        if let Some(c) = chunks.find(chunk_type::ASCONF)
            && let Ok(Chunk::Asconf(a)) = Chunk::parse(&data.slice(c.range.clone()))
            && let Some(id) = self.index.get(a.address, sport)
            && self.assocs.get(&id).is_some_and(|x| x.local_tag() == vtag)
        {
            return Route::Association(id);
        }
        if chunks
            .first()
            .is_some_and(|c| c.chunk_type == chunk_type::INIT_ACK)
            && let Some(id) = self.connecting.iter().find(|id| {
                self.assocs.get(id).is_some_and(|a| {
                    a.local_tag() == vtag
                        && a.peer_port() == sport
                        && a.state() == State::CookieWait
                })
            })
        {
            return Route::Association(*id);
        }
        Route::None
    }

    /// Reads an INIT's address list before anything else is done with it:
    /// one that lists more than `Limits::max_init_addresses` addresses is
    /// refused at once with an ABORT carrying "Out of Resource", tagged
    /// with its Initiate Tag (RFC 9260 section 5.1), and `None` returned.
    /// An INIT that does not decode lists nothing here (the rules for it
    /// apply later).
    pub(super) fn screen_init(
        &mut self,
        data: &Bytes,
        src: IpAddr,
        dst: IpAddr,
        sport: u16,
        r: Range<usize>,
    ) -> Option<Vec<IpAddr>> {
        let Ok(Chunk::Init(init)) = Chunk::parse(&data.slice(r)) else {
            return Some(Vec::new());
        };
        let max = self.cfg.association.limits.max_init_addresses;
        if let Err(e) = crate::association::check_address_count(&init, max) {
            self.stats.inits_refused += 1;
            self.stats.init_address_limit_refusals += 1;
            if init.initiate_tag != 0 {
                let cause = crate::association::init_error_cause(&e, &init);
                self.abort_init(dst, src, sport, init.initiate_tag, vec![cause]);
            }
            return None;
        }
        Some(listed_addresses(&init))
    }

    /// An INIT goes to the live association that holds its source or any
    /// address it lists (the source's first); that association answers
    /// as section 5.2.1 or 5.2.2 says, refusing an INIT that would add
    /// addresses. An INIT naming only addresses of closed associations
    /// (or none) is answered statelessly.
    pub(super) fn route_init(&self, src: IpAddr, sport: u16, listed: &[IpAddr]) -> Route {
        let addrs = announced_addresses(src, listed);
        match self
            .index
            .owners(&addrs, sport, |id, a| self.vouches(id, a))
            .first()
        {
            Some(id) => Route::Association(*id),
            None => Route::None,
        }
    }

    /// A COOKIE ECHO (its signature verified) must come from an address
    /// of the INIT it answers, and goes to the live association that
    /// holds any address of that INIT, where section 5.2.4's table
    /// decides; with no such association it may create one. A cookie
    /// naming addresses of two associations matches neither and is
    /// dropped.
    pub(super) fn route_cookie(&mut self, src: IpAddr, sport: u16, c: &CookieState) -> Route {
        if c.peer_port != sport {
            self.stats.bad_cookies += 1;
            return Route::Discard;
        }
        let listed = match Chunk::parse(&c.peer_init) {
            Ok(Chunk::Init(i)) => listed_addresses(&i),
            _ => Vec::new(),
        };
        let addrs = announced_addresses(c.init_src, &listed);
        if !addrs.contains(&src) {
            // A replay from elsewhere (issue 19, H2): the peer answers
            // from an address it announced.
            self.stats.foreign_cookies += 1;
            return Route::Discard;
        }
        let owners = self
            .index
            .owners(&addrs, sport, |id, a| self.vouches(id, a));
        match owners[..] {
            [] => Route::None,
            [id] => Route::Association(id),
            _ => {
                self.stats.foreign_cookies += 1;
                Route::Discard
            }
        }
    }
}
