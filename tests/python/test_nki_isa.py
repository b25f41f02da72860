"""Which nki.isa instruction each traced compute call is (the `isa=` field that picks the engine's
per-instruction cost), nc_matmul's perf_mode, and the refusals that go with them."""

import re
import textwrap

import pytest

from sbufsim import nki
from sbufsim.nki._compute import INSTRUCTIONS
from nki_helpers import check_semaphores, no_ramp, replay, traced


def compute_records(kt):
    return [r for r in kt.records if r.split()[0] in ("act", "pool", "dve") and "fn=sync" not in r]


def field(record, name):
    m = re.search(rf" {name}=(\S+)", record)
    return m.group(1) if m else None


def kernel(tmp_path, body, name="k"):
    path = tmp_path / f"{name}.py"
    path.write_text("import nki\nimport nki.isa as nisa\nimport nki.language as nl\n\n" + textwrap.dedent(body))
    return f"{path}::{name}"


@pytest.mark.parametrize("name,inputs", [
    ("softmax.py::softmax", {"x": "bf16[256,512]"}),
    ("rmsnorm.py::rmsnorm", {"x": "bf16[256,1024]", "g": "bf16[1,1024]"}),
    ("transpose.py::transpose", {"x": "bf16[256,128]"}),
    ("matmul.py::matmul_block_all", {"lhsT": "bf16[256,256]", "rhs": "bf16[256,512]"}),
])
def test_every_compute_record_names_an_instruction_the_reader_accepts(name, inputs):
    params = {"TILES_IN_BLOCK_M": 2, "TILES_IN_BLOCK_N": 1, "TILES_IN_BLOCK_K": 2} if "block_all" in name else None
    records = compute_records(traced(name, inputs, params))
    assert records
    for r in records:
        assert field(r, "isa") in INSTRUCTIONS, r


def test_the_front_ends_instruction_table_is_what_a_kernel_of_every_instruction_writes(tmp_path):
    # one call of each instruction the table lists (quantize_mx: NeuronCore-v4), nothing else
    k = kernel(tmp_path, """\
        def k(a, q):
            x = nl.load(a[0:128, 0:512])
            s = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            e = nisa.activation(op=nl.exp, data=x)
            nisa.activation_reduce(op=nl.exp, data=x, reduce_op=nl.add, reduce_res=s)
            i, j = nl.arange(128)[:, None], nl.arange(512)[None, :]
            f = nisa.affine_select(pred=(i - j >= 0), on_true_tile=e, on_false_value=0.0)
            st = nisa.bn_stats(x)
            ag = nisa.bn_aggr(st)
            idx = nisa.iota(nl.arange(128)[:, None], dtype=nl.float32)
            z = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
            nisa.memset(z, 0.0)
            r = nisa.reciprocal(data=x)
            t = nisa.scalar_tensor_tensor(data=x, op0=nl.multiply, operand0=2.0, op1=nl.add, operand1=r)
            c = nisa.tensor_copy(t)
            p = nisa.select(f, c, 0.0)
            m = nisa.tensor_reduce(nl.max, p, axis=1, keepdims=True)
            u = nisa.tensor_scalar(p, nl.multiply, m)
            w = nisa.tensor_scalar_reduce(data=u, op0=nl.multiply, operand0=2.0, reduce_op=nl.add, reduce_res=s)
            v = nisa.tensor_tensor(w, z, op=nl.add)
            g = nisa.tensor_tensor_scan(v, x, initial=0, op0=nl.multiply, op1=nl.add)
            h = nisa.nc_transpose(g[0:32, 0:32], engine=nisa.vector_engine)
            top = nisa.max8(src=x)
            ex = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
            nisa.exponential(ex, x, max_value=m)
            rs = nisa.range_select(on_true_tile=ex, comp_op0=nl.greater_equal, comp_op1=nl.less, bound0=m, bound1=m)
            pr = nl.ndarray((128, 512), dtype=nl.uint8, buffer=nl.sbuf)
            nisa.memset(pr, 1)
            sr = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
            nisa.select_reduce(sr, pr, rs, 0.0)
            dr = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dropout(dr, sr, 0.5)
            data = nl.ndarray((128, 512), dtype=nl.float8_e4m3fn_x4, buffer=nl.sbuf)
            scale = nl.ndarray((128, 512), dtype=nl.uint8, buffer=nl.sbuf)
            nisa.quantize_mx(data, nl.load(q[0:128, 0:2048]), scale)
            nl.store(a[0:32, 0:32], value=h)
            nl.store(a[0:128, 0:6], value=st)
            nl.store(a[0:128, 6:8], value=ag)
            nl.store(a[0:128, 8:9], value=idx)
            nl.store(a[0:128, 9:10], value=s)
            nl.store(a[0:128, 10:18], value=top)
        """)
    kt = nki.trace(k, {"a": "fp32[128,512]", "q": "bf16[128,2048]"}, generation="mariana")
    written = [field(r, "isa") for r in compute_records(kt)]
    assert len(set(INSTRUCTIONS)) == len(INSTRUCTIONS)
    assert sorted(set(written)) == sorted(INSTRUCTIONS)


