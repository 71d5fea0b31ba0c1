//! The agent's mobility: link notifications and association events go to
//! the handover manager (through [`crate::models::sctp::handover`]), its
//! decisions are logged, and a new primary may get a bandwidth-aware start.

use std::net::IpAddr;

use msctp_proto::Time;
use msctp_proto::policy::LinkEvent;

use super::SctpAgent;
use crate::kernel::Ctx;
use crate::kernel::notification::Notification;
use crate::models::sctp::handover::{self, NodeLinks};

impl SctpAgent {
    /// Lets the handover manager carry out a held move and a policy that
    /// watches the path statistics (AISLE) decide; returns whether either
    /// did.
    pub(super) fn poll_policy(&mut self, ctx: &Ctx<'_>) -> bool {
        let now = ctx.now();
        let id = self.assoc;
        let (Some(m), Some(ep), Some(id)) = (self.manager.as_mut(), self.endpoint.as_mut(), id)
        else {
            return false;
        };
        let Some(a) = ep.association_mut(id) else {
            return false;
        };
        give_path_capacities(a, &self.cfg.path_capacities);
        let before = m.records().len();
        if !m.poll(now, a, &NodeLinks(ctx.node())).1 {
            return false;
        }
        self.log_decisions(now, before);
        true
    }

    /// Logs the handover manager's decisions from record `from` on and
    /// returns the local addresses they made primary.
    pub(super) fn log_decisions(&mut self, now: Time, from: usize) -> Vec<IpAddr> {
        let Some(m) = self.manager.as_ref() else {
            return Vec::new();
        };
        if from >= m.records().len() {
            return Vec::new();
        }
        let records = m.records().get(from..).unwrap_or_default();
        let lines: Vec<String> = records
            .iter()
            .map(|r| format!("{:?} -> {:?}", r.decision, r.result))
            .collect();
        let primaries = made_primary(records);
        for d in lines {
            self.event(now, "decision", d);
        }
        primaries
    }

    pub(super) fn on_link_notification(&mut self, ctx: &mut Ctx<'_>, n: &Notification) {
        let Some(ev) = handover::link_event(n, ctx.node()) else {
            return;
        };
        let now = ctx.now();
        let id = self.assoc;
        let Some(m) = self.manager.as_mut() else {
            return;
        };
        // A sample of signal strength for a policy that does not read it
        // (the radio model sends one per beacon heard, ten a second per
        // cell and station) changes nothing: the policy learns nothing
        // and the engine is as the last call left it, so the agent does
        // not drive it, when that call is known to find nothing again (a
        // policy that does not poll, an idle poll without side effects).
        if matches!(ev, LinkEvent::SignalSample { .. })
            && !m.reads_signal()
            && !m.polls()
            && self
                .endpoint
                .as_ref()
                .is_some_and(|e| e.idle_poll_is_pure())
        {
            return;
        }
        let before = m.records().len();
        let assoc = match (self.endpoint.as_mut(), id) {
            (Some(ep), Some(id)) => ep.association_mut(id),
            _ => None,
        };
        m.on_link_event(now, ev, assoc, &NodeLinks(ctx.node()));
        for local in self.log_decisions(now, before) {
            self.bandwidth_aware_start_from(now, local);
        }
        self.drive(ctx);
    }

    /// Bandwidth-aware start on the mobile, which now sends from `local`:
    /// the window of its primary path follows the new network.
    pub(super) fn bandwidth_aware_start_from(&mut self, now: Time, local: IpAddr) {
        let Some(primary) = self.association().and_then(|a| a.primary()) else {
            return;
        };
        // The mobile's path keeps its RTT sample across the move.
        let _ = self.bandwidth_aware_start(now, primary, local);
    }

    /// Sets the window of the path to `remote` from the capacity of the
    /// network that holds the mobile's address `mobile_addr` and the path's
    /// smoothed RTT (docs/MODELS.md section 3), on the data sender only.
    /// Returns false only when the path has no RTT yet (to be tried again);
    /// true when done or not applicable (feature off, not the sender,
    /// capacity unknown, path gone).
    pub(super) fn bandwidth_aware_start(
        &mut self,
        now: Time,
        remote: IpAddr,
        mobile_addr: IpAddr,
    ) -> bool {
        if self.cfg.source.is_none() {
            return true;
        }
        let Some(&(_, bps)) = self
            .cfg
            .capacities
            .iter()
            .find(|(net, _)| net.contains(&mobile_addr))
        else {
            return true;
        };
        let Some(a) = self.association_mut() else {
            return true;
        };
        let Some(path) = a.path_stats(remote) else {
            return true;
        };
        let Some(srtt) = path.srtt else {
            return false;
        };
        let bdp = (bps as f64 / 8.0 * srtt.as_secs_f64()) as u64;
        if a.set_path_cwnd_from_bdp(remote, bdp).is_err() {
            return true;
        }
        let cwnd = a.path_stats(remote).map(|p| p.cwnd).unwrap_or(0);
        self.event(
            now,
            "bandwidth-aware-start",
            format!("{remote} via {mobile_addr}: {bps} bit/s x {srtt:?} -> cwnd {cwnd}"),
        );
        true
    }
}

/// Gives each path whose remote address lies in one of `caps`' prefixes
/// that capacity (an oracle in place of the packet-pair estimate).
fn give_path_capacities(a: &mut msctp_proto::Association, caps: &[(ipnet::IpNet, u64)]) {
    if caps.is_empty() {
        return;
    }
    let remotes: Vec<IpAddr> = a.paths().iter().map(|p| p.remote).collect();
    for r in remotes {
        if let Some(&(_, bps)) = caps.iter().find(|(net, _)| net.contains(&r)) {
            let _ = a.set_path_capacity(r, Some(bps));
        }
    }
}

/// The local addresses that the decisions made primary successfully.
fn made_primary(records: &[handover::DecisionRecord]) -> Vec<IpAddr> {
    records
        .iter()
        .filter(|r| r.result.is_ok())
        .filter_map(|r| match r.decision {
            msctp_proto::policy::Decision::MakePrimary(a) => Some(a),
            _ => None,
        })
        .collect()
}

/// Scenario D of docs/MODELS.md section 4 (dual-homed mobile and
/// correspondent): under CMT the mobile sends path k (the correspondent's
/// k-th address) from its own k-th address, so that each path crosses
/// its own access network, as Iyengar et al.'s disjoint paths do. Without
/// CMT, or with a single-homed correspondent, the source stays the
/// engine's choice.
pub(super) fn pair_cmt_paths(a: &mut msctp_proto::Association, locals: &[IpAddr]) {
    if !a.cmt().enabled {
        return;
    }
    let remotes: Vec<IpAddr> = a.paths().iter().map(|p| p.remote).collect();
    if remotes.len() < 2 {
        return;
    }
    for (r, l) in remotes.iter().zip(locals) {
        let _ = a.set_path_source(*r, Some(*l));
    }
}
