//! The multi-connection transport (docs/MODELS.md 2.4): control blocks reused
//! on a ping-pong return without a new handshake, the old connection's
//! unacknowledged data sent first on the new one after a switch, the
//! BDP-based switch on link-up, link state told over the backup link by a
//! receiving mobile node, striping.

mod handoff_net;

use std::net::SocketAddr;
use std::time::Duration;

use handoff_net::*;
use msctp_sim::measure::flow_log::FlowLog;
use msctp_sim::models::app::{Source, Traffic};
use msctp_sim::models::cmhn::{CmhnAgent, CmhnConfig, CmhnInterface, CmhnSide, Scheduling};
use msctp_sim::{AgentId, Time};

fn bulk() -> Source {
    Source::new(
        Traffic::Bulk {
            message_bytes: 1447,
        },
        Time::ZERO,
        None,
    )
    .unwrap()
}

fn mobile_side(net: &Net4) -> CmhnSide {
    CmhnSide::Mobile {
        interfaces: vec![
            CmhnInterface {
                iface: net.umts,
                address: ip(MN_UMTS),
            },
            CmhnInterface {
                iface: net.wlan,
                address: ip(MN_WLAN),
            },
        ],
        remote: SocketAddr::new(ip(DST), 6000),
        local_port: 41000,
    }
}

/// CMHN with the mobile node sending (E4) or receiving.
fn setup(net: &mut Net4, mobile_sends: bool, scheduling: Scheduling) -> (AgentId, AgentId) {
    let mut m = CmhnConfig::new(tcp(), mobile_side(net));
    let mut f = CmhnConfig::new(tcp(), CmhnSide::Fixed { port: 6000 });
    m.settings.scheduling = scheduling;
    f.settings.scheduling = scheduling;
    if mobile_sends {
        m.source = Some(bulk());
    } else {
        f.source = Some(bulk());
    }
    let a = net
        .w
        .add_agent(net.mn, "cmhn", Box::new(CmhnAgent::new(m).unwrap()))
        .unwrap();
    let b = net
        .w
        .add_agent(net.dst, "cmhn", Box::new(CmhnAgent::new(f).unwrap()))
        .unwrap();
    (a, b)
}

#[test]
fn ping_pong_returns_reuse_the_connection_without_a_handshake() {
    let mut net = build(4);
    let (mn, dst) = setup(&mut net, true, Scheduling::Switch);
    let x = Duration::from_millis(100);
    for k in 0..5u64 {
        let from = Time::from_secs(20 + 2 * k);
        wlan_available(&mut net, from, from + Duration::from_secs(1), x, x);
    }
    net.w.run_until(Time::from_secs(32));
    let s = net.w.agent::<CmhnAgent>(mn).unwrap().stats();
    println!("{s:?}");
    // One handshake per interface for the whole run; four returns to the
    // WLAN that reused its frozen connection.
    assert_eq!(s.handshakes, 2);
    assert_eq!(s.reuses, 4);
    assert_eq!(s.expired, 0);
    let d = net.w.agent::<CmhnAgent>(dst).unwrap();
    assert_eq!(d.stats().accepted, 2);
    // The data arrived whole and in order (duplicates from switches
    // dropped).
    assert!(d.delivered() > 1_500_000);
    assert_eq!(d.stats().reorder_overflow, 0);
}

#[test]
fn a_switch_sends_the_old_connections_unacknowledged_data_first() {
    let mut net = build(5);
    let (mn, dst) = setup(&mut net, true, Scheduling::Switch);
    let x = Duration::from_millis(100);
    let y = Duration::from_millis(300);
    wlan_available(&mut net, Time::from_secs(10), Time::from_secs(20), x, y);
    net.w.run_until(Time::from_secs(25));
    let a = net.w.agent::<CmhnAgent>(mn).unwrap();
    // Switches: to the WLAN after link-up, back to UMTS after link-down.
    let back = a
        .switches()
        .iter()
        .find(|s| s.from == Some(1) && s.to == 0)
        .expect("switch back to UMTS");
    assert_eq!(back.at, Time::from_secs(20) + y);
    assert!(
        !back.resent.is_empty(),
        "the WLAN connection had data in flight"
    );
    let n = back.resent.len().min(back.written_after.len());
    assert!(n > 0);
    assert_eq!(
        &back.written_after[..n],
        &back.resent[..n],
        "the old connection's records go first, in order"
    );
    if let Some(&next) = back.written_after.get(back.resent.len()) {
        assert!(
            back.resent.iter().all(|&r| r < next),
            "new data only after them"
        );
    }
    let d = net.w.agent::<CmhnAgent>(dst).unwrap();
    assert!(d.stats().duplicates_received <= back.resent.len() as u64);
    assert!(d.delivered() > 0);
}

