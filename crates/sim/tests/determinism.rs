//! Same scenario and seed: byte-identical pcap captures and traces.
//! Another seed: different ones (random loss and Pareto traffic on).

use std::net::IpAddr;
use std::time::Duration;

use msctp_sim::kernel::pcap::{CaptureConfig, SharedBuffer, TsResolution};
use msctp_sim::kernel::trace::TraceConfig;
use msctp_sim::models::app::{
    CbrConfig, ParetoConfig, ParetoOnOff, SinkConfig, UdpCbr, UdpFlow, UdpSink,
};
use msctp_sim::{CellConfig, ErrorModelSpec, LinkConfig, Route, Sharing, Time, World, WorldConfig};

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

struct Outputs {
    pcap_h1: Vec<u8>,
    pcap_s1: Vec<u8>,
    trace: Vec<u8>,
    drops: u64,
}

fn run(seed: u64) -> Outputs {
    let mut w = World::new(WorldConfig {
        trace: TraceConfig::all(),
        ..WorldConfig::with_seed(seed)
    });
    let h1 = w.add_host("h1").unwrap();
    let r = w.add_router("r").unwrap();
    let ap = w.add_router("ap").unwrap();
    let lossy = LinkConfig::new(5_000_000, Duration::from_millis(10))
        .error(ErrorModelSpec::bernoulli(0.02).unwrap());
    let (_, h1i, _) = w
        .connect(
            "h1-r",
            h1,
            "10.1.0.1/24".parse().unwrap(),
            r,
            "10.1.0.254/24".parse().unwrap(),
            lossy,
        )
        .unwrap();
    let bursty = LinkConfig::new(5_000_000, Duration::from_millis(5))
        .error(ErrorModelSpec::expo_for_average_loss(0.05, 2.0).unwrap());
    let (_, ri, _) = w
        .connect(
            "r-ap",
            r,
            "10.9.0.1/30".parse().unwrap(),
            ap,
            "10.9.0.2/30".parse().unwrap(),
            bursty,
        )
        .unwrap();
    let cell = CellConfig::new(2_000_000, Duration::from_millis(2), Sharing::Shared)
        .queue_limit(20)
        .error(
            ErrorModelSpec::bernoulli(0.01).unwrap(),
            ErrorModelSpec::bernoulli(0.01).unwrap(),
        );
    let (cell, api) = w.add_cell("wlan", ap, "wlan0", cell).unwrap();
    w.add_address(ap, api, "10.2.0.254/24".parse().unwrap())
        .unwrap();
    w.add_route(
        h1,
        Route::via("0.0.0.0/0".parse().unwrap(), h1i, ip("10.1.0.254")),
    )
    .unwrap();
    w.add_route(
        r,
        Route::via("10.2.0.0/24".parse().unwrap(), ri, ip("10.9.0.2")),
    )
    .unwrap();
    let apr = w.node(ap).unwrap().iface_by_name("r-ap").unwrap().id();
    w.add_route(
        ap,
        Route::via("0.0.0.0/0".parse().unwrap(), apr, ip("10.9.0.1")),
    )
    .unwrap();
    let mut stations = Vec::new();
    for i in 1..=2 {
        let s = w.add_host(&format!("s{i}")).unwrap();
        let si = w.add_iface(s, "wl0").unwrap();
        w.add_address(s, si, format!("10.2.0.{i}/24").parse().unwrap())
            .unwrap();
        w.add_route(
            s,
            Route::via("0.0.0.0/0".parse().unwrap(), si, ip("10.2.0.254")),
        )
        .unwrap();
        w.attach(s, si, cell).unwrap();
        w.add_agent(s, "sink", Box::new(UdpSink::new(SinkConfig::new(5000))))
            .unwrap();
        stations.push((s, si));
    }
    let (s1, s1i) = stations[0];
    let (s2, s2i) = stations[1];
    w.at(Time::from_secs(3), move |w| w.detach(s2, s2i).unwrap());
    w.at(Time::from_secs(4), move |w| {
        w.attach(s2, s2i, cell).unwrap()
    });
    w.add_agent(h1, "sink", Box::new(UdpSink::new(SinkConfig::new(5000))))
        .unwrap();
    let pareto = ParetoConfig {
        flow: UdpFlow::new(ip("10.1.0.1"), 6000, ip("10.2.0.1"), 5000),
        packet_size: 200,
        rate_bps: 1_000_000,
        mean_on: Duration::from_millis(200),
        mean_off: Duration::from_millis(100),
        shape: 1.5,
        start: Time::ZERO,
        stop: Some(Time::from_secs(6)),
    };
    w.add_agent(h1, "pareto", Box::new(ParetoOnOff::new(pareto).unwrap()))
        .unwrap();
    for (s, src) in [(s1, "10.2.0.1"), (s2, "10.2.0.2")] {
        let cbr = CbrConfig {
            flow: UdpFlow::new(ip(src), 6001, ip("10.1.0.1"), 5000),
            packet_size: 1000,
            rate_bps: 1_200_000,
            start: Time::from_millis(50),
            stop: Some(Time::from_secs(6)),
            max_packets: None,
        };
        w.add_agent(s, "cbr", Box::new(UdpCbr::new(cbr).unwrap()))
            .unwrap();
    }
    let (p1, p2) = (SharedBuffer::new(), SharedBuffer::new());
    let cfg = CaptureConfig {
        resolution: TsResolution::Nanos,
        ..Default::default()
    };
    w.capture(h1, h1i, cfg, Box::new(p1.clone())).unwrap();
    w.capture(s1, s1i, cfg, Box::new(p2.clone())).unwrap();
    w.run_until(Time::from_secs(7));
    w.flush_captures().unwrap();
    let mut trace = Vec::new();
    w.write_trace_csv(&mut trace).unwrap();
    Outputs {
        pcap_h1: p1.contents(),
        pcap_s1: p2.contents(),
        trace,
        drops: w.drops().total(),
    }
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let a = run(1);
    let b = run(1);
    let c = run(2);
    assert!(a.drops > 0 && a.pcap_h1.len() > 100_000 && a.pcap_s1.len() > 10_000);
    assert!(
        a.pcap_h1 == b.pcap_h1,
        "pcap at h1 differs between identical runs"
    );
    assert!(
        a.pcap_s1 == b.pcap_s1,
        "pcap at s1 differs between identical runs"
    );
    assert!(a.trace == b.trace, "trace differs between identical runs");
    assert!(a.pcap_h1 != c.pcap_h1);
    assert!(a.pcap_s1 != c.pcap_s1);
    assert!(a.trace != c.trace);
}
