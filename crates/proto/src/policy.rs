//! Handover policies (docs/MODELS.md section 3): who decides when a mobile
//! host adds an address to its associations, makes one primary, and
//! deletes one.
//!
//! A policy is fed link-layer and IP-layer events about the host's
//! interfaces ([`LinkEvent`], from the simulator's radio model or from the
//! real interface monitor) and may look at the association's path
//! statistics; it answers with [`Decision`]s, which [`apply`] carries out
//! on an association (ASCONF Add IP / Set Primary / Delete IP plus the
//! local source-address choice, or the choice of the peer address data
//! goes to).
//!
//! Drivers call [`HandoverPolicy::on_link_event`] for every link event,
//! [`HandoverPolicy::on_association_event`] for every association event
//! and [`HandoverPolicy::poll`] whenever the association has processed
//! input or timers (policies that watch the path estimators, [`Aisle`],
//! decide there).

mod aisle;

pub use aisle::{Aisle, AisleParams, AisleRule, AisleStats, Congestion, PathView};

use std::collections::BTreeMap;
use std::net::IpAddr;

use crate::Time;
use crate::asconf::LocalAddrState;
use crate::association::{AddressError, Association, Event};

/// A local network interface, numbered by the host.
pub type IfaceId = u32;

/// What the link and IP layers report about a local interface.
#[derive(Debug, Clone, PartialEq)]
pub enum LinkEvent {
    /// Beacons of a new access point are heard (after the decision latency).
    BeaconDetected {
        iface: IfaceId,
    },
    /// Beacons stopped (after the decision latency).
    BeaconLost {
        iface: IfaceId,
    },
    /// Received power of the serving access point, in watts.
    SignalSample {
        iface: IfaceId,
        power_w: f64,
    },
    LinkUp {
        iface: IfaceId,
    },
    /// The link layer expects the link to fail soon.
    LinkGoingDown {
        iface: IfaceId,
    },
    LinkDown {
        iface: IfaceId,
    },
    /// The interface got an address (router discovery, DHCP, ... done).
    AddressObtained {
        iface: IfaceId,
        addr: IpAddr,
    },
    AddressLost {
        iface: IfaceId,
        addr: IpAddr,
    },
}

/// What a policy asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Add a local address to the association (ASCONF Add IP).
    Add(IpAddr),
    /// Make a local address the one data travels on: the peer is asked to
    /// send to it (ASCONF Set Primary) and we send from it.
    MakePrimary(IpAddr),
    /// Delete a local address (ASCONF Delete IP).
    Delete(IpAddr),
    /// Send new data to this peer address from now on (the sender's own
    /// choice of primary path, RFC 9260 section 6.4; no ASCONF).
    UsePath(IpAddr),
}

/// A handover policy.
pub trait HandoverPolicy {
    /// A short name for reports.
    fn name(&self) -> &'static str;

    /// A link- or IP-layer event about one of the host's interfaces.
    fn on_link_event(&mut self, now: Time, event: &LinkEvent, assoc: &Association)
    -> Vec<Decision>;

    /// An association event (path down, address confirmed, ...).
    fn on_association_event(
        &mut self,
        _now: Time,
        _event: &Event,
        _assoc: &Association,
    ) -> Vec<Decision> {
        Vec::new()
    }

    /// The association processed input or timers: its path statistics may
    /// have changed.
    fn poll(&mut self, _now: Time, _assoc: &Association) -> Vec<Decision> {
        Vec::new()
    }

    /// Whether [`poll`](Self::poll) can decide anything (false for a
    /// policy that keeps the default, which decides nothing): a driver
    /// need not poll again after changes of its own that no input caused.
    fn polls(&self) -> bool {
        false
    }

    /// Whether the policy reads [`LinkEvent::SignalSample`]s (decides on
    /// signal strength): a driver need not hand samples to one that does
    /// not (the default).
    fn reads_signal(&self) -> bool {
        false
    }

