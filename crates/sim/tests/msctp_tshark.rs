//! tshark reads a simulator capture of an mSCTP handover: every packet is
//! valid SCTP with a correct CRC32c, and the ASCONF / ASCONF-ACK chunks of
//! the handover are decoded. Skipped (with a message) when tshark is not
//! installed (`scripts/install-deps.sh` installs it).

use std::process::Command;

use msctp_sim::scenario::{self, REFERENCE};

fn tshark(args: &[&str]) -> Option<String> {
    let out = Command::new("tshark").args(args).output().ok()?;
    if !out.status.success() {
        panic!("tshark failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn tshark_decodes_the_handover_capture() {
    if Command::new("tshark").arg("--version").output().is_err() {
        // `.ci/run` installs it: there, its absence is a failure.
        msctp_testkit::skip(&msctp_testkit::require("tshark is not installed".into()));
        return;
    }
    let mut s = scenario::parse(REFERENCE).unwrap();
    s.duration_s = 18.0;
    let r = scenario::run_scenario(&s, 3).unwrap();
    let dir = std::env::temp_dir().join(format!("msctp-sim-tshark-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut asconf, mut asconf_ack) = (0, 0);
    let (mut add_ip, mut set_primary, mut delete_ip) = (0, 0, 0);
    for (name, bytes) in &r.pcaps {
        let file = dir.join(format!("{}.pcap", name.replace(':', "_")));
        std::fs::write(&file, bytes).unwrap();
        let f = file.to_str().unwrap();
        let bad = tshark(&[
            "-r",
            f,
            "-o",
            "sctp.checksum:CRC-32C",
            "-Y",
            "!sctp || sctp.checksum.status==0 || _ws.malformed || _ws.expert.severity>=\"warning\"",
        ])
        .unwrap();
        assert!(bad.trim().is_empty(), "{name}: problems:\n{bad}");
        // One line per packet: checksum status, chunk types, parameter types.
        let fields = tshark(&[
            "-r",
            f,
            "-o",
            "sctp.checksum:CRC-32C",
            "-T",
            "fields",
            "-E",
            "separator=;",
            "-e",
            "sctp.checksum.status",
            "-e",
            "sctp.chunk_type",
            "-e",
            "sctp.parameter_type",
        ])
        .unwrap();
        let lines: Vec<&str> = fields.lines().collect();
        assert!(lines.len() > 100, "{name}: only {} packets", lines.len());
        for l in &lines {
            let cols: Vec<&str> = l.split(';').collect();
            assert_eq!(cols[0], "1", "{name}: checksum not verified good: {l}");
            let chunks: Vec<&str> = cols[1].split(',').collect();
            let params: Vec<&str> = cols.get(2).map_or(vec![], |p| p.split(',').collect());
            asconf += chunks.iter().filter(|c| **c == "193").count();
            asconf_ack += chunks.iter().filter(|c| **c == "128").count();
            add_ip += params.iter().filter(|p| **p == "0xc001").count();
            delete_ip += params.iter().filter(|p| **p == "0xc002").count();
            set_primary += params.iter().filter(|p| **p == "0xc004").count();
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    // Add IP + Set Primary (one ASCONF), Delete IP (another), both
    // acknowledged; retransmissions may add copies.
    assert!(
        asconf >= 2 && asconf_ack >= 2,
        "{asconf} ASCONF, {asconf_ack} ASCONF-ACK"
    );
    assert!(add_ip >= 1 && set_primary >= 1 && delete_ip >= 1);
}
