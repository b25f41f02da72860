"""Direct allocation (nki.compiler's sbuf/psum mod_alloc and alloc, force_auto_alloc): each block
where the public API reference puts it, blocks sharing bytes ordered by their hazards, the
front-end's own placements (its tiles, the synchronisation scratch) clear of them, and an
affine_range body's allocations placed once as NKI traces the body once."""

import re
import textwrap

import pytest

import sbufsim
from sbufsim import nki
from nki_helpers import check_semaphores, replay

HEADER = "import functools\nimport nki\nimport nki.isa as nisa\nimport nki.language as nl\nimport nki.compiler as ncc\n"


def kernel(tmp_path, body, file="k"):
    path = tmp_path / f"{file}.py"
    path.write_text(HEADER + "\n" + textwrap.dedent(body))
    return f"{path}::k"


def addresses(kt, kind, operand):
    """The byte addresses of `operand` in the records of `kind`, in order (sync records apart)."""
    found = []
    for record in kt.records:
        if record.split()[0] == kind and "fn=sync" not in record:
            match = re.search(rf" {operand}=\w+@0x([0-9a-f]+)\[", record)
            if match:
                found.append(int(match.group(1), 16))
    return found


# Two row blocks of a, each loaded into a block of `buf`, scaled on ACT and stored: with
# num_free_tiles=(1,) both blocks are the same bytes, so the second load waits for the first
# block's reader; with (2,) they alternate and the loads overlap the compute.
BLOCKS = """\
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        buf = nl.ndarray((4, nl.par_dim(128), 2048), dtype=a.dtype,
                         buffer=ncc.sbuf.mod_alloc(base_addr=4096, num_free_tiles=({tiles},)))
        res = nl.ndarray((4, nl.par_dim(128), 2048), dtype=a.dtype,
                         buffer=ncc.sbuf.mod_alloc(base_addr=65536, num_free_tiles=(2,)))
        for i in nl.affine_range(4):
            buf[i] = nl.load(a[i * 128:(i + 1) * 128, :])
            res[i] = nisa.activation(op=nl.exp, data=buf[i])
            nl.store(out[i * 128:(i + 1) * 128, :], value=res[i])
        return out
"""


def test_mod_alloc_places_each_block_modulo_its_tile_count(tmp_path):
    tile = 2048 * 2  # bytes per partition of one block
    shared = nki.trace(kernel(tmp_path, BLOCKS.format(tiles=1), "shared"), {"a": "bf16[512,2048]"})
    alternate = nki.trace(kernel(tmp_path, BLOCKS.format(tiles=2), "alternate"), {"a": "bf16[512,2048]"})
    assert addresses(shared, "dma", "dst")[:4] == [4096] * 4
    assert addresses(alternate, "dma", "dst")[:4] == [4096, 4096 + tile] * 2
    assert addresses(alternate, "act", "dst") == [65536, 65536 + tile] * 2
    for kt in (shared, alternate):
        check_semaphores(kt)


def test_blocks_that_share_bytes_wait_for_each_other(tmp_path):
    inputs = {"a": "bf16[512,2048]"}
    shared = nki.trace(kernel(tmp_path, BLOCKS.format(tiles=1), "shared"), inputs)
    alternate = nki.trace(kernel(tmp_path, BLOCKS.format(tiles=2), "alternate"), inputs)
    loads = lambda kt: [r for r in kt.records if r.startswith("dma") and "src=hbm" in r]
    # the second block's load overwrites the first block's bytes: it waits for ACT's read of them
    # (write after read), which two alternating blocks do not need
    assert "wait=" in loads(shared)[1] and "wait=" not in loads(alternate)[1]
    # the one place's cost is noted at the tensor's line, and only there: buf (one place) is,
    # res (two) is not, nor is buf with two places
    assert len(shared.shared_blocks) == 1 and not alternate.shared_blocks
    assert re.search(r"shared\.py:\d+: the 4 blocks of tile buf share one place \(direct allocation\), so 3 "
                     r"writes into it \(line \d+\) wait", shared.shared_blocks[0])
    (tmp_path / "s").mkdir()
    (tmp_path / "a").mkdir()
    slow = replay(shared, tmp_path / "s")
    fast = replay(alternate, tmp_path / "a")
    assert slow.total_cycles > fast.total_cycles
    for kt in (shared, alternate):
        path = kt.write(str(tmp_path / f"{kt.name}_{len(kt.records)}.trc"), force=True)
        assert sbufsim.Trace.read(path).check() == []


