#!/usr/bin/env bash
# A large `sbufsim sweep` spread over a Slurm job array: task I of N runs the I-th of N contiguous
# blocks of rows (--shard I/N), so the shards' CSV files concatenated in task order are exactly the
# table one unsharded run writes (only shard 0 writes the header). docs/sweeps.md.
#
# Submit (4 tasks; the array must be 0..N-1; `--cpus-per-task=N`, N at most one node's CPUs, gives
# each task N workers; without it a task uses what its node gives it):
#   sbatch --array=0-3 scripts/slurm_sweep.sh traces/dma_vs_compute.trc \
#       --vary tdm.dma_slots=0:8 --vary tdm.max_slots=8,16 --vary tdm.strict=true,false
# Merge once every task has finished:
#   cat sweep-out/part-*.csv > results.csv
# A failed or pre-empted task re-submitted on its own resumes its part file; say how many shards
# the whole array has, since a one-task array's SLURM_ARRAY_TASK_COUNT is 1:
#   SWEEP_SHARDS=4 sbatch --array=2 scripts/slurm_sweep.sh ...(the same arguments)
#
# Workers: one per CPU of the allocation (SLURM_CPUS_PER_TASK, else SLURM_CPUS_ON_NODE), so the
# same script fits any node; SWEEP_JOBS overrides.
# Binary: $SBUFSIM, else `sbufsim` on PATH (an install), else build/sbufsim of the checkout the job
# was submitted from.
# Output: $SWEEP_OUT (default: sweep-out), part-NNNNN.csv per task.
#SBATCH --job-name=sbufsim-sweep
#SBATCH --time=01:00:00
#SBATCH --output=sweep-%A_%a.log
set -euo pipefail

: "${SLURM_ARRAY_TASK_ID:?submit with sbatch --array=0-N-1}"
# Shards in the whole sweep: the array's size, or SWEEP_SHARDS for a task re-submitted alone.
shards=${SWEEP_SHARDS:-${SLURM_ARRAY_TASK_COUNT:?submit with sbatch --array=0-N-1}}
if ! [[ $shards =~ ^[1-9][0-9]*$ ]] || ((SLURM_ARRAY_TASK_ID >= shards)); then
    echo "slurm_sweep.sh: task $SLURM_ARRAY_TASK_ID of $shards shard(s): a task re-submitted on its own" \
        "needs the whole array's size, e.g. SWEEP_SHARDS=16 sbatch --array=$SLURM_ARRAY_TASK_ID ..." >&2
    exit 2
fi

if [[ -n ${SBUFSIM:-} ]]; then
    sbufsim=$SBUFSIM
elif command -v sbufsim >/dev/null; then
    sbufsim=$(command -v sbufsim)
elif [[ -x ${SLURM_SUBMIT_DIR:-.}/build/sbufsim ]]; then
    sbufsim=${SLURM_SUBMIT_DIR:-.}/build/sbufsim
else
    echo "slurm_sweep.sh: no sbufsim: set SBUFSIM, install it on PATH, or submit from a checkout with build/sbufsim" >&2
    exit 2
fi
jobs=${SWEEP_JOBS:-${SLURM_CPUS_PER_TASK:-${SLURM_CPUS_ON_NODE:-1}}}
OUT="${SWEEP_OUT:-sweep-out}"
mkdir -p "$OUT"

# Zero-padded so that `cat part-*.csv` concatenates in shard order for any N up to 10^5.
part=$(printf '%s/part-%05d.csv' "$OUT" "$SLURM_ARRAY_TASK_ID")
echo "shard $SLURM_ARRAY_TASK_ID/$shards on $(hostname): $jobs workers, $sbufsim"

# The sweep's exit status 1 (some point invalid) is not a failure of the task: the row says why.
set +e
"$sbufsim" sweep "$@" \
    --shard "$SLURM_ARRAY_TASK_ID/$shards" \
    --jobs "$jobs" \
    --out "$part" --quiet
rc=$?
set -e
if [ "$rc" -gt 1 ]; then
    echo "sbufsim sweep failed with status $rc" >&2
    exit "$rc"
fi
echo "shard $SLURM_ARRAY_TASK_ID/$shards: $(wc -l < "$part") lines in $part"
