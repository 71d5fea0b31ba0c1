//! Stream reconfiguration (RFC 6525) with usrsctp (Debian's libusrsctp)
//! over UDP encapsulation (RFC 6951) on loopback, in both directions,
//! inside a private network namespace; the prerequisites and the usrsctp
//! program (`crates/net/interop/usrsctp_peer.c`, modes `reset-server`
//! and `reset-client`) are those of `usrsctp_interop.rs`. The usrsctp
//! program logs every message with its stream and SSN, and every stream
//! reset and stream change notification.
//!
//! msctp resets, usrsctp receives:
//!
//! ```text
//!   msctp                                    usrsctp (reset-server)
//!   20 messages on stream 1 (SSN 0..19) ---> msg 1 0..19
//!   RE-CONFIG Outgoing SSN Reset [1] ------> SCTP_STREAM_RESET_EVENT
//!        <------------------------------ RE-CONFIG Response: performed  (incoming, stream 1)
//!   Event::Reconfig(StreamsReset)
//!   20 messages on stream 1 (SSN 0..19) ---> msg 1 0..19
//!   RE-CONFIG Add Outgoing Streams 2 ------> SCTP_STREAM_CHANGE_EVENT
//!        <------------------------------ Response: performed          (inbound 12)
//!   Event::Reconfig(StreamsChanged)
//!   1 message on stream 11 ----------------> msg 11 0
//!   (the Add request may overtake the DATA queued before it)
//!   SHUTDOWN ... SHUTDOWN COMPLETE
//! ```
//!
//! usrsctp resets, msctp receives (reset-client):
//!
//! ```text
//!   usrsctp                                    msctp
//!   20 messages on stream 1 ---------------> delivered
//!   SCTP_RESET_STREAMS (outgoing, [1]) ----> Event::Reconfig(StreamsReset, incoming)
//!        <------------------------------ Response: performed
//!   SCTP_STREAM_RESET_EVENT
//!   20 messages on stream 1 (SSN 0..) -----> delivered, in order
//!   SCTP_ADD_STREAMS (2 outgoing) ---------> Event::Reconfig(StreamsChanged)
//!   1 message on its last stream ----------> delivered on that stream
//!   SHUTDOWN ... SHUTDOWN COMPLETE
//! ```

mod common;

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use common::{Netns, usrsctp};
use msctp_net::{Event, NetEvent, Stack, StackConfig};
use msctp_proto::ReconfigEvent;

const USRSCTP_UDP: u16 = 9899;
const MSCTP_UDP: u16 = 9900;
const COUNT: u32 = 20;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn config(listen: bool) -> StackConfig {
    let mut c = StackConfig::new(5002).tuned_for_lan();
    c.loopback_mtu = false;
    c.offload = false;
    c.udp_port = MSCTP_UDP;
    c.remote_udp_port = USRSCTP_UDP;
    c.local_addrs = vec![ip("127.0.0.1")];
    c.endpoint.listen = listen;
    c.endpoint.association.stream_reconfig = true;
    c
}

fn message(i: u32) -> Bytes {
    let mut v = vec![0x5a; 100];
    v[..4].copy_from_slice(&i.to_be_bytes());
    Bytes::from(v)
}

/// One line of the usrsctp program's log.
#[derive(Debug, PartialEq, Eq)]
enum Logged {
    Msg {
        sid: u16,
        ssn: u16,
        index: u32,
    },
    Reset {
        flags: u16,
        streams: Vec<u16>,
    },
    Change {
        flags: u16,
        inbound: u16,
        outbound: u16,
    },
}

fn parse_log(log: &str) -> Vec<Logged> {
    log.lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let n = |i: usize| w.get(i).and_then(|x| x.parse::<u32>().ok());
            match w.first().copied() {
                Some("msg") => Some(Logged::Msg {
                    sid: n(1)? as u16,
                    ssn: n(2)? as u16,
                    index: n(3)?,
                }),
                Some("reset") => Some(Logged::Reset {
                    flags: n(1)? as u16,
                    streams: w[2..].iter().filter_map(|x| x.parse().ok()).collect(),
                }),
                Some("change") => Some(Logged::Change {
                    flags: n(1)? as u16,
                    inbound: n(2)? as u16,
                    outbound: n(3)? as u16,
                }),
                _ => None,
            }
        })
        .collect()
}

