//! I-DATA with interleaving and the stream schedulers (RFC 8260) between
//! two engines.
//!
//! Every test is a chart between A (a1) and B (b1) over one path with a
//! 20 ms one-way delay: A queues messages on several streams, and the test
//! reads the chunks that crossed the wire and what B's application got.
//!
//! ```text
//!   A (a1)                                  B (b1)
//!     |--- INIT [Supported Ext: I-DATA] ------>|
//!     |<-- INIT ACK [Supported Ext: I-DATA] ---|
//!     |--- I-DATA s1 MID 0 FSN 0 (B) --------->|  large message, first part
//!     |--- I-DATA s2 MID 0 (B E) ------------->|  small message: delivered
//!     |--- I-DATA s1 MID 0 FSN 1 ... (E) ----->|  large message completes
//! ```

mod common;

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use common::*;
use msctp_proto::wire::{Chunk, IDataChunk, IForwardTsnChunk, PacketRepr};
use msctp_proto::{
    AssocId, AssociationConfig, EndpointConfig, PrPolicy, SendOptions, StreamScheduler,
};

const DATA: u8 = 0x00;
const I_DATA: u8 = 0x40;

fn a1() -> IpAddr {
    ip("10.0.0.1")
}
fn b1() -> IpAddr {
    ip("10.1.0.1")
}

fn config(port: u16, f: &dyn Fn(&mut AssociationConfig)) -> EndpointConfig {
    let mut c = EndpointConfig::new(port);
    c.association = AssociationConfig {
        rto_min: Duration::from_millis(200),
        rto_initial: Duration::from_millis(500),
        ..Default::default()
    };
    f(&mut c.association);
    c
}

/// A and B associated over a 20 ms path; both with `f` applied.
fn associated(f: &dyn Fn(&mut AssociationConfig)) -> (Net, AssocId, AssocId) {
    let mut n = Net::new(
        config(5000, f),
        &[a1()],
        config(6000, f),
        &[b1()],
        Link::new(Duration::from_millis(20)),
        7,
    );
    let (a, b) = n.connect(Duration::from_secs(2));
    n.run_for(Duration::from_millis(500));
    n.seen.clear();
    (n, a, b)
}

fn interleaving(scheduler: StreamScheduler) -> impl Fn(&mut AssociationConfig) {
    move |c| {
        c.interleaving = true;
        c.stream_scheduler = scheduler;
    }
}

fn chunks(bytes: &Bytes) -> Vec<Chunk> {
    PacketRepr::parse(bytes)
        .map(|p| p.chunks)
        .unwrap_or_default()
}

