//! Every kind of check, passing and failing, on hand-made results.

use std::collections::BTreeMap;

use msctp_lab::aggregate::stats::summarize;
use msctp_lab::aggregate::{CellResult, MetricStats, Results};
use msctp_lab::analysis::FormulaValues;
use msctp_lab::analysis::verdicts::Verdict;
use msctp_lab::experiment::checks::CheckSpec;
use msctp_lab::plan::Point;
use toml::Value;

const VARIANTS: [&str; 3] = ["a", "b", "c"];
const XS: [i64; 4] = [0, 1, 2, 3];

/// mean(variant, x); three samples mean - 0.1, mean, mean + 0.1.
fn results(mean: impl Fn(&str, i64) -> f64) -> Results {
    let mut cells = Vec::new();
    for v in VARIANTS {
        for x in XS {
            let m = mean(v, x);
            let samples = vec![m - 0.1, m, m + 0.1];
            let mut metrics = BTreeMap::new();
            metrics.insert(
                "y".to_string(),
                MetricStats {
                    summary: summarize(&samples).ok(),
                    samples,
                },
            );
            cells.push(CellResult {
                variant: v.to_string(),
                point: Point {
                    coords: vec![("x".to_string(), Value::Integer(x))],
                },
                planned: 3,
                done: 3,
                metrics,
                series: BTreeMap::new(),
            });
        }
    }
    Results {
        experiment: "T".into(),
        cells,
    }
}

fn verdict(check: &str, r: &Results, formulas: &FormulaValues) -> (Verdict, String) {
    let c: CheckSpec = toml::from_str(&format!("metric = \"y\"\nclaim = \"c\"\n{check}")).unwrap();
    let variants: Vec<String> = VARIANTS.iter().map(|s| s.to_string()).collect();
    let axes = vec![(
        "x".to_string(),
        XS.iter().map(|x| Value::Integer(*x)).collect(),
    )];
    let o = c.evaluate(0, r, &variants, &axes, formulas);
    (o.verdict, o.detail)
}

fn agrees(check: &str, r: &Results) {
    let (v, d) = verdict(check, r, &FormulaValues::new());
    assert_eq!(v, Verdict::Agrees, "{check}: {d}");
}

fn disagrees(check: &str, r: &Results) {
    let (v, d) = verdict(check, r, &FormulaValues::new());
    assert_eq!(v, Verdict::Disagrees, "{check}: {d}");
}

#[test]
fn equals_at_most_at_least() {
    // a: 0 everywhere; b: x; c: 10 - x.
    let r = results(|v, x| match v {
        "a" => 0.0,
        "b" => x as f64,
        _ => 10.0 - x as f64,
    });
    agrees("kind = \"equals\"\nvariant = \"a\"\nvalue = 0", &r);
    agrees(
        "kind = \"equals\"\nvariant = \"b\"\nvalue = 1\nat = { x = 1 }",
        &r,
    );
    disagrees("kind = \"equals\"\nvariant = \"b\"\nvalue = 0", &r);
    agrees(
        "kind = \"equals\"\nvariant = \"b\"\nvalue = 1.5\ntol = 1.5",
        &r,
    );
    agrees(
        "kind = \"at_most\"\nvariants = [\"a\", \"b\"]\nvalue = 3",
        &r,
    );
    disagrees("kind = \"at_most\"\nvalue = 3", &r);
    agrees("kind = \"at_least\"\nvariant = \"c\"\nvalue = 7", &r);
    disagrees("kind = \"at_least\"\nvariant = \"c\"\nvalue = 7.5", &r);
    let (_, d) = verdict(
        "kind = \"at_least\"\nvariant = \"c\"\nvalue = 7.5",
        &r,
        &FormulaValues::new(),
    );
    assert!(d.contains("c at x=3: 7.000"), "{d}");
}

#[test]
fn trends() {
    let r = results(|v, x| match v {
        "a" => x as f64,
        "b" => [1.0, 1.2, 1.1, 1.3][x as usize],
        _ => 5.0 - 2.0 * x as f64,
    });
    agrees("kind = \"increasing\"\naxis = \"x\"\nvariant = \"a\"", &r);
    disagrees("kind = \"increasing\"\naxis = \"x\"\nvariant = \"b\"", &r);
    agrees(
        "kind = \"increasing\"\naxis = \"x\"\nvariant = \"b\"\ntol = 0.15",
        &r,
    );
    agrees("kind = \"decreasing\"\naxis = \"x\"\nvariant = \"c\"", &r);
    disagrees("kind = \"decreasing\"\naxis = \"x\"", &r);
    agrees(
        "kind = \"linear\"\naxis = \"x\"\nvariants = [\"a\", \"c\"]\nmin_r2 = 0.999",
        &r,
    );
    disagrees(
        "kind = \"linear\"\naxis = \"x\"\nvariant = \"b\"\nmin_r2 = 0.9",
        &r,
    );
    agrees(
        "kind = \"flat\"\naxis = \"x\"\nvariant = \"b\"\nrel_tol = 0.3",
        &r,
    );
    disagrees(
        "kind = \"flat\"\naxis = \"x\"\nvariant = \"b\"\nrel_tol = 0.1",
        &r,
    );
    disagrees(
        "kind = \"flat\"\naxis = \"x\"\nvariant = \"a\"\nrel_tol = 0.5",
        &r,
    );
}

