//! `msctp run | sweep | reproduce` end to end with the synthetic runner
//! (a formula with noise, not a network model): exit codes, outputs,
//! resumption and error messages.

use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::output_text as text;

const EXPERIMENT: &str = r#"
id = "D1"
title = "Synthetic demo"
runner = "synthetic"
repetitions = 4
quick_repetitions = 2
scenario = { synthetic = { x = 0, metrics = { y = { intercept = 1.0, slope = 0.5, noise = 0.01 } } } }

[[axes]]
name = "x"
key = "synthetic.x"
values = [0, 1, 2]
quick_values = [0, 2]

[[metrics]]
name = "y"
unit = "s"

[[figures]]
id = "fig"
title = "y against x"
x = "x"
y = "y"

[[checks]]
kind = "increasing"
metric = "y"
axis = "x"
claim = "y grows with x"
"#;

fn msctp(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_msctp"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn reproduce_writes_results_and_report_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("experiments")).unwrap();
    std::fs::write(dir.path().join("experiments/d1.toml"), EXPERIMENT).unwrap();
    let o = msctp(dir.path(), &["reproduce", "--jobs", "2"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("D1: 12 runs (12 run now, 0 stored before, 0 failed)"),
        "{}",
        text(&o)
    );
    assert!(text(&o).contains("claims as expected 1/1"), "{}", text(&o));
    assert!(
        text(&o).contains("all: 12 runs (12 run now, 0 stored before, 0 failed) in ")
            && text(&o).contains("s CPU)")
            && text(&o).contains("on 2 workers"),
        "{}",
        text(&o)
    );
    assert!(dir.path().join("docs/REPRODUCTION.md").exists());
    assert!(dir.path().join("docs/figures/D1/fig.png").exists());
    assert!(dir.path().join("results/D1/runs.csv").exists());
    let o = msctp(dir.path(), &["reproduce", "d1", "--quick"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("D1: 4 runs (0 run now, 4 stored before"),
        "{}",
        text(&o)
    );

    let o = msctp(dir.path(), &["reproduce", "E7"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("no experiment `E7`") && text(&o).contains("experiments: D1"),
        "{}",
        text(&o)
    );
    let o = msctp(dir.path(), &["reproduce", "--jobs", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("--jobs must be at least 1"),
        "{}",
        text(&o)
    );
    let o = msctp(dir.path(), &["reproduce", "--experiments", "nowhere"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("nowhere"), "{}", text(&o));

    // A claim that does not hold makes the command fail.
    std::fs::write(
        dir.path().join("experiments/d1.toml"),
        EXPERIMENT.replace("kind = \"increasing\"", "kind = \"decreasing\""),
    )
    .unwrap();
    let o = msctp(dir.path(), &["reproduce", "--no-docs"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("claim \"y grows with x\": disagrees"),
        "{}",
        text(&o)
    );

    // A bad experiment file names the key.
    std::fs::write(
        dir.path().join("experiments/d1.toml"),
        EXPERIMENT.replace("repetitions = 4", "repetitions = 4\nrepetitons = 2"),
    )
    .unwrap();
    let o = msctp(dir.path(), &["reproduce"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("repetitons"), "{}", text(&o));
}

#[test]
fn run_and_sweep() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        "seed = 5\n[synthetic]\nx = 2\n[synthetic.metrics.y]\nintercept = 1\nslope = 1\nnoise = 0.1\n",
    )
    .unwrap();
    let o = msctp(
        dir.path(),
        &["run", "s.toml", "--runner", "synthetic", "--reps", "3"],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("3 run(s), seeds 5..7"), "{}", text(&o));
    assert!(text(&o).contains(" ± "), "{}", text(&o));
    let o = msctp(
        dir.path(),
        &[
            "run",
            "s.toml",
            "--runner",
            "synthetic",
            "--json",
            "--seed",
            "9",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["seed"], 9);
    assert!(v[0]["record"]["metrics"]["y"].is_number());

    let o = msctp(
        dir.path(),
        &[
            "sweep",
            "s.toml",
            "--runner",
            "synthetic",
            "--param",
            "synthetic.x=1,2,3",
            "--reps",
            "2",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("sweep-s: 6 runs (6 run now"),
        "{}",
        text(&o)
    );
    assert!(dir.path().join("results/sweep-s/summary.csv").exists());

    let o = msctp(
        dir.path(),
        &[
            "sweep",
            "s.toml",
            "--runner",
            "synthetic",
            "--param",
            "nokey",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("--param `nokey`"), "{}", text(&o));
    let o = msctp(dir.path(), &["run", "s.toml", "--runner", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("unknown runner `nope`"), "{}", text(&o));
    let o = msctp(
        dir.path(),
        &["run", "missing.toml", "--runner", "synthetic"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("missing.toml"), "{}", text(&o));
}

#[test]
fn run_the_simulator_reference_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = msctp_sim::scenario::REFERENCE
        .lines()
        .map(|l| {
            if l.starts_with("pcap = ") {
                "pcap = []"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        .replace("duration_s = 30.0", "duration_s = 12.0");
    std::fs::write(dir.path().join("ref.toml"), scenario).unwrap();
    let o = msctp(dir.path(), &["run", "ref.toml", "--out", "o"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("flows.bulk.goodput_bps"), "{}", text(&o));
    assert!(dir.path().join("o/summary.json").exists());
    assert!(dir.path().join("o/goodput.csv").exists());
    // The simulator names a bad key.
    let o = msctp(
        dir.path(),
        &[
            "sweep",
            "ref.toml",
            "--param",
            "mobiles.0.speed=1,2",
            "--reps",
            "1",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("unknown field `speed`"), "{}", text(&o));
}

/// `--robustness` maps the studies that declare unsaid values and make
/// claims; a study of diagnoses alone (no claims) is named, not run.
#[test]
fn robustness_skips_a_study_without_claims() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("experiments")).unwrap();
    let robustness = r#"
[robustness]
[[robustness.params]]
name = "slope"
key = "synthetic.metrics.y.slope"
min = 0.2
max = 1.0
reason = "unsaid"
"#;
    let with_claim = format!("{EXPERIMENT}{robustness}");
    let without = with_claim
        .replace("id = \"D1\"", "id = \"D2\"")
        .split("[[checks]]")
        .next()
        .unwrap()
        .to_string()
        + robustness;
    std::fs::write(dir.path().join("experiments/d1.toml"), with_claim).unwrap();
    std::fs::write(dir.path().join("experiments/d2.toml"), without).unwrap();
    let args = ["reproduce", "--robustness", "--robustness-points", "4"];
    let o = msctp(dir.path(), &args);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("not mapped (no claims to map): D2"),
        "{}",
        text(&o)
    );
    assert!(dir.path().join("results/D1.robustness").exists());
    assert!(!dir.path().join("results/D2.robustness").exists());
    let o = msctp(dir.path(), &["reproduce", "D2", "--robustness"]);
    assert!(!o.status.success());
    assert!(text(&o).contains("makes claims"), "{}", text(&o));
}
