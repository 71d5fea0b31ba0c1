//! The SCTP agent: one unchanged `msctp_proto::Endpoint` on a node, fed by
//! the node's IP layer.
//!
//! - **Input**: every packet for the node with IP protocol 132 and the
//!   agent's port as SCTP destination port goes to
//!   [`Endpoint::handle_datagram`] with the IP source and destination; other
//!   packets are passed on to the next agent.
//! - **Output**: each [`Transmit`] becomes an IPv4/IPv6 packet from
//!   `Transmit::source` (or, when the engine leaves it open, the address
//!   the node's routing picks for the destination). A host sends a packet
//!   from the interface that holds its source address, so each SCTP path
//!   leaves by its own access network.
//! - **Timers**: one simulator timer at [`Endpoint::poll_timeout`], re-armed
//!   after every call; one for the traffic source's next message; one for
//!   periodic path samples.
//! - **Application**: the sending side takes messages from an
//!   [`app::Source`](crate::models::app::Source) whenever the send buffer has room;
//!   the receiving side reads every message at once (an application that
//!   never lags).
//! - **Mobility**: on a mobile node, a [`HandoverManager`] runs the handover
//!   policy (see [`crate::models::sctp::handover`]).
//!
//! # Flow records
//!
//! Both ends write the flow's [`FlowLog`](crate::metrics::flow_log::FlowLog) as an
//! observer of the packets they exchange (the engine is not changed for it):
//! - the receiving end logs one [`Arrival`](crate::metrics::Arrival) per
//!   arriving DATA chunk, `New` if the association did not have its TSN
//!   before the packet and has it after, `Duplicate` if it had it already
//!   (a chunk the receiver discarded for lack of buffer is not logged); it
//!   logs a reordering signal for every SACK with gap-ack blocks it sends,
//!   and a delivery for every message the application reads;
//! - the sending end logs a retransmission for every DATA chunk whose TSN
//!   it sent before, fast when the engine says the chunk was marked by
//!   missing reports ([`Association::retransmit_reason`]), and the bytes the
//!   application offered.
//!
//! Data numbers (`seq`) count TSNs from the flow's first one (see
//! [`TsnNumbering`]). **Path ids** number the mobile node's addresses:
//! `PathId(k)` is the k-th address of [`SctpAgentConfig::path_addrs`]
//! (the scenario lists the mobile's address in every cell), taken on the
//! mobile's side of the packet: for an arrival, the receiver's local address
//! on downlink (the mobile receives) and the sender's address on uplink;
//! for a retransmission likewise. An address not in the list is
//! `PathId(u32::MAX)`.

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use msctp_proto::association::send::Retransmit;
use msctp_proto::association::trace::PathRecord;
use msctp_proto::policy::LinkEvent;
use msctp_proto::{
    AssocId, Association, AssociationConfig, Endpoint, EndpointConfig, Event, Time, Transmit,
};
use rand_core::RngCore;
use smallvec::SmallVec;

use super::observe::{self, TsnNumbering};
use crate::kernel::EngineTimer;
use crate::kernel::ip::{self, IpPacket};
use crate::kernel::notification::Notification;
use crate::kernel::timer::TimerId;
use crate::kernel::{Agent, Ctx, PortBinding, RxInfo};
use crate::metrics::flow_log::SharedFlowLog;
use crate::metrics::{PathId, ReorderKind};
use crate::models::app::Source;
use crate::models::sctp::handover::{self, HandoverConfig, HandoverManager, NodeLinks, PolicyKind};

const TOKEN_ENGINE: u64 = 1;
const TOKEN_SOURCE: u64 = 2;
const TOKEN_SAMPLE: u64 = 3;
const TOKEN_CONNECT: u64 = 4;

/// The payload of generated messages (zeros), shared by every agent.
static ZEROS: [u8; 65_536] = [0; 65_536];

/// What one call of the agent's `feed_source` did.
struct Fed {
    /// The association took bytes.
    offered: bool,
    /// It took every message the source produced (none is true).
    complete: bool,
}

/// What one call of the agent's `transmit` did.
struct Sent {
    /// At least one packet left.
    any: bool,
    /// It stopped because the engine had nothing more (not at the bound
    /// on packets per call).
    drained: bool,
}

