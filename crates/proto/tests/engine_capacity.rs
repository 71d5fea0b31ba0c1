//! Room for associations on a busy server (issue 31, finding 6, and the
//! 10 000-association server):
//! - an association with no user data either way is aborted after the
//!   endpoint's `idle_timeout`; answering HEARTBEATs does not keep it;
//! - a full table reclaims the association idle the longest for a new
//!   valid COOKIE ECHO (ABORT, Out of Resource), never a busy one;
//! - wider prefixes of the source are capped (IPv4 /24, IPv6 /56, /48):
//!   many addresses of one prefix cannot fill the table;
//! - a refused client learns "Out of Resource" (RFC 9260 3.3.10.4);
//! - timers and output visit only the associations concerned: the work
//!   per event stays the same from 100 to 10 000 associations.
//!
//! The server B listens on port 6000 at 10.9.0.1; clients are scripted
//! packet by packet (common/script.rs) in virtual time.

mod common;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration;

use bytes::Bytes;
use common::script::{Out, Scripted, init, init_ack_cookie};
use common::*;
use msctp_proto::config::PrefixCap;
use msctp_proto::wire::{Chunk, DataChunk, ErrorCause};
use msctp_proto::{AssocId, CloseReason, Endpoint, EndpointConfig, Event, State, Time};

const PORT: u16 = 6000;

fn server() -> IpAddr {
    ip("10.9.0.1")
}

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

/// A scripted client: its address, port and the server's tag.
#[derive(Clone, Copy)]
struct Client {
    addr: IpAddr,
    port: u16,
    tag: u32,
    id: AssocId,
}

fn connect(s: &mut Scripted, addr: IpAddr, port: u16, peer_tag: u32) -> Client {
    let (id, tag, _) = s.handshake(addr, port, peer_tag, &[]);
    Client {
        addr,
        port,
        tag,
        id,
    }
}

/// The client sends one DATA chunk (TSN from 1000, as `init` says).
fn data(s: &mut Scripted, c: Client, tsn: u32) -> Vec<Out> {
    let chunk = Chunk::Data(DataChunk {
        tsn,
        stream_id: 0,
        ssn: (tsn - 1000) as u16,
        ppid: 0,
        unordered: false,
        begin: true,
        end: true,
        immediate: false,
        payload: Bytes::from_static(b"ping"),
    });
    s.inject(c.addr, c.port, c.tag, vec![chunk])
}

/// Every client answers the HEARTBEATs sent to it (its stack does, with
/// or without an application); returns the ABORTs seen, by destination.
fn answer_heartbeats(s: &mut Scripted, out: Vec<Out>, clients: &[Client]) -> Vec<Out> {
    let mut aborts = Vec::new();
    for o in out {
        match o.first() {
            Some(Chunk::Heartbeat { info }) => {
                if let Some(c) = clients.iter().find(|c| c.addr == o.dst) {
                    let ack = Chunk::HeartbeatAck { info: info.clone() };
                    let more = s.inject(c.addr, c.port, c.tag, vec![ack]);
                    aborts.extend(answer_heartbeats(s, more, clients));
                }
            }
            Some(Chunk::Abort { .. }) => aborts.push(o),
            _ => {}
        }
    }
    aborts
}

fn causes(o: &Out) -> Vec<ErrorCause> {
    match o.first() {
        Some(Chunk::Abort { causes, .. }) => causes.clone(),
        _ => Vec::new(),
    }
}

fn closed(s: &Scripted, id: AssocId) -> Option<CloseReason> {
    s.events.iter().find_map(|(x, e)| match e {
        Event::Closed { reason } if *x == id => Some(reason.clone()),
        _ => None,
    })
}

