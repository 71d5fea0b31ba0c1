//! Validation of the baseline transports' keys and of the combinations a
//! scenario may not ask for (a table of another transport, a traffic kind
//! the transport cannot carry, a mobile whose flows need two different
//! mobility supports, an address family the topology lacks, ...). Every
//! error names the key.

use ipnet::IpNet;
use rustc_hash::FxHashMap;

use super::{Cell, Link};
use crate::scenario::error::ScenarioError;
use crate::scenario::spec::*;

fn combination(key: String, why: String) -> ScenarioError {
    ScenarioError::combination(key, why)
}

/// The address family of a flow's network side: IPv4 or IPv6.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    V4,
    V6,
}

impl Family {
    pub(crate) fn of(n: &IpNet) -> Family {
        if n.addr().is_ipv4() {
            Family::V4
        } else {
            Family::V6
        }
    }

    fn name(self) -> &'static str {
        match self {
            Family::V4 => "IPv4",
            Family::V6 => "IPv6",
        }
    }
}

/// What the transport checks read: the scenario with its links and cells
/// resolved.
pub(super) struct Topology<'a> {
    pub s: &'a Scenario,
    pub links: &'a [Link],
    pub cells: &'a [Cell],
}

/// Every cell name of a mobile, in interface order.
fn mobile_cells(m: &MobileSpec) -> impl Iterator<Item = &String> {
    m.ifaces.iter().flat_map(|i| i.cells.iter())
}

