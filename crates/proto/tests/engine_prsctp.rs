//! Partial reliability (RFC 3758 with the policies of RFC 7496) and
//! SACK-IMMEDIATELY (RFC 7053) between two engines.
//!
//! Every test is a chart between A (a1) and B (b1) over one path with a
//! 20 ms one-way delay: A sends messages with a policy, the path or a
//! filter loses some of them, and the test reads what crossed the wire and
//! what B's application got.
//!
//! ```text
//!   A (a1)                               B (b1)
//!     |--- DATA (policy) ---X              |   lost
//!     |   ... the policy abandons it ...    |
//!     |--- FORWARD TSN (new cum TSN) ------>|   B skips it
//!     |<-------------------------- SACK ----|
//!     |--- DATA (later messages) ---------->|   delivered in order
//! ```

mod common;

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use common::*;
use msctp_proto::wire::{Chunk, DataChunk, PacketRepr};
use msctp_proto::{
    AssocId, AssociationConfig, EndpointConfig, PrPolicy, SendError, SendOptions, Time,
};

const FORWARD_TSN: u8 = 0xc0;

fn a1() -> IpAddr {
    ip("10.0.0.1")
}
fn b1() -> IpAddr {
    ip("10.1.0.1")
}

fn config(port: u16, f: impl Fn(&mut AssociationConfig)) -> EndpointConfig {
    let mut c = EndpointConfig::new(port);
    c.association = AssociationConfig {
        rto_min: Duration::from_millis(200),
        rto_initial: Duration::from_millis(500),
        ..Default::default()
    };
    f(&mut c.association);
    c
}

/// A and B associated over a 20 ms path, heartbeats and first SACKs done.
fn associated(
    fa: impl Fn(&mut AssociationConfig),
    fb: impl Fn(&mut AssociationConfig),
) -> (Net, AssocId, AssocId) {
    let mut n = Net::new(
        config(5000, fa),
        &[a1()],
        config(6000, fb),
        &[b1()],
        Link::new(Duration::from_millis(20)),
        7,
    );
    let (a, b) = n.connect(Duration::from_secs(2));
    n.run_for(Duration::from_millis(500));
    (n, a, b)
}

/// The chunks of one packet.
fn chunks(bytes: &Bytes) -> Vec<Chunk> {
    PacketRepr::parse(bytes)
        .map(|p| p.chunks)
        .unwrap_or_default()
}

/// The DATA chunks A put on the wire, with the time each left.
fn data_sent(n: &Net) -> Vec<(Time, DataChunk)> {
    n.seen
        .iter()
        .filter(|s| s.from == Side::A)
        .flat_map(|s| {
            chunks(&s.bytes).into_iter().filter_map(move |c| match c {
                Chunk::Data(d) => Some((s.time, d)),
                _ => None,
            })
        })
        .collect()
}

/// A FORWARD TSN A sent.
#[derive(Debug)]
struct SentForwardTsn {
    new_cum_tsn: u32,
    streams: Vec<(u16, u16)>,
    /// The packet was lost.
    dropped: bool,
}

/// The FORWARD TSNs A sent.
fn forward_tsns(n: &Net) -> Vec<SentForwardTsn> {
    n.seen
        .iter()
        .filter(|s| s.from == Side::A)
        .flat_map(|s| {
            chunks(&s.bytes).into_iter().filter_map(move |c| match c {
                Chunk::ForwardTsn {
                    new_cum_tsn,
                    streams,
                } => Some(SentForwardTsn {
                    new_cum_tsn,
                    streams,
                    dropped: s.dropped,
                }),
                _ => None,
            })
        })
        .collect()
}

/// Message `i`: its index in its first 4 bytes, then filler.
fn message(i: u32, len: usize) -> Bytes {
    let mut v = vec![0x5a; len.max(4)];
    v[..4].copy_from_slice(&i.to_be_bytes());
    Bytes::from(v)
}

fn index_of(data: &[u8]) -> u32 {
    u32::from_be_bytes(data[..4].try_into().unwrap())
}

