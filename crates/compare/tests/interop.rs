//! Our engine against sctp-proto (the SCTP of the WebRTC stacks), in
//! memory, each in both roles: the handshake, data both ways (one packet,
//! fragmented 64 kB messages), multi-streaming, graceful shutdown started
//! by either side, ours with AUTH and ADD-IP on, and what happens when
//! sctp-proto uses the extensions ours does not have (stream reset,
//! RFC 6525; PR-SCTP, RFC 3758). Each test reads as a message sequence
//! chart: the chunk types of every packet, in order.

use std::time::Duration;

use bytes::Bytes;
use msctp_compare::memory::{Dir, Pair, chunk_types};
use msctp_compare::peer::{Ours, Peer, Setup, Theirs};

const DATA: u8 = 0;
const INIT: u8 = 1;
const INIT_ACK: u8 = 2;
const SACK: u8 = 3;
const ABORT: u8 = 6;
const SHUTDOWN: u8 = 7;
const SHUTDOWN_ACK: u8 = 8;
const ERROR: u8 = 9;
const COOKIE_ECHO: u8 = 10;
const COOKIE_ACK: u8 = 11;
const SHUTDOWN_COMPLETE: u8 = 14;
const RE_CONFIG: u8 = 130;
const FORWARD_TSN: u8 = 192;

const SEC: Duration = Duration::from_secs(1);

fn ours_client(s: &Setup) -> Pair<Ours, Theirs> {
    Pair::new(
        Ours::new(s, false, 1),
        Theirs::new(s, true),
        Duration::from_millis(1),
    )
}

fn theirs_client(s: &Setup) -> Pair<Theirs, Ours> {
    Pair::new(
        Theirs::new(s, false),
        Ours::new(s, true, 2),
        Duration::from_millis(1),
    )
}

/// The packets' chunk types and directions, DATA and SACK left out.
fn control<A: Peer, B: Peer>(p: &Pair<A, B>) -> Vec<(Dir, Vec<u8>)> {
    p.seen
        .iter()
        .filter(|s| s.chunks.iter().any(|c| *c != DATA && *c != SACK))
        .map(|s| (s.dir, s.chunks.clone()))
        .collect()
}

fn no_abort_nor_error<A: Peer, B: Peer>(p: &Pair<A, B>) {
    for s in &p.seen {
        assert!(
            !s.chunks.contains(&ABORT) && !s.chunks.contains(&ERROR),
            "{:?} at {:?}: {:?}\nall: {:?}",
            s.dir,
            s.time,
            s.chunks,
            control(p)
        );
    }
}

/// Byte i of message k: a pattern that tells messages and offsets apart.
fn message(k: usize, len: usize) -> Bytes {
    (0..len)
        .map(|i| (i.wrapping_mul(7) ^ k.wrapping_mul(131)) as u8)
        .collect()
}

fn handshake_chart() -> Vec<(Dir, Vec<u8>)> {
    vec![
        (Dir::Up, vec![INIT]),
        (Dir::Down, vec![INIT_ACK]),
        (Dir::Up, vec![COOKIE_ECHO]),
        (Dir::Down, vec![COOKIE_ACK]),
    ]
}

#[test]
fn ours_connects_to_sctp_proto() {
    let mut p = ours_client(&Setup::default());
    assert!(p.connect(SEC));
    assert_eq!(control(&p), handshake_chart());
    no_abort_nor_error(&p);
}

#[test]
fn sctp_proto_connects_to_ours() {
    let mut p = theirs_client(&Setup::default());
    assert!(p.connect(SEC));
    assert_eq!(control(&p), handshake_chart());
    no_abort_nor_error(&p);
}

