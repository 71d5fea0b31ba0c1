//! Two endpoints joined by an in-memory network in virtual time: the one
//! harness of the end-to-end tests (`crates/proto/tests`), the benches,
//! the fuzz targets (`fuzz/`) and the driver's unit tests, behind the
//! `testing` feature (as quinn-proto's test `Pair`).
//!
//! Each direction of each address pair is a [`Link`] with its own delay,
//! rate, queue, loss, duplication and reordering; links can be cut. A
//! [`PacketFilter`] may drop or rewrite packets before their link. What
//! crosses is recorded ([`Pair::seen`], [`Pair::stray`] for packets to
//! addresses neither endpoint owns) while [`Pair::record`] is set, and
//! each side's events are kept with their time ([`Pair::events`]).
//!
//! Two ways to drive it, over one mechanism (advance to the next packet
//! arrival, timer or tick):
//! - [`Pair::run_with`]: until a time, with an application callback
//!   before each flush (scripted tests);
//! - [`Pair::step`]: one event at a time under a step budget (fuzz
//!   targets, which bound the work of an input).
//!
//! Deterministic: the same seeds give the same run. Packets due at the
//! same instant arrive in the order they were sent.

mod link;

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

pub use link::Link;

use crate::wire::Packet;
use crate::{AssocId, Endpoint, EndpointConfig, Event, Time};

/// An address from its text (panics on a typo: tests only).
pub fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// One of the two endpoints: A connects, B listens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    A,
    B,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }
}

/// A packet seen on the wire.
#[derive(Debug, Clone)]
pub struct Seen {
    pub time: Time,
    pub from: Side,
    pub src: IpAddr,
    pub dst: IpAddr,
    /// The chunk types, in order ([`chunk_types`]).
    pub chunks: Vec<u8>,
    pub bytes: Bytes,
    /// Lost on the way (filter, link down, loss, full queue) or addressed
    /// to neither endpoint.
    pub dropped: bool,
    /// The packet's number among those the pair carried (the order sent).
    pub number: u64,
}

impl Seen {
    fn new(
        time: Time,
        from: Side,
        (src, dst): (IpAddr, IpAddr),
        bytes: Bytes,
        dropped: bool,
        number: u64,
    ) -> Seen {
        let chunks = chunk_types(&bytes);
        Seen {
            time,
            from,
            src,
            dst,
            chunks,
            bytes,
            dropped,
            number,
        }
    }
}

/// What a packet filter decides.
pub enum Verdict {
    Pass,
    Drop,
}

/// Sees every packet addressed to an endpoint before its link, may
/// rewrite it or drop it.
pub trait PacketFilter {
    fn filter(&mut self, from: Side, src: IpAddr, dst: IpAddr, data: &mut Vec<u8>) -> Verdict;
}

/// A filter written as a closure (tests that drop or rewrite packets).
pub type Filter = Box<dyn FnMut(Side, IpAddr, IpAddr, &mut Vec<u8>) -> Verdict>;

impl PacketFilter for Filter {
    fn filter(&mut self, from: Side, src: IpAddr, dst: IpAddr, data: &mut Vec<u8>) -> Verdict {
        self(from, src, dst, data)
    }
}

/// No filter: a [`Pair`] that is `Clone`, `Send` and `Sync` (a fuzz
/// target sets an association up once and starts every input from a copy).
#[derive(Debug, Clone, Copy)]
pub enum NoFilter {}

impl PacketFilter for NoFilter {
    fn filter(&mut self, _: Side, _: IpAddr, _: IpAddr, _: &mut Vec<u8>) -> Verdict {
        match *self {}
    }
}

/// A check of every packet an endpoint sends: its bytes and whether it
/// reaches the other endpoint.
pub type OutputCheck = fn(&Bytes, bool);

#[derive(Debug, Clone)]
struct InFlight {
    to: Side,
    src: IpAddr,
    dst: IpAddr,
    data: Bytes,
}

/// Steps ([`Pair::step`], [`Pair::run_with`] rounds) and packets sent,
/// over all pairs of the process: what a fuzz input costs.
pub static STEPS: AtomicU64 = AtomicU64::new(0);
pub static PACKETS: AtomicU64 = AtomicU64::new(0);

