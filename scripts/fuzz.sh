#!/usr/bin/env bash
# Coverage-guided fuzzing of msctp with libFuzzer (cargo-fuzz).
#
#   scripts/fuzz.sh [-m MINUTES] [TARGET...]   fuzz each target MINUTES (default 10), one after the other
#   scripts/fuzz.sh --merge [TARGET...]        add what the runs found to fuzz/corpus, minimised
#   scripts/fuzz.sh --list                     the targets
#   scripts/fuzz.sh --totals                   executions, CPU-hours, exec per CPU-second, CPU-hours
#                                              still needed for 1e8 executions and the last coverage
#                                              per target, summed over every run in fuzz/stats.tsv
#   scripts/fuzz.sh --bin DIR ...              run prebuilt binaries from DIR
#                                              (a copy made at a commit, so a long
#                                              campaign goes on while the tree changes)
#   scripts/fuzz.sh --no-trace-compares ...    build without libFuzzer's comparison
#                                              tracing: about 1.9x the executions per
#                                              CPU-second on `established` (its corpus
#                                              replays in 2.9 instead of 5.5 CPU-s),
#                                              without the comparison operands the
#                                              mutator learns magic values from; the
#                                              commit column gets "+nocmp"
#
# Each target starts from its checked-in corpus (fuzz/corpus/TARGET, read
# only) and writes new inputs to fuzz/work/TARGET; crashes go to
# fuzz/artifacts/TARGET. `--merge` then adds to fuzz/corpus a smallest set
# of inputs that reaches the code edges the corpus does not (libFuzzer's
# greedy set cover over edges, hit counts ignored), so the checked-in
# corpus stays small; `cargo test -p msctp-fuzz` replays it.
# Statistics of every run are appended to fuzz/stats.tsv (checked in, so
# the executions of all campaigns add up in one place): end time,
# target, commit fuzzed (with "+dirty" for uncommitted changes), executions,
# exec/s, cov and ft (libFuzzer's edge and feature counts), the crashes,
# timeouts and out-of-memory inputs the run wrote, its length in seconds
# and the CPU-seconds it got.
#
# cargo-fuzz needs nightly compiler flags (-Z sanitizer options,
# coverage instrumentation); on the stable toolchain RUSTC_BOOTSTRAP=1
# unlocks them. Targets are built in release mode with debug assertions
# and overflow checks, without AddressSanitizer (the engine is safe Rust;
# ASan would halve the speed and find nothing the panics do not).
# Fuzzing runs under `nice -n 19`, so it only takes idle CPU.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(codec listener established session scenario script)
# Largest input per target: a datagram for the packet targets, a small
# file for the parsers, a short sequence of steps for the others.
declare -A MAX_LEN=([codec]=2048 [listener]=2048 [established]=1024 [session]=512 [scenario]=4096 [script]=4096)

minutes=10
merge=0
totals=0
bin_dir=""
nocmp=0
sel=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        -m) minutes="$2"; shift 2 ;;
        --merge) merge=1; shift ;;
        --list) printf '%s\n' "${TARGETS[@]}"; exit 0 ;;
        --totals) totals=1; shift ;;
        --bin) bin_dir="$2"; shift 2 ;;
        --no-trace-compares) nocmp=1; shift ;;
        -h|--help) sed -n '2,39p' "$0"; exit 0 ;;
        *) sel+=("$1"); shift ;;
    esac
