//! End-to-end tests of the experiment layer with a fake runner: parsing,
//! planning and seeds, execution and resumption, statistics, CSV, checks,
//! plots and the report.

mod common;

use std::path::{Path, PathBuf};

use common::Fake;
use msctp_lab::execute::ExecOptions;
use msctp_lab::experiment::Experiment;
use msctp_lab::plan::plan;
use msctp_lab::{LabError, LabOptions, run_experiment, write_reproduction};

fn spec_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake.toml")
}

fn load() -> Experiment {
    Experiment::load(&spec_path()).unwrap()
}

fn opts(out: &Path, quick: bool) -> LabOptions {
    LabOptions {
        quick,
        repetitions: None,
        exec: ExecOptions {
            jobs: 2,
            progress: false,
            ..ExecOptions::default()
        },
        out: out.to_path_buf(),
        plots: true,
        max_runs: 1000,
    }
}

#[test]
fn full_run_then_resume_executes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let fake = Fake::default();
    let run = run_experiment(load(), &fake, &opts(dir.path(), false), true).unwrap();
    // 2 variants x 4 points x 5 repetitions.
    assert_eq!(run.exec.total, 40);
    assert_eq!(run.exec.executed, 40);
    assert_eq!(run.exec.cached, 0);
    assert_eq!(fake.count(), 40);
    assert!(run.failed().is_empty());

    // Every check verdict is the one the file expects.
    for c in &run.analysis.checks {
        assert!(c.as_expected(), "{c:?}");
    }

    // A second invocation finds every run stored.
    let again = run_experiment(load(), &fake, &opts(dir.path(), false), true).unwrap();
    assert_eq!(again.exec.executed, 0);
    assert_eq!(again.exec.cached, 40);
    assert_eq!(fake.count(), 40);
    assert_eq!(again.analysis.results, run.analysis.results);

    // Quick mode uses a subset of the same seeds: nothing to run.
    let quick = run_experiment(load(), &fake, &opts(dir.path(), true), true).unwrap();
    assert_eq!(quick.exec.total, 2 * 2 * 2);
    assert_eq!(quick.exec.executed, 0);
    assert_eq!(fake.count(), 40);

    // Outputs.
    let d = dir.path().join("T1");
    let csv = std::fs::read_to_string(d.join("runs.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines.len(),
        1 + 2 * 2 * 2,
        "runs.csv follows the last plan (quick)"
    );
    assert_eq!(
        lines[0],
        "experiment,variant,handoffs,repetition,seed,run_key,wall_time_s,delay_s,goodput_bps,handoff_delay_s"
    );
    assert!(lines[1].starts_with("T1,mip-tcp,0,0,"));
    assert_eq!(std::fs::read_dir(d.join("runs")).unwrap().count(), 40);
    let sc = std::fs::read_to_string(d.join("scenarios/msctp@handoffs=6.toml")).unwrap();
    let sc: toml::Table = toml::from_str(&sc).unwrap();
    assert_eq!(sc["stack"].as_str(), Some("sctp"));
    assert_eq!(sc["x"].as_integer(), Some(6));
    let summary = std::fs::read_to_string(d.join("summary.csv")).unwrap();
    assert!(summary.starts_with("variant,handoffs,metric,n,planned,mean,std_dev,ci95,min,max\n"));
    for f in ["throughput", "delay"] {
        for ext in ["png", "svg"] {
            let p = d.join("figures").join(format!("{f}.{ext}"));
            let len = std::fs::metadata(&p).unwrap().len();
            assert!(len > 1000, "{} is {len} bytes", p.display());
        }
    }
    let png = std::fs::read(d.join("figures/delay.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let svg = std::fs::read_to_string(d.join("figures/delay.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("MIP + TCP") && svg.contains("Handoff rate"));
    let table = std::fs::read_to_string(d.join("tables/summary.md")).unwrap();
    assert!(table.contains("| Variant | Handoff rate (handoffs / 600 s) | Throughput (Mbit/s) | paper: Throughput (Mbit/s) | Total handoff delay (s) | analytic: T_MIP = T_ad + T_reg (s) |"), "{table}");
    assert!(table.contains("| MIP + TCP | 6 | "), "{table}");
    let report = std::fs::read_to_string(d.join("report.md")).unwrap();
    assert!(report.contains("quick mode"), "{report}");
}

#[test]
fn statistics_are_student_t_intervals() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_experiment(load(), &Fake::default(), &opts(dir.path(), false), true).unwrap();
    let cell = run
        .analysis
        .results
        .cells
        .iter()
        .find(|c| c.variant == "mip-tcp" && c.point.label() == "handoffs=4")
        .unwrap();
    let st = &cell.metrics["throughput_mbps"];
    assert_eq!(st.samples.len(), 5);
    let n = 5.0;
    let mean = st.samples.iter().sum::<f64>() / n;
    let var = st.samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    // t_{0.975, 4} = 2.776445 (tables).
    let half = 2.776_445 * var.sqrt() / n.sqrt();
    let s = st.summary.unwrap();
    assert!((s.mean - mean).abs() < 1e-12);
    assert!((s.ci95_half_width.unwrap() - half).abs() < 1e-6 * half.max(1e-12));
    // Mean near the model (0.8 Mbit/s at x = 4, 1% noise).
    assert!((s.mean - 0.8).abs() < 0.03, "{}", s.mean);
    // The published comparison: 1.024 at 0 agrees with ~1.0 within 10%,
    // 2.0 at 6 differs.
    let p = &run.analysis.published;
    assert_eq!(p[0].verdict.word(), "agrees");
    assert_eq!(p[1].verdict.word(), "differs");
    assert!(p[1].relative_difference.unwrap() < -0.5);
    // The analytic formula at 6 handoffs: 6 x 0.75 = 4.5 s.
    let f = &run.analysis.formulas[&(
        "t_mip".to_string(),
        "mip-tcp".to_string(),
        "handoffs=6".to_string(),
    )];
    assert_eq!(*f.as_ref().unwrap(), 4.5);
    assert!(!run.analysis.formulas.contains_key(&(
        "t_mip".to_string(),
        "msctp".to_string(),
        "handoffs=6".to_string()
    )));
}

