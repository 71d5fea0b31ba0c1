//! Unit tests of the sender (`send.rs`).

use super::*;
use crate::congestion::Congestion;
use crate::path::RtoEstimator;
use crate::wire::{GapBlock, SackChunk};
use std::time::Duration;

fn paths(n: usize) -> Vec<Path> {
    (0..n)
        .map(|i| {
            Path::new(
                format!("10.0.0.{}", i + 1).parse().unwrap(),
                RtoEstimator::new(
                    Duration::from_secs(1),
                    Duration::from_millis(100),
                    Duration::from_secs(60),
                ),
                Congestion::new(1000, 100_000, 1_000_000),
                true,
            )
        })
        .collect()
}

fn send_n(s: &mut Sender, paths: &mut [Path], n: usize, path: usize, now: Time) {
    for _ in 0..n {
        s.push(0, 0, false, Bytes::from(vec![0u8; 100]));
        let len = s.next_chunk(1000, path, 0, now).unwrap().payload_len();
        paths[path].flight_size += len;
    }
}

fn sack(cum: u32, gaps: &[(u16, u16)]) -> SackChunk {
    SackChunk {
        flags: 0,
        cum_tsn_ack: cum,
        a_rwnd: 100_000,
        gap_blocks: gaps
            .iter()
            .map(|&(start, end)| GapBlock { start, end })
            .collect(),
        dup_tsns: vec![],
    }
}

#[test]
fn fragmentation_sets_begin_and_end() {
    let mut s = Sender::new(10, 2, 10_000);
    s.push(1, 9, false, Bytes::from(vec![1u8; 2500]));
    let now = Time::ZERO;
    let a = s.next_chunk(1000, 0, 0, now).unwrap().data.clone();
    let b = s.next_chunk(1000, 0, 0, now).unwrap().data.clone();
    let c = s.next_chunk(1000, 0, 0, now).unwrap().data.clone();
    assert!(s.next_chunk(1000, 0, 0, now).is_none());
    assert_eq!(
        (a.tsn, a.begin, a.end, a.payload.len()),
        (10, true, false, 1000)
    );
    assert_eq!((b.tsn, b.begin, b.end), (11, false, false));
    assert_eq!(
        (c.tsn, c.begin, c.end, c.payload.len()),
        (12, false, true, 500)
    );
    assert_eq!(a.ssn, c.ssn);
    assert_eq!(s.buffered(), 2500);
}

/// Equal messages (one shared payload) are queued as runs, and cut
/// into exactly the chunks, and drained as exactly the messages, that
/// the same messages with payloads of their own give.
#[test]
fn equal_messages_queue_as_runs_and_give_the_same_chunks() {
    let zeros = Bytes::from_static(&[0u8; 4096]);
    let own = |n: usize| Bytes::from(vec![0u8; n]);
    // (stream, ppid, unordered, len); runs of shared payloads broken
    // by a change of stream, PPID, ordering, length or a payload of
    // its own.
    let mut msgs: Vec<(u16, u32, bool, usize, bool)> = Vec::new();
    msgs.extend((0..40).map(|_| (1, 7, false, 1424, true)));
    msgs.push((1, 7, false, 1424, false));
    msgs.extend((0..5).map(|_| (1, 7, true, 1424, true)));
    msgs.extend((0..5).map(|_| (0, 7, false, 1424, true)));
    msgs.extend((0..5).map(|_| (0, 8, false, 1424, true)));
    msgs.extend((0..5).map(|_| (0, 8, false, 300, true)));
    let mut shared = Sender::new(1, 2, 1 << 20);
    let mut separate = Sender::new(1, 2, 1 << 20);
    for &(stream, ppid, unordered, len, is_shared) in &msgs {
        let data = if is_shared {
            zeros.slice(..len)
        } else {
            own(len)
        };
        shared.push(stream, ppid, unordered, data);
        separate.push(stream, ppid, unordered, own(len));
    }
    assert_eq!(separate.queue.len(), msgs.len());
    assert_eq!(shared.queue.len(), 6, "runs of 40, 1, 5, 5, 5 and 5");
    assert_eq!(shared.buffered(), separate.buffered());
    let mut p = paths(1);
    let cut = |s: &mut Sender| {
        let c = &s.next_chunk(1000, 0, 0, Time::ZERO)?.data;
        Some((
            c.tsn,
            c.stream_id,
            c.ssn,
            c.ppid,
            c.unordered,
            c.begin,
            c.end,
            c.payload.clone(),
        ))
    };
    for k in 0..200 {
        let (a, b) = (cut(&mut shared), cut(&mut separate));
        assert_eq!(a, b, "chunk {k}");
        if let Some(c) = a {
            p[0].flight_size += c.7.len() as u32;
        }
        shared.check_accounting(&p).unwrap();
        assert_eq!(shared.peek_chunk_len(1000), separate.peek_chunk_len(1000));
        assert_eq!(shared.buffered(), separate.buffered());
        if k == 30 {
            // Part of the way through the first run, mid-message.
            assert_eq!(
                shared.clone().drain_unsent(),
                separate.clone().drain_unsent()
            );
        }
    }
    assert!(!shared.has_queued() && !separate.has_queued());
}

