#!/usr/bin/env bash
# The install as a user gets it, away from the tree it was built from (ctest: install, package).
#
#   tests/install_test.sh install BUILD SOURCE PYTHON_DIR PYTHON
#       cmake --install into a temporary prefix, then move the prefix elsewhere
#   tests/install_test.sh package BUILD SOURCE PYTHON_DIR PYTHON
#       cpack the Debian package, check its metadata and dependencies, unpack it
#
# Either way the checks then run from the moved prefix, in a clean environment, with the source
# and build trees hidden (an empty tmpfs mounted over them in a private mount namespace, where
# unshare is permitted): run (the shipped default trace, both schedulers), gen + run, sweep, the Python module,
# and the "cannot find" messages; every result is compared with the build tree's. No installed
# file may contain the source or build directory's path.
set -euo pipefail

mode=$1

fail() { echo "FAIL: $*" >&2; exit 1; }

# ---- inside: the checks, run from the moved prefix -----------------------------------------------
if [[ $mode == inside ]]; then
    prefix=$2 work=$3 python_dir=$4 python=$5
    cd "$work"
    bin=$prefix/bin/sbufsim
    if [[ -n ${SBUFSIM_HIDDEN_SOURCE:-} && -n $(ls -A "$SBUFSIM_HIDDEN_SOURCE") ]]; then
        fail "the source tree is still visible"
    fi

    "$bin" --version | grep -Eq '^sbufsim [0-9.]+ \(revision [^)]+\)$' || fail "--version: $("$bin" --version)"

    # The default trace comes from the install's share/sbufsim/traces.
    "$bin" run --quiet --csv installed_default.csv || fail "run (default trace)"
    cut -d, -f2- installed_default.csv | cmp -s - <(cut -d, -f2- expected_default.csv) \
        || fail "run: statistics differ from the build tree's"
    grep -q "^$prefix/share/sbufsim/traces/matmul_kloop.trc," installed_default.csv \
        || fail "run: the default trace was not the install's: $(head -1 installed_default.csv)"

    # The clocked scheduler, from the install's own module (lib/sbufsim/sbufsim_clocked.so).
    "$bin" run --quiet --scheduler clocked --csv installed_clocked.csv || fail "run --scheduler clocked"
    cut -d, -f2- installed_clocked.csv | grep -v ',scheduler,' | cmp -s - <(cut -d, -f2- expected_default.csv | grep -v ',scheduler,') \
        || fail "run --scheduler clocked: statistics differ from the build tree's fast run"
    grep -q ',run,,scheduler,clocked$' installed_clocked.csv || fail "run --scheduler clocked: not the clocked scheduler"

    "$bin" gen gemm --m 256 --n 512 --k 256 --bufs 2 -o gemm.sbt >/dev/null || fail "gen"
    cmp -s gemm.sbt expected_gemm.sbt || fail "gen: the trace differs from the build tree's"
    "$bin" run gemm.sbt --quiet --csv installed_gemm.csv || fail "run gemm.sbt"
    cmp -s installed_gemm.csv expected_gemm.csv || fail "run gemm.sbt: statistics differ"

    "$bin" sweep dma_vs_compute.trc --vary tdm.dma_slots=1:3 --jobs 2 --out installed_sweep.csv --quiet \
        || fail "sweep"
    cmp -s installed_sweep.csv expected_sweep.csv || fail "sweep: the table differs from the build tree's"

    if "$bin" --help | grep -q '^  validate '; then
        "$bin" validate --help >/dev/null || fail "validate --help"
        "$bin" validate >validate.txt 2>&1 || { cat validate.txt >&2; fail "validate"; }
    fi

    # Where it looked, when the data is not there.
    set +e
    msg=$(SBUFSIM_CONFIG_DIR=/nonexistent "$bin" run --quiet 2>&1); rc=$?
    set -e
    [[ $rc == 2 && $msg == *"/nonexistent (from \$SBUFSIM_CONFIG_DIR"* && $msg == *"$prefix/share/sbufsim/configs"* ]] \
        || fail "SBUFSIM_CONFIG_DIR=/nonexistent: status $rc: $msg"
    mkdir -p lonely/bin && cp "$bin" lonely/bin/
    set +e
    msg=$(lonely/bin/sbufsim config 2>&1); rc=$?
    set -e
    [[ $rc == 2 && $msg == *"$work/lonely/share/sbufsim/configs"* && $msg == *"$work/lonely/bin/share/sbufsim/configs"* ]] \
        || fail "a binary without its share/: status $rc: $msg"
    set +e
    msg=$(SBUFSIM_CONFIG_DIR=$prefix/share/sbufsim/configs lonely/bin/sbufsim run --quiet --scheduler clocked 2>&1); rc=$?
    set -e
    [[ $rc == 2 && $msg == *"there is none at $work/lonely/"*"sbufsim/sbufsim_clocked.so (an install"* ]] \
        || fail "a binary without its clocked module: status $rc: $msg"

    PYTHONPATH=$prefix/$python_dir "$python" - "$prefix" <<'EOF' || fail "the Python module"