#[test]
fn seeds_are_stable_when_variants_or_values_are_added() {
    let exp = load();
    let p1 = plan(&exp, false, None, &Fake::default()).unwrap();
    let text = std::fs::read_to_string(spec_path())
        .unwrap()
        .replace("values = [0, 2, 4, 6]", "values = [0, 2, 4, 6, 8]")
        + "\n[[variants]]\nname = \"mip-sctp\"\nset = { stack = \"sctp2\" }\n";
    let exp2 = Experiment::from_str(&text, &spec_path(), Path::new(".")).unwrap();
    let p2 = plan(&exp2, false, None, &Fake::default()).unwrap();
    assert_eq!(p2.runs.len(), 3 * 5 * 5);
    for r in &p1.runs {
        let c = &p1.cells[r.cell];
        let twin = p2
            .runs
            .iter()
            .find(|q| {
                let d = &p2.cells[q.cell];
                d.variant == c.variant && d.point == c.point && q.repetition == r.repetition
            })
            .unwrap();
        assert_eq!(twin.seed, r.seed);
        assert_eq!(twin.key, r.key);
    }
    // All seeds distinct.
    let mut seeds: Vec<u64> = p2.runs.iter().map(|r| r.seed).collect();
    seeds.sort();
    seeds.dedup();
    assert_eq!(seeds.len(), p2.runs.len());
    // Another model version gives other keys, same seeds.
    let p3 = plan(
        &exp,
        false,
        None,
        &Fake {
            fingerprint: "v2".into(),
            ..Fake::default()
        },
    )
    .unwrap();
    assert_eq!(p3.runs[0].seed, p1.runs[0].seed);
    assert_ne!(p3.runs[0].key, p1.runs[0].key);
    // Common random numbers: variants share seeds.
    let text = std::fs::read_to_string(spec_path()).unwrap().replacen(
        "repetitions = 5\n",
        "repetitions = 5\nseeds = \"common\"\n",
        1,
    );
    let exp4 = Experiment::from_str(&text, &spec_path(), Path::new(".")).unwrap();
    let p4 = plan(&exp4, false, None, &Fake::default()).unwrap();
    let a = p4
        .runs
        .iter()
        .find(|r| p4.cells[r.cell].variant == "mip-tcp")
        .unwrap();
    let b = p4
        .runs
        .iter()
        .find(|r| {
            p4.cells[r.cell].variant == "msctp"
                && p4.cells[r.cell].point == p4.cells[a.cell].point
                && r.repetition == a.repetition
        })
        .unwrap();
    assert_eq!(a.seed, b.seed);
    assert_ne!(a.key, b.key, "different scenarios, different keys");
}

