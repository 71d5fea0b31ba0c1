//! The TCP agent: a client (active open at a chosen time) or a server
//! (listening on a port) whose application is an [`app::Source`] (bulk,
//! file, CBR, Pareto: the same load definitions the SCTP agent uses) and
//! whose records go to a [`crate::measure::flow_log::FlowLog`].

use std::net::SocketAddr;

use msctp_tcp::{ListenOutcome, TcpConfig, TcpConnection, TcpError, TcpListener, TcpStats};

use super::endpoint::{PathTagging, TcpEndpoint, peek_header};
use crate::Time;
use crate::kernel::EngineTimer;
use crate::kernel::ip::{IpPacket, proto};
use crate::kernel::{Agent, Ctx, RxInfo};
use crate::measure::flow_log::SharedFlowLog;
use crate::models::app::Source;

/// Timer token of the connection timers.
const TOKEN_ENGINE: u64 = 0;
/// Timer token of the client's start.
const TOKEN_START: u64 = 1;

/// Which end of the connection the agent is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TcpRole {
    /// Opens a connection from `local` to `remote` at `start`.
    Client {
        local: SocketAddr,
        remote: SocketAddr,
        start: Time,
    },
    /// Accepts connections on `port` (any local address).
    Server { port: u16 },
}

/// Settings of a [`TcpAgent`].
#[derive(Debug, Clone)]
pub struct TcpAgentConfig {
    pub tcp: TcpConfig,
    pub role: TcpRole,
    /// What the application sends on the (first) connection; `None`: it
    /// only receives.
    pub source: Option<Source>,
    /// The flow's records (both ends may share one log).
    pub log: Option<SharedFlowLog>,
    /// Close the connection (FIN) once a file source has handed over its
    /// whole file (so the receiver sees the end: file delivery time).
    pub close_when_done: bool,
    pub ttl: u8,
    /// Initial sequence number of the client's connection, or the seed of
    /// the server's (simulations want reproducible numbers).
    pub isn: u32,
    /// Connections a server accepts (further SYNs are ignored).
    pub max_connections: usize,
    pub tagging: PathTagging,
}

impl TcpAgentConfig {
    /// A client from `local` to `remote`, starting at `start`.
    pub fn client(tcp: TcpConfig, local: SocketAddr, remote: SocketAddr, start: Time) -> Self {
        TcpAgentConfig {
            tcp,
            role: TcpRole::Client {
                local,
                remote,
                start,
            },
            source: None,
            log: None,
            close_when_done: true,
            ttl: crate::kernel::ip::DEFAULT_TTL,
            isn: 0x1000_0000,
            max_connections: 1,
            tagging: PathTagging::Interface,
        }
    }

    /// A server on `port`.
    pub fn server(tcp: TcpConfig, port: u16) -> Self {
        TcpAgentConfig {
            tcp,
            role: TcpRole::Server { port },
            source: None,
            log: None,
            close_when_done: true,
            ttl: crate::kernel::ip::DEFAULT_TTL,
            isn: 0x2000_0000,
            max_connections: 1,
            tagging: PathTagging::Interface,
        }
    }

    pub fn with_source(mut self, source: Source) -> Self {
        self.source = Some(source);
        self
    }

    pub fn with_log(mut self, log: SharedFlowLog) -> Self {
        self.log = Some(log);
        self
    }
}

/// A TCP endpoint agent.
#[derive(Debug)]
pub struct TcpAgent {
    cfg: TcpAgentConfig,
    listener: Option<TcpListener>,
    endpoints: Vec<TcpEndpoint>,
    source: Option<Source>,
    fin_queued: bool,
    armed: EngineTimer,
    /// Packets refused by the listener (RST sent or ignored) or rejected.
    stray: u64,
}

impl TcpAgent {
    /// Validates the configuration.
    pub fn new(mut cfg: TcpAgentConfig) -> Result<Self, TcpError> {
        cfg.tcp.validate()?;
        let listener = match cfg.role {
            TcpRole::Server { port } => {
                Some(TcpListener::new(cfg.tcp.clone(), port, u64::from(cfg.isn))?)
            }
            TcpRole::Client { .. } => None,
        };
        let source = cfg.source.take();
        Ok(TcpAgent {
            cfg,
            listener,
            endpoints: Vec::new(),
            source,
            fin_queued: false,
            armed: EngineTimer::new(TOKEN_ENGINE),
            stray: 0,
        })
    }

    /// The connections (a client has at most one).
    pub fn endpoints(&self) -> &[TcpEndpoint] {
        &self.endpoints
    }

    pub fn endpoint(&self, i: usize) -> Option<&TcpEndpoint> {
        self.endpoints.get(i)
    }

    /// The connections, for a scheme that changes their addresses (the
    /// single-connection handoff's correspondent side).
    pub fn endpoints_mut(&mut self) -> &mut [TcpEndpoint] {
        &mut self.endpoints
    }

    /// The first connection (the one the source writes to).
    pub fn connection(&self) -> Option<&TcpConnection> {
        self.endpoints.first().map(|e| e.connection())
    }

