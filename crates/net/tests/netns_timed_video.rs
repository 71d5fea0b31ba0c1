//! A video-like stream with timed reliability (RFC 3758, RFC 7496 section
//! 3.1) on real sockets, across three link cuts on a dual-homed mobile:
//! 30 frames a second on one ordered stream, each sent with a lifetime of
//! 200 ms (a frame late for its display time is worth nothing). The
//! mobile runs standard SCTP failover without an interface monitor, so
//! that a cut is noticed only by retransmission timeouts (RFC 9260
//! section 8.2) and the frames meanwhile outlive their lifetime; both
//! stacks also lose 2 % of what they read and reorder 1 % (user-space
//! impairment, `StackConfig::impair`).
//!
//! ```text
//!   MN mn1 10.1.0.2/24 ==== tbf 20 Mbit/s ==== cn1 10.1.0.1/24 CN
//!   MN mn2 10.2.0.2/24 ==== tbf 10 Mbit/s ==== cn2 10.2.0.1/24
//!
//!   t = 1.5 s  cn1 down (the MN's stack is not told)
//!   t = 3.0 s  cn1 up
//!   t = 4.5 s  cn2 down
//!   t = 6.0 s  cn2 up
//!   t = 7.5 s  cn1 down
//!   t = 9.0 s  cn1 up          (the stream ends at 10.5 s)
//! ```
//!
//! The sender abandons a frame whose lifetime ended before it was
//! (re)transmitted and tells the receiver with FORWARD TSN (RFC 3758
//! section 3.5). At the receiver:
//! - no frame is delivered that is older than its lifetime plus the
//!   declared delivery budget (the trip of a frame sent just before its
//!   lifetime ended, and a later frame's wait behind a lost one until the
//!   FORWARD TSN arrives; the links themselves add under a millisecond,
//!   the budget is for a loaded two-core machine);
//! - the frames delivered are in order, none twice;
//! - every frame the sender did not abandon is delivered.
//!
//! Each frame carries its index and its send time (the test's clock,
//! shared by both namespaces' threads). Needs root, `ip` and `tc`
//! (skipped with a printed reason otherwise).

mod common;

use std::net::IpAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::{Netns, skip_reason};
use msctp_net::impair::ImpairConfig;
use msctp_net::{PrPolicy, SendOptions, Stack, StackConfig};

const FPS: u64 = 30;
const FRAMES: u64 = 315; // 10.5 s
const LIFETIME: Duration = Duration::from_millis(200);
/// The declared delivery budget beyond the lifetime (see the module
/// documentation).
const BUDGET: Duration = Duration::from_millis(100);
/// When each link goes down and up again, from the stream's start.
const CUTS: [(u8, u64, u64); 3] = [(1, 1500, 3000), (2, 4500, 6000), (1, 7500, 9000)];

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// Frame `i`: a key frame of 16 KB every second, 3 KB otherwise (about
/// 0.9 Mbit/s); its index and its send time in the first 12 bytes.
fn frame(i: u64, sent: Duration) -> Bytes {
    let len = if i.is_multiple_of(FPS) { 16_000 } else { 3_000 };
    let mut v = vec![(i % 251) as u8; len];
    v[..4].copy_from_slice(&(i as u32).to_be_bytes());
    v[4..12].copy_from_slice(&(sent.as_micros() as u64).to_be_bytes());
    Bytes::from(v)
}

fn config(port: u16, addrs: &[&str], seed: u64) -> StackConfig {
    let mut c = StackConfig::new(port).tuned_for_lan();
    c.local_addrs = addrs.iter().map(|a| ip(a)).collect();
    c.impair = Some(ImpairConfig {
        loss: 0.02,
        reorder: 0.01,
        delay: Duration::from_millis(10),
        seed,
        ..ImpairConfig::default()
    });
    c
}

/// What the receiver saw of one frame.
struct Delivered {
    index: u32,
    age: Duration,
    at: Duration,
}

