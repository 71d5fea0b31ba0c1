//! `msctp tunnel` with real programs (needs root, nginx, curl, mptcpize,
//! sshd, nc; skipped with a printed reason otherwise, a failure under
//! CI=true).
//!
//! ```text
//!   MN mn1 10.61.1.2/24 ==== 40 Mbit/s ==== cn1 10.61.1.1/24 CN
//!   MN mn2 10.61.2.2/24 ==== 20 Mbit/s ==== cn2 10.61.2.1/24 CN
//!   MN: curl --socks5-hostname 127.0.0.1:1080 -> tunnel client (monitor,
//!       fastest-first) == one association ==> tunnel server -> nginx (CN)
//! ```
//!
//! curl downloads a 50 MB file from nginx while link 1 goes down three
//! times for one second (the CN's end set down: the MN sees its carrier
//! drop). The same download, on the same links in the same run, over
//! Linux MPTCP (`mptcpize run` on both curl and nginx, a second subflow
//! over link 2) and over plain TCP on link 1. Each download's SHA-256 is
//! checked and its longest stall (the longest wait between two reads of
//! curl's output) printed in a table (run with `--nocapture`).
//!
//! The other tests: the same download while the mobile's only address
//! moves (single radio); 200 concurrent curls through one association
//! across the three cuts; an ssh session (sshd in the CN, `nc -X 5` as
//! ssh's SOCKS proxy command) that keeps every line across them.

mod common;

use std::collections::BTreeMap;
use std::io::Read;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Netns, skip_reason};
use msctp_net::transfer;
use msctp_net::tunnel::client::{self, ClientConfig, ClientStats};
use msctp_net::tunnel::policy::DestPolicy;
use msctp_net::tunnel::server::{self, ServerConfig};
use msctp_net::{PolicyKind, Stack, StackConfig};
use sha2::{Digest, Sha256};

const FILE_SIZE: usize = 50 << 20;
/// (seconds after the download starts, link 1 up?)
const SCHEDULE: [(f64, bool); 6] = [
    (1.0, false),
    (2.0, true),
    (3.0, false),
    (4.0, true),
    (5.0, false),
    (6.0, true),
];
const KEY: &[u8] = b"netns-tunnel-test-key-0123456789";

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// The tests use the same device names and ports: one at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

struct Topology {
    mn: Netns,
    cn: Netns,
}

impl Topology {
    fn new() -> Topology {
        let mn = Netns::with_prefix("msctp-tun", "mn");
        let cn = Netns::with_prefix("msctp-tun", "cn");
        // See common::two_tbf_links on the pad device.
        cn.ip(&[
            "link", "add", "tpad0", "type", "veth", "peer", "name", "tpad1",
        ]);
        for (k, rate) in [(1, "40mbit"), (2, "20mbit")] {
            common::veth_link(
                &mn,
                &cn,
                (&format!("tmn{k}"), &format!("10.61.{k}.2/24")),
                (&format!("tcn{k}"), &format!("10.61.{k}.1/24")),
                &["tbf", "rate", rate, "burst", "64kb", "latency", "20ms"],
            );
        }
        Topology { mn, cn }
    }

    fn set_link1(&self, up: bool) {
        self.cn
            .ip(&["link", "set", "tcn1", if up { "up" } else { "down" }]);
    }

    /// Plays the schedule from now on, on its own thread.
    fn play_schedule(self: &Arc<Self>) -> std::thread::JoinHandle<()> {
        let t = self.clone();
        std::thread::spawn(move || {
            let start = Instant::now();
            for (at, up) in SCHEDULE {
                let when = start + Duration::from_secs_f64(at);
                std::thread::sleep(when.saturating_duration_since(Instant::now()));
                t.set_link1(up);
            }
        })
    }
}

/// nginx serving `root` on `port` in `ns` (wrapped by `wrap`, e.g.
/// `mptcpize run`); killed on drop.
struct Nginx(Child);

