//! A UMTS cell on common transport channels (kernel::wireless,
//! `Sharing::Common`): the Node B sends each of N stations a saturating
//! downlink stream of 1500-byte packets; the 384 kbit/s channel carries
//! 12 RLC PDUs of 40 bytes per 10 ms TTI, given round robin, so each
//! station gets 384 kbit/s x 1500 / 1520 (38 PDUs a packet, the last one
//! padded) / N. Dedicated channels give every station the whole rate.

use std::net::IpAddr;
use std::time::Duration;

use msctp_sim::kernel::ErrorModelSpec;
use msctp_sim::kernel::wireless::{CellConfig, Sharing};
use msctp_sim::models::app::{CbrConfig, SinkConfig, UdpCbr, UdpFlow, UdpSink};
use msctp_sim::{Time, World, WorldConfig};

const RATE: u64 = 384_000;
const PACKET: usize = 1500;
const SECONDS: u64 = 60;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// Per station: bit/s of IP packets received from 2 s to 2 s +
/// [`SECONDS`], and whether they arrived in sending order.
fn downlink(sharing: Sharing, n: usize, error: ErrorModelSpec) -> Vec<(f64, bool)> {
    let mut w = World::new(WorldConfig::with_seed(3));
    let ap = w.add_router("nodeb").unwrap();
    let mut cfg = CellConfig::new(RATE, Duration::from_millis(80), sharing)
        .queue_limit(50)
        .error(error, ErrorModelSpec::None);
    cfg.tti = Some(Duration::from_millis(10));
    let (cell, api) = w.add_cell("umts", ap, "umts0", cfg).unwrap();
    w.add_address(ap, api, "10.2.0.254/16".parse().unwrap())
        .unwrap();
    let mut sinks = Vec::new();
    for i in 0..n {
        let s = w.add_host(&format!("s{i}")).unwrap();
        let si = w.add_iface(s, "umts").unwrap();
        let addr = format!("10.2.0.{}", 10 + i);
        w.add_address(s, si, format!("{addr}/16").parse().unwrap())
            .unwrap();
        w.attach(s, si, cell).unwrap();
        sinks.push(
            w.add_agent(s, "sink", Box::new(UdpSink::new(SinkConfig::new(9))))
                .unwrap(),
        );
        let mut flow = UdpFlow::new(ip("10.2.0.254"), 9, ip(&addr), 9);
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
        w.add_agent(ap, &format!("cbr{i}"), Box::new(UdpCbr::new(cfg).unwrap()))
            .unwrap();
    }
    let from = Time::from_secs(2);
    w.run_until(from + Duration::from_secs(SECONDS));
    sinks
        .iter()
        .map(|&a| {
            let got = w.agent::<UdpSink>(a).unwrap().arrivals();
            let bits: f64 = got
                .iter()
                .filter(|a| a.at >= from)
                .map(|a| a.len as f64 * 8.0)
                .sum();
            let seqs: Vec<u64> = got.iter().filter_map(|a| a.seq).collect();
            (bits / SECONDS as f64, seqs.windows(2).all(|x| x[0] < x[1]))
        })
        .collect()
}

#[test]
fn common_channel_rate_per_station_is_the_cell_rate_over_n() {
    let cell = RATE as f64 * PACKET as f64 / 1520.0;
    for n in [1usize, 10, 30] {
        let rates = downlink(Sharing::Common, n, ErrorModelSpec::None);
        let expect = cell / n as f64;
        for (i, (r, ordered)) in rates.iter().enumerate() {
            println!("N = {n}, station {i}: {r:.0} bit/s (expected {expect:.0})");
            assert!(
                (r / expect - 1.0).abs() < 0.05,
                "N = {n}, station {i}: {r:.0} bit/s, expected {expect:.0}"
            );
            assert!(ordered);
        }
    }
    // Dedicated channels: the whole rate each.
    for (r, _) in downlink(Sharing::Dedicated, 10, ErrorModelSpec::None) {
        assert!(r > 0.95 * RATE as f64, "dedicated: {r:.0}");
    }
}

/// RLC acknowledged mode: PDUs lost on the channel (10%) are resent, so
/// every packet still arrives, in order, at a rate reduced by about the
/// resent PDUs.
#[test]
fn common_channel_resends_lost_pdus_in_sequence() {
    let loss = ErrorModelSpec::Bernoulli { loss: 0.1 };
    let rates = downlink(Sharing::Common, 3, loss);
    let expect = RATE as f64 * 0.9 * PACKET as f64 / 1520.0 / 3.0;
    for (r, ordered) in rates {
        println!("10% PDU loss: {r:.0} bit/s (expected about {expect:.0})");
        assert!(ordered, "in-sequence delivery");
        assert!(
            (r / expect - 1.0).abs() < 0.08,
            "{r:.0} against {expect:.0}"
        );
    }
}