def test_the_trace_reader_accepts_every_instruction_of_the_table(tmp_path, cli):
    # The reader's own table (the binary's, not its source): one record per instruction checks
    # clean; a name it lacks is refused at its line, so the check could fail.
    names = [*INSTRUCTIONS, "tensor_tensr"]
    dst = {"quantize_mx": "fp8e4x4@0x80[1][1]"}  # x4 MX data out; the others bf16
    records = [f"dve queue=qDve0 src=bf16@0x40[1][4] dst={dst.get(name, 'bf16@0x80[1][4]')} partitions=1 fn=x "
               f"isa={name} signal=0" for name in names]
    path = tmp_path / "isa.trc"
    path.write_text("\n".join(["sbufsim-trace 1 gen=mariana", *records]) + "\n")
    done = cli("check", path)
    problems = [line for line in done.stdout.splitlines() if line.startswith(str(path))]
    assert done.returncode == 1, done.stdout + done.stderr
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"{path}:{len(names) + 1}: isa: unknown nki.isa instruction 'tensor_tensr'"), problems


def test_language_ops_map_to_the_compilers_instructions(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            x = nl.load(a[0:128, 0:512])
            e = nl.exp(x)                     # ScalarE lookup table
            s = nl.sum(e, axis=1, keepdims=True)
            d = nl.subtract(e, s)             # a [P, 1] tile broadcast along the free axis
            p = nl.multiply(d, e)             # two tiles
            q = nl.add(p, 2.0)                # a number
            c = nl.copy(q)
            z = nl.zeros((128, 64), nl.float32, buffer=nl.sbuf)
            nl.store(a[0:128, 0:512], value=c)
        """)
    records = compute_records(nki.trace(k, {"a": "fp32[128,512]"}))
    got = {field(r, "fn"): (r.split()[0], field(r, "isa")) for r in records}
    assert got == {"exp": ("act", "activation"), "sum": ("dve", "tensor_reduce"),
                   "subtract": ("dve", "tensor_scalar"), "multiply": ("dve", "tensor_tensor"),
                   "add": ("dve", "tensor_scalar"), "copy": ("act", "tensor_copy"),
                   "memset": ("pool", "memset")}
    # the broadcast operand is the second source: the data tile's size sets the cost
    sub = next(r for r in compute_records(nki.trace(k, {"a": "fp32[128,512]"})) if "fn=subtract" in r)
    assert field(sub, "src").endswith("[1][512]") and field(sub, "src2").endswith("[1][1]")


def test_element_wise_operands_of_different_sizes_stop_the_trace(tmp_path):
    # What the compiler rejects is not timed: nl.add and the + operator refuse tiles of different
    # sizes at the kernel's line, as nisa.tensor_tensor does; a [P, 1] operand still broadcasts.
    for expr in ("nl.add(x, y)", "x + y"):
        k = kernel(tmp_path, f"""\
            def k(a, b):
                x = nl.load(a[0:128, 0:512])
                y = nl.load(b[0:128, 0:256])
                z = {expr}
                nl.store(a[0:128, 0:512], value=z)
            """)
        with pytest.raises(nki.NkiError, match=r"k\.py:8: add of tiles \(128, 512\) and \(128, 256\): "
                                               r"element-wise operands need the same partitions"):
            nki.trace(k, {"a": "bf16[128,512]", "b": "bf16[128,256]"})
    k = kernel(tmp_path, """\
        def k(a, b):
            x = nl.load(a[0:128, 0:512])
            y = nl.load(b[0:128, 0:1])
            nl.store(a[0:128, 0:512], value=nl.add(x, y))
        """)
    assert [field(r, "isa") for r in compute_records(nki.trace(k, {"a": "bf16[128,512]", "b": "bf16[128,1]"}))] \
        == ["tensor_scalar"]


def test_an_inputs_unknown_dtype_is_named_with_the_input_and_is_an_input_error(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            nl.store(a[0:128, 0:512], value=nl.copy(nl.load(a[0:128, 0:512])))
        """)
    with pytest.raises(nki.NkiError, match=r"^input 'bf17\[128,512\]': dtype 'bf17' is not modelled") as e:
        nki.trace(k, {"a": "bf17[128,512]"})
    import sbufsim
    assert isinstance(e.value, sbufsim.InputError) and e.value.exit_status == 3


def test_an_input_with_an_empty_dimension_is_named_not_placed_in_the_interpreter(tmp_path):
    # the message named "<frozen runpy>:88", the innermost frame outside the package
    k = kernel(tmp_path, """\
        def k(a):
            nl.store(a, value=nl.copy(nl.load(a)))
        """)
    with pytest.raises(nki.NkiError, match=r"^input a: shape \(0, 512\): every dimension must be positive"):
        nki.trace(k, {"a": "bf16[0,512]"})


def test_scalar_engine_copy_is_an_activation_on_neuroncore_v2(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            x = nl.load(a[0:128, 0:512])
            nl.store(a[0:128, 0:512], value=nl.copy(x))
        """)
    copies = {gen: [field(r, "isa") for r in compute_records(nki.trace(k, {"a": "bf16[128,512]"}, generation=gen))]
              for gen in ("sunda", "cayman")}
    assert copies == {"sunda": ["activation"], "cayman": ["tensor_copy"]}
    k2 = kernel(tmp_path, """\
        def k2(a):
            x = nl.load(a[0:128, 0:512])
            y = nisa.tensor_copy(x, engine=nisa.scalar_engine)
            nl.store(a[0:128, 0:512], value=y)
        """, "k2")
    with pytest.raises(nki.NkiError,
                       match=r"k2.py:7: tensor_copy on the Scalar Engine does not exist on NeuronCore-v2"):
        nki.trace(k2, {"a": "bf16[128,512]"}, generation="sunda")


def test_activation_reduce_is_one_instruction_writing_both_results(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            x = nl.load(a[0:128, 0:512])
            total = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            nisa.activation_reduce(op=nl.exp, data=x, reduce_op=nl.add, reduce_res=total)
            y = nisa.tensor_scalar(x, nl.multiply, total)
            nl.store(a[0:128, 0:512], value=y)
        """)
    kt = nki.trace(k, {"a": "bf16[128,512]"})
    act = [r for r in kt.records if r.startswith("act")]
    assert len(act) == 1 and field(act[0], "isa") == "activation_reduce"
    # the tensor_scalar reading the reduction waits for that one ScalarE record
    dve = next(r for r in kt.records if r.startswith("dve"))
    assert field(dve, "isa") == "tensor_scalar" and re.search(r" wait=\d+:1\b", dve)
    check_semaphores(kt)