#[test]
fn an_idle_association_is_aborted_after_the_idle_timeout_heartbeats_or_not() {
    // B: idle timeout 60 s. Client I opens an association and sends
    // nothing (its stack answers every HEARTBEAT); client U sends a
    // message every 20 s.
    let cfg = EndpointConfig {
        idle_timeout: Some(secs(60)),
        ..EndpointConfig::new(PORT)
    };
    let mut s = Scripted::listener(cfg, server(), 1);
    let i = connect(&mut s, ip("198.51.100.1"), 5000, 0x100);
    let u = connect(&mut s, ip("198.51.100.2"), 5000, 0x200);
    let clients = [i, u];
    let mut aborts = Vec::new();
    let mut heartbeats_to_i = 0;
    let mut tsn = 1000;
    for step in 0..15 {
        let out = s.advance(secs(10));
        heartbeats_to_i += out
            .iter()
            .filter(|o| o.dst == i.addr && matches!(o.first(), Some(Chunk::Heartbeat { .. })))
            .count();
        for a in answer_heartbeats(&mut s, out, &clients) {
            aborts.push((s.now, a));
        }
        if step % 2 == 0 {
            data(&mut s, u, tsn);
            tsn += 1;
        }
    }
    // I: HEARTBEATs answered, then at 60 s an ABORT saying why.
    assert!(heartbeats_to_i > 0, "no HEARTBEAT was answered");
    assert_eq!(aborts.len(), 1, "{aborts:?}");
    let (at, abort) = &aborts[0];
    assert_eq!((abort.dst, abort.vtag()), (i.addr, 0x100));
    assert!(*at >= Time::from_millis(60_000) && *at <= Time::from_millis(70_000));
    assert!(
        matches!(&causes(abort)[..], [ErrorCause::UserInitiatedAbort { reason }]
            if String::from_utf8_lossy(reason).contains("idle")),
        "{abort:?}"
    );
    assert_eq!(closed(&s, i.id), Some(CloseReason::IdleTimeout));
    assert_eq!(s.ep.stats().idle_timeouts, 1);
    // U: kept, 150 s on.
    assert_eq!(closed(&s, u.id), None);
    assert_eq!(s.ep.association(u.id).unwrap().state(), State::Established);
    assert_eq!(s.ep.associations(), vec![u.id]);
}

#[test]
fn a_full_table_reclaims_the_association_idle_the_longest() {
    // B holds 3 associations at most and reclaims one idle for 30 s.
    let cfg = EndpointConfig {
        max_associations: 3,
        reclaim_idle_after: Some(secs(30)),
        ..EndpointConfig::new(PORT)
    };
    let mut s = Scripted::listener(cfg, server(), 2);
    let mut clients = Vec::new();
    // C1 at 0 s, C2 at 10 s, C3 at 20 s; C1 sends a message at 25 s.
    for k in 0..3u8 {
        if k > 0 {
            let out = s.advance(secs(10));
            answer_heartbeats(&mut s, out, &clients);
        }
        let addr = IpAddr::from([198, 51, 100, 1 + k]);
        clients.push(connect(&mut s, addr, 5000, 0x100 * (1 + u32::from(k))));
    }
    let out = s.advance(secs(5));
    answer_heartbeats(&mut s, out, &clients);
    data(&mut s, clients[0], 1000);
    let out = s.advance(secs(5));
    answer_heartbeats(&mut s, out, &clients);
    // 30 s: full, C2 idle for 20 s only: C4's INIT is refused.
    let c4 = ip("198.51.100.44");
    let out = s.inject(c4, 5000, 0, vec![init(0x400, &[])]);
    assert!(
        matches!(&out[..], [o] if o.vtag() == 0x400 && causes(o) == [ErrorCause::OutOfResource]),
        "{out:?}"
    );
    assert_eq!(s.ep.stats().association_limit_refusals, 1);
    // 45 s: C2 idle for 35 s (its HEARTBEATs answered all along): C4 gets
    // in, C2 is aborted with Out of Resource; C1 (active at 25 s) and C3
    // stay.
    let out = s.advance(secs(15));
    answer_heartbeats(&mut s, out, &clients);
    let out = s.inject(c4, 5000, 0, vec![init(0x400, &[])]);
    let (tag, cookie) = init_ack_cookie(&out).expect("an INIT ACK");
    let out = s.inject(c4, 5000, tag, vec![Chunk::CookieEcho { cookie }]);
    let abort = out
        .iter()
        .find(|o| matches!(o.first(), Some(Chunk::Abort { .. })));
    let abort = abort.expect("an ABORT to the reclaimed association");
    assert_eq!((abort.dst, abort.vtag()), (clients[1].addr, 0x200));
    assert_eq!(causes(abort), [ErrorCause::OutOfResource]);
    assert!(
        out.iter()
            .any(|o| o.dst == c4 && matches!(o.first(), Some(Chunk::CookieAck)))
    );
    assert_eq!(closed(&s, clients[1].id), Some(CloseReason::Reclaimed));
    assert_eq!(s.ep.stats().reclaimed, 1);
    s.poll();
    let live: Vec<AssocId> = s.ep.associations();
    assert_eq!(live.len(), 3);
    assert!(live.contains(&clients[0].id) && live.contains(&clients[2].id));
    // Without reclaiming, a full table refuses the cookie (as before).
    let cfg = EndpointConfig {
        max_associations: 1,
        reclaim_idle_after: None,
        ..EndpointConfig::new(PORT)
    };
    let mut s = Scripted::listener(cfg, server(), 3);
    let c1 = connect(&mut s, ip("198.51.100.1"), 5000, 0x100);
    let out = s.advance(secs(100));
    answer_heartbeats(&mut s, out, &[c1]);
    let out = s.inject(c4, 5000, 0, vec![init(0x400, &[])]);
    assert!(
        matches!(&out[..], [o] if causes(o) == [ErrorCause::OutOfResource]),
        "{out:?}"
    );
}

