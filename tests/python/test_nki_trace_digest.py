"""The traces of the example kernels and of two kernels written here, byte for byte: each case's
trace text has the SHA-256 stored here. The tracer's speed-ups (cached shapes, patterns and sites,
hazard domains found once per record) must not change a byte; a change to what the front-end
models changes the digests on purpose, and then they are updated with

    PYTHONPATH=python python3 tests/python/test_nki_trace_digest.py

which prints the table below for the current front-end (check the traces' differences first)."""

import hashlib
import os
import re
import tempfile

import pytest

from nki_helpers import EXAMPLES, traced

MM_2048 = {"lhsT": "bf16[2048,2048]", "rhs": "bf16[2048,2048]"}
MM_512 = {"lhsT": "bf16[512,512]", "rhs": "bf16[512,512]"}
MX = {"lhsT": "fp8e4x4[512,512]", "lhsT_scale": "uint8[64,512]", "rhs": "fp8e4x4[512,2048]",
      "rhs_scale": "uint8[64,2048]"}

# Kernels written for this test, for what the examples do not reach: operands loaded by four DMA
# queues (more waits than a record carries: sync records), a PSUM tensor of one block per bank,
# .ap() access patterns, masked loads and stores past a tensor's last row, and tiles that fit only
# placed by their lifetimes (liveness: hazards per SBUF page).
GENERATED = {
    "stress.py": """\
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def stress(a, b, c):
    # a: [256, 512], b: [128, 64], c: [1000, 512], all bf16
    out = nl.ndarray((256, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    out_c = nl.ndarray((1000, 512), dtype=c.dtype, buffer=nl.shared_hbm)
    # an add whose operands were each loaded by two DMA queues: more waits than a record carries
    for i in nl.affine_range(2):
        t = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
        u = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
        t[:, 0:256] = nl.load(a[i * 128:(i + 1) * 128, 0:256])
        t[:, 256:512] = nl.load(a[i * 128:(i + 1) * 128, 256:512])
        u[:, 0:256] = nl.load(a[(1 - i) * 128:(2 - i) * 128, 0:256])
        u[:, 256:512] = nl.load(a[(1 - i) * 128:(2 - i) * 128, 256:512])
        v = nl.add(t, u)
        w = nl.exp(v)
        nl.store(out[i * 128:(i + 1) * 128, :], value=w)
    # PSUM block tensor: one accumulator per bank, matmuls into each block
    acc = nl.ndarray((2, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.psum)
    for j in nl.affine_range(2):
        lhs = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.sbuf)
        rhs = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
        lhs[...] = nl.load(a[j * 128:(j + 1) * 128, 0:128])
        rhs[...] = nl.load(a[j * 128:(j + 1) * 128, :])
        for k in nl.affine_range(2):
            acc[j] += nl.matmul(lhs, rhs, transpose_x=True)
    for j in nl.sequential_range(2):
        res = nl.copy(acc[j], dtype=a.dtype)
        nl.store(out[j * 128:(j + 1) * 128, :], value=res)
    # explicit access patterns
    p = nl.ndarray((128, 2, 64), dtype=b.dtype, buffer=nl.sbuf)
    nisa.dma_copy(src=b.ap(pattern=[[64, 32], [1, 64]], offset=0),
                  dst=p.ap(pattern=[[128, 32], [1, 64]], offset=32 * 128 + 64))
    q = nl.ndarray((128, 64), dtype=b.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=q, src=p.ap(pattern=[[128, 128], [2, 64]], offset=0))
    nl.store(out[0:128, 0:64], value=q)
    # a masked tail: 1000 rows in tiles of 128
    rows, cols = nl.mgrid[0:128, 0:512]
    for r in nl.affine_range((1000 + 127) // 128):
        x = nl.load(c[r * 128 + rows, cols], mask=(r * 128 + rows < 1000))
        y = nl.multiply(x, 2.0)
        nl.store(out_c[r * 128 + rows, cols], value=y, mask=(r * 128 + rows < 1000))
    return out, out_c
""",
    "live.py": """\
import nki
import nki.language as nl


@nki.jit
def live(a, BIG=32768, SMALL=20480):
    # tiles that fit SBUF only placed by their lifetimes (liveness), hazards per 4 KiB page
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(4):
        big = nl.ndarray((128, BIG), dtype=nl.float32, buffer=nl.sbuf)
        big[...] = nl.load(a[0:128, 0:BIG])
        small = nl.ndarray((128, SMALL), dtype=nl.float32, buffer=nl.sbuf)
        small[...] = nl.load(a[0:128, 0:SMALL])
        nl.store(out[0:128, 0:512], value=small[0:128, 0:512])
    return out
""",
}

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
    "generated_stress": ("stress.py::stress", {"a": "bf16[256,512]", "b": "bf16[128,64]", "c": "bf16[1000,512]"},
                         None, "cayman"),
    "generated_liveness": ("live.py::live", {"a": "fp32[128,32768]"}, None, "sunda"),
}

