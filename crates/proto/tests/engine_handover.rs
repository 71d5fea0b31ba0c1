//! mSCTP handovers between two engines (docs/MODELS.md 1.2 and 1.4): soft
//! handover of a dual-homed mobile, and the single-homed move where the
//! ASCONF comes from the new address.

mod common;

use std::net::IpAddr;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use common::*;
use msctp_proto::asconf::LocalAddrState;
use msctp_proto::policy::{self, HandoverPolicy, LinkEvent, NewestAddress};
use msctp_proto::wire::chunk::chunk_type;
use msctp_proto::wire::{Chunk, PacketRepr, Param};
use msctp_proto::{AssocId, AssociationConfig, EndpointConfig, Event, Time};

const MN1: &str = "10.1.0.2";
const MN2: &str = "10.2.0.2";
const CN: &str = "10.9.0.1";
const MSG: usize = 4000;

fn config(port: u16, receive_window: u32) -> EndpointConfig {
    let mut c = EndpointConfig::new(port);
    c.association = AssociationConfig {
        rto_min: Duration::from_millis(200),
        rto_initial: Duration::from_millis(500),
        receive_window,
        ..Default::default()
    };
    c
}

/// A mobile (side A) that owns MN1 and MN2 at the IP level but starts its
/// association with MN1 only, and a correspondent (side B) with one address.
fn network(seed: u64) -> Net {
    let (m1, m2, cn) = (ip(MN1), ip(MN2), ip(CN));
    // Receive windows (128 kB at the mobile, 64 kB at the correspondent)
    // bound what each direction can queue: far below the 1000-packet link
    // queues, so congestion cannot drop anything (every loss or
    // retransmission would be the handover's), and queueing delay stays
    // near 200 ms at most.
    let mut n = Net::new(
        config(5000, 128 * 1024),
        &[m1, m2],
        config(6000, 64 * 1024),
        &[cn],
        Link::new(Duration::from_millis(10)),
        seed,
    );
    n.a.set_local_addresses(&[m1]);
    n.set_path(
        m1,
        cn,
        Link::new(Duration::from_millis(20)).rate(5_000_000, 1000),
    );
    n.set_path(
        m2,
        cn,
        Link::new(Duration::from_millis(10)).rate(5_000_000, 1000),
    );
    n.tick = Some(Duration::from_millis(1));
    n
}

/// A mobile that owns MN1, MN2 and 10.3.0.2 (MN3) at the IP level and a
/// correspondent with one address; each test says which addresses the
/// mobile's endpoint uses and over which links.
fn three_address_mobile(seed: u64) -> Net {
    let (m1, m2, m3, cn) = (ip(MN1), ip(MN2), ip("10.3.0.2"), ip(CN));
    Net::new(
        config(5000, 128 * 1024),
        &[m1, m2, m3],
        config(6000, 64 * 1024),
        &[cn],
        Link::new(Duration::from_millis(10)),
        seed,
    )
}

/// Both ends keep their send buffers full of a known byte stream (greedy,
/// both directions) and read everything.
struct Bulk {
    sent_a: usize,
    sent_b: usize,
    got_a: BytesMut,
    got_b: BytesMut,
    stop_at: Time,
}

impl Bulk {
    fn new(stop_at: Time) -> Self {
        Bulk {
            sent_a: 0,
            sent_b: 0,
            got_a: BytesMut::new(),
            got_b: BytesMut::new(),
            stop_at,
        }
    }

    fn step(&mut self, n: &mut Net, a: AssocId, b: AssocId) {
        let now = n.now;
        if let Some(x) = n.a.association_mut(a) {
            while now < self.stop_at && x.send_capacity() >= MSG {
                x.send(0, 0, Bytes::from(pattern(self.sent_a, MSG)), false)
                    .unwrap();
                self.sent_a += MSG;
            }
            while let Some(m) = x.recv() {
                self.got_a.extend_from_slice(&m.data);
            }
        }
        if let Some(x) = n.b.association_mut(b) {
            while now < self.stop_at && x.send_capacity() >= MSG {
                x.send(0, 0, Bytes::from(pattern(self.sent_b, MSG)), false)
                    .unwrap();
                self.sent_b += MSG;
            }
            while let Some(m) = x.recv() {
                self.got_b.extend_from_slice(&m.data);
            }
        }
    }

    fn check_complete(&self) {
        assert_eq!(self.got_b.len(), self.sent_a, "uplink bytes");
        assert_eq!(self.got_a.len(), self.sent_b, "downlink bytes");
        assert!(
            self.got_b[..] == pattern(0, self.sent_a)[..],
            "uplink data corrupted"
        );
        assert!(
            self.got_a[..] == pattern(0, self.sent_b)[..],
            "downlink data corrupted"
        );
    }
}

fn parse(s: &Seen) -> PacketRepr {
    PacketRepr::parse(&s.bytes).expect("valid packet")
}

fn has(s: &Seen, t: u8) -> bool {
    s.chunks.contains(&t)
}

/// Did B send an ABORT at or after `since`?
fn b_aborted_since(n: &Net, since: Time) -> bool {
    n.seen
        .iter()
        .any(|s| s.from == Side::B && s.time >= since && has(s, chunk_type::ABORT))
}

/// A's link-layer event `ev` through `policy`, its decisions carried out.
fn feed(n: &mut Net, a: AssocId, policy: &mut NewestAddress, ev: LinkEvent) {
    let now = n.now;
    let x = n.a.association_mut(a).unwrap();
    let d = policy.on_link_event(now, &ev, x);
    for r in policy::apply(x, &d) {
        r.unwrap();
    }
}