    /// The policy's own counters, for reports (name, value); none by
    /// default.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

/// What a policy knows about each interface.
#[derive(Debug, Clone, Default)]
struct IfaceInfo {
    addr: Option<IpAddr>,
    power_w: Option<f64>,
    link_up: bool,
    /// The last link event said down (unlike `!link_up`, false for an
    /// interface never reported either way).
    link_down: bool,
}

/// Bookkeeping shared by the policies: interface addresses and signal, and
/// an address lost while it was the association's only one (the
/// single-homed move of docs/MODELS.md 1.2: it is deleted in the same ASCONF
/// that adds the new address).
#[derive(Debug, Clone, Default)]
struct Tracker {
    ifaces: BTreeMap<IfaceId, IfaceInfo>,
    orphaned: Vec<IpAddr>,
}

impl Tracker {
    fn update(&mut self, ev: &LinkEvent) {
        match *ev {
            LinkEvent::SignalSample { iface, power_w } => {
                self.ifaces.entry(iface).or_default().power_w = Some(power_w)
            }
            LinkEvent::LinkUp { iface } => {
                let i = self.ifaces.entry(iface).or_default();
                i.link_up = true;
                i.link_down = false;
            }
            LinkEvent::LinkDown { iface } => {
                let i = self.ifaces.entry(iface).or_default();
                i.link_up = false;
                i.link_down = true;
                i.power_w = None;
            }
            LinkEvent::AddressObtained { iface, addr } => {
                self.ifaces.entry(iface).or_default().addr = Some(addr)
            }
            LinkEvent::AddressLost { iface, addr } => {
                let i = self.ifaces.entry(iface).or_default();
                if i.addr == Some(addr) {
                    i.addr = None;
                }
            }
            _ => {}
        }
    }

    fn iface_of(&self, addr: IpAddr) -> Option<IfaceId> {
        self.ifaces
            .iter()
            .find(|(_, i)| i.addr == Some(addr))
            .map(|(k, _)| *k)
    }

    fn power_of(&self, addr: IpAddr) -> Option<f64> {
        self.iface_of(addr).and_then(|k| self.ifaces[&k].power_w)
    }

    /// Has the signal under `addr` fallen below `threshold_w`? A link that
    /// is down has none; an address whose link is up but not sampled yet
    /// (a driver reports the first beacon a moment after the address), or
    /// whose interface reports no signal at all (a wired one), is not
    /// judged: the rule is about signal that fell, not about signal not
    /// yet heard.
    fn signal_below(&self, addr: IpAddr, threshold_w: f64) -> bool {
        let Some(info) = self.iface_of(addr).map(|k| &self.ifaces[&k]) else {
            return false;
        };
        match info.power_w {
            Some(p) => p < threshold_w,
            None => !info.link_up,
        }
    }

    /// Is `addr` on an interface whose link was last reported down?
    fn on_down_link(&self, addr: IpAddr) -> bool {
        self.iface_of(addr)
            .is_some_and(|k| self.ifaces[&k].link_down)
    }

    /// Deletion of a lost address: now if another address remains on a
    /// link not known to be down, otherwise after the next address is
    /// added. (The ASCONF deleting it would leave from an address on a
    /// dead link, and its ASCONF-ACK, which goes back to the ASCONF's
    /// source address (RFC 5061 section 5.2), would never arrive: the
    /// next Add would wait behind it for good.)
    fn lost(&mut self, addr: IpAddr, assoc: &Association) -> Vec<Decision> {
        if !in_association(assoc, addr) {
            return Vec::new();
        }
        let others = assoc
            .local_addresses()
            .iter()
            .filter(|l| l.addr != addr && l.state != LocalAddrState::DeletePending)
            .filter(|l| !self.on_down_link(l.addr))
            .count();
        if others > 0 {
            vec![Decision::Delete(addr)]
        } else {
            self.orphaned.push(addr);
            Vec::new()
        }
    }

    /// After an Add: delete what was orphaned.
    fn flush_orphans(&mut self) -> Vec<Decision> {
        self.orphaned.drain(..).map(Decision::Delete).collect()
    }
}

fn in_association(assoc: &Association, addr: IpAddr) -> bool {
    assoc
        .local_addresses()
        .iter()
        .any(|l| l.addr == addr && l.state != LocalAddrState::DeletePending)
}

/// Standard SCTP: addresses follow the interfaces (added when obtained,
/// deleted when lost) but the primary never changes by policy; data moves
/// only when path failure detection fails over (PMR + 1 timeouts).
#[derive(Debug, Default)]
pub struct FailoverOnly {
    t: Tracker,
}

impl HandoverPolicy for FailoverOnly {
    fn name(&self) -> &'static str {
        "failover-only"
    }

