//! Regressions found by the ETSI TS 102 369 conformance scripts
//! (tests/conformance at the repository root), reproduced here with
//! hand-made packets so the engine's own suite keeps them fixed. Each
//! test names the script that found the defect.

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use msctp_proto::auth::{AuthParams, HmacAlgorithm, association_key};
use msctp_proto::wire::{
    AsconfAckChunk, AuthChunk, Chunk, CommonHeader, DataChunk, ErrorCause, InitChunk, PacketRepr,
    Param, crc,
};
use msctp_proto::{AssociationConfig, Endpoint, EndpointConfig, Time};

const LOCAL_PORT: u16 = 8080;
const PEER_PORT: u16 = 40000;
const PEER_TAG: u32 = 1;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// The engine on one side, the test writing the other side's packets.
struct Peer {
    ep: Endpoint,
    now: Time,
    local: IpAddr,
    remote: IpAddr,
    /// The engine's verification tag, once known.
    tag: u32,
    /// The engine's initial TSN, once known.
    tsn: u32,
    /// The AUTH association key, once negotiated.
    key: Vec<u8>,
    /// The engine's RANDOM, CHUNKS and HMAC-ALGO.
    engine_auth: Option<AuthParams>,
}

fn config() -> AssociationConfig {
    AssociationConfig {
        asconf: false,
        auth: false,
        rto_initial: Duration::from_millis(100),
        rto_min: Duration::from_millis(100),
        rto_max: Duration::from_millis(800),
        ..AssociationConfig::default()
    }
}

impl Peer {
    fn new(cfg: AssociationConfig) -> Peer {
        let mut ecfg = EndpointConfig::new(LOCAL_PORT);
        ecfg.association = cfg;
        let mut ep = Endpoint::new(ecfg, [3; 32]).unwrap();
        let local = ip("192.168.0.1");
        ep.set_local_addresses(&[local]);
        Peer {
            ep,
            now: Time::ZERO,
            local,
            remote: ip("192.0.2.1"),
            tag: 0,
            tsn: 0,
            key: Vec::new(),
            engine_auth: None,
        }
    }

    fn inject(&mut self, vtag: u32, chunks: Vec<Chunk>) {
        let bytes = PacketRepr {
            header: CommonHeader {
                src_port: PEER_PORT,
                dst_port: LOCAL_PORT,
                verification_tag: vtag,
            },
            chunks,
        }
        .emit();
        self.ep
            .handle_datagram(self.now, self.remote, self.local, Bytes::from(bytes));
    }

    /// Everything the engine sends now.
    fn sent(&mut self) -> Vec<PacketRepr> {
        let mut out = Vec::new();
        while let Some(t) = self.ep.poll_transmit(self.now) {
            out.push(PacketRepr::parse(&Bytes::from(t.payload)).unwrap());
        }
        while self.ep.poll_event().is_some() {}
        out
    }

    /// Runs timers up to `now + d`, returning what was sent and when.
    fn run_for(&mut self, d: Duration) -> Vec<(Time, PacketRepr)> {
        let end = self.now + d;
        let mut out = Vec::new();
        while let Some(t) = self.ep.poll_timeout() {
            if t > end {
                break;
            }
            self.now = self.now.max(t);
            self.ep.handle_timeout(self.now);
            for p in self.sent() {
                out.push((self.now, p));
            }
        }
        self.now = end;
        out
    }

    fn init(tag: u32, tsn: u32, params: Vec<Param>) -> InitChunk {
        InitChunk {
            initiate_tag: tag,
            a_rwnd: 1500,
            outbound_streams: 1,
            inbound_streams: 1,
            initial_tsn: tsn,
            params,
        }
    }

    /// The passive handshake: INIT in, INIT ACK out, COOKIE ECHO in,
    /// COOKIE ACK out.
    fn accept(&mut self) {
        self.accept_with(vec![]);
    }

