//! The user-space impairment (`StackConfig::impair`, `msctp_net::impair`)
//! on the loopback interface, no root needed: with 5 % loss, 5 %
//! duplication and 5 % reordering on what both stacks receive, a transfer
//! of numbered messages on four streams arrives complete, each message
//! once and in order per stream (RFC 9260 sections 6.2, 6.6, 6.10), and
//! the driver's counters show that the impairment did drop, duplicate and
//! hold back datagrams.
//!
//! ```text
//!   client 127.0.0.1 --- DATA (5 % dropped / doubled / held up to 20 ms) --> server
//!   client <-- SACK (the same on the way back) ---------------------------- server
//! ```

use std::net::IpAddr;
use std::time::Duration;

use msctp_net::impair::ImpairConfig;
use msctp_net::soak::traffic::{PPID_SOAK, StreamCheck, encode};
use msctp_net::{Stack, StackConfig};

fn cfg(port: u16, listen: bool, seed: u64) -> StackConfig {
    let mut c = StackConfig::new(port).tuned_for_lan();
    c.udp_port = 0;
    c.local_addrs = vec![IpAddr::from([127, 0, 0, 1])];
    c.endpoint.listen = listen;
    // Packets of an Ethernet path MTU, not loopback's 64 KiB: many
    // datagrams, so that each impairment is drawn often.
    c.loopback_mtu = false;
    c.impair = Some(ImpairConfig {
        loss: 0.05,
        dup: 0.05,
        reorder: 0.05,
        seed,
        ..ImpairConfig::default()
    });
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn impaired_loopback_delivers_every_message_once_in_order() {
    const STREAMS: u16 = 4;
    const PER_STREAM: u64 = 500;
    let server = Stack::bind(cfg(5101, true, 1)).await.unwrap();
    let sport = server.udp_port();
    let client = Stack::bind(cfg(5102, false, 2)).await.unwrap();
    let srv = tokio::spawn(async move {
        let mut a = server.accept().await.unwrap();
        let mut check = StreamCheck::new(STREAMS);
        while let Some(m) = a.recv().await.unwrap() {
            check.check(m.stream, m.ppid, &m.data);
        }
        (check, server.stats().await.unwrap())
    });
    let a = client
        .connect_via(&[IpAddr::from([127, 0, 0, 1])], 5101, Some(sport))
        .await
        .unwrap();
    for seq in 0..PER_STREAM {
        for s in 0..STREAMS {
            a.send(s, PPID_SOAK, encode(s, seq)).await.unwrap();
        }
    }
    a.shutdown().await.unwrap();
    let cstats = client.stats().await.unwrap();
    let (check, sstats) = tokio::time::timeout(Duration::from_secs(60), srv)
        .await
        .expect("server finished")
        .unwrap();
    let sent = vec![PER_STREAM; usize::from(STREAMS)];
    assert_eq!(
        (
            check.duplicates,
            check.reorders,
            check.corrupt,
            check.missing(&sent)
        ),
        (0, 0, 0, 0),
        "duplicates, out of order, corrupt, missing: {check:?}"
    );
    assert_eq!(check.delivered, PER_STREAM * u64::from(STREAMS));
    // The server reads thousands of DATA packets, the client far fewer
    // SACKs (one per two packets at most): all three impairments at the
    // server, at least one at the client.
    let (c, s) = (cstats.impaired, sstats.impaired);
    assert!(
        s.dropped > 0 && s.duplicated > 0 && s.reordered > 0,
        "the server's receive path was impaired: {s:?}"
    );
    assert!(
        c.dropped + c.duplicated + c.reordered > 0,
        "the client's receive path was impaired: {c:?}"
    );
    eprintln!(
        "impairment: client {:?}, server {:?}",
        cstats.impaired, sstats.impaired
    );
}
