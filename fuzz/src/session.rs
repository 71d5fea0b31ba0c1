//! Target `session`: a sequence of application calls and network events
//! in virtual time against a two-endpoint network ([`crate::pair`]): send
//! and receive on both sides, add and delete local addresses, set the
//! primary and ask the peer to set ours, cut and restore links, let time
//! pass (timeouts, retransmissions, heartbeats, failover), shut down or
//! abort, and, optionally, inject structure-aware packets with a valid
//! tag (signed or not).
//!
//! Checked after every operation and at the end:
//! - no panic; every packet sent decodes; the send-side TSN accounting is
//!   consistent ([`msctp_proto::Association::check_accounting`]);
//! - no message is delivered twice or altered, and ordered messages of a
//!   stream arrive in the order they were sent;
//! - on a clean path (no injected packets): once all links are up again
//!   and the network has settled, if the association is still up or ended
//!   by a graceful shutdown, every message sent was delivered exactly
//!   once; if it was aborted (by the application or after
//!   Association.Max.Retrans), nothing was delivered that was not sent.

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::OnceLock;
use std::time::Duration;

use arbitrary::{Arbitrary, Unstructured};
use bytes::Bytes;
use msctp_proto::{AssocId, AssociationConfig, CloseReason, EndpointConfig, Event, State};

use crate::chunks::{Ctx, FChunk, encode, sign};
use crate::established::{self, ATTACKER};
use crate::pair::{Pair, Side, ip, pair};
use crate::wire_out::packet;

pub const MAX_LEN: usize = 1024;
const MAX_OPS: usize = 32;
/// Bytes at the start of every message naming it (side, number).
const ID_LEN: usize = 8;

#[derive(Debug, Clone, Arbitrary)]
pub enum Op {
    Send {
        b: bool,
        stream: u8,
        len: u16,
        unordered: bool,
    },
    Recv {
        b: bool,
    },
    AddLocal {
        b: bool,
        addr: u8,
    },
    RemoveLocal {
        b: bool,
        addr: u8,
    },
    SetPrimary {
        b: bool,
        addr: u8,
    },
    RequestPeerPrimary {
        b: bool,
        addr: u8,
    },
    MovePathData {
        b: bool,
        addr: u8,
    },
    Link {
        a: u8,
        b: u8,
        up: bool,
    },
    Run {
        ms: u16,
    },
    Shutdown {
        b: bool,
    },
    Abort {
        b: bool,
    },
    Inject {
        to_b: bool,
        auth: Option<bool>,
        chunks: Vec<FChunk>,
    },
}

/// A's addresses (the third one is spare, for Add IP), B's addresses.
const A_ADDRS: [&str; 3] = ["10.1.0.2", "10.2.0.2", "10.3.0.2"];
const B_ADDRS: [&str; 2] = ["10.9.0.1", "10.9.0.2"];

#[derive(Clone)]
struct Base {
    pair: Pair,
    ids: (AssocId, AssocId),
    key: Vec<u8>,
    initial_tsn: (u32, u32),
}

fn config() -> AssociationConfig {
    AssociationConfig {
        rto_initial: Duration::from_millis(500),
        rto_min: Duration::from_millis(200),
        rto_max: Duration::from_secs(4),
        send_buffer: 64 * 1024,
        receive_window: 32 * 1024,
        max_message_size: 16 * 1024,
        outbound_streams: 4,
        max_inbound_streams: 4,
        ..AssociationConfig::default()
    }
}

