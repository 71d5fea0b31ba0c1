//! The handover manager (`msctp_proto::handover`) on a dual-homed pair
//! running fastest-first: a move back onto a link that has just come up is
//! held until the path over it answers a heartbeat (RFC 9260 section 8.3),
//! at most `return_wait`; without the hold it is made at once.
//!
//! ```text
//!  mobile A (A1 fast on if1, A2 slow on if2)            peer B (B1, B2)
//!  if1 down ── LinkDown{1} ─> manager: MakePrimary(A2) ── ASCONF ──> B
//!  if1 up ──── LinkUp{1} ──> manager: MakePrimary(A1) held,
//!                            HEARTBEAT A1 -> B1 ───────────────────> B1
//!                            <─────────────────────── HEARTBEAT-ACK
//!  poll ─────────────────> held move carried out: data leaves from A1
//! ```

mod common;

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::Duration;

use common::*;
use msctp_proto::handover::{HandoverConfig, HandoverManager, Links, Move, pair_paths};
use msctp_proto::policy::{IfaceId, LinkEvent, PolicyKind};
use msctp_proto::wire::chunk::chunk_type;
use msctp_proto::{AssocId, EndpointConfig, Time};

const A1: &str = "10.1.0.2";
const A2: &str = "10.2.0.2";
const B1: &str = "10.1.0.1";
const B2: &str = "10.2.0.1";

/// The mobile's two interfaces: if1 holds A1 (10.1.0.0/24), if2 holds A2
/// (10.2.0.0/24).
struct Host {
    up: [bool; 3],
}

impl Links for Host {
    fn iface_of(&self, local: IpAddr) -> Option<IfaceId> {
        [(A1, 1), (A2, 2)]
            .into_iter()
            .find(|(a, _)| ip(a) == local)
            .map(|(_, i)| i)
    }
    fn is_up(&self, iface: IfaceId) -> bool {
        self.up[iface as usize]
    }
    fn on_link_with(&self, peer: IpAddr, locals: &[IpAddr]) -> Option<IpAddr> {
        let subnet = |a: IpAddr| match a {
            IpAddr::V4(v) => v.octets()[..3].to_vec(),
            IpAddr::V6(v) => v.octets()[..8].to_vec(),
        };
        locals.iter().copied().find(|l| subnet(*l) == subnet(peer))
    }
}

struct Run {
    n: Net,
    a: AssocId,
    m: HandoverManager,
    host: Host,
}

impl Run {
    /// Both paths confirmed, data on A1 -> B1, the manager told both links
    /// are up with their addresses.
    fn new(cfg: HandoverConfig) -> Run {
        let mut n = Net::new(
            EndpointConfig::new(5000),
            &[ip(A1), ip(A2)],
            EndpointConfig::new(6000),
            &[ip(B1), ip(B2)],
            Link::new(Duration::from_millis(10)),
            3,
        );
        for (x, y) in [(A1, B2), (A2, B1)] {
            n.set_up(ip(x), ip(y), false);
        }
        let (a, _) = n.connect(Duration::from_secs(1));
        let kind = PolicyKind::FastestFirst {
            rates: BTreeMap::from([(1, 20_000_000), (2, 2_000_000)]),
        };
        let m = HandoverManager::new(kind.build(|| 0).unwrap(), cfg);
        let host = Host {
            up: [false, true, true],
        };
        let mut r = Run { n, a, m, host };
        pair_paths(r.n.a.association_mut(a).unwrap(), &r.host);
        for ev in [
            LinkEvent::LinkUp { iface: 1 },
            LinkEvent::LinkUp { iface: 2 },
            LinkEvent::AddressObtained {
                iface: 1,
                addr: ip(A1),
            },
            LinkEvent::AddressObtained {
                iface: 2,
                addr: ip(A2),
            },
        ] {
            assert!(r.link(ev).is_empty());
        }
        r.n.run_for(Duration::from_secs(3));
        r
    }

    fn link(&mut self, ev: LinkEvent) -> Vec<Move> {
        let now = self.n.now;
        let x = self.n.a.association_mut(self.a);
        self.m.on_link_event(now, ev, x, &self.host)
    }

    fn local_primary(&self) -> Option<IpAddr> {
        self.n.a.association(self.a).unwrap().local_primary()
    }