    fn on_link_event(&mut self, _now: Time, ev: &LinkEvent, assoc: &Association) -> Vec<Decision> {
        self.t.update(ev);
        match *ev {
            LinkEvent::AddressObtained { addr, .. } if !in_association(assoc, addr) => {
                let mut d = vec![Decision::Add(addr)];
                let orphans = self.t.flush_orphans();
                if !orphans.is_empty() {
                    // Single-homed: the new address is the only one left.
                    d.extend(orphans);
                    d.push(Decision::MakePrimary(addr));
                }
                d
            }
            LinkEvent::AddressLost { addr, .. } => self.t.lost(addr, assoc),
            _ => Vec::new(),
        }
    }
}

/// "Make primary as soon as the new address exists": every new address is
/// added and made primary at once; lost addresses are deleted.
#[derive(Debug, Default)]
pub struct NewestAddress {
    t: Tracker,
}

impl HandoverPolicy for NewestAddress {
    fn name(&self) -> &'static str {
        "newest-address"
    }

    fn on_link_event(&mut self, _now: Time, ev: &LinkEvent, assoc: &Association) -> Vec<Decision> {
        self.t.update(ev);
        match *ev {
            LinkEvent::AddressObtained { addr, .. } if !in_association(assoc, addr) => {
                let mut d = vec![Decision::Add(addr)];
                d.extend(self.t.flush_orphans());
                d.push(Decision::MakePrimary(addr));
                d
            }
            LinkEvent::AddressLost { addr, .. } => self.t.lost(addr, assoc),
            _ => Vec::new(),
        }
    }
}

/// Aggressive or conservative, for the Add-IP rule of Koh, Chang and Lee.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum AddRule {
    /// Add a new address as soon as its signal exceeds the Add-IP threshold.
    Aggressive,
    /// Add it only when its signal exceeds that of every current address.
    Conservative,
}

/// The signal-strength rules of docs/MODELS.md section 3 (Koh, Chang and Lee):
/// Add-IP by threshold (aggressive) or by comparison (conservative);
/// delete an address whose signal falls below the Add-IP threshold;
/// change primary, to the address with the best signal, when the
/// primary's signal falls below the Primary-Change threshold (a higher
/// threshold switches earlier: "aggressive").
#[derive(Debug)]
pub struct SignalStrength {
    pub add_rule: AddRule,
    /// Add-IP threshold in watts (also the minimum for data).
    pub add_threshold_w: f64,
    /// Primary-Change threshold in watts.
    pub primary_threshold_w: f64,
    t: Tracker,
    primary: Option<IpAddr>,
}

impl SignalStrength {
    pub fn new(add_rule: AddRule, add_threshold_w: f64, primary_threshold_w: f64) -> Self {
        SignalStrength {
            add_rule,
            add_threshold_w,
            primary_threshold_w,
            t: Tracker::default(),
            primary: None,
        }
    }

