//! The measuring agents a scenario's flows share: one [`FlowObserver`]
//! per node, with a watch per flow (paths, data packet uids, ADD-IP bits),
//! and on a mobile whose flows run an E4 scheme one [`DecisionBridge`]
//! that hands the scheme the radio's link decisions.

use std::collections::BTreeMap;

use super::bridge::DecisionBridge;
use super::env::Env;
use super::mobiles::MobileInfo;
use super::observer::{FlowObserver, Watch};
use crate::kernel::ids::{AgentId, NodeId};
use crate::kernel::world::World;
use crate::scenario::error::ScenarioError;
use crate::scenario::resolve::Flow;

/// One observer per node and one decision bridge per mobile, created
/// for the first flow that needs each.
#[derive(Default)]
pub(crate) struct Observers {
    observers: BTreeMap<NodeId, AgentId>,
    bridges: BTreeMap<NodeId, AgentId>,
}

impl Observers {
    /// The observer of `node` (created on first use: on a mobile it
    /// numbers the mobile's cells as paths).
    fn observer(
        &mut self,
        w: &mut World,
        env: &Env<'_>,
        node: NodeId,
        mobile: Option<&MobileInfo>,
        name: &str,
    ) -> Result<AgentId, ScenarioError> {
        if let Some(&a) = self.observers.get(&node) {
            return Ok(a);
        }
        let paths = mobile.map(|m| m.paths()).unwrap_or_default();
        let limits = &env.r.scenario.limits;
        let obs = FlowObserver::new(paths, limits.flow_records, limits.data_uids);
        let id = w
            .add_agent(node, "observer", Box::new(obs))
            .map_err(|e| ScenarioError::model(format!("nodes[{name}]"), e))?;
        self.observers.insert(node, id);
        Ok(id)
    }

    /// Adds a watch to the observer of the flow's mobile (`mobile_end`) or
    /// fixed node.
    pub(super) fn watch(
        &mut self,
        w: &mut World,
        env: &Env<'_>,
        f: &Flow,
        mobile_end: bool,
        watch: Watch,
    ) -> Result<(AgentId, usize), ScenarioError> {
        let id = if mobile_end {
            let m = env.mobile(f);
            self.observer(w, env, m.node, Some(m), &f.spec.mobile)?
        } else {
            self.observer(w, env, env.fixed(f), None, &f.spec.fixed)?
        };
        let k = w
            .agent_mut::<FlowObserver>(id)
            .map(|o| o.watch(watch))
            .ok_or_else(|| ScenarioError::model("flows", "observer vanished"))?;
        Ok((id, k))
    }

    /// The link-decision bridge of a mobile (created on first use).
    pub(super) fn bridge(
        &mut self,
        w: &mut World,
        node: NodeId,
        key: &str,
    ) -> Result<(), ScenarioError> {
        if self.bridges.contains_key(&node) {
            return Ok(());
        }
        let id = w
            .add_agent(node, "link-decisions", Box::new(DecisionBridge::default()))
            .map_err(|e| ScenarioError::model(key, e))?;
        self.bridges.insert(node, id);
        Ok(())
    }
}
