//! The measures of docs/MODELS.md section 5 on two generated traces: a hard
//! (break-before-make, Mobile-IP-like) and a soft (make-before-break,
//! mSCTP-like) handover of a 100 packet/s stream of 1000-byte packets.

use std::time::Duration;

use msctp_sim::Time;
use msctp_sim::measure::{
    Arrival, ArrivalKind, Delivery, DropReason, DropRecord, HandoverWindow, PathId, Window,
    file_delivery_time, goodput_bps, goodput_series, handoff_delay, handoff_latency, lost_packets,
    out_of_order_arrivals, total_handoff_delay,
};

const OLD: PathId = PathId(1);
const NEW: PathId = PathId(2);

fn ms(x: u64) -> Time {
    Time::from_millis(x)
}

/// Packet k sent at 10 k ms, k in 0..1000; `route(k)` gives the path and
/// one-way delay, or `None` if the packet is dropped.
fn trace(route: impl Fn(u64) -> Option<(PathId, u64)>) -> (Vec<Arrival>, Vec<DropRecord>) {
    let mut arrivals = Vec::new();
    let mut drops = Vec::new();
    for k in 0..1000u64 {
        match route(k) {
            Some((path, delay)) => arrivals.push(Arrival {
                time: ms(10 * k + delay),
                path,
                seq: k,
                bytes: 1000,
                kind: ArrivalKind::New,
            }),
            None => drops.push(DropRecord {
                time: ms(10 * k),
                reason: DropReason::DeadAddress,
                is_data: true,
            }),
        }
    }
    (arrivals, drops)
}

fn deliveries(arrivals: &[Arrival]) -> Vec<Delivery> {
    // Unreliable stream: every arrival is delivered when it arrives.
    arrivals
        .iter()
        .map(|a| Delivery {
            time: a.time,
            bytes: u64::from(a.bytes),
        })
        .collect()
}

#[test]
fn hard_handover() {
    // Old path (20 ms) until 4 s, nothing until 4.5 s, then the new path.
    let (arr, drops) = trace(|k| match k {
        0..400 => Some((OLD, 20)),
        400..450 => None,
        _ => Some((NEW, 20)),
    });
    let h = HandoverWindow {
        window: Window::new(ms(3_000), ms(6_000)).unwrap(),
        old: OLD,
        new: NEW,
    };
    // Last old arrival 3.99 + 0.02 = 4.01 s, first new 4.50 + 0.02 = 4.52 s.
    assert_eq!(handoff_delay(&arr, &h), Some(Duration::from_millis(510)));
    assert_eq!(handoff_latency(&arr, h.window), Duration::from_millis(510));
    assert_eq!(lost_packets(&drops, Window::ALL), 50);
    assert_eq!(out_of_order_arrivals(&arr, Window::ALL), 0);
    let d = deliveries(&arr);
    let all = Window::new(Time::ZERO, ms(10_000)).unwrap();
    // 950 packets of 8000 bits, of which 948 arrive before 10 s (packets
    // 998 and 999 arrive at 10.00 s and 10.01 s, outside [0, 10 s)).
    assert_eq!(goodput_bps(&d, all).unwrap(), 948.0 * 8000.0 / 10.0);
    let series = goodput_series(&d, all, Duration::from_millis(500), 100).unwrap();
    assert_eq!(series.len(), 20);
    // The blackout bin [4.0, 4.5) holds only the packets that arrive at
    // 4.00 s and 4.01 s (sent at 3.98 s and 3.99 s).
    assert_eq!(series[8], (ms(4_000), 2.0 * 8000.0 / 0.5));
    assert_eq!(series[2].1, 50.0 * 8000.0 / 0.5);
    // 100 kB delivered: 100 packets, the 100th arrives at 0.99 + 0.02 s.
    assert_eq!(
        file_delivery_time(&d, Time::ZERO, 100_000),
        Some(Duration::from_millis(1_010))
    );
}

#[test]
fn soft_handover() {
    // Old path (50 ms) up to packet 499, new faster path (20 ms) from 500:
    // the new path overtakes the last old packets.
    let (arr, drops) = trace(|k| {
        if k < 500 {
            Some((OLD, 50))
        } else {
            Some((NEW, 20))
        }
    });
    let h = HandoverWindow {
        window: Window::new(ms(4_000), ms(6_000)).unwrap(),
        old: OLD,
        new: NEW,
    };
    // Last old at 5.04 s, first new at 5.02 s: overlap, no delay.
    assert_eq!(handoff_delay(&arr, &h), Some(Duration::ZERO));
    // Longest wait for new data: one inter-packet time.
    assert_eq!(handoff_latency(&arr, h.window), Duration::from_millis(10));
    assert_eq!(lost_packets(&drops, Window::ALL), 0);
    // 498 arrives after 500, 499 after 501.
    assert_eq!(out_of_order_arrivals(&arr, Window::ALL), 2);
    // Repeated handovers: total delay over ten identical windows is zero.
    let (total, missing) = total_handoff_delay(&arr, &[h; 10]);
    assert_eq!((total, missing), (Duration::ZERO, 0));
}

#[test]
fn goodput_of_repetitions() {
    // Goodput of five runs whose blackout grows by 100 ms each time.
    let mut goodputs = Vec::new();
    for r in 0..5u64 {
        let (arr, _) = trace(|k| {
            if (400..410 + 10 * r).contains(&k) {
                None
            } else {
                Some((OLD, 0))
            }
        });
        let all = Window::new(Time::ZERO, ms(10_000)).unwrap();
        goodputs.push(goodput_bps(&deliveries(&arr), all).unwrap());
    }
    // 990, 980, 970, 960, 950 packets of 8000 bit in 10 s.
    assert_eq!(
        goodputs,
        vec![792_000.0, 784_000.0, 776_000.0, 768_000.0, 760_000.0]
    );
    // Their summary over the repetitions is the lab's (msctp-lab stats).
}
