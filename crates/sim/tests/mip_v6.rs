//! Mobile IPv6 with route optimisation (RFC 6275) in the simulator: home
//! registration, correspondent binding, the optimised data path both ways,
//! a handover's phases against their configured parts, return home.

mod mip_v6_net;

use std::time::Duration;

use mip_v6_net::*;
use msctp_sim::models::app::UdpSink;
use msctp_sim::models::mip::v6::{Correspondent6, HomeAgent6, MobileNode6};
use msctp_sim::{DropReason, Time};

#[test]
fn route_optimisation_is_set_up_and_used_both_ways() {
    let mut net = build(Options::default());
    let down = downlink_cbr(&mut net, Duration::from_millis(20), Time::from_millis(500));
    let up = uplink_cbr(&mut net, Duration::from_millis(20), Time::from_millis(500));
    net.w.run_until(Time::from_secs(3));
    let mn = net.w.agent::<MobileNode6>(net.client).unwrap();
    let c = mn.current().unwrap();
    assert!(!c.at_home && c.ready);
    assert_eq!(c.care_of, a6(COA1));
    assert!(mn.home_registered());
    assert_eq!(mn.correspondent_binding(a6(CN)), Some(a6(COA1)));
    let cn = net.w.agent::<Correspondent6>(net.corr).unwrap();
    assert_eq!(cn.binding(a6(HOME)), Some(a6(COA1)));
    let s = cn.stats();
    assert!(s.optimised_out > 100, "{s:?}");
    assert!(s.optimised_in > 100, "{s:?}");
    assert_eq!(s.unbound, 0);
    // Only what was sent before the correspondent's binding went through
    // the home agent.
    let ha = net.w.agent::<HomeAgent6>(net.ha).unwrap().stats();
    assert!(
        ha.tunnelled_packets <= 2 && ha.reverse_tunnelled <= 2,
        "{ha:?}"
    );
    let d = net.w.agent::<UdpSink>(down).unwrap();
    let u = net.w.agent::<UdpSink>(up).unwrap();
    assert!(d.packets() >= 120 && u.packets() >= 120);
    // The transports see the home address on both ends.
    assert!(d.arrivals().iter().all(|a| a.dst == ip(HOME)));
    assert!(u.arrivals().iter().all(|a| a.src == ip(HOME)));
}

#[test]
fn handover_phases_match_their_configured_parts() {
    let mut net = build(Options::default());
    let down = downlink_cbr(&mut net, Duration::from_millis(10), Time::from_millis(500));
    let move_t = Time::from_secs(5);
    let (mn, radio, cell2) = (net.mn, net.radio, net.cell2);
    net.w.at(move_t, move |w| {
        w.detach(mn, radio).unwrap();
        w.attach(mn, radio, cell2).unwrap();
    });
    net.w.run_until(Time::from_secs(7));
    let client = net.w.agent::<MobileNode6>(net.client).unwrap();
    let h = *client.handovers().last().unwrap();
    assert!(!h.fast);
    assert_eq!(client.current().unwrap().care_of, a6(COA2));
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    // Movement detection: a router solicitation on link-up, answered at
    // once (cell one way 2 ms each, plus serialisation).
    let detect = h.detected_at - move_t;
    assert!(detect >= CELL * 2 && detect < CELL * 2 + Duration::from_millis(1));
    // Address configuration (DAD) as configured.
    assert_eq!(
        h.ready_at.unwrap() - h.detected_at,
        Duration::from_millis(50)
    );
    // Home registration: MN -> ar2 -> core -> ha and back, 1 ms processing.
    let home_rtt = (CELL + WIRED * 2) * 2 + Duration::from_millis(1);
    let hr = h.home_acked_at.unwrap() - h.ready_at.unwrap();
    assert!(
        hr >= home_rtt && hr < home_rtt + Duration::from_millis(1),
        "{}",
        ms(hr)
    );
    // Correspondent registration: MN -> ar2 -> core -> cn and back.
    let cn_rtt = (CELL + WIRED + CN_LINK) * 2 + Duration::from_millis(1);
    let cr = h.correspondents_acked_at.unwrap() - h.home_acked_at.unwrap();
    assert!(
        cr >= cn_rtt && cr < cn_rtt + Duration::from_millis(1),
        "{}",
        ms(cr)
    );
    // The receiver's blackout ends with the first packet the
    // correspondent sends to the new care-of address.
    let s = net.w.agent::<UdpSink>(down).unwrap();
    let (gap, before, after) = longest_gap(s, Time::from_secs(4), Time::from_secs(7));
    assert!(before <= move_t && after > move_t);
    let cn_binding_at = h.correspondents_acked_at.unwrap() - (CELL + WIRED + CN_LINK);
    let min = cn_binding_at - move_t;
    println!(
        "MIPv6 handover: detection {:.1} ms, DAD {:.1} ms, home registration {:.1} ms, correspondent {:.1} ms, receiver gap {:.1} ms",
        ms(detect),
        ms(h.ready_at.unwrap() - h.detected_at),
        ms(hr),
        ms(cr),
        ms(gap)
    );
    assert!(
        gap >= min
            && gap
                <= min
                    + Duration::from_millis(10)
                    + CN_LINK
                    + WIRED
                    + CELL
                    + Duration::from_millis(2)
    );
    // What the correspondent sent to the old care-of address was lost in
    // the old cell.
    let lost = net.w.drops().count(DropReason::Detached);
    assert!(lost >= 8, "lost {lost}");
}

