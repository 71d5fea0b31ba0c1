//! Datagram flows (`udp`, `mip6-udp`, `fmip6-udp`): a CBR or Pareto
//! ON/OFF source (ns-2 semantics) on the sending end and a sink on the
//! other. Built after the common baseline ends: the source, then the sink.

use msctp_proto::Time;

use super::Shared;
use super::baseline::{BaselineFlow, FlowAgents, baseline_ends};
use super::env::Env;
use crate::kernel::Agent;
use crate::kernel::world::World;
use crate::models::app::{
    CbrConfig, ParetoConfig, ParetoOnOff, STAMP_LEN, SinkConfig, Traffic, UdpCbr, UdpFlow, UdpSink,
};
use crate::scenario::convert::secs;
use crate::scenario::error::ScenarioError;
use crate::scenario::resolve::Flow;

pub(super) fn build(
    w: &mut World,
    env: &Env<'_>,
    shared: &mut Shared,
    f: &Flow<'_>,
    start: Time,
) -> Result<BaselineFlow, ScenarioError> {
    let ends = baseline_ends(w, env, shared, f)?;
    let (src, src_port, dst, dst_port, src_node, dst_node) = if ends.downlink {
        (
            ends.fixed_addr,
            f.fixed_port,
            ends.mobile_addr,
            f.mobile_port,
            ends.fixed,
            ends.mobile,
        )
    } else {
        (
            ends.mobile_addr,
            f.mobile_port,
            ends.fixed_addr,
            f.fixed_port,
            ends.mobile,
            ends.fixed,
        )
    };
    let flow = UdpFlow::new(src, src_port, dst, dst_port);
    let tk = format!("{}.traffic", ends.key);
    let stop = f.spec.stop_s.map(secs);
    let (agent, pareto, size): (Box<dyn Agent>, bool, usize) = match f.traffic {
        Traffic::Cbr {
            message_bytes,
            rate_bps,
        } => (
            Box::new(
                UdpCbr::new(CbrConfig {
                    flow,
                    packet_size: message_bytes,
                    rate_bps,
                    start,
                    stop,
                    max_packets: None,
                })
                .map_err(|e| ScenarioError::model(&tk, e))?,
            ),
            false,
            message_bytes,
        ),
        Traffic::Pareto {
            message_bytes,
            rate_bps,
            mean_on,
            mean_off,
            shape,
        } => (
            Box::new(
                ParetoOnOff::new(ParetoConfig {
                    flow,
                    packet_size: message_bytes,
                    rate_bps,
                    mean_on,
                    mean_off,
                    shape,
                    start,
                    stop,
                })
                .map_err(|e| ScenarioError::model(&tk, e))?,
            ),
            true,
            message_bytes,
        ),
        _ => {
            return Err(ScenarioError::model(
                format!("{tk}.kind"),
                "datagram transports carry cbr or pareto traffic",
            ));
        }
    };
    let payload = size.saturating_sub(flow.overhead()).max(STAMP_LEN) as u64;
    let sink = UdpSink::new(SinkConfig {
        port: dst_port,
        max_records: env.r.scenario.limits.flow_records,
    });
    let source = ends.add(w, src_node, agent)?;
    let sink = ends.add(w, dst_node, Box::new(sink))?;
    Ok(ends.flow(FlowAgents::Udp {
        source,
        pareto,
        sink,
        payload,
    }))
}
