//! One face over two sans-I/O SCTP engines: ours ([`Ours`], an
//! [`msctp_proto::Endpoint`]) and sctp-proto's ([`Theirs`], an
//! [`sctp_proto::Endpoint`] with its association). Each holds one endpoint
//! with at most one association; packets in and out are SCTP packets
//! (RFC 9260 section 3: common header and chunks), so any two peers,
//! whichever engine, can be wired together.

use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use msctp_proto::{AssocId, Endpoint, EndpointConfig, Event, Time};
use sctp_proto::{
    AssociationHandle, ClientConfig, DatagramEvent, Payload, PayloadProtocolIdentifier,
    ServerConfig, StreamEvent, TransportConfig,
};

/// SHUTDOWN COMPLETE's chunk type (RFC 9260 section 3.3.13).
const SHUTDOWN_COMPLETE: u8 = 14;

/// The SCTP port of both ends.
pub const PORT: u16 = 5000;
/// The address of the side that connects (the client).
pub const CLIENT_ADDR: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
/// The address of the side that listens (the server).
pub const SERVER_ADDR: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));

/// What both engines are configured with, the same on each side.
#[derive(Debug, Clone, Copy)]
pub struct Setup {
    /// Largest SCTP packet (common header and chunks), in bytes: 1452 is
    /// an Ethernet MTU less IPv4 and UDP headers (RFC 6951 encapsulation).
    pub mtu: usize,
    /// The receive window (a_rwnd, RFC 9260 section 6.2) and the send
    /// buffer, in bytes.
    pub window: u32,
    /// Outbound streams requested (RFC 9260 section 5.1.1 OS).
    pub streams: u16,
    /// Ours: AUTH (RFC 4895) and ADD-IP (RFC 5061) on, as by default; off
    /// for the plain RFC 9260 engine that sctp-proto is.
    pub extensions: bool,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            mtu: 1452,
            window: 4 << 20,
            streams: 16,
            extensions: false,
        }
    }
}

impl Setup {
    /// Payload bytes of a packet carrying one DATA chunk: the MTU less
    /// the common header (12) and the DATA chunk header (16).
    pub fn packet_payload(&self) -> usize {
        self.mtu - 12 - 16
    }
}

/// An SCTP endpoint with at most one association, driven in virtual time
/// (`now`: time since the run began).
pub trait Peer {
    /// The engine's name.
    fn name(&self) -> &'static str;
    /// Starts the association towards the other side (the client only).
    fn connect(&mut self, now: Duration);
    /// An SCTP packet from the other side.
    fn input(&mut self, now: Duration, packet: Bytes);
    /// The next SCTP packet to send, if any.
    fn output(&mut self, now: Duration) -> Option<Bytes>;
    /// When [`Peer::on_timeout`] must be called next.
    fn timeout(&self) -> Option<Duration>;
    fn on_timeout(&mut self, now: Duration);
    /// The association is established (it was, at least once).
    fn connected(&self) -> bool;
    /// The association ended (gracefully or not).
    fn closed(&self) -> bool;
    /// Queues one message on `stream`; false when the send buffer is full
    /// (try again after some output).
    fn send(&mut self, stream: u16, data: Bytes) -> bool;
    /// The next complete message and its stream.
    fn recv(&mut self) -> Option<(u16, Bytes)>;
    /// Starts the graceful shutdown (RFC 9260 section 9.2).
    fn shutdown(&mut self, now: Duration);
}

/// Our engine.
pub struct Ours {
    ep: Endpoint,
    id: Option<AssocId>,
    peer: IpAddr,
    connected: bool,
    closed: bool,
}

impl Ours {
    /// A client at [`CLIENT_ADDR`] (`listen` false) or a server at
    /// [`SERVER_ADDR`].
    pub fn new(setup: &Setup, listen: bool, seed: u8) -> Self {
        let mut c = EndpointConfig::new(PORT);
        c.listen = listen;
        let a = &mut c.association;
        a.path_mtu = setup.mtu;
        a.receive_window = setup.window;
        a.send_buffer = setup.window as usize;
        a.max_message_size = a.max_message_size.max(64 << 10);
        a.outbound_streams = setup.streams;
        a.max_burst = None;
        if !setup.extensions {
            a.auth = false;
            a.asconf = false;
        }
        let mut ep = Endpoint::new(c, [seed; 32]).expect("a valid configuration");
        let (me, peer) = if listen {
            (SERVER_ADDR, CLIENT_ADDR)
        } else {
            (CLIENT_ADDR, SERVER_ADDR)
        };
        ep.set_local_addresses(&[me]);
        Ours {
            ep,
            id: None,
            peer,
            connected: false,
            closed: false,
        }
    }

    /// The endpoint, for what the face does not cover.
    pub fn endpoint(&mut self) -> &mut Endpoint {
        &mut self.ep
    }