    /// The passive handshake announcing ADD-IP and AUTH (HMAC-SHA-1,
    /// ASCONF and ASCONF-ACK authenticated).
    fn accept_with_auth(&mut self) {
        let ours = AuthParams {
            random: vec![7; 32],
            chunks: Some(vec![0xc1, 0x80]),
            hmac_ids: vec![1],
        };
        self.accept_with(vec![
            Param::SupportedExtensions(vec![0xc1, 0x80, 0x0f]),
            Param::Random(Bytes::from(ours.random.clone())),
            Param::Chunks(vec![0xc1, 0x80]),
            Param::HmacAlgo(vec![1]),
        ]);
        let id = self.ep.associations()[0];
        assert!(self.ep.association(id).unwrap().asconf_enabled());
        let theirs = self
            .engine_auth
            .clone()
            .expect("AUTH parameters in the INIT ACK");
        self.key = association_key(&[], &ours, &theirs);
    }

    /// Sends chunks behind an AUTH chunk (HMAC-SHA-1, RFC 4895 section 6.2).
    fn inject_authenticated(&mut self, chunks: Vec<Chunk>) {
        let mut all = vec![Chunk::Auth(AuthChunk {
            shared_key_id: 0,
            hmac_id: 1,
            hmac: Bytes::from(vec![0u8; 20]),
        })];
        all.extend(chunks);
        let mut bytes = PacketRepr {
            header: CommonHeader {
                src_port: PEER_PORT,
                dst_port: LOCAL_PORT,
                verification_tag: self.tag,
            },
            chunks: all,
        }
        .emit();
        let mac = HmacAlgorithm::Sha1.mac(&self.key, &[&bytes[12..]]);
        bytes[20..40].copy_from_slice(&mac);
        crc::fill(&mut bytes);
        self.ep
            .handle_datagram(self.now, self.remote, self.local, Bytes::from(bytes));
    }

    fn accept_with(&mut self, params: Vec<Param>) {
        self.ep.set_listening(true);
        self.inject(0, vec![Chunk::Init(Peer::init(PEER_TAG, 1, params))]);
        let p = self.sent();
        let Chunk::InitAck(ack) = &p[0].chunks[0] else {
            panic!("expected INIT ACK, got {p:?}");
        };
        self.tag = ack.initiate_tag;
        self.tsn = ack.initial_tsn;
        let random = ack.params.iter().find_map(|p| match p {
            Param::Random(r) => Some(r.to_vec()),
            _ => None,
        });
        let hmacs = ack.params.iter().find_map(|p| match p {
            Param::HmacAlgo(h) => Some(h.clone()),
            _ => None,
        });
        let chunks = ack.params.iter().find_map(|p| match p {
            Param::Chunks(c) => Some(c.clone()),
            _ => None,
        });
        if let (Some(random), Some(hmac_ids)) = (random, hmacs) {
            self.engine_auth = Some(AuthParams {
                random,
                chunks,
                hmac_ids,
            });
        }
        let cookie = ack.state_cookie().cloned().unwrap();
        self.inject(self.tag, vec![Chunk::CookieEcho { cookie }]);
        let p = self.sent();
        assert_eq!(p[0].chunks, vec![Chunk::CookieAck]);
    }
}

fn data(tsn: u32, ssn: u16, len: usize) -> Chunk {
    Chunk::Data(DataChunk {
        tsn,
        stream_id: 0,
        ssn,
        ppid: 0,
        unordered: false,
        begin: true,
        end: true,
        immediate: false,
        payload: Bytes::from(vec![0u8; len]),
    })
}

fn kinds(p: &PacketRepr) -> Vec<u8> {
    p.chunks.iter().map(|c| c.chunk_type()).collect()
}

/// sctp-dm-o-4-10 and sctp-at-i-2-9: DATA arriving in SHUTDOWN-ACK-SENT
/// (or after the peer's SHUTDOWN) is dropped; it must not leave a delayed
/// SACK behind that goes out before the SHUTDOWN ACK retransmission.
#[test]
fn data_after_shutdown_leaves_no_sack() {
    let mut p = Peer::new(config());
    p.accept();
    p.inject(p.tag, vec![Chunk::Shutdown { cum_tsn_ack: 0 }]);
    assert_eq!(p.sent()[0].chunks, vec![Chunk::ShutdownAck]);
    p.inject(p.tag, vec![data(1, 0, 100)]);
    assert!(p.sent().is_empty());
    let later = p.run_for(Duration::from_millis(150));
    assert_eq!(later.len(), 1, "{later:?}");
    assert_eq!(kinds(&later[0].1), vec![8], "only the SHUTDOWN ACK again");
}