def test_the_instruction_changes_the_engine_time(tmp_path):
    # a bf16 SBUF-to-SBUF tensor_copy on VectorE runs in its 4x performance mode on cayman
    # (docs/engines.md); the same record without isa= is costed by the generic rule
    k = kernel(tmp_path, """\
        def k(a):
            x = nl.load(a[0:128, 0:2048])
            for i in nl.sequential_range(8):
                x = nisa.tensor_copy(x, engine=nisa.vector_engine)
            nl.store(a[0:128, 0:2048], value=x)
        """)
    kt = nki.trace(k, {"a": "bf16[128,2048]"})
    assert all(field(r, "isa") == "tensor_copy" for r in compute_records(kt))
    with_isa = replay(kt, tmp_path)
    generic = tmp_path / "generic.trc"
    generic.write_text(re.sub(r" isa=\S+", "", kt.text))
    import sbufsim
    without = sbufsim.run(str(generic))
    dve = lambda result: next(e for e in result.table("engine") if e["name"] == "dve")["compute_cycles"]
    assert dve(with_isa) < dve(without)
    assert with_isa.total_cycles < without.total_cycles


def test_double_row_matmul_carries_perf_opt_and_halves_the_stream(tmp_path):
    k = kernel(tmp_path, """\
        def k(a, b, MODE=None):
            x = nl.load(a[0:128, 0:128])
            y = nl.load(b[0:128, 0:512])
            acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
            for i in nl.sequential_range(16):
                acc[...] = nisa.nc_matmul(x, y, perf_mode=MODE)
            nl.store(b[0:128, 0:512], value=nl.copy(acc, dtype=b.dtype))
        """)
    inputs = {"a": "fp8e4[128,128]", "b": "fp8e4[128,512]"}
    plain = nki.trace(k, inputs)
    fast = nki.trace(k, inputs, {"MODE": nki_isa_double_row()})
    matmuls = [r for r in fast.records if r.startswith("matmul")]
    assert len(matmuls) == 16 and all(field(r, "perf_opt") == "double_row" for r in matmuls)
    assert not any("perf_opt" in r for r in plain.records)
    streamed = lambda kt: replay(kt, tmp_path, no_ramp())["pe"]["stream_cycles"]
    assert streamed(fast) * 2 == streamed(plain)


def nki_isa_double_row():
    from sbufsim.nki import isa
    return isa.matmul_perf_mode.double_row


def test_double_row_is_refused_where_the_generation_or_dtype_lacks_it(tmp_path):
    k = kernel(tmp_path, """\
        def k(a, b):
            x = nl.load(a[0:128, 0:128])
            y = nl.load(b[0:128, 0:512])
            acc = nisa.nc_matmul(x, y, perf_mode="double_row")
            nl.store(b[0:128, 0:512], value=nl.copy(acc, dtype=b.dtype))
        """)
    with pytest.raises(nki.NkiError, match=r"k.py:8: nc_matmul perf_mode=double_row: sunda \(NeuronCore-v2\) has no"):
        nki.trace(k, {"a": "fp8e4[128,128]", "b": "fp8e4[128,512]"}, generation="sunda")
    with pytest.raises(nki.NkiError, match=r"k.py:8: .*packs two FP8 elements.*stationary tile is bfloat16"):
        nki.trace(k, {"a": "bf16[128,128]", "b": "bf16[128,512]"})


def test_vector_engine_transpose_and_its_limit(tmp_path):
    k = kernel(tmp_path, """\
        def k(a, N=32):
            x = nl.load(a[0:N, 0:N])
            y = nisa.nc_transpose(x, engine=nisa.vector_engine)
            nl.store(a[0:N, 0:N], value=y)
        """)
    kt = nki.trace(k, {"a": "bf16[64,64]"})
    (r,) = compute_records(kt)
    assert r.startswith("dve") and field(r, "isa") == "transpose" and kt.count("matmul") == 0
    with pytest.raises(nki.NkiError, match=r"k.py:7: nc_transpose on the Vector Engine takes at most 32 x 32"):
        nki.trace(k, {"a": "bf16[64,64]"}, {"N": 64})


