//! The multi-connection transport (`cmhn`, E4): one TCP connection per
//! mobile interface (each serving one cell), driven by the radio's link
//! decisions; the slots numbered as the cells' paths. Built after the
//! common baseline ends: the mobile's link-decision bridge, the fixed
//! node's agent, the mobile's.

use std::net::SocketAddr;

use super::FlowCx;
use super::baseline::{BaselineFlow, FlowAgents, baseline_ends};
use super::handoff::initial_link;
use super::observer::NO_PATH;
use super::tcp::tcp_of;
use crate::models::cmhn::{CmhnAgent, CmhnConfig, CmhnInterface, CmhnSide};
use crate::scenario::error::ScenarioError;

pub(super) fn build(cx: FlowCx<'_, '_>) -> Result<BaselineFlow, ScenarioError> {
    let ends = baseline_ends(cx.w, cx.env, cx.shared, cx.f)?;
    let key = ends.key.clone();
    let tcp = tcp_of(cx.f, &key)?;
    let m = cx.env.mobile(cx.f);
    let c = cx.f.spec.cmhn.clone().unwrap_or_default();
    let paths = m.paths();
    let interfaces: Vec<CmhnInterface> = m
        .links
        .iter()
        .map(|l| CmhnInterface {
            iface: l.iface,
            address: l.address.addr(),
        })
        .collect();
    let slot_paths: Vec<u32> = m
        .links
        .iter()
        .map(|l| paths.get(&l.cell).copied().unwrap_or(NO_PATH))
        .collect();
    let mut mobile = CmhnConfig::new(
        tcp.clone(),
        CmhnSide::Mobile {
            interfaces,
            remote: SocketAddr::new(ends.fixed_addr, cx.f.fixed_port),
            local_port: cx.f.mobile_port,
        },
    );
    let mut fixed = CmhnConfig::new(
        tcp,
        CmhnSide::Fixed {
            port: cx.f.fixed_port,
        },
    );
    for x in [&mut mobile, &mut fixed] {
        x.settings = c.model.clone();
        x.log = Some(cx.log.clone());
        x.start = cx.start;
    }
    mobile.initially_usable = vec![initial_link(cx.env, cx.f, m, c.scenario.initial.as_deref())];
    if ends.downlink {
        fixed.source = Some(cx.env.source(cx.f, cx.start)?);
    } else {
        mobile.source = Some(cx.env.source(cx.f, cx.start)?);
    }
    let cmhn_err = |e| ScenarioError::model(format!("{key}.cmhn"), e);
    let fixed_side = CmhnAgent::new(fixed).map_err(cmhn_err)?;
    let mobile_side = CmhnAgent::new(mobile).map_err(cmhn_err)?;
    cx.shared.observers.bridge(cx.w, ends.mobile, &key)?;
    let fixed_agent = ends.add(cx.w, ends.fixed, Box::new(fixed_side))?;
    let mobile_agent = ends.add(cx.w, ends.mobile, Box::new(mobile_side))?;
    let mut flow = ends.flow(FlowAgents::Cmhn {
        mobile: mobile_agent,
        fixed: fixed_agent,
    });
    flow.slot_paths = slot_paths;
    Ok(flow)
}
