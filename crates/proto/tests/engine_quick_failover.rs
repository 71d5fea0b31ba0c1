//! Quick failover, SCTP-PF (RFC 7829), between two engines: A (10.0.0.1)
//! sends a light CBR load to B's primary 10.1.0.1; B also has 10.2.0.1.
//! At 10 s the path to the primary breaks.
//!
//! ```text
//!   A                                     B (10.1.0.1 primary, 10.2.0.1)
//!   |--- DATA -> 10.1.0.1  x (lost) ---------|
//!   |   T3 expires: error 1 > PFMR 0, 10.1.0.1 potentially failed
//!   |--- HEARTBEAT -> 10.1.0.1  x -----------|   once per RTO from now on
//!   |--- DATA (retransmitted, new) -> 10.2.0.1 ->|   one RTO after the break
//!   |<-- SACK ------------------------------|
//!   |--- HEARTBEAT -> 10.1.0.1 (2 RTO later, backed off) ...
//!   |   PMR + 1 errors: 10.1.0.1 inactive (PathDown), as without PF
//! ```
//!
//! Without SCTP-PF the first new data reaches 10.2.0.1 only after PMR + 1
//! timeouts, RTO * (2^(PMR+1) - 1) (tests/engine_failover.rs).

mod common;

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use common::*;
use msctp_proto::path::PathState;
use msctp_proto::wire::chunk::chunk_type;
use msctp_proto::wire::{Chunk, PacketRepr};
use msctp_proto::{AssocId, AssociationConfig, EndpointConfig, Event, PrimaryReason, Time};

const RTT: Duration = Duration::from_millis(20);
const RTO_MIN: Duration = Duration::from_millis(200);
const PMR: u32 = 3;
const BREAK: Time = Time::from_secs(10);

fn a1() -> IpAddr {
    ip("10.0.0.1")
}
fn b1() -> IpAddr {
    ip("10.1.0.1")
}
fn b2() -> IpAddr {
    ip("10.2.0.1")
}

fn config(port: u16, pfmr: Option<u32>, psmr: Option<u32>) -> EndpointConfig {
    let mut c = EndpointConfig::new(port);
    c.association = AssociationConfig {
        rto_min: RTO_MIN,
        rto_initial: Duration::from_secs(1),
        path_max_retrans: PMR,
        assoc_max_retrans: 20,
        sack_delay: None,
        pf_max_retrans: pfmr,
        primary_switchover_max_retrans: psmr,
        ..Default::default()
    };
    c
}

/// A sends 1000 bytes every 10 ms to B's primary; the path A -> 10.1.0.1
/// breaks at `BREAK` and comes back at `restore` (if any). Runs until
/// `until`.
fn run(pfmr: Option<u32>, psmr: Option<u32>, restore: Option<Time>, until: Time) -> (Net, AssocId) {
    let mut n = Net::new(
        config(5000, pfmr, psmr),
        &[a1()],
        config(6000, None, None),
        &[b1(), b2()],
        Link::new(RTT / 2),
        7,
    );
    n.tick = Some(Duration::from_millis(1));
    let (a, b) = n.connect(Duration::from_secs(2));
    assert_eq!(n.a.association(a).unwrap().primary(), Some(b1()));
    let mut next = Time::from_secs(2);
    let mut broken = false;
    let mut restored = false;
    n.run_with(until, &mut |n| {
        // B's application reads everything (its window stays open).
        while n.b.association_mut(b).unwrap().recv().is_some() {}
        if n.now >= next {
            next += Duration::from_millis(10);
            let _ =
                n.a.association_mut(a)
                    .unwrap()
                    .send(0, 0, Bytes::from(vec![1u8; 1000]), false);
        }
        if !broken && n.now >= BREAK {
            broken = true;
            n.set_up(a1(), b1(), false);
        }
        if !restored && restore.is_some_and(|t| n.now >= t) {
            restored = true;
            n.set_up(a1(), b1(), true);
        }
    });
    (n, a)
}

/// TSNs of the DATA chunks in a packet.
fn tsns(bytes: &Bytes) -> Vec<u32> {
    PacketRepr::parse(bytes)
        .unwrap()
        .chunks
        .into_iter()
        .filter_map(|c| match c {
            Chunk::Data(d) => Some(d.tsn),
            _ => None,
        })
        .collect()
}

/// When the first DATA chunk sent after the break to `to` that was new
/// data left A: never sent before the break, nor to the broken primary
/// after it (then it is a retransmission).
fn first_new_data_to(n: &Net, to: IpAddr) -> Option<Time> {
    let highest_before = n
        .seen
        .iter()
        .filter(|s| s.from == Side::A && s.time < BREAK)
        .flat_map(|s| tsns(&s.bytes))
        .max()?;
    n.seen
        .iter()
        .filter(|s| s.from == Side::A && s.dst == to && s.time >= BREAK)
        .find(|s| {
            tsns(&s.bytes).iter().any(|t| {
                msctp_proto::tsn::gt(*t, highest_before) && !sent_to_before(n, b1(), *t, s.time)
            })
        })
        .map(|s| s.time)
}

