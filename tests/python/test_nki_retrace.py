"""How often trace() runs a kernel to find its buffers (KernelTrace.traces): a line whose tiles
are live several at once gets a buffer for each of them after one retry, not one more buffer per
retry, and the trace is the one the least such counts give."""

import re

from sbufsim import nki

KERNEL = """\
import nki
import nki.language as nl


@nki.jit
def parts(a):
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    tiles = [nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf) for i in range(PARTS)]  # PARTS live tiles
    for i in range(PARTS):
        tiles[i][...] = nl.load(a[i * 128:(i + 1) * 128, :])
    total = tiles[0]
    for t in tiles[1:]:
        total = nl.add(total, t)  # one line: the sum and the tile it replaces live at once
    nl.store(out, value=total)
    return out
"""


def trace_parts(tmp_path, parts):
    path = tmp_path / "parts.py"
    path.write_text(KERNEL.replace("PARTS", str(parts)))
    return nki.trace(f"{path}::parts", {"a": f"bf16[{128 * parts},512]"})


def test_a_line_of_many_live_tiles_costs_one_retry(tmp_path):
    # the load line needs 8 buffers, the add line 2: one retry each, wherever the count starts
    kt = trace_parts(tmp_path, 8)
    assert kt.traces == 3
    loads = [r for r in kt.records if r.startswith("dma ") and "nl.load" in r]
    assert len(loads) == 8
    # each live tile got a buffer of its own: eight different destinations
    destinations = {re.search(r" dst=(\S+)", r).group(1) for r in loads}
    assert len(destinations) == 8


def test_the_retries_do_not_grow_with_the_live_tiles(tmp_path):
    assert trace_parts(tmp_path, 4).traces == trace_parts(tmp_path, 16).traces == 3


def test_a_kernel_that_fits_is_traced_once(tmp_path):
    assert trace_parts(tmp_path, 1).traces == 1
