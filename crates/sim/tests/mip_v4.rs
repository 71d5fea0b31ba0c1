//! Mobile IPv4 (RFC 5944) in the simulator: agent discovery, registration
//! through the foreign agent, the home agent's binding and IP-in-IP
//! tunnel, the blackout of a handoff and T_MIP = T_ad + T_reg against the
//! sum of its configured parts; TCP and UDP above it unchanged; Wireshark
//! decodes the tunnel and the registration messages.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use msctp_sim::kernel::link::serialization_time;
use msctp_sim::kernel::pcap::{CaptureConfig, SharedBuffer};
use msctp_sim::measure::flow_log::FlowLog;
use msctp_sim::models::app::{CbrConfig, SinkConfig, Source, Traffic, UdpCbr, UdpFlow, UdpSink};
use msctp_sim::models::mip::MipTraceEvent;
use msctp_sim::models::mip::v4::{
    AdvertisementConfig, ForeignAgent, ForeignAgentConfig, HomeAgent, HomeAgentConfig, MobileNode,
    MobileNodeConfig, MobileSecurity,
};
use msctp_sim::models::tcp::{TcpAgent, TcpAgentConfig, TcpConfig};
use msctp_sim::{
    AgentId, CellConfig, CellId, DropReason, IfaceId, LinkConfig, NodeId, Route, Sharing, Time,
    World, WorldConfig,
};

const KEY: &[u8] = b"mn-ha shared secret";

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}
fn v4(s: &str) -> Ipv4Addr {
    s.parse().unwrap()
}

/// The delays the test configures (and from which T_MIP is predicted).
struct Delays {
    wired: Duration,
    cell: Duration,
    fa_processing: Duration,
    ha_processing: Duration,
    ha_auth: Duration,
    mn_auth: Duration,
    adv_interval: Duration,
    fa_adv_offset: Duration,
}

const D: Delays = Delays {
    wired: Duration::from_millis(5),
    cell: Duration::from_millis(2),
    fa_processing: Duration::from_millis(3),
    ha_processing: Duration::from_millis(4),
    ha_auth: Duration::from_millis(6),
    mn_auth: Duration::from_millis(2),
    adv_interval: Duration::from_secs(1),
    fa_adv_offset: Duration::from_millis(300),
};

const WIRED_BPS: u64 = 100_000_000;
const CELL_BPS: u64 = 11_000_000;

struct Net {
    w: World,
    cn: NodeId,
    mn: NodeId,
    radio: IfaceId,
    home_cell: CellId,
    visit_cell: CellId,
    ha: AgentId,
    fa: AgentId,
    mip: AgentId,
    wlan: Option<IfaceId>,
    fa_node: NodeId,
    fa_wired: IfaceId,
}

/// cn -- core -- ha_router (home cell 10.1.0.0/24, HA 10.1.0.254)
///          \--- fa_router (visited cell 10.2.0.0/24, FA/CoA 10.2.0.254)
/// The mobile node (home address 10.1.0.10) has one radio, attached to the
/// home cell.
fn build() -> Net {
    build_with(false)
}

