//! `msctp tunnel` (client side): a SOCKS 5 server on a local address that
//! carries each accepted TCP connection on one stream of one association
//! to the tunnel's server (set up on the first connection, again after it
//! ends).

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::open::Opener;
use super::relay;
use super::socks::{self, Target, reply};
use super::{apply_key, auth};
use crate::StackConfig;
use crate::error::NetError;
use crate::stack::Stack;
use crate::streams::{Connection, SctpStream, Side, StreamConfig};

/// Where the server is and how much the client takes on.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// The pre-shared key (and SCTP-AUTH's shared key).
    pub key: Vec<u8>,
    /// The server's addresses (the first tried first) and SCTP port.
    pub server: Vec<IpAddr>,
    pub port: u16,
    /// The server's UDP encapsulation port (`None`: the stack's default
    /// remote port, RFC 6951's 9899).
    pub udp_port: Option<u16>,
    /// `max_streams` bounds the TCP connections carried at once;
    /// `stream_window` the bytes buffered per connection.
    pub streams: StreamConfig,
    /// Time for a SOCKS request, the key exchange, and the server's
    /// answer to a stream's request (which includes its connect).
    pub handshake_timeout: Duration,
    /// Bytes read at once from each side of a relay.
    pub relay_buffer: usize,
    /// Require the peer to authenticate its DATA chunks with the key
    /// (SCTP-AUTH, RFC 4895; see [`super::apply_key`]); off by default
    /// ([`super::DATA_AUTH_DEFAULT`]).
    pub authenticate_data: bool,
}

impl ClientConfig {
    pub fn new(key: Vec<u8>, server: Vec<IpAddr>, port: u16) -> Self {
        ClientConfig {
            key,
            server,
            port,
            udp_port: None,
            streams: StreamConfig::default(),
            handshake_timeout: Duration::from_secs(20),
            relay_buffer: 64 << 10,
            authenticate_data: super::DATA_AUTH_DEFAULT,
        }
    }

    /// The stack settings the client needs: the key for SCTP-AUTH and
    /// enough streams.
    pub fn apply_to(&self, stack: &mut StackConfig) {
        apply_key(&self.key, self.authenticate_data, stack);
        self.streams.apply_to(stack);
    }
}

/// Counters of a running client.
#[derive(Debug, Default)]
pub struct ClientStats {
    /// Associations set up with the server.
    pub associations: AtomicU64,
    /// TCP connections relayed / refused (by the server or malformed).
    pub relayed: AtomicU64,
    pub refused: AtomicU64,
}

/// An association with the tunnel's server that carries connections:
/// its streams, and the sealing of its stream opens.
#[derive(Debug)]
pub struct Tunnel {
    pub conn: Connection,
    pub opener: Opener,
}

/// Sets up an association with the server of `cfg` on `stack` (which
/// [`ClientConfig::apply_to`] configured) and proves the key.
pub async fn associate(stack: &Stack, cfg: &ClientConfig) -> Result<Tunnel, NetError> {
    let mut a = stack
        .connect_via(&cfg.server, cfg.port, cfg.udp_port)
        .await?;
    let key = auth::prove_to_server(&mut a, &cfg.key, cfg.handshake_timeout).await?;
    let conn = Connection::new(a, Side::Initiator, cfg.streams.clone()).await?;
    Ok(Tunnel {
        conn,
        opener: Opener::new(key),
    })
}

impl Tunnel {
    /// Opens a stream to `target` through the server: the sealed request
    /// ([`super::open`]), then the server's answer within `wait`; the
    /// SOCKS reply code if it is not success.
    pub async fn open(&self, target: &Target, wait: Duration) -> Result<SctpStream, u8> {
        let mut s = self.conn.open_stream().map_err(|e| {
            tracing::warn!("{e}");
            reply::GENERAL_FAILURE
        })?;
        let req = self.opener.request(s.id(), target);
        s.write_all(&req)
            .await
            .map_err(|_| reply::GENERAL_FAILURE)?;
        match tokio::time::timeout(wait, s.read_u8()).await {
            Ok(Ok(reply::SUCCEEDED)) => Ok(s),
            Ok(Ok(code)) => Err(code),
            _ => Err(reply::GENERAL_FAILURE),
        }
    }
}

