#!/usr/bin/env bash
# The speed table of docs/performance.md, measured on a Release build:
#
#   scripts/bench.sh [BUILD_DIR] [REPETITIONS]     (default: build-rel/, 5)
#
# Configure the build first (it must have Google Benchmark for the bench/ programs):
#   cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release && cmake --build build-rel
# Rows: kernel beats/s (bench_kernel, saturated and dense), replay records/s (bench_replay: binary and
# text, mixed 64-byte and 1-beat random traces), the fast scheduler against the clocked one per
# shipped trace and on the GEMM (`sbufsim bench --trace`), the GEMM 1024x4096x1024 generated and
# replayed (wall and CPU time of each process), the NKI front-end's tracing of the tiled fp32 GEMM
# [8192,4096] @ [8192,8192] (examples/nki/matmul.py::matmul_tiled, the kernel-optimization guide's
# shape: records/s, and its time against the replay of the same trace, and that replay's cycles/s),
# a tiling sweep of the fully blocked GEMM at 2048^3 (`sbufsim nki --sweep-param`, points/s), and
# the start-up time of `sbufsim --version`. The tracer runs as `sbufsim nki` runs it: under
# $SBUFSIM_PYTHON (default python3), the package from $SBUFSIM_PYTHONPATH, else the build's python/.
# Rates are medians of the repetitions, in CPU time (the machine is shared: wall time moves with
# the load on the other cores). Writes only into a temporary folder of its own, removed at exit.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$here/build-rel}
reps=${2:-5}
sbufsim=$build/sbufsim
for f in "$sbufsim" "$build/bench/bench_kernel" "$build/bench/bench_replay"; do
    [[ -x $f ]] || { echo "bench.sh: $f is missing: build $build first (Release, with Google Benchmark)" >&2; exit 2; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbufsim-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Median of the `items_per_second` of one benchmark's repetitions, in millions.
median_rate() {  # json-file benchmark-name
    jq -r --arg n "$2" '[.benchmarks[] | select((.run_name | split("/")[0]) == $n and .run_type == "iteration") | .items_per_second]
                       | sort | .[(length / 2 | floor)] / 1e6 | . * 100 | round / 100' "$1"
}
# Runs a command `reps` times and prints the median wall and CPU (user + system) seconds.
time_median() {  # command...
    local rows=() i
    for ((i = 0; i < reps; i++)); do
        rows+=("$( { TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>&1; } 2>&1 | tail -1)")
    done
    local w c
    w=$(printf '%s\n' "${rows[@]}" | awk '{ print $1 }' | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    c=$(printf '%s\n' "${rows[@]}" | awk '{ print $2 + $3 }' | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    echo "$w $c"
}

echo "$("$sbufsim" --version | head -1), $(nproc) cores, $(date -u +%Y-%m-%d), repetitions $reps"
echo
echo "| figure | value |"
echo "| --- | ---: |"

"$build/bench/bench_kernel" --benchmark_filter='Saturated|Dense' --benchmark_repetitions="$reps" \
    --benchmark_format=json >"$tmp/kernel.json" 2>/dev/null
echo "| kernel, saturated (BM_KernelSaturated), M beats/s | $(median_rate "$tmp/kernel.json" BM_KernelSaturated) |"
echo "| kernel, dense 2 KiB requests (BM_KernelDense), M beats/s | $(median_rate "$tmp/kernel.json" BM_KernelDense) |"

"$build/bench/bench_replay" --benchmark_repetitions="$reps" --benchmark_format=json >"$tmp/replay.json" 2>/dev/null
for b in BinaryMixed Binary1Beat TextMixed Text1Beat; do
    echo "| replay ${b} (BM_Replay${b}), M records/s | $(median_rate "$tmp/replay.json" "BM_Replay${b}") |"
done

# Fast against clocked, per shipped trace and on the GEMM.
"$sbufsim" gen gemm --m 1024 --n 4096 --k 1024 -o "$tmp/gemm.sbt" >/dev/null 2>&1
for t in "$here"/traces/*.trc "$tmp/gemm.sbt"; do
    out=$("$sbufsim" bench --trace "$t" --repeat "$reps" 2>&1) || { echo "bench.sh: $t: $out" >&2; exit 1; }
    fast=$(sed -n 's/^fast *\([0-9.]*\) s.*/\1/p' <<<"$out")
    clocked=$(sed -n 's/^clocked *\([0-9.]*\) s.*/\1/p' <<<"$out")
    ratio=$(sed -n 's/^clocked \/ fast = \([0-9.]*\)x.*/\1/p' <<<"$out")
    name=$(basename "$t")
    [[ $name == gemm.sbt ]] && name="gen gemm --m 1024 --n 4096 --k 1024"
    echo "| clocked / fast, $name (fast ${fast} s, clocked ${clocked} s) | ${ratio}x |"
done

read -r w c < <(time_median "$sbufsim" gen gemm --m 1024 --n 4096 --k 1024 -o "$tmp/gemm2.sbt" --force)
echo "| GEMM 1024x4096x1024: \`sbufsim gen gemm\` wall / CPU, ms | $(awk -v w="$w" -v c="$c" 'BEGIN { printf "%.1f / %.1f", w * 1e3, c * 1e3 }') |"
read -r w c < <(time_median "$sbufsim" run "$tmp/gemm.sbt" --quiet)
echo "| GEMM 1024x4096x1024: \`sbufsim run --quiet\` wall / CPU, ms | $(awk -v w="$w" -v c="$c" 'BEGIN { printf "%.1f / %.1f", w * 1e3, c * 1e3 }') |"
# The NKI tracer, as `sbufsim nki` runs it (python3 -m sbufsim.nki ... -o), against the replay of
# the trace it writes: whole processes, CPU time.
python=${SBUFSIM_PYTHON:-python3}
pythonpath=${SBUFSIM_PYTHONPATH:-$build/python}
gemm_inputs=(--input 'lhsT=fp32[8192,4096]' --input 'rhs=fp32[8192,8192]')
trace_gemm() {
    PYTHONPATH=$pythonpath "$python" -m sbufsim.nki "$here/examples/nki/matmul.py::matmul_tiled" "${gemm_inputs[@]}" \
        --gen cayman -o "$tmp/tiled.trc"
}
trace_gemm >/dev/null || { echo "bench.sh: $python -m sbufsim.nki could not trace matmul_tiled" >&2; exit 1; }
records=$(sed -n 's/^# nki .* records=\([0-9]*\).*/\1/p' "$tmp/tiled.trc")
read -r tw tc < <(time_median trace_gemm)
read -r rw rc < <(time_median "$sbufsim" run "$tmp/tiled.trc" --quiet)
echo "| NKI tracer, matmul_tiled fp32 [8192,4096]@[8192,8192] ($records records), k records/s of CPU | $(awk -v n="$records" -v c="$tc" 'BEGIN { printf "%.1f", n / c / 1e3 }') |"
echo "| NKI tracer / replay of that trace, CPU (trace ${tc} s, \`sbufsim run --quiet\` ${rc} s) | $(awk -v t="$tc" -v r="$rc" 'BEGIN { printf "%.2fx", t / r }') |"
cycles=$("$sbufsim" run "$tmp/tiled.trc" --json - --quiet | jq -r '.runs[0].run.total_cycles')
echo "| replay of that trace, M cycles/s of CPU ($cycles cycles) | $(awk -v n="$cycles" -v c="$rc" 'BEGIN { printf "%.1f", n / c / 1e6 }') |"
# A tiling sweep as an autotuner runs it: `sbufsim nki --sweep-param` of the fully blocked GEMM
# at 2048^3 bf16, 12 tilings traced and replayed on every core; points per second of wall time
# (the sweep's own parallelism) and of CPU time (all its processes).
sweep_points=12
sweep_gemm() {
    SBUFSIM_PYTHON=$python SBUFSIM_PYTHONPATH=$pythonpath "$sbufsim" nki "$here/examples/nki/matmul.py::matmul_block_all" \
        --input 'lhsT=bf16[2048,2048]' --input 'rhs=bf16[2048,2048]' --sweep-param TILES_IN_BLOCK_M=4,8,16 \
        --sweep-param TILES_IN_BLOCK_N=1,2 --sweep-param TILES_IN_BLOCK_K=4,8
}
sweep_gemm >/dev/null || { echo "bench.sh: sbufsim nki --sweep-param of matmul_block_all failed" >&2; exit 1; }
read -r sw sc < <(time_median sweep_gemm)
echo "| NKI tiling sweep, matmul_block_all bf16 2048^3, $sweep_points tilings, points/s of wall / of CPU (${sw} s / ${sc} s) | $(awk -v n="$sweep_points" -v w="$sw" -v c="$sc" 'BEGIN { printf "%.1f / %.1f", n / w, n / c }') |"
read -r w c < <(time_median "$sbufsim" --version)
echo "| start-up: \`sbufsim --version\` wall / CPU, ms | $(awk -v w="$w" -v c="$c" 'BEGIN { printf "%.1f / %.1f", w * 1e3, c * 1e3 }') |"
