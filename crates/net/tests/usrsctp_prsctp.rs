//! PR-SCTP (RFC 3758, RFC 7496) with usrsctp (Debian's libusrsctp) over
//! UDP encapsulation (RFC 6951) on loopback, in both directions, inside a
//! private network namespace; the prerequisites and the usrsctp program
//! (`crates/net/interop/usrsctp_peer.c`) are those of
//! `usrsctp_interop.rs`, which says how each is used.
//!
//! Between the two stacks runs a UDP relay (a thread of this test) that
//! drops every seventh datagram carrying DATA in one direction, never one
//! carrying a FORWARD TSN:
//!
//! ```text
//!   sender --DATA--> relay (drops 1 in 7) --> receiver
//!   every message sent with "no retransmission" (SCTP_PR_SCTP_RTX, 0)
//!   sender: the lost ones abandoned, FORWARD TSN ---------> receiver skips
//!   receiver: the others, in order, none twice; graceful shutdown
//! ```
//!
//! - usrsctp sends, msctp receives: msctp's receiver follows usrsctp's
//!   FORWARD TSNs (it counts them) and delivers the messages not lost, in
//!   order.
//! - msctp sends, usrsctp receives: usrsctp follows msctp's FORWARD TSNs;
//!   its output holds the messages not lost, in order, and the
//!   association ends with a graceful shutdown (the FORWARD TSNs moved
//!   usrsctp's cumulative TSN past every abandoned message).
//!
//! Both again with I-DATA (RFC 8260) offered by both stacks (usrsctp's
//! SCTP_INTERLEAVING_SUPPORTED, set by the peer program when
//! USRSCTP_PEER_IDATA=1) and messages of 3000 bytes, so that each is
//! fragmented (FSN 0, 1, 2): the relay sees only I-DATA carry messages,
//! and the abandoned ones skipped with I-FORWARD-TSN (RFC 8260 section
//! 2.3.1), never a DATA or FORWARD TSN chunk.

mod common;

use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use common::{Netns, usrsctp};
use msctp_net::{Event, NetEvent, PrPolicy, SendOptions, Stack, StackConfig};

const USRSCTP_UDP: u16 = 9899;
const MSCTP_UDP: u16 = 9900;
/// The relay's port facing usrsctp and its port facing msctp.
const RELAY_FOR_USRSCTP: u16 = 9901;
const RELAY_FOR_MSCTP: u16 = 9902;
const COUNT: usize = 400;
const MSG: usize = 1000;
/// The message size with I-DATA: more than one packet's worth.
const IDATA_MSG: usize = 3000;
const DATA: u8 = 0x00;
const I_DATA: u8 = 0x40;
const FORWARD_TSN: u8 = 0xc0;
const I_FORWARD_TSN: u8 = 0xc2;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// What the relay did.
#[derive(Default)]
struct RelayCounts {
    dropped: AtomicUsize,
    forward_tsns: AtomicUsize,
    i_forward_tsns: AtomicUsize,
    /// Datagrams carrying DATA, and carrying I-DATA.
    data: AtomicUsize,
    i_data: AtomicUsize,
    stop: AtomicBool,
}