/// Runs the soft handover script; `sfr` turns split fast retransmit on at
/// both ends.
fn soft_handover(sfr: bool) -> (Net, AssocId, AssocId) {
    let (m1, m2, cn) = (ip(MN1), ip(MN2), ip(CN));
    let mut n = network(21);
    let (a, b) = n.connect(Duration::from_secs(2));
    n.a.association_mut(a)
        .unwrap()
        .set_split_fast_retransmit(sfr);
    n.b.association_mut(b)
        .unwrap()
        .set_split_fast_retransmit(sfr);
    let mut bulk = Bulk::new(Time::from_secs(12));
    // The handover script: Add-IP at 3 s; Set-Primary once the address is
    // acknowledged; Delete-IP one second after the peer took the new
    // primary; the old link dies half a second after the deletion.
    let mut stage = 0;
    let mut t_cut = None;
    n.run_with(Time::from_secs(16), &mut |n| {
        bulk.step(n, a, b);
        let now = n.now;
        match stage {
            0 if now >= Time::from_secs(3) => {
                n.a.association_mut(a)
                    .unwrap()
                    .add_local_address(m2)
                    .unwrap();
                stage = 1;
            }
            1 if n
                .events_a
                .iter()
                .any(|e| e.2 == Event::LocalAddressAdded { addr: m2 }) =>
            {
                let x = n.a.association_mut(a).unwrap();
                x.request_peer_primary(m2).unwrap();
                x.set_local_primary(Some(m2)).unwrap();
                stage = 2;
            }
            2 if n.events_a.iter().any(|e| {
                e.2 == Event::PeerPrimaryRequest {
                    addr: m2,
                    accepted: true,
                }
            }) =>
            {
                stage = 3;
                t_cut = Some(now + Duration::from_secs(1));
            }
            3 if t_cut.is_some_and(|t| now >= t) => {
                n.a.association_mut(a)
                    .unwrap()
                    .remove_local_address(m1)
                    .unwrap();
                stage = 4;
            }
            4 if n
                .events_a
                .iter()
                .any(|e| e.2 == Event::LocalAddressRemoved { addr: m1 }) =>
            {
                t_cut = Some(now + Duration::from_millis(500));
                stage = 5;
            }
            5 if t_cut.is_some_and(|t| now >= t) => {
                n.set_up(m1, cn, false);
                stage = 6;
            }
            _ => {}
        }
    });
    assert_eq!(stage, 6, "handover script did not complete");
    bulk.check_complete();
    assert!(
        bulk.sent_a > 2_000_000 && bulk.sent_b > 4_000_000,
        "traffic flowed both ways: {} {}",
        bulk.sent_a,
        bulk.sent_b
    );
    (n, a, b)
}

#[test]
fn soft_handover_is_seamless_and_signalled_inside_data_packets() {
    let (m1, m2) = (ip(MN1), ip(MN2));
    let (n, a, b) = soft_handover(true);

    // Zero loss: no packet was dropped, nothing timed out, and with split
    // fast retransmit nothing was retransmitted either.
    assert_eq!(
        n.seen.iter().filter(|s| s.dropped).count(),
        0,
        "packets lost"
    );
    let (sa, sb) = (
        n.a.association(a).unwrap().stats(),
        n.b.association(b).unwrap().stats(),
    );
    assert_eq!((sa.t3_expirations, sb.t3_expirations), (0, 0));
    assert_eq!((sa.retransmitted_chunks, sb.retransmitted_chunks), (0, 0));

    // Three ASCONFs, each bundled in front of DATA; each answered by an
    // ASCONF-ACK bundled with a SACK.
    let asconfs: Vec<&Seen> = n
        .seen
        .iter()
        .filter(|s| s.from == Side::A && has(s, chunk_type::ASCONF))
        .collect();
    assert_eq!(asconfs.len(), 3, "one ASCONF per step, none retransmitted");
    for s in &asconfs {
        let kinds = &s.chunks;
        let pos = kinds.iter().position(|&c| c == chunk_type::ASCONF).unwrap();
        assert_eq!(kinds[0], chunk_type::AUTH, "ASCONF is authenticated");
        assert!(
            kinds[pos + 1..].contains(&chunk_type::DATA),
            "ASCONF without DATA behind it: {kinds:?}"
        );
    }
    let acks: Vec<&Seen> = n
        .seen
        .iter()
        .filter(|s| s.from == Side::B && has(s, chunk_type::ASCONF_ACK))
        .collect();
    assert_eq!(acks.len(), 3);
    for s in &acks {
        assert!(
            has(s, chunk_type::SACK),
            "ASCONF-ACK without SACK: {:?}",
            s.chunks
        );
    }

    // The correspondent sends new data to MN2 only after acknowledging
    // the Set Primary request (the second ASCONF).
    let set_primary_ack = acks[1].time;
    let first_data_to_m2 = n
        .seen
        .iter()
        .find(|s| s.from == Side::B && s.dst == m2 && has(s, chunk_type::DATA))
        .unwrap()
        .time;
    assert!(
        first_data_to_m2 >= set_primary_ack,
        "data to MN2 at {first_data_to_m2} before the ACK at {set_primary_ack}"
    );

    // Handoff delay zero: arrivals on the new address start before the
    // last arrival on the old one (the paths overlap).
    let arrivals = |addr: IpAddr| {
        n.seen.iter().filter(move |s| {
            s.from == Side::B && s.dst == addr && !s.dropped && has(s, chunk_type::DATA)
        })
    };
    // Arrival = send time + propagation (queueing only delays old-path
    // packets further, which favours overlap; this bound is conservative).
    let last_old = arrivals(m1)
        .map(|s| s.time + Duration::from_millis(20))
        .max()
        .unwrap();
    let first_new = arrivals(m2)
        .map(|s| s.time + Duration::from_millis(10))
        .min()
        .unwrap();
    assert!(
        first_new <= last_old,
        "gap between old ({last_old}) and new ({first_new}) arrivals"
    );

    // The association now lives on MN2 alone.
    let locals: Vec<IpAddr> =
        n.a.association(a)
            .unwrap()
            .local_addresses()
            .iter()
            .map(|l| l.addr)
            .collect();
    assert_eq!(locals, vec![m2]);
    let peer_paths: Vec<IpAddr> =
        n.b.association(b)
            .unwrap()
            .paths()
            .iter()
            .map(|p| p.remote)
            .collect();
    assert_eq!(peer_paths, vec![m2]);
}

