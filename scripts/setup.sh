#!/usr/bin/env bash
# Install what the build needs (Debian packages, as root) and build sbufsim.
#
#   scripts/setup.sh              install missing packages, configure and build what `sbufsim run`
#                                 and `sbufsim nki` need into build/ (the executable, its clocked
#                                 module, the Python package's files)
#   scripts/setup.sh --all        the same, and everything else: the tests, the Python module,
#                                 the benchmarks (what ctest runs)
#   scripts/setup.sh --sanitize   everything into build-asan/ with AddressSanitizer + UBSan
#   scripts/setup.sh --deps-only  only install missing packages
#   scripts/setup.sh --fuzz       only install missing packages and clang's libFuzzer (scripts/fuzz.sh)
#
# Idempotent and quiet when everything is present: it prints only what it installs and the
# build's own errors. BUILD_DIR and BUILD_TYPE override the defaults. A build the disk cannot
# hold is refused before it starts (SBUFSIM_SKIP_DISK_CHECK=1 tries anyway).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The build, the tests (gtest, pytest), the Python module (pybind11; pandas for its DataFrames),
# the Debian package (dpkg-shlibdeps reads its dependencies), scripts/lint.sh (clang tools, flake8)
# and PNG charts (`--heatmap F.png`, `plot -o F.png` render their SVG through rsvg-convert).
packages=(cmake g++ make pkg-config libsystemc-dev libboost-program-options-dev libspdlog-dev
          libgtest-dev libbenchmark-dev python3-dev pybind11-dev python3-pytest python3-pandas dpkg-dev
          clang-format clang-tidy flake8 librsvg2-bin)

sanitize=OFF
deps_only=0
all=0
for arg in "$@"; do
  case "$arg" in
    --all) all=1 ;;
    --sanitize) sanitize=ON; all=1 ;;
    --deps-only) deps_only=1 ;;
    --fuzz) deps_only=1; packages+=(clang libclang-rt-dev) ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
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

# What a full build tree takes, with a margin: about 0.7 GB (build/) and 1.4 GB (build-asan/)
# measured with compressed debug sections and the tests' shared libraries (docs/install.md).
if [[ $sanitize == ON ]]; then
  build_dir=${BUILD_DIR:-$here/build-asan}
  build_type=${BUILD_TYPE:-Debug}
  need_mb=2000
else
  build_dir=${BUILD_DIR:-$here/build}
  build_type=${BUILD_TYPE:-RelWithDebInfo}
  need_mb=1000
fi

# Refuses to start a build the disk cannot hold, before any of it is written: a build that runs
# out of space half-way fails in the compiler or linker with a message that names neither the
# cause nor the fix. The part of the tree already built counts towards what is needed.
check_disk() {
  local dir=$1 need=$2 existing=0 parent free
  [[ ${SBUFSIM_SKIP_DISK_CHECK:-0} == 1 ]] && return 0
  parent=$dir
  while [[ ! -d $parent ]]; do parent=$(dirname "$parent"); done
  [[ -d $dir ]] && existing=$(du -sm "$dir" 2>/dev/null | cut -f1)
  free=$(df -Pm "$parent" | awk 'NR == 2 { print $4 }')
  if ((free + existing < need)); then
    echo "setup.sh: $dir needs about $need MB and the disk holding it has $free MB free" \
         "(the tree has $existing MB already): free some space, or build elsewhere with" \
         "BUILD_DIR=/path/on/a/larger/disk (SBUFSIM_SKIP_DISK_CHECK=1 tries anyway)" >&2
    exit 1
  fi
}
check_disk "$build_dir" "$need_mb"
cmake -S "$here" -B "$build_dir" -DCMAKE_BUILD_TYPE="$build_type" -DSBUFSIM_SANITIZE="$sanitize" \
  -Wno-dev >/dev/null
log=$build_dir/build.log
# A first run needs the executable (its clocked module is a dependency) and the Python package's
# files for `sbufsim nki`; the tests and the compiled Python module are most of the build's time.
targets=()
if ((!all)); then
  targets=(--target sbufsim)
  grep -q '^SBUFSIM_BUILD_PYTHON:BOOL=ON' "$build_dir/CMakeCache.txt" && targets+=(sbufsim_python_files)
fi
if ! cmake --build "$build_dir" -j"$(nproc)" ${targets[@]+"${targets[@]}"} >"$log" 2>&1; then
  grep -E 'error|Error' "$log" | head -40 >&2 || true
  echo "setup.sh: build failed; full log in $log" >&2
  exit 1
fi
grep -E 'warning:' "$log" >&2 || true
