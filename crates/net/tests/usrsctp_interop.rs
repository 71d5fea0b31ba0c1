//! Interoperability with usrsctp (Debian's libusrsctp 0.9.5) over UDP
//! encapsulation on loopback, in both directions, with every packet
//! checked by tshark. Needs root (a private network namespace, so ports
//! 9899/9900 never collide with anything, and `capsh` to drop
//! CAP_NET_RAW so that usrsctp uses UDP only), gcc, pkg-config,
//! libusrsctp-dev, tshark/dumpcap and capsh; skipped with a printed reason
//! otherwise.
//!
//! The usrsctp side is `crates/net/interop/usrsctp_peer.c` (usage in its
//! header), built here with `gcc -O2` against the system library.
//!
//! - usrsctp client -> msctp server: handshake, a 4 MB file checked byte
//!   for byte, and in the middle an ASCONF Add IP (127.0.0.2) and Set
//!   Primary Address from usrsctp, which msctp accepts; graceful shutdown.
//! - msctp client -> usrsctp server: handshake, a 4 MB file, an ASCONF
//!   Add IP (127.0.0.3) and Set Primary Address from msctp, which usrsctp
//!   acknowledges; graceful shutdown; usrsctp's output file is compared.
//!   msctp's INIT announces its capacity probes (chunk types 0xB0, 0xB1
//!   in Supported Extensions and CHUNKS), and msctp sends probe trains to
//!   usrsctp although it did not announce them (`probe_unannounced`),
//!   mid-transfer and in place of heartbeats: usrsctp skips them silently
//!   (high bits 10, RFC 9260 section 3.2) — no ERROR, no abort, the file
//!   intact, and the HEARTBEAT bundled behind a probe answered — and
//!   tshark decodes them as unknown chunks without error.

mod common;

use std::net::IpAddr;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use bytes::Bytes;
use common::{Capture, Netns, usrsctp};
use msctp_net::{Event, NetEvent, Stack, StackConfig};
use msctp_proto::PrimaryReason;

const SIZE: usize = 4 << 20;
const USRSCTP_UDP: u16 = 9899;
const MSCTP_UDP: u16 = 9900;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn test_data() -> Vec<u8> {
    (0..SIZE)
        .map(|i| (i.wrapping_mul(2_246_822_519) >> 17) as u8)
        .collect()
}

fn tshark(file: &Path, filter: &str) -> Vec<String> {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(file)
        .args([
            "-o",
            "sctp.checksum:CRC-32C",
            "-d",
            "udp.port==9900,sctp",
            "-Y",
            filter,
        ])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect()
}

/// tshark decodes every packet as SCTP with a good checksum, nothing
/// malformed, no warning; returns (packets, ASCONF, ASCONF-ACK).
fn check_capture(file: &Path) -> (usize, usize, usize) {
    let all = tshark(file, "udp");
    assert!(all.len() > 100, "capture too small: {} packets", all.len());
    let not_sctp = tshark(file, "udp && !sctp");
    assert!(not_sctp.is_empty(), "not decoded as SCTP: {not_sctp:?}");
    let bad = tshark(
        file,
        "sctp.checksum.status!=1 || _ws.malformed || _ws.expert.severity>=\"warning\"",
    );
    assert!(bad.is_empty(), "tshark flags packets: {bad:#?}");
    let asconf = tshark(file, "sctp.chunk_type==193").len();
    let asconf_ack = tshark(file, "sctp.chunk_type==128").len();
    (all.len(), asconf, asconf_ack)
}

