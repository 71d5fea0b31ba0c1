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

/// Which msctp configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Auth {
    /// No AUTH (and so no ADD-IP, which requires it).
    Off,
    /// AUTH (RFC 4895) on every DATA and SACK chunk: each packet carries
    /// an HMAC-SHA-256 computed by the sender and checked by the receiver.
    Data,
}

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
    /// msctp's path MTU (SCTP packet bytes); `None`: the stack's choice
    /// on loopback, the loopback interface's MTU less IP and UDP headers
    /// (65 488 bytes), as kernel TCP sizes its segments there.
    pub path_mtu: Option<usize>,
    /// UDP GSO / GRO for msctp.
    pub offload: bool,
    /// Contenders to run (`msctp`, `msctp-auth`, `msctp-eth`, `usrsctp`,
    /// `tcp`); empty: all.
    pub only: Vec<String>,
    /// Run msctp with the path estimators (the default of the stack).
    pub estimators: bool,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            bytes: 200 << 20,
            message: 65_536,
            work_dir: std::env::temp_dir().join(format!("msctp-bench-{}", std::process::id())),
            usrsctp_examples: PathBuf::from("/usr/share/doc/libusrsctp-dev/examples"),
            path_mtu: None,
            offload: true,
            only: Vec::new(),
            estimators: true,
        }
    }
}

impl BenchConfig {
    fn runs(&self, name: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|o| o == name)
    }

    /// msctp (AUTH off) is among the contenders.
    pub fn runs_msctp(&self) -> bool {
        self.runs("msctp")
    }
}

/// One measurement.
#[derive(Debug, Clone, Serialize)]
pub struct Measure {
    pub system: String,
    /// Megabytes (10^6 bytes) per second.
    pub mb_per_s: Option<f64>,
    /// CPU seconds (user + system, both ends together) per 10^9 bytes
    /// delivered.
    pub cpu_s_per_gb: Option<f64>,
    /// Why there is no figure.
    pub missing: Option<String>,
}

impl Measure {
    /// Cores in use while the transfer ran: MB/s x CPU s per GB. A
    /// transfer whose two ends take turns uses about one, however many
    /// the machine has.
    pub fn cores(&self) -> Option<f64> {
        Some(self.mb_per_s? * self.cpu_s_per_gb? / 1e3)
    }

    /// The table row: MB/s, CPU s per GB and cores, or why not measured.
    pub fn row(&self) -> String {
        match (self.mb_per_s, &self.missing) {
            (Some(v), _) => {
                let cpu = self
                    .cpu_s_per_gb
                    .map_or("-".to_string(), |c| format!("{c:.2}"));
                let cores = self.cores().map_or("-".to_string(), |c| format!("{c:.2}"));
                format!("  {:<52} {v:10.1} {cpu:>12} {cores:>6}", self.system)
            }
            (None, Some(w)) => format!("  {:<52} not measured: {w}", self.system),
            (None, None) => format!("  {:<52} not measured", self.system),
        }
    }

    /// The figures of a transfer, or why there are none.
    pub fn of(system: &str, r: Result<Sample, String>) -> Self {
        match r {
            Ok(x) => Measure {
                system: system.into(),
                mb_per_s: Some(x.bytes as f64 / x.secs.max(1e-9) / 1e6),
                cpu_s_per_gb: x.cpu_s.map(|c| c / (x.bytes as f64 / 1e9)),
                missing: None,
            },
            Err(e) => Measure {
                system: system.into(),
                mb_per_s: None,
                cpu_s_per_gb: None,
                missing: Some(e),
            },
        }
    }
}

/// What one transfer measured.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    /// Bytes delivered.
    pub bytes: u64,
    /// First byte to last at the receiver.
    pub secs: f64,
    /// CPU time of both ends.
    pub cpu_s: Option<f64>,
    /// msctp's path MTU.
    pub path_mtu: Option<usize>,
}

/// The run.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    pub bytes: u64,
    pub message: usize,
    /// msctp's path MTU (AUTH off and on).
    pub path_mtu: Option<usize>,
    /// msctp without AUTH.
    pub msctp: Measure,
    /// msctp with every DATA and SACK authenticated.
    pub msctp_auth: Measure,
    /// msctp (AUTH off) with Ethernet-size packets (path MTU 1452): the
    /// figure that batching and UDP GSO / GRO make.
    pub msctp_ethernet: Measure,
    pub usrsctp: Measure,
    pub tcp: Measure,
    /// msctp (AUTH off) / usrsctp and msctp / TCP.
    pub ratio_usrsctp: Option<f64>,
    pub ratio_tcp: Option<f64>,
    /// The same for msctp with AUTH on DATA.
    pub ratio_auth_usrsctp: Option<f64>,
    pub ratio_auth_tcp: Option<f64>,
}

