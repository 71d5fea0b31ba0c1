//! An in-memory network of two endpoints in virtual time, for end-to-end
//! tests of the engine. Each direction of each address pair is a link with
//! its own delay, rate, queue, loss, duplication and reordering; links can
//! be cut. Every packet that crosses is recorded (time, addresses, chunk
//! types) so tests can check what was on the wire.

#![allow(dead_code)]

pub mod script;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use msctp_proto::wire::Packet;
use msctp_proto::{AssocId, Endpoint, EndpointConfig, Event, Time};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

pub fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    A,
    B,
}

/// One direction of an address pair.
#[derive(Debug, Clone)]
pub struct Link {
    pub delay: Duration,
    /// Bits per second; `None`: infinitely fast.
    pub rate_bps: Option<u64>,
    /// Queue limit in packets (drop-tail) when `rate_bps` is set.
    pub queue: usize,
    pub loss: f64,
    pub duplicate: f64,
    /// Probability that a packet is held back by `reorder_delay` extra.
    pub reorder: f64,
    pub reorder_delay: Duration,
    pub up: bool,
    busy_until: Time,
    queued: Vec<Time>,
}

impl Link {
    pub fn new(delay: Duration) -> Self {
        Link {
            delay,
            rate_bps: None,
            queue: 1000,
            loss: 0.0,
            duplicate: 0.0,
            reorder: 0.0,
            reorder_delay: Duration::ZERO,
            up: true,
            busy_until: Time::ZERO,
            queued: Vec::new(),
        }
    }
    pub fn rate(mut self, bps: u64, queue: usize) -> Self {
        self.rate_bps = Some(bps);
        self.queue = queue;
        self
    }
    pub fn loss(mut self, p: f64) -> Self {
        self.loss = p;
        self
    }
}

/// A packet seen on the wire.
#[derive(Debug, Clone)]
pub struct Seen {
    pub time: Time,
    pub from: Side,
    pub src: IpAddr,
    pub dst: IpAddr,
    pub chunks: Vec<u8>,
    pub bytes: Bytes,
    pub dropped: bool,
}

struct InFlight {
    at: Time,
    seq: u64,
    to: Side,
    src: IpAddr,
    dst: IpAddr,
    data: Bytes,
}

impl PartialEq for InFlight {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl Eq for InFlight {}
impl PartialOrd for InFlight {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for InFlight {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(o.at, o.seq))
    }
}

/// What a packet filter decides.
pub enum Verdict {
    Pass,
    Drop,
}

pub type Filter = Box<dyn FnMut(Side, IpAddr, IpAddr, &mut Vec<u8>) -> Verdict>;

pub struct Net {
    pub now: Time,
    pub a: Endpoint,
    pub b: Endpoint,
    pub a_addrs: Vec<IpAddr>,
    pub b_addrs: Vec<IpAddr>,
    links: HashMap<(IpAddr, IpAddr), Link>,
    default_link: Link,
    queue: BinaryHeap<Reverse<InFlight>>,
    seq: u64,
    rng: ChaCha8Rng,
    pub seen: Vec<Seen>,
    /// Packets addressed to neither endpoint (e.g. answers to an
    /// attacker's injected packets), always recorded.
    pub stray: Vec<Seen>,
    pub record: bool,
    pub events_a: Vec<(Time, AssocId, Event)>,
    pub events_b: Vec<(Time, AssocId, Event)>,
    pub filter: Option<Filter>,
    /// Call the application at least this often (scripted actions at exact
    /// times even when the network is quiet).
    pub tick: Option<Duration>,
}

