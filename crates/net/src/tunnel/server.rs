//! `msctp tunnel --server`: accepts associations from clients that hold
//! the key, and for each stream connects to the requested destination (if
//! the policy allows it) and relays.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use super::open::{self, OpenCheck};
use super::policy::DestPolicy;
use super::relay;
use super::socks::reply;
use super::{apply_key, auth};
use crate::StackConfig;
use crate::error::NetError;
use crate::stack::{Association, Stack};
use crate::streams::{Connection, SctpStream, Side, StreamConfig};

/// What the server allows and how much.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The pre-shared key clients must prove (and SCTP-AUTH's shared key).
    pub key: Vec<u8>,
    /// Per association: `max_streams` is the TCP connections it carries
    /// at once, `stream_window` the bytes buffered per connection toward
    /// the destination.
    pub streams: StreamConfig,
    /// Where connections may go.
    pub policy: DestPolicy,
    /// Associations at once from one source address (its first address);
    /// more are aborted right after set-up.
    pub max_per_source: usize,
    /// Associations at once in all.
    pub max_associations: usize,
    /// Time for a client's key proof, and for a stream's request.
    pub handshake_timeout: Duration,
    /// Time to connect to a destination (then HOST_UNREACHABLE).
    pub connect_timeout: Duration,
    /// Bytes read at once from each side of a relay.
    pub relay_buffer: usize,
    /// Require the peer to authenticate its DATA chunks with the key
    /// (SCTP-AUTH, RFC 4895; see [`super::apply_key`]); off by default
    /// ([`super::DATA_AUTH_DEFAULT`]).
    pub authenticate_data: bool,
}

impl ServerConfig {
    pub fn new(key: Vec<u8>) -> Self {
        ServerConfig {
            key,
            streams: StreamConfig::default(),
            policy: DestPolicy::default(),
            max_per_source: 4,
            max_associations: 1024,
            handshake_timeout: Duration::from_secs(10),
            connect_timeout: Duration::from_secs(10),
            relay_buffer: 64 << 10,
            authenticate_data: super::DATA_AUTH_DEFAULT,
        }
    }

    /// The stack settings the server needs: the key for SCTP-AUTH and
    /// enough streams.
    pub fn apply_to(&self, stack: &mut StackConfig) {
        apply_key(&self.key, self.authenticate_data, stack);
        self.streams.apply_to(stack);
        stack.endpoint.listen = true;
    }
}

/// Counters of a running server.
#[derive(Debug, Default)]
pub struct ServerStats {
    /// Associations whose client proved the key.
    pub clients: AtomicU64,
    /// Associations refused: no key proof, or over a bound.
    pub auth_failures: AtomicU64,
    pub over_limit: AtomicU64,
    /// Streams relayed to a destination.
    pub relayed: AtomicU64,
    /// Requests refused by the policy (SOCKS NOT_ALLOWED).
    pub not_allowed: AtomicU64,
    /// Requests whose destination could not be reached.
    pub unreachable: AtomicU64,
    /// Malformed requests.
    pub bad_requests: AtomicU64,
    /// Requests without the association's MAC, or replayed ([`open`]):
    /// not from the client that proved the key.
    pub forged_opens: AtomicU64,
}

/// Associations per source address.
type Sources = Arc<Mutex<HashMap<IpAddr, usize>>>;

/// Frees a source's slot when its association ends.
struct SourceSlot(Sources, IpAddr);

impl Drop for SourceSlot {
    fn drop(&mut self) {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = m.get_mut(&self.1) {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.1);
            }
        }
    }
}

/// Serves clients until the stack stops. The stack must have been
/// configured with [`ServerConfig::apply_to`].
pub async fn serve(
    stack: Stack,
    mut cfg: ServerConfig,
    stats: Arc<ServerStats>,
) -> Result<(), NetError> {
    super::check_key(&cfg.key)?;
    cfg.streams.validate()?;
    cfg.streams = cfg.streams.fit_to_packets(stack.info().path_mtu);
    let cfg = Arc::new(cfg);
    let sources: Sources = Arc::default();
    loop {
        let a = stack.accept().await?;
        let src = a.peer_addrs().first().copied();
        let slot = src.and_then(|ip| {
            let mut m = sources.lock().unwrap_or_else(|e| e.into_inner());
            let total: usize = m.values().sum();
            let n = m.entry(ip).or_insert(0);
            if *n >= cfg.max_per_source || total >= cfg.max_associations {
                return None;
            }
            *n += 1;
            Some(SourceSlot(sources.clone(), ip))
        });
        let Some(slot) = slot else {
            stats.over_limit.fetch_add(1, Relaxed);
            tracing::warn!("association from {src:?} refused: too many at once");
            let _ = a.abort().await;
            continue;
        };
        tokio::spawn(client(a, cfg.clone(), stats.clone(), slot));
    }
}

