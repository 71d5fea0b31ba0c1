//! Mobiles behind a NAT (RFC 6951 section 5): two hosts of one private
//! network reach a correspondent through a source NAT (nftables in a
//! router namespace). Both bind UDP port 9899; the NAT maps them to two
//! ports of its one public address, so the correspondent sees two
//! associations from the same IP address. One mobile uploads a file, the
//! other downloads one, at once; meanwhile the NAT rebinds each mapping
//! (a new public port: the rule's port range changes and the mapping is
//! flushed, as when a NAT times a mapping out or restarts).
//!
//! ```text
//!   MN1 m1 10.42.1.2 ==== n1 10.42.1.1 \
//!                                       NAT (snat to 10.42.9.1:40000-40099) n9 10.42.9.1 ==== c0 10.42.9.2 CN
//!   MN2 m2 10.42.2.2 ==== n2 10.42.2.1 /
//! ```
//!
//! What must hold: the correspondent learns the remote encapsulation port
//! per association and address (it sends each association's packets to
//! its own mapping, though both share one IP address), learns the new
//! port after a rebinding from the first packet the association accepts,
//! and both files arrive SHA-256-identical.
//!
//! Needs root, `ip`, `tc`, `nft` and `conntrack` (Debian `nftables` and
//! `conntrack`, installed by scripts/install-deps.sh) and a kernel with
//! nftables NAT; skipped with a printed reason otherwise.

mod common;

use std::net::IpAddr;
use std::process::Command;
use std::time::Duration;

use common::{Netns, sh, skip_reason};
use msctp_net::transfer;
use msctp_net::{Stack, StackConfig};
use sha2::{Digest, Sha256};

const CN: &str = "10.42.9.2";
const PUBLIC: &str = "10.42.9.1";

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// The NAT: source NAT of UDP leaving on n9 to `ports` of the public
/// address.
fn nat_rule(ports: &str) -> String {
    format!("oifname \"n9\" meta l4proto udp snat to {PUBLIC}:{ports}")
}

