//! Association set-up, data transfer and shutdown between two engines.

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::*;
use msctp_proto::wire::chunk::chunk_type;
use msctp_proto::{AssocId, CloseReason, EndpointConfig, Event, State, Time};

fn net(seed: u64) -> Net {
    Net::new(
        EndpointConfig::new(5000),
        &[ip("10.0.0.1")],
        EndpointConfig::new(6000),
        &[ip("10.0.1.1")],
        Link::new(Duration::from_millis(10)),
        seed,
    )
}

#[test]
fn handshake_uses_four_packets_and_negotiates_auth_and_asconf() {
    let mut n = net(1);
    let (a, b) = n.connect(Duration::from_secs(1));
    let kinds: Vec<Vec<u8>> = n.seen.iter().map(|s| s.chunks.clone()).collect();
    assert_eq!(kinds[0], vec![chunk_type::INIT]);
    assert_eq!(kinds[1], vec![chunk_type::INIT_ACK]);
    assert_eq!(kinds[2], vec![chunk_type::COOKIE_ECHO]);
    assert_eq!(kinds[3], vec![chunk_type::COOKIE_ACK]);
    // Established after one RTT and a half.
    assert_eq!(
        n.events_b
            .iter()
            .find(|e| e.2 == Event::Connected)
            .unwrap()
            .0,
        Time::from_millis(30)
    );
    let aa = n.a.association(a).unwrap();
    let bb = n.b.association(b).unwrap();
    assert_eq!(aa.state(), State::Established);
    assert!(aa.auth_enabled() && bb.auth_enabled());
    assert!(aa.asconf_enabled() && bb.asconf_enabled());
    assert_eq!(aa.peer_tag(), bb.local_tag());
    assert_eq!(bb.peer_tag(), aa.local_tag());
    // The listener kept no state before the COOKIE ECHO.
    assert_eq!(n.b.stats().inits_answered, 1);
}

#[test]
fn messages_arrive_in_order_and_intact() {
    let mut n = net(2);
    let (a, b) = n.connect(Duration::from_secs(1));
    let msgs: Vec<Vec<u8>> = (0..50).map(|i| pattern(i * 1000, 1 + i * 97)).collect();
    for m in &msgs {
        n.a.association_mut(a)
            .unwrap()
            .send(1, 42, Bytes::from(m.clone()), false)
            .unwrap();
    }
    n.run_for(Duration::from_secs(2));
    let bb = n.b.association_mut(b).unwrap();
    for m in &msgs {
        let got = bb.recv().expect("message missing");
        assert_eq!(got.stream, 1);
        assert_eq!(got.ppid, 42);
        assert_eq!(&got.data[..], &m[..]);
    }
    assert!(bb.recv().is_none());
    assert_eq!(
        n.a.association(a).unwrap().send_buffered(),
        0,
        "everything acknowledged"
    );
}

#[test]
fn large_message_is_fragmented_and_reassembled() {
    let mut n = net(3);
    let (a, b) = n.connect(Duration::from_secs(1));
    let m = pattern(0, 100_000);
    n.a.association_mut(a)
        .unwrap()
        .send(0, 0, Bytes::from(m.clone()), false)
        .unwrap();
    n.run_for(Duration::from_secs(3));
    let got = n.b.association_mut(b).unwrap().recv().unwrap();
    assert_eq!(&got.data[..], &m[..]);
    let data_packets = n
        .seen
        .iter()
        .filter(|s| s.chunks.contains(&chunk_type::DATA))
        .count();
    assert!(
        data_packets >= 100_000 / 1452,
        "fragmented into {data_packets} packets"
    );
}

#[test]
fn graceful_shutdown_delivers_everything_first() {
    let mut n = net(4);
    let (a, b) = n.connect(Duration::from_secs(1));
    let m = pattern(0, 20_000);
    let now = n.now;
    let aa = n.a.association_mut(a).unwrap();
    aa.send(0, 0, Bytes::from(m.clone()), false).unwrap();
    aa.shutdown(now);
    n.run_for(Duration::from_secs(3));
    assert!(n.events_a.iter().any(|e| e.1 == a
        && e.2
            == Event::Closed {
                reason: CloseReason::Shutdown
            }));
    assert!(n.events_b.iter().any(|e| e.1 == b
        && e.2
            == Event::Closed {
                reason: CloseReason::Shutdown
            }));
    let kinds: Vec<u8> = n.seen.iter().flat_map(|s| s.chunks.clone()).collect();
    for t in [
        chunk_type::SHUTDOWN,
        chunk_type::SHUTDOWN_ACK,
        chunk_type::SHUTDOWN_COMPLETE,
    ] {
        assert!(kinds.contains(&t), "missing chunk type {t}");
    }
    // The data read after the close is still there.
    let got = n.b.association_mut(b).map(|x| x.recv().unwrap().data);
    assert_eq!(got.as_deref(), Some(&m[..]));
}

