#!/usr/bin/env bash
# A large `sbufsim sweep` spread over a Slurm job array: task I of N runs the I-th of N contiguous
# blocks of rows (--shard I/N), so the shards' CSV files concatenated in task order are exactly the
# table one unsharded run writes (only shard 0 writes the header). docs/sweeps.md.
#
# Submit (4 tasks; the array must be 0..N-1):
#   sbatch --array=0-3 scripts/slurm_sweep.sh traces/dma_vs_compute.trc \
#       --vary tdm.dma_slots=0:8 --vary tdm.max_slots=8,16 --vary tdm.strict=true,false
# Merge once every task has finished (a re-submitted task resumes its own part file):
#   cat sweep-out/part-*.csv > results.csv
#
# Environment: SBUFSIM (the binary, default: sbufsim on PATH), SWEEP_OUT (default: sweep-out).
#SBATCH --job-name=sbufsim-sweep
#SBATCH --cpus-per-task=8
#SBATCH --time=01:00:00
#SBATCH --output=sweep-%A_%a.log
set -euo pipefail

: "${SLURM_ARRAY_TASK_ID:?submit with sbatch --array=0-N-1}"
: "${SLURM_ARRAY_TASK_COUNT:?submit with sbatch --array=0-N-1}"
SBUFSIM="${SBUFSIM:-sbufsim}"
OUT="${SWEEP_OUT:-sweep-out}"
mkdir -p "$OUT"

# Zero-padded so that `cat part-*.csv` concatenates in shard order for any N up to 10^5.
part=$(printf '%s/part-%05d.csv' "$OUT" "$SLURM_ARRAY_TASK_ID")

# One worker per allocated CPU; the sweep's exit status 1 (some point invalid) is not a failure
# of the task: the row says why.
set +e
"$SBUFSIM" sweep "$@" \
    --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" \
    --jobs "${SLURM_CPUS_PER_TASK:-1}" \
    --out "$part" --quiet
rc=$?
set -e
if [ "$rc" -gt 1 ]; then
    echo "sbufsim sweep failed with status $rc" >&2
    exit "$rc"
fi
echo "shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT: $(wc -l < "$part") lines in $part"