/// Every message B's application has read so far (index, length).
fn read_all(n: &mut Net, b: AssocId) -> Vec<(u32, usize)> {
    let y = n.b.association_mut(b).unwrap();
    std::iter::from_fn(|| y.recv())
        .map(|m| (index_of(&m.data), m.data.len()))
        .collect()
}

fn send(n: &mut Net, a: AssocId, i: u32, len: usize, policy: PrPolicy) -> Result<(), SendError> {
    let now = n.now;
    let opts = SendOptions {
        policy,
        ..SendOptions::default()
    };
    n.a.association_mut(a)
        .unwrap()
        .send_with(now, 0, 0, message(i, len), &opts)
}

/// ```text
///   A                                   B
///     | path cut                         |
///     |--- DATA m0..m4 (lifetime 300 ms) X
///     |--- T3: retransmissions ----------X   (still within the lifetime)
///     |    lifetime over: m0..m4 abandoned
///     | path back                        |
///     |--- FORWARD TSN (cum = m4, SSN 4) ->|  B skips m0..m4
///     |--- DATA m5..m9 ------------------->|  delivered in order
/// ```
/// No chunk of a message leaves A after its lifetime ran out, B never gets
/// m0..m4, and m5..m9 arrive in order.
#[test]
fn a_lifetime_expires_while_the_path_is_cut() {
    let (mut n, a, b) = associated(|_| {}, |_| {});
    let lifetime = Duration::from_millis(300);
    n.set_up(a1(), b1(), false);
    let start = n.now;
    for i in 0..5 {
        send(&mut n, a, i, 300, PrPolicy::Lifetime(lifetime)).unwrap();
    }
    n.run_for(Duration::from_millis(1500));
    n.set_up(a1(), b1(), true);
    n.run_for(Duration::from_secs(3));
    for i in 5..10 {
        send(&mut n, a, i, 300, PrPolicy::Lifetime(lifetime)).unwrap();
    }
    n.run_for(Duration::from_secs(1));

    let got = read_all(&mut n, b);
    assert_eq!(
        got.iter().map(|m| m.0).collect::<Vec<_>>(),
        vec![5, 6, 7, 8, 9],
        "only the later messages, in order"
    );
    let sent = data_sent(&n);
    for (t, d) in &sent {
        let i = index_of(&d.payload);
        if i < 5 {
            assert!(
                *t <= start + lifetime,
                "m{i} left at {t:?}, after its lifetime"
            );
        }
    }
    let retransmitted = sent.iter().filter(|(t, _)| *t > start).count();
    assert!(
        retransmitted > 5,
        "m0..m4 were retransmitted within their lifetime"
    );
    let ftsn = forward_tsns(&n);
    let delivered = ftsn
        .iter()
        .find(|f| !f.dropped)
        .expect("a FORWARD TSN arrived");
    let last_tsn = sent
        .iter()
        .find(|(_, d)| index_of(&d.payload) == 4)
        .unwrap()
        .1
        .tsn;
    assert_eq!(delivered.new_cum_tsn, last_tsn, "it skips up to m4");
    assert_eq!(delivered.streams, vec![(0, 4)], "stream 0 up to SSN 4");
    let x = n.a.association(a).unwrap().stats();
    assert_eq!(x.abandoned.lifetime.sent, 5);
    assert_eq!(
        n.b.association(b).unwrap().stats().forward_tsns_received as usize,
        ftsn.iter().filter(|f| !f.dropped).count()
    );
    assert!(n.a.association(a).unwrap().check_accounting().is_ok());
    assert_eq!(n.a.association(a).unwrap().send_buffered(), 0);
}

