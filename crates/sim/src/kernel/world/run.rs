//! The event loop: dispatching events, calling agents, delivering queued
//! sends and notifications, scheduled actions; plus the run's outputs
//! (drops, traces, captures).

use std::io::{self, Write};
use std::net::IpAddr;

use super::{
    Action, AgentMeta, AgentSlot, Capture, Event, Outgoing, PendingNote, TopologyError, Via, World,
};
use crate::Time;
use crate::kernel::drop::DropLog;
use crate::kernel::ids::{AgentId, IfaceId, NodeId};
use crate::kernel::ip::IpPacket;
use crate::kernel::notification::Notification;
use crate::kernel::pcap::{CaptureConfig, PcapWriter};
use crate::kernel::scheduler::key_time;
use crate::kernel::trace::{TraceKind, Tracer};
use crate::kernel::{Agent, Ctx, SendError};

/// Figures of the run so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RunStats {
    /// Events dispatched (a timer cancelled before it fell due is none).
    pub events: u64,
    /// Events still queued (armed timers included).
    pub pending: usize,
    /// Packets handed to the IP layer by agents or the scenario.
    pub packets_created: u64,
    /// Agent timers currently armed.
    pub timers_armed: usize,
}

/// Handle of a pcap capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaptureId(pub(crate) usize);