/// Ours with its defaults, AUTH (RFC 4895) and ADD-IP (RFC 5061) on: its
/// INIT and INIT ACK carry Random, Chunk List, HMAC Algorithms and
/// Supported Extensions; sctp-proto skips what it does not know (the
/// parameter types' top bits, RFC 9260 section 3.2.1) and the association
/// carries data.
#[test]
fn ours_with_auth_and_addip_meets_sctp_proto_in_both_roles() {
    let ext = Setup {
        extensions: true,
        ..Setup::default()
    };
    let plain = Setup::default();
    let mut a = Pair::new(
        Ours::new(&ext, false, 1),
        Theirs::new(&plain, true),
        Duration::from_millis(1),
    );
    assert!(a.connect(SEC));
    assert_eq!(a.bulk(0, 100_000, 1000, SEC), 100_000);
    no_abort_nor_error(&a);
    let mut b = Pair::new(
        Theirs::new(&plain, false),
        Ours::new(&ext, true, 2),
        Duration::from_millis(1),
    );
    assert!(b.connect(SEC));
    assert_eq!(b.bulk(0, 100_000, 1000, SEC), 100_000);
    no_abort_nor_error(&b);
    // Ours announced AUTH: its INIT ACK is longer than sctp-proto's.
    let init_ack = |s: &[msctp_compare::memory::Seen]| {
        s.iter()
            .find(|x| x.chunks == [INIT_ACK])
            .map(|x| x.packet.len())
    };
    assert!(init_ack(&b.seen) > init_ack(&a.seen));
}

/// Sends `msgs` from one side to the other on `stream`, reads them all,
/// and checks every byte and the order.
fn one_way<A: Peer, B: Peer>(p: &mut Pair<A, B>, up: bool, sizes: &[usize]) {
    let msgs: Vec<Bytes> = sizes
        .iter()
        .enumerate()
        .map(|(k, &n)| message(k, n))
        .collect();
    let mut next = 0;
    let mut got: Vec<(u16, Bytes)> = Vec::new();
    let ok = p.run(10 * SEC, |p| {
        let (tx, rx): (&mut dyn Peer, &mut dyn Peer) = if up {
            (&mut p.client, &mut p.server)
        } else {
            (&mut p.server, &mut p.client)
        };
        while next < msgs.len() && tx.send(3, msgs[next].clone()) {
            next += 1;
        }
        while let Some(m) = rx.recv() {
            got.push(m);
        }
        got.len() == msgs.len()
    });
    assert!(ok, "received {} of {} messages", got.len(), msgs.len());
    for (k, (s, m)) in got.iter().enumerate() {
        assert_eq!(*s, 3);
        assert_eq!(m.len(), msgs[k].len(), "message {k}");
        assert!(*m == msgs[k], "message {k} differs");
    }
}

/// One byte, a packet's worth, one byte more (two fragments), and 64 kB
/// messages (46 fragments at 1452-byte packets), each way.
const SIZES: [usize; 7] = [1, 100, 1424, 1425, 65_536, 3000, 65_536];

#[test]
fn data_both_ways_ours_client() {
    let mut p = ours_client(&Setup::default());
    assert!(p.connect(SEC));
    one_way(&mut p, true, &SIZES);
    one_way(&mut p, false, &SIZES);
    no_abort_nor_error(&p);
    // Every DATA packet fits the path MTU.
    assert!(p.with_chunk(DATA).all(|s| s.packet.len() <= 1452));
}

#[test]
fn data_both_ways_sctp_proto_client() {
    let mut p = theirs_client(&Setup::default());
    assert!(p.connect(SEC));
    one_way(&mut p, true, &SIZES);
    one_way(&mut p, false, &SIZES);
    no_abort_nor_error(&p);
    assert!(p.with_chunk(DATA).all(|s| s.packet.len() <= 1452));
}

/// Messages on eight streams, interleaved: each stream's messages arrive
/// in their order, every stream's number intact (RFC 9260 section 6.5).
fn streams<A: Peer, B: Peer>(p: &mut Pair<A, B>) {
    let n = 400;
    let mut sent = 0;
    let mut got: Vec<Vec<Bytes>> = vec![Vec::new(); 8];
    let ok = p.run(10 * SEC, |p| {
        while sent < n {
            let s = (sent % 8) as u16;
            if !p.client.send(s, message(sent, 200 + sent * 37 % 3000)) {
                break;
            }
            sent += 1;
        }
        while let Some((s, m)) = p.server.recv() {
            got[s as usize].push(m);
        }
        got.iter().map(Vec::len).sum::<usize>() == n
    });
    assert!(ok);
    for (s, ms) in got.iter().enumerate() {
        assert_eq!(ms.len(), n / 8, "stream {s}");
        for (j, m) in ms.iter().enumerate() {
            let k = j * 8 + s;
            assert!(
                *m == message(k, 200 + k * 37 % 3000),
                "stream {s} message {j}"
            );
        }
    }
    no_abort_nor_error(p);
}

