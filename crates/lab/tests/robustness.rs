//! Robustness maps end to end on the synthetic runner, whose claims'
//! dependence on the declared parameters is known.

use std::path::Path;

use msctp_lab::Experiment;
use msctp_lab::Study;
use msctp_lab::execute::ExecOptions;
use msctp_lab::pipeline::reproduce::LabOptions;
use msctp_lab::pipeline::robustness::run_maps;
use msctp_lab::robustness::{RobustnessMap, derive};
use msctp_lab::runner::synthetic::SyntheticRunner;

/// `y = a + b x` without noise, swept over x in {0, 1}; `a` ranges over
/// [0, 2] and `b` over [0, 0.001]: "y >= 1 everywhere" holds exactly when
/// a >= 1 (the upper half of a's range, whatever b), so it holds in half
/// the space and moves with `a` alone (index +1). "y >= -1" holds
/// everywhere. The variant `other` is not in the map.
const EXP: &str = r#"
id = "R1"
title = "Synthetic robustness"
runner = "synthetic"
repetitions = 2
scenario = { synthetic = { x = 0, metrics = { y = { intercept = 1.5, slope = 0.0005 } } } }

[[variants]]
name = "main"

[[variants]]
name = "other"

[[axes]]
name = "x"
key = "synthetic.x"
values = [0, 1, 2]
quick_values = [0, 1]

[[metrics]]
name = "y"

[[checks]]
kind = "at_least"
metric = "y"
variant = "main"
value = 1.0
claim = "y is at least 1 everywhere"

[[checks]]
kind = "at_least"
metric = "y"
variant = "main"
value = -1.0
claim = "y is at least -1 everywhere"

[[checks]]
kind = "greater"
metric = "y"
a = "main"
b = "other"
claim = "main above other"

[[checks]]
kind = "at_least"
metric = "y"
variant = "main"
value = 0.0
at = { x = 2 }
claim = "at x = 2 only"

[robustness]
variants = ["main"]

[[robustness.params]]
name = "a"
key = "synthetic.metrics.y.intercept"
min = 0.0
max = 2.0
reason = "the paper gives no intercept"

[[robustness.params]]
name = "b"
key = "synthetic.metrics.y.slope"
min = 0.0
max = 0.001
reason = "the paper gives no slope"
"#;

fn exp() -> Experiment {
    Experiment::from_str(EXP, Path::new("r1.toml"), Path::new(".")).unwrap()
}

fn opts(out: &Path) -> LabOptions {
    let mut o = LabOptions::new(out);
    o.exec = ExecOptions {
        jobs: 2,
        progress: false,
        ..ExecOptions::default()
    };
    o
}