impl Nginx {
    fn start(ns: &Netns, dir: &Path, root: &Path, port: u16, wrap: &[&str]) -> Nginx {
        let d = dir.join(format!("nginx-{port}"));
        std::fs::create_dir_all(&d).unwrap();
        let conf = d.join("nginx.conf");
        let p = d.display();
        std::fs::write(
            &conf,
            format!(
                "daemon off; master_process off; worker_processes 1; pid {p}/pid; error_log {p}/error.log;\n\
                 events {{}}\n\
                 http {{ access_log off; sendfile on; client_body_temp_path {p}/b; proxy_temp_path {p}/p;\n\
                 fastcgi_temp_path {p}/f; uwsgi_temp_path {p}/u; scgi_temp_path {p}/s;\n\
                 server {{ listen {port}; root {}; }} }}\n",
                root.display()
            ),
        )
        .unwrap();
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &ns.name]).args(wrap);
        c.arg("nginx").arg("-c").arg(&conf).arg("-p").arg(&d);
        let child = c
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(500));
        Nginx(child)
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One row of the table.
#[derive(Debug)]
struct Row {
    system: &'static str,
    intact: bool,
    bytes: usize,
    longest_stall_ms: f64,
    mbps: f64,
    elapsed_s: f64,
}

/// Runs curl in the MN with `args`, reading its output: bytes, SHA-256,
/// the longest wait between two reads, while the schedule plays.
fn fetch(t: &Arc<Topology>, system: &'static str, wrap: &[&str], args: &[&str], sha: &str) -> Row {
    fetch_while(t, system, wrap, args, sha, Topology::play_schedule)
}

/// [`fetch`] with `play` started at the first byte (and joined at the end).
fn fetch_while(
    t: &Arc<Topology>,
    system: &'static str,
    wrap: &[&str],
    args: &[&str],
    sha: &str,
    play: fn(&Arc<Topology>) -> std::thread::JoinHandle<()>,
) -> Row {
    let mut c = Command::new("ip");
    c.args(["netns", "exec", &t.mn.name]).args(wrap);
    c.args(["curl", "-s", "--max-time", "60", "-o", "-"])
        .args(args);
    let mut child = c.stdout(Stdio::piped()).spawn().unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut hash = Sha256::new();
    let mut buf = vec![0u8; 64 << 10];
    let (mut n, mut longest) = (0usize, Duration::ZERO);
    let mut sched = None;
    let (mut first, mut last) = (None, Instant::now());
    loop {
        let k = out.read(&mut buf).unwrap_or(0);
        if k == 0 {
            break;
        }
        let now = Instant::now();
        if first.is_none() {
            first = Some(now);
            sched = Some(play(t));
        } else {
            longest = longest.max(now - last);
        }
        last = now;
        n += k;
        hash.update(&buf[..k]);
    }
    let _ = child.wait();
    if let Some(s) = sched {
        s.join().unwrap();
    }
    t.set_link1(true);
    let elapsed = first.map_or(0.0, |f| (last - f).as_secs_f64());
    Row {
        system,
        intact: n == FILE_SIZE && transfer::hex(&hash.finalize()) == sha,
        bytes: n,
        longest_stall_ms: longest.as_secs_f64() * 1e3,
        mbps: n as f64 * 8.0 / elapsed.max(1e-9) / 1e6,
        elapsed_s: elapsed,
    }
}

/// Runs `f` in a namespace on its own runtime until `stop` fires.
fn run_in<F>(
    ns: &Netns,
    f: F,
) -> (
    std::thread::JoinHandle<()>,
    tokio::sync::oneshot::Sender<()>,
)
where
    F: std::future::Future<Output = ()> + Send + 'static,
{
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let h = ns.spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            tokio::select! {
                _ = f => {}
                _ = rx => {}
            }
        });
        rt.shutdown_timeout(Duration::from_secs(1));
    });
    (h, tx)
}

fn tunnel_server(
    cn: &Netns,
) -> (
    std::thread::JoinHandle<()>,
    tokio::sync::oneshot::Sender<()>,
) {
    run_in(cn, async {
        let mut sc = ServerConfig::new(KEY.to_vec());
        sc.policy = DestPolicy {
            allow: vec!["127.0.0.0/8".parse().unwrap()],
            ..DestPolicy::default()
        };
        let mut c = StackConfig::new(5001).tuned_for_lan();
        c.local_addrs = vec![ip("10.61.1.1"), ip("10.61.2.1")];
        sc.apply_to(&mut c);
        let s = Stack::bind(c).await.unwrap();
        let r = server::serve(s, sc, Arc::default()).await;
        eprintln!("tunnel server ended: {r:?}");
    })
}

fn tunnel_client(
    mn: &Netns,
) -> (
    std::thread::JoinHandle<()>,
    tokio::sync::oneshot::Sender<()>,
) {
    tunnel_client_on(mn, vec![ip("10.61.1.2"), ip("10.61.2.2")])
}

