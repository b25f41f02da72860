"""What public kernel files need beyond the API calls, each with a kernel written here: a driver's
framework imported at module level that this interpreter lacks, nl.load_transpose2d of 4-byte
data, the internal compiler modules reference kernels import, and arguments built from the
kernel's own module (a dataclass)."""

import re
import sys
import textwrap

import pytest

from sbufsim import nki
from test_nki_isa import field
from test_nki_public_api import kernel, kinds

FRAMEWORK = "sbufsim_absent_framework"  # a package no interpreter has


def test_a_framework_the_interpreter_lacks_is_a_stand_in_until_the_kernel_uses_it(tmp_path):
    k = kernel(tmp_path, f"""\
        import {FRAMEWORK}.core.xla_model as xm
        from {FRAMEWORK}.special import softmax
        from {FRAMEWORK} import Tensor

        def reference(x: Tensor) -> Tensor:  # a driver's helper: annotations only
            return softmax(x)

        def k(a):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            nl.store(out, value=nl.exp(nl.load(a)))
            return out

        def uses(a):
            device = xm.xla_device()
            return a
    """)
    kt = nki.trace(k, {"a": "fp32[128,512]"})
    assert kinds(kt) == ["dma", "act", "dma"]
    assert not [m for m in sys.modules if m.startswith(FRAMEWORK)]  # gone after the trace
    with pytest.raises(nki.NkiError, match=rf"k\.py:18: {FRAMEWORK}\.core\.xla_model\.xla_device is from "
                                           rf"{FRAMEWORK}, which is not installed"):
        nki.trace(k.replace("::k", "::uses"), {"a": "fp32[128,512]"})


def test_an_installed_modules_own_imports_get_no_stand_in(tmp_path):
    # a module outside the kernel's folder that falls back when an optional import fails, as
    # numpy and others do: it must still see the ImportError
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "sbufsim_optional_user.py").write_text(textwrap.dedent(f"""\
        try:
            import {FRAMEWORK}_optional
            FOUND = True
        except ImportError:
            FOUND = False
    """))
    folder = tmp_path / "kernels"
    folder.mkdir()
    k = kernel(folder, """\
        import sbufsim_optional_user

        def k(a):
            assert not sbufsim_optional_user.FOUND
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            nl.store(out, value=nl.load(a))
            return out
    """)
    sys.path.insert(0, str(lib))
    try:
        kt = nki.trace(k, {"a": "fp32[128,64]"})
    finally:
        sys.path.remove(str(lib))
        sys.modules.pop("sbufsim_optional_user", None)
    assert kinds(kt) == ["dma", "dma"]


TRANSPOSE = """\
    def k(a):
        out = nl.ndarray((a.shape[1], a.shape[0]), dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value={call})
        return out
"""


def test_load_transpose2d_of_4_byte_data_uses_the_crossbars_64_columns(tmp_path):
    k = kernel(tmp_path, TRANSPOSE.format(call="nl.load_transpose2d(a)"))
    kt = nki.trace(k, {"a": "fp32[128,64]"})
    dma = [r for r in kt.records if r.startswith("dma") and field(r, "transpose") == "1"]
    assert len(dma) == 1
    assert field(dma[0], "partitions") == "128" and field(dma[0], "bytes") == str(64 * 4)
    with pytest.raises(nki.NkiError, match=r"k\.py:7: dma_transpose of 128 source columns of 4-byte data: at most 64"):
        nki.trace(k, {"a": "fp32[128,128]"})
    assert nki.trace(k, {"a": "bf16[128,128]"}).count("dma") == 2  # 2-byte data: 128 columns
    # nki.isa dma_transpose keeps its documented 2-byte data
    k2 = kernel(tmp_path, TRANSPOSE.format(call="nisa.dma_transpose(nl.load(a))"), file="k2")
    with pytest.raises(nki.NkiError, match=r"dma_transpose moves 2-byte data \(nki.isa dma_transpose\); src is "):
        nki.trace(k2, {"a": "fp32[128,64]"})


def test_the_compilers_internal_paths_reference_kernels_import(tmp_path):
    k = kernel(tmp_path, """\
        import numpy as np
        from neuronxcc.nki.language.constants import sizeinbytes
        from neuronxcc.nki.compiler.backends.neuron.tensor import local_tile
        from neuronxcc.nki.compiler.backends.neuron.indexing import TileIndex

        def rows(i: TileIndex) -> TileIndex:
            return i

        def k(a):
            assert sizeinbytes(np.float32) == 4 and sizeinbytes(nl.bfloat16) == 2
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            nl.store(out, value=nl.load(a))
            return out

        def calls(a):
            return local_tile(a)
    """)
    assert kinds(nki.trace(k, {"a": "fp32[128,64]"})) == ["dma", "dma"]
    with pytest.raises(nki.NkiError, match=r"k\.py:20: neuronxcc\.nki\.compiler\.backends\.neuron\.tensor\.local_tile "
                                           r"is not modelled"):
        nki.trace(k.replace("::k", "::calls"), {"a": "fp32[128,64]"})


