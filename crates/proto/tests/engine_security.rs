//! Association hijacking (RFC 5062) is what ADD-IP invites: an ASCONF that
//! is not authenticated, carries a wrong HMAC, or a wrong verification tag
//! is discarded and changes nothing (RFC 4895 section 6.3, RFC 5061
//! section 4.1.1). The packets used are real ASCONFs the mobile sent,
//! captured on the wire and then altered; the unaltered packet is the
//! positive control.

mod common;

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use common::*;
use msctp_proto::wire::chunk::{auth_hmac_range, chunk_type};
use msctp_proto::wire::{Packet, crc};
use msctp_proto::{AssocId, EndpointConfig, Time};

struct Captured {
    n: Net,
    b: AssocId,
    asconf: Vec<u8>,
    src: IpAddr,
    dst: IpAddr,
}

/// The mobile adds an address; its ASCONF is captured and withheld from
/// the correspondent.
fn capture() -> Captured {
    let (m1, m2, cn) = (ip("10.1.0.2"), ip("10.2.0.2"), ip("10.9.0.1"));
    let mut n = Net::new(
        EndpointConfig::new(5000),
        &[m1, m2],
        EndpointConfig::new(6000),
        &[cn],
        Link::new(Duration::from_millis(10)),
        41,
    );
    n.a.set_local_addresses(&[m1]);
    let (a, b) = n.connect(Duration::from_secs(2));
    let held = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let h = held.clone();
    n.filter = Some(Box::new(move |from, _src, _dst, data: &mut Vec<u8>| {
        let is_asconf = Packet::new_checked(&data[..])
            .map(|p| {
                p.chunks()
                    .filter_map(|c| c.ok())
                    .any(|(_, v)| v.chunk_type() == chunk_type::ASCONF)
            })
            .unwrap_or(false);
        if from == Side::A && is_asconf {
            h.borrow_mut().push(data.clone());
            Verdict::Drop
        } else {
            Verdict::Pass
        }
    }));
    n.a.association_mut(a)
        .unwrap()
        .add_local_address(m2)
        .unwrap();
    n.run_for(Duration::from_millis(100));
    n.filter = None;
    let asconf = held.borrow().first().cloned().expect("an ASCONF was sent");
    Captured {
        n,
        b,
        asconf,
        src: m1,
        dst: cn,
    }
}

fn peer_addresses(c: &Captured) -> Vec<IpAddr> {
    c.n.b
        .association(c.b)
        .unwrap()
        .paths()
        .iter()
        .map(|p| p.remote)
        .collect()
}

/// Injects `pkt` into the correspondent and reports whether it answered
/// with an ASCONF-ACK.
fn inject(c: &mut Captured, pkt: Vec<u8>) -> bool {
    let before = c.n.seen.len();
    let now = c.n.now;
    c.n.b.handle_datagram(now, c.src, c.dst, Bytes::from(pkt));
    c.n.run_for(Duration::from_millis(50));
    c.n.seen[before..]
        .iter()
        .any(|s| s.from == Side::B && s.chunks.contains(&chunk_type::ASCONF_ACK))
}

fn auth_range(pkt: &[u8]) -> std::ops::Range<usize> {
    let p = Packet::new_checked(pkt).unwrap();
    let (r, _) = p
        .chunks()
        .filter_map(|c| c.ok())
        .find(|(_, v)| v.chunk_type() == chunk_type::AUTH)
        .unwrap();
    r
}

#[test]
fn asconf_without_auth_is_discarded() {
    let mut c = capture();
    let before = peer_addresses(&c);
    // Remove the AUTH chunk: header + the chunks after it.
    let r = auth_range(&c.asconf);
    let padded = (r.end - r.start + 3) & !3;
    let mut pkt = c.asconf[..r.start].to_vec();
    pkt.extend_from_slice(&c.asconf[r.start + padded..]);
    crc::fill(&mut pkt);
    assert!(!inject(&mut c, pkt), "unauthenticated ASCONF answered");
    assert_eq!(peer_addresses(&c), before);
    assert!(c.n.b.association(c.b).unwrap().stats().auth_failures > 0);
    // The genuine packet is accepted (so the refusals above mean something).
    let genuine = c.asconf.clone();
    assert!(inject(&mut c, genuine));
    assert_eq!(peer_addresses(&c).len(), before.len() + 1);
}

#[test]
fn asconf_with_a_wrong_hmac_is_discarded() {
    let mut c = capture();
    let before = peer_addresses(&c);
    let r = auth_hmac_range(auth_range(&c.asconf));
    let mut pkt = c.asconf.clone();
    pkt[r.start] ^= 0x01;
    crc::fill(&mut pkt);
    assert!(!inject(&mut c, pkt), "forged ASCONF answered");
    assert_eq!(peer_addresses(&c), before);
    // Tampering with an authenticated chunk breaks the MAC just the same.
    let mut pkt = c.asconf.clone();
    let last = pkt.len() - 1;
    pkt[last] ^= 0x01;
    crc::fill(&mut pkt);
    assert!(!inject(&mut c, pkt));
    assert_eq!(peer_addresses(&c), before);
    let genuine = c.asconf.clone();
    assert!(inject(&mut c, genuine));
}

#[test]
fn asconf_with_a_wrong_verification_tag_is_discarded() {
    let mut c = capture();
    let before = peer_addresses(&c);
    let bad_vtag_before = c.n.b.association(c.b).unwrap().stats().bad_vtag;
    let mut pkt = c.asconf.clone();
    pkt[4] ^= 0x80;
    crc::fill(&mut pkt);
    assert!(!inject(&mut c, pkt), "ASCONF with a wrong tag answered");
    assert_eq!(peer_addresses(&c), before);
    assert_eq!(
        c.n.b.association(c.b).unwrap().stats().bad_vtag,
        bad_vtag_before + 1
    );
    let genuine = c.asconf.clone();
    assert!(inject(&mut c, genuine));
}

#[test]
fn asconf_from_an_unknown_address_with_a_stolen_tag_and_no_valid_auth_is_ignored() {
    // An off-path attacker who learned the tag tries to move the
    // association to its own address: the packet comes from an address the
    // correspondent does not know, is located through the Address
    // Parameter, and fails authentication.
    let mut c = capture();
    let before = peer_addresses(&c);
    let r = auth_hmac_range(auth_range(&c.asconf));
    let mut pkt = c.asconf.clone();
    for b in &mut pkt[r] {
        *b = 0;
    }
    crc::fill(&mut pkt);
    let now = c.n.now;
    let attacker = ip("192.0.2.66");
    c.n.b
        .handle_datagram(now, attacker, c.dst, Bytes::from(pkt));
    c.n.run_for(Duration::from_millis(50));
    assert_eq!(peer_addresses(&c), before);
    assert!(!c.n.seen.iter().any(|s| s.dst == attacker));
    let _ = Time::ZERO;
}
