//! The connection manager for heterogeneous networks (CMHN, docs/MODELS.md
//! 2.4) as one agent per end: the mobile side opens one TCP connection per
//! interface; the fixed side accepts them. Either end may be the data
//! sender (the one with a [`Source`]).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::net::{IpAddr, SocketAddr};

use msctp_tcp::{ListenOutcome, TcpConfig, TcpConnection, TcpError, TcpListener, TcpState};

use super::estimator::BdpEstimator;
use super::record::{DATA_HEADER, Record, RecordParser};
use super::settings::{CmhnSettings, Scheduling};
use crate::Time;
use crate::kernel::EngineTimer;
use crate::kernel::ids::IfaceId;
use crate::kernel::ip::{DEFAULT_TTL, IpPacket, proto};
use crate::kernel::notification::Notification;
use crate::kernel::{Agent, Ctx, RxInfo};
use crate::measure::PathId;
use crate::measure::flow_log::SharedFlowLog;
use crate::models::app::{Source, Traffic};
use crate::models::handoff::{LinkDecision, TriggerSource};
use crate::models::settings::SettingError;
use crate::models::tcp::{TcpEndpoint, peek_header};

const TOKEN_ENGINE: u64 = 0;
const TOKEN_START: u64 = 1;
const TOKEN_ESTIMATE: u64 = 2;
const TOKEN_KEEPALIVE: u64 = 3;

/// Most slots (interfaces of the mobile node) the fixed side accepts.
pub const MAX_SLOTS: usize = 16;

/// One interface of the mobile node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CmhnInterface {
    pub iface: IfaceId,
    /// The mobile node's address on it (the connection's local address).
    pub address: IpAddr,
}

/// Which end of the multi-connection transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CmhnSide {
    /// The mobile node: one connection per interface, from `local_port`.
    Mobile {
        interfaces: Vec<CmhnInterface>,
        remote: SocketAddr,
        local_port: u16,
    },
    /// The fixed correspondent, accepting on `port`.
    Fixed { port: u16 },
}

/// Settings of a [`CmhnAgent`].
#[derive(Debug, Clone)]
pub struct CmhnConfig {
    pub tcp: TcpConfig,
    pub side: CmhnSide,
    /// The application data this end sends (None: it receives).
    pub source: Option<Source>,
    /// What a scenario's `[flows.cmhn]` sets (scheduling, keep-alive,
    /// probe and estimate periods, record limits).
    pub settings: CmhnSettings,
    pub log: Option<SharedFlowLog>,
    pub triggers: TriggerSource,
    /// Mobile side: slots (indices in `interfaces`) usable at the start.
    pub initially_usable: Vec<usize>,
    pub start: Time,
    pub isn: u32,
}

impl CmhnConfig {
    pub fn new(tcp: TcpConfig, side: CmhnSide) -> Self {
        CmhnConfig {
            tcp,
            side,
            source: None,
            settings: CmhnSettings::default(),
            log: None,
            triggers: TriggerSource::Decisions,
            initially_usable: vec![0],
            start: Time::ZERO,
            isn: 0x4000_0000,
        }
    }
}

/// Counters of a CMHN end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CmhnStats {
    /// Connections opened (three-way handshakes started) by this end.
    pub handshakes: u64,
    /// Connections accepted (fixed side).
    pub accepted: u64,
    /// Inactive connections brought back without a handshake.
    pub reuses: u64,
    /// Connections given up after the keep-alive time.
    pub expired: u64,
    pub switches: u64,
    /// Data records sent again on another connection after a switch.
    pub records_resent: u64,
    pub records_sent: u64,
    pub records_received: u64,
    pub duplicates_received: u64,
    pub reorder_overflow: u64,
    pub link_messages_sent: u64,
    pub link_messages_received: u64,
    pub bad_streams: u64,
}

/// One switch of the sender's active connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwitchRecord {
    pub at: Time,
    pub from: Option<usize>,
    pub to: usize,
    /// Since when the new connection's bandwidth-delay product was being
    /// measured (its link came up), if the switch ended such a probe.
    pub probing_since: Option<Time>,
    /// Records of the old connection queued to be sent again, in order.
    pub resent: Vec<u64>,
    /// The first data records written on the new connection after the
    /// switch (at most 64), in order.
    pub written_after: Vec<u64>,
}

