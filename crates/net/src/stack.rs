//! The application interface (async, Tokio): a [`Stack`] binds the UDP
//! sockets and runs the driver; [`Stack::connect`] and [`Stack::accept`]
//! give [`Association`] handles to send and receive messages on streams,
//! change addresses and the primary path, read events and shut down.

use std::collections::VecDeque;
use std::net::IpAddr;
use std::sync::Arc;

use bytes::Bytes;
use msctp_proto::{AssocId, Endpoint, Message, SendOptions};
use tokio::sync::{mpsc, oneshot};

use crate::config::StackConfig;
use crate::driver::{AssocOp, AssocParts, Command, Driver, NetEvent, SendShared};
use crate::encap::{self, SocketSet};
use crate::error::{NetError, check_unicast};
use crate::monitor::{self, Interfaces, Subscription};
use crate::status::{AssocStatus, DriverStats};

/// Messages fetched from the driver per request.
const RECV_BATCH: usize = 256;

/// An SCTP-over-UDP stack: one endpoint (SCTP port), one UDP socket per
/// local address, one driver task.
#[derive(Debug, Clone)]
pub struct Stack {
    tx: mpsc::Sender<Command>,
    info: Arc<StackInfo>,
}

/// What a stack was started with.
#[derive(Debug)]
pub struct StackInfo {
    pub port: u16,
    pub udp_port: u16,
    pub local_addrs: Vec<IpAddr>,
    pub connect_timeout: std::time::Duration,
    /// The path MTU of its associations (SCTP packet bytes).
    pub path_mtu: usize,
    /// The origin of the driver's clock: its times (`Handover::at_ns`,
    /// ...) are nanoseconds since this instant.
    pub started: std::time::Instant,
    /// Interfaces to follow that do not exist yet (with the monitor).
    pub missing_interfaces: Vec<String>,
}

async fn call<T>(
    tx: &mpsc::Sender<Command>,
    make: impl FnOnce(oneshot::Sender<Result<T, NetError>>) -> Command,
) -> Result<T, NetError> {
    let (r, w) = oneshot::channel();
    tx.send(make(r)).await.map_err(|_| NetError::Stopped)?;
    w.await.map_err(|_| NetError::Stopped)?
}

impl Stack {
    /// Binds the sockets and starts the driver on the current Tokio
    /// runtime. Fails with a clear error if a port is in use or an address
    /// is not local.
    pub async fn bind(mut cfg: StackConfig) -> Result<Stack, NetError> {
        cfg.endpoint.validate()?;
        let monitor_sub = if cfg.monitor {
            Some(Subscription::new().map_err(NetError::Monitor)?)
        } else {
            None
        };
        let mut ifaces = Interfaces::new(cfg.interfaces.clone());
        match monitor::dump() {
            Ok(changes) => {
                for c in &changes {
                    ifaces.apply(c);
                }
            }
            Err(e) if cfg.monitor => return Err(NetError::Monitor(e)),
            Err(e) if !cfg.interfaces.is_empty() => {
                let why = format!(
                    "cannot list the interfaces to find {:?}: {e}",
                    cfg.interfaces
                );
                return Err(NetError::Monitor(std::io::Error::new(e.kind(), why)));
            }
            Err(e) => tracing::debug!("no interface dump: {e}"),
        }
        // An interface named that the host lacks: an error, unless the
        // monitor follows it (it may appear later, a modem plugged in).
        let missing_interfaces = ifaces.missing();
        if let Some(name) = missing_interfaces.first()
            && !cfg.monitor
        {
            return Err(NetError::UnknownInterface {
                name: name.clone(),
                known: ifaces.names(),
            });
        }
        if cfg.local_addrs.is_empty() {
            cfg.local_addrs = ifaces.addresses();
        }
        if cfg.local_addrs.is_empty() {
            return Err(NetError::NoLocalAddress);
        }
        // On loopback the interface's MTU is known (below): nothing to
        // discover.
        if cfg.loopback_mtu && cfg.local_addrs.iter().all(|a| a.is_loopback()) {
            cfg.endpoint.association.pmtud.enabled = false;
        }
        let mut socks = SocketSet::default();
        for a in &cfg.local_addrs {
            let a = check_unicast(*a)?;
            if !socks.contains(a) {
                socks
                    .socks
                    .push(encap::bind(a, cfg.udp_port, cfg.socket_options())?);
            }
        }
        // Port 0 asks the kernel; every socket then uses the first one's.
        if cfg.udp_port == 0
            && let Some(first) = socks.socks.first()
        {
            let port = first.sock.local_addr()?.port();
            cfg.udp_port = port;
            let addrs = socks.addrs();
            socks.socks.truncate(1);
            for a in addrs.into_iter().skip(1) {
                socks
                    .socks
                    .push(encap::bind(a, port, cfg.socket_options())?);
            }
        }
        if cfg.loopback_mtu
            && cfg.local_addrs.iter().all(|a| a.is_loopback())
            && let Some(first) = socks.socks.first()
        {
            use std::os::fd::AsRawFd;
            if let Some(mtu) = crate::udp::loopback_mtu(first.sock.as_raw_fd()) {
                // IPv6 and UDP headers (the larger IP header of the two).
                let m = mtu.saturating_sub(48).clamp(508, 65_507);
                cfg.endpoint.association.path_mtu = m;
            }
        }
        let seed: [u8; 32] = rand::random();
        let mut ep = Endpoint::new(cfg.endpoint.clone(), seed)?;
        ep.set_local_addresses(&socks.addrs());
        let started = std::time::Instant::now();
        let info = Arc::new(StackInfo {
            port: cfg.endpoint.port,
            udp_port: cfg.udp_port,
            local_addrs: socks.addrs(),
            connect_timeout: cfg.connect_timeout,
            path_mtu: cfg.endpoint.association.path_mtu,
            started,
            missing_interfaces,
        });
        let (tx, rx) = mpsc::channel(1024);
        let driver = Driver::new(cfg, ep, socks, rx, ifaces, monitor_sub, started);
        tokio::spawn(driver.run());
        Ok(Stack { tx, info })
    }

