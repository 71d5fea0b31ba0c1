//! One handover manager, two adapters: the same link-event trace, told to
//! the engine's manager (`msctp_proto::handover`) once as the simulator's
//! node notifications (`msctp_sim::models::sctp::handover`) and once as
//! the real host's interface changes (`msctp_net::mobility`), gives the
//! same decisions, at the same times, with the same outcome, and the same
//! moves of data.
//!
//! ```text
//!  mobile (wlan 10.1.0.2 fast, umts 10.2.0.2 slow)   peer (10.1.0.1, 10.2.0.1)
//!  wlan lost ──────> MakePrimary(umts)      ── ASCONF over umts ──>
//!  wlan back ──────> MakePrimary(wlan) held; HEARTBEAT over wlan ─>
//!                                           <── HEARTBEAT-ACK ────
//!  poll ───────────> MakePrimary(wlan) carried out
//! ```
//!
//! Both adapters used to differ here: only the real host's held the move
//! onto the returning link until its path answered.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use msctp_net::config::PolicyKind as NamedPolicy;
use msctp_net::mobility::{Handover, Mobility};
use msctp_net::monitor::{IfaceChange, Interfaces};
use msctp_proto::handover::{DecisionRecord, HandoverManager, pair_paths};
use msctp_proto::policy::PolicyKind;
use msctp_proto::{AssocId, Association, Endpoint, EndpointConfig, Time};
use msctp_sim::kernel::ids::{CellId, IfaceId};
use msctp_sim::kernel::link::LinkConfig;
use msctp_sim::kernel::notification::Notification;
use msctp_sim::models::sctp::handover::{self as sim_handover, NodeLinks};
use msctp_sim::{World, WorldConfig};

const WLAN: &str = "10.1.0.2";
const UMTS: &str = "10.2.0.2";
const PEER_WLAN: &str = "10.1.0.1";
const PEER_UMTS: &str = "10.2.0.1";

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// The same subnet (/24) on both ends: a packet crosses only between the
/// two addresses of one access network, and not while that network's link
/// is down.
fn crosses(src: IpAddr, dst: IpAddr, wlan_up: bool) -> bool {
    let net = |a: IpAddr| match a {
        IpAddr::V4(v) => v.octets()[2],
        IpAddr::V6(_) => 0,
    };
    net(src) == net(dst) && (wlan_up || net(src) != 1)
}

/// A mobile endpoint and its peer, exchanging packets in memory.
struct Pair {
    a: Endpoint,
    b: Endpoint,
    id: AssocId,
    now: Time,
    wlan_up: bool,
}

impl Pair {
    fn new() -> Pair {
        let mut a = Endpoint::new(EndpointConfig::new(5000), [1; 32]).unwrap();
        let mut cfg_b = EndpointConfig::new(6000);
        cfg_b.listen = true;
        let mut b = Endpoint::new(cfg_b, [2; 32]).unwrap();
        a.set_local_addresses(&[ip(WLAN), ip(UMTS)]);
        b.set_local_addresses(&[ip(PEER_WLAN), ip(PEER_UMTS)]);
        let id = a
            .connect(Time::ZERO, &[ip(PEER_WLAN), ip(PEER_UMTS)], 6000)
            .unwrap();
        let mut p = Pair {
            a,
            b,
            id,
            now: Time::ZERO,
            wlan_up: true,
        };
        p.run(Duration::from_secs(3));
        assert!(p.assoc().state().is_established());
        p
    }

    fn assoc(&mut self) -> &mut Association {
        self.a.association_mut(self.id).unwrap()
    }