fn tunnel_client_on(
    mn: &Netns,
    local: Vec<IpAddr>,
) -> (
    std::thread::JoinHandle<()>,
    tokio::sync::oneshot::Sender<()>,
) {
    tunnel_client_counted(mn, local, Arc::default())
}

fn tunnel_client_counted(
    mn: &Netns,
    local: Vec<IpAddr>,
    stats: Arc<ClientStats>,
) -> (
    std::thread::JoinHandle<()>,
    tokio::sync::oneshot::Sender<()>,
) {
    run_in(mn, async move {
        let mut cc = ClientConfig::new(KEY.to_vec(), vec![ip("10.61.1.1"), ip("10.61.2.1")], 5001);
        cc.streams.stream_window = 1 << 20;
        let mut c = StackConfig::new(5002).tuned_for_lan();
        c.local_addrs = local;
        c.monitor = true;
        c.interfaces = vec!["tmn1".into(), "tmn2".into()];
        c.policy = PolicyKind::FastestFirst {
            rates: BTreeMap::from([("tmn1".into(), 40_000_000), ("tmn2".into(), 20_000_000)]),
        };
        cc.apply_to(&mut c);
        let s = Stack::bind(c).await.unwrap();
        let l = tokio::net::TcpListener::bind("127.0.0.1:1080")
            .await
            .unwrap();
        let r = client::serve(s, l, cc, stats).await;
        eprintln!("tunnel client ended: {r:?}");
    })
}

#[test]
fn curl_through_the_tunnel_survives_three_link_cuts() {
    if let Some(why) = skip_reason(&["ip", "tc", "nginx", "curl", "mptcpize"]) {
        msctp_testkit::skip(&why);
        return;
    }
    let _one = serial();
    let t = Arc::new(Topology::new());
    let dir = tempdir();
    let www = dir.join("www");
    std::fs::create_dir_all(&www).unwrap();
    let data: Vec<u8> = (0..FILE_SIZE)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(www.join("big.bin"), &data).unwrap();
    let sha = transfer::hex(&Sha256::digest(&data));
    drop(data);
    let _nginx = Nginx::start(&t.cn, &dir, &www, 8080, &[]);
    let mptcp = common::streams::enable_mptcp(&t.mn, &t.cn, "10.61.2.1", "tcn2");
    let _nginx_mptcp = mptcp.then(|| Nginx::start(&t.cn, &dir, &www, 8081, &["mptcpize", "run"]));
    let (srv, stop_srv) = tunnel_server(&t.cn);
    let (cli, stop_cli) = tunnel_client(&t.mn);
    std::thread::sleep(Duration::from_secs(2));
    let mut rows = vec![fetch(
        &t,
        "msctp tunnel (SOCKS 5)",
        &[],
        &[
            "--socks5-hostname",
            "127.0.0.1:1080",
            "http://localhost:8080/big.bin",
        ],
        &sha,
    )];
    if mptcp {
        rows.push(fetch(
            &t,
            "MPTCP (mptcpize curl, nginx)",
            &["mptcpize", "run"],
            &["http://10.61.1.1:8081/big.bin"],
            &sha,
        ));
    }
    rows.push(fetch(
        &t,
        "plain TCP (link 1)",
        &[],
        &["http://10.61.1.1:8080/big.bin"],
        &sha,
    ));
    let _ = stop_cli.send(());
    let _ = stop_srv.send(());
    let _ = cli.join();
    let _ = srv.join();
    println!("\n50 MB download, link 1 (40 Mbit/s) down 1 s three times, link 2 20 Mbit/s:");
    println!("| system | intact (SHA-256) | longest stall | throughput | time |");
    println!("|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} ({} bytes) | {:.0} ms | {:.1} Mbit/s | {:.1} s |",
            r.system,
            if r.intact { "yes" } else { "NO" },
            r.bytes,
            r.longest_stall_ms,
            r.mbps,
            r.elapsed_s
        );
    }
    assert!(rows[0].intact, "the tunnel's download: {:?}", rows[0]);
    // The tunnel moves to link 2 on each cut: no stall as long as a cut.
    assert!(
        rows[0].longest_stall_ms < 1000.0,
        "the tunnel stalled {:.0} ms",
        rows[0].longest_stall_ms
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The single-radio move: link 2 is down for the whole download; at 1 s
/// the MN's address on link 1 goes (10.61.1.2) and 50 ms later a new one
/// comes (10.61.1.3), as a mobile that changed networks on its only
/// radio. The MN's only way to tell the server is an ASCONF from the new
/// address (RFC 5061 section 5.2).
fn move_address(t: &Arc<Topology>) -> std::thread::JoinHandle<()> {
    let t = t.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(1));
        t.mn.ip(&["addr", "del", "10.61.1.2/24", "dev", "tmn1"]);
        std::thread::sleep(Duration::from_millis(50));
        t.mn.ip(&["addr", "add", "10.61.1.3/24", "dev", "tmn1"]);
    })
}

