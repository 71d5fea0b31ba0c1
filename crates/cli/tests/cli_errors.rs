//! What a new user meets on the command line when something is wrong
//! (issue 19): a clear message naming the problem, at once, and a
//! non-zero exit, never a run that does nothing. Network cases use
//! loopback only, on ports the kernel picks.

mod common;

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn msctp(dir: &Path, args: &[&str]) -> (Output, Duration) {
    let start = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_msctp"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (o, start.elapsed())
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Fails with exit code 2 and a message containing every one of `want`.
fn assert_refused(o: &Output, want: &[&str]) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    for w in want {
        assert!(e.contains(w), "{w:?} missing from: {e}");
    }
}

#[test]
fn run_of_an_empty_scenario_says_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.toml"), "").unwrap();
    std::fs::write(dir.path().join("named.toml"), "name = \"only a name\"\n").unwrap();
    for f in ["empty.toml", "named.toml"] {
        let (o, _) = msctp(dir.path(), &["run", f]);
        assert_refused(
            &o,
            &[f, "no [[nodes]] and [[flows]]", "nothing to simulate"],
        );
    }
}

#[test]
fn perf_refuses_a_message_the_engine_would_refuse() {
    let dir = tempfile::tempdir().unwrap();
    for len in ["4000000000", "0"] {
        let (o, took) = msctp(
            dir.path(),
            &["perf", "--to", "127.0.0.1", "--len", len, "-t", "1"],
        );
        assert_refused(&o, &[&format!("--len {len}"), "1 to 1048576 bytes"]);
        assert!(took < Duration::from_secs(5), "{took:?}");
    }
}

#[test]
fn recv_checks_its_directory_before_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a-file"), "x").unwrap();
    let net = ["--bind", "127.0.0.1", "--udp-port", "0"];
    let (o, _) = msctp(
        dir.path(),
        &[&["recv", "-d", "/nonexistent/x"][..], &net].concat(),
    );
    assert_refused(&o, &["-d /nonexistent/x", "no such directory"]);
    let (o, _) = msctp(dir.path(), &[&["recv", "-d", "a-file"][..], &net].concat());
    assert_refused(&o, &["-d a-file", "not a directory"]);
}

/// `msctp send f` to 127.0.0.1 from 127.0.0.1 (kernel-chosen UDP port),
/// with `extra` options.
fn send(dir: &Path, extra: &[&str]) -> (Output, Duration) {
    std::fs::write(dir.join("f"), "x").unwrap();
    let base = ["send", "f", "--to", "127.0.0.1", "--bind", "127.0.0.1"];
    msctp(dir, &[&base[..], &["--udp-port", "0"], extra].concat())
}

#[test]
fn send_names_an_unknown_interface() {
    let dir = tempfile::tempdir().unwrap();
    let (o, _) = send(dir.path(), &["--iface", "nosuch0"]);
    assert_refused(&o, &["nosuch0"]);
}