#[derive(Debug)]
struct Slot {
    ep: Option<TcpEndpoint>,
    usable: bool,
    frozen_since: Option<Time>,
    keep_generation: u64,
    parser: RecordParser,
    rx: Vec<u8>,
    /// Data records written on this connection: (sequence, end offset).
    sent: VecDeque<(u64, u64)>,
    /// Stream bytes written.
    written: u64,
    est: BdpEstimator,
}

impl Slot {
    fn new(max_record: u32) -> Self {
        Slot {
            ep: None,
            usable: false,
            frozen_since: None,
            keep_generation: 0,
            parser: RecordParser::new(max_record),
            rx: Vec::new(),
            sent: VecDeque::new(),
            written: 0,
            est: BdpEstimator::default(),
        }
    }

    fn reset_stream(&mut self, max_record: u32) {
        self.ep = None;
        self.frozen_since = None;
        self.parser = RecordParser::new(max_record);
        self.rx.clear();
        self.sent.clear();
        self.written = 0;
        self.est = BdpEstimator::default();
    }

    fn connected(&self) -> bool {
        self.ep
            .as_ref()
            .is_some_and(|e| matches!(e.state(), TcpState::Established | TcpState::CloseWait))
    }
}

/// Why a CMHN end could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CmhnConfigError {
    #[error("the mobile side needs at least one interface")]
    NoInterface,
    #[error("more than {MAX_SLOTS} interfaces")]
    TooManyInterfaces,
    #[error(transparent)]
    Tcp(#[from] TcpError),
    #[error(transparent)]
    Setting(#[from] SettingError),
}

/// One end of the multi-connection transport.
#[derive(Debug)]
pub struct CmhnAgent {
    cfg: CmhnConfig,
    slots: Vec<Slot>,
    /// Fixed side: accepted connections not yet identified by a Hello.
    unassigned: Vec<Slot>,
    listener: Option<TcpListener>,
    source: Option<Source>,
    message_bytes: usize,
    // Sender.
    active: Option<usize>,
    probing: Option<(usize, Time)>,
    resend: VecDeque<u64>,
    outstanding: BTreeMap<u64, u32>,
    next_sequence: u64,
    switches: Vec<SwitchRecord>,
    // Receiver.
    next_deliver: u64,
    pending: BTreeMap<u64, u32>,
    delivered_bytes: u64,
    stats: CmhnStats,
    armed: EngineTimer,
    estimating: bool,
}

impl CmhnAgent {
    pub fn new(mut cfg: CmhnConfig) -> Result<Self, CmhnConfigError> {
        cfg.tcp.validate().map_err(TcpError::from)?;
        cfg.settings.validate()?;
        let mut slots = Vec::new();
        let mut listener = None;
        match &cfg.side {
            CmhnSide::Mobile { interfaces, .. } => {
                if interfaces.is_empty() {
                    return Err(CmhnConfigError::NoInterface);
                }
                if interfaces.len() > MAX_SLOTS {
                    return Err(CmhnConfigError::TooManyInterfaces);
                }
                for _ in interfaces {
                    slots.push(Slot::new(cfg.settings.max_record));
                }
            }
            CmhnSide::Fixed { port } => {
                listener = Some(TcpListener::new(
                    cfg.tcp.clone(),
                    *port,
                    u64::from(cfg.isn),
                )?);
            }
        }
        let source = cfg.source.take();
        let message_bytes = match source.as_ref().map(|s| s.traffic()) {
            Some(Traffic::Bulk { message_bytes })
            | Some(Traffic::File { message_bytes, .. })
            | Some(Traffic::Cbr { message_bytes, .. })
            | Some(Traffic::Pareto { message_bytes, .. }) => *message_bytes,
            None => 0,
        };
        Ok(CmhnAgent {
            cfg,
            slots,
            unassigned: Vec::new(),
            listener,
            source,
            message_bytes,
            active: None,
            probing: None,
            resend: VecDeque::new(),
            outstanding: BTreeMap::new(),
            next_sequence: 0,
            switches: Vec::new(),
            next_deliver: 0,
            pending: BTreeMap::new(),
            delivered_bytes: 0,
            stats: CmhnStats::default(),
            armed: EngineTimer::new(TOKEN_ENGINE),
            estimating: false,
        })
    }

    pub fn stats(&self) -> CmhnStats {
        self.stats
    }

    pub fn switches(&self) -> &[SwitchRecord] {
        &self.switches
    }

    /// The slot carrying new data (sender).
    pub fn active(&self) -> Option<usize> {
        self.active
    }

    /// Application bytes delivered in order (receiver).
    pub fn delivered(&self) -> u64 {
        self.delivered_bytes
    }

    /// The connection of a slot (mobile side: interface index; fixed side:
    /// the mobile node's slot number).
    pub fn connection(&self, slot: usize) -> Option<&TcpConnection> {
        self.slots.get(slot)?.ep.as_ref().map(|e| e.connection())
    }

    /// The measured bandwidth-delay product of a slot's path, bytes.
    pub fn bdp_estimate(&self, slot: usize) -> Option<f64> {
        self.slots.get(slot).map(|s| s.est.bdp_bytes())
    }

    fn is_sender(&self) -> bool {
        self.source.is_some()
    }

    fn log_path(slot: usize) -> PathId {
        PathId(slot as u32)
    }

    // ----- connections -----

    fn open_slot(&mut self, ctx: &mut Ctx<'_>, i: usize) {
        let CmhnSide::Mobile {
            interfaces,
            remote,
            local_port,
        } = &self.cfg.side
        else {
            return;
        };
        let Some(ifc) = interfaces.get(i) else {
            return;
        };
        let local = SocketAddr::new(ifc.address, *local_port);
        let isn = self
            .cfg
            .isn
            .wrapping_add((i as u32).wrapping_mul(0x1000_0000));
        let Ok(c) = TcpConnection::connect(self.cfg.tcp.clone(), ctx.now(), local, *remote, isn)
        else {
            return;
        };
        let mut ep = TcpEndpoint::new(c, DEFAULT_TTL, None);
        ep.set_auto_read(false);
        let slot = &mut self.slots[i];
        slot.reset_stream(self.cfg.settings.max_record);
        slot.ep = Some(ep);
        self.stats.handshakes += 1;
        self.write_record(i, Record::Hello { slot: i as u8 });
    }

    /// Writes a record on a slot's connection if it fits whole.
    fn write_record(&mut self, i: usize, r: Record) -> bool {
        let Some(slot) = self.slots.get_mut(i) else {
            return false;
        };
        let Some(ep) = slot.ep.as_mut() else {
            return false;
        };
        if ep.send_capacity() < r.wire_len() {
            return false;
        }
        let h = r.header();
        if ep.write(&h).unwrap_or(0) != h.len() {
            return false;
        }
        if let Record::Data { sequence, length } = r {
            if ep.write_zeros(length as usize).unwrap_or(0) != length as usize {
                return false;
            }
            slot.written += r.wire_len() as u64;
            slot.sent.push_back((sequence, slot.written));
        } else {
            slot.written += r.wire_len() as u64;
        }
        true
    }

    fn freeze(&mut self, ctx: &mut Ctx<'_>, i: usize) {
        let Some(slot) = self.slots.get_mut(i) else {
            return;
        };
        let Some(ep) = slot.ep.as_mut() else {
            return;
        };
        ep.connection_mut().freeze();
        slot.frozen_since = Some(ctx.now());
        slot.keep_generation += 1;
        let token = (slot.keep_generation << 12) | ((i as u64 & 0xff) << 4) | TOKEN_KEEPALIVE;
        ctx.set_timer_in(self.cfg.settings.keepalive, token);
    }

    fn thaw(&mut self, ctx: &mut Ctx<'_>, i: usize) -> bool {
        let Some(slot) = self.slots.get_mut(i) else {
            return false;
        };
        let Some(ep) = slot.ep.as_mut() else {
            return false;
        };
        if slot.frozen_since.take().is_none() {
            return false;
        }
        // The connection was frozen when its link went down: what it had
        // in flight then is lost (the link layer said so), and its records
        // were resent elsewhere. It sends that data again at once rather
        // than after a retransmission timeout (at least RTO.Min, 1 s,
        // maybe backed off), which would leave a short visit to the
        // network unused: the peer's TCP needs those bytes in sequence
        // before it takes any new record on this connection. It restarts
        // from the restart window of RFC 5681 section 4.1 (idle for more
        // than an RTO), not with the window it had before, which could
        // burst into the access point's queue.
        let c = ep.connection_mut();
        c.thaw(ctx.now());
        let st = c.stats();
        let restart = c.config().initial_window_bytes(st.smss).min(st.cwnd);
        c.set_cwnd(restart);
        c.retransmit_unacked();
        slot.est.restart();
        slot.keep_generation += 1;
        true
    }

    /// Tells the peer about a link, over another usable connection (the
    /// backup link) or, for a link coming up, over that link itself.
    fn send_link(&mut self, i: usize, up: bool) {
        let backup = (0..self.slots.len()).filter(|&j| j != i).find(|&j| {
            self.slots[j].usable
                && self.slots[j].frozen_since.is_none()
                && self.slots[j].ep.is_some()
        });
        let via = backup.or(if up { Some(i) } else { None });
        if let Some(j) = via
            && self.write_record(j, Record::Link { slot: i as u8, up })
        {
            self.stats.link_messages_sent += 1;
        }
    }

    // ----- link decisions -----

    fn link_changed(&mut self, ctx: &mut Ctx<'_>, i: usize, up: bool) {
        let mobile = matches!(self.cfg.side, CmhnSide::Mobile { .. });
        if i >= self.slots.len() {
            return;
        }
        if self.slots[i].usable == up {
            return;
        }
        self.slots[i].usable = up;
        if up {
            if self.slots[i].ep.is_some() {
                if self.thaw(ctx, i) {
                    self.stats.reuses += 1;
                }
            } else if mobile {
                self.open_slot(ctx, i);
            }
            if mobile && !self.is_sender() {
                self.send_link(i, true);
            }
            if self.is_sender() {
                self.sender_link_up(ctx, i);
            }
        } else {
            if mobile && !self.is_sender() {
                self.send_link(i, false);
            }
            self.freeze(ctx, i);
            if self.is_sender() {
                self.sender_link_down(ctx, i);
            }
        }
    }

    fn sender_link_up(&mut self, ctx: &mut Ctx<'_>, i: usize) {
        match self.active {
            None => self.active = Some(i),
            Some(a) if a == i => {}
            Some(_) => {
                if self.cfg.settings.scheduling == Scheduling::Switch {
                    self.probing = Some((i, ctx.now()));
                }
            }
        }
    }

    fn sender_link_down(&mut self, ctx: &mut Ctx<'_>, i: usize) {
        if self.probing.is_some_and(|(p, _)| p == i) {
            self.probing = None;
            self.requeue(i);
        }
        if self.active == Some(i) {
            let next = self.probing.map(|(p, _)| p).or_else(|| {
                (0..self.slots.len())
                    .filter(|&j| j != i && self.slots[j].usable && self.slots[j].ep.is_some())
                    .max_by(|&a, &b| {
                        self.slots[a]
                            .est
                            .bdp_bytes()
                            .total_cmp(&self.slots[b].est.bdp_bytes())
                    })
            });
            match next {
                Some(n) => self.switch_to(ctx, n),
                None => {
                    self.requeue(i);
                    self.active = None;
                }
            }
        } else if self.cfg.settings.scheduling == Scheduling::Stripe {
            self.requeue(i);
        }
    }

    /// Queues the slot's unacknowledged records to be sent first.
    fn requeue(&mut self, i: usize) -> Vec<u64> {
        let mut all: BTreeSet<u64> = self.resend.iter().copied().collect();
        let mine: Vec<u64> = self.slots[i]
            .sent
            .iter()
            .map(|&(s, _)| s)
            .filter(|s| self.outstanding.contains_key(s))
            .collect();
        all.extend(mine.iter().copied());
        self.resend = all.into_iter().collect();
        mine
    }

    fn switch_to(&mut self, ctx: &mut Ctx<'_>, new: usize) {
        let old = self.active;
        self.active = Some(new);
        let probing_since = self.probing.filter(|&(p, _)| p == new).map(|(_, t)| t);
        self.probing = None;
        let resent = old.map(|o| self.requeue(o)).unwrap_or_default();
        self.stats.switches += 1;
        self.switches.push(SwitchRecord {
            at: ctx.now(),
            from: old,
            to: new,
            probing_since,
            resent,
            written_after: Vec::new(),
        });
    }

    // ----- sender -----

    fn update_acks(&mut self, now: Time) {
        for slot in &mut self.slots {
            let Some(ep) = slot.ep.as_ref() else {
                continue;
            };
            let st = ep.stats();
            while slot
                .sent
                .front()
                .is_some_and(|&(_, end)| end <= st.bytes_acked)
            {
                if let Some((s, _)) = slot.sent.pop_front() {
                    self.outstanding.remove(&s);
                }
            }
            if slot.frozen_since.is_none() {
                slot.est.update(now, st.bytes_acked, st.srtt, st.last_rtt);
            }
        }
    }

    /// Room in a slot's connection: the congestion window plus two
    /// segments and one record header beyond what is unacknowledged, so
    /// little data sits unsent in a connection that may be switched away
    /// from, yet more than a full segment always waits behind the window.
    /// Records (a header plus a message) do not line up with segments; with
    /// less than a segment waiting, the connection (Nagle off) would send
    /// each record's tail as a segment of its own, tiny segments that fill
    /// a packet-counting queue and slow the flow well below one plain TCP
    /// connection's on the same link.
    fn room(&self, i: usize) -> usize {
        let slot = &self.slots[i];
        if !slot.usable || slot.frozen_since.is_some() {
            return 0;
        }
        let Some(ep) = slot.ep.as_ref() else {
            return 0;
        };
        let st = ep.stats();
        let mss = st.smss as usize;
        let cap = (st.cwnd as usize).max(2 * mss) + 2 * mss + DATA_HEADER;
        cap.saturating_sub(ep.connection().unacked_len())
            .min(ep.send_capacity())
    }

    fn pump(&mut self, ctx: &mut Ctx<'_>) {
        let now = ctx.now();
        let targets: Vec<usize> = match self.cfg.settings.scheduling {
            Scheduling::Switch => self
                .active
                .into_iter()
                .chain(self.probing.map(|(p, _)| p))
                .collect(),
            Scheduling::Stripe => (0..self.slots.len())
                .filter(|&i| self.slots[i].usable && self.slots[i].ep.is_some())
                .collect(),
        };
        for i in targets {
            loop {
                let room = self.room(i);
                if room <= DATA_HEADER {
                    break;
                }
                // Records of the old connection first.
                if let Some(&seq) = self.resend.front() {
                    let Some(&len) = self.outstanding.get(&seq) else {
                        self.resend.pop_front();
                        continue;
                    };
                    if room < DATA_HEADER + len as usize {
                        break;
                    }
                    if !self.write_record(
                        i,
                        Record::Data {
                            sequence: seq,
                            length: len,
                        },
                    ) {
                        break;
                    }
                    self.resend.pop_front();
                    self.stats.records_resent += 1;
                    self.note_written(i, seq);
                    if let Some(log) = &self.cfg.log {
                        log.borrow_mut()
                            .retransmitted(now, seq, Self::log_path(i), false);
                    }
                    continue;
                }
                let Some(src) = self.source.as_mut() else {
                    break;
                };
                let want = self.message_bytes.min(room - DATA_HEADER);
                if want < self.message_bytes && !matches!(src.traffic(), Traffic::File { .. }) {
                    break;
                }
                let msgs = src.take(now, want, ctx.rng());
                let Some(&m) = msgs.first() else {
                    break;
                };
                let seq = self.next_sequence;
                self.next_sequence += 1;
                self.outstanding.insert(seq, m as u32);
                if let Some(log) = &self.cfg.log {
                    log.borrow_mut().bytes_offered += m as u64;
                }
                if !self.write_record(
                    i,
                    Record::Data {
                        sequence: seq,
                        length: m as u32,
                    },
                ) {
                    // Could not fit after all: resend it first next time.
                    self.resend.push_front(seq);
                    break;
                }
                self.stats.records_sent += 1;
                self.note_written(i, seq);
            }
        }
    }

    fn note_written(&mut self, i: usize, seq: u64) {
        if let Some(s) = self.switches.last_mut()
            && s.to == i
            && s.written_after.len() < 64
        {
            s.written_after.push(seq);
        }
    }

    // ----- receiver -----

    fn on_record(&mut self, ctx: &mut Ctx<'_>, slot: usize, r: Record) {
        let now = ctx.now();
        match r {
            Record::Data { sequence, length } => {
                self.stats.records_received += 1;
                let new = sequence >= self.next_deliver && !self.pending.contains_key(&sequence);
                if let Some(log) = &self.cfg.log {
                    log.borrow_mut()
                        .arrival(now, Self::log_path(slot), sequence, length, new);
                }
                if !new {
                    self.stats.duplicates_received += 1;
                    return;
                }
                if self.pending.len() >= self.cfg.settings.max_reorder {
                    self.stats.reorder_overflow += 1;
                    return;
                }
                self.pending.insert(sequence, length);
                let mut bytes = 0u64;
                while let Some(len) = self.pending.remove(&self.next_deliver) {
                    bytes += u64::from(len);
                    self.next_deliver += 1;
                }
                if bytes > 0 {
                    self.delivered_bytes += bytes;
                    if let Some(log) = &self.cfg.log {
                        log.borrow_mut().delivered(now, bytes);
                    }
                }
            }
            Record::Link { slot: about, up } => {
                self.stats.link_messages_received += 1;
                let about = usize::from(about);
                if matches!(self.cfg.side, CmhnSide::Fixed { .. }) {
                    self.link_changed(ctx, about, up);
                }
            }
            Record::Hello { .. } => {}
        }
    }

    // ----- driving -----

    /// Reads and handles records, lets the sender write, then sends what
    /// the connections have and re-arms the timer. The sender writes
    /// before the connections send: a connection flushed between an
    /// acknowledgement and the writing would send the short tail of its
    /// last record as a segment of its own.
    fn drive(&mut self, ctx: &mut Ctx<'_>) {
        let now = ctx.now();
        let mut records: Vec<(usize, Record)> = Vec::new();
        let mut out = Vec::new();
        for (i, slot) in self.slots.iter_mut().enumerate() {
            let Some(ep) = slot.ep.as_mut() else {
                continue;
            };
            slot.rx.clear();
            ep.read_into(now, Some(&mut slot.rx));
            out.clear();
            if slot.parser.push(&slot.rx, &mut out).is_err() {
                self.stats.bad_streams += 1;
                ep.connection_mut().abort();
                ep.flush(ctx);
            }
            records.extend(out.iter().map(|&r| (i, r)));
        }
        // Fixed side: connections waiting for their Hello.
        let mut k = 0;
        while k < self.unassigned.len() {
            let slot = &mut self.unassigned[k];
            let mut hello = None;
            if let Some(ep) = slot.ep.as_mut() {
                ep.flush(ctx);
                slot.rx.clear();
                ep.read_into(now, Some(&mut slot.rx));
                out.clear();
                let bad = slot.parser.push(&slot.rx, &mut out).is_err();
                if bad {
                    self.stats.bad_streams += 1;
                    ep.connection_mut().abort();
                    ep.flush(ctx);
                }
                if let Some(Record::Hello { slot: s }) = out.first() {
                    hello = Some(usize::from(*s));
                }
            }
            match hello {
                Some(s) if s < MAX_SLOTS => {
                    let taken = self.unassigned.remove(k);
                    while self.slots.len() <= s {
                        self.slots.push(Slot::new(self.cfg.settings.max_record));
                    }
                    self.slots[s] = taken;
                    self.slots[s].usable = false;
                    records.extend(out.iter().skip(1).map(|&r| (s, r)));
                    self.link_changed(ctx, s, true);
                }
                _ => k += 1,
            }
        }
        for (i, r) in records {
            self.on_record(ctx, i, r);
        }
        if self.is_sender() {
            self.update_acks(now);
            self.pump(ctx);
            if !self.estimating {
                self.estimating = true;
                ctx.set_timer_in(self.cfg.settings.estimate_interval, TOKEN_ESTIMATE);
            }
        }
        for slot in &mut self.slots {
            if let Some(ep) = slot.ep.as_mut() {
                ep.flush(ctx);
            }
        }
        self.rearm(ctx);
    }

    fn rearm(&mut self, ctx: &mut Ctx<'_>) {
        let next = self
            .slots
            .iter()
            .chain(self.unassigned.iter())
            .filter_map(|s| s.ep.as_ref()?.deadline())
            .min();
        let Some(t) = next else {
            return;
        };
        self.armed.arm_by(ctx, t);
    }

    fn evaluate(&mut self, ctx: &mut Ctx<'_>) {
        let now = ctx.now();
        self.update_acks(now);
        if let (Some((p, since)), Some(a)) = (self.probing, self.active) {
            let new = self.slots[p].est.bdp_bytes();
            let cur = self.slots[a].est.bdp_bytes();
            if self.slots[p].connected() && new > 0.0 && new > cur {
                self.switch_to(ctx, p);
            } else if now >= since + self.cfg.settings.probe_time {
                self.probing = None;
            }
        }
    }

    fn on_tcp(&mut self, ctx: &mut Ctx<'_>, pkt: IpPacket, rx: &RxInfo) -> Option<IpPacket> {
        let Some(h) = peek_header(pkt.payload()) else {
            return Some(pkt);
        };
        let src = pkt.src();
        let now = ctx.now();
        for slot in self.slots.iter_mut().chain(self.unassigned.iter_mut()) {
            if let Some(ep) = slot.ep.as_mut()
                && ep.matches(src, pkt.dst(), &h)
            {
                ep.on_packet(now, &pkt, rx);
                self.drive(ctx);
                return None;
            }
        }
        let listener = self.listener.as_mut()?;
        if h.dst_port != listener.port() {
            return Some(pkt);
        }
        match listener.handle_segment(now, src, pkt.dst(), pkt.payload()) {
            Ok(ListenOutcome::Accepted(conn))
                if self.unassigned.len() + self.slots.len() < 2 * MAX_SLOTS =>
            {
                let mut ep = TcpEndpoint::new(*conn, DEFAULT_TTL, None);
                ep.set_auto_read(false);
                ep.on_syn_seen(h.seq);
                let mut slot = Slot::new(self.cfg.settings.max_record);
                slot.ep = Some(ep);
                self.unassigned.push(slot);
                self.stats.accepted += 1;
            }
            Ok(ListenOutcome::Reset(seg)) => {
                if let Ok(p) =
                    IpPacket::build(seg.src_ip, seg.dst_ip, proto::TCP, DEFAULT_TTL, &seg.bytes)
                {
                    let _ = ctx.send(p);
                }
            }
            _ => {}
        }
        self.drive(ctx);
        None
    }
}

impl Agent for CmhnAgent {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        if self.cfg.start > ctx.now() {
            ctx.set_timer(self.cfg.start, TOKEN_START);
            return;
        }
        self.on_timer(ctx, TOKEN_START);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: IpPacket, rx: &RxInfo) -> Option<IpPacket> {
        if pkt.protocol() != proto::TCP {
            return Some(pkt);
        }
        self.on_tcp(ctx, pkt, rx)
    }

    fn on_notify(&mut self, ctx: &mut Ctx<'_>, n: &Notification) {
        let CmhnSide::Mobile { interfaces, .. } = &self.cfg.side else {
            return;
        };
        let Some(d) = LinkDecision::from_notification(n, self.cfg.triggers) else {
            return;
        };
        let Some(i) = interfaces.iter().position(|x| x.iface == d.iface()) else {
            return;
        };
        self.link_changed(ctx, i, matches!(d, LinkDecision::Up { .. }));
        self.drive(ctx);
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, token: u64) {
        let kind = token & 0xf;
        match kind {
            TOKEN_START => {
                if matches!(self.cfg.side, CmhnSide::Mobile { .. }) {
                    for i in self.cfg.initially_usable.clone() {
                        self.link_changed(ctx, i, true);
                    }
                }
            }
            TOKEN_ESTIMATE => {
                self.estimating = false;
                self.evaluate(ctx);
            }
            TOKEN_KEEPALIVE => {
                let i = ((token >> 4) & 0xff) as usize;
                let generation = token >> 12;
                if let Some(slot) = self.slots.get_mut(i)
                    && slot.frozen_since.is_some()
                    && slot.keep_generation == generation
                {
                    slot.reset_stream(self.cfg.settings.max_record);
                    self.stats.expired += 1;
                }
            }
            _ => {
                self.armed.fired();
                let now = ctx.now();
                for slot in self.slots.iter_mut().chain(self.unassigned.iter_mut()) {
                    if let Some(ep) = slot.ep.as_mut() {
                        ep.on_timer(now);
                    }
                }
            }
        }
        self.drive(ctx);
    }
}