/// The I-DATA chunks A sent, per packet, in order.
fn idata_packets(n: &Net) -> Vec<Vec<IDataChunk>> {
    n.seen
        .iter()
        .filter(|s| s.from == Side::A && s.chunks.contains(&I_DATA))
        .map(|s| {
            chunks(&s.bytes)
                .into_iter()
                .filter_map(|c| match c {
                    Chunk::IData(d) => Some(d),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

fn send(n: &mut Net, a: AssocId, stream: u16, data: Bytes) {
    let now = n.now;
    n.a.association_mut(a)
        .unwrap()
        .send_with(now, stream, 0, data, &SendOptions::default())
        .unwrap();
}

/// B's messages as (stream, length), in the order delivered.
fn read_all(n: &mut Net, b: AssocId) -> Vec<(u16, usize)> {
    let y = n.b.association_mut(b).unwrap();
    std::iter::from_fn(|| y.recv())
        .map(|m| (m.stream, m.data.len()))
        .collect()
}

/// ```text
///   A                                        B
///     | queue: s1 200 kB, then s2 100 B        |
///     |--- I-DATA s1 (B) ---------------------->|
///     |--- I-DATA s2 (B E) -------------------->|  s2 delivered first
///     |--- I-DATA s1 ... (E) ------------------>|  s1 delivered
/// ```
/// With I-DATA and round robin the small message overtakes the large one;
/// with DATA (same scheduler) it waits until the large one is complete.
#[test]
fn a_large_message_does_not_block_a_small_one_on_another_stream() {
    let large = Bytes::from(vec![1u8; 200_000]);
    let small = Bytes::from(vec![2u8; 100]);

    let (mut n, a, b) = associated(&interleaving(StreamScheduler::RoundRobin));
    assert!(n.a.association(a).unwrap().interleaving());
    assert!(n.b.association(b).unwrap().interleaving());
    send(&mut n, a, 1, large.clone());
    send(&mut n, a, 2, small.clone());
    n.run_for(Duration::from_secs(5));
    assert_eq!(read_all(&mut n, b), vec![(2, 100), (1, 200_000)]);
    let sent: Vec<u8> = n.seen.iter().flat_map(|s| s.chunks.clone()).collect();
    assert!(!sent.contains(&DATA), "no DATA once I-DATA is negotiated");
    // The first fragment fills a packet; the next packet begins with the
    // small message, then the large one goes on.
    let first = idata_packets(&n)[..2].concat();
    assert_eq!(
        first[..3]
            .iter()
            .map(|d| (d.stream_id, d.begin, d.end))
            .collect::<Vec<_>>(),
        vec![(1, true, false), (2, true, true), (1, false, false)],
        "the small message rides between the large one's fragments"
    );
    assert_eq!((first[2].mid, first[2].fsn), (0, 1));
    assert_eq!((first[1].mid, first[1].fsn), (0, 0));

    let (mut n, a, b) = associated(&|c: &mut AssociationConfig| {
        c.stream_scheduler = StreamScheduler::RoundRobin;
    });
    assert!(!n.a.association(a).unwrap().interleaving());
    send(&mut n, a, 1, large);
    send(&mut n, a, 2, small);
    n.run_for(Duration::from_secs(5));
    assert_eq!(read_all(&mut n, b), vec![(1, 200_000), (2, 100)]);
}

/// Only one side offers I-DATA: the association uses DATA.
#[test]
fn i_data_needs_both_sides() {
    let mut n = Net::new(
        config(5000, &interleaving(StreamScheduler::RoundRobin)),
        &[a1()],
        config(6000, &|_| {}),
        &[b1()],
        Link::new(Duration::from_millis(20)),
        7,
    );
    let (a, b) = n.connect(Duration::from_secs(2));
    assert!(!n.a.association(a).unwrap().interleaving());
    send(&mut n, a, 1, Bytes::from(vec![3u8; 3000]));
    n.run_for(Duration::from_secs(2));
    assert_eq!(read_all(&mut n, b), vec![(1, 3000)]);
    assert!(!n.seen.iter().any(|s| s.chunks.contains(&I_DATA)));
}

/// A queues two 100-byte messages on each of streams 3, 1 and 2 (in that
/// order, six chunks, one packet) and the order in which the chunks leave
/// is read per scheduler.
fn order_with(scheduler: StreamScheduler, values: &[(u16, u16)]) -> Vec<u16> {
    let (mut n, a, b) = associated(&interleaving(scheduler));
    for &(s, v) in values {
        n.a.association_mut(a).unwrap().set_stream_priority(s, v);
    }
    for s in [3, 1, 2, 3, 1, 2] {
        send(&mut n, a, s, Bytes::from(vec![s as u8; 100]));
    }
    n.run_for(Duration::from_secs(2));
    assert_eq!(read_all(&mut n, b).len(), 6);
    idata_packets(&n)
        .concat()
        .iter()
        .map(|d| d.stream_id)
        .collect()
}

/// ```text
///   queue: s3 s1 s2 s3 s1 s2
///   FCFS:            s3 s1 s2 s3 s1 s2   (queue order)
///   round robin:     s1 s2 s3 s1 s2 s3   (turns in stream order)
///   priority s2=0:   s2 s2 s3 s1 s3 s1   (s2 first, then turns after s2)
///   fair capacity:   s1 s2 s3 s1 s2 s3   (fewest bytes first)
///   WFQ s3 weight 2: s1 s2 s3 s3 s1 s2   (s3 twice the share)
/// ```
#[test]
fn each_scheduler_orders_the_streams_as_rfc_8260_section_3_says() {
    assert_eq!(order_with(StreamScheduler::Fcfs, &[]), [3, 1, 2, 3, 1, 2]);
    assert_eq!(
        order_with(StreamScheduler::RoundRobin, &[]),
        [1, 2, 3, 1, 2, 3]
    );
    assert_eq!(
        order_with(StreamScheduler::Priority, &[(2, 0)]),
        [2, 2, 3, 1, 3, 1]
    );
    assert_eq!(
        order_with(StreamScheduler::FairCapacity, &[]),
        [1, 2, 3, 1, 2, 3]
    );
    assert_eq!(
        order_with(StreamScheduler::WeightedFair, &[(3, 2)]),
        [1, 2, 3, 3, 1, 2]
    );
}

/// Round robin per packet: while more than one stream has data, each
/// packet carries the chunks of one stream only.
#[test]
fn round_robin_per_packet_keeps_a_stream_for_a_whole_packet() {
    let (mut n, a, b) = associated(&interleaving(StreamScheduler::RoundRobinPerPacket));
    for _ in 0..6 {
        for s in [1, 2] {
            send(&mut n, a, s, Bytes::from(vec![s as u8; 200]));
        }
    }
    n.run_for(Duration::from_secs(2));
    assert_eq!(read_all(&mut n, b).len(), 12);
    let packets = idata_packets(&n);
    let streams: Vec<Vec<u16>> = packets
        .iter()
        .map(|p| p.iter().map(|d| d.stream_id).collect())
        .collect();
    assert!(streams.len() >= 2, "{streams:?}");
    for p in &streams[..2] {
        assert!(
            p.iter().all(|&s| s == p[0]),
            "one stream per packet: {streams:?}"
        );
    }
    assert_ne!(streams[0][0], streams[1][0], "{streams:?}");
}

/// ```text
///   A                                        B
///     | path cut                              |
///     |--- I-DATA s1 MID 0..2 (lifetime) -----X
///     |    lifetime over: abandoned            |
///     | path back                              |
///     |--- I-FORWARD-TSN (s1, MID 2) --------->|  B skips MIDs 0..2
///     |--- I-DATA s1 MID 3 ------------------->|  delivered
/// ```
#[test]
fn i_forward_tsn_skips_abandoned_messages() {
    let (mut n, a, b) = associated(&|c: &mut AssociationConfig| {
        c.interleaving = true;
        c.pr_sctp = true;
    });
    assert!(n.a.association(a).unwrap().pr_sctp());
    n.set_up(a1(), b1(), false);
    let opts = SendOptions {
        policy: PrPolicy::Lifetime(Duration::from_millis(300)),
        ..SendOptions::default()
    };
    for i in 0..3u8 {
        let now = n.now;
        n.a.association_mut(a)
            .unwrap()
            .send_with(now, 1, 0, Bytes::from(vec![i; 3000]), &opts)
            .unwrap();
    }
    n.run_for(Duration::from_millis(1500));
    n.set_up(a1(), b1(), true);
    n.run_for(Duration::from_secs(3));
    send(&mut n, a, 1, Bytes::from(vec![9u8; 500]));
    n.run_for(Duration::from_secs(1));
    assert_eq!(read_all(&mut n, b), vec![(1, 500)]);
    let forwards: Vec<IForwardTsnChunk> = n
        .seen
        .iter()
        .filter(|s| s.from == Side::A && !s.dropped)
        .flat_map(|s| chunks(&s.bytes))
        .filter_map(|c| match c {
            Chunk::IForwardTsn(f) => Some(f),
            _ => None,
        })
        .collect();
    // The messages not sent before the cut are dropped unsent: they took
    // no MID, and the I-FORWARD-TSN names the last MID that was sent.
    let sent = idata_packets(&n).concat();
    let abandoned = sent.iter().filter(|d| d.payload.len() > 500);
    let last_mid = abandoned.map(|d| d.mid).max().expect("sent before the cut");
    let after = sent.iter().find(|d| d.payload.len() == 500).unwrap();
    assert_eq!(after.mid, last_mid + 1);
    let last = forwards.last().expect("an I-FORWARD-TSN reached B");
    assert_eq!(last.entries.len(), 1);
    assert_eq!((last.entries[0].stream, last.entries[0].mid), (1, last_mid));
    assert!(!last.entries[0].unordered);
    let plain = n.seen.iter().any(|s| s.chunks.contains(&0xc0));
    assert!(!plain, "no FORWARD TSN with I-DATA");
}
