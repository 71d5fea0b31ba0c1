//! Where retransmissions go and which acknowledgements clear a path's
//! error counter: RFC 9260's rules (the default) beside ns-2's SCTP
//! module's (`rtxToAlt_ 1` and its error-counter exception), which
//! mobility studies ran (docs/MODELS.md section 3, study E3).
//!
//! Every test is the same chart: A (one address, a1) sends to B, which has
//! two addresses, b1 (primary) and b2 (confirmed by a heartbeat).
//!
//! ```text
//!   A (a1)                         B (b1 primary, b2)
//!     |--- DATA ... ---------------->| b1
//!     |   (one DATA or its SACKs lost, as each test says)
//!     |--- retransmission ---------->| b1 or b2 ?
//! ```

mod common;

use std::cell::Cell;
use std::net::IpAddr;
use std::rc::Rc;
use std::time::Duration;

use bytes::Bytes;
use common::*;
use msctp_proto::wire::{Chunk, PacketRepr};
use msctp_proto::{
    AssocId, AssociationConfig, EndpointConfig, ErrorCounterReset, RetransmitDestination,
};

const DATA: u8 = 0;
const SACK: u8 = 3;

fn a1() -> IpAddr {
    ip("10.0.0.1")
}
fn b1() -> IpAddr {
    ip("10.1.0.1")
}
fn b2() -> IpAddr {
    ip("10.2.0.1")
}

fn config(port: u16, rtx: RetransmitDestination, errors: ErrorCounterReset) -> EndpointConfig {
    let mut c = EndpointConfig::new(port);
    c.association = AssociationConfig {
        rto_min: Duration::from_millis(200),
        rto_initial: Duration::from_secs(1),
        sack_delay: None,
        // No burst limit: a grown window goes out at once.
        max_burst: None,
        retransmit_destination: rtx,
        error_counter_reset: errors,
        ..Default::default()
    };
    c
}

/// A and B associated, both of B's addresses confirmed, nothing in flight.
fn associated(rtx: RetransmitDestination, errors: ErrorCounterReset) -> (Net, AssocId, AssocId) {
    let mut n = Net::new(
        config(5000, rtx, errors),
        &[a1()],
        config(6000, rtx, errors),
        &[b1(), b2()],
        Link::new(Duration::from_millis(10)),
        13,
    );
    let (a, b) = n.connect(Duration::from_secs(2));
    n.run_for(Duration::from_secs(3));
    let x = n.a.association(a).unwrap();
    assert_eq!(x.primary(), Some(b1()));
    assert!(x.path_stats(b2()).unwrap().confirmed, "b2 is confirmed");
    (n, a, b)
}

