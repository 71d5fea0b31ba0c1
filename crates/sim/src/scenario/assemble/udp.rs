//! Datagram flows (`udp`, `mip6-udp`, `fmip6-udp`): a CBR or Pareto
//! ON/OFF source (ns-2 semantics) on the sending end and a sink on the
//! other. Built after the common baseline ends: the source, then the sink.

use super::FlowCx;
use super::baseline::{BaselineFlow, FlowAgents, baseline_ends};
use crate::kernel::Agent;
use crate::models::app::{
    CbrConfig, ParetoConfig, ParetoOnOff, STAMP_LEN, SinkConfig, Traffic, UdpCbr, UdpFlow, UdpSink,
};
use crate::scenario::error::ScenarioError;
use crate::scenario::spec::secs;

pub(super) fn build(cx: FlowCx<'_, '_>) -> Result<BaselineFlow, ScenarioError> {
    let ends = baseline_ends(cx.w, cx.env, cx.shared, cx.f)?;
    let (src, src_port, dst, dst_port, src_node, dst_node) = if ends.downlink {
        (
            ends.fixed_addr,
            cx.f.fixed_port,
            ends.mobile_addr,
            cx.f.mobile_port,
            ends.fixed,
            ends.mobile,
        )
    } else {
        (
            ends.mobile_addr,
            cx.f.mobile_port,
            ends.fixed_addr,
            cx.f.fixed_port,
            ends.mobile,
            ends.fixed,
        )
    };
    let flow = UdpFlow::new(src, src_port, dst, dst_port);
    let tk = format!("{}.traffic", ends.key);
    let stop = cx.f.spec.stop_s.map(secs);
    let (agent, pareto, size): (Box<dyn Agent>, bool, usize) = match cx.f.traffic {
        Traffic::Cbr {
            message_bytes,
            rate_bps,
        } => (
            Box::new(
                UdpCbr::new(CbrConfig {
                    flow,
                    packet_size: message_bytes,
                    rate_bps,
                    start: cx.start,
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
                    start: cx.start,
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
        max_records: cx.env.r.scenario.limits.flow_records,
    });
    let source = ends.add(cx.w, src_node, agent)?;
    let sink = ends.add(cx.w, dst_node, Box::new(sink))?;
    Ok(ends.flow(FlowAgents::Udp {
        source,
        pareto,
        sink,
        payload,
    }))
}