/// A message not yet sent when its lifetime ends is dropped unsent: no
/// TSN, no FORWARD TSN, and the stream's sequence has no hole (the next
/// message is delivered).
#[test]
fn an_unsent_message_that_expires_leaves_no_hole() {
    let (mut n, a, b) = associated(|_| {}, |_| {});
    n.set_up(a1(), b1(), false);
    // A large reliable message fills the window; the short-lived one waits
    // behind it and expires unsent.
    send(&mut n, a, 0, 20_000, PrPolicy::Reliable).unwrap();
    send(
        &mut n,
        a,
        1,
        300,
        PrPolicy::Lifetime(Duration::from_millis(50)),
    )
    .unwrap();
    send(&mut n, a, 2, 300, PrPolicy::Reliable).unwrap();
    n.run_for(Duration::from_millis(400));
    n.set_up(a1(), b1(), true);
    n.run_for(Duration::from_secs(5));
    let got: Vec<u32> = read_all(&mut n, b).iter().map(|m| m.0).collect();
    assert_eq!(got, vec![0, 2]);
    let x = n.a.association(a).unwrap().stats();
    assert_eq!(x.abandoned.lifetime.unsent, 1);
    assert_eq!(x.abandoned.lifetime.sent, 0);
    assert!(forward_tsns(&n).is_empty(), "nothing sent was abandoned");
}

/// ```text
///   A                                    B
///     |--- DATA m1 (3 fragments, max 1 rtx) -> middle one lost, twice
///     |--- DATA m1 fragment 2 (rtx 1) ---X
///     |    m1 abandoned: all 3 fragments    |
///     |--- FORWARD TSN (cum = m1's last) -->|  B drops m1's fragments
///     |--- DATA m2 ------------------------>|  delivered
/// ```
#[test]
fn limited_retransmissions_abandon_a_fragmented_message() {
    let (mut n, a, b) = associated(|_| {}, |_| {});
    n.filter = Some(Box::new(move |from, _, _, pkt| {
        let middle = |c: &Chunk| matches!(c, Chunk::Data(d) if !d.begin && !d.end);
        if from == Side::A && chunks(&Bytes::copy_from_slice(pkt)).iter().any(middle) {
            return Verdict::Drop;
        }
        Verdict::Pass
    }));
    send(&mut n, a, 0, 300, PrPolicy::Reliable).unwrap();
    // Three fragments (path MTU 1452); the middle one never arrives.
    send(&mut n, a, 1, 3500, PrPolicy::MaxRetransmissions(1)).unwrap();
    send(&mut n, a, 2, 300, PrPolicy::Reliable).unwrap();
    n.run_for(Duration::from_secs(5));
    let got: Vec<(u32, usize)> = read_all(&mut n, b);
    assert_eq!(got, vec![(0, 300), (2, 300)]);
    let sent = data_sent(&n);
    let middle: Vec<_> = sent.iter().filter(|(_, d)| !d.begin && !d.end).collect();
    assert_eq!(
        middle.len(),
        2,
        "the lost fragment: sent once, retransmitted once"
    );
    let x = n.a.association(a).unwrap().stats();
    assert_eq!(x.abandoned.retransmissions.sent, 1);
    let ftsn = forward_tsns(&n);
    assert!(!ftsn.is_empty());
    let last_fragment = sent
        .iter()
        .filter(|(_, d)| d.end && d.payload.len() < 3500)
        .map(|(_, d)| d.tsn);
    let m1_end = last_fragment
        .into_iter()
        .find(|&t| sent.iter().any(|(_, d)| d.tsn == t && !d.begin))
        .unwrap();
    assert_eq!(
        ftsn[0].new_cum_tsn, m1_end,
        "the FORWARD TSN covers every fragment of m1"
    );
    let y = n.b.association(b).unwrap();
    assert_eq!(y.cumulative_tsn_received(), m1_end + 1);
}

