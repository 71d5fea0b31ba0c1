"""``msctp.Experiment``: a study (or sweep) planned by the lab, its runs
executed by any executor, stored in the lab's results store."""

from __future__ import annotations

import concurrent.futures
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from . import _native
from ._scenario import Scenario, scenario_source

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class RunReport:
    """What ``Experiment.run`` did: runs of the selection (``total``),
    found stored (``cached``), run now and stored (``executed``), failed
    (``(key, run, error)``; nothing stored, tried again next time)."""

    total: int
    cached: int
    executed: int
    failed: list[tuple[str, str, str]] = field(default_factory=list)
    wall_s: float = 0.0


@dataclass(frozen=True)
class Report:
    """What ``Experiment.report`` wrote (under ``dir``): ``report`` is the
    experiment's section of the reproduction report, ``figures`` the PNG
    and SVG files; ``checks`` and ``published`` are the claim verdicts and
    the published values beside ours."""

    dir: Path
    report: Path
    figures: list[Path]
    checks: pd.DataFrame
    published: pd.DataFrame
    stored: int
    planned: int


def _shard(shard: str | tuple[int, int] | None) -> tuple[int, int] | None:
    if shard is None or isinstance(shard, tuple):
        return shard
    i, sep, n = str(shard).partition("/")
    if not sep or not i.strip().isdigit() or not n.strip().isdigit():
        raise _native.ExperimentError(f"shard {shard!r}: expected 'I/N', e.g. '3/16'")
    return int(i), int(n)


def run_batch(tasks: list[dict]) -> list[dict]:
    """Runs several tasks in turn (one executor task for several short
    runs: the executor's per-task cost is paid once)."""
    return [_native.run_task(t) for t in tasks]


def _batches(tasks: list, size: int) -> list[list]:
    return [tasks[i : i + size] for i in range(0, len(tasks), size)]