    pub fn info(&self) -> &StackInfo {
        &self.info
    }

    /// The local UDP encapsulation port.
    pub fn udp_port(&self) -> u16 {
        self.info.udp_port
    }

    /// Starts an association with a peer that has `peers` (the first is
    /// tried first) on SCTP port `port`, reached at the stack's default
    /// remote UDP port. Waits until it is established.
    pub async fn connect(&self, peers: &[IpAddr], port: u16) -> Result<Association, NetError> {
        self.connect_via(peers, port, None).await
    }

    /// Like [`Stack::connect`], with the peer's UDP encapsulation port.
    pub async fn connect_via(
        &self,
        peers: &[IpAddr],
        port: u16,
        udp_port: Option<u16>,
    ) -> Result<Association, NetError> {
        for p in peers {
            check_unicast(*p)?;
        }
        let peers = peers.to_vec();
        let first = peers.first().copied();
        let fut = call(&self.tx, |reply| Command::Connect {
            peers,
            port,
            udp_port,
            reply,
        });
        let t = self.info.connect_timeout;
        match tokio::time::timeout(t, fut).await {
            Ok(r) => r.map(|p| Association::new(p, self.tx.clone())),
            Err(_) => {
                let peer = first.unwrap_or(IpAddr::from([0, 0, 0, 0]));
                let udp = udp_port.unwrap_or(0);
                Err(NetError::Unreachable {
                    peer: std::net::SocketAddr::new(peer, udp),
                    port,
                    udp_port: udp,
                    secs: t.as_secs_f64(),
                })
            }
        }
    }

    /// The next association a peer opened (the stack must listen:
    /// `StackConfig::endpoint.listen`).
    pub async fn accept(&self) -> Result<Association, NetError> {
        let p = call(&self.tx, |reply| Command::Accept { reply }).await?;
        Ok(Association::new(p, self.tx.clone()))
    }

    /// Adds a local address: binds its socket and adds it to every
    /// established association (ASCONF Add IP).
    pub async fn add_local_address(&self, addr: IpAddr) -> Result<(), NetError> {
        check_unicast(addr)?;
        call(&self.tx, |reply| Command::AddLocal { addr, reply }).await
    }

    /// Removes a local address from every association (ASCONF Delete IP).
    pub async fn remove_local_address(&self, addr: IpAddr) -> Result<(), NetError> {
        call(&self.tx, |reply| Command::RemoveLocal { addr, reply }).await
    }

    /// Addresses that have a socket.
    pub async fn local_addresses(&self) -> Result<Vec<IpAddr>, NetError> {
        call(&self.tx, |reply| Command::LocalAddrs { reply }).await
    }

