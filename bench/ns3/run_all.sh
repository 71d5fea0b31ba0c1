#!/usr/bin/env bash
# Builds the ns-3 reference programs and runs the scenarios of README.md,
# printing one JSON line per run. Usage: run_all.sh [BUILD_DIR] [RUNS]
# (RUNS: seeds 1..RUNS for the scenarios with random loss; default 20).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${1:-$here/build}"
runs="${2:-20}"
"$here/build.sh" "$bin"
p="$bin/tcp_bulk"
for sack in 0 1; do
    "$p" --name=a --links=2Mbps:25ms:20 --time=60 --sack=$sack
    "$p" --name=b --links=2Mbps:100ms:20 --time=60 --sack=$sack
    for run in $(seq 1 "$runs"); do
        "$p" --name=c --links=2Mbps:25ms:20 --time=60 --loss=0.01 --run="$run" --sack=$sack
        "$p" --name=d --links=2Mbps:100ms:20 --time=60 --loss=0.01 --run="$run" --sack=$sack
    done
    "$p" --name=e --links=10Mbps:15ms:100,2Mbps:1ms:100 --time=600 --sack=$sack
done