    /// The association's id once it exists.
    pub fn id(&self) -> Option<AssocId> {
        self.id
    }

    fn events(&mut self) {
        self.ep.flush_events();
        while let Some((id, e)) = self.ep.poll_event() {
            self.id.get_or_insert(id);
            match e {
                Event::Connected => self.connected = true,
                Event::Closed { .. } => self.closed = true,
                _ => {}
            }
        }
    }
}

fn at(now: Duration) -> Time {
    Time::ZERO + now
}

impl Peer for Ours {
    fn name(&self) -> &'static str {
        "msctp"
    }
    fn connect(&mut self, now: Duration) {
        let id = self
            .ep
            .connect(at(now), &[self.peer], PORT)
            .expect("connect");
        self.id = Some(id);
    }
    fn input(&mut self, now: Duration, packet: Bytes) {
        let me = self.ep.local_addresses()[0];
        self.ep.handle_datagram(at(now), self.peer, me, packet);
        self.events();
    }
    fn output(&mut self, now: Duration) -> Option<Bytes> {
        let t = self.ep.poll_transmit(at(now));
        self.events();
        let t = t?;
        let h = t.headroom;
        let mut b = Bytes::from(t.payload);
        Some(b.split_off(h))
    }
    fn timeout(&self) -> Option<Duration> {
        self.ep.poll_timeout().map(|t| t - Time::ZERO)
    }
    fn on_timeout(&mut self, now: Duration) {
        self.ep.handle_timeout(at(now));
        self.events();
    }
    fn connected(&self) -> bool {
        self.connected
    }
    fn closed(&self) -> bool {
        self.closed
    }
    fn send(&mut self, stream: u16, data: Bytes) -> bool {
        let Some(a) = self.id.and_then(|id| self.ep.association_mut(id)) else {
            return false;
        };
        a.send(stream, 0, data, false).is_ok()
    }
    fn recv(&mut self) -> Option<(u16, Bytes)> {
        let a = self.ep.association_mut(self.id?)?;
        a.recv().map(|m| (m.stream, m.data))
    }
    fn shutdown(&mut self, now: Duration) {
        if let Some(a) = self.id.and_then(|id| self.ep.association_mut(id)) {
            a.shutdown(at(now));
        }
    }
}

/// sctp-proto's engine.
pub struct Theirs {
    ep: sctp_proto::Endpoint,
    assoc: Option<(AssociationHandle, sctp_proto::Association)>,
    peer: SocketAddr,
    me: IpAddr,
    base: Instant,
    transport: Arc<TransportConfig>,
    out: VecDeque<Bytes>,
    readable: VecDeque<u16>,
    /// Bytes written but not yet acknowledged, at most `window`.
    window: usize,
    connected: bool,
    closed: bool,
}

impl Theirs {
    /// A client at [`CLIENT_ADDR`] (`listen` false) or a server at
    /// [`SERVER_ADDR`].
    pub fn new(setup: &Setup, listen: bool) -> Self {
        let mut ec = sctp_proto::EndpointConfig::new();
        ec.max_payload_size((setup.mtu - 12 - 16) as u32);
        let transport = Arc::new(
            TransportConfig::default()
                .with_max_receive_buffer_size(setup.window)
                .with_max_send_message_size(64 << 10)
                .with_max_receive_message_size(64 << 10)
                .with_max_num_outbound_streams(setup.streams)
                .with_local_port(PORT)
                .with_remote_port(PORT),
        );
        let server = listen.then(|| {
            let mut c = ServerConfig::new();
            c.transport = transport.clone();
            Arc::new(c)
        });
        let (me, peer) = if listen {
            (SERVER_ADDR, CLIENT_ADDR)
        } else {
            (CLIENT_ADDR, SERVER_ADDR)
        };
        Theirs {
            ep: sctp_proto::Endpoint::new(Arc::new(ec), server),
            assoc: None,
            peer: SocketAddr::new(peer, PORT),
            me,
            base: Instant::now(),
            transport,
            out: VecDeque::new(),
            readable: VecDeque::new(),
            window: setup.window as usize,
            connected: false,
            closed: false,
        }
    }

    /// The association, for what the face does not cover (stream reset,
    /// PR-SCTP).
    pub fn association(&mut self) -> Option<&mut sctp_proto::Association> {
        self.assoc.as_mut().map(|(_, a)| a)
    }

