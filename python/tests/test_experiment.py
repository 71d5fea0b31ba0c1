"""msctp.Experiment against `msctp reproduce` / `msctp sweep`: the same
runs, seeds, keys and results store, whatever executes the runs."""

from __future__ import annotations

import concurrent.futures
import json
from pathlib import Path

import pytest

import msctp
from conftest import EXPERIMENTS, without_wall_time


def _run_files(d: Path) -> dict[str, dict]:
    out = {}
    for f in sorted((d / "runs").glob("*.json")):
        j = json.loads(f.read_text())
        j.pop("wall_time_s")
        out[f.name] = j
    return out


def assert_same_results(ours: Path, theirs: Path, *, figures: bool = True) -> None:
    """The results directories of one experiment hold the same runs and
    byte-identical tables, report and figures (only the measured wall
    times differ)."""
    assert (ours / "runs.csv").exists() and (theirs / "runs.csv").exists()
    assert without_wall_time((ours / "runs.csv").read_text()) == without_wall_time(
        (theirs / "runs.csv").read_text()
    )
    assert _run_files(ours) == _run_files(theirs)
    names = ["summary.csv", "report.md"]
    names += [p.relative_to(theirs).as_posix() for p in sorted(theirs.glob("tables/*.md"))]
    names += [p.relative_to(theirs).as_posix() for p in sorted(theirs.glob("scenarios/*.toml"))]
    if figures:
        names += [p.relative_to(theirs).as_posix() for p in sorted(theirs.glob("figures/*.svg"))]
    assert len(names) > 2
    for n in names:
        assert (ours / n).read_bytes() == (theirs / n).read_bytes(), f"{n} differs"


def reproduce(cli, exp_id: str, out: Path, *args: str):
    return cli(
        "reproduce", exp_id, "--quick", "--no-docs", "--jobs", "2",
        "--experiments", EXPERIMENTS, "--out", out, *args,
    )


def test_a_dask_local_cluster_gives_the_runs_of_msctp_reproduce(cli, tmp_path):
    from distributed import Client, LocalCluster

    exp = msctp.Experiment.load(EXPERIMENTS / "e5.toml", out=tmp_path / "py", quick=True)
    assert exp.id == "E5"
    n = len(exp.plan())
    assert n > 0
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        rep = exp.run(client, batch=4)  # Dask tasks of up to 4 runs
    assert rep.failed == []
    assert rep.total == rep.executed == n and rep.cached == 0
    report = exp.report()
    assert report.stored == report.planned == n
    assert report.checks["as_expected"].all(), report.checks
    assert any(p.suffix == ".png" for p in report.figures)

    reproduce(cli, "E5", tmp_path / "cli")
    assert_same_results(tmp_path / "py" / "E5", tmp_path / "cli" / "E5")
    # One results store: the command finds every run the cluster stored.
    p = reproduce(cli, "E5", tmp_path / "py")
    assert f"{n} runs (0 run now, {n} stored before, 0 failed)" in p.stdout, p.stdout


def test_an_interrupted_run_resumes(cli, tmp_path):
    exp = msctp.Experiment.load(
        EXPERIMENTS / "e4-linkdown.toml", out=tmp_path / "py", quick=True, jobs=1
    )
    total = len(exp.plan())
    assert total > 5

    def interrupt_after_five(done, pending):
        if done == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        exp.run(progress=interrupt_after_five)
    assert exp.plan()["stored"].sum() == 5
    assert not list((exp.dir / "runs").glob("*.tmp"))

    # A new session (a new object) picks up where the last one stopped.
    again = msctp.Experiment.load(EXPERIMENTS / "e4-linkdown.toml", out=tmp_path / "py", quick=True)
    seen = []
    rep = again.run(progress=lambda d, n: seen.append((d, n)))
    assert (rep.total, rep.cached, rep.executed, rep.failed) == (total, 5, total - 5, [])
    assert seen[-1] == (total - 5, total - 5)
    assert again.plan()["stored"].all()
    assert again.run().executed == 0
    again.report()
    reproduce(cli, "E4-linkdown", tmp_path / "cli")
    assert_same_results(tmp_path / "py" / "E4-linkdown", tmp_path / "cli" / "E4-linkdown")


