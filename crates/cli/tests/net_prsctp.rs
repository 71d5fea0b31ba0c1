//! `msctp perf --max-retransmissions` and `--lifetime-ms` on loopback
//! (issue 35, RFC 3758 / RFC 7496): the server drops 5% of what it
//! receives (`--impair`, in user space); with a partial reliability policy
//! the client abandons messages instead of resending them for ever, and
//! its summary counts them. Without a policy nothing is abandoned.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};

/// A server process (killed on drop) and the UDP port it bound.
struct Server {
    child: Child,
    udp_port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn server(dir: &Path, port: &str) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_msctp"))
        .args(["perf", "--server", "--port", port, "--bind", "127.0.0.1"])
        .args(["--udp-port", "0", "--lan", "--impair", "loss=0.05,seed=3"])
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let udp_port = common::announced_udp_port(&mut child);
    Server { child, udp_port }
}

/// Runs `msctp perf` for 1 s against `s` with `args`; returns the summary.
fn perf(dir: &Path, s: &Server, port: &str, args: &[&str]) -> serde_json::Value {
    let udp = s.udp_port.to_string();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_msctp"));
    cmd.args(["perf", "-t", "1", "-i", "0.5", "--to", "127.0.0.1"])
        .args(["--bind", "127.0.0.1", "--udp-port", "0"])
        .args([
            "--remote-udp-port",
            &udp,
            "--peer-port",
            port,
            "--lan",
            "--json",
        ])
        .args(args)
        .current_dir(dir);
    common::json_lines(&mut cmd, &format!("{args:?}"))
        .into_iter()
        .find(|l| l["type"] == "summary")
        .expect("a summary")
}

#[test]
fn perf_with_a_policy_abandons_lost_messages_and_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    let s = server(dir.path(), "7131");
    let reliable = perf(dir.path(), &s, "7131", &[]);
    let once = perf(dir.path(), &s, "7131", &["--max-retransmissions", "0"]);
    let timed = perf(dir.path(), &s, "7131", &["--lifetime-ms", "1"]);
    for (name, l) in [("reliable", &reliable), ("rtx 0", &once), ("1 ms", &timed)] {
        println!(
            "{name}: {} bytes, {} abandoned",
            l["bytes"], l["abandoned_messages"]
        );
    }
    assert_eq!(reliable["abandoned_messages"], 0);
    assert!(once["abandoned_messages"].as_u64().unwrap() > 0);
    assert!(timed["abandoned_messages"].as_u64().unwrap() > 0);
}

#[test]
fn lifetime_and_max_retransmissions_exclude_each_other() {
    let o = Command::new(env!("CARGO_BIN_EXE_msctp"))
        .args(["perf", "--to", "127.0.0.1", "--lifetime-ms", "5"])
        .args(["--max-retransmissions", "1"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot be used with"));
}
