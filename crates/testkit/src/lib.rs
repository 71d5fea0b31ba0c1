//! Test support shared by every msctp crate: how a test that cannot run
//! here says so.
//!
//! libtest has no "skipped" outcome: a test that returns early is reported
//! as passed. So a test that lacks a prerequisite calls [`skip`], which
//! prints the reason and appends it to the file named by
//! `MSCTP_SKIP_LOG` (set by `scripts/test.sh`, which prints the count and
//! the reasons after the suite). A prerequisite that
//! `scripts/install-deps.sh` installs goes through [`require`] first:
//! under `CI=true` (how `.ci/run` runs the suite) its absence is a
//! failure, not a skip.

use std::io::Write;
use std::path::PathBuf;

/// The environment variable naming the file skips are appended to.
pub const SKIP_LOG: &str = "MSCTP_SKIP_LOG";

/// Whether the suite runs under `CI=true`.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// A prerequisite that `scripts/install-deps.sh` provides is missing:
/// returns the reason to skip with, or panics under `CI=true`.
pub fn require(why: String) -> String {
    if under_ci() {
        panic!("{why}: under CI=true every prerequisite must be present (scripts/install-deps.sh)");
    }
    why
}

/// Records that the calling test (or a part of it) did not run, and why:
/// printed to stderr and appended to `$MSCTP_SKIP_LOG` as one line
/// `test name: reason`. The caller returns (or leaves the part out) after.
pub fn skip(why: &str) {
    record(why, std::env::var_os(SKIP_LOG).map(PathBuf::from));
}

fn record(why: &str, log: Option<PathBuf>) {
    let test = std::thread::current()
        .name()
        .unwrap_or("unnamed test")
        .to_string();
    eprintln!("skipped: {why}");
    if let Some(path) = log {
        let line = format!("{test}: {}\n", why.replace('\n', " "));
        // One write per line, in append mode: tests running in parallel
        // do not interleave within a line.
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = written {
            eprintln!("cannot record the skip in {}: {e}", path.display());
        }
    }
}

/// The path of `tool` if it is an executable file on `PATH`.
pub fn find_on_path(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
}

/// Whether `tool` is on `PATH`.
pub fn on_path(tool: &str) -> bool {
    find_on_path(tool).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skip_is_appended_to_the_log_with_the_test_name() {
        let dir = std::env::temp_dir().join(format!("msctp-testkit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("skips.txt");
        record("no frobnicator\non this host", Some(log.clone()));
        record("second", Some(log.clone()));
        let text = std::fs::read_to_string(&log).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(
            lines[0].ends_with(": no frobnicator on this host"),
            "{text}"
        );
        assert!(lines[0].contains("a_skip_is_appended"), "{text}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn tools_are_found_on_path() {
        assert!(on_path("sh"));
        assert!(!on_path("no-such-tool-msctp"));
    }
}