/// Heartbeats end once an endpoint has sent its SHUTDOWN or SHUTDOWN ACK
/// (RFC 4460 section 2.10). Here A's first three SHUTDOWN COMPLETEs are
/// lost, so B stays in SHUTDOWN-ACK-SENT for several heartbeat periods:
///
/// ```text
///   A                                   B
///   SHUTDOWN          ---------------->
///                     <----------------  SHUTDOWN ACK   (SHUTDOWN-ACK-SENT)
///   SHUTDOWN COMPLETE ----X             (A is closed)
///                     <----------------  SHUTDOWN ACK   (T2 expired, three times:
///   SHUTDOWN COMPLETE ----X                              1 + 2 + 4 s, and no
///   ...                                                  HEARTBEAT meanwhile)
///   SHUTDOWN COMPLETE ---------------->
///   (T bit, out of the blue, RFC 9260 section 8.4 rule 5)
/// ```
///
/// A heartbeat from B in SHUTDOWN-ACK-SENT would reach A with no
/// association, be answered with an ABORT, and end B's association with
/// an abort after every byte was delivered (the soak saw this on a real
/// host).
#[test]
fn heartbeats_end_with_the_shutdown_so_a_lost_shutdown_complete_still_ends_gracefully() {
    let mut cfg = EndpointConfig::new(5000);
    cfg.association.heartbeat_interval = Some(Duration::from_millis(50));
    let mut cfg_b = EndpointConfig::new(6000);
    cfg_b.association.heartbeat_interval = Some(Duration::from_millis(50));
    let mut n = Net::new(
        cfg,
        &[ip("10.0.0.1")],
        cfg_b,
        &[ip("10.0.1.1")],
        Link::new(Duration::from_millis(10)),
        6,
    );
    let (a, b) = n.connect(Duration::from_secs(1));
    n.run_for(Duration::from_millis(500));
    let mut lost = 0;
    n.filter = Some(Box::new(move |from, _, _, data: &mut Vec<u8>| {
        if from == Side::A && lost < 3 && chunk_types(data) == [chunk_type::SHUTDOWN_COMPLETE] {
            lost += 1;
            return Verdict::Drop;
        }
        Verdict::Pass
    }));
    n.record = true;
    n.seen.clear();
    let now = n.now;
    n.a.association_mut(a).unwrap().shutdown(now);
    n.run_for(Duration::from_secs(20));
    let closed = |events: &[(Time, AssocId, Event)], id| {
        events
            .iter()
            .filter(|e| e.1 == id)
            .find_map(|e| match &e.2 {
                Event::Closed { reason } => Some(reason.clone()),
                _ => None,
            })
    };
    assert_eq!(closed(&n.events_a, a), Some(CloseReason::Shutdown));
    assert_eq!(closed(&n.events_b, b), Some(CloseReason::Shutdown));
    let from = |side: Side, t: u8| {
        n.seen
            .iter()
            .filter(|s| s.from == side && s.chunks.contains(&t))
            .map(|s| s.time)
            .collect::<Vec<_>>()
    };
    let acks = from(Side::B, chunk_type::SHUTDOWN_ACK);
    assert_eq!(acks.len(), 4, "B retransmitted its SHUTDOWN ACK: {acks:?}");
    assert_eq!(from(Side::A, chunk_type::SHUTDOWN_COMPLETE).len(), 4);
    let shutdown = from(Side::A, chunk_type::SHUTDOWN)[0];
    assert!(
        acks[3] - acks[0] > Duration::from_secs(5),
        "heartbeat periods (RTO + 50 ms) passed meanwhile: {acks:?}"
    );
    assert!(
        from(Side::A, chunk_type::HEARTBEAT)
            .iter()
            .all(|t| *t < shutdown),
        "A sent no HEARTBEAT after its SHUTDOWN"
    );
    assert!(
        from(Side::B, chunk_type::HEARTBEAT)
            .iter()
            .all(|t| *t < acks[0]),
        "B sent no HEARTBEAT after its SHUTDOWN ACK"
    );
    assert!(from(Side::A, chunk_type::ABORT).is_empty());
}

