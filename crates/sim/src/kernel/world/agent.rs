//! Agents: the extension point for protocol stacks and applications.
//!
//! An agent lives on one node. The world calls it:
//! - [`Agent::start`] once, at the time it was added (or at time zero);
//! - [`Agent::on_packet`] for every packet addressed to the node (one of its
//!   addresses, broadcast or multicast), in the order agents were added,
//!   until one consumes it by returning `None`; demultiplexing by protocol
//!   and port is the agent's job. An agent that declares a port binding
//!   ([`Agent::binding`]) is offered only the packets to its port. A packet
//!   nobody takes is dropped (`NoListener`);
//! - [`Agent::on_intercept`], if the agent registered as an interceptor
//!   ([`Ctx::set_interceptor`]), for every packet the node receives (transit
//!   or local) and every packet its other agents send, before routing: a
//!   Mobile IP home agent captures packets for a mobile's home address and
//!   tunnels them, an FMIPv6 access router redirects them into a tunnel, a
//!   mobile node's client tunnels its own outgoing packets;
//! - [`Agent::on_timer`] when a timer it set expires;
//! - [`Agent::on_notify`] for link-layer and IP events of its node and for
//!   messages from the node's other agents.
//!
//! Every call gets a [`Ctx`]: the time, the node's interfaces, addresses and
//! routes (changeable), sending, timers, the agent's own random stream,
//! traces, notifications. Packets an agent sends are processed after the
//! call returns, in order, at the same virtual time (interceptors, then
//! routing); so are notifications. Nothing re-enters an agent while it runs.
//!
//! Results are read after (or between) runs with
//! [`World::agent`](crate::World::agent), which downcasts to the concrete
//! type, or changed with [`World::with_agent`](crate::World::with_agent).

use std::any::Any;
use std::net::IpAddr;
use std::time::Duration;

use ipnet::IpNet;

use crate::Time;
use crate::kernel::demux::PortBinding;
use crate::kernel::drop::{DropReason, DropSite};
use crate::kernel::ids::{AgentId, IfaceId, NodeId};
use crate::kernel::ip::IpPacket;
use crate::kernel::node::Node;
use crate::kernel::notification::Notification;
use crate::kernel::rng::SimRng;
use crate::kernel::routing::Route;
use crate::kernel::timer::TimerId;
use crate::kernel::trace::TraceKind;
use crate::kernel::world::{Core, Outgoing, PendingNote, TopologyError, Via};

/// Lets [`World::agent`](crate::World::agent) downcast agents; implemented
/// for every `'static` type.
pub trait AsAny: Any {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: Any> AsAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// How a packet reached the node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RxInfo {
    /// Interface it arrived on; `None` when the node sent it to itself.
    pub iface: Option<IfaceId>,
}

/// Where an intercepted packet comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketOrigin {
    /// Sent by an agent of this node (`None`: injected by the scenario).
    Local { from: Option<AgentId> },
    /// Received on an interface (addressed to the node or in transit).
    Received { iface: IfaceId },
}

/// A protocol stack or application on a node. Every method has a default
/// that does nothing (and gives packets back).
pub trait Agent: AsAny {
    fn start(&mut self, _ctx: &mut Ctx<'_>) {}

    /// A packet addressed to the node. Return it to let the next agent see
    /// it, `None` when consumed.
    fn on_packet(&mut self, _ctx: &mut Ctx<'_>, pkt: IpPacket, _rx: &RxInfo) -> Option<IpPacket> {
        Some(pkt)
    }

    /// Interceptors only: any packet before routing. Return it to let it
    /// continue, `None` when taken (tunnelled, buffered, dropped with
    /// [`Ctx::drop_packet`]). A transit packet is seen before the node
    /// decrements its TTL: an agent that forwards it in a tunnel decrements
    /// the inner TTL itself if it wants RFC 2003 section 3.1 behaviour
    /// ([`IpPacket::decrement_ttl`]).
    fn on_intercept(
        &mut self,
        _ctx: &mut Ctx<'_>,
        pkt: IpPacket,
        _origin: &PacketOrigin,
    ) -> Option<IpPacket> {
        Some(pkt)
    }

    fn on_timer(&mut self, _ctx: &mut Ctx<'_>, _token: u64) {}

    /// The packets this agent takes, if it takes only packets of one
    /// transport protocol to one local port and gives every other packet
    /// back untouched from [`Agent::on_packet`] (a socket bound to a
    /// port). The world then offers it only those packets, so a node with
    /// many such agents delivers in O(log n) ([`crate::kernel::demux`]).
    /// Asked once, when the agent is added. `None` (the default): offered
    /// every packet addressed to the node.
    fn binding(&self) -> Option<PortBinding> {
        None
    }

    fn on_notify(&mut self, _ctx: &mut Ctx<'_>, _n: &Notification) {}
}

/// Why a send was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    #[error("no node {0}")]
    UnknownNode(NodeId),
    #[error("node has no interface {0}")]
    UnknownIface(IfaceId),
    #[error("too many packets sent in one instant (bound {0}); dropped")]
    Backlog(usize),
}

/// The agent's view of the world during one call.
pub struct Ctx<'a> {
    pub(crate) core: &'a mut Core,
    pub(crate) me: AgentId,
    pub(crate) node: NodeId,
    pub(crate) rng: &'a mut SimRng,
}

impl Ctx<'_> {
    pub fn now(&self) -> Time {
        self.core.now
    }

