//! Failover after a path break (RFC 9260 sections 6.3.3 and 8.2): the
//! first new data reaches the alternate address after PMR + 1 consecutive
//! timeouts, i.e. RTO * (2^(PMR+1) - 1) after the break when the RTO stays
//! below RTO.Max (docs/MODELS.md section 3, study E5).

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::*;
use msctp_proto::wire::{Chunk, PacketRepr};
use msctp_proto::{AssociationConfig, EndpointConfig, Event, PrimaryReason, Time};

const RTT: Duration = Duration::from_millis(20);
const RTO_MIN: Duration = Duration::from_millis(200);

fn config(port: u16, pmr: u32) -> EndpointConfig {
    let mut c = EndpointConfig::new(port);
    c.association = AssociationConfig {
        rto_min: RTO_MIN,
        rto_initial: Duration::from_secs(1),
        path_max_retrans: pmr,
        assoc_max_retrans: 20,
        sack_delay: None,
        ..Default::default()
    };
    c
}

/// Returns (measured failover time, RTO of the primary at the break).
fn failover(pmr: u32) -> (Duration, Duration) {
    let (a1, b1, b2) = (ip("10.0.0.1"), ip("10.1.0.1"), ip("10.2.0.1"));
    let mut n = Net::new(
        config(5000, pmr),
        &[a1],
        config(6000, pmr),
        &[b1, b2],
        Link::new(RTT / 2),
        30 + pmr as u64,
    );
    n.tick = Some(Duration::from_millis(1));
    let (a, _b) = n.connect(Duration::from_secs(2));
    assert_eq!(n.a.association(a).unwrap().primary(), Some(b1));
    // CBR: 1000 bytes every 10 ms (a light load keeps the RTO at RTO.Min).
    let break_at = Time::from_secs(10);
    let mut next = Time::from_secs(2);
    let mut rto_at_break = None;
    n.run_with(break_at + Duration::from_secs(30), &mut |n| {
        if n.now >= next {
            next += Duration::from_millis(10);
            let _ =
                n.a.association_mut(a)
                    .unwrap()
                    .send(0, 0, Bytes::from(vec![1u8; 1000]), false);
        }
        if rto_at_break.is_none() && n.now >= break_at {
            rto_at_break = n.a.association(a).unwrap().path_stats(b1).map(|p| p.rto);
            n.set_up(a1, b1, false);
        }
    });
    let highest_before = n
        .seen
        .iter()
        .filter(|s| s.time < break_at && s.from == Side::A)
        .flat_map(|s| PacketRepr::parse(&s.bytes).unwrap().chunks)
        .filter_map(|c| {
            if let Chunk::Data(d) = c {
                Some(d.tsn)
            } else {
                None
            }
        })
        .max()
        .unwrap();
    let first_new_on_alternate = n
        .seen
        .iter()
        .filter(|s| s.from == Side::A && s.dst == b2 && s.time >= break_at)
        .find(|s| {
            PacketRepr::parse(&s.bytes)
                .unwrap()
                .chunks
                .iter()
                .any(|c| matches!(c, Chunk::Data(d) if msctp_proto::tsn::gt(d.tsn, highest_before) && !sent_before_on_b1(&n, d.tsn)))
        })
        .expect("no new data on the alternate path")
        .time;
    assert!(
        n.events_a
            .iter()
            .any(|e| e.2 == Event::PathDown { addr: b1 }),
        "the primary must be declared down"
    );
    assert!(n.events_a.iter().any(|e| matches!(e.2, Event::PrimaryChanged { addr, reason: PrimaryReason::Failover } if addr == b2)));
    (first_new_on_alternate - break_at, rto_at_break.unwrap())
}

/// Was this TSN sent to the primary before (then it is a retransmission)?
fn sent_before_on_b1(n: &Net, tsn: u32) -> bool {
    n.seen
        .iter()
        .filter(|s| s.from == Side::A && s.dst == ip("10.1.0.1"))
        .any(|s| {
            PacketRepr::parse(&s.bytes)
                .unwrap()
                .chunks
                .iter()
                .any(|c| matches!(c, Chunk::Data(d) if d.tsn == tsn))
        })
}

#[test]
fn failover_time_follows_the_exponential_backoff_formula() {
    for pmr in 0..=5u32 {
        let (measured, rto) = failover(pmr);
        assert_eq!(rto, RTO_MIN, "the light load keeps the RTO at RTO.Min");
        let expected = rto * ((1u32 << (pmr + 1)) - 1);
        let err = measured.abs_diff(expected);
        eprintln!("PMR {pmr}: failover {measured:?}, formula {expected:?}, difference {err:?}");
        assert!(
            err <= RTT,
            "PMR {pmr}: measured {measured:?} vs formula {expected:?}"
        );
    }
}
