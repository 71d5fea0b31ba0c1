//! Concurrent multipath transfer on real interfaces (needs root; skipped
//! with a printed reason otherwise).
//!
//! Two network namespaces, MN and CN, joined by two veth pairs shaped with
//! tbf (a token bucket of one packet, so that each link sends at its rate
//! and packet pairs measure it, as on a real link):
//!
//! ```text
//!   MN cm1 10.1.0.2/24 ==== 20 Mbit/s ==== cc1 10.1.0.1/24 CN
//!   MN cm2 10.2.0.2/24 ==== 10 Mbit/s ==== cc2 10.2.0.1/24 CN
//! ```
//!
//! The MN uploads a file with a known SHA-256, one system after the other
//! on the same links: msctp with CMT (fastest path first) over both links,
//! msctp on one path (link 1), Linux MPTCP (a second subflow over link 2,
//! announced by the CN) and TCP over link 1. Each receiver measures the
//! time from its first to its last delivery and the longest wait between
//! deliveries. Then msctp with CMT again while link 1 goes down for two
//! seconds mid-transfer (the CN's end, so the MN sees its carrier drop).
//! Run with `--nocapture` for the table (README.md records runs).

mod common;

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use common::streams::{enable_mptcp, send_stream};
use common::{Netns, skip_reason};
use msctp_net::transfer;
use msctp_net::{PolicyKind, Stack, StackConfig};
use msctp_proto::{CmtConfig, CmtScheduler};
use sha2::{Digest, Sha256};

const FILE_SIZE: usize = 16 << 20;
/// A run that has not finished by then counts as not completed.
const RUN_LIMIT: Duration = Duration::from_secs(40);
/// Link 1 is down from this long into the last transfer ...
const CUT_AT: Duration = Duration::from_millis(1500);
/// ... for this long.
const CUT_FOR: Duration = Duration::from_secs(2);

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

struct Topology {
    mn: Netns,
    cn: Netns,
}

impl Topology {
    fn new() -> Topology {
        let mn = Netns::with_prefix("i12", "mn");
        let cn = Netns::with_prefix("i12", "cn");
        common::two_tbf_links(
            &mn,
            &cn,
            ["cpad0", "cpad1"],
            |k| {
                (
                    (format!("cm{k}"), format!("10.{k}.0.2/24")),
                    (format!("cc{k}"), format!("10.{k}.0.1/24")),
                )
            },
            "1600",
            "20ms",
        );
        Topology { mn, cn }
    }

    fn set_link1(&self, up: bool) {
        self.cn
            .ip(&["link", "set", "cc1", if up { "up" } else { "down" }]);
    }
}

fn test_file() -> (Vec<u8>, String) {
    let data: Vec<u8> = (0..FILE_SIZE)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
        .collect();
    let sha = transfer::hex(&Sha256::digest(&data));
    (data, sha)
}

/// One row of the table.
#[derive(Debug)]
struct Row {
    system: String,
    completed: bool,
    intact: bool,
    throughput_mbps: f64,
    longest_gap_ms: f64,
    elapsed_s: f64,
    note: String,
}

