"""The traces of the example kernels, byte for byte: each case's trace text has the SHA-256 stored
here. The tracer's speed-ups (cached shapes, patterns and sites, hazard domains found once per
record) must not change a byte; a change to what the front-end models changes the digests on
purpose, and then they are updated with

    PYTHONPATH=python python3 tests/python/test_nki_trace_digest.py

which prints the table below for the current front-end (check the traces' differences first)."""

import hashlib

import pytest

from nki_helpers import traced

MM_2048 = {"lhsT": "bf16[2048,2048]", "rhs": "bf16[2048,2048]"}
MM_512 = {"lhsT": "bf16[512,512]", "rhs": "bf16[512,512]"}
MX = {"lhsT": "fp8e4x4[512,512]", "lhsT_scale": "uint8[64,512]", "rhs": "fp8e4x4[512,2048]",
      "rhs_scale": "uint8[64,2048]"}

# name -> (kernel, inputs, params, generation): the shapes docs/nki.md and the tests use
CASES = {
    **{f"{stage}_2048": (f"matmul.py::{stage}", MM_2048, None, "cayman")
       for stage in ("matmul_tiled", "matmul_hoisted", "matmul_blocked", "matmul_block_all")},
    **{f"{stage}_512_sunda": (f"matmul.py::{stage}", MM_512, None, "sunda")
       for stage in ("matmul_tiled", "matmul_hoisted", "matmul_blocked", "matmul_block_all")},
    **{f"matmul_blocked_m{m}": ("matmul.py::matmul_blocked", MM_2048, {"TILES_IN_BLOCK_M": m}, "cayman")
       for m in (1, 2, 8, 16)},
    "matmul_grid": ("matmul_grid.py::matmul_grid", {"lhsT": "bf16[512,256]", "rhs": "bf16[512,1024]"}, None,
                    "cayman"),
    "matmul_mx": ("matmul_mx.py::matmul_mx", MX, None, "mariana"),
    "rmsnorm": ("rmsnorm.py::rmsnorm", {"x": "bf16[2048,1024]", "g": "bf16[1,1024]"}, None, "cayman"),
    "softmax": ("softmax.py::softmax", {"x": "bf16[512,1024]"}, None, "cayman"),
    "transpose": ("transpose.py::transpose", {"x": "bf16[1024,1024]"}, None, "cayman"),
    "transpose_sunda": ("transpose.py::transpose", {"x": "bf16[256,384]"}, None, "sunda"),
    "spmd_add": ("spmd_add.py::spmd_add", {"a": "bf16[1000,512]", "b": "bf16[1000,512]"}, None, "cayman"),
}

# name -> (records, the first 32 hex digits of the SHA-256 of the trace text)
DIGESTS = {
    "matmul_tiled_2048": (4256, "b1ac0b8f212aef04c7e3cc47259d8dd4"),
    "matmul_hoisted_2048": (3488, "3ed1bf701818639c2d26ae36dc258f47"),
    "matmul_blocked_2048": (2528, "90249e4368c0d010196ba330a002b944"),
    "matmul_block_all_2048": (2339, "7b7bd811cc07def3388f8c7ce9a181fa"),
    "matmul_tiled_512_sunda": (72, "b688e56dab5c9a5751e8ef97e19e7100"),
    "matmul_hoisted_512_sunda": (72, "4f08323c00cf6af8be4ba9ea1c8e45f8"),
    "matmul_blocked_512_sunda": (48, "c5716f44b35824ed87a88e1f1edd8ddb"),
    "matmul_block_all_512_sunda": (0, "538c9bb084e9de873ceee086944731e3"),
    "matmul_blocked_m1": (3488, "3ed1bf701818639c2d26ae36dc258f47"),
    "matmul_blocked_m2": (2848, "93f1a259d7cd9fdfe182a1bfdc053607"),
    "matmul_blocked_m8": (2336, "e8d3727283b79ec5e1fa17031b6f6aa2"),
    "matmul_blocked_m16": (2256, "88ebb5fff10b93d96194534e94fedef9"),
    "matmul_grid": (72, "792d4a15381c1a60fcd9571d61be60e1"),
    "matmul_mx": (1064, "8b621df3987435126b914efb404d8649"),
    "rmsnorm": (134, "bd3b1fe1f63dac57e40b78560d9a1f00"),
    "softmax": (32, "227f59144728dc622d88ab880a673580"),
    "transpose": (321, "77b80dfd85925c60f967e57333482545"),
    "transpose_sunda": (31, "8fe04cd7a4fc0762f61012d61487c011"),
    "spmd_add": (47, "e65efdd8207daf9d6315429c73e3a052"),
}


def trace_case(kernel, inputs, params, generation):
    return traced(kernel, inputs, params, generation=generation)


@pytest.mark.parametrize("name", sorted(CASES))
def test_trace_is_byte_identical(name):
    kt = trace_case(*CASES[name])
    records, digest = DIGESTS[name]
    assert (len(kt.records), hashlib.sha256(kt.text.encode()).hexdigest()[:32]) == (records, digest), (
        f"{name}: the trace changed ({len(kt.records)} records, {records} stored); if on purpose, update DIGESTS "
        "(this file's docstring says how)")


if __name__ == "__main__":
    for name in sorted(CASES):
        kt = trace_case(*CASES[name])
        print(f'    "{name}": ({len(kt.records)}, "{hashlib.sha256(kt.text.encode()).hexdigest()[:32]}"),')
