//! `msctp reproduce --shard I/N` and `--report-only`, and the Slurm job
//! array scripts of `scripts/slurm/` driven by a stand-in `sbatch` that
//! runs the array's tasks one after another: a study split into slices and
//! merged gives the results of one `msctp reproduce`. Synthetic runner (a
//! formula with noise, not a network model).

use msctp_lab::pipeline::testing::runs_csv_without_wall_time;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::output_text as text;

const EXPERIMENT: &str = r#"
id = "D2"
title = "Synthetic, two variants"
runner = "synthetic"
repetitions = 3
scenario = { synthetic = { x = 0, metrics = { y = { intercept = 1.0, slope = 0.5, noise = 0.05 } } } }

[[variants]]
name = "a"

[[variants]]
name = "b"
set = { "synthetic.metrics.y.intercept" = 2.0 }

[[axes]]
name = "x"
key = "synthetic.x"
values = [0, 1, 2, 3]

[[metrics]]
name = "y"

[[tables]]
id = "y"
title = "y"
rows = ["variant", "x"]
columns = ["y"]

[[checks]]
kind = "greater"
metric = "y"
a = "b"
b = "a"
claim = "b above a"
"#;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_msctp")
}

fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/slurm")
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("experiments")).unwrap();
    std::fs::write(dir.path().join("experiments/d2.toml"), EXPERIMENT).unwrap();
    dir
}

fn msctp(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join("results/D2").join(file)).unwrap()
}

fn assert_same_results(a: &Path, b: &Path) {
    for f in ["summary.csv", "report.md", "tables/y.md"] {
        assert_eq!(read(a, f), read(b, f), "{f} differs");
    }
    let (ra, rb) = (read(a, "runs.csv"), read(b, "runs.csv"));
    assert_eq!(ra.lines().count(), 25);
    assert_eq!(
        runs_csv_without_wall_time(&ra),
        runs_csv_without_wall_time(&rb)
    );
}

#[test]
fn shards_merged_by_report_only_equal_one_reproduction() {
    let whole = project();
    let o = msctp(whole.path(), &["reproduce", "D2", "--no-docs"]);
    assert!(o.status.success(), "{}", text(&o));

    let split = project();
    for i in 1..=3 {
        let shard = format!("{i}/3");
        let o = msctp(split.path(), &["reproduce", "d2", "--shard", &shard]);
        assert!(o.status.success(), "{}", text(&o));
        assert!(
            text(&o).contains(&format!(
                "D2 shard {shard}: 8 of 24 runs (8 run now, 0 stored before, 0 failed)"
            )),
            "{}",
            text(&o)
        );
        assert!(!split.path().join("results/D2/runs.csv").exists());
    }
    let o = msctp(split.path(), &["reproduce", "D2", "--shard", "2/3"]);
    assert!(
        text(&o).contains("8 of 24 runs (0 run now, 8 stored before"),
        "{}",
        text(&o)
    );
    let o = msctp(
        split.path(),
        &["reproduce", "D2", "--report-only", "--no-docs"],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("D2: report from 24 of 24 planned runs stored; claims as expected 1/1"),
        "{}",
        text(&o)
    );
    assert_same_results(whole.path(), split.path());
    let compare = |a: &Path, b: &Path| {
        Command::new("python3")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/compare-results.py"))
            .args([a.join("results"), b.join("results")])
            .output()
            .unwrap()
    };
    let o = compare(whole.path(), split.path());
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("D2: same"), "{}", text(&o));

    // A missing run: the report says so and the command fails.
    let runs = split.path().join("results/D2/runs");
    let one = std::fs::read_dir(&runs).unwrap().next().unwrap().unwrap();
    std::fs::remove_file(one.path()).unwrap();
    let o = msctp(
        split.path(),
        &["reproduce", "D2", "--report-only", "--no-docs"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("23 of 24"), "{}", text(&o));
    assert!(text(&o).contains("1 runs missing"), "{}", text(&o));
    let o = compare(whole.path(), split.path());
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("D2: 24 runs against 23"), "{}", text(&o));

    // ... and the documentation report is not rebuilt from part of the
    // runs: an existing complete one stays as it is, unless --partial.
    let docs = split.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    std::fs::write(docs.join("REPRODUCTION.md"), "complete\n").unwrap();
    let o = msctp(
        split.path(),
        &["reproduce", "D2", "--report-only", "--docs", "docs"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("report not written"), "{}", text(&o));
    let report = || std::fs::read_to_string(docs.join("REPRODUCTION.md")).unwrap();
    assert_eq!(report(), "complete\n");
    let o = msctp(
        split.path(),
        &[
            "reproduce",
            "D2",
            "--report-only",
            "--docs",
            "docs",
            "--partial",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("report: docs"), "{}", text(&o));
    assert_ne!(report(), "complete\n");

    // Bad slices are refused before anything runs.
    for (args, want) in [
        (vec!["--shard", "4/3"], "I counts from 1 to N"),
        (vec!["--shard", "0/3"], "I counts from 1 to N"),
        (vec!["--shard", "3"], "expected I/N"),
        (vec!["--shard", "1/0"], "at least 1"),
        (
            vec!["--shard", "1/3", "--report-only"],
            "cannot be used with",
        ),
        (vec!["--report-only", "--fresh"], "cannot be used with"),
        (vec!["--partial"], "--report-only"),
    ] {
        let mut a = vec!["reproduce", "D2"];
        a.extend(args);
        let o = msctp(split.path(), &a);
        assert_eq!(o.status.code(), Some(2), "{a:?}: {}", text(&o));
        assert!(text(&o).contains(want), "{a:?}: {}", text(&o));
    }
}

/// A stand-in for `sbatch`: prints a job id, runs an array's tasks one
/// after another with Slurm's variables, and a `--wrap` command at once.
const FAKE_SBATCH: &str = r#"#!/usr/bin/env bash
array=""; wrap=""; script=""; args=()
while [ $# -gt 0 ]; do
    case $1 in
        --array=*) array=${1#--array=} ;;
        --wrap) wrap=$2; shift ;;
        --*) ;;
        *) script=$1; shift; args=("$@"); break ;;
    esac
    shift