    pub async fn stats(&self) -> Result<DriverStats, NetError> {
        call(&self.tx, |reply| Command::Stats { reply }).await
    }
}

/// Queues a message without waiting for the engine to take it: takes
/// send credit for its bytes (waiting while the credit is used up, which
/// is the back-pressure), reports an earlier queued send's failure.
#[allow(clippy::too_many_arguments)]
async fn send_msg(
    tx: &mpsc::Sender<Command>,
    shared: &SendShared,
    id: AssocId,
    session: u64,
    stream: u16,
    ppid: u32,
    data: Bytes,
    opts: SendOptions,
) -> Result<(), NetError> {
    earlier_error(shared)?;
    let n = data.len().clamp(1, shared.limit.min(u32::MAX as usize)) as u32;
    let permit = match shared.credit.acquire_many(n).await {
        Ok(p) => p,
        Err(_) => {
            earlier_error(shared)?;
            return Err(NetError::Closed("the association has ended".into()));
        }
    };
    tx.send(Command::Send {
        id,
        session,
        stream,
        ppid,
        opts,
        data,
        credit: n,
        reply: None,
    })
    .await
    .map_err(|_| NetError::Stopped)?;
    // The driver gives the credit back once the engine took the message
    // (if this future is dropped before, the permit returns it).
    permit.forget();
    Ok(())
}

fn earlier_error(shared: &SendShared) -> Result<(), NetError> {
    if !shared.failed.load(std::sync::atomic::Ordering::Acquire) {
        return Ok(());
    }
    match shared.error.lock().ok().and_then(|g| g.clone()) {
        Some(e) => Err(NetError::SendFailed(e)),
        None => Ok(()),
    }
}

/// A cloneable handle to one association for sending, status and
/// address operations from other tasks (receiving and events stay with
/// the [`Association`]).
#[derive(Debug, Clone)]
pub struct AssocHandle {
    id: AssocId,
    session: u64,
    tx: mpsc::Sender<Command>,
    shared: Arc<SendShared>,
}

impl AssocHandle {
    /// Queues a message (ordered) on `stream`; waits while the send
    /// buffer is full.
    pub async fn send(&self, stream: u16, ppid: u32, data: Bytes) -> Result<(), NetError> {
        self.send_message(stream, ppid, data, SendOptions::default())
            .await
    }

    /// Queues a message with its options: ordering, a partial reliability
    /// policy (RFC 3758, RFC 7496; its lifetime counts from this call) and
    /// SACK-IMMEDIATELY (RFC 7053). Waits while the send buffer is full.
    pub async fn send_message(
        &self,
        stream: u16,
        ppid: u32,
        data: Bytes,
        opts: SendOptions,
    ) -> Result<(), NetError> {
        let (id, session) = (self.id, self.session);
        send_msg(
            &self.tx,
            &self.shared,
            id,
            session,
            stream,
            ppid,
            data,
            opts,
        )
        .await
    }

    pub async fn status(&self) -> Result<AssocStatus, NetError> {
        let (id, session) = (self.id, self.session);
        call(&self.tx, |reply| Command::Status { id, session, reply }).await
    }

    pub async fn shutdown(&self) -> Result<(), NetError> {
        let (id, session) = (self.id, self.session);
        call(&self.tx, |reply| Command::Shutdown { id, session, reply }).await?;
        earlier_error(&self.shared)
    }

    /// As [`Association::reset_streams`] (RFC 6525 section 5.1.2).
    pub async fn reset_streams(&self, streams: &[u16]) -> Result<(), NetError> {
        let op = AssocOp::ResetStreams(streams.to_vec());
        assoc_op(&self.tx, self.id, self.session, op).await
    }
}

/// Carries out `op` on the association `id` (this session of it).
async fn assoc_op(
    tx: &mpsc::Sender<Command>,
    id: AssocId,
    session: u64,
    op: AssocOp,
) -> Result<(), NetError> {
    call(tx, |reply| Command::Op {
        id,
        session,
        op,
        reply,
    })
    .await
}