impl Net {
    /// Two endpoints on `port_a` / `port_b` with the given addresses; B
    /// listens. All links default to `default_link`.
    pub fn new(
        cfg_a: EndpointConfig,
        a_addrs: &[IpAddr],
        mut cfg_b: EndpointConfig,
        b_addrs: &[IpAddr],
        default_link: Link,
        seed: u64,
    ) -> Net {
        cfg_b.listen = true;
        let mut s = [0u8; 32];
        s[..8].copy_from_slice(&seed.to_le_bytes());
        let mut a = Endpoint::new(cfg_a, s).unwrap();
        s[8] = 1;
        let mut b = Endpoint::new(cfg_b, s).unwrap();
        a.set_local_addresses(a_addrs);
        b.set_local_addresses(b_addrs);
        Net {
            now: Time::ZERO,
            a,
            b,
            a_addrs: a_addrs.to_vec(),
            b_addrs: b_addrs.to_vec(),
            links: HashMap::new(),
            default_link,
            queue: BinaryHeap::new(),
            seq: 0,
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0x5eed),
            seen: Vec::new(),
            stray: Vec::new(),
            record: true,
            events_a: Vec::new(),
            events_b: Vec::new(),
            filter: None,
            tick: None,
        }
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

    fn owner(&self, addr: IpAddr) -> Option<Side> {
        if self.a_addrs.contains(&addr) {
            Some(Side::A)
        } else if self.b_addrs.contains(&addr) {
            Some(Side::B)
        } else {
            None
        }
    }

    fn route(&mut self, from: Side, src: Option<IpAddr>, dst: IpAddr, mut data: Vec<u8>) {
        let src = src.unwrap_or(match from {
            Side::A => self.a_addrs[0],
            Side::B => self.b_addrs[0],
        });
        let Some(to) = self.owner(dst) else {
            self.stray.push(Seen {
                time: self.now,
                from,
                src,
                dst,
                chunks: chunk_types(&data),
                bytes: Bytes::from(data),
                dropped: true,
            });
            return;
        };
        let mut dropped = false;
        if let Some(f) = self.filter.as_mut()
            && let Verdict::Drop = f(from, src, dst, &mut data)
        {
            dropped = true;
        }
        let now = self.now;
        let d = self.default_link.clone();
        let link = self.links.entry((src, dst)).or_insert(d);
        if !link.up {
            dropped = true;
        }
        let r: f64 = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        if !dropped && r < link.loss {
            dropped = true;
        }
        // Serialisation and a drop-tail queue.
        let mut depart = now;
        if !dropped && let Some(bps) = link.rate_bps {
            link.queued.retain(|t| *t > now);
            if link.queued.len() >= link.queue {
                dropped = true;
            } else {
                let start = link.busy_until.max(now);
                let tx =
                    Duration::from_nanos((data.len() as u64 * 8 * 1_000_000_000).div_ceil(bps));
                link.busy_until = start + tx;
                depart = link.busy_until;
                link.queued.push(depart);
            }
        }
        let mut arrive = depart + link.delay;
        let r2: f64 = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        if r2 < link.reorder {
            arrive += link.reorder_delay;
        }
        let r3: f64 = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let dup = r3 < link.duplicate;
        let bytes = Bytes::from(data);
        if self.record {
            let chunks = chunk_types(&bytes);
            self.seen.push(Seen {
                time: now,
                from,
                src,
                dst,
                chunks,
                bytes: bytes.clone(),
                dropped,
            });
        }
        if dropped {
            return;
        }
        let copies = if dup { 2 } else { 1 };
        for k in 0..copies {
            self.seq += 1;
            self.queue.push(Reverse(InFlight {
                at: arrive + Duration::from_micros(k),
                seq: self.seq,
                to,
                src,
                dst,
                data: bytes.clone(),
            }));
        }
    }

    fn flush(&mut self) {
        loop {
            let mut any = false;
            while let Some(t) = self.a.poll_transmit(self.now) {
                any = true;
                self.route(Side::A, t.source, t.destination, t.payload);
            }
            while let Some(t) = self.b.poll_transmit(self.now) {
                any = true;
                self.route(Side::B, t.source, t.destination, t.payload);
            }
            self.collect_events();
            if !any {
                break;
            }
        }
    }

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