#[test]
fn failed_and_panicking_runs_are_reported_and_retried() {
    let dir = tempfile::tempdir().unwrap();
    let fake = Fake {
        fail_stack: Some("sctp".into()),
        ..Fake::default()
    };
    let mut o = opts(dir.path(), true);
    o.plots = false;
    let run = run_experiment(load(), &fake, &o, true).unwrap();
    assert_eq!(run.exec.executed, 4);
    assert_eq!(run.failed().len(), 4);
    assert!(
        run.failed()[0].what.starts_with("msctp at handoffs="),
        "{}",
        run.failed()[0].what
    );
    assert!(run.failed()[0].error.to_string().contains("no route"));
    // The mSCTP claims cannot be evaluated.
    let eq = &run.analysis.checks[0];
    assert_eq!(eq.verdict.word(), "not evaluated");
    assert!(!eq.as_expected());

    let panicky = Fake {
        panic_stack: Some("sctp".into()),
        ..Fake::default()
    };
    let run = run_experiment(load(), &panicky, &o, true).unwrap();
    assert_eq!(panicky.count(), 4, "only the missing runs are retried");
    assert_eq!(run.failed().len(), 4);
    assert!(run.failed()[0].error.to_string().contains("model bug"));

    let good = Fake::default();
    let run = run_experiment(load(), &good, &o, true).unwrap();
    assert_eq!(good.count(), 4);
    assert!(run.failed().is_empty());
    assert!(run.analysis.checks.iter().all(|c| c.as_expected()));
}

#[test]
fn damaged_store_files_are_rerun() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path(), true);
    o.plots = false;
    let fake = Fake::default();
    run_experiment(load(), &fake, &o, true).unwrap();
    assert_eq!(fake.count(), 8);
    let runs = dir.path().join("T1/runs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    // A truncated file (interrupted writer without atomic rename), a
    // temporary file an interrupted writer left long ago, and one another
    // process (a shard of a job array) is writing now.
    std::fs::write(&files[0], "{\"format\": 1, \"key\"").unwrap();
    std::fs::write(runs.join("x.json.1.tmp"), "partial").unwrap();
    let long_ago = std::time::SystemTime::now() - msctp_lab::store::STALE_TMP * 2;
    std::fs::File::options()
        .write(true)
        .open(runs.join("x.json.1.tmp"))
        .unwrap()
        .set_modified(long_ago)
        .unwrap();
    std::fs::write(runs.join("y.json.2.tmp"), "being written").unwrap();
    run_experiment(load(), &fake, &o, true).unwrap();
    assert_eq!(fake.count(), 9);
    assert!(!runs.join("x.json.1.tmp").exists());
    assert!(runs.join("y.json.2.tmp").exists());
    // --fresh runs everything again.
    o.exec.fresh = true;
    run_experiment(load(), &fake, &o, true).unwrap();
    assert_eq!(fake.count(), 17);
}