impl std::fmt::Display for BenchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "loopback throughput, {} MB in {}-byte messages (TCP: {}-byte writes){}:",
            self.bytes / 1_000_000,
            self.message,
            TCP_WRITE,
            self.path_mtu
                .map_or(String::new(), |m| format!(", msctp path MTU {m} bytes"))
        )?;
        writeln!(
            f,
            "  {:<52} {:>10} {:>12} {:>6}",
            "", "MB/s", "CPU s/GB", "cores"
        )?;
        for m in [
            &self.msctp,
            &self.msctp_auth,
            &self.msctp_ethernet,
            &self.usrsctp,
            &self.tcp,
        ] {
            writeln!(f, "{}", m.row())?;
        }
        if let Some(r) = self.ratio_usrsctp {
            writeln!(f, "  msctp / usrsctp = {r:.2}")?;
        }
        if let Some(r) = self.ratio_tcp {
            writeln!(f, "  msctp / kernel TCP = {r:.2}")?;
        }
        if let Some(r) = self.ratio_auth_usrsctp {
            writeln!(f, "  msctp with AUTH / usrsctp = {r:.2}")?;
        }
        if let Some(r) = self.ratio_auth_tcp {
            writeln!(f, "  msctp with AUTH / kernel TCP = {r:.2}")?;
        }
        Ok(())
    }
}

/// A contender that was not selected (`--only`).
pub fn skipped(system: &str) -> Measure {
    Measure {
        system: system.into(),
        mb_per_s: None,
        cpu_s_per_gb: None,
        missing: Some("not selected".into()),
    }
}

/// CPU time (user + system) of this process, or of its waited-for
/// children, in seconds.
pub(crate) fn cpu_time(children: bool) -> Option<f64> {
    let who = if children {
        libc::RUSAGE_CHILDREN
    } else {
        libc::RUSAGE_SELF
    };
    // SAFETY: getrusage fills the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a rusage.
    if unsafe { libc::getrusage(who, &mut ru) } != 0 {
        return None;
    }
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
    Some(t(ru.ru_utime) + t(ru.ru_stime))
}

/// Runs the measurements, one after the other.
pub fn run(cfg: &BenchConfig) -> Result<BenchReport, NetError> {
    const MSCTP: &str = "msctp (SCTP over UDP), AUTH off";
    const MSCTP_AUTH: &str = "msctp, AUTH on (HMAC-SHA-256 on DATA, SACK)";
    const MSCTP_ETH: &str = "msctp, AUTH off, 1452-byte packets (GSO/GRO)";
    const USRSCTP: &str = "usrsctp tsctp (SCTP over UDP, rebuilt)";
    const TCP: &str = "kernel TCP (64 kB writes)";
    let mut mtu_seen = None;
    let msctp = if cfg.runs("msctp") {
        let r = msctp_throughput(cfg, Auth::Off).map_err(|e| e.to_string());
        mtu_seen = r.as_ref().ok().and_then(|x| x.path_mtu);
        Measure::of(MSCTP, r)
    } else {
        skipped(MSCTP)
    };
    let msctp_auth = if cfg.runs("msctp-auth") {
        Measure::of(
            MSCTP_AUTH,
            msctp_throughput(cfg, Auth::Data).map_err(|e| e.to_string()),
        )
    } else {
        skipped(MSCTP_AUTH)
    };
    let msctp_ethernet = if cfg.runs("msctp-eth") {
        let eth = BenchConfig {
            path_mtu: Some(1452),
            ..cfg.clone()
        };
        Measure::of(
            MSCTP_ETH,
            msctp_throughput(&eth, Auth::Off).map_err(|e| e.to_string()),
        )
    } else {
        skipped(MSCTP_ETH)
    };
    let usrsctp = if cfg.runs("usrsctp") {
        Measure::of(USRSCTP, tsctp_throughput(cfg))
    } else {
        skipped(USRSCTP)
    };
    let tcp = if cfg.runs("tcp") {
        Measure::of(TCP, tcp_throughput(cfg).map_err(|e| e.to_string()))
    } else {
        skipped(TCP)
    };
    let ratio = |a: &Measure, b: &Measure| match (a.mb_per_s, b.mb_per_s) {
        (Some(x), Some(y)) if y > 0.0 => Some(x / y),
        _ => None,
    };
    let _ = std::fs::remove_dir_all(&cfg.work_dir);
    Ok(BenchReport {
        bytes: cfg.bytes,
        message: cfg.message,
        path_mtu: mtu_seen,
        ratio_usrsctp: ratio(&msctp, &usrsctp),
        ratio_tcp: ratio(&msctp, &tcp),
        ratio_auth_usrsctp: ratio(&msctp_auth, &usrsctp),
        ratio_auth_tcp: ratio(&msctp_auth, &tcp),
        msctp,
        msctp_auth,
        msctp_ethernet,
        usrsctp,
        tcp,
    })
}