#[test]
fn cumulative_ack_frees_buffer_and_samples_rtt() {
    let mut p = paths(1);
    let mut s = Sender::new(1, 1, 100_000);
    send_n(&mut s, &mut p, 3, 0, Time::ZERO);
    p[0].rtt_probe = Some((1, Time::ZERO));
    p[0].t3_deadline = Some(Time::from_secs(1));
    let o = s.on_sack(&sack(3, &[]), Time::from_millis(50), &mut p);
    assert!(o.cum_advanced);
    assert_eq!(o.bytes_acked, 300);
    assert_eq!(s.buffered(), 0);
    assert_eq!(p[0].flight_size, 0);
    assert_eq!(p[0].t3_deadline, None, "T3 stops when all acked");
    assert_eq!(p[0].rto.srtt(), Some(Duration::from_millis(50)));
}

#[test]
fn stale_and_impossible_sacks() {
    let mut p = paths(1);
    let mut s = Sender::new(100, 1, 100_000);
    send_n(&mut s, &mut p, 5, 0, Time::ZERO);
    s.on_sack(&sack(102, &[]), Time::ZERO, &mut p);
    assert!(s.on_sack(&sack(101, &[]), Time::ZERO, &mut p).stale);
    assert!(s.on_sack(&sack(105, &[]), Time::ZERO, &mut p).acks_unsent);
    assert!(
        s.on_sack(&sack(102, &[(1, 9)]), Time::ZERO, &mut p)
            .acks_unsent
    );
}

#[test]
fn gap_block_starting_at_offset_zero_is_harmless() {
    // Found by the `established` fuzz target: a Gap Ack Block Start of
    // 0 underflowed the offset arithmetic (a panic with overflow
    // checks on). Offset 0 names the cumulative TSN itself.
    let mut p = paths(1);
    let mut s = Sender::new(1, 1, 100_000);
    send_n(&mut s, &mut p, 4, 0, Time::ZERO);
    let o = s.on_sack(&sack(1, &[(0, 2)]), Time::ZERO, &mut p);
    assert!(!o.acks_unsent);
    // TSN 1 cumulatively, TSNs 2 and 3 by the block (offsets 1 and 2).
    assert_eq!(o.bytes_acked, 300);
    assert_eq!(p[0].flight_size, 100);
    s.check_accounting(&p).unwrap();
}

#[test]
fn three_missing_reports_trigger_one_fast_retransmit() {
    let mut p = paths(1);
    let mut s = Sender::new(1, 1, 100_000);
    send_n(&mut s, &mut p, 6, 0, Time::ZERO);
    // TSN 1 lost; 2..4 arrive one by one.
    assert_eq!(
        s.on_sack(&sack(0, &[(2, 2)]), Time::ZERO, &mut p)
            .fast_retransmits,
        0
    );
    assert_eq!(
        s.on_sack(&sack(0, &[(2, 3)]), Time::ZERO, &mut p)
            .fast_retransmits,
        0
    );
    let o = s.on_sack(&sack(0, &[(2, 4)]), Time::ZERO, &mut p);
    assert_eq!(o.fast_retransmits, 1);
    assert_eq!(o.entered_fast_recovery.as_slice(), [0]);
    assert_eq!(p[0].cc.cwnd, 50_000);
    assert_eq!(s.first_marked(), Some(0));
    assert_eq!(
        p[0].flight_size, 200,
        "TSN 1 left the flight; 5 and 6 remain"
    );
    assert_eq!(s.outstanding_chunk(1).unwrap().last_retransmit, None);
    s.retransmitted(0, 0, Time::ZERO, &mut p);
    assert_eq!(
        s.outstanding_chunk(1).unwrap().last_retransmit,
        Some(Retransmit::Fast),
        "the reason of the last retransmission is kept for observers"
    );
    assert!(s.outstanding_chunk(7).is_none());
    assert!(s.outstanding_chunk(0).is_none());
    // More reports do not mark it again.
    assert_eq!(
        s.on_sack(&sack(0, &[(2, 5)]), Time::ZERO, &mut p)
            .fast_retransmits,
        0
    );
    assert_eq!(
        s.on_sack(&sack(0, &[(2, 6)]), Time::ZERO, &mut p)
            .fast_retransmits,
        0
    );
    // Recovery ends when the cumulative ack passes the exit point.
    s.on_sack(&sack(6, &[]), Time::ZERO, &mut p);
    assert_eq!(p[0].fast_recovery_exit, None);
}