/// The TSNs of the DATA chunks of one packet.
fn tsns(bytes: &[u8]) -> Vec<u32> {
    PacketRepr::parse(&Bytes::copy_from_slice(bytes))
        .map(|p| {
            p.chunks
                .iter()
                .filter_map(|c| match c {
                    Chunk::Data(d) => Some(d.tsn),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Every destination A sent `tsn` to, in order.
fn sent_to(n: &Net, tsn: u32) -> Vec<IpAddr> {
    n.seen
        .iter()
        .filter(|s| s.from == Side::A && tsns(&s.bytes).contains(&tsn))
        .map(|s| s.dst)
        .collect()
}

/// A sends 20 messages of 1000 bytes; the third DATA packet to b1 is lost,
/// the rest arrive, B's SACKs report the gap and A fast-retransmits.
/// Returns the destinations of the lost TSN's transmissions.
fn fast_retransmission(rtx: RetransmitDestination) -> Vec<IpAddr> {
    let (mut n, a, b) = associated(rtx, ErrorCounterReset::Rfc9260);
    let lost = Rc::new(Cell::new(None::<u32>));
    let (seen_data, lost_in) = (Rc::new(Cell::new(0u32)), lost.clone());
    n.filter = Some(Box::new(move |from, _src, dst, pkt| {
        if from == Side::A && dst == b1() && chunk_types(pkt).contains(&DATA) {
            seen_data.set(seen_data.get() + 1);
            if seen_data.get() == 3 {
                lost_in.set(tsns(pkt).first().copied());
                return Verdict::Drop;
            }
        }
        Verdict::Pass
    }));
    for _ in 0..20 {
        let x = n.a.association_mut(a).unwrap();
        x.send(0, 0, Bytes::from(vec![7u8; 1000]), false).unwrap();
    }
    n.run_for(Duration::from_millis(500));
    let tsn = lost.get().expect("a DATA packet was dropped");
    let stats = n.a.association(a).unwrap().stats();
    assert_eq!(stats.t3_expirations, 0, "recovered without a timeout");
    let mut got = 0;
    let y = n.b.association_mut(b).unwrap();
    while let Some(m) = y.recv() {
        got += m.data.len();
    }
    assert_eq!(got, 20_000, "everything delivered");
    sent_to(&n, tsn)
}

#[test]
fn rtx_to_alt_default_fast_retransmission_goes_to_the_same_destination() {
    // RFC 9260 section 7.2.4: the fast retransmission goes where new data
    // goes, the primary b1.
    assert_eq!(
        fast_retransmission(RetransmitDestination::Rfc9260),
        vec![b1(), b1()]
    );
}

#[test]
fn rtx_to_alt_ns2_fast_retransmission_goes_to_the_alternate() {
    // ns-2 `rtxToAlt_ 1` (sctp.cc 2918-2920): every retransmission to the
    // next active destination, fast ones included.
    assert_eq!(
        fast_retransmission(RetransmitDestination::AlwaysAlternate),
        vec![b1(), b2()]
    );
}

/// A sends one message to b1; it is lost; T3-rtx expires. Returns the
/// destinations of its transmissions.
fn timeout_retransmission(rtx: RetransmitDestination) -> Vec<IpAddr> {
    let (mut n, a, _b) = associated(rtx, ErrorCounterReset::Rfc9260);
    let lost = Rc::new(Cell::new(None::<u32>));
    let lost_in = lost.clone();
    n.filter = Some(Box::new(move |from, _src, dst, pkt| {
        if from == Side::A
            && dst == b1()
            && chunk_types(pkt).contains(&DATA)
            && lost_in.get().is_none()
        {
            lost_in.set(tsns(pkt).first().copied());
            return Verdict::Drop;
        }
        Verdict::Pass
    }));
    let x = n.a.association_mut(a).unwrap();
    x.send(0, 0, Bytes::from(vec![7u8; 1000]), false).unwrap();
    n.run_for(Duration::from_secs(2));
    assert_eq!(n.a.association(a).unwrap().stats().t3_expirations, 1);
    sent_to(&n, lost.get().expect("the DATA was dropped"))
}

#[test]
fn rtx_to_alt_timeout_retransmission_goes_to_the_alternate_either_way() {
    // RFC 9260 section 6.4.1 and ns-2 agree on timeouts.
    for rtx in [
        RetransmitDestination::Rfc9260,
        RetransmitDestination::AlwaysAlternate,
    ] {
        assert_eq!(timeout_retransmission(rtx), vec![b1(), b2()], "{rtx:?}");
    }
}

#[test]
fn rtx_to_alt_is_off_by_default() {
    let c = AssociationConfig::default();
    assert_eq!(c.retransmit_destination, RetransmitDestination::Rfc9260);
    assert_eq!(c.error_counter_reset, ErrorCounterReset::Rfc9260);
}

/// The failure-detection case of ns-2's comment (sctp.cc 2420-2430): the
/// data reached B but its SACKs were lost. A's T3-rtx on b1 expires and
/// marks a window of chunks; the first goes to b2 (b2's window lets only a
/// few out) and B's SACK of it acknowledges all the chunks whose SACKs
/// were lost, most of them still marked for timeout retransmission.
///
/// ```text
///   A                                  B
///     |--- DATA x 12 (b1) -------------->|
///     |<-- SACKs ------------X (lost)    |
///   T3-rtx(b1): b1 errors 1, all marked
///     |--- DATA rtx (b2) --------------->|
///     |<-- SACK cum = all ---------------|
///   b1 errors: RFC 9260 -> 0, ns-2 -> 1
/// ```
///
/// Returns b1's error counter after that SACK and how many chunks were
/// still marked (acknowledged without being retransmitted).
fn error_counter_after_lost_sacks(errors: ErrorCounterReset) -> (u32, u64) {
    let (mut n, a, b) = associated(RetransmitDestination::Rfc9260, errors);
    // Grow b1's window first: 200 messages, every SACK delivered; as the
    // last one arrives, 12 more follow and B's SACKs are lost from then
    // until A's T3-rtx on b1 has expired.
    let drop_sacks = Rc::new(Cell::new(false));
    let dropping = drop_sacks.clone();
    n.filter = Some(Box::new(move |from, _src, _dst, pkt| {
        if from == Side::B && dropping.get() && chunk_types(pkt).contains(&SACK) {
            return Verdict::Drop;
        }
        Verdict::Pass
    }));
    for _ in 0..200 {
        let x = n.a.association_mut(a).unwrap();
        x.send(0, 0, Bytes::from(vec![7u8; 1000]), false).unwrap();
    }
    let (mut got, mut cwnd, mut rtx_before, mut expired) = (0usize, 0, 0, false);
    let end = n.now + Duration::from_secs(5);
    n.run_with(end, &mut |n| {
        let y = n.b.association_mut(b).unwrap();
        while let Some(m) = y.recv() {
            got += m.data.len();
        }
        let x = n.a.association_mut(a).unwrap();
        if got == 200_000 && cwnd == 0 {
            cwnd = x.path_stats(b1()).unwrap().cwnd;
            rtx_before = x.stats().retransmitted_chunks;
            drop_sacks.set(true);
            for _ in 0..12 {
                x.send(0, 0, Bytes::from(vec![7u8; 1000]), false).unwrap();
            }
        }
        if cwnd > 0 && !expired && x.path_stats(b1()).unwrap().error_count > 0 {
            // T3-rtx expired: from now on the SACKs get through.
            expired = true;
            drop_sacks.set(false);
        }
    });
    assert!(cwnd >= 12_000, "b1's window grew ({cwnd})");
    assert!(expired, "T3-rtx on b1 expired");
    let x = n.a.association(a).unwrap();
    assert_eq!(x.stats().t3_expirations, 1);
    let retransmitted = x.stats().retransmitted_chunks - rtx_before;
    assert!(
        retransmitted < 12,
        "some chunks were acknowledged while still marked ({retransmitted} retransmitted)"
    );
    assert_eq!(got, 212_000, "everything delivered");
    for addr in [b1(), b2()] {
        assert_eq!(
            x.path_stats(addr).unwrap().flight_size,
            0,
            "all acknowledged"
        );
    }
    assert_eq!(x.path_stats(b2()).unwrap().error_count, 0);
    (x.path_stats(b1()).unwrap().error_count, 12 - retransmitted)
}

#[test]
fn error_counter_default_cleared_by_the_sack_of_timeout_marked_chunks() {
    // RFC 9260 section 8.3: any new acknowledgement of data sent to b1
    // clears b1's error counter.
    let (errors, unretransmitted) = error_counter_after_lost_sacks(ErrorCounterReset::Rfc9260);
    assert!(unretransmitted > 0);
    assert_eq!(errors, 0);
}

#[test]
fn error_counter_ns2_kept_by_the_sack_of_timeout_marked_chunks() {
    // ns-2 (sctp.cc 2431-2441, 4250-4264): acknowledgements of chunks
    // marked for timeout retransmission leave the counter standing.
    let (errors, unretransmitted) = error_counter_after_lost_sacks(ErrorCounterReset::Ns2);
    assert!(unretransmitted > 0);
    assert_eq!(errors, 1);
}