impl World {
    /// Calls agent `id` with a context on its node.
    pub(crate) fn call_agent<R>(
        &mut self,
        id: AgentId,
        f: impl FnOnce(&mut dyn Agent, &mut Ctx<'_>) -> R,
    ) -> R {
        let node = self.core.agent_meta[id.index()].node;
        let slot = &mut self.agents[id.index()];
        let mut ctx = Ctx {
            core: &mut self.core,
            me: id,
            node,
            rng: &mut slot.rng,
        };
        f(slot.agent.as_mut(), &mut ctx)
    }

    /// Adds an agent to a node; its `start` runs at the current time, in
    /// the event order (so agents added before a run start at time zero in
    /// the order they were added). Its random stream is named
    /// `agent/<node>/<name>`; names are unique per node.
    pub fn add_agent(
        &mut self,
        node: NodeId,
        name: &str,
        agent: Box<dyn Agent>,
    ) -> Result<AgentId, TopologyError> {
        let n = self
            .core
            .nodes
            .get(node.index())
            .ok_or(TopologyError::UnknownNode(node))?;
        if n.agent_names.contains_key(name) {
            return Err(TopologyError::DuplicateName {
                kind: "agent",
                name: name.into(),
            });
        }
        let id = AgentId(self.agents.len() as u32);
        let rng = self.core.stream(&format!("agent/{}/{}", n.name, name));
        let binding = agent.binding();
        self.agents.push(AgentSlot { agent, rng });
        self.core.agent_meta.push(AgentMeta {
            node,
            name: name.into(),
            interceptor: false,
        });
        let n = &mut self.core.nodes[node.index()];
        n.agents.push(id);
        n.agent_names.insert(name.into(), id);
        n.directory.add(id, binding);
        self.core.sched.push(self.core.now, Event::Start(id));
        Ok(id)
    }

    /// The agent `id` if it is a `T`.
    pub fn agent<T: Agent>(&self, id: AgentId) -> Option<&T> {
        self.agents
            .get(id.index())?
            .agent
            .as_ref()
            .as_any()
            .downcast_ref::<T>()
    }

    pub fn agent_mut<T: Agent>(&mut self, id: AgentId) -> Option<&mut T> {
        self.agents
            .get_mut(id.index())?
            .agent
            .as_mut()
            .as_any_mut()
            .downcast_mut::<T>()
    }

    /// Runs `f` on agent `id` (if it is a `T`) with a context, as if the
    /// agent were called by an event now; queued sends and notifications
    /// are then processed. For scenario scripts ("at 10 s, tell the mobility
    /// manager to switch").
    pub fn with_agent<T: Agent, R>(
        &mut self,
        id: AgentId,
        f: impl FnOnce(&mut T, &mut Ctx<'_>) -> R,
    ) -> Option<R> {
        self.agents
            .get(id.index())?
            .agent
            .as_ref()
            .as_any()
            .downcast_ref::<T>()?;
        let r = self.call_agent(id, |agent, ctx| {
            agent.as_any_mut().downcast_mut::<T>().map(|a| f(a, ctx))
        });
        self.pump();
        r
    }

    /// Agent of `node` named `name`.
    pub fn find_agent(&self, node: NodeId, name: &str) -> Option<AgentId> {
        self.core
            .nodes
            .get(node.index())?
            .agent_names
            .get(name)
            .copied()
    }

    /// Delivers a notification to every agent of `node` (now, before any
    /// further event).
    pub fn notify(&mut self, node: NodeId, note: Notification) -> Result<(), TopologyError> {
        if node.index() >= self.core.nodes.len() {
            return Err(TopologyError::UnknownNode(node));
        }
        self.core.notify_node(node, note);
        self.pump();
        Ok(())
    }

    /// Sends a packet from `node` as if an agent had sent it (routed like
    /// [`Ctx::send`]).
    pub fn inject(&mut self, node: NodeId, pkt: IpPacket) -> Result<(), SendError> {
        if node.index() >= self.core.nodes.len() {
            return Err(SendError::UnknownNode(node));
        }
        self.core.enqueue_outgoing(Outgoing {
            node,
            from: None,
            pkt,
            via: Via::Route,
        })?;
        self.pump();
        Ok(())
    }

    /// Sends a packet from `node` out of `iface` to `next_hop` (or the
    /// destination).
    pub fn inject_via(
        &mut self,
        node: NodeId,
        iface: IfaceId,
        next_hop: Option<IpAddr>,
        pkt: IpPacket,
    ) -> Result<(), SendError> {
        if self.core.check_iface(node, iface).is_err() {
            return Err(SendError::UnknownIface(iface));
        }
        self.core.enqueue_outgoing(Outgoing {
            node,
            from: None,
            pkt,
            via: Via::Iface { iface, next_hop },
        })?;
        self.pump();
        Ok(())
    }

    /// Schedules `action` on the world at `at` (now if in the past), in the
    /// event order: link cuts, attach/detach decided by a radio model,
    /// notifications of link-layer events, scenario steps.
    pub fn at(&mut self, at: Time, action: impl FnOnce(&mut World) + 'static) {
        let boxed: Action = Box::new(action);
        let idx = match self.core.free_actions.pop() {
            Some(i) => {
                self.core.actions[i as usize] = Some(boxed);
                i
            }
            None => {
                self.core.actions.push(Some(boxed));
                (self.core.actions.len() - 1) as u32
            }
        };
        let t = at.max(self.core.now);
        self.core.sched.push(t, Event::Action(idx));
    }

    /// Processes pending sends and notifications until none is left.
    pub(crate) fn pump(&mut self) {
        loop {
            if let Some(o) = self.core.outbox.pop_front() {
                self.process_outgoing(o);
                continue;
            }
            if let Some(n) = self.core.notes.pop_front() {
                self.deliver_note(n);
                continue;
            }
            break;
        }
    }

    fn deliver_note(&mut self, n: PendingNote) {
        let now = self.core.now;
        self.core
            .tracer
            .note(now, n.node, TraceKind::Notify, || format!("{:?}", n.note));
        if let Some(t) = n.target {
            self.call_agent(t, |a, ctx| a.on_notify(ctx, &n.note));
            return;
        }
        let mut i = 0;
        while let Some(&a) = self.core.nodes[n.node.index()].agents.get(i) {
            i += 1;
            if Some(a) != n.exclude {
                self.call_agent(a, |ag, ctx| ag.on_notify(ctx, &n.note));
            }
        }
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::TxDone(r) => self.core.on_tx_done(r),
            Event::Arrive { ch, generation } => self.on_chan_arrive(ch, generation),
            Event::MediumTxDone(c) => self.core.on_medium_tx_done(c),
            Event::MediumArrive { cell, generation } => self.on_medium_arrive(cell, generation),
            Event::CommonTti { cell, dir } => self.core.on_common_tti(cell, usize::from(dir)),
            Event::MediumContend { cell, generation } => {
                self.core.on_medium_contend(cell, generation)
            }
            Event::Start(a) => self.call_agent(a, |ag, ctx| ag.start(ctx)),
            Event::Action(i) => {
                if let Some(f) = self.core.actions.get_mut(i as usize).and_then(Option::take) {
                    self.core.free_actions.push(i);
                    f(self);
                }
            }
        }
    }

    /// The key of the next event: of the event queue or of the timers,
    /// whichever is earlier (keys are unique).
    fn next_key(&self) -> Option<u128> {
        match (self.core.sched.peek_key(), self.core.timers.peek_key()) {
            (Some(e), Some(t)) => Some(e.min(t)),
            (e, t) => e.or(t),
        }
    }

    /// Runs the next event, due at `key`, and what it triggers.
    fn run_next(&mut self, key: u128) {
        self.core.now = key_time(key);
        self.core.events += 1;
        if self.core.timers.peek_key() == Some(key) {
            if let Some(f) = self.core.timers.pop() {
                self.call_agent(f.agent, |a, ctx| a.on_timer(ctx, f.token));
            }
        } else if let Some((_, ev)) = self.core.sched.pop() {
            self.dispatch(ev);
        }
        self.pump();
    }

    /// Runs the next event (and what it triggers). False when none is left.
    pub fn step(&mut self) -> bool {
        self.pump();
        let Some(key) = self.next_key() else {
            return false;
        };
        self.run_next(key);
        true
    }

    /// Runs every event due at or before `end`, then sets the clock to
    /// `end` (unless `end` is [`Time::MAX`]).
    pub fn run_until(&mut self, end: Time) {
        self.pump();
        while let Some(key) = self.next_key() {
            if key_time(key) > end {
                break;
            }
            self.run_next(key);
        }
        if end != Time::MAX && end > self.core.now {
            self.core.now = end;
        }
    }

    /// Runs until no event is left.
    pub fn run(&mut self) {
        self.run_until(Time::MAX);
    }

    pub fn stats(&self) -> RunStats {
        RunStats {
            events: self.core.events,
            pending: self.core.sched.len() + self.core.timers.armed(),
            packets_created: self.core.next_uid,
            timers_armed: self.core.timers.armed(),
        }
    }

    /// Every drop so far: counts per reason and the bounded log.
    pub fn drops(&self) -> &DropLog {
        &self.core.drops
    }

    pub fn tracer(&self) -> &Tracer {
        &self.core.tracer
    }

    /// Writes the trace as CSV (nodes by name).
    pub fn write_trace_csv(&self, out: &mut impl Write) -> io::Result<()> {
        let names: Vec<String> = self.core.nodes.iter().map(|n| n.name.clone()).collect();
        self.core.tracer.write_csv(&names, out)
    }

    /// Starts a pcap capture of every packet leaving (when it starts
    /// serialising) and arriving at (when it is received) an interface.
    /// Open it before the packets to record are sent: transports that
    /// leave their checksum to the layer below fill it in only while a
    /// capture is open ([`Ctx::capturing`]).
    pub fn capture(
        &mut self,
        node: NodeId,
        iface: IfaceId,
        cfg: CaptureConfig,
        out: Box<dyn Write>,
    ) -> Result<CaptureId, CaptureError> {
        self.core.check_iface(node, iface)?;
        let writer = PcapWriter::new(out, cfg)?;
        let id = self.core.captures.len();
        self.core.captures.push(Capture {
            writer,
            error: None,
        });
        self.core.nodes[node.index()].ifaces[iface.index()]
            .captures
            .push(id);
        Ok(CaptureId(id))
    }

    /// Flushes every capture; the first write error of any capture.
    pub fn flush_captures(&mut self) -> io::Result<()> {
        for c in &mut self.core.captures {
            if let Some(e) = c.error.take() {
                return Err(e);
            }
            c.writer.flush()?;
        }
        Ok(())
    }
}

/// Why a capture could not start.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error(transparent)]
    Topology(#[from] TopologyError),
    #[error("writing the pcap header: {0}")]
    Io(#[from] io::Error),
}
