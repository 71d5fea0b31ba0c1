//! Byte streams over one association, for applications written like TCP
//! ones: [`Connection::connect`] / [`Connection::accept`] give a
//! [`Connection`]; [`Connection::open_stream`] and
//! [`Connection::accept_stream`] give [`SctpStream`]s, each Tokio's
//! `AsyncRead` + `AsyncWrite` on its own SCTP stream. Message framing is
//! hidden ([`frame`]); each stream has its own flow control, so a slow
//! reader of one stream holds back only that stream's writer; the
//! association (and its handovers, RFC 5061) is shared by all.
//!
//! ```no_run
//! # async fn f(stack: msctp_net::Stack) -> Result<(), Box<dyn std::error::Error>> {
//! use msctp_net::streams::{Connection, StreamConfig};
//! use tokio::io::{AsyncReadExt, AsyncWriteExt};
//! let peers = ["192.0.2.1".parse()?];
//! let conn = Connection::connect(&stack, &peers, 5000, None, StreamConfig::default()).await?;
//! let mut s = conn.open_stream()?;
//! s.write_all(b"hello").await?;
//! s.shutdown().await?;
//! let mut answer = Vec::new();
//! s.read_to_end(&mut answer).await?;
//! # Ok(()) }
//! ```

pub mod frame;
mod reset;
mod state;
mod stream;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;
use msctp_proto::Message;
use tokio::sync::mpsc;

use crate::error::NetError;
use crate::stack::{AssocHandle, Association, Stack};
use crate::{NetEvent, StackConfig};
use reset::Resets;
use state::{ConnState, End, Out, Slot};

pub use reset::RESET_PATIENCE;
pub use state::StreamStats;
pub use stream::SctpStream;

/// Bounds of a [`Connection`]'s streams.
#[derive(Debug, Clone)]
pub struct StreamConfig {
    /// Bytes a peer may send on one stream ahead of its reader (the
    /// stream's receive window, granted in WINDOW frames; at least
    /// [`frame::INITIAL_WINDOW`]). SCTP's own window (RFC 9260 section
    /// 6.1) is the association's: this one keeps a slow reader of one
    /// stream from filling it for all.
    pub stream_window: usize,
    /// Largest message one write becomes (bytes; at most the engine's
    /// `max_message_size`). [`Connection::connect`] and
    /// [`Connection::accept`] cut it down to whole packets of their
    /// stack's path MTU ([`StreamConfig::fit_to_packets`]).
    pub max_write: usize,
    /// Streams open at once, either side's together; the peer's OPEN
    /// beyond it is answered with RESET. The association's negotiated
    /// stream count (RFC 9260 section 5.1.1) bounds it too: see
    /// [`StreamConfig::apply_to`].
    pub max_streams: usize,
    /// Streams the peer opened that wait for `accept_stream`; beyond it
    /// they are refused (RESET).
    pub accept_queue: usize,
}

impl Default for StreamConfig {
    fn default() -> Self {
        StreamConfig {
            stream_window: 256 << 10,
            max_write: 64 << 10,
            max_streams: 1024,
            accept_queue: 128,
        }
    }
}

impl StreamConfig {
    /// Checks the bounds.
    pub fn validate(&self) -> Result<(), NetError> {
        let bad = |why: &str| Err(NetError::StreamConfig(why.into()));
        if self.stream_window < frame::INITIAL_WINDOW || self.stream_window > u32::MAX as usize {
            return bad("stream_window must be between 64 KiB and 4 GiB");
        }
        if self.max_write == 0 || self.max_streams == 0 || self.accept_queue == 0 {
            return bad("max_write, max_streams and accept_queue must be at least 1");
        }
        Ok(())
    }

    /// `max_write` cut down to a whole number of packets of `path_mtu`
    /// bytes (at least one), so that a message does not end in a runt
    /// fragment (RFC 9260 section 6.9): on loopback (64 KiB packets) a
    /// 64 KiB message took a full packet and one of about 100 bytes, two
    /// packets to send, receive and reassemble for each. The room per
    /// packet is counted for the largest overhead: the common header (12
    /// bytes, RFC 9260 section 3), an I-DATA chunk header (20, RFC 8260
    /// section 2.1; DATA's is 16) and an AUTH chunk with HMAC-SHA-256
    /// (40, RFC 4895 section 4.2).
    pub fn fit_to_packets(mut self, path_mtu: usize) -> Self {
        const OVERHEAD: usize = 12 + 20 + 40;
        let room = path_mtu.saturating_sub(OVERHEAD) & !3;
        if room > 0 && self.max_write > room {
            self.max_write = self.max_write / room * room;
        }
        self
    }

