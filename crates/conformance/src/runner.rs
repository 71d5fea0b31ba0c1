//! The interpreter: runs a script's events against one engine endpoint in
//! virtual time.
//!
//! Time. The script's clock starts at 0. An event at `0.5` happens at
//! 0.5 s; `+0.5` at 0.5 s after the previous event ended (for a `>` line,
//! when the packet was sent); `*` whenever the packet comes. Before an
//! inbound packet or a system call at time T, every engine timer due at or
//! before T fires, in order, at its own deadline. A `>` line takes the
//! next packet the engine sent; if none is waiting, virtual time runs on
//! from timer to timer until one is sent or the line's time window (its
//! time plus or minus `--tolerance_usecs`) has passed.
//!
//! Packets. Packets the engine sends are queued in order with the time
//! they were sent. Each `>` line must match the oldest queued packet (so
//! an unexpected packet fails the next `>` line), and it must have been
//! sent within the line's window. Packets still queued when the script
//! ends fail the script if they were sent before its last event ran;
//! packets sent by or after the last event are beyond the script and only
//! reported. Packets to addresses the script does not own (anything but
//! `--remote_ip` and `--remote_ip2`) are not observed, as in packetdrill,
//! where they leave through another route.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use msctp_proto::auth::{AuthParams, association_key};
use msctp_proto::wire::{Chunk, Packet, Param, crc};
use msctp_proto::{AssociationConfig, Endpoint, EndpointConfig, Event as EngineEvent, Time};

use crate::encode::{self, InboundCtx, Mode};
use crate::error::{Failure, FailureKind};
use crate::mapping::Mapping;
use crate::matcher::{MatchCtx, match_packet};
use crate::render::render_packet;
use crate::script::{Direction, Event, EventKind, EventTime, PacketBody, PacketSpec, Script};
use crate::sockets::{Sockets, close_errno};
use crate::spec::{ChunkSpec, Field};

/// The engine's SCTP port (packetdrill binds 8080).
pub const LOCAL_PORT: u16 = 8080;
/// The script peer's port.
pub const REMOTE_PORT: u16 = 40000;

/// How far virtual time may run looking for a `*` packet.
const ANY_TIME_HORIZON: Duration = Duration::from_secs(3600);
/// Bound on timer firings while advancing (a timer that does not move
/// would otherwise loop forever).
const MAX_TIMER_STEPS: usize = 1_000_000;
/// Bound on queued outbound packets.
const MAX_QUEUED: usize = 10_000;
/// Bound on the engine events kept per association.
const MAX_EVENTS_KEPT: usize = 4096;

/// How to run scripts.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The `#ifdef` branch to keep.
    pub platform: String,
    /// Seed of every random choice of the engine.
    pub seed: [u8; 32],
    /// Keep a trace of every packet in and out and every call.
    pub trace: bool,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            platform: "FreeBSD".into(),
            seed: [7; 32],
            trace: false,
        }
    }
}

/// Bound on trace lines kept.
const MAX_TRACE: usize = 100_000;

/// A packet the engine sent.
#[derive(Debug, Clone)]
pub(crate) struct Sent {
    pub time: Time,
    pub src: IpAddr,
    pub dst: IpAddr,
    pub bytes: Vec<u8>,
    /// Index of the event being run when it was sent.
    pub event: usize,
    /// Sent before that event's action (while time advanced to it).
    pub before_action: bool,
}

/// The result of a script that ran to its end.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub events: usize,
    /// Virtual time at the end.
    pub end: Duration,
    /// Packets the engine sent after the last event (not checked).
    pub trailing: Vec<String>,
    /// Packets to addresses the script does not own (not observed).
    pub unobserved: usize,
}

/// Runs a parsed script.
pub fn run(script: &Script, cfg: &RunConfig) -> Result<Summary, Failure> {
    run_traced(script, cfg).0
}

