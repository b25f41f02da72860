#!/usr/bin/env bash
# Rewrite the golden statistics (tests/golden/*.json) from the current build, then show what
# changed. Review every changed field and commit the files with the reason for the change.
#
#   scripts/update_golden.sh [BUILD_DIR]     (default: build/)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$here/build}
cmake --build "$build" --target test_cli_golden sbufsim -j"$(nproc)" >/dev/null
SBUFSIM_GOLDEN_UPDATE=1 "$build/tests/test_cli_golden" --gtest_filter='Cases/Golden.*' >/dev/null
cd "$here"
git status --short -- tests/golden
git diff --stat -- tests/golden
