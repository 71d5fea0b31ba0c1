//! The usrsctp peer (`crates/net/interop/usrsctp_peer.c`, built against
//! Debian's libusrsctp-dev) for the interoperability tests: what they
//! need installed, building it, and running it inside a namespace.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::{Netns, skip_reason};

/// Why a usrsctp test cannot run here, if it cannot: root, the `tools`
/// (the compiler and `pkg-config` are always needed) and the library.
/// Under `CI=true` a missing prerequisite fails (see [`skip_reason`]).
pub fn missing(tools: &[&str]) -> Option<String> {
    let mut all = vec!["gcc", "pkg-config"];
    all.extend_from_slice(tools);
    if let Some(r) = skip_reason(&all) {
        return Some(r);
    }
    let ok = Command::new("pkg-config")
        .args(["--exists", "usrsctp"])
        .status()
        .is_ok_and(|s| s.success());
    (!ok).then(|| msctp_testkit::require("libusrsctp-dev is not installed".into()))
}

/// A fresh scratch directory for one test (`tag` keeps two tests of one
/// binary apart).
pub fn work_dir(test: &str, tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("msctp-{test}-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Builds the usrsctp peer program into `dir`.
pub fn build_peer(dir: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("interop/usrsctp_peer.c");
    let out = dir.join("usrsctp_peer");
    let flags = Command::new("pkg-config")
        .args(["--cflags", "--libs", "usrsctp"])
        .output()
        .unwrap();
    let flags = String::from_utf8(flags.stdout).unwrap();
    let st = Command::new("gcc")
        .arg("-O2")
        .arg("-o")
        .arg(&out)
        .arg(&src)
        .args(flags.split_whitespace())
        .arg("-lpthread")
        .status()
        .unwrap();
    assert!(st.success(), "gcc failed");
    out
}

/// The peer run with `args` inside `ns` without CAP_NET_RAW (so usrsctp
/// uses its UDP encapsulation, not a raw socket); its stderr to `log`.
pub fn spawn_in(ns: &Netns, args: &[String], log: &Path) -> Child {
    Command::new("ip")
        .args(["netns", "exec", &ns.name, "capsh", "--drop=cap_net_raw"])
        .args(["--", "-c"])
        .arg(format!("exec {}", args.join(" ")))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap()
}

/// The peer as a server inside `ns`: SCTP port 5001 over UDP port
/// `udp_port`, writing what it receives to `out`; given half a second to
/// bind before the caller connects.
pub fn spawn_server(ns: &Netns, peer: &Path, udp_port: u16, out: &Path, log: &Path) -> Child {
    let args = [
        peer.display().to_string(),
        "server".into(),
        udp_port.to_string(),
        "5001".into(),
        out.display().to_string(),
    ];
    let child = spawn_in(ns, &args, log);
    std::thread::sleep(std::time::Duration::from_millis(500));
    child
}

/// The chunk types of the SCTP packet in a UDP payload (empty if it is
/// no valid packet).
pub fn chunk_types(sctp: &[u8]) -> Vec<u8> {
    msctp_proto::wire::Packet::new_checked(sctp)
        .map(|p| {
            p.chunks()
                .map_while(|c| c.ok())
                .map(|(_, v)| v.chunk_type())
                .collect()
        })
        .unwrap_or_default()
}
