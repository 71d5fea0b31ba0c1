//! The single-connection bandwidth-aware vertical handoff (docs/MODELS.md
//! 2.3): the connection stops for exactly the handoff processing latency
//! of the target network, then resumes on the new interface with its
//! window set from the new link's BDP; the correspondent follows the
//! location update.

mod handoff_net;

use std::net::SocketAddr;
use std::time::Duration;

use handoff_net::*;
use msctp_sim::measure::flow_log::FlowLog;
use msctp_sim::models::app::{Source, Traffic};
use msctp_sim::models::handoff::{
    HandoffPeer, NetworkProfile, ProcessingMode, SingleConnectionConfig, SingleConnectionHandoff,
    TCB_UPDATE,
};
use msctp_sim::models::tcp::{TcpAgent, TcpAgentConfig};
use msctp_sim::{AgentId, Time};

const INTO_WLAN: Duration = Duration::from_millis(700);
const INTO_UMTS: Duration = Duration::from_millis(1300);

fn networks(net: &Net4) -> Vec<NetworkProfile> {
    vec![
        NetworkProfile {
            iface: net.umts,
            address: ip(MN_UMTS),
            bandwidth_bps: UMTS_BPS,
            rtt: (UMTS_DELAY + CORE_DELAY) * 2,
            processing: INTO_UMTS,
            preference: 0,
        },
        NetworkProfile {
            iface: net.wlan,
            address: ip(MN_WLAN),
            bandwidth_bps: WLAN_BPS,
            rtt: (WLAN_DELAY + CORE_DELAY) * 2,
            processing: INTO_WLAN,
            preference: 1,
        },
    ]
}

fn setup(
    net: &mut Net4,
) -> (
    AgentId,
    AgentId,
    msctp_sim::measure::flow_log::SharedFlowLog,
) {
    setup_with(net, ProcessingMode::Freeze)
}

fn setup_with(
    net: &mut Net4,
    mode: ProcessingMode,
) -> (
    AgentId,
    AgentId,
    msctp_sim::measure::flow_log::SharedFlowLog,
) {
    let log = FlowLog::shared();
    let remote = SocketAddr::new(ip(DST), 5000);
    let mut cfg = SingleConnectionConfig::new(tcp(), networks(net), remote);
    cfg.settings.during_processing = mode;
    cfg.source = Some(
        Source::new(
            Traffic::Bulk {
                message_bytes: 1460,
            },
            Time::ZERO,
            None,
        )
        .unwrap(),
    );
    cfg.log = Some(log.clone());
    let mn = net
        .w
        .add_agent(
            net.mn,
            "single",
            Box::new(SingleConnectionHandoff::new(cfg).unwrap()),
        )
        .unwrap();
    let server = TcpAgent::new(TcpAgentConfig::server(tcp(), 5000).with_log(log.clone())).unwrap();
    let peer = net
        .w
        .add_agent(net.dst, "peer", Box::new(HandoffPeer::new(server)))
        .unwrap();
    (mn, peer, log)
}

/// Data segments the mobile node has sent so far.
fn sent(w: &msctp_sim::World, mn: AgentId) -> u64 {
    w.agent::<SingleConnectionHandoff>(mn)
        .unwrap()
        .stats()
        .unwrap()
        .data_segments_sent
}

#[test]
fn stops_for_exactly_the_processing_latency_each_way() {
    let mut net = build(1);
    let (mn, peer, _log) = setup(&mut net);
    let x = Duration::from_millis(500);
    let y = Duration::from_millis(400);
    wlan_available(&mut net, Time::from_secs(20), Time::from_secs(30), x, y);
    // Sample the sender's counter just after each decision and just before
    // the end of its processing.
    let samples = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let up_decision = Time::from_secs(20) + x;
    let down_decision = Time::from_secs(30) + y;
    for (t, d) in [(up_decision, INTO_WLAN), (down_decision, INTO_UMTS)] {
        for at in [
            t + Duration::from_micros(1),
            t + d - Duration::from_micros(1),
        ] {
            let s = samples.clone();
            net.w.at(at, move |w| s.borrow_mut().push(sent(w, mn)));
        }
    }
    net.w.run_until(Time::from_secs(40));
    let a = net.w.agent::<SingleConnectionHandoff>(mn).unwrap();
    let r = a.records();
    assert_eq!(r.len(), 2);
    // Into the WLAN: 700 ms stop, then data at once.
    assert_eq!(r[0].decided_at, up_decision);
    assert_eq!(r[0].resumed_at, Some(up_decision + INTO_WLAN));
    assert_eq!(r[0].first_data_at, r[0].resumed_at);
    // Back to UMTS after the WLAN is declared gone: 1300 ms.
    assert_eq!(r[1].decided_at, down_decision);
    assert_eq!(r[1].resumed_at, Some(down_decision + INTO_UMTS));
    assert_eq!(r[1].first_data_at, r[1].resumed_at);
    let s = samples.borrow();
    assert_eq!(s[0], s[1], "nothing sent while processing into the WLAN");
    assert_eq!(s[2], s[3], "nothing sent while processing into UMTS");
    assert_eq!(a.current(), 0);
    // The correspondent followed both location updates.
    assert_eq!(net.w.agent::<HandoffPeer>(peer).unwrap().updates(), 2);
    let rx = net.w.agent::<HandoffPeer>(peer).unwrap().tcp().delivered();
    assert!(rx > 5_000_000, "{rx} bytes");
}

