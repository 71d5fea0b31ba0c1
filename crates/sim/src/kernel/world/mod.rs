//! The world: every node, link, cell and agent of one simulation run, the
//! virtual clock and the event queue.
//!
//! The implementation is split by concern:
//! - `topology`: building and changing the network (nodes, interfaces,
//!   addresses, routes, links, cells, attach/detach, cut/restore);
//! - `transmit`: queues, transmitters, propagation of links and cells;
//! - `ip_layer`: sending, receiving, interception, forwarding, delivery;
//! - `run`: the event loop, agent calls, timers, scheduled actions.

pub mod agent;
mod ip_layer;
mod run;
mod topology;
mod transmit;

use std::collections::VecDeque;
use std::io::{self, Write};
use std::net::IpAddr;

use crate::Time;
use crate::kernel::drop::{DropLog, DropReason, DropSite};
use crate::kernel::ids::{AgentId, CellId, IfaceId, LinkId, NodeId};
use crate::kernel::ip::IpPacket;
use crate::kernel::link::{Link, LinkConfigError};
use crate::kernel::node::Node;
use crate::kernel::notification::Notification;
use crate::kernel::pcap::PcapWriter;
use crate::kernel::rng::SimRng;
use crate::kernel::routing::RouteError;
use crate::kernel::scheduler::Scheduler;
use crate::kernel::timer::{TimerId, TimerQueue};
use crate::kernel::trace::{TraceConfig, TraceKind, Tracer};
use crate::kernel::wireless::Cell;
use agent::{Agent, SendError};

pub use run::{CaptureError, CaptureId, RunStats};

/// Settings of a world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorldConfig {
    /// The run seed: every random stream derives from it.
    pub seed: u64,
    pub trace: TraceConfig,
    /// Drops kept in the log with the packet's identity (all are counted).
    pub drop_log_limit: usize,
    /// Packets that agents may send within one instant before further sends
    /// are refused (catches agent loops).
    pub max_backlog: usize,
}

impl Default for WorldConfig {
    fn default() -> Self {
        WorldConfig {
            seed: 1,
            trace: TraceConfig::default(),
            drop_log_limit: 100_000,
            max_backlog: 100_000,
        }
    }
}

impl WorldConfig {
    pub fn with_seed(seed: u64) -> Self {
        WorldConfig {
            seed,
            ..Default::default()
        }
    }
}

