#!/usr/bin/env bash
# Builds the `msctp` command with profile-guided optimisation (PGO):
#
#   1. an instrumented release build (target/pgo-gen);
#   2. training: the studies' smoke run, `msctp reproduce --quick` (every
#      experiment file, fewer repetitions): the work the simulator and the
#      engine do for a user, not the benchmarks that measure them;
#   3. the optimised release build (target/pgo), from the merged profile.
#
# The result is target/pgo/release/msctp. Its simulation results are the
# same, run by run, as the plain release build's (PGO moves code, it does
# not change what the code computes: no fast-math); `--check` compares
# the two builds' `reproduce --quick` results to show it. docs/measurements/build-profiles.md
# gives the measured speed-up.
#
# Needs `llvm-profdata` of the LLVM that rustc uses: the `llvm-tools`
# rustup component (installed here if rustup can). About 12 minutes on a
# 2-core machine (two fat-LTO builds and the training run).
#
# Usage: scripts/pgo.sh [--check]
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
check=0
for a in "$@"; do
    case "$a" in
        --check) check=1 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "pgo.sh: unknown argument '$a' (usage: scripts/pgo.sh [--check])" >&2; exit 2 ;;
    esac
done

sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
if [[ ! -x "$profdata" ]]; then
    echo "pgo.sh: llvm-profdata not found; adding the llvm-tools component" >&2
    rustup component add llvm-tools >&2 || true
fi
if [[ ! -x "$profdata" ]]; then
    echo "pgo.sh: $profdata is missing: install it with 'rustup component add llvm-tools'" >&2
    exit 1
fi

data="$root/target/pgo-data"
train="$root/target/pgo-train"
rm -rf "$data" "$train"
mkdir -p "$data"

echo "== 1/3 instrumented build (target/pgo-gen)"
RUSTFLAGS="-Cprofile-generate=$data" CARGO_TARGET_DIR="$root/target/pgo-gen" \
    cargo build --release --bin msctp
# Build scripts ran instrumented too: their profiles are not the program's.
rm -f "$data"/*.profraw

echo "== 2/3 training: msctp reproduce --quick"
"$root/target/pgo-gen/release/msctp" reproduce --quick --out "$train" >/dev/null
"$profdata" merge -o "$data/merged.profdata" "$data"/*.profraw

echo "== 3/3 optimised build (target/pgo)"
RUSTFLAGS="-Cprofile-use=$data/merged.profdata" MSCTP_BUILD_PGO="reproduce --quick" \
    CARGO_TARGET_DIR="$root/target/pgo" cargo build --release --bin msctp
echo "built $root/target/pgo/release/msctp"

if [[ $check == 1 ]]; then
    echo "== check: reproduce --quick, plain release build against the PGO build"
    cargo build --release --bin msctp
    rm -rf "$root/target/pgo-check"
    "$root/target/release/msctp" reproduce --quick --out "$root/target/pgo-check/plain" >/dev/null
    "$root/target/pgo/release/msctp" reproduce --quick --out "$root/target/pgo-check/pgo" >/dev/null
    python3 "$root/scripts/compare-results.py" "$root/target/pgo-check/plain" "$root/target/pgo-check/pgo"
fi