/// The DATA chunks of a received packet (TSN, user bytes, whether the
/// association had the TSN before), without a heap allocation for the
/// usual few.
type RxChunks = SmallVec<[(u32, u32, bool); 4]>;

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
            log: None,
            mobile_side: false,
            path_addrs: Vec::new(),
            policy: PolicyKind::None,
            handover: handover::sim_handover_config(),
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

/// An SCTP endpoint on a simulated node. See the module documentation.
pub struct SctpAgent {
    cfg: SctpAgentConfig,
    endpoint: Option<Endpoint>,
    assoc: Option<AssocId>,
    manager: Option<HandoverManager>,
    engine_timer: EngineTimer,
    source_timer: Option<(TimerId, Time)>,
    want_connect: bool,
    tx_numbers: TsnNumbering,
    rx_numbers: TsnNumbering,
    highest_sent: Option<u64>,
    events: Vec<AgentEvent>,
    samples: Vec<PathSample>,
    /// The engine's path trace (`SctpAgentConfig::path_trace`).
    path_trace: Vec<PathRecord>,
    data_uids: Vec<u64>,
    counters: AgentCounters,
    closed_at: Option<Time>,
    /// Paths that became primary before they had an RTT sample: the
    /// bandwidth-aware start waits for their first measurement.
    bandwidth_pending: Vec<IpAddr>,
    /// Where new data went from when (each change of the data path, on
    /// the data sender; bounded by `limits.max_events`).
    data_paths: Vec<(Time, IpAddr)>,
    zeros: Bytes,
}

impl std::fmt::Debug for SctpAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SctpAgent")
            .field("port", &self.cfg.port)
            .field("assoc", &self.assoc)
            .field("counters", &self.counters)
            .finish()
    }
}

impl SctpAgent {
    pub fn new(cfg: SctpAgentConfig) -> Self {
        // A policy that draws (AISLE) takes its seed from its kind: the
        // builder of the run names it, derived from the run's seed.
        let manager = cfg
            .policy
            .build(|| 0)
            .map(|p| HandoverManager::new(p, cfg.handover));
        SctpAgent {
            manager,
            endpoint: None,
            assoc: None,
            engine_timer: EngineTimer::new(TOKEN_ENGINE),
            source_timer: None,
            want_connect: false,
            tx_numbers: TsnNumbering::default(),
            rx_numbers: TsnNumbering::default(),
            highest_sent: None,
            events: Vec::new(),
            samples: Vec::new(),
            path_trace: Vec::new(),
            data_uids: Vec::new(),
            counters: AgentCounters::default(),
            closed_at: None,
            bandwidth_pending: Vec::new(),
            data_paths: Vec::new(),
            zeros: Bytes::from_static(&ZEROS),
            cfg,
        }
    }

    pub fn config(&self) -> &SctpAgentConfig {
        &self.cfg
    }

    pub fn endpoint(&self) -> Option<&Endpoint> {
        self.endpoint.as_ref()
    }

    /// The agent's association, once it exists.
    pub fn association(&self) -> Option<&Association> {
        let id = self.assoc?;
        self.endpoint.as_ref()?.association(id)
    }

    pub fn association_mut(&mut self) -> Option<&mut Association> {
        let id = self.assoc?;
        self.endpoint.as_mut()?.association_mut(id)
    }

    pub fn events(&self) -> &[AgentEvent] {
        &self.events
    }

    pub fn samples(&self) -> &[PathSample] {
        &self.samples
    }

    /// Uids of the packets this agent sent that carried DATA, increasing.
    pub fn data_uids(&self) -> &[u64] {
        &self.data_uids
    }

    pub fn counters(&self) -> AgentCounters {
        self.counters
    }

    pub fn manager(&self) -> Option<&HandoverManager> {
        self.manager.as_ref()
    }

    /// The data sender's data path over time: (since, peer address).
    pub fn data_paths(&self) -> &[(Time, IpAddr)] {
        &self.data_paths
    }

    /// The engine's event-driven path trace, oldest first (empty unless
    /// `SctpAgentConfig::path_trace`).
    pub fn path_trace(&self) -> &[PathRecord] {
        &self.path_trace
    }

