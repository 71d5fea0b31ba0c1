//! Flows: the mobile and fixed node they join, their ports and address
//! family, their traffic and handover policy, and their transport's
//! configuration (SCTP or TCP), built once here.

use msctp_proto::AssociationConfig;
use msctp_tcp::TcpConfig;

use super::transport::{Family, Topology};
use super::{Cell, Link};
use msctp_proto::policy::PolicyKind;

use crate::models::app::Traffic;
use crate::scenario::error::{MAX_RATE, MAX_S, ScenarioError, positive_f, range_f, range_u};
use crate::scenario::spec::*;

/// A flow, resolved.
pub(crate) struct Flow {
    /// The flow's table (a copy: the resolved scenario owns it too).
    pub spec: FlowSpec,
    /// Index into the scenario's mobiles.
    pub mobile: usize,
    /// Index into the scenario's fixed nodes.
    pub fixed: usize,
    pub fixed_port: u16,
    pub mobile_port: u16,
    /// The address family the flow runs over; `None` for mSCTP, which
    /// uses every address the fixed node has.
    pub family: Option<Family>,
    pub traffic: Traffic,
    /// SCTP transports: the association's configuration and how the
    /// agents use it.
    pub sctp: Option<SctpFlow>,
    /// TCP transports: the connection's configuration.
    pub tcp: Option<TcpConfig>,
}

/// An SCTP flow's configuration, resolved once: the file's
/// `[flows.sctp]` with what the flow's transport and policy imply, checked
/// by the engine.
pub(crate) struct SctpFlow {
    /// Both ends' association configuration.
    pub association: AssociationConfig,
    /// Split fast retransmit in both agents.
    pub split_fast_retransmit: bool,
    /// A bandwidth-aware start from each cell's configured rate (the
    /// agents are given the cells' rates).
    pub oracle_start: bool,
    /// The paths' capacities a policy reads are the cells' configured
    /// rates.
    pub oracle_capacities: bool,
    /// "ns-2 set-primary" (`primary_switch = "local"`): the mobile's
    /// addresses all in the INIT, the primary switched locally, no ADD-IP.
    pub local_switch: bool,
    /// The sender's partial reliability policy for every message
    /// (`reliability`; RFC 7496).
    pub send_policy: msctp_proto::PrPolicy,
}

impl Scenario {
    pub(super) fn resolve_flow(
        &self,
        k: usize,
        f: &FlowSpec,
        mobile: Option<usize>,
        links: &[Link],
        cells: &[Cell],
    ) -> Result<Flow, ScenarioError> {
        let key = format!("flows[{}]", f.name);
        let Some(mobile) = mobile else {
            return Err(ScenarioError::reference(
                format!("{key}.mobile"),
                format!("no mobile {:?}", f.mobile),
            ));
        };
        let m = &self.mobiles[mobile];
        let Some(fixed) = self.fixed_index(&f.fixed) else {
            return Err(ScenarioError::reference(
                format!("{key}.fixed"),
                format!("no fixed node {:?}", f.fixed),
            ));
        };
        let topo = Topology {
            s: self,
            links,
            cells,
        };
        let family = topo.check_transport(f, m)?;
        range_f(&format!("{key}.start_s"), f.start_s, 0.0, self.duration_s)?;
        range_f(
            &format!("{key}.start_jitter_s"),
            f.start_jitter_s,
            0.0,
            self.duration_s,
        )?;
        if let Some(s) = f.stop_s {
            range_f(&format!("{key}.stop_s"), s, f.start_s, MAX_S)?;
        }
        let traffic = f.traffic.traffic(&key)?;
        self.check_policy(&key, f, m)?;
        let t = f.transport;
        let sctp = if t.uses_sctp() {
            Some(sctp_flow(&format!("{key}.sctp"), f)?)
        } else {
            None
        };
        let tcp = if t.uses_tcp() {
            let c = f.tcp.as_ref().map(|t| t.config.clone()).unwrap_or_default();
            c.validate().map_err(|e| ScenarioError::Range {
                key: format!("{key}.tcp.{}", e.key()),
                value: "(see the tcp table)".into(),
                allowed: e.to_string(),
            })?;
            Some(c)
        } else {
            None
        };
        let (fixed_port, mobile_port) = Scenario::flow_ports(k, f);
        Ok(Flow {
            spec: f.clone(),
            mobile,
            fixed,
            fixed_port,
            mobile_port,
            family,
            traffic,
            sctp,
            tcp,
        })
    }

