"""The tiled GEMM example in its stages: records, semaphores, PSUM accumulation and the stages'
order in speed on cayman."""

import re

import pytest

from nki_helpers import check_semaphores, example, replay, traced

SHAPE = {"lhsT": "bf16[512,512]", "rhs": "bf16[512,1024]"}  # K=512, M=512, N=1024
STAGES = ["matmul_tiled", "matmul_hoisted", "matmul_blocked", "matmul_block_all"]
# stage 4 at the small size: blocks of 2 M tiles, 1 N tile, 2 K tiles (2 blocks of each)
SMALL = {"matmul_block_all": {"TILES_IN_BLOCK_M": 2, "TILES_IN_BLOCK_N": 1, "TILES_IN_BLOCK_K": 2}}


@pytest.fixture(scope="module")
def kernels():
    return {s: traced(f"matmul.py::{s}", SHAPE, SMALL.get(s)) for s in STAGES}


def test_every_stage_issues_the_same_matmuls(kernels):
    # M/128 * N/512 * K/128 = 4 * 2 * 4 PE instructions, each with its stationary load
    for kt in kernels.values():
        assert kt.count("matmul") == 32 and kt.count("ldweights") == 32
        assert kt.flops == 2 * 512 * 512 * 1024
        check_semaphores(kt)


def test_loads_and_stores(kernels):
    # stage 1 loads both strips per K step: 2 * 32; stores 8 output tiles
    assert kernels["matmul_tiled"].count("dma") == 64 + 8
    # stage 2: lhsT once per M row (4 * 4), rhs once per output tile (8 * 4)
    assert kernels["matmul_hoisted"].count("dma") == 16 + 32 + 8
    # stage 3 (4 M tiles per block): lhsT 4 K strips, rhs 2 N tiles * 4
    assert kernels["matmul_blocked"].count("dma") == 4 + 8 + 8
    # stage 4: per N block (2) and K block (2): rhs 2 K strips, lhsT 2 M blocks * 2 K strips;
    # stores: one row of the N block per M tile, 2 * 4
    assert kernels["matmul_block_all"].count("dma") == 2 * 2 * (2 + 2 * 2) + 8
    hbm = [kernels[s].hbm_bytes for s in STAGES]
    assert hbm[0] > hbm[1] > hbm[2]
    # stage 4 reads each rhs element once and lhsT once per N block (2): 1 MiB + 1 MiB + 1 MiB out
    assert hbm[3] == 512 * 1024 * 2 + 2 * 512 * 512 * 2 + 512 * 1024 * 2


def test_block_all_accumulates_k_blocks_in_sbuf(kernels):
    kt = kernels["matmul_block_all"]
    adds = [r for r in kt.records if r.startswith("dve")]
    # one VectorE add per output tile and K block (8 tiles * 2 K blocks), reading PSUM
    assert len(adds) == 16
    assert all("fn=add" in r and "isa=tensor_tensor" in r and "src2=fp32@0x2" in r for r in adds)
    # the SBUF output blocks start at zero (one memset per N block), leave through ScalarE
    copies = [r for r in kt.records if r.startswith("act") and "fn=copy" in r]
    assert kt.count("pool") == 2 and len(copies) == 8
    flags = [re.search(r"acc_flags=(\w+)", r).group(1) for r in kt.records if r.startswith("matmul")]
    assert flags.count("begin") == flags.count("end") == 16


def test_psum_accumulation_flags(kernels):
    matmuls = [r for r in kernels["matmul_tiled"].records if r.startswith("matmul")]
    flags = [re.search(r"acc_flags=(\w+)", r).group(1) for r in matmuls]
    assert flags[:4] == ["begin", "mid", "mid", "end"]
    assert flags.count("begin") == flags.count("end") == 8


def test_evacuation_waits_for_the_last_matmul(kernels):
    records = kernels["matmul_tiled"].records
    act = next(r for r in records if r.startswith("act"))
    assert "fn=copy" in act and "src=fp32@0x2000000" in act and " wait=" in act


def test_stages_get_faster_at_2048_cubed(tmp_path):
    # the order of the stages' known hardware behaviour, at the size docs/nki.md quotes
    big = {"lhsT": "bf16[2048,2048]", "rhs": "bf16[2048,2048]"}
    cycles = [replay(traced(f"matmul.py::{s}", big), tmp_path).total_cycles for s in STAGES]
    assert cycles[0] > cycles[1] > cycles[2] > cycles[3], cycles
    assert cycles[0] > 2 * cycles[2]


def test_the_line_frame_adds_up_and_puts_the_tiled_gemms_load_first(tmp_path):
    """result.frame("line"): one row per kernel line, its columns adding up to the run's totals;
    in the tiled GEMM the moving-data load inside the K loop (rhs, four times the lhsT load's bytes)
    holds most of the critical path."""
    pytest.importorskip("pandas")
    kt = traced("matmul.py::matmul_tiled", {"lhsT": "bf16[512,512]", "rhs": "bf16[512,1024]"})
    result = replay(kt, tmp_path)
    lines = result.frame("line")
    assert lines["critical_cycles"].sum() == result.total_cycles
    # Instructions as the engines count them (a DMA record is one transfer per engine it spans).
    assert lines["instructions"].sum() == result.frame("engine")["instructions"].sum() > len(kt.records)
    # 4 x 2 output tiles, each loading 4 K strips of lhsT (128 x 128) and rhs (128 x 512) and
    # storing one 128 x 512 tile, all bf16.
    assert lines["dma_bytes"].sum() == 2 * (4 * 2 * 4 * (128 * 128 + 128 * 512) + 4 * 2 * 128 * 512)
    top = lines["critical_cycles"].idxmax()
    with open(example("matmul.py")) as f:
        source = f.read()
    line_no = int(top.split(":")[1])
    assert "nl.load(rhs" in source.splitlines()[line_no - 1], top
