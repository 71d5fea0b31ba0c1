//! Several experiments on one pool ([`run_experiments`]) write exactly
//! what each experiment run alone on a pool of its own writes: the same
//! stored runs (apart from measured wall times), the same tables,
//! figures, report sections and `REPRODUCTION.md`. Fake runner (a
//! formula with noise from the seed).

mod common;

use msctp_lab::pipeline::testing::runs_csv_without_wall_time;
use std::path::{Path, PathBuf};

use common::Fake;
use msctp_lab::execute::ExecOptions;
use msctp_lab::experiment::Experiment;
use msctp_lab::pipeline::reproduce::{Selected, run_experiments};
use msctp_lab::{LabOptions, run_experiment, write_reproduction};

fn spec_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake.toml")
}

/// The fake study, and a second one with another id and more noise.
fn experiments() -> Vec<Experiment> {
    let text = std::fs::read_to_string(spec_path()).unwrap();
    let second = text
        .replace("id = \"T1\"", "id = \"T2\"")
        .replace("noise = 0.01", "noise = 0.02");
    let dir = spec_path().parent().unwrap().to_path_buf();
    vec![
        Experiment::from_str(&text, &spec_path(), &dir).unwrap(),
        Experiment::from_str(&second, &dir.join("t2.toml"), &dir).unwrap(),
    ]
}

fn opts(out: &Path, jobs: usize) -> LabOptions {
    let mut o = LabOptions::new(out);
    o.exec = ExecOptions {
        jobs,
        progress: false,
        ..ExecOptions::default()
    };
    o
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn one_pool_writes_what_separate_pools_write() {
    let fake = Fake::default();
    let shared = tempfile::tempdir().unwrap();
    let together = run_experiments(
        experiments()
            .into_iter()
            .map(|exp| Selected {
                exp,
                runner: &fake,
                execute: true,
            })
            .collect(),
        &opts(&shared.path().join("results"), 2),
    )
    .unwrap();
    assert_eq!(fake.count(), 80);
    let ids: Vec<&str> = together.iter().map(|r| r.exp.spec.id.as_str()).collect();
    assert_eq!(
        ids,
        ["T1", "T2"],
        "the experiments come back in the order given"
    );

    let alone = Fake::default();
    let separate = tempfile::tempdir().unwrap();
    let mut each = Vec::new();
    for exp in experiments() {
        let r = run_experiment(
            exp,
            &alone,
            &opts(&separate.path().join("results"), 1),
            true,
        );
        each.push(r.unwrap());
    }
    assert_eq!(alone.count(), 80);

    for (a, b) in together.iter().zip(&each) {
        assert_eq!((a.exec.executed, a.exec.total), (40, 40));
        assert!(a.exec.run_time > std::time::Duration::ZERO);
        assert_eq!(a.analysis.results, b.analysis.results);
        assert_eq!(
            runs_csv_without_wall_time(&read(&a.dir, "runs.csv")),
            runs_csv_without_wall_time(&read(&b.dir, "runs.csv"))
        );
        for f in [
            "summary.csv",
            "report.md",
            "tables/summary.md",
            "figures/throughput.svg",
            "figures/delay.svg",
        ] {
            assert_eq!(read(&a.dir, f), read(&b.dir, f), "{}: {f}", a.exp.spec.id);
        }
    }
    let md_a = write_reproduction(&together, &[], &shared.path().join("docs")).unwrap();
    let md_b = write_reproduction(&each, &[], &separate.path().join("docs")).unwrap();
    assert_eq!(
        std::fs::read_to_string(md_a).unwrap(),
        std::fs::read_to_string(md_b).unwrap()
    );
}

#[test]
fn a_bad_experiment_stops_everything_before_any_run() {
    let fake = Fake::default();
    let dir = tempfile::tempdir().unwrap();
    let mut exps = experiments();
    exps[1]
        .base
        .insert("colour".into(), toml::Value::String("red".into()));
    let e = run_experiments(
        exps.into_iter()
            .map(|exp| Selected {
                exp,
                runner: &fake,
                execute: true,
            })
            .collect(),
        &opts(dir.path(), 2),
    )
    .unwrap_err();
    assert_eq!(e.experiment, "T2");
    assert!(e.error.to_string().contains("colour"), "{}", e.error);
    assert_eq!(
        fake.count(),
        0,
        "runs started before every plan was checked"
    );
}
