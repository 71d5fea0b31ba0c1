//! The SCTP agent's configuration and what it records: who starts the
//! association, bounds, settings, events, path samples and counters.

use std::net::IpAddr;
use std::time::Duration;

use msctp_proto::{AssociationConfig, Time};

use super::LocalSwitch;
use crate::measure::PathId;
use crate::measure::flow_log::SharedFlowLog;
use crate::models::app::Source;
use crate::models::sctp::handover::{self, HandoverConfig, PolicyKind};

/// Who starts the association.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// Sends the INIT to `peer` (the first address; the others are known
    /// alternatives) at `at`. Local addresses: the node's addresses of the
    /// peer's family at that time; if there are none yet, at the first
    /// address the node gets.
    Connect {
        peer: Vec<IpAddr>,
        peer_port: u16,
        at: Time,
    },
    /// Accepts associations (the first one is the agent's).
    Listen,
}

/// Bounds of the agent's records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentLimits {
    /// Events kept (all are counted).
    pub max_events: usize,
    /// Path samples kept.
    pub max_samples: usize,
    /// Rows of the engine's path trace kept (beyond: counted in
    /// `samples_dropped`).
    pub max_path_trace: usize,
    /// Uids of DATA-carrying packets kept (to count lost data packets).
    pub max_data_uids: usize,
    /// Messages handed to the engine in one call (bounds a burst).
    pub max_messages_per_call: usize,
    /// Datagrams polled from the engine in one call.
    pub max_transmits_per_call: usize,
}

impl Default for AgentLimits {
    fn default() -> Self {
        AgentLimits {
            max_events: 100_000,
            max_samples: 1_000_000,
            max_path_trace: 1_000_000,
            max_data_uids: 4_000_000,
            max_messages_per_call: 100_000,
            max_transmits_per_call: 100_000,
        }
    }
}

/// Configuration of an [`SctpAgent`].
#[derive(Debug, Clone)]
pub struct SctpAgentConfig {
    /// Local SCTP port.
    pub port: u16,
    pub role: Role,
    /// Parameters of the association.
    pub association: AssociationConfig,
    /// Split fast retransmit (docs/MODELS.md section 3, CMT).
    pub split_fast_retransmit: bool,
    /// Bandwidth-aware start (docs/MODELS.md section 3): the capacity (bit/s)
    /// of the network each prefix of the mobile's addresses belongs to.
    /// When the data moves to such a network the sender sets the path's
    /// window to capacity x smoothed RTT (see
    /// `Association::set_path_cwnd_from_bdp`). Empty: off.
    pub capacities: Vec<(ipnet::IpNet, u64)>,
    /// Capacities (bit/s) given to the engine as its paths' capacity
    /// (`Association::set_path_capacity`), by the prefix of the mobile's
    /// address, in place of the packet-pair estimate that a policy
    /// (AISLE) reads. Empty: the estimate.
    pub path_capacities: Vec<(ipnet::IpNet, u64)>,
    /// The sending application; `None` on the receiving end.
    pub source: Option<Source>,
    /// Stream and payload protocol identifier of the messages sent.
    pub stream: u16,
    pub ppid: u32,
    pub unordered: bool,
    /// The partial reliability policy of every message the source sends
    /// (RFC 7496; fully reliable by default).
    pub send_policy: msctp_proto::PrPolicy,
    /// The flow's records (shared with the other end).
    pub log: Option<SharedFlowLog>,
    /// This agent runs on the mobile node (path numbering, policy).
    pub mobile_side: bool,
    /// The mobile's addresses, numbered as path ids.
    pub path_addrs: Vec<IpAddr>,
    /// Handover policy (mobile side).
    pub policy: PolicyKind,
    /// The handover manager's settings (mobile side; default
    /// [`handover::sim_handover_config`]).
    pub handover: HandoverConfig,
    /// "ns-2 set-primary" (mobile side; `None`: off): every address of
    /// `path_addrs` in the INIT, the primary switched locally at both ends
    /// at the handoff instants, no ASCONF (see [`LocalSwitch`]). The
    /// association's `asconf` and `policy` should be off with it.
    pub local_switch: Option<LocalSwitch>,
    /// Period of path samples (cwnd, RTO, flight, primary); `None`: off.
    pub sample_interval: Option<Duration>,
    /// The engine's event-driven path trace (every value of cwnd and
    /// ssthresh with the RFC 9260 section 7.2 rule that set it, and each
    /// change of flight size, RTO and SRTT); bounded by
    /// `limits.max_samples`. Off: the engine keeps nothing.
    pub path_trace: bool,
    /// On the data sender: start on a path picked uniformly at random
    /// with this seed (E7a's stations "each picking an AP at random")
    /// instead of the one the handshake gave.
    pub initial_path_seed: Option<u64>,
    /// The receiving application expects this many bytes (file transfer):
    /// the log's `completed_at` is set when they are delivered.
    pub expect_bytes: Option<u64>,
    pub limits: AgentLimits,
}

impl SctpAgentConfig {
    /// An agent on `port` with RFC defaults, nothing to send, no records.
    pub fn new(port: u16, role: Role) -> Self {
        SctpAgentConfig {
            port,
            role,
            association: AssociationConfig::default(),
            split_fast_retransmit: false,
            capacities: Vec::new(),
            path_capacities: Vec::new(),
            source: None,
            stream: 0,
            ppid: 0,
            unordered: false,
            send_policy: msctp_proto::PrPolicy::Reliable,
            log: None,
            mobile_side: false,
            path_addrs: Vec::new(),
            policy: PolicyKind::None,
            handover: handover::sim_handover_config(),
            local_switch: None,
            sample_interval: None,
            path_trace: false,
            initial_path_seed: None,
            expect_bytes: None,
            limits: AgentLimits::default(),
        }
    }
}

/// Something that happened at the agent (association events, policy
/// decisions), for the run's event series.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentEvent {
    pub time: Time,
    pub kind: &'static str,
    pub detail: String,
}

/// One path's state at a sampling instant (data sender's view).
#[derive(Debug, Clone, PartialEq)]
pub struct PathSample {
    pub time: Time,
    /// The peer address of the path.
    pub remote: IpAddr,
    /// Path id of the remote address (its index among the mobile's
    /// addresses; `u32::MAX` when the remote is the fixed node).
    pub path: PathId,
    /// New data goes to this path now.
    pub data_path: bool,
    pub active: bool,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub flight: u32,
    pub srtt: Option<Duration>,
    pub rto: Duration,
    pub errors: u32,
    /// The local address packets leave from (`None`: not pinned).
    pub local_primary: Option<IpAddr>,
}

/// Counters of the agent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AgentCounters {
    pub packets_in: u64,
    pub packets_out: u64,
    /// Transmits dropped because the node had no source address or the
    /// packet could not be built or sent.
    pub send_failures: u64,
    /// Transmits from an address the node no longer holds, refused as an
    /// operating system refuses to send from an address it does not have
    /// (e.g. a mobile without a handover policy keeps using a lost one).
    pub unowned_source: u64,
    /// Packets for the agent's port while it has no endpoint (its
    /// configuration was refused), dropped.
    pub no_endpoint: u64,
    pub data_packets_out: u64,
    pub messages_sent: u64,
    pub messages_received: u64,
    /// DATA chunks the receiving association discarded (buffer full).
    pub chunks_discarded: u64,
    pub events_dropped: u64,
    pub samples_dropped: u64,
    pub data_uids_dropped: u64,
}
