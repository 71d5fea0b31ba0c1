//! QUIC flows (`quic`): a quinn-proto client on the mobile, bound at the
//! start to the address of `mobile_iface` (or its first interface) and
//! migrating on the mobile's link decisions (the link-decision bridge:
//! a network is usable once detected with an address, gone at link
//! loss), and a server on the fixed node; the application's source on the
//! sending side. quinn-proto's transport as `[flows.quic]` sets it (its
//! defaults where absent); the endpoints' seeds from the run's seed and
//! the flow's name.

use std::net::SocketAddr;

use rand_core::RngCore;

use super::FlowCx;
use super::baseline::{BaselineFlow, FlowAgents, baseline_ends};
use crate::models::quic::{QuicAgent, QuicAgentConfig, QuicPathTagging};
use crate::scenario::error::ScenarioError;

pub(super) fn build(cx: FlowCx<'_, '_>) -> Result<BaselineFlow, ScenarioError> {
    let ends = baseline_ends(cx.w, cx.env, cx.shared, cx.f)?;
    let key = &ends.key;
    let name = &cx.f.spec.name;
    let seed_of = |side: &str| {
        crate::kernel::rng::stream(cx.seed, &format!("flow/{name}/quic/{side}")).next_u64()
    };
    let local = SocketAddr::new(ends.mobile_addr, cx.f.mobile_port);
    let remote = SocketAddr::new(ends.fixed_addr, cx.f.fixed_port);
    let transport = std::sync::Arc::new(cx.f.spec.quic.clone().unwrap_or_default().transport());
    let mut client = QuicAgentConfig::client(local, remote, cx.start, seed_of("client"))
        .with_log(cx.log.clone());
    client.transport = transport.clone();
    let mut server =
        QuicAgentConfig::server(cx.f.fixed_port, seed_of("server")).with_log(cx.log.clone());
    server.transport = transport;
    // Uplink arrivals are tagged with the mobile's address, numbered as
    // mSCTP's paths.
    server.tagging = QuicPathTagging::PeerAddress(cx.env.mobile(cx.f).addrs.clone());
    if ends.downlink {
        server = server.with_source(cx.env.source(cx.f, cx.start)?);
    } else {
        client = client.with_source(cx.env.source(cx.f, cx.start)?);
    }
    let quic_err = |e| ScenarioError::model(format!("{key}.quic"), e);
    let server = QuicAgent::new(server).map_err(quic_err)?;
    let client = QuicAgent::new(client).map_err(quic_err)?;
    cx.shared.observers.bridge(cx.w, ends.mobile, key)?;
    let fixed_agent = ends.add(cx.w, ends.fixed, Box::new(server))?;
    let mobile_agent = ends.add(cx.w, ends.mobile, Box::new(client))?;
    Ok(ends.flow(FlowAgents::Quic {
        mobile: mobile_agent,
        fixed: fixed_agent,
    }))
}
