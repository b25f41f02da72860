#!/usr/bin/env bash
# Install what the build needs (Debian packages, as root) and build sbufsim.
#
#   scripts/setup.sh              install missing packages, configure and build into build/
#   scripts/setup.sh --sanitize   the same into build-asan/ with AddressSanitizer + UBSan
#   scripts/setup.sh --deps-only  only install missing packages
#   scripts/setup.sh --fuzz       only install missing packages and clang's libFuzzer (scripts/fuzz.sh)
#
# Idempotent and quiet when everything is present: it prints only what it installs and the
# build's own errors. BUILD_DIR and BUILD_TYPE override the defaults.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The build, the tests (gtest, pytest), the Python module (pybind11; pandas for its DataFrames),
# the Debian package (dpkg-shlibdeps reads its dependencies), scripts/lint.sh (clang tools) and
# PNG charts (`--heatmap F.png`, `plot -o F.png` render their SVG through rsvg-convert).
packages=(cmake g++ make pkg-config libsystemc-dev libboost-program-options-dev libspdlog-dev
          libgtest-dev libbenchmark-dev python3-dev pybind11-dev python3-pytest python3-pandas dpkg-dev
          clang-format clang-tidy librsvg2-bin)

sanitize=OFF
deps_only=0
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=ON ;;
    --deps-only) deps_only=1 ;;
    --fuzz) deps_only=1; packages+=(clang libclang-rt-dev) ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg' (see --help)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup.sh: missing packages: ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
  echo "setup.sh: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
((deps_only)) && exit 0

if [[ $sanitize == ON ]]; then
  build_dir=${BUILD_DIR:-$here/build-asan}
  build_type=${BUILD_TYPE:-Debug}
else
  build_dir=${BUILD_DIR:-$here/build}
  build_type=${BUILD_TYPE:-RelWithDebInfo}
fi
cmake -S "$here" -B "$build_dir" -DCMAKE_BUILD_TYPE="$build_type" -DSBUFSIM_SANITIZE="$sanitize" \
  -Wno-dev >/dev/null
log=$build_dir/build.log
if ! cmake --build "$build_dir" -j"$(nproc)" >"$log" 2>&1; then
  grep -E 'error|Error' "$log" | head -40 >&2 || true
  echo "setup.sh: build failed; full log in $log" >&2
  exit 1
fi
grep -E 'warning:' "$log" >&2 || true