fn base() -> &'static Base {
    static BASE: OnceLock<Base> = OnceLock::new();
    BASE.get_or_init(|| {
        let a: Vec<IpAddr> = A_ADDRS.iter().map(|s| ip(s)).collect();
        let b: Vec<IpAddr> = B_ADDRS.iter().map(|s| ip(s)).collect();
        let mut ca = EndpointConfig::new(5000);
        ca.association = config();
        let mut cb = EndpointConfig::new(6000);
        cb.association = config();
        let mut pair = pair(ca, &a, cb, &b, Duration::from_millis(10), 5);
        pair.endpoint(Side::A).set_local_addresses(&a[..2]);
        pair.record = true;
        let ids = pair.establish().expect("the base association connects");
        let (key, initial_tsn) = established::auth_key(pair.take_seen());
        pair.clear_events();
        Base {
            pair,
            ids,
            key,
            initial_tsn,
        }
    })
}

fn side(b: bool) -> Side {
    if b { Side::B } else { Side::A }
}

/// Longest message body a `Send` asks for.
const MAX_BODY: usize = 6000;

/// The bytes message bodies are cut from: a period-256 pattern, long
/// enough for any body at any of 251 offsets.
static PATTERN: [u8; 251 + ID_LEN + MAX_BODY] = {
    let mut t = [0; 251 + ID_LEN + MAX_BODY];
    let mut k = 0;
    while k < t.len() {
        t[k] = (k * 31) as u8;
        k += 1;
    }
    t
};

/// The body of message `n` (`len` bytes with the name): the pattern
/// from an offset that depends on `n`, so messages differ.
fn body(n: u32, len: usize) -> &'static [u8] {
    let off = (n % 251) as usize;
    &PATTERN[off + ID_LEN..off + len]
}

/// The payload of message `n` of `from`: its name, then its body.
fn payload(from: Side, n: u32, len: usize) -> Bytes {
    let mut v = Vec::with_capacity(len);
    v.extend_from_slice(&(from as u32).to_be_bytes());
    v.extend_from_slice(&n.to_be_bytes());
    v.extend_from_slice(body(n, len));
    Bytes::from(v)
}

/// Whether `data` is message `n` of `from` as sent (compared in place:
/// the payload is not built again).
fn is_payload(data: &[u8], from: Side, n: u32, len: usize) -> bool {
    data.len() == len
        && data[..4] == (from as u32).to_be_bytes()
        && data[4..ID_LEN] == n.to_be_bytes()
        && data[ID_LEN..] == *body(n, len)
}

#[derive(Debug, Clone)]
struct Sent {
    stream: u16,
    unordered: bool,
    len: usize,
}

struct Run {
    b: Base,
    /// Messages sent by each side, by number.
    sent: HashMap<(Side, u32), Sent>,
    next: [u32; 2],
    delivered: HashSet<(Side, u32)>,
    /// Last ordered message number delivered per (sender, stream).
    last_ordered: HashMap<(Side, u16), u32>,
    tainted: bool,
    closed: [Option<CloseReason>; 2],
}

impl Run {
    fn id(&self, s: Side) -> AssocId {
        match s {
            Side::A => self.b.ids.0,
            Side::B => self.b.ids.1,
        }
    }

    fn addr(&self, s: Side, i: u8) -> IpAddr {
        let list = self.b.pair.addrs(s);
        list[usize::from(i) % list.len()]
    }

    fn recv(&mut self, s: Side) {
        let id = self.id(s);
        let from = s.other();
        let Some(a) = self.b.pair.endpoint(s).association_mut(id) else {
            return;
        };
        let mut got = Vec::new();
        while let Some(m) = a.recv() {
            got.push(m);
        }
        for m in got {
            if m.data.len() < ID_LEN {
                assert!(self.tainted, "a message shorter than any sent");
                continue;
            }
            let who = u32::from_be_bytes(m.data[..4].try_into().unwrap());
            let n = u32::from_be_bytes(m.data[4..8].try_into().unwrap());
            if self.tainted {
                // Injected DATA can carry anything; only the genuine
                // messages are checked below.
                if who != from as u32 || !self.sent.contains_key(&(from, n)) {
                    continue;
                }
            }
            assert_eq!(who, from as u32, "a message from the wrong side");
            let sent = self
                .sent
                .get(&(from, n))
                .unwrap_or_else(|| panic!("message {n} was never sent"))
                .clone();
            let intact = is_payload(&m.data, from, n, sent.len);
            if self.tainted && !intact {
                continue;
            }
            assert!(intact, "message {n} altered");
            assert_eq!(m.stream, sent.stream, "message {n} on another stream");
            assert!(
                self.delivered.insert((from, n)),
                "message {n} delivered twice"
            );
            if !sent.unordered
                && !self.tainted
                && let Some(prev) = self.last_ordered.insert((from, sent.stream), n)
            {
                assert!(prev < n, "ordered message {n} after {prev}");
            }
        }
    }

