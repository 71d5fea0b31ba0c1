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
    // BURST=n: a fixed Max.Burst of n packets instead of the autosized one
    // (BURST=45: one 64 KB GSO train per burst, the autosized cap before
    // 2026-11-29 13:30).
    if let Some(b) = std::env::var("BURST").ok().and_then(|b| b.parse().ok()) {
        a.max_burst = Some(b);
        a.burst_autosize = None;
    }
    c.loopback_mtu = false;
    // RECV_BATCH=n: datagrams read in one pass before what they caused
    // (the SACK) is sent.
    if let Some(b) = std::env::var("RECV_BATCH")
        .ok()
        .and_then(|b| b.parse().ok())
    {
        c.recv_batch = b;
    }
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
    let sched0 = schedstat();
    let wall0 = Instant::now();
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
    // Cores in use: CPU seconds over wall seconds of the whole run (a
    // transfer that alternates between its ends uses about one).
    let (cpu, wall) = (
        msctp_compare::process_cpu_seconds() - cpu0,
        wall0.elapsed().as_secs_f64(),
    );
    println!(
        "CPU {cpu:.2} s in {wall:.2} s: {:.2} CPU s per GB, {:.2} cores",
        cpu / (total as f64 / 1e9),
        cpu / wall.max(1e-9)
    );
    // The scheduler's view (/proc/self/task/*/schedstat): per thread, time
    // on a CPU and time runnable but waiting for one. On a loaded machine
    // (run + wait) / wall is how many cores the run would have used had
    // it had them.
    let sched1 = schedstat();
    let mut run_wait = (0.0, 0.0);
    for (tid, (run, wait)) in &sched1 {
        let (r0, w0) = sched0.get(tid).copied().unwrap_or((0.0, 0.0));
        println!(
            "  thread {tid}: on CPU {:.2} s, waiting for one {:.2} s",
            run - r0,
            wait - w0
        );
        run_wait.0 += run - r0;
        run_wait.1 += wait - w0;
    }
    println!(
        "  on CPU {:.2} s, runnable waiting {:.2} s: {:.2} cores wanted",
        run_wait.0,
        run_wait.1,
        (run_wait.0 + run_wait.1) / wall.max(1e-9)
    );
}

/// Per thread of this process: seconds on a CPU and seconds runnable but
/// waiting for one.
fn schedstat() -> std::collections::BTreeMap<u64, (f64, f64)> {
    let mut m = std::collections::BTreeMap::new();
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return m;
    };
    for e in dir.flatten() {
        let Ok(tid) = e.file_name().to_string_lossy().parse::<u64>() else {
            continue;
        };
        let Ok(s) = std::fs::read_to_string(e.path().join("schedstat")) else {
            continue;
        };
        let v: Vec<f64> = s
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        if v.len() >= 2 {
            m.insert(tid, (v[0] / 1e9, v[1] / 1e9));
        }
    }
    m
}
