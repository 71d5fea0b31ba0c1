//! The single-radio move on real sockets (docs/MODELS.md section 4, case
//! B; section 1.2; RFC 5061 section 5.2): a mobile with one interface
//! uploads a file while the address of that interface changes. The old
//! address goes first (the mobile left the network), the new one comes
//! 50 ms later with its network's gateway (the time to obtain an
//! address); the mobile's only way to
//! tell the correspondent is an ASCONF sent from the new address, which
//! carries the old address in its Address Parameter (so that the
//! correspondent finds the association by it and the verification tag),
//! and Add IP (new), Set Primary (new); Delete IP (old) follows in the
//! next ASCONF, located by the new address (an ASCONF never deletes its
//! own Address Parameter, which must find the association at the peer
//! also when a retransmission comes after the peer processed it).
//!
//! ```text
//!   MN mn0 10.41.1.2/24 -> 10.41.2.2/24 ==== tbf 16 Mbit/s ==== ar0 AR ar1 ==== cn0 CN
//!                                                 (10.41.1.1, 10.41.2.1)   10.41.9.1   10.41.9.2
//! ```
//!
//! Needs root, `ip`, `tc`, `dumpcap` and `tshark` (skipped with a printed
//! reason otherwise). The correspondent's interface is captured and
//! tshark checks where the ASCONF came from and what it carried.
//!
//! Then the same move, on the same links, under a QUIC upload: a quinn
//! client that rebinds to the new address when the kernel announces it
//! (connection migration, RFC 9000 section 9; `common/quic.rs`); the two
//! longest delivery gaps are printed side by side.

mod common;
#[path = "common/quic.rs"]
mod quic;

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{Capture, Netns, sh, skip_reason};
use msctp_net::transfer;
use msctp_net::{Event, NetEvent, PolicyKind, Stack, StackConfig};
use sha2::{Digest, Sha256};

const OLD: &str = "10.41.1.2";
const NEW: &str = "10.41.2.2";
const CN: &str = "10.41.9.2";

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// tshark fields of the packets matching `filter`, one line each.
fn tshark_fields(file: &Path, filter: &str, fields: &[&str]) -> Vec<String> {
    let mut c = Command::new("tshark");
    c.arg("-r").arg(file).args([
        "-o",
        "sctp.checksum:CRC-32C",
        "-d",
        "udp.port==9899,sctp",
        "-Y",
        filter,
        "-T",
        "fields",
    ]);
    for f in fields {
        c.args(["-e", f]);
    }
    let out = c.output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect()
}