#[test]
fn curl_through_the_tunnel_survives_a_single_radio_address_move() {
    if let Some(why) = skip_reason(&["ip", "tc", "nginx", "curl"]) {
        msctp_testkit::skip(&why);
        return;
    }
    let _one = serial();
    let t = Arc::new(Topology::new());
    t.cn.ip(&["link", "set", "tcn2", "down"]);
    let dir = tempdir().join("move");
    let www = dir.join("www");
    std::fs::create_dir_all(&www).unwrap();
    let data: Vec<u8> = (0..FILE_SIZE)
        .map(|i| (i.wrapping_mul(40_503) >> 7) as u8)
        .collect();
    std::fs::write(www.join("big.bin"), &data).unwrap();
    let sha = transfer::hex(&Sha256::digest(&data));
    drop(data);
    let _nginx = Nginx::start(&t.cn, &dir, &www, 8080, &[]);
    let (srv, stop_srv) = tunnel_server(&t.cn);
    let (cli, stop_cli) = tunnel_client_on(&t.mn, vec![ip("10.61.1.2")]);
    std::thread::sleep(Duration::from_secs(2));
    let r = fetch_while(
        &t,
        "msctp tunnel, single-radio move",
        &[],
        &[
            "--socks5-hostname",
            "127.0.0.1:1080",
            "http://localhost:8080/big.bin",
        ],
        &sha,
        move_address,
    );
    let _ = stop_cli.send(());
    let _ = stop_srv.send(());
    let _ = cli.join();
    let _ = srv.join();
    println!(
        "\n50 MB download over link 1 only, the MN's address moved at 1 s: intact {}, {} bytes, longest stall {:.0} ms, {:.1} Mbit/s, {:.1} s",
        r.intact, r.bytes, r.longest_stall_ms, r.mbps, r.elapsed_s
    );
    assert!(r.intact, "{r:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn tempdir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("msctp-tunnel-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Files of the many-connections test.
const SMALL: usize = 256 << 10;
const CURLS: usize = 200;

#[test]
fn two_hundred_curls_share_one_association_across_link_cuts() {
    if let Some(why) = skip_reason(&["ip", "tc", "nginx", "curl"]) {
        msctp_testkit::skip(&why);
        return;
    }
    let _one = serial();
    let t = Arc::new(Topology::new());
    let dir = tempdir().join("many");
    let www = dir.join("www");
    let out = dir.join("out");
    std::fs::create_dir_all(&www).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    let data: Vec<u8> = (0..SMALL)
        .map(|i| (i.wrapping_mul(97) >> 3) as u8)
        .collect();
    std::fs::write(www.join("small.bin"), &data).unwrap();
    let sha = transfer::hex(&Sha256::digest(&data));
    let _nginx = Nginx::start(&t.cn, &dir, &www, 8080, &[]);
    let (srv, stop_srv) = tunnel_server(&t.cn);
    let stats = Arc::new(ClientStats::default());
    let local = vec![ip("10.61.1.2"), ip("10.61.2.2")];
    let (cli, stop_cli) = tunnel_client_counted(&t.mn, local, stats.clone());
    std::thread::sleep(Duration::from_secs(2));
    let start = Instant::now();
    let sched = t.play_schedule();
    let curls: Vec<Child> = (0..CURLS)
        .map(|k| {
            Command::new("ip")
                .args([
                    "netns",
                    "exec",
                    &t.mn.name,
                    "curl",
                    "-s",
                    "--max-time",
                    "60",
                ])
                .args(["--socks5-hostname", "127.0.0.1:1080"])
                .arg("http://localhost:8080/small.bin")
                .arg("-o")
                .arg(out.join(format!("{k}.bin")))
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut failed = Vec::new();
    for (k, mut c) in curls.into_iter().enumerate() {
        let ok = c.wait().is_ok_and(|s| s.success());
        let got = std::fs::read(out.join(format!("{k}.bin"))).unwrap_or_default();
        if !ok || transfer::hex(&Sha256::digest(&got)) != sha {
            failed.push(k);
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    sched.join().unwrap();
    let _ = stop_cli.send(());
    let _ = stop_srv.send(());
    let _ = cli.join();
    let _ = srv.join();
    println!(
        "\n{CURLS} concurrent curls of {} KiB through one tunnel while link 1 went down three times: {} intact, {} failed, all done in {elapsed:.1} s",
        SMALL >> 10,
        CURLS - failed.len(),
        failed.len()
    );
    assert!(failed.is_empty(), "downloads failed or changed: {failed:?}");
    use std::sync::atomic::Ordering::Relaxed;
    assert_eq!(
        stats.associations.load(Relaxed),
        1,
        "one association for all"
    );
    assert_eq!(stats.relayed.load(Relaxed), CURLS as u64);
    let _ = std::fs::remove_dir_all(&dir);
}

/// sshd in the CN on 127.0.0.1:2222 (its own host key and authorized
/// key in `dir`); killed on drop.
struct Sshd(Child);

impl Sshd {
    fn start(ns: &Netns, dir: &Path) -> Sshd {
        let keygen = |name: &str| {
            let k = dir.join(name);
            let st = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(&k)
                .status()
                .unwrap();
            assert!(st.success(), "ssh-keygen");
        };
        keygen("host_key");
        keygen("client_key");
        std::fs::copy(dir.join("client_key.pub"), dir.join("authorized_keys")).unwrap();
        let d = dir.display();
        let conf = dir.join("sshd_config");
        std::fs::write(
            &conf,
            format!(
                "ListenAddress 127.0.0.1:2222\nHostKey {d}/host_key\nAuthorizedKeysFile {d}/authorized_keys\n\
                 PermitRootLogin yes\nStrictModes no\nUsePAM no\nPasswordAuthentication no\nPidFile {d}/sshd.pid\n"
            ),
        )
        .unwrap();
        // sshd wants its privilege-separation directory.
        let _ = std::fs::create_dir_all("/run/sshd");
        let child = Command::new("ip")
            .args([
                "netns",
                "exec",
                &ns.name,
                "/usr/sbin/sshd",
                "-D",
                "-e",
                "-f",
            ])
            .arg(&conf)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(500));
        Sshd(child)
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn an_ssh_session_through_the_tunnel_survives_link_cuts() {
    if let Some(why) = skip_reason(&["ip", "tc", "ssh", "sshd", "ssh-keygen", "nc"]) {
        msctp_testkit::skip(&why);
        return;
    }
    let _one = serial();
    let t = Arc::new(Topology::new());
    let dir = tempdir().join("ssh");
    std::fs::create_dir_all(&dir).unwrap();
    let _sshd = Sshd::start(&t.cn, &dir);
    let (srv, stop_srv) = tunnel_server(&t.cn);
    let (cli, stop_cli) = tunnel_client(&t.mn);
    std::thread::sleep(Duration::from_secs(2));
    // The session prints a line every 100 ms for 8 s while link 1 goes
    // down three times.
    let key = dir.join("client_key");
    let mut child = Command::new("ip")
        .args(["netns", "exec", &t.mn.name, "ssh", "-i"])
        .arg(&key)
        .args([
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
            "UserKnownHostsFile=/dev/null",
        ])
        .args([
            "-o",
            "BatchMode=yes",
            "-o",
            "ProxyCommand=nc -X 5 -x 127.0.0.1:1080 %h %p",
        ])
        .args(["-p", "2222", "root@localhost"])
        .arg("for i in $(seq 1 80); do echo $i; sleep 0.1; done")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut lines = Vec::new();
    let (mut longest, mut last, mut sched) = (Duration::ZERO, Instant::now(), None);
    for l in std::io::BufRead::lines(out) {
        let Ok(l) = l else { break };
        let now = Instant::now();
        if sched.is_none() {
            sched = Some(t.play_schedule());
        } else {
            longest = longest.max(now - last);
        }
        last = now;
        lines.push(l);
    }
    let status = child.wait().unwrap();
    if let Some(s) = sched {
        s.join().unwrap();
    }
    let _ = stop_cli.send(());
    let _ = stop_srv.send(());
    let _ = cli.join();
    let _ = srv.join();
    println!(
        "\nssh session through the tunnel, link 1 down three times: {} of 80 lines, exit {status}, longest wait between lines {:.0} ms",
        lines.len(),
        longest.as_secs_f64() * 1e3
    );
    let want: Vec<String> = (1..=80).map(|i| i.to_string()).collect();
    assert_eq!(lines, want, "every line, in order");
    assert!(status.success(), "ssh exit {status}");
    let _ = std::fs::remove_dir_all(&dir);
}