/// The setters the conformance interpreter maps socket options to
/// (SCTP_PEER_ADDR_PARAMS with SPP_HB_DISABLE, SCTP_INITMSG on a listening
/// socket, SCTP_STATUS): heartbeats stop and start on a running
/// association, new defaults are validated, stream counts are visible.
#[test]
fn socket_option_setters() {
    let mut p = Peer::new(AssociationConfig {
        heartbeat_interval: Some(Duration::from_secs(1)),
        outbound_streams: 3,
        ..config()
    });
    p.accept();
    let id = p.ep.associations()[0];
    let a = p.ep.association(id).unwrap();
    assert_eq!((a.outbound_streams(), a.inbound_streams()), (1, 1));
    let now = p.now;
    p.ep.association_mut(id)
        .unwrap()
        .set_heartbeat_interval(None, now);
    assert!(
        p.run_for(Duration::from_secs(10)).is_empty(),
        "no heartbeats"
    );
    let now = p.now;
    p.ep.association_mut(id)
        .unwrap()
        .set_heartbeat_interval(Some(Duration::from_secs(1)), now);
    let hb = p.run_for(Duration::from_secs(2));
    assert_eq!(kinds(&hb[0].1), vec![4], "heartbeats again");
    let bad = AssociationConfig {
        rto_min: Duration::from_secs(2),
        rto_max: Duration::from_secs(1),
        ..config()
    };
    assert!(p.ep.set_association_defaults(bad).is_err());
    assert!(p.ep.set_association_defaults(config()).is_ok());
    p.ep.association_mut(id).unwrap().set_path_max_retrans(1);
    assert_eq!(p.ep.association(id).unwrap().config().path_max_retrans, 1);
}

/// sctp-a-v-9-1 (and a-o-9-3, d-o-8-6, d-v-8-3, bdc-v-7-5, bdc-v-7-7,
/// e-o-6-2, m-i-10-4): the first DATA is acknowledged at once; the next
/// single packet waits for the delayed-SACK timer (200 ms).
#[test]
fn first_data_is_acknowledged_at_once() {
    let mut p = Peer::new(config());
    p.accept();
    p.inject(p.tag, vec![data(1, 0, 100)]);
    let s = p.sent();
    assert_eq!(s.len(), 1);
    assert_eq!(kinds(&s[0]), vec![3], "immediate SACK");
    p.inject(p.tag, vec![data(2, 1, 100)]);
    assert!(p.sent().is_empty(), "the second is delayed");
    let later = p.run_for(Duration::from_millis(250));
    assert_eq!(later.len(), 1);
    assert_eq!(later[0].0, Time::from_millis(200));
    assert_eq!(kinds(&later[0].1), vec![3]);
}

/// sctp-as-i-1-14-2: an INIT ACK with Initiate Tag 0 is refused with an
/// ABORT carrying Invalid Mandatory Parameter; the ABORT reflects the
/// engine's own tag (T bit) since the peer gave none.
#[test]
fn init_ack_with_zero_tag_is_aborted() {
    let mut p = Peer::new(config());
    let peer = p.remote;
    let id = p.ep.connect(p.now, &[peer], PEER_PORT).unwrap();
    let init = p.sent();
    let Chunk::Init(i) = &init[0].chunks[0] else {
        panic!("{init:?}");
    };
    let own = i.initiate_tag;
    let mut ack = Peer::init(0, 3, vec![Param::StateCookie(Bytes::new())]);
    ack.initiate_tag = 0;
    p.inject(own, vec![Chunk::InitAck(ack)]);
    let s = p.sent();
    assert_eq!(s.len(), 1, "{s:?}");
    assert_eq!(s[0].header.verification_tag, own);
    assert_eq!(
        s[0].chunks,
        vec![Chunk::Abort {
            t_bit: true,
            causes: vec![msctp_proto::wire::ErrorCause::InvalidMandatoryParameter],
        }]
    );
    assert!(p.ep.association(id).is_none_or(|a| a.is_closed()));
}