#[test]
fn a_tiny_map_reports_share_interval_and_the_parameter_that_moves_it() {
    let dir = tempfile::tempdir().unwrap();
    let runner = SyntheticRunner;
    let maps = run_maps(vec![(exp(), &runner)], 16, true, &opts(dir.path())).unwrap();
    let m = &maps[0].map;
    // 16 points x 1 mapped variant x 2 quick x values x 2 quick reps.
    assert_eq!((m.stored, m.planned), (64, 64));
    assert_eq!(maps[0].run.exec.executed, 64);
    let c = &m.claims[0];
    assert_eq!((c.holds, c.evaluated), (8, 16), "{:?}", c.verdicts);
    let (lo, hi) = (c.low.unwrap(), c.high.unwrap());
    assert!(
        (lo - 0.2800).abs() < 1e-3 && (hi - 0.7200).abs() < 1e-3,
        "{lo} {hi}"
    );
    assert_eq!(c.sensitivity[0], Some(1.0));
    assert_eq!(c.by_influence()[0], 0);
    assert_eq!(m.influence_text(c), "a (+1.00)");
    // Point by point: holds exactly where a >= 1.
    for (i, v) in c.verdicts.iter().enumerate() {
        let a = m.values[i][0].as_float().unwrap();
        assert_eq!(v == "agrees", a >= 1.0, "point {i}: a = {a}");
    }
    let always = &m.claims[1];
    assert_eq!((always.holds, always.evaluated), (16, 16));
    assert_eq!(always.sensitivity, vec![Some(0.0), Some(0.0)]);
    assert_eq!(m.influence_text(always), "-");
    // Not mapped: a variant outside the map, a point outside the quick sweep.
    let why: Vec<&str> = m.unmapped.iter().map(|u| u.why.as_str()).collect();
    assert_eq!(m.unmapped.len(), 2, "{why:?}");
    assert!(why[0].contains("variant `other`"), "{}", why[0]);
    assert!(why[1].contains("quick sweep"), "{}", why[1]);
    // Written and read back; the figure drawn.
    let dirm = RobustnessMap::dir(dir.path(), "R1");
    let back = RobustnessMap::load(dir.path(), "R1").unwrap();
    assert_eq!((&back.claims, &back.unmapped), (&m.claims, &m.unmapped));
    // (JSON keeps floats to within their last bit.)
    assert!(
        back.u
            .iter()
            .flatten()
            .zip(m.u.iter().flatten())
            .all(|(a, b)| (a - b).abs() < 1e-15)
    );
    let csv = std::fs::read_to_string(dirm.join("robustness.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 2 * 16);
    assert!(csv.starts_with("point,a,b,check,claim,expect,verdict,holds"));
    assert!(dirm.join("figures/robustness.png").is_file());
    assert!(
        m.text().contains("holds 8/16 (50%, 95% CI 28%-72%)"),
        "{}",
        m.text()
    );

    // Again: every run is found in the store.
    let again = run_maps(vec![(exp(), &runner)], 16, true, &opts(dir.path())).unwrap();
    assert_eq!(again[0].run.exec.executed, 0);
    assert_eq!(&again[0].map, m);
}

/// The map is an experiment: its runs are those of a `Study`, so
/// `--shard` and the Python package's executors run them; a map built
/// from runs stored by shards equals the one run in one go.
#[test]
fn shards_of_the_map_merge_into_the_same_map() {
    let whole = tempfile::tempdir().unwrap();
    let runner = SyntheticRunner;
    let one = run_maps(vec![(exp(), &runner)], 8, true, &opts(whole.path())).unwrap();
    let split = tempfile::tempdir().unwrap();
    let mapped = derive(&exp(), 8).unwrap();
    let study = Study::open_default(mapped.exp.clone(), opts(split.path())).unwrap();
    for i in 1..=3 {
        let shard = msctp_lab::Shard::new(i, 3).unwrap();
        study.execute(&study.runs(Some(shard))).unwrap();
    }
    let merged = run_maps(vec![(exp(), &runner)], 8, false, &opts(split.path())).unwrap();
    assert_eq!(merged[0].run.exec.executed, 0);
    assert_eq!(merged[0].map, one[0].map);
}

#[test]
fn unknown_keys_and_refused_extremes_are_named() {
    let bad = EXP.replace(
        "key = \"synthetic.metrics.y.slope\"",
        "key = \"synthetic.metrics.y.slop\"",
    );
    let e = Experiment::from_str(&bad, Path::new("r1.toml"), Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("r1.toml") && e.contains("unknown key path `synthetic.metrics.y.slop`"),
        "{e}"
    );
    let bad = EXP.replace("max = 0.001", "max = 0.001\ninteger = true");
    let e = Experiment::from_str(&bad, Path::new("r1.toml"), Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(e.contains("r1.toml") && e.contains("(b)"), "{e}");
    let bad = EXP.replace(
        "name = \"x\"\nkey = \"synthetic.x\"",
        "name = \"x\"\nkey = \"synthetic.metrics.y.slope\"",
    );
    let e = Experiment::from_str(&bad, Path::new("r1.toml"), Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(e.contains("sweep axis"), "{e}");
}
