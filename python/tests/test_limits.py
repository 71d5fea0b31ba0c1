"""Values the extension refuses with a Python exception instead of
crashing the interpreter (issue 31, finding 10): a dict that contains
itself, nesting past ``_native.MAX_NESTING``, override keys of tens of
thousands of segments; an empty scenario, refused as ``msctp run``
refuses it; files that are no regular files."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import msctp
from msctp import _native


def test_a_dict_that_contains_itself_is_refused(short_reference):
    d = {"duration_s": 1.0}
    d["loop"] = d
    with pytest.raises(msctp.ScenarioError, match="contains itself"):
        _native.run(d)
    listed = {"duration_s": 1.0, "nodes": []}
    listed["nodes"].append(listed["nodes"])
    with pytest.raises(ValueError, match="contains itself"):
        msctp.run(listed)
    with pytest.raises(msctp.ScenarioError, match="contains itself"):
        msctp.run(short_reference, overrides={"lab": d})


def test_deep_nesting_is_refused(short_reference):
    deep: dict = {}
    for _ in range(20_000):
        deep = {"a": deep}
    with pytest.raises(msctp.ScenarioError, match=f"deeper than {_native.MAX_NESTING}"):
        _native.run(deep)
    with pytest.raises(msctp.ScenarioError, match="deeper than"):
        msctp.run(short_reference, overrides={"x": deep})
    nested: list = []
    for _ in range(20_000):
        nested = [nested]
    with pytest.raises(msctp.ScenarioError, match="deeper than"):
        msctp.run({"duration_s": 1.0, "x": nested})
    # In TOML text too (the TOML parser bounds its own nesting).
    text = "x = " + "[" * 20_000 + "]" * 20_000
    with pytest.raises(msctp.ScenarioError):
        _native.run(text)


def test_a_shared_sub_dict_may_not_multiply_without_bound():
    d: dict = {"v": 1}
    for _ in range(40):
        d = {"a": d, "b": d}
    start = time.monotonic()
    with pytest.raises(msctp.ScenarioError, match="more than"):
        _native.run(d)
    assert time.monotonic() - start < 10


def test_override_keys_have_a_bounded_number_of_segments(short_reference):
    key = ".".join(["a"] * 50_000)
    with pytest.raises(msctp.ScenarioError, match="50000 segments"):
        msctp.run(short_reference, overrides={key: 1})


def test_an_empty_scenario_is_refused_as_the_cli_refuses_it(cli, tmp_path):
    said = "the scenario has no [[nodes]] and [[flows]]: nothing to simulate"
    for source in ["", {}, "name = \"only a name\""]:
        with pytest.raises(msctp.ScenarioError) as e:
            _native.run(source)
        assert said in str(e.value)
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    p = cli("run", empty, check=False)
    assert p.returncode == 2
    assert said in p.stderr, p.stderr


def test_scenario_paths_must_be_regular_files(tmp_path):
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    for path, what in [(Path("/dev/zero"), "character device"), (fifo, "FIFO")]:
        with pytest.raises(OSError, match=what):
            msctp.run(path)
    with pytest.raises(OSError, match="FIFO"):
        _native.read_input(os.fspath(fifo))