def test_refusals_name_the_kernel_line(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            x = nl.load(a[0:128, 0:512])
            s = nl.sum(x, axis=1, keepdims=True)
            y = nisa.tensor_tensor(x, s, op=nl.subtract)
            nl.store(a[0:128, 0:512], value=y)
        """)
    # a [P, 1] operand is broadcast along the free axis: the tensor_scalar the compiler makes of it
    # (the public double-row reference kernel multiplies by its scales so)
    kt = nki.trace(k, {"a": "bf16[128,512]"})
    assert field(compute_records(kt)[-1], "isa") == "tensor_scalar"
    k3 = kernel(tmp_path, """\
        def k3(a):
            x = nl.load(a[0:128, 0:512])
            y = nisa.tensor_tensor(x, x[:, 0:256], op=nl.subtract)
            nl.store(a[0:128, 0:512], value=y)
        """, "k3")
    with pytest.raises(nki.NkiError, match=r"k3.py:7: tensor_tensor of \(128, 512\) and \(128, 256\): both tiles need "
                                           r"the same number of elements per partition"):
        nki.trace(k3, {"a": "bf16[128,512]"})
    k2 = kernel(tmp_path, """\
        def k2(a, b):
            x = nl.load(a[0:128, 0:128])
            y = nl.load(b[0:128, 0:512])
            z = nisa.tensor_copy(nisa.nc_matmul(x, y), engine=nisa.gpsimd_engine)
            nl.store(b[0:128, 0:512], value=z)
        """, "k2")
    with pytest.raises(nki.NkiError, match=r"k2.py:8: copy on GpSimd: GpSimd cannot reach PSUM"):
        nki.trace(k2, {"a": "bf16[128,128]", "b": "bf16[128,512]"})


def test_in_place_update_of_a_slice_is_one_instruction(tmp_path):
    # `t[i] += x` is Python's get, iadd, set: the set stores back what the add wrote
    k = kernel(tmp_path, """\
        def k(a):
            acc = nl.zeros((2, nl.par_dim(128), 512), nl.float32, buffer=nl.sbuf)
            x = nl.load(a[0:128, 0:512])
            acc[1] += x
        """)
    kt = nki.trace(k, {"a": "fp32[128,512]"})
    assert [(r.split()[0], field(r, "isa")) for r in compute_records(kt)] == [("pool", "memset"),
                                                                              ("dve", "tensor_tensor")]


def test_dma_copy_carries_its_trigger_and_the_hardware_dge_costs_time(tmp_path):
    k = kernel(tmp_path, """\
        def k(a, b, MODE=None, ENGINE=None):
            x = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
            for i in nl.sequential_range(8):
                nisa.dma_copy(dst=x, src=a[0:128, 0:512], dge_mode=MODE, engine=ENGINE, priority=1)
            nl.store(b[0:128, 0:512], value=x)
        """)
    from sbufsim.nki import isa
    inputs = {"a": "bf16[128,512]", "b": "bf16[128,512]"}
    static = nki.trace(k, inputs)
    hw = nki.trace(k, inputs, {"MODE": isa.dge_mode.hwdge, "ENGINE": isa.engine.scalar})
    loads = [r for r in hw.records if r.startswith("dma") and "priority" in r]
    assert len(loads) == 8
    assert all(field(r, "dge") == "hwdge" and field(r, "issuer") == "act" and field(r, "priority") == "1"
               for r in loads)
    assert not any("dge=" in r for r in static.records)
    # Eight 600 ns hardware-DGE triggers on one block outlast eight static ones.
    cycles = lambda kt: replay(kt, tmp_path)["run"]["total_cycles"]
    assert cycles(hw) > cycles(static)
    refused = kernel(tmp_path, """\
        def r(a, b):
            x = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=x, src=a[0:128, 0:512], priority=7)
            nl.store(b[0:128, 0:512], value=x)
        """, name="r")
    with pytest.raises(nki.NkiError, match=r"r.py:7: dma_copy priority=7: the DMA QoS class is 0..3"):
        nki.trace(refused, inputs)
    static_priority = kernel(tmp_path, """\
        def s(a, b):
            x = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=x, src=a[0:128, 0:512], dge_mode=nisa.dge_mode.none, priority=1)
            nl.store(b[0:128, 0:512], value=x)
        """, name="s")
    with pytest.raises(nki.NkiError, match=r"s.py:7: dma_copy priority with dge_mode=none"):
        nki.trace(static_priority, inputs)


def test_pe_tiles_and_transposes_reach_the_records(tmp_path):
    k = kernel(tmp_path, """\
        def k(a, b):
            l0 = nl.load(a[0:64, 0:64])
            r0 = nl.load(b[0:64, :])
            p0 = nl.ndarray((64, 512), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_matmul(p0, l0, r0, tile_position=(64, 0), tile_size=(64, 64))
            pt = nl.ndarray((64, 64), dtype=nl.bfloat16, buffer=nl.psum)
            nisa.nc_transpose(pt, l0)
            return a
        """)
    kt = nki.trace(k, {"a": "bf16[128,64]", "b": "bf16[128,512]"})
    pe = [r for r in kt.records if r.split()[0] in ("ldweights", "matmul")]
    assert [field(r, "tile_position") for r in pe[:2]] == ["64,0", "64,0"]
    assert [field(r, "tile_size") for r in pe[:2]] == ["64,64", "64,64"]
    assert field(pe[1], "transpose") is None and field(pe[3], "transpose") == "1"
    assert field(pe[3], "tile_size") is None


@pytest.mark.parametrize("call,generation,message", [
    ("nisa.nc_matmul(p, l, r, tile_position=(0, 0))", "cayman", "give both"),
    ("nisa.nc_matmul(p, l, r, tile_position=(0, 0), tile_size=(32, 32))", "sunda", "sunda has PE tiles of 64, 128"),
    ("nisa.nc_matmul(p, l, r, tile_position=(32, 0), tile_size=(64, 64))", "cayman", "row 32: a multiple"),
    ("nisa.nc_matmul(p, l, r, tile_position=(0, 0), tile_size=(32, 64))", "cayman",
     r"stationary \(64, 64\) does not fit"),
])
def test_bad_pe_tiles_are_refused_at_the_kernel_line(tmp_path, call, generation, message):
    k = kernel(tmp_path, f"""\
        def k(a, b):
            l = nl.load(a[0:64, 0:64])
            r = nl.load(b[0:64, :])
            p = nl.ndarray((64, 512), dtype=nl.float32, buffer=nl.psum)
            {call}
            return a
        """)
    with pytest.raises(nki.NkiError, match=rf"k\.py:9: nc_matmul.*{message}"):
        nki.trace(k, {"a": "bf16[128,64]", "b": "bf16[128,512]"}, generation=generation)


def test_tensor_tensor_of_two_psum_tiles_is_refused(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            p = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
            q = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
            s = nisa.tensor_tensor(p, q, op=nl.add)
            return a
        """)
    with pytest.raises(nki.NkiError, match=r"k\.py:8: tensor_tensor of two PSUM tiles"):
        nki.trace(k, {"a": "bf16[128,512]"})


