#!/usr/bin/env python3
"""Compares two `msctp reproduce` result roots run by run.

For every experiment directory of A: runs.csv must hold the same rows in
the same order with the same values, except the columns that name or time
a run (run_key, which includes the build's source fingerprint, and
wall_time_s), and summary.csv must be byte-identical. Used to show that a change of build or of code that should
not move any result (an optimisation) moves none.

Usage: scripts/compare-results.py A B   (exit 0: all the same; 1: some differ)
"""

import csv
import filecmp
import os
import sys

SKIP = {"run_key", "wall_time_s"}


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    cols = set(rows[0].keys()) if rows else set()
    return [{k: v for k, v in r.items() if k not in SKIP} for r in rows], cols


def compare(a_root, b_root, exp):
    a_runs = os.path.join(a_root, exp, "runs.csv")
    b_runs = os.path.join(b_root, exp, "runs.csv")
    if not os.path.exists(b_runs):
        return "missing in B"
    a, a_cols = load(a_runs)
    b, b_cols = load(b_runs)
    if a_cols != b_cols:
        diff = sorted(a_cols ^ b_cols)
        return f"{len(diff)} columns differ: {diff[:8]}"
    if len(a) != len(b):
        return f"{len(a)} runs against {len(b)}"
    differing = sorted({k for x, y in zip(a, b) for k in x if x[k] != y[k]})
    if differing:
        return f"runs differ in {differing[:8]}"
    a_sum = os.path.join(a_root, exp, "summary.csv")
    b_sum = os.path.join(b_root, exp, "summary.csv")
    if os.path.exists(a_sum) and not (
        os.path.exists(b_sum) and filecmp.cmp(a_sum, b_sum, shallow=False)
    ):
        return "summary differs"
    return None


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    a_root, b_root = argv[1], argv[2]
    exps = sorted(
        e for e in os.listdir(a_root) if os.path.exists(os.path.join(a_root, e, "runs.csv"))
    )
    if not exps:
        print(f"no experiment results under {a_root}", file=sys.stderr)
        return 2
    bad = 0
    for e in exps:
        why = compare(a_root, b_root, e)
        bad += why is not None
        print(f"{e}: {'same' if why is None else why}")
    print("all the same" if bad == 0 else f"{bad} of {len(exps)} experiments differ")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
