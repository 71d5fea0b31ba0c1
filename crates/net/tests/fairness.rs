//! Fair service of several associations by one driver (issue 18): four
//! clients, each its own stack on its own UDP port of 127.0.0.1, upload
//! at full speed to one server stack at once. Over a common window every
//! association must get within 25% of the mean throughput, and no
//! receiver may wait more than 50 ms between two deliveries.
//!
//! Two faults made one association starve the others. Before the remote
//! encapsulation port was learned per association (RFC 6951 section 5),
//! the server answered every association on 127.0.0.1 at the UDP port of
//! the last packet it had read: SACKs went to the wrong client, which
//! dropped them; one association ran at full speed while another crawled
//! through timeouts or was aborted. And with Max.Burst off (`--lan` had
//! it so), each sender emptied its whole window at once whenever a SACK
//! opened it: the four bursts overflowed the server socket's buffer and
//! thousands of chunks a run were lost and resent, the delivery gaps
//! reaching 50 ms. With RFC 9260's Max.Burst of 4 the kernel drops none.
//!
//! Measured on the shared 2-core machine at a load of 8-9 (others
//! building): 1.0-1.7 Gbit/s per association, within 1.1% of the mean,
//! longest gaps 15-34 ms (also at nice 19). What gap remains is the
//! machine's: all four receivers wait at once, now and then behind an
//! occasional spurious T3 expiry (RTO.Min 20 ms) when the CPU is taken;
//! the printed line gives each sender's retransmissions.

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use msctp_net::{Stack, StackConfig};

const CLIENTS: usize = 4;
/// Sending starts for everyone at once; the window is measured after a
/// warm-up (slow start, first capacity probes).
const WARM_UP: Duration = Duration::from_millis(700);
const WINDOW: Duration = Duration::from_secs(3);
/// The perf tool's default message size (the case).
const MESSAGE: usize = 1400;

fn lo() -> IpAddr {
    "127.0.0.1".parse().unwrap()
}

fn cfg(port: u16, listen: bool) -> StackConfig {
    let mut c = StackConfig::new(port).tuned_for_lan();
    c.udp_port = 0;
    c.local_addrs = vec![lo()];
    c.endpoint.listen = listen;
    c.connect_timeout = Duration::from_secs(5);
    c
}

/// What one receiver saw inside the window.
#[derive(Debug, Clone, Copy, Default)]
struct Seen {
    bytes: u64,
    longest_gap: Duration,
}

/// A runtime of its own for one side (a process of its own in the issue's
/// case: one `msctp perf` server, clients started next to it).
fn runtime(workers: usize) -> tokio::runtime::Runtime {
    let mut b = if workers > 1 {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.worker_threads(workers);
        b
    } else {
        tokio::runtime::Builder::new_current_thread()
    };
    b.enable_all().build().expect("tokio runtime")
}

/// Reads an accepted association until the sender shuts down; what it saw
/// between `from` and `until`.
async fn receive(mut a: msctp_net::Association, from: Instant, until: Instant) -> Seen {
    let mut seen = Seen::default();
    let mut last: Option<Instant> = None;
    while let Ok(Some(m)) = a.recv().await {
        let now = Instant::now();
        if now >= from {
            // The wait since the previous delivery, clipped to the
            // window (a receiver starved at its start counts too).
            let l = last.map_or(from, |l| l.max(from));
            if l < until {
                seen.longest_gap = seen.longest_gap.max(now.min(until) - l);
            }
        }
        if now >= from && now <= until {
            seen.bytes += m.data.len() as u64;
        }
        last = Some(now);
    }
    seen
}