impl Topology<'_> {
    /// The prefix of cell `name`.
    fn cell_ap(&self, name: &str) -> Option<IpNet> {
        self.s.cell_index(name).map(|k| self.cells[k].ap)
    }

    fn cell_family(&self, name: &str) -> Option<Family> {
        self.cell_ap(name).map(|n| Family::of(&n))
    }

    /// Whether fixed node `node` has a link address of family `fam`.
    fn fixed_has(&self, node: &str, fam: Family) -> bool {
        let Some(k) = self.s.fixed_index(node) else {
            return false;
        };
        self.links.iter().any(|l| {
            [(l.a, l.a_addr), (l.b, l.b_addr)]
                .iter()
                .any(|(n, a)| *n == k && Family::of(a) == fam)
        })
    }

    /// The transport's own keys and the combinations of a flow; the
    /// address family it runs over.
    pub(super) fn check_transport(
        &self,
        f: &FlowSpec,
        m: &MobileSpec,
    ) -> Result<Option<Family>, ScenarioError> {
        let key = format!("flows[{}]", f.name);
        f.check_tables(&key)?;
        if let Some(i) = &f.mobile_iface {
            has_iface(&format!("{key}.mobile_iface"), m, i)?;
        }
        f.check_sctp_over_mip4(&key)?;
        self.check_mobile_ip(&key, f, m)?;
        let fam = self.flow_family(f, m)?;
        self.check_fixed_family(&key, f, fam)?;
        one_cell_per_iface(f, m)?;
        if let Some(h) = &f.handoff {
            check_handoff(&format!("{key}.handoff"), h, m)?;
        }
        if let Some(c) = &f.cmhn {
            check_cmhn(&format!("{key}.cmhn"), c, m)?;
        }
        if let Some(q) = &f.quic {
            q.validate()
                .map_err(|e| ScenarioError::setting(&format!("{key}.quic"), e))?;
        }
        Ok(fam)
    }

    /// The Mobile IP tables of a flow (`mip4`, `mip6` with its forced
    /// switch, `fmip6`) against the scenario's cells and the mobile.
    fn check_mobile_ip(
        &self,
        key: &str,
        f: &FlowSpec,
        m: &MobileSpec,
    ) -> Result<(), ScenarioError> {
        if let Some(mip) = &f.mip4 {
            self.validate_mip4(&format!("{key}.mip4"), mip, m)?;
        }
        if let Some(mip) = &f.mip6 {
            self.validate_mip6(&format!("{key}.mip6"), mip, m)?;
            if let Some(fs) = &mip.scenario.forced_switch {
                if f.fmip6.is_some() {
                    return Err(combination(
                        format!("{key}.mip6.forced_switch"),
                        "an FMIPv6 mobile is moved by its [fmip6] script".into(),
                    ));
                }
                self.validate_forced_switch(&format!("{key}.mip6.forced_switch"), fs, m)?;
            }
        }
        if let Some(fm) = &f.fmip6 {
            self.validate_fmip6(&format!("{key}.fmip6"), fm, m)?;
        }
        Ok(())
    }

    /// The fixed node has an address of the family the flow runs over.
    fn check_fixed_family(
        &self,
        key: &str,
        f: &FlowSpec,
        fam: Option<Family>,
    ) -> Result<(), ScenarioError> {
        match fam {
            Some(fam) if !self.fixed_has(&f.fixed, fam) => Err(combination(
                format!("{key}.fixed"),
                format!(
                    "transport {} runs over {} here, and node {:?} has no {} address",
                    f.transport.name(),
                    fam.name(),
                    f.fixed,
                    fam.name()
                ),
            )),
            _ => Ok(()),
        }
    }

    /// The family a flow runs over (`None` for mSCTP, which uses every
    /// address the fixed node has).
    pub(crate) fn flow_family(
        &self,
        f: &FlowSpec,
        m: &MobileSpec,
    ) -> Result<Option<Family>, ScenarioError> {
        let key = format!("flows[{}]", f.name);
        let home = |cell: &str, k: &str| -> Result<Family, ScenarioError> {
            self.cell_family(cell).ok_or_else(|| {
                ScenarioError::reference(
                    format!("{key}.{k}.home_cell"),
                    format!("no cell {cell:?}"),
                )
            })
        };
        Ok(match f.transport {
            TransportSpec::Msctp => None,
            TransportSpec::Mip4Tcp | TransportSpec::Mip4Sctp => match &f.mip4 {
                Some(x) => Some(home(&x.scenario.home_cell, "mip4")?),
                None => None,
            },
            TransportSpec::Mip6Tcp
            | TransportSpec::Mip6Udp
            | TransportSpec::Fmip6Tcp
            | TransportSpec::Fmip6Udp => match &f.mip6 {
                Some(x) => Some(home(&x.scenario.home_cell, "mip6")?),
                None => None,
            },
            TransportSpec::Tcp | TransportSpec::Udp | TransportSpec::Quic => {
                let iface = match &f.mobile_iface {
                    Some(n) => m.ifaces.iter().find(|i| &i.name == n),
                    None => m.ifaces.first(),
                };
                iface
                    .and_then(|i| i.cells.first())
                    .and_then(|c| self.cell_family(c))
            }
            TransportSpec::SingleHandoff | TransportSpec::Cmhn => {
                let fams: Vec<Family> = mobile_cells(m)
                    .filter_map(|c| self.cell_family(c))
                    .collect();
                match fams.first() {
                    Some(first) if fams.iter().all(|x| x == first) => Some(*first),
                    Some(_) => {
                        return Err(combination(
                            format!("mobiles[{}].ifaces", m.name),
                            format!(
                                "transport {} (flow {:?}) needs cells of one address family",
                                f.transport.name(),
                                f.name
                            ),
                        ));
                    }
                    None => None,
                }
            }
        })
    }

    fn validate_mip4(&self, key: &str, x: &Mip4Spec, m: &MobileSpec) -> Result<(), ScenarioError> {
        match self.cell_family(&x.scenario.home_cell) {
            None => {
                return Err(ScenarioError::reference(
                    format!("{key}.home_cell"),
                    format!("no cell {:?}", x.scenario.home_cell),
                ));
            }
            Some(Family::V6) => {
                return Err(combination(
                    format!("{key}.home_cell"),
                    format!(
                        "cell {:?} is IPv6; Mobile IPv4 needs an IPv4 home",
                        x.scenario.home_cell
                    ),
                ));
            }
            Some(Family::V4) => {}
        }
        if let Some(cells) = &x.scenario.foreign_cells {
            for (i, c) in cells.iter().enumerate() {
                let k = format!("{key}.foreign_cells[{i}]");
                match self.cell_family(c) {
                    None => return Err(ScenarioError::reference(k, format!("no cell {c:?}"))),
                    Some(Family::V6) => {
                        return Err(combination(k, format!("cell {c:?} is IPv6")));
                    }
                    Some(Family::V4) => {}
                }
                if *c == x.scenario.home_cell || cells[..i].contains(c) {
                    return Err(combination(
                        k,
                        format!("cell {c:?} is the home cell or listed twice"),
                    ));
                }
            }
        }
        for c in mobile_cells(m) {
            if self.cell_family(c) != Some(Family::V4) {
                return Err(combination(
                    format!("mobiles[{}].ifaces", m.name),
                    format!("cell {c:?} is not IPv4: a Mobile IPv4 mobile needs IPv4 cells"),
                ));
            }
        }
        x.validate().map_err(|e| ScenarioError::setting(key, e))
    }

    fn validate_mip6(&self, key: &str, x: &Mip6Spec, m: &MobileSpec) -> Result<(), ScenarioError> {
        let v6_64 = |cell: &str, k: String| -> Result<(), ScenarioError> {
            let Some(n) = self.cell_ap(cell) else {
                return Err(ScenarioError::reference(k, format!("no cell {cell:?}")));
            };
            if Family::of(&n) != Family::V6 || n.prefix_len() > 64 {
                return Err(combination(
                    k,
                    format!(
                        "cell {cell:?} ({}) must be IPv6 with a prefix of at most /64 \
                         (care-of addresses are formed from the prefix and the home \
                         address's interface identifier)",
                        n
                    ),
                ));
            }
            Ok(())
        };
        v6_64(&x.scenario.home_cell, format!("{key}.home_cell"))?;
        for c in mobile_cells(m) {
            v6_64(c, format!("mobiles[{}].ifaces", m.name))?;
        }
        x.validate().map_err(|e| ScenarioError::setting(key, e))
    }

    fn validate_forced_switch(
        &self,
        key: &str,
        x: &ForcedSwitchSpec,
        m: &MobileSpec,
    ) -> Result<(), ScenarioError> {
        scripted_move(
            key,
            (&x.from_cell, &x.to_cell),
            m,
            "the switch",
            "a mobile with a forced switch is moved by it (from_cell, to_cell, at_s)",
        )?;
        x.check_times(key, self.s.duration_s)
    }

    fn validate_fmip6(
        &self,
        key: &str,
        x: &Fmip6Spec,
        m: &MobileSpec,
    ) -> Result<(), ScenarioError> {
        scripted_move(
            key,
            (&x.scenario.from_cell, &x.scenario.to_cell),
            m,
            "the fast handover",
            "the mobile of an FMIPv6 flow is moved by its [fmip6] script \
             (from_cell, to_cell, trigger_s)",
        )?;
        x.check_values(key, self.s.duration_s)
    }
}

