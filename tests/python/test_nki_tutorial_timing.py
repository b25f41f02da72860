"""The NKI matrix-multiplication tutorial's measured latencies on trn1 (sunda), [4096,8192] @
[8192,8192] bf16 (docs/validation.md, "Kernels"): the project's GEMM stages traced at that size
and replayed. The fully blocked kernel and the hoisted one are within 5 % of the tutorial's
table; the order of the four stages is the tutorial's."""

import pytest

from nki_helpers import replay, traced

INPUTS = {"lhsT": "bf16[8192,4096]", "rhs": "bf16[8192,8192]"}


def latency_ms(kernel, tmp_path, params=None):
    result = replay(traced(f"matmul.py::{kernel}", INPUTS, params, generation="sunda"), tmp_path)
    return result.time_ns / 1e6


@pytest.fixture(scope="module")
def stages(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tutorial")
    return {
        "block_all": latency_ms("matmul_block_all", tmp),  # Optimization 3: 6.97 ms
        "blocked": latency_ms("matmul_blocked", tmp, {"TILES_IN_BLOCK_M": 2}),  # Optimization 2: 22.07 ms
        "hoisted": latency_ms("matmul_hoisted", tmp),  # Optimization 1: 42.96 ms
    }


def test_fully_blocked_gemm_within_5_percent_of_the_tutorial(stages):
    # "Testing Correctness and Benchmarking": Optimization 3, 6.97 ms (HFU 85.24 %)
    assert stages["block_all"] == pytest.approx(6.97, rel=0.05)


def test_hoisted_loads_within_5_percent_of_the_tutorial(stages):
    # Optimization 1: 42.96 ms
    assert stages["hoisted"] == pytest.approx(42.96, rel=0.05)


def test_the_stages_keep_the_tutorial_order(stages):
    assert stages["block_all"] < stages["blocked"] < stages["hoisted"]
    # Optimization 2 at 22.07 ms: within 10 % (docs/validation.md says why not 5 %)
    assert stages["blocked"] == pytest.approx(22.07, rel=0.10)