/// With `two_radios`, the mobile node also has a second interface
/// ("wlan", preferred) for the visited cell, as in E1.
fn build_with(two_radios: bool) -> Net {
    let mut w = World::new(WorldConfig::with_seed(3));
    let cn = w.add_host("cn").unwrap();
    let core = w.add_router("core").unwrap();
    let har = w.add_router("ha_router").unwrap();
    let far = w.add_router("fa_router").unwrap();
    let mn = w.add_host("mn").unwrap();
    let wired = LinkConfig::new(WIRED_BPS, D.wired).queue_limit(100);
    let (_, cn_if, _) = w
        .connect(
            "cn-core",
            cn,
            "192.168.0.1/24".parse().unwrap(),
            core,
            "192.168.0.254/24".parse().unwrap(),
            wired.clone(),
        )
        .unwrap();
    let (_, core_ha, ha_core) = w
        .connect(
            "core-ha",
            core,
            "172.16.1.1/30".parse().unwrap(),
            har,
            "172.16.1.2/30".parse().unwrap(),
            wired.clone(),
        )
        .unwrap();
    let (_, core_fa, fa_core) = w
        .connect(
            "core-fa",
            core,
            "172.16.2.1/30".parse().unwrap(),
            far,
            "172.16.2.2/30".parse().unwrap(),
            wired,
        )
        .unwrap();
    w.add_route(
        cn,
        Route::via("0.0.0.0/0".parse().unwrap(), cn_if, ip("192.168.0.254")),
    )
    .unwrap();
    w.add_route(
        core,
        Route::via("10.1.0.0/16".parse().unwrap(), core_ha, ip("172.16.1.2")),
    )
    .unwrap();
    w.add_route(
        core,
        Route::via("10.2.0.0/24".parse().unwrap(), core_fa, ip("172.16.2.2")),
    )
    .unwrap();
    w.add_route(
        har,
        Route::via("0.0.0.0/0".parse().unwrap(), ha_core, ip("172.16.1.1")),
    )
    .unwrap();
    w.add_route(
        far,
        Route::via("0.0.0.0/0".parse().unwrap(), fa_core, ip("172.16.2.1")),
    )
    .unwrap();
    let cell = CellConfig::new(CELL_BPS, D.cell, Sharing::Dedicated);
    let (home_cell, home_ap) = w.add_cell("home", har, "home", cell.clone()).unwrap();
    w.add_address(har, home_ap, "10.1.0.254/24".parse().unwrap())
        .unwrap();
    let (visit_cell, visit_ap) = w.add_cell("visit", far, "visit", cell).unwrap();
    w.add_address(far, visit_ap, "10.2.0.254/24".parse().unwrap())
        .unwrap();
    let radio = w.add_iface(mn, "radio").unwrap();
    w.attach(mn, radio, home_cell).unwrap();
    let wlan = two_radios.then(|| w.add_iface(mn, "wlan").unwrap());

    let mut hcfg = HomeAgentConfig::new(v4("10.1.0.254"), "10.1.0.0/24".parse().unwrap());
    hcfg.advertise = Some(AdvertisementConfig {
        interval: D.adv_interval,
        ..AdvertisementConfig::new(home_ap, v4("10.1.0.254"))
    });
    hcfg.processing_delay = D.ha_processing;
    hcfg.auth_delay = D.ha_auth;
    hcfg.mobiles.push(MobileSecurity {
        home_address: v4("10.1.0.10"),
        spi: 256,
        key: KEY.to_vec(),
    });
    let ha = w
        .add_agent(har, "ha", Box::new(HomeAgent::new(hcfg)))
        .unwrap();
    let mut fcfg = ForeignAgentConfig::new(AdvertisementConfig {
        interval: D.adv_interval,
        offset: D.fa_adv_offset,
        ..AdvertisementConfig::new(visit_ap, v4("10.2.0.254"))
    });
    fcfg.processing_delay = D.fa_processing;
    let fa = w
        .add_agent(far, "fa", Box::new(ForeignAgent::new(fcfg)))
        .unwrap();
    let mut mcfg = MobileNodeConfig::new(
        v4("10.1.0.10"),
        "10.1.0.0/24".parse().unwrap(),
        v4("10.1.0.254"),
        wlan.into_iter().chain([radio]).collect(),
        KEY.to_vec(),
    );
    mcfg.auth_delay = D.mn_auth;
    let mip = w
        .add_agent(mn, "mip", Box::new(MobileNode::new(mcfg)))
        .unwrap();
    Net {
        w,
        cn,
        mn,
        radio,
        home_cell,
        visit_cell,
        ha,
        fa,
        mip,
        wlan,
        fa_node: far,
        fa_wired: fa_core,
    }
}

/// Moves the radio from the home cell to the visited cell at `at`.
fn move_at(net: &mut Net, at: Time) {
    let (mn, radio, visit) = (net.mn, net.radio, net.visit_cell);
    net.w.at(at, move |w| {
        w.detach(mn, radio).unwrap();
        w.attach(mn, radio, visit).unwrap();
    });
}