done
echo "$$;cluster"
if [ -n "$wrap" ]; then bash -c "$wrap" >>"$SBATCH_LOG" 2>&1; exit 0; fi
lo=${array%-*}; hi=${array#*-}
for ((i = lo; i <= hi; i++)); do
    SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_MIN=$lo SLURM_ARRAY_TASK_MAX=$hi \
        SLURM_ARRAY_TASK_COUNT=$((hi - lo + 1)) SLURM_CPUS_PER_TASK=1 \
        bash "$script" "${args[@]}" >>"$SBATCH_LOG" 2>&1
done
"#;

#[test]
fn the_slurm_scripts_split_and_merge_a_study() {
    let whole = project();
    let o = msctp(whole.path(), &["reproduce", "D2", "--no-docs"]);
    assert!(o.status.success(), "{}", text(&o));

    let split = project();
    let fake = split.path().join("bin");
    std::fs::create_dir(&fake).unwrap();
    let sbatch = fake.join("sbatch");
    std::fs::write(&sbatch, FAKE_SBATCH).unwrap();
    std::fs::set_permissions(&sbatch, std::fs::Permissions::from_mode(0o755)).unwrap();
    let log = split.path().join("sbatch.log");
    let path = format!(
        "{}:{}",
        fake.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = Command::new("bash")
        .arg(scripts().join("submit.sh"))
        .args(["D2", "5", "--no-docs"])
        .env("PATH", path)
        .env("MSCTP", bin())
        .env("SBATCH_LOG", &log)
        .current_dir(split.path())
        .output()
        .unwrap();
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(o.status.success(), "{}{log}", text(&o));
    assert!(text(&o).contains("(5 tasks)"), "{}", text(&o));
    for i in 1..=5 {
        assert!(log.contains(&format!("D2 shard {i}/5: ")), "{log}");
    }
    assert!(log.contains("report from 24 of 24"), "{log}");
    assert_same_results(whole.path(), split.path());

    // A task outside an array, or of a range with gaps, is refused.
    let o = Command::new("bash")
        .arg(scripts().join("reproduce-array.sbatch"))
        .arg("D2")
        .env("MSCTP", bin())
        .env_remove("SLURM_ARRAY_TASK_ID")
        .current_dir(split.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not a job array task"), "{}", text(&o));
    let o = Command::new("bash")
        .arg(scripts().join("reproduce-array.sbatch"))
        .arg("D2")
        .env("MSCTP", bin())
        .envs([
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "9"),
            ("SLURM_ARRAY_TASK_COUNT", "5"),
        ])
        .current_dir(split.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("contiguous range"), "{}", text(&o));
}
