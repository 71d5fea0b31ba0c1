//! Network-namespace helpers for the tests that need root: namespaces
//! that are deleted when dropped (even on panic), commands run inside
//! them, and threads that enter one (`setns`) so that every socket they
//! open lives there.

#![allow(dead_code)]

pub mod streams;
pub mod usrsctp;

use std::fs::File;
use std::net::IpAddr;
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use msctp_net::transfer::{self, ReceiveReport};
use msctp_net::{NetEvent, Stack, StackConfig};

/// Why a root-only test cannot run here, if it cannot. Under `CI=true`
/// (how `.ci/run` runs the suite, as root, after `scripts/install-deps.sh`
/// installed every tool named here) a missing prerequisite is a failure,
/// not a skip: a test that silently returns there would pass without
/// testing anything. It also turns on the stack's log (`RUST_LOG`, e.g.
/// `RUST_LOG=msctp_net=debug`, shown with `--nocapture`).
pub fn skip_reason(tools: &[&str]) -> Option<String> {
    log_to_stderr();
    let why = if !rustix::process::geteuid().is_root() {
        Some("needs root (network namespaces)".to_string())
    } else {
        tools
            .iter()
            .find(|t| !msctp_testkit::on_path(t))
            .map(|t| format!("`{t}` is not installed"))
    };
    why.map(msctp_testkit::require)
}

/// Prints what the stack logs (`tracing`) to the test's stderr, filtered
/// by `RUST_LOG` (nothing when it is unset). Once per test binary.
pub fn log_to_stderr() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
}

/// Runs a command, panicking with its output if it fails.
pub fn sh(args: &[&str]) {
    let out = Command::new(args[0])
        .args(&args[1..])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {args:?}: {e}"));
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs a command, ignoring failure.
pub fn sh_quiet(args: &[&str]) {
    let _ = Command::new(args[0]).args(&args[1..]).output();
}

/// A named network namespace, deleted on drop.
pub struct Netns {
    pub name: String,
}

impl Netns {
    pub fn new(tag: &str) -> Netns {
        Netns::with_prefix("msctp", tag)
    }

    /// A namespace named `PREFIX-TAG-PID` (a lane's tests use their own
    /// prefix, so that parallel runs of other lanes never meet them).
    pub fn with_prefix(prefix: &str, tag: &str) -> Netns {
        let name = format!("{prefix}-{tag}-{}", std::process::id());
        sh_quiet(&["ip", "netns", "del", &name]);
        sh(&["ip", "netns", "add", &name]);
        let ns = Netns { name };
        ns.ip(&["link", "set", "lo", "up"]);
        ns
    }

    /// `ip -n NAME ...`
    pub fn ip(&self, args: &[&str]) {
        let mut v = vec!["ip", "-n", &self.name];
        v.extend_from_slice(args);
        sh(&v);
    }

    /// `ip netns exec NAME ...`
    pub fn exec(&self, args: &[&str]) {
        let mut v = vec!["ip", "netns", "exec", &self.name];
        v.extend_from_slice(args);
        sh(&v);
    }

    /// Runs `f` on a new thread that has entered this namespace.
    pub fn spawn<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> std::thread::JoinHandle<T> {
        let path = format!("/var/run/netns/{}", self.name);
        std::thread::spawn(move || {
            let fd = File::open(&path).expect("namespace file");
            rustix::thread::move_into_link_name_space(
                fd.as_fd(),
                Some(rustix::thread::LinkNameSpaceType::Network),
            )
            .expect("setns");
            f()
        })
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        sh_quiet(&["ip", "netns", "del", &self.name]);
    }
}

/// A veth pair between two namespaces, `m` in `mn` with `m_addr` and `c`
/// in `cn` with `c_addr` (both with their prefix length), both ends up,
/// each shaped by `tc qdisc add dev END root QDISC...`.
pub fn veth_link(
    mn: &Netns,
    cn: &Netns,
    (m, m_addr): (&str, &str),
    (c, c_addr): (&str, &str),
    qdisc: &[&str],
) {
    sh(&[
        "ip", "link", "add", m, "netns", &mn.name, "type", "veth", "peer", "name", c, "netns",
        &cn.name,
    ]);
    mn.ip(&["addr", "add", m_addr, "dev", m]);
    cn.ip(&["addr", "add", c_addr, "dev", c]);
    for (ns, dev) in [(mn, m), (cn, c)] {
        ns.ip(&["link", "set", dev, "up"]);
        let mut tc = vec!["tc", "qdisc", "add", "dev", dev, "root"];
        tc.extend_from_slice(qdisc);
        ns.exec(&tc);
    }
}

/// The two links of the handover tests: link k (1 and 2) of 20 and 10
/// Mbit/s between `mn` and `cn`, each end behind a tbf of that rate with
/// `burst` and `latency`; `ends(k)` names and addresses them as
/// [`veth_link`] takes them. The names must be unique on the host while
/// the test runs (the pair is created in the root namespace first).
///
/// First a veth pair `pad` in `cn`: the kernel reports a veth carrier
/// change at once only if the device's peer has another interface index
/// than the device itself (linkwatch "urgent" events), otherwise it
/// batches it, up to a second late; two fresh namespaces would give both
/// ends the same index, so the correspondent gets one more device first.
#[allow(dead_code)] // not every test binary that shares this module uses it
pub fn two_tbf_links(
    mn: &Netns,
    cn: &Netns,
    pad: [&str; 2],
    ends: impl Fn(u8) -> ((String, String), (String, String)),
    burst: &str,
    latency: &str,
) {
    cn.ip(&[
        "link", "add", pad[0], "type", "veth", "peer", "name", pad[1],
    ]);
    for (k, rate) in [(1, "20mbit"), (2, "10mbit")] {
        let ((m, m_addr), (c, c_addr)) = ends(k);
        veth_link(
            mn,
            cn,
            (&m, &m_addr),
            (&c, &c_addr),
            &["tbf", "rate", rate, "burst", burst, "latency", latency],
        );
    }
}

/// Runs `f` to completion on a new current-thread tokio runtime.
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
        .block_on(f)
}