    fn check_policy(&self, key: &str, f: &FlowSpec, m: &MobileSpec) -> Result<(), ScenarioError> {
        match &f.policy {
            PolicyKind::SignalStrength {
                add_threshold_w,
                primary_threshold_w,
                ..
            } => {
                positive_f(
                    &format!("{key}.policy.add_threshold_w"),
                    *add_threshold_w,
                    1e3,
                )?;
                positive_f(
                    &format!("{key}.policy.primary_threshold_w"),
                    *primary_threshold_w,
                    1e3,
                )
            }
            PolicyKind::FastestFirst { rates } => {
                for (iface, r) in rates {
                    if !m.ifaces.iter().any(|i| &i.name == iface) {
                        return Err(ScenarioError::reference(
                            format!("{key}.policy.rates"),
                            format!("mobile {:?} has no interface {iface:?}", m.name),
                        ));
                    }
                    range_u(&format!("{key}.policy.rates.{iface}"), *r, 1, MAX_RATE)?;
                }
                Ok(())
            }
            PolicyKind::Aisle { params, .. } => {
                params.validate().map_err(|why| ScenarioError::Range {
                    key: format!("{key}.policy.params"),
                    value: format!("{params:?}"),
                    allowed: why.to_string(),
                })
            }
            _ => Ok(()),
        }
    }
}

/// An SCTP flow's configuration (see [`SctpFlow`]). Over Mobile IPv4
/// the association runs without ADD-IP (single-homed on the home
/// address); an mSCTP flow runs the path estimators at both ends when
/// its policy reads them (AISLE) or its bandwidth-aware start takes the
/// packet-pair estimate, in which case the engine also sets the window
/// itself whenever new data changes path.
fn sctp_flow(key: &str, f: &FlowSpec) -> Result<SctpFlow, ScenarioError> {
    let s = &f.sctp;
    let mut association = s.association.clone();
    let msctp = f.transport == TransportSpec::Msctp;
    let packet_pair_start =
        s.bandwidth_aware_start && s.bandwidth_estimate == BandwidthEstimateSpec::PacketPair;
    let local_switch = msctp && s.primary_switch == PrimarySwitchSpec::Local;
    if local_switch {
        if !matches!(
            f.policy,
            PolicyKind::FastestFirst { .. } | PolicyKind::NewestAddress
        ) {
            return Err(ScenarioError::combination(
                format!("{key}.sctp.primary_switch"),
                "the local (ns-2 set-primary) switch follows a fastest_first or \
                 newest_address policy's instants",
            ));
        }
        // ns-2's SCTP module has no ADD-IP: nothing is signalled.
        association.asconf = false;
    }
    if !msctp {
        association.asconf = false;
    } else if f.policy.needs_no_monitor() || packet_pair_start {
        association.estimators.enabled = true;
        association.estimators.bandwidth_aware_start |= packet_pair_start;
    }
    association.validate().map_err(|e| ScenarioError::Range {
        key: format!("{key}.{}", e.field),
        value: "(see the sctp table)".into(),
        allowed: e.why.to_string(),
    })?;
    // `key` names the flow's sctp table; the policy is the flow's own key.
    let flow_key = key.strip_suffix(".sctp").unwrap_or(key);
    let send_policy = match &f.reliability {
        None => msctp_proto::PrPolicy::Reliable,
        Some(r) if association.pr_sctp => r.policy(&format!("{flow_key}.reliability"))?,
        Some(_) => {
            return Err(ScenarioError::combination(
                format!("{flow_key}.reliability"),
                "needs [flows.sctp] pr_sctp = true (RFC 3758: both ends negotiate it)",
            ));
        }
    };
    Ok(SctpFlow {
        association,
        split_fast_retransmit: msctp && s.split_fast_retransmit,
        oracle_start: msctp && s.bandwidth_aware_start && !packet_pair_start,
        oracle_capacities: msctp && s.capacity_estimate == Some(BandwidthEstimateSpec::Oracle),
        local_switch,
        send_policy,
    })
}
