//! Regressions found by the ETSI TS 102 369 conformance scripts
//! (tests/conformance at the repository root), reproduced here with
//! hand-made packets so the engine's own suite keeps them fixed. Each
//! test names the script that found the defect.

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use msctp_proto::wire::{Chunk, CommonHeader, DataChunk, InitChunk, PacketRepr, Param};
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
        self.ep.set_listening(true);
        self.inject(0, vec![Chunk::Init(Peer::init(PEER_TAG, 1, vec![]))]);
        let p = self.sent();
        let Chunk::InitAck(ack) = &p[0].chunks[0] else {
            panic!("expected INIT ACK, got {p:?}");
        };
        self.tag = ack.initiate_tag;
        self.tsn = ack.initial_tsn;
        let cookie = ack
            .params
            .iter()
            .find_map(|p| match p {
                Param::StateCookie(c) => Some(c.clone()),
                _ => None,
            })
            .unwrap();
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