/// Runs a parsed script and returns, with its result, the trace of what
/// happened (empty unless [`RunConfig::trace`]): every packet the script
/// injected or the engine sent, with its time, and every call.
pub fn run_traced(script: &Script, cfg: &RunConfig) -> (Result<Summary, Failure>, Vec<String>) {
    let mut r = Run::new(script, cfg);
    let result = r.run_all();
    (result, r.trace)
}

pub(crate) struct Run<'a> {
    pub script: &'a Script,
    pub cfg: &'a RunConfig,
    pub ep: Option<Endpoint>,
    pub now: Time,
    pub queue: VecDeque<Sent>,
    pub sockets: Sockets,
    pub map: Mapping,
    /// Initiate tags of the INIT / INIT ACK chunks the script sent.
    pub harness_tags: Vec<u32>,
    /// The State Cookie of the engine's last INIT ACK.
    pub cookie: Option<Vec<u8>>,
    /// The value of the engine's last HEARTBEAT.
    pub heartbeat: Option<Vec<u8>>,
    pub harness_auth: Option<AuthParams>,
    pub engine_auth: Option<AuthParams>,
    /// The event being run and whether its action started.
    pub current: usize,
    pub in_action: bool,
    pub unobserved: usize,
    pub line: usize,
    /// The engine's events per association, oldest first, for
    /// `engine_event`.
    pub events: HashMap<msctp_proto::AssocId, VecDeque<EngineEvent>>,
    pub trace: Vec<String>,
    /// PR-SCTP offered by sockets created from now on: `--pr_sctp`, then
    /// the script's `sysctl`s.
    pub pr_sctp: bool,
}

fn auth_params(params: &[Param]) -> Option<AuthParams> {
    let random = params.iter().find_map(|p| match p {
        Param::Random(r) => Some(r.to_vec()),
        _ => None,
    })?;
    let hmac_ids = params.iter().find_map(|p| match p {
        Param::HmacAlgo(h) => Some(h.clone()),
        _ => None,
    })?;
    let chunks = params.iter().find_map(|p| match p {
        Param::Chunks(c) => Some(c.clone()),
        _ => None,
    });
    Some(AuthParams {
        random,
        chunks,
        hmac_ids,
    })
}

impl<'a> Run<'a> {
    fn new(script: &'a Script, cfg: &'a RunConfig) -> Self {
        Run {
            script,
            cfg,
            ep: None,
            now: Time::ZERO,
            queue: VecDeque::new(),
            sockets: Sockets::default(),
            map: Mapping::default(),
            harness_tags: Vec::new(),
            cookie: None,
            heartbeat: None,
            harness_auth: None,
            engine_auth: None,
            current: 0,
            in_action: false,
            unobserved: 0,
            line: 0,
            events: HashMap::new(),
            trace: Vec::new(),
            pr_sctp: script.options.pr_sctp,
        }
    }

    /// Adds a line to the trace (when tracing).
    pub fn note(&mut self, what: impl FnOnce() -> String) {
        if self.cfg.trace && self.trace.len() < MAX_TRACE {
            let line = format!("{} s  {}", secs(self.now), what());
            self.trace.push(line);
        }
    }

    pub fn fail(&self, kind: FailureKind, msg: impl Into<String>) -> Failure {
        Failure::new(self.line, kind, msg)
    }

    fn opts(&self) -> &crate::script::ScriptOptions {
        &self.script.options
    }

    /// A backtick command: the `sysctl` that switches PR-SCTP (FreeBSD's
    /// `net.inet.sctp.pr_enable`, Linux's `net.sctp.prsctp_enable`) sets
    /// it for sockets created afterwards; anything else has no effect
    /// (the other extensions follow the script options).
    fn command(&mut self, text: &str) {
        let words: Vec<&str> = text.split_whitespace().collect();
        if words.first() != Some(&"sysctl") {
            return;
        }
        for w in &words[1..] {
            if let Some((key, value)) = w.split_once('=')
                && matches!(key, "net.inet.sctp.pr_enable" | "net.sctp.prsctp_enable")
                && let Some(v) = crate::value::parse_uint(value)
            {
                self.pr_sctp = v != 0;
                let line = self.line;
                self.note(|| format!("line {line}: PR-SCTP {}", if v != 0 { "on" } else { "off" }));
            }
        }
    }

