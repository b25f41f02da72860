#!/usr/bin/env bash
# The SystemC embedding example against the installed package (docs/models.md, "Embedding"):
# installs BUILD's dev component and data into a temporary prefix, builds examples/systemc with
# find_package(sbufsim) from there, runs it and checks that it reports success. Needs a built
# BUILD (installing never builds). .ci/run calls it.
#
#   scripts/systemc_example.sh [BUILD]      (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[[ -f $build/CMakeCache.txt ]] || { echo "systemc_example: $build is not a configured build (scripts/setup.sh)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake --install "$build" --prefix "$tmp/prefix" --component dev >/dev/null
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S examples/systemc -B "$tmp/example" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release \
    "${launcher[@]}" -Wno-dev >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log" >&2; exit 1; }
cmake --build "$tmp/example" -j2 >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; exit 1; }
out=$(SBUFSIM_CONFIG_DIR="$tmp/prefix/share/sbufsim/configs" SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 \
      "$tmp/example/tpb_platform")
echo "$out"
grep -q '^tpb_platform: ok$' <<<"$out" || { echo "systemc_example: the example did not report ok" >&2; exit 1; }
