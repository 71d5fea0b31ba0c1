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
//! Both ends write the flow's [`FlowLog`](crate::measure::flow_log::FlowLog) as an
//! observer of the packets they exchange (the engine is not changed for it):
//! - the receiving end logs one [`Arrival`](crate::measure::Arrival) per
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

mod config;
mod flow;
mod mobility;
mod set_primary;

pub use config::{AgentCounters, AgentEvent, AgentLimits, PathSample, Role, SctpAgentConfig};
pub use set_primary::{LocalSwitch, ScriptedPrimary};

use std::net::IpAddr;

use bytes::Bytes;
use msctp_proto::association::trace::PathRecord;
use msctp_proto::{AssocId, Association, Endpoint, EndpointConfig, Event, Time, Transmit};
use rand_core::RngCore;

use super::observe::{self, TsnNumbering};
use crate::kernel::EngineTimer;
use crate::kernel::ip::{self, IpPacket};
use crate::kernel::notification::Notification;
use crate::kernel::timer::TimerId;
use crate::kernel::{Agent, Ctx, PortBinding, RxInfo};
use crate::measure::PathId;
use crate::models::sctp::handover::{HandoverManager, NodeLinks};
use flow::ZEROS;
use mobility::pair_cmt_paths;

const TOKEN_ENGINE: u64 = 1;
const TOKEN_SOURCE: u64 = 2;
const TOKEN_SAMPLE: u64 = 3;
const TOKEN_CONNECT: u64 = 4;

/// What one call of the agent's `transmit` did.
struct Sent {
    /// At least one packet left.
    any: bool,
    /// It stopped because the engine had nothing more (not at the bound
    /// on packets per call).
    drained: bool,
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
        path_id_in(&self.cfg.path_addrs, addr)
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
        let first_held = locals[0];
        let locals = self.init_addresses(locals);
        let pin = self.cfg.local_switch.is_some();
        let Some(ep) = self.endpoint.as_mut() else {
            return;
        };
        ep.set_local_addresses(&locals);
        match ep.connect(now, &peer, peer_port) {
            Ok(id) => {
                self.assoc = Some(id);
                if let Some(a) = ep.association_mut(id) {
                    a.set_split_fast_retransmit(self.cfg.split_fast_retransmit);
                    if pin {
                        // Set-primary mode: data leaves from an address the
                        // node holds until the script switches.
                        let _ = a.set_local_primary(Some(first_held));
                    }
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

    /// One row per path into `samples`, straight from the association's
    /// snapshot (no list in between: this runs every sample interval).
    fn sample(&mut self, now: Time) {
        let (Some(ep), Some(id)) = (self.endpoint.as_ref(), self.assoc) else {
            return;
        };
        let Some(a) = ep.association(id) else {
            return;
        };
        if !a.state().is_established() {
            return;
        }
        let dest = a.data_destination();
        let lp = a.local_primary();
        let path_addrs = &self.cfg.path_addrs;
        for p in a.path_snapshots() {
            if self.samples.len() >= self.cfg.limits.max_samples {
                self.counters.samples_dropped += 1;
                continue;
            }
            self.samples.push(PathSample {
                time: now,
                remote: p.remote,
                path: path_id_in(path_addrs, p.remote),
                data_path: Some(p.remote) == dest,
                active: p.state == msctp_proto::path::PathState::Active,
                cwnd: p.cwnd,
                ssthresh: p.ssthresh,
                flight: p.flight_size,
                srtt: p.srtt,
                rto: p.rto,
                errors: p.error_count,
                local_primary: lp,
            });
        }
    }
}

/// Path id of `addr`: its index in the mobile's addresses `path_addrs`,
/// `u32::MAX` when it is not one of them (the fixed node).
fn path_id_in(path_addrs: &[IpAddr], addr: IpAddr) -> PathId {
    path_addrs
        .iter()
        .position(|a| *a == addr)
        .map_or(PathId(u32::MAX), |i| PathId(i as u32))
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
        Event::Reconfig(r) => ("reconfig", format!("{r:?}")),
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
        if self.cfg.local_switch.is_some() {
            self.on_local_switch(ctx, n);
        }
        if let Some(sp) = n.downcast::<ScriptedPrimary>() {
            self.on_scripted_primary(ctx, sp.addr);
        }
    }
}
