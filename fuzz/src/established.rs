//! Target `established`: an established association with AUTH and
//! ADD-IP on, both sides, fed packets that carry the right verification
//! tag and checksum, so that they reach the association's chunk
//! processing rather than being dropped at the door.
//!
//! The association is set up once (handshake, data exchanged, more data
//! in flight both ways) and every input starts from a copy of it. An
//! input is a sequence of [`Step`]s decoded with `arbitrary`:
//! - `Packet`: a chunk list built from fuzzed fields ([`crate::chunks`]:
//!   TSNs, serial numbers and addresses relative to the state), sent to
//!   side A or B from one of the peer's or an attacker's addresses, with
//!   an AUTH chunk in front signed with the association key, or unsigned;
//! - `Raw`: chunk bytes as they are, AUTH chunks among them re-signed if
//!   asked (the seed corpus holds the real chunk lists the same
//!   association sends, in the raw mode of [`run`]);
//! - `Deliver` / `Wait`: the genuine traffic between A and B moves on,
//!   timers fire (waits from 1 ms to 65 s, spread evenly over octaves,
//!   at most 16 events each);
//! - `Send`: one side's application sends a message with a partial
//!   reliability policy (RFC 3758, RFC 7496), so that abandonment, the
//!   Advanced.Peer.Ack.Point and FORWARD TSN are driven from the sending
//!   side too (injected FORWARD TSNs drive the receiving side).
//!
//! Path MTU discovery is on (RFC 8899): PAD + HEARTBEAT probes are in
//! flight and in the seed corpus.
//!
//! Checked: no panic; every packet either side sends decodes; the send
//! side's TSN accounting stays consistent
//! ([`msctp_proto::Association::check_accounting`]); no packet without
//! a valid AUTH changes the receiver's set of peer addresses or its
//! primary (the hijack of RFC 5062 section 4.1 needs the key); no DATA
//! goes to an attacker's address, which never answers a HEARTBEAT, even
//! when a signed ASCONF from that (spoofed) source added it (RFC 9260
//! section 5.4; issue 31 finding 3) unless the input itself carried a
//! HEARTBEAT ACK to that side; and reassembly looks at no more than four
//! fragments per DATA chunk received (issue 31 finding 4).

use std::net::IpAddr;
use std::sync::OnceLock;
use std::time::Duration;

use arbitrary::{Arbitrary, Unstructured};
use bytes::Bytes;
use msctp_proto::association::PeerInit;
use msctp_proto::auth::{HmacAlgorithm, association_key};
use msctp_proto::wire::chunk::chunk_type;
use msctp_proto::wire::{AsconfChunk, Chunk, DataChunk, Packet, PacketRepr, Param};
use msctp_proto::{AssocId, EndpointConfig, PmtudConfig, PrPolicy, SendOptions};

use crate::chunks::{Ctx, FChunk, auth_chunk, encode, sign};
use crate::pair::{Pair, Seen, Side, ip, pair, wait_duration};
use crate::seeds::Seed;
use crate::wire_out::packet;

pub const MAX_LEN: usize = 2048;
const PORT_A: u16 = 5000;
const PORT_B: u16 = 6000;
/// Events (packet arrivals, timers) a `Deliver` or `Wait` step runs at
/// most. An idle association's heartbeats (four paths, one each 30 s)
/// would otherwise fill long waits with the same exchange again and again,
/// costing time and rewarding the fuzzer (hit counts are features) for
/// nothing new.
const MAX_EVENTS_PER_STEP: usize = 16;
/// An off-path attacker's addresses.
pub const ATTACKER: [&str; 2] = ["192.0.2.66", "2001:db8:66::1"];
/// Fragment visits of reassembly allowed per DATA chunk received.
const VISITS_PER_CHUNK: u64 = 4;

#[derive(Debug, Clone, Arbitrary)]
pub enum Step {
    Packet {
        to_b: bool,
        src: u8,
        dst: u8,
        auth: Option<bool>,
        chunks: Vec<FChunk>,
    },
    Raw {
        to_b: bool,
        src: u8,
        resign: bool,
        chunks: Vec<u8>,
    },
    Deliver(u8),
    Wait(u16),
    /// The application of one side sends a message with a partial
    /// reliability policy (RFC 3758, RFC 7496): 0 reliable, 1 a lifetime of
    /// `value` ms, 2 at most `value % 4` retransmissions, 3 priority
    /// `value`; `len` bytes (1 to 4096, fragmented above the MTU).
    Send {
        to_b: bool,
        policy: u8,
        value: u16,
        len: u16,
    },
}

