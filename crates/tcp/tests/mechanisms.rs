//! Congestion-control and timer mechanisms observed on the wire, over the
//! simulated link: the packet trace shows when each segment and ACK left
//! and arrived.

mod harness;

use std::time::Duration;

use harness::{Harness, LinkConfig, random_bytes};
use msctp_tcp::{TcpConfig, Time};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Sends of the segment starting at `seq` by the client.
fn sends_of(h: &Harness, seq: u32) -> Vec<Time> {
    h.data_sent()
        .into_iter()
        .filter(|(_, s, _)| *s == seq)
        .map(|(t, _, _)| t)
        .collect()
}

/// The sequence number of the `n`th data packet the client sent (1-based).
fn nth_data_seq(h: &Harness, n: usize) -> u32 {
    h.data_sent()[n - 1].1
}

fn bulk(cfg: TcpConfig, link: LinkConfig, bytes: usize) -> Harness {
    let mut h = Harness::symmetric(cfg, link, 1);
    h.to_send = random_bytes(bytes, 1);
    h
}

#[test]
fn fast_retransmit_after_exactly_three_duplicate_acks() {
    let mut link = LinkConfig::new(10_000_000, ms(20), 100);
    link.drop_data = vec![40];
    let mut h = bulk(
        TcpConfig {
            limited_transmit: false,
            ..TcpConfig::ns3_compatible()
        },
        link,
        400_000,
    );
    h.run_until(Time::from_secs(5));
    assert_eq!(h.received, h.to_send);
    let lost = nth_data_seq(&h, 40);
    let sends = sends_of(&h, lost);
    assert_eq!(sends.len(), 2, "sent once, retransmitted once");
    // ACKs for `lost` that reached the client before the retransmission.
    let dups: Vec<Time> = h
        .acks_received()
        .into_iter()
        .filter(|(_, a)| *a == lost)
        .map(|(t, _)| t)
        .collect();
    assert!(
        dups.len() >= 4,
        "the original ACK and at least three duplicates"
    );
    // dups[0] is the ACK that first acknowledged up to `lost`; the
    // retransmission leaves the instant the third duplicate arrives.
    assert_eq!(sends[1], dups[3]);
    assert!(dups[2] < sends[1]);
    let s = h.client.stats();
    assert_eq!(
        (s.fast_retransmits, s.timeouts, s.segments_retransmitted),
        (1, 0, 1)
    );
}

#[test]
fn newreno_repairs_two_losses_of_one_window_in_one_recovery() {
    let mut link = LinkConfig::new(10_000_000, ms(20), 100);
    link.drop_data = vec![40, 44];
    let mut h = bulk(TcpConfig::ns3_compatible(), link, 400_000);
    h.run_until(Time::from_secs(5));
    assert_eq!(h.received, h.to_send);
    let (first, second) = (nth_data_seq(&h, 40), nth_data_seq(&h, 44));
    let s = h.client.stats();
    assert_eq!(
        (s.fast_retransmits, s.timeouts, s.segments_retransmitted),
        (1, 0, 2)
    );
    // The second hole is retransmitted when the partial ACK (acknowledging
    // up to it) arrives, one RTT after the first retransmission.
    let rtx2 = sends_of(&h, second)[1];
    let partial = h
        .acks_received()
        .into_iter()
        .find(|(_, a)| *a == second)
        .map(|(t, _)| t);
    assert_eq!(Some(rtx2), partial);
    let rtx1 = sends_of(&h, first)[1];
    let gap = rtx2 - rtx1;
    assert!(
        gap > ms(40) && gap < ms(60),
        "one RTT between the repairs: {gap:?}"
    );
}

