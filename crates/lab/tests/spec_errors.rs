//! Strict validation of experiment files: every mistake is refused with
//! a message that names the key.

use std::path::Path;

use msctp_lab::experiment::Experiment;

const BASE: &str = include_str!("fake.toml");

fn err(text: &str) -> String {
    match Experiment::from_str(text, Path::new("e.toml"), Path::new(".")) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn with(find: &str, replace: &str) -> String {
    assert!(BASE.contains(find), "fixture lacks {find}");
    BASE.replacen(find, replace, 1)
}

#[test]
fn the_fixture_is_valid() {
    Experiment::from_str(BASE, Path::new("e.toml"), Path::new(".")).unwrap();
}

#[test]
fn unknown_keys_are_named() {
    let e = err(&with("repetitions = 5", "repetitions = 5\nrepetitons = 3"));
    assert!(e.contains("repetitons"), "{e}");
    let e = err(&with(
        "label = \"MIP + TCP\"",
        "label = \"MIP + TCP\"\ncolour = \"red\"",
    ));
    assert!(e.contains("colour"), "{e}");
    let e = err(&with("min_r2 = 0.99", "min_r2 = 0.99\nmin_r3 = 1"));
    assert!(e.contains("min_r3"), "{e}");
    let e = err(&with(
        "kind = \"mip_handoff_delay\"",
        "kind = \"mip_handof_delay\"",
    ));
    assert!(e.contains("mip_handof_delay"), "{e}");
    let e = err(&with("t_reg = 0.25", "t_regs = 0.25"));
    assert!(e.contains("unknown parameter `t_regs`"), "{e}");
    let e = err(&with("kind = \"flat\"", "kind = \"flatish\""));
    assert!(e.contains("flatish"), "{e}");
    assert!(e.contains("e.toml"), "{e}");
}

#[test]
fn a_comparison_takes_a_variant_or_a_formula_on_its_a_side() {
    let e = err(&with(
        "formula = \"t_low\"\nb = \"mip-tcp\"\nmargin = 0.5",
        "b = \"mip-tcp\"\nmargin = 0.5",
    ));
    assert!(e.contains("give `a` (a variant) or `formula`"), "{e}");
    let e = err(&with(
        "formula = \"t_low\"\nb = \"mip-tcp\"\nmargin = 0.5",
        "formula = \"t_low\"\na = \"msctp\"\nb = \"mip-tcp\"\nmargin = 0.5",
    ));
    assert!(e.contains("give `a` (a variant) or `formula`"), "{e}");
    let e = err(&with(
        "formula = \"t_low\"\nb = \"mip-tcp\"\nmargin = 0.5",
        "formula = \"t_lo\"\nb = \"mip-tcp\"\nmargin = 0.5",
    ));
    assert!(e.contains("unknown formula `t_lo`"), "{e}");
}

#[test]
fn cross_references_are_checked() {
    let cases = [
        (
            (
                "variant = \"msctp\"\nvalue = 0",
                "variant = \"sctp\"\nvalue = 0",
            ),
            "unknown variant `sctp`",
        ),
        (
            ("y = \"delay_s\"", "y = \"delay\""),
            "metric `delay` is not declared",
        ),
        (
            (
                "x = \"handoffs\"\ny = \"delay_s\"",
                "x = \"rate\"\ny = \"delay_s\"",
            ),
            "x = `rate` is not an axis",
        ),
        (
            (
                "formulas = [\"t_mip\"]\n\n[[tables]]",
                "formulas = [\"t_ip\"]\n\n[[tables]]",
            ),
            "unknown formula `t_ip`",
        ),
        (
            (
                "at = { handoffs = 6 }\nmetric",
                "at = { handoffs = 5 }\nmetric",
            ),
            "handoffs = 5 is not one of the axis values",
        ),
        (
            ("at = { handoffs = 0 }", "at = { hand = 0 }"),
            "`hand` is not an axis",
        ),
        (
            (
                "variant = \"mip-tcp\"\nat = { handoffs = 0 }",
                "at = { handoffs = 0 }",
            ),
            "`variant` is required",
        ),
        (
            ("quick_values = [0, 6]", "quick_values = [0, 7]"),
            "quick value 7 is not one of `values`",
        ),
        (
            ("values = [0, 2, 4, 6]", "values = [0, 2, 2, 6]"),
            "value 2 appears twice",
        ),
        (
            ("values = [0, 2, 4, 6]", "values = [0, \"2\"]"),
            "mix numbers",
        ),
        (
            ("values = [0, 2, 4, 6]", "values = [0, nan]"),
            "finite numbers",
        ),
        (
            ("key = \"x\"\nvalues", "values"),
            "give `key`, `keys` or `overrides`",
        ),
        (
            ("name = \"handoffs\"", "name = \"seed\""),
            "reserved column name",
        ),
        (
            ("repetitions = 5", "repetitions = 0"),
            "repetitions: must be at least 1",
        ),
        (
            ("rows = [\"variant\", \"handoffs\"]", "rows = [\"variant\"]"),
            "axis `handoffs` has several values",
        ),
        (
            (
                "rows = [\"variant\", \"handoffs\"]",
                "rows = [\"variant\", \"speed\"]",
            ),
            "row dimension `speed`",
        ),
        (
            ("id = \"delay\"", "id = \"throughput\""),
            "figures: `throughput` appears twice",
        ),
        (
            ("name = \"msctp\"", "name = \"mip-tcp\""),
            "variants: `mip-tcp` appears twice",
        ),
        (
            ("id = \"T1\"", "id = \"T 1\""),
            "id: `T 1` must be non-empty",
        ),
        (
            ("scale = 1e-6", "scale = 0"),
            "scale must be a finite non-zero number",
        ),
        (
            (
                "handoffs = { axis = \"handoffs\" }",
                "handoffs = { axis = \"speed\" }",
            ),
            "`speed` is not an axis",
        ),
        (("t_ad = 0.5, ", ""), "parameter `t_ad` is required"),
        (
            (
                "y = \"throughput_mbps\"",
                "y = \"throughput_mbps\"\nseries = [\"stations\"]",
            ),
            "give `y` or `series`, not both",
        ),
    ];
    for ((find, replace), want) in cases {
        let e = err(&with(find, replace));
        assert!(e.contains(want), "{find} -> {replace}: {e}");
    }
}

#[test]
fn check_fields_are_checked_per_kind() {
    let cases = [
        (
            ("value = 0\ntol = 1e-9", "tol = 1e-9"),
            "`value` is required",
        ),
        (
            (
                "value = 0\ntol = 1e-9",
                "value = 0\ntol = 1e-9\naxis = \"handoffs\"",
            ),
            "`axis` is not used by this kind",
        ),
        (
            (
                "a = \"msctp\"\nb = \"mip-tcp\"",
                "a = \"msctp\"\nb = \"msctp\"",
            ),
            "`a` and `b` are the same",
        ),
        // A greater/less check compares a variant or a formula with `b`.
        (
            ("a = \"msctp\"\n", ""),
            "give `a` (a variant) or `formula`, one of them",
        ),
        (
            ("min_r2 = 0.99", "min_r2 = 1.5"),
            "`min_r2` must be in [0, 1]",
        ),
        (
            (
                "formula = \"t_mip\"\nvariant = \"mip-tcp\"\nrel_tol = 0.05",
                "formula = \"t_mip\"\nvariant = \"mip-tcp\"",
            ),
            "give `rel_tol` or `abs_tol`",
        ),
        (
            (
                "rel_tol = 0.05\nclaim = \"mSCTP throughput is flat\"",
                "rel_tol = -1.0\nclaim = \"mSCTP throughput is flat\"",
            ),
            "`rel_tol` must be a finite number >= 0",
        ),
        (
            ("claim = \"mSCTP throughput is flat\"", "claim = \" \""),
            "`claim` must not be empty",
        ),
        (
            (
                "axis = \"handoffs\"\nvariant = \"mip-tcp\"\nmin_r2",
                "axis = \"handoffs\"\nat = { handoffs = 2 }\nvariant = \"mip-tcp\"\nmin_r2",
            ),
            "cannot be fixed in `at`",
        ),
        (("expect = \"disagree\"", "expect = \"maybe\""), "maybe"),
    ];
    for ((find, replace), want) in cases {
        let e = err(&with(find, replace));
        assert!(e.contains(want), "{find} -> {replace}: {e}");
    }
}

#[test]
fn scenario_files_are_read_relative_to_the_experiment() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("scenarios")).unwrap();
    std::fs::write(
        dir.path().join("scenarios/s.toml"),
        "stack = \"tcp\"\nx = 1\n",
    )
    .unwrap();
    let text = with(
        "scenario = { stack = \"tcp\", x = 0, noise = 0.01 }",
        "scenario = \"scenarios/s.toml\"",
    );
    let p = dir.path().join("e.toml");
    std::fs::write(&p, &text).unwrap();
    let exp = Experiment::load(&p).unwrap();
    assert_eq!(exp.base.get("x").and_then(|v| v.as_integer()), Some(1));
    std::fs::write(dir.path().join("scenarios/s.toml"), "stack = ").unwrap();
    let e = Experiment::load(&p).unwrap_err().to_string();
    assert!(e.contains("s.toml"), "{e}");
    let e = Experiment::load(&dir.path().join("missing.toml"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing.toml"), "{e}");
}