/// A listener on loopback (kernel-chosen UDP port), killed on drop.
struct Listener {
    child: Child,
    udp_port: u16,
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn listener(port: &str) -> Listener {
    let mut child = Command::new(env!("CARGO_BIN_EXE_msctp"))
        .args([
            "listen",
            "--bind",
            "127.0.0.1",
            "--udp-port",
            "0",
            "--port",
            port,
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let udp_port = common::announced_udp_port(&mut child);
    Listener { child, udp_port }
}

#[test]
fn send_to_a_port_nobody_serves_says_what_it_tries_then_fails() {
    let dir = tempfile::tempdir().unwrap();
    let l = listener("6101");
    let udp = l.udp_port.to_string();
    let send = |peer_port: &str, remote_udp: &str| {
        let to = ["--peer-port", peer_port, "--remote-udp-port", remote_udp];
        send(dir.path(), &[&to[..], &["--connect-timeout", "1"]].concat())
    };
    // An SCTP port the listening stack does not serve: refused at once
    // (the stack answers the INIT with an ABORT, RFC 9260 section 8.4).
    let (o, took) = send("6102", &udp);
    assert_refused(
        &o,
        &[
            "connecting to 127.0.0.1 SCTP port 6102",
            "refused the association",
        ],
    );
    assert!(took < Duration::from_millis(900), "{took:?}");
    // A UDP port nobody listens on (the listener's, once it is gone): no
    // answer, declared unreachable after --connect-timeout.
    drop(l);
    let (o, took) = send("6101", &udp);
    assert_refused(
        &o,
        &[
            "connecting to 127.0.0.1 SCTP port 6101",
            "no answer from 127.0.0.1",
        ],
    );
    assert!(took >= Duration::from_secs(1), "{took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[test]
fn bench_sim_refuses_a_bad_stations_axis_and_skips_an_empty_one() {
    let dir = tempfile::tempdir().unwrap();
    let (o, _) = msctp(dir.path(), &["bench", "sim", "--stations", "10,x"]);
    assert_refused(&o, &["\"x\" is not a number of stations"]);
    let (o, _) = msctp(dir.path(), &["bench", "sim", "--stations", "0"]);
    assert_refused(&o, &["--stations: 0 is not in [1,"]);
    let (o, _) = msctp(dir.path(), &["bench", "sim", "--runs", "0"]);
    assert_refused(&o, &["--runs must lie in [1, 100]"]);
    let (o, _) = msctp(dir.path(), &["bench", "sim", "--duration", "0.5"]);
    assert_refused(&o, &["--duration must lie in [1, 1e6] seconds", "got 0.5"]);
    let (o, _) = msctp(
        dir.path(),
        &["bench", "sim", "--stations", "", "--duration", "1"],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("events per CPU-second"), "{out}");
    assert!(!out.contains("stations sharing"), "{out}");
    assert!(!out.contains("E7a"), "not measured unless asked: {out}");
    let (o, _) = msctp(dir.path(), &["bench", "sim", "--e7a-duration=-1"]);
    assert_refused(&o, &["--e7a-duration must lie in [0, 1e5] seconds"]);
}

#[test]
fn bench_sim_measures_e7a_s_own_scenario_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "bench",
        "sim",
        "--duration",
        "1",
        "--stations",
        "",
        "--estimator-pairs",
        "0",
        "--queue-pairs",
        "0",
        // Stations arrive 30 s apart on average: the first within 60 s.
        "--e7a-duration",
        "60",
        "--json",
    ];
    let (o, _) = msctp(dir.path(), &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let e = &v["e7a"];
    assert_eq!(e["simulated_s"], 60.0, "{v}");
    assert!(e["events"].as_u64().unwrap() > 0, "{v}");
    assert!(e["bytes_delivered"].as_u64().unwrap() > 0, "{v}");
}

#[test]
fn a_reader_that_stops_early_ends_msctp_quietly_not_with_a_panic() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    // `msctp bench sim --json | head -c 0`: the reader is gone before
    // anything is written.
    let mut child = Command::new(env!("CARGO_BIN_EXE_msctp"))
        .args([
            "bench",
            "sim",
            "--duration",
            "2",
            "--stations",
            "",
            "--estimator-pairs",
            "0",
            "--json",
        ])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let e = stderr(&o);
    assert!(!e.contains("panicked"), "{e}");
    assert_eq!(
        o.status.signal(),
        Some(libc::SIGPIPE),
        "{:?}: {e}",
        o.status
    );
}

/// `msctp ARGS` in `dir` with `env`, killed if it runs past `limit` and
/// confined to 4 GiB of address space (so that a reader without bounds
/// fails rather than takes the machine's memory).
fn msctp_bounded(dir: &Path, args: &[&str], env: &[(&str, &str)], limit: Duration) -> Output {
    use std::os::unix::process::CommandExt;
    let mut c = Command::new(env!("CARGO_BIN_EXE_msctp"));
    c.args(args)
        .envs(env.iter().copied())
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: only setrlimit, async-signal-safe, between fork and exec.
    unsafe {
        c.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: 4 << 30,
                rlim_max: 4 << 30,
            };
            libc::setrlimit(libc::RLIMIT_AS, &lim);
            Ok(())
        });
    }
    let mut child = c.spawn().unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("msctp {args:?} still runs after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

/// Issue 31, finding 11: every file the command line reads (scenario,
/// experiment and the scenario it names, conformance script) is a
/// regular file read up to a limit (`MSCTP_MAX_FILE_SIZE`, 16 MiB by
/// default); `/dev/zero` was read until memory ran out and a FIFO
/// blocked forever.
#[test]
fn input_files_must_be_regular_and_within_the_size_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fifo = d.join("pipe.toml");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    std::fs::create_dir(d.join("exps")).unwrap();
    std::fs::write(
        d.join("exps/e.toml"),
        "id = \"E\"\ntitle = \"t\"\nrepetitions = 1\nscenario = \"../pipe.toml\"\n\
         [[metrics]]\nname = \"y\"\n",
    )
    .unwrap();
    let limit = Duration::from_secs(10);
    let refused = |args: &[&str], want: &[&str]| {
        let o = msctp_bounded(d, args, &[], limit);
        assert_refused(&o, want);
    };
    refused(&["run", "/dev/zero"], &["/dev/zero", "a character device"]);
    refused(&["run", "pipe.toml"], &["pipe.toml", "a FIFO"]);
    refused(&["run", "."], &["a directory"]);
    refused(&["sweep", "/dev/zero", "--param", "a=1"], &["/dev/zero"]);
    refused(
        &["reproduce", "--experiments", "exps", "--no-docs"],
        &["pipe.toml", "a FIFO"],
    );
    let o = msctp_bounded(d, &["conformance", "pipe.toml"], &[], limit);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout_has(&o, "pipe.toml: a FIFO"), "{}", stderr(&o));
    // The limit: a scenario of 1 001 bytes, one over it, then at it.
    std::fs::write(d.join("big.toml"), format!("# {}\n", "x".repeat(998))).unwrap();
    let env = [("MSCTP_MAX_FILE_SIZE", "1000")];
    let o = msctp_bounded(d, &["run", "big.toml"], &env, limit);
    assert_refused(
        &o,
        &["big.toml", "larger than 1000 bytes", "MSCTP_MAX_FILE_SIZE"],
    );
    let env = [("MSCTP_MAX_FILE_SIZE", "1001")];
    let o = msctp_bounded(d, &["run", "big.toml"], &env, limit);
    assert_refused(&o, &["big.toml", "nothing to simulate"]);
}