/// Without split fast retransmit (plain RFC 9260), moving the primary to a
/// path with a shorter delay makes new data overtake data still queued on
/// the old path; the receiver's gap reports trigger fast retransmissions
/// of chunks that were never lost (study E2, `experiments/e2-up.toml`).
#[test]
fn primary_change_to_a_faster_path_causes_spurious_fast_retransmits_without_sfr() {
    let (n, _a, b) = soft_handover(false);
    assert_eq!(
        n.seen.iter().filter(|s| s.dropped).count(),
        0,
        "nothing was lost"
    );
    let sb = n.b.association(b).unwrap().stats();
    assert!(
        sb.retransmitted_chunks > 0,
        "reordering at the primary change"
    );
    assert_eq!(sb.t3_expirations, 0);
}

/// The single-radio move of a mobile whose second interface (MN3) is dead:
/// MN3 is still one of its association's addresses. The path's source is
/// fixed to the new address (as the real driver's `pair_paths` fixes it
/// to the address on the peer's subnet), so the ASCONF leaves from the new
/// address, not from MN3: the ASCONF-ACK goes back to the ASCONF's source
/// (RFC 5061 section 5.2), and from MN3 it would never have come back.
///
/// ```text
///   MN (m1, m3 dead)                      CN
///   |-- DATA ... (m1) ------------------->|
///   x m1 lost (no Delete IP from m3)      |
///   | m2 obtained                         |
///   |-- ASCONF Add m2, Delete m1,         |
///   |   Set-Primary m2 (from m2) -------->|
///   |<------------ ASCONF-ACK (to m2) ----|
///   |-- DATA (m2) ----------------------->|
/// ```
#[test]
fn single_radio_move_beside_a_dead_interface_sends_its_asconf_from_the_new_address() {
    let (m1, m2, m3, cn) = (ip(MN1), ip(MN2), ip("10.3.0.2"), ip(CN));
    let mut n = three_address_mobile(23);
    n.a.set_local_addresses(&[m1, m3]);
    for m in [m1, m2, m3] {
        n.set_path(
            m,
            cn,
            Link::new(Duration::from_millis(10)).rate(5_000_000, 1000),
        );
    }
    n.set_up(m3, cn, false);
    n.tick = Some(Duration::from_millis(1));
    let (a, b) = n.connect(Duration::from_secs(2));
    let mut policy = NewestAddress::default();
    for ev in [
        LinkEvent::LinkUp { iface: 1 },
        LinkEvent::AddressObtained { iface: 1, addr: m1 },
        LinkEvent::AddressObtained { iface: 3, addr: m3 },
        LinkEvent::LinkDown { iface: 3 },
    ] {
        feed(&mut n, a, &mut policy, ev);
    }
    let mut bulk = Bulk::new(Time::from_secs(8));
    let mut stage = 0;
    n.run_with(Time::from_secs(14), &mut |n| {
        bulk.step(n, a, b);
        let now = n.now;
        if stage == 0 && now >= Time::from_secs(3) {
            n.set_up(m1, cn, false);
            feed(
                n,
                a,
                &mut policy,
                LinkEvent::AddressLost { iface: 1, addr: m1 },
            );
            stage = 1;
        } else if stage == 1 && now >= Time::from_millis(3300) {
            feed(
                n,
                a,
                &mut policy,
                LinkEvent::AddressObtained { iface: 2, addr: m2 },
            );
            n.a.association_mut(a)
                .unwrap()
                .set_path_source(cn, Some(m2))
                .unwrap();
            stage = 2;
        }
    });
    assert_eq!(stage, 2);
    bulk.check_complete();
    let from_m3_after_loss = n
        .seen
        .iter()
        .filter(|s| s.from == Side::A && s.src == m3 && s.time >= Time::from_secs(3))
        .count();
    assert_eq!(
        from_m3_after_loss, 0,
        "nothing left from the dead interface"
    );
    let first = n
        .seen
        .iter()
        .find(|s| s.from == Side::A && s.src == m2)
        .expect("the new address was used");
    assert!(
        has(first, chunk_type::ASCONF),
        "its first packet is the ASCONF"
    );
    let ack = n
        .seen
        .iter()
        .find(|s| s.from == Side::B && has(s, chunk_type::ASCONF_ACK))
        .expect("the ASCONF was acknowledged");
    assert_eq!(ack.dst, m2, "the ASCONF-ACK went to the new address");
    let x = n.a.association(a).unwrap();
    let locals: Vec<(IpAddr, LocalAddrState)> = x
        .local_addresses()
        .iter()
        .map(|l| (l.addr, l.state))
        .collect();
    assert!(
        locals.contains(&(m2, LocalAddrState::Available)),
        "{locals:?}"
    );
    assert!(!locals.iter().any(|(l, _)| *l == m1), "{locals:?}");
}

