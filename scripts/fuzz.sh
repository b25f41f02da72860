#!/usr/bin/env bash
# Fuzz the trace readers and checker (fuzz/fuzz_trace.cpp), the INI reader, loader and --set
# (fuzz/fuzz_config.cpp), the JSON inputs of run --from and plot (fuzz/fuzz_json.cpp) and the
# command line of sbufsim nki as it is checked before tracing (fuzz/fuzz_nki.cpp) with libFuzzer,
# each for a bounded time, under ASan/UBSan.
#
#   scripts/fuzz.sh [SECONDS]      default 60 per target
#
# Needs clang++ with libFuzzer (Debian: apt-get install clang). Builds into build-fuzz/ (its own
# tree: every source compiled by clang with -fsanitize=fuzzer-no-link,address,undefined). The
# seed corpus is the shipped traces, tests/data, the generation files and fuzz/regressions/; a
# crashing input is written to build-fuzz/crashes/ and the script exits 1 — fix the defect and
# add the input to fuzz/regressions/ (replayed by tests/test_fuzz_regressions.cpp).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
if ! command -v clang++ >/dev/null; then
  echo "fuzz.sh: needs clang++ with libFuzzer (Debian/Ubuntu: apt-get install clang)" >&2
  exit 2
fi
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSBUFSIM_FUZZ=ON \
  -DSBUFSIM_BUILD_TESTS=OFF -DSBUFSIM_BUILD_BENCH=OFF -DSBUFSIM_BUILD_PYTHON=OFF "${launcher[@]}" -Wno-dev >/dev/null
cmake --build build-fuzz -j2 --target fuzz_trace fuzz_config fuzz_json fuzz_nki

corpus=build-fuzz/corpus
rm -rf "$corpus"
mkdir -p "$corpus/trace" "$corpus/config" "$corpus/json" "$corpus/nki" build-fuzz/crashes
cp traces/*.trc tests/data/*.trc fuzz/regressions/trace/* "$corpus/trace/"
cp configs/*.ini fuzz/regressions/config/* "$corpus/config/"
cp fuzz/regressions/json/* "$corpus/json/"
cp fuzz/regressions/nki/* "$corpus/nki/"
# Command lines of sbufsim nki, one argument per line: a run, a sweep, the replay's options.
printf '%s\n' examples.py::matmul_blocked --input 'lhsT=bf16[2048,2048]' --input 'rhs=bf16[2048,2048]' \
  --param TILES_IN_BLOCK_M=4 -o gemm.trc --gen mariana --timeout 60 >"$corpus/nki/run"
printf '%s\n' k.py::f --input 'x=bf16[128,512]' --sweep-param N=1,2,4 --sweep-param M=8 --jobs 2 --out t.csv \
  --set tdm.dma_slots=2 >"$corpus/nki/sweep"
printf '%s\n' k.py::f --grid 8,2 --json r.json --csv - --set pe.ramp_start=0.5 --scheduler fast --window-stats 100 \
  --timeline tl.json --timeline-detail engines --force >"$corpus/nki/outputs"
# Binary seeds, when a built sbufsim is at hand to convert a few traces.
if [ -x build/sbufsim ]; then
  for t in traces/access_mix.trc traces/matmul_kloop.trc traces/dma_transpose.trc; do
    [ -f "$t" ] && build/sbufsim convert "$t" "$corpus/trace/$(basename "$t" .trc).sbt" 2>/dev/null || true
  done
  # JSON seeds: a run's result with window statistics, and a sweep's rows.
  build/sbufsim run traces/dma_load.trc --quiet --window-stats 500 --json "$corpus/json/run.json" 2>/dev/null || true
  build/sbufsim sweep traces/dma_load.trc --vary tdm.dma_slots=1,2 --jobs 1 --quiet \
    --json "$corpus/json/rows.json" 2>/dev/null || true
fi

status=0
# Absolute paths: fuzz_nki moves into a private folder of its own on its first input, after which a
# relative corpus or artifact path would name nothing (libFuzzer then reads one seed and stops).
here=$PWD
for target in trace config json nki; do
  echo "== fuzz_$target: $seconds s"
  # The config target writes its scratch INI files under /tmp, one pair per process.
  # JSON inputs up to 8 KiB reach every check (256 levels of nesting take 512 bytes); without a
  # limit the largest seed (a run's 85 KB result) sets the length and every mutation parses that much.
  opts=()
  [ "$target" = json ] && opts=(-max_len=8192)
  if ! "build-fuzz/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 "${opts[@]}" \
       -artifact_prefix="$here/build-fuzz/crashes/$target-" -print_final_stats=1 "$(realpath "$corpus/$target")" \
       2>"build-fuzz/fuzz_$target.log"; then
    echo "fuzz_$target: found a failing input (build-fuzz/crashes/, log build-fuzz/fuzz_$target.log)" >&2
    tail -40 "build-fuzz/fuzz_$target.log" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "build-fuzz/fuzz_$target.log" || true
  fi
done
exit $status
