//! `msctp perf --view` across a real handover (needs root, `ip`, `tc` and
//! `chromium`; skipped with the reason otherwise, a failure under
//! `CI=true`). Two namespaces joined by two shaped links, as in
//! crates/net/tests/netns_handover.rs:
//!
//! ```text
//!   MN  10.1.0.2 ==== 20 Mbit/s ==== 10.1.0.1  CN   msctp perf --server
//!   MN  10.2.0.2 ==== 10 Mbit/s ==== 10.2.0.1  CN
//!   msctp perf --monitor --view (MN): live page on 127.0.0.1 in MN
//!
//!   t = 0     transfer on the faster link 1
//!   t = 3 s   CN's end of link 1 down: MN's carrier drops, the policy
//!             moves the data to link 2 (handover), the page gets the mark
//!   t = 6 s   Chromium (in MN) opens the live page: the paths drawn from
//!             the stream, the handover mark on them, no console message;
//!             a screenshot (copied to MSCTP_VIEW_HANDOVER_SCREENSHOT when
//!             set: docs/images/view-perf-handover.png)
//! ```

mod common;
#[path = "../../net/tests/common/mod.rs"]
mod netns;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::Killed;
use msctp_view::headless::{self, attribute, chromium};
use netns::{Netns, skip_reason};

fn msctp_in(ns: &Netns, args: &[&str]) -> Command {
    let mut c = Command::new("ip");
    c.args(["netns", "exec", &ns.name, env!("CARGO_BIN_EXE_msctp")])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

#[test]
fn perf_view_shows_a_live_handover() {
    if let Some(why) = skip_reason(&["ip", "tc", "chromium"]) {
        msctp_testkit::skip(&why);
        return;
    }
    let browser = chromium().expect("on PATH");
    let pid = std::process::id() % 100_000;
    let mn = Netns::with_prefix("msctpview", "mn");
    let cn = Netns::with_prefix("msctpview", "cn");
    let pad = [format!("vwp0-{pid}"), format!("vwp1-{pid}")];
    netns::two_tbf_links(
        &mn,
        &cn,
        [&pad[0], &pad[1]],
        |k| {
            (
                (format!("vwm{k}-{pid}"), format!("10.{k}.0.2/24")),
                (format!("vwc{k}-{pid}"), format!("10.{k}.0.1/24")),
            )
        },
        "32kbit",
        "50ms",
    );
    let mut srv = msctp_in(&cn, &["perf", "--server", "--port", "7131"])
        .args([
            "--bind",
            "10.1.0.1",
            "--bind",
            "10.2.0.1",
            "--udp-port",
            "0",
        ])
        .spawn()
        .unwrap();
    let udp = common::announced_udp_port(&mut srv).to_string();
    let _srv = Killed(srv);
    let mut cli = msctp_in(&mn, &["perf", "-t", "20", "-i", "0.1", "--view"])
        .args(["--to", "10.1.0.1", "--to", "10.2.0.1"])
        .args(["--bind", "10.1.0.2", "--bind", "10.2.0.2", "--monitor"])
        .args(["--udp-port", "0", "--remote-udp-port", &udp])
        .args(["--peer-port", "7131"])
        .spawn()
        .unwrap();
    let url = common::live_view_url(&mut cli);
    let cli = Killed(cli);
    std::thread::sleep(Duration::from_secs(3));
    cn.ip(&["link", "set", &format!("vwc1-{pid}"), "down"]);
    std::thread::sleep(Duration::from_secs(3));

    // About 60 reports were published by now: the page replays them and
    // closes the stream after 55 (an open stream never lets the page's
    // network go idle).
    let wrap = ["ip", "netns", "exec", mn.name.as_str()];
    let run = headless::run(
        &browser,
        &wrap,
        &["--virtual-time-budget=3000", "--dump-dom"],
        &format!("{url}#snapshot=55"),
    );
    assert!(run.console().is_empty(), "{:#?}", run.console());
    let dom = &run.stdout;
    let n = |a: &str| -> usize { attribute(dom, a).and_then(|v| v.parse().ok()).unwrap_or(0) };
    println!(
        "the page drew {} path points and {} handover marks from the stream",
        n("data-live-points"),
        n("data-live-handovers")
    );
    assert_eq!(attribute(dom, "data-errors"), Some("0"), "no script error");
    assert!(
        n("data-live-points") >= 20,
        "the paths came from the stream"
    );
    assert!(n("data-live-handovers") >= 1, "the handover mark arrived");
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("view-perf-handover.png");
    headless::screenshot(
        &browser,
        &wrap,
        &format!("{url}#snapshot=55"),
        &shot,
        (1500, 1000),
        3000,
    );
    println!("screenshot: {}", shot.display());
    if let Some(to) = std::env::var_os("MSCTP_VIEW_HANDOVER_SCREENSHOT") {
        std::fs::copy(&shot, to).unwrap();
    }
    drop(cli);
}
