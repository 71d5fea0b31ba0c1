//! Byte streams over one association on loopback (`msctp_net::streams`):
//! echo on several streams at once, a slow reader that holds back only
//! its own stream, a stream dropped unread resets the writer, stream
//! numbers freed, reset (RFC 6525) where the peer supports it, and
//! reused, the stream limit.

use std::net::IpAddr;
use std::time::Duration;

use msctp_net::streams::{Connection, SctpStream, StreamConfig};
use msctp_net::{Stack, StackConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::timeout;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn stack_cfg(port: u16, listen: bool, sc: &StreamConfig) -> StackConfig {
    let mut c = StackConfig::new(port).tuned_for_lan();
    c.udp_port = 0;
    c.local_addrs = vec![ip("127.0.0.1")];
    c.endpoint.listen = listen;
    c.connect_timeout = Duration::from_secs(3);
    sc.apply_to(&mut c);
    c
}

/// A connected pair: (client side, server side).
async fn pair(port: u16, sc: StreamConfig) -> (Connection, Connection) {
    pair_with(port, sc, true).await
}

/// A connected pair whose server announces RE-CONFIG (RFC 6525) or not.
async fn pair_with(port: u16, sc: StreamConfig, server_reconfig: bool) -> (Connection, Connection) {
    let mut server_cfg = stack_cfg(port, true, &sc);
    server_cfg.endpoint.association.stream_reconfig = server_reconfig;
    let server = Stack::bind(server_cfg).await.unwrap();
    let client = Stack::bind(stack_cfg(port + 1, false, &sc)).await.unwrap();
    let sport = server.udp_port();
    let sc2 = sc.clone();
    let acc = tokio::spawn(async move { Connection::accept(&server, sc2).await.unwrap() });
    let c = Connection::connect(&client, &[ip("127.0.0.1")], port, Some(sport), sc)
        .await
        .unwrap();
    (c, acc.await.unwrap())
}

fn pattern(seed: u8, n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(seed) ^ (i >> 9) as u8)
        .collect()
}

/// Echoes every stream the peer opens.
fn echo_server(mut conn: Connection) -> tokio::task::JoinHandle<Connection> {
    tokio::spawn(async move {
        while let Some(s) = conn.accept_stream().await {
            tokio::spawn(async move {
                let (mut r, mut w) = tokio::io::split(s);
                tokio::io::copy(&mut r, &mut w).await.unwrap();
                w.shutdown().await.unwrap();
            });
        }
        conn
    })
}