def test_shards_by_any_executor_and_the_cli_share_one_store(cli, tmp_path):
    out = tmp_path / "py"
    exp = msctp.Experiment.load(EXPERIMENTS / "e4-linkdown.toml", out=out, quick=True)
    plan = exp.plan()
    slices = [exp.plan(shard=f"{i}/3") for i in (1, 2, 3)]
    assert sorted(sum((list(s["run"]) for s in slices), [])) == list(plan["run"])
    total = len(plan)
    # Round robin over the plan: slice I of N holds runs I-1, I-1+N, ...
    assert [list(s["run"]) for s in slices] == [list(range(i, total, 3)) for i in (0, 1, 2)]

    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        r1 = exp.run(pool, shard="1/3")
    assert (r1.total, r1.executed, r1.failed) == (len(slices[0]), len(slices[0]), [])
    p = reproduce(cli, "E4-linkdown", out, "--shard", "2/3")
    k = len(slices[1])
    assert f"{k} of {total} runs ({k} run now, 0 stored before" in p.stdout, p.stdout
    r3 = exp.run(shard=(3, 3))
    assert (r3.total, r3.executed) == (len(slices[2]), len(slices[2]))
    assert exp.run(concurrent.futures.ThreadPoolExecutor(2)).executed == 0

    cli("reproduce", "E4-linkdown", "--quick", "--report-only", "--no-docs",
        "--experiments", EXPERIMENTS, "--out", out)
    reproduce(cli, "E4-linkdown", tmp_path / "cli")
    assert_same_results(out / "E4-linkdown", tmp_path / "cli" / "E4-linkdown")

    # The tidy tables as DataFrames.
    runs = exp.results()
    assert len(runs) == total
    assert {"experiment", "variant", "repetition", "seed", "run_key"} <= set(runs.columns)
    assert set(exp.axes) <= set(runs.columns)
    assert set(runs["run_key"]) == set(plan["key"])
    summary = exp.summary()
    assert {"variant", "metric", "n", "mean", "ci95"} <= set(summary.columns)
    assert (summary["n"] == summary["planned"]).all()


def test_a_sweep_equals_msctp_sweep(cli, short_reference, tmp_path):
    params = {"cells.1.rate_bps": [2000000, 11000000]}
    exp = msctp.Experiment.sweep(
        short_reference, params, repetitions=2, out=tmp_path / "py", jobs=2
    )
    assert exp.id == "sweep-ref"
    rep = exp.run()
    assert (rep.total, rep.executed, rep.failed) == (4, 4, [])
    summary = exp.summary()
    cli("sweep", short_reference, "--param", "cells.1.rate_bps=2000000,11000000",
        "--reps", "2", "--out", tmp_path / "cli")
    ours, theirs = tmp_path / "py/sweep-ref", tmp_path / "cli/sweep-ref"
    assert (ours / "summary.csv").read_bytes() == (theirs / "summary.csv").read_bytes()
    assert without_wall_time((ours / "runs.csv").read_text()) == without_wall_time(
        (theirs / "runs.csv").read_text()
    )
    g = summary[summary["metric"] == "flows.bulk.goodput_bps"]
    assert len(g) == 2 and (g["n"] == 2).all()


def test_bad_experiments_and_arguments_are_refused(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text((EXPERIMENTS / "e4-linkdown.toml").read_text().replace(
        "repetitions = 20", "repetitions = 20\nrepetitons = 2", 1))
    with pytest.raises(msctp.ExperimentError, match="repetitons"):
        msctp.Experiment.load(bad, out=tmp_path)
    with pytest.raises(OSError):
        msctp.Experiment.load(tmp_path / "missing.toml", out=tmp_path)
    exp = msctp.Experiment.load(EXPERIMENTS / "e4-linkdown.toml", out=tmp_path, quick=True)
    with pytest.raises(TypeError, match="executor"):
        exp.run(executor=object())
    with pytest.raises(ValueError, match="batch"):
        exp.run(batch=0)
    for shard in ["4/3", "0/3", "3", "a/b"]:
        with pytest.raises(msctp.ExperimentError):
            exp.plan(shard=shard)
    with pytest.raises(msctp.ScenarioError, match="speed"):
        msctp.Experiment.sweep(
            (EXPERIMENTS.parent / "crates/sim/src/scenario/reference.toml"),
            {"mobiles.0.speed": [1, 2]},
            out=tmp_path,
        )


def test_executor_tasks_batch_short_runs():
    from msctp._experiment import _auto_batch, _batches

    assert _auto_batch(54, 2) == 1
    assert _auto_batch(3240, 2) == 12  # E5: 270 tasks on 2 workers
    assert _auto_batch(3240, 128) == 3  # 1080 tasks, ~8 per thread
    assert _auto_batch(10**6, 2) == 32
    assert [len(b) for b in _batches(list(range(10)), 4)] == [4, 4, 2]