    fn evaluate(&mut self, assoc: &Association) -> Vec<Decision> {
        let mut out = Vec::new();
        let members: Vec<IpAddr> = assoc
            .local_addresses()
            .iter()
            .filter(|l| l.state != LocalAddrState::DeletePending)
            .map(|l| l.addr)
            .collect();
        if self.primary.is_none_or(|p| !members.contains(&p)) {
            self.primary = assoc.local_primary().or_else(|| members.first().copied());
        }
        let best_member_power = members
            .iter()
            .filter_map(|a| self.t.power_of(*a))
            .fold(f64::NEG_INFINITY, f64::max);
        // Add rule.
        for info in self.t.ifaces.values() {
            let (Some(addr), Some(p)) = (info.addr, info.power_w) else {
                continue;
            };
            if members.contains(&addr) || out.contains(&Decision::Add(addr)) {
                continue;
            }
            let add = match self.add_rule {
                AddRule::Aggressive => p > self.add_threshold_w,
                AddRule::Conservative => p > self.add_threshold_w && p > best_member_power,
            };
            if add {
                out.push(Decision::Add(addr));
            }
        }
        let added: Vec<IpAddr> = out
            .iter()
            .filter_map(|d| {
                if let Decision::Add(a) = d {
                    Some(*a)
                } else {
                    None
                }
            })
            .collect();
        // Primary change.
        let candidates: Vec<IpAddr> = members.iter().chain(added.iter()).copied().collect();
        let primary_power = self.primary.and_then(|p| self.t.power_of(p));
        if primary_power.is_none_or(|p| p < self.primary_threshold_w) {
            let best = candidates
                .iter()
                .filter_map(|a| self.t.power_of(*a).map(|p| (*a, p)))
                .filter(|(a, _)| Some(*a) != self.primary)
                .max_by(|x, y| x.1.total_cmp(&y.1));
            if let Some((a, p)) = best
                && primary_power.is_none_or(|pp| p > pp)
                && p >= self.add_threshold_w
            {
                out.push(Decision::MakePrimary(a));
                self.primary = Some(a);
            }
        }
        // Delete rule: members whose signal fell below the Add-IP threshold
        // (never the last one, never the primary).
        let mut remaining = candidates.len();
        for a in &members {
            let weak = self.t.signal_below(*a, self.add_threshold_w);
            if weak && Some(*a) != self.primary && remaining > 1 {
                out.push(Decision::Delete(*a));
                remaining -= 1;
            }
        }
        out
    }
}

impl HandoverPolicy for SignalStrength {
    fn name(&self) -> &'static str {
        "signal-strength"
    }

    fn reads_signal(&self) -> bool {
        true
    }

    fn on_link_event(&mut self, _now: Time, ev: &LinkEvent, assoc: &Association) -> Vec<Decision> {
        self.t.update(ev);
        match ev {
            LinkEvent::SignalSample { .. }
            | LinkEvent::AddressObtained { .. }
            | LinkEvent::LinkDown { .. } => self.evaluate(assoc),
            LinkEvent::AddressLost { addr, .. } => {
                let mut d = self.t.lost(*addr, assoc);
                if self.primary == Some(*addr) {
                    self.primary = None;
                    d.extend(
                        self.evaluate(assoc)
                            .into_iter()
                            .filter(|x| !matches!(x, Decision::Delete(_))),
                    );
                }
                d
            }
            _ => Vec::new(),
        }
    }
}

/// Link-layer triggered, fastest network first (docs/MODELS.md section 3):
/// moving to a faster network, add and make primary as soon as the address
/// exists; moving to a slower one, add it but stay on the fast link until
/// its link layer says it is going down, then switch before failover would.
/// A link that comes back up with its address still in the association is
/// a faster network appearing again: it becomes primary if it beats the
/// current one (or the current one's link is down).
#[derive(Debug)]
pub struct FastestFirst {
    /// Nominal rate of each interface's network, bits per second.
    pub rates: BTreeMap<IfaceId, u64>,
    t: Tracker,
}

impl FastestFirst {
    pub fn new(rates: BTreeMap<IfaceId, u64>) -> Self {
        FastestFirst {
            rates,
            t: Tracker::default(),
        }
    }

    fn rate_of(&self, addr: IpAddr) -> u64 {
        self.t
            .iface_of(addr)
            .and_then(|i| self.rates.get(&i).copied())
            .unwrap_or(0)
    }
}

