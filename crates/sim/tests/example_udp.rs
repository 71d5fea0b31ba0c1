//! The smallest complete scenario: two hosts and a router, a CBR flow
//! across two links, a sink, a pcap capture, a CSV trace.
//!
//! ```text
//!  h1 10.1.0.1/24 --[10 Mb/s, 5 ms]-- r --[2 Mb/s, 20 ms, queue 20]-- h2 10.2.0.1/24
//! ```

use std::net::IpAddr;
use std::process::Command;
use std::time::Duration;

use msctp_sim::kernel::pcap::{CaptureConfig, SharedBuffer, TsResolution};
use msctp_sim::kernel::trace::TraceConfig;
use msctp_sim::models::app::{CbrConfig, SinkConfig, UdpCbr, UdpFlow, UdpSink};
use msctp_sim::{DropReason, LinkConfig, Route, Time, World, WorldConfig};

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

#[test]
fn cbr_across_two_hosts_and_a_router() {
    let mut w = World::new(WorldConfig {
        trace: TraceConfig::all(),
        ..WorldConfig::with_seed(42)
    });
    let h1 = w.add_host("h1").unwrap();
    let r = w.add_router("r").unwrap();
    let h2 = w.add_host("h2").unwrap();
    let (_, h1i, _) = w
        .connect(
            "l1",
            h1,
            "10.1.0.1/24".parse().unwrap(),
            r,
            "10.1.0.254/24".parse().unwrap(),
            LinkConfig::new(10_000_000, Duration::from_millis(5)),
        )
        .unwrap();
    let (_, _, h2i) = w
        .connect(
            "l2",
            r,
            "10.2.0.254/24".parse().unwrap(),
            h2,
            "10.2.0.1/24".parse().unwrap(),
            LinkConfig::new(2_000_000, Duration::from_millis(20)).queue_limit(20),
        )
        .unwrap();
    w.add_route(
        h1,
        Route::via("0.0.0.0/0".parse().unwrap(), h1i, ip("10.1.0.254")),
    )
    .unwrap();
    w.add_route(
        h2,
        Route::via("0.0.0.0/0".parse().unwrap(), h2i, ip("10.2.0.254")),
    )
    .unwrap();

    // 1000-byte packets at 1 Mb/s for one second: 125 packets, 8 ms apart.
    let flow = UdpFlow::new(ip("10.1.0.1"), 40_000, ip("10.2.0.1"), 40_001);
    let cbr = CbrConfig {
        flow,
        packet_size: 1000,
        rate_bps: 1_000_000,
        start: Time::from_millis(100),
        stop: Some(Time::from_millis(1100)),
        max_packets: None,
    };
    let src = w
        .add_agent(h1, "cbr", Box::new(UdpCbr::new(cbr).unwrap()))
        .unwrap();
    let sink = w
        .add_agent(h2, "sink", Box::new(UdpSink::new(SinkConfig::new(40_001))))
        .unwrap();
    let pcap = SharedBuffer::new();
    let cfg = CaptureConfig {
        resolution: TsResolution::Nanos,
        ..Default::default()
    };
    w.capture(h2, h2i, cfg, Box::new(pcap.clone())).unwrap();

    w.run_until(Time::from_secs(2));

    assert_eq!(w.agent::<UdpCbr>(src).unwrap().sent(), 125);
    let s = w.agent::<UdpSink>(sink).unwrap();
    assert_eq!(s.packets(), 125);
    assert_eq!(s.reordered(), 0);
    assert_eq!(w.drops().total(), 0);
    // One-way delay: 0.8 ms + 5 ms + 4 ms + 20 ms = 29.8 ms, exactly, for
    // every packet (the 2 Mb/s link is faster than the flow: no queueing).
    for a in s.arrivals() {
        assert_eq!(a.at - a.sent_at.unwrap(), Duration::from_micros(29_800));
        assert_eq!(a.len, 1000);
    }
    assert_eq!(s.first_at(), Some(Time::from_micros(129_800)));
    // 125 records of 16 + 1000 bytes after the 24-byte header.
    assert_eq!(pcap.len(), 24 + 125 * 1016);
    let mut csv = Vec::new();
    w.write_trace_csv(&mut csv).unwrap();
    let csv = String::from_utf8(csv).unwrap();
    assert!(csv.lines().next().unwrap().starts_with("time_ns,node,"));
    assert!(csv.contains(",r,"), "router forwarding events are traced");
    assert_eq!(w.drops().count(DropReason::QueueOverflow), 0);
}