    /// Runs until `until`, calling `app` after every step.
    pub fn run_with(&mut self, until: Time, app: &mut dyn FnMut(&mut Net)) {
        loop {
            app(self);
            self.flush();
            let next_pkt = self.queue.peek().map(|r| r.0.at);
            let tick = self.tick.map(|d| self.now + d);
            let next = [next_pkt, self.a.poll_timeout(), self.b.poll_timeout(), tick]
                .into_iter()
                .flatten()
                .min();
            let Some(next) = next.filter(|t| *t <= until) else {
                self.now = self.now.max(until);
                app(self);
                self.flush();
                return;
            };
            self.now = self.now.max(next);
            while self.queue.peek().is_some_and(|r| r.0.at <= self.now) {
                let Reverse(p) = self.queue.pop().unwrap();
                let _ = match p.to {
                    Side::A => self.a.handle_datagram(self.now, p.src, p.dst, p.data),
                    Side::B => self.b.handle_datagram(self.now, p.src, p.dst, p.data),
                };
            }
            if self.a.poll_timeout().is_some_and(|t| t <= self.now) {
                self.a.handle_timeout(self.now);
            }
            if self.b.poll_timeout().is_some_and(|t| t <= self.now) {
                self.b.handle_timeout(self.now);
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

    /// Connects A to B's addresses and runs until established (or `limit`).
    pub fn connect(&mut self, limit: Duration) -> (AssocId, AssocId) {
        let port = self.b.port();
        let b_addrs = self.b_addrs.clone();
        let id_a = self.a.connect(self.now, &b_addrs, port).unwrap();
        let end = self.now + limit;
        let mut id_b = None;
        self.run_with(end, &mut |n| {
            if id_b.is_none() {
                id_b = n
                    .events_b
                    .iter()
                    .find(|(_, _, e)| *e == Event::Connected)
                    .map(|(_, id, _)| *id);
            }
        });
        let id_b = id_b.or_else(|| {
            self.events_b
                .iter()
                .find(|(_, _, e)| *e == Event::Connected)
                .map(|(_, id, _)| *id)
        });
        assert!(
            self.events_a
                .iter()
                .any(|(_, id, e)| *id == id_a && *e == Event::Connected),
            "A did not connect: {:?}",
            self.events_a
        );
        (id_a, id_b.expect("B did not connect"))
    }

    pub fn events(&self, side: Side) -> &[(Time, AssocId, Event)] {
        match side {
            Side::A => &self.events_a,
            Side::B => &self.events_b,
        }
    }
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

/// A deterministic payload: byte i of the stream is `(i * 7 + i / 251) as u8`.
pub fn pattern(offset: usize, len: usize) -> Vec<u8> {
    (offset..offset + len)
        .map(|i| (i.wrapping_mul(7) + i / 251) as u8)
        .collect()
}

/// Moves `total` bytes from association `a` (side A) to `b` (side B) in
/// messages of `msg` bytes, as fast as the send buffer takes them, then
/// aborts so that no timer is left; returns the bytes B received. For the
/// throughput benchmark and the profiling example.
pub fn bulk_transfer(n: &mut Net, a: AssocId, b: AssocId, total: usize, msg: usize) -> usize {
    let payload = Bytes::from(vec![0x5au8; msg]);
    let (mut sent, mut got) = (0usize, 0usize);
    let end = n.now + Duration::from_secs(3600);
    n.run_with(end, &mut |n| {
        if got >= total {
            return;
        }
        let x = n.a.association_mut(a).unwrap();
        while sent < total && x.send_capacity() >= msg {
            let k = (total - sent).min(msg);
            x.send(0, 0, payload.slice(..k), false).unwrap();
            sent += k;
        }
        let y = n.b.association_mut(b).unwrap();
        while let Some(m) = y.recv() {
            got += m.data.len();
        }
        if got >= total {
            // Stop the run: no more timers once both sides are gone.
            n.a.association_mut(a).unwrap().abort(None);
        }
    });
    got
}
