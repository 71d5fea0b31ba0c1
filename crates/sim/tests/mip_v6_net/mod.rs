//! The IPv6 test network shared by the Mobile IPv6 and FMIPv6 tests:
//!
//! ```text
//! cn 2001:db8:9::1 --10 ms-- core --5 ms-- ha_router  (home cell, 2001:db8:1::/64, HA ::1)
//!                              |--5 ms-- ar1 (cell1, 2001:db8:a::/64, router ::1)
//!                              \--5 ms-- ar2 (cell2, 2001:db8:b::/64, router ::1)
//! ```
//! The mobile node (home address 2001:db8:1::10) has one radio, attached
//! to cell1 at the start. Every access router advertises every 100 ms (its
//! first advertisement at a different offset); ar1 and ar2 run FMIPv6.

#![allow(dead_code)]

use std::net::{IpAddr, Ipv6Addr};
use std::time::Duration;

use msctp_sim::models::app::{CbrConfig, SinkConfig, UdpCbr, UdpFlow, UdpSink};
use msctp_sim::models::fmip::{FmipRouter, FmipRouterConfig, Neighbour};
use msctp_sim::models::mip::v6::{
    AccessRouter, AccessRouterConfig, Correspondent6, Correspondent6Config, HomeAgent6,
    HomeAgent6Config, MobileNode6, MobileNode6Config,
};
use msctp_sim::{
    AgentId, CellConfig, CellId, IfaceId, LinkConfig, NodeId, Route, Sharing, Time, World,
    WorldConfig,
};

pub fn a6(s: &str) -> Ipv6Addr {
    s.parse().unwrap()
}
pub fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

pub const HOME: &str = "2001:db8:1::10";
pub const CN: &str = "2001:db8:9::1";
pub const HA: &str = "2001:db8:1::1";
pub const AR1: &str = "2001:db8:a::1";
pub const AR2: &str = "2001:db8:b::1";
pub const COA1: &str = "2001:db8:a::10";
pub const COA2: &str = "2001:db8:b::10";

pub const WIRED: Duration = Duration::from_millis(5);
pub const CN_LINK: Duration = Duration::from_millis(10);
pub const CELL: Duration = Duration::from_millis(2);
pub const RA_INTERVAL: Duration = Duration::from_millis(100);

pub struct Net6 {
    pub w: World,
    pub cn: NodeId,
    pub mn: NodeId,
    pub radio: IfaceId,
    pub cell1: CellId,
    pub cell2: CellId,
    pub ha: AgentId,
    pub corr: AgentId,
    pub client: AgentId,
    pub fmip1: AgentId,
    pub fmip2: AgentId,
    pub ar1: NodeId,
}

pub struct Options {
    pub fast: bool,
    pub dad: Duration,
    pub buffer_limit: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            fast: false,
            dad: Duration::from_millis(50),
            buffer_limit: 200,
        }
    }
}