    /// The first connection, for handoff hooks from a scenario script.
    pub fn connection_mut(&mut self) -> Option<&mut TcpConnection> {
        self.endpoints.first_mut().map(|e| e.connection_mut())
    }

    /// Statistics of the first connection.
    pub fn stats(&self) -> Option<TcpStats> {
        self.endpoints.first().map(|e| e.stats())
    }

    /// Application bytes received over all connections.
    pub fn delivered(&self) -> u64 {
        self.endpoints.iter().map(|e| e.delivered()).sum()
    }

    pub fn source(&self) -> Option<&Source> {
        self.source.as_ref()
    }

    /// TCP packets for this agent's port that no connection took.
    pub fn stray_packets(&self) -> u64 {
        self.stray
    }

    fn open_client(&mut self, ctx: &mut Ctx<'_>) {
        let TcpRole::Client { local, remote, .. } = self.cfg.role else {
            return;
        };
        if !self.endpoints.is_empty() {
            return;
        }
        match TcpConnection::connect(self.cfg.tcp.clone(), ctx.now(), local, remote, self.cfg.isn) {
            Ok(c) => {
                let ep = TcpEndpoint::new(c, self.cfg.ttl, self.cfg.log.clone())
                    .with_tagging(self.cfg.tagging);
                self.endpoints.push(ep);
            }
            Err(_) => self.stray += 1,
        }
    }

    /// Lets the application write what it has, sends, re-arms the timer.
    fn drive(&mut self, ctx: &mut Ctx<'_>) {
        let now = ctx.now();
        if let (Some(src), Some(ep)) = (self.source.as_mut(), self.endpoints.first_mut())
            && !self.fin_queued
        {
            let room = ep.send_capacity();
            let mut offered = 0u64;
            for m in src.take(now, room, ctx.rng()) {
                offered += ep.write_zeros(m).unwrap_or(0) as u64;
            }
            if offered > 0
                && let Some(log) = &self.cfg.log
            {
                log.borrow_mut().bytes_offered += offered;
            }
            if self.cfg.close_when_done && src.finished(now) {
                ep.connection_mut().close();
                self.fin_queued = true;
            }
        }
        for ep in &mut self.endpoints {
            ep.flush(ctx);
        }
        self.rearm(ctx);
    }

    fn rearm(&mut self, ctx: &mut Ctx<'_>) {
        let now = ctx.now();
        let mut next = self.endpoints.iter().filter_map(|e| e.deadline()).min();
        if let Some(src) = &self.source
            && !self.fin_queued
            && let Some(t) = src.next_due(now)
            && t > now
        {
            next = Some(next.map_or(t, |n| n.min(t)));
        }
        let Some(next) = next else {
            return;
        };
        self.armed.arm_by(ctx, next);
    }
}

impl Agent for TcpAgent {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        if let TcpRole::Client { start, .. } = self.cfg.role {
            if start <= ctx.now() {
                self.open_client(ctx);
                self.drive(ctx);
            } else {
                ctx.set_timer(start, TOKEN_START);
            }
        }
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: IpPacket, rx: &RxInfo) -> Option<IpPacket> {
        if pkt.protocol() != proto::TCP {
            return Some(pkt);
        }
        let Some(h) = peek_header(pkt.payload()) else {
            return Some(pkt);
        };
        let src = pkt.src();
        let now = ctx.now();
        if let Some(ep) = self
            .endpoints
            .iter_mut()
            .find(|e| e.matches(src, pkt.dst(), &h))
        {
            ep.on_packet(now, &pkt, rx);
            self.drive(ctx);
            return None;
        }
        let Some(listener) = self.listener.as_mut() else {
            return Some(pkt);
        };
        if h.dst_port != listener.port() {
            return Some(pkt);
        }
        match listener.handle_segment(now, src, pkt.dst(), pkt.payload()) {
            Ok(ListenOutcome::Accepted(conn))
                if self.endpoints.len() < self.cfg.max_connections =>
            {
                let mut ep = TcpEndpoint::new(*conn, self.cfg.ttl, self.cfg.log.clone())
                    .with_tagging(self.cfg.tagging);
                // The SYN's sequence number: the peer's ISN.
                ep.on_syn_seen(h.seq);
                self.endpoints.push(ep);
            }
            Ok(ListenOutcome::Reset(seg)) => {
                self.stray += 1;
                if let Ok(p) =
                    IpPacket::build(seg.src_ip, seg.dst_ip, proto::TCP, self.cfg.ttl, &seg.bytes)
                {
                    let _ = ctx.send(p);
                }
            }
            _ => self.stray += 1,
        }
        self.drive(ctx);
        None
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, token: u64) {
        match token {
            TOKEN_START => {
                self.open_client(ctx);
            }
            _ => {
                self.armed.fired();
                let now = ctx.now();
                for ep in &mut self.endpoints {
                    ep.on_timer(now);
                }
            }
        }
        self.drive(ctx);
    }
}
