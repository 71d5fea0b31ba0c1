//! The interface monitor following addresses (needs root; skipped with a
//! printed reason otherwise): during a transfer from a mobile host, a new
//! address appears on its second interface (ASCONF Add IP and Set
//! Primary, chosen by the newest-address policy), then the first
//! interface's address disappears (ASCONF Delete IP). The file arrives
//! intact and both ends saw the changes.

mod common;

use std::net::IpAddr;
use std::time::Duration;

use common::{Netns, sh, skip_reason};
use msctp_net::transfer;
use msctp_net::{Event, NetEvent, PolicyKind, Stack, StackConfig};
use sha2::{Digest, Sha256};

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

#[test]
fn new_address_is_added_and_lost_one_deleted_during_a_transfer() {
    if let Some(why) = skip_reason(&["ip", "tc"]) {
        msctp_testkit::skip(&why);
        return;
    }
    let mn = Netns::new("amn");
    let cn = Netns::new("acn");
    for k in 1..=2 {
        let (m, c) = (format!("mn{k}"), format!("cn{k}"));
        sh(&[
            "ip", "link", "add", &m, "netns", &mn.name, "type", "veth", "peer", "name", &c,
            "netns", &cn.name,
        ]);
        cn.ip(&["addr", "add", &format!("10.{k}.0.1/24"), "dev", &c]);
        mn.ip(&["link", "set", &m, "up"]);
        cn.ip(&["link", "set", &c, "up"]);
        // 16 Mbit/s each way, so the transfer lasts a few seconds.
        for (ns, dev) in [(&mn, &m), (&cn, &c)] {
            ns.exec(&[
                "tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate", "16mbit", "burst",
                "32kbit", "latency", "20ms",
            ]);
        }
    }
    // Only the first interface has an address at the start.
    mn.ip(&["addr", "add", "10.1.0.2/24", "dev", "mn1"]);
    let size = 6 << 20;
    let data: Vec<u8> = (0..size)
        .map(|i: usize| (i.wrapping_mul(40_503) >> 9) as u8)
        .collect();
    let sha = transfer::hex(&Sha256::digest(&data));

    let rx = cn.spawn(|| {
        common::block_on(common::receive_one_file(
            vec![ip("10.1.0.1"), ip("10.2.0.1")],
            Duration::from_secs(30),
        ))
    });
    let mn_name = mn.name.clone();
    let tx = mn.spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let mut c = StackConfig::new(5002).tuned_for_lan();
            c.monitor = true;
            c.interfaces = vec!["mn1".into(), "mn2".into()];
            c.policy = PolicyKind::NewestAddress;
            let s = Stack::bind(c).await.unwrap();
            assert_eq!(s.local_addresses().await.unwrap(), vec![ip("10.1.0.2")]);
            let mut a = s
                .connect(&[ip("10.1.0.1"), ip("10.2.0.1")], 5001)
                .await
                .unwrap();
            let changes = tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(700)).await;
                sh(&[
                    "ip",
                    "-n",
                    &mn_name,
                    "addr",
                    "add",
                    "10.2.0.2/24",
                    "dev",
                    "mn2",
                    "nodad",
                ]);
                tokio::time::sleep(Duration::from_millis(700)).await;
                sh(&[
                    "ip",
                    "-n",
                    &mn_name,
                    "addr",
                    "del",
                    "10.1.0.2/24",
                    "dev",
                    "mn1",
                ]);
            });
            let r = transfer::send_file(&a, "f.bin", data.len() as u64, &data[..], 1400)
                .await
                .unwrap();
            changes.await.unwrap();
            let mut seen = Vec::new();
            while let Some(e) = a.try_event() {
                seen.push(e);
            }
            (r, seen)
        })
    });

    let (sent, mn_events) = tx.join().unwrap();

    let (got, cn_events) = rx.join().unwrap();

    assert_eq!(sent.sha256, sha);
    assert!(got.intact && got.sha256 == sha, "file intact: {got:?}");
    let has = |v: &[NetEvent], e: Event| v.contains(&NetEvent::Assoc(e));
    assert!(
        has(
            &mn_events,
            Event::LocalAddressAdded {
                addr: ip("10.2.0.2")
            }
        ),
        "Add IP acknowledged: {mn_events:?}"
    );
    assert!(
        has(
            &mn_events,
            Event::LocalAddressRemoved {
                addr: ip("10.1.0.2")
            }
        ),
        "Delete IP acknowledged: {mn_events:?}"
    );
    assert!(
        mn_events
            .iter()
            .any(|e| matches!(e, NetEvent::Handover(h) if h.to_local == ip("10.2.0.2"))),
        "the policy moved data to the new address: {mn_events:?}"
    );
    assert!(has(
        &cn_events,
        Event::PeerAddressAdded {
            addr: ip("10.2.0.2")
        }
    ));
    assert!(has(
        &cn_events,
        Event::PeerAddressRemoved {
            addr: ip("10.1.0.2")
        }
    ));
    eprintln!(
        "{} bytes intact in {:.2} s (sender {:.2} s), longest gap {:.1} ms, gaps {:?}",
        got.bytes, got.elapsed_s, sent.elapsed_s, got.longest_gap_ms, got.gaps
    );
    assert!(
        !cn_events.contains(&NetEvent::Assoc(Event::PathDown {
            addr: ip("10.2.0.2")
        })),
        "the correspondent reaches the new address: {cn_events:?}"
    );
}
