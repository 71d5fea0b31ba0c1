//! SCTP over Mobile IPv4 (`mip4-sctp`, E1's "MIP+SCTP"): the engine
//! without ADD-IP, single-homed on the mobile's home address, with the
//! Mobile IPv4 client under it; and the agent configurations every SCTP
//! flow shares with [`super::msctp`].

use std::net::IpAddr;
use std::time::Duration;

use msctp_proto::{AssociationConfig, Time};

use super::FlowCx;
use super::baseline::{BaselineFlow, FlowAgents, baseline_ends};
use super::env::Env;
use crate::measure::flow_log::SharedFlowLog;
use crate::models::sctp::handover::PolicyKind;
use crate::models::sctp::{Role, SctpAgent, SctpAgentConfig};
use crate::scenario::error::ScenarioError;
use crate::scenario::resolve::Flow;
use crate::scenario::spec::DirectionSpec;
use crate::scenario::spec::ms;

/// The two SCTP agents of a flow: the mobile's, which connects from
/// `start` to `peer` (the fixed node's addresses), and the fixed node's,
/// which listens. Both log to the flow's log, sample their paths every
/// `output.sample_ms`, keep the scenario's bounds and number paths by
/// `path_addrs`; the sending side gets the flow's source, the receiving
/// side the size of the file it expects.
pub(super) fn agent_configs(
    env: &Env<'_>,
    f: &Flow,
    start: Time,
    log: &SharedFlowLog,
    association: AssociationConfig,
    peer: Vec<IpAddr>,
    path_addrs: Vec<IpAddr>,
) -> Result<(SctpAgentConfig, SctpAgentConfig), ScenarioError> {
    let s = &*env.r.scenario;
    let sample: Option<Duration> = (s.output.sample_ms > 0.0).then(|| ms(s.output.sample_ms));
    let mut mobile = SctpAgentConfig::new(
        f.mobile_port,
        Role::Connect {
            peer,
            peer_port: f.fixed_port,
            at: start,
        },
    );
    mobile.mobile_side = true;
    let mut fixed = SctpAgentConfig::new(f.fixed_port, Role::Listen);
    for c in [&mut mobile, &mut fixed] {
        c.association = association.clone();
        c.log = Some(log.clone());
        c.path_addrs = path_addrs.clone();
        c.sample_interval = sample;
        c.path_trace = s.output.trace;
        c.limits.max_path_trace = s.limits.flow_records;
        c.limits.max_events = s.limits.agent_events;
        c.limits.max_data_uids = s.limits.data_uids;
    }
    let source = env.source(f, start)?;
    let expect = f.spec.traffic.file_bytes();
    let policy = f
        .sctp
        .as_ref()
        .map_or(msctp_proto::PrPolicy::Reliable, |s| s.send_policy);
    if f.spec.direction == DirectionSpec::Downlink {
        fixed.source = Some(source);
        fixed.send_policy = policy;
        mobile.expect_bytes = expect;
    } else {
        mobile.source = Some(source);
        mobile.send_policy = policy;
        fixed.expect_bytes = expect;
    }
    Ok((mobile, fixed))
}

/// Builds a `mip4-sctp` flow: the common baseline ends (observers, Mobile
/// IPv4 deployment and client), then the fixed node's agent, then the
/// mobile's.
pub(super) fn build(cx: FlowCx<'_, '_>) -> Result<BaselineFlow, ScenarioError> {
    let ends = baseline_ends(cx.w, cx.env, cx.shared, cx.f)?;
    // SCTP over Mobile IP: no ADD-IP (the resolution turned it off), one
    // address (the home address) at the mobile.
    let association =
        cx.f.sctp
            .as_ref()
            .map(|s| s.association.clone())
            .ok_or_else(|| ScenarioError::model(ends.key.as_str(), "no SCTP configuration"))?;
    let (mut mobile, fixed) = agent_configs(
        cx.env,
        cx.f,
        cx.start,
        cx.log,
        association,
        vec![ends.fixed_addr],
        vec![ends.mobile_addr],
    )?;
    mobile.policy = PolicyKind::None;
    let fixed_agent = ends.add(cx.w, ends.fixed, Box::new(SctpAgent::new(fixed)))?;
    let mobile_agent = ends.add(cx.w, ends.mobile, Box::new(SctpAgent::new(mobile)))?;
    Ok(ends.flow(FlowAgents::Sctp {
        mobile: mobile_agent,
        fixed: fixed_agent,
    }))
}