/// ```text
///   A (send buffer 4000 bytes)           B
///     | path cut                         |
///     |--- m0..m3, priority 5 -----------X
///     | send m4, priority 9: buffer full (nothing of lower priority)
///     | send m5, priority 1: m0 (oldest of priority 5) abandoned
///     | path back                        |
///     |--- FORWARD TSN (skips m0) ------->|
///     |--- m1, m2, m3, m5 --------------->|  delivered in order
/// ```
#[test]
fn priority_abandons_lower_priority_messages_when_the_buffer_is_full() {
    let (mut n, a, b) = associated(|c| c.send_buffer = 4000, |_| {});
    n.set_up(a1(), b1(), false);
    for i in 0..4 {
        send(&mut n, a, i, 1000, PrPolicy::Priority(5)).unwrap();
    }
    n.run_for(Duration::from_millis(50));
    assert_eq!(
        send(&mut n, a, 4, 1000, PrPolicy::Priority(9)),
        Err(SendError::BufferFull),
        "no message of lower priority to give way"
    );
    assert_eq!(
        send(&mut n, a, 4, 1000, PrPolicy::Priority(5)),
        Err(SendError::BufferFull),
        "equal priority does not give way"
    );
    send(&mut n, a, 5, 1000, PrPolicy::Priority(1)).unwrap();
    let x = n.a.association(a).unwrap().stats();
    assert_eq!(x.abandoned.priority.sent + x.abandoned.priority.unsent, 1);
    n.run_for(Duration::from_millis(300));
    n.set_up(a1(), b1(), true);
    n.run_for(Duration::from_secs(5));
    let got: Vec<u32> = read_all(&mut n, b).iter().map(|m| m.0).collect();
    assert_eq!(got, vec![1, 2, 3, 5]);
    assert!(!forward_tsns(&n).is_empty());
}

/// ```text
///   A                                    B
///     |--- DATA m1 (no retransmission) --X
///     |    m1 abandoned at its T3        |
///     |--- FORWARD TSN -----------------X   lost too
///     |<-------- SACK (cum before m1) ---|   (for m2)
///     |--- FORWARD TSN again ----------->|   B skips m1
/// ```
#[test]
fn a_lost_forward_tsn_is_sent_again() {
    let (mut n, a, b) = associated(|_| {}, |_| {});
    let mut lost_data = false;
    let mut lost_ftsn = false;
    n.filter = Some(Box::new(move |from, _, _, pkt| {
        if from != Side::A {
            return Verdict::Pass;
        }
        let types = chunk_types(pkt);
        if !lost_ftsn && types.contains(&FORWARD_TSN) {
            lost_ftsn = true;
            return Verdict::Drop;
        }
        if !lost_data && types.contains(&0) {
            lost_data = true;
            return Verdict::Drop;
        }
        Verdict::Pass
    }));
    send(&mut n, a, 1, 300, PrPolicy::MaxRetransmissions(0)).unwrap();
    n.run_for(Duration::from_millis(100));
    send(&mut n, a, 2, 300, PrPolicy::Reliable).unwrap();
    n.run_for(Duration::from_secs(5));
    let ftsn = forward_tsns(&n);
    assert!(ftsn.len() >= 2, "{ftsn:?}");
    assert!(ftsn[0].dropped, "the first was lost");
    assert!(
        ftsn.iter().skip(1).any(|f| !f.dropped),
        "a later one arrived"
    );
    let got: Vec<u32> = read_all(&mut n, b).iter().map(|m| m.0).collect();
    assert_eq!(got, vec![2]);
    assert_eq!(n.a.association(a).unwrap().send_buffered(), 0);
}

/// A peer that did not announce PR-SCTP gets no FORWARD TSN: every
/// message is reliable whatever its policy, and all arrive.
#[test]
fn a_peer_without_pr_sctp_gets_no_forward_tsn() {
    let (mut n, a, b) = associated(|_| {}, |c| c.pr_sctp = false);
    assert!(!n.a.association(a).unwrap().pr_sctp());
    n.set_up(a1(), b1(), false);
    for i in 0..5 {
        send(
            &mut n,
            a,
            i,
            300,
            PrPolicy::Lifetime(Duration::from_millis(100)),
        )
        .unwrap();
    }
    n.run_for(Duration::from_millis(1500));
    n.set_up(a1(), b1(), true);
    n.run_for(Duration::from_secs(5));
    let got: Vec<u32> = read_all(&mut n, b).iter().map(|m| m.0).collect();
    assert_eq!(got, vec![0, 1, 2, 3, 4]);
    assert!(n.seen.iter().all(|s| !s.chunks.contains(&FORWARD_TSN)));
    assert_eq!(n.a.association(a).unwrap().stats().abandoned.total(), 0);
}

