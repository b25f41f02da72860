"""Numerical values while tracing (`--input x=file.npy`): the examples' outputs against numpy
references, and the command's values and timing in one run."""

import re

import pytest

from nki_helpers import example, traced
from sbufsim import nki

np = pytest.importorskip("numpy")

RNG = np.random.default_rng(19)


def bf16(a):
    """Round float32 to bf16 (nearest even), as the tracer rounds a bf16 tensor."""
    bits = np.asarray(a, np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)


@pytest.mark.parametrize("stage,params", [
    ("matmul_tiled", None),
    ("matmul_blocked", {"TILES_IN_BLOCK_M": 2}),
    ("matmul_block_all", {"TILES_IN_BLOCK_M": 1, "TILES_IN_BLOCK_N": 1, "TILES_IN_BLOCK_K": 1}),
])
def test_gemm_stages_compute_the_product(tmp_path, stage, params):
    a = RNG.standard_normal((256, 256)).astype(np.float32)
    b = RNG.standard_normal((256, 512)).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    kt = traced(f"matmul.py::{stage}", {"lhsT": f"bf16:{tmp_path / 'a.npy'}", "rhs": f"bf16:{tmp_path / 'b.npy'}"},
                params)
    (out,) = kt.outputs
    # fp32 accumulation of bf16 operands, the result rounded to bf16 (stage 4 also rounds each
    # K block's partial sum into its bf16 SBUF block)
    assert np.allclose(out, bf16(bf16(a).T @ bf16(b)), rtol=0.02, atol=0.1)
    # the trace is the one a shape-only run gives
    assert kt.text == traced(f"matmul.py::{stage}", {"lhsT": "bf16[256,256]", "rhs": "bf16[256,512]"}, params).text


