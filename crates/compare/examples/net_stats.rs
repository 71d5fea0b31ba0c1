//! Profiling aid: msctp on loopback at 1452-byte packets, as `msctp bench
//! net`'s Ethernet-size contender, with the drivers' counters at the end
//! (datagrams per sendmmsg, GSO trains, SACKs).
use std::net::{IpAddr, Ipv4Addr};
use std::time::Instant;

use bytes::Bytes;
use msctp_net::config::StackConfig;
use msctp_net::stack::Stack;

const LO: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

fn cfg(port: u16, listen: bool) -> StackConfig {
    let mut c = StackConfig::new(port).tuned_for_lan();
    c.udp_port = 0;
    c.local_addrs = vec![LO];
    c.endpoint.listen = listen;
    let a = &mut c.endpoint.association;
    a.max_message_size = 65536;
    a.auth = false;
    a.asconf = false;
    a.path_mtu = 1452;
    // BURST=n: a fixed Max.Burst of n packets instead of the autosized one.
    if let Some(b) = std::env::var("BURST").ok().and_then(|b| b.parse().ok()) {
        a.max_burst = Some(b);
        a.burst_autosize = None;
    }
    c.loopback_mtu = false;
    c
}

fn main() {
    let mb: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let total = mb << 20;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let cpu0 = msctp_compare::process_cpu_seconds();
    rt.block_on(async {
        let server = Stack::bind(cfg(5001, true)).await.unwrap();
        let sport = server.udp_port();
        let client = Stack::bind(cfg(5002, false)).await.unwrap();
        let srv = std::sync::Arc::new(server);
        let s2 = srv.clone();
        let rx = tokio::spawn(async move {
            let mut a = s2.accept().await.unwrap();
            let mut got = 0u64;
            let t = Instant::now();
            while let Some(m) = a.recv().await.unwrap() {
                got += m.data.len() as u64;
            }
            (got, t.elapsed().as_secs_f64())
        });
        let a = client.connect_via(&[LO], 5001, Some(sport)).await.unwrap();
        let payload = Bytes::from(vec![0x42u8; 65536]);
        let mut sent = 0;
        while sent < total {
            a.send(0, 0, payload.clone()).await.unwrap();
            sent += 65536;
        }
        a.shutdown().await.unwrap();
        let (got, secs) = rx.await.unwrap();
        println!("{:.1} MB/s", got as f64 / secs / 1e6);
        for (n, s) in [
            ("client", client.stats().await.unwrap()),
            ("server", srv.stats().await.unwrap()),
        ] {
            println!(
                "{n}: sent {} in {} sendmmsg, {} GSO trains; received {} in {} recvmmsg",
                s.datagrams_sent,
                s.send_batches,
                s.gso_trains,
                s.datagrams_received,
                s.recv_batches
            );
        }
    });
    println!("CPU {:.2} s", msctp_compare::process_cpu_seconds() - cpu0);
}