def test_dma_copy_read_add_write(tmp_path):
    # nki.isa dma_copy dst_rmw_op=nl.add: dst = dst + src, the record's dst_rmw_op=add
    k = kernel(tmp_path, """\
        def k(a):
            x = nl.load(a[0:128, 0:512])
            nisa.dma_copy(dst=x, src=a[0:128, 0:512], dst_rmw_op=nl.add)
            out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
            nl.store(out, value=x)
            return out
        """)
    kt = nki.trace(k, {"a": "fp32[128,512]"})
    dmas = [r for r in kt.records if r.startswith("dma")]
    assert [field(r, "dst_rmw_op") for r in dmas] == [None, "add", None]
    # it reads x, which the load on another queue wrote: it waits for that load
    assert field(dmas[1], "wait") is not None
    assert replay(kt, tmp_path).total_cycles > 0
    np = pytest.importorskip("numpy")
    a = np.arange(128 * 512, dtype=np.float32).reshape(128, 512)
    (out,) = nki.trace(k, {"a": a}).outputs
    assert np.array_equal(out, 2 * a)
    refused = kernel(tmp_path, """\
        def r(a):
            x = nl.load(a[0:128, 0:512])
            nisa.dma_copy(dst=x, src=a[0:128, 0:512], dst_rmw_op=nl.multiply)
        """, name="r")
    with pytest.raises(nki.NkiError, match=r"r.py:7: dma_copy dst_rmw_op=multiply: nki.isa supports only nl.add"):
        nki.trace(refused, {"a": "fp32[128,512]"})


MX_INPUTS = {"lhsT": "fp8e4x4[512,128]", "lhsT_scale": "uint8[64,128]", "rhs": "fp8e4x4[512,512]",
             "rhs_scale": "uint8[64,512]"}


def test_nc_matmul_mx_reads_its_scales_and_does_four_times_the_macs(tmp_path):
    # nki.isa nc_matmul_mx (NeuronCore-v4): x4 data with uint8 scales; the example kernel loads
    # each quadrant's 4 scale rows into that quadrant.
    kt = traced("matmul_mx.py::matmul_mx", MX_INPUTS, generation="mariana")
    ldw = [r for r in kt.records if r.startswith("ldweights") and "x4@" in r]
    mm = [r for r in kt.records if r.startswith("matmul")]
    assert len(ldw) == len(mm) == 4                   # K = 4 x 128 x4 elements = 2048
    assert all(field(r, "src").startswith("fp8e4x4@") and field(r, "src2").startswith("uint8@") for r in ldw + mm)
    scale_loads = [r for r in kt.records if r.startswith("dma") and "dst=uint8@" in r]
    assert len(scale_loads) == 4 * 2 * 4 and all(field(r, "partitions") == "4" for r in scale_loads)
    assert kt.flops == 4 * 4 * 2 * 128 * 128 * 512   # 4 K tiles, K = 4 x 128 each
    assert replay(kt, tmp_path, no_ramp("mariana"))["pe"]["stream_cycles"] == 4 * 512  # as bf16 of as many columns


def test_nc_matmul_mx_is_refused_before_neuroncore_v4_and_with_plain_data(tmp_path):
    with pytest.raises(nki.NkiError, match=r"input lhsT: fp8e4x4 is an MX quad type of NeuronCore-v4; cayman has none"):
        traced("matmul_mx.py::matmul_mx", MX_INPUTS, generation="cayman")
    bf16 = kernel(tmp_path, """\
        def bf16(a, s):
            x = nl.load(a[0:128, 0:128])
            sc = nl.load(s[0:128, 0:128])
            acc = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_matmul_mx(acc, x, x, sc, sc)
        """, name="bf16")
    with pytest.raises(nki.NkiError, match=r"bf16.py:9: nc_matmul_mx is available only on NeuronCore-v4"):
        nki.trace(bf16, {"a": "bf16[128,128]", "s": "uint8[128,128]"}, generation="cayman")
    k = kernel(tmp_path, """\
        def k(a, s):
            x = nl.load(a[0:128, 0:128])
            sc = nl.load(s[0:128, 0:128])
            acc = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_matmul_mx(acc, x, x, sc, sc)
        """)
    with pytest.raises(nki.NkiError, match=r"k.py:9: nc_matmul_mx: the stationary tile is bfloat16"):
        nki.trace(k, {"a": "bf16[128,128]", "s": "uint8[128,128]"}, generation="mariana")
    plain = kernel(tmp_path, """\
        def plain(a):
            x = nl.load(a[0:128, 0:128])
            acc = nisa.nc_matmul(x, x)
        """, name="plain")
    with pytest.raises(nki.NkiError, match=r"an MX type: use nisa.nc_matmul_mx"):
        nki.trace(plain, {"a": "fp8e4x4[128,128]"}, generation="mariana")


