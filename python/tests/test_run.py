"""msctp.run against `msctp run` for the same scenario and seed."""

from __future__ import annotations

import threading
import time

import pandas as pd
import pytest

import msctp
from conftest import cli_run_json


def test_metrics_equal_the_cli_for_the_same_seed(cli, short_reference):
    cli_metrics = cli_run_json(cli, short_reference, "--seed", "7")[0]["record"]["metrics"]
    r = msctp.run(short_reference, seed=7)
    assert r.seed == 7
    assert len(r.metrics) > 30
    assert r.metrics == cli_metrics  # every metric, exactly
    assert r["flows.bulk.goodput_bps"] > 100_000
    # The scenario as TOML text and as a string path give the same run.
    assert msctp.run(short_reference.read_text(), seed=7).metrics == cli_metrics
    assert msctp.run(str(short_reference), seed=7).metrics == cli_metrics
    # Another seed is another run.
    assert msctp.run(short_reference, seed=8).metrics != cli_metrics


def test_default_seed_and_dict_scenario_and_overrides(cli, short_reference, tmp_path):
    import tomllib

    table = tomllib.loads(short_reference.read_text())
    # Without --seed both take the scenario's seed (else 1).
    cli_metrics = cli_run_json(cli, short_reference)[0]["record"]["metrics"]
    assert msctp.run(table).metrics == cli_metrics
    # Overrides by dotted key equal a file with that value.
    changed = short_reference.read_text().replace("duration_s = 12.0", "duration_s = 9.0")
    f = tmp_path / "nine.toml"
    f.write_text(changed)
    cli_nine = cli_run_json(cli, f, "--seed", "3")[0]["record"]["metrics"]
    assert msctp.run(table, seed=3, overrides={"duration_s": 9.0}).metrics == cli_nine
    assert cli_nine["duration_s"] == 9.0


def test_time_series_are_the_tables_msctp_run_writes(cli, short_reference, tmp_path):
    cli("run", short_reference, "--seed", "5", "--out", tmp_path / "o")
    r = msctp.run(short_reference, seed=5)
    for name in ["goodput", "paths", "events"]:
        want = pd.read_csv(tmp_path / "o" / f"{name}.csv")
        pd.testing.assert_frame_equal(getattr(r, name), want)
    assert list(r.goodput.columns) == ["flow", "time_s", "goodput_bps", "cumulative_bytes"]
    assert r.goodput["time_s"].is_monotonic_increasing
    assert r.summary["seed"] == 5
    # The lab's own series, asked for in the scenario.
    s = msctp.run(short_reference, seed=5, overrides={"lab.series": ["goodput"]})
    g = s.series["goodput.bulk"]
    assert list(g.columns) == ["time_s", "value"] and len(g) > 50
    assert s.metrics == r.metrics


def test_event_driven_traces_are_the_files_msctp_run_writes(cli, short_reference, tmp_path):
    plain = msctp.run(short_reference, seed=5)
    with pytest.raises(ValueError, match="output.trace"):
        plain.trace("paths")
    with pytest.raises(ValueError, match="one of"):
        plain.trace("cwnd")
    cli("run", short_reference, "--seed", "5", "--out", tmp_path / "o", "--view")
    r = msctp.run(short_reference, seed=5, overrides={"output.trace": True})
    for kind, file in [("paths", "path_trace"), ("delays", "delays"), ("queues", "queues")]:
        want = pd.read_csv(tmp_path / "o" / f"{file}.csv")
        pd.testing.assert_frame_equal(r.trace(kind), want)
        assert len(want) > 0
    p = r.trace("paths")
    assert {"cwnd", "ssthresh", "flight", "cause"} <= set(p.columns)
    assert (p["cause"] == "ack").any()
    assert (tmp_path / "o" / "view.html").is_file()
    # The traces change nothing of the run.
    assert r.metrics == plain.metrics