/// Relays datagrams between usrsctp (port 9899) and msctp (9900) on
/// 127.0.0.1: what arrives on its port facing usrsctp goes to msctp from
/// its port facing msctp, and back. Of the datagrams from `lossy` (the
/// sender's port) that carry DATA or I-DATA and no FORWARD TSN or
/// I-FORWARD-TSN, every seventh is dropped.
fn relay(ns: &Netns, lossy: u16, counts: Arc<RelayCounts>) -> std::thread::JoinHandle<()> {
    ns.spawn(move || {
        let a = UdpSocket::bind(("127.0.0.1", RELAY_FOR_USRSCTP)).unwrap();
        let b = UdpSocket::bind(("127.0.0.1", RELAY_FOR_MSCTP)).unwrap();
        for s in [&a, &b] {
            s.set_read_timeout(Some(Duration::from_millis(5))).unwrap();
        }
        let to_msctp: SocketAddr = ("127.0.0.1".parse::<IpAddr>().unwrap(), MSCTP_UDP).into();
        let to_usrsctp: SocketAddr = ("127.0.0.1".parse::<IpAddr>().unwrap(), USRSCTP_UDP).into();
        let mut buf = vec![0u8; 65536];
        let mut data_seen = 0usize;
        while !counts.stop.load(Ordering::Relaxed) {
            for (from, to, dest) in [(&a, &b, to_msctp), (&b, &a, to_usrsctp)] {
                let Ok((n, src)) = from.recv_from(&mut buf) else {
                    continue;
                };
                let types = usrsctp::chunk_types(&buf[..n]);
                let has = |t: u8| types.contains(&t);
                for (t, c) in [
                    (FORWARD_TSN, &counts.forward_tsns),
                    (I_FORWARD_TSN, &counts.i_forward_tsns),
                    (DATA, &counts.data),
                    (I_DATA, &counts.i_data),
                ] {
                    if has(t) {
                        c.fetch_add(1, Ordering::Relaxed);
                    }
                }
                let carries_data = has(DATA) || has(I_DATA);
                let skips = has(FORWARD_TSN) || has(I_FORWARD_TSN);
                if src.port() == lossy && carries_data && !skips {
                    data_seen += 1;
                    if data_seen % 7 == 3 {
                        counts.dropped.fetch_add(1, Ordering::Relaxed);
                        continue;
                    }
                }
                let _ = to.send_to(&buf[..n], dest);
            }
        }
    })
}

/// A message of `size` bytes: its index in 4 bytes, then filler.
fn message(i: usize, size: usize) -> Bytes {
    let mut v = vec![0x5a; size];
    v[..4].copy_from_slice(&(i as u32).to_be_bytes());
    Bytes::from(v)
}

/// The messages received are in order, none twice, some lost and most
/// not: a dropped datagram holds parts of at most two messages (a sender
/// may fill a packet's room with the first fragment of the next message),
/// and every other message arrives (abandoned or not, it was received).
fn check_order(indices: &[u32], dropped: usize) {
    eprintln!(
        "{} of {COUNT} messages delivered, {dropped} DATA datagrams dropped",
        indices.len()
    );
    assert!(indices.windows(2).all(|w| w[0] < w[1]), "in order, once");
    assert!(dropped > 10, "the relay dropped {dropped}");
    assert!(indices.len() < COUNT, "lost messages were not resent");
    assert!(indices.len() >= COUNT - 2 * dropped, "{}", indices.len());
}

/// What the relay saw of the chunk types: with I-DATA only I-DATA and
/// I-FORWARD-TSN, without only DATA and FORWARD TSN.
fn check_chunk_types(counts: &RelayCounts, idata: bool) {
    let n = |c: &AtomicUsize| c.load(Ordering::Relaxed);
    let (data, i_data) = (n(&counts.data), n(&counts.i_data));
    let (ftsn, i_ftsn) = (n(&counts.forward_tsns), n(&counts.i_forward_tsns));
    eprintln!(
        "relayed: {data} with DATA, {i_data} with I-DATA, {ftsn} with FORWARD TSN, {i_ftsn} with I-FORWARD-TSN"
    );
    if idata {
        assert!(i_data > 0 && i_ftsn > 0, "I-DATA and I-FORWARD-TSN used");
        assert_eq!(data + ftsn, 0, "no DATA or FORWARD TSN with I-DATA");
    } else {
        assert!(data > 0 && ftsn > 0, "DATA and FORWARD TSN used");
        assert_eq!(i_data + i_ftsn, 0, "no I-DATA unless both offer it");
    }
}

