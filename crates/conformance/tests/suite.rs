//! The conformance suite: every ETSI TS 102 369 script (vendored under
//! tests/conformance/etsi at the repository root), the annotated
//! multi-homing copies, and our ADD-IP and AUTH scripts, run against the
//! engine. The ETSI scripts that do not pass are exactly the ones listed
//! (with their reasons) in tests/conformance/README.md; any change, for
//! better or worse, fails this test until the list is updated.

use std::path::PathBuf;

use msctp_conformance::{Outcome, RunConfig, ScriptReport, run_paths};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance")
}

fn run(dir: &str, platform: &str) -> Vec<ScriptReport> {
    let cfg = RunConfig {
        platform: platform.into(),
        ..RunConfig::default()
    };
    let reports = run_paths(&[root().join(dir)], &cfg).expect("scripts readable");
    assert!(!reports.is_empty(), "no scripts under {dir}");
    reports
}

fn name(r: &ScriptReport) -> String {
    r.path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn describe(r: &ScriptReport) -> String {
    match &r.outcome {
        Outcome::Pass(_) => format!("{}: pass", name(r)),
        Outcome::Fail(f) => format!("{}: {f}", name(r)),
        Outcome::Error(e) => format!("{}: {e}", name(r)),
    }
}

/// Runs a folder and checks that exactly `expected_failures` fail.
fn check(dir: &str, platform: &str, expected_failures: &[&str]) -> usize {
    let reports = run(dir, platform);
    let failed: Vec<String> = reports
        .iter()
        .filter(|r| !r.outcome.passed())
        .map(name)
        .collect();
    let unexpected: Vec<String> = reports
        .iter()
        .filter(|r| !r.outcome.passed() && !expected_failures.contains(&name(r).as_str()))
        .map(describe)
        .collect();
    let now_passing: Vec<&&str> = expected_failures
        .iter()
        .filter(|e| !failed.iter().any(|f| f == *e))
        .collect();
    assert!(
        unexpected.is_empty() && now_passing.is_empty(),
        "{dir} ({platform}): unexpected failures:\n{}\nlisted as failing but passing: {now_passing:?}",
        unexpected.join("\n")
    );
    reports.len() - failed.len()
}

/// The scripts of the FreeBSD branch that do not pass (see the README).
const ETSI_FREEBSD_FAILURES: &[&str] = &[
    // FreeBSD sends an ABORT after the last COOKIE ECHO retransmission.
    "sctp-as-i-1-3-2",
    // FreeBSD puts the State Cookie last in the INIT ACK.
    "sctp-as-i-1-8-1",
    "sctp-as-i-1-8-2",
    "sctp-as-i-1-8-3",
    // Needs a second peer address: see multihoming/sctp-rt-i-11-3.pkt.
    "sctp-rt-i-11-3",
];

/// The scripts of the Linux branch that do not pass (see the README).
const ETSI_LINUX_FAILURES: &[&str] = &[
    // Linux delays the SACK after a gap is filled.
    "sctp-a-o-9-3",
    // Linux bundles a SACK with the SHUTDOWN.
    "sctp-at-i-2-8",
    // Linux answers bundled INIT ACK / SHUTDOWN COMPLETE with an ABORT.
    "sctp-bdc-i-7-2",
    "sctp-bdc-i-7-3",
    // Linux answers a malformed INIT ACK with an ABORT.
    "sctp-imh-i-3-2",
    "sctp-rt-i-11-3",
];

#[test]
fn etsi_scripts_freebsd_branch() {
    let passed = check("etsi", "FreeBSD", ETSI_FREEBSD_FAILURES);
    assert_eq!(passed, 87);
}

#[test]
fn etsi_scripts_linux_branch() {
    let passed = check("etsi", "Linux", ETSI_LINUX_FAILURES);
    assert_eq!(passed, 86);
}

#[test]
fn multihoming_annotated_copies_pass() {
    check("multihoming", "FreeBSD", &[]);
}

/// Every ADD-IP case of tests/conformance/README.md ("ASCONF received",
/// "ASCONF-ACK received", timers).
#[test]
fn addip_scripts_pass() {
    let passed = check("addip", "FreeBSD", &[]);
    assert_eq!(passed, 29);
}

/// Every AUTH case of tests/conformance/README.md.
#[test]
fn auth_scripts_pass() {
    let passed = check("auth", "FreeBSD", &[]);
    assert_eq!(passed, 12);
}

/// Every PR-SCTP (RFC 3758, RFC 7496) and SACK-IMMEDIATELY (RFC 7053)
/// case of tests/conformance/README.md.
#[test]
fn prsctp_scripts_pass() {
    let passed = check("prsctp", "FreeBSD", &[]);
    assert_eq!(passed, 9);
}

/// PLPMTUD (RFC 8899 section 6.2): a peer's PAD + HEARTBEAT probe is
/// answered.
#[test]
fn pmtud_scripts_pass() {
    let passed = check("pmtud", "FreeBSD", &[]);
    assert_eq!(passed, 1);
}

/// Stream reconfiguration (RFC 6525): the peer's requests and their
/// result codes.
#[test]
fn reconfig_scripts_pass() {
    let passed = check("reconfig", "FreeBSD", &[]);
    assert_eq!(passed, 1);
}

/// The public nplab/packetdrill scripts that do not pass (see the README).
const NPLAB_FAILURES: &[&str] = &[
    // The engine answers an out-of-date FORWARD TSN with a SACK (RFC 3758
    // section 3.6: SHOULD); the script expects none.
    "sctp_forward_tsn",
    // FreeBSD puts the State Cookie last in the INIT ACK, the engine first
    // (as for sctp-as-i-1-8-1).
    "sctp_forward-tsn-supported-parameter",
];

/// The public PR-SCTP, `sctp_sendv`, `sctp_recvv`, `sctp_connectx` and
/// SCTP_FRAGMENT_INTERLEAVE scripts of nplab/packetdrill
/// (tests/conformance/nplab, see its ORIGIN.md).
#[test]
fn nplab_prsctp_scripts() {
    let passed = check("nplab", "FreeBSD", NPLAB_FAILURES);
    assert_eq!(passed, 9);
}

/// I-DATA (RFC 8260): negotiation, a fragmented message interleaved with
/// another stream's, I-FORWARD-TSN both ways, DATA after negotiation.
#[test]
fn idata_scripts_pass() {
    let passed = check("idata", "FreeBSD", &[]);
    assert_eq!(passed, 4);
}

/// The RFC 6458 calls `sctp_connectx` and `sctp_bindx` (ADD-IP ASCONF on
/// the wire), and the stream reconfiguration socket options.
#[test]
fn socketapi_scripts_pass() {
    let passed = check("socketapi", "FreeBSD", &[]);
    assert_eq!(passed, 2);
}
/// The public sctplab/sctp-idata scripts that do not pass, by reason
/// (tests/conformance/sctp-idata/ORIGIN.md).
const SCTP_IDATA_FAILURES: &[&str] = &[
    // FreeBSD aborts on inconsistent fragments / DATA before COOKIE ECHO; the engine does not.
    "sctp-idata-03",
    "sctp-idata-05",
    "sctp-idata-06",
    "sctp-idata-07",
    "sctp-idata-09",
    "sctp-idata-10",
    "sctp-idata-11",
    "sctp-idata-12",
    "sctp-idata-13",
    "sctp-idata-14",
    "sctp-idata-18",
    "sctp-idata-20",
    "sctp-idata-21",
    "sctp-idata-28",
    "sctp-idata-29",
    "sctp-idata-30",
    // sctp_recvmsg with sctp_sndrcvinfo: not in the interpreter.
    "sctp-idata-117",
    "sctp-idata-118",
    "sctp-idata-119",
    "sctp-idata-120",
    "sctp-idata-121",
    "sctp-idata-122",
    "sctp-idata-123",
    "sctp-idata-124",
    "sctp-idata-125",
    "sctp-idata-126",
    "sctp-idata-127",
    "sctp-idata-128",
    "sctp-idata-129",
    "sctp-idata-130",
    "sctp-idata-137",
    "sctp-idata-138",
    // sendmsg with msg_name / control messages: not parsed.
    "sctp-idata-103",
    "sctp-idata-104",
    "sctp-idata-105",
    "sctp-idata-106",
    "sctp-idata-107",
    "sctp-idata-108",
    "sctp-idata-109",
    "sctp-idata-110",
    "sctp-idata-111",
    "sctp-idata-112",
    "sctp-idata-113",
    "sctp-idata-114",
    // SO_RCVBUF / SO_SNDBUF: no socket buffer sizes.
    "sctp-idata-43",
    "sctp-idata-139",
    "sctp-idata-140",
    "sctp-idata-141",
    "sctp-idata-142",
    "sctp-idata-143",
    "sctp-idata-144",
    // SCTP_EXPLICIT_EOR: the engine takes whole messages.
    "sctp-idata-145",
    "sctp-idata-146",
    "sctp-idata-147",
    "sctp-idata-148",
    // SCTP_NODELAY: nothing to switch off.
    "sctp-idata-102",
    // FreeBSD puts the State Cookie last in the INIT ACK.
    "sctp-idata-131",
    "sctp-idata-132",
    "sctp-idata-133",
    "sctp-idata-134",
    "sctp-idata-135",
    "sctp-idata-136",
    // --mtu: no per-script MTU.
    "sctp-idata-92",
    "sctp-idata-93",
];

/// The public I-DATA scripts of sctplab/sctp-idata, unchanged.
#[test]
fn sctp_idata_scripts() {
    let passed = check("sctp-idata", "FreeBSD", SCTP_IDATA_FAILURES);
    assert_eq!(passed, 84);
}