#[test]
fn reproduction_report_is_generated() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_experiment(
        load(),
        &Fake::default(),
        &opts(&dir.path().join("results"), false),
        true,
    )
    .unwrap();
    let docs = dir.path().join("docs");
    let p = write_reproduction(
        std::slice::from_ref(&run),
        &[("E9".to_string(), "no experiment file".to_string())],
        &docs,
    )
    .unwrap();
    let md = std::fs::read_to_string(p).unwrap();
    assert!(md.starts_with("# Reproduction of the mobility studies"));
    assert!(
        md.contains(
            "| [T1: A fake handoff study](#t1-a-fake-handoff-study) | 40/40 | 9/9 | 1/2 | full |"
        ),
        "{md}"
    );
    assert!(md.contains("| E9 | not reported: no experiment file |"));
    assert!(md.contains("![Uplink throughput](figures/T1/throughput.png)"));
    assert!(docs.join("figures/T1/throughput.png").exists());
    assert!(docs.join("figures/T1/delay.svg").exists());
    // Published beside ours, plainly.
    assert!(
        md.contains("| MIP + TCP | handoffs=6 | Throughput (Mbit/s) | 2.000 | "),
        "{md}"
    );
    assert!(
        md.contains("| **differs** | Fig. 5 | The fake paper's number is made up. |"),
        "{md}"
    );
    // Analytic beside measured.
    assert!(md.contains("| T_MIP = T_ad + T_reg | MIP + TCP | handoffs=6 | 4.500 | 4.500 ± 0 (delay_s) | 1.000 |"), "{md}");
    // Claims with verdicts, the known difference marked.
    assert!(md.contains("| mSCTP has zero handoff delay at every rate | Fig. 7 | agrees |"));
    assert!(
        md.contains(
            "| A claim we know we do not reproduce |  | **disagrees** (known difference) |"
        )
    );
    assert!(md.contains("Our model has no such effect."));
    // A formula on the left of a comparison: named by its id.
    assert!(
        md.contains("| The bound is under half the measured delay |  | agrees | at handoffs=6: `t_low` 1.200 < mip-tcp 4.500"),
        "{md}"
    );
    assert!(md.contains("- **throughput at 6 handoffs**: The fake paper's value is invented"));
    assert!(!md.contains("quick mode"));
}

#[test]
fn runner_mismatch_and_bad_overrides_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let o = opts(dir.path(), true);
    let e = run_experiment(
        load(),
        &msctp_lab::runner::synthetic::SyntheticRunner,
        &o,
        true,
    )
    .unwrap_err();
    assert!(matches!(e, LabError::Runner { .. }));
    assert!(e.to_string().contains("runner `fake`"), "{e}");

    // An override into a string.
    let text = std::fs::read_to_string(spec_path()).unwrap().replace(
        "set = { stack = \"tcp\" }",
        "set = { \"stack.kind\" = \"tcp\" }",
    );
    let exp = Experiment::from_str(&text, &spec_path(), Path::new(".")).unwrap();
    let e = run_experiment(exp, &Fake::default(), &o, true)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("variant `mip-tcp`") && e.contains("`stack` is string"),
        "{e}"
    );

    // The runner refuses a key (validated before any run).
    let text = std::fs::read_to_string(spec_path())
        .unwrap()
        .replace("set = { stack = \"tcp\" }", "set = { stak = \"tcp\" }");
    let exp = Experiment::from_str(&text, &spec_path(), Path::new(".")).unwrap();
    let fake = Fake::default();
    let e = run_experiment(exp, &fake, &o, true)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("variant `mip-tcp` at handoffs=0") && e.contains("unknown key `stak`"),
        "{e}"
    );
    assert_eq!(fake.count(), 0);

    // Too many runs are refused before planning.
    let text = std::fs::read_to_string(spec_path())
        .unwrap()
        .replace("quick_repetitions = 2", "quick_repetitions = 2000");
    let exp = Experiment::from_str(&text, &spec_path(), Path::new(".")).unwrap();
    let e = run_experiment(exp, &fake, &o, true)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("8000 runs planned, more than the limit 1000"),
        "{e}"
    );
}

