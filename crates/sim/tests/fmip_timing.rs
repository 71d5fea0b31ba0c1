//! FMIPv6 (RFC 5568): the predictive exchange (RtSolPr, PrRtAdv, FBU,
//! HI, HAck, FBack), the previous router's tunnel, the new router's
//! bounded buffer and the mobile node's announcement; and the distinct
//! behaviour of attaching early (loss and blackout, reactive mode), at the
//! ideal instant (buffered delivery, a blackout of about the link switch)
//! and late (delay: the packets wait in the new router's buffer while the
//! mobile node is still on the old link; loss once the buffer is full).

#[path = "mip_v6_net/mod.rs"]
mod net;

use std::time::Duration;

use msctp_sim::models::app::UdpSink;
use msctp_sim::models::fmip::{AttachTiming, FmipRouter, Move, schedule_move};
use msctp_sim::models::mip::v6::{Correspondent6, MobileNode6};
use msctp_sim::{AgentId, DropReason, Time};
use net::*;

const TRIGGER: Time = Time::from_secs(5);
const INTERVAL: Duration = Duration::from_millis(10);
/// Link-layer switching time (802.11 re-association takes tens of ms).
const SWITCH: Duration = Duration::from_millis(20);

struct Outcome {
    net: Net6,
    down: AgentId,
    up: AgentId,
}