/// The path estimators' cost (issue 11: at most 5%): msctp transfers
/// (AUTH off) with and without them, in interleaved pairs whose order
/// alternates (with then without, without then with, ...) after one
/// discarded warm-up transfer, so that neither side always runs first
/// (the first transfer of a process pays for its page faults and thread
/// starts) and slow drifts of the machine's load fall on both alike.
/// A single pair is no measure on a shared machine: the CPU seconds per
/// GB of one configuration vary by 10 to 30% from run to run.
#[derive(Debug, Clone, Serialize)]
pub struct EstimatorCost {
    /// CPU seconds per GB with the estimators, one per pair.
    pub with: Vec<f64>,
    /// The same without them.
    pub without: Vec<f64>,
    /// with / without of each pair.
    pub ratios: Vec<f64>,
}

impl EstimatorCost {
    /// The median of the per-pair ratios.
    pub fn median_ratio(&self) -> f64 {
        median(&self.ratios)
    }

    /// The smallest and largest per-pair ratio.
    pub fn spread(&self) -> (f64, f64) {
        let lo = self.ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = self
            .ratios
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        (lo, hi)
    }

    /// The ratio of the medians (CPU per GB with / without).
    pub fn ratio_of_medians(&self) -> f64 {
        median(&self.with) / median(&self.without).max(1e-12)
    }
}

/// The median (of an even count, the mean of the middle two); NaN when
/// empty.
pub fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// Measures [`EstimatorCost`] over `pairs` interleaved pairs of msctp
/// transfers of `cfg.bytes` each.
pub fn estimator_cost(cfg: &BenchConfig, pairs: usize) -> Result<EstimatorCost, NetError> {
    let with = BenchConfig {
        estimators: true,
        ..cfg.clone()
    };
    let without = BenchConfig {
        estimators: false,
        ..cfg.clone()
    };
    let cpu_per_gb = |c: &BenchConfig| -> Result<f64, NetError> {
        let s = msctp_throughput(c, Auth::Off)?;
        s.cpu_s
            .map(|cpu| cpu / (s.bytes as f64 / 1e9))
            .ok_or_else(|| NetError::Closed("no CPU time (getrusage failed)".into()))
    };
    cpu_per_gb(&with)?;
    let mut r = EstimatorCost {
        with: Vec::new(),
        without: Vec::new(),
        ratios: Vec::new(),
    };
    for k in 0..pairs {
        let (a, b) = if k % 2 == 0 {
            let a = cpu_per_gb(&with)?;
            (a, cpu_per_gb(&without)?)
        } else {
            let b = cpu_per_gb(&without)?;
            (cpu_per_gb(&with)?, b)
        };
        r.with.push(a);
        r.without.push(b);
        r.ratios.push(a / b.max(1e-12));
    }
    Ok(r)
}

/// Kernel TCP's write (and read) size.
const TCP_WRITE: usize = 1 << 16;

const LO: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

/// The stack configuration of each msctp end.
fn msctp_config(cfg: &BenchConfig, port: u16, listen: bool, auth: Auth) -> StackConfig {
    let mut c = StackConfig::new(port).tuned_for_lan();
    c.udp_port = 0;
    c.local_addrs = vec![LO];
    c.offload = cfg.offload;
    let a = &mut c.endpoint.association;
    c.endpoint.listen = listen;
    a.max_message_size = a.max_message_size.max(cfg.message);
    a.estimators.enabled = cfg.estimators;
    // The benchmark measures the transport at a fixed MTU: no PLPMTUD
    // probes (on loopback there is nothing to discover).
    a.pmtud.enabled = false;
    if let Some(m) = cfg.path_mtu {
        a.path_mtu = m;
        c.loopback_mtu = false;
    }
    match auth {
        Auth::Off => {
            a.auth = false;
            a.asconf = false;
        }
        Auth::Data => {
            a.auth = true;
            a.hmac_algorithms = vec![msctp_proto::auth::HmacAlgorithm::Sha256];
            a.auth_chunks = vec![
                msctp_proto::wire::chunk::chunk_type::DATA,
                msctp_proto::wire::chunk::chunk_type::SACK,
            ];
        }
    }
    c
}