import json, sys
prefix = sys.argv[1]
import sbufsim
assert sbufsim.__file__.startswith(prefix), sbufsim.__file__
cfg = sbufsim.Config("cayman", {"tdm.dma_slots": 2})
assert cfg.generation_file.startswith(prefix + "/share/sbufsim/configs/"), cfg.generation_file
result = sbufsim.run(sbufsim.shipped_trace("matmul_kloop.trc"))
expected = [l.split(",") for l in open("expected_default.csv") if ",run,,total_cycles," in l]
assert result.total_cycles == int(expected[0][-1]), (result.total_cycles, expected)
table = sbufsim.sweep("dma_vs_compute.trc", {"tdm.dma_slots": range(1, 4)}, jobs=2)
assert [r["tdm.dma_slots"] for r in table.rows] == [1, 2, 3] and table.ok
EOF
    man=$prefix/share/man/man1/sbufsim.1
    grep -q '^\.TH SBUFSIM 1' "$man" || fail "the man page"
    for command in $("$bin" --help | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p'); do
        grep -q "^\.SS sbufsim $command\$" "$man" || fail "the man page has no section for $command"
    done
    [[ -f $prefix/share/doc/sbufsim/README.md && -f $prefix/share/doc/sbufsim/docs/cli.md ]] || fail "the docs"
    # Every docs/ page the installed README links to is there, at the link's path.
    for page in $(grep -o '](docs/[^)#]*' "$prefix/share/doc/sbufsim/README.md" | cut -c3- | sort -u); do
        [[ -f $prefix/share/doc/sbufsim/$page ]] || fail "the installed README links $page, which is not installed there"
    done
    [[ -x $prefix/share/sbufsim/scripts/slurm_sweep.sh ]] || fail "the Slurm script"
    echo "checked run, gen, sweep, the Python module and the lookup messages from $prefix"
    exit 0
fi

# ---- outside: install or package, then hide the trees and run the checks --------------------------
build=$(cd "$2" && pwd) source=$(cd "$3" && pwd) python_dir=$4 python=$5
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbufsim-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
case "$mode" in
    install)
        cmake --install "$build" --prefix "$tmp/stage" --strip >/dev/null
        mkdir -p "$tmp/moved"
        mv "$tmp/stage" "$tmp/moved/prefix"   # the prefix it was installed for no longer exists
        prefix=$tmp/moved/prefix
        # The user's own prefix (~/.local): the package goes to the folder every python3 searches
        # there, so `import sbufsim` and `sbufsim nki` work with no PYTHONPATH.
        user_base=$tmp/userbase
        PYTHONUSERBASE=$user_base cmake --install "$build" --prefix "$user_base" >/dev/null
        user_site=$(PYTHONUSERBASE=$user_base "$python" -c 'import site; print(site.getusersitepackages())')
        [[ -f $user_site/sbufsim/__init__.py ]] || fail "an install into the user base: no package in $user_site"
        (cd "$tmp" && env -i PATH=/usr/bin:/bin HOME="$tmp" PYTHONUSERBASE="$user_base" "$python" -c \
            "import sbufsim, sys; sys.exit(not sbufsim.__file__.startswith('$user_site'))") \
            || fail "an install into the user base: import sbufsim does not find $user_site"
        (cd "$tmp" && env -i PATH=/usr/bin:/bin HOME="$tmp" "$user_base/bin/sbufsim" nki \
            "$user_base/share/sbufsim/examples/nki/transpose.py::transpose" --input x=bf16[256,128] --quiet \
            --json nki_user.json) || fail "an install into the user base: sbufsim nki"
        grep -q '"total_cycles"' "$tmp/nki_user.json" || fail "an install into the user base: sbufsim nki wrote no result"
        # Uninstalling as docs/install.md says: the files the last install wrote, and nothing else.
        touch "$user_base/kept.txt"
        xargs -d '\n' rm -f <"$build/install_manifest.txt"
        rm -r "$user_site/sbufsim"   # the bytecode Python cached there (__pycache__)
        left=$(find "$user_base" -type f)
        [[ $left == "$user_base/kept.txt" ]] || fail "uninstall as docs/install.md says left or removed files: ${left:-nothing left}"
        rm -rf "$user_base"
        ;;
    package)
        (cd "$build" && cpack -G DEB -B "$tmp/cpack" >"$tmp/cpack.log" 2>&1) || { cat "$tmp/cpack.log" >&2; fail "cpack"; }
        deb=$(ls "$tmp"/cpack/sbufsim_*.deb)
        depends=$(dpkg-deb -f "$deb" Depends)
        echo "Depends: $depends"
        for want in libsystemc libboost-program-options libspdlog libstdc++6 libc6 python3; do
            [[ $depends == *"$want"* ]] || fail "the package does not depend on $want"
        done
        # Every dependency is a Debian package (or one a package provides) installed here: apt
        # would install the package and nothing else.
        plan=$(apt-get install --simulate "$deb" 2>&1) || { echo "$plan" >&2; fail "apt-get cannot install the package"; }
        [[ $(grep '^Inst ' <<<"$plan") == "Inst sbufsim "* && $(grep -c '^Inst ' <<<"$plan") == 1 ]] \
            || { echo "$plan" >&2; fail "installing the package needs more than the packages installed here"; }
        contents=$(dpkg-deb -c "$deb")
        for f in ./usr/bin/sbufsim ./usr/lib/sbufsim/sbufsim_clocked.so ./usr/share/sbufsim/configs/cayman.ini ./usr/share/sbufsim/traces/matmul_kloop.trc \
                 ./usr/share/man/man1/sbufsim.1 ./usr/share/doc/sbufsim/README.md "./usr/$python_dir/sbufsim/__init__.py"; do
            grep -qF " $f" <<<"$contents" || fail "the package lacks $f"
        done
        dpkg-deb -x "$deb" "$tmp/root"
        prefix=$tmp/root/usr
        ;;
    *) fail "mode install or package, not '$mode'" ;;