fn config(remote_udp: u16, idata: bool) -> StackConfig {
    let mut c = StackConfig::new(5002).tuned_for_lan();
    c.loopback_mtu = false;
    c.offload = false;
    c.udp_port = MSCTP_UDP;
    c.remote_udp_port = remote_udp;
    c.local_addrs = vec![ip("127.0.0.1")];
    c.endpoint.association.interleaving = idata;
    // With MaxRetransmissions(0) a T3-rtx expiry abandons every chunk in
    // flight: `tuned_for_lan`'s 20 ms RTO.Min let a busy machine's
    // scheduling delay fire spurious expiries (the suite once lost 94 of
    // 400 messages for 36 dropped datagrams), so RTO.Min is RFC 9260's
    // order here and only the relay's drops cost messages.
    c.endpoint.association.rto_min = Duration::from_millis(300);
    c.endpoint.association.rto_initial = Duration::from_millis(300);
    c
}

/// The peer program's command line, with I-DATA offered if `idata`.
fn peer_command(peer: &std::path::Path, idata: bool, args: &[String]) -> Vec<String> {
    let mut v = Vec::new();
    if idata {
        v.extend(["env".to_string(), "USRSCTP_PEER_IDATA=1".to_string()]);
    }
    v.push(peer.display().to_string());
    v.extend_from_slice(args);
    v
}

#[test]
fn usrsctp_abandons_and_msctp_skips() {
    usrsctp_sends(false);
}

#[test]
fn usrsctp_abandons_and_msctp_skips_with_i_data() {
    usrsctp_sends(true);
}

#[test]
fn msctp_abandons_and_usrsctp_skips() {
    msctp_sends(false);
}

#[test]
fn msctp_abandons_and_usrsctp_skips_with_i_data() {
    msctp_sends(true);
}

fn usrsctp_sends(idata: bool) {
    if let Some(why) = usrsctp::missing(&["ip", "capsh", "env"]) {
        msctp_testkit::skip(&why);
        return;
    }
    let tag = if idata { "ai" } else { "a" };
    let size = if idata { IDATA_MSG } else { MSG };
    let dir = usrsctp::work_dir("prsctp", tag);
    let peer = usrsctp::build_peer(&dir);
    let ns = Netns::with_prefix("prsctp", tag);
    let counts = Arc::new(RelayCounts::default());
    let r = relay(&ns, USRSCTP_UDP, counts.clone());
    let server = ns.spawn(move || {
        common::block_on(async move {
            let mut c = config(RELAY_FOR_MSCTP, idata);
            c.endpoint.listen = true;
            c.endpoint.association.receive_window = 1 << 20;
            let s = Stack::bind(c).await.unwrap();
            let mut a = tokio::time::timeout(Duration::from_secs(10), s.accept())
                .await
                .expect("usrsctp connects")
                .unwrap();
            let pr = a.status().await.unwrap().pr_sctp;
            let (mut got, mut events, mut ftsn) = (Vec::new(), Vec::new(), 0);
            let r = tokio::time::timeout(Duration::from_secs(30), async {
                while let Some(m) = a.recv().await.unwrap() {
                    got.push(u32::from_be_bytes(m.data[..4].try_into().unwrap()));
                    if let Ok(st) = a.status().await {
                        ftsn = st.stats.forward_tsns_received;
                    }
                    while let Some(e) = a.try_event() {
                        events.push(e);
                    }
                }
            })
            .await;
            while let Some(e) = a.try_event() {
                events.push(e);
            }
            (r.is_ok(), pr, got, ftsn, events)
        })
    });
    std::thread::sleep(Duration::from_millis(300));
    let mut client = usrsctp::spawn_in(
        &ns,
        &peer_command(
            &peer,
            idata,
            &[
                "pr-client".into(),
                USRSCTP_UDP.to_string(),
                RELAY_FOR_USRSCTP.to_string(),
                "127.0.0.1".into(),
                "5002".into(),
                COUNT.to_string(),
                size.to_string(),
            ],
        ),
        &dir.join("client.log"),
    );
    let (finished, pr, got, ftsn, events) = server.join().unwrap();
    let status = client.wait().unwrap();
    counts.stop.store(true, Ordering::Relaxed);
    r.join().unwrap();
    let log = std::fs::read_to_string(dir.join("client.log")).unwrap_or_default();
    assert!(status.success(), "usrsctp client failed: {log}");
    assert!(finished, "the association did not end; usrsctp said: {log}");
    assert!(pr, "PR-SCTP negotiated with usrsctp");
    eprintln!(
        "FORWARD TSNs: {} relayed, {ftsn} counted by msctp; events {events:?}",
        counts.forward_tsns.load(Ordering::Relaxed)
    );
    assert!(ftsn > 0, "msctp received usrsctp's FORWARD TSNs");
    assert!(
        !events.iter().any(|e| matches!(
            e,
            NetEvent::Assoc(Event::Closed { reason }) if *reason != msctp_proto::CloseReason::Shutdown
        )),
        "{events:?}"
    );
    check_order(&got, counts.dropped.load(Ordering::Relaxed));
    check_chunk_types(&counts, idata);
    let _ = std::fs::remove_dir_all(&dir);
}

