"""``msctp.run``: one simulation."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import pandas as pd

from . import _native
from ._scenario import Scenario, scenario_source


@dataclass(frozen=True)
class RunResult:
    """One run: its seed, every metric by name (the names ``msctp run``
    prints, e.g. ``flows.bulk.goodput_bps``) and its time series.

    ``goodput`` (per flow and time bin), ``paths`` (per SCTP path and
    sampling instant: cwnd, ssthresh, flight, SRTT, RTO, ...) and
    ``events`` (radio, network, association and policy events) are the
    tables ``msctp run --out`` writes, as DataFrames; ``summary`` is the
    run summary (``summary.json``). ``series`` holds the runner's own
    series (``[lab] series = [...]`` in the scenario), each a DataFrame
    of ``time_s`` and ``value``.
    """

    seed: int
    metrics: dict[str, float]
    series: dict[str, pd.DataFrame] = field(default_factory=dict)
    goodput: pd.DataFrame | None = None
    paths: pd.DataFrame | None = None
    events: pd.DataFrame | None = None
    summary: dict | None = None
    traces: dict[str, pd.DataFrame] = field(default_factory=dict)

    def __getitem__(self, metric: str) -> float:
        return self.metrics[metric]

    def trace(self, kind: str = "paths") -> pd.DataFrame:
        """The event-driven trace ``kind`` ("paths", "delays" or
        "queues"). Raises ``ValueError`` for another kind, and when the run
        kept no trace (``output.trace`` off, or ``tables=False``)."""
        if kind not in ("paths", "delays", "queues"):
            raise ValueError(f"trace kind {kind!r}: one of 'paths', 'delays', 'queues'")
        t = self.traces.get(kind)
        if t is None or all(len(x) == 0 for x in self.traces.values()):
            raise ValueError(
                "this run kept no event-driven trace: run it with "
                "overrides={'output.trace': True} (and tables=True)"
            )
        return t


def _frame(csv: str | None) -> pd.DataFrame | None:
    return None if csv is None else pd.read_csv(io.StringIO(csv))


def run(
    scenario: Scenario,
    seed: int | None = None,
    overrides: Mapping | None = None,
    *,
    runner: str = "sim",
    tables: bool = True,
) -> RunResult:
    """Runs ``scenario`` once, as ``msctp run SCENARIO --seed SEED``.

    ``scenario`` is a path, TOML text or a dict; ``overrides`` maps dotted
    keys (``"cells.1.rate_bps"``, ``"flows.0.policy.kind"``) to values,
    as an experiment's variants do. ``seed`` defaults to the scenario's
    ``seed``, else 1. ``tables=False`` skips the goodput, paths and events
    tables. The GIL is released while the simulation runs.

    Raises ``msctp.ScenarioError`` (a ``ValueError``) naming the key of
    a bad scenario or override, ``msctp.RunFailed`` if the run fails.
    """
    source, _ = scenario_source(scenario)
    d = _native.run(
        source,
        seed=seed,
        overrides=dict(overrides) if overrides is not None else None,
        runner=runner,
        tables=tables,
    )
    series = {
        name: pd.DataFrame(points, columns=["time_s", "value"])
        for name, points in d["series"].items()
    }
    summary = d.get("summary")
    return RunResult(
        seed=d["seed"],
        metrics=d["metrics"],
        series=series,
        goodput=_frame(d.get("goodput")),
        paths=_frame(d.get("paths")),
        events=_frame(d.get("events")),
        summary=None if summary is None else json.loads(summary),
        traces={
            kind: frame
            for kind, key in (("paths", "path_trace"), ("delays", "delays"), ("queues", "queues"))
            if (frame := _frame(d.get(key))) is not None
        },
    )