def test_psum_mod_alloc_places_blocks_bank_by_bank(tmp_path):
    k = kernel(tmp_path, """\
        def k(a, b):
            out = nl.ndarray((128, 2048), dtype=nl.float32, buffer=nl.shared_hbm)
            lhs = nl.load(a)
            rhs = nl.load(b)
            acc = nl.ndarray((4, nl.par_dim(128), 512), dtype=nl.float32,
                             buffer=ncc.psum.mod_alloc(base_bank=2, num_bank_tiles=(2,)))
            for j in nl.affine_range(4):
                acc[j] = nisa.nc_matmul(lhs, rhs[:, j * 512:(j + 1) * 512])
                nl.store(out[:, j * 512:(j + 1) * 512], value=nl.copy(acc[j]))
            return out
    """)
    kt = nki.trace(k, {"a": "bf16[128,128]", "b": "bf16[128,2048]"})
    psum = 0x2000000
    assert [a - psum for a in addresses(kt, "matmul", "dst")] == [2 * 2048, 3 * 2048] * 2
    check_semaphores(kt)


def two_strips(rows, declarations):
    """A kernel k(a, b) of two 512-column matmul strips: `declarations` (the kernel's lines, at
    its body's indent) make lhs, rhs (two blocks) and acc (two PSUM blocks) as the test places them."""
    return textwrap.dedent(f"""\
        def k(a, b):
            out = nl.ndarray(({rows}, 1024), dtype=nl.float32, buffer=nl.shared_hbm)
        {{}}
            for j in nl.affine_range(2):
                rhs[j] = nl.load(b[:, j * 512:(j + 1) * 512])
                acc[j] = nisa.nc_matmul(lhs, rhs[j])
                nl.store(out[:, j * 512:(j + 1) * 512], value=nl.copy(acc[j]))
            return out
        """).format(textwrap.indent(textwrap.dedent(declarations), " " * 4).rstrip())


def test_alloc_calls_the_kernel_function_by_the_names_nki_uses(tmp_path):
    # the reference allocated attention binds its bank map by keyword (functools.partial), so the
    # function is called with idx=, pdim_size=, fdim_size=
    k = kernel(tmp_path, textwrap.dedent("""\
        def psum_addr(bank_map, idx, pdim_size, fdim_size):
            return (bank_map[idx], 0, 0)

        def sbuf_addr(idx, pdim_size, fdim_size):
            return (0, 8192 + 3 * fdim_size * idx[0])

        """) + two_strips(128, """\
            lhs = nl.load(a)
            rhs = nl.ndarray((2, nl.par_dim(128), 512), dtype=b.dtype, buffer=ncc.sbuf.alloc(sbuf_addr))
            acc = nl.ndarray((2, nl.par_dim(128), 512), dtype=nl.float32,
                             buffer=ncc.psum.alloc(functools.partial(psum_addr, bank_map={(0,): 5, (1,): 1})))
        """))
    kt = nki.trace(k, {"a": "bf16[128,128]", "b": "bf16[128,1024]"})
    assert [a - 0x2000000 for a in addresses(kt, "matmul", "dst")] == [5 * 2048, 1 * 2048]
    assert addresses(kt, "matmul", "src") == [8192, 8192 + 3 * 1024]


def test_the_front_ends_own_placements_keep_clear_of_direct_bytes(tmp_path):
    # the tile at byte 0 takes the scratch's usual place; x (the front-end's) goes past both
    k = kernel(tmp_path, """\
        def k(a):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            x = nl.load(a)
            y = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=0))
            y[...] = nl.exp(x)
            nl.store(out, value=y)
            return out
    """)
    kt = nki.trace(k, {"a": "bf16[128,512]"})
    x = addresses(kt, "dma", "dst")[0]
    assert addresses(kt, "act", "dst") == [0]
    assert x >= 1024 and kt.traces == 2  # traced again with the direct bytes reserved
    scratch = [r for r in kt.records
               if "fn=sync" in r or (r.startswith("dma") and "src=hbm" not in r and "dst=hbm" not in r)]
    for record in scratch:  # the scratch, wherever it went, is outside [0, 1024)
        assert all(int(v, 16) >= 1024 for v in re.findall(r"@0x([0-9a-f]+)\[", record))
    path = kt.write(str(tmp_path / "clear.trc"))
    assert sbufsim.Trace.read(path).check() == []