#[test]
fn single_homed_move_sends_asconf_from_the_new_address() {
    let (m1, m2, cn) = (ip(MN1), ip(MN2), ip(CN));
    let mut n = network(22);
    let (a, b) = n.connect(Duration::from_secs(2));
    let mut bulk = Bulk::new(Time::from_secs(8));
    let mut policy = NewestAddress::default();
    let mut stage = 0;
    let lost_at = Time::from_secs(3);
    let obtained_at = Time::from_millis(3300);
    n.run_with(Time::from_secs(14), &mut |n| {
        bulk.step(n, a, b);
        let now = n.now;
        if stage == 0 && now >= lost_at {
            // The mobile leaves cell 1: its only address is gone.
            n.set_up(m1, cn, false);
            feed(
                n,
                a,
                &mut policy,
                LinkEvent::AddressLost { iface: 1, addr: m1 },
            );
            stage = 1;
        } else if stage == 1 && now >= obtained_at {
            feed(
                n,
                a,
                &mut policy,
                LinkEvent::AddressObtained { iface: 2, addr: m2 },
            );
            stage = 2;
        }
    });
    assert_eq!(stage, 2);
    bulk.check_complete();

    // The first packet from the new address carries the ASCONF: Add(new),
    // Set-Primary(new), located by the old address; the Delete(old) waits
    // for the next ASCONF (an ASCONF never deletes its own Address
    // Parameter, see `a_second_move_before_the_asconf_ack_loses_nothing`).
    let first = n
        .seen
        .iter()
        .find(|s| s.from == Side::A && s.src == m2)
        .unwrap();
    let pkt = parse(first);
    let asconf = pkt
        .chunks
        .iter()
        .find_map(|c| {
            if let Chunk::Asconf(x) = c {
                Some(x.clone())
            } else {
                None
            }
        })
        .expect("ASCONF first");
    assert_eq!(asconf.address, m1);
    let params: Vec<(&str, IpAddr)> = asconf
        .params
        .iter()
        .map(|p| match p {
            Param::AddIpAddress { address, .. } => ("add", *address),
            Param::DeleteIpAddress { address, .. } => ("delete", *address),
            Param::SetPrimaryAddress { address, .. } => ("set-primary", *address),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(params, vec![("add", m2), ("set-primary", m2)]);
    let deletes: Vec<(IpAddr, Vec<Param>)> = chunks_sent(&n, Side::A, Time::ZERO)
        .into_iter()
        .filter_map(|c| match c {
            Chunk::Asconf(x) if x.serial != asconf.serial => Some((x.address, x.params)),
            _ => None,
        })
        .collect();
    assert!(
        matches!(&deletes[..], [(l, p)] if *l == m2 && matches!(p[..], [Param::DeleteIpAddress { address, .. }] if address == m1)),
        "then Delete(old), located by the new address: {deletes:?}"
    );
    // Nothing else left the new address before the ASCONF-ACK came back.
    let ack_time = n
        .seen
        .iter()
        .find(|s| s.from == Side::B && has(s, chunk_type::ASCONF_ACK))
        .unwrap()
        .time;
    let before_ack = n
        .seen
        .iter()
        .filter(|s| s.from == Side::A && s.src == m2 && s.time < ack_time)
        .count();
    assert_eq!(
        before_ack, 1,
        "only the ASCONF packet used the unacknowledged address"
    );
    // The correspondent accepted every request and never aborted.
    let ack = n
        .seen
        .iter()
        .find(|s| s.from == Side::B && has(s, chunk_type::ASCONF_ACK))
        .map(parse)
        .unwrap();
    let errors = ack.chunks.iter().any(|c| matches!(c, Chunk::AsconfAck(x) if x.params.iter().any(|p| matches!(p, Param::ErrorCauseIndication { .. }))));
    assert!(!errors, "requests refused: {ack:?}");
    assert!(!n.seen.iter().any(|s| has(s, chunk_type::ABORT)));
    let peer_paths: Vec<IpAddr> =
        n.b.association(b)
            .unwrap()
            .paths()
            .iter()
            .map(|p| p.remote)
            .collect();
    assert_eq!(peer_paths, vec![m2]);
    // Data resumes on the new address within a few round trips.
    let resumed = n
        .seen
        .iter()
        .find(|s| s.from == Side::B && s.dst == m2 && has(s, chunk_type::DATA))
        .unwrap()
        .time;
    assert!(
        resumed - obtained_at < Duration::from_millis(200),
        "downlink resumed after {:?}",
        resumed - obtained_at
    );
}

/// A path the peer adds by ASCONF starts in slow start like the paths of
/// the INIT: its ssthresh is the window the peer advertised at setup
/// (RFC 9260 section 7.2.1, "arbitrarily high"), not the window left at
/// that moment, which a busy sender has nearly used up.
#[test]
fn a_path_added_by_asconf_starts_with_the_initial_ssthresh() {
    let m2 = ip(MN2);
    let mut n = network(23);
    let (a, b) = n.connect(Duration::from_secs(2));
    let mut bulk = Bulk::new(Time::from_secs(6));
    let mut added = false;
    let mut first_ssthresh = None;
    let mut flight_at_add = None;
    n.run_with(Time::from_secs(8), &mut |n| {
        bulk.step(n, a, b);
        if !added && n.now >= Time::from_secs(3) {
            n.a.association_mut(a)
                .unwrap()
                .add_local_address(m2)
                .unwrap();
            added = true;
        }
        if first_ssthresh.is_none() {
            let x = n.b.association(b).unwrap();
            if let Some(p) = x.path_stats(m2) {
                first_ssthresh = Some(p.ssthresh);
                flight_at_add = Some(x.paths().iter().map(|p| p.flight_size).sum::<u32>());
            }
        }
    });
    let ssthresh = first_ssthresh.expect("the correspondent added the mobile's new address");
    let flight = flight_at_add.unwrap();
    assert!(
        flight > 8 * 1024,
        "data was in flight when the path was added ({flight} bytes)"
    );
    assert_eq!(ssthresh, 128 * 1024, "the mobile's advertised window");
}

/// Split fast retransmit switched on while the association is still being
/// set up (as a connecting application does) stays on once it is
/// established: the initiator's sender is rebuilt when the INIT ACK
/// arrives, and once lost the switch silently.
#[test]
fn split_fast_retransmit_set_before_the_handshake_survives_it() {
    let mut n = network(24);
    let port = n.b.port();
    let id = n.a.connect(n.now, &[ip(CN)], port).unwrap();
    n.a.association_mut(id)
        .unwrap()
        .set_split_fast_retransmit(true);
    n.run_with(Time::from_secs(2), &mut |_| {});
    assert!(
        n.events_a
            .iter()
            .any(|(_, i, e)| *i == id && *e == Event::Connected)
    );
    assert!(n.a.association(id).unwrap().split_fast_retransmit());
}

/// The correspondent's second address.
const CN2: &str = "10.9.0.2";

/// A mobile with one address in the association (MN1) and a dual-homed
/// correspondent (CN1, CN2); every link takes 10 ms.
fn dual_homed_correspondent(seed: u64) -> Net {
    let (m1, m2, cn1, cn2) = (ip(MN1), ip(MN2), ip(CN), ip(CN2));
    let mut n = Net::new(
        config(5000, 64 * 1024),
        &[m1, m2],
        config(6000, 64 * 1024),
        &[cn1, cn2],
        Link::new(Duration::from_millis(10)),
        seed,
    );
    n.a.set_local_addresses(&[m1]);
    n.tick = Some(Duration::from_millis(1));
    n
}

/// The first packet `from` sent at or after `since` that carries a chunk
/// of type `ty`.
fn first_with<'a>(n: &'a Net, from: Side, since: Time, ty: u8, what: &str) -> &'a Seen {
    n.seen
        .iter()
        .find(|s| s.from == from && s.time >= since && has(s, ty))
        .unwrap_or_else(|| panic!("no {what}"))
}

