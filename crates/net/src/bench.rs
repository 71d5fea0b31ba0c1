//! Loopback throughput benchmark: msctp (two stacks, SCTP over UDP)
//! against usrsctp's own tool `tsctp` (rebuilt from Debian's example
//! source without `SCTP_DEBUG`, so it prints no debug output) and against
//! kernel TCP, measured one after the other in the same run and reported
//! as ratios. The lead wires it into `msctp bench`; `cargo run --release
//! -p msctp-net --example bench` runs it alone.
//!
//! Each side transfers `bytes` in messages of `message` bytes (TCP: in
//! writes of 64 kB); throughput is application bytes per second at the
//! receiver, first byte to last (tsctp's server reports it the same way).

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde::Serialize;

use crate::config::StackConfig;
use crate::error::NetError;
use crate::stack::Stack;

/// What to measure.
#[derive(Debug, Clone)]
pub struct BenchConfig {
    /// Bytes per transfer.
    pub bytes: u64,
    /// Message size for msctp and tsctp.
    pub message: usize,
    /// Where tsctp is built (a temporary directory by default).
    pub work_dir: PathBuf,
    /// usrsctp example sources (Debian: /usr/share/doc/libusrsctp-dev/examples).
    pub usrsctp_examples: PathBuf,
    /// Run msctp with the path estimators (the default of the stack).
    pub estimators: bool,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            bytes: 200 << 20,
            message: 1400,
            work_dir: std::env::temp_dir().join(format!("msctp-bench-{}", std::process::id())),
            usrsctp_examples: PathBuf::from("/usr/share/doc/libusrsctp-dev/examples"),
            estimators: true,
        }
    }
}

/// One measurement.
#[derive(Debug, Clone, Serialize)]
pub struct Measure {
    pub system: String,
    /// Megabytes (10^6 bytes) per second.
    pub mb_per_s: Option<f64>,
    /// Why there is no figure.
    pub missing: Option<String>,
}

/// The run.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    pub bytes: u64,
    pub message: usize,
    pub msctp: Measure,
    pub usrsctp: Measure,
    pub tcp: Measure,
    /// msctp / usrsctp and msctp / TCP.
    pub ratio_usrsctp: Option<f64>,
    pub ratio_tcp: Option<f64>,
}

impl std::fmt::Display for BenchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "loopback throughput, {} MB in {}-byte messages:",
            self.bytes / 1_000_000,
            self.message
        )?;
        for m in [&self.msctp, &self.usrsctp, &self.tcp] {
            match (m.mb_per_s, &m.missing) {
                (Some(v), _) => writeln!(f, "  {:<40} {v:8.1} MB/s", m.system)?,
                (None, Some(w)) => writeln!(f, "  {:<40} not measured: {w}", m.system)?,
                (None, None) => writeln!(f, "  {:<40} not measured", m.system)?,
            }
        }
        if let Some(r) = self.ratio_usrsctp {
            writeln!(f, "  msctp / usrsctp = {r:.2}")?;
        }
        if let Some(r) = self.ratio_tcp {
            writeln!(f, "  msctp / kernel TCP = {r:.2}")?;
        }
        Ok(())
    }
}

/// Runs the three measurements.
pub fn run(cfg: &BenchConfig) -> Result<BenchReport, NetError> {
    let msctp = match msctp_throughput(cfg) {
        Ok(v) => Measure {
            system: "msctp (SCTP over UDP)".into(),
            mb_per_s: Some(v),
            missing: None,
        },
        Err(e) => Measure {
            system: "msctp (SCTP over UDP)".into(),
            mb_per_s: None,
            missing: Some(e.to_string()),
        },
    };
    let usrsctp = match tsctp_throughput(cfg) {
        Ok(v) => Measure {
            system: "usrsctp tsctp (SCTP over UDP, rebuilt)".into(),
            mb_per_s: Some(v),
            missing: None,
        },
        Err(e) => Measure {
            system: "usrsctp tsctp (SCTP over UDP, rebuilt)".into(),
            mb_per_s: None,
            missing: Some(e),
        },
    };
    let tcp = match tcp_throughput(cfg) {
        Ok(v) => Measure {
            system: "kernel TCP".into(),
            mb_per_s: Some(v),
            missing: None,
        },
        Err(e) => Measure {
            system: "kernel TCP".into(),
            mb_per_s: None,
            missing: Some(e.to_string()),
        },
    };
    let ratio = |a: &Measure, b: &Measure| match (a.mb_per_s, b.mb_per_s) {
        (Some(x), Some(y)) if y > 0.0 => Some(x / y),
        _ => None,
    };
    let _ = std::fs::remove_dir_all(&cfg.work_dir);
    Ok(BenchReport {
        bytes: cfg.bytes,
        message: cfg.message,
        ratio_usrsctp: ratio(&msctp, &usrsctp),
        ratio_tcp: ratio(&msctp, &tcp),
        msctp,
        usrsctp,
        tcp,
    })
}

