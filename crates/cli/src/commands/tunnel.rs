//! `msctp tunnel`: TCP applications over one mSCTP association. The
//! client side is a SOCKS 5 server (RFC 1928) on a local address; the
//! server side (`--server`) authenticates clients by a pre-shared key and
//! connects where its policy allows (`msctp_net::tunnel`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use anyhow::{Context, bail};
use msctp_net::Stack;
use msctp_net::streams::StreamConfig;
use msctp_net::tunnel::client::{self, ClientConfig, ClientStats};
use msctp_net::tunnel::policy::DestPolicy;
use msctp_net::tunnel::read_key;
use msctp_net::tunnel::server::{self, ServerConfig, ServerStats};

use super::net::{NetOpts, peers, runtime, warn_missing_interfaces};

#[derive(clap::Args)]
pub struct Args {
    /// Run the server side: accept tunnel clients and connect to the
    /// destinations they ask for.
    #[arg(long)]
    server: bool,
    /// Client: the tunnel server's address (repeat for a multi-homed
    /// server).
    #[arg(long = "to", value_name = "ADDR")]
    to: Vec<String>,
    /// Client: the tunnel server's SCTP port.
    #[arg(long, default_value_t = 5001)]
    server_port: u16,
    /// Client: where the SOCKS 5 server listens (keep it local: it asks
    /// no password).
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:1080")]
    socks: String,
    /// File holding the pre-shared key (at least 16 bytes; e.g. `head -c
    /// 32 /dev/urandom | base64 > tunnel.key`), the same on both sides.
    #[arg(long, value_name = "FILE")]
    key_file: PathBuf,
    /// Server: destinations must be in this network (repeat; default:
    /// any public address).
    #[arg(long = "allow", value_name = "CIDR")]
    allow: Vec<String>,
    /// Server: never connect into this network (repeat).
    #[arg(long = "deny", value_name = "CIDR")]
    deny: Vec<String>,
    /// Server: allow private, loopback, link-local and other
    /// special-purpose destinations (RFC 6890) even when not in --allow.
    #[arg(long)]
    allow_private: bool,
    /// Server: allowed destination port (repeat; default: any).
    #[arg(long = "allow-port", value_name = "PORT")]
    allow_ports: Vec<u16>,
    /// TCP connections one association carries at once.
    #[arg(long, default_value_t = 1024)]
    max_connections: usize,
    /// Bytes buffered per connection and direction (the per-stream
    /// window; at least 65536).
    #[arg(long, value_name = "BYTES", default_value_t = 256 << 10)]
    stream_window: usize,
    /// Server: associations at once from one source address.
    #[arg(long, default_value_t = 4)]
    max_per_source: usize,
    /// Server: associations at once in all.
    #[arg(long, default_value_t = 1024)]
    max_associations: usize,
    /// Require the peer to authenticate its DATA chunks with the key
    /// (SCTP-AUTH, RFC 4895; give it on both sides): nobody on the path
    /// can then change or cut the relayed bytes, at the cost of an
    /// HMAC-SHA-256 over every byte sent and received. Without it (the
    /// default) the key still admits only key holders, seals every
    /// connection's open and authenticates every address change; the
    /// relayed bytes are as protected as on plain TCP (TLS or ssh inside
    /// keep their own protection).
    #[arg(long, conflicts_with = "no_data_auth")]
    data_auth: bool,
    /// The default (no SCTP-AUTH on DATA); kept for scripts written when
    /// DATA was authenticated by default.
    #[arg(long, hide = true)]
    no_data_auth: bool,
    /// Print the counters every SECONDS (0: never).
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    report: f64,
    #[command(flatten)]
    net: NetOpts,
}

fn streams(a: &Args) -> anyhow::Result<StreamConfig> {
    let s = StreamConfig {
        max_streams: a.max_connections,
        stream_window: a.stream_window,
        ..StreamConfig::default()
    };
    s.validate()?;
    Ok(s)
}