/// usrsctp's SCTP_STREAM_RESET_INCOMING_SSN (usrsctp.h).
const INCOMING_SSN: u16 = 0x0001;

/// Waits for the association's next reconfiguration event.
async fn next_reconfig(a: &mut msctp_net::Association) -> ReconfigEvent {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match a.next_event().await {
                Some(NetEvent::Assoc(Event::Reconfig(e))) => return e,
                Some(_) => continue,
                None => panic!("the association ended before a reconfiguration event"),
            }
        }
    })
    .await
    .expect("a reconfiguration event within 10 s")
}

#[test]
fn msctp_resets_and_adds_streams_usrsctp_follows() {
    if let Some(why) = usrsctp::missing(&["ip", "capsh"]) {
        msctp_testkit::skip(&why);
        return;
    }
    let dir = usrsctp::work_dir("reconfig", "a");
    let peer = usrsctp::build_peer(&dir);
    let ns = Netns::with_prefix("reconf", "a");
    let args = [
        peer.display().to_string(),
        "reset-server".into(),
        USRSCTP_UDP.to_string(),
        "5001".into(),
    ];
    let mut server = usrsctp::spawn_in(&ns, &args, &dir.join("server.log"));
    std::thread::sleep(Duration::from_millis(500));
    let client = ns.spawn(move || {
        common::block_on(async move {
            let s = Stack::bind(config(false)).await.unwrap();
            let mut a = s.connect(&[ip("127.0.0.1")], 5001).await.unwrap();
            let ppid = 0x6d73_0004;
            for i in 0..COUNT {
                a.send(1, ppid, message(i)).await.unwrap();
            }
            a.reset_streams(&[1]).await.unwrap();
            let reset = next_reconfig(&mut a).await;
            for i in COUNT..2 * COUNT {
                a.send(1, ppid, message(i)).await.unwrap();
            }
            a.add_streams(2).await.unwrap();
            let changed = next_reconfig(&mut a).await;
            let last = match &changed {
                ReconfigEvent::StreamsChanged { outbound, .. } => outbound - 1,
                e => panic!("{e:?}"),
            };
            a.send(last, ppid, message(2 * COUNT)).await.unwrap();
            tokio::time::timeout(Duration::from_secs(10), a.shutdown())
                .await
                .expect("the shutdown completes")
                .unwrap();
            (reset, changed)
        })
    });
    let (reset, changed) = client.join().unwrap();
    let status = server.wait().unwrap();
    let log = std::fs::read_to_string(dir.join("server.log")).unwrap_or_default();
    eprintln!("msctp saw {reset:?}, {changed:?}; usrsctp logged:\n{log}");
    assert!(status.success(), "usrsctp server failed: {log}");
    assert_eq!(
        reset,
        ReconfigEvent::StreamsReset {
            incoming: false,
            streams: vec![1]
        }
    );
    assert_eq!(
        changed,
        ReconfigEvent::StreamsChanged {
            inbound: changed_inbound(&changed),
            outbound: 12
        },
        "10 outbound streams and 2 added"
    );
    let mut expected: Vec<Logged> = (0..COUNT)
        .map(|i| Logged::Msg {
            sid: 1,
            ssn: i as u16,
            index: i,
        })
        .collect();
    expected.push(Logged::Reset {
        flags: INCOMING_SSN,
        streams: vec![1],
    });
    // After the reset, stream 1 starts again at SSN 0.
    expected.extend((0..COUNT).map(|i| Logged::Msg {
        sid: 1,
        ssn: i as u16,
        index: COUNT + i,
    }));
    expected.push(Logged::Msg {
        sid: 11,
        ssn: 0,
        index: 2 * COUNT,
    });
    // The stream change may come before the messages sent ahead of the
    // Add Outgoing Streams Request: its RE-CONFIG chunk is bundled before
    // DATA (RFC 9260 section 6.10, control chunks first).
    let (changes, messages): (Vec<Logged>, Vec<Logged>) = parse_log(&log)
        .into_iter()
        .partition(|l| matches!(l, Logged::Change { .. }));
    assert_eq!(messages, expected, "{log}");
    assert_eq!(
        changes,
        [Logged::Change {
            flags: 0,
            inbound: 12,
            outbound: 10
        }],
        "usrsctp reports 12 inbound streams"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn changed_inbound(e: &ReconfigEvent) -> u16 {
    match e {
        ReconfigEvent::StreamsChanged { inbound, .. } => *inbound,
        _ => 0,
    }
}

#[test]
fn usrsctp_resets_and_adds_streams_msctp_follows() {
    if let Some(why) = usrsctp::missing(&["ip", "capsh"]) {
        msctp_testkit::skip(&why);
        return;
    }
    let dir = usrsctp::work_dir("reconfig", "b");
    let peer = usrsctp::build_peer(&dir);
    let ns = Netns::with_prefix("reconf", "b");
    let server = ns.spawn(move || {
        common::block_on(async move {
            let s = Stack::bind(config(true)).await.unwrap();
            let mut a = tokio::time::timeout(Duration::from_secs(10), s.accept())
                .await
                .expect("usrsctp connects")
                .unwrap();
            let mut got = Vec::new();
            let mut events = Vec::new();
            let done = tokio::time::timeout(Duration::from_secs(30), async {
                while let Some(m) = a.recv().await.unwrap() {
                    let index = u32::from_be_bytes(m.data[..4].try_into().unwrap());
                    // Events before this message (the channel keeps their order).
                    while let Some(e) = a.try_event() {
                        if let NetEvent::Assoc(Event::Reconfig(r)) = e {
                            events.push((got.len(), r));
                        }
                    }
                    got.push((m.stream, index));
                }
            })
            .await;
            while let Some(e) = a.try_event() {
                if let NetEvent::Assoc(Event::Reconfig(r)) = e {
                    events.push((got.len(), r));
                }
            }
            (done.is_ok(), got, events)
        })
    });
    std::thread::sleep(Duration::from_millis(300));
    let args = [
        peer.display().to_string(),
        "reset-client".into(),
        USRSCTP_UDP.to_string(),
        MSCTP_UDP.to_string(),
        "127.0.0.1".into(),
        "5002".into(),
        COUNT.to_string(),
    ];
    let mut client = usrsctp::spawn_in(&ns, &args, &dir.join("client.log"));
    let (finished, got, events) = server.join().unwrap();
    let status = client.wait().unwrap();
    let log = std::fs::read_to_string(dir.join("client.log")).unwrap_or_default();
    eprintln!("msctp received {got:?}\nevents {events:?}\nusrsctp logged:\n{log}");
    assert!(status.success(), "usrsctp client failed: {log}");
    assert!(finished, "the association did not end");
    // Every message, in order: the 20 after the reset (SSN 0 on) too.
    let mut expected: Vec<(u16, u32)> = (0..2 * COUNT).map(|i| (1, i)).collect();
    let Some(Logged::Change { outbound, .. }) = parse_log(&log)
        .into_iter()
        .find(|l| matches!(l, Logged::Change { .. }))
    else {
        panic!("usrsctp saw no stream change: {log}")
    };
    expected.push((outbound - 1, 2 * COUNT));
    assert_eq!(got, expected);
    assert!(
        parse_log(&log).contains(&Logged::Reset {
            flags: 0x0002,
            streams: vec![1]
        }),
        "usrsctp's outgoing reset of stream 1 was performed: {log}"
    );
    // msctp reported the incoming reset, then the added streams.
    assert!(
        events.iter().any(|(_, e)| *e
            == ReconfigEvent::StreamsReset {
                incoming: true,
                streams: vec![1]
            }),
        "{events:?}"
    );
    assert!(
        events
            .iter()
            .any(|(_, e)| matches!(e, ReconfigEvent::StreamsChanged { inbound, .. } if *inbound == outbound)),
        "{events:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
