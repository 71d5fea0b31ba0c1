#!/usr/bin/env python3
"""Checks the simulator's speed goals of issue 11 against `msctp bench sim`,
or with `--net` the real driver's goals of issue 37 against `msctp bench net`.

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

The net goals (issue 37), on loopback, each contender measured in the
same run: msctp at 1452-byte packets at least 1.0x quinn's MB/s and at
most its CPU per GB; msctp at 64 kB packets at least 0.8x kernel TCP's
MB/s; msctp with AUTH at least 0.5x quinn's MB/s. `msctp bench net`
runs every contender in rounds (`--rounds`) and gives each ratio as the
median of the rounds' own ratios; those medians are judged here.

With `--tunnel`, the tunnel's goal (issue 36) against `msctp bench net
--tunnel`: one TCP stream through `msctp tunnel` (its defaults) on
loopback at least 0.5x the same stream straight to the sink, the median
transfers of one run (`--rounds`) compared.

Usage:
  scripts/bench-goals.py [--msctp PATH] [--invocations N] [-- BENCH ARGS]
  scripts/bench-goals.py --net [--msctp PATH] [--invocations N] [-- BENCH ARGS]
  scripts/bench-goals.py --tunnel [--msctp PATH] [--invocations N] [-- BENCH ARGS]
  scripts/bench-goals.py --from-json FILE...   (judge saved `--json` output,
                                                sim or net, told by its fields)

BENCH ARGS go to `msctp bench sim` (default: `--runs 3`), with `--net`
to `msctp bench net` (default: `--rounds 5 --estimator-pairs 0`, one
invocation), with `--tunnel` to `msctp bench net --tunnel` (default:
`--rounds 5`, one invocation); `--json` is added. Exit 0: every goal met; 1: some goal missed; 2: usage or bench
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


# The net goals: (name, ratio's `of` starts with, `to` starts with, field,
# relation, bound).
NET_GOALS = [
    ("1452-byte msctp / quinn, MB/s", "msctp, AUTH off, 1452-byte", "quinn", "mb_per_s", ">=", 1.0),
    ("1452-byte msctp / quinn, CPU per GB", "msctp, AUTH off, 1452-byte", "quinn", "cpu_per_gb", "<=", 1.0),
    ("64 kB msctp / kernel TCP, MB/s", "msctp (SCTP over UDP)", "kernel TCP", "mb_per_s", ">=", 0.8),
    ("msctp with AUTH / quinn, MB/s", "msctp, AUTH on", "quinn", "mb_per_s", ">=", 0.5),
]


def net_figures(report):
    """The net goals' figures in one `msctp bench net --json` report: the
    bench's own median ratios over its rounds."""
    f = {}
    for name, of, to, field, relation, bound in NET_GOALS:
        for r in report["ratios"]:
            if r["of"].startswith(of) and r["to"].startswith(to) and r.get(field) is not None:
                f[name] = (r[field], relation, bound)
    return f


def tunnel_figures(report):
    """The tunnel's goal in one `msctp bench net --tunnel --json` report:
    median tunnel over median direct transfer, and the bench's bound."""
    return {"tunnel / direct TCP, MB/s": (report["ratio"], ">=", report["goal"])}


def report_figures(report):
    """Each goal's figure of a report of any of the three kinds, told by
    its fields."""
    if "tunnel_mbps" in report:
        return tunnel_figures(report)
    if "rounds" in report:
        return net_figures(report)
    return figures(report)


def judge(reports):
    """Prints every invocation's figures and the medians; True if met."""
    per = [report_figures(r) for r in reports]
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
    bench_args = None
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
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--net", action="store_true")
    kind.add_argument("--tunnel", action="store_true")
    args = parser.parse_args(argv)
    if bench_args is None:
        if args.tunnel:
            bench_args = ["--rounds", "5"]
        elif args.net:
            bench_args = ["--rounds", "5", "--estimator-pairs", "0"]
        else:
            bench_args = ["--runs", "3"]
    if args.tunnel:
        bench_args = ["--tunnel", *bench_args]
    if (args.net or args.tunnel) and "--invocations" not in argv:
        args.invocations = 1
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
            what = "net" if args.net or args.tunnel else "sim"
            cmd = [args.msctp, "bench", what, *args.bench_args, "--json"]
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
        print(f"bench-goals: not a `msctp bench sim --json`, `msctp bench net --json` or `msctp bench net --tunnel --json` report: {e!r}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
