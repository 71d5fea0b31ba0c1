//! Test harness: two TCP endpoints joined by an ideal simulated link in each
//! direction (rate, propagation delay, drop-tail queue, scripted or random
//! losses), driven in virtual time. A bulk sender on the client writes a
//! given byte string; the server reads everything as it arrives.
//!
//! Link model (as ns-3's point-to-point device with a drop-tail queue): a
//! packet occupies the transmitter for (TCP bytes + overhead) * 8 / rate,
//! then arrives after the propagation delay; a packet that finds `queue`
//! packets already waiting (the one being transmitted not counted) is
//! dropped.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use msctp_tcp::wire;
use msctp_tcp::{ListenOutcome, Segment, TcpConfig, TcpConnection, TcpEvent, TcpListener, Time};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub const CLIENT_IP: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
pub const SERVER_IP: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 1, 1));
pub const SERVER_PORT: u16 = 5000;

#[derive(Debug, Clone)]
pub struct LinkConfig {
    pub rate_bps: u64,
    pub delay: Duration,
    pub queue: usize,
    /// Bytes added to each TCP segment on the wire (IPv4 20 + PPP 2).
    pub overhead: usize,
    /// Probability of losing each packet (applied on arrival).
    pub loss: f64,
    /// Data packets (payload > 0) to drop, numbered from 1 in the order the
    /// link carries them (retransmissions count).
    pub drop_data: Vec<u64>,
    /// Drop every packet sent at or after this time (a broken path).
    pub blackhole_from: Option<Time>,
}

impl LinkConfig {
    pub fn new(rate_bps: u64, delay: Duration, queue: usize) -> Self {
        LinkConfig {
            rate_bps,
            delay,
            queue,
            overhead: 22,
            loss: 0.0,
            drop_data: Vec::new(),
            blackhole_from: None,
        }
    }
}

#[derive(Debug)]
struct InFlight {
    tx_start: Time,
    arrival: Time,
    seg: Segment,
}

#[derive(Debug)]
pub struct Link {
    pub config: LinkConfig,
    pending: VecDeque<InFlight>,
    busy_until: Time,
    data_count: u64,
    rng: ChaCha8Rng,
    pub drops: u64,
    pub carried: u64,
}

impl Link {
    pub fn new(config: LinkConfig, seed: u64) -> Self {
        Link {
            config,
            pending: VecDeque::new(),
            busy_until: Time::ZERO,
            data_count: 0,
            rng: ChaCha8Rng::seed_from_u64(seed),
            drops: 0,
            carried: 0,
        }
    }

    fn send(&mut self, now: Time, seg: Segment) {
        if self.config.blackhole_from.is_some_and(|t| now >= t) {
            self.drops += 1;
            return;
        }
        let waiting = self.pending.iter().filter(|p| p.tx_start > now).count();
        if waiting >= self.config.queue {
            self.drops += 1;
            return;
        }
        if payload_len(&seg) > 0 {
            self.data_count += 1;
            if self.config.drop_data.contains(&self.data_count) {
                self.drops += 1;
                return;
            }
        }
        let bits = ((seg.bytes.len() + self.config.overhead) as u64) * 8;
        let tx = Duration::from_nanos(bits * 1_000_000_000 / self.config.rate_bps);
        let tx_start = self.busy_until.max(now);
        self.busy_until = tx_start + tx;
        let arrival = self.busy_until + self.config.delay;
        self.pending.push_back(InFlight {
            tx_start,
            arrival,
            seg,
        });
    }

    fn next_arrival(&self) -> Option<Time> {
        self.pending.front().map(|p| p.arrival)
    }

    fn take_arrival(&mut self, now: Time) -> Option<Segment> {
        if self.pending.front().is_some_and(|p| p.arrival <= now) {
            let p = self.pending.pop_front()?;
            if self.config.loss > 0.0 && self.rng.gen_bool(self.config.loss) {
                self.drops += 1;
                return None;
            }
            self.carried += 1;
            return Some(p.seg);
        }
        None
    }
}

pub fn payload_len(seg: &Segment) -> usize {
    match wire::parse(seg.src_ip, seg.dst_ip, &seg.bytes) {
        Ok((_, p)) => p.len(),
        Err(_) => 0,
    }
}

