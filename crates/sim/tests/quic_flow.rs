//! QUIC (quinn-proto) as a transport of the simulator: a bulk transfer,
//! determinism, and connection migration on the link layer's decisions.
//!
//! ```text
//!  mobile 10.1.0.1 --[l1]--\
//!                           r --[l3 10 Mb/s, 10 ms]-- server 10.3.0.1
//!  mobile 10.2.0.1 --[l2]--/
//! ```

use std::cell::RefCell;
use std::net::{IpAddr, SocketAddr};
use std::rc::Rc;
use std::time::Duration;

use msctp_sim::kernel::{IfaceId, LinkId, NodeId};
use msctp_sim::measure::{FlowLog, SharedFlowLog, Window, detect_handovers, longest_delivery_gap};
use msctp_sim::models::app::{Source, Traffic};
use msctp_sim::models::handoff::LinkDecision;
use msctp_sim::models::quic::{QuicAgent, QuicAgentConfig, QuicPathTagging, QuicStats};
use msctp_sim::scenario::{self, DirectionSpec, REFERENCE, TransportSpec};
use msctp_sim::{AgentId, LinkConfig, Route, Time, World, WorldConfig};

const FILE: u64 = 4_000_000;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

struct Net {
    w: World,
    mobile: NodeId,
    server: NodeId,
    l1: LinkId,
    m1: IfaceId,
    m2: IfaceId,
}

fn net(seed: u64) -> Net {
    let mut w = World::new(WorldConfig::with_seed(seed));
    let mobile = w.add_host("mobile").unwrap();
    let r = w.add_router("r").unwrap();
    let server = w.add_host("server").unwrap();
    let link = || LinkConfig::new(10_000_000, Duration::from_millis(10)).queue_limit(50);
    let (l1, m1, _) = w
        .connect(
            "l1",
            mobile,
            "10.1.0.1/24".parse().unwrap(),
            r,
            "10.1.0.254/24".parse().unwrap(),
            link(),
        )
        .unwrap();
    let (_, m2, _) = w
        .connect(
            "l2",
            mobile,
            "10.2.0.1/24".parse().unwrap(),
            r,
            "10.2.0.254/24".parse().unwrap(),
            link(),
        )
        .unwrap();
    let (_, _, si) = w
        .connect(
            "l3",
            r,
            "10.3.0.254/24".parse().unwrap(),
            server,
            "10.3.0.1/24".parse().unwrap(),
            link(),
        )
        .unwrap();
    let any = "0.0.0.0/0".parse().unwrap();
    w.add_route(mobile, Route::via(any, m1, ip("10.1.0.254")))
        .unwrap();
    w.add_route(mobile, Route::via(any, m2, ip("10.2.0.254")))
        .unwrap();
    w.add_route(server, Route::via(any, si, ip("10.3.0.254")))
        .unwrap();
    Net {
        w,
        mobile,
        server,
        l1,
        m1,
        m2,
    }
}

/// A client on the mobile (10.1.0.1) and a server; `downlink`: the server
/// sends the file, else the client. Returns the flow log and the agents.
fn flow(n: &mut Net, downlink: bool, seed: u64) -> (SharedFlowLog, AgentId, AgentId) {
    let log: SharedFlowLog = Rc::new(RefCell::new(FlowLog::default()));
    let start = Time::from_millis(100);
    let source = Source::new(
        Traffic::File {
            bytes: FILE,
            message_bytes: 1400,
        },
        start,
        None,
    )
    .unwrap();
    let local = SocketAddr::new(ip("10.1.0.1"), 5000);
    let remote = SocketAddr::new(ip("10.3.0.1"), 4433);
    let mut client = QuicAgentConfig::client(local, remote, start, seed).with_log(log.clone());
    let mut server = QuicAgentConfig::server(4433, seed ^ 1).with_log(log.clone());
    server.tagging = QuicPathTagging::PeerAddress(vec![ip("10.1.0.1"), ip("10.2.0.1")]);
    if downlink {
        server = server.with_source(source);
    } else {
        client = client.with_source(source);
    }
    let server_node = n.server;
    let s =
        n.w.add_agent(
            server_node,
            "quic-server",
            Box::new(QuicAgent::new(server).unwrap()),
        )
        .unwrap();
    let c =
        n.w.add_agent(
            n.mobile,
            "quic-client",
            Box::new(QuicAgent::new(client).unwrap()),
        )
        .unwrap();
    (log, c, s)
}

