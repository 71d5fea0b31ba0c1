//! The interpreter's PR-SCTP checks: a FORWARD TSN with a wrong field
//! fails the script at its line, and what the engine cannot do through
//! `sctp_sendv` / `sctp_recvv` is an unsupported failure naming it, never
//! a pass.

mod common;

use common::{failure, line_of, run};
use msctp_conformance::FailureKind;

/// Active association with PR-SCTP; a 500 ms message is lost, abandoned
/// at the T3-rtx expiry and skipped with FORWARD TSN.
const BASE: &str = "\
--tolerance_usecs=10000
--pr_sctp=on
 0.0 socket(..., SOCK_STREAM, IPPROTO_SCTP) = 3
+0.0 fcntl(3, F_SETFL, O_RDWR|O_NONBLOCK) = 0
+0.0 connect(3, ..., ...) = -1 EINPROGRESS (Operation now in progress)
+0.0 > sctp: INIT[flgs=0, tag=1, a_rwnd=..., os=..., is=..., tsn=1, ...]
+0.1 < sctp: INIT_ACK[flgs=0, tag=2, a_rwnd=100000, os=1, is=1, tsn=1, STATE_COOKIE[len=4, val=...], FORWARD_TSN_SUPPORTED[]]
+0.0 > sctp: COOKIE_ECHO[flgs=0, len=4, val=...]
+0.1 < sctp: COOKIE_ACK[flgs=0]
+0.0 sctp_sendv(3, [{iov_base=..., iov_len=100}], 1, NULL, 0, {pr_policy=SCTP_PR_SCTP_TTL, pr_value=500}, 8, SCTP_SENDV_PRINFO, 0) = 100
+0.0 > sctp: DATA[flgs=BE, len=116, tsn=1, sid=0, ssn=0, ppid=0]
+1.0 > sctp: FORWARD_TSN[cum_tsn=1, ids=[{0,0}]]
+0.0 < sctp: SACK[flgs=0, cum_tsn=1, a_rwnd=100000, gaps=[], dups=[]]
";

#[test]
fn the_base_script_passes() {
    assert!(run(BASE).passed(), "{:?}", run(BASE));
}

#[test]
fn a_wrong_forward_tsn_fails_at_its_line() {
    let text = BASE.replace("ids=[{0,0}]", "ids=[{0,1}]");
    let f = failure(&text);
    assert_eq!(f.kind, FailureKind::WrongPacket);
    assert_eq!(f.line, line_of(&text, "> sctp: FORWARD_TSN"));
    assert!(f.message.contains("FORWARD_TSN ids"), "{}", f.message);
    let text = BASE.replace("FORWARD_TSN[cum_tsn=1", "FORWARD_TSN[cum_tsn=2");
    let f = failure(&text);
    assert!(
        f.message
            .contains("FORWARD_TSN cum_tsn: expected 2, actual 1"),
        "{}",
        f.message
    );
}

#[test]
fn without_pr_sctp_the_message_is_retransmitted_not_skipped() {
    let text = BASE.replace("--pr_sctp=on\n", "");
    let f = failure(&text);
    assert_eq!(f.line, line_of(&text, "> sctp: FORWARD_TSN"));
    assert!(f.message.contains("DATA"), "{}", f.message);
}

#[test]
fn send_flags_the_engine_lacks_are_unsupported() {
    let call = "+0.0 sctp_sendv(3, [{iov_base=..., iov_len=100}], 1, NULL, 0, \
                {snd_sid=0, snd_flags=SCTP_EOF, snd_ppid=0, snd_context=0, snd_assoc_id=0}, \
                16, SCTP_SENDV_SNDINFO, 0) = 100\n";
    let text = format!("{}{call}", &BASE[..BASE.find("+0.0 sctp_sendv").unwrap()]);
    let f = failure(&text);
    assert_eq!(f.kind, FailureKind::Unsupported);
    assert!(f.message.contains("SCTP_EOF"), "{}", f.message);
}

#[test]
fn an_undefined_policy_is_einval() {
    let text = BASE
        .replace("pr_policy=SCTP_PR_SCTP_TTL", "pr_policy=9")
        .replace(
            "SCTP_SENDV_PRINFO, 0) = 100",
            "SCTP_SENDV_PRINFO, 0) = -1 EINVAL",
        );
    let cut = text.find("+0.0 > sctp: DATA").unwrap();
    assert!(run(&text[..cut]).passed());
}

#[test]
fn receive_information_the_engine_lacks_is_unsupported() {
    let head = "\
 0.0 socket(..., SOCK_STREAM, IPPROTO_SCTP) = 3
+0.0 bind(3, ..., ...) = 0
+0.0 listen(3, 1) = 0
+0.0 < sctp: INIT[flgs=0, tag=1, a_rwnd=1500, os=1, is=1, tsn=1]
+0.0 > sctp: INIT_ACK[flgs=0, tag=2, a_rwnd=..., os=..., is=..., tsn=1, ...]
+0.0 < sctp: COOKIE_ECHO[flgs=0, len=..., val=...]
+0.0 > sctp: COOKIE_ACK[flgs=0]
+0.0 accept(3, ..., ...) = 4
+0.0 < sctp: DATA[flgs=BE, len=116, tsn=1, sid=0, ssn=0, ppid=5]
+0.0 > sctp: SACK[flgs=0, cum_tsn=1, a_rwnd=..., gaps=[], dups=[]]
+0.0 setsockopt(4, IPPROTO_SCTP, SCTP_RECVRCVINFO, [1], 4) = 0
";
    let recvv = |info: &str| {
        format!(
            "{head}+0.0 sctp_recvv(4, [{{iov_base=..., iov_len=200}}], 1, ..., 16, {info}, [28], [SCTP_RECVV_RCVINFO], [MSG_EOR]) = 100\n"
        )
    };
    assert!(run(&recvv("{rcv_sid=0, rcv_ppid=htonl(5), rcv_flags=0}")).passed());
    let f = failure(&recvv("{rcv_sid=0, rcv_ppid=htonl(6)}"));
    assert_eq!(f.kind, FailureKind::SyscallResult);
    assert!(
        f.message.contains("rcv_ppid is 5, expected 6"),
        "{}",
        f.message
    );
    let f = failure(&recvv("{rcv_sid=0, rcv_tsn=1}"));
    assert_eq!(f.kind, FailureKind::Unsupported);
    assert!(f.message.contains("rcv_tsn"), "{}", f.message);
    let nxt = recvv("{rcv_sid=0}").replace(
        "SCTP_RECVRCVINFO, [1], 4) = 0\n",
        "SCTP_RECVRCVINFO, [1], 4) = 0\n+0.0 setsockopt(4, IPPROTO_SCTP, SCTP_RECVNXTINFO, [1], 4) = 0\n",
    );
    let f = failure(&nxt);
    assert_eq!(f.kind, FailureKind::Unsupported);
    assert!(f.message.contains("SCTP_RECVNXTINFO"), "{}", f.message);
}