/// Loads the NAT table in `ns`; the kernel's complaint if it refuses it
/// (no NAT support).
fn nft_load(ns: &Netns, ports: &str) -> Result<(), String> {
    let rules = format!(
        "table ip msctp_nat {{\n  chain post {{\n    type nat hook postrouting priority srcnat; policy accept;\n    {}\n  }}\n}}\n",
        nat_rule(ports)
    );
    use std::io::Write;
    let mut child = Command::new("ip")
        .args(["netns", "exec", &ns.name, "nft", "-f", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(rules.as_bytes())
        .map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The NAT rebinds the mapping of `private`: new mappings come from
/// `ports` from now on, and the old one is flushed.
fn rebind(nat: &str, private: &str, ports: &str) {
    let nft = |args: &[&str]| {
        let mut v = vec!["ip", "netns", "exec", nat, "nft"];
        v.extend_from_slice(args);
        sh(&v);
    };
    nft(&["flush", "chain", "ip", "msctp_nat", "post"]);
    nft(&["add", "rule", "ip", "msctp_nat", "post", &nat_rule(ports)]);
    sh(&[
        "ip",
        "netns",
        "exec",
        nat,
        "conntrack",
        "-D",
        "-p",
        "udp",
        "-s",
        private,
    ]);
}

/// The public UDP ports the correspondent sees, from the NAT's mappings.
fn mappings(nat: &str) -> String {
    let out = Command::new("ip")
        .args(["netns", "exec", nat, "conntrack", "-L", "-p", "udp"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn file_of(size: usize, seed: usize) -> Vec<u8> {
    (0..size)
        .map(|i: usize| (i.wrapping_mul(2_654_435_761).wrapping_add(seed) >> 11) as u8)
        .collect()
}

#[test]
fn two_mobiles_behind_one_nat_survive_rebinding() {
    if let Some(why) = skip_reason(&["ip", "tc", "nft", "conntrack"]) {
        msctp_testkit::skip(&why);
        return;
    }
    let m1 = Netns::with_prefix("i18", "natm1");
    let m2 = Netns::with_prefix("i18", "natm2");
    let nat = Netns::with_prefix("i18", "natr");
    let cn = Netns::with_prefix("i18", "natcn");
    for (ns, dev, peer, addr, gw) in [
        (&m1, "m1", "n1", "10.42.1.2/24", "10.42.1.1/24"),
        (&m2, "m2", "n2", "10.42.2.2/24", "10.42.2.1/24"),
    ] {
        sh(&[
            "ip", "link", "add", dev, "netns", &ns.name, "type", "veth", "peer", "name", peer,
            "netns", &nat.name,
        ]);
        ns.ip(&["addr", "add", addr, "dev", dev]);
        nat.ip(&["addr", "add", gw, "dev", peer]);
        ns.ip(&["link", "set", dev, "up"]);
        nat.ip(&["link", "set", peer, "up"]);
        let via = gw.split('/').next().unwrap();
        ns.ip(&["route", "add", "default", "via", via]);
        // 12 Mbit/s on each access link, so the transfers last seconds.
        for (n, d) in [(ns, dev), (&nat, peer)] {
            n.exec(&[
                "tc", "qdisc", "add", "dev", d, "root", "tbf", "rate", "12mbit", "burst", "32kbit",
                "latency", "20ms",
            ]);
        }
    }
    sh(&[
        "ip", "link", "add", "n9", "netns", &nat.name, "type", "veth", "peer", "name", "c0",
        "netns", &cn.name,
    ]);
    nat.ip(&["addr", "add", &format!("{PUBLIC}/24"), "dev", "n9"]);
    cn.ip(&["addr", "add", &format!("{CN}/24"), "dev", "c0"]);
    nat.ip(&["link", "set", "n9", "up"]);
    cn.ip(&["link", "set", "c0", "up"]);
    // The correspondent has no route to the private networks: only the
    // NAT makes them reachable.
    nat.exec(&["sysctl", "-qw", "net.ipv4.ip_forward=1"]);
    if let Err(e) = nft_load(&nat, "40000-40099") {
        msctp_testkit::skip(&format!("the kernel refuses nftables NAT: {e}"));
        return;
    }

    let up = file_of(12 << 20, 1);
    let down = file_of(12 << 20, 2);
    let (up_sha, down_sha) = (
        transfer::hex(&Sha256::digest(&up)),
        transfer::hex(&Sha256::digest(&down)),
    );

    // The correspondent: receives MN1's file, sends its own to MN2.
    let down_c = down.clone();
    let rx = cn.spawn(move || {
        common::block_on(async move {
            let mut c = StackConfig::new(5001).tuned_for_lan();
            c.local_addrs = vec![ip(CN)];
            c.endpoint.listen = true;
            let s = Stack::bind(c).await.unwrap();
            let mut got_up = None;
            let mut sent_down = None;
            for _ in 0..2 {
                let mut a = tokio::time::timeout(Duration::from_secs(10), s.accept())
                    .await
                    .expect("association")
                    .unwrap();
                // MN1 talks from SCTP port 5002, MN2 from 5003.
                if a.peer_port() == 5002 {
                    got_up = Some(tokio::spawn(async move {
                        transfer::receive_file(&mut a, tokio::io::sink(), Duration::from_millis(50))
                            .await
                    }));
                } else {
                    let d = down_c.clone();
                    sent_down = Some(tokio::spawn(async move {
                        let r =
                            transfer::send_file(&a, "down.bin", d.len() as u64, &d[..], 1400).await;
                        let _ = a.shutdown().await;
                        r
                    }));
                }
            }
            let got = tokio::time::timeout(Duration::from_secs(60), got_up.unwrap())
                .await
                .expect("upload finished")
                .unwrap()
                .unwrap();
            let sent = tokio::time::timeout(Duration::from_secs(60), sent_down.unwrap())
                .await
                .expect("download finished")
                .unwrap()
                .unwrap();
            (got, sent, s.stats().await.unwrap())
        })
    });
    std::thread::sleep(Duration::from_millis(200));
    let up_c = up.clone();
    let tx1 = m1.spawn(move || {
        common::block_on(async move {
            let mut c = StackConfig::new(5002).tuned_for_lan();
            c.local_addrs = vec![ip("10.42.1.2")];
            let s = Stack::bind(c).await.unwrap();
            let a = s.connect(&[ip(CN)], 5001).await.unwrap();
            let r = transfer::send_file(&a, "up.bin", up_c.len() as u64, &up_c[..], 1400)
                .await
                .unwrap();
            a.shutdown().await.unwrap();
            r
        })
    });
    let rx2 = m2.spawn(move || {
        common::block_on(async move {
            let mut c = StackConfig::new(5003).tuned_for_lan();
            c.local_addrs = vec![ip("10.42.2.2")];
            let s = Stack::bind(c).await.unwrap();
            let mut a = s.connect(&[ip(CN)], 5001).await.unwrap();
            tokio::time::timeout(
                Duration::from_secs(60),
                transfer::receive_file(&mut a, tokio::io::sink(), Duration::from_millis(50)),
            )
            .await
            .expect("download finished")
            .unwrap()
        })
    });
    // Both mappings exist; then the NAT rebinds MN1's (which sends data:
    // the correspondent hears the new port at once), later MN2's (which
    // only acknowledges: the correspondent hears it from its next SACK or
    // heartbeat).
    std::thread::sleep(Duration::from_millis(1200));
    let before = mappings(&nat.name);
    rebind(&nat.name, "10.42.1.2", "41000-41099");
    std::thread::sleep(Duration::from_millis(800));
    rebind(&nat.name, "10.42.2.2", "42000-42099");
    // A mobile's new mapping appears with its next packet: at once while
    // it has data or SACKs to send, after a retransmission timeout if its
    // window was waiting for SACKs the rebinding dropped (on a loaded
    // machine, up to a second or more); looked for until both are there.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let mut after = mappings(&nat.name);
    while !(after.contains("dport=41") && after.contains("dport=42"))
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(100));
        after = mappings(&nat.name);
    }

    let sent_up = tx1.join().unwrap();
    let got_down = rx2.join().unwrap();
    let (got_up, sent_down, cn_stats) = rx.join().unwrap();
    eprintln!("NAT mappings before the rebindings:\n{before}after:\n{after}");
    // Two mobiles behind one public address, on two public ports.
    assert!(
        before.matches(&format!("dst={PUBLIC}")).count() >= 2,
        "two mappings: {before}"
    );
    assert!(after.contains("dport=41"), "MN1 rebound: {after}");
    assert!(after.contains("dport=42"), "MN2 rebound: {after}");

    assert_eq!(sent_up.sha256, up_sha);
    assert!(
        got_up.intact && got_up.sha256 == up_sha,
        "upload intact: {got_up:?}"
    );
    assert_eq!(sent_down.sha256, down_sha);
    assert!(
        got_down.intact && got_down.sha256 == down_sha,
        "download intact: {got_down:?}"
    );
    // The correspondent followed both rebindings, each in its own
    // association.
    assert!(
        cn_stats.remote_port_changes >= 2,
        "ports learned anew after the rebindings: {cn_stats:?}"
    );
    eprintln!(
        "behind NAT: upload {} bytes intact, longest gap {:.1} ms; download {} bytes intact, \
         longest gap {:.1} ms; remote port changes seen by the correspondent: {}",
        got_up.bytes,
        got_up.longest_gap_ms,
        got_down.bytes,
        got_down.longest_gap_ms,
        cn_stats.remote_port_changes
    );
}
