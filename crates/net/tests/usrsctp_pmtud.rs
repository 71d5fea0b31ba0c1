//! msctp's PLPMTUD probes (RFC 8899 section 6.2.1.2: a HEARTBEAT padded
//! by a PAD chunk, RFC 4820) answered by usrsctp (Debian's libusrsctp)
//! over UDP encapsulation on loopback, inside a private network
//! namespace; prerequisites and the usrsctp program
//! (`crates/net/interop/usrsctp_peer.c`) are those of
//! `usrsctp_interop.rs`.
//!
//! Between the two stacks runs a UDP relay (a thread of this test) that
//! stands for a path of MTU 1400 on msctp's way out: it drops every
//! datagram from msctp whose IPv4 packet would exceed 1400 bytes, as a
//! router that drops what it cannot forward and sends no ICMP:
//!
//! ```text
//!   msctp --probe 1472--> relay (drops > 1372 bytes of UDP payload)
//!   msctp --probe 1296--> relay --> usrsctp --HEARTBEAT ACK--> msctp
//!   ...                      the search ends between 1356 and 1372
//! ```
//!
//! - msctp sends a file to usrsctp once the search completed: the
//!   PLPMTU lies within the search's last step below the limit, each
//!   probe usrsctp answered is counted, and the file arrives intact.
//! - usrsctp sends a file to msctp, which probes meanwhile while it
//!   acknowledges the data: the base probe is answered, and the file
//!   arrives intact.
//!
//! In both, every probe carries nothing but PAD, HEARTBEAT and AUTH (RFC 8899 section 4.1: a probe carries no data and
//! no control chunk whose loss would matter; a SACK or an ASCONF in a
//! probe that the path drops would be lost with it).

mod common;

use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::{Netns, usrsctp};
use msctp_net::{Stack, StackConfig};
use msctp_proto::pmtu::{PmtuState, SEARCH_STEP};

const USRSCTP_UDP: u16 = 9899;
const MSCTP_UDP: u16 = 9900;
const RELAY_FOR_USRSCTP: u16 = 9901;
const RELAY_FOR_MSCTP: u16 = 9902;
/// The emulated path MTU (IPv4), and the largest UDP payload through it.
const PATH_MTU: usize = 1400;
const LIMIT: usize = PATH_MTU - 28;
const SIZE: usize = 2 << 20;
const PAD: u8 = 0x84;
const HEARTBEAT: u8 = 0x04;
const HEARTBEAT_ACK: u8 = 0x05;
const AUTH: u8 = 0x0f;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// What the relay saw.
#[derive(Default)]
struct RelayCounts {
    /// Probes from msctp (PAD and HEARTBEAT), forwarded and dropped for
    /// their size.
    probes_forwarded: AtomicUsize,
    probes_dropped: AtomicUsize,
    /// Other datagrams from msctp dropped for their size.
    others_dropped: AtomicUsize,
    /// Probes with a chunk other than PAD, HEARTBEAT and AUTH.
    impure_probes: AtomicUsize,
    /// HEARTBEAT ACKs from usrsctp.
    heartbeat_acks: AtomicUsize,
    stop: AtomicBool,
}

/// Relays between usrsctp (9899) and msctp (9900) on 127.0.0.1, dropping
/// msctp's datagrams larger than [`LIMIT`] and counting probes.
fn relay(ns: &Netns, counts: Arc<RelayCounts>) -> std::thread::JoinHandle<()> {
    ns.spawn(move || {
        let a = UdpSocket::bind(("127.0.0.1", RELAY_FOR_USRSCTP)).unwrap();
        let b = UdpSocket::bind(("127.0.0.1", RELAY_FOR_MSCTP)).unwrap();
        for s in [&a, &b] {
            s.set_read_timeout(Some(Duration::from_millis(5))).unwrap();
        }
        let to_msctp = SocketAddr::new(ip("127.0.0.1"), MSCTP_UDP);
        let to_usrsctp = SocketAddr::new(ip("127.0.0.1"), USRSCTP_UDP);
        let mut buf = vec![0u8; 65536];
        let add = |c: &AtomicUsize| c.fetch_add(1, Ordering::Relaxed);
        while !counts.stop.load(Ordering::Relaxed) {
            for (from, to, dest) in [(&a, &b, to_msctp), (&b, &a, to_usrsctp)] {
                let Ok((n, src)) = from.recv_from(&mut buf) else {
                    continue;
                };
                let types = usrsctp::chunk_types(&buf[..n]);
                // A PLPMTUD probe: a HEARTBEAT behind a PAD chunk.
                let probe = types.contains(&PAD) && types.contains(&HEARTBEAT);
                if probe && types.iter().any(|t| ![PAD, HEARTBEAT, AUTH].contains(t)) {
                    eprintln!("a probe carried chunks {types:x?}");
                    add(&counts.impure_probes);
                }
                if src.port() == MSCTP_UDP {
                    if n > LIMIT {
                        add(if probe {
                            &counts.probes_dropped
                        } else {
                            &counts.others_dropped
                        });
                        continue;
                    }
                    if probe {
                        add(&counts.probes_forwarded);
                    }
                } else if types.contains(&HEARTBEAT_ACK) {
                    add(&counts.heartbeat_acks);
                }
                let _ = to.send_to(&buf[..n], dest);
            }
        }
    })
}

