"""The allocator's loop tiles and its fallback: a tile re-bound in an affine_range loop rotates over
loop_buffers buffers (3 unless given); a kernel whose loop tiles do not fit SBUF is traced again
with the largest of them given a buffer fewer, until it fits (docs/nki.md, "Operands and the
allocator"); what does not fit even then fails at the allocation's line. The fallback tests give
loop_buffers=2, the figures they were written for."""

import re
import textwrap

import pytest

from sbufsim import nki

KERNEL = textwrap.dedent("""\
    import nki
    import nki.language as nl

    @nki.jit
    def k(a, BIG=16384, SMALL=10240):
        out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range(4):
            big = nl.ndarray((128, BIG), dtype=nl.float32, buffer=nl.sbuf)
            big[...] = nl.load(a[0:128, 0:BIG])
            small = nl.ndarray((128, SMALL), dtype=nl.float32, buffer=nl.sbuf)
            small[...] = nl.load(a[0:128, 0:SMALL])
            nl.store(out[0:128, 0:512], value=small[0:128, 0:512])
        return out
    """)


def addresses(kt, kind="dma"):
    """The SBUF destination address of each load, in order."""
    return [re.search(r"dst=\w+@(0x[0-9a-f]+)", r).group(1) for r in kt.records
            if r.startswith(kind) and "src=hbm" in r]


@pytest.fixture
def kernel(tmp_path):
    path = tmp_path / "alloc.py"
    path.write_text(KERNEL)
    return f"{path}::k"


def test_tiles_that_fit_double_buffered_keep_two_buffers(kernel):
    # 2 x (8 KiB + 4 KiB) per partition fits sunda's 192 KiB: both tiles alternate two buffers.
    kt = nki.trace(kernel, {"a": "fp32[128,16384]"}, {"BIG": 2048, "SMALL": 1024}, generation="sunda",
                   loop_buffers=2)
    big, small = addresses(kt)[0::2], addresses(kt)[1::2]
    assert big[0] != big[1] and big[0] == big[2]
    assert small[0] != small[1] and small[0] == small[2]


def test_the_largest_loop_tile_falls_back_to_one_buffer(kernel):
    # 2 x (64 KiB + 40 KiB) = 208 KiB does not fit sunda's 192 KiB; with the 64 KiB tile single-
    # buffered, 64 + 2 x 40 = 144 KiB does: the big tile reuses one buffer, the small keeps two.
    kt = nki.trace(kernel, {"a": "fp32[128,16384]"}, generation="sunda", loop_buffers=2)
    big, small = addresses(kt)[0::2], addresses(kt)[1::2]
    assert len(set(big)) == 1
    assert small[0] != small[1] and small[0] == small[2]
    # cayman's 224 KiB holds both double-buffered
    kt = nki.trace(kernel, {"a": "fp32[128,16384]"}, generation="cayman", loop_buffers=2)
    assert len(set(addresses(kt)[0::2])) == 2


def test_loop_tiles_rotate_over_three_buffers_unless_told(kernel):
    # 3 x (8 KiB + 4 KiB) per partition fits: each tile's loads cycle through three addresses.
    kt = nki.trace(kernel, {"a": "fp32[128,16384]"}, {"BIG": 2048, "SMALL": 1024}, generation="sunda")
    big, small = addresses(kt)[0::2], addresses(kt)[1::2]
    assert len(set(big[:3])) == 3 and big[3] == big[0]
    assert len(set(small[:3])) == 3 and small[3] == small[0]
    kt = nki.trace(kernel, {"a": "fp32[128,16384]"}, {"BIG": 2048, "SMALL": 1024}, generation="sunda",
                   loop_buffers=1)
    assert len(set(addresses(kt))) == 2  # one buffer each


PSUM_LOOP = textwrap.dedent("""\
    import nki
    import nki.language as nl

    @nki.jit
    def k(a, b):
        out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
        ta = nl.load(a)
        tb = nl.load(b)
        for i in nl.affine_range(4):
            acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
            acc[...] = nl.matmul(ta, tb, transpose_x=True)
            nl.store(out, value=acc)
        return out
    """)


