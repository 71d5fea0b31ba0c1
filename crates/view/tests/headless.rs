//! The viewer's page in a real browser: headless Chromium (Debian's
//! `chromium`, installed by scripts/install-deps.sh) opens the page of a
//! 60 s E1 run (mSCTP, three handoffs between UMTS and the WLAN, the
//! event-driven traces on) from disk, with no server:
//!
//! 1. the page runs its self-test (`#selftest`): steps the time slider
//!    through the run (the mobile must move on the map), zooms on 200 ms
//!    around the first handover decision and hovers its mark (the tooltip
//!    must name the event); no console message and no error;
//! 2. a screenshot at t = 20 s, saved next to the test's outputs (and
//!    copied to `MSCTP_VIEW_SCREENSHOT` when set).
//!
//! Printed, not asserted as times: the page's size (asserted < 5 MB) and
//! how long it took to open.

use std::path::{Path, PathBuf};

use msctp_sim::scenario;
use msctp_view::headless::{self, chromium, status};

const SCENARIO: &str = include_str!("e1-60s.toml");

/// Runs the scenario and writes its outputs and page into `dir`.
fn e1_page(dir: &Path) -> PathBuf {
    let s = scenario::parse(SCENARIO).expect("the test scenario is valid");
    assert!(s.output.trace && s.duration_s == 60.0);
    let r = scenario::run_scenario(&s, 1).unwrap();
    assert!(r.summary.warnings.is_empty(), "{:?}", r.summary.warnings);
    assert_eq!(r.summary.flows[0].handovers.len(), 3);
    r.write_to_dir(dir).unwrap();
    let data = msctp_view::ViewData::load(dir).unwrap();
    assert!(data.paths_traced && !data.paths.is_empty() && !data.delays.is_empty());
    let page = dir.join("view.html");
    std::fs::write(&page, msctp_view::render(&data, false)).unwrap();
    page
}

#[test]
fn e1_page_opens_steps_zooms_and_hovers_in_headless_chromium() {
    let Some(browser) = chromium() else {
        // scripts/install-deps.sh installs it: required under CI=true.
        msctp_testkit::skip(&msctp_testkit::require(
            "`chromium` is not installed".into(),
        ));
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = e1_page(dir.path());
    let size = std::fs::metadata(&page).unwrap().len();
    let url = format!("file://{}", page.display());

    let run = headless::run(
        &browser,
        &[],
        &["--virtual-time-budget=5000", "--dump-dom"],
        &format!("{url}#selftest"),
    );
    let secs = run.secs;
    assert!(
        run.console().is_empty(),
        "console messages: {:#?}",
        run.console()
    );
    let st = status(&run.stdout);
    println!(
        "page {:.2} MB; open and drawn {} ms after the navigation started \
         (its script: {} ms); chromium started, opened it and ran the self-test \
         in {secs:.2} s wall",
        size as f64 / 1e6,
        st["opened_ms"],
        st["init_ms"]
    );
    assert!(
        size < 5_000_000,
        "a 60 s E1 run's page stays under 5 MB: {size}"
    );
    assert_eq!(st["errors"], 0, "{st}");
    assert_eq!(st["ready"], true, "{st}");
    assert_eq!(st["plots"], 8, "all series drawn: {st}");
    // The slider moved the mobile along its trajectory.
    let steps = st["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 5);
    let places: Vec<String> = steps.iter().map(|s| s["mobile"].to_string()).collect();
    let distinct: std::collections::BTreeSet<&String> = places.iter().collect();
    assert!(distinct.len() >= 3, "the mobile moves: {places:?}");
    assert!(
        (steps[4]["t"].as_f64().unwrap() - 60.0).abs() < 1e-6,
        "{st}"
    );
    // 200 ms around the first handover, and its mark's tooltip.
    let zoom = st["zoom"].as_array().expect("zoomed");
    let (a, b) = (zoom[0].as_f64().unwrap(), zoom[1].as_f64().unwrap());
    assert!((b - a - 0.2).abs() < 1e-6, "{zoom:?}");
    let tip = st["tip"].as_str().unwrap_or_default();
    assert!(
        tip.contains("decision"),
        "the hovered mark shows the event: {tip:?}"
    );

    // A screenshot in the middle of the run.
    let shot = dir.path().join("view-e1.png");
    let secs = headless::screenshot(
        &browser,
        &[],
        &format!("{url}#t=20"),
        &shot,
        (1500, 1250),
        5000,
    )
    .secs;
    let png = std::fs::read(&shot).expect("screenshot written");
    assert!(png.len() > 20_000);
    let keep = Path::new(env!("CARGO_TARGET_TMPDIR")).join("view-e1.png");
    std::fs::copy(&shot, &keep).unwrap();
    println!("screenshot ({secs:.2} s): {}", keep.display());
    if let Some(to) = std::env::var_os("MSCTP_VIEW_SCREENSHOT") {
        std::fs::copy(&shot, to).unwrap();
    }
}
