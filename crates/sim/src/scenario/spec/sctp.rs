//! `[flows.sctp]`: the engine's configuration itself
//! (`msctp_proto::AssociationConfig`: its field names are the keys, its
//! defaults RFC 9260's, its `validate` the check; durations in ms with
//! an `_ms` suffix, see `msctp_proto::config::units`), plus the few keys
//! that say how the simulator's agents use it. A new field of the
//! engine's configuration is a key here without any change to the
//! simulator.

use std::collections::BTreeSet;

use msctp_proto::AssociationConfig;
use msctp_proto::estimate::CapacityMethod;
use serde::{Deserialize, Serialize};

/// The capacity a bandwidth-aware start uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum BandwidthEstimateSpec {
    /// The cell's configured rate: a perfect estimate.
    #[default]
    Oracle,
    /// The engine's packet-pair estimate of the path.
    PacketPair,
}

/// How the mobile's handover moves the primary (`primary_switch`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum PrimarySwitchSpec {
    /// RFC 5061: the policy adds the new address, asks the peer to make
    /// it primary and deletes the old one, with ASCONF chunks.
    #[default]
    Asconf,
    /// "ns-2 set-primary": every address of the mobile in the INIT, the
    /// primary switched locally at both ends at the policy's instants, no
    /// ASCONF (`crate::models::sctp::LocalSwitch`; the policy must be
    /// `fastest_first` or `newest_address`).
    Local,
}

/// A flow's `[flows.sctp]` table: the association's configuration and
/// the simulator's own keys (the table as a file writes it, one level:
/// `[flows.sctp.cmt]`, `[flows.sctp.estimators]`, `[flows.sctp.limits]`
/// are the engine's nested tables).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "SctpTable")]
pub struct SctpSpec {
    /// Every key but the simulator's: RFC 9260's defaults for absent
    /// ones, and one simulator default: capacity trains are timed by the
    /// receiver (`estimators.capacity_method = "probe_echo"`, the method
    /// the studies' results were produced with) unless the file says
    /// `"sbpp"` (the engine's default, sender-based packet pair).
    #[serde(flatten)]
    pub association: AssociationConfig,
    /// Split fast retransmit in the simulator's agents (false).
    pub split_fast_retransmit: bool,
    /// Bandwidth-aware start (docs/MODELS.md section 3; false): when the
    /// data moves to another network (the mobile makes a new address
    /// primary, or the fixed end changes primary on the mobile's
    /// request), the sender sets that path's window to the network's
    /// capacity times the path's smoothed RTT and continues in congestion
    /// avoidance. The capacity is the `rate_bps` of the cell whose prefix
    /// holds the mobile's address (a perfect capacity estimate, standing
    /// in for an estimator such as AISLE's packet pairs), unless
    /// `bandwidth_estimate` says `packet_pair`.
    pub bandwidth_aware_start: bool,
    /// Where the bandwidth-aware start takes the capacity from: `oracle`
    /// (the default, the cell's `rate_bps`, as above) or `packet_pair`
    /// (the engine's own estimate from probe trains, docs/MODELS.md
    /// section 3; the estimators are then on at both ends and the
    /// sender's engine sets the window itself whenever new data changes
    /// path).
    pub bandwidth_estimate: BandwidthEstimateSpec,
    /// Where the paths' capacities that a policy reads (AISLE's C1 and
    /// C2) come from: `packet_pair` (absent: the engine's own estimate)
    /// or `oracle` (the `rate_bps` of the cell whose prefix holds the
    /// mobile's address, given to the data sender's engine: isolates the
    /// estimator's part in the policy's decisions).
    pub capacity_estimate: Option<BandwidthEstimateSpec>,
    /// How the handover moves the primary (`asconf`, the default, or
    /// `local`: ns-2's set-primary).
    pub primary_switch: PrimarySwitchSpec,
    /// The keys the file gave (top level of the table), for the checks
    /// of combinations a transport refuses (not in files).
    #[serde(skip)]
    pub given: BTreeSet<String>,
}

/// A `[flows.sctp]` table as read: the simulator's keys by name, the
/// rest for the engine's configuration.
#[derive(Deserialize)]
struct SctpTable {
    split_fast_retransmit: Option<bool>,
    bandwidth_aware_start: Option<bool>,
    bandwidth_estimate: Option<BandwidthEstimateSpec>,
    capacity_estimate: Option<BandwidthEstimateSpec>,
    primary_switch: Option<PrimarySwitchSpec>,
    #[serde(flatten)]
    engine: toml::Table,
}

impl Default for SctpSpec {
    /// A flow without a `[flows.sctp]` table has the configuration of an
    /// empty one: the defaults of a file (where `pr_sctp` is off and the
    /// capacity method is `probe_echo`), not `AssociationConfig::default()`.
    fn default() -> Self {
        SctpSpec::try_from(SctpTable {
            split_fast_retransmit: None,
            bandwidth_aware_start: None,
            bandwidth_estimate: None,
            capacity_estimate: None,
            primary_switch: None,
            engine: toml::Table::new(),
        })
        .expect("an empty [flows.sctp] table is valid")
    }
}

impl TryFrom<SctpTable> for SctpSpec {
    type Error = toml::de::Error;

    fn try_from(t: SctpTable) -> Result<Self, Self::Error> {
        let mut given: BTreeSet<String> = t.engine.keys().cloned().collect();
        for (key, present) in [
            ("split_fast_retransmit", t.split_fast_retransmit.is_some()),
            ("bandwidth_aware_start", t.bandwidth_aware_start.is_some()),
            ("bandwidth_estimate", t.bandwidth_estimate.is_some()),
            ("capacity_estimate", t.capacity_estimate.is_some()),
            ("primary_switch", t.primary_switch.is_some()),
        ] {
            if present {
                given.insert(key.to_string());
            }
        }
        let method_given = t
            .engine
            .get("estimators")
            .and_then(|e| e.get("capacity_method"))
            .is_some();
        let mut association = AssociationConfig::deserialize(toml::Value::Table(t.engine))?;
        if !method_given {
            association.estimators.capacity_method = CapacityMethod::ProbeEcho;
        }
        Ok(SctpSpec {
            association,
            split_fast_retransmit: t.split_fast_retransmit.unwrap_or(false),
            bandwidth_aware_start: t.bandwidth_aware_start.unwrap_or(false),
            bandwidth_estimate: t.bandwidth_estimate.unwrap_or_default(),
            capacity_estimate: t.capacity_estimate,
            primary_switch: t.primary_switch.unwrap_or_default(),
            given,
        })
    }
}
