//! A hand-driven peer: the test writes each packet of the peer (or of an
//! attacker) chunk by chunk and reads what the endpoint under test sends
//! back, as a packetdrill script would, in virtual time.

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use msctp_proto::wire::{Chunk, CommonHeader, InitChunk, PacketRepr, Param};
use msctp_proto::{AssocId, Endpoint, EndpointConfig, Event, Time};

/// One packet the endpoint sent.
#[derive(Debug, Clone)]
pub struct Out {
    pub dst: IpAddr,
    pub pkt: PacketRepr,
}

impl Out {
    pub fn first(&self) -> Option<&Chunk> {
        self.pkt.chunks.first()
    }
    pub fn vtag(&self) -> u32 {
        self.pkt.header.verification_tag
    }
}

/// The endpoint under test, at `addr`.
pub struct Scripted {
    pub ep: Endpoint,
    pub addr: IpAddr,
    pub now: Time,
    pub events: Vec<(AssocId, Event)>,
}

impl Scripted {
    /// A listening endpoint.
    pub fn listener(mut cfg: EndpointConfig, addr: IpAddr, seed: u8) -> Self {
        cfg.listen = true;
        let mut ep = Endpoint::new(cfg, [seed; 32]).unwrap();
        ep.set_local_addresses(&[addr]);
        Scripted {
            ep,
            addr,
            now: Time::ZERO,
            events: Vec::new(),
        }
    }

    /// Hands the endpoint a packet from `src`, port `sport`, and returns
    /// what it sends at once.
    pub fn inject(&mut self, src: IpAddr, sport: u16, vtag: u32, chunks: Vec<Chunk>) -> Vec<Out> {
        let pkt = PacketRepr {
            header: CommonHeader {
                src_port: sport,
                dst_port: self.ep.port(),
                verification_tag: vtag,
            },
            chunks,
        }
        .emit();
        let (now, addr) = (self.now, self.addr);
        self.ep.handle_datagram(now, src, addr, Bytes::from(pkt));
        self.poll()
    }

    /// What the endpoint has to send now; collects its events.
    pub fn poll(&mut self) -> Vec<Out> {
        let mut out = Vec::new();
        while let Some(t) = self.ep.poll_transmit(self.now) {
            let pkt = PacketRepr::parse(&Bytes::from(t.payload)).expect("well-formed output");
            out.push(Out {
                dst: t.destination,
                pkt,
            });
        }
        self.ep.flush_events();
        while let Some(e) = self.ep.poll_event() {
            self.events.push(e);
        }
        out
    }

    /// Runs the endpoint's timers for `d`; returns what it sent.
    pub fn advance(&mut self, d: Duration) -> Vec<Out> {
        let end = self.now + d;
        let mut out = self.poll();
        while let Some(t) = self.ep.poll_timeout().filter(|t| *t <= end) {
            self.now = t.max(self.now);
            self.ep.handle_timeout(self.now);
            out.extend(self.poll());
        }
        self.now = end;
        out
    }

    /// The peer at `src`:`sport` sets up an association with tag
    /// `peer_tag` (INIT, COOKIE ECHO). Returns the association, the
    /// endpoint's tag and the COOKIE ECHO packet's chunks (to replay).
    pub fn handshake(
        &mut self,
        src: IpAddr,
        sport: u16,
        peer_tag: u32,
        listed: &[IpAddr],
    ) -> (AssocId, u32, Vec<Chunk>) {
        let out = self.inject(src, sport, 0, vec![init(peer_tag, listed)]);
        let (tag, cookie) = init_ack_cookie(&out).expect("an INIT ACK");
        let echo = vec![Chunk::CookieEcho { cookie }];
        let out = self.inject(src, sport, tag, echo.clone());
        assert!(
            out.iter()
                .any(|o| matches!(o.first(), Some(Chunk::CookieAck)) && o.dst == src),
            "no COOKIE ACK: {out:?}"
        );
        let id = self
            .events
            .iter()
            .rev()
            .find(|(_, e)| *e == Event::Connected)
            .map(|(id, _)| *id)
            .expect("Connected");
        (id, tag, echo)
    }
}

pub fn addr_param(a: IpAddr) -> Param {
    match a {
        IpAddr::V4(v4) => Param::Ipv4Address(v4),
        IpAddr::V6(v6) => Param::Ipv6Address(v6),
    }
}

/// An INIT with Initiate Tag `tag` listing `listed` (no AUTH, no ADD-IP).
pub fn init(tag: u32, listed: &[IpAddr]) -> Chunk {
    Chunk::Init(InitChunk {
        initiate_tag: tag,
        a_rwnd: 65_535,
        outbound_streams: 1,
        inbound_streams: 1,
        initial_tsn: 1000,
        params: listed.iter().map(|a| addr_param(*a)).collect(),
    })
}

/// The Initiate Tag and cookie of the first INIT ACK in `out`.
pub fn init_ack_cookie(out: &[Out]) -> Option<(u32, Bytes)> {
    out.iter().find_map(|o| match o.first() {
        Some(Chunk::InitAck(ack)) => ack.state_cookie().map(|c| (ack.initiate_tag, c.clone())),
        _ => None,
    })
}

/// The address TLVs of an ABORT's "Restart of an Association with New
/// Addresses" cause.
pub fn restart_cause(o: &Out) -> Option<Vec<u8>> {
    match o.first() {
        Some(Chunk::Abort { causes, .. }) => causes.iter().find_map(|c| match c {
            msctp_proto::wire::ErrorCause::RestartWithNewAddresses { addresses } => {
                Some(addresses.to_vec())
            }
            _ => None,
        }),
        _ => None,
    }
}

/// An address parameter as it appears in an error cause.
pub fn addr_tlv(a: IpAddr) -> Vec<u8> {
    let mut v = Vec::new();
    addr_param(a).emit(&mut v);
    v
}