/// Removes the capture's folder at the end, also on failure.
struct Cleanup(PathBuf);

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn single_radio_move_asconf_from_the_new_address() {
    if let Some(why) = skip_reason(&["ip", "tc", "dumpcap", "tshark"]) {
        msctp_testkit::skip(&why);
        return;
    }
    let mn = Netns::with_prefix("i18", "srmn");
    let ar = Netns::with_prefix("i18", "srar");
    let cn = Netns::with_prefix("i18", "srcn");
    sh(&[
        "ip", "link", "add", "mn0", "netns", &mn.name, "type", "veth", "peer", "name", "ar0",
        "netns", &ar.name,
    ]);
    sh(&[
        "ip", "link", "add", "ar1", "netns", &ar.name, "type", "veth", "peer", "name", "cn0",
        "netns", &cn.name,
    ]);
    // The access router serves both networks on its one access link.
    ar.ip(&["addr", "add", "10.41.1.1/24", "dev", "ar0"]);
    ar.ip(&["addr", "add", "10.41.2.1/24", "dev", "ar0"]);
    ar.ip(&["addr", "add", "10.41.9.1/24", "dev", "ar1"]);
    cn.ip(&["addr", "add", &format!("{CN}/24"), "dev", "cn0"]);
    mn.ip(&["addr", "add", &format!("{OLD}/24"), "dev", "mn0"]);
    for (ns, dev) in [(&mn, "mn0"), (&ar, "ar0"), (&ar, "ar1"), (&cn, "cn0")] {
        ns.ip(&["link", "set", dev, "up"]);
    }
    ar.exec(&["sysctl", "-qw", "net.ipv4.ip_forward=1"]);
    // The old network's gateway, and the way back from the correspondent.
    mn.ip(&["route", "add", "default", "via", "10.41.1.1", "dev", "mn0"]);
    cn.ip(&["route", "add", "10.41.0.0/16", "via", "10.41.9.1"]);
    // 16 Mbit/s on the access link, so the transfer lasts a few seconds.
    for (ns, dev) in [(&mn, "mn0"), (&ar, "ar0")] {
        ns.exec(&[
            "tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate", "16mbit", "burst", "32kbit",
            "latency", "20ms",
        ]);
    }
    let dir = std::env::temp_dir().join(format!("msctp-single-radio-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cap = Capture::start(&cn, "cn0", dir.join("cn.pcapng"));

    let size = 6 << 20;
    let data: Vec<u8> = (0..size)
        .map(|i: usize| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let sha = transfer::hex(&Sha256::digest(&data));
    let quic_data = data.clone();

    let rx = cn.spawn(|| {
        common::block_on(common::receive_one_file(
            vec![ip(CN)],
            Duration::from_secs(40),
        ))
    });
    let mn_name = mn.name.clone();
    let tx = mn.spawn(move || {
        common::block_on(async move {
            let mut c = StackConfig::new(5002).tuned_for_lan();
            // No UDP GSO: a GSO train crosses the veth pairs whole, and
            // the capture's dissector reads only the first SCTP packet of
            // a train, so an ASCONF bundled into a later one went unseen.
            c.offload = false;
            c.monitor = true;
            c.interfaces = vec!["mn0".into()];
            c.policy = PolicyKind::NewestAddress;
            let s = Stack::bind(c).await.unwrap();
            assert_eq!(s.local_addresses().await.unwrap(), vec![ip(OLD)]);
            let mut a = s.connect(&[ip(CN)], 5001).await.unwrap();
            let moved = tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(800)).await;
                let t0 = std::time::Instant::now();
                sh(&[
                    "ip",
                    "-n",
                    &mn_name,
                    "addr",
                    "del",
                    &format!("{OLD}/24"),
                    "dev",
                    "mn0",
                ]);
                tokio::time::sleep(Duration::from_millis(50)).await;
                sh(&[
                    "ip",
                    "-n",
                    &mn_name,
                    "addr",
                    "add",
                    &format!("{NEW}/24"),
                    "dev",
                    "mn0",
                    "nodad",
                ]);
                // The kernel dropped the default route with the
                // interface's last address; the new network's gateway
                // comes with the new address (as DHCP hands out both).
                sh(&[
                    "ip",
                    "-n",
                    &mn_name,
                    "route",
                    "replace",
                    "default",
                    "via",
                    "10.41.2.1",
                    "dev",
                    "mn0",
                ]);
                t0
            });
            // The association's local addresses, read mid-transfer 1 s
            // after the move (the transfer ends with a shutdown).
            let after_move = async {
                tokio::time::sleep(Duration::from_millis(1850)).await;
                a.status().await.ok()
            };
            let (r, st) = tokio::join!(
                transfer::send_file(&a, "f.bin", data.len() as u64, &data[..], 1400),
                after_move
            );
            let r = r.unwrap();
            let t0 = moved.await.unwrap();
            let mut seen = Vec::new();
            while let Some(e) = a.try_event() {
                seen.push(e);
            }
            (r, seen, t0, st)
        })
    });

    let (sent, mn_events, _t0, mn_status) = tx.join().unwrap();
    let (got, cn_events) = rx.join().unwrap();
    let file = cap.stop();
    let _cleanup = Cleanup(dir.clone());

    assert_eq!(sent.sha256, sha);
    assert!(got.intact && got.sha256 == sha, "file intact: {got:?}");
    let has = |v: &[NetEvent], e: Event| v.contains(&NetEvent::Assoc(e));
    // The mobile: its new address added and its old one deleted, both
    // acknowledged.
    assert!(
        has(&mn_events, Event::LocalAddressAdded { addr: ip(NEW) }),
        "Add IP acknowledged: {mn_events:?}"
    );
    assert!(
        has(&mn_events, Event::LocalAddressRemoved { addr: ip(OLD) }),
        "Delete IP acknowledged: {mn_events:?}"
    );
    let locals: Vec<IpAddr> = mn_status
        .map(|s| s.local.iter().map(|l| l.addr).collect())
        .unwrap_or_default();
    assert_eq!(
        locals,
        vec![ip(NEW)],
        "the association lives on the new address"
    );
    // The correspondent: the peer moved to the new address, made primary.
    assert!(has(&cn_events, Event::PeerAddressAdded { addr: ip(NEW) }));
    assert!(has(&cn_events, Event::PeerAddressRemoved { addr: ip(OLD) }));
    // The new address is the primary: by the Set Primary, or already by
    // the Delete IP before it in the same ASCONF (the deleted primary's
    // replacement, RFC 5061 section 5.2.4; Set Primary then changes
    // nothing).
    assert!(
        cn_events.iter().any(|e| matches!(
            e,
            NetEvent::Assoc(Event::PrimaryChanged { addr, .. }) if *addr == ip(NEW)
        )),
        "the new address is the primary: {cn_events:?}"
    );
    // On the wire: every ASCONF left from the new address; the first
    // names the old address in its Address Parameter and asks Add IP and
    // Set Primary (0xc001, 0xc004); a later one, named by the new
    // address, deletes the old one (0xc002).
    let asconfs = tshark_fields(
        &file,
        "sctp.chunk_type==193",
        &[
            "ip.src",
            "sctp.parameter_type",
            "sctp.parameter_ipv4_address",
        ],
    );
    eprintln!("ASCONF packets (source, parameter types, addresses): {asconfs:#?}");
    assert!(!asconfs.is_empty(), "an ASCONF reached the correspondent");
    for a in &asconfs {
        assert!(a.starts_with(NEW), "ASCONF from the new address: {a}");
    }
    let first = &asconfs[0];
    let types: Vec<&str> = first
        .split('\t')
        .nth(1)
        .unwrap_or("")
        .split(',')
        .filter(|t| t.starts_with("0xc0"))
        .collect();
    assert_eq!(types, ["0xc001", "0xc004"], "Add, Set Primary: {first}");
    let delete = asconfs
        .iter()
        .find(|a| a.contains("0xc002"))
        .expect("an ASCONF deletes the old address");
    assert!(
        delete.split('\t').nth(2).unwrap_or("").starts_with(NEW),
        "the Delete is located by the new address: {delete}"
    );
    let addrs: Vec<&str> = first.split('\t').nth(2).unwrap_or("").split(',').collect();
    assert_eq!(
        addrs.first(),
        Some(&OLD),
        "the Address Parameter names the old address: {first}"
    );
    eprintln!(
        "single-radio move: {} bytes intact in {:.2} s, longest gap {:.1} ms, gaps {:?}",
        got.bytes, got.elapsed_s, got.longest_gap_ms, got.gaps
    );
    // The move costs the 50 ms without an address plus the ASCONF's
    // round trip and the resent data, not a failover (PMR timeouts).
    assert!(
        got.longest_gap_ms < 1000.0,
        "the move is not a failover: {:.1} ms",
        got.longest_gap_ms
    );

    // The same move under QUIC: back to the old address and its gateway
    // first.
    mn.ip(&["addr", "del", &format!("{NEW}/24"), "dev", "mn0"]);
    mn.ip(&["addr", "add", &format!("{OLD}/24"), "dev", "mn0", "nodad"]);
    mn.ip(&[
        "route",
        "replace",
        "default",
        "via",
        "10.41.1.1",
        "dev",
        "mn0",
    ]);
    let q = quic_move(&mn, &cn, quic_data);
    let q_span = q.gaps.span().as_secs_f64();
    println!(
        "\n| system (single-radio move, 6 MiB) | completed | intact (SHA-256) | longest delivery gap | throughput | time |"
    );
    println!("|---|---|---|---|---|---|");
    println!(
        "| msctp (ASCONF from the new address) | yes | yes | {:.1} ms | {:.2} Mbit/s | {:.2} s |",
        got.longest_gap_ms,
        got.throughput_bps / 1e6,
        got.elapsed_s
    );
    println!(
        "| QUIC (quinn, rebinds to the new address) | {} | {} | {:.1} ms | {:.2} Mbit/s | {:.2} s |",
        if q.sent_ok && q.bytes == size {
            "yes"
        } else {
            "no"
        },
        if q.sha256 == sha { "yes" } else { "no" },
        q.gaps.longest.as_secs_f64() * 1e3,
        if q_span > 0.0 {
            q.bytes as f64 * 8.0 / q_span / 1e6
        } else {
            0.0
        },
        q_span
    );
    println!("quic client: {}", q.client_summary());
    for r in &q.rebinds {
        println!("quic move to {:?}", r.to);
    }
    if let Some(e) = &q.error {
        eprintln!("quic run: {e}");
    }
    assert!(
        q.sent_ok && q.bytes == size && q.sha256 == sha,
        "QUIC must deliver the file intact: {} bytes, {:?}",
        q.bytes,
        q.error
    );
    assert_eq!(
        q.rebinds.iter().map(|r| r.to.1).collect::<Vec<_>>(),
        vec![ip(NEW)],
        "one QUIC move, to the new address"
    );
}

/// A QUIC upload of `data` from the mobile to the correspondent while,
/// 800 ms after the connection is up (as in the msctp run), the old
/// address goes and the new one comes 50 ms later with its gateway.
fn quic_move(mn: &Netns, cn: &Netns, data: Vec<u8>) -> quic::QuicRun {
    let mn_name = mn.name.clone();
    let up = quic::Upload {
        server: format!("{CN}:4433").parse().unwrap(),
        prefer: vec!["mn0".into()],
        limit: Duration::from_secs(40),
        floor: Duration::from_millis(50),
    };
    quic::send_file_quic(mn, cn, up, std::sync::Arc::new(data), move || {
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(800));
            let ip = |args: &[&str]| {
                let mut v = vec!["ip", "-n", &mn_name];
                v.extend_from_slice(args);
                sh(&v);
            };
            ip(&["addr", "del", &format!("{OLD}/24"), "dev", "mn0"]);
            std::thread::sleep(Duration::from_millis(50));
            ip(&["addr", "add", &format!("{NEW}/24"), "dev", "mn0", "nodad"]);
            ip(&[
                "route",
                "replace",
                "default",
                "via",
                "10.41.2.1",
                "dev",
                "mn0",
            ]);
        });
    })
}
