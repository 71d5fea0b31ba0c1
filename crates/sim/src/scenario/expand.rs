//! Expansion of `[[stations]]` populations into plain mobiles and flows
//! (see [`super::spec::stations`]), before a scenario is resolved.

use std::borrow::Cow;

use super::error::{ScenarioError, positive_f, range_f, range_u};
use super::resolve::max_host_id;
use super::spec::*;

/// Stations in one scenario at most (all populations).
pub const MAX_STATIONS: usize = 100_000;

impl Scenario {
    /// The scenario with every `[[stations]]` population replaced by its
    /// mobiles and flows (the scenario itself when it has none). Station
    /// k of population `p` is the mobile `p<k>` at host id
    /// `first_host_id + k` in every cell of its interfaces, with the flow
    /// `p<k>` to the population's fixed node.
    pub fn expanded(&self) -> Result<Cow<'_, Scenario>, ScenarioError> {
        if self.stations.is_empty() {
            return Ok(Cow::Borrowed(self));
        }
        let mut s = self.clone();
        let mut total = 0usize;
        for (i, p) in self.stations.iter().enumerate() {
            let key = format!("stations[{i}]");
            range_u(
                &format!("{key}.count"),
                p.count as u64,
                1,
                MAX_STATIONS as u64,
            )?;
            total += p.count;
            if total > MAX_STATIONS {
                return Err(ScenarioError::Range {
                    key: format!("{key}.count"),
                    value: total.to_string(),
                    allowed: format!("at most {MAX_STATIONS} stations in all"),
                });
            }
            range_f(&format!("{key}.start_s"), p.start_s, 0.0, self.duration_s)?;
            if let Some(m) = p.mean_interarrival_s {
                positive_f(&format!("{key}.mean_interarrival_s"), m, 1e9)?;
            }
            let last = u64::from(p.first_host_id) + p.count as u64 - 1;
            range_u(
                &format!("{key}.first_host_id"),
                last,
                1,
                u64::from(u32::MAX),
            )?;
            self.check_address_space(&key, p)?;
            for k in 0..p.count {
                let name = format!("{}{k}", p.name);
                s.mobiles.push(MobileSpec {
                    name: name.clone(),
                    host_id: p.first_host_id + k as u32,
                    ifaces: p.ifaces.clone(),
                    mobility: MobilitySpec::Stationary {
                        x_m: p.x_m,
                        y_m: p.y_m,
                    },
                });
                s.flows.push(FlowSpec {
                    name: name.clone(),
                    transport: TransportSpec::Msctp,
                    direction: p.direction,
                    mobile: name,
                    fixed: p.fixed.clone(),
                    fixed_port: 0,
                    mobile_port: 0,
                    start_s: p.start_s,
                    start_jitter_s: 0.0,
                    stop_s: None,
                    traffic: p.traffic.clone(),
                    policy: p.policy.clone(),
                    sctp: p.sctp.clone(),
                    mobile_iface: None,
                    tcp: None,
                    mip4: None,
                    mip6: None,
                    fmip6: None,
                    handoff: None,
                    cmhn: None,
                    quic: None,
                    reliability: None,
                    arrival: p.mean_interarrival_s.map(|mean_s| PoissonArrival {
                        stream: format!("stations/{}/arrivals", p.name),
                        index: k,
                        mean_s,
                    }),
                    random_initial_path: p.random_initial_path,
                });
            }
        }
        s.stations.clear();
        Ok(Cow::Owned(s))
    }
}

impl Scenario {
    /// Every station of population `p` needs an address in every cell of
    /// its interfaces (the cell's prefix + `first_host_id + k`): checked
    /// before the population is expanded, so that a count the prefix
    /// cannot hold fails at once, naming `count`, rather than after
    /// building every station. Cells that do not exist or do not parse
    /// are left to the resolution's messages.
    fn check_address_space(&self, key: &str, p: &StationsSpec) -> Result<(), ScenarioError> {
        let first = u64::from(p.first_host_id);
        for cell in p.ifaces.iter().flat_map(|i| &i.cells) {
            let Some(c) = self.cells.iter().find(|c| &c.name == cell) else {
                continue;
            };
            let Ok(ap) = c.ap_addr.parse::<ipnet::IpNet>() else {
                continue;
            };
            let max = max_host_id(ap);
            if first + p.count as u64 - 1 > max {
                return Err(ScenarioError::Range {
                    key: format!("{key}.count"),
                    value: p.count.to_string(),
                    allowed: format!(
                        "cell {cell:?} ({ap}) has host ids up to {max}: at most {} stations from \
                         first_host_id {first}",
                        (max + 1).saturating_sub(first)
                    ),
                });
            }
        }
        Ok(())
    }
}