    /// The association configuration a new socket starts with: the
    /// packetdrill targets' (no ADD-IP, AUTH, PR-SCTP or ECN; delayed SACK
    /// 200 ms; IPv4 over an MTU of 1500, so SCTP packets of 1480 bytes)
    /// plus the script's extension options.
    pub fn default_assoc_config(&self) -> AssociationConfig {
        let o = self.opts();
        let mut c = AssociationConfig {
            path_mtu: 1500 - 20,
            asconf: o.asconf,
            auth: o.auth,
            pr_sctp: self.pr_sctp,
            stream_reconfig: o.stream_reconfig,
            auth_chunks: o.auth_chunks.clone(),
            sack_delay: Some(Duration::from_millis(200)),
            ..AssociationConfig::default()
        };
        if let Some(ids) = &o.hmac_ids {
            c.hmac_algorithms = ids
                .iter()
                .filter_map(|&id| msctp_proto::auth::HmacAlgorithm::from_id(id))
                .collect();
        }
        c
    }

    /// The engine endpoint, created on first use with `cfg` as its
    /// association defaults.
    pub fn endpoint(&mut self, cfg: &AssociationConfig) -> Result<&mut Endpoint, Failure> {
        if self.ep.is_none() {
            let mut ecfg = EndpointConfig::new(LOCAL_PORT);
            ecfg.association = cfg.clone();
            let mut ep = Endpoint::new(ecfg, self.cfg.seed).map_err(|e| {
                self.fail(
                    FailureKind::Unsupported,
                    format!("engine configuration: {e}"),
                )
            })?;
            let mut addrs = vec![self.opts().local_ip];
            if let Some(a) = self.opts().local_ip2 {
                addrs.push(a);
            }
            ep.set_local_addresses(&addrs);
            self.ep = Some(ep);
        }
        let line = self.line;
        self.ep
            .as_mut()
            .ok_or_else(|| Failure::new(line, FailureKind::Unsupported, "no endpoint"))
    }

    fn observed(&self, dst: IpAddr) -> bool {
        dst == self.opts().remote_ip || Some(dst) == self.opts().remote_ip2
    }

    /// Collects what the engine wants to send now, and its events.
    pub fn drain(&mut self) -> Result<(), Failure> {
        let now = self.now;
        let local_ip = self.opts().local_ip;
        loop {
            let Some(ep) = self.ep.as_mut() else {
                return Ok(());
            };
            let Some(t) = ep.poll_transmit(now) else {
                break;
            };
            if self.cfg.trace {
                let map = self.map;
                let src = t.source.unwrap_or(local_ip).to_string();
                let dst = t.destination.to_string();
                let seen = self.observed(t.destination);
                self.note(|| {
                    format!(
                        "engine sends{}: {}",
                        if seen { "" } else { " (not observed)" },
                        render_packet(&src, &dst, &t.payload, &map)
                    )
                });
            }
            if !self.observed(t.destination) {
                self.unobserved += 1;
                continue;
            }
            if self.queue.len() >= MAX_QUEUED {
                return Err(self.fail(
                    FailureKind::UnexpectedPacket,
                    "the engine sent more than 10000 packets nobody expected",
                ));
            }
            self.queue.push_back(Sent {
                time: now,
                src: t.source.unwrap_or(local_ip),
                dst: t.destination,
                bytes: t.payload,
                event: self.current,
                before_action: !self.in_action,
            });
        }
        let mut events = Vec::new();
        if let Some(ep) = self.ep.as_mut() {
            ep.flush_events();
            while let Some(e) = ep.poll_event() {
                events.push(e);
            }
        }
        for (id, e) in events {
            self.on_engine_event(id, e);
        }
        Ok(())
    }