def test_a_psum_loop_tile_keeps_two_of_the_eight_banks(tmp_path):
    path = tmp_path / "psum_loop.py"
    path.write_text(PSUM_LOOP)
    banks = {}
    for n in (1, 3, 4):
        kt = nki.trace(f"{path}::k", {"a": "bf16[128,128]", "b": "bf16[128,512]"}, loop_buffers=n)
        banks[n] = [re.search(r"dst=\w+@(0x[0-9a-f]+)", r).group(1) for r in kt.records if r.startswith("matmul")]
    assert len(set(banks[1])) == 1
    assert len(set(banks[3])) == 2 and banks[3][0] == banks[3][2]
    assert banks[4] == banks[3]


def test_the_fallback_takes_one_buffer_at_a_time(kernel):
    # 3 x (48 KiB + 24 KiB) = 216 KiB does not fit sunda's 192 KiB; with the 48 KiB tile given two
    # buffers, 96 + 72 = 168 KiB does: the big tile alternates two buffers, the small keeps three.
    kt = nki.trace(kernel, {"a": "fp32[128,16384]"}, {"BIG": 12288, "SMALL": 6144}, generation="sunda")
    big, small = addresses(kt)[0::2], addresses(kt)[1::2]
    assert len(set(big)) == 2 and big[0] == big[2]
    assert len(set(small)) == 3


@pytest.mark.parametrize("bad", [0, 9, 2.5, True, "3"])
def test_a_loop_buffer_count_out_of_range_is_refused(kernel, bad):
    with pytest.raises(nki.NkiError, match="loop_buffers .*an integer from 1 to 8"):
        nki.trace(kernel, {"a": "fp32[128,16384]"}, generation="sunda", loop_buffers=bad)


def test_what_does_not_fit_single_buffered_is_placed_by_liveness(kernel):
    # 128 KiB + 80 KiB per partition: over 192 KiB even with one buffer each; but `big` is never
    # read after its load, so placed by liveness `small` takes its bytes.
    kt = nki.trace(kernel, {"a": "fp32[128,32768]"}, {"BIG": 32768, "SMALL": 20480}, generation="sunda",
                   loop_buffers=2)
    big, small = addresses(kt)[0::2], addresses(kt)[1::2]
    assert big[0] == small[0]


def test_what_does_not_fit_even_by_liveness_fails_at_its_line(tmp_path):
    path = tmp_path / "alloc.py"
    both = "value=nl.add(small[0:128, 0:512], big[0:128, 0:512]))"
    path.write_text(KERNEL.replace("value=small[0:128, 0:512])", both))
    # both live until the store: 128 KiB + 80 KiB per partition is over sunda's 192 KiB however placed
    with pytest.raises(nki.NkiError) as e:
        nki.trace(f"{path}::k", {"a": "fp32[128,32768]"}, {"BIG": 32768, "SMALL": 20480}, generation="sunda")
    message = str(e.value)
    assert re.search(r"alloc\.py:10: SBUF is full even with each tile freed after its last use: tile \S+ needs "
                     r"81920 bytes per partition", message), message
    assert "(held by line 8: 1 tile, 131072 bytes)" in message, message


def test_full_sbuf_names_the_line_whose_tiles_live_together_and_what_to_do(tmp_path):
    path = tmp_path / "kept.py"
    path.write_text(textwrap.dedent("""\
        import nki
        import nki.language as nl

        @nki.jit
        def k(a):
            out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
            tiles = []
            for i in nl.affine_range(8):
                t = nl.ndarray((128, 8192), dtype=nl.float32, buffer=nl.sbuf)
                t[...] = nl.load(a[0:128, 0:8192])
                tiles.append(t)
            for i in nl.affine_range(8):
                nl.store(out[0:128, 0:512], value=tiles[i][0:128, 0:512])
            return out
        """))
    # eight 32 KiB tiles of line 9 alive together: the sixth does not fit sunda's 192 KiB
    with pytest.raises(nki.NkiError) as e:
        nki.trace(f"{path}::k", {"a": "fp32[128,8192]"}, generation="sunda")
    message = str(e.value)
    assert re.search(r"kept\.py:9: SBUF is full .* \(held by line 9: 5 tiles, 163840 bytes\)\. ", message), message
    assert "allocate fewer at once" in message and "Not modelled yet" in message