#[test]
fn categorical_axes_time_series_and_tables() {
    use msctp_lab::{FnRunner, RunRecord};
    let text = r#"
id = "T2"
title = "Patterns"
runner = "fn"
repetitions = 3
scenario = { pattern = "cross-over", policy = "aa" }

[[variants]]
name = "aggressive"
set = { policy = "aa" }
[[variants]]
name = "conservative"
set = { policy = "cc" }

[[axes]]
name = "pattern"
key = "pattern"
values = ["cross-over", "random"]

[[metrics]]
name = "delivery_s"
label = "File delivery time"
unit = "s"

[[figures]]
id = "bars"
title = "Delivery time by pattern"
x = "pattern"
y = "delivery_s"

[[figures]]
id = "stations"
title = "Stations on the WLAN"
series = ["wlan"]
where = { pattern = "random" }
y_label = "Stations"

[[tables]]
id = "t"
title = "Delivery time"
rows = ["pattern", "variant"]
columns = ["delivery_s"]
decimals = 1

[[checks]]
kind = "best"
metric = "delivery_s"
variant = "aggressive"
order = "lowest"
claim = "aggressive is fastest in both patterns"
"#;
    let exp = Experiment::from_str(text, Path::new("t2.toml"), Path::new(".")).unwrap();
    let runner = FnRunner::new("fn", |s: &toml::Table, seed: u64| {
        let base = if s["policy"].as_str() == Some("aa") {
            100.0
        } else {
            110.0
        };
        let extra = if s["pattern"].as_str() == Some("random") {
            20.0
        } else {
            0.0
        };
        let t = base + extra + (seed % 7) as f64;
        Ok(RunRecord::new().with_metric("delivery_s", t).with_series(
            "wlan",
            (0..50)
                .map(|i| (i as f64, (i % 10) as f64 + (seed % 3) as f64))
                .collect(),
        ))
    });
    let dir = tempfile::tempdir().unwrap();
    let run = run_experiment(exp, &runner, &opts(dir.path(), false), true).unwrap();
    assert!(
        run.analysis.checks[0].as_expected(),
        "{:?}",
        run.analysis.checks[0]
    );
    let d = dir.path().join("T2");
    for f in ["bars.png", "bars.svg", "stations.png", "stations.svg"] {
        assert!(
            std::fs::metadata(d.join("figures").join(f)).unwrap().len() > 1000,
            "{f}"
        );
    }
    let svg = std::fs::read_to_string(d.join("figures/bars.svg")).unwrap();
    assert!(
        svg.contains("cross-over") && svg.contains("random"),
        "category labels"
    );
    let svg = std::fs::read_to_string(d.join("figures/stations.svg")).unwrap();
    assert!(svg.contains("mean of 3"), "series legend says it is a mean");
    let table = std::fs::read_to_string(d.join("tables/t.md")).unwrap();
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("| ")).collect();
    assert_eq!(rows[0], "| pattern | Variant | File delivery time (s) |");
    assert!(
        rows[1].starts_with("| cross-over | aggressive | 10"),
        "{table}"
    );
    assert!(
        rows[2].starts_with("| cross-over | conservative | 11"),
        "{table}"
    );
    assert!(rows[3].starts_with("| random | aggressive | 12"), "{table}");
    assert!(rows[1].contains(" ± "), "{table}");
}

