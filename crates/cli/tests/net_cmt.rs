//! `msctp send --cmt` and `msctp perf --cmt` on loopback (issue 12): a
//! receiver bound to two addresses, 127.0.0.1 and 127.0.0.2, a sender
//! bound to both, every command run as a user runs it. Both paths carry
//! data and the file arrives SHA-256-identical. (The throughput of CMT
//! over links of different rates is measured in
//! crates/net/tests/netns_cmt.rs; here both paths are the same loopback.)

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};

use sha2::{Digest, Sha256};

const ADDRS: [&str; 2] = ["127.0.0.1", "127.0.0.2"];

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

fn bind_both() -> Vec<&'static str> {
    ADDRS.iter().flat_map(|a| ["--bind", *a]).collect()
}

/// Starts `msctp ARGS --bind both --udp-port 0 --cmt --lan` and reads the
/// UDP port from its first line on stderr ("... over UDP port U ...").
fn server(dir: &Path, args: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_msctp"))
        .args(args)
        .args(bind_both())
        .args(["--udp-port", "0", "--cmt", "--lan"])
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let udp_port = common::announced_udp_port(&mut child);
    Server { child, udp_port }
}

/// Runs a client `msctp ARGS --to both --bind both ... --cmt --lan --json`
/// against `s`; returns its JSON lines.
fn client(dir: &Path, s: &Server, port: &str, args: &[&str]) -> Vec<serde_json::Value> {
    let udp = s.udp_port.to_string();
    let to: Vec<&str> = ADDRS.iter().flat_map(|a| ["--to", *a]).collect();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_msctp"));
    cmd.args(args)
        .args(to)
        .args(bind_both())
        .args(["--udp-port", "0", "--remote-udp-port", &udp])
        .args(["--peer-port", port, "--cmt", "--lan", "--json"])
        .current_dir(dir);
    common::json_lines(&mut cmd, &format!("{args:?}"))
}

#[test]
fn cmt_send_splits_a_file_over_both_paths_and_it_arrives_intact() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("in")).unwrap();
    let data: Vec<u8> = (0..8u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(dir.path().join("big.bin"), &data).unwrap();
    let sha = hex(&Sha256::digest(&data));
    let mut rx = server(
        dir.path(),
        &["recv", "-d", "in", "--once", "--port", "7121", "--json"],
    );
    let lines = client(dir.path(), &rx, "7121", &["send", "big.bin"]);
    let report = lines
        .iter()
        .find(|l| l.get("sha256").is_some())
        .expect("a send report");
    assert_eq!(report["sha256"], sha.as_str());
    for p in report["paths"].as_array().unwrap() {
        let bytes = p["bytes_acked"].as_u64().unwrap();
        println!("{}: {bytes} bytes", p["peer"]);
        assert!(
            bytes > 256 << 10,
            "path {} carried {bytes} bytes",
            p["peer"]
        );
    }
    assert!(rx.child.wait().unwrap().success(), "the receiver failed");
    let got = std::fs::read(dir.path().join("in/big.bin")).unwrap();
    assert_eq!(hex(&Sha256::digest(&got)), sha, "the file differs");
}

#[test]
fn cmt_perf_reports_both_paths_carrying_data() {
    let dir = tempfile::tempdir().unwrap();
    let _srv = server(dir.path(), &["perf", "--server", "--port", "7122"]);
    let lines = client(
        dir.path(),
        &_srv,
        "7122",
        &["perf", "-t", "1", "-i", "0.25"],
    );
    let mut per_path = [0.0f64; 2];
    for l in lines.iter().filter(|l| l["type"] == "interval") {
        for p in l["paths"].as_array().unwrap() {
            let k = ADDRS.iter().position(|a| p["peer"] == *a).unwrap();
            per_path[k] += p["mbps"].as_f64().unwrap();
        }
    }
    println!("Mbit/s summed over the intervals per path: {per_path:?}");
    for (addr, mbps) in ADDRS.iter().zip(per_path) {
        assert!(mbps > 0.0, "path {addr} carried nothing");
    }
    let total = lines
        .iter()
        .find(|l| l["type"] == "summary")
        .expect("total");
    assert!(total["bytes"].as_u64().unwrap() > 0);
    assert!(total.get("rwnd_blocked_s").is_some());
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