/// dumpcap (UDP only) on interface `dev` of namespace `ns`, stopped by
/// SIGINT so that it flushes its file.
pub struct Capture {
    child: Child,
    file: PathBuf,
}

impl Capture {
    pub fn start(ns: &Netns, dev: &str, file: PathBuf) -> Capture {
        let child = Command::new("ip")
            .args(["netns", "exec", &ns.name, "dumpcap", "-q", "-i", dev])
            .args(["-f", "udp", "-w"])
            .arg(&file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // dumpcap needs a moment before it captures.
        std::thread::sleep(Duration::from_millis(1500));
        Capture { child, file }
    }

    /// Stops dumpcap and returns the file.
    pub fn stop(mut self) -> PathBuf {
        std::thread::sleep(Duration::from_millis(300));
        let pid = rustix::process::Pid::from_raw(self.child.id() as i32).unwrap();
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::INT);
        let _ = self.child.wait();
        self.file.clone()
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A listening stack configured by `c` accepts one association within
/// 10 s and receives a file within `limit` (gaps sampled every
/// `interval`); `None` when the transfer failed or ran out of time.
#[allow(dead_code)] // not every test binary that shares this module uses it
pub async fn accept_and_receive(
    c: StackConfig,
    limit: Duration,
    interval: Duration,
) -> Option<ReceiveReport> {
    let s = Stack::bind(c).await.unwrap();
    let mut a = tokio::time::timeout(Duration::from_secs(10), s.accept())
        .await
        .expect("association")
        .unwrap();
    let r = tokio::time::timeout(
        limit,
        transfer::receive_file(&mut a, tokio::io::sink(), interval),
    )
    .await;
    r.ok().and_then(|r| r.ok())
}

/// The correspondent of the file-transfer tests: a stack on SCTP port
/// 5001 (`tuned_for_lan`) bound to `addrs` accepts one association and
/// receives a file within `limit`; returns the receiver's report and the
/// association's events.
pub async fn receive_one_file(
    addrs: Vec<IpAddr>,
    limit: Duration,
) -> (ReceiveReport, Vec<NetEvent>) {
    let mut c = StackConfig::new(5001).tuned_for_lan();
    c.local_addrs = addrs;
    c.endpoint.listen = true;
    let s = Stack::bind(c).await.unwrap();
    let mut a = s.accept().await.unwrap();
    let mut events = a.take_events().unwrap();
    let r = tokio::time::timeout(
        limit,
        transfer::receive_file(&mut a, tokio::io::sink(), Duration::from_millis(50)),
    )
    .await
    .expect("transfer finished")
    .unwrap();
    let mut seen = Vec::new();
    while let Ok(e) = events.try_recv() {
        seen.push(e);
    }
    (r, seen)
}