    /// Moves what the engine traced since the last call into the agent's
    /// trace, stamped `now`: the engine is driven by one callback at a
    /// time, and every change it made in it happened at that instant.
    fn take_path_trace(&mut self, now: Time) {
        if !self.cfg.path_trace {
            return;
        }
        let (Some(ep), Some(id)) = (self.endpoint.as_mut(), self.assoc) else {
            return;
        };
        let Some(a) = ep.association_mut(id) else {
            return;
        };
        if !a.path_trace_enabled() {
            a.set_path_trace(true);
        }
        let before = self.path_trace.len();
        a.take_path_trace(now, &mut self.path_trace);
        let max = self.cfg.limits.max_path_trace;
        if self.path_trace.len() > max {
            let over = self.path_trace.len() - max.max(before);
            self.counters.samples_dropped += over as u64;
            self.path_trace.truncate(max.max(before));
        }
    }

    /// Notes a change of the path new data goes to (data sender only).
    fn track_data_path(&mut self, now: Time) {
        if self.cfg.source.is_none() {
            return;
        }
        let Some(d) = self.association().and_then(|a| a.data_destination()) else {
            return;
        };
        if self.data_paths.last().map(|x| x.1) != Some(d)
            && self.data_paths.len() < self.cfg.limits.max_events
        {
            self.data_paths.push((now, d));
        }
    }

    /// When the association closed, if it did.
    pub fn closed_at(&self) -> Option<Time> {
        self.closed_at
    }

    fn event(&mut self, time: Time, kind: &'static str, detail: String) {
        if self.events.len() < self.cfg.limits.max_events {
            self.events.push(AgentEvent { time, kind, detail });
        } else {
            self.counters.events_dropped += 1;
        }
    }

    pub fn path_id(&self, addr: IpAddr) -> PathId {
        self.cfg
            .path_addrs
            .iter()
            .position(|a| *a == addr)
            .map_or(PathId(u32::MAX), |i| PathId(i as u32))
    }

    /// Path id of a packet from `src` to `dst` (mobile side's address).
    fn packet_path(&self, local: IpAddr, remote: IpAddr) -> PathId {
        if self.cfg.mobile_side {
            self.path_id(local)
        } else {
            self.path_id(remote)
        }
    }

    fn connect(&mut self, ctx: &mut Ctx<'_>) {
        let Role::Connect {
            peer, peer_port, ..
        } = self.cfg.role.clone()
        else {
            return;
        };
        let Some(first) = peer.first().copied() else {
            self.event(ctx.now(), "connect-failed", "no peer address".into());
            return;
        };
        let locals: Vec<IpAddr> = ctx
            .node()
            .ifaces()
            .iter()
            .flat_map(|i| i.addrs().iter().map(|n| n.addr()))
            .filter(|a| a.is_ipv4() == first.is_ipv4())
            .collect();
        if locals.is_empty() {
            self.want_connect = true;
            return;
        }
        self.want_connect = false;
        let now = ctx.now();
        let Some(ep) = self.endpoint.as_mut() else {
            return;
        };
        ep.set_local_addresses(&locals);
        match ep.connect(now, &peer, peer_port) {
            Ok(id) => {
                self.assoc = Some(id);
                if let Some(a) = ep.association_mut(id) {
                    a.set_split_fast_retransmit(self.cfg.split_fast_retransmit);
                }
                let detail = format!("{locals:?} -> {peer:?}");
                self.event(now, "connect", detail);
            }
            Err(e) => self.event(now, "connect-failed", e.to_string()),
        }
        self.drive(ctx);
    }

