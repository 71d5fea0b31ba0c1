"""Experiment.robustness(): a study's robustness map as a DataFrame, its
runs executed by any executor, equal to `msctp reproduce --robustness`."""

from __future__ import annotations

import concurrent.futures
from pathlib import Path

import pytest

import msctp

# y = a + b x without noise; "y >= 1" holds exactly where a >= 1, the
# upper half of a's range (see crates/lab/tests/robustness.rs).
EXP = """
id = "R1"
title = "Synthetic robustness"
runner = "synthetic"
repetitions = 2
scenario = { synthetic = { x = 0, metrics = { y = { intercept = 1.5, slope = 0.0005 } } } }

[[axes]]
name = "x"
key = "synthetic.x"
values = [0, 1]

[[metrics]]
name = "y"

[[checks]]
kind = "at_least"
metric = "y"
value = 1.0
claim = "y is at least 1 everywhere"

[robustness]

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
"""


@pytest.fixture
def exp_dir(tmp_path: Path) -> Path:
    d = tmp_path / "experiments"
    d.mkdir()
    (d / "r1.toml").write_text(EXP)
    return d


def test_the_map_is_a_dataframe_equal_to_the_cli_map(cli, exp_dir, tmp_path):
    out = tmp_path / "py"
    e = msctp.Experiment.load(exp_dir / "r1.toml", out=out, robustness_points=8, jobs=2)
    assert e.id == "R1.robustness"
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        r = e.run(pool)
    assert (r.total, r.executed, r.failed) == (32, 32, [])
    df = e.robustness()
    assert list(df.columns) == ["point", "a", "b", "check", "claim", "expect", "verdict", "holds"]
    assert len(df) == 8
    assert (df["holds"] == (df["a"] >= 1.0)).all()
    s = df.attrs["summary"].iloc[0]
    assert (s["holds"], s["evaluated"]) == (4, 8)
    assert s["most_moved_by"] == "a (+1.00)"
    assert s["sensitivity.a"] == pytest.approx(1.0)

    cli_out = tmp_path / "cli"
    cli("reproduce", "R1", "--robustness", "--robustness-points", "8", "--jobs", "2",
        "--experiments", exp_dir, "--out", cli_out)
    for name in ["robustness.csv", "robustness-summary.csv"]:
        ours = (out / "R1.robustness" / name).read_text()
        assert ours == (cli_out / "R1.robustness" / name).read_text(), name


def test_a_plain_study_has_no_map(exp_dir, tmp_path):
    e = msctp.Experiment.load(exp_dir / "r1.toml", out=tmp_path)
    with pytest.raises(msctp.ExperimentError, match="robustness_points"):
        e.robustness()