#[test]
fn usrsctp_client_sends_to_msctp_with_asconf() {
    if let Some(why) = usrsctp::missing(&["ip", "capsh", "dumpcap", "tshark"]) {
        msctp_testkit::skip(&why);
        return;
    }
    let dir = usrsctp::work_dir("interop", "a");
    let peer = usrsctp::build_peer(&dir);
    let ns = Netns::new("ia");
    // usrsctp only binds addresses its interface list shows.
    ns.ip(&["addr", "add", "127.0.0.2/8", "dev", "lo"]);
    let data = test_data();
    std::fs::write(dir.join("in.bin"), &data).unwrap();
    let cap = Capture::start(&ns, "lo", dir.join("a.pcapng"));
    let server = ns.spawn(|| {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut c = StackConfig::new(5001).tuned_for_lan();
            // Ethernet-size packets, as between two hosts (on loopback the
            // stack would use 64 kB ones), and no UDP GSO: a capture on the
            // sending host sees a GSO train as one datagram of several SCTP
            // packets (as it sees TCP segmentation offload), which the
            // dissector cannot split; without it, each packet is checked
            // as the wire carries it.
            c.loopback_mtu = false;
            c.offload = false;
            c.udp_port = MSCTP_UDP;
            c.remote_udp_port = USRSCTP_UDP;
            c.local_addrs = vec![ip("127.0.0.1")];
            c.endpoint.listen = true;
            let s = Stack::bind(c).await.unwrap();
            let mut a = tokio::time::timeout(Duration::from_secs(10), s.accept())
                .await
                .expect("usrsctp connects")
                .unwrap();
            let mut got = Vec::new();
            let mut events = Vec::new();
            let r = tokio::time::timeout(Duration::from_secs(30), async {
                while let Some(m) = a.recv().await.unwrap() {
                    got.extend_from_slice(&m.data);
                    while let Some(e) = a.try_event() {
                        events.push(e);
                    }
                }
            })
            .await;
            while let Some(e) = a.try_event() {
                events.push(e);
            }
            (r.is_ok(), got, events)
        })
    });
    std::thread::sleep(Duration::from_millis(300));
    let mut client = usrsctp::spawn_in(
        &ns,
        &[
            peer.display().to_string(),
            "client".into(),
            USRSCTP_UDP.to_string(),
            MSCTP_UDP.to_string(),
            "127.0.0.1".into(),
            "5001".into(),
            dir.join("in.bin").display().to_string(),
            "asconf".into(),
        ],
        &dir.join("client.log"),
    );
    let (finished, got, events) = server.join().unwrap();
    let status = client.wait().unwrap();
    let log = std::fs::read_to_string(dir.join("client.log")).unwrap_or_default();
    assert!(status.success(), "usrsctp client failed: {log}");
    assert!(finished, "transfer did not finish; usrsctp said: {log}");
    assert_eq!(got.len(), data.len(), "byte count");
    assert!(got == data, "bytes differ");
    assert!(
        events.contains(&NetEvent::Assoc(Event::PeerAddressAdded {
            addr: ip("127.0.0.2")
        })),
        "usrsctp's Add IP accepted: {events:?}"
    );
    assert!(
        events.contains(&NetEvent::Assoc(Event::PrimaryChanged {
            addr: ip("127.0.0.2"),
            reason: PrimaryReason::PeerRequest
        })),
        "usrsctp's Set Primary accepted: {events:?}"
    );
    let file = cap.stop();
    let (n, asconf, ack) = check_capture(&file);
    eprintln!("capture: {n} packets, {asconf} with ASCONF, {ack} with ASCONF-ACK");
    assert!(
        asconf >= 2 && ack >= 2,
        "Add IP and Set Primary on the wire"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn msctp_client_sends_to_usrsctp_with_asconf() {
    if let Some(why) = usrsctp::missing(&["ip", "capsh", "dumpcap", "tshark"]) {
        msctp_testkit::skip(&why);
        return;
    }
    let dir = usrsctp::work_dir("interop", "b");
    let peer = usrsctp::build_peer(&dir);
    let ns = Netns::new("ib");
    let data = test_data();
    let cap = Capture::start(&ns, "lo", dir.join("b.pcapng"));
    let out = dir.join("out.bin");
    let mut server = usrsctp::spawn_server(&ns, &peer, USRSCTP_UDP, &out, &dir.join("server.log"));
    let d = data.clone();
    let client = ns.spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let mut c = StackConfig::new(5002).tuned_for_lan();
            // Ethernet-size packets, as between two hosts (on loopback the
            // stack would use 64 kB ones), and no UDP GSO: a capture on the
            // sending host sees a GSO train as one datagram of several SCTP
            // packets (as it sees TCP segmentation offload), which the
            // dissector cannot split; without it, each packet is checked
            // as the wire carries it.
            c.loopback_mtu = false;
            c.offload = false;
            c.udp_port = MSCTP_UDP;
            c.remote_udp_port = USRSCTP_UDP;
            c.local_addrs = vec![ip("127.0.0.1")];
            assert!(c.endpoint.association.estimators.enabled);
            // msctp's own PROBE trains (SBPP, the default, answered by
            // usrsctp: usrsctp_sbpp.rs).
            c.endpoint.association.estimators.capacity_method =
                msctp_proto::estimate::CapacityMethod::ProbeEcho;
            c.endpoint.association.estimators.probe_unannounced = true;
            let s = Stack::bind(c).await.unwrap();
            let mut a = s.connect(&[ip("127.0.0.1")], 5001).await.unwrap();
            let st = a.status().await.unwrap();
            assert!(st.auth && st.asconf, "usrsctp negotiated AUTH and ADD-IP");
            let half = d.len() / 2;
            for (k, c) in d[..half].chunks(16384).enumerate() {
                a.send(0, 0x6d73_0002, Bytes::copy_from_slice(c))
                    .await
                    .unwrap();
                // Capacity trains in the middle of the data.
                if k % 16 == 8 {
                    a.probe_capacity(ip("127.0.0.1")).await.unwrap();
                }
            }
            a.add_local_address(ip("127.0.0.3")).await.unwrap();
            let mut added = false;
            let mut primary = None;
            let t = tokio::time::timeout(Duration::from_secs(10), async {
                while !added || primary.is_none() {
                    match a.next_event().await {
                        Some(NetEvent::Assoc(Event::LocalAddressAdded { addr })) => {
                            assert_eq!(addr, ip("127.0.0.3"));
                            added = true;
                            a.request_peer_primary(addr).await.unwrap();
                        }
                        Some(NetEvent::Assoc(Event::PeerPrimaryRequest { addr, accepted })) => {
                            primary = Some((addr, accepted));
                        }
                        Some(NetEvent::Assoc(Event::LocalAddressAddFailed { causes, .. })) => {
                            panic!("usrsctp refused Add IP: {causes:?}")
                        }
                        Some(_) => {}
                        None => panic!("stack gone"),
                    }
                }
            })
            .await;
            assert!(t.is_ok(), "ASCONF-ACKs from usrsctp");
            for c in d[half..].chunks(16384) {
                a.send(0, 0x6d73_0002, Bytes::copy_from_slice(c))
                    .await
                    .unwrap();
            }
            // Idle: heartbeats (1 s) go as trains carrying them.
            let before = a.status().await.unwrap();
            tokio::time::sleep(Duration::from_millis(3500)).await;
            let after = a.status().await.unwrap();
            a.shutdown().await.unwrap();
            (primary, before, after)
        })
    });
    let (primary, before, after) = client.join().unwrap();
    let status = server.wait().unwrap();
    let log = std::fs::read_to_string(dir.join("server.log")).unwrap_or_default();
    assert!(status.success(), "usrsctp server failed: {log}");
    assert_eq!(
        primary,
        Some((ip("127.0.0.3"), true)),
        "Set Primary accepted"
    );
    let got = std::fs::read(&out).unwrap();
    assert_eq!(got.len(), data.len(), "byte count; usrsctp said: {log}");
    assert!(got == data, "bytes differ");
    // Probes sent, never echoed; the heartbeats behind them answered.
    let path = |st: &msctp_net::status::AssocStatus| st.paths[0].clone();
    let (p0, p1) = (path(&before), path(&after));
    eprintln!(
        "probes: {:?}; heartbeats acked {} -> {}",
        p1.probes, p0.counters.heartbeat_acks_received, p1.counters.heartbeat_acks_received
    );
    assert!(p1.probes.trains_sent >= 4, "{:?}", p1.probes);
    assert_eq!(p1.capacity_bps, None, "usrsctp does not echo");
    assert!(
        p1.probes.trains_sent > p0.probes.trains_sent,
        "trains in place of heartbeats"
    );
    assert!(
        p1.counters.heartbeat_acks_received > p0.counters.heartbeat_acks_received,
        "usrsctp answered the heartbeats carried behind probes"
    );
    let file = cap.stop();
    let (n, asconf, ack) = check_capture(&file);
    eprintln!("capture: {n} packets, {asconf} with ASCONF, {ack} with ASCONF-ACK");
    assert!(
        asconf >= 2 && ack >= 2,
        "Add IP and Set Primary on the wire"
    );
    let probes = tshark(&file, "sctp.chunk_type==176").len();
    let with_heartbeat = tshark(&file, "sctp.chunk_type==176 && sctp.chunk_type==4").len();
    let errors = tshark(&file, "sctp.chunk_type==9").len();
    let inits = tshark(&file, "sctp.chunk_type==1").len();
    let announcing = tshark(
        &file,
        "sctp.chunk_type==1 && sctp.supported_chunk_type==176 && sctp.supported_chunk_type==177 && sctp.chunk_type_to_auth==176 && sctp.chunk_type_to_auth==177",
    )
    .len();
    eprintln!(
        "capture: {probes} probe packets ({with_heartbeat} carrying a heartbeat), {errors} ERROR chunks, {inits} INIT (more than one when it was retransmitted, e.g. to a server that started late)"
    );
    assert!(inits >= 1, "no INIT captured");
    assert_eq!(announcing, inits, "every INIT announced the probe chunks");
    assert!(probes >= 6 * 4, "probe trains on the wire: {probes}");
    assert!(with_heartbeat >= 1);
    assert_eq!(errors, 0, "usrsctp reported nothing: skipped silently");
    let _ = std::fs::remove_dir_all(&dir);
}