def _auto_batch(pending: int, threads: int) -> int:
    """Runs per executor task: about 8 tasks per worker thread and at
    least 256 tasks in all (balanced to the end), at most 32 runs each."""
    return max(1, min(32, pending // max(256, 8 * threads)))


def _is_dask_client(executor: object) -> bool:
    distributed = sys.modules.get("distributed")
    return distributed is not None and isinstance(executor, distributed.Client)


class Experiment:
    """An experiment file (``Experiment.load``) or an ad-hoc sweep
    (``Experiment.sweep``), planned by the lab. Results go to
    ``<out>/<id>/``, the same store ``msctp reproduce`` uses: runs already
    stored (by either) are never run again."""

    def __init__(self, native: _native.Study):
        self._native = native

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        *,
        out: str | os.PathLike[str] = "results",
        quick: bool = False,
        repetitions: int | None = None,
        jobs: int | None = None,
        fresh: bool = False,
        plots: bool = True,
        robustness_points: int | None = None,
    ) -> Experiment:
        """Loads and plans an experiment file (``experiments/e5.toml``),
        as ``msctp reproduce ID [--quick] [--reps N] [--out OUT]``.
        With ``robustness_points=N`` it plans the study's robustness map
        instead (``msctp reproduce ID --robustness --robustness-points
        N``: N Latin hypercube points over its ``[robustness]`` space,
        results in ``<out>/<id>.robustness/``): ``run()`` runs it with any
        executor, ``robustness()`` returns it.
        ``jobs`` is the number of threads ``run()`` uses without an
        executor (default: all cores). Raises ``msctp.ExperimentError``
        naming the key of a bad file, ``msctp.ScenarioError`` naming the
        variant, point and key of a scenario the simulator refuses."""
        return cls(
            _native.Study.load(
                os.fspath(path),
                os.fspath(out),
                quick=quick,
                repetitions=repetitions,
                jobs=jobs,
                fresh=fresh,
                plots=plots,
                robustness_points=robustness_points,
            )
        )

    @classmethod
    def sweep(
        cls,
        scenario: Scenario,
        params: Mapping[str, Sequence],
        *,
        repetitions: int = 3,
        out: str | os.PathLike[str] = "results",
        name: str | None = None,
        runner: str = "sim",
        jobs: int | None = None,
        fresh: bool = False,
    ) -> Experiment:
        """A sweep of ``scenario`` over the cartesian product of
        ``params`` (dotted key -> values), ``repetitions`` runs per point,
        as ``msctp sweep SCENARIO --param key=v1,v2 ...``; id
        ``sweep-<name>`` (default: the scenario file's stem)."""
        source, stem = scenario_source(scenario)
        return cls(
            _native.Study.sweep(
                source,
                name or stem,
                [(k, list(v)) for k, v in params.items()],
                repetitions,
                os.fspath(out),
                runner=runner,
                jobs=jobs,
                fresh=fresh,
            )
        )

    @property
    def id(self) -> str:
        return self._native.id

    @property
    def title(self) -> str:
        return self._native.title

    @property
    def dir(self) -> Path:
        """The experiment's result directory, ``<out>/<id>``."""
        return Path(self._native.dir)

    @property
    def axes(self) -> list[str]:
        return list(self._native.axes)

    def __repr__(self) -> str:
        return f"<msctp.Experiment {self.id}: {self.title!r}, results in {self.dir}>"

    def plan(self, shard: str | tuple[int, int] | None = None) -> pd.DataFrame:
        """Every run (or those of slice ``shard`` = ``"I/N"``): ``run``
        (its index), ``key``, ``variant``, one column per axis,
        ``repetition``, ``seed``, ``stored``."""
        rows = self._native.plan()
        keep = set(self._native.runs(_shard(shard)))
        axes = self.axes
        records = [
            {
                "run": run,
                "key": key,
                "variant": variant,
                **{a: point.get(a) for a in axes},
                "repetition": repetition,
                "seed": seed,
                "stored": stored,
            }
            for run, key, variant, point, repetition, seed, stored in rows
            if run in keep
        ]
        columns = ["run", "key", "variant", *axes, "repetition", "seed", "stored"]
        return pd.DataFrame.from_records(records, columns=columns)

    def run(
        self,
        executor: object | None = None,
        *,
        shard: str | tuple[int, int] | None = None,
        progress: Progress | None = None,
        batch: int | None = None,
    ) -> RunReport:
        """Runs the runs not yet stored (of slice ``shard`` only, if
        given) and stores each as it finishes, so an interrupted run loses
        only the runs in progress and the next call resumes.

        ``executor``: ``None`` (a thread pool of ``jobs`` threads in this
        process; the GIL is released while a simulation runs), any
        ``concurrent.futures.Executor`` (e.g. a ``ProcessPoolExecutor``),
        or a ``dask.distributed.Client`` (a ``LocalCluster``, or a cluster
        of ``dask worker`` processes on other hosts, each with the same
        msctp build: a worker of another build refuses its runs).
        Workers compute; this process writes the store, so the workers
        need no shared file system. ``progress(done, pending)`` is called
        after each stored (or failed) run.

        ``batch``: runs per executor task (default: 1 without an executor,
        else enough for about eight tasks per worker and 256 in all, at
        most 32), so that short runs do not pay the executor's per-task
        cost each."""
        runs = self._native.runs(_shard(shard))
        pending = self._native.pending(runs)
        t0 = time.perf_counter()
        tasks = [(r, self._native.task(r)) for r in pending]
        if batch is not None and batch < 1:
            raise ValueError("batch must be at least 1")
        if executor is None:
            with concurrent.futures.ThreadPoolExecutor(
                max_workers=self._native.jobs
            ) as pool:
                executed, failed = self._run_futures(pool, _batches(tasks, batch or 1), progress)
        elif isinstance(executor, concurrent.futures.Executor):
            threads = getattr(executor, "_max_workers", 1)
            size = batch or _auto_batch(len(tasks), threads)
            executed, failed = self._run_futures(executor, _batches(tasks, size), progress)
        elif _is_dask_client(executor):
            threads = sum(executor.nthreads().values())
            size = batch or _auto_batch(len(tasks), threads)
            executed, failed = self._run_dask(executor, _batches(tasks, size), progress)
        else:
            raise TypeError(
                "executor must be None, a concurrent.futures.Executor or a "
                f"dask.distributed.Client, not {type(executor).__name__}"
            )
        return RunReport(
            total=len(runs),
            cached=len(runs) - len(pending),
            executed=executed,
            failed=failed,
            wall_s=time.perf_counter() - t0,
        )

    def _store_batch(self, batch, outcomes, error, state, progress, total) -> None:
        """Stores one finished executor task's outcomes (or records the
        exception that kept it from running) and reports progress."""
        for i, (run, task) in enumerate(batch):
            if error is not None:
                state["failed"].append((task["key"], f"run {run}", repr(error)))
            else:
                why = self._native.store(run, outcomes[i])
                if why is None:
                    state["executed"] += 1
                else:
                    state["failed"].append((task["key"], f"run {run}", why))
            state["done"] += 1
            if progress is not None:
                progress(state["done"], total)

    def _run_futures(self, executor, batches, progress):
        total = sum(len(b) for b in batches)
        futures = {executor.submit(run_batch, [t for _, t in b]): b for b in batches}
        state = {"executed": 0, "failed": [], "done": 0}
        try:
            for fut in concurrent.futures.as_completed(futures):
                try:
                    outcomes, error = fut.result(), None
                except Exception as e:  # the worker could not run the task
                    outcomes, error = None, e
                self._store_batch(futures[fut], outcomes, error, state, progress, total)
        except BaseException:
            for f in futures:
                f.cancel()
            raise
        return state["executed"], state["failed"]

    def _run_dask(self, client, batches, progress):
        from distributed import as_completed

        total = sum(len(b) for b in batches)
        futures = client.map(
            run_batch,
            [[t for _, t in b] for b in batches],
            key=[f"msctp-runs-{b[0][1]['key']}-{len(b)}" for b in batches],
            pure=False,
        )
        which = {f.key: b for f, b in zip(futures, batches)}
        state = {"executed": 0, "failed": [], "done": 0}
        try:
            for fut in as_completed(futures):
                try:
                    outcomes, error = fut.result(), None
                except Exception as e:
                    outcomes, error = None, e
                self._store_batch(which[fut.key], outcomes, error, state, progress, total)
                fut.release()
        except BaseException:
            client.cancel(futures)
            raise
        return state["executed"], state["failed"]

    def results(self) -> pd.DataFrame:
        """The tidy runs table of the stored runs (``runs.csv``, rebuilt):
        experiment, variant, one column per axis, repetition, seed,
        run_key, wall_time_s, one column per metric."""
        path = self._native.write_runs_csv()
        return pd.read_csv(
            path, dtype={"experiment": str, "variant": str, "run_key": str}
        )

    def summary(self) -> pd.DataFrame:
        """Per variant, point and metric: n, planned, mean, std_dev, ci95
        (95% Student-t half-width), min, max (``summary.csv``, rebuilt;
        a sweep summarises every metric its runs reported)."""
        path = self._native.write_summary_csv()
        return pd.read_csv(path, dtype={"variant": str, "metric": str})

    def report(self) -> Report:
        """Writes the results, tables, figures and the report section from
        the stored runs, as ``msctp reproduce ID --report-only``."""
        d = self._native.report()
        return Report(
            dir=Path(d["dir"]),
            report=Path(d["report"]),
            figures=[Path(p) for p in d["figures"]],
            checks=pd.DataFrame(
                d["checks"],
                columns=["claim", "source", "verdict", "expected", "as_expected", "detail"],
            ),
            published=pd.DataFrame(
                d["published"],
                columns=["variant", "point", "metric", "published", "ours", "ci95", "agrees"],
            ),
            stored=d["stored"],
            planned=d["planned"],
        )

    def robustness(self) -> pd.DataFrame:
        """The robustness map of an experiment loaded with
        ``robustness_points``, built from the stored runs: one row per
        design point and claim, with ``point``, one column per unsaid
        value (its value at the point), ``check`` (the claim's index in the
        file), ``claim``, ``expect``, ``verdict`` and ``holds`` (True,
        False, or missing when not evaluated). ``df.attrs["summary"]`` is
        one row per claim: ``holds``, ``evaluated``, ``share`` with its 95%
        Wilson interval (``low``, ``high``), ``most_moved_by`` and one
        ``sensitivity.<value>`` column per unsaid value (the holding share
        in the upper half of its range minus the lower half's, or the
        largest minus the smallest share over its choices)."""
        path = Path(self._native.robustness())
        df = pd.read_csv(path, dtype={"holds": "boolean"})
        df.attrs["summary"] = pd.read_csv(path.with_name("robustness-summary.csv"))
        return df
