//! Two endpoints joined by a clean network in virtual time: every packet
//! takes `delay` from source to destination, nothing is lost unless a
//! direction is cut. Small and `Clone`, so a target sets up an association
//! once and starts every input from a copy of it.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use msctp_proto::{AssocId, Endpoint, EndpointConfig, Event, Time, Transmit};

use crate::wire_out::{check_decodes, check_sent};

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

/// A packet on the wire.
#[derive(Debug, Clone)]
pub struct Seen {
    pub time: Time,
    pub from: Side,
    pub src: IpAddr,
    pub dst: IpAddr,
    pub bytes: Bytes,
}

#[derive(Debug, Clone)]
struct InFlight {
    to: Side,
    src: IpAddr,
    dst: IpAddr,
    data: Bytes,
}

#[derive(Debug, Clone)]
pub struct Pair {
    pub now: Time,
    a: Endpoint,
    b: Endpoint,
    pub a_addrs: Vec<IpAddr>,
    pub b_addrs: Vec<IpAddr>,
    pub delay: Duration,
    /// Directions (source, destination) that drop everything.
    cut: Vec<(IpAddr, IpAddr)>,
    queue: BTreeMap<(Time, u64), InFlight>,
    seq: u64,
    /// Every packet sent, when recording.
    pub seen: Option<Vec<Seen>>,
    /// Events of each side not yet taken by the caller.
    pub events: Vec<(Side, AssocId, Event)>,
    /// Check that every packet sent decodes (costs a parse per packet).
    pub check_output: bool,
    /// The caller has had the endpoints in hand (API calls): they may
    /// have output or events the next [`Pair::step`] must collect first.
    dirty: bool,
}

/// Events ([`Pair::step`]) and packets sent, over all pairs of the
/// process: what an input costs (`replay --time` prints them per input).
pub static STEPS: AtomicU64 = AtomicU64::new(0);
pub static PACKETS: AtomicU64 = AtomicU64::new(0);

/// A fuzzed wait: from 1 ms to 65 s, each of the 16 octaves (1-2 ms,
/// ..., 33-65 s) as likely as any other, so that short waits (a delayed SACK, one
/// RTO) are as common as the long ones that reach heartbeats and the
/// retransmission limits.
pub fn wait_duration(x: u16) -> Duration {
    let octave = u32::from(x >> 12);
    let frac = u64::from(x & 0xfff);
    Duration::from_micros((1000 << octave) * (4096 + frac) / 4096)
}

pub fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

