//! `msctp recv` keeps serving when a sender dies (issue 31, finding 5),
//! on loopback:
//!
//! ```text
//! sender 1 (UDP port C)            msctp recv (UDP port U)
//!   INIT ... COOKIE ACK  ------->  accept: session 1
//!   header, DATA ...     ------->  writing .msctp-recv-PID
//!   SIGKILL (no ABORT, no SHUTDOWN)
//! sender 2 (same address, UDP port C, SCTP port)
//!   INIT                 ------->  meets session 1's association
//!   COOKIE ECHO          ------->  restart (RFC 9260 5.2.4): session 1
//!                                  ends (INCOMPLETE, discarded),
//!                                  accept: session 2
//!   header, DATA, trailer, SHUTDOWN -> second.bin, SHA-256 identical
//! ```
//!
//! and, with `--idle-timeout`, a sender killed and never restarted no
//! longer holds the receiver: its association is aborted after the idle
//! time and the next sender is served.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

/// A running `msctp recv`: its output lines, collected by threads (a
/// closed pipe would kill it with SIGPIPE), killed on drop.
struct Receiver {
    child: Child,
    udp_port: u16,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Receiver {
    fn start(out: &Path, extra: &[&str]) -> Receiver {
        let mut child = Command::new(env!("CARGO_BIN_EXE_msctp"))
            .args(["recv", "-d"])
            .arg(out)
            .args(["--bind", "127.0.0.1", "--udp-port", "0", "--port", "6201"])
            .args(["--lan"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let err = child.stderr.take().unwrap();
        let out = child.stdout.take().unwrap();
        for (pipe, first) in [
            (Box::new(err) as Box<dyn std::io::Read + Send>, Some(tx)),
            (Box::new(out), None),
        ] {
            let lines = lines.clone();
            std::thread::spawn(move || {
                for l in BufReader::new(pipe).lines().map_while(Result::ok) {
                    if let Some(tx) = &first {
                        let _ = tx.send(l.clone());
                    }
                    lines.lock().unwrap().push(l);
                }
            });
        }
        let first = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        let udp_port = first
            .split("UDP port ")
            .nth(1)
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("unexpected first line: {first:?}"));
        Receiver {
            child,
            udp_port,
            lines,
        }
    }

    fn output(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }
}

/// Two different UDP ports free on 127.0.0.1 now.
fn free_udp_ports() -> [u16; 2] {
    let a = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let b = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    [a, b].map(|s| s.local_addr().unwrap().port())
}

/// `msctp send FILE` from 127.0.0.1 at UDP port `udp` and SCTP port
/// `sctp` (the association's identity, with the address).
fn sender(file: &Path, (udp, sctp): (u16, u16), recv_udp: u16) -> Child {
    Command::new(env!("CARGO_BIN_EXE_msctp"))
        .arg("send")
        .arg(file)
        .args([
            "--to",
            "127.0.0.1",
            "--peer-port",
            "6201",
            "--bind",
            "127.0.0.1",
        ])
        .args(["--port", &sctp.to_string(), "--lan"])
        .args(["--udp-port", &udp.to_string()])
        .args(["--remote-udp-port", &recv_udp.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn wait_for(what: &str, limit: Duration, mut ok: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ok() {
        assert!(start.elapsed() < limit, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Starts sender 1 on a FIFO, feeds it `bytes`, waits until the receiver
/// has written part of them, then kills it with SIGKILL.
fn kill_mid_transfer(dir: &Path, r: &Receiver, udp: (u16, u16)) {
    let fifo = dir.join("stream.fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let mut first = sender(&fifo, udp, r.udp_port);
    let mut w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    w.write_all(&vec![7u8; 1 << 20]).unwrap();
    let partial = dir
        .join("out")
        .join(format!(".msctp-recv-{}", r.child.id()));
    wait_for(
        "part of the first file written",
        Duration::from_secs(10),
        || std::fs::metadata(&partial).is_ok_and(|m| m.len() >= 256 << 10),
    );
    first.kill().unwrap();
    first.wait().unwrap();
    drop(w);
}

/// A file of `n` pseudo-random bytes and its SHA-256.
fn random_file(path: &Path, n: usize) -> String {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let data: Vec<u8> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    std::fs::write(path, &data).unwrap();
    hex(&Sha256::digest(&data))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn sha256_of(path: &PathBuf) -> String {
    hex(&Sha256::digest(std::fs::read(path).unwrap()))
}

/// Sends `second.bin` from UDP and SCTP ports `udp`; the receiver must
/// store it intact.
fn second_transfer(dir: &Path, r: &Receiver, udp: (u16, u16)) {
    let file = dir.join("second.bin");
    let sha = random_file(&file, 3 << 20);
    let mut second = sender(&file, udp, r.udp_port);
    let start = Instant::now();
    let status = loop {
        if let Some(s) = second.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = second.kill();
            panic!("the second sender hangs; receiver said:\n{}", r.output());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "second sender failed:\n{}", r.output());
    let got = dir.join("out").join("second.bin");
    wait_for("second.bin stored", Duration::from_secs(10), || {
        got.exists()
    });
    assert_eq!(sha256_of(&got), sha, "{}", r.output());
    let out = r.output();
    assert!(out.contains(&format!("SHA-256 {sha}")), "{out}");
}

#[test]
fn recv_serves_a_client_killed_and_restarted_from_the_same_port() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let r = Receiver::start(&dir.path().join("out"), &[]);
    let [udp, _] = free_udp_ports();
    kill_mid_transfer(dir.path(), &r, (udp, 6202));
    // Started again from the same address and ports: a restart.
    second_transfer(dir.path(), &r, (udp, 6202));
    let out = r.output();
    assert!(
        out.contains("INCOMPLETE") && out.contains("restarted"),
        "{out}"
    );
}

#[test]
fn recv_aborts_an_idle_sender_and_serves_the_next() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let r = Receiver::start(&dir.path().join("out"), &["--idle-timeout", "1"]);
    let [first, other] = free_udp_ports();
    kill_mid_transfer(dir.path(), &r, (first, 6202));
    // Another sender (other ports): served once the first is given up.
    second_transfer(dir.path(), &r, (other, 6203));
    let out = r.output();
    // Whichever notices first: the engine's idle timeout (no user data
    // either way) or the transfer's wait for the next message; both are
    // `--idle-timeout`.
    assert!(
        out.contains("INCOMPLETE")
            && (out.contains("no user data either way for the idle timeout")
                || out.contains("no message from the peer for 1.0 s")),
        "{out}"
    );
}