#[test]
fn window_restarts_from_the_new_links_bdp() {
    let mut net = build(2);
    let (mn, _, _) = setup(&mut net);
    let x = Duration::from_millis(100);
    wlan_available(&mut net, Time::from_secs(10), Time::from_secs(30), x, x);
    let cwnd = std::rc::Rc::new(std::cell::Cell::new(0u32));
    let c = cwnd.clone();
    let resume = Time::from_secs(10) + x + INTO_WLAN;
    // Just after the resumption (the processing's end runs first).
    net.w.at(resume + Duration::from_micros(1), move |w| {
        c.set(
            w.agent::<SingleConnectionHandoff>(mn)
                .unwrap()
                .stats()
                .unwrap()
                .cwnd,
        );
    });
    net.w.run_until(Time::from_secs(12));
    let rtt = (WLAN_DELAY + CORE_DELAY) * 2;
    let bdp = (WLAN_BPS as f64 * rtt.as_secs_f64() / 8.0) as u32;
    assert_eq!(cwnd.get(), bdp, "BDP of 5 Mbit/s x 30 ms");
}

#[test]
fn ping_pong_restarts_processing_every_time() {
    let mut net = build(3);
    let (mn, peer, _) = setup(&mut net);
    let x = Duration::from_millis(100);
    for k in 0..5u64 {
        let from = Time::from_secs(20 + 2 * k);
        wlan_available(&mut net, from, from + Duration::from_secs(1), x, x);
    }
    net.w.run_until(Time::from_secs(32));
    let a = net.w.agent::<SingleConnectionHandoff>(mn).unwrap();
    // Ten decisions, each a handoff with its full processing; a decision
    // during processing supersedes the one under way.
    assert_eq!(a.records().len(), 10);
    let superseded = a
        .records()
        .iter()
        .filter(|r| r.resumed_at.is_none())
        .count();
    assert!(superseded >= 4, "{superseded} handoffs superseded");
    let rx_pp = net.w.agent::<HandoffPeer>(peer).unwrap().tcp().delivered();

    // The same run without the WLAN ("no handoff") delivers more.
    let mut calm = build(3);
    let (_, peer2, _) = setup(&mut calm);
    calm.w.run_until(Time::from_secs(32));
    let rx_calm = calm
        .w
        .agent::<HandoffPeer>(peer2)
        .unwrap()
        .tcp()
        .delivered();
    println!("single connection: ping-pong {rx_pp} B, no handoff {rx_calm} B by 32 s");
    assert!(rx_pp < rx_calm);
}

#[test]
fn in_drop_mode_what_is_sent_during_the_tcb_update_is_dropped_and_timers_recover() {
    // Tsukamoto, Hori and Oie, section 5.1: "transmitted packets are
    // dropped while the TCB ... is being updated". The WLAN is lost at
    // 30 s; the decision comes y = 0.4 s later and the update into UMTS
    // takes 1.3 s: the connection keeps sending (into nothing), its
    // retransmission timer keeps running (and fires: the dropped packets
    // are never acknowledged); what it marked lost leaves once the update
    // has set the new window; the scheme itself resends nothing.
    let mut net = build(1);
    let (mn, peer, _log) = setup_with(&mut net, ProcessingMode::Drop);
    let y = Duration::from_millis(400);
    wlan_available(
        &mut net,
        Time::from_secs(20),
        Time::from_secs(30),
        Duration::from_millis(100),
        y,
    );
    net.w.run_until(Time::from_secs(45));
    let a = net.w.agent::<SingleConnectionHandoff>(mn).unwrap();
    let r = a.records();
    assert_eq!(r.len(), 2);
    let down = r[1];
    assert_eq!(down.resumed_at, Some(down.decided_at + INTO_UMTS));
    assert!(down.first_data_at.is_some(), "data after the update");
    let dropped = net
        .w
        .drops()
        .records()
        .iter()
        .filter(|d| format!("{:?}", d.reason).contains(TCB_UPDATE))
        .count();
    assert!(
        dropped > 0,
        "something was sent and dropped during the update"
    );
    assert!(a.stats().unwrap().timeouts >= 1);
    let rx = net.w.agent::<HandoffPeer>(peer).unwrap().tcp().delivered();
    assert!(rx > 5_000_000, "{rx} bytes");
}