#[test]
fn one_line_per_value_of_a_second_axis() {
    use msctp_lab::{FnRunner, RunRecord};
    let text = r#"
id = "T3"
title = "Failover"
runner = "fn"
repetitions = 2
scenario = { pmr = 0, traffic = "bulk", pair = "wlan-umts" }

[[axes]]
name = "pmr"
key = "pmr"
values = [0, 1, 2, 3]
[[axes]]
name = "traffic"
label = "Traffic"
key = "traffic"
values = ["cbr45", "bulk"]
[[axes]]
name = "pair"
key = "pair"
values = ["wlan-umts", "geran-wlan"]

[[metrics]]
name = "latency_s"

[[formulas]]
id = "f"
kind = "failover_time"
params = { rto = 0.1, pmr = { axis = "pmr" } }

[[figures]]
id = "latency"
title = "Handover latency"
x = "pmr"
y = "latency_s"
lines = "traffic"
where = { pair = "wlan-umts" }
formulas = ["f"]
"#;
    let exp = Experiment::from_str(text, Path::new("t3.toml"), Path::new(".")).unwrap();
    let runner = FnRunner::new("fn", |s: &toml::Table, _seed: u64| {
        let pmr = s["pmr"].as_integer().unwrap_or(0) as i32;
        Ok(RunRecord::new().with_metric("latency_s", 0.1 * (2f64.powi(pmr + 1) - 1.0)))
    });
    let dir = tempfile::tempdir().unwrap();
    let run = run_experiment(exp.clone(), &runner, &opts(dir.path(), false), true).unwrap();
    let fig = &exp.spec.figures[0];
    let data = msctp_lab::report::plot::figure_data(&exp, &run.plan, &run.analysis, fig);
    let labels: Vec<&str> = data.lines.iter().map(|l| l.label.as_str()).collect();
    assert_eq!(
        labels,
        vec![
            "Traffic = cbr45",
            "f (Traffic = cbr45)",
            "Traffic = bulk",
            "f (Traffic = bulk)"
        ]
    );
    assert_eq!(data.lines[0].points.len(), 4);
    assert_eq!(data.lines[0].points[3].1, 1.5);
    assert_eq!(
        data.lines[1].points[3].1, 1.5,
        "formula RTO (2^(PMR+1) - 1)"
    );
    assert!(data.lines[1].dashed);

    let bad = text.replace("lines = \"traffic\"", "lines = \"pmr\"");
    let e = Experiment::from_str(&bad, Path::new("t3.toml"), Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(e.contains("lines axis `pmr`"), "{e}");
    let bad = text.replace("where = { pair = \"wlan-umts\" }\n", "");
    let e = Experiment::from_str(&bad, Path::new("t3.toml"), Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(e.contains("axis `pair` has several values"), "{e}");
}

#[test]
fn paired_relative_metrics() {
    let text = std::fs::read_to_string(spec_path()).unwrap().replacen(
        "repetitions = 5\n",
        "repetitions = 5\nseeds = \"common\"\n",
        1,
    ) + "\n[[metrics]]\nname = \"gain\"\nfrom = \"goodput_bps\"\nrelative_to = \"mip-tcp\"\n\
           \n[[metrics]]\nname = \"extra_delay_s\"\nfrom = \"delay_s\"\nrelative_to = \"msctp\"\nrelation = \"difference\"\n";
    let exp = Experiment::from_str(&text, &spec_path(), Path::new(".")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path(), false);
    o.plots = false;
    let run = run_experiment(exp, &Fake::default(), &o, true).unwrap();
    let cell = |v: &str, x: &str| {
        run.analysis
            .results
            .cells
            .iter()
            .find(|c| c.variant == v && c.point.label() == format!("handoffs={x}"))
            .unwrap()
    };
    // Same seeds, same noise factor: the ratio is exact, its CI zero.
    let g = cell("msctp", "4").summary("gain").unwrap();
    assert!((g.mean - 1.2 / 0.8).abs() < 1e-9, "{}", g.mean);
    assert!(g.ci95_half_width.unwrap() < 1e-9);
    assert_eq!(g.n, 5);
    assert!((cell("mip-tcp", "4").mean("gain").unwrap() - 1.0).abs() < 1e-12);
    assert!((cell("mip-tcp", "6").mean("extra_delay_s").unwrap() - 4.5).abs() < 1e-12);

    let bad = text.replace("relative_to = \"mip-tcp\"", "relative_to = \"tcp\"");
    let e = Experiment::from_str(&bad, &spec_path(), Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(e.contains("relative_to: unknown variant `tcp`"), "{e}");
}