impl Scenario {
    /// Scenario-wide rules: one Mobile IP deployment of each kind, and a
    /// mobile's flows all on the same mobility support when it is Mobile IP
    /// (the Mobile IP client owns the mobile's addresses).
    pub(super) fn check_deployments(&self) -> Result<(), ScenarioError> {
        self.distinct_host_ids()?;
        self.distinct_ports()?;
        self.one_deployment("mip4", |f| f.mip4.as_ref())?;
        self.one_deployment("mip6", |f| f.mip6.as_ref())?;
        self.one_deployment("fmip6", |f| f.fmip6.as_ref())?;
        self.one_mobile_ip_per_mobile()
    }

    /// Mobiles sharing a cell need distinct addresses there: the first
    /// earlier mobile with the same host id in a cell of this one (by an
    /// index of (host id, cell) -> first mobile, not a scan of the
    /// earlier mobiles: a station population has thousands).
    fn distinct_host_ids(&self) -> Result<(), ScenarioError> {
        let mut holder: FxHashMap<(u32, &str), usize> = FxHashMap::default();
        for (i, m) in self.mobiles.iter().enumerate() {
            let first = mobile_cells(m)
                .filter_map(|c| holder.get(&(m.host_id, c.as_str())).copied())
                .min();
            if let Some(o) = first.map(|j| &self.mobiles[j])
                && let Some(c) = mobile_cells(m).find(|c| mobile_cells(o).any(|x| x == *c))
            {
                return Err(combination(
                    format!("mobiles[{}].host_id", m.name),
                    format!(
                        "mobile {:?} has host_id {} too, and both use cell {c:?}: \
                         they would have the same address",
                        o.name, m.host_id
                    ),
                ));
            }
            for c in mobile_cells(m) {
                holder.entry((m.host_id, c.as_str())).or_insert(i);
            }
        }
        Ok(())
    }