    /// Remembers what later inbound packets echo: the State Cookie, the
    /// Heartbeat Info, the engine's AUTH parameters (from a matched
    /// packet).
    fn note_outbound(&mut self, payload: &[u8]) {
        let Ok(view) = Packet::new_checked(payload) else {
            return;
        };
        for (r, _) in view.chunks().flatten() {
            let Some(raw) = payload.get(r) else { continue };
            match Chunk::parse(&Bytes::copy_from_slice(raw)) {
                Ok(Chunk::InitAck(i)) => {
                    for p in &i.params {
                        if let Param::StateCookie(c) = p {
                            self.cookie = Some(c.to_vec());
                        }
                    }
                    if let Some(a) = auth_params(&i.params) {
                        self.engine_auth = Some(a);
                    }
                }
                Ok(Chunk::Init(i)) => {
                    if let Some(a) = auth_params(&i.params) {
                        self.engine_auth = Some(a);
                    }
                }
                Ok(Chunk::Heartbeat { .. }) => {
                    self.heartbeat = raw.get(4..).map(|v| v.to_vec());
                }
                _ => {}
            }
        }
    }

    fn on_engine_event(&mut self, id: msctp_proto::AssocId, e: EngineEvent) {
        let log = self.events.entry(id).or_default();
        if log.len() >= MAX_EVENTS_KEPT {
            log.pop_front();
        }
        log.push_back(e.clone());
        match e {
            EngineEvent::Connected => {
                if self.sockets.by_assoc_mut(id).is_none()
                    && let Some(l) = self.sockets.listener_mut()
                    && l.accept_queue.len() < crate::sockets::MAX_SOCKETS
                {
                    l.accept_queue.push_back(id);
                }
            }
            EngineEvent::Closed { reason } => {
                if let Some(s) = self.sockets.by_assoc_mut(id) {
                    s.pending_error = close_errno(&reason);
                    s.closed = Some(reason);
                } else if let Some(l) = self.sockets.listener_mut() {
                    l.accept_queue.retain(|a| *a != id);
                }
            }
            _ => {}
        }
    }

    /// Fires every timer due at or before `t`, each at its deadline, then
    /// sets the clock to `t`.
    pub fn advance_to(&mut self, t: Time) -> Result<(), Failure> {
        self.drain()?;
        for _ in 0..MAX_TIMER_STEPS {
            let due = self.ep.as_ref().and_then(|e| e.poll_timeout());
            match due {
                Some(d) if d <= t => {
                    self.now = self.now.max(d);
                    let now = self.now;
                    if let Some(ep) = self.ep.as_mut() {
                        ep.handle_timeout(now);
                    }
                    self.drain()?;
                }
                _ => {
                    self.now = self.now.max(t);
                    return self.drain();
                }
            }
        }
        Err(self.fail(
            FailureKind::Unsupported,
            "an engine timer keeps firing without time moving",
        ))
    }