/// One line of the packet trace.
#[derive(Debug, Clone)]
pub struct TraceEntry {
    pub time: Time,
    /// true: client to server.
    pub forward: bool,
    /// true: sent by an endpoint; false: delivered to one.
    pub sent: bool,
    pub header: wire::SegmentHeader,
    pub len: usize,
}

pub struct Harness {
    pub now: Time,
    pub client: TcpConnection,
    pub listener: TcpListener,
    pub server: Option<TcpConnection>,
    /// Hops from client to server (a chain of links).
    pub forward: Vec<Link>,
    /// Hops from server to client.
    pub reverse: Vec<Link>,
    pub to_send: Vec<u8>,
    pub written: usize,
    pub received: Vec<u8>,
    pub trace: Vec<TraceEntry>,
    pub keep_trace: bool,
    pub client_events: Vec<(Time, TcpEvent)>,
    pub server_events: Vec<(Time, TcpEvent)>,
    /// Close the client once everything is written.
    pub close_when_done: bool,
}

impl Harness {
    pub fn new(
        client_cfg: TcpConfig,
        server_cfg: TcpConfig,
        forward: LinkConfig,
        reverse: LinkConfig,
        seed: u64,
    ) -> Self {
        Self::with_hops(client_cfg, server_cfg, vec![forward], vec![reverse], seed)
    }

    /// A chain of hops each way; `forward[0]` leaves the client,
    /// `reverse[0]` leaves the server.
    pub fn with_hops(
        client_cfg: TcpConfig,
        server_cfg: TcpConfig,
        forward: Vec<LinkConfig>,
        reverse: Vec<LinkConfig>,
        seed: u64,
    ) -> Self {
        let now = Time::ZERO;
        let client = TcpConnection::connect(
            client_cfg,
            now,
            SocketAddr::new(CLIENT_IP, 40000),
            SocketAddr::new(SERVER_IP, SERVER_PORT),
            0x1234_5678,
        )
        .expect("valid config");
        let listener = TcpListener::new(server_cfg, SERVER_PORT, seed).expect("valid config");
        Harness {
            now,
            client,
            listener,
            server: None,
            forward: forward
                .into_iter()
                .enumerate()
                .map(|(i, c)| Link::new(c, seed.wrapping_add(1 + 2 * i as u64)))
                .collect(),
            reverse: reverse
                .into_iter()
                .enumerate()
                .map(|(i, c)| Link::new(c, seed.wrapping_add(2 + 2 * i as u64)))
                .collect(),
            to_send: Vec::new(),
            written: 0,
            received: Vec::new(),
            trace: Vec::new(),
            keep_trace: true,
            client_events: Vec::new(),
            server_events: Vec::new(),
            close_when_done: false,
        }
    }

    /// Symmetric link, same config both ways (losses only forward).
    pub fn symmetric(cfg: TcpConfig, link: LinkConfig, seed: u64) -> Self {
        Self::chain(cfg, vec![link], seed)
    }

    /// A symmetric chain of links (the reverse path crosses the same hops
    /// backwards, without losses).
    pub fn chain(cfg: TcpConfig, hops: Vec<LinkConfig>, seed: u64) -> Self {
        let reverse = hops
            .iter()
            .rev()
            .map(|c| {
                let mut r = c.clone();
                r.loss = 0.0;
                r.drop_data.clear();
                r.blackhole_from = None;
                r
            })
            .collect();
        Self::with_hops(cfg.clone(), cfg, hops, reverse, seed)
    }

    fn record(&mut self, forward: bool, sent: bool, seg: &Segment) {
        if !self.keep_trace {
            return;
        }
        if let Ok((h, p)) = wire::parse(seg.src_ip, seg.dst_ip, &seg.bytes) {
            self.trace.push(TraceEntry {
                time: self.now,
                forward,
                sent,
                header: h,
                len: p.len(),
            });
        }
    }