async fn echo_once(mut s: SctpStream, data: Vec<u8>) -> Vec<u8> {
    let (mut r, mut w) = tokio::io::split(&mut s);
    let write = async {
        w.write_all(&data).await.unwrap();
        w.shutdown().await.unwrap();
    };
    let mut back = Vec::new();
    let read = r.read_to_end(&mut back);
    let ((), n) = tokio::join!(write, read);
    n.unwrap();
    back
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_streams_are_echoed_intact_in_parallel() {
    // client: open 8 streams -> write 1 MB each, FIN
    // server: accept each -> copy back -> FIN
    // client: reads the same bytes on each stream, then end of stream.
    let (c, s) = pair(5301, StreamConfig::default()).await;
    let _srv = echo_server(s);
    let mut jobs = Vec::new();
    for k in 0..8u8 {
        let st = c.open_stream().unwrap();
        assert_eq!(st.id() % 2, 1, "the initiator opens odd streams");
        let data = pattern(k * 2 + 1, 1 << 20);
        jobs.push(tokio::spawn(async move {
            let back = echo_once(st, data.clone()).await;
            assert!(back == data, "stream {k} came back changed");
        }));
    }
    for j in jobs {
        timeout(Duration::from_secs(30), j).await.unwrap().unwrap();
    }
    assert_eq!(c.stats().violations, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reader_holds_back_only_its_own_stream() {
    // client: stream A -> writes without end; server never reads A
    // client: stream B -> 8 MB; server reads all of B
    // A's writer stops after the window; B completes meanwhile.
    let sc = StreamConfig {
        stream_window: 128 << 10,
        ..StreamConfig::default()
    };
    let (c, mut s) = pair(5311, sc.clone()).await;
    let mut a = c.open_stream().unwrap();
    let mut b = c.open_stream().unwrap();
    let sa = s.accept_stream().await.unwrap();
    let mut sb = s.accept_stream().await.unwrap();
    let a_writer = tokio::spawn(async move {
        let chunk = vec![7u8; 16 << 10];
        let mut written = 0usize;
        loop {
            match timeout(Duration::from_millis(500), a.write_all(&chunk)).await {
                Ok(r) => r.unwrap(),
                Err(_) => return (written, a),
            }
            written += chunk.len();
        }
    });
    let total = 8 << 20;
    let data = pattern(3, total);
    let d2 = data.clone();
    let w = tokio::spawn(async move {
        b.write_all(&d2).await.unwrap();
        b.shutdown().await.unwrap();
        b
    });
    let mut got = Vec::new();
    timeout(Duration::from_secs(30), sb.read_to_end(&mut got))
        .await
        .expect("stream B is not held back by A's reader")
        .unwrap();
    assert!(got == data, "B intact");
    let _b = w.await.unwrap();
    let (written, _a) = a_writer.await.unwrap();
    // A's writer got exactly what its reader's window allows.
    assert!(
        written <= sc.stream_window,
        "A wrote {written} bytes, more than its window"
    );
    assert!(
        written >= sc.stream_window - (16 << 10),
        "A wrote {written}"
    );
    drop(sa);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_dropped_unread_resets_the_writer() {
    // client: stream -> writes; server: accepts, drops it (RESET)
    // client: the next writes fail with ConnectionReset.
    let (c, mut s) = pair(5321, StreamConfig::default()).await;
    let mut st = c.open_stream().unwrap();
    st.write_all(b"first").await.unwrap();
    let peer = s.accept_stream().await.unwrap();
    drop(peer);
    let chunk = vec![1u8; 16 << 10];
    let err = timeout(Duration::from_secs(10), async {
        loop {
            if let Err(e) = st.write_all(&chunk).await {
                return e;
            }
        }
    })
    .await
    .expect("the writer hears of the reset");
    assert_eq!(err.kind(), std::io::ErrorKind::ConnectionReset);
}

/// 40 echo streams one after the other on `c`, at most two numbers of
/// each side in use at once.
async fn forty_echoes(c: &Connection) {
    for k in 0..40u8 {
        let st = timeout(Duration::from_secs(5), async {
            loop {
                match c.open_stream() {
                    Ok(st) => return st,
                    Err(_) => tokio::time::sleep(Duration::from_millis(5)).await,
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("stream {k}: no number came free"));
        let data = pattern(k | 1, 1000);
        assert_eq!(echo_once(st, data.clone()).await, data);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_streams_free_their_numbers_and_are_reset() {
    // max_streams 2: 40 echo streams one after the other all open,
    // because each closed one's number comes back (DONE both ways);
    // both sides support RE-CONFIG, so each then resets its outgoing
    // stream (RFC 6525 section 5.1.2) before the number's next OPEN.
    //
    // client --OPEN, DATA, FIN, DONE--> server --DATA, FIN, DONE--> client
    // client --RE-CONFIG (reset out 1)--> server --RE-CONFIG (reset out 1)-->
    // client --OPEN 1 (the next stream, SSN 0)--> ...
    let sc = StreamConfig {
        max_streams: 2,
        ..StreamConfig::default()
    };
    let (c, s) = pair(5331, sc).await;
    let srv = echo_server(s);
    forty_echoes(&c).await;
    let st = c.stats();
    assert!(st.freed >= 38, "{st:?}");
    assert!(st.reset >= 38, "{st:?}");
    assert_eq!(st.reset_failed, 0, "{st:?}");
    assert_eq!(st.violations, 0, "{st:?}");
    drop(c);
    let s = timeout(Duration::from_secs(10), srv)
        .await
        .unwrap()
        .unwrap();
    let st = s.stats();
    assert!(st.reset >= 38, "the server's own resets: {st:?}");
    assert_eq!((st.reset_failed, st.violations), (0, 0), "{st:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_reconfig_at_the_peer_streams_close_with_done_alone() {
    // The server does not announce RE-CONFIG: the DONE frames free the
    // numbers, and nobody asks for a reset the peer cannot perform.
    let sc = StreamConfig {
        max_streams: 2,
        ..StreamConfig::default()
    };
    let (c, s) = pair_with(5335, sc, false).await;
    let _srv = echo_server(s);
    forty_echoes(&c).await;
    let st = c.stats();
    assert!(st.freed >= 38, "{st:?}");
    assert_eq!((st.reset, st.reset_failed), (0, 0), "{st:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_beyond_the_limit_fails_clearly() {
    let sc = StreamConfig {
        max_streams: 3,
        ..StreamConfig::default()
    };
    let (c, _s) = pair(5341, sc).await;
    let _held: Vec<_> = (0..3).map(|_| c.open_stream().unwrap()).collect();
    let e = c.open_stream().unwrap_err();
    assert!(e.to_string().contains("no free stream"), "{e}");
}
