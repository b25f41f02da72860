"""The allocator's single-buffer fallback: a kernel whose double-buffered loop tiles do not fit
SBUF is traced again with the largest of them given one buffer (docs/nki.md, "Operands and the
allocator"); what does not fit even then fails at the allocation's line."""

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
    kt = nki.trace(kernel, {"a": "fp32[128,16384]"}, {"BIG": 2048, "SMALL": 1024}, generation="sunda")
    big, small = addresses(kt)[0::2], addresses(kt)[1::2]
    assert big[0] != big[1] and big[0] == big[2]
    assert small[0] != small[1] and small[0] == small[2]


def test_the_largest_loop_tile_falls_back_to_one_buffer(kernel):
    # 2 x (64 KiB + 40 KiB) = 208 KiB does not fit sunda's 192 KiB; with the 64 KiB tile single-
    # buffered, 64 + 2 x 40 = 144 KiB does: the big tile reuses one buffer, the small keeps two.
    kt = nki.trace(kernel, {"a": "fp32[128,16384]"}, generation="sunda")
    big, small = addresses(kt)[0::2], addresses(kt)[1::2]
    assert len(set(big)) == 1
    assert small[0] != small[1] and small[0] == small[2]
    # cayman's 224 KiB holds both double-buffered
    kt = nki.trace(kernel, {"a": "fp32[128,16384]"}, generation="cayman")
    assert len(set(addresses(kt)[0::2])) == 2


def test_what_does_not_fit_single_buffered_fails_at_its_line(kernel):
    # 128 KiB + 80 KiB per partition: over 192 KiB even with one buffer each.
    with pytest.raises(nki.NkiError) as e:
        nki.trace(kernel, {"a": "fp32[128,32768]"}, {"BIG": 32768, "SMALL": 20480}, generation="sunda")
    message = str(e.value)
    assert re.search(r"alloc\.py:10: SBUF is full: this tile needs 81920 bytes per partition", message), message
    assert "even with 2 loop tile(s) given one buffer instead of two" in message
