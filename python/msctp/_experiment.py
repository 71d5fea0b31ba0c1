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
    ) -> Experiment:
        """Loads and plans an experiment file (``experiments/e5.toml``),
        as ``msctp reproduce ID [--quick] [--reps N] [--out OUT]``.
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
        after each finished run."""
        runs = self._native.runs(_shard(shard))
        pending = self._native.pending(runs)
        t0 = time.perf_counter()
        tasks = [(r, self._native.task(r)) for r in pending]
        if executor is None:
            with concurrent.futures.ThreadPoolExecutor(
                max_workers=self._native.jobs
            ) as pool:
                executed, failed = self._run_futures(pool, tasks, progress)
        elif isinstance(executor, concurrent.futures.Executor):
            executed, failed = self._run_futures(executor, tasks, progress)
        elif _is_dask_client(executor):
            executed, failed = self._run_dask(executor, tasks, progress)
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

    def _store(self, run: int, key: str, outcome, failed: list) -> int:
        why = self._native.store(run, outcome)
        if why is None:
            return 1
        failed.append((key, f"run {run}", why))
        return 0

    def _run_futures(self, executor, tasks, progress):
        futures = {
            executor.submit(_native.run_task, task): (run, task["key"])
            for run, task in tasks
        }
        executed, failed, done = 0, [], 0
        try:
            for fut in concurrent.futures.as_completed(futures):
                run, key = futures[fut]
                try:
                    outcome = fut.result()
                except Exception as e:  # the worker could not run the task
                    failed.append((key, f"run {run}", repr(e)))
                else:
                    executed += self._store(run, key, outcome, failed)
                done += 1
                if progress is not None:
                    progress(done, len(tasks))
        except BaseException:
            for f in futures:
                f.cancel()
            raise
        return executed, failed

    def _run_dask(self, client, tasks, progress):
        from distributed import as_completed

        futures = client.map(
            _native.run_task,
            [task for _, task in tasks],
            key=[f"msctp-run-{task['key']}" for _, task in tasks],
            pure=False,
        )
        which = {f.key: (run, task["key"]) for f, (run, task) in zip(futures, tasks)}
        executed, failed, done = 0, [], 0
        try:
            for fut in as_completed(futures):
                run, key = which[fut.key]
                try:
                    outcome = fut.result()
                except Exception as e:
                    failed.append((key, f"run {run}", repr(e)))
                else:
                    executed += self._store(run, key, outcome, failed)
                fut.release()
                done += 1
                if progress is not None:
                    progress(done, len(tasks))
        except BaseException:
            client.cancel(futures)
            raise
        return executed, failed

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
