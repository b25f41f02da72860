"""The two public conventions of nki.isa: the result returned (neuronxcc.nki: `t = nisa.f(x)`) and
written into a first argument (the `nki` package: `nisa.f(dst, x)` or dst=). Each instruction gives
the same records either way, nc_matmul's accumulate= opens and closes PSUM groups as documented,
and numerical values agree."""

import re

import pytest

from sbufsim import nki

np = None
try:
    import numpy as np
except ImportError:  # the value test skips itself
    pass

HEAD = "import nki\nimport nki.isa as nisa\nimport nki.language as nl\n\n"

# (name, returning-form body, dst-first body): each kernel loads a [128, 512] bf16 tile x (and y),
# computes z, and stores z into out
PAIRS = [
    ("tensor_tensor", "z = nisa.tensor_tensor(x, y, op=nl.multiply)",
     "nisa.tensor_tensor(z, x, y, nl.multiply)"),
    ("tensor_tensor_kw", "z = nisa.tensor_tensor(data1=x, data2=y, op=nl.add)",
     "nisa.tensor_tensor(dst=z, data1=x, data2=y, op=nl.add)"),
    ("tensor_scalar", "z = nisa.tensor_scalar(x, nl.multiply, 2.0, op1=nl.add, operand1=1.0)",
     "nisa.tensor_scalar(z, x, nl.multiply, 2.0, op1=nl.add, operand1=1.0)"),
    ("tensor_copy", "z = nisa.tensor_copy(x)", "nisa.tensor_copy(z, x)"),
    ("activation", "z = nisa.activation(nl.exp, x, scale=0.5)", "nisa.activation(z, nl.exp, x, scale=0.5)"),
    ("activation_kw", "z = nisa.activation(op=nl.tanh, data=x)", "nisa.activation(dst=z, op=nl.tanh, data=x)"),
    ("memset", "z = nisa.memset((128, 512), 3.0, nl.bfloat16)", "nisa.memset(z, 3.0)"),
]


def kernel_text(name, body, z_shape="(128, 512)", dst_first=True):
    lines = [f"def {name}(a, b):", "    x = nl.load(a)", "    y = nl.load(b)"]
    if dst_first:
        lines.append(f"    z = nl.ndarray({z_shape}, dtype=nl.bfloat16, buffer=nl.sbuf)")
    lines += [f"    {body}", f"    out = nl.ndarray({z_shape}, dtype=nl.bfloat16, buffer=nl.shared_hbm)",
              "    nl.store(out, value=z)", "    return out"]
    return HEAD + "\n".join(lines) + "\n"


def trace_text(tmp_path, name, text, inputs=None):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    return nki.trace(f"{path}::{name}", inputs or {"a": "bf16[128,512]", "b": "bf16[128,512]"})


def shapes(kt):
    """The records without their SBUF addresses (the two forms allocate z at different lines) and
    their source locations (the two kernels are two files, with the call on different lines)."""
    return [re.sub(r" loc=\S+", "", re.sub(r"@0x[0-9a-f]+", "@ADDR", r)) for r in kt.records]


@pytest.mark.parametrize("name,returning,dst_first", PAIRS, ids=[p[0] for p in PAIRS])
def test_both_conventions_give_the_same_records(tmp_path, name, returning, dst_first):
    ret = trace_text(tmp_path, name + "_ret", kernel_text(name + "_ret", returning, dst_first=False))
    dst = trace_text(tmp_path, name + "_dst", kernel_text(name + "_dst", dst_first))
    assert shapes(dst) == shapes(ret)
    # the instruction is there (a dropped dst would leave only the DMAs)
    assert any(r.split()[0] in ("act", "dve", "pool") for r in dst.records), dst.records


def test_tensor_reduce_and_transposes_both_ways(tmp_path):
    for body_ret, body_dst, z_shape in [
        ("z = nisa.tensor_reduce(nl.max, x, axis=1, keepdims=True)",
         "nisa.tensor_reduce(z, nl.max, x, axis=1, keepdims=True)", "(128, 1)"),
        ("z = nisa.tensor_copy(nisa.nc_transpose(x[0:128, 0:128]), dtype=nl.bfloat16)",
         "p = nl.ndarray((128, 128), dtype=nl.bfloat16, buffer=nl.psum)\n"
         "    nisa.nc_transpose(p, x[0:128, 0:128])\n"
         "    nisa.tensor_copy(z, p)", "(128, 128)"),
        ("z = nisa.nc_transpose(x[0:32, 0:32], engine=nisa.vector_engine)",
         "nisa.nc_transpose(z, x[0:32, 0:32], engine=nisa.vector_engine)", "(32, 32)"),
    ]:
        ret = trace_text(tmp_path, "r", kernel_text("r", body_ret, z_shape, dst_first=False))
        dst = trace_text(tmp_path, "d", kernel_text("d", body_dst, z_shape))
        assert shapes(dst) == shapes(ret), body_dst