    fn acks(&self, peer: &str) -> u64 {
        let x = self.n.a.association(self.a).unwrap();
        x.path_stats(ip(peer))
            .unwrap()
            .counters
            .heartbeat_acks_received
    }

    /// Link 1 fails and comes back 2 s later (the link layer says so;
    /// packets cross it again if `restored`).
    fn leave_and_return(&mut self, restored: bool) -> Vec<Move> {
        self.n.set_up(ip(A1), ip(B1), false);
        self.host.up[1] = false;
        let away = self.link(LinkEvent::LinkDown { iface: 1 });
        assert_eq!(away.len(), 1, "{away:?}");
        assert_eq!((away[0].to_local, away[0].link_down), (ip(A2), true));
        self.n.run_for(Duration::from_secs(2));
        assert_eq!(self.local_primary(), Some(ip(A2)));
        self.n.set_up(ip(A1), ip(B1), restored);
        self.host.up[1] = true;
        self.link(LinkEvent::LinkUp { iface: 1 })
    }

    /// Runs with a poll of the manager every 1 ms until a move is made (or
    /// `limit`); returns it and when it was made.
    fn poll_until_moved(&mut self, limit: Duration) -> Option<(Time, Move)> {
        let end = self.n.now + limit;
        self.n.tick = Some(Duration::from_millis(1));
        let (m, host, a) = (&mut self.m, &self.host, self.a);
        let mut moved = None;
        self.n.run_with(end, &mut |n| {
            if moved.is_some() {
                return;
            }
            let now = n.now;
            if let Some(x) = n.a.association_mut(a) {
                let (mut moves, _) = m.poll(now, x, host);
                moved = moves.pop().map(|mv| (now, mv));
            }
        });
        moved
    }
}

#[test]
fn a_move_onto_a_returning_link_waits_for_its_heartbeat_answer() {
    let mut r = Run::new(HandoverConfig::default());
    let acks = r.acks(B1);
    let up_at = r.n.now + Duration::from_secs(2);
    assert!(r.leave_and_return(true).is_empty(), "the move is held");
    assert_eq!(r.local_primary(), Some(ip(A2)), "A2 still carries the data");
    assert_eq!(
        r.m.held_deadline(),
        Some(up_at + Duration::from_millis(500))
    );
    let pending = |r: &Run| r.n.a.association(r.a).unwrap().move_pending();
    assert!(
        pending(&r),
        "the association knows a move is pending (RFC 7053)"
    );
    let (at, mv) = r.poll_until_moved(Duration::from_secs(1)).expect("moved");
    assert!(!pending(&r));
    // The path over the returning link was probed at once.
    let probe =
        r.n.seen.iter().find(|s| {
            s.src == ip(A1) && s.time == up_at && s.chunks.contains(&chunk_type::HEARTBEAT)
        });
    assert!(probe.is_some(), "no heartbeat A1 -> B1 at {up_at:?}");
    assert_eq!((mv.from_local, mv.to_local), (Some(ip(A2)), ip(A1)));
    assert!(r.acks(B1) > acks, "moved after the heartbeat answer");
    // One round trip (2 x 10 ms), not the 500 ms wait.
    assert!(at - up_at <= Duration::from_millis(25), "{:?}", at - up_at);
    assert_eq!(r.local_primary(), Some(ip(A1)));
}

#[test]
fn a_held_move_is_made_when_the_wait_ends_without_an_answer() {
    let mut r = Run::new(HandoverConfig::default());
    // The link layer reports if1 up, but nothing crosses it yet.
    let up_at = r.n.now + Duration::from_secs(2);
    assert!(r.leave_and_return(false).is_empty());
    let (at, mv) = r.poll_until_moved(Duration::from_secs(1)).expect("moved");
    assert_eq!(mv.to_local, ip(A1));
    assert_eq!(at, up_at + Duration::from_millis(500));
}

#[test]
fn without_a_return_wait_the_move_is_made_at_once() {
    let mut r = Run::new(HandoverConfig {
        return_wait: None,
        ..HandoverConfig::default()
    });
    let moves = r.leave_and_return(true);
    assert_eq!(moves.len(), 1, "{moves:?}");
    assert_eq!(moves[0].to_local, ip(A1));
    assert_eq!(r.local_primary(), Some(ip(A1)));
}
