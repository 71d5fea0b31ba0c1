//! Sessions on the loopback interface (issue 31, finding 5): a peer that
//! crashes and starts again from the same address and ports restarts the
//! association (RFC 9260 section 5.2.4), which ends the application's
//! session and gives it a new one through `accept` (RFC 6458's
//! SCTP_RESTART); a dropped `Association` ends its association instead of
//! living on.
//!
//! A "crash" is a client stack whose runtime is shut down under it: its
//! driver stops without sending anything (no SHUTDOWN, no ABORT) and its
//! UDP socket closes, as when the process is killed.

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use msctp_net::{Event, NetEvent, Stack, StackConfig};
use msctp_proto::CloseReason;
use tokio::runtime::Runtime;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn cfg(port: u16, udp_port: u16, listen: bool) -> StackConfig {
    let mut c = StackConfig::new(port).tuned_for_lan();
    c.udp_port = udp_port;
    c.local_addrs = vec![ip("127.0.0.1")];
    c.endpoint.listen = listen;
    c.connect_timeout = Duration::from_secs(3);
    c
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

const WAIT: Duration = Duration::from_secs(5);

/// The reason of the `Closed` event that ends `events`.
async fn close_reason(a: &mut msctp_net::Association) -> CloseReason {
    loop {
        let e = tokio::time::timeout(WAIT, a.next_event())
            .await
            .expect("the association ends")
            .expect("a Closed event before the stream ends");
        if let NetEvent::Assoc(Event::Closed { reason }) = e {
            return reason;
        }
    }
}

#[test]
fn a_restart_ends_the_old_session_and_accept_gives_the_new_one() {
    let rt = runtime();
    // Server (SCTP port 7001) <-> client (SCTP port 7002 at UDP port U).
    let server = rt.block_on(Stack::bind(cfg(7001, 0, true))).unwrap();
    let sport = server.udp_port();
    let crashing = runtime();
    let (client, old_client_assoc) = crashing.block_on(async {
        let c = Stack::bind(cfg(7002, 0, false)).await.unwrap();
        let a = c
            .connect_via(&[ip("127.0.0.1")], 7001, Some(sport))
            .await
            .unwrap();
        a.send(0, 1, Bytes::from_static(b"old 1")).await.unwrap();
        a.send(0, 1, Bytes::from_static(b"old 2")).await.unwrap();
        (c, a)
    });
    let client_udp = client.udp_port();
    let mut old = rt.block_on(async {
        let mut old = server.accept().await.unwrap();
        for want in ["old 1", "old 2"] {
            let m = tokio::time::timeout(WAIT, old.recv()).await.unwrap();
            assert_eq!(m.unwrap().unwrap().data, Bytes::from(want));
        }
        old
    });
    // The client crashes: its driver stops without a word.
    crashing.shutdown_timeout(WAIT);
    drop((old_client_assoc, client));
    rt.block_on(async {
        // It starts again from the same address, UDP port and SCTP port:
        // its INIT meets the server's association, which restarts.
        let again = Stack::bind(cfg(7002, client_udp, false)).await.unwrap();
        let a = again
            .connect_via(&[ip("127.0.0.1")], 7001, Some(sport))
            .await
            .expect("the restarted client connects");
        a.send(0, 1, Bytes::from_static(b"new 1")).await.unwrap();
        // The old session ends: nothing of the new one reaches it.
        let end = tokio::time::timeout(WAIT, old.recv()).await;
        let end = end.expect("the old session's recv returns").unwrap();
        assert_eq!(end, None, "the old session ends, it gets no new message");
        let e = old.status().await.unwrap_err().to_string();
        assert!(e.contains("restarted"), "{e}");
        let e = old.send(0, 1, Bytes::from_static(b"x")).await;
        assert!(e.unwrap_err().to_string().contains("restarted"));
        assert_eq!(close_reason(&mut old).await, CloseReason::Restarted);
        // The new session comes from `accept`, with the new messages.
        let mut new = tokio::time::timeout(WAIT, server.accept())
            .await
            .expect("accept gives the restarted association")
            .unwrap();
        assert_eq!(
            new.next_event().await,
            Some(NetEvent::Assoc(Event::Restarted))
        );
        let m = tokio::time::timeout(WAIT, new.recv()).await.unwrap();
        assert_eq!(m.unwrap().unwrap().data, Bytes::from("new 1"));
        // Dropping the old handle leaves the new session alone.
        drop(old);
        a.send(0, 1, Bytes::from_static(b"new 2")).await.unwrap();
        a.shutdown().await.unwrap();
        let m = tokio::time::timeout(WAIT, new.recv()).await.unwrap();
        assert_eq!(m.unwrap().unwrap().data, Bytes::from("new 2"));
        assert_eq!(new.recv().await.unwrap(), None);
    });
}

/// Client and server connected, the client having sent `msgs` messages
/// that the server read (`read`) or not.
async fn pair(sctp: u16, msgs: usize, read: bool) -> (Stack, Stack, msctp_net::Association) {
    let server = Stack::bind(cfg(sctp, 0, true)).await.unwrap();
    let client = Stack::bind(cfg(sctp + 1, 0, false)).await.unwrap();
    let a = client
        .connect_via(&[ip("127.0.0.1")], sctp, Some(server.udp_port()))
        .await
        .unwrap();
    let mut s = server.accept().await.unwrap();
    for _ in 0..msgs {
        a.send(0, 1, Bytes::from_static(b"data")).await.unwrap();
    }
    if read {
        for _ in 0..msgs {
            tokio::time::timeout(WAIT, s.recv()).await.unwrap().unwrap();
        }
    } else {
        // Wait until the server has them (acknowledged).
        while a.status().await.unwrap().send_buffered > 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    drop(s);
    (server, client, a)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_association_shuts_down_gracefully() {
    let (_server, _client, mut a) = pair(7011, 2, true).await;
    assert_eq!(close_reason(&mut a).await, CloseReason::Shutdown);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_association_with_unread_messages_aborts() {
    let (_server, _client, mut a) = pair(7021, 3, false).await;
    let reason = close_reason(&mut a).await;
    assert!(
        matches!(reason, CloseReason::PeerAbort { .. }),
        "the peer learns its messages were not taken: {reason:?}"
    );
}
