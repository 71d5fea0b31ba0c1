//! QUIC connection migration (RFC 9000 section 9) as a mobile QUIC
//! application does it, beside msctp in the handover tests: a quinn
//! client uploads a file over one unidirectional stream while it watches
//! the kernel's interface messages (rtnetlink, read with the same
//! [`msctp_net::monitor`] the msctp driver uses) and, when the interface
//! it sends from loses its carrier or its address, moves the connection to
//! the best interface left: a new UDP socket bound to that interface
//! (`SO_BINDTODEVICE`, as Android's `Network.bindSocket`) and its address,
//! handed to `quinn::Endpoint::rebind`. quinn then switches to a fresh
//! connection ID and sends a PING from the new address (RFC 9000 sections
//! 9.2 and 9.5); the server validates the new path (section 8.2) and
//! answers there. When a better interface returns (carrier up with an
//! address), the client moves back to it at once.
//!
//! Everything else is quinn's documented default (Cubic, its initial
//! window, loss detection of RFC 9002, path MTU discovery from 1200
//! bytes). TLS 1.3 with a self-signed certificate made for the run
//! (rcgen), trusted only by this client.
//!
//! Only the handover tests include this file (`#[path]`): the other users
//! of `common` (crates/cli's tests) do not depend on quinn.

// Each test binary that includes this file uses part of it.
#![allow(dead_code)]

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use msctp_net::monitor::{self, Interfaces, Subscription};
use msctp_net::transfer::{self, GapTracker};
use quinn::crypto::rustls::QuicClientConfig;
use quinn::{ClientConfig, Endpoint, ServerConfig, VarInt};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use sha2::{Digest, Sha256};
use socket2::{Domain, Protocol, Socket, Type};

use crate::common::{Netns, block_on};

/// A server configuration and a client configuration that trusts only
/// the server's freshly made certificate for "localhost".
fn configs() -> Result<(ServerConfig, ClientConfig), String> {
    let ck = rcgen::generate_simple_self_signed(vec!["localhost".into()])
        .map_err(|e| format!("certificate: {e}"))?;
    let cert: CertificateDer<'static> = ck.cert.der().clone();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(ck.key_pair.serialize_der()));
    let server = ServerConfig::with_single_cert(vec![cert.clone()], key)
        .map_err(|e| format!("server TLS: {e}"))?;
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert).map_err(|e| format!("root store: {e}"))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| format!("client TLS: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let quic = QuicClientConfig::try_from(tls).map_err(|e| format!("client QUIC: {e}"))?;
    Ok((server, ClientConfig::new(Arc::new(quic))))
}

/// A UDP socket bound to interface `dev` and to `addr` (any port).
fn bound_socket(dev: &str, addr: IpAddr) -> io::Result<std::net::UdpSocket> {
    let s = Socket::new(
        Domain::for_address(SocketAddr::new(addr, 0)),
        Type::DGRAM,
        Some(Protocol::UDP),
    )?;
    s.bind_device(Some(dev.as_bytes()))?;
    s.bind(&SocketAddr::new(addr, 0).into())?;
    Ok(s.into())
}

/// One move of the client's connection to another interface.
#[derive(Debug, Clone)]
pub struct Rebind {
    /// When the client read the kernel's message that made it move.
    pub read: Instant,
    /// When `Endpoint::rebind` returned (the move is done; quinn's PING
    /// from the new address follows).
    pub at: Instant,
    /// The interface and address moved to.
    pub to: (String, IpAddr),
    /// The interface left had lost its carrier or its address (else a
    /// better one came back).
    pub left_failed: bool,
}

/// What the receiver of the QUIC upload saw, and the client's moves.
#[derive(Debug)]
pub struct QuicRun {
    /// The client wrote the whole file and the server read it to its end
    /// within the limit.
    pub sent_ok: bool,
    pub bytes: usize,
    pub sha256: String,
    /// Every interval between deliveries from `floor` on (first delivery,
    /// gap ends and lengths).
    pub gaps: GapTracker,
    pub first_delivery: Option<Instant>,
    pub rebinds: Vec<Rebind>,
    /// Why the run failed, if it did.
    pub error: Option<String>,
    /// The client's connection counters at the end (losses, congestion
    /// events, RTT, packet size).
    pub client_stats: Option<quinn::ConnectionStats>,
}

/// The client's choice: the first interface of `prefer` that is up and
/// has a usable IPv4 address, with that address.
fn best(ifs: &Interfaces, prefer: &[String]) -> Option<(String, IpAddr)> {
    prefer.iter().find_map(|name| {
        let k = ifs.index_of(name)?;
        let i = ifs.ifaces.get(&k)?;
        if !i.up {
            return None;
        }
        i.addrs
            .iter()
            .map(|(a, _)| *a)
            .find(|a| a.is_ipv4() && monitor::usable(a))
            .map(|a| (name.clone(), a))
    })
}