/// The established pair every input starts from, and what the harness
/// knows about it (tags, serial bases, the AUTH key).
#[derive(Debug, Clone)]
pub struct Base {
    pub pair: Pair,
    pub ids: (AssocId, AssocId),
    /// Initial TSN (= first ASCONF serial) of A and of B.
    pub initial_tsn: (u32, u32),
    pub key: Vec<u8>,
}

impl Base {
    pub fn id(&self, side: Side) -> AssocId {
        match side {
            Side::A => self.ids.0,
            Side::B => self.ids.1,
        }
    }

    /// The verification tag packets to `side` carry.
    pub fn tag_to(&self, side: Side) -> u32 {
        self.pair
            .ep(side)
            .association(self.id(side))
            .map_or(0, |a| a.local_tag())
    }
}

/// A: 10.1.0.2, 10.2.0.2; B: 10.9.0.1, 10.9.0.2; AUTH and ADD-IP on.
pub fn setup() -> Base {
    let (a1, a2, b1, b2) = (
        ip("10.1.0.2"),
        ip("10.2.0.2"),
        ip("10.9.0.1"),
        ip("10.9.0.2"),
    );
    // PLPMTUD on (RFC 8899): the base association has sent HEARTBEAT +
    // PAD probes, so the seeds hold them and their HEARTBEAT ACKs, and
    // injected HEARTBEAT ACKs meet probes in flight.
    let config = |port| {
        let mut c = EndpointConfig::new(port);
        c.association.pmtud = PmtudConfig {
            probe_timer: Duration::from_secs(1),
            ..PmtudConfig::on()
        };
        c
    };
    let mut p = pair(
        config(PORT_A),
        &[a1, a2],
        config(PORT_B),
        &[b1, b2],
        Duration::from_millis(5),
        3,
    );
    p.record = true;
    let ids = p.establish().expect("the base association connects");
    let (key, initial_tsn) = auth_key(p.take_seen());
    p.clear_events();
    let mut base = Base {
        pair: p,
        ids,
        initial_tsn,
        key,
    };
    // Some data both ways, delivered; then more in flight.
    send_some(&mut base, 2);
    base.pair.steps_for(Duration::from_millis(200), 1000);
    send_some(&mut base, 3);
    base.pair.flush();
    base.pair.clear_events();
    base
}

/// The AUTH key of the association whose handshake is in `seen`, from
/// what both sides announced in INIT and INIT ACK (RFC 4895 section 6.1;
/// the endpoint-pair shared key is empty by default), and both sides'
/// initial TSNs (their first ASCONF serial numbers, RFC 5061 section 4.1.1).
pub fn auth_key(seen: Vec<Seen>) -> (Vec<u8>, (u32, u32)) {
    let mut inits = Vec::new();
    for s in seen {
        if let Ok(r) = PacketRepr::parse(&s.bytes) {
            for c in r.chunks {
                match c {
                    Chunk::Init(i) => inits.push(PeerInit::from_chunk(&i, false).unwrap()),
                    Chunk::InitAck(i) => inits.push(PeerInit::from_chunk(&i, true).unwrap()),
                    _ => {}
                }
            }
        }
    }
    let (ia, ib) = (&inits[0], &inits[1]);
    let key = association_key(&[], ia.auth.as_ref().unwrap(), ib.auth.as_ref().unwrap());
    (key, (ia.initial_tsn, ib.initial_tsn))
}

fn send_some(b: &mut Base, n: usize) {
    for side in [Side::A, Side::B] {
        let id = b.id(side);
        let a = b.pair.endpoint(side).association_mut(id).unwrap();
        for k in 0..n {
            let _ = a.send(k as u16, 0, Bytes::from(vec![k as u8; 700]), false);
        }
    }
}

fn base() -> &'static Base {
    static BASE: OnceLock<Base> = OnceLock::new();
    BASE.get_or_init(setup)
}