    fn events(&mut self) {
        let a = self
            .b
            .pair
            .events_a
            .drain(..)
            .map(|(_, id, e)| (Side::A, id, e));
        let b = self
            .b
            .pair
            .events_b
            .drain(..)
            .map(|(_, id, e)| (Side::B, id, e));
        for (s, id, e) in a.chain(b) {
            if id != self.b.ids.0 && s == Side::A || id != self.b.ids.1 && s == Side::B {
                continue;
            }
            if let Event::Closed { reason } = e {
                self.closed[s as usize] = Some(reason);
            }
        }
    }

    fn check(&mut self) {
        for s in [Side::A, Side::B] {
            let id = self.id(s);
            if let Some(a) = self.b.pair.ep(s).association(id)
                && let Err(e) = a.check_accounting()
            {
                panic!("TSN accounting of side {s:?}: {e}");
            }
        }
        self.events();
    }

    fn op(&mut self, op: Op) {
        let now = self.b.pair.now;
        match op {
            Op::Send {
                b,
                stream,
                len,
                unordered,
            } => {
                let s = side(b);
                let id = self.id(s);
                let n = self.next[s as usize];
                let len = ID_LEN + usize::from(len) % MAX_BODY;
                let stream = u16::from(stream % 5);
                if let Some(a) = self.b.pair.endpoint(s).association_mut(id)
                    && a.send(stream, 0, payload(s, n, len), unordered).is_ok()
                {
                    self.sent.insert(
                        (s, n),
                        Sent {
                            stream,
                            unordered,
                            len,
                        },
                    );
                    self.next[s as usize] += 1;
                }
            }
            Op::Recv { b } => self.recv(side(b)),
            Op::AddLocal { b, addr } => {
                let (s, x) = (side(b), self.addr(side(b), addr));
                self.with(s, |a| {
                    let _ = a.add_local_address(x);
                });
            }
            Op::RemoveLocal { b, addr } => {
                let (s, x) = (side(b), self.addr(side(b), addr));
                self.with(s, |a| {
                    let _ = a.remove_local_address(x);
                });
            }
            Op::SetPrimary { b, addr } => {
                let (s, x) = (side(b), self.addr(side(b).other(), addr));
                self.with(s, |a| {
                    let _ = a.set_primary(x);
                });
            }
            Op::RequestPeerPrimary { b, addr } => {
                let (s, x) = (side(b), self.addr(side(b), addr));
                self.with(s, |a| {
                    let _ = a.request_peer_primary(x);
                });
            }
            Op::MovePathData { b, addr } => {
                let (s, x) = (side(b), self.addr(side(b).other(), addr));
                self.with(s, |a| {
                    let _ = a.retransmit_path_data(x);
                });
            }
            Op::Link { a, b, up } => {
                let (x, y) = (self.addr(Side::A, a), self.addr(Side::B, b));
                self.b.pair.set_up(x, y, up);
            }
            Op::Run { ms } => {
                let d = Duration::from_millis(u64::from(ms % 20_000));
                self.b.pair.steps_for(d, 2_000);
            }
            Op::Shutdown { b } => self.with(side(b), |a| a.shutdown(now)),
            Op::Abort { b } => self.with(side(b), |a| a.abort(None)),
            Op::Inject { to_b, auth, chunks } => self.inject(side(to_b), auth, &chunks),
        }
        self.b.pair.flush();
        self.check();
    }