    /// Delivers every packet at once until both ends are quiet.
    fn exchange(&mut self) {
        loop {
            let mut any = false;
            for from_a in [true, false] {
                let (tx, rx) = if from_a {
                    (&mut self.a, &mut self.b)
                } else {
                    (&mut self.b, &mut self.a)
                };
                while let Some(t) = tx.poll_transmit(self.now) {
                    any = true;
                    let src = t.source.expect("paths have sources");
                    if crosses(src, t.destination, self.wlan_up) {
                        let data = Bytes::copy_from_slice(t.packet());
                        rx.handle_datagram(self.now, src, t.destination, data);
                    }
                }
            }
            while self.a.poll_event().is_some() || self.b.poll_event().is_some() {}
            if !any {
                return;
            }
        }
    }

    /// Runs `d` in steps of 1 ms.
    fn run(&mut self, d: Duration) {
        let end = self.now + d;
        while self.now < end {
            self.now += Duration::from_millis(1);
            for ep in [&mut self.a, &mut self.b] {
                if ep.poll_timeout().is_some_and(|t| t <= self.now) {
                    ep.handle_timeout(self.now);
                }
            }
            self.exchange();
        }
    }
}

/// What one adapter's manager did: decision records, moves and, right
/// after the link came back, the local primary.
#[derive(Debug, PartialEq)]
struct Outcome {
    records: Vec<DecisionRecord>,
    moves: Vec<Handover>,
    primary_when_back: Option<IpAddr>,
    primary_at_end: Option<IpAddr>,
}

fn rates() -> BTreeMap<u32, u64> {
    BTreeMap::from([(0, 20_000_000), (1, 2_000_000)])
}

/// The trace through the simulator's adapter: notifications of node
/// `mn` (interface 0 wlan, 1 umts) mapped by `link_event`, the node's
/// interfaces shown to the manager by `NodeLinks`.
fn through_the_simulator() -> Outcome {
    let mut w = World::new(WorldConfig::default());
    let mn = w.add_host("mn").unwrap();
    let ap = w.add_router("ap").unwrap();
    for (k, (name, addr)) in [("wlan", WLAN), ("umts", UMTS)].into_iter().enumerate() {
        let i = w.add_iface(mn, name).unwrap();
        assert_eq!(i, IfaceId(k as u32));
        let j = w.add_iface(ap, name).unwrap();
        let cfg = LinkConfig::new(10_000_000, Duration::from_millis(1));
        w.add_link(name, (mn, i), (ap, j), cfg).unwrap();
        w.add_address(mn, i, format!("{addr}/24").parse().unwrap())
            .unwrap();
    }
    let mut p = Pair::new();
    let policy = PolicyKind::FastestFirst { rates: rates() };
    let mut m = HandoverManager::new(
        policy.build(|| 0).unwrap(),
        sim_handover::sim_handover_config(),
    );
    let mut out = Vec::new();
    let tell = |p: &mut Pair, m: &mut HandoverManager, w: &World, n: Notification| {
        let node = w.node(mn).unwrap();
        let ev = sim_handover::link_event(&n, node).expect("a link event");
        let now = p.now;
        m.on_link_event(now, ev, Some(p.assoc()), &NodeLinks(node))
    };
    pair_paths(p.assoc(), &NodeLinks(w.node(mn).unwrap()));
    for (k, addr) in [WLAN, UMTS].into_iter().enumerate() {
        let iface = IfaceId(k as u32);
        let cell = CellId(k as u32);
        out.extend(tell(
            &mut p,
            &mut m,
            &w,
            Notification::LinkDetected { iface, cell },
        ));
        let addr = format!("{addr}/24").parse().unwrap();
        out.extend(tell(
            &mut p,
            &mut m,
            &w,
            Notification::AddressAdded { iface, addr },
        ));
    }
    let wlan = (IfaceId(0), CellId(0));
    // wlan lost.
    p.wlan_up = false;
    w.set_iface_up(mn, wlan.0, false).unwrap();
    let lost = Notification::LinkLost {
        iface: wlan.0,
        cell: wlan.1,
    };
    out.extend(tell(&mut p, &mut m, &w, lost));
    p.run(Duration::from_secs(2));
    // wlan back.
    p.wlan_up = true;
    w.set_iface_up(mn, wlan.0, true).unwrap();
    let back = Notification::LinkDetected {
        iface: wlan.0,
        cell: wlan.1,
    };
    out.extend(tell(&mut p, &mut m, &w, back));
    let primary_when_back = p.assoc().local_primary();
    for _ in 0..100 {
        p.run(Duration::from_millis(1));
        let now = p.now;
        out.extend(m.poll(now, p.assoc(), &NodeLinks(w.node(mn).unwrap())).0);
    }
    let as_handovers = out.into_iter().map(Handover::from).collect();
    Outcome {
        records: m.records().to_vec(),
        moves: as_handovers,
        primary_when_back,
        primary_at_end: p.assoc().local_primary(),
    }
}