#[test]
fn link_up_switches_when_the_new_bdp_is_larger() {
    let mut net = build(6);
    let (mn, _dst) = setup(&mut net, true, Scheduling::Switch);
    let x = Duration::from_millis(100);
    wlan_available(&mut net, Time::from_secs(10), Time::from_secs(40), x, x);
    net.w.run_until(Time::from_secs(13));
    let a = net.w.agent::<CmhnAgent>(mn).unwrap();
    assert_eq!(a.active(), Some(1));
    let to_wlan = &a.switches()[0];
    assert_eq!(to_wlan.to, 1);
    assert!(to_wlan.at > Time::from_secs(10) + x);
    assert!(
        to_wlan.at < Time::from_secs(12),
        "switched at {:?}",
        to_wlan.at
    );
    let (umts, wlan) = (a.bdp_estimate(0).unwrap(), a.bdp_estimate(1).unwrap());
    println!("BDP estimates: UMTS {umts:.0} B, WLAN {wlan:.0} B");
    assert!(wlan > umts);
}

#[test]
fn a_receiving_mobile_node_tells_the_sender_over_the_backup_link() {
    let mut net = build(7);
    let (mn, dst) = setup(&mut net, false, Scheduling::Switch);
    let x = Duration::from_millis(100);
    wlan_available(&mut net, Time::from_secs(5), Time::from_secs(15), x, x);
    net.w.run_until(Time::from_secs(20));
    let m = net.w.agent::<CmhnAgent>(mn).unwrap();
    let f = net.w.agent::<CmhnAgent>(dst).unwrap();
    assert!(m.stats().link_messages_sent >= 2);
    assert_eq!(
        f.stats().link_messages_received,
        m.stats().link_messages_sent
    );
    // The fixed sender switched to the WLAN and back.
    assert!(f.switches().iter().any(|s| s.to == 1));
    let back = f.switches().iter().find(|s| s.from == Some(1)).unwrap();
    assert_eq!(back.to, 0);
    // Told over UMTS: it arrives one UMTS path later than the decision.
    assert!(back.at > Time::from_secs(15) + x + UMTS_DELAY);
    assert!(back.at < Time::from_secs(15) + x + Duration::from_secs(1));
    assert!(m.delivered() > 2_000_000);
}

#[test]
fn striping_uses_both_links() {
    let mut net = build(8);
    let log = FlowLog::shared();
    let mut m = CmhnConfig::new(tcp(), mobile_side(&net));
    m.settings.scheduling = Scheduling::Stripe;
    m.source = Some(bulk());
    let mut f = CmhnConfig::new(tcp(), CmhnSide::Fixed { port: 6000 });
    f.log = Some(log.clone());
    net.w
        .add_agent(net.mn, "cmhn", Box::new(CmhnAgent::new(m).unwrap()))
        .unwrap();
    let dst = net
        .w
        .add_agent(net.dst, "cmhn", Box::new(CmhnAgent::new(f).unwrap()))
        .unwrap();
    wlan_available(
        &mut net,
        Time::from_secs(1),
        Time::from_secs(100),
        Duration::ZERO,
        Duration::ZERO,
    );
    net.w.run_until(Time::from_secs(11));
    let l = log.borrow();
    let on = |p: u32| l.arrivals.iter().filter(|a| a.path.0 == p).count();
    let (umts, wlan) = (on(0), on(1));
    println!("records: {umts} over UMTS, {wlan} over the WLAN");
    assert!(umts > 200 && wlan > 2000);
    // Together above the WLAN alone over 2..11 s.
    let bytes = net.w.agent::<CmhnAgent>(dst).unwrap().delivered() as f64;
    assert!(bytes * 8.0 / 11.0 > 4_000_000.0);
}