# name -> (records, the first 32 hex digits of the SHA-256 of the trace text)
DIGESTS = {
    "generated_liveness": (18, "f74456afccd5ad83a49f9bfbc0899d84"),
    "generated_stress": (59, "478518d5deff3f605cd55fe1679e4fd8"),
    "matmul_block_all_2048": (2339, "b6273aafa310aaaad638c3d598ef6cfa"),
    "matmul_block_all_512_sunda": (0, "538c9bb084e9de873ceee086944731e3"),
    "matmul_blocked_2048": (2496, "03a8f4a756537bcb86bb2e365a4249dd"),
    "matmul_blocked_512_sunda": (48, "b7611505fc50634f5904be58064b2070"),
    "matmul_blocked_m1": (3456, "0d73760446de1abfaf04e2532ee2e433"),
    "matmul_blocked_m16": (2256, "347a6c3d20e6e175bc2a89c8e8c26b05"),
    "matmul_blocked_m2": (2816, "6e7c77f20d2958d19b4a62bae121427b"),
    "matmul_blocked_m8": (2336, "3ee6d61be689c4eb3cf8111f220d7257"),
    "matmul_grid": (72, "71873d4b63f4ac183093d85badc7befa"),
    "matmul_hoisted_2048": (3456, "0d73760446de1abfaf04e2532ee2e433"),
    "matmul_hoisted_512_sunda": (72, "a1863db127a3d5024ce392ab96ab2865"),
    "matmul_mx": (1056, "e972bae4f7014fa610abbcc6912e6ddf"),
    "matmul_tiled_2048": (4224, "bfd3dc3a000745a0d658a7f96060aa86"),
    "matmul_tiled_512_sunda": (72, "42562a7d72d08767d258b6640f08c74f"),
    "rmsnorm": (133, "269c192c64f35ed14b9fa55b77b1e6fe"),
    "softmax": (32, "f6993cb21b43e4c287766b63e3f9e8e9"),
    "spmd_add": (23, "6d08ed5a0644cfffeba8132091b5c79a"),  # core 0 of two: row blocks 0-3
    "transpose": (321, "d41cfe24346919b2e6d546df0173b31a"),
    "transpose_sunda": (31, "6240da84f8a1c8a052b5f910470fa5be"),
}


def trace_case(kernel, inputs, params, generation):
    path, _, func = kernel.partition("::")
    if path not in GENERATED:
        return traced(kernel, inputs, params, generation=generation)
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, path), "w", encoding="utf-8") as f:
            f.write(GENERATED[path])
        return traced(f"{os.path.join(folder, path)}::{func}", inputs, params, generation=generation)


def without_locations(text):
    """The trace without its records' source locations (loc=KERNEL:LINE:CALL): the digests hold
    what the replay times, so that a kernel edit that only moves lines changes none of them (the
    locations are checked on their own below)."""
    return LOC.sub("", text)