fn run(timing: AttachTiming, buffer_limit: usize) -> Outcome {
    let mut net = build(Options {
        fast: true,
        buffer_limit,
        ..Options::default()
    });
    let down = downlink_cbr(&mut net, INTERVAL, Time::from_millis(500));
    let up = uplink_cbr(&mut net, INTERVAL, Time::from_millis(500));
    let m = Move {
        node: net.mn,
        client: net.client,
        old_iface: Some(net.radio),
        new_iface: net.radio,
        new_cell: net.cell2,
        switch_delay: SWITCH,
    };
    schedule_move(
        &mut net.w,
        m,
        TRIGGER,
        timing,
        Duration::from_micros(100),
        Duration::from_secs(2),
    );
    net.w.run_until(Time::from_secs(8));
    Outcome { net, down, up }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Largest one-way delay (send stamp to arrival) of packets received in
/// `[from, to)`.
fn max_delay(s: &UdpSink, from: Time, to: Time) -> Duration {
    s.arrivals()
        .iter()
        .filter(|a| a.at >= from && a.at < to)
        .filter_map(|a| a.sent_at.map(|t| a.at - t))
        .max()
        .unwrap_or(Duration::ZERO)
}

fn report(name: &str, o: &Outcome) -> (Duration, u64, Duration) {
    let s = o.net.w.agent::<UdpSink>(o.down).unwrap();
    let (gap, _, _) = longest_gap(s, Time::from_secs(4), Time::from_secs(8));
    // Downlink packets lost anywhere (the uplink's are the correspondent's
    // concern).
    let lost = o
        .net
        .w
        .drops()
        .records()
        .iter()
        .filter(|d| d.dst != ip(CN) && d.protocol != 58)
        .filter(|d| {
            matches!(
                d.reason,
                DropReason::Detached | DropReason::Agent("FMIPv6 buffer full")
            )
        })
        .count() as u64;
    let delay = max_delay(s, TRIGGER, Time::from_secs(8));
    let client = o.net.w.agent::<MobileNode6>(o.net.client).unwrap();
    let f = client.fast_record();
    let r1 = o.net.w.agent::<FmipRouter>(o.net.fmip1).unwrap();
    let r2 = o.net.w.agent::<FmipRouter>(o.net.fmip2).unwrap();
    println!(
        "{name}: receiver gap {:.1} ms, packets lost {lost}, largest delay {:.1} ms; forwarded {}, buffered {}, delivered from buffer {}, buffer drops {}, reactive {}",
        ms(gap),
        ms(delay),
        r1.stats().forwarded,
        r2.stats().buffered,
        r2.stats().delivered_from_buffer,
        r2.stats().buffer_drops,
        f.reactive
    );
    (gap, lost, delay)
}

#[test]
fn predictive_exchange_in_order() {
    let o = run(AttachTiming::Ideal, 200);
    let client = o.net.w.agent::<MobileNode6>(o.net.client).unwrap();
    let f = client.fast_record();
    let par = o.net.w.agent::<FmipRouter>(o.net.fmip1).unwrap().record();
    let nar = o.net.w.agent::<FmipRouter>(o.net.fmip2).unwrap().record();
    let t = |x: Option<Time>| x.expect("message seen");
    // RtSolPr -> PrRtAdv -> FBU -> HI -> HAck -> forwarding -> FBack ->
    // attach -> UNA.
    assert!(t(f.rtsolpr_at) == TRIGGER);
    assert!(t(f.prrtadv_at) > t(f.rtsolpr_at));
    assert_eq!(t(f.fbu_at), t(f.prrtadv_at));
    assert!(t(par.fbu_at) > t(f.fbu_at));
    assert!(t(par.hi_sent_at) == t(par.fbu_at));
    assert!(t(nar.expected_at) > t(par.hi_sent_at));
    assert!(t(par.hack_at) > t(nar.expected_at));
    assert_eq!(t(par.forwarding_from), t(par.hack_at));
    assert!(t(f.fback_at) > t(par.forwarding_from));
    assert!(t(f.attached_at) >= t(f.fback_at) + SWITCH);
    assert!(t(f.attached_at) <= t(f.fback_at) + SWITCH + Duration::from_micros(200));
    assert_eq!(t(f.una_at), t(f.attached_at));
    assert!(t(nar.announced_at) > t(f.una_at));
    assert!(!f.reactive);
    // Afterwards the correspondent sends to the new care-of address.
    assert_eq!(client.correspondent_binding(a6(CN)), Some(a6(COA2)));
    let cn = o.net.w.agent::<Correspondent6>(o.net.corr).unwrap();
    assert_eq!(cn.binding(a6(HOME)), Some(a6(COA2)));
}

#[test]
fn ideal_attachment_delivers_from_the_buffer_without_loss() {
    let o = run(AttachTiming::Ideal, 200);
    let (gap, lost, delay) = report("ideal", &o);
    let r2 = o.net.w.agent::<FmipRouter>(o.net.fmip2).unwrap().stats();
    assert!(r2.buffered > 0 && r2.delivered_from_buffer == r2.buffered);
    assert_eq!(lost, 0, "no downlink packet lost");
    // The blackout is about the link switch plus the announcement's and
    // the first buffered packet's travel, within a packet interval.
    assert!(
        gap <= SWITCH + CELL * 2 + INTERVAL + Duration::from_millis(2),
        "gap {gap:?}"
    );
    assert!(delay < Duration::from_millis(60));
    // The uplink went through the previous router until the home agent
    // knew the new address. It lost what was sent during the switch, and
    // the correspondent discards (RFC 6275 9.3.1) a packet still carrying
    // the previous care-of address that arrives after its binding moved to
    // the new one: a gap of a few packet intervals.
    let c = o.net.w.agent::<MobileNode6>(o.net.client).unwrap().stats();
    assert!(c.tunnelled_to_par > 0);
    let up = o.net.w.agent::<UdpSink>(o.up).unwrap();
    let (ugap, _, _) = longest_gap(up, Time::from_secs(4), Time::from_secs(8));
    assert!(ugap < SWITCH + INTERVAL * 4, "uplink gap {ugap:?}");
}

#[test]
fn early_attachment_loses_packets_like_mobile_ip() {
    let o = run(
        AttachTiming::Early {
            after_trigger: Duration::from_millis(10),
        },
        200,
    );
    let (gap, lost, _) = report("early", &o);
    let f = o
        .net
        .w
        .agent::<MobileNode6>(o.net.client)
        .unwrap()
        .fast_record();
    assert!(f.fback_at.is_none() || f.fback_at > f.attached_at);
    assert!(
        f.reactive,
        "the fast binding update is repeated from the new link"
    );
    // The packets that reached the old cell between the departure and the
    // start of forwarding are lost, and the receiver waits that long.
    assert!(lost >= 1, "lost {lost}");
    assert!(gap >= Duration::from_millis(20), "gap {gap:?}");
    // Forwarding then works: the transfer goes on.
    let s = o.net.w.agent::<UdpSink>(o.down).unwrap();
    assert!(
        s.arrivals()
            .iter()
            .filter(|a| a.at > Time::from_secs(6))
            .count()
            > 150
    );
}

#[test]
fn late_attachment_delays_delivery_through_the_buffer() {
    let late = Duration::from_millis(300);
    let o = run(AttachTiming::Late { after_fback: late }, 200);
    let (gap, lost, delay) = report("late", &o);
    assert_eq!(lost, 0);
    // Nothing reaches the mobile node while it lingers on the old link:
    // its packets already go to the new router's buffer.
    assert!(gap >= late, "gap {gap:?}");
    assert!(delay >= late - INTERVAL, "largest delay {delay:?}");
    let r2 = o.net.w.agent::<FmipRouter>(o.net.fmip2).unwrap().stats();
    assert!(r2.buffered >= 25 && r2.delivered_from_buffer == r2.buffered);
}

#[test]
fn late_attachment_with_a_small_buffer_loses_the_overflow() {
    let o = run(
        AttachTiming::Late {
            after_fback: Duration::from_millis(300),
        },
        10,
    );
    let (_, lost, _) = report("late, 10-packet buffer", &o);
    let r2 = o.net.w.agent::<FmipRouter>(o.net.fmip2).unwrap().stats();
    assert!(r2.buffer_drops >= 15, "{r2:?}");
    assert!(lost >= 15);
    assert_eq!(r2.delivered_from_buffer, 10);
}