    fn run_all(&mut self) -> Result<Summary, Failure> {
        let events = &self.script.events;
        let tol = self.opts().tolerance;
        let mut base = Time::ZERO;
        for (k, ev) in events.iter().enumerate() {
            self.current = k;
            self.in_action = false;
            self.line = ev.line;
            let (lo, start, hi) = match ev.time {
                EventTime::Absolute(t) => {
                    let t = Time::ZERO + t;
                    (t - tol, t, t + tol)
                }
                EventTime::Relative(d) => {
                    let t = base + d;
                    (t - tol, t, t + tol)
                }
                EventTime::AbsoluteRange(a, b) => {
                    (Time::ZERO + a - tol, Time::ZERO + a, Time::ZERO + b + tol)
                }
                EventTime::RelativeRange(a, b) => (base + a - tol, base + a, base + b + tol),
                EventTime::Any => (Time::ZERO, self.now, self.now + ANY_TIME_HORIZON),
            };
            match &ev.kind {
                EventKind::Packet(p) if p.direction == Direction::Outbound => {
                    let any = matches!(ev.time, EventTime::Any);
                    self.expect_packet(ev, p, lo, hi, any)?;
                }
                kind => {
                    let at = if start < self.now {
                        if self.now > hi {
                            return Err(self.fail(
                                FailureKind::WrongTime,
                                format!(
                                    "event due at {} s, but the script is already at {} s",
                                    secs(start),
                                    secs(self.now)
                                ),
                            ));
                        }
                        self.now
                    } else {
                        start
                    };
                    self.advance_to(at)?;
                    self.in_action = true;
                    match kind {
                        EventKind::Packet(p) => self.inject(p)?,
                        EventKind::Syscall(s) => self.syscall(s)?,
                        EventKind::Command(c) => self.command(c),
                    }
                    self.drain()?;
                }
            }
            base = self.now;
        }
        // Packets sent before the last event ran were not expected.
        let last = events.len().saturating_sub(1);
        if let Some(p) = self
            .queue
            .iter()
            .find(|p| p.event < last || (p.event == last && p.before_action))
        {
            let p = p.clone();
            let line = events.get(p.event).map_or(0, |e| e.line);
            return Err(Failure::new(
                line,
                FailureKind::UnexpectedPacket,
                format!(
                    "the engine sent a packet at {} s that the script does not expect",
                    secs(p.time)
                ),
            )
            .actual(self.render(&p)));
        }
        let trailing = self.queue.iter().map(|p| self.render(p)).collect();
        Ok(Summary {
            events: events.len(),
            end: self.now - Time::ZERO,
            trailing,
            unobserved: self.unobserved,
        })
    }

    pub(crate) fn render(&self, p: &Sent) -> String {
        format!(
            "{} s: {}",
            secs(p.time),
            render_packet(&p.src.to_string(), &p.dst.to_string(), &p.bytes, &self.map)
        )
    }

    fn expected_text(&self, ev: &Event) -> String {
        ev.text.clone()
    }

    /// A `>` line: the next packet the engine sends must match it.
    fn expect_packet(
        &mut self,
        ev: &Event,
        p: &PacketSpec,
        lo: Time,
        hi: Time,
        any: bool,
    ) -> Result<(), Failure> {
        self.in_action = true;
        let PacketBody::Chunks(chunks) = &p.body else {
            return Err(self.fail(
                FailureKind::Unsupported,
                "raw bytes are only supported in inbound packets",
            ));
        };
        let Some(sent) = self.next_packet(hi)? else {
            let until = if any { "" } else { " by the end of its window" };
            // Look further, to say what came instead.
            let late = if any {
                None
            } else {
                self.next_packet(self.now + ANY_TIME_HORIZON)?
            };
            let mut f = self
                .fail(
                    FailureKind::MissingPacket,
                    format!("expected packet not sent{until} ({} s)", secs(hi)),
                )
                .expected(self.expected_text(ev));
            if let Some(s) = late {
                if self.match_sent(p, chunks, &s).is_ok() {
                    f.kind = FailureKind::WrongTime;
                    f.message = format!(
                        "packet sent at {} s, expected between {} s and {} s",
                        secs(s.time),
                        secs(lo),
                        secs(hi)
                    );
                } else {
                    f.message
                        .push_str("; the next packet came later and is different");
                }
                f = f.actual(self.render(&s));
            } else {
                f.message.push_str("; the engine sent nothing more");
            }
            return Err(f);
        };
        if let Err(msg) = self.match_sent(p, chunks, &sent) {
            return Err(self
                .fail(FailureKind::WrongPacket, msg)
                .expected(self.expected_text(ev))
                .actual(self.render(&sent)));
        }
        // As packetdrill does, what later packets echo (cookie, heartbeat
        // information) comes from the packets the script saw.
        self.note_outbound(&sent.bytes);
        if !any && (sent.time < lo || sent.time > hi) {
            return Err(self
                .fail(
                    FailureKind::WrongTime,
                    format!(
                        "packet sent at {} s, expected between {} s and {} s",
                        secs(sent.time),
                        secs(lo),
                        secs(hi)
                    ),
                )
                .expected(self.expected_text(ev))
                .actual(self.render(&sent)));
        }
        self.now = self.now.max(sent.time);
        Ok(())
    }