def test_rmsnorm_softmax_and_transpose_values():
    x = RNG.standard_normal((256, 512)).astype(np.float32)
    g = RNG.standard_normal((1, 512)).astype(np.float32)
    (y,) = traced("rmsnorm.py::rmsnorm", {"x": x, "g": g}).outputs
    assert np.allclose(y, x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6) * g, rtol=1e-5, atol=1e-5)
    (s,) = traced("softmax.py::softmax", {"x": x}).outputs
    e = np.exp(x - x.max(axis=1, keepdims=True))
    assert np.allclose(s, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
    (t,) = traced("transpose.py::transpose", {"x": x}).outputs
    assert np.array_equal(t, x.T)


def test_gelu_is_the_exact_form_and_its_approximations_are_their_own_calls(tmp_path):
    # nki.language: gelu is x·Φ(x); gelu_apprx_tanh and gelu_apprx_sigmoid are separate calls.
    path = tmp_path / "g.py"
    path.write_text("import nki\nimport nki.language as nl\n\n\n@nki.jit\ndef g(x):\n"
                    "    out = nl.ndarray((3, 128, 64), dtype=x.dtype, buffer=nl.shared_hbm)\n"
                    "    t = nl.load(x)\n"
                    "    nl.store(out[0], value=nl.gelu(t))\n"
                    "    nl.store(out[1], value=nl.gelu_apprx_tanh(t))\n"
                    "    nl.store(out[2], value=nl.gelu_apprx_sigmoid(t))\n"
                    "    return out\n")
    x = np.linspace(-4, 4, 128 * 64, dtype=np.float32).reshape(128, 64)
    (out,) = traced(f"{path}::g", {"x": x}).outputs
    erf = np.vectorize(__import__("math").erf)
    exact = 0.5 * x * (1 + erf(x / np.sqrt(2)))
    tanh = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    assert np.allclose(out[0], exact, atol=1e-6)
    assert not np.allclose(out[0], tanh, atol=1e-4)  # the forms differ by up to about 1e-3
    assert np.allclose(out[1], tanh, atol=1e-6)
    assert np.allclose(out[2], x / (1 + np.exp(-1.702 * x)), atol=1e-6)


def test_shape_only_inputs_have_no_values():
    assert traced("softmax.py::softmax", {"x": "bf16[128,512]"}).outputs is None


def test_command_gives_values_and_timing_in_one_run(cli, tmp_path):
    a = RNG.standard_normal((256, 256)).astype(np.float32)
    b = RNG.standard_normal((256, 512)).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    out = tmp_path / "c.npy"
    kernel = f"{example('matmul.py')}::matmul_blocked"
    done = cli("nki", kernel, "--input", f"lhsT=bf16:{tmp_path / 'a.npy'}", "--input",
               f"rhs=bf16:{tmp_path / 'b.npy'}", "--param", "TILES_IN_BLOCK_M=2", "--values-out", out)
    assert done.returncode == 0, done.stderr
    assert np.allclose(np.load(out), bf16(bf16(a).T @ bf16(b)), rtol=0.02, atol=0.1)
    assert re.search(r"^values: output 0 \[256, 512\]", done.stdout, re.M)
    shapes = cli("nki", kernel, "--input", "lhsT=bf16[256,256]", "--input", "rhs=bf16[256,512]",
                 "--param", "TILES_IN_BLOCK_M=2")
    cycles = lambda text: re.search(r"^total (\d+) cycles", text, re.M).group(1)
    assert cycles(done.stdout) == cycles(shapes.stdout)
    # an existing file is not overwritten
    again = cli("nki", kernel, "--input", f"lhsT=bf16:{tmp_path / 'a.npy'}", "--input",
                f"rhs=bf16:{tmp_path / 'b.npy'}", "--values-out", out)
    assert again.returncode == 2 and "exists" in again.stderr


def test_a_float64_array_is_refused_naming_the_input_and_the_fix():
    # A NeuronCore has no float64 tensor: refused as a complex array is, not traced as float32.
    x = RNG.standard_normal((256, 512))
    with pytest.raises(nki.NkiError, match=r"^input x: float64 is not a NeuronCore dtype; "
                                           r"pass x\.astype\(numpy\.float32\) to trace it as float32$"):
        traced("softmax.py::softmax", {"x": x})
    with pytest.raises(nki.NkiError, match=r"^input x: an array of complex128, which is not an NKI dtype"):
        traced("softmax.py::softmax", {"x": x.astype(np.complex128)})
    (s,) = traced("softmax.py::softmax", {"x": x.astype(np.float32)}).outputs
    assert s.dtype == np.float32 and s.shape == (256, 512)


def test_an_int64_array_is_refused_as_float64_is_not_narrowed_to_int32(tmp_path):
    i = np.arange(128 * 512).reshape(128, 512)  # numpy's default integer: int64
    assert i.dtype == np.int64
    with pytest.raises(nki.NkiError, match=r"^input x: int64 is not a NeuronCore dtype; "
                                           r"pass x\.astype\(numpy\.int32\) to trace it as int32$"):
        traced("softmax.py::softmax", {"x": i})
    path = tmp_path / "i64.npy"
    np.save(path, i)
    with pytest.raises(nki.NkiError, match=rf"^input x: {re.escape(str(path))} holds int64, which is not a "
                                           rf"NeuronCore dtype; save it as int32, or give int32:"):
        nki.parse_input(str(path), "x")
    dtype, shape, values = nki.parse_input(f"int32:{path}", "x")
    assert dtype.name == "int32" and shape == (128, 512) and values is not None


def test_a_float64_npy_file_is_refused_unless_its_dtype_is_given(cli, tmp_path):
    x = RNG.standard_normal((256, 512))
    path = tmp_path / "x64.npy"
    np.save(path, x)
    with pytest.raises(nki.NkiError, match=rf"^input x: {re.escape(str(path))} holds float64, which is not a "
                                           rf"NeuronCore dtype; save it as float32, or give fp32:"):
        traced("softmax.py::softmax", {"x": str(path)})
    kernel = f"{example('softmax.py')}::softmax"
    done = cli("nki", kernel, "--input", f"x={path}")
    assert done.returncode == 3
    assert f"input x: {path} holds float64, which is not a NeuronCore dtype" in done.stderr
    # the dtype named: the values are rounded to it, as for any array
    np.save(tmp_path / "x32.npy", x.astype(np.float32))
    (given,) = traced("softmax.py::softmax", {"x": f"fp32:{path}"}).outputs
    (saved,) = traced("softmax.py::softmax", {"x": str(tmp_path / "x32.npy")}).outputs
    assert np.array_equal(given, saved)
    assert cli("nki", kernel, "--input", f"x=fp32:{path}").returncode == 0
