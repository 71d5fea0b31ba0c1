//! The 802.11 DCF's contention form (kernel::dcf) against Bianchi's
//! saturation throughput (Bianchi, "Performance analysis of the IEEE
//! 802.11 distributed coordination function", IEEE JSAC 18(3), 2000):
//! n stations of one 802.11b cell (DSSS, 11 Mbit/s data, 1 Mbit/s control
//! frames, CW 31..1023, retry limits 7 / 4) always have a 1500-byte packet
//! for the access point; the aggregate rate the access point receives is
//! within 10% of the model's, with basic access and with RTS/CTS.

use std::net::IpAddr;
use std::time::Duration;

use msctp_sim::kernel::dcf::{DcfTiming, Phy, bianchi_saturation_bps};
use msctp_sim::kernel::wireless::{CellConfig, Sharing};
use msctp_sim::models::app::{CbrConfig, SinkConfig, UdpCbr, UdpFlow, UdpSink};
use msctp_sim::{Time, World, WorldConfig};

const RATE: u64 = 11_000_000;
const PACKET: usize = 1500;
const SECONDS: u64 = 20;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// `n` saturated stations sending to the access point for [`SECONDS`]:
/// the bit rate of IP packets received, and the packets the retry limit
/// discarded.
fn saturation(mac: DcfTiming, n: usize, seed: u64) -> (f64, u64) {
    let mut w = World::new(WorldConfig::with_seed(seed));
    let ap = w.add_router("ap").unwrap();
    let cfg = CellConfig::new(RATE, Duration::ZERO, Sharing::Shared)
        .queue_limit(50)
        .mac(Some(mac));
    let (cell, api) = w.add_cell("wlan", ap, "wlan0", cfg).unwrap();
    w.add_address(ap, api, "10.0.0.1/16".parse().unwrap())
        .unwrap();
    let sink = w
        .add_agent(ap, "sink", Box::new(UdpSink::new(SinkConfig::new(9))))
        .unwrap();
    for i in 0..n {
        let s = w.add_host(&format!("s{i}")).unwrap();
        let si = w.add_iface(s, "wl").unwrap();
        let addr = format!("10.0.{}.{}", 1 + i / 200, 10 + i % 200);
        w.add_address(s, si, format!("{addr}/16").parse().unwrap())
            .unwrap();
        w.attach(s, si, cell).unwrap();
        let mut flow = UdpFlow::new(ip(&addr), 1000, ip("10.0.0.1"), 9);
        flow.src_port = 1000 + i as u16;
        // Twice the whole cell's rate: every queue stays full.
        let cfg = CbrConfig {
            flow,
            packet_size: PACKET,
            rate_bps: 2 * RATE,
            start: Time::ZERO,
            stop: None,
            max_packets: None,
        };
        w.add_agent(s, "cbr", Box::new(UdpCbr::new(cfg).unwrap()))
            .unwrap();
    }
    // The first second fills the queues; count from 1 s.
    let from = Time::from_secs(1);
    let end = Time::from_secs(1 + SECONDS);
    w.run_until(end);
    let bits: f64 = w
        .agent::<UdpSink>(sink)
        .unwrap()
        .arrivals()
        .iter()
        .filter(|a| a.at >= from)
        .map(|a| a.len as f64 * 8.0)
        .sum();
    let discarded = w.drops().count(msctp_sim::kernel::DropReason::LinkError);
    (bits / SECONDS as f64, discarded)
}

fn check(rts_threshold: u32) {
    let mac = DcfTiming {
        phy: Phy::Dsss,
        basic_rate_bps: 1_000_000,
        rts_threshold,
        contention: true,
        short_retry_limit: 7,
        long_retry_limit: 4,
    };
    for n in [5u32, 10, 20, 50] {
        let model = bianchi_saturation_bps(&mac, RATE, PACKET, n);
        let (sim, discarded) = saturation(mac, n as usize, u64::from(n));
        let ratio = sim / model;
        println!(
            "RTS threshold {rts_threshold}: n = {n}: {:.3} Mbit/s against Bianchi's {:.3} ({ratio:.3}); {discarded} discarded at the retry limit",
            sim / 1e6,
            model / 1e6
        );
        assert!(
            (ratio - 1.0).abs() <= 0.10,
            "n = {n}: {sim:.0} bit/s against {model:.0} ({ratio:.3})"
        );
    }
}

#[test]
fn dcf_basic_access_saturation_matches_bianchi() {
    check(2347);
}

#[test]
fn dcf_rts_cts_saturation_matches_bianchi() {
    check(0);
}