/// Ordered messages that arrived complete behind an abandoned one are
/// delivered once the FORWARD TSN skips it, in order; a stream not named
/// in the FORWARD TSN is not disturbed.
#[test]
fn messages_waiting_behind_an_abandoned_one_are_delivered_in_order() {
    let (mut n, a, b) = associated(|_| {}, |_| {});
    let mut dropped = false;
    n.filter = Some(Box::new(move |from, _, _, pkt| {
        if from == Side::A && !dropped && chunk_types(pkt).contains(&0) {
            dropped = true;
            return Verdict::Drop;
        }
        Verdict::Pass
    }));
    send(&mut n, a, 0, 300, PrPolicy::MaxRetransmissions(0)).unwrap();
    n.run_for(Duration::from_millis(1));
    for i in 1..4 {
        send(&mut n, a, i, 300, PrPolicy::Reliable).unwrap();
    }
    n.run_for(Duration::from_millis(100));
    assert!(read_all(&mut n, b).is_empty(), "m1..m3 wait for m0");
    n.run_for(Duration::from_secs(3));
    let got: Vec<u32> = read_all(&mut n, b).iter().map(|m| m.0).collect();
    assert_eq!(got, vec![1, 2, 3]);
}

/// The times B sent SACKs.
fn sacks_from_b(n: &Net) -> Vec<Time> {
    n.seen
        .iter()
        .filter(|s| s.from == Side::B && s.chunks.contains(&3))
        .map(|s| s.time)
        .collect()
}

/// ```text
///   A (sack_immediately)                 B (delayed SACK 200 ms)
///     |--- DATA (last before the queue empties, I bit) ->|
///     |<----------------------------- SACK at once ------|
/// ```
/// Without the switch the same DATA waits for B's delayed-SACK timer.
#[test]
fn the_last_data_before_the_queue_empties_asks_for_an_immediate_sack() {
    for on in [false, true] {
        let (mut n, a, _b) = associated(|c| c.sack_immediately = on, |_| {});
        // B acknowledges its first DATA at once whatever the I bit says.
        send(&mut n, a, 99, 300, PrPolicy::Reliable).unwrap();
        n.run_for(Duration::from_millis(500));
        let before = n.seen.len();
        let t0 = n.now;
        send(&mut n, a, 0, 300, PrPolicy::Reliable).unwrap();
        n.run_for(Duration::from_millis(500));
        let data: Vec<DataChunk> = n.seen[before..]
            .iter()
            .filter(|s| s.from == Side::A)
            .flat_map(|s| chunks(&s.bytes))
            .filter_map(|c| match c {
                Chunk::Data(d) => Some(d),
                _ => None,
            })
            .collect();
        // (Without the I bit the delayed SACK comes after A's 200 ms
        // RTO: a spurious retransmission follows.)
        assert_eq!(data[0].immediate, on);
        let sack = sacks_from_b(&n).into_iter().find(|t| *t > t0).unwrap();
        let wait = sack - (t0 + Duration::from_millis(20));
        if on {
            assert!(wait < Duration::from_millis(5), "SACK after {wait:?}");
            assert_eq!(n.a.association(a).unwrap().stats().sack_immediately_sent, 2);
        } else {
            assert!(wait >= Duration::from_millis(199), "SACK after {wait:?}");
        }
    }
}