/// msctp between two stacks on 127.0.0.1 (ephemeral UDP ports).
pub fn msctp_throughput(cfg: &BenchConfig, auth: Auth) -> Result<Sample, NetError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let cpu0 = cpu_time(false);
    let mut mtu = None;
    let r = rt.block_on(async {
        let server = Stack::bind(msctp_config(cfg, 5001, true, auth)).await?;
        mtu = Some(server.info().path_mtu);
        let sport = server.udp_port();
        let client = Stack::bind(msctp_config(cfg, 5002, false, auth)).await?;
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
        Ok((got, secs))
    });
    drop(rt);
    let cpu = match (cpu0, cpu_time(false)) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    let (bytes, secs) = r?;
    Ok(Sample {
        bytes,
        secs,
        cpu_s: cpu,
        path_mtu: mtu,
    })
}

/// Kernel TCP on 127.0.0.1.
pub fn tcp_throughput(cfg: &BenchConfig) -> Result<Sample, NetError> {
    let cpu0 = cpu_time(false);
    let l = TcpListener::bind((LO, 0))?;
    let addr = l.local_addr()?;
    let total = cfg.bytes;
    let rx = std::thread::spawn(move || -> std::io::Result<(u64, f64)> {
        let (mut s, _) = l.accept()?;
        let mut buf = vec![0u8; TCP_WRITE];
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
    let buf = vec![0x42u8; TCP_WRITE];
    let mut sent = 0u64;
    while sent < total {
        let n = (total - sent).min(buf.len() as u64) as usize;
        s.write_all(&buf[..n])?;
        sent += n as u64;
    }
    drop(s);
    let (got, secs) = rx.join().map_err(|_| NetError::Stopped)??;
    let cpu = match (cpu0, cpu_time(false)) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    Ok(Sample {
        bytes: got,
        secs,
        cpu_s: cpu,
        path_mtu: None,
    })
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
    let sources = [ex.join("tsctp.c"), ex.join("programs_helper.c")];
    build_usrsctp_program(
        &sources,
        &out,
        &["-DLINUX", "-w", "-I", &cfg.work_dir.display().to_string()],
    )?;
    Ok(out)
}

/// Builds a C program against libusrsctp (`gcc -O2 SOURCES EXTRA
/// $(pkg-config --cflags --libs usrsctp) -lpthread -o OUT`).
pub(crate) fn build_usrsctp_program(
    sources: &[PathBuf],
    out: &Path,
    extra: &[&str],
) -> Result<(), String> {
    let flags = Command::new("pkg-config")
        .args(["--cflags", "--libs", "usrsctp"])
        .output()
        .map_err(|e| format!("pkg-config: {e}"))?;
    if !flags.status.success() {
        return Err("pkg-config does not know usrsctp (install libusrsctp-dev)".into());
    }
    let flags = String::from_utf8_lossy(&flags.stdout).to_string();
    let st = Command::new("gcc")
        .arg("-O2")
        .args(extra)
        .arg("-o")
        .arg(out)
        .args(sources)
        .args(flags.split_whitespace())
        .arg("-lpthread")
        .status()
        .map_err(|e| format!("gcc: {e}"))?;
    if !st.success() {
        return Err(format!("gcc failed to build {}", out.display()));
    }
    Ok(())
}

pub(crate) fn free_udp_port() -> Result<u16, String> {
    let s = std::net::UdpSocket::bind((LO, 0)).map_err(|e| e.to_string())?;
    Ok(s.local_addr().map_err(|e| e.to_string())?.port())
}

/// Wraps a command so that usrsctp runs without CAP_NET_RAW when root
/// (pure UDP encapsulation, like msctp).
pub(crate) fn usrsctp_command(prog: &Path, args: &[String]) -> Command {
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
pub fn tsctp_throughput(cfg: &BenchConfig) -> Result<Sample, String> {
    let prog = build_tsctp(cfg)?;
    // The compiler was a child too: count only what follows.
    let cpu0 = cpu_time(true);
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
    let cpu = match (cpu0, cpu_time(true)) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    match client {
        Ok(s) if s.success() => {}
        Ok(s) => return Err(format!("tsctp client exited with {s}")),
        Err(e) => return Err(format!("tsctp client: {e}")),
    }
    let line = line.map_err(|_| "tsctp server printed no result".to_string())?;
    // first_length, messages, recv_calls, sum, seconds, B/s, notifications
    let f: Vec<&str> = line.split(", ").collect();
    let num = |i: usize| -> Result<f64, String> {
        f.get(i)
            .and_then(|v| v.trim().parse().ok())
            .ok_or_else(|| format!("cannot read tsctp's line {line:?}"))
    };
    let (bytes, secs) = (num(3)?, num(4)?);
    if bytes <= 0.0 || secs <= 0.0 {
        return Err(format!("tsctp reported nothing: {line:?}"));
    }
    Ok(Sample {
        bytes: bytes as u64,
        secs,
        cpu_s: cpu,
        path_mtu: None,
    })
}
