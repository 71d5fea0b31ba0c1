//! Stream reconfiguration (RFC 6525) between two engines, and against a
//! hand-driven peer for bad input.
//!
//! Every test is a chart between A (a1) and B (b1) over one path with a
//! 20 ms one-way delay: A asks for a reconfiguration and the test reads
//! the RE-CONFIG chunks that crossed the wire, the events of both sides
//! and what B's application got.
//!
//! ```text
//!   A (a1)                                        B (b1)
//!     |--- INIT [Supported Ext: RE-CONFIG] ---------->|
//!     |<-- INIT ACK [Supported Ext: RE-CONFIG] -------|
//!     |--- DATA s1 SSN 0, 1, 2 ---------------------->|
//!     |--- AUTH, RE-CONFIG [Out SSN Reset s1, last] ->|  B resets s1
//!     |<-- AUTH, RE-CONFIG [Response: Performed] -----|
//!     |--- DATA s1 SSN 0 ---------------------------->|  held until now
//! ```

mod common;

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use common::reconfig::{config, response};
use common::*;
use msctp_proto::wire::chunk::reconfig_result as res;
use msctp_proto::wire::{Chunk, DataChunk, InitChunk, PacketRepr, Param, ReconfigParam};
use msctp_proto::{
    AssocId, AssociationConfig, Event, ReconfigError, ReconfigEvent, ReconfigRequest,
};

const AUTH: u8 = 0x0f;
const RECONFIG: u8 = 0x82;

fn a1() -> IpAddr {
    ip("10.0.0.1")
}
fn b1() -> IpAddr {
    ip("10.1.0.1")
}

/// A and B associated over a 20 ms path, `fa` and `fb` applied.
fn associated_with(
    fa: &dyn Fn(&mut AssociationConfig),
    fb: &dyn Fn(&mut AssociationConfig),
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
    n.seen.clear();
    (n, a, b)
}

fn associated() -> (Net, AssocId, AssocId) {
    associated_with(&|_| {}, &|_| {})
}

fn chunks(bytes: &Bytes) -> Vec<Chunk> {
    PacketRepr::parse(bytes)
        .map(|p| p.chunks)
        .unwrap_or_default()
}