def test_one_zero_hint_halves_an_fp32_matmul(tmp_path):
    # nki.isa nc_matmul is_stationary_onezero: "could lead to 2x better performance" for float32
    k = kernel(tmp_path, """\
        def k(a, b, HINT=False):
            x = nl.load(a[0:128, 0:128])
            y = nl.load(b[0:128, 0:512])
            acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
            for i in nl.sequential_range(8):
                acc[...] = nisa.nc_matmul(x, y, is_stationary_onezero=HINT)
            nl.store(b[0:128, 0:512], value=nl.copy(acc, dtype=b.dtype))
        """)
    inputs = {"a": "fp32[128,128]", "b": "fp32[128,512]"}
    plain, hinted = nki.trace(k, inputs), nki.trace(k, inputs, {"HINT": True})
    assert all(field(r, "onezero") == "1" for r in hinted.records if r.startswith("matmul"))
    assert not any("onezero" in r for r in plain.records)
    streamed = lambda kt: replay(kt, tmp_path, no_ramp())["pe"]["stream_cycles"]
    assert streamed(hinted) * 2 == streamed(plain)


def test_dma_transpose_and_load_transpose2d_are_transposing_dma_records(tmp_path):
    # nki.isa dma_transpose / nl.load_transpose2d: one `dma transpose=1` record of whole 16-row
    # crossbar tiles; the values come out transposed.
    k = kernel(tmp_path, """\
        def k(a):
            t = nl.load_transpose2d(a[0:64, 0:128])
            u = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.sbuf)
            nisa.dma_transpose(u, a[64:128, 0:128])
            out = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.shared_hbm)
            nl.store(out[0:128, 0:64], value=t)
            nl.store(out[0:128, 64:128], value=u)
            return out
        """)
    kt = nki.trace(k, {"a": "bf16[128,128]"})
    xposes = [r for r in kt.records if r.startswith("dma") and "transpose=1" in r]
    assert len(xposes) == 2
    assert all(field(r, "partitions") == "64" and field(r, "bytes") == "256" for r in xposes)
    engines = replay(kt, tmp_path)["dma_engine"]
    assert sum(e["transposes"] for e in engines.values()) == 2 * 16   # one share per destination lane