#[test]
fn returning_home_removes_the_bindings() {
    let mut net = build(Options::default());
    let down = downlink_cbr(&mut net, Duration::from_millis(20), Time::from_millis(500));
    let (mn, radio) = (net.mn, net.radio);
    let home = net.w.cell_by_name("home").unwrap();
    net.w.at(Time::from_secs(3), move |w| {
        w.detach(mn, radio).unwrap();
        w.attach(mn, radio, home).unwrap();
    });
    net.w.run_until(Time::from_secs(5));
    let client = net.w.agent::<MobileNode6>(net.client).unwrap();
    assert!(client.current().unwrap().at_home);
    assert_eq!(client.correspondent_binding(a6(CN)), None);
    assert!(
        net.w
            .agent::<HomeAgent6>(net.ha)
            .unwrap()
            .binding(a6(HOME))
            .is_none()
    );
    assert_eq!(
        net.w
            .agent::<Correspondent6>(net.corr)
            .unwrap()
            .binding(a6(HOME)),
        None
    );
    let s = net.w.agent::<UdpSink>(down).unwrap();
    let late = s
        .arrivals()
        .iter()
        .filter(|a| a.at > Time::from_secs(4))
        .count();
    assert!(late >= 45, "{late}");
}

#[test]
fn tcp_over_mobile_ipv6_waits_for_a_timeout_at_the_handover() {
    use msctp_sim::measure::flow_log::FlowLog;
    use msctp_sim::measure::{Window, handoff_latency};
    use msctp_sim::models::app::{Source, Traffic};
    use msctp_sim::models::tcp::{TcpAgent, TcpAgentConfig, TcpConfig};
    use std::net::SocketAddr;

    let mut net = build(Options::default());
    let log = FlowLog::shared();
    let tcp = TcpConfig {
        min_rto: Duration::from_millis(200),
        ..TcpConfig::ns3_compatible()
    };
    let src = Source::new(
        Traffic::Bulk {
            message_bytes: 1440,
        },
        Time::from_millis(500),
        None,
    )
    .unwrap();
    // The correspondent (fixed host) sends to the mobile node's home
    // address; the mobile node accepts.
    let client = TcpAgentConfig::client(
        tcp.clone(),
        SocketAddr::new(ip(CN), 40000),
        SocketAddr::new(ip(HOME), 5000),
        Time::from_millis(500),
    )
    .with_source(src)
    .with_log(log.clone());
    let sender = net
        .w
        .add_agent(net.cn, "tcp", Box::new(TcpAgent::new(client).unwrap()))
        .unwrap();
    let receiver = net
        .w
        .add_agent(
            net.mn,
            "tcp",
            Box::new(
                TcpAgent::new(TcpAgentConfig::server(tcp, 5000).with_log(log.clone())).unwrap(),
            ),
        )
        .unwrap();
    let (mn, radio, cell2) = (net.mn, net.radio, net.cell2);
    net.w.at(Time::from_secs(5), move |w| {
        w.detach(mn, radio).unwrap();
        w.attach(mn, radio, cell2).unwrap();
    });
    net.w.run_until(Time::from_secs(5));
    let before = net.w.agent::<TcpAgent>(receiver).unwrap().delivered();
    net.w.run_until(Time::from_secs(10));
    let after = net.w.agent::<TcpAgent>(receiver).unwrap().delivered();
    let st = net.w.agent::<TcpAgent>(sender).unwrap().stats().unwrap();
    let gap = handoff_latency(
        &log.borrow().arrivals,
        Window::new(Time::from_secs(4), Time::from_secs(8)).unwrap(),
    );
    println!(
        "TCP over MIPv6: {before} B before, {after} B after, RTOs {}, longest wait {:.0} ms",
        st.timeouts,
        gap.as_secs_f64() * 1e3
    );
    assert!(
        after > before + 1_000_000,
        "the transfer resumes over the new care-of address"
    );
    assert!(
        st.timeouts >= 1,
        "the blackout costs a retransmission timeout"
    );
    // The wait is the registration blackout stretched to the timer.
    assert!(gap >= Duration::from_millis(150));
}
