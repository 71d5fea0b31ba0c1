//! Path MTU discovery (RFC 8899 section 6.2) on real sockets. The mobile
//! uploads a file to the correspondent over two paths; the second crosses
//! a router whose link to the correspondent has an MTU of 1280 bytes:
//!
//! ```text
//!   MN mn1 10.1.0.2/24 ================================ cn1 10.1.0.1/24 CN
//!   MN mn2 10.2.0.2/24 ==== r2 10.2.0.1 RT r3 10.3.0.1 ==== cn3 10.3.0.2/24
//!                                          (mtu 1280)
//! ```
//!
//! (1) The router's ICMP (fragmentation needed) is dropped by nftables:
//! an ICMP black hole. The association finds the second path's MTU by
//! its probes alone; the upload moves onto it (`set_primary`) and the
//! file arrives SHA-256-identical; the time to converge is printed.
//! (2) ICMP allowed: the Packet Too Big reaches the sender's error queue
//! (IP_RECVERR) as a hint, and the MTU is validated by a probe and found
//! in far fewer probe timers than without.
//!
//! PROBE_TIMER is the RFC's smallest, 1 s (section 5.1.1), to keep the
//! runs short. Needs root, `ip` and `nft` (skipped with a printed reason
//! otherwise).

mod common;

use std::net::IpAddr;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Netns, sh, skip_reason};
use msctp_net::{Stack, StackConfig, transfer};
use msctp_proto::pmtu::PmtuState;
use sha2::{Digest, Sha256};

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// A veth pair `a` (in `an`, `a_addr`) and `b` (in `bn`, `b_addr`), up,
/// with MTU `mtu`.
fn link(an: &Netns, bn: &Netns, (a, a_addr): (&str, &str), (b, b_addr): (&str, &str), mtu: u32) {
    sh(&[
        "ip", "link", "add", a, "netns", &an.name, "type", "veth", "peer", "name", b, "netns",
        &bn.name,
    ]);
    let mtu = mtu.to_string();
    for (ns, dev, addr) in [(an, a, a_addr), (bn, b, b_addr)] {
        ns.ip(&["addr", "add", addr, "dev", dev]);
        ns.ip(&["link", "set", dev, "mtu", &mtu]);
        ns.ip(&["link", "set", dev, "up"]);
    }
}

/// What one run measured.
struct Run {
    intact: bool,
    sha_received: String,
    /// From the association's start until the second path's search
    /// completed.
    converged: Option<Duration>,
    mtu: usize,
    lost_probes: u64,
    ptb: u64,
}