/// Handshakes `n` associations from `addr` (ports 10 000 on); how many
/// were created.
fn flood(s: &mut Scripted, addr: IpAddr, n: u16, tag_base: u32) -> usize {
    let mut created = 0;
    for k in 0..n {
        let tag = tag_base + u32::from(k);
        let out = s.inject(addr, 10_000 + k, 0, vec![init(tag, &[])]);
        if let Some((t, cookie)) = init_ack_cookie(&out) {
            let out = s.inject(addr, 10_000 + k, t, vec![Chunk::CookieEcho { cookie }]);
            created += usize::from(
                out.iter()
                    .any(|o| matches!(o.first(), Some(Chunk::CookieAck))),
            );
        }
    }
    created
}

#[test]
fn many_addresses_of_one_prefix_cannot_fill_the_table() {
    // Issue 31: 17 IPv4 addresses of one /24, 64 handshakes each (the
    // per-address cap), filled all 1 024 slots. Default caps: 256 per /24.
    let mut s = Scripted::listener(EndpointConfig::new(PORT), server(), 4);
    let mut created = 0;
    for a in 1..=17u8 {
        created += flood(
            &mut s,
            IpAddr::from([203, 0, 113, a]),
            64,
            u32::from(a) << 16,
        );
    }
    assert_eq!(created, 256);
    assert_eq!(s.ep.stats().source_limit_refusals, 17 * 64 - 256);
    // Another /24 still gets in.
    assert_eq!(flood(&mut s, ip("203.0.114.1"), 1, 0xff_0000), 1);

    // Sixteen /64s of one /56 (64 each) filled the table too: 256 per
    // /56, 512 per /48.
    let mut s = Scripted::listener(EndpointConfig::new(PORT), ip("2001:db8:ffff::1"), 5);
    let v6 = |slash56: u16, slash64: u16| {
        IpAddr::V6(Ipv6Addr::new(
            0x2001,
            0xdb8,
            1,
            (slash56 << 8) | slash64,
            0,
            0,
            0,
            1,
        ))
    };
    let mut per56 = [0; 3];
    for (k, n) in per56.iter_mut().enumerate() {
        for m in 0..16u16 {
            *n += flood(
                &mut s,
                v6(k as u16, m),
                64,
                (k as u32) << 24 | u32::from(m) << 16 | 1,
            );
        }
    }
    assert_eq!(per56, [256, 256, 0], "the /48 holds 512");
    assert_eq!(s.ep.associations().len(), 512);
}

#[test]
fn prefix_caps_are_configurable_and_checked() {
    let mut cfg = EndpointConfig::new(PORT);
    cfg.prefix_caps = vec![PrefixCap {
        ipv6: false,
        prefix_len: 16,
        max: 3,
    }];
    let mut s = Scripted::listener(cfg.clone(), server(), 6);
    let mut created = 0;
    for a in 0..5u8 {
        created += flood(&mut s, IpAddr::from([192, 0, a, 1]), 1, u32::from(a) + 1);
    }
    assert_eq!(created, 3);
    cfg.prefix_caps[0].prefix_len = 33;
    assert_eq!(cfg.validate().unwrap_err().field, "prefix_caps");
    cfg.prefix_caps = vec![PrefixCap {
        ipv6: true,
        prefix_len: 48,
        max: 0,
    }];
    assert_eq!(cfg.validate().unwrap_err().field, "prefix_caps");
    cfg.prefix_caps = Vec::new();
    cfg.idle_timeout = Some(Duration::ZERO);
    assert_eq!(cfg.validate().unwrap_err().field, "idle_timeout");
}