#[test]
fn timed_reliability_video_across_three_link_cuts() {
    if let Some(why) = skip_reason(&["ip", "tc"]) {
        return msctp_testkit::skip(&why);
    }
    let mn = Netns::with_prefix("rhv", "mn");
    let cn = Netns::with_prefix("rhv", "cn");
    let tag = std::process::id() % 10_000;
    let names = move |k: u8| (format!("rv{k}m{tag}"), format!("rv{k}c{tag}"));
    common::two_tbf_links(
        &mn,
        &cn,
        [&format!("rvp0{tag}"), &format!("rvp1{tag}")],
        |k| {
            let (m, c) = names(k);
            ((m, format!("10.{k}.0.2/24")), (c, format!("10.{k}.0.1/24")))
        },
        "32kbit",
        "20ms",
    );
    let epoch = Instant::now();

    let mut cc = config(5001, &["10.1.0.1", "10.2.0.1"], 11);
    cc.endpoint.listen = true;
    let rx = cn.spawn(move || {
        common::block_on(async move {
            let s = Stack::bind(cc).await.unwrap();
            let mut a = s.accept().await.unwrap();
            let (mut got, mut ftsn) = (Vec::new(), 0);
            let r = tokio::time::timeout(Duration::from_secs(30), async {
                while let Some(m) = a.recv().await.unwrap() {
                    let now = epoch.elapsed();
                    let index = u32::from_be_bytes(m.data[..4].try_into().unwrap());
                    let sent = u64::from_be_bytes(m.data[4..12].try_into().unwrap());
                    let age = now.saturating_sub(Duration::from_micros(sent));
                    got.push(Delivered {
                        index,
                        age,
                        at: now,
                    });
                    // Read while the association lives (its status is gone
                    // once it closed).
                    if let Ok(st) = a.status().await {
                        ftsn = st.stats.forward_tsns_received;
                    }
                }
            })
            .await;
            (r.is_ok(), got, ftsn)
        })
    });

    let tx = mn.spawn(move || {
        common::block_on(async move {
            // Standard SCTP failover (no interface monitor): a cut is
            // noticed by the retransmission timeouts alone.
            let c = config(5002, &["10.1.0.2", "10.2.0.2"], 12);
            let s = Stack::bind(c).await.unwrap();
            let a = s
                .connect(&[ip("10.1.0.1"), ip("10.2.0.1")], 5001)
                .await
                .unwrap();
            assert!(a.status().await.unwrap().pr_sctp, "PR-SCTP negotiated");
            let opts = SendOptions {
                policy: PrPolicy::Lifetime(LIFETIME),
                ..SendOptions::default()
            };
            let start = Instant::now();
            let mut tick = tokio::time::interval(Duration::from_micros(1_000_000 / FPS));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
            for i in 0..FRAMES {
                tick.tick().await;
                a.send_message(0, 0x6d73_0007, frame(i, epoch.elapsed()), opts)
                    .await
                    .unwrap();
            }
            // Until every frame is acknowledged or abandoned.
            let mut st = a.status().await.unwrap();
            for _ in 0..300 {
                if st.send_buffered == 0 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
                st = a.status().await.unwrap();
            }
            tokio::time::timeout(Duration::from_secs(10), a.shutdown())
                .await
                .expect("the shutdown completes")
                .unwrap();
            (start, st)
        })
    });
    // The cuts, timed from about when the first frame left (the
    // association's setup takes a few milliseconds).
    std::thread::sleep(Duration::from_millis(50));
    let cuts_start = Instant::now();
    for (k, down, up) in CUTS {
        let dev = names(k).1;
        for (at, state) in [(down, "down"), (up, "up")] {
            let due = cuts_start + Duration::from_millis(at);
            std::thread::sleep(due.saturating_duration_since(Instant::now()));
            cn.ip(&["link", "set", &dev, state]);
        }
    }
    let (start, st) = tx.join().unwrap();
    let (finished, got, ftsn) = rx.join().unwrap();
    assert!(finished, "the receiver did not see the end of the stream");

    let ab = st.stats.abandoned.lifetime;
    let oldest = got.iter().map(|d| d.age).max().unwrap_or_default();
    let mut ages: Vec<Duration> = got.iter().map(|d| d.age).collect();
    ages.sort();
    let median = ages.get(ages.len() / 2).copied().unwrap_or_default();
    let p99 = ages.get(ages.len() * 99 / 100).copied().unwrap_or_default();
    let stream_start = start.duration_since(epoch);
    eprintln!(
        "{} of {FRAMES} frames delivered; sender abandoned {} unsent + {} sent, {} FORWARD TSNs sent, {ftsn} received",
        got.len(),
        ab.unsent,
        ab.sent,
        st.stats.forward_tsns_sent
    );
    eprintln!("age at delivery: median {median:?}, 99th percentile {p99:?}, oldest {oldest:?}");
    for (k, down, up) in CUTS {
        let cut_at = stream_start + Duration::from_millis(down);
        let missing = (down * FPS / 1000..up * FPS / 1000)
            .filter(|i| !got.iter().any(|d| u64::from(d.index) == *i))
            .count();
        let first_after = got
            .iter()
            .find(|d| d.at > cut_at)
            .map(|d| d.at.saturating_sub(cut_at));
        eprintln!(
            "link {k} cut at {down} ms for {} ms: {missing} frames sent meanwhile not delivered, next delivery {first_after:?} after the cut",
            up - down
        );
    }
    let late: Vec<(u32, Duration)> = got
        .iter()
        .filter(|d| d.age > LIFETIME + BUDGET)
        .map(|d| (d.index, d.age))
        .collect();
    assert!(late.is_empty(), "frames delivered too old: {late:?}");
    assert!(
        got.windows(2).all(|w| w[0].index < w[1].index),
        "in order, none twice"
    );
    let abandoned = ab.unsent + ab.sent;
    assert!(
        abandoned > 0,
        "the cuts and losses made the sender abandon frames"
    );
    assert!(ftsn > 0, "the receiver skipped with FORWARD TSN");
    // A frame abandoned after it was sent may still have arrived (its
    // acknowledgement was lost or late); every other frame arrived.
    assert!(
        got.len() as u64 + abandoned >= FRAMES,
        "{} delivered + {abandoned} abandoned < {FRAMES}",
        got.len()
    );
    assert_eq!(st.send_buffered, 0, "everything acknowledged or skipped");
}
