//! Resource bounds under floods (tests named `flood_*`): the memory the
//! engine holds is measured with a counting allocator (bytes live on the
//! test's thread) and must stay within the configured bounds.
//! - 1e6 INITs from distinct sources leave a listening endpoint's memory
//!   flat: the state lives in the cookies (RFC 9260 section 5.1.3);
//! - a COOKIE ECHO flood stops at the configured association limit, each
//!   refusal counted;
//! - a receiver fed DATA with huge TSN gaps, and tiny chunks, holds at
//!   most about its receive window;
//! - a sender facing a zero-window peer holds at most its send buffer.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use bytes::Bytes;
use common::*;
use msctp_proto::wire::{Chunk, CommonHeader, DataChunk, InitChunk, PacketRepr, crc};
use msctp_proto::{AssociationConfig, Endpoint, EndpointConfig, Time};

/// Counts the bytes allocated and not yet freed, per thread (each test
/// runs on its own thread, so parallel tests do not disturb each other).
struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let _ = LIVE.try_with(|c| c.set(c.get() + l.size() as isize));
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        let _ = LIVE.try_with(|c| c.set(c.get() - l.size() as isize));
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let _ = LIVE.try_with(|c| c.set(c.get() + new as isize - l.size() as isize));
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn live() -> isize {
    LIVE.with(|c| c.get())
}

const LOCAL: &str = "198.51.100.1";

fn listener(max_associations: usize) -> Endpoint {
    let mut cfg = EndpointConfig::new(6000);
    cfg.listen = true;
    cfg.max_associations = max_associations;
    let mut ep = Endpoint::new(cfg, [9; 32]).unwrap();
    ep.set_local_addresses(&[ip(LOCAL)]);
    ep
}

/// Source number `i`: distinct unicast IPv4 addresses from 100.64.0.1 on.
fn source(i: u32) -> IpAddr {
    IpAddr::V4(Ipv4Addr::from(0x6440_0001 + i))
}

/// An INIT with AUTH and ADD-IP parameters, as msctp's own.
fn init_packet(tag: u32) -> Vec<u8> {
    let cfg = AssociationConfig::default();
    let auth = msctp_proto::association::local_auth_params(&cfg, &[1; 32]);
    PacketRepr {
        header: CommonHeader {
            src_port: 5000,
            dst_port: 6000,
            verification_tag: 0,
        },
        chunks: vec![Chunk::Init(InitChunk {
            initiate_tag: tag,
            a_rwnd: 1 << 20,
            outbound_streams: 10,
            inbound_streams: 10,
            initial_tsn: 1,
            params: msctp_proto::association::local_params(&cfg, &[], Some(&auth), false),
        })],
    }
    .emit()
}

#[test]
fn flood_of_a_million_inits_from_distinct_sources_leaves_the_listener_flat() {
    let mut ep = listener(1024);
    let mut pkt = init_packet(1);
    let mut send = |ep: &mut Endpoint, i: u32| {
        pkt[16..20].copy_from_slice(&(i + 1).to_be_bytes());
        crc::fill(&mut pkt);
        let now = Time::from_millis(u64::from(i / 1000));
        ep.handle_datagram(now, source(i), ip(LOCAL), Bytes::copy_from_slice(&pkt));
        while ep.poll_transmit(now).is_some() {}
    };
    for i in 0..1000 {
        send(&mut ep, i);
    }
    let base = live();
    for i in 1000..1_000_000 {
        send(&mut ep, i);
    }
    let grown = live() - base;
    assert_eq!(ep.stats().inits_answered, 1_000_000);
    assert!(ep.associations().is_empty(), "an INIT created state");
    assert!(
        grown < 16 * 1024,
        "{grown} bytes more after 999 000 more INITs"
    );
}

#[test]
fn flood_of_cookie_echoes_stops_at_the_association_limit() {
    const LIMIT: usize = 50;
    const N: u32 = 400;
    let mut ep = listener(LIMIT);
    let now = Time::ZERO;
    // Every source gets its cookie while no association exists yet ...
    let mut cookies = Vec::new();
    for i in 0..N {
        let pkt = init_packet(1000 + i);
        ep.handle_datagram(now, source(i), ip(LOCAL), Bytes::from(pkt));
        let t = ep.poll_transmit(now).expect("an INIT ACK");
        let r = PacketRepr::parse(&Bytes::from(t.payload)).unwrap();
        let Chunk::InitAck(ack) = &r.chunks[0] else {
            panic!("not an INIT ACK")
        };
        let cookie = ack.state_cookie().cloned().unwrap();
        cookies.push((ack.initiate_tag, cookie));
    }
    // ... then all echo them at once.
    let before = live();
    for (i, (tag, cookie)) in cookies.into_iter().enumerate() {
        let pkt = PacketRepr {
            header: CommonHeader {
                src_port: 5000,
                dst_port: 6000,
                verification_tag: tag,
            },
            chunks: vec![Chunk::CookieEcho { cookie }],
        }
        .emit();
        ep.handle_datagram(now, source(i as u32), ip(LOCAL), Bytes::from(pkt));
        while ep.poll_transmit(now).is_some() {}
    }
    while ep.poll_event().is_some() {}
    assert_eq!(ep.associations().len(), LIMIT);
    assert_eq!(ep.stats().associations_created, LIMIT as u64);
    assert_eq!(
        ep.stats().association_limit_refusals,
        u64::from(N) - LIMIT as u64,
        "refusals counted"
    );
    let per_assoc = (live() - before) / LIMIT as isize;
    assert!(per_assoc < 64 * 1024, "{per_assoc} bytes per association");
}

