//! `msctp run` and `msctp sweep` behind the CLI, with the synthetic runner.

use msctp_lab::execute::ExecOptions;
use msctp_lab::pipeline::adhoc::{
    parse_param, read_scenario, run_scenario_reps, sweep, sweep_experiment,
};
use msctp_lab::runner::synthetic::SyntheticRunner;
use msctp_lab::{LabError, LabOptions};

const SCENARIO: &str = "name = \"demo\"\nseed = 42\n[synthetic]\nx = 1\n[synthetic.metrics.y]\nintercept = 1\nslope = 2\nnoise = 0.1\n[synthetic.metrics.z]\nintercept = 5\n";

#[test]
fn sweep_is_a_resumable_cartesian_product() {
    let dir = tempfile::tempdir().unwrap();
    let sc = dir.path().join("demo.toml");
    std::fs::write(&sc, SCENARIO).unwrap();
    let params = vec![
        parse_param("synthetic.x=0,1,2").unwrap(),
        parse_param("synthetic.metrics.z.intercept=5,6").unwrap(),
    ];
    let mut opts = LabOptions::new(dir.path().join("out"));
    opts.exec = ExecOptions {
        jobs: 2,
        progress: false,
        ..ExecOptions::default()
    };
    let exp = sweep_experiment(&sc, &params, 4, "synthetic").unwrap();
    let s = sweep(exp.clone(), &SyntheticRunner, &opts).unwrap();
    assert_eq!(s.exec.executed, 3 * 2 * 4);
    assert_eq!(s.results.cells.len(), 6);
    let c = &s.results.cells[5];
    assert_eq!(
        c.point.label(),
        "synthetic.x=2, synthetic.metrics.z.intercept=6"
    );
    assert_eq!(c.mean("z"), Some(6.0));
    assert!((c.mean("y").unwrap() - 5.0).abs() < 0.3);
    assert!(c.summary("y").unwrap().ci95_half_width.unwrap() > 0.0);
    let again = sweep(exp, &SyntheticRunner, &opts).unwrap();
    assert_eq!(again.exec.executed, 0);
    assert!(dir.path().join("out/sweep-demo/runs.csv").exists());
    assert!(dir.path().join("out/sweep-demo/summary.csv").exists());

    // Bad sweeps.
    let e =
        sweep_experiment(&sc, &[params[0].clone(), params[0].clone()], 4, "synthetic").unwrap_err();
    assert!(e.to_string().contains("given twice"), "{e}");
    let bad = vec![parse_param("synthetic.w=1,2").unwrap()];
    let exp = sweep_experiment(&sc, &bad, 2, "synthetic").unwrap();
    let e = sweep(exp, &SyntheticRunner, &opts).unwrap_err().to_string();
    assert!(e.contains("synthetic.w"), "{e}");
    let e = sweep_experiment(&dir.path().join("nope.toml"), &params, 2, "synthetic").unwrap_err();
    assert!(matches!(e, LabError::Io { .. }));
}

#[test]
fn run_repetitions_use_consecutive_seeds() {
    let dir = tempfile::tempdir().unwrap();
    let sc = dir.path().join("demo.toml");
    std::fs::write(&sc, SCENARIO).unwrap();
    let s = read_scenario(&sc).unwrap();
    let out =
        run_scenario_reps(&SyntheticRunner, &s, 42, 3, 2, Some(&dir.path().join("o"))).unwrap();
    let seeds: Vec<u64> = out.iter().map(|(s, _)| *s).collect();
    assert_eq!(seeds, vec![42, 43, 44]);
    assert!(out.iter().all(|(_, r)| r.is_ok()));
    assert!(dir.path().join("o/seed-43").is_dir());
    assert!(run_scenario_reps(&SyntheticRunner, &s, 1, 0, 1, None).is_err());
    std::fs::write(&sc, "[synthetic]\nq = 1\n").unwrap();
    let s = read_scenario(&sc).unwrap();
    let e = run_scenario_reps(&SyntheticRunner, &s, 1, 1, 1, None).unwrap_err();
    assert!(e.to_string().contains("synthetic.q"), "{e}");
}