const LO: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

/// msctp between two stacks on 127.0.0.1 (ephemeral UDP ports).
pub fn msctp_throughput(cfg: &BenchConfig) -> Result<f64, NetError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(async {
        let mk = |port: u16, listen: bool| {
            let mut c = StackConfig::new(port).tuned_for_lan();
            c.udp_port = 0;
            c.local_addrs = vec![LO];
            c.endpoint.listen = listen;
            c.endpoint.association.estimators.enabled = cfg.estimators;
            c.endpoint.association.max_message_size =
                c.endpoint.association.max_message_size.max(cfg.message);
            c
        };
        let server = Stack::bind(mk(5001, true)).await?;
        let sport = server.udp_port();
        let client = Stack::bind(mk(5002, false)).await?;
        let total = cfg.bytes;
        let rx = tokio::spawn(async move {
            let mut a = server.accept().await?;
            let mut got = 0u64;
            let mut start = None;
            while let Some(m) = a.recv().await? {
                start.get_or_insert_with(Instant::now);
                got += m.data.len() as u64;
            }
            let secs = start.map_or(0.0, |s: Instant| s.elapsed().as_secs_f64());
            Ok::<(u64, f64), NetError>((got, secs))
        });
        let a = client.connect_via(&[LO], 5001, Some(sport)).await?;
        let payload = Bytes::from(vec![0x42u8; cfg.message.max(1)]);
        let mut sent = 0u64;
        while sent < total {
            let n = (total - sent).min(payload.len() as u64) as usize;
            a.send(0, 0, payload.slice(..n)).await?;
            sent += n as u64;
        }
        a.shutdown().await?;
        let (got, secs) = rx.await.map_err(|_| NetError::Stopped)??;
        if got != total {
            return Err(NetError::Closed(format!("received {got} of {total} bytes")));
        }
        Ok(got as f64 / secs.max(1e-9) / 1e6)
    })
}

/// Kernel TCP on 127.0.0.1.
pub fn tcp_throughput(cfg: &BenchConfig) -> Result<f64, NetError> {
    let l = TcpListener::bind((LO, 0))?;
    let addr = l.local_addr()?;
    let total = cfg.bytes;
    let rx = std::thread::spawn(move || -> std::io::Result<(u64, f64)> {
        let (mut s, _) = l.accept()?;
        let mut buf = vec![0u8; 1 << 16];
        let mut got = 0u64;
        let mut start = None;
        loop {
            let n = s.read(&mut buf)?;
            if n == 0 {
                break;
            }
            start.get_or_insert_with(Instant::now);
            got += n as u64;
        }
        Ok((
            got,
            start.map_or(0.0, |s: Instant| s.elapsed().as_secs_f64()),
        ))
    });
    let mut s = TcpStream::connect(addr)?;
    let buf = vec![0x42u8; 1 << 16];
    let mut sent = 0u64;
    while sent < total {
        let n = (total - sent).min(buf.len() as u64) as usize;
        s.write_all(&buf[..n])?;
        sent += n as u64;
    }
    drop(s);
    let (got, secs) = rx.join().map_err(|_| NetError::Stopped)??;
    Ok(got as f64 / secs.max(1e-9) / 1e6)
}

/// The header tsctp.c includes; Debian ships programs_helper.c but not
/// its header. Declarations only.
const HELPER_H: &str = "#ifndef PROGRAMS_HELPER_H\n#define PROGRAMS_HELPER_H\n#include <stdio.h>\n#include <usrsctp.h>\nvoid debug_set_target(FILE *fp);\nvoid debug_printf_clean(const char *format, ...);\nvoid debug_printf(const char *format, ...);\nvoid debug_printf_stack(const char *format, ...);\nvoid handle_notification(union sctp_notification *notif, size_t n);\n#endif\n";

