//! `msctp bench net --tunnel`: one TCP stream through the tunnel on
//! loopback (SOCKS 5 client side, one association, server side, a TCP
//! sink), by default and with SCTP-AUTH on DATA, against the same stream
//! straight to the sink, alternated in one run; the ratios of the median
//! throughputs, the default's judged against [`GOAL`].

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::client::{self, ClientConfig};
use super::policy::DestPolicy;
use super::server::{self, ServerConfig};
use super::socks::{Target, reply};
use crate::bench::median;
use crate::error::NetError;
use crate::{Stack, StackConfig};

/// The per-stream window of both sides (bytes): one stream's throughput
/// is at most its window per round trip of a grant (reader, driver, UDP,
/// the peer's driver and writer), about a millisecond on a loaded
/// loopback.
pub const WINDOW: usize = 4 << 20;

/// Issue 36's goal: a TCP stream through the tunnel (its default
/// settings) moves at least half as fast as straight to the sink.
pub const GOAL: f64 = 0.5;

/// The figures of one run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TunnelBench {
    pub bytes: u64,
    /// Each transfer's throughput, MB/s, in the order they ran.
    pub direct_mbps: Vec<f64>,
    /// Through the tunnel as it runs by default (SCTP-AUTH on address
    /// changes, sealed opens, no HMAC on DATA).
    pub tunnel_mbps: Vec<f64>,
    /// Through a tunnel with SCTP-AUTH on every DATA chunk (`--data-auth`).
    pub tunnel_data_auth_mbps: Vec<f64>,
    /// Median tunnel / median direct, by default and with `--data-auth`.
    pub ratio: f64,
    pub ratio_data_auth: f64,
    /// [`GOAL`], and whether `ratio` reaches it.
    pub goal: f64,
    pub goal_met: bool,
    /// CPU seconds (user + system, the whole process: sender, tunnel and
    /// sink) per GB moved, median of each kind of transfer (direct,
    /// default tunnel, `--data-auth`): the cost that the other work on a
    /// loaded machine does not change much.
    pub cpu_s_per_gb: [f64; 3],
}

impl fmt::Display for TunnelBench {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{x:.0}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        writeln!(
            f,
            "one TCP stream of {} MB on loopback, alternated in this run (tunnel stream window {} MiB):",
            self.bytes >> 20,
            WINDOW >> 20
        )?;
        writeln!(
            f,
            "  direct TCP                 median {:6.0} MB/s  ({})",
            median(&self.direct_mbps),
            show(&self.direct_mbps)
        )?;
        writeln!(
            f,
            "  through msctp tunnel       median {:6.0} MB/s  ({})",
            median(&self.tunnel_mbps),
            show(&self.tunnel_mbps)
        )?;
        writeln!(
            f,
            "  tunnel with --data-auth    median {:6.0} MB/s  ({})",
            median(&self.tunnel_data_auth_mbps),
            show(&self.tunnel_data_auth_mbps)
        )?;
        writeln!(
            f,
            "  tunnel / direct: {:.3}x (goal at least {}x: {}), {:.3}x with --data-auth",
            self.ratio,
            self.goal,
            if self.goal_met { "met" } else { "NOT met" },
            self.ratio_data_auth
        )?;
        let [d, t, a] = self.cpu_s_per_gb;
        writeln!(
            f,
            "  CPU s per GB (process, median): direct {d:.2}, tunnel {t:.2}, --data-auth {a:.2}"
        )
    }
}

/// A TCP sink: reads each connection to its end, answers the byte count.
async fn sink() -> std::io::Result<SocketAddr> {
    let l = TcpListener::bind("127.0.0.1:0").await?;
    let addr = l.local_addr()?;
    tokio::spawn(async move {
        while let Ok((mut t, _)) = l.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 256 << 10];
                let mut n = 0u64;
                while let Ok(k) = t.read(&mut buf).await {
                    if k == 0 {
                        break;
                    }
                    n += k as u64;
                }
                let _ = t.write_all(&n.to_be_bytes()).await;
            });
        }
    });
    Ok(addr)
}