    /// Runs the engine until it has nothing more to say: events, the
    /// application, transmissions; then re-arms the timers.
    ///
    /// A round repeats while one made progress, except that a round which
    /// ended with the engine's output drained needs no successor when
    /// nothing its steps read has changed since they ran: no event is
    /// waiting, the policy does not poll (its `poll` decides nothing), and
    /// the source had every message it produced accepted (so with the
    /// buffer room and the time unchanged it produces nothing more).
    /// Sending moves bytes from queued to outstanding, leaving the room
    /// as it was. The next round would find nothing, so it is not run,
    /// unless its fruitless poll would itself change the engine
    /// ([`Endpoint::idle_poll_is_pure`]: the first poll after a path
    /// becomes ready for its first capacity trains draws the first
    /// train's deadline, and skipping it would change the run).
    fn drive(&mut self, ctx: &mut Ctx<'_>) {
        let polls = self.manager.as_ref().is_some_and(|m| m.polls());
        let mut rounds = 0;
        loop {
            rounds += 1;
            let mut progressed = self.handle_events(ctx);
            progressed |= self.poll_policy(ctx);
            let fed = self.feed_source(ctx);
            progressed |= fed.offered;
            let sent = self.transmit(ctx);
            progressed |= sent.any;
            if !progressed || rounds > 64 {
                break;
            }
            let settled = sent.drained
                && fed.complete
                && !polls
                && self
                    .endpoint
                    .as_ref()
                    .is_some_and(|e| !e.has_events() && e.idle_poll_is_pure());
            if settled {
                break;
            }
        }
        self.track_data_path(ctx.now());
        self.take_path_trace(ctx.now());
        self.arm_timers(ctx);
    }

    fn handle_events(&mut self, ctx: &mut Ctx<'_>) -> bool {
        let now = ctx.now();
        let mut any = false;
        while let Some(ep) = self.endpoint.as_mut() {
            let Some((id, ev)) = ep.poll_event() else {
                break;
            };
            any = true;
            if self.assoc.is_none() && matches!(ev, Event::Connected) {
                self.assoc = Some(id);
                if let Some(a) = ep.association_mut(id) {
                    a.set_split_fast_retransmit(self.cfg.split_fast_retransmit);
                }
            }
            if Some(id) != self.assoc {
                continue;
            }
            match &ev {
                Event::Readable => {
                    self.read_messages(now);
                    continue;
                }
                Event::Writable => continue,
                Event::Connected => {
                    if self.cfg.mobile_side
                        && let Some(a) = ep.association_mut(id)
                    {
                        pair_cmt_paths(a, &self.cfg.path_addrs);
                    }
                    if let (Some(seed), Some(a), true) = (
                        self.cfg.initial_path_seed,
                        ep.association_mut(id),
                        self.cfg.source.is_some(),
                    ) {
                        let paths: Vec<IpAddr> = a.paths().iter().map(|p| p.remote).collect();
                        if !paths.is_empty() {
                            let k = (seed % paths.len() as u64) as usize;
                            let _ = a.set_primary(paths[k]);
                        }
                    }
                    if let (Some(m), Some(a)) = (self.manager.as_mut(), ep.association_mut(id)) {
                        m.on_established(now, a, &NodeLinks(ctx.node()));
                    }
                }
                Event::Closed { .. } => self.closed_at = Some(now),
                _ => {}
            }
            let before = self.manager.as_ref().map_or(0, |m| m.records().len());
            if let (Some(m), Some(a)) = (self.manager.as_mut(), ep.association_mut(id)) {
                m.on_association_event(now, &ev, a, &NodeLinks(ctx.node()));
            }
            let primaries = self.log_decisions(now, before);
            let (kind, detail) = describe(&ev);
            self.event(now, kind, detail);
            for local in primaries {
                self.bandwidth_aware_start_from(now, local);
            }
            if let Event::PrimaryChanged { addr, .. } = ev
                && !self.cfg.mobile_side
            {
                self.bandwidth_pending.retain(|a| *a != addr);
                self.bandwidth_pending.push(addr);
            }
        }
        // Paths that became primary wait here for their first RTT sample.
        let pending = std::mem::take(&mut self.bandwidth_pending);
        for addr in pending {
            if !self.bandwidth_aware_start(now, addr, addr) {
                self.bandwidth_pending.push(addr);
            }
        }
        any
    }