#[test]
fn abort_returns_unsent_data_to_the_application() {
    let mut n = net(5);
    let (a, b) = n.connect(Duration::from_secs(1));
    n.set_up(ip("10.0.0.1"), ip("10.0.1.1"), false);
    let aa = n.a.association_mut(a).unwrap();
    aa.send(0, 7, Bytes::from_static(b"never arrives"), false)
        .unwrap();
    n.run_for(Duration::from_millis(100));
    n.set_up(ip("10.0.0.1"), ip("10.0.1.1"), true);
    n.a.association_mut(a)
        .unwrap()
        .abort(Some(Bytes::from_static(b"bye")));
    n.run_for(Duration::from_millis(100));
    assert!(n.events_a.iter().any(|e| e.2
        == Event::SendFailed {
            stream: 0,
            ppid: 7,
            data: Bytes::from_static(b"never arrives")
        }));
    assert!(n.events_b.iter().any(|e| e.1 == b
        && matches!(
            &e.2,
            Event::Closed {
                reason: CloseReason::PeerAbort { .. }
            }
        )));
}

#[test]
fn unanswered_init_gives_up_after_max_init_retransmits() {
    let mut n = net(6);
    n.set_up(ip("10.0.0.1"), ip("10.0.1.1"), false);
    let port = n.b.port();
    let id = n.a.connect(Time::ZERO, &[ip("10.0.1.1")], port).unwrap();
    n.run_for(Duration::from_secs(600));
    let inits = n
        .seen
        .iter()
        .filter(|s| s.chunks == vec![chunk_type::INIT])
        .count();
    assert_eq!(inits, 9, "first INIT plus Max.Init.Retransmits = 8");
    assert!(n.events_a.iter().any(|e| e.1 == id
        && e.2
            == Event::Closed {
                reason: CloseReason::InitFailed
            }));
    // RTO doubles: 1, 2, 4, ... 60 s capped.
    let times: Vec<f64> = n.seen.iter().map(|s| s.time.as_secs_f64()).collect();
    assert!((times[1] - times[0] - 1.0).abs() < 1e-6);
    assert!((times[2] - times[1] - 2.0).abs() < 1e-6);
    assert!((times[8] - times[7] - 60.0).abs() < 1e-6);
}

#[test]
fn simultaneous_open_yields_one_association_on_each_side() {
    // Both ends send an INIT at the same instant (RFC 9260 section 5.2.1).
    let mut a_cfg = EndpointConfig::new(5000);
    a_cfg.listen = true;
    let mut n = Net::new(
        a_cfg,
        &[ip("10.0.0.1")],
        EndpointConfig::new(6000),
        &[ip("10.0.1.1")],
        Link::new(Duration::from_millis(10)),
        7,
    );
    let ia = n.a.connect(Time::ZERO, &[ip("10.0.1.1")], 6000).unwrap();
    let ib = n.b.connect(Time::ZERO, &[ip("10.0.0.1")], 5000).unwrap();
    n.run_for(Duration::from_secs(2));
    assert_eq!(n.a.associations(), vec![ia], "no second association at A");
    assert_eq!(n.b.associations(), vec![ib], "no second association at B");
    let (x, y) = (n.a.association(ia).unwrap(), n.b.association(ib).unwrap());
    assert_eq!(
        (x.state(), y.state()),
        (State::Established, State::Established)
    );
    assert_eq!(x.peer_tag(), y.local_tag());
    assert_eq!(y.peer_tag(), x.local_tag());
    // And data flows over it.
    n.a.association_mut(ia)
        .unwrap()
        .send(0, 1, Bytes::from_static(b"after the collision"), false)
        .unwrap();
    n.run_for(Duration::from_secs(1));
    assert_eq!(
        &n.b.association_mut(ib).unwrap().recv().unwrap().data[..],
        b"after the collision"
    );
}

