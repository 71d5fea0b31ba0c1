//! The single-connection, bandwidth-aware vertical handoff (docs/MODELS.md
//! 2.3), mobile side: one TCP connection whose control block is rebuilt at
//! each handoff. On a handoff decision the connection stops (frozen: no
//! data, no timers) for the whole handoff processing latency of the target
//! network (address binding, location update, AAA, PPP set-up: 700 ms into
//! WLAN, 1300 ms into UMTS in E4); then it is bound to the new interface's
//! address, its RTT estimate forgotten, its congestion window set from the
//! new link's bandwidth-delay product instead of slow start, what was in
//! flight on the old link is sent again, and a location update tells the
//! correspondent ([`super::HandoffPeer`]) the new address.
//!
//! That is [`ProcessingMode::Freeze`]. With [`ProcessingMode::Drop`]
//! (the paper's own words, section 5.1: "transmitted packets are dropped
//! while the TCB ... is being updated") the connection keeps running
//! during the processing: what it sends is dropped (counted as the drop
//! reason "tcb update"), its retransmission timer runs and backs off, and
//! after the update it is bound to the new address with the new window
//! but nothing is resent at once: it recovers by its timers.
//!
//! A decision that changes the target while processing restarts the
//! processing toward the new target: every change of network costs its
//! full processing latency (which is why the scheme suffers under
//! ping-pong).

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use msctp_tcp::{TcpConfig, TcpConnection, TcpError, TcpStats};

use super::decision::{LinkDecision, TriggerSource};
use super::location::LocationUpdate;
use super::settings::{HandoffSettings, ProcessingMode};
use crate::Time;
use crate::kernel::EngineTimer;
use crate::kernel::ids::IfaceId;
use crate::kernel::ip::{DEFAULT_TTL, IpPacket, proto};
use crate::kernel::notification::Notification;
use crate::kernel::udp::{self, UdpView};
use crate::kernel::{Agent, Ctx, RxInfo};
use crate::measure::flow_log::SharedFlowLog;
use crate::models::app::Source;
use crate::models::tcp::{TcpEndpoint, peek_header};

const TOKEN_ENGINE: u64 = 0;
const TOKEN_START: u64 = 1;
const TOKEN_DONE: u64 = 2;
const TOKEN_UPDATE: u64 = 3;

/// Drop reason of what the connection sends during a TCB update.
pub const TCB_UPDATE: &str = "tcb update";

/// UDP port of location updates at the correspondent.
pub const LOCATION_PORT: u16 = 7777;

/// One network the mobile node can use.
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkProfile {
    pub iface: IfaceId,
    /// The mobile node's address in this network.
    pub address: IpAddr,
    /// Bandwidth and round-trip time the scheme assumes for the network
    /// (its BDP sets the congestion window after a handoff into it).
    pub bandwidth_bps: u64,
    pub rtt: Duration,
    /// Handoff processing latency into this network.
    pub processing: Duration,
    /// Higher is preferred when usable (E4: the WLAN over UMTS).
    pub preference: u32,
}

/// Settings of a [`SingleConnectionHandoff`].
#[derive(Debug, Clone)]
pub struct SingleConnectionConfig {
    pub tcp: TcpConfig,
    pub networks: Vec<NetworkProfile>,
    /// The network used at the start (index in `networks`), usable.
    pub initial: usize,
    pub remote: SocketAddr,
    pub local_port: u16,
    pub start: Time,
    pub source: Option<Source>,
    pub log: Option<SharedFlowLog>,
    pub triggers: TriggerSource,
    /// What a scenario's `[flows.handoff]` sets (BDP start, processing
    /// mode, location update retry).
    pub settings: HandoffSettings,
    pub isn: u32,
}

impl SingleConnectionConfig {
    pub fn new(tcp: TcpConfig, networks: Vec<NetworkProfile>, remote: SocketAddr) -> Self {
        SingleConnectionConfig {
            tcp,
            networks,
            initial: 0,
            remote,
            local_port: 40000,
            start: Time::ZERO,
            source: None,
            log: None,
            triggers: TriggerSource::Decisions,
            settings: HandoffSettings::default(),
            isn: 0x3000_0000,
        }
    }
}

/// One handoff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandoffRecord {
    pub decided_at: Time,
    pub from: usize,
    pub to: usize,
    /// When the connection resumed on the new network (None: superseded
    /// by another decision during processing).
    pub resumed_at: Option<Time>,
    /// When the first data segment left on the new network.
    pub first_data_at: Option<Time>,
}

#[derive(Debug, Clone, Copy)]
struct Processing {
    target: usize,
    generation: u64,
}