#[test]
fn a_refused_client_learns_out_of_resource() {
    // B is full (one slot, held by another client, no reclaiming); A's
    // connect ends with the ABORT's cause.
    let cfg = EndpointConfig {
        max_associations: 1,
        reclaim_idle_after: None,
        ..EndpointConfig::new(PORT)
    };
    let mut b = Scripted::listener(cfg, server(), 7);
    connect(&mut b, ip("198.51.100.1"), 5000, 0x100);
    let client = ip("10.1.0.2");
    let mut a = Endpoint::new(EndpointConfig::new(5000), [8; 32]).unwrap();
    a.set_local_addresses(&[client]);
    let id = a.connect(Time::ZERO, &[server()], PORT).unwrap();
    // A's INIT to B, B's answer to A.
    let now = Time::ZERO;
    while let Some(t) = a.poll_transmit(now) {
        b.ep.handle_datagram(now, client, server(), Bytes::from(t.payload));
        while let Some(r) = b.ep.poll_transmit(now) {
            a.handle_datagram(now, server(), client, Bytes::from(r.payload));
        }
    }
    let mut reason = None;
    while let Some((x, e)) = a.poll_event() {
        if let (true, Event::Closed { reason: r }) = (x == id, e) {
            reason = Some(r);
        }
    }
    assert_eq!(
        reason,
        Some(CloseReason::Refused {
            causes: vec![ErrorCause::OutOfResource]
        })
    );
}

/// `n` idle associations on one endpoint, then 200 DATA packets to some
/// of them and 40 s of timers (every association's HEARTBEATs): the
/// endpoint's calls into associations per packet and per timer.
fn visits_per_event(n: u32) -> (f64, f64) {
    let cfg = EndpointConfig {
        max_associations: 20_000,
        max_associations_per_source: 20_000,
        prefix_caps: Vec::new(),
        ..EndpointConfig::new(PORT)
    };
    let mut s = Scripted::listener(cfg, server(), 9);
    // Set up over 10 s, so that their timers are spread out.
    let clients: Vec<Client> = (0..n)
        .map(|k| {
            s.now = Time::from_micros(u64::from(k) * 10_000_000 / u64::from(n));
            let addr = IpAddr::V4(Ipv4Addr::from(0x0a64_0000 + k));
            connect(&mut s, addr, 5000, k + 1)
        })
        .collect();
    s.advance(Duration::from_millis(500));
    let v0 = s.ep.association_visits();
    for k in 0..200u32 {
        // 3 ms apart: each packet's timers (its SACK) of their own.
        s.now += Duration::from_millis(3);
        let c = clients[(k as usize * 7919) % clients.len()];
        data(&mut s, c, 1000 + k / n.min(200));
    }
    let per_packet = (s.ep.association_visits() - v0) as f64 / 200.0;
    // Timers: every HEARTBEAT, SACK and retransmission in 40 s.
    let (v0, mut fired) = (s.ep.association_visits(), 0u64);
    let end = s.now + secs(40);
    while let Some(t) = s.ep.poll_timeout().filter(|t| *t <= end) {
        s.now = t.max(s.now);
        s.ep.handle_timeout(s.now);
        fired += 1;
        s.poll();
    }
    assert!(
        fired > u64::from(n),
        "{fired} timer events for {n} associations"
    );
    let per_timer = (s.ep.association_visits() - v0) as f64 / fired as f64;
    (per_packet, per_timer)
}

#[test]
fn timers_and_output_visit_only_the_associations_concerned() {
    let (p100, t100) = visits_per_event(100);
    let (p10k, t10k) = visits_per_event(10_000);
    eprintln!("visits per packet {p100} / {p10k}, per timer event {t100} / {t10k}");
    // Each packet: the association's handling and one poll for output (a
    // second when it sends); each timer event: the associations due (now
    // and then two at once), their output. The same bound with 100 times
    // the associations; a walk over all of them would cost 100 and 10 000.
    assert!(p100 <= 4.0 && p10k <= 4.0, "{p100} {p10k}");
    assert!(t100 <= 8.0 && t10k <= 8.0, "{t100} {t10k}");
    assert!(p10k <= 1.5 * p100 && t10k <= 1.5 * t100);
}