impl HandoverPolicy for FastestFirst {
    fn name(&self) -> &'static str {
        "fastest-first"
    }

    fn on_link_event(&mut self, _now: Time, ev: &LinkEvent, assoc: &Association) -> Vec<Decision> {
        self.t.update(ev);
        match *ev {
            LinkEvent::AddressObtained { addr, .. } if !in_association(assoc, addr) => {
                let mut d = vec![Decision::Add(addr)];
                let orphans = self.t.flush_orphans();
                let current = assoc
                    .local_primary()
                    .or_else(|| assoc.local_addresses().first().map(|l| l.addr));
                let faster = current.is_none_or(|c| self.rate_of(addr) > self.rate_of(c));
                let alone = !orphans.is_empty();
                d.extend(orphans);
                if faster || alone {
                    d.push(Decision::MakePrimary(addr));
                }
                d
            }
            LinkEvent::LinkGoingDown { iface } | LinkEvent::LinkDown { iface } => {
                let Some(addr) = self.t.ifaces.get(&iface).and_then(|i| i.addr) else {
                    return Vec::new();
                };
                let current = assoc
                    .local_primary()
                    .or_else(|| assoc.local_addresses().first().map(|l| l.addr));
                if current != Some(addr) {
                    return Vec::new();
                }
                // Switch to the fastest other address whose link is up.
                let best = assoc
                    .local_addresses()
                    .iter()
                    .filter(|l| l.addr != addr && l.state != LocalAddrState::DeletePending)
                    .filter(|l| {
                        self.t
                            .iface_of(l.addr)
                            .is_some_and(|i| self.t.ifaces[&i].link_up)
                    })
                    .max_by_key(|l| self.rate_of(l.addr))
                    .map(|l| l.addr);
                best.map(|b| vec![Decision::MakePrimary(b)])
                    .unwrap_or_default()
            }
            LinkEvent::LinkUp { iface } => {
                let Some(addr) = self.t.ifaces.get(&iface).and_then(|i| i.addr) else {
                    return Vec::new();
                };
                if !in_association(assoc, addr) {
                    return Vec::new();
                }
                let current = assoc
                    .local_primary()
                    .or_else(|| assoc.local_addresses().first().map(|l| l.addr));
                let Some(current) = current.filter(|c| *c != addr) else {
                    return Vec::new();
                };
                let current_down = self
                    .t
                    .iface_of(current)
                    .is_some_and(|i| !self.t.ifaces[&i].link_up);
                if current_down || self.rate_of(addr) > self.rate_of(current) {
                    vec![Decision::MakePrimary(addr)]
                } else {
                    Vec::new()
                }
            }
            LinkEvent::AddressLost { addr, .. } => self.t.lost(addr, assoc),
            _ => Vec::new(),
        }
    }
}

/// Carries decisions out on an association, in order. Errors (e.g. the
/// peer lacks ADD-IP, the address is already present) are returned per
/// decision; the rest still run.
pub fn apply(assoc: &mut Association, decisions: &[Decision]) -> Vec<Result<(), AddressError>> {
    decisions
        .iter()
        .map(|d| match *d {
            Decision::Add(a) => assoc.add_local_address(a),
            Decision::Delete(a) => assoc.remove_local_address(a),
            Decision::MakePrimary(a) => {
                assoc.request_peer_primary(a)?;
                assoc.set_local_primary(Some(a))
            }
            Decision::UsePath(a) => assoc.set_primary(a),
        })
        .collect()
}

/// Which handover policy a host runs, with its parameters: what the
/// simulator's scenario files, its mSCTP agents and the real-network
/// driver's configuration all name. `I` names an interface: its number
/// ([`IfaceId`], what [`PolicyKind::build`] needs) or, in files and on
/// command lines, its name ([`PolicyKind::map_interfaces`] turns one into
/// the other).
///
/// In a file (with the `serde` feature), a table tagged by `kind`:
/// `{ kind = "none" }`, `"failover_only"`, `"newest_address"`,
/// `{ kind = "signal_strength", add = "aggressive", add_threshold_w = ..,
/// primary_threshold_w = .. }`, `{ kind = "fastest_first", rates = {
/// wlan0 = 11e6 } }`, `{ kind = "aisle" }`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(
        tag = "kind",
        rename_all = "snake_case",
        deny_unknown_fields,
        bound(
            serialize = "I: serde::Serialize",
            deserialize = "I: Ord + serde::Deserialize<'de>"
        )
    )
)]
pub enum PolicyKind<I = IfaceId> {
    /// No policy: addresses are never added or deleted after the
    /// association starts.
    None,
    /// Standard SCTP ([`FailoverOnly`]): addresses follow the interfaces,
    /// the primary moves only by failover.
    FailoverOnly,
    /// [`NewestAddress`]: add and make primary as soon as a new address
    /// exists.
    NewestAddress,
    /// Koh, Chang and Lee's signal-strength rules ([`SignalStrength`]).
    SignalStrength {
        #[cfg_attr(feature = "serde", serde(rename = "add"))]
        add_rule: AddRule,
        add_threshold_w: f64,
        primary_threshold_w: f64,
    },
    /// Link-layer triggered, fastest network first ([`FastestFirst`]):
    /// the nominal rate of each interface in bit/s (an interface not
    /// listed counts as rate 0).
    FastestFirst {
        #[cfg_attr(feature = "serde", serde(default = "BTreeMap::new"))]
        rates: BTreeMap<I, u64>,
    },
    /// AISLE ([`Aisle`]): the sender moves its data off a congested path
    /// by the paper's Steps 1-3 (p_s = C2 / (C1 + C2) drawn once, or
    /// twice when B2 is stale), from the path estimators (which must be
    /// on). `seed` seeds its generator; `None`: the caller's (see
    /// [`PolicyKind::build`]). In files `{ kind = "aisle" }`, optionally
    /// with `params = { theta = 1.1, hold_down_s = 60.0, freshness_s =
    /// 120.0, low_bandwidth = 0.1, rule = "paper" }` and a `seed`.
    Aisle {
        #[cfg_attr(feature = "serde", serde(default))]
        params: AisleParams,
        #[cfg_attr(feature = "serde", serde(default))]
        seed: Option<u64>,
    },
}

