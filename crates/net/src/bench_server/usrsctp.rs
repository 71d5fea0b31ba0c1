//! usrsctp as the third contender of `msctp bench server`: the
//! `bench-server` mode of `interop/usrsctp_peer.c` (built here with gcc
//! against Debian's libusrsctp), one usrsctp stack over UDP encapsulation
//! (RFC 6951) on 127.0.0.1 whose one-to-many socket (RFC 6458 section 3)
//! holds every association. The clients are the same as for msctp
//! ([`super::run_clients`], `msctp_proto` endpoints with AUTH and ADD-IP,
//! which usrsctp requires for ASCONF): the two servers are measured with
//! one client driver. The server is a process of its own, so its memory
//! and CPU are read from `/proc/PID`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::{
    ClientReport, Phase, SERVER_ADDR, SERVER_PORT, ServerBenchConfig, ServerBenchReport, rss_of,
    spawn_clients, udp_receive_drops,
};
use crate::bench::{build_usrsctp_program, free_udp_port, usrsctp_command};

/// The one usrsctp program of the tests, compiled into the binary so that
/// `msctp bench server` can build it anywhere libusrsctp-dev is installed.
const PEER_SOURCE: &str = include_str!("../../interop/usrsctp_peer.c");

/// usrsctp's side.
#[derive(Debug, Clone, Serialize)]
pub struct UsrsctpServer {
    /// What the clients saw: `established` is the number of associations
    /// usrsctp held (all N, or the largest number it took).
    pub clients: ClientReport,
    pub handshakes_per_s: f64,
    /// Associations the server saw come up (SCTP_COMM_UP notifications),
    /// counted once the set-up is over.
    pub accepted: usize,
    /// Of them, still up then.
    pub held: usize,
    /// Server resident memory per association.
    pub rss_per_association: Option<f64>,
    /// Server CPU seconds per second with the associations idle.
    pub idle_cpu_per_s: Option<f64>,
    /// UDP datagrams the host dropped for a full receive buffer during
    /// the set-up (usrsctp's UDP socket has a 256 kB receive buffer,
    /// msctp's 4 MB: `StackConfig::socket_buffer`).
    pub setup_udp_drops: Option<u64>,
}

impl UsrsctpServer {
    /// Its lines of the report, with the ratios against msctp.
    pub(super) fn fmt_against(
        &self,
        r: &ServerBenchReport,
        f: &mut std::fmt::Formatter<'_>,
    ) -> std::fmt::Result {
        let u = self;
        let c = &u.clients;
        writeln!(
            f,
            "  usrsctp: {} up, {} failed in {:.2} s: {:.0} handshakes/s; {} moved; server saw {} up, held {}",
            c.established, c.failed, c.setup_secs, u.handshakes_per_s, c.moved, u.accepted, u.held
        )?;
        if c.established < r.clients {
            writeln!(
                f,
                "  usrsctp held at most {} of {} associations",
                c.established, r.clients
            )?;
        }
        if let Some(r) = u.rss_per_association {
            writeln!(
                f,
                "  usrsctp server memory: {:.1} kB RSS per association",
                r / 1e3
            )?;
        }
        if let Some(cpu) = u.idle_cpu_per_s {
            writeln!(f, "  usrsctp idle: {:.2} % of a CPU", cpu * 100.0)?;
        }
        if let Some(d) = u.setup_udp_drops {
            writeln!(
                f,
                "  usrsctp set-up: {d} UDP datagrams dropped for a full receive buffer"
            )?;
        }
        for e in [&c.first_failure, &c.move_failure].into_iter().flatten() {
            writeln!(f, "  usrsctp first failure: {e}")?;
        }
        if let Some(r) = r.ratio_usrsctp {
            writeln!(f, "  msctp handshakes / usrsctp handshakes = {r:.3}")?;
        }
        if let Some(r) = r.memory_ratio_usrsctp {
            writeln!(
                f,
                "  msctp memory / usrsctp memory per association = {r:.3}"
            )?;
        }
        Ok(())
    }
}

/// Builds `usrsctp_peer` in `dir`.
fn build_peer(dir: &Path) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let src = dir.join("usrsctp_peer.c");
    std::fs::write(&src, PEER_SOURCE).map_err(|e| e.to_string())?;
    let out = dir.join("usrsctp_peer");
    build_usrsctp_program(&[src], &out, &["-Wall"])?;
    Ok(out)
}