fn msctp_sends(idata: bool) {
    if let Some(why) = usrsctp::missing(&["ip", "capsh", "env"]) {
        msctp_testkit::skip(&why);
        return;
    }
    let tag = if idata { "bi" } else { "b" };
    let size = if idata { IDATA_MSG } else { MSG };
    let dir = usrsctp::work_dir("prsctp", tag);
    let peer = usrsctp::build_peer(&dir);
    let ns = Netns::with_prefix("prsctp", tag);
    let counts = Arc::new(RelayCounts::default());
    let r = relay(&ns, MSCTP_UDP, counts.clone());
    let out = dir.join("out.bin");
    let args = [
        "server".to_string(),
        USRSCTP_UDP.to_string(),
        "5001".into(),
        out.display().to_string(),
    ];
    let mut server = usrsctp::spawn_in(
        &ns,
        &peer_command(&peer, idata, &args),
        &dir.join("server.log"),
    );
    // Time to bind, as usrsctp::spawn_server gives.
    std::thread::sleep(Duration::from_millis(500));
    let client = ns.spawn(move || {
        common::block_on(async move {
            let s = Stack::bind(config(RELAY_FOR_MSCTP, idata)).await.unwrap();
            let a = s.connect(&[ip("127.0.0.1")], 5001).await.unwrap();
            let pr = a.status().await.unwrap().pr_sctp;
            let opts = SendOptions {
                policy: PrPolicy::MaxRetransmissions(0),
                ..SendOptions::default()
            };
            for i in 0..COUNT {
                a.send_message(0, 0x6d73_0003, message(i, size), opts)
                    .await
                    .unwrap();
            }
            // Everything acknowledged or skipped.
            let mut st = a.status().await.unwrap();
            for _ in 0..500 {
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
            (pr, st)
        })
    });
    let (pr, st) = client.join().unwrap();
    let status = server.wait().unwrap();
    counts.stop.store(true, Ordering::Relaxed);
    r.join().unwrap();
    let log = std::fs::read_to_string(dir.join("server.log")).unwrap_or_default();
    assert!(status.success(), "usrsctp server failed: {log}");
    assert!(pr, "PR-SCTP negotiated with usrsctp");
    eprintln!(
        "msctp: {:?} abandoned, {} FORWARD TSNs sent; usrsctp said: {log}",
        st.stats.abandoned, st.stats.forward_tsns_sent
    );
    assert!(st.stats.abandoned.retransmissions.sent > 0);
    assert!(st.stats.forward_tsns_sent > 0);
    assert_eq!(st.send_buffered, 0, "everything acknowledged or skipped");
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(bytes.len() % size, 0, "whole messages only");
    let got: Vec<u32> = bytes
        .chunks(size)
        .map(|m| u32::from_be_bytes(m[..4].try_into().unwrap()))
        .collect();
    check_order(&got, counts.dropped.load(Ordering::Relaxed));
    check_chunk_types(&counts, idata);
    let _ = std::fs::remove_dir_all(&dir);
}