#[test]
fn multistreaming_ours_to_sctp_proto() {
    let mut p = ours_client(&Setup::default());
    assert!(p.connect(SEC));
    streams(&mut p);
}

#[test]
fn multistreaming_sctp_proto_to_ours() {
    let mut p = theirs_client(&Setup::default());
    assert!(p.connect(SEC));
    streams(&mut p);
}

fn shutdown_chart() -> Vec<(Dir, Vec<u8>)> {
    vec![
        (Dir::Up, vec![SHUTDOWN]),
        (Dir::Down, vec![SHUTDOWN_ACK]),
        (Dir::Up, vec![SHUTDOWN_COMPLETE]),
    ]
}

#[test]
fn ours_shuts_down_an_association_with_sctp_proto() {
    let mut p = ours_client(&Setup::default());
    assert!(p.connect(SEC));
    assert_eq!(p.bulk(0, 50_000, 1424, SEC), 50_000);
    p.seen.clear();
    assert!(p.shutdown(SEC), "both sides closed");
    assert_eq!(control(&p), shutdown_chart());
}

/// A 32-bit field of a packet at `offset` (big-endian).
fn be32(packet: &[u8], offset: usize) -> u32 {
    u32::from_be_bytes(packet[offset..offset + 4].try_into().unwrap())
}

/// sctp-proto shuts down after sending data to ours, which sent none.
/// Its SHUTDOWN's Cumulative TSN Ack must be the last TSN it received in
/// sequence (RFC 9260 section 3.3.8), here ours' initial TSN less one;
/// sctp-proto puts there the last of its own TSNs that ours acknowledged
/// (its send-side cumulative ack point). Ours reads a cumulative ack
/// beyond what it sent as a protocol violation (as Linux does) and
/// aborts; one that falls behind in serial number arithmetic (RFC 1982)
/// is taken as old and the shutdown completes. Which one happens depends
/// on both sides' random initial TSNs: about half the associations that
/// sctp-proto shuts down end in an ABORT. Their side is wrong.
#[test]
fn sctp_proto_shutdown_acknowledges_its_own_tsn_not_ours() {
    let mut p = theirs_client(&Setup::default());
    assert!(p.connect(SEC));
    assert_eq!(p.bulk(0, 50_000, 1424, SEC), 50_000);
    let init_ack = p.seen.iter().find(|s| s.chunks == [INIT_ACK]).unwrap();
    let ours_initial_tsn = be32(&init_ack.packet, 12 + 16);
    let init = p.seen.iter().find(|s| s.chunks == [INIT]).unwrap();
    let their_initial_tsn = be32(&init.packet, 12 + 16);
    let their_last_tsn = p
        .with_chunk(DATA)
        .filter(|s| s.dir == Dir::Up)
        .map(|s| be32(&s.packet, 12 + 4))
        .max_by_key(|t| t.wrapping_sub(their_initial_tsn))
        .unwrap();
    p.seen.clear();
    let done = p.shutdown(SEC);
    let shutdown = p.seen.iter().find(|s| s.chunks == [SHUTDOWN]).unwrap();
    let cum = be32(&shutdown.packet, 12 + 4);
    // One of its own TSNs: its initial TSN less one up to the last it sent.
    let own = cum.wrapping_sub(their_initial_tsn.wrapping_sub(1));
    assert!(
        own <= their_last_tsn.wrapping_sub(their_initial_tsn.wrapping_sub(1)),
        "sctp-proto's SHUTDOWN acknowledges {cum}, not one of its own TSNs"
    );
    assert_ne!(cum, ours_initial_tsn.wrapping_sub(1), "what RFC 9260 asks");
    let beyond = (cum.wrapping_sub(ours_initial_tsn.wrapping_sub(1)) as i32) > 0;
    if beyond {
        let abort = p.with_chunk(ABORT).next().expect("ours aborted");
        assert_eq!(abort.dir, Dir::Down);
        // Protocol Violation (RFC 9260 section 3.3.10.13).
        assert_eq!(be32(&abort.packet, 16) >> 16, 13);
        assert!(!p.seen.iter().any(|s| s.chunks == [SHUTDOWN_ACK]));
    } else {
        assert!(done);
        assert_eq!(control(&p), shutdown_chart());
    }
}

