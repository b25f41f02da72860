"""The cycle counts docs/nki.md quotes for the project's own example kernels are what tracing and
replaying them gives now: a model change that moves them fails here until the page is measured
again (figures of the public kernels, which are not part of the project, are measured with
scripts/public_kernels.py)."""

import re
from pathlib import Path

import pytest

from nki_helpers import replay, traced

DOC = Path(__file__).resolve().parents[2] / "docs" / "nki.md"


def quoted(pattern):
    match = re.search(pattern, DOC.read_text(), flags=re.S)
    assert match, f"docs/nki.md no longer has {pattern!r}"
    return match


@pytest.mark.parametrize("name,kernel,inputs", [
    ("softmax", "softmax.py::softmax", {"x": "bf16[2048,2048]"}),
    ("rmsnorm", "rmsnorm.py::rmsnorm", {"x": "bf16[2048,2048]", "g": "bf16[1,2048]"}),
    ("transpose", "transpose.py::transpose", {"x": "bf16[2048,2048]"}),
])
def test_the_other_examples_figures_at_2048_are_current(tmp_path, name, kernel, inputs):
    paragraph = quoted(r"The other examples, same command at 2048 × 2048.*?\n\n").group(0)
    cycles = int(re.search(rf"{name} ([0-9,]+) cycles", paragraph).group(1).replace(",", ""))
    assert replay(traced(kernel, inputs), tmp_path).total_cycles == cycles


def test_the_blocked_gemm_sweeps_figures_are_current(tmp_path):
    block = quoted(r"matmul_blocked: 5 points, traced .*?```").group(0)
    points = {int(m): int(c) for m, c in re.findall(r"^\s+(\d+)\s+(\d+)\s+[0-9.]+%", block, flags=re.M)}
    assert sorted(points) == [1, 2, 4, 8, 16]
    mm = {"lhsT": "bf16[2048,2048]", "rhs": "bf16[2048,2048]"}
    for m, cycles in points.items():
        kt = traced("matmul.py::matmul_blocked", mm, {"TILES_IN_BLOCK_M": m})
        assert replay(kt, tmp_path).total_cycles == cycles, f"TILES_IN_BLOCK_M={m}"


def test_the_gemm_stages_table_is_current(tmp_path):
    table = quoted(r"\| stage \| records \| HBM traffic \| cycles \|.*?\n\n").group(0)
    rows = re.findall(r"^\| `(\w+)`[^|]* \| (\d+) \| [^|]+ \| ([0-9,]+) \|", table, flags=re.M)
    assert [name for name, _, _ in rows] == ["matmul_tiled", "matmul_hoisted", "matmul_blocked", "matmul_block_all"]
    mm = {"lhsT": "bf16[2048,2048]", "rhs": "bf16[2048,2048]"}
    for name, records, cycles in rows:
        kt = traced(f"matmul.py::{name}", mm, {"TILES_IN_BLOCK_M": 4} if name == "matmul_blocked" else None)
        measured = (len(kt.records), replay(kt, tmp_path).total_cycles)
        assert measured == (int(records), int(cycles.replace(",", ""))), name


def test_the_annotated_tiled_gemm_is_current(tmp_path):
    block = quoted(r"  crit%   crit cyc .*?```").group(0)
    shown = {int(line): int(cycles) for cycles, line in
             re.findall(r"^(?:>>|  ) +[0-9.]+ +(\d+) +\d+ +\d+ +\d+ +[0-9.]+ +\d+ +(\d+) \|", block, flags=re.M)}
    assert sorted(shown) == [26, 27, 28, 29, 30]
    kt = traced("matmul.py::matmul_tiled", {"lhsT": "bf16[2048,2048]", "rhs": "bf16[2048,2048]"})
    lines = replay(kt, tmp_path)["line"]
    assert {int(where.split(":")[1]): line["critical_cycles"] for where, line in lines.items()} == shown
