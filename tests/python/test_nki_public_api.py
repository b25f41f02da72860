"""The public NKI API beyond the core subset, each family with a kernel written here: nki.typing
annotations, nki.compiler switches and direct allocation, SPMD launches, nl.ds / mgrid / masks,
tensor methods, the reduction and scan instructions, PSUM tensors with block dimensions, and a
kernel's sibling modules."""

import re
import textwrap

import pytest

from sbufsim import nki
from sbufsim.nki._compute import INSTRUCTIONS
from nki_helpers import check_semaphores
from test_nki_isa import compute_records, field


def kernel(tmp_path, body, name="k", header="import nki\nimport nki.isa as nisa\nimport nki.language as nl\n",
           file=None):
    path = tmp_path / f"{file or name}.py"
    path.write_text(header + "\n" + textwrap.dedent(body))
    return f"{path}::{name}"


def kinds(kt):
    """The record kinds without the synchronisation records (a DMA sync copies scratch to itself)."""
    return [r.split()[0] for r in kt.records
            if "fn=sync" not in r and not (r.startswith("dma") and field(r, "src") == field(r, "dst"))]


ADD = """\
    {decorators}
    def k(a, b{annotation}):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype, buffer={buffer})
        x[...] = nl.load(a[0:128, 0:512])
        y = nl.load(b[0:128, 0:512])
        nl.store(out[0:128, 0:512], value=nl.add(x, y))
        return out
"""


def without_locations(records):
    return [re.sub(r" loc=\S+", "", r) for r in records]


def test_typing_and_compiler_names_trace_as_the_plain_kernel(tmp_path):
    plain = kernel(tmp_path, ADD.format(decorators="", annotation="", buffer="nl.sbuf"), file="plain")
    switched = kernel(tmp_path, ADD.format(
        decorators="@ncc.skip_middle_end_transformations\n    @ncc.enable_stack_allocator(log_level=20)\n    @nki.jit",
        annotation=": nt.tensor[128, 512]", buffer="ncc.sbuf.mod_alloc(base_addr=1024, num_free_tiles=(1,))"),
        "k", header="from neuronxcc import nki\nimport neuronxcc.nki.language as nl\n"
                    "import neuronxcc.nki.typing as nt\nimport neuronxcc.nki.compiler as ncc\n"
                    "from nki.typing import tensor\n")
    inputs = {"a": "bf16[128,512]", "b": "bf16[128,512]"}
    a, b = nki.trace(plain, inputs), nki.trace(switched, inputs)
    assert kinds(a) == ["dma", "dma", "dve", "dma"]
    # the switches change nothing but the addresses: the directly allocated tile is at its
    # base_addr, 1024, and the front-end's own tile keeps clear of it (the kernels are two files:
    # their locations differ; test_nki_direct_allocation.py holds the placements)

    def shapes(records):
        return [re.sub(r"@0x[0-9a-f]+\[", "@[", r) for r in without_locations(records)]
    assert shapes(a.records) == shapes(b.records)
    assert "dst=bf16@0x400[" in b.records[0] and "dst=bf16@0x40[" in a.records[0]


def test_spmd_launch_runs_every_instance_with_its_program_id(tmp_path):
    k = kernel(tmp_path, """\
        @nki.jit
        def add_kernel(a, b):
            assert nl.program_ndim() == 2 and nl.num_programs(0) == 2 and nl.num_programs(1) == 3
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            i = nl.program_id(0) * 128 + nl.arange(128)[:, None]
            j = nl.program_id(1) * 256 + nl.arange(256)[None, :]
            nl.store(out[i, j], value=nl.load(a[i, j]) + nl.load(b[i, j]))
            return out

        def k(a, b):
            return add_kernel[2, 3](a, b)
    """)
    inputs = {"a": "fp16[256,768]", "b": "fp16[256,768]"}
    kt = nki.trace(k, inputs, cores=1)  # every instance on one core (test_nki_spmd_cores.py: several)
    assert kinds(kt).count("dve") == 6 and kinds(kt).count("dma") == 18
    assert kt.hbm_bytes == 3 * 256 * 768 * 2  # every instance its own tile: each element read and written once
    np = pytest.importorskip("numpy")
    a, b = (np.random.default_rng(s).random((256, 768)).astype(np.float16) for s in (1, 2))
    # every instance writes its block of the one shared_hbm output, on cayman's two cores
    values = nki.trace(k, {"a": a, "b": b})
    np.testing.assert_allclose(values.outputs[0], a.astype(np.float32) + b, rtol=1e-3)
    grid = nki.trace(k.replace("::k", "::add_kernel"), inputs, grid=(2, 3), cores=1)
    assert grid.records == kt.records
    check_semaphores(kt)
    with pytest.raises(nki.NkiError, match=r"k\.py:\d+: AssertionError"):
        nki.trace(k.replace("::k", "::add_kernel"), inputs, grid=(2, 2))  # num_programs(1) is 2 then