/// The client's mobility: follows `prefer` (interface names, best first)
/// and moves `endpoint` to the best usable one whenever it changes.
async fn follow(
    endpoint: Endpoint,
    mut sub: Subscription,
    mut ifs: Interfaces,
    prefer: Vec<String>,
    mut current: (String, IpAddr),
    log: Arc<Mutex<Vec<Rebind>>>,
) {
    loop {
        let Ok(changes) = sub.next().await else {
            return;
        };
        let read = Instant::now();
        for c in &changes {
            ifs.apply(c);
        }
        let Some(want) = best(&ifs, &prefer) else {
            // Nowhere to go yet (the single radio between two addresses).
            continue;
        };
        if want == current {
            continue;
        }
        let cur_index = ifs.index_of(&current.0);
        let left_failed = !cur_index.is_some_and(|k| {
            ifs.is_up(k) && ifs.ifaces[&k].addrs.iter().any(|(a, _)| *a == current.1)
        });
        match bound_socket(&want.0, want.1).and_then(|s| endpoint.rebind(s)) {
            Ok(()) => {
                log.lock().unwrap().push(Rebind {
                    read,
                    at: Instant::now(),
                    to: want.clone(),
                    left_failed,
                });
                current = want;
            }
            Err(e) => eprintln!("quic client: cannot move to {want:?}: {e}"),
        }
    }
}

/// The set-up of one QUIC upload.
#[derive(Debug, Clone)]
pub struct Upload {
    /// Where the server listens (and the client connects to).
    pub server: SocketAddr,
    /// The client's interfaces, best first.
    pub prefer: Vec<String>,
    /// The run gives up after this.
    pub limit: Duration,
    /// The receiver records every gap between deliveries from this on.
    pub floor: Duration,
}

/// Uploads `data` from namespace `from` to a quinn server in namespace
/// `to`, over one stream, as `up` sets it up. The client starts on the
/// best of its interfaces and follows them; `started` is called once the
/// connection is up.
pub fn send_file_quic(
    from: &Netns,
    to: &Netns,
    up: Upload,
    data: Arc<Vec<u8>>,
    started: impl FnOnce() + Send + 'static,
) -> QuicRun {
    let Upload {
        server,
        prefer,
        limit,
        floor,
    } = up;
    let failed = |e: String| QuicRun {
        sent_ok: false,
        bytes: 0,
        sha256: String::new(),
        gaps: GapTracker::new(floor),
        first_delivery: None,
        rebinds: Vec::new(),
        error: Some(e),
        client_stats: None,
    };
    let (server_cfg, client_cfg) = match configs() {
        Ok(c) => c,
        Err(e) => return failed(e),
    };
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let rx = to.spawn(move || {
        block_on(async move {
            let ep = match Endpoint::server(server_cfg, server) {
                Ok(ep) => ep,
                Err(e) => {
                    let _ = ready_tx.send(Err(e.to_string()));
                    return Err(format!("server endpoint: {e}"));
                }
            };
            let _ = ready_tx.send(Ok(()));
            let mut gaps = GapTracker::new(floor);
            gaps.max_gaps = usize::MAX;
            let (mut h, mut n, mut first) = (Sha256::new(), 0usize, None);
            let r = tokio::time::timeout(limit + Duration::from_secs(10), async {
                let conn = ep
                    .accept()
                    .await
                    .ok_or("server endpoint closed")?
                    .await
                    .map_err(|e| e.to_string())?;
                let mut s = conn.accept_uni().await.map_err(|e| e.to_string())?;
                while let Some(c) = s
                    .read_chunk(usize::MAX, true)
                    .await
                    .map_err(|e| e.to_string())?
                {
                    let now = Instant::now();
                    first.get_or_insert(now);
                    gaps.observe(now);
                    h.update(&c.bytes);
                    n += c.bytes.len();
                }
                conn.close(VarInt::from_u32(0), b"done");
                Ok::<(), String>(())
            })
            .await;
            ep.wait_idle().await;
            let done = match r {
                Ok(r) => r,
                Err(_) => Err("the server ran out of time".into()),
            };
            done.map(|()| (n, transfer::hex(&h.finalize()), gaps, first))
        })
    });
    let ready: Result<(), String> = ready_rx
        .recv()
        .unwrap_or_else(|_| Err("the server thread ended".into()));
    if let Err(e) = ready {
        let _ = rx.join();
        return failed(e);
    }
    let tx = from.spawn(move || {
        block_on(async move {
            let log = Arc::new(Mutex::new(Vec::new()));
            // Subscribe before the dump, so no change falls between.
            let sub = Subscription::new().map_err(|e| format!("netlink: {e}"))?;
            let mut ifs = Interfaces::new(prefer.clone());
            for c in monitor::dump().map_err(|e| format!("netlink dump: {e}"))? {
                ifs.apply(&c);
            }
            let start = best(&ifs, &prefer).ok_or("no usable interface")?;
            let sock = bound_socket(&start.0, start.1).map_err(|e| e.to_string())?;
            let mut ep = Endpoint::new(
                quinn::EndpointConfig::default(),
                None,
                sock,
                Arc::new(quinn::TokioRuntime),
            )
            .map_err(|e| format!("client endpoint: {e}"))?;
            ep.set_default_client_config(client_cfg);
            let conn = ep
                .connect(server, "localhost")
                .map_err(|e| e.to_string())?
                .await
                .map_err(|e| format!("handshake: {e}"))?;
            let mover = tokio::spawn(follow(ep.clone(), sub, ifs, prefer, start, log.clone()));
            started();
            let file = Bytes::from(data.to_vec());
            let sent = tokio::time::timeout(limit, async {
                let mut s = conn.open_uni().await.map_err(|e| e.to_string())?;
                let mut off = 0;
                while off < file.len() {
                    let end = (off + 65536).min(file.len());
                    s.write_chunk(file.slice(off..end))
                        .await
                        .map_err(|e| e.to_string())?;
                    off = end;
                }
                s.finish().map_err(|e| e.to_string())?;
                // The server closes the connection once it read the end.
                conn.closed().await;
                Ok::<(), String>(())
            })
            .await;
            mover.abort();
            let stats = conn.stats();
            conn.close(VarInt::from_u32(0), b"");
            ep.wait_idle().await;
            let rebinds = log.lock().unwrap().clone();
            let sent = match sent {
                Ok(r) => r,
                Err(_) => Err("the client ran out of time".into()),
            };
            Ok::<_, String>((sent, rebinds, Some(stats)))
        })
    });
    let client = tx.join().expect("client thread");
    let server = rx.join().expect("server thread");
    let (sent, rebinds, client_stats) = match client {
        Ok(x) => x,
        Err(e) => (Err(e), Vec::new(), None),
    };
    let mut run = failed(String::new());
    run.sent_ok = sent.is_ok();
    run.rebinds = rebinds;
    run.client_stats = client_stats;
    run.error = sent.err();
    match server {
        Ok((n, sha, gaps, first)) => {
            run.bytes = n;
            run.sha256 = sha;
            run.gaps = gaps;
            run.first_delivery = first;
        }
        Err(e) => {
            run.sent_ok = false;
            run.error.get_or_insert(e);
        }
    }
    run
}