/// Sends `bytes` on `t` and waits for the sink's count: MB/s, and the
/// process's CPU seconds per GB meanwhile (NaN without getrusage).
async fn push(mut t: TcpStream, bytes: u64) -> Result<(f64, f64), NetError> {
    let chunk = vec![0x5au8; 64 << 10];
    let cpu = crate::bench::cpu_time(false);
    let start = Instant::now();
    let mut left = bytes;
    while left > 0 {
        let k = left.min(chunk.len() as u64) as usize;
        t.write_all(&chunk[..k]).await?;
        left -= k as u64;
    }
    t.shutdown().await?;
    let got = t.read_u64().await?;
    if got != bytes {
        return Err(NetError::Closed(format!(
            "the sink got {got} of {bytes} bytes"
        )));
    }
    let mbps = bytes as f64 / start.elapsed().as_secs_f64() / 1e6;
    let cpu = match (cpu, crate::bench::cpu_time(false)) {
        (Some(a), Some(b)) => (b - a) / (bytes as f64 / 1e9),
        _ => f64::NAN,
    };
    Ok((mbps, cpu))
}

async fn through_socks(socks: SocketAddr, to: SocketAddr) -> Result<TcpStream, NetError> {
    let mut t = TcpStream::connect(socks).await?;
    t.write_all(&[5, 1, 0]).await?;
    let mut m = [0u8; 2];
    t.read_exact(&mut m).await?;
    let mut req = vec![5, 1, 0];
    req.extend_from_slice(&Target::Addr(to).encode());
    t.write_all(&req).await?;
    let mut rep = [0u8; 10];
    t.read_exact(&mut rep).await?;
    if rep[1] != reply::SUCCEEDED {
        return Err(NetError::Refused(format!("SOCKS reply {}", rep[1])));
    }
    Ok(t)
}

/// Starts a tunnel on loopback: its SOCKS address.
async fn tunnel(port: u16, data_auth: bool) -> Result<SocketAddr, NetError> {
    let key: [u8; 32] = rand::random();
    let lo = "127.0.0.1".parse().expect("an address");
    let mut sc = ServerConfig::new(key.to_vec());
    sc.streams.stream_window = WINDOW;
    sc.authenticate_data = data_auth;
    sc.policy = DestPolicy {
        allow: vec!["127.0.0.0/8".parse().expect("a network")],
        ..DestPolicy::default()
    };
    let mut cfg = StackConfig::new(port).tuned_for_lan();
    cfg.udp_port = 0;
    cfg.local_addrs = vec![lo];
    sc.apply_to(&mut cfg);
    let s = Stack::bind(cfg).await?;
    let server_udp = s.udp_port();
    tokio::spawn(server::serve(s, sc, Arc::default()));
    let mut cc = ClientConfig::new(key.to_vec(), vec![lo], port);
    cc.udp_port = Some(server_udp);
    cc.streams.stream_window = WINDOW;
    cc.authenticate_data = data_auth;
    let mut cfg = StackConfig::new(port + 1).tuned_for_lan();
    cfg.udp_port = 0;
    cfg.local_addrs = vec![lo];
    cc.apply_to(&mut cfg);
    let c = Stack::bind(cfg).await?;
    let l = TcpListener::bind("127.0.0.1:0").await?;
    let socks = l.local_addr()?;
    tokio::spawn(client::serve(c, l, cc, Arc::default()));
    Ok(socks)
}

/// `rounds` rounds of transfers of `bytes` each (direct, tunnel, tunnel
/// with `--data-auth`, direct, ...).
pub fn run(bytes: u64, rounds: usize) -> Result<TunnelBench, NetError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(async {
        let to = sink().await?;
        let socks = tunnel(5931, super::DATA_AUTH_DEFAULT).await?;
        let authed = tunnel(5933, true).await?;
        let (mut direct, mut tunneled, mut auth) = (Vec::new(), Vec::new(), Vec::new());
        let mut cpu: [Vec<f64>; 3] = Default::default();
        for _ in 0..rounds.max(1) {
            let (mbps, c) = push(TcpStream::connect(to).await?, bytes).await?;
            direct.push(mbps);
            cpu[0].push(c);
            for (via, out, k) in [(socks, &mut tunneled, 1), (authed, &mut auth, 2)] {
                let t = tokio::time::timeout(Duration::from_secs(20), through_socks(via, to))
                    .await
                    .map_err(|_| NetError::Closed("the tunnel did not answer".into()))??;
                let (mbps, c) = push(t, bytes).await?;
                out.push(mbps);
                cpu[k].push(c);
            }
        }
        let d = median(&direct);
        let ratio = median(&tunneled) / d;
        Ok(TunnelBench {
            bytes,
            ratio,
            ratio_data_auth: median(&auth) / d,
            goal: GOAL,
            goal_met: ratio >= GOAL,
            cpu_s_per_gb: cpu.map(|v| median(&v)),
            direct_mbps: direct,
            tunnel_mbps: tunneled,
            tunnel_data_auth_mbps: auth,
        })
    })
}