/// One client's association: the key proof, then its streams.
async fn client(
    mut a: Association,
    cfg: Arc<ServerConfig>,
    stats: Arc<ServerStats>,
    _slot: SourceSlot,
) {
    let peer = a.peer_addrs().first().copied();
    let opens = match auth::verify_client(&mut a, &cfg.key, cfg.handshake_timeout).await {
        Ok(k) => Arc::new(OpenCheck::new(k)),
        Err(why) => {
            stats.auth_failures.fetch_add(1, Relaxed);
            tracing::warn!("client {peer:?} refused: {why}");
            let _ = a.abort().await;
            return;
        }
    };
    stats.clients.fetch_add(1, Relaxed);
    let mut conn = match Connection::new(a, Side::Acceptor, cfg.streams.clone()).await {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!("client {peer:?}: {e}");
            return;
        }
    };
    while let Some(s) = conn.accept_stream().await {
        tokio::spawn(relay(s, cfg.clone(), stats.clone(), opens.clone()));
    }
}

/// The SOCKS reply code for a failed TCP connect.
fn connect_error_code(e: &std::io::Error) -> u8 {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::ConnectionRefused => reply::CONNECTION_REFUSED,
        K::NetworkUnreachable => reply::NETWORK_UNREACHABLE,
        K::HostUnreachable | K::TimedOut => reply::HOST_UNREACHABLE,
        _ => reply::GENERAL_FAILURE,
    }
}

async fn connect_any(addrs: &[SocketAddr], wait: Duration) -> Result<TcpStream, u8> {
    let mut code = reply::HOST_UNREACHABLE;
    for a in addrs {
        match tokio::time::timeout(wait, TcpStream::connect(a)).await {
            Ok(Ok(t)) => return Ok(t),
            Ok(Err(e)) => code = connect_error_code(&e),
            Err(_) => code = reply::HOST_UNREACHABLE,
        }
    }
    Err(code)
}

/// One stream: request and its MAC, policy, connect, answer, relay.
async fn relay(
    mut s: SctpStream,
    cfg: Arc<ServerConfig>,
    stats: Arc<ServerStats>,
    opens: Arc<OpenCheck>,
) {
    let id = s.id();
    let req = match tokio::time::timeout(cfg.handshake_timeout, open::read_request(&mut s)).await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            stats.bad_requests.fetch_add(1, Relaxed);
            tracing::info!("stream {id}: request refused: {e}");
            return refuse_open(s, e.reply.unwrap_or(reply::GENERAL_FAILURE)).await;
        }
        Err(_) => {
            stats.bad_requests.fetch_add(1, Relaxed);
            tracing::info!("stream {id}: no whole request in time");
            return refuse_open(s, reply::GENERAL_FAILURE).await;
        }
    };
    if let Err(why) = opens.check(id, &req) {
        let n = stats.forged_opens.fetch_add(1, Relaxed) + 1;
        // Bounded: the first 16, then at each power of two (a sender on
        // the path may inject opens at any rate).
        if n <= 16 || n.is_power_of_two() {
            tracing::warn!(
                "stream {id}: open for {} refused: {why}; not from the client that proved the key ({n} refused so far)",
                req.target
            );
        }
        return refuse_open(s, reply::NOT_ALLOWED).await;
    }
    let target = req.target;
    let addrs = match cfg.policy.resolve(&target).await {
        Ok(a) => a,
        Err(code) => {
            let counter = match code {
                reply::NOT_ALLOWED => &stats.not_allowed,
                _ => &stats.unreachable,
            };
            counter.fetch_add(1, Relaxed);
            tracing::info!("request for {target} refused (SOCKS reply {code})");
            return refuse(s, code).await;
        }
    };
    let mut tcp = match connect_any(&addrs, cfg.connect_timeout).await {
        Ok(t) => t,
        Err(code) => {
            stats.unreachable.fetch_add(1, Relaxed);
            return refuse(s, code).await;
        }
    };
    let _ = tcp.set_nodelay(true);
    if s.write_all(&[reply::SUCCEEDED]).await.is_err() {
        return;
    }
    stats.relayed.fetch_add(1, Relaxed);
    let n = cfg.relay_buffer;
    let r = relay::relay(&mut tcp, &s, n).await;
    if let Err(e) = r {
        tracing::debug!("relay to {target} ended: {e}");
    }
}

async fn refuse(mut s: SctpStream, code: u8) {
    let _ = s.write_all(&[code]).await;
    let _ = s.shutdown().await;
}

/// Refuses a request that may not come from the client (malformed,
/// late, or without the association's MAC): the reply, then the stream
/// is reset and its number freed at once, so that OPENs injected on the
/// path cannot hold stream numbers the client never opened.
async fn refuse_open(mut s: SctpStream, code: u8) {
    let _ = s.write_all(&[code]).await;
    s.abandon();
}