/// One association, as one session of the application: a restart of the
/// association by the peer (RFC 9260 section 5.2.4) ends this session
/// (`recv` ends, other calls fail with "the peer restarted") and
/// [`Stack::accept`] gives the new one.
///
/// Dropping it releases the association: a graceful shutdown (RFC 9260
/// section 9.2) that still delivers what was queued, or an ABORT
/// (section 9.1) if received messages were left unread (the peer then
/// knows they were not taken) or the shutdown does not finish within
/// `StackConfig::drain_timeout`. [`Association::shutdown`] waits for the
/// graceful end and reports it; [`Association::abort`] ends at once.
#[derive(Debug)]
pub struct Association {
    id: AssocId,
    session: u64,
    tx: mpsc::Sender<Command>,
    shared: Arc<SendShared>,
    events: Option<mpsc::Receiver<NetEvent>>,
    inbox: VecDeque<Message>,
    /// The answer to a receive request already sent: kept across
    /// cancelled `recv` calls so that no batch is lost.
    pending_recv: Option<oneshot::Receiver<Result<Vec<Message>, NetError>>>,
    eof: bool,
    peer_addrs: Vec<IpAddr>,
    peer_port: u16,
}

impl Association {
    fn new(p: AssocParts, tx: mpsc::Sender<Command>) -> Self {
        Association {
            id: p.id,
            session: p.session,
            tx,
            shared: p.shared,
            events: Some(p.events),
            inbox: VecDeque::new(),
            pending_recv: None,
            eof: false,
            peer_addrs: p.peer_addrs,
            peer_port: p.peer_port,
        }
    }

    pub fn id(&self) -> AssocId {
        self.id
    }

    /// A handle for sending from another task.
    pub fn handle(&self) -> AssocHandle {
        AssocHandle {
            id: self.id,
            session: self.session,
            tx: self.tx.clone(),
            shared: self.shared.clone(),
        }
    }

    /// The peer's addresses when the association was established.
    pub fn peer_addrs(&self) -> &[IpAddr] {
        &self.peer_addrs
    }

    pub fn peer_port(&self) -> u16 {
        self.peer_port
    }

    /// Queues a message (ordered) on `stream`; waits while the send
    /// buffer is full.
    pub async fn send(&self, stream: u16, ppid: u32, data: Bytes) -> Result<(), NetError> {
        self.send_with(stream, ppid, data, false).await
    }

    /// Queues a message, ordered or not. Returns once the stack holds
    /// it (waiting while the send credit is used up); a failure to queue
    /// it in the association (e.g. a stream that does not exist) is
    /// reported by the next `send` or by `shutdown`.
    pub async fn send_with(
        &self,
        stream: u16,
        ppid: u32,
        data: Bytes,
        unordered: bool,
    ) -> Result<(), NetError> {
        let opts = SendOptions {
            unordered,
            ..SendOptions::default()
        };
        self.send_message(stream, ppid, data, opts).await
    }

    /// Queues a message with its options: ordering, a partial reliability
    /// policy (RFC 3758, RFC 7496; its lifetime counts from this call,
    /// and applies only when the peer supports PR-SCTP) and
    /// SACK-IMMEDIATELY (RFC 7053). Returns as [`Self::send_with`] does.
    pub async fn send_message(
        &self,
        stream: u16,
        ppid: u32,
        data: Bytes,
        opts: SendOptions,
    ) -> Result<(), NetError> {
        send_msg(
            &self.tx,
            &self.shared,
            self.id,
            self.session,
            stream,
            ppid,
            data,
            opts,
        )
        .await
    }

    /// The next message; `None` once the association has ended and every
    /// message was read. Cancel-safe: dropping the future loses nothing.
    pub async fn recv(&mut self) -> Result<Option<Message>, NetError> {
        if let Some(m) = self.inbox.pop_front() {
            return Ok(Some(m));
        }
        if self.eof {
            return Ok(None);
        }
        if self.pending_recv.is_none() {
            let (reply, answer) = oneshot::channel();
            // Not sent if this future is dropped while waiting here.
            self.tx
                .send(Command::Recv {
                    id: self.id,
                    session: self.session,
                    max: RECV_BATCH,
                    reply,
                })
                .await
                .map_err(|_| NetError::Stopped)?;
            self.pending_recv = Some(answer);
        }
        let Some(answer) = self.pending_recv.as_mut() else {
            return Err(NetError::Stopped);
        };
        let batch = answer.await;
        self.pending_recv = None;
        let batch = batch.map_err(|_| NetError::Stopped)??;
        if batch.is_empty() {
            self.eof = true;
            return Ok(None);
        }
        self.inbox.extend(batch);
        Ok(self.inbox.pop_front())
    }