/// While a move is pending, every packet of DATA carries the I bit, so
/// that the old path's data is acknowledged at once.
#[test]
fn data_sent_while_a_move_is_pending_asks_for_immediate_sacks() {
    let (mut n, a, _b) = associated(|c| c.sack_immediately = true, |_| {});
    n.a.association_mut(a).unwrap().set_move_pending(true);
    let before = n.seen.len();
    for i in 0..20 {
        send(&mut n, a, i, 1000, PrPolicy::Reliable).unwrap();
    }
    n.run_for(Duration::from_millis(500));
    let mut per_packet: HashMap<usize, bool> = HashMap::new();
    for (k, s) in n.seen[before..].iter().enumerate() {
        if s.from != Side::A {
            continue;
        }
        let data: Vec<DataChunk> = chunks(&s.bytes)
            .into_iter()
            .filter_map(|c| match c {
                Chunk::Data(d) => Some(d),
                _ => None,
            })
            .collect();
        if let Some(last) = data.last() {
            per_packet.insert(k, last.immediate);
        }
    }
    assert!(per_packet.len() > 5);
    assert!(per_packet.values().all(|&i| i), "{per_packet:?}");
}

/// ```text
///   A (RTO.Min 1 s)                      B
///     |--- DATA m0 (lifetime 50 ms) ---X  |   lost, never marked
///     |    ... 50 ms: m0's lifetime over, its chunk still in flight ...
///     |--- FORWARD TSN (cum = m0) ------->|   at the next packet (m1's),
///     |--- DATA m1 (reliable) ----------->|   long before T3-rtx (1 s)
///     |<------------------------- SACK ---|
/// ```
/// RFC 7496 section 3.1: a timed-reliability message is abandoned when its
/// lifetime ends, also while its chunk is in flight and not marked for
/// retransmission; RFC 3758 section 3.5 rule A1 alone would wait for the
/// T3-rtx expiry. The FORWARD TSN leaves with the next packet, B skips m0
/// and gets m1 without waiting for the timer.
#[test]
fn an_expired_chunk_in_flight_is_abandoned_before_its_timer() {
    let slow_rto = |c: &mut AssociationConfig| {
        c.rto_min = Duration::from_secs(1);
        c.rto_initial = Duration::from_secs(1);
    };
    let (mut n, a, b) = associated(slow_rto, |_| {});
    let mut lost = false;
    n.filter = Some(Box::new(move |from, _, _, pkt| {
        if from == Side::A && !lost && chunk_types(pkt).contains(&0) {
            lost = true;
            return Verdict::Drop;
        }
        Verdict::Pass
    }));
    let start = n.now;
    send(
        &mut n,
        a,
        0,
        300,
        PrPolicy::Lifetime(Duration::from_millis(50)),
    )
    .unwrap();
    n.run_for(Duration::from_millis(100));
    send(&mut n, a, 1, 300, PrPolicy::Reliable).unwrap();
    n.run_for(Duration::from_millis(200));

    let first_ftsn = n
        .seen
        .iter()
        .find(|s| s.from == Side::A && chunk_types(&s.bytes).contains(&FORWARD_TSN))
        .map(|s| s.time)
        .expect("a FORWARD TSN was sent");
    assert!(
        first_ftsn < start + Duration::from_millis(150),
        "FORWARD TSN at {:?} after the send, expected with m1 at 100 ms (T3-rtx is 1 s)",
        first_ftsn - start
    );
    let m0_tsn = data_sent(&n)
        .iter()
        .find(|(_, d)| index_of(&d.payload) == 0)
        .map(|(_, d)| d.tsn)
        .unwrap();
    let ftsn = forward_tsns(&n);
    assert_eq!(ftsn[0].new_cum_tsn, m0_tsn, "it skips m0");
    assert_eq!(ftsn[0].streams, vec![(0, 0)], "stream 0, SSN 0");
    let retransmitted = data_sent(&n)
        .iter()
        .filter(|(_, d)| index_of(&d.payload) == 0)
        .count();
    assert_eq!(retransmitted, 1, "m0 was never sent again");
    let got: Vec<u32> = read_all(&mut n, b).iter().map(|m| m.0).collect();
    assert_eq!(got, vec![1], "B has m1 within 300 ms, never m0");
    let x = n.a.association(a).unwrap().stats();
    assert_eq!(x.abandoned.lifetime.sent, 1);
    assert!(n.a.association(a).unwrap().check_accounting().is_ok());
}