@pytest.mark.parametrize(
    "edit, key",
    [
        (("[[mobiles]]", "[[mobiles]]\nspeed = 1.0"), "speed"),
        (("radius_m = 190.0", "radius_m = -1.0"), "radius_m"),
        (("duration_s = 12.0", "duration_s = 12.0\nduration = 3.0"), "duration"),
        (("duration_s = 12.0", "duration_s = -2.0"), "duration_s"),
    ],
)
def test_bad_scenarios_raise_naming_the_key_as_the_cli(cli, short_reference, tmp_path, edit, key):
    bad = tmp_path / "bad.toml"
    bad.write_text(short_reference.read_text().replace(*edit, 1))
    with pytest.raises(msctp.ScenarioError) as e:
        msctp.run(bad)
    assert key in str(e.value)
    assert isinstance(e.value, ValueError)
    p = cli("run", bad, check=False)
    assert p.returncode == 2
    # The CLI prints the very same message.
    assert str(e.value) in p.stderr, p.stderr


def test_bad_overrides_raise_naming_the_key(short_reference):
    for overrides, key in [
        ({"mobiles.0.speed": 1.0}, "speed"),
        ({"cells.1.radius_m": 0.0}, "radius_m"),
        ({"flows.7.policy.kind": "x"}, "flows.7.policy.kind"),
        ({"duration_s.x": 1}, "duration_s.x"),
    ]:
        with pytest.raises(msctp.ScenarioError) as e:
            msctp.run(short_reference, overrides=overrides)
        assert key in str(e.value), str(e.value)


def test_bad_toml_and_bad_types_raise():
    with pytest.raises(msctp.ScenarioError, match="line"):
        msctp.run("duration_s = = 3")
    with pytest.raises(msctp.ScenarioError):
        msctp.run({"duration_s": None})
    with pytest.raises(FileNotFoundError):
        msctp.run("no-such-file.toml")
    with pytest.raises(TypeError):
        msctp.run(42)


def test_the_gil_is_released_while_a_simulation_runs(short_reference):
    """A Python thread keeps running while another thread simulates: with
    the GIL held it would stall for the whole run."""
    long = {"duration_s": 600.0}
    t0 = time.perf_counter()
    msctp.run(short_reference, seed=1, overrides=long, tables=False)
    alone = time.perf_counter() - t0
    assert alone > 0.2, f"run too short to tell ({alone:.3f} s)"
    done = threading.Event()
    sim = threading.Thread(
        target=lambda: (msctp.run(short_reference, seed=1, overrides=long, tables=False), done.set())
    )
    ticks, longest, last = 0, 0.0, time.perf_counter()
    sim.start()
    while not done.is_set():
        now = time.perf_counter()
        longest = max(longest, now - last)
        last = now
        ticks += 1
        time.sleep(0.001)
    sim.join()
    assert ticks > 20
    # Held, the longest stall would be the whole run.
    assert longest < alone / 2, f"main thread stalled {longest:.3f} s of a {alone:.3f} s run"


def test_a_per_message_reliability_policy_from_python(short_reference):
    """RFC 7496's partial reliability for every message of a flow, set from
    Python: the abandoned messages are counted; a policy without PR-SCTP
    negotiated is refused naming the key."""
    reliable = msctp.run(short_reference, seed=2).metrics
    assert "flows.bulk.abandoned_messages" not in reliable
    timed = msctp.run(
        short_reference,
        seed=2,
        overrides={
            "flows.0.sctp.pr_sctp": True,
            "flows.0.reliability": {"lifetime_ms": 1.0},
        },
    ).metrics
    assert timed["flows.bulk.abandoned_messages"] > 0
    assert timed["flows.bulk.bytes_delivered"] < reliable["flows.bulk.bytes_delivered"]
    with pytest.raises(msctp.ScenarioError) as e:
        msctp.run(short_reference, overrides={"flows.0.reliability": {"max_retransmissions": 0}})
    assert "flows[bulk].reliability" in str(e.value) and "pr_sctp" in str(e.value)