/// sctp-bdc-i-7-2 and sctp-bdc-i-7-3: an INIT ACK or SHUTDOWN COMPLETE
/// bundled with DATA (RFC 9260 section 6.10 forbids it) is dropped whole:
/// no COOKIE ECHO answers it, the association does not close on it.
#[test]
fn bundled_init_ack_and_shutdown_complete_are_dropped() {
    let mut p = Peer::new(config());
    let peer = p.remote;
    p.ep.connect(p.now, &[peer], PEER_PORT).unwrap();
    let init = p.sent();
    let Chunk::Init(i) = &init[0].chunks[0] else {
        panic!("{init:?}");
    };
    let own = i.initiate_tag;
    let ack = Peer::init(
        PEER_TAG,
        1,
        vec![Param::StateCookie(Bytes::from_static(b"c"))],
    );
    p.inject(own, vec![Chunk::InitAck(ack), data(1, 0, 100)]);
    assert!(p.sent().is_empty(), "no COOKIE ECHO");
    let later = p.run_for(Duration::from_millis(150));
    assert_eq!(kinds(&later[0].1), vec![1], "the INIT is retransmitted");

    let mut q = Peer::new(config());
    q.accept();
    q.inject(q.tag, vec![Chunk::Shutdown { cum_tsn_ack: 0 }]);
    assert_eq!(q.sent()[0].chunks, vec![Chunk::ShutdownAck]);
    q.inject(
        q.tag,
        vec![Chunk::ShutdownComplete { t_bit: false }, data(1, 0, 100)],
    );
    assert!(q.sent().is_empty());
    let later = q.run_for(Duration::from_millis(150));
    assert_eq!(kinds(&later[0].1), vec![8], "still in SHUTDOWN-ACK-SENT");
}

/// sctp-m-i-10-1 and sctp-m-i-10-3: the Unrecognized Chunk Type cause
/// carries the unknown chunk with its padding (cause length 4 + 8 for a
/// 5-byte chunk), as FreeBSD and Linux send it.
#[test]
fn unrecognized_chunk_is_reported_with_its_padding() {
    let mut p = Peer::new(config());
    p.accept();
    p.inject(
        p.tag,
        vec![Chunk::Unknown {
            chunk_type: 0x6f,
            flags: 0,
            value: Bytes::from_static(&[1]),
        }],
    );
    let s = p.sent();
    let Chunk::Error { causes } = &s[0].chunks[0] else {
        panic!("{s:?}");
    };
    assert_eq!(
        causes,
        &vec![msctp_proto::wire::ErrorCause::UnrecognizedChunkType {
            chunk: Bytes::from_static(&[0x6f, 0, 0, 5, 1, 0, 0, 0]),
        }]
    );
}

/// The serial number and correlation id of the engine's ASCONF in `p`.
fn asconf_of(p: &[PacketRepr]) -> (u32, u32) {
    for pkt in p {
        for c in &pkt.chunks {
            if let Chunk::Asconf(a) = c {
                let corr = match &a.params[0] {
                    Param::AddIpAddress { correlation_id, .. }
                    | Param::DeleteIpAddress { correlation_id, .. }
                    | Param::SetPrimaryAddress { correlation_id, .. } => *correlation_id,
                    other => panic!("{other:?}"),
                };
                return (a.serial, corr);
            }
        }
    }
    panic!("no ASCONF in {p:?}");
}

/// The ASCONF-ACK a peer without the request's kind sends: "unrecognized
/// parameter" (the parameter is not echoed whole here; the cause is what
/// counts).
fn refuse_unrecognized(serial: u32, corr: u32) -> Chunk {
    Chunk::AsconfAck(AsconfAckChunk {
        serial,
        params: vec![Param::ErrorCauseIndication {
            correlation_id: corr,
            causes: vec![ErrorCause::UnrecognizedParameters {
                params: Bytes::from_static(&[0xc0, 0x01, 0, 4]),
            }],
        }],
    })
}