def test_nl_ds_mgrid_and_masks(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            out = nl.ndarray((128, 256), dtype=a.dtype, buffer=nl.shared_hbm)
            g = nl.mgrid[0:128, 0:256]
            i_p, i_f = g
            assert g.p is i_p and g.x is i_f
            n = a.shape[0]
            for t in nl.affine_range(2):
                rows = t * 128 + i_p
                x = nl.load(a[rows, nl.ds(t * 256, 256)], mask=(rows < n) & (i_f >= 0))
                nl.store(out[i_p, i_f], value=nl.exp(x), mask=(2 * i_p + i_f < 10000))
            return out
    """)
    kt = nki.trace(k, {"a": "bf16[256,512]"})
    loads = [r for r in kt.records if r.startswith("dma") and "src=hbm" in r]
    assert len(loads) == 2 and all(field(r, "partitions") == "128" and field(r, "bytes") == "512" for r in loads)
    assert kinds(kt).count("act") == 2


def test_a_mask_is_not_a_truth_value(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            i = nl.arange(128)[:, None]
            if i < 64:
                pass
    """)
    with pytest.raises(nki.NkiError, match=r"k\.py:7: a mask .* used as a Python truth value"):
        nki.trace(k, {"a": "bf16[128,128]"})


def test_tensor_methods(tmp_path):
    k = kernel(tmp_path, """\
        def k(a, g):
            out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
            assert a.ndim == 3 and g.ndim == 1
            flat = a.reshape((128, 512))
            x = nl.load(flat)
            gt = nl.load(g.reshape((1, 512)))
            y = nl.multiply(x, gt.broadcast_to((128, 512)))
            s = nl.sum(y, axis=1)               # [128]
            z = nl.multiply(y, s.broadcast_to((128, 512)))
            nl.store(out, value=z)
            return out
    """)
    kt = nki.trace(k, {"a": "bf16[128,2,256]", "g": "bf16[512]"})
    dves = [r for r in compute_records(kt)]
    mul = dves[0]
    # the [1, 512] row is read on all 128 partitions: its operand repeats the row (a step-0 partition)
    assert field(mul, "isa") == "tensor_tensor" and field(mul, "partitions") == "128"
    assert [field(r, "isa") for r in dves] == ["tensor_tensor", "tensor_reduce", "tensor_tensor"]
    assert field(dves[2], "src2").endswith("[0][512]")  # the [128] sums read 512 times each: a step-0 free dimension
    loads = [r for r in kt.records if r.startswith("dma") and "src=hbm" in r]
    assert sorted(field(r, "partitions") for r in loads) == ["1", "128"]  # the reshaped [1, 512] row; a as [128, 512]


