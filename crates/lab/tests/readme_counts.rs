//! README.md states how many claim checks the reproduction has and how
//! many agree; docs/REPRODUCTION.md (written by `msctp reproduce`) is where
//! they are counted. These tests read both files and fail when README's
//! figures differ from the report's, and when a relative link in README.md
//! or docs/ points at a file that is not in the repository.

use std::path::{Path, PathBuf};

/// The figures README's "Results at a glance" states.
#[derive(Debug, PartialEq, Eq)]
struct Counts {
    /// Claim checks over all studies.
    checks: usize,
    /// Checks whose verdict is the one their experiment file expects.
    as_expected: usize,
    /// Checks that agree with the paper (or with what MODELS.md adds).
    agree: usize,
    /// Checks that disagree, as their experiment file expects and explains.
    documented_disagreements: usize,
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(rel: &str) -> String {
    let path = repo().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The cells of a Markdown table row, trimmed (`| a | b |` -> `["a", "b"]`).
fn cells(row: &str) -> Vec<&str> {
    let inner = row.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(str::trim).collect()
}

/// `"9/9"` -> (9, 9).
fn fraction(cell: &str) -> (usize, usize) {
    let (a, b) = cell
        .split_once('/')
        .unwrap_or_else(|| panic!("not a/b: {cell:?}"));
    (a.parse().unwrap(), b.parse().unwrap())
}

/// What the report counts: the summary table's "Claims as expected" column
/// and the verdicts of every study's claims table.
fn report_counts(report: &str) -> Counts {
    let mut lines = report.lines();
    let header = lines
        .by_ref()
        .find(|l| l.starts_with("| Study |"))
        .expect("the report's summary table");
    let column = cells(header)
        .iter()
        .position(|c| *c == "Claims as expected")
        .expect("a \"Claims as expected\" column");
    let (mut as_expected, mut checks) = (0, 0);
    for row in lines.skip(1).take_while(|l| l.starts_with('|')) {
        let cols = cells(row);
        if let Some(cell) = cols.get(column).filter(|c| c.contains('/')) {
            let (ok, all) = fraction(cell);
            as_expected += ok;
            checks += all;
        }
    }
    let (mut agree, mut documented_disagreements, mut rows) = (0, 0, 0);
    let mut in_claims = false;
    for line in report.lines() {
        if line.starts_with("| Claim | Source | Our result |") {
            in_claims = true;
            continue;
        }
        if !in_claims || line.starts_with("|---") {
            continue;
        }
        if !line.starts_with('|') {
            in_claims = false;
            continue;
        }
        rows += 1;
        let verdict = cells(line)[2];
        if verdict.starts_with("agrees") {
            agree += 1;
        } else if verdict == "**disagrees** (known difference)" {
            documented_disagreements += 1;
        }
    }
    assert_eq!(
        rows, checks,
        "claims tables and summary disagree on the number of checks"
    );
    Counts {
        checks,
        as_expected,
        agree,
        documented_disagreements,
    }
}

/// The integer written just before `phrase` in `text`.
fn number_before(text: &str, phrase: &str) -> usize {
    let at = text
        .find(phrase)
        .unwrap_or_else(|| panic!("README's counts sentence has no {phrase:?}: {text:?}"));
    let word = text[..at].split_whitespace().last().unwrap_or("");
    word.parse()
        .unwrap_or_else(|_| panic!("no number before {phrase:?} in README ({word:?})"))
}

/// What README states, from its sentence "Current state (...): N checks,
/// M with the verdict their file expects; A agree ..., D are documented
/// disagreements".
fn readme_counts(readme: &str) -> Counts {
    let start = readme
        .find("Current state")
        .expect("README's \"Current state\" sentence");
    let end = start
        + readme[start..]
            .find("unexplained")
            .expect("the sentence's end");
    let text = readme[start..end]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    Counts {
        checks: number_before(&text, " checks,"),
        as_expected: number_before(&text, " with the verdict their file expects"),
        agree: number_before(&text, " agree with the papers"),
        documented_disagreements: number_before(&text, " are documented disagreements"),
    }
}

#[test]
fn readme_states_the_counts_of_the_reproduction_report() {
    let report = report_counts(&read("docs/REPRODUCTION.md"));
    let readme = readme_counts(&read("README.md"));
    assert_eq!(
        readme, report,
        "README.md's \"Results at a glance\" (left) differs from docs/REPRODUCTION.md (right)"
    );
}

#[test]
fn the_comparison_sees_a_stale_readme() {
    let report = "| Study | Runs | Claims as expected | Published values agreeing | Mode |\n\
                  |---|---|---|---|---|\n\
                  | [E1: x](#e1) | 4/4 | 2/3 | 0/0 | full |\n\
                  \n\
                  | Claim | Source | Our result | Numbers | Why |\n\
                  |---|---|---|---|---|\n\
                  | a | p | agrees | 1 | |\n\
                  | b | p | **disagrees** (known difference) | 2 | |\n\
                  | c | p | **disagrees** (unexpected) | 3 | |\n";
    let counted = report_counts(report);
    assert_eq!(
        counted,
        Counts {
            checks: 3,
            as_expected: 2,
            agree: 1,
            documented_disagreements: 1
        }
    );
    let stale = "Current state (docs/REPRODUCTION.md): 3 checks, 3 with the verdict their\n\
                 file expects; 2 agree with the papers, 1 are documented\n\
                 disagreements; no published value is left unexplained.";
    let stated = readme_counts(stale);
    assert_eq!(
        stated,
        Counts {
            checks: 3,
            as_expected: 3,
            agree: 2,
            documented_disagreements: 1
        }
    );
    assert_ne!(stated, counted);
}

/// Relative link targets of a Markdown text: `](target)`, without anchors;
/// web addresses and pure anchors are left out.
fn local_links(md: &str) -> Vec<String> {
    md.split("](")
        .skip(1)
        .filter_map(|rest| rest.split_once(')').map(|(t, _)| t))
        .map(|t| t.split('#').next().unwrap_or("").trim().to_string())
        .filter(|t| !t.is_empty() && !t.contains("://") && !t.starts_with("mailto:"))
        .collect()
}

#[test]
fn every_relative_link_of_the_readme_and_the_docs_resolves() {
    let mut files = vec![repo().join("README.md")];
    for dir in ["docs", "docs/measurements"] {
        for entry in std::fs::read_dir(repo().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    let mut broken = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let dir = file.parent().unwrap();
        for target in local_links(&text) {
            if !dir.join(&target).exists() {
                broken.push(format!("{}: {target}", file.display()));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to missing files:\n{}",
        broken.join("\n")
    );
}