/// Was `tsn` sent to `to` before `at`?
fn sent_to_before(n: &Net, to: IpAddr, tsn: u32, at: Time) -> bool {
    n.seen
        .iter()
        .filter(|s| s.from == Side::A && s.dst == to && s.time < at)
        .any(|s| tsns(&s.bytes).contains(&tsn))
}

fn event_time(n: &Net, want: &Event) -> Option<Time> {
    n.events_a.iter().find(|e| e.2 == *want).map(|e| e.0)
}

/// Heartbeats A sent to `to` after the break, in time order.
fn heartbeats_to(n: &Net, to: IpAddr, from: Time) -> Vec<Time> {
    n.seen
        .iter()
        .filter(|s| {
            s.from == Side::A
                && s.dst == to
                && s.time >= from
                && s.chunks.contains(&chunk_type::HEARTBEAT)
        })
        .map(|s| s.time)
        .collect()
}

#[test]
fn pf_moves_new_data_after_the_first_timeout() {
    let (n, a) = run(Some(0), None, None, BREAK + Duration::from_secs(10));
    // One RTO (RTO.Min under this light load) after the break, the T3
    // timer of the primary expires: 10.1.0.1 is potentially failed.
    let pf = event_time(&n, &Event::PathPotentiallyFailed { addr: b1() }).expect("PF event");
    let since = |t: Time| t - BREAK;
    assert!(
        since(pf) <= RTO_MIN + RTT,
        "PF after one RTO: {:?}",
        since(pf)
    );
    // New data goes to 10.2.0.1 at once, and A says so.
    let moved = event_time(
        &n,
        &Event::PrimaryChanged {
            addr: b2(),
            reason: PrimaryReason::Failover,
        },
    )
    .expect("data moved");
    assert_eq!(moved, pf);
    let first = first_new_data_to(&n, b2()).expect("new data on 10.2.0.1");
    assert!(
        since(first) <= RTO_MIN + RTT,
        "first new data on the alternate {:?} after the break (plain failover: {:?})",
        since(first),
        RTO_MIN * ((1 << (PMR + 1)) - 1)
    );
    // The PF destination is probed at once, then once per (backed-off)
    // RTO, not every HB.interval (30 s).
    let hb = heartbeats_to(&n, b1(), pf);
    assert!(hb.len() >= 3, "heartbeats to the PF destination: {hb:?}");
    assert_eq!(hb[0], pf, "probed as it becomes PF");
    for w in hb.windows(2).take(PMR as usize - 1) {
        let gap = w[1] - w[0];
        assert!(
            gap >= RTO_MIN && gap <= Duration::from_secs(10),
            "one probe per RTO: {hb:?}"
        );
    }
    // Silent past PMR: inactive (PathDown), the same total time as
    // RFC 9260's detection.
    let down = event_time(&n, &Event::PathDown { addr: b1() }).expect("PathDown");
    assert!(down > pf);
    let st = n.a.association(a).unwrap().path_stats(b1()).unwrap();
    assert_eq!(st.state, PathState::Inactive);
    assert_eq!(st.counters.potentially_failed, 1);
    // The primary itself is still 10.1.0.1 (no switchover configured).
    assert_eq!(n.a.association(a).unwrap().primary(), Some(b1()));
    assert_eq!(n.a.association(a).unwrap().data_destination(), Some(b2()));
}

#[test]
fn a_pf_destination_that_answers_takes_the_data_back() {
    // The link returns 0.3 s after the break: after the first timeout,
    // long before PMR + 1.
    let restore = BREAK + Duration::from_millis(300);
    let (n, a) = run(Some(0), None, Some(restore), BREAK + Duration::from_secs(5));
    let pf = event_time(&n, &Event::PathPotentiallyFailed { addr: b1() }).expect("PF");
    // The next probe after the link is back is answered: active again,
    // and data returns to the primary.
    let up = event_time(&n, &Event::PathUp { addr: b1() }).expect("PathUp");
    assert!(up > restore && up > pf);
    let back = n
        .events_a
        .iter()
        .find(|e| {
            e.0 >= up
                && e.2
                    == Event::PrimaryChanged {
                        addr: b1(),
                        reason: PrimaryReason::Failover,
                    }
        })
        .expect("data returns to the primary");
    assert_eq!(back.0, up);
    assert!(
        event_time(&n, &Event::PathDown { addr: b1() }).is_none(),
        "never declared down"
    );
    let x = n.a.association(a).unwrap();
    assert_eq!(x.data_destination(), Some(b1()));
    assert_eq!(x.path_stats(b1()).unwrap().state, PathState::Active);
    // New data went to 10.1.0.1 again after it answered.
    let later = n
        .seen
        .iter()
        .filter(|s| s.from == Side::A && s.time > up + RTT && s.dst == b1())
        .any(|s| !tsns(&s.bytes).is_empty());
    assert!(later, "DATA to the primary after it came back");
}