fn stats(w: &World, a: AgentId) -> QuicStats {
    w.agent::<QuicAgent>(a).unwrap().stats()
}

/// client                                      server
///   | Initial (ClientHello) -------------------> |
///   | <------------- Initial, Handshake (cert)   |
///   | Handshake (Finished), 1-RTT STREAM ------> |  ... 4 MB ...
///   | STREAM (FIN) ----------------------------> |  file complete
#[test]
fn a_bulk_transfer_over_one_link_delivers_everything() {
    let mut n = net(7);
    let (log, c, s) = flow(&mut n, false, 7);
    n.w.run_until(Time::from_secs(20));
    let l = log.borrow();
    assert_eq!(l.bytes_offered, FILE);
    assert_eq!(l.bytes_delivered, FILE);
    let done = l.completed_at.expect("the server read the stream's end");
    let (cs, ss) = (stats(&n.w, c), stats(&n.w, s));
    assert!(cs.connected_at.is_some() && ss.connected_at.is_some());
    assert_eq!((cs.lost_at, ss.lost_at), (None, None));
    // One RTT of handshake (about 42 ms with serialisation) before data;
    // 4 MB at 10 Mb/s take 3.2 s at least.
    let secs = (done - Time::from_millis(100)).as_secs_f64();
    let mbps = FILE as f64 * 8.0 / secs / 1e6;
    println!("4 MB over 10 Mb/s: {secs:.3} s, {mbps:.2} Mbit/s; client {cs:?}; server {ss:?}");
    assert!(secs > 3.2 && secs < 10.0, "{secs}");
    assert_eq!(cs.migrations, 0);
}

fn run_once(seed: u64) -> (Vec<(u64, u32, u64)>, QuicStats, QuicStats) {
    let mut n = net(seed);
    let (log, c, s) = flow(&mut n, true, seed);
    n.w.run_until(Time::from_secs(20));
    let l = log.borrow();
    let arr = l
        .arrivals
        .iter()
        .map(|a| (a.time.as_nanos(), a.path.0, a.seq))
        .collect();
    (arr, stats(&n.w, c), stats(&n.w, s))
}

/// The same seed twice: every arrival at the same nanosecond with the same
/// offset, the same counters (the TLS session, connection IDs, keys and
/// packet numbers all come from the seed).
#[test]
fn the_same_seed_gives_the_identical_run() {
    let a = run_once(11);
    let b = run_once(11);
    assert!(!a.0.is_empty());
    assert_eq!(a.0.len(), b.0.len());
    assert_eq!(a, b);
}