#[test]
fn with_a_threshold_of_four_the_fourth_missing_report_triggers_it() {
    // ns-2's SCTP module before release 3.8 (the one Koh, Chang and Lee
    // ran): TSN 1 lost, 2..5 arrive one by one; the third report leaves
    // it alone, the fourth marks it.
    let mut p = paths(1);
    let mut s = Sender::new(1, 1, 100_000);
    s.fast_retransmit_threshold = 4;
    send_n(&mut s, &mut p, 6, 0, Time::ZERO);
    for k in 2..=4u16 {
        let o = s.on_sack(&sack(0, &[(2, k)]), Time::ZERO, &mut p);
        assert_eq!(o.fast_retransmits, 0, "report {} of 4", k - 1);
    }
    assert_eq!(s.first_marked(), None);
    let o = s.on_sack(&sack(0, &[(2, 5)]), Time::ZERO, &mut p);
    assert_eq!(o.fast_retransmits, 1);
    assert_eq!(o.entered_fast_recovery.as_slice(), [0]);
    assert_eq!(s.first_marked(), Some(0));
}

#[test]
fn a_retransmission_is_struck_only_by_data_sent_after_it() {
    // TSN 1 lost on path 0; its T3-rtx retransmission goes to path 1
    // while SACKs for data sent before it (2..6 on path 0) keep
    // arriving. They must not fast-retransmit it again, nor cut the
    // window of path 1 (section 7.2.4: the reports are about the
    // first transmission, already handled by the timeout).
    let mut p = paths(2);
    let mut s = Sender::new(1, 1, 100_000);
    send_n(&mut s, &mut p, 6, 0, Time::ZERO);
    assert_eq!(s.mark_path(0, Retransmit::Timeout, &mut p), 6);
    s.retransmitted(0, 1, Time::ZERO, &mut p);
    let cwnd1 = p[1].cc.cwnd;
    for k in 2..=6u16 {
        let o = s.on_sack(&sack(0, &[(2, k)]), Time::ZERO, &mut p);
        assert_eq!(
            o.fast_retransmits, 0,
            "report {k} is older than the retransmission"
        );
    }
    assert_eq!(p[1].cc.cwnd, cwnd1);
    assert_eq!(s.outstanding_chunk(1).unwrap().missing_reports, 0);
    // Data sent after the retransmission does count: three SACKs
    // acknowledging TSNs 7..9 while 1 is still missing.
    send_n(&mut s, &mut p, 3, 1, Time::ZERO);
    let mut fr = 0;
    for k in 7..=9u16 {
        fr += s
            .on_sack(&sack(0, &[(2, k)]), Time::ZERO, &mut p)
            .fast_retransmits;
    }
    assert_eq!(fr, 1, "a lost retransmission is still detected");
    assert_eq!(s.outstanding_chunk(1).unwrap().path, 1);
}

#[test]
fn split_fast_retransmit_ignores_reports_from_other_paths() {
    let mut p = paths(2);
    let mut s = Sender::new(1, 1, 100_000);
    s.split_fast_retransmit = true;
    send_n(&mut s, &mut p, 1, 0, Time::ZERO); // TSN 1 on the slow path 0
    send_n(&mut s, &mut p, 4, 1, Time::ZERO); // TSN 2..5 on the fast path 1
    for k in 2..=5u16 {
        let o = s.on_sack(&sack(0, &[(2, k)]), Time::ZERO, &mut p);
        assert_eq!(o.fast_retransmits, 0, "reordering across paths is not loss");
    }
    s.split_fast_retransmit = false;
    send_n(&mut s, &mut p, 3, 1, Time::ZERO); // TSN 6..8
    let mut total = 0;
    for k in 6..=8u16 {
        total += s
            .on_sack(&sack(0, &[(2, k)]), Time::ZERO, &mut p)
            .fast_retransmits;
    }
    assert_eq!(total, 1, "without SFR the same pattern is a loss");
}

