"""The cost of running a study through Python and Dask instead of
`msctp reproduce`, measured in the same run on this machine.

    python python/bench/dask_overhead.py [--experiment experiments/e5.toml]
        [--quick] [--workers 2] [--msctp target/release/msctp]

Runs the experiment from an empty results directory four ways, each with
the same number of parallel workers: `msctp reproduce ID --fresh` (the
reference), `Experiment.run()` (threads in this process), a
`ProcessPoolExecutor`, and a Dask `LocalCluster` of worker processes
(one thread each); prints each one's wall time and its ratio to the
reference, and checks that all four stored the same runs. Not a test:
the figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import re
import subprocess
import tempfile
import time
from pathlib import Path

import msctp

REPO = Path(__file__).resolve().parents[2]


def stored_records(d: Path) -> dict[str, dict]:
    out = {}
    for f in (d / "runs").glob("*.json"):
        j = json.loads(f.read_text())
        j.pop("wall_time_s")
        out[f.name] = j
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--experiment", type=Path, default=REPO / "experiments/e5.toml")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--msctp", type=Path, default=None, help="the msctp command (default: target/release, else target/ci)")
    a = ap.parse_args()
    exe = a.msctp or next(
        (p for p in [REPO / "target/release/msctp", REPO / "target/ci/msctp"] if p.is_file()), None
    )
    if exe is None:
        raise SystemExit("build the msctp command first (cargo build --release -p msctp)")
    version = subprocess.run([str(exe), "--version"], capture_output=True, text=True).stdout
    if f"(model {msctp.model_fingerprint()})" not in version:
        raise SystemExit(f"{exe} ({version.strip()}) is not this extension's build ({msctp.model_fingerprint()})")

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        exp_id = msctp.Experiment.load(a.experiment, out=tmp / "probe", quick=a.quick).id
        times: dict[str, float] = {}
        dirs: dict[str, Path] = {}

        def load(name: str) -> msctp.Experiment:
            dirs[name] = tmp / name / exp_id
            return msctp.Experiment.load(
                a.experiment, out=tmp / name, quick=a.quick, jobs=a.workers, plots=False
            )

        cmd = [str(exe), "reproduce", exp_id, "--fresh", "--no-docs", "--jobs", str(a.workers),
               "--experiments", str(a.experiment.parent), "--out", str(tmp / "cli")]
        if a.quick:
            cmd.append("--quick")
        t = time.perf_counter()
        out = subprocess.run(cmd, check=False, capture_output=True, text=True).stdout
        total = time.perf_counter() - t
        # The reference is the command's own time for executing the runs
        # (it also aggregates, plots and writes the report, which the
        # paths below do not).
        m = re.search(r"in ([0-9.]+) s;", out)
        if m is None:
            raise SystemExit(f"unexpected output of {' '.join(cmd)}:\n{out}")
        times["msctp reproduce"] = float(m.group(1))
        times["msctp reproduce (with report)"] = total
        dirs["msctp reproduce"] = tmp / "cli" / exp_id
        runs = len(list((tmp / "cli" / exp_id / "runs").glob("*.json")))

        exp = load("threads")
        t = time.perf_counter()
        exp.run()
        times["Experiment.run() (threads)"] = time.perf_counter() - t
        dirs["Experiment.run() (threads)"] = dirs.pop("threads")

        exp = load("processes")
        t = time.perf_counter()
        with concurrent.futures.ProcessPoolExecutor(a.workers) as pool:
            exp.run(pool)
        times["ProcessPoolExecutor"] = time.perf_counter() - t
        dirs["ProcessPoolExecutor"] = dirs.pop("processes")

        from distributed import Client, LocalCluster

        exp = load("dask")
        t = time.perf_counter()
        with LocalCluster(
            n_workers=a.workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster, Client(cluster) as client:
            started = time.perf_counter()
            exp.run(client)
            ran = time.perf_counter() - started
        times["Dask LocalCluster (run only)"] = ran
        times["Dask LocalCluster (with start/stop)"] = time.perf_counter() - t
        dirs["Dask LocalCluster (run only)"] = dirs.pop("dask")

        ref = stored_records(dirs["msctp reproduce"])
        same = all(stored_records(d) == ref for d in dirs.values())
        base = times["msctp reproduce"]
        print(f"{exp_id}{' (quick)' if a.quick else ''}: {runs} runs, {a.workers} workers, "
              f"model {msctp.model_fingerprint()}")
        for name, s in times.items():
            print(f"  {name:38s} {s:8.2f} s  {s / base:5.2f} x  "
                  f"({(s - base) / max(runs, 1) * 1e3:+.2f} ms per run)")
        print(f"  same stored runs in every path: {same}")
        if not same:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