/// The single-homed move towards a dual-homed peer with a HEARTBEAT to
/// the peer's other address queued in front of the ASCONF:
///
/// ```text
///  A (MN1 -> MN2)                               B (CN1, CN2)
///  add MN2, delete MN1, probe CN2
///  (the HEARTBEAT to CN2 waits: its only source is MN2, not yet added)
///  MN2 -> CN1  ASCONF [Add MN2, Delete MN1] ----->
///              <----- ASCONF-ACK
///  MN2 -> CN2  HEARTBEAT ------------------------>
///  MN2 -> CN1  DATA ------------------------------>
/// ```
///
/// The HEARTBEAT, which must not leave from MN2 before the ASCONF-ACK
/// (RFC 5061 section 5.3, rule F1), used to hold the ASCONF behind it
/// too: nothing ever left A again, data included, while the association
/// stayed established (found by the `session` fuzz target).
#[test]
fn asconf_of_a_single_homed_move_is_not_held_behind_a_heartbeat_to_another_peer_address() {
    let (m1, m2, cn1, cn2) = (ip(MN1), ip(MN2), ip(CN), ip(CN2));
    let mut n = dual_homed_correspondent(31);
    let (a, b) = n.connect(Duration::from_secs(2));
    n.run_for(Duration::from_secs(1));
    let moved_at = n.now;
    let x = n.a.association_mut(a).unwrap();
    x.add_local_address(m2).unwrap();
    x.remove_local_address(m1).unwrap();
    x.probe_path(moved_at, cn2).unwrap();
    x.send(0, 0, Bytes::from_static(b"after the move"), false)
        .unwrap();
    n.run_for(Duration::from_secs(2));

    let after: Vec<&Seen> = n
        .seen
        .iter()
        .filter(|s| s.from == Side::A && s.time >= moved_at)
        .collect();
    let first = after.first().expect("A sent nothing after the move");
    assert_eq!((first.src, first.dst), (m2, cn1));
    assert!(has(first, chunk_type::ASCONF), "first packet: {first:?}");
    let ack_at = first_with(&n, Side::B, moved_at, chunk_type::ASCONF_ACK, "ASCONF-ACK").time;
    let hb = first_with(&n, Side::A, moved_at, chunk_type::HEARTBEAT, "probe of CN2");
    assert_eq!((hb.src, hb.dst), (m2, cn2));
    assert!(hb.time > ack_at, "HEARTBEAT from MN2 before the ASCONF-ACK");
    assert!(
        after.iter().all(|s| s.src == m2),
        "a packet from the deleted address"
    );
    let y = n.b.association_mut(b).unwrap();
    assert_eq!(
        &y.recv().expect("the message arrived").data[..],
        b"after the move"
    );
    let x = n.a.association(a).unwrap();
    assert_eq!(x.send_buffered(), 0);
    assert_eq!(
        x.local_addresses()
            .iter()
            .map(|l| l.addr)
            .collect::<Vec<_>>(),
        vec![m2]
    );
}