fn data() -> Vec<u8> {
    (0..SIZE)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect()
}

/// msctp with PLPMTUD on (PROBE_TIMER 1 s, the RFC's smallest, to keep
/// the run short), searching up to a 1500-byte Ethernet MTU, through the
/// relay.
fn config(port: u16) -> StackConfig {
    let mut c = StackConfig::new(port).tuned_for_lan();
    c.loopback_mtu = false;
    c.offload = false;
    c.udp_port = MSCTP_UDP;
    c.remote_udp_port = RELAY_FOR_MSCTP;
    c.local_addrs = vec![ip("127.0.0.1")];
    c.endpoint.association.path_mtu = 1500 - 28;
    c.endpoint.association.pmtud = msctp_proto::PmtudConfig::on();
    c.endpoint.association.pmtud.probe_timer = Duration::from_secs(1);
    c
}

fn check_relay(counts: &RelayCounts) {
    let n = |c: &AtomicUsize| c.load(Ordering::Relaxed);
    eprintln!(
        "relay: {} probes passed, {} dropped for size, {} HEARTBEAT ACKs from usrsctp, {} other datagrams dropped for size",
        n(&counts.probes_forwarded),
        n(&counts.probes_dropped),
        n(&counts.heartbeat_acks),
        n(&counts.others_dropped),
    );
    assert_eq!(
        n(&counts.impure_probes),
        0,
        "probes carry only PAD, HEARTBEAT, AUTH"
    );
    assert_eq!(
        n(&counts.others_dropped),
        0,
        "only probes exceeded the path MTU"
    );
    assert!(n(&counts.probes_forwarded) > 0 && n(&counts.heartbeat_acks) > 0);
}

