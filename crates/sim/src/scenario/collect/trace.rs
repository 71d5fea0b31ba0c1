//! The event-driven traces of a run (`output.trace`, see
//! [`crate::measure::trace`]): the SCTP agents' path traces, the flows'
//! per-message delays, the kernel's queue lengths.

use crate::kernel::world::World;
use crate::measure::{DelayRow, PathTraceRow, QueueRow, Traces};
use crate::models::sctp::SctpAgent;
use crate::scenario::assemble::{Built, BuiltKind, FlowAgents};

/// The SCTP agents of a flow (mSCTP, or a baseline over SCTP).
fn sctp_agents<'w>(w: &'w World, kind: &BuiltKind) -> [(&'static str, Option<&'w SctpAgent>); 2] {
    let ids = match kind {
        BuiltKind::Msctp {
            mobile_agent,
            fixed_agent,
            ..
        } => Some((*mobile_agent, *fixed_agent)),
        BuiltKind::Baseline(bf) => match bf.agents {
            FlowAgents::Sctp { mobile, fixed } => Some((mobile, fixed)),
            _ => None,
        },
    };
    match ids {
        Some((m, f)) => [
            ("mobile", w.agent::<SctpAgent>(m)),
            ("fixed", w.agent::<SctpAgent>(f)),
        ],
        None => [("mobile", None), ("fixed", None)],
    }
}

/// Every trace of the run, with warnings for what went beyond its bound.
pub(crate) fn traces(b: &Built, warnings: &mut Vec<String>) -> Traces {
    let mut t = Traces::default();
    for f in &b.flows {
        for (side, agent) in sctp_agents(&b.world, &f.kind) {
            let Some(a) = agent else { continue };
            for r in a.path_trace() {
                let id = a.path_id(r.remote);
                t.paths.push(PathTraceRow {
                    flow: f.spec.name.clone(),
                    side,
                    time: r.time,
                    remote: r.remote.to_string(),
                    path: if id.0 == u32::MAX {
                        -1
                    } else {
                        i64::from(id.0)
                    },
                    cause: r.cause.label(),
                    cwnd: r.cwnd,
                    ssthresh: r.ssthresh,
                    flight: r.flight,
                    srtt_ms: r.srtt.map(|d| d.as_secs_f64() * 1000.0),
                    rto_ms: r.rto.as_secs_f64() * 1000.0,
                });
            }
        }
        let log = f.log.borrow();
        if let Some(d) = log.delays.as_ref() {
            if d.dropped > 0 {
                warnings.push(format!(
                    "flow {}: {} message delays beyond limits.flow_records or unmatched",
                    f.spec.name, d.dropped
                ));
            }
            t.delays.extend(d.rows.iter().map(|r| DelayRow {
                flow: f.spec.name.clone(),
                time: r.time,
                delay_ms: r.delay_s * 1000.0,
                jitter_ms: r.jitter_s * 1000.0,
            }));
        }
    }
    let w = &b.world;
    let tracer = w.tracer();
    if tracer.overflow() > 0 {
        warnings.push(format!(
            "{} queue records beyond limits.flow_records",
            tracer.overflow()
        ));
    }
    let mut names: Vec<((usize, usize), String)> = Vec::new();
    for q in tracer.queue_records() {
        let key = (q.node.index(), q.iface.index());
        let name = match names.iter().find(|(k, _)| *k == key) {
            Some((_, n)) => n.clone(),
            None => {
                let n = w.node(q.node).map_or_else(
                    || format!("{}:{}", key.0, key.1),
                    |n| {
                        let i = n.iface(q.iface).map_or("?", |i| i.name());
                        format!("{}:{i}", n.name())
                    },
                );
                names.push((key, n.clone()));
                n
            }
        };
        t.queues.push(QueueRow {
            queue: name,
            time: q.time,
            packets: q.packets,
        });
    }
    t
}