    pub fn agent_id(&self) -> AgentId {
        self.me
    }

    pub fn node_id(&self) -> NodeId {
        self.node
    }

    /// The node: name, interfaces with addresses and state, routes, stats.
    pub fn node(&self) -> &Node {
        &self.core.nodes[self.node.index()]
    }

    /// The agent's own random stream.
    pub fn rng(&mut self) -> &mut SimRng {
        self.rng
    }

    /// Adds an address (and its connected route) to an interface of the
    /// node; the node's agents get `AddressAdded`.
    pub fn add_address(&mut self, iface: IfaceId, addr: IpNet) -> Result<(), TopologyError> {
        self.core.add_address(self.node, iface, addr)
    }

    /// Removes an address (and its connected route); agents get
    /// `AddressRemoved`.
    pub fn remove_address(&mut self, iface: IfaceId, addr: IpAddr) -> Result<(), TopologyError> {
        self.core.remove_address(self.node, iface, addr)
    }

    /// Adds (or replaces) a route of the node.
    pub fn add_route(&mut self, route: Route) -> Result<(), TopologyError> {
        self.core.check_iface(self.node, route.iface)?;
        self.core.nodes[self.node.index()].routes.add(route)?;
        Ok(())
    }

    /// Removes routes to `dest` (through `iface` if given).
    pub fn remove_route(&mut self, dest: IpNet, iface: Option<IfaceId>) -> usize {
        self.core.nodes[self.node.index()]
            .routes
            .remove(dest, iface)
    }

    pub fn set_forwarding(&mut self, on: bool) {
        self.core.nodes[self.node.index()].forwarding = on;
    }

    /// Brings an interface of the node up or down (see
    /// [`World::set_iface_up`](crate::World::set_iface_up)).
    pub fn set_iface_up(&mut self, iface: IfaceId, up: bool) -> Result<(), TopologyError> {
        self.core.set_iface_up(self.node, iface, up)
    }

    /// The interface and source address the node would use to reach `dst`
    /// (routing by destination only).
    pub fn source_for(&self, dst: IpAddr) -> Option<(IfaceId, IpAddr)> {
        self.core.source_for(self.node, dst)
    }

    /// Sends a packet, routed by destination. On a host, a source address
    /// held by one of its interfaces pins the packet to that interface (the
    /// route is looked up among that interface's routes), so a multi-homed
    /// host sends each path's packets from that path's address and
    /// interface. A packet to one of the node's own addresses is delivered
    /// locally.
    pub fn send(&mut self, pkt: IpPacket) -> Result<(), SendError> {
        self.enqueue(pkt, Via::Route)
    }

    /// Sends like [`Ctx::send`] and returns the packet's uid (the id traces
    /// and drop records carry), so an agent can tell later which of its
    /// packets were dropped.
    pub fn send_uid(&mut self, pkt: IpPacket) -> Result<u64, SendError> {
        let preset = pkt.uid();
        self.enqueue(pkt, Via::Route)?;
        Ok(if preset != 0 {
            preset
        } else {
            self.core.next_uid
        })
    }