    fn with(&mut self, s: Side, f: impl FnOnce(&mut msctp_proto::Association)) {
        let id = self.id(s);
        if let Some(a) = self.b.pair.endpoint(s).association_mut(id) {
            f(a);
        }
    }

    fn inject(&mut self, to: Side, auth: Option<bool>, chunks: &[FChunk]) {
        self.tainted = true;
        let from = to.other();
        let (id_to, id_from) = (self.id(to), self.id(from));
        let p = &self.b.pair;
        let Some(tag) = p.ep(to).association(id_to).map(|a| a.local_tag()) else {
            return;
        };
        let cum = |s: Side, id| {
            p.ep(s)
                .association(id)
                .map_or(0, |a| a.cumulative_tsn_received())
        };
        let mut addrs: Vec<IpAddr> = p.a_addrs.clone();
        addrs.extend_from_slice(&p.b_addrs);
        addrs.extend(ATTACKER.iter().map(|a| ip(a)));
        let ctx = Ctx {
            data_base: cum(to, id_to),
            sack_base: cum(from, id_from),
            serial_base: if from == Side::A {
                self.b.initial_tsn.0
            } else {
                self.b.initial_tsn.1
            },
            addrs,
        };
        let out = encode(chunks, &ctx, auth, 8);
        if out.is_empty() {
            return;
        }
        let (sport, dport) = if to == Side::B {
            (5000, 6000)
        } else {
            (6000, 5000)
        };
        let mut pkt = packet(sport, dport, tag, &out);
        if auth.is_some() {
            sign(&mut pkt, &self.b.key);
        }
        let (src, dst) = (p.addrs(from)[0], p.addrs(to)[0]);
        self.b.pair.inject(to, src, dst, Bytes::from(pkt));
    }

    /// All links up, the network settles, everything is read.
    fn settle(&mut self) {
        self.b.pair.all_up();
        for _ in 0..40 {
            self.b.pair.steps_for(Duration::from_secs(5), 2_000);
            self.recv(Side::A);
            self.recv(Side::B);
            self.check();
            let idle = [Side::A, Side::B].iter().all(|&s| {
                let id = self.id(s);
                self.b
                    .pair
                    .ep(s)
                    .association(id)
                    .is_none_or(|a| a.send_buffered() == 0 || a.state() == State::Closed)
            });
            if idle {
                break;
            }
        }
        self.recv(Side::A);
        self.recv(Side::B);
        self.check();
    }

    fn final_check(&mut self) {
        if self.tainted {
            return;
        }
        let alive_or_graceful = [Side::A, Side::B].iter().all(|&s| {
            let id = self.id(s);
            match &self.closed[s as usize] {
                Some(CloseReason::Shutdown) => true,
                Some(_) => false,
                None => self
                    .b
                    .pair
                    .ep(s)
                    .association(id)
                    .is_some_and(|a| a.state().is_established()),
            }
        });
        if !alive_or_graceful {
            return;
        }
        for (k, _) in self.sent.iter() {
            assert!(
                self.delivered.contains(k),
                "message {k:?} lost on a clean path"
            );
        }
    }
}

/// Runs one input.
pub fn run(data: &[u8]) {
    let data = &data[..data.len().min(MAX_LEN)];
    let Ok(ops) = Vec::<Op>::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let mut r = Run {
        b: base().clone(),
        sent: HashMap::new(),
        next: [0, 0],
        delivered: HashSet::new(),
        last_ordered: HashMap::new(),
        tainted: false,
        closed: [None, None],
    };
    for op in ops.into_iter().take(MAX_OPS) {
        if crate::trace() {
            eprintln!("{:?} {op:?}", r.b.pair.now);
        }
        r.op(op);
    }
    r.settle();
    r.final_check();
}