#[test]
fn usrsctp_answers_msctp_probes_and_the_search_finds_the_path_mtu() {
    if let Some(why) = usrsctp::missing(&["ip", "capsh"]) {
        return msctp_testkit::skip(&why);
    }
    let dir = usrsctp::work_dir("pmtud", "a");
    let peer = usrsctp::build_peer(&dir);
    let ns = Netns::with_prefix("pmtud", "a");
    let counts = Arc::new(RelayCounts::default());
    let r = relay(&ns, counts.clone());
    let out = dir.join("out.bin");
    let mut server = usrsctp::spawn_server(&ns, &peer, USRSCTP_UDP, &out, &dir.join("server.log"));
    let sent = Arc::new(data());
    let d = sent.clone();
    let client = ns.spawn(move || {
        common::block_on(async move {
            let s = Stack::bind(config(5002)).await.unwrap();
            let a = s.connect(&[ip("127.0.0.1")], 5001).await.unwrap();
            let start = Instant::now();
            let mut converged = None;
            while start.elapsed() < Duration::from_secs(60) {
                let st = a.status().await.unwrap();
                if st.path_mtus[0].1.state == PmtuState::SearchComplete {
                    converged = Some(start.elapsed());
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            for c in d.chunks(16384) {
                a.send(0, 0x6d73_0002, Bytes::copy_from_slice(c))
                    .await
                    .unwrap();
            }
            let m = a.status().await.unwrap().path_mtus[0].1;
            tokio::time::timeout(Duration::from_secs(20), a.shutdown())
                .await
                .expect("the shutdown completes")
                .unwrap();
            (converged, m)
        })
    });
    let (converged, m) = client.join().unwrap();
    let status = server.wait().unwrap();
    counts.stop.store(true, Ordering::Relaxed);
    r.join().unwrap();
    let log = std::fs::read_to_string(dir.join("server.log")).unwrap_or_default();
    eprintln!(
        "search completed after {converged:?}: PLPMTU {} (IP {}), probes {} sent, {} acknowledged, {} lost",
        m.mtu,
        m.mtu + 28,
        m.stats.probes_sent,
        m.stats.probes_acked,
        m.stats.probes_lost
    );
    assert!(status.success(), "usrsctp server failed: {log}");
    check_relay(&counts);
    assert!(converged.is_some(), "the search did not complete");
    assert!(
        m.mtu <= LIMIT && m.mtu + SEARCH_STEP >= LIMIT,
        "PLPMTU {}",
        m.mtu
    );
    assert!(m.stats.probes_acked >= 2 && m.stats.probes_lost >= 1);
    // Nothing else of the size of a probe was dropped: no capacity train
    // larger than the PLPMTU (no probe is sent after the search ended).
    assert_eq!(
        counts.probes_dropped.load(Ordering::Relaxed) as u64,
        m.stats.probes_lost,
        "datagrams dropped for size = probes lost"
    );
    let got = std::fs::read(&out).unwrap();
    assert!(
        got == *sent,
        "usrsctp received {} of {SIZE} bytes, or other bytes",
        got.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn msctp_probes_while_usrsctp_sends_and_every_probe_is_pure() {
    if let Some(why) = usrsctp::missing(&["ip", "capsh"]) {
        return msctp_testkit::skip(&why);
    }
    let dir = usrsctp::work_dir("pmtud", "b");
    let peer = usrsctp::build_peer(&dir);
    let ns = Netns::with_prefix("pmtud", "b");
    let counts = Arc::new(RelayCounts::default());
    let r = relay(&ns, counts.clone());
    let sent = data();
    let input = dir.join("in.bin");
    std::fs::write(&input, &sent).unwrap();
    let server = ns.spawn(|| {
        common::block_on(async {
            let mut c = config(5001);
            c.endpoint.listen = true;
            let s = Stack::bind(c).await.unwrap();
            let mut a = tokio::time::timeout(Duration::from_secs(10), s.accept())
                .await
                .expect("usrsctp connects")
                .unwrap();
            let (mut got, mut last) = (Vec::new(), None);
            let r = tokio::time::timeout(Duration::from_secs(30), async {
                while let Some(m) = a.recv().await.unwrap() {
                    got.extend_from_slice(&m.data);
                    if let Ok(st) = a.status().await {
                        last = st.path_mtus.first().map(|p| p.1);
                    }
                }
            })
            .await;
            (r.is_ok(), got, last)
        })
    });
    std::thread::sleep(Duration::from_millis(300));
    let mut client = usrsctp::spawn_in(
        &ns,
        &[
            peer.display().to_string(),
            "client".into(),
            USRSCTP_UDP.to_string(),
            RELAY_FOR_USRSCTP.to_string(),
            "127.0.0.1".into(),
            "5001".into(),
            input.display().to_string(),
        ],
        &dir.join("client.log"),
    );
    let (finished, got, last) = server.join().unwrap();
    let status = client.wait().unwrap();
    counts.stop.store(true, Ordering::Relaxed);
    r.join().unwrap();
    let log = std::fs::read_to_string(dir.join("client.log")).unwrap_or_default();
    assert!(status.success(), "usrsctp client failed: {log}");
    assert!(finished, "the association did not end; usrsctp said: {log}");
    let m = last.expect("a path's PLPMTUD state");
    eprintln!(
        "msctp receiving: PLPMTUD {:?}, PLPMTU {}, probes {} sent, {} acknowledged",
        m.state, m.mtu, m.stats.probes_sent, m.stats.probes_acked
    );
    check_relay(&counts);
    assert!(m.stats.probes_acked >= 1, "usrsctp answered a probe");
    assert!(
        got == sent,
        "msctp received {} of {SIZE} bytes, or other bytes",
        got.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