/// Builds tsctp without SCTP_DEBUG.
pub fn build_tsctp(cfg: &BenchConfig) -> Result<PathBuf, String> {
    let ex = &cfg.usrsctp_examples;
    for f in ["tsctp.c", "programs_helper.c"] {
        if !ex.join(f).is_file() {
            return Err(format!(
                "{} missing (install libusrsctp-dev)",
                ex.join(f).display()
            ));
        }
    }
    std::fs::create_dir_all(&cfg.work_dir).map_err(|e| e.to_string())?;
    std::fs::write(cfg.work_dir.join("programs_helper.h"), HELPER_H).map_err(|e| e.to_string())?;
    let out = cfg.work_dir.join("tsctp");
    let flags = Command::new("pkg-config")
        .args(["--cflags", "--libs", "usrsctp"])
        .output()
        .map_err(|e| format!("pkg-config: {e}"))?;
    if !flags.status.success() {
        return Err("pkg-config does not know usrsctp".into());
    }
    let flags = String::from_utf8_lossy(&flags.stdout).to_string();
    let st = Command::new("gcc")
        .args(["-O2", "-DLINUX", "-w", "-I"])
        .arg(&cfg.work_dir)
        .arg("-o")
        .arg(&out)
        .arg(ex.join("tsctp.c"))
        .arg(ex.join("programs_helper.c"))
        .args(flags.split_whitespace())
        .arg("-lpthread")
        .status()
        .map_err(|e| format!("gcc: {e}"))?;
    if !st.success() {
        return Err("gcc failed to build tsctp".into());
    }
    Ok(out)
}

fn free_udp_port() -> Result<u16, String> {
    let s = std::net::UdpSocket::bind((LO, 0)).map_err(|e| e.to_string())?;
    Ok(s.local_addr().map_err(|e| e.to_string())?.port())
}

/// Wraps a command so that usrsctp runs without CAP_NET_RAW when root
/// (pure UDP encapsulation, like msctp).
fn usrsctp_command(prog: &Path, args: &[String]) -> Command {
    let root = rustix_is_root();
    if root && which("capsh") {
        let mut c = Command::new("capsh");
        let line = std::iter::once(prog.display().to_string())
            .chain(args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ");
        c.args(["--drop=cap_net_raw", "--", "-c"])
            .arg(format!("exec {line}"));
        c
    } else {
        let mut c = Command::new(prog);
        c.args(args);
        c
    }
}

fn rustix_is_root() -> bool {
    // /proc/self/status "Uid:" line, first field.
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(1).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

fn which(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}

/// tsctp server and client on 127.0.0.1; the server's report line gives
/// the throughput.
pub fn tsctp_throughput(cfg: &BenchConfig) -> Result<f64, String> {
    let prog = build_tsctp(cfg)?;
    let sport = free_udp_port()?;
    let cport = free_udp_port()?;
    let n = cfg.bytes.div_ceil(cfg.message.max(1) as u64);
    let server_args: Vec<String> = ["-E", &sport.to_string(), "-L", "127.0.0.1", "-p", "5001"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut server = usrsctp_command(&prog, &server_args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("tsctp server: {e}"))?;
    std::thread::sleep(Duration::from_millis(500));
    let client_args: Vec<String> = [
        "-E".to_string(),
        cport.to_string(),
        "-U".into(),
        sport.to_string(),
        "-L".into(),
        "127.0.0.1".into(),
        "-p".into(),
        "5001".into(),
        "-l".into(),
        cfg.message.to_string(),
        "-n".into(),
        n.to_string(),
        "127.0.0.1".into(),
    ]
    .to_vec();
    let client = usrsctp_command(&prog, &client_args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    // The server prints its line when the association ends, then waits
    // for more: read until the line, then stop it.
    let mut out = server.stdout.take().ok_or("no server output")?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            match out.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(k) => {
                    buf.extend_from_slice(&chunk[..k]);
                    let text = String::from_utf8_lossy(&buf).to_string();
                    if let Some(l) = text.lines().find(|l| l.split(", ").count() == 7) {
                        let _ = tx.send(l.to_string());
                        break;
                    }
                }
            }
        }
    });
    let line = rx.recv_timeout(Duration::from_secs(120));
    let _ = server.kill();
    let _ = server.wait();
    match client {
        Ok(s) if s.success() => {}
        Ok(s) => return Err(format!("tsctp client exited with {s}")),
        Err(e) => return Err(format!("tsctp client: {e}")),
    }
    let line = line.map_err(|_| "tsctp server printed no result".to_string())?;
    // first_length, messages, recv_calls, sum, seconds, B/s, notifications
    let f: Vec<&str> = line.split(", ").collect();
    let bps: f64 = f
        .get(5)
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| format!("cannot read tsctp's line {line:?}"))?;
    Ok(bps / 1e6)
}