/// The same trace through the real host's adapter: interface changes as
/// the monitor reads them, `Mobility` over the manager, `Interfaces` as
/// the host's view of its links.
fn through_the_real_host() -> (Outcome, Vec<DecisionRecord>) {
    let mut ifaces = Interfaces::new(Vec::new());
    for (k, (name, addr)) in [("wlan", WLAN), ("umts", UMTS)].into_iter().enumerate() {
        let (index, name) = (k as u32, name.to_string());
        ifaces.apply(&IfaceChange::Link {
            index,
            name,
            up: true,
        });
        ifaces.apply(&IfaceChange::AddrAdded {
            index,
            addr: ip(addr),
            prefix_len: 24,
        });
    }
    let mut p = Pair::new();
    let named = NamedPolicy::FastestFirst {
        rates: BTreeMap::from([("wlan".to_string(), 20_000_000), ("umts".into(), 2_000_000)]),
    };
    // The simulator's setting: data of a dead link waits for its timer.
    let mut mob = Mobility::new(&named, &ifaces, false);
    let now = p.now;
    let mut out = mob.start(now, p.assoc(), &ifaces);
    let change = |p: &mut Pair, mob: &mut Mobility, ifaces: &mut Interfaces, up: bool| {
        let c = IfaceChange::Link {
            index: 0,
            name: "wlan".into(),
            up,
        };
        let events = ifaces.apply(&c);
        let now = p.now;
        mob.on_link_events(now, &events, p.assoc(), ifaces)
    };
    p.wlan_up = false;
    out.extend(change(&mut p, &mut mob, &mut ifaces, false));
    p.run(Duration::from_secs(2));
    p.wlan_up = true;
    out.extend(change(&mut p, &mut mob, &mut ifaces, true));
    let primary_when_back = p.assoc().local_primary();
    for _ in 0..100 {
        p.run(Duration::from_millis(1));
        let now = p.now;
        out.extend(mob.poll(now, p.assoc(), &ifaces));
    }
    let records = mob.records().to_vec();
    let outcome = Outcome {
        records: records.clone(),
        moves: out,
        primary_when_back,
        primary_at_end: p.assoc().local_primary(),
    };
    (outcome, records)
}

#[test]
fn the_same_link_trace_through_both_adapters_gives_the_same_decisions() {
    let sim = through_the_simulator();
    let (real, records) = through_the_real_host();
    let decided: Vec<_> = records.iter().map(|r| r.decision).collect();
    use msctp_proto::policy::Decision::MakePrimary;
    assert_eq!(decided, vec![MakePrimary(ip(UMTS)), MakePrimary(ip(WLAN))]);
    assert!(records.iter().all(|r| r.result.is_ok()), "{records:?}");
    // The move back waited for the heartbeat answer over wlan (one round
    // trip of the in-memory network: the next 1 ms step).
    assert_eq!(real.primary_when_back, Some(ip(UMTS)));
    assert_eq!(real.primary_at_end, Some(ip(WLAN)));
    assert!(records[1].time > records[0].time + Duration::from_secs(2));
    assert_eq!(real.moves.len(), 2, "{:?}", real.moves);
    assert_eq!(sim, real);
}