#[test]
fn primary_switchover_keeps_the_data_on_the_new_primary() {
    // PSMR 0 (RFC 7829 section 5): the first error of the primary makes
    // the alternate the primary for good.
    let restore = BREAK + Duration::from_millis(300);
    let (n, a) = run(
        Some(0),
        Some(0),
        Some(restore),
        BREAK + Duration::from_secs(5),
    );
    let changes: Vec<_> = n
        .events_a
        .iter()
        .filter(|e| matches!(e.2, Event::PrimaryChanged { .. }))
        .map(|e| e.2.clone())
        .collect();
    assert_eq!(
        changes,
        vec![Event::PrimaryChanged {
            addr: b2(),
            reason: PrimaryReason::Failover
        }],
        "one change, announced once"
    );
    assert!(event_time(&n, &Event::PathUp { addr: b1() }).is_some());
    let x = n.a.association(a).unwrap();
    assert_eq!(x.primary(), Some(b2()));
    assert_eq!(x.data_destination(), Some(b2()), "no switch back");
}

#[test]
fn rfc_9260_failover_is_unchanged_with_pf_off() {
    let (n, _a) = run(None, None, None, BREAK + Duration::from_secs(10));
    assert!(
        !n.events_a
            .iter()
            .any(|e| matches!(e.2, Event::PathPotentiallyFailed { .. })),
        "no PF state by default"
    );
    let first = first_new_data_to(&n, b2()).expect("failover");
    let expected = RTO_MIN * ((1 << (PMR + 1)) - 1);
    assert!(
        (first - BREAK).abs_diff(expected) <= RTT,
        "RTO * (2^(PMR+1) - 1): {:?} vs {expected:?}",
        first - BREAK
    );
}

#[test]
fn a_single_homed_association_keeps_sending_to_its_pf_destination() {
    // With no active alternate, the PF destination with the fewest errors
    // still carries the data (RFC 7829 section 3), and recovers.
    let mut n = Net::new(
        config(5000, Some(0), None),
        &[a1()],
        config(6000, None, None),
        &[b1()],
        Link::new(RTT / 2),
        9,
    );
    n.tick = Some(Duration::from_millis(1));
    let (a, b) = n.connect(Duration::from_secs(2));
    let restore = BREAK + Duration::from_millis(500);
    let mut next = Time::from_secs(2);
    let mut sent = 0usize;
    n.run_with(BREAK + Duration::from_secs(5), &mut |n| {
        if n.now >= next && n.now < BREAK + Duration::from_secs(2) {
            next += Duration::from_millis(10);
            if n.a
                .association_mut(a)
                .unwrap()
                .send(0, 0, Bytes::from(vec![2u8; 1000]), false)
                .is_ok()
            {
                sent += 1000;
            }
        }
        if n.now >= BREAK && n.now < restore {
            n.set_up(a1(), b1(), false);
        } else if n.now >= restore {
            n.set_up(a1(), b1(), true);
        }
    });
    assert!(event_time(&n, &Event::PathPotentiallyFailed { addr: b1() }).is_some());
    assert!(event_time(&n, &Event::PathUp { addr: b1() }).is_some());
    let mut got = 0;
    while let Some(m) = n.b.association_mut(b).unwrap().recv() {
        got += m.data.len();
    }
    assert_eq!(got, sent, "everything delivered");
}

#[test]
fn zero_window_probes_answered_by_sacks_are_no_path_errors() {
    // B's application stops reading: its window closes and A probes it
    // (RFC 9260 section 6.1 rule A). The probes' timeouts, answered by
    // SACKs, count against neither the path nor the association: with
    // PFMR 0 the primary would otherwise flap between the two paths at
    // every probe, and the association end after Association.Max.Retrans.
    let mut n = Net::new(
        config(5000, Some(0), None),
        &[a1()],
        config(6000, None, None),
        &[b1(), b2()],
        Link::new(RTT / 2),
        11,
    );
    n.tick = Some(Duration::from_millis(1));
    let (a, b) = n.connect(Duration::from_secs(2));
    let mut next = Time::from_secs(2);
    let reads_again = Time::from_secs(20);
    n.run_with(Time::from_secs(25), &mut |n| {
        if n.now >= next {
            next += Duration::from_millis(10);
            let _ =
                n.a.association_mut(a)
                    .unwrap()
                    .send(0, 0, Bytes::from(vec![3u8; 1000]), false);
        }
        if n.now >= reads_again {
            while n.b.association_mut(b).unwrap().recv().is_some() {}
        }
    });
    let x = n.a.association(a).unwrap();
    assert!(x.stats().zero_window_probes > 0, "the window closed");
    assert!(
        !n.events_a.iter().any(|e| matches!(
            e.2,
            Event::PathPotentiallyFailed { .. }
                | Event::PathDown { .. }
                | Event::PrimaryChanged { .. }
        )),
        "no path failed: {:?}",
        n.events_a
    );
    assert!(!x.is_closed(), "the association lives");
    assert_eq!(x.data_destination(), Some(b1()));
}