def test_reduction_and_scan_instructions(tmp_path):
    np = pytest.importorskip("numpy")
    k = kernel(tmp_path, """\
        def k(a, b):
            out = nl.ndarray((128, 8), dtype=nl.float32, buffer=nl.shared_hbm)
            x = nl.load(a)
            y = nl.load(b)
            r = nisa.reciprocal(data=x)
            m = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            s = nisa.tensor_scalar_reduce(data=r, op0=nl.multiply, operand0=2.0, reduce_op=nl.add, reduce_res=m)
            e = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            t = nisa.activation(op=nl.exp, data=s, reduce_op=nl.add, reduce_res=e,
                                reduce_cmd=nisa.reduce_cmd.reset_reduce)
            c = nisa.tensor_tensor_scan(x, y, initial=0, op0=nl.multiply, op1=nl.add)
            d = nisa.scalar_tensor_tensor(data=c, op0=nl.multiply, operand0=m, op1=nl.add, operand1=t)
            nl.store(out, value=d)
            return out
    """)
    rng = np.random.default_rng(0)
    a = rng.uniform(0.5, 1.5, (128, 8)).astype(np.float32)
    b = rng.uniform(-1, 1, (128, 8)).astype(np.float32)
    kt = nki.trace(k, {"a": a, "b": b})
    records = compute_records(kt)
    assert [(r.split()[0], field(r, "isa")) for r in records] == [
        ("dve", "reciprocal"), ("dve", "tensor_scalar_reduce"), ("act", "activation_reduce"),
        ("dve", "tensor_tensor_scan"), ("dve", "scalar_tensor_tensor")]
    assert all(field(r, "isa") in INSTRUCTIONS for r in records)
    r = 1 / a
    s = r * 2
    m = s.sum(axis=1, keepdims=True)
    t = np.exp(s)
    c = np.zeros_like(a)
    acc = np.zeros(128, np.float32)
    for i in range(8):
        acc = acc * a[:, i] + b[:, i]
        c[:, i] = acc
    np.testing.assert_allclose(kt.outputs[0], c * m + t, rtol=1e-4)
    check_semaphores(kt)


def test_psum_blocks_are_placed_bank_by_bank(tmp_path):
    k = kernel(tmp_path, """\
        def k(q, kk):
            out = nl.ndarray((128, 16 * 512), dtype=nl.float32, buffer=nl.shared_hbm)
            qs = nl.load(q)
            ks = nl.load(kk)
            acc = nl.ndarray((16, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.psum)
            for j in nl.affine_range(16):
                acc[j] = nisa.nc_matmul(qs, ks[:, nl.ds(j * 512, 512)])
                nl.store(out[:, nl.ds(j * 512, 512)], value=acc[j])
            return out
    """)
    kt = nki.trace(k, {"q": "bf16[128,128]", "kk": "bf16[128,8192]"})
    dsts = [field(r, "dst") for r in kt.records if r.startswith("matmul")]
    banks = [(int(re.match(r"fp32@0x([0-9a-f]+)", d).group(1), 16) - 0x2000000) // 2048 for d in dsts]
    assert len(banks) == 16 and len(set(banks)) == 8  # 16 blocks over the 8 banks, one block per bank
    assert banks[:8] == list(range(8)) and banks[8:] == banks[:8]
    check_semaphores(kt)


def test_a_kernel_imports_its_sibling_modules(tmp_path):
    (tmp_path / "helpers_for_k.py").write_text(textwrap.dedent("""\
        import nki.language as nl

        def double(x):
            return nl.add(x, x)
    """))
    k = kernel(tmp_path, """\
        from helpers_for_k import double

        def k(a):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            nl.store(out, value=double(nl.load(a)))
            return out
    """)
    kt = nki.trace(k, {"a": "bf16[128,128]"})
    assert kinds(kt) == ["dma", "dve", "dma"]
    import sys
    assert "helpers_for_k" not in sys.modules  # forgotten after the trace


def test_access_patterns(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
            t = nl.ndarray((128, 2, 64), dtype=a.dtype, buffer=nl.sbuf)
            # rows 0..31 of a, 64 elements each, into partitions 32..63 of t, second half of each row
            nisa.dma_copy(src=a.ap(pattern=[[64, 32], [1, 64]], offset=0),
                          dst=t.ap(pattern=[[128, 32], [1, 64]], offset=32 * 128 + 64))
            u = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.sbuf)
            # every other element of each partition's row (a stride of 2), 64 of them
            nisa.tensor_copy(dst=u, src=t.ap(pattern=[[128, 128], [2, 64]], offset=0))
            nl.store(out, value=u)
            return out
    """)
    kt = nki.trace(k, {"a": "bf16[128,64]"})
    dma = kt.records[0]
    assert field(dma, "partitions") == "32" and field(dma, "bytes") == "128"
    # partition 32 of an SBUF tile at byte 64: its address is partition 32's, 64 elements in
    assert int(re.match(r"bf16@0x([0-9a-f]+)", field(dma, "dst")).group(1), 16) == 32 * 0x40000 + 64 + 128
    copy = compute_records(kt)[0]
    assert field(copy, "src").endswith("[2][64]") and field(copy, "partitions") == "128"


def test_index_expressions_of_several_ranges_are_access_patterns(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            out = nl.ndarray((32, 12), dtype=a.dtype, buffer=nl.shared_hbm)
            x = nl.load(a)
            i_p = nl.arange(32)[:, None, None]
            i_1 = nl.arange(3)[None, :, None]
            i_2 = nl.arange(4)[None, None, :]
            y = nl.ndarray((32, 12), dtype=a.dtype, buffer=nl.sbuf)
            y[i_p, i_2 * 3 + i_1] = nl.copy(x[i_p, i_1 * 4 + i_2])  # a [3, 4] block transposed per partition
            nl.store(out, value=y)
            return out
    """)
    kt = nki.trace(k, {"a": "int8[32,12]"})
    copy = compute_records(kt)[0]
    assert field(copy, "src").endswith("[1,4][4,3]")  # innermost first: 4 elements of step 1, 3 of step 4
    assert field(copy, "dst").endswith("[3,1][4,3]")
    with pytest.raises(nki.NkiError, match=r"k\.py:\d+: .*outside the tensor"):
        nki.trace(k, {"a": "int8[32,11]"})