#[test]
fn comparisons_and_best() {
    // b beats a by 10% everywhere, by 1 (CIs do not overlap);
    // c equals a except at x = 3, where it is lowest.
    let r = results(|v, x| match v {
        "a" => 10.0,
        "b" => 11.0,
        _ => {
            if x == 3 {
                5.0
            } else {
                10.0
            }
        }
    });
    agrees("kind = \"greater\"\na = \"b\"\nb = \"a\"", &r);
    agrees(
        "kind = \"greater\"\na = \"b\"\nb = \"a\"\nmargin = 0.05\nsignificant = true",
        &r,
    );
    disagrees("kind = \"greater\"\na = \"b\"\nb = \"a\"\nmargin = 0.2", &r);
    disagrees("kind = \"greater\"\na = \"a\"\nb = \"b\"", &r);
    agrees("kind = \"less\"\na = \"a\"\nb = \"b\"", &r);
    agrees("kind = \"less\"\na = \"c\"\nb = \"a\"\nat = { x = 3 }", &r);
    disagrees("kind = \"less\"\na = \"c\"\nb = \"a\"", &r);
    agrees("kind = \"best\"\nvariant = \"b\"\norder = \"highest\"", &r);
    disagrees("kind = \"best\"\nvariant = \"a\"\norder = \"highest\"", &r);
    agrees(
        "kind = \"best\"\nvariant = \"c\"\norder = \"lowest\"\nat = { x = 3 }",
        &r,
    );
    agrees(
        "kind = \"best\"\nvariant = \"a\"\norder = \"lowest\"\namong = [\"a\", \"b\"]",
        &r,
    );
    // Significance: means 10 vs 10.05, intervals overlap.
    let close = results(|v, _| if v == "b" { 10.05 } else { 10.0 });
    agrees("kind = \"greater\"\na = \"b\"\nb = \"a\"", &close);
    disagrees(
        "kind = \"greater\"\na = \"b\"\nb = \"a\"\nsignificant = true",
        &close,
    );
    // A failed comparison is said in words, never as the claimed relation.
    let (_, d) = verdict(
        "kind = \"greater\"\na = \"a\"\nb = \"b\"",
        &r,
        &FormulaValues::new(),
    );
    assert!(d.contains("a 10.00 is not > b 11.00"), "{d}");
    let (_, d) = verdict(
        "kind = \"greater\"\na = \"b\"\nb = \"a\"\nsignificant = true",
        &close,
        &FormulaValues::new(),
    );
    assert!(d.contains("b 10.05 > a 10.00, not significant"), "{d}");
}

#[test]
fn within_a_formula() {
    let r = results(|_, x| 2.0 * x as f64 + 0.1);
    let mut f = FormulaValues::new();
    for v in VARIANTS {
        for x in XS {
            f.insert(
                ("lin".into(), v.into(), format!("x={x}")),
                Ok(2.0 * x as f64),
            );
        }
    }
    let (v, d) = verdict(
        "kind = \"within\"\nformula = \"lin\"\nabs_tol = 0.11",
        &r,
        &f,
    );
    assert_eq!(v, Verdict::Agrees, "{d}");
    let (v, d) = verdict(
        "kind = \"within\"\nformula = \"lin\"\nabs_tol = 0.05",
        &r,
        &f,
    );
    assert_eq!(v, Verdict::Disagrees, "{d}");
    // Relative: at x = 0 the formula is 0, so 0.1 off is outside any
    // relative tolerance; from x = 1 on 0.1 / 2 = 5%.
    let (v, _) = verdict(
        "kind = \"within\"\nformula = \"lin\"\nrel_tol = 0.06\nat = { x = 1 }",
        &r,
        &f,
    );
    assert_eq!(v, Verdict::Agrees);
    let (v, _) = verdict(
        "kind = \"within\"\nformula = \"lin\"\nrel_tol = 0.06",
        &r,
        &f,
    );
    assert_eq!(v, Verdict::Disagrees);
    // A formula that failed to evaluate: not evaluated.
    f.insert(
        ("lin".into(), "a".into(), "x=0".into()),
        Err("metric missing".into()),
    );
    let (v, d) = verdict("kind = \"within\"\nformula = \"lin\"\nabs_tol = 1", &r, &f);
    assert_eq!(v, Verdict::NotEvaluated);
    assert!(d.contains("metric missing"), "{d}");
}

#[test]
fn missing_results_are_not_evaluated() {
    let mut r = results(|_, _| 1.0);
    r.cells
        .retain(|c| !(c.variant == "b" && c.point.label() == "x=2"));
    let (v, d) = verdict(
        "kind = \"greater\"\na = \"a\"\nb = \"b\"",
        &r,
        &FormulaValues::new(),
    );
    assert_eq!(v, Verdict::NotEvaluated);
    assert!(d.contains("no results for b at x=2"), "{d}");
    let (v, _) = verdict(
        "kind = \"equals\"\nvariant = \"b\"\nvalue = 1\nat = { x = 2 }",
        &r,
        &FormulaValues::new(),
    );
    assert_eq!(v, Verdict::NotEvaluated);
    // A metric no run reported.
    let mut r = results(|_, _| 1.0);
    for c in &mut r.cells {
        c.metrics.get_mut("y").unwrap().summary = None;
    }
    let (v, d) = verdict("kind = \"at_most\"\nvalue = 2", &r, &FormulaValues::new());
    assert_eq!(v, Verdict::NotEvaluated);
    assert!(d.contains("not measured"), "{d}");
}
