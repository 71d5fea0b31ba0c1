//! A long run's page stays small: the 60 s E1 scenario of the headless
//! test run for 300 s with the event-driven traces on gives more rows than
//! the default point budget; the page made from it (as `msctp view` makes
//! it) stays under 5 MB, every mark of the run is on it, and the page says
//! the series were thinned.

use msctp_sim::scenario;
use msctp_view::{DEFAULT_MAX_POINTS, ViewData, render};

const SCENARIO: &str = include_str!("e1-60s.toml");
const BOUND: usize = 5_000_000;

#[test]
fn a_300_s_run_gives_a_page_under_5_mb_with_every_mark() {
    let text = SCENARIO
        .replace("duration_s = 60.0", "duration_s = 300.0")
        .replace("[[2.0, 60.0]]", "[[2.0, 300.0]]");
    let s = scenario::parse(&text).expect("valid");
    assert_eq!(s.duration_s, 300.0);
    let dir = tempfile::tempdir().unwrap();
    scenario::run_scenario(&s, 1)
        .unwrap()
        .write_to_dir(dir.path())
        .unwrap();
    let full = ViewData::load(dir.path()).unwrap();
    let full_page = render(&full, false).len();
    let mut small = full.clone();
    assert!(
        small.decimate(DEFAULT_MAX_POINTS),
        "the run has more rows ({}) than the budget",
        full.points()
    );
    let page = render(&small, false);
    println!(
        "300 s E1: {} rows, page {:.2} MB; thinned to {} rows, page {:.2} MB",
        full.points(),
        full_page as f64 / 1e6,
        small.points(),
        page.len() as f64 / 1e6
    );
    assert!(small.points() <= DEFAULT_MAX_POINTS);
    assert!(page.len() < BOUND, "{} bytes", page.len());
    assert_eq!(small.marks, full.marks, "every mark kept");
    assert!(!full.marks.is_empty());
    assert!(page.contains(&format!("\"decimated_from\":{}", full.points())));
}
