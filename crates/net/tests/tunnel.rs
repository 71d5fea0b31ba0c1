//! `msctp tunnel` on loopback: a TCP echo server <- tunnel server <- one
//! association <- tunnel client (SOCKS 5) <- SOCKS clients written here.
//! Bytes intact over many connections at once, a domain name, forbidden
//! destinations (reply 0x02, nothing connected), malformed requests (their
//! reply codes), clients without the key refused and never relayed, the
//! bound on associations per source, and stream opens without the
//! association's MAC or replayed refused with and without SCTP-AUTH on
//! DATA while the client goes on.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use msctp_net::streams::{StreamConfig, frame};
use msctp_net::tunnel::client::{self, ClientConfig, ClientStats};
use msctp_net::tunnel::policy::DestPolicy;
use msctp_net::tunnel::server::{self, ServerConfig, ServerStats};
use msctp_net::tunnel::socks::{Target, reply};
use msctp_net::tunnel::{auth, open};
use msctp_net::{NetError, Stack, StackConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::timeout;

const KEY: &[u8] = b"0123456789abcdef-tunnel-test-key";

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn stack_cfg(port: u16) -> StackConfig {
    let mut c = StackConfig::new(port).tuned_for_lan();
    c.udp_port = 0;
    c.local_addrs = vec![ip("127.0.0.1")];
    c.connect_timeout = Duration::from_secs(3);
    c
}

/// A TCP echo server; counts the connections it accepted.
async fn echo_server() -> (SocketAddr, Arc<AtomicUsize>) {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    let n = Arc::new(AtomicUsize::new(0));
    let n2 = n.clone();
    tokio::spawn(async move {
        loop {
            let (mut t, _) = l.accept().await.unwrap();
            n2.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let (mut r, mut w) = t.split();
                let _ = tokio::io::copy(&mut r, &mut w).await;
                let _ = w.shutdown().await;
            });
        }
    });
    (addr, n)
}

struct Tunnel {
    socks: SocketAddr,
    server: Arc<ServerStats>,
    client: Arc<ClientStats>,
    sctp_port: u16,
    server_udp: u16,
}

/// A tunnel server (key `server_key`, policy) and, if `client_key` is
/// given, a client; the client's set-up error if it fails.
async fn tunnel(
    port: u16,
    server_key: &[u8],
    client_key: Option<&[u8]>,
    cfg: impl FnOnce(&mut ServerConfig),
) -> Result<Tunnel, NetError> {
    let mut sc = ServerConfig::new(server_key.to_vec());
    sc.handshake_timeout = Duration::from_secs(2);
    cfg(&mut sc);
    let mut stack = stack_cfg(port);
    sc.apply_to(&mut stack);
    let server_stack = Stack::bind(stack).await?;
    let server_udp = server_stack.udp_port();
    let server = Arc::new(ServerStats::default());
    tokio::spawn(server::serve(server_stack, sc, server.clone()));
    let client = Arc::new(ClientStats::default());
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let socks = l.local_addr().unwrap();
    if let Some(k) = client_key {
        let mut cc = ClientConfig::new(k.to_vec(), vec![ip("127.0.0.1")], port);
        cc.udp_port = Some(server_udp);
        cc.handshake_timeout = Duration::from_secs(2);
        let mut stack = stack_cfg(port + 1);
        cc.apply_to(&mut stack);
        let client_stack = Stack::bind(stack).await?;
        let (tx, rx) = tokio::sync::oneshot::channel();
        let stats = client.clone();
        tokio::spawn(async move {
            let r = client::serve(client_stack, l, cc, stats).await;
            let _ = tx.send(r);
        });
        // serve() sets the association up first: its error comes at once.
        if let Ok(Ok(r)) = timeout(Duration::from_secs(4), rx).await {
            r?;
        }
    }
    Ok(Tunnel {
        socks,
        server,
        client,
        sctp_port: port,
        server_udp,
    })
}

