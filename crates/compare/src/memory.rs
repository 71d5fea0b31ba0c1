//! Two peers wired together in one thread, in virtual time: every packet
//! one side sends arrives at the other after a fixed one-way delay, in
//! order, none lost unless a filter drops it. Each packet that crosses is
//! recorded with its chunk types (parsed here, independently of either
//! engine: RFC 9260 section 3), so that a test reads like a message
//! sequence chart.

use std::collections::VecDeque;
use std::time::Duration;

use bytes::Bytes;

use crate::peer::Peer;

/// Which way a packet went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// Client to server.
    Up,
    /// Server to client.
    Down,
}

/// A packet on the wire.
#[derive(Debug, Clone)]
pub struct Seen {
    pub time: Duration,
    pub dir: Dir,
    /// Chunk types in order (RFC 9260 section 3.2: DATA 0, INIT 1, ...).
    pub chunks: Vec<u8>,
    pub packet: Bytes,
}

/// Decides whether a packet crosses (true) or is lost.
pub type Filter = Box<dyn FnMut(Dir, &Bytes) -> bool>;

/// A client and a server joined by a link.
pub struct Pair<A, B> {
    /// Virtual time since the run began.
    pub now: Duration,
    pub client: A,
    pub server: B,
    delay: Duration,
    to_server: VecDeque<(Duration, Bytes)>,
    to_client: VecDeque<(Duration, Bytes)>,
    /// Record every packet in `seen` (off for benchmarks).
    pub record: bool,
    pub seen: Vec<Seen>,
    /// Drops the packets it returns false for.
    pub filter: Option<Filter>,
}

/// The chunk types of an SCTP packet, in order; an empty list for a
/// packet shorter than its common header, and the list up to the first
/// chunk whose length field is bad.
pub fn chunk_types(packet: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut at = 12;
    while at + 4 <= packet.len() {
        let len = u16::from_be_bytes([packet[at + 2], packet[at + 3]]) as usize;
        if len < 4 || at + len > packet.len() {
            break;
        }
        out.push(packet[at]);
        at += len.next_multiple_of(4);
    }
    out
}

impl<A: Peer, B: Peer> Pair<A, B> {
    pub fn new(client: A, server: B, delay: Duration) -> Self {
        Pair {
            now: Duration::ZERO,
            client,
            server,
            delay,
            to_server: VecDeque::new(),
            to_client: VecDeque::new(),
            record: true,
            seen: Vec::new(),
            filter: None,
        }
    }

    fn carry(&mut self, dir: Dir, p: Bytes) {
        if self.record {
            self.seen.push(Seen {
                time: self.now,
                dir,
                chunks: chunk_types(&p),
                packet: p.clone(),
            });
        }
        if let Some(f) = self.filter.as_mut()
            && !f(dir, &p)
        {
            return;
        }
        let q = match dir {
            Dir::Up => &mut self.to_server,
            Dir::Down => &mut self.to_client,
        };
        q.push_back((self.now + self.delay, p));
    }

    /// One step: puts every packet either side has to send on the link;
    /// when there was none, advances time to the next arrival or timer,
    /// delivers what arrived and fires what is due. False when nothing
    /// is left to happen before `until`.
    pub fn step(&mut self, until: Duration) -> bool {
        let mut moved = false;
        while let Some(p) = self.client.output(self.now) {
            self.carry(Dir::Up, p);
            moved = true;
        }
        while let Some(p) = self.server.output(self.now) {
            self.carry(Dir::Down, p);
            moved = true;
        }
        if moved {
            return true;
        }
        let next = [
            self.to_server.front().map(|x| x.0),
            self.to_client.front().map(|x| x.0),
            self.client.timeout(),
            self.server.timeout(),
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(next) = next.filter(|t| *t <= until) else {
            return false;
        };
        self.now = self.now.max(next);
        while self.to_server.front().is_some_and(|x| x.0 <= self.now) {
            let (_, p) = self.to_server.pop_front().expect("a packet");
            self.server.input(self.now, p);
        }
        while self.to_client.front().is_some_and(|x| x.0 <= self.now) {
            let (_, p) = self.to_client.pop_front().expect("a packet");
            self.client.input(self.now, p);
        }
        if self.client.timeout().is_some_and(|t| t <= self.now) {
            self.client.on_timeout(self.now);
        }
        if self.server.timeout().is_some_and(|t| t <= self.now) {
            self.server.on_timeout(self.now);
        }
        true
    }

    /// Steps until `done` (asked before every step) says so, or nothing is
    /// left to happen within `limit` from now; whether `done` said so.
    pub fn run(&mut self, limit: Duration, mut done: impl FnMut(&mut Self) -> bool) -> bool {
        let until = self.now + limit;
        loop {
            if done(self) {
                return true;
            }
            if !self.step(until) {
                return done(self);
            }
        }
    }

    /// The client connects; true when both sides are established within
    /// `limit`.
    pub fn connect(&mut self, limit: Duration) -> bool {
        self.client.connect(self.now);
        self.run(limit, |p| p.client.connected() && p.server.connected())
    }

    /// The client sends `total` bytes in messages of `message` bytes on
    /// `stream`, as fast as its send buffer takes them; the server reads
    /// them. Returns the bytes the server received within `limit`.
    pub fn bulk(&mut self, stream: u16, total: usize, message: usize, limit: Duration) -> usize {
        let payload = Bytes::from(vec![0x5au8; message]);
        let (mut sent, mut got) = (0usize, 0usize);
        self.run(limit, |p| {
            while sent < total {
                let k = (total - sent).min(message);
                if !p.client.send(stream, payload.slice(..k)) {
                    break;
                }
                sent += k;
            }
            while let Some((_, m)) = p.server.recv() {
                got += m.len();
            }
            got >= total
        });
        got
    }

    /// Shuts the client down gracefully; true when both sides are closed
    /// within `limit`.
    pub fn shutdown(&mut self, limit: Duration) -> bool {
        self.client.shutdown(self.now);
        let done = self.run(limit, |p| p.client.closed() && p.server.closed());
        self.settle();
        done
    }

    /// Carries the packets still to be sent and delivers those in flight,
    /// firing no timer: the last packets of an exchange reach the trace.
    pub fn settle(&mut self) {
        loop {
            let mut moved = false;
            while let Some(p) = self.client.output(self.now) {
                self.carry(Dir::Up, p);
                moved = true;
            }
            while let Some(p) = self.server.output(self.now) {
                self.carry(Dir::Down, p);
                moved = true;
            }
            let next = [
                self.to_server.front().map(|x| x.0),
                self.to_client.front().map(|x| x.0),
            ]
            .into_iter()
            .flatten()
            .min();
            let Some(next) = next else {
                if moved {
                    continue;
                }
                return;
            };
            self.now = self.now.max(next);
            while self.to_server.front().is_some_and(|x| x.0 <= self.now) {
                let (_, p) = self.to_server.pop_front().expect("a packet");
                self.server.input(self.now, p);
            }
            while self.to_client.front().is_some_and(|x| x.0 <= self.now) {
                let (_, p) = self.to_client.pop_front().expect("a packet");
                self.client.input(self.now, p);
            }
        }
    }

    /// The packets that carried a chunk of type `t`, in order.
    pub fn with_chunk(&self, t: u8) -> impl Iterator<Item = &Seen> {
        self.seen.iter().filter(move |s| s.chunks.contains(&t))
    }
}