/// The receiver's view that a hijack would change.
fn peer_view(p: &Pair, side: Side, id: AssocId) -> Option<(Vec<IpAddr>, Option<IpAddr>)> {
    let a = p.ep(side).association(id)?;
    if !a.state().is_established() {
        return None;
    }
    Some((a.paths().iter().map(|x| x.remote).collect(), a.primary()))
}

struct Run {
    b: Base,
    /// The input sent a HEARTBEAT ACK to side A / B: it may have answered
    /// a probe to an attacker's address.
    hb_ack_injected: [bool; 2],
}

fn side_index(s: Side) -> usize {
    usize::from(s == Side::B)
}

impl Run {
    fn addrs(&self) -> Vec<IpAddr> {
        let mut v = self.b.pair.a_addrs.clone();
        v.extend_from_slice(&self.b.pair.b_addrs);
        v.extend(ATTACKER.iter().map(|a| ip(a)));
        v
    }

    fn ctx(&mut self, to: Side) -> Ctx {
        let from = to.other();
        let (id_to, id_from) = (self.b.id(to), self.b.id(from));
        let cum = |p: &Pair, s: Side, id: AssocId| {
            p.ep(s)
                .association(id)
                .map_or(0, |a| a.cumulative_tsn_received())
        };
        let data_base = cum(&self.b.pair, to, id_to);
        let sack_base = cum(&self.b.pair, from, id_from);
        let serial_base = match from {
            Side::A => self.b.initial_tsn.0,
            Side::B => self.b.initial_tsn.1,
        };
        Ctx {
            data_base,
            sack_base,
            serial_base,
            addrs: self.addrs(),
        }
    }

    /// Sends `bytes` (chunks) to `to` with the right tag; signs if asked.
    fn send(&mut self, to: Side, src: u8, dst: u8, chunks: &[u8], signed: bool) {
        let from = to.other();
        let tag = self.b.tag_to(to);
        let (sport, dport) = match to {
            Side::B => (PORT_A, PORT_B),
            Side::A => (PORT_B, PORT_A),
        };
        let mut pkt = packet(sport, dport, tag, chunks);
        if signed {
            sign(&mut pkt, &self.b.key);
        }
        // Sources: the claimed sender's addresses or the attacker's.
        let mut srcs = self.b.pair.addrs(from).to_vec();
        srcs.extend(ATTACKER.iter().map(|a| ip(a)));
        let src = srcs[usize::from(src) % srcs.len()];
        let dsts = self.b.pair.addrs(to).to_vec();
        let dst = dsts[usize::from(dst) % dsts.len()];
        if Packet::new_checked(&pkt[..]).is_ok_and(|p| {
            p.chunks()
                .map_while(|c| c.ok())
                .any(|(_, v)| v.chunk_type() == chunk_type::HEARTBEAT_ACK)
        }) {
            self.hb_ack_injected[side_index(to)] = true;
        }
        let id = self.b.id(to);
        let before = peer_view(&self.b.pair, to, id);
        self.b.pair.inject(to, src, dst, Bytes::from(pkt));
        let after = peer_view(&self.b.pair, to, id);
        if !signed && let (Some(b), Some(a)) = (before, after) {
            assert_eq!(b, a, "an unauthenticated packet moved the association");
        }
    }

    fn step(&mut self, step: Step) {
        match step {
            Step::Packet {
                to_b,
                src,
                dst,
                auth,
                chunks,
            } => {
                let to = if to_b { Side::B } else { Side::A };
                let ctx = self.ctx(to);
                let out = encode(&chunks, &ctx, auth, 16);
                if out.is_empty() {
                    return;
                }
                self.send(to, src, dst, &out, auth.is_some());
            }
            Step::Raw {
                to_b,
                src,
                resign,
                chunks,
            } => {
                let to = if to_b { Side::B } else { Side::A };
                self.send(to, src, 0, &chunks, resign);
            }
            Step::Deliver(n) => {
                let until = self.b.pair.now + Duration::from_secs(1);
                for _ in 0..usize::from(n).min(MAX_EVENTS_PER_STEP) {
                    if !self.b.pair.step(until) {
                        break;
                    }
                }
            }
            Step::Wait(x) => {
                self.b.pair.steps_for(wait_duration(x), MAX_EVENTS_PER_STEP);
            }
            Step::Send {
                to_b,
                policy,
                value,
                len,
            } => {
                let from = if to_b { Side::A } else { Side::B };
                let id = self.b.id(from);
                let now = self.b.pair.now;
                let policy = match policy % 4 {
                    0 => PrPolicy::Reliable,
                    1 => PrPolicy::Lifetime(Duration::from_millis(u64::from(value))),
                    2 => PrPolicy::MaxRetransmissions(u32::from(value % 4)),
                    _ => PrPolicy::Priority(value),
                };
                let opts = SendOptions {
                    policy,
                    ..SendOptions::default()
                };
                let data = Bytes::from(vec![0x7e; usize::from(len % 4096) + 1]);
                if let Some(a) = self.b.pair.endpoint(from).association_mut(id) {
                    let _ = a.send_with(now, 0, 0, data, &opts);
                }
            }
        }
        self.b.pair.clear_events();
    }