/// A SOCKS 5 CONNECT through `socks`: the reply code and the connection.
async fn socks_connect(socks: SocketAddr, to: &Target) -> (u8, TcpStream) {
    let mut t = TcpStream::connect(socks).await.unwrap();
    t.write_all(&[5, 1, 0]).await.unwrap();
    let mut m = [0u8; 2];
    t.read_exact(&mut m).await.unwrap();
    assert_eq!(m, [5, 0], "no authentication method chosen");
    let mut req = vec![5, 1, 0];
    req.extend_from_slice(&to.encode());
    t.write_all(&req).await.unwrap();
    let mut rep = [0u8; 10];
    t.read_exact(&mut rep).await.unwrap();
    assert_eq!(rep[0], 5);
    (rep[1], t)
}

fn pattern(seed: usize, n: usize) -> Vec<u8> {
    (0..n).map(|i| ((i * 7 + seed) ^ (i >> 10)) as u8).collect()
}

async fn echo_through(mut t: TcpStream, data: Vec<u8>) -> Vec<u8> {
    let (mut r, mut w) = t.split();
    let write = async {
        w.write_all(&data).await.unwrap();
        w.shutdown().await.unwrap();
    };
    let mut back = Vec::new();
    let (_, n) = tokio::join!(write, r.read_to_end(&mut back));
    n.unwrap();
    back
}

