use std::collections::BTreeMap;

use super::*;
use crate::AssociationConfig;
use crate::policy::PolicyKind;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// Interface 1 holds 10.1.0.2/24, interface 2 10.2.0.2/24; both up.
struct TwoLinks;

impl Links for TwoLinks {
    fn iface_of(&self, local: IpAddr) -> Option<IfaceId> {
        match local.to_string().as_str() {
            "10.1.0.2" => Some(1),
            "10.2.0.2" => Some(2),
            _ => None,
        }
    }
    fn is_up(&self, _iface: IfaceId) -> bool {
        true
    }
    fn on_link_with(&self, peer: IpAddr, locals: &[IpAddr]) -> Option<IpAddr> {
        let net = |a: IpAddr| a.to_string().rsplit_once('.').map(|(n, _)| n.to_string());
        locals.iter().copied().find(|l| net(*l) == net(peer))
    }
}

fn manager(cfg: HandoverConfig) -> HandoverManager {
    let kind = PolicyKind::FastestFirst {
        rates: BTreeMap::from([(1, 20_000_000), (2, 10_000_000)]),
    };
    HandoverManager::new(kind.build(|| 0).unwrap(), cfg)
}

/// Link events before the association is established wait (the oldest
/// are dropped beyond `max_pending`, and counted); nothing is decided.
#[test]
fn link_events_wait_for_the_association_within_their_bound() {
    let mut assoc = Association::connect(
        AssociationConfig::default(),
        Time::ZERO,
        [1; 32],
        5000,
        5000,
        &[ip("10.1.0.2"), ip("10.2.0.2")],
        &[ip("10.1.0.1")],
    )
    .unwrap();
    let mut m = manager(HandoverConfig {
        max_pending: 2,
        ..HandoverConfig::default()
    });
    for iface in [1, 2, 1] {
        let moves = m.on_link_event(
            Time::ZERO,
            LinkEvent::LinkUp { iface },
            Some(&mut assoc),
            &TwoLinks,
        );
        assert!(moves.is_empty());
    }
    assert_eq!(m.pending.len(), 2);
    assert_eq!(m.pending_dropped, 1);
    assert_eq!(m.decisions, 0);
    // Not established: a poll decides nothing either.
    assert_eq!(
        m.poll(Time::ZERO, &mut assoc, &TwoLinks),
        (Vec::new(), false)
    );
}