#[test]
fn peer_restart_is_detected_and_reported() {
    let mut n = net(8);
    let (_a, b) = n.connect(Duration::from_secs(1));
    let old_tag = n.b.association(b).unwrap().peer_tag();
    // A crashes and comes back on the same address and port with no memory
    // of the association, and connects again (section 5.2.4 case A).
    let mut seed = [0u8; 32];
    seed[0] = 99;
    n.a = msctp_proto::Endpoint::new(EndpointConfig::new(5000), seed).unwrap();
    n.a.set_local_addresses(&[ip("10.0.0.1")]);
    let a2 = n.a.connect(n.now, &[ip("10.0.1.1")], 6000).unwrap();
    n.run_for(Duration::from_secs(2));
    assert!(
        n.events_b
            .iter()
            .any(|e| e.1 == b && e.2 == Event::Restarted),
        "B reports the restart: {:?}",
        n.events_b
    );
    let bb = n.b.association(b).unwrap();
    assert_eq!(bb.state(), State::Established);
    assert_ne!(bb.peer_tag(), old_tag);
    assert_eq!(bb.peer_tag(), n.a.association(a2).unwrap().local_tag());
    n.a.association_mut(a2)
        .unwrap()
        .send(0, 1, Bytes::from_static(b"reborn"), false)
        .unwrap();
    n.run_for(Duration::from_secs(1));
    assert_eq!(
        &n.b.association_mut(b).unwrap().recv().unwrap().data[..],
        b"reborn"
    );
}

#[test]
fn endpoint_and_association_can_be_shared_between_threads() {
    // Drivers keep an endpoint behind a lock or hand it to another thread,
    // and the fuzz targets keep one in a `static OnceLock`: the engine's
    // types must stay `Send + Sync` (a `Cell` cache once broke this).
    fn send_sync<T: Send + Sync>() {}
    send_sync::<msctp_proto::Endpoint>();
    send_sync::<msctp_proto::Association>();
}

/// A closes gracefully but its SHUTDOWN COMPLETE is lost, so B stays in
/// SHUTDOWN-ACK-SENT; A's application connects again at once from the
/// same address and port (a client with a fixed port). RFC 9260 section
/// 9.2: B discards the INIT and retransmits its SHUTDOWN ACK, as an
/// answer to that INIT (the driver sends it to the INIT's own UDP port,
/// the new socket's) without touching T2-shutdown; A's new association
/// treats it as out of the blue (section 8.4 rule 5) and answers with a
/// SHUTDOWN COMPLETE with the T bit, which ends B's old association; A's
/// next INIT is answered.
///
///   A                                   B
///   SHUTDOWN               ------->
///                          <-------     SHUTDOWN ACK
///   SHUTDOWN COMPLETE      ---x         (SHUTDOWN-ACK-SENT)
///   INIT (new assoc)       ------->
///                          <-------     SHUTDOWN ACK (reply, old tag)
///   SHUTDOWN COMPLETE (T)  ------->     closed
///   INIT                   ------->
///                          <-------     INIT ACK ...
#[test]
fn an_init_in_shutdown_ack_sent_is_answered_and_a_reconnect_succeeds() {
    let mut n = net(7);
    let (a, b) = n.connect(Duration::from_secs(1));
    let old_peer_tag = n.b.association(b).unwrap().peer_tag();
    let hold = std::rc::Rc::new(std::cell::RefCell::new(None::<Vec<u8>>));
    let held = hold.clone();
    n.filter = Some(Box::new(move |from, _, _, data: &mut Vec<u8>| {
        let kinds = chunk_types(data);
        if from == Side::A && kinds == [chunk_type::SHUTDOWN_COMPLETE] && data[12 + 1] & 1 == 0 {
            return Verdict::Drop;
        }
        if from == Side::A && kinds == [chunk_type::INIT] && held.borrow().is_none() {
            *held.borrow_mut() = Some(data.clone());
            return Verdict::Drop;
        }
        Verdict::Pass
    }));
    let now = n.now;
    n.a.association_mut(a).unwrap().shutdown(now);
    n.run_for(Duration::from_millis(200));
    assert!(n.events_a.iter().any(|e| e.1 == a
        && e.2
            == Event::Closed {
                reason: CloseReason::Shutdown
            }));
    assert_eq!(n.b.association(b).unwrap().state(), State::ShutdownAckSent);

    // A connects again; its first INIT is held back and handed to B here.
    let now = n.now;
    let a2 = n.a.connect(now, &[ip("10.0.1.1")], 6000).unwrap();
    n.run_for(Duration::from_millis(5));
    let init = hold.borrow_mut().take().expect("A's new INIT");
    let t2 = n.b.poll_timeout();
    let now = n.now;
    n.b.handle_datagram(now, ip("10.0.0.1"), ip("10.0.1.1"), Bytes::from(init));
    let reply = n.b.poll_reply().expect("the INIT is answered as a reply");
    assert_eq!(chunk_types(&reply.payload), [chunk_type::SHUTDOWN_ACK]);
    assert_eq!(reply.destination, ip("10.0.0.1"));
    assert_eq!(
        u32::from_be_bytes(reply.payload[4..8].try_into().unwrap()),
        old_peer_tag,
        "the old association's tag"
    );
    assert_eq!(n.b.poll_timeout(), t2, "T2-shutdown untouched");
    n.inject(
        Side::A,
        ip("10.0.1.1"),
        ip("10.0.0.1"),
        Bytes::from(reply.payload),
    );

    n.run_for(Duration::from_secs(5));
    let closed_at = n
        .events_b
        .iter()
        .find(|e| e.1 == b && matches!(e.2, Event::Closed { .. }))
        .map(|e| (e.0, e.2.clone()))
        .expect("B's old association ended");
    assert_eq!(
        closed_at.1,
        Event::Closed {
            reason: CloseReason::Shutdown
        }
    );
    assert!(
        n.events_a
            .iter()
            .any(|e| e.1 == a2 && e.2 == Event::Connected),
        "A's new association connected: {:?}",
        n.events_a
    );
    let b2_up = n
        .events_b
        .iter()
        .find(|e| e.1 != b && e.2 == Event::Connected)
        .expect("B accepted the new association");
    assert!(b2_up.0 > closed_at.0);
}