done
[[ ${#sel[@]} -eq 0 ]] && sel=("${TARGETS[@]}")
stats=fuzz/stats.tsv

if [[ $totals -eq 1 ]]; then
    # Runs without a recorded length (the first ones) count executions only.
    # Runs without a recorded CPU time (the earlier ones) count executions
    # only; exec/CPU-s and the CPU-hours still needed for 1e8 come from
    # the runs that have one.
    awk -F'\t' 'NR > 1 {
            n[$2] += $4; runs[$2]++; found[$2] += $8
            if ($10 != "" && $10 != "-" && $10 > 0) { cpu[$2] += $10; timed[$2] += $4 }
            cov[$2] = $6; ft[$2] = $7
        }
        END {
            printf "%-12s %5s %12s %9s %12s %12s %6s %6s %8s\n", "target", "runs", "execs", "cpu_h", "exec/cpu_s", "cpu_h_to_1e8", "cov", "ft", "findings"
            for (t in n) {
                rate = cpu[t] ? timed[t] / cpu[t] : 0
                left = n[t] < 1e8 ? (rate ? sprintf("%.2f", (1e8 - n[t]) / rate / 3600) : "?") : "0"
                printf "%-12s %5d %12d %9.2f %12.0f %12s %6s %6s %8d\n", t, runs[t], n[t], cpu[t] / 3600, rate, left, cov[t], ft[t], found[t]
            }
        }' "$stats"
    exit 0
fi

if [[ -z "$bin_dir" ]]; then
    export RUSTC_BOOTSTRAP=1
    if ! cargo fuzz --version >/dev/null 2>&1; then
        cargo install cargo-fuzz --locked
    fi
    FUZZ_DIR=fuzz/libfuzzer
    target_dir="$FUZZ_DIR/target"
    build_flags=()
    if [[ $nocmp -eq 1 ]]; then
        # Its own target directory: other flags, so the usual build stays.
        target_dir="$FUZZ_DIR/target-nocmp"
        build_flags=(--no-trace-compares)
    fi
    cargo fuzz build --fuzz-dir "$FUZZ_DIR" -s none --target-dir "$target_dir" "${build_flags[@]}"
    triple=$(rustc -vV | sed -n 's/^host: //p')
    bin_dir="$target_dir/$triple/release"
    commit=$(git rev-parse --short=10 HEAD 2>/dev/null || echo unknown)
    git diff --quiet HEAD -- crates fuzz/src 2>/dev/null || commit="$commit+dirty"
    [[ $nocmp -eq 1 ]] && commit="$commit+nocmp"
else
    # A copy of the binaries names its commit in a file COMMIT beside them.
    commit=$(cat "$bin_dir/COMMIT" 2>/dev/null || echo unknown)
fi
mkdir -p fuzz/work fuzz/artifacts
findings_in() { find "$1" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l; }
for t in "${sel[@]}"; do
    [[ -n "${MAX_LEN[$t]:-}" ]] || { echo "unknown target $t (see --list)" >&2; exit 2; }
    mkdir -p "fuzz/work/$t" "fuzz/artifacts/$t" "fuzz/corpus/$t"
    if [[ $merge -eq 1 ]]; then
        # Adds to the corpus what the work directory covers beyond it.
        "$bin_dir/$t" -set_cover_merge=1 -use_counters=0 -use_value_profile=0 -max_len="${MAX_LEN[$t]}" "fuzz/corpus/$t" "fuzz/work/$t" "fuzz/artifacts/$t" \
            2>&1 | grep -E "MERGE-OUTER: [0-9]+ new files" || true
        continue
    fi
    [[ -x "$bin_dir/$t" ]] || { echo "no binary $bin_dir/$t" >&2; exit 1; }
    log="fuzz/work/$t.$(date +%Y%m%d-%H%M%S).log"
    echo "fuzzing $t at $commit for $minutes min (log $log)"
    # Findings are crashes, timeouts, out-of-memory inputs and leaks;
    # "slow-unit" files are not: at nice 19 on a busy machine an input
    # that runs in milliseconds can wait seconds for the CPU (libFuzzer
    # measures wall time), so they are kept for a look but not counted.
    before=$(findings_in "fuzz/artifacts/$t")
    marker=$(mktemp)
    start=$(date +%s)
    # The CPU time it got (user + system): at nice 19 on a shared machine
    # far less than its length, and what executions per CPU-second and
    # the CPU-hours still needed are computed from.
    cpu=$( {
        TIMEFORMAT='%3U %3S'
        # A process stopped for longer than -timeout (a benchmark that
        # pauses the campaign with SIGSTOP) gets a false alarm when it
        # resumes, and libFuzzer's alarm handler can then hang: the outer
        # timeout ends such a run (SIGTERM still prints the final stats).
        time timeout -k 30 $((minutes * 60 + 300)) nice -n 19 "$bin_dir/$t" "fuzz/work/$t" "fuzz/corpus/$t" \
            -max_total_time=$((minutes * 60)) -max_len="${MAX_LEN[$t]}" -timeout=10 \
            -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="fuzz/artifacts/$t/" >"$log" 2>&1 || true
    } 2>&1 | awk '{printf "%.0f", $1 + $2}')
    secs=$(($(date +%s) - start))
    execs=$(grep -h 'stat::number_of_executed_units' "$log" | awk '{s+=$2} END {print s+0}' || true)
    speed=$(grep -h 'stat::average_exec_per_sec' "$log" | awk '{s+=$2} END {print s+0}' || true)
    cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 | awk '{print $2 "\t" $4}' || true)
    [[ -n "$cov" ]] || cov=$'-\t-'
    # A timeout is a finding only if the input is slow on its own: each
    # new one runs again alone, at normal priority; one that finishes
    # (a false alarm: the process waited for the CPU or was stopped) is
    # moved to fuzz/artifacts/TARGET/spurious and not counted.
    while IFS= read -r f; do
        if timeout 60 "$bin_dir/$t" -timeout=10 -rss_limit_mb=2048 "$f" >/dev/null 2>&1; then
            mkdir -p "fuzz/artifacts/$t/spurious"
            mv "$f" "fuzz/artifacts/$t/spurious/"
            echo "  $(basename "$f"): runs alone within the timeout, a false alarm (moved to spurious/)"
        fi
    done < <(find "fuzz/artifacts/$t" -maxdepth 1 -type f -name 'timeout-*' -newer "$marker")
    rm -f "$marker"
    findings=$(($(findings_in "fuzz/artifacts/$t") - before))
    [[ -s "$stats" ]] || printf 'end\ttarget\tcommit\texecs\texec_per_s\tcov\tft\tfindings\tseconds\tcpu_seconds\n' >"$stats"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$commit" "$execs" "$speed" "$cov" "$findings" "$secs" "$cpu" >>"$stats"
    echo "  $execs executions, $speed exec/s ($((execs / (cpu > 0 ? cpu : 1))) per CPU-second), cov/ft ${cov/$'\t'//}, $findings new artifacts"
done
