//! Sender-based packet pair (SBPP, msctp's default capacity estimator)
//! against an unmodified usrsctp (Debian's libusrsctp) over a link of
//! known rate. Needs root (two network namespaces and a veth pair), tc,
//! gcc, pkg-config, libusrsctp-dev and capsh (so that usrsctp runs over
//! UDP only, RFC 6951); skipped with a printed reason otherwise, a
//! failure under CI=true.
//!
//! ```text
//!   ns A: msctp client                     ns B: usrsctp_peer server
//!   sb-a 10.77.1.1/24 ==== veth ==== sb-b 10.77.1.2/24
//!   A -> B: tbf at RATE (bucket of one full frame), B -> A: unshaped
//!
//!   HB HB [PAD|HB] [PAD|HB] HB HB  --tbf-->   (usrsctp answers each)
//!   <-- HB-ACK x 6, the large pair's spaced by 1494 bytes at RATE
//! ```
//!
//! msctp connects to usrsctp, and the estimator runs as on any real host
//! (five first trains, then one in place of each heartbeat); then the rate
//! is changed (`tc qdisc change`) and five trains on request let the
//! median follow. At each rate, msctp's estimate of the path's capacity
//! (SCTP packet + 28 bytes of IPv4 and UDP, as the stack counts it; tbf
//! also counts the 14-byte Ethernet header, 1 % more) must lie within 10 %
//! of the rate. The figures are printed (`--nocapture`).

mod common;

use std::net::IpAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{Netns, usrsctp};
use msctp_net::{Stack, StackConfig};

const USRSCTP_UDP: u16 = 9899;
const MSCTP_UDP: u16 = 9900;
/// The two rates, Mbit/s, one after the other.
const RATES: [u64; 2] = [5, 2];

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// The usrsctp server inside `ns`, without CAP_NET_RAW, at real-time
/// priority (see [`realtime`]).
fn usrsctp_server(ns: &Netns, peer: &Path, out: &Path, log: &Path) -> Child {
    Command::new("ip")
        .args(["netns", "exec", &ns.name, "chrt", "--fifo", "20"])
        .args(["capsh", "--drop=cap_net_raw", "--", "-c"])
        .arg(format!(
            "exec {} server {USRSCTP_UDP} 5001 {}",
            peer.display(),
            out.display()
        ))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap()
}

/// The calling thread at real-time priority (SCHED_FIFO 20). Both ends
/// run so: the test measures the estimator, not the scheduler of a
/// machine whose cores a build keeps busy. There, a thread that has just
/// run may wait for the running compiler's time slice before it is woken:
/// usrsctp then answered the first large HEARTBEAT of a train 1.7 to 4.6 ms
/// late, 200 us after answering the two small ones, and the second on
/// time (a capture on its interface showed the HEARTBEATs arriving 6.0 ms
/// apart at 2 Mbit/s), which shortens the acknowledgments' spacing and
/// inflated the estimate by up to 150 %.
fn realtime() {
    let tid = rustix::thread::gettid().as_raw_nonzero().to_string();
    common::sh(&["chrt", "--fifo", "-p", "20", &tid]);
}

/// The tbf of `mbit` on A's end (one full frame of bucket: back-to-back
/// packets leave spaced by the rate).
fn shape(ns: &str, verb: &str, mbit: u64) {
    let rate = format!("{mbit}mbit");
    common::sh(&[
        "ip", "netns", "exec", ns, "tc", "qdisc", verb, "dev", "sb-a", "root", "tbf", "rate",
        &rate, "burst", "1600", "latency", "50ms",
    ]);
}

#[test]
fn sbpp_estimates_a_shaped_link_to_usrsctp_within_10_percent() {
    if let Some(why) = usrsctp::missing(&["ip", "tc", "capsh", "chrt"]) {
        msctp_testkit::skip(&why);
        return;
    }
    let dir = std::env::temp_dir().join(format!("msctp-sbpp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let peer = usrsctp::build_peer(&dir);
    let a = Netns::with_prefix("sbpp", "a");
    let b = Netns::with_prefix("sbpp", "b");
    common::sh(&[
        "ip", "link", "add", "sb-a", "netns", &a.name, "type", "veth", "peer", "name", "sb-b",
        "netns", &b.name,
    ]);
    a.ip(&["addr", "add", "10.77.1.1/24", "dev", "sb-a"]);
    b.ip(&["addr", "add", "10.77.1.2/24", "dev", "sb-b"]);
    a.ip(&["link", "set", "sb-a", "up"]);
    b.ip(&["link", "set", "sb-b", "up"]);
    shape(&a.name, "add", RATES[0]);
    let mut server = usrsctp_server(&b, &peer, &dir.join("out.bin"), &dir.join("server.log"));
    std::thread::sleep(Duration::from_millis(500));

    let an = a.name.clone();
    let client = a.spawn(move || {
        realtime();
        common::block_on(async move {
            let mut c = StackConfig::new(5002).tuned_for_lan();
            c.loopback_mtu = false;
            // One UDP datagram per SCTP packet: a GSO batch would reach
            // the tbf as one packet.
            c.offload = false;
            c.udp_port = MSCTP_UDP;
            c.remote_udp_port = USRSCTP_UDP;
            c.local_addrs = vec![ip("10.77.1.1")];
            assert_eq!(
                c.endpoint.association.estimators.capacity_method,
                msctp_proto::estimate::CapacityMethod::Sbpp,
                "the real hosts' default"
            );
            let s = Stack::bind(c).await.unwrap();
            let x = s.connect(&[ip("10.77.1.2")], 5001).await.unwrap();
            assert!(!x.status().await.unwrap().paths.is_empty());
            let mut seen = Vec::new();
            for (k, mbit) in RATES.into_iter().enumerate() {
                if k > 0 {
                    shape(&an, "change", mbit);
                    // Five trains on request, 300 ms apart: the median of
                    // five then holds only trains at the new rate.
                    for _ in 0..5 {
                        tokio::time::sleep(Duration::from_millis(300)).await;
                        let _ = x.probe_capacity(ip("10.77.1.2")).await;
                    }
                }
                tokio::time::sleep(Duration::from_secs(3)).await;
                let st = x.status().await.unwrap();
                let p = st.paths[0].clone();
                seen.push((mbit, p.capacity_bps, p.probes, p.counters, p.srtt));
            }
            x.shutdown().await.unwrap();
            seen
        })
    });
    let seen = client.join().unwrap();
    let status = server.wait().unwrap();
    let log = std::fs::read_to_string(dir.join("server.log")).unwrap_or_default();
    assert!(status.success(), "usrsctp server failed: {log}");
    for (mbit, est, probes, counters, srtt) in &seen {
        let rate = mbit * 1_000_000;
        eprintln!(
            "tbf {mbit} Mbit/s: SBPP estimate {} bit/s ({:+.1} %); {probes:?}; heartbeats {} sent, {} acked; SRTT {srtt:?}",
            est.map_or("none".into(), |e| e.to_string()),
            est.map_or(f64::NAN, |e| (e as f64 / rate as f64 - 1.0) * 100.0),
            counters.heartbeats_sent,
            counters.heartbeat_acks_received,
        );
        let e = est.expect("usrsctp's HEARTBEAT ACKs gave an estimate");
        assert!(
            (e as f64 - rate as f64).abs() <= 0.10 * rate as f64,
            "{e} bit/s for a {mbit} Mbit/s link"
        );
        assert!(counters.heartbeat_acks_received >= 1);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
