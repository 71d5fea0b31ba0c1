//! Network-namespace helpers for the tests that need root: namespaces
//! that are deleted when dropped (even on panic), commands run inside
//! them, and threads that enter one (`setns`) so that every socket they
//! open lives there.

#![allow(dead_code)]

use std::fs::File;
use std::os::fd::AsFd;
use std::process::Command;

/// Why a root-only test cannot run here, if it cannot.
pub fn skip_reason(tools: &[&str]) -> Option<String> {
    if !rustix::process::geteuid().is_root() {
        return Some("needs root (network namespaces)".into());
    }
    for t in tools {
        let found = std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(t).is_file()));
        if !found {
            return Some(format!("`{t}` is not installed"));
        }
    }
    None
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

/// Runs `f` to completion on a new current-thread tokio runtime.
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
        .block_on(f)
}