fn run(tag: &str, drop_icmp: bool, data: Arc<Vec<u8>>) -> Option<Run> {
    let mn = Netns::with_prefix("i35", &format!("pm{tag}"));
    let rt = Netns::with_prefix("i35", &format!("pr{tag}"));
    let cn = Netns::with_prefix("i35", &format!("pc{tag}"));
    let (m1, c1, m2, r2, r3, c3) = (
        format!("pm1{tag}"),
        format!("pc1{tag}"),
        format!("pm2{tag}"),
        format!("pr2{tag}"),
        format!("pr3{tag}"),
        format!("pc3{tag}"),
    );
    link(&mn, &cn, (&m1, "10.1.0.2/24"), (&c1, "10.1.0.1/24"), 1500);
    link(&mn, &rt, (&m2, "10.2.0.2/24"), (&r2, "10.2.0.1/24"), 1500);
    link(&rt, &cn, (&r3, "10.3.0.1/24"), (&c3, "10.3.0.2/24"), 1280);
    rt.exec(&["sysctl", "-q", "-w", "net.ipv4.ip_forward=1"]);
    mn.ip(&["route", "add", "10.3.0.0/24", "via", "10.2.0.1"]);
    cn.ip(&["route", "add", "10.2.0.0/24", "via", "10.3.0.1"]);
    if drop_icmp {
        let table = "table inet noicmp {\n chain o { type filter hook output priority 0; icmp type destination-unreachable drop; }\n chain f { type filter hook forward priority 0; icmp type destination-unreachable drop; }\n}\n";
        let ok = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "printf '{table}' | ip netns exec {} nft -f -",
                rt.name
            ))
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            msctp_testkit::skip("nftables refused a filter table");
            return None;
        }
    }
    let config = |port: u16, addrs: Vec<IpAddr>| {
        let mut c = StackConfig::new(port).tuned_for_lan();
        c.local_addrs = addrs;
        c.endpoint.association.pmtud = msctp_proto::PmtudConfig::on();
        c.endpoint.association.pmtud.probe_timer = Duration::from_secs(1);
        c
    };
    let mut cc = config(5001, vec![ip("10.1.0.1"), ip("10.3.0.2")]);
    cc.endpoint.listen = true;
    let rx = cn.spawn(move || {
        common::block_on(async move {
            let s = Stack::bind(cc).await.unwrap();
            let mut a = s.accept().await.unwrap();
            tokio::time::timeout(
                Duration::from_secs(90),
                transfer::receive_file(&mut a, tokio::io::sink(), Duration::from_millis(50)),
            )
            .await
            .expect("transfer finished")
            .unwrap()
        })
    });
    let mc = config(5002, vec![ip("10.1.0.2"), ip("10.2.0.2")]);
    let tx = mn.spawn(move || {
        common::block_on(async move {
            let s = Stack::bind(mc).await.unwrap();
            let a = s
                .connect(&[ip("10.1.0.1"), ip("10.3.0.2")], 5001)
                .await
                .unwrap();
            let start = Instant::now();
            let far = ip("10.3.0.2");
            // Until the second path's search completes (at most 60 s).
            let mut converged = None;
            while start.elapsed() < Duration::from_secs(60) {
                let st = a.status().await.unwrap();
                if let Some((_, m)) = st.path_mtus.iter().find(|(p, _)| *p == far)
                    && m.state == PmtuState::SearchComplete
                {
                    converged = Some(start.elapsed());
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            let st = a.status().await.unwrap();
            let m = st.path_mtus.iter().find(|(p, _)| *p == far).unwrap().1;
            // The handover onto the small path, then the file (send_file
            // shuts the association down).
            a.set_primary(far).await.unwrap();
            let size = data.len() as u64;
            transfer::send_file(&a, "pmtud.bin", size, &data[..], 16 << 10)
                .await
                .unwrap();
            (converged, m)
        })
    });
    let (converged, m) = tx.join().unwrap();
    let report = rx.join().unwrap();
    Some(Run {
        intact: report.intact,
        sha_received: report.sha256.clone(),
        converged,
        mtu: m.mtu,
        lost_probes: m.stats.probes_lost,
        ptb: m.stats.ptb_received,
    })
}

fn payload() -> Arc<Vec<u8>> {
    Arc::new((0..4_000_000u32).map(|i| (i * 7 + i / 251) as u8).collect())
}

fn digest(d: &[u8]) -> String {
    Sha256::digest(d)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn check(name: &str, r: &Run, data: &[u8]) {
    let want = digest(data);
    eprintln!(
        "{name}: converged in {:?}, PLPMTU {} (IP {}), {} probes lost, {} PTB; file {} (sha256 {})",
        r.converged,
        r.mtu,
        r.mtu + 28,
        r.lost_probes,
        r.ptb,
        if r.intact { "intact" } else { "DAMAGED" },
        r.sha_received
    );
    assert!(r.intact);
    assert_eq!(r.sha_received, want);
    assert!(r.converged.is_some(), "the search did not complete");
    // The IP packet of the largest SCTP packet fits the 1280-byte link,
    // within the search's last step.
    assert!(r.mtu + 28 <= 1280 && r.mtu + 28 + msctp_proto::pmtu::SEARCH_STEP >= 1280);
}

#[test]
fn icmp_black_hole_then_handover_onto_the_small_path() {
    if let Some(why) = skip_reason(&["ip", "nft", "sysctl"]) {
        return msctp_testkit::skip(&why);
    }
    let data = payload();
    let Some(r) = run("bh", true, data.clone()) else {
        return;
    };
    check("ICMP dropped", &r, &data);
    assert_eq!(r.ptb, 0, "no ICMP may reach the sender");
    assert!(r.lost_probes >= 3);
}

#[test]
fn icmp_allowed_the_packet_too_big_is_a_validated_hint() {
    if let Some(why) = skip_reason(&["ip", "sysctl"]) {
        return msctp_testkit::skip(&why);
    }
    let data = payload();
    let Some(r) = run("ptb", false, data.clone()) else {
        return;
    };
    check("ICMP allowed", &r, &data);
    assert!(r.ptb >= 1, "the Packet Too Big did not reach the engine");
}