    /// Sends a packet out of `iface` to `next_hop` (the destination itself
    /// when `None`), bypassing the routing table (interceptors still see it).
    pub fn send_via(
        &mut self,
        pkt: IpPacket,
        iface: IfaceId,
        next_hop: Option<IpAddr>,
    ) -> Result<(), SendError> {
        if self.node().iface(iface).is_none() {
            return Err(SendError::UnknownIface(iface));
        }
        self.enqueue(pkt, Via::Iface { iface, next_hop })
    }

    fn enqueue(&mut self, pkt: IpPacket, via: Via) -> Result<(), SendError> {
        self.core.enqueue_outgoing(Outgoing {
            node: self.node,
            from: Some(self.me),
            pkt,
            via,
        })
    }

    /// Arms a timer at `at` (now if in the past); `token` comes back in
    /// [`Agent::on_timer`].
    pub fn set_timer(&mut self, at: Time, token: u64) -> TimerId {
        self.core.set_timer(self.me, at, token)
    }

    /// Arms a timer `after` from now.
    pub fn set_timer_in(&mut self, after: Duration, token: u64) -> TimerId {
        let at = self.core.now + after;
        self.core.set_timer(self.me, at, token)
    }

    /// Cancels timer `id` (if armed) and arms one at `at` with `token`:
    /// the same as [`Ctx::cancel_timer`] then [`Ctx::set_timer`] (same
    /// key, same handle), cheaper for a timer that is armed.
    pub fn reset_timer(&mut self, id: TimerId, at: Time, token: u64) -> TimerId {
        self.core.reset_timer(self.me, id, at, token)
    }

    /// Cancels a timer; false if it already fired or was cancelled.
    pub fn cancel_timer(&mut self, id: TimerId) -> bool {
        self.core.timers.cancel(id)
    }

    pub fn timer_armed(&self, id: TimerId) -> bool {
        self.core.timers.is_armed(id)
    }

    /// Registers (or unregisters) this agent as an interceptor of its node.
    pub fn set_interceptor(&mut self, on: bool) {
        self.core.set_interceptor(self.me, on);
    }

    /// Posts a notification to every other agent of the node.
    pub fn notify(&mut self, n: Notification) {
        self.core.notes.push_back(PendingNote {
            node: self.node,
            target: None,
            exclude: Some(self.me),
            note: n,
        });
    }

    /// Posts a notification to one agent (of any node).
    pub fn notify_agent(&mut self, target: AgentId, n: Notification) {
        if let Some(m) = self.core.agent_meta.get(target.index()) {
            let node = m.node;
            self.core.notes.push_back(PendingNote {
                node,
                target: Some(target),
                exclude: None,
                note: n,
            });
        }
    }

    /// Agents of this node: (id, name), in the order they were added.
    pub fn agents_here(&self) -> Vec<(AgentId, &str)> {
        self.node()
            .agents
            .iter()
            .map(|a| (*a, self.core.agent_meta[a.index()].name.as_str()))
            .collect()
    }

    /// An agent of this node by name.
    pub fn find_agent(&self, name: &str) -> Option<AgentId> {
        self.node().agent_names.get(name).copied()
    }

    /// Discards a packet, counting it as dropped for `reason` (e.g. "no
    /// binding", "stale tunnel end").
    pub fn drop_packet(&mut self, pkt: IpPacket, reason: &'static str) {
        let site = DropSite::Node {
            node: self.node,
            iface: None,
        };
        self.core.drop_pkt(site, DropReason::Agent(reason), pkt);
    }

    /// Adds a remark to the trace (formatted only when agent tracing is on).
    pub fn trace(&mut self, label: &'static str, detail: impl FnOnce() -> String) {
        let now = self.core.now;
        self.core
            .tracer
            .note(now, self.node, TraceKind::Agent(label), detail);
    }

    /// True when agent remarks are traced (to skip expensive formatting).
    pub fn tracing(&self) -> bool {
        self.core.tracer.config().agents
    }

    /// True when a pcap capture is open anywhere in the world: packet
    /// bytes are then recorded, and a transport that leaves checks to the
    /// layer below (the SCTP agent's checksum offload) must fill them in.
    pub fn capturing(&self) -> bool {
        !self.core.captures.is_empty()
    }
}