/// Ours shuts down with data still queued: the data is delivered first
/// and SHUTDOWN follows (RFC 9260 section 9.2: SHUTDOWN-PENDING until all
/// outstanding data is acknowledged).
#[test]
fn ours_delivers_its_queued_data_before_shutdown() {
    let mut p = ours_client(&Setup::default());
    assert!(p.connect(SEC));
    let mut queued = 0;
    while queued < 200_000 && p.client.send(0, message(queued, 1000)) {
        queued += 1000;
    }
    p.client.shutdown(p.now);
    let mut got = 0;
    assert!(p.run(10 * SEC, |p| {
        while let Some((_, m)) = p.server.recv() {
            got += m.len();
        }
        p.client.closed() && p.server.closed()
    }));
    assert_eq!(got, queued);
    let last_data = p.seen.iter().rposition(|s| s.chunks.contains(&DATA));
    let first_shutdown = p.seen.iter().position(|s| s.chunks.contains(&SHUTDOWN));
    assert!(last_data < first_shutdown);
}

/// sctp-proto asked to shut down with data queued but not yet sent sends
/// SHUTDOWN at once (it waits only for the data in flight): the queued
/// messages are never sent, though RFC 9260 section 9.2 keeps the
/// endpoint in SHUTDOWN-PENDING until all its outstanding data is
/// acknowledged. Their side is wrong.
#[test]
fn sctp_proto_shuts_down_before_sending_its_queued_data() {
    let mut p = theirs_client(&Setup::default());
    assert!(p.connect(SEC));
    let mut queued = 0;
    while queued < 200_000 && p.client.send(0, message(queued, 1000)) {
        queued += 1000;
    }
    assert_eq!(queued, 200_000);
    p.seen.clear();
    p.client.shutdown(p.now);
    let mut got = 0;
    p.run(10 * SEC, |p| {
        while let Some((_, m)) = p.server.recv() {
            got += m.len();
        }
        p.client.closed() && p.server.closed()
    });
    assert_eq!(p.seen[0].chunks, [SHUTDOWN], "{:?}", control(&p));
    assert!(p.with_chunk(DATA).next().is_none());
    assert_eq!(got, 0);
}

/// sctp-proto resets a stream (RFC 6525 Outgoing SSN Reset Request in a
/// RE-CONFIG chunk) towards ours, which has no stream reset and did not
/// list RE-CONFIG in its Supported Extensions (RFC 5061 section 4.2.7).
/// sctp-proto sends RE-CONFIG all the same, and again on its timer. Ours
/// skips the chunk without a report, as its type's top bits, 10, ask
/// (RFC 9260 section 3.2), and the association carries on: data still
/// flows on the other streams.
#[test]
fn sctp_proto_stream_reset_towards_ours_is_skipped() {
    let mut p = theirs_client(&Setup::default());
    assert!(p.connect(SEC));
    assert_eq!(p.bulk(1, 10_000, 1000, SEC), 10_000);
    let init_ack = p.seen.iter().find(|s| s.chunks == [INIT_ACK]).unwrap();
    assert!(!supported_extensions(&init_ack.packet).contains(&RE_CONFIG));
    p.seen.clear();
    let a = p.client.association().unwrap();
    a.stream(1).unwrap().close().unwrap();
    p.run(5 * SEC, |_| false);
    let c = control(&p);
    let reconfigs = c
        .iter()
        .filter(|(d, ch)| *d == Dir::Up && ch.contains(&RE_CONFIG))
        .count();
    assert!(reconfigs >= 2, "sent and retransmitted: {c:?}");
    assert!(
        c.iter().all(|(d, _)| *d == Dir::Up),
        "ours answered nothing but SACKs: {c:?}"
    );
    assert!(!p.client.closed() && !p.server.closed());
    assert_eq!(p.bulk(2, 10_000, 1000, SEC), 10_000);
}