    /// The oldest packet sent and not yet matched; if there is none, runs
    /// the engine's timers up to `limit` until one is sent.
    fn next_packet(&mut self, limit: Time) -> Result<Option<Sent>, Failure> {
        self.drain()?;
        for _ in 0..MAX_TIMER_STEPS {
            if let Some(s) = self.queue.pop_front() {
                return Ok(Some(s));
            }
            match self.ep.as_ref().and_then(|e| e.poll_timeout()) {
                Some(d) if d <= limit => {
                    self.now = self.now.max(d);
                    let now = self.now;
                    if let Some(ep) = self.ep.as_mut() {
                        ep.handle_timeout(now);
                    }
                    self.drain()?;
                }
                _ => return Ok(None),
            }
        }
        Err(self.fail(
            FailureKind::Unsupported,
            "an engine timer keeps firing without time moving",
        ))
    }

    /// Compares a sent packet with a `>` line (chunks, addresses, tag).
    fn match_sent(
        &mut self,
        p: &PacketSpec,
        chunks: &[ChunkSpec],
        sent: &Sent,
    ) -> Result<(), String> {
        self.learn_mapping(chunks, &sent.bytes);
        let auth_key = match (&self.harness_auth, &self.engine_auth) {
            (Some(h), Some(e)) => Some(association_key(&[], h, e)),
            _ => None,
        };
        let ctx = MatchCtx {
            map: &self.map,
            auth_key: auth_key.as_deref(),
        };
        match_packet(chunks, &sent.bytes, &ctx)?;
        self.check_addresses(p, sent)?;
        self.check_vtag(p, chunks, &sent.bytes)
    }

    fn check_addresses(&self, p: &PacketSpec, sent: &Sent) -> Result<(), String> {
        let (src, dst) = match p.addresses {
            Some((s, d)) => (s, d),
            None => (Some(self.opts().local_ip), Some(self.opts().remote_ip)),
        };
        if let Some(s) = src
            && s != sent.src
        {
            return Err(format!("source address: expected {s}, actual {}", sent.src));
        }
        if let Some(d) = dst
            && d != sent.dst
        {
            return Err(format!(
                "destination address: expected {d}, actual {}",
                sent.dst
            ));
        }
        Ok(())
    }

