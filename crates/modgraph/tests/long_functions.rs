//! No function in the workspace's sources (`crates/*/src`) over 100 lines
//! without a reason written at its top (a `// Long because: ...` line,
//! see `msctp_modgraph::long_fns`): a long function is split along what
//! it does, or says why it reads best whole (a dispatch `match`).

use std::path::Path;

use msctp_modgraph::long_fns::long_functions;

/// The bound: functions longer than this must say why.
const MAX_LINES: usize = 100;

#[test]
fn every_function_over_100_lines_says_why() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap();
    let mut dirs: Vec<_> = std::fs::read_dir(&crates)
        .unwrap()
        .map(|e| e.unwrap().path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() > 5, "found only {dirs:?}");
    let mut unexplained: Vec<String> = Vec::new();
    for d in &dirs {
        for f in long_functions(d, MAX_LINES).unwrap_or_else(|e| panic!("{e}")) {
            if !f.has_reason {
                unexplained.push(f.to_string());
            }
        }
    }
    assert!(
        unexplained.is_empty(),
        "functions over {MAX_LINES} lines without a `// Long because: ...` line at their top \
         (split them, or say why they read best whole):\n{}",
        unexplained.join("\n")
    );
}