#[test]
fn retransmission_timeout_backs_off_by_doubling() {
    let mut link = LinkConfig::new(10_000_000, ms(20), 100);
    link.blackhole_from = Some(Time::from_millis(500));
    let cfg = TcpConfig {
        max_rto: Duration::from_secs(60),
        max_retransmissions: 6,
        ..TcpConfig::ns3_compatible()
    };
    let mut h = bulk(cfg, link, 2_000_000);
    h.run_until(Time::from_secs(200));
    let first_unacked = h.client.stats();
    assert_eq!(first_unacked.timeouts, 6);
    // The segment at SND.UNA is retransmitted at each timeout.
    let (last_ack_at, acked) = *h.acks_received().last().expect("acks before the break");
    let sends = sends_of(&h, acked);
    assert_eq!(sends.len(), 7);
    // The timer was last restarted by the last ACK (RFC 6298 (5.3)); it
    // fires one RTO (the 1 s minimum) later, then twice as late each time.
    assert_eq!(sends[1], last_ack_at + ms(1000));
    let gaps: Vec<Duration> = sends[1..].windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(
        gaps,
        vec![ms(2000), ms(4000), ms(8000), ms(16000), ms(32000)]
    );
    assert!(h.client.is_closed(), "gave up after max_retransmissions");
}

#[test]
fn delayed_ack_answers_a_lone_segment_after_200_ms() {
    let link = LinkConfig::new(10_000_000, ms(20), 100);
    let mut h = bulk(TcpConfig::ns3_compatible(), link, 1000);
    h.run_until(Time::from_secs(1));
    h.to_send.extend_from_slice(&[1u8; 1000]);
    h.run_until(Time::from_secs(2));
    assert_eq!(h.received.len(), 2000);
    let arrivals: Vec<Time> = h
        .trace
        .iter()
        .filter(|e| e.forward && !e.sent && e.len > 0)
        .map(|e| e.time)
        .collect();
    let acks: Vec<Time> = h
        .trace
        .iter()
        .filter(|e| !e.forward && e.sent && e.len == 0)
        .map(|e| e.time)
        .collect();
    assert_eq!(arrivals.len(), 2);
    // The first data segment is acknowledged at once (ns-3 does so too),
    // the second, alone, when the 200 ms delayed-ACK timer fires.
    assert!(acks.contains(&arrivals[0]));
    assert!(acks.contains(&(arrivals[1] + ms(200))));
    assert!(
        !acks
            .iter()
            .any(|&t| t > arrivals[1] && t < arrivals[1] + ms(200))
    );
}

/// Data segments sent in each RTT round of slow start.
fn rounds(delayed_ack: bool) -> Vec<usize> {
    // 1 Gbit/s: a whole window leaves in a small part of the 100 ms RTT.
    let link = LinkConfig::new(1_000_000_000, ms(50), 1000);
    let cfg = TcpConfig {
        delayed_ack,
        send_buffer: 4 << 20,
        recv_buffer: 4 << 20,
        ..TcpConfig::ns3_compatible()
    };
    let mut h = bulk(cfg, link, 4 << 20);
    h.run_until(Time::from_millis(700));
    let sent = h.data_sent();
    let start = sent[0].0;
    let mut counts = vec![0usize; 5];
    for (t, _, _) in sent {
        let k = ((t - start).as_millis() / 100) as usize;
        if k < counts.len() {
            counts[k] += 1;
        }
    }
    counts
}

#[test]
fn slow_start_doubles_per_rtt_without_delayed_acks() {
    // One SMSS more per ACK, one ACK per segment: twice the segments each
    // round, from the initial window of 10.
    assert_eq!(rounds(false), vec![10, 20, 40, 80, 160]);
}

#[test]
fn slow_start_grows_by_half_per_rtt_with_delayed_acks() {
    // One ACK per two segments: cwnd grows by half a window per round.
    let r = rounds(true);
    assert_eq!(r[0], 10);
    for w in r.windows(2) {
        let growth = w[1] as f64 / w[0] as f64;
        assert!((1.4..=1.65).contains(&growth), "{r:?}");
    }
}
