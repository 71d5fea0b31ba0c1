//! Target `listener`: a listening endpoint (RFC 9260 section 5.1, INIT
//! answered statelessly with a State Cookie; section 8.4, out-of-the-blue
//! packets) fed arbitrary datagrams from arbitrary sources.
//!
//! Input, after a first mode byte:
//! - mode 0: the rest is one datagram, checksum filled in by the harness
//!   (so mutations are not all dropped at the CRC check); the seed corpus
//!   holds real packets in this form;
//! - mode 1: the rest is one datagram, sent as is;
//! - any other mode: a sequence of [`Step`]s decoded with `arbitrary`:
//!   datagrams from one of several sources, the echo of the last cookie
//!   the endpoint handed out (so fuzzed chunks reach a freshly created
//!   association), and the passing of virtual time.
//!
//! Checked: no panic; every packet the endpoint sends decodes and has a
//! valid checksum; the endpoint never holds more associations than its
//! limit; a datagram that creates no association leaves no state behind
//! (the number of associations only grows through a valid cookie); no
//! association holds a peer address a remote peer can never have (the
//! endpoint's own, loopback, link-local, broadcast, multicast: module
//! `peer_address`), nor more than `max_peer_addresses`; an INIT ACK
//! reflects no more unrecognized parameters than
//! `limits.max_reflected_unrecognized`.

use std::net::IpAddr;
use std::time::Duration;

use arbitrary::{Arbitrary, Unstructured};
use bytes::Bytes;
use msctp_proto::peer_address;
use msctp_proto::wire::{Chunk, CommonHeader, InitChunk, PacketRepr, Param, crc};
use msctp_proto::{Endpoint, EndpointConfig, Time};

use crate::wire_out::{check_sent, init_ack_cookie, packet};

pub const MAX_LEN: usize = 4096;
/// Associations the fuzzed endpoint accepts.
pub const MAX_ASSOCIATIONS: usize = 3;
/// The listening port.
pub const PORT: u16 = 5000;

/// Sources the fuzzer can send from: IPv4, IPv6, and addresses the
/// endpoint must never answer (broadcast, multicast, unspecified).
pub const SOURCES: [&str; 6] = [
    "192.0.2.1",
    "192.0.2.2",
    "2001:db8::1",
    "255.255.255.255",
    "224.0.0.1",
    "0.0.0.0",
];
const LOCAL: [&str; 2] = ["198.51.100.1", "2001:db8:1::1"];

#[derive(Debug, Arbitrary)]
pub enum Step {
    Datagram {
        src: u8,
        fix_checksum: bool,
        bytes: Vec<u8>,
    },
    /// A COOKIE ECHO carrying the last cookie handed out, then `tail`
    /// (more chunks), checksum filled in.
    EchoCookie {
        src: u8,
        tail: Vec<u8>,
    },
    Wait {
        ms: u16,
    },
}

fn addr(i: u8, list: &[&str]) -> IpAddr {
    list[usize::from(i) % list.len()].parse().unwrap()
}

struct Harness {
    ep: Endpoint,
    now: Time,
    last_cookie: Option<(u32, u16, Bytes)>,
}

impl Harness {
    fn new() -> Harness {
        let mut cfg = EndpointConfig::new(PORT);
        cfg.listen = true;
        cfg.max_associations = MAX_ASSOCIATIONS;
        let mut ep = Endpoint::new(cfg, [7; 32]).unwrap();
        let local: Vec<IpAddr> = LOCAL.iter().map(|a| a.parse().unwrap()).collect();
        ep.set_local_addresses(&local);
        Harness {
            ep,
            now: Time::ZERO,
            last_cookie: None,
        }
    }

    fn datagram(&mut self, src: IpAddr, data: Vec<u8>) {
        let dst = if src.is_ipv4() { LOCAL[0] } else { LOCAL[1] };
        let before = self.ep.associations().len();
        let created = self.ep.stats().associations_created;
        self.ep
            .handle_datagram(self.now, src, dst.parse().unwrap(), Bytes::from(data));
        if self.ep.stats().associations_created == created {
            assert!(
                self.ep.associations().len() <= before,
                "an association appeared without a cookie"
            );
        }
        self.drain();
    }

