//! The E4-like test network shared by the handoff and CMHN tests: a
//! multi-homed mobile node (the data source) with a UMTS interface (always
//! attached: 500 kbit/s, 100 ms one way) and a WLAN interface (5 Mbit/s,
//! 5 ms, attached when the test says), two access routers and a
//! destination behind a 100 Mbit/s, 10 ms core link.
//!
//! ```text
//! mn.umts 10.10.0.2 ~~ umts cell ~~ r_umts 10.10.0.1 --\
//!                                                        core -- dst 192.168.1.1
//! mn.wlan 10.20.0.2 ~~ wlan cell ~~ r_wlan 10.20.0.1 --/
//! ```

#![allow(dead_code)]

use std::net::IpAddr;
use std::time::Duration;

use msctp_sim::models::handoff::LinkDecision;
use msctp_sim::models::tcp::TcpConfig;
use msctp_sim::{
    CellConfig, CellId, IfaceId, LinkConfig, NodeId, Route, Sharing, Time, World, WorldConfig,
};

pub fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

pub const UMTS_BPS: u64 = 500_000;
pub const WLAN_BPS: u64 = 5_000_000;
pub const UMTS_DELAY: Duration = Duration::from_millis(100);
pub const WLAN_DELAY: Duration = Duration::from_millis(5);
pub const CORE_DELAY: Duration = Duration::from_millis(10);
pub const MN_UMTS: &str = "10.10.0.2";
pub const MN_WLAN: &str = "10.20.0.2";
pub const DST: &str = "192.168.1.1";

pub struct Net4 {
    pub w: World,
    pub mn: NodeId,
    pub dst: NodeId,
    pub umts: IfaceId,
    pub wlan: IfaceId,
    pub umts_cell: CellId,
    pub wlan_cell: CellId,
}

/// TCP NewReno with 1500-byte packets (E4).
pub fn tcp() -> TcpConfig {
    TcpConfig {
        mss: 1460,
        ..TcpConfig::ns3_compatible()
    }
}

pub fn build(seed: u64) -> Net4 {
    let mut w = World::new(WorldConfig::with_seed(seed));
    let mn = w.add_host("mn").unwrap();
    let ru = w.add_router("r_umts").unwrap();
    let rw = w.add_router("r_wlan").unwrap();
    let core = w.add_router("core").unwrap();
    let dst = w.add_host("dst").unwrap();
    let fast = LinkConfig::new(100_000_000, Duration::from_millis(1)).queue_limit(100);
    let (_, ru_if, _) = w
        .connect(
            "umts-core",
            ru,
            "172.16.1.1/30".parse().unwrap(),
            core,
            "172.16.1.2/30".parse().unwrap(),
            fast.clone(),
        )
        .unwrap();
    let (_, rw_if, _) = w
        .connect(
            "wlan-core",
            rw,
            "172.16.2.1/30".parse().unwrap(),
            core,
            "172.16.2.2/30".parse().unwrap(),
            fast,
        )
        .unwrap();
    let (_, core_if, dst_if) = w
        .connect(
            "core-dst",
            core,
            "192.168.1.254/24".parse().unwrap(),
            dst,
            "192.168.1.1/24".parse().unwrap(),
            LinkConfig::new(100_000_000, CORE_DELAY).queue_limit(100),
        )
        .unwrap();
    let _ = core_if;
    w.add_route(
        ru,
        Route::via("0.0.0.0/0".parse().unwrap(), ru_if, ip("172.16.1.2")),
    )
    .unwrap();
    w.add_route(
        rw,
        Route::via("0.0.0.0/0".parse().unwrap(), rw_if, ip("172.16.2.2")),
    )
    .unwrap();
    let core_node = core;
    let core_ifs: Vec<IfaceId> = w
        .node(core_node)
        .unwrap()
        .ifaces()
        .iter()
        .map(|i| i.id())
        .collect();
    w.add_route(
        core_node,
        Route::via(
            "10.10.0.0/24".parse().unwrap(),
            core_ifs[0],
            ip("172.16.1.1"),
        ),
    )
    .unwrap();
    w.add_route(
        core_node,
        Route::via(
            "10.20.0.0/24".parse().unwrap(),
            core_ifs[1],
            ip("172.16.2.1"),
        ),
    )
    .unwrap();
    w.add_route(
        dst,
        Route::via("0.0.0.0/0".parse().unwrap(), dst_if, ip("192.168.1.254")),
    )
    .unwrap();
    let (umts_cell, uap) = w
        .add_cell(
            "umts",
            ru,
            "cell",
            CellConfig::new(UMTS_BPS, UMTS_DELAY, Sharing::Dedicated).queue_limit(50),
        )
        .unwrap();
    w.add_address(ru, uap, "10.10.0.1/24".parse().unwrap())
        .unwrap();
    let (wlan_cell, wap) = w
        .add_cell(
            "wlan",
            rw,
            "cell",
            CellConfig::new(WLAN_BPS, WLAN_DELAY, Sharing::Dedicated).queue_limit(50),
        )
        .unwrap();
    w.add_address(rw, wap, "10.20.0.1/24".parse().unwrap())
        .unwrap();
    let umts = w.add_iface(mn, "umts").unwrap();
    let wlan = w.add_iface(mn, "wlan").unwrap();
    w.add_address(mn, umts, "10.10.0.2/24".parse().unwrap())
        .unwrap();
    w.add_address(mn, wlan, "10.20.0.2/24".parse().unwrap())
        .unwrap();
    w.add_route(
        mn,
        Route::via("0.0.0.0/0".parse().unwrap(), umts, ip("10.10.0.1")).with_metric(1),
    )
    .unwrap();
    w.add_route(
        mn,
        Route::via("0.0.0.0/0".parse().unwrap(), wlan, ip("10.20.0.1")),
    )
    .unwrap();
    w.attach(mn, umts, umts_cell).unwrap();
    Net4 {
        w,
        mn,
        dst,
        umts,
        wlan,
        umts_cell,
        wlan_cell,
    }
}

/// The WLAN is physically there during `[from, until)`: attached then,
/// and the link-layer decisions follow after `x` (up) and `y` (down).
pub fn wlan_available(net: &mut Net4, from: Time, until: Time, x: Duration, y: Duration) {
    let (mn, wlan, cell) = (net.mn, net.wlan, net.wlan_cell);
    net.w.at(from, move |w| {
        w.attach(mn, wlan, cell).unwrap();
    });
    if from + x < until {
        net.w.at(from + x, move |w| {
            w.notify(mn, LinkDecision::Up { iface: wlan }.notification())
                .unwrap();
        });
        net.w.at(until + y, move |w| {
            w.notify(mn, LinkDecision::Down { iface: wlan }.notification())
                .unwrap();
        });
    }
    net.w.at(until, move |w| {
        w.detach(mn, wlan).unwrap();
    });
}