fn nets(list: &[String], flag: &str) -> anyhow::Result<Vec<ipnet::IpNet>> {
    list.iter()
        .map(|n| {
            n.parse::<ipnet::IpNet>()
                .or_else(|_| n.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                .with_context(|| {
                    format!("{flag} {n:?}: expected a network (10.0.0.0/8) or an address")
                })
        })
        .collect()
}

fn every(report: f64) -> anyhow::Result<Option<Duration>> {
    if report == 0.0 {
        return Ok(None);
    }
    Duration::try_from_secs_f64(report)
        .map(Some)
        .map_err(|_| anyhow::anyhow!("--report {report}: expected seconds >= 0"))
}

/// `msctp tunnel [--server]`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let key = read_key(&a.key_file)?;
    if a.server {
        serve(a, key)
    } else {
        connect(a, key)
    }
}

fn serve(a: Args, key: Vec<u8>) -> anyhow::Result<ExitCode> {
    if !a.to.is_empty() {
        bail!("--to is for the client side; the server accepts");
    }
    let mut sc = ServerConfig::new(key);
    sc.streams = streams(&a)?;
    sc.policy = DestPolicy {
        allow: nets(&a.allow, "--allow")?,
        deny: nets(&a.deny, "--deny")?,
        allow_private: a.allow_private,
        ports: a.allow_ports.clone(),
    };
    sc.max_per_source = a.max_per_source.max(1);
    sc.authenticate_data = a.data_auth && !a.no_data_auth;
    sc.max_associations = a.max_associations.max(1);
    let mut cfg = a.net.config(true)?;
    sc.apply_to(&mut cfg);
    let report = every(a.report)?;
    runtime()?.block_on(async move {
        let s = Stack::bind(cfg).await?;
        warn_missing_interfaces(&s);
        eprintln!(
            "tunnel server on SCTP port {} over UDP port {} at {:?}",
            s.info().port,
            s.udp_port(),
            s.local_addresses().await?
        );
        let stats = Arc::new(ServerStats::default());
        let st = stats.clone();
        spawn_report(report, move || {
            format!(
                "clients {} refused (key) {} refused (limits) {} relayed {} not allowed {} unreachable {} bad requests {} forged opens {}",
                st.clients.load(Relaxed),
                st.auth_failures.load(Relaxed),
                st.over_limit.load(Relaxed),
                st.relayed.load(Relaxed),
                st.not_allowed.load(Relaxed),
                st.unreachable.load(Relaxed),
                st.bad_requests.load(Relaxed),
                st.forged_opens.load(Relaxed),
            )
        });
        server::serve(s, sc, stats).await?;
        Ok(ExitCode::SUCCESS)
    })
}

/// Prints `line()` to stderr every `period` (`--report`), if given, on
/// the runtime this is called from.
fn spawn_report(period: Option<Duration>, line: impl Fn() -> String + Send + 'static) {
    let Some(t) = period else { return };
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(t).await;
            eprintln!("{}", line());
        }
    });
}

fn connect(a: Args, key: Vec<u8>) -> anyhow::Result<ExitCode> {
    let to = peers(&a.to)?;
    let mut cc = ClientConfig::new(key, to, a.server_port);
    cc.streams = streams(&a)?;
    cc.authenticate_data = a.data_auth && !a.no_data_auth;
    let mut cfg = a.net.config(false)?;
    cc.apply_to(&mut cfg);
    let socks: std::net::SocketAddr = a
        .socks
        .parse()
        .with_context(|| format!("--socks {:?}: expected ADDR:PORT", a.socks))?;
    let report = every(a.report)?;
    runtime()?.block_on(async move {
        let s = Stack::bind(cfg).await?;
        warn_missing_interfaces(&s);
        let l = tokio::net::TcpListener::bind(socks)
            .await
            .with_context(|| format!("cannot listen on {socks}"))?;
        eprintln!(
            "SOCKS 5 on {socks}, tunnel to {:?} port {}",
            cc.server, cc.port
        );
        let stats = Arc::new(ClientStats::default());
        let st = stats.clone();
        spawn_report(report, move || {
            format!(
                "associations {} relayed {} refused {}",
                st.associations.load(Relaxed),
                st.relayed.load(Relaxed),
                st.refused.load(Relaxed),
            )
        });
        client::serve(s, l, cc, stats).await?;
        Ok(ExitCode::SUCCESS)
    })
}
