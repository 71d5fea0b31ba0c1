#!/usr/bin/env python3
"""Checks the simulator's speed goals of issue 11 against `msctp bench sim`.

The goals: at least 5 M events per CPU-second on the bulk transfer; the
path estimators cost at most 5 % (median ratio of CPU per event with and
without them) on the bulk transfer and at each point of the stations
axis; the total cost grows at most linearly with the stations (CPU from
the smallest to the largest point of the axis grows by no more than the
number of stations does).

One invocation of the bench is no measure on a shared machine: a run's
CPU time varies by 10 to 40 % with other work. So the bench runs
`--invocations` times (default 3), one after the other, and each goal is
judged on the median over the invocations of its figure. Every
invocation's figures are printed, so the spread is in plain view.

Usage:
  scripts/bench-goals.py [--msctp PATH] [--invocations N] [-- BENCH ARGS]
  scripts/bench-goals.py --from-json FILE...   (judge saved `--json` output)

BENCH ARGS go to `msctp bench sim` (default: `--runs 3`); `--json` is
added. Exit 0: every goal met; 1: some goal missed; 2: usage or bench
error.
"""

import argparse
import json
import statistics
import subprocess
import sys

EVENTS_GOAL = 5.0  # M events per CPU-second
ESTIMATOR_GOAL = 1.05
GROWTH_GOAL = 1.0  # CPU growth over stations growth


def figures(report):
    """Each goal's figure in one `--json` report, as {name: (value,
    relation, bound)}: the bench's own figures (its median ratios, not
    recomputed here)."""
    f = {"bulk M events/CPU-s": (report["bulk"]["events_per_cpu_s"] / 1e6, ">=", EVENTS_GOAL)}
    if report.get("estimators_cost_ratio") is not None:
        f["estimators, bulk"] = (report["estimators_cost_ratio"], "<=", ESTIMATOR_GOAL)
    for point in report.get("stations", []):
        if point.get("estimators_cost_ratio") is not None:
            name = f"estimators, {point['stations']} stations"
            f[name] = (point["estimators_cost_ratio"], "<=", ESTIMATOR_GOAL)
    growth = report.get("stations_growth")
    if growth:
        ratio = growth["cpu_ratio"] / growth["stations_ratio"]
        f["CPU growth / stations growth"] = (ratio, "<=", GROWTH_GOAL)
    return f


def judge(reports):
    """Prints every invocation's figures and the medians; True if met."""
    per = [figures(r) for r in reports]
    names = [n for n in per[0] if all(n in p for p in per)]
    if not names:
        print("bench-goals: no figures in the reports", file=sys.stderr)
        return False
    builds = sorted({r.get("build", "?") for r in reports})
    print(f"build: {', '.join(builds)}; {len(reports)} invocation(s)")
    ok = True
    for n in names:
        values = [p[n][0] for p in per]
        _, relation, bound = per[0][n]
        m = statistics.median(values)
        met = m >= bound if relation == ">=" else m <= bound
        ok &= met
        each = " ".join(f"{v:.3f}" for v in values)
        wording = f"{relation} {bound:.2f}"
        print(f"  {n:32} median {m:7.3f}  goal {wording:8} {'met' if met else 'MISSED'}   ({each})")
    print("every goal met" if ok else "some goal missed")
    return ok


def parse_args(argv):
    """The command line; argparse exits with 2 on a usage error."""
    # What follows `--` goes to the bench as it is.
    bench_args = ["--runs", "3"]
    if "--" in argv:
        k = argv.index("--")
        argv, bench_args = argv[:k], argv[k + 1:]
    parser = argparse.ArgumentParser(
        prog="bench-goals.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--msctp", default="target/release/msctp", metavar="PATH")
    parser.add_argument("--invocations", type=int, default=3, metavar="N")
    parser.add_argument("--from-json", nargs="+", metavar="FILE", dest="files")
    args = parser.parse_args(argv)
    if not 1 <= args.invocations <= 100:
        parser.error("--invocations must lie in [1, 100]")
    args.bench_args = bench_args
    return args


def main(argv):
    args = parse_args(argv)
    reports = []
    if args.files is not None:
        for path in args.files:
            try:
                with open(path) as f:
                    reports.append(json.load(f))
            except (OSError, ValueError) as e:
                print(f"bench-goals: {path}: {e}", file=sys.stderr)
                return 2
    else:
        for k in range(args.invocations):
            cmd = [args.msctp, "bench", "sim", *args.bench_args, "--json"]
            print(f"invocation {k + 1}/{args.invocations}: {' '.join(cmd)}", file=sys.stderr)
            try:
                out = subprocess.run(cmd, capture_output=True, text=True, check=False)
            except OSError as e:
                print(f"bench-goals: {args.msctp}: {e}", file=sys.stderr)
                return 2
            if out.returncode != 0:
                print(f"bench-goals: the bench failed:\n{out.stderr}", file=sys.stderr)
                return 2
            try:
                reports.append(json.loads(out.stdout))
            except ValueError as e:
                print(f"bench-goals: the bench printed no JSON: {e}", file=sys.stderr)
                return 2
    try:
        return 0 if judge(reports) else 1
    except (KeyError, TypeError, ZeroDivisionError) as e:
        print(f"bench-goals: not a `msctp bench sim --json` report: {e!r}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