pub fn build(opt: Options) -> Net6 {
    let mut w = World::new(WorldConfig::with_seed(11));
    let cn = w.add_host("cn").unwrap();
    let core = w.add_router("core").unwrap();
    let har = w.add_router("ha_router").unwrap();
    let ar1 = w.add_router("ar1").unwrap();
    let ar2 = w.add_router("ar2").unwrap();
    let mn = w.add_host("mn").unwrap();
    let wired = LinkConfig::new(100_000_000, WIRED).queue_limit(200);
    let (_, cn_if, _) = w
        .connect(
            "cn-core",
            cn,
            "2001:db8:9::1/64".parse().unwrap(),
            core,
            "2001:db8:9::ff/64".parse().unwrap(),
            LinkConfig::new(100_000_000, CN_LINK).queue_limit(200),
        )
        .unwrap();
    w.add_route(
        cn,
        Route::via("::/0".parse().unwrap(), cn_if, ip("2001:db8:9::ff")),
    )
    .unwrap();
    let mut routers = Vec::new();
    for (i, (node, name)) in [(har, "ha"), (ar1, "ar1"), (ar2, "ar2")]
        .into_iter()
        .enumerate()
    {
        let core_addr = format!("2001:db8:f{i}::1/64");
        let r_addr = format!("2001:db8:f{i}::2/64");
        let (_, c_if, r_if) = w
            .connect(
                &format!("core-{name}"),
                core,
                core_addr.parse().unwrap(),
                node,
                r_addr.parse().unwrap(),
                wired.clone(),
            )
            .unwrap();
        w.add_route(
            node,
            Route::via(
                "::/0".parse().unwrap(),
                r_if,
                ip(&format!("2001:db8:f{i}::1")),
            ),
        )
        .unwrap();
        routers.push((c_if, ip(&format!("2001:db8:f{i}::2"))));
    }
    for (prefix, (c_if, gw)) in ["2001:db8:1::/64", "2001:db8:a::/64", "2001:db8:b::/64"]
        .into_iter()
        .zip(routers)
    {
        w.add_route(core, Route::via(prefix.parse().unwrap(), c_if, gw))
            .unwrap();
    }
    let cell = CellConfig::new(11_000_000, CELL, Sharing::Dedicated).queue_limit(100);
    let (home_cell, home_ap) = w.add_cell("home", har, "home", cell.clone()).unwrap();
    w.add_address(har, home_ap, "2001:db8:1::1/64".parse().unwrap())
        .unwrap();
    let (cell1, ap1) = w.add_cell("cell1", ar1, "cell1", cell.clone()).unwrap();
    w.add_address(ar1, ap1, "2001:db8:a::1/64".parse().unwrap())
        .unwrap();
    let (cell2, ap2) = w.add_cell("cell2", ar2, "cell2", cell).unwrap();
    w.add_address(ar2, ap2, "2001:db8:b::1/64".parse().unwrap())
        .unwrap();
    let _ = home_cell;

    let ra = |iface, addr: &str, prefix: &str, offset_ms, home| AccessRouterConfig {
        interval: RA_INTERVAL,
        offset: Duration::from_millis(offset_ms),
        home_agent: home,
        ..AccessRouterConfig::new(iface, a6(addr), prefix.parse().unwrap())
    };
    w.add_agent(
        har,
        "ra",
        Box::new(AccessRouter::new(ra(
            home_ap,
            HA,
            "2001:db8:1::/64",
            0,
            true,
        ))),
    )
    .unwrap();
    w.add_agent(
        ar1,
        "ra",
        Box::new(AccessRouter::new(ra(
            ap1,
            AR1,
            "2001:db8:a::/64",
            30,
            false,
        ))),
    )
    .unwrap();
    w.add_agent(
        ar2,
        "ra",
        Box::new(AccessRouter::new(ra(
            ap2,
            AR2,
            "2001:db8:b::/64",
            70,
            false,
        ))),
    )
    .unwrap();
    let ha = w
        .add_agent(
            har,
            "ha",
            Box::new(HomeAgent6::new(HomeAgent6Config::new(
                a6(HA),
                "2001:db8:1::/64".parse().unwrap(),
            ))),
        )
        .unwrap();
    let corr = w
        .add_agent(
            cn,
            "ro",
            Box::new(Correspondent6::new(Correspondent6Config::new(a6(CN)))),
        )
        .unwrap();
    let n1 = Neighbour {
        cell: cell1,
        address: a6(AR1),
        prefix: "2001:db8:a::/64".parse().unwrap(),
    };
    let n2 = Neighbour {
        cell: cell2,
        address: a6(AR2),
        prefix: "2001:db8:b::/64".parse().unwrap(),
    };
    let mut f1 = FmipRouterConfig::new(a6(AR1), ap1, n1.prefix);
    f1.neighbours.push(n2);
    f1.settings.buffer_packets = opt.buffer_limit;
    let mut f2 = FmipRouterConfig::new(a6(AR2), ap2, n2.prefix);
    f2.neighbours.push(n1);
    f2.settings.buffer_packets = opt.buffer_limit;
    let fmip1 = w
        .add_agent(ar1, "fmip", Box::new(FmipRouter::new(f1)))
        .unwrap();
    let fmip2 = w
        .add_agent(ar2, "fmip", Box::new(FmipRouter::new(f2)))
        .unwrap();

    let radio = w.add_iface(mn, "radio").unwrap();
    w.attach(mn, radio, cell1).unwrap();
    let mut mcfg = MobileNode6Config::new(
        a6(HOME),
        "2001:db8:1::/64".parse().unwrap(),
        a6(HA),
        vec![radio],
    );
    mcfg.correspondents.push(a6(CN));
    mcfg.address_config_delay = opt.dad;
    mcfg.fast_handovers = opt.fast;
    let client = w
        .add_agent(mn, "mip6", Box::new(MobileNode6::new(mcfg)))
        .unwrap();
    Net6 {
        w,
        cn,
        mn,
        radio,
        cell1,
        cell2,
        ha,
        corr,
        client,
        fmip1,
        fmip2,
        ar1,
    }
}

/// CBR from the correspondent to the home address (downlink), a packet
/// every `interval`, and a sink on the mobile node.
pub fn downlink_cbr(net: &mut Net6, interval: Duration, start: Time) -> AgentId {
    let flow = UdpFlow::new(ip(CN), 7000, ip(HOME), 9000);
    let cbr = CbrConfig {
        flow,
        packet_size: 500,
        rate_bps: (500.0 * 8.0 / interval.as_secs_f64()) as u64,
        start,
        stop: None,
        max_packets: None,
    };
    net.w
        .add_agent(net.cn, "cbr", Box::new(UdpCbr::new(cbr).unwrap()))
        .unwrap();
    net.w
        .add_agent(
            net.mn,
            "sink",
            Box::new(UdpSink::new(SinkConfig::new(9000))),
        )
        .unwrap()
}

/// CBR from the mobile node's home address to the correspondent (uplink).
pub fn uplink_cbr(net: &mut Net6, interval: Duration, start: Time) -> AgentId {
    let flow = UdpFlow::new(ip(HOME), 7001, ip(CN), 9001);
    let cbr = CbrConfig {
        flow,
        packet_size: 500,
        rate_bps: (500.0 * 8.0 / interval.as_secs_f64()) as u64,
        start,
        stop: None,
        max_packets: None,
    };
    net.w
        .add_agent(net.mn, "up", Box::new(UdpCbr::new(cbr).unwrap()))
        .unwrap();
    net.w
        .add_agent(
            net.cn,
            "upsink",
            Box::new(UdpSink::new(SinkConfig::new(9001))),
        )
        .unwrap()
}

/// The longest gap between consecutive arrivals within `[from, to)`, and
/// the arrivals around it.
pub fn longest_gap(sink: &UdpSink, from: Time, to: Time) -> (Duration, Time, Time) {
    let times: Vec<Time> = sink
        .arrivals()
        .iter()
        .map(|a| a.at)
        .filter(|t| *t >= from && *t < to)
        .collect();
    let mut best = (Duration::ZERO, from, from);
    for p in times.windows(2) {
        let g = p[1] - p[0];
        if g > best.0 {
            best = (g, p[0], p[1]);
        }
    }
    best
}