RUNNING_ADDRESS = """\
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        cur = 1024
        for i in nl.{loop}(3):
            t = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=cur))
            cur += 2048
            t[...] = nl.load(a[i * 128:(i + 1) * 128, :])
            nl.store(out[i * 128:(i + 1) * 128, :], value=t)
        return out
"""


@pytest.mark.parametrize("loop,places", [("affine_range", [1024] * 3), ("sequential_range", [1024] * 3),
                                         ("static_range", [1024, 3072, 5120])])
def test_a_traced_once_body_is_placed_once(tmp_path, loop, places):
    # NKI traces an affine or sequential body once, so `cur += ...` in it advances once; a
    # static_range body is unrolled and runs once per iteration in NKI too
    kt = nki.trace(kernel(tmp_path, RUNNING_ADDRESS.format(loop=loop)), {"a": "bf16[384,512]"})
    assert addresses(kt, "dma", "dst") == places


def test_force_auto_alloc_drops_the_direct_placements(tmp_path):
    body = BLOCKS.format(tiles=1)
    plain = nki.trace(kernel(tmp_path, body.replace("buffer=ncc.sbuf.mod_alloc(base_addr=4096, num_free_tiles=(1,))",
                                                    "buffer=nl.sbuf").replace(
        "buffer=ncc.sbuf.mod_alloc(base_addr=65536, num_free_tiles=(2,))", "buffer=nl.sbuf"), "plain"),
        {"a": "bf16[512,2048]"})
    auto = nki.trace(kernel(tmp_path, body.replace("    def k(a):", "    @ncc.force_auto_alloc\n    def k(a):"),
                            "auto"), {"a": "bf16[512,2048]"})
    strip = lambda kt: [re.sub(r" loc=\S+", "", r) for r in kt.records]
    assert strip(plain) == strip(auto)
    assert addresses(auto, "dma", "dst")[0] != 4096


@pytest.mark.parametrize("buffer,message", [
    ("ncc.sbuf.mod_alloc(base_addr=229376 - 512)", "SBUF bytes 228864..229888 of each partition pass the 229376"),
    ("ncc.sbuf.mod_alloc(base_addr=0, base_partition=64)", "partitions 64..192 pass the 128"),
    ("ncc.sbuf.mod_alloc(base_addr=3)", "not a whole number of bfloat16 elements"),
    ("ncc.sbuf.mod_alloc(base_addr=-64)", "must be a non-negative integer"),
    ("ncc.sbuf.mod_alloc(base_addr=0, num_free_tiles=(0,))", "must be a tuple of positive integers"),
    ("ncc.sbuf.alloc(lambda idx, pdim_size, fdim_size: 7)", "it must return (partition, byte)"),
    ("ncc.psum.mod_alloc(base_addr=0)", "base_bank= is required"),
])
def test_a_placement_outside_the_memory_is_refused_at_its_line(tmp_path, buffer, message):
    k = kernel(tmp_path, f"""\
        def k(a):
            t = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype, buffer={buffer})
            t[...] = nl.load(a)
            return t
    """)
    with pytest.raises(sbufsim.InputError) as error:
        nki.trace(k, {"a": "bf16[128,512]"})
    assert message in str(error.value) and "k.py:" in str(error.value)