esac

# No installed file names the trees it came from (debug info is stripped, __FILE__ is relative).
if leaks=$(grep -rlF -e "$source" -e "$build" "$prefix"); then
    fail "installed files contain the source or build path: $leaks"
fi

# What the build tree says, for comparison (same relative trace paths in the same folder).
work=$tmp/work
mkdir -p "$work"
cp "$source/traces/dma_vs_compute.trc" "$work/"
(
    cd "$work"
    "$build/sbufsim" run --quiet --csv expected_default.csv
    "$build/sbufsim" gen gemm --m 256 --n 512 --k 256 --bufs 2 -o expected_gemm.sbt >/dev/null
    cp expected_gemm.sbt gemm.sbt
    "$build/sbufsim" run gemm.sbt --quiet --csv expected_gemm.csv
    rm gemm.sbt
    "$build/sbufsim" sweep dma_vs_compute.trc --vary tdm.dma_slots=1:3 --jobs 2 --out expected_sweep.csv --quiet
)
cp "$0" "$tmp/install_test.sh"

# Hide the source and build trees: an empty tmpfs over each, in a mount namespace of our own.
hide="mount -t tmpfs sbufsim-hidden '$source'"
[[ $build == "$source"/* ]] || hide+=" && mount -t tmpfs sbufsim-hidden '$build'"
inside() {
    env -i PATH=/usr/bin:/bin HOME="$work" LANG=C.UTF-8 SBUFSIM_HIDDEN_SOURCE="$1" \
        bash "$tmp/install_test.sh" inside "$prefix" "$work" "$python_dir" "$python"
}
if unshare -m true 2>/dev/null; then
    export -f inside
    export tmp prefix work python_dir python source
    unshare -m -- bash -c "$hide && inside '$source'"
    echo "source and build trees hidden while checking"
else
    inside ""
    echo "source and build trees NOT hidden (unshare not permitted); the path check above still holds"
fi
