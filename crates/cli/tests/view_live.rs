//! `msctp perf --view`: the live viewer page fed by a real transfer. A
//! perf server bound to 127.0.0.1 and 127.0.0.2 and a CMT client to both
//! (both paths carry data); the client serves the page on a loopback port
//! and pushes each 100 ms report as a server-sent event. Headless Chromium
//! (when installed) opens the page over HTTP while the transfer runs: the
//! page must draw the paths from the stream with no console message, and a
//! screenshot is saved (and copied to `MSCTP_VIEW_LIVE_SCREENSHOT` when
//! set). An open event stream never lets the page's network go idle, so
//! the page is opened with `#snapshot=N`: it closes the stream after N
//! messages (what came before it connected, then live ones).

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::Killed;
use msctp_view::headless::{self, attribute, chromium};

const ADDRS: [&str; 2] = ["127.0.0.1", "127.0.0.2"];

#[test]
fn perf_view_streams_a_live_transfer_to_the_page() {
    let Some(browser) = chromium() else {
        // scripts/install-deps.sh installs it: required under CI=true.
        msctp_testkit::skip(&msctp_testkit::require(
            "`chromium` is not installed".into(),
        ));
        return;
    };
    let bind: Vec<&str> = ADDRS.iter().flat_map(|a| ["--bind", *a]).collect();
    let to: Vec<&str> = ADDRS.iter().flat_map(|a| ["--to", *a]).collect();
    let mut srv = Command::new(env!("CARGO_BIN_EXE_msctp"))
        .args(["perf", "--server", "--port", "7126"])
        .args(&bind)
        .args(["--udp-port", "0", "--cmt", "--lan"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let udp = common::announced_udp_port(&mut srv).to_string();
    let _srv = Killed(srv);
    let mut cli = Command::new(env!("CARGO_BIN_EXE_msctp"))
        .args(["perf", "-t", "30", "-i", "0.1", "--view"])
        .args(&to)
        .args(&bind)
        .args(["--udp-port", "0", "--remote-udp-port", &udp])
        .args(["--peer-port", "7126", "--cmt", "--lan", "--json"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let url = common::live_view_url(&mut cli);
    let cli = Killed(cli);
    std::thread::sleep(std::time::Duration::from_secs(2));
    let run = headless::run(
        &browser,
        &[],
        &["--virtual-time-budget=3000", "--dump-dom"],
        &format!("{url}#snapshot=60"),
    );
    assert!(run.console().is_empty(), "{:#?}", run.console());
    let dom = &run.stdout;
    let points: usize = attribute(dom, "data-live-points")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let errors = attribute(dom, "data-errors") == Some("0");
    println!("the page drew {points} path points from the stream");
    assert!(errors, "no script error");
    assert!(points >= 10, "the paths came from the stream");
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("view-perf-live.png");
    headless::screenshot(
        &browser,
        &[],
        &format!("{url}#snapshot=80"),
        &shot,
        (1500, 1000),
        3000,
    );
    println!("screenshot: {}", shot.display());
    if let Some(to) = std::env::var_os("MSCTP_VIEW_LIVE_SCREENSHOT") {
        std::fs::copy(&shot, to).unwrap();
    }
    drop(cli);
}