impl<I: Ord> PolicyKind<I> {
    /// The policy's name in reports (the name [`HandoverPolicy::name`]
    /// gives; `none` without a policy).
    pub fn name(&self) -> &'static str {
        match self {
            PolicyKind::None => "none",
            PolicyKind::FailoverOnly => "failover-only",
            PolicyKind::NewestAddress => "newest-address",
            PolicyKind::SignalStrength { .. } => "signal-strength",
            PolicyKind::FastestFirst { .. } => "fastest-first",
            PolicyKind::Aisle { .. } => "aisle",
        }
    }

    /// The policy decides from path statistics alone, so it runs without
    /// a monitor of the host's interfaces (no link events).
    pub fn needs_no_monitor(&self) -> bool {
        matches!(self, PolicyKind::Aisle { .. })
    }

    /// The same policy with its interfaces named by `f` (e.g. names
    /// turned into the host's interface numbers); an interface `f` does
    /// not know (`None`) is left out.
    pub fn map_interfaces<J: Ord>(&self, mut f: impl FnMut(&I) -> Option<J>) -> PolicyKind<J> {
        match self {
            PolicyKind::None => PolicyKind::None,
            PolicyKind::FailoverOnly => PolicyKind::FailoverOnly,
            PolicyKind::NewestAddress => PolicyKind::NewestAddress,
            PolicyKind::SignalStrength {
                add_rule,
                add_threshold_w,
                primary_threshold_w,
            } => PolicyKind::SignalStrength {
                add_rule: *add_rule,
                add_threshold_w: *add_threshold_w,
                primary_threshold_w: *primary_threshold_w,
            },
            PolicyKind::FastestFirst { rates } => PolicyKind::FastestFirst {
                rates: rates
                    .iter()
                    .filter_map(|(i, r)| f(i).map(|j| (j, *r)))
                    .collect(),
            },
            PolicyKind::Aisle { params, seed } => PolicyKind::Aisle {
                params: *params,
                seed: *seed,
            },
        }
    }
}