    /// The next event (handover, path change, ...); `None` when the stack
    /// is gone.
    pub async fn next_event(&mut self) -> Option<NetEvent> {
        self.events.as_mut()?.recv().await
    }

    /// An event if one is waiting.
    pub fn try_event(&mut self) -> Option<NetEvent> {
        self.events.as_mut()?.try_recv().ok()
    }

    /// Takes the event stream away (to read it in another task or next
    /// to `recv`); `next_event` and `try_event` then return `None`.
    pub fn take_events(&mut self) -> Option<mpsc::Receiver<NetEvent>> {
        self.events.take()
    }

    /// State, paths, counters.
    pub async fn status(&self) -> Result<AssocStatus, NetError> {
        let (id, session) = (self.id, self.session);
        call(&self.tx, |reply| Command::Status { id, session, reply }).await
    }

    async fn op(&self, op: AssocOp) -> Result<(), NetError> {
        assoc_op(&self.tx, self.id, self.session, op).await
    }

    /// Sends new data to `peer` (one of the peer's addresses).
    pub async fn set_primary(&self, peer: IpAddr) -> Result<(), NetError> {
        self.op(AssocOp::SetPrimary(peer)).await
    }

    /// Asks the peer to send to our `local` address (ASCONF Set Primary
    /// Address) and sends from it.
    pub async fn request_peer_primary(&self, local: IpAddr) -> Result<(), NetError> {
        self.op(AssocOp::RequestPeerPrimary(local)).await
    }

    /// Sends a capacity-probe train on the path to `peer` now; the
    /// estimate appears in the path's statistics when the echo returns.
    pub async fn probe_capacity(&self, peer: IpAddr) -> Result<(), NetError> {
        self.op(AssocOp::ProbeCapacity(peer)).await
    }

    /// Adds a local address to this association (ASCONF Add IP); binds
    /// its socket if needed.
    pub async fn add_local_address(&self, local: IpAddr) -> Result<(), NetError> {
        check_unicast(local)?;
        self.op(AssocOp::AddLocal(local)).await
    }

    /// Deletes a local address from this association (ASCONF Delete IP).
    pub async fn remove_local_address(&self, local: IpAddr) -> Result<(), NetError> {
        self.op(AssocOp::RemoveLocal(local)).await
    }

    /// Resets outgoing `streams` (all when empty; RFC 6525 section
    /// 5.1.2) once the messages sent on them so far have left: messages
    /// sent on them afterwards wait and leave numbered from SSN 0 when
    /// the peer performed the reset (`Event::Reconfig`). Needs
    /// `stream_reconfig` on both sides.
    pub async fn reset_streams(&self, streams: &[u16]) -> Result<(), NetError> {
        self.op(AssocOp::ResetStreams(streams.to_vec())).await
    }

    /// Asks the peer to reset its outgoing streams towards us (RFC 6525
    /// section 5.1.3).
    pub async fn request_incoming_reset(&self, streams: &[u16]) -> Result<(), NetError> {
        self.op(AssocOp::RequestIncomingReset(streams.to_vec()))
            .await
    }

    /// Adds `n` outgoing streams (RFC 6525 section 5.1.5), usable once
    /// the peer agreed (`Event::Reconfig`, streams changed).
    pub async fn add_streams(&self, n: u16) -> Result<(), NetError> {
        self.op(AssocOp::AddStreams(n)).await
    }

    /// Graceful shutdown (RFC 9260 section 9.2): every message queued so
    /// far is delivered and acknowledged first. Returns when the
    /// association has closed.
    pub async fn shutdown(&self) -> Result<(), NetError> {
        let (id, session) = (self.id, self.session);
        call(&self.tx, |reply| Command::Shutdown { id, session, reply }).await?;
        earlier_error(&self.shared)
    }

    /// Ends the association at once (ABORT); unsent data is lost.
    pub async fn abort(&self) -> Result<(), NetError> {
        self.op(AssocOp::Abort).await
    }
}

impl Drop for Association {
    /// Releases the session (see the type's documentation). The flag is
    /// what counts; the command only wakes the driver (if its queue is
    /// full, it is busy and looks at the flag on its next pass).
    fn drop(&mut self) {
        self.shared
            .released
            .store(true, std::sync::atomic::Ordering::Release);
        let _ = self.tx.try_send(Command::Release {
            id: self.id,
            session: self.session,
        });
    }
}