impl Pair {
    /// Endpoints A and B with their addresses; B listens.
    pub fn new(
        cfg_a: EndpointConfig,
        a_addrs: &[IpAddr],
        mut cfg_b: EndpointConfig,
        b_addrs: &[IpAddr],
        delay: Duration,
        seed: u8,
    ) -> Pair {
        cfg_b.listen = true;
        let mut a = Endpoint::new(cfg_a, [seed; 32]).unwrap();
        let mut b = Endpoint::new(cfg_b, [seed.wrapping_add(1); 32]).unwrap();
        a.set_local_addresses(a_addrs);
        b.set_local_addresses(b_addrs);
        Pair {
            now: Time::ZERO,
            a,
            b,
            a_addrs: a_addrs.to_vec(),
            b_addrs: b_addrs.to_vec(),
            delay,
            cut: Vec::new(),
            queue: BTreeMap::new(),
            seq: 0,
            seen: None,
            events: Vec::new(),
            check_output: true,
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

    /// Cuts (or restores) both directions between `x` and `y`.
    pub fn set_up(&mut self, x: IpAddr, y: IpAddr, up: bool) {
        self.cut.retain(|c| *c != (x, y) && *c != (y, x));
        if !up {
            self.cut.push((x, y));
            self.cut.push((y, x));
        }
    }

    pub fn all_up(&mut self) {
        self.cut.clear();
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

    fn route(&mut self, from: Side, t: Transmit) {
        PACKETS.fetch_add(1, Ordering::Relaxed);
        let src = t.source.unwrap_or(self.addrs(from)[0]);
        let dst = t.destination;
        let data = Bytes::from(t.payload);
        let to = self.owner(dst).filter(|_| !self.cut.contains(&(src, dst)));
        if self.check_output {
            // The receiver checks the checksum of what it gets.
            match to {
                Some(_) => check_decodes(&data),
                None => check_sent(&data),
            };
        }
        if let Some(seen) = self.seen.as_mut() {
            seen.push(Seen {
                time: self.now,
                from,
                src,
                dst,
                bytes: data.clone(),
            });
        }
        let Some(to) = to else {
            return;
        };
        self.seq += 1;
        self.queue.insert(
            (self.now + self.delay, self.seq),
            InFlight { to, src, dst, data },
        );
    }

    /// Sends whatever both endpoints have to send and collects events.
    ///
    /// One round suffices: what one side sends reaches the other only
    /// through the queue (after `delay`), and events create no output.
    pub fn flush(&mut self) {
        let mut sent = 0;
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
                sent += 1;
                assert!(sent < 100_000, "endless output");
                self.route(side, t);
            }
        }
        self.dirty = false;
        // Events an association queued without handing them to its
        // endpoint (API calls, a transmission attempt that sent nothing).
        self.a.flush_events();
        self.b.flush_events();
        while let Some((id, e)) = self.a.poll_event() {
            self.events.push((Side::A, id, e));
        }
        while let Some((id, e)) = self.b.poll_event() {
            self.events.push((Side::B, id, e));
        }
    }

    /// Hands a datagram to one side now, as if it had arrived.
    pub fn inject(&mut self, to: Side, src: IpAddr, dst: IpAddr, data: Bytes) {
        let now = self.now;
        self.endpoint(to).handle_datagram(now, src, dst, data);
        self.flush();
    }

    /// Delivers a packet one side sent to the other; the engine's own
    /// packets always pass the receiver's checksum check (so `route`
    /// need not compute every checksum a second time).
    fn deliver(&mut self, p: InFlight) {
        let now = self.now;
        let ep = match p.to {
            Side::A => &mut self.a,
            Side::B => &mut self.b,
        };
        let bad = ep.stats().bad_checksum;
        ep.handle_datagram(now, p.src, p.dst, p.data);
        assert_eq!(
            ep.stats().bad_checksum,
            bad,
            "the engine sent a bad checksum"
        );
    }

    /// The next moment something happens (a packet arrives or a timer
    /// fires), if any.
    pub fn next_event_time(&self) -> Option<Time> {
        let (pkt, [a, b]) = self.next_events();
        [pkt, a, b].into_iter().flatten().min()
    }

    /// The first packet arrival and the timer deadline of A and of B.
    fn next_events(&self) -> (Option<Time>, [Option<Time>; 2]) {
        let pkt = self.queue.keys().next().map(|k| k.0);
        (pkt, [self.a.poll_timeout(), self.b.poll_timeout()])
    }

    /// Advances to the next event if it is not later than `until`;
    /// returns false (time set to `until`) when there is none.
    pub fn step(&mut self, until: Time) -> bool {
        STEPS.fetch_add(1, Ordering::Relaxed);
        if self.dirty {
            self.flush();
        }
        let (pkt, timers) = self.next_events();
        let Some(next) = [pkt, timers[0], timers[1]]
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
        self.flush();
        true
    }

    /// Runs until `until`, at most `max_steps` events; returns false if
    /// the step budget ran out first.
    pub fn run_until(&mut self, until: Time, max_steps: usize) -> bool {
        for _ in 0..max_steps {
            if !self.step(until) {
                return true;
            }
        }
        false
    }

    pub fn run_for(&mut self, d: Duration, max_steps: usize) -> bool {
        let t = self.now + d;
        self.run_until(t, max_steps)
    }

    /// A connects to B's addresses; runs until both report `Connected`.
    pub fn connect(&mut self) -> Option<(AssocId, AssocId)> {
        let port = self.b.port();
        let b_addrs = self.b_addrs.clone();
        let now = self.now;
        let id_a = self.endpoint(Side::A).connect(now, &b_addrs, port).ok()?;
        let deadline = self.now + Duration::from_secs(5);
        let mut found = (false, None);
        while !(found.0 && found.1.is_some()) {
            if !self.step(deadline) {
                break;
            }
            for (side, id, e) in &self.events {
                if *e == Event::Connected {
                    match side {
                        Side::A if *id == id_a => found.0 = true,
                        Side::B => found.1 = Some(*id),
                        _ => {}
                    }
                }
            }
        }
        match found {
            (true, Some(id_b)) => Some((id_a, id_b)),
            _ => None,
        }
    }
}
