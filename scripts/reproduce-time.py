#!/usr/bin/env python3
"""Checks the time goal of the whole reproduction (issues 33, 34, 37): the
README's main job, `msctp reproduce` on its built-in defaults (every study,
every run afresh, REPRODUCTION.md and its figures written), in under 5
minutes on the 2-core machine.

Each invocation runs the command from the repository's root as the README
gives it, with `--fresh` (no stored run is reused) and with the results and
the report written to a temporary directory (`--out`, `--docs`), so the
checkout's docs/ is left alone. The figure judged is the wall time of the
whole command, measured here (process start to exit, the report included);
the command's own summary (the pool's wall time, CPU seconds of the runs)
and the CPU time of the process are printed beside it. Other work on the
machine is measured over the two seconds before each start (the cores'
busy share, from /proc/stat) and a start on cores more than 10 % busy is
flagged; a run's time on a shared virtual machine also moves by 10 to
25 % with the host itself, so with `--invocations N` the goal is judged
on the median.

Usage:
  scripts/reproduce-time.py [--msctp PATH] [--invocations N] [--limit S]
                            [--keep DIR] [-- REPRODUCE ARGS]

REPRODUCE ARGS go to `msctp reproduce` after `--fresh --out --docs` (e.g.
`E4-pingpong --quick` for a short check of this script). Exit 0: the goal
met; 1: missed; 2: usage error or the command failed.
"""

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

LIMIT_S = 300.0
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SUMMARY = re.compile(
    r"^all: (\d+) runs .* in ([0-9.]+) s on (\d+) workers?; ([0-9.]+) s of runs \(([0-9.]+) s CPU\)"
)


def cpu_times():
    """(busy, total) jiffies of all cores from /proc/stat, or None."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


def busy_share(window_s=2.0):
    """The share of all cores' time spent busy during `window_s` seconds
    (other work on the machine), or the 1-minute load average per core
    where /proc/stat cannot be read."""
    a = cpu_times()
    time.sleep(window_s)
    b = cpu_times()
    if a is None or b is None or b[1] == a[1]:
        return os.getloadavg()[0] / (os.cpu_count() or 1)
    return (b[0] - a[0]) / (b[1] - a[1])


def child_cpu_s():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def one(msctp, extra, keep, k):
    """Runs the reproduction once; a dict of its figures, or None."""
    base = keep or tempfile.mkdtemp(prefix="msctp-reproduce-time-")
    try:
        return run_in(msctp, extra, base, k)
    finally:
        if not keep:
            shutil.rmtree(base, ignore_errors=True)


def run_in(msctp, extra, base, k):
    out = os.path.join(base, f"results-{k}")
    docs = os.path.join(base, f"docs-{k}")
    cmd = [msctp, "reproduce", "--fresh", "--out", out, "--docs", docs, *extra]
    load = busy_share()
    print(f"invocation {k}: {' '.join(cmd)} (cores {100 * load:.0f} % busy before)", file=sys.stderr)
    cpu0 = child_cpu_s()
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    except OSError as e:
        print(f"reproduce-time: {msctp}: {e}", file=sys.stderr)
        return None
    wall = time.monotonic() - t0
    cpu = child_cpu_s() - cpu0
    if p.returncode != 0:
        print(f"reproduce-time: the command failed ({p.returncode}):\n{p.stderr}{p.stdout}", file=sys.stderr)
        return None
    summary = None
    for line in p.stdout.splitlines():
        m = SUMMARY.match(line)
        if m:
            summary = m
        elif line.split(":", 1)[0] and " runs (" in line:
            print(f"  {line.split(';', 1)[0]}")
    if summary is None:
        print(f"reproduce-time: no summary line in the output:\n{p.stdout}", file=sys.stderr)
        return None
    return {
        "wall": wall,
        "cpu": cpu,
        "load": load,
        "runs": int(summary.group(1)),
        "pool_wall": float(summary.group(2)),
        "workers": int(summary.group(3)),
        "run_cpu": float(summary.group(5)),
    }


def parse_args(argv):
    extra = []
    if "--" in argv:
        k = argv.index("--")
        argv, extra = argv[:k], argv[k + 1:]
    parser = argparse.ArgumentParser(
        prog="reproduce-time.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--msctp", default=os.path.join(ROOT, "target/release/msctp"), metavar="PATH")
    parser.add_argument("--invocations", type=int, default=1, metavar="N")
    parser.add_argument("--limit", type=float, default=LIMIT_S, metavar="S")
    parser.add_argument("--keep", metavar="DIR", help="write results and reports here (kept) instead of a temporary directory")
    args = parser.parse_args(argv)
    if not 1 <= args.invocations <= 20:
        parser.error("--invocations must lie in [1, 20]")
    if not args.limit > 0:
        parser.error("--limit must be positive")
    args.extra = extra
    return args


def main(argv):
    args = parse_args(argv)
    msctp = os.path.abspath(args.msctp)
    if not os.access(msctp, os.X_OK):
        print(f"reproduce-time: {msctp} is not an executable (build it: cargo build --release -p msctp)", file=sys.stderr)
        return 2
    results = []
    for k in range(1, args.invocations + 1):
        r = one(msctp, args.extra, args.keep, k)
        if r is None:
            return 2
        busy = f"  (BUSY machine: cores {100 * r['load']:.0f} % busy before the start)" if r["load"] > 0.1 else ""
        print(
            f"invocation {k}: {r['wall']:.1f} s wall for the whole command; "
            f"{r['runs']} runs, pool {r['pool_wall']:.1f} s on {r['workers']} workers, "
            f"{r['run_cpu']:.1f} CPU s of runs, {r['cpu']:.1f} CPU s of the process{busy}"
        )
        results.append(r)
    walls = [r["wall"] for r in results]
    m = statistics.median(walls)
    met = m < args.limit
    each = " ".join(f"{w:.1f}" for w in walls)
    print(
        f"whole reproduction: median {m:.1f} s over {len(walls)} invocation(s) ({each}); "
        f"goal under {args.limit:g} s: {'met' if met else 'MISSED'}; {os.cpu_count()} cores"
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
