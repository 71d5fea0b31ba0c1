//! The circle finder on two small crates written for it.

use std::path::Path;

use msctp_modgraph::Crate;

fn fixture(name: &str) -> Crate {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    Crate::load(&dir).unwrap()
}

#[test]
fn finds_a_circle_through_a_re_export() {
    let circles = fixture("circle").circles();
    let top = circles.iter().find(|c| c.level == "crate").unwrap();
    assert_eq!(top.members, ["a", "b"]);
    let steps: Vec<(&str, &str)> = top
        .path
        .iter()
        .map(|e| (e.from.as_str(), e.to.as_str()))
        .collect();
    assert_eq!(steps, [("a", "b"), ("b", "a")]);
    // `crate::Bee` is named where it is written, and found where defined.
    assert!(top.path[0].witness.path == "crate::Bee", "{}", top);
    assert!(top.path[0].witness.file.ends_with("a.rs"));
}

#[test]
fn follows_globs_and_macros_and_leaves_tests_out() {
    let circles = fixture("circle").circles();
    let inner = circles
        .iter()
        .find(|c| c.level == "crate::inner")
        .unwrap_or_else(|| panic!("{circles:?}"));
    assert_eq!(inner.members, ["x", "y"]);
    // y's test module uses `a`: not a dependency of `inner` on `a`.
    let c = fixture("circle");
    assert!(
        !c.edges()
            .iter()
            .any(|e| e.level == "crate" && e.from == "inner"),
        "{:?}",
        c.edges()
    );
    assert_eq!(circles.len(), 2);
}

#[test]
fn layers_and_parent_child_uses_are_not_circles() {
    let c = fixture("layered");
    assert!(c.circles().is_empty(), "{:?}", c.circles());
    let edges: Vec<(String, String)> = c.edges().into_iter().map(|e| (e.from, e.to)).collect();
    assert_eq!(edges, [("top".to_string(), "low".to_string())]);
}
