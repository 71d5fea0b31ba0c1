//! The interpreter's own checks: a pass means something only if a wrong
//! field, a missing packet, an extra packet and a packet at the wrong time
//! each fail the script, at the right line.

mod common;

use common::{failure, line_of, run};
use msctp_conformance::{FailureKind, Outcome};

/// A passive association set up, one DATA received and acknowledged at
/// once, a second acknowledged by the delayed-SACK timer.
const BASE: &str = "\
--tolerance_usecs=10000
 0.0 socket(..., SOCK_STREAM, IPPROTO_SCTP) = 3
+0.0 bind(3, ..., ...) = 0
+0.0 listen(3, 1) = 0
+0.0 < sctp: INIT[flgs=0, tag=1, a_rwnd=1500, os=1, is=1, tsn=1]
+0.0 > sctp: INIT_ACK[flgs=0, tag=2, a_rwnd=..., os=..., is=..., tsn=1, ...]
+0.0 < sctp: COOKIE_ECHO[flgs=0, len=..., val=...]
+0.0 > sctp: COOKIE_ACK[flgs=0]
+0.0 accept(3, ..., ...) = 4
+0.0 < sctp: DATA[flgs=BE, len=116, tsn=1, sid=0, ssn=0, ppid=0]
+0.0 > sctp: SACK[flgs=0, cum_tsn=1, a_rwnd=..., gaps=[], dups=[]]
+0.0 read(4, ..., 200) = 100
+0.0 < sctp: DATA[flgs=BE, len=116, tsn=2, sid=0, ssn=1, ppid=0]
+0.2 > sctp: SACK[flgs=0, cum_tsn=2, a_rwnd=..., gaps=[], dups=[]]
";