MATMUL = HEAD + """\
def mm(lhsT, rhs):
    out = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
    for k in nl.affine_range(4):
        l = nl.ndarray((128, 128), dtype=nl.bfloat16, buffer=nl.sbuf)
        r = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.sbuf)
        nisa.dma_copy(dst=l, src=lhsT[k * 128:(k + 1) * 128, :])
        nisa.dma_copy(dst=r, src=rhs[k * 128:(k + 1) * 128, :])
        CALL
    res = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.tensor_copy(res, acc)
    nisa.dma_copy(dst=out, src=res)
    return out
"""
MM_INPUTS = {"lhsT": "bf16[512,128]", "rhs": "bf16[512,512]"}


def acc_flags(kt):
    return [re.search(r"acc_flags=(\w+)", r).group(1) for r in kt.records if r.startswith("matmul")]


@pytest.mark.parametrize("call,flags", [
    ("nisa.nc_matmul(acc, l, r)", ["begin", "mid", "mid", "end"]),
    ("nisa.nc_matmul(dst=acc, stationary=l, moving=r, accumulate=True)", ["begin", "mid", "mid", "end"]),
    ("nisa.nc_matmul(acc, l, r, accumulate=(k == 0) is False)", ["begin", "mid", "mid", "end"]),
    # accumulate=False restarts the group at every step: each matmul is a group of its own
    ("nisa.nc_matmul(acc, l, r, accumulate=False)", ["single", "single", "single", "single"]),
    ("acc += nisa.nc_matmul(l, r)", ["begin", "mid", "mid", "end"]),
])
def test_matmul_accumulation_groups(tmp_path, call, flags):
    kt = trace_text(tmp_path, "mm", MATMUL.replace("CALL", call), MM_INPUTS)
    assert acc_flags(kt) == flags


HALVES = HEAD + """\
def halves(lhsT, rhs):
    out = nl.ndarray((128, 1024), dtype=nl.bfloat16, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.psum)
    for k in nl.affine_range(2):
        l = nl.load(lhsT[k * 128:(k + 1) * 128, :])
        for n in nl.affine_range(2):
            r = nl.load(rhs[k * 128:(k + 1) * 128, n * 512:(n + 1) * 512])
            acc[:, n * 512:(n + 1) * 512] += nisa.nc_matmul(l, r)
    nl.store(out, value=nl.copy(acc, dtype=nl.bfloat16))
    return out
"""


def test_matmuls_into_two_banks_of_one_tile_are_two_groups(tmp_path):
    """A 128 x 1024 fp32 tile spans two PSUM banks: its halves accumulate apart, each a group."""
    kt = trace_text(tmp_path, "halves", HALVES, {"lhsT": "bf16[256,128]", "rhs": "bf16[256,1024]"})
    dst = [re.search(r" dst=(\S+)", r).group(1) for r in kt.records if r.startswith("matmul")]
    assert acc_flags(kt) == ["begin", "begin", "end", "end"]
    assert dst[0] == dst[2] and dst[1] == dst[3] and dst[0] != dst[1]


def test_a_bf16_psum_accumulator_is_refused_at_the_matmul(tmp_path):
    bf16 = MATMUL.replace("acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)",
                          "acc = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.psum)")
    with pytest.raises(nki.NkiError, match=r"mm\.py:\d+: a matmul writes fp32 partial sums to PSUM .* not bfloat16: "
                                           r"allocate the accumulator as nl\.float32"):
        trace_text(tmp_path, "mm", bf16.replace("CALL", "nisa.nc_matmul(acc, l, r)"), MM_INPUTS)


def test_matmul_into_sbuf_and_dst_first_iota_are_refused_with_the_line(tmp_path):
    bad_mm = MATMUL.replace("acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)",
                            "acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)")
    with pytest.raises(nki.NkiError, match=r"mm\.py:\d+: .*nc_matmul writes PSUM"):
        trace_text(tmp_path, "mm", bad_mm.replace("CALL", "nisa.nc_matmul(acc, l, r)"), MM_INPUTS)
    text = kernel_text("io", "nisa.iota(z, nl.arange(128)[:, None])", "(128, 1)")
    with pytest.raises(nki.NkiError, match=r"io\.py:\d+: .*nisa\.iota with a dst argument"):
        trace_text(tmp_path, "io", text)