/// mobile (l1, then l2)                         server
///   | <================ STREAM over l1 ========== |
///   (2 s) l1 cut; link layer: l1 gone, l2 usable
///   | PING, NEW_CONNECTION_ID from 10.2.0.1 ---> | new path: PATH_CHALLENGE
///   | <-------------------- PATH_CHALLENGE ----- |
///   | PATH_RESPONSE ---------------------------> |
///   | <================ STREAM over l2 ========== |  same connection
#[test]
fn a_handover_between_two_links_keeps_the_connection() {
    let mut n = net(3);
    let (log, c, s) = flow(&mut n, true, 3);
    let (mobile, l1, m1, m2) = (n.mobile, n.l1, n.m1, n.m2);
    let cut = Time::from_secs(2);
    n.w.at(cut, move |w| {
        w.cut_link(l1).unwrap();
        w.notify(mobile, LinkDecision::Down { iface: m1 }.notification())
            .unwrap();
        w.notify(mobile, LinkDecision::Up { iface: m2 }.notification())
            .unwrap();
    });
    n.w.run_until(Time::from_secs(30));
    let l = log.borrow();
    let (cs, ss) = (stats(&n.w, c), stats(&n.w, s));
    assert_eq!(cs.migrations, 1);
    assert_eq!(
        (cs.lost_at, ss.lost_at),
        (None, None),
        "the connection lives"
    );
    assert_eq!(l.bytes_delivered, FILE, "{cs:?} {ss:?}");
    assert!(l.completed_at.is_some());
    let remote = n.w.agent::<QuicAgent>(s).unwrap().remote_address();
    assert_eq!(remote, Some(SocketAddr::new(ip("10.2.0.1"), 5000)));
    let h = detect_handovers(&l.arrivals);
    assert_eq!(h.len(), 1, "{h:?}");
    assert_eq!((h[0].old.0, h[0].new.0), (m1.0, m2.0));
    let window = Window::new(
        cut - Duration::from_millis(500),
        cut + Duration::from_secs(5),
    )
    .unwrap();
    let gap = longest_delivery_gap(&l.deliveries, window);
    let last_old = l
        .arrivals
        .iter()
        .filter(|a| a.path.0 == m1.0)
        .map(|a| a.time)
        .max()
        .unwrap();
    let first_new = l
        .arrivals
        .iter()
        .filter(|a| a.path.0 == m2.0)
        .map(|a| a.time)
        .min()
        .unwrap();
    println!(
        "QUIC handover at {cut}: last data over l1 {last_old}, first over l2 {first_new}, \
         gap {:.3} s, longest delivery gap {:.3} s; client {cs:?}; server {ss:?}",
        (first_new - last_old).as_secs_f64(),
        gap.as_secs_f64()
    );
    assert!(first_new > cut);
    assert!(
        gap > Duration::ZERO && gap < Duration::from_secs(5),
        "{gap:?}"
    );
}

/// The reference drive as a scenario (`transport = "quic"`): the mobile
/// gets its address in ap2 at about 8 s and leaves ap1 at 16 s. The
/// client moves to ap2 when that network is declared usable, the same
/// connection carries the data on, and the run's measures (handovers,
/// handoff delay) come out as for the other transports.
fn reference_quic(direction: DirectionSpec) {
    let mut s = scenario::parse(REFERENCE).expect("the reference scenario is valid");
    s.flows[0].transport = TransportSpec::Quic;
    s.flows[0].sctp = Default::default();
    s.flows[0].direction = direction;
    let a = scenario::run_scenario(&s, 1).unwrap();
    let b = scenario::run_scenario(&s, 1).unwrap();
    let f = &a.summary.flows[0];
    println!(
        "{direction:?}: goodput {:.3} Mbit/s, handovers {:?}, counters {:?}",
        f.goodput_bps / 1e6,
        f.handovers,
        f.policy_counters
    );
    assert_eq!(f.transport, "quic");
    assert_eq!(f.policy_counters.get("quic_migrations"), Some(&1));
    assert_eq!(f.handovers.len(), 1, "{:?}", f.handovers);
    let h = &f.handovers[0];
    assert_eq!((h.old_path, h.new_path), (0, 1));
    assert!((7.5..10.0).contains(&h.time_s), "{h:?}");
    assert!(f.goodput_bps > 1.0e6, "{}", f.goodput_bps);
    // The same seed, the same run.
    let g = &b.summary.flows[0];
    assert_eq!(
        (f.bytes_delivered, f.arrivals, f.total_handoff_delay_s),
        (g.bytes_delivered, g.arrivals, g.total_handoff_delay_s)
    );
}

#[test]
fn the_reference_drive_downlink_migrates_once() {
    reference_quic(DirectionSpec::Downlink);
}

#[test]
fn the_reference_drive_uplink_migrates_once() {
    reference_quic(DirectionSpec::Uplink);
}