/// User and system CPU seconds of process `pid` (`/proc/PID/stat`
/// fields 14 and 15, in clock ticks).
fn cpu_of(pid: &str) -> Option<f64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces: count after its ')'.
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (hz > 0).then(|| ticks / hz as f64)
}

/// The running usrsctp server and its control pipe.
struct Peer {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Peer {
    fn start(prog: &Path, udp: u16) -> Result<Peer, String> {
        let args = [
            "bench-server".to_string(),
            udp.to_string(),
            SERVER_PORT.to_string(),
            SERVER_ADDR.to_string(),
        ];
        let mut child = usrsctp_command(prog, &args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", prog.display()))?;
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut p = Peer {
            child,
            stdin,
            stdout,
        };
        match p.line()?.trim() {
            "listening" => Ok(p),
            other => Err(format!("usrsctp_peer said {other:?}, not \"listening\"")),
        }
    }

    fn line(&mut self) -> Result<String, String> {
        let mut l = String::new();
        match self.stdout.read_line(&mut l) {
            Ok(0) => Err("usrsctp_peer exited".into()),
            Ok(_) => Ok(l),
            Err(e) => Err(e.to_string()),
        }
    }

    /// (ever up, up now), from the server's SCTP_ASSOC_CHANGE count.
    fn count(&mut self) -> Result<(usize, usize), String> {
        let w = self.stdin.as_mut().ok_or("stdin closed")?;
        w.write_all(b"count\n")
            .and_then(|()| w.flush())
            .map_err(|e| e.to_string())?;
        let l = self.line()?;
        let n: Vec<usize> = l
            .strip_prefix("associations ")
            .ok_or_else(|| format!("usrsctp_peer said {l:?}"))?
            .split_whitespace()
            .map(|x| x.parse().map_err(|e| format!("{x:?}: {e}")))
            .collect::<Result<_, String>>()?;
        match n[..] {
            [up, now] => Ok((up, now)),
            _ => Err(format!("usrsctp_peer said {l:?}")),
        }
    }

    /// Ends the server (the end of its stdin).
    fn stop(mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs the usrsctp contender: N clients (as for msctp) against one
/// usrsctp server. `Err`: why it could not run (no gcc, no libusrsctp).
pub fn run(cfg: &ServerBenchConfig) -> Result<UsrsctpServer, String> {
    let dir = std::env::temp_dir().join(format!("msctp-bench-server-{}", std::process::id()));
    let prog = build_peer(&dir)?;
    let r = measure(cfg, &prog);
    let _ = std::fs::remove_dir_all(&dir);
    r
}

fn measure(cfg: &ServerBenchConfig, prog: &Path) -> Result<UsrsctpServer, String> {
    let udp = free_udp_port()?;
    let mut peer = Peer::start(prog, udp)?;
    let pid = peer.child.id().to_string();
    let rss0 = rss_of(&pid);
    let drops0 = udp_receive_drops();
    let mut drops = None;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Phase>();
    let clients = spawn_clients(cfg, udp, tx).map_err(|e| e.to_string())?;
    let mut rss_per = None;
    let mut idle = None;
    let mut report = None;
    let mut held = None;
    while let Some(p) = rx.blocking_recv() {
        match p {
            Phase::SetUp(n) => {
                drops = udp_receive_drops()
                    .zip(drops0)
                    .map(|(b, a)| b.saturating_sub(a));
                std::thread::sleep(Duration::from_millis(200));
                if let (Some(a), Some(b)) = (rss0, rss_of(&pid)) {
                    rss_per = Some((b - a) / n.max(1) as f64);
                }
                held = Some(peer.count()?);
                idle = Some((Instant::now(), cpu_of(&pid)));
            }
            Phase::Done(r) => {
                report = Some(r);
                break;
            }
        }
    }
    let cpu = match idle {
        Some((t0, Some(c0))) => {
            cpu_of(&pid).map(|c1| (c1 - c0) / t0.elapsed().as_secs_f64().max(1e-9))
        }
        _ => None,
    };
    let (accepted, held) = match held {
        Some(h) => h,
        None => peer.count()?,
    };
    clients.join().map_err(|e| e.to_string())?;
    peer.stop();
    let report = report.ok_or("the clients stopped")?;
    Ok(UsrsctpServer {
        handshakes_per_s: report.established as f64 / report.setup_secs.max(1e-9),
        clients: report,
        accepted,
        held,
        rss_per_association: rss_per,
        idle_cpu_per_s: cpu,
        setup_udp_drops: drops,
    })
}