#[test]
fn split_fast_retransmit_separates_routes_under_one_path() {
    // One peer address, the source address changes (route 0 -> 1): data
    // sent on the new, faster route overtakes the old route's.
    let mut p = paths(1);
    let mut s = Sender::new(1, 1, 100_000);
    s.split_fast_retransmit = true;
    send_n(&mut s, &mut p, 1, 0, Time::ZERO); // TSN 1 on route 0
    p[0].route = 1;
    for _ in 0..4 {
        s.push(0, 0, false, Bytes::from(vec![0u8; 100]));
        let len = s.next_chunk(1000, 0, 1, Time::ZERO).unwrap().payload_len();
        p[0].flight_size += len;
    }
    for k in 2..=5u16 {
        assert_eq!(
            s.on_sack(&sack(0, &[(2, k)]), Time::ZERO, &mut p)
                .fast_retransmits,
            0
        );
    }
}

#[test]
fn timeout_marks_flight_of_that_path_only() {
    let mut p = paths(2);
    let mut s = Sender::new(1, 1, 100_000);
    send_n(&mut s, &mut p, 2, 0, Time::ZERO);
    send_n(&mut s, &mut p, 1, 1, Time::ZERO);
    assert_eq!(s.mark_path(0, Retransmit::Timeout, &mut p), 2);
    assert_eq!(p[0].flight_size, 0);
    assert_eq!(p[1].flight_size, 100);
    assert_eq!(s.marked_indices(), vec![0, 1]);
    s.retransmitted(0, 1, Time::ZERO, &mut p);
    assert_eq!(p[1].flight_size, 200);
    assert_eq!(s.marked_indices(), vec![1]);
}

#[test]
fn reneged_gap_acks_are_forgotten() {
    let mut p = paths(1);
    let mut s = Sender::new(1, 1, 100_000);
    send_n(&mut s, &mut p, 3, 0, Time::ZERO);
    s.on_sack(&sack(0, &[(2, 3)]), Time::ZERO, &mut p);
    assert!(s.outstanding().nth(2).unwrap().gap_acked);
    s.on_sack(&sack(0, &[]), Time::ZERO, &mut p);
    assert!(!s.outstanding().nth(2).unwrap().gap_acked);
}

#[test]
fn cmt_reneged_chunks_return_to_the_flight_and_their_second_ack_is_no_news() {
    let mut p = paths(1);
    let mut s = cmt_sender();
    send_n(&mut s, &mut p, 4, 0, Time::ZERO);
    s.on_sack(&sack(0, &[(2, 4)]), Time::ZERO, &mut p);
    assert_eq!(p[0].flight_size, 100);
    p[0].t3_deadline = None;
    // An older SACK overtaken by the newer one (or reneging).
    s.on_sack(&sack(0, &[(2, 2)]), Time::ZERO, &mut p);
    assert_eq!(p[0].flight_size, 300, "TSNs 3 and 4 are in flight again");
    assert!(
        p[0].t3_deadline.is_some(),
        "and the T3-rtx timer covers them"
    );
    s.check_accounting(&p).unwrap();
    let o = s.on_sack(&sack(0, &[(2, 4)]), Time::ZERO, &mut p);
    assert_eq!(o.bytes_acked, 0, "acknowledged before: nothing new");
    assert_eq!(s.outstanding_chunk(1).unwrap().missing_reports, 1);
    assert_eq!(p[0].flight_size, 100);
    s.check_accounting(&p).unwrap();
}

#[test]
fn duplicate_reports_of_a_retransmission_count_it_spurious() {
    let mut p = paths(1);
    let mut s = Sender::new(1, 1, 100_000);
    send_n(&mut s, &mut p, 6, 0, Time::ZERO);
    for k in 2..=4u16 {
        s.on_sack(&sack(0, &[(2, k)]), Time::ZERO, &mut p);
    }
    s.retransmitted(0, 0, Time::ZERO, &mut p);
    // TSN 1 was only late: both copies arrive.
    let mut late = sack(6, &[]);
    late.dup_tsns = vec![1, 1, 4];
    s.on_sack(&late, Time::ZERO, &mut p);
    assert_eq!(s.stats.spurious_retransmissions, 1);
    assert_eq!(s.stats.spurious_fast_retransmissions, 1);
}

fn cmt_sender() -> Sender {
    let mut s = Sender::new(1, 1, 100_000);
    s.cmt = CmtConfig {
        enabled: true,
        ..CmtConfig::default()
    };
    s
}

fn dac(mut sk: SackChunk, packets: u32) -> SackChunk {
    sk.set_dac_packets(packets);
    sk
}