fn add_cbr(net: &mut Net, interval: Duration) -> AgentId {
    let flow = UdpFlow::new(ip("192.168.0.1"), 7000, ip("10.1.0.10"), 9000);
    let rate = (1000 * 8) as f64 / interval.as_secs_f64();
    let cbr = CbrConfig {
        flow,
        packet_size: 1000,
        rate_bps: rate as u64,
        start: Time::from_millis(500),
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

/// One-way time of a packet of `len` bytes over the wired hops and the cell
/// (store and forward).
fn one_way(len: usize, wired_hops: u32) -> Duration {
    (serialization_time(len, WIRED_BPS) + D.wired) * wired_hops
        + serialization_time(len, CELL_BPS)
        + D.cell
}

#[test]
fn handoff_timeline_and_t_mip_equals_its_parts() {
    let mut net = build();
    let sink = add_cbr(&mut net, Duration::from_millis(10));
    let move_t = Time::from_secs(5);
    move_at(&mut net, move_t);
    net.w.run_until(Time::from_secs(8));

    let mn = net.w.agent::<MobileNode>(net.mip).unwrap();
    let ha = net.w.agent::<HomeAgent>(net.ha).unwrap();
    let fa = net.w.agent::<ForeignAgent>(net.fa).unwrap();
    let s = net.w.agent::<UdpSink>(sink).unwrap();

    // The timeline: at home from the start (deregistration), then the move.
    let h = *mn.handovers().last().unwrap();
    assert!(!h.at_home);
    assert_eq!(h.to_agent, v4("10.2.0.254"));
    let accepted = h.accepted_at.expect("registration accepted");

    // Agent discovery: the foreign agent's next advertisement after the
    // attach (advertisements at offset + k * interval).
    let t_ad_expected = D.fa_adv_offset; // 5.3 s - 5.0 s
    let adv_len = 20 + 16 + 2 + 6 + 4;
    let t_ad = h.discovered_at - move_t;
    let adv_travel = serialization_time(adv_len, CELL_BPS) + D.cell;
    assert_eq!(t_ad, t_ad_expected + adv_travel, "T_ad");

    // Registration: MN authenticator, request MN -> FA -> HA, HA
    // processing and authentication, reply HA -> FA -> MN, FA processing
    // each way. Request 20 + 8 + 24 + 22 bytes, reply 20 + 8 + 20 + 22.
    let rq = 20 + 8 + 24 + 22;
    let rp = 20 + 8 + 20 + 22;
    let cell_hop = |len| serialization_time(len, CELL_BPS) + D.cell;
    let wired_hop = |len| serialization_time(len, WIRED_BPS) + D.wired;
    let t_reg_expected = D.mn_auth
        + cell_hop(rq)
        + D.fa_processing
        + wired_hop(rq) * 2
        + D.ha_processing
        + D.ha_auth
        + wired_hop(rp) * 2
        + D.fa_processing
        + cell_hop(rp);
    let t_reg = accepted - h.discovered_at;
    assert_eq!(t_reg, t_reg_expected, "T_reg");
    let t_mip = accepted - move_t;
    println!(
        "T_MIP = {:.3} ms = T_ad {:.3} ms + T_reg {:.3} ms (configured parts: {:.3} + {:.3})",
        t_mip.as_secs_f64() * 1e3,
        t_ad.as_secs_f64() * 1e3,
        t_reg.as_secs_f64() * 1e3,
        (t_ad_expected + adv_travel).as_secs_f64() * 1e3,
        t_reg_expected.as_secs_f64() * 1e3
    );

    // The binding changed at the home agent at a known instant.
    let bound_at = ha
        .trace()
        .iter()
        .rev()
        .find(|(_, e)| matches!(e, MipTraceEvent::BindingUpdated { .. }))
        .map(|(t, _)| *t)
        .unwrap();
    assert!(bound_at < accepted && bound_at > h.discovered_at);

    // The receiver's blackout: last packet before the move to the first
    // after. Packets sent to the home address until the binding changes
    // are lost; the first tunnelled one reaches the visited cell.
    let arr = s.arrivals();
    let last_before = arr
        .iter()
        .filter(|a| a.at <= move_t)
        .map(|a| a.at)
        .max()
        .unwrap();
    let first_after = arr
        .iter()
        .filter(|a| a.at > move_t)
        .map(|a| a.at)
        .min()
        .unwrap();
    let blackout = first_after - last_before;
    let tunnel_path = one_way(1020, 2); // HA -> core -> FA, then the cell
    let min = bound_at - move_t;
    let max = min + Duration::from_millis(10) + tunnel_path + Duration::from_millis(11);
    println!(
        "blackout at the receiver {:.1} ms (binding at HA {:.1} ms after the move)",
        blackout.as_secs_f64() * 1e3,
        min.as_secs_f64() * 1e3
    );
    assert!(blackout >= min && blackout <= max, "blackout {blackout:?}");

    // Everything sent in the blackout was lost at the home cell, no more.
    let lost = net.w.drops().count(DropReason::Detached);
    let expected_lost = (blackout.as_millis() as u64 / 10).saturating_sub(1);
    assert!(
        lost >= expected_lost.saturating_sub(2) && lost <= expected_lost + 2,
        "lost {lost}, about {expected_lost} expected"
    );

    // IP-in-IP: 20 bytes more per packet.
    let st = ha.stats();
    assert!(st.tunnelled_packets > 200);
    assert_eq!(st.tunnelled_bytes, st.tunnelled_packets * 1020);
    // All tunnelled packets but those still in flight were decapsulated.
    let dec = fa.stats().decapsulated;
    assert!(dec <= st.tunnelled_packets && dec + 2 >= st.tunnelled_packets);
    assert!(fa.stats().requests_relayed >= 1);

    // The whole timeline, merged, for the reader.
    let mut tl: Vec<(Time, String)> = Vec::new();
    for (who, tr) in [("mn", mn.trace()), ("fa", fa.trace()), ("ha", ha.trace())] {
        for (t, e) in tr {
            if *t >= move_t - Duration::from_millis(100) {
                tl.push((*t, format!("{who}: {e:?}")));
            }
        }
    }
    tl.push((last_before, "receiver: last packet before the move".into()));
    tl.push((
        move_t,
        "radio: detach from home cell, attach to visited cell".into(),
    ));
    tl.push((first_after, "receiver: first packet after the move".into()));
    tl.sort_by_key(|x| x.0);
    for (t, e) in tl {
        println!("{:>12.6} s  {e}", t.as_secs_f64());
    }
}

#[test]
fn return_home_deregisters_and_stops_tunnelling() {
    let mut net = build();
    let sink = add_cbr(&mut net, Duration::from_millis(20));
    move_at(&mut net, Time::from_secs(3));
    let (mn, radio, home) = (net.mn, net.radio, net.home_cell);
    net.w.at(Time::from_secs(6), move |w| {
        w.detach(mn, radio).unwrap();
        w.attach(mn, radio, home).unwrap();
    });
    net.w.run_until(Time::from_secs(9));
    let m = net.w.agent::<MobileNode>(net.mip).unwrap();
    let a = m.attached().unwrap();
    assert!(a.at_home && a.registered);
    let ha = net.w.agent::<HomeAgent>(net.ha).unwrap();
    assert!(ha.binding(v4("10.1.0.10")).is_none());
    assert!(ha.stats().deregistrations >= 2);
    let tunnelled = ha.stats().tunnelled_packets;
    // Packets arrive at home again, untunnelled, after the return.
    let s = net.w.agent::<UdpSink>(sink).unwrap();
    let late = s
        .arrivals()
        .iter()
        .filter(|x| x.at > Time::from_secs(7))
        .count();
    assert!(late > 80, "{late} packets after returning home");
    assert!(tunnelled > 0 && tunnelled < 160);
}

#[test]
fn forged_registration_is_denied_and_changes_nothing() {
    let mut net = build();
    net.w.run_until(Time::from_secs(1));
    // A request for the mobile's home address with a wrong key, sent to
    // the home agent from the correspondent's network.
    let req = msctp_sim::models::mip::v4::wire::RegistrationRequest {
        flags: 0,
        lifetime_s: 100,
        home_address: v4("10.1.0.10"),
        home_agent: v4("10.1.0.254"),
        care_of: v4("192.168.0.1"),
        identification: u64::MAX - 1,
        auth: None,
    };
    let payload = req.emit(Some((256, b"wrong key")));
    let pkt =
        msctp_sim::kernel::udp::build(ip("192.168.0.1"), ip("10.1.0.254"), 434, 434, 64, &payload)
            .unwrap();
    net.w.inject(net.cn, pkt).unwrap();
    // And garbage on the registration port.
    let junk =
        msctp_sim::kernel::udp::build(ip("192.168.0.1"), ip("10.1.0.254"), 434, 434, 64, &[1, 2])
            .unwrap();
    net.w.inject(net.cn, junk).unwrap();
    net.w.run_until(Time::from_secs(2));
    let ha = net.w.agent::<HomeAgent>(net.ha).unwrap();
    assert_eq!(ha.stats().denied, 1);
    assert_eq!(ha.stats().malformed, 1);
    assert!(ha.binding(v4("10.1.0.10")).is_none());
}

fn tcp_over_mip(mn_sends: bool) -> (u64, u64, u64, msctp_sim::models::tcp::TcpStats) {
    let mut net = build();
    let log = FlowLog::shared();
    let tcp = TcpConfig {
        min_rto: Duration::from_millis(200),
        ..TcpConfig::ns3_compatible()
    };
    let src = Source::new(
        Traffic::Bulk {
            message_bytes: 1448,
        },
        Time::from_millis(500),
        None,
    )
    .unwrap();
    // The mobile node opens the connection from its home address.
    let local = SocketAddr::new(ip("10.1.0.10"), 40000);
    let remote = SocketAddr::new(ip("192.168.0.1"), 5000);
    let mut ccfg = TcpAgentConfig::client(tcp.clone(), local, remote, Time::from_millis(500))
        .with_log(log.clone());
    let mut scfg = TcpAgentConfig::server(tcp, 5000).with_log(log.clone());
    if mn_sends {
        ccfg = ccfg.with_source(src);
    } else {
        scfg = scfg.with_source(src);
    }
    let client = net
        .w
        .add_agent(net.mn, "tcp", Box::new(TcpAgent::new(ccfg).unwrap()))
        .unwrap();
    let server = net
        .w
        .add_agent(net.cn, "tcp", Box::new(TcpAgent::new(scfg).unwrap()))
        .unwrap();
    move_at(&mut net, Time::from_secs(5));
    net.w.run_until(Time::from_secs(5));
    let (rx, tx) = if mn_sends {
        (server, client)
    } else {
        (client, server)
    };
    let before = net.w.agent::<TcpAgent>(rx).unwrap().delivered();
    net.w.run_until(Time::from_secs(12));
    let after = net.w.agent::<TcpAgent>(rx).unwrap().delivered();
    let stats = net.w.agent::<TcpAgent>(tx).unwrap().stats().unwrap();
    let gap = msctp_sim::measure::handoff_latency(
        &log.borrow().arrivals,
        msctp_sim::measure::Window::new(Time::from_secs(4), Time::from_secs(8)).unwrap(),
    );
    (before, after, gap.as_millis() as u64, stats)
}

#[test]
fn tcp_downlink_survives_the_handoff_by_its_own_timers() {
    let (before, after, gap_ms, st) = tcp_over_mip(false);
    println!(
        "downlink: {before} B before, {after} B after, longest gap {gap_ms} ms, RTOs {}",
        st.timeouts
    );
    assert!(before > 300_000);
    assert!(after > before + 300_000, "the transfer resumes");
    // The blackout (~0.3 s of discovery + registration) costs at least one
    // retransmission timeout.
    assert!(st.timeouts >= 1);
    assert!(gap_ms >= 300, "longest wait {gap_ms} ms");
}

#[test]
fn tcp_uplink_triangle_routing() {
    let (before, after, gap_ms, st) = tcp_over_mip(true);
    println!(
        "uplink: {before} B before, {after} B after, longest gap {gap_ms} ms, RTOs {}",
        st.timeouts
    );
    assert!(before > 300_000);
    assert!(after > before + 300_000);
    assert!(st.timeouts >= 1);
}

#[test]
fn tshark_decodes_tunnel_and_registration() {
    let Ok(out) = std::process::Command::new("tshark").arg("-v").output() else {
        eprintln!("tshark not installed: skipping (apt-get install tshark)");
        return;
    };
    assert!(out.status.success());
    let mut net = build();
    add_cbr(&mut net, Duration::from_millis(50));
    let wired_buf = SharedBuffer::new();
    let radio_buf = SharedBuffer::new();
    net.w
        .capture(
            net.fa_node,
            net.fa_wired,
            CaptureConfig::default(),
            Box::new(wired_buf.clone()),
        )
        .unwrap();
    net.w
        .capture(
            net.mn,
            net.radio,
            CaptureConfig::default(),
            Box::new(radio_buf.clone()),
        )
        .unwrap();
    move_at(&mut net, Time::from_secs(2));
    net.w.run_until(Time::from_secs(4));
    net.w.flush_captures().unwrap();
    let dir = std::env::temp_dir().join(format!("mip_tshark_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wired = dir.join("fa_wired.pcap");
    let radio = dir.join("mn_radio.pcap");
    std::fs::write(&wired, wired_buf.contents()).unwrap();
    std::fs::write(&radio, radio_buf.contents()).unwrap();
    let tshark = |file: &std::path::Path, filter: &str, fields: &[&str]| -> String {
        let mut c = std::process::Command::new("tshark");
        c.arg("-r").arg(file).args(["-Y", filter, "-T", "fields"]);
        for f in fields {
            c.args(["-e", f]);
        }
        let o = c.output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    // IP-in-IP: outer HA -> CoA, inner CN -> home address, UDP inside.
    let t = tshark(
        &wired,
        "ip.proto == 4",
        &["ip.src", "ip.dst", "udp.dstport"],
    );
    let first = t.lines().next().expect("tunnelled packets in the capture");
    assert_eq!(
        first, "10.1.0.254,192.168.0.1\t10.2.0.254,10.1.0.10\t9000",
        "outer and inner headers decoded"
    );
    // Registration request and reply, decoded by the mip dissector.
    let t = tshark(
        &radio,
        "mip",
        &[
            "mip.type",
            "mip.homeaddr",
            "mip.haaddr",
            "mip.coa",
            "mip.code",
        ],
    );
    let lines: Vec<&str> = t.lines().collect();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("1\t10.1.0.10\t10.1.0.254\t10.2.0.254")),
        "registration request: {t}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("3\t10.1.0.10\t10.1.0.254") && l.ends_with("\t0")),
        "accepted registration reply: {t}"
    );
    // Agent advertisements with the mobility extension.
    let t = tshark(&radio, "icmp.type == 9", &["icmp.mip.coa"]);
    assert!(
        t.lines().any(|l| l == "10.2.0.254"),
        "agent advertisements: {t}"
    );
    // Nothing malformed anywhere.
    for f in [&wired, &radio] {
        let bad = tshark(
            f,
            "_ws.malformed || _ws.expert.severity >= \"error\"",
            &["frame.number"],
        );
        assert!(
            bad.trim().is_empty(),
            "malformed frames in {}: {bad}",
            f.display()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_radios_move_the_home_address_to_the_preferred_interface_and_back() {
    // E1's use: the UMTS radio stays in the home cell, the WLAN radio
    // enters and leaves the visited cell; the WLAN is preferred.
    let mut net = build_with(true);
    let sink = add_cbr(&mut net, Duration::from_millis(20));
    let (mn, visit) = (net.mn, net.visit_cell);
    let wlan = net.wlan.unwrap();
    net.w.at(Time::from_secs(3), move |w| {
        w.attach(mn, wlan, visit).unwrap()
    });
    net.w
        .at(Time::from_secs(6), move |w| w.detach(mn, wlan).unwrap());
    let home = ip("10.1.0.10");
    let holder = |w: &World| {
        w.node(mn)
            .unwrap()
            .ifaces()
            .iter()
            .find(|i| i.has_addr(home))
            .map(|i| i.id())
    };
    net.w.run_until(Time::from_secs(5));
    assert_eq!(holder(&net.w), Some(wlan));
    let a = net
        .w
        .agent::<MobileNode>(net.mip)
        .unwrap()
        .attached()
        .unwrap();
    assert!(a.registered && !a.at_home && a.iface == wlan);
    net.w.run_until(Time::from_secs(8));
    assert_eq!(holder(&net.w), Some(net.radio));
    let m = net.w.agent::<MobileNode>(net.mip).unwrap();
    let a = m.attached().unwrap();
    assert!(a.registered && a.at_home && a.iface == net.radio);
    // Back home the link layer's link-down is the movement detection: the
    // home agent was known on the other radio all along, so only the
    // deregistration separates the two paths.
    let back = *m.handovers().last().unwrap();
    assert!(back.at_home);
    assert_eq!(back.detected_at, Time::from_secs(6));
    let s = net.w.agent::<UdpSink>(sink).unwrap();
    let (mut before, mut after) = (0, 0);
    for x in s.arrivals() {
        if x.at < Time::from_secs(3) {
            before += 1;
        } else if x.at > Time::from_secs(7) {
            after += 1;
        }
        assert_eq!(x.dst, home);
    }
    assert!(before > 100 && after > 40, "{before} {after}");
    assert!(s.arrivals().iter().any(|x| x.iface == Some(wlan)));
}