impl PolicyKind<IfaceId> {
    /// A fresh policy object (policies keep per-association state);
    /// `None` for [`PolicyKind::None`]. A policy that draws random numbers
    /// and whose kind names no seed takes `seed()` (the engine has no
    /// randomness of its own).
    pub fn build(&self, seed: impl FnOnce() -> u64) -> Option<Box<dyn HandoverPolicy + Send>> {
        match self {
            PolicyKind::None => None,
            PolicyKind::FailoverOnly => Some(Box::new(FailoverOnly::default())),
            PolicyKind::NewestAddress => Some(Box::new(NewestAddress::default())),
            PolicyKind::SignalStrength {
                add_rule,
                add_threshold_w,
                primary_threshold_w,
            } => Some(Box::new(SignalStrength::new(
                *add_rule,
                *add_threshold_w,
                *primary_threshold_w,
            ))),
            PolicyKind::FastestFirst { rates } => Some(Box::new(FastestFirst::new(rates.clone()))),
            PolicyKind::Aisle {
                params,
                seed: given,
            } => Some(Box::new(Aisle::with_seed(
                *params,
                given.unwrap_or_else(seed),
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AssociationConfig;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_policy_kind_builds_the_policy_it_names() {
        let kinds: [PolicyKind; 5] = [
            PolicyKind::FailoverOnly,
            PolicyKind::NewestAddress,
            PolicyKind::SignalStrength {
                add_rule: AddRule::Conservative,
                add_threshold_w: 3.6e-10,
                primary_threshold_w: 4.7e-10,
            },
            PolicyKind::FastestFirst {
                rates: BTreeMap::from([(1, 11_000_000)]),
            },
            PolicyKind::Aisle {
                params: AisleParams::default(),
                seed: None,
            },
        ];
        for k in kinds {
            assert_eq!(k.build(|| 7).map(|p| p.name()), Some(k.name()));
        }
        assert!(PolicyKind::<IfaceId>::None.build(|| 7).is_none());
        // Interfaces named in a file become the host's numbers; one the
        // host does not have is left out.
        let named = PolicyKind::FastestFirst {
            rates: BTreeMap::from([("wlan0".to_string(), 11_000_000), ("gone".into(), 1)]),
        };
        let numbered = named.map_interfaces(|n| (n == "wlan0").then_some(3));
        assert_eq!(
            numbered,
            PolicyKind::FastestFirst {
                rates: BTreeMap::from([(3, 11_000_000)])
            }
        );
    }

    /// A mobile with 10.1.0.2 (interface 1) and 10.2.0.2 (interface 2)
    /// towards one peer address.
    fn dual_homed() -> Association {
        Association::connect(
            AssociationConfig::default(),
            Time::ZERO,
            [1; 32],
            5000,
            5000,
            &[ip("10.1.0.2"), ip("10.2.0.2")],
            &[ip("10.1.0.1")],
        )
        .unwrap()
    }

    /// Feeds `events` to `p`; none of them may bring a decision.
    fn quiet(p: &mut dyn HandoverPolicy, assoc: &Association, events: &[LinkEvent]) {
        for ev in events {
            assert!(p.on_link_event(Time::ZERO, ev, assoc).is_empty(), "{ev:?}");
        }
    }

    /// Both links up with their addresses: no decision yet.
    fn bring_up(p: &mut dyn HandoverPolicy, assoc: &Association) {
        quiet(
            p,
            assoc,
            &[
                LinkEvent::LinkUp { iface: 1 },
                LinkEvent::LinkUp { iface: 2 },
                LinkEvent::AddressObtained {
                    iface: 1,
                    addr: ip("10.1.0.2"),
                },
                LinkEvent::AddressObtained {
                    iface: 2,
                    addr: ip("10.2.0.2"),
                },
            ],
        );
    }

    /// Signal strength's delete rule judges signal that fell below the
    /// Add-IP threshold, not signal not yet heard: at start-up the second
    /// address (link up, no beacon yet) stays; a weak sample, or its link
    /// going down, deletes it.
    #[test]
    fn signal_strength_deletes_an_address_whose_signal_fell_not_one_not_yet_sampled() {
        let assoc = dual_homed();
        let (add, primary) = (3.6e-10, 4.7e-10);
        let strong = LinkEvent::SignalSample {
            iface: 1,
            power_w: 1e-9,
        };
        let mut p = SignalStrength::new(AddRule::Conservative, add, primary);
        let t = Time::ZERO;
        bring_up(&mut p, &assoc);
        quiet(&mut p, &assoc, std::slice::from_ref(&strong));
        let weak = LinkEvent::SignalSample {
            iface: 2,
            power_w: add / 2.0,
        };
        assert_eq!(
            p.on_link_event(t, &weak, &assoc),
            vec![Decision::Delete(ip("10.2.0.2"))]
        );
        let mut p = SignalStrength::new(AddRule::Conservative, add, primary);
        quiet(
            &mut p,
            &assoc,
            &[
                LinkEvent::LinkUp { iface: 1 },
                LinkEvent::LinkUp { iface: 2 },
                strong,
                LinkEvent::AddressObtained {
                    iface: 2,
                    addr: ip("10.2.0.2"),
                },
            ],
        );
        assert_eq!(
            p.on_link_event(t, &LinkEvent::LinkDown { iface: 2 }, &assoc),
            vec![Decision::Delete(ip("10.2.0.2"))]
        );
    }

    /// Link-layer triggered (docs/MODELS.md 3): the "going down" hint of the
    /// primary's link moves data before the link fails, so before
    /// failover could; a hint about another link changes nothing.
    #[test]
    fn fastest_first_switches_on_the_going_down_hint() {
        let assoc = dual_homed();
        let mut p = FastestFirst::new(BTreeMap::from([(1, 54_000_000), (2, 384_000)]));
        bring_up(&mut p, &assoc);
        assert!(
            p.on_link_event(Time::ZERO, &LinkEvent::LinkGoingDown { iface: 2 }, &assoc)
                .is_empty(),
            "the slow link's hint does not matter"
        );
        assert_eq!(
            p.on_link_event(Time::ZERO, &LinkEvent::LinkGoingDown { iface: 1 }, &assoc),
            vec![Decision::MakePrimary(ip("10.2.0.2"))],
            "WLAN going down: switch to UMTS now"
        );
    }

    #[test]
    fn fastest_first_leaves_a_failing_link_and_returns_when_it_is_back() {
        let assoc = dual_homed();
        let mut p = FastestFirst::new(BTreeMap::from([(1, 20_000_000), (2, 10_000_000)]));
        let t = Time::ZERO;
        bring_up(&mut p, &assoc);
        // The fast link (the current primary) goes down: move to the other.
        assert_eq!(
            p.on_link_event(t, &LinkEvent::LinkDown { iface: 1 }, &assoc),
            vec![Decision::MakePrimary(ip("10.2.0.2"))]
        );
        // The fast link is back while the slow one carries the data.
        let mut moved = dual_homed();
        moved.set_local_primary(Some(ip("10.2.0.2"))).unwrap();
        assert_eq!(
            p.on_link_event(t, &LinkEvent::LinkUp { iface: 1 }, &moved),
            vec![Decision::MakePrimary(ip("10.1.0.2"))],
            "the faster link is back"
        );
        // A slower link coming back while the current one works: stay.
        p.on_link_event(t, &LinkEvent::LinkDown { iface: 2 }, &assoc);
        assert!(
            p.on_link_event(t, &LinkEvent::LinkUp { iface: 2 }, &assoc)
                .is_empty()
        );
        // Its link being down, the current primary is left for any link
        // that comes up.
        p.on_link_event(t, &LinkEvent::LinkDown { iface: 1 }, &assoc);
        assert_eq!(
            p.on_link_event(t, &LinkEvent::LinkUp { iface: 2 }, &assoc),
            vec![Decision::MakePrimary(ip("10.2.0.2"))]
        );
    }

    /// The single-radio move of a mobile whose second interface is down:
    /// its address there is still in the association, but an ASCONF
    /// deleting the lost address would have to leave from it, over a dead
    /// link. The lost address waits and goes in the ASCONF that adds the
    /// next one, as when it is the only address.
    #[test]
    fn an_address_lost_beside_one_on_a_dead_link_goes_with_the_next_add() {
        let assoc = dual_homed();
        let mut p = FastestFirst::new(BTreeMap::from([(1, 40_000_000), (2, 20_000_000)]));
        let t = Time::ZERO;
        bring_up(&mut p, &assoc);
        p.on_link_event(t, &LinkEvent::LinkDown { iface: 2 }, &assoc);
        let lost = LinkEvent::AddressLost {
            iface: 1,
            addr: ip("10.1.0.2"),
        };
        assert!(
            p.on_link_event(t, &lost, &assoc).is_empty(),
            "no Delete IP from an address on a dead link"
        );
        let obtained = LinkEvent::AddressObtained {
            iface: 1,
            addr: ip("10.1.0.3"),
        };
        assert_eq!(
            p.on_link_event(t, &obtained, &assoc),
            vec![
                Decision::Add(ip("10.1.0.3")),
                Decision::Delete(ip("10.1.0.2")),
                Decision::MakePrimary(ip("10.1.0.3")),
            ]
        );
        // With the second link up, the lost address is deleted at once.
        let mut p = FastestFirst::new(BTreeMap::from([(1, 40_000_000), (2, 20_000_000)]));
        bring_up(&mut p, &assoc);
        assert_eq!(
            p.on_link_event(t, &lost, &assoc),
            vec![Decision::Delete(ip("10.1.0.2"))]
        );
    }
}
