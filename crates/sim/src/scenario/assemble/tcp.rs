//! TCP flows (`tcp`, `mip4-tcp`, `mip6-tcp`, `fmip6-tcp`): a TCP NewReno
//! client on the mobile, bound to the mobile's address (its home address
//! under Mobile IP), and a server on the fixed node; the application's
//! source on the sending side. Built after the common baseline ends: the
//! server, then the client.

use std::net::SocketAddr;

use msctp_tcp::TcpConfig;

use super::FlowCx;
use super::baseline::{BaselineFlow, FlowAgents, baseline_ends};
use crate::models::tcp::{TcpAgent, TcpAgentConfig};
use crate::scenario::error::ScenarioError;
use crate::scenario::resolve::Flow;

pub(super) fn build(cx: FlowCx<'_, '_>) -> Result<BaselineFlow, ScenarioError> {
    let ends = baseline_ends(cx.w, cx.env, cx.shared, cx.f)?;
    let key = &ends.key;
    let tcp = tcp_of(cx.f, key)?;
    let local = SocketAddr::new(ends.mobile_addr, cx.f.mobile_port);
    let remote = SocketAddr::new(ends.fixed_addr, cx.f.fixed_port);
    let mut client =
        TcpAgentConfig::client(tcp.clone(), local, remote, cx.start).with_log(cx.log.clone());
    let mut server = TcpAgentConfig::server(tcp, cx.f.fixed_port).with_log(cx.log.clone());
    if ends.downlink {
        server = server.with_source(cx.env.source(cx.f, cx.start)?);
    } else {
        client = client.with_source(cx.env.source(cx.f, cx.start)?);
    }
    let tcp_err = |e: msctp_tcp::TcpError| ScenarioError::model(format!("{key}.tcp"), e);
    let server = TcpAgent::new(server).map_err(tcp_err)?;
    let client = TcpAgent::new(client).map_err(tcp_err)?;
    let fixed_agent = ends.add(cx.w, ends.fixed, Box::new(server))?;
    let mobile_agent = ends.add(cx.w, ends.mobile, Box::new(client))?;
    Ok(ends.flow(FlowAgents::Tcp {
        mobile: mobile_agent,
        fixed: fixed_agent,
    }))
}

/// The flow's TCP configuration (resolved for every TCP transport).
pub(super) fn tcp_of(f: &Flow, key: &str) -> Result<TcpConfig, ScenarioError> {
    f.tcp
        .clone()
        .ok_or_else(|| ScenarioError::model(key, "no TCP configuration"))
}