    /// Packetdrill does not check the verification tag of outbound
    /// packets; an explicit `> sctp(tag=N)` asks for it (N mapped like the
    /// engine's tag). Without it, a packet that is not an INIT and carries
    /// no T bit must carry one of the tags the script announced.
    fn check_vtag(&self, p: &PacketSpec, chunks: &[ChunkSpec], bytes: &[u8]) -> Result<(), String> {
        let Ok(view) = Packet::new_checked(bytes) else {
            return Ok(());
        };
        let vtag = view.verification_tag();
        if let Some(t) = p.tag {
            // The script's own tags are used as written.
            let expected = t;
            if vtag != expected {
                return Err(format!(
                    "verification tag: expected {t} (0x{expected:08x}), actual 0x{vtag:08x}"
                ));
            }
            return Ok(());
        }
        let first = chunks.first();
        let is_init = matches!(first, Some(ChunkSpec::Init(_)));
        if is_init {
            if vtag != 0 {
                return Err(format!(
                    "verification tag of an INIT: expected 0, actual 0x{vtag:08x}"
                ));
            }
            return Ok(());
        }
        let reflected = view.chunks().flatten().any(|(r, c)| {
            let t = c.chunk_type();
            let f = bytes.get(r.start + 1).copied().unwrap_or(0);
            (t == 6 || t == 14) && f & 1 != 0
        });
        if reflected || self.harness_tags.is_empty() {
            return Ok(());
        }
        if self.harness_tags.contains(&vtag) {
            return Ok(());
        }
        Err(format!(
            "verification tag 0x{vtag:08x} is none of the tags the script announced ({})",
            self.harness_tags
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }

    /// The first INIT (active side) or INIT ACK (passive side) of the
    /// engine fixes the mapping of its tag and TSNs.
    fn learn_mapping(&mut self, chunks: &[ChunkSpec], bytes: &[u8]) {
        if self.map.learned {
            return;
        }
        let Some(first) = chunks.first() else { return };
        let spec = match first {
            ChunkSpec::Init(s) | ChunkSpec::InitAck(s) => s,
            _ => return,
        };
        let Ok(view) = Packet::new_checked(bytes) else {
            return;
        };
        let Some(Ok((r, _))) = view.chunks().next() else {
            return;
        };
        let Some(raw) = bytes.get(r) else { return };
        if let Ok(Chunk::Init(i) | Chunk::InitAck(i)) = Chunk::parse(&Bytes::copy_from_slice(raw)) {
            self.map = Mapping {
                script_local_tag: spec.tag.get().copied().unwrap_or(0),
                live_local_tag: i.initiate_tag,
                script_local_tsn: spec.tsn.get().copied().unwrap_or(0),
                live_local_tsn: i.initial_tsn,
                learned: true,
            };
        }
    }

    /// A `<` line: builds the packet and hands it to the engine.
    fn inject(&mut self, p: &PacketSpec) -> Result<(), Failure> {
        let (src, dst) = match p.addresses {
            Some((s, d)) => (
                s.unwrap_or(self.opts().remote_ip),
                d.unwrap_or(self.opts().local_ip),
            ),
            None => (self.opts().remote_ip, self.opts().local_ip),
        };
        let bytes = self.build_inbound(p)?;
        if self.cfg.trace {
            let map = self.map;
            let text = render_packet(&src.to_string(), &dst.to_string(), &bytes, &map);
            let line = self.line;
            self.note(|| format!("line {line}: script sends: {text}"));
        }
        let now = self.now;
        match self.ep.as_mut() {
            Some(ep) => {
                ep.handle_datagram(now, src, dst, Bytes::from(bytes));
            }
            None => {
                // No socket is bound: nothing listens on the port. Build
                // the endpoint so the out-of-the-blue rules answer.
                let cfg = self.default_assoc_config();
                self.endpoint(&cfg)?
                    .handle_datagram(now, src, dst, Bytes::from(bytes));
            }
        }
        Ok(())
    }

    fn inbound_vtag(&self, p: &PacketSpec) -> u32 {
        if let Some(t) = p.tag {
            let reflect = match &p.body {
                PacketBody::Chunks(cs) => cs.iter().any(t_bit_set),
                PacketBody::Raw(_) => false,
            };
            if reflect {
                // Reflected: relative to the script's own tag, which is
                // used as written.
                return t;
            }
            return self.map.explicit_tag_to_live(t);
        }
        match &p.body {
            PacketBody::Raw(b) => {
                if b.first() == Some(&1) {
                    0
                } else {
                    self.map.live_local_tag
                }
            }
            PacketBody::Chunks(cs) => {
                if cs.iter().any(|c| matches!(c, ChunkSpec::Init(_))) {
                    0
                } else if cs.iter().any(t_bit_set) {
                    self.harness_tags.first().copied().unwrap_or(0)
                } else {
                    self.map.live_local_tag
                }
            }
        }
    }

    fn build_inbound(&mut self, p: &PacketSpec) -> Result<Vec<u8>, Failure> {
        let vtag = self.inbound_vtag(p);
        let mut buf = Vec::with_capacity(256);
        buf.extend_from_slice(&REMOTE_PORT.to_be_bytes());
        buf.extend_from_slice(&LOCAL_PORT.to_be_bytes());
        buf.extend_from_slice(&vtag.to_be_bytes());
        buf.extend_from_slice(&[0; 4]);
        let mut auth_at: Option<(usize, u16)> = None;
        match &p.body {
            PacketBody::Raw(b) => buf.extend_from_slice(b),
            PacketBody::Chunks(chunks) => {
                let ctx = InboundCtx {
                    map: &self.map,
                    cookie: self.cookie.as_deref(),
                    heartbeat: self.heartbeat.as_deref(),
                };
                for c in chunks {
                    let t = encode::chunk(Mode::Inbound(&ctx), c)
                        .map_err(|e| self.fail(FailureKind::BadInbound, e.to_string()))?;
                    if let ChunkSpec::Auth { hmac, hmac_id, .. } = c
                        && hmac.is_any()
                        && auth_at.is_none()
                    {
                        auth_at = Some((buf.len(), hmac_id.get().copied().unwrap_or(1)));
                    }
                    buf.extend_from_slice(&t.body.bytes);
                    while buf.len() % 4 != 0 {
                        buf.push(0);
                    }
                }
                self.note_inbound(chunks, &buf);
            }
        }
        if let Some((at, id)) = auth_at {
            let key = match (&self.harness_auth, &self.engine_auth) {
                (Some(h), Some(e)) => association_key(&[], h, e),
                _ => {
                    return Err(self.fail(
                        FailureKind::BadInbound,
                        "AUTH[hmac=...] needs the RANDOM, CHUNKS and HMAC_ALGO parameters \
                         of both sides' INIT / INIT ACK",
                    ));
                }
            };
            let alg = msctp_proto::auth::HmacAlgorithm::from_id(id).ok_or_else(|| {
                self.fail(
                    FailureKind::BadInbound,
                    format!("AUTH: cannot compute a MAC with HMAC identifier {id}"),
                )
            })?;
            let mac = alg.mac(&key, &[buf.get(at..).unwrap_or_default()]);
            if let Some(slot) = buf.get_mut(at + 8..at + 8 + mac.len()) {
                slot.copy_from_slice(&mac);
            }
        }
        crc::fill(&mut buf);
        if p.bad_crc32c
            && let Some(b) = buf.get_mut(8)
        {
            *b ^= 0xff;
        }
        Ok(buf)
    }

    /// Remembers the tags and AUTH parameters the script announced.
    fn note_inbound(&mut self, chunks: &[ChunkSpec], packet: &[u8]) {
        for c in chunks {
            if let ChunkSpec::Init(s) | ChunkSpec::InitAck(s) = c
                && let Field::Is(tag) = s.tag
                && !self.harness_tags.contains(&tag)
            {
                self.harness_tags.push(tag);
            }
        }
        let Ok(view) = Packet::new_checked(packet) else {
            return;
        };
        for (r, _) in view.chunks().flatten() {
            let Some(raw) = packet.get(r) else { continue };
            if let Ok(Chunk::Init(i) | Chunk::InitAck(i)) =
                Chunk::parse(&Bytes::copy_from_slice(raw))
                && let Some(a) = auth_params(&i.params)
            {
                self.harness_auth = Some(a);
            }
        }
    }
}

fn t_bit_set(c: &ChunkSpec) -> bool {
    match c {
        ChunkSpec::Abort { flags, .. } | ChunkSpec::ShutdownComplete { flags } => {
            flags.get().is_some_and(|f| f & 1 != 0)
        }
        _ => false,
    }
}

/// Seconds as a decimal string.
pub fn secs(t: Time) -> String {
    let ns = t.as_nanos();
    format!("{}.{:06}", ns / 1_000_000_000, (ns % 1_000_000_000) / 1000)
}
