//! No module circles in the workspace's crates: among the modules of any
//! level, dependencies go one way (see the crate documentation for what
//! counts). A failure names the circle and, for each step, the file, line
//! and path that make it.

use std::path::Path;

use msctp_modgraph::Crate;

fn check(krate: &str) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate)
        .join("src");
    let circles = Crate::load(&src)
        .unwrap_or_else(|e| panic!("{e}"))
        .circles();
    let text: String = circles.iter().map(|c| c.to_string()).collect();
    assert!(circles.is_empty(), "crates/{krate}:\n{text}");
}

#[test]
fn the_simulator_has_no_module_circles() {
    check("sim");
}

#[test]
fn the_lab_has_no_module_circles() {
    check("lab");
}

#[test]
fn the_engine_has_no_module_circles() {
    check("proto");
}

#[test]
fn the_tcp_model_has_no_module_circles() {
    check("tcp");
}

#[test]
fn the_driver_conformance_and_command_have_no_module_circles() {
    for krate in ["net", "conformance", "cli", "modgraph", "time", "serial"] {
        check(krate);
    }
}
