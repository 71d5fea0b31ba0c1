//! Link-layer triggered handover on a dual-homed pair: moving the data of a
//! dead path at once (`Association::retransmit_path_data`) against waiting for
//! the retransmission timeout, and on-demand path probing
//! (`Association::probe_path`).

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::*;
use msctp_proto::wire::chunk::chunk_type;
use msctp_proto::{EndpointConfig, Time};

const A1: &str = "10.1.0.2";
const A2: &str = "10.2.0.2";
const B1: &str = "10.1.0.1";
const B2: &str = "10.2.0.1";

fn net() -> Net {
    let mut n = Net::new(
        EndpointConfig::new(5000),
        &[ip(A1), ip(A2)],
        EndpointConfig::new(6000),
        &[ip(B1), ip(B2)],
        Link::new(Duration::from_millis(5)).rate(20_000_000, 100),
        7,
    );
    // Only the matching pairs are links; cross pairs do not exist.
    for (x, y) in [(A1, B2), (A2, B1)] {
        n.set_up(ip(x), ip(y), false);
    }
    n
}

/// Warms the first path up with 200 kB, then sends a 30 kB burst (all
/// of it fits the congestion window, so nothing stays queued that could
/// later trigger a fast retransmit) into a link that has just failed
/// silently; 20 ms later the link layer reports it and the sender moves to
/// the second link. Returns how long after the failure the last byte
/// arrived.
fn handover(move_data: bool) -> Duration {
    let mut n = net();
    let (a, b) = n.connect(Duration::from_secs(1));
    {
        let aa = n.a.association_mut(a).unwrap();
        aa.set_path_source(ip(B1), Some(ip(A1))).unwrap();
        aa.set_path_source(ip(B2), Some(ip(A2))).unwrap();
        aa.set_local_primary(Some(ip(A1))).unwrap();
    }
    // Both paths verified before the transfer.
    n.run_for(Duration::from_secs(3));
    assert!(
        n.a.association(a)
            .unwrap()
            .path_stats(ip(B2))
            .unwrap()
            .confirmed
    );
    let total = 230_000;
    for i in 0..20 {
        let aa = n.a.association_mut(a).unwrap();
        aa.send(0, 0, Bytes::from(pattern(i * 10_000, 10_000)), false)
            .unwrap();
    }
    let mut got = 0usize;
    let mut cut = None;
    let mut notified = false;
    let mut done_at = None;
    // Steps of 1 ms, so that the notification comes on time.
    while n.now < Time::from_secs(10) && done_at.is_none() {
        n.run_for(Duration::from_millis(1));
        let aa = n.a.association_mut(a).unwrap();
        if cut.is_none() && aa.send_buffered() == 0 {
            assert!(aa.path_stats(ip(B1)).unwrap().cwnd >= 30_000);
            for k in 0..3 {
                let off = 200_000 + k * 10_000;
                aa.send(0, 0, Bytes::from(pattern(off, 10_000)), false)
                    .unwrap();
            }
            cut = Some(n.now);
            n.set_up(ip(A1), ip(B1), false);
        } else if let Some(c) = cut
            && !notified
            && n.now >= c + Duration::from_millis(20)
        {
            notified = true;
            aa.set_primary(ip(B2)).unwrap();
            aa.set_local_primary(Some(ip(A2))).unwrap();
            if move_data {
                assert!(aa.retransmit_path_data(ip(B1)).unwrap() > 0);
                assert_eq!(aa.path_stats(ip(B1)).unwrap().flight_size, 0);
            }
        }
        let bb = n.b.association_mut(b).unwrap();
        while let Some(m) = bb.recv() {
            assert_eq!(&m.data[..], &pattern(got, m.data.len())[..]);
            got += m.data.len();
        }
        if got == total && done_at.is_none() {
            done_at = Some(n.now);
        }
    }
    assert_eq!(got, total, "everything arrives in both cases");
    done_at.unwrap() - cut.unwrap()
}

#[test]
fn retransmit_path_moves_outstanding_data_without_waiting_for_t3() {
    let fast = handover(true);
    let slow = handover(false);
    // The notification delay (20 ms) plus slow start of 21 packets on the
    // second link (about three 10 ms round trips), against the T3 timer
    // (RTO.Min 1 s) when the data is left on the dead path.
    assert!(fast < Duration::from_millis(150), "moved at once: {fast:?}");
    assert!(slow > Duration::from_secs(1), "waited for T3: {slow:?}");
}

#[test]
fn probe_path_sends_a_heartbeat_at_once() {
    let mut n = net();
    let (a, _b) = n.connect(Duration::from_secs(1));
    let aa = n.a.association_mut(a).unwrap();
    aa.set_path_source(ip(B2), Some(ip(A2))).unwrap();
    // Path verification of B2 (first probe lost on the cross link, the
    // second after one RTO answered), then idle.
    n.run_for(Duration::from_secs(3));
    assert!(
        n.a.association(a)
            .unwrap()
            .path_stats(ip(B2))
            .unwrap()
            .confirmed
    );
    let before = n.seen.len();
    let now = n.now;
    n.a.association_mut(a)
        .unwrap()
        .probe_path(now, ip(B2))
        .unwrap();
    n.run_for(Duration::from_millis(1));
    let hb = n.seen[before..]
        .iter()
        .find(|s| s.dst == ip(B2) && s.chunks.contains(&chunk_type::HEARTBEAT))
        .expect("a HEARTBEAT to the probed address");
    assert_eq!(hb.time, now);
    assert!(
        n.a.association_mut(a)
            .unwrap()
            .probe_path(now, ip("10.9.9.9"))
            .is_err()
    );
}