LIVE = textwrap.dedent("""\
    import nki
    import nki.isa as nisa
    import nki.language as nl

    @nki.jit
    def accumulators(a, b, N=4):
        out = nl.ndarray((128, 512 * N), dtype=nl.float32, buffer=nl.shared_hbm)
        ta = nl.load(a)
        accs = []
        for j in range(N):
            tb = nl.load(b[:, j * 512:(j + 1) * 512])
            acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
            acc += nisa.nc_matmul(ta, tb)
            accs.append(acc)
        for j in range(N):
            nl.store(out[:, j * 512:(j + 1) * 512], value=nl.copy(accs[j]))
        return out

    @nki.jit
    def sumsq(x, y):
        out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
        a = nl.load(x)
        b = nl.load(y)
        z = a * a + b * b
        nl.store(out, value=z)
        return out
    """)


@pytest.fixture
def live(tmp_path):
    path = tmp_path / "live.py"
    path.write_text(LIVE)
    return str(path)


def test_tiles_of_one_line_live_at_once_get_a_buffer_each(live):
    # Four PSUM accumulators kept in a list: four banks, four groups, not one running sum.
    kt = nki.trace(f"{live}::accumulators", {"a": "bf16[128,128]", "b": "bf16[128,2048]"})
    matmuls = [r for r in kt.records if r.startswith("matmul")]
    banks = [re.search(r"dst=fp32@(0x[0-9a-f]+)", r).group(1) for r in matmuls]
    assert len(set(banks)) == 4, matmuls
    assert all("acc_flags=single" in r for r in matmuls), matmuls
    copies = [re.search(r"src=fp32@(0x[0-9a-f]+)", r).group(1) for r in kt.records if r.startswith("act")]
    assert copies == banks  # each copy reads its own accumulator
    # a * a + b * b: the two products and the sum in three buffers, the add reading both products.
    kt = nki.trace(f"{live}::sumsq", {"x": "fp32[128,512]", "y": "fp32[128,512]"})
    mul1, mul2, add = [r for r in kt.records if r.startswith("dve")]
    dst = [re.search(r"dst=fp32@(0x[0-9a-f]+)", r).group(1) for r in (mul1, mul2, add)]
    assert len(set(dst)) == 3, kt.records
    assert f"src=fp32@{dst[0]}" in add and f"src2=fp32@{dst[1]}" in add


def test_more_live_tiles_than_fit_fail_at_their_line(live):
    # Twelve live accumulators of 2 KiB: PSUM has eight banks per partition.
    with pytest.raises(nki.NkiError) as e:
        nki.trace(f"{live}::accumulators", {"a": "bf16[128,128]", "b": "bf16[128,6144]"}, {"N": 12})
    message = str(e.value)
    # nor with each accumulator's bank free after its last use (liveness, the last fallback)
    assert re.search(r"live\.py:12: PSUM is full even with each tile freed after its last use", message), message


def test_the_command_line_takes_the_loop_buffer_count(kernel, tmp_path, capsys):
    from sbufsim.nki.__main__ import main
    line = [kernel, "--input", "a=fp32[128,16384]", "--param", "BIG=2048", "--param", "SMALL=1024", "--gen", "sunda"]
    out = tmp_path / "two.trc"
    assert main([*line, "--loop-buffers", "2", "-o", str(out)]) == 0
    loads = [re.search(r"dst=\w+@(0x[0-9a-f]+)", r).group(1) for r in out.read_text().splitlines()
             if r.startswith("dma") and "src=hbm" in r]
    assert len(set(loads[0::2])) == 2 and len(set(loads[1::2])) == 2
    with pytest.raises(SystemExit) as e:
        main([*line, "--loop-buffers", "0", "-o", str(tmp_path / "zero.trc")])
    assert e.value.code == 2
    assert "an integer from 1 to 8" in capsys.readouterr().err