/// A established with B; B's receive window is `window`.
fn pair(window: u32, send_buffer: usize) -> (Net, msctp_proto::AssocId, msctp_proto::AssocId) {
    let mut ca = EndpointConfig::new(5000);
    ca.association.send_buffer = send_buffer;
    let mut cb = EndpointConfig::new(6000);
    cb.association.receive_window = window;
    let mut n = Net::new(
        ca,
        &[ip("10.1.0.2")],
        cb,
        &[ip("10.9.0.1")],
        Link::new(Duration::from_millis(5)),
        5,
    );
    n.record = false;
    let (a, b) = n.connect(Duration::from_secs(2));
    (n, a, b)
}

#[test]
fn flood_of_data_with_huge_tsn_gaps_keeps_the_receiver_within_its_window() {
    // B never reads. An attacker with the tag sends 1-byte DATA chunks,
    // one per 1400-byte datagram, with TSNs spread up to 2^21 ahead, then
    // fills the holes (fragments that never complete, and whole messages
    // out of order; the first TSN never comes): what B holds stays within
    // about twice its window.
    const WINDOW: u32 = 64 * 1024;
    let (mut n, _a, b) = pair(WINDOW, 1 << 20);
    let x = n.b.association(b).unwrap();
    let (tag, cum) = (x.local_tag(), x.cumulative_tsn_received());
    let base = live();
    let now = n.now;
    for k in 0..200_000u32 {
        // First every other TSN up to 2^20 ahead, then the holes in
        // between from the bottom (data filling holes is taken beyond
        // the window, but not without bound).
        let tsn = if k < 100_000 {
            cum.wrapping_add(2 + 20 * k)
        } else {
            cum.wrapping_add(3 + (k - 100_000))
        };
        let data = Chunk::Data(DataChunk {
            tsn,
            stream_id: (k % 4) as u16,
            ssn: k as u16,
            ppid: 0,
            unordered: k % 3 == 0,
            begin: k % 2 == 0,
            end: k % 5 == 0,
            immediate: false,
            payload: Bytes::from_static(b"x"),
        });
        let pad = Chunk::Unknown {
            chunk_type: 0x7f,
            flags: 0,
            value: Bytes::from(vec![0; 1380]),
        };
        let pkt = PacketRepr {
            header: CommonHeader {
                src_port: 5000,
                dst_port: 6000,
                verification_tag: tag,
            },
            chunks: vec![data, pad],
        }
        .emit();
        n.b.handle_datagram(now, ip("10.1.0.2"), ip("10.9.0.1"), Bytes::from(pkt));
        while n.b.poll_transmit(now).is_some() {}
    }
    let held = live() - base;
    let x = n.b.association(b).unwrap();
    assert!(x.stats().data_dropped_no_buffer > 0, "drops counted");
    assert!(
        held < 3 * WINDOW as isize,
        "B holds {held} bytes for a {WINDOW}-byte window"
    );
}

#[test]
fn flood_sender_facing_a_zero_window_peer_stays_within_its_send_buffer() {
    const BUF: usize = 256 * 1024;
    let (mut n, a, _b) = pair(4 * 1024, BUF);
    let base = live();
    let mut refused = 0;
    for round in 0..600 {
        for _ in 0..8 {
            let r = n.a.association_mut(a).unwrap().send(
                0,
                0,
                Bytes::from(vec![round as u8; 1200]),
                false,
            );
            if r.is_err() {
                refused += 1;
            }
        }
        n.run_for(Duration::from_millis(500));
    }
    let held = live() - base;
    let x = n.a.association(a).unwrap();
    assert!(refused > 0);
    assert!(x.send_buffered() <= BUF);
    assert!(x.state().is_established());
    assert!(x.stats().zero_window_probes > 0);
    assert!(
        held < 2 * BUF as isize + 256 * 1024,
        "A holds {held} bytes for a {BUF}-byte send buffer"
    );
}