/// Sends the file from the MN to the CN with msctp; with `cmt` on both
/// ends. With `cut`, link 1 goes down at CUT_AT for CUT_FOR.
fn run_msctp(t: &Arc<Topology>, data: Arc<Vec<u8>>, sha: &str, cmt: bool, cut: bool) -> Row {
    let cmt_config = if cmt {
        CmtConfig::on(CmtScheduler::FastestPathFirst)
    } else {
        CmtConfig::default()
    };
    let rx = t.cn.spawn(move || {
        common::block_on(async move {
            let mut c = StackConfig::new(5001).tuned_for_lan();
            c.local_addrs = vec![ip("10.1.0.1"), ip("10.2.0.1")];
            c.endpoint.listen = true;
            c.endpoint.association.cmt = cmt_config;
            common::accept_and_receive(c, RUN_LIMIT, Duration::from_millis(50)).await
        })
    });
    let topo = t.clone();
    let tx = t.mn.spawn(move || {
        common::block_on(async move {
            let mut c = StackConfig::new(5002).tuned_for_lan();
            c.local_addrs = vec![ip("10.1.0.2"), ip("10.2.0.2")];
            c.endpoint.association.cmt = cmt_config;
            // The interface monitor and the fastest-first policy, as a
            // mobile host runs them: a link going down moves its
            // outstanding data to the other at once.
            c.monitor = true;
            c.interfaces = vec!["cm1".into(), "cm2".into()];
            c.policy = PolicyKind::FastestFirst {
                rates: BTreeMap::from([("cm1".into(), 20_000_000), ("cm2".into(), 10_000_000)]),
            };
            let s = Stack::bind(c).await.unwrap();
            let a = s
                .connect(&[ip("10.1.0.1"), ip("10.2.0.1")], 5001)
                .await
                .unwrap();
            // Both paths confirmed (and their capacity measured) first.
            tokio::time::sleep(Duration::from_millis(1500)).await;
            let cutter = cut.then(|| {
                let topo = topo.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(CUT_AT);
                    topo.set_link1(false);
                    std::thread::sleep(CUT_FOR);
                    topo.set_link1(true);
                })
            });
            let r = tokio::time::timeout(
                RUN_LIMIT,
                transfer::send_file(&a, "test.bin", FILE_SIZE as u64, &data[..], 16384),
            )
            .await;
            if let Some(c) = cutter {
                let _ = c.join();
            }
            r.ok().and_then(|r| r.ok())
        })
    });
    let sent = tx.join().unwrap();
    let got = rx.join().unwrap();
    let system = match (cmt, cut) {
        (true, false) => "msctp CMT (fastest path first)",
        (true, true) => "msctp CMT, link 1 down 2 s",
        (false, _) => "msctp single path (link 1)",
    };
    let shares = sent.as_ref().map_or(String::new(), |s| {
        s.paths
            .iter()
            .map(|p| {
                format!(
                    "{}: {:.0}%",
                    p.peer,
                    p.bytes_acked as f64 * 100.0 / FILE_SIZE as f64
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    });
    match got {
        Some(r) => Row {
            system: system.into(),
            completed: sent.is_some(),
            intact: r.intact && r.sha256 == sha,
            throughput_mbps: r.throughput_bps / 1e6,
            longest_gap_ms: r.longest_gap_ms,
            elapsed_s: r.elapsed_s,
            note: format!("per path {shares}"),
        },
        None => Row {
            system: system.into(),
            completed: false,
            intact: false,
            throughput_mbps: 0.0,
            longest_gap_ms: f64::NAN,
            elapsed_s: RUN_LIMIT.as_secs_f64(),
            note: "did not finish".into(),
        },
    }
}

fn run_stream(t: &Arc<Topology>, data: Arc<Vec<u8>>, sha: &str, mptcp: bool) -> Row {
    let port = if mptcp { 6101 } else { 6102 };
    let r = send_stream(
        &t.mn,
        &t.cn,
        (ip("10.1.0.1"), port),
        data,
        mptcp,
        RUN_LIMIT,
        || {},
    );
    Row {
        system: if mptcp {
            "Linux MPTCP (2 subflows)".into()
        } else {
            "TCP (link 1)".into()
        },
        completed: r.sent_ok && r.bytes == FILE_SIZE,
        intact: r.sha256 == sha,
        throughput_mbps: r.throughput_bps() / 1e6,
        longest_gap_ms: r.gaps.longest.as_secs_f64() * 1e3,
        elapsed_s: r.gaps.span().as_secs_f64(),
        note: format!("{:.1} MB received", r.bytes as f64 / 1e6),
    }
}

#[test]
fn cmt_aggregates_two_links_and_survives_one_going_down() {
    if let Some(why) = skip_reason(&["ip", "tc"]) {
        msctp_testkit::skip(&why);
        return;
    }
    let t = Arc::new(Topology::new());
    let (data, sha) = test_file();
    let data = Arc::new(data);
    let mut rows = vec![
        run_msctp(&t, data.clone(), &sha, true, false),
        run_msctp(&t, data.clone(), &sha, false, false),
    ];
    let mptcp = enable_mptcp(&t.mn, &t.cn, "10.2.0.1", "cc2");
    if mptcp {
        rows.push(run_stream(&t, data.clone(), &sha, true));
    } else {
        msctp_testkit::skip("the MPTCP row: MPTCP is not available in this kernel");
    }
    rows.push(run_stream(&t, data.clone(), &sha, false));
    rows.push(run_msctp(&t, data.clone(), &sha, true, true));

    println!(
        "\n| system | completed | intact (SHA-256) | throughput | longest delivery gap | time | note |"
    );
    println!("|---|---|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {:.2} Mbit/s | {:.1} ms | {:.2} s | {} |",
            r.system,
            if r.completed { "yes" } else { "no" },
            if r.intact { "yes" } else { "no" },
            r.throughput_mbps,
            r.longest_gap_ms,
            r.elapsed_s,
            r.note
        );
    }
    for r in &rows {
        if r.system.starts_with("msctp") {
            assert!(r.completed && r.intact, "{r:?}");
        }
    }
    let cmt = &rows[0];
    assert!(
        cmt.throughput_mbps >= 0.9 * 30.0,
        "CMT {:.2} Mbit/s, below 90% of 20 + 10",
        cmt.throughput_mbps
    );
    if mptcp {
        let m = &rows[2];
        assert!(m.completed && m.intact, "{m:?}");
        assert!(
            cmt.throughput_mbps >= m.throughput_mbps,
            "CMT {:.2} Mbit/s, MPTCP {:.2}",
            cmt.throughput_mbps,
            m.throughput_mbps
        );
    }
    // The cut: nothing lost (the file is intact), and the transfer went on
    // over link 2 (no wait for a retransmission timeout: RTO.Min is 20 ms,
    // but one that backed off would show as hundreds of ms).
    let cut = rows.last().unwrap();
    assert!(
        cut.longest_gap_ms < 200.0,
        "link 1 going down stopped delivery for {:.1} ms",
        cut.longest_gap_ms
    );
}