@pytest.mark.skipif(np is None, reason="numpy is not installed")
def test_dst_first_values_equal_the_returning_forms(tmp_path):
    a = np.random.default_rng(3).standard_normal((128, 512)).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", a[::-1].copy())
    inputs = {"a": f"bf16:{tmp_path / 'a.npy'}", "b": f"bf16:{tmp_path / 'b.npy'}"}
    for name, returning, dst_first in PAIRS:
        (ret,) = trace_text(tmp_path, "r", kernel_text("r", returning, dst_first=False), inputs).outputs
        (dst,) = trace_text(tmp_path, "d", kernel_text("d", dst_first), inputs).outputs
        assert np.array_equal(ret, dst), name
    mm_inputs = {"lhsT": f"bf16:{tmp_path / 'l.npy'}", "rhs": f"bf16:{tmp_path / 'r.npy'}"}
    np.save(tmp_path / "l.npy", np.random.default_rng(4).standard_normal((512, 128)).astype(np.float32))
    np.save(tmp_path / "r.npy", np.random.default_rng(5).standard_normal((512, 512)).astype(np.float32))
    (summed,) = trace_text(tmp_path, "mm", MATMUL.replace("CALL", "nisa.nc_matmul(acc, l, r)"), mm_inputs).outputs
    (last,) = trace_text(tmp_path, "mm", MATMUL.replace("CALL", "nisa.nc_matmul(acc, l, r, accumulate=False)"),
                         mm_inputs).outputs
    l, r = np.load(tmp_path / "l.npy"), np.load(tmp_path / "r.npy")
    assert np.allclose(summed, l.T @ r, rtol=0.05, atol=0.5)
    assert np.allclose(last, l[384:].T @ r[384:], rtol=0.05, atol=0.5)  # each step overwrote the last


@pytest.mark.parametrize("body,message", [
    ("t = nl.blocks(a, tile_shape=(128, 128), block_shape=(1, 1))", r"k\.py:6: nl\.blocks is not modelled"),
    ("nisa.dma_copy(dst=nl.ndarray((128, 128), dtype=nl.bfloat16, buffer=nl.sbuf).data, src=a)",
     r"k\.py:6: the tensor attribute \.data is not modelled"),
    ("from nki.isa import nc_stream_shuffle", r"k\.py:6: nisa\.nc_stream_shuffle is not modelled"),
    ("x = [1, 2][5]", r"k\.py:6: IndexError: list index out of range"),
])
def test_what_the_front_end_lacks_is_an_error_at_the_kernel_line(tmp_path, body, message):
    text = HEAD + f"def k(a):\n    {body}\n    return a\n"
    with pytest.raises(nki.NkiError, match=message):
        trace_text(tmp_path, "k", text, {"a": "bf16[128,128]"})


def test_a_kernel_file_that_does_not_compile_names_its_line(tmp_path):
    with pytest.raises(nki.NkiError, match=r"k\.py:5: SyntaxError"):
        trace_text(tmp_path, "k", HEAD + "def k(a:\n    return a\n", {"a": "bf16[128,128]"})


def test_a_pe_transpose_writes_its_data_dtype_where_the_pe_has_a_transpose_mode(tmp_path):
    # nki.isa nc_transpose: "The output dst tile must have the same data type as that of data"
    # (pe.transpose_passthrough); NeuronCore-v2 transposes by an fp32 matmul (seed 000 §5.1).
    def body(dtype):
        return (f"p = nl.ndarray((128, 128), dtype=nl.{dtype}, buffer=nl.psum)\n"
                "    nisa.nc_transpose(p, x[0:128, 0:128])\n"
                "    nisa.tensor_copy(z, p)")
    text = kernel_text("t", body("float32"), "(128, 128)")
    with pytest.raises(nki.NkiError, match=r"t\.py:10: nc_transpose into a float32 tile: it writes bfloat16"):
        trace_text(tmp_path, "t", text)
    inputs = {"a": "bf16[128,512]", "b": "bf16[128,512]"}
    for dtype, gen, ok in [("bfloat16", "cayman", True), ("float32", "sunda", True), ("bfloat16", "sunda", False)]:
        path = tmp_path / f"g_{gen}_{dtype}.py"
        path.write_text(kernel_text("g", body(dtype), "(128, 128)"))
        if ok:
            kt = nki.trace(f"{path}::g", inputs, generation=gen)
            pe = [r for r in kt.records if r.startswith("matmul")]
            assert [re.search(r" dst=(\w+)@", r).group(1) for r in pe] == ["bf16" if dtype == "bfloat16" else "fp32"]
        else:
            with pytest.raises(nki.NkiError, match=r"on sunda \(no transpose mode\) a PE transpose is an fp32 matmul"):
                nki.trace(f"{path}::g", inputs, generation=gen)