/// The delivery gaps of a QUIC run, measured as the msctp run's: per
/// failure of the interface it sent from, the gap its move made (the
/// longest interval between deliveries that ends after the rebind and
/// begins before the first packet sent after it can have arrived,
/// `trip`), of it the part after the client read the kernel's message,
/// and the longest other gap until `next` (the link's return).
#[derive(Debug, Default)]
pub struct MoveGaps {
    pub cut: Vec<f64>,
    pub after_notice: Vec<f64>,
    pub down_second: Vec<f64>,
    /// Per return of the link: the longest gap in the second after it
    /// (filled by the caller, which knows the returns).
    pub up_second: Vec<f64>,
}

impl QuicRun {
    /// The client's counters in one line.
    pub fn client_summary(&self) -> String {
        let Some(s) = &self.client_stats else {
            return "no client counters".into();
        };
        let p = &s.path;
        format!(
            "{} packets sent, {} lost ({} bytes), {} congestion events, RTT {:.1} ms (min {:.1}), MTU {}, {} PINGs sent",
            p.sent_packets,
            p.lost_packets,
            p.lost_bytes,
            p.congestion_events,
            p.rtt.as_secs_f64() * 1e3,
            p.min_rtt.as_secs_f64() * 1e3,
            p.current_mtu,
            s.frame_tx.ping
        )
    }

    /// Every recorded gap: (start, end, length in ms).
    pub fn intervals(&self) -> Vec<(Instant, Instant, f64)> {
        let Some(first) = self.first_delivery else {
            return Vec::new();
        };
        self.gaps
            .gaps
            .iter()
            .map(|&(end, len)| {
                let e = first + Duration::from_secs_f64(end);
                (e - len, e, len.as_secs_f64() * 1e3)
            })
            .collect()
    }

    /// The longest recorded gap ending in `(from, to]`, but `except`.
    pub fn longest_in(&self, from: Instant, to: Instant, except: Option<usize>) -> f64 {
        self.intervals()
            .iter()
            .enumerate()
            .filter(|(i, g)| Some(*i) != except && g.1 > from && g.1 <= to)
            .map(|(_, g)| g.2)
            .fold(0.0, f64::max)
    }

    /// The gaps of the move that followed each failure in `failures`
    /// (when the failure began, and until when the link stayed down).
    pub fn move_gaps(&self, failures: &[(Instant, Instant)], trip: Duration) -> MoveGaps {
        let gaps = self.intervals();
        let mut m = MoveGaps::default();
        for &(t0, next) in failures {
            let r = self.rebinds.iter().find(|r| r.left_failed && r.at >= t0);
            let cut = r.and_then(|r| {
                gaps.iter()
                    .enumerate()
                    .filter(|(_, g)| g.1 > r.at && g.0 < r.at + trip)
                    .max_by(|a, b| a.1.2.total_cmp(&b.1.2))
                    .map(|(i, _)| i)
            });
            let g = cut.map(|i| gaps[i]);
            m.cut.push(g.map_or(0.0, |g| g.2));
            m.after_notice.push(g.zip(r).map_or(0.0, |(g, r)| {
                g.1.saturating_duration_since(r.read).as_secs_f64() * 1e3
            }));
            m.down_second.push(self.longest_in(t0, next, cut));
        }
        m
    }
}
