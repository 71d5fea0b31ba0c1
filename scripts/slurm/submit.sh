#!/usr/bin/env bash
# Reproduces a study on a Slurm cluster: a job array of N tasks, each
# running one slice of the plan, then a job that merges the stored runs
# into the report once every task has ended (even if some failed: the
# report then says which runs are missing; submit again to run only those).
#
#   scripts/slurm/submit.sh E5 16 [--quick] [--out DIR] [--experiments DIR]
#
# Extra sbatch options (partition, account, time) go in SBATCH_ARGS, e.g.
# SBATCH_ARGS="--partition=short --account=lab". MSCTP names the msctp
# executable (default: msctp on PATH), as seen from the compute nodes.
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 EXPERIMENT TASKS [msctp reproduce options]" >&2
    exit 2
fi
id=$1
tasks=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
msctp=${MSCTP:-msctp}
# shellcheck disable=SC2086
array=$(sbatch --parsable ${SBATCH_ARGS:-} --export=ALL,MSCTP="$msctp" \
    --array="1-$tasks" "$here/reproduce-array.sbatch" "$id" "$@")
array=${array%%;*}
report_cmd=$(printf '%q ' "$msctp" reproduce "$id" --report-only "$@")
# shellcheck disable=SC2086
report=$(sbatch --parsable ${SBATCH_ARGS:-} --job-name=msctp-report \
    --output="msctp-report-%j.out" --dependency="afterany:$array" --wrap "$report_cmd")
echo "submitted array job $array ($tasks tasks) and report job $report"