/// The RE-CONFIG parameters each side sent, in order (dropped packets
/// included).
fn reconfigs(n: &Net, from: Side) -> Vec<ReconfigParam> {
    n.seen
        .iter()
        .filter(|s| s.from == from && s.chunks.contains(&RECONFIG))
        .flat_map(|s| chunks(&s.bytes))
        .filter_map(|c| match c {
            Chunk::Reconfig(r) => Some(r.params),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The DATA chunks A sent (stream, SSN, TSN), in order, not dropped.
fn data_sent(n: &Net) -> Vec<(u16, u16, u32)> {
    n.seen
        .iter()
        .filter(|s| s.from == Side::A && !s.dropped)
        .flat_map(|s| chunks(&s.bytes))
        .filter_map(|c| match c {
            Chunk::Data(DataChunk {
                stream_id,
                ssn,
                tsn,
                ..
            }) => Some((stream_id, ssn, tsn)),
            _ => None,
        })
        .collect()
}

fn reconfig_events(n: &Net, side: Side) -> Vec<ReconfigEvent> {
    n.events(side)
        .iter()
        .filter_map(|(_, _, e)| match e {
            Event::Reconfig(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

fn send(n: &mut Net, a: AssocId, stream: u16, text: &'static str) {
    n.a.association_mut(a)
        .unwrap()
        .send(stream, 0, Bytes::from_static(text.as_bytes()), false)
        .unwrap();
}

/// B's messages as (stream, text), in the order delivered.
fn read_all(n: &mut Net, b: AssocId) -> Vec<(u16, String)> {
    let y = n.b.association_mut(b).unwrap();
    std::iter::from_fn(|| y.recv())
        .map(|m| (m.stream, String::from_utf8_lossy(&m.data).into_owned()))
        .collect()
}

fn request_seq(p: &ReconfigParam) -> u32 {
    match p {
        ReconfigParam::OutgoingSsnReset { request_seq, .. }
        | ReconfigParam::IncomingSsnReset { request_seq, .. }
        | ReconfigParam::SsnTsnReset { request_seq }
        | ReconfigParam::AddOutgoingStreams { request_seq, .. }
        | ReconfigParam::AddIncomingStreams { request_seq, .. } => *request_seq,
        other => panic!("not a request: {other:?}"),
    }
}

/// ```text
///   A                                             B
///     |--- INIT [Ext: .. RE-CONFIG][CHUNKS: .. RE-CONFIG] -->|
///     |<-- INIT ACK [Ext: .. RE-CONFIG] ----------------------|
///     |--- AUTH, RE-CONFIG ----------------------------------->|
/// ```
/// Both announce RE-CONFIG (and require it authenticated, RFC 6525
/// section 3.1); a peer that does not announce it gets no request.
#[test]
fn reconfig_is_negotiated_and_authenticated() {
    let mut n = Net::new(
        config(5000, &|_| {}),
        &[a1()],
        config(6000, &|_| {}),
        &[b1()],
        Link::new(Duration::from_millis(20)),
        7,
    );
    let (a, _b) = n.connect(Duration::from_secs(2));
    let init = n
        .seen
        .iter()
        .find(|s| s.from == Side::A && s.chunks == [0x01])
        .expect("an INIT");
    let Some(Chunk::Init(InitChunk { params, .. })) = chunks(&init.bytes).into_iter().next() else {
        panic!("not an INIT");
    };
    assert!(
        params
            .iter()
            .any(|p| matches!(p, Param::SupportedExtensions(l) if l.contains(&RECONFIG)))
    );
    assert!(
        params
            .iter()
            .any(|p| matches!(p, Param::Chunks(l) if l.contains(&RECONFIG)))
    );
    n.a.association_mut(a).unwrap().reset_streams(&[0]).unwrap();
    n.run_for(Duration::from_secs(1));
    let carrying: Vec<&Seen> = n
        .seen
        .iter()
        .filter(|s| s.chunks.contains(&RECONFIG))
        .collect();
    assert_eq!(carrying.len(), 2, "request and response");
    for s in carrying {
        assert_eq!(s.chunks, [AUTH, RECONFIG], "RE-CONFIG goes authenticated");
    }

    let (mut n, a, b) = associated_with(&|_| {}, &|c| c.stream_reconfig = false);
    assert!(!n.a.association(a).unwrap().stream_reconfig());
    assert!(!n.b.association(b).unwrap().stream_reconfig());
    let x = n.a.association_mut(a).unwrap();
    assert_eq!(x.reset_streams(&[0]), Err(ReconfigError::NotSupported));
    assert_eq!(x.add_outgoing_streams(1), Err(ReconfigError::NotSupported));
}

/// ```text
///   A                                             B
///     |--- DATA s1 "a" SSN 0, "b" SSN 1 ------------->|
///     |  reset_streams([1]); send s1 "c" (held)       |
///     |--- RE-CONFIG [Out SSN Reset seq, last TSN] -->|  cum TSN = last: reset
///     |<-- RE-CONFIG [Response seq: Performed] -------|
///     |--- DATA s1 "c" SSN 0 ------------------------>|  delivered after "b"
/// ```
/// RFC 6525 sections 5.1.2 and 5.2.2: the request names the last TSN
/// sent; messages sent on the stream meanwhile wait and restart at SSN 0;
/// both applications are told.
#[test]
fn outgoing_reset_restarts_the_stream_at_ssn_0() {
    let (mut n, a, b) = associated();
    send(&mut n, a, 1, "a");
    send(&mut n, a, 1, "b");
    send(&mut n, a, 0, "other");
    n.a.association_mut(a).unwrap().reset_streams(&[1]).unwrap();
    send(&mut n, a, 1, "c");
    assert_eq!(
        n.a.association_mut(a).unwrap().reset_streams(&[0]),
        Err(ReconfigError::InProgress)
    );
    n.run_for(Duration::from_secs(2));

    let req = reconfigs(&n, Side::A);
    let last_sent_before = data_sent(&n)[2].2;
    match &req[..] {
        [
            ReconfigParam::OutgoingSsnReset {
                last_tsn, streams, ..
            },
        ] => {
            assert_eq!(*last_tsn, last_sent_before);
            assert_eq!(streams, &[1]);
        }
        other => panic!("{other:?}"),
    }
    let resp = reconfigs(&n, Side::B);
    assert_eq!(
        resp.iter().map(response).collect::<Vec<_>>(),
        [(request_seq(&req[0]), res::SUCCESS_PERFORMED)]
    );
    let stream1: Vec<u16> = data_sent(&n)
        .iter()
        .filter(|d| d.0 == 1)
        .map(|d| d.1)
        .collect();
    assert_eq!(stream1, [0, 1, 0], "SSN restarts at 0 after the reset");
    assert_eq!(
        read_all(&mut n, b),
        [
            (1, "a".into()),
            (1, "b".into()),
            (0, "other".into()),
            (1, "c".into())
        ]
    );
    let reset = |incoming| ReconfigEvent::StreamsReset {
        incoming,
        streams: vec![1],
    };
    assert_eq!(reconfig_events(&n, Side::A), [reset(false)]);
    assert_eq!(reconfig_events(&n, Side::B), [reset(true)]);
}

/// ```text
///   A                                             B
///     |--- DATA s0 "a" TSN t ----------X              |  lost
///     |--- RE-CONFIG [Out SSN Reset, last t] -------->|  cum TSN < t: deferred
///     |<-- RE-CONFIG [Response: In progress] ---------|
///     |--- DATA s0 "a" TSN t (T3-rtx) --------------->|  cum TSN = t: reset
///     |--- RE-CONFIG [same request] (its timer) ----->|
///     |<-- RE-CONFIG [Response: Performed] -----------|
/// ```
/// RFC 6525 section 5.2.2 E1 (deferred reset) and section 5.2.1 (a
/// retransmitted request is answered with the result it has now, the
/// reset done once).
#[test]
fn reset_waits_for_the_last_tsn_and_retransmission_gets_the_result() {
    let (mut n, a, b) = associated();
    let mut dropped = false;
    n.filter = Some(Box::new(move |from, _, _, data: &mut Vec<u8>| {
        if from == Side::A && !dropped && chunk_types(data).contains(&0x00) {
            dropped = true;
            return Verdict::Drop;
        }
        Verdict::Pass
    }));
    send(&mut n, a, 0, "a");
    n.a.association_mut(a).unwrap().reset_streams(&[0]).unwrap();
    send(&mut n, a, 0, "b");
    n.run_for(Duration::from_secs(5));

    let req = reconfigs(&n, Side::A);
    assert!(req.len() >= 2, "sent again: {req:?}");
    let seq = request_seq(&req[0]);
    assert!(req.iter().all(|r| request_seq(r) == seq));
    let answers: Vec<(u32, u32)> = reconfigs(&n, Side::B).iter().map(response).collect();
    assert_eq!(answers.first(), Some(&(seq, res::IN_PROGRESS)));
    assert_eq!(answers.last(), Some(&(seq, res::SUCCESS_PERFORMED)));
    assert_eq!(read_all(&mut n, b), [(0, "a".into()), (0, "b".into())]);
    assert_eq!(reconfig_events(&n, Side::B).len(), 1, "reset once");
    assert_eq!(reconfig_events(&n, Side::A).len(), 1);
}

/// ```text
///   A                                             B
///     |--- RE-CONFIG [Out SSN Reset seq] ------X      |  lost
///     |  (RTO)                                        |
///     |--- RE-CONFIG [Out SSN Reset seq] ------------>|
///     |<-- RE-CONFIG [Response seq: Performed] ---X   |  lost
///     |  (RTO, backed off)                            |
///     |--- RE-CONFIG [Out SSN Reset seq] ------------>|  duplicate
///     |<-- RE-CONFIG [Response seq: Performed] -------|  the same result
/// ```
/// RFC 6525 section 5.1.1: the request is retransmitted with its timer
/// (the RTO, backed off) and the same sequence number; section 5.2.1: the
/// duplicate gets the same answer and the streams are reset once.
#[test]
fn lost_request_and_lost_response_are_retransmitted() {
    let (mut n, a, b) = associated();
    let mut seen_req = 0;
    let mut seen_resp = 0;
    n.filter = Some(Box::new(move |from, _, _, data: &mut Vec<u8>| {
        if !chunk_types(data).contains(&RECONFIG) {
            return Verdict::Pass;
        }
        let count = if from == Side::A {
            &mut seen_req
        } else {
            &mut seen_resp
        };
        *count += 1;
        if *count == 1 {
            Verdict::Drop
        } else {
            Verdict::Pass
        }
    }));
    n.a.association_mut(a).unwrap().reset_streams(&[]).unwrap();
    n.run_for(Duration::from_secs(5));
    let times: Vec<_> = n
        .seen
        .iter()
        .filter(|s| s.from == Side::A && s.chunks.contains(&RECONFIG))
        .map(|s| s.time)
        .collect();
    assert_eq!(times.len(), 3);
    assert!(times[2] - times[1] > times[1] - times[0], "RTO backed off");
    let req = reconfigs(&n, Side::A);
    let seq = request_seq(&req[0]);
    assert!(req.iter().all(|r| request_seq(r) == seq));
    let answers: Vec<(u32, u32)> = reconfigs(&n, Side::B).iter().map(response).collect();
    assert_eq!(answers, [(seq, res::SUCCESS_PERFORMED); 2]);
    assert_eq!(reconfig_events(&n, Side::B).len(), 1);
    assert_eq!(
        reconfig_events(&n, Side::A),
        [ReconfigEvent::StreamsReset {
            incoming: false,
            streams: vec![]
        }]
    );
    let _ = b;
}

/// ```text
///   A                                               B
///     |--- RE-CONFIG [In SSN Reset s0, seq x] -------->|
///     |<-- RE-CONFIG [Out SSN Reset s0, resp seq x] ---|  B resets its s0
///     |--- RE-CONFIG [Response: Performed] ----------->|
///     |<-- DATA s0 SSN 0 -------------------------------|
/// ```
/// RFC 6525 sections 5.1.3 and 5.2.3: an Incoming SSN Reset Request is
/// answered by the peer's Outgoing SSN Reset Request, which names it.
#[test]
fn incoming_reset_makes_the_peer_reset_its_outgoing_streams() {
    let (mut n, a, b) = associated();
    let y = n.b.association_mut(b).unwrap();
    y.send(0, 0, Bytes::from_static(b"x"), false).unwrap();
    y.send(0, 0, Bytes::from_static(b"y"), false).unwrap();
    n.run_for(Duration::from_secs(1));
    n.a.association_mut(a)
        .unwrap()
        .request_incoming_reset(&[0])
        .unwrap();
    n.run_for(Duration::from_secs(1));
    let y = n.b.association_mut(b).unwrap();
    y.send(0, 0, Bytes::from_static(b"z"), false).unwrap();
    n.run_for(Duration::from_secs(1));

    let from_a = reconfigs(&n, Side::A);
    let from_b = reconfigs(&n, Side::B);
    let ReconfigParam::IncomingSsnReset {
        request_seq,
        streams,
    } = &from_a[0]
    else {
        panic!("{from_a:?}");
    };
    assert_eq!(streams, &[0]);
    match &from_b[..] {
        [
            ReconfigParam::OutgoingSsnReset {
                response_seq,
                streams,
                request_seq: out_seq,
                ..
            },
        ] => {
            assert_eq!(response_seq, request_seq);
            assert_eq!(streams, &[0]);
            assert_eq!(response(&from_a[1]), (*out_seq, res::SUCCESS_PERFORMED));
        }
        other => panic!("{other:?}"),
    }
    let x = n.a.association_mut(a).unwrap();
    let got: Vec<_> = std::iter::from_fn(|| x.recv()).map(|m| m.data).collect();
    assert_eq!(got, [&b"x"[..], b"y", b"z"]);
    let reset = |incoming| ReconfigEvent::StreamsReset {
        incoming,
        streams: vec![0],
    };
    assert_eq!(reconfig_events(&n, Side::A), [reset(true)]);
    assert_eq!(reconfig_events(&n, Side::B), [reset(false)]);
}

/// ```text
///   A                                                 B
///     |--- DATA (acknowledged) ------------------------->|
///     |--- RE-CONFIG [SSN/TSN Reset seq] --------------->|  B: peer next = cum + 1 + 2^31
///     |<-- RE-CONFIG [Response: Performed, B next, A next]|
///     |--- DATA TSN = A next, SSN 0 --------------------->|
/// ```
/// RFC 6525 sections 5.1.4 and 5.2.4: both sides restart their SSNs and
/// A's TSNs continue from the Receiver's Next TSN that B chose.
#[test]
fn ssn_tsn_reset_moves_the_tsns_and_restarts_every_stream() {
    let (mut n, a, b) = associated();
    send(&mut n, a, 0, "a");
    send(&mut n, a, 1, "b");
    n.a.association_mut(a).unwrap().reset_association().unwrap();
    send(&mut n, a, 1, "c");
    n.run_for(Duration::from_secs(2));
    let y = n.b.association_mut(b).unwrap();
    y.send(0, 0, Bytes::from_static(b"back"), false).unwrap();
    n.run_for(Duration::from_secs(1));

    let from_b = reconfigs(&n, Side::B);
    let Some(ReconfigParam::Response {
        result,
        next_tsns: Some((b_next, a_next)),
        ..
    }) = from_b.first()
    else {
        panic!("{from_b:?}");
    };
    assert_eq!(*result, res::SUCCESS_PERFORMED);
    let sent = data_sent(&n);
    let before = sent[1].2;
    assert_eq!(*a_next, before.wrapping_add(1).wrapping_add(1 << 31));
    assert_eq!(sent[2], (1, 0, *a_next), "new TSN, SSN 0");
    assert_eq!(
        read_all(&mut n, b),
        [(0, "a".into()), (1, "b".into()), (1, "c".into())]
    );
    let x = n.a.association_mut(a).unwrap();
    assert_eq!(x.recv().map(|m| m.data), Some(Bytes::from_static(b"back")));
    let reset = ReconfigEvent::AssociationReset {
        next_tsn: *a_next,
        peer_next_tsn: *b_next,
    };
    assert_eq!(reconfig_events(&n, Side::A), [reset]);
    assert_eq!(
        reconfig_events(&n, Side::B),
        [ReconfigEvent::AssociationReset {
            next_tsn: *b_next,
            peer_next_tsn: *a_next,
        }]
    );
}

/// ```text
///   A                                                B
///     |--- RE-CONFIG [Add Outgoing Streams 5] -------->|  B: 10 + 5 inbound
///     |<-- RE-CONFIG [Response: Performed] ------------|
///     |--- DATA s12 ---------------------------------->|
///     |--- RE-CONFIG [Add Incoming Streams 2] -------->|
///     |<-- RE-CONFIG [Add Outgoing Streams 2] ---------|  B asks in turn
///     |--- RE-CONFIG [Response: Performed] ----------->|
///     |--- RE-CONFIG [Add Outgoing Streams 100] ------>|  over B's limit
///     |<-- RE-CONFIG [Response: Denied] ---------------|
/// ```
/// RFC 6525 sections 5.1.5/5.2.5 and 5.1.6/5.2.6, bounded by
/// `max_inbound_streams` and `max_outbound_streams`.
#[test]
fn streams_are_added_within_the_configured_limits() {
    let (mut n, a, b) = associated_with(&|_| {}, &|c| {
        c.max_inbound_streams = 20;
        c.max_outbound_streams = 12;
    });
    let x = n.a.association_mut(a).unwrap();
    assert_eq!(
        x.send(12, 0, Bytes::from_static(b"no"), false),
        Err(msctp_proto::SendError::InvalidStream(12))
    );
    x.add_outgoing_streams(5).unwrap();
    n.run_for(Duration::from_secs(1));
    send(&mut n, a, 12, "new stream");
    n.run_for(Duration::from_secs(1));
    assert_eq!(read_all(&mut n, b), [(12, "new stream".into())]);

    n.a.association_mut(a)
        .unwrap()
        .add_incoming_streams(2)
        .unwrap();
    n.run_for(Duration::from_secs(1));
    n.b.association_mut(b)
        .unwrap()
        .send(11, 0, Bytes::from_static(b"back"), false)
        .unwrap();
    n.run_for(Duration::from_secs(1));
    let x = n.a.association_mut(a).unwrap();
    assert_eq!(x.recv().map(|m| m.stream), Some(11));

    // B holds 15 inbound streams of at most 20: 100 more are refused.
    x.add_outgoing_streams(100).unwrap();
    n.run_for(Duration::from_secs(1));
    let from_a = reconfigs(&n, Side::A);
    let kinds: Vec<&str> = from_a
        .iter()
        .map(|p| match p {
            ReconfigParam::AddOutgoingStreams { .. } => "add out",
            ReconfigParam::AddIncomingStreams { .. } => "add in",
            ReconfigParam::Response { .. } => "response",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        ["add out", "add in", "response", "add out"],
        "{from_a:?}"
    );
    let last_b = reconfigs(&n, Side::B).last().map(response).unwrap();
    assert_eq!(last_b, (request_seq(&from_a[3]), res::DENIED));
    assert_eq!(
        reconfig_events(&n, Side::A),
        [
            ReconfigEvent::StreamsChanged {
                inbound: 10,
                outbound: 15
            },
            ReconfigEvent::StreamsChanged {
                inbound: 12,
                outbound: 15
            },
            ReconfigEvent::Refused {
                request: ReconfigRequest::AddOutgoing(100),
                result: res::DENIED
            },
        ]
    );
    // And locally: past our own bound, no request at all.
    let y = n.b.association_mut(b).unwrap();
    assert_eq!(y.add_outgoing_streams(1), Err(ReconfigError::TooMany));
}

/// ```text
///   A                                             B
///     |  reset_streams([0]); send s0 "late" (held)    |
///     |--- RE-CONFIG [Out SSN Reset] ----------X      |  every one lost
///     |  abort()                                      |
///     |  Event::SendFailed(s0 "late")                 |
/// ```
/// A message held for a reset is never silently lost: it counts in the
/// send buffer while held and comes back when the association ends.
#[test]
fn held_messages_are_returned_when_the_association_ends() {
    let (mut n, a, _b) = associated();
    n.filter = Some(Box::new(|_, _, _, data: &mut Vec<u8>| {
        if chunk_types(data).contains(&RECONFIG) {
            Verdict::Drop
        } else {
            Verdict::Pass
        }
    }));
    let x = n.a.association_mut(a).unwrap();
    x.reset_streams(&[0]).unwrap();
    x.send(0, 9, Bytes::from_static(b"late"), false).unwrap();
    assert_eq!(x.send_buffered(), 4);
    n.run_for(Duration::from_secs(2));
    assert!(data_sent(&n).is_empty(), "held, not sent");
    n.a.association_mut(a).unwrap().abort(None);
    n.run_for(Duration::from_millis(100));
    let failed: Vec<_> = n
        .events(Side::A)
        .iter()
        .filter_map(|(_, _, e)| match e {
            Event::SendFailed { stream, ppid, data } => Some((*stream, *ppid, data.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(failed, [(0, 9, Bytes::from_static(b"late"))]);
}

/// usrsctp 0.9.5's INIT and INIT ACK (frames 1 and 2 of the capture in
/// testdata/usrsctp) announce RE-CONFIG in Supported Extensions: an engine
/// with `stream_reconfig` negotiates it with usrsctp (RFC 6525 section
/// 3.1). (Only the negotiation: no capture of a reset yet.)
#[test]
fn usrsctp_announces_reconfig() {
    let text = include_str!("../testdata/usrsctp/packets.hex");
    for frame in ["1", "2"] {
        let hex_line = text
            .lines()
            .find_map(|l| l.strip_prefix(frame).and_then(|r| r.strip_prefix('\t')))
            .expect("frame");
        let pkt = PacketRepr::parse(&Bytes::from(hex::decode(hex_line.trim()).unwrap())).unwrap();
        let (Chunk::Init(i) | Chunk::InitAck(i)) = &pkt.chunks[0] else {
            panic!("frame {frame}: {:?}", pkt.chunks[0]);
        };
        let peer = msctp_proto::association::PeerInit::from_chunk(i, frame == "2").unwrap();
        assert!(peer.supports_reconfig, "frame {frame}");
    }
}

/// ```text
///   A                                             B
///     |  reset_streams([0]); send s0 "last"; shutdown  |
///     |--- RE-CONFIG [Out SSN Reset] ----------------->|
///     |<-- RE-CONFIG [Response: Performed] ------------|
///     |--- DATA s0 "last" SSN 0 ---------------------->|
///     |--- SHUTDOWN ---------------------------------->|  only now
/// ```
/// RFC 9260 section 9.2: the SHUTDOWN waits for every message, those held
/// for a stream reset included.
#[test]
fn shutdown_waits_for_held_messages() {
    let (mut n, a, b) = associated();
    let now = n.now;
    let x = n.a.association_mut(a).unwrap();
    x.reset_streams(&[0]).unwrap();
    x.send(0, 0, Bytes::from_static(b"last"), false).unwrap();
    x.shutdown(now);
    n.run_for(Duration::from_secs(3));
    assert_eq!(read_all(&mut n, b), [(0, "last".into())]);
    let failed = n
        .events(Side::A)
        .iter()
        .filter(|(_, _, e)| matches!(e, Event::SendFailed { .. }))
        .count();
    assert_eq!(failed, 0);
    assert!(n.events(Side::A).iter().any(|(_, _, e)| matches!(
        e,
        Event::Closed {
            reason: msctp_proto::CloseReason::Shutdown
        }
    )));
}