/// INITs that keep arriving faster than the RTO in SHUTDOWN-ACK-SENT from
/// a host that never completes the shutdown: each is answered, but
/// T2-shutdown still runs out and the association ends (with the
/// retransmission of section 9.2 restarting T2 it lived for ever).
#[test]
fn repeated_inits_do_not_keep_a_half_closed_association_alive() {
    let mut n = net(8);
    let (a, b) = n.connect(Duration::from_secs(1));
    n.filter = Some(Box::new(|from, _, _, data: &mut Vec<u8>| {
        if from == Side::A && chunk_types(data) == [chunk_type::SHUTDOWN_COMPLETE] {
            return Verdict::Drop;
        }
        Verdict::Pass
    }));
    let now = n.now;
    n.a.association_mut(a).unwrap().shutdown(now);
    n.run_for(Duration::from_millis(200));
    assert_eq!(n.b.association(b).unwrap().state(), State::ShutdownAckSent);
    // A's endpoint is gone; a stranger at its address and port sends
    // INITs every 300 ms (its answers are dropped by the filter above,
    // the SHUTDOWN ACKs reach an endpoint with no association).
    let mut init_of = Net::new(
        EndpointConfig::new(5000),
        &[ip("10.0.0.1")],
        EndpointConfig::new(6000),
        &[ip("10.0.1.1")],
        Link::new(Duration::from_millis(10)),
        9,
    );
    let now = init_of.now;
    init_of.a.connect(now, &[ip("10.0.1.1")], 6000).unwrap();
    let init = init_of.a.poll_transmit(now).expect("an INIT").payload;
    assert_eq!(chunk_types(&init), [chunk_type::INIT]);
    let mut answers = 0;
    let end = n.now + Duration::from_secs(600);
    while n.now < end
        && n.b
            .association(b)
            .is_some_and(|x| x.state() != State::Closed)
    {
        let now = n.now;
        n.b.handle_datagram(
            now,
            ip("10.0.0.1"),
            ip("10.0.1.1"),
            Bytes::from(init.clone()),
        );
        while n.b.poll_reply().is_some() {
            answers += 1;
        }
        n.run_for(Duration::from_millis(300));
    }
    let closed = n
        .events_b
        .iter()
        .find(|e| e.1 == b && matches!(e.2, Event::Closed { .. }))
        .map(|e| (e.0, e.2.clone()));
    assert!(
        matches!(
            &closed,
            Some((
                _,
                Event::Closed {
                    reason: CloseReason::PeerUnreachable
                }
            ))
        ),
        "B's association ended: {closed:?}"
    );
    assert!(answers > 100, "each INIT answered: {answers}");
}