    fn events(&mut self) {
        let Some((h, a)) = self.assoc.as_mut() else {
            return;
        };
        // sctp-proto's `Association::shutdown` emits its one endpoint
        // event, Drained, at once, before the SHUTDOWN exchange (RFC 9260
        // section 9.2): handed to the endpoint then, the endpoint forgets
        // the association and the SHUTDOWN ACK finds nobody (the client
        // retransmits SHUTDOWN until T2 gives up). Held until the
        // association is closed, as a drained association should be.
        if a.is_closed() {
            while let Some(e) = a.poll_endpoint_event() {
                self.ep.handle_event(*h, e);
            }
        }
        while let Some(e) = a.poll() {
            match e {
                sctp_proto::Event::Connected => self.connected = true,
                sctp_proto::Event::AssociationLost { .. }
                | sctp_proto::Event::HandshakeFailed { .. } => self.closed = true,
                sctp_proto::Event::Stream(StreamEvent::Readable { id }) => {
                    self.readable.push_back(id)
                }
                _ => {}
            }
        }
        while a.accept_stream().is_some() {}
        if a.is_closed() {
            self.closed = true;
        }
    }

    fn buffered(&mut self) -> usize {
        let Some((_, a)) = self.assoc.as_mut() else {
            return 0;
        };
        a.stream_ids()
            .into_iter()
            .filter_map(|id| a.stream(id).ok()?.buffered_amount().ok())
            .sum()
    }
}

impl Peer for Theirs {
    fn name(&self) -> &'static str {
        "sctp-proto"
    }
    fn connect(&mut self, _now: Duration) {
        let mut c = ClientConfig::new();
        c.transport = self.transport.clone();
        let (h, a) = self.ep.connect(c, self.peer).expect("connect");
        self.assoc = Some((h, a));
    }
    fn input(&mut self, now: Duration, packet: Bytes) {
        let t = self.base + now;
        match self.ep.handle(t, self.peer, Some(self.me), None, packet) {
            // One association per peer: a second one is dropped.
            Some((h, DatagramEvent::NewAssociation(a))) if self.assoc.is_none() => {
                self.assoc = Some((h, a));
            }
            Some((h, DatagramEvent::AssociationEvent(e))) => {
                if let Some((mine, a)) = self.assoc.as_mut()
                    && *mine == h
                {
                    a.handle_event(e);
                }
            }
            _ => {}
        }
        self.events();
    }
    fn output(&mut self, now: Duration) -> Option<Bytes> {
        if let Some(p) = self.out.pop_front() {
            return Some(p);
        }
        let t = self.base + now;
        while let Some(x) = self.ep.poll_transmit() {
            if let Payload::RawEncode(v) = x.payload {
                self.out.extend(v);
            }
        }
        if let Some((_, a)) = self.assoc.as_mut()
            && let Some(x) = a.poll_transmit(t)
            && let Payload::RawEncode(v) = x.payload
        {
            self.out.extend(v);
        }
        self.events();
        let p = self.out.pop_front()?;
        // sctp-proto never closes the association that sent SHUTDOWN
        // COMPLETE (its `poll_transmit` drops the "closed" flag that
        // building that packet returns), though RFC 9260 section 9.2 has
        // it removed then: the packet itself is the sign.
        if crate::memory::chunk_types(&p) == [SHUTDOWN_COMPLETE] {
            self.closed = true;
        }
        Some(p)
    }
    fn timeout(&self) -> Option<Duration> {
        let (_, a) = self.assoc.as_ref()?;
        a.poll_timeout()
            .map(|t| t.saturating_duration_since(self.base))
    }
    fn on_timeout(&mut self, now: Duration) {
        if let Some((_, a)) = self.assoc.as_mut() {
            a.handle_timeout(self.base + now);
        }
        self.events();
    }
    fn connected(&self) -> bool {
        self.connected
    }
    fn closed(&self) -> bool {
        self.closed
    }
    fn send(&mut self, stream: u16, data: Bytes) -> bool {
        if !self.connected || self.buffered() + data.len() > self.window {
            return false;
        }
        let Some((_, a)) = self.assoc.as_mut() else {
            return false;
        };
        let ppi = PayloadProtocolIdentifier::Binary;
        let s = match a.stream(stream) {
            Ok(s) => s,
            Err(_) => match a.open_stream(stream, ppi) {
                Ok(s) => s,
                Err(_) => return false,
            },
        };
        let mut s = s;
        s.write_sctp(&data, ppi).is_ok()
    }
    fn recv(&mut self) -> Option<(u16, Bytes)> {
        let (_, a) = self.assoc.as_mut()?;
        while let Some(&id) = self.readable.front() {
            if let Ok(mut s) = a.stream(id)
                && let Ok(Some(mut chunks)) = s.read_sctp()
            {
                // Their API hands a message over as a copy into one buffer
                // (the fragments' data is private to the crate).
                let n = chunks.len();
                let data = chunks.next(n).map(|c| c.bytes).unwrap_or_default();
                return Some((id, data));
            }
            self.readable.pop_front();
        }
        None
    }
    fn shutdown(&mut self, _now: Duration) {
        if let Some((_, a)) = self.assoc.as_mut() {
            let _ = a.shutdown();
        }
    }
}