/// RFC 5061 rules F3a and F3b (scripts addip/asconf-ack-add-unrecognized
/// and addip/asconf-ack-set-primary-unrecognized): once the peer says it
/// does not understand Add IP, neither Add IP nor Delete IP is sent again;
/// once it says so of Set Primary, no more Set Primary.
#[test]
fn unrecognized_address_requests_are_not_sent_again() {
    let mut p = Peer::new(AssociationConfig {
        asconf: true,
        auth: true,
        ..config()
    });
    p.ep.set_local_addresses(&[ip("192.168.0.1"), ip("192.168.0.2")]);
    p.accept_with_auth();
    let id = p.ep.associations()[0];
    let a = p.ep.association_mut(id).unwrap();
    a.add_local_address(ip("192.168.0.3")).unwrap();
    let (serial, corr) = asconf_of(&p.sent());
    p.inject_authenticated(vec![refuse_unrecognized(serial, corr)]);
    assert!(p.sent().is_empty());
    let a = p.ep.association_mut(id).unwrap();
    assert!(a.add_local_address(ip("192.168.0.4")).is_err());
    assert!(
        a.remove_local_address(ip("192.168.0.2")).is_err(),
        "no Delete IP either (F3a)"
    );
    a.request_peer_primary(ip("192.168.0.2")).unwrap();
    let (serial, corr) = asconf_of(&p.sent());
    p.inject_authenticated(vec![refuse_unrecognized(serial, corr)]);
    let a = p.ep.association_mut(id).unwrap();
    assert!(a.request_peer_primary(ip("192.168.0.2")).is_err(), "F3b");
    assert!(p.sent().is_empty(), "nothing more is sent");
}

/// A Delete IP the peer answers with "Unresolvable Address" (RFC 5061
/// section 5.2.2: the address is not part of the association there)
/// leaves the address out of ours too: kept as available, it would be
/// the Address Parameter of the next ASCONF, which the peer cannot
/// resolve (section 5.2), and an ASCONF sent from a new address would be
/// out of the blue to it. (A mobile whose association was set up while
/// its address changed listed an address the peer never heard of.)
///
/// ```text
///   engine (.1 .2)                         peer
///   ASCONF [Delete .2]        ------>
///                             <------      ASCONF-ACK [Unresolvable Address .2]
///   locals: .1 only; LocalAddressRemoved .2
///   ASCONF [lookup .1, Add .3] ------>
/// ```
#[test]
fn a_delete_the_peer_cannot_resolve_removes_the_address() {
    let mut p = Peer::new(AssociationConfig {
        asconf: true,
        auth: true,
        ..config()
    });
    p.ep.set_local_addresses(&[ip("192.168.0.2"), ip("192.168.0.1")]);
    p.accept_with_auth();
    let id = p.ep.associations()[0];
    let a = p.ep.association_mut(id).unwrap();
    a.remove_local_address(ip("192.168.0.2")).unwrap();
    let (serial, corr) = asconf_of(&p.sent());
    p.inject_authenticated(vec![Chunk::AsconfAck(AsconfAckChunk {
        serial,
        params: vec![Param::ErrorCauseIndication {
            correlation_id: corr,
            causes: vec![ErrorCause::UnresolvableAddress {
                address: Bytes::from_static(&[0, 5, 0, 8, 192, 168, 0, 2]),
            }],
        }],
    })]);
    p.ep.flush_events();
    let mut removed = false;
    while let Some((_, e)) = p.ep.poll_event() {
        removed |= e
            == msctp_proto::Event::LocalAddressRemoved {
                addr: ip("192.168.0.2"),
            };
    }
    assert!(removed, "the application learns the address is gone");
    let a = p.ep.association_mut(id).unwrap();
    let locals: Vec<IpAddr> = a.local_addresses().iter().map(|l| l.addr).collect();
    assert_eq!(locals, vec![ip("192.168.0.1")], "the peer never had .2");
    // The next ASCONF names an address the peer knows.
    a.add_local_address(ip("192.168.0.3")).unwrap();
    let sent = p.sent();
    let lookup = sent
        .iter()
        .flat_map(|pkt| &pkt.chunks)
        .find_map(|c| match c {
            Chunk::Asconf(x) => Some(x.address),
            _ => None,
        })
        .expect("an ASCONF");
    assert_eq!(lookup, ip("192.168.0.1"));
}