/// Two endpoints and the network between them.
#[derive(Clone)]
pub struct Pair<F = NoFilter> {
    pub now: Time,
    pub a: Endpoint,
    pub b: Endpoint,
    pub a_addrs: Vec<IpAddr>,
    pub b_addrs: Vec<IpAddr>,
    links: HashMap<(IpAddr, IpAddr), Link>,
    default_link: Link,
    /// Packets in flight by (arrival, order sent).
    queue: BTreeMap<(Time, u64), InFlight>,
    seq: u64,
    /// Packets the endpoints sent so far.
    sent: u64,
    rng: ChaCha8Rng,
    /// Every packet addressed to an endpoint, while `record`.
    pub seen: Vec<Seen>,
    /// Packets addressed to neither endpoint (e.g. answers to an
    /// attacker's injected packets), while `record`.
    pub stray: Vec<Seen>,
    pub record: bool,
    pub events_a: Vec<(Time, AssocId, Event)>,
    pub events_b: Vec<(Time, AssocId, Event)>,
    pub filter: Option<F>,
    /// Call the application at least this often (scripted actions at exact
    /// times even when the network is quiet).
    pub tick: Option<Duration>,
    /// Checks every packet sent; with a check, a packet an endpoint
    /// receives from the other must pass its checksum.
    pub check_output: Option<OutputCheck>,
    /// The caller has had an endpoint in hand ([`Pair::endpoint`]): it
    /// may have output or events the next [`Pair::step`] collects first.
    dirty: bool,
}

impl<F> std::fmt::Debug for Pair<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pair")
            .field("now", &self.now)
            .field("a_addrs", &self.a_addrs)
            .field("b_addrs", &self.b_addrs)
            .field("in_flight", &self.queue.len())
            .field("sent", &self.sent)
            .field("events_a", &self.events_a.len())
            .field("events_b", &self.events_b.len())
            .field("filter", &self.filter.is_some())
            .finish_non_exhaustive()
    }
}

impl<F: PacketFilter> Pair<F> {
    /// Two endpoints with the given addresses, B listening; every link is
    /// `default_link`. The endpoints' secrets and the network's random
    /// stream derive from `seed`.
    pub fn new(
        cfg_a: EndpointConfig,
        a_addrs: &[IpAddr],
        cfg_b: EndpointConfig,
        b_addrs: &[IpAddr],
        default_link: Link,
        seed: u64,
    ) -> Self {
        let mut s = [0u8; 32];
        s[..8].copy_from_slice(&seed.to_le_bytes());
        let mut s_b = s;
        s_b[8] = 1;
        let (a, b) = ((cfg_a, a_addrs, s), (cfg_b, b_addrs, s_b));
        Self::with_secrets(a, b, default_link, seed ^ 0x5eed)
    }

    /// As [`Pair::new`], each endpoint with its own secret key (cookie
    /// MAC, RFC 9260 section 5.1.3) and the network with its own seed.
    pub fn with_secrets(
        (cfg_a, a_addrs, secret_a): (EndpointConfig, &[IpAddr], [u8; 32]),
        (mut cfg_b, b_addrs, secret_b): (EndpointConfig, &[IpAddr], [u8; 32]),
        default_link: Link,
        net_seed: u64,
    ) -> Self {
        cfg_b.listen = true;
        let mut a = Endpoint::new(cfg_a, secret_a).unwrap();
        let mut b = Endpoint::new(cfg_b, secret_b).unwrap();
        a.set_local_addresses(a_addrs);
        b.set_local_addresses(b_addrs);
        Pair {
            now: Time::ZERO,
            a,
            b,
            a_addrs: a_addrs.to_vec(),
            b_addrs: b_addrs.to_vec(),
            links: HashMap::new(),
            default_link,
            queue: BTreeMap::new(),
            seq: 0,
            sent: 0,
            rng: ChaCha8Rng::seed_from_u64(net_seed),
            seen: Vec::new(),
            stray: Vec::new(),
            record: true,
            events_a: Vec::new(),
            events_b: Vec::new(),
            filter: None,
            tick: None,
            check_output: None,
            dirty: true,
        }
    }