fn stdout_has(o: &Output, s: &str) -> bool {
    String::from_utf8_lossy(&o.stdout).contains(s)
}

/// Issue 31, finding 11: a population of stations larger than its cell's
/// prefix is refused before it is built, naming its count (65 526
/// stations in a /16 from host id 10 failed after 1.1 s and 315 MB).
#[test]
fn run_refuses_more_stations_than_the_cell_prefix_holds_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = "duration_s = 1.0\n\
        [[nodes]]\nname = \"cn\"\n\
        [[nodes]]\nname = \"ap\"\nkind = \"router\"\n\
        [[links]]\nname = \"l\"\na = \"cn\"\na_addr = \"10.0.0.1/24\"\nb = \"ap\"\n\
        b_addr = \"10.0.0.2/24\"\n\
        [[cells]]\nname = \"wlan\"\nrouter = \"ap\"\nap_addr = \"10.1.0.254/16\"\n\
        [[stations]]\nname = \"sta\"\ncount = 65526\nfirst_host_id = 10\n\
        ifaces = [{ name = \"w\", cells = [\"wlan\"] }]\nfixed = \"cn\"\n";
    std::fs::write(dir.path().join("s.toml"), scenario).unwrap();
    let (o, took) = msctp(dir.path(), &["run", "s.toml"]);
    assert_refused(&o, &["stations[0].count = 65526", "at most 65525 stations"]);
    assert!(took < Duration::from_millis(800), "{took:?}");
}

#[test]
fn tunnel_refuses_a_missing_or_short_key_and_bad_networks() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("short.key"), "abc\n").unwrap();
    std::fs::write(dir.path().join("good.key"), "0123456789abcdef0123\n").unwrap();
    let (o, _) = msctp(
        dir.path(),
        &["tunnel", "--server", "--key-file", "none.key"],
    );
    assert_refused(&o, &["cannot read the key file", "none.key"]);
    let (o, _) = msctp(
        dir.path(),
        &["tunnel", "--server", "--key-file", "short.key"],
    );
    assert_refused(&o, &["the tunnel key has 3 bytes", "at least 16"]);
    let args = [
        "tunnel",
        "--server",
        "--key-file",
        "good.key",
        "--allow",
        "10.0.0.0/33",
    ];
    let (o, _) = msctp(dir.path(), &args);
    assert_refused(&o, &["--allow \"10.0.0.0/33\"", "expected a network"]);
    let (o, _) = msctp(dir.path(), &["tunnel", "--key-file", "good.key"]);
    assert_refused(&o, &["--to ADDR"]);
    let args = [
        "tunnel",
        "--server",
        "--key-file",
        "good.key",
        "--stream-window",
        "10",
    ];
    let (o, _) = msctp(dir.path(), &args);
    assert_refused(&o, &["stream_window"]);
    // The old flag of the default mode and the new one of the other mode.
    let args = [
        "tunnel",
        "--server",
        "--key-file",
        "good.key",
        "--data-auth",
        "--no-data-auth",
    ];
    let (o, _) = msctp(dir.path(), &args);
    assert_refused(&o, &["--data-auth", "cannot be used with"]);
}
