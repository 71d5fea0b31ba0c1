//! Quick failover (SCTP-PF, RFC 7829) on real sockets: a dual-homed
//! mobile uploads a file over its primary link; at 0.8 s that path goes
//! silent in both directions behind the correspondent's interface (an
//! nftables drop rule in the correspondent's namespace: a failure the
//! mobile's link layer cannot see, so no interface monitor helps) until
//! 0.3 s after the data has moved off it. Plain SCTP moves new data to the other path only after PMR + 1
//! = 6 consecutive timeouts (63 times the RTO at the cut, at least
//! 1.26 s with RTO.Min 20 ms; 2-6 s here, the tbf queue raising the
//! RTO); with SCTP-PF (PFMR 0) after the first.
//!
//! ```text
//!   MN mn1 10.1.0.2/24 ==== 20 Mbit/s ==== cn1 10.1.0.1/24 CN   (silent from 0.8 s)
//!   MN mn2 10.2.0.2/24 ==== 10 Mbit/s ==== cn2 10.2.0.1/24 CN
//! ```
//!
//! The handover latency is the time from the cut to the mobile's
//! `PrimaryChanged` (new data moves to 10.2.0.1). Plain failover's
//! longest delivery gap is shorter than that: after each timeout the
//! outstanding data is retransmitted on the other path (RFC 9260 section
//! 6.4.1), so the receiver gets a trickle while new data still waits for
//! the failed path.
//!
//! Needs root, `ip`, `tc` and `nft` (skipped with a printed reason
//! otherwise). Both runs must deliver the file intact.

mod common;

use std::net::IpAddr;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{Netns, skip_reason, veth_link};
use msctp_net::transfer::{self, ReceiveReport};
use msctp_net::{Event, NetEvent, Stack, StackConfig};
use sha2::{Digest, Sha256};

const CUT_AT: Duration = Duration::from_millis(800);
/// The path comes back this long after the data moved off it (so that
/// the shutdown at the end needs no failure detection of its own), at the
/// latest after `MAX_CUT`.
const BACK_AFTER_MOVE: Duration = Duration::from_millis(300);
const MAX_CUT: Duration = Duration::from_secs(12);

/// What one run saw.
struct Run {
    report: ReceiveReport,
    /// The sender's events, with their time since the cut.
    events: Vec<(Duration, NetEvent)>,
}

impl Run {
    /// When new data moved to `addr`, after the cut.
    fn moved_to(&self, addr: IpAddr) -> Option<Duration> {
        self.events.iter().find_map(|(t, e)| match e {
            NetEvent::Assoc(Event::PrimaryChanged { addr: a, .. }) if *a == addr => Some(*t),
            _ => None,
        })
    }

    fn has(&self, want: &Event) -> bool {
        self.events
            .iter()
            .any(|(_, e)| *e == NetEvent::Assoc(want.clone()))
    }
}

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// One upload with link 1 cut at `CUT_AT`; `pfmr`: SCTP-PF's threshold.
fn run(pfmr: Option<u32>, data: Arc<Vec<u8>>) -> Option<Run> {
    let tag = if pfmr.is_some() { "pf" } else { "plain" };
    let mn = Netns::with_prefix("i18", &format!("qfmn{tag}"));
    let cn = Netns::with_prefix("i18", &format!("qfcn{tag}"));
    let tbf = |rate: &'static str| -> Vec<&'static str> {
        vec!["tbf", "rate", rate, "burst", "32kbit", "latency", "20ms"]
    };
    veth_link(
        &mn,
        &cn,
        ("mn1", "10.1.0.2/24"),
        ("cn1", "10.1.0.1/24"),
        &tbf("20mbit"),
    );
    veth_link(
        &mn,
        &cn,
        ("mn2", "10.2.0.2/24"),
        ("cn2", "10.2.0.1/24"),
        &tbf("10mbit"),
    );
    // The cut: a table whose chains are empty until then.
    let table = "table inet cut {\n chain in { type filter hook input priority 0; }\n chain out { type filter hook output priority 0; }\n}\n";
    let ok = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "printf '{table}' | ip netns exec {} nft -f -",
            cn.name
        ))
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        msctp_testkit::skip("nftables refused a filter table");
        return None;
    }
    let rx = cn.spawn(|| {
        common::block_on(async {
            let mut c = StackConfig::new(5001).tuned_for_lan();
            c.local_addrs = vec![ip("10.1.0.1"), ip("10.2.0.1")];
            c.endpoint.listen = true;
            let s = Stack::bind(c).await.unwrap();
            let mut a = s.accept().await.unwrap();
            tokio::time::timeout(
                Duration::from_secs(40),
                transfer::receive_file(&mut a, tokio::io::sink(), Duration::from_millis(50)),
            )
            .await
            .expect("transfer finished")
            .unwrap()
        })
    });
    let cn_name = cn.name.clone();
    let tx = mn.spawn(move || {
        common::block_on(async move {
            let mut c = StackConfig::new(5002).tuned_for_lan();
            c.local_addrs = vec![ip("10.1.0.2"), ip("10.2.0.2")];
            c.endpoint.association.pf_max_retrans = pfmr;
            let s = Stack::bind(c).await.unwrap();
            let mut a = s
                .connect(&[ip("10.1.0.1"), ip("10.2.0.1")], 5001)
                .await
                .unwrap();
            let log: Arc<Mutex<Vec<(Instant, NetEvent)>>> = Arc::default();
            let mut events = a.take_events().unwrap();
            let l = log.clone();
            let moved = Arc::new(tokio::sync::Notify::new());
            let m = moved.clone();
            let watch = tokio::spawn(async move {
                while let Some(e) = events.recv().await {
                    if matches!(
                        e,
                        NetEvent::Assoc(Event::PrimaryChanged { addr, .. }) if addr == ip("10.2.0.1")
                    ) {
                        m.notify_one();
                    }
                    l.lock().unwrap().push((Instant::now(), e));
                }
            });
            let cut = tokio::spawn(async move {
                let rule = |verb: &str, chain: &str, dir: &str| {
                    let mut v = vec!["ip", "netns", "exec", &cn_name, "nft", verb];
                    match verb {
                        "add" => v.extend(["rule", "inet", "cut", chain, dir, "cn1", "drop"]),
                        _ => v.extend(["chain", "inet", "cut", chain]),
                    }
                    common::sh(&v);
                };
                tokio::time::sleep(CUT_AT).await;
                let at = Instant::now();
                for (chain, dir) in [("in", "iifname"), ("out", "oifname")] {
                    rule("add", chain, dir);
                }
                let _ = tokio::time::timeout(MAX_CUT, moved.notified()).await;
                tokio::time::sleep(BACK_AFTER_MOVE).await;
                for chain in ["in", "out"] {
                    rule("flush", chain, "");
                }
                at
            });
            transfer::send_file(&a, "f.bin", data.len() as u64, &data[..], 1400)
                .await
                .unwrap();
            let cut_at = cut.await.unwrap();
            watch.abort();
            log.lock()
                .unwrap()
                .iter()
                .map(|(t, e)| (t.saturating_duration_since(cut_at), e.clone()))
                .collect::<Vec<_>>()
        })
    });
    let events = tx.join().unwrap();
    let report = rx.join().unwrap();
    Some(Run { report, events })
}