    /// The endpoint of `side`, for API calls (the next step collects what
    /// they produce).
    pub fn endpoint(&mut self, side: Side) -> &mut Endpoint {
        self.dirty = true;
        match side {
            Side::A => &mut self.a,
            Side::B => &mut self.b,
        }
    }

    pub fn ep(&self, side: Side) -> &Endpoint {
        match side {
            Side::A => &self.a,
            Side::B => &self.b,
        }
    }

    pub fn addrs(&self, side: Side) -> &[IpAddr] {
        match side {
            Side::A => &self.a_addrs,
            Side::B => &self.b_addrs,
        }
    }

    pub fn events(&self, side: Side) -> &[(Time, AssocId, Event)] {
        match side {
            Side::A => &self.events_a,
            Side::B => &self.events_b,
        }
    }

    /// Forgets the events of both sides.
    pub fn clear_events(&mut self) {
        self.events_a.clear();
        self.events_b.clear();
    }

    /// Stops recording; returns what was recorded (sent and stray, in the
    /// order sent).
    pub fn take_seen(&mut self) -> Vec<Seen> {
        self.record = false;
        let mut all = std::mem::take(&mut self.seen);
        all.append(&mut self.stray);
        all.sort_by_key(|s| s.number);
        all
    }

    /// Sets the link from `src` to `dst` (one direction).
    pub fn set_link(&mut self, src: IpAddr, dst: IpAddr, link: Link) {
        self.links.insert((src, dst), link);
    }

    /// Sets both directions between `x` and `y`.
    pub fn set_path(&mut self, x: IpAddr, y: IpAddr, link: Link) {
        self.links.insert((x, y), link.clone());
        self.links.insert((y, x), link);
    }

    pub fn link_mut(&mut self, src: IpAddr, dst: IpAddr) -> &mut Link {
        let d = self.default_link.clone();
        self.links.entry((src, dst)).or_insert(d)
    }

    /// Cuts or restores both directions between `x` and `y`.
    pub fn set_up(&mut self, x: IpAddr, y: IpAddr, up: bool) {
        self.link_mut(x, y).up = up;
        self.link_mut(y, x).up = up;
    }

    /// Restores every link.
    pub fn all_up(&mut self) {
        self.links.values_mut().for_each(|l| l.up = true);
    }

    fn owner(&self, addr: IpAddr) -> Option<Side> {
        if self.a_addrs.contains(&addr) {
            Some(Side::A)
        } else if self.b_addrs.contains(&addr) {
            Some(Side::B)
        } else {
            None
        }
    }