/// Why the scheme could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandoffConfigError {
    #[error("no network configured")]
    NoNetwork,
    #[error("initial network {0} does not exist")]
    BadInitial(usize),
    #[error(transparent)]
    Tcp(#[from] TcpError),
    #[error(transparent)]
    Setting(#[from] crate::models::settings::SettingError),
}

/// The mobile side of the single-connection scheme (the data sender or
/// receiver: its application is `source`, if any).
#[derive(Debug)]
pub struct SingleConnectionHandoff {
    cfg: SingleConnectionConfig,
    endpoint: Option<TcpEndpoint>,
    source: Option<Source>,
    usable: Vec<bool>,
    current: usize,
    processing: Option<Processing>,
    generation: u64,
    records: Vec<HandoffRecord>,
    update: Option<LocationUpdate>,
    update_sequence: u16,
    armed: EngineTimer,
}

impl SingleConnectionHandoff {
    pub fn new(mut cfg: SingleConnectionConfig) -> Result<Self, HandoffConfigError> {
        if cfg.networks.is_empty() {
            return Err(HandoffConfigError::NoNetwork);
        }
        if cfg.initial >= cfg.networks.len() {
            return Err(HandoffConfigError::BadInitial(cfg.initial));
        }
        cfg.tcp.validate().map_err(TcpError::from)?;
        cfg.settings.validate()?;
        let mut usable = vec![false; cfg.networks.len()];
        usable[cfg.initial] = true;
        let source = cfg.source.take();
        Ok(SingleConnectionHandoff {
            current: cfg.initial,
            cfg,
            endpoint: None,
            source,
            usable,
            processing: None,
            generation: 0,
            records: Vec::new(),
            update: None,
            update_sequence: 0,
            armed: EngineTimer::new(TOKEN_ENGINE),
        })
    }

    pub fn records(&self) -> &[HandoffRecord] {
        &self.records
    }

    /// The network the connection is bound to.
    pub fn current(&self) -> usize {
        self.current
    }

    /// Handoff processing under way (the connection is stopped).
    pub fn processing(&self) -> bool {
        self.processing.is_some()
    }

    pub fn stats(&self) -> Option<TcpStats> {
        self.endpoint.as_ref().map(|e| e.stats())
    }

    pub fn connection(&self) -> Option<&TcpConnection> {
        self.endpoint.as_ref().map(|e| e.connection())
    }

    fn best(&self) -> usize {
        (0..self.usable.len())
            .filter(|&i| self.usable[i])
            .max_by_key(|&i| (self.cfg.networks[i].preference, std::cmp::Reverse(i)))
            .unwrap_or(self.current)
    }

    fn decide(&mut self, ctx: &mut Ctx<'_>) {
        let best = self.best();
        let target = self.processing.map_or(self.current, |p| p.target);
        if best == target {
            return;
        }
        let now = ctx.now();
        // The control block is being rebuilt for `best`.
        if let Some(ep) = self.endpoint.as_mut() {
            match self.cfg.settings.during_processing {
                ProcessingMode::Freeze => ep.connection_mut().freeze(),
                ProcessingMode::Drop => ep.set_dropping(Some(TCB_UPDATE)),
            }
        }
        // A handoff still processing is superseded (its record keeps
        // `resumed_at: None`).
        self.generation += 1;
        self.processing = Some(Processing {
            target: best,
            generation: self.generation,
        });
        self.records.push(HandoffRecord {
            decided_at: now,
            from: self.current,
            to: best,
            resumed_at: None,
            first_data_at: None,
        });
        let delay = self.cfg.networks[best].processing;
        ctx.set_timer_in(delay, (self.generation << 4) | TOKEN_DONE);
    }

    fn complete(&mut self, ctx: &mut Ctx<'_>) {
        let Some(p) = self.processing.take() else {
            return;
        };
        let now = ctx.now();
        let old = self.cfg.networks[self.current].address;
        let net = self.cfg.networks[p.target].clone();
        self.current = p.target;
        if let Some(ep) = self.endpoint.as_mut() {
            let c = ep.connection_mut();
            c.set_local_ip(net.address);
            c.reset_rtt();
            if self.cfg.settings.bdp_start {
                let bdp = (u128::from(net.bandwidth_bps) * net.rtt.as_nanos() / 8_000_000_000)
                    .min(u128::from(u32::MAX)) as u32;
                c.set_cwnd(bdp);
                c.set_ssthresh(bdp);
            }
            match self.cfg.settings.during_processing {
                ProcessingMode::Freeze => {
                    c.retransmit_unacked();
                    c.thaw(now);
                }
                ProcessingMode::Drop => ep.set_dropping(None),
            }
        }
        if let Some(r) = self.records.last_mut() {
            r.resumed_at = Some(now);
        }
        if old != net.address {
            self.update_sequence = self.update_sequence.wrapping_add(1);
            self.update = Some(LocationUpdate {
                ack: false,
                sequence: self.update_sequence,
                mobile_port: self.cfg.local_port,
                correspondent_port: self.cfg.remote.port(),
                old,
                new: net.address,
            });
            self.send_update(ctx);
        }
        self.drive(ctx);
    }

    fn send_update(&mut self, ctx: &mut Ctx<'_>) {
        let Some(u) = self.update else {
            return;
        };
        if let Ok(p) = udp::build(
            u.new,
            self.cfg.remote.ip(),
            LOCATION_PORT,
            LOCATION_PORT,
            DEFAULT_TTL,
            &u.emit(),
        ) {
            let _ = ctx.send(p);
        }
        ctx.set_timer_in(
            self.cfg.settings.update_retry,
            (u64::from(u.sequence) << 4) | TOKEN_UPDATE,
        );
    }

    fn open(&mut self, ctx: &mut Ctx<'_>) {
        if self.endpoint.is_some() {
            return;
        }
        let local = SocketAddr::new(self.cfg.networks[self.current].address, self.cfg.local_port);
        if let Ok(c) = TcpConnection::connect(
            self.cfg.tcp.clone(),
            ctx.now(),
            local,
            self.cfg.remote,
            self.cfg.isn,
        ) {
            let mut ep = TcpEndpoint::new(c, DEFAULT_TTL, self.cfg.log.clone());
            if self.processing.is_some() {
                match self.cfg.settings.during_processing {
                    ProcessingMode::Freeze => ep.connection_mut().freeze(),
                    ProcessingMode::Drop => ep.set_dropping(Some(TCB_UPDATE)),
                }
            }
            self.endpoint = Some(ep);
        }
    }

    fn drive(&mut self, ctx: &mut Ctx<'_>) {
        let now = ctx.now();
        let Some(ep) = self.endpoint.as_mut() else {
            return;
        };
        if let Some(src) = self.source.as_mut() {
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
        }
        let before = ep.stats().data_segments_sent;
        ep.flush(ctx);
        if ep.stats().data_segments_sent > before
            && let Some(r) = self.records.last_mut()
            && r.resumed_at.is_some()
            && r.first_data_at.is_none()
        {
            r.first_data_at = Some(now);
        }
        let next = ep.deadline();
        if let Some(t) = next {
            self.armed.arm_by(ctx, t);
        }
    }
}

impl Agent for SingleConnectionHandoff {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        if self.cfg.start <= ctx.now() {
            self.open(ctx);
            self.drive(ctx);
        } else {
            ctx.set_timer(self.cfg.start, TOKEN_START);
        }
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: IpPacket, rx: &RxInfo) -> Option<IpPacket> {
        match pkt.protocol() {
            proto::TCP => {
                let Some(ep) = self.endpoint.as_mut() else {
                    return Some(pkt);
                };
                let Some(h) = peek_header(pkt.payload()) else {
                    return Some(pkt);
                };
                if !ep.matches(pkt.src(), pkt.dst(), &h) {
                    return Some(pkt);
                }
                ep.on_packet(ctx.now(), &pkt, rx);
                self.drive(ctx);
                None
            }
            proto::UDP => {
                let Ok(u) = UdpView::parse(&pkt) else {
                    return Some(pkt);
                };
                if u.dst_port != LOCATION_PORT {
                    return Some(pkt);
                }
                if let Some(a) = LocationUpdate::parse(u.payload)
                    && a.ack
                    && self.update.is_some_and(|x| x.sequence == a.sequence)
                {
                    self.update = None;
                }
                None
            }
            _ => Some(pkt),
        }
    }

    fn on_notify(&mut self, ctx: &mut Ctx<'_>, n: &Notification) {
        let Some(d) = LinkDecision::from_notification(n, self.cfg.triggers) else {
            return;
        };
        let Some(i) = self.cfg.networks.iter().position(|x| x.iface == d.iface()) else {
            return;
        };
        self.usable[i] = matches!(d, LinkDecision::Up { .. });
        self.decide(ctx);
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, token: u64) {
        let kind = token & 0xf;
        let generation = token >> 4;
        match kind {
            TOKEN_START => {
                self.open(ctx);
                self.drive(ctx);
            }
            TOKEN_DONE => {
                if self.processing.is_some_and(|p| p.generation == generation) {
                    self.complete(ctx);
                }
            }
            TOKEN_UPDATE => {
                if self
                    .update
                    .is_some_and(|u| u64::from(u.sequence) == generation)
                {
                    self.send_update(ctx);
                }
            }
            _ => {
                self.armed.fired();
                if let Some(ep) = self.endpoint.as_mut() {
                    ep.on_timer(ctx.now());
                }
                self.drive(ctx);
            }
        }
    }
}