#[test]
fn the_base_script_passes() {
    match run(BASE) {
        Outcome::Pass(s) => assert_eq!(s.events, 13),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_wrong_field_fails_at_its_line() {
    let text = BASE.replace("cum_tsn=2, a_rwnd", "cum_tsn=3, a_rwnd");
    let f = failure(&text);
    assert_eq!(f.kind, FailureKind::WrongPacket);
    assert_eq!(f.line, line_of(&text, "cum_tsn=3"));
    assert!(
        f.message.contains("SACK cum_tsn: expected 3, actual 2"),
        "{f}"
    );
    assert!(
        f.actual.as_deref().unwrap_or("").contains("cum_tsn=2"),
        "{f}"
    );

    let text = BASE.replace(
        "INIT_ACK[flgs=0, tag=2, a_rwnd=..., os=..., is=..., tsn=1, ...]",
        "INIT_ACK[flgs=0, tag=2, a_rwnd=..., os=7, is=..., tsn=1, ...]",
    );
    let f = failure(&text);
    assert_eq!(f.kind, FailureKind::WrongPacket);
    assert!(f.message.contains("INIT_ACK os"), "{f}");

    let text = BASE.replace("> sctp: COOKIE_ACK[flgs=0]", "> sctp: COOKIE_ACK[flgs=1]");
    assert!(failure(&text).message.contains("flags"));

    let text = BASE.replace(
        "> sctp: INIT_ACK[flgs=0, tag=2, a_rwnd=..., os=..., is=..., tsn=1, ...]",
        "> sctp: INIT_ACK[flgs=0, tag=2, a_rwnd=..., os=..., is=..., tsn=1]",
    );
    let f = failure(&text);
    assert!(f.message.contains("INIT_ACK length: expected 20"), "{f}");
}

#[test]
fn a_missing_packet_fails() {
    // The engine sends nothing after the read: no SACK for nothing.
    let text =
        format!("{BASE}+0.0 > sctp: SACK[flgs=0, cum_tsn=2, a_rwnd=..., gaps=[], dups=[]]\n");
    let f = failure(&text);
    assert_eq!(f.kind, FailureKind::MissingPacket);
    assert_eq!(f.line, 15);
}

#[test]
fn an_extra_packet_fails() {
    // The immediate SACK is not in the script: the next `>` line sees it.
    let text = BASE.replace(
        "+0.0 > sctp: SACK[flgs=0, cum_tsn=1, a_rwnd=..., gaps=[], dups=[]]\n",
        "",
    );
    let f = failure(&text);
    assert_eq!(f.kind, FailureKind::WrongPacket);
    assert!(f.message.contains("cum_tsn: expected 2, actual 1"), "{f}");

    // Without a later `>` line, the script's end notices it.
    let short: String = BASE
        .lines()
        .take(9)
        .chain([
            "+0.0 < sctp: DATA[flgs=BE, len=116, tsn=1, sid=0, ssn=0, ppid=0]",
            "+0.1 read(4, ..., 200) = 100",
        ])
        .map(|l| format!("{l}\n"))
        .collect();
    let f = failure(&short);
    assert_eq!(f.kind, FailureKind::UnexpectedPacket);
    assert_eq!(f.line, 10, "reported at the event it followed");
    assert!(f.actual.as_deref().unwrap_or("").contains("SACK"), "{f}");

    // A packet sent in answer to the last event is beyond the script.
    let last: String = BASE.lines().take(10).map(|l| format!("{l}\n")).collect();
    match run(&last) {
        Outcome::Pass(s) => {
            assert_eq!(s.trailing.len(), 1);
            assert!(s.trailing[0].contains("SACK"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_packet_at_the_wrong_time_fails() {
    // The immediate SACK expected 100 ms later.
    let text = BASE.replace(
        "+0.0 > sctp: SACK[flgs=0, cum_tsn=1",
        "+0.1 > sctp: SACK[flgs=0, cum_tsn=1",
    );
    let f = failure(&text);
    assert_eq!(f.kind, FailureKind::WrongTime);
    assert!(f.message.contains("sent at 0.000000 s"), "{f}");

    // The delayed SACK expected at once: nothing in the window; it comes
    // 200 ms later.
    let text = BASE.replace(
        "+0.2 > sctp: SACK[flgs=0, cum_tsn=2",
        "+0.0 > sctp: SACK[flgs=0, cum_tsn=2",
    );
    let f = failure(&text);
    assert_eq!(f.kind, FailureKind::WrongTime);
    assert!(f.message.contains("sent at 0.200000 s"), "{f}");
    assert_eq!(f.line, 14);

    // Within the tolerance is fine, beyond it is not.
    let ok = BASE.replace("+0.2 > sctp: SACK", "+0.195 > sctp: SACK");
    assert!(run(&ok).passed());
    let late = BASE.replace("+0.2 > sctp: SACK", "+0.189 > sctp: SACK");
    assert_eq!(failure(&late).kind, FailureKind::WrongTime);
}

#[test]
fn wrong_system_call_results_fail() {
    let text = BASE.replace("read(4, ..., 200) = 100", "read(4, ..., 200) = 99");
    let f = failure(&text);
    assert_eq!(f.kind, FailureKind::SyscallResult);
    assert_eq!(f.line, 12);
    let text = BASE.replace(
        "+0.0 accept(3, ..., ...) = 4",
        "+0.0 accept(3, ..., ...) = -1 EAGAIN",
    );
    assert_eq!(failure(&text).kind, FailureKind::SyscallResult);
}

#[test]
fn scripts_that_cannot_be_read_are_errors_not_passes() {
    assert!(matches!(run("0.0 socket(\n"), Outcome::Error(_)));
    assert!(matches!(run("0.0 > tcp: S 0:0(0)\n"), Outcome::Error(_)));
    let f = failure("0.0 frobnicate(3) = 0\n");
    assert_eq!(f.kind, FailureKind::Unsupported);
}

#[test]
fn inbound_packets_with_bad_checksum_or_tag_are_not_accepted() {
    // With a bad CRC32c the DATA is dropped: no SACK, nothing to read.
    let bad = BASE
        .lines()
        .take(9)
        .chain([
            "+0.0 fcntl(4, F_SETFL, O_RDWR | O_NONBLOCK) = 0",
            "+0.0 < sctp(bad_crc32c): DATA[flgs=BE, len=116, tsn=1, sid=0, ssn=0, ppid=0]",
            "+0.1 read(4, ..., 200) = -1 EAGAIN",
            "+0.0 < sctp(tag=7): DATA[flgs=BE, len=116, tsn=1, sid=0, ssn=0, ppid=0]",
            "+0.1 read(4, ..., 200) = -1 EAGAIN",
        ])
        .map(|l| format!("{l}\n"))
        .collect::<String>();
    assert!(run(&bad).passed(), "{:?}", run(&bad));
}