#[test]
fn sctp_pf_moves_data_after_one_timeout_on_real_sockets() {
    if let Some(why) = skip_reason(&["ip", "tc", "nft"]) {
        msctp_testkit::skip(&why);
        return;
    }
    let data: Vec<u8> = (0..(3usize << 20))
        .map(|i| (i.wrapping_mul(7_919) >> 7) as u8)
        .collect();
    let sha = transfer::hex(&Sha256::digest(&data));
    // Both runs at once, each in its own namespaces.
    let data = Arc::new(data);
    let (d1, d2) = (data.clone(), data.clone());
    let plain = std::thread::spawn(move || run(None, d1));
    let pf = std::thread::spawn(move || run(Some(0), d2));
    let (Some(plain), Some(pf)) = (plain.join().unwrap(), pf.join().unwrap()) else {
        return;
    };
    for (name, r) in [("plain failover", &plain), ("SCTP-PF", &pf)] {
        assert!(
            r.report.intact && r.report.sha256 == sha,
            "{name}: file intact: {:?}",
            r.report
        );
    }
    let (primary, alternate) = (ip("10.1.0.1"), ip("10.2.0.1"));
    let pf_state = Event::PathPotentiallyFailed { addr: primary };
    assert!(!plain.has(&pf_state), "no PF state without SCTP-PF");
    assert!(pf.has(&pf_state), "PF state with SCTP-PF: {:?}", pf.events);
    let plain_moved = plain.moved_to(alternate).expect("plain failover happened");
    let pf_moved = pf.moved_to(alternate).expect("SCTP-PF moved the data");
    eprintln!(
        "path cut behind the correspondent: new data moved to the other path {:.0} ms after \
         the cut with RFC 9260 failover (PMR 5), {:.0} ms with SCTP-PF (PFMR 0); longest \
         delivery gaps {:.1} ms and {:.1} ms; transfers {:.2} s and {:.2} s",
        plain_moved.as_secs_f64() * 1e3,
        pf_moved.as_secs_f64() * 1e3,
        plain.report.longest_gap_ms,
        pf.report.longest_gap_ms,
        plain.report.elapsed_s,
        pf.report.elapsed_s
    );
    // RFC 9260: six timeouts, RTO.Min 20 ms doubling: at least 1.26 s.
    assert!(
        plain_moved >= Duration::from_millis(1200),
        "plain failover waits PMR + 1 timeouts: {plain_moved:?}"
    );
    assert!(
        plain.has(&Event::PathDown { addr: primary }),
        "plain failover declares the path down"
    );
    // SCTP-PF: one timeout (the RTO under load, tens of ms).
    assert!(
        pf_moved <= Duration::from_millis(400),
        "SCTP-PF moves the data after one timeout: {pf_moved:?}"
    );
    // The PF destination answers its probe once the path is back.
    assert!(
        pf.has(&Event::PathUp { addr: primary }),
        "the PF destination came back: {:?}",
        pf.events
    );
    assert!(
        pf.report.longest_gap_ms <= 400.0,
        "SCTP-PF: the receiver waits one timeout: {:.1} ms",
        pf.report.longest_gap_ms
    );
}