/// A topology or configuration request that cannot be honoured.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TopologyError {
    #[error("a {kind} named {name:?} already exists")]
    DuplicateName { kind: &'static str, name: String },
    #[error("no node {0}")]
    UnknownNode(NodeId),
    #[error("node {0} has no interface {1}")]
    UnknownIface(NodeId, IfaceId),
    #[error("no link {0}")]
    UnknownLink(LinkId),
    #[error("no cell {0}")]
    UnknownCell(CellId),
    #[error("no agent {0}")]
    UnknownAgent(AgentId),
    #[error("interface {0}/{1} is already attached")]
    AlreadyAttached(NodeId, IfaceId),
    #[error("interface {0}/{1} is not attached to cell {2}")]
    NotAttached(NodeId, IfaceId, CellId),
    #[error("interface {0}/{1} is not attached to any cell")]
    NotAStation(NodeId, IfaceId),
    #[error("interface {0}/{1} already has address {2}")]
    AddressExists(NodeId, IfaceId, IpAddr),
    #[error("interface {0}/{1} has no address {2}")]
    NoSuchAddress(NodeId, IfaceId, IpAddr),
    #[error("interface {0}/{1} has too many addresses (bound {2})")]
    TooManyAddresses(NodeId, IfaceId, usize),
    #[error(transparent)]
    Config(#[from] LinkConfigError),
    #[error(transparent)]
    Route(#[from] RouteError),
}

/// Which channel an event is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChanRef {
    Link { link: LinkId, dir: u8 },
    Station { cell: CellId, slot: u32, dir: u8 },
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum Event {
    TxDone(ChanRef),
    Arrive {
        ch: ChanRef,
        generation: u32,
    },
    MediumTxDone(CellId),
    MediumArrive {
        cell: CellId,
        generation: u32,
    },
    /// A TTI of a common transport channel (direction 0 down, 1 up).
    CommonTti {
        cell: CellId,
        dir: u8,
    },
    /// A backoff ends on a shared medium with the DCF's contention.
    MediumContend {
        cell: CellId,
        generation: u32,
    },
    Start(AgentId),
    Action(u32),
}

/// How an outgoing packet leaves its node.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Via {
    Route,
    Iface {
        iface: IfaceId,
        next_hop: Option<IpAddr>,
    },
}

/// A packet an agent (or the scenario) handed to its node's IP layer.
#[derive(Debug)]
pub(crate) struct Outgoing {
    pub node: NodeId,
    pub from: Option<AgentId>,
    pub pkt: IpPacket,
    pub via: Via,
}

/// A notification waiting for delivery.
#[derive(Debug)]
pub(crate) struct PendingNote {
    pub node: NodeId,
    pub target: Option<AgentId>,
    pub exclude: Option<AgentId>,
    pub note: Notification,
}

#[derive(Debug)]
pub(crate) struct AgentMeta {
    pub node: NodeId,
    pub name: String,
    pub interceptor: bool,
}

pub(crate) struct AgentSlot {
    pub agent: Box<dyn Agent>,
    pub rng: SimRng,
}

pub(crate) type Action = Box<dyn FnOnce(&mut World)>;

pub(crate) struct Capture {
    pub writer: PcapWriter<Box<dyn Write>>,
    pub error: Option<io::Error>,
}

/// Everything except the agents, so an agent can be called with a context
/// borrowing the rest of the world.
pub(crate) struct Core {
    pub now: Time,
    pub cfg: WorldConfig,
    pub sched: Scheduler<Event>,
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    pub cells: Vec<Cell>,
    pub agent_meta: Vec<AgentMeta>,
    pub timers: TimerQueue,
    pub actions: Vec<Option<Action>>,
    pub free_actions: Vec<u32>,
    pub outbox: VecDeque<Outgoing>,
    pub notes: VecDeque<PendingNote>,
    pub drops: DropLog,
    pub tracer: Tracer,
    pub captures: Vec<Capture>,
    pub next_uid: u64,
    pub events: u64,
}

impl Core {
    pub(crate) fn drop_pkt(&mut self, site: DropSite, reason: DropReason, pkt: IpPacket) {
        self.drops.record(self.now, site, reason, &pkt);
        let (node, iface) = match site {
            DropSite::Node { node, iface } => (node, iface),
            DropSite::Link { link, dir } => {
                let (n, i) = self.links[link.index()].ends[usize::from(dir)];
                (n, Some(i))
            }
            DropSite::Cell { node, iface, .. } => (node, Some(iface)),
        };
        self.tracer
            .packet(self.now, node, iface, TraceKind::Drop(reason), &pkt);
    }

    pub(crate) fn enqueue_outgoing(&mut self, mut o: Outgoing) -> Result<(), SendError> {
        if o.pkt.uid() == 0 {
            self.next_uid += 1;
            o.pkt.set_uid(self.next_uid);
        }
        if self.outbox.len() >= self.cfg.max_backlog {
            let site = DropSite::Node {
                node: o.node,
                iface: None,
            };
            self.drop_pkt(site, DropReason::Backlog, o.pkt);
            return Err(SendError::Backlog(self.cfg.max_backlog));
        }
        self.outbox.push_back(o);
        Ok(())
    }

    pub(crate) fn set_timer(&mut self, agent: AgentId, at: Time, token: u64) -> TimerId {
        let key = self.sched.reserve(at.max(self.now));
        self.timers.arm(key, agent, token)
    }

    /// [`Core::set_timer`] after cancelling `id`: the key is reserved
    /// the same way; an armed `id` is moved in the timer queue.
    pub(crate) fn reset_timer(
        &mut self,
        agent: AgentId,
        id: TimerId,
        at: Time,
        token: u64,
    ) -> TimerId {
        let key = self.sched.reserve(at.max(self.now));
        match self.timers.rearm(id, key, agent, token) {
            Some(t) => t,
            None => self.timers.arm(key, agent, token),
        }
    }

    pub(crate) fn set_interceptor(&mut self, agent: AgentId, on: bool) {
        let Some(meta) = self.agent_meta.get_mut(agent.index()) else {
            return;
        };
        if meta.interceptor == on {
            return;
        }
        meta.interceptor = on;
        let list = &mut self.nodes[meta.node.index()].interceptors;
        if on {
            list.push(agent);
        } else {
            list.retain(|a| *a != agent);
        }
    }

    pub(crate) fn notify_node(&mut self, node: NodeId, note: Notification) {
        self.notes.push_back(PendingNote {
            node,
            target: None,
            exclude: None,
            note,
        });
    }

    /// Records `pkt` in the interface's captures; checked inline at every
    /// packet event (most runs capture nothing), written out of line.
    #[inline]
    pub(crate) fn write_capture(&mut self, node: NodeId, iface: IfaceId, pkt: &IpPacket) {
        if !self.captures.is_empty() {
            self.write_capture_to(node, iface, pkt);
        }
    }

    #[cold]
    #[inline(never)]
    fn write_capture_to(&mut self, node: NodeId, iface: IfaceId, pkt: &IpPacket) {
        let caps = &self.nodes[node.index()].ifaces[iface.index()].captures;
        for &c in caps {
            let cap = &mut self.captures[c];
            if cap.error.is_none()
                && let Err(e) = cap.writer.write_packet(self.now, pkt.as_bytes())
            {
                cap.error = Some(e);
            }
        }
    }
}

/// One simulation run. See the crate documentation for the architecture.
pub struct World {
    pub(crate) core: Core,
    pub(crate) agents: Vec<AgentSlot>,
}

#[cfg(test)]
mod tests;
