//! What the flow builders read of the built topology: the resolved
//! scenario, the World's ids of its nodes, links and cells, the mobiles
//! as built.

use std::net::IpAddr;

use msctp_proto::Time;

use super::Ids;
use super::mobiles::MobileInfo;
use crate::kernel::ids::NodeId;
use crate::kernel::world::World;
use crate::models::app::Source;
use crate::scenario::error::ScenarioError;
use crate::scenario::resolve::{Family, Flow, Resolved};

/// What the flow builders read of the built topology.
pub(crate) struct Env<'a> {
    pub r: &'a Resolved,
    pub ids: &'a Ids,
    /// By index in the scenario's mobiles.
    pub mobiles: &'a [MobileInfo],
}

impl Env<'_> {
    /// The fixed node of a flow.
    pub(super) fn fixed(&self, f: &Flow) -> NodeId {
        self.ids.fixed[f.fixed]
    }

    /// The mobile of a flow.
    pub(super) fn mobile(&self, f: &Flow) -> &MobileInfo {
        &self.mobiles[f.mobile]
    }

    /// The first address of `fam` of a fixed node (its links in
    /// declaration order).
    pub(super) fn fixed_addr(
        &self,
        w: &World,
        node: NodeId,
        fam: Family,
        key: &str,
    ) -> Result<IpAddr, ScenarioError> {
        w.node(node)
            .and_then(|n| {
                n.ifaces()
                    .iter()
                    .flat_map(|i| i.addrs().iter())
                    .find(|a| Family::of(a) == fam)
                    .map(|a| a.addr())
            })
            .ok_or_else(|| {
                ScenarioError::reference(key, "the fixed node has no address of the flow's family")
            })
    }

    /// The flow's application source from `start` to its `stop_s`.
    pub(super) fn source(&self, f: &Flow, start: Time) -> Result<Source, ScenarioError> {
        Source::new(
            f.traffic.clone(),
            start,
            f.spec.stop_s.map(crate::scenario::spec::secs),
        )
        .map_err(|e| ScenarioError::model(format!("flows[{}].traffic", f.spec.name), e))
    }
}