    /// A mobile whose flow runs over Mobile IP runs all its flows over the
    /// same one (the Mobile IP client owns the mobile's addresses).
    fn one_mobile_ip_per_mobile(&self) -> Result<(), ScenarioError> {
        for f in &self.flows {
            let mob = f.transport.mobility();
            if !matches!(
                mob,
                Mobility::MobileIpv4 | Mobility::MobileIpv6 | Mobility::FastMobileIpv6
            ) {
                continue;
            }
            let Some(other) = self
                .flows
                .iter()
                .find(|o| o.mobile == f.mobile && o.transport.mobility() != mob)
            else {
                continue;
            };
            return Err(combination(
                format!("flows[{}].transport", f.name),
                format!(
                    "mobile {:?} runs {} (Mobile IP owns its addresses) and also flow {:?} \
                     with {}: all flows of a Mobile IP mobile must use the same Mobile IP",
                    f.mobile,
                    f.transport.name(),
                    other.name,
                    other.transport.name()
                ),
            ));
        }
        Ok(())
    }
}

/// The IP protocol a transport's data travels in.
fn protocol_of(t: TransportSpec) -> u8 {
    if t.uses_sctp() {
        132
    } else if t.carries() == Carries::Datagrams {
        17
    } else {
        6
    }
}

impl Scenario {
    /// The ports of flow `k` (0 in the file: 5000 + 2k at the fixed node,
    /// one more at the mobile), as the builders give them.
    pub(crate) fn flow_ports(k: usize, f: &FlowSpec) -> (u16, u16) {
        let base = 5000u16.saturating_add((2 * k).min(60_000) as u16);
        let fixed = if f.fixed_port == 0 {
            base
        } else {
            f.fixed_port
        };
        let mobile = if f.mobile_port == 0 {
            base.saturating_add(1)
        } else {
            f.mobile_port
        };
        (fixed, mobile)
    }

    /// Two flows of one node using one protocol need different ports there
    /// (each end's agents and observers tell flows apart by port), and a
    /// node has at most one single-connection handoff (its location
    /// updates use one well-known port).
    fn distinct_ports(&self) -> Result<(), ScenarioError> {
        // The first earlier flow that clashes with each flow, found through
        // indexes of the earlier flows by (protocol, node, port) and by the
        // node of a single-connection handoff (a scan of all earlier flows
        // was quadratic in a population of stations).
        let single = TransportSpec::SingleHandoff;
        let mut by_mobile_port: FxHashMap<(u8, &str, u16), usize> = FxHashMap::default();
        let mut by_fixed_port: FxHashMap<(u8, &str, u16), usize> = FxHashMap::default();
        let mut single_mobile: FxHashMap<&str, usize> = FxHashMap::default();
        let mut single_fixed: FxHashMap<&str, usize> = FxHashMap::default();
        for (k, f) in self.flows.iter().enumerate() {
            let (fp, mp) = Self::flow_ports(k, f);
            let proto = protocol_of(f.transport);
            let (mobile, fixed) = (f.mobile.as_str(), f.fixed.as_str());
            let is_single = f.transport == single;
            let candidates = [
                by_mobile_port.get(&(proto, mobile, mp)),
                by_fixed_port.get(&(proto, fixed, fp)),
                single_mobile.get(mobile).filter(|_| is_single),
                single_fixed.get(fixed).filter(|_| is_single),
            ];
            if let Some(j) = candidates.into_iter().flatten().copied().min() {
                let g = &self.flows[j];
                let (gfp, gmp) = Self::flow_ports(j, g);
                let same_proto = proto == protocol_of(g.transport);
                let clash =
                    (f.mobile == g.mobile && mp == gmp) || (f.fixed == g.fixed && fp == gfp);
                if same_proto && clash {
                    return Err(combination(
                        format!("flows[{}].fixed_port", f.name),
                        format!(
                            "flows {:?} and {:?} would use the same port on a node they \
                             share: give other fixed_port / mobile_port",
                            g.name, f.name
                        ),
                    ));
                }
                return Err(combination(
                    format!("flows[{}].transport", f.name),
                    format!(
                        "flow {:?} is a single-connection handoff on a node it shares \
                         with this one: one such flow per node (location updates use \
                         one port)",
                        g.name
                    ),
                ));
            }
            by_mobile_port.entry((proto, mobile, mp)).or_insert(k);
            by_fixed_port.entry((proto, fixed, fp)).or_insert(k);
            if is_single {
                single_mobile.entry(mobile).or_insert(k);
                single_fixed.entry(fixed).or_insert(k);
            }
        }
        Ok(())
    }