fn allow_loopback(c: &mut ServerConfig) {
    c.policy = DestPolicy {
        allow: vec!["127.0.0.0/8".parse().unwrap()],
        ..DestPolicy::default()
    };
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tcp_connections_cross_the_tunnel_intact() {
    // SOCKS client x 24 -> tunnel client -> one association -> tunnel
    // server -> TCP echo server: each connection's bytes come back intact.
    let (echo, accepted) = echo_server().await;
    let t = tunnel(5401, KEY, Some(KEY), allow_loopback).await.unwrap();
    let mut jobs = Vec::new();
    for k in 0..24 {
        let socks = t.socks;
        jobs.push(tokio::spawn(async move {
            let (code, conn) = socks_connect(socks, &Target::Addr(echo)).await;
            assert_eq!(code, reply::SUCCEEDED);
            let data = pattern(k, 200_000 + k * 1000);
            let back = echo_through(conn, data.clone()).await;
            assert!(back == data, "connection {k} changed");
        }));
    }
    for j in jobs {
        timeout(Duration::from_secs(60), j).await.unwrap().unwrap();
    }
    assert_eq!(accepted.load(Ordering::SeqCst), 24);
    assert_eq!(
        t.client.associations.load(Ordering::SeqCst),
        1,
        "one association for all"
    );
    assert_eq!(t.server.relayed.load(Ordering::SeqCst), 24);
    // A domain name, resolved by the server (localhost -> 127.0.0.1).
    let (code, conn) =
        socks_connect(t.socks, &Target::Domain("localhost".into(), echo.port())).await;
    assert_eq!(code, reply::SUCCEEDED);
    assert_eq!(echo_through(conn, b"by name".to_vec()).await, b"by name");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forbidden_destinations_get_reply_2_and_nothing_is_connected() {
    // Default policy: private and loopback destinations refused.
    let (echo, accepted) = echo_server().await;
    let t = tunnel(5411, KEY, Some(KEY), |_| {}).await.unwrap();
    for to in [
        Target::Addr(echo),
        Target::Domain("localhost".into(), echo.port()),
        Target::Addr(SocketAddr::new(ip("10.0.0.1"), 80)),
        Target::Addr(SocketAddr::new(ip("::1"), echo.port())),
    ] {
        let (code, mut conn) = socks_connect(t.socks, &to).await;
        assert_eq!(code, reply::NOT_ALLOWED, "{to}");
        let mut rest = Vec::new();
        let n = timeout(Duration::from_secs(5), conn.read_to_end(&mut rest)).await;
        assert!(
            matches!(n, Ok(Ok(0)) | Ok(Err(_))),
            "{to}: the connection is closed"
        );
    }
    assert_eq!(t.server.not_allowed.load(Ordering::SeqCst), 4);
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        0,
        "nothing reached the host"
    );
    // Only listed ports: a port outside the list is refused as well.
    let t = tunnel(5415, KEY, Some(KEY), |c| {
        allow_loopback(c);
        c.policy.ports = vec![1];
    })
    .await
    .unwrap();
    let (code, _) = socks_connect(t.socks, &Target::Addr(echo)).await;
    assert_eq!(code, reply::NOT_ALLOWED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_socks_requests_get_their_error_reply() {
    let t = tunnel(5421, KEY, Some(KEY), allow_loopback).await.unwrap();
    // (request after the method negotiation, reply code expected)
    let cases: &[(&[u8], u8)] = &[
        (
            &[5, 2, 0, 1, 127, 0, 0, 1, 0, 80],
            reply::COMMAND_NOT_SUPPORTED,
        ),
        (
            &[5, 3, 0, 1, 127, 0, 0, 1, 0, 80],
            reply::COMMAND_NOT_SUPPORTED,
        ),
        (
            &[5, 1, 0, 9, 127, 0, 0, 1, 0, 80],
            reply::ADDRESS_TYPE_NOT_SUPPORTED,
        ),
        (&[5, 1, 7, 1, 127, 0, 0, 1, 0, 80], reply::GENERAL_FAILURE),
        (&[5, 1, 0, 3, 0, 0, 80], reply::GENERAL_FAILURE),
        (
            &[5, 1, 0, 3, 3, b'a', b'/', b'b', 0, 80],
            reply::GENERAL_FAILURE,
        ),
        // Refused by the server after the request crossed the tunnel:
        // nothing listens on port 1.
        (&[5, 1, 0, 1, 127, 0, 0, 1, 0, 1], reply::CONNECTION_REFUSED),
        // A name that does not resolve.
        (
            &[
                5, 1, 0, 3, 13, b'n', b'o', b'-', b's', b'u', b'c', b'h', b'.', b'i', b'n', b'v',
                b'a', b'l', 0, 80,
            ],
            reply::HOST_UNREACHABLE,
        ),
    ];
    for (req, code) in cases {
        let mut c = TcpStream::connect(t.socks).await.unwrap();
        c.write_all(&[5, 1, 0]).await.unwrap();
        let mut m = [0u8; 2];
        c.read_exact(&mut m).await.unwrap();
        c.write_all(req).await.unwrap();
        let mut rest = Vec::new();
        timeout(Duration::from_secs(15), c.read_to_end(&mut rest))
            .await
            .expect("the tunnel closes the connection")
            .unwrap();
        assert_eq!(rest.len(), 10, "{req:?}: one reply, then closed");
        assert_eq!(rest[1], *code, "{req:?}");
    }
    // A greeting without the no-authentication method: refused, closed.
    let mut c = TcpStream::connect(t.socks).await.unwrap();
    c.write_all(&[5, 1, 2]).await.unwrap();
    let mut rest = Vec::new();
    c.read_to_end(&mut rest).await.unwrap();
    assert_eq!(rest, [5, 0xff]);
    // The tunnel still works after all that.
    let (echo, _) = echo_server().await;
    let (code, conn) = socks_connect(t.socks, &Target::Addr(echo)).await;
    assert_eq!(code, reply::SUCCEEDED);
    assert_eq!(echo_through(conn, b"still".to_vec()).await, b"still");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_the_key_is_refused_and_never_relayed() {
    // client (wrong key) -> association -> server: no key proof -> abort.
    let (_echo, accepted) = echo_server().await;
    let other = b"another-key-of-sixteen-bytes-or-more";
    let e = match tunnel(5431, KEY, Some(other), allow_loopback).await {
        Err(e) => e,
        Ok(_) => panic!("a client with the wrong key was let in"),
    };
    assert!(e.to_string().contains("key"), "{e}");
    assert_eq!(accepted.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_without_auth_and_a_forged_proof_cannot_open_streams() {
    // peer (no SCTP-AUTH, so the engine accepts its DATA)
    //   <- CHALLENGE
    //   -> PROOF of the right size, wrong MAC; OPEN + request on stream 1
    // server: wrong proof -> ABORT; nothing relayed.
    let (echo, accepted) = echo_server().await;
    let t = tunnel(5441, KEY, None, allow_loopback).await.unwrap();
    let mut cfg = stack_cfg(5442);
    cfg.endpoint.association.auth = false;
    cfg.endpoint.association.asconf = false;
    StreamConfig::default().apply_to(&mut cfg);
    let stack = Stack::bind(cfg).await.unwrap();
    let mut a = stack
        .connect_via(&[ip("127.0.0.1")], t.sctp_port, Some(t.server_udp))
        .await
        .unwrap();
    let c = timeout(Duration::from_secs(3), a.recv())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!((c.stream, c.ppid), (0, auth::CHALLENGE));
    let forged: [u8; 64] = [0x5a; 64];
    let _ = a
        .send(0, auth::PROOF, Bytes::copy_from_slice(&forged))
        .await;
    let mut req = vec![1u8];
    req.extend_from_slice(&Target::Addr(echo).encode());
    let _ = a.send(1, frame::OPEN, Bytes::from_static(&[0])).await;
    let _ = a.send(1, frame::DATA, Bytes::from(req)).await;
    let ended = timeout(Duration::from_secs(6), async {
        while let Ok(Some(_)) = a.recv().await {}
    })
    .await;
    assert!(ended.is_ok(), "the server ends the association");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(t.server.auth_failures.load(Ordering::SeqCst), 1);
    assert_eq!(t.server.relayed.load(Ordering::SeqCst), 0);
    assert_eq!(accepted.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn associations_per_source_are_bounded() {
    // max_per_source 1: a second client from the same address is refused
    // while the first holds its association.
    let t = tunnel(5451, KEY, Some(KEY), |c| {
        allow_loopback(c);
        c.max_per_source = 1;
    })
    .await
    .unwrap();
    let mut cc = ClientConfig::new(KEY.to_vec(), vec![ip("127.0.0.1")], t.sctp_port);
    cc.udp_port = Some(t.server_udp);
    cc.handshake_timeout = Duration::from_secs(2);
    let mut stack = stack_cfg(5453);
    cc.apply_to(&mut stack);
    let second = Stack::bind(stack).await.unwrap();
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let r = timeout(
        Duration::from_secs(8),
        client::serve(second, l, cc, Arc::default()),
    )
    .await
    .expect("the second client hears of its refusal");
    assert!(r.is_err());
    assert_eq!(t.server.over_limit.load(Ordering::SeqCst), 1);
}

/// Waits up to 5 s for `cond`.
async fn until(what: &str, cond: impl Fn() -> bool) {
    let t0 = tokio::time::Instant::now();
    while !cond() {
        assert!(t0.elapsed() < Duration::from_secs(5), "{what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A stream's bytes through the echo server and back.
async fn echo_on(mut s: msctp_net::streams::SctpStream, data: &[u8]) -> Vec<u8> {
    s.write_all(data).await.unwrap();
    s.shutdown().await.unwrap();
    let mut back = Vec::new();
    timeout(Duration::from_secs(10), s.read_to_end(&mut back))
        .await
        .unwrap()
        .unwrap();
    back
}

/// Forged and replayed stream opens on a live association, with SCTP-AUTH
/// on DATA (`--data-auth`) or without it (the default). Without it, a DATA chunk
/// that carries the association's verification tags is taken from anyone
/// on the path (RFC 9260 section 8.5). Frames the test sends with the
/// client association's own handle, around its streams layer, reach the
/// server exactly as such injected chunks would (a DATA chunk with the
/// right tags and no AUTH chunk); sent this way they also take their TSNs
/// in turn, where a real injection would take a TSN the client uses next
/// and cost the client that one message, as an injected TCP segment does.
///
/// ```text
/// client --OPEN 1, sealed request (echo)------> server: 0, relayed; stream 1 ends
/// x      --OPEN 901, version-1 request (no MAC)> server: reply 1, RESET + DONE
/// x      --OPEN 903, request, MAC of zeros-----> server: reply 2, RESET + DONE
/// x      --OPEN 905, stream 1's request copied-> server: reply 2 (the MAC binds stream 1)
/// x      --OPEN 1, stream 1's request again----> server: reply 2 (its counter was used)
/// client --OPEN 3, another key's request-------> server: reply 2, RESET: the client reads them
/// client --OPEN 5, sealed request (echo)------> server: 0, relayed: the association goes on
/// ```
async fn forged_and_replayed_opens_are_refused(port: u16, data_auth: bool) {
    let (echo, accepted) = echo_server().await;
    let t = tunnel(port, KEY, None, |c| {
        allow_loopback(c);
        c.authenticate_data = data_auth;
    })
    .await
    .unwrap();
    let mut cc = ClientConfig::new(KEY.to_vec(), vec![ip("127.0.0.1")], port);
    cc.udp_port = Some(t.server_udp);
    cc.authenticate_data = data_auth;
    let mut stack = stack_cfg(port + 1);
    cc.apply_to(&mut stack);
    let stack = Stack::bind(stack).await.unwrap();
    let c = client::associate(&stack, &cc).await.unwrap();
    let to = Target::Addr(echo);
    let forged = || t.server.forged_opens.load(Ordering::SeqCst);

    // The client's first open, written out as Tunnel::open does it.
    let mut s = c.conn.open_stream().unwrap();
    assert_eq!(s.id(), 1);
    let req1 = c.opener.request(1, &to);
    s.write_all(&req1).await.unwrap();
    assert_eq!(s.read_u8().await.unwrap(), reply::SUCCEEDED);
    assert_eq!(echo_on(s, b"first").await, b"first");
    until("stream 1 is freed", || c.conn.open_streams() == 0).await;
    // Both sides support RE-CONFIG: the closed stream is reset (RFC 6525
    // section 5.1.2), its next use starts from SSN 0.
    until("stream 1 is reset", || c.conn.stats().reset == 1).await;

    let h = c.conn.handle();
    let inject = |stream: u16, req: Vec<u8>| async move {
        h.send(stream, frame::OPEN, Bytes::from_static(&[0]))
            .await
            .unwrap();
        h.send(stream, frame::DATA, Bytes::from(req)).await.unwrap();
    };
    let mut unsealed = vec![1u8];
    unsealed.extend_from_slice(&to.encode());
    inject(901, unsealed).await;
    until("the version-1 request is refused", || {
        t.server.bad_requests.load(Ordering::SeqCst) == 1
    })
    .await;
    let mut zero_mac = req1.clone();
    let n = zero_mac.len();
    zero_mac[n - open::TAG..].fill(0);
    inject(903, zero_mac).await;
    until("the open without its MAC is refused", || forged() == 1).await;
    inject(905, req1.clone()).await;
    until("the open copied to another stream is refused", || {
        forged() == 2
    })
    .await;
    inject(1, req1.clone()).await;
    until("the open replayed on its stream is refused", || {
        forged() == 3
    })
    .await;

    // An open the client's association made, with another association's
    // key: the opener reads the refusal, then the reset.
    let mut s = c.conn.open_stream().unwrap();
    let stranger = open::OpenKey::derive(KEY, &[7; 32], &[7; 32]);
    s.write_all(&open::seal(&stranger, s.id(), 99, &to))
        .await
        .unwrap();
    assert_eq!(s.read_u8().await.unwrap(), reply::NOT_ALLOWED);
    let e = s.read_u8().await.unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset, "{e}");
    drop(s);
    until("the refused stream's number is free", || {
        c.conn.open_streams() == 0
    })
    .await;
    assert_eq!(forged(), 4);

    // The honest client goes on.
    let s = c
        .open(&to, Duration::from_secs(5))
        .await
        .expect("the client's open");
    assert_eq!(echo_on(s, b"still served").await, b"still served");
    assert_eq!(t.server.relayed.load(Ordering::SeqCst), 2);
    assert_eq!(accepted.load(Ordering::SeqCst), 2, "only the client's two");
    assert!(c.conn.ended().is_none());
    assert_eq!(c.conn.stats().reset_failed, 0, "{:?}", c.conn.stats());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_data_auth_forged_and_replayed_opens_are_refused() {
    forged_and_replayed_opens_are_refused(5461, false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_data_auth_forged_and_replayed_opens_are_refused_too() {
    forged_and_replayed_opens_are_refused(5471, true).await;
}