def test_nl_matmul_without_transpose_x_transposes_x_first(tmp_path):
    k = kernel(tmp_path, """\
        def k(a, b):
            out = nl.ndarray((64, 512), dtype=nl.float32, buffer=nl.shared_hbm)
            x = nl.load(a)                 # [M, K] = [64, 128]
            y = nl.load(b)                 # [K, N] = [128, 512]
            nl.store(out, value=nl.matmul(x, y))
            return out
    """)
    kt = nki.trace(k, {"a": "bf16[64,128]", "b": "bf16[128,512]"})
    # x through the PE into PSUM and back to SBUF, then the matmul; its PSUM result copied out for the store
    assert [k for k in kinds(kt) if k != "dma"] == ["pool", "ldweights", "matmul", "dve", "ldweights", "matmul", "dve"]
    matmul = [r for r in kt.records if r.startswith("matmul")][1]
    assert field(matmul, "num_active_rows") == "128" and field(matmul, "num_active_cols") == "64"
    assert kt.flops == 2 * 64 * 128 * 512


def test_tiles_are_freed_after_their_last_use_when_the_kernel_does_not_fit_otherwise(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            x = nl.load(a)                    # 80 KiB per partition
            y = nl.exp(x)                     # x is dead after this
            z = nl.tanh(y)                    # and y after this
            nl.store(out, value=z)
            return out
    """)
    kt = nki.trace(k, {"a": "fp32[128,20480]"})  # three 80 KiB lines: 240 KiB, over cayman's 224 KiB
    load, exp, tanh, store = [r for r in kt.records if "fn=sync" not in r]
    addr = lambda r, f: int(re.match(r"fp32@0x([0-9a-f]+)", field(r, f)).group(1), 16)
    assert addr(exp, "src") != addr(exp, "dst")
    assert addr(tanh, "dst") == addr(exp, "src")  # z takes x's bytes: x's last use was the exp
    assert "wait=" in tanh or "wait=" in exp
    check_semaphores(kt)
    with pytest.raises(nki.NkiError, match=r"k\.py:8: SBUF is full even with each tile freed after its last use"):
        nki.trace(k, {"a": "fp32[128,40960]"})  # two 160 KiB tiles are live at once


def test_an_integer_index_leaves_a_tile_two_dimensional_and_psum_fills_read_scratch(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            out = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
            t = nl.load(a)                          # [128, 4]
            col = t[:, 2]                           # [128, 1], as NKI's tiles are
            assert col.shape == (128, 1)
            acc = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.psum)
            nisa.memset(acc, 0.0)
            y = nl.add(t, col)                      # a [P, 1] operand: tensor_scalar
            nl.store(out, value=y)
            return out
    """)
    kt = nki.trace(k, {"a": "fp32[128,4]"})
    memset, add = compute_records(kt)
    assert field(memset, "isa") == "memset" and field(memset, "dst").startswith("fp32@0x2000")
    assert field(memset, "src") == "fp32@0x30[0][4]"  # one PSUM operand per instruction: the source is SBUF scratch
    assert field(add, "isa") == "tensor_scalar"