    /// Every flow's `name` table (where present) equals the first one.
    fn one_deployment<T: PartialEq>(
        &self,
        name: &str,
        table: impl Fn(&FlowSpec) -> Option<&T>,
    ) -> Result<(), ScenarioError> {
        let mut first: Option<(&FlowSpec, &T)> = None;
        for f in &self.flows {
            let Some(t) = table(f) else { continue };
            match first {
                None => first = Some((f, t)),
                Some((a, ta)) if ta != t => {
                    return Err(combination(
                        format!("flows[{}].{name}", f.name),
                        format!(
                            "differs from flows[{}].{name}: a scenario has one {name} \
                             deployment, so every flow's {name} table must be the same",
                            a.name
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }
}

/// A mobile moved by a script from one of its cells to another (FMIPv6,
/// a forced switch): both cells its own, two different ones, and the
/// mobile standing still (the script, not the radio model, moves it).
fn scripted_move(
    key: &str,
    (from, to): (&str, &str),
    m: &MobileSpec,
    what: &str,
    moved_by: &str,
) -> Result<(), ScenarioError> {
    for (k, c) in [("from_cell", from), ("to_cell", to)] {
        if !mobile_cells(m).any(|mc| mc == c) {
            return Err(ScenarioError::reference(
                format!("{key}.{k}"),
                format!("mobile {:?} has no interface for cell {c:?}", m.name),
            ));
        }
    }
    if from == to {
        return Err(combination(
            format!("{key}.to_cell"),
            format!("{what} needs two different cells"),
        ));
    }
    if !matches!(m.mobility, MobilitySpec::Stationary { .. }) {
        return Err(combination(
            format!("mobiles[{}].mobility", m.name),
            format!("{moved_by}, so its mobility must be \"stationary\""),
        ));
    }
    Ok(())
}

/// Interface `iface` is one of mobile `m`'s (`key` names the reference).
fn has_iface(key: &str, m: &MobileSpec, iface: &str) -> Result<(), ScenarioError> {
    if m.ifaces.iter().any(|x| x.name == iface) {
        return Ok(());
    }
    Err(ScenarioError::reference(
        key,
        format!("mobile {:?} has no interface {iface:?}", m.name),
    ))
}

/// A single-connection handoff or a multi-connection transport drives a
/// radio per network: each interface of its mobile serves one cell.
fn one_cell_per_iface(f: &FlowSpec, m: &MobileSpec) -> Result<(), ScenarioError> {
    let t = f.transport;
    if !matches!(t, TransportSpec::SingleHandoff | TransportSpec::Cmhn) {
        return Ok(());
    }
    match m.ifaces.iter().position(|i| i.cells.len() != 1) {
        Some(k) => Err(combination(
            format!("mobiles[{}].ifaces[{k}].cells", m.name),
            format!(
                "transport {} (flow {:?}) needs one cell per interface (a radio per network)",
                t.name(),
                f.name
            ),
        )),
        None => Ok(()),
    }
}

/// The single-connection handoff's table (`key`: `flows[<name>].handoff`):
/// its interfaces the mobile's, its settings and each network's in range.
fn check_handoff(key: &str, h: &HandoffSpec, m: &MobileSpec) -> Result<(), ScenarioError> {
    if let Some(i) = &h.scenario.initial {
        has_iface(&format!("{key}.initial"), m, i)?;
    }
    h.validate().map_err(|e| ScenarioError::setting(key, e))?;
    for (name, n) in &h.scenario.networks {
        let nk = format!("{key}.networks.{name}");
        has_iface(&nk, m, name)?;
        n.validate().map_err(|e| ScenarioError::setting(&nk, e))?;
    }
    Ok(())
}

/// The multi-connection transport's table (`key`: `flows[<name>].cmhn`):
/// a mobile with at most as many interfaces as it has slots, its initial
/// interface the mobile's, its settings in range.
fn check_cmhn(key: &str, c: &CmhnSpec, m: &MobileSpec) -> Result<(), ScenarioError> {
    let slots = crate::models::cmhn::MAX_SLOTS;
    if m.ifaces.len() > slots {
        return Err(combination(
            format!("mobiles[{}].ifaces", m.name),
            format!("cmhn handles at most {slots} interfaces"),
        ));
    }
    if let Some(i) = &c.scenario.initial {
        has_iface(&format!("{key}.initial"), m, i)?;
    }
    c.validate().map_err(|e| ScenarioError::setting(key, e))
}
