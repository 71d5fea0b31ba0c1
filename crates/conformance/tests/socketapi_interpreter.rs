//! The interpreter's checks of the I-DATA chunks and the RFC 6458 calls
//! added for them: a wrong I-DATA field fails the script at its line, an
//! address `sctp_connectx` cannot reach, a call the interpreter does not
//! know and a reconfiguration asked both ways at once are unsupported
//! failures naming them, never a pass.

mod common;

use common::{failure, line_of, run};
use msctp_conformance::{FailureKind, Outcome};

/// Active association with I-DATA; the engine's 2000-byte message leaves
/// as two I-DATA fragments of MID 0.
const BASE: &str = "\
--tolerance_usecs=10000
 0.0 socket(..., SOCK_STREAM, IPPROTO_SCTP) = 3
+0.0 fcntl(3, F_SETFL, O_RDWR|O_NONBLOCK) = 0
+0.0 setsockopt(3, IPPROTO_SCTP, SCTP_FRAGMENT_INTERLEAVE, [2], 4) = 0
+0.0 setsockopt(3, IPPROTO_SCTP, SCTP_INTERLEAVING_SUPPORTED, {assoc_value=1}, 8) = 0
+0.0 connect(3, ..., ...) = -1 EINPROGRESS (Operation now in progress)
+0.0 > sctp: INIT[flgs=0, tag=1, a_rwnd=..., os=..., is=..., tsn=1, ...]
+0.1 < sctp: INIT_ACK[flgs=0, tag=2, a_rwnd=100000, os=1, is=1, tsn=1, STATE_COOKIE[len=4, val=...], SUPPORTED_EXTENSIONS[types=[I_DATA]]]
+0.0 > sctp: COOKIE_ECHO[flgs=0, len=4, val=...]
+0.1 < sctp: COOKIE_ACK[flgs=0]
+0.0 write(3, ..., 2000) = 2000
+0.0 > sctp: I_DATA[flgs=B, len=1468, tsn=1, sid=0, mid=0, ppid=0]
+0.0 > sctp: I_DATA[flgs=E, len=572, tsn=2, sid=0, mid=0, fsn=1]
+0.0 < sctp: SACK[flgs=0, cum_tsn=2, a_rwnd=100000, gaps=[], dups=[]]
";

#[test]
fn the_base_script_passes() {
    assert!(run(BASE).passed(), "{:?}", run(BASE));
}

#[test]
fn a_wrong_i_data_field_fails_at_its_line() {
    let text = BASE.replace("mid=0, fsn=1]", "mid=0, fsn=2]");
    let f = failure(&text);
    assert_eq!(f.kind, FailureKind::WrongPacket);
    assert_eq!(f.line, line_of(&text, "fsn=2"));
    assert!(
        f.message.contains("I_DATA fsn: expected 2, actual 1"),
        "{}",
        f.message
    );
    let text = BASE.replace(
        "tsn=1, sid=0, mid=0, ppid=0]",
        "tsn=1, sid=0, mid=0, ppid=7]",
    );
    assert!(failure(&text).message.contains("I_DATA ppid"));
}

#[test]
fn without_interleaving_the_engine_sends_data() {
    let text = BASE.replace(
        "+0.0 setsockopt(3, IPPROTO_SCTP, SCTP_INTERLEAVING_SUPPORTED, {assoc_value=1}, 8) = 0\n",
        "",
    );
    let f = failure(&text);
    assert_eq!(f.line, line_of(&text, "> sctp: I_DATA[flgs=B"));
    assert!(f.message.contains("DATA"), "{}", f.message);
}

#[test]
fn ppid_and_fsn_together_are_a_parse_error() {
    let text = BASE.replace("mid=0, fsn=1]", "mid=0, ppid=0, fsn=1]");
    match run(&text) {
        Outcome::Error(e) => assert!(e.contains("ppid and fsn"), "{e}"),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn connectx_to_an_address_the_script_does_not_own_is_unsupported() {
    let text = " 0.0 socket(..., SOCK_STREAM, IPPROTO_SCTP) = 3
+0.0 fcntl(3, F_SETFL, O_RDWR|O_NONBLOCK) = 0
+0.0 sctp_connectx(3, [192.0.2.1, 198.51.100.7], 2, ...) = -1 EINPROGRESS
";
    let f = failure(text);
    assert_eq!(f.kind, FailureKind::Unsupported);
    assert_eq!(f.line, 3);
    assert!(f.message.contains("198.51.100.7"), "{}", f.message);
}

#[test]
fn an_unknown_call_names_itself_and_its_line() {
    let text = " 0.0 socket(..., SOCK_STREAM, IPPROTO_SCTP) = 3
+0.0 sctp_peeloff(3, 1) = 4
";
    let f = failure(text);
    assert_eq!(f.kind, FailureKind::Unsupported);
    assert_eq!(f.line, 2);
    assert!(f.message.contains("sctp_peeloff"), "{}", f.message);
}

#[test]
fn reconfiguration_both_ways_at_once_is_unsupported() {
    let head = BASE
        .replace(
            "+0.0 setsockopt(3, IPPROTO_SCTP, SCTP_FRAGMENT_INTERLEAVE, [2], 4) = 0\n\
             +0.0 setsockopt(3, IPPROTO_SCTP, SCTP_INTERLEAVING_SUPPORTED, {assoc_value=1}, 8) = 0\n",
            "+0.0 setsockopt(3, IPPROTO_SCTP, SCTP_ENABLE_STREAM_RESET, {assoc_value=1}, 8) = 0\n",
        )
        .replace("types=[I_DATA]", "types=[RECONFIG]");
    let head = &head[..head.find("+0.0 write").unwrap()];
    let call = "+0.0 setsockopt(3, IPPROTO_SCTP, SCTP_ADD_STREAMS, {sas_instrms=1, sas_outstrms=1}, 8) = 0\n";
    let f = failure(&format!("{head}{call}"));
    assert_eq!(f.kind, FailureKind::Unsupported);
    assert!(f.message.contains("SCTP_ADD_STREAMS"), "{}", f.message);
}