#[test]
fn cmt_dac_two_packet_sacks_count_twice_below_what_they_newly_ack() {
    // TSN 1 lost; the receiver acknowledges every second packet.
    let mut p = paths(1);
    let mut s = cmt_sender();
    send_n(&mut s, &mut p, 6, 0, Time::ZERO);
    let o = s.on_sack(&dac(sack(0, &[(2, 3)]), 2), Time::ZERO, &mut p);
    assert_eq!(o.fast_retransmits, 0);
    assert_eq!(s.outstanding_chunk(1).unwrap().missing_reports, 2);
    let o = s.on_sack(&dac(sack(0, &[(2, 5)]), 2), Time::ZERO, &mut p);
    assert_eq!(o.fast_retransmits, 1, "two SACKs for four packets");
    // Without the flag the same SACKs are one report each.
    let mut p = paths(1);
    let mut s = cmt_sender();
    send_n(&mut s, &mut p, 6, 0, Time::ZERO);
    s.on_sack(&sack(0, &[(2, 3)]), Time::ZERO, &mut p);
    let o = s.on_sack(&sack(0, &[(2, 5)]), Time::ZERO, &mut p);
    assert_eq!(o.fast_retransmits, 0);
    assert_eq!(s.outstanding_chunk(1).unwrap().missing_reports, 2);
}

#[test]
fn cmt_dac_counts_once_for_a_sack_acking_two_paths_or_around_the_hole() {
    let mut p = paths(2);
    let mut s = cmt_sender();
    send_n(&mut s, &mut p, 2, 0, Time::ZERO); // TSN 1, 2 on path 0
    send_n(&mut s, &mut p, 1, 1, Time::ZERO); // TSN 3 on path 1
    send_n(&mut s, &mut p, 1, 0, Time::ZERO); // TSN 4 on path 0
    // TSN 2 (path 0) and TSN 3 (path 1) newly acknowledged: two paths.
    s.on_sack(&dac(sack(0, &[(2, 3)]), 2), Time::ZERO, &mut p);
    assert_eq!(s.outstanding_chunk(1).unwrap().missing_reports, 1);
    // Then a SACK for two packets newly acknowledging TSN 4 alone (path
    // 0), TSN 1 still missing below it: two reports.
    s.on_sack(&dac(sack(0, &[(2, 4)]), 2), Time::ZERO, &mut p);
    assert_eq!(s.outstanding_chunk(1).unwrap().missing_reports, 3);
}

#[test]
fn cmt_cuc_grows_a_window_when_its_paths_earliest_chunk_is_acked() {
    // TSN 1 on path 0 is late; paths 1's chunks are acknowledged by
    // gap blocks while the cumulative ack point stays.
    let run = |cmt: bool| {
        let mut p = paths(2);
        let mut s = if cmt {
            cmt_sender()
        } else {
            Sender::new(1, 1, 100_000)
        };
        s.split_fast_retransmit = true;
        p[1].cc = Congestion::new(1000, 300, 100_000);
        send_n(&mut s, &mut p, 1, 0, Time::ZERO);
        send_n(&mut s, &mut p, 3, 1, Time::ZERO);
        s.on_sack(&sack(0, &[(2, 4)]), Time::ZERO, &mut p);
        p[1].cc.cwnd
    };
    assert_eq!(run(false), 300, "standard SCTP: no cumulative progress");
    assert_eq!(run(true), 600, "CUC: path 1's own ack point moved");
}

#[test]
fn cmt_rehome_holds_in_flight_data_until_told_to_resend_it() {
    let mut p = paths(2);
    let mut s = cmt_sender();
    send_n(&mut s, &mut p, 3, 0, Time::ZERO);
    send_n(&mut s, &mut p, 1, 1, Time::ZERO);
    s.rehome(0, 1, &mut p, true);
    assert_eq!(p[0].flight_size, 0);
    assert_eq!(p[1].flight_size, 100, "held chunks are in no flight");
    assert!(!s.has_marked());
    // The deleted path still delivers TSN 1; path 1 delivers TSN 4.
    let o = s.on_sack(&sack(1, &[(3, 3)]), Time::ZERO, &mut p);
    assert_eq!(o.fast_retransmits, 0);
    assert_eq!(o.acked_bytes[1], 100, "only TSN 4 counts for path 1");
    assert_eq!(s.mark_held(&mut p), 2, "TSNs 2 and 3 are resent");
    s.check_accounting(&p).unwrap();
}

#[test]
fn drain_returns_everything_unacknowledged() {
    let mut p = paths(1);
    let mut s = Sender::new(1, 1, 100_000);
    send_n(&mut s, &mut p, 2, 0, Time::ZERO);
    s.push(0, 5, false, Bytes::from_static(b"queued"));
    let d = s.drain_unsent();
    assert_eq!(d.len(), 3);
    assert_eq!(d[2].2, &b"queued"[..]);
    assert_eq!(s.buffered(), 0);
}