LOC = re.compile(r" loc=\S+")


@pytest.mark.parametrize("name", sorted(CASES))
def test_trace_is_byte_identical(name):
    kt = trace_case(*CASES[name])
    records, digest = DIGESTS[name]
    text = without_locations(kt.text)
    assert (len(kt.records), hashlib.sha256(text.encode()).hexdigest()[:32]) == (records, digest), (
        f"{name}: the trace changed ({len(kt.records)} records, {records} stored); if on purpose, update DIGESTS "
        "(this file's docstring says how)")


# loc=FILE:LINE[:CALL][@FUNCTION][[NAME=VALUE,...]] (docs/trace-format.md)
SITE = re.compile(r"(?P<file>[^:]+):(?P<line>\d+)(?::(?P<call>[^@\[]+))?(?:@(?P<function>[^\[]+))?"
                  r"(?:\[(?P<indices>[^\]]*)\])?$")
# the operators a call names by the nl function they lower to
OPERATORS = {"nl.add": "+", "nl.subtract": "-", "nl.multiply": "*", "nl.divide": "/", "nl.copy": "="}


@pytest.mark.parametrize("name", ["matmul_tiled_512_sunda", "generated_stress"])
def test_every_record_names_its_kernel_line_and_call(name):
    kt = trace_case(*CASES[name])
    kernel, _, function = CASES[name][0].partition("::")
    source = GENERATED.get(kernel)
    if source is None:
        with open(os.path.join(EXAMPLES, kernel), encoding="utf-8") as f:
            source = f.read()
    lines = source.splitlines()
    for record in kt.records:
        found = LOC.search(record)
        assert found, f"{name}: a record without a location: {record}"
        site = SITE.match(found.group(0)[len(" loc="):])
        assert site, f"{name}: {record}"
        assert site["file"] == os.path.basename(kernel)
        code = lines[int(site["line"]) - 1]
        # the call named is on that line of the kernel (a sync record: the call it orders), or
        # the operator it lowers
        call = site["call"]
        assert call, f"{name}: a record without its call: {record}"
        assert call.split(".", 1)[1] in code or OPERATORS.get(call, "?") in code, f"{name}: {record} vs {code}"
        # the kernel function holding the line, and the iteration of the range loops around it
        assert site["function"] == function, record
        for index in (site["indices"] or "").split(",") if site["indices"] else []:
            loop, value = index.split("=")
            assert re.search(rf"\bfor {loop} in nl\.\w+_range\(", source), f"{name}: {record}: no loop {loop}"
            assert int(value) >= 0


def test_the_matmul_and_the_loops_of_the_tiled_gemm_are_named():
    """`acc += nl.matmul(...)` names nl.matmul (the call that made the matmul, not the `+=`), and
    each record its (m, n, k) iteration: 4 x 1 x 4 loads of each operand at 512 x 512."""
    kt = trace_case(*CASES["matmul_tiled_512_sunda"])
    sites = [SITE.match(LOC.search(r).group(0)[len(" loc="):]) for r in kt.records]
    with open(os.path.join(EXAMPLES, "matmul.py"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    matmul_line = next(i + 1 for i, code in enumerate(lines) if "acc += nl.matmul(a, b, transpose_x=True)" in code)
    calls = {s["call"] for s in sites if int(s["line"]) == matmul_line}
    assert calls == {"nl.matmul"}
    load_line = next(i + 1 for i, code in enumerate(lines) if "a[...] = nl.load(lhsT[k * TILE_K" in code)
    iterations = {s["indices"] for s in sites if int(s["line"]) == load_line}
    assert iterations == {f"m={m},n=0,k={k}" for m in range(4) for k in range(4)}


if __name__ == "__main__":
    for name in sorted(CASES):
        kt = trace_case(*CASES[name])
        digest = hashlib.sha256(without_locations(kt.text).encode()).hexdigest()[:32]
        print(f'    "{name}": ({len(kt.records)}, "{digest}"),')