def test_dma_transpose_refusals_name_the_kernel_line(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            t = nl.load_transpose2d(a[0:40, 0:128])
            nl.store(a[0:128, 0:40], value=t)
        """)
    with pytest.raises(nki.NkiError, match=r"k.py:6: .*40 source rows: the crossbar moves whole 16-row tiles"):
        nki.trace(k, {"a": "bf16[128,128]"})
    with pytest.raises(nki.NkiError, match=r"moves 2-byte data"):
        nki.trace(k, {"a": "int8[128,128]"})          # the dtype is checked first


def test_max8_is_one_vector_engine_record_costing_its_elements_without_a_floor(tmp_path):
    # nki.isa max8: the 8 largest values of each partition, descending, [P, 8]; 8 to 16,384
    # elements read per partition; cost N (docs/engines.md: max8 has no MIN_II floor)
    k = kernel(tmp_path, """\
        def k(a, N):
            x = nl.load(a[0:128, 0:N])
            top = nisa.max8(src=x)
            nl.store(a[0:128, 0:8], value=top)
        """)
    busy = {}
    for n in (8, 1024, 4096):
        kt = nki.trace(k, {"a": "fp32[128,4096]"}, {"N": n})
        (m,) = compute_records(kt)
        assert m.startswith("dve") and field(m, "isa") == "max8" and field(m, "fn") == "max8"
        assert field(m, "src").endswith(f"[1][{n}]") and field(m, "dst").endswith("[1][8]")
        assert field(m, "partitions") == "128"
        busy[n] = replay(kt, tmp_path)["engine"]["dve"]["busy_cycles"]
    assert busy[8] > 0 and busy[1024] == 128 * busy[8] and busy[4096] == 4 * busy[1024]
    with pytest.raises(nki.NkiError, match=r"k.py:7: max8 of 4 elements per partition: it reads 8 to 16384"):
        nki.trace(k, {"a": "fp32[128,4096]"}, {"N": 4})


def test_max8_values_are_the_largest_eight_in_descending_order_in_both_conventions(tmp_path):
    np = pytest.importorskip("numpy")
    k = kernel(tmp_path, """\
        def k(a):
            x = nl.load(a[0:128, 0:64])
            top = nisa.max8(src=x)
            into = nl.ndarray((128, 8), dtype=nl.float32, buffer=nl.sbuf)
            nisa.max8(into, x)
            nl.store(a[0:128, 0:8], value=top)
            nl.store(a[0:128, 8:16], value=into)
            return a
        """)
    a = np.random.default_rng(7).standard_normal((128, 64)).astype(np.float32)
    (out,) = nki.trace(k, {"a": a}).outputs
    want = -np.sort(-a, axis=1)[:, :8]
    assert np.array_equal(out[:, 0:8], want) and np.array_equal(out[:, 8:16], want)


def test_quantize_mx_is_a_vector_engine_instruction_of_neuroncore_v4(tmp_path):
    # trn3 arch guide, QuantizeMX: four input elements per partition and cycle, x4 fp8 output.
    k = kernel(tmp_path, """\
        def k(x):
            d = nl.load(x[0:128, 0:2048])
            data = nl.ndarray((128, 512), dtype=nl.float8_e4m3fn_x4, buffer=nl.sbuf)
            scale = nl.ndarray((128, 512), dtype=nl.uint8, buffer=nl.sbuf)
            nisa.quantize_mx(data, d, scale)
            return data
        """)
    kt = nki.trace(k, {"x": "bf16[128,2048]"}, generation="mariana")
    (q,) = [r for r in kt.records if field(r, "isa") == "quantize_mx"]
    assert q.startswith("dve") and field(q, "dst").startswith("fp8e4x4@")
    assert replay(kt, tmp_path)["engine"]["dve"]["busy_cycles"] > 0
    # on cayman the x4 tile it would write is refused where it is made
    with pytest.raises(nki.NkiError, match=r"k.py:7: float8_e4m3fn_x4 is an MX quad type of NeuronCore-v4; cayman"):
        nki.trace(k, {"x": "bf16[128,2048]"})


def test_exponential_is_one_vector_engine_record_of_neuroncore_v4_at_four_elements_a_cycle(tmp_path):
    # nki.isa exponential: dst = exp(src - max_value), NeuronCore-v4 and newer; the trn3 guide
    # gives VectorE's exponential four times ScalarE's rate (docs/engines.md: N/4, where an fp32
    # tensor_scalar on VectorE takes N)
    k = kernel(tmp_path, """\
        def k(a, EXP):
            x = nl.load(a[0:128, 0:4096])
            s = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            e = nl.ndarray((128, 4096), dtype=nl.float32, buffer=nl.sbuf)
            if EXP:
                nisa.exponential(e, x, max_value=1.0, reduce_res=s, reduce_cmd=nisa.reduce_cmd.reset_reduce)
            else:
                e[...] = nisa.tensor_scalar(x, nl.subtract, 1.0)
            nl.store(a[0:128, 0:4096], value=e)
            nl.store(a[0:128, 0:1], value=s)
        """)
    busy = {}
    for exp in (True, False):
        kt = nki.trace(k, {"a": "fp32[128,4096]"}, {"EXP": exp}, generation="mariana")
        check_semaphores(kt)
        (e,) = compute_records(kt)
        assert e.startswith("dve") and field(e, "isa") == ("exponential" if exp else "tensor_scalar")
        busy[exp] = replay(kt, tmp_path)["engine"]["dve"]["busy_cycles"]
    assert busy[True] > 0 and busy[False] == 4 * busy[True]
    with pytest.raises(nki.NkiError, match=r"k.py:10: exponential is available on NeuronCore-v4 and newer \(nki.isa\); "
                                           r"cayman has none \(trace with --gen mariana\)"):
        nki.trace(k, {"a": "fp32[128,4096]"}, {"EXP": True})


def test_exponential_values_subtract_the_maximum_and_sum_each_partition(tmp_path):
    np = pytest.importorskip("numpy")
    k = kernel(tmp_path, """\
        def k(a):
            x = nl.load(a[0:128, 0:64])
            m = nisa.tensor_reduce(nl.max, x, axis=1, keepdims=True)
            s = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            e = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
            nisa.exponential(dst=e, src=x, max_value=m, reduce_res=s, reduce_cmd=nisa.reduce_cmd.reset_reduce)
            nl.store(a[0:128, 0:64], value=e)
            nl.store(a[0:128, 64:65], value=s)
            return a
        """)
    a = np.random.default_rng(3).standard_normal((128, 65)).astype(np.float32)
    (out,) = nki.trace(k, {"a": a}, generation="mariana").outputs
    want = np.exp(a[:, 0:64] - a[:, 0:64].max(axis=1, keepdims=True))
    assert np.allclose(out[:, 0:64], want, rtol=1e-6) and np.allclose(out[:, 64], want.sum(axis=1), rtol=1e-5)


RANGE_SELECT = """\
    def k(a, b):
        x = nl.load(a[0:128, 0:64])
        lo = nl.load(b[0:128, 0:1])
        hi = nl.load(b[0:128, 1:2])
        r = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        {call}
        nl.store(a[0:128, 0:64], value=y)
        nl.store(a[0:128, 64:65], value=r)
        return a
"""


def test_range_select_keeps_the_columns_inside_the_bounds_and_reduces_them(tmp_path):
    np = pytest.importorskip("numpy")
    returning = "y = nisa.range_select(on_true_tile=x, comp_op0=nl.greater_equal, comp_op1=nl.less, bound0=lo, " \
                "bound1=hi, reduce_res=r, range_start=8, on_false_value=-9.0)"
    into = "y = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)\n        " \
           "nisa.range_select(y, x, nl.greater_equal, nl.less, lo, hi, reduce_res=r, range_start=8, " \
           "on_false_value=-9.0)"
    rng = np.random.default_rng(5)
    a = rng.standard_normal((128, 65)).astype(np.float32)
    b = np.stack([rng.integers(0, 40, 128), rng.integers(40, 80, 128)], axis=1).astype(np.float32)
    columns = np.arange(64) + 8
    keep = (columns[None, :] >= b[:, 0:1]) & (columns[None, :] < b[:, 1:2])
    want = np.where(keep, a[:, 0:64], -9.0)
    for n, call in enumerate((returning, into)):
        k = kernel(tmp_path, RANGE_SELECT.format(call=call), name=f"k{n}").replace(f"::k{n}", "::k")
        kt = nki.trace(k, {"a": a.copy(), "b": b})
        (out,) = kt.outputs
        assert np.array_equal(out[:, 0:64], want) and np.array_equal(out[:, 64], want.max(axis=1))
        (rs,) = [r for r in compute_records(kt) if field(r, "isa") == "range_select"]
        assert rs.startswith("dve") and field(rs, "fn") == "greater_equal+less"
    with pytest.raises(nki.NkiError, match=r"range_select is available on NeuronCore-v3 and newer \(nki.isa\); sunda "
                                           r"has none \(trace with --gen cayman or mariana\)"):
        nki.trace(k, {"a": "fp32[128,65]", "b": "fp32[128,2]"}, generation="sunda")


def test_select_reduce_picks_by_the_predicate_into_dst_with_the_maximum(tmp_path):
    np = pytest.importorskip("numpy")
    k = kernel(tmp_path, """\
        def k(a, p, REVERSE):
            x = nl.load(a[0:128, 0:64])
            pred = nl.load(p[0:128, 0:64])
            other = nl.load(a[0:128, 64:65])
            r = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            y = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
            nisa.select_reduce(y, pred, x, other, reduce_res=r, reduce_op=nl.maximum, reverse_pred=REVERSE)
            nl.store(a[0:128, 0:64], value=y)
            nl.store(a[0:128, 64:65], value=r)
            return a
        """)
    rng = np.random.default_rng(9)
    a = rng.standard_normal((128, 65)).astype(np.float32)
    p = rng.integers(0, 2, (128, 64)).astype(np.uint8)
    for reverse in (False, True):
        kt = nki.trace(k, {"a": a.copy(), "p": p}, {"REVERSE": reverse})
        (out,) = kt.outputs
        keep = (p == 0) if reverse else (p != 0)
        want = np.where(keep, a[:, 0:64], a[:, 64:65])
        assert np.array_equal(out[:, 0:64], want) and np.array_equal(out[:, 64], want.max(axis=1))
        (sr,) = [r for r in compute_records(kt) if field(r, "isa") == "select_reduce"]
        assert sr.startswith("dve") and field(sr, "src2") is not None  # on_true and the predicate
    bad = kernel(tmp_path, """\
        def bad(a, p):
            x = nl.load(a[0:128, 0:64])
            pred = nl.load(p[0:128, 0:64])
            r = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            y = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
            nisa.select_reduce(y, pred, x, 0.0, reduce_res=r, reduce_op=nl.add)
        """, name="bad")
    with pytest.raises(nki.NkiError, match=r"bad.py:10: select_reduce reduce_op=add: nki.isa supports only the "
                                           r"maximum"):
        nki.trace(bad, {"a": "fp32[128,64]", "p": "uint8[128,64]"})


def test_dropout_is_one_vector_engine_record_in_both_forms_and_refuses_values(tmp_path):
    k = kernel(tmp_path, """\
        def k(a, b):
            x = nl.load(a[0:128, 0:512])
            prob = nl.load(b[0:128, 0:1])
            y = nisa.dropout(x, prob)
            z = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dropout(z, y, 0.25)
            nl.store(a[0:128, 0:512], value=z)
        """)
    kt = nki.trace(k, {"a": "fp32[128,512]", "b": "fp32[128,1]"})
    check_semaphores(kt)
    drops = [r for r in compute_records(kt) if field(r, "isa") == "dropout"]
    assert len(drops) == 2 and all(r.startswith("dve") and field(r, "src").endswith("[1][512]") for r in drops)
    # the second reads what the first wrote; the first's probabilities come from a load it waits for
    assert field(drops[1], "src") == field(drops[0], "dst") and " wait=" in drops[0]
    np = pytest.importorskip("numpy")
    with pytest.raises(nki.NkiError, match=r"k.py:8: numerical values of dropout .* are not modelled"):
        nki.trace(k, {"a": np.zeros((128, 512), np.float32), "b": np.zeros((128, 1), np.float32)})


@pytest.mark.parametrize("call,reason", [
    ("nisa.dropout(x, 1.5)", r"dropout prob=1.5: a probability is 0.0 to 1.0"),
    ("nisa.dropout(x, 'half')", r"dropout prob='half': a number or a \[P, 1\] tile"),
    ("nisa.dropout(x, x)", r"dropout prob \(128, 512\): one value per partition of a \[128, \.\.\.\] tile, \[128, 1\]"),
    ("nisa.range_select(on_true_tile=x, comp_op0=nl.greater_equal, comp_op1=nl.less, bound0=x, bound1=1.0)",
     r"range_select bound \(128, 512\): one value per partition"),
    ("nisa.range_select(on_true_tile=x, comp_op0=x, comp_op1=nl.less, bound0=0.0, bound1=1.0)",
     r"a tile given where an operator belongs"),
    ("nisa.select_reduce(y, p, x, x)", r"select_reduce on_false \(128, 512\): one value per partition"),
    ("nisa.select_reduce(y, p, x, None)", r"select_reduce\(dst, predicate, on_true, on_false, \.\.\.\)"),
    ("nisa.exponential(y, x, max_value='big')", r"exponential max_value='big': a number or a \[P, 1\] tile"),
    ("nisa.exponential(y, x, reduce_init=2.0)",
     r"exponential reduce_init: nki.isa loads it only with reduce_cmd=load_reduce"),
    ("nisa.exponential(src=x)", r"exponential\(dst, src, max_value=\.\.\.\): nki.isa writes its result into dst"),
])
def test_the_vector_engine_selects_and_dropout_refuse_what_nki_refuses_at_the_kernels_line(tmp_path, call, reason):
    k = kernel(tmp_path, f"""\
        def k(a, b):
            x = nl.load(a[0:128, 0:512])
            p = nl.load(b[0:128, 0:512])
            y = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
            r = {call}
        """)
    with pytest.raises(nki.NkiError, match=r"k.py:9: " + reason):
        nki.trace(k, {"a": "fp32[128,512]", "b": "uint8[128,512]"}, generation="mariana")


def test_a_reduction_result_that_is_not_a_tile_is_refused(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            x = nl.load(a[0:128, 0:512])
            y = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
            nisa.exponential(y, x, reduce_res=0.0)
        """)
    with pytest.raises(nki.NkiError, match=r"k.py:8: exponential reduce_res=0.0: a \[128, 1\] tile the reduction"):
        nki.trace(k, {"a": "fp32[128,512]"}, generation="mariana")