#[test]
fn overloaded_bottleneck_drops_at_the_router_queue() {
    let mut w = World::new(WorldConfig::with_seed(1));
    let h1 = w.add_host("h1").unwrap();
    let r = w.add_router("r").unwrap();
    let h2 = w.add_host("h2").unwrap();
    let (_, h1i, _) = w
        .connect(
            "l1",
            h1,
            "10.1.0.1/24".parse().unwrap(),
            r,
            "10.1.0.254/24".parse().unwrap(),
            LinkConfig::new(10_000_000, Duration::from_millis(1)),
        )
        .unwrap();
    w.connect(
        "l2",
        r,
        "10.2.0.254/24".parse().unwrap(),
        h2,
        "10.2.0.1/24".parse().unwrap(),
        LinkConfig::new(1_000_000, Duration::from_millis(1)).queue_limit(10),
    )
    .unwrap();
    w.add_route(
        h1,
        Route::via("0.0.0.0/0".parse().unwrap(), h1i, ip("10.1.0.254")),
    )
    .unwrap();
    let flow = UdpFlow::new(ip("10.1.0.1"), 40_000, ip("10.2.0.1"), 40_001);
    // 2 Mb/s offered into 1 Mb/s for 10 s.
    let cbr = CbrConfig {
        flow,
        packet_size: 1250,
        rate_bps: 2_000_000,
        start: Time::ZERO,
        stop: Some(Time::from_secs(10)),
        max_packets: None,
    };
    w.add_agent(h1, "cbr", Box::new(UdpCbr::new(cbr).unwrap()))
        .unwrap();
    let sink = w
        .add_agent(h2, "sink", Box::new(UdpSink::new(SinkConfig::new(40_001))))
        .unwrap();
    w.run();
    let got = w.agent::<UdpSink>(sink).unwrap().packets();
    let dropped = w.drops().count(DropReason::QueueOverflow);
    assert_eq!(got + dropped, 2000);
    // Packet k reaches the router at 5k + 2 ms; the bottleneck, always
    // busy, starts one every 10 ms from 2 ms. When the last packet arrives
    // (9.997 s) 1000 have entered service (the last at 9.992 s) and the
    // queue holds 10: 1010 delivered.
    assert_eq!(got, 1010);
}

/// tshark (installed by scripts/install-deps.sh) must decode the capture
/// with valid IPv4 and UDP checksums and no malformed packet.
#[test]
fn capture_opens_cleanly_in_tshark() {
    let mut w = World::new(WorldConfig::with_seed(3));
    let h1 = w.add_host("h1").unwrap();
    let h2 = w.add_host("h2").unwrap();
    let (_, h1i, _) = w
        .connect(
            "l",
            h1,
            "10.1.0.1/24".parse().unwrap(),
            h2,
            "10.1.0.2/24".parse().unwrap(),
            LinkConfig::new(10_000_000, Duration::from_millis(1)),
        )
        .unwrap();
    w.add_address(h1, h1i, "2001:db8::1/64".parse().unwrap())
        .unwrap();
    w.add_address(h2, msctp_sim::IfaceId(0), "2001:db8::2/64".parse().unwrap())
        .unwrap();
    let pcap = SharedBuffer::new();
    w.capture(h1, h1i, CaptureConfig::default(), Box::new(pcap.clone()))
        .unwrap();
    for (s, d) in [("10.1.0.1", "10.1.0.2"), ("2001:db8::1", "2001:db8::2")] {
        let flow = UdpFlow::new(ip(s), 40_000, ip(d), 40_001);
        let cbr = CbrConfig {
            flow,
            packet_size: 300,
            rate_bps: 240_000,
            start: Time::ZERO,
            stop: None,
            max_packets: Some(5),
        };
        w.add_agent(h1, &format!("cbr-{s}"), Box::new(UdpCbr::new(cbr).unwrap()))
            .unwrap();
    }
    w.add_agent(h2, "sink", Box::new(UdpSink::new(SinkConfig::new(40_001))))
        .unwrap();
    // An IP-in-IP packet too.
    let inner = msctp_sim::kernel::udp::build(
        ip("192.0.2.1"),
        ip("192.0.2.2"),
        40_000,
        40_001,
        64,
        b"inner",
    )
    .unwrap();
    let outer =
        msctp_sim::kernel::tunnel::encapsulate(ip("10.1.0.1"), ip("10.1.0.2"), 64, &inner).unwrap();
    w.inject(h1, outer).unwrap();
    w.run();
    let dir = std::env::temp_dir().join(format!("msctp-sim-tshark-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("capture.pcap");
    std::fs::write(&file, pcap.contents()).unwrap();
    let out = Command::new("tshark")
        .args([
            "-r",
            file.to_str().unwrap(),
            "-o",
            "ip.check_checksum:TRUE",
            "-o",
            "udp.check_checksum:TRUE",
        ])
        .args([
            "-T",
            "fields",
            "-e",
            "frame.number",
            "-e",
            "ip.checksum.status",
            "-e",
            "udp.checksum.status",
            "-e",
            "_ws.malformed",
        ])
        .output()
        .expect("tshark must be installed (scripts/install-deps.sh)");
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 11, "{text}");
    for l in &lines {
        let f: Vec<&str> = l.split('\t').collect();
        // status 1 = good; the IPv6 ones have no IP checksum; the tunnelled
        // one has two IP headers.
        assert!(!f[1].split(',').any(|s| s == "0"), "bad IP checksum: {l}");
        assert!(f[2].is_empty() || f[2] == "1", "bad UDP checksum: {l}");
        assert!(f.get(3).is_none_or(|m| m.is_empty()), "malformed: {l}");
    }
}