    /// A uniform draw in [0, 1) from the network's stream.
    fn draw(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Puts a packet `from` sent on its way: the filter, then the link
    /// (up, loss, queue and serialisation, delay, reordering,
    /// duplication). Three draws per packet to an endpoint, whatever the
    /// link, so that one link's settings do not move another's losses.
    fn route(&mut self, from: Side, src: Option<IpAddr>, dst: IpAddr, mut data: Vec<u8>) {
        PACKETS.fetch_add(1, Ordering::Relaxed);
        self.sent += 1;
        let number = self.sent;
        let src = src.unwrap_or(self.addrs(from)[0]);
        let now = self.now;
        let Some(to) = self.owner(dst) else {
            let bytes = Bytes::from(data);
            if let Some(check) = self.check_output {
                check(&bytes, false);
            }
            if self.record {
                let s = Seen::new(now, from, (src, dst), bytes, true, number);
                self.stray.push(s);
            }
            return;
        };
        let mut dropped = false;
        if let Some(f) = self.filter.as_mut()
            && let Verdict::Drop = f.filter(from, src, dst, &mut data)
        {
            dropped = true;
        }
        let link = self.link_mut(src, dst);
        dropped |= !link.up;
        dropped |= link.mtu.is_some_and(|m| data.len() > m);
        let (loss, delay) = (link.loss, link.delay);
        let r = self.draw();
        dropped |= r < loss;
        let link = self.link_mut(src, dst);
        let mut depart = now;
        if !dropped {
            match link.depart(now, data.len()) {
                Some(t) => depart = t,
                None => dropped = true,
            }
        }
        let (reorder, reorder_delay, duplicate) =
            (link.reorder, link.reorder_delay, link.duplicate);
        let mut arrive = depart + delay;
        if self.draw() < reorder {
            arrive += reorder_delay;
        }
        let dup = self.draw() < duplicate;
        let bytes = Bytes::from(data);
        if let Some(check) = self.check_output {
            check(&bytes, !dropped);
        }
        if self.record {
            let s = Seen::new(now, from, (src, dst), bytes.clone(), dropped, number);
            self.seen.push(s);
        }
        if dropped {
            return;
        }
        for k in 0..if dup { 2 } else { 1 } {
            self.seq += 1;
            let p = InFlight {
                to,
                src,
                dst,
                data: bytes.clone(),
            };
            self.queue
                .insert((arrive + Duration::from_micros(k), self.seq), p);
        }
    }

    /// Sends whatever both endpoints have to send and collects their
    /// events, until neither has more.
    pub fn flush(&mut self) {
        let mut sent = 0;
        loop {
            let mut any = false;
            for side in [Side::A, Side::B] {
                loop {
                    let now = self.now;
                    let ep = match side {
                        Side::A => &mut self.a,
                        Side::B => &mut self.b,
                    };
                    let Some(t) = ep.poll_transmit(now) else {
                        break;
                    };
                    any = true;
                    sent += 1;
                    assert!(sent < 100_000, "endless output");
                    self.route(side, t.source, t.destination, t.payload);
                }
            }
            self.collect_events();
            if !any {
                break;
            }
        }
        self.dirty = false;
    }

    /// Events an association queued without handing them to its endpoint
    /// (API calls, a transmission attempt that sent nothing) and the
    /// endpoints' events, with the time.
    fn collect_events(&mut self) {
        self.a.flush_events();
        self.b.flush_events();
        while let Some((id, e)) = self.a.poll_event() {
            self.events_a.push((self.now, id, e));
        }
        while let Some((id, e)) = self.b.poll_event() {
            self.events_b.push((self.now, id, e));
        }
    }

    /// Hands a datagram to one side now, as if it had arrived.
    pub fn inject(&mut self, to: Side, src: IpAddr, dst: IpAddr, data: Bytes) {
        let now = self.now;
        self.endpoint(to).handle_datagram(now, src, dst, data);
        self.flush();
    }

    /// The first packet arrival, the timer deadlines of A and of B, and
    /// the next tick.
    fn next_events(&self) -> (Option<Time>, [Option<Time>; 2], Option<Time>) {
        let pkt = self.queue.keys().next().map(|k| k.0);
        let tick = self.tick.map(|d| self.now + d);
        (pkt, [self.a.poll_timeout(), self.b.poll_timeout()], tick)
    }

    /// The next moment something happens (a packet arrives, a timer
    /// fires, a tick), if any.
    pub fn next_event_time(&self) -> Option<Time> {
        let (pkt, [a, b], tick) = self.next_events();
        [pkt, a, b, tick].into_iter().flatten().min()
    }

    /// Moves time to the next event if it is not later than `until`:
    /// delivers the packets due, fires the timers due (no flush). Returns
    /// false, time set to `until`, when there is none.
    fn advance(&mut self, until: Time) -> bool {
        STEPS.fetch_add(1, Ordering::Relaxed);
        let (pkt, timers, tick) = self.next_events();
        let Some(next) = [pkt, timers[0], timers[1], tick]
            .into_iter()
            .flatten()
            .min()
            .filter(|t| *t <= until)
        else {
            self.now = self.now.max(until);
            return false;
        };
        self.now = self.now.max(next);
        let now = self.now;
        let mut delivered = [false; 2];
        while let Some(entry) = self.queue.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let p = entry.remove();
            delivered[p.to as usize] = true;
            self.deliver(p);
        }
        for (k, ep) in [&mut self.a, &mut self.b].into_iter().enumerate() {
            // A packet may have moved the side's timers; otherwise the
            // deadline read above still holds.
            let due = if delivered[k] {
                ep.poll_timeout()
            } else {
                timers[k]
            };
            if due.is_some_and(|t| t <= now) {
                ep.handle_timeout(now);
            }
        }
        true
    }