#[test]
fn four_associations_share_the_driver_fairly() {
    // The server (two worker threads, as `msctp perf --server`) and the
    // clients run side by side, as the processes of the case do:
    // the server's driver alone shares its time between the associations.
    // (In one runtime with the clients, the server's driver waited behind
    // their tasks on a loaded machine, and its SACKs came late enough for
    // spurious timeouts: gaps up to 130 ms.)
    let start = Instant::now() + Duration::from_millis(800);
    let from = start + WARM_UP;
    let until = from + WINDOW;
    let stop = Arc::new(AtomicBool::new(false));
    let (port_tx, port_rx) = std::sync::mpsc::channel();
    let server = std::thread::spawn(move || {
        runtime(2).block_on(async move {
            let server = Stack::bind(cfg(5201, true)).await.unwrap();
            port_tx.send(server.udp_port()).unwrap();
            let mut receivers = Vec::new();
            for _ in 0..CLIENTS {
                let a = tokio::time::timeout(Duration::from_secs(5), server.accept())
                    .await
                    .expect("accepted")
                    .unwrap();
                receivers.push(tokio::spawn(receive(a, from, until)));
            }
            let mut seen = Vec::new();
            for r in receivers {
                seen.push(
                    tokio::time::timeout(Duration::from_secs(20), r)
                        .await
                        .expect("the sender shut down")
                        .unwrap(),
                );
            }
            seen
        })
    });
    let sport = port_rx.recv().unwrap();
    // The four clients share one runtime (two threads): its scheduler
    // runs their tasks in turn, so that only the server's driver decides
    // who is served.
    let s = stop.clone();
    let clients = std::thread::spawn(move || {
        runtime(2).block_on(async move {
            let mut senders = Vec::new();
            for k in 0..CLIENTS {
                let c = Stack::bind(cfg(5210 + k as u16, false)).await.unwrap();
                let a = c.connect_via(&[lo()], 5201, Some(sport)).await.unwrap();
                let stop = s.clone();
                senders.push(tokio::spawn(async move {
                    tokio::time::sleep_until(start.into()).await;
                    let payload = Bytes::from(vec![0x5a; MESSAGE]);
                    while !stop.load(Ordering::Relaxed) {
                        a.send(0, 1, payload.clone()).await.unwrap();
                    }
                    let st = a.status().await.unwrap();
                    a.shutdown().await.unwrap();
                    drop(c);
                    (
                        st.stats.retransmitted_chunks,
                        st.stats.t3_expirations,
                        st.stats.fast_retransmissions,
                    )
                }));
            }
            let mut rtx = Vec::new();
            for t in senders {
                rtx.push(t.await.unwrap());
            }
            rtx
        })
    });
    // A witness of the machine's load, not part of the verdict: how much
    // later than asked a thread that sleeps 1 ms at a time wakes up (a
    // gap all four receivers share is the machine's, and shows here too).
    let mut overslept = Duration::ZERO;
    while Instant::now() < until + Duration::from_millis(100) {
        let t = Instant::now();
        std::thread::sleep(Duration::from_millis(1));
        if t >= from && t < until {
            overslept = overslept.max(t.elapsed().saturating_sub(Duration::from_millis(1)));
        }
    }
    stop.store(true, Ordering::Relaxed);
    let rtx = clients.join().unwrap();
    let seen = server.join().unwrap();
    let mbps: Vec<f64> = seen
        .iter()
        .map(|s| s.bytes as f64 * 8.0 / WINDOW.as_secs_f64() / 1e6)
        .collect();
    let mean = mbps.iter().sum::<f64>() / mbps.len() as f64;
    let spread = mbps
        .iter()
        .map(|m| (m - mean).abs() / mean)
        .fold(0.0, f64::max);
    let gaps: Vec<f64> = seen
        .iter()
        .map(|s| s.longest_gap.as_secs_f64() * 1e3)
        .collect();
    println!(
        "fairness: {} associations, Mbit/s {:?}, mean {mean:.1}, largest deviation {:.1}%, \
         longest gaps (ms) {:?}, (retransmitted chunks, T3 expirations, fast retransmissions) {rtx:?}, \
         longest oversleep of a 1 ms sleep {:.1} ms",
        CLIENTS,
        mbps.iter()
            .map(|m| (m * 10.0).round() / 10.0)
            .collect::<Vec<_>>(),
        spread * 100.0,
        gaps.iter()
            .map(|g| (g * 10.0).round() / 10.0)
            .collect::<Vec<_>>(),
        overslept.as_secs_f64() * 1e3
    );
    assert!(
        mean > 10.0,
        "the associations moved data ({mean:.1} Mbit/s)"
    );
    assert!(
        spread <= 0.25,
        "every association within 25% of the mean: {mbps:?}"
    );
    for g in &gaps {
        assert!(*g <= 50.0, "no delivery gap above 50 ms: {gaps:?}");
    }
}