def test_a_mask_cuts_a_dma_to_the_rows_it_keeps(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            ix = nl.arange(128)[:, None]
            iy = nl.arange(a.shape[1])[None, :]
            for i in nl.affine_range(2):
                t = nl.load(a[i * 128 + ix, iy], mask=(i * 128 + ix < a.shape[0]))
                u = nl.exp(t)
                nl.store(out[i * 128 + ix, iy], value=u, mask=(i * 128 + ix < a.shape[0]) & (iy < 64))
                nl.store(out[i * 128 + ix, iy], value=u, mask=(i * 128 + ix < a.shape[0]) & (i > 5))
            return out
    """)
    kt = nki.trace(k, {"a": "bf16[200,96]"})
    dmas = [(field(r, "partitions"), field(r, "bytes")) for r in kt.records if r.startswith("dma")]
    # rows 0..127, then the 72 left; the stores keep 64 of the 96 columns; `i > 5` never holds
    assert dmas == [("128", "192"), ("128", "128"), ("72", "192"), ("72", "128")]
    assert kinds(kt).count("act") == 2  # compute instructions trace their whole tile
    path = tmp_path / "k.py"
    path.write_text(path.read_text().replace(", mask=(i * 128 + ix < a.shape[0]))", ")"))
    with pytest.raises(nki.NkiError, match=r"k\.py:10: a: dimension 0 \(size 200\): the range 128\.\.255 reaches past"):
        nki.trace(k, {"a": "bf16[200,96]"})  # the load without its mask


def test_broadcast_operands_iota_of_a_grid_and_where(tmp_path):
    np = pytest.importorskip("numpy")
    k = kernel(tmp_path, """\
        def k(a):
            out = nl.ndarray((16, 4, 3, 3), dtype=nl.float32, buffer=nl.shared_hbm)
            w = nl.mgrid[0:16, 0:4, 0:3, 0:3]
            idx = nisa.iota(3 * w.y + w.z, dtype=nl.float32)        # [16, 4, 3, 3]: 0..8 in each window
            m = nl.min(idx, axis=[2, 3], keepdims=True)              # [16, 4, 1, 1]
            eq = nl.equal(m, idx)                                    # broadcast: step-0 window dims
            x = nl.load(a)
            nl.store(out, value=nl.where(eq, x, 0.0))
            return out
    """)
    a = np.arange(16 * 36, dtype=np.float32).reshape(16, 4, 3, 3)
    kt = nki.trace(k, {"a": a})
    iota, mn, eq, sel = compute_records(kt)
    assert field(iota, "isa") == "iota" and field(eq, "isa") == "tensor_tensor"
    assert "[0,0," in field(eq, "src") or "[0,0," in (field(eq, "src2") or "")
    assert field(sel, "isa") == "tensor_copy_predicated"
    expected = np.where(np.arange(9).reshape(1, 1, 3, 3) == 0, a, 0.0)
    np.testing.assert_array_equal(kt.outputs[0], expected)


def test_reciprocal_costs_eight_cycles_an_element_on_the_vector_engine(tmp_path, cli_json):
    """nki.isa reciprocal's estimated cost, 8N Vector Engine cycles (docs/engines.md), against a
    plain fp32 copy's N: the replayed kernels differ by 7N DVE cycles (at the PE clock)."""
    def replayed(op):
        k = kernel(tmp_path, f"""\
            def k(a):
                out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
                x = nl.load(a)
                nl.store(out, value={op}(x))
                return out
        """, file=op.split(".")[-1])
        path = tmp_path / f"{op.split('.')[-1]}.trc"
        nki.trace(k, {"a": "fp32[128,2048]"}).write_scratch(path)
        return cli_json(path)["run"]["total_cycles"]
    extra = replayed("nisa.reciprocal") - replayed("nisa.tensor_copy")
    dve_to_pe = 2.4 / 0.96  # cayman's PE and Vector Engine clocks (docs/engines.md)
    assert 0.85 * 7 * 2048 * dve_to_pe < extra < 1.15 * 7 * 2048 * dve_to_pe, extra


def test_a_launchs_instances_share_one_core(tmp_path, cli_json):
    """Four instances of a DMA-bound kernel on one NeuronCore: more than twice one instance's time
    (they share its DMA queues and buffers) and at most four times (the replay overlaps what their
    hazards allow). Measured: 89,528 cycles against 27,667 (3.2x)."""
    k = kernel(tmp_path, """\
        @nki.jit
        def k(a, b):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            i = nl.program_id(0) * 128 + nl.arange(128)[:, None]
            j = nl.arange(2048)[None, :]
            nl.store(out[i, j], value=nl.exp(nl.load(a[i, j]) + nl.load(b[i, j])))
            return out
    """)
    cycles = {}
    for g in (1, 4):
        path = tmp_path / f"grid{g}.trc"
        nki.trace(k, {"a": "bf16[512,2048]", "b": "bf16[512,2048]"}, grid=(g,), cores=1).write_scratch(path)
        cycles[g] = cli_json(path)["run"]["total_cycles"]
    assert 2 * cycles[1] < cycles[4] <= 4 * cycles[1], cycles


def test_two_sbuf_sources_in_different_quadrants_are_refused_at_the_kernel_line(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            out = nl.ndarray((32, 512), dtype=a.dtype, buffer=nl.shared_hbm)
            t = nl.load(a)
            nl.store(out, value=nisa.tensor_tensor(t[0:32, :], t[32:64, :], nl.add))
            return out
    """)
    with pytest.raises(nki.NkiError, match=r"k\.py:8: add: its two SBUF sources start in different 32-partition "
                                           r"quadrants \(partition 0 and 32\)"):
        nki.trace(k, {"a": "bf16[128,512]"})


def test_an_operand_of_more_than_three_free_dimensions_is_split_along_its_outermost(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            out = nl.ndarray((4, 3, 3), dtype=a.dtype, buffer=nl.shared_hbm)
            i0, i1, i2, i3, i4 = nl.mgrid[0:4, 0:3, 0:2, 0:3, 0:2]
            t = nl.load(a)                                          # [4, 6, 6]
            pooled = nl.sum(t[i0, 2 * i1 + i2, 2 * i3 + i4], axis=[2, 4])  # 4 free dimensions read
            nl.store(out, value=pooled)
            return out
    """)
    kt = nki.trace(k, {"a": "bf16[4,6,6]"})
    reduces = compute_records(kt)
    # one tensor_reduce per row of the pooled output: [2 x 3 x 2] of 2-element steps each
    assert [field(r, "isa") for r in reduces] == ["tensor_reduce"] * 3
    assert [field(r, "src") for r in reduces] == [f"bf16@0x{0x40 + 2 * 12 * i:x}[1,2,6][2,3,2]" for i in range(3)]
    assert [field(r, "dst").split("[")[0] for r in reduces] == [f"bf16@0x{0xc0 + 2 * 3 * i:x}" for i in range(3)]


def test_a_reduction_assigned_into_a_tile_is_one_record_and_an_unused_one_is_still_traced(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            out = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
            x = nl.load(a)
            e = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
            s = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            m = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            e[...] = nisa.activation(op=nl.exp, data=x, reduce_op=nl.add, reduce_res=s)   # into e: no copy
            nisa.tensor_scalar_reduce(data=e, op0=nl.multiply, operand0=2.0, reduce_op=nl.max, reduce_res=m)
            nl.store(out, value=nl.add(s, m))
            return out
    """)
    kt = nki.trace(k, {"a": "fp32[128,512]"})
    assert [field(r, "isa") for r in compute_records(kt)] == ["activation_reduce", "tensor_scalar_reduce",
                                                              "tensor_tensor"]
    act = compute_records(kt)[0]
    assert field(act, "dst") == field(compute_records(kt)[1], "src")  # the activation wrote e itself


def test_a_dtype_parameter_by_name(tmp_path):
    k = kernel(tmp_path, """\
        def k(a, dtype):
            assert dtype == nl.bfloat16
            out = nl.ndarray(a.shape, dtype=dtype, buffer=nl.shared_hbm)
            nl.store(out, value=nl.copy(nl.load(a), dtype=dtype))
            return out
    """)
    for name in ("nl.bfloat16", "bfloat16", "bf16", "nki.language.bfloat16"):  # as `--param dtype=...` gives it
        kt = nki.trace(k, {"a": "fp32[128,64]"}, {"dtype": name})
        assert field(compute_records(kt)[0], "dst").startswith("bf16@")


def test_a_kernel_in_a_package_imports_relatively(tmp_path):
    (tmp_path / "kernels" / "util").mkdir(parents=True)
    (tmp_path / "kernels" / "norm").mkdir()
    (tmp_path / "kernels" / "__init__.py").write_text("")
    (tmp_path / "kernels" / "util" / "helpers.py").write_text(
        "import nki.language as nl\n\n\ndef double(x):\n    return nl.add(x, x)\n")
    (tmp_path / "kernels" / "norm" / "k.py").write_text(textwrap.dedent("""\
        import nki.language as nl
        from ..util.helpers import double      # kernels.util: two packages up from kernels.norm.k


        def k(a):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            nl.store(out, value=double(nl.load(a)))
            return out
        """))
    import sys
    for _ in range(2):  # a second trace loads the package afresh
        kt = nki.trace(f"{tmp_path}/kernels/norm/k.py::k", {"a": "bf16[128,64]"})
        assert kinds(kt) == ["dma", "dve", "dma"]
        assert not [m for m in sys.modules if m == "kernels" or m.startswith("kernels.")]


def test_a_double_row_matmul_of_packed_row_pairs(tmp_path):
    k = kernel(tmp_path, """\
        def k(a, b, s):
            out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
            at = nl.ndarray((2, nl.par_dim(128), 256), dtype=a.dtype, buffer=nl.sbuf)   # blocks before the partitions
            at[1] = nl.load(a)
            bt = nl.load(b)                                                          # [128, 1024]
            i_k, i_t, i_m = nl.mgrid[0:128, 0:2, 0:128]
            i_k2, i_t2, i_n = nl.mgrid[0:128, 0:2, 0:512]
            acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
            acc += nisa.nc_matmul(at[1, i_k, i_t * 128 + i_m], bt[i_k2, i_t2 * 512 + i_n], perf_mode="double_row_gen3")
            y = nl.copy(acc)
            nl.store(out, value=nisa.tensor_tensor(y, nl.load(s), nl.multiply))    # a [P, 1] scale: tensor_scalar
            return out
    """)
    kt = nki.trace(k, {"a": "fp8e4[128,256]", "b": "fp8e4[128,1024]", "s": "fp32[128,1]"})
    ldw = next(r for r in kt.records if r.startswith("ldweights"))
    mm = next(r for r in kt.records if r.startswith("matmul"))
    assert field(ldw, "src").endswith("[1,128][128,2]") and field(ldw, "rows") == "128"  # block 1: byte 256 on
    assert int(re.match(r"fp8e4@0x([0-9a-f]+)", field(ldw, "src")).group(1), 16) == 0x40 + 256
    assert field(mm, "perf_opt") == "double_row" and field(mm, "src").endswith("[1,512][512,2]")
    assert kt.flops == 2 * (2 * 128) * 128 * 512  # a contraction of 256 in one pass
    assert field(compute_records(kt)[-1], "isa") == "tensor_scalar"
    with pytest.raises(nki.NkiError, match=r"k\.py:13: nc_matmul perf_mode=double_row: sunda"):
        nki.trace(k, {"a": "fp8e4[128,256]", "b": "fp8e4[128,1024]", "s": "fp32[128,1]"}, generation="sunda")