/// PR-SCTP (RFC 3758) between the two engines: ours announces
/// Forward-TSN-Supported (section 3.3.1) in its INIT ACK, so a partially
/// reliable stream of sctp-proto's (no retransmissions, RFC 7496's
/// limited-retransmissions policy at 0) abandons what the network loses
/// and sends FORWARD TSN; ours moves its cumulative TSN past the
/// abandoned messages, delivers the others, and the association carries
/// on. (Before ours had PR-SCTP, the same stream fell back to full
/// reliability: every message arrived and no FORWARD TSN was sent.)
///
/// ```text
///   sctp-proto (client)                 ours (server)
///   INIT [Supported Ext: RE-CONFIG, FORWARD-TSN] ->
///                 <- INIT ACK [Forward-TSN-Supported]
///   DATA 1..n, every fifth lost once ->
///   FORWARD TSN (new cum TSN past the lost) ->
///                 <- SACK (cum TSN ack moved on)
/// ```
#[test]
fn sctp_proto_partial_reliability_towards_ours_abandons_with_forward_tsn() {
    let mut p = theirs_client(&Setup::default());
    assert!(p.connect(SEC));
    let init_ack = p.seen.iter().find(|s| s.chunks == [INIT_ACK]).unwrap();
    assert!(
        has_param(&init_ack.packet, 0xC000),
        "ours announces Forward-TSN-Supported"
    );
    let a = p.client.association().unwrap();
    let mut s = a
        .open_stream(4, sctp_proto::PayloadProtocolIdentifier::Binary)
        .unwrap();
    s.set_reliability_params(false, sctp_proto::ReliabilityType::Rexmit, 0)
        .unwrap();
    // Lose every fifth DATA packet from sctp-proto once.
    let mut k = 0;
    p.filter = Some(Box::new(move |d, pkt| {
        if d == Dir::Up && chunk_types(pkt).contains(&DATA) {
            k += 1;
            return k % 5 != 0;
        }
        true
    }));
    let got = p.bulk(4, 100_000, 1000, 10 * SEC);
    assert!(
        p.with_chunk(FORWARD_TSN).next().is_some(),
        "sctp-proto abandoned the lost messages with FORWARD TSN"
    );
    assert!(
        (60_000..100_000).contains(&got),
        "the messages not lost arrive, the lost ones are skipped: {got}"
    );
    p.filter = None;
    assert!(!p.client.closed() && !p.server.closed());
    assert_eq!(
        p.bulk(2, 10_000, 1000, SEC),
        10_000,
        "the association goes on"
    );
}

/// Whether the packet's first chunk (INIT or INIT ACK) carries a
/// parameter of type `t`.
fn has_param(packet: &[u8], t: u16) -> bool {
    let mut at = 12 + 4 + 16;
    let end = 12 + u16::from_be_bytes([packet[14], packet[15]]) as usize;
    while at + 4 <= end.min(packet.len()) {
        let ty = u16::from_be_bytes([packet[at], packet[at + 1]]);
        let len = u16::from_be_bytes([packet[at + 2], packet[at + 3]]) as usize;
        if ty == t {
            return true;
        }
        if len < 4 {
            break;
        }
        at += len.next_multiple_of(4);
    }
    false
}

/// The chunk types listed in the Supported Extensions parameter (0x8008,
/// RFC 5061 section 4.2.7) of the packet's first chunk (INIT or INIT
/// ACK); empty without one.
fn supported_extensions(packet: &[u8]) -> Vec<u8> {
    let mut at = 12 + 4 + 16;
    let end = 12 + u16::from_be_bytes([packet[14], packet[15]]) as usize;
    while at + 4 <= end.min(packet.len()) {
        let t = u16::from_be_bytes([packet[at], packet[at + 1]]);
        let len = u16::from_be_bytes([packet[at + 2], packet[at + 3]]) as usize;
        if len < 4 {
            break;
        }
        if t == 0x8008 {
            return packet[at + 4..at + len].to_vec();
        }
        at += len.next_multiple_of(4);
    }
    Vec::new()
}

#[test]
fn sctp_proto_lists_re_config_and_forward_tsn_in_its_init() {
    let mut p = theirs_client(&Setup::default());
    assert!(p.connect(SEC));
    let init = p.seen.iter().find(|s| s.chunks == [INIT]).unwrap();
    assert_eq!(
        supported_extensions(&init.packet),
        vec![RE_CONFIG, FORWARD_TSN]
    );
}