    /// Sets the stack's outbound streams (OS in INIT, RFC 9260 section
    /// 3.3.2) so that each side can open `max_streams` (the initiator
    /// uses the odd stream numbers, the other side the even ones, 0 is
    /// not used), and announces RE-CONFIG (RFC 6525) so that a closed
    /// stream is reset where the peer supports it.
    pub fn apply_to(&self, stack: &mut StackConfig) {
        let want = (self.max_streams.saturating_mul(2) + 2).min(u16::MAX as usize) as u16;
        let a = &mut stack.endpoint.association;
        a.outbound_streams = a.outbound_streams.max(want);
        a.max_inbound_streams = a.max_inbound_streams.max(want);
        a.stream_reconfig = true;
    }
}

/// Which side of the association this is: it chose who opens which
/// stream numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Started the association (opens odd stream numbers).
    Initiator,
    /// Accepted it (opens even stream numbers).
    Acceptor,
}

#[derive(Debug)]
pub(crate) struct Shared {
    cfg: StreamConfig,
    state: Mutex<ConnState>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, ConnState> {
        // A panic while the lock was held left the state consistent
        // enough to fail the streams: go on with it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Held by the connection and each of its streams: when the last one is
/// dropped, the association shuts down (gracefully, after what is queued).
#[derive(Debug)]
pub(crate) struct Alive(mpsc::UnboundedSender<Out>);

impl Drop for Alive {
    fn drop(&mut self) {
        let _ = self.0.send(Out::Close);
    }
}

/// One association carrying byte streams.
#[derive(Debug)]
pub struct Connection {
    shared: Arc<Shared>,
    alive: Arc<Alive>,
    accepted: mpsc::Receiver<SctpStream>,
    handle: AssocHandle,
    events: Option<mpsc::Receiver<NetEvent>>,
    peer_addrs: Vec<IpAddr>,
}

impl Connection {
    /// Starts an association with `peers` (SCTP port `port`, the peer's
    /// UDP port `udp_port` or the stack's default) and carries streams
    /// on it. The stack's stream counts should come from
    /// [`StreamConfig::apply_to`].
    pub async fn connect(
        stack: &Stack,
        peers: &[IpAddr],
        port: u16,
        udp_port: Option<u16>,
        cfg: StreamConfig,
    ) -> Result<Connection, NetError> {
        cfg.validate()?;
        let cfg = cfg.fit_to_packets(stack.info().path_mtu);
        let a = stack.connect_via(peers, port, udp_port).await?;
        Connection::new(a, Side::Initiator, cfg).await
    }

    /// The next association a peer opened, carrying streams.
    pub async fn accept(stack: &Stack, cfg: StreamConfig) -> Result<Connection, NetError> {
        cfg.validate()?;
        let cfg = cfg.fit_to_packets(stack.info().path_mtu);
        let a = stack.accept().await?;
        Connection::new(a, Side::Acceptor, cfg).await
    }

    /// Carries streams on an established association (after whatever
    /// the application exchanged on it; stream 0 stays unused).
    pub async fn new(
        mut assoc: Association,
        side: Side,
        cfg: StreamConfig,
    ) -> Result<Connection, NetError> {
        cfg.validate()?;
        let st = assoc.status().await?;
        let limit = st.outbound_streams.min(st.inbound_streams);
        let (out_tx, out_rx) = mpsc::unbounded_channel();
        let parity = match side {
            Side::Initiator => 1,
            Side::Acceptor => 0,
        };
        let shared = Arc::new(Shared {
            state: Mutex::new(ConnState {
                slots: HashMap::new(),
                ended: None,
                limit,
                parity,
                next_id: 2 - parity,
                stats: StreamStats::default(),
                reset_freed: st.stream_reconfig,
                out: out_tx.clone(),
            }),
            cfg: cfg.clone(),
        });
        let (acc_tx, accepted) = mpsc::channel(cfg.accept_queue);
        let alive = Arc::new(Alive(out_tx));
        let handle = assoc.handle();
        let events = assoc.take_events();
        let peer_addrs = assoc.peer_addrs().to_vec();
        tokio::spawn(writer(handle.clone(), shared.clone(), out_rx));
        // The reader holds a weak token: the peer's streams waiting to be
        // accepted do not keep the connection alive.
        let weak = Arc::downgrade(&alive);
        tokio::spawn(reader(assoc, shared.clone(), acc_tx, weak));
        Ok(Connection {
            shared,
            alive,
            accepted,
            handle,
            events,
            peer_addrs,
        })
    }

    /// Opens a stream (the peer's `accept_stream` returns it). Fails when
    /// `max_streams` are open or the association has ended.
    pub fn open_stream(&self) -> Result<SctpStream, NetError> {
        let max = self.shared.cfg.max_streams;
        let mut st = self.shared.lock();
        if let Some(why) = &st.ended {
            return Err(NetError::Closed(why.clone()));
        }
        let full = NetError::NoFreeStream {
            open: st.slots.len(),
            limit: max.min(st.limit as usize / 2),
        };
        if st.slots.len() >= max {
            return Err(full);
        }
        let id = st.free_id().ok_or(full)?;
        st.slots.insert(id, Slot::new());
        st.stats.opened += 1;
        st.send(id, frame::OPEN, Bytes::from_static(frame::MARK));
        grant_rest(&mut st, id, self.shared.cfg.stream_window);
        Ok(SctpStream {
            shared: self.shared.clone(),
            id,
            _alive: self.alive.clone(),
        })
    }

    /// The next stream the peer opened; `None` once the association has
    /// ended.
    pub async fn accept_stream(&mut self) -> Option<SctpStream> {
        self.accepted.recv().await
    }

    /// A handle for status, address operations and shutdown.
    pub fn handle(&self) -> &AssocHandle {
        &self.handle
    }

    /// The association's events (handovers, paths); `None` after the
    /// first call.
    pub fn take_events(&mut self) -> Option<mpsc::Receiver<NetEvent>> {
        self.events.take()
    }

    /// The peer's addresses when the association was established.
    pub fn peer_addrs(&self) -> &[IpAddr] {
        &self.peer_addrs
    }

    /// Streams whose number is in use (open, or closing).
    pub fn open_streams(&self) -> usize {
        self.shared.lock().slots.len()
    }

    pub fn stats(&self) -> StreamStats {
        self.shared.lock().stats
    }

    /// Why the association ended, once it has.
    pub fn ended(&self) -> Option<String> {
        self.shared.lock().ended.clone()
    }
}

/// Grants the peer the rest of this side's window beyond the initial one.
fn grant_rest(st: &mut ConnState, id: u16, window: usize) {
    let extra = window.saturating_sub(frame::INITIAL_WINDOW);
    if let (Some(s), true) = (st.slots.get_mut(&id), extra > 0) {
        s.allowed += extra;
        st.send(id, frame::WINDOW, frame::window(extra as u32));
    }
}

/// Sends the queued frames in order, and the resets of freed streams;
/// ends when the connection's last handle is gone (then shuts the
/// association down) or a send fails.
async fn writer(handle: AssocHandle, shared: Arc<Shared>, mut rx: mpsc::UnboundedReceiver<Out>) {
    let mut resets = Resets::default();
    loop {
        let o = if resets.is_empty() {
            rx.recv().await
        } else {
            tokio::select! {
                o = rx.recv() => o,
                () = tokio::time::sleep(reset::RESET_RETRY) => {
                    resets.flush(&handle, &shared).await;
                    continue;
                }
            }
        };
        let Some(o) = o else { return };
        let r = match o {
            Out::Frame { stream, ppid, data } => {
                resets.flush_for(stream, &handle, &shared).await;
                handle.send(stream, ppid, data).await
            }
            Out::Window(id) => {
                resets.flush_for(id, &handle, &shared).await;
                let grant = shared.lock().take_grant(id);
                match grant {
                    Some(n) => handle.send(id, frame::WINDOW, frame::window(n)).await,
                    None => Ok(()),
                }
            }
            Out::ResetStream(id) => {
                resets.push(id);
                resets.flush(&handle, &shared).await;
                Ok(())
            }
            Out::Close => {
                let r = handle.shutdown().await;
                shared.lock().end_all(match r {
                    Ok(()) => "the connection was closed".into(),
                    Err(e) => e.to_string(),
                });
                return;
            }
        };
        if let Err(e) = r {
            shared.lock().end_all(e.to_string());
            return;
        }
    }
}

/// Reads the association's messages and hands each to its stream.
async fn reader(
    mut assoc: Association,
    shared: Arc<Shared>,
    accepted: mpsc::Sender<SctpStream>,
    alive: std::sync::Weak<Alive>,
) {
    let why = loop {
        match assoc.recv().await {
            Ok(Some(m)) => {
                let new = on_frame(&shared, &accepted, m);
                if let Some(id) = new {
                    let Some(alive) = alive.upgrade() else {
                        // Nobody will accept it: dropping it resets it.
                        drop_new(&shared, id);
                        continue;
                    };
                    let s = SctpStream {
                        shared: shared.clone(),
                        id,
                        _alive: alive,
                    };
                    // Room was checked under the lock; a closed receiver
                    // drops the stream, which resets it.
                    let _ = accepted.try_send(s);
                }
            }
            Ok(None) => break "the association has ended".to_string(),
            Err(e) => break e.to_string(),
        }
    };
    shared.lock().end_all(why);
}

fn drop_new(shared: &Shared, id: u16) {
    let mut st = shared.lock();
    if let Some(s) = st.slots.get_mut(&id) {
        s.held = false;
    }
    st.send_reset(id);
}

/// Applies one received frame; returns a stream the peer opened that
/// waits for `accept_stream`.
fn on_frame(shared: &Shared, accepted: &mpsc::Sender<SctpStream>, m: Message) -> Option<u16> {
    let cfg = &shared.cfg;
    let mut st = shared.lock();
    let id = m.stream;
    if m.ppid == frame::OPEN {
        if id == 0 || id % 2 == st.parity || id >= st.limit || st.slots.contains_key(&id) {
            st.stats.violations += 1;
            return None;
        }
        st.slots.insert(id, Slot::new());
        if st.slots.len() > cfg.max_streams || accepted.capacity() == 0 {
            st.stats.refused += 1;
            if let Some(s) = st.slots.get_mut(&id) {
                s.held = false;
            }
            st.send_reset(id);
            return None;
        }
        st.stats.accepted += 1;
        grant_rest(&mut st, id, cfg.stream_window);
        return Some(id);
    }
    let Some(s) = st.slots.get_mut(&id) else {
        st.stats.violations += 1;
        return None;
    };
    match m.ppid {
        frame::DATA if s.recv_end.is_none() && m.data.len() <= s.allowed => {
            s.allowed -= m.data.len();
            if s.held {
                s.buffered += m.data.len();
                s.buf.push_back(m.data);
                if let Some(w) = s.read_waker.take() {
                    w.wake();
                }
            }
        }
        frame::DATA => {
            // Beyond the window or after FIN: the peer broke the
            // protocol; the stream is reset.
            st.stats.violations += 1;
            if let Some(s) = st.slots.get_mut(&id) {
                s.recv_end.get_or_insert(End::Reset);
                s.wake();
            }
            st.send_reset(id);
        }
        frame::FIN | frame::RESET => {
            let reset = m.ppid == frame::RESET;
            s.recv_end
                .get_or_insert(if reset { End::Reset } else { End::Fin });
            s.peer_stopped |= reset;
            s.wake();
            if reset {
                // Our writes end here too.
                st.send_end(id, End::Fin);
            }
            st.settle(id);
        }
        frame::WINDOW => match frame::parse_window(&m.data) {
            Some(n) => {
                s.credit = s.credit.saturating_add(n as usize);
                if let Some(w) = s.write_waker.take() {
                    w.wake();
                }
            }
            None => st.stats.violations += 1,
        },
        frame::DONE => {
            s.recv_done = true;
            st.settle(id);
        }
        _ => st.stats.violations += 1,
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fitted(max_write: usize, path_mtu: usize) -> usize {
        StreamConfig {
            max_write,
            ..StreamConfig::default()
        }
        .fit_to_packets(path_mtu)
        .max_write
    }

    #[test]
    fn writes_are_cut_to_whole_packets() {
        // Loopback: 65536 - 48 bytes of SCTP packet, room 65416.
        assert_eq!(fitted(64 << 10, 65_488), 65_416);
        // Ethernet through UDP: 1452-byte packets, room 1380, 47 of them.
        assert_eq!(fitted(64 << 10, 1452), 47 * 1380);
        // Messages that fit one packet stay as they are.
        assert_eq!(fitted(1000, 1452), 1000);
        assert_eq!(fitted(1380, 1452), 1380);
        // A path MTU below the overhead leaves max_write alone.
        assert_eq!(fitted(64 << 10, 60), 64 << 10);
    }
}