def test_a_view_over_blocks_that_share_bytes_is_refused(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            buf = nl.ndarray((2, nl.par_dim(128), 512), dtype=a.dtype,
                             buffer=ncc.sbuf.mod_alloc(base_addr=1024, num_free_tiles=(1,)))
            buf[0:2] = nl.load(a.reshape((2, 128, 512)))
            return buf
    """)
    with pytest.raises(sbufsim.InputError, match=r"k\.py:\d+: tile \w+\[0:2\]: its directly allocated blocks share"):
        nki.trace(k, {"a": "bf16[256,512]"})


def test_direct_allocations_that_move_between_traces_are_refused(tmp_path):
    # the front-end traces a kernel again when a direct allocation meets its own placements; a
    # kernel whose addresses come from state kept between calls would place them elsewhere then
    state = {"addr": 0}

    def k(a):
        import nki.compiler as ncc  # the front-end's, while it traces
        import nki.language as nl
        x = nl.load(a)
        t = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=state["addr"]))
        state["addr"] += 1024
        t[...] = nl.exp(x)
        return t
    with pytest.raises(sbufsim.InputError, match="still meet the front-end's own placements after 8 traces"):
        nki.trace(k, {"a": "bf16[128,512]"})


def test_ndarray_address_places_the_tensor(tmp_path):
    # nl.ndarray(..., address=(partition_offset, free_offset)): SBUF at that partition and byte,
    # PSUM at byte offset 3 banks in (bank 3); the blocks of a block tensor one after another
    k = kernel(tmp_path, two_strips(64, """\
            lhs = nl.ndarray((64, 64), dtype=a.dtype, buffer=nl.sbuf, address=(64, 2048))
            lhs[...] = nl.load(a)
            rhs = nl.ndarray((2, nl.par_dim(64), 512), dtype=b.dtype, buffer=nl.sbuf, address=(64, 8192))
            acc = nl.ndarray((2, nl.par_dim(64), 512), dtype=nl.float32, buffer=nl.psum, address=(0, 3 * 2048))
        """))
    kt = nki.trace(k, {"a": "bf16[64,64]", "b": "bf16[64,1024]"})
    partition = 0x40000  # the SBUF partition stride
    assert addresses(kt, "dma", "dst")[:2] == [64 * partition + 2048, 64 * partition + 8192]
    assert addresses(kt, "matmul", "src") == [64 * partition + 8192, 64 * partition + 8192 + 1024]
    psum = 0x2000000  # PSUM partition 0
    assert [a - psum for a in addresses(kt, "matmul", "dst")] == [3 * 2048, 4 * 2048]
    with pytest.raises(sbufsim.InputError, match="address=\\(1, 2, 3\\): on chip, \\(partition_offset, free_offset\\)"):
        nki.trace(kernel(tmp_path, """\
            def k(a):
                t = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.sbuf, address=(1, 2, 3))
                t[...] = nl.load(a)
                return t
        """, "bad"), {"a": "bf16[128,64]"})
    # an HBM tensor's (free_offset,) changes nothing in the trace; another form is refused
    hbm = """\
        def k(a):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm, address={})
            nl.store(out, value=nl.load(a))
            return out
    """
    plain = nki.trace(kernel(tmp_path, hbm.format("None"), "plain"), {"a": "bf16[128,64]"})
    placed = nki.trace(kernel(tmp_path, hbm.format("(4096,)"), "placed"), {"a": "bf16[128,64]"})
    assert [re.sub(r" loc=\S+", "", r) for r in plain.records] == [re.sub(r" loc=\S+", "", r) for r in placed.records]
    with pytest.raises(sbufsim.InputError, match=r"address=\(0, 1\): for an HBM tensor, \(free_offset,\)"):
        nki.trace(kernel(tmp_path, hbm.format("(0, 1)"), "bad_hbm"), {"a": "bf16[128,64]"})


def test_a_tensor_of_too_many_blocks_is_refused_at_its_line(tmp_path):
    k = kernel(tmp_path, """\
        def k(a):
            t = nl.ndarray((1 << 30, nl.par_dim(128), 1), dtype=a.dtype,
                           buffer=ncc.sbuf.mod_alloc(base_addr=0, num_free_tiles=(1,)))
            return t
    """)
    with pytest.raises(sbufsim.InputError, match=r"k\.py:\d+: tile \w+ .*: 1073741824 blocks, each placed"):
        nki.trace(k, {"a": "bf16[128,512]"})


def test_numpy_integers_place_as_python_ones(tmp_path):
    # a kernel may compute its addresses with numpy (np.prod of a shape is an np.int64)
    pytest.importorskip("numpy")
    k = kernel(tmp_path, """\
        import numpy as np

        def k(a):
            t = nl.ndarray((2, nl.par_dim(128), 512), dtype=a.dtype,
                           buffer=ncc.sbuf.mod_alloc(base_addr=np.int64(4096), num_free_tiles=(np.int32(2),)))
            u = nl.ndarray((128, 512), dtype=a.dtype, buffer=ncc.sbuf.alloc(
                lambda idx, pdim_size, fdim_size: (np.int32(0), np.prod((8, 1024)))))
            t[0] = nl.load(a)
            t[1] = nl.exp(t[0])
            u[...] = nl.exp(t[1])
            return u
    """)
    kt = nki.trace(k, {"a": "bf16[128,512]"})
    assert addresses(kt, "dma", "dst")[0] == 4096
    assert addresses(kt, "act", "dst") == [4096 + 1024, 8192]


def test_tiles_placed_by_lifetimes_keep_clear_of_direct_bytes(tmp_path):
    # eight lines of 16 KiB tiles and their eight results take 256 KiB with a buffer each, more
    # than there is, but at most five and a result are live at once: they are placed by their
    # lifetimes, 16 KiB apart from byte 64, which puts the fifth over the direct tile at 64 KiB
    # (declared first) unless it is kept clear
    load = ("    t{0} = nl.ndarray((128, 8192), dtype=a.dtype, buffer=nl.sbuf)\n"
            "    t{0}[...] = nl.load(a[:, {0} * 8192:({0} + 1) * 8192])\n")
    use = "    nl.store(out[:, {0} * 8192:({0} + 1) * 8192], value=nl.exp(t{0}))\n"
    body = "".join(load.format(i) for i in range(5))
    body += "".join(use.format(i - 5) + load.format(i) for i in range(5, 8))
    body += "".join(use.format(i) for i in range(3, 8))
    path = tmp_path / "k.py"
    path.write_text(HEADER + "\n\ndef k(a, b):\n"
                    "    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n"
                    "    d = nl.ndarray((128, 512), dtype=b.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=65536))\n"
                    "    d[...] = nl.load(b)\n" + body +
                    "    nl.store(b, value=nl.exp(d))\n"
                    "    return out\n")
    kt = nki.trace(f"{path}::k", {"a": "bf16[128,65536]", "b": "bf16[128,512]"})
    direct = (65536, 65536 + 1024)
    loads = [int(re.search(r" dst=\w+@0x([0-9a-f]+)\[", r).group(1), 16) for r in kt.records
             if r.startswith("dma") and "src=hbm" in r]
    assert loads[0] == direct[0]
    spans = [(addr, addr + 16384) for addr in loads[1:]]  # the eight tiles
    assert len(spans) == 8 and kt.traces > 2  # placed by lifetimes, with the direct bytes reserved
    assert all(hi <= direct[0] or direct[1] <= lo for lo, hi in spans), spans
    path_trc = kt.write(str(tmp_path / "k.trc"))
    assert sbufsim.Trace.read(path_trc).check() == []


def test_a_helper_called_twice_an_iteration_places_each_call_once(tmp_path):
    # one allocation line (the helper's) made twice each iteration: its first and second
    # allocations keep the places the first iteration gave them
    k = kernel(tmp_path, """\
        def k(a):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            state = {"addr": 1024}

            def tile():
                t = nl.ndarray((nl.par_dim(128), 512), dtype=a.dtype,
                               buffer=ncc.sbuf.mod_alloc(base_addr=state["addr"]))
                state["addr"] += 1024
                return t
            for i in nl.affine_range(3):
                x, y = tile(), tile()
                x[...] = nl.load(a[i * 128:(i + 1) * 128, :])
                y[...] = nl.exp(x)
                nl.store(out[i * 128:(i + 1) * 128, :], value=y)
            return out
    """)
    kt = nki.trace(k, {"a": "bf16[384,512]"})
    assert addresses(kt, "dma", "dst") == [1024] * 3
    assert addresses(kt, "act", "dst") == [2048] * 3