/// The single-homed move while the capacity estimators are on, with a
/// train asked for right after the move:
///
/// ```text
///  A (MN1 -> MN2, estimators on)                B (CN1, CN2)
///  add MN2, delete MN1, probe_capacity(CN1)
///  (no train: its only source is MN2, not yet added)
///  MN2 -> CN1  ASCONF [Add MN2, Delete MN1] ----->
///              <----- ASCONF-ACK
///  (trains from MN2 only now)
/// ```
///
/// A train from MN2 before the ASCONF reached B as out of the blue and
/// drew an ABORT with the T bit: `msctp soak` lost associations that
/// moved during their first trains.
#[test]
fn no_capacity_train_leaves_a_new_address_before_its_asconf_is_acknowledged() {
    let (m1, m2, cn1, cn2) = (ip(MN1), ip(MN2), ip(CN), ip(CN2));
    let with_estimators = |port| {
        let mut c = config(port, 64 * 1024);
        c.association.estimators = msctp_proto::config::EstimatorConfig::on();
        c
    };
    let mut n = Net::new(
        with_estimators(5000),
        &[m1, m2],
        with_estimators(6000),
        &[cn1, cn2],
        Link::new(Duration::from_millis(10)),
        33,
    );
    n.a.set_local_addresses(&[m1]);
    n.tick = Some(Duration::from_millis(1));
    let (a, b) = n.connect(Duration::from_secs(2));
    n.run_for(Duration::from_secs(1));
    let moved_at = n.now;
    let x = n.a.association_mut(a).unwrap();
    x.add_local_address(m2).unwrap();
    x.remove_local_address(m1).unwrap();
    let _ = x.probe_capacity(moved_at, cn1);
    n.run_for(Duration::from_secs(3));

    let after: Vec<&Seen> = n
        .seen
        .iter()
        .filter(|s| s.from == Side::A && s.time >= moved_at)
        .collect();
    let first = after.first().expect("A sent nothing after the move");
    assert!(has(first, chunk_type::ASCONF), "first packet: {first:?}");
    let ack_at = first_with(&n, Side::B, moved_at, chunk_type::ASCONF_ACK, "ASCONF-ACK").time;
    assert!(
        after
            .iter()
            .filter(|s| has(s, chunk_type::PROBE))
            .all(|s| s.time > ack_at),
        "a capacity probe left MN2 before the ASCONF-ACK"
    );
    assert!(!b_aborted_since(&n, moved_at), "B aborted");
    let y = n.b.association(b).unwrap();
    assert!(y.state().is_established());
}

/// The same with the first ASCONF lost: its retransmission goes to the
/// peer's other address (RFC 5061 section 5.1, rule B3) while a HEARTBEAT
/// to the first one waits for the ASCONF-ACK.
///
/// ```text
///  A (MN1 -> MN2)                               B (CN1, CN2)
///  add MN2, delete MN1
///  MN2 -> CN1  ASCONF [Add MN2, Delete MN1] --X
///  probe CN1 (waits for the ASCONF-ACK)
///  T4 expires
///  MN2 -> CN2  ASCONF (retransmission) ---------->
///              <----- ASCONF-ACK
///  MN2 -> CN1  HEARTBEAT ------------------------>
/// ```
#[test]
fn asconf_retransmission_is_not_held_behind_a_heartbeat_to_another_peer_address() {
    let (m1, m2, cn1, cn2) = (ip(MN1), ip(MN2), ip(CN), ip(CN2));
    let mut n = dual_homed_correspondent(32);
    let (a, b) = n.connect(Duration::from_secs(2));
    n.run_for(Duration::from_secs(1));
    let mut dropped = false;
    n.filter = Some(Box::new(move |from, _, _, data: &mut Vec<u8>| {
        if from == Side::A && !dropped && chunk_types(data).contains(&chunk_type::ASCONF) {
            dropped = true;
            return Verdict::Drop;
        }
        Verdict::Pass
    }));
    let moved_at = n.now;
    let x = n.a.association_mut(a).unwrap();
    x.add_local_address(m2).unwrap();
    x.remove_local_address(m1).unwrap();
    n.run_for(Duration::from_millis(50));
    let x = n.a.association_mut(a).unwrap();
    x.probe_path(moved_at + Duration::from_millis(50), cn1)
        .unwrap();
    x.send(0, 0, Bytes::from_static(b"after the move"), false)
        .unwrap();
    n.run_for(Duration::from_secs(3));

    // The first ASCONF (Add MN2) and its retransmission; the Delete of
    // MN1, its Address Parameter, follows in the next one.
    let first_serial = |s: &&Seen| {
        parse(s).chunks.iter().any(|c| matches!(c, Chunk::Asconf(x) if x.params.len() == 1 && matches!(x.params[0], Param::AddIpAddress { .. })))
    };
    let asconfs: Vec<&Seen> = n
        .seen
        .iter()
        .filter(|s| s.from == Side::A && s.time >= moved_at && has(s, chunk_type::ASCONF))
        .filter(first_serial)
        .collect();
    assert_eq!(asconfs.len(), 2, "the ASCONF and one retransmission");
    assert!(asconfs[0].dropped && !asconfs[1].dropped);
    assert_eq!((asconfs[0].src, asconfs[0].dst), (m2, cn1));
    assert_eq!((asconfs[1].src, asconfs[1].dst), (m2, cn2));
    let ack_at = first_with(&n, Side::B, moved_at, chunk_type::ASCONF_ACK, "ASCONF-ACK").time;
    let hb = first_with(&n, Side::A, moved_at, chunk_type::HEARTBEAT, "probe of CN1");
    assert_eq!((hb.src, hb.dst), (m2, cn1));
    assert!(hb.time > ack_at, "HEARTBEAT from MN2 before the ASCONF-ACK");
    let y = n.b.association_mut(b).unwrap();
    assert_eq!(
        &y.recv().expect("the message arrived").data[..],
        b"after the move"
    );
    assert_eq!(n.a.association(a).unwrap().send_buffered(), 0);
}

/// The chunks `from` sent at or after `since`.
fn chunks_sent(n: &Net, from: Side, since: Time) -> Vec<Chunk> {
    n.seen
        .iter()
        .filter(|s| s.from == from && s.time >= since)
        .flat_map(|s| parse(s).chunks)
        .collect()
}