    fn check(&mut self) {
        let attacker: Vec<IpAddr> = ATTACKER.iter().map(|a| ip(a)).collect();
        // Packets to the attacker's addresses are strays (neither endpoint
        // owns them); the rest is dropped so that the record stays small.
        self.b.pair.seen.clear();
        for s in self.b.pair.stray.drain(..) {
            if attacker.contains(&s.dst) && !self.hb_ack_injected[side_index(s.from)] {
                let data = Packet::new_checked(&s.bytes[..]).is_ok_and(|p| {
                    p.chunks()
                        .map_while(|c| c.ok())
                        .any(|(_, v)| v.chunk_type() == chunk_type::DATA)
                });
                assert!(
                    !data,
                    "side {:?} sent DATA to {}, an address that never answered a HEARTBEAT",
                    s.from, s.dst
                );
            }
        }
        for side in [Side::A, Side::B] {
            let id = self.b.id(side);
            if let Some(a) = self.b.pair.endpoint(side).association_mut(id) {
                if let Err(e) = a.check_accounting() {
                    panic!("TSN accounting of side {side:?}: {e}");
                }
                let st = a.stats();
                assert!(
                    st.reassembly_visits <= VISITS_PER_CHUNK * st.data_chunks_received,
                    "side {side:?}: {} reassembly visits for {} DATA chunks",
                    st.reassembly_visits,
                    st.data_chunks_received
                );
                while a.recv().is_some() {}
            }
        }
    }
}

/// Runs one input: mode byte 0, then a byte choosing the side (odd: B)
/// and the source (the other bits: an index into the sender's addresses
/// then the attacker's, as [`Step::Packet`]'s `src`) and chunk bytes, is
/// one raw packet, signed (the seed corpus's form); anything else is a
/// sequence of steps.
pub fn run(data: &[u8]) {
    let data = &data[..data.len().min(MAX_LEN)];
    let steps = match data {
        [0, side, chunks @ ..] => vec![Step::Raw {
            to_b: side & 1 == 1,
            src: side >> 1,
            resign: true,
            chunks: chunks.to_vec(),
        }],
        [_, rest @ ..] => match Vec::<Step>::arbitrary_take_rest(Unstructured::new(rest)) {
            Ok(s) => s,
            Err(_) => return,
        },
        [] => return,
    };
    let mut r = Run {
        b: base().clone(),
        hb_ack_injected: [false; 2],
    };
    r.b.pair.record = true;
    for step in steps.into_iter().take(32) {
        if crate::trace() {
            eprintln!("{:?} {step:?}", r.b.pair.now);
        }
        r.step(step);
        r.check();
    }
    // Let the reactions play out.
    r.b.pair.steps_for(Duration::from_secs(2), 200);
    r.b.pair.clear_events();
    r.check();
}