    fn pump(&mut self) {
        // Application: bulk writer and greedy reader.
        if self.written < self.to_send.len()
            && let Ok(n) = self.client.write(&self.to_send[self.written..])
        {
            self.written += n;
        }
        if self.close_when_done && self.written == self.to_send.len() {
            self.client.close();
            self.close_when_done = false;
        }
        if let Some(s) = self.server.as_mut() {
            let mut buf = [0u8; 65536];
            loop {
                let n = s.read(&mut buf);
                if n == 0 {
                    break;
                }
                self.received.extend_from_slice(&buf[..n]);
            }
            if s.peer_finished() && s.state() == msctp_tcp::TcpState::CloseWait {
                s.close();
            }
        }
        while let Some(e) = self.client.poll_event() {
            self.client_events.push((self.now, e));
        }
        if let Some(s) = self.server.as_mut() {
            while let Some(e) = s.poll_event() {
                self.server_events.push((self.now, e));
            }
        }
        while let Some(seg) = self.client.poll_transmit(self.now) {
            self.record(true, true, &seg);
            self.forward[0].send(self.now, seg);
        }
        let mut out = Vec::new();
        if let Some(s) = self.server.as_mut() {
            while let Some(seg) = s.poll_transmit(self.now) {
                out.push(seg);
            }
        }
        for seg in out {
            self.record(false, true, &seg);
            self.reverse[0].send(self.now, seg);
        }
    }

    fn deliver_to_server(&mut self, seg: Segment) {
        self.record(true, false, &seg);
        match self.server.as_mut() {
            Some(s) => {
                let _ = s.handle_segment(self.now, seg.src_ip, seg.dst_ip, &seg.bytes);
            }
            None => match self
                .listener
                .handle_segment(self.now, seg.src_ip, seg.dst_ip, &seg.bytes)
            {
                Ok(ListenOutcome::Accepted(c)) => self.server = Some(*c),
                Ok(ListenOutcome::Reset(r)) => self.reverse[0].send(self.now, r),
                _ => {}
            },
        }
    }

    fn next_event(&self) -> Option<Time> {
        let links = self
            .forward
            .iter()
            .chain(self.reverse.iter())
            .filter_map(|l| l.next_arrival());
        [
            self.client.poll_timeout(),
            self.server.as_ref().and_then(|s| s.poll_timeout()),
        ]
        .into_iter()
        .flatten()
        .chain(links)
        .min()
    }

    /// Runs until `until` or until nothing is left to happen.
    pub fn run_until(&mut self, until: Time) {
        self.pump();
        while let Some(t) = self.next_event() {
            if t > until {
                break;
            }
            self.now = t.max(self.now);
            for i in 0..self.forward.len() {
                while let Some(seg) = self.forward[i].take_arrival(self.now) {
                    if i + 1 < self.forward.len() {
                        self.forward[i + 1].send(self.now, seg);
                    } else {
                        self.deliver_to_server(seg);
                    }
                }
            }
            for i in 0..self.reverse.len() {
                while let Some(seg) = self.reverse[i].take_arrival(self.now) {
                    if i + 1 < self.reverse.len() {
                        self.reverse[i + 1].send(self.now, seg);
                    } else {
                        self.record(false, false, &seg);
                        let _ = self
                            .client
                            .handle_segment(self.now, seg.src_ip, seg.dst_ip, &seg.bytes);
                    }
                }
            }
            if self.client.poll_timeout().is_some_and(|d| d <= self.now) {
                self.client.handle_timeout(self.now);
            }
            if let Some(s) = self.server.as_mut()
                && s.poll_timeout().is_some_and(|d| d <= self.now)
            {
                s.handle_timeout(self.now);
            }
            self.pump();
        }
        self.now = self.now.max(until);
    }

    /// Runs until the whole byte string has been received or `limit`.
    pub fn run_transfer(&mut self, limit: Time) -> Option<Time> {
        let step = Duration::from_millis(100);
        let mut t = self.now;
        while t < limit {
            t = (t + step).min(limit);
            self.run_until(t);
            if self.received.len() >= self.to_send.len() && !self.to_send.is_empty() {
                return self.trace_last_delivery();
            }
        }
        None
    }

    fn trace_last_delivery(&self) -> Option<Time> {
        Some(self.now)
    }

    /// Data segments sent by the client (time, seq, len), in order.
    pub fn data_sent(&self) -> Vec<(Time, u32, usize)> {
        self.trace
            .iter()
            .filter(|e| e.forward && e.sent && e.len > 0)
            .map(|e| (e.time, e.header.seq.0, e.len))
            .collect()
    }

    /// ACKs delivered to the client (time, ack number).
    pub fn acks_received(&self) -> Vec<(Time, u32)> {
        self.trace
            .iter()
            .filter(|e| !e.forward && !e.sent && e.header.flags.ack && e.len == 0)
            .map(|e| (e.time, e.header.ack.0))
            .collect()
    }
}

/// Deterministic pseudo-random bytes.
pub fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut v = vec![0u8; n];
    rng.fill(&mut v[..]);
    v
}