def test_a_tensor_viewed_as_another_dtype_and_an_operand_indexed_with_a_mask(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            out = nl.ndarray((128, 4), dtype=nl.float8_e4m3, buffer=nl.shared_hbm)
            scale = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            i_p, i_f = nl.mgrid[0:128, 0:1]
            scale[i_p, i_f] = nl.load(a[i_p, i_f])
            doubled = nl.add(scale[i_p, i_f][i_p < 128], scale)
            j_p, j_f = nl.mgrid[0:128, 0:4]
            nisa.dma_copy(dst=out[j_p, j_f], src=doubled.view(nl.float8_e4m3)[j_p, j_f])
            return out
    """)
    kt = nki.trace(k, {"a": "fp32[128,8]"})
    assert kinds(kt) == ["dma", "dve", "dma"]
    store = kt.records[-1]
    assert field(store, "src").startswith("fp8e4@") and field(store, "bytes") == "4"
    with pytest.raises(nki.NkiError, match=r"k3\.py:8: view of .* int8 as int32: its last dimension of 3 bytes "
                                           r"is not whole 4-byte elements"):
        nki.trace(kernel(tmp_path, """\
            def k(a):
                t = nl.ndarray((128, 3), dtype=nl.int8, buffer=nl.sbuf)
                t[...] = nl.load(a)
                return t.view(nl.int32)
        """, file="k3"), {"a": "int8[128,3]"})


def test_a_parameter_built_from_the_kernel_modules_own_names(tmp_path):
    k = kernel(tmp_path, """\
        from dataclasses import dataclass

        @dataclass(frozen=True)
        class Args:
            scale: float
            rows: int = 128

            def __post_init__(self):
                if self.scale < 0:
                    raise ValueError("scale must be positive")

        def k(a, args: Args):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            nl.store(out[0:args.rows], value=nl.multiply(nl.load(a[0:args.rows]), args.scale))
            return out
    """)
    kt = nki.trace(k, {"a": "fp32[128,64]"}, {"args": nki.kernel_expr("Args(scale=2.0, rows=64)")})
    assert field(kt.records[0], "partitions") == "64"
    with pytest.raises(nki.NkiError, match=r"parameter args=Args\(scale=-1\.0\): ValueError: scale must be positive"):
        nki.trace(k, {"a": "fp32[128,64]"}, {"args": nki.kernel_expr("Args(scale=-1.0)")})
    # the command line's --param: a call or attribute is such an expression, other text a string
    from sbufsim.nki.__main__ import _param
    assert isinstance(_param("Args(scale=2.0)"), nki.KernelExpr) and isinstance(_param("nl.bfloat16"), nki.KernelExpr)
    assert _param("4") == 4 and type(_param("fast")) is str
    # an attribute whose first name the module lacks stays the text (a dtype by its name)
    k2 = kernel(tmp_path, """\
        def k(a, dtype):
            assert dtype == "language.bfloat16", dtype
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            nl.store(out, value=nl.load(a))
            return out
    """, file="k2")
    assert kinds(nki.trace(k2, {"a": "fp32[128,64]"}, {"dtype": _param("language.bfloat16")})) == ["dma", "dma"]


GATHER = """\
    def k(a):
        out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
        i_p = nl.arange(128)[:, None]
        i_f = nl.arange(64)[None, :]
        rows = nisa.iota(i_p, dtype={dtype})
        picked = nl.add(rows, rows, dtype={dtype})  # row 2p for partition p
        nl.store(out[i_p, i_f], value=nl.load(a[picked, i_f], mask=(i_p < {rows})))
        return out
"""


def test_an_hbm_index_by_a_tile_is_a_gather_that_waits_for_the_tile(tmp_path):
    k = kernel(tmp_path, GATHER.format(dtype="nl.int32", rows=100))
    kt = nki.trace(k, {"a": "fp16[256,64]"})
    assert kinds(kt) == ["pool", "dve", "dma", "dma"]
    add, load = kt.records[1], kt.records[2]
    assert field(load, "src") == "hbm" and field(load, "partitions") == "100" and field(load, "bytes") == "128"
    # the gather reads the row numbers the VectorE add wrote: it waits for that record
    assert re.search(r" wait=\d+:1\b", load) and field(add, "signal") in re.findall(r" wait=(\d+):", load)
    with pytest.raises(nki.NkiError, match=r"k\.py:11: a: dimension 0 \(size 256\): an index tile must be an "
                                           r"on-chip tile of integers \(the row numbers\), not sbuf float32"):
        nki.trace(kernel(tmp_path, GATHER.format(dtype="nl.float32", rows=100)), {"a": "fp16[256,64]"})