/// Seeds: the chunk lists the association itself sends after the base
/// state (DATA, SACK, HEARTBEAT, ASCONF with AUTH, SHUTDOWN ...), in raw
/// mode to the other side with AUTH re-signed, so the fuzzer starts from
/// packets the association accepts.
pub fn seeds() -> Vec<Seed> {
    let mut b = setup();
    b.pair.record = true;
    b.pair.steps_for(Duration::from_millis(300), 1000);
    {
        let id = b.id(Side::A);
        let a = b.pair.endpoint(Side::A).association_mut(id).unwrap();
        let _ = a.add_local_address(ip("10.3.0.2"));
        let _ = a.request_peer_primary(ip("10.2.0.2"));
    }
    send_some(&mut b, 2);
    b.pair.steps_for(Duration::from_secs(1), 1000);
    b.pair.steps_for(Duration::from_secs(35), 1000);
    let now = b.pair.now;
    let id = b.id(Side::B);
    b.pair
        .endpoint(Side::B)
        .association_mut(id)
        .unwrap()
        .shutdown(now);
    b.pair.steps_for(Duration::from_secs(1), 1000);
    let seen = b.pair.take_seen();
    let mut out = finding_seeds();
    for (i, s) in seen.iter().enumerate() {
        let mut bytes = vec![0, u8::from(s.from == Side::A)];
        bytes.extend_from_slice(&s.bytes[12..]);
        out.push(Seed {
            target: "established",
            name: format!("raw-{i:03}"),
            bytes,
        });
    }
    out
}

/// Inputs (raw mode) that reproduce issue 31's findings against this
/// target's base association.
/// - 3: the peer holding the key sends, signed and from an attacker's
///   address (spoofed), an ASCONF that adds that address, deletes the
///   primary (whose data in flight moves to the ASCONF's source) and makes
///   the new address the primary: B must not send DATA there before a
///   HEARTBEAT to it is answered.
/// - 4: two runs of middle fragments (neither B nor E) of two messages,
///   extended in turn: reassembly must not walk back over a run for each
///   fragment.
pub fn finding_seeds() -> Vec<Seed> {
    let b = base();
    let attacker = ip(ATTACKER[0]);
    let mut spoofed = vec![0, (2 << 1) | 1];
    auth_chunk(HmacAlgorithm::Sha256).emit(&mut spoofed);
    Chunk::Asconf(AsconfChunk {
        serial: b.initial_tsn.0,
        address: ip("10.1.0.2"),
        params: vec![
            Param::AddIpAddress {
                correlation_id: 1,
                address: attacker,
            },
            Param::DeleteIpAddress {
                correlation_id: 2,
                address: ip("10.1.0.2"),
            },
            Param::SetPrimaryAddress {
                correlation_id: 3,
                address: attacker,
            },
        ],
    })
    .emit(&mut spoofed);
    let cum = b
        .pair
        .ep(Side::B)
        .association(b.id(Side::B))
        .map_or(0, |a| a.cumulative_tsn_received());
    let mut fragments = vec![0, 1];
    for k in 0..48u32 {
        for (run, stream) in [(10u32, 0u16), (500, 1)] {
            Chunk::Data(DataChunk {
                tsn: cum.wrapping_add(run + k),
                stream_id: stream,
                ssn: 7,
                ppid: 0,
                unordered: false,
                begin: false,
                end: false,
                immediate: false,
                payload: Bytes::from_static(b"frag"),
            })
            .emit(&mut fragments);
        }
    }
    // PR-SCTP (RFC 3758 section 3.6): the first fragment of a message and
    // a complete message behind it, then a FORWARD TSN that skips the
    // first (its stream entry names its SSN): the fragment is dropped, the
    // waiting message delivered.
    let mut skip = vec![0, 1];
    for (k, begin, end, ssn) in [(2u32, true, false, 40u16), (4, true, true, 41)] {
        Chunk::Data(DataChunk {
            tsn: cum.wrapping_add(k),
            stream_id: 0,
            ssn,
            ppid: 0,
            unordered: false,
            begin,
            end,
            immediate: false,
            payload: Bytes::from_static(b"prsctp"),
        })
        .emit(&mut skip);
    }
    Chunk::ForwardTsn {
        new_cum_tsn: cum.wrapping_add(3),
        streams: vec![(0, 40), (11, 3), (900, 1)],
    }
    .emit(&mut skip);
    [
        ("issue31-3-spoofed-asconf-source", spoofed),
        ("issue31-4-interleaved-fragment-runs", fragments),
        ("prsctp-forward-tsn-skips-a-partial-message", skip),
    ]
    .into_iter()
    .map(|(name, bytes)| Seed {
        target: "established",
        name: name.into(),
        bytes,
    })
    .collect()
}