    /// Delivers a packet one side sent to the other. With an output check,
    /// the engine's own packets must pass the receiver's checksum check.
    fn deliver(&mut self, p: InFlight) {
        let (now, check) = (self.now, self.check_output.is_some());
        let ep = match p.to {
            Side::A => &mut self.a,
            Side::B => &mut self.b,
        };
        let bad = ep.stats().bad_checksum;
        ep.handle_datagram(now, p.src, p.dst, p.data);
        if check {
            let after = ep.stats().bad_checksum;
            assert_eq!(after, bad, "the engine sent a bad checksum");
        }
    }

    /// Advances to the next event if it is not later than `until`, then
    /// sends what it caused; returns false (time set to `until`) when
    /// there is none.
    pub fn step(&mut self, until: Time) -> bool {
        if self.dirty {
            self.flush();
        }
        let more = self.advance(until);
        if more {
            self.flush();
        }
        more
    }

    /// Steps until `until`, at most `max_steps` events; returns false if
    /// the step budget ran out first.
    pub fn steps_until(&mut self, until: Time, max_steps: usize) -> bool {
        (0..max_steps).any(|_| !self.step(until))
    }

    /// [`Pair::steps_until`] `d` from now.
    pub fn steps_for(&mut self, d: Duration, max_steps: usize) -> bool {
        let t = self.now + d;
        self.steps_until(t, max_steps)
    }

    /// Runs until `until`, calling `app` before each flush (after every
    /// event, and once at `until`).
    pub fn run_with(&mut self, until: Time, app: &mut dyn FnMut(&mut Self)) {
        loop {
            app(self);
            self.flush();
            if !self.advance(until) {
                app(self);
                self.flush();
                return;
            }
        }
    }

    pub fn run(&mut self, until: Time) {
        self.run_with(until, &mut |_| {});
    }

    pub fn run_for(&mut self, d: Duration) {
        let t = self.now + d;
        self.run(t);
    }

    /// Connects A to B's addresses and runs for `limit`; panics unless
    /// both sides are connected by then.
    pub fn connect(&mut self, limit: Duration) -> (AssocId, AssocId) {
        let port = self.b.port();
        let b_addrs = self.b_addrs.clone();
        let id_a = self.a.connect(self.now, &b_addrs, port).unwrap();
        let end = self.now + limit;
        let mut id_b = None;
        self.run_with(end, &mut |n| {
            if id_b.is_none() {
                id_b = first_connected(&n.events_b);
            }
        });
        let id_b = id_b.or_else(|| first_connected(&self.events_b));
        assert!(
            self.events_a
                .iter()
                .any(|(_, id, e)| *id == id_a && *e == Event::Connected),
            "A did not connect: {:?}",
            self.events_a
        );
        (id_a, id_b.expect("B did not connect"))
    }

    /// Connects A to B's addresses and steps until both report
    /// `Connected` (B: the latest association to do so), at most 5 s.
    pub fn establish(&mut self) -> Option<(AssocId, AssocId)> {
        let (port, b_addrs, now) = (self.b.port(), self.b_addrs.clone(), self.now);
        let id_a = self.endpoint(Side::A).connect(now, &b_addrs, port).ok()?;
        let deadline = self.now + Duration::from_secs(5);
        loop {
            if !self.step(deadline) {
                return None;
            }
            let a_up =
                (self.events_a.iter()).any(|(_, id, e)| *id == id_a && *e == Event::Connected);
            let b = self
                .events_b
                .iter()
                .rev()
                .find(|(_, _, e)| *e == Event::Connected);
            if let (true, Some((_, id_b, _))) = (a_up, b) {
                return Some((id_a, *id_b));
            }
        }
    }
}

/// The first association of `events` that reported `Connected`.
fn first_connected(events: &[(Time, AssocId, Event)]) -> Option<AssocId> {
    events
        .iter()
        .find(|(_, _, e)| *e == Event::Connected)
        .map(|(_, id, _)| *id)
}

/// The chunk types of a packet, in order.
pub fn chunk_types(data: &[u8]) -> Vec<u8> {
    Packet::new_checked(data)
        .map(|p| {
            p.chunks()
                .filter_map(|c| c.ok())
                .map(|(_, v)| v.chunk_type())
                .collect()
        })
        .unwrap_or_default()
}