/// The client's shared state.
struct Client {
    stack: Stack,
    cfg: ClientConfig,
    tunnel: tokio::sync::Mutex<Option<Arc<Tunnel>>>,
    stats: Arc<ClientStats>,
}

impl Client {
    /// The association to the server, set up if there is none (or the
    /// last one ended).
    async fn tunnel(&self) -> Result<Arc<Tunnel>, NetError> {
        let mut g = self.tunnel.lock().await;
        if let Some(t) = g.as_ref()
            && t.conn.ended().is_none()
        {
            return Ok(t.clone());
        }
        *g = None;
        let t = Arc::new(associate(&self.stack, &self.cfg).await?);
        self.stats.associations.fetch_add(1, Relaxed);
        *g = Some(t.clone());
        Ok(t)
    }
}

/// Serves SOCKS 5 on `listener` until it fails. The stack must have been
/// configured with [`ClientConfig::apply_to`]. The association is set up
/// at once, so that a wrong key or an unreachable server is reported
/// before any application connects.
pub async fn serve(
    stack: Stack,
    listener: TcpListener,
    mut cfg: ClientConfig,
    stats: Arc<ClientStats>,
) -> Result<(), NetError> {
    super::check_key(&cfg.key)?;
    cfg.streams.validate()?;
    cfg.streams = cfg.streams.fit_to_packets(stack.info().path_mtu);
    let limit = Arc::new(tokio::sync::Semaphore::new(cfg.streams.max_streams));
    let client = Arc::new(Client {
        stack,
        cfg,
        tunnel: tokio::sync::Mutex::new(None),
        stats,
    });
    client.tunnel().await?;
    loop {
        // At most `max_streams` connections at once: the next accept
        // waits for one to end.
        let permit = limit
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| NetError::Stopped)?;
        let (tcp, _) = listener.accept().await?;
        let c = client.clone();
        tokio::spawn(async move {
            handle(tcp, &c).await;
            drop(permit);
        });
    }
}

/// One application connection: SOCKS request, a stream, the server's
/// answer, the relay.
async fn handle(mut tcp: TcpStream, c: &Client) {
    let wait = c.cfg.handshake_timeout;
    let target = match tokio::time::timeout(wait, socks::accept(&mut tcp)).await {
        Ok(Ok(t)) => t,
        Ok(Err(e)) => {
            c.stats.refused.fetch_add(1, Relaxed);
            tracing::info!("SOCKS request refused: {e}");
            return match e.reply {
                Some(code) => refuse(tcp, code).await,
                None => close(tcp).await,
            };
        }
        Err(_) => {
            c.stats.refused.fetch_add(1, Relaxed);
            return refuse(tcp, reply::GENERAL_FAILURE).await;
        }
    };
    let answer = async {
        let t = c.tunnel().await.map_err(|e| {
            tracing::warn!("no association with the tunnel server: {e}");
            reply::NETWORK_UNREACHABLE
        })?;
        t.open(&target, wait).await
    };
    let s = match answer.await {
        Ok(s) => s,
        Err(code) => {
            c.stats.refused.fetch_add(1, Relaxed);
            return refuse(tcp, code).await;
        }
    };
    if socks::send_reply(&mut tcp, reply::SUCCEEDED).await.is_err() {
        return;
    }
    c.stats.relayed.fetch_add(1, Relaxed);
    let _ = tcp.set_nodelay(true);
    let n = c.cfg.relay_buffer;
    if let Err(e) = relay::relay(&mut tcp, &s, n).await {
        tracing::debug!("relay to {target} ended: {e}");
    }
}

/// Sends the error reply and closes (RFC 1928 section 6: the server
/// closes the connection shortly after a failure reply).
async fn refuse(mut tcp: TcpStream, code: u8) {
    let _ = socks::send_reply(&mut tcp, code).await;
    close(tcp).await;
}

/// Closes without a reset: ends the write half, then reads what the
/// client still sends (at most 64 KiB for at most 2 s) so that the kernel
/// does not answer unread input with a RST that would destroy the reply.
async fn close(mut tcp: TcpStream) {
    let _ = tcp.shutdown().await;
    let mut sink = [0u8; 4096];
    let drain = async {
        let mut left = 64usize << 10;
        while left > 0 {
            match tcp.read(&mut sink).await {
                Ok(0) | Err(_) => break,
                Ok(n) => left = left.saturating_sub(n),
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), drain).await;
}
