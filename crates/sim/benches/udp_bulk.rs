//! Simulated packets and events per second of wall time (one core) on a
//! bulk UDP flow over a two-link path:
//!
//! ```text
//! h1 --[1 Gb/s, 1 ms]-- r --[1 Gb/s, 1 ms]-- h2, CBR 1000-byte packets
//! ```
//!
//! and the same flow into a shared 802.11-like cell. Run with
//! `cargo bench -p msctp-sim --bench udp_bulk` (optionally `-- SECONDS` of
//! simulated time, default 20).

use std::net::IpAddr;
use std::time::{Duration, Instant};

use msctp_sim::models::app::{CbrConfig, SinkConfig, UdpCbr, UdpFlow, UdpSink};
use msctp_sim::{CellConfig, LinkConfig, Route, Sharing, Time, World, WorldConfig};

fn ip(s: &str) -> IpAddr {
    s.parse().expect("address literal")
}

fn report(name: &str, w: &World, delivered: u64, wall: Duration) {
    let st = w.stats();
    let secs = wall.as_secs_f64();
    println!(
        "{name}: {} events, {} packets delivered in {:.3} s wall: {:.2} M events/s, {:.2} M packets/s",
        st.events,
        delivered,
        secs,
        st.events as f64 / secs / 1e6,
        delivered as f64 / secs / 1e6
    );
}

fn two_links(sim_secs: u64) {
    let mut w = World::new(WorldConfig::default());
    let h1 = w.add_host("h1").expect("node");
    let r = w.add_router("r").expect("node");
    let h2 = w.add_host("h2").expect("node");
    let cfg = LinkConfig::new(1_000_000_000, Duration::from_millis(1)).queue_limit(100);
    let (_, h1i, _) = w
        .connect(
            "l1",
            h1,
            "10.1.0.1/24".parse().expect("net"),
            r,
            "10.1.0.254/24".parse().expect("net"),
            cfg.clone(),
        )
        .expect("link");
    w.connect(
        "l2",
        r,
        "10.2.0.254/24".parse().expect("net"),
        h2,
        "10.2.0.1/24".parse().expect("net"),
        cfg,
    )
    .expect("link");
    w.add_route(
        h1,
        Route::via("0.0.0.0/0".parse().expect("net"), h1i, ip("10.1.0.254")),
    )
    .expect("route");
    let flow = UdpFlow::new(ip("10.1.0.1"), 40_000, ip("10.2.0.1"), 40_001);
    let cbr = CbrConfig {
        flow,
        packet_size: 1000,
        rate_bps: 800_000_000,
        start: Time::ZERO,
        stop: Some(Time::from_secs(sim_secs)),
        max_packets: None,
    };
    w.add_agent(h1, "cbr", Box::new(UdpCbr::new(cbr).expect("cbr")))
        .expect("agent");
    let sink = w
        .add_agent(
            h2,
            "sink",
            Box::new(UdpSink::new(SinkConfig {
                port: 40_001,
                max_records: 0,
            })),
        )
        .expect("agent");
    let t0 = Instant::now();
    w.run();
    let wall = t0.elapsed();
    let delivered = w.agent::<UdpSink>(sink).map_or(0, |s| s.packets());
    report("two-link path, 800 Mb/s CBR", &w, delivered, wall);
}

fn shared_cell(sim_secs: u64) {
    let mut w = World::new(WorldConfig::default());
    let ap = w.add_router("ap").expect("node");
    let (cell, api) = w
        .add_cell(
            "wlan",
            ap,
            "wlan0",
            CellConfig::new(54_000_000, Duration::from_micros(500), Sharing::Shared),
        )
        .expect("cell");
    w.add_address(ap, api, "10.0.0.1/24".parse().expect("net"))
        .expect("addr");
    let sink = w
        .add_agent(
            ap,
            "sink",
            Box::new(UdpSink::new(SinkConfig {
                port: 9,
                max_records: 0,
            })),
        )
        .expect("agent");
    for i in 0..4 {
        let s = w.add_host(&format!("s{i}")).expect("node");
        let si = w.add_iface(s, "wl").expect("iface");
        let a = format!("10.0.0.{}", 10 + i);
        w.add_address(s, si, format!("{a}/24").parse().expect("net"))
            .expect("addr");
        w.attach(s, si, cell).expect("attach");
        let cbr = CbrConfig {
            flow: UdpFlow::new(ip(&a), 1000, ip("10.0.0.1"), 9),
            packet_size: 1500,
            rate_bps: 20_000_000,
            start: Time::ZERO,
            stop: Some(Time::from_secs(sim_secs)),
            max_packets: None,
        };
        w.add_agent(s, "cbr", Box::new(UdpCbr::new(cbr).expect("cbr")))
            .expect("agent");
    }
    let t0 = Instant::now();
    w.run();
    let wall = t0.elapsed();
    let delivered = w.agent::<UdpSink>(sink).map_or(0, |s| s.packets());
    report(
        "shared cell, 4 stations x 20 Mb/s into 54 Mb/s",
        &w,
        delivered,
        wall,
    );
}

fn main() {
    let secs = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<u64>().ok())
        .unwrap_or(20);
    two_links(secs);
    shared_cell(secs);
}
