#!/usr/bin/env bash
# Checks the C++ a change touches, as CI does: the changed sources (src/, models/) against
# .clang-tidy (a finding fails), and the changed lines against .clang-format (reported). The tree
# as a whole is not reformatted: only what a change writes has to follow the rules. The Python
# package and its tests (python/, tests/python/) are checked whole with flake8 against setup.cfg
# (errors such as unused or undefined names, and the layout): a finding fails.
#
#   scripts/lint.sh [BASE] [BUILD_DIR]
#     BASE       the commit the change starts from (default: main when it exists, else HEAD~1)
#     BUILD_DIR  a configured build with compile_commands.json (default: build/)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
base=${1:-}
if [[ -z $base ]]; then
  if git rev-parse -q --verify main >/dev/null; then base=main; else base=HEAD~1; fi
fi
build=${2:-$here/build}
for tool in git-clang-format clang-tidy flake8; do
  command -v "$tool" >/dev/null ||
    { echo "lint.sh: $tool not found (scripts/setup.sh --deps-only, or apt-get install clang-format clang-tidy flake8)" >&2; exit 2; }
done
[[ -f $build/compile_commands.json ]] ||
  { echo "lint.sh: no $build/compile_commands.json: configure the build first (scripts/setup.sh)" >&2; exit 2; }

failed=0
# Layout is reported, not enforced: code moved between files counts as changed lines, and
# reformatting it would bury the move in the history.
layout=$(git clang-format --quiet --diff "$base" -- '*.h' '*.cpp' '*.cc' 2>&1 || true)
if [[ -n $layout && $layout != *"no modified files"* && $layout != *"did not modify"* ]]; then
  echo "$layout"
  echo "lint.sh: note: the lines above differ from .clang-format (new code: git clang-format $base)" >&2
fi
mapfile -t sources < <(git diff --name-only --diff-filter=AM "$base" -- 'src/*.cpp' 'src/*.cc' 'models/*.cpp')
# A unity build (SBUFSIM_UNITY_BUILD, the default) lists batches in compile_commands.json, not the
# sources: clang-tidy reads the commands of a configure-only tree beside it, one unit per file.
db=$build
if ((${#sources[@]})) && grep -q '^SBUFSIM_UNITY_BUILD:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  db=$build/compile-db
  if ! cmake -S "$here" -B "$db" -DSBUFSIM_UNITY_BUILD=OFF -Wno-dev >"$build/compile-db.log" 2>&1; then
    echo "lint.sh: configuring $db for clang-tidy failed; see $build/compile-db.log" >&2
    exit 2
  fi
fi
if ((${#sources[@]})); then
  if ! clang-tidy -p "$db" --quiet "${sources[@]}" 2>/dev/null; then
    echo "lint.sh: clang-tidy found problems in: ${sources[*]}" >&2
    failed=1
  fi
fi
if ! flake8 python tests/python; then
  echo "lint.sh: flake8 found problems in the Python above (setup.cfg holds its settings)" >&2
  failed=1
fi
((failed == 0)) && echo "lint: ${#sources[@]} changed source(s) since $base, python/ and tests/python/: ok"
exit "$failed"