    /// Lets the handover manager carry out a held move and a policy that
    /// watches the path statistics (AISLE) decide; returns whether either
    /// did.
    fn poll_policy(&mut self, ctx: &Ctx<'_>) -> bool {
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
    fn log_decisions(&mut self, now: Time, from: usize) -> Vec<IpAddr> {
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

    fn read_messages(&mut self, now: Time) {
        let id = self.assoc;
        let (Some(ep), Some(id)) = (self.endpoint.as_mut(), id) else {
            return;
        };
        let Some(a) = ep.association_mut(id) else {
            return;
        };
        let mut log = self.cfg.log.as_ref().map(|l| l.borrow_mut());
        while let Some(m) = a.recv() {
            self.counters.messages_received += 1;
            if let Some(log) = log.as_mut() {
                log.delivered(now, m.data.len() as u64);
                log.message_delivered(now);
            }
        }
        if let Some(mut log) = log
            && log.completed_at.is_none()
            && self
                .cfg
                .expect_bytes
                .is_some_and(|b| log.bytes_delivered >= b)
        {
            log.completed_at = Some(now);
        }
    }

    /// Hands the application's messages to the association.
    fn feed_source(&mut self, ctx: &mut Ctx<'_>) -> Fed {
        let idle = Fed {
            offered: false,
            complete: true,
        };
        let now = ctx.now();
        let Some(id) = self.assoc else { return idle };
        let Some(ep) = self.endpoint.as_mut() else {
            return idle;
        };
        let Some(a) = ep.association_mut(id) else {
            return idle;
        };
        if a.state() != msctp_proto::State::Established {
            return idle;
        }
        let Some(src) = self.cfg.source.as_mut() else {
            return idle;
        };
        let room = a.send_capacity();
        let msgs = src.take(now, room, ctx.rng());
        if msgs.is_empty() {
            return idle;
        }
        let taken = msgs.len();
        let mut accepted = 0;
        let mut offered = 0u64;
        let mut log = self.cfg.log.as_ref().map(|l| l.borrow_mut());
        for (k, n) in msgs.into_iter().enumerate() {
            if k >= self.cfg.limits.max_messages_per_call {
                break;
            }
            let data = if n <= self.zeros.len() {
                self.zeros.slice(..n)
            } else {
                Bytes::from(vec![0u8; n])
            };
            match a.send(self.cfg.stream, self.cfg.ppid, data, self.cfg.unordered) {
                Ok(()) => {
                    offered += n as u64;
                    accepted += 1;
                    self.counters.messages_sent += 1;
                    if let Some(log) = log.as_mut() {
                        log.message_sent(now);
                    }
                }
                Err(_) => break,
            }
        }
        if let Some(log) = log.as_mut() {
            log.bytes_offered += offered;
        }
        Fed {
            offered: offered > 0,
            complete: accepted == taken,
        }
    }

    /// Sends everything the engine has.
    fn transmit(&mut self, ctx: &mut Ctx<'_>) -> Sent {
        let now = ctx.now();
        let mut out = Sent {
            any: false,
            drained: false,
        };
        for _ in 0..self.cfg.limits.max_transmits_per_call {
            let Some(ep) = self.endpoint.as_mut() else {
                out.drained = true;
                break;
            };
            let Some(t) = ep.poll_transmit(now) else {
                out.drained = true;
                break;
            };
            out.any = true;
            self.send_one(ctx, t);
        }
        out
    }

    fn send_one(&mut self, ctx: &mut Ctx<'_>, mut t: Transmit) {
        let now = ctx.now();
        if ctx.capturing() {
            // The checksum the endpoint left to the layer below
            // (offload), for captures that Wireshark checks.
            msctp_proto::wire::crc::fill(t.packet_mut());
        }
        let src = match t.source {
            Some(s) => Some(s),
            None => ctx.source_for(t.destination).map(|(_, a)| a),
        };
        let Some(src) = src else {
            self.counters.send_failures += 1;
            return;
        };
        if !ctx.node().owns(src) {
            self.counters.unowned_source += 1;
            return;
        }
        let carries_data = self.observe_tx(now, src, t.destination, t.packet());
        // The engine left room for the IP header in front of the packet.
        let pkt = match IpPacket::build_in_headroom(
            src,
            t.destination,
            ip::proto::SCTP,
            ip::DEFAULT_TTL,
            t.payload,
            t.headroom,
        ) {
            Ok(p) => p,
            Err(_) => {
                self.counters.send_failures += 1;
                return;
            }
        };
        match ctx.send_uid(pkt) {
            Ok(uid) => {
                self.counters.packets_out += 1;
                if carries_data {
                    self.counters.data_packets_out += 1;
                    if self.data_uids.len() < self.cfg.limits.max_data_uids {
                        self.data_uids.push(uid);
                    } else {
                        self.counters.data_uids_dropped += 1;
                    }
                }
            }
            Err(_) => self.counters.send_failures += 1,
        }
    }

    /// Logs what an outgoing packet says about the flow; true if it carries
    /// DATA.
    fn observe_tx(&mut self, now: Time, src: IpAddr, dst: IpAddr, sctp: &[u8]) -> bool {
        let mut tsns: SmallVec<[u32; 8]> = SmallVec::new();
        observe::for_each_data(sctp, |tsn, _| tsns.push(tsn));
        let gaps = observe::sack_with_gaps(sctp);
        let Some(log) = self.cfg.log.clone() else {
            return !tsns.is_empty();
        };
        let mut log = log.borrow_mut();
        if gaps && self.cfg.source.is_none() {
            log.reorder_signal(now, ReorderKind::SackWithGaps);
        }
        if tsns.is_empty() || self.cfg.source.is_none() {
            return !tsns.is_empty();
        }
        let path = self.packet_path(src, dst);
        for tsn in tsns.iter().copied() {
            self.tx_numbers.set_origin(tsn);
            let seq = self.tx_numbers.seq(tsn);
            if self.highest_sent.is_some_and(|h| seq <= h) {
                let fast = self
                    .association()
                    .and_then(|a| a.retransmit_reason(tsn))
                    .is_some_and(|r| r == Retransmit::Fast);
                log.retransmitted(now, seq, path, fast);
            } else {
                self.highest_sent = Some(seq);
            }
        }
        true
    }

    /// Arrival records of an incoming packet: classification before and
    /// after the engine processed it.
    fn observe_rx_before(&mut self, sctp: &[u8]) -> RxChunks {
        if self.cfg.log.is_none() || self.cfg.source.is_some() {
            return RxChunks::new();
        }
        let Some(a) = self.association() else {
            return RxChunks::new();
        };
        let mut out = RxChunks::new();
        observe::for_each_data(sctp, |tsn, n| out.push((tsn, n, a.has_received_tsn(tsn))));
        if !out.is_empty() && !self.rx_numbers.has_origin() {
            let first = a.cumulative_tsn_received().wrapping_add(1);
            self.rx_numbers.set_origin(first);
        }
        out
    }

    fn observe_rx_after(&mut self, now: Time, src: IpAddr, dst: IpAddr, chunks: RxChunks) {
        if chunks.is_empty() {
            return;
        }
        let Some(log) = self.cfg.log.clone() else {
            return;
        };
        let path = self.packet_path(dst, src);
        let mut log = log.borrow_mut();
        for (tsn, n, had) in chunks {
            let has = self.association().is_some_and(|a| a.has_received_tsn(tsn));
            let seq = self.rx_numbers.seq(tsn);
            if had {
                log.arrival(now, path, seq, n, false);
            } else if has {
                log.arrival(now, path, seq, n, true);
            } else {
                self.counters.chunks_discarded += 1;
            }
        }
    }

    fn arm_timers(&mut self, ctx: &mut Ctx<'_>) {
        // The engine's next deadline, or the end of a move the handover
        // manager holds for a returning link, whichever is first.
        let engine = self.endpoint.as_ref().and_then(|e| e.poll_timeout());
        let held = self.manager.as_ref().and_then(|m| m.held_deadline());
        let next = match (engine, held) {
            (Some(e), Some(h)) => Some(e.min(h)),
            (e, h) => e.or(h),
        };
        self.engine_timer.set(ctx, next);
        let now = ctx.now();
        let due = if self.assoc.is_some() {
            self.cfg.source.as_ref().and_then(|s| s.next_due(now))
        } else {
            None
        };
        let due = due.map(|t| t.max(now));
        if self.source_timer.map(|(_, t)| t) != due {
            if let Some((id, _)) = self.source_timer.take() {
                ctx.cancel_timer(id);
            }
            // A due time not in the future means the source waits for
            // buffer room, which a SACK will bring: no busy timer then.
            if let Some(t) = due.filter(|t| *t > now) {
                let id = ctx.set_timer(t, TOKEN_SOURCE);
                self.source_timer = Some((id, t));
            }
        }
    }

    fn sample(&mut self, now: Time) {
        let Some(a) = self.association() else {
            return;
        };
        if !a.state().is_established() {
            return;
        }
        let dest = a.data_destination();
        let lp = a.local_primary();
        let rows: Vec<PathSample> = a
            .paths()
            .into_iter()
            .map(|p| PathSample {
                time: now,
                remote: p.remote,
                path: self.path_id(p.remote),
                data_path: Some(p.remote) == dest,
                active: p.state == msctp_proto::path::PathState::Active,
                cwnd: p.cwnd,
                ssthresh: p.ssthresh,
                flight: p.flight_size,
                srtt: p.srtt,
                rto: p.rto,
                errors: p.error_count,
                local_primary: lp,
            })
            .collect();
        for r in rows {
            if self.samples.len() < self.cfg.limits.max_samples {
                self.samples.push(r);
            } else {
                self.counters.samples_dropped += 1;
            }
        }
    }

    fn on_link_notification(&mut self, ctx: &mut Ctx<'_>, n: &Notification) {
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
    fn bandwidth_aware_start_from(&mut self, now: Time, local: IpAddr) {
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
    fn bandwidth_aware_start(&mut self, now: Time, remote: IpAddr, mobile_addr: IpAddr) -> bool {
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

/// Kind and detail of an association event for the event series.
fn describe(ev: &Event) -> (&'static str, String) {
    match ev {
        Event::Connected => ("connected", String::new()),
        Event::Closed { reason } => ("closed", format!("{reason:?}")),
        Event::Restarted => ("restarted", String::new()),
        Event::PathUp { addr } => ("path-up", addr.to_string()),
        Event::PathDown { addr } => ("path-down", addr.to_string()),
        Event::PathPotentiallyFailed { addr } => ("path-potentially-failed", addr.to_string()),
        Event::PathConfirmed { addr } => ("path-confirmed", addr.to_string()),
        Event::PeerAddressAdded { addr } => ("peer-address-added", addr.to_string()),
        Event::PeerAddressRemoved { addr } => ("peer-address-removed", addr.to_string()),
        Event::PrimaryChanged { addr, reason } => ("primary-changed", format!("{addr} {reason:?}")),
        Event::LocalAddressAdded { addr } => ("local-address-added", addr.to_string()),
        Event::LocalAddressAddFailed { addr, .. } => ("local-address-add-failed", addr.to_string()),
        Event::LocalAddressRemoved { addr } => ("local-address-removed", addr.to_string()),
        Event::LocalAddressRemoveFailed { addr, .. } => {
            ("local-address-remove-failed", addr.to_string())
        }
        Event::PeerPrimaryRequest { addr, accepted } => (
            "peer-primary-request",
            format!("{addr} accepted={accepted}"),
        ),
        Event::AsconfUnsupported => ("asconf-unsupported", String::new()),
        Event::Adaptation { indication } => ("adaptation", indication.to_string()),
        Event::PeerError { causes } => ("peer-error", format!("{causes:?}")),
        Event::AuthenticationFailure => ("authentication-failure", String::new()),
        Event::SendFailed { data, .. } => ("send-failed", data.len().to_string()),
        Event::Readable => ("readable", String::new()),
        Event::Writable => ("writable", String::new()),
    }
}

impl Agent for SctpAgent {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        let mut seed = [0u8; 32];
        ctx.rng().fill_bytes(&mut seed);
        // Simulated links lose packets but never flip bits: the CRC32c is
        // left to the "network card" (checksum offload), which fills it
        // only when a capture records the bytes (`send_one`).
        let ep_cfg = EndpointConfig {
            listen: self.cfg.role == Role::Listen,
            checksum_offload: true,
            // Room for the IP header (IPv6's is the longer), written in
            // front of each packet instead of copying it.
            transmit_headroom: ip::IPV6_HEADER_LEN,
            association: self.cfg.association.clone(),
            ..EndpointConfig::new(self.cfg.port)
        };
        match Endpoint::new(ep_cfg, seed) {
            Ok(ep) => self.endpoint = Some(ep),
            Err(e) => {
                self.event(ctx.now(), "config-error", e.to_string());
                return;
            }
        }
        if self.cfg.role == Role::Listen {
            let addrs: Vec<IpAddr> = ctx
                .node()
                .ifaces()
                .iter()
                .flat_map(|i| i.addrs().iter().map(|n| n.addr()))
                .collect();
            if let Some(ep) = self.endpoint.as_mut() {
                ep.set_local_addresses(&addrs);
            }
        }
        if let Role::Connect { at, .. } = self.cfg.role {
            ctx.set_timer(at, TOKEN_CONNECT);
        }
        if let Some(iv) = self.cfg.sample_interval.filter(|d| !d.is_zero()) {
            ctx.set_timer_in(iv, TOKEN_SAMPLE);
        }
    }

    /// Takes only SCTP packets to its port (see `on_packet`).
    fn binding(&self) -> Option<PortBinding> {
        Some(PortBinding {
            protocol: ip::proto::SCTP,
            port: self.cfg.port,
        })
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: IpPacket, _rx: &RxInfo) -> Option<IpPacket> {
        if pkt.protocol() != ip::proto::SCTP
            || observe::dst_port(pkt.payload()) != Some(self.cfg.port)
        {
            return Some(pkt);
        }
        if self.endpoint.is_none() {
            self.counters.no_endpoint += 1;
            ctx.drop_packet(pkt, "SCTP agent without endpoint");
            return None;
        }
        self.counters.packets_in += 1;
        let now = ctx.now();
        let (src, dst) = (pkt.src(), pkt.dst());
        let before = self.observe_rx_before(pkt.payload());
        let hl = pkt.header_len();
        // The SCTP packet without the IP header, moved, not sliced: a
        // slice would share the buffer (an allocation) even for packets
        // the engine keeps nothing of.
        let mut data = pkt.freeze();
        bytes::Buf::advance(&mut data, hl);
        if let Some(ep) = self.endpoint.as_mut() {
            ep.handle_datagram(now, src, dst, data);
        }
        // A listener learns its association from the Connected event.
        if self.assoc.is_none() {
            self.handle_events(ctx);
        }
        self.observe_rx_after(now, src, dst, before);
        self.drive(ctx);
        None
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, token: u64) {
        let now = ctx.now();
        match token {
            TOKEN_ENGINE => {
                self.engine_timer.fired();
                if let Some(ep) = self.endpoint.as_mut() {
                    ep.handle_timeout(now);
                }
                self.drive(ctx);
            }
            TOKEN_SOURCE => {
                self.source_timer = None;
                self.drive(ctx);
            }
            TOKEN_SAMPLE => {
                self.sample(now);
                if let Some(iv) = self.cfg.sample_interval {
                    ctx.set_timer_in(iv, TOKEN_SAMPLE);
                }
            }
            TOKEN_CONNECT => self.connect(ctx),
            _ => {}
        }
    }

    fn on_notify(&mut self, ctx: &mut Ctx<'_>, n: &Notification) {
        if self.want_connect && matches!(n, Notification::AddressAdded { .. }) {
            self.connect(ctx);
        }
        if self.cfg.role == Role::Listen
            && let Notification::AddressAdded { .. } | Notification::AddressRemoved { .. } = n
        {
            let addrs: Vec<IpAddr> = ctx
                .node()
                .ifaces()
                .iter()
                .flat_map(|i| i.addrs().iter().map(|n| n.addr()))
                .collect();
            if let Some(ep) = self.endpoint.as_mut() {
                ep.set_local_addresses(&addrs);
            }
        }
        if self.manager.is_some() {
            self.on_link_notification(ctx, n);
        }
    }
}

/// Scenario D of docs/MODELS.md section 4 (dual-homed mobile and
/// correspondent): under CMT the mobile sends path k (the correspondent's
/// k-th address) from its own k-th address, so that each path crosses
/// its own access network, as Iyengar et al.'s disjoint paths do. Without
/// CMT, or with a single-homed correspondent, the source stays the
/// engine's choice.
fn pair_cmt_paths(a: &mut msctp_proto::Association, locals: &[IpAddr]) {
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