/// The ASCONF requests (parameters) A sent at or after `since`.
fn asconf_params_sent(n: &Net, since: Time) -> Vec<Param> {
    chunks_sent(n, Side::A, since)
        .into_iter()
        .filter_map(|c| match c {
            Chunk::Asconf(a) => Some(a.params),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The error causes in the ASCONF-ACKs B sent at or after `since`.
fn asconf_errors_answered(n: &Net, since: Time) -> usize {
    chunks_sent(n, Side::B, since)
        .iter()
        .filter_map(|c| match c {
            Chunk::AsconfAck(a) => Some(&a.params),
            _ => None,
        })
        .flatten()
        .filter(|p| matches!(p, Param::ErrorCauseIndication { .. }))
        .count()
}

/// A with MN1 and MN2 in the association (MN2 added and acknowledged).
fn two_local_addresses(seed: u64) -> (Net, AssocId, AssocId) {
    let mut n = dual_homed_correspondent(seed);
    let (a, b) = n.connect(Duration::from_secs(2));
    n.a.association_mut(a)
        .unwrap()
        .add_local_address(ip(MN2))
        .unwrap();
    n.run_for(Duration::from_secs(1));
    let states: Vec<_> = n.a.association(a).unwrap().local_addresses().to_vec();
    assert!(
        states.iter().all(|l| l.state == LocalAddrState::Available),
        "{states:?}"
    );
    (n, a, b)
}

/// Removing an address twice sends one Delete:
///
/// ```text
///  A (MN1, MN2)                                 B (CN1, CN2)
///  delete MN1, delete MN1 again (no-op)
///  ASCONF [Delete MN1] --------------------------->
///              <----- ASCONF-ACK [success]
/// ```
///
/// A second Delete of the same address in the same ASCONF used to make
/// the peer answer "unresolvable address" (seen while fixing a `session`
/// fuzz finding).
#[test]
fn asconf_carries_one_delete_when_an_address_is_removed_twice() {
    let (mut n, a, b) = two_local_addresses(41);
    let t = n.now;
    let x = n.a.association_mut(a).unwrap();
    x.remove_local_address(ip(MN1)).unwrap();
    x.remove_local_address(ip(MN1)).unwrap();
    n.run_for(Duration::from_secs(1));
    let deletes: Vec<_> = asconf_params_sent(&n, t)
        .into_iter()
        .filter(|p| matches!(p, Param::DeleteIpAddress { .. }))
        .collect();
    assert_eq!(deletes.len(), 1, "{deletes:?}");
    assert_eq!(asconf_errors_answered(&n, t), 0);
    let x = n.a.association(a).unwrap();
    let left: Vec<_> = x.local_addresses().iter().map(|l| l.addr).collect();
    assert_eq!(left, vec![ip(MN2)]);
    let y = n.b.association(b).unwrap();
    let remotes: Vec<_> = y.paths().iter().map(|p| p.remote).collect();
    assert_eq!(remotes, vec![ip(MN2)]);
}

/// Re-adding an address before its Delete left sends nothing:
///
/// ```text
///  A (MN1, MN2)                                 B (CN1, CN2)
///  delete MN1, add MN1 again (Delete withdrawn)
///  (no ASCONF; B keeps both paths)
///  delete MN1
///  ASCONF [Delete MN1] --------------------------->
/// ```
#[test]
fn readding_an_address_whose_delete_has_not_left_withdraws_the_delete() {
    let (mut n, a, b) = two_local_addresses(43);
    let t = n.now;
    let x = n.a.association_mut(a).unwrap();
    x.remove_local_address(ip(MN1)).unwrap();
    x.add_local_address(ip(MN1)).unwrap();
    n.run_for(Duration::from_secs(1));
    assert_eq!(asconf_params_sent(&n, t), vec![]);
    let x = n.a.association(a).unwrap();
    assert!(
        x.local_addresses()
            .iter()
            .all(|l| l.state == LocalAddrState::Available),
        "{:?}",
        x.local_addresses()
    );
    let y = n.b.association(b).unwrap();
    let mut remotes: Vec<_> = y.paths().iter().map(|p| p.remote).collect();
    remotes.sort();
    assert_eq!(remotes, vec![ip(MN1), ip(MN2)]);
    // A removal after that is an ordinary one.
    let t = n.now;
    n.a.association_mut(a)
        .unwrap()
        .remove_local_address(ip(MN1))
        .unwrap();
    n.run_for(Duration::from_secs(1));
    let params = asconf_params_sent(&n, t);
    assert!(
        matches!(params[..], [Param::DeleteIpAddress { address, .. }] if address == ip(MN1)),
        "{params:?}"
    );
}

/// A single-radio mobile moves twice in quick succession and the first
/// ASCONF-ACK is lost: the ASCONF's retransmission leaves from the third
/// address, which the correspondent has never heard of, so the
/// correspondent finds the association only by the ASCONF's Address
/// Parameter (RFC 5061 section 5.2). That address must still be one the
/// correspondent knows after it processed the first transmission: an
/// ASCONF never deletes its own Address Parameter (the Delete follows in
/// the next one). `msctp soak` lost associations this way (ABORT with the
/// T bit).
///
/// ```text
///  A (MN1 -> MN2 -> MN3)                            B (CN)
///  MN2 -> CN  ASCONF #1 [lookup MN1; Add MN2, Set Primary MN2] -->
///             <-- ASCONF-ACK #1 lost
///  MN2 lost, MN3 obtained
///  T4: MN3 -> CN  ASCONF #1 again [lookup MN1] ---------------------->
///             <-- ASCONF-ACK #1 (cached)
///  MN3 -> CN  ASCONF #2 [Delete MN1, Add MN3, Delete MN2, Set Primary MN3]
/// ```
#[test]
fn a_second_move_before_the_asconf_ack_loses_nothing() {
    let (m1, m2, m3, cn) = (ip(MN1), ip(MN2), ip("10.3.0.2"), ip(CN));
    let mut n = three_address_mobile(41);
    n.a.set_local_addresses(&[m1]);
    n.tick = Some(Duration::from_millis(1));
    let (a, b) = n.connect(Duration::from_secs(2));
    n.run_for(Duration::from_secs(1));
    let mut dropped = false;
    n.filter = Some(Box::new(move |from, _, _, data: &mut Vec<u8>| {
        if from == Side::B && !dropped && chunk_types(data).contains(&chunk_type::ASCONF_ACK) {
            dropped = true;
            return Verdict::Drop;
        }
        Verdict::Pass
    }));
    let mut policy = NewestAddress::default();
    let moved_at = n.now;
    n.set_up(m1, cn, false);
    feed(
        &mut n,
        a,
        &mut policy,
        LinkEvent::AddressLost { iface: 1, addr: m1 },
    );
    feed(
        &mut n,
        a,
        &mut policy,
        LinkEvent::AddressObtained { iface: 1, addr: m2 },
    );
    n.run_for(Duration::from_millis(100));
    n.set_up(m2, cn, false);
    feed(
        &mut n,
        a,
        &mut policy,
        LinkEvent::AddressLost { iface: 1, addr: m2 },
    );
    feed(
        &mut n,
        a,
        &mut policy,
        LinkEvent::AddressObtained { iface: 1, addr: m3 },
    );
    n.a.association_mut(a)
        .unwrap()
        .send(0, 0, Bytes::from_static(b"after two moves"), false)
        .unwrap();
    n.run_for(Duration::from_secs(5));

    assert!(
        n.seen
            .iter()
            .any(|s| s.dropped && has(s, chunk_type::ASCONF_ACK)),
        "the first ASCONF-ACK was lost"
    );
    let lookups: Vec<IpAddr> = chunks_sent(&n, Side::A, moved_at)
        .iter()
        .filter_map(|c| match c {
            Chunk::Asconf(x) => Some(x.address),
            _ => None,
        })
        .collect();
    assert!(
        lookups.len() >= 3,
        "two ASCONFs and a retransmission: {lookups:?}"
    );
    assert!(
        !b_aborted_since(&n, moved_at),
        "B aborted (ASCONFs located by {lookups:?})"
    );
    let y = n.b.association_mut(b).unwrap();
    assert!(y.state().is_established());
    let peer_paths: Vec<IpAddr> = y.paths().iter().map(|p| p.remote).collect();
    assert_eq!(
        peer_paths,
        vec![m3],
        "B knows the mobile by its last address only"
    );
    assert_eq!(
        &y.recv().expect("the message arrived").data[..],
        b"after two moves"
    );
    let x = n.a.association(a).unwrap();
    let locals: Vec<(IpAddr, LocalAddrState)> = x
        .local_addresses()
        .iter()
        .map(|l| (l.addr, l.state))
        .collect();
    assert_eq!(locals, vec![(m3, LocalAddrState::Available)]);
}

/// A mobile that moves while its INIT is unanswered: the INIT follows the
/// host's addresses (RFC 9260 section 5.1: the peer keeps no state before
/// the COOKIE ECHO, so a repeated INIT may list other addresses).
///
/// ```text
///   MN (MN1)                              CN
///   INIT [MN1]        ----X               (MN1's link is down)
///   -- MN1 is lost, MN2 obtained (set_local_addresses) --
///   INIT (from MN2)   ------------------>  at once, not at the next T1;
///                                          MN1 no longer listed
///                     <------------------  INIT ACK
///   COOKIE ECHO       ------------------>
///                     <------------------  COOKIE ACK
///   DATA              ------------------>  the association knows only MN2
/// ```
#[test]
fn an_init_follows_the_hosts_addresses_while_unanswered() {
    let (m1, m2, cn) = (ip(MN1), ip(MN2), ip(CN));
    let mut n = network(41);
    n.set_up(m1, cn, false);
    n.record = true;
    let port = n.b.port();
    let a = n.a.connect(n.now, &[cn], port).unwrap();
    n.run_for(Duration::from_millis(100));
    let inits = |n: &Net| {
        n.seen
            .iter()
            .filter(|s| s.from == Side::A && s.chunks == [chunk_type::INIT])
            .map(|s| (s.time, s.src, s.dropped))
            .collect::<Vec<_>>()
    };
    assert_eq!(inits(&n).len(), 1, "one INIT so far: {:?}", inits(&n));
    assert!(inits(&n)[0].2, "lost on MN1's dead link");
    let moved = n.now;
    n.a.set_local_addresses(&[m2]);
    n.run_for(Duration::from_secs(2));
    let sent = inits(&n);
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!((sent[1].0, sent[1].1, sent[1].2), (moved, m2, false));
    let listed: Vec<IpAddr> = n
        .seen
        .iter()
        .find(|s| s.from == Side::A && s.src == m2 && s.chunks == [chunk_type::INIT])
        .and_then(|s| PacketRepr::parse(&s.bytes).ok())
        .map(|p| match &p.chunks[0] {
            Chunk::Init(i) => i
                .params
                .iter()
                .filter_map(|p| match p {
                    Param::Ipv4Address(a) => Some(IpAddr::V4(*a)),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        })
        .unwrap_or_default();
    // One address: none listed, the source is the address (RFC 9260
    // section 5.1.2); MN1 is not among them.
    assert!(listed.is_empty(), "the repeated INIT lists {listed:?}");
    assert!(
        n.events_a
            .iter()
            .any(|e| e.1 == a && e.2 == Event::Connected),
        "{:?}",
        n.events_a
    );
    let b = *n.b.associations().first().expect("B has the association");
    let peers: Vec<IpAddr> =
        n.b.association(b)
            .unwrap()
            .paths()
            .iter()
            .map(|p| p.remote)
            .collect();
    assert_eq!(peers, vec![m2]);
    n.a.association_mut(a)
        .unwrap()
        .send(0, 0, Bytes::from_static(b"moved before it began"), false)
        .unwrap();
    n.run_for(Duration::from_millis(500));
    let got = n.b.association_mut(b).unwrap().recv().map(|m| m.data);
    assert_eq!(got.as_deref(), Some(&b"moved before it began"[..]));
}