    fn drain(&mut self) {
        let mut n = 0;
        while let Some(t) = self.ep.poll_transmit(self.now) {
            n += 1;
            assert!(n < 10_000, "endless output");
            let repr = check_sent(&Bytes::from(t.payload));
            for c in &repr.chunks {
                if let Chunk::InitAck(a) = c {
                    let reflected: usize = a
                        .params
                        .iter()
                        .filter(|p| matches!(p, Param::UnrecognizedParameter(_)))
                        .map(|p| p.padded_len())
                        .sum();
                    let limit = self
                        .ep
                        .config()
                        .association
                        .limits
                        .max_reflected_unrecognized;
                    assert!(
                        reflected <= limit,
                        "an INIT ACK reflects {reflected} bytes of unknown parameters"
                    );
                }
            }
            if let Some((tag, cookie)) = init_ack_cookie(&repr) {
                self.last_cookie = Some((tag, repr.header.dst_port, cookie));
            }
        }
        while self.ep.poll_event().is_some() {}
        for id in self.ep.associations() {
            if let Some(a) = self.ep.association_mut(id) {
                while a.recv().is_some() {}
            }
        }
        assert!(self.ep.associations().len() <= MAX_ASSOCIATIONS);
        self.check_peer_addresses();
    }

    /// The sources are routed addresses: every peer address an
    /// association keeps is acceptable from them.
    fn check_peer_addresses(&self) {
        let local: Vec<IpAddr> = LOCAL.iter().map(|a| a.parse().unwrap()).collect();
        let src: IpAddr = SOURCES[0].parse().unwrap();
        let max = self.ep.config().association.limits.max_peer_addresses;
        for id in self.ep.associations() {
            let Some(a) = self.ep.association(id) else {
                continue;
            };
            let peers: Vec<IpAddr> = a.peer_addresses().collect();
            assert!(peers.len() <= max, "{} peer addresses", peers.len());
            for p in &peers {
                assert!(
                    peer_address::acceptable(p, &src, &local),
                    "an association holds {p}"
                );
            }
        }
    }
}

/// Runs one input.
pub fn run(data: &[u8]) {
    let data = &data[..data.len().min(MAX_LEN)];
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut h = Harness::new();
    match mode {
        0 | 1 => {
            let mut d = rest.to_vec();
            if mode == 0 && d.len() >= 12 {
                crc::fill(&mut d);
            }
            h.datagram(addr(0, &SOURCES), d);
        }
        _ => {
            let Ok(steps) = Vec::<Step>::arbitrary_take_rest(Unstructured::new(rest)) else {
                return;
            };
            for step in steps.into_iter().take(64) {
                h.step(step);
            }
        }
    }
}

impl Harness {
    fn step(&mut self, step: Step) {
        match step {
            Step::Datagram {
                src,
                fix_checksum,
                mut bytes,
            } => {
                if fix_checksum && bytes.len() >= 12 {
                    crc::fill(&mut bytes);
                }
                self.datagram(addr(src, &SOURCES), bytes);
            }
            Step::EchoCookie { src, tail } => {
                let Some((tag, sport, cookie)) = self.last_cookie.clone() else {
                    return;
                };
                let mut chunks = Vec::new();
                Chunk::CookieEcho { cookie }.emit(&mut chunks);
                chunks.extend_from_slice(&tail);
                // The COOKIE ECHO carries the INIT ACK's Initiate Tag and
                // comes from the port the INIT ACK went to.
                let p = packet(sport, PORT, tag, &chunks);
                self.datagram(addr(src, &SOURCES), p);
            }
            Step::Wait { ms } => {
                self.now += Duration::from_millis(u64::from(ms));
                if self.ep.poll_timeout().is_some_and(|t| t <= self.now) {
                    self.ep.handle_timeout(self.now);
                }
                self.drain();
            }
        }
    }
}

/// Issue 31 finding 9: an INIT with 300 unknown parameters that ask to
/// be reported (4 bytes each): the INIT ACK reports only up to the limit
/// (it reflected 2400 bytes of them, x3.1 the INIT with the cookie).
pub fn finding_seeds() -> Vec<crate::seeds::Seed> {
    let init = InitChunk {
        initiate_tag: 0x1234,
        a_rwnd: 65_535,
        outbound_streams: 1,
        inbound_streams: 1,
        initial_tsn: 1,
        params: (0..300)
            .map(|_| Param::Unknown {
                param_type: 0xC0FF,
                value: Bytes::new(),
            })
            .collect(),
    };
    let mut bytes = vec![0];
    bytes.extend(
        PacketRepr {
            header: CommonHeader {
                src_port: 7000,
                dst_port: PORT,
                verification_tag: 0,
            },
            chunks: vec![Chunk::Init(init)],
        }
        .emit(),
    );
    vec![crate::seeds::Seed {
        target: "listener",
        name: "issue31-9-init-with-300-unknown-parameters".into(),
        bytes,
    }]
}
